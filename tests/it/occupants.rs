//! Everyone in the car: speakers own what they say, an older statement ingested late does not
//! replace a newer one, and the vehicle-settings schema works end to end (remember, recall,
//! export) without any of CarMem's categories.

use std::path::Path;

use glovebox::conversation::Conversation;
use glovebox::memory::Memory;
use glovebox::ops::{self, Reply, Request};

use crate::common::{shipped_config, user};

/// A memory under the shipped vehicle configuration (config/glovebox-vehicle.toml).
pub fn vehicle_memory(dir: &Path) -> Memory {
    Memory::open(dir, shipped_config("glovebox-vehicle.toml"))
        .expect("memory opens with the vehicle schema")
}

fn conv(json: &str) -> Conversation {
    Conversation::from_json(json).expect("a valid conversation")
}

const TALL: &str = "I'm tall, so I need the headrest all the way up at 44.";
const SHORT: &str = "I'm much shorter, so I need the headrest down at 3.";

fn headrest(m: &Memory, who: &str) -> Vec<String> {
    let d = m.schema().detail_by_key("seat_headrest_height").unwrap();
    m.list(&user(who))
        .unwrap()
        .into_iter()
        .filter(|p| p.detail == d)
        .map(|p| p.attribute)
        .collect()
}

#[test]
fn two_speakers_each_keep_their_own_preference() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    let c = conv(&format!(
        r#"[{{"role":"user","speaker":"patricia","text":"{TALL}"}},
            {{"role":"assistant","text":"Done."}},
            {{"role":"user","speaker":"gary","text":"{SHORT}"}}]"#
    ));
    let out = m.remember(&user("driver"), &c).unwrap();
    let owners: Vec<(&str, &str)> = out
        .iter()
        .map(|o| (o.user.as_str(), o.preference.attribute.as_str()))
        .collect();
    assert_eq!(owners, [("patricia", "44"), ("gary", "3")]);
    assert_eq!(headrest(&m, "patricia"), ["44"]);
    assert_eq!(headrest(&m, "gary"), ["3"]);
    assert!(m.list(&user("driver")).unwrap().is_empty());
}

#[test]
fn an_older_statement_ingested_later_does_not_replace_a_newer_one() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    let newer = conv(&format!(
        r#"{{"time":"2025-04-10T09:00:00Z","turns":[{{"role":"user","speaker":"gary","text":"{SHORT}"}}]}}"#
    ));
    let older = conv(&format!(
        r#"{{"time":"2025-04-01T08:00:00Z","turns":[{{"role":"user","speaker":"gary","text":"{TALL}"}}]}}"#
    ));
    m.remember(&user("gary"), &newer).unwrap();
    let out = m.remember(&user("gary"), &older).unwrap();
    assert!(out.is_empty(), "the older statement changed {out:?}");
    assert_eq!(headrest(&m, "gary"), ["3"]);
    let p = &m.list(&user("gary")).unwrap()[0];
    assert_eq!(
        glovebox::rfc3339::format(p.updated),
        "2025-04-10T09:00:00Z",
        "stored at the time it was said"
    );
    // In time order the later statement does replace the earlier one.
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    m.remember(&user("gary"), &older).unwrap();
    m.remember(&user("gary"), &newer).unwrap();
    assert_eq!(headrest(&m, "gary"), ["3"]);
}

