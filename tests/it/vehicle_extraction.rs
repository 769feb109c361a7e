//! Issue 16: what extraction asks the LLM under the vehicle schema. A setting whose values the
//! schema lists (an enum, a colour) stores only a value its evidence sentence names: a sentence
//! naming none asks no question and stores nothing; one naming exactly one is stored without a
//! question.

use std::sync::atomic::Ordering;

use glovebox::conversation::Conversation;
use glovebox::memory::Memory;

use crate::common::{key_values, user, user_key_values};
use crate::occupants::vehicle_memory;

/// A conversation of one user turn.
fn one_turn(text: &str) -> Conversation {
    Conversation::from_json(&format!(r#"[{{"role":"user","text":"{text}"}}]"#)).unwrap()
}

fn said(m: &Memory, text: &str) -> Vec<(String, String)> {
    key_values(m, &m.remember(&user("gary"), &one_turn(text)).unwrap())
}

#[test]
fn a_listed_value_the_sentence_does_not_name_asks_no_question() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    let counters = m.models().counters();
    // Both pass the vehicle gate and offer a setting with listed values (navigation voice
    // mode, overhead screen time format) that they do not name; before, each asked the model.
    for text in [
        "I prefer the navigation voice a certain way.",
        "The screen clock format is important to me.",
    ] {
        assert!(said(&m, text).is_empty(), "{text}");
    }
    assert_eq!(counters.gated.load(Ordering::Relaxed), 2);
    // One colour named: stored as said, without a question.
    assert_eq!(
        said(&m, "I love the ambient light in Blue."),
        [("light_ambient_color".to_string(), "blue".to_string())]
    );
    assert_eq!(counters.extract_llm.load(Ordering::Relaxed), 0);
    // Someone else's taste is not the speaker's.
    assert!(said(&m, "My nephew loves the ambient light in Red.").is_empty());
}

#[test]
fn a_setting_made_for_the_occupant_who_asked_is_theirs_not_the_speakers() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    let c = Conversation::from_json(
        r#"[{"role":"user","speaker":"patricia","text":"I need to study these schematics. The ambient light needs to be white so I can see colors correctly."},
            {"role":"user","speaker":"gary","text":"No problem, Patricia. I'll set it to white. There you go."}]"#,
    )
    .unwrap();
    let stored = user_key_values(&m, &m.remember(&user("x"), &c).unwrap());
    assert!(
        stored.iter().all(|(who, _, _)| who != "gary"),
        "Gary only carried out Patricia's wish: {stored:?}"
    );
    assert!(
        stored
            .iter()
            .any(|(who, key, v)| who == "patricia" && key == "light_ambient_color" && v == "white"),
        "{stored:?}"
    );
}

#[test]
fn a_value_given_to_what_another_occupant_asked_for_is_stored_for_no_one() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    // Christine asks for the airflow and names no direction; Jack's answer gives it. Before,
    // it was stored as Jack's preference; it is neither his (he chose it for her) nor hers
    // (she named none).
    let c = Conversation::from_json(
        r#"[{"role":"user","speaker":"christine","text":"My face is dry. Jack, could you change the airflow?"},
            {"role":"user","speaker":"jack","text":"Sure, I'll point the air at your feet instead."}]"#,
    )
    .unwrap();
    assert!(m.remember(&user("x"), &c).unwrap().is_empty());
    // Jack's own setting, said after a question that asks for nothing, stays his.
    let c = Conversation::from_json(
        r#"[{"role":"user","speaker":"christine","text":"Is it cold back there?"},
            {"role":"user","speaker":"jack","text":"A bit. I'll point the air at my feet."}]"#,
    )
    .unwrap();
    let stored = user_key_values(&m, &m.remember(&user("x"), &c).unwrap());
    assert_eq!(
        stored,
        [(
            "jack".to_string(),
            "air_conditioner_air_direction".to_string(),
            "feet".to_string()
        )]
    );
}

