//! `glovebox eval offers`: fits the offer decision (`memory::offer`) on test cases with known
//! answers and reports it cross-validated: fitted on four folds, measured on the fifth.
//!
//! Every sentence that passes the preference gate and whose best category is allowed and
//! similar enough is one sample, with the features the runtime computes
//! (`memory::offer::features`). Its label comes from the case: true when its best category is
//! one the case expects (at the level the expectation names), false otherwise. A case with no
//! expectation (a KVRET dialogue) gives only negatives. A case expecting one category also
//! gives an out-of-schema variant, as CarMem's protocol defines it: that category's whole
//! subcategory is opted out, so every offer is wrong (what keeps a weaker sentence from
//! offering a neighbour of an opted-out topic).
//!
//! Cases whose id starts with a UUID (a CarMem user: `scripts/carmem-pairs` writes
//! `<user_uuid>-1+2`) are folded by it, so one user's singles and pairs fall in one fold;
//! other cases by their whole id. Labels come from the data files given, never from
//! `tests/cases` (they only measure).

use serde_json::{json, Value};

use super::cases::Case;
use super::fit::fit_plain;
use crate::memory::extract::{best_category, strongest};
use crate::memory::offer::{self, OfferModel, FEATURES, FORMAT};
use crate::memory::{Models, OfferInputs};
use crate::schema::{CategoryRef, DetailSet, Schema};

/// Folds the model is fitted and measured on.
pub const FOLDS: usize = 5;

/// Thresholds the report shows and the choice searches.
pub const THRESHOLDS: [f32; 11] = [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8];

/// The bound on offers where nothing may be stored, at any chosen threshold: out-of-schema
/// variants and cases with no expectation (CarMem's target: out-of-schema none ≥ 95 %).
const MAX_FALSE_OFFERS: f64 = 0.05;

/// One candidate sentence of one case.
#[derive(Debug, Clone)]
struct Sample {
    features: [f32; FEATURES],
    /// Its best category is one the case expects.
    right: bool,
    /// Its best category (a detail), for deduplication within the case.
    detail: usize,
}

/// One case (or out-of-schema variant) as the fitter sees it.
#[derive(Debug, Clone)]
struct Item {
    /// The case's tag (`carmem-single`, `carmem-pair`, `navigate`, ...) or `out-of-schema`.
    set: String,
    fold: usize,
    /// Expected categories; empty: nothing may be offered.
    expect: Vec<CategoryRef>,
    samples: Vec<Sample>,
}

/// The fold of a case by its id.
fn fold_of(id: &str) -> usize {
    let uuid_like = id.len() >= 36
        && id[..36].chars().enumerate().all(|(i, c)| {
            matches!(i, 8 | 13 | 18 | 23) == (c == '-') && (c == '-' || c.is_ascii_hexdigit())
        });
    let key = if uuid_like { &id[..36] } else { id };
    (xxhash_rust::xxh3::xxh3_64(key.as_bytes()) % FOLDS as u64) as usize
}

fn matches(schema: &Schema, e: CategoryRef, detail: usize) -> bool {
    let d = &schema.details()[detail];
    match e {
        CategoryRef::Detail(x) => d.id == x,
        CategoryRef::Sub(s) => d.sub == s,
    }
}

/// The samples of one conversation under `allowed`, labelled against `expect` (`None`: every
/// sample is wrong).
fn samples(
    schema: &Schema,
    (sentences, (gate, passes, scores)): &(Vec<String>, OfferInputs),
    allowed: &DetailSet,
    min_similarity: f32,
    expect: Option<&[CategoryRef]>,
) -> Vec<Sample> {
    // The same candidates `extract::offers` judges, with the same features.
    let conv_top = strongest(scores, passes);
    let mut out = Vec::new();
    let said = |si: usize| sentences.get(si).map_or("", String::as_str);
    for (si, ((row, &g), _)) in scores
        .iter()
        .zip(gate)
        .zip(passes)
        .enumerate()
        .filter(|(_, (_, &p))| p)
    {
        let Some((top_d, top)) = best_category(row) else {
            continue;
        };
        if !allowed.contains(schema.details()[top_d].id) || top < min_similarity {
            continue;
        }
        let Some(features) = offer::features(schema, row, g, conv_top, said(si)) else {
            continue;
        };
        let right = expect.is_some_and(|es| es.iter().any(|&e| matches(schema, e, top_d)));
        out.push(Sample {
            features,
            right,
            detail: top_d,
        });
    }
    out
}

