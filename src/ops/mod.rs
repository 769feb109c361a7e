//! The operation layer between `memory` and its two front ends: every operation a client can
//! ask for is a [`Request`], runs in [`run`] (the one dispatch), and answers a [`Reply`] whose
//! JSON is what both the socket and `--json` on the command line print.

pub mod error;
pub mod wire;

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

pub use error::{Code, OpError};
use wire::{
    WireCategory, WireDetail, WireHistory, WireOutcome, WirePreference, WireRecalled, WireStatus,
};

use crate::conversation::Conversation;
use crate::memory::condition::Situation;
use crate::memory::{export, ForgetWhat, Memory};
use crate::pref::{PreferenceId, UserId};
use crate::schema::Schema;

/// The version of the request and reply shapes (the socket protocol's version).
pub const PROTOCOL_VERSION: u64 = 1;

/// The most preferences one recall returns, whatever `k` asks for.
pub const MAX_K: usize = 1000;

/// Reads a recall's `context`: `{"time": "HH:MM" or RFC 3339 (its clock time is the local
/// time), "occupants": [user ids], "facts": [text]}`, every key optional.
pub fn situation(v: &Value) -> Result<Situation, String> {
    let obj = match v {
        Value::Null => return Ok(Situation::default()),
        Value::Object(o) => o,
        _ => return Err("\"context\" must be an object".into()),
    };
    for k in obj.keys() {
        if !matches!(k.as_str(), "time" | "occupants" | "facts") {
            return Err(format!(
                "context has unknown key {k:?} (known: time, occupants, facts)"
            ));
        }
    }
    let list = |k: &str| -> Result<Vec<String>, String> {
        match obj.get(k) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(a)) => a
                .iter()
                .map(|x| x.as_str().map(str::to_string))
                .collect::<Option<_>>()
                .ok_or_else(|| format!("context.{k} must be a list of strings")),
            Some(_) => Err(format!("context.{k} must be a list of strings")),
        }
    };
    let local_time = match obj.get("time") {
        None | Some(Value::Null) => None,
        Some(Value::String(t)) => Some(local_time(t)?),
        Some(_) => return Err("context.time must be a string".into()),
    };
    Ok(Situation {
        local_time,
        occupants: list("occupants")?,
        facts: list("facts")?,
    })
}

/// The clock time of `HH:MM[:SS]` or of an RFC 3339 time (as written, in its own offset).
pub fn local_time(t: &str) -> Result<(u32, u32), String> {
    let t = t.trim();
    let clock = if t.len() >= 16 {
        crate::rfc3339::parse(t).map_err(|e| format!("context.time: {e}"))?;
        &t[11..16]
    } else {
        t
    };
    let mut parts = clock.split(':');
    let hm = (parts.next(), parts.next());
    match hm {
        (Some(h), Some(m)) => match (h.parse::<u32>(), m.get(..2).unwrap_or(m).parse::<u32>()) {
            (Ok(h), Ok(m)) if h < 24 && m < 60 => Ok((h, m)),
            _ => Err(format!(
                "context.time {t:?} is not a clock time (HH:MM) or RFC 3339"
            )),
        },
        _ => Err(format!(
            "context.time {t:?} is not a clock time (HH:MM) or RFC 3339"
        )),
    }
}

/// What `forget` removes.
#[derive(Debug, Clone, PartialEq)]
pub enum ForgetSpec {
    Id(u64),
    Category(String),
    All,
}

/// An operation with its arguments, parsed from a socket line or a command line. Categories are
/// still text: they are resolved against the schema when the request runs, so both front ends
/// report an unknown one the same way.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    Remember {
        user: UserId,
        conversation: Conversation,
    },
    Recall {
        user: UserId,
        /// What the person just said (may be empty for a category recall).
        text: String,
        /// Default `recall.k`; at least 1, at most [`MAX_K`].
        k: Option<usize>,
        /// A category asked for explicitly (a detail or sub key or name): its current value,
        /// without the relevance gate ([`Memory::recall_category`]).
        category: Option<String>,
        /// The moment: local time, occupants, facts (conditions are judged against it).
        context: Situation,
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
    /// An export document to store under `user` (command line only).
    Import {
        user: UserId,
        document: Value,
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
    /// The category schema (command line only; needs no memory).
    Categories,
    /// Rewrite the store and index from live data (command line only; needs the memory to
    /// itself).
    Compact,
}

/// What a request needs to run: see [`Target`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    Schema,
    Memory,
    ExclusiveMemory,
}

impl Request {
    /// Whether the operation needs the LLM (and so waits in the server's bounded model queue).
    pub fn uses_llm(&self) -> bool {
        matches!(self, Request::Remember { .. })
    }

