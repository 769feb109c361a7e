//! The linear layer `y = x · wᵀ + b`, the pass's whole arithmetic weight: register-tiled dot
//! products of token rows with weight rows in PyTorch's `out × in` layout, so no weight is ever
//! repacked, and each weight row is read once per block of 64 tokens. Weights are `f32`, or
//! `f16` (half the memory traffic, widened to `f32` in registers; accumulation is always `f32`).
//! The columns are split over the embedder's [`Pool`].

use std::ops::Range;

use half::f16;

use super::kernels::{fma, gelu_body, hsum, lanes, L, PORTABLE_FMA};
use super::pool::Pool;

/// Token rows one tile computes.
const ROWS: usize = 4;
/// Output columns (weight rows) one tile computes: 4 × 3 accumulators + 3 weight registers + 1
/// input register fill AVX2's 16.
const COLS: usize = 3;
/// Token rows of one cache block (keeps a batch's input block in L2).
const ROW_BLOCK: usize = 64;
/// Output columns of one parallel task: small enough that a thread descheduled by a busy
/// machine leaves little for the others to wait on, large enough to keep its weights streaming.
const CHUNK: usize = COLS * 16;

/// A weight element: `f32`, or `f16` widened on load.
pub trait Elem: Copy + Send + Sync + 'static {
    fn to_f32(self) -> f32;
    /// Eight elements from `p`, widened.
    ///
    /// # Safety
    /// AVX2 and F16C available; `p` valid for eight reads.
    #[cfg(target_arch = "x86_64")]
    unsafe fn load8(p: *const Self) -> std::arch::x86_64::__m256;
}

impl Elem for f32 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn load8(p: *const f32) -> std::arch::x86_64::__m256 {
        std::arch::x86_64::_mm256_loadu_ps(p)
    }
}

impl Elem for f16 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        f16::to_f32(self)
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn load8(p: *const f16) -> std::arch::x86_64::__m256 {
        use std::arch::x86_64::*;
        _mm256_cvtph_ps(_mm_loadu_si128(p as *const __m128i))
    }
}

/// The output matrix (`m × n`, row-major), written by tasks that each own a disjoint range of
/// its columns (or, in attention, of its rows and columns).
#[derive(Clone, Copy)]
pub struct Out {
    ptr: *mut f32,
    pub m: usize,
    n: usize,
}

// SAFETY: an `Out` is only written through `Out::row`, by tasks given disjoint parts of it,
// while the `&mut [f32]` it was made from stays borrowed by the caller that runs them.
unsafe impl Send for Out {}
unsafe impl Sync for Out {}

impl Out {
    pub fn new(y: &mut [f32], m: usize, n: usize) -> Out {
        assert!(
            y.len() >= m * n,
            "output of {m} × {n} in {} floats",
            y.len()
        );
        Out {
            ptr: y.as_mut_ptr(),
            m,
            n,
        }
    }

    /// Row `r`, columns `cols`.
    ///
    /// # Safety
    /// No other live reference may cover the same row and columns.
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn row(&self, r: usize, cols: Range<usize>) -> &mut [f32] {
        assert!(r < self.m && cols.end <= self.n);
        std::slice::from_raw_parts_mut(self.ptr.add(r * self.n + cols.start), cols.len())
    }
}

