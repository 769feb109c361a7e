//! Issue 13: extraction abstains when nothing lasting was said, keeps every preference that
//! was, in the user's own words; `glovebox eval cases` reads the general case format.
//! Issue 14: recall stays silent when nothing stored is relevant.

use glovebox::conversation::Conversation;
use glovebox::memory::{Memory, Outcome};
use tempfile::tempdir;

use crate::common::{config, conv, glovebox, json_output, key_values, open, shipped_config, user};

/// The values stored in the category `key` among a remember's outcomes.
fn values_of(m: &Memory, out: &[Outcome], key: &str) -> Vec<String> {
    let d = m.schema().detail_by_key(key).unwrap();
    out.iter()
        .filter(|o| o.preference.detail == d)
        .map(|o| o.preference.attribute.clone())
        .collect()
}

#[test]
fn everyday_requests_and_questions_store_nothing() {
    let dir = tempdir().unwrap();
    let m = open(dir.path());
    let u = user("driver");
    for turns in [
        vec![
            ("user", "How much range do I have left?"),
            ("assistant", "About 240 kilometres."),
        ],
        vec![
            ("user", "Remind me to buy milk when I get home."),
            ("assistant", "I'll remind you when you arrive home."),
        ],
        vec![
            ("user", "What will the weather be like in Fresno tomorrow?"),
            ("assistant", "Sunny, with a high of 31 degrees."),
            ("user", "Thanks."),
        ],
        // A reminder holds a task; someone else's diet is theirs.
        vec![
            (
                "user",
                "Remind me to pick up oat milk from Aldi on the way back.",
            ),
            ("assistant", "Okay, I'll remind you when you're near Aldi."),
        ],
        vec![
            (
                "user",
                "Priya is strictly vegetarian, so find us somewhere with good veggie options.",
            ),
            (
                "assistant",
                "There's a Thai place with a vegetarian menu nearby.",
            ),
        ],
    ] {
        let c = conv(&turns);
        let out = m.remember(&u, &c).unwrap();
        assert!(out.is_empty(), "{turns:?} stored {out:?}");
        // The gate, not the LLM, made the call: nothing was offered to it.
        let x = m.extract(&c, &m.allowed(&u).unwrap()).unwrap();
        assert!(x.offered.is_empty(), "{turns:?} offered {:?}", x.offered);
        assert!(x.gate.iter().all(|p| (0.0..=1.0).contains(p)));
    }
    assert!(m.list(&u).unwrap().is_empty());
}

#[test]
fn a_setting_for_someone_else_or_a_question_of_a_supposed_case_stores_nothing() {
    let dir = tempdir().unwrap();
    let m = open(dir.path());
    let u = user("driver");
    // Each of these passes the shipped gate (> .5) on its words alone, and its best category
    // would be offered: what stops it is how it is said (a setting made for a passenger, a
    // question about a supposed case).
    for (said, reply) in [
        (
            "Turn the ambient lighting to purple for her.",
            "Ambient lighting is now purple.",
        ),
        (
            "Hypothetically, if I went vegan, would the car still find me decent places to eat?",
            "Yes, I can filter restaurants by vegan options.",
        ),
    ] {
        let c = conv(&[("user", said), ("assistant", reply)]);
        let x = m.extract(&c, &m.allowed(&u).unwrap()).unwrap();
        assert!(x.gate.iter().any(|&p| p > 0.5), "{said}: gate {:?}", x.gate);
        assert!(x.offered.is_empty(), "{said} offered {:?}", x.offered);
        assert!(m.remember(&u, &c).unwrap().is_empty(), "{said}");
    }
    assert!(m.list(&u).unwrap().is_empty());
}

#[test]
fn a_sentence_that_points_back_is_read_with_the_one_before_it() {
    let dir = tempdir().unwrap();
    let m = open(dir.path());
    let u = user("driver");
    // "It's the only station ..." names nothing; read with the request before it, the two are
    // one statement: its evidence holds both, and the value is the name the request says.
    let c = conv(&[
        (
            "user",
            "Put on Radio Paradise. It's the only station I listen to in the car.",
        ),
        ("assistant", "Playing Radio Paradise."),
    ]);
    let out = m.remember(&u, &c).unwrap();
    assert_eq!(
        values_of(&m, &out, "preferred_radio_station"),
        ["Radio Paradise"]
    );
    let s = &out[0].preference.sentences[0];
    assert!(s.contains("only station I listen to"), "{s}");
    // Said of someone else, the sentence stays alone and the check for that reads it.
    let c = conv(&[
        ("user", "Play some Adele. She loves it."),
        ("assistant", "Playing Adele."),
    ]);
    let x = m.extract(&c, &m.allowed(&u).unwrap()).unwrap();
    assert_eq!(x.gate.len(), 2, "{:?}", x.gate);
    assert!(m.remember(&u, &c).unwrap().is_empty());
}

