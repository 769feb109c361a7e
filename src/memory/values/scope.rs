//! Where a negation reaches: whether a sentence turns a value down ([`turns_down`]), by a cue
//! in the value's clause before it ([`super::negates`], at most [`super::SCOPE`] words), by
//! what follows it in its clause ("jazz isn't for me"), by a clause of refusal said after a
//! value said alone ("Pandora, absolutely not"), by words that put it aside without a cue or
//! point back to it from the next clause ([`aside`]). A speech repair ("no wait, I mean
//! Heart") ends what the refusal before it reaches; what the driver would rather do than have
//! ("I'd rather die than listen to Nickelback") is read as after "rather than".

mod aside;

use super::{idiom, negates, number, stems, without_s, SCOPE, WEAK_WORDS};
use aside::{bothers, put_aside, refused_back};

/// Whether the sentence turns this value down: a negation cue ([`negates`]) in the same clause
/// at most [`SCOPE`] words before one of the value's words, or `anymore` after it ("not jazz",
/// "I'm not a fan of jazz", "no more jazz", "jazz, not anymore"). A cue elsewhere in the sentence
/// ("even if it's longer, to avoid traffic", "the shortest time no matter what") does not turn
/// the value down.
pub fn turns_down(sentence: &str, value: &str) -> bool {
    refused(sentence, value, false)
}

/// [`turns_down`] for a name the user said: only where the whole name is said ("the High Court
/// instead of the District Court" turns down the District Court, not the High Court, whose
/// "court" is said again after "instead").
pub fn turns_down_name(sentence: &str, name: &str) -> bool {
    refused(sentence, name, true)
}

