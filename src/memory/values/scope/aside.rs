//! A value put aside for good in words that hold no negation cue before it: "leave Ed Sheeran
//! out", "me and Coldplay are finished" ([`put_aside`]), or pointed back to and refused in the
//! clause after it: "Red in the cabin does my head in, I never want it", "Coldplay puts me to
//! sleep, keep it off" ([`refused_back`]), or said as what bothers the driver: "Red lights in
//! the cabin drive me mad" ([`bothers`]). Read by the negation scope ([`super::refused`]).

use super::{DETERMINERS, FILLERS, REFUSALS};

/// Whether the words around a value put it aside for good in words that hold no negation:
/// "leave Ed Sheeran out", "cross Esso off", "me and Coldplay are finished", "I'm sick of
/// Wonderwall", "I've gone off Thai".
pub(super) fn put_aside(before: &[&str], after: &[&str]) -> bool {
    let last = |n: usize| before.len().checked_sub(n).map(|i| &before[i..]);
    let leave = [1, 2].into_iter().any(|n| {
        last(n).is_some_and(|w| matches!(w.first(), Some(&"leave" | &"cross")))
            && (n == 1 || DETERMINERS.contains(&before[before.len() - 1]))
    });
    let together = last(2) == Some(&["me", "and"][..]);
    (leave && matches!(after.first(), Some(&"out" | &"off")))
        || (together
            && matches!(
                after,
                ["are" | "were", "done" | "finished" | "over" | "through", ..]
            ))
        || ASIDE.iter().any(|p| {
            // Said of the value itself, not of "it" ("I'll be sick of it by Ballinasloe").
            let p: Vec<&str> = p.split(' ').collect();
            let own = match before.last() {
                Some(w) if DETERMINERS.contains(w) => &before[..before.len() - 1],
                _ => before,
            };
            own.ends_with(&p)
        })
}

/// Words before a value that put it aside for good ([`put_aside`]).
const ASIDE: &[&str] = &[
    "sick of",
    "fed up with",
    "gone off",
    "gave up on",
    "given up on",
    "tired of",
];

/// Whether the clause after a value's refuses it by pointing back to it ("Red in the cabin does
/// my head in, I never want it", "Coldplay, don't ever put them on for me"): a negation, a verb
/// of wanting or choosing ([`WANTS`]), then "it", "them" or "there", with nothing after it but
/// words that leave what is refused as it is ([`BACK_TAIL`]): "don't want it too loud" asks for
/// less of it, "don't change it" keeps it, "don't want it today" is for the moment. Praise in a
/// negation's words was read as praise before ("I never get tired of them").
pub(super) fn refused_back(next: &[Vec<&str>]) -> bool {
    // The clause after, or the one after a clause that only refuses ("Jazz, no, I don't want it").
    let mut said = next
        .iter()
        .filter(|c| c.iter().any(|w| !FILLERS.contains(w)));
    let first = said.next();
    let only_refuses = |c: &Vec<&str>| {
        c.iter()
            .all(|w| REFUSALS.contains(w) || FILLERS.contains(w))
    };
    let second = first.filter(|c| only_refuses(c)).and_then(|_| said.next());
    first.is_some_and(|c| points_back_refusing(c))
        || second.is_some_and(|c| points_back_refusing(c))
}

/// [`refused_back`] of one clause.
fn points_back_refusing(c: &[&str]) -> bool {
    let cue = |w: &str| {
        w.contains("n't") || matches!(w, "never" | "not" | "no" | "cannot" | "none" | "nothing")
    };
    let own = |before: &[&str]| {
        before
            .iter()
            .all(|w| SPEAKER.contains(w) || FILLERS.contains(w))
    };
    // "keep it off", "I'm done with it", "I gave up on them years ago".
    if let Some((before, tail)) = refusing_phrase(c) {
        return own(before) && tail.iter().all(|w| BACK_TAIL.contains(w));
    }
    let Some(at) = c.iter().position(|w| cue(w)) else {
        return false;
    };
    let own = |before: &[&str]| {
        before
            .iter()
            .all(|w| SPEAKER.contains(w) || FILLERS.contains(w))
    };
    // "I want none of it".
    if let (Some(before), ["none" | "nothing", "of", "it" | "them", tail @ ..]) =
        (c[..at].strip_suffix(&["want"]), &c[at..])
    {
        return own(before) && tail.iter().all(|w| BACK_TAIL.contains(w));
    }
    // The driver's own refusal or a request to the car: "my daughter doesn't like it" is hers.
    if !own(&c[..at]) {
        return false;
    }
    let mut rest: &[&str] = &c[at + 1..];
    while let [w, tail @ ..] = rest {
        if !matches!(*w, "ever" | "really" | "even" | "again") {
            break;
        }
        rest = tail;
    }
    // "I don't want to hear it": the verb after "want to" says the will.
    if let ["want", "to", tail @ ..] = rest {
        rest = tail;
    }
    let wants = rest.first().is_some_and(|w| WANTS.contains(w));
    let rest: Vec<&str> = rest
        .iter()
        .skip(1)
        .copied()
        .skip_while(|w| *w == "me")
        .collect();
    wants
        && matches!(rest.first(), Some(&"it" | &"them" | &"there"))
        && rest[1..].iter().all(|w| BACK_TAIL.contains(w))
}

