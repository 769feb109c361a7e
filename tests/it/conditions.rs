//! Conditions and category recall: a preference that holds only in a situation is stored with
//! its condition in the user's words, recalled when the moment meets it and not otherwise, and
//! `recall --category` gives one setting's current value without the relevance gate.

use glovebox::conversation::Conversation;
use glovebox::memory::condition::Situation;
use glovebox::memory::Memory;
use glovebox::ops::{self, Code, Reply, Request};
use glovebox::schema::CategoryRef;

use crate::common::user;
use crate::occupants::vehicle_memory;

fn conv(text: &str) -> Conversation {
    Conversation::from_json(&serde_json::json!([{"role": "user", "text": text}]).to_string())
        .unwrap()
}

fn at(hour: u32) -> Situation {
    Situation {
        local_time: Some((hour, 0)),
        ..Situation::default()
    }
}

/// The value `recall_category` gives for a detail, with whether a condition decided it.
fn current(
    m: &Memory,
    who: &str,
    key: &str,
    text: &str,
    s: &Situation,
) -> Option<(String, Option<bool>)> {
    let d = m.schema().detail_by_key(key).unwrap();
    m.recall_category(&user(who), CategoryRef::Detail(d), text, s)
        .unwrap()
        .into_iter()
        .next()
        .map(|r| (r.preference.attribute, r.condition_met))
}

#[test]
fn a_night_preference_is_recalled_at_night_and_not_by_day() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    let ann = user("ann");
    m.remember(&ann, &conv("I like the HUD brightness at 8."))
        .unwrap();
    let out = m
        .remember(
            &ann,
            &conv("At night I want the HUD brightness at 3, it glares."),
        )
        .unwrap();
    let night = out
        .iter()
        .find(|o| o.preference.attribute == "3")
        .expect("the night value is stored");
    assert_eq!(night.preference.condition.as_deref(), Some("at night"));
    // Both are kept: the conditional value does not replace the unconditional one.
    assert_eq!(m.list(&ann).unwrap().len(), 2);

    let key = "hud_brightness_level";
    assert_eq!(
        current(&m, "ann", key, "", &at(22)),
        Some(("3".into(), Some(true)))
    );
    assert_eq!(
        current(&m, "ann", key, "", &at(10)),
        Some(("8".into(), None))
    );
    // Without a clock, "at night" is judged by the words: a sunny noon is not night.
    assert_eq!(
        current(
            &m,
            "ann",
            key,
            "It's so bright and sunny at noon.",
            &Situation::default()
        ),
        Some(("8".into(), None))
    );

    // Recall by relevance prefers the met conditional value, and drops it when not met.
    let hud = |hour| -> Vec<String> {
        m.recall_in(&ann, "The HUD brightness is wrong.", 3, &at(hour))
            .unwrap()
            .into_iter()
            .map(|r| r.preference.attribute)
            .collect()
    };
    assert_eq!(hud(23), ["3"]);
    assert_eq!(hud(12), ["8"]);
}

#[test]
fn a_situation_condition_is_met_by_what_the_moment_says() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    let pat = user("patricia");
    m.remember(&pat, &conv("I prefer the air circulation set to outside."))
        .unwrap();
    m.remember(
        &pat,
        &conv("When I drive through the industrial district, I always switch air circulation to inside to avoid the fumes."),
    )
    .unwrap();
    let stored: Vec<(String, Option<String>)> = m
        .list(&pat)
        .unwrap()
        .into_iter()
        .map(|p| (p.attribute, p.condition))
        .collect();
    assert!(
        stored.contains(&(
            "inside".into(),
            Some("when I drive through the industrial district".into())
        )),
        "{stored:?}"
    );
    let key = "air_conditioner_circulation";
    let smog = Situation {
        facts: vec!["Patricia drives past the factories of the industrial zone.".into()],
        ..Situation::default()
    };
    assert_eq!(
        current(&m, "patricia", key, "Here comes the smog.", &smog),
        Some(("inside".into(), Some(true)))
    );
    let beach = Situation {
        facts: vec!["Patricia drives along the beach on a sunny Sunday.".into()],
        ..Situation::default()
    };
    assert_eq!(
        current(&m, "patricia", key, "What a lovely day.", &beach),
        Some(("outside".into(), None))
    );
}

