//! What a remark that names nothing points back to: the earlier sentences a free-text value
//! can come from ("Play some Fleetwood Mac. They're my all-time favourite band.").

use super::spans::{token_words, FUNCTION_WORDS};
use crate::memory::values;

/// Words by which a sentence points back at something said before it ("They're my favourite
/// band", "It's my station"), or at someone ("she's my favourite artist" after "And some
/// Taylor Swift.", "Nobody's touching him" after "Put some Stormzy on.").
const BACK_REFERENCES: &[&str] = &[
    "it", "it's", "its", "they", "they're", "they've", "them", "that", "that's", "this", "there",
    "those", "he", "he's", "she", "she's", "him", "her", "his",
];

/// Whether a sentence points back at what was said before it ("it", "they're", "that", ...).
fn points_back(s: &str) -> bool {
    token_words(s)
        .iter()
        .any(|w| BACK_REFERENCES.contains(&w.as_str()))
}

/// The earlier sentences a free-text value can come from when the evidence points back at
/// what was said before it and names nothing itself ("Play some Fleetwood Mac. They're my
/// all-time favourite band."): up to two sentences back, while each still points back. A
/// short word of thanks or approval between ([`interjection`]: "Tune.", "Cheers.") is passed
/// over ("Now play Mr. Blue Sky." ... "Tune." "Best song ever written, I'll never get sick of
/// it."). A sentence names something itself when a word other than the first of each of its
/// sentences (and "I") is capitalised: a statement joined from two ("Thanks. It's been my
/// station since college.") opens its second with a capital too.
///
/// `before` holds, for each sentence that opens its user turn, the assistant turn just before
/// it ([`super::Statements::before`]; empty: none known). When the sentences reached name
/// nothing and say no number, and the way back crosses such an assistant turn that names
/// something the user did not say there, what the assistant named is pointed to, first: from
/// an earlier sentence of the user's that says one of its names ("Put on Slice of Heaven."),
/// else from the assistant's turn ("That's my song, I never get tired of it." after "Now
/// playing Mr. Brightside by The Killers."). The driver's remark is about what the car just
/// said; the value is still only a name, as a name the user says would be.
pub(super) fn referents<'a>(
    sentences: &'a [String],
    at: usize,
    before: &'a [Option<String>],
) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut i = at;
    let Some(evidence) = sentences.get(at) else {
        return out;
    };
    if !points_back(evidence) || names_itself(evidence) {
        return out;
    }
    let mut crossed = None;
    let mut passed = 0;
    while out.len() < 2 {
        crossed = crossed.or_else(|| before.get(i).and_then(|b| b.as_deref()));
        let Some(prev) = i.checked_sub(1).and_then(|j| sentences.get(j)) else {
            break;
        };
        i -= 1;
        if passed < 2 && interjection(prev) {
            passed += 1;
            continue;
        }
        out.push(prev.as_str());
        if !points_back(prev) || names_itself(prev) {
            break;
        }
    }
    // The assistant turn before the earliest sentence reached, when nothing nearer is one.
    crossed = crossed.or_else(|| before.get(i).and_then(|b| b.as_deref()));
    let reached: Vec<&str> = std::iter::once(evidence.as_str())
        .chain(out.iter().copied())
        .collect();
    // A number is a value said ("68 degrees is how I like it" after "68 degrees Fahrenheit.").
    let said_nothing = reached
        .iter()
        .all(|s| super::proper_names(s).is_empty() && !s.chars().any(|c| c.is_ascii_digit()));
    let Some(a) = crossed.filter(|_| said_nothing) else {
        return out;
    };
    let named = super::proper_names(a);
    let says = |s: &str| {
        named
            .iter()
            .any(|n| crate::memory::values::says_words(s, n))
    };
    if named.is_empty() || reached.iter().any(|s| says(s)) {
        // The user's own words say what the assistant named ("Ionity where you can."): theirs.
        return out;
    }
    // An earlier sentence of the user's that says one of the names is what was pointed to, in
    // the user's words ("Put on Slice of Heaven." ... "Playing Slice of Heaven by Dave
    // Dobbyn." "Classic. That's my song."); else the assistant's turn.
    let theirs = sentences[..at].iter().rev().find(|s| says(s));
    out.insert(0, theirs.map_or(a, String::as_str));
    out
}

/// An assistant turn as a remark may point back to it: a sentence's first word lower-cased
/// where it is the assistant's action, not a name's first word ("playing Wonderwall by Oasis.",
/// "here's Dreams by Fleetwood Mac."; a word of six letters or more ending in "ing", not
/// "Sting", or "Here's").
pub fn as_pointed_to(turn: &str) -> String {
    let mut out = String::with_capacity(turn.len());
    let mut last = 0;
    for r in crate::conversation::sentence_spans(turn) {
        out.push_str(&turn[last..r.start]);
        let sentence = &turn[r.clone()];
        let end = sentence.find(char::is_whitespace).unwrap_or(sentence.len());
        let first = &sentence[..end];
        let word = first.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'');
        let action = (word.len() > 5 && word.ends_with("ing")) || word == "Here's";
        match action {
            true => {
                out.push_str(&first.to_lowercase());
                out.push_str(&sentence[end..]);
            }
            false => out.push_str(sentence),
        }
        last = r.end;
    }
    out.push_str(&turn[last..]);
    out
}

