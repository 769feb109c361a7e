//! Issue 15 (6b): the conversation parser. Any JSON gives a conversation or an error that says
//! what was wrong (and, for a bad turn, which one); every valid conversation, in either accepted
//! form, parses to the same turns, and splitting into sentences loses no word.

use glovebox::conversation::{
    split_sentences, Conversation, ConversationError, Role, Turn, MAX_TURNS, MAX_TURN_CHARS,
};
use proptest::prelude::*;
use serde_json::{json, Value};

use crate::strategies::{json, text, turns};

const FIELDS: &[&str] = &["role", "text", "USER", "ASSISTANT", "user", "assistant"];

/// One turn in one of the accepted forms: `{"role", "text"}` with the role in any case, or
/// CarMem's `{"USER": text}`.
fn encode_turn(t: &Turn, form: u8) -> Value {
    let role = t.role.as_str();
    match form % 3 {
        0 => json!({"role": role, "text": t.text}),
        1 => json!({"role": role.to_uppercase(), "text": t.text}),
        _ => json!({ role.to_uppercase(): t.text }),
    }
}

fn encode(turns: &[Turn], forms: &[u8]) -> Value {
    Value::Array(
        turns
            .iter()
            .enumerate()
            .map(|(i, t)| encode_turn(t, forms.get(i).copied().unwrap_or(0)))
            .collect(),
    )
}

/// One thing wrong with turn `index` of a valid conversation, and words its error must contain.
#[derive(Debug, Clone)]
enum Defect {
    NotAnObject(Value),
    UnknownRole(String),
    RoleNotAString(Value),
    MissingText,
    TextNotAString(Value),
    UnknownKey(String),
    TwoKeys,
    TooLong,
}

fn defect() -> impl Strategy<Value = Defect> {
    let not_string = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        Just(json!([])),
        Just(json!({})),
    ];
    let not_object = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        text().prop_map(Value::String),
        Just(json!([{"role": "user", "text": "I like jazz."}])),
    ];
    prop_oneof![
        not_object.prop_map(Defect::NotAnObject),
        "[a-zA-Z ]{0,10}"
            .prop_filter("not a role", |r| !["user", "assistant"]
                .contains(&r.to_lowercase().as_str()))
            .prop_map(Defect::UnknownRole),
        not_string.clone().prop_map(Defect::RoleNotAString),
        Just(Defect::MissingText),
        not_string.prop_map(Defect::TextNotAString),
        "[a-zA-Z_]{0,10}"
            .prop_filter("not a CarMem key", |k| k != "USER"
                && k != "ASSISTANT"
                && k != "role")
            .prop_map(Defect::UnknownKey),
        Just(Defect::TwoKeys),
        Just(Defect::TooLong),
    ]
}

impl Defect {
    fn apply(&self, turn: &mut Value) {
        *turn = match self {
            Defect::NotAnObject(v) => v.clone(),
            Defect::UnknownRole(r) => json!({"role": r, "text": "I like jazz."}),
            Defect::RoleNotAString(v) => json!({"role": v, "text": "I like jazz."}),
            Defect::MissingText => json!({"role": "user"}),
            Defect::TextNotAString(v) => json!({"role": "user", "text": v}),
            Defect::UnknownKey(k) => json!({ k.as_str(): "I like jazz." }),
            Defect::TwoKeys => json!({"USER": "I like jazz.", "ASSISTANT": "Noted."}),
            Defect::TooLong => json!({"role": "user", "text": "a".repeat(MAX_TURN_CHARS + 1)}),
        }
    }

