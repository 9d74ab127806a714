//! Fused `layer_norm` rows (PyTorch's `native_layer_norm` and its input gradient). Each
//! contiguous row of `len` elements stays in the cache while it is read for its mean and
//! variance (summed in f64, as the composed `mean` sums) and normalised. The forward rounds
//! as the composed ops round (`x - mean`, its square, `sqrt(var + eps)`, the quotient, then
//! `· weight + bias`), so the recorded and the unrecorded forms agree. Rows are split across
//! threads. f32 and f64 (16-bit floats are widened by the caller).

use super::convert::{same, same_mut};
use super::reduce::sum_run;
use super::rows::rows_per_task;
use super::strided::{PAR_THRESHOLD, par_chunks};
use crate::dtype::Element;
use num_traits::Float;
use rayon::prelude::*;

/// `out[r] = (x[r] - mean) / sqrt(var + eps) · weight + bias` for each row `r` of `len`
/// elements of `src`, with the row's mean and biased variance; `weight` and `bias` hold `len`
/// elements each when given.
///
/// # Panics
/// When `len` is 0, `out.len()` is not a multiple of it, `src` is shorter than `out`, or
/// `weight`/`bias` are shorter than `len` (a caller bug).
pub fn layer_norm<T: Element>(
    src: &[T],
    len: usize,
    weight: Option<&[T]>,
    bias: Option<&[T]>,
    eps: f64,
    out: &mut [T],
) {
    let rows = out.len() / len.max(1);
    assert!(
        len > 0
            && out.len().is_multiple_of(len)
            && src.len() >= out.len()
            && weight.is_none_or(|w| w.len() >= len)
            && bias.is_none_or(|b| b.len() >= len),
        "layer_norm rows"
    );
    par_chunks(out, rows_per_task(rows, len) * len, &|start, o| {
        let x = &src[start..start + o.len()];
        if let (Some(x), Some(y)) = (same::<T, f32>(x), same_mut::<T, f32>(o)) {
            let (w, b) = (
                weight.and_then(same::<T, f32>),
                bias.and_then(same::<T, f32>),
            );
            forward_widest(x, len, (w, b), eps as f32, y);
        } else if let (Some(x), Some(y)) = (same::<T, f64>(x), same_mut::<T, f64>(o)) {
            let (w, b) = (
                weight.and_then(same::<T, f64>),
                bias.and_then(same::<T, f64>),
            );
            forward_widest(x, len, (w, b), eps, y);
        } else {
            unreachable!("layer_norm rows of {}", T::DTYPE)
        }
    });
}

/// The affine parameters of one float type.
type Affine<'a, F> = (Option<&'a [F]>, Option<&'a [F]>);

widest! {
    /// [`forward`] at the CPU's widest vectors (the SSE2 copy widened and divided four
    /// elements at a time).
    fn forward_widest<F: Float, Element>(x: &[F], len: usize, aff: Affine<F>, eps: F, y: &mut [F]) = forward
}

#[inline(always)]
fn forward<F: Float + Element>(src: &[F], len: usize, (w, b): Affine<F>, eps: F, out: &mut [F]) {
    let n = len as f64;
    for (y, x) in out.chunks_exact_mut(len).zip(src.chunks_exact(len)) {
        let mean = F::from_f64(sum_run(x) / n);
        for (y, &v) in y.iter_mut().zip(x) {
            *y = v - mean;
        }
        let sd = (F::from_f64(sum_squares(y) / n) + eps).sqrt();
        // One pass for the quotient and the affine, each step rounded as the composed ops
        // round it.
        match (w, b) {
            (Some(w), Some(b)) => {
                (y.iter_mut().zip(w).zip(b)).for_each(|((v, &w), &b)| *v = *v / sd * w + b)
            }
            (Some(w), None) => y.iter_mut().zip(w).for_each(|(v, &w)| *v = *v / sd * w),
            (None, Some(b)) => y.iter_mut().zip(b).for_each(|(v, &b)| *v = *v / sd + b),
            (None, None) => y.iter_mut().for_each(|v| *v = *v / sd),
        }
    }
}

/// The per-column sums a `layer_norm` backward pass can also give: `weight` takes
/// `Σ_r grad[r] · x̂[r]` and `bias` `Σ_r grad[r]` (`len` elements each), each column summed in
/// f64 in row order on any thread count; `stats` (2 per row) is scratch for the rows' mean and
/// reciprocal standard deviation.
pub struct ParamGrads<'a, T> {
    pub weight: &'a mut [T],
    pub bias: &'a mut [T],
    pub stats: &'a mut [f64],
}

