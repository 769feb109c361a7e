//! Praise said in a negation's words: "You can't beat a bit of Fleetwood Mac", "Nothing beats
//! Thai food for me", "I couldn't live without Spotify". Each holds a negation cue ("can't",
//! "nothing", "without") within the scope of the value it praises, and the negation rule read
//! it as turning the value down: those three stored `not Fleetwood Mac`, `not Thai` and `not
//! Spotify`. The opposite of what was said is the worst false memory a value can be.
//!
//! A title said with a negation's words is the same mistake: "My favourite song is No Woman No
//! Cry" stored `not Bob Marley`, "I never get tired of Don't Look Back in Anger" `not Look
//! Back` ([`untitled`]). Where the titles are ([`titles`]) is read by extraction's value step
//! too: a title is one name there (`extract::titles`).

/// Phrases (folded: lower case, plain apostrophes, whole words) that praise what follows
/// them, though their words negate.
#[rustfmt::skip]
const PRAISE: &[&str] = &[
    "can't beat", "cannot beat", "can not beat", "you can't top", "nothing beats",
    "nothing tops", "nothing better than", "nothing comes close to", "nobody comes close to",
    "no one comes close to", "can't go wrong with", "can never go wrong with",
    "never go wrong with", "never goes wrong with", "couldn't live without",
    "can't live without", "cannot live without", "couldn't do without", "can't do without",
    "wouldn't be without", "can't get enough of", "never get enough of",
    "haven't had enough of", "never had enough of", "never get tired of", "never gets tired of",
    "never tire of", "never get bored of", "never gets bored of", "never say no to",
    "can't say no to", "can't resist", "never miss", "no one does", "nobody does",
    "nothing like", "never pass up", "can't pass up", "couldn't pass up", "wouldn't pass up",
    "won't pass up", "never passes up", "can't drive past", "never drive past",
    "can't walk past", "never walk past", "never switch from", "wouldn't switch from",
    "won't switch from",
];

/// What the negation rule reads of a sentence: folded, with a title's negation words
/// ([`untitled`]) and praise ([`praised`]) read as what they mean.
pub(super) fn as_read(sentence: &str) -> String {
    praised(&super::folded(&untitled(sentence)))
}

/// The clauses of a folded text (lower case, [`super::folded`]), each as its words: cut at
/// marks, then at the words that end a clause ([`super::breaks_clause`]: "I don't mind
/// waiting, but the cheapest one" has three; "I don't like so much the jazz" one). Where a
/// negation reaches ([`super::turns_down`]) and where a name is said with its category's word
/// ([`super::named_with_its_category`]).
pub fn clauses(lower: &str) -> Vec<Vec<&str>> {
    lower
        .split([',', '.', ';', ':', '!', '?', '(', ')'])
        .flat_map(|c| {
            let words = super::words(c);
            let mut out = vec![Vec::new()];
            for (i, w) in words.iter().enumerate() {
                match super::breaks_clause(w, words.get(i + 1).copied()) {
                    true => out.push(Vec::new()),
                    false => out.last_mut().expect("one clause at least").push(*w),
                }
            }
            out
        })
        .collect()
}

/// A word without the marks around it (its apostrophes kept: "can't", "Believin'").
pub fn bare(w: &str) -> &str {
    w.trim_matches(|c: char| !(c.is_alphanumeric() || c == '\''))
}

/// Words that negate what follows them in a clause, for [`needs_without`].
const DOUBLE_NEGATIONS: &[&str] = &["never", "not", "no", "cannot", "nobody", "nothing"];

/// How far before "without" a negation still makes the two one double negation, in words.
const DOUBLE_SCOPE: usize = 6;

/// Where `words` (folded, split at spaces) say that something cannot be done without what
/// follows: a negation ("can't", "never", "no") and then "without" in the same clause, at most
/// [`DOUBLE_SCOPE`] words apart ("Can't do a road trip without a sausage roll from Greggs",
/// "I never drive without Waze on"). Two negations make one need: what follows "without" is
/// wanted, not turned down. Each pair is (the negation's index, the index of "without").
fn needs_without(words: &[&str]) -> Vec<(usize, usize)> {
    let negation = |w: &str| bare(w).contains("n't") || DOUBLE_NEGATIONS.contains(&bare(w));
    let ends_clause = |w: &str| w.ends_with([',', '.', ';', ':', '!', '?']);
    let mut pairs = Vec::new();
    for (at, _) in words
        .iter()
        .enumerate()
        .filter(|(_, w)| bare(w) == "without")
    {
        let mut k = at;
        while k > 0 && at - k < DOUBLE_SCOPE {
            k -= 1;
            let w = words[k];
            if ends_clause(w) || super::breaks_clause(bare(w), Some(bare(words[k + 1]))) {
                break;
            }
            if negation(w) {
                pairs.push((k, at));
                break;
            }
        }
    }
    pairs
}

