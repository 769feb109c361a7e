//! `glovebox eval gate`: trains the preference gate (`memory::gate`) on the development data
//! and reports it cross-validated: fit on some folds of users and dialogues, measured on the
//! others. With `--write`, the gate fitted on all of the data is saved for shipping.
//!
//! Labels come from the data, never from hand-written cases (`tests/cases` only measure):
//! * positive: the user sentence of a CarMem extraction conversation that names the
//!   conversation's ground-truth value (the sentence that reveals the preference);
//! * negative: the other user sentences of those conversations (what else a driver says around
//!   a preference), CarMem's later requests (`next_conversation_question`: "Find me a place to
//!   eat"), and every driver sentence of the KVRET dialogues (weather, schedule and navigation
//!   requests, as people really talk to a car); with `--labels` (`gate/labels.rs`), also the
//!   revealing sentences an annotator read as one-off requests, not lasting preferences.
//!
//! A conversation whose value no single sentence names is left out (its label is not certain).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::{json, Value};

use super::fit::{fit, fit_mlp};
use crate::conversation::{split_sentences, Conversation};
use crate::memory::gate::{read, Gate, FORMAT};
use crate::memory::values::named_values;
use crate::memory::Models;
use crate::schema::Schema;

use super::carmem::{EvalError, EvalUser};

mod labels;
mod measure;
mod others;
mod spoken;
mod statements;
mod vehicle;
pub use labels::read_labels;
pub use measure::measure;
pub use others::Others;
use spoken::{is_spoken, spoken_copies, spoken_turns};
pub use statements::{contrast_samples, statement_samples};
pub use vehicle::{run_vehicle, vehicle_samples, vmb_samples, DEV_FILES, VEHICLE_STEP};

/// Where a sentence comes from (for the report).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// The CarMem sentence that reveals the preference.
    CarmemPreference,
    /// Another user sentence of a CarMem extraction conversation.
    CarmemOther,
    /// A CarMem retrieval request.
    CarmemRequest,
    /// A CarMem sentence naming the ground-truth value that the labels (`--labels`) call a
    /// one-off request, not a lasting preference.
    CarmemLabelledRequest,
    /// A KVRET driver sentence, with the dialogue's intent.
    Kvret(Intent),
    /// A line of a VehicleMemBench household chat.
    Vmb,
    /// A sentence a VehicleMemBench question's gold memory quotes or narrates: a vehicle
    /// preference said.
    VmbPreference,
    /// One of the schema's example statements of how drivers state a preference
    /// (`Detail::says`, `--statements`): a lasting preference in a driver's words, written
    /// from the schema alone.
    SchemaStatement,
    /// A contrast of the example statements (`--contrasts`): the same topics, no lasting
    /// preference of the speaker's.
    SchemaContrast,
}

/// KVRET's task intents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Intent {
    Weather,
    Schedule,
    Navigate,
}

impl Intent {
    fn parse(s: &str) -> Option<Intent> {
        match s {
            "weather" => Some(Intent::Weather),
            "schedule" => Some(Intent::Schedule),
            "navigate" => Some(Intent::Navigate),
            _ => None,
        }
    }
    fn name(self) -> &'static str {
        match self {
            Intent::Weather => "weather",
            Intent::Schedule => "schedule",
            Intent::Navigate => "navigate",
        }
    }
}

/// One labelled sentence. `unit` groups the sentences of one conversation (a KVRET dialogue,
/// a CarMem conversation or request); `group` is what folds are drawn by (a CarMem user, a
/// KVRET dialogue), so one user's sentences are never on both sides of a split.
#[derive(Debug, Clone)]
pub struct Sample {
    pub text: String,
    pub positive: bool,
    pub source: Source,
    pub unit: String,
    pub group: String,
}

