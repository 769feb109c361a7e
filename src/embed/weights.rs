//! The BERT weights of the embedder, read from `model.safetensors` with candle and kept as plain
//! `f32` vectors in the layouts the kernels want: PyTorch's `out × in` for every linear layer,
//! the query, key and value projections fused into one `3·dim × dim` matrix, and the token-type
//! embedding (always type 0 here) folded into the position embeddings.

use std::path::Path;

use candle_core::safetensors::MmapedSafetensors;
use candle_core::{DType, Device};

use half::f16;

use super::kernels::L;
use super::linear::linear;
use super::pool::Pool;

/// The fields of BERT's `config.json` the forward pass needs.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct BertConfig {
    pub hidden_size: usize,
    pub num_attention_heads: usize,
    pub num_hidden_layers: usize,
    pub intermediate_size: usize,
    pub layer_norm_eps: f64,
    pub max_position_embeddings: usize,
    pub vocab_size: usize,
    #[serde(default = "two")]
    pub type_vocab_size: usize,
    #[serde(default = "gelu")]
    pub hidden_act: String,
}

fn two() -> usize {
    2
}

fn gelu() -> String {
    "gelu".into()
}

/// How the linear layers' weights are kept (biases, norms and embeddings are always `f32`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    F32,
    /// Half the memory traffic of a pass; accumulation stays `f32`.
    F16,
}

/// A linear layer's weights, `out × in`.
pub enum Weights {
    F32(Vec<f32>),
    F16(Vec<f16>),
}

/// A linear layer: weights and `out` biases.
pub struct Linear {
    pub w: Weights,
    pub b: Vec<f32>,
    pub out: usize,
}

impl Linear {
    /// `y = x · wᵀ + b` (then GELU when `gelu`) for the `m` rows of `x`.
    pub fn apply(&self, pool: &Pool, x: &[f32], m: usize, y: &mut [f32], gelu: bool) {
        let k = x.len() / m.max(1);
        match &self.w {
            Weights::F32(w) => linear(pool, x, m, k, w, &self.b, y, gelu),
            Weights::F16(w) => linear(pool, x, m, k, w, &self.b, y, gelu),
        }
    }

    fn with_precision(w: Vec<f32>, b: Vec<f32>, out: usize, p: Precision) -> Linear {
        let w = match p {
            Precision::F32 => Weights::F32(w),
            Precision::F16 => Weights::F16(w.iter().map(|&v| f16::from_f32(v)).collect()),
        };
        Linear { w, b, out }
    }
}

/// A layer norm's weight and bias.
pub struct Norm {
    pub g: Vec<f32>,
    pub b: Vec<f32>,
}

/// One transformer layer.
pub struct Layer {
    pub qkv: Linear,
    pub attn_out: Linear,
    pub attn_norm: Norm,
    pub up: Linear,
    pub down: Linear,
    pub out_norm: Norm,
}

/// The whole encoder.
pub struct Bert {
    pub dim: usize,
    pub heads: usize,
    pub eps: f32,
    pub vocab: usize,
    pub words: Vec<f32>,
    /// Position embeddings plus the token-type-0 embedding, `max_positions × dim`.
    pub positions: Vec<f32>,
    pub emb_norm: Norm,
    pub layers: Vec<Layer>,
}

/// What was wrong with the weights or the configuration.
pub type LoadResult<T> = Result<T, String>;

struct Reader {
    st: MmapedSafetensors,
}

impl Reader {
    /// Tensor `name` as f32, checked to have `shape`.
    fn get(&self, name: &str, shape: &[usize]) -> LoadResult<Vec<f32>> {
        let t = self
            .st
            .load(name, &Device::Cpu)
            .map_err(|e| format!("tensor {name}: {e}"))?;
        if t.dims() != shape {
            return Err(format!(
                "tensor {name} has shape {:?}, expected {shape:?}",
                t.dims()
            ));
        }
        t.to_dtype(DType::F32)
            .and_then(|t| t.flatten_all())
            .and_then(|t| t.to_vec1::<f32>())
            .map_err(|e| format!("tensor {name}: {e}"))
    }

