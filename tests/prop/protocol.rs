//! Issue 15 (6a): the socket's request-line parser. Any bytes give a request or one of the
//! error codes docs/protocol.md documents, never a panic; every well-formed request reads
//! back as itself after `protocol::encode`.

use std::collections::BTreeSet;

use glovebox::conversation::Conversation;
use glovebox::ipc::protocol::{self, Incoming, Message, OPS};
use glovebox::memory::condition::Situation;
use glovebox::ops::{ForgetSpec, OpError, Request};
use proptest::prelude::*;
use serde_json::Value;

use crate::strategies::{json, text, turns, user};

/// The argument names of the protocol, so that generated objects often hit real fields.
const FIELDS: &[&str] = &[
    "id",
    "op",
    "user",
    "text",
    "k",
    "conversation",
    "preference_id",
    "category",
    "all",
    "version",
    "role",
    "USER",
    "ASSISTANT",
];

/// The error codes docs/protocol.md documents (its table of errors).
fn documented_codes() -> BTreeSet<String> {
    let doc = include_str!("../../docs/protocol.md");
    let table = doc.split("## Errors").nth(1).expect("an Errors section");
    table
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_string)
        .collect()
}

fn code_name(e: &OpError) -> String {
    serde_json::to_value(e.code)
        .unwrap()
        .as_str()
        .unwrap()
        .to_string()
}

/// What every parse must satisfy, whatever the line.
fn check_line(line: &[u8]) -> Result<(), TestCaseError> {
    match protocol::parse(line) {
        Ok(incoming) => {
            // What was read is a request the protocol can say again, and says the same.
            let again = protocol::encode(&incoming).expect("the socket serves what it parsed");
            prop_assert_eq!(protocol::parse(again.as_bytes()).unwrap(), incoming);
        }
        Err((id, e)) => {
            let code = code_name(&e);
            prop_assert!(
                documented_codes().contains(&code),
                "{code} is not in docs/protocol.md"
            );
            prop_assert!(!e.message.trim().is_empty(), "{code} without a message");
            // An error answer carries the id exactly when the line had a readable one.
            let v: Option<Value> = std::str::from_utf8(line)
                .ok()
                .and_then(|t| serde_json::from_str(t).ok());
            let line_id = v.as_ref().and_then(|v| v.get("id")).and_then(Value::as_u64);
            prop_assert_eq!(id, line_id, "{}", e.message);
            match code.as_str() {
                "bad_utf8" => prop_assert!(std::str::from_utf8(line).is_err()),
                "bad_json" => prop_assert!(v.is_none()),
                _ => prop_assert!(v.is_some()),
            }
        }
    }
    Ok(())
}

fn forget_spec() -> impl Strategy<Value = ForgetSpec> {
    prop_oneof![
        any::<u64>().prop_map(ForgetSpec::Id),
        text().prop_map(ForgetSpec::Category),
        Just(ForgetSpec::All),
    ]
}

/// A recall's moment: any clock time, occupants and facts.
fn situation() -> impl Strategy<Value = Situation> {
    (
        prop::option::of((0u32..24, 0u32..60)),
        prop::collection::vec(text(), 0..3),
        prop::collection::vec(text(), 0..3),
    )
        .prop_map(|(local_time, occupants, facts)| Situation {
            local_time,
            occupants,
            facts,
        })
}