/// The labelled sentences of the CarMem users.
///
/// A revealing sentence that `requests` holds (labelled a one-off request: [`read_labels`]) is
/// a negative instead ([`Source::CarmemLabelledRequest`]).
pub fn carmem_samples(
    schema: &Schema,
    users: &[EvalUser],
    requests: &HashSet<String>,
    spoken: bool,
) -> Vec<Sample> {
    let mut out = Vec::new();
    for u in users {
        for e in &u.entries {
            let start = out.len();
            let sentences = e.conversation.user_sentences();
            let names: Vec<bool> = sentences
                .iter()
                .map(|s| {
                    named_values(schema, e.detail, std::slice::from_ref(s))
                        .iter()
                        .any(|v| v.eq_ignore_ascii_case(&e.attribute))
                })
                .collect();
            if names.iter().any(|&n| n) {
                for (s, n) in sentences.into_iter().zip(names) {
                    let request = n && requests.contains(&s);
                    out.push(Sample {
                        positive: n && !request,
                        source: match (n, request) {
                            (true, false) => Source::CarmemPreference,
                            (true, true) => Source::CarmemLabelledRequest,
                            (false, _) => Source::CarmemOther,
                        },
                        text: s,
                        unit: e.id.clone(),
                        group: u.id.clone(),
                    });
                }
            }
            if spoken {
                let copies = spoken_copies(&out[start..], e.conversation.turns());
                out.extend(copies);
            }
            let start = out.len();
            for s in split_sentences(&e.next_question) {
                out.push(Sample {
                    text: s,
                    positive: false,
                    source: Source::CarmemRequest,
                    unit: format!("{}/request", e.id),
                    group: u.id.clone(),
                });
            }
            if spoken {
                let copies = spoken_turns(&[&out[start..]]);
                out.extend(copies);
            }
        }
    }
    out
}

/// The driver sentences of a KVRET file (all negative), each dialogue its own group; with
/// `spoken`, each driver turn also as a recogniser writes it (`spoken`).
pub fn kvret_samples(path: &Path, spoken: bool) -> Result<Vec<Sample>, EvalError> {
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|error| EvalError::Read {
        path: origin.clone(),
        error,
    })?;
    let dialogues = kvret_dialogues(&text, &origin)?;
    let mut out = Vec::new();
    for (i, intent, conv) in dialogues {
        let start = out.len();
        for s in conv.user_sentences() {
            out.push(Sample {
                text: s,
                positive: false,
                source: Source::Kvret(intent),
                unit: format!("kvret-{i}"),
                group: format!("kvret-{i}"),
            });
        }
        if spoken {
            let copies = spoken_copies(&out[start..], conv.turns());
            out.extend(copies);
        }
    }
    Ok(out)
}

/// Reads KVRET JSON: each dialogue's index in the file, intent and turns as a conversation
/// (driver = user). Empty utterances are skipped; a dialogue without a driver turn is left out.
pub fn kvret_dialogues(
    text: &str,
    origin: &str,
) -> Result<Vec<(usize, Intent, Conversation)>, EvalError> {
    let bad = |line: usize, problem: String| EvalError::Data {
        path: origin.to_string(),
        line,
        problem,
    };
    let v: Value = serde_json::from_str(text).map_err(|e| bad(0, e.to_string()))?;
    let list = v
        .as_array()
        .ok_or_else(|| bad(0, "expected a JSON list of dialogues".into()))?;
    let mut out = Vec::new();
    for (i, d) in list.iter().enumerate() {
        let intent = d
            .pointer("/scenario/task/intent")
            .and_then(Value::as_str)
            .and_then(Intent::parse)
            .ok_or_else(|| {
                bad(
                    i + 1,
                    "dialogue without a known scenario.task.intent".into(),
                )
            })?;
        let mut turns = Vec::new();
        for t in d
            .get("dialogue")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let who = t.get("turn").and_then(Value::as_str).unwrap_or("");
            let text = t
                .pointer("/data/utterance")
                .and_then(Value::as_str)
                .unwrap_or("")
                .trim();
            if text.is_empty() {
                continue;
            }
            let role = if who == "driver" { "user" } else { "assistant" };
            turns.push(json!({"role": role, "text": text}));
        }
        if !turns.iter().any(|t| t["role"] == "user") {
            continue;
        }
        let conv = Conversation::from_value(&Value::Array(turns))
            .map_err(|e| bad(i + 1, e.to_string()))?;
        out.push((i, intent, conv));
    }
    Ok(out)
}

