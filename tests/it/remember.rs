//! Issue 2: remember → maintain → store → recall, end to end on the embedded defaults.

use glovebox::memory::{ForgetWhat, Memory, INDEX_FILE};
use glovebox::pref::{Maintenance, Operation};
use tempfile::tempdir;

use crate::common::{config, fixture, glovebox_on, json_output, open, user};

fn temperature_key(m: &Memory) -> glovebox::schema::DetailId {
    m.schema().detail_by_key("preferred_temperature").unwrap()
}

#[test]
fn a_temperature_conversation_is_remembered_and_recalled() {
    let dir = tempdir().unwrap();
    let m = open(dir.path());
    let u = user("driver");
    let out = m.remember(&u, &fixture("temperature.json")).unwrap();
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0].preference.detail, temperature_key(&m));
    assert_eq!(out[0].op, Maintenance::New);
    assert!(out[0].preference.attribute.contains("25"), "{out:?}");
    let hits = m.recall(&u, "can you make it warmer in here", 5).unwrap();
    assert_eq!(hits[0].preference.id, out[0].preference.id, "{hits:?}");
}

#[test]
fn remembering_twice_passes_and_a_contradiction_updates() {
    let dir = tempdir().unwrap();
    let m = open(dir.path());
    let u = user("driver");
    let first = m.remember(&u, &fixture("temperature.json")).unwrap();
    let again = m.remember(&u, &fixture("temperature.json")).unwrap();
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].op, Maintenance::Pass(first[0].preference.id));
    assert_eq!(m.list(&u).unwrap().len(), 1);

    let cooler = m.remember(&u, &fixture("temperature_cooler.json")).unwrap();
    assert_eq!(cooler.len(), 1, "{cooler:?}");
    assert_eq!(cooler[0].op, Maintenance::Update(first[0].preference.id));
    let now = m.list(&u).unwrap();
    assert_eq!(now.len(), 1);
    assert!(now[0].attribute.contains("18"), "{now:?}");

    let h = m.history(&u).unwrap();
    let ops: Vec<Operation> = h.iter().map(|e| e.op).collect();
    assert_eq!(
        ops,
        vec![Operation::Append, Operation::Pass, Operation::Update]
    );
    let upd = &h[2];
    assert!(upd.before.as_ref().unwrap().attribute.contains("25"));
    assert!(upd.after.as_ref().unwrap().attribute.contains("18"));
}

#[test]
fn an_opted_out_category_stores_nothing() {
    let dir = tempdir().unwrap();
    let m = open(dir.path());
    let u = user("driver");
    let cc = m.schema().resolve("Climate Control").unwrap();
    m.opt_out(&u, cc).unwrap();
    let out = m.remember(&u, &fixture("temperature.json")).unwrap();
    assert!(out.is_empty(), "{out:?}");
    assert!(m.list(&u).unwrap().is_empty());
    // The grammar never offered it: extraction itself produced nothing in Climate Control.
    let allowed = m.allowed(&u).unwrap();
    assert!(!allowed.contains(temperature_key(&m)));
    let x = m.extract(&fixture("temperature.json"), &allowed).unwrap();
    assert!(x.offered.iter().all(|c| allowed.contains(c.detail)));
    assert!(x.items.is_empty());
}

#[test]
fn forget_removes_from_recall_and_index() {
    let dir = tempdir().unwrap();
    let m = open(dir.path());
    let u = user("driver");
    let out = m.remember(&u, &fixture("temperature.json")).unwrap();
    assert_eq!(m.index_len(), 1);
    let gone = m.forget(&u, ForgetWhat::One(out[0].preference.id)).unwrap();
    assert_eq!(gone.len(), 1);
    assert!(m
        .recall(&u, "can you make it warmer in here", 5)
        .unwrap()
        .is_empty());
    assert_eq!(m.index_len(), 0);
    drop(m);
    let m = open(dir.path());
    assert_eq!(m.index_len(), 0);
    assert!(!m.index_was_rebuilt());
}

