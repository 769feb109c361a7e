//! `glovebox eval carmem`: the CarMem paper's protocol (section 5) run through the real runtime
//! (the same extraction, maintenance and recall code as the command line and the socket), each
//! user in a fresh data directory with the models loaded once.
//!
//! Choices where the paper is silent (also in docs/results.md):
//! * Extraction is scored per conversation at each level: the truth predicted counts one true
//!   positive, every other distinct predicted label a false positive, a missed truth a false
//!   negative; micro-averaged. An unreadable model answer counts as no extraction and as invalid.
//! * Maintenance runs on the entries whose in-schema extraction was perfect (exactly one
//!   preference, right detail), against a store holding everything extracted from the user's ten
//!   conversations. `equal` and `different` bring the known attribute with the utterance as
//!   sentence; `negate` is extracted from the utterance, and when that yields nothing in the
//!   category the store is left as it is, which counts as `pass`. Decisions are not applied, so
//!   every question sees the same store.
//! * `extract_ms` is timed on the in-schema conversations only; the out-of-schema run repeats
//!   some of their prompts exactly, which the runtime answers from its cache.
//! * Retrieval stores the user's ten ground-truth preferences (sentence: the evidence sentence
//!   extraction found for the right category, else all the user's sentences of that
//!   conversation) and asks `next_conversation_question`; n = the user's preferences in the
//!   truth's subcategory. "Sentence only" ranks the same preferences by their sentences alone.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Value};

use super::metrics::{levels, quantile, Confusion, Counts, OpCounts, TopN};
use crate::config::Config;
use crate::conversation::Conversation;
use crate::embed::cosine;
use crate::memory::{Extracted, Extraction, Memory, MemoryError, Models, NewPreference};
use crate::pref::{Maintenance, UserId};
use crate::schema::{Cardinality, DetailId, DetailSet, Schema};

/// Errors of the evaluation.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}, line {line}: {problem}")]
    Data {
        path: String,
        line: usize,
        problem: String,
    },
    #[error(transparent)]
    Memory(#[from] MemoryError),
    #[error("cannot write results: {0}")]
    Write(std::io::Error),
    #[error("running {exe} failed: {problem}")]
    Run { exe: String, problem: String },
}

/// One labelled conversation of the benchmark.
#[derive(Debug, Clone)]
pub struct Entry {
    pub id: String,
    pub conversation: Conversation,
    pub detail: DetailId,
    pub attribute: String,
    pub next_question: String,
    pub equal: String,
    pub negate: String,
    pub different: String,
    pub different_attribute: String,
}

/// One user of the benchmark: ten entries.
#[derive(Debug, Clone)]
pub struct EvalUser {
    pub id: String,
    pub entries: Vec<Entry>,
}

/// Reads a CarMem JSONL file (one user per line), the first `users` users if given.
pub fn load(
    path: &Path,
    schema: &Schema,
    users: Option<usize>,
) -> Result<Vec<EvalUser>, EvalError> {
    let text = std::fs::read_to_string(path).map_err(|source| EvalError::Read {
        path: path.display().to_string(),
        source,
    })?;
    parse(&text, &path.display().to_string(), schema, users)
}

