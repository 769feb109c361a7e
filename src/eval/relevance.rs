//! Recall's relevance gate in `eval carmem`: fitted on the development users and reported
//! leave-users-out (`memory::relevance` is the runtime side).
//!
//! Every retrieval request of a user is ranked against the user's ten stored ground-truth
//! preferences; a preference is relevant to it when it is in the request's ground-truth
//! subcategory (what today's top-n metric looks for). With `--unrelated`, utterances that no
//! preference serves (each driver turn of the KVRET weather and schedule dialogues, users taken
//! in turn) are ranked too, every preference irrelevant. The model is fitted on some folds of
//! users and measured on the others; the gate's figures are those held-out measurements.
//!
//! The need model (is the utterance a request a preference can serve at all?) is fitted inside
//! each fold too: on the training folds' related requests (and the extra requests of
//! `--requests`, folded by file) against their unrelated utterances. The relevance regression
//! of a fold reads need values that are themselves held out (an inner cross-validation over the
//! training folds), as it will at run time on utterances the need model never saw.

use serde_json::{json, Value};

use super::fit::fit_plain;
use crate::memory::gate::sigmoid;
use crate::memory::relevance::{need_logit, Relevance, FEATURES, FORMAT};
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
    /// The utterance's embedding (the need model's input).
    pub vector: Vec<f32>,
    pub candidates: Vec<Candidate>,
}

/// A request known to need a stored preference, from outside the CarMem users (the quoted
/// words of a VehicleMemBench question): a positive of the need model only, in fold `fold`.
#[derive(Debug, Clone)]
pub struct Extra {
    pub vector: Vec<f32>,
    pub fold: usize,
}

/// Index of the need feature in [`FEATURES`].
const NEED: usize = FEATURES - 1;

impl Query {
    /// From a ranking (`Memory::rank`, whose features it reuses); `relevant` says which
    /// preferences the query needs.
    pub fn new(
        user: usize,
        related: bool,
        vector: Vec<f32>,
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
            vector,
            candidates,
        }
    }
}

/// Folds of users the model is fitted and measured on.
pub const FOLDS: usize = 5;

/// Per query and candidate, the probability from the models (need and relevance) fitted
/// without the query's fold.
pub fn cross_validated(queries: &[Query], extra: &[Extra]) -> Vec<Vec<f32>> {
    let mut probs: Vec<Vec<f32>> = queries
        .iter()
        .map(|q| vec![0.0; q.candidates.len()])
        .collect();
    for f in 0..FOLDS {
        let train = |fold: usize| fold != f;
        let inner = held_out_need(queries, extra, train);
        let (w, b) = fit_relevance(
            queries
                .iter()
                .zip(&inner)
                .filter(|(q, _)| train(q.user % FOLDS))
                .map(|(q, n)| (q, *n)),
        );
        let (nw, nb) = fit_need(queries, extra, train);
        for (q, p) in queries.iter().zip(&mut probs) {
            if q.user % FOLDS == f {
                let need = need_logit(&nw, nb, &q.vector);
                for (c, pi) in q.candidates.iter().zip(p.iter_mut()) {
                    *pi = prob(&w, b, &with_need(&c.features, need));
                }
            }
        }
    }
    probs
}

/// Per query, its need log-odds from a need model fitted on the folds `within` allows but its
/// own (queries outside `within` get 0 and are not used).
fn held_out_need(queries: &[Query], extra: &[Extra], within: impl Fn(usize) -> bool) -> Vec<f32> {
    let mut need = vec![0.0; queries.len()];
    for g in (0..FOLDS).filter(|&g| within(g)) {
        let (w, b) = fit_need(queries, extra, |fold| within(fold) && fold != g);
        for (q, n) in queries.iter().zip(&mut need) {
            if q.user % FOLDS == g {
                *n = need_logit(&w, b, &q.vector);
            }
        }
    }
    need
}

