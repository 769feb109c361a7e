//! Generators shared by the property tests: user ids, free text, conversations' turns and
//! arbitrary JSON values.

use glovebox::conversation::{Role, Turn};
use glovebox::pref::UserId;
use proptest::prelude::*;
use serde_json::{Map, Value};

/// Text a person might say or a client might send: words, digits, punctuation, accents, emoji,
/// quotes, backslashes and every kind of whitespace.
pub fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 .,!?'\"\\\\éüß😀\n\t\r-]{0,60}"
}

/// A valid user id (1-128 bytes, no control characters).
pub fn user() -> impl Strategy<Value = UserId> {
    prop_oneof!["[a-z][a-z0-9-]{0,11}", "[^\\p{Cc}]{1,20}", "[a-z]{128}",]
        .prop_filter_map("a valid user id", |s| UserId::new(s).ok())
}

/// A sentence with a sentence end now and then.
pub fn utterance() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            "[A-Za-z]{1,8}",
            "[0-9]{1,3}",
            Just(".".to_string()),
            Just("!".to_string()),
            Just("?".to_string()),
            "[éü😀'\"-]",
        ],
        0..16,
    )
    .prop_map(|words| words.join(" "))
}

/// Turns of a conversation that [`glovebox::conversation::Conversation::new`] accepts: a few
/// of either role, with at least one user turn that has text.
pub fn turns() -> impl Strategy<Value = Vec<Turn>> {
    prop::collection::vec(
        (any::<bool>(), prop_oneof![utterance(), text()]).prop_map(|(user, text)| {
            Turn::new(if user { Role::User } else { Role::Assistant }, text)
        }),
        0..12,
    )
    .prop_flat_map(|turns| {
        let n = turns.len();
        (Just(turns), 0..=n, utterance())
    })
    .prop_map(|(mut turns, at, said)| {
        let has_user = turns
            .iter()
            .any(|t| t.role == Role::User && !t.text.trim().is_empty());
        if !has_user {
            turns.insert(at, Turn::new(Role::User, format!("I like jazz. {said}")));
        }
        turns
    })
}

/// Any JSON value, nested a few levels, with object keys drawn from `keys` or made up.
pub fn json(keys: &'static [&'static str]) -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<u64>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        text().prop_map(Value::String),
        prop::sample::select(keys).prop_map(|k| Value::String(k.to_string())),
    ];
    leaf.prop_recursive(3, 24, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(keys), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// An object key: one of `keys`, or made up.
pub fn key(keys: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(keys).prop_map(str::to_string),
        1 => "[a-zA-Z_]{0,8}",
    ]
}