#[test]
fn a_deleted_index_is_rebuilt_with_the_same_results() {
    let dir = tempdir().unwrap();
    let u = user("driver");
    let before = {
        let m = open(dir.path());
        m.remember(&u, &fixture("temperature.json")).unwrap();
        m.recall(&u, "can you make it warmer in here", 5).unwrap()
    };
    std::fs::remove_file(dir.path().join(INDEX_FILE)).unwrap();
    let m = open(dir.path());
    assert!(m.index_was_rebuilt());
    let after = m.recall(&u, "can you make it warmer in here", 5).unwrap();
    assert_eq!(before.len(), after.len());
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(b.preference.id, a.preference.id);
        assert!((b.score - a.score).abs() < 1e-4);
    }
}

#[test]
fn bad_input_is_a_clear_error_and_changes_nothing() {
    let dir = tempdir().unwrap();
    let u = user("driver");
    {
        let m = open(dir.path());
        m.remember(&u, &fixture("temperature.json")).unwrap();
    }
    let listed = |m: &Memory| m.list(&u).unwrap();
    let m = open(dir.path());
    let stored = listed(&m);

    let e = glovebox::conversation::Conversation::from_json("[{\"USER\": ").unwrap_err();
    assert!(e.to_string().contains("not valid JSON"), "{e}");
    let e = m.schema().resolve("Horoscopes").unwrap_err();
    assert!(
        e.to_string().contains("unknown category \"Horoscopes\""),
        "{e}"
    );
    assert_eq!(listed(&m), stored);
    drop(m);

    let mut cfg = config();
    cfg.models.llm = "no-such-model.gguf".into();
    let m = Memory::open(dir.path(), cfg).unwrap();
    let e = m
        .remember(&u, &fixture("temperature_cooler.json"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("no-such-model.gguf") && e.contains("models/fetch"),
        "{e}"
    );
    assert_eq!(listed(&m), stored);
}

#[test]
fn the_command_line_remembers_recalls_lists_and_refuses_bad_input() {
    let dir = tempdir().unwrap();
    let conv =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/temperature.json");
    let v = json_output(
        glovebox_on(dir.path())
            .args(["--json", "remember", "--user", "ann", "--conversation"])
            .arg(&conv),
    );
    assert_eq!(
        v["remembered"][0]["preference"]["category"], "Preferred Temperature",
        "{v}"
    );
    assert_eq!(v["remembered"][0]["operation"], "append");

    let out = glovebox_on(dir.path())
        .args([
            "--json",
            "recall",
            "--user",
            "ann",
            "--k",
            "3",
            "can you make it warmer in here",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["recalled"][0]["category_key"], "preferred_temperature",
        "{v}"
    );

    let out = glovebox_on(dir.path())
        .args(["prefs", "list", "--user", "ann"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("Preferred Temperature"));

    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "[{\"role\": \"driver\", \"text\": \"hi\"}]").unwrap();
    let out = glovebox_on(dir.path())
        .args(["remember", "--user", "ann", "--conversation"])
        .arg(&bad)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown role \"driver\""));

    let out = glovebox_on(dir.path())
        .args(["optout", "--user", "ann", "--category", "Horoscopes"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown category"));

    // A file that cannot be read is named, and why said once (not again as its source).
    let why = std::fs::read("/no/such/file").unwrap_err().to_string();
    for args in [
        vec![
            "--config",
            "/no/such/glovebox.toml",
            "prefs",
            "list",
            "--user",
            "ann",
        ],
        vec!["eval", "cases", "--data", "/no/such/cases.jsonl"],
    ] {
        let out = glovebox_on(dir.path()).args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains("/no/such/"), "{err}");
        assert_eq!(err.matches(&why).count(), 1, "{err}");
    }

    let out = glovebox_on(dir.path())
        .args(["--json", "prefs", "list", "--user", "ann"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["preferences"].as_array().unwrap().len(), 1);
}
