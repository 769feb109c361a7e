//! The derived vector index and how it is kept in step with the store: each preference's
//! embedding text, the state the index reflects (saved beside it in `index.state`: the
//! embedding text's version, the embedder's identity and the fingerprint of the store),
//! reconciliation at open, and the commit that writes redb first and then the index.
//!
//! **Invariant:** `index.state` is written (durably, after the index files are) only for an
//! index that holds exactly the store's preferences, embedded from [`Memory::embedding_text`]
//! by the embedder it names; anything else found at open is rebuilt from the store.

use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use super::{lock, Memory, MemoryError, INDEX_FILE, INDEX_STATE_FILE};
use crate::embed::EMBED_DIM;
use crate::index::VectorIndex;
use crate::pref::Preference;
use crate::store::Change;
/// Saved in [`INDEX_STATE_FILE`]: an index built from another [`Memory::embedding_text`] is
/// rebuilt at open.
const EMBEDDING_TEXT_VERSION: &str = "text2";

/// What `index.state` records: the index is reused at open only when all three match.
#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct SavedState {
    text: String,
    /// [`embedder_identity`] of the embedder that produced the vectors.
    embedder: String,
    fingerprint: u64,
}

/// The identity of the embedder in `dir`: a hash (xxh3, stable across builds) of the content
/// of the files that determine its vectors. Another model, a fine-tune with the same shapes or
/// another tokenizer gives another identity, and the index is rebuilt with it.
pub(super) fn embedder_identity(dir: &Path) -> String {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for f in crate::cache::EMBEDDER_FILES {
        h.update(f.as_bytes());
        match std::fs::read(dir.join(f)) {
            Ok(bytes) => {
                h.update(&(bytes.len() as u64).to_le_bytes());
                h.update(&bytes);
            }
            Err(_) => h.update(b"missing"),
        }
    }
    format!("minilm:xxh3:{:016x}", h.digest())
}

pub(super) struct IndexState {
    pub(super) index: VectorIndex,
    /// XOR of the hashes of every stored (id, updated): order-free, so it is kept up to date
    /// change by change and compared in full at open.
    pub(super) fingerprint: u64,
}

pub(super) fn pref_hash(p: &Preference) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (p.id.0, p.updated.0).hash(&mut h);
    h.finish()
}

impl Memory {
    /// The text a preference is embedded from: "subcategory detail category: attribute.
    /// sentences". Recall queries name the subcategory far more often than the detail (dev
    /// split, all 50 users, embedder-only probe: top n .81 → .86 with the subcategory's name).
    pub fn embedding_text(&self, p: &Preference) -> String {
        let detail = self.schema.detail(p.detail);
        format!(
            "{} {}: {}. {}",
            self.schema.sub(detail.sub).name,
            detail.name,
            p.attribute,
            p.sentences.join(" ")
        )
    }

    pub(super) fn index_paths(&self) -> (PathBuf, PathBuf) {
        (self.dir.join(INDEX_FILE), self.dir.join(INDEX_STATE_FILE))
    }

    /// Loads the index if it reflects the store, otherwise rebuilds it. Returns whether it rebuilt.
    pub(super) fn reconcile_index(&mut self) -> Result<bool, MemoryError> {
        let prefs = self.store.all()?;
        let fingerprint = prefs.iter().fold(0u64, |f, p| f ^ pref_hash(p));
        let ids: BTreeSet<u64> = prefs.iter().map(|p| p.id.0).collect();
        let (index_path, state_path) = self.index_paths();
        let saved = std::fs::read(&state_path)
            .ok()
            .and_then(|b| serde_json::from_slice::<SavedState>(&b).ok());
        let now = self.saved_state(fingerprint);
        if saved.as_ref() == Some(&now) && index_path.exists() {
            match VectorIndex::load(&index_path, EMBED_DIM) {
                Ok(index) if index.keys() == ids => {
                    *lock(&self.index) = IndexState { index, fingerprint };
                    return Ok(false);
                }
                Ok(_) => tracing::warn!("index keys differ from the store: rebuilding"),
                Err(e) => tracing::warn!("cannot load the index ({e}): rebuilding"),
            }
        } else if index_path.exists() || !prefs.is_empty() {
            tracing::warn!("index is missing or out of step with the store: rebuilding");
        }
        let mut index = VectorIndex::new(EMBED_DIM)?;
        for chunk in prefs.chunks(64) {
            let vecs = self.embed(chunk.iter().map(|p| self.embedding_text(p)).collect())?;
            for (p, v) in chunk.iter().zip(vecs) {
                index.add(p.id.0, &v)?;
            }
        }
        let mut st = IndexState { index, fingerprint };
        self.save_index(&mut st)?;
        *lock(&self.index) = st;
        Ok(!prefs.is_empty() || saved.is_some())
    }

    pub(super) fn save_index(&self, st: &mut IndexState) -> Result<(), MemoryError> {
        let (index_path, state_path) = self.index_paths();
        st.index.save(&index_path)?;
        let state = serde_json::to_vec(&self.saved_state(st.fingerprint)).expect("serialises");
        // The index files are durable (`VectorIndex::save`) before the state that names them.
        crate::durable::write(&state_path, &state).map_err(|error| MemoryError::DataDir {
            path: state_path.clone(),
            error,
        })
    }

    fn saved_state(&self, fingerprint: u64) -> SavedState {
        SavedState {
            text: EMBEDDING_TEXT_VERSION.into(),
            embedder: self.models.embedder_id().to_string(),
            fingerprint,
        }
    }

    /// Commits `changes` to the store, then brings the index in step: `added` preferences are
    /// (re)embedded, `removed` ones dropped. Embedding happens before the commit, so a failure
    /// there leaves everything as it was.
    pub(super) fn commit(
        &self,
        changes: Vec<Change>,
        added: &[Preference],
        removed: &[Preference],
    ) -> Result<(), MemoryError> {
        let vecs = if added.is_empty() {
            Vec::new()
        } else {
            self.embed(added.iter().map(|p| self.embedding_text(p)).collect())?
        };
        self.store.apply(changes)?;
        let mut st = lock(&self.index);
        for p in removed {
            st.index.remove(p.id.0)?;
            st.fingerprint ^= pref_hash(p);
        }
        for (p, v) in added.iter().zip(vecs) {
            st.index.add(p.id.0, &v)?;
            st.fingerprint ^= pref_hash(p);
        }
        self.save_index(&mut st)
    }
}
