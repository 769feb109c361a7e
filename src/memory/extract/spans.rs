//! The user's own words as values: the runs of a sentence a free-text value can be copied
//! from and the names among them, with those of the earlier sentences a sentence that points
//! back refers to (`referents`).

use super::occasion::beside_the_occasion;
use super::referents::referents;
use super::{Candidate, Statements};
use crate::memory::values;
use crate::schema::{Detail, Schema};

/// Words that neither start nor end a value: a value is a name, a number or a thing
/// ("Lidl", "BBC Radio 2", "22 degrees"), not "at Lidl" or "Lidl and".
pub(super) const FUNCTION_WORDS: &[&str] = &[
    "a", "an", "the", "to", "at", "in", "on", "of", "for", "by", "with", "from", "and", "or",
    "but", "i", "i'm", "im", "me", "my", "we", "our", "us", "you", "your", "it", "it's", "its",
    "is", "are", "am", "was", "be", "do", "does", "that", "this", "these", "those", "there",
    "please", "so", "just", "really", "always", "usually", "like", "love", "prefer", "want",
    "when", "if", "as", "than", "then", "up", "down", "some", "any", "all", "can", "could",
    "would", "will", "should", "set", "put", "play", "find", "make", "get", "go", "one", "not",
    "no", "don't", "never", "every", "very", "much", "more", "most", "have", "has", "they",
    "they're", "them", "their", "he", "she", "his", "her", "that's", "what", "which", "who",
    "i've", "i'll", "i'd", "we're", "you're", "since", "ever", "also", "too", "been", "had", "did",
    "here",
];

/// Words that begin what is said of a thing, not a thing a name's possessive owns: after
/// them a word's "'s" is "is" or "has" ("Thai's my favourite", "Esso's the only place",
/// "Radio 4's always on"), where "Sainsbury's for the weekly shop" keeps its name.
const PREDICATE_STARTS: &[&str] = &[
    "my",
    "our",
    "your",
    "their",
    "his",
    "her",
    "the",
    "a",
    "an",
    "what",
    "where",
    "how",
    "just",
    "always",
    "really",
    "been",
    "got",
    "not",
    "never",
    "so",
    "too",
    "all",
    "very",
    "definitely",
    "pretty",
    "still",
    "far",
];

/// Words of dates and times besides the months ([`crate::memory::usual::month_number`]): a
/// span they make with a number ("on March 10th", "at 9:30 AM") is when something happens, not
/// a name, and alone they name nothing ("Monday").
pub(super) const TIME_WORDS: &[&str] = &[
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "am",
    "pm",
];

/// The sentence's whitespace-separated tokens, lower case, without the marks around them
/// (apostrophes kept, a typographic one written as `'`: "They’re," is "they're"); a token of
/// marks alone is empty.
pub(super) fn token_words(s: &str) -> Vec<String> {
    s.split_whitespace().map(token_word).collect()
}

/// The words of [`token_words`] that are not empty: one for each of [`raw_words`].
pub(super) fn words(s: &str) -> Vec<String> {
    s.split_whitespace()
        .map(token_word)
        .filter(|w| !w.is_empty())
        .collect()
}

/// The sentence's whitespace-separated tokens as written, one for each word of
/// [`token_words`] that is not empty (a token of marks alone, "-", is in neither).
pub(super) fn raw_words(s: &str) -> Vec<&str> {
    s.split_whitespace()
        .filter(|w| !token_word(w).is_empty())
        .collect()
}

/// One word as [`token_words`] gives it: lower case, everything but letters, digits and
/// apostrophes trimmed from its ends, the typographic apostrophe folded to `'` ("Don’t," ->
/// "don't").
pub(super) fn token_word(w: &str) -> String {
    w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '\u{2019}')
        .to_lowercase()
        .replace('\u{2019}', "'")
}

/// Longest value copied from a sentence, in words.
const MAX_SPAN_WORDS: usize = 5;

/// The runs of the sentence's words a value can be: 1 to 5 consecutive words, punctuation
/// trimmed, neither starting nor ending with a function word; longest first within a start
/// position, in sentence order.
pub fn spans(sentence: &str) -> Vec<String> {
    spans_where(sentence, |_| true)
}

/// Words that introduce a thing the speaker refers to: "the airport", "a hydrogen safety
/// podcast", "my usual station".
const DETERMINERS: &[&str] = &[
    "the", "a", "an", "my", "our", "your", "this", "that", "his", "her", "their",
];

