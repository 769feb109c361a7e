//! Glovebox: an offline long-term memory runtime for in-car voice assistants.
//!
//! Module dependencies run one way: `schema` ← {`store`, `index`, `llm`, `embed`} ← `memory`
//! ← `ipc` ← `cli`. See ARCHITECTURE.md for the map and its invariants.

pub mod pref;
pub mod schema;
