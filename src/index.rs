//! The vector index: usearch (HNSW, cosine, f32), one vector per preference, keyed by
//! preference id. Derived from the store and rebuildable; it knows nothing of users or categories.
//!
//! Search takes a key filter (one user's active preferences). HNSW search under a very
//! selective filter can miss results, and one user holds tens of preferences among possibly
//! thousands, so when at most [`EXACT_LIMIT`] keys pass the filter the search is exact over their
//! stored vectors; above that it is usearch's filtered graph search.
//!
//! usearch cannot list its keys, so the key set is kept beside the index in memory and saved in
//! a sidecar file (`<index>.keys`); a sidecar that disagrees with the index is a damaged index.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::durable;

use usearch::{Index, IndexOptions, MetricKind, ScalarKind};

/// Filters passing at most this many keys are searched exactly.
pub const EXACT_LIMIT: usize = 2048;

/// Errors of the vector index.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("vector index {path}: {message}")]
    File { path: PathBuf, message: String },
    #[error("vector index: {0}")]
    Usearch(String),
    #[error("vector of dimension {got} given to an index of dimension {want}")]
    Dimension { got: usize, want: usize },
}

fn ux(e: impl std::fmt::Display) -> IndexError {
    IndexError::Usearch(e.to_string())
}

/// The ANN index with its key set.
pub struct VectorIndex {
    index: Index,
    keys: BTreeSet<u64>,
    dim: usize,
}

fn options(dim: usize) -> IndexOptions {
    // usearch's defaults are 256 dimensions in BF16: set everything explicitly.
    IndexOptions {
        dimensions: dim,
        metric: MetricKind::Cos,
        quantization: ScalarKind::F32,
        connectivity: 16,
        expansion_add: 128,
        expansion_search: 128,
        multi: false,
    }
}

fn keys_path(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".keys");
    PathBuf::from(p)
}

impl VectorIndex {
    /// An empty index of dimension `dim`.
    pub fn new(dim: usize) -> Result<VectorIndex, IndexError> {
        let index = Index::new(&options(dim)).map_err(ux)?;
        Ok(VectorIndex {
            index,
            keys: BTreeSet::new(),
            dim,
        })
    }

    /// Loads a saved index (writable, not a view). A damaged file, a missing or disagreeing key
    /// sidecar, or another dimension is an error naming the file.
    pub fn load(path: &Path, dim: usize) -> Result<VectorIndex, IndexError> {
        let bad = |message: String| IndexError::File {
            path: path.to_path_buf(),
            message,
        };
        let p = path
            .to_str()
            .ok_or_else(|| bad("path is not UTF-8".into()))?;
        let meta = Index::metadata(p).map_err(|e| bad(format!("unreadable: {}", e)))?;
        if meta.dimensions as usize != dim {
            return Err(bad(format!(
                "holds {}-d vectors, expected {dim}",
                meta.dimensions
            )));
        }
        let index = Index::new(&options(dim)).map_err(ux)?;
        index
            .load(p)
            .map_err(|e| bad(format!("unreadable: {}", e)))?;
        let kp = keys_path(path);
        let keys: BTreeSet<u64> = std::fs::read(&kp)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .ok_or_else(|| {
                bad(format!(
                    "key list {} is missing or unreadable",
                    kp.display()
                ))
            })?;
        if keys.len() != index.size() || keys.iter().any(|k| !index.contains(*k)) {
            return Err(bad("key list disagrees with the index".into()));
        }
        Ok(VectorIndex { index, keys, dim })
    }

    /// Saves the index and its key list durably: each is written to a temporary file, fsynced,
    /// renamed into place, and the directory fsynced (`crate::durable`), so the caller may
    /// then write a state that names them.
    pub fn save(&self, path: &Path) -> Result<(), IndexError> {
        let bad = |message: String| IndexError::File {
            path: path.to_path_buf(),
            message,
        };
        let tmp = durable::tmp_path(path);
        let t = tmp
            .to_str()
            .ok_or_else(|| bad("path is not UTF-8".into()))?;
        self.index.save(t).map_err(|e| bad(e.to_string()))?;
        let kp = keys_path(path);
        let ktmp = durable::tmp_path(&kp);
        durable::sync_file(&tmp).map_err(|e| bad(e.to_string()))?;
        let json = serde_json::to_vec(&self.keys).expect("a set of integers serialises");
        durable::write_synced(&ktmp, &json).map_err(|e| bad(e.to_string()))?;
        std::fs::rename(&tmp, path).map_err(|e| bad(e.to_string()))?;
        durable::rename(&ktmp, &kp).map_err(|e| bad(e.to_string()))?;
        Ok(())
    }

    /// Adds a vector under `key`, replacing any vector already there.
    pub fn add(&mut self, key: u64, vector: &[f32]) -> Result<(), IndexError> {
        if vector.len() != self.dim {
            return Err(IndexError::Dimension {
                got: vector.len(),
                want: self.dim,
            });
        }
        if self.index.contains(key) {
            self.index.remove(key).map_err(ux)?;
        }
        if self.index.size() + 1 > self.index.capacity() {
            let cap = (self.index.capacity() * 2).max(64);
            self.index.reserve(cap).map_err(ux)?;
        }
        self.index.add(key, vector).map_err(ux)?;
        self.keys.insert(key);
        Ok(())
    }

    /// Removes `key`; a missing key is not an error.
    pub fn remove(&mut self, key: u64) -> Result<(), IndexError> {
        if self.keys.remove(&key) {
            self.index.remove(key).map_err(ux)?;
        }
        Ok(())
    }

