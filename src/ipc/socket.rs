//! The listening socket: bound with mode 0600, never over a live server's; and the `flock` that
//! keeps a second server off the same data directory.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use tokio::net::UnixListener;

/// Errors starting the server.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("another glovebox server is already listening on {0}")]
    InUse(PathBuf),
    #[error("another glovebox server is already using the data directory {0}")]
    Locked(PathBuf),
    #[error("socket {path}: {source}")]
    Socket {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Holds an exclusive `flock` on `<data dir>/glovebox.lock` while the server runs, so a second
/// server on the same data directory is refused with a clear message.
pub struct DataDirLock {
    _file: std::fs::File,
}

impl DataDirLock {
    pub fn acquire(dir: &Path) -> Result<DataDirLock, ServeError> {
        use std::os::fd::AsRawFd;
        let path = dir.join("glovebox.lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|source| ServeError::Socket {
                path: path.clone(),
                source,
            })?;
        // SAFETY: flock on a file descriptor this function owns; no memory is involved.
        let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if r != 0 {
            return Err(ServeError::Locked(dir.to_path_buf()));
        }
        Ok(DataDirLock { _file: file })
    }
}

/// Binds the socket with mode 0600. A socket file left by a crashed server is replaced; one a
/// live server answers on is not.
pub fn bind(path: &Path) -> Result<UnixListener, ServeError> {
    let err = |source| ServeError::Socket {
        path: path.to_path_buf(),
        source,
    };
    if path.exists() {
        if std::os::unix::net::UnixStream::connect(path).is_ok() {
            return Err(ServeError::InUse(path.to_path_buf()));
        }
        std::fs::remove_file(path).map_err(err)?;
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(err)?;
    }
    // SAFETY: umask only changes this process's file-creation mask; restored right after bind so
    // the socket is never reachable by others, not even for an instant.
    let old = unsafe { libc::umask(0o177) };
    let listener = UnixListener::bind(path);
    unsafe { libc::umask(old) };
    let listener = listener.map_err(err)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(err)?;
    Ok(listener)
}