#[test]
fn a_question_asking_what_is_so_stores_nothing_a_statement_before_it_does() {
    let dir = tempdir().unwrap();
    let m = open(dir.path());
    let u = user("driver");
    let reply = ("assistant", "Yes, the café there has two vegan wraps.");
    // The gate alone passes this question (its words are a dietary preference's), and the
    // offer decision would offer it: it asks what the service station has, it states nothing.
    let asked = conv(&[
        (
            "user",
            "Are there any vegan options at the service station?",
        ),
        reply,
    ]);
    let x = m.extract(&asked, &m.allowed(&u).unwrap()).unwrap();
    assert!(x.offered.is_empty(), "offered {:?}", x.offered);
    assert!(m.remember(&u, &asked).unwrap().is_empty());
    // Said first, the preference is stated, and the question after it asks nothing away.
    let stated = conv(&[
        (
            "user",
            "I'm vegan, are there any options for me at the service station?",
        ),
        reply,
    ]);
    let out = m.remember(&u, &stated).unwrap();
    assert_eq!(values_of(&m, &out, "dietary_preferences"), vec!["Vegan"]);
}

#[test]
fn two_preferences_in_one_conversation_are_both_stored_each_with_its_sentence() {
    let dir = tempdir().unwrap();
    let m = open(dir.path());
    let u = user("driver");
    let c = conv(&[
        (
            "user",
            "Put on some jazz, it's my favourite. And set 22 degrees, that's the temperature I always like.",
        ),
        ("assistant", "Playing jazz and setting 22 degrees."),
    ]);
    let out = m.remember(&u, &c).unwrap();
    let keys: Vec<&str> = out
        .iter()
        .map(|o| m.schema().detail(o.preference.detail).key.as_str())
        .collect();
    assert!(keys.contains(&"favorite_genres"), "{out:?}");
    assert!(keys.contains(&"preferred_temperature"), "{out:?}");
    for o in &out {
        let key = &m.schema().detail(o.preference.detail).key;
        let s = &o.preference.sentences[0];
        match key.as_str() {
            "favorite_genres" => assert!(s.contains("jazz"), "{s}"),
            "preferred_temperature" => assert!(s.contains("22"), "{s}"),
            _ => {}
        }
    }
}

#[test]
fn a_value_the_user_names_is_stored_in_their_words_not_a_catalogue_neighbour() {
    let dir = tempdir().unwrap();
    let m = open(dir.path());
    let u = user("driver");
    let c = conv(&[
        ("user", "Find me a supermarket on the way home."),
        ("assistant", "There is a MarketMingle and a Lidl nearby."),
        // This tests where the value comes from, so the sentence names its category clearly.
        // "I always do my weekly shop at Aldi", as close to local markets as to supermarket
        // chains, is held back by the offer decision since it replaced the margin (a known
        // recall loss, docs/results.md: offer model at .5 gives it .44).
        (
            "user",
            "My favourite supermarket chain is Aldi, so the Aldi please.",
        ),
    ]);
    let out = m.remember(&u, &c).unwrap();
    let got = values_of(&m, &out, "preferred_supermarket_chains");
    assert_eq!(got, vec!["Aldi"], "{out:?}");
}

#[test]
fn a_value_turned_down_is_stored_turned_down_and_said_values_keep_their_form() {
    let dir = tempdir().unwrap();
    let m = open(dir.path());
    let u = user("driver");
    let said = |text: &str, key: &str| {
        let out = m.remember(&u, &conv(&[("user", text)])).unwrap();
        values_of(&m, &out, key)
    };
    // The negation's scope decides, not the model's choice between the value and its negation.
    let got = said(
        "I'm not a fan of Italian food at all, never have been.",
        "favorite_cuisine",
    );
    assert_eq!(got, vec!["not Italian"]);
    // A number names its rung of a ladder of values; a name's "'s" is "is".
    let got = said(
        "Keep the cabin at twenty, that's always been my temperature.",
        "preferred_temperature",
    );
    assert_eq!(got, vec!["20 degree Celcius"]);
    let got = said(
        "Greek's my favourite cuisine, I could eat it every day.",
        "favorite_cuisine",
    );
    assert_eq!(got, vec!["Greek"]);
    // A refusal after the value; a stance ("Yes") turned down by the words that name it.
    let got = said(
        "Country music isn't really for me, so keep it off the playlists.",
        "favorite_genres",
    );
    assert_eq!(got, vec!["not Country"]);
    let got = said(
        "I don't need handicapped parking anymore, my knee is fine now.",
        "need_for_handicapped_accessible_parking",
    );
    assert_eq!(got, vec!["not Yes"]);
}

