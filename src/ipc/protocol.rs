//! The socket protocol: newline-delimited JSON. A request line is parsed into a typed
//! [`Request`] here, and every error a client can see is made here, with a stable code.
//! `docs/protocol.md` is the reference for clients.

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::conversation::Conversation;
use crate::memory::MemoryError;
use crate::pref::UserId;

/// The protocol version this server speaks.
pub const PROTOCOL_VERSION: u64 = 1;

/// Stable error codes (the `code` of an error response).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Code {
    BadJson,
    BadUtf8,
    LineTooLong,
    TruncatedLine,
    BadRequest,
    UnknownOp,
    UnsupportedVersion,
    HelloRequired,
    UnknownCategory,
    BadConversation,
    NotFound,
    NotPending,
    Busy,
    Timeout,
    Forbidden,
    ModelMissing,
    Internal,
}

/// An error as the client sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WireError {
    pub code: Code,
    pub message: String,
}

impl WireError {
    pub fn new(code: Code, message: impl Into<String>) -> WireError {
        WireError {
            code,
            message: message.into(),
        }
    }
}

/// The one place runtime errors become wire errors.
impl From<&MemoryError> for WireError {
    fn from(e: &MemoryError) -> WireError {
        use crate::llm::LlmError;
        use crate::worker::WorkerError;
        let code = match e {
            MemoryError::Schema(crate::schema::SchemaError::UnknownCategory(_)) => {
                Code::UnknownCategory
            }
            MemoryError::Conversation(_) => Code::BadConversation,
            MemoryError::NotFound { .. } => Code::NotFound,
            MemoryError::NotPending { .. } => Code::NotPending,
            MemoryError::Llm(LlmError::Busy(_)) | MemoryError::Worker(WorkerError::Busy(..)) => {
                Code::Busy
            }
            MemoryError::Llm(LlmError::MissingModel(_)) => Code::ModelMissing,
            MemoryError::Embed(e) if e.to_string().contains("models/fetch") => Code::ModelMissing,
            _ => Code::Internal,
        };
        WireError::new(code, e.to_string())
    }
}

/// What `forget` removes.
#[derive(Debug, Clone, PartialEq)]
pub enum ForgetSpec {
    Id(u64),
    Category(String),
    All,
}

/// A request's operation with its checked arguments.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Hello {
        version: u64,
    },
    Remember {
        user: UserId,
        conversation: Conversation,
    },
    Recall {
        user: UserId,
        text: String,
        k: Option<usize>,
    },
    List {
        user: UserId,
    },
    History {
        user: UserId,
    },
    Forget {
        user: UserId,
        what: ForgetSpec,
    },
    OptOut {
        user: UserId,
        category: String,
    },
    OptIn {
        user: UserId,
        category: String,
    },
    Export {
        user: UserId,
    },
    Confirm {
        user: UserId,
        preference: u64,
    },
    Reject {
        user: UserId,
        preference: u64,
    },
    Status,
}

impl Op {
    /// The operation's name on the wire.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Hello { .. } => "hello",
            Op::Remember { .. } => "remember",
            Op::Recall { .. } => "recall",
            Op::List { .. } => "list",
            Op::History { .. } => "history",
            Op::Forget { .. } => "forget",
            Op::OptOut { .. } => "optout",
            Op::OptIn { .. } => "optin",
            Op::Export { .. } => "export",
            Op::Confirm { .. } => "confirm",
            Op::Reject { .. } => "reject",
            Op::Status => "status",
        }
    }

    /// Whether the operation needs the LLM (and so waits in the bounded model queue).
    pub fn uses_llm(&self) -> bool {
        matches!(self, Op::Remember { .. })
    }
}

/// A parsed request.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub id: u64,
    pub op: Op,
}

/// Every operation name, for the `unknown_op` message.
pub const OPS: [&str; 12] = [
    "hello", "remember", "recall", "list", "history", "forget", "optout", "optin", "export",
    "confirm", "reject", "status",
];

fn field<'a>(obj: &'a Map<String, Value>, name: &str) -> Result<&'a Value, WireError> {
    obj.get(name)
        .ok_or_else(|| WireError::new(Code::BadRequest, format!("missing field \"{name}\"")))
}

fn string(obj: &Map<String, Value>, name: &str) -> Result<String, WireError> {
    field(obj, name)?
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| {
            WireError::new(
                Code::BadRequest,
                format!("field \"{name}\" must be a string"),
            )
        })
}

fn user(obj: &Map<String, Value>) -> Result<UserId, WireError> {
    UserId::new(string(obj, "user")?).map_err(|e| WireError::new(Code::BadRequest, e.to_string()))
}

fn uint(v: &Value, name: &str) -> Result<u64, WireError> {
    v.as_u64().ok_or_else(|| {
        WireError::new(
            Code::BadRequest,
            format!("field \"{name}\" must be a non-negative integer"),
        )
    })
}

