//! `glovebox eval vehiclemembench`: VehicleMemBench (Chen et al., 2026) through the real runtime
//! with the vehicle schema. This file reads the data: history lines into time-stamped,
//! multi-speaker conversations, and questions into the acting person and the oracle slot (the
//! calls of `new_answer`); `vmb/run.rs` ingests, answers and scores.
//!
//! Choices where the benchmark is silent (also in docs/results.md), none fitted on the data:
//! * **Grouping.** The lines of one clock hour of one day form one conversation (the official
//!   harness's hour buckets); each line is a user turn with its speaker and its time (the
//!   history's clock read as UTC). Conversations are remembered in time order.
//! * **Speakers.** A person's user id is their first name, lower case ("Gary Allen" → `gary`);
//!   the full name when two people of one household share a first name. A line signed with a
//!   first name alone is the one member whose full name starts with it. A query names a person
//!   by full name, or by a first name no other member shares (a shared first name alone names
//!   nobody for certain and is passed over).
//! * **Acting person.** The household member in the seat the call's selector names (`seat`,
//!   `zone`, `light`, `window`, `side` = `driver` → the driver; `passenger` → the passenger);
//!   otherwise the person the query has speaking (a name in the narration, not in quoted
//!   words, followed within three words of the same sentence by a speech verb; the first such,
//!   when several speak); otherwise the driver; otherwise the first household member the query names.
//!   The driver is whoever the query puts at the wheel ("got into the driver's seat", "was
//!   driving", "drove", "borrowed the car", "with X driving"), the passenger whoever it seats
//!   beside them ("X as a passenger", "X got in the passenger seat").

pub mod run;

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::carmem::EvalError;
use crate::conversation::{Conversation, Role, Turn, MAX_TURNS};
use crate::memory::MemoryError;
use crate::pref::{Millis, UserId};

/// One line of a history: `[YYYY-MM-DD HH:MM] Full Name: text`.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub time: Millis,
    /// `YYYY-MM-DD HH` of the line: its hour bucket.
    pub hour: String,
    pub name: String,
    pub text: String,
}

/// One household's history: its people (full name → user id) and its conversations in order.
#[derive(Debug, Clone)]
pub struct History {
    pub people: BTreeMap<String, UserId>,
    pub conversations: Vec<Conversation>,
    pub lines: usize,
}

/// One call of `new_answer`: `function(arg=value, ...)`, values as written (strings unquoted).
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub function: String,
    pub args: Vec<(String, String)>,
}

/// One question.
#[derive(Debug, Clone)]
pub struct Question {
    pub reasoning_type: String,
    pub query: String,
    pub calls: Vec<Call>,
}

#[derive(Deserialize)]
struct RawQa {
    related_to_vehicle_preference: Vec<RawQuestion>,
}

#[derive(Deserialize)]
struct RawQuestion {
    reasoning_type: String,
    query: String,
    new_answer: Vec<String>,
}

fn read(path: &Path) -> Result<String, EvalError> {
    std::fs::read_to_string(path).map_err(|source| EvalError::Read {
        path: path.display().to_string(),
        source,
    })
}

/// Parses one history line.
pub fn parse_line(line: &str) -> Option<Line> {
    let rest = line.strip_prefix('[')?;
    let (stamp, rest) = rest.split_once("] ")?;
    let (name, text) = rest.split_once(": ")?;
    let (date, clock) = stamp.split_once(' ')?;
    let time = crate::rfc3339::parse(&format!("{date}T{clock}:00Z")).ok()?;
    Some(Line {
        time,
        hour: format!("{date} {}", clock.get(..2)?),
        name: name.trim().to_string(),
        text: text.trim().to_string(),
    })
}

/// User ids for a household's full names: the first name in lower case, or the whole name
/// (lower case, spaces as `_`) where first names clash.
pub fn user_ids(names: &[String]) -> BTreeMap<String, UserId> {
    let first = |n: &str| n.split_whitespace().next().unwrap_or(n).to_lowercase();
    names
        .iter()
        .map(|n| {
            let clash = names.iter().filter(|m| first(m) == first(n)).count() > 1;
            let id = if clash {
                n.to_lowercase()
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join("_")
            } else {
                first(n)
            };
            (
                n.clone(),
                UserId::new(id).expect("a name is a valid user id"),
            )
        })
        .collect()
}