fn refused(sentence: &str, value: &str, whole: bool) -> bool {
    let value = super::folded(value);
    // "Pink's not for me": an "'s" the value does not end with is an "is".
    let owns_s = value.ends_with("'s");
    let wanted: Vec<String> = stems(&unpossessed(&value))
        .into_iter()
        .filter(|w| !WEAK_WORDS.contains(&w.as_str()))
        .collect();
    if wanted.is_empty() {
        return false;
    }
    let lower = anything_but(&without_answer_no(&idiom::as_read(sentence)));
    let clauses: Vec<Vec<&str>> = idiom::clauses(&lower)
        .into_iter()
        .map(rather_than)
        .collect();
    for (c, part) in clauses.iter().enumerate() {
        let part = &part[..];
        // "McDonald's" is said as McDonald, "country's" as country (and "is").
        let stemmed: Vec<String> = part
            .iter()
            .map(|w| stems(&unpossessed(w)).join(" "))
            .collect();
        let mut said = false;
        for (j, w) in stemmed.iter().enumerate() {
            let here = match whole {
                // The name's words in a row from its first word here, its weak words ("of")
                // skipped ("switch to Smooth Radio" is not said from "to").
                true if w != &wanted[0] => false,
                true => {
                    let run: Vec<&String> = stemmed[j..]
                        .iter()
                        .filter(|x| !WEAK_WORDS.contains(&x.as_str()))
                        .take(wanted.len())
                        .collect();
                    run.len() == wanted.len() && run.iter().zip(&wanted).all(|(a, b)| *a == b)
                }
                false => wanted.contains(w),
            };
            if !here {
                continue;
            }
            said = true;
            let end = if whole {
                (j + wanted.len()).min(part.len())
            } else {
                j + 1
            };
            let start = repaired(part, j.saturating_sub(SCOPE), j);
            let before = &part[start..j];
            // "switch to outside", "drop it to 82": the value is where the change goes,
            // not what is turned down ("switch from jazz" still is).
            let before: Vec<&str> = before
                .iter()
                .enumerate()
                .filter(|(k, w)| {
                    let next = before.get(k + 1..).unwrap_or_default();
                    let noun = *k > 0 && DETERMINERS.contains(&before[k - 1]);
                    // "Instead, play jazz" chooses jazz; "instead of jazz" turns it down.
                    // "No other genre, just jazz" turns down the others.
                    let instead = **w == "instead" && next.first() != Some(&"of");
                    let others = NONE_CUES.contains(w)
                        && next.first().is_some_and(|x| matches!(*x, "other" | "else"));
                    let toward = TOWARD_CUES.contains(w) && next.contains(&"to");
                    // "The coffee stop is Tim Hortons": a stop that is something is a place.
                    let is = next
                        .first()
                        .is_some_and(|x| matches!(*x, "is" | "was" | "'s"));
                    let visit = STOP_CUES.contains(w)
                        && (noun || is || next.first().is_some_and(|x| VISITS.contains(x)));
                    // "drop me at the Tesco": a drop-off is a place to go.
                    let drop_off = **w == "drop"
                        && next
                            .first()
                            .is_some_and(|x| matches!(*x, "me" | "us" | "off"));
                    // "I don't mind jazz" accepts it.
                    let accepts = next.first() == Some(&"mind");
                    // "set it to 20 no 21": a number corrected, the one after it not refused.
                    let at = start + k;
                    let repair = **w == "no"
                        && at > 0
                        && number(part[at - 1])
                        && part.get(at + 1).is_some_and(|x| number(x));
                    !(instead || others || toward || visit || drop_off || accepts || repair)
                })
                .map(|(_, w)| *w)
                .collect();
            let is = part[end - 1].ends_with("'s") && !owns_s;
            let after: Vec<&str> = is
                .then_some("is")
                .into_iter()
                .chain(part[end..].iter().copied())
                .collect();
            // The number corrected is the one turned down.
            let corrected =
                number(part[j]) && matches!(after.as_slice(), ["no", n, ..] if number(n));
            // The words after the whole value ("leave Kings of Leon out").
            let past: Vec<&str> = after
                .iter()
                .copied()
                .skip_while(|w| {
                    WEAK_WORDS.contains(w)
                        || stems(&unpossessed(w)).iter().all(|s| wanted.contains(s))
                })
                .collect();
            let aside = put_aside(&before, &past);
            if negates(&before.join(" "))
                || negates_after(&after)
                || bothers(&after)
                || corrected
                || aside
            {
                return true;
            }
        }
        // Said alone and refused in the clause after, or pointed back to and refused there:
        // read once per clause.
        if said
            && (refused_after(part, &wanted, &clauses[c + 1..]) || refused_back(&clauses[c + 1..]))
        {
            return true;
        }
    }
    false
}

/// A sentence (folded) whose "anything but X" leaves X out reads "anything except X": that
/// "but" ends no clause. Not after a negation in its clause: "I never listen to anything but
/// Spotify" says only Spotify.
fn anything_but(lower: &str) -> String {
    let mut out = String::with_capacity(lower.len());
    let mut rest = lower;
    // Where the next phrase starts, and the length of its word before "but ".
    while let Some((i, head)) = ["anything but ", "everything but "]
        .iter()
        .filter_map(|p| rest.find(p).map(|i| (i, p.len() - "but ".len())))
        .min()
    {
        let clause = rest[..i]
            .rsplit([',', '.', ';', ':', '!', '?'])
            .next()
            .unwrap_or("");
        out.push_str(&rest[..i + head]);
        out.push_str(if negates(clause) { "but " } else { "except " });
        rest = &rest[i + head + "but ".len()..];
    }
    out.push_str(rest);
    out
}