#[test]
fn a_real_brand_the_catalogue_lacks_is_placed_by_its_name_and_kept_as_said() {
    // CarMem's supermarket catalogue is invented; the schema's `names` hold real chains, so a
    // sentence saying one is read as about its category, and the value is the driver's word.
    let dir = tempdir().unwrap();
    let m = open(dir.path());
    let u = user("driver");
    let c = conv(&[
        ("user", "We always do the big shop at Tesco."),
        ("assistant", "Noted."),
    ]);
    let out = m.remember(&u, &c).unwrap();
    assert_eq!(
        values_of(&m, &out, "preferred_supermarket_chains"),
        vec!["Tesco"],
        "{out:?}"
    );
    // A listed name said in the driver's own spelling is the name, before another one said.
    let w = user("shopper");
    let spelt = conv(&[
        (
            "user",
            "Sainsburys is the only supermarket I bother with, I've got the Nectar card.",
        ),
        ("assistant", "Noted."),
    ]);
    let out = m.remember(&w, &spelt).unwrap();
    assert_eq!(
        values_of(&m, &out, "preferred_supermarket_chains"),
        vec!["Sainsbury's"],
        "{out:?}"
    );
    // A request that names one stores nothing.
    let v = user("visitor");
    let asked = conv(&[
        ("user", "Take me to the nearest Tesco."),
        ("assistant", "Navigating to Tesco Extra, 2 miles."),
    ]);
    assert!(m.remember(&v, &asked).unwrap().is_empty());
}

#[test]
fn a_sentence_saying_two_known_values_in_full_stores_one_of_them() {
    // "technology" and "news" are both podcast genres said in full: the model picks which one
    // the sentence is about; it does not get to answer `none` after the gate and the offer
    // decision found a preference (it did, for this sentence and for one of this shape in
    // CarMem dev, and nothing was stored).
    let dir = tempdir().unwrap();
    let m = open(dir.path());
    let u = user("driver");
    let c = conv(&[
        ("user", "Put a podcast on for the drive."),
        ("assistant", "Sure. Any particular kind?"),
        (
            "user",
            "I generally enjoy podcasts about technology, like gadget reviews, app launches and tech industry news.",
        ),
    ]);
    let out = m.remember(&u, &c).unwrap();
    let got = values_of(&m, &out, "favorite_podcast_genres");
    assert_eq!(got.len(), 1, "{out:?}");
    assert!(["Technology", "News"].contains(&got[0].as_str()), "{out:?}");
}

#[test]
fn a_name_the_user_says_is_the_value_even_when_it_shares_a_word_with_the_catalogue() {
    // "Radio X" shares "Radio" with catalogue stations ("RhythmRise Radio"): the value is the
    // name said, and the model does not veto it; a sentence that points back ("They've been
    // my favourite band") takes the name from the sentence before it. What is tested is the
    // value: the offer decision is lowered to .4 because at its shipped threshold (.55) it
    // leaves the band's sentence out since the gate reads the third layer (offer probability
    // .42; docs/results.md, stop 42, reports the miss).
    let dir = tempdir().unwrap();
    let mut cfg = config();
    cfg.extraction.offer_threshold = Some(0.4);
    let m = Memory::open(dir.path(), cfg).unwrap();
    let u = user("driver");
    let c = conv(&[
        ("user", "Put on Radio X."),
        ("assistant", "Radio X is on."),
        (
            "user",
            "Cheers. Honestly, Radio X is the only station I ever have on in the car.",
        ),
        ("assistant", "Noted."),
        (
            "user",
            "Later, play something by The Cure. They've been my favourite band since school.",
        ),
    ]);
    let out = m.remember(&u, &c).unwrap();
    assert_eq!(
        values_of(&m, &out, "preferred_radio_station"),
        ["Radio X"],
        "{out:?}"
    );
    let band = values_of(&m, &out, "favorite_artists_bands");
    assert!(band.len() == 1 && band[0].contains("Cure"), "{out:?}");
}

