//! The command line: arguments are parsed into plain, validated values first, then handed to
//! the memory runtime; output is text for a person or JSON (`--json`) for scripts.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use serde_json::json;

use crate::config::Config;
use crate::conversation::Conversation;
use crate::ipc::wire::{WireCategory, WireHistory, WireOutcome, WirePreference, WireRecalled};
use crate::memory::{ForgetWhat, Memory, Outcome, Recalled};
use crate::pref::{Preference, PreferenceId, Status, UserId};
use crate::schema::{Cardinality, Schema};

/// Glovebox: offline long-term memory for in-car voice assistants.
#[derive(Debug, Parser)]
#[command(name = "glovebox", version, about)]
pub struct Cli {
    /// Where the memory is kept [default: the platform's data directory for glovebox].
    #[arg(long, global = true, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Configuration file (TOML; see config/glovebox.toml) [default: built-in defaults].
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Folder of the model files, overriding models.dir of the config.
    #[arg(long, global = true, value_name = "DIR")]
    pub models: Option<PathBuf>,
    /// Print machine-readable JSON.
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Extract the preferences of a finished conversation and store them.
    Remember {
        #[arg(long)]
        user: String,
        /// JSON list of turns ({"role","text"} or CarMem's {"USER": ...}); `-` reads stdin.
        #[arg(long, value_name = "FILE")]
        conversation: PathBuf,
    },
    /// The stored preferences most relevant to an utterance.
    Recall {
        #[arg(long)]
        user: String,
        /// How many preferences [default: recall.k of the config].
        #[arg(long)]
        k: Option<usize>,
        utterance: String,
    },
    /// List, forget or trace stored preferences.
    #[command(subcommand)]
    Prefs(PrefsCommand),
    /// Stop remembering a sub or detail category (what is stored in it is deleted).
    Optout(CategoryArgs),
    /// Allow a category again after an opt-out.
    Optin(CategoryArgs),
    /// Print the category schema.
    Categories,
    /// Rewrite the store and index files with only live data (nothing forgotten stays on disk).
    Compact,
    /// The main job on the embedded defaults: remember sample conversations, then recall.
    Demo,
    /// Serve the Unix-socket protocol for the infotainment stack (docs/protocol.md).
    Serve {
        /// Socket path [default: server.socket of the config, else glovebox.sock in the data directory].
        #[arg(long, value_name = "PATH")]
        socket: Option<PathBuf>,
    },
    /// Measure Glovebox on a benchmark.
    #[command(subcommand)]
    Eval(EvalCommand),
    /// A quick run of the latency benches: medians, references, ratios and budgets
    /// (benches/README.md); `--json` prints them as one JSON object.
    Bench {
        /// Rounds over the built-in utterances for the embed and recall medians.
        #[arg(long, default_value_t = 5)]
        rounds: usize,
        /// How many of the ten built-in CarMem conversations to extract.
        #[arg(long, default_value_t = 10)]
        conversations: usize,
    },
}

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

#[derive(Debug, Args)]
pub struct CategoryArgs {
    #[arg(long)]
    pub user: String,
    /// Sub or detail category, by name or key.
    #[arg(long)]
    pub category: String,
}

#[derive(Debug, Subcommand)]
pub enum PrefsCommand {
    /// Everything stored about a user.
    List {
        #[arg(long)]
        user: String,
    },
    /// Delete one preference, a category, or everything about a user.
    Forget(ForgetArgs),
    /// Every change to a user's memory.
    History {
        #[arg(long)]
        user: String,
    },
    /// Everything stored about a user as one JSON document (format glovebox-export, version 1).
    Export {
        #[arg(long)]
        user: String,
    },
    /// Store an export document's preferences and opt-outs under a user.
    Import {
        #[arg(long)]
        user: String,
        #[arg(long, value_name = "FILE")]
        file: PathBuf,
    },
    /// Confirm a preference pending confirmation: it is recalled from now on.
    Confirm(PendingArgs),
    /// Reject a preference pending confirmation: it is deleted.
    Reject(PendingArgs),
}

#[derive(Debug, Args)]
pub struct PendingArgs {
    #[arg(long)]
    pub user: String,
    /// The pending preference, by the id `prefs list` shows.
    #[arg(long)]
    pub id: u64,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["id", "category", "all"])))]
pub struct ForgetArgs {
    #[arg(long)]
    pub user: String,
    /// One preference, by the id `prefs list` shows.
    #[arg(long)]
    pub id: Option<u64>,
    /// Everything in a sub or detail category.
    #[arg(long)]
    pub category: Option<String>,
    /// Everything about the user.
    #[arg(long)]
    pub all: bool,
}

