//! Issue 13: a value the user turns down is stored turned down, also where no negation cue
//! says so (the refusal model, `memory::extraction::refusal`), and a liked value stays liked.

use glovebox::conversation::Conversation;
use glovebox::memory::Memory;
use tempfile::tempdir;

use crate::common::{config, glovebox, json_output, user};

/// What one user sentence stores in the category `key`.
fn stored(m: &Memory, text: &str, key: &str) -> Vec<String> {
    let c = serde_json::json!([{"role": "user", "text": text}]);
    let out = m
        .remember(&user("driver"), &Conversation::from_value(&c).unwrap())
        .unwrap();
    let d = m.schema().detail_by_key(key).unwrap();
    out.iter()
        .filter(|o| o.preference.detail == d)
        .map(|o| o.preference.attribute.clone())
        .collect()
}

/// Each one-sentence conversation (text, detail key, value) in one fresh memory stores exactly
/// that value in that detail.
fn each_stored_as<const N: usize>(cases: [(&str, &str, &str); N]) {
    let dir = tempdir().unwrap();
    let m = Memory::open(dir.path(), config()).unwrap();
    for (text, key, value) in cases {
        assert_eq!(stored(&m, text, key), vec![value], "{text}");
    }
}

#[test]
fn a_refusal_no_cue_names_is_stored_turned_down_and_a_liked_value_stays_liked() {
    // ("I've gone off Italian food" was the example here until the rule read "gone off".)
    let gone_off = "Italian food has lost its appeal lately, find me something different.";
    let loved = "Jazz is what I play on every long drive, I love it.";
    let dir = tempdir().unwrap();
    let m = Memory::open(dir.path(), config()).unwrap();
    assert_eq!(
        stored(&m, gone_off, "favorite_cuisine"),
        vec!["not Italian"]
    );
    assert_eq!(stored(&m, loved, "favorite_genres"), vec!["Jazz"]);
    // Without the model the negation rule alone reads no cue in those words ("something
    // different" comes after the value): Italian is stored as liked.
    let dir = tempdir().unwrap();
    let mut cfg = config();
    cfg.extraction.refuse_by_model = false;
    let m = Memory::open(dir.path(), cfg).unwrap();
    assert_eq!(stored(&m, gone_off, "favorite_cuisine"), vec!["Italian"]);
    assert_eq!(stored(&m, loved, "favorite_genres"), vec!["Jazz"]);
}

#[cfg(feature = "harness")]
#[test]
fn eval_polarity_fits_a_refusal_model_the_runtime_reads_and_refuses_what_cannot_be_read() {
    let dir = tempdir().unwrap();
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/carmem_one_user.jsonl");
    let model = dir.path().join("refusal.json");
    let r = json_output(
        glovebox()
            .args(["--json", "eval", "polarity", "--fit", "0", "--carmem"])
            .arg(&data)
            .arg("--write")
            .arg(&model),
    );
    assert!(r["fitted_on"]["questions"].as_u64().unwrap() > 0, "{r}");
    assert!(
        r["fitted_on"]["revealing_sentences"].as_u64().unwrap() > 0,
        "{r}"
    );
    assert_eq!(r["layer"], 3, "{r}");
    // The runtime reads the model it wrote.
    let mut cfg = config();
    cfg.extraction.refusal = Some(model.clone());
    assert!(Memory::open(&dir.path().join("a"), cfg).is_ok());

    // Cross-validation by user needs as many users as folds.
    let out = glovebox()
        .args(["eval", "polarity", "--fit", "5", "--carmem"])
        .arg(&data)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("at least 5 users"), "{err}");

    // A model that reads an embedder layer MiniLM lacks, or is no model, is refused with its
    // path, and nothing is opened; one that reads another layer than the preference gate is
    // read from a pass of its own.
    let mut text: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    text["layer"] = serde_json::json!(7);
    let deep = dir.path().join("deep-layer.json");
    std::fs::write(&deep, text.to_string()).unwrap();
    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, "{\"format\": \"glovebox-gate v1\"").unwrap();
    for (file, says) in [(&deep, "layer"), (&broken, "broken.json")] {
        let mut cfg = config();
        cfg.extraction.refusal = Some(file.clone());
        let err = Memory::open(&dir.path().join("b"), cfg)
            .err()
            .expect("refused");
        let msg = err.to_string();
        assert!(
            msg.contains(says) && msg.contains(&file.display().to_string()),
            "{msg}"
        );
    }
    text["layer"] = serde_json::json!(2);
    let other = dir.path().join("other-layer.json");
    std::fs::write(&other, text.to_string()).unwrap();
    let mut cfg = config();
    cfg.extraction.refusal = Some(other);
    let m = Memory::open(&dir.path().join("c"), cfg).unwrap();
    assert_eq!(
        stored(
            &m,
            "Jazz is what I play on every long drive, I love it.",
            "favorite_genres"
        ),
        vec!["Jazz"]
    );
}

