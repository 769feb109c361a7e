//! Unit tests of `memory::values`.

use super::*;

#[test]
fn words_are_matched_whole_and_in_a_row() {
    assert!(says_words("The ambient light needs to be White.", "white"));
    assert!(says_words("Put on BBC Radio 2 please", "bbc radio 2"));
    assert!(!says_words("Grab the whiteboard.", "white"));
    assert!(!says_words("Radio 2 and BBC news", "bbc radio 2"));
    assert!(!says_words("anything", ""));
}

#[test]
fn negation_cues_are_whole_words_or_a_contraction() {
    assert!(negates("I don't want rock anymore."));
    assert!(negates("Exclude Rock from my music."));
    assert!(negates("Please turn off the rock station."));
    assert!(!negates("Play some rock again."));
    assert!(!negates("Nothingness is a band."));
    assert!(!negates("Turn on the radio, it's a rock day."));
}

#[test]
fn a_name_is_turned_down_only_where_it_is_said_whole() {
    let s = "I'm going to the High Court in the suburbs instead of the District Court.";
    assert!(turns_down_name(s, "District Court"));
    assert!(!turns_down_name(s, "High Court"));
    // Word by word, the second "court" is in the scope of "instead".
    assert!(turns_down(s, "High Court"));
    assert!(turns_down_name("Not BBC Radio 2 again.", "BBC Radio 2"));
}

#[test]
fn a_negation_turns_down_only_the_value_in_its_scope() {
    assert!(turns_down("I don't want jazz.", "Jazz"));
    assert!(turns_down("I'm not a fan of jazz at all.", "Jazz"));
    assert!(turns_down("Jazz is nothing for me anymore.", "Jazz"));
    assert!(turns_down("Avoid health podcasts from now on.", "Health"));
    // A change toward a value is no refusal of it; a change away from one is.
    assert!(!turns_down(
        "Let's switch to outside circulation.",
        "outside"
    ));
    assert!(turns_down("Let's switch from jazz for a while.", "Jazz"));
    // A stop on the way is a visit, not a refusal; stopping a thing is one.
    assert!(!turns_down(
        "Can we stop by a ZephyrFuel station?",
        "ZephyrFuel"
    ));
    assert!(!turns_down("Stop at the Shell on the way.", "Shell"));
    assert!(!turns_down(
        "Make the stop a Tesla Supercharger.",
        "Tesla Supercharger"
    ));
    assert!(!turns_down("Switch the ambient lights to pink.", "Pink"));
    // "Instead" chooses what follows; "no other" refuses the others; an answer opens.
    assert!(!turns_down(
        "Check for a charger instead and make it EcoPulse.",
        "EcoPulse"
    ));
    assert!(turns_down("Play rock instead of jazz.", "Jazz"));
    assert!(!turns_down("No other genre, just jazz vibes.", "Jazz"));
    assert!(!turns_down("No other genre just jazz vibes.", "Jazz"));
    assert!(!turns_down("No that's perfect, keep it medium.", "Medium"));
    assert!(turns_down("No jazz, please.", "Jazz"));
    // A known value is read by its own words, not its category's.
    let s = Schema::embedded();
    let parking = s.detail_by_key("preferred_parking_type").unwrap();
    let said = "I'm a multi-storey man, I don't bother with street parking anywhere.";
    assert!(turns_down(said, "Parking-house"));
    assert!(!turns_down_value(&s, parking, said, "Parking-house"));
    assert!(turns_down_value(
        &s,
        parking,
        "Never a parking house.",
        "Parking-house"
    ));
    assert!(turns_down("Stop playing jazz, please.", "Jazz"));
    assert!(turns_down("Anything except Indian is fine.", "Indian"));
    assert!(!turns_down("Thai suits me, except on Mondays.", "Thai"));
    assert!(turns_down("Green is too dark for me at night.", "Green"));
    assert!(!turns_down("I love green, it is calming.", "Green"));
    // The cue is about something else, or after the value, or past a clause break.
    assert!(!turns_down(
        "I like the scenic route, even if it's longer to avoid traffic.",
        "Yes"
    ));
    assert!(!turns_down(
        "The shortest time, no matter what.",
        "Shortest Time"
    ));
    assert!(!turns_down(
        "I don't mind waiting but the cheapest one.",
        "Rather cheapest"
    ));
    assert!(!turns_down("Not now, play jazz.", "Jazz"));
}

