//! Unit tests of what the model chooses among for one offered category ([`named_choices`]).

use super::*;

fn cand(schema: &Schema, key: &str) -> Candidate {
    Candidate {
        detail: schema.detail_by_key(key).unwrap(),
        score: 0.5,
        sentence: 0,
    }
}

#[test]
fn a_does_not_matter_value_named_only_by_the_category_s_words_is_no_choice_without_a_shrug() {
    let s = Schema::embedded();
    let say = |t: &str| vec![t.to_string()];
    let covered = cand(&s, "preference_for_covered_parking");
    // "covered parking" is two words of "Indifferent to Covered Parking": the sentence names
    // the thing and takes a stance on it, so the model chooses among the category's values.
    for (key, said) in [
        (
            "preference_for_covered_parking",
            "Covered parking every time, I don't want the paint ruined.",
        ),
        (
            "preference_for_parking_with_security",
            "Parking security matters to me, always.",
        ),
    ] {
        let stance = named_choices(&s, &cand(&s, key), &say(said));
        assert!(
            !stance.iter().any(|v| v.starts_with("Indifferent")),
            "{said}: {stance:?}"
        );
    }
    // With a shrug, or said in full, it is the choice.
    assert_eq!(
        named_choices(&s, &covered, &say("I don't care if it's covered or not.")),
        vec!["Indifferent to Covered Parking"]
    );
    assert_eq!(
        named_choices(
            &s,
            &covered,
            &say("I don't really have a preference about covered parking.")
        ),
        vec!["Indifferent to Covered Parking"]
    );
    assert_eq!(
        named_choices(&s, &covered, &say("I'm indifferent to covered parking.")),
        vec!["Indifferent to Covered Parking"]
    );
}

#[test]
fn without_the_llms_none_one_offered_category_answers_one_of_its_values() {
    let s = Schema::embedded();
    let radio = [cand(&s, "preferred_radio_station")];
    let said: Statements = vec!["BBC Radio 2 is my station.".to_string()].into();
    let g = grammar(&s, &radio, &said, 2, false);
    assert!(
        g.starts_with("root ::= \" \" (") && !g.contains("none"),
        "{g}"
    );
    // With it, `none` is the first alternative.
    let g = grammar(&s, &radio, &said, 2, true);
    assert!(g.starts_with("root ::= \" none\\n\" | "), "{g}");
    // A name said in part ("RhythmRise" of "RhythmRise Radio") and a list's value the words do
    // not name keep `none`: no catalogue neighbour is forced.
    let part: Statements = vec!["Stick on RhythmRise.".to_string()].into();
    assert!(grammar(&s, &radio, &part, 2, false).starts_with("root ::= \" none\\n\" | "));
    let fan = [cand(&s, "fan_speed_preferences")];
    let vague: Statements = vec!["Make it comfy in here.".to_string()].into();
    assert!(grammar(&s, &fan, &vague, 2, false).starts_with("root ::= \" none\\n\" | "));
}

#[test]
fn a_catalogue_name_said_by_its_generic_words_offers_only_a_name_of_the_user_s() {
    let s = Schema::embedded();
    let said = |t: &str| -> Statements { vec![t.to_string()].into() };
    let food = [cand(&s, "fast_food_preference")];
    // "burger" is the generic half of "BiteBox Burgers": neither it nor a description is a
    // value ("a classic burger"), so the model answers `none` alone.
    for t in [
        "I could go for a burger or fries.",
        "I've been craving a classic burger and fries lately.",
    ] {
        let g = grammar(&s, &food, &said(t), 2, true);
        assert!(!g.contains("BiteBox") && !g.contains("burger"), "{t}: {g}");
    }
    // A name of the user's is: "Five Guys" of "the best burger is Five Guys".
    let g = grammar(
        &s,
        &food,
        &said("The best burger is Five Guys, always."),
        2,
        true,
    );
    assert!(g.contains("\"Five Guys\"") && !g.contains("BiteBox"), "{g}");
    // Not a value another category lists: "AC" is a type of charging, not a network.
    let network = [cand(&s, "preferred_charging_network")];
    let g = grammar(
        &s,
        &network,
        &said("Make sure it's an AC charging station."),
        2,
        true,
    );
    assert!(!g.contains("\"AC\"") && !g.contains("VoltRise"), "{g}");
    // A station's name says more than "radio"; "FM" alone names no station.
    let radio = [cand(&s, "preferred_radio_station")];
    let every_day = said("BBC Radio 2, the radio station I listen to every day.");
    let g = grammar(&s, &radio, &every_day, 2, true);
    assert!(
        g.contains("\"BBC Radio 2\"") && !g.contains("RhythmRise"),
        "{g}"
    );
    let g = grammar(&s, &radio, &said("Switch over to FM, 97.3."), 2, true);
    assert!(!g.contains("\"FM\"") && !g.contains("EchoWave"), "{g}");
}

