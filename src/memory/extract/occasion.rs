//! A story of one past occasion: "I bought groceries at Aldi on the way home yesterday", "My
//! last charge at the Ionity in Cobham took forty minutes", "Last night we ended up at a
//! Nando's because everything else was shut". It tells what happened once, not what its
//! speaker likes or usually does, and names a shop or a station only as where it happened.
//! "I filled up at Esso last time, but BP is where I normally go" and "We had Thai last
//! night, I'm obsessed" say what lasts beside the story and are no such sentence.

use super::spans::words;
use crate::conversation::split_clauses;
use crate::memory::values::says_words;

/// Words after "last" that make it a past time: "last night", "last time", "last Friday".
#[rustfmt::skip]
const TIMES: &[&str] = &[
    "night", "week", "weekend", "time", "month", "year", "summer", "winter", "spring",
    "autumn", "fall", "christmas", "easter", "trip", "visit", "monday", "tuesday", "wednesday",
    "thursday", "friday", "saturday", "sunday",
];

/// Words by which a sentence says something holds beyond the occasion it tells: a habit
/// ("always", "every", "normally"), the present ("now", "still", "these days", a verb of now:
/// "is", "I'm"), or the speaker's taste or wish ("love", "prefer", "my usual").
#[rustfmt::skip]
const BEYOND: &[&str] = &[
    "always", "usually", "normally", "generally", "typically", "often", "every", "each",
    "whenever", "tend", "tends", "never", "ever", "usual", "regular", "regularly", "anymore",
    "still", "now", "nowadays", "these", "again",
    "like", "likes", "love", "loves", "loved", "prefer", "favourite", "favorite", "fan", "hate",
    "enjoy", "rather", "stand", "want", "need", "go-to", "thing", "best",
    "is", "are", "am", "isn't", "aren't", "i'm", "i'd", "i've", "i'll", "we're", "we'd",
    "we've", "we'll", "it's", "that's", "there's", "let's",
    "you", "please", "remind",
    // A change that lasts: "gave up on them months ago", "I switched to Octopus last year".
    "switched", "quit", "swore", "sworn", "started", "became", "joined", "signed",
    "changed", "moved",
];

/// Words after "went" that make it a going somewhere ("we went to", "went out"), not a change
/// of what one is ("I went vegan two years ago").
#[rustfmt::skip]
const GOING: &[&str] = &[
    "to", "for", "out", "back", "home", "through", "into", "past", "on", "with", "there", "up",
    "down", "over", "round", "around", "in", "by", "via", "off", "the", "a", "an", "and",
    "straight", "somewhere", "shopping",
];

/// Past forms of the common irregular verbs a story is told in ("I had", "we went").
#[rustfmt::skip]
const PAST: &[&str] = &[
    "had", "went", "got", "took", "bought", "ate", "drank", "saw", "heard", "came", "drove",
    "rode", "made", "found", "left", "paid", "put", "sat", "gave", "ran", "said", "told",
    "thought", "felt", "kept", "met", "spent", "stood", "brought", "caught", "chose", "fell",
    "forgot", "knew", "lost", "set", "shut", "slept", "sent", "spoke", "stuck", "did",
    "didn't", "was", "wasn't", "were", "weren't", "could", "couldn't", "grabbed", "tried",
];

/// Words between a speaker and a past verb ("we just had", "I finally got").
const BETWEEN: &[&str] = &[
    "just",
    "only",
    "also",
    "finally",
    "eventually",
    "actually",
    "all",
];

/// Whether `sentence` tells only what happened on one past occasion: it names a past time
/// ("yesterday", "last night", "last time", "the other day", "two weeks ago", "my last
/// charge"), its speaker says what they did in the past tense ("I bought", "we ended up") or
/// names their last such occasion ("my last charge"), and no word says anything beyond it
/// ([`BEYOND`]: a habit, the present, a taste, a wish, a word to the assistant, or a change
/// that lasts: "gave up on them", "switched", "went vegan"; a question or a request is read by
/// the rules for those).
pub fn tells_an_occasion(sentence: &str) -> bool {
    if sentence.trim_end().ends_with('?') {
        return false;
    }
    let w = words(sentence);
    let at = |i: usize| w.get(i).map_or("", String::as_str);
    let gave_up = (0..w.len()).any(|i| matches!(at(i), "gave" | "given") && at(i + 1) == "up");
    let went_as = (0..w.len()).any(|i| at(i) == "went" && !GOING.contains(&at(i + 1)));
    // "stopped buying there", not "we stopped at a Caltex".
    let stopped_doing = (0..w.len())
        .any(|i| at(i) == "stopped" && at(i + 1).len() > 4 && at(i + 1).ends_with("ing"));
    if gave_up || went_as || stopped_doing || w.iter().any(|x| BEYOND.contains(&x.as_str())) {
        return false;
    }
    let my_last = (0..w.len()).any(|i| matches!(at(i), "my" | "our") && at(i + 1) == "last");
    let past_time = my_last
        || (0..w.len()).any(|i| {
            at(i) == "yesterday"
                || at(i) == "ago"
                || at(i) == "last" && TIMES.contains(&at(i + 1))
                || at(i) == "other"
                    && i > 0
                    && at(i - 1) == "the"
                    && matches!(at(i + 1), "day" | "night" | "week")
        });
    if !past_time {
        return false;
    }
    let past = |x: &str| PAST.contains(&x) || x.len() > 4 && x.ends_with("ed");
    my_last
        || (0..w.len())
            .filter(|&i| matches!(at(i), "i" | "we"))
            .any(|i| {
                let mut j = i + 1;
                while BETWEEN.contains(&at(j)) {
                    j += 1;
                }
                past(at(j))
            })
}

