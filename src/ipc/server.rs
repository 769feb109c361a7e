//! `glovebox serve`: the Unix-socket service for the infotainment stack.
//!
//! One task reads each connection's lines; each request then runs as its own task, so
//! responses may come out of order (ids match them up) and a recall never waits behind a
//! remember: remember waits for the LLM's thread, recall only for the embedder and the index.
//! Model work is bounded: when `server.queue` remember requests are already waiting, the next is
//! answered `busy`. With retention on, the housekeeping pass runs once a day on a blocking
//! thread. Shutdown (the `shutdown` future, SIGTERM/SIGINT in `serve`) stops accepting,
//! stops reading new requests, answers the ones in flight, then returns.

use std::future::Future;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{broadcast, mpsc, Semaphore};

use super::protocol::{self, Code, ForgetSpec, Op, Request, WireError, PROTOCOL_VERSION};
use super::wire::{WireCategory, WireHistory, WireOutcome, WirePreference, WireRecalled};
use crate::config::ServerConfig;
use crate::memory::{ForgetWhat, Memory};
use crate::pref::PreferenceId;

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

struct Shared {
    memory: Arc<Memory>,
    cfg: ServerConfig,
    allowed_uids: Vec<u32>,
    /// Permits for model work (remember) waiting or running.
    model_slots: Semaphore,
    connections: Arc<Semaphore>,
}

/// Serves until `shutdown` completes, then drains in-flight requests and returns.
pub async fn run(
    listener: UnixListener,
    memory: Arc<Memory>,
    cfg: ServerConfig,
    shutdown: impl Future,
) -> std::io::Result<()> {
    // SAFETY: getuid has no preconditions and cannot fail.
    let me = unsafe { libc::getuid() };
    let shared = Arc::new(Shared {
        allowed_uids: cfg.allowed_uids.clone().unwrap_or_else(|| vec![me]),
        model_slots: Semaphore::new(cfg.queue),
        connections: Arc::new(Semaphore::new(cfg.max_connections)),
        memory,
        cfg,
    });
    let housekeeping = shared
        .memory
        .config()
        .retention
        .expire_unused_days
        .map(|_| tokio::spawn(daily_housekeeping(shared.memory.clone())));
    let (notify_tx, _) = broadcast::channel::<()>(1);
    // Every connection and request task holds a clone; when all are dropped, all is answered.
    let (done_tx, mut done_rx) = mpsc::channel::<()>(1);
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => {
                let (stream, _) = match accepted {
                    Ok(s) => s,
                    Err(e) => {
                        tracing::warn!("accept failed: {e}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let shared = shared.clone();
                let notify = notify_tx.subscribe();
                let done = done_tx.clone();
                tokio::spawn(async move {
                    if let Err(e) = connection(stream, shared, notify, done).await {
                        tracing::debug!("connection ended: {e}");
                    }
                });
            }
        }
    }
    drop(listener);
    if let Some(h) = housekeeping {
        h.abort();
    }
    let _ = notify_tx.send(());
    drop(done_tx);
    let _ = done_rx.recv().await;
    Ok(())
}

/// How often a running server repeats the housekeeping pass (retention expiry).
pub const HOUSEKEEPING_EVERY: Duration = Duration::from_secs(24 * 3600);

/// Runs [`Memory::housekeeping`] every [`HOUSEKEEPING_EVERY`] (the first pass ran at open), on a
/// blocking thread: it writes the store and the index, never on the async workers.
async fn daily_housekeeping(memory: Arc<Memory>) {
    let start = tokio::time::Instant::now() + HOUSEKEEPING_EVERY;
    let mut tick = tokio::time::interval_at(start, HOUSEKEEPING_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let m = memory.clone();
        match tokio::task::spawn_blocking(move || m.housekeeping()).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => tracing::warn!("housekeeping failed: {e}"),
            Err(e) => tracing::warn!("housekeeping stopped: {e}"),
        }
    }
}

async fn send(tx: &mpsc::Sender<String>, line: String) {
    let _ = tx.send(line).await;
}