/// Reads every case through the models: the items the fitter works on.
fn items(models: &Models, cases: &[Case]) -> Result<Vec<Item>, super::carmem::EvalError> {
    let schema = models.schema();
    let min_sim = models.config().extraction.min_similarity;
    let all = schema.all_details();
    let mut out = Vec::new();
    {
        for c in cases {
            let set = &c.tag;
            let inputs = models
                .offer_inputs(&c.conversation)
                .map_err(super::carmem::EvalError::from)?;
            let expect: Vec<CategoryRef> = c.expect.iter().map(|(e, _)| *e).collect();
            let fold = fold_of(&c.id);
            out.push(Item {
                set: set.clone(),
                fold,
                samples: samples(schema, &inputs, &all, min_sim, Some(&expect)),
                expect: expect.clone(),
            });
            if let [e] = expect[..] {
                let sub = match e {
                    CategoryRef::Detail(d) => schema.detail(d).sub,
                    CategoryRef::Sub(s) => s,
                };
                let mut allowed = all.clone();
                for d in schema.details().iter().filter(|d| d.sub == sub) {
                    allowed.remove(d.id);
                }
                out.push(Item {
                    set: "out-of-schema".into(),
                    fold,
                    samples: samples(schema, &inputs, &allowed, min_sim, None),
                    expect: Vec::new(),
                });
            }
        }
    }
    Ok(out)
}

/// The model fitted on the items `train` admits (plain logistic regression: a calibrated
/// probability).
fn fit(items: &[Item], train: impl Fn(&Item) -> bool) -> (Vec<f32>, f32) {
    let (xs, ys): (Vec<Vec<f32>>, Vec<bool>) = items
        .iter()
        .filter(|i| train(i))
        .flat_map(|i| i.samples.iter())
        .map(|s| (s.features.to_vec(), s.right))
        .unzip();
    fit_plain(&xs, &ys, 1e-3, 1500)
}

fn prob(w: &[f32], b: f32, f: &[f32; FEATURES]) -> f32 {
    crate::memory::gate::sigmoid(b + w.iter().zip(f).map(|(a, x)| a * x).sum::<f32>())
}

/// Per item and sample, the probability from the model fitted without the item's fold.
fn cross_validated(items: &[Item]) -> Vec<Vec<f32>> {
    let mut probs: Vec<Vec<f32>> = items.iter().map(|i| vec![0.0; i.samples.len()]).collect();
    for f in 0..FOLDS {
        let (w, b) = fit(items, |i| i.fold != f);
        for (i, p) in items.iter().zip(&mut probs).filter(|(i, _)| i.fold == f) {
            for (s, pi) in i.samples.iter().zip(p.iter_mut()) {
                *pi = prob(&w, b, &s.features);
            }
        }
    }
    probs
}

/// Counts of one threshold over some items, per set.
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    cases: usize,
    /// Cases that offered anything.
    offering: usize,
    tp: usize,
    fp: usize,
    fn_: usize,
}

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.cases += o.cases;
        self.offering += o.offering;
        self.tp += o.tp;
        self.fp += o.fp;
        self.fn_ += o.fn_;
    }

    fn f1(&self) -> f64 {
        let d = 2 * self.tp + self.fp + self.fn_;
        if d == 0 {
            0.0
        } else {
            2.0 * self.tp as f64 / d as f64
        }
    }

    fn json(&self) -> Value {
        let r = super::cases::ratio;
        json!({
            "cases": self.cases,
            "offering": r(self.offering, self.cases),
            "precision": r(self.tp, self.tp + self.fp),
            "recall": r(self.tp, self.tp + self.fn_),
        })
    }
}

/// What the offers at `threshold` give, per set, over the items `which` admits: per case, each
/// sample at or above the threshold offers its category (one per category), the likeliest
/// `max` of them.
fn tally(
    schema: &Schema,
    items: &[Item],
    probs: &[Vec<f32>],
    threshold: f32,
    max: usize,
    which: impl Fn(&Item) -> bool,
) -> std::collections::BTreeMap<String, Tally> {
    let mut out: std::collections::BTreeMap<String, Tally> = Default::default();
    for (i, p) in items.iter().zip(probs).filter(|(i, _)| which(i)) {
        let mut offered: Vec<(usize, f32, bool)> = Vec::new();
        for (s, &pi) in i.samples.iter().zip(p) {
            if pi < threshold {
                continue;
            }
            match offered.iter_mut().find(|o| o.0 == s.detail) {
                Some(o) => o.1 = o.1.max(pi),
                None => offered.push((s.detail, pi, s.right)),
            }
        }
        offered.sort_by(|a, b| b.1.total_cmp(&a.1));
        offered.truncate(max);
        let t = out.entry(i.set.clone()).or_default();
        t.cases += 1;
        t.offering += usize::from(!offered.is_empty());
        let found = i
            .expect
            .iter()
            .filter(|&&e| offered.iter().any(|o| matches(schema, e, o.0)))
            .count();
        t.tp += found;
        t.fn_ += i.expect.len() - found;
        t.fp += offered
            .iter()
            .filter(|o| !i.expect.iter().any(|&e| matches(schema, e, o.0)))
            .count();
    }
    out
}

