//! What a remark that names nothing points back to: the earlier sentences a free-text value
//! can come from ("Play some Fleetwood Mac. They're my all-time favourite band.").

use super::spans::token_words;

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
pub(super) fn referents(sentences: &[String], at: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut i = at;
    let Some(evidence) = sentences.get(at) else {
        return out;
    };
    if !points_back(evidence) || names_itself(evidence) {
        return out;
    }
    let mut passed = 0;
    while out.len() < 2 {
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

#[cfg(test)]
mod tests {
    use super::*;

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
            referents(&s, 2),
            ["That song never gets old.", "Play Hotel California."]
        );
        assert!(referents(&s, 0).is_empty());
        // A sentence that names something itself refers to nothing before it.
        let s = said(&["Hi there.", "It's Bayern 3 I like."]);
        assert!(referents(&s, 1).is_empty());
        // A statement joined from two sentences opens its second with a capital: no name.
        let s = said(&[
            "Tune in to KEXP.",
            "Thanks. It's been my station since college.",
        ]);
        assert_eq!(referents(&s, 1), ["Tune in to KEXP."]);
        // A short word of approval between is passed over, a sentence that says more is not.
        let s = said(&[
            "Now play Mr. Blue Sky.",
            "Tune.",
            "Best song ever written, I'll never get sick of it.",
        ]);
        assert_eq!(referents(&s, 2), ["Now play Mr. Blue Sky."]);
        let s = said(&[
            "Play Hotel California.",
            "Skip to the next one please.",
            "It's my favourite song.",
        ]);
        assert_eq!(referents(&s, 2), ["Skip to the next one please."]);
        // An artist pointed back to by a personal pronoun.
        let s = said(&[
            "And some Taylor Swift.",
            "Yes, I'm a grown man and she's my favourite artist, don't judge.",
        ]);
        assert_eq!(referents(&s, 1), ["And some Taylor Swift."]);
        // A name said alone as an answer is no word of approval.
        let s = said(&[
            "We'll need to charge on the way to Lyon.",
            "Ionity.",
            "I've got a subscription, so I always charge with them.",
        ]);
        assert_eq!(referents(&s, 2), ["Ionity."]);
    }
}