    pub fn contains(&self, key: u64) -> bool {
        self.keys.contains(&key)
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub fn keys(&self) -> BTreeSet<u64> {
        self.keys.clone()
    }

    /// The top `k` keys passing `filter` by cosine similarity to `query`, best first.
    pub fn search(
        &self,
        query: &[f32],
        k: usize,
        filter: impl Fn(u64) -> bool,
    ) -> Result<Vec<(u64, f32)>, IndexError> {
        if query.len() != self.dim {
            return Err(IndexError::Dimension {
                got: query.len(),
                want: self.dim,
            });
        }
        if k == 0 || self.keys.is_empty() {
            return Ok(Vec::new());
        }
        let allowed: Vec<u64> = self
            .keys
            .iter()
            .copied()
            .filter(|&key| filter(key))
            .take(EXACT_LIMIT + 1)
            .collect();
        if allowed.len() <= EXACT_LIMIT {
            let mut buf = vec![0f32; self.dim];
            let mut scored = Vec::with_capacity(allowed.len());
            for key in allowed {
                self.index.get(key, &mut buf).map_err(ux)?;
                scored.push((key, cosine_any(query, &buf)));
            }
            scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            scored.truncate(k);
            return Ok(scored);
        }
        let m = self.index.filtered_search(query, k, filter).map_err(ux)?;
        Ok(m.keys
            .into_iter()
            .zip(m.distances)
            .map(|(key, d)| (key, 1.0 - d))
            .collect())
    }
}

/// Cosine similarity of two vectors of any length (usearch's own metric, for exact search).
fn cosine_any(a: &[f32], b: &[f32]) -> f32 {
    let (mut ab, mut aa, mut bb) = (0f32, 0f32, 0f32);
    for (x, y) in a.iter().zip(b) {
        ab += x * y;
        aa += x * x;
        bb += y * y;
    }
    if aa == 0.0 || bb == 0.0 {
        0.0
    } else {
        ab / (aa.sqrt() * bb.sqrt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic pseudo-random unit vector.
    fn vector(seed: u64, dim: usize) -> Vec<f32> {
        let mut x = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut v: Vec<f32> = (0..dim)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 10_000) as f32 / 5_000.0 - 1.0
            })
            .collect();
        let n = v.iter().map(|a| a * a).sum::<f32>().sqrt();
        v.iter_mut().for_each(|a| *a /= n);
        v
    }

    fn brute(vs: &[(u64, Vec<f32>)], q: &[f32], k: usize, f: impl Fn(u64) -> bool) -> Vec<u64> {
        let mut s: Vec<(u64, f32)> = vs
            .iter()
            .filter(|(key, _)| f(*key))
            .map(|(key, v)| (*key, cosine_any(q, v)))
            .collect();
        s.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        s.into_iter().take(k).map(|(key, _)| key).collect()
    }

    #[test]
    fn filtered_search_matches_brute_force_for_one_user() {
        let dim = 32;
        let mut idx = VectorIndex::new(dim).unwrap();
        let vs: Vec<(u64, Vec<f32>)> = (0..5000).map(|k| (k, vector(k, dim))).collect();
        for (k, v) in &vs {
            idx.add(*k, v).unwrap();
        }
        for q in 0..20 {
            let query = vector(100_000 + q, dim);
            let user = q % 50;
            let got: Vec<u64> = idx
                .search(&query, 5, |k| k % 50 == user)
                .unwrap()
                .into_iter()
                .map(|x| x.0)
                .collect();
            assert_eq!(got, brute(&vs, &query, 5, |k| k % 50 == user));
        }
        // Unfiltered (large allowed set) still finds the exact nearest of a stored vector.
        let got = idx.search(&vs[1234].1, 1, |_| true).unwrap();
        assert_eq!(got[0].0, 1234);
        assert!((got[0].1 - 1.0).abs() < 1e-4);
    }

    #[test]
    fn add_replace_remove_save_load() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("i.usearch");
        let mut idx = VectorIndex::new(8).unwrap();
        idx.add(1, &vector(1, 8)).unwrap();
        idx.add(2, &vector(2, 8)).unwrap();
        idx.add(1, &vector(3, 8)).unwrap(); // replace
        assert_eq!(idx.len(), 2);
        let hit = idx.search(&vector(3, 8), 1, |_| true).unwrap();
        assert_eq!(hit[0].0, 1);
        idx.remove(2).unwrap();
        idx.remove(42).unwrap();
        idx.save(&path).unwrap();
        let back = VectorIndex::load(&path, 8).unwrap();
        assert_eq!(back.keys(), BTreeSet::from([1]));
        assert!(matches!(
            idx.add(5, &[0.0; 3]),
            Err(IndexError::Dimension { got: 3, want: 8 })
        ));
    }

    #[test]
    fn damaged_files_are_errors_naming_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("i.usearch");
        std::fs::write(&path, b"not an index at all").unwrap();
        let e = VectorIndex::load(&path, 8).err().unwrap().to_string();
        assert!(e.contains("i.usearch"), "{e}");
        let mut idx = VectorIndex::new(8).unwrap();
        idx.add(1, &vector(1, 8)).unwrap();
        idx.save(&path).unwrap();
        let e = VectorIndex::load(&path, 16).err().unwrap().to_string();
        assert!(e.contains("expected 16"), "{e}");
        std::fs::remove_file(keys_path(&path)).unwrap();
        let e = VectorIndex::load(&path, 8).err().unwrap().to_string();
        assert!(e.contains("key list"), "{e}");
    }
}
