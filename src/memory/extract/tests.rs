//! Unit tests of extraction's pure parts: offers, prompt, grammar, values and parsing.

use super::*;

/// One statement, known without its conversation.
fn one(text: &str) -> Statements {
    vec![text.to_string()].into()
}

fn cand(schema: &Schema, key: &str, sentence: usize) -> Candidate {
    Candidate {
        detail: schema.detail_by_key(key).unwrap(),
        score: 0.5,
        sentence,
    }
}

#[test]
fn grammar_offers_only_the_shortlist() {
    let s = Schema::embedded();
    let offered = [cand(&s, "preferred_temperature", 0)];
    let said22 = one("I always want 22 degrees.");
    let g = grammar(&s, &offered, &said22, 2, true);
    assert!(g.contains("\"22 degree Celcius\""));
    assert!(!g.contains("favorite_genres"));
    assert!(g.starts_with("root ::= \" none\\n\" | \" \" ("), "{g}");
    let two = [offered[0], cand(&s, "fan_speed_preferences", 0)];
    let g2 = grammar(&s, &two, &said22, 2, true);
    assert!(g2.contains("item{1,2}") && g2.contains("\"preferred_temperature\""));
    assert!(g2.contains("\"fan_speed_preferences\"") && !g2.contains("favorite_genres"));
    let g0 = grammar(&s, &[], &Statements::default(), 2, true);
    assert_eq!(g0, "root ::= \"none\\n\"\n");
    let said = one("Set it to 25 degrees Celsius, please.");
    let g = grammar(&s, &offered, &said, 2, true);
    assert!(
        g.contains("\"25 degree Celcius\"") && !g.contains("\"21 degree Celcius\""),
        "{g}"
    );
}

#[test]
fn answers_parse_into_schema_types() {
    let s = Schema::embedded();
    let offered = [
        cand(&s, "preferred_temperature", 1),
        cand(&s, "favorite_genres", 0),
    ];
    let sents = vec!["Hi.".to_string(), "Keep it at 22 please.".to_string()];
    let got = parse(
        &s,
        "preferred_temperature: 22 DEGREE celcius\nfavorite_genres: synthwave\nend\n",
        &offered,
        &sents,
        &[0.9, 0.4],
    )
    .unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].attribute, "22 degree Celcius");
    assert_eq!(got[0].sentence, "Keep it at 22 please.");
    assert_eq!(got[0].confidence, 0.9);
    assert_eq!(got[1].attribute, "synthwave");
    assert!(parse(&s, "none\n", &offered, &sents, &[])
        .unwrap()
        .is_empty());
}

#[test]
fn values_the_user_names_are_found() {
    let s = Schema::embedded();
    let d = |k: &str| s.detail_by_key(k).unwrap();
    let say = |t: &str| vec![t.to_string()];
    assert_eq!(
        named_values(
            &s,
            d("preferred_temperature"),
            &say("Set it to 25 degrees Celsius.")
        ),
        vec!["25 degree Celcius"]
    );
    assert_eq!(
        named_values(
            &s,
            d("desired_price_range"),
            &say("I prefer the expensive side.")
        ),
        vec!["expensive"]
    );
    assert_eq!(
        named_values(
            &s,
            d("favorite_artists_bands"),
            &say("Play Wolfgang Amadeus Harmonix.")
        ),
        vec!["Wolfgang Amadeus Harmonix (Classical)"]
    );
    assert!(named_values(&s, d("favorite_genres"), &say("Play something nice.")).is_empty());
}

