//! `glovebox eval polarity --fit`: the refusal model (`memory::refusal`: does this sentence
//! turn down what it names?) fitted on CarMem's maintenance questions and reported
//! cross-validated by user; with `--write`, the model fitted on all of them is saved for
//! shipping (`config/refusal.json`).
//!
//! Labels come from the data, never from hand-written cases: a `negate` question turns its
//! entry's value down (positive), an `equal` question says it again (negative); both are
//! requests about the same values, so what tells them apart is the polarity, not how a request
//! is said. The user sentences of the extraction conversations that name the entry's value
//! (as the preference gate's positives: they reveal it, liked) are negatives too: fitted on
//! the questions alone, the model read 9 % of them as refusals at its threshold
//! (cross-validated), since drivers say a liking with negative words ("no meat for me, I'm
//! vegetarian") that requests rarely hold. Folds are drawn by user.

use serde_json::{json, Value};

use super::carmem::{EvalError, EvalUser};
use super::gate::fit_gate;
use crate::memory::gate::{read, Gate};
use crate::memory::values::named_values;
use crate::memory::{values, Models};
use crate::schema::Schema;

/// What the shipped refusal model reads beside a sentence's embedding: the pooling after the
/// preference gate's layer (one embedder pass gives both) and its words in this many buckets.
pub const WORDS: usize = 4096;

/// The shipped threshold: the lowest of [`THRESHOLDS`] at which the cross-validated model
/// turns down at most 1 % of the `equal` questions (a liked value stored turned down is a
/// false memory too).
pub const THRESHOLD: f32 = 0.9;

/// Thresholds the report shows.
pub const THRESHOLDS: [f32; 6] = [0.5, 0.7, 0.8, 0.9, 0.95, 0.98];

/// Probabilities below which the report shows the rule's refusals left liked (a reading the
/// runtime does not use: it changed no row of the CarMem dev runs, docs/results.md).
pub const VETOES: [f32; 4] = [0.02, 0.05, 0.1, 0.2];

/// A threshold as the report shows it (two decimals, not the `f32`'s binary tail).
fn shown(t: f32) -> f64 {
    (f64::from(t) * 100.0).round() / 100.0
}

/// One labelled sentence: a maintenance question, or (`said`) the sentence of an extraction
/// conversation that reveals the entry's value, liked.
struct Sample {
    text: String,
    value: String,
    refuses: bool,
    said: bool,
    group: usize,
}

fn samples(schema: &Schema, users: &[EvalUser]) -> Vec<Sample> {
    let mut out = Vec::new();
    for (g, u) in users.iter().enumerate() {
        for e in &u.entries {
            for (text, refuses) in [(&e.equal, false), (&e.negate, true)] {
                out.push(Sample {
                    text: text.clone(),
                    value: e.attribute.clone(),
                    refuses,
                    said: false,
                    group: g,
                });
            }
            for s in e.conversation.user_sentences() {
                let names = named_values(schema, e.detail, std::slice::from_ref(&s))
                    .iter()
                    .any(|v| v.eq_ignore_ascii_case(&e.attribute));
                if names {
                    out.push(Sample {
                        text: s,
                        value: e.attribute.clone(),
                        refuses: false,
                        said: true,
                        group: g,
                    });
                }
            }
        }
    }
    out
}