/// Praise said in a negation's words ("can't beat", "nothing beats", "couldn't live without")
/// stores the value liked: the build before stored `not Fleetwood Mac`, `not Thai` and `not
/// Spotify` (checked), the opposite of what was said.
#[test]
fn praise_said_in_a_negation_s_words_is_stored_liked() {
    for (text, key, value) in [
        (
            "Nothing beats Thai food for me, I'd eat it every day.",
            "favorite_cuisine",
            "Thai",
        ),
        (
            "I couldn't live without Spotify, all my music is on it.",
            "preferred_music_streaming_service",
            "Spotify",
        ),
    ] {
        let dir = tempdir().unwrap();
        let m = Memory::open(dir.path(), config()).unwrap();
        assert_eq!(stored(&m, text, key), vec![value], "{text}");
    }
    // The value step reads this one liked too. Since stop 65 the offer decision holds the
    // sentence back (an artist no list names gains nothing from its sixth feature:
    // docs/results.md, "The offer decision reads whether a sentence names what its category
    // lists"), so it is checked where the polarity is decided.
    let models = glovebox::memory::Models::load(&config()).unwrap();
    let artists = models
        .schema()
        .detail_by_key("favorite_artists_bands")
        .unwrap();
    let (values, _) = models
        .value_of(
            "You can't beat a bit of Fleetwood Mac on a long drive, they're my band.",
            artists,
        )
        .unwrap();
    assert_eq!(values, vec!["Fleetwood Mac"]);
}

/// A title said with a negation's words ("No Woman No Cry", "Don't Stop Believin'") turns
/// nothing down: the build before stored `not Bob Marley` and `not Stop Believin` (checked).
/// Since stop 66 the whole title is the value, not who it is by (`Bob Marley` stored before,
/// checked) nor the words after the negation (`Stop Believin`; a title opening the sentence
/// stored `not Queen`, and until stop 68 `not Stop Believin`, `not Woman No Cry` and `not
/// Gonna Give`, checked).
#[test]
fn a_title_said_with_a_negation_s_words_is_stored_liked() {
    for (text, title) in [
        (
            "My favourite song is No Woman No Cry by Bob Marley.",
            "No Woman No Cry",
        ),
        (
            "I always listen to Don't Stop Believin' on long drives, best song ever.",
            "Don't Stop Believin",
        ),
        (
            "Don't Stop Me Now by Queen is my favourite song.",
            "Don't Stop Me Now",
        ),
        (
            "Don't Stop Believin' is my favourite song.",
            "Don't Stop Believin",
        ),
        (
            "No Woman No Cry is the song I play most.",
            "No Woman No Cry",
        ),
        (
            "Never Gonna Give You Up is a song I genuinely love.",
            "Never Gonna Give You Up",
        ),
    ] {
        let dir = tempdir().unwrap();
        let m = Memory::open(dir.path(), config()).unwrap();
        assert_eq!(stored(&m, text, "favorite_songs"), vec![title], "{text}");
    }
}

/// What another clause turns down is its own, and two negations make a need: the build before
/// stored `not Vegetarian` and `not Jazz` (checked).
#[test]
fn a_refusal_in_another_clause_or_a_need_said_by_two_negations_turns_nothing_down() {
    let dir = tempdir().unwrap();
    let m = Memory::open(dir.path(), config()).unwrap();
    assert_eq!(
        stored(
            &m,
            "I'm vegetarian, so please stop suggesting burger joints.",
            "dietary_preferences"
        ),
        vec!["Vegetarian"]
    );
    assert_eq!(
        stored(
            &m,
            "I never drive to work without some jazz on.",
            "favorite_genres"
        ),
        vec!["Jazz"]
    );
}

/// A name with an "'s" ("McDonald's"), a value said as "X's" ("Pink's not for me") and a value
/// said alone and then refused in a clause of its own ("Apple Music, no thanks") are stored turned
/// down; praise in a negation's words keeps its value liked. The negation rule never matched a
/// word with an "'s": the build before stored "I can't stand McDonald's." and "Country's just
/// not for me" liked (read off the blind sets' rows).
#[test]
fn a_name_with_an_apostrophe_s_or_a_value_refused_in_a_clause_of_its_own_is_stored_turned_down() {
    each_stored_as([
        (
            "Honestly, I can't stand McDonald's, never take me there.",
            "fast_food_preference",
            "not McDonald's",
        ),
        (
            "Country's just not for me, I never listen to it.",
            "favorite_genres",
            "not Country",
        ),
        (
            "Apple Music, no thanks, I've never got on with it.",
            "preferred_music_streaming_service",
            "not Apple Music",
        ),
        (
            "On a long drive I'd never pass up a Nando's.",
            "fast_food_preference",
            "Nando's",
        ),
    ]);
}

