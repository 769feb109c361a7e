//! Reading a VehicleMemBench query's cabin: who drives, who sits beside them, who speaks, and
//! so who acts for a call (the rule is in the module doc of `eval::vmb`).

use std::collections::BTreeMap;

use super::Call;
use crate::pref::UserId;

/// Verbs by which a query has someone speak.
const SPEECH: &[&str] = &[
    "told",
    "said",
    "asked",
    "says",
    "tells",
    "asks",
    "complained",
    "replied",
    "mentioned",
    "sighed",
    "added",
    "exclaimed",
    "muttered",
    "remarked",
    "called",
    "shouted",
    "whispered",
    "joked",
    "noted",
    "grumbled",
    "announced",
    "instructed",
    "commanded",
    "requested",
];
/// What follows a name that puts that person at the wheel.
const DRIVER: &[&str] = &[
    "got into the driver",
    "got in the driver",
    "was in the driver",
    "was sitting in the driver",
    "sat in the driver",
    "is in the driver",
    "was driving",
    "is driving",
    "drove",
    "drives",
    "borrowed the car",
    "took the wheel",
    "was behind the wheel",
    "got behind the wheel",
    "started the car",
    "was alone",
    "drove alone",
    "got in the car",
    "got into the car",
];
/// What follows a name that seats that person beside the driver.
const PASSENGER: &[&str] = &[
    "as a passenger",
    "as passenger",
    "got in the passenger",
    "got into the passenger",
    "was in the passenger",
    "was sitting in the passenger",
    "sat in the passenger",
    "in the passenger seat",
    "was a passenger",
    "was riding",
];

/// Where the query names each household member: (byte offset in the lower-cased query, offset
/// just past the name, who). A full name ("Thomas Carter") is that person; a first name alone
/// is the person of that first name, unless it begins another member's full name or two
/// members share it and the full name does not follow (then it names nobody for certain, and
/// is left out).
pub fn mentions(lower: &str, people: &BTreeMap<String, UserId>) -> Vec<(usize, usize, UserId)> {
    let first = |n: &str| n.split_whitespace().next().unwrap_or(n).to_lowercase();
    let mut out: Vec<(usize, usize, UserId)> = Vec::new();
    for (name, id) in people {
        let full = name.to_lowercase();
        for (pos, _) in lower.match_indices(&full) {
            out.push((pos, pos + full.len(), id.clone()));
        }
    }
    for (name, id) in people {
        let f = first(name);
        let shared = people.keys().filter(|m| first(m) == f).count() > 1;
        for (pos, _) in lower.match_indices(&f) {
            // Whole words only ("Al" is not in "always").
            let before = lower[..pos].chars().next_back();
            let after = lower[pos + f.len()..].chars().next();
            if before.is_some_and(char::is_alphanumeric) || after.is_some_and(char::is_alphanumeric)
            {
                continue;
            }
            if shared || out.iter().any(|&(p, e, _)| p <= pos && pos < e) {
                continue;
            }
            out.push((pos, pos + f.len(), id.clone()));
        }
    }
    out.sort_by_key(|m| m.0);
    out
}

/// Where each household member's first mention in the query (outside the quoted words) is
/// followed by one of `cues` in the same sentence of the narration ("Shirley. He said" is not
/// Shirley speaking).
fn named_with(query: &str, people: &BTreeMap<String, UserId>, cues: &[&str]) -> Option<UserId> {
    let lower = query.to_lowercase();
    let quoted = quoted_spans(&lower);
    let mut hits = mentions(&lower, people)
        .into_iter()
        .filter(|(pos, end, _)| {
            !quoted.iter().any(|&(a, b)| a <= *pos && *pos < b) && cue_follows(&lower[*end..], cues)
        });
    hits.next().map(|(_, _, id)| id)
}

