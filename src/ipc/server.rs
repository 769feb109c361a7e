//! `glovebox serve`: the Unix-socket service for the infotainment stack.
//!
//! The accept loop hands each connection to its handler (`handler.rs`); each request then runs
//! as its own task, so responses may come out of order (ids match them up) and a recall never
//! waits behind a remember: remember waits for the LLM's thread, recall only for the embedder
//! and the index. With retention on, the housekeeping pass runs once a day on a blocking
//! thread. Shutdown (the `shutdown` future, SIGTERM/SIGINT in `serve`) stops accepting, stops
//! reading new requests, answers the ones in flight, then returns (`shutdown.rs`).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::UnixListener;
use tokio::sync::Semaphore;

pub use super::socket::{bind, from_systemd, DataDirLock, ServeError};
use super::{handler, shutdown::Coordinator};
use crate::config::ServerConfig;
use crate::memory::Memory;

/// What every connection shares.
pub(crate) struct Shared {
    pub memory: Arc<Memory>,
    pub cfg: ServerConfig,
    pub allowed_uids: Vec<u32>,
    /// Permits for model work (remember) waiting or running.
    pub model_slots: Semaphore,
    pub connections: Arc<Semaphore>,
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
    let coordinator = Coordinator::new();
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
                let (signal, drain) = coordinator.subscribe();
                tokio::spawn(async move {
                    if let Err(e) = handler::connection(stream, shared, signal, drain).await {
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
    coordinator.shut_down().await;
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