/// Reads CarMem JSONL text (one user per line), the first `users` users if given; `origin`
/// names the text in errors.
pub fn parse(
    text: &str,
    origin: &str,
    schema: &Schema,
    users: Option<usize>,
) -> Result<Vec<EvalUser>, EvalError> {
    let mut out = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        if users.is_some_and(|n| out.len() >= n) {
            break;
        }
        let bad = |problem: String| EvalError::Data {
            path: origin.to_string(),
            line: i + 1,
            problem,
        };
        let v: Value = serde_json::from_str(line).map_err(|e| bad(e.to_string()))?;
        let s = |v: &Value, k: &str| -> Result<String, EvalError> {
            v.get(k)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| bad(format!("missing string {k:?}")))
        };
        let mut entries = Vec::new();
        for d in v
            .get("data")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("missing \"data\"".into()))?
        {
            let pref = s(d, "user_preference")?;
            let parts: Vec<&str> = pref.splitn(4, "; ").collect();
            let [_, _, detail_name, attribute] = parts[..] else {
                return Err(bad(format!(
                    "user_preference {pref:?} is not \"Main; Sub; Detail; Attribute\""
                )));
            };
            let detail = schema
                .details()
                .iter()
                .find(|d| d.name == detail_name)
                .map(|d| d.id)
                .ok_or_else(|| bad(format!("unknown detail category {detail_name:?}")))?;
            let conv = d
                .get("extraction_conversation")
                .ok_or_else(|| bad("missing conversation".into()))?;
            let conversation = Conversation::from_value(conv).map_err(|e| bad(e.to_string()))?;
            let m = d
                .get("maintenance_questions")
                .ok_or_else(|| bad("missing maintenance_questions".into()))?;
            entries.push(Entry {
                id: s(d, "conversation_uuid")?,
                conversation,
                detail,
                attribute: attribute.to_string(),
                next_question: s(d, "next_conversation_question")?,
                equal: s(m, "question_equal_preference")?,
                negate: s(m, "question_negate_preference")?,
                different: s(m, "question_different_preference")?,
                different_attribute: s(m, "different_attribute")?,
            });
        }
        out.push(EvalUser {
            id: s(&v, "user_uuid")?,
            entries,
        });
    }
    Ok(out)
}

/// Maintenance outcome counts per question kind.
#[derive(Debug, Clone, Copy, Default)]
struct MaintKinds {
    equal: OpCounts,
    negate: OpCounts,
    different: OpCounts,
}

/// Everything measured in one run.
#[derive(Debug, Default)]
pub struct Tally {
    in_levels: [Confusion; 3],
    in_counts: Counts,
    valid: u32,
    out_counts: Counts,
    maint_mp: MaintKinds,
    maint_mnp: MaintKinds,
    enriched: TopN,
    sentence_only: TopN,
    extract_ms: Vec<f64>,
    /// Extracted preferences in the right detail category, and how many of them have the
    /// ground-truth value (after folding case and punctuation).
    valued: u32,
    value_right: u32,
    maintain_ms: Vec<f64>,
    recall_ms: Vec<f64>,
    confusions: HashMap<(String, String), u32>,
    /// Per conversation, the extracted confidence and whether it was right (for thresholds).
    pub confidences: Vec<(f32, bool)>,
    /// Predictions with confidences, for the `confirm_below` table (`eval::confirm`).
    pub confirm: super::confirm::ConfidenceTally,
    /// Ranked retrieval and unrelated queries, for recall's relevance gate (`eval::relevance`).
    pub relevance: Vec<super::relevance::Query>,
}

struct Rows<'a>(Option<&'a mut dyn Write>);

impl Rows<'_> {
    fn write(&mut self, row: Value) -> Result<(), EvalError> {
        if let Some(w) = self.0.as_mut() {
            writeln!(w, "{row}").map_err(EvalError::Write)?;
        }
        Ok(())
    }
}

fn extract_or_invalid(
    models: &Models,
    conv: &Conversation,
    allowed: &DetailSet,
    user: &str,
) -> Result<(Option<Extraction>, f64), EvalError> {
    let t = Instant::now();
    // The user's own labelled examples (when the examples come from this split) are left out.
    match models.extract_excluding(conv, allowed, Some(user)) {
        Ok(x) => Ok((Some(x), t.elapsed().as_secs_f64() * 1e3)),
        // The grammar should make an unreadable answer impossible; count it, don't stop.
        Err(MemoryError::Extraction(e)) => {
            tracing::warn!("{e}");
            Ok((None, t.elapsed().as_secs_f64() * 1e3))
        }
        Err(e) => Err(e.into()),
    }
}

fn items_json(schema: &Schema, x: &Option<Extraction>) -> Value {
    match x {
        None => json!("invalid output"),
        Some(x) => json!(x
            .items
            .iter()
            .map(|i| json!({"category": schema.detail(i.detail).name, "attribute": i.attribute, "sentence": i.sentence, "confidence": i.confidence}))
            .collect::<Vec<_>>()),
    }
}

