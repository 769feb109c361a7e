//! Issue 3: `glovebox eval carmem` end to end with the real models on one user.

use std::path::Path;

use serde_json::Value;

use crate::common::{glovebox, json_output};

fn shares_in_unit_interval(v: &Value, path: &str, skip: &[&str]) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                // Maintenance's "n" is a count; retrieval's "n" is a share.
                let count = k == "n" && path.starts_with(".maintenance");
                if !skip.contains(&k.as_str()) && !count {
                    shares_in_unit_interval(x, &format!("{path}.{k}"), skip);
                }
            }
        }
        Value::Number(n) => {
            let x = n.as_f64().unwrap();
            assert!((0.0..=1.0).contains(&x), "{path} = {x} is not a share");
        }
        _ => {}
    }
}

#[test]
fn eval_carmem_one_user_reports_every_table() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/carmem_one_user.jsonl");
    let rows = tempfile::NamedTempFile::new().unwrap();
    let r = json_output(
        glovebox()
            .args(["--json", "eval", "carmem", "--users", "1", "--data"])
            .arg(&data)
            .arg("--out")
            .arg(rows.path()),
    );
    let x = &r["extraction_in_schema"];
    for level in ["main", "sub", "detail"] {
        for k in ["precision", "recall", "f1"] {
            assert!(x[level][k].is_number(), "{level}.{k} missing: {r}");
        }
    }
    for k in ["none", "one", "two_plus", "valid_output"] {
        assert!(x[k].is_number(), "{k}");
    }
    assert_eq!(x["conversations"], 10);
    // The confirmation table: without a threshold it is the extraction table; with one, some
    // preferences would be pending.
    let thresholds = r["confirmation"]["thresholds"].as_array().unwrap();
    assert_eq!(thresholds[0]["confirm_below"], 0.0);
    assert_eq!(thresholds[0]["detail"], x["detail"], "{r}");
    assert_eq!(thresholds[0]["pending_share"], 0.0);
    for row in thresholds {
        for k in [
            "pending_share",
            "pending_wrong_share",
            "precision_after_answers",
        ] {
            let v = row[k].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&v), "{k} = {v}");
        }
    }
    let strict = thresholds.last().unwrap();
    assert!(
        strict["pending_share"].as_f64().unwrap()
            >= thresholds[1]["pending_share"].as_f64().unwrap()
    );
    assert_eq!(r["extraction_out_of_schema"]["conversations"], 10);
    for kind in ["MP", "MNP"] {
        for q in ["equal", "negate", "different"] {
            for k in ["pass", "update", "append", "n"] {
                assert!(
                    r["maintenance"][kind][q][k].is_number(),
                    "maintenance.{kind}.{q}.{k}"
                );
            }
        }
    }
    assert!(r["maintenance"]["redundant_reduction"].is_number());
    assert!(r["maintenance"]["contradictory_reduction"].is_number());
    for kind in ["enriched", "sentence_only"] {
        for k in ["n", "n+1", "n+2"] {
            assert!(r["retrieval"][kind][k].is_number());
        }
    }
    assert_eq!(r["retrieval"]["queries"], 10);
    // Recall's relevance gate, reported leave-users-out (one user: no other fold to fit on, so
    // the figures are there but not meaningful; the dev split's are in docs/results.md).
    let gate = &r["retrieval"]["gate"];
    assert_eq!(gate["related_queries"], 10, "{gate}");
    assert!(gate["by_threshold"].as_array().unwrap().len() >= 3);
    assert!(r["extraction_in_schema"]["value_accuracy"].is_number());
    for k in [
        "extract_ms_p50",
        "extract_ms_p95",
        "maintain_ms_p50",
        "recall_ms_p50",
        "recall_ms_p95",
        "total_s",
    ] {
        assert!(r["timing"][k].is_number(), "timing.{k}");
    }
    assert!(r["models"]["llm"].is_string() && r["models"]["embedder"].is_string());
    shares_in_unit_interval(
        &r,
        "",
        &[
            "timing",
            "conversations",
            "queries",
            "models",
            "related_returned_mean",
            "related_queries",
            "unrelated_queries",
            "extra_requests",
            "folds",
            "confusions",
            "schema_details",
        ],
    );
    let lines = std::fs::read_to_string(rows.path()).unwrap();
    let kinds: Vec<String> = lines
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["kind"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(kinds.iter().filter(|k| *k == "extraction").count(), 10);
    assert_eq!(kinds.iter().filter(|k| *k == "retrieval").count(), 10);
}