/// The need model on the folds `train` allows: related requests and extras against unrelated
/// utterances (class-balanced logistic regression on the embedding).
fn fit_need(queries: &[Query], extra: &[Extra], train: impl Fn(usize) -> bool) -> (Vec<f32>, f32) {
    let (xs, ys): (Vec<Vec<f32>>, Vec<bool>) = queries
        .iter()
        .filter(|q| train(q.user % FOLDS))
        .map(|q| (q.vector.clone(), q.related))
        .chain(
            extra
                .iter()
                .filter(|e| train(e.fold % FOLDS))
                .map(|e| (e.vector.clone(), true)),
        )
        .unzip();
    super::fit::fit(&xs, &ys, NEED_L2, NEED_STEPS)
}

/// The need model's regularisation and steps.
const NEED_L2: f32 = 1e-3;
const NEED_STEPS: usize = 400;

fn with_need(f: &[f32; FEATURES], need: f32) -> [f32; FEATURES] {
    let mut f = *f;
    f[NEED] = need;
    f
}

fn prob(w: &[f32], b: f32, f: &[f32; FEATURES]) -> f32 {
    sigmoid(b + w.iter().zip(f).map(|(a, x)| a * x).sum::<f32>())
}

/// Plain (not class-balanced) logistic regression on every candidate of the queries, each with
/// the query's need: the output is a calibrated probability.
fn fit_relevance<'a>(queries: impl Iterator<Item = (&'a Query, f32)>) -> (Vec<f32>, f32) {
    let (xs, ys): (Vec<Vec<f32>>, Vec<bool>) = queries
        .flat_map(|(q, need)| q.candidates.iter().map(move |c| (c, need)))
        .map(|(c, need)| (with_need(&c.features, need).to_vec(), c.relevant))
        .unzip();
    fit_plain(&xs, &ys, 1e-4, 800)
}

/// A gate setting: the probability floor and the share of the best candidate's probability a
/// returned candidate needs ([`Relevance::floor`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cut {
    pub threshold: f32,
    pub relative: f32,
}

/// What one setting gives over some queries: counts, so folds add up.
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    related: usize,
    found: usize,
    returned: usize,
    unrelated: usize,
    silent: usize,
}

impl Tally {
    fn add(&mut self, o: Tally) {
        self.related += o.related;
        self.found += o.found;
        self.returned += o.returned;
        self.unrelated += o.unrelated;
        self.silent += o.silent;
    }

    fn rate(a: usize, b: usize) -> Option<f64> {
        (b > 0).then(|| a as f64 / b as f64)
    }

    /// Within the bounds: at most [`MAX_RETURNED`] returned for a related request on
    /// average, at least [`MIN_SILENT`] of unrelated utterances silent.
    fn within_bounds(&self) -> bool {
        Tally::rate(self.returned, self.related).is_none_or(|r| r <= MAX_RETURNED)
            && Tally::rate(self.silent, self.unrelated).is_none_or(|s| s >= MIN_SILENT)
    }

    fn json(&self, cut: Cut) -> Value {
        let r = |a: usize, b: usize| match Tally::rate(a, b) {
            None => Value::Null,
            Some(x) => json!((x * 1000.0).round() / 1000.0),
        };
        json!({
            "threshold": cut.threshold,
            "relative": cut.relative,
            "related_found": r(self.found, self.related),
            "related_returned_mean": r(self.returned, self.related),
            "unrelated_silent": r(self.silent, self.unrelated),
            "related_queries": self.related,
            "unrelated_queries": self.unrelated,
        })
    }
}

/// The bounds a chosen setting keeps on the queries it is chosen on.
const MAX_RETURNED: f64 = 2.0;
const MIN_SILENT: f64 = 0.9;

/// The gate's counts at one setting over the queries `which` admits: a query returns its
/// candidates at or above the floor, at most `k`, in ranking order.
fn tally(
    queries: &[Query],
    probs: &[Vec<f32>],
    cut: Cut,
    k: usize,
    which: impl Fn(&Query) -> bool,
) -> Tally {
    let mut t = Tally::default();
    for (q, p) in queries.iter().zip(probs).filter(|(q, _)| which(q)) {
        let best = p.iter().copied().fold(0.0, f32::max);
        let min = cut.threshold.max(cut.relative * best);
        let back: Vec<&Candidate> = q
            .candidates
            .iter()
            .zip(p)
            .filter(|(_, &pi)| pi >= min)
            .map(|(c, _)| c)
            .take(k)
            .collect();
        if q.related {
            t.related += 1;
            t.found += usize::from(back.iter().any(|c| c.truth));
            t.returned += back.len();
        } else {
            t.unrelated += 1;
            t.silent += usize::from(back.is_empty());
        }
    }
    t
}