#[test]
fn an_answer_turning_down_one_of_two_values_is_stored_as_the_other() {
    let s = Schema::embedded();
    let sents = vec!["We buy our cheese at the market, not the supermarket.".to_string()];
    let stored = |key: &str, answer: &str| {
        let offered = [cand(&s, key)];
        parse(&s, answer, &offered, &sents, &[]).unwrap()[0]
            .attribute
            .clone()
    };
    let market = "preference_for_local_markets_farms_or_supermarket";
    assert_eq!(
        stored(market, &format!("{market}: not Supermarket\nend\n")),
        "Local Markets/Farms"
    );
    // Of three values, the negation is kept.
    let fan = "fan_speed_preferences";
    assert_eq!(stored(fan, &format!("{fan}: not High\nend\n")), "not High");
}

#[test]
fn a_number_only_one_value_holds_names_it_with_its_unit_and_a_bound_refuses_nothing() {
    let s = Schema::embedded();
    let say = |t: &str| vec![t.to_string()];
    let walk = cand(&s, "distance_willing_to_walk_from_parking_to_destination");
    let ten = "less than 10 min (accepting possible higher cost)";
    for said in [
        // "never ... more than 10 minutes" refuses what lies past ten minutes, not the value.
        "When I park I never want to walk more than 10 minutes, even if it costs a bit more.",
        "Ten minutes on foot from the car is my limit, I'll pay for it.",
        "A ten-minute walk from the car park is my limit, I'll pay for that.",
        // A shrug in a clause of its own is at the cost.
        "I don't care if it costs more, I won't walk more than ten minutes from the car.",
    ] {
        assert_eq!(named_choices(&s, &walk, &say(said)), vec![ten], "{said}");
    }
    // A shrug beside a walk said so is at the cost, not at the walk.
    assert_eq!(
        named_choices(
            &s,
            &walk,
            &say("I can't walk more than five minutes from the car, whatever it costs.")
        ),
        vec!["less than 5 min (accepting possible higher cost)"]
    );
    // A number of something else is not the value's, nor is a bound the driver accepts going
    // past.
    for said in [
        "I'll pay 10 dollars more to park by the door.",
        "I'll pay 10 minimum for a spot by the door.",
        "Find me cheap parking, even if it means walking more than 10 minutes.",
        "I don't mind walking more than 10 minutes if parking's cheaper.",
        "I'm happy to walk at least 10 minutes to save money.",
        "I'm happy to circle for 10 minutes to find a cheap spot.",
        "No, I'm happy to walk more than 10 minutes if it's cheaper.",
        "I'll walk 10 minutes at least, if it saves money.",
    ] {
        let named = named_choices(&s, &walk, &say(said));
        assert!(!named.contains(&ten.to_string()), "{said}: {named:?}");
    }
}

#[test]
fn a_level_s_everyday_word_names_it_unless_said_as_too_much_or_refused() {
    let s = Schema::embedded();
    let say = |t: &str| vec![t.to_string()];
    for (key, said, level) in [
        (
            "interior_lighting_brightness_preferences",
            "I like it nice and bright in here.",
            "High",
        ),
        (
            "interior_lighting_brightness_preferences",
            "I keep the cabin lights dimmed.",
            "Low",
        ),
        (
            "fan_speed_preferences",
            "Fan on full speed, always, I run hot.",
            "High",
        ),
        (
            "fan_speed_preferences",
            "A gentle fan is all I ever want.",
            "Low",
        ),
    ] {
        assert_eq!(
            named_choices(&s, &cand(&s, key), &say(said)),
            vec![level],
            "{said}"
        );
    }
    // "Too bright" asks for less, and "never ... bright" refuses it: neither names High, and
    // the model chooses among the levels.
    let lights = cand(&s, "interior_lighting_brightness_preferences");
    for said in [
        "I always find the cabin lights way too bright at night.",
        "I never have the cabin lights bright.",
    ] {
        assert!(named_choices(&s, &lights, &say(said)).is_empty(), "{said}");
    }
}