/// The gradient of `layer_norm` (PyTorch's `native_layer_norm_backward`) with respect to its
/// input: `out[r] = (s - mean(s) - x̂ · mean(s · x̂)) / sqrt(var + eps)` for each row `r` of
/// `len` elements, with `s = grad[r] · weight` (`grad[r]` without a weight) and
/// `x̂ = (x - mean) / sqrt(var + eps)` recomputed from `src`; with `params`, also the affine's
/// gradients ([`ParamGrads`]) in a second pass over the columns.
///
/// # Panics
/// When `len` is 0, `out.len()` is not a multiple of it, `src` or `grad` is shorter than
/// `out`, `weight` is shorter than `len`, or `params` has other lengths than `len`, `len` and
/// 2 per row (a caller bug).
pub fn layer_norm_backward<T: Element>(
    src: &[T],
    grad: &[T],
    weight: Option<&[T]>,
    len: usize,
    eps: f64,
    out: &mut [T],
    params: Option<ParamGrads<'_, T>>,
) {
    let rows = out.len() / len.max(1);
    assert!(
        len > 0
            && out.len().is_multiple_of(len)
            && src.len() >= out.len()
            && grad.len() >= out.len()
            && weight.is_none_or(|w| w.len() >= len)
            && (params.as_ref()).is_none_or(|p| {
                p.weight.len() == len && p.bias.len() == len && p.stats.len() == 2 * rows
            }),
        "layer_norm_backward rows"
    );
    let (mut params, mut no_stats) = (params, [0f64; 0]);
    let stats = match params.as_mut() {
        Some(p) => &mut *p.stats,
        None => &mut no_stats[..],
    };
    let per_task = rows_per_task(rows, len);
    let task = |i: usize, o: &mut [T], st: &mut [f64]| {
        let start = i * per_task * len;
        let (x, g) = (&src[start..start + o.len()], &grad[start..start + o.len()]);
        if let (Some(x), Some(g), Some(d)) = (same::<T, f32>(x), same::<T, f32>(g), same_mut(o)) {
            let w = weight.and_then(same::<T, f32>);
            backward_widest(x, g, w, len, eps as f32, d, st);
        } else if let (Some(x), Some(g), Some(d)) =
            (same::<T, f64>(x), same::<T, f64>(g), same_mut(o))
        {
            let w = weight.and_then(same::<T, f64>);
            backward_widest(x, g, w, len, eps, d, st);
        } else {
            unreachable!("layer_norm_backward rows of {}", T::DTYPE)
        }
    };
    let tasks = out.par_chunks_mut(per_task * len).enumerate();
    if stats.is_empty() {
        tasks.for_each(|(i, o)| task(i, o, &mut []));
    } else {
        (tasks.zip(stats.par_chunks_mut(per_task * 2))).for_each(|((i, o), st)| task(i, o, st));
    }
    if let Some(p) = params {
        column_sums(&src[..out.len()], &grad[..out.len()], len, p);
    }
}

widest! {
    /// [`backward`] at the CPU's widest vectors.
    fn backward_widest<F: Float, Element>(x: &[F], g: &[F], w: Option<&[F]>, len: usize, eps: F, d: &mut [F], stats: &mut [f64]) = backward
}

/// Rows of [`layer_norm_backward`]; each row's mean and `1 / sd` go to `stats` when it has
/// room (2 per row).
#[inline(always)]
fn backward<F: Float + Element>(
    src: &[F],
    grad: &[F],
    weight: Option<&[F]>,
    len: usize,
    eps: F,
    out: &mut [F],
    stats: &mut [f64],
) {
    let n = len as f64;
    // `g · weight` of the current row (rounded as the composed product rounds).
    let mut scaled = vec![F::zero(); if weight.is_some() { len } else { 0 }];
    for (r, ((d, x), g)) in (out.chunks_exact_mut(len).zip(src.chunks_exact(len)))
        .zip(grad.chunks_exact(len))
        .enumerate()
    {
        // x̂ goes to `d` first; the row then stays in the cache for the two sums and the result.
        let mean = F::from_f64(sum_run(x) / n);
        for (d, &v) in d.iter_mut().zip(x) {
            *d = v - mean;
        }
        let sd = (F::from_f64(sum_squares(d) / n) + eps).sqrt();
        let rstd = F::one() / sd;
        d.iter_mut().for_each(|v| *v = *v * rstd);
        if let Some(s) = stats.get_mut(2 * r..2 * r + 2) {
            s.copy_from_slice(&[mean.to_f64(), rstd.to_f64()]);
        }
        let g = match weight {
            Some(w) => {
                (scaled.iter_mut().zip(g).zip(w)).for_each(|((s, &g), &w)| *s = g * w);
                &scaled[..]
            }
            None => g,
        };
        let mean_g = F::from_f64(sum_run(g) / n);
        let mean_gx = F::from_f64(sum_products(g, d) / n);
        for (d, &g) in d.iter_mut().zip(g) {
            *d = (g - mean_g - *d * mean_gx) * rstd;
        }
    }
}

