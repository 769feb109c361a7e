//! Issue 13: a lasting preference said in a driver's everyday words, which no description or
//! catalogue value of the schema uses, is placed in its category by the schema's example
//! statements (`says` in `config/categories.toml`, `extraction.statements`), on the real
//! models and store.

use glovebox::conversation::Conversation;
use glovebox::memory::Memory;
use tempfile::tempdir;

use crate::common::{config, user};

#[test]
fn a_preference_in_everyday_words_is_placed_by_the_schemas_example_statements() {
    let dir = tempdir().unwrap();
    let mut cfg = config();
    cfg.extraction.statements = true;
    let m = Memory::open(dir.path(), cfg).unwrap();
    // Nothing of the schema's own texts says "fewest miles": before the example statements
    // this was stored as a fan speed (`Low`, from "a bit slower").
    let turns = serde_json::json!([
        {"role": "user", "text": "Fewest miles wins for me every single time, I don't care if it's a bit slower."},
        {"role": "assistant", "text": "Got it."}
    ]);
    let out = m
        .remember(&user("driver"), &Conversation::from_value(&turns).unwrap())
        .unwrap();
    let stored: Vec<(String, String)> = out
        .iter()
        .map(|o| {
            let d = m.schema().detail(o.preference.detail);
            (d.key.clone(), o.preference.attribute.clone())
        })
        .collect();
    assert_eq!(
        stored,
        [(
            "priority_for_shortest_time_or_shortest_distance".to_string(),
            "Shortest Distance".to_string()
        )],
        "{out:?}"
    );
}
