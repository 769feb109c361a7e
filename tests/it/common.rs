//! Shared set-up for the integration tests.

use std::path::{Path, PathBuf};

use glovebox::config::Config;
use glovebox::conversation::Conversation;
use glovebox::memory::Memory;
use glovebox::pref::UserId;

/// The model folder of this checkout; fails loudly, with the fix, when the models are missing.
pub fn models_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    for f in [
        "gemma-3-270m-q4_k_m.gguf",
        "minilm/model.safetensors",
        "minilm/tokenizer.json",
        "gazetteer/cities15000.json",
    ] {
        assert!(
            dir.join(f).is_file(),
            "model file {} is missing: run `models/fetch` first",
            dir.join(f).display()
        );
    }
    dir
}

/// `glovebox --models <this checkout's models>`: the binary under test, ready for its
/// arguments.
pub fn glovebox() -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_glovebox"));
    c.arg("--models").arg(models_dir());
    c
}

/// [`glovebox`] on the data folder `data`.
pub fn glovebox_on(data: &Path) -> std::process::Command {
    let mut c = glovebox();
    c.arg("--data-dir").arg(data);
    c
}

/// The default configuration with the checkout's models.
pub fn config() -> Config {
    let mut c = Config::default();
    c.models.dir = models_dir();
    c
}

/// A configuration file the checkout ships (`config/NAME`), with the checkout's models and
/// the schema and model files it names read from the checkout.
pub fn shipped_config(name: &str) -> Config {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut c = Config::load(&root.join("config").join(name)).expect("the file loads");
    c.models.dir = models_dir();
    let x = &mut c.extraction;
    for p in [
        &mut c.schema,
        &mut x.gate,
        &mut x.offer_model,
        &mut x.one_off_gate,
        &mut x.one_off_offer,
        &mut x.examples,
        &mut x.refusal,
        &mut c.recall.queries,
        &mut c.recall.relevance,
    ] {
        if let Some(rel) = p.take() {
            *p = Some(root.join(rel));
        }
    }
    c
}

/// A conversation of `(role, text)` turns.
pub fn conv(turns: &[(&str, &str)]) -> Conversation {
    let v: Vec<serde_json::Value> = turns
        .iter()
        .map(|(role, text)| serde_json::json!({"role": role, "text": text}))
        .collect();
    Conversation::from_value(&serde_json::Value::Array(v)).unwrap()
}

pub fn open(dir: &Path) -> Memory {
    Memory::open(dir, config()).expect("memory opens")
}

pub fn fixture(name: &str) -> Conversation {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    Conversation::from_json(&std::fs::read_to_string(&p).unwrap()).unwrap()
}

pub fn user(s: &str) -> UserId {
    UserId::new(s).unwrap()
}

/// Runs a `glovebox --json ...` command, asserts that it succeeded (showing its stderr if not)
/// and returns its one JSON object.
pub fn json_output(cmd: &mut std::process::Command) -> serde_json::Value {
    let out = cmd.output().expect("glovebox runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object on stdout")
}

/// Each stored preference of `out` as (detail key, value).
pub fn key_values(m: &Memory, out: &[glovebox::memory::Outcome]) -> Vec<(String, String)> {
    out.iter()
        .map(|o| {
            (
                m.schema().detail(o.preference.detail).key.clone(),
                o.preference.attribute.clone(),
            )
        })
        .collect()
}

/// Each stored preference of `out` as (user, detail key, value): whose it is, too.
pub fn user_key_values(
    m: &Memory,
    out: &[glovebox::memory::Outcome],
) -> Vec<(String, String, String)> {
    out.iter()
        .zip(key_values(m, out))
        .map(|(o, (key, value))| (o.preference.user.as_str().to_string(), key, value))
        .collect()
}