/// How a gate is fitted: cross-validation folds (below 2: none), the threshold it ships with,
/// hidden units (0: logistic regression), and what it reads beside the sentence's embedding
/// (`memory::gate::read`): word buckets (0: none) and the embedder layer whose pooling it reads.
#[derive(Debug, Clone, Copy)]
pub struct Fit {
    pub folds: usize,
    pub threshold: f32,
    pub hidden: usize,
    pub words: usize,
    pub layer: Option<usize>,
    /// Whether CarMem's other user sentences are fitted as negatives or left unlabelled.
    pub others: Others,
    /// Whether each CarMem and KVRET user turn is also fitted on as a speech recogniser writes
    /// it (`spoken`; the report measures the spoken turns apart).
    pub spoken: bool,
    /// Whether the schema's example statements (`Detail::says`) are fitted on as positives
    /// ([`statement_samples`]; measured apart, by detail: `statement_kept`).
    pub statements: bool,
}

/// What a gate fitted with `fit` reads of each sample (`memory::gate::read`), embedded anew.
pub fn readings(
    models: &Models,
    samples: &[Sample],
    fit: &Fit,
) -> Result<Vec<Vec<f32>>, EvalError> {
    let embedded =
        models.embed_tapped(samples.iter().map(|s| s.text.clone()).collect(), fit.layer)?;
    Ok(embedded
        .iter()
        .zip(samples)
        .map(|((v, tap), s)| read(v, tap, &s.text, fit.words))
        .collect())
}

/// Fits the gate: logistic regression (`hidden` = 0) or a one-hidden-layer network.
pub fn fit_gate(xs: &[Vec<f32>], ys: &[bool], hidden: usize, threshold: f32) -> Gate {
    let (hidden_w, hidden_bias, weights, bias) = if hidden == 0 {
        let (w, b) = fit(xs, ys, L2, STEPS);
        (Vec::new(), Vec::new(), w, b)
    } else {
        fit_mlp(xs, ys, hidden, L2, MLP_STEPS, 0x5EED)
    };
    Gate {
        format: FORMAT.to_string(),
        embedder: "all-MiniLM-L6-v2".into(),
        threshold,
        hidden: hidden_w,
        hidden_bias,
        bias,
        weights,
        words: 0,
        layer: None,
        about: Value::Null,
    }
}

/// Every how many lines of a VehicleMemBench history the training takes.
pub const VMB_STEP: usize = 20;

/// Adam steps of the network fit.
pub const MLP_STEPS: usize = 400;

/// Regularisation and steps of the shipped fit (chosen once, not tuned per fold).
pub const L2: f32 = 1e-4;
pub const STEPS: usize = 600;

/// Each sample's fold: groups are dealt to folds in order of first appearance.
fn folds_of(samples: &[Sample], k: usize) -> Vec<usize> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    samples
        .iter()
        .map(|s| {
            let next = seen.len();
            *seen.entry(s.group.as_str()).or_insert(next) % k
        })
        .collect()
}

/// Held-out probabilities: each sample scored by the gate fitted on the other folds' samples
/// that `others` fits on.
pub fn cross_validated(
    xs: &[Vec<f32>],
    samples: &[Sample],
    k: usize,
    (hidden, others): (usize, Others),
) -> Vec<f32> {
    let folds = folds_of(samples, k);
    let mut probs = vec![0.0f32; xs.len()];
    for f in 0..k {
        let (tx, ty) = fitted_on(xs, samples, others, |i| folds[i] != f);
        let gate = fit_gate(&tx, &ty, hidden, 0.5);
        for i in (0..xs.len()).filter(|&i| folds[i] == f) {
            probs[i] = gate.probability_of(&xs[i]);
        }
    }
    probs
}

