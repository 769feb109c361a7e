//! The benchmark harnesses on the command line (`glovebox eval`, `glovebox bench`); built only
//! with the `harness` feature, so the head unit's binary has none of them.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Subcommand;

use super::Output;

mod gate;
mod polarity;
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
        /// Utterances no stored preference serves (KVRET JSON: the weather and schedule driver
        /// turns; or one per line), for recall's relevance gate.
        #[arg(long, value_name = "FILE")]
        unrelated: Option<PathBuf>,
        /// Requests that need a stored preference, for the relevance's need model besides the
        /// CarMem requests: a folder of VehicleMemBench qa_N.json files (the quoted words of
        /// each question), or one per line.
        #[arg(long, value_name = "DIR|FILE")]
        requests: Vec<PathBuf>,
        /// Write the relevance model fitted on every user here (config/relevance.json ships).
        #[arg(long, value_name = "FILE")]
        write_relevance: Option<PathBuf>,
        /// Retrieval (and the relevance gate) only, in minutes instead of hours: no extraction
        /// or maintenance; each ground-truth preference's sentence is the user's labelled
        /// example of its category (config/examples.jsonl) instead of extraction's evidence.
        #[arg(long)]
        only_retrieval: bool,
    },
    /// Test cases (JSON lines: conversation, expect, tag): false memories, preference
    /// recall and precision, value accuracy, each case in a fresh memory.
    Cases {
        /// The cases file (e.g. tests/cases/no-preference.jsonl).
        #[arg(long, value_name = "FILE")]
        data: PathBuf,
        /// Write one JSON line per case (expected, stored).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// VehicleMemBench: remember each household history, then answer its questions (oracle
    /// slot track, slot track and the last-mention baseline). Run it with the vehicle schema
    /// (`--config config/glovebox-vehicle.toml`).
    #[command(name = "vehiclemembench")]
    VehicleMemBench {
        /// Folder of history_N.txt files.
        #[arg(long, value_name = "DIR")]
        history: PathBuf,
        /// Folder of qa_N.json files.
        #[arg(long, value_name = "DIR")]
        qa: PathBuf,
        /// Only the first N files.
        #[arg(long)]
        files: Option<usize>,
        /// Only these files, by number (comma-separated: `--only 1,6,11`).
        #[arg(long, value_delimiter = ',')]
        only: Vec<usize>,
        /// Write one JSON line per question (acting person, expected and stored values).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Train the vehicle gate (does this sentence state a vehicle preference?) on
    /// VehicleMemBench development files and report it cross-validated by file.
    VehicleGate {
        /// Folder of history_N.txt files.
        #[arg(long, value_name = "DIR")]
        history: PathBuf,
        /// Folder of qa_N.json files.
        #[arg(long, value_name = "DIR")]
        qa: PathBuf,
        /// The files to train on, by number (comma-separated); default 1-25.
        #[arg(long, value_delimiter = ',')]
        files: Vec<usize>,
        /// Cross-validation folds (by file; 0: none).
        #[arg(long, default_value_t = 5)]
        folds: usize,
        /// The threshold the written gate passes sentences at.
        #[arg(long, default_value_t = 0.5)]
        threshold: f32,
        /// Hidden units (0: logistic regression on the sentence embedding).
        #[arg(long, default_value_t = 32)]
        hidden: usize,
        /// The embedder layer whose pooled hidden states the gate reads beside the sentence's
        /// embedding (`none`, the shipped vehicle gate: the embedding alone).
        #[arg(long, default_value = "none", value_parser = parse_layer)]
        layer: GateLayer,
        /// Write the gate fitted on all of the files here (config/gate-vehicle.json ships).
        #[arg(long, value_name = "FILE")]
        write: Option<PathBuf>,
    },
    /// Train the preference gate on development data and report it cross-validated.
    Gate {
        /// CarMem JSONL file (e.g. ../shared/carmem/dev.jsonl).
        #[arg(long, value_name = "FILE")]
        carmem: PathBuf,
        /// KVRET JSON file (e.g. ../shared/kvret/dev.json).
        #[arg(long, value_name = "FILE")]
        kvret: PathBuf,
        /// VehicleMemBench history folder: its household chat lines are negatives too.
        #[arg(long, value_name = "DIR")]
        vmb: Option<PathBuf>,
        /// VehicleMemBench questions folder: with `--vmb`, the sentences its gold memories
        /// quote are positives.
        #[arg(long, value_name = "DIR")]
        vmb_qa: Option<PathBuf>,
        /// CarMem's revealing sentences read against issue 13's definition (JSON lines
        /// `{"text", "label": "lasting" | "request"}`, config/lasting-labels.jsonl): those
        /// labelled `request` are negatives.
        #[arg(long, value_name = "FILE")]
        labels: Option<PathBuf>,
        /// Cross-validation folds (by CarMem user, KVRET dialogue and history file).
        #[arg(long, default_value_t = 5)]
        folds: usize,
        /// The threshold the written gate passes sentences at.
        #[arg(long, default_value_t = 0.5)]
        threshold: f32,
        /// Hidden units (0: logistic regression on the sentence embedding).
        #[arg(long, default_value_t = 32)]
        hidden: usize,
        /// Hash buckets of the sentence's words the gate reads beside its embedding
        /// (`memory::gate::word_features`; logistic regression only; 0, the shipped gate: the
        /// embedding alone).
        #[arg(long, default_value_t = 0)]
        words: usize,
        /// The embedder layer whose pooled hidden states the gate reads beside the sentence's
        /// embedding (`none`: the embedding alone; 3, the shipped gate: after three of
        /// all-MiniLM-L6-v2's six layers).
        #[arg(long, default_value = "3", value_parser = parse_layer)]
        layer: GateLayer,
        /// CarMem's other user sentences (beside the one naming the value): fitted as
        /// negatives, or left unlabelled (not fitted on: they often say a preference again in
        /// other words; `eval::gate::Others`).
        #[arg(long, value_enum, default_value = "negative")]
        others: crate::eval::gate::Others,
        /// Fit on each CarMem and KVRET user turn also as a speech recogniser writes it (lower
        /// case, no marks: one sample per turn; reported apart, `cross_validated_spoken`).
        #[arg(long)]
        spoken: bool,
        /// Fit on the schema's example statements of how drivers state each preference
        /// (`says`) as positives too (measured apart, by detail: `statement_kept`).
        #[arg(long)]
        statements: bool,
        /// Sentences on the statements' topics that state no lasting preference (JSON lines
        /// `{"detail", "text", "kind"?}`, config/contrasts.jsonl), fitted on as negatives (a
        /// `request` only with `--labels`; measured apart: `contrast_silent`).
        #[arg(long, value_name = "FILE")]
        contrasts: Option<PathBuf>,
        /// Write the gate fitted on all of the data here (config/gate.json ships).
        #[arg(long, value_name = "FILE")]
        write: Option<PathBuf>,
        /// Write one JSON line per sentence with its cross-validated probability.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Fit the offer decision (does a preference sentence state a preference of its best
    /// category?) on cases with known answers and report it cross-validated.
    Offers {
        /// Cases files (`eval cases` format; `scripts/carmem-pairs --singles`,
        /// `scripts/carmem-pairs`, `scripts/kvret-cases`), each case's tag naming its set.
        #[arg(long = "cases", value_name = "FILE", required = true)]
        cases: Vec<PathBuf>,
        /// Write the model fitted on all of the cases here (config/offer.json ships).
        #[arg(long, value_name = "FILE")]
        write: Option<PathBuf>,
        /// Another offer decision's report or model (JSON), whose offers come beside this
        /// one's: what it offers where nothing may be stored, cross-validated, comes off this
        /// one's bound (the lasting track's, `extraction.lasting_offers`, beside the first
        /// track's config/offer.json).
        #[arg(long, value_name = "FILE")]
        beside: Option<PathBuf>,
    },
    /// Whether a value the user turns down is stored turned down: CarMem's maintenance
    /// questions that name their entry's value, run through extraction's value step.
    Polarity {
        /// CarMem JSONL file (e.g. ../shared/carmem/dev.jsonl).
        #[arg(long, value_name = "FILE")]
        carmem: PathBuf,
        /// Write one JSON line per question naming its value.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Instead: fit the refusal model (does a sentence turn down what it names?) on the
        /// questions and report it cross-validated over this many folds of users.
        #[arg(long, value_name = "FOLDS")]
        fit: Option<usize>,
        /// With --fit: save the refusal model fitted on all questions (config/refusal.json).
        #[arg(long, value_name = "FILE", requires = "fit")]
        write: Option<PathBuf>,
    },
    /// What extraction sees in a conversation: per speaker and user sentence, the gate's
    /// probability, the offer decision's, the one-off gate's, the lasting track's offer
    /// decision's and the best categories (why something was, or was not, stored, and stored
    /// pending).
    Explain {
        /// A conversation file, as `remember` takes it.
        #[arg(
            long,
            value_name = "FILE",
            required_unless_present = "cases",
            conflicts_with = "cases"
        )]
        conversation: Option<PathBuf>,
        /// Or every conversation of a cases file (as `eval cases` takes it): each line then
        /// names its case's `id`.
        #[arg(long, value_name = "FILE")]
        cases: Option<PathBuf>,
        /// Leave out the labelled examples whose `source` is this.
        #[arg(long)]
        exclude: Option<String>,
        /// How many of each sentence's best categories to show.
        #[arg(long, default_value_t = 3)]
        top: usize,
    },
}

