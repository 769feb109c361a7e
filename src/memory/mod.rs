//! The memory of one data directory: extraction, maintenance and recall over the store (redb,
//! the source of truth) and the vector index (usearch, derived from it).
//!
//! **Invariant:** only this module writes to the store and the index. Every change is
//! committed to redb first, in one transaction; the index follows. The index file carries a
//! fingerprint of the store state it reflects; when it is missing, unreadable or out of step
//! (a crash between the two writes), opening rebuilds it from redb.

pub mod confidence;
pub mod export;
pub mod extract;
pub mod gate;
pub mod maintain;
pub mod prior;
pub mod relevance;
pub mod retention;
pub mod values;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Instant;

use crate::config::Config;
use crate::conversation::{Conversation, ConversationError};
use crate::embed::{EmbedError, Embedder, EMBED_DIM};
use crate::index::{IndexError, VectorIndex};
use crate::llm::{Llm, LlmError, Request};
use crate::pref::{
    HistoryEntry, Maintenance, Millis, Operation, Preference, PreferenceId, Status, UserId,
};
use crate::schema::{Cardinality, CategoryRef, DetailId, DetailSet, Schema, SchemaError};
use crate::store::{Change, Store, StoreError};
use crate::worker::{Worker, WorkerError};

pub use extract::{Candidate, Extracted, Prototype};
pub use prior::SubPrior;

/// File names inside a data directory.
pub const STORE_FILE: &str = "glovebox.redb";
pub const INDEX_FILE: &str = "index.usearch";
pub const INDEX_STATE_FILE: &str = "index.state";
/// Written before the fingerprint in [`INDEX_STATE_FILE`]: an index built from another
/// [`Memory::embedding_text`] is rebuilt at open.
const EMBEDDING_TEXT_VERSION: &str = "text2";

/// Most sentences kept as evidence on one preference (the oldest are dropped first).
pub const MAX_SENTENCES: usize = 8;