/// The readings and labels a fit learns from: the samples `keep` takes (by index) that
/// `others` fits on.
fn fitted_on(
    xs: &[Vec<f32>],
    samples: &[Sample],
    others: Others,
    keep: impl Fn(usize) -> bool,
) -> (Vec<Vec<f32>>, Vec<bool>) {
    xs.iter()
        .zip(samples)
        .enumerate()
        .filter(|&(i, (_, s))| keep(i) && others.fits(s))
        .map(|(_, (x, s))| (x.clone(), s.positive))
        .unzip()
}

/// Thresholds the report shows (the shipped one among them).
pub const THRESHOLDS: [f32; 5] = [0.3, 0.5, 0.7, 0.8, 0.9];

/// Trains and cross-validates the gate (with `labels`, CarMem's revealing sentences labelled
/// requests are negatives: [`read_labels`]); returns the report, and the gate fitted on all
/// data with `threshold`.
pub fn run(
    models: &Models,
    users: &[EvalUser],
    kvret: &Path,
    (vmb, vmb_qa): (Option<&Path>, Option<&Path>),
    (labels, contrasts): (Option<&Path>, Option<&Path>),
    fit: Fit,
    mut rows: Option<&mut dyn std::io::Write>,
) -> Result<(Value, Gate), EvalError> {
    let requests = labels.map(read_labels).transpose()?.unwrap_or_default();
    let mut samples = carmem_samples(models.schema(), users, &requests, fit.spoken);
    samples.extend(kvret_samples(kvret, fit.spoken)?);
    if fit.statements {
        samples.extend(statement_samples(models.schema()));
    }
    if let Some(path) = contrasts {
        samples.extend(contrast_samples(models.schema(), path, labels.is_some())?);
    }
    match (vmb, vmb_qa) {
        (Some(history), Some(qa)) => {
            let files: Vec<usize> = DEV_FILES.collect();
            samples.extend(vehicle_samples(history, qa, &files, VMB_STEP, None)?);
        }
        (Some(dir), None) => samples.extend(vmb_samples(dir, VMB_STEP)?),
        _ => {}
    }
    let xs = readings(models, &samples, &fit)?;
    let (probs, report, gate) = train(
        &xs,
        &samples,
        fit,
        json!({"contrasts": contrasts.is_some()}),
        (
            "glovebox eval gate",
            &data(labels.is_some(), contrasts.is_some(), fit),
        ),
    );
    if let Some(w) = rows.as_mut().filter(|_| !probs.is_empty()) {
        for (smp, p) in samples.iter().zip(&probs) {
            let row = json!({"text": smp.text, "positive": smp.positive, "source": format!("{:?}", smp.source), "unit": smp.unit, "probability": p});
            writeln!(w, "{row}").map_err(EvalError::Write)?;
        }
    }
    Ok((report, gate))
}

/// What `eval gate` trains on, for the gate's `about`.
fn data(
    labels: bool,
    contrasts: bool,
    Fit {
        others,
        spoken,
        statements,
        ..
    }: Fit,
) -> String {
    let positives = if labels {
        "the sentence naming the ground-truth value, unless the labels call it a one-off request"
    } else {
        "the sentence naming the ground-truth value"
    };
    let mut negatives = Vec::new();
    if labels {
        negatives.push("those requests");
    }
    if others == Others::Negative {
        negatives.push("the other user sentences");
    }
    negatives.push("the retrieval requests");
    let left_out = match others {
        Others::Negative => "",
        Others::Unlabelled => "; the other user sentences are not fitted on",
    };
    let negatives = negatives.join(", ") + left_out;
    let spoken = if spoken {
        "; each user turn also as a speech recogniser writes it (no marks, lower case)"
    } else {
        ""
    };
    let statements = match (statements, contrasts) {
        (true, true) => "; the schema's example statements as positives, their contrasts as negatives (requests to the car only with the labels)",
        (true, false) => "; the schema's example statements as positives",
        (false, true) => "; the example statements' contrasts as negatives",
        (false, false) => "",
    };
    format!("CarMem dev split (positives: {positives}; negatives: {negatives}) and KVRET dev driver sentences{spoken}{statements}")
}