#[test]
fn a_value_named_in_full_is_told_from_one_named_by_half_its_words() {
    let s = Schema::embedded();
    let d = |k: &str| s.detail_by_key(k).unwrap();
    let say = |t: &str| vec![t.to_string()];
    let podcast = say("Make sure it's an entertainment podcast, that's all I ever listen to.");
    assert_eq!(
        values::wholly_named(&s, d("favorite_podcast_genres"), &podcast),
        vec!["Entertainment"]
    );
    // "radio" is only the generic half of "RhythmRise Radio"; "RhythmRise" names it, not in full.
    let station = d("preferred_radio_station");
    let radio = say("Put KEXP on, it's the only radio station I listen to.");
    assert!(named_values(&s, station, &radio).is_empty());
    let rise = say("Put RhythmRise on, it's the only station I listen to.");
    assert_eq!(named_values(&s, station, &rise), ["RhythmRise Radio"]);
    assert!(values::wholly_named(&s, station, &rise).is_empty());
    let covered = say("I always want covered parking, it keeps the car clean.");
    assert!(values::wholly_named(&s, d("preference_for_covered_parking"), &covered).is_empty());
    // An answer to the assistant names no "Yes".
    assert!(values::wholly_named(
        &s,
        d("preference_for_covered_parking"),
        &say("Yes, add it.")
    )
    .is_empty());
    assert_eq!(
        values::wholly_named(
            &s,
            d("preference_for_covered_parking"),
            &say("Covered? Yes.")
        ),
        vec!["Yes"]
    );
    // A note in brackets is the catalogue's, not the user's.
    let raven = say("Can you stream some Melody Raven instead?");
    assert_eq!(
        values::wholly_named(&s, d("favorite_artists_bands"), &raven),
        vec!["Melody Raven (Pop)"]
    );
    // A comparative names its adjective in full ("the cheapest" is Cheap).
    assert_eq!(
        values::wholly_named(
            &s,
            d("desired_price_range"),
            &say("Find the cheapest place.")
        ),
        vec!["cheap"]
    );
}

#[test]
fn a_named_value_is_offered_turned_down_only_when_the_sentence_negates() {
    let s = Schema::embedded();
    let say = |t: &str| vec![t.to_string()];
    let c = cand(&s, "favorite_genres", 0);
    assert_eq!(named_choices(&s, &c, &say("I love Jazz.")), vec!["Jazz"]);
    assert_eq!(
        named_choices(&s, &c, &say("Stop playing jazz, please.")),
        vec!["not Jazz"]
    );
    // A stop on the way names no refusal.
    assert_eq!(
        named_choices(&s, &c, &say("Let's stop by the jazz bar.")),
        vec!["Jazz"]
    );
    let g = grammar(&s, &[c], &one("No more jazz."), 2, true);
    assert!(g.contains("\"not Jazz\""), "{g}");
    let got = parse(
        &s,
        "favorite_genres: NOT jazz\nend\n",
        &[c],
        &say("No more jazz."),
        &[0.9],
    )
    .unwrap();
    assert_eq!(got[0].attribute, "not Jazz");
    // A negation about something else turns nothing down.
    assert_eq!(
        named_choices(&s, &c, &say("Jazz, even if nobody else likes it.")),
        vec!["Jazz"]
    );
}

#[test]
fn words_of_the_user_turned_down_are_offered_turned_down_only() {
    let s = Schema::embedded();
    let c = cand(&s, "preferred_gas_station", 0);
    let g = grammar(&s, &[c], &one("Not Esso, I won't use them."), 2, true);
    assert!(g.contains("\"not Esso\""), "{g}");
    assert!(!g.contains("\"Esso\""), "{g}");
}

#[test]
fn a_shrug_offers_the_value_that_says_it_does_not_matter_never_its_negation() {
    let s = Schema::embedded();
    let c = cand(&s, "preference_for_covered_parking", 0);
    // The second has an intensifier inside the cue.
    for said in [
        "I don't care if the parking is covered or not.",
        "It doesn't really matter if it's covered or not.",
    ] {
        assert_eq!(
            named_choices(&s, &c, &[said.to_string()]),
            vec!["Indifferent to Covered Parking"],
            "{said}"
        );
    }
}

#[test]
fn a_shrug_offers_only_the_does_not_matter_value() {
    let s = Schema::embedded();
    let say = |t: &str| vec![t.to_string()];
    let walk = cand(
        &s,
        "distance_willing_to_walk_from_parking_to_destination",
        0,
    );
    assert_eq!(
        named_choices(
            &s,
            &walk,
            &say("The walking distance doesn't matter as long as it's cheap.")
        ),
        vec!["not relevant (closest with low cost)"]
    );
    // Without a shrug the same category offers what the sentence names.
    let named = named_choices(&s, &walk, &say("Less than 5 min, please."));
    assert!(
        named.iter().all(|v| !v.starts_with("not relevant")),
        "{named:?}"
    );
}

#[test]
fn a_negation_states_an_aversion_instead_of_turning_it_down() {
    let s = Schema::embedded();
    let say = |t: &str| vec![t.to_string()];
    // The value is an aversion: "doesn't serve seafood" is the allergy, not its refusal.
    let diet = cand(&s, "dietary_preferences", 0);
    assert_eq!(
        named_choices(
            &s,
            &diet,
            &say("I'm allergic to seafood, find a place that doesn't serve any seafood.")
        ),
        vec!["Seafood Allergies"]
    );
    // The category is an aversion: "no toll roads" is avoiding them.
    let roads = cand(&s, "avoidance_of_specific_road_types", 0);
    assert_eq!(
        named_choices(&s, &roads, &say("No toll roads, please.")),
        vec!["Toll roads"]
    );
    // Elsewhere a negation still turns a value down.
    let genres = cand(&s, "favorite_genres", 0);
    assert_eq!(
        named_choices(&s, &genres, &say("No more jazz.")),
        vec!["not Jazz"]
    );
}