/// `R × C` dot products of rows `r0..r0 + R` of `x` with rows `c0..c0 + C` of `w`, `k` long.
#[inline(always)]
fn tile<const F: bool, const R: usize, const C: usize, W: Elem>(
    x: &[f32],
    r0: usize,
    w: &[W],
    c0: usize,
    k: usize,
) -> [[f32; C]; R] {
    let x = &x[r0 * k..(r0 + R) * k];
    let w = &w[c0 * k..(c0 + C) * k];
    #[cfg(target_arch = "x86_64")]
    if F {
        // SAFETY: `F` is true on x86-64 only inside `linear_cols`'s AVX2 + FMA + F16C function;
        // the slices hold R and C rows of k elements, k a multiple of L (checked in `linear`).
        return unsafe { x86::tile::<R, C, W>(x, w, k) };
    }
    let mut acc = [[[0f32; L]; C]; R];
    let mut i = 0;
    while i < k {
        let wv: [[f32; L]; C] =
            std::array::from_fn(|c| std::array::from_fn(|l| w[c * k + i + l].to_f32()));
        for (r, acc_r) in acc.iter_mut().enumerate() {
            let xv = lanes(x, r * k + i);
            for (a, wc) in acc_r.iter_mut().zip(&wv) {
                for l in 0..L {
                    a[l] = fma::<F>(xv[l], wc[l], a[l]);
                }
            }
        }
        i += L;
    }
    acc.map(|row| row.map(hsum))
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use super::{Elem, L};

    /// How many strips of weight rows ahead the tile prefetches.
    const PREFETCH_STRIPS: usize = 4;

    /// [`super::tile`] in intrinsics (LLVM spills the portable version's accumulators).
    ///
    /// # Safety
    /// AVX2, FMA and F16C available; `x` holds `R` rows and `w` `C` rows of `k` elements, `k` a
    /// multiple of [`L`].
    #[inline(always)]
    pub unsafe fn tile<const R: usize, const C: usize, W: Elem>(
        x: &[f32],
        w: &[W],
        k: usize,
    ) -> [[f32; C]; R] {
        debug_assert!(x.len() >= R * k && w.len() >= C * k && k % L == 0);
        let (xp, wp) = (x.as_ptr(), w.as_ptr());
        let mut acc = [[_mm256_setzero_ps(); C]; R];
        // Weight rows a few strips ahead, fetched while this one computes: a short utterance
        // does little arithmetic per weight byte, so the weight stream must not wait on memory.
        let ahead = PREFETCH_STRIPS * C * k;
        let line = 64 / std::mem::size_of::<W>();
        let mut i = 0;
        while i < k {
            if i % line == 0 {
                for c in 0..C {
                    let p = wp.wrapping_add(ahead + c * k + i);
                    _mm_prefetch::<_MM_HINT_T0>(p as *const i8);
                }
            }
            let mut wv = [_mm256_setzero_ps(); C];
            for (c, v) in wv.iter_mut().enumerate() {
                *v = W::load8(wp.add(c * k + i));
            }
            for (r, acc_r) in acc.iter_mut().enumerate() {
                let xv = _mm256_loadu_ps(xp.add(r * k + i));
                for (a, wc) in acc_r.iter_mut().zip(&wv) {
                    *a = _mm256_fmadd_ps(xv, *wc, *a);
                }
            }
            i += L;
        }
        let mut out = [[0f32; C]; R];
        for (o, a) in out.iter_mut().zip(&acc) {
            for (o, a) in o.iter_mut().zip(a) {
                *o = hsum(*a);
            }
        }
        out
    }

    #[inline(always)]
    unsafe fn hsum(v: __m256) -> f32 {
        let s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        let s = _mm_add_ps(s, _mm_movehl_ps(s, s));
        let s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
        _mm_cvtss_f32(s)
    }
}

/// The operands of one linear layer.
#[derive(Clone, Copy)]
struct Op<'a, W> {
    x: &'a [f32],
    k: usize,
    w: &'a [W],
    b: &'a [f32],
    y: Out,
    gelu: bool,
}

/// Columns `c0..c0 + C` of rows `rows` of `y`, tile by tile.
#[inline(always)]
fn strip<const F: bool, const C: usize, W: Elem>(op: Op<W>, rows: Range<usize>, c0: usize) {
    let put = |r: usize, v: &[f32; C]| {
        // SAFETY: this task owns columns c0..c0 + C of y (see `linear`).
        let out = unsafe { op.y.row(r, c0..c0 + C) };
        for ((o, v), b) in out.iter_mut().zip(v).zip(&op.b[c0..c0 + C]) {
            *o = v + b;
        }
    };
    let mut r = rows.start;
    while r + ROWS <= rows.end {
        let t = tile::<F, ROWS, C, W>(op.x, r, op.w, c0, op.k);
        for (i, v) in t.iter().enumerate() {
            put(r + i, v);
        }
        r += ROWS;
    }
    // The last 1-3 rows in one tile, so the weights are widened once more, not once per row.
    let rest = |t: &[[f32; C]]| t.iter().enumerate().for_each(|(i, v)| put(r + i, v));
    match rows.end - r {
        3 => rest(&tile::<F, 3, C, W>(op.x, r, op.w, c0, op.k)),
        2 => rest(&tile::<F, 2, C, W>(op.x, r, op.w, c0, op.k)),
        1 => rest(&tile::<F, 1, C, W>(op.x, r, op.w, c0, op.k)),
        _ => {}
    }
}