#[test]
fn a_habit_that_says_it_is_read_with_the_sentence_it_points_at() {
    // "I always want it on low" alone was placed at the fan speed; read with the sentence
    // before it, it is the seat heating.
    let dir = tempdir().unwrap();
    let m = open(dir.path());
    let u = user("driver");
    let c = conv(&[
        (
            "user",
            "Cheers. And the seat heating on low. I always want it on low, more than that and I sweat.",
        ),
        ("assistant", "Done."),
    ]);
    let out = m.remember(&u, &c).unwrap();
    assert_eq!(
        key_values(&m, &out),
        [("seat_heating_preferences".to_string(), "Low".to_string())],
        "{out:?}"
    );
}

#[test]
fn eval_cases_scores_the_general_case_format() {
    let dir = tempdir().unwrap();
    let cases = dir.path().join("cases.jsonl");
    std::fs::write(
        &cases,
        concat!(
            r#"{"conversation": [{"role": "user", "text": "Is it going to rain in Boston tonight?"}], "expect": [], "tag": "weather"}"#,
            "\n",
            r#"{"conversation": [{"role": "user", "text": "Set 21 degrees please, that's the temperature I always like."}], "expect": [{"category": "preferred_temperature", "value": "21 degrees"}], "tag": "pref"}"#,
            "\n"
        ),
    )
    .unwrap();
    let rows = dir.path().join("rows.jsonl");
    let r = json_output(
        glovebox()
            .args(["--json", "eval", "cases", "--data"])
            .arg(&cases)
            .arg("--out")
            .arg(&rows),
    );
    assert_eq!(r["cases"], 2, "{r}");
    assert_eq!(r["false_memory_rate"], 0.0, "{r}");
    assert_eq!(r["preference_recall"], 1.0, "{r}");
    assert_eq!(r["value_accuracy"], 1.0, "{r}");
    assert_eq!(r["by_tag"]["weather"]["cases"], 1, "{r}");
    assert!(r["extract_ms_p50"].as_f64().unwrap() > 0.0);
    assert_eq!(std::fs::read_to_string(&rows).unwrap().lines().count(), 2);
    // A case naming an unknown category is refused with the line and the name.
    std::fs::write(
        &cases,
        r#"{"conversation": [{"role": "user", "text": "x"}], "expect": [{"category": "warp_drive"}]}"#,
    )
    .unwrap();
    let out = glovebox()
        .args(["eval", "cases", "--data"])
        .arg(&cases)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("line 1") && err.contains("warp_drive"),
        "{err}"
    );
}

#[test]
fn recall_returns_only_what_is_relevant_with_a_probability() {
    let dir = tempdir().unwrap();
    let m = open(dir.path());
    let u = user("ann");
    let cats = [
        (
            "preferred_temperature",
            "22 degree Celcius",
            "I always like it at 22 degrees.",
        ),
        ("dietary_preferences", "Vegetarian", "I'm vegetarian."),
        ("favorite_genres", "Jazz", "Jazz is what I listen to."),
    ];
    let news = cats
        .iter()
        .map(|(k, a, s)| glovebox::memory::NewPreference {
            detail: m.schema().detail_by_key(k).unwrap(),
            attribute: a.to_string(),
            sentences: vec![s.to_string()],
            condition: None,
        })
        .collect();
    m.import(&u, news).unwrap();
    let veg = m.schema().detail_by_key("dietary_preferences").unwrap();
    let temp = m.schema().detail_by_key("preferred_temperature").unwrap();
    let hungry = m.recall(&u, "Find me a restaurant for dinner.", 5).unwrap();
    assert!(
        hungry.iter().any(|r| r.preference.detail == veg),
        "{hungry:?}"
    );
    assert!(
        hungry.iter().all(|r| r.preference.detail != temp),
        "{hungry:?}"
    );
    for r in &hungry {
        assert!((0.0..=1.0).contains(&r.relevance), "{r:?}");
        assert!(r.relevance >= m.models().relevance().threshold);
    }
    // An utterance no stored preference serves recalls nothing.
    let none = m
        .recall(&u, "Remind me to call the dentist on Monday.", 5)
        .unwrap();
    assert!(none.is_empty(), "{none:?}");
    // Without the gate (min_relevance 0) the same utterance gets the top k.
    let mut c = config();
    c.recall.min_relevance = Some(0.0);
    drop(m);
    let m = glovebox::memory::Memory::open(dir.path(), c).unwrap();
    assert_eq!(
        m.recall(&u, "Remind me to call the dentist on Monday.", 5)
            .unwrap()
            .len(),
        3
    );
}