#[test]
fn eval_offers_fits_a_model_the_runtime_loads_and_reports_it_held_out() {
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases.jsonl");
    let line = |id: &str, text: &str, expect: &str, tag: &str| {
        format!(
            r#"{{"id": "{id}", "conversation": [{{"role": "user", "text": "{text}"}}], "expect": [{expect}], "tag": "{tag}"}}"#
        )
    };
    let mut lines = Vec::new();
    for i in 0..6 {
        lines.push(line(
            &format!("likes-{i}"),
            "I always keep the cabin at 22 degrees, that's the temperature I like.",
            r#"{"category": "preferred_temperature"}"#,
            "single",
        ));
        lines.push(line(
            &format!("none-{i}"),
            "What's the weather going to be like in Fresno tomorrow?",
            "",
            "weather",
        ));
    }
    std::fs::write(&cases, lines.join("\n")).unwrap();
    let model = dir.path().join("offer.json");
    let r = json_output(
        glovebox()
            .args(["--json", "eval", "offers", "--cases"])
            .arg(&cases)
            .arg("--write")
            .arg(&model),
    );
    assert!(r["samples"].as_u64().unwrap() >= 6, "{r}");
    assert_eq!(r["by_threshold"].as_array().unwrap().len(), 11);
    for set in ["single", "out-of-schema"] {
        assert!(r["nested"]["sets"][set]["cases"].is_number(), "{set}: {r}");
    }
    shares_in_unit_interval(&r["by_threshold"], "", &["threshold", "cases"]);
    let m = glovebox::memory::offer::OfferModel::load(&model).unwrap();
    assert!((0.0..=1.0).contains(&m.threshold));
    assert_eq!(
        m.weights.len(),
        glovebox::memory::offer::FEATURES,
        "a weight per feature"
    );
    // Fitted beside that decision, it keeps what that one offers where nothing may be stored
    // off its own bound (sets that expect something spend nothing).
    let offers = |beside: &Path| {
        glovebox()
            .args(["--json", "eval", "offers", "--cases"])
            .arg(&cases)
            .arg("--beside")
            .arg(beside)
            .output()
            .unwrap()
    };
    let out = offers(&model);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let b: Value = serde_json::from_slice(&out.stdout).unwrap();
    let spent = &b["beside_spent"];
    assert_eq!(
        spent["out-of-schema"], r["nested"]["sets"]["out-of-schema"]["offering"],
        "{b}"
    );
    assert!(spent.get("single").is_none(), "{b}");
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"threshold\": 0.5}").unwrap();
    let out = offers(&bad);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("bad.json") && err.contains("nested"),
        "{err}"
    );
}

#[test]
fn eval_explain_shows_gate_offer_one_off_gate_refusal_and_best_categories_per_sentence() {
    let conv = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/conversations/climate.json");
    let r = json_output(
        glovebox()
            .args(["--json", "eval", "explain", "--top", "2", "--conversation"])
            .arg(&conv),
    );
    let lines = r.as_array().unwrap();
    assert!(!lines.is_empty(), "{r}");
    for l in lines {
        assert_eq!(l["best"].as_array().unwrap().len(), 2, "{l}");
        let passes = l["passes"].as_bool().unwrap();
        // The offer decision is read only for sentences the gate passes.
        assert_eq!(l["offer"].is_number(), passes, "{l}");
        // The one-off gate (the lasting track is on by default) reads every sentence.
        let lasting = l["lasting"]
            .as_f64()
            .expect("the one-off gate's probability");
        assert!((0.0..=1.0).contains(&lasting), "{l}");
        // So does the refusal model (on by default).
        let refusal = l["refusal"]
            .as_f64()
            .expect("the refusal model's probability");
        assert!((0.0..=1.0).contains(&refusal), "{l}");
        // The lasting track's offer decision, where its gate passes the sentence.
        if let Some(p) = l["lasting_offer"].as_f64() {
            assert!((0.0..=1.0).contains(&p) && lasting >= 0.5, "{l}");
        }
    }
    // Under the vehicle configuration, whose gate reads no layer, the refusal model (which
    // reads layer 3) is read from an embedder pass of its own.
    let vehicle = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/glovebox-vehicle.toml");
    let v = json_output(
        glovebox()
            .arg("--config")
            .arg(&vehicle)
            .args(["--json", "eval", "explain", "--conversation"])
            .arg(&conv),
    );
    for l in v.as_array().unwrap() {
        let refusal = l["refusal"]
            .as_f64()
            .expect("the refusal model's probability");
        assert!((0.0..=1.0).contains(&refusal), "{l}");
        // It has no lasting track.
        assert!(
            l["lasting"].is_null() && l["lasting_offer"].is_null(),
            "{l}"
        );
    }
    let stated = lines
        .iter()
        .find(|l| l["sentence"].as_str().unwrap().contains("always like"))
        .expect("the preference sentence");
    assert!(stated["passes"].as_bool().unwrap(), "{stated}");
    assert_eq!(stated["best"][0][0], "preferred_temperature", "{stated}");
    assert!(stated["lasting_offer"].is_number(), "{stated}");
}