/// `lower` (folded) with every phrase of [`PRAISE`] read as "love", and a need said by two
/// negations ([`needs_without`]) as "love ... with": what the negation rule reads in place of
/// the words as said.
fn praised(lower: &str) -> String {
    let plain: Vec<&str> = lower.split(' ').collect();
    // The marks a word ends with, which a word read in its place keeps.
    let marks = |w: &str| w[w.trim_end_matches(|c: char| !c.is_alphanumeric()).len()..].to_string();
    let mut needs: Vec<String> = plain.iter().map(|w| w.to_string()).collect();
    for (negation, without) in needs_without(&plain) {
        needs[negation] = format!("love{}", marks(plain[negation]));
        needs[without] = format!("with{}", marks(plain[without]));
    }
    let words: Vec<&str> = needs.iter().map(String::as_str).collect();
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
                out.push(format!("love{}", marks(words[i + n - 1])));
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

/// Words that open a sentence before what it is about ("And", "But", "Oh").
pub const OPENERS: &[&str] = &[
    "and", "but", "so", "or", "plus", "then", "also", "oh", "well", "yeah", "yes", "okay", "ok",
    "right", "honestly", "because", "cos",
];

/// Words that say whose or which a thing is, not part of its name ("My Tesla", "This Shell").
const OWNERS: &[&str] = &[
    "my", "our", "your", "his", "her", "their", "this", "that", "these", "those",
];

/// Short words a title keeps in lower case between two capitalised ones ("Don't Look Back in
/// Anger").
pub const JOINERS: &[&str] = &[
    "in", "of", "the", "a", "an", "and", "on", "to", "for", "at", "me",
];

/// Whether `word` (without its marks) is a copula, by which a sentence says what its subject is.
pub fn copula(word: &str) -> bool {
    matches!(word, "is" | "was" | "are" | "were")
}

/// Whether a title may open with `word` (folded) where a request may not: a negation's words
/// ("Don't Stop Me Now", "Can't Help Falling in Love", "No Woman No Cry", "Never Gonna Give
/// You Up", "Nothing Else Matters"), but not "Not", which turns down what follows it.
pub fn opens_title(word: &str) -> bool {
    word.contains("n't") || matches!(word, "no" | "never" | "nothing")
}

/// Whether a word (without its marks, [`bare`]) is capitalised as a name is: "I" and its
/// contractions are no capital of their own.
pub fn capitalised(word: &str) -> bool {
    word.starts_with(char::is_uppercase) && !matches!(word, "I" | "I'm" | "I'd" | "I've" | "I'll")
}

/// The titles of `sentence` (as said), as ranges of its space-separated tokens: runs of two or
/// more capitalised words, joiners between two of them ("Don't Look Back in Anger", "No Woman
/// No Cry", "Here Comes the Sun"), each ending at a mark, that do not open the sentence, or
/// open it as what something is ("Don't Stop Believin' is my song"), or are said with whom
/// they are by ("Don't Stop Me Now by Queen is my song"), or follow an opening "It's" or
/// "That's" ("It's The Rest Is Football for me"). A run that opens it otherwise is
/// read as said ("No BBC Radio 1, please" refuses), and a sentence in capitals nearly
/// throughout (four words in five) or in lower case throughout, as a recogniser writes it,
/// holds none. "I" is no capital of its own.
pub fn titles(sentence: &str) -> Vec<std::ops::Range<usize>> {
    let capital = |t: &str| capitalised(bare(t));
    let tokens: Vec<&str> = sentence.split(' ').collect();
    let caps = tokens.iter().filter(|t| capital(t)).count();
    if caps < 2 || (tokens.len() >= 4 && caps * 5 > tokens.len() * 4) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let opens = opens_at(&tokens, i);
        let j = capital_run(&tokens, i);
        // Said with whom it is by, a run is a title though it opens the sentence ("Don't
        // Stop Me Now by Queen is my song").
        let credited = j > i
            && !tokens[j - 1].ends_with([',', '.', '!', '?', ';', ':'])
            && tokens.get(j).is_some_and(|t| bare(t) == "by")
            && tokens.get(j + 1).is_some_and(|t| capital(t));
        // Said as what something is, it is the subject: "Don't Stop Believin' is my song".
        let subject = j > i
            && !tokens[j - 1].ends_with([',', '.', '!', '?', ';', ':'])
            && tokens.get(j).is_some_and(|t| copula(bare(t)));
        // Said with whom it is by and then as what it is, the whole is the subject: "Here
        // Comes the Sun by The Beatles is my song" (a request's verb stands before no such).
        let subject = subject || (credited && credit_then_copula(&tokens, j + 1));
        // A word that opens the sentence, not the name ("And Chargefox is my network"), nor
        // whose it is ("My Tesla is due a service").
        let from = match subject && opens {
            true => (i..j)
                .find(|&k| {
                    let w = super::folded(bare(tokens[k]));
                    !OPENERS.contains(&w.as_str()) && !OWNERS.contains(&w.as_str())
                })
                .unwrap_or(j),
            false => i,
        };
        if j - i >= 2 && !opens {
            out.push(i..j);
        } else if subject && j - from >= 2 {
            out.push(from..j);
        } else if opens && j - i >= 3 && says_it_is(bare(tokens[i])) {
            // After "It's" or "That's" the title is what something is: "It's The Rest Is
            // Football for me" names The Rest Is Football.
            out.push(i + 1..j);
        } else if j - i >= 2 && credited {
            // Its first word may be the request's verb ("Exclude Dreamer's Canvas by Lenny
            // Visionary"); a title may open with a negation's words, a request not.
            let first = super::folded(bare(tokens[i]));
            out.push(if opens_title(&first) { i..j } else { i + 1..j });
        }
        i = j.max(i + 1);
    }
    out
}