/// The [`spans`] that a determiner introduces ("the airport", "a jazz station"), not all of
/// them numbers: the things a sentence refers to, where a name-valued setting's value is one
/// when the user names nothing ("I've switched to cycling", "it's already stacking up" refer
/// to no place).
pub fn things(sentence: &str) -> Vec<String> {
    spans_where(sentence, |before| {
        before.is_some_and(|b| DETERMINERS.contains(&b.to_lowercase().as_str()))
    })
    .into_iter()
    .filter(|s| {
        !s.split(' ')
            .all(|w| w.starts_with(|c: char| c.is_ascii_digit()))
    })
    .collect()
}

/// [`value_words`] for an offered category; where the user speaks of one of its catalogue
/// values by its generic words alone ([`values::generic_words_said`]: "a burger" of "BiteBox
/// Burgers", "charging" of "VoltRise Charging"), only the names among them that no category
/// lists and that say more than those words ("BBC Radio 2"; not "a classic burger", "FM",
/// nor "AC", a type of charging), and `None` when there is none: they spoke of the kind of
/// thing, not of one they named.
pub(super) fn copy_words(
    schema: &Schema,
    offered: &Candidate,
    sentences: &Statements,
) -> Option<Vec<String>> {
    let d = schema.detail(offered.detail);
    let words = value_words(d, sentences, offered.sentence, sentences.before())?;
    let generic = values::generic_words_said(schema, offered.detail, sentences);
    if generic.is_empty() {
        return Some(words);
    }
    let names: Vec<String> = sentences
        .iter()
        .flat_map(|s| proper_names(s))
        .filter(|n| {
            !values::known_anywhere(schema, n)
                && !values::stems(n).iter().all(|w| generic.contains(w))
        })
        .collect();
    let kept: Vec<String> = words.into_iter().filter(|w| names.contains(w)).collect();
    (!kept.is_empty()).then_some(kept)
}

/// The user's own words a free-text value may be: the [`spans`] of the evidence sentence
/// (`sentences[at]`) and of the earlier sentences it refers back to ([`referents`]). Drivers
/// name real things by their names ("Fleetwood Mac", "Bayern 3"): when the words hold a
/// name, the value is one of the names, not "station" or "I've listened to it". A vehicle
/// setting whose value is a name (a destination, a station) and no name said takes a thing
/// the user refers to ("the airport", "a jazz station"), else nothing: `None` ("I've switched
/// to cycling" names no destination). A place takes only a name or thing said as where one
/// goes ([`said_as_place`]).
pub(super) fn value_words(
    detail: &Detail,
    sentences: &[String],
    at: usize,
    before: &[Option<String>],
) -> Option<Vec<String>> {
    let sentence = sentences.get(at).map_or("", String::as_str);
    let earlier = referents(sentences, at, before);
    let mut words = beside_the_occasion(sentence, &spans(sentence));
    let mut names = beside_the_occasion(sentence, &proper_names(sentence));
    for e in &earlier {
        for w in spans(e) {
            if !words.contains(&w) {
                words.push(w);
            }
        }
        names.extend(proper_names(e));
    }
    if detail.place {
        let said = |w: &String| {
            std::iter::once(sentence)
                .chain(earlier.iter().copied())
                .any(|s| said_as_place(s, w))
        };
        words.retain(said);
        names.retain(said);
    }
    let texts = std::iter::once(sentence).chain(earlier.iter().copied());
    super::titles::without_credits_in(detail, texts, &mut names);
    if !names.is_empty() {
        // A title may open with a word no other value does ("Here Comes the Sun").
        for n in &names {
            if !words.contains(n) {
                words.push(n.clone());
            }
        }
        words.retain(|w| names.contains(w));
    } else if detail.takes_a_name() {
        let referred: Vec<String> = std::iter::once(sentence)
            .chain(earlier.iter().copied())
            .flat_map(things)
            .collect();
        words.retain(|w| referred.contains(w));
        if words.is_empty() {
            return None;
        }
    }
    Some(words)
}

