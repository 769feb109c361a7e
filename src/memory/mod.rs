//! The memory of one data directory: extraction, maintenance and recall over the store (redb,
//! the source of truth) and the vector index (usearch, derived from it).
//!
//! **Invariant:** only this module writes to the store and the index. Every change is
//! committed to redb first, in one transaction; the index follows. The index file carries a
//! fingerprint of the store state it reflects; when it is missing, unreadable or out of step
//! (a crash between the two writes), opening rebuilds it from redb.

pub mod condition;
pub mod confidence;
mod confirm;
pub mod correction;
pub mod counters;
pub mod export;
pub mod extract;
mod extraction;
mod forget;
pub mod gate;
mod import;
mod index_state;
pub mod lifecycle;
pub mod maintain;
mod models;
pub mod offer;
pub mod prior;
mod recall;
pub mod relevance;
mod remember;
pub mod retention;
pub mod step;
pub mod typed;
pub mod unnamed;
pub mod usual;
pub mod values;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::config::Config;
use crate::conversation::ConversationError;
use crate::embed::{EmbedError, EMBED_DIM};
use crate::index::{IndexError, VectorIndex};
use crate::llm::{Llm, LlmError};
use crate::pref::{HistoryEntry, Maintenance, Preference, PreferenceId, UserId};
use crate::schema::{CategoryRef, DetailId, Schema, SchemaError};
use crate::store::{Store, StoreError};
use crate::worker::WorkerError;

pub use extract::{Candidate, Extracted, Prototype};
pub use extraction::{Extraction, OfferInputs, SentenceView};
pub use models::Models;
pub use prior::SubPrior;
pub use recall::{Recalled, RERANK};

use index_state::IndexState;

/// File names inside a data directory.
pub const STORE_FILE: &str = "glovebox.redb";
pub const INDEX_FILE: &str = "index.usearch";
pub const INDEX_STATE_FILE: &str = "index.state";

/// Most sentences kept as evidence on one preference (the oldest are dropped first).
pub const MAX_SENTENCES: usize = 8;

/// Errors of the memory layer: each says what was wrong.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Embed(#[from] EmbedError),
    #[error(transparent)]
    Llm(#[from] LlmError),
    #[error(transparent)]
    Worker(#[from] WorkerError),
    #[error(transparent)]
    Conversation(#[from] ConversationError),
    #[error(transparent)]
    Schema(#[from] SchemaError),
    #[error(transparent)]
    Extraction(#[from] extract::ParseError),
    #[error(transparent)]
    Gate(#[from] gate::GateError),
    #[error(transparent)]
    Relevance(#[from] relevance::RelevanceError),
    #[error(transparent)]
    Offer(#[from] offer::OfferError),
    #[error(transparent)]
    Gazetteer(#[from] crate::gazetteer::GazetteerError),
    #[error(transparent)]
    Maintenance(#[from] maintain::ParseError),
    #[error(transparent)]
    User(#[from] crate::pref::InvalidUserId),
    #[error("user {user} has no preference with id {id}")]
    NotFound { user: String, id: PreferenceId },
    #[error("preference {id} of user {user} is not pending confirmation (it is already active)")]
    NotPending { user: String, id: PreferenceId },
    // An io error is said in the message and not marked as the source: the command line
    // prints an error's chain, and would say it twice.
    #[error("cannot use data directory {path}: {error}")]
    DataDir {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("cannot read {path}: {error}")]
    ReadFile {
        path: PathBuf,
        error: std::io::Error,
    },
}

/// What remembering one extracted preference did.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Whose preference it is: the speaker of the words it was read from.
    pub user: UserId,
    pub extracted: Extracted,
    pub op: Maintenance,
    /// The stored preference after the operation.
    pub preference: Preference,
    /// The stored preference the operation replaced (update) or confirmed (pass).
    pub previous: Option<Preference>,
}

/// A preference to store as it is, without extraction or maintenance (import, evaluation).
#[derive(Debug, Clone)]
pub struct NewPreference {
    pub detail: DetailId,
    pub attribute: String,
    pub sentences: Vec<String>,
    /// The situation in which alone it holds (`Preference::condition`).
    pub condition: Option<String>,
}

/// What `forget` removes.
#[derive(Debug, Clone, Copy)]
pub enum ForgetWhat {
    One(PreferenceId),
    Category(CategoryRef),
    All,
}

/// The memory runtime of one data directory.
pub struct Memory {
    models: Arc<Models>,
    schema: Arc<Schema>,
    dir: PathBuf,
    store: Store,
    index: Mutex<IndexState>,
    /// Serialises read-decide-write sequences on the store (maintenance reads what it replaces).
    write: Mutex<()>,
    /// Set when the index had to be rebuilt at open.
    rebuilt: bool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock leaves plain data behind; keep serving.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Memory {
    /// Opens (creating if needed) the data directory with freshly loaded models.
    pub fn open(dir: &Path, cfg: Config) -> Result<Memory, MemoryError> {
        Memory::open_with(dir, Models::load(&cfg)?)
    }

    /// Opens (creating if needed) the data directory: the store and the index, rebuilding the
    /// index from the store when it is missing or out of step. The memory runs under the
    /// models' configuration ([`Models::config`], the one owner of the `Config`).
    pub fn open_with(dir: &Path, models: Arc<Models>) -> Result<Memory, MemoryError> {
        std::fs::create_dir_all(dir).map_err(|error| MemoryError::DataDir {
            path: dir.to_path_buf(),
            error,
        })?;
        let schema = models.schema.clone();
        let store = Store::open(&dir.join(STORE_FILE), schema.clone())?;
        let mut m = Memory {
            models,
            schema,
            dir: dir.to_path_buf(),
            store,
            index: Mutex::new(IndexState {
                index: VectorIndex::new(EMBED_DIM)?,
                fingerprint: 0,
            }),
            write: Mutex::new(()),
            rebuilt: false,
        };
        m.rebuilt = m.reconcile_index()?;
        // Retention's housekeeping pass at start (the server repeats it daily).
        m.housekeeping()?;
        Ok(m)
    }

    pub fn models(&self) -> &Arc<Models> {
        &self.models
    }

    pub fn schema(&self) -> &Arc<Schema> {
        &self.schema
    }

    /// The configuration in force: its models' ([`Models::config`]).
    pub fn config(&self) -> &Config {
        self.models.config()
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn data_dir(&self) -> &Path {
        &self.dir
    }

    /// Whether opening had to rebuild the vector index from the store.
    pub fn index_was_rebuilt(&self) -> bool {
        self.rebuilt
    }

    /// Number of vectors in the index.
    pub fn index_len(&self) -> usize {
        lock(&self.index).index.len()
    }

    fn embed(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, MemoryError> {
        self.models.embed(texts)
    }

    fn load_llm(&self) -> Result<&Llm, MemoryError> {
        self.models.load_llm()
    }

    pub fn list(&self, user: &UserId) -> Result<Vec<Preference>, MemoryError> {
        Ok(self.store.list(user)?)
    }

    pub fn history(&self, user: &UserId) -> Result<Vec<HistoryEntry>, MemoryError> {
        Ok(self.store.history(user)?)
    }
}
