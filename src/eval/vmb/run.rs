//! Running VehicleMemBench: each history remembered in a fresh memory, then each question
//! answered on the oracle-slot track (the setting is taken from `new_answer`, Glovebox gives the
//! acting person's value), on the slot track (recall picks the setting from what is said too),
//! and by the last-mention baseline (the latest value anyone stated for the setting, from the
//! same memory), all in one run.
//!
//! Scoring: a question is right only when every value argument of every call matches
//! (case-folded; numbers equal; `true`/`false` against a flag's `on`/`off`). A value argument
//! with no detail in the schema counts as wrong.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Value};

use super::{cabin, load_history, load_questions, Call, Question};
use crate::eval::carmem::EvalError;
use crate::memory::condition::Situation;
use crate::memory::{Memory, Models};
use crate::pref::{Preference, UserId};
use crate::schema::{CategoryRef, DetailId, Schema, FLAG_OFF, FLAG_ON};

/// The numbered files of a folder: `history_N.txt` / `qa_N.json`, N = 1..=files.
fn numbered(
    dir: &Path,
    stem: &str,
    ext: &str,
    files: Option<usize>,
) -> Vec<(usize, std::path::PathBuf)> {
    let mut out: Vec<(usize, std::path::PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            let n = name.strip_prefix(stem)?.strip_suffix(ext)?.parse().ok()?;
            Some((n, e.path()))
        })
        .collect();
    out.sort();
    if let Some(f) = files {
        out.truncate(f);
    }
    out
}

/// Whether a stored value is the expected argument value.
pub fn matches(expected: &str, got: &str) -> bool {
    let (e, g) = (expected.trim().to_lowercase(), got.trim().to_lowercase());
    let flag = |v: &str| match v {
        "true" | FLAG_ON => Some(true),
        "false" | FLAG_OFF => Some(false),
        _ => None,
    };
    if let (Some(a), Some(b)) = (flag(&e), flag(&g)) {
        return a == b;
    }
    if let (Ok(a), Ok(b)) = (e.parse::<f64>(), g.parse::<f64>()) {
        return a == b;
    }
    e == g
}

/// The value arguments of a call, each with its detail (`None`: the schema has none).
fn slots(schema: &Schema, call: &Call) -> Vec<(String, String, Option<DetailId>)> {
    let Some(selectors) = call_selectors(schema, call) else {
        // No detail for any argument: every argument is a value the schema cannot hold.
        return call
            .args
            .iter()
            .map(|(k, v)| (k.clone(), v.clone(), None))
            .collect();
    };
    call.args
        .iter()
        .filter(|(k, _)| !selectors.contains(k))
        .map(|(k, v)| {
            (
                k.clone(),
                v.clone(),
                schema.detail_by_call(&call.function, k),
            )
        })
        .collect()
}

fn call_selectors(schema: &Schema, call: &Call) -> Option<Vec<String>> {
    schema
        .details()
        .iter()
        .filter_map(|d| d.call.as_ref())
        .find(|c| c.function == call.function)
        .map(|c| c.selectors.clone())
}

/// The latest active value of `detail` among `prefs`.
fn latest<'a>(
    prefs: impl Iterator<Item = &'a Preference>,
    detail: DetailId,
) -> Option<&'a Preference> {
    prefs
        .filter(|p| p.detail == detail && p.status == crate::pref::Status::Active)
        .max_by_key(|p| (p.updated, p.id))
}

#[derive(Default)]
struct Tally {
    by_type: BTreeMap<String, [usize; 3]>,
    slot_right: usize,
    answer_ms: Vec<f64>,
    ingest_s: Vec<f64>,
    stored: usize,
    questions: usize,
}