/// Runs the command line.
pub fn run(cli: Cli) -> Result<()> {
    let mut cfg = match &cli.config {
        Some(p) => Config::load(p)?,
        None => Config::default(),
    };
    if let Some(m) = &cli.models {
        cfg.models.dir = m.clone();
    }
    let out = Output { json: cli.json };
    match cli.command {
        Command::Categories => {
            let schema = match &cfg.schema {
                Some(p) => Schema::load(p)?,
                None => Schema::embedded(),
            };
            print_categories(&schema, out)
        }
        Command::Demo => demo(cfg, out),
        Command::Eval(EvalCommand::Carmem {
            data,
            users,
            out: rows,
        }) => eval_carmem(cfg, &data, users, rows.as_deref(), out),
        Command::Bench {
            rounds,
            conversations,
        } => {
            let exe = std::env::current_exe().context("cannot find the glovebox executable")?;
            let opts = crate::eval::bench::QuickOptions {
                exe: &exe,
                config: cli.config.as_deref(),
                rounds,
                conversations,
            };
            let report = crate::eval::bench::quick(&cfg, &opts)?;
            out.print(report.clone(), || crate::eval::bench::table(&report));
            Ok(())
        }
        Command::Serve { socket } => {
            let dir = match cli.data_dir {
                Some(d) => d,
                None => default_data_dir()?,
            };
            serve(cfg, &dir, socket)
        }
        command => {
            let dir = match cli.data_dir {
                Some(d) => d,
                None => default_data_dir()?,
            };
            let mut memory = Memory::open(&dir, cfg)
                .with_context(|| format!("cannot open the memory in {}", dir.display()))?;
            if let Command::Compact = command {
                memory.compact()?;
                out.print(json!({ "compacted": dir.display().to_string() }), || {
                    format!("compacted {}", dir.display())
                });
                return Ok(());
            }
            run_on(&memory, command, out)
        }
    }
}

/// The platform's data directory for Glovebox (e.g. ~/.local/share/glovebox).
pub fn default_data_dir() -> Result<PathBuf> {
    directories::ProjectDirs::from("", "", "glovebox")
        .map(|d| d.data_dir().to_path_buf())
        .ok_or_else(|| anyhow!("no home directory to keep the data in: pass --data-dir"))
}

fn user(s: &str) -> Result<UserId> {
    Ok(UserId::new(s)?)
}

fn read_conversation(path: &Path) -> Result<Conversation> {
    let text = if path == Path::new("-") {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("cannot read the conversation from stdin")?;
        s
    } else {
        std::fs::read_to_string(path)
            .with_context(|| format!("cannot read conversation file {}", path.display()))?
    };
    Conversation::from_json(&text).with_context(|| format!("in {}", path.display()))
}

#[derive(Clone, Copy)]
struct Output {
    json: bool,
}

impl Output {
    fn print(&self, value: serde_json::Value, text: impl FnOnce() -> String) {
        let mut stdout = std::io::stdout().lock();
        let s = if self.json { value.to_string() } else { text() };
        let _ = writeln!(stdout, "{}", s.trim_end());
    }
}

