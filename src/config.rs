//! Runtime configuration: one plain struct, loaded from TOML (`config/glovebox.toml` documents
//! every key with its default) and passed explicitly to what needs it. No globals.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The default configuration file shipped in the repository (identical to [`Config::default`]).
pub const DEFAULT_CONFIG_TOML: &str = include_str!("../config/glovebox.toml");

/// Errors in reading a configuration file.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    // The io error is in the message, not marked as the source (see `MemoryError::DataDir`).
    #[error("cannot read config file {path}: {error}")]
    Read { path: String, error: std::io::Error },
    #[error("config file {path}: {message}")]
    Invalid { path: String, message: String },
}

/// Everything that can be configured.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// The category schema file; `None` uses the schema embedded in the binary.
    pub schema: Option<PathBuf>,
    pub models: ModelsConfig,
    pub llm: LlmConfig,
    pub extraction: ExtractionConfig,
    pub recall: RecallConfig,
    pub server: ServerConfig,
    pub retention: RetentionConfig,
}

/// Where the model files are.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct ModelsConfig {
    /// Folder the relative model paths below are resolved against.
    pub dir: PathBuf,
    /// The GGUF file of the extraction and maintenance LLM.
    pub llm: PathBuf,
    /// The folder of the sentence embedder (model.safetensors, tokenizer.json, config.json).
    pub embedder: PathBuf,
    /// The folder of the gazetteer (`gazetteer`: GeoNames' places, given names), read by
    /// `extraction.stand_ins`.
    pub gazetteer: PathBuf,
}

/// llama.cpp settings.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct LlmConfig {
    pub threads: u32,
    /// Context size in tokens (prompt prefix + conversation + output).
    pub context: u32,
    pub batch: u32,
    /// How many of the most likely tokens are checked against the grammar before the whole
    /// vocabulary is (the grammar sampler is slow on large vocabularies).
    pub grammar_top_k: usize,
    /// Most tokens generated for one answer.
    pub max_tokens: usize,
    /// Keep evaluated prompt prefixes (their KV cache) and the embeddings of the built-in texts
    /// (category prototypes, labelled requests) in the user's cache directory, so a new process
    /// does not compute them again.
    pub prefix_cache: bool,
}

