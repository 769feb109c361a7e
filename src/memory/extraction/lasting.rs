//! The lasting track (`extraction.hold_one_off`): a second gate and offer decision, taught
//! issue 13's definition of a lasting preference (CarMem's revealing sentences that are one-off
//! requests read as negatives, `config/lasting-labels.jsonl`), read beside the preference
//! gate's. An offer from a sentence the lasting gate reads as a one-off request is marked
//! [`Extracted::one_off`] and stored pending (`memory::lifecycle`): remembered, not recalled
//! until asked for again later or confirmed. With `extraction.lasting_offers` the track also
//! offers what its gate and offer decision find, beside the first track's offers.
//!
//! [`Extracted::one_off`]: super::super::extract::Extracted::one_off

use super::super::extract::{self, Candidate, Extracted};
use super::super::{gate, offer, values, MemoryError, Models};
use crate::conversation::{split_clauses, split_sentences};
use crate::schema::Schema;

/// The lasting track's models, with their thresholds.
#[derive(Debug, Clone)]
pub struct LastingTrack {
    pub gate: gate::Gate,
    /// `None` under `offers = "margin"` or without `extraction.lasting_offers` (not read).
    pub offer: Option<offer::OfferModel>,
}

/// What the lasting track reads of each statement.
pub(super) struct Lasting {
    /// The lasting gate's probability (of the whole statement or its most lasting sentence,
    /// [`Models::read_lasting`]).
    pub gate: Vec<f32>,
    /// Whether it passes as a preference sentence (the preference gate's rule, this gate).
    pub passes: Vec<bool>,
    /// For a statement that opens with a request to the car ([`extract::beside_commands`]),
    /// the gate's probability of what it says beside its requests (0 when nothing): what
    /// makes such a request lasting or not ([`Models::one_off`]).
    pub beside: Vec<Option<f32>>,
}

impl Models {
    /// What the lasting track reads of each statement (from the same embedder pass as the
    /// preference gate); `None` when it is off. A statement of several sentences (one that
    /// points back joined to the one it is about, [`extract::statements`]) reads as lasting
    /// as its most lasting sentence read alone, or as the whole: "Set the temperature to 25
    /// degrees, please. That's the best for me." is a request with a standing remark beside
    /// it, not a one-off (only such statements' sentences are embedded again).
    pub(super) fn read_lasting(
        &self,
        (sentences, vecs, taps): (&[String], &[Vec<f32>], &[Vec<f32>]),
    ) -> Result<Option<Lasting>, MemoryError> {
        let Some(track) = self.lasting.as_ref() else {
            return Ok(None);
        };
        let mut gate = probabilities(&track.gate, (sentences, vecs, taps));
        let parts: Vec<(usize, String)> = sentences
            .iter()
            .enumerate()
            .map(|(i, s)| (i, split_sentences(s)))
            .filter(|(_, p)| p.len() > 1)
            .flat_map(|(i, p)| p.into_iter().map(move |s| (i, s)))
            .collect();
        if !parts.is_empty() {
            let texts: Vec<String> = parts.iter().map(|(_, s)| s.clone()).collect();
            let (pv, pt) = self.embed_sentences(&texts)?;
            let pg = probabilities(&track.gate, (&texts, &pv, &pt));
            for ((i, _), p) in parts.iter().zip(pg) {
                gate[*i] = gate[*i].max(p);
            }
        }
        let passes = passing(&track.gate, &gate, sentences);
        let beside = self.beside_requests(&track.gate, sentences)?;
        Ok(Some(Lasting {
            gate,
            passes,
            beside,
        }))
    }

    /// For each statement that opens with a request to the car, `gate`'s probability of what
    /// it says beside its requests, read alone (0 when it says nothing else); `None` for the
    /// others. Only such statements' other clauses are embedded.
    fn beside_requests(
        &self,
        gate: &gate::Gate,
        sentences: &[String],
    ) -> Result<Vec<Option<f32>>, MemoryError> {
        let rest: Vec<Option<String>> = sentences
            .iter()
            .map(|s| extract::beside_commands(s))
            .collect();
        let texts: Vec<String> = rest
            .iter()
            .flatten()
            .filter(|r| !r.is_empty())
            .cloned()
            .collect();
        let mut read = if texts.is_empty() {
            Vec::new()
        } else {
            let (v, t) = self.embed_sentences(&texts)?;
            probabilities(gate, (&texts, &v, &t))
        }
        .into_iter();
        Ok(rest
            .iter()
            .map(|r| match r.as_deref() {
                None => None,
                Some("") => Some(0.0),
                Some(_) => read.next(),
            })
            .collect())
    }