/// What another offer decision already spends of [`MAX_FALSE_OFFERS`] in each set where nothing
/// may be stored: its cross-validated share offering (`nested`), read from its `eval offers`
/// report or from a model file carrying one (`about.cross_validated`). The lasting track's
/// offers come beside the first track's (`extraction.lasting_offers`), so together they keep
/// one bound: the lasting track is fitted within what the first leaves.
#[derive(Debug, Clone, Default)]
pub struct Spent(std::collections::BTreeMap<String, f64>);

impl Spent {
    /// Reads the shares from a report or model (JSON); an error names what is missing.
    pub fn from_report(v: &Value) -> Result<Spent, String> {
        let sets = v
            .pointer("/nested/sets")
            .or_else(|| v.pointer("/about/cross_validated/nested/sets"))
            .and_then(Value::as_object)
            .ok_or("no nested.sets (an `eval offers` report or a model it wrote)")?;
        let mut out = std::collections::BTreeMap::new();
        for (k, t) in sets {
            if t.get("recall").is_some_and(Value::is_null) {
                let share = t["offering"]
                    .as_f64()
                    .ok_or_else(|| format!("set {k:?} has no offering share"))?;
                out.insert(k.clone(), share);
            }
        }
        Ok(Spent(out))
    }

    /// The share set `set` may still offer.
    fn left(&self, set: &str) -> f64 {
        MAX_FALSE_OFFERS - self.0.get(set).copied().unwrap_or(0.0)
    }
}

/// The threshold the rule chooses on some items: the highest F1 over the cases that expect
/// something, keeping offers where nothing may be stored (out-of-schema variants, cases with
/// no expectation) at most [`MAX_FALSE_OFFERS`] in each set, less what `spent` says another
/// decision offers there; the strictest when none does.
fn choose(by: &[(f32, std::collections::BTreeMap<String, Tally>)], spent: &Spent) -> f32 {
    let mut best: Option<(f32, f64)> = None;
    for (t, sets) in by {
        let mut expecting = Tally::default();
        let mut ok = true;
        for (set, tally) in sets {
            if tally.tp + tally.fn_ > 0 {
                expecting.add(tally);
            } else if tally.cases > 0
                && tally.offering as f64 / tally.cases as f64 > spent.left(set)
            {
                ok = false;
            }
        }
        if ok && best.is_none_or(|(_, f)| expecting.f1() > f) {
            best = Some((*t, expecting.f1()));
        }
    }
    best.map_or(THRESHOLDS[THRESHOLDS.len() - 1], |(t, _)| t)
}

