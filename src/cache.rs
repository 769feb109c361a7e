//! The on-disk caches of model state that is the same in every process: the evaluated prompt
//! prefixes' KV files (`prefix-kv/`, loaded and saved by `llm`) and the built-in texts'
//! embeddings (`embeddings/`, used by `memory::Models`). Both live in the user's cache
//! directory, only when `llm.prefix_cache` is on, under a key of everything that determines
//! their content; a file is written through a temporary name and a rename, best effort (a cache
//! that cannot be written costs time at the next start, nothing else).
//!
//! It sits below both `llm` and `memory`, so that `llm` does not depend on `memory`.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The files of an embedder's folder that determine its vectors.
pub const EMBEDDER_FILES: [&str; 3] = ["model.safetensors", "tokenizer.json", "config.json"];

/// The directory of one kind of cache file (`prefix-kv`, `embeddings`) in the user's cache
/// directory, or `None` when caching is off or there is no home directory.
pub fn dir(enabled: bool, kind: &str) -> Option<PathBuf> {
    enabled
        .then(|| directories::ProjectDirs::from("", "", "glovebox"))
        .flatten()
        .map(|d| d.cache_dir().join(kind))
}

/// The KV file of an evaluated prompt prefix: keyed by the model file (path, size, mtime), the
/// prefix and the context settings. Anything else gives another file.
pub fn prefix_file(dir: &Path, model: &Path, prefix: &str, context: u32, batch: u32) -> PathBuf {
    let mut h = DefaultHasher::new();
    model.hash(&mut h);
    stamp(&mut h, model);
    prefix.hash(&mut h);
    (context, batch, env!("CARGO_PKG_VERSION")).hash(&mut h);
    dir.join(format!("{:016x}.kv", h.finish()))
}

/// The embeddings file of built-in texts: keyed by the embedder's directory and files (size,
/// mtime) and the texts.
pub fn embeddings_file(dir: &Path, embedder: &Path, texts: &[String]) -> PathBuf {
    let mut h = DefaultHasher::new();
    embedder.hash(&mut h);
    for f in EMBEDDER_FILES {
        stamp(&mut h, &embedder.join(f));
    }
    texts.hash(&mut h);
    env!("CARGO_PKG_VERSION").hash(&mut h);
    dir.join(format!("{:016x}.f32", h.finish()))
}

/// Hashes a file's size and modification time, if it can be read.
fn stamp(h: &mut DefaultHasher, file: &Path) {
    if let Ok(m) = std::fs::metadata(file) {
        m.len().hash(h);
        m.modified().ok().hash(h);
    }
}

/// Writes a cache file: `write` fills a temporary file beside `path` (creating the directory),
/// which is then renamed into place. Returns whether the file was written; on failure nothing
/// is left behind.
pub fn publish(path: &Path, write: impl FnOnce(&Path) -> bool) -> bool {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let n = SEQ.fetch_add(1, Ordering::Relaxed);
    let tmp = path.with_extension(format!("tmp{}-{n}", std::process::id()));
    let ok = std::fs::create_dir_all(path.parent().unwrap_or(Path::new("."))).is_ok()
        && write(&tmp)
        && std::fs::rename(&tmp, path).is_ok();
    if !ok {
        let _ = std::fs::remove_file(&tmp);
    }
    ok
}

/// Reads `n` vectors of `dim` floats written by [`write_vectors`]; `None` if the file is missing
/// or has any other size.
pub fn read_vectors(path: &Path, n: usize, dim: usize) -> Option<Vec<Vec<f32>>> {
    let bytes = std::fs::read(path).ok()?;
    if n == 0 || bytes.len() != n * dim * 4 {
        return None;
    }
    let floats: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    Some(floats.chunks(dim).map(<[f32]>::to_vec).collect())
}

/// Writes vectors as little-endian f32 ([`publish`]). Returns whether they were written.
pub fn write_vectors(path: &Path, vecs: &[Vec<f32>]) -> bool {
    let bytes: Vec<u8> = vecs
        .iter()
        .flatten()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    publish(path, |tmp| std::fs::write(tmp, bytes).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_round_trip_and_a_wrong_size_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("sub").join("v.f32");
        let vecs = vec![vec![1.0, -2.5], vec![0.0, 3.25]];
        assert!(write_vectors(&f, &vecs));
        assert_eq!(read_vectors(&f, 2, 2), Some(vecs));
        assert_eq!(read_vectors(&f, 3, 2), None);
        assert_eq!(read_vectors(&dir.path().join("none"), 2, 2), None);
    }

    #[test]
    fn keys_change_with_what_the_content_depends_on() {
        let d = Path::new("/c");
        let m = Path::new("/m.gguf");
        let a = prefix_file(d, m, "prefix", 2048, 512);
        assert_eq!(a, prefix_file(d, m, "prefix", 2048, 512));
        assert_ne!(a, prefix_file(d, m, "prefix!", 2048, 512));
        assert_ne!(a, prefix_file(d, m, "prefix", 4096, 512));
        let t = vec!["a".to_string()];
        assert_ne!(
            embeddings_file(d, m, &t),
            embeddings_file(d, m, &["b".to_string()])
        );
    }
}
