//! Issue 16: what extraction asks the LLM under the vehicle schema. A setting whose values the
//! schema lists (an enum, a colour) stores only a value its evidence sentence names: a sentence
//! naming none asks no question and stores nothing; one naming exactly one is stored without a
//! question.

use std::path::Path;
use std::sync::atomic::Ordering;

use glovebox::conversation::Conversation;
use glovebox::memory::Memory;

use crate::common::{config, user};

fn vehicle_memory(dir: &Path) -> Memory {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut c = glovebox::config::Config::load(&root.join("config/glovebox-vehicle.toml")).unwrap();
    c.models = config().models;
    c.schema = Some(root.join("config/schemas/vehicle.toml"));
    Memory::open(dir, c).expect("memory opens with the vehicle schema")
}

fn said(m: &Memory, text: &str) -> Vec<(String, String)> {
    let c = Conversation::from_json(&format!(r#"[{{"role":"user","text":"{text}"}}]"#)).unwrap();
    m.remember(&user("gary"), &c)
        .unwrap()
        .into_iter()
        .map(|o| {
            let key = m.schema().detail(o.preference.detail).key.clone();
            (key, o.preference.attribute)
        })
        .collect()
}

#[test]
fn a_listed_value_the_sentence_does_not_name_asks_no_question() {
    let dir = tempfile::tempdir().unwrap();
    let m = vehicle_memory(dir.path());
    let counters = m.models().counters();
    // Both pass the vehicle gate and offer a setting with listed values (navigation voice
    // mode, overhead screen time format) that they do not name; before, each asked the model.
    for text in [
        "I prefer the navigation voice a certain way.",
        "The screen clock format is important to me.",
    ] {
        assert!(said(&m, text).is_empty(), "{text}");
    }
    assert_eq!(counters.gated.load(Ordering::Relaxed), 2);
    // One colour named: stored as said, without a question.
    assert_eq!(
        said(&m, "My nephew loves the ambient light in Blue."),
        [("light_ambient_color".to_string(), "blue".to_string())]
    );
    assert_eq!(counters.extract_llm.load(Ordering::Relaxed), 0);
}