/// Whether `sentence` says `span` (a name or a thing) as a place one goes to or is at: right
/// after a word of going or being somewhere, determiners skipped ("drive *to* the airport",
/// "a meeting *at* the Main Campus Library", "I need to *visit* the Warehouse on 5th
/// Street"; not "I'll call City Hospital", "a meeting with the Dean", "the idea is similar").
pub fn said_as_place(sentence: &str, span: &str) -> bool {
    const TOWARDS: &[&str] = &[
        "to", "at", "toward", "towards", "into", "visit", "visiting", "reach", "reaching",
    ];
    let fold = |t: &str| -> Vec<String> {
        t.split_whitespace()
            .map(|w| value_word(w).to_lowercase())
            .collect()
    };
    let (words, span) = (fold(sentence), fold(span));
    if span.is_empty() || span.len() > words.len() {
        return false;
    }
    (0..=words.len() - span.len())
        .filter(|&i| words[i..i + span.len()] == span[..])
        .any(|i| {
            let before = words[..i]
                .iter()
                .rev()
                .find(|w| !DETERMINERS.contains(&w.as_str()));
            before.is_some_and(|w| TOWARDS.contains(&w.as_str()))
        })
}

/// Whether a lower-case word is an article ("a", "an", "the").
pub(super) fn article(w: &str) -> bool {
    matches!(w, "a" | "an" | "the")
}

/// A whitespace-separated word without the marks around it, as a value's word: letters,
/// digits, `&` and `+` kept ("AC/DC," is "AC/DC", "R&B" and "Radio+" stay whole).
pub(super) fn value_word(w: &str) -> &str {
    w.trim_matches(|c: char| !(c.is_alphanumeric() || c == '&' || c == '+'))
}

/// The [`spans`] whose word before (none at the sentence's start) `starts` accepts.
fn spans_where(sentence: &str, starts: impl Fn(Option<&str>) -> bool) -> Vec<String> {
    let raw: Vec<&str> = sentence.split_whitespace().collect();
    let mut words: Vec<&str> = raw.iter().map(|w| value_word(w)).collect();
    // "Thai's my favourite": the 's is "is", not the name's.
    for i in 0..words.len().saturating_sub(1) {
        let next = words[i + 1].to_lowercase();
        if raw[i].ends_with(|c: char| c.is_alphanumeric())
            && PREDICATE_STARTS.contains(&next.as_str())
        {
            if let Some(stem) = values::without_s(words[i]) {
                words[i] = stem;
            }
        }
    }
    let function = |w: &str| {
        let lower = w.to_lowercase().replace('\u{2019}', "'");
        w.is_empty() || FUNCTION_WORDS.contains(&lower.as_str())
    };
    let mut out: Vec<String> = Vec::new();
    for i in 0..words.len() {
        if function(words[i]) || !starts(i.checked_sub(1).map(|k| words[k])) {
            continue;
        }
        for j in (i..words.len().min(i + MAX_SPAN_WORDS)).rev() {
            if function(words[j]) || words[i..=j].iter().any(|w| w.is_empty()) {
                continue;
            }
            let span = words[i..=j].join(" ");
            if span.len() <= 48 && !out.contains(&span) {
                out.push(span);
            }
        }
    }
    out
}

/// The [`spans`] of a sentence that are names: every word capitalised or a number (an ordinal,
/// "5th", is one), "of", "on" or an article allowed between two ("Bank of America", "the
/// Warehouse on 5th Street", "Conan O'Brien Needs a Friend"), at least one capitalised, not
/// across a comma or other mark between clauses ("Okay, Administrative Building" is two), not
/// the sentence's first word alone ("Then", "Play") nor before an article or "on" ("Try the
/// Wildwood", "Stick on BBC Radio 4"), and whole (not "Blue Sky" of "Mr Blue Sky", nor
/// "Bayern" of "Bayern 3"). A title said inside the sentence is one name though it opens
/// with a word no other name does ("Here Comes the Sun", `titles::title_names`).
pub fn proper_names(sentence: &str) -> Vec<String> {
    let all = name_spans(sentence);
    all.iter()
        .filter(|n| {
            !all.iter()
                .any(|m| m.len() > n.len() && format!(" {m} ").contains(&format!(" {n} ")))
        })
        .cloned()
        .collect()
}