/// The parts of `sentence` read apart for a story beside a habit: its clauses
/// ([`split_clauses`]) cut again before "but" ("Last week I tried Classic FM for a change | but
/// I always end up back on Radio 2").
fn parts(sentence: &str) -> Vec<String> {
    let mut out = Vec::new();
    for clause in split_clauses(sentence) {
        let mut part: Vec<&str> = Vec::new();
        for w in clause.split_whitespace() {
            if w.eq_ignore_ascii_case("but") && !part.is_empty() {
                out.push(part.join(" "));
                part.clear();
            }
            part.push(w);
        }
        if !part.is_empty() {
            out.push(part.join(" "));
        }
    }
    out
}

/// Of `spans` (a value's candidate words, from `sentence` or a sentence it points back to),
/// all but those `sentence` says only in a part of it that tells one past occasion ([`parts`],
/// [`tells_an_occasion`]): "BP" of "I got petrol at Esso last time because it was close, but
/// BP is where I normally go", where "Esso" is only where it happened. All of them when that
/// leaves none (the sentence's other readings decide then).
pub fn beside_the_occasion(sentence: &str, spans: &[String]) -> Vec<String> {
    let (story, rest): (Vec<String>, Vec<String>) = parts(sentence)
        .into_iter()
        .partition(|p| tells_an_occasion(p));
    if story.is_empty() {
        return spans.to_vec();
    }
    let only_in_the_story =
        |s: &str| story.iter().any(|p| says_words(p, s)) && !rest.iter().any(|p| says_words(p, s));
    let kept: Vec<String> = spans
        .iter()
        .filter(|s| !only_in_the_story(s))
        .cloned()
        .collect();
    if kept.is_empty() {
        spans.to_vec()
    } else {
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::{beside_the_occasion, tells_an_occasion};

    #[test]
    fn a_name_said_only_in_the_story_is_not_the_habit() {
        let of = |s: &str, spans: &[&str]| {
            let spans: Vec<String> = spans.iter().map(|x| x.to_string()).collect();
            beside_the_occasion(s, &spans)
        };
        assert_eq!(
            of(
                "Last week I tried Classic FM for a change but I always end up back on Radio 2.",
                &["Classic FM", "Radio 2"]
            ),
            ["Radio 2"]
        );
        assert_eq!(
            of(
                "I got petrol at Esso last time because it was close, but BP is where I normally go.",
                &["Esso", "BP"]
            ),
            ["BP"]
        );
        // No story: every name stays.
        assert_eq!(
            of(
                "I like Classic FM but Radio 2 is better.",
                &["Classic FM", "Radio 2"]
            ),
            ["Classic FM", "Radio 2"]
        );
        // A name from a sentence pointed back to stays beside the habit's.
        assert_eq!(
            of(
                "Last week I tried Classic FM but I always end up back on it.",
                &["Classic FM", "Radio 2"]
            ),
            ["Radio 2"]
        );
        // Only the story names one: it stays (the other readings decide).
        assert_eq!(
            of(
                "We went to Shell yesterday but I always forget the name",
                &["Shell"]
            ),
            ["Shell"]
        );
    }

    #[test]
    fn a_story_of_one_occasion_is_told_from_a_habit_beside_it() {
        for story in [
            "I bought groceries at Aldi on the way home yesterday since it was on the route.",
            "My last charge at the Ionity in Cobham took forty minutes.",
            "Last night we ended up at a Nando's because everything else was shut.",
            "On the way back from Sydney last week we stopped at a Caltex and charged the phone.",
            "We tried that new Mexican place on Fifth the other day, it was ok I guess",
            "Two weeks ago I had the seat heater on full the whole drive.",
        ] {
            assert!(tells_an_occasion(story), "{story}");
        }
        for lasting in [
            "I got petrol at Esso last time because it was close, but BP is where I normally go.",
            "We had Thai last night, I'm obsessed with it.",
            "Last week I tried Classic FM for a change but I always end up back on Radio 2.",
            "I had sushi yesterday and I love it.",
            "Can you find the podcast I listened to last time?",
            "Play the song we heard yesterday please.",
            "I bought groceries at Aldi.",
            "I had no end of trouble with that network, gave up on them months ago.",
            "I went vegan two years ago.",
            "I switched to Octopus last year.",
            "We stopped going to that Shell last month.",
            "I only shop at Aldi.",
        ] {
            assert!(!tells_an_occasion(lasting), "{lasting}");
        }
    }
}
