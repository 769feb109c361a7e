//! Durable file replacement: write to a temporary name, fsync the file, rename it into place,
//! fsync the directory. After [`replace`] returns, the new content survives a power cut under
//! its final name; before, the old content does. Used for the index files and the index state,
//! which must reach the disk before the state that names them.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// `path` with `.tmp` appended (same directory, so the rename is atomic).
pub fn tmp_path(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".tmp");
    PathBuf::from(p)
}

/// Flushes a file's content to the disk.
pub fn sync_file(path: &Path) -> std::io::Result<()> {
    File::open(path)?.sync_all()
}

/// Flushes a directory's entries (renames, creations) to the disk.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    File::open(dir)?.sync_all()
}

/// Creates (or truncates) `path` with `bytes` and fsyncs it; no rename.
pub fn write_synced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut f = File::create(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

/// Writes `bytes` to `path` durably (temporary file, fsync, rename, fsync of the directory).
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = tmp_path(path);
    write_synced(&tmp, bytes)?;
    rename(&tmp, path)
}

/// Renames an already-synced `tmp` onto `path` and makes the rename durable.
pub fn rename(tmp: &Path, path: &Path) -> std::io::Result<()> {
    std::fs::rename(tmp, path)?;
    sync_dir(path.parent().unwrap_or(Path::new(".")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_replaces_the_content_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("state");
        write(&p, b"one").unwrap();
        write(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert!(!tmp_path(&p).exists());
    }
}