/// How extraction decides.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct ExtractionConfig {
    /// How many of the embedder's best categories one preference sentence offers the LLM.
    pub shortlist: usize,
    /// A category is a candidate only when one of the user's sentences is at least this similar
    /// to it (cosine, MiniLM).
    pub min_similarity: f32,
    /// A sentence's offered categories must be within this similarity of its own best; with
    /// `offers = "margin"`, a sentence offers only when its best category is within this of the
    /// conversation's strongest preference sentence's.
    pub margin: f32,
    /// How much of a sentence's similarity to each category comes from the turn said just
    /// before its turn when that asks something (`memory::extraction::context`): "Always
    /// medium." answers "What fan speed would you like?". 0 reads the sentence alone.
    pub context: f32,
    /// A sentence that points back at the one before it in its turn and names nothing itself
    /// ("It's the only station I listen to.") is read with it, whatever it says
    /// (`extract::statements`); `false` joins only one that states a habit ("I always have it
    /// on high").
    pub join_back: bool,
    /// A name no category lists or holds ("H-E-B", "Wegmans") is read by the preference gate
    /// and the category scores as the first listed name of the category the sentence's other
    /// words speak of, when that category lists names (`memory::extraction::stand_in`); the
    /// value stays the user's words; a name the gazetteer (`models.gazetteer`) knows as a place
    /// or a person is never stood in for. On by default since stop 76: with the gazetteer it
    /// stores more of drivers' preferences and recalls no more false memories on their talk
    /// (docs/results.md, stops 75 and 76).
    pub stand_ins: bool,
    /// How a preference sentence is judged to offer its category: `model`, the learned offer
    /// decision (`memory::offer`), or `margin`, the fixed margin rule above.
    pub offers: OfferRule,
    /// The offer model (JSON from `glovebox eval offers --write`); `None` uses the one built
    /// into the binary (`config/offer.json`).
    pub offer_model: Option<PathBuf>,
    /// A sentence offers when the offer model's probability is at least this; `None` uses the
    /// threshold stored in the model file.
    pub offer_threshold: Option<f32>,
    /// Most preferences extracted from one conversation.
    pub max_preferences: usize,
    /// A sentence that says a setting's name ("the seat ventilation") puts the categories whose
    /// names it says most specifically first among its categories (`extract::spoken_names`).
    pub names_first: bool,
    /// Compare sentences with labelled example sentences too (not only the schema's texts).
    pub use_examples: bool,
    /// Example sentences (JSON lines `{"category", "sentence"}`); `None` uses the built-in ones.
    pub examples: Option<PathBuf>,
    /// Extractions whose confidence is below this are stored as pending (not recalled until
    /// confirmed). 0 disables.
    pub confirm_below: f32,
    /// The preference gate (`memory::gate`, JSON from `glovebox eval gate --write`); `None`
    /// uses the one built into the binary (`config/gate.json`).
    pub gate: Option<PathBuf>,
    /// A sentence offers a preference only when the gate's probability that it states a lasting
    /// preference is at least this; `None` uses the threshold stored in the gate file.
    pub gate_threshold: Option<f32>,
    /// A preference whose evidence sentence the one-off gate ([`ExtractionConfig::one_off_gate`])
    /// reads as no lasting preference (a one-off request: "Put on Radio 4, please."), or whose
    /// value is said in a clause limited to the present occasion ("Set it to 19 for now"), is
    /// stored pending: maintenance sees it, recall does not, until it is said again later or
    /// confirmed.
    pub hold_one_off: bool,
    /// The gate that tells a lasting preference from a one-off request (`memory::gate`'s format,
    /// same embedder layer as the preference gate); `None` uses the built-in one
    /// (`config/gate-one-off-contrasts.json`, taught also by the schema's example statements
    /// and their contrasts; `config/gate-one-off.json`, without them, was the built-in one until
    /// stop 81; `config/gate-lasting.json`, fitted with CarMem's other user sentences as
    /// negatives, holds more pending). Read only with `hold_one_off`.
    pub one_off_gate: Option<PathBuf>,
    /// A value the user names and the negation rule does not turn down is stored turned down
    /// (`not <value>`) when the refusal model reads its evidence sentence as turning down what
    /// it names (`memory::extraction::refusal`); off: the rule alone.
    pub refuse_by_model: bool,
    /// The refusal model (`memory::gate`'s format, from `glovebox eval polarity --fit
    /// --write`; a layer other than the preference gate's costs one more embedder pass where it
    /// reads a sentence); `None` uses the built-in one
    /// (`config/refusal.json`). Read only with `refuse_by_model`.
    pub refusal: Option<PathBuf>,
    /// The lasting track's offer decision (`memory::offer`'s format, fitted with the one-off
    /// gate); `None` uses the built-in one (`config/offer-lasting-beside.json`, fitted with
    /// `config/gate-one-off.json`). Read only with
    /// `hold_one_off`, `lasting_offers` and `offers = "model"`.
    pub one_off_offer: Option<PathBuf>,
    /// With `hold_one_off`, the lasting track also offers what its gate and offer decision
    /// find (a lasting statement the preference gate's track misses: "I get my news from the
    /// BBC.", "I prefer the quickest route, always."), besides telling which offers are
    /// one-off requests. On by default since stop 61 (docs/results.md, "The lasting track
    /// offers by default"); `false` leaves the first track's offers alone.
    pub lasting_offers: bool,
    /// Compare sentences with the schema's example statements of how drivers state each
    /// preference too (`says`, `extract::statement_texts`). Off by default: over the blind
    /// sets it finds about six points more of the preferences drivers state, with CarMem as
    /// good, but the offer decisions were fitted without them and refuse a few remarks they
    /// used to keep (docs/results.md, "The schema says how drivers state each preference").
    pub statements: bool,
    /// Whether the LLM may answer `none` for the one category a sentence offers (`true`, the
    /// default). `false` leaves the judgment that there is a preference to the gates and the
    /// offer decisions, which are trained on data with negatives: where the user's words name
    /// the value (`extract::user_named`), the LLM only reads which; where they name none, or
    /// only a list's value could be picked, the answer may still be `none`.
    pub llm_none: bool,
}

/// How a preference sentence is judged to offer its best category ([`ExtractionConfig::offers`]).
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum OfferRule {
    /// The learned offer model.
    #[default]
    Model,
    /// Within `margin` of the conversation's strongest preference sentence.
    Margin,
}