/// A clause ([`idiom::clauses`]) whose "rather ... than Y" or "sooner ... than Y" puts Y below
/// what comes before reads "rather than Y": "I'd rather die than listen to Nickelback", "I'd
/// sooner walk than fill up at Esso" turn down what follows "than" as "Lidl rather than Aldi"
/// does, though the words between carry it past the negation's reach. Only within the clause
/// ("rather" before "than"), and not before a number ("I'd rather walk less than 5 minutes"
/// compares a distance). So does "over Y" after a verb of choosing in the clause, with a word
/// between ("I prefer Aldi over Lidl", "always choose fastest route over shortest distance"),
/// not before a number ("over 20 minutes", "over ten minutes") nor as a way to somewhere
/// ("pop over to Tesco"), and not after "pick up".
fn rather_than(clause: Vec<&str>) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::with_capacity(clause.len() + 1);
    let (mut preferred, mut chose) = (false, false);
    for (k, &w) in clause.iter().enumerate() {
        // "than 5 minutes", "than 10am": a word opening with a digit compares.
        let compares = || {
            clause
                .get(k + 1)
                .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit()))
        };
        if w == "than" && preferred && out.last() != Some(&"rather") && !compares() {
            out.push("rather");
        }
        // "over to Tesco", "over at the Costa": a way to somewhere, not a choice.
        let to_a_place = || clause.get(k + 1).is_some_and(|n| PLACES.contains(n));
        // "over ten minutes": a number said as a word ("one" is also a thing: "the cheap one
        // over one by the door").
        let numbered = || {
            clause
                .get(k + 1)
                .is_some_and(|n| *n != "one" && super::digits(n) != **n)
        };
        let between = out.last().is_some_and(|p| !CHOOSES.contains(p));
        if w == "over" && chose && between && !compares() && !numbered() && !to_a_place() {
            out.extend(["rather", "than"]);
            continue;
        }
        preferred |= matches!(w, "rather" | "sooner");
        // "pick up" is no choosing.
        chose |= CHOOSES.contains(&w) && clause.get(k + 1) != Some(&"up");
        out.push(w);
    }
    out
}

/// Verbs of choosing one thing over another.
const CHOOSES: &[&str] = &[
    "prefer",
    "prefers",
    "preferred",
    "preferring",
    "choose",
    "chooses",
    "chose",
    "chosen",
    "pick",
    "picks",
    "picked",
    "favour",
    "favor",
    "favours",
    "favors",
    "favoured",
    "favored",
];

/// Words after "over" that make it a way to somewhere ("head over to Tesco").
const PLACES: &[&str] = &["to", "at", "by", "there", "here", "in", "on", "from"];

/// Where the words that may turn down the value at `j` begin, from `start`: after the last
/// repair between them, which says the value instead of what was refused before it ("put on
/// capital no wait sorry i mean heart", "nah not this put on fleetwood mac": a refusal of
/// "this" before a new request).
fn repaired(part: &[&str], start: usize, j: usize) -> usize {
    (start..j)
        .rev()
        .find(|&k| {
            let next = part.get(k + 1).copied();
            REPAIRS.contains(&part[k])
                || (part[k] == "mean" && k > 0 && part[k - 1] == "i")
                || (matches!(part[k], "this" | "that")
                    && next.is_some_and(|n| REQUESTS.contains(&n)))
        })
        .map_or(start, |k| k + 1)
}

/// Words by which a speaker takes back what they just said and says it again.
const REPAIRS: &[&str] = &["wait", "sorry", "scratch", "correction"];

/// Verbs that open a new request after a refusal of "this" or "that".
const REQUESTS: &[&str] = &["put", "play", "give", "try", "switch", "change", "find"];

/// Negation cues that refuse the others when "other" or "else" follows them.
const NONE_CUES: &[&str] = &["no", "nothing", "none", "nobody"];

/// A sentence (folded) without the answer "No" it opens with before a clause of its own ("No
/// that's perfect, just keep it medium" turns nothing down; "No jazz" does).
fn without_answer_no(lower: &str) -> String {
    let mut it = lower.splitn(3, ' ');
    let (first, second) = (it.next().unwrap_or(""), it.next().unwrap_or(""));
    if matches!(first, "no" | "nope" | "nah") && ANSWER_OPENERS.contains(&second) {
        lower[first.len()..].to_string()
    } else {
        lower.to_string()
    }
}