/// Whether a text names something itself: a capitalised word other than the first of one of
/// its sentences, and other than "I" ("It's Bayern 3 I like."; not "Thanks. It's my station.").
fn names_itself(text: &str) -> bool {
    crate::conversation::sentence_spans(text)
        .into_iter()
        .any(|r| {
            text[r].split_whitespace().skip(1).any(|w| {
                let w = w.trim_matches(|c: char| !c.is_alphanumeric());
                w.chars().next().is_some_and(char::is_uppercase) && w != "I" && !w.starts_with("I'")
            })
        })
}

/// Words of thanks, approval or assent, said on their own between a name and a remark about
/// it (a closed class: not a name said alone as an answer, "Ionity.").
const INTERJECTIONS: &[&str] = &[
    "thanks",
    "thank",
    "you",
    "ta",
    "cheers",
    "nice",
    "great",
    "perfect",
    "lovely",
    "brilliant",
    "cool",
    "ok",
    "okay",
    "yes",
    "yeah",
    "yep",
    "sweet",
    "awesome",
    "excellent",
    "good",
    "right",
    "sure",
    "tune",
    "wow",
    "oh",
    "ah",
    "aye",
    "mate",
    "ooh",
    "yay",
];

/// Whether a sentence is a short word of thanks, approval or assent that says nothing of its
/// own ("Tune.", "Cheers.", "Oh yes!"): one or two words, each of [`INTERJECTIONS`].
fn interjection(sentence: &str) -> bool {
    let words = token_words(sentence);
    (1..=2).contains(&words.len()) && words.iter().all(|w| INTERJECTIONS.contains(&w.as_str()))
}

/// Words for something other than what was said, which name nothing of their own ("find me
/// something different").
const SOMETHING_ELSE: &[&str] = &[
    "something",
    "anything",
    "else",
    "different",
    "other",
    "another",
    "instead",
    "new",
];

