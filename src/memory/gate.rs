//! The preference gate: is this user sentence a statement of a lasting preference at all?
//!
//! Most things said in a car are requests, questions, reminders or small talk. Storing a
//! preference from one of them is the worst failure a memory can have (a false memory is
//! recalled into every later answer), and neither the category embedder (it always has a
//! nearest category) nor a small LLM (it rarely answers `none`) can make that call. The gate
//! is a classifier trained on data with negatives: logistic regression on the sentence's
//! embedding and, beside it, the pooling of the embedder's hidden states after an earlier
//! layer (the shipped gate: the third), which keeps more of how a sentence is said (a request,
//! a question, a habit) than the last layer, trained to say what it is about. The same pass of
//! the embedder that extraction already runs gives both, so it costs one dot product per
//! sentence. It knows nothing of categories, so it holds for any schema.
//!
//! The weights come from `glovebox eval gate` (trained on the development data, reported
//! cross-validated by user and dialogue; docs/results.md) and are shipped as
//! `config/gate.json`; another file can be configured with `extraction.gate`.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// The gate file format tag.
pub const FORMAT: &str = "glovebox-gate v1";

/// The gate shipped in the binary (`config/gate.json`).
pub const DEFAULT_GATE: &str = include_str!("../../config/gate.json");

/// The refusal model shipped in the binary (`config/refusal.json`): the same format, read of a
/// sentence as the gate reads it, `P(the sentence turns down what it names)`
/// (`glovebox eval polarity --fit`; `extraction.refusal`).
pub const REFUSAL: &str = include_str!("../../config/refusal.json");

/// The one-off gate shipped in the binary (`config/gate-one-off-contrasts.json`): the same data
/// with CarMem's revealing sentences that are one-off requests read as negatives and its other
/// user sentences left unlabelled, the schema's example statements as positives and their
/// contrasts (`config/contrasts.jsonl`: the same topics said as requests, stories, someone
/// else's taste, remarks on the moment) as negatives (`eval gate --labels --others unlabelled
/// --statements --contrasts`; `extraction.hold_one_off`). `config/gate-one-off.json`, fitted
/// without the statements and contrasts, was the built-in one until stop 81.
pub const ONE_OFF_GATE: &str = include_str!("../../config/gate-one-off-contrasts.json");

/// Why a gate file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    // The io error is in the message, not marked as the source (see `MemoryError::DataDir`).
    #[error("cannot read model file {path}: {error}")]
    Read { path: String, error: std::io::Error },
    #[error("model file {path}: {problem}")]
    Invalid { path: String, problem: String },
}

/// A trained gate: `P(lasting preference | sentence) = sigmoid(weights · h + bias)`, where `h`
/// is what the gate reads of the sentence, `x`: its unit-length embedding, followed by the
/// embedder's pooled hidden states after `layer` layers when `layer` is set, and by its
/// [`word_features`] when `words` is not 0 (logistic regression, no hidden layer), or a hidden
/// layer `h = relu(hidden · x + hidden_bias)`; a sentence passes at `threshold` or above.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gate {
    pub format: String,
    /// The embedder the weights were fitted on (its vectors are what the weights read).
    pub embedder: String,
    pub threshold: f32,
    /// Hidden units' weights (one row of the embedding's dimension per unit); empty for
    /// logistic regression.
    #[serde(default)]
    pub hidden: Vec<Vec<f32>>,
    #[serde(default)]
    pub hidden_bias: Vec<f32>,
    pub bias: f32,
    pub weights: Vec<f32>,
    /// Buckets of the sentence's hashed words read after its embedding ([`word_features`]);
    /// 0: the embedding alone.
    #[serde(default)]
    pub words: usize,
    /// The embedder layer after which the sentence's hidden states are pooled and read beside
    /// its embedding ([`crate::embed::Embedder::embed_tapped`]: how a sentence is said, which
    /// the last layer, trained for what it is about, keeps less of); none: the embedding alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layer: Option<usize>,
    /// What it was trained on and how it measured, for people (not read by the runtime).
    #[serde(default)]
    pub about: serde_json::Value,
}