/// Who speaks (module doc of `eval::vmb`): a person named in the narration and followed within
/// six words of the same sentence by a speech verb, not the object of "with" ("sat with
/// Samantha and said" is not Samantha speaking); when nobody is named so, a narration sentence
/// opening with "he" or "she" speaks for the person the nearest earlier sentence names first.
/// Of several speakers, the first whose quoted words speak of themselves ("I", "my", "me") and
/// not of the listener ("you", "your") speaks for the request; when none does, the first whose
/// words do not speak of the listener alone (one who says "Your car, your vibes." or "You're
/// driving, so you choose" leaves the choice to the other); else the first named one.
fn speaker(plain: &str, resolved: &str, people: &BTreeMap<String, UserId>) -> Option<UserId> {
    let named = speaking(plain, people);
    let by_pronoun = speaking(resolved, people);
    // Whether the quoted words speak of the speaker, and of the listener.
    let persons = |s: &Speaking| {
        s.quote.as_deref().map_or((false, false), |q| {
            let words: Vec<&str> = q
                .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '\u{2019}')
                .map(|w| w.split(['\'', '\u{2019}']).next().unwrap_or(w))
                .collect();
            let has = |set: &[&str]| words.iter().any(|w| set.contains(w));
            (has(&["i", "my", "me"]), has(&["you", "your"]))
        })
    };
    let all: Vec<&Speaking> = named.iter().chain(&by_pronoun).collect();
    all.iter()
        .find(|s| persons(s) == (true, false))
        .or_else(|| all.iter().find(|s| persons(s) != (false, true)))
        .copied()
        .or_else(|| named.first())
        .or_else(|| by_pronoun.first())
        .map(|s| s.who.clone())
}

/// One person the narration has speaking, with the words they say when a quote follows in the
/// same sentence.
struct Speaking {
    who: UserId,
    quote: Option<String>,
}

/// Everyone a (lower-cased) query has speaking, in order.
fn speaking(lower: &str, people: &BTreeMap<String, UserId>) -> Vec<Speaking> {
    let quoted = quoted_spans(lower);
    mentions(lower, people)
        .into_iter()
        .filter(|(pos, end, _)| {
            !quoted.iter().any(|&(a, b)| a <= *pos && *pos < b)
                && !lower[..*pos].ends_with("with ")
                && cue_follows(&lower[*end..], SPEECH)
        })
        .map(|(_, end, who)| {
            // The quote that opens before the narration's sentence ends.
            let quote = quoted
                .iter()
                .find(|&&(a, _)| a > end && !lower[end..a].contains(['.', '!', '?', ';']))
                .map(|&(a, b)| lower[a..b].to_string());
            Speaking { who, quote }
        })
        .collect()
}

/// Whether one of `cues` follows within six words of the same narration sentence.
fn cue_follows(rest: &str, cues: &[&str]) -> bool {
    let rest = &rest[..rest.find(['.', '!', '?', ';']).unwrap_or(rest.len())];
    let window: String = rest
        .split_whitespace()
        .take(6)
        .collect::<Vec<_>>()
        .join(" ");
    cues.iter().any(|c| {
        window.starts_with(c)
            || (c.split(' ').count() == 1
                && window
                    .split(' ')
                    .any(|w| w.trim_matches(|ch: char| !ch.is_alphanumeric()) == *c))
    })
}

/// Byte ranges of a query's quoted words: from `: '` to the apostrophe that closes it (one
/// followed by a space, punctuation or the end, and not by a letter as in "it's").
fn quoted_spans(lower: &str) -> Vec<(usize, usize)> {
    let b = lower.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 2 < b.len() {
        if &b[i..i + 3] == b": '" {
            let start = i + 3;
            let end = (start..b.len())
                .find(|&j| {
                    b[j] == b'\''
                        && b.get(j + 1).is_none_or(|n| !n.is_ascii_alphanumeric())
                        && j > start
                        && b[j - 1] != b' '
                })
                .unwrap_or(b.len());
            out.push((start, end));
            i = end + 1;
        } else {
            i += 1;
        }
    }
    out
}

