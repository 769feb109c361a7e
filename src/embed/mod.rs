//! The sentence embedder: all-MiniLM-L6-v2 (BERT, mean pooling, L2 normalisation) with
//! `tokenizers`. Pure: load and forward; it knows nothing of categories or storage.
//!
//! The weights are read with candle; the forward pass is Glovebox's own ([`forward`], on the
//! kernels of [`kernels`]): unpadded sequences, the Q/K/V projections fused, GELU fused into the
//! up-projection, residual + layer norm fused, buffers reused between calls, and the linear
//! layers split over a small fork-join pool in which the calling thread works too.

mod forward;
mod kernels;
mod linear;
mod pool;
mod weights;

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tokenizers::{Tokenizer, TruncationParams};

pub use forward::Pooled;
use forward::Scratch;
pub use weights::Precision;
use weights::{Bert, BertConfig};

/// Dimension of the embeddings.
pub const EMBED_DIM: usize = 384;
/// Texts embedded together at most.
pub const BATCH: usize = 16;
/// Longest input in tokens; longer texts are truncated.
pub const MAX_TOKENS: usize = 256;
/// Threads of one forward pass at most, unless `GLOVEBOX_EMBED_THREADS` says otherwise.
pub const MAX_THREADS: usize = 4;

/// Errors of the embedder.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error("embedder file {0} is missing: run `models/fetch` (or point models.embedder in the config at the folder)")]
    Missing(PathBuf),
    #[error("cannot load the embedder from {path}: {message}")]
    Load { path: PathBuf, message: String },
    #[error("tokenizer: {0}")]
    Tokenize(String),
    #[error("embedder threads: {0}")]
    Threads(String),
    #[error("the embedder has {layers} layers: beside its output it gives the hidden states after 0 to {} of them, not after {after}", layers.saturating_sub(1))]
    Tap { after: usize, layers: usize },
    #[error(transparent)]
    Worker(#[from] crate::worker::WorkerError),
}

/// A text's embedding and, beside it, the same pooling of the hidden states after an earlier
/// layer ([`Embedder::embed_tapped`]).
pub type Tapped = (Vec<f32>, Vec<f32>);

/// all-MiniLM-L6-v2, loaded once.
pub struct Embedder {
    bert: Bert,
    tokenizer: Tokenizer,
    /// The pass's threads, the caller's included.
    pool: pool::Pool,
    scratch: Mutex<Scratch>,
}