impl Gate {
    /// Reads a gate from its JSON text, checking format and dimension. `path` names it in errors.
    pub fn parse(text: &str, path: &str, dim: usize) -> Result<Gate, GateError> {
        let invalid = |problem: String| GateError::Invalid {
            path: path.to_string(),
            problem,
        };
        let g: Gate = serde_json::from_str(text).map_err(|e| invalid(e.to_string()))?;
        if g.format != FORMAT {
            return Err(invalid(format!(
                "format is {:?}, expected {FORMAT:?}",
                g.format
            )));
        }
        if g.words > 0 && !g.hidden.is_empty() {
            return Err(invalid(
                "reads words and has a hidden layer; words are read by logistic regression only"
                    .into(),
            ));
        }
        if g.words > MAX_WORDS {
            return Err(invalid(format!(
                "reads {} word buckets, more than {MAX_WORDS}",
                g.words
            )));
        }
        if let Some(l) = g.layer.filter(|&l| l > MAX_LAYER) {
            return Err(invalid(format!(
                "reads the hidden states after layer {l}, beyond any embedder's ({MAX_LAYER} at most)"
            )));
        }
        let read = g.embedding_inputs(dim);
        let inputs = if g.hidden.is_empty() {
            read + g.words
        } else {
            g.hidden.len()
        };
        if g.hidden.iter().any(|row| row.len() != read) || g.hidden_bias.len() != g.hidden.len() {
            return Err(invalid(format!(
                "its hidden layer does not read {read}-dimensional vectors"
            )));
        }
        if g.weights.len() != inputs {
            return Err(invalid(format!(
                "has {} output weights for {inputs} inputs (the embedder gives {dim}-dimensional vectors{}, and {} word buckets)",
                g.weights.len(),
                if g.layer.is_some() { ", two of them" } else { "" },
                g.words
            )));
        }
        if !(0.0..=1.0).contains(&g.threshold) {
            return Err(invalid(format!(
                "threshold {} is not a probability",
                g.threshold
            )));
        }
        let all = g
            .weights
            .iter()
            .chain(&g.hidden_bias)
            .chain(g.hidden.iter().flatten());
        if !g.bias.is_finite() || all.clone().any(|w| !w.is_finite()) {
            return Err(invalid("has a weight that is not a finite number".into()));
        }
        Ok(g)
    }

    /// Reads a gate file, or the built-in one when `path` is `None`.
    pub fn load(path: Option<&Path>, dim: usize) -> Result<Gate, GateError> {
        Gate::load_or(path, (DEFAULT_GATE, "(built-in config/gate.json)"), dim)
    }

    /// [`Gate::load`], with `builtin` (its text and how errors name it) when no path is given.
    pub fn load_or(
        path: Option<&Path>,
        builtin: (&str, &str),
        dim: usize,
    ) -> Result<Gate, GateError> {
        match path {
            None => Gate::parse(builtin.0, builtin.1, dim),
            Some(p) => {
                let text = std::fs::read_to_string(p).map_err(|error| GateError::Read {
                    path: p.display().to_string(),
                    error,
                })?;
                Gate::parse(&text, &p.display().to_string(), dim)
            }
        }
    }

    /// Inputs the gate reads from the embedder: the embedding's `dim`, twice with a `layer`.
    fn embedding_inputs(&self, dim: usize) -> usize {
        dim * (1 + usize::from(self.layer.is_some()))
    }

    /// The probability that `sentence`, whose embedding is `v` and whose pooled hidden states
    /// after the gate's `layer` are `tap` (empty when the gate reads no layer), states a
    /// lasting preference.
    pub fn probability(&self, v: &[f32], tap: &[f32], sentence: &str) -> f32 {
        debug_assert_eq!(
            tap.is_empty(),
            self.layer.is_none(),
            "a gate's layer and the pooling it is given go together"
        );
        if self.words == 0 && self.layer.is_none() {
            return self.probability_of(v);
        }
        self.probability_of(&read(v, tap, sentence, self.words))
    }

    /// The probability for what the gate reads of a sentence ([`read`]: its embedding, its
    /// layer's pooling when it reads one, its word features when it reads words).
    pub fn probability_of(&self, v: &[f32]) -> f32 {
        let dot = |w: &[f32], x: &[f32]| w.iter().zip(x).map(|(a, b)| a * b).sum::<f32>();
        if self.hidden.is_empty() {
            return sigmoid(self.bias + dot(&self.weights, v));
        }
        let h: Vec<f32> = self
            .hidden
            .iter()
            .zip(&self.hidden_bias)
            .map(|(row, b)| (dot(row, v) + b).max(0.0))
            .collect();
        sigmoid(self.bias + dot(&self.weights, &h))
    }

    /// Whether a sentence with this probability passes the gate.
    pub fn passes(&self, p: f32) -> bool {
        p >= self.threshold
    }
}

