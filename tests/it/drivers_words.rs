//! Issue 13: a lasting preference said in a driver's everyday words, which no description or
//! catalogue value of the schema uses, is placed in its category by the schema's example
//! statements (`says` in `config/categories.toml`, `extraction.statements`), on the real
//! models and store; and the built-in one-off gate, fitted on those statements and on their
//! contrasts (`config/gate-one-off-contrasts.json`; `config/contrasts.jsonl`: the same topics
//! said with no lasting preference of the speaker's), keeps a story, someone else's habit and a
//! request for someone else out of what recall uses.

use glovebox::conversation::Conversation;
use glovebox::memory::Memory;
use glovebox::pref::Status;
use tempfile::tempdir;

use crate::common::{config, conv, key_values, shipped_config, user};

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

#[test]
fn a_story_someone_elses_habit_or_a_request_for_someone_else_is_not_recalled() {
    let dir = tempdir().unwrap();
    let m = Memory::open(dir.path(), config()).unwrap();
    let u = user("driver");
    // Written for this test, not from any case set. With the one-off gate built in until stop
    // 81 (`config/gate-one-off.json`, `config/offer-lasting-beside.json`) the radio station and
    // the car park are stored active and recalled.
    for said in [
        "We had a curry at Dishoom on Friday and the queue went round the block.",
        "Dad always has Radio 4 on when he drives.",
        "We parked in the multi-storey at the airport and it cost a fortune.",
        "Play something by Adele for Mum, it's her birthday.",
    ] {
        let out = m
            .remember(&u, &conv(&[("user", said), ("assistant", "Okay.")]))
            .unwrap();
        assert!(
            out.iter().all(|o| o.preference.status == Status::Pending),
            "{said} stored {:?} active",
            key_values(&m, &out)
        );
    }
    for asked in ["put the radio on", "find me a car park", "somewhere to eat"] {
        assert!(m.recall(&u, asked, 5).unwrap().is_empty(), "{asked}");
    }
    // What the driver states of their own is stored, in their words.
    for (said, key, value) in [
        (
            "I only ever fill up at Texaco, their loyalty card's the one I've got.",
            "preferred_gas_station",
            "Texaco",
        ),
        (
            "Jazz FM is the only station I have on in this car.",
            "preferred_radio_station",
            "Jazz FM",
        ),
    ] {
        let out = m
            .remember(&u, &conv(&[("user", said), ("assistant", "Noted.")]))
            .unwrap();
        assert_eq!(
            key_values(&m, &out),
            [(key.to_string(), value.to_string())],
            "{said}"
        );
        assert!(
            out.iter().all(|o| o.preference.status != Status::Pending),
            "{said}: {out:?}"
        );
    }
}

/// Every configuration the checkout ships opens a memory: its schema and every model file it
/// names load and fit together (the option config/glovebox-contrasts.toml among them).
#[test]
fn every_shipped_configuration_opens() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("config");
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("glovebox") && n.ends_with(".toml"))
        .collect();
    names.sort();
    assert!(names.len() >= 4, "{names:?}");
    for name in names {
        let dir = tempdir().unwrap();
        if let Err(e) = Memory::open(dir.path(), shipped_config(&name)) {
            panic!("config/{name} does not open: {e}");
        }
    }
}
