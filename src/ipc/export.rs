//! The export format: everything stored about one user in one JSON document (format
//! `glovebox-export`, version 1; described in docs/protocol.md).

use serde_json::{json, Value};

use super::wire::{WireCategory, WireHistory, WirePreference};
use crate::memory::{Memory, MemoryError};
use crate::pref::{Millis, UserId};

/// The export format's name and version.
pub const EXPORT_FORMAT: &str = "glovebox-export";
pub const EXPORT_VERSION: u64 = 1;

/// Everything stored about `user`.
pub fn export(memory: &Memory, user: &UserId) -> Result<Value, MemoryError> {
    let schema = memory.schema();
    let prefs = memory.list(user)?;
    let history = memory.history(user)?;
    let optouts = memory.optouts(user)?;
    Ok(json!({
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported_ms": Millis::now().0,
        "user": user.as_str(),
        "preferences": prefs.iter().map(|p| WirePreference::new(schema, p)).collect::<Vec<_>>(),
        "history": history.iter().map(|h| WireHistory::new(schema, h)).collect::<Vec<_>>(),
        "optouts": optouts.iter().map(|r| WireCategory::new(schema, *r)).collect::<Vec<_>>(),
    }))
}
