//! The element-wise kernels of the embedder's forward pass, on plain `f32` slices: fused
//! residual + layer norm, exact (erf) GELU, one attention head (the linear layer is in
//! [`super::linear`]). Each is written once over 8-wide lane arrays and compiled twice: for
//! AVX2 + FMA + F16C, chosen at run time on x86-64, and portable (NEON on aarch64 through LLVM's
//! vectoriser).

use std::ops::Range;

use super::linear::Out;

/// Floats per lane array: one AVX2 register.
pub const L: usize = 8;

/// Whether the portable build may use fused multiply-add (a native instruction on aarch64; a
/// slow library call on x86-64 without FMA).
pub(super) const PORTABLE_FMA: bool = cfg!(target_arch = "aarch64");

/// Whether this x86-64 CPU has AVX2, FMA and F16C (every x86-64 CPU since 2013-2015), and
/// `GLOVEBOX_EMBED_PORTABLE` is not set (it forces the portable kernels, the ones other CPUs
/// run, so that they can be checked here).
#[cfg(target_arch = "x86_64")]
pub(super) fn avx2_fma() -> bool {
    use std::sync::OnceLock;
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        std::env::var_os("GLOVEBOX_EMBED_PORTABLE").is_none()
            && is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("fma")
            && is_x86_feature_detected!("f16c")
    })
}

