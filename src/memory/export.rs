//! The export format: everything stored about one user in one JSON document (format
//! `glovebox-export`, version 1; described in docs/protocol.md).

use serde_json::{json, Value};

use super::wire::{WireCategory, WireHistory, WirePreference};
use crate::memory::{Memory, MemoryError};
use crate::pref::{Millis, Status, UserId};

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

/// What was wrong with a document given to [`import`].
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("not a Glovebox export: {0}")]
    Format(String),
    #[error("nothing was imported: {0}")]
    OptedOut(String),
    #[error(transparent)]
    Memory(#[from] MemoryError),
}

/// Stores the preferences and opt-outs of an export document under `user` (moving a profile to
/// a new car), keeping each preference's status (pending stays pending) and confidence.
/// Everything is checked before anything is stored. Returns how many preferences were imported.
pub fn import(memory: &Memory, user: &UserId, doc: &Value) -> Result<usize, ImportError> {
    let bad = |m: String| ImportError::Format(m);
    if doc["format"] != EXPORT_FORMAT {
        return Err(bad(format!("\"format\" must be {EXPORT_FORMAT:?}")));
    }
    match doc["version"].as_u64() {
        Some(EXPORT_VERSION) => {}
        v => {
            return Err(bad(format!(
                "version {v:?} is not supported (this build reads {EXPORT_VERSION})"
            )))
        }
    }
    let schema = memory.schema();
    let mut optouts = Vec::new();
    for (i, o) in doc["optouts"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[])
        .iter()
        .enumerate()
    {
        let key = o["key"]
            .as_str()
            .ok_or_else(|| bad(format!("optouts[{i}] has no \"key\"")))?;
        optouts.push(
            schema
                .resolve(key)
                .map_err(|e| bad(format!("optouts[{i}]: {e}")))?,
        );
    }
    let prefs = doc["preferences"]
        .as_array()
        .ok_or_else(|| bad("\"preferences\" must be a list".into()))?;
    // An opted-out category (the user's own, or the document's) stores nothing, imported or not.
    let mut allowed = memory.allowed(user)?;
    for r in &optouts {
        for d in schema.details_of(*r) {
            allowed.remove(d);
        }
    }
    let mut news = Vec::with_capacity(prefs.len());
    for (i, p) in prefs.iter().enumerate() {
        let key = p["category_key"]
            .as_str()
            .ok_or_else(|| bad(format!("preferences[{i}] has no \"category_key\"")))?;
        let detail = schema
            .detail_by_key(key)
            .ok_or_else(|| bad(format!("preferences[{i}]: unknown category key {key:?}")))?;
        if !allowed.contains(detail) {
            return Err(ImportError::OptedOut(format!(
                "preferences[{i}] is in {key:?}, which {user} has opted out of (opt in first, or leave it out of the file)"
            )));
        }
        let attribute = p["attribute"]
            .as_str()
            .filter(|a| !a.trim().is_empty())
            .ok_or_else(|| bad(format!("preferences[{i}] has no \"attribute\"")))?;
        let sentences: Vec<String> = p["sentences"]
            .as_array()
            .ok_or_else(|| bad(format!("preferences[{i}] has no \"sentences\" list")))?
            .iter()
            .map(|s| s.as_str().map(str::to_string))
            .collect::<Option<_>>()
            .ok_or_else(|| bad(format!("preferences[{i}]: sentences must be strings")))?;
        // Pending preferences stay pending; documents without a status (or confidence) hold
        // active ones.
        let status = match p.get("status").and_then(|v| v.as_str()) {
            None | Some("active") => Status::Active,
            Some("pending") => Status::Pending,
            Some(other) => {
                return Err(bad(format!(
                    "preferences[{i}]: status {other:?} is neither \"active\" nor \"pending\""
                )))
            }
        };
        let confidence = match p.get("confidence") {
            None | Some(Value::Null) => 1.0,
            Some(v) => v
                .as_f64()
                .filter(|c| (0.0..=1.0).contains(c))
                .ok_or_else(|| {
                    bad(format!(
                        "preferences[{i}]: confidence must be within [0, 1]"
                    ))
                })? as f32,
        };
        news.push((
            crate::memory::NewPreference {
                detail,
                attribute: attribute.to_string(),
                sentences,
            },
            status,
            confidence,
        ));
    }
    for r in optouts {
        memory.opt_out(user, r)?;
    }
    Ok(memory.import_as(user, news)?.len())
}
