//! `glovebox serve`: opens the memory, warms the models, then runs the socket server until
//! SIGTERM or SIGINT, on the listening socket systemd passed (socket activation) or on one it
//! binds itself.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::config::Config;
use crate::memory::Memory;

pub fn run(cfg: Config, dir: &Path, socket: Option<PathBuf>) -> Result<()> {
    use crate::ipc::{server, socket as sock};
    // First, while this is the only thread: it reads and clears LISTEN_PID/LISTEN_FDS.
    let activated = server::from_systemd()?;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let _lock = server::DataDirLock::acquire(dir)?;
    let socket = sock::path(socket, cfg.server.socket.clone(), dir);
    let memory = std::sync::Arc::new(
        Memory::open(dir, cfg.clone())
            .with_context(|| format!("cannot open the memory in {}", dir.display()))?,
    );
    // Load the LLM and evaluate the prompt prefixes before accepting anyone (with socket
    // activation, clients that connect meanwhile wait in the socket's backlog).
    memory.models().warm_up()?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    rt.block_on(async {
        use tokio::signal::unix::{signal, SignalKind};
        // Handlers first: a signal that arrives once the socket exists is never missed.
        let mut term = signal(SignalKind::terminate()).context("cannot handle SIGTERM")?;
        let mut int = signal(SignalKind::interrupt()).context("cannot handle SIGINT")?;
        // A socket passed by systemd is systemd's: served as it is, never removed.
        let (listener, owned) = match activated {
            Some(l) => (
                tokio::net::UnixListener::from_std(l).context("cannot use the passed socket")?,
                false,
            ),
            None => (server::bind(&socket)?, true),
        };
        let shown = match owned {
            true => socket.display().to_string(),
            false => listener
                .local_addr()
                .ok()
                .and_then(|a| a.as_pathname().map(|p| p.display().to_string()))
                .map_or("the socket passed by systemd".into(), |p| {
                    format!("{p} (passed by systemd)")
                }),
        };
        eprintln!("glovebox: serving {} on {shown}", dir.display());
        let shutdown = async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        };
        server::run(listener, memory, cfg.server.clone(), shutdown).await?;
        if owned {
            let _ = std::fs::remove_file(&socket);
        }
        eprintln!("glovebox: stopped");
        Ok::<_, anyhow::Error>(())
    })
}
