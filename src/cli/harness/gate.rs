//! `glovebox eval gate`: fits the preference gate and reports it cross-validated.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

use super::{rows_file, write_json, Output};
use crate::config::Config;

/// Runs `eval gate`: the gate fitted on CarMem `carmem` and KVRET `kvret` (and VehicleMemBench
/// with `vmb`), with `labels` (one-off requests as negatives) and contrasts (negatives beside
/// the schema's example statements), reported cross-validated; written to `write` when given,
/// one row per sentence to `rows`.
pub(super) fn eval_gate(
    cfg: Config,
    (carmem, kvret, vmb): (&Path, &Path, (Option<&Path>, Option<&Path>)),
    (labels, contrasts): (Option<&Path>, Option<&Path>),
    fit: crate::eval::gate::Fit,
    (write, rows): (Option<&Path>, Option<&Path>),
    out: Output,
) -> Result<()> {
    let (hidden, words) = (fit.hidden, fit.words);
    if hidden > 0 && words > 0 {
        anyhow::bail!("--words is read by logistic regression only: give --hidden 0 or --words 0");
    }
    if words > crate::memory::gate::MAX_WORDS {
        anyhow::bail!(
            "--words {words} is more than {}",
            crate::memory::gate::MAX_WORDS
        );
    }
    let models = crate::memory::Models::load(&cfg)?;
    let users = crate::eval::carmem::load(carmem, models.schema(), None)?;
    let mut file = rows_file(rows)?;
    let (report, gate) = crate::eval::gate::run(
        &models,
        &users,
        kvret,
        vmb,
        (labels, contrasts),
        fit,
        file.as_mut().map(|f| f as &mut dyn Write),
    )?;
    if let Some(f) = file.as_mut() {
        f.flush().context("cannot write the results file")?;
    }
    if let Some(p) = write {
        write_json(p, &gate)?;
    }
    out.print_value(&report, || {
        serde_json::to_string_pretty(&report).unwrap_or_default()
    });
    Ok(())
}