/// Parses one request line (without its newline). On error, returns the request's id when it
/// could be read, so the error response can carry it.
pub fn parse(line: &[u8]) -> Result<Request, (Option<u64>, WireError)> {
    let text = std::str::from_utf8(line).map_err(|e| {
        (
            None,
            WireError::new(Code::BadUtf8, format!("request is not valid UTF-8: {e}")),
        )
    })?;
    let v: Value = serde_json::from_str(text).map_err(|e| {
        (
            None,
            WireError::new(Code::BadJson, format!("request is not valid JSON: {e}")),
        )
    })?;
    let obj = v.as_object().ok_or_else(|| {
        (
            None,
            WireError::new(Code::BadRequest, "a request is a JSON object"),
        )
    })?;
    let id = obj.get("id").and_then(Value::as_u64).ok_or_else(|| {
        (
            None,
            WireError::new(
                Code::BadRequest,
                "field \"id\" (a non-negative integer) is required",
            ),
        )
    })?;
    let op = parse_op(obj).map_err(|e| (Some(id), e))?;
    Ok(Request { id, op })
}

fn parse_op(obj: &Map<String, Value>) -> Result<Op, WireError> {
    let name = string(obj, "op")?;
    Ok(match name.as_str() {
        "hello" => Op::Hello {
            version: uint(field(obj, "version")?, "version")?,
        },
        "remember" => Op::Remember {
            user: user(obj)?,
            conversation: Conversation::from_value(field(obj, "conversation")?)
                .map_err(|e| WireError::new(Code::BadConversation, e.to_string()))?,
        },
        "recall" => Op::Recall {
            user: user(obj)?,
            text: string(obj, "text")?,
            k: match obj.get("k") {
                None | Some(Value::Null) => None,
                Some(v) => match uint(v, "k")? {
                    0 => {
                        return Err(WireError::new(
                            Code::BadRequest,
                            "field \"k\" must be at least 1",
                        ))
                    }
                    k => Some(k.min(1000) as usize),
                },
            },
        },
        "list" => Op::List { user: user(obj)? },
        "history" => Op::History { user: user(obj)? },
        "export" => Op::Export { user: user(obj)? },
        // Like forget, the preference is named by "preference_id" ("id" is the request's).
        "confirm" => Op::Confirm {
            user: user(obj)?,
            preference: uint(field(obj, "preference_id")?, "preference_id")?,
        },
        "reject" => Op::Reject {
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
                _ => return Err(WireError::new(
                    Code::BadRequest,
                    "forget takes exactly one of \"preference_id\", \"category\" or \"all\": true",
                )),
            };
            Op::Forget { user: u, what }
        }
        "optout" => Op::OptOut {
            user: user(obj)?,
            category: string(obj, "category")?,
        },
        "optin" => Op::OptIn {
            user: user(obj)?,
            category: string(obj, "category")?,
        },
        "status" => Op::Status,
        other => {
            return Err(WireError::new(
                Code::UnknownOp,
                format!("unknown op {other:?}; known: {}", OPS.join(", ")),
            ))
        }
    })
}

/// A success response line (without newline).
pub fn ok(id: u64, result: Value) -> String {
    json!({ "id": id, "ok": result }).to_string()
}

/// An error response line (without newline); `id` is null when the request's id is unknown.
pub fn error(id: Option<u64>, e: &WireError) -> String {
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
        assert!(matches!(r.op, Op::Recall { k: Some(3), .. }));
        let r = parse(br#"{"id": 1, "op": "remember", "user": "ann", "conversation": [{"role": "user", "text": "I like jazz."}]}"#).unwrap();
        assert!(r.op.uses_llm());
        let r = parse(br#"{"id": 2, "op": "forget", "user": "ann", "preference_id": 9}"#).unwrap();
        assert!(matches!(
            r.op,
            Op::Forget {
                what: ForgetSpec::Id(9),
                ..
            }
        ));
        let r = parse(br#"{"id": 2, "op": "forget", "user": "ann", "all": true}"#).unwrap();
        assert_eq!(
            r.op,
            Op::Forget {
                user: UserId::new("ann").unwrap(),
                what: ForgetSpec::All
            }
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
            code(r#"{"id": 3, "op": "recall", "user": "a", "text": "x", "k": 0}"#),
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
            r.op,
            Op::Confirm {
                user: UserId::new("ann").unwrap(),
                preference: 12
            }
        );
        let r = parse(br#"{"id": 4, "op": "reject", "user": "ann", "preference_id": 5}"#).unwrap();
        assert_eq!(r.op.name(), "reject");
        assert!(!r.op.uses_llm());
    }

    #[test]
    fn memory_errors_map_to_stable_codes() {
        let id = crate::pref::PreferenceId(9);
        let nf = MemoryError::NotFound {
            user: "ann".into(),
            id,
        };
        assert_eq!(WireError::from(&nf).code, Code::NotFound);
        let np = MemoryError::NotPending {
            user: "ann".into(),
            id,
        };
        let w = WireError::from(&np);
        assert_eq!(w.code, Code::NotPending);
        assert!(w.message.contains("not pending"), "{}", w.message);
    }
}