/// Reads a history file into hour-bucket conversations in time order.
pub fn load_history(path: &Path) -> Result<History, EvalError> {
    let text = read(path)?;
    let mut lines: Vec<Line> = Vec::new();
    for (i, l) in text.lines().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        lines.push(parse_line(l).ok_or_else(|| EvalError::Data {
            path: path.display().to_string(),
            line: i + 1,
            problem: "expected `[YYYY-MM-DD HH:MM] Name: text`".into(),
        })?);
    }
    lines.sort_by_key(|l| l.time);
    let mut names: Vec<String> = lines.iter().map(|l| l.name.clone()).collect();
    names.sort();
    names.dedup();
    // A speaker written by first name alone ("Alexander") where exactly one member's full name
    // starts with it ("Alexander Anderson") is that member.
    let alias = |n: &str| -> Option<String> {
        if n.contains(' ') {
            return None;
        }
        let mut full = names
            .iter()
            .filter(|m| m.split_whitespace().next() == Some(n) && m.contains(' '));
        match (full.next(), full.next()) {
            (Some(m), None) => Some(m.clone()),
            _ => None,
        }
    };
    let aliases: Vec<(String, String)> = names
        .iter()
        .filter_map(|n| alias(n).map(|m| (n.clone(), m)))
        .collect();
    for l in &mut lines {
        if let Some((_, full)) = aliases.iter().find(|(a, _)| *a == l.name) {
            l.name = full.clone();
        }
    }
    names.retain(|n| !aliases.iter().any(|(a, _)| a == n));
    let people = user_ids(&names);
    let mut conversations = Vec::new();
    let mut turns: Vec<Turn> = Vec::new();
    let mut hour = String::new();
    for l in &lines {
        if (l.hour != hour || turns.len() == MAX_TURNS) && !turns.is_empty() {
            conversations
                .push(Conversation::new(std::mem::take(&mut turns)).map_err(MemoryError::from)?);
        }
        hour = l.hour.clone();
        let mut t = Turn::new(Role::User, l.text.clone());
        t.speaker = Some(people[&l.name].clone());
        t.time = Some(l.time);
        turns.push(t);
    }
    if !turns.is_empty() {
        conversations.push(Conversation::new(turns).map_err(MemoryError::from)?);
    }
    Ok(History {
        people,
        conversations,
        lines: lines.len(),
    })
}

/// Parses `f(a="x", b=3, c=true)`.
pub fn parse_call(text: &str) -> Option<Call> {
    let (function, rest) = text.trim().split_once('(')?;
    let inner = rest.strip_suffix(')')?;
    let mut args = Vec::new();
    let mut rest = inner.trim();
    while !rest.is_empty() {
        let (key, after) = rest.split_once('=')?;
        let after = after.trim_start();
        let (value, tail) = if let Some(s) = after.strip_prefix('"') {
            let end = s.find('"')?;
            (s[..end].to_string(), &s[end + 1..])
        } else {
            let end = after.find(',').unwrap_or(after.len());
            (after[..end].trim().to_string(), &after[end..])
        };
        args.push((key.trim().to_string(), value));
        rest = tail.trim_start().trim_start_matches(',').trim_start();
    }
    Some(Call {
        function: function.trim().to_string(),
        args,
    })
}

/// Reads a question file.
pub fn load_questions(path: &Path) -> Result<Vec<Question>, EvalError> {
    let text = read(path)?;
    let bad = |problem: String| EvalError::Data {
        path: path.display().to_string(),
        line: 1,
        problem,
    };
    let raw: RawQa = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    raw.related_to_vehicle_preference
        .into_iter()
        .map(|q| {
            let calls = q
                .new_answer
                .iter()
                .map(|c| parse_call(c).ok_or_else(|| bad(format!("unreadable call {c:?}"))))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Question {
                reasoning_type: q.reasoning_type,
                query: q.query,
                calls,
            })
        })
        .collect()
}

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
            if quoted.iter().any(|&(a, b)| a <= *pos && *pos < b) {
                return false;
            }
            // The rest of the narration's sentence: "Shirley. He said" is not Shirley speaking.
            let rest = &lower[*end..];
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
                            .take(3)
                            .any(|w| w.trim_matches(|ch: char| !ch.is_alphanumeric()) == *c))
            })
        });
    hits.next().map(|(_, _, id)| id)
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

/// Who sits where in the query and who speaks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cabin {
    pub driver: Option<UserId>,
    pub passenger: Option<UserId>,
    pub speaker: Option<UserId>,
    pub first_named: Option<UserId>,
}

/// Reads the cabin from a query (module doc: acting person).
pub fn cabin(query: &str, people: &BTreeMap<String, UserId>) -> Cabin {
    let lower = query.to_lowercase();
    let first_named = mentions(&lower, people)
        .into_iter()
        .next()
        .map(|(_, _, id)| id);
    Cabin {
        driver: driving_with(query, people).or_else(|| named_with(query, people, DRIVER)),
        passenger: named_with(query, people, PASSENGER),
        speaker: named_with(query, people, SPEECH),
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
            .or_else(|| self.speaker.clone())
            .or_else(|| self.driver.clone())
            .or_else(|| self.first_named.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_calls_parse() {
        let l = parse_line("[2025-03-10 08:00] Gary Allen: I love this green panel.").unwrap();
        assert_eq!(
            (l.name.as_str(), l.hour.as_str()),
            ("Gary Allen", "2025-03-10 08")
        );
        let c =
            parse_call(r#"carcontrol_seat_set_headrest_height(seat="driver", value=44)"#).unwrap();
        assert_eq!(c.function, "carcontrol_seat_set_headrest_height");
        assert_eq!(
            c.args,
            [
                ("seat".into(), "driver".into()),
                ("value".into(), "44".into())
            ]
        );
        let c = parse_call(r#"f(destination="A, B", enabled=true)"#).unwrap();
        assert_eq!(c.args[0].1, "A, B");
    }

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
        let q =
            "Andrew was driving. He said: 'Deborah said it changed.' Kevin asked: 'Is it fine?'";
        assert_eq!(
            cabin(q, &people).speaker.as_ref().map(UserId::as_str),
            Some("kevin")
        );
    }
}