/// Whether the fast kernels run (x86-64 with AVX2 + FMA + F16C); the portable ones otherwise.
pub fn simd() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        avx2_fma()
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Defines `pub fn $name` that runs `$body::<true>` compiled for AVX2 + FMA when the CPU has
/// them, and the portable `$body::<PORTABLE_FMA>` otherwise.
macro_rules! dispatch {
    ($(#[$m:meta])* pub fn $name:ident($($arg:ident: $ty:ty),* $(,)?) => $body:ident) => {
        $(#[$m])*
        pub fn $name($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            {
                if avx2_fma() {
                    #[target_feature(enable = "avx2,fma,f16c")]
                    unsafe fn fast($($arg: $ty),*) {
                        $body::<true>($($arg),*)
                    }
                    // SAFETY: the CPU has AVX2 and FMA (checked just above).
                    return unsafe { fast($($arg),*) };
                }
            }
            $body::<PORTABLE_FMA>($($arg),*)
        }
    };
}

#[inline(always)]
pub(super) fn fma<const F: bool>(a: f32, b: f32, c: f32) -> f32 {
    if F {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

#[inline(always)]
pub(super) fn lanes(s: &[f32], at: usize) -> [f32; L] {
    s[at..at + L].try_into().expect("L floats")
}

#[inline(always)]
pub(super) fn hsum(v: [f32; L]) -> f32 {
    let a = [v[0] + v[4], v[1] + v[5], v[2] + v[6], v[3] + v[7]];
    (a[0] + a[2]) + (a[1] + a[3])
}

#[inline(always)]
fn add_layer_norm_body<const F: bool>(h: &mut [f32], add: &[f32], g: &[f32], b: &[f32], eps: f32) {
    let dim = g.len();
    for (row, a) in h.chunks_exact_mut(dim).zip(add.chunks_exact(dim)) {
        row.iter_mut().zip(a).for_each(|(x, a)| *x += a);
        norm_row::<F>(row, g, b, eps);
    }
}

#[inline(always)]
fn norm_row<const F: bool>(row: &mut [f32], g: &[f32], b: &[f32], eps: f32) {
    let mut s = [0f32; L];
    for c in row.chunks_exact(L) {
        for l in 0..L {
            s[l] += c[l];
        }
    }
    let mean = hsum(s) / row.len() as f32;
    let mut v = [0f32; L];
    for c in row.chunks_exact(L) {
        for l in 0..L {
            let d = c[l] - mean;
            v[l] = fma::<F>(d, d, v[l]);
        }
    }
    let inv = 1.0 / (hsum(v) / row.len() as f32 + eps).sqrt();
    for ((x, g), b) in row.iter_mut().zip(g).zip(b) {
        *x = fma::<F>((*x - mean) * inv, *g, *b);
    }
}

dispatch! {
    /// Each `g.len()`-wide row of `h` becomes `LayerNorm(h + add)` (weight `g`, bias `b`).
    pub fn add_layer_norm(h: &mut [f32], add: &[f32], g: &[f32], b: &[f32], eps: f32)
        => add_layer_norm_body
}

#[inline(always)]
fn layer_norm_body<const F: bool>(h: &mut [f32], g: &[f32], b: &[f32], eps: f32) {
    for row in h.chunks_exact_mut(g.len()) {
        norm_row::<F>(row, g, b, eps);
    }
}

dispatch! {
    /// Each `g.len()`-wide row of `h` becomes `LayerNorm(h)` (weight `g`, bias `b`).
    pub fn layer_norm(h: &mut [f32], g: &[f32], b: &[f32], eps: f32) => layer_norm_body
}

/// erf(x) for f32, as a rational function of x (the approximation Eigen and XLA use; a few
/// ulp from the true value, and outside ±4 erf is ±1 in f32). Branch-free, so it vectorises.
#[inline(always)]
fn erf<const F: bool>(x: f32) -> f32 {
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let mut p = fma::<F>(x2, -2.726_142_3e-10, 2.770_681_4e-8);
    p = fma::<F>(x2, p, -2.101_024e-6);
    p = fma::<F>(x2, p, -5.692_506_4e-5);
    p = fma::<F>(x2, p, -7.349_906_3e-4);
    p = fma::<F>(x2, p, -2.954_6e-3);
    p = fma::<F>(x2, p, -1.609_603_3e-2);
    let mut q = fma::<F>(x2, -1.456_607_2e-5, -2.133_740_6e-4);
    q = fma::<F>(x2, q, -1.682_827e-3);
    q = fma::<F>(x2, q, -7.373_329e-3);
    q = fma::<F>(x2, q, -1.426_474e-2);
    x * p / q
}

#[inline(always)]
pub(super) fn gelu_body<const F: bool>(v: &mut [f32]) {
    for x in v {
        *x = 0.5 * *x * (1.0 + erf::<F>(*x * std::f32::consts::FRAC_1_SQRT_2));
    }
}

/// Reference erf for tests (the portable kernel).
#[cfg(test)]
pub(super) fn erf_f32(x: f32) -> f32 {
    erf::<false>(x)
}

#[inline(always)]
fn dot<const F: bool>(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; L];
    for (a, b) in a.chunks_exact(L).zip(b.chunks_exact(L)) {
        for l in 0..L {
            acc[l] = fma::<F>(a[l], b[l], acc[l]);
        }
    }
    hsum(acc)
}

/// One attention head of one sequence, read from the fused QKV rows and written to `ctx`.
pub struct Head<'a> {
    /// The sequence's rows of the fused projection: `t × 3·dim` (queries, keys, values).
    pub qkv: &'a [f32],
    /// The sequence's rows of the context output, `t × dim`.
    pub ctx: Out,
    /// The sequence's first row in `ctx`.
    pub row0: usize,
    /// The head's columns within `dim`.
    pub cols: Range<usize>,
    pub dim: usize,
}

#[inline(always)]
fn attend_body<const F: bool>(h: &Head, scores: &mut Vec<f32>) {
    let three = 3 * h.dim;
    let t = h.qkv.len() / three;
    let (d0, d1) = (h.cols.start, h.cols.end);
    let scale = 1.0 / ((d1 - d0) as f32).sqrt();
    let q = |i: usize| &h.qkv[i * three + d0..i * three + d1];
    let k = |j: usize| &h.qkv[j * three + h.dim + d0..j * three + h.dim + d1];
    let v = |j: usize| &h.qkv[j * three + 2 * h.dim + d0..j * three + 2 * h.dim + d1];
    scores.clear();
    scores.resize(t, 0.0);
    for i in 0..t {
        let qi = q(i);
        let mut max = f32::NEG_INFINITY;
        for (j, s) in scores.iter_mut().enumerate() {
            *s = dot::<F>(qi, k(j)) * scale;
            max = max.max(*s);
        }
        let mut sum = 0.0;
        for s in scores.iter_mut() {
            *s = (*s - max).exp();
            sum += *s;
        }
        // SAFETY: this task owns the head's columns of the sequence's rows.
        let out = unsafe { h.ctx.row(h.row0 + i, h.cols.clone()) };
        out.fill(0.0);
        for (j, s) in scores.iter().enumerate() {
            let p = s / sum;
            for (o, v) in out.iter_mut().zip(v(j)) {
                *o = fma::<F>(p, *v, *o);
            }
        }
    }
}

/// Runs one attention head (`scores` is reused scratch).
pub fn attend(h: &Head, scores: &mut Vec<f32>) {
    #[cfg(target_arch = "x86_64")]
    {
        if avx2_fma() {
            #[target_feature(enable = "avx2,fma,f16c")]
            unsafe fn fast(h: &Head, scores: &mut Vec<f32>) {
                attend_body::<true>(h, scores)
            }
            // SAFETY: the CPU has AVX2 and FMA (checked just above).
            return unsafe { fast(h, scores) };
        }
    }
    attend_body::<PORTABLE_FMA>(h, scores)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// erf by its Taylor series in f64 (converges well for |x| ≤ 4).
    fn erf_series(x: f64) -> f64 {
        let (mut term, mut sum) = (x, x);
        for n in 1..200 {
            term *= -x * x / n as f64;
            sum += term / (2 * n + 1) as f64;
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    }

    #[test]
    fn erf_is_within_a_few_ulp() {
        let mut worst = 0f64;
        for i in -4000..=4000 {
            let x = i as f64 / 1000.0;
            worst = worst.max((erf_f32(x as f32) as f64 - erf_series(x)).abs());
        }
        assert!(worst < 1e-6, "max error {worst}");
        assert!((erf_f32(9.0) - 1.0).abs() < 1e-6 && (erf_f32(-9.0) + 1.0).abs() < 1e-6);
    }
}