/// The second pass of [`layer_norm_backward`]: blocks of columns across threads, each
/// column's `Σ g · x̂` and `Σ g` in f64 in row order, `x̂` rounded as the first pass rounds it.
fn column_sums<T: Element>(src: &[T], grad: &[T], len: usize, p: ParamGrads<'_, T>) {
    let rows = src.len() / len;
    // Blocks of whole cache lines, about four per thread where the rows are long enough.
    let threads = rayon::current_num_threads() * 4;
    let block = len.div_ceil(threads).next_multiple_of(16);
    let blocks = if rows.saturating_mul(len) < PAR_THRESHOLD {
        len
    } else {
        block
    };
    let stats = &*p.stats;
    let sums = |c0: usize, w: &mut [T], b: &mut [T]| {
        if let (Some(x), Some(g), Some(w), Some(b)) = (
            same::<T, f32>(src),
            same::<T, f32>(grad),
            same_mut::<T, f32>(w),
            same_mut::<T, f32>(b),
        ) {
            columns_widest(x, g, stats, len, c0, w, b);
        } else if let (Some(x), Some(g), Some(w), Some(b)) = (
            same::<T, f64>(src),
            same::<T, f64>(grad),
            same_mut::<T, f64>(w),
            same_mut::<T, f64>(b),
        ) {
            columns_widest(x, g, stats, len, c0, w, b);
        } else {
            unreachable!("layer_norm_backward columns of {}", T::DTYPE)
        }
    };
    (p.weight.par_chunks_mut(blocks))
        .zip(p.bias.par_chunks_mut(blocks))
        .enumerate()
        .for_each(|(i, (w, b))| sums(i * blocks, w, b));
}

widest! {
    /// [`columns`] at the CPU's widest vectors.
    fn columns_widest<F: Float, Element>(x: &[F], g: &[F], stats: &[f64], len: usize, c0: usize, w: &mut [F], b: &mut [F]) = columns
}

/// `Σ_r g[r][c] · x̂[r][c]` into `w` and `Σ_r g[r][c]` into `b` for the columns `c0..` of
/// `w.len()`.
#[inline(always)]
fn columns<F: Float + Element>(
    x: &[F],
    g: &[F],
    stats: &[f64],
    len: usize,
    c0: usize,
    w: &mut [F],
    b: &mut [F],
) {
    let cols = c0..c0 + w.len();
    let (mut sw, mut sb) = (vec![0f64; w.len()], vec![0f64; w.len()]);
    for ((x, g), s) in (x.chunks_exact(len).zip(g.chunks_exact(len))).zip(stats.chunks_exact(2)) {
        let (mean, rstd) = (F::from_f64(s[0]), F::from_f64(s[1]));
        let (x, g) = (&x[cols.clone()], &g[cols.clone()]);
        for (((sw, sb), &x), &g) in sw.iter_mut().zip(&mut sb).zip(x).zip(g) {
            *sw += (g * ((x - mean) * rstd)).to_f64();
            *sb += g.to_f64();
        }
    }
    (w.iter_mut().zip(sw)).for_each(|(w, s)| *w = F::from_f64(s));
    (b.iter_mut().zip(sb)).for_each(|(b, s)| *b = F::from_f64(s));
}

/// `Σ x²` with each square rounded to `F` (as the composed `x * x` rounds) and summed in f64,
/// in eight independent lanes.
#[inline(always)]
fn sum_squares<F: Float + Element>(xs: &[F]) -> f64 {
    sum_products(xs, xs)
}

