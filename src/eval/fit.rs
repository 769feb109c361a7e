//! Model fitting for the harness: logistic regression (class-balanced or plain, the latter a
//! calibration) and a one-hidden-layer network, by full-batch Adam, deterministic. Used to
//! train the preference gate (`eval::gate`) and recall's relevance model (`eval::relevance`).

use crate::memory::gate::sigmoid;

/// Fits class-balanced, L2-regularised logistic regression by full-batch Adam. Deterministic
/// (zero start, fixed step count). Returns (weights, bias).
pub fn fit(xs: &[Vec<f32>], ys: &[bool], l2: f32, steps: usize) -> (Vec<f32>, f32) {
    fit_weighted(xs, ys, l2, steps, true)
}

/// [`fit`] without class balancing: the output estimates the probability of the positive class
/// itself (a calibration).
pub fn fit_plain(xs: &[Vec<f32>], ys: &[bool], l2: f32, steps: usize) -> (Vec<f32>, f32) {
    fit_weighted(xs, ys, l2, steps, false)
}

fn fit_weighted(
    xs: &[Vec<f32>],
    ys: &[bool],
    l2: f32,
    steps: usize,
    balanced: bool,
) -> (Vec<f32>, f32) {
    let d = xs.first().map_or(0, Vec::len);
    let n = xs.len() as f32;
    let pos = ys.iter().filter(|&&y| y).count().max(1) as f32;
    let neg = (ys.len() as f32 - pos).max(1.0);
    // Balanced: each class weighs half of the loss, whatever its size.
    let (wp, wn) = if balanced {
        (n / (2.0 * pos), n / (2.0 * neg))
    } else {
        (1.0, 1.0)
    };
    let mut w = vec![0.0f32; d + 1];
    let (mut m, mut v) = (vec![0.0f32; d + 1], vec![0.0f32; d + 1]);
    let (b1, b2, lr, eps) = (0.9f32, 0.999f32, 0.05f32, 1e-8f32);
    let mut g = vec![0.0f32; d + 1];
    for t in 1..=steps {
        g.iter_mut().for_each(|x| *x = 0.0);
        for (x, &y) in xs.iter().zip(ys) {
            let z = w[d] + w[..d].iter().zip(x).map(|(a, b)| a * b).sum::<f32>();
            let (target, weight) = if y { (1.0, wp) } else { (0.0, wn) };
            let err = weight * (sigmoid(z) - target) / n;
            for (gi, xi) in g[..d].iter_mut().zip(x) {
                *gi += err * xi;
            }
            g[d] += err;
        }
        for (gi, wi) in g[..d].iter_mut().zip(&w[..d]) {
            *gi += l2 * wi;
        }
        for i in 0..=d {
            m[i] = b1 * m[i] + (1.0 - b1) * g[i];
            v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
            let mh = m[i] / (1.0 - b1.powi(t as i32));
            let vh = v[i] / (1.0 - b2.powi(t as i32));
            w[i] -= lr * mh / (vh.sqrt() + eps);
        }
    }
    let bias = w.pop().unwrap_or(0.0);
    (w, bias)
}

/// Fits a one-hidden-layer network (`hidden` relu units, then logistic) by full-batch Adam on
/// the same class-balanced, L2-regularised loss; deterministic for a given `seed`.
pub fn fit_mlp(
    xs: &[Vec<f32>],
    ys: &[bool],
    hidden: usize,
    l2: f32,
    steps: usize,
    seed: u64,
) -> (Vec<Vec<f32>>, Vec<f32>, Vec<f32>, f32) {
    let d = xs.first().map_or(0, Vec::len);
    let h = hidden;
    let n = xs.len() as f32;
    let pos = ys.iter().filter(|&&y| y).count().max(1) as f32;
    let neg = (ys.len() as f32 - pos).max(1.0);
    let (wp, wn) = (n / (2.0 * pos), n / (2.0 * neg));
    // Parameters in one vector: W1 (h x d), b1 (h), w2 (h), b2.
    let (o_b1, o_w2, o_b2) = (h * d, h * d + h, h * d + 2 * h);
    let len = o_b2 + 1;
    let mut w = vec![0.0f32; len];
    let mut state = seed | 1;
    let mut rand = || {
        // xorshift64*, uniform in [-1, 1)
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let r = state.wrapping_mul(0x2545_F491_4F6C_DD1D);
        (r >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    };
    let scale = (6.0 / d.max(1) as f32).sqrt();
    for x in &mut w[..o_b1] {
        *x = rand() * scale;
    }
    for x in &mut w[o_w2..o_b2] {
        *x = rand() * (6.0 / h.max(1) as f32).sqrt();
    }
    let (mut m, mut v, mut g) = (vec![0.0f32; len], vec![0.0f32; len], vec![0.0f32; len]);
    let (b1, b2, lr, eps) = (0.9f32, 0.999f32, 0.01f32, 1e-8f32);
    let mut pre = vec![0.0f32; h];
    for t in 1..=steps {
        g.iter_mut().for_each(|x| *x = 0.0);
        for (x, &y) in xs.iter().zip(ys) {
            for j in 0..h {
                let row = &w[j * d..(j + 1) * d];
                pre[j] = w[o_b1 + j] + row.iter().zip(x).map(|(a, b)| a * b).sum::<f32>();
            }
            let z = w[o_b2] + (0..h).map(|j| w[o_w2 + j] * pre[j].max(0.0)).sum::<f32>();
            let (target, weight) = if y { (1.0, wp) } else { (0.0, wn) };
            let err = weight * (sigmoid(z) - target) / n;
            g[o_b2] += err;
            for j in 0..h {
                if pre[j] <= 0.0 {
                    continue;
                }
                g[o_w2 + j] += err * pre[j];
                let dh = err * w[o_w2 + j];
                g[o_b1 + j] += dh;
                for (gi, xi) in g[j * d..(j + 1) * d].iter_mut().zip(x) {
                    *gi += dh * xi;
                }
            }
        }
        for i in (0..o_b1).chain(o_w2..o_b2) {
            g[i] += l2 * w[i];
        }
        let (c1, c2) = (1.0 - b1.powi(t as i32), 1.0 - b2.powi(t as i32));
        for i in 0..len {
            m[i] = b1 * m[i] + (1.0 - b1) * g[i];
            v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
            w[i] -= lr * (m[i] / c1) / ((v[i] / c2).sqrt() + eps);
        }
    }
    let hidden_w: Vec<Vec<f32>> = (0..h).map(|j| w[j * d..(j + 1) * d].to_vec()).collect();
    (
        hidden_w,
        w[o_b1..o_w2].to_vec(),
        w[o_w2..o_b2].to_vec(),
        w[o_b2],
    )
}
