//! A finished conversation as handed to `remember`: parsing both accepted JSON forms, checking
//! them, and splitting the user's turns into the sentences that evidence may point at.

use serde_json::Value;

use crate::pref::{Millis, UserId};

/// Most turns accepted in one conversation.
pub const MAX_TURNS: usize = 200;
/// Most characters accepted in one turn.
pub const MAX_TURN_CHARS: usize = 4_000;
/// Most user sentences accepted in one conversation: an hour of cabin talk (about 200 turns)
/// is a few hundred. Each costs an embedder pass, so this bounds the work of one `remember`.
pub const MAX_USER_SENTENCES: usize = 1_000;
/// Most words (whitespace-separated; the embedder sees about 1.3 tokens per word) accepted in
/// the user's turns of one conversation.
pub const MAX_USER_WORDS: usize = 20_000;

/// Who spoke a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One turn of a conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    pub role: Role,
    pub text: String,
    /// Who said a user turn (`"speaker"`): the occupant whose preference it can reveal. `None`
    /// is the user the conversation is remembered for.
    pub speaker: Option<UserId>,
    /// When it was said (`"time"`, RFC 3339); `None`: when it is remembered.
    pub time: Option<Millis>,
}

impl Turn {
    /// A turn without speaker or time.
    pub fn new(role: Role, text: impl Into<String>) -> Turn {
        Turn {
            role,
            text: text.into(),
            speaker: None,
            time: None,
        }
    }
}

/// One speaker's part of a conversation: what is remembered for them.
#[derive(Debug, Clone)]
pub struct Part {
    pub speaker: UserId,
    pub conversation: Conversation,
}

impl Part {
    /// When the user turn holding `sentence` was said, if it carries a time.
    pub fn time_of(&self, sentence: &str) -> Option<Millis> {
        self.conversation
            .turns
            .iter()
            .find(|t| t.role == Role::User && t.text.contains(sentence))
            .and_then(|t| t.time)
    }
}

/// A checked conversation: at least one non-empty user turn, within the size limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conversation {
    turns: Vec<Turn>,
}

/// What was wrong with a conversation.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ConversationError {
    #[error("conversation is not valid JSON: {0}")]
    Json(String),
    #[error("conversation must be a JSON list of turns, got {0}")]
    NotAList(&'static str),
    #[error("turn {index}: {problem}")]
    BadTurn { index: usize, problem: String },
    #[error("conversation has no user turn with text: nothing can be remembered from it")]
    NoUserTurn,
    #[error("conversation has {0} turns; at most {MAX_TURNS} are accepted")]
    TooLong(usize),
    #[error("conversation has {0} user sentences; at most {MAX_USER_SENTENCES} are accepted")]
    TooManySentences(usize),
    #[error(
        "conversation has {0} words in the user's turns; at most {MAX_USER_WORDS} are accepted"
    )]
    TooManyWords(usize),
    #[error("conversation: {0}")]
    Time(String),
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

impl Conversation {
    /// Builds a conversation from turns, applying the same checks as parsing.
    pub fn new(turns: Vec<Turn>) -> Result<Conversation, ConversationError> {
        if turns.len() > MAX_TURNS {
            return Err(ConversationError::TooLong(turns.len()));
        }
        for (index, t) in turns.iter().enumerate() {
            if t.text.chars().count() > MAX_TURN_CHARS {
                return Err(ConversationError::BadTurn {
                    index,
                    problem: format!("text longer than {MAX_TURN_CHARS} characters"),
                });
            }
        }
        if !turns
            .iter()
            .any(|t| t.role == Role::User && !t.text.trim().is_empty())
        {
            return Err(ConversationError::NoUserTurn);
        }
        let user = || turns.iter().filter(|t| t.role == Role::User);
        let sentences: usize = user().map(|t| split_sentences(&t.text).len()).sum();
        if sentences > MAX_USER_SENTENCES {
            return Err(ConversationError::TooManySentences(sentences));
        }
        let words: usize = user().map(|t| t.text.split_whitespace().count()).sum();
        if words > MAX_USER_WORDS {
            return Err(ConversationError::TooManyWords(words));
        }
        Ok(Conversation { turns })
    }

    /// A conversation of one user utterance (the CarMem harness's negation questions).
    #[cfg(feature = "harness")]
    pub fn from_utterance(text: &str) -> Result<Conversation, ConversationError> {
        Conversation::new(vec![Turn::new(Role::User, text)])
    }