fn op_name(op: Maintenance) -> &'static str {
    match op {
        Maintenance::Pass(_) => "pass",
        Maintenance::Update(_) => "update",
        Maintenance::Append | Maintenance::New => "append",
    }
}

/// Runs one user through the whole protocol, adding to the tally.
fn run_user(
    models: &Arc<Models>,
    cfg: &Config,
    (index, user, unrelated): (usize, &EvalUser, &[&String]),
    tally: &mut Tally,
    rows: &mut Rows<'_>,
    pb: &ProgressBar,
) -> Result<(), EvalError> {
    let schema = models.schema().clone();
    let uid = UserId::new(format!("eval-{}", user.id)).map_err(MemoryError::from)?;
    let all = schema.all_details();
    let dir = tempfile::tempdir().map_err(EvalError::Write)?;
    let mem = Memory::open_with(&dir.path().join("extracted"), cfg.clone(), models.clone())?;

    // 1. In-schema extraction.
    let mut extractions = Vec::new();
    for e in &user.entries {
        let (x, ms) = extract_or_invalid(models, &e.conversation, &all, &user.id)?;
        tally.extract_ms.push(ms);
        let predicted: Vec<DetailId> = x
            .iter()
            .flat_map(|x| x.items.iter().map(|i| i.detail))
            .collect();
        for (acc, c) in tally
            .in_levels
            .iter_mut()
            .zip(levels(&schema, e.detail, &predicted))
        {
            acc.add(c);
        }
        tally.in_counts.add(predicted.len());
        tally.valid += u32::from(x.is_some());
        if !predicted.contains(&e.detail) {
            let truth = schema.detail(e.detail).name.clone();
            if predicted.is_empty() {
                *tally
                    .confusions
                    .entry((truth.clone(), "(nothing)".into()))
                    .or_default() += 1;
            }
            for p in &predicted {
                *tally
                    .confusions
                    .entry((truth.clone(), schema.detail(*p).name.clone()))
                    .or_default() += 1;
            }
        }
        if let Some(x) = &x {
            for i in &x.items {
                tally.confidences.push((i.confidence, i.detail == e.detail));
                if i.detail == e.detail {
                    tally.valued += 1;
                    tally.value_right += u32::from(
                        super::cases::fold(&i.attribute) == super::cases::fold(&e.attribute),
                    );
                }
            }
        }
        tally.confirm.in_schema.push((
            e.detail,
            x.iter()
                .flat_map(|x| x.items.iter().map(|i| (i.detail, i.confidence)))
                .collect(),
        ));
        rows.write(json!({
            "kind": "extraction", "user": user.id, "conversation": e.id,
            "expected": {"category": schema.detail(e.detail).name, "attribute": e.attribute},
            "got": items_json(&schema, &x),
            "offered": x.as_ref().map(|x| x.offered.iter().map(|c| json!([schema.detail(c.detail).key, c.score])).collect::<Vec<_>>()),
            "answer": x.as_ref().map(|x| x.answer.clone()),
            "gate": x.as_ref().map(|x| x.gate.clone()),
            "ms": ms,
        }))?;
        extractions.push(x);
        pb.inc(1);
    }

    // 2. Out-of-schema: the truth's subcategory opted out.
    for e in &user.entries {
        let mut allowed = all.clone();
        for d in &schema.sub(schema.detail(e.detail).sub).details {
            allowed.remove(*d);
        }
        // Not timed: an identical prompt to the in-schema one is answered from the cache.
        let (x, _) = extract_or_invalid(models, &e.conversation, &allowed, &user.id)?;
        let n = x.as_ref().map_or(0, |x| x.items.len());
        tally.out_counts.add(n);
        tally.confirm.out_of_schema.push(
            x.iter()
                .flat_map(|x| x.items.iter().map(|i| i.confidence))
                .collect(),
        );
        rows.write(json!({
            "kind": "out_of_schema", "user": user.id, "conversation": e.id,
            "expected": "nothing", "removed_sub": schema.sub(schema.detail(e.detail).sub).name,
            "got": items_json(&schema, &x),
        }))?;
        pb.inc(1);
    }

    tracing::debug!("extraction done");
    // 3. Store what was extracted, as `remember` would.
    for x in extractions.iter().flatten() {
        for item in &x.items {
            mem.maintain(&uid, item)?;
        }
    }

    // 4. Maintenance questions on perfectly extracted entries.
    for (e, x) in user.entries.iter().zip(&extractions) {
        let perfect = x
            .as_ref()
            .is_some_and(|x| x.items.len() == 1 && x.items[0].detail == e.detail);
        if !perfect {
            pb.inc(1);
            continue;
        }
        let multi = schema.detail(e.detail).cardinality == Cardinality::Multiple;
        let incoming = |attribute: &str, sentence: &str| Extracted {
            detail: e.detail,
            attribute: attribute.to_string(),
            sentence: sentence.to_string(),
            confidence: 1.0,
        };
        let mut decide = |kind: &str,
                          inc: Option<Extracted>,
                          note: &str|
         -> Result<(), EvalError> {
            let (op, got) = match &inc {
                Some(i) => {
                    let t = Instant::now();
                    let (op, _) = mem.decide(&uid, i)?;
                    tally.maintain_ms.push(t.elapsed().as_secs_f64() * 1e3);
                    (op, op_name(op).to_string())
                }
                None => (
                    Maintenance::Pass(crate::pref::PreferenceId(0)),
                    format!("pass ({note})"),
                ),
            };
            let counts = if multi {
                &mut tally.maint_mp
            } else {
                &mut tally.maint_mnp
            };
            let c = match kind {
                "equal" => &mut counts.equal,
                "negate" => &mut counts.negate,
                _ => &mut counts.different,
            };
            c.add(op);
            let expected = match kind {
                "equal" => "pass",
                "negate" => "update",
                _ if multi => "append",
                _ => "update",
            };
            rows.write(json!({
                "kind": "maintenance", "question": kind, "user": user.id, "conversation": e.id,
                "values": if multi { "multiple" } else { "single" },
                "input": inc.as_ref().map(|i| json!({"attribute": i.attribute, "sentence": i.sentence})),
                "expected": expected, "got": got,
            }))
        };
        decide("equal", Some(incoming(&e.attribute, &e.equal)), "")?;
        let neg = Conversation::from_utterance(&e.negate).map_err(MemoryError::from)?;
        let (nx, _) = extract_or_invalid(models, &neg, &all, &user.id)?;
        let neg_item = nx.and_then(|x| x.items.into_iter().find(|i| i.detail == e.detail));
        decide("negate", neg_item, "nothing extracted in the category")?;
        decide(
            "different",
            Some(incoming(&e.different_attribute, &e.different)),
            "",
        )?;
        pb.inc(1);
    }

    tracing::debug!("maintenance done");
    // 5. Retrieval over the user's ground-truth preferences.
    let rmem = Memory::open_with(&dir.path().join("truth"), cfg.clone(), models.clone())?;
    let news: Vec<NewPreference> = user
        .entries
        .iter()
        .zip(&extractions)
        .map(|(e, x)| {
            let found = x
                .as_ref()
                .and_then(|x| x.items.iter().find(|i| i.detail == e.detail));
            let sentences = match found {
                Some(i) => vec![i.sentence.clone()],
                None => vec![e.conversation.user_sentences().join(" ")],
            };
            NewPreference {
                detail: e.detail,
                attribute: e.attribute.clone(),
                sentences,
            }
        })
        .collect();
    let stored = rmem.import(&uid, news)?;
    let sentence_vecs = models.embed(stored.iter().map(|p| p.sentences.join(" ")).collect())?;
    for (i, e) in user.entries.iter().enumerate() {
        let sub = schema.detail(e.detail).sub;
        let n = stored
            .iter()
            .filter(|p| schema.detail(p.detail).sub == sub)
            .count();
        let t = Instant::now();
        rmem.recall_excluding(&uid, &e.next_question, cfg.recall.k, Some(&user.id))?;
        tally.recall_ms.push(t.elapsed().as_secs_f64() * 1e3);
        let q = models
            .embed(vec![e.next_question.clone()])?
            .pop()
            .unwrap_or_default();
        // The ranking itself, before the relevance gate: today's top-n metric.
        let hits = rmem.rank(&uid, &q, stored.len(), Some(&user.id))?;
        let rank = hits.iter().position(|h| h.preference.id == stored[i].id);
        tally.enriched.add(rank, n);
        tally.relevance.push(super::relevance::Query::new(index, true, &hits, |r| {
            (
                schema.detail(r.preference.detail).sub == sub,
                r.preference.id == stored[i].id,
            )
        }));
        // Sentence-only baseline: the same preferences ranked by their sentences alone.
        let mut order: Vec<(usize, f32)> = sentence_vecs
            .iter()
            .enumerate()
            .map(|(j, v)| (j, cosine(&q, v)))
            .collect();
        order.sort_by(|a, b| b.1.total_cmp(&a.1));
        let srank = order.iter().position(|(j, _)| *j == i);
        tally.sentence_only.add(srank, n);
        rows.write(json!({
            "kind": "retrieval", "user": user.id, "conversation": e.id, "query": e.next_question,
            "expected": {"category": schema.detail(e.detail).name, "attribute": e.attribute}, "n": n,
            "rank_enriched": rank, "rank_sentence_only": srank,
            "got": hits.iter().take(n + 2).map(|h| json!([schema.detail(h.preference.detail).name, h.preference.attribute, h.score])).collect::<Vec<_>>(),
        }))?;
    }
    // Utterances that no stored preference serves.
    if !unrelated.is_empty() {
        let vecs = models.embed(unrelated.iter().map(|u| u.to_string()).collect())?;
        for (u, q) in unrelated.iter().zip(vecs) {
            let hits = rmem.rank(&uid, &q, stored.len(), Some(&user.id))?;
            tally.relevance.push(super::relevance::Query::new(index, false, &hits, |_| {
                (false, false)
            }));
            rows.write(json!({
                "kind": "unrelated", "user": user.id, "query": u,
                "got": hits.iter().take(3).map(|h| json!([schema.detail(h.preference.detail).name, h.preference.attribute, h.score, h.relevance])).collect::<Vec<_>>(),
            }))?;
        }
    }
    pb.inc(1);
    Ok(())
}