#[test]
fn a_missing_offer_model_is_named_and_the_margin_rule_needs_none() {
    let dir = tempdir().unwrap();
    let mut c = config();
    c.extraction.offer_model = Some(dir.path().join("no-such-offer.json"));
    let e = glovebox::memory::Memory::open(&dir.path().join("a"), c)
        .err()
        .expect("a missing offer model is an error");
    assert!(e.to_string().contains("no-such-offer.json"), "{e}");
    let mut c = config();
    c.extraction.offers = glovebox::config::OfferRule::Margin;
    let m = glovebox::memory::Memory::open(&dir.path().join("b"), c).unwrap();
    assert!(m.models().offer().is_none());
    let u = user("driver");
    let out = m
        .remember(
            &u,
            &conv(&[("user", "I always like the cabin at 22 degrees.")]),
        )
        .unwrap();
    assert_eq!(out.len(), 1, "{out:?}");
}

/// A short answer is read with the question put to it (`extraction.context`): the category the
/// assistant asked about scores higher than for the sentence alone, and is the one stored. The
/// same answer after an assistant's statement is read alone: the driver may be changing the
/// subject.
#[test]
fn an_answer_is_read_with_the_question_put_to_it() {
    let answer = "Warm, always warm, I can't stand that cold blue.";
    let asked = conv(&[
        ("user", "Change the cabin lights."),
        (
            "assistant",
            "Which colour tone would you like for the ambient lighting?",
        ),
        ("user", answer),
    ]);
    let told = conv(&[
        ("user", "Change the cabin lights."),
        ("assistant", "The ambient lighting is changed."),
        ("user", answer),
    ]);
    let score = |c: &Conversation, context: f32| {
        let mut cfg = config();
        cfg.extraction.context = context;
        let models = glovebox::memory::Models::load(&cfg).unwrap();
        let d = models
            .schema()
            .detail_by_key("interior_lighting_ambient_preferences")
            .unwrap();
        let views = models.explain(c, None, usize::MAX).unwrap();
        let v = views.iter().find(|v| v.sentence == answer).unwrap();
        v.best.iter().find(|(k, _)| *k == d).unwrap().1
    };
    assert!(score(&asked, 0.2) > score(&asked, 0.0));
    assert_eq!(score(&told, 0.2), score(&told, 0.0));
    // Through `remember` (each speaker's part keeps the question their turn answers).
    let dir = tempdir().unwrap();
    let m = open(dir.path());
    let out = m.remember(&user("driver"), &asked).unwrap();
    assert_eq!(
        values_of(&m, &out, "interior_lighting_ambient_preferences"),
        ["Warm"]
    );
}

#[test]
fn the_lasting_gate_keeps_a_request_that_names_a_value_out_and_a_habit_in() {
    // config/glovebox-lasting.toml: the gate fitted with CarMem's revealing requests read as
    // negatives (config/lasting-labels.jsonl). A request to the car that names a station is not
    // a lasting preference; the station said as a habit is.
    let cfg = shipped_config("glovebox-lasting.toml");
    assert!(cfg.extraction.gate.is_some() && cfg.extraction.offer_model.is_some());
    let dir = tempdir().unwrap();
    let m = Memory::open(dir.path(), cfg).unwrap();
    let u = user("driver");
    let request = conv(&[
        ("user", "Could you stick Absolute Radio on?"),
        ("assistant", "Here's Absolute Radio."),
        ("user", "Thanks."),
    ]);
    let out = m.remember(&u, &request).unwrap();
    assert!(
        values_of(&m, &out, "preferred_radio_station").is_empty(),
        "{out:?}"
    );
    let habit = conv(&[
        ("user", "Could you stick Absolute Radio on?"),
        ("assistant", "Here's Absolute Radio."),
        (
            "user",
            "Thanks. Absolute Radio is the station I always have on in the car, every single day.",
        ),
    ]);
    let out = m.remember(&u, &habit).unwrap();
    assert_eq!(
        values_of(&m, &out, "preferred_radio_station"),
        ["Absolute Radio"],
        "{out:?}"
    );
}