/// The clauses of `evidence` (folded, cut at marks and at the words that end a clause:
/// [`values::idiom::clauses`]) that are about `value`: those that say it, point back at
/// something ([`points_back`]: "Coldplay, I can't stand them") or say nothing of their own
/// (function words and [`SOMETHING_ELSE`]: "..., never had", "find me something different"),
/// joined; None when that is every clause, or none says the
/// value. A clause that names something else of its own is not about the value: "so don't go
/// suggesting steakhouses" turns down no "vegetarian".
pub fn value_reach(evidence: &str, value: &str) -> Option<String> {
    let own = |w: &&str| FUNCTION_WORDS.contains(w) || SOMETHING_ELSE.contains(w);
    let lower = values::folded(evidence);
    let clauses = values::idiom::clauses(&lower);
    let clauses: Vec<(String, bool)> = clauses
        .iter()
        .filter(|c| !c.is_empty())
        .map(|c| (c.join(" "), c.iter().all(own)))
        .collect();
    let says = |c: &str| values::says_words(c, value);
    let kept: Vec<&str> = clauses
        .iter()
        .filter(|(c, nothing)| says(c) || points_back(c) || *nothing)
        .map(|(c, _)| c.as_str())
        .collect();
    (kept.iter().any(|c| says(c)) && kept.len() < clauses.len()).then(|| kept.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_s_reach_is_the_clauses_about_it() {
        assert_eq!(
            value_reach(
                "Just so you know, I'm vegetarian, so don't go suggesting steakhouses.",
                "Vegetarian"
            )
            .as_deref(),
            Some("just, i'm vegetarian")
        );
        assert_eq!(
            value_reach("Oasis, I can't stand them, honestly.", "Oasis").as_deref(),
            Some("oasis, i can't stand them")
        );
        // One clause, or every clause about the value: the sentence is read whole.
        assert_eq!(
            value_reach(
                "I've gone off Italian food lately, find me something different.",
                "Italian"
            ),
            None
        );
        assert_eq!(
            value_reach("I've gone off Italian food lately.", "Italian"),
            None
        );
        assert_eq!(
            value_reach("Coldplay, I can't stand them.", "Coldplay"),
            None
        );
        assert_eq!(
            value_reach(
                "Country music, I've no patience for it at all, never had.",
                "Country"
            ),
            None
        );
    }

    fn said(x: &[&str]) -> Vec<String> {
        x.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_sentence_that_points_back_refers_to_the_one_before() {
        let s = said(&[
            "Play Hotel California.",
            "That song never gets old.",
            "It's my favourite song, full stop.",
        ]);
        // Back through a sentence that points back too, at most two.
        assert_eq!(
            referents(&s, 2, &[]),
            ["That song never gets old.", "Play Hotel California."]
        );
        assert!(referents(&s, 0, &[]).is_empty());
        // A sentence that names something itself refers to nothing before it.
        let s = said(&["Hi there.", "It's Bayern 3 I like."]);
        assert!(referents(&s, 1, &[]).is_empty());
        // A statement joined from two sentences opens its second with a capital: no name.
        let s = said(&[
            "Tune in to KEXP.",
            "Thanks. It's been my station since college.",
        ]);
        assert_eq!(referents(&s, 1, &[]), ["Tune in to KEXP."]);
        // A short word of approval between is passed over, a sentence that says more is not.
        let s = said(&[
            "Now play Mr. Blue Sky.",
            "Tune.",
            "Best song ever written, I'll never get sick of it.",
        ]);
        assert_eq!(referents(&s, 2, &[]), ["Now play Mr. Blue Sky."]);
        let s = said(&[
            "Play Hotel California.",
            "Skip to the next one please.",
            "It's my favourite song.",
        ]);
        assert_eq!(referents(&s, 2, &[]), ["Skip to the next one please."]);
        // An artist pointed back to by a personal pronoun.
        let s = said(&[
            "And some Taylor Swift.",
            "Yes, I'm a grown man and she's my favourite artist, don't judge.",
        ]);
        assert_eq!(referents(&s, 1, &[]), ["And some Taylor Swift."]);
        // A name said alone as an answer is no word of approval.
        let s = said(&[
            "We'll need to charge on the way to Lyon.",
            "Ionity.",
            "I've got a subscription, so I always charge with them.",
        ]);
        assert_eq!(referents(&s, 2, &[]), ["Ionity."]);
    }

    #[test]
    fn a_remark_opening_a_turn_points_back_to_what_the_assistant_named_when_the_user_named_nothing()
    {
        let played = Some("Now playing Mr. Brightside by The Killers.".to_string());
        let s = said(&[
            "Play something upbeat.",
            "That's my song, I never get tired of it.",
        ]);
        let before = [None, played.clone()];
        assert_eq!(
            referents(&s, 1, &before),
            [
                "Now playing Mr. Brightside by The Killers.",
                "Play something upbeat."
            ]
        );
        // Across a word of thanks that opens the turn.
        let s = said(&["Play something upbeat.", "Tune.", "That's my song."]);
        let before = [None, played.clone(), None];
        assert_eq!(
            referents(&s, 2, &before)[0],
            "Now playing Mr. Brightside by The Killers."
        );
        // What the user named comes first: the assistant is not asked.
        let s = said(&["And some Taylor Swift.", "She's my favourite artist."]);
        let before = [None, Some("Playing Anti-Hero by Taylor Swift.".to_string())];
        assert_eq!(referents(&s, 1, &before), ["And some Taylor Swift."]);
        // An assistant turn that names nothing is pointed to by nothing; "this" points back.
        let s = said(&["Play something.", "That's my song."]);
        let before = [None, Some("Here's something upbeat.".to_string())];
        assert_eq!(referents(&s, 1, &before), ["Play something."]);
        let s = said(&["Play something.", "I love this song."]);
        let before = [None, played.clone()];
        assert_eq!(
            referents(&s, 1, &before)[0],
            "Now playing Mr. Brightside by The Killers."
        );
        // Through a remark of the same turn that names nothing.
        let s = said(&[
            "Skip this one.",
            "Oh, now we're talking.",
            "That's my song.",
        ]);
        let before = [None, played.clone(), None];
        assert_eq!(
            referents(&s, 2, &before),
            [
                "Now playing Mr. Brightside by The Killers.",
                "Oh, now we're talking."
            ]
        );
        // A name the assistant said that the user said before is taken from the user's words;
        // one the user says in the sentences reached keeps them as they are.
        let s = said(&["Put on Slice of Heaven.", "Classic.", "That's my song."]);
        let before = [
            None,
            Some("playing Slice of Heaven by Dave Dobbyn.".to_string()),
            None,
        ];
        assert_eq!(
            referents(&s, 2, &before),
            ["Put on Slice of Heaven.", "Classic."]
        );
        let s = said(&["Ionity where you can.", "It works out cheaper for me."]);
        let before = [
            Some("There are Ionity and Tesla chargers.".to_string()),
            None,
        ];
        assert_eq!(referents(&s, 1, &before), ["Ionity where you can."]);
        // A number said is a value: the assistant's names are not asked.
        let s = said(&[
            "Set it to 68.",
            "Good. Remember that, 68 degrees is how I like it.",
        ]);
        let before = [None, Some("68 degrees Fahrenheit.".to_string())];
        assert_eq!(referents(&s, 1, &before), ["Set it to 68."]);
    }

    #[test]
    fn an_assistant_turn_pointed_to_keeps_its_names_not_its_actions() {
        assert_eq!(
            as_pointed_to("Playing Wonderwall by Oasis. Here's Dreams next."),
            "playing Wonderwall by Oasis. here's Dreams next."
        );
        assert_eq!(
            as_pointed_to("Fleetwood Mac, coming up. Sting is next."),
            "Fleetwood Mac, coming up. Sting is next."
        );
    }
}