    /// The offers of both tracks: the lasting track's first, then the first track's
    /// (`offered`, from its `passes`) of the categories and sentences it does not offer, at
    /// most `how.max`. The lasting track's bar is the strongest sentence either track passes.
    pub(super) fn with_lasting_offers(
        &self,
        (offered, passes): (Vec<Candidate>, &[bool]),
        lasting: Option<&Lasting>,
        scores: &[Vec<f32>],
        allowed: &crate::schema::DetailSet,
        how: &extract::Offering,
    ) -> Vec<Candidate> {
        let (Some(track), Some(l)) = (self.lasting.as_ref(), lasting) else {
            return offered;
        };
        let rivals = either(passes, Some(l));
        let how = extract::Offering {
            model: track.offer.as_ref(),
            rivals: Some(&rivals),
            ..*how
        };
        let first = extract::offers(&self.schema, scores, (&l.gate, &l.passes), allowed, &how);
        merged_offers(first, offered, how.max)
    }

    /// Whether `item`, read from statement `at`, is a one-off request: the lasting track is
    /// on, its gate scores the statement below its threshold, or what a statement opening
    /// with a request to the car says beside it ([`Lasting::beside`]: nothing, "Shuffle my
    /// liked songs on Spotify."; a reason of the moment, "Stick on BBC Radio 4, I want to catch
    /// the six o'clock news."), or the clause that says the value holds for the present
    /// occasion only ([`for_the_moment`]), and no other statement it passes says the same
    /// value as lasting ([`said_lasting_elsewhere`]).
    pub(super) fn one_off(
        &self,
        item: &Extracted,
        (sentences, at): (&[String], usize),
        lasting: Option<&Lasting>,
    ) -> bool {
        match (self.lasting.as_ref(), lasting) {
            (Some(track), Some(l)) => {
                (!track.gate.passes(l.gate[at])
                    || l.beside[at].is_some_and(|p| !track.gate.passes(p))
                    || for_the_moment(item, &sentences[at]))
                    && !said_lasting_elsewhere(&self.schema, item, (sentences, at), &l.passes)
                    && !affirmed_next(&self.schema, item, (sentences, at), &l.passes)
            }
            _ => false,
        }
    }
}

/// Whether the clause of `statement` that says `item`'s value (the first that says its words;
/// the whole statement when none does, as for a level the words do not name) asks for the
/// present occasion only ([`extract::for_the_moment`]): "Put BBC Radio 2 on for a bit, I want
/// to catch the travel news" is a one-off however lasting the gate reads its reason; "We're
/// vegetarian at home, so find somewhere with proper veggie food for tonight" is not. A value
/// no clause says, read from a complaint about how things are now ([`extract::complains_of_now`]:
/// `Low` from "ugh, these lights are way too bright, I've got a banging headache"), is one too.
pub(super) fn for_the_moment(item: &Extracted, statement: &str) -> bool {
    let value = values::turned_down(&item.attribute).unwrap_or(&item.attribute);
    let said = split_clauses(statement)
        .into_iter()
        .find(|c| values::says_words(c, value));
    match said {
        Some(clause) => extract::for_the_moment(&clause),
        None => extract::for_the_moment(statement) || extract::complains_of_now(statement),
    }
}