/// `Σ a·b` for `a` and `b` of one length, each product rounded to `F` (as the composed `a * b`
/// rounds), summed in f64 in independent lanes. f32 on an AVX-512 or AVX2 CPU goes through
/// intrinsics (LLVM kept the generic lanes in 4-wide halves and blends: about half of a
/// `layer_norm` row).
#[inline(always)]
pub(super) fn sum_products<F: Float + Element>(a: &[F], b: &[F]) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if a.len().min(b.len()) >= 32
        && let (Some(a), Some(b)) = (same::<F, f32>(a), same::<F, f32>(b))
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F, checked just above.
            return unsafe { products_avx512(a, b) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { products_avx2(a, b) };
        }
    }
    let mut lanes = [0f64; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    for (&x, &y) in ca.remainder().iter().zip(cb.remainder()) {
        lanes[0] += (x * y).to_f64();
    }
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            lanes[k] += (x[k] * y[k]).to_f64();
        }
    }
    lanes.iter().sum()
}

/// [`sum_products`] of f32 on AVX-512F: products of 8 elements widened into four 8-wide
/// accumulators, the tail through a masked load.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn products_avx512(a: &[f32], b: &[f32]) -> f64 {
    use std::arch::x86_64::*;
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    // SAFETY (every load below): `i + 8 <= n` elements of both slices exist, or the mask
    // selects only the `n - i < 8` that do (masked-off lanes are not read and are +0.0,
    // whose products add nothing to sums that start at +0.0); the loads are unaligned.
    let load = |i: usize| unsafe {
        _mm512_cvtps_pd(_mm256_mul_ps(
            _mm256_loadu_ps(a.as_ptr().add(i)),
            _mm256_loadu_ps(b.as_ptr().add(i)),
        ))
    };
    let (mut s0, mut s1, mut s2, mut s3) = (
        _mm512_setzero_pd(),
        _mm512_setzero_pd(),
        _mm512_setzero_pd(),
        _mm512_setzero_pd(),
    );
    let mut i = 0;
    while i + 32 <= n {
        s0 = _mm512_add_pd(s0, load(i));
        s1 = _mm512_add_pd(s1, load(i + 8));
        s2 = _mm512_add_pd(s2, load(i + 16));
        s3 = _mm512_add_pd(s3, load(i + 24));
        i += 32;
    }
    while i + 8 <= n {
        s0 = _mm512_add_pd(s0, load(i));
        i += 8;
    }
    if i < n {
        let m = (1u16 << (n - i)) - 1;
        // SAFETY: see above.
        let (u, v) = unsafe {
            (
                _mm512_maskz_loadu_ps(m, a.as_ptr().add(i)),
                _mm512_maskz_loadu_ps(m, b.as_ptr().add(i)),
            )
        };
        let p = _mm512_castps512_ps256(_mm512_mul_ps(u, v));
        s1 = _mm512_add_pd(s1, _mm512_cvtps_pd(p));
    }
    _mm512_reduce_add_pd(_mm512_add_pd(_mm512_add_pd(s0, s1), _mm512_add_pd(s2, s3)))
}

/// [`sum_products`] of f32 on AVX2: products of 4 elements widened into four 4-wide
/// accumulators.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn products_avx2(a: &[f32], b: &[f32]) -> f64 {
    use std::arch::x86_64::*;
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    // SAFETY (every load): `i + 4 <= n` elements of both slices exist; unaligned loads.
    let load = |i: usize| unsafe {
        _mm256_cvtps_pd(_mm_mul_ps(
            _mm_loadu_ps(a.as_ptr().add(i)),
            _mm_loadu_ps(b.as_ptr().add(i)),
        ))
    };
    let (mut s0, mut s1, mut s2, mut s3) = (
        _mm256_setzero_pd(),
        _mm256_setzero_pd(),
        _mm256_setzero_pd(),
        _mm256_setzero_pd(),
    );
    let mut i = 0;
    while i + 16 <= n {
        s0 = _mm256_add_pd(s0, load(i));
        s1 = _mm256_add_pd(s1, load(i + 4));
        s2 = _mm256_add_pd(s2, load(i + 8));
        s3 = _mm256_add_pd(s3, load(i + 12));
        i += 16;
    }
    while i + 4 <= n {
        s0 = _mm256_add_pd(s0, load(i));
        i += 4;
    }
    let mut lanes = [0f64; 4];
    // SAFETY: `lanes` holds four f64; the store is unaligned.
    unsafe {
        _mm256_storeu_pd(
            lanes.as_mut_ptr(),
            _mm256_add_pd(_mm256_add_pd(s0, s1), _mm256_add_pd(s2, s3)),
        )
    };
    let mut s = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    for (&x, &y) in a[i..].iter().zip(&b[i..]) {
        s += (x * y) as f64;
    }
    s
}