async fn connection(
    stream: UnixStream,
    shared: Arc<Shared>,
    mut notify: broadcast::Receiver<()>,
    done: mpsc::Sender<()>,
) -> std::io::Result<()> {
    let (mut rd, mut wr) = stream.into_split();
    let uid = rd.as_ref().peer_cred().map(|c| c.uid()).ok();
    if !uid.is_some_and(|u| shared.allowed_uids.contains(&u)) {
        tracing::warn!("refused a connection from uid {uid:?}: not in server.allowed_uids");
        let e = WireError::new(Code::Forbidden, "this uid may not use the glovebox socket");
        let _ = wr
            .write_all(format!("{}\n", protocol::error(None, &e)).as_bytes())
            .await;
        return Ok(());
    }
    let Ok(_conn_permit) = shared.connections.clone().try_acquire_owned() else {
        let e = WireError::new(
            Code::Busy,
            format!(
                "too many connections (server.max_connections = {})",
                shared.cfg.max_connections
            ),
        );
        let _ = wr
            .write_all(format!("{}\n", protocol::error(None, &e)).as_bytes())
            .await;
        return Ok(());
    };
    let (tx, mut rx) = mpsc::channel::<String>(64);
    let writer = tokio::spawn(async move {
        while let Some(line) = rx.recv().await {
            if wr.write_all(line.as_bytes()).await.is_err() || wr.write_all(b"\n").await.is_err() {
                break;
            }
        }
        let _ = wr.shutdown().await;
    });
    let max = shared.cfg.max_line_bytes;
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 16 * 1024];
    let mut hello = false;
    let mut discarding = false;
    'read: loop {
        let n = tokio::select! {
            _ = notify.recv() => break 'read,
            n = rd.read(&mut chunk) => n?,
        };
        if n == 0 {
            if !buf.is_empty() && !discarding {
                let e = WireError::new(
                    Code::TruncatedLine,
                    "the connection closed in the middle of a request line",
                );
                send(&tx, protocol::error(None, &e)).await;
            }
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
        while let Some(pos) = buf.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = buf.drain(..=pos).collect();
            if std::mem::take(&mut discarding) {
                continue; // the tail of an over-long line, already answered
            }
            if line.len() > max + 1 {
                let e = WireError::new(
                    Code::LineTooLong,
                    format!("request line longer than {max} bytes (server.max_line_bytes)"),
                );
                send(&tx, protocol::error(None, &e)).await;
                continue;
            }
            let line = line.strip_suffix(b"\n").unwrap_or(&line);
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match protocol::parse(line) {
                Err((id, e)) => send(&tx, protocol::error(id, &e)).await,
                Ok(Request {
                    id,
                    op: Op::Hello { version },
                }) => {
                    if version == PROTOCOL_VERSION {
                        hello = true;
                        send(&tx, protocol::ok(id, json!({"version": PROTOCOL_VERSION, "server": "glovebox", "server_version": env!("CARGO_PKG_VERSION")}))).await;
                    } else {
                        let e = WireError::new(Code::UnsupportedVersion, format!("protocol version {version} is not supported; this server speaks {PROTOCOL_VERSION}"));
                        send(&tx, protocol::error(Some(id), &e)).await;
                    }
                }
                Ok(Request { id, .. }) if !hello => {
                    let e = WireError::new(Code::HelloRequired, format!("the first request must be {{\"id\": 0, \"op\": \"hello\", \"version\": {PROTOCOL_VERSION}}}"));
                    send(&tx, protocol::error(Some(id), &e)).await;
                }
                Ok(req) => {
                    let shared = shared.clone();
                    let tx = tx.clone();
                    let done = done.clone();
                    tokio::spawn(async move {
                        let line = handle(&shared, req).await;
                        send(&tx, line).await;
                        drop(done);
                    });
                }
            }
        }
        if buf.len() > max {
            let e = WireError::new(
                Code::LineTooLong,
                format!("request line longer than {max} bytes (server.max_line_bytes)"),
            );
            send(&tx, protocol::error(None, &e)).await;
            buf.clear();
            discarding = true;
        }
    }
    drop(tx);
    let _ = writer.await;
    drop(done);
    Ok(())
}

