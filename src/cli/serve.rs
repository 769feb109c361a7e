//! `glovebox serve`: opens the memory, warms the models, then runs the socket server until
//! SIGTERM or SIGINT.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::config::Config;
use crate::memory::Memory;

pub fn run(cfg: Config, dir: &Path, socket: Option<PathBuf>) -> Result<()> {
    use crate::ipc::server;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let _lock = server::DataDirLock::acquire(dir)?;
    let socket = socket
        .or_else(|| cfg.server.socket.clone())
        .unwrap_or_else(|| dir.join("glovebox.sock"));
    let memory = std::sync::Arc::new(
        Memory::open(dir, cfg.clone())
            .with_context(|| format!("cannot open the memory in {}", dir.display()))?,
    );
    // Load the LLM and evaluate the prompt prefixes before accepting anyone.
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
        let listener = server::bind(&socket)?;
        eprintln!(
            "glovebox: serving {} on {}",
            dir.display(),
            socket.display()
        );
        let shutdown = async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        };
        server::run(listener, memory, cfg.server.clone(), shutdown).await?;
        let _ = std::fs::remove_file(&socket);
        eprintln!("glovebox: stopped");
        Ok::<_, anyhow::Error>(())
    })
}