/// The words a sentence is said in, as features: its word unigrams and bigrams (the start and
/// end of the sentence marked, `?` a word), each hashed into one of `buckets`, as a unit-length
/// vector. Numbers read as `<num>` and capitalised words after the first as `<name>`, so that
/// what is learnt is how a driver speaks ("I always go to <name>", "take me to <name>"), not
/// which shops or cities the training data names.
pub fn word_features(text: &str, buckets: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; buckets];
    if buckets == 0 {
        return out;
    }
    let text = text.replace(['\u{2019}', '\u{2018}'], "'");
    let mut words: Vec<String> = vec!["^".into()];
    for (i, raw) in text
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '?'))
        .flat_map(|w| w.split_inclusive('?'))
        .filter(|w| !w.is_empty())
        .enumerate()
    {
        let (w, q) = match raw.strip_suffix('?') {
            Some(w) => (w, true),
            None => (raw, false),
        };
        let w = w.trim_matches('\'');
        if !w.is_empty() {
            let lower = w.to_lowercase();
            let word = if w.chars().any(|c| c.is_ascii_digit()) {
                "<num>".to_string()
            } else if i > 0
                && w.chars().next().is_some_and(char::is_uppercase)
                && !lower.starts_with("i'")
                && lower != "i"
            {
                "<name>".to_string()
            } else {
                lower
            };
            words.push(word);
        }
        if q {
            words.push("?".into());
        }
    }
    words.push("$".into());
    let mut hit = |g: &str| {
        let h = xxhash_rust::xxh3::xxh3_64(g.as_bytes()) % buckets as u64;
        out[h as usize] = 1.0;
    };
    for (i, w) in words.iter().enumerate() {
        if i > 0 && i + 1 < words.len() {
            hit(w);
        }
        if let Some(next) = words.get(i + 1) {
            hit(&format!("{w} {next}"));
        }
    }
    let norm = out.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        out.iter_mut().for_each(|x| *x /= norm);
    }
    out
}

/// What a gate reads of a sentence: its embedding `v`, followed by `tap` (the embedder's
/// pooling after the gate's layer; empty for a gate that reads none) and its [`word_features`]
/// in `words` buckets (none at 0).
pub fn read(v: &[f32], tap: &[f32], sentence: &str, words: usize) -> Vec<f32> {
    let mut x = Vec::with_capacity(v.len() + tap.len() + words);
    x.extend_from_slice(v);
    x.extend_from_slice(tap);
    x.extend(word_features(sentence, words));
    x
}

/// The most word buckets a gate file may ask for.
pub const MAX_WORDS: usize = 1 << 16;

/// The deepest embedder layer a gate file may read (the model's own count is checked when
/// the models load).
pub const MAX_LAYER: usize = 64;

