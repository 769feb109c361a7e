//! The socket protocol: newline-delimited JSON. A request line is parsed here into the
//! connection's `hello` or a typed `ops::Request` (errors in the line itself get their stable
//! code here; errors of running a request are made in `ops::error`), and response lines are
//! written here. `docs/protocol.md` is the reference for clients.

use serde_json::{json, Map, Value};

use crate::conversation::Conversation;
pub use crate::ops::PROTOCOL_VERSION;
use crate::ops::{Code, ForgetSpec, OpError, Request};
use crate::pref::UserId;

/// What one request line asks for: the connection's `hello`, or an operation.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Hello { version: u64 },
    Op(Request),
}

/// A parsed request line.
#[derive(Debug, Clone, PartialEq)]
pub struct Incoming {
    pub id: u64,
    pub message: Message,
}

/// Every operation name, for the `unknown_op` message.
pub const OPS: [&str; 12] = [
    "hello", "remember", "recall", "list", "history", "forget", "optout", "optin", "export",
    "confirm", "reject", "status",
];

fn field<'a>(obj: &'a Map<String, Value>, name: &str) -> Result<&'a Value, OpError> {
    obj.get(name)
        .ok_or_else(|| OpError::new(Code::BadRequest, format!("missing field \"{name}\"")))
}

fn string(obj: &Map<String, Value>, name: &str) -> Result<String, OpError> {
    field(obj, name)?
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| {
            OpError::new(
                Code::BadRequest,
                format!("field \"{name}\" must be a string"),
            )
        })
}

fn user(obj: &Map<String, Value>) -> Result<UserId, OpError> {
    UserId::new(string(obj, "user")?).map_err(|e| OpError::new(Code::BadRequest, e.to_string()))
}

fn uint(v: &Value, name: &str) -> Result<u64, OpError> {
    v.as_u64().ok_or_else(|| {
        OpError::new(
            Code::BadRequest,
            format!("field \"{name}\" must be a non-negative integer"),
        )
    })
}

/// Parses one request line (without its newline). On error, returns the request's id when it
/// could be read, so the error response can carry it.
pub fn parse(line: &[u8]) -> Result<Incoming, (Option<u64>, OpError)> {
    let text = std::str::from_utf8(line).map_err(|e| {
        (
            None,
            OpError::new(Code::BadUtf8, format!("request is not valid UTF-8: {e}")),
        )
    })?;
    let v: Value = serde_json::from_str(text).map_err(|e| {
        (
            None,
            OpError::new(Code::BadJson, format!("request is not valid JSON: {e}")),
        )
    })?;
    let obj = v.as_object().ok_or_else(|| {
        (
            None,
            OpError::new(Code::BadRequest, "a request is a JSON object"),
        )
    })?;
    let id = obj.get("id").and_then(Value::as_u64).ok_or_else(|| {
        (
            None,
            OpError::new(
                Code::BadRequest,
                "field \"id\" (a non-negative integer) is required",
            ),
        )
    })?;
    let message = parse_message(obj).map_err(|e| (Some(id), e))?;
    Ok(Incoming { id, message })
}