/// "with X driving".
fn driving_with(query: &str, people: &BTreeMap<String, UserId>) -> Option<UserId> {
    let lower = query.to_lowercase();
    mentions(&lower, people)
        .into_iter()
        .find(|(p, end, _)| lower[..*p].ends_with("with ") && lower[*end..].starts_with(" driving"))
        .map(|(_, _, id)| id)
}

/// "was driving X", "drove X": the person driven, beside the driver unless seated elsewhere.
fn driven(lower: &str, people: &BTreeMap<String, UserId>) -> Option<UserId> {
    let quoted = quoted_spans(lower);
    mentions(lower, people)
        .into_iter()
        .find(|(p, _, _)| {
            !quoted.iter().any(|&(a, b)| a <= *p && *p < b)
                && (lower[..*p].ends_with("driving ") || lower[..*p].ends_with("drove "))
        })
        .map(|(_, _, id)| id)
}

/// The lower-cased query with each narration sentence that opens with "he" or "she" opened
/// instead with the full name of the person whom the nearest earlier narration sentence names
/// first ("patricia got in with gary driving. she said:" reads "... patricia garcia said:").
fn resolve_pronouns(lower: &str, people: &BTreeMap<String, UserId>) -> String {
    let quoted = quoted_spans(lower);
    let inside = |p: usize| quoted.iter().any(|&(a, b)| a <= p && p < b);
    let name_of: BTreeMap<&UserId, String> = people
        .iter()
        .map(|(n, id)| (id, n.to_lowercase()))
        .collect();
    // Where each narration sentence starts.
    let mut starts = vec![0];
    for (i, c) in lower.char_indices() {
        if matches!(c, '.' | '!' | '?') && !inside(i) {
            let next = lower[i + 1..]
                .find(|c: char| !c.is_whitespace())
                .map(|k| i + 1 + k);
            if let Some(n) = next.filter(|&n| n > i + 1) {
                starts.push(n);
            }
        }
    }
    let sentence_of = |p: usize| starts.iter().rposition(|&s| s <= p).unwrap_or(0);
    let named: Vec<(usize, UserId)> = mentions(lower, people)
        .into_iter()
        .filter(|(p, _, _)| !inside(*p))
        .map(|(p, _, id)| (p, id))
        .collect();
    let mut out = String::with_capacity(lower.len() + 32);
    let mut copied = 0;
    for (k, &s) in starts.iter().enumerate() {
        let pronoun = ["he ", "she "]
            .into_iter()
            .find(|p| lower[s..].starts_with(p));
        let Some(pronoun) = pronoun.filter(|_| !inside(s)) else {
            continue;
        };
        // The first person named in the nearest earlier sentence that names someone.
        let who = (0..k).rev().find_map(|j| {
            named
                .iter()
                .find(|(p, _)| sentence_of(*p) == j)
                .map(|(_, id)| id)
        });
        if let Some(name) = who.and_then(|id| name_of.get(id)) {
            out.push_str(&lower[copied..s]);
            out.push_str(name);
            out.push(' ');
            copied = s + pronoun.len();
        }
    }
    out.push_str(&lower[copied..]);
    out
}

/// Words after a possessive that make it a person's setting ("Samantha's preference").
const SETTING_NOUNS: &[&str] = &[
    "preference",
    "preferences",
    "setting",
    "settings",
    "favorite",
    "favourite",
    "usual",
    "normal",
    "standard",
    "default",
    "choice",
    "level",
    "profile",
    "mode",
    "view",
];
/// Verbs after a name that make what precedes it that person's setting ("the theme Dorothy
/// likes").
const LIKES: &[&str] = &[" likes", " prefers", " uses", " usually", " always"];