/// Fits the refusal model on every `equal` and `negate` question of `users` and the sentences
/// that reveal their values, reading the embedder's pooling after `layer` (the preference
/// gate's) and [`WORDS`] word buckets; reports it cross-validated over `folds` folds of users
/// (below 2: no report), beside the negation rule ([`values::turns_down`]) alone and the rule
/// or the model. Returns the report and the model fitted on all of them, with [`THRESHOLD`].
pub fn run(
    models: &Models,
    users: &[EvalUser],
    folds: usize,
    layer: Option<usize>,
) -> Result<(Value, Gate), EvalError> {
    let samples = samples(models.schema(), users);
    let embedded = models.embed_tapped(samples.iter().map(|s| s.text.clone()).collect(), layer)?;
    let xs: Vec<Vec<f32>> = embedded
        .iter()
        .zip(&samples)
        .map(|((v, tap), s)| read(v, tap, &s.text, WORDS))
        .collect();
    let ys: Vec<bool> = samples.iter().map(|s| s.refuses).collect();
    let shipped = |xs: &[Vec<f32>], ys: &[bool]| {
        let mut g = fit_gate(xs, ys, 0, THRESHOLD);
        g.words = WORDS;
        g.layer = layer;
        g
    };
    let said = samples.iter().filter(|s| s.said).count();
    let counts = json!({"questions": samples.len() - said, "revealing_sentences": said});
    let mut report = json!({"fitted_on": counts, "folds": folds, "words": WORDS,
        "layer": layer, "threshold": shown(THRESHOLD)});
    if folds >= 2 {
        let mut probs = vec![0.0f32; xs.len()];
        for f in 0..folds {
            let (tx, ty): (Vec<Vec<f32>>, Vec<bool>) = xs
                .iter()
                .zip(&samples)
                .filter(|(_, s)| s.group % folds != f)
                .map(|(x, s)| (x.clone(), s.refuses))
                .unzip();
            let g = shipped(&tx, &ty);
            for (i, s) in samples.iter().enumerate() {
                if s.group % folds == f {
                    probs[i] = g.probability_of(&xs[i]);
                }
            }
        }
        let rule: Vec<bool> = samples
            .iter()
            .map(|s| values::turns_down(&s.text, &s.value))
            .collect();
        // The share of one kind of question (`negate` or `equal`; or with `said`, the revealing
        // sentences) turned down by `says`.
        let kind = |refuses: bool, said: bool| {
            (0..samples.len())
                .filter(|&i| samples[i].refuses == refuses && samples[i].said == said)
                .collect::<Vec<usize>>()
        };
        let share_of = |of: Vec<usize>, says: &dyn Fn(usize) -> bool| {
            super::cases::ratio(of.iter().filter(|&&i| says(i)).count(), of.len())
        };
        let said = |says: &dyn Fn(usize) -> bool| share_of(kind(false, true), says);
        let share =
            |refuses: bool, says: &dyn Fn(usize) -> bool| share_of(kind(refuses, false), says);
        let by_threshold: Vec<Value> = THRESHOLDS
            .iter()
            .map(|&t| {
                let model = |i: usize| probs[i] >= t;
                let either = |i: usize| probs[i] >= t || rule[i];
                json!({"threshold": shown(t),
                    "model": {"negate": share(true, &model), "equal": share(false, &model),
                        "said": said(&model)},
                    "rule_or_model": {"negate": share(true, &either), "equal": share(false, &either),
                        "said": said(&either)}})
            })
            .collect();
        let r = |i: usize| rule[i];
        // The rule's refusals the model reads as liking (below `t`) left liked.
        let vetoes: Vec<Value> = VETOES
            .iter()
            .map(|&t| {
                let kept = |i: usize| rule[i] && probs[i] >= t;
                json!({"below": shown(t), "negate": share(true, &kept),
                    "equal": share(false, &kept), "said": said(&kept)})
            })
            .collect();
        report["cross_validated"] = json!({
            "rule": {"negate": share(true, &r), "equal": share(false, &r), "said": said(&r)},
            "by_threshold": by_threshold,
            "rule_unless_model_below": vetoes,
        });
    }
    let mut model = shipped(&xs, &ys);
    model.about = json!({"fitted_on": "CarMem maintenance questions (negate refuses, equal does not) and the user sentences revealing their values (liked), by glovebox eval polarity --fit",
        "counts": report["fitted_on"], "cross_validated": report.get("cross_validated")});
    Ok((report, model))
}
