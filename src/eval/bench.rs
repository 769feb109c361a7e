//! Latency workloads shared by the criterion benches (`benches/`) and `glovebox bench`: seeded
//! synthetic preferences, in-car utterances, CarMem conversations, and the quick run that
//! measures the main figures of the latency budgets (`benches/README.md`) in one process.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};

use super::carmem::{self, Entry, EvalError, EvalUser};
use super::metrics::quantile;
use crate::config::Config;
use crate::memory::{Extracted, Memory, MemoryError, Models, NewPreference};
use crate::pref::UserId;
use crate::schema::Schema;

/// Ten CarMem conversations of one development-split user (the integration tests' fixture):
/// typical extraction inputs, built into the binary so that `glovebox bench` needs no data file.
pub const CONVERSATIONS: &str = include_str!("../../tests/fixtures/carmem_one_user.jsonl");

/// Utterances a driver says to the assistant: the recall and embedder workload.
pub const UTTERANCES: &[&str] = &[
    "It's freezing in here.",
    "Find me somewhere to eat tonight.",
    "Play something for the drive home.",
    "Where can I charge the car on the way to Munich?",
    "I need to park near the stadium.",
    "Take me to a gas station.",
    "Put on a podcast.",
    "Is there a supermarket on the way?",
    "Can you make the seat a bit warmer?",
    "Avoid the traffic jam if you can.",
    "Let's grab a quick burger.",
    "Turn the music down a little.",
];

/// The budgets of issue 7 (medians on the project's 2-core machine).
pub mod budget {
    /// Recall may cost at most this many bare embedder passes on the same text...
    pub const RECALL_PER_EMBED: f64 = 1.2;
    /// ...and at most this many milliseconds.
    pub const RECALL_MS: f64 = 10.0;
    /// Extraction may cost at most this multiple of llama.cpp's raw cost for the conversation's
    /// own tokens...
    pub const EXTRACT_PER_RAW: f64 = 1.3;
    /// ...and at most this many milliseconds.
    pub const EXTRACT_MS: f64 = 1000.0;
    pub const MAINTAIN_MS: f64 = 300.0;
    pub const COLD_START_MS: f64 = 1500.0;
    pub const PEAK_RSS_MB: f64 = 800.0;
}

/// A small, seeded pseudo-random generator (xorshift64*): benches must see the same inputs on
/// every run, and nothing here needs more than that.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// `n` preferences over the whole schema, each a known value of a random detail category with a
/// sentence stating it. The same `seed` gives the same preferences.
pub fn synthetic_preferences(schema: &Schema, n: usize, seed: u64) -> Vec<NewPreference> {
    const FRAMES: &[&str] = &[
        "I usually go for {v}.",
        "For me it's {v}, most of the time.",
        "I really like {v}.",
        "{v}, please, whenever possible.",
    ];
    let details = schema.details();
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let d = &details[rng.below(details.len())];
            let value = if d.attributes.is_empty() {
                d.name.clone()
            } else {
                d.attributes[rng.below(d.attributes.len())].clone()
            };
            let frame = FRAMES[rng.below(FRAMES.len())];
            NewPreference {
                detail: d.id,
                sentences: vec![frame.replace("{v}", &value)],
                attribute: value,
                condition: None,
            }
        })
        .collect()
}

/// The built-in CarMem conversations ([`CONVERSATIONS`]).
pub fn conversations(schema: &Schema) -> Result<Vec<EvalUser>, EvalError> {
    carmem::parse(CONVERSATIONS, "built-in bench conversations", schema, None)
}

/// Milliseconds `f` takes.
pub fn time_ms<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t0 = Instant::now();
    let out = f();
    (out, t0.elapsed().as_secs_f64() * 1e3)
}

/// The process's peak resident set so far (Linux `VmHWM`), in MiB; `None` where unknown.
pub fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// The user the quick run stores its preferences under.
pub fn bench_user() -> UserId {
    UserId::new("bench").expect("a valid user id")
}

/// Fills `dir` with `n` synthetic preferences of [`bench_user`] (and nothing else).
pub fn populate(dir: &Path, models: &Arc<Models>, n: usize) -> Result<Memory, MemoryError> {
    let memory = Memory::open_with(dir, models.clone())?;
    memory.import(&bench_user(), synthetic_preferences(models.schema(), n, 7))?;
    Ok(memory)
}

/// What the quick run measures, besides the figures it computes in process.
pub struct QuickOptions<'a> {
    /// The `glovebox` executable: cold start is timed as a whole `glovebox recall` process.
    pub exe: &'a Path,
    /// The configuration file the run was given, passed on to that process.
    pub config: Option<&'a Path>,
    /// Rounds over [`UTTERANCES`] for the embed and recall medians.
    pub rounds: usize,
    /// How many of the built-in conversations to extract (and decide on), at most 10.
    pub conversations: usize,
}