#[inline(always)]
fn cols_body<const F: bool, W: Elem>(op: Op<W>, cols: Range<usize>) {
    let mut r0 = 0;
    while r0 < op.y.m {
        let rows = r0..(r0 + ROW_BLOCK).min(op.y.m);
        let mut c = cols.start;
        while c + COLS <= cols.end {
            strip::<F, COLS, W>(op, rows.clone(), c);
            c += COLS;
        }
        while c < cols.end {
            strip::<F, 1, W>(op, rows.clone(), c);
            c += 1;
        }
        if op.gelu {
            for r in rows.clone() {
                // SAFETY: this task owns these columns of y.
                gelu_body::<F>(unsafe { op.y.row(r, cols.clone()) });
            }
        }
        r0 = rows.end;
    }
}

/// Columns `cols` of the layer, with the fast kernels when the CPU has them.
fn cols<W: Elem>(op: Op<W>, cols: Range<usize>) {
    #[cfg(target_arch = "x86_64")]
    {
        if super::kernels::avx2_fma() {
            #[target_feature(enable = "avx2,fma,f16c")]
            unsafe fn fast<W: Elem>(op: Op<W>, cols: Range<usize>) {
                cols_body::<true, W>(op, cols)
            }
            // SAFETY: the CPU has AVX2, FMA and F16C (checked just above).
            return unsafe { fast(op, cols) };
        }
    }
    cols_body::<PORTABLE_FMA, W>(op, cols)
}

/// `y = x · wᵀ + b`, then GELU when `gelu`: `x` is `m × k`, `y` is `m × n`, row-major; `w` is
/// `n × k` (PyTorch's layout); `k` a multiple of [`L`]. Column chunks run on the pool's threads.
#[allow(clippy::too_many_arguments)]
pub fn linear<W: Elem>(
    pool: &Pool,
    x: &[f32],
    m: usize,
    k: usize,
    w: &[W],
    b: &[f32],
    y: &mut [f32],
    gelu: bool,
) {
    let n = b.len();
    assert!(k % L == 0 && x.len() >= m * k && w.len() == n * k);
    let op = Op {
        x,
        k,
        w,
        b,
        y: Out::new(y, m, n),
        gelu,
    };
    pool.run(n.div_ceil(CHUNK), &|i| {
        cols(op, i * CHUNK..((i + 1) * CHUNK).min(n))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(x: &[f32], m: usize, k: usize, w: &[f32], b: &[f32]) -> Vec<f32> {
        let n = b.len();
        let mut y = vec![0.0; m * n];
        for r in 0..m {
            for c in 0..n {
                let s: f64 = (0..k)
                    .map(|i| x[r * k + i] as f64 * w[c * k + i] as f64)
                    .sum();
                y[r * n + c] = s as f32 + b[c];
            }
        }
        y
    }

    #[test]
    fn linear_matches_the_naive_product_on_every_tile_shape() {
        let mut seed = 1u32;
        let mut rnd = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5
        };
        let pool = Pool::new(2).unwrap();
        for (m, k, n) in [
            (1, 8, 1),
            (5, 16, 7),
            (13, 32, 10),
            (70, 24, 5),
            (3, 8, 100),
        ] {
            let x: Vec<f32> = (0..m * k).map(|_| rnd()).collect();
            let w: Vec<f32> = (0..n * k).map(|_| rnd()).collect();
            let b: Vec<f32> = (0..n).map(|_| rnd()).collect();
            let want = naive(&x, m, k, &w, &b);
            let w16: Vec<f16> = w.iter().map(|&v| f16::from_f32(v)).collect();
            let w16_wide: Vec<f32> = w16.iter().map(|v| v.to_f32()).collect();
            let want16 = naive(&x, m, k, &w16_wide, &b);
            let mut y = vec![f32::NAN; m * n];
            linear(&pool, &x, m, k, &w, &b, &mut y, false);
            for (a, b) in y.iter().zip(&want) {
                assert!((a - b).abs() < 1e-5, "f32 {m}×{k}×{n}: {a} vs {b}");
            }
            linear(&pool, &x, m, k, &w16, &b, &mut y, false);
            for (a, b) in y.iter().zip(&want16) {
                assert!((a - b).abs() < 1e-5, "f16 {m}×{k}×{n}: {a} vs {b}");
            }
        }
    }
}