/// Cross-validates a gate on labelled sentences (`folds` below 2 skips it: scripts that fold the
/// data themselves) and fits it on all of them: the held-out probabilities, the report (what
/// `report` already holds, plus the counts and the measures per threshold) and the gate, whose
/// `about` names `trained_by` and `data`.
pub fn train(
    xs: &[Vec<f32>],
    samples: &[Sample],
    fit: Fit,
    mut report: Value,
    (trained_by, data): (&str, &str),
) -> (Vec<f32>, Value, Gate) {
    let Fit {
        folds,
        threshold,
        hidden,
        words,
        layer,
        others,
        spoken,
        statements,
    } = fit;
    let probs = if folds >= 2 {
        cross_validated(xs, samples, folds, (hidden, others))
    } else {
        Vec::new()
    };
    let positive = samples.iter().filter(|s| s.positive).count();
    // Written and spoken conversations measured apart (without spoken copies, all written).
    let measured = |want_spoken: bool| {
        let (s, p): (Vec<Sample>, Vec<f32>) = samples
            .iter()
            .zip(&probs)
            .filter(|(s, _)| is_spoken(s) == want_spoken)
            .map(|(s, p)| (s.clone(), *p))
            .unzip();
        if s.is_empty() {
            return Value::Null;
        }
        THRESHOLDS
            .iter()
            .map(|&t| measure(&s, &p, t))
            .collect::<Value>()
    };
    let measures = measured(false);
    for (k, v) in [
        ("sentences", json!(samples.len())),
        ("positive", json!(positive)),
        ("folds", json!(folds)),
        ("hidden", json!(hidden)),
        ("words", json!(words)),
        ("layer", json!(layer)),
        ("others", json!(others.name())),
        ("cross_validated", measures),
        ("spoken", json!(spoken)),
        ("statements", json!(statements)),
        ("shipped_threshold", json!(threshold)),
    ] {
        report[k] = v;
    }
    if spoken {
        report["cross_validated_spoken"] = measured(true);
    }
    let (fx, ys) = fitted_on(xs, samples, others, |_| true);
    let mut gate = fit_gate(&fx, &ys, hidden, threshold);
    gate.words = words;
    gate.layer = layer;
    gate.about = json!({
        "trained_by": trained_by,
        "data": data,
        "l2": L2, "steps": if hidden == 0 { STEPS } else { MLP_STEPS },
        "report": report.clone(),
    });
    (probs, report, gate)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::gate::sigmoid;

    #[test]
    fn fit_separates_separable_points() {
        let xs = vec![
            vec![1.0, 0.0],
            vec![0.9, 0.1],
            vec![0.0, 1.0],
            vec![0.1, 0.9],
            vec![0.2, 0.8],
        ];
        let ys = vec![true, true, false, false, false];
        let (w, b) = fit(&xs, &ys, 1e-4, 300);
        for (x, y) in xs.iter().zip(&ys) {
            let p = sigmoid(b + w[0] * x[0] + w[1] * x[1]);
            assert_eq!(p >= 0.5, *y, "{x:?} -> {p}");
        }
    }

    #[test]
    fn the_network_learns_what_a_line_cannot() {
        // XOR-like: positive when exactly one coordinate is high.
        let xs = vec![
            vec![1.0, 0.0],
            vec![0.0, 1.0],
            vec![1.0, 1.0],
            vec![0.0, 0.0],
        ];
        let ys = vec![true, true, false, false];
        let g = fit_gate(&xs, &ys, 8, 0.5);
        for (x, y) in xs.iter().zip(&ys) {
            assert_eq!(g.probability_of(x) >= 0.5, *y, "{x:?}");
        }
    }

    #[test]
    fn a_group_stays_in_one_fold() {
        let s = |g: &str| Sample {
            text: String::new(),
            positive: false,
            source: Source::CarmemRequest,
            unit: g.into(),
            group: g.into(),
        };
        let samples = vec![s("a"), s("b"), s("a"), s("c"), s("b")];
        let f = folds_of(&samples, 2);
        assert_eq!(f[0], f[2]);
        assert_eq!(f[1], f[4]);
        assert_ne!(f[0], f[1]);
    }
}