#[test]
fn a_single_value_category_takes_the_value_affirmed_over_the_one_refused() {
    let s = Schema::embedded();
    let say = |t: &str| vec![t.to_string()];
    let air = cand(&s, "airflow_direction_preferences", 0);
    let got = named_choices(
        &s,
        &air,
        &say("Blow the air towards my face and not the feet."),
    );
    assert!(got.contains(&"Face".to_string()), "{got:?}");
    assert!(got.iter().all(|v| !v.starts_with("not ")), "{got:?}");
    // Refusing the only value named offers its negation alone.
    assert_eq!(
        named_choices(&s, &air, &say("Not on my feet, please.")),
        vec!["not Feet"]
    );
    // In a multi-value category both stand: jazz and not rock.
    let genres = cand(&s, "favorite_genres", 0);
    let got = named_choices(&s, &genres, &say("I love jazz but not rock."));
    assert!(got.contains(&"not Rock".to_string()), "{got:?}");
    assert!(got.contains(&"Jazz".to_string()), "{got:?}");
    assert!(!got.contains(&"Rock".to_string()), "{got:?}");
}

#[test]
fn a_single_offer_is_started_in_the_prompt() {
    let s = Schema::embedded();
    let offered = [cand(&s, "preferred_temperature", 0)];
    let p = prompt(&s, &["Keep it at 22.".to_string()], &offered);
    assert!(p.ends_with("Preferences:\npreferred_temperature:"), "{p}");
    assert_eq!(
        full_answer(&s, &offered, " 22 degree Celcius\n"),
        "preferred_temperature: 22 degree Celcius\nend\n"
    );
    assert_eq!(full_answer(&s, &offered, " none\n"), "none\n");
}

#[test]
fn answers_outside_the_offer_are_rejected() {
    let s = Schema::embedded();
    let offered = [cand(&s, "preferred_temperature", 0)];
    let sents = vec!["Hi.".to_string()];
    let e = |a: &str| parse(&s, a, &offered, &sents, &[]).unwrap_err().problem;
    assert!(e("favorite_genres: Jazz\nend\n").contains("not offered"));
    assert!(e("preferred_temperature: 22\n").contains("expected"));
    assert!(e("preferred_temperature: \nend\n").contains("no `category: value`"));
}

#[test]
fn a_value_that_only_says_its_category_is_no_value() {
    let s = Schema::embedded();
    let offered = [cand(&s, "preferred_gas_station", 0)];
    let sents = vec!["But first, I need a gas station.".to_string()];
    let p = |a: &str| parse(&s, a, &offered, &sents, &[]).unwrap();
    assert!(p("preferred_gas_station: gas station\nend\n").is_empty());
    assert!(p("preferred_gas_station: the Gas Stations\nend\n").is_empty());
    let shell = p("preferred_gas_station: Shell\nend\n");
    assert_eq!(shell[0].attribute, "Shell");
    // The name of a category beside it says which category too: "ambient" of the interior
    // lighting colours (Interior Lighting Ambient Preferences is its sibling).
    let offered = [cand(&s, "interior_lighting_color_preferences", 0)];
    let sents = vec!["Make the ambient lighting a bit nicer.".to_string()];
    let colour = |a: &str| parse(&s, a, &offered, &sents, &[]).unwrap();
    assert!(colour("interior_lighting_color_preferences: ambient\nend\n").is_empty());
    let sents = vec!["I love a deep purple in here.".to_string()];
    let purple = parse(
        &s,
        "interior_lighting_color_preferences: deep purple\nend\n",
        &offered,
        &sents,
        &[],
    )
    .unwrap();
    assert_eq!(purple[0].attribute, "deep purple");
    // A known value keeps its place whatever its words ("Shortest Time" of Priority for
    // Shortest Time or Shortest Distance).
    let offered = [cand(
        &s,
        "priority_for_shortest_time_or_shortest_distance",
        0,
    )];
    let known = parse(
        &s,
        "priority_for_shortest_time_or_shortest_distance: Shortest Time\nend\n",
        &offered,
        &sents,
        &[],
    )
    .unwrap();
    assert_eq!(known.len(), 1);
}