/// The person whose setting the request asks for when it is not the speaker's own: a household
/// member named in the quoted words with a possessive before a setting word or a verb of
/// liking ("Set navigation volume to Samantha's preference", "the theme Dorothy likes") and no
/// "my" beside it; or the person addressed when the request asks for "your" setting ("Laura
/// told Melissa: '... keep it to your usual preference'"); or the passenger when it asks for
/// "the passenger's" setting.
fn asked_for(
    lower: &str,
    people: &BTreeMap<String, UserId>,
    passenger: Option<&UserId>,
) -> Option<UserId> {
    let quoted = quoted_spans(lower);
    let words_after = |rest: &str, n: usize| -> Vec<String> {
        rest.split_whitespace()
            .take(n)
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_string())
            .collect()
    };
    let setting_after = |rest: &str| {
        words_after(rest, 3)
            .iter()
            .any(|w| SETTING_NOUNS.contains(&w.as_str()))
    };
    let says_my = |q: &str| words_after(q, usize::MAX).iter().any(|w| w == "my");
    for (pos, end, id) in mentions(lower, people) {
        if let Some(&(a, b)) = quoted.iter().find(|&&(a, b)| a <= pos && pos < b) {
            let rest = &lower[end..b];
            let possessive = ["'s ", "\u{2019}s "]
                .iter()
                .find_map(|p| rest.strip_prefix(p))
                .is_some_and(setting_after);
            let liked = LIKES.iter().any(|l| rest.starts_with(l));
            if (possessive || liked) && !says_my(&lower[a..b]) {
                return Some(id);
            }
        } else if let Some(&(a, b)) = quoted.iter().find(|&&(a, _)| a == end + 3) {
            // The person addressed right before the quote: "told Melissa: '...'".
            let q = &lower[a..b];
            let yours = q
                .match_indices("your ")
                .any(|(i, _)| setting_after(&q[i + 5..]));
            // "I can't navigate with your settings. Reverting to my view.": the speaker's own.
            let mine = q.match_indices("my ").any(|(i, _)| {
                (i == 0 || !q.as_bytes()[i - 1].is_ascii_alphanumeric())
                    && setting_after(&q[i + 3..])
            });
            if lower[end..].starts_with(": '") && yours && !mine {
                return Some(id);
            }
        }
    }
    let theirs = quoted.iter().any(|&(a, b)| {
        lower[a..b]
            .match_indices("passenger's ")
            .any(|(i, m)| setting_after(&lower[a + i + m.len()..b]))
    });
    theirs.then(|| passenger.cloned()).flatten()
}

/// Who sits where in the query, who speaks and whose setting is asked for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cabin {
    pub driver: Option<UserId>,
    pub passenger: Option<UserId>,
    pub speaker: Option<UserId>,
    /// Whose setting the request names when it is not the speaker's ([`asked_for`]).
    pub asked_for: Option<UserId>,
    pub first_named: Option<UserId>,
}

/// Reads the cabin from a query (module doc: acting person).
pub fn cabin(query: &str, people: &BTreeMap<String, UserId>) -> Cabin {
    let plain = query.to_lowercase();
    let lower = resolve_pronouns(&plain, people);
    let first_named = mentions(&lower, people)
        .into_iter()
        .next()
        .map(|(_, _, id)| id);
    let passenger = named_with(&lower, people, PASSENGER).or_else(|| driven(&lower, people));
    Cabin {
        driver: driving_with(&lower, people).or_else(|| named_with(&lower, people, DRIVER)),
        asked_for: asked_for(&lower, people, passenger.as_ref()),
        passenger,
        speaker: speaker(&plain, &lower, people),
        first_named,
    }
}

/// Selector arguments that name a seat.
const SEAT_SELECTORS: &[&str] = &["seat", "zone", "light", "window", "side", "position"];