/// Whether a word opening a sentence says that what follows is what something is ("It's",
/// "That's", with a plain or typographic apostrophe).
fn says_it_is(word: &str) -> bool {
    matches!(super::folded(word).as_str(), "it's" | "that's")
}

/// Whether `tokens[i]` opens a sentence: it is the first, or the one before it ends with a
/// sentence's mark.
pub fn opens_at(tokens: &[&str], i: usize) -> bool {
    i == 0 || tokens[i - 1].ends_with(['.', '!', '?', ':', ';'])
}

/// Where the run of capitalised words from `tokens[i]` ends (exclusive; `i` when it opens
/// none): one or two [`JOINERS`] may stand between two capitalised words ("The Lord of the
/// Rings", "Here Comes the Sun"), "I" may open or join one before a capitalised word ("I Will
/// Survive", "Baby I Love Your Way"), and a mark ends it after its word.
pub fn capital_run(tokens: &[&str], i: usize) -> usize {
    let capital = |t: &str| capitalised(bare(t));
    let joined = |k: usize| JOINERS.contains(&bare(tokens[k]));
    let mut j = i;
    while j < tokens.len() {
        let next = (j + 1..tokens.len().min(j + 3)).find(|&k| !joined(k));
        let before_capital = next.is_some_and(|k| capital(tokens[k]));
        let joiner = (j > i && joined(j) && before_capital)
            || (bare(tokens[j]) == "I" && tokens.get(j + 1).is_some_and(|t| capital(t)));
        if !(capital(tokens[j]) || joiner) {
            break;
        }
        j += 1;
        if tokens[j - 1].ends_with([',', '.', '!', '?', ';', ':']) {
            break;
        }
    }
    j
}

/// Whether the capitalised run from `tokens[at]` (who a work is by: "The Beatles", joiners
/// between capitals) ends at no mark and is followed by a copula: "... by The Beatles is my
/// song".
pub fn credit_then_copula(tokens: &[&str], at: usize) -> bool {
    let capital = |t: &str| bare(t).starts_with(char::is_uppercase);
    let mut k = at;
    while k < tokens.len()
        && (capital(tokens[k])
            || (k > at
                && JOINERS.contains(&bare(tokens[k]))
                && tokens.get(k + 1).is_some_and(|t| capital(t))))
    {
        if tokens[k].ends_with([',', '.', '!', '?', ';', ':']) {
            return false;
        }
        k += 1;
    }
    k > at && tokens.get(k).is_some_and(|t| copula(bare(t)))
}