/// The gate's figures at one setting over all the queries.
pub fn measure(queries: &[Query], probs: &[Vec<f32>], cut: Cut, k: usize) -> Value {
    tally(queries, probs, cut, k, |_| true).json(cut)
}

/// Probability floors and relative shares the report shows and the choice searches.
pub const THRESHOLDS: [f32; 8] = [0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7];
pub const RELATIVES: [f32; 7] = [0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7];

/// Every setting of the grid, finest threshold first.
fn grid() -> impl Iterator<Item = Cut> {
    THRESHOLDS.iter().flat_map(|&threshold| {
        RELATIVES.iter().map(move |&relative| Cut {
            threshold,
            relative,
        })
    })
}

/// The setting the rule chooses on the queries `which` admits: within the bounds (at most
/// [`MAX_RETURNED`] returned per related request, at least [`MIN_SILENT`] of unrelated
/// utterances silent), the one that finds the most related requests' preferences, fewer
/// returned breaking a tie; with no setting within the bounds, the strictest. (Preferring the
/// quietest setting among those finding at least 95 % was tried: chosen on four folds it found
/// only .94 on the fifth.)
fn choose(
    queries: &[Query],
    probs: &[Vec<f32>],
    k: usize,
    which: impl Fn(&Query) -> bool + Copy,
) -> Cut {
    let mut best: Option<(Cut, Tally)> = None;
    for cut in grid() {
        let t = tally(queries, probs, cut, k, which);
        if !t.within_bounds() {
            continue;
        }
        let better = best.is_none_or(|(_, b)| {
            (t.found, std::cmp::Reverse(t.returned)) > (b.found, std::cmp::Reverse(b.returned))
        });
        if better {
            best = Some((cut, t));
        }
    }
    best.map(|(c, _)| c).unwrap_or(Cut {
        threshold: THRESHOLDS[THRESHOLDS.len() - 1],
        relative: RELATIVES[RELATIVES.len() - 1],
    })
}

/// The choice itself cross-validated: for each fold, the setting chosen on the other folds'
/// held-out probabilities, measured on that fold; the counts of all folds added.
fn nested(queries: &[Query], probs: &[Vec<f32>], k: usize) -> Value {
    let mut total = Tally::default();
    let mut chosen = Vec::new();
    for f in 0..FOLDS {
        let cut = choose(queries, probs, k, |q| q.user % FOLDS != f);
        total.add(tally(queries, probs, cut, k, |q| q.user % FOLDS == f));
        chosen.push(json!({"threshold": cut.threshold, "relative": cut.relative}));
    }
    let mut v = total.json(Cut {
        threshold: f32::NAN,
        relative: f32::NAN,
    });
    let o = v.as_object_mut().expect("an object");
    o.remove("threshold");
    o.remove("relative");
    o.insert("chosen_per_fold".into(), json!(chosen));
    v
}

/// The report's `retrieval.gate`: the held-out figures at the setting in force, at the others
/// of the grid for comparison, and the choice of setting cross-validated (`nested`).
pub fn report(queries: &[Query], extra: &[Extra], cut: Cut, k: usize) -> Value {
    let probs = cross_validated(queries, extra);
    let mut at = measure(queries, &probs, cut, k);
    at["folds"] = json!(FOLDS);
    at["extra_requests"] = json!(extra.len());
    at["by_threshold"] = grid().map(|c| measure(queries, &probs, c, k)).collect();
    at["nested"] = nested(queries, &probs, k);
    at
}