    /// Parses a JSON list of turns: `{"role": "user"|"assistant", "text": "...", "speaker"?: ID,
    /// "time"?: RFC 3339}`, or CarMem's `{"USER": "..."}` / `{"ASSISTANT": "..."}`; or an object
    /// `{"time": RFC 3339, "turns": [...]}` whose time applies to turns without their own.
    pub fn from_json(text: &str) -> Result<Conversation, ConversationError> {
        let v: Value =
            serde_json::from_str(text).map_err(|e| ConversationError::Json(e.to_string()))?;
        Conversation::from_value(&v)
    }

    /// Same as [`Conversation::from_json`] on an already parsed value.
    pub fn from_value(v: &Value) -> Result<Conversation, ConversationError> {
        let (list, time) = match v.as_object() {
            Some(o) if o.contains_key("turns") => {
                let time = match o.get("time") {
                    None => None,
                    Some(t) => Some(parse_time(t).map_err(ConversationError::Time)?),
                };
                (o.get("turns").expect("checked"), time)
            }
            _ => (v, None),
        };
        let mut c = Conversation::from_list(list)?;
        for t in &mut c.turns {
            t.time = t.time.or(time);
        }
        Ok(c)
    }

    fn from_list(v: &Value) -> Result<Conversation, ConversationError> {
        let list = v.as_array().ok_or(ConversationError::NotAList(kind(v)))?;
        let mut turns = Vec::with_capacity(list.len());
        for (index, item) in list.iter().enumerate() {
            turns.push(
                parse_turn(item)
                    .map_err(|problem| ConversationError::BadTurn { index, problem })?,
            );
        }
        Conversation::new(turns)
    }

    pub fn turns(&self) -> &[Turn] {
        &self.turns
    }

    /// The conversation split into what each speaker said, in order of first appearance: the
    /// user turns of one speaker (`default` for turns without one), each with its time, and
    /// before each of them the assistant turn it answers, when the turn just before it is the
    /// assistant's (what the speaker was asked: `memory::extraction::context`). Another
    /// occupant's words are never in a speaker's part.
    pub fn parts(&self, default: &UserId) -> Vec<Part> {
        let mut out: Vec<Part> = Vec::new();
        for (i, t) in self.turns.iter().enumerate() {
            if t.role != Role::User || t.text.trim().is_empty() {
                continue;
            }
            let asked = i
                .checked_sub(1)
                .map(|j| &self.turns[j])
                .filter(|b| b.role == Role::Assistant);
            let speaker = t.speaker.clone().unwrap_or_else(|| default.clone());
            let turns = asked.into_iter().chain([t]).cloned();
            match out.iter_mut().find(|p| p.speaker == speaker) {
                Some(p) => p.conversation.turns.extend(turns),
                None => out.push(Part {
                    speaker,
                    conversation: Conversation {
                        turns: turns.collect(),
                    },
                }),
            }
        }
        out
    }

    /// The user turn that `speaker`'s turn holding `sentence` answers: the user turn just
    /// before it, when another occupant said it (`default` speaks turns without a speaker).
    pub fn answered(&self, default: &UserId, speaker: &UserId, sentence: &str) -> Option<&Turn> {
        let users: Vec<&Turn> = self.turns.iter().filter(|t| t.role == Role::User).collect();
        let who = |t: &Turn| t.speaker.as_ref().unwrap_or(default).clone();
        let i = users
            .iter()
            .position(|t| who(t) == *speaker && t.text.contains(sentence))?;
        let before = users.get(i.checked_sub(1)?)?;
        (who(before) != *speaker).then_some(*before)
    }

    /// The user's sentences, in order: every user turn split at sentence ends.
    pub fn user_sentences(&self) -> Vec<String> {
        self.turns
            .iter()
            .filter(|t| t.role == Role::User)
            .flat_map(|t| split_sentences(&t.text))
            .collect()
    }
}