/// `glovebox eval ...`.
pub fn eval(cfg: Config, command: EvalCommand, out: Output) -> Result<()> {
    match command {
        EvalCommand::Carmem {
            data,
            users,
            out: rows,
            unrelated,
            requests,
            write_relevance,
            only_retrieval,
        } => eval_carmem(
            cfg,
            (&data, users, unrelated.as_deref(), only_retrieval),
            &requests,
            (rows.as_deref(), write_relevance.as_deref()),
            out,
        ),
        EvalCommand::Explain {
            conversation,
            cases,
            exclude,
            top,
        } => explain(
            cfg,
            (conversation.as_deref(), cases.as_deref()),
            exclude.as_deref(),
            top,
            out,
        ),
        EvalCommand::Offers {
            cases,
            write,
            beside,
        } => eval_offers(cfg, &cases, (write.as_deref(), beside.as_deref()), out),
        EvalCommand::Polarity {
            carmem,
            out: rows,
            fit,
            write,
        } => polarity::eval_polarity(cfg, &carmem, (rows.as_deref(), fit, write.as_deref()), out),
        EvalCommand::Cases { data, out: rows } => eval_cases(cfg, &data, rows.as_deref(), out),
        EvalCommand::VehicleMemBench {
            history,
            qa,
            files,
            only,
            out: rows,
        } => eval_vmb(cfg, (&history, &qa, files, &only), rows.as_deref(), out),
        EvalCommand::VehicleGate {
            history,
            qa,
            files,
            folds,
            threshold,
            hidden,
            layer,
            write,
        } => {
            let models = crate::memory::Models::load(&cfg)?;
            let files = if files.is_empty() {
                crate::eval::gate::DEV_FILES.collect()
            } else {
                files
            };
            let (report, gate) = crate::eval::gate::run_vehicle(
                &models,
                (&history, &qa, &files),
                crate::eval::gate::Fit {
                    folds,
                    threshold,
                    hidden,
                    words: 0,
                    layer,
                    others: crate::eval::gate::Others::Negative,
                    spoken: false,
                    statements: false,
                },
            )?;
            if let Some(p) = write.as_deref() {
                write_json(p, &gate)?;
            }
            out.print_value(&report, || {
                serde_json::to_string_pretty(&report).unwrap_or_default()
            });
            Ok(())
        }
        EvalCommand::Gate {
            carmem,
            kvret,
            vmb,
            vmb_qa,
            labels,
            folds,
            threshold,
            hidden,
            words,
            layer,
            others,
            spoken,
            statements,
            contrasts,
            write,
            out: rows,
        } => gate::eval_gate(
            cfg,
            (&carmem, &kvret, (vmb.as_deref(), vmb_qa.as_deref())),
            (labels.as_deref(), contrasts.as_deref()),
            crate::eval::gate::Fit {
                folds,
                threshold,
                hidden,
                words,
                layer,
                others,
                spoken,
                statements,
            },
            (write.as_deref(), rows.as_deref()),
            out,
        ),
    }
}

