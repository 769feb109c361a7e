//! Work counters of one process's models: how many sentences were embedded and passed the
//! gate, how many LLM questions extraction and maintenance asked, and the time spent in each.
//! Neutral (they change no decision); `glovebox eval vehiclemembench` reports them so that the
//! cost of ingesting a history can be read by stage.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde_json::{json, Value};

/// Counters, shared by every memory opened on one [`super::Models`].
#[derive(Debug, Default)]
pub struct Counters {
    /// User sentences embedded for extraction, and the microseconds it took.
    pub sentences: AtomicU64,
    pub embed_us: AtomicU64,
    /// Sentences that pass the gate: at or above its threshold, and neither about someone
    /// else, a supposition, a question asking for an answer nor a wish for the moment
    /// (`extraction::lasting::gated`).
    pub gated: AtomicU64,
    /// Sentence groups offered (one question each), and those answered without the LLM
    /// (cache, or a typed value the sentence names).
    pub groups: AtomicU64,
    pub groups_without_llm: AtomicU64,
    /// Extraction questions the LLM answered, and the microseconds they took.
    pub extract_llm: AtomicU64,
    pub extract_llm_us: AtomicU64,
    /// Maintenance decisions, those the LLM made, and the microseconds they took.
    pub maintain: AtomicU64,
    pub maintain_llm: AtomicU64,
    pub maintain_llm_us: AtomicU64,
}

impl Counters {
    pub fn add(c: &AtomicU64, n: u64) {
        c.fetch_add(n, Ordering::Relaxed);
    }

    /// Adds the microseconds since `t0` to `c`.
    pub fn time(c: &AtomicU64, t0: Instant) {
        Self::add(c, t0.elapsed().as_micros() as u64);
    }

    /// The counters now, as JSON (times in seconds).
    pub fn snapshot(&self) -> Value {
        let n = |c: &AtomicU64| c.load(Ordering::Relaxed);
        let s = |c: &AtomicU64| n(c) as f64 / 1e6;
        json!({
            "sentences_embedded": n(&self.sentences),
            "embed_s": s(&self.embed_us),
            "sentences_gated": n(&self.gated),
            "groups_offered": n(&self.groups),
            "groups_without_llm": n(&self.groups_without_llm),
            "extract_llm_calls": n(&self.extract_llm),
            "extract_llm_s": s(&self.extract_llm_us),
            "maintain_decisions": n(&self.maintain),
            "maintain_llm_calls": n(&self.maintain_llm),
            "maintain_llm_s": s(&self.maintain_llm_us),
        })
    }
}
