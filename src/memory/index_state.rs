//! The derived vector index and how it is kept in step with the store: each preference's
//! embedding text, the fingerprint of the store state the index reflects (saved beside it in
//! `index.state`), reconciliation at open, and the commit that writes redb first and then the
//! index.

use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;

use super::{lock, Memory, MemoryError, INDEX_FILE, INDEX_STATE_FILE};
use crate::embed::EMBED_DIM;
use crate::index::VectorIndex;
use crate::pref::Preference;
use crate::store::Change;
/// Written before the fingerprint in [`INDEX_STATE_FILE`]: an index built from another
/// [`Memory::embedding_text`] is rebuilt at open.
const EMBEDDING_TEXT_VERSION: &str = "text2";

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
        let saved_fp = std::fs::read_to_string(&state_path).ok().and_then(|s| {
            s.trim()
                .strip_prefix(EMBEDDING_TEXT_VERSION)
                .and_then(|f| f.trim().parse::<u64>().ok())
        });
        if saved_fp == Some(fingerprint) && index_path.exists() {
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
        Ok(!prefs.is_empty() || saved_fp.is_some())
    }

    pub(super) fn save_index(&self, st: &mut IndexState) -> Result<(), MemoryError> {
        let (index_path, state_path) = self.index_paths();
        st.index.save(&index_path)?;
        let tmp = state_path.with_extension("state.tmp");
        let io = |source| MemoryError::DataDir {
            path: state_path.clone(),
            source,
        };
        std::fs::write(&tmp, format!("{EMBEDDING_TEXT_VERSION} {}", st.fingerprint)).map_err(io)?;
        std::fs::rename(&tmp, &state_path).map_err(io)?;
        Ok(())
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
