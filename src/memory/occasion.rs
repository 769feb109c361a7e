//! The occasion a value was given on: a setting's earlier value comes back when the moment it is
//! asked in resembles the occasion it was given on more than the current value's.
//!
//! People set a value for a reason and say the reason in passing: "The rain on the roof is so
//! loud I can't hear the directions. Increase the volume to 80." Later the same setting is
//! given another value ("Navigation voice at fifty, that's a good standard volume."), and
//! weeks later the moment comes again in other words ("A severe thunderstorm was hammering the
//! car roof"). Neither value is conditional (no "when" was said), so condition matching
//! ([`super::condition`]) has nothing to match; the newest value is what recall would return.
//!
//! Each value a person gave a setting is kept in their history with its sentence and the
//! occasion, what they said just before it in the same conversation
//! ([`crate::pref::HistoryEntry::occasion`]). For a single-value setting, recall of that
//! setting ([`Memory::recall_category`]) scores each of the person's unconditional values by
//! the best cosine similarity between the moment (the utterance, its clauses, the situation's
//! fact sentences) and the sentences of the occasions and evidence it was given with. An earlier
//! value replaces the current one only when its score exceeds the current value's by at least
//! `recall.occasion_margin` (off when unset): the margin is fitted on the development histories
//! and reported cross-validated by file (docs/results.md), not chosen by hand.

use super::{Memory, MemoryError};
use crate::conversation::split_sentences;
use crate::embed::cosine;
use crate::memory::condition::Situation;
use crate::pref::{Operation, Preference, UserId};
use crate::schema::DetailId;

/// One value a person gave a setting, with how much the moment resembles the occasions it was
/// given on.
#[derive(Debug, Clone, PartialEq)]
pub struct Occasion {
    pub value: String,
    /// The best cosine similarity between a piece of the moment and a sentence of an occasion
    /// (or the evidence) of this value.
    pub similarity: f32,
    /// The same, over the occasions' sentences alone (without the evidence); `None` when the
    /// value was given with no occasion.
    pub on_occasion: Option<f32>,
    /// Whether this is the value recall returns without occasions.
    pub current: bool,
}

impl Memory {
    /// The person's unconditional values of `detail` in their history, each scored against the
    /// moment (`text` and `situation`); `current` is the value recall holds now. Empty when the
    /// history holds no value other than the current one.
    pub fn occasions(
        &self,
        user: &UserId,
        detail: DetailId,
        current: &Preference,
        text: &str,
        situation: &Situation,
    ) -> Result<Vec<Occasion>, MemoryError> {
        let same = |a: &str, b: &str| a.trim().eq_ignore_ascii_case(b.trim());
        // Each value's words, oldest first: its sentences and their occasions.
        let mut words: Vec<(String, Vec<(bool, String)>)> = Vec::new();
        for h in self.store.history(user)? {
            let Some(after) = h.after.as_ref() else {
                continue;
            };
            let given = matches!(
                h.op,
                Operation::Append | Operation::Update | Operation::Pass
            );
            if !given || after.detail != detail || after.condition.is_some() || after.user != *user
            {
                continue;
            }
            let Some(sentence) = h.sentence.as_deref() else {
                continue;
            };
            let mut said: Vec<(bool, String)> = h
                .occasion
                .as_deref()
                .map(split_sentences)
                .unwrap_or_default()
                .into_iter()
                .map(|s| (true, s))
                .collect();
            said.extend(split_sentences(sentence).into_iter().map(|s| (false, s)));
            match words.iter_mut().find(|(v, _)| same(v, &after.attribute)) {
                Some((_, w)) => w.extend(said),
                None => words.push((after.attribute.clone(), said)),
            }
        }
        if words.iter().all(|(v, _)| same(v, &current.attribute)) {
            return Ok(Vec::new());
        }
        // A current value with no history of its own (imported): its evidence speaks for it.
        if !words.iter().any(|(v, _)| same(v, &current.attribute)) {
            let said = current
                .sentences
                .iter()
                .flat_map(|s| split_sentences(s))
                .map(|s| (false, s))
                .collect();
            words.push((current.attribute.clone(), said));
        }
        let moment = self.situation_vectors(text, None, situation)?;
        let mut out = Vec::new();
        for (value, said) in words {
            let (mut best, mut on_occasion) = (f32::NEG_INFINITY, None::<f32>);
            for (is_occasion, s) in &said {
                let v = self.models.embed_urgent(s)?;
                for m in &moment {
                    let c = cosine(&v, m);
                    best = best.max(c);
                    if *is_occasion {
                        on_occasion = Some(on_occasion.map_or(c, |o| o.max(c)));
                    }
                }
            }
            out.push(Occasion {
                current: same(&value, &current.attribute),
                value,
                similarity: best,
                on_occasion,
            });
        }
        Ok(out)
    }

    /// The earlier value whose occasions the moment resembles more than the current value's by
    /// at least `recall.occasion_margin`, if the margin is set and there is one.
    pub(super) fn by_occasion(
        &self,
        user: &UserId,
        detail: DetailId,
        current: &Preference,
        text: &str,
        situation: &Situation,
    ) -> Result<Option<String>, MemoryError> {
        let Some(margin) = self.config().recall.occasion_margin else {
            return Ok(None);
        };
        Ok(pick(
            &self.occasions(user, detail, current, text, situation)?,
            margin,
        ))
    }
}

/// The value that `margin` lets replace the current one: the best-scored other value, when it
/// beats the current value's score by at least `margin`.
pub fn pick(occasions: &[Occasion], margin: f32) -> Option<String> {
    let now = occasions
        .iter()
        .filter(|o| o.current)
        .map(|o| o.similarity)
        .fold(f32::NEG_INFINITY, f32::max);
    let best = occasions
        .iter()
        .filter(|o| !o.current)
        .max_by(|a, b| a.similarity.total_cmp(&b.similarity))?;
    (best.similarity - now >= margin).then(|| best.value.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o(value: &str, similarity: f32, current: bool) -> Occasion {
        Occasion {
            value: value.into(),
            similarity,
            on_occasion: None,
            current,
        }
    }

    #[test]
    fn an_earlier_value_comes_back_only_by_the_margin() {
        let scored = [
            o("50", 0.30, true),
            o("80", 0.62, false),
            o("60", 0.40, false),
        ];
        assert_eq!(pick(&scored, 0.2), Some("80".into()));
        assert_eq!(pick(&scored, 0.35), None);
        // The current value's own occasion resembles the moment best: it stays.
        let scored = [o("50", 0.70, true), o("80", 0.62, false)];
        assert_eq!(pick(&scored, 0.0), None);
        // Nothing else was ever said.
        assert_eq!(pick(&[o("50", 0.7, true)], 0.0), None);
    }
}
