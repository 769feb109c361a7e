//! The command line: arguments are parsed into plain values first, then mapped to an
//! `ops::Request`, run through the one dispatch (`ops::run`), and the `Reply` printed as text
//! for a person or, with `--json`, as exactly the JSON the socket answers.

mod client;
mod demo;
#[cfg(feature = "harness")]
mod harness;
pub mod render;
mod serve;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{anyhow, Context, Result};
use clap::{Args, Parser, Subcommand};

use crate::config::Config;
use crate::conversation::Conversation;
use crate::memory::Memory;
use crate::ops::{self, ForgetSpec, Needs, Reply, Request, Target};
use crate::pref::UserId;
use crate::schema::Schema;

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
    /// The stored preferences most relevant to an utterance, or one category's current value.
    Recall {
        #[arg(long)]
        user: String,
        /// How many preferences [default: recall.k of the config].
        #[arg(long)]
        k: Option<usize>,
        /// Only this category (detail or sub key or name): its current value, without the
        /// relevance gate; conditions are judged against the utterance and context.
        #[arg(long)]
        category: Option<String>,
        /// Local time of the moment (HH:MM or RFC 3339), for conditions such as "at night".
        #[arg(long)]
        time: Option<String>,
        /// Who is in the car (repeatable).
        #[arg(long = "occupant")]
        occupants: Vec<String>,
        /// A fact about the moment, e.g. "outside 28 degrees" (repeatable).
        #[arg(long = "fact")]
        facts: Vec<String>,
        /// What was said (optional with --category).
        #[arg(default_value = "")]
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
    /// What the memory holds: versions, data directory, preferences indexed, users, models.
    Status,
    /// Serve the Unix-socket protocol for the infotainment stack (docs/protocol.md).
    Serve {
        /// Socket path [default: server.socket of the config, else glovebox.sock in the data directory].
        #[arg(long, value_name = "PATH")]
        socket: Option<PathBuf>,
    },
    /// Send requests to a running `glovebox serve` and print its answers, one JSON line each
    /// (says `hello` itself; exits non-zero if the socket cannot be reached, a request goes
    /// unanswered or an answer is an error).
    Client {
        /// Socket path [default: server.socket of the config, else glovebox.sock in the data directory].
        #[arg(long, value_name = "PATH")]
        socket: Option<PathBuf>,
        /// One request as JSON (an "id" is added if missing); without it, the NDJSON request
        /// lines of stdin are sent as they come.
        #[arg(value_name = "REQUEST_JSON")]
        request: Option<String>,
    },
    /// Measure Glovebox on a benchmark.
    #[cfg(feature = "harness")]
    #[command(subcommand)]
    Eval(harness::EvalCommand),
    /// A quick run of the latency benches: medians, references, ratios and budgets
    /// (benches/README.md); `--json` prints them as one JSON object.
    #[cfg(feature = "harness")]
    Bench {
        /// Rounds over the built-in utterances for the embed and recall medians.
        #[arg(long, default_value_t = 5)]
        rounds: usize,
        /// How many of the ten built-in CarMem conversations to extract.
        #[arg(long, default_value_t = 10)]
        conversations: usize,
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
        Command::Demo => demo::run(cfg, out),
        #[cfg(feature = "harness")]
        Command::Eval(command) => harness::eval(cfg, command, out),
        #[cfg(feature = "harness")]
        Command::Bench {
            rounds,
            conversations,
        } => harness::bench(&cfg, cli.config.as_deref(), rounds, conversations, out),
        Command::Serve { socket } => serve::run(cfg, &data_dir(cli.data_dir)?, socket),
        Command::Client { socket, request } => {
            let socket = match socket {
                Some(s) => s,
                None => crate::ipc::socket::path(None, cfg.server.socket, &data_dir(cli.data_dir)?),
            };
            let input = request.map_or(client::Input::Stdin, client::Input::One);
            client::run(&socket, input)
        }
        command => {
            let (request, context) = request(command)?;
            let reply = execute(cfg, cli.data_dir, request);
            let reply = match context {
                Some(c) => reply.context(c)?,
                None => reply?,
            };
            out.print(&reply);
            Ok(())
        }
    }
}

/// The platform's data directory for Glovebox (e.g. ~/.local/share/glovebox).
pub fn default_data_dir() -> Result<PathBuf> {
    directories::ProjectDirs::from("", "", "glovebox")
        .map(|d| d.data_dir().to_path_buf())
        .ok_or_else(|| anyhow!("no home directory to keep the data in: pass --data-dir"))
}