#[test]
fn the_vehicle_schema_round_trips_remember_recall_and_export() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    let ann = user("ann");
    let reply = ops::execute(
        &m,
        Request::Remember {
            user: ann.clone(),
            conversation: conv(&format!(r#"[{{"role":"user","text":"{TALL}"}}]"#)),
        },
    )
    .unwrap();
    let json = reply.to_json();
    assert_eq!(json["remembered"][0]["user"], "ann", "{json}");
    assert_eq!(
        json["remembered"][0]["preference"]["category_key"], "seat_headrest_height",
        "{json}"
    );
    let hits = m
        .recall(&ann, "I need to adjust the headrest height.", 3)
        .unwrap();
    assert_eq!(
        hits.first().map(|r| r.preference.attribute.as_str()),
        Some("44")
    );
    let Reply::Exported(doc) = ops::execute(&m, Request::Export { user: ann.clone() }).unwrap()
    else {
        panic!("export answered something else")
    };
    assert_eq!(doc["preferences"][0]["attribute"], "44", "{doc}");
    // The export imports back into a fresh vehicle memory.
    let dir2 = tempfile::tempdir().unwrap();
    let m2 = vehicle_memory(dir2.path());
    let imported = ops::execute(
        &m2,
        Request::Import {
            user: user("bob"),
            document: doc,
        },
    )
    .unwrap();
    assert_eq!(imported.to_json()["imported"], 1);
    assert_eq!(headrest(&m2, "bob"), ["44"]);
}

#[test]
fn a_correction_later_in_the_conversation_is_what_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    let c = conv(
        r#"[{"role":"user","speaker":"justin","text":"I like the seat ventilation speed at 3."},
            {"role":"user","speaker":"gary","text":"Good call, the afternoon sun is relentless."},
            {"role":"user","speaker":"justin","text":"Hmm, that's too strong, I can feel the draft. Lower it to 2."}]"#,
    );
    m.remember(&user("justin"), &c).unwrap();
    let d = m.schema().detail_by_key("seat_ventilation_speed").unwrap();
    let vent: Vec<String> = m
        .list(&user("justin"))
        .unwrap()
        .into_iter()
        .filter(|p| p.detail == d)
        .map(|p| p.attribute)
        .collect();
    assert_eq!(vent, ["2"]);
}

#[test]
fn a_setting_named_first_takes_the_value_said_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    // The setting is named in one sentence, its value only in a later one that says "it".
    let c = conv(
        r#"[{"role":"user","speaker":"brian","text":"I think I overcorrected the seat height."},
            {"role":"user","speaker":"brian","text":"Let me bump it up to 84. There, that feels better."}]"#,
    );
    m.remember(&user("brian"), &c).unwrap();
    let d = m.schema().detail_by_key("seat_vertical_position").unwrap();
    let seat: Vec<String> = m
        .list(&user("brian"))
        .unwrap()
        .into_iter()
        .filter(|p| p.detail == d)
        .map(|p| p.attribute)
        .collect();
    assert_eq!(seat, ["84"]);
}