/// Runs a quick version of the latency benches and returns the figures as JSON: medians in
/// milliseconds, the reference each is compared with, the ratios and whether each budget is met.
pub fn quick(cfg: &Config, opts: &QuickOptions) -> Result<Value, EvalError> {
    let scratch = tempfile::tempdir().map_err(|error| EvalError::Read {
        path: std::env::temp_dir().display().to_string(),
        error,
    })?;
    let models = Models::load(cfg)?;
    let memory = populate(&scratch.path().join("data"), &models, 100)?;
    let (embed, recall) = time_recall(cfg, &models, &memory, opts.rounds)?;
    let users = conversations(models.schema())?;
    let entries: Vec<&Entry> = users
        .iter()
        .flat_map(|u| &u.entries)
        .take(opts.conversations.max(1))
        .collect();
    let (extract, raw) = time_extraction(&models, &entries)?;
    let maintain = time_maintenance(&memory, &entries)?;
    let peak = peak_rss_mb().unwrap_or(0.0);
    drop(memory);
    let cold = time_cold_start(cfg, opts, &models, &scratch.path().join("cold"))?;

    let p50 = |v: &[f64]| quantile(v, 0.5);
    let (recall_ms, embed_ms) = (p50(&recall), p50(&embed));
    let (extract_ms, raw_ms) = (p50(&extract), p50(&raw));
    let maintain_ms = p50(&maintain);
    let cold_ms = p50(&cold);
    let recall_ratio = recall_ms / embed_ms;
    let extract_ratio = extract_ms / raw_ms;
    use budget::*;
    Ok(json!({
        "embed_ms_p50": embed_ms,
        "recall_ms_p50": recall_ms,
        "recall_ms_p95": quantile(&recall, 0.95),
        "recall_per_embed": recall_ratio,
        "extract_ms_p50": extract_ms,
        "extract_ms_p95": quantile(&extract, 0.95),
        "raw_token_ms": raw_ms,
        "extract_per_raw": extract_ratio,
        "maintain_ms_p50": maintain_ms,
        "cold_start_ms": cold_ms,
        "peak_rss_mb": peak,
        "samples": {
            "utterances": embed.len(),
            "conversations": extract.len(),
            "decisions": maintain.len(),
            "cold_starts": cold.len(),
            "stored_preferences": 100,
        },
        "budgets_met": {
            "recall": recall_ms <= RECALL_MS && recall_ratio <= RECALL_PER_EMBED,
            "extract": extract_ms <= EXTRACT_MS && extract_ratio <= EXTRACT_PER_RAW,
            "maintain": maintain_ms <= MAINTAIN_MS,
            "cold_start": cold_ms <= COLD_START_MS,
            "peak_rss": peak <= PEAK_RSS_MB,
        },
    }))
}

/// Embedder and recall latencies on the same utterances, after one warm-up pass.
fn time_recall(
    cfg: &Config,
    models: &Models,
    memory: &Memory,
    rounds: usize,
) -> Result<(Vec<f64>, Vec<f64>), EvalError> {
    let user = bench_user();
    for u in UTTERANCES {
        memory.recall(&user, u, cfg.recall.k)?;
    }
    let (mut embed, mut recall) = (Vec::new(), Vec::new());
    for _ in 0..rounds.max(1) {
        for u in UTTERANCES {
            let (r, ms) = time_ms(|| models.embed(vec![u.to_string()]));
            r?;
            embed.push(ms);
            let (r, ms) = time_ms(|| memory.recall(&user, u, cfg.recall.k));
            r?;
            recall.push(ms);
        }
    }
    Ok((embed, recall))
}

/// Extraction of each conversation (answer cache cleared: the model is measured), and
/// llama.cpp's raw cost for the same request's own tokens.
fn time_extraction(models: &Models, entries: &[&Entry]) -> Result<(Vec<f64>, Vec<f64>), EvalError> {
    let all = models.schema().all_details();
    let llm = models.load_llm()?;
    models.warm_up()?;
    let (mut extract, mut raw) = (Vec::new(), Vec::new());
    for e in entries {
        models.clear_answer_cache();
        let (x, ms) = time_ms(|| models.extract(&e.conversation, &all));
        let x = x?;
        if x.offered.is_empty() {
            continue;
        }
        extract.push(ms);
        let said = crate::memory::extract::Statements::of(
            &e.conversation,
            e.conversation.user_sentences(),
        );
        let request = models.extraction_request(&said, &x.offered);
        let cost = llm
            .raw_cost(request, x.decoded_tokens)
            .map_err(MemoryError::from)?;
        raw.push(cost.prompt_ms + cost.decode_ms);
    }
    Ok((extract, raw))
}

