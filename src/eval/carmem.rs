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

mod report;
pub use report::table;
mod user;

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use serde_json::Value;

use super::lines;
use super::metrics::{Confusion, Counts, OpCounts, TopN};
use crate::config::Config;
use crate::conversation::{Conversation, Role};
use crate::memory::{MemoryError, Models};
use crate::schema::{DetailId, Schema};

/// Errors of the evaluation.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    // The io error is in the message, not marked as the source (see `MemoryError::DataDir`).
    #[error("cannot read {path}: {error}")]
    Read { path: String, error: std::io::Error },
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
    /// The in-car request the dataset's authors showed their generator as an example of the
    /// conversation's domain (`meta_info.few_shot_example`'s user words, from their assistant).
    pub few_shot: Option<String>,
}

/// The user's words of a `few_shot_example` (a Python dict's text: `{'User': 'play music', ...}`).
fn few_shot_user(text: &str) -> Option<String> {
    let rest = &text[text.find("'User': ")? + 8..];
    let q = rest.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let body = &rest[1..];
    let end = body.find(q)?;
    Some(body[..end].trim().to_string()).filter(|s| !s.is_empty())
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
    let text = std::fs::read_to_string(path).map_err(|error| EvalError::Read {
        path: path.display().to_string(),
        error,
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
    for line in lines::non_empty(text, origin) {
        if users.is_some_and(|n| out.len() >= n) {
            break;
        }
        let v: Value = line.parse()?;
        let s = |v: &Value, k: &str| -> Result<String, EvalError> {
            v.get(k)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| line.error(format!("missing string {k:?}")))
        };
        let mut entries = Vec::new();
        for d in v
            .get("data")
            .and_then(Value::as_array)
            .ok_or_else(|| line.error("missing \"data\""))?
        {
            let pref = s(d, "user_preference")?;
            let parts: Vec<&str> = pref.splitn(4, "; ").collect();
            let [_, _, detail_name, attribute] = parts[..] else {
                return Err(line.error(format!(
                    "user_preference {pref:?} is not \"Main; Sub; Detail; Attribute\""
                )));
            };
            let detail = schema
                .details()
                .iter()
                .find(|d| d.name == detail_name)
                .map(|d| d.id)
                .ok_or_else(|| line.error(format!("unknown detail category {detail_name:?}")))?;
            let conv = d
                .get("extraction_conversation")
                .ok_or_else(|| line.error("missing conversation"))?;
            let conversation =
                Conversation::from_value(conv).map_err(|e| line.error(e.to_string()))?;
            let m = d
                .get("maintenance_questions")
                .ok_or_else(|| line.error("missing maintenance_questions"))?;
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
                few_shot: d
                    .pointer("/meta_info/few_shot_example")
                    .and_then(Value::as_str)
                    .and_then(few_shot_user),
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
    /// Extracted preferences (in-schema), those held pending as one-off requests
    /// (`extraction.hold_one_off`), and those of the right detail category held so.
    extracted: u32,
    held: u32,
    right_held: u32,
    maintain_ms: Vec<f64>,
    recall_ms: Vec<f64>,
    confusions: HashMap<(String, String), u32>,
    /// Per conversation, the extracted confidence and whether it was right (for thresholds).
    pub confidences: Vec<(f32, bool)>,
    /// Predictions with confidences, for the `confirm_below` table (`eval::confirm`).
    pub confirm: super::confirm::ConfidenceTally,
    /// Ranked retrieval and unrelated queries, for recall's relevance gate (`eval::relevance`).
    pub relevance: Vec<super::relevance::Query>,
    /// Requests from outside the users that need a preference (the need model's positives).
    pub extra: Vec<super::relevance::Extra>,
}

/// Runs the benchmark on `users` and returns the report as JSON (the keys of issue 3).
pub fn run(
    models: &Arc<Models>,
    cfg: &Config,
    users: &[EvalUser],
    (unrelated, requests): (&[String], &[(String, usize)]),
    only_retrieval: bool,
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
    // The need model's positives besides the users' requests: `requests`, and per user (in the
    // user's fold) its maintenance questions, what it says in its conversations (it talks to
    // the assistant about the domain of one of its preferences) and their few-shot requests.
    let mut needs: Vec<(String, usize)> = requests.to_vec();
    let mut seen = std::collections::HashSet::new();
    for (i, u) in users.iter().enumerate() {
        for e in &u.entries {
            for q in [&e.equal, &e.negate, &e.different] {
                needs.push((q.clone(), i));
            }
            for t in e
                .conversation
                .turns()
                .iter()
                .filter(|t| t.role == Role::User)
            {
                needs.push((t.text.clone(), i));
            }
            if let Some(f) = e
                .few_shot
                .as_ref()
                .filter(|f| seen.insert(f.to_lowercase()))
            {
                needs.push((f.clone(), i));
            }
        }
    }
    let vecs = models.embed(needs.iter().map(|(r, _)| r.clone()).collect())?;
    tally.extra = vecs
        .into_iter()
        .zip(&needs)
        .map(|(vector, (_, fold))| super::relevance::Extra {
            vector,
            fold: *fold,
        })
        .collect();
    let mut rows = user::Rows(out);
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
        user::run_user(
            models,
            cfg,
            (i, u, &mine),
            only_retrieval,
            &mut tally,
            &mut rows,
            &pb,
        )?;
        tracing::debug!("user {} took {:.1} s", i + 1, tu.elapsed().as_secs_f64());
    }
    pb.finish_and_clear();
    Ok((
        report::report(models, cfg, &tally, t0.elapsed().as_secs_f64()),
        tally,
    ))
}

#[cfg(test)]
mod tests {
    use super::few_shot_user;

    #[test]
    fn few_shot_user_words_are_read_in_either_quote() {
        assert_eq!(
            few_shot_user("{'User': 'play music', 'Assistant': 'What?'}").as_deref(),
            Some("play music")
        );
        assert_eq!(
            few_shot_user(
                "{'User': \"i'm a little cold can you make it warmer\", 'Assistant': 'OK'}"
            )
            .as_deref(),
            Some("i'm a little cold can you make it warmer")
        );
        assert_eq!(few_shot_user("{}"), None);
    }
}