    pub fn needs(&self) -> Needs {
        match self {
            Request::Categories => Needs::Schema,
            Request::Compact => Needs::ExclusiveMemory,
            _ => Needs::Memory,
        }
    }
}

/// A request's answer. Its JSON (`serde_json::to_value`) is the client's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Reply {
    Remembered {
        remembered: Vec<WireOutcome>,
    },
    Recalled {
        recalled: Vec<WireRecalled>,
    },
    Listed {
        preferences: Vec<WirePreference>,
        optouts: Vec<WireCategory>,
        /// Whose list it is (for the text rendering's hints; not in the JSON).
        #[serde(skip)]
        user: String,
    },
    History {
        history: Vec<WireHistory>,
    },
    Forgotten {
        forgotten: usize,
    },
    OptedOut {
        optout: WireCategory,
        deleted: usize,
    },
    OptedIn {
        optin: WireCategory,
    },
    /// The export document (`wire::export_document`).
    Exported(Value),
    Imported {
        imported: usize,
    },
    Confirmed {
        confirmed: WirePreference,
    },
    Rejected {
        rejected: u64,
    },
    Status(WireStatus),
    Categories {
        categories: Vec<WireDetail>,
    },
    Compacted {
        compacted: String,
    },
}

impl Reply {
    /// The reply as clients receive it.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("replies are plain JSON")
    }
}

/// What a request runs against: `categories` needs only the schema, `compact` the memory to
/// itself, everything else the shared memory.
pub enum Target<'a> {
    Schema(Arc<Schema>),
    Shared(&'a Memory),
    Exclusive(&'a mut Memory),
}

impl Target<'_> {
    fn schema(&self) -> &Arc<Schema> {
        match self {
            Target::Schema(s) => s,
            Target::Shared(m) => m.schema(),
            Target::Exclusive(m) => m.schema(),
        }
    }

    fn memory(&self) -> Result<&Memory, OpError> {
        match self {
            Target::Schema(_) => Err(OpError::new(
                Code::Internal,
                "this operation needs an open memory",
            )),
            Target::Shared(m) => Ok(m),
            Target::Exclusive(m) => Ok(m),
        }
    }
}

/// Runs `request` on a shared memory (everything but `compact`).
pub fn execute(memory: &Memory, request: Request) -> Result<Reply, OpError> {
    run(Target::Shared(memory), request)
}

/// Runs `request` against `target`: the one dispatch of every operation.
pub fn run(target: Target<'_>, request: Request) -> Result<Reply, OpError> {
    let schema = target.schema().clone();
    let schema = &*schema;
    let category = |c: &str| {
        schema
            .resolve(c)
            .map_err(|e| OpError::new(Code::UnknownCategory, e.to_string()))
    };
    Ok(match request {
        Request::Remember { user, conversation } => {
            let out = target.memory()?.remember(&user, &conversation)?;
            let remembered = out.iter().map(|o| WireOutcome::new(schema, o)).collect();
            Reply::Remembered { remembered }
        }
        Request::Recall {
            user,
            text,
            k,
            category: None,
            context,
        } => recall(target.memory()?, &user, &text, k, &context)?,
        Request::Recall {
            user,
            text,
            category: Some(c),
            context,
            ..
        } => {
            let c = category(&c)?;
            let hits = target
                .memory()?
                .recall_category(&user, c, &text, &context)?;
            let recalled = hits.iter().map(|r| WireRecalled::new(schema, r)).collect();
            Reply::Recalled { recalled }
        }
        Request::List { user } => list(target.memory()?, &user)?,
        Request::History { user } => {
            let h = target.memory()?.history(&user)?;
            let history = h.iter().map(|e| WireHistory::new(schema, e)).collect();
            Reply::History { history }
        }
        Request::Forget { user, what } => {
            let what = match what {
                ForgetSpec::Id(id) => ForgetWhat::One(PreferenceId(id)),
                ForgetSpec::Category(c) => ForgetWhat::Category(category(&c)?),
                ForgetSpec::All => ForgetWhat::All,
            };
            let forgotten = target.memory()?.forget(&user, what)?.len();
            Reply::Forgotten { forgotten }
        }
        Request::OptOut { user, category: c } => {
            let r = category(&c)?;
            let deleted = target.memory()?.opt_out(&user, r)?.len();
            let optout = WireCategory::new(schema, r);
            Reply::OptedOut { optout, deleted }
        }
        Request::OptIn { user, category: c } => {
            let r = category(&c)?;
            target.memory()?.opt_in(&user, r)?;
            let optin = WireCategory::new(schema, r);
            Reply::OptedIn { optin }
        }
        Request::Export { user } => {
            let e = export::export(target.memory()?, &user)?;
            Reply::Exported(wire::export_document(schema, &e))
        }
        Request::Import { user, document } => {
            let doc = wire::import_document(schema, &document)?;
            let imported = export::import(target.memory()?, &user, doc)?;
            Reply::Imported { imported }
        }
        Request::Confirm { user, preference } => {
            let p = target.memory()?.confirm(&user, PreferenceId(preference))?;
            let confirmed = WirePreference::new(schema, &p);
            Reply::Confirmed { confirmed }
        }
        Request::Reject { user, preference } => {
            target.memory()?.reject(&user, PreferenceId(preference))?;
            Reply::Rejected {
                rejected: preference,
            }
        }
        Request::Status => Reply::Status(status(target.memory()?)?),
        Request::Categories => Reply::Categories {
            categories: schema
                .details()
                .iter()
                .map(|d| WireDetail::new(schema, d))
                .collect(),
        },
        Request::Compact => compact(target)?,
    })
}

