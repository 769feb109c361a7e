//! Extraction's pure parts under the vehicle-settings schema: settings said by their names or
//! aliases, and the texts that stand for a setting.

use super::*;

fn vehicle() -> Schema {
    crate::schema::vehicle_for_tests()
}

#[test]
fn a_setting_said_by_its_name_comes_first() {
    let s = vehicle();
    let keys = |text: &str| -> Vec<String> {
        spoken_names(&s, text)
            .into_iter()
            .map(|i| s.details()[i].key.clone())
            .collect()
    };
    let vent = keys("Let's turn on the seat ventilation and set it to level 3.");
    assert!(
        vent.iter().all(|k| k.starts_with("seat_ventilation")),
        "{vent:?}"
    );
    assert!(!vent.is_empty());
    assert_eq!(
        keys("Seat leg support at seventy-five."),
        ["seat_leg_support_height"]
    );
    // Two words said together can name what neither names alone: the seat heating, not the
    // wheel's or the mirrors'.
    let heat = keys("Setting the seat heating up to level 3, maybe that'll help.");
    assert!(
        heat.iter().all(|k| k.starts_with("seat_heating")),
        "{heat:?}"
    );
    assert!(!heat.is_empty());
    // Words many setting names share ("seat", "level") say nothing specific.
    assert!(keys("Set the seat to level 3.").is_empty());
    assert!(keys("What a lovely afternoon.").is_empty());
    // A name word after an adverb of degree is an adjective: "too low" names no low beam.
    assert!(keys("82 is too low.").is_empty());
    assert_eq!(keys("Switch the low beam on."), ["light_low_beam_enabled"]);
    // A call's quantity ("degree") names no device...
    assert!(!keys("I usually keep the AC at 21 degrees.")
        .iter()
        .any(|k| k.contains("open_degree")));
    // ...but said after its device's word it names the device's: the panel's brightness,
    // not the centre display's or the HUD's.
    assert_eq!(
        keys("I'll crank the panel brightness to 5."),
        ["instrument_panel_brightness"]
    );
    let mut row = vec![0.5; s.details().len()];
    let leg = s.detail_by_key("seat_leg_support_height").unwrap().index();
    row[leg] = 0.45;
    names_first(&s, &mut row, "Seat leg support at seventy-five.", 0.1);
    assert!(row[leg] > 0.5);
    // Far below the best, a name word said in passing moves nothing.
    row[leg] = 0.2;
    names_first(&s, &mut row, "My leg hurts at seventy-five.", 0.1);
    assert_eq!(row[leg], 0.2);
    // A name said in full does, and so does another name of the setting said in full.
    names_first(&s, &mut row, "Seat leg support at seventy-five.", 0.1);
    assert!(row[leg] > 0.5);
    let high = s.detail_by_key("seat_vertical_position").unwrap().index();
    row[high] = 0.2;
    names_first(
        &s,
        &mut row,
        "My usual seat height of 87 feels too cramped.",
        0.1,
    );
    assert!(row[high] > row[leg]);
    // Unless the sentence says the name in full: "cushion extension" is all that tells Seat
    // Cushion Extension from the cushion's angle, whatever the embedder makes of it.
    let mut row = vec![0.3; s.details().len()];
    let (angle, ext) = (
        s.detail_by_key("seat_cushion_angle").unwrap().index(),
        s.detail_by_key("seat_cushion_extension").unwrap().index(),
    );
    (row[angle], row[ext]) = (0.74, 0.62);
    names_first(&s, &mut row, "Raise the cushion extension to 50.", 0.1);
    assert!(row[ext] > row[angle]);
    // A name word said in passing is no name said in full ("too low" is no low beam).
    let beam = s.detail_by_key("light_low_beam_level").unwrap().index();
    let mut row = vec![0.3; s.details().len()];
    (row[angle], row[beam]) = (0.74, 0.5);
    names_first(&s, &mut row, "82 is too low.", 0.1);
    assert!(row[beam] < row[angle]);
}

/// The prototype texts of the detail `key`.
fn prototypes_of(s: &Schema, key: &str) -> Vec<String> {
    let d = s.detail_by_key(key).unwrap();
    prototype_texts(s)
        .into_iter()
        .filter(|(x, _)| *x == d)
        .map(|(_, t)| t)
        .collect()
}

