//! Matching values in the user's words: the negation cues by which a user turns a value down
//! ([`negates`]) and their scope before and after the value ([`turns_down`]), how a
//! turned-down value is written ([`NOT`], [`negation_of`]), a stance turned down by the words
//! that name it ([`stance_turned_down`]), and which of a category's known values a sentence
//! names ([`named_values`]; a value named by its own number with its unit, and an alias said
//! as too much of it, which names none: `values/scale.rs`). Extraction and maintenance both
//! use these; neither imports the other.

pub mod idiom;
mod named;
mod scale;
mod scope;
mod stance;

use crate::schema::{DetailId, Schema};
// Every value that a sentence names, and the refusals they are read with (`named.rs`).
pub use named::*;
pub use scope::{turns_down, turns_down_name};
pub use stance::{named_instead, other_of_two, stance_turned_down};

/// Words and phrases (lower case, whole words) by which a user turns a preference down, switches
/// away from it or drops it. Chosen over the dev split's maintenance questions as a whole: the
/// cue is in 90 % of its `negate` and 11 % of its `equal` questions (all 50 users); "except",
/// a value left out of a wider liking ("anything except Indian"), added beside them.
const NEGATION_CUES: &[&str] = &[
    "not",
    "cannot",
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
    "except",
    "change of heart",
    "rethinking",
    "switch",
    "from now on",
    "overcome",
    "forget",
    "drop",
];

/// Whether a sentence carries a negation cue: one of [`NEGATION_CUES`] as whole words, or a
/// contracted `n't`, outside praise and titles said in a negation's words ([`idiom`]).
pub fn negates(sentence: &str) -> bool {
    let lower = idiom::as_read(sentence);
    lower.contains("n't") || says_any(&words(&lower), NEGATION_CUES)
}

/// Lower case, with typographic apostrophes made plain.
pub fn folded(text: &str) -> String {
    text.to_lowercase().replace(['’', '`'], "'")
}

/// The words of a folded text (apostrophes kept inside words).
fn words(lower: &str) -> Vec<&str> {
    lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .collect()
}

/// Whether the words hold one of the phrases (each one or more words, space-separated).
fn says_any(words: &[&str], phrases: &[&str]) -> bool {
    phrases.iter().any(|p| {
        let p: Vec<&str> = p.split(' ').collect();
        words.windows(p.len()).any(|w| w == p.as_slice())
    })
}

/// How many words before a value a negation cue still turns it down ("I'm not a fan of jazz").
pub const SCOPE: usize = 5;

/// Words that end a clause besides punctuation: a negation does not reach past them ("I don't
/// mind waiting, but the cheapest one").
const CLAUSE_BREAKS: &[&str] = &["but", "so", "because", "though", "although", "however"];

/// Words before which "so" says how much or how often, not what follows ("I don't like so
/// much the jazz", "not so often", "so far"): there it ends no clause.
const DEGREES: &[&str] = &["much", "many", "little", "few", "often", "far", "long"];

/// Whether `word` (bare, folded) ends a clause ([`CLAUSE_BREAKS`]), `next` the word after it:
/// not a "so" of degree ([`DEGREES`]).
fn breaks_clause(word: &str, next: Option<&str>) -> bool {
    CLAUSE_BREAKS.contains(&word) && !(word == "so" && next.is_some_and(|w| DEGREES.contains(&w)))
}

/// Value words too common to say which value a negation is about.
const WEAK_WORDS: &[&str] = &[
    "the", "a", "an", "of", "to", "is", "for", "and", "or", "in", "on", "with",
];

/// Whether every word of a value (beside [`WEAK_WORDS`]) is a word of its category's own name,
/// description or subcategory name, or of the name of a category beside it in its subcategory:
/// "gas station" of Preferred Gas Station, "news" of General News Source, "temperature" of
/// Preferred Temperature, "ambient" of the interior lighting colours (beside Interior Lighting
/// Ambient Preferences) say which category, not which value.
pub fn names_only_its_category(schema: &Schema, detail: DetailId, value: &str) -> bool {
    let own = category_words(schema, detail);
    let said: Vec<String> = stems(value)
        .into_iter()
        .filter(|w| !WEAK_WORDS.contains(&w.as_str()))
        .collect();
    !said.is_empty() && said.iter().all(|w| own.contains(w))
}