fn sets_json(sets: &std::collections::BTreeMap<String, Tally>) -> Value {
    sets.iter()
        .map(|(k, v)| (k.clone(), v.json()))
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// Fits the offer model on the cases (a set per tag) and reports it
/// cross-validated: per threshold, the held-out figures per set; `nested`, the threshold
/// choice itself cross-validated (chosen on four folds' held-out figures, measured on the
/// fifth). Returns the report and the model fitted on everything with the rule's threshold.
pub fn run(
    models: &Models,
    cases: &[Case],
    spent: &Spent,
) -> Result<(Value, OfferModel), super::carmem::EvalError> {
    let schema = models.schema();
    let max = models.config().extraction.max_preferences;
    let items = items(models, cases)?;
    let probs = cross_validated(&items);
    let at =
        |which: &dyn Fn(&Item) -> bool| -> Vec<(f32, std::collections::BTreeMap<String, Tally>)> {
            THRESHOLDS
                .iter()
                .map(|&t| (t, tally(schema, &items, &probs, t, max, which)))
                .collect()
        };
    let all = at(&|_| true);
    let mut nested: std::collections::BTreeMap<String, Tally> = Default::default();
    let mut chosen = Vec::new();
    for f in 0..FOLDS {
        let t = choose(&at(&|i: &Item| i.fold != f), spent);
        chosen.push(t);
        for (k, v) in tally(schema, &items, &probs, t, max, |i| i.fold == f) {
            nested.entry(k).or_default().add(&v);
        }
    }
    let threshold = choose(&all, spent);
    let (weights, bias) = fit(&items, |_| true);
    let report = json!({
        "samples": items.iter().map(|i| i.samples.len()).sum::<usize>(),
        "positives": items.iter().flat_map(|i| &i.samples).filter(|s| s.right).count(),
        "folds": FOLDS,
        "threshold": threshold,
        "beside_spent": spent.0,
        "by_threshold": all.iter().map(|(t, s)| json!({"threshold": t, "sets": sets_json(s)})).collect::<Vec<_>>(),
        "nested": {"chosen_per_fold": chosen, "sets": sets_json(&nested)},
    });
    let model = OfferModel {
        format: FORMAT.into(),
        threshold,
        weights,
        bias,
        about: json!({
            "features": ["gate log-odds", "best category's cosine minus the conversation's strongest sentence's", "best minus the second-best category's", "best minus another subcategory's best", "is the strongest sentence", "names a value its best category lists (an attribute in full or one of its names)"],
            "threshold_rule": "highest detail F1 over the cases that expect something, with at most 5 % of out-of-schema variants and of cases expecting nothing offering anything, less what the decision beside it offers there (cross_validated.beside_spent; cross-validated: cross_validated.nested)",
            "cross_validated": report.clone(),
        }),
    };
    Ok((report, model))
}

/// The report as text: per threshold and set, precision and recall (sets that expect
/// something) or the share offering anything (sets that expect nothing).
pub fn table(report: &Value) -> String {
    let mut out = String::new();
    let line = |sets: &Value| -> String {
        sets.as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| match v["recall"].as_f64() {
                Some(r) => format!("{k} P {} R {r}", v["precision"]),
                None => format!("{k} offering {}", v["offering"]),
            })
            .collect::<Vec<_>>()
            .join(" | ")
    };
    for row in report["by_threshold"].as_array().into_iter().flatten() {
        out.push_str(&format!("{}: {}\n", row["threshold"], line(&row["sets"])));
    }
    out.push_str(&format!(
        "chosen {}; nested (thresholds {}): {}\n",
        report["threshold"],
        report["nested"]["chosen_per_fold"],
        line(&report["nested"]["sets"])
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_of_one_carmem_user_share_a_fold() {
        let u = "f4692d35-6a2e-4eb7-99e4-34ea8deb1ace";
        assert_eq!(fold_of(&format!("{u}-1+2")), fold_of(&format!("{u}-7")));
        assert!(fold_of("kvret-dev-3") < FOLDS);
        let spread: std::collections::BTreeSet<usize> = (0..50)
            .map(|i| fold_of(&format!("kvret-dev-{i}")))
            .collect();
        assert_eq!(spread.len(), FOLDS, "dialogues spread over every fold");
    }

    #[test]
    fn the_threshold_keeps_false_offers_within_the_bound() {
        let mut low = std::collections::BTreeMap::new();
        low.insert(
            "pairs".to_string(),
            Tally {
                cases: 10,
                offering: 10,
                tp: 18,
                fp: 4,
                fn_: 2,
            },
        );
        low.insert(
            "kvret".to_string(),
            Tally {
                cases: 100,
                offering: 9,
                ..Tally::default()
            },
        );
        let mut high = std::collections::BTreeMap::new();
        high.insert(
            "pairs".to_string(),
            Tally {
                cases: 10,
                offering: 10,
                tp: 14,
                fp: 2,
                fn_: 6,
            },
        );
        high.insert(
            "kvret".to_string(),
            Tally {
                cases: 100,
                offering: 3,
                ..Tally::default()
            },
        );
        let none = Spent::default();
        assert_eq!(
            choose(&[(0.3, low.clone()), (0.5, high.clone())], &none),
            0.5
        );
        low.get_mut("kvret").unwrap().offering = 4;
        assert_eq!(
            choose(&[(0.3, low.clone()), (0.5, high.clone())], &none),
            0.3
        );
        // What another decision offers in a set comes off its bound.
        let spent = Spent::from_report(&json!({"nested": {"sets": {
            "kvret": {"offering": 0.02, "recall": null},
            "pairs": {"offering": 1.0, "recall": 0.9},
        }}}))
        .unwrap();
        assert_eq!(choose(&[(0.3, low), (0.5, high)], &spent), 0.5);
        assert!(Spent::from_report(&json!({"sets": {}})).is_err());
    }
}
