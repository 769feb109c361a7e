//! Corrections within one conversation: a speaker sets a typed setting and then corrects it
//! ("set the seat ventilation to level 3" ... "that's too strong, lower it to level 2"). The
//! correction rarely names the setting again, so the embedder cannot place it on its own; the
//! last word stands, so the setting's offer moves to the correcting sentence.
//!
//! A later sentence takes over a typed offer (integer, flag, or a vehicle setting's choice)
//! when it states a preference (passes the gate) or refers back to something said ("lower
//! *it*", "make *that* 2": [`refers_back`]), offers nothing of its own, names a value of that
//! setting's type and no other setting by its name ("My legs are tired." is not corrected by
//! "Raise the cushion extension to 50."), and its best category is that setting or no other
//! offered one. Pure: the caller passes what the sentence names.

use super::extract::Candidate;
use crate::schema::DetailId;

/// What extraction knows of one user sentence of the conversation.
#[derive(Debug, Clone, Copy)]
pub struct Sentence {
    /// Whether it passes the preference gate.
    pub passes: bool,
    /// Whether it refers back to something already said ([`refers_back`]).
    pub refers_back: bool,
    /// Its best category, if any scores.
    pub top: Option<DetailId>,
    /// Whether it states a habit ("usually", "always": `memory::usual::states_habit`).
    pub habit: bool,
}

/// Whether a sentence refers back with a pronoun ("it", "that", "this"): a correction of what
/// was just set rarely names the setting again. ("one" is not among them: it is more often a
/// number or "one day" than a setting referred back to.)
pub fn refers_back(sentence: &str) -> bool {
    sentence
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .any(|w| {
            matches!(
                w.to_lowercase().replace('’', "'").as_str(),
                "it" | "that" | "this" | "that's" | "it's"
            )
        })
}

/// Whether a sentence says that it corrects what was just set: "no", "not", "too", "meant",
/// "actually", "instead", "rather", "more", "less", "lower", "higher" ("No, that's too much
/// wind! I meant just a crack"; not "That song was number 3 in the charts").
pub fn says_correction(sentence: &str) -> bool {
    sentence.split(|c: char| !c.is_alphanumeric()).any(|w| {
        matches!(
            w.to_lowercase().as_str(),
            "no" | "not"
                | "too"
                | "meant"
                | "actually"
                | "instead"
                | "rather"
                | "more"
                | "less"
                | "lower"
                | "higher"
        )
    })
}