/// The thread count a pass uses: `GLOVEBOX_EMBED_THREADS` if set to a number >= 1, otherwise
/// half the available cores, at least 1 and at most [`MAX_THREADS`]. A short utterance's pass
/// waits mostly on the weights' memory stream, so a second thread gains little, while the
/// LLM's threads (extraction can run beside a recall) and the rest of the system need the other
/// cores: on the project's busy 2-core machine 1 thread measured faster than 2 for Glovebox,
/// ONNX Runtime and PyTorch alike (benches/README.md).
pub fn default_threads() -> usize {
    std::env::var("GLOVEBOX_EMBED_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n >= 1)
        .unwrap_or_else(|| {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            (cores / 2).clamp(1, MAX_THREADS)
        })
}

/// The precision of the linear layers' weights unless `GLOVEBOX_EMBED_PRECISION` (`f32` or
/// `f16`) says otherwise: `f16` where the fast kernels widen it in registers (x86-64 with F16C),
/// `f32` elsewhere.
pub fn default_precision() -> Precision {
    match std::env::var("GLOVEBOX_EMBED_PRECISION").ok().as_deref() {
        Some("f32") => Precision::F32,
        Some("f16") => Precision::F16,
        _ if kernels::simd() => Precision::F16,
        _ => Precision::F32,
    }
}

impl Embedder {
    /// Loads the model from a folder holding `model.safetensors`, `tokenizer.json` and
    /// `config.json`, with [`default_threads`] and [`default_precision`]. CPU only.
    pub fn load(dir: &Path) -> Result<Embedder, EmbedError> {
        Embedder::load_with(dir, default_threads(), default_precision())
    }

    /// [`Embedder::load`] with the forward pass on `threads` threads (1: the caller's alone) and
    /// weights kept in `precision`.
    pub fn load_with(
        dir: &Path,
        threads: usize,
        precision: Precision,
    ) -> Result<Embedder, EmbedError> {
        let file = |name: &str| {
            let p = dir.join(name);
            if p.is_file() {
                Ok(p)
            } else {
                Err(EmbedError::Missing(p))
            }
        };
        let (weights, tok, cfg) = (
            file("model.safetensors")?,
            file("tokenizer.json")?,
            file("config.json")?,
        );
        let load_err = |path: &Path, m: String| EmbedError::Load {
            path: path.to_path_buf(),
            message: m,
        };
        let config: BertConfig = serde_json::from_str(
            &std::fs::read_to_string(&cfg).map_err(|e| load_err(&cfg, e.to_string()))?,
        )
        .map_err(|e| load_err(&cfg, e.to_string()))?;
        if config.hidden_size != EMBED_DIM || config.max_position_embeddings < MAX_TOKENS {
            return Err(load_err(
                &cfg,
                format!(
                    "hidden_size {} and max_position_embeddings {} do not fit: need {EMBED_DIM} \
                     and at least {MAX_TOKENS}",
                    config.hidden_size, config.max_position_embeddings
                ),
            ));
        }
        let mut tokenizer =
            Tokenizer::from_file(&tok).map_err(|e| load_err(&tok, e.to_string()))?;
        // tokenizer.json pads and truncates to a fixed 128: no padding at all (the forward pass
        // takes sequences of any length), and our own limit.
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS,
                ..Default::default()
            }))
            .map_err(|e| load_err(&tok, e.to_string()))?;
        let bert = Bert::load(&weights, &config, precision).map_err(|m| load_err(&weights, m))?;
        let pool = pool::Pool::new(threads).map_err(|e| EmbedError::Threads(e.to_string()))?;
        Ok(Embedder {
            bert,
            tokenizer,
            pool,
            scratch: Mutex::new(Scratch::default()),
        })
    }

    /// Threads of one forward pass.
    pub fn threads(&self) -> usize {
        self.pool.threads()
    }

    /// Embeds texts into unit vectors of [`EMBED_DIM`], [`BATCH`] texts per pass (no padding:
    /// a text's vector does not depend on the others in its batch).
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(BATCH) {
            out.extend(self.embed_batch(chunk, None)?.0);
        }
        Ok(out)
    }

    /// Layers of the model.
    pub fn layers(&self) -> usize {
        self.bert.layers.len()
    }

    /// Whether the hidden states after `after` layers can be read beside the output (`after`
    /// below [`Embedder::layers`]).
    pub fn check_tap(&self, after: usize) -> Result<(), EmbedError> {
        let layers = self.layers();
        if after >= layers {
            return Err(EmbedError::Tap { after, layers });
        }
        Ok(())
    }

    /// Embeds texts as [`Embedder::embed`] does, each vector followed by the same pooling of the
    /// hidden states after the model's first `after` layers (`after` below [`Embedder::layers`]):
    /// one pass gives both. Early layers keep more of how a sentence is said (a request, a
    /// habit, a question) than the last, which is trained to say what it is about.
    pub fn embed_tapped(&self, texts: &[&str], after: usize) -> Result<Vec<Tapped>, EmbedError> {
        self.check_tap(after)?;
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(BATCH) {
            let (vecs, taps) = self.embed_batch(chunk, Some(after))?;
            out.extend(vecs.into_iter().zip(taps));
        }
        Ok(out)
    }

    fn embed_batch(
        &self,
        texts: &[&str],
        tap: Option<usize>,
    ) -> Result<forward::Pooled, EmbedError> {
        if texts.is_empty() {
            return Ok((Vec::new(), Vec::new()));
        }
        let mut seqs = Vec::with_capacity(texts.len());
        for t in texts {
            let enc = self
                .tokenizer
                .encode(*t, true)
                .map_err(|e| EmbedError::Tokenize(e.to_string()))?;
            let ids = enc.get_ids();
            if let Some(bad) = ids.iter().find(|&&i| i as usize >= self.bert.vocab) {
                return Err(EmbedError::Tokenize(format!(
                    "token id {bad} is outside the model's vocabulary of {}",
                    self.bert.vocab
                )));
            }
            seqs.push(ids.to_vec());
        }
        // A second caller at the same time gets fresh buffers rather than waiting.
        let mut fresh = Scratch::default();
        let mut guard = self.scratch.try_lock().ok();
        let scratch = guard.as_deref_mut().unwrap_or(&mut fresh);
        Ok(forward::embed(&self.bert, &seqs, &self.pool, scratch, tap))
    }

    /// Embeds one text.
    pub fn embed_one(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        Ok(self
            .embed(&[text])?
            .pop()
            .expect("one text in, one vector out"))
    }
}

/// Cosine similarity of two unit vectors (their dot product; the embedder's output is unit).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Scales a vector to unit length (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

#[cfg(test)]
mod tests;
