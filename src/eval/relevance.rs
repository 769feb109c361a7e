//! Recall's relevance gate in `eval carmem`: fitted on the development users and reported
//! leave-users-out (`memory::relevance` is the runtime side).
//!
//! Every retrieval request of a user is ranked against the user's ten stored ground-truth
//! preferences; a preference is relevant to it when it is in the request's ground-truth
//! subcategory (what today's top-n metric looks for). With `--unrelated`, utterances that no
//! preference serves (each driver turn of the KVRET weather and schedule dialogues, users taken
//! in turn) are ranked too, every preference irrelevant. The model is fitted on some folds of
//! users and measured on the others; the gate's figures are those held-out measurements.

use serde_json::{json, Value};

use super::fit::fit_plain;
use crate::memory::gate::sigmoid;
use crate::memory::relevance::{Relevance, FEATURES, FORMAT};
use crate::memory::Recalled;

/// One ranked candidate of one query.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub features: [f32; FEATURES],
    pub relevant: bool,
    /// The query's own ground-truth preference.
    pub truth: bool,
}

/// One query of the gate's measurement, its candidates in ranking order.
#[derive(Debug, Clone)]
pub struct Query {
    pub user: usize,
    pub related: bool,
    pub candidates: Vec<Candidate>,
}

impl Query {
    /// From a ranking (`Memory::rank`, whose features it reuses); `relevant` says which
    /// preferences the query needs.
    pub fn new(
        user: usize,
        related: bool,
        ranked: &[Recalled],
        relevant: impl Fn(&Recalled) -> (bool, bool),
    ) -> Query {
        let candidates = ranked
            .iter()
            .map(|r| {
                let (relevant, truth) = relevant(r);
                Candidate {
                    features: r.features,
                    relevant,
                    truth,
                }
            })
            .collect();
        Query {
            user,
            related,
            candidates,
        }
    }
}

/// Folds of users the model is fitted and measured on.
pub const FOLDS: usize = 5;

/// Per query and candidate, the probability from the model fitted without the query's fold.
pub fn cross_validated(queries: &[Query]) -> Vec<Vec<f32>> {
    let mut probs: Vec<Vec<f32>> = queries
        .iter()
        .map(|q| vec![0.0; q.candidates.len()])
        .collect();
    for f in 0..FOLDS {
        let (w, b) = fit(queries.iter().filter(|q| q.user % FOLDS != f));
        for (q, p) in queries.iter().zip(&mut probs) {
            if q.user % FOLDS == f {
                for (c, pi) in q.candidates.iter().zip(p.iter_mut()) {
                    *pi = prob(&w, b, &c.features);
                }
            }
        }
    }
    probs
}

fn prob(w: &[f32], b: f32, f: &[f32; FEATURES]) -> f32 {
    sigmoid(b + w.iter().zip(f).map(|(a, x)| a * x).sum::<f32>())
}

/// Plain (not class-balanced) logistic regression: the output is a calibrated probability.
fn fit<'a>(queries: impl Iterator<Item = &'a Query>) -> (Vec<f32>, f32) {
    let (xs, ys): (Vec<Vec<f32>>, Vec<bool>) = queries
        .flat_map(|q| q.candidates.iter())
        .map(|c| (c.features.to_vec(), c.relevant))
        .unzip();
    fit_plain(&xs, &ys, 1e-4, 800)
}

/// The gate's figures at one threshold, over the queries with their probabilities: a query
/// returns its candidates at or above the threshold, at most `k`, in ranking order.
pub fn measure(queries: &[Query], probs: &[Vec<f32>], threshold: f32, k: usize) -> Value {
    let (mut related, mut found, mut returned, mut unrelated, mut silent) = (0, 0, 0, 0, 0);
    for (q, p) in queries.iter().zip(probs) {
        let back: Vec<&Candidate> = q
            .candidates
            .iter()
            .zip(p)
            .filter(|(_, &pi)| pi >= threshold)
            .map(|(c, _)| c)
            .take(k)
            .collect();
        if q.related {
            related += 1;
            found += usize::from(back.iter().any(|c| c.truth));
            returned += back.len();
        } else {
            unrelated += 1;
            silent += usize::from(back.is_empty());
        }
    }
    let r = |a: usize, b: usize| {
        if b == 0 {
            Value::Null
        } else {
            json!((a as f64 / b as f64 * 1000.0).round() / 1000.0)
        }
    };
    json!({
        "threshold": threshold,
        "related_found": r(found, related),
        "related_returned_mean": r(returned, related),
        "unrelated_silent": r(silent, unrelated),
        "related_queries": related,
        "unrelated_queries": unrelated,
    })
}

/// Thresholds the report shows.
pub const THRESHOLDS: [f32; 6] = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7];

/// The report's `retrieval.gate`: the held-out figures at the threshold in force, and at the
/// others for comparison.
pub fn report(queries: &[Query], threshold: f32, k: usize) -> Value {
    let probs = cross_validated(queries);
    let mut at = measure(queries, &probs, threshold, k);
    at["folds"] = json!(FOLDS);
    at["by_threshold"] = THRESHOLDS
        .iter()
        .map(|&t| measure(queries, &probs, t, k))
        .collect();
    at
}

/// The model fitted on every query, with `threshold`.
pub fn fit_all(queries: &[Query], threshold: f32, k: usize) -> Relevance {
    let (weights, bias) = fit(queries.iter());
    Relevance {
        format: FORMAT.into(),
        threshold,
        weights,
        bias,
        about: json!({
            "trained_by": "glovebox eval carmem --write-relevance",
            "features": ["cosine", "log prior of the subcategory", "score minus the best score"],
            "cross_validated": report(queries, threshold, k),
        }),
    }
}

/// Reads unrelated utterances: from KVRET JSON, each driver turn of the weather and schedule
/// dialogues (a dialogue's navigation turns may well need a stored preference); otherwise one
/// utterance per non-empty line.
pub fn load_unrelated(path: &std::path::Path) -> Result<Vec<String>, super::carmem::EvalError> {
    use super::gate::{kvret_dialogues, Intent};
    use crate::conversation::Role;
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| super::carmem::EvalError::Read {
        path: origin.clone(),
        source,
    })?;
    if text.trim_start().starts_with('[') {
        let mut out = Vec::new();
        for (_, intent, conv) in kvret_dialogues(&text, &origin)? {
            if intent == Intent::Navigate {
                continue;
            }
            out.extend(
                conv.turns()
                    .iter()
                    .filter(|t| t.role == Role::User)
                    .map(|t| t.text.clone()),
            );
        }
        return Ok(out);
    }
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect())
}
