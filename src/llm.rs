//! The local LLM: llama.cpp (GGUF) on its own OS thread, fed by a bounded command channel.
//! It takes text and a GBNF grammar and returns text; it knows nothing of categories or storage.
//!
//! Prompts are split into a *prefix* (instructions, schema, examples: the same for every
//! request of a kind) and the request's own text. Each distinct prefix is evaluated once into its
//! own llama.cpp context and its KV cache is kept; a request only pays for its own tokens.
//!
//! Decoding is greedy under the grammar. The full grammar sampler is slow on large vocabularies
//! (~40 ms/token on Gemma's 262k tokens), so each step first checks the `grammar_top_k` likeliest
//! tokens against the grammar and falls back to the whole vocabulary only when none of them is
//! allowed. The result is the same token greedy decoding under the full grammar would pick.

use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use tokio::sync::oneshot;

use crate::config::LlmConfig;

mod sampling;
#[cfg(feature = "harness")]
use sampling::argmax;
use sampling::{grammar_complete, pick};

/// Errors of the LLM layer.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error("LLM model file {0} is missing: run `models/fetch` (or point models.llm in the config at a GGUF file)")]
    MissingModel(PathBuf),
    #[error("cannot load LLM model {path}: {message}")]
    Load { path: PathBuf, message: String },
    #[error("llama.cpp: {0}")]
    Backend(String),
    #[error("invalid grammar: {0}")]
    Grammar(String),
    #[error("prompt of {tokens} tokens does not fit the context of {context} tokens")]
    TooLong { tokens: usize, context: u32 },
    #[error("the grammar allows no token at step {0}: it cannot be completed")]
    DeadEnd(usize),
    #[error("the LLM is busy: {0} requests are already waiting")]
    Busy(usize),
    #[error("internal error: the LLM failed on this request (its contexts were rebuilt; other requests are unaffected)")]
    Panicked,
    #[error("the LLM thread has stopped")]
    Stopped,
}

/// One generation request.
#[derive(Debug, Clone)]
pub struct Request {
    /// The shared part of the prompt; its KV cache is kept between requests.
    pub prefix: Arc<str>,
    /// This request's own text, appended to the prefix.
    pub prompt: String,
    /// GBNF grammar (root rule `root`) the answer must match. Decoding stops as soon as the
    /// grammar is complete, so every complete answer should end in a fixed terminator.
    pub grammar: String,
}

/// One generated token and how sure the model was of it.
#[derive(Debug, Clone)]
pub struct Step {
    pub piece: String,
    /// Probability of this token among the tokens the grammar allowed at this step.
    pub prob: f32,
}

/// The answer to a [`Request`].
#[derive(Debug, Clone)]
pub struct Completion {
    pub text: String,
    pub steps: Vec<Step>,
    /// Tokens of the request's own prompt (the prefix not counted).
    pub prompt_tokens: usize,
    /// Whether this request had to evaluate its prefix first.
    pub prefix_evaluated: bool,
    pub prompt_ms: f64,
    pub decode_ms: f64,
}

/// Cost of plain llama.cpp work on the request's own tokens, without grammar (the reference
/// extraction latency is compared against; benches and `glovebox bench` only).
#[cfg(feature = "harness")]
#[derive(Debug, Clone, Copy)]
pub struct RawCost {
    pub prompt_tokens: usize,
    pub decoded_tokens: usize,
    pub prompt_ms: f64,
    pub decode_ms: f64,
}

/// The model's choice among fixed answers, scored by their first tokens.
#[derive(Debug, Clone)]
pub struct Choice {
    /// Index of the chosen option.
    pub index: usize,
    /// Probability of each option (softmax over their first tokens' logits).
    pub probs: Vec<f32>,
    pub prompt_tokens: usize,
    pub prompt_ms: f64,
}