/// Whether a statement other than `at` that the lasting track passes (`passes`) names
/// `item`'s value (its words, the catalogue value it names, or an alias) and turns it down
/// just when the value does: the conversation says the value as lasting too ("Can you set the
/// temperature to 21 degrees? 21 degrees is what I like in the car."), whichever sentence the
/// category matched best.
pub(super) fn said_lasting_elsewhere(
    schema: &Schema,
    item: &Extracted,
    (sentences, at): (&[String], usize),
    passes: &[bool],
) -> bool {
    let refused = values::turned_down(&item.attribute);
    let value = refused.unwrap_or(&item.attribute);
    let names = |s: &String| {
        values::says_words(s, value)
            || values::named_values(schema, item.detail, std::slice::from_ref(s)).contains(&value)
            || values::says_alias(schema, item.detail, value, s)
    };
    sentences
        .iter()
        .zip(passes)
        .enumerate()
        .any(|(i, (s, &p))| {
            i != at && p && names(s) && values::turns_down(s, value) == refused.is_some()
        })
}

/// Whether the statement right after `at` says `item`'s value is lasting by pointing back to
/// it: the lasting track passes it (`passes`), its first word points back, it says the
/// value's setting and names no value of it: "Set it to 22 degrees, please. That's the
/// temperature I always like in here." (not joined to the request, as it names its setting).
pub(super) fn affirmed_next(
    schema: &Schema,
    item: &Extracted,
    (sentences, at): (&[String], usize),
    passes: &[bool],
) -> bool {
    let Some(next) = sentences.get(at + 1) else {
        return false;
    };
    passes.get(at + 1) == Some(&true)
        && extract::said_of_the_one_before(next)
        && extract::says_its_device(schema, item.detail, next)
        && values::named_values(schema, item.detail, std::slice::from_ref(next)).is_empty()
}

/// What `gate` reads of each statement (embedding, pooling, words), for either track: its
/// probability, and whether the statement passes: scored at or above the threshold and able
/// to say a lasting preference of its speaker at all ([`extract::speakers_own`]: not about or for someone else,
/// no supposition, no question for an answer, no wish for the moment only, no reminder).
pub(super) fn gated(
    gate: &gate::Gate,
    (sentences, vecs, taps): (&[String], &[Vec<f32>], &[Vec<f32>]),
) -> (Vec<f32>, Vec<bool>) {
    let p = probabilities(gate, (sentences, vecs, taps));
    let passes = passing(gate, &p, sentences);
    (p, passes)
}

/// `gate`'s probability of each statement (see [`gated`]).
fn probabilities(
    gate: &gate::Gate,
    (sentences, vecs, taps): (&[String], &[Vec<f32>], &[Vec<f32>]),
) -> Vec<f32> {
    vecs.iter()
        .zip(taps)
        .zip(sentences)
        .map(|((v, t), s)| gate.probability(v, t, s))
        .collect()
}

/// Whether each statement passes `gate` at probability `p` (see [`gated`]).
fn passing(gate: &gate::Gate, p: &[f32], sentences: &[String]) -> Vec<bool> {
    p.iter()
        .zip(sentences)
        .map(|(&p, s)| gate.passes(p) && extract::speakers_own(s))
        .collect()
}

/// The sentences either track passes (`passes`: the first track's).
pub(super) fn either(passes: &[bool], lasting: Option<&Lasting>) -> Vec<bool> {
    match lasting {
        Some(l) => passes
            .iter()
            .zip(&l.passes)
            .map(|(a, b)| *a || *b)
            .collect(),
        None => passes.to_vec(),
    }
}