fn parse_turn(item: &Value) -> Result<Turn, String> {
    let obj = item
        .as_object()
        .ok_or_else(|| format!("expected an object, got {}", kind(item)))?;
    let text_of = |v: &Value, field: &str| -> Result<String, String> {
        v.as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("\"{field}\" must be a string, got {}", kind(v)))
    };
    if let Some(role) = obj.get("role") {
        let role = match role.as_str() {
            Some(r) if r.eq_ignore_ascii_case("user") => Role::User,
            Some(r) if r.eq_ignore_ascii_case("assistant") => Role::Assistant,
            Some(r) => {
                return Err(format!(
                    "unknown role {r:?} (expected \"user\" or \"assistant\")"
                ))
            }
            None => return Err(format!("\"role\" must be a string, got {}", kind(role))),
        };
        let text = obj.get("text").ok_or("missing \"text\"")?;
        let speaker = match obj.get("speaker") {
            None => None,
            Some(v) => Some(UserId::new(text_of(v, "speaker")?).map_err(|e| e.to_string())?),
        };
        let time = obj.get("time").map(parse_time).transpose()?;
        return Ok(Turn {
            role,
            text: text_of(text, "text")?,
            speaker,
            time,
        });
    }
    if obj.len() == 1 {
        let (k, v) = obj.iter().next().expect("one entry");
        let role = match k.as_str() {
            "USER" => Role::User,
            "ASSISTANT" => Role::Assistant,
            other => {
                return Err(format!(
                    "unknown key {other:?} (expected {{\"role\", \"text\"}} or {{\"USER\"|\"ASSISTANT\": text}})"
                ))
            }
        };
        return Ok(Turn::new(role, text_of(v, k)?));
    }
    Err("expected {\"role\": \"user\"|\"assistant\", \"text\": \"...\"}".into())
}

fn parse_time(v: &Value) -> Result<Millis, String> {
    let s = v
        .as_str()
        .ok_or_else(|| format!("\"time\" must be an RFC 3339 string, got {}", kind(v)))?;
    crate::rfc3339::parse(s)
}

/// Splits text into sentences at `.`, `!` or `?` followed by whitespace. Short abbreviations
/// ("e.g.", "Dr.") may split wrongly; evidence is then a shorter sentence, never a wrong one.
pub fn split_sentences(text: &str) -> Vec<String> {
    sentence_spans(text)
        .into_iter()
        .map(|r| text[r].to_string())
        .collect()
}