fn parse_message(obj: &Map<String, Value>) -> Result<Message, OpError> {
    let name = string(obj, "op")?;
    Ok(Message::Op(match name.as_str() {
        "hello" => {
            return Ok(Message::Hello {
                version: uint(field(obj, "version")?, "version")?,
            })
        }
        "remember" => Request::Remember {
            user: user(obj)?,
            conversation: Conversation::from_value(field(obj, "conversation")?)
                .map_err(|e| OpError::new(Code::BadConversation, e.to_string()))?,
        },
        "recall" => Request::Recall {
            user: user(obj)?,
            text: match obj.get("category") {
                // A category recall may come without words.
                Some(Value::String(_)) if obj.get("text").is_none() => String::new(),
                _ => string(obj, "text")?,
            },
            category: match obj.get("category") {
                None | Some(Value::Null) => None,
                Some(Value::String(c)) => Some(c.clone()),
                Some(_) => {
                    return Err(OpError::new(
                        Code::BadRequest,
                        "field \"category\" must be a string",
                    ))
                }
            },
            context: crate::ops::situation(obj.get("context").unwrap_or(&Value::Null))
                .map_err(|e| OpError::new(Code::BadRequest, e))?,
            // At least 1 and at most ops::MAX_K: checked where the request runs.
            k: match obj.get("k") {
                None | Some(Value::Null) => None,
                Some(v) => Some(usize::try_from(uint(v, "k")?).unwrap_or(usize::MAX)),
            },
        },
        "list" => Request::List { user: user(obj)? },
        "history" => Request::History { user: user(obj)? },
        "export" => Request::Export { user: user(obj)? },
        // Like forget, the preference is named by "preference_id" ("id" is the request's).
        "confirm" => Request::Confirm {
            user: user(obj)?,
            preference: uint(field(obj, "preference_id")?, "preference_id")?,
        },
        "reject" => Request::Reject {
            user: user(obj)?,
            preference: uint(field(obj, "preference_id")?, "preference_id")?,
        },
        "forget" => {
            let u = user(obj)?;
            // "id" is the request's own id, so one preference is named by "preference_id".
            let given: Vec<&str> = ["preference_id", "category", "all"]
                .into_iter()
                .filter(|k| {
                    obj.get(*k)
                        .is_some_and(|v| !v.is_null() && *v != Value::Bool(false))
                })
                .collect();
            let what = match given.as_slice() {
                ["preference_id"] => ForgetSpec::Id(uint(&obj["preference_id"], "preference_id")?),
                ["category"] => ForgetSpec::Category(string(obj, "category")?),
                ["all"] if obj["all"] == Value::Bool(true) => ForgetSpec::All,
                _ => return Err(OpError::new(
                    Code::BadRequest,
                    "forget takes exactly one of \"preference_id\", \"category\" or \"all\": true",
                )),
            };
            Request::Forget { user: u, what }
        }
        "optout" => Request::OptOut {
            user: user(obj)?,
            category: string(obj, "category")?,
        },
        "optin" => Request::OptIn {
            user: user(obj)?,
            category: string(obj, "category")?,
        },
        "status" => Request::Status,
        other => {
            return Err(OpError::new(
                Code::UnknownOp,
                format!("unknown op {other:?}; known: {}", OPS.join(", ")),
            ))
        }
    }))
}

/// The request line (without newline) that [`parse`] reads back as `incoming`: what a client
/// sends (`glovebox client` sends its `hello` with it). `None` for the operations the socket
/// does not serve (`import`, `categories`, `compact` are command-line only).
pub fn encode(incoming: &Incoming) -> Option<String> {
    let mut v = Map::new();
    v.insert("id".into(), json!(incoming.id));
    let mut put = |k: &str, x: Value| {
        v.insert(k.to_string(), x);
    };
    let op = match &incoming.message {
        Message::Hello { version } => {
            put("version", json!(version));
            "hello"
        }
        Message::Op(request) => encode_op(request, &mut put)?,
    };
    v.insert("op".into(), json!(op));
    Some(Value::Object(v).to_string())
}

/// Puts a request's arguments and returns its op name; `None` when the socket does not serve it.
fn encode_op(request: &Request, put: &mut impl FnMut(&str, Value)) -> Option<&'static str> {
    Some(match request {
        Request::Remember {
            user: u,
            conversation,
        } => {
            put("user", json!(u.as_str()));
            let turns: Vec<Value> = conversation
                .turns()
                .iter()
                .map(|t| {
                    let mut turn = json!({"role": t.role.as_str(), "text": t.text});
                    if let Some(s) = &t.speaker {
                        turn["speaker"] = json!(s.as_str());
                    }
                    if let Some(time) = t.time {
                        turn["time"] = json!(crate::rfc3339::format(time));
                    }
                    turn
                })
                .collect();
            put("conversation", Value::Array(turns));
            "remember"
        }
        Request::Recall {
            user: u,
            text,
            k,
            category,
            context,
        } => {
            put("user", json!(u.as_str()));
            put("text", json!(text));
            if let Some(k) = k {
                put("k", json!(k));
            }
            if let Some(c) = category {
                put("category", json!(c));
            }
            if *context != Default::default() {
                let mut c = Map::new();
                if let Some((h, m)) = context.local_time {
                    c.insert("time".into(), json!(format!("{h:02}:{m:02}")));
                }
                c.insert("occupants".into(), json!(context.occupants));
                c.insert("facts".into(), json!(context.facts));
                put("context", Value::Object(c));
            }
            "recall"
        }
        Request::List { user: u } => {
            put("user", json!(u.as_str()));
            "list"
        }
        Request::History { user: u } => {
            put("user", json!(u.as_str()));
            "history"
        }
        Request::Export { user: u } => {
            put("user", json!(u.as_str()));
            "export"
        }
        Request::Confirm {
            user: u,
            preference,
        }
        | Request::Reject {
            user: u,
            preference,
        } => {
            put("user", json!(u.as_str()));
            put("preference_id", json!(preference));
            if matches!(request, Request::Confirm { .. }) {
                "confirm"
            } else {
                "reject"
            }
        }
        Request::Forget { user: u, what } => {
            put("user", json!(u.as_str()));
            match what {
                ForgetSpec::Id(id) => put("preference_id", json!(id)),
                ForgetSpec::Category(c) => put("category", json!(c)),
                ForgetSpec::All => put("all", json!(true)),
            }
            "forget"
        }
        Request::OptOut { user: u, category } | Request::OptIn { user: u, category } => {
            put("user", json!(u.as_str()));
            put("category", json!(category));
            if matches!(request, Request::OptOut { .. }) {
                "optout"
            } else {
                "optin"
            }
        }
        Request::Status => "status",
        Request::Import { .. } | Request::Categories | Request::Compact => return None,
    })
}