#[test]
fn a_setting_made_for_the_others_in_the_car_holds_for_them() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    let tom = user("tom");
    m.remember(&tom, &conv("Set the radio volume to 12, that's plenty."))
        .unwrap();
    m.remember(
        &tom,
        &conv("Okay Grandpa, I'm turning the radio volume up to 30 so you can follow the match."),
    )
    .unwrap();
    let stored: Vec<(String, Option<String>)> = m
        .list(&tom)
        .unwrap()
        .into_iter()
        .map(|p| (p.attribute, p.condition))
        .collect();
    assert!(
        stored.contains(&("30".into(), Some("so you can follow the match".into()))),
        "{stored:?}"
    );
    // Alone, the usual volume; with the match on, the one for Grandpa.
    let key = "radio_volume";
    assert_eq!(
        current(
            &m,
            "tom",
            key,
            "Just me today, fix the radio volume.",
            &Situation::default()
        ),
        Some(("12".into(), None))
    );
    assert_eq!(
        current(
            &m,
            "tom",
            key,
            "Grandpa wants to follow the match again.",
            &Situation::default()
        ),
        Some(("30".into(), Some(true)))
    );
    // A step asked in the same breath does not drown the words that meet the condition.
    assert_eq!(
        current(
            &m,
            "tom",
            key,
            "Grandpa wants to follow the match again, but turn it up 5 more, the engine is so loud today.",
            &Situation::default()
        ),
        Some(("30".into(), Some(true)))
    );
}

#[test]
fn category_recall_skips_the_gate_and_names_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    let ann = user("ann");
    m.remember(&ann, &conv("I like the HUD brightness at 8."))
        .unwrap();
    // Words that serve no stored preference: the gated recall says nothing...
    let gated = ops::execute(
        &m,
        Request::Recall {
            user: ann.clone(),
            text: "What's the capital of Peru?".into(),
            k: None,
            category: None,
            context: Situation::default(),
        },
    )
    .unwrap();
    assert!(
        matches!(&gated, Reply::Recalled { recalled } if recalled.is_empty()),
        "{gated:?}"
    );
    // ...while the category, asked for explicitly, gives its current value.
    let asked = ops::execute(
        &m,
        Request::Recall {
            user: ann.clone(),
            text: "What's the capital of Peru?".into(),
            k: None,
            category: Some("hud_brightness_level".into()),
            context: Situation::default(),
        },
    )
    .unwrap()
    .to_json();
    assert_eq!(asked["recalled"][0]["attribute"], "8", "{asked}");
    assert_eq!(asked["recalled"][0]["relevance"], 1.0, "{asked}");
    let unknown = ops::execute(
        &m,
        Request::Recall {
            user: ann,
            text: String::new(),
            k: None,
            category: Some("hud_colour_wheel".into()),
            context: Situation::default(),
        },
    )
    .unwrap_err();
    assert_eq!(unknown.code, Code::UnknownCategory, "{unknown}");
    assert!(
        unknown.to_string().contains("hud_colour_wheel"),
        "{unknown}"
    );
}

#[test]
fn conditions_round_trip_through_export_and_import() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    let ann = user("ann");
    m.remember(&ann, &conv("At night I want the HUD brightness at 3."))
        .unwrap();
    let Reply::Exported(doc) = ops::execute(&m, Request::Export { user: ann.clone() }).unwrap()
    else {
        panic!("export answered something else")
    };
    assert_eq!(doc["preferences"][0]["condition"], "at night", "{doc}");
    let dir2 = tempfile::tempdir().unwrap();
    let m2 = vehicle_memory(dir2.path());
    ops::execute(
        &m2,
        Request::Import {
            user: ann.clone(),
            document: doc,
        },
    )
    .unwrap();
    let p = &m2.list(&ann).unwrap()[0];
    assert_eq!(
        (p.attribute.as_str(), p.condition.as_deref()),
        ("3", Some("at night"))
    );
}