#[test]
fn a_flag_is_read_only_where_a_switch_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    // Chat with `on` and a negation in it stores no switch.
    for text in [
        "I grew up on tortillas and rice, so that's going to be rough.",
        "Just because it's not wheat or corn doesn't mean it won't matter.",
    ] {
        assert!(
            said(&m, text).iter().all(|(k, _)| !k.ends_with("_enabled")),
            "{text}"
        );
    }
}

#[test]
fn a_question_states_no_vehicle_setting() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    // Household chat the vehicle gate scores above its threshold: questions about a place or
    // a number, which a statement would store as a destination or a setting ("supposed" once
    // was one). The question rules keep each out, not the gate's score: a question asking for
    // an answer passes no gate (`extract::asks`), and a question offers no vehicle setting.
    let questions = [
        "Where were you supposed to go?",
        "Do you want to stop at the airport on the way?",
        "Which route do you usually take to the airport?",
        "What temperature do you keep the office at?",
        "Where is the meeting tomorrow?",
    ];
    let allowed = m.allowed(&user("gary")).unwrap();
    for text in questions {
        let x = m.extract(&one_turn(text), &allowed).unwrap();
        assert!(m.models().gate().passes(x.gate[0]), "{text}: {:?}", x.gate);
        assert!(x.offered.is_empty(), "{text}: {:?}", x.offered);
        assert!(said(&m, text).is_empty(), "{text}");
    }
    // Others the gate itself silences (before its labels took narrated values in, it passed
    // them and the question rule kept them out): still nothing.
    for text in [
        "Who's visiting?",
        "When do you want to meet at the airport?",
        "How do you prepare for a presentation at such a large forum?",
    ] {
        assert!(said(&m, text).is_empty(), "{text}");
    }
    // Said, not asked: stored.
    assert_eq!(
        said(&m, "Navigate to the airport for my conference trip.")
            .iter()
            .map(|(k, _)| k.as_str())
            .collect::<Vec<_>>(),
        ["navigation_destination"]
    );
}

#[test]
fn a_number_is_read_with_the_sentence_that_says_its_setting() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    // Alone, "there, 43 is a bit better." was placed by its number and stored as the navigation
    // volume; read with the sentence before it, it is the foot support.
    let stored = said(
        &m,
        "Let me just adjust the foot support... there, 43 is a bit better.",
    );
    assert_eq!(
        stored,
        [("seat_foot_support_height".to_string(), "43".to_string())]
    );
    let stored = said(
        &m,
        "I like the steering wheel warm in the mornings. Level 8 is good.",
    );
    assert!(
        stored.contains(&("steering_wheel_heating_level".to_string(), "8".to_string())),
        "{stored:?}"
    );
}

#[test]
fn a_number_for_a_word_many_devices_share_is_read_with_the_device_named_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    // "brightness" is the HUD's, the overhead screen's and the panels' alike: alone, "Brightness
    // to 9, please." was stored as the centre display's; the sentence before it says which.
    assert_eq!(
        said(
            &m,
            "The HUD is way too faint in this sun. Brightness to 9, please."
        ),
        [("hud_brightness_level".to_string(), "9".to_string())]
    );
    // The same across turns of one speaker, with another occupant in between: the level is
    // the instrument panel's, named in the speaker's turn before.
    let c = Conversation::from_json(
        r#"[{"role":"user","speaker":"jacob","text":"I can barely see the instrument panel at night."},
            {"role":"user","speaker":"brandon","text":"Yeah, it's rough."},
            {"role":"user","speaker":"jacob","text":"There you go, level 4 should do it. Anyway, how was the trip?"}]"#,
    )
    .unwrap();
    let stored = user_key_values(&m, &m.remember(&user("user"), &c).unwrap());
    assert_eq!(
        stored,
        [(
            "jacob".to_string(),
            "instrument_panel_brightness".to_string(),
            "4".to_string()
        )]
    );
}