#[test]
fn a_refusal_said_after_the_value_or_by_anything_but() {
    assert!(turns_down("Country isn't really for me.", "Country"));
    assert!(turns_down("Country music isn't really for me.", "Country"));
    assert!(turns_down("Honestly country is not my thing.", "Country"));
    assert!(turns_down("Shell never again after last time.", "Shell"));
    assert!(turns_down("That station doesn't do it for me.", "station"));
    assert!(turns_down("Anything but country, please.", "Country"));
    assert!(turns_down("I cannot stand country music.", "Country"));
    // After a negation, "anything but" says only.
    assert!(!turns_down("I never play anything but country.", "Country"));
    // Said of the value, but not refusing it.
    assert!(!turns_down("Country is my thing.", "Country"));
    assert!(!turns_down("I don't mind a bit of country.", "Country"));
    assert!(!turns_down(
        "Country isn't on right now, put it on.",
        "Country"
    ));
    assert!(!turns_down("I like country, but not too loud.", "Country"));
}

#[test]
fn spoken_numbers_are_written_as_digits() {
    assert_eq!(
        digits("Set temperature twenty-five degrees"),
        "Set temperature 25 degrees"
    );
    assert_eq!(digits("twenty two, please."), "22, please.");
    assert_eq!(digits("Lower it to three."), "Lower it to 3.");
    assert_eq!(digits("Thirteen or Twenty"), "13 or 20");
    assert_eq!(digits("the one I like"), "the 1 I like");
    assert_eq!(digits("twenty, two"), "20, 2");
    assert_eq!(digits("BBC Radio 2 is great"), "BBC Radio 2 is great");
    assert_eq!(digits("İstanbul twenty-one"), "İstanbul 21");
    assert_eq!(digits("well-known twenty-x"), "well-known twenty-x");
    let schema = Schema::embedded();
    let temp = schema.detail_by_key("preferred_temperature").unwrap();
    let said = vec!["Set temperature twenty-five degrees".to_string()];
    assert_eq!(
        named_values(&schema, temp, &said),
        vec!["25 degree Celcius"]
    );
    // On a ladder of values the number alone names one, said or spoken.
    for said in ["Set the heating to 21.", "Twenty is my temperature."] {
        let n = if said.starts_with('S') { "21" } else { "20" };
        assert_eq!(
            wholly_named(&schema, temp, &[said.to_string()]),
            vec![format!("{n} degree Celcius")],
            "{said}"
        );
    }
    let tones = schema
        .detail_by_key("interior_lighting_ambient_preferences")
        .unwrap();
    let said = vec!["I've always preferred cooler tones inside.".to_string()];
    assert_eq!(named_values(&schema, tones, &said), vec!["Cool"]);
    // The value that holds the most of what was said.
    let vehicle = crate::schema::vehicle_for_tests();
    let air = vehicle
        .detail_by_key("air_conditioner_air_direction")
        .unwrap();
    let said = vec!["There we go, switched it to feet and window.".to_string()];
    assert_eq!(named_values(&vehicle, air, &said), vec!["feet_window"]);
}

