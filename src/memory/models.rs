//! The models one process runs (embedder, LLM, preference gate, relevance model) and what is
//! built from them once: the category prototypes and recall's subcategory prior, whose
//! embeddings are kept in the on-disk cache (`crate::cache`).

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use super::extract::{self, Prototype};
use super::{gate, maintain, offer, prior, relevance, MemoryError, SubPrior};
use crate::cache;
use crate::config::Config;
use crate::embed::{Embedder, Pooled, Tapped, EMBED_DIM};
use crate::gazetteer::{Gazetteer, GazetteerError};
use crate::llm::{Llm, Request};
use crate::schema::{DetailId, Schema};
use crate::worker::{Lane, Worker};

/// A cached extraction answer: its text and each line's confidence.
pub(super) type Answer = (String, Vec<f32>);

/// The models one process runs, loaded once and shared by every [`Memory`] it opens (the
/// eval harness opens a fresh memory per user; tests open many).
pub struct Models {
    pub(super) cfg: Config,
    pub(super) schema: Arc<Schema>,
    pub(super) embedder: Worker<Embedder>,
    pub(super) llm: OnceLock<Llm>,
    /// Decides which sentences state a lasting preference at all.
    pub(super) gate: gate::Gate,
    /// The lasting track (`extraction.hold_one_off`): tells a lasting preference from a
    /// one-off request; `None` when off.
    pub(super) lasting: Option<super::extraction::LastingTrack>,
    /// Reads whether a sentence turns down what it names (`extraction.refuse_by_model`);
    /// `None` when off.
    pub(super) refusal: Option<gate::Gate>,
    /// The offer decision with the threshold in force; `None` under `offers = "margin"`.
    pub(super) offer: Option<offer::OfferModel>,
    /// Decides which recalled preferences matter for an utterance at all.
    pub(super) relevance: relevance::Relevance,
    /// The gazetteer `extraction.stand_ins` reads, read at the first statement that says a
    /// name no category lists (its files are checked at load), the outcome kept: a corrupt
    /// file is read once and named at every extraction that needs it; `None` when off.
    pub(super) gazetteer: Option<OnceLock<Result<Arc<Gazetteer>, GazetteerError>>>,
    pub(super) prototypes: OnceLock<Arc<Vec<Prototype>>>,
    pub(super) prior: OnceLock<Arc<SubPrior>>,
    /// The embedder's identity (`index_state::embedder_identity`), computed once.
    embedder_id: OnceLock<String>,
    pub(super) extract_prefix: Arc<str>,
    pub(super) maintain_prefix: Arc<str>,
    /// Recent extraction answers by (prompt, grammar). Greedy decoding is deterministic, so an
    /// identical request (the same conversation remembered again) reuses the answer.
    pub(super) answers: Mutex<HashMap<(String, String), Answer>>,
    /// Sentence vectors embedded ahead of extraction ([`Models::embed_ahead`]), each taken out
    /// when extraction uses it: empty unless a caller embeds ahead.
    ahead: Mutex<HashMap<String, Tapped>>,
    /// Work done so far (`memory::counters`).
    pub(super) counters: super::counters::Counters,
}

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
        let lasting = if cfg.extraction.hold_one_off {
            Some(lasting_track(cfg, &gate)?)
        } else {
            None
        };
        let offer = offer_decision(
            cfg,
            cfg.extraction.offer_model.as_deref(),
            (offer::DEFAULT_OFFER, "(built-in config/offer.json)"),
        )?
        .map(|mut m| {
            if let Some(t) = cfg.extraction.offer_threshold {
                m.threshold = t;
            }
            m
        });
        let mut relevance = match &cfg.recall.relevance {
            None => relevance::Relevance::embedded(),
            Some(p) => {
                let text = std::fs::read_to_string(p).map_err(|e| relevance::RelevanceError {
                    path: p.display().to_string(),
                    problem: e.to_string(),
                })?;
                let r = relevance::Relevance::parse(&text, &p.display().to_string())?;
                r.check_dim(EMBED_DIM, &p.display().to_string())?;
                r
            }
        };
        if let Some(t) = cfg.recall.min_relevance {
            relevance.threshold = t;
            // 0 means every top-k candidate, so no relative floor either.
            if t == 0.0 {
                relevance.relative = 0.0;
            }
        }
        let emb_path = cfg.embedder_path();
        let embedder = Worker::spawn("embedder", cfg.server.queue.max(64), move || {
            Embedder::load(&emb_path).map_err(MemoryError::from)
        })?;
        if let Some(after) = gate.layer {
            embedder.call(move |e| e.check_tap(after))??;
        }
        let gazetteer = match cfg.extraction.stand_ins {
            true => {
                Gazetteer::check(&cfg.gazetteer_path())?;
                Some(OnceLock::new())
            }
            false => None,
        };
        let refusal = match cfg.extraction.refuse_by_model {
            true => {
                let (m, name) = gate_file(
                    cfg.extraction.refusal.as_deref(),
                    (gate::REFUSAL, "config/refusal.json"),
                )?;
                // It may read another layer than the gate (a schema's own gate, the vehicle
                // one, reads none): it then embeds its sentence again.
                if let Some(after) = m.layer {
                    embedder.call(move |e| e.check_tap(after))?.map_err(|e| {
                        gate::GateError::Invalid {
                            path: name,
                            problem: e.to_string(),
                        }
                    })?;
                }
                Some(m)
            }
            false => None,
        };
        Ok(Arc::new(Models {
            cfg: cfg.clone(),
            extract_prefix: extract::prompt_prefix(&schema).into(),
            maintain_prefix: maintain::prompt_prefix().into(),
            schema,
            embedder,
            llm: OnceLock::new(),
            gate,
            lasting,
            refusal,
            offer,
            relevance,
            gazetteer,
            prototypes: OnceLock::new(),
            prior: OnceLock::new(),
            embedder_id: OnceLock::new(),
            answers: Mutex::new(HashMap::new()),
            ahead: Mutex::new(HashMap::new()),
            counters: Default::default(),
        }))
    }

    /// The configuration the models were loaded with, and that every [`super::Memory`] opened
    /// with them runs under: the one owner of the `Config`.
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// The embedder's identity, as `index.state` records it.
    pub fn embedder_id(&self) -> &str {
        self.embedder_id
            .get_or_init(|| super::index_state::embedder_identity(&self.cfg.embedder_path()))
    }

    /// The work counters (`memory::counters`).
    pub fn counters(&self) -> &super::counters::Counters {
        &self.counters
    }

    pub fn schema(&self) -> &Arc<Schema> {
        &self.schema
    }

    /// Recall's relevance model, with the threshold in force.
    pub fn relevance(&self) -> &relevance::Relevance {
        &self.relevance
    }

    /// Extraction's offer decision, with the threshold in force (`None`: the margin rule).
    pub fn offer(&self) -> Option<&offer::OfferModel> {
        self.offer.as_ref()
    }

    /// Extraction's preference gate, with the threshold in force.
    pub fn gate(&self) -> &gate::Gate {
        &self.gate
    }

    /// The gazetteer (`extraction.stand_ins`), read on first use; `None` when the option is
    /// off.
    pub(super) fn gazetteer(&self) -> Option<Result<Arc<Gazetteer>, MemoryError>> {
        let cell = self.gazetteer.as_ref()?;
        let read = cell.get_or_init(|| Gazetteer::load(&self.cfg.gazetteer_path()).map(Arc::new));
        Some(read.clone().map_err(MemoryError::from))
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

    /// Embeds texts on the embedder's thread, in the bulk lane, one job per batch of
    /// [`crate::embed::BATCH`] texts: an urgent job (recall) waits for one batch at most.
    pub fn embed(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, MemoryError> {
        self.in_bulk(texts, |e, refs| e.embed(refs))
    }

    /// Embeds texts as [`Models::embed`] does, each with the embedder's pooling after `layer`
    /// beside it (an empty vector when `layer` is `None`): what a preference gate reading that
    /// layer reads ([`gate::read`]).
    pub fn embed_tapped(
        &self,
        texts: Vec<String>,
        layer: Option<usize>,
    ) -> Result<Vec<Tapped>, MemoryError> {
        match layer {
            None => Ok(self
                .embed(texts)?
                .into_iter()
                .map(|v| (v, Vec::new()))
                .collect()),
            Some(after) => self.in_bulk(texts, move |e, refs| e.embed_tapped(refs, after)),
        }
    }

    /// Runs `f` over `texts` on the embedder's thread in the bulk lane, one job per batch of
    /// [`crate::embed::BATCH`] texts, and gathers what it gives in order.
    fn in_bulk<T: Send + 'static>(
        &self,
        texts: Vec<String>,
        f: impl Fn(&Embedder, &[&str]) -> Result<Vec<T>, crate::embed::EmbedError>
            + Copy
            + Send
            + 'static,
    ) -> Result<Vec<T>, MemoryError> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(crate::embed::BATCH) {
            let chunk = chunk.to_vec();
            out.extend(self.embedder.call_in(Lane::Bulk, move |e| {
                let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
                f(e, &refs)
            })??);
        }
        Ok(out)
    }

    /// Embeds sentences that extraction will read soon (a whole history about to be
    /// remembered), in full batches of similar length, and keeps their vectors until
    /// [`Models::embed_sentences`] takes them: many short conversations then cost a few large
    /// embedder batches instead of one small batch each.
    pub fn embed_ahead(&self, sentences: &[String]) -> Result<(), MemoryError> {
        let mut todo: Vec<String> = {
            let ahead = super::lock(&self.ahead);
            sentences
                .iter()
                .filter(|s| !ahead.contains_key(*s))
                .cloned()
                .collect()
        };
        todo.sort_by(|a, b| (a.len(), a).cmp(&(b.len(), b)));
        todo.dedup();
        let vecs = self.embed_tapped(todo.clone(), self.gate.layer)?;
        super::lock(&self.ahead).extend(todo.into_iter().zip(vecs));
        Ok(())
    }

    /// Vectors of extraction's sentences, each with what the gate reads of its layer (see
    /// [`Models::embed_tapped`]): those embedded ahead (taken out), the rest now.
    pub(super) fn embed_sentences(&self, sentences: &[String]) -> Result<Pooled, MemoryError> {
        let mut out: Vec<Option<Tapped>> = {
            let mut ahead = super::lock(&self.ahead);
            sentences.iter().map(|s| ahead.remove(s)).collect()
        };
        let missing: Vec<String> = sentences
            .iter()
            .zip(&out)
            .filter(|(_, v)| v.is_none())
            .map(|(s, _)| s.clone())
            .collect();
        let mut fresh = self.embed_tapped(missing, self.gate.layer)?.into_iter();
        for v in out.iter_mut().filter(|v| v.is_none()) {
            *v = fresh.next();
        }
        Ok(out.into_iter().flatten().unzip())
    }

    /// Embeds one utterance in the urgent lane: it runs before any waiting bulk batch.
    pub fn embed_urgent(&self, text: &str) -> Result<Vec<f32>, MemoryError> {
        let text = text.to_string();
        Ok(self
            .embedder
            .call_in(Lane::Urgent, move |e| e.embed_one(&text))??)
    }

    /// The category prototypes: the schema's texts and the labelled examples, embedded once.
    pub(super) fn prototypes(&self) -> Result<Arc<Vec<Prototype>>, MemoryError> {
        if let Some(p) = self.prototypes.get() {
            return Ok(p.clone());
        }
        // Each text beside what its vector will stand for: its category, the user it came
        // from (an example's) or the name it needs said.
        let mut texts: Vec<String> = Vec::new();
        let mut protos: Vec<Prototype> = Vec::new();
        let mut add = |detail, text, source, said| {
            texts.push(text);
            protos.push(Prototype {
                detail,
                vector: Vec::new(),
                source,
                said,
                statement: false,
            });
        };
        for (d, t) in extract::prototype_texts(&self.schema) {
            add(d, t, None, None);
        }
        for (d, t, n) in extract::name_texts(&self.schema) {
            add(d, t, None, Some(n));
        }
        let x = &self.cfg.extraction;
        if x.use_examples {
            for (d, e) in self.labelled(x.examples.as_deref(), extract::DEFAULT_EXAMPLES)? {
                add(d, e.sentence, e.source, None);
            }
        }
        // The schema's example statements, embedded with the rest, join only where the other
        // texts place them in their own detail (`extract::placed_in_their_own`).
        let statements = match x.statements {
            true => extract::statement_texts(&self.schema),
            false => Vec::new(),
        };
        let first = texts.len();
        texts.extend(statements.iter().map(|(_, t)| t.clone()));
        let mut vectors = self.embed_fixed(texts)?;
        let said: Vec<Vec<f32>> = vectors.split_off(first);
        for (p, vector) in protos.iter_mut().zip(vectors) {
            p.vector = vector;
        }
        let (details, words): (Vec<_>, Vec<_>) = statements.into_iter().unzip();
        let rows = extract::sentence_scores(&self.schema, &protos, &said, &words, None);
        let placed = extract::placed_in_their_own(&details, &rows);
        tracing::debug!(
            "example statements: {} of {} placed in their own detail",
            placed.iter().filter(|&&k| k).count(),
            placed.len()
        );
        for ((detail, vector), kept) in details.iter().zip(said).zip(placed) {
            if kept {
                protos.push(Prototype {
                    detail: *detail,
                    vector,
                    source: None,
                    said: None,
                    statement: true,
                });
            }
        }
        Ok(self.prototypes.get_or_init(|| Arc::new(protos)).clone())
    }

    /// Embeds texts that are the same in every process (category prototypes, labelled
    /// requests), keeping the vectors in the user's cache directory when `llm.prefix_cache` is
    /// on, keyed by the embedder's files and the texts, so that a new process reads them instead
    /// of running the embedder over hundreds of texts (seconds) before its first answer.
    fn embed_fixed(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, MemoryError> {
        let file = cache::dir(self.cfg.llm.prefix_cache, "embeddings")
            .map(|d| cache::embeddings_file(&d, &self.cfg.embedder_path(), &texts));
        if let Some(v) = file
            .as_deref()
            .and_then(|f| cache::read_vectors(f, texts.len(), EMBED_DIM))
        {
            return Ok(v);
        }
        let vecs = self.embed(texts)?;
        if let Some(f) = &file {
            if !cache::write_vectors(f, &vecs) {
                tracing::debug!("could not cache embeddings in {}", f.display());
            }
        }
        Ok(vecs)
    }

    /// Labelled sentences (JSON lines) from `path`, or the built-in `default`.
    fn labelled(
        &self,
        path: Option<&Path>,
        default: &str,
    ) -> Result<Vec<(DetailId, extract::Example)>, MemoryError> {
        let text = match path {
            Some(p) => std::fs::read_to_string(p).map_err(|error| MemoryError::ReadFile {
                path: p.to_path_buf(),
                error,
            })?,
            // The built-in texts are labelled with CarMem's categories: with another schema
            // only the lines of categories it has are kept (none, for one without them).
            None => extract::lines_in_schema(&self.schema, default),
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
        if requests.is_empty() {
            // No labelled request in this schema's categories: no prior to learn.
            return Ok(None);
        }
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
}

/// The lasting track's gate and offer decision (`extraction.one_off_gate`, `one_off_offer`, or
/// the built-in ones), checked to read what the preference gate reads.
fn lasting_track(
    cfg: &Config,
    first: &gate::Gate,
) -> Result<super::extraction::LastingTrack, MemoryError> {
    let x = &cfg.extraction;
    let (g, name) = gate_file(
        x.one_off_gate.as_deref(),
        (gate::ONE_OFF_GATE, "config/gate-one-off-contrasts.json"),
    )?;
    // It reads the pooling the preference gate is given, from the same embedder pass.
    if g.layer != first.layer {
        return Err(gate::GateError::Invalid {
            path: name,
            problem: format!(
                "reads the embedder after layer {:?}, the preference gate after {:?}: a one-off \
                 gate must read the same layer",
                g.layer, first.layer
            ),
        }
        .into());
    }
    // Its offer decision is read only when it offers.
    let offer = if x.lasting_offers {
        offer_decision(
            cfg,
            x.one_off_offer.as_deref(),
            (
                offer::ONE_OFF_OFFER,
                "(built-in config/offer-lasting-beside.json)",
            ),
        )?
    } else {
        None
    };
    Ok(super::extraction::LastingTrack { gate: g, offer })
}

/// A model in the gate's format: the file at `path`, or the built-in one (`builtin`: its text
/// and file name); with the name its errors give it.
fn gate_file(
    path: Option<&std::path::Path>,
    builtin: (&str, &str),
) -> Result<(gate::Gate, String), MemoryError> {
    let name = path.map_or_else(
        || format!("(built-in {})", builtin.1),
        |p| p.display().to_string(),
    );
    let g = gate::Gate::load_or(path, (builtin.0, &name), EMBED_DIM)?;
    Ok((g, name))
}

/// An offer decision (the file at `path`, or `builtin`: its text and how errors name it);
/// `None` under `extraction.offers = "margin"`.
fn offer_decision(
    cfg: &Config,
    path: Option<&std::path::Path>,
    builtin: (&str, &str),
) -> Result<Option<offer::OfferModel>, MemoryError> {
    Ok(match cfg.extraction.offers {
        crate::config::OfferRule::Margin => None,
        crate::config::OfferRule::Model => Some(offer::OfferModel::load_or(path, builtin)?),
    })
}