/// Moves each typed offer to the last later sentence that corrects it; an offer whose own
/// sentence states a habit and names a value stays too, before the correction, and so does a
/// switch whose correction gives a setting of its device ("open the window a bit" ... "I
/// meant just a crack, like 10 percent": the window is open, at 10). `typed(d)` says whether
/// the detail is typed (its values can be read without the LLM); `sets(d, i)` which detail
/// sentence `i` gives a value of as a correction of `d` (`d` itself, or for a switch a setting
/// of its device), naming no other setting.
pub fn follow(
    offered: Vec<Candidate>,
    sentences: &[Sentence],
    typed: impl Fn(DetailId) -> bool,
    sets: impl Fn(DetailId, usize) -> Option<DetailId>,
) -> Vec<Candidate> {
    let taken: Vec<usize> = offered.iter().map(|c| c.sentence).collect();
    let offered_details: Vec<DetailId> = offered.iter().map(|c| c.detail).collect();
    let mut claimed: Vec<usize> = Vec::new();
    offered
        .into_iter()
        .flat_map(|mut c| {
            if !typed(c.detail) {
                return vec![c];
            }
            let first = c;
            let later = (c.sentence + 1..sentences.len()).rev().find_map(|i| {
                let s = sentences[i];
                let own_or_free = match s.top {
                    Some(d) => d == c.detail || !offered_details.contains(&d),
                    None => true,
                };
                let may = (s.passes || s.refers_back)
                    && own_or_free
                    && !taken.contains(&i)
                    && !claimed.contains(&i);
                may.then(|| sets(c.detail, i)).flatten().map(|d| (i, d))
            });
            let Some((i, detail)) = later else {
                return vec![c];
            };
            claimed.push(i);
            c.sentence = i;
            c.detail = detail;
            if detail != first.detail {
                return vec![first, c];
            }
            // A value said as a habit stays beside the moment's correction ("The mirror is
            // usually at 69, but I hurt my back. Let me just nudge it to 75."): both are
            // stored in order, the habit first, so the newest is the moment's and a request
            // for the usual setting finds the habit (`memory::usual`).
            if sentences[first.sentence].habit
                && sets(first.detail, first.sentence) == Some(first.detail)
            {
                vec![first, c]
            } else {
                vec![c]
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::schema::Schema;

    /// Two details of the embedded schema, standing for two settings.
    fn ids() -> (DetailId, DetailId) {
        let s = Schema::embedded();
        (s.details()[3].id, s.details()[7].id)
    }

    fn cand(detail: DetailId, sentence: usize) -> Candidate {
        Candidate {
            detail,
            score: 0.5,
            sentence,
        }
    }

    fn s(passes: bool, top: Option<DetailId>) -> Sentence {
        Sentence {
            passes,
            refers_back: false,
            top,
            habit: false,
        }
    }

    #[test]
    fn a_correction_says_so() {
        assert!(says_correction("No, that's too much wind!"));
        assert!(says_correction("I meant just a crack, like 10 percent."));
        assert!(!says_correction("That song was number 3 in the charts."));
    }

    #[test]
    fn pronouns_refer_back() {
        assert!(refers_back("Lower it to level 2."));
        assert!(refers_back("Make that a 4."));
        assert!(!refers_back("I've been driving for 3 hours."));
        assert!(!refers_back("Italian food is great."));
    }

    #[test]
    fn the_last_correction_takes_the_offer() {
        let (vent, volume) = ids();
        // 0: "set the ventilation to 3", 1: small talk, 2: "lower it to 2", 3: "no, to 1".
        let sentences = [
            s(true, Some(vent)),
            s(false, None),
            s(true, Some(volume)),
            s(true, None),
        ];
        let names = |d, i| (i != 1).then_some(d);
        let out = follow(vec![cand(vent, 0)], &sentences, |_| true, names);
        assert_eq!(out[0].sentence, 3);
    }

    #[test]
    fn a_sentence_about_another_offered_setting_or_without_a_value_is_left_alone() {
        let (vent, volume) = ids();
        let sentences = [s(true, Some(vent)), s(true, Some(volume)), s(true, None)];
        let offered = vec![cand(vent, 0), cand(volume, 1)];
        // Sentence 2 names no value: nothing moves; sentence 1 is volume's own.
        let out = follow(
            offered.clone(),
            &sentences,
            |_| true,
            |d, i| (i == 1).then_some(d),
        );
        assert_eq!(out, offered);
        // A sentence that fails the gate and refers to nothing said is no correction...
        let sentences = [s(true, Some(vent)), s(false, None)];
        let out = follow(vec![cand(vent, 0)], &sentences, |_| true, |d, _| Some(d));
        assert_eq!(out[0].sentence, 0);
        // ...one that refers back is.
        let mut back = s(false, None);
        back.refers_back = true;
        let out = follow(
            vec![cand(vent, 0)],
            &[s(true, Some(vent)), back],
            |_| true,
            |d, _| Some(d),
        );
        assert_eq!(out[0].sentence, 1);
    }

    #[test]
    fn a_habit_stays_beside_the_moment_that_corrects_it() {
        let (vent, _) = ids();
        let mut habit = s(true, Some(vent));
        habit.habit = true;
        let sentences = [habit, s(true, None)];
        let out = follow(vec![cand(vent, 0)], &sentences, |_| true, |d, _| Some(d));
        assert_eq!(out, [cand(vent, 0), cand(vent, 1)]);
        // A habit that names no value of its own gives way as before.
        let out = follow(
            vec![cand(vent, 0)],
            &sentences,
            |_| true,
            |d, i| (i == 1).then_some(d),
        );
        assert_eq!(out, [cand(vent, 1)]);
    }

    #[test]
    fn a_switch_corrected_by_a_setting_of_its_device_stays_beside_it() {
        let (switch, degree) = ids();
        // 0: "open the window a bit", 1: "I meant just a crack, like 10 percent".
        let sentences = [s(true, Some(switch)), s(true, None)];
        let sets = |d, i| match i {
            1 => Some(degree),
            _ => Some(d),
        };
        let out = follow(vec![cand(switch, 0)], &sentences, |_| true, sets);
        assert_eq!(out, [cand(switch, 0), cand(degree, 1)]);
    }

    #[test]
    fn untyped_offers_stay() {
        let (vent, _) = ids();
        let sentences = [s(true, Some(vent)), s(true, None)];
        let out = follow(vec![cand(vent, 0)], &sentences, |_| false, |d, _| Some(d));
        assert_eq!(out[0].sentence, 0);
    }
}