/// The clauses of `text`: its sentences ([`split_sentences`]) cut at commas, semicolons and
/// dashes, trimmed, none empty ("Put BBC Radio 2 on for a bit, I want to catch the travel
/// news." has two).
pub fn split_clauses(text: &str) -> Vec<String> {
    split_sentences(text)
        .iter()
        .flat_map(|s| {
            s.split([',', ';', '\u{2014}', '\u{2013}'])
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Where [`split_sentences`] cuts `text`: the byte range of each sentence, trimmed.
pub fn sentence_spans(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if matches!(b, b'.' | b'!' | b'?')
            && bytes.get(i + 1).is_some_and(|n| n.is_ascii_whitespace())
            && !(b == b'.' && abbreviation(&text[start..i]))
        {
            push_trimmed(&mut out, text, start..i + 1);
            start = i + 1;
        }
    }
    push_trimmed(&mut out, text, start..text.len());
    out
}

/// Titles whose full stop ends no sentence ("Play Mr. Blue Sky.", "Dr. Patel's office").
const TITLES: &[&str] = &[
    "mr", "mrs", "ms", "dr", "st", "prof", "jr", "sr", "mt", "vs",
];

/// Whether the text before a full stop ends in a title or an initial ("J. K. Rowling").
fn abbreviation(before: &str) -> bool {
    let word = before
        .rsplit(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or("");
    TITLES.contains(&word.to_lowercase().as_str())
        || (word.len() == 1 && word != "I" && word.chars().all(|c| c.is_ascii_uppercase()))
}

fn push_trimmed(out: &mut Vec<std::ops::Range<usize>>, text: &str, r: std::ops::Range<usize>) {
    let s = &text[r.clone()];
    let lead = s.len() - s.trim_start().len();
    let trimmed = s.trim();
    if !trimmed.is_empty() {
        out.push(r.start + lead..r.start + lead + trimmed.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user_turns(n: usize, text: &str) -> Vec<Turn> {
        (0..n).map(|_| Turn::new(Role::User, text)).collect()
    }

    #[test]
    fn titles_and_initials_end_no_sentence() {
        assert_eq!(
            split_sentences("Play Mr. Blue Sky. It's my favourite."),
            ["Play Mr. Blue Sky.", "It's my favourite."]
        );
        assert_eq!(
            split_sentences("Put on J. K. Simmons. Thanks!"),
            ["Put on J. K. Simmons.", "Thanks!"]
        );
        assert_eq!(
            split_sentences("I said I. Then left."),
            ["I said I.", "Then left."]
        );
    }

    #[test]
    fn sentence_and_word_limits_name_the_limit() {
        // Within the turn and character limits, but 60,000 one-word sentences.
        let e = Conversation::new(user_turns(60, &"Ok. ".repeat(1_000))).unwrap_err();
        assert_eq!(e, ConversationError::TooManySentences(60_000));
        assert!(e.to_string().contains("at most 1000"), "{e}");
        let e = Conversation::new(user_turns(200, &"word ".repeat(200))).unwrap_err();
        assert_eq!(e, ConversationError::TooManyWords(40_000));
        // An hour of cabin talk: 200 turns of a few sentences each.
        let hour = "Could you turn the music down a bit. We are almost there. Thanks!";
        assert!(Conversation::new(user_turns(200, hour)).is_ok());
    }

    #[test]
    fn both_forms_parse() {
        let a = Conversation::from_json(
            r#"[{"role":"user","text":"Hi. I like jazz!"},{"role":"assistant","text":"Noted."}]"#,
        )
        .unwrap();
        let b = Conversation::from_json(r#"[{"USER":"Hi. I like jazz!"},{"ASSISTANT":"Noted."}]"#)
            .unwrap();
        assert_eq!(a, b);
        assert_eq!(a.user_sentences(), vec!["Hi.", "I like jazz!"]);
    }

    #[test]
    fn malformed_conversations_say_what_is_wrong() {
        let e = |s: &str| Conversation::from_json(s).unwrap_err().to_string();
        assert!(e("{").contains("not valid JSON"));
        assert!(e(r#"{"role":"user"}"#).contains("list of turns"));
        assert!(e(r#"[{"role":"driver","text":"x"}]"#).contains("unknown role \"driver\""));
        assert!(e(r#"[{"role":"user"}]"#).contains("missing \"text\""));
        assert!(e(r#"[{"USER": 3}]"#).contains("must be a string"));
        assert!(e(r#"[{"ASSISTANT":"hello"}]"#).contains("no user turn"));
        assert!(e("[]").contains("no user turn"));
        assert!(e(r#"[{"role":"user","text":"a"}, 5]"#).starts_with("turn 1:"));
    }

    #[test]
    fn speakers_and_times_split_the_conversation_into_parts() {
        let c = Conversation::from_json(
            r#"{"time": "2025-03-10T08:00:00Z", "turns": [
                {"role":"user","speaker":"gary","text":"I love this green panel."},
                {"role":"user","speaker":"pat","text":"I prefer white.","time":"2025-03-10T09:00:00Z"},
                {"role":"assistant","text":"Done."},
                {"role":"user","text":"Thanks."}]}"#,
        )
        .unwrap();
        let parts = c.parts(&UserId::new("ann").unwrap());
        let who: Vec<(&str, String)> = parts
            .iter()
            .map(|p| {
                (
                    p.speaker.as_str(),
                    p.conversation.user_sentences().join(" "),
                )
            })
            .collect();
        assert_eq!(
            who,
            [
                ("gary", "I love this green panel.".to_string()),
                ("pat", "I prefer white.".to_string()),
                ("ann", "Thanks.".to_string())
            ]
        );
        let t = |s: &str| Some(crate::rfc3339::parse(s).unwrap());
        assert_eq!(parts[0].time_of("green panel"), t("2025-03-10T08:00:00Z"));
        assert_eq!(
            parts[1].time_of("I prefer white."),
            t("2025-03-10T09:00:00Z")
        );
        // A turn without its own time takes the conversation's.
        assert_eq!(parts[2].time_of("Thanks."), t("2025-03-10T08:00:00Z"));
        // A speaker's part holds the assistant turn their turn answers, and no other
        // occupant's turn.
        let roles =
            |p: &Part| -> Vec<Role> { p.conversation.turns().iter().map(|t| t.role).collect() };
        assert_eq!(roles(&parts[0]), [Role::User]);
        assert_eq!(roles(&parts[1]), [Role::User]);
        assert_eq!(roles(&parts[2]), [Role::Assistant, Role::User]);
        let e = |s: &str| Conversation::from_json(s).unwrap_err().to_string();
        assert!(e(r#"[{"role":"user","text":"a","speaker":""}]"#).contains("invalid user id"));
        assert!(e(r#"[{"role":"user","text":"a","time":"noon"}]"#).contains("RFC 3339"));
        assert!(e(r#"{"time":"noon","turns":[]}"#).contains("RFC 3339"));
    }

    #[test]
    fn sentences_split_at_ends_only() {
        assert_eq!(
            split_sentences("Set it to 21.5 degrees. Thanks!  Really?yes"),
            vec!["Set it to 21.5 degrees.", "Thanks!", "Really?yes"]
        );
        assert!(split_sentences("   ").is_empty());
    }
}
