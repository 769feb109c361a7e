//! A value said by its amount or its degree: a number that only one of a category's values
//! holds, said with that value's unit ("within 10 minutes" names "less than 10 min (accepting
//! possible higher cost)"); said after "more than" or "over" it is a bound, which names the
//! value only when negated ("never more than 10 minutes"), and a negation then refuses what
//! lies past the bound, not the value. And a value's alias said as too much of it ("way too
//! bright"), which names no value: a complaint asks for less. English grammar, not cues fitted
//! to a benchmark.

use super::{digits, number};

/// The words of a text, lower case, with numbers said as words in digits ([`digits`]).
fn number_words(text: &str) -> Vec<String> {
    digits(text)
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Where a sentence's words (`said`, [`number_words`]) say a number of `value` that no other
/// value of `d` holds, followed by the word that follows it in the value or a longer word it
/// begins (its unit: "10 minutes" of "less than 10 min"): the number's positions.
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
                .filter(|(_, w)| &w[0] == n && w[1].starts_with(unit.as_str()))
                .map(|(i, _)| i),
        );
    }
    at
}

/// Whether the sentences say a number of `value` that no other value of `d` holds, with its
/// unit ([`own_number_at`]): said as the value is ("within 10 minutes", "less than 10
/// minutes"), or as a bound ([`bound_at`]) that the sentence negates ("never more than 10
/// minutes"). A bound said as it is ("even if it means walking more than 10 minutes") says
/// the driver accepts more, which the value does not: no value is named by it.
pub(super) fn own_number_said(
    d: &crate::schema::Detail,
    value: &str,
    sentences: &[String],
) -> bool {
    sentences.iter().any(|s| {
        let said = number_words(s);
        own_number_at(d, value, &said)
            .iter()
            .any(|&i| !bound_at(&said, i) || super::negates(s))
    })
}

/// Whether the number at `i` of a sentence's words is said as a bound beyond which something
/// lies ("more than 10 minutes", "over 10 minutes", "longer than ten minutes"): a negation
/// before it refuses what lies past the bound, not the value the number names ("I never walk
/// more than 10 minutes" is less than 10 min).
fn bound_at(said: &[String], i: usize) -> bool {
    let before = |k: usize| i.checked_sub(k).map(|j| said[j].as_str());
    matches!(before(1), Some("over" | "beyond" | "past" | "exceeding"))
        || before(1) == Some("than")
            && matches!(before(2), Some("more" | "longer" | "further" | "farther"))
}

/// Whether the sentence says `value`'s own number ([`own_number_at`]) as a bound
/// ([`bound_at`]).
pub(super) fn own_number_bounded(d: &crate::schema::Detail, value: &str, sentence: &str) -> bool {
    let said = number_words(sentence);
    own_number_at(d, value, &said)
        .iter()
        .any(|&i| bound_at(&said, i))
}

/// Whether `text` says `phrase` as too much of it ("way too bright", "too damn strong"): a
/// complaint asks for less, so an alias said so names no value ("bright" of High).
pub(super) fn too_much(text: &str, phrase: &str) -> bool {
    let w = number_words(text);
    let p = number_words(phrase);
    let Some(first) = p.first() else {
        return false;
    };
    (1..w.len()).any(|i| {
        let mut j = i;
        while j > 1 && matches!(w[j - 1].as_str(), "damn" | "bloody" | "darn" | "flipping") {
            j -= 1;
        }
        &w[i] == first && w[j - 1] == "too"
    })
}

#[cfg(test)]
mod tests {
    use super::too_much;

    #[test]
    fn a_word_after_too_is_said_as_too_much() {
        for said in ["It's way too bright.", "The fan is too damn strong for me."] {
            assert!(
                too_much(said, "bright") || too_much(said, "strong"),
                "{said}"
            );
        }
        for said in [
            "I like it bright, not too dim.",
            "Too right, I like it strong.",
        ] {
            assert!(
                !too_much(said, "bright") && !too_much(said, "strong"),
                "{said}"
            );
        }
    }
}