/// The gate's `--layer`: an embedder layer, or none (an alias, so that clap reads the
/// `Option` as the value `none` rather than as a flag that may be left out).
type GateLayer = Option<usize>;

fn parse_layer(s: &str) -> Result<GateLayer, String> {
    if s.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    s.parse()
        .map(Some)
        .map_err(|_| format!("{s:?} is neither a layer number nor `none`"))
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

/// The rows file an evaluation writes one JSON line per scored item to, when asked for.
fn rows_file(path: Option<&Path>) -> Result<Option<std::io::BufWriter<std::fs::File>>> {
    path.map(|p| {
        std::fs::File::create(p)
            .map(std::io::BufWriter::new)
            .with_context(|| format!("cannot create {}", p.display()))
    })
    .transpose()
}

/// Writes a model fitted by an evaluation as one line of JSON.
fn write_json(path: &Path, value: &impl serde::Serialize) -> Result<()> {
    let text = serde_json::to_string(value).context("cannot encode the model")?;
    std::fs::write(path, text + "\n").with_context(|| format!("cannot write {}", path.display()))
}

fn eval_carmem(
    cfg: Config,
    (data, users, unrelated, only_retrieval): (&Path, Option<usize>, Option<&Path>, bool),
    requests: &[PathBuf],
    (rows, write_relevance): (Option<&Path>, Option<&Path>),
    out: Output,
) -> Result<()> {
    use crate::eval::{carmem, relevance};
    let models = crate::memory::Models::load(&cfg)?;
    let dataset = carmem::load(data, models.schema(), users)?;
    if dataset.is_empty() {
        bail!("{} holds no users", data.display());
    }
    let unrelated = match unrelated {
        Some(p) => relevance::load_unrelated(p)?,
        None => Vec::new(),
    };
    let requests = requests
        .iter()
        .map(|p| relevance::load_requests(p))
        .collect::<Result<Vec<_>, _>>()?
        .concat();
    let mut file = rows_file(rows)?;
    let (report, tally) = carmem::run(
        &models,
        &cfg,
        &dataset,
        (&unrelated, &requests),
        only_retrieval,
        file.as_mut().map(|f| f as &mut dyn Write),
        std::io::IsTerminal::is_terminal(&std::io::stderr()),
    )?;
    if let Some(f) = file.as_mut() {
        f.flush().context("cannot write the results file")?;
    }
    if let Some(p) = write_relevance {
        write_json(
            p,
            &relevance::fit_all(&tally.relevance, &tally.extra, cfg.recall.k),
        )?;
    }
    out.print_value(&report, || carmem::table(&report));
    Ok(())
}

/// `eval explain`: per speaker and user sentence of one conversation (or of every case of a
/// cases file), the gates' probabilities, both tracks' offer decisions' and the best categories.
fn explain(
    cfg: Config,
    (conversation, cases): (Option<&Path>, Option<&Path>),
    exclude: Option<&str>,
    top: usize,
    out: Output,
) -> Result<()> {
    let models = crate::memory::Models::load(&cfg)?;
    let schema = models.schema().clone();
    let convs: Vec<(Option<String>, crate::conversation::Conversation)> =
        match (conversation, cases) {
            (Some(p), _) => vec![(None, super::read_conversation(p)?)],
            (None, Some(p)) => crate::eval::cases::load(p, &schema)?
                .into_iter()
                .map(|c| (Some(c.id), c.conversation))
                .collect(),
            (None, None) => bail!("eval explain needs --conversation or --cases"),
        };
    let user = crate::pref::UserId::new("user")?;
    let mut lines = Vec::new();
    for (id, c) in &convs {
        for part in c.parts(&user) {
            for s in models.explain(&part.conversation, exclude, top)? {
                let best: Vec<serde_json::Value> = s
                    .best
                    .iter()
                    .map(|(d, v)| serde_json::json!([schema.detail(*d).key, v]))
                    .collect();
                let mut line = serde_json::json!({
                    "speaker": part.speaker.as_str(), "sentence": s.sentence,
                    "gate": s.gate, "passes": s.passes, "offer": s.offer, "best": best,
                    "condition": s.condition, "lasting": s.lasting, "beside": s.beside,
                    "lasting_offer": s.lasting_offer, "refusal": s.refusal,
                });
                if let Some(id) = id {
                    line["case"] = serde_json::json!(id);
                }
                lines.push(line);
            }
        }
    }
    let v = serde_json::Value::Array(lines);
    out.print_value(&v, || {
        v.as_array()
            .into_iter()
            .flatten()
            .map(|l| format!("{l}\n"))
            .collect()
    });
    Ok(())
}

fn eval_offers(
    cfg: Config,
    files: &[PathBuf],
    (write, beside): (Option<&Path>, Option<&Path>),
    out: Output,
) -> Result<()> {
    use crate::eval::offers::Spent;
    let spent = match beside {
        None => Spent::default(),
        Some(p) => Spent::from_report(&super::read_json(p)?)
            .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?,
    };
    let models = crate::memory::Models::load(&cfg)?;
    let mut cases = Vec::new();
    for f in files {
        cases.extend(crate::eval::cases::load(f, models.schema())?);
    }
    let (report, model) = crate::eval::offers::run(&models, &cases, &spent)?;
    if let Some(p) = write {
        write_json(p, &model)?;
    }
    out.print_value(&report, || crate::eval::offers::table(&report));
    Ok(())
}

fn eval_cases(cfg: Config, data: &Path, rows: Option<&Path>, out: Output) -> Result<()> {
    use crate::eval::cases;
    let models = crate::memory::Models::load(&cfg)?;
    let list = cases::load(data, models.schema())?;
    let mut file = rows_file(rows)?;
    let report = cases::run(&models, &list, file.as_mut().map(|f| f as &mut dyn Write))?;
    if let Some(f) = file.as_mut() {
        f.flush().context("cannot write the results file")?;
    }
    out.print_value(&report, || cases::table(&report));
    Ok(())
}

fn eval_vmb(
    cfg: Config,
    dirs: (&Path, &Path, Option<usize>, &[usize]),
    rows: Option<&Path>,
    out: Output,
) -> Result<()> {
    use crate::eval::vmb::run;
    let models = crate::memory::Models::load(&cfg)?;
    if models.schema().details().iter().all(|d| d.call.is_none()) {
        bail!("the schema names no vehicle calls: run with the vehicle schema (--config config/glovebox-vehicle.toml)");
    }
    let mut file = rows_file(rows)?;
    let report = run::run(
        &models,
        dirs,
        file.as_mut().map(|f| f as &mut dyn Write),
        std::io::IsTerminal::is_terminal(&std::io::stderr()),
    )?;
    if let Some(f) = file.as_mut() {
        f.flush().context("cannot write the results file")?;
    }
    out.print_value(&report, || run::table(&report));
    Ok(())
}