/// Runs one request (model work off the async threads) under the request timeout.
async fn handle(shared: &Arc<Shared>, req: Request) -> String {
    let id = req.id;
    let _permit = if req.op.uses_llm() {
        match shared.model_slots.try_acquire() {
            Ok(p) => Some(p),
            Err(_) => {
                let e = WireError::new(
                    Code::Busy,
                    format!(
                        "{} remember requests are already waiting (server.queue)",
                        shared.cfg.queue
                    ),
                );
                return protocol::error(Some(id), &e);
            }
        }
    } else {
        None
    };
    let memory = shared.memory.clone();
    let work = tokio::task::spawn_blocking(move || execute(&memory, req.op));
    let timeout = Duration::from_millis(shared.cfg.request_timeout_ms);
    match tokio::time::timeout(timeout, work).await {
        Ok(Ok(Ok(v))) => protocol::ok(id, v),
        Ok(Ok(Err(e))) => protocol::error(Some(id), &e),
        Ok(Err(join)) => protocol::error(Some(id), &WireError::new(Code::Internal, format!("request failed: {join}"))),
        Err(_) => protocol::error(
            Some(id),
            &WireError::new(Code::Timeout, format!("no answer within {} ms (server.request_timeout_ms); the work may still complete", shared.cfg.request_timeout_ms)),
        ),
    }
}

/// Executes an operation against the memory; the JSON result is what the client receives.
pub fn execute(memory: &Memory, op: Op) -> Result<Value, WireError> {
    let schema = memory.schema().clone();
    let e = |e: crate::memory::MemoryError| WireError::from(&e);
    let category = |c: &str| {
        schema
            .resolve(c)
            .map_err(|err| WireError::new(Code::UnknownCategory, err.to_string()))
    };
    Ok(match op {
        Op::Hello { .. } => json!({"version": PROTOCOL_VERSION}),
        Op::Remember { user, conversation } => {
            let out = memory.remember(&user, &conversation).map_err(e)?;
            json!({ "remembered": out.iter().map(|o| WireOutcome::new(&schema, o)).collect::<Vec<_>>() })
        }
        Op::Recall { user, text, k } => {
            let k = k.unwrap_or(memory.config().recall.k);
            let hits = memory.recall(&user, &text, k).map_err(e)?;
            json!({ "recalled": hits.iter().map(|r| WireRecalled::new(&schema, r)).collect::<Vec<_>>() })
        }
        Op::List { user } => {
            let prefs = memory.list(&user).map_err(e)?;
            let optouts = memory.optouts(&user).map_err(e)?;
            json!({
                "preferences": prefs.iter().map(|p| WirePreference::new(&schema, p)).collect::<Vec<_>>(),
                "optouts": optouts.iter().map(|r| WireCategory::new(&schema, *r)).collect::<Vec<_>>(),
            })
        }
        Op::History { user } => {
            let h = memory.history(&user).map_err(e)?;
            json!({ "history": h.iter().map(|x| WireHistory::new(&schema, x)).collect::<Vec<_>>() })
        }
        Op::Forget { user, what } => {
            let what = match what {
                ForgetSpec::Id(id) => ForgetWhat::One(PreferenceId(id)),
                ForgetSpec::Category(c) => ForgetWhat::Category(category(&c)?),
                ForgetSpec::All => ForgetWhat::All,
            };
            let gone = memory.forget(&user, what).map_err(e)?;
            json!({ "forgotten": gone.len() })
        }
        Op::OptOut { user, category: c } => {
            let r = category(&c)?;
            let gone = memory.opt_out(&user, r).map_err(e)?;
            json!({ "optout": WireCategory::new(&schema, r), "deleted": gone.len() })
        }
        Op::OptIn { user, category: c } => {
            let r = category(&c)?;
            memory.opt_in(&user, r).map_err(e)?;
            json!({ "optin": WireCategory::new(&schema, r) })
        }
        Op::Export { user } => super::export::export(memory, &user).map_err(e)?,
        Op::Confirm { user, preference } => {
            let p = memory.confirm(&user, PreferenceId(preference)).map_err(e)?;
            json!({ "confirmed": WirePreference::new(&schema, &p) })
        }
        Op::Reject { user, preference } => {
            memory.reject(&user, PreferenceId(preference)).map_err(e)?;
            json!({ "rejected": preference })
        }
        Op::Status => json!({
            "server_version": env!("CARGO_PKG_VERSION"),
            "protocol": PROTOCOL_VERSION,
            "data_dir": memory.data_dir().display().to_string(),
            "preferences_indexed": memory.index_len(),
            "users": memory.store().users().map_err(|x| e(x.into()))?.len(),
            "llm": memory.config().models.llm.display().to_string(),
            "embedder": memory.config().models.embedder.display().to_string(),
        }),
    })
}