impl Cabin {
    /// The acting person for a call (module doc).
    pub fn acting(&self, call: &Call) -> Option<UserId> {
        let seat = call
            .args
            .iter()
            .find(|(k, _)| SEAT_SELECTORS.contains(&k.as_str()))
            .map(|(_, v)| v.to_lowercase());
        let by_seat = match seat.as_deref() {
            Some("driver") => self.driver.clone(),
            Some("passenger") => self.passenger.clone(),
            _ => None,
        };
        by_seat
            .or_else(|| self.asked_for.clone())
            .or_else(|| self.speaker.clone())
            .or_else(|| self.driver.clone())
            .or_else(|| self.first_named.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::vmb::{parse_call, user_ids};

    #[test]
    fn the_acting_person_is_read_from_the_query() {
        let names: Vec<String> = ["Gary Allen", "Patricia Garcia", "Justin Martinez"]
            .map(String::from)
            .to_vec();
        let people = user_ids(&names);
        let q = "At 10:00 AM, Gary got into the driver's seat with Patricia as a passenger. Patricia told Gary: 'Hi.'";
        let c = cabin(q, &people);
        assert_eq!(c.driver.as_ref().map(UserId::as_str), Some("gary"));
        assert_eq!(c.passenger.as_ref().map(UserId::as_str), Some("patricia"));
        assert_eq!(c.speaker.as_ref().map(UserId::as_str), Some("patricia"));
        let seat = parse_call(r#"f(seat="driver", value=1)"#).unwrap();
        let any = parse_call(r#"f(value=1)"#).unwrap();
        assert_eq!(c.acting(&seat).unwrap().as_str(), "gary");
        assert_eq!(c.acting(&any).unwrap().as_str(), "patricia");
        let c = cabin(
            "At 4:00 PM, Patricia got in the passenger seat with Gary driving.",
            &people,
        );
        assert_eq!(c.driver.as_ref().map(UserId::as_str), Some("gary"));
        assert_eq!(c.passenger.as_ref().map(UserId::as_str), Some("patricia"));
    }
    #[test]
    fn a_shared_first_name_needs_the_full_name() {
        let people = user_ids(&[
            "Thomas Carter".to_string(),
            "Thomas Williams".to_string(),
            "Nicole Adams".to_string(),
        ]);
        let q = "At 9:00 PM, Nicole drove Thomas Williams home. Thomas Williams said: 'Too cold.'";
        let c = cabin(q, &people);
        assert_eq!(c.driver.as_ref().map(UserId::as_str), Some("nicole"));
        assert_eq!(
            c.speaker.as_ref().map(UserId::as_str),
            Some("thomas_williams")
        );
        let q = "At 8:00 AM, Thomas Carter got into the driver's seat. Thomas said: 'Hi.'";
        let c = cabin(q, &people);
        assert_eq!(c.driver.as_ref().map(UserId::as_str), Some("thomas_carter"));
        assert_eq!(c.speaker, None);
    }
    #[test]
    fn the_speaker_is_named_in_the_narration_before_the_verb() {
        let people = user_ids(&[
            "Timothy Davis".to_string(),
            "Justin Gonzalez".to_string(),
            "Kevin Lee".to_string(),
            "Andrew Park".to_string(),
            "Deborah Diaz".to_string(),
        ]);
        // A name ending one sentence is not the subject of the next one's verb.
        let q = "At 5:15 PM, Timothy Davis was driving Justin Gonzalez. Timothy mentioned: 'It's not that cold.'";
        assert_eq!(
            cabin(q, &people).speaker.as_ref().map(UserId::as_str),
            Some("timothy")
        );
        // A name inside the quoted words does not speak.
        let q = "Andrew was driving. Kevin asked: 'Deborah said it changed?'";
        assert_eq!(
            cabin(q, &people).speaker.as_ref().map(UserId::as_str),
            Some("kevin")
        );
    }

    #[test]
    fn the_speaker_who_speaks_of_themselves_acts() {
        let people = user_ids(&[
            "Kevin Lee".to_string(),
            "Andrew Park".to_string(),
            "Deborah Diaz".to_string(),
            "Jack Thomas".to_string(),
            "Samantha Robinson".to_string(),
        ]);
        let speaker = |q: &str| cabin(q, &people).speaker.map(|u| u.as_str().to_string());
        // A question to the driver does not make its asker the one whose setting it is.
        let q = "Andrew was driving Kevin. Kevin asked: 'Is the display comfortable for you?' Andrew replied: 'No, Deborah changed it. I need to put it back to where I like it.'";
        assert_eq!(speaker(q).as_deref(), Some("andrew"));
        // Words about the listener ("you like") do not speak for the one saying them.
        let q = "Andrew said: 'It's stuffy.' Kevin replied: 'I know you like it cold.'";
        assert_eq!(speaker(q).as_deref(), Some("andrew"));
        // The object of "with" is not the subject of the verb that follows.
        let q = "Jack Thomas got the car back. He sat in the driver's seat with Samantha and said: 'Back to my preference.'";
        let c = cabin(q, &people);
        assert_ne!(c.speaker.as_ref().map(UserId::as_str), Some("samantha"));
        let any = parse_call(r#"f(value=1)"#).unwrap();
        assert_eq!(c.acting(&any).unwrap().as_str(), "jack");
        // Words that speak of the listener alone leave the choice to the other speaker.
        let q = "Kevin and Andrew entered the car. Andrew said: 'Your car, your vibes.' Kevin told the car: 'Lights on please.'";
        assert_eq!(speaker(q).as_deref(), Some("kevin"));
        let q = "Kevin said: 'You're driving, so you choose the lights.' Andrew told the car to set the lights.";
        assert_eq!(speaker(q).as_deref(), Some("andrew"));
        // Alone, they still speak for the request.
        let q = "Kevin said: 'You know what, set the lights to blue.'";
        assert_eq!(speaker(q).as_deref(), Some("kevin"));
    }

    #[test]
    fn a_pronoun_speaks_for_the_person_named_before_it() {
        let people = user_ids(&["Gary Allen".to_string(), "Patricia Garcia".to_string()]);
        let q = "At 4:00 PM, Patricia got in the passenger seat with Gary driving. She held up a blueprint and said: 'Gary, I have reading to do.'";
        let c = cabin(q, &people);
        assert_eq!(c.speaker.as_ref().map(UserId::as_str), Some("patricia"));
        assert_eq!(c.driver.as_ref().map(UserId::as_str), Some("gary"));
        // A pronoun inside the quoted words is left alone.
        let q = "Gary drove. Patricia said: 'He likes it. She said no.'";
        assert_eq!(
            cabin(q, &people).speaker.as_ref().map(UserId::as_str),
            Some("patricia")
        );
    }

    #[test]
    fn a_request_for_someone_elses_setting_acts_for_them() {
        let people = user_ids(&[
            "Jack Thomas".to_string(),
            "Samantha Reed".to_string(),
            "Dorothy Hill".to_string(),
            "Laura Kim".to_string(),
            "Melissa Ford".to_string(),
        ]);
        let any = parse_call(r#"f(value=1)"#).unwrap();
        let acting = |q: &str| {
            cabin(q, &people)
                .acting(&any)
                .map(|u| u.as_str().to_string())
        };
        assert_eq!(
            acting(
                "Jack Thomas said to the car: 'Set navigation volume to Samantha's preference.'"
            )
            .as_deref(),
            Some("samantha")
        );
        assert_eq!(
            acting("At 9:05 PM, Jack told the car: 'Turn on the theme Dorothy likes.'").as_deref(),
            Some("dorothy")
        );
        assert_eq!(
            acting("Melissa was driving Laura home. Laura mentioned to Melissa: 'My eyes are tired, keep it to your usual preference tonight.'").as_deref(),
            Some("melissa")
        );
        // "my" beside the other's name: the speaker's own setting is part of the request.
        assert_eq!(
            acting("Jack told the car: 'Set it between my usual level and the one Samantha uses.'")
                .as_deref(),
            Some("jack")
        );
        // Someone named without a setting of theirs is no request for it.
        assert_eq!(
            acting("Jack told the car: 'Samantha's coming along, warm it up.'").as_deref(),
            Some("jack")
        );
    }
}