/// Errors of the memory layer: each says what was wrong.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Embed(#[from] EmbedError),
    #[error(transparent)]
    Llm(#[from] LlmError),
    #[error(transparent)]
    Worker(#[from] WorkerError),
    #[error(transparent)]
    Conversation(#[from] ConversationError),
    #[error(transparent)]
    Schema(#[from] SchemaError),
    #[error(transparent)]
    Extraction(#[from] extract::ParseError),
    #[error(transparent)]
    Gate(#[from] gate::GateError),
    #[error(transparent)]
    Relevance(#[from] relevance::RelevanceError),
    #[error(transparent)]
    Maintenance(#[from] maintain::ParseError),
    #[error(transparent)]
    User(#[from] crate::pref::InvalidUserId),
    #[error("user {user} has no preference with id {id}")]
    NotFound { user: String, id: PreferenceId },
    #[error("preference {id} of user {user} is not pending confirmation (it is already active)")]
    NotPending { user: String, id: PreferenceId },
    #[error("cannot use data directory {path}: {source}")]
    DataDir {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The result of extraction on one conversation.
#[derive(Debug, Clone)]
pub struct Extraction {
    /// The categories the embedder offered, best first.
    pub offered: Vec<Candidate>,
    /// Per user sentence, the preference gate's probability that it states a lasting
    /// preference (only sentences at or above the gate's threshold offer).
    pub gate: Vec<f32>,
    pub items: Vec<Extracted>,
    /// The LLM's raw answer (empty when nothing was offered and the model was not asked).
    pub answer: String,
    /// Tokens the LLM decoded for the answer (0 when it was scored in one pass, cached, or not
    /// asked): with the prompt, what llama.cpp's raw cost is measured on.
    pub decoded_tokens: usize,
    pub ms: f64,
}

/// What remembering one extracted preference did.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub extracted: Extracted,
    pub op: Maintenance,
    /// The stored preference after the operation.
    pub preference: Preference,
    /// The stored preference the operation replaced (update) or confirmed (pass).
    pub previous: Option<Preference>,
}

/// One recalled preference.
#[derive(Debug, Clone)]
pub struct Recalled {
    pub preference: Preference,
    /// Relevance to the utterance, the ranking's key: the cosine similarity of the utterance and
    /// the preference's embedding text, plus, with the subcategory prior on (`recall.sub_prior`),
    /// that weight times the log-probability that the utterance is about the preference's
    /// subcategory (≤ 0, so the score can be negative).
    pub score: f32,
    /// The utterance's cosine similarity to the preference's embedding text.
    pub cosine: f32,
    /// `ln(P(the preference's subcategory | utterance) + FLOOR)` (0 without the prior).
    pub log_prior: f32,
    /// The calibrated probability, in [0, 1], that the preference matters for the utterance
    /// (`memory::relevance`); recall returns only those at or above `recall.min_relevance`.
    pub relevance: f32,
}

/// A preference to store as it is, without extraction or maintenance (import, evaluation).
#[derive(Debug, Clone)]
pub struct NewPreference {
    pub detail: DetailId,
    pub attribute: String,
    pub sentences: Vec<String>,
}

/// What `forget` removes.
#[derive(Debug, Clone, Copy)]
pub enum ForgetWhat {
    One(PreferenceId),
    Category(CategoryRef),
    All,
}

struct IndexState {
    index: VectorIndex,
    /// XOR of the hashes of every stored (id, updated): order-free, so it is kept up to date
    /// change by change and compared in full at open.
    fingerprint: u64,
}

/// The models one process runs, loaded once and shared by every [`Memory`] it opens (the
/// eval harness opens a fresh memory per user; tests open many).
pub struct Models {
    cfg: Config,
    schema: Arc<Schema>,
    embedder: Worker<Embedder>,
    llm: OnceLock<Llm>,
    /// Decides which sentences state a lasting preference at all.
    gate: gate::Gate,
    /// Decides which recalled preferences matter for an utterance at all.
    relevance: relevance::Relevance,
    prototypes: OnceLock<Arc<Vec<Prototype>>>,
    prior: OnceLock<Arc<SubPrior>>,
    extract_prefix: Arc<str>,
    maintain_prefix: Arc<str>,
    /// Recent extraction answers by (prompt, grammar). Greedy decoding is deterministic, so an
    /// identical request (the same conversation remembered again) reuses the answer.
    answers: Mutex<HashMap<(String, String), (String, Vec<f32>)>>,
}

/// How many of the nearest preferences recall re-ranks with the subcategory prior (a user's
/// preferences in one car number in the tens to hundreds; beyond this many, the cosine alone
/// decides which are considered).
pub const RERANK: usize = 64;

/// Most answers kept in [`Models`]' answer cache.
const ANSWER_CACHE: usize = 256;

impl Models {
    /// Loads the schema and the embedder; the LLM is loaded on first use (recall does not need
    /// it), or now with [`Models::load_llm`].
    pub fn load(cfg: &Config) -> Result<Arc<Models>, MemoryError> {
        let schema = Arc::new(match &cfg.schema {
            Some(p) => Schema::load(p)?,
            None => Schema::embedded(),
        });
        let mut gate = gate::Gate::load(cfg.extraction.gate.as_deref(), EMBED_DIM)?;
        if let Some(t) = cfg.extraction.gate_threshold {
            gate.threshold = t;
        }
        let mut relevance = match &cfg.recall.relevance {
            None => relevance::Relevance::embedded(),
            Some(p) => {
                let text = std::fs::read_to_string(p).map_err(|e| relevance::RelevanceError {
                    path: p.display().to_string(),
                    problem: e.to_string(),
                })?;
                relevance::Relevance::parse(&text, &p.display().to_string())?
            }
        };
        if let Some(t) = cfg.recall.min_relevance {
            relevance.threshold = t;
        }
        let emb_path = cfg.embedder_path();
        let embedder = Worker::spawn("embedder", cfg.server.queue.max(64), move || {
            Embedder::load(&emb_path).map_err(MemoryError::from)
        })?;
        Ok(Arc::new(Models {
            cfg: cfg.clone(),
            extract_prefix: extract::prompt_prefix(&schema).into(),
            maintain_prefix: maintain::prompt_prefix().into(),
            schema,
            embedder,
            llm: OnceLock::new(),
            gate,
            relevance,
            prototypes: OnceLock::new(),
            prior: OnceLock::new(),
            answers: Mutex::new(HashMap::new()),
        }))
    }

    pub fn schema(&self) -> &Arc<Schema> {
        &self.schema
    }

    /// Recall's relevance model, with the threshold in force.
    pub fn relevance(&self) -> &relevance::Relevance {
        &self.relevance
    }

    /// Extraction's preference gate, with the threshold in force.
    pub fn gate(&self) -> &gate::Gate {
        &self.gate
    }

    /// The LLM, loading it on first use.
    pub fn load_llm(&self) -> Result<&Llm, MemoryError> {
        if let Some(l) = self.llm.get() {
            return Ok(l);
        }
        let l = Llm::spawn(&self.cfg.llm_path(), &self.cfg.llm, self.cfg.server.queue)?;
        Ok(self.llm.get_or_init(|| l))
    }

    /// Loads the LLM and evaluates the prompt prefixes now, so that the first request does not
    /// pay for them.
    pub fn warm_up(&self) -> Result<(), MemoryError> {
        self.prototypes()?;
        let llm = self.load_llm()?;
        for prefix in [&self.extract_prefix, &self.maintain_prefix] {
            llm.complete(Request {
                prefix: prefix.clone(),
                prompt: "\n".into(),
                grammar: "root ::= \"none\\n\"\n".into(),
            })?;
        }
        Ok(())
    }

    /// Embeds texts on the embedder's thread.
    pub fn embed(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, MemoryError> {
        Ok(self.embedder.call(move |e| {
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            e.embed(&refs)
        })??)
    }

    /// [`Models::embed`] for async callers.
    pub async fn embed_async(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, MemoryError> {
        Ok(self
            .embedder
            .call_async(move |e| {
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                e.embed(&refs)
            })
            .await??)
    }

    /// The category prototypes: the schema's texts and the labelled examples, embedded once.
    fn prototypes(&self) -> Result<Arc<Vec<Prototype>>, MemoryError> {
        if let Some(p) = self.prototypes.get() {
            return Ok(p.clone());
        }
        let mut labelled: Vec<(DetailId, String, Option<String>)> =
            extract::prototype_texts(&self.schema)
                .into_iter()
                .map(|(d, t)| (d, t, None))
                .collect();
        let x = &self.cfg.extraction;
        if x.use_examples {
            let examples = self.labelled(x.examples.as_deref(), extract::DEFAULT_EXAMPLES)?;
            labelled.extend(examples.into_iter().map(|(d, e)| (d, e.sentence, e.source)));
        }
        let vecs = self.embed_fixed(labelled.iter().map(|(_, t, _)| t.clone()).collect())?;
        let protos: Vec<Prototype> = labelled
            .into_iter()
            .zip(vecs)
            .map(|((detail, _, source), vector)| Prototype {
                detail,
                vector,
                source,
            })
            .collect();
        Ok(self.prototypes.get_or_init(|| Arc::new(protos)).clone())
    }

    /// Embeds texts that are the same in every process (category prototypes, labelled
    /// requests), keeping the vectors in the user's cache directory when `llm.prefix_cache` is
    /// on, keyed by the embedder's files and the texts, so that a new process reads them instead
    /// of running the embedder over hundreds of texts (seconds) before its first answer.
    fn embed_fixed(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, MemoryError> {
        let file = self
            .cfg
            .llm
            .prefix_cache
            .then(|| directories::ProjectDirs::from("", "", "glovebox"))
            .flatten()
            .map(|d| {
                let key = self.fixed_key(&texts);
                d.cache_dir()
                    .join("embeddings")
                    .join(format!("{key:016x}.f32"))
            });
        if let Some(v) = file.as_deref().and_then(|f| read_vectors(f, texts.len())) {
            return Ok(v);
        }
        let vecs = self.embed(texts)?;
        if let Some(f) = &file {
            write_vectors(f, &vecs);
        }
        Ok(vecs)
    }

    fn fixed_key(&self, texts: &[String]) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        let dir = self.cfg.embedder_path();
        dir.hash(&mut h);
        for f in ["model.safetensors", "tokenizer.json", "config.json"] {
            if let Ok(m) = std::fs::metadata(dir.join(f)) {
                m.len().hash(&mut h);
                m.modified().ok().hash(&mut h);
            }
        }
        texts.hash(&mut h);
        env!("CARGO_PKG_VERSION").hash(&mut h);
        h.finish()
    }

    /// Labelled sentences (JSON lines) from `path`, or the built-in `default`.
    fn labelled(
        &self,
        path: Option<&Path>,
        default: &str,
    ) -> Result<Vec<(DetailId, extract::Example)>, MemoryError> {
        let text = match path {
            Some(p) => std::fs::read_to_string(p).map_err(|source| MemoryError::DataDir {
                path: p.to_path_buf(),
                source,
            })?,
            None => default.to_string(),
        };
        extract::parse_examples(&self.schema, &text)
            .map_err(|m| MemoryError::Schema(crate::schema::SchemaError::Invalid(m)))
    }

    /// Recall's subcategory prior (`memory::prior`), built on first use from the labelled
    /// requests; `None` when `recall.sub_prior` is 0.
    pub fn prior(&self) -> Result<Option<Arc<SubPrior>>, MemoryError> {
        if self.cfg.recall.sub_prior == 0.0 {
            return Ok(None);
        }
        if let Some(p) = self.prior.get() {
            return Ok(Some(p.clone()));
        }
        let requests = self.labelled(self.cfg.recall.queries.as_deref(), prior::DEFAULT_QUERIES)?;
        let vecs = self.embed_fixed(requests.iter().map(|(_, e)| e.sentence.clone()).collect())?;
        let labelled = requests
            .into_iter()
            .zip(vecs)
            .map(|((d, e), vector)| prior::LabelledRequest {
                sub: self.schema.detail(d).sub,
                vector,
                source: e.source,
            })
            .collect();
        let p = SubPrior::new(self.schema.subs().len(), labelled);
        Ok(Some(self.prior.get_or_init(|| Arc::new(p)).clone()))
    }

    /// Extracts preferences from a conversation within the allowed categories. Stores nothing.
    pub fn extract(
        &self,
        conversation: &Conversation,
        allowed: &DetailSet,
    ) -> Result<Extraction, MemoryError> {
        self.extract_excluding(conversation, allowed, None)
    }

    /// [`Models::extract`], leaving out the labelled examples that came from `exclude` (the
    /// evaluation measures each user without that user's own examples).
    ///
    /// The gate decides which user sentences state a lasting preference at all; each of those
    /// offers its best categories (`extract::offers`), and the LLM writes the value of each
    /// sentence's offer from that sentence, one question per sentence, so every preference
    /// carries its own evidence. A conversation no sentence of which passes the gate costs one
    /// embedder pass and no LLM call.
    pub fn extract_excluding(
        &self,
        conversation: &Conversation,
        allowed: &DetailSet,
        exclude: Option<&str>,
    ) -> Result<Extraction, MemoryError> {
        let t0 = Instant::now();
        let sentences = conversation.user_sentences();
        let protos = self.prototypes()?;
        let vecs = self.embed(sentences.clone())?;
        let gate: Vec<f32> = vecs.iter().map(|v| self.gate.probability(v)).collect();
        let passes: Vec<bool> = gate.iter().map(|&p| self.gate.passes(p)).collect();
        let scores = extract::sentence_scores(&self.schema, &protos, &vecs, exclude);
        let x = &self.cfg.extraction;
        let offered = extract::offers(
            &self.schema,
            &scores,
            &passes,
            allowed,
            x.min_similarity,
            x.margin,
            x.shortlist,
            x.max_preferences,
        );
        let mut out = Extraction {
            offered: offered.clone(),
            gate,
            items: Vec::new(),
            answer: String::new(),
            decoded_tokens: 0,
            ms: 0.0,
        };
        for group in extract::by_sentence(&offered) {
            let (answer, conf, decoded) = self.answer(&sentences, &group)?;
            let full = extract::full_answer(&self.schema, &group, &answer);
            for item in extract::parse(&self.schema, &full, &group, &sentences, &conf)? {
                let dup = out
                    .items
                    .iter()
                    .any(|e| e.detail == item.detail && e.attribute == item.attribute);
                if !dup && out.items.len() < x.max_preferences {
                    out.items.push(item);
                }
            }
            out.answer.push_str(&full);
            out.decoded_tokens += decoded;
        }
        out.ms = t0.elapsed().as_secs_f64() * 1e3;
        Ok(out)
    }

    /// The LLM's answer for one sentence's offer, with each line's confidence and the tokens
    /// decoded: from the answer cache, by scoring the named values in one forward pass, or by
    /// decoding under the grammar.
    fn answer(
        &self,
        sentences: &[String],
        offered: &[Candidate],
    ) -> Result<(String, Vec<f32>, usize), MemoryError> {
        let request = self.extraction_request(sentences, offered);
        let key = (request.prompt.clone(), request.grammar.clone());
        if let Some((text, conf)) = lock(&self.answers).get(&key).cloned() {
            return Ok((text, conf, 0));
        }
        let llm = self.load_llm()?;
        // One offered category whose value the user named: the answer is `none` or one of
        // those values, and one forward pass scores them (no decoding steps).
        let named = match offered {
            [only] => extract::scored_choices(&self.schema, only, sentences),
            _ => Vec::new(),
        };
        let mut options = vec![" none".to_string()];
        options.extend(named.iter().map(|v| format!(" {v}")));
        let choice = if named.is_empty() {
            None
        } else {
            llm.choose(request.clone(), options.clone())?
        };
        let (text, conf, decoded) = match choice {
            Some(c) => {
                let conf = if c.index == 0 {
                    Vec::new()
                } else {
                    vec![confidence::of_choice(&c.probs, c.index)]
                };
                (format!("{}\n", options[c.index]), conf, 0)
            }
            None => {
                let completion = llm.complete(request)?;
                tracing::debug!(
                    prompt_tokens = completion.prompt_tokens,
                    prompt_ms = completion.prompt_ms,
                    decode_ms = completion.decode_ms,
                    tokens = completion.steps.len(),
                    prefix_evaluated = completion.prefix_evaluated,
                    "extraction answer {:?}",
                    completion.text
                );
                let conf = confidence::of_decoded_lines(&completion.steps);
                let n = completion.steps.len();
                (completion.text, conf, n)
            }
        };
        let mut answers = lock(&self.answers);
        if answers.len() >= ANSWER_CACHE {
            answers.clear();
        }
        answers.insert(key, (text.clone(), conf.clone()));
        Ok((text, conf, decoded))
    }

    /// The LLM request that extraction makes for these user sentences and offered categories:
    /// the cached instructions as prefix, the sentences and the started answer as prompt, and
    /// the grammar of what may follow.
    pub fn extraction_request(&self, sentences: &[String], offered: &[Candidate]) -> Request {
        Request {
            prefix: self.extract_prefix.clone(),
            prompt: extract::prompt(&self.schema, sentences, offered),
            grammar: extract::grammar(
                &self.schema,
                offered,
                sentences,
                self.cfg.extraction.max_preferences,
            ),
        }
    }

    /// Forgets the remembered extraction answers, so that the next extraction of a
    /// conversation asks the LLM again (benches measure the model, not the cache).
    pub fn clear_answer_cache(&self) {
        lock(&self.answers).clear();
    }
}

/// The memory runtime of one data directory.
pub struct Memory {
    cfg: Config,
    models: Arc<Models>,
    schema: Arc<Schema>,
    dir: PathBuf,
    store: Store,
    index: Mutex<IndexState>,
    /// Serialises read-decide-write sequences on the store (maintenance reads what it replaces).
    write: Mutex<()>,
    /// Set when the index had to be rebuilt at open.
    rebuilt: bool,
}

/// Reads `n` embedding vectors written by [`write_vectors`]; `None` if the file is missing or
/// has any other size.
fn read_vectors(path: &Path, n: usize) -> Option<Vec<Vec<f32>>> {
    let bytes = std::fs::read(path).ok()?;
    if n == 0 || bytes.len() != n * EMBED_DIM * 4 {
        return None;
    }
    let floats: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    Some(floats.chunks(EMBED_DIM).map(<[f32]>::to_vec).collect())
}

/// Writes vectors as little-endian f32, through a temporary file and a rename. Best effort: a
/// cache that cannot be written costs time at the next start, nothing else.
fn write_vectors(path: &Path, vecs: &[Vec<f32>]) {
    let bytes: Vec<u8> = vecs
        .iter()
        .flatten()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let ok = path
        .parent()
        .is_some_and(|d| std::fs::create_dir_all(d).is_ok())
        && std::fs::write(&tmp, bytes).is_ok()
        && std::fs::rename(&tmp, path).is_ok();
    if !ok {
        let _ = std::fs::remove_file(&tmp);
        tracing::debug!("could not cache embeddings in {}", path.display());
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock leaves plain data behind; keep serving.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn pref_hash(p: &Preference) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (p.id.0, p.updated.0).hash(&mut h);
    h.finish()
}

impl Memory {
    /// Opens (creating if needed) the data directory with freshly loaded models.
    pub fn open(dir: &Path, cfg: Config) -> Result<Memory, MemoryError> {
        let models = Models::load(&cfg)?;
        Memory::open_with(dir, cfg, models)
    }

    /// Opens (creating if needed) the data directory: the store and the index, rebuilding the
    /// index from the store when it is missing or out of step.
    pub fn open_with(dir: &Path, cfg: Config, models: Arc<Models>) -> Result<Memory, MemoryError> {
        std::fs::create_dir_all(dir).map_err(|source| MemoryError::DataDir {
            path: dir.to_path_buf(),
            source,
        })?;
        let schema = models.schema.clone();
        let store = Store::open(&dir.join(STORE_FILE), schema.clone())?;
        let mut m = Memory {
            cfg,
            models,
            schema,
            dir: dir.to_path_buf(),
            store,
            index: Mutex::new(IndexState {
                index: VectorIndex::new(EMBED_DIM)?,
                fingerprint: 0,
            }),
            write: Mutex::new(()),
            rebuilt: false,
        };
        m.rebuilt = m.reconcile_index()?;
        // Retention's housekeeping pass at start (the server repeats it daily).
        m.housekeeping()?;
        Ok(m)
    }

    pub fn models(&self) -> &Arc<Models> {
        &self.models
    }

    pub fn schema(&self) -> &Arc<Schema> {
        &self.schema
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn data_dir(&self) -> &Path {
        &self.dir
    }

    /// Whether opening had to rebuild the vector index from the store.
    pub fn index_was_rebuilt(&self) -> bool {
        self.rebuilt
    }

    /// Number of vectors in the index.
    pub fn index_len(&self) -> usize {
        lock(&self.index).index.len()
    }

    fn embed(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, MemoryError> {
        self.models.embed(texts)
    }

    fn load_llm(&self) -> Result<&Llm, MemoryError> {
        self.models.load_llm()
    }

    /// The text a preference is embedded from: "subcategory detail category: attribute.
    /// sentences". Recall queries name the subcategory far more often than the detail (dev
    /// split, all 50 users, embedder-only probe: top n .81 → .86 with the subcategory's name).
    pub fn embedding_text(&self, p: &Preference) -> String {
        let detail = self.schema.detail(p.detail);
        format!(
            "{} {}: {}. {}",
            self.schema.sub(detail.sub).name,
            detail.name,
            p.attribute,
            p.sentences.join(" ")
        )
    }

    // ---- index upkeep ----

    fn index_paths(&self) -> (PathBuf, PathBuf) {
        (self.dir.join(INDEX_FILE), self.dir.join(INDEX_STATE_FILE))
    }

    /// Loads the index if it reflects the store, otherwise rebuilds it. Returns whether it rebuilt.
    fn reconcile_index(&mut self) -> Result<bool, MemoryError> {
        let prefs = self.store.all()?;
        let fingerprint = prefs.iter().fold(0u64, |f, p| f ^ pref_hash(p));
        let ids: BTreeSet<u64> = prefs.iter().map(|p| p.id.0).collect();
        let (index_path, state_path) = self.index_paths();
        let saved_fp = std::fs::read_to_string(&state_path).ok().and_then(|s| {
            s.trim()
                .strip_prefix(EMBEDDING_TEXT_VERSION)
                .and_then(|f| f.trim().parse::<u64>().ok())
        });
        if saved_fp == Some(fingerprint) && index_path.exists() {
            match VectorIndex::load(&index_path, EMBED_DIM) {
                Ok(index) if index.keys() == ids => {
                    *lock(&self.index) = IndexState { index, fingerprint };
                    return Ok(false);
                }
                Ok(_) => tracing::warn!("index keys differ from the store: rebuilding"),
                Err(e) => tracing::warn!("cannot load the index ({e}): rebuilding"),
            }
        } else if index_path.exists() || !prefs.is_empty() {
            tracing::warn!("index is missing or out of step with the store: rebuilding");
        }
        let mut index = VectorIndex::new(EMBED_DIM)?;
        for chunk in prefs.chunks(64) {
            let vecs = self.embed(chunk.iter().map(|p| self.embedding_text(p)).collect())?;
            for (p, v) in chunk.iter().zip(vecs) {
                index.add(p.id.0, &v)?;
            }
        }
        let mut st = IndexState { index, fingerprint };
        self.save_index(&mut st)?;
        *lock(&self.index) = st;
        Ok(!prefs.is_empty() || saved_fp.is_some())
    }

    fn save_index(&self, st: &mut IndexState) -> Result<(), MemoryError> {
        let (index_path, state_path) = self.index_paths();
        st.index.save(&index_path)?;
        let tmp = state_path.with_extension("state.tmp");
        let io = |source| MemoryError::DataDir {
            path: state_path.clone(),
            source,
        };
        std::fs::write(&tmp, format!("{EMBEDDING_TEXT_VERSION} {}", st.fingerprint)).map_err(io)?;
        std::fs::rename(&tmp, &state_path).map_err(io)?;
        Ok(())
    }

    /// Commits `changes` to the store, then brings the index in step: `added` preferences are
    /// (re)embedded, `removed` ones dropped. Embedding happens before the commit, so a failure
    /// there leaves everything as it was.
    fn commit(
        &self,
        changes: Vec<Change>,
        added: &[Preference],
        removed: &[Preference],
    ) -> Result<(), MemoryError> {
        let vecs = if added.is_empty() {
            Vec::new()
        } else {
            self.embed(added.iter().map(|p| self.embedding_text(p)).collect())?
        };
        self.store.apply(changes)?;
        let mut st = lock(&self.index);
        for p in removed {
            st.index.remove(p.id.0)?;
            st.fingerprint ^= pref_hash(p);
        }
        for (p, v) in added.iter().zip(vecs) {
            st.index.add(p.id.0, &v)?;
            st.fingerprint ^= pref_hash(p);
        }
        self.save_index(&mut st)
    }

    // ---- extraction and maintenance ----

    /// The details a user allows: the schema minus their opt-outs.
    pub fn allowed(&self, user: &UserId) -> Result<DetailSet, MemoryError> {
        let mut allowed = self.schema.all_details();
        for key in self.store.optouts(user)? {
            if let Ok(r) = self.schema.resolve(&key) {
                for d in self.schema.details_of(r) {
                    allowed.remove(d);
                }
            }
        }
        Ok(allowed)
    }

    /// Extracts preferences from a conversation within the allowed categories. Stores nothing.
    pub fn extract(
        &self,
        conversation: &Conversation,
        allowed: &DetailSet,
    ) -> Result<Extraction, MemoryError> {
        self.models.extract(conversation, allowed)
    }

    /// Decides what an incoming preference does to the user's stored ones in its category.
    pub fn decide(
        &self,
        user: &UserId,
        incoming: &Extracted,
    ) -> Result<(Maintenance, Vec<Preference>), MemoryError> {
        let stored = self.store.in_category(user, incoming.detail)?;
        if stored.is_empty() {
            return Ok((Maintenance::New, stored));
        }
        let detail = self.schema.detail(incoming.detail);
        let options = maintain::Options::new(
            detail.cardinality,
            &stored,
            &incoming.attribute,
            &incoming.sentence,
        );
        if let Some(op) = options.forced() {
            return Ok((op, stored));
        }
        if let Some(op) = options.by_negation(&incoming.sentence) {
            return Ok((op, stored));
        }
        let llm = self.load_llm()?;
        let request = Request {
            prefix: self.models.maintain_prefix.clone(),
            prompt: maintain::prompt(detail, &stored, &incoming.attribute, &incoming.sentence),
            grammar: options.grammar(),
        };
        // Answers that differ in their first token are scored in one forward pass.
        let answers = options.answers();
        let text = match llm.choose(request.clone(), answers.clone())? {
            Some(c) => answers[c.index].clone(),
            None => llm.complete(request)?.text,
        };
        let op = options.parse(&text)?;
        Ok((op, stored))
    }

    /// Maintains one incoming preference against the store and applies the decision.
    ///
    /// An extraction below `extraction.confirm_below` is uncertain, and the rules keep an
    /// uncertain value from ever displacing a confirmed one:
    /// * new or appended: stored pending;
    /// * a pass on a pending preference: the repetition confirms it when the incoming extraction
    ///   is itself certain (as [`Memory::confirm`] would); otherwise it stays pending;
    /// * an update of an active preference: the new value is stored pending *beside* it, noting
    ///   which one it replaces; the old value stays active (and recalled) until the new one is
    ///   confirmed, and stays for good if it is rejected;
    /// * an update of a pending preference: the new value replaces it, pending if uncertain (and
    ///   inherits what it was to replace), active if certain (and then also replaces that).
    pub fn maintain(&self, user: &UserId, incoming: &Extracted) -> Result<Outcome, MemoryError> {
        let _w = lock(&self.write);
        let (op, stored) = self.decide(user, incoming)?;
        let now = Millis::now();
        let uncertain = incoming.confidence < self.cfg.extraction.confirm_below;
        let fresh = |id: PreferenceId, status: Status, replaces: Option<PreferenceId>| Preference {
            id,
            user: user.clone(),
            detail: incoming.detail,
            attribute: incoming.attribute.clone(),
            sentences: vec![incoming.sentence.clone()],
            status,
            confidence: incoming.confidence,
            created: now,
            updated: now,
            last_recalled: None,
            replaces,
        };
        let status = if uncertain {
            Status::Pending
        } else {
            Status::Active
        };
        let history = |op, before: Option<&Preference>, after: &Preference| {
            Change::History(
                user.clone(),
                HistoryEntry {
                    time: now,
                    op,
                    category: self.schema.detail(incoming.detail).key.clone(),
                    before: before.cloned(),
                    after: Some(after.clone()),
                    sentence: Some(incoming.sentence.clone()),
                },
            )
        };
        let find = |id: PreferenceId| stored.iter().find(|p| p.id == id).cloned();
        let (after, previous, changes, removed) = match op {
            Maintenance::New | Maintenance::Append => {
                let p = fresh(self.store.allocate_ids(1)?[0], status, None);
                let changes = vec![Change::Put(p.clone()), history(Operation::Append, None, &p)];
                (p, None, changes, Vec::new())
            }
            Maintenance::Pass(id) => {
                let before = find(id).expect("maintenance ids are among the stored");
                let mut p = before.clone();
                if !p.sentences.contains(&incoming.sentence) {
                    p.sentences.push(incoming.sentence.clone());
                    if p.sentences.len() > MAX_SENTENCES {
                        p.sentences.remove(0);
                    }
                }
                p.updated = now;
                p.confidence = p.confidence.max(incoming.confidence);
                let mut changes = Vec::new();
                let mut removed = vec![before.clone()];
                if before.status == Status::Pending && !uncertain {
                    p.status = Status::Active;
                    p.replaces = None;
                    let replaced = self.replaced_on_confirm(&before, &stored);
                    changes.extend(self.replace_changes(user, &replaced, &p, now));
                    removed.extend(replaced);
                }
                changes.insert(0, Change::Put(p.clone()));
                changes.insert(1, history(Operation::Pass, Some(&before), &p));
                (p, Some(before), changes, removed)
            }
            Maintenance::Update(id) => {
                let before = find(id).expect("maintenance ids are among the stored");
                let id = self.store.allocate_ids(1)?[0];
                let (p, removed) = match (before.status, uncertain) {
                    // Uncertain news never displaces a confirmed value: wait beside it.
                    (Status::Active, true) => (fresh(id, Status::Pending, Some(before.id)), vec![]),
                    (Status::Active, false) => {
                        (fresh(id, Status::Active, None), vec![before.clone()])
                    }
                    (Status::Pending, true) => (
                        fresh(id, Status::Pending, before.replaces),
                        vec![before.clone()],
                    ),
                    (Status::Pending, false) => {
                        let mut removed = vec![before.clone()];
                        removed.extend(
                            before
                                .replaces
                                .and_then(|r| find(r))
                                .filter(|r| r.status == Status::Active),
                        );
                        (fresh(id, Status::Active, None), removed)
                    }
                };
                let mut changes: Vec<Change> =
                    removed.iter().map(|r| Change::Delete(r.id)).collect();
                changes.push(Change::Put(p.clone()));
                changes.push(history(Operation::Update, Some(&before), &p));
                for r in removed.iter().filter(|r| r.id != before.id) {
                    changes.push(history(Operation::Update, Some(r), &p));
                }
                (p, Some(before), changes, removed)
            }
        };
        self.commit(changes, std::slice::from_ref(&after), &removed)?;
        Ok(Outcome {
            extracted: incoming.clone(),
            op,
            preference: after,
            previous,
        })
    }

    /// The preferences that confirming `pending` replaces: in a single-value category every
    /// other preference of the category (they contradict the confirmed value); in a multi-value
    /// category the one its uncertain update named, if it is still stored.
    fn replaced_on_confirm(&self, pending: &Preference, stored: &[Preference]) -> Vec<Preference> {
        let single = self.schema.detail(pending.detail).cardinality == Cardinality::Single;
        stored
            .iter()
            .filter(|p| p.id != pending.id && (single || Some(p.id) == pending.replaces))
            .cloned()
            .collect()
    }

    /// Deletes `replaced`, recording each as updated to `by`.
    fn replace_changes(
        &self,
        user: &UserId,
        replaced: &[Preference],
        by: &Preference,
        now: Millis,
    ) -> Vec<Change> {
        let mut changes = Vec::new();
        for r in replaced {
            changes.push(Change::Delete(r.id));
            changes.push(Change::History(
                user.clone(),
                HistoryEntry {
                    time: now,
                    op: Operation::Update,
                    category: self.schema.detail(r.detail).key.clone(),
                    before: Some(r.clone()),
                    after: Some(by.clone()),
                    sentence: None,
                },
            ));
        }
        changes
    }

    /// The user's preference `id`, or `NotFound` (also when it belongs to someone else).
    fn owned(&self, user: &UserId, id: PreferenceId) -> Result<Preference, MemoryError> {
        self.store
            .get(id)?
            .filter(|p| &p.user == user)
            .ok_or_else(|| MemoryError::NotFound {
                user: user.to_string(),
                id,
            })
    }

    fn pending(&self, user: &UserId, id: PreferenceId) -> Result<Preference, MemoryError> {
        let p = self.owned(user, id)?;
        if p.status != Status::Pending {
            return Err(MemoryError::NotPending {
                user: user.to_string(),
                id,
            });
        }
        Ok(p)
    }

    /// The user confirms a pending preference: it becomes active (recalled from now on) and
    /// replaces what its uncertain update was to replace (see [`Memory::maintain`]). Recorded in
    /// history as a confirm. Returns the confirmed preference.
    pub fn confirm(&self, user: &UserId, id: PreferenceId) -> Result<Preference, MemoryError> {
        let _w = lock(&self.write);
        let before = self.pending(user, id)?;
        let stored = self.store.in_category(user, before.detail)?;
        let now = Millis::now();
        let mut after = before.clone();
        after.status = Status::Active;
        after.replaces = None;
        after.updated = now;
        let replaced = self.replaced_on_confirm(&before, &stored);
        let mut changes = vec![
            Change::Put(after.clone()),
            Change::History(
                user.clone(),
                HistoryEntry {
                    time: now,
                    op: Operation::Confirm,
                    category: self.schema.detail(before.detail).key.clone(),
                    before: Some(before.clone()),
                    after: Some(after.clone()),
                    sentence: None,
                },
            ),
        ];
        changes.extend(self.replace_changes(user, &replaced, &after, now));
        let mut removed = vec![before];
        removed.extend(replaced);
        self.commit(changes, std::slice::from_ref(&after), &removed)?;
        Ok(after)
    }

    /// The user rejects a pending preference: it is deleted like a forgotten one (its history
    /// is scrubbed; only "a reject happened in category C" is kept), and whatever it was to
    /// replace stays. Returns the rejected preference.
    pub fn reject(&self, user: &UserId, id: PreferenceId) -> Result<Preference, MemoryError> {
        let _w = lock(&self.write);
        let p = self.pending(user, id)?;
        self.delete(user, vec![p.clone()], Operation::Reject, Millis::now())?;
        Ok(p)
    }

    // ---- retention ----

    /// Expires the preferences unused for `retention.expire_unused_days` at time `now` (see
    /// [`retention::last_used`]), like a forget: gone from store, index and history, with only
    /// "an expiry happened in category C" recorded. Does nothing when retention is off.
    /// Returns the expired preferences.
    pub fn expire_unused_at(&self, now: Millis) -> Result<Vec<Preference>, MemoryError> {
        let Some(days) = self.cfg.retention.expire_unused_days else {
            return Ok(Vec::new());
        };
        let _w = lock(&self.write);
        let mut by_user: std::collections::BTreeMap<UserId, Vec<Preference>> = Default::default();
        for p in self.store.all()? {
            if retention::is_expired(&p, now, days) {
                by_user.entry(p.user.clone()).or_default().push(p);
            }
        }
        let mut out = Vec::new();
        for (user, prefs) in by_user {
            out.extend(self.delete(&user, prefs, Operation::Expire, now)?);
        }
        Ok(out)
    }

    /// The housekeeping pass, run at open and once a day while serving: retention expiry now.
    /// Returns how many preferences expired.
    pub fn housekeeping(&self) -> Result<usize, MemoryError> {
        let n = self.expire_unused_at(Millis::now())?.len();
        if n > 0 {
            tracing::info!("housekeeping: {n} unused preference(s) expired");
        }
        Ok(n)
    }

    /// Extracts preferences from a finished conversation and maintains each against the store.
    pub fn remember(
        &self,
        user: &UserId,
        conversation: &Conversation,
    ) -> Result<Vec<Outcome>, MemoryError> {
        let allowed = self.allowed(user)?;
        let extraction = self.extract(conversation, &allowed)?;
        extraction
            .items
            .iter()
            .map(|e| self.maintain(user, e))
            .collect()
    }

    /// Stores preferences as they are (no extraction, no maintenance), each as a new
    /// preference recorded in history as an import. Returns them in the order given.
    pub fn import(
        &self,
        user: &UserId,
        prefs: Vec<NewPreference>,
    ) -> Result<Vec<Preference>, MemoryError> {
        self.import_as(
            user,
            prefs
                .into_iter()
                .map(|n| (n, Status::Active, 1.0))
                .collect(),
        )
    }

    /// [`Memory::import`] keeping each preference's status and confidence (an export's pending
    /// preferences stay pending).
    pub fn import_as(
        &self,
        user: &UserId,
        prefs: Vec<(NewPreference, Status, f32)>,
    ) -> Result<Vec<Preference>, MemoryError> {
        let _w = lock(&self.write);
        let now = Millis::now();
        let ids = self.store.allocate_ids(prefs.len())?;
        let stored: Vec<Preference> = prefs
            .into_iter()
            .zip(ids)
            .map(|((n, status, confidence), id)| Preference {
                id,
                user: user.clone(),
                detail: n.detail,
                attribute: n.attribute,
                sentences: n.sentences,
                status,
                confidence: confidence.clamp(0.0, 1.0),
                created: now,
                updated: now,
                last_recalled: None,
                replaces: None,
            })
            .collect();
        let mut changes = Vec::new();
        for p in &stored {
            changes.push(Change::Put(p.clone()));
            changes.push(Change::History(
                user.clone(),
                HistoryEntry {
                    time: now,
                    op: Operation::Import,
                    category: self.schema.detail(p.detail).key.clone(),
                    before: None,
                    after: Some(p.clone()),
                    sentence: None,
                },
            ));
        }
        self.commit(changes, &stored, &[])?;
        Ok(stored)
    }

    /// Rewrites the store and the index with only what is live, so that nothing deleted
    /// (forgotten preferences, history) is left in any file of the data directory.
    pub fn compact(&mut self) -> Result<(), MemoryError> {
        self.store.compact()?;
        // A fresh index file holds no removed vectors: rebuild it from the store.
        let (index_path, state_path) = self.index_paths();
        for p in [&state_path, &index_path] {
            let _ = std::fs::remove_file(p);
        }
        self.reconcile_index()?;
        Ok(())
    }

    // ---- recall ----

    /// The `k` most relevant of the user's active preferences for an utterance, best first.
    pub fn recall(
        &self,
        user: &UserId,
        text: &str,
        k: usize,
    ) -> Result<Vec<Recalled>, MemoryError> {
        self.recall_excluding(user, text, k, None)
    }

    /// [`Memory::recall`], the subcategory prior leaving out the labelled requests that came from
    /// `exclude` (the evaluation measures each user without that user's own requests).
    pub fn recall_excluding(
        &self,
        user: &UserId,
        text: &str,
        k: usize,
        exclude: Option<&str>,
    ) -> Result<Vec<Recalled>, MemoryError> {
        let query = self
            .embed(vec![text.to_string()])?
            .pop()
            .unwrap_or_default();
        self.recall_vector(user, &query, k, exclude)
    }

    /// [`Memory::recall_excluding`] with the utterance already embedded: the top `k` of
    /// [`Memory::rank`] whose relevance reaches `recall.min_relevance`. An utterance that no
    /// stored preference serves returns nothing.
    pub fn recall_vector(
        &self,
        user: &UserId,
        query: &[f32],
        k: usize,
        exclude: Option<&str>,
    ) -> Result<Vec<Recalled>, MemoryError> {
        let min = self.models.relevance.threshold;
        let mut out = self.rank(user, query, k, exclude)?;
        out.retain(|r| r.relevance >= min);
        out.truncate(k);
        self.touch(&out);
        Ok(out)
    }

    /// The user's active preferences nearest the utterance, ranked, each with its relevance;
    /// no relevance cut (the evaluation fits the relevance model on these).
    ///
    /// The search is restricted to the user's ids (from the store's per-user lookup, without
    /// decoding records); only the hits are read, so the cost does not grow with what is stored.
    /// Without the subcategory prior the hits are the ranking; with it, the nearest
    /// [`RERANK`]`.max(k)` are re-ranked by cosine + `recall.sub_prior` × log P(subcategory)
    /// ([`prior`]). A hit that is not active (pending confirmation) is left out and the search
    /// repeated without it.
    pub fn rank(
        &self,
        user: &UserId,
        query: &[f32],
        k: usize,
        exclude: Option<&str>,
    ) -> Result<Vec<Recalled>, MemoryError> {
        let ids = self.store.ids_of(user)?;
        if ids.is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        let prior = self.models.prior()?;
        let want = if prior.is_some() { RERANK.max(k) } else { k };
        let mut inactive: HashSet<u64> = HashSet::new();
        let mut out = loop {
            let hits = lock(&self.index).index.search(query, want, |key| {
                ids.contains(&key) && !inactive.contains(&key)
            })?;
            let keys: Vec<u64> = hits.iter().map(|h| h.0).collect();
            let mut out = Vec::with_capacity(hits.len());
            let mut left_out = false;
            for ((key, score), p) in hits.into_iter().zip(self.store.get_many(&keys)?) {
                match p {
                    Some(preference) if preference.status == Status::Active => out.push(Recalled {
                        preference,
                        score,
                        cosine: score,
                        log_prior: 0.0,
                        relevance: 0.0,
                    }),
                    _ => {
                        inactive.insert(key);
                        left_out = true;
                    }
                }
            }
            if !left_out {
                break out;
            }
        };
        if let Some(prior) = prior {
            let lp = prior.log_probs(query, self.cfg.recall.sub_sharpness, exclude);
            let w = self.cfg.recall.sub_prior;
            for r in &mut out {
                let sub = self.schema.detail(r.preference.detail).sub;
                r.log_prior = lp[sub.index()];
                r.score += w * r.log_prior;
            }
            out.sort_by(|a, b| b.score.total_cmp(&a.score));
        }
        let top = out.first().map_or(0.0, |r| r.score);
        for r in &mut out {
            let f = relevance::features(r.cosine, r.log_prior, r.score - top);
            r.relevance = self.models.relevance.probability(&f);
        }
        Ok(out)
    }

    /// Records when preferences were last recalled (for retention), at most once a day each so
    /// that recall stays read-mostly. Skipped when a write is under way (recall never waits
    /// behind maintenance); a failure here never fails the recall.
    fn touch(&self, recalled: &[Recalled]) {
        const DAY_MS: u64 = 24 * 3600 * 1000;
        let now = Millis::now();
        let stale = |p: &Preference| p.last_recalled.is_none_or(|t| t.0 + DAY_MS < now.0);
        if !recalled.iter().any(|r| stale(&r.preference)) {
            return;
        }
        let Ok(_w) = self.write.try_lock() else {
            return;
        };
        // Re-read under the lock: the copies in `recalled` may be older than the store.
        let mut changes = Vec::new();
        for r in recalled {
            if let Ok(Some(mut p)) = self.store.get(r.preference.id) {
                if stale(&p) {
                    p.last_recalled = Some(now);
                    changes.push(Change::Put(p));
                }
            }
        }
        if let Err(e) = self.store.apply(changes) {
            tracing::warn!("cannot record recall times: {e}");
        }
    }

    // ---- listing, forgetting, opting out ----

    pub fn list(&self, user: &UserId) -> Result<Vec<Preference>, MemoryError> {
        Ok(self.store.list(user)?)
    }

    pub fn history(&self, user: &UserId) -> Result<Vec<HistoryEntry>, MemoryError> {
        Ok(self.store.history(user)?)
    }

    /// Forgets preferences; returns those removed.
    pub fn forget(&self, user: &UserId, what: ForgetWhat) -> Result<Vec<Preference>, MemoryError> {
        let _w = lock(&self.write);
        let now = Millis::now();
        match what {
            ForgetWhat::All => {
                let prefs = self.store.list(user)?;
                self.store.forget_user(user)?;
                let mut st = lock(&self.index);
                for p in &prefs {
                    st.index.remove(p.id.0)?;
                    st.fingerprint ^= pref_hash(p);
                }
                self.save_index(&mut st)?;
                Ok(prefs)
            }
            ForgetWhat::One(id) => {
                let p = self.owned(user, id)?;
                self.delete(user, vec![p], Operation::Forget, now)
            }
            ForgetWhat::Category(r) => {
                let mut prefs = Vec::new();
                for d in self.schema.details_of(r) {
                    prefs.extend(self.store.in_category(user, d)?);
                }
                self.delete(user, prefs, Operation::Forget, now)
            }
        }
    }

    /// Deletes preferences, recording the operation in history without their contents: what
    /// was forgotten is not kept anywhere.
    fn delete(
        &self,
        user: &UserId,
        prefs: Vec<Preference>,
        op: Operation,
        now: Millis,
    ) -> Result<Vec<Preference>, MemoryError> {
        // What was forgotten leaves no trace: its earlier history entries go too.
        let mut changes = vec![Change::ScrubHistory(
            user.clone(),
            prefs.iter().map(|p| p.id).collect(),
        )];
        for p in &prefs {
            changes.push(Change::Delete(p.id));
            changes.push(Change::History(
                user.clone(),
                HistoryEntry {
                    time: now,
                    op,
                    category: self.schema.detail(p.detail).key.clone(),
                    before: None,
                    after: None,
                    sentence: None,
                },
            ));
        }
        if !prefs.is_empty() {
            self.commit(changes, &[], &prefs)?;
        }
        Ok(prefs)
    }

    /// Opts a user out of a category: it can no longer be extracted, and what is stored in it
    /// is deleted now. Returns the deleted preferences.
    pub fn opt_out(
        &self,
        user: &UserId,
        category: CategoryRef,
    ) -> Result<Vec<Preference>, MemoryError> {
        let key = self.schema.ref_key(category).to_string();
        {
            let _w = lock(&self.write);
            self.store.apply(vec![
                Change::OptOut(user.clone(), key.clone()),
                Change::History(
                    user.clone(),
                    HistoryEntry {
                        time: Millis::now(),
                        op: Operation::OptOut,
                        category: key,
                        before: None,
                        after: None,
                        sentence: None,
                    },
                ),
            ])?;
        }
        self.forget(user, ForgetWhat::Category(category))
    }

    /// Takes back an opt-out.
    pub fn opt_in(&self, user: &UserId, category: CategoryRef) -> Result<(), MemoryError> {
        let key = self.schema.ref_key(category).to_string();
        let _w = lock(&self.write);
        self.store.apply(vec![
            Change::OptIn(user.clone(), key.clone()),
            Change::History(
                user.clone(),
                HistoryEntry {
                    time: Millis::now(),
                    op: Operation::OptIn,
                    category: key,
                    before: None,
                    after: None,
                    sentence: None,
                },
            ),
        ])?;
        Ok(())
    }

    /// The user's opt-outs as category references.
    pub fn optouts(&self, user: &UserId) -> Result<Vec<CategoryRef>, MemoryError> {
        Ok(self
            .store
            .optouts(user)?
            .iter()
            .filter_map(|k| self.schema.resolve(k).ok())
            .collect())
    }
}