#[test]
fn shrugs_and_indifferent_values() {
    assert!(shrugs("I don't care if the parking is covered or not."));
    assert!(shrugs(
        "Just pick any parking, I'm not too fussed about security."
    ));
    assert!(!shrugs("I care about a covered spot."));
    assert!(shrugs("It doesn't really matter if it's covered."));
    assert!(shrugs("I'm not that bothered about security."));
    assert!(!shrugs("It really matters that it's covered."));
    // "couldn't care less" and "never care" say the same as "don't care".
    assert!(shrugs("I couldn't care less what they charge."));
    assert!(shrugs("I never care what it costs."));
    assert!(!shrugs("I never park on the street, I care about my car."));
    assert!(aversive("Seafood Allergies") && aversive("Avoidance of Specific Road Types"));
    assert!(!aversive("Jazz"));
    assert!(aversive("Dairy-Free") && !aversive("Free Wi-Fi"));
    let schema = Schema::embedded();
    let covered = schema
        .detail_by_key("preference_for_covered_parking")
        .unwrap();
    assert_eq!(
        indifferent_values(&schema, covered),
        vec!["Indifferent to Covered Parking"]
    );
    let genres = schema.detail_by_key("favorite_genres").unwrap();
    assert!(indifferent_values(&schema, genres).is_empty());
    // A shrug at something else, beside a value of the category said in full.
    let fuel = schema.detail_by_key("price_sensitivity_for_fuel").unwrap();
    for said in [
        "I always go for the cheapest petrol, whatever the brand.",
        "I always go for the cheapest gas around, I don't care about the brand.",
    ] {
        assert!(shrugged_values(&schema, fuel, said).is_empty(), "{said}");
    }
    assert_eq!(
        shrugged_values(&schema, fuel, "Whatever it costs, I don't care."),
        ["Price is irrelevant"]
    );
    assert_eq!(
        shrugged_values(
            &schema,
            covered,
            "I don't care if the parking is covered or not."
        ),
        ["Indifferent to Covered Parking"]
    );
}

#[test]
fn a_turned_down_value_is_the_negation_of_the_value() {
    assert!(negation_of("not Jazz", "jazz") && negation_of("Jazz", "Not Jazz"));
    assert!(!negation_of("Jazz", "Jazz") && !negation_of("not Jazz", "not Jazz"));
    assert!(!negation_of("nothing", "hing"));
}

#[test]
fn a_common_word_for_a_closed_value_names_it() {
    let s = Schema::embedded();
    let named = |key: &str, said: &str| {
        named_values(&s, s.detail_by_key(key).unwrap(), &[said.to_string()])
    };
    assert_eq!(
        named(
            "avoidance_of_specific_road_types",
            "Route me along the motorway."
        ),
        ["Highways"]
    );
    assert_eq!(
        named("preferred_parking_type", "I always use a multi-storey."),
        ["Parking-house"]
    );
    // Two words of an alias beat one: "ultra-rapid" is HPC, "rapid" alone DC.
    let charging = "preferred_type_of_charging_while_traveling";
    assert_eq!(named(charging, "Only the ultra-rapid ones."), ["HPC"]);
    assert_eq!(named(charging, "A rapid one is fine."), ["DC"]);
}

#[test]
fn a_catalogue_name_said_only_by_its_generic_words_is_not_named() {
    let s = Schema::embedded();
    let named = |key: &str, said: &str| {
        named_values(&s, s.detail_by_key(key).unwrap(), &[said.to_string()])
    };
    let station = "preferred_radio_station";
    // "radio" says what kind of thing, not which station; "BBC Radio 2" is the user's own.
    assert!(named(station, "Put the radio on.").is_empty());
    assert!(named(station, "BBC Radio 2 is the station I listen to every day.").is_empty());
    assert!(named(station, "Anything on FM is fine.").is_empty());
    // The name's own word names it, with or without the generic one.
    assert_eq!(named(station, "Put RhythmRise on."), ["RhythmRise Radio"]);
    assert_eq!(named(station, "EchoWave FM please."), ["EchoWave FM"]);
    let network = "preferred_charging_network";
    assert!(named(network, "Find me some charging.").is_empty());
    assert_eq!(
        named(network, "VoltRise charging, always."),
        ["VoltRise Charging"]
    );
    // A ladder's shared words name none of its values; its number does.
    let temp = "preferred_temperature";
    assert!(named(temp, "Always in degrees Celcius.").is_empty());
    assert_eq!(named(temp, "22 degrees Celcius."), ["22 degree Celcius"]);
}