#[test]
fn a_settings_aliases_stand_for_it_beside_its_name() {
    let s = vehicle();
    let texts = prototypes_of(&s, "seat_vertical_position");
    assert!(texts
        .iter()
        .any(|t| t.ends_with("Set seat vertical position (value).")));
    assert!(texts.iter().any(|t| t == "seat height"), "{texts:?}");
}

#[test]
fn a_colour_alone_stands_for_no_vehicle_setting() {
    let s = vehicle();
    let texts = prototypes_of(&s, "light_ambient_color");
    assert!(!texts.iter().any(|t| t.ends_with(": green")), "{texts:?}");
    assert!(texts.iter().any(|t| t.contains("Ambient")));
    // A listed value still stands for its setting, and CarMem's catalogue values for theirs.
    let mode = s.detail_by_key("music_play_mode").unwrap();
    assert!(prototype_texts(&s)
        .iter()
        .any(|(x, t)| *x == mode && t.ends_with(": shuffle")));
    let c = Schema::embedded();
    assert!(prototype_texts(&c).len() > c.details().len());
}

#[test]
fn a_colour_said_of_another_thing_is_no_value_of_the_light() {
    let s = vehicle();
    let ambient = s.detail_by_key("light_ambient_color").unwrap();
    for (value, text) in [
        ("white", "They're picky about the background and lighting, but I just took it against a white wall."),
        ("blue", "The natural light really brings out subtle blue undertones."),
        ("blue", "It reminds me of the lighting in those Blue Zone cafés."),
    ] {
        assert!(said_of_another_thing(&s, ambient, value, text), "{text}");
    }
    for (value, text) in [
        ("blue", "Blue lighting always helps me unwind."),
        ("blue", "I love this blue ambient light."),
        (
            "blue",
            "Set the ambient light to that deep blue colour I like.",
        ),
        (
            "blue",
            "I set the ambient light to blue because it reminds me of the reactors.",
        ),
        ("orange", "I prefer orange to match the instrument panel."),
        (
            "white",
            "Turn the ambient light to white for better visibility.",
        ),
        ("green", "Hm, green light."),
        ("red", "Red is better for night vision."),
        // Said of a wall once and of the light once: the light's.
        ("white", "Not the white wall, I mean white light."),
    ] {
        assert!(!said_of_another_thing(&s, ambient, value, text), "{text}");
    }
}

#[test]
fn a_colour_is_said_of_a_light_or_a_panel_only_with_it() {
    let s = vehicle();
    let id = |key: &str| s.detail_by_key(key).unwrap();
    let (ambient, panel) = (id("light_ambient_color"), id("instrument_panel_color"));
    assert!(says_its_device(&s, ambient, "Ooh, a red light in here."));
    assert!(says_its_device(
        &s,
        ambient,
        "Purple lights are so relaxing."
    ));
    assert!(says_its_device(
        &s,
        panel,
        "The gauges are hard to read in amber."
    ));
    // A colour word alone is said of anything.
    for text in [
        "I'd love a green smoothie right now.",
        "The forest makes everything look green.",
        "We painted the kitchen a soft yellow.",
    ] {
        assert!(!says_its_device(&s, ambient, text), "{text}");
        assert!(!says_its_device(&s, panel, text), "{text}");
    }
    // The quantity is no device, in either spelling.
    assert!(!says_its_device(&s, ambient, "What a colour!"));
}

#[test]
fn a_name_valued_setting_offers_names_or_things_the_user_refers_to() {
    let s = vehicle();
    let dest = s.detail_by_key("navigation_destination").unwrap();
    let offered = |text: &str| {
        let c = Candidate {
            detail: dest,
            score: 0.5,
            sentence: 0,
        };
        value_alternatives(&s, &c, &vec![text.to_string()].into())
    };
    // A thing a determiner introduces; not an activity, nor "already".
    let airport = offered("Navigate to the airport for my conference trip.");
    assert!(airport.contains(&gbnf_literal("airport")), "{airport:?}");
    assert!(!airport.contains(&gbnf_literal("Navigate")), "{airport:?}");
    let cycling = offered("I've switched to cycling, it clears the mind.");
    assert!(
        !cycling.iter().any(|v| v.contains("cycling")),
        "{cycling:?}"
    );
    // Nothing referred to: only `none`.
    assert_eq!(
        offered("Downtown's already stacking up."),
        [gbnf_literal("none")]
    );
    // A name said is the value.
    assert_eq!(
        offered("I'm heading over to New River Gorge instead."),
        [gbnf_literal("New River Gorge")]
    );
}