/// Recall defaults.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct RecallConfig {
    pub k: usize,
    /// Weight of the subcategory prior in the ranking (`memory::prior`): a preference scores
    /// its cosine similarity plus this times the log-probability that the utterance is about the
    /// preference's subcategory. 0 ranks by cosine alone.
    pub sub_prior: f32,
    /// How sharply the prior separates subcategories (softmax temperature over the cosine to
    /// each subcategory's centroid of labelled requests).
    pub sub_sharpness: f32,
    /// Labelled requests (JSON lines: `category`, `sentence`, optional `source`); `None` uses the
    /// ones built into the binary (`config/queries.jsonl`, `scripts/make-queries`).
    pub queries: Option<PathBuf>,
    /// The relevance model (`memory::relevance`, from `glovebox eval carmem
    /// --write-relevance`); `None` uses the one built into the binary (`config/relevance.json`).
    pub relevance: Option<PathBuf>,
    /// Recall returns only preferences whose relevance (a probability) is at least this;
    /// `None` uses the relevance model's threshold, 0 returns the top k whatever their relevance.
    pub min_relevance: Option<f32>,
}

/// The Unix-socket service.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct ServerConfig {
    /// Socket path; `None` puts `glovebox.sock` in the data directory.
    pub socket: Option<PathBuf>,
    pub max_line_bytes: usize,
    pub max_connections: usize,
    pub request_timeout_ms: u64,
    /// Model work waiting beyond this answers `busy`.
    pub queue: usize,
    /// Requests of one connection in flight at once; beyond it a request answers `busy`.
    pub max_in_flight: usize,
    /// Uids allowed to connect; `None` allows only the uid that runs the server.
    pub allowed_uids: Option<Vec<u32>>,
}

/// Expiry of unused preferences.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct RetentionConfig {
    /// Preferences never recalled for this many days expire; `None` keeps them.
    pub expire_unused_days: Option<u32>,
}

impl Default for ModelsConfig {
    fn default() -> Self {
        ModelsConfig {
            dir: PathBuf::from("models"),
            llm: PathBuf::from("gemma-3-270m-q4_k_m.gguf"),
            embedder: PathBuf::from("minilm"),
            gazetteer: PathBuf::from("gazetteer"),
        }
    }
}

impl Default for LlmConfig {
    fn default() -> Self {
        LlmConfig {
            threads: 2,
            context: 4096,
            batch: 512,
            grammar_top_k: 32,
            max_tokens: 96,
            prefix_cache: true,
        }
    }
}

impl Default for ExtractionConfig {
    fn default() -> Self {
        ExtractionConfig {
            shortlist: 1,
            min_similarity: 0.3,
            margin: 0.1,
            context: 0.2,
            join_back: true,
            stand_ins: true,
            offers: OfferRule::Model,
            offer_model: None,
            offer_threshold: None,
            max_preferences: 3,
            names_first: false,
            use_examples: false,
            examples: None,
            confirm_below: 0.0,
            gate: None,
            gate_threshold: None,
            hold_one_off: true,
            one_off_gate: None,
            refuse_by_model: true,
            refusal: None,
            one_off_offer: None,
            lasting_offers: true,
            statements: false,
            llm_none: true,
        }
    }
}

impl Default for RecallConfig {
    fn default() -> Self {
        RecallConfig {
            k: 5,
            sub_prior: 0.2,
            sub_sharpness: 20.0,
            queries: None,
            relevance: None,
            min_relevance: None,
        }
    }
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            socket: None,
            max_line_bytes: 256 * 1024,
            max_connections: 64,
            request_timeout_ms: 30_000,
            queue: 16,
            max_in_flight: 32,
            allowed_uids: None,
        }
    }
}

impl Config {
    /// Parses a configuration; keys left out keep their defaults, unknown keys are errors.
    pub fn from_toml(text: &str, origin: &str) -> Result<Config, ConfigError> {
        let c: Config = toml::from_str(text).map_err(|e| ConfigError::Invalid {
            path: origin.to_string(),
            message: e.message().to_string(),
        })?;
        c.validate().map_err(|message| ConfigError::Invalid {
            path: origin.to_string(),
            message,
        })?;
        Ok(c)
    }