enum Job {
    Complete(Request, oneshot::Sender<Result<Completion, LlmError>>),
    Choose(
        Request,
        Vec<String>,
        oneshot::Sender<Result<Option<Choice>, LlmError>>,
    ),
    #[cfg(feature = "harness")]
    Raw(Request, usize, oneshot::Sender<Result<RawCost, LlmError>>),
}

/// Handle to the LLM thread. Cheap to clone; the thread ends when every handle is dropped.
#[derive(Clone)]
pub struct Llm {
    tx: SyncSender<Job>,
    queue: usize,
    name: String,
}

static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();

/// llama.cpp's backend may be initialised once per process; every model shares it.
fn backend() -> Result<&'static LlamaBackend, LlmError> {
    BACKEND
        .get_or_init(|| {
            // llama.cpp is chatty (thousands of lines per load): its logs reach tracing only when
            // GLOVEBOX_LLAMA_LOG is set.
            let on = std::env::var_os("GLOVEBOX_LLAMA_LOG").is_some();
            llama_cpp_2::send_logs_to_tracing(
                llama_cpp_2::LogOptions::default().with_logs_enabled(on),
            );
            LlamaBackend::init().map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| LlmError::Backend(e.clone()))
}

impl Llm {
    /// Loads the model on a new thread and returns once it is ready (or failed to load).
    /// `queue` bounds the requests waiting for the thread.
    pub fn spawn(path: &Path, cfg: &LlmConfig, queue: usize) -> Result<Llm, LlmError> {
        if !path.is_file() {
            return Err(LlmError::MissingModel(path.to_path_buf()));
        }
        let (tx, rx) = sync_channel::<Job>(queue);
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let path_buf = path.to_path_buf();
        let cfg = cfg.clone();
        std::thread::Builder::new()
            .name("glovebox-llm".into())
            .spawn(move || worker(path_buf, cfg, rx, ready_tx))
            .map_err(|e| LlmError::Backend(format!("cannot start the LLM thread: {e}")))?;
        ready_rx.recv().map_err(|_| LlmError::Stopped)??;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Llm { tx, queue, name })
    }

    /// The model's file name.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn send(&self, job: Job) -> Result<(), LlmError> {
        self.tx.try_send(job).map_err(|e| match e {
            TrySendError::Full(_) => LlmError::Busy(self.queue),
            TrySendError::Disconnected(_) => LlmError::Stopped,
        })
    }

    /// Generates an answer, blocking the calling thread (not for async code).
    pub fn complete(&self, req: Request) -> Result<Completion, LlmError> {
        let (tx, rx) = oneshot::channel();
        self.send(Job::Complete(req, tx))?;
        rx.blocking_recv().map_err(|_| LlmError::Stopped)?
    }

    /// Generates an answer without blocking an async runtime.
    pub async fn complete_async(&self, req: Request) -> Result<Completion, LlmError> {
        let (tx, rx) = oneshot::channel();
        self.send(Job::Complete(req, tx))?;
        rx.await.map_err(|_| LlmError::Stopped)?
    }

    /// Chooses among fixed answers (`req.grammar` is ignored) by one forward pass over the
    /// prompt: each option is scored by the logit of its first token, which is exact greedy
    /// decoding under the grammar `option1 | option2 | ...` whenever the options' first tokens
    /// differ. Returns `None` when they do not (use [`Llm::complete`] then).
    pub fn choose(&self, req: Request, options: Vec<String>) -> Result<Option<Choice>, LlmError> {
        let (tx, rx) = oneshot::channel();
        self.send(Job::Choose(req, options, tx))?;
        rx.blocking_recv().map_err(|_| LlmError::Stopped)?
    }

    /// Measures llama.cpp's raw cost for the request's own tokens: prompt evaluation after the
    /// cached prefix plus `decode` greedy tokens, with no grammar.
    #[cfg(feature = "harness")]
    pub fn raw_cost(&self, req: Request, decode: usize) -> Result<RawCost, LlmError> {
        let (tx, rx) = oneshot::channel();
        self.send(Job::Raw(req, decode, tx))?;
        rx.blocking_recv().map_err(|_| LlmError::Stopped)?
    }
}