#[test]
fn category_recall_gives_the_value_a_step_asks_for() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    let ann = user("ann");
    m.remember(
        &ann,
        &conv(&format!(r#"[{{"role":"user","text":"{TALL}"}}]"#)),
    )
    .unwrap();
    let recall = |text: &str| {
        ops::execute(
            &m,
            Request::Recall {
                user: ann.clone(),
                text: text.into(),
                k: None,
                category: Some("seat_headrest_height".into()),
                context: Default::default(),
            },
        )
        .unwrap()
        .to_json()
    };
    let r = recall("Put the headrest where I like it, just a touch lower.");
    assert_eq!(r["recalled"][0]["attribute"], "44", "{r}");
    assert_eq!(r["recalled"][0]["now"], "43", "{r}");
    // Two steps past the top of the range stop at the top; no step, no `now`.
    let r = recall("Same headrest as always, but 80 notches higher.");
    let top = m
        .schema()
        .detail(m.schema().detail_by_key("seat_headrest_height").unwrap())
        .range
        .unwrap()
        .1;
    assert_eq!(r["recalled"][0]["now"], top.to_string(), "{r}");
    let r = recall("My usual headrest, please.");
    assert!(r["recalled"][0].get("now").is_none(), "{r}");
}

#[test]
fn category_recall_gives_a_listed_value_said_now() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    let ann = user("ann");
    let said =
        conv(r#"[{"role":"user","text":"Set the video quality to 720p from now on, please."}]"#);
    m.remember(&ann, &said).unwrap();
    let d = m.schema().detail_by_key("video_quality").unwrap();
    let now = |text: &str| {
        let r = m
            .recall_category(
                &ann,
                glovebox::schema::CategoryRef::Detail(d),
                text,
                &Default::default(),
            )
            .unwrap();
        assert_eq!(r[0].preference.attribute, "720p");
        r[0].now.clone()
    };
    assert_eq!(now("Play the video at 1080p."), Some("1080p".to_string()));
    assert_eq!(now("Play the video."), None);
    // Turned down, it is not what is asked for.
    assert_eq!(now("1080p is too choppy, play the video."), None);
    // Another word the schema gives for a value ("full HD": 1080p) asks for it too.
    assert_eq!(
        now("Play the video in full HD tonight."),
        Some("1080p".to_string())
    );

    // A value the stored one already holds changes nothing: the usual feet-and-window setting
    // warms the feet too.
    let said =
        conv(r#"[{"role":"user","text":"I always want the air direction on feet and window."}]"#);
    m.remember(&ann, &said).unwrap();
    let d = m
        .schema()
        .detail_by_key("air_conditioner_air_direction")
        .unwrap();
    let r = m
        .recall_category(
            &ann,
            glovebox::schema::CategoryRef::Detail(d),
            "Back to my usual setup. I need my feet warm.",
            &Default::default(),
        )
        .unwrap();
    assert_eq!(r[0].preference.attribute, "feet_window");
    assert_eq!(r[0].now, None);
}

#[test]
fn a_switch_is_on_when_a_setting_of_its_device_is_remembered() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    let ann = user("ann");
    let switch = m
        .schema()
        .detail_by_key("steering_wheel_heating_enabled")
        .unwrap();
    let ask = |text: &str| {
        m.recall_category(
            &ann,
            glovebox::schema::CategoryRef::Detail(switch),
            text,
            &Default::default(),
        )
        .unwrap()
    };
    // Nothing remembered of the wheel heating: nothing to say.
    assert!(ask("My hands are freezing.").is_empty());
    let said = conv(
        r#"[{"role":"user","text":"I usually keep the steering wheel heat at 9 because my hands get cold."}]"#,
    );
    m.remember(&ann, &said).unwrap();
    let r = ask("My hands are freezing.");
    assert_eq!(r.len(), 1, "{r:?}");
    // The level is the evidence; the switch it implies is what to set.
    let level = m.schema().detail(r[0].preference.detail);
    assert_eq!(level.key, "steering_wheel_heating_level");
    assert_eq!(r[0].preference.attribute, "9");
    assert_eq!(r[0].now.as_deref(), Some("on"));
    // A switch said now wins.
    assert_eq!(
        ask("Turn the wheel heating off, it's warm today.")[0]
            .now
            .as_deref(),
        Some("off")
    );
}

#[test]
fn a_value_said_without_its_device_is_known_for_the_settings_of_its_quantity() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    let value = |who: &str, key: &str| -> Option<String> {
        let d = m.schema().detail_by_key(key).unwrap();
        m.recall_category(
            &user(who),
            glovebox::schema::CategoryRef::Detail(d),
            "Set the screen the way I like it.",
            &Default::default(),
        )
        .unwrap()
        .into_iter()
        .next()
        .map(|r| r.now.unwrap_or(r.preference.attribute))
    };
    m.remember(
        &user("ann"),
        &conv(r#"[{"role":"user","text":"I can't read a thing. Set the brightness to 10."}]"#),
    )
    .unwrap();
    // Stored once, under whichever brightness the embedder found closest...
    let stored = m.list(&user("ann")).unwrap();
    assert_eq!(stored.len(), 1, "{stored:?}");
    let key = &m.schema().detail(stored[0].detail).key;
    assert!(key.contains("brightness"), "{key}");
    // ...and known for every brightness that can be 10, none that cannot.
    for key in [
        "hud_brightness_level",
        "center_display_brightness",
        "light_reading_light_brightness",
    ] {
        assert_eq!(value("ann", key).as_deref(), Some("10"), "{key}");
    }
    for key in [
        "instrument_panel_brightness",
        "overhead_screen_brightness_level",
    ] {
        assert_eq!(value("ann", key), None, "{key}: its range ends at 5");
    }
    assert_eq!(
        value("ann", "hud_height_level"),
        None,
        "a height is no brightness"
    );
    // A value said of a named device stays that device's.
    m.remember(
        &user("bob"),
        &conv(r#"[{"role":"user","text":"Set the HUD brightness to 4."}]"#),
    )
    .unwrap();
    assert_eq!(value("bob", "hud_brightness_level").as_deref(), Some("4"));
    assert_eq!(value("bob", "center_display_brightness"), None);
}

#[test]
fn a_habit_outlasts_the_moment_that_corrects_it() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    let dorothy = user("dorothy");
    let said = conv(
        r#"[{"role":"user","speaker":"dorothy","text":"My left mirror horizontal position is usually 69, but I injured my back and I'm sitting differently. Let me just nudge it to 75."}]"#,
    );
    m.remember(&user("x"), &said).unwrap();
    let d = m
        .schema()
        .detail_by_key("mirror_horizontal_position")
        .unwrap();
    let ask = |text: &str| {
        m.recall_category(
            &dorothy,
            glovebox::schema::CategoryRef::Detail(d),
            text,
            &Default::default(),
        )
        .unwrap()
    };
    // The moment's value is the current one; the habit is what "my standard setting" asks for.
    let r = ask("Adjust the mirror.");
    assert_eq!(r[0].preference.attribute, "75");
    assert_eq!(r[0].now, None);
    let r = ask("Back to my standard setting.");
    assert_eq!(r[0].now.as_deref(), Some("69"), "{r:?}");
}

#[test]
fn the_usual_value_is_not_the_extreme_a_moment_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    let kim = user("kim");
    for (time, text) in [
        (
            "2025-06-02T08:00:00Z",
            "Set the seat ventilation to speed 3.",
        ),
        (
            "2025-07-20T14:00:00Z",
            "We are melting today, put the seat ventilation speed on 5.",
        ),
    ] {
        let said = conv(&format!(
            r#"{{"time":"{time}","turns":[{{"role":"user","text":"{text}"}}]}}"#
        ));
        m.remember(&kim, &said).unwrap();
    }
    let d = m.schema().detail_by_key("seat_ventilation_speed").unwrap();
    let ask = |text: &str| {
        m.recall_category(
            &kim,
            glovebox::schema::CategoryRef::Detail(d),
            text,
            &Default::default(),
        )
        .unwrap()
        .remove(0)
    };
    // The newest value is the current one; it is the end of the setting's range (1-5), so
    // the usual is the one before it.
    let r = ask("Cool my seat.");
    assert_eq!((r.preference.attribute.as_str(), r.now), ("5", None));
    assert_eq!(
        ask("Back to my normal seat ventilation.").now.as_deref(),
        Some("3")
    );
}

