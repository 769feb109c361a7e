//! The sentence embedder: all-MiniLM-L6-v2 on candle's BERT, with `tokenizers`. Pure: load and
//! forward (tokenize, BERT, mean pooling over the attention mask, L2 normalisation). It knows
//! nothing of categories or storage.

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config as BertConfig, DTYPE};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

/// Dimension of the embeddings.
pub const EMBED_DIM: usize = 384;
/// Texts embedded together at most.
pub const BATCH: usize = 16;
/// Longest input in tokens; longer texts are truncated.
pub const MAX_TOKENS: usize = 256;

/// Errors of the embedder.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error("embedder file {0} is missing: run `models/fetch` (or point models.embedder in the config at the folder)")]
    Missing(PathBuf),
    #[error("cannot load the embedder from {path}: {message}")]
    Load { path: PathBuf, message: String },
    #[error("tokenizer: {0}")]
    Tokenize(String),
    #[error("embedder forward pass: {0}")]
    Forward(#[from] candle_core::Error),
    #[error(transparent)]
    Worker(#[from] crate::worker::WorkerError),
}

/// all-MiniLM-L6-v2, loaded once.
pub struct Embedder {
    model: BertModel,
    tokenizer: Tokenizer,
    device: Device,
}

impl Embedder {
    /// Loads the model from a folder holding `model.safetensors`, `tokenizer.json` and
    /// `config.json`. CPU only.
    pub fn load(dir: &Path) -> Result<Embedder, EmbedError> {
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
        let mut tokenizer =
            Tokenizer::from_file(&tok).map_err(|e| load_err(&tok, e.to_string()))?;
        // tokenizer.json pads and truncates to a fixed 128: pad to the longest in a batch instead.
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            ..Default::default()
        }));
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS,
                ..Default::default()
            }))
            .map_err(|e| load_err(&tok, e.to_string()))?;
        let device = Device::Cpu;
        // SAFETY: the weights file is memory-mapped read-only and must not change while loaded;
        // it is a verified model file that nothing in Glovebox writes.
        let vb = unsafe { VarBuilder::from_mmaped_safetensors(&[&weights], DTYPE, &device) }
            .map_err(|e| load_err(&weights, e.to_string()))?;
        let model = BertModel::load(vb, &config).map_err(|e| load_err(&weights, e.to_string()))?;
        Ok(Embedder {
            model,
            tokenizer,
            device,
        })
    }

    /// Embeds texts into unit vectors of [`EMBED_DIM`], in batches of [`BATCH`] (padding a
    /// large batch to its longest text costs more than it saves).
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(BATCH) {
            out.extend(self.embed_batch(chunk)?);
        }
        Ok(out)
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let enc = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| EmbedError::Tokenize(e.to_string()))?;
        let len = enc[0].get_ids().len();
        let n = enc.len();
        let mut ids = Vec::with_capacity(n * len);
        let mut mask = Vec::with_capacity(n * len);
        for e in &enc {
            ids.extend(e.get_ids().iter().copied());
            mask.extend(e.get_attention_mask().iter().copied());
        }
        let ids = Tensor::from_vec(ids, (n, len), &self.device)?;
        let mask = Tensor::from_vec(mask, (n, len), &self.device)?;
        let types = ids.zeros_like()?;
        let hidden = self.model.forward(&ids, &types, Some(&mask))?; // (n, len, dim)
        let m = mask.to_dtype(DType::F32)?.unsqueeze(2)?; // (n, len, 1)
        let summed = hidden.broadcast_mul(&m)?.sum(1)?; // (n, dim)
        let counts = m.sum(1)?.clamp(1e-9, f64::MAX)?; // (n, 1)
        let mean = summed.broadcast_div(&counts)?;
        let norm = mean.sqr()?.sum_keepdim(1)?.sqrt()?.clamp(1e-12, f64::MAX)?;
        let unit = mean.broadcast_div(&norm)?;
        Ok(unit.to_vec2::<f32>()?)
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
mod tests {
    use super::*;

    fn model() -> Embedder {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/minilm");
        Embedder::load(&dir).unwrap_or_else(|e| panic!("{e} (run `models/fetch`)"))
    }

    #[test]
    fn embeddings_are_unit_and_meaningful() {
        let e = model();
        let v = e
            .embed(&[
                "The cabin is too cold, turn up the heat",
                "Preferred Temperature: 22 degree Celcius",
                "Favorite Genres: Jazz",
            ])
            .unwrap();
        for x in &v {
            assert_eq!(x.len(), EMBED_DIM);
            let n: f32 = x.iter().map(|a| a * a).sum();
            assert!((n - 1.0).abs() < 1e-4);
        }
        assert!(cosine(&v[0], &v[1]) > cosine(&v[0], &v[2]));
    }

    #[test]
    fn batch_and_single_agree() {
        let e = model();
        let texts = [
            "short",
            "a considerably longer sentence about seat heating in winter",
        ];
        let batch = e.embed(&texts).unwrap();
        for (t, b) in texts.iter().zip(&batch) {
            let one = e.embed_one(t).unwrap();
            assert!(cosine(&one, b) > 0.9999, "{t}");
        }
    }

    #[test]
    fn matches_the_sentence_transformers_reference() {
        // First values of sentence-transformers' all-MiniLM-L6-v2 embedding of this sentence.
        let e = model();
        let v = e.embed_one("This is an example sentence").unwrap();
        let reference = [0.0676569, 0.0634959, 0.0487131, 0.0793049, 0.0374480];
        for (a, b) in v.iter().zip(reference) {
            assert!((a - b).abs() < 1e-3, "{:?} vs {reference:?}", &v[..5]);
        }
    }

    #[test]
    fn a_missing_model_names_the_file_and_the_fix() {
        let e = Embedder::load(Path::new("/nonexistent/minilm"))
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("/nonexistent/minilm/model.safetensors") && e.contains("models/fetch"),
            "{e}"
        );
    }
}
