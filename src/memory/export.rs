//! The export format's content: everything stored about one user (format `glovebox-export`,
//! version 1; its JSON form is written and read in `ops::wire`, described in docs/protocol.md),
//! and importing it under a user, checked before anything is stored.

use super::{Memory, MemoryError, NewPreference};
use crate::pref::{HistoryEntry, Millis, Preference, Status, UserId};
use crate::schema::CategoryRef;

/// The export format's name and version.
pub const EXPORT_FORMAT: &str = "glovebox-export";
pub const EXPORT_VERSION: u64 = 1;

/// Everything stored about one user.
#[derive(Debug, Clone)]
pub struct Export {
    pub user: UserId,
    pub exported: Millis,
    pub preferences: Vec<Preference>,
    pub history: Vec<HistoryEntry>,
    pub optouts: Vec<CategoryRef>,
}

/// What an import stores: opt-outs, and preferences with their status (pending stays pending)
/// and confidence.
#[derive(Debug, Clone, Default)]
pub struct Import {
    pub optouts: Vec<CategoryRef>,
    pub preferences: Vec<(NewPreference, Status, f32)>,
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

/// Everything stored about `user`.
pub fn export(memory: &Memory, user: &UserId) -> Result<Export, MemoryError> {
    Ok(Export {
        user: user.clone(),
        exported: Millis::now(),
        preferences: memory.list(user)?,
        history: memory.history(user)?,
        optouts: memory.optouts(user)?,
    })
}

/// Stores an import's preferences and opt-outs under `user` (moving a profile to a new car).
/// Everything is checked before anything is stored: a preference in a category opted out (by
/// the user already, or by the document) refuses the whole import. Returns how many
/// preferences were imported.
pub fn import(memory: &Memory, user: &UserId, doc: Import) -> Result<usize, ImportError> {
    let schema = memory.schema();
    let mut allowed = memory.allowed(user)?;
    for r in &doc.optouts {
        for d in schema.details_of(*r) {
            allowed.remove(d);
        }
    }
    for (i, (p, _, _)) in doc.preferences.iter().enumerate() {
        if !allowed.contains(p.detail) {
            let key = &schema.detail(p.detail).key;
            return Err(ImportError::OptedOut(format!(
                "preferences[{i}] is in {key:?}, which {user} has opted out of (opt in first, or leave it out of the file)"
            )));
        }
    }
    for r in doc.optouts {
        memory.opt_out(user, r)?;
    }
    Ok(memory.import_as(user, doc.preferences)?.len())
}