/// A context holding one evaluated prefix.
struct Slot<'m> {
    prefix: Arc<str>,
    n_prefix: usize,
    ctx: LlamaContext<'m>,
    last_used: Instant,
}

/// Most prefixes kept evaluated at once (extraction and maintenance use one each).
const MAX_SLOTS: usize = 3;

fn worker(
    path: PathBuf,
    cfg: LlmConfig,
    rx: Receiver<Job>,
    ready: std::sync::mpsc::Sender<Result<(), LlmError>>,
) {
    let loaded = backend().and_then(|b| {
        LlamaModel::load_from_file(b, &path, &LlamaModelParams::default())
            .map(|m| (b, m))
            .map_err(|e| LlmError::Load {
                path: path.clone(),
                message: e.to_string(),
            })
    });
    let (backend, model) = match loaded {
        Ok(x) => {
            let _ = ready.send(Ok(()));
            x
        }
        Err(e) => {
            let _ = ready.send(Err(e));
            return;
        }
    };
    let cache_dir = crate::cache::dir(cfg.prefix_cache, "prefix-kv");
    let mut engine = Engine {
        backend,
        model: &model,
        model_path: path,
        cache_dir,
        cfg,
        slots: Vec::new(),
    };
    while let Ok(job) = rx.recv() {
        // A job that panics answers `Panicked`; its contexts may be half-written, so every
        // evaluated prefix is dropped and evaluated afresh when next needed (the weights are
        // read-only and stay loaded).
        fn guarded<T>(
            engine: &mut Engine<'_>,
            f: impl FnOnce(&mut Engine<'_>) -> Result<T, LlmError>,
        ) -> Result<T, LlmError> {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut *engine)));
            r.unwrap_or_else(|_| {
                tracing::error!("the LLM panicked on a request; rebuilding its contexts");
                engine.slots.clear();
                Err(LlmError::Panicked)
            })
        }
        match job {
            Job::Complete(req, reply) => {
                let _ = reply.send(guarded(&mut engine, |e| e.complete(&req)));
            }
            Job::Choose(req, options, reply) => {
                let _ = reply.send(guarded(&mut engine, |e| e.choose(&req, &options)));
            }
            #[cfg(feature = "harness")]
            Job::Raw(req, n, reply) => {
                let _ = reply.send(guarded(&mut engine, |e| e.raw_cost(&req, n)));
            }
        }
    }
}

struct Engine<'m> {
    backend: &'static LlamaBackend,
    model: &'m LlamaModel,
    model_path: PathBuf,
    cfg: LlmConfig,
    slots: Vec<Slot<'m>>,
    /// Where evaluated prefixes are kept between processes (`None`: not kept).
    cache_dir: Option<PathBuf>,
}

fn backend_err(e: impl std::fmt::Display) -> LlmError {
    LlmError::Backend(e.to_string())
}