fn data_dir(given: Option<PathBuf>) -> Result<PathBuf> {
    match given {
        Some(d) => Ok(d),
        None => default_data_dir(),
    }
}

/// Runs a request on what it needs: the schema alone, or the memory in the data directory
/// (to itself for `compact`).
fn execute(cfg: Config, dir: Option<PathBuf>, request: Request) -> Result<Reply> {
    let needs = request.needs();
    if needs == Needs::Schema {
        let schema = match &cfg.schema {
            Some(p) => Schema::load(p)?,
            None => Schema::embedded(),
        };
        return Ok(ops::run(Target::Schema(Arc::new(schema)), request)?);
    }
    let dir = data_dir(dir)?;
    let mut memory = Memory::open(&dir, cfg)
        .with_context(|| format!("cannot open the memory in {}", dir.display()))?;
    let target = match needs {
        Needs::ExclusiveMemory => Target::Exclusive(&mut memory),
        _ => Target::Shared(&memory),
    };
    Ok(ops::run(target, request)?)
}

/// Maps a command's arguments to its request, with what to say first if it fails.
fn request(command: Command) -> Result<(Request, Option<String>)> {
    let user = |s: &str| UserId::new(s);
    let request = match command {
        Command::Remember {
            user: u,
            conversation,
        } => Request::Remember {
            user: user(&u)?,
            conversation: read_conversation(&conversation)?,
        },
        Command::Recall {
            user: u,
            k,
            category,
            time,
            occupants,
            facts,
            utterance,
        } => Request::Recall {
            user: user(&u)?,
            text: utterance,
            k,
            category,
            context: crate::memory::condition::Situation {
                local_time: time
                    .as_deref()
                    .map(crate::ops::local_time)
                    .transpose()
                    .map_err(|e| anyhow!(e))?,
                occupants,
                facts,
            },
        },
        Command::Prefs(p) => return prefs_request(p),
        Command::Optout(c) => Request::OptOut {
            user: user(&c.user)?,
            category: c.category,
        },
        Command::Optin(c) => Request::OptIn {
            user: user(&c.user)?,
            category: c.category,
        },
        Command::Status => Request::Status,
        Command::Categories => Request::Categories,
        Command::Compact => Request::Compact,
        other => unreachable!("{other:?} is not a memory operation"),
    };
    Ok((request, None))
}

fn prefs_request(command: PrefsCommand) -> Result<(Request, Option<String>)> {
    let user = |s: &str| UserId::new(s);
    let request = match command {
        PrefsCommand::List { user: u } => Request::List { user: user(&u)? },
        PrefsCommand::History { user: u } => Request::History { user: user(&u)? },
        PrefsCommand::Export { user: u } => Request::Export { user: user(&u)? },
        PrefsCommand::Forget(f) => Request::Forget {
            user: user(&f.user)?,
            what: match (f.id, f.category) {
                (Some(id), _) => ForgetSpec::Id(id),
                (None, Some(c)) => ForgetSpec::Category(c),
                (None, None) => ForgetSpec::All,
            },
        },
        PrefsCommand::Import { user: u, file } => {
            let document = read_json(&file)?;
            let context = format!("cannot import {}", file.display());
            let request = Request::Import {
                user: user(&u)?,
                document,
            };
            return Ok((request, Some(context)));
        }
        PrefsCommand::Confirm(a) => Request::Confirm {
            user: user(&a.user)?,
            preference: a.id,
        },
        PrefsCommand::Reject(a) => Request::Reject {
            user: user(&a.user)?,
            preference: a.id,
        },
    };
    Ok((request, None))
}

/// Reads a JSON document from a file, naming the file when it cannot be read or parsed.
pub(crate) fn read_json(path: &Path) -> Result<serde_json::Value> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))
}

pub(crate) fn read_conversation(path: &Path) -> Result<Conversation> {
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

/// Whether to print JSON or text.
#[derive(Clone, Copy)]
pub struct Output {
    json: bool,
}

impl Output {
    /// Prints a reply: its JSON (what the socket answers) or its text.
    fn print(&self, reply: &Reply) {
        self.print_value(&reply.to_json(), || render::text(reply));
    }

    /// Prints a JSON value, or the text `text` makes of it.
    fn print_value(&self, value: &serde_json::Value, text: impl FnOnce() -> String) {
        let mut stdout = std::io::stdout().lock();
        let s = if self.json { value.to_string() } else { text() };
        let _ = writeln!(stdout, "{}", s.trim_end());
    }
}