/// Every name span of a text ([`proper_names`] before keeping the whole ones), sentence by
/// sentence: a statement of two ("Good. Remember that, 68 degrees is how I like it") holds no
/// name "Good Remember".
fn name_spans(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in crate::conversation::sentence_spans(text) {
        let sentence = &text[r];
        let mut names = sentence_name_spans(sentence);
        names.extend(super::titles::title_names(sentence));
        // In the order said.
        let tokens: Vec<&str> = sentence.split_whitespace().map(value_word).collect();
        let at = |n: &String| {
            let n: Vec<&str> = n.split(' ').collect();
            tokens.windows(n.len()).position(|w| w == &n[..])
        };
        names.sort_by_key(|n| at(n).unwrap_or(usize::MAX));
        for n in names {
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    out
}

/// The name spans of one sentence.
fn sentence_name_spans(sentence: &str) -> Vec<String> {
    let first = sentence
        .split_whitespace()
        .next()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .unwrap_or("");
    // Its "'s" may be "is" (`spans_where`): "Low's how I like them" opens with "Low", "Thai's
    // genuinely my favourite" with "Thai's".
    let stem = values::without_s(first).unwrap_or(first);
    let opens = |w: &str| w == first || w == stem;
    let mut out: Vec<String> = Vec::new();
    for clause in sentence.split([',', ';', ':', '(', ')', '"', '\u{2014}', '\u{2013}']) {
        for span in spans(clause) {
            let words: Vec<&str> = span.split(' ').collect();
            let capital = |w: &&str| w.chars().next().is_some_and(char::is_uppercase);
            let number = |w: &&str| {
                let digits = w.trim_end_matches(['s', 't', 'n', 'd', 'r', 'h']);
                !digits.is_empty()
                    && digits.chars().all(|c| c.is_ascii_digit())
                    && matches!(&w[digits.len()..], "" | "st" | "nd" | "rd" | "th")
            };
            let linking = |w: &&str| matches!(*w, "of" | "on");
            let time = |w: &&str| {
                crate::memory::usual::month_number(w).is_some()
                    || TIME_WORDS.contains(&w.to_lowercase().as_str())
            };
            // A date or a time ("March 10th", "on March", "the 10th of May", "9:30 AM")
            // names no thing.
            let dated = words.windows(2).any(|p| {
                (time(&p[0]) && number(&p[1])) || (number(&p[0]) || linking(&p[0])) && time(&p[1])
            }) || words
                .windows(3)
                .any(|p| number(&p[0]) && linking(&p[1]) && time(&p[2]));
            // A title's articles stay lower case inside it ("Conan O'Brien Needs a Friend").
            let name = words
                .iter()
                .all(|w| capital(w) || number(w) || linking(w) || article(w))
                && words.iter().any(|w| capital(w) && !time(w))
                && !dated
                && !(words.len() == 1 && opens(words[0]))
                // The sentence's first word is capitalised as any is: before an article or
                // "on" it is a verb ("Try the Wildwood", "Stick on BBC Radio 4"), not a
                // name's first word ("Bank of America" is one).
                && !(words.len() > 1
                    && opens(words[0])
                    && (article(words[1]) || words[1] == "on"))
                && words != ["I"];
            if name && !out.contains(&span) {
                out.push(span);
            }
        }
    }
    out
}

/// The names ([`proper_names`]) of the evidence sentence, or of the sentences it points back
/// to when it names nothing itself ("They're my favourite band" after "Put on Fleetwood Mac";
/// an assistant turn of `before`, [`referents`]), but for a name such a sentence turns down.
pub fn said_names(sentences: &[String], at: usize, before: &[Option<String>]) -> Vec<String> {
    let mut names = sentences
        .get(at)
        .map(|s| proper_names(s))
        .unwrap_or_default();
    for earlier in referents(sentences, at, before) {
        for n in proper_names(earlier) {
            // A name the earlier sentence turns down is not what this one points back to
            // ("They don't come through Portland often." ... "It's at the main arena.").
            if !names.contains(&n) && !crate::memory::values::turns_down_name(earlier, &n) {
                names.push(n);
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_place_is_said_as_where_one_goes() {
        assert!(said_as_place("Take me to the airport, please.", "airport"));
        assert!(said_as_place(
            "I have a meeting at the Main Campus Library.",
            "Main Campus Library"
        ));
        assert!(said_as_place(
            "We need to visit Grandma's Diner.",
            "Grandma's Diner"
        ));
        assert!(!said_as_place(
            "I'll phone Riverside Clinic later.",
            "Riverside Clinic"
        ));
        assert!(!said_as_place("A meeting with the Dean.", "Dean"));
        assert!(!said_as_place("The idea is similar.", "idea"));
    }

    #[test]
    fn names_are_whole_capitalised_runs() {
        assert_eq!(proper_names("Can you put Bayern 3 on?"), ["Bayern 3"]);
        // A name's "'s" before what is said of it is "is"; before more of the thing, its own.
        assert!(spans("Thai's my favourite food.").contains(&"Thai".to_string()));
        assert!(!spans("Thai's my favourite food.").contains(&"Thai's".to_string()));
        assert_eq!(proper_names("We love Thai's food."), ["Thai's"]);
        // Capitalised as the sentence's first word, as "Low is how I like them" is.
        assert!(proper_names("Low's how I like them.").is_empty());
        assert!(proper_names("Thai's genuinely my favourite.").is_empty());
        assert_eq!(
            proper_names("I go to Sainsbury's for the weekly shop."),
            ["Sainsbury's"]
        );
        // A statement of two sentences: no name runs across the full stop.
        assert!(proper_names("Good. Remember that, 68 degrees is how I like it.").is_empty());
        assert_eq!(proper_names("Play Mr. Blue Sky."), ["Mr Blue Sky"]);
        assert_eq!(
            proper_names("And play something from Fleetwood Mac."),
            ["Fleetwood Mac"]
        );
        assert_eq!(
            proper_names("Mark, I need to visit the Warehouse on 5th Street next week."),
            ["Warehouse on 5th Street"]
        );
        assert_eq!(
            proper_names("Okay, Administrative Building, Room 204."),
            ["Administrative Building", "Room 204"]
        );
        assert_eq!(
            proper_names("Take me to the Bank of America."),
            ["Bank of America"]
        );
        // A date or a time is no name, nor part of one.
        assert_eq!(
            proper_names("I have a meeting at the Main Campus Library on March 10th."),
            ["Main Campus Library"]
        );
        assert!(proper_names("The appointment is at 9:30 AM on the 20th.").is_empty());
        assert!(proper_names("See you on Monday then.").is_empty());
        assert_eq!(
            proper_names("Put on Friday Night Lights."),
            ["Friday Night Lights"]
        );
        // The sentence's first word alone and "I" are no names.
        assert!(proper_names("Then I want jazz.").is_empty());
        // A title keeps its articles; a first word before an article or "on" is a verb.
        assert_eq!(
            proper_names("Put on Conan O'Brien Needs a Friend."),
            ["Conan O'Brien Needs a Friend"]
        );
        assert_eq!(
            proper_names("I could watch The Lord of the Rings forever."),
            ["The Lord of the Rings"]
        );
        assert_eq!(proper_names("Try the Wildwood Diner."), ["Wildwood Diner"]);
        assert_eq!(
            proper_names("Stick on BBC Radio 4, please."),
            ["BBC Radio 4"]
        );
        assert_eq!(
            proper_names("Bank of America, please."),
            ["Bank of America"]
        );
        // "and" joins two names, not one: each stays its own.
        assert_eq!(proper_names("It's Lidl and Aldi for us."), ["Lidl", "Aldi"]);
        assert!(proper_names("They're my all-time favourite band.").is_empty());
    }

    #[test]
    fn a_name_turned_down_where_it_was_said_is_not_pointed_back_to() {
        let s: Vec<String> = [
            "They don't come through Portland often.",
            "It's at the main arena.",
        ]
        .map(String::from)
        .to_vec();
        assert!(
            said_names(&s, 1, &[]).is_empty(),
            "{:?}",
            said_names(&s, 1, &[])
        );
        let s: Vec<String> = [
            "Put on Fleetwood Mac.",
            "They're my all-time favourite band.",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(said_names(&s, 1, &[]), ["Fleetwood Mac"]);
    }

    #[test]
    fn things_are_what_a_determiner_introduces() {
        let t = things("Navigate to the airport for my conference trip.");
        assert!(t.contains(&"airport".to_string()), "{t:?}");
        assert!(t.contains(&"conference trip".to_string()), "{t:?}");
        assert!(!t.iter().any(|w| w.contains("Navigate")), "{t:?}");
        assert!(things("I've switched to cycling, but the idea is similar.")
            .iter()
            .all(|w| !w.contains("cycling")));
        assert!(things("Downtown's already stacking up.").is_empty());
        // A number is no thing ("the 20th").
        let t = things("The appointment is on the 20th.");
        assert!(t.contains(&"appointment".to_string()) && !t.contains(&"20th".to_string()));
    }

    #[test]
    fn spans_neither_start_nor_end_with_function_words() {
        let s = spans("They're my all-time favourite band.");
        assert!(s.iter().all(|w| !w.starts_with("They")), "{s:?}");
    }
}