/// A value refused by the next clause pointing back to it ("keep it off", "I gave up on it"),
/// one taken back by a speech repair ("no not this, put on ..."), and one put aside without a
/// negation cue ("leave Kings of Leon out"), through the real models and store: the build
/// before stored the first two and the fourth liked and the third turned down.
#[test]
fn a_value_pointed_back_to_put_aside_or_said_after_a_repair_is_stored_as_meant() {
    each_stored_as([
        (
            "Coldplay puts me to sleep, keep it off.",
            "favorite_artists_bands",
            "not Coldplay",
        ),
        (
            "Tidal, I gave up on it years ago, the app kept crashing.",
            "preferred_music_streaming_service",
            "not Tidal",
        ),
        (
            "no not this put on abba theyre the band i have on every single drive",
            "favorite_artists_bands",
            "ABBA",
        ),
        (
            "You can leave Kings of Leon out of the rotation for good.",
            "favorite_artists_bands",
            "not Kings of Leon",
        ),
        (
            "Radiohead, I never get tired of them.",
            "favorite_artists_bands",
            "Radiohead",
        ),
    ]);
}

/// A name of the user's own (no catalogue value) turned down, with nothing else named, is
/// stored turned down without asking the model (the 270M model answered `none`, and the
/// aversion was lost). A name switched over to, or never switched from, is liked.
#[test]
fn a_name_turned_down_alone_is_stored_turned_down_and_one_switched_to_is_liked() {
    each_stored_as([
        (
            "Switch over to Absolute Radio, it's the station I always have on.",
            "preferred_radio_station",
            "Absolute Radio",
        ),
        (
            "I'd never switch from Esso, their points card is worth it.",
            "preferred_gas_station",
            "Esso",
        ),
        (
            "I can't stand Walmart.",
            "preferred_supermarket_chains",
            "not Walmart",
        ),
        (
            "I never shop at Walmart.",
            "preferred_supermarket_chains",
            "not Walmart",
        ),
    ]);
}

/// A value said as what bothers the driver ("drives me mad", "gets on my nerves") is stored
/// turned down; one that never does is liked.
#[test]
fn a_value_said_as_what_bothers_the_driver_is_stored_turned_down() {
    each_stored_as([
        (
            "Country music gets on my nerves, always has.",
            "favorite_genres",
            "not Country",
        ),
        (
            "Jazz never gets on my nerves, it's what I always play.",
            "favorite_genres",
            "Jazz",
        ),
    ]);
}

/// What the driver would rather do than have ("rather die than listen to", "sooner walk than
/// fill up at") is stored turned down, though the words between carry it past a negation's
/// reach; what they would rather have is liked.
#[test]
fn what_the_driver_would_rather_do_than_have_is_stored_turned_down() {
    each_stored_as([
        (
            "I'd rather die than listen to Nickelback.",
            "favorite_artists_bands",
            "not Nickelback",
        ),
        (
            "I'd much rather listen to Fleetwood Mac than anything else.",
            "favorite_artists_bands",
            "Fleetwood Mac",
        ),
    ]);
}

/// A "so" that says how much ("I don't like so much the country music") ends no clause: the
/// negation before it turns down the value after it (stored liked before).
#[test]
fn a_so_of_degree_ends_no_clause() {
    each_stored_as([(
        "I don't like so much the country music, it is too sad for me.",
        "favorite_genres",
        "not Country",
    )]);
}

/// "Couldn't care less" and "never care" say the price does not matter, as "don't care" does
/// (each stored the cheapest before).
#[test]
fn a_shrug_in_other_words_is_read() {
    each_stored_as([
        (
            "I couldn't care less what petrol costs, just find the nearest station.",
            "price_sensitivity_for_fuel",
            "Price is irrelevant",
        ),
        (
            "I never care about the price of fuel.",
            "price_sensitivity_for_fuel",
            "Price is irrelevant",
        ),
    ]);
}

/// A stance turned down by what the driver is not doing ("not paying ... extra") is its other
/// value; a value of two turned down with the other named by no word of its own is the other
/// (stop 86's build stored `Yes` and `not Supermarket`, checked).
#[test]
fn a_stance_refused_as_not_doing_and_the_other_of_two_are_read() {
    each_stored_as([
        (
            "I'm not paying ten cents a gallon extra for the green stuff, not ever.",
            "willingness_to_pay_extra_for_green_fuel",
            "No (cheapest prefered)",
        ),
        (
            "We buy our cheese at the market, not the supermarket, every Saturday.",
            "preference_for_local_markets_farms_or_supermarket",
            "Local Markets/Farms",
        ),
    ]);
}
