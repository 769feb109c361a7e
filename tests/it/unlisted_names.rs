//! Issue 13: a shop, station or chain the schema does not list ("H-E-B") is read by the gates
//! and the category scores as one it lists (`extraction.stand_ins`), and stored by the name
//! the driver said, on the real models and store.

use glovebox::conversation::Conversation;
use glovebox::memory::Memory;
use tempfile::tempdir;

use crate::common::{config, key_values, user};

fn remembered(stand_ins: bool, text: &str) -> Vec<(String, String)> {
    let dir = tempdir().unwrap();
    let mut cfg = config();
    cfg.extraction.stand_ins = stand_ins;
    let m = Memory::open(dir.path(), cfg).unwrap();
    let turns = serde_json::json!([
        {"role": "user", "text": text},
        {"role": "assistant", "text": "Noted."}
    ]);
    let out = m
        .remember(&user("driver"), &Conversation::from_value(&turns).unwrap())
        .unwrap();
    key_values(&m, &out)
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