fn margin_rule(
    min_similarity: f32,
    margin: f32,
    per_sentence: usize,
    max: usize,
) -> Offering<'static> {
    Offering {
        min_similarity,
        margin,
        per_sentence,
        max,
        model: None,
        leads: None,
        rivals: None,
        sentences: &[],
    }
}

#[test]
fn a_sentence_that_does_not_lead_sets_no_bar() {
    let s = Schema::embedded();
    let n = s.details().len();
    let (temp, genres) = (
        s.detail_by_key("preferred_temperature").unwrap(),
        s.detail_by_key("favorite_genres").unwrap(),
    );
    let (mut strong, mut weak) = (vec![0.0f32; n], vec![0.0f32; n]);
    strong[temp.index()] = 0.8;
    weak[genres.index()] = 0.6;
    let rows = [strong, weak];
    let all = s.all_details();
    let offered_by = |passes: &[bool], leads, rivals| -> Vec<(DetailId, usize)> {
        let how = Offering {
            leads,
            rivals,
            ..margin_rule(0.3, 0.1, 1, 3)
        };
        offers(&s, &rows, (&[], passes), &all, &how)
            .iter()
            .map(|c| (c.detail, c.sentence))
            .collect()
    };
    let offered = |leads| offered_by(&[true, true], leads, None);
    // The strongest sentence keeps the weaker one out...
    assert_eq!(offered(None), [(temp, 0)]);
    // ...unless it cannot store what it is nearest: then both offer.
    assert_eq!(offered(Some(&[false, true])), [(temp, 0), (genres, 1)]);
    // When no sentence leads, the bar is every passing sentence's, as without the rule.
    assert_eq!(offered(Some(&[false, false])), [(temp, 0)]);
    // A rival sets the bar without passing (the lasting track: a request the first track
    // passes is still the conversation's strongest).
    assert_eq!(offered_by(&[false, true], None, None), [(genres, 1)]);
    assert!(offered_by(&[false, true], None, Some(&[true, true])).is_empty());
}

#[test]
fn only_gated_sentences_about_allowed_categories_offer() {
    let s = Schema::embedded();
    let n = s.details().len();
    let temp = s.detail_by_key("preferred_temperature").unwrap();
    let fan = s.detail_by_key("fan_speed_preferences").unwrap();
    let genres = s.detail_by_key("favorite_genres").unwrap();
    let mut row = vec![0.0f32; n];
    row[temp.index()] = 0.8;
    row[fan.index()] = 0.75;
    row[genres.index()] = 0.2;
    let all = s.all_details();
    let got = offers(
        &s,
        &[row.clone()],
        (&[], &[true]),
        &all,
        &margin_rule(0.3, 0.1, 3, 3),
    );
    assert_eq!(
        got.iter().map(|c| c.detail).collect::<Vec<_>>(),
        vec![temp, fan]
    );
    assert_eq!(
        offers(
            &s,
            &[row.clone()],
            (&[], &[true]),
            &all,
            &margin_rule(0.3, 0.1, 1, 3)
        )
        .len(),
        1
    );
    // A sentence the gate holds back offers nothing, however close to a category.
    assert!(offers(
        &s,
        &[row.clone()],
        (&[], &[false]),
        &all,
        &margin_rule(0.3, 0.1, 3, 3)
    )
    .is_empty());
    // Opting out of the best category silences the sentence entirely.
    let mut allowed = all.clone();
    allowed.remove(temp);
    assert!(offers(
        &s,
        &[row.clone()],
        (&[], &[true]),
        &allowed,
        &margin_rule(0.3, 0.1, 3, 3)
    )
    .is_empty());
    // Two preference sentences offer one category each, each with its own sentence.
    let mut music = vec![0.0f32; n];
    music[genres.index()] = 0.6;
    let both = [row, music];
    let got = offers(
        &s,
        &both,
        (&[], &[true, true]),
        &all,
        &margin_rule(0.3, 0.25, 1, 3),
    );
    assert_eq!(
        got.iter()
            .map(|c| (c.detail, c.sentence))
            .collect::<Vec<_>>(),
        vec![(temp, 0), (genres, 1)]
    );
    assert_eq!(by_sentence(&got).len(), 2);
    // A sentence far less clearly about its category than the strongest one offers nothing.
    let got = offers(
        &s,
        &both,
        (&[], &[true, true]),
        &all,
        &margin_rule(0.3, 0.1, 1, 3),
    );
    assert_eq!(got.len(), 1);
    // When the strongest sentence is about an opted-out category, the weaker one stays
    // silent too (it cannot smuggle in a neighbour).
    let mut no_temp = all.clone();
    no_temp.remove(temp);
    no_temp.remove(fan);
    assert!(offers(
        &s,
        &both,
        (&[], &[true, true]),
        &no_temp,
        &margin_rule(0.3, 0.1, 1, 3)
    )
    .is_empty());
}