#[cfg(test)]
mod tests {
    /// Rows in f64 by the definition.
    fn want(x: &[f64], len: usize, eps: f64) -> Vec<f64> {
        x.chunks(len)
            .flat_map(|r| {
                let m = r.iter().sum::<f64>() / len as f64;
                let v = r.iter().map(|a| (a - m) * (a - m)).sum::<f64>() / len as f64;
                r.iter().map(move |a| (a - m) / (v + eps).sqrt())
            })
            .collect()
    }

    #[test]
    fn rows_match_the_definition_and_finite_differences() {
        for len in [1usize, 3, 8, 17, 130] {
            let x: Vec<f64> = (0..len * 5).map(|i| ((i * 37 % 23) as f64).sin()).collect();
            let mut y = vec![0f64; x.len()];
            super::layer_norm(&x, len, None, None, 1e-5, &mut y);
            for (a, b) in y.iter().zip(want(&x, len, 1e-5)) {
                assert!((a - b).abs() < 1e-12, "len {len}: {a} vs {b}");
            }
            // d/dx of Σ c·y at a few points, against central differences.
            let c: Vec<f64> = (0..x.len()).map(|i| (i as f64 * 0.7).cos()).collect();
            let mut dx = vec![0f64; x.len()];
            super::layer_norm_backward(&x, &c, None, len, 1e-5, &mut dx, None);
            let f =
                |x: &[f64]| -> f64 { want(x, len, 1e-5).iter().zip(&c).map(|(y, c)| y * c).sum() };
            for i in [0, len / 2, x.len() - 1] {
                let (mut p, mut m) = (x.clone(), x.clone());
                p[i] += 1e-6;
                m[i] -= 1e-6;
                let fd = (f(&p) - f(&m)) / 2e-6;
                assert!(
                    (fd - dx[i]).abs() < 1e-5 * (1.0 + fd.abs()),
                    "len {len} [{i}]: {fd} vs {}",
                    dx[i]
                );
            }
        }
    }

    /// The weighted input gradient and the affine's column sums, f32 and f64, against the
    /// definition in f64: short rows (one task), and rows that split across tasks and blocks
    /// of columns (stats written mid-task, blocks ending inside the row).
    #[test]
    fn backward_with_weight_and_parameter_sums_match_f64() {
        for (len, rows) in [(1usize, 3usize), (17, 5), (130, 7), (700, 300), (33, 4000)] {
            let n = len * rows;
            let x: Vec<f64> = (0..n)
                .map(|i| ((i * 37 % 101) as f64 * 0.7).sin() * 3.0 + 1.0)
                .collect();
            let g: Vec<f64> = (0..n).map(|i| ((i * 13 % 89) as f64 * 0.3).cos()).collect();
            let w: Vec<f64> = (0..len).map(|i| 0.5 + (i % 7) as f64 * 0.25).collect();
            // The definition: dx from s = g · w; the sums of g · x̂ and g over the rows.
            let xhat = want(&x, len, 1e-5);
            let s: Vec<f64> = g.iter().enumerate().map(|(i, g)| g * w[i % len]).collect();
            let mut dx_want = vec![0f64; n];
            for r in 0..rows {
                let row = r * len..(r + 1) * len;
                let m: f64 = x[row.clone()].iter().sum::<f64>() / len as f64;
                let v = x[row.clone()]
                    .iter()
                    .map(|a| (a - m) * (a - m))
                    .sum::<f64>()
                    / len as f64;
                let ms = s[row.clone()].iter().sum::<f64>() / len as f64;
                let msx = row.clone().map(|i| s[i] * xhat[i]).sum::<f64>() / len as f64;
                for i in row {
                    dx_want[i] = (s[i] - ms - xhat[i] * msx) / (v + 1e-5).sqrt();
                }
            }
            let dw_want: Vec<f64> = (0..len)
                .map(|c| (0..rows).map(|r| g[r * len + c] * xhat[r * len + c]).sum())
                .collect();
            let db_want: Vec<f64> = (0..len)
                .map(|c| (0..rows).map(|r| g[r * len + c]).sum())
                .collect();
            let close = |what: &str, got: &[f64], want: &[f64], tol: f64| {
                let scale = want.iter().fold(1f64, |m, v| m.max(v.abs()));
                for (i, (a, b)) in got.iter().zip(want).enumerate() {
                    assert!(
                        (a - b).abs() <= tol * scale,
                        "{what} len {len} rows {rows} [{i}]: {a} vs {b}"
                    );
                }
            };
            let (mut dx, mut dw, mut db, mut st) = (
                vec![0f64; n],
                vec![0f64; len],
                vec![0f64; len],
                vec![0f64; 2 * rows],
            );
            let p = super::ParamGrads {
                weight: &mut dw,
                bias: &mut db,
                stats: &mut st,
            };
            super::layer_norm_backward(&x, &g, Some(&w), len, 1e-5, &mut dx, Some(p));
            close("f64 dx", &dx, &dx_want, 1e-9);
            close("f64 dweight", &dw, &dw_want, 1e-9);
            close("f64 dbias", &db, &db_want, 1e-9);
            let f = |v: &[f64]| v.iter().map(|&a| a as f32).collect::<Vec<f32>>();
            let (mut dx, mut dw, mut db) = (vec![0f32; n], vec![0f32; len], vec![0f32; len]);
            let p = super::ParamGrads {
                weight: &mut dw,
                bias: &mut db,
                stats: &mut st,
            };
            super::layer_norm_backward(&f(&x), &f(&g), Some(&f(&w)), len, 1e-5, &mut dx, Some(p));
            let d = |v: &[f32]| v.iter().map(|&a| a as f64).collect::<Vec<f64>>();
            close("f32 dx", &d(&dx), &dx_want, 2e-4);
            close("f32 dweight", &d(&dw), &dw_want, 1e-5);
            close("f32 dbias", &d(&db), &db_want, 1e-5);
        }
    }

