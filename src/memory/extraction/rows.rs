//! How what a sentence says plainly reorders its categories before the offers are made
//! ([`Models::settle_rows`]).

use super::super::extract;
use super::super::{correction, Models};
use crate::schema::DetailId;

impl Models {
    /// What a passing sentence says plainly reorders its categories: the categories whose
    /// value it would have to name and does not are dropped first ([`Models::prefer_named`]);
    /// then, with `extraction.names_first`, the settings it names come first
    /// ([`extract::names_first`]: within `margin` of the best that can hold what it says, so
    /// "I like the ambient light, but the reading light is too dim. Set it to 8." is the
    /// reading light, not the ambient colour it names no colour of); then a category of names
    /// before a closed list beside it, when it names a thing ([`extract::names_before_lists`]);
    /// then the speaker's setting that holds a value it names ([`extract::held_value_first`]);
    /// last, the setting of the sentence before, for a sentence that refers back to it
    /// ([`Models::antecedent_first`]).
    pub(super) fn settle_rows(
        &self,
        scores: &mut [Vec<f32>],
        passes: &[bool],
        sentences: &[String],
        held: &extract::Held,
    ) {
        self.prefer_named(scores, passes, sentences);
        if self.cfg.extraction.names_first {
            for (i, row) in scores.iter_mut().enumerate() {
                if passes.get(i).copied().unwrap_or(false) {
                    extract::names_first(
                        &self.schema,
                        row,
                        &sentences[i],
                        self.cfg.extraction.margin,
                    );
                }
            }
        }
        for (i, row) in scores.iter_mut().enumerate() {
            if passes.get(i).copied().unwrap_or(false) {
                extract::names_before_lists(
                    &self.schema,
                    row,
                    sentences,
                    i,
                    self.cfg.extraction.margin,
                );
                extract::said_value_first(
                    &self.schema,
                    row,
                    &sentences[i],
                    self.cfg.extraction.margin,
                );
                extract::held_value_first(&self.schema, row, &sentences[i], held);
            }
        }
        self.antecedent_first(scores, passes, sentences);
    }

    /// Among a passing sentence's closest categories, those whose value it names come before
    /// those whose value it would have to name and does not: "Let me bump it up to 84." is
    /// nearest the cabin temperature (as in "I'll bump it up to 22"), but 84 is no temperature
    /// and is a seat position; the categories that cannot hold what it says are dropped from
    /// its row. A sentence that names no such value keeps its row (it may name the setting
    /// that a later sentence gives a value, [`Models::follow_corrections`]). A question offers
    /// none of the categories whose value must be named, nor any vehicle setting: it asks, it
    /// does not state; unless it is a request ([`extract::requests`]).
    fn prefer_named(&self, scores: &mut [Vec<f32>], passes: &[bool], sentences: &[String]) {
        const CLOSEST: usize = 5;
        for (i, row) in scores.iter_mut().enumerate() {
            if !passes.get(i).copied().unwrap_or(false) {
                continue;
            }
            let mut top: Vec<usize> = (0..row.len()).collect();
            top.sort_by(|&a, &b| row[b].total_cmp(&row[a]));
            top.truncate(CLOSEST);
            let ids: Vec<DetailId> = top.iter().map(|&k| self.schema.details()[k].id).collect();
            let must: Vec<bool> = ids.iter().map(|&d| self.must_name(d)).collect();
            let named: Vec<bool> = ids
                .iter()
                .zip(&must)
                .map(|(&d, &m)| m && self.names(d, &sentences[i]))
                .collect();
            // A question asks; it states no setting's value ("Is 84 the optimal setting?"),
            // nor a vehicle setting's free text ("Who's visiting?" is no destination); a
            // request in a question's form does ("Could you set the massage to level 2?").
            if sentences[i].trim_end().ends_with('?') && !extract::requests(&sentences[i]) {
                // All of them, not only the closest: the next one would take their place
                // ("Can you turn the music volume down to 12?" was stored as the video's).
                for (k, d) in self.schema.details().iter().enumerate() {
                    if d.call.is_some() || self.must_name(d.id) {
                        row[k] = f32::NEG_INFINITY;
                    }
                }
                continue;
            }
            if !named.iter().any(|&n| n) {
                continue;
            }
            for ((&k, &m), &n) in top.iter().zip(&must).zip(&named) {
                if m && !n {
                    row[k] = f32::NEG_INFINITY;
                }
            }
        }
    }

    /// A passing sentence that refers back ("Let me bump *it* up to 84.": [`correction::refers_back`])
    /// and names no setting speaks of the setting of the passing sentence before it ("82 is too
    /// low.", which the speaker's seat height holds), when it names a value of that setting:
    /// that setting comes first in its row. The embedder, given a pronoun and a number, guesses
    /// (here the navigation volume); the sentence before says what "it" is. Rows are settled in
    /// order, so a chain of such sentences keeps one setting.
    fn antecedent_first(&self, scores: &mut [Vec<f32>], passes: &[bool], sentences: &[String]) {
        let passing = |i: usize| passes.get(i).copied().unwrap_or(false);
        for i in 1..scores.len().min(sentences.len()) {
            if !passing(i)
                || !passing(i - 1)
                || !correction::refers_back(&sentences[i])
                || !extract::spoken_names(&self.schema, &sentences[i]).is_empty()
            {
                continue;
            }
            let Some((k, _)) = extract::best_category(&scores[i - 1]) else {
                continue;
            };
            let d = self.schema.details()[k].id;
            if !self.must_name(d) || !self.names(d, &sentences[i]) {
                continue;
            }
            let row = &mut scores[i];
            let top = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            if row[k].is_finite() && row[k] < top {
                row[k] = extract::just_above(top, row[k]);
            }
        }
    }
}