#[test]
fn a_correction_that_names_another_setting_does_not_set_this_one() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    // "I want the leg support up" offers the foot support; the number comes in a sentence
    // that names the cushion extension. Before, the correction rule moved the foot support's
    // offer there and stored the foot support at 50.
    let stored = said(
        &m,
        "My legs are tired. I want the leg support up. Raise the cushion extension to 50.",
    );
    assert!(
        stored.iter().all(|(k, _)| k == "seat_cushion_extension"),
        "{stored:?}"
    );
}

#[test]
fn a_named_setting_is_weighed_against_the_settings_its_value_can_be() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    // The ambient colour was the nearest category and the reading light more than `margin`
    // behind it, so the named reading light did not come first; but the sentence names no
    // colour, so the ambient colour cannot hold what it says, and among the settings that can
    // (a brightness of 8) the named one wins. The labelled examples of the household this
    // sentence is from (`vmb-1`) are left out, as the benchmark's evaluation does.
    let c = Conversation::from_json(
        r#"[{"role":"user","text":"I like the ambient light, but the reading light is too dim. Set it to 8."}]"#,
    )
    .unwrap();
    let stored = key_values(
        &m,
        &m.remember_excluding(&user("gary"), &c, Some("vmb-1"))
            .unwrap(),
    );
    assert_eq!(
        stored,
        [(
            "light_reading_light_brightness".to_string(),
            "8".to_string()
        )]
    );
}

#[test]
fn a_destination_is_read_from_the_sentence_that_names_a_place() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    // The first sentence is nearer the destination and names none: it gave "location"; the
    // second names two courts and turns one down (the model answered `none`, then the one
    // turned down).
    let c = Conversation::from_json(
        r#"[{"role":"user","text":"My meeting location changed. I'm going to the High Court in the suburbs instead of the District Court."}]"#,
    )
    .unwrap();
    let stored: Vec<(String, String, String)> = m
        .remember(&user("george"), &c)
        .unwrap()
        .into_iter()
        .map(|o| {
            let key = m.schema().detail(o.preference.detail).key.clone();
            let evidence = o.preference.sentences.last().cloned().unwrap_or_default();
            (key, o.preference.attribute, evidence)
        })
        .collect();
    let (_, value, evidence) = stored
        .iter()
        .find(|(k, _, _)| k == "navigation_destination")
        .unwrap_or_else(|| panic!("{stored:?}"));
    assert!(
        evidence.starts_with("I'm going to the High Court"),
        "{stored:?}"
    );
    assert_eq!(value, "High Court", "{stored:?}");
}

#[test]
fn a_colour_corrected_in_the_same_breath_ends_on_the_correction() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    // Both sentences are nearest the ambient colour; the first scored higher and gave green.
    // The household's own labelled examples (`vmb-23`) are left out, as the benchmark does.
    let c = Conversation::from_json(
        r#"[{"role":"user","text":"Actually, green makes me look sickly. Change ambient light to cyan."}]"#,
    )
    .unwrap();
    let stored = key_values(
        &m,
        &m.remember_excluding(&user("lisa"), &c, Some("vmb-23"))
            .unwrap(),
    );
    assert_eq!(
        stored,
        [("light_ambient_color".to_string(), "cyan".to_string())]
    );
}

#[test]
fn a_sentence_that_can_store_nothing_sets_no_bar_for_the_one_that_gives_the_value() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    // The first sentence is nearest the voice mode and names none; it used to be the
    // conversation's strongest and kept the sentence with the volume from offering at all.
    assert_eq!(
        said(
            &m,
            "The navigation voice is far too quiet. I keep missing my exits over the engine \
             noise. Let me just turn it up to 85."
        ),
        [("navigation_volume".to_string(), "85".to_string())]
    );
    // A device's word with the quantity its call sets names that device's setting: the panel's
    // brightness, not the centre display's.
    assert_eq!(
        said(
            &m,
            "I'll turn the panel brightness down to 2, it's glaring."
        ),
        [("instrument_panel_brightness".to_string(), "2".to_string())]
    );
}