/// A KVRET-shaped file in `dir` of one dialogue per `(intent, driver utterance)`, each answered
/// "Sure.": driver requests, the gate's negatives.
fn kvret_file(dir: &Path, dialogues: &[(&str, &str)]) -> std::path::PathBuf {
    let list: Vec<Value> = dialogues
        .iter()
        .map(|(intent, text)| {
            serde_json::json!({"scenario": {"task": {"intent": intent}},
                "dialogue": [{"turn": "driver", "data": {"utterance": text}},
                             {"turn": "assistant", "data": {"utterance": "Sure."}}]})
        })
        .collect();
    let path = dir.join("kvret.json");
    std::fs::write(&path, Value::Array(list).to_string()).unwrap();
    path
}

#[test]
fn eval_gate_fits_a_gate_that_reads_a_layer_and_the_runtime_uses_it() {
    let dir = tempfile::tempdir().unwrap();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/carmem_one_user.jsonl");
    // Two KVRET-shaped dialogues: driver requests, all negatives.
    let kvret = kvret_file(
        dir.path(),
        &[
            ("weather", "What will the weather in Fresno be tomorrow?"),
            ("navigate", "Where is the closest grocery store?"),
        ],
    );
    let gate_file = dir.path().join("gate.json");
    let gate_run = |layer: &str| {
        glovebox()
            .args([
                "--json", "eval", "gate", "--hidden", "0", "--folds", "0", "--carmem",
            ])
            .arg(&data)
            .arg("--kvret")
            .arg(&kvret)
            .args(["--layer", layer, "--write"])
            .arg(&gate_file)
            .output()
            .unwrap()
    };
    // MiniLM has six layers: the hidden states after a seventh do not exist.
    let bad = gate_run("6");
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("6 layers") && err.contains("not after 6"),
        "{err}"
    );
    assert!(!gate_file.exists(), "a refused fit writes no gate");

    let ok = gate_run("3");
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let r: Value = serde_json::from_slice(&ok.stdout).unwrap();
    assert_eq!(r["layer"], 3, "{r}");
    let dim = glovebox::embed::EMBED_DIM;
    let gate = glovebox::memory::gate::Gate::load(Some(&gate_file), dim).unwrap();
    assert_eq!(gate.layer, Some(3));
    assert_eq!(gate.weights.len(), 2 * dim);

    // The runtime reads the same layer: extraction under this gate scores a sentence as the
    // gate does from the sentence's embedding and its pooling after layer 3.
    let mut cfg = crate::common::config();
    cfg.extraction.gate = Some(gate_file.clone());
    let models = glovebox::memory::Models::load(&cfg).unwrap();
    let text = "I always keep the cabin at 22 degrees, that's the temperature I like.";
    let conv = glovebox::conversation::Conversation::from_value(&serde_json::json!([
        {"role": "user", "text": text}, {"role": "assistant", "text": "Noted."}]))
    .unwrap();
    let seen = models.explain(&conv, None, 1).unwrap();
    assert_eq!(seen.len(), 1);
    let (v, tap) = models
        .embed_tapped(vec![text.to_string()], Some(3))
        .unwrap()
        .pop()
        .unwrap();
    assert_eq!(tap.len(), dim);
    let direct = gate.probability(&v, &tap, text);
    assert!(
        (seen[0].gate - direct).abs() < 1e-5,
        "{} vs {direct}",
        seen[0].gate
    );
    // Without the layer's pooling the same weights read something else.
    assert!((gate.probability_of(&[v.clone(), vec![0.0; dim]].concat()) - direct).abs() > 1e-6);
}

/// `glovebox --json eval gate` on the one-user CarMem fixture and `kvret` with `folds` folds:
/// logistic regression on the embedding alone.
fn eval_gate_on_one_user(kvret: &Path, folds: &str) -> std::process::Command {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/carmem_one_user.jsonl");
    let mut c = glovebox();
    c.args([
        "--json", "eval", "gate", "--hidden", "0", "--folds", folds, "--layer", "none", "--carmem",
    ]);
    c.arg(data).arg("--kvret").arg(kvret);
    c
}