/// Runs the benchmark on `users` and returns the report as JSON (the keys of issue 3).
pub fn run(
    models: &Arc<Models>,
    cfg: &Config,
    users: &[EvalUser],
    unrelated: &[String],
    out: Option<&mut dyn Write>,
    progress: bool,
) -> Result<(Value, Tally), EvalError> {
    let t0 = Instant::now();
    models.warm_up()?;
    tracing::debug!("models ready after {:.1} s", t0.elapsed().as_secs_f64());
    let steps: usize = users.iter().map(|u| 3 * u.entries.len() + 1).sum();
    let pb = if progress {
        let pb = ProgressBar::new(steps as u64);
        pb.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{bar:40}] {pos}/{len} {msg} (eta {eta})",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        pb
    } else {
        ProgressBar::hidden()
    };
    let mut tally = Tally::default();
    let mut rows = Rows(out);
    for (i, u) in users.iter().enumerate() {
        pb.set_message(format!("user {}/{}", i + 1, users.len()));
        let tu = Instant::now();
        // Unrelated utterances are dealt to the users in turn.
        let mine: Vec<&String> = unrelated
            .iter()
            .enumerate()
            .filter(|(j, _)| j % users.len() == i)
            .map(|(_, u)| u)
            .collect();
        run_user(models, cfg, (i, u, &mine), &mut tally, &mut rows, &pb)?;
        tracing::debug!("user {} took {:.1} s", i + 1, tu.elapsed().as_secs_f64());
    }
    pb.finish_and_clear();
    Ok((
        report(models, cfg, &tally, t0.elapsed().as_secs_f64()),
        tally,
    ))
}