#[test]
fn a_setting_spoken_of_by_the_value_it_holds_is_the_one_corrected() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    assert_eq!(
        said(&m, "Set the HUD brightness to 6, I like it there."),
        [("hud_brightness_level".to_string(), "6".to_string())]
    );
    // "Level 6" is what Gary's HUD brightness holds, and "it" in the next sentence is that
    // setting: before, the embedder placed the first on the centre display and the second on
    // the steering wheel heating, and both were stored.
    assert_eq!(
        said(
            &m,
            "I can barely read the display in this glare. Level 6 is hopeless. Level 9 ought to do it."
        ),
        [("hud_brightness_level".to_string(), "9".to_string())]
    );
    let stored: Vec<String> = m
        .store()
        .list(&user("gary"))
        .unwrap()
        .into_iter()
        .map(|p| format!("{} = {}", m.schema().detail(p.detail).key, p.attribute))
        .collect();
    assert_eq!(stored, ["hud_brightness_level = 9"]);
}

#[test]
fn a_request_in_the_form_of_a_question_is_stored_and_a_question_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    // Before, a question stored no vehicle setting at all, or the sixth-closest one: the music
    // volume's request was stored as the video volume.
    assert_eq!(
        said(&m, "Donna, could you set the seat massage to level 2?"),
        [("seat_massage_level".to_string(), "2".to_string())]
    );
    assert_eq!(
        said(&m, "Can you turn the music volume down to 12?"),
        [("music_volume".to_string(), "12".to_string())]
    );
    assert!(said(&m, "Is 84 the optimal setting?").is_empty());
    assert!(said(&m, "Would you prefer the music volume at 12?").is_empty());
}

#[test]
fn a_colour_said_of_another_thing_is_no_colour_of_the_light() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    // Said with the word "lighting", so its device is named; the white is the wall's.
    let wall = said(
        &m,
        "They're picky about the background and lighting, but I just took it against a white wall.",
    );
    assert!(wall.iter().all(|(k, _)| !k.ends_with("_color")), "{wall:?}");
    // The light's own colour is still stored.
    let light = said(
        &m,
        "I love driving with the ambient light on purple, it helps me relax.",
    );
    assert!(
        light
            .iter()
            .any(|(k, v)| k == "light_ambient_color" && v == "purple"),
        "{light:?}"
    );
}

#[test]
fn a_liking_that_names_a_switch_stores_it_on() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    let on = |k: &str| (k.to_string(), "on".to_string());
    // The switch's state is not said: liking what it does is wanting it on.
    let fold = said(
        &m,
        "Whenever I lock the car, I want the mirrors to fold in automatically.",
    );
    assert!(fold.contains(&on("mirror_auto_fold_on_lock")), "{fold:?}");
    // Said by another name the schema gives the switch ("warm steering wheel").
    let warm = said(&m, "On frosty mornings I love a warm steering wheel.");
    assert!(
        warm.contains(&on("steering_wheel_heating_enabled")),
        "{warm:?}"
    );
    // A level said is the level (which implies the switch), not the switch alone.
    let level = said(&m, "I like my steering wheel heated at level 4.");
    assert!(
        level.contains(&("steering_wheel_heating_level".to_string(), "4".to_string())),
        "{level:?}"
    );
    // Turned down, or the listener's taste: not on.
    let no = said(&m, "I don't need the seat heater today.");
    assert!(!no.contains(&on("seat_heating_mode")), "{no:?}");
    let yours = said(&m, "You and your heated seats, honestly.");
    assert!(!yours.contains(&on("seat_heating_mode")), "{yours:?}");
}

#[test]
fn the_weather_outside_is_no_cabin_temperature() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    let hot = said(&m, "Ugh, it's 34 degrees outside today.");
    assert!(
        hot.iter().all(|(k, _)| k != "air_conditioner_temperature"),
        "{hot:?}"
    );
}