/// Words that begin a clause of its own after an answer.
const ANSWER_OPENERS: &[&str] = &[
    "that's", "that", "it's", "it", "i", "i'm", "i'd", "i've", "just", "thanks", "thank", "we",
    "we're", "you", "actually", "sorry", "wait",
];

/// Negation cues that name a visit rather than a refusal when [`VISITS`] follows them ("can
/// we stop by a ZephyrFuel station?", "stop at the Shell").
const STOP_CUES: &[&str] = &["stop", "stopped", "stopping"];

/// Words after "stop" by which it names a place to go.
const VISITS: &[&str] = &["by", "at", "off", "in", "over"];

/// Words before "stop" by which it is a place on the way ("make the stop a Tesla
/// Supercharger").
const DETERMINERS: &[&str] = &[
    "the", "a", "an", "this", "that", "next", "our", "my", "each", "every", "first", "last",
];

/// Negation cues that name a change rather than a refusal when "to" follows them before the
/// value ("switch to outside", "switch the ambient lights to pink").
const TOWARD_CUES: &[&str] = &["switch", "switched", "switching", "drop", "stop"];

/// `anymore` after a value in its clause, a complaint that it is too much of something
/// ("green is too dark for me", "blue's too cold"), that it is not the user's ("jazz isn't
/// for me", "country is not really my thing", "it doesn't do it for me") or "never again".
fn negates_after(words: &[&str]) -> bool {
    let words: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| !HEDGES.contains(w))
        .collect();
    // "The Thai one's out": the value's "one" is the value.
    let words = match words.as_slice() {
        ["one's", rest @ ..] => ["is"].iter().chain(rest).copied().collect(),
        ["one", rest @ ..] => rest.to_vec(),
        _ => words,
    };
    let words = words.as_slice();
    let not_mine = |rest: &[&str]| {
        let rest: Vec<&str> = rest
            .iter()
            .copied()
            .filter(|w| !HEDGES.contains(w))
            .collect();
        matches!(rest.as_slice(), ["for", "me", ..] | ["my", ..])
    };
    words.contains(&"anymore")
        || matches!(
            words,
            ["is" | "was" | "feels" | "looks" | "seems", "too", ..]
                | ["too", ..]
                | ["never", "again", ..]
                | ["doesn't" | "does", "nothing", "for", "me", ..]
                | ["doesn't" | "don't", "do", "it", "for", "me", ..]
                | ["has" | "have", "never", "done", "it", "for", "me", ..]
                | ["is" | "are" | "was", "a", "no"]
                | ["is" | "are" | "was", "a", "no", "from" | "for", ..]
                | ["is" | "are" | "was", "a", "hard" | "firm" | "big", "no"]
                | ["is" | "are" | "was", "a", "hard" | "firm" | "big", "no", "from" | "for", ..]
                | ["is" | "are", "off", "the", "table" | "list" | "menu", ..]
                | ["is" | "are", "dead", "to", "me" | "us", ..]
                | ["can", "do", "one", ..]
                | ["is" | "are" | "was", "out"]
                | ["is" | "are", "out", "for", "me", ..]
                | ["and", "i" | "me", "are" | "were", "done" | "finished" | "over" | "through", ..]
        )
        // "Sweet Caroline is the one song I can't stand"; not "the only station I have on,
        // nothing else", whose negation is of the others.
        || matches!(words, ["is" | "are", "the", "one", rest @ ..] if super::says_any(rest, DISLIKES))
        // The refusal may follow the value's own noun ("country music isn't for me").
        || (0..words.len().min(3)).any(|k| match &words[k..] {
            ["isn't" | "aren't" | "wasn't" | "ain't", rest @ ..] => not_mine(rest),
            ["is" | "are" | "was", "not" | "never", rest @ ..] => not_mine(rest),
            _ => false,
        })
}

