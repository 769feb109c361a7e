//! Spoken copies of the gate's training turns (`glovebox eval gate --spoken`).
//!
//! A speech recogniser in a car delivers what the driver says without capitals or marks, and
//! nothing then splits a turn into sentences: the gate reads the whole turn, and a question has
//! lost the mark that said so ("can i pay by card there"). The development data are written, so
//! a gate fitted on them alone learns from marks the head unit may never see. With `--spoken`
//! each user turn is also fitted on as the recogniser writes it (the rule of
//! `scripts/asr-form`): one sample per turn, labelled as the sentences it holds are (a turn
//! holding the revealing sentence is a positive), in the same fold group as the written turn.
//! Its `unit` ends in [`SUFFIX`], so the report measures written and spoken conversations apart.

use crate::conversation::Role;

use super::{Sample, Source};

/// What a spoken copy's `unit` ends with.
pub const SUFFIX: &str = "/spoken";

/// Whether a sample is a spoken copy.
pub fn is_spoken(s: &Sample) -> bool {
    s.unit.ends_with(SUFFIX)
}

/// `text` as a recogniser without punctuation writes it: lower case; every mark a space, but an
/// apostrophe inside a word ("don't", "McDonald's") and a point or comma between digits
/// ("2.5") stay; runs of spaces one. The same rule as `scripts/asr-form`.
pub fn spoken(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let word = |c: Option<&char>| c.is_some_and(|c| c.is_alphanumeric() || *c == '_');
    let digit = |c: Option<&char>| c.is_some_and(|c| c.is_ascii_digit());
    let mut kept = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        let (before, after) = (
            i.checked_sub(1).and_then(|j| chars.get(j)),
            chars.get(i + 1),
        );
        if c.is_alphanumeric() || c.is_whitespace() {
            kept.extend(c.to_lowercase());
        } else if matches!(c, '.' | ',') && digit(before) && digit(after) {
            kept.push(c);
        } else if matches!(c, '\'' | '\u{2019}') && word(before) && word(after) {
            kept.push('\'');
        } else {
            kept.push(' ');
        }
    }
    kept.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One spoken sample per turn of `turns` (each the samples of one user turn's sentences, in
/// order): the turn's sentences spoken as one, positive when one of them is, of the source its
/// most telling sentence has (the revealing one, else a labelled request, else the first's). A
/// turn the rule leaves as written is already fitted on and gives none.
pub fn spoken_turns(turns: &[&[Sample]]) -> Vec<Sample> {
    turns
        .iter()
        .filter_map(|turn| {
            let first = turn.first()?;
            let written = turn
                .iter()
                .map(|s| s.text.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            let text = spoken(&written);
            if text.is_empty() || (turn.len() == 1 && text == first.text) {
                return None;
            }
            let positive = turn.iter().any(|s| s.positive);
            let source = turn
                .iter()
                .find(|s| s.positive)
                .or_else(|| {
                    turn.iter()
                        .find(|s| s.source == Source::CarmemLabelledRequest)
                })
                .map_or(first.source, |s| s.source);
            Some(Sample {
                text,
                positive,
                source,
                unit: format!("{}{SUFFIX}", first.unit),
                group: first.group.clone(),
            })
        })
        .collect()
}

/// The spoken copies of one conversation's samples (one per user sentence of `turns`, in
/// order): [`spoken_turns`] of them cut back into its user turns.
pub fn spoken_copies(samples: &[Sample], turns: &[crate::conversation::Turn]) -> Vec<Sample> {
    spoken_turns(&by_turn(samples, &sentences_per_turn(turns)))
}

/// The user turns of `turns` as the number of sentences each holds, for cutting a conversation's
/// samples (one per user sentence, in order) back into turns.
fn sentences_per_turn(turns: &[crate::conversation::Turn]) -> Vec<usize> {
    turns
        .iter()
        .filter(|t| t.role == Role::User)
        .map(|t| crate::conversation::split_sentences(&t.text).len())
        .collect()
}

/// `samples` (one per user sentence of a conversation, in order) cut into turns of `sizes`.
fn by_turn<'a>(samples: &'a [Sample], sizes: &[usize]) -> Vec<&'a [Sample]> {
    let mut out = Vec::with_capacity(sizes.len());
    let mut rest = samples;
    for &n in sizes {
        let (turn, tail) = rest.split_at(n.min(rest.len()));
        out.push(turn);
        rest = tail;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recogniser_writes_no_marks_and_no_capitals() {
        assert_eq!(
            spoken("Where's the closest McDonald's? The kids are starving!"),
            "where's the closest mcdonald's the kids are starving"
        );
        assert_eq!(spoken("Set it to 21.5, please."), "set it to 21.5 please");
        assert_eq!(
            spoken("Rock, pop, jazz - \"anything\"."),
            "rock pop jazz anything"
        );
        assert_eq!(
            spoken("It's 1,000 km \u{2019}til home"),
            "it's 1,000 km til home"
        );
        assert_eq!(spoken("?!"), "");
    }

    fn sample(text: &str, positive: bool, source: Source) -> Sample {
        Sample {
            text: text.into(),
            positive,
            source,
            unit: "u1".into(),
            group: "g1".into(),
        }
    }

    #[test]
    fn a_turn_is_one_spoken_sample_labelled_by_its_sentences() {
        let turns = [
            vec![
                sample("Find me a Lidl.", false, Source::CarmemOther),
                sample(
                    "I do all my shopping there.",
                    true,
                    Source::CarmemPreference,
                ),
            ],
            vec![sample("Thanks!", false, Source::CarmemOther)],
            vec![sample("ok thanks", false, Source::CarmemOther)],
        ];
        let out = spoken_turns(&turns.iter().map(Vec::as_slice).collect::<Vec<_>>());
        assert_eq!(out.len(), 2, "a turn already in spoken form is not copied");
        assert_eq!(out[0].text, "find me a lidl i do all my shopping there");
        assert!(out[0].positive && out[0].source == Source::CarmemPreference);
        assert_eq!(
            (out[0].unit.as_str(), out[0].group.as_str()),
            ("u1/spoken", "g1")
        );
        assert!(is_spoken(&out[0]) && !is_spoken(&turns[0][0]));
        assert_eq!((out[1].text.as_str(), out[1].positive), ("thanks", false));
    }

    #[test]
    fn samples_are_cut_back_into_their_turns() {
        let s = |t: &str| sample(t, false, Source::CarmemOther);
        let all = vec![s("a"), s("b"), s("c")];
        let turns = by_turn(&all, &[2, 1]);
        assert_eq!(turns.len(), 2);
        assert_eq!(turns[0].len(), 2);
        assert_eq!(turns[1][0].text, "c");
    }
}