fn report(models: &Models, cfg: &Config, t: &Tally, total_s: f64) -> Value {
    let prf = |c: &Confusion| serde_json::to_value(c.prf()).expect("plain numbers");
    let (none, one, two) = t.in_counts.shares();
    let (onone, oone, otwo) = t.out_counts.shares();
    let ops = |o: &OpCounts| {
        let (p, u, a) = o.shares();
        json!({"pass": p, "update": u, "append": a, "n": o.n()})
    };
    let kinds = |k: &MaintKinds| json!({"equal": ops(&k.equal), "negate": ops(&k.negate), "different": ops(&k.different)});
    let equal_n = t.maint_mp.equal.n() + t.maint_mnp.equal.n();
    let equal_ok = t.maint_mp.equal.pass
        + t.maint_mp.equal.update
        + t.maint_mnp.equal.pass
        + t.maint_mnp.equal.update;
    let negate_n = t.maint_mp.negate.n() + t.maint_mnp.negate.n();
    let negate_ok = t.maint_mp.negate.update + t.maint_mnp.negate.update;
    let share = |a: u32, b: u32| {
        if b == 0 {
            0.0
        } else {
            f64::from(a) / f64::from(b)
        }
    };
    let topn = |x: &TopN| {
        let (a, b, c) = x.shares();
        json!({"n": a, "n+1": b, "n+2": c})
    };
    let mut conf: Vec<_> = t.confusions.iter().collect();
    conf.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    json!({
        "extraction_in_schema": {
            "main": prf(&t.in_levels[0]), "sub": prf(&t.in_levels[1]), "detail": prf(&t.in_levels[2]),
            "none": none, "one": one, "two_plus": two,
            "valid_output": share(t.valid, t.in_counts.total()),
            "value_accuracy": share(t.value_right, t.valued),
            "conversations": t.in_counts.total(),
        },
        "extraction_out_of_schema": {"none": onone, "one": oone, "two_plus": otwo, "conversations": t.out_counts.total()},
        "maintenance": {
            "MP": kinds(&t.maint_mp), "MNP": kinds(&t.maint_mnp),
            "redundant_reduction": share(equal_ok, equal_n),
            "contradictory_reduction": share(negate_ok, negate_n),
        },
        "retrieval": {"enriched": topn(&t.enriched), "sentence_only": topn(&t.sentence_only), "queries": t.enriched.queries,
            "gate": super::relevance::report(&t.relevance, models.relevance().threshold, cfg.recall.k)},
        "timing": {
            "extract_ms_p50": quantile(&t.extract_ms, 0.5), "extract_ms_p95": quantile(&t.extract_ms, 0.95),
            "maintain_ms_p50": quantile(&t.maintain_ms, 0.5),
            "recall_ms_p50": quantile(&t.recall_ms, 0.5), "recall_ms_p95": quantile(&t.recall_ms, 0.95),
            "total_s": total_s,
        },
        "models": {
            "llm": cfg.models.llm.display().to_string(),
            "embedder": cfg.models.embedder.display().to_string(),
        },
        "confusions": conf.iter().take(10).map(|((a, b), n)| json!({"expected": a, "got": b, "count": n})).collect::<Vec<_>>(),
        "schema_details": models.schema().details().len(),
        "confirmation": t.confirm.report(models.schema(), cfg.extraction.confirm_below),
    })
}