/// The words (stems) of a category's own name, description and subcategory name, and of the
/// names of the categories beside it in its subcategory.
fn category_words(schema: &Schema, detail: DetailId) -> Vec<String> {
    let d = schema.detail(detail);
    let sub = schema.sub(d.sub);
    let names: Vec<&str> = sub
        .details
        .iter()
        .map(|&k| schema.detail(k).name.as_str())
        .collect();
    stems(&format!(
        "{} {} {}",
        sub.name,
        d.description,
        names.join(" ")
    ))
}

/// [`turns_down`] for a known value of a category, read by the value's own words: a word it
/// shares with its category's name is said of the category ("I'm a multi-storey man, I don't
/// bother with street parking" turns down no `Parking-house`). A value of the category's words
/// alone is read whole.
pub fn turns_down_value(schema: &Schema, detail: DetailId, sentence: &str, value: &str) -> bool {
    let own = category_words(schema, detail);
    let distinct: Vec<String> = stems(value)
        .into_iter()
        .filter(|w| !own.contains(w) && !WEAK_WORDS.contains(&w.as_str()))
        .collect();
    match distinct.is_empty() {
        true => turns_down(sentence, value),
        false => turns_down(sentence, &distinct.join(" ")),
    }
}

/// Words and phrases by which a user says a thing does not matter to them.
const SHRUG_CUES: &[&str] = &[
    "don't care",
    "do not care",
    "never care",
    "never cared",
    "never cares",
    "couldn't care less",
    "could not care less",
    "doesn't matter",
    "does not matter",
    "don't mind",
    "do not mind",
    "not fussed",
    "not too fussed",
    "not bothered",
    "not concerned",
    "not picky",
    "not important",
    "either way",
    "whatever",
    "no preference",
    "don't have a preference",
    "do not have a preference",
    "don't have any preference",
    "indifferent",
    "irrelevant",
];

/// Whether the sentence says something does not matter to the user ("I don't care if it's
/// covered or not").
pub fn shrugs(sentence: &str) -> bool {
    let lower = folded(sentence);
    // "doesn't really matter", "not too fussed", "don't much care": an intensifier inside a
    // cue does not change what it says.
    let plain: Vec<&str> = words(&lower)
        .into_iter()
        .filter(|w| !INTENSIFIERS.contains(w))
        .collect();
    says_any(&plain, SHRUG_CUES)
}

/// Words that strengthen or soften a phrase without changing what it says.
const INTENSIFIERS: &[&str] = &[
    "really",
    "too",
    "that",
    "very",
    "much",
    "particularly",
    "especially",
    "terribly",
    "all",
];

/// Words by which a value or a category itself names an aversion ("Seafood Allergies", "Dairy-Free",
/// "Avoidance of Specific Road Types"): a negation near such a value states it ("a place that
/// doesn't serve seafood" for a seafood allergy, "no toll roads" for avoiding them), it does
/// not turn it down.
const AVERSION_STEMS: &[&str] = &["avoid", "allerg", "intoleran"];

/// Whether the text names an aversion ([`AVERSION_STEMS`]).
pub fn aversive(text: &str) -> bool {
    let lower = folded(text);
    // "Dairy-Free", "Gluten-free": the value is the thing's absence.
    lower.contains("-free")
        || words(&lower)
            .iter()
            .any(|w| AVERSION_STEMS.iter().any(|a| w.starts_with(a)))
}

/// Words by which a known value says the thing does not matter ("Indifferent to Covered
/// Parking", "Price is irrelevant", "not relevant (closest with low cost)", "Never considers
/// price").
const INDIFFERENT_WORDS: &[&str] = &[
    "indifferent",
    "irrelevant",
    "not relevant",
    "never considers",
];

/// The category's does-not-matter values when the sentence shrugs ([`shrugs`],
/// [`indifferent_values`]); empty otherwise, and when it says another of its values in full
/// and does not turn it down: the shrug is then at something else ("I always go for the
/// cheapest petrol, whatever the brand" is Always cheapest).
pub fn shrugged_values<'a>(schema: &'a Schema, detail: DetailId, sentence: &str) -> Vec<&'a str> {
    if !shrugs(sentence) {
        return Vec::new();
    }
    let indifferent = indifferent_values(schema, detail);
    let stance = wholly_named(schema, detail, &[sentence.to_string()])
        .into_iter()
        .any(|v| !indifferent.contains(&v) && !turns_down_known(schema, detail, sentence, v));
    if stance {
        Vec::new()
    } else {
        indifferent
    }
}

