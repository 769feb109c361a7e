//! `glovebox demo`: a fresh memory in a temp directory, the shipped sample conversations
//! remembered, then recalled from, through the same operations as every other command.

use anyhow::Result;
use serde_json::{json, Value};

use super::{render, Output};
use crate::config::Config;
use crate::conversation::Conversation;
use crate::memory::Memory;
use crate::ops::{execute, Request};
use crate::pref::UserId;

/// Sample conversations shipped for the demo (product, not test fixtures).
const DEMO_CONVERSATIONS: [(&str, &str); 3] = [
    (
        "climate",
        include_str!("../../examples/conversations/climate.json"),
    ),
    (
        "music",
        include_str!("../../examples/conversations/music.json"),
    ),
    (
        "dinner",
        include_str!("../../examples/conversations/dinner.json"),
    ),
];

const DEMO_UTTERANCES: [&str; 4] = [
    "I'm cold, can you warm it up?",
    "Play something relaxing for the ride.",
    "I'm hungry, where can we stop to eat?",
    "What's the weather like in Munich tomorrow?",
];

pub fn run(cfg: Config, out: Output) -> Result<()> {
    let dir = std::env::temp_dir().join(format!("glovebox-demo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let result = (|| {
        let memory = Memory::open(&dir, cfg)?;
        if !out.json {
            println!("Glovebox demo: a fresh memory in {}\n", dir.display());
        }
        let remembered = remember_all(&memory, out)?;
        let recalled = recall_all(&memory, out)?;
        if out.json {
            println!("{}", json!({ "remember": remembered, "recall": recalled }));
        }
        Ok::<_, anyhow::Error>(())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn remember_all(memory: &Memory, out: Output) -> Result<Vec<Value>> {
    let user = UserId::new("demo-driver")?;
    let mut report = Vec::new();
    for (name, text) in DEMO_CONVERSATIONS {
        let conversation = Conversation::from_json(text)?;
        if !out.json {
            println!("remember {name}.json:");
            for t in conversation.turns() {
                println!("  {:>9}: {}", t.role.as_str(), t.text);
            }
        }
        let user = user.clone();
        let reply = execute(memory, Request::Remember { user, conversation })?;
        if !out.json {
            println!("{}\n", render::text(&reply));
        }
        let mut v = reply.to_json();
        v["conversation"] = name.into();
        report.push(v);
    }
    Ok(report)
}

fn recall_all(memory: &Memory, out: Output) -> Result<Vec<Value>> {
    let user = UserId::new("demo-driver")?;
    let mut report = Vec::new();
    for utt in DEMO_UTTERANCES {
        let request = Request::Recall {
            user: user.clone(),
            text: utt.to_string(),
            k: Some(2),
            category: None,
            context: Default::default(),
        };
        let reply = execute(memory, request)?;
        if !out.json {
            println!("recall {utt:?}:\n{}\n", render::text(&reply));
        }
        let mut v = reply.to_json();
        v["utterance"] = utt.into();
        report.push(v);
    }
    Ok(report)
}
