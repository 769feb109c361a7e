//! Issue 13: a shop, station or chain the schema does not list ("H-E-B") is read by the gates
//! and the category scores as one it lists (`extraction.stand_ins`), and stored by the name
//! the driver said, on the real models and store.

use glovebox::conversation::Conversation;
use glovebox::memory::Memory;
use tempfile::tempdir;

use crate::common::{config, key_values, user};

fn remembered(stand_ins: bool, text: &str) -> Vec<(String, String)> {
    let turns = serde_json::json!([
        {"role": "user", "text": text},
        {"role": "assistant", "text": "Noted."}
    ]);
    remembered_turns(stand_ins, turns)
}

#[test]
fn a_chain_no_category_lists_is_stored_by_the_name_the_driver_said() {
    // "... at Lidl." is stored either way: Lidl is one of the schema's names.
    let said = "I do all my grocery shopping at H-E-B.";
    assert_eq!(
        remembered(true, said),
        [(
            "preferred_supermarket_chains".to_string(),
            "H-E-B".to_string()
        )]
    );
    // Read as said, the unknown name holds the sentence under the gate and the offer decision.
    assert_eq!(remembered(false, said), []);
}

#[test]
fn a_place_is_never_stood_in_for_as_a_brand() {
    // Galway is no station, but masked, the rest of the sentence speaks of one: without the
    // gazetteer's places (GeoNames, `models/gazetteer`) it was stored as a radio station.
    let said = "Ugh, this station keeps cutting out now that we're past Galway.";
    assert_eq!(remembered(true, said), []);
    assert_eq!(remembered(false, said), []);
}

/// The preferences remembered of `turns`, with or without stand-ins (and so the gazetteer).
fn remembered_turns(stand_ins: bool, turns: serde_json::Value) -> Vec<(String, String)> {
    let dir = tempdir().unwrap();
    let mut cfg = config();
    cfg.extraction.stand_ins = stand_ins;
    let m = Memory::open(dir.path(), cfg).unwrap();
    let out = m
        .remember(&user("driver"), &Conversation::from_value(&turns).unwrap())
        .unwrap();
    key_values(&m, &out)
}

#[test]
fn a_town_said_as_where_someone_is_is_no_value() {
    // The sentence names only the town, which was stored as the news source before (checked,
    // and so it is without the gazetteer); now the sentence points back to the name said
    // before it.
    let news = serde_json::json!([
        {"role": "user", "text": "Put the news on from the Irish Times."},
        {"role": "assistant", "text": "Playing the Irish Times news podcast."},
        {"role": "user", "text": "Grand. It's the only news I've trusted since I was a student in Galway."}
    ]);
    assert_eq!(
        remembered_turns(true, news),
        [("general_news_source".to_string(), "Irish Times".to_string())]
    );
    // A request near a town stores nothing, not even pending (it was Swindon as a network).
    let charger = serde_json::json!([
        {"role": "user", "text": "Find me a charger around Swindon, whatever network, we're late."},
        {"role": "assistant", "text": "There's one four minutes away."}
    ]);
    assert_eq!(remembered_turns(true, charger), []);
}

#[test]
fn a_missing_gazetteer_is_named_when_the_models_load() {
    let dir = tempdir().unwrap();
    let mut cfg = config();
    cfg.extraction.stand_ins = true;
    cfg.models.gazetteer = "no-such-gazetteer".into();
    let e = Memory::open(dir.path(), cfg)
        .err()
        .expect("it must not open");
    let said = e.to_string();
    assert!(
        said.contains("no-such-gazetteer/cities15000.json: missing"),
        "{said}"
    );
}

#[test]
fn a_corrupt_gazetteer_is_named_and_loses_nothing_stored() {
    let dir = tempdir().unwrap();
    // A memory with a preference in it, opened without stand-ins.
    let mut plain = config();
    plain.extraction.stand_ins = false;
    let m = Memory::open(dir.path(), plain).unwrap();
    let turns =
        serde_json::json!([{"role": "user", "text": "I do all my grocery shopping at Lidl."}]);
    m.remember(&user("driver"), &Conversation::from_value(&turns).unwrap())
        .unwrap();
    let stored = |m: &Memory| -> Vec<String> {
        m.list(&user("driver"))
            .unwrap()
            .into_iter()
            .map(|p| p.attribute)
            .collect()
    };
    let before = stored(&m);
    assert_eq!(before, ["Lidl"]);
    drop(m);
    let models = tempdir().unwrap();
    let gz = models.path().join("gazetteer");
    std::fs::create_dir(&gz).unwrap();
    std::fs::write(gz.join("cities15000.json"), "{\"1\": {\"name\": \"Leeds\"").unwrap();
    let mut cfg = config();
    cfg.extraction.stand_ins = true;
    cfg.models.gazetteer = gz.clone();
    for f in ["countries.json", "us_states.json", "nam_dict.txt"] {
        std::fs::write(gz.join(f), "").unwrap();
    }
    // The files are there, so the memory opens; the gazetteer is read at the first name no
    // category lists, and then the extraction fails naming the file, storing nothing.
    let m = Memory::open(dir.path(), cfg).unwrap();
    let turns =
        serde_json::json!([{"role": "user", "text": "I do all my grocery shopping at H-E-B."}]);
    for _ in 0..2 {
        let said = m
            .remember(&user("driver"), &Conversation::from_value(&turns).unwrap())
            .expect_err("it must not extract")
            .to_string();
        assert!(
            said.contains("gazetteer/cities15000.json") && said.contains("EOF"),
            "{said}"
        );
    }
    // What was stored is still there, and nothing else.
    assert_eq!(stored(&m), before);
}