/// The words before and after a phrase of `c` that refuses what it points back to without a
/// negation ([`REFUSING`], its "it" standing for "it", "them" or "that").
fn refusing_phrase<'a, 'b>(c: &'a [&'b str]) -> Option<(&'a [&'b str], &'a [&'b str])> {
    let back = |w: &str| matches!(w, "it" | "them" | "that");
    REFUSING.iter().find_map(|phrase| {
        let words: Vec<&str> = phrase.split(' ').collect();
        (0..c.len().saturating_sub(words.len() - 1)).find_map(|i| {
            let here = &c[i..i + words.len()];
            let fits = here
                .iter()
                .zip(&words)
                .all(|(w, p)| w == p || (*p == "it" && back(w)));
            fits.then(|| (&c[..i], &c[i + words.len()..]))
        })
    })
}

/// Phrases that refuse what "it" points back to without a negation.
const REFUSING: &[&str] = &[
    "keep it off",
    "leave it off",
    "leave it out",
    "skip it",
    "done with it",
    "gave up on it",
    "given up on it",
    "give it a miss",
    "steer clear of it",
    "sick of it",
    "tired of it",
    "fed up with it",
    "had enough of it",
];

/// Words before a refusal that say it is the speaker's own.
const SPEAKER: &[&str] = &[
    "i",
    "we",
    "i'd",
    "we'd",
    "i'll",
    "we'll",
    "i'm",
    "we're",
    "i've",
    "we've",
    "so",
    "please",
    "just",
    "then",
    "personally",
    "totally",
    "completely",
    "really",
    "am",
    "are",
    "have",
];

/// Verbs by which a refusal of what was pointed back to says the driver's will ("I never want
/// it", "don't suggest it again", "never take me there").
const WANTS: &[&str] = &[
    "want",
    "need",
    "like",
    "play",
    "put",
    "suggest",
    "recommend",
    "trust",
    "use",
    "take",
    "give",
    "eat",
    "hear",
    "choose",
    "pick",
    "show",
    "offer",
];

/// Words after a pointed-back "it" that keep the refusal whole.
const BACK_TAIL: &[&str] = &[
    "again",
    "ever",
    "anymore",
    "at",
    "all",
    "for",
    "me",
    "on",
    "please",
    "thanks",
    "thank",
    "you",
    "in",
    "the",
    "car",
    "here",
    "mate",
    "good",
    "no",
    "more",
    "of",
    "any",
    "kind",
    "years",
    "ago",
    "long",
    "completely",
    "totally",
    "forever",
];

/// Whether the words after a value in its clause say it bothers the driver: "Red lights in the
/// cabin drive me mad", "that station grates on me", "white light gives me a headache". The
/// phrase ([`BOTHERS`]) begins at most [`BOTHER_REACH`] words after the value (its own nouns:
/// "lights in the cabin"), with no negation or condition before it: "jazz never gets on my
/// nerves" is praise, "if it gets on my nerves" is not said of it, nor is what a new subject
/// does ("put on jazz i think the traffic drives me mad").
pub(super) fn bothers(after: &[&str]) -> bool {
    // The phrase may begin at most this far in: not past a word that holds it back.
    let reach = after
        .iter()
        .position(|w| w.contains("n't") || HOLD_BACK.contains(w))
        .unwrap_or(after.len())
        .min(BOTHER_REACH);
    BOTHERS.iter().any(|phrase| {
        let phrase: Vec<&str> = phrase.split(' ').collect();
        (0..=reach).any(|k| {
            after.get(k..k + phrase.len()).is_some_and(|said| {
                phrase
                    .iter()
                    .zip(said)
                    .all(|(p, w)| p.split('|').any(|alt| alt == *w))
            })
        })
    })
}

/// Words between a value and what bothers the driver that say it is not said of the value
/// ([`bothers`]): a negation, a condition, a habit past, a new subject.
const HOLD_BACK: &[&str] = &[
    "not", "never", "no", "nothing", "hardly", "if", "when", "unless", "used", "it", "i", "you",
    "he", "she", "we", "they",
];

/// How many words may stand between a value and what it does to the driver ([`bothers`]).
const BOTHER_REACH: usize = 4;

/// What a thing does to a driver who cannot stand it, each word with its forms (`|`).
const BOTHERS: &[&str] = &[
    "drive|drives|drove me mad|crazy|nuts|insane|bonkers|spare",
    "drive|drives|drove me up the wall",
    "drive|drives|drove me round|around the bend|twist",
    "get|gets|got on my nerves|wick",
    "do|does|did my head in",
    "grate|grates|grated on me|my",
    "give|gives|gave me a headache|migraine",
    "give|gives|gave me the creeps|ick",
    "make|makes|made me sick|queasy|cringe",
    "bore|bores|bored me",
    "annoy|annoys|annoyed me",
    "irritate|irritates|irritated me",
];