/// `first`, then those of `then` whose category and sentence `first` does not offer (a
/// sentence's offers come from one track, so it offers no more categories than
/// `extraction.shortlist`), at most `max`.
pub fn merged_offers(first: Vec<Candidate>, then: Vec<Candidate>, max: usize) -> Vec<Candidate> {
    let mut out = first;
    let first_len = out.len();
    for c in then {
        if !out[..first_len]
            .iter()
            .any(|o| o.detail == c.detail || o.sentence == c.sentence)
            && !out.iter().any(|o| o.detail == c.detail)
        {
            out.push(c);
        }
    }
    out.truncate(max);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offer(detail: usize, sentence: usize) -> Candidate {
        Candidate {
            detail: crate::schema::Schema::embedded().details()[detail].id,
            score: 0.5,
            sentence,
        }
    }

    fn said(x: &[&str]) -> Vec<String> {
        x.iter().map(|t| t.to_string()).collect()
    }

    fn item(key: &str, attribute: &str) -> Extracted {
        Extracted {
            detail: Schema::embedded().detail_by_key(key).unwrap(),
            attribute: attribute.into(),
            sentence: String::new(),
            confidence: 1.0,
            condition: None,
            one_off: false,
        }
    }

    #[test]
    fn a_remark_that_points_back_to_the_request_and_names_its_setting_makes_it_no_one_off() {
        let s = Schema::embedded();
        let temp = item("preferred_temperature", "22 degree Celcius");
        let conv = said(&[
            "Set it to 22 degrees, please.",
            "That's the temperature I always like in here.",
        ]);
        assert!(affirmed_next(&s, &temp, (&conv, 0), &[false, true]));
        // Only where the lasting track passes the remark, and only for the sentence before it.
        assert!(!affirmed_next(&s, &temp, (&conv, 0), &[false, false]));
        assert!(!affirmed_next(&s, &temp, (&conv, 1), &[false, true]));
        // A remark about another setting, one that does not point back, or one naming a value
        // of its own says nothing of the request's value.
        for other in [
            "That's the station I always listen to.",
            "The temperature I always like is what I asked for.",
            "And turn it up a couple of degrees, I always like the temperature warm.",
            "That's the temperature I always like, 21 degrees.",
        ] {
            let conv = said(&["Set it to 22 degrees, please.", other]);
            assert!(
                !affirmed_next(&s, &temp, (&conv, 0), &[false, true]),
                "{other}"
            );
        }
    }

    #[test]
    fn a_value_said_as_lasting_in_another_passing_sentence_is_no_one_off() {
        let s = Schema::embedded();
        let temp = item("preferred_temperature", "21 degree Celcius");
        let conv = said(&[
            "Can you set the temperature to 21 degrees?",
            "21 degrees is what I like in the car.",
        ]);
        // The catalogue value the other sentence names, where the lasting track passes it.
        assert!(said_lasting_elsewhere(
            &s,
            &temp,
            (&conv, 0),
            &[false, true]
        ));
        assert!(!said_lasting_elsewhere(
            &s,
            &temp,
            (&conv, 0),
            &[true, false]
        ));
        // Only another sentence counts, and only one naming this value.
        assert!(!said_lasting_elsewhere(
            &s,
            &temp,
            (&conv, 1),
            &[false, true]
        ));
        let other = said(&["Set 21 degrees.", "I like it at 23 degrees."]);
        assert!(!said_lasting_elsewhere(
            &s,
            &temp,
            (&other, 0),
            &[false, true]
        ));
        // The user's own words; a value turned down only by a sentence that turns it down.
        let radio = item("preferred_radio_station", "BBC Radio 4");
        let conv = said(&[
            "Put on BBC Radio 4.",
            "BBC Radio 4 is my favourite station.",
        ]);
        assert!(said_lasting_elsewhere(
            &s,
            &radio,
            (&conv, 0),
            &[false, true]
        ));
        let hated = said(&["Put on BBC Radio 4.", "I never listen to BBC Radio 4."]);
        assert!(!said_lasting_elsewhere(
            &s,
            &radio,
            (&hated, 0),
            &[false, true]
        ));
        let not = item("preferred_radio_station", "not BBC Radio 4");
        assert!(said_lasting_elsewhere(
            &s,
            &not,
            (&hated, 0),
            &[false, true]
        ));
    }

    #[test]
    fn the_lasting_tracks_offers_come_first_and_each_category_and_sentence_from_one_track() {
        let merged = merged_offers(
            vec![offer(3, 1)],
            vec![offer(3, 0), offer(5, 0), offer(6, 1), offer(7, 2)],
            3,
        );
        // Not 6: sentence 1 gives the lasting track's offer.
        assert_eq!(merged, vec![offer(3, 1), offer(5, 0), offer(7, 2)]);
        assert_eq!(
            merged_offers(vec![], vec![offer(5, 0)], 3),
            vec![offer(5, 0)]
        );
        assert_eq!(
            merged_offers(vec![offer(1, 0), offer(2, 1)], vec![offer(5, 2)], 2).len(),
            2
        );
    }
}
