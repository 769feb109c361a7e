//! Praise said in a negation's words: "You can't beat a bit of Fleetwood Mac", "Nothing beats
//! Thai food for me", "I couldn't live without Spotify". Each holds a negation cue ("can't",
//! "nothing", "without") within the scope of the value it praises, and the negation rule read
//! it as turning the value down: those three stored `not Fleetwood Mac`, `not Thai` and `not
//! Spotify`. The opposite of what was said is the worst false memory a value can be.

/// Phrases (folded: lower case, plain apostrophes, whole words) that praise what follows
/// them, though their words negate.
#[rustfmt::skip]
const PRAISE: &[&str] = &[
    "can't beat", "cannot beat", "can not beat", "you can't top", "nothing beats",
    "nothing tops", "nothing better than", "nothing comes close to", "nobody comes close to",
    "no one comes close to", "can't go wrong with", "can never go wrong with",
    "never go wrong with", "never goes wrong with", "couldn't live without",
    "can't live without", "cannot live without", "couldn't do without", "can't do without",
    "wouldn't be without", "can't get enough of", "never get tired of", "never gets tired of",
    "never tire of", "never get bored of", "never gets bored of", "never say no to",
    "can't say no to", "can't resist", "never miss", "no one does", "nobody does",
    "nothing like",
];

/// `lower` (folded) with every phrase of [`PRAISE`] read as "love": what the negation rule
/// reads in place of the words as said.
pub(super) fn praised(lower: &str) -> String {
    let words: Vec<&str> = lower.split(' ').collect();
    fn bare(w: &str) -> &str {
        w.trim_matches(|c: char| !(c.is_alphanumeric() || c == '\''))
    }
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let hit = PRAISE.iter().find_map(|p| {
            let p: Vec<&str> = p.split(' ').collect();
            let here = words.get(i..i + p.len())?;
            here.iter()
                .zip(&p)
                .all(|(a, b)| bare(a) == *b)
                .then_some(p.len())
        });
        match hit {
            Some(n) => {
                // The last word's marks stay ("can't beat it," keeps its comma).
                let last = words[i + n - 1];
                let kept = last.trim_end_matches(|c: char| !c.is_alphanumeric()).len();
                out.push(format!("love{}", &last[kept..]));
                i += n;
            }
            None => {
                out.push(words[i].to_string());
                i += 1;
            }
        }
    }
    out.join(" ")
}

/// Whether `sentence` praises something in a negation's words ([`PRAISE`]).
pub fn praises(sentence: &str) -> bool {
    super::says_any(&super::words(&super::folded(sentence)), PRAISE)
}

#[cfg(test)]
mod tests {
    use super::super::{negates, turns_down};
    use super::praises;

    #[test]
    fn praise_in_a_negation_s_words_turns_nothing_down() {
        for (s, v) in [
            (
                "You can't beat a bit of Fleetwood Mac on a long drive.",
                "Fleetwood Mac",
            ),
            (
                "Nothing beats Thai food for me, I'd eat it every day.",
                "Thai",
            ),
            (
                "I couldn't live without Spotify, all my music is on it.",
                "Spotify",
            ),
            ("You can never go wrong with ABBA.", "ABBA"),
            ("I can't get enough of Radio 2.", "Radio 2"),
        ] {
            assert!(praises(s), "{s}");
            assert!(!turns_down(s, v), "{s}");
        }
        assert!(!negates("Nothing beats Thai food for me."));
        // A refusal beside praise is still one.
        assert!(turns_down(
            "You can't beat Shell, but never send me to Esso.",
            "Esso"
        ));
        assert!(turns_down("I can't stand Nickelback.", "Nickelback"));
        assert!(!praises("I can't stand Nickelback."));
    }
}
