//! A value said by its amount or its degree. A number that only one of a choice category's
//! values holds, said with that value's unit ("within 10 minutes", "a ten-minute walk" name
//! "less than 10 min (accepting possible higher cost)"), names that value; said as an upper
//! bound ("more than 10 minutes", "over 10 minutes") it names the value only when a negation
//! in its clause governs it ("never more than 10 minutes": the negation then refuses what lies
//! past the bound, not the value), never when the driver shrugs at it ("I don't mind walking
//! more than 10 minutes"); said as a lower bound ("at least 10 minutes", "10 minutes or more")
//! or as the time of something else ("circle for 10 minutes"), it names nothing. And a value's
//! alias said as too much of it ("way too bright") names no value: a complaint asks for less.
//! English grammar, not cues fitted to a benchmark.

use super::{digits, number};

/// The marks that end a stretch of words: a clause for a bound's negation ([`negated_bound`]),
/// a stretch for "too" ([`too_much`]).
const MARKS: [char; 6] = [',', '.', ';', ':', '!', '?'];

/// The words of a text, lower case, with numbers said as words in digits ([`digits`]) and a
/// hyphen read as a space ("ten-minute" is "10 minute").
fn number_words(text: &str) -> Vec<String> {
    digits(&text.replace('-', " "))
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// A value's short unit and the words said for it.
const UNIT_WORDS: &[(&str, &[&str])] = &[
    ("min", &["min", "mins", "minute", "minutes"]),
    ("h", &["h", "hr", "hrs", "hour", "hours"]),
    (
        "km",
        &[
            "km",
            "kms",
            "kilometre",
            "kilometres",
            "kilometer",
            "kilometers",
        ],
    ),
];

/// Whether `word` is said for the unit `unit` of a value: the unit itself, its plural, or a
/// word [`UNIT_WORDS`] gives for it ("minutes" of "min"; not "minimum" or "mind").
fn says_unit(word: &str, unit: &str) -> bool {
    word == unit
        || word.strip_suffix('s') == Some(unit)
        || UNIT_WORDS
            .iter()
            .any(|(u, words)| *u == unit && words.contains(&word))
}

/// Verbs of doing something else for a time ("circle for 10 minutes", "wait 10 minutes"): a
/// number after one of them, within four words, is that activity's time, not the value's.
const OTHER_TIMES: &[&str] = &[
    "circle", "circling", "drive", "driving", "wait", "waiting", "leave", "leaving", "charge",
    "charging", "queue", "queuing", "idle", "idling", "sit", "sitting",
];

/// Where a sentence's words (`said`, [`number_words`]) say a number of `value` that no other
/// value of `d` holds, followed by the value's unit ([`says_unit`]: "10 minutes" of "less
/// than 10 min"), and not as another activity's time ([`OTHER_TIMES`]): the number's
/// positions.
fn own_number_at(d: &crate::schema::Detail, value: &str, said: &[String]) -> Vec<usize> {
    let own = number_words(value);
    let mut at = Vec::new();
    for pair in own.windows(2) {
        let (n, unit) = (&pair[0], &pair[1]);
        let alone = d
            .attributes
            .iter()
            .filter(|a| a.as_str() != value)
            .all(|a| !number_words(a).contains(n));
        if !(number(n) && !number(unit) && alone) {
            continue;
        }
        at.extend(
            said.windows(2)
                .enumerate()
                .filter(|(_, w)| &w[0] == n && says_unit(&w[1], unit))
                .map(|(i, _)| i)
                .filter(|&i| {
                    !said[i.saturating_sub(4)..i]
                        .iter()
                        .any(|w| OTHER_TIMES.contains(&w.as_str()))
                }),
        );
    }
    at
}

/// Whether the sentences say a number of `value` that no other value of `d` holds, with its
/// unit ([`own_number_at`]), as the value says it: not as a lower bound ([`lower_bound_at`]),
/// and as an upper bound ([`bound_at`]) only where a negation governs it ([`negated_bound`]).
/// A choice category's only: a free-text catalogue's number is part of a name.
pub(super) fn own_number_said(
    d: &crate::schema::Detail,
    value: &str,
    sentences: &[String],
) -> bool {
    d.kind == crate::schema::ValueKind::Choice
        && sentences.iter().any(|s| {
            let said = number_words(s);
            own_number_at(d, value, &said)
                .iter()
                .any(|&i| !lower_bound_at(&said, i) && (!bound_at(&said, i) || negated_bound(s, i)))
        })
}

/// Whether the number at `i` of a sentence's words is said as an upper bound beyond which
/// something lies ("more than 10 minutes", "over 10 minutes", "longer than ten minutes").
fn bound_at(said: &[String], i: usize) -> bool {
    let before = |k: usize| i.checked_sub(k).map(|j| said[j].as_str());
    matches!(before(1), Some("over" | "beyond" | "past" | "exceeding"))
        || before(1) == Some("than")
            && matches!(before(2), Some("more" | "longer" | "further" | "farther"))
}

/// Whether the number at `i` is said as a lower bound ("at least 10 minutes", "10 minutes at
/// least", "upwards of 10 minutes", "a minimum of 10 minutes", "10 minutes minimum", "no less
/// than 10 minutes", "10 minutes or more", "10 minutes plus"): the driver accepts that much or
/// more.
fn lower_bound_at(said: &[String], i: usize) -> bool {
    let at = |k: usize| said.get(k).map_or("", String::as_str);
    let before = |k: usize| i.checked_sub(k).map_or("", |j| said[j].as_str());
    (before(1) == "least" && before(2) == "at")
        || (before(1) == "of" && matches!(before(2), "upwards" | "minimum"))
        || (before(1) == "than" && before(2) == "less" && matches!(before(3), "no" | "not"))
        || (at(i + 2) == "or" && matches!(at(i + 3), "more" | "longer"))
        || (at(i + 2) == "at" && at(i + 3) == "least")
        || matches!(at(i + 2), "plus" | "minimum")
}

/// Whether a negation governs the upper bound at `i`: in the bound's clause (from the last
/// mark before the number: "No, I'm happy to walk more than 10 minutes" is no refusal), a
/// negation word among its last eight words before the number ("I never want to walk more than
/// 10 minutes", "I can't walk more than five minutes") and no shrug ("I don't mind walking
/// more than 10 minutes" accepts more; "I don't care if it costs more, I won't walk more than
/// five minutes" shrugs at the cost in a clause of its own).
fn negated_bound(sentence: &str, i: usize) -> bool {
    const NEGATIONS: &[&str] = &["not", "no", "never", "t", "cannot", "nothing"];
    let before = before_word(sentence, i);
    let clause = before.rsplit(MARKS).next().unwrap_or("");
    let words = number_words(clause);
    !super::shrugs(clause)
        && words[words.len().saturating_sub(8)..]
            .iter()
            .any(|w| NEGATIONS.contains(&w.as_str()))
}

/// The text of a sentence before its `i`th word as [`number_words`] counts them: whole
/// tokens, so that a shrug before the number reads as said ("I don't mind walking more than").
fn before_word(sentence: &str, i: usize) -> String {
    let mut seen = 0;
    let mut out = Vec::new();
    for token in sentence.split_whitespace() {
        seen += number_words(token).len();
        if seen > i {
            break;
        }
        out.push(token);
    }
    out.join(" ")
}

/// Whether the sentence says `value`'s own number ([`own_number_at`]) as an upper bound
/// ([`bound_at`]) that a negation governs ([`negated_bound`]): the negation refuses what lies
/// past the bound, not the value ("I never walk more than 10 minutes" is less than 10 min).
pub(super) fn own_number_bounded(d: &crate::schema::Detail, value: &str, sentence: &str) -> bool {
    let said = number_words(sentence);
    own_number_at(d, value, &said)
        .iter()
        .any(|&i| bound_at(&said, i) && negated_bound(sentence, i))
}

/// Words of degree between "too" and what it says too much of ("too damn bright").
const INTENSIFIERS: &[&str] = &[
    "damn", "damned", "bloody", "darn", "flipping", "freaking", "frigging",
];

/// Whether `text` says `phrase` as too much of it ("way too bright", "too damn strong"), within
/// one stretch of words without a mark between ("Me too, bright is best" says no "too
/// bright"): a complaint asks for less, so an alias said so names no value ("bright" of High).
pub(super) fn too_much(text: &str, phrase: &str) -> bool {
    let p = number_words(phrase);
    let Some(first) = p.first() else {
        return false;
    };
    text.split(MARKS).any(|stretch| {
        let w = number_words(stretch);
        (1..w.len()).any(|i| {
            let mut j = i;
            while j > 1 && INTENSIFIERS.contains(&w[j - 1].as_str()) {
                j -= 1;
            }
            &w[i] == first && w[j - 1] == "too"
        })
    })
}

#[cfg(test)]
mod tests {
    use super::too_much;

    #[test]
    fn a_word_after_too_is_said_as_too_much() {
        for (said, phrase) in [
            ("It's way too bright.", "bright"),
            ("The fan is too damn strong for me.", "strong"),
        ] {
            assert!(too_much(said, phrase), "{said}");
        }
        for (said, phrase) in [
            ("I like it bright, not too dim.", "bright"),
            ("I'm tired too. Bright lights help.", "bright"),
            ("Me too, bright is best.", "bright"),
        ] {
            assert!(!too_much(said, phrase), "{said}");
        }
    }
}