fn run_on(memory: &Memory, command: Command, out: Output) -> Result<()> {
    let schema = memory.schema().clone();
    match command {
        Command::Remember {
            user: u,
            conversation,
        } => {
            let u = user(&u)?;
            let conv = read_conversation(&conversation)?;
            let outcomes = memory.remember(&u, &conv)?;
            print_outcomes(&schema, &outcomes, out);
        }
        Command::Recall {
            user: u,
            k,
            utterance,
        } => {
            let u = user(&u)?;
            let k = k.unwrap_or(memory.config().recall.k);
            if k == 0 {
                bail!("--k must be at least 1");
            }
            let hits = memory.recall(&u, &utterance, k)?;
            print_recalled(&schema, &hits, out);
        }
        Command::Prefs(PrefsCommand::List { user: u }) => {
            let u = user(&u)?;
            let prefs = memory.list(&u)?;
            let optouts = memory.optouts(&u)?;
            out.print(
                json!({
                    "preferences": prefs.iter().map(|p| WirePreference::new(&schema, p)).collect::<Vec<_>>(),
                    "optouts": optouts.iter().map(|r| WireCategory::new(&schema, *r)).collect::<Vec<_>>(),
                }),
                || {
                    let mut s = String::new();
                    if prefs.is_empty() {
                        s.push_str("nothing stored\n");
                    }
                    for p in &prefs {
                        s.push_str(&pref_line(&schema, p));
                        s.push('\n');
                    }
                    for r in &optouts {
                        s.push_str(&format!("opted out: {}\n", schema.ref_name(*r)));
                    }
                    let pending = prefs.iter().filter(|p| p.status == Status::Pending).count();
                    if pending > 0 {
                        s.push_str(&format!(
                            "{pending} pending confirmation (not recalled until confirmed): glovebox prefs confirm|reject --user {u} --id ID\n"
                        ));
                    }
                    s
                },
            );
        }
        Command::Prefs(PrefsCommand::Forget(f)) => {
            let u = user(&f.user)?;
            let what = if let Some(id) = f.id {
                ForgetWhat::One(PreferenceId(id))
            } else if let Some(c) = &f.category {
                ForgetWhat::Category(schema.resolve(c)?)
            } else if f.all {
                ForgetWhat::All
            } else {
                bail!("say what to forget: --id ID, --category C or --all");
            };
            let gone = memory.forget(&u, what)?;
            out.print(json!({ "forgotten": gone.len() }), || {
                format!("forgot {} preference(s)", gone.len())
            });
        }
        Command::Prefs(PrefsCommand::History { user: u }) => {
            let u = user(&u)?;
            let h = memory.history(&u)?;
            out.print(
                json!({ "history": h.iter().map(|e| WireHistory::new(&schema, e)).collect::<Vec<_>>() }),
                || {
                    h.iter()
                        .map(|e| {
                            let what = |p: &Option<Preference>| {
                                p.as_ref()
                                    .map(|p| match p.status {
                                        Status::Active => format!("{} #{}", p.attribute, p.id),
                                        Status::Pending => format!("{} #{} (pending)", p.attribute, p.id),
                                    })
                                    .unwrap_or_default()
                            };
                            format!(
                                "{}  {:<7} {:<40} {} -> {}\n",
                                e.time.0,
                                e.op.as_str(),
                                e.category,
                                what(&e.before),
                                what(&e.after)
                            )
                        })
                        .collect()
                },
            );
        }
        Command::Prefs(PrefsCommand::Export { user: u }) => {
            let u = user(&u)?;
            let doc = crate::ipc::export::export(memory, &u)?;
            out.print(doc.clone(), || {
                serde_json::to_string_pretty(&doc).unwrap_or_default()
            });
        }
        Command::Prefs(PrefsCommand::Import { user: u, file }) => {
            let u = user(&u)?;
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("cannot read {}", file.display()))?;
            let doc: serde_json::Value = serde_json::from_str(&text)
                .with_context(|| format!("{} is not JSON", file.display()))?;
            let n = crate::ipc::export::import(memory, &u, &doc)
                .with_context(|| format!("cannot import {}", file.display()))?;
            out.print(json!({ "imported": n }), || {
                format!("imported {n} preference(s)")
            });
        }
        Command::Prefs(PrefsCommand::Confirm(a)) => {
            let u = user(&a.user)?;
            let p = memory.confirm(&u, PreferenceId(a.id))?;
            out.print(
                json!({ "confirmed": WirePreference::new(&schema, &p) }),
                || format!("confirmed {}", pref_line(&schema, &p)),
            );
        }
        Command::Prefs(PrefsCommand::Reject(a)) => {
            let u = user(&a.user)?;
            memory.reject(&u, PreferenceId(a.id))?;
            out.print(json!({ "rejected": a.id }), || {
                format!("rejected #{}; it is deleted", a.id)
            });
        }
        Command::Optout(c) => {
            let u = user(&c.user)?;
            let r = schema.resolve(&c.category)?;
            let gone = memory.opt_out(&u, r)?;
            out.print(
                json!({ "optout": WireCategory::new(&schema, r), "deleted": gone.len() }),
                || {
                    format!(
                        "opted out of {}; deleted {} stored preference(s) in it",
                        schema.ref_name(r),
                        gone.len()
                    )
                },
            );
        }
        Command::Optin(c) => {
            let u = user(&c.user)?;
            let r = schema.resolve(&c.category)?;
            memory.opt_in(&u, r)?;
            out.print(json!({ "optin": WireCategory::new(&schema, r) }), || {
                format!("opted in to {}", schema.ref_name(r))
            });
        }
        Command::Categories
        | Command::Demo
        | Command::Eval(_)
        | Command::Bench { .. }
        | Command::Serve { .. }
        | Command::Compact => {
            unreachable!("handled without a data directory")
        }
    }
    Ok(())
}

fn pref_line(schema: &Schema, p: &Preference) -> String {
    let d = schema.detail(p.detail);
    let status = match p.status {
        Status::Active => String::new(),
        Status::Pending => match p.replaces {
            Some(r) => format!("  [pending confirmation; replaces #{r}]"),
            None => "  [pending confirmation]".to_string(),
        },
    };
    format!(
        "#{:<5} {} > {} = {}{}   \"{}\"",
        p.id,
        schema.sub(d.sub).name,
        d.name,
        p.attribute,
        status,
        p.sentences.join(" ")
    )
}