    /// What the error message must say about the turn.
    fn says(&self) -> &'static str {
        match self {
            Defect::NotAnObject(_) => "expected an object, got",
            Defect::UnknownRole(_) => "unknown role",
            Defect::RoleNotAString(_) => "\"role\" must be a string",
            Defect::MissingText => "missing \"text\"",
            Defect::TextNotAString(_) => "must be a string, got",
            Defect::UnknownKey(_) => "unknown key",
            Defect::TwoKeys => "expected {\"role\"",
            Defect::TooLong => "longer than",
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn valid_conversations_parse_to_the_same_turns(
        turns in turns(),
        forms in prop::collection::vec(any::<u8>(), 0..12),
    ) {
        let v = encode(&turns, &forms);
        let c = Conversation::from_value(&v).unwrap();
        prop_assert_eq!(c.turns(), &turns[..]);
        prop_assert_eq!(Conversation::from_json(&v.to_string()).unwrap(), c);
    }

    #[test]
    fn sentences_keep_every_word_of_the_user(turns in turns()) {
        let c = Conversation::new(turns.clone()).unwrap();
        let squeeze = |s: &str| s.split_whitespace().collect::<String>();
        let said: String = turns
            .iter()
            .filter(|t| t.role == Role::User)
            .map(|t| squeeze(&t.text))
            .collect();
        let sentences = c.user_sentences();
        for s in &sentences {
            prop_assert!(!s.is_empty() && s.trim() == s, "{:?}", s);
        }
        prop_assert_eq!(sentences.iter().map(|s| squeeze(s)).collect::<String>(), said);
    }

    #[test]
    fn split_sentences_never_panics_and_keeps_every_word(s in "\\PC{0,80}") {
        let squeeze = |s: &str| s.split_whitespace().collect::<String>();
        let parts = split_sentences(&s);
        prop_assert_eq!(parts.iter().map(|p| squeeze(p)).collect::<String>(), squeeze(&s));
    }

    #[test]
    fn a_bad_turn_is_named_with_what_is_wrong(
        turns in turns(),
        forms in prop::collection::vec(any::<u8>(), 0..12),
        at in any::<prop::sample::Index>(),
        defect in defect(),
    ) {
        let mut v = encode(&turns, &forms);
        let list = v.as_array_mut().unwrap();
        let index = at.index(list.len());
        defect.apply(&mut list[index]);
        let e = Conversation::from_value(&v).unwrap_err();
        let message = e.to_string();
        prop_assert!(
            matches!(e, ConversationError::BadTurn { index: i, .. } if i == index),
            "{:?} at {}: {}", defect, index, message
        );
        prop_assert!(message.starts_with(&format!("turn {index}: ")), "{}", message);
        prop_assert!(message.contains(defect.says()), "{:?}: {}", defect, message);
    }

    #[test]
    fn conversations_without_user_text_or_with_too_many_turns_say_so(
        assistant in prop::collection::vec(text(), 0..8),
        blank in prop::collection::vec("[ \t\n]{0,3}", 0..4),
        extra in 1usize..20,
    ) {
        let mut turns: Vec<Value> = assistant.iter().map(|t| json!({"role": "assistant", "text": t})).collect();
        turns.extend(blank.iter().map(|t| json!({"USER": t})));
        let e = Conversation::from_value(&Value::Array(turns)).unwrap_err();
        prop_assert_eq!(&e, &ConversationError::NoUserTurn);
        prop_assert!(e.to_string().contains("no user turn"));

        let many = vec![json!({"role": "user", "text": "I like jazz."}); MAX_TURNS + extra];
        let e = Conversation::from_value(&Value::Array(many)).unwrap_err();
        prop_assert_eq!(&e, &ConversationError::TooLong(MAX_TURNS + extra));
        let says = format!("at most {MAX_TURNS}");
        prop_assert!(e.to_string().contains(&says), "{}", e);
    }

    #[test]
    fn any_json_gives_a_conversation_or_an_error_that_says_what(v in prop_oneof![
        json(FIELDS),
        prop::collection::vec(json(FIELDS), 0..8).prop_map(Value::Array),
    ]) {
        match Conversation::from_value(&v) {
            Ok(c) => {
                prop_assert!(c.turns().iter().any(|t| t.role == Role::User && !t.text.trim().is_empty()));
                prop_assert!(c.turns().len() <= MAX_TURNS);
            }
            Err(e) => {
                let message = e.to_string();
                prop_assert!(!message.is_empty());
                match e {
                    ConversationError::NotAList(kind) => {
                        prop_assert!(!v.is_array());
                        prop_assert!(message.contains(kind));
                    }
                    ConversationError::BadTurn { index, problem } => {
                        prop_assert!(index < v.as_array().map_or(0, Vec::len));
                        prop_assert!(!problem.is_empty());
                    }
                    ConversationError::Json(_) => prop_assert!(false, "a value is never bad JSON"),
                    _ => {}
                }
            }
        }
    }

    #[test]
    fn any_text_gives_a_conversation_or_an_error(s in "\\PC{0,120}") {
        if let Err(e) = Conversation::from_json(&s) {
            prop_assert!(!e.to_string().is_empty());
        }
    }
}