impl<'m> Engine<'m> {
    /// The slot holding `prefix`, evaluating it into a new context if needed. Returns the slot
    /// index and whether the prefix had to be evaluated.
    fn slot(&mut self, prefix: &Arc<str>) -> Result<(usize, bool), LlmError> {
        if let Some(i) = self.slots.iter().position(|s| *s.prefix == **prefix) {
            self.slots[i].last_used = Instant::now();
            return Ok((i, false));
        }
        if self.slots.len() >= MAX_SLOTS {
            let oldest = (0..self.slots.len())
                .min_by_key(|&i| self.slots[i].last_used)
                .expect("slots is not empty");
            self.slots.swap_remove(oldest);
        }
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(self.cfg.context))
            .with_n_batch(self.cfg.batch)
            .with_n_ubatch(self.cfg.batch)
            .with_n_threads(self.cfg.threads as i32)
            .with_n_threads_batch(self.cfg.threads as i32);
        let mut ctx = self
            .model
            .new_context(self.backend, params)
            .map_err(backend_err)?;
        let tokens = self.model.vocab().tokenize(prefix.as_bytes(), true, false);
        if tokens.len() + 64 > self.cfg.context as usize {
            return Err(LlmError::TooLong {
                tokens: tokens.len(),
                context: self.cfg.context,
            });
        }
        let file = self.cache_dir.as_ref().map(|d| {
            let (context, batch) = (self.cfg.context, self.cfg.batch);
            crate::cache::prefix_file(d, &self.model_path, prefix, context, batch)
        });
        let loaded = file.as_ref().is_some_and(|f| {
            f.is_file()
                && matches!(ctx.state_seq_load_file(f, 0, tokens.len()), Ok((t, _)) if t == tokens)
        });
        if !loaded {
            ctx.clear_kv_cache();
            decode_tokens(&mut ctx, &tokens, 0, self.cfg.batch as usize)?;
            if let Some(f) = &file {
                // Best effort: a cache that cannot be written costs time next start, nothing else.
                if !crate::cache::publish(f, |tmp| ctx.state_seq_save_file(tmp, 0, &tokens).is_ok())
                {
                    tracing::debug!("could not cache the prompt prefix in {}", f.display());
                }
            }
        }
        self.slots.push(Slot {
            prefix: prefix.clone(),
            n_prefix: tokens.len(),
            ctx,
            last_used: Instant::now(),
        });
        Ok((self.slots.len() - 1, true))
    }

    /// Evaluates the request's prompt after its cached prefix. Returns the slot index, the
    /// position after the prompt, the prompt's token count and whether the prefix was evaluated.
    fn prompt(&mut self, req: &Request) -> Result<(usize, usize, usize, bool), LlmError> {
        let (i, fresh) = self.slot(&req.prefix)?;
        let tokens = self
            .model
            .vocab()
            .tokenize(req.prompt.as_bytes(), false, false);
        let slot = &mut self.slots[i];
        let end = slot.n_prefix + tokens.len();
        if end + self.cfg.max_tokens > self.cfg.context as usize {
            return Err(LlmError::TooLong {
                tokens: end + self.cfg.max_tokens,
                context: self.cfg.context,
            });
        }
        // Drop whatever the previous request left after the prefix.
        slot.ctx
            .clear_kv_cache_seq(Some(0), Some(slot.n_prefix as u32), None)
            .map_err(backend_err)?;
        if tokens.is_empty() {
            return Err(LlmError::Backend("empty prompt".into()));
        }
        decode_tokens(
            &mut slot.ctx,
            &tokens,
            slot.n_prefix,
            self.cfg.batch as usize,
        )?;
        Ok((i, end, tokens.len(), fresh))
    }

    fn complete(&mut self, req: &Request) -> Result<Completion, LlmError> {
        let mut grammar = LlamaSampler::grammar(self.model, &req.grammar, "root")
            .map_err(|e| LlmError::Grammar(e.to_string()))?;
        let t0 = Instant::now();
        let (i, mut pos, prompt_tokens, prefix_evaluated) = self.prompt(req)?;
        let prompt_ms = t0.elapsed().as_secs_f64() * 1e3;
        let t1 = Instant::now();
        let vocab = self.model.vocab();
        let eog = vocab.eos();
        let top_k = self.cfg.grammar_top_k.max(1);
        let ctx = &mut self.slots[i].ctx;
        let mut text = Vec::<u8>::new();
        let mut steps = Vec::new();
        let mut batch = LlamaBatch::new(1, 1);
        for step in 0..self.cfg.max_tokens {
            let logits = ctx.get_logits_ith(-1);
            let (token, prob) = pick(logits, &mut grammar, top_k).ok_or(LlmError::DeadEnd(step))?;
            if vocab.is_eog(token) {
                break;
            }
            grammar.accept(token);
            let piece = vocab.token_to_piece(token, false, None);
            steps.push(Step {
                piece: String::from_utf8_lossy(&piece).into_owned(),
                prob,
            });
            text.extend_from_slice(&piece);
            if grammar_complete(&mut grammar, eog) {
                break;
            }
            decode_one(ctx, &mut batch, token, pos)?;
            pos += 1;
        }
        Ok(Completion {
            text: String::from_utf8_lossy(&text).into_owned(),
            steps,
            prompt_tokens,
            prefix_evaluated,
            prompt_ms,
            decode_ms: t1.elapsed().as_secs_f64() * 1e3,
        })
    }

    fn choose(&mut self, req: &Request, options: &[String]) -> Result<Option<Choice>, LlmError> {
        let vocab = self.model.vocab();
        let firsts: Vec<LlamaToken> = options
            .iter()
            .map(|o| vocab.tokenize(o.as_bytes(), false, false).first().copied())
            .collect::<Option<_>>()
            .ok_or_else(|| LlmError::Backend("an empty option".into()))?;
        let distinct: std::collections::HashSet<_> = firsts.iter().collect();
        if options.is_empty() || distinct.len() != firsts.len() {
            return Ok(None);
        }
        let t0 = Instant::now();
        let (i, _, prompt_tokens, _) = self.prompt(req)?;
        let logits = self.slots[i].ctx.get_logits_ith(-1);
        let ls: Vec<f32> = firsts.iter().map(|t| logits[t.0 as usize]).collect();
        let max = ls.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let z: f32 = ls.iter().map(|l| (l - max).exp()).sum();
        let probs: Vec<f32> = ls.iter().map(|l| (l - max).exp() / z).collect();
        let index = (0..ls.len())
            .max_by(|&a, &b| ls[a].total_cmp(&ls[b]))
            .expect("options");
        Ok(Some(Choice {
            index,
            probs,
            prompt_tokens,
            prompt_ms: t0.elapsed().as_secs_f64() * 1e3,
        }))
    }

    #[cfg(feature = "harness")]
    fn raw_cost(&mut self, req: &Request, n: usize) -> Result<RawCost, LlmError> {
        let t0 = Instant::now();
        let (i, mut pos, prompt_tokens, _) = self.prompt(req)?;
        let prompt_ms = t0.elapsed().as_secs_f64() * 1e3;
        let t1 = Instant::now();
        let ctx = &mut self.slots[i].ctx;
        let mut batch = LlamaBatch::new(1, 1);
        for _ in 0..n {
            let logits = ctx.get_logits_ith(-1);
            let token = argmax(logits);
            decode_one(ctx, &mut batch, token, pos)?;
            pos += 1;
        }
        Ok(RawCost {
            prompt_tokens,
            decoded_tokens: n,
            prompt_ms,
            decode_ms: t1.elapsed().as_secs_f64() * 1e3,
        })
    }
}

/// Decodes `tokens` starting at position `start`, in batches; logits only for the last token.
fn decode_tokens(
    ctx: &mut LlamaContext<'_>,
    tokens: &[LlamaToken],
    start: usize,
    batch_size: usize,
) -> Result<(), LlmError> {
    let mut batch = LlamaBatch::new(batch_size, 1);
    for (c, chunk) in tokens.chunks(batch_size).enumerate() {
        batch.clear();
        let base = start + c * batch_size;
        for (j, &t) in chunk.iter().enumerate() {
            let last = base + j + 1 == start + tokens.len();
            batch
                .add(t, (base + j) as i32, &[0], last)
                .map_err(backend_err)?;
        }
        ctx.decode(&mut batch).map_err(backend_err)?;
    }
    Ok(())
}

/// Decodes one generated token at `pos`, asking for its logits.
fn decode_one(
    ctx: &mut LlamaContext<'_>,
    batch: &mut LlamaBatch,
    token: LlamaToken,
    pos: usize,
) -> Result<(), LlmError> {
    batch.clear();
    batch
        .add(token, pos as i32, &[0], true)
        .map_err(backend_err)?;
    ctx.decode(batch).map_err(backend_err)
}