#[test]
fn eval_gate_reads_labels_that_make_a_revealing_request_a_negative() {
    let dir = tempfile::tempdir().unwrap();
    let kvret = kvret_file(dir.path(), &[("weather", "Will it rain in Fresno?")]);
    let labels = dir.path().join("labels.jsonl");
    let run = |labels: Option<&Path>| {
        let mut c = eval_gate_on_one_user(&kvret, "0");
        if let Some(l) = labels {
            c.arg("--labels").arg(l);
        }
        c.output().unwrap()
    };
    let plain: Value = serde_json::from_slice(&run(None).stdout).unwrap();

    // The sentence that names the first conversation's value ("expensive") is labelled a
    // request: one positive fewer, the same sentences; a labelled sentence the data does not
    // hold changes nothing.
    let line =
        |text: &str, label: &str| serde_json::json!({"text": text, "label": label}).to_string();
    std::fs::write(
        &labels,
        [
            line(
                "No specific cuisine, but I prefer something on the expensive side.",
                "request",
            ),
            line("Some sentence the data does not hold.", "request"),
            line("Another one.", "lasting"),
        ]
        .join("\n"),
    )
    .unwrap();
    let out = run(Some(&labels));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["sentences"], plain["sentences"], "{r}");
    assert_eq!(
        r["positive"].as_u64().unwrap() + 1,
        plain["positive"].as_u64().unwrap(),
        "{r} {plain}"
    );

    // A label that is neither is refused with its line.
    std::fs::write(
        &labels,
        format!("{}\n{}\n", line("a", "request"), line("b", "often")),
    )
    .unwrap();
    let bad = run(Some(&labels));
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("labels.jsonl, line 2") && err.contains("often"),
        "{err}"
    );
}

#[test]
fn eval_polarity_reports_each_question_kind_and_writes_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/carmem_one_user.jsonl");
    let rows = dir.path().join("rows.jsonl");
    let r = json_output(
        glovebox()
            .args(["--json", "eval", "polarity", "--carmem"])
            .arg(&data)
            .arg("--out")
            .arg(&rows),
    );
    let lines = std::fs::read_to_string(&rows).unwrap();
    let named = |k: &str| r[k]["named"].as_u64().unwrap();
    // One row per question that names its value, each saying which kind it is.
    assert_eq!(
        lines.lines().count() as u64,
        named("equal") + named("negate")
    );
    assert!(named("equal") > 0, "{r}");
    for l in lines.lines() {
        let row: Value = serde_json::from_str(l).unwrap();
        assert!(
            row["turns_down"].is_boolean() && row["rule"].is_boolean(),
            "{row}"
        );
    }
    // A question that says the value again is not stored turned down.
    assert_eq!(r["equal"]["stored_turned_down"], 0.0, "{r}");

    // A file that is not CarMem's is refused with its name.
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"data\": 3}\n").unwrap();
    let out = glovebox()
        .args(["eval", "polarity", "--carmem"])
        .arg(&bad)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.jsonl"));
}

#[test]
fn eval_gate_spoken_fits_each_turn_also_as_a_recogniser_writes_it() {
    let dir = tempfile::tempdir().unwrap();
    let kvret = kvret_file(dir.path(), &[("weather", "Will it rain in Fresno?")]);
    let gate_file = dir.path().join("gate.json");
    let run = |spoken: bool| {
        let mut c = eval_gate_on_one_user(&kvret, "2");
        if spoken {
            c.arg("--spoken").arg("--write").arg(&gate_file);
        }
        let out = c.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let plain = run(false);
    let spoken = run(true);
    assert_eq!(
        (plain["spoken"].as_bool(), spoken["spoken"].as_bool()),
        (Some(false), Some(true))
    );
    // Every written turn has capitals or marks, so each gives one spoken sample more; each
    // revealing sentence's turn is one more positive.
    let n = |r: &Value, k: &str| r[k].as_u64().unwrap();
    assert!(n(&spoken, "sentences") > n(&plain, "sentences"), "{spoken}");
    assert!(n(&spoken, "positive") > n(&plain, "positive"), "{spoken}");
    assert!(
        n(&spoken, "positive") <= 2 * n(&plain, "positive"),
        "{spoken}"
    );
    // Written and spoken conversations are measured apart.
    assert!(plain.get("cross_validated_spoken").is_none(), "{plain}");
    assert!(spoken["cross_validated_spoken"].is_array(), "{spoken}");
    assert!(spoken["cross_validated"].is_array(), "{spoken}");
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&gate_file).unwrap()).unwrap();
    assert!(
        written["about"]["data"]
            .as_str()
            .unwrap()
            .contains("speech recogniser"),
        "{written}"
    );
}