/// Whether a value said alone in its clause (`part`: only its words, `wanted`, and
/// [`FILLERS`]) is refused by the clause after it, that clause being only a refusal
/// ([`REFUSALS`]: "Pandora, absolutely not", "Mexican, nah", "Coles? Yeah, nah"). Not where a
/// "yeah" follows the refusal ("Nah, yeah": Australian for yes).
fn refused_after(part: &[&str], wanted: &[String], next: &[Vec<&str>]) -> bool {
    let filler = |c: &Vec<&str>| c.iter().all(|w| FILLERS.contains(w));
    let alone = part.iter().any(|w| !FILLERS.contains(w))
        && part.iter().all(|w| {
            FILLERS.contains(w)
                || WEAK_WORDS.contains(w)
                || stems(&unpossessed(w)).iter().all(|s| wanted.contains(s))
        });
    let mut next = next.iter().skip_while(|c| filler(c));
    let refusal = next.next().is_some_and(|c| {
        let core = |w: &&str| matches!(*w, "no" | "not" | "nah" | "nope" | "never" | "pass");
        let forget = c.windows(2).any(|p| p == ["forget", "it"]);
        (c.iter().any(core) || forget)
            && c.iter()
                .all(|w| REFUSALS.contains(w) || FILLERS.contains(w))
    });
    let yeah = next
        .find(|c| !c.is_empty())
        .is_some_and(|c| c.first() == Some(&"yeah"));
    alone && refusal && !yeah
}

/// Words said around a value or a refusal that change neither.
const FILLERS: &[&str] = &[
    "yeah", "yes", "oh", "ah", "um", "uh", "erm", "hmm", "well", "honestly", "mate", "and", "the",
    "that", "this", "those", "one",
];

/// The words of a clause that only refuses what was said before it ("absolutely not", "no
/// thanks", "hell no", "not for me").
const REFUSALS: &[&str] = &[
    "no",
    "not",
    "nah",
    "nope",
    "never",
    "absolutely",
    "definitely",
    "certainly",
    "hell",
    "god",
    "lord",
    "way",
    "thanks",
    "thank",
    "you",
    "please",
    "sorry",
    "for",
    "me",
    "really",
    "chance",
    "ever",
    "again",
    "pass",
    "hard",
    "forget",
    "it",
    "just",
];

/// What a driver says of the one thing they dislike ("the one song I can't stand").
const DISLIKES: &[&str] = &[
    "can't stand",
    "cannot stand",
    "can't bear",
    "hate",
    "avoid",
    "switch off",
    "turn off",
    "skip",
];

/// A text (folded) with the "'s" of its words taken off ("mcdonald's" → "mcdonald").
fn unpossessed(text: &str) -> String {
    text.split(' ')
        .map(|w| without_s(w).unwrap_or(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Words that soften what follows without changing it ("not really for me").
const HEDGES: &[&str] = &["really", "quite", "exactly", "just", "ever", "much"];

#[cfg(test)]
mod tests {
    use super::turns_down;

    #[test]
    fn what_is_chosen_over_another_turns_the_other_down() {
        for (sentence, value) in [
            (
                "Always choose fastest route over shortest distance.",
                "shortest distance",
            ),
            ("I prefer Aldi over Lidl.", "Lidl"),
        ] {
            assert!(turns_down(sentence, value), "{sentence} | {value}");
        }
        for (sentence, value) in [
            ("I prefer Aldi over Lidl.", "Aldi"),
            // A number after "over" compares; "over to" is a way to somewhere.
            (
                "I'd pick a spot over ten minutes away if it's free.",
                "10 minutes away",
            ),
            ("I prefer to head over to Tesco for the big shop.", "Tesco"),
            ("I always pick up coffee over at the Costa.", "Costa"),
            ("I always pick up coffee over lunch at Costa.", "Costa"),
        ] {
            assert!(!turns_down(sentence, value), "{sentence} | {value}");
        }
    }
}