/// One maintenance decision per conversation: its preference is stored, then the user
/// restates it (the CarMem `equal` question) and the decision is timed, not applied.
fn time_maintenance(memory: &Memory, entries: &[&Entry]) -> Result<Vec<f64>, EvalError> {
    let user = bench_user();
    let mut maintain = Vec::new();
    for e in entries {
        memory.import(
            &user,
            vec![NewPreference {
                detail: e.detail,
                attribute: e.attribute.clone(),
                sentences: vec![e.conversation.user_sentences().join(" ")],
                condition: None,
            }],
        )?;
        let incoming = Extracted {
            detail: e.detail,
            attribute: e.attribute.clone(),
            sentence: e.equal.clone(),
            confidence: 1.0,
            condition: None,
            one_off: false,
        };
        let (d, ms) = time_ms(|| memory.decide(&user, &incoming));
        d?;
        maintain.push(ms);
    }
    Ok(maintain)
}

/// Cold start: a whole `glovebox recall` process on a data directory `dir` that holds 100
/// preferences (files in the page cache, as on a head unit that has run before), three times.
fn time_cold_start(
    cfg: &Config,
    opts: &QuickOptions,
    models: &Arc<Models>,
    dir: &Path,
) -> Result<Vec<f64>, EvalError> {
    drop(populate(dir, models, 100)?);
    let mut cold = Vec::new();
    for _ in 0..3 {
        let (out, ms) = time_ms(|| {
            let mut c = Command::new(opts.exe);
            if let Some(p) = opts.config {
                c.arg("--config").arg(p);
            }
            c.arg("--data-dir")
                .arg(dir)
                .arg("--models")
                .arg(&cfg.models.dir)
                .args(["recall", "--user", "bench", UTTERANCES[0]])
                .output()
        });
        let out = out.map_err(|e| EvalError::Run {
            exe: opts.exe.display().to_string(),
            problem: e.to_string(),
        })?;
        if !out.status.success() {
            return Err(EvalError::Run {
                exe: opts.exe.display().to_string(),
                problem: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            });
        }
        cold.push(ms);
    }
    Ok(cold)
}

/// The quick run's figures as a table, each beside its budget.
pub fn table(r: &Value) -> String {
    let f = |k: &str| r[k].as_f64().unwrap_or(f64::NAN);
    let met = |k: &str| {
        if r["budgets_met"][k].as_bool() == Some(true) {
            "met"
        } else {
            "MISSED"
        }
    };
    use budget::*;
    let rows = [
        (
            "recall (100 stored)",
            format!("{:.1} ms", f("recall_ms_p50")),
            format!(
                "{:.2}x one embed pass ({:.1} ms)",
                f("recall_per_embed"),
                f("embed_ms_p50")
            ),
            format!("<= {RECALL_PER_EMBED}x and <= {RECALL_MS} ms"),
            met("recall"),
        ),
        (
            "extraction",
            format!("{:.0} ms", f("extract_ms_p50")),
            format!(
                "{:.2}x raw llama.cpp ({:.0} ms)",
                f("extract_per_raw"),
                f("raw_token_ms")
            ),
            format!("<= {EXTRACT_PER_RAW}x and <= {EXTRACT_MS} ms"),
            met("extract"),
        ),
        (
            "maintenance decision",
            format!("{:.0} ms", f("maintain_ms_p50")),
            String::new(),
            format!("<= {MAINTAIN_MS} ms"),
            met("maintain"),
        ),
        (
            "cold start to first recall",
            format!("{:.0} ms", f("cold_start_ms")),
            "whole process".into(),
            format!("<= {COLD_START_MS} ms"),
            met("cold_start"),
        ),
        (
            "peak RSS, both models",
            format!("{:.0} MB", f("peak_rss_mb")),
            String::new(),
            format!("<= {PEAK_RSS_MB} MB"),
            met("peak_rss"),
        ),
    ];
    let mut out = String::from(
        "| figure | median | reference | budget | |\n| --- | --- | --- | --- | --- |\n",
    );
    for (name, value, reference, budget, ok) in rows {
        out.push_str(&format!(
            "| {name} | {value} | {reference} | {budget} | {ok} |\n"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_preferences() {
        let s = Schema::embedded();
        let a = synthetic_preferences(&s, 50, 3);
        let b = synthetic_preferences(&s, 50, 3);
        let c = synthetic_preferences(&s, 50, 4);
        let key = |v: &[NewPreference]| {
            v.iter()
                .map(|p| (p.detail, p.attribute.clone(), p.sentences.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(key(&a), key(&b));
        assert_ne!(key(&a), key(&c));
        assert!(a.iter().all(|p| p.sentences[0].contains(&p.attribute)));
    }

    #[test]
    fn the_built_in_conversations_parse() {
        let users = conversations(&Schema::embedded()).unwrap();
        assert_eq!(users.iter().map(|u| u.entries.len()).sum::<usize>(), 10);
    }
}