    /// A linear layer's f32 weights and biases.
    fn linear(&self, prefix: &str, out: usize, inp: usize) -> LoadResult<(Vec<f32>, Vec<f32>)> {
        Ok((
            self.get(&format!("{prefix}.weight"), &[out, inp])?,
            self.get(&format!("{prefix}.bias"), &[out])?,
        ))
    }

    fn norm(&self, prefix: &str, dim: usize) -> LoadResult<Norm> {
        Ok(Norm {
            g: self.get(&format!("{prefix}.weight"), &[dim])?,
            b: self.get(&format!("{prefix}.bias"), &[dim])?,
        })
    }
}

impl Bert {
    /// Reads the weights of a BERT encoder with configuration `cfg` from a safetensors file.
    pub fn load(weights: &Path, cfg: &BertConfig, precision: Precision) -> LoadResult<Bert> {
        let (dim, heads) = (cfg.hidden_size, cfg.num_attention_heads);
        if cfg.hidden_act != "gelu" {
            return Err(format!(
                "hidden_act {:?} is not supported (only \"gelu\")",
                cfg.hidden_act
            ));
        }
        if heads == 0
            || dim % heads != 0
            || (dim / heads) % L != 0
            || cfg.intermediate_size % L != 0
        {
            return Err(format!(
                "hidden_size {dim}, {heads} heads and intermediate_size {} must give head and \
                 layer widths that are multiples of {L}",
                cfg.intermediate_size
            ));
        }
        // SAFETY: the weights file is memory-mapped read-only while its tensors are copied out;
        // it is a verified model file that nothing in Glovebox writes.
        let st = unsafe { MmapedSafetensors::new(weights) }.map_err(|e| e.to_string())?;
        let r = Reader { st };
        // Checkpoints saved from BertForPreTraining carry a `bert.` prefix.
        let prefix = if r.st.get("embeddings.word_embeddings.weight").is_ok() {
            ""
        } else {
            "bert."
        };
        let p = |name: &str| format!("{prefix}{name}");
        let words = r.get(
            &p("embeddings.word_embeddings.weight"),
            &[cfg.vocab_size, dim],
        )?;
        let mut positions = r.get(
            &p("embeddings.position_embeddings.weight"),
            &[cfg.max_position_embeddings, dim],
        )?;
        let types = r.get(
            &p("embeddings.token_type_embeddings.weight"),
            &[cfg.type_vocab_size, dim],
        )?;
        for row in positions.chunks_exact_mut(dim) {
            row.iter_mut().zip(&types[..dim]).for_each(|(p, t)| *p += t);
        }
        let emb_norm = r.norm(&p("embeddings.LayerNorm"), dim)?;
        let mut layers = Vec::with_capacity(cfg.num_hidden_layers);
        for i in 0..cfg.num_hidden_layers {
            let l = |s: &str| p(&format!("encoder.layer.{i}.{s}"));
            let (q, k, v) = (
                r.linear(&l("attention.self.query"), dim, dim)?,
                r.linear(&l("attention.self.key"), dim, dim)?,
                r.linear(&l("attention.self.value"), dim, dim)?,
            );
            let lin =
                |(w, b): (Vec<f32>, Vec<f32>), out| Linear::with_precision(w, b, out, precision);
            let qkv = ([q.0, k.0, v.0].concat(), [q.1, k.1, v.1].concat());
            let inter = cfg.intermediate_size;
            layers.push(Layer {
                qkv: lin(qkv, 3 * dim),
                attn_out: lin(r.linear(&l("attention.output.dense"), dim, dim)?, dim),
                attn_norm: r.norm(&l("attention.output.LayerNorm"), dim)?,
                up: lin(r.linear(&l("intermediate.dense"), inter, dim)?, inter),
                down: lin(r.linear(&l("output.dense"), dim, inter)?, dim),
                out_norm: r.norm(&l("output.LayerNorm"), dim)?,
            });
        }
        Ok(Bert {
            dim,
            heads,
            eps: cfg.layer_norm_eps as f32,
            vocab: cfg.vocab_size,
            words,
            positions,
            emb_norm,
            layers,
        })
    }
}