#[test]
fn a_value_with_an_apostrophe_s_is_turned_down_as_any_other() {
    for (s, v) in [
        ("I can't stand McDonald's.", "McDonald's"),
        ("Not McDonald's, I never eat there.", "McDonald's"),
        ("I don't eat McDonald's, haven't in years.", "McDonald's"),
        ("Pink's not for me, never was.", "Pink"),
        ("Country's just not for me, never put it on.", "Country"),
        ("Wendy’s, never again.", "Wendy's"),
    ] {
        assert!(turns_down(s, v), "{s}");
        assert!(turns_down_name(s, v), "{s}");
    }
    for (s, v) in [
        ("McDonald's is my go-to on a road trip.", "McDonald's"),
        ("I love McDonald's.", "McDonald's"),
        ("Pink's my colour, always has been.", "Pink"),
        ("Country's the only thing I play.", "Country"),
    ] {
        assert!(!turns_down(s, v), "{s}");
    }
}

#[test]
fn a_value_said_alone_is_turned_down_by_a_clause_that_only_refuses_it() {
    for (s, v) in [
        ("Pandora, absolutely not.", "Pandora"),
        ("Mexican, nah. It never agrees with me.", "Mexican"),
        ("Coles? Yeah, nah. Gave up on them last year.", "Coles"),
        (
            "The Joe Rogan Experience? No thanks.",
            "The Joe Rogan Experience",
        ),
        ("Buffets are a no from me, every time.", "Buffet"),
        (
            "Sweet Caroline is the one song I can't stand.",
            "Sweet Caroline",
        ),
        (
            "Capital FM is the one station I switch off the second it comes on.",
            "Capital FM",
        ),
        ("Ed Sheeran has never done it for me.", "Ed Sheeran"),
        ("The Electrify America one, forget it.", "Electrify America"),
        ("Spotify? Hard pass.", "Spotify"),
    ] {
        assert!(turns_down(s, v), "{s}");
    }
    for (s, v) in [
        // Australian for yes.
        ("Coles? Nah, yeah, that's my shop.", "Coles"),
        // The value is not alone in its clause: the refusal is of something else.
        ("I'll have Mexican tonight, no rice.", "Mexican"),
        ("Pandora, yes please.", "Pandora"),
        ("KFC is a no-brainer for me.", "KFC"),
        ("Even better, I'd never pass up a Nando's.", "Nando's"),
        (
            "I'm a sausage roll man, I can't drive past a Greggs.",
            "Greggs",
        ),
        (
            "Any road trip, the coffee stop is Tim Hortons, no other chain.",
            "Tim Hortons",
        ),
        (
            "Radio 2 is the only station I never get tired of.",
            "Radio 2",
        ),
        (
            "Radio 2 is the only station I have on, nothing else.",
            "Radio 2",
        ),
        ("Shell is the one station I always stop at.", "Shell"),
    ] {
        assert!(!turns_down(s, v), "{s}");
    }
}

#[test]
fn a_number_corrected_is_turned_down_and_its_correction_is_not() {
    let s = "set the um the temperature to 20 no 21 sorry 21 that's what I always have";
    assert!(turns_down(s, "20 degree Celcius"));
    assert!(!turns_down(s, "21 degree Celcius"));
    let s = "set it to uh 18 no 19 19 is what I like";
    assert!(turns_down(s, "18"));
    assert!(!turns_down(s, "19"));
    // A refusal of a number stays one.
    assert!(turns_down("No 25, it's far too hot.", "25"));
}