#[test]
fn the_offer_model_lets_a_second_clear_preference_offer_and_holds_back_a_vague_one() {
    let s = Schema::embedded();
    let n = s.details().len();
    let temp = s.detail_by_key("preferred_temperature").unwrap();
    let genres = s.detail_by_key("favorite_genres").unwrap();
    let cuisine = s.detail_by_key("favorite_cuisine").unwrap();
    let diet = s.detail_by_key("dietary_preferences").unwrap();
    // Two sentences, each clearly about its own category; the second is 0.15 weaker, which
    // the margin rule (0.1) holds back.
    let mut climate = vec![0.1f32; n];
    climate[temp.index()] = 0.75;
    let mut music = vec![0.1f32; n];
    music[genres.index()] = 0.6;
    // A third sentence close to two categories of one subcategory and barely above others.
    let mut vague = vec![0.35f32; n];
    vague[cuisine.index()] = 0.42;
    vague[diet.index()] = 0.41;
    let rows = [climate, music, vague];
    let gate = [0.95, 0.9, 0.6];
    let passes = [true, true, true];
    let all = s.all_details();
    let model = OfferModel {
        format: crate::memory::offer::FORMAT.into(),
        threshold: 0.5,
        weights: vec![0.3, -0.5, 6.0, 4.5, 0.4, 0.0],
        bias: -1.5,
        about: serde_json::Value::Null,
    };
    let how = Offering {
        model: Some(&model),
        ..margin_rule(0.3, 0.1, 1, 3)
    };
    let got = offers(&s, &rows, (&gate, &passes), &all, &how);
    assert_eq!(
        got.iter()
            .map(|c| (c.detail, c.sentence))
            .collect::<Vec<_>>(),
        vec![(temp, 0), (genres, 1)]
    );
    let margin_only = offers(
        &s,
        &rows,
        (&gate, &passes),
        &all,
        &margin_rule(0.3, 0.1, 1, 3),
    );
    assert_eq!(margin_only.len(), 1);
    // The model still obeys the gate and opt-outs.
    let held = [true, false, false];
    assert_eq!(offers(&s, &rows, (&gate, &held), &all, &how).len(), 1);
    let mut no_music = all.clone();
    no_music.remove(genres);
    let got = offers(&s, &rows, (&gate, &passes), &no_music, &how);
    assert!(got.iter().all(|c| c.detail != genres), "{got:?}");
}

#[test]
fn values_are_copied_from_the_sentence() {
    let sp = spans("I do all my grocery shopping at Lidl.");
    assert!(sp.contains(&"Lidl".to_string()), "{sp:?}");
    assert!(
        !sp.iter()
            .any(|w| w.starts_with("at ") || w.ends_with(" at")),
        "{sp:?}"
    );
    let sp = spans("BBC Radio 2, the station I listen to every day");
    assert!(sp.contains(&"BBC Radio 2".to_string()), "{sp:?}");
    let s = Schema::embedded();
    let c = cand(&s, "preferred_supermarket_chains", 0);
    let lidl = one("I do all my grocery shopping at Lidl.");
    let g = grammar(&s, &[c], &lidl, 3, true);
    assert!(g.contains("\"Lidl\""), "{g}");
    // No catalogue neighbour is offered for a value the user did not name.
    for a in &s.detail(c.detail).attributes {
        assert!(!g.contains(&format!("\"{a}\"")), "{a} in {g}");
    }
}

#[test]
fn a_category_with_one_stance_besides_indifference_has_that_stance() {
    let s = Schema::embedded();
    let d = |k: &str| s.detail_by_key(k).unwrap();
    assert_eq!(
        values::only_stance(&s, d("preference_for_covered_parking")),
        Some("Yes")
    );
    assert_eq!(
        values::only_stance(&s, d("need_for_handicapped_accessible_parking")),
        Some("Yes")
    );
    assert_eq!(values::only_stance(&s, d("fan_speed_preferences")), None);
    assert_eq!(values::only_stance(&s, d("favorite_genres")), None);
}