/// The models fitted on every query (the relevance regression on held-out need values, as in
/// [`cross_validated`]), with the setting the rule chooses on every query's held-out
/// probabilities (the rule's own held-out figures are the report's `nested`).
pub fn fit_all(queries: &[Query], extra: &[Extra], k: usize) -> Relevance {
    let need = held_out_need(queries, extra, |_| true);
    let (weights, bias) = fit_relevance(queries.iter().zip(need));
    let (need_weights, need_bias) = fit_need(queries, extra, |_| true);
    let probs = cross_validated(queries, extra);
    let cut = choose(queries, &probs, k, |_| true);
    Relevance {
        format: FORMAT.into(),
        threshold: cut.threshold,
        relative: cut.relative,
        weights,
        bias,
        need_weights,
        need_bias,
        about: json!({
            "trained_by": "glovebox eval carmem --data ../shared/carmem/dev.jsonl --unrelated ../shared/kvret/dev.json --requests ../shared/vehiclemembench/qa --requests config/vehicle-examples.jsonl --write-relevance config/relevance.json",
            "features": ["cosine", "log prior of the subcategory", "score minus the best score", "cosine to the nearest labelled request of the subcategory", "need log-odds of the utterance"],
            "need": "class-balanced logistic regression on the utterance embedding: the users' requests, conversation turns, maintenance questions and few-shot requests and the --requests (VehicleMemBench dev questions' quoted words, labelled lines) against the unrelated utterances (KVRET dev weather and schedule driver turns)",
            "setting": "threshold and relative floor, on the held-out probabilities: the most related requests found with at most 2 returned per related request and at least 90 % of unrelated utterances silent (the choice cross-validated: cross_validated.nested)",
            "cross_validated": report(queries, extra, cut, k),
        }),
    }
}

/// Requests known to need a stored preference, for the need model: from a folder of
/// VehicleMemBench `qa_N.json` files, the quoted words of each question (fold: N); from a file,
/// one per non-empty line (fold: the line's number), or a labelled example's `sentence` (fold:
/// the number its `source` ends with, `vmb-7` → 7).
pub fn load_requests(
    path: &std::path::Path,
) -> Result<Vec<(String, usize)>, super::carmem::EvalError> {
    use super::carmem::EvalError;
    let read = |p: &std::path::Path| {
        std::fs::read_to_string(p).map_err(|error| EvalError::Read {
            path: p.display().to_string(),
            error,
        })
    };
    if !path.is_dir() {
        // A labelled examples file (JSON lines with `sentence` and `source`, such as
        // config/vehicle-examples.jsonl) is folded by the number in its source.
        return Ok(read(path)?
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .enumerate()
            .map(|(i, l)| match serde_json::from_str::<Value>(l) {
                Ok(v) if v["sentence"].is_string() => {
                    let fold = v["source"]
                        .as_str()
                        .and_then(|s| s.rsplit(|c: char| !c.is_ascii_digit()).next())
                        .and_then(|d| d.parse().ok())
                        .unwrap_or(i);
                    (v["sentence"].as_str().unwrap_or_default().to_string(), fold)
                }
                _ => (l.to_string(), i),
            })
            .collect());
    }
    let mut out = Vec::new();
    let mut n = 1;
    loop {
        let p = path.join(format!("qa_{n}.json"));
        if !p.exists() {
            break;
        }
        for q in super::vmb::load_questions(&p)? {
            if let Some(words) = quoted(&q.query) {
                out.push((words, n));
            }
        }
        n += 1;
    }
    if out.is_empty() {
        return Err(EvalError::Data {
            path: path.display().to_string(),
            line: 0,
            problem: "no qa_N.json file with a quoted request".into(),
        });
    }
    Ok(out)
}

/// The words between the first `: '` and the last `'` (what the person says in a
/// VehicleMemBench question).
fn quoted(text: &str) -> Option<String> {
    let start = text.find(": '")? + 3;
    let end = text.rfind('\'')?;
    (end > start).then(|| text[start..end].trim().to_string())
}

/// Reads unrelated utterances: from KVRET JSON, each driver turn of the weather and schedule
/// dialogues (a dialogue's navigation turns may well need a stored preference); otherwise one
/// utterance per non-empty line.
pub fn load_unrelated(path: &std::path::Path) -> Result<Vec<String>, super::carmem::EvalError> {
    use super::gate::{kvret_dialogues, Intent};
    use crate::conversation::Role;
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|error| super::carmem::EvalError::Read {
        path: origin.clone(),
        error,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_words_are_what_the_person_says() {
        assert_eq!(
            quoted("At 10:00 PM, Justin told the car: 'It's too bright for night driving. '"),
            Some("It's too bright for night driving.".into())
        );
        assert_eq!(quoted("No words here."), None);
    }
}
