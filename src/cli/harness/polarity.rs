//! `glovebox eval polarity`: the value step on CarMem's maintenance questions, or (`--fit`)
//! the refusal model's fit and cross-validated report.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

use super::{rows_file, write_json, Output};
use crate::config::Config;

/// Runs `eval polarity` on the CarMem file `carmem`: with `fit`, fits the refusal model
/// (cross-validated over that many folds of users; saved to `write` when given), else runs
/// the questions through the value step (one row per question to `rows` when given).
pub(super) fn eval_polarity(
    cfg: Config,
    carmem: &Path,
    (rows, fit, write): (Option<&Path>, Option<usize>, Option<&Path>),
    out: Output,
) -> Result<()> {
    let models = crate::memory::Models::load(&cfg)?;
    let users = crate::eval::carmem::load(carmem, models.schema(), None)?;
    if let Some(folds) = fit {
        if folds >= 2 && users.len() < folds {
            anyhow::bail!(
                "--fit {folds}: cross-validation by user needs at least {folds} users, {} has {}",
                carmem.display(),
                users.len()
            );
        }
        let layer = models.gate().layer;
        let (report, model) = crate::eval::refusal::run(&models, &users, folds, layer)?;
        if let Some(p) = write {
            write_json(p, &model)?;
        }
        out.print_value(&report, || format!("{report:#}\n"));
        return Ok(());
    }
    let mut file = rows_file(rows)?;
    let report =
        crate::eval::polarity::run(&models, &users, file.as_mut().map(|f| f as &mut dyn Write))?;
    if let Some(f) = file.as_mut() {
        f.flush().context("cannot write the results file")?;
    }
    out.print_value(&report, || format!("{report:#}\n"));
    Ok(())
}