fn print_outcomes(schema: &Schema, outcomes: &[Outcome], out: Output) {
    out.print(
        json!({ "remembered": outcomes.iter().map(|o| WireOutcome::new(schema, o)).collect::<Vec<_>>() }),
        || {
            if outcomes.is_empty() {
                return "nothing to remember in this conversation".into();
            }
            outcomes
                .iter()
                .map(|o| {
                    let w = WireOutcome::new(schema, o);
                    format!("{:<7} {}\n", w.operation, pref_line(schema, &o.preference))
                })
                .collect()
        },
    );
}

fn print_recalled(schema: &Schema, hits: &[Recalled], out: Output) {
    out.print(
        json!({ "recalled": hits.iter().map(|r| WireRecalled::new(schema, r)).collect::<Vec<_>>() }),
        || {
            if hits.is_empty() {
                return "nothing relevant stored".into();
            }
            hits.iter()
                .map(|r| format!("{:.3}  {}\n", r.score, pref_line(schema, &r.preference)))
                .collect()
        },
    );
}

fn print_categories(schema: &Schema, out: Output) -> Result<()> {
    let details: Vec<_> = schema
        .details()
        .iter()
        .map(|d| {
            json!({
                "main": schema.main(d.main).name, "sub": schema.sub(d.sub).name, "sub_key": schema.sub(d.sub).key,
                "name": d.name, "key": d.key, "values": d.cardinality.to_string(),
                "description": d.description, "attributes": d.attributes,
            })
        })
        .collect();
    out.print(json!({ "categories": details }), || {
        let mut s = String::new();
        for m in schema.mains() {
            s.push_str(&format!("{}\n", m.name));
            for &sid in &m.subs {
                let sub = schema.sub(sid);
                s.push_str(&format!("  {}  [{}]\n", sub.name, sub.key));
                for &did in &sub.details {
                    let d = schema.detail(did);
                    let n = if d.cardinality == Cardinality::Single {
                        "one value"
                    } else {
                        "several values"
                    };
                    s.push_str(&format!("    {}  [{}] ({n})\n", d.name, d.key));
                }
            }
        }
        s
    });
    Ok(())
}

/// Sample conversations shipped for the demo.
const DEMO_CONVERSATIONS: [(&str, &str); 3] = [
    (
        "climate",
        include_str!("../examples/conversations/climate.json"),
    ),
    (
        "music",
        include_str!("../examples/conversations/music.json"),
    ),
    (
        "dinner",
        include_str!("../examples/conversations/dinner.json"),
    ),
];

const DEMO_UTTERANCES: [&str; 3] = [
    "It's freezing in here.",
    "Play something relaxing for the ride.",
    "I'm hungry, where can we stop to eat?",
];

fn demo(cfg: Config, out: Output) -> Result<()> {
    let dir = std::env::temp_dir().join(format!("glovebox-demo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let result = (|| {
        let memory = Memory::open(&dir, cfg)?;
        let schema = memory.schema().clone();
        let u = UserId::new("demo-driver")?;
        let mut report = Vec::new();
        if !out.json {
            println!("Glovebox demo: a fresh memory in {}\n", dir.display());
        }
        for (name, text) in DEMO_CONVERSATIONS {
            let conv = Conversation::from_json(text)?;
            let outcomes = memory.remember(&u, &conv)?;
            if !out.json {
                println!("remember {name}.json:");
                for t in conv.turns() {
                    println!("  {:>9}: {}", t.role.as_str(), t.text);
                }
                print_outcomes(&schema, &outcomes, out);
                println!();
            }
            report.push(json!({
                "conversation": name,
                "remembered": outcomes.iter().map(|o| WireOutcome::new(&schema, o)).collect::<Vec<_>>(),
            }));
        }
        let mut recalls = Vec::new();
        for utt in DEMO_UTTERANCES {
            let hits = memory.recall(&u, utt, 2)?;
            if !out.json {
                println!("recall {utt:?}:");
                print_recalled(&schema, &hits, out);
                println!();
            }
            recalls.push(json!({
                "utterance": utt,
                "recalled": hits.iter().map(|r| WireRecalled::new(&schema, r)).collect::<Vec<_>>(),
            }));
        }
        if out.json {
            println!("{}", json!({ "remember": report, "recall": recalls }));
        }
        Ok::<_, anyhow::Error>(())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
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
    out.print(report.clone(), || carmem::table(&report));
    Ok(())
}

fn serve(cfg: Config, dir: &Path, socket: Option<PathBuf>) -> Result<()> {
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