/// Every request the socket serves, with arguments the parser accepts.
fn incoming() -> impl Strategy<Value = Incoming> {
    let op = prop_oneof![
        (user(), turns()).prop_map(|(user, t)| Request::Remember {
            user,
            conversation: Conversation::new(t).expect("turns() are valid"),
        }),
        (
            user(),
            text(),
            prop::option::of(any::<usize>()),
            prop::option::of(text()),
            situation()
        )
            .prop_map(|(user, text, k, category, context)| Request::Recall {
                user,
                text,
                k,
                category,
                context
            }),
        user().prop_map(|user| Request::List { user }),
        user().prop_map(|user| Request::History { user }),
        user().prop_map(|user| Request::Export { user }),
        (user(), forget_spec()).prop_map(|(user, what)| Request::Forget { user, what }),
        (user(), text()).prop_map(|(user, category)| Request::OptOut { user, category }),
        (user(), text()).prop_map(|(user, category)| Request::OptIn { user, category }),
        (user(), any::<u64>()).prop_map(|(user, preference)| Request::Confirm { user, preference }),
        (user(), any::<u64>()).prop_map(|(user, preference)| Request::Reject { user, preference }),
        Just(Request::Status),
    ];
    let message = prop_oneof![
        1 => any::<u64>().prop_map(|version| Message::Hello { version }),
        8 => op.prop_map(Message::Op),
    ];
    (any::<u64>(), message).prop_map(|(id, message)| Incoming { id, message })
}

/// A JSON object that looks like a request: an id of any type, a known or made-up op, and
/// arguments of the right names with values of any type.
fn request_like() -> impl Strategy<Value = Value> {
    let op = prop_oneof![
        4 => prop::sample::select(&OPS[..]).prop_map(Value::from),
        1 => json(FIELDS),
    ];
    let id = prop_oneof![4 => any::<u64>().prop_map(Value::from), 1 => json(FIELDS)];
    (
        prop::option::of(id),
        prop::option::of(op),
        prop::collection::vec((prop::sample::select(FIELDS), json(FIELDS)), 0..6),
    )
        .prop_map(|(id, op, args)| {
            let mut m = serde_json::Map::new();
            for (k, v) in args {
                m.insert(k.to_string(), v);
            }
            if let Some(id) = id {
                m.insert("id".into(), id);
            }
            if let Some(op) = op {
                m.insert("op".into(), op);
            }
            Value::Object(m)
        })
}

/// A well-formed line, damaged: cut short, one byte changed, or bytes spliced in.
fn damaged() -> impl Strategy<Value = Vec<u8>> {
    (
        incoming(),
        any::<prop::sample::Index>(),
        any::<u8>(),
        prop::collection::vec(any::<u8>(), 0..8),
        0..3u8,
    )
        .prop_map(|(inc, at, byte, splice, how)| {
            let mut line = protocol::encode(&inc).unwrap().into_bytes();
            let i = at.index(line.len());
            match how {
                0 => line.truncate(i),
                1 => line[i] = byte,
                _ => {
                    line.splice(i..i, splice);
                }
            }
            line
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn well_formed_requests_round_trip(inc in incoming()) {
        let line = protocol::encode(&inc).expect("a socket request");
        prop_assert!(!line.contains('\n'), "one line: {}", line);
        prop_assert_eq!(protocol::parse(line.as_bytes()).unwrap(), inc);
    }

    #[test]
    fn any_bytes_give_a_request_or_a_documented_error(line in prop::collection::vec(any::<u8>(), 0..256)) {
        check_line(&line)?;
    }

    #[test]
    fn request_like_objects_give_a_request_or_a_documented_error(v in request_like()) {
        check_line(v.to_string().as_bytes())?;
    }

    #[test]
    fn damaged_requests_give_a_request_or_a_documented_error(line in damaged()) {
        check_line(&line)?;
    }

    #[test]
    fn deeply_nested_lines_are_bad_json_not_a_crash(depth in 1usize..20_000, open in prop::sample::select(&["[", "{\"a\":", "{\"id\":1,\"op\":\"remember\",\"user\":\"a\",\"conversation\":["][..])) {
        check_line(open.repeat(depth).as_bytes())?;
    }
}

#[test]
fn the_documented_codes_are_read_from_the_protocol_doc() {
    let codes = documented_codes();
    for c in [
        "bad_json",
        "bad_utf8",
        "bad_request",
        "unknown_op",
        "bad_conversation",
    ] {
        assert!(codes.contains(c), "{c} missing from {codes:?}");
    }
}