#[test]
fn a_length_of_time_is_no_setting_value() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    // The stop-34 binary stored music_volume 45 and 20 for these two.
    let commute = said(
        &m,
        "I drive 45 minutes each way, so I keep the music volume low.",
    );
    assert!(
        !commute.contains(&("music_volume".into(), "45".into())),
        "{commute:?}"
    );
    let home = said(&m, "I love the music loud on the 20 minute drive home.");
    assert!(
        !home.contains(&("music_volume".into(), "20".into())),
        "{home:?}"
    );
    // A number with no unit of its own is still the setting's.
    let back = said(
        &m,
        "Two hours of driving and my back hurts, so massage at 3 please.",
    );
    assert!(
        back.contains(&("seat_massage_level".into(), "3".into())),
        "{back:?}"
    );
}

#[test]
fn a_listed_value_said_by_another_word_for_it_is_stored_as_that_value() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    // "Recirculation" is the car's word for inside circulation (a value alias of the schema);
    // before, a sentence naming no listed value stored nothing.
    assert_eq!(
        said(
            &m,
            "These tunnel fumes are awful. Put the air on recirculation."
        ),
        [(
            "air_conditioner_circulation".to_string(),
            "inside".to_string()
        )]
    );
    // A clock's format by its usual name ("24-hour" for 24h), on whichever display's clock.
    let clock = said(&m, "I want the dashboard clock in 24-hour time.");
    assert!(
        clock
            .iter()
            .any(|(k, v)| k.ends_with("_time_format") && v == "24h"),
        "{clock:?}"
    );
    // Turned down, the alias names no value: no circulation is stored.
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    let stored = said(
        &m,
        "Please don't recirculate the air, it gets stuffy in here.",
    );
    assert!(
        stored
            .iter()
            .all(|(k, _)| k != "air_conditioner_circulation"),
        "{stored:?}"
    );
}

#[test]
fn a_colour_kept_later_with_its_light_is_the_value_of_the_light_complained_of() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    // The complaint is nearer the ambient colour and names none; the later sentence says the
    // colour with its light ("the green light") but no setting by its whole name. It used to
    // take no correction, and nothing was stored.
    let c = Conversation::from_json(
        r#"[{"role":"user","text":"This warm light is making me drowsy."},
            {"role":"user","text":"Nice, keep the green light, I can think again."}]"#,
    )
    .unwrap();
    assert_eq!(
        key_values(&m, &m.remember(&user("gary"), &c).unwrap()),
        [("light_ambient_color".to_string(), "green".to_string())]
    );
}

#[test]
fn a_switch_corrected_by_a_number_of_its_device_keeps_both() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    // The correction gives no state of the switch but a value of the window's opening: the
    // window is open, at 20 (before, only "open" was stored and the 20 was lost).
    let c = Conversation::from_json(
        r#"[{"role":"user","text":"Open the window, I need some air."},
            {"role":"user","text":"Whoa, that's way too far, make it 20 percent."}]"#,
    )
    .unwrap();
    assert_eq!(
        key_values(&m, &m.remember(&user("gary"), &c).unwrap()),
        [
            ("window_open".to_string(), "on".to_string()),
            ("window_open_degree".to_string(), "20".to_string())
        ]
    );
    // A number said after the switch but not as a correction is no value of its device.
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    let c = Conversation::from_json(
        r#"[{"role":"user","text":"Turn on the radio."},
            {"role":"user","text":"That song was number 3 in the charts."}]"#,
    )
    .unwrap();
    let stored = key_values(&m, &m.remember(&user("gary"), &c).unwrap());
    assert!(
        stored.iter().all(|(k, _)| k != "radio_volume"),
        "{stored:?}"
    );
}

#[test]
fn a_destination_is_a_place_said_as_where_one_goes() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    // A place named as something to phone is no destination (before, it was stored as one).
    assert!(said(&m, "I'll phone Riverside Clinic once we're parked.").is_empty());
    assert_eq!(
        said(&m, "Take me to Riverside Clinic, please."),
        [(
            "navigation_destination".to_string(),
            "Riverside Clinic".to_string()
        )]
    );
}
