//! Issue 12: the command line and the socket share one dispatch. The same requests go through
//! `glovebox --json ...` and through a real `glovebox serve`, each on its own fresh memory, and
//! must answer the same JSON (times and the data directory aside).

use std::path::Path;

use serde_json::{json, Value};
use tempfile::tempdir;

use crate::common::glovebox_on;
use crate::serve::{start, Client};

/// `glovebox --json <args>` on `data`: its JSON on success, else `{"error": <message>}` (the
/// last line of stderr; log lines may come before it).
fn cli(data: &Path, args: &[&str]) -> Value {
    let out = glovebox_on(data)
        .arg("--json")
        .args(args)
        .output()
        .expect("glovebox runs");
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let last = stderr.trim().lines().last().unwrap_or_default();
        return json!({ "error": last.trim_start_matches("glovebox: ") });
    }
    serde_json::from_slice(&out.stdout).expect("one JSON object on stdout")
}

/// The socket's answer: its result on success, else `{"error": <message>}`.
fn socket(c: &mut Client, id: u64, mut request: Value) -> Value {
    request["id"] = id.into();
    let r = c.call(request);
    assert_eq!(r["id"], id, "{r}");
    match r.get("ok") {
        Some(ok) => ok.clone(),
        None => json!({ "error": r["error"]["message"] }),
    }
}

/// Drops what legitimately differs between two memories: times and the data directory; and
/// rounds scores and confidences, which two processes may sum in a different order.
fn normalise(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|k, _| !k.ends_with("_ms") && k != "data_dir");
            m.values_mut().for_each(normalise);
        }
        Value::Array(a) => a.iter_mut().for_each(normalise),
        Value::Number(n) if n.is_f64() => {
            let x = n.as_f64().unwrap();
            *v = json!((x * 1e4).round() / 1e4);
        }
        _ => {}
    }
}

#[test]
fn the_command_line_and_the_socket_answer_the_same_json() {
    let tmp = tempdir().unwrap();
    let cli_data = tmp.path().join("cli");
    let server = start(&tmp, "");
    let mut c = Client::connect(&server.socket);
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/conversations");
    let conversation = |name: &str| -> (String, Value) {
        let p = examples.join(name);
        let v = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        (p.display().to_string(), v)
    };
    let (climate_file, climate) = conversation("climate.json");
    let (music_file, music) = conversation("music.json");
    let export_file = tmp.path().join("ann.json");
    let export_path = export_file.display().to_string();

    // (command line, socket request) pairs, run in this order on both sides.
    let steps: Vec<(Vec<&str>, Value)> = vec![
        (
            vec!["remember", "--user", "ann", "--conversation", &climate_file],
            json!({"op": "remember", "user": "ann", "conversation": climate}),
        ),
        (
            vec!["remember", "--user", "ann", "--conversation", &music_file],
            json!({"op": "remember", "user": "ann", "conversation": music}),
        ),
        (
            vec![
                "recall",
                "--user",
                "ann",
                "--k",
                "2",
                "It's freezing in here.",
            ],
            json!({"op": "recall", "user": "ann", "text": "It's freezing in here.", "k": 2}),
        ),
        (
            vec![
                "recall",
                "--user",
                "ann",
                "Play something relaxing for the ride.",
            ],
            json!({"op": "recall", "user": "ann", "text": "Play something relaxing for the ride."}),
        ),
        (
            vec!["recall", "--user", "ann", "--k", "0", "hi"],
            json!({"op": "recall", "user": "ann", "text": "hi", "k": 0}),
        ),
        (
            vec!["prefs", "list", "--user", "ann"],
            json!({"op": "list", "user": "ann"}),
        ),
        (
            vec!["prefs", "history", "--user", "ann"],
            json!({"op": "history", "user": "ann"}),
        ),
        (
            vec!["prefs", "export", "--user", "ann"],
            json!({"op": "export", "user": "ann"}),
        ),
        (
            vec!["optout", "--user", "ann", "--category", "Horoscopes"],
            json!({"op": "optout", "user": "ann", "category": "Horoscopes"}),
        ),
        (
            vec![
                "optout",
                "--user",
                "ann",
                "--category",
                "Radio and Podcasts",
            ],
            json!({"op": "optout", "user": "ann", "category": "Radio and Podcasts"}),
        ),
        (
            vec!["optin", "--user", "ann", "--category", "radio_and_podcasts"],
            json!({"op": "optin", "user": "ann", "category": "radio_and_podcasts"}),
        ),
        (
            vec!["prefs", "confirm", "--user", "ann", "--id", "1"],
            json!({"op": "confirm", "user": "ann", "preference_id": 1}),
        ),
        (
            vec!["prefs", "forget", "--user", "ann", "--id", "1"],
            json!({"op": "forget", "user": "ann", "preference_id": 1}),
        ),
        (
            vec!["prefs", "forget", "--user", "ann", "--id", "1"],
            json!({"op": "forget", "user": "ann", "preference_id": 1}),
        ),
        (
            vec!["prefs", "forget", "--user", "ann", "--all"],
            json!({"op": "forget", "user": "ann", "all": true}),
        ),
        (
            vec!["prefs", "list", "--user", "ann"],
            json!({"op": "list", "user": "ann"}),
        ),
        (vec!["status"], json!({"op": "status"})),
    ];
    let mut exported = Value::Null;
    for (i, (args, request)) in steps.into_iter().enumerate() {
        let mut by_cli = cli(&cli_data, &args);
        let mut by_socket = socket(&mut c, i as u64 + 1, request);
        if args.starts_with(&["prefs", "export"]) {
            exported = by_cli.clone();
        }
        normalise(&mut by_cli);
        normalise(&mut by_socket);
        assert_eq!(by_cli, by_socket, "{args:?}");
    }

    // What was exported imports back on the command line (import is local-only).
    assert!(
        exported["preferences"]
            .as_array()
            .is_some_and(|p| !p.is_empty()),
        "{exported}"
    );
    std::fs::write(&export_file, exported.to_string()).unwrap();
    let imported = cli(
        &cli_data,
        &["prefs", "import", "--user", "bob", "--file", &export_path],
    );
    assert_eq!(
        imported["imported"],
        exported["preferences"].as_array().unwrap().len()
    );
    let r = c.call(json!({"id": 99, "op": "import", "user": "bob", "document": exported}));
    assert_eq!(r["error"]["code"], "unknown_op", "{r}");
}
