//! The benchmark harnesses on the command line (`glovebox eval`, `glovebox bench`); built only
//! with the `harness` feature, so the head unit's binary has none of them.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Subcommand;

use super::Output;
use crate::config::Config;

#[derive(Debug, Subcommand)]
pub enum EvalCommand {
    /// The CarMem protocol (extraction in and out of schema, maintenance, retrieval).
    Carmem {
        /// CarMem JSONL file, one user per line (e.g. ../shared/carmem/dev.jsonl).
        #[arg(long, value_name = "FILE")]
        data: PathBuf,
        /// Only the first N users.
        #[arg(long)]
        users: Option<usize>,
        /// Write one JSON line per scored item (input, expected, got).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
}

/// `glovebox eval ...`.
pub fn eval(cfg: Config, command: EvalCommand, out: Output) -> Result<()> {
    match command {
        EvalCommand::Carmem {
            data,
            users,
            out: rows,
        } => eval_carmem(cfg, &data, users, rows.as_deref(), out),
    }
}

/// `glovebox bench`: the quick latency run (benches/README.md).
pub fn bench(
    cfg: &Config,
    config_file: Option<&Path>,
    rounds: usize,
    conversations: usize,
    out: Output,
) -> Result<()> {
    let exe = std::env::current_exe().context("cannot find the glovebox executable")?;
    let opts = crate::eval::bench::QuickOptions {
        exe: &exe,
        config: config_file,
        rounds,
        conversations,
    };
    let report = crate::eval::bench::quick(cfg, &opts)?;
    out.print_value(&report, || crate::eval::bench::table(&report));
    Ok(())
}

fn eval_carmem(
    cfg: Config,
    data: &Path,
    users: Option<usize>,
    rows: Option<&Path>,
    out: Output,
) -> Result<()> {
    use crate::eval::carmem;
    let models = crate::memory::Models::load(&cfg)?;
    let dataset = carmem::load(data, models.schema(), users)?;
    if dataset.is_empty() {
        bail!("{} holds no users", data.display());
    }
    let mut file = match rows {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
        None => None,
    };
    let (report, _) = carmem::run(
        &models,
        &cfg,
        &dataset,
        file.as_mut().map(|f| f as &mut dyn Write),
        std::io::IsTerminal::is_terminal(&std::io::stderr()),
    )?;
    if let Some(f) = file.as_mut() {
        f.flush().context("cannot write the results file")?;
    }
    out.print_value(&report, || carmem::table(&report));
    Ok(())
}