/// Runs the benchmark: `histories` and `qas` folders, the first `files` of each.
pub fn run(
    models: &Arc<Models>,
    (history_dir, qa_dir, files, only): (&Path, &Path, Option<usize>, &[usize]),
    mut out: Option<&mut dyn Write>,
    progress: bool,
) -> Result<Value, EvalError> {
    models.warm_up()?;
    let mut histories = numbered(history_dir, "history_", ".txt", files);
    if !only.is_empty() {
        histories.retain(|(n, _)| only.contains(n));
    }
    let qas: BTreeMap<usize, std::path::PathBuf> =
        numbered(qa_dir, "qa_", ".json", None).into_iter().collect();
    let pb = if progress {
        let pb = ProgressBar::new(histories.len() as u64 * 2);
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
    let mut t = Tally::default();
    for (n, hpath) in &histories {
        let Some(qpath) = qas.get(n) else { continue };
        let history = load_history(hpath)?;
        let questions = load_questions(qpath)?;
        let dir = tempfile::tempdir().map_err(EvalError::Write)?;
        let mem = Memory::open_with(dir.path(), models.clone())?;
        pb.set_message(format!("history {n}: remembering"));
        let t0 = Instant::now();
        let default = history
            .people
            .values()
            .next()
            .cloned()
            .expect("a history has people");
        let sentences: Vec<String> = history
            .conversations
            .iter()
            .flat_map(|c| c.user_sentences())
            .collect();
        models.embed_ahead(&sentences)?;
        // The file's own labelled examples (scripts/make-vehicle-examples, source `vmb-N`) are
        // left out: leave-one-file-out.
        let own = format!("vmb-{n}");
        for c in &history.conversations {
            mem.remember_excluding(&default, c, Some(&own))?;
        }
        t.ingest_s.push(t0.elapsed().as_secs_f64());
        pb.inc(1);
        pb.set_message(format!("history {n}: answering"));
        let all: Vec<Preference> = mem
            .store()
            .all()
            .map_err(crate::memory::MemoryError::from)?;
        t.stored += all.len();
        for (qi, q) in questions.iter().enumerate() {
            let row = answer(&mem, &history.people, &all, q, &mut t)?;
            if let Some(o) = out.as_mut() {
                let mut row = row;
                row["file"] = json!(n);
                row["question"] = json!(qi + 1);
                writeln!(o, "{row}").map_err(EvalError::Write)?;
            }
        }
        pb.inc(1);
    }
    pb.finish_and_clear();
    let mut r = report(&t);
    r["work"] = models.counters().snapshot();
    Ok(r)
}

/// What a question's person says (the quoted words, or the whole query when it quotes nothing)
/// and the moment it describes: the local
/// time ("At 10:00 PM"), the people named in it as occupants, and the narration (everything
/// outside the quotes) as a fact ("She saw the smokestacks of the industrial zone ahead").
pub fn moment(query: &str, people: &BTreeMap<String, UserId>) -> (String, Situation) {
    let (narration, spoken) = match query.split_once(": '") {
        Some((n, s)) => (n.to_string(), s.trim_end_matches(['\'', ' ']).to_string()),
        None => match query.split_once('\'') {
            Some((n, s)) => (n.to_string(), s.trim_end_matches(['\'', ' ']).to_string()),
            // Nothing quoted ("He asked the car to ... about three units higher than my saved
            // setting"): the narration is what the person asks.
            None => (query.to_string(), query.to_string()),
        },
    };
    let lower = query.to_lowercase();
    let mut occupants: Vec<String> = super::mentions(&lower, people)
        .into_iter()
        .map(|(_, _, id)| id.as_str().to_string())
        .collect();
    occupants.sort();
    occupants.dedup();
    let situation = Situation {
        local_time: clock(&narration),
        occupants,
        facts: vec![narration.trim().to_string()],
    };
    (spoken, situation)
}

/// The first clock time in a narration ("At 7:30 PM", "at 10:00 AM"), as (hour, minute).
fn clock(text: &str) -> Option<(u32, u32)> {
    let words: Vec<&str> = text.split_whitespace().collect();
    words.iter().enumerate().find_map(|(i, w)| {
        let (h, m) = w.trim_end_matches([',', '.']).split_once(':')?;
        let (h, m): (u32, u32) = (h.parse().ok()?, m.get(..2)?.parse().ok()?);
        let half = words
            .get(i + 1)
            .map(|s| s.trim_end_matches([',', '.']).to_uppercase());
        let h = match half.as_deref() {
            Some("PM") if h < 12 => h + 12,
            Some("AM") if h == 12 => 0,
            _ => h,
        };
        (h < 24 && m < 60).then_some((h, m))
    })
}

/// Answers one question on both tracks and the baseline, tallies it, and returns its row.
fn answer(
    mem: &Memory,
    people: &BTreeMap<String, UserId>,
    all: &[Preference],
    q: &Question,
    t: &mut Tally,
) -> Result<Value, EvalError> {
    let schema = mem.schema();
    let seats = cabin(&q.query, people);
    let (spoken, situation) = moment(&q.query, people);
    let t0 = Instant::now();
    let (mut right, mut base_right) = (true, true);
    let mut got = Vec::new();
    for call in &q.calls {
        let acting = seats.acting(call);
        for (arg, expected, detail) in slots(schema, call) {
            // The acting person's current value of the setting, given what was said and the
            // moment (conditions): the same `recall --category` a client asks.
            let recalled = match (&acting, detail) {
                (Some(u), Some(d)) => mem
                    .recall_category(u, CategoryRef::Detail(d), &spoken, &situation)?
                    .into_iter()
                    .next(),
                _ => None,
            };
            // The setting the answer was remembered as, when another one ("Set the brightness
            // to 10." stored as the HUD's, recalled for the centre display's).
            let from = recalled
                .as_ref()
                .filter(|r| Some(r.preference.detail) != detail)
                .map(|r| schema.detail(r.preference.detail).key.clone());
            // A step the words ask for ("one level brighter") gives the value to set.
            let mine = recalled.map(|r| r.now.unwrap_or(r.preference.attribute));
            let anyone = detail.and_then(|d| latest(all.iter(), d));
            let v = mine;
            let b = anyone.map(|p| p.attribute.clone());
            right &= v.as_deref().is_some_and(|v| matches(&expected, v));
            base_right &= b.as_deref().is_some_and(|b| matches(&expected, b));
            // Everything stored for the setting, anyone's, oldest first: what a reader of the
            // row needs to see why the answer is what it is.
            let mut stored: Vec<&Preference> =
                all.iter().filter(|p| Some(p.detail) == detail).collect();
            stored.sort_by_key(|p| (p.updated, p.id));
            let stored: Vec<Value> = stored
                .iter()
                .map(|p| {
                    json!({
                        "user": p.user.as_str(), "value": p.attribute,
                        "status": p.status.as_str(), "condition": p.condition,
                        "sentence": p.sentences.last(),
                    })
                })
                .collect();
            // Every value the acting person's words gave the setting, oldest first: whether
            // the expected one was ever stored, and what came after it.
            let said: Vec<Value> = match (&acting, detail) {
                (Some(u), Some(d)) => mem
                    .history(u)?
                    .into_iter()
                    .filter_map(|h| {
                        let p = h.after.filter(|p| p.detail == d)?;
                        Some(json!({"op": h.op.as_str(), "value": p.attribute,
                                    "condition": p.condition, "sentence": h.sentence}))
                    })
                    .collect(),
                _ => Vec::new(),
            };
            got.push(json!({
                "function": call.function, "argument": arg, "expected": expected,
                "acting": acting.as_ref().map(UserId::as_str),
                "detail": detail.map(|d| schema.detail(d).key.clone()),
                "got": v, "from": from, "baseline": b, "stored": stored, "history": said,
            }));
        }
    }
    // The slot track: recall's best preference for the spoken words must be in the first
    // call's setting.
    let first = q.calls.first();
    let want = first.and_then(|c| slots(schema, c).into_iter().find_map(|s| s.2));
    let slot_ok = match (first.and_then(|c| seats.acting(c)), want) {
        (Some(u), Some(d)) => mem
            .recall_in(&u, &spoken, 1, &situation)?
            .first()
            .is_some_and(|r| r.preference.detail == d),
        _ => false,
    };
    t.answer_ms.push(t0.elapsed().as_secs_f64() * 1e3);
    t.questions += 1;
    t.slot_right += usize::from(slot_ok);
    let e = t.by_type.entry(q.reasoning_type.clone()).or_default();
    e[0] += 1;
    e[1] += usize::from(right);
    e[2] += usize::from(base_right);
    Ok(json!({
        "type": q.reasoning_type, "query": q.query, "right": right,
        "baseline_right": base_right, "slot_right": slot_ok, "values": got,
    }))
}

fn report(t: &Tally) -> Value {
    let share = |a: usize, n: usize| if n == 0 { 0.0 } else { a as f64 / n as f64 };
    let (mut right, mut base) = (0, 0);
    let mut by_type = serde_json::Map::new();
    let mut base_by_type = serde_json::Map::new();
    for (ty, [n, r, b]) in &t.by_type {
        right += r;
        base += b;
        by_type.insert(ty.clone(), json!({"n": n, "value_accuracy": share(*r, *n)}));
        base_by_type.insert(ty.clone(), json!({"n": n, "value_accuracy": share(*b, *n)}));
    }
    let mut ms = t.answer_ms.clone();
    ms.sort_by(f64::total_cmp);
    let p50 = ms.get(ms.len() / 2).copied().unwrap_or(0.0);
    let files = t.ingest_s.len().max(1);
    json!({
        "questions": t.questions,
        "value_accuracy": share(right, t.questions),
        "by_type": by_type,
        "slot_accuracy": share(t.slot_right, t.questions),
        "stored_preferences": t.stored,
        "ingest_s": t.ingest_s.iter().sum::<f64>() / files as f64,
        "ingest_s_max": t.ingest_s.iter().copied().fold(0.0, f64::max),
        "answer_ms_p50": p50,
        "baseline": {"value_accuracy": share(base, t.questions), "by_type": base_by_type},
    })
}

/// The report as a table for a person.
pub fn table(r: &Value) -> String {
    let pct = |v: &Value| format!("{:5.1} %", v.as_f64().unwrap_or(0.0) * 100.0);
    let mut s = format!(
        "VehicleMemBench, oracle slot: {} questions, value accuracy {} (last-mention baseline {})\n",
        r["questions"], pct(&r["value_accuracy"]), pct(&r["baseline"]["value_accuracy"])
    );
    s.push_str(&format!(
        "{:<26} {:>4} {:>9} {:>9}\n",
        "reasoning type", "n", "glovebox", "baseline"
    ));
    if let Some(types) = r["by_type"].as_object() {
        for (ty, v) in types {
            s.push_str(&format!(
                "{ty:<26} {:>4} {:>9} {:>9}\n",
                v["n"],
                pct(&v["value_accuracy"]),
                pct(&r["baseline"]["by_type"][ty]["value_accuracy"])
            ));
        }
    }
    s.push_str(&format!(
        "slot accuracy {}; {} preferences stored; ingest {:.0} s per history (max {:.0} s); answer p50 {:.1} ms\n",
        pct(&r["slot_accuracy"]), r["stored_preferences"],
        r["ingest_s"].as_f64().unwrap_or(0.0), r["ingest_s_max"].as_f64().unwrap_or(0.0),
        r["answer_ms_p50"].as_f64().unwrap_or(0.0)
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_gives_the_words_and_the_moment() {
        let people: BTreeMap<String, UserId> = [
            ("Patricia Garcia", "patricia"),
            ("Justin Martinez", "justin"),
            ("Gary Allen", "gary"),
        ]
        .into_iter()
        .map(|(n, u)| (n.to_string(), UserId::new(u).unwrap()))
        .collect();
        let (spoken, s) = moment(
            "At 8:30 PM, Patricia was driving Justin. She saw the smokestacks ahead and said: 'Here comes the smog zone.'",
            &people,
        );
        assert_eq!(spoken, "Here comes the smog zone.");
        assert_eq!(s.local_time, Some((20, 30)));
        assert_eq!(
            s.occupants,
            vec!["justin".to_string(), "patricia".to_string()]
        );
        assert!(s.facts[0].contains("smokestacks"));
        assert_eq!(clock("At 12:00 AM, x"), Some((0, 0)));
        assert_eq!(clock("no time here"), None);
    }

    #[test]
    fn values_match_case_folded_numbers_and_flags() {
        assert!(matches("Green", "green"));
        assert!(matches("44", "44.0"));
        assert!(matches("true", "on"));
        assert!(matches("false", "off"));
        assert!(!matches("true", "off"));
        assert!(!matches("blue", "green"));
    }
}
