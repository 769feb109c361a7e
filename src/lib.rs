//! Glovebox: an offline long-term memory runtime for in-car voice assistants.
//!
//! Module dependencies run one way: `schema`, `pref`, `cache` ← {`store`, `index`, `llm`,
//! `embed`} ← `memory` ← `ops` ← {`ipc`, `cli`}; `gazetteer` is a leaf `memory` reads. See
//! ARCHITECTURE.md for the map and its invariants.

pub mod cache;
pub mod cli;
pub mod config;
pub mod conversation;
pub mod durable;
pub mod embed;
#[cfg(feature = "harness")]
pub mod eval;
pub mod gazetteer;
pub mod index;
pub mod ipc;
pub mod llm;
pub mod memory;
pub mod ops;
pub mod pref;
pub mod rfc3339;
pub mod schema;
pub mod store;
pub mod worker;
