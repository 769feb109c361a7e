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
//!   otherwise the person whose setting the request asks for when it is not the speaker's
//!   own (a member named in the quoted words with a possessive before a setting word or a
//!   verb of liking, "to Samantha's preference", "the theme Dorothy likes", and no "my"
//!   beside it; the person addressed when it asks for "your usual" setting and not for "my"
//!   setting; the passenger for "the passenger's preference"); otherwise the person the query
//!   has speaking (a name in the narration, not in quoted words and not after "with",
//!   followed within six words of the same sentence by a speech verb; a narration sentence
//!   opening with "he" or "she" speaks for the person whom the nearest earlier sentence names
//!   first, "Patricia got in with Gary driving. She said"; when several speak, the first whose
//!   quoted words speak of themselves, "I", "my", "me", and not of the listener, "you",
//!   "your"; else the first whose words do not speak of the listener alone, "Your car, your
//!   vibes." leaves the choice to the other; else the first named, else the first by pronoun);
//!   otherwise the driver; otherwise the first household member the query names.
//!   The driver is whoever the query puts at the wheel ("got into the driver's seat", "was
//!   driving", "drove", "borrowed the car", "with X driving"), the passenger whoever it seats
//!   beside them ("X as a passenger", "X got in the passenger seat"), else whoever the driver
//!   drives ("was driving X").

pub mod cabin;
pub mod run;

pub use cabin::{cabin, mentions, Cabin};

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
    std::fs::read_to_string(path).map_err(|error| EvalError::Read {
        path: path.display().to_string(),
        error,
    })
}

/// Parses one history line.
pub fn parse_line(line: &str) -> Option<Line> {
    let rest = line.strip_prefix('[')?;
    let (stamp, rest) = rest.split_once("] ")?;
    // A stamp written twice ("[2025-04-12 14:05] [2025-04-12 14:05] Kathleen Ramirez: ...",
    // file 18) is one stamp: the name follows the last.
    let rest = match rest.strip_prefix(&format!("[{stamp}] ")) {
        Some(r) => r,
        None => rest,
    };
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
        let l = parse_line("[2025-04-12 14:05] [2025-04-12 14:05] Kathleen Ramirez: I meant 64.")
            .unwrap();
        assert_eq!(
            (l.name.as_str(), l.text.as_str()),
            ("Kathleen Ramirez", "I meant 64.")
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
}