    #[test]
    fn f32_rows_with_affine_match_f64() {
        let len = 33;
        let x: Vec<f32> = (0..len * 70)
            .map(|i| (i as f32 * 0.31).sin() * 40.0 + 3.0)
            .collect();
        let w: Vec<f32> = (0..len).map(|i| 0.5 + i as f32 * 0.1).collect();
        let b: Vec<f32> = (0..len).map(|i| i as f32 - 4.0).collect();
        let mut y = vec![0f32; x.len()];
        super::layer_norm(&x, len, Some(&w), Some(&b), 1e-5, &mut y);
        let xd: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        for (i, (a, r)) in y.iter().zip(want(&xd, len, 1e-5)).enumerate() {
            let r = r * w[i % len] as f64 + b[i % len] as f64;
            assert!(
                (*a as f64 - r).abs() < 1e-5 * (1.0 + r.abs()),
                "[{i}] {a} vs {r}"
            );
        }
    }

    #[test]
    fn sum_products_every_length_path_and_special_value() {
        type Path = fn(&[f32], &[f32]) -> f64;
        let mut paths: Vec<(&str, Path)> = vec![("dispatch", super::sum_products::<f32>)];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2.
                paths.push(("avx2", |a, b| unsafe { super::products_avx2(a, b) }));
            }
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the CPU has AVX-512F.
                paths.push(("avx512", |a, b| unsafe { super::products_avx512(a, b) }));
            }
        }
        for n in 0..150usize {
            // Small integers: every product and partial sum is exact, so all orders agree.
            let a: Vec<f32> = (0..n).map(|i| (i * 37 % 23) as f32 - 11.0).collect();
            let b: Vec<f32> = (0..n).map(|i| (i * 11 % 7) as f32 - 3.0).collect();
            let want: f64 = a.iter().zip(&b).map(|(x, y)| (x * y) as f64).sum();
            for (name, f) in &paths {
                assert_eq!(f(&a, &b), want, "{name}, n {n}");
                // Special values anywhere, the tail included, reach the sum.
                if n > 0 {
                    for (at, v, check) in [
                        (n - 1, f32::NAN, f64::is_nan as fn(f64) -> bool),
                        (n / 2, f32::INFINITY, |s: f64| s == f64::INFINITY),
                    ] {
                        let mut a = a.clone();
                        a[at] = v;
                        let mut b = b.clone();
                        b[at] = 1.0;
                        assert!(check(f(&a, &b)), "{name}, n {n}, {v} at {at}");
                    }
                }
            }
        }
    }
}