#[test]
fn a_value_said_after_a_repair_is_not_turned_down_by_what_the_repair_took_back() {
    let s = "put on capital no wait sorry i mean heart yeah hearts the one i always have on";
    assert!(!turns_down(s, "Heart"));
    let s = "nah not this put on fleetwood mac theyre my all time favourite band";
    assert!(!turns_down(s, "Fleetwood Mac"));
    assert!(!turns_down(
        "I can't wait to hear some jazz tonight",
        "jazz"
    ));
    // A refusal with nothing taken back stays one.
    assert!(turns_down(
        "nah don't put on fleetwood mac",
        "Fleetwood Mac"
    ));
    assert!(turns_down("sorry but no country music", "country"));
    assert!(turns_down("not that, never play nickelback", "Nickelback"));
}

#[test]
fn a_value_pointed_back_to_and_refused_in_the_next_clause_is_turned_down() {
    for (s, v) in [
        (
            "Purple lights in the cabin make me feel sick, I never want them.",
            "Purple",
        ),
        (
            "Coldplay puts me to sleep, don't ever put them on for me again.",
            "Coldplay",
        ),
        ("Taco Bell? Never take me there.", "Taco Bell"),
        (
            "Tidal crashed on me twice, I don't trust it anymore.",
            "Tidal",
        ),
        ("Jazz in the morning, no, I don't want it at all.", "jazz"),
        (
            "Red light at night gives me a headache, I want none of it.",
            "Red",
        ),
        ("Coldplay puts me to sleep, keep it off.", "Coldplay"),
        (
            "Tidal, I gave up on it years ago, the app kept crashing.",
            "Tidal",
        ),
        (
            "Taco Bell made me ill once, I'm done with it for good.",
            "Taco Bell",
        ),
    ] {
        assert!(turns_down(s, v), "{s}");
    }
    for (s, v) in [
        (
            "Put on Coldplay, I don't want it too loud though.",
            "Coldplay",
        ),
        ("Heart FM, don't change it.", "Heart FM"),
        ("Radiohead, I never get tired of them.", "Radiohead"),
        ("Blue is fine, it doesn't bother me.", "Blue"),
        (
            "Tesla Supercharger, I don't need it today.",
            "Tesla Supercharger",
        ),
        ("Play some jazz, I don't mind it.", "jazz"),
        (
            "Put on Coldplay, my daughter doesn't like them but tough.",
            "Coldplay",
        ),
        (
            "Put on Coldplay, my daughter doesn't like them.",
            "Coldplay",
        ),
        ("Play Coldplay, my son is sick of it.", "Coldplay"),
        (
            "Heated seats on, keep it off my back though.",
            "Heated seats",
        ),
        ("This Coldplay song, skip it now.", "Coldplay"),
    ] {
        assert!(!turns_down(s, v), "{s}");
    }
}

#[test]
fn a_value_put_aside_for_good_without_a_negation_is_turned_down() {
    for (s, v) in [
        (
            "You can leave Kings of Leon out of it from now on.",
            "Kings of Leon",
        ),
        ("Cross the Texaco off, I'm not going back.", "Texaco"),
        ("Me and Oasis are finished.", "Oasis"),
        ("Nickelback and I are done.", "Nickelback"),
        ("I'm sick of Despacito.", "Despacito"),
        ("I've gone off Thai food.", "Thai"),
        ("Tesco's off the table for me.", "Tesco"),
        ("Fox News is dead to me.", "Fox News"),
        ("Lidl can do one.", "Lidl"),
        ("The Thai one's out.", "Thai"),
    ] {
        assert!(turns_down(s, v), "{s}");
    }
    for (s, v) in [
        ("I never get tired of Despacito.", "Despacito"),
        ("Just the once, I'll be sick of it by Galway.", "Galway"),
        ("Leave Heart on, it's my station.", "Heart"),
        (
            "Me and the kids are finished with the shopping, go to Tesco.",
            "Tesco",
        ),
        ("The new Taylor Swift album is out.", "Taylor Swift"),
        ("Tesco is out of the way today.", "Tesco"),
    ] {
        assert!(!turns_down(s, v), "{s}");
    }
}