/// The report as a table for a person, with the paper's GPT-4o figures beside it.
pub fn table(r: &Value) -> String {
    let f = |v: &Value| v.as_f64().map_or("-".to_string(), |x| format!("{x:.2}"));
    let pct = |v: &Value| {
        v.as_f64()
            .map_or("-".to_string(), |x| format!("{:.0} %", x * 100.0))
    };
    let x = &r["extraction_in_schema"];
    let o = &r["extraction_out_of_schema"];
    let m = &r["maintenance"];
    let rt = &r["retrieval"];
    let tm = &r["timing"];
    let mut s = String::new();
    s.push_str(&format!(
        "CarMem on-device ({} in-schema conversations, {} retrieval queries)\n\n",
        x["conversations"], rt["queries"]
    ));
    s.push_str("| metric | Glovebox | paper (GPT-4o) |\n| --- | --- | --- |\n");
    for (lvl, paper) in [
        ("main", ".94"),
        ("sub", ".90"),
        ("detail", ".78 (P .75 R .81)"),
    ] {
        s.push_str(&format!(
            "| extraction F1 {lvl} | {} (P {} R {}) | {paper} |\n",
            f(&x[lvl]["f1"]),
            f(&x[lvl]["precision"]),
            f(&x[lvl]["recall"])
        ));
    }
    s.push_str(&format!(
        "| value accuracy (right category) | {} | - |\n",
        pct(&x["value_accuracy"])
    ));
    s.push_str(&format!(
        "| in-schema 0 / 1 / 2+ | {} / {} / {} | 6 / 82 / 12 % |\n",
        pct(&x["none"]),
        pct(&x["one"]),
        pct(&x["two_plus"])
    ));
    s.push_str(&format!(
        "| valid structured output | {} | 99 % |\n",
        pct(&x["valid_output"])
    ));
    s.push_str(&format!(
        "| out-of-schema 0 / 1 / 2+ | {} / {} / {} | 75 / 23 / 2 % |\n",
        pct(&o["none"]),
        pct(&o["one"]),
        pct(&o["two_plus"])
    ));
    s.push_str(&format!(
        "| maintenance: redundant / contradictory reduction | {} / {} | 95 / 93 % |\n",
        pct(&m["redundant_reduction"]),
        pct(&m["contradictory_reduction"])
    ));
    for (kind, paper) in [
        ("enriched", ".87 / .94 / .97"),
        ("sentence_only", ".75 / .88 / .93"),
    ] {
        let k = &rt[kind];
        s.push_str(&format!(
            "| retrieval {kind} top n / n+1 / n+2 | {} / {} / {} | {paper} |\n",
            f(&k["n"]),
            f(&k["n+1"]),
            f(&k["n+2"])
        ));
    }
    s.push_str("\nMaintenance (share of pass / update / append; n):\n\n| values | question | expected | pass | update | append | n |\n| --- | --- | --- | --- | --- | --- | --- |\n");
    for (kind, label) in [("MP", "multiple"), ("MNP", "single")] {
        for (q, exp) in [
            ("equal", "pass"),
            ("negate", "update"),
            ("different", if kind == "MP" { "append" } else { "update" }),
        ] {
            let c = &m[kind][q];
            s.push_str(&format!(
                "| {label} | {q} | {exp} | {} | {} | {} | {} |\n",
                f(&c["pass"]),
                f(&c["update"]),
                f(&c["append"]),
                c["n"]
            ));
        }
    }
    s.push_str(&format!(
        "\nTiming: extract p50 {:.0} ms, p95 {:.0} ms; maintain p50 {:.0} ms; recall p50 {:.1} ms, p95 {:.1} ms; total {:.0} s\n",
        tm["extract_ms_p50"].as_f64().unwrap_or(0.0),
        tm["extract_ms_p95"].as_f64().unwrap_or(0.0),
        tm["maintain_ms_p50"].as_f64().unwrap_or(0.0),
        tm["recall_ms_p50"].as_f64().unwrap_or(0.0),
        tm["recall_ms_p95"].as_f64().unwrap_or(0.0),
        tm["total_s"].as_f64().unwrap_or(0.0),
    ));
    if r["confirmation"].is_object() {
        s.push_str(&super::confirm::table(&r["confirmation"]));
    }
    if let Some(c) = r["confusions"].as_array().filter(|c| !c.is_empty()) {
        s.push_str("\nMost frequent detail-level errors (expected -> got):\n");
        for e in c {
            s.push_str(&format!(
                "  {:>3}  {} -> {}\n",
                e["count"],
                e["expected"].as_str().unwrap_or(""),
                e["got"].as_str().unwrap_or("")
            ));
        }
    }
    s
}