/// The logistic function.
pub fn sigmoid(z: f32) -> f32 {
    1.0 / (1.0 + (-z).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(weights: Vec<f32>) -> String {
        serde_json::json!({"format": FORMAT, "embedder": "test", "threshold": 0.5, "bias": -1.0,
                           "weights": weights})
        .to_string()
    }

    #[test]
    fn probability_is_the_logistic_of_the_score() {
        let g = Gate::parse(&gate(vec![2.0, 0.0]), "t", 2).unwrap();
        assert!((g.probability_of(&[0.5, 0.9]) - 0.5).abs() < 1e-6);
        assert!(g.probability_of(&[1.0, 0.0]) > 0.7);
        assert!(g.passes(0.5) && !g.passes(0.49));
    }

    #[test]
    fn a_hidden_layer_is_applied() {
        let text = serde_json::json!({"format": FORMAT, "embedder": "t", "threshold": 0.5,
            "hidden": [[1.0, 0.0], [0.0, 1.0]], "hidden_bias": [0.0, -10.0],
            "bias": 0.0, "weights": [2.0, 5.0]})
        .to_string();
        let g = Gate::parse(&text, "t", 2).unwrap();
        // The second unit stays off (relu), the first passes 0.5 on: sigmoid(2 * 0.5).
        assert!((g.probability_of(&[0.5, 0.9]) - sigmoid(1.0)).abs() < 1e-6);
        let bad = text.replace("[0.0,-10.0]", "[0.0]");
        assert!(Gate::parse(&bad, "t", 2).is_err());
    }

    #[test]
    fn bad_files_are_refused_with_what_is_wrong() {
        let e = Gate::parse(&gate(vec![1.0; 3]), "g.json", 2).unwrap_err();
        assert!(e.to_string().contains("3 output weights"), "{e}");
        let e = Gate::parse("{", "g.json", 2).unwrap_err();
        assert!(e.to_string().contains("g.json"), "{e}");
        let wrong = gate(vec![1.0, 1.0]).replace(FORMAT, "other");
        assert!(Gate::parse(&wrong, "g", 2)
            .unwrap_err()
            .to_string()
            .contains("format"));
    }

    #[test]
    fn words_are_read_as_a_driver_says_them_not_which_names() {
        let f = |t: &str| word_features(t, 1 << 12);
        let unit = |v: &[f32]| (v.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-5;
        assert!(unit(&f("I always shop at Lidl.")));
        // Names and numbers are read by their kind, so the shop or the degree is not learnt.
        assert_eq!(f("I always shop at Lidl."), f("I always shop at Aldi!"));
        assert_eq!(f("Set it to 22 degrees"), f("set it to 19 degrees"));
        // The first word is a word, whatever its case; "I" is no name.
        assert_eq!(f("Always medium"), f("always medium"));
        assert_ne!(f("I like jazz"), f("We like jazz"));
        // A question reads differently from the statement.
        assert_ne!(f("you like jazz"), f("you like jazz?"));
        assert_eq!(f("I\u{2019}m cold"), f("I'm cold"));
        assert!(f("").iter().all(|&x| x == 0.0) || unit(&f("")));
        assert!(word_features("anything", 0).is_empty());
    }

    #[test]
    fn a_gate_that_reads_words_reads_them_after_the_embedding() {
        let buckets = 8;
        let words = word_features("I love jazz", buckets);
        // A weight on every bucket the sentence fills: the words alone decide.
        let mut weights = vec![0.0f32, 0.0];
        weights.extend(words.iter().map(|&w| if w > 0.0 { 10.0 } else { -10.0 }));
        let text = serde_json::json!({"format": FORMAT, "embedder": "t", "threshold": 0.5,
            "bias": -1.0, "words": buckets, "weights": weights})
        .to_string();
        let g = Gate::parse(&text, "t", 2).unwrap();
        assert!(g.probability(&[0.3, 0.3], &[], "I love jazz") > 0.99);
        let mut x = vec![0.3, 0.3];
        x.extend(&words);
        assert_eq!(
            g.probability(&[0.3, 0.3], &[], "I love jazz"),
            g.probability_of(&x)
        );
        // Its weights must cover the embedding and the buckets.
        let short = text.replace(&format!("\"words\":{buckets}"), "\"words\":9");
        let e = Gate::parse(&short, "g.json", 2).unwrap_err().to_string();
        assert!(e.contains("9 word buckets"), "{e}");
        // Words are read by logistic regression only.
        let both = serde_json::json!({"format": FORMAT, "embedder": "t", "threshold": 0.5,
            "hidden": [[1.0, 0.0]], "hidden_bias": [0.0], "words": 4,
            "bias": 0.0, "weights": [1.0]})
        .to_string();
        let e = Gate::parse(&both, "g.json", 2).unwrap_err().to_string();
        assert!(e.contains("hidden layer"), "{e}");
    }

    #[test]
    fn a_gate_that_reads_a_layer_reads_it_after_the_embedding() {
        let text = serde_json::json!({"format": FORMAT, "embedder": "t", "threshold": 0.5,
            "bias": 0.0, "layer": 3, "weights": [0.0, 0.0, 4.0, -4.0]})
        .to_string();
        let g = Gate::parse(&text, "t", 2).unwrap();
        // The embedding weighs nothing here: the layer's pooling decides.
        assert!(g.probability(&[1.0, 0.0], &[1.0, 0.0], "x") > 0.98);
        assert!(g.probability(&[1.0, 0.0], &[0.0, 1.0], "x") < 0.02);
        // Its weights must cover both vectors.
        let short = text.replace("[0.0,0.0,4.0,-4.0]", "[0.0,0.0]");
        let e = Gate::parse(&short, "g.json", 2).unwrap_err().to_string();
        assert!(e.contains("2 output weights for 4 inputs"), "{e}");
        let deep = text.replace("\"layer\":3", "\"layer\":1000");
        let e = Gate::parse(&deep, "g.json", 2).unwrap_err().to_string();
        assert!(e.contains("layer 1000"), "{e}");
    }

    #[test]
    fn the_built_in_gate_loads() {
        let g = Gate::load(None, crate::embed::EMBED_DIM).unwrap();
        assert!(g.threshold > 0.0 && g.threshold < 1.0);
    }
}
