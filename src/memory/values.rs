//! Matching values in the user's words: the negation cues by which a user turns a value down
//! ([`negates`]), how a turned-down value is written ([`NOT`], [`negation_of`]), and which of a
//! category's known values a sentence names ([`named_values`]). Extraction and maintenance both
//! use these; neither imports the other.

use crate::schema::{DetailId, Schema};

/// Words and phrases (lower case, whole words) by which a user turns a preference down, switches
/// away from it or drops it. Chosen over the dev split's maintenance questions as a whole: the
/// cue is in 90 % of its `negate` and 11 % of its `equal` questions (all 50 users).
const NEGATION_CUES: &[&str] = &[
    "not",
    "no",
    "never",
    "nothing",
    "none",
    "neither",
    "nor",
    "anymore",
    "no longer",
    "instead",
    "rather than",
    "stop",
    "stopped",
    "skip",
    "avoid",
    "avoids",
    "avoiding",
    "changed my mind",
    "change my mind",
    "something else",
    "something different",
    "without",
    "disregard",
    "disregarding",
    "dislike",
    "hate",
    "ignore",
    "exclude",
    "remove",
    "disable",
    "deactivate",
    "turn off",
    "switch off",
    "unsubscribe",
    "block",
    "done with",
    "had enough",
    "enough of",
    "over the",
    "other than",
    "change of heart",
    "rethinking",
    "switch",
    "from now on",
    "overcome",
    "forget",
    "drop",
];

/// Whether a sentence carries a negation cue: one of [`NEGATION_CUES`] as whole words, or a
/// contracted `n't`.
pub fn negates(sentence: &str) -> bool {
    let lower = sentence.to_lowercase().replace(['’', '`'], "'");
    if lower.contains("n't") {
        return true;
    }
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .collect();
    NEGATION_CUES.iter().any(|cue| {
        let cue: Vec<&str> = cue.split(' ').collect();
        words.windows(cue.len()).any(|w| w == cue.as_slice())
    })
}

/// Lower-case word stems (a trailing plural `s` dropped) of a text, for matching values.
pub fn stems(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let w = w.to_lowercase();
            match w.strip_suffix('s') {
                Some(stem) if stem.len() >= 3 => stem.to_string(),
                _ => w,
            }
        })
        .collect()
}

/// The category's known values that the user's own words name: those sharing the largest
/// share (at least half) of their words with the user's sentences ("Set it to 25 degrees
/// Celsius" names "25 degree Celcius", not "21 degree Celcius"). Empty when none is named.
pub fn named_values<'a>(
    schema: &'a Schema,
    detail: DetailId,
    sentences: &[String],
) -> Vec<&'a str> {
    let said: std::collections::HashSet<String> = sentences.iter().flat_map(|s| stems(s)).collect();
    let mut best = 0.5f32;
    let mut out = Vec::new();
    for a in &schema.detail(detail).attributes {
        let words = stems(a);
        if words.is_empty() {
            continue;
        }
        let share = words.iter().filter(|w| said.contains(*w)).count() as f32 / words.len() as f32;
        if share > best + 1e-6 {
            best = share;
            out.clear();
        }
        if (share - best).abs() <= 1e-6 {
            out.push(a.as_str());
        }
    }
    out
}

/// How a value the user turns down is written: `not <value>` ("Avoid health podcasts from now
/// on" → `favorite_podcast_genres: not Health`). Maintenance reads it as the negation of the
/// stored value ([`negation_of`]).
pub const NOT: &str = "not ";

/// The value an attribute turns down (`not X` → `Some("X")`, ignoring case and spaces), or
/// `None` when it turns nothing down.
pub fn turned_down(attribute: &str) -> Option<&str> {
    let x = attribute.trim();
    x.get(..NOT.len())
        .filter(|p| p.eq_ignore_ascii_case(NOT))
        .map(|_| x[NOT.len()..].trim())
}

/// Whether one attribute is the other turned down (`not X` against `X`, either way round,
/// ignoring case).
pub fn negation_of(a: &str, b: &str) -> bool {
    match (turned_down(a), turned_down(b)) {
        (Some(x), None) => x.eq_ignore_ascii_case(b.trim()),
        (None, Some(y)) => y.eq_ignore_ascii_case(a.trim()),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negation_cues_are_whole_words_or_a_contraction() {
        assert!(negates("I don't want rock anymore."));
        assert!(negates("Exclude Rock from my music."));
        assert!(negates("Please turn off the rock station."));
        assert!(!negates("Play some rock again."));
        assert!(!negates("Nothingness is a band."));
        assert!(!negates("Turn on the radio, it's a rock day."));
    }

    #[test]
    fn a_turned_down_value_is_the_negation_of_the_value() {
        assert!(negation_of("not Jazz", "jazz") && negation_of("Jazz", "Not Jazz"));
        assert!(!negation_of("Jazz", "Jazz") && !negation_of("not Jazz", "not Jazz"));
        assert!(!negation_of("nothing", "hing"));
    }
}