/// A success response line (without newline).
pub fn ok(id: u64, result: Value) -> String {
    json!({ "id": id, "ok": result }).to_string()
}

/// An error response line (without newline); `id` is null when the request's id is unknown.
pub fn error(id: Option<u64>, e: &OpError) -> String {
    json!({ "id": id, "error": e }).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(line: &str) -> (Option<u64>, Code) {
        let (id, e) = parse(line.as_bytes()).unwrap_err();
        (id, e.code)
    }

    #[test]
    fn requests_parse_into_typed_ops() {
        let r =
            parse(br#"{"id": 7, "op": "recall", "user": "ann", "text": "cold", "k": 3}"#).unwrap();
        assert_eq!(r.id, 7);
        assert!(matches!(
            r.message,
            Message::Op(Request::Recall { k: Some(3), .. })
        ));
        let r = parse(br#"{"id": 1, "op": "remember", "user": "ann", "conversation": [{"role": "user", "text": "I like jazz."}]}"#).unwrap();
        assert!(matches!(r.message, Message::Op(ref op) if op.uses_llm()));
        let r = parse(br#"{"id": 2, "op": "forget", "user": "ann", "preference_id": 9}"#).unwrap();
        assert!(matches!(
            r.message,
            Message::Op(Request::Forget {
                what: ForgetSpec::Id(9),
                ..
            })
        ));
        let r = parse(br#"{"id": 2, "op": "forget", "user": "ann", "all": true}"#).unwrap();
        assert_eq!(
            r.message,
            Message::Op(Request::Forget {
                user: UserId::new("ann").unwrap(),
                what: ForgetSpec::All
            })
        );
    }

    #[test]
    fn bad_requests_get_stable_codes() {
        assert_eq!(code("{"), (None, Code::BadJson));
        assert_eq!(parse(b"\xff\xfe").unwrap_err().1.code, Code::BadUtf8);
        assert_eq!(code("[1]"), (None, Code::BadRequest));
        assert_eq!(code(r#"{"op": "status"}"#), (None, Code::BadRequest));
        assert_eq!(
            code(r#"{"id": 3, "op": "fly"}"#),
            (Some(3), Code::UnknownOp)
        );
        assert_eq!(
            code(r#"{"id": 3, "op": "recall", "user": "a"}"#),
            (Some(3), Code::BadRequest)
        );
        assert_eq!(
            code(r#"{"id": 4, "op": "remember", "user": "a", "conversation": {"x": 1}}"#),
            (Some(4), Code::BadConversation)
        );
        assert_eq!(
            code(r#"{"id": 5, "op": "forget", "user": "a"}"#),
            (Some(5), Code::BadRequest)
        );
        assert_eq!(
            code(r#"{"id": 6, "op": "confirm", "user": "a"}"#),
            (Some(6), Code::BadRequest)
        );
        assert_eq!(
            code(r#"{"id": 7, "op": "reject", "user": "a", "preference_id": "x"}"#),
            (Some(7), Code::BadRequest)
        );
    }

    #[test]
    fn confirm_and_reject_name_a_preference() {
        let r =
            parse(br#"{"id": 3, "op": "confirm", "user": "ann", "preference_id": 12}"#).unwrap();
        assert_eq!(
            r.message,
            Message::Op(Request::Confirm {
                user: UserId::new("ann").unwrap(),
                preference: 12
            })
        );
        let r = parse(br#"{"id": 4, "op": "reject", "user": "ann", "preference_id": 5}"#).unwrap();
        assert!(matches!(
            r.message,
            Message::Op(Request::Reject { preference: 5, .. })
        ));
    }
}
