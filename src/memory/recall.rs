//! Recall: the user's active preferences nearest an utterance, re-ranked by the subcategory
//! prior, each with its calibrated relevance; and the record of when each was last recalled.

use std::collections::HashSet;

use super::condition::{self, Situation, Verdict};
use super::{lock, relevance, Memory, MemoryError};
use crate::embed::cosine;
use crate::pref::{Millis, Preference, Status, UserId};
use crate::schema::{Cardinality, CategoryRef, ValueKind};
use crate::store::Change;

mod borrowed;
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
    /// For a conditional preference, whether its condition is met in the moment recall was
    /// asked about (`memory::condition`); `None` for an unconditional one.
    pub condition_met: Option<bool>,
    /// The value to set now when the utterance asks for a step from the remembered number
    /// ("one level brighter than my night setting"; `memory::step`, within the detail's range)
    /// or names another of a single-value choice's values itself ("play the video at 1080p");
    /// for a switch with no value of its own, the state its device's remembered setting implies
    /// (the preference is then that setting's: [`Memory::switch_by_device`]); `None` otherwise.
    /// Only [`Memory::recall_category`] computes it.
    pub now: Option<String>,
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

    /// [`Memory::recall`] in a known situation (local time, occupants, facts): a conditional
    /// preference whose condition the utterance or the situation meets is preferred to the
    /// unconditional value of its detail, and one whose condition is not met gives way to it
    /// (see [`Memory::prefer_conditions`]).
    pub fn recall_in(
        &self,
        user: &UserId,
        text: &str,
        k: usize,
        situation: &Situation,
    ) -> Result<Vec<Recalled>, MemoryError> {
        let query = self.models.embed_urgent(text)?;
        let mut out = self.rank(user, &query, k, None)?;
        self.keep_relevant(&mut out);
        self.prefer_conditions(&mut out, text, &query, situation)?;
        out.truncate(k);
        self.touch(&out);
        Ok(out)
    }

    /// The user's current value(s) of one category, asked for explicitly, so without the
    /// relevance gate: per detail of the category, the newest active value whose condition the
    /// utterance or the situation meets, else the newest unconditional one (a multi-value
    /// detail: every unconditional value and every met conditional one); a detail with only
    /// conditional values, none met, gives its newest, marked not met. Each carries relevance
    /// 1 and score 1. A switch with nothing of its own remembered is on when a setting of its
    /// device is ([`Memory::switch_by_device`]); another setting with nothing remembered of
    /// its own takes a value of its quantity said without a device ([`Memory::by_quantity`]).
    /// Nothing stored gives an empty list.
    pub fn recall_category(
        &self,
        user: &UserId,
        category: CategoryRef,
        text: &str,
        situation: &Situation,
    ) -> Result<Vec<Recalled>, MemoryError> {
        self.category_values(user, category, text, situation, true)
    }

    /// [`Memory::recall_category`]; `borrow`: whether a setting with nothing of its own may
    /// take another's value ([`Memory::switch_by_device`], [`Memory::by_quantity`]).
    fn category_values(
        &self,
        user: &UserId,
        category: CategoryRef,
        text: &str,
        situation: &Situation,
        borrow: bool,
    ) -> Result<Vec<Recalled>, MemoryError> {
        let mut pieces: Option<Vec<Vec<f32>>> = None;
        let mut out = Vec::new();
        // Switches with nothing remembered of their own ([`Memory::switch_by_device`]).
        let mut switches = Vec::new();
        // Other settings with nothing remembered of their own ([`Memory::by_quantity`]).
        let mut bare = Vec::new();
        for detail in self.schema.details_of(category) {
            let mut active: Vec<Preference> = self
                .store
                .in_category(user, detail)?
                .into_iter()
                .filter(|p| p.status == Status::Active)
                .collect();
            active.sort_by_key(|p| std::cmp::Reverse((p.updated, p.id)));
            if active.is_empty() && borrow {
                if self.schema.detail(detail).kind == ValueKind::Flag {
                    switches.push(detail);
                } else {
                    bare.push(detail);
                }
                continue;
            }
            let (mut met, mut unmet, mut plain) = (Vec::new(), Vec::new(), Vec::new());
            for p in active {
                match p.condition.as_deref() {
                    None => plain.push((p, None)),
                    Some(c) => {
                        if pieces.is_none()
                            && condition::judge(c, text, situation) == Verdict::BySimilarity
                        {
                            pieces = Some(self.situation_vectors(text, None, situation)?);
                        }
                        if self.condition_met(c, text, pieces.as_deref(), situation)? {
                            met.push((p, Some(true)));
                        } else {
                            unmet.push((p, Some(false)));
                        }
                    }
                }
            }
            let single = self.schema.detail(detail).cardinality == Cardinality::Single;
            // Only conditional values, none met: the newest is still what is known of the
            // setting, marked as not met.
            if plain.is_empty() && met.is_empty() {
                plain = unmet.into_iter().take(1).collect();
            }
            let chosen: Vec<(Preference, Option<bool>)> = match (single, met.is_empty()) {
                (true, false) => met.into_iter().take(1).collect(),
                (true, true) => plain.into_iter().take(1).collect(),
                (false, _) => met.into_iter().chain(plain).collect(),
            };
            out.extend(
                chosen
                    .into_iter()
                    .map(|(preference, condition_met)| Recalled {
                        preference,
                        score: 1.0,
                        cosine: 0.0,
                        log_prior: 0.0,
                        features: [0.0; relevance::FEATURES],
                        relevance: 1.0,
                        now: None,
                        condition_met,
                    }),
            );
        }
        let by = super::step::step(text);
        let stems = super::values::stems(text);
        // "Back to my usual": the newest value said with a habit, when a momentary one came
        // after it; "my volume from March": the value said then (`memory::usual`).
        let month = super::usual::named_month(text);
        let asks_usual = super::usual::asks_usual(text);
        let history = if (month.is_some() || asks_usual) && !out.is_empty() {
            Some(self.store.history(user)?)
        } else {
            None
        };
        for r in &mut out {
            let d = self.schema.detail(r.preference.detail);
            let usual = history
                .as_deref()
                .filter(|_| {
                    d.cardinality == Cardinality::Single && r.preference.condition.is_none()
                })
                .and_then(|h| {
                    // A month named ("from March") asks for the value said then; else the
                    // habit, when asked for the usual, or a value short of the setting's ends
                    // where the newest is at one.
                    let id = r.preference.detail;
                    month
                        .and_then(|m| super::usual::said_in(h, id, m))
                        .or_else(|| {
                            asks_usual
                                .then(|| {
                                    super::usual::habitual(h, id).or_else(|| {
                                        d.range.and_then(|r| super::usual::short_of_ends(h, id, r))
                                    })
                                })
                                .flatten()
                        })
                })
                .filter(|v| !v.eq_ignore_ascii_case(&r.preference.attribute))
                .map(str::to_string);
            if usual.is_some() {
                r.now.clone_from(&usual);
            }
            let base = usual.unwrap_or_else(|| r.preference.attribute.clone());
            match d.kind {
                ValueKind::Integer => {
                    if let (Some(by), Ok(v)) = (by, base.trim().parse::<i64>()) {
                        r.now = Some(super::step::apply(v, by, d.range).to_string());
                    }
                }
                // One of a single-value setting's listed values said now, or a value alias of
                // it, and not turned down ("play the video at 1080p"; not "the blue light is
                // too harsh"): what
                // the person asks for now is what is set.
                ValueKind::Choice if d.cardinality == Cardinality::Single && !text.is_empty() => {
                    let said = super::values::named_values(
                        &self.schema,
                        r.preference.detail,
                        &[text.to_string()],
                    );
                    // Every word of the value said ("heading back" does not name heading_up).
                    let whole = |v: &str| super::values::stems(v).iter().all(|w| stems.contains(w));
                    // A value the stored one already holds is no change ("my feet warm" of
                    // a stored feet_window: the usual setup warms the feet too).
                    let held = |v: &str| {
                        let have = super::values::stems(&base);
                        super::values::stems(v).iter().all(|w| have.contains(w))
                    };
                    if let [v] = said.as_slice() {
                        // Or another word the schema gives for it ("switch to recirculation").
                        let by_alias =
                            super::values::says_alias(&self.schema, r.preference.detail, v, text);
                        let fresh = whole(v) && !super::values::turns_down(text, v);
                        if (by_alias || fresh) && !held(v) {
                            r.now = Some(v.to_string());
                        }
                    }
                }
                // A switch said now ("turn on the wheel heat to my usual setting").
                ValueKind::Flag => {
                    if let [v] = super::typed::named(d, text).as_slice() {
                        if !v.eq_ignore_ascii_case(&base) {
                            r.now = Some(v.clone());
                        }
                    }
                }
                _ => {}
            }
        }
        for switch in switches {
            out.extend(self.switch_by_device(user, switch, text, situation)?);
        }
        for detail in bare {
            out.extend(self.by_quantity(user, detail, text, situation)?);
        }
        self.touch(&out);
        Ok(out)
    }

    /// The embeddings a condition is compared with: the utterance (`query`, when already
    /// embedded), each of its clauses when it has several ([`clauses`]), and each sentence of
    /// the situation's facts, each on its own so that a long narration, or a step asked in the
    /// same breath ("my jamming volume from March, but turn it up 5 more"), does not dilute
    /// the words that meet a condition.
    fn situation_vectors(
        &self,
        text: &str,
        query: Option<&[f32]>,
        situation: &Situation,
    ) -> Result<Vec<Vec<f32>>, MemoryError> {
        let mut out = Vec::new();
        match query {
            Some(q) => out.push(q.to_vec()),
            None if !text.trim().is_empty() => out.push(self.models.embed_urgent(text)?),
            None => {}
        }
        let parts = clauses(text);
        if parts.len() > 1 {
            for c in parts {
                out.push(self.models.embed_urgent(&c)?);
            }
        }
        for fact in &situation.facts {
            for s in crate::conversation::split_sentences(fact) {
                out.push(self.models.embed_urgent(&s)?);
            }
        }
        Ok(out)
    }

    /// Whether a condition is met: by the clock or a number ([`condition::judge`]), else by the
    /// best similarity of the condition and the utterance or a fact sentence (`pieces`: their
    /// embeddings, `None` when the judge decided without them).
    fn condition_met(
        &self,
        cond: &str,
        text: &str,
        pieces: Option<&[Vec<f32>]>,
        situation: &Situation,
    ) -> Result<bool, MemoryError> {
        Ok(match condition::judge(cond, text, situation) {
            Verdict::Decided(v) => v,
            Verdict::BySimilarity => match pieces {
                Some(pieces) => {
                    let c = self.models.embed_urgent(cond)?;
                    pieces
                        .iter()
                        .map(|p| cosine(&c, p))
                        .fold(f32::NEG_INFINITY, f32::max)
                        >= condition::SIMILAR
                }
                None => false,
            },
        })
    }

    /// Among recalled preferences, per single-value detail: a conditional value whose condition
    /// is met displaces the unconditional one; one whose condition is not met gives way to an
    /// unconditional value of its detail, and is kept (marked not met) only when there is none,
    /// so that the assistant still hears of it.
    pub fn prefer_conditions(
        &self,
        out: &mut Vec<Recalled>,
        text: &str,
        query: &[f32],
        situation: &Situation,
    ) -> Result<(), MemoryError> {
        if out.iter().all(|r| r.preference.condition.is_none()) {
            return Ok(());
        }
        let pieces = self.situation_vectors(text, Some(query), situation)?;
        for r in out.iter_mut() {
            if let Some(c) = r.preference.condition.clone() {
                r.condition_met = Some(self.condition_met(&c, text, Some(&pieces), situation)?);
            }
        }
        let single = |d| self.schema.detail(d).cardinality == Cardinality::Single;
        let has = |out: &[Recalled], d, met: Option<bool>| {
            out.iter()
                .any(|r| r.preference.detail == d && r.condition_met == met)
        };
        let keep: Vec<bool> = out
            .iter()
            .map(|r| {
                let d = r.preference.detail;
                match r.condition_met {
                    Some(true) => true,
                    None => !(single(d) && has(out, d, Some(true))),
                    Some(false) => !has(out, d, None) && !has(out, d, Some(true)),
                }
            })
            .collect();
        let mut keep = keep.into_iter();
        out.retain(|_| keep.next().unwrap_or(true));
        Ok(())
    }

    /// Keeps the candidates whose relevance reaches the gate's floor: `recall.min_relevance`,
    /// or the model's relative share of the best candidate's relevance, whichever is higher.
    fn keep_relevant(&self, out: &mut Vec<Recalled>) {
        let best = out.iter().map(|r| r.relevance).fold(0.0, f32::max);
        let min = self.models.relevance.floor(best);
        out.retain(|r| r.relevance >= min);
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
        let mut out = self.rank(user, query, k, exclude)?;
        self.keep_relevant(&mut out);
        self.prefer_conditions(&mut out, "", query, &Situation::default())?;
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
                        condition_met: None,
                        now: None,
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
        // Per subcategory, the utterance's cosine to the nearest labelled request about it.
        let mut nearest: Vec<Option<f32>> = Vec::new();
        if let Some(prior) = prior {
            let lp = prior.log_probs(query, self.config().recall.sub_sharpness, exclude);
            nearest = prior.nearest(query, exclude);
            let w = self.config().recall.sub_prior;
            for r in &mut out {
                let sub = self.schema.detail(r.preference.detail).sub;
                r.log_prior = lp[sub.index()];
                r.score += w * r.log_prior;
            }
            out.sort_by(|a, b| b.score.total_cmp(&a.score));
        }
        let top = out.first().map_or(0.0, |r| r.score);
        let need = self.models.relevance.need(query);
        for r in &mut out {
            // Without requests about its subcategory (or without the prior): the cosine to the
            // preference itself.
            let sub = self.schema.detail(r.preference.detail).sub;
            let n = nearest
                .get(sub.index())
                .copied()
                .flatten()
                .unwrap_or(r.cosine);
            r.features = relevance::features(r.cosine, r.log_prior, r.score - top, n, need);
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

/// The clauses of an utterance of three words or more
/// ([`split_clauses`](crate::conversation::split_clauses)).
fn clauses(text: &str) -> Vec<String> {
    crate::conversation::split_clauses(text)
        .into_iter()
        .filter(|c| c.split_whitespace().count() >= 3)
        .collect()
}
