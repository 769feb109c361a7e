//! Recall: the user's active preferences nearest an utterance, re-ranked by the subcategory
//! prior, each with its calibrated relevance; and the record of when each was last recalled.

use std::collections::HashSet;

use super::{lock, relevance, Memory, MemoryError};
use crate::pref::{Millis, Preference, Status, UserId};
use crate::store::Change;
/// One recalled preference.
#[derive(Debug, Clone)]
pub struct Recalled {
    pub preference: Preference,
    /// Relevance to the utterance, the ranking's key: the cosine similarity of the utterance and
    /// the preference's embedding text, plus, with the subcategory prior on (`recall.sub_prior`),
    /// that weight times the log-probability that the utterance is about the preference's
    /// subcategory (≤ 0, so the score can be negative).
    pub score: f32,
    /// The utterance's cosine similarity to the preference's embedding text.
    pub cosine: f32,
    /// `ln(P(the preference's subcategory | utterance) + FLOOR)` (0 without the prior).
    pub log_prior: f32,
    /// What `relevance` was computed from (`relevance::features`).
    pub features: [f32; relevance::FEATURES],
    /// The calibrated probability, in [0, 1], that the preference matters for the utterance
    /// (`memory::relevance`); recall returns only those at or above `recall.min_relevance`.
    pub relevance: f32,
}

/// How many of the nearest preferences recall re-ranks with the subcategory prior (a user's
/// preferences in one car number in the tens to hundreds; beyond this many, the cosine alone
/// decides which are considered).
pub const RERANK: usize = 64;

impl Memory {
    /// The `k` most relevant of the user's active preferences for an utterance, best first.
    pub fn recall(
        &self,
        user: &UserId,
        text: &str,
        k: usize,
    ) -> Result<Vec<Recalled>, MemoryError> {
        self.recall_excluding(user, text, k, None)
    }

    /// [`Memory::recall`], the subcategory prior leaving out the labelled requests that came from
    /// `exclude` (the evaluation measures each user without that user's own requests).
    pub fn recall_excluding(
        &self,
        user: &UserId,
        text: &str,
        k: usize,
        exclude: Option<&str>,
    ) -> Result<Vec<Recalled>, MemoryError> {
        let query = self.models.embed_urgent(text)?;
        self.recall_vector(user, &query, k, exclude)
    }

    /// [`Memory::recall_excluding`] with the utterance already embedded: the top `k` of
    /// [`Memory::rank`] whose relevance reaches `recall.min_relevance`. An utterance that no
    /// stored preference serves returns nothing.
    pub fn recall_vector(
        &self,
        user: &UserId,
        query: &[f32],
        k: usize,
        exclude: Option<&str>,
    ) -> Result<Vec<Recalled>, MemoryError> {
        let min = self.models.relevance.threshold;
        let mut out = self.rank(user, query, k, exclude)?;
        out.retain(|r| r.relevance >= min);
        out.truncate(k);
        self.touch(&out);
        Ok(out)
    }

    /// The user's active preferences nearest the utterance, ranked, each with its relevance;
    /// no relevance cut (the evaluation fits the relevance model on these).
    ///
    /// The search is restricted to the user's ids (from the store's per-user lookup, without
    /// decoding records); only the hits are read, so the cost does not grow with what is stored.
    /// Without the subcategory prior the hits are the ranking; with it, the nearest
    /// [`RERANK`]`.max(k)` are re-ranked by cosine + `recall.sub_prior` × log P(subcategory)
    /// ([`super::prior`]). A hit that is not active (pending confirmation) is left out and the search
    /// repeated without it.
    pub fn rank(
        &self,
        user: &UserId,
        query: &[f32],
        k: usize,
        exclude: Option<&str>,
    ) -> Result<Vec<Recalled>, MemoryError> {
        let ids = self.store.ids_of(user)?;
        if ids.is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        let prior = self.models.prior()?;
        let want = if prior.is_some() { RERANK.max(k) } else { k };
        let mut inactive: HashSet<u64> = HashSet::new();
        let mut out = loop {
            let hits = lock(&self.index).index.search(query, want, |key| {
                ids.contains(&key) && !inactive.contains(&key)
            })?;
            let keys: Vec<u64> = hits.iter().map(|h| h.0).collect();
            let mut out = Vec::with_capacity(hits.len());
            let mut left_out = false;
            for ((key, score), p) in hits.into_iter().zip(self.store.get_many(&keys)?) {
                match p {
                    Some(preference) if preference.status == Status::Active => out.push(Recalled {
                        preference,
                        score,
                        cosine: score,
                        log_prior: 0.0,
                        features: [0.0; relevance::FEATURES],
                        relevance: 0.0,
                    }),
                    _ => {
                        inactive.insert(key);
                        left_out = true;
                    }
                }
            }
            if !left_out {
                break out;
            }
        };
        if let Some(prior) = prior {
            let lp = prior.log_probs(query, self.config().recall.sub_sharpness, exclude);
            let w = self.config().recall.sub_prior;
            for r in &mut out {
                let sub = self.schema.detail(r.preference.detail).sub;
                r.log_prior = lp[sub.index()];
                r.score += w * r.log_prior;
            }
            out.sort_by(|a, b| b.score.total_cmp(&a.score));
        }
        let top = out.first().map_or(0.0, |r| r.score);
        for r in &mut out {
            r.features = relevance::features(r.cosine, r.log_prior, r.score - top);
            r.relevance = self.models.relevance.probability(&r.features);
        }
        Ok(out)
    }

    /// Records when preferences were last recalled (for retention), at most once a day each so
    /// that recall stays read-mostly. Skipped when a write is under way (recall never waits
    /// behind maintenance); a failure here never fails the recall.
    pub(super) fn touch(&self, recalled: &[Recalled]) {
        const DAY_MS: u64 = 24 * 3600 * 1000;
        let now = Millis::now();
        let stale = |p: &Preference| p.last_recalled.is_none_or(|t| t.0 + DAY_MS < now.0);
        if !recalled.iter().any(|r| stale(&r.preference)) {
            return;
        }
        let Ok(_w) = self.write.try_lock() else {
            return;
        };
        // Re-read under the lock: the copies in `recalled` may be older than the store.
        let mut changes = Vec::new();
        for r in recalled {
            if let Ok(Some(mut p)) = self.store.get(r.preference.id) {
                if stale(&p) {
                    p.last_recalled = Some(now);
                    changes.push(Change::Put(p));
                }
            }
        }
        if let Err(e) = self.store.apply(changes) {
            tracing::warn!("cannot record recall times: {e}");
        }
    }
}