    /// Reads a configuration file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|error| ConfigError::Read {
            path: path.display().to_string(),
            error,
        })?;
        Config::from_toml(&text, &path.display().to_string())
    }

    fn validate(&self) -> Result<(), String> {
        let e = &self.extraction;
        if e.shortlist == 0 || e.max_preferences == 0 {
            return Err(
                "extraction.shortlist and extraction.max_preferences must be at least 1".into(),
            );
        }
        if e.gate_threshold.is_some_and(|t| !(0.0..=1.0).contains(&t)) {
            return Err("extraction.gate_threshold must be within [0, 1]".into());
        }
        if !(0.0..1.0).contains(&e.context) {
            return Err("extraction.context must be within [0, 1)".into());
        }
        if !(0.0..=1.0).contains(&e.confirm_below) {
            return Err("extraction.confirm_below must be within [0, 1]".into());
        }
        if self.retention.expire_unused_days == Some(0) {
            return Err("retention.expire_unused_days must be at least 1 (leave it out to keep preferences)".into());
        }
        if self
            .extraction
            .offer_threshold
            .is_some_and(|t| !(0.0..=1.0).contains(&t))
        {
            return Err("extraction.offer_threshold must be within [0, 1]".into());
        }
        if self
            .recall
            .min_relevance
            .is_some_and(|t| !(0.0..=1.0).contains(&t))
        {
            return Err("recall.min_relevance must be within [0, 1]".into());
        }
        if self.recall.k == 0 {
            return Err("recall.k must be at least 1".into());
        }
        let sv = &self.server;
        if sv.max_in_flight == 0 || sv.queue == 0 || sv.max_connections == 0 {
            return Err(
                "server.max_in_flight, server.queue and server.max_connections must be at least 1"
                    .into(),
            );
        }
        let r = &self.recall;
        if !(r.sub_prior >= 0.0
            && r.sub_prior.is_finite()
            && r.sub_sharpness > 0.0
            && r.sub_sharpness.is_finite())
        {
            return Err(
                "recall.sub_prior must be at least 0 and recall.sub_sharpness above 0".into(),
            );
        }
        if self.llm.threads == 0 || self.llm.context < 512 {
            return Err("llm.threads must be at least 1 and llm.context at least 512".into());
        }
        if self.server.max_line_bytes < 1024
            || self.server.queue == 0
            || self.server.max_connections == 0
        {
            return Err("server.max_line_bytes must be at least 1024, server.queue and server.max_connections at least 1".into());
        }
        Ok(())
    }

    /// The LLM's GGUF file.
    pub fn llm_path(&self) -> PathBuf {
        self.models.dir.join(&self.models.llm)
    }

    /// The embedder's folder.
    pub fn embedder_path(&self) -> PathBuf {
        self.models.dir.join(&self.models.embedder)
    }

    /// The gazetteer's folder.
    pub fn gazetteer_path(&self) -> PathBuf {
        self.models.dir.join(&self.models.gazetteer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_file_is_the_default() {
        assert_eq!(
            Config::from_toml(DEFAULT_CONFIG_TOML, "config/glovebox.toml").unwrap(),
            Config::default()
        );
    }

    #[test]
    fn partial_files_keep_defaults_and_unknown_keys_fail() {
        let c = Config::from_toml("[recall]\nk = 3\n", "t").unwrap();
        assert_eq!(c.recall.k, 3);
        assert_eq!(c.llm, LlmConfig::default());
        let e = Config::from_toml("[recall]\nkk = 3\n", "t")
            .unwrap_err()
            .to_string();
        assert!(e.contains("kk"), "{e}");
        let e = Config::from_toml("[recall]\nk = 0\n", "t")
            .unwrap_err()
            .to_string();
        assert!(e.contains("recall.k"), "{e}");
        let e = Config::from_toml("[recall]\nsub_sharpness = 0.0\n", "t")
            .unwrap_err()
            .to_string();
        assert!(e.contains("recall.sub_sharpness"), "{e}");
        assert!(Config::from_toml("[recall]\nsub_prior = -1.0\n", "t").is_err());
        // An answer read only by its question would ignore what the driver said.
        for bad in ["1.0", "-0.1"] {
            let e = Config::from_toml(&format!("[extraction]\ncontext = {bad}\n"), "t")
                .unwrap_err()
                .to_string();
            assert!(e.contains("extraction.context"), "{e}");
        }
    }
}