/// `sentence` (as said, before folding) with the negation's words inside a title
/// ([`titles`]) read as part of it: "... is No Woman No Cry", "... of Don't Look Back in
/// Anger" name something, and their "No", "Don't" or "Stop" turns nothing down.
fn untitled(sentence: &str) -> String {
    let cue = |t: &str| {
        let b = super::folded(bare(t));
        b.contains("n't") || super::NEGATION_CUES.contains(&b.as_str())
    };
    let titles = titles(sentence);
    sentence
        .split(' ')
        .enumerate()
        .map(
            |(i, t)| match cue(t) && titles.iter().any(|r| r.contains(&i)) {
                true => "Title",
                false => t,
            },
        )
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `sentence` praises something in a negation's words ([`PRAISE`], [`needs_without`]).
pub fn praises(sentence: &str) -> bool {
    let lower = super::folded(sentence);
    super::says_any(&super::words(&lower), PRAISE)
        || !needs_without(&lower.split(' ').collect::<Vec<_>>()).is_empty()
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
            (
                "Forty years and I still haven't had enough of Dolly Parton.",
                "Dolly Parton",
            ),
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

    #[test]
    fn two_negations_say_a_need() {
        for (s, v) in [
            (
                "Can't do a road trip without a sausage roll from Greggs, it's tradition.",
                "Greggs",
            ),
            ("Can't drive without a bit of jazz.", "jazz"),
            (
                "I never go on a long drive without Fleetwood Mac on.",
                "Fleetwood Mac",
            ),
            ("No school run without Radio 2 in our house.", "Radio 2"),
        ] {
            assert!(praises(s), "{s}");
            assert!(!turns_down(s, v), "{s}");
        }
        // "Without" alone, or after a negation that ends its clause, still turns down.
        assert!(turns_down(
            "I'd rather go without the green fuel.",
            "green fuel"
        ));
        assert!(turns_down(
            "I'm not fussy, I'll do without the Wi-Fi.",
            "Wi-Fi"
        ));
        assert!(!praises("I'm not fussy, I'll do without the Wi-Fi."));
    }

    #[test]
    fn a_title_s_negation_words_turn_nothing_down() {
        for (s, v) in [
            (
                "My favourite song is No Woman No Cry by Bob Marley.",
                "Bob Marley",
            ),
            ("My favourite song is No Woman No Cry.", "No Woman No Cry"),
            (
                "I always listen to Don't Stop Believin' on long drives.",
                "Don't Stop Believin'",
            ),
            (
                "My go-to podcast is Stop Podcasting Yourself.",
                "Stop Podcasting Yourself",
            ),
        ] {
            assert!(!turns_down(s, v), "{s}");
        }
        assert!(!negates("My favourite song is No Woman No Cry."));
        // A run that opens the sentence, or words in lower case, still refuse.
        assert!(turns_down("No BBC Radio 1, please.", "BBC Radio 1"));
        assert!(turns_down("Don't Play Queen.", "Queen"));
        assert!(turns_down(
            "i don't want no woman no cry again",
            "no woman no cry"
        ));
        assert!(turns_down("I don't want Radio 2 anymore.", "Radio 2"));
        assert!(turns_down("Play anything, just not Radio 2.", "Radio 2"));
        // Said as what something is, or with whom it is by, a title may open the sentence;
        // a request's verb before it still refuses.
        assert!(!turns_down(
            "Don't Stop Believin' is my favourite song.",
            "Don't Stop Believin'"
        ));
        assert!(!turns_down(
            "Don't Stop Me Now by Queen is my favourite song.",
            "Don't Stop Me Now"
        ));
        assert!(turns_down(
            "Exclude Dreamer's Canvas by Lenny Visionary from my music playlist.",
            "Dreamer's Canvas by Lenny Visionary"
        ));
        // A sentence mostly in capitals is read as said.
        assert!(turns_down("I Do Not Want Bob Marley Today.", "Bob Marley"));
    }
}