#[test]
fn a_month_named_asks_for_the_value_said_then() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    let jen = user("jen");
    for (time, text) in [
        (
            "2025-03-05T17:00:00Z",
            "I love 80s pop. Set the music volume to 25 so we can jam.",
        ),
        (
            "2025-04-10T18:00:00Z",
            "Set the music volume to 15, we want to chat.",
        ),
    ] {
        let said = conv(&format!(
            r#"{{"time":"{time}","turns":[{{"role":"user","text":"{text}"}}]}}"#
        ));
        m.remember(&jen, &said).unwrap();
    }
    let d = m.schema().detail_by_key("music_volume").unwrap();
    let ask = |text: &str| {
        m.recall_category(
            &jen,
            glovebox::schema::CategoryRef::Detail(d),
            text,
            &Default::default(),
        )
        .unwrap()
    };
    // What would be set: the value a step or a month asks for, else the recalled one.
    let set = |text: &str| {
        let r = ask(text).remove(0);
        r.now.unwrap_or(r.preference.attribute)
    };
    let r = ask("Turn on some music.");
    assert_eq!(r[0].preference.attribute, "15", "{r:?}");
    assert_eq!(r[0].now, None);
    // (The March value was set "so we can jam": jamming meets its condition, too.)
    assert_eq!(set("Let's go back to my jamming volume from March."), "25");
    assert_eq!(
        set("Back to my volume from March, but turn it up 5 more."),
        "30"
    );
    // No value was said in June.
    assert_eq!(ask("The volume I had in June, please.")[0].now, None);
}
