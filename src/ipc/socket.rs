//! The listening socket: bound with mode 0600, never over a live server's, or passed by systemd
//! (socket activation); and the `flock` that keeps a second server off the same data directory.

use std::os::fd::{FromRawFd, RawFd};
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
    #[error("socket activation: {0}")]
    Activation(String),
    // The io error is in the message, not marked as the source (see `MemoryError::DataDir`).
    #[error("socket {path}: {error}")]
    Socket {
        path: PathBuf,
        error: std::io::Error,
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
            .map_err(|error| ServeError::Socket {
                path: path.clone(),
                error,
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
    let err = |error| ServeError::Socket {
        path: path.to_path_buf(),
        error,
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

/// The socket's file name in the data directory when neither `--socket` nor `server.socket`
/// names one.
pub const SOCKET_FILE: &str = "glovebox.sock";

/// Where the server listens and a client connects: `given` (`--socket`), else `configured`
/// (`server.socket`), else [`SOCKET_FILE`] in the data directory.
pub fn path(given: Option<PathBuf>, configured: Option<PathBuf>, data_dir: &Path) -> PathBuf {
    given
        .or(configured)
        .unwrap_or_else(|| data_dir.join(SOCKET_FILE))
}

/// The first file descriptor a service manager passes (`SD_LISTEN_FDS_START`).
const LISTEN_FDS_START: RawFd = 3;

/// The listening socket systemd passed to this process (socket activation, as
/// `sd_listen_fds(3)` reads it): `LISTEN_PID` is this process and `LISTEN_FDS` is 1, the socket
/// being file descriptor 3. `None` when nothing was passed (the server binds its own). The
/// variables are removed, as `sd_listen_fds(1)` does, so that no child takes the socket for its
/// own. Call it before any other thread starts: it changes the environment.
///
/// The socket file belongs to systemd: the server neither replaces nor removes it.
pub fn from_systemd() -> Result<Option<std::os::unix::net::UnixListener>, ServeError> {
    let pid = std::env::var("LISTEN_PID").ok();
    let fds = std::env::var("LISTEN_FDS").ok();
    for v in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] {
        std::env::remove_var(v);
    }
    let (Some(pid), Some(fds)) = (pid, fds) else {
        return Ok(None);
    };
    if pid.trim().parse::<u32>().ok() != Some(std::process::id()) {
        return Ok(None); // meant for another process (the variables were inherited)
    }
    let bad = |m: String| Err(ServeError::Activation(m));
    let fail = ServeError::Activation;
    match fds.trim().parse::<u32>() {
        Ok(0) => return Ok(None),
        Ok(1) => {}
        Ok(n) => {
            return bad(format!(
                "systemd passed {n} sockets; glovebox serves one (one ListenStream= in its .socket unit)"
            ))
        }
        Err(_) => return bad(format!("LISTEN_FDS={fds:?} is not a number")),
    }
    let fd = LISTEN_FDS_START;
    check_listening_unix_socket(fd).map_err(|m| fail(format!("file descriptor {fd}: {m}")))?;
    // SAFETY: fcntl on a descriptor checked above to be open; only its close-on-exec flag
    // changes, so that a child process does not inherit the socket.
    unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    // SAFETY: fd 3 is an open, listening Unix stream socket (checked above) that systemd passed
    // to this process; nothing else in the process owns it, and this function takes it at most
    // once (the variables that announce it are removed above).
    let listener = unsafe { std::os::unix::net::UnixListener::from_raw_fd(fd) };
    listener
        .set_nonblocking(true)
        .map_err(|e| fail(format!("cannot make the socket non-blocking: {e}")))?;
    Ok(Some(listener))
}

/// Whether `fd` is a Unix stream socket that is listening; otherwise what it is instead.
fn check_listening_unix_socket(fd: RawFd) -> Result<(), String> {
    // SAFETY: fstat writes into the zeroed stat it is given; an invalid fd makes it fail with
    // EBADF, nothing else.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return Err(format!("not open ({})", std::io::Error::last_os_error()));
    }
    if st.st_mode & libc::S_IFMT != libc::S_IFSOCK {
        return Err("not a socket".into());
    }
    let opt = |name: libc::c_int| -> Result<libc::c_int, String> {
        let mut v: libc::c_int = 0;
        let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
        // SAFETY: getsockopt writes at most `len` bytes into `v`, an int of that size.
        let r = unsafe {
            libc::getsockopt(
                fd,
                libc::SOL_SOCKET,
                name,
                (&mut v as *mut libc::c_int).cast(),
                &mut len,
            )
        };
        if r != 0 {
            return Err(std::io::Error::last_os_error().to_string());
        }
        Ok(v)
    };
    if opt(libc::SO_DOMAIN)? != libc::AF_UNIX {
        return Err("not a Unix domain socket (ListenStream= must be a path)".into());
    }
    if opt(libc::SO_TYPE)? != libc::SOCK_STREAM {
        return Err("not a stream socket (use ListenStream=, not ListenDatagram=)".into());
    }
    if opt(libc::SO_ACCEPTCONN)? == 0 {
        return Err("not listening (Accept=no is required)".into());
    }
    Ok(())
}