/// The category's known values that say the thing does not matter to the user.
pub fn indifferent_values(schema: &Schema, detail: DetailId) -> Vec<&str> {
    schema
        .detail(detail)
        .attributes
        .iter()
        .filter(|a| says_any(&words(&folded(a)), INDIFFERENT_WORDS))
        .map(String::as_str)
        .collect()
}

/// The one value of a category that takes a stance, when all its others say the thing does not
/// matter ([`indifferent_values`]): "Yes" for *Preference for Covered Parking* (beside
/// "Indifferent to Covered Parking"); `None` when it has several or none.
pub fn only_stance(schema: &Schema, detail: DetailId) -> Option<&str> {
    let indifferent = indifferent_values(schema, detail);
    let mut stances = schema
        .detail(detail)
        .attributes
        .iter()
        .map(String::as_str)
        .filter(|a| !indifferent.contains(a));
    match (stances.next(), stances.next()) {
        (Some(one), None) => Some(one),
        _ => None,
    }
}

/// Number words below twenty, by value.
pub(crate) const UNITS: &[&str] = &[
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];

/// Tens from twenty, by value / 10 - 2.
pub(crate) const TENS: &[&str] = &[
    "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];

/// The text with spoken whole numbers below a hundred written as digits ("set it to
/// twenty-five degrees" → "set it to 25 degrees", "twenty two" → "22"): speech recognisers
/// often write numbers as words, and values and ranges are compared as digits. Other text is
/// kept as it is.
pub fn digits(text: &str) -> String {
    let unit = |w: &str| UNITS.iter().position(|u| *u == w);
    let ten = |w: &str| TENS.iter().position(|t| *t == w).map(|i| 20 + 10 * i);
    // A token's word (lower case) and what follows it (a comma, a full stop), split on the
    // token itself so that no byte offset crosses a character.
    let split = |tok: &str| {
        let core = tok.trim_end_matches(|c: char| !c.is_alphanumeric());
        (core.to_lowercase(), tok[core.len()..].to_string())
    };
    let tokens: Vec<&str> = text.split(' ').collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let (core, tail) = split(tokens[i]);
        let (first, second) = match core.split_once('-') {
            Some((a, b)) => (a, Some(b)),
            None => (core.as_str(), None),
        };
        let value = match (ten(first), second) {
            // "twenty-five"
            (Some(t), Some(b)) => unit(b).filter(|&u| u > 0 && u < 10).map(|u| t + u),
            // "twenty two": a unit as the next word joins the tens, when nothing stands between.
            (Some(t), None) => {
                let next = tokens.get(i + 1).map(|n| split(n));
                match next.filter(|_| tail.is_empty()) {
                    Some((n, ntail)) if unit(&n).is_some_and(|u| u > 0 && u < 10) => {
                        i += 1;
                        out.push(format!("{}{ntail}", t + unit(&n).unwrap_or(0)));
                        i += 1;
                        continue;
                    }
                    _ => Some(t),
                }
            }
            (None, None) => unit(first),
            (None, Some(_)) => None,
        };
        match value {
            Some(v) => out.push(format!("{v}{tail}")),
            None => out.push(tokens[i].to_string()),
        }
        i += 1;
    }
    out.join(" ")
}

/// A word without its plural `s` ("lights" -> "light", not "glass" -> "glas").
pub fn singular(w: &str) -> String {
    match w.strip_suffix('s') {
        Some(stem) if stem.len() >= 3 && !stem.ends_with('s') => stem.to_string(),
        _ => w.to_string(),
    }
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

/// A word without the "'s" it ends with (plain or typographic apostrophe), if it has one.
pub fn without_s(w: &str) -> Option<&str> {
    w.strip_suffix("'s").or_else(|| w.strip_suffix("\u{2019}s"))
}

/// Whether a word is a number in digits.
pub fn number(w: &str) -> bool {
    !w.is_empty() && w.chars().all(|c| c.is_ascii_digit())
}

/// Whether `text` holds `value`'s words in a row, case folded ("white" in "needs to be White.",
/// not in "whiteboard").
pub fn says_words(text: &str, value: &str) -> bool {
    let split = |t: &str| -> Vec<String> {
        t.to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let (text, value) = (split(text), split(value));
    !value.is_empty() && text.windows(value.len()).any(|w| w == value.as_slice())
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
mod tests;
