//! The BERT forward pass and sentence-transformers' pooling, over unpadded token sequences:
//! the sequences of a batch are stacked row by row (the linear layers, layer norms and GELU see
//! one matrix of all their tokens), and attention runs per sequence and head, so no token is
//! ever padding. Buffers live in a [`Scratch`] reused from call to call.

use super::kernels::{self, Head};
use super::linear::Out;
use super::pool::Pool;
use super::weights::Bert;

/// The activations of one pass, kept between calls so that a pass allocates nothing once the
/// buffers have grown to the longest input seen.
#[derive(Default)]
pub struct Scratch {
    hidden: Vec<f32>,
    qkv: Vec<f32>,
    ctx: Vec<f32>,
    tmp: Vec<f32>,
    up: Vec<f32>,
}

fn grow(v: &mut Vec<f32>, n: usize) -> &mut [f32] {
    if v.len() < n {
        v.resize(n, 0.0);
    }
    &mut v[..n]
}

/// The vectors of a batch's texts, and their poolings at the tap (empty without one).
pub type Pooled = (Vec<Vec<f32>>, Vec<Vec<f32>>);

/// Embeds token sequences (each non-empty, at most `bert.max_positions` long) into unit vectors:
/// BERT, the mean of each sequence's last hidden states, L2 normalisation; the work split over
/// `pool`. With `tap` = `Some(n)` (`n` below the layer count), also the same pooling of the
/// hidden states after the first `n` layers (the second list; empty without a tap).
pub fn embed(
    bert: &Bert,
    seqs: &[Vec<u32>],
    pool: &Pool,
    s: &mut Scratch,
    tap: Option<usize>,
) -> Pooled {
    let dim = bert.dim;
    let m: usize = seqs.iter().map(Vec::len).sum();
    let hidden = grow(&mut s.hidden, m * dim);
    let mut r = 0;
    for seq in seqs {
        for (pos, &id) in seq.iter().enumerate() {
            let (w, p) = (id as usize * dim, pos * dim);
            let row = &mut hidden[r * dim..(r + 1) * dim];
            for ((h, w), p) in row
                .iter_mut()
                .zip(&bert.words[w..w + dim])
                .zip(&bert.positions[p..p + dim])
            {
                *h = w + p;
            }
            r += 1;
        }
    }
    kernels::layer_norm(hidden, &bert.emb_norm.g, &bert.emb_norm.b, bert.eps);
    let mut tapped = Vec::new();
    for (n, layer) in bert.layers.iter().enumerate() {
        if tap == Some(n) {
            tapped = mean_pool(&s.hidden[..m * dim], dim, seqs);
        }
        let (hid, up) = (m * dim, m * layer.up.out);
        let qkv = grow(&mut s.qkv, 3 * hid);
        layer.qkv.apply(pool, &s.hidden[..hid], m, qkv, false);
        attention(bert, seqs, &s.qkv[..3 * hid], grow(&mut s.ctx, hid), pool);
        layer
            .attn_out
            .apply(pool, &s.ctx[..hid], m, grow(&mut s.tmp, hid), false);
        let n = &layer.attn_norm;
        kernels::add_layer_norm(&mut s.hidden[..hid], &s.tmp[..hid], &n.g, &n.b, bert.eps);
        layer
            .up
            .apply(pool, &s.hidden[..hid], m, grow(&mut s.up, up), true);
        layer
            .down
            .apply(pool, &s.up[..up], m, grow(&mut s.tmp, hid), false);
        let n = &layer.out_norm;
        kernels::add_layer_norm(&mut s.hidden[..hid], &s.tmp[..hid], &n.g, &n.b, bert.eps);
    }
    (mean_pool(&s.hidden[..m * dim], dim, seqs), tapped)
}

/// Token rows from which attention heads are split over the threads.
const PAR_ATTENTION_ROWS: usize = 64;

/// Multi-head self-attention of every sequence, from the fused projection `qkv` into `ctx`.
fn attention(bert: &Bert, seqs: &[Vec<u32>], qkv: &[f32], ctx: &mut [f32], pool: &Pool) {
    let dim = bert.dim;
    let width = dim / bert.heads;
    let m = ctx.len() / dim;
    let out = Out::new(ctx, m, dim);
    let mut heads = Vec::with_capacity(seqs.len() * bert.heads);
    let mut row0 = 0;
    for seq in seqs {
        let rows = &qkv[row0 * 3 * dim..(row0 + seq.len()) * 3 * dim];
        for h in 0..bert.heads {
            heads.push(Head {
                qkv: rows,
                ctx: out,
                row0,
                cols: h * width..(h + 1) * width,
                dim,
            });
        }
        row0 += seq.len();
    }
    // Attention is a few per cent of a short utterance's pass: split it only for real batches.
    if m >= PAR_ATTENTION_ROWS {
        pool.run(heads.len(), &|i| {
            kernels::attend(&heads[i], &mut Vec::new())
        });
    } else {
        let mut scores = Vec::new();
        heads.iter().for_each(|h| kernels::attend(h, &mut scores));
    }
}

/// The mean of each sequence's rows of `hidden`, scaled to unit length.
fn mean_pool(hidden: &[f32], dim: usize, seqs: &[Vec<u32>]) -> Vec<Vec<f32>> {
    let mut out = Vec::with_capacity(seqs.len());
    let mut rows = hidden.chunks_exact(dim);
    for seq in seqs {
        let mut mean = vec![0f32; dim];
        for row in rows.by_ref().take(seq.len()) {
            mean.iter_mut().zip(row).for_each(|(m, x)| *m += x);
        }
        // sentence-transformers divides by the token count, then normalises with a floor of
        // 1e-12 on the norm; the division cancels out except through that floor.
        let n = seq.len() as f32;
        mean.iter_mut().for_each(|m| *m /= n);
        let norm = mean.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
        mean.iter_mut().for_each(|m| *m /= norm);
        out.push(mean);
    }
    out
}