fn list(memory: &Memory, user: &UserId) -> Result<Reply, OpError> {
    let schema = memory.schema();
    let preferences = memory.list(user)?;
    let optouts = memory.optouts(user)?;
    Ok(Reply::Listed {
        preferences: preferences
            .iter()
            .map(|p| WirePreference::new(schema, p))
            .collect(),
        optouts: optouts
            .iter()
            .map(|r| WireCategory::new(schema, *r))
            .collect(),
        user: user.as_str().to_string(),
    })
}

fn recall(
    memory: &Memory,
    user: &UserId,
    text: &str,
    k: Option<usize>,
    context: &Situation,
) -> Result<Reply, OpError> {
    let k = k.unwrap_or(memory.config().recall.k);
    if k == 0 {
        return Err(OpError::new(Code::BadRequest, "k must be at least 1"));
    }
    if text.trim().is_empty() {
        return Err(OpError::new(
            Code::BadRequest,
            "recall needs \"text\" (what was said), or a \"category\" to recall",
        ));
    }
    let hits = memory.recall_in(user, text, k.min(MAX_K), context)?;
    let schema = memory.schema();
    let recalled = hits.iter().map(|r| WireRecalled::new(schema, r)).collect();
    Ok(Reply::Recalled { recalled })
}

fn status(memory: &Memory) -> Result<WireStatus, OpError> {
    let users = memory
        .store()
        .users()
        .map_err(|e| OpError::from(crate::memory::MemoryError::from(e)))?;
    Ok(WireStatus {
        server_version: env!("CARGO_PKG_VERSION"),
        protocol: PROTOCOL_VERSION,
        data_dir: memory.data_dir().display().to_string(),
        preferences_indexed: memory.index_len(),
        users: users.len(),
        llm: memory.config().models.llm.display().to_string(),
        embedder: memory.config().models.embedder.display().to_string(),
    })
}

fn compact(target: Target<'_>) -> Result<Reply, OpError> {
    let Target::Exclusive(memory) = target else {
        return Err(OpError::new(
            Code::BadRequest,
            "compact runs only from the command line, with the memory to itself",
        ));
    };
    memory.compact()?;
    let compacted = memory.data_dir().display().to_string();
    Ok(Reply::Compacted { compacted })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn replies_serialise_as_the_protocol_documents_them() {
        let listed = Reply::Listed {
            preferences: vec![],
            optouts: vec![],
            user: "ann".into(),
        };
        assert_eq!(listed.to_json(), json!({"preferences": [], "optouts": []}));
        assert_eq!(
            Reply::Rejected { rejected: 5 }.to_json(),
            json!({"rejected": 5})
        );
        let doc = json!({"format": "glovebox-export", "version": 1});
        assert_eq!(Reply::Exported(doc.clone()).to_json(), doc);
        assert_eq!(
            Reply::OptedOut {
                optout: WireCategory {
                    key: "music".into(),
                    name: "Music".into(),
                    level: "sub"
                },
                deleted: 2
            }
            .to_json(),
            json!({"optout": {"key": "music", "name": "Music", "level": "sub"}, "deleted": 2})
        );
    }

    #[test]
    fn local_operations_say_what_they_need() {
        assert_eq!(Request::Categories.needs(), Needs::Schema);
        assert_eq!(Request::Compact.needs(), Needs::ExclusiveMemory);
        assert_eq!(Request::Status.needs(), Needs::Memory);
        let schema = Arc::new(Schema::embedded());
        let reply = run(Target::Schema(schema.clone()), Request::Categories).unwrap();
        let Reply::Categories { categories } = reply else {
            panic!("categories answered {reply:?}")
        };
        assert_eq!(categories.len(), schema.details().len());
        let e = run(Target::Schema(schema), Request::Compact).unwrap_err();
        assert_eq!(e.code, Code::BadRequest);
    }
}