#[test]
fn a_name_is_read_from_its_first_word_and_a_change_to_it_or_a_drop_off_at_it_keeps_it() {
    // A whole name was matched from a weak word before it ("to Smooth Radio"), so the verb
    // of the change was read as turning it down.
    for (sentence, name) in [
        (
            "Switch over to Smooth Radio. That's what I've always got on.",
            "Smooth Radio",
        ),
        ("Would you switch over to RTÉ Radio 1 there.", "RTÉ Radio 1"),
        (
            "Any road trip, the coffee stop is Tim Hortons, no other chain.",
            "Tim Hortons",
        ),
        (
            "I'd never switch from Shell, the points alone are worth it.",
            "Shell",
        ),
        ("wait, drop me at the Tesco Express first", "Tesco"),
    ] {
        assert!(!turns_down_name(sentence, name), "{sentence} | {name}");
    }
    assert!(turns_down_name(
        "Let's switch from Shell for good.",
        "Shell"
    ));
    assert!(turns_down_name("Drop Coldplay from the mix.", "Coldplay"));
}

#[test]
fn a_value_said_as_what_bothers_the_driver_is_turned_down() {
    for (sentence, value) in [
        ("Red lights in the cabin drive me mad.", "Red"),
        (
            "Capital FM grates on me, the same songs all day.",
            "Capital FM",
        ),
        ("That cold white light gives me a headache.", "White"),
        ("Country music gets on my nerves.", "Country"),
        ("Talk radio does my head in.", "Talk"),
        ("Jazz bores me to tears.", "Jazz"),
    ] {
        assert!(turns_down(sentence, value), "{sentence} | {value}");
    }
    for (sentence, value) in [
        ("Jazz never gets on my nerves, put it on.", "Jazz"),
        ("put on jazz i think the traffic drives me mad", "Jazz"),
        (
            "Put on Radio 2, the traffic drives me mad otherwise.",
            "Radio 2",
        ),
        (
            "Blue is calm, the glare of the others gives me a headache.",
            "Blue",
        ),
        (
            "Heavy metal used to drive me mad, now I love it.",
            "Heavy metal",
        ),
        ("Play some jazz, I'm bored.", "Jazz"),
    ] {
        assert!(!turns_down(sentence, value), "{sentence} | {value}");
    }
}

#[test]
fn what_the_driver_would_rather_do_than_have_is_turned_down() {
    for (sentence, value) in [
        ("I'd rather die than listen to Nickelback.", "Nickelback"),
        ("I'd sooner push the car than fill up at Esso.", "Esso"),
        ("I'd rather go to Lidl than Aldi.", "Aldi"),
        ("We shop at Lidl rather than Aldi.", "Aldi"),
    ] {
        assert!(turns_down(sentence, value), "{sentence} | {value}");
    }
    for (sentence, value) in [
        ("I'd rather go to Lidl than Aldi.", "Lidl"),
        ("I'd sooner have Shell than anything else.", "Shell"),
        ("I like jazz more than anything.", "Jazz"),
        // A clause ends what "rather" reaches; a number after "than" compares.
        ("I'd rather not, it's nicer than Heart.", "Heart"),
        (
            "I'd rather stay on the A road because it's quicker than Waze says.",
            "Waze",
        ),
        (
            "I'd rather walk less than 5 minutes.",
            "less than 5 min (accepting possible higher cost)",
        ),
    ] {
        assert!(!turns_down(sentence, value), "{sentence} | {value}");
    }
}

#[test]
fn a_so_of_degree_ends_no_clause() {
    // "so much" says how much: the negation before it reaches the value after it.
    assert!(turns_down(
        "I don't like so much the jazz, it makes me sleepy.",
        "Jazz"
    ));
    assert!(turns_down(
        "I don't listen to so many podcasts now.",
        "podcasts"
    ));
    // "so" before a clause still ends the one before it.
    assert!(!turns_down(
        "I'm not in a hurry so take the scenic route.",
        "scenic route"
    ));
    assert!(!turns_down("No rush so play some jazz.", "Jazz"));
}
