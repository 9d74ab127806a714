//! Fused row kernels (issue 26): `logsumexp` over contiguous rows in one read of the row for
//! its maximum and one for the sum of exponentials, the exponentials computed by [`vmath`]
//! over a stack buffer; and `exp(x - shift) · scale` with one shift and scale per row (a
//! softmax from its `logsumexp`, and that softmax times a per-row gradient in `logsumexp`'s
//! backward rule); and `softmax` over rows in one read for the maximum and one for the
//! exponentials. Rows are split across threads. Semantics as the composed op
//! (`Tensor::try_logsumexp`): a NaN anywhere gives NaN, and a row whose maximum is not finite
//! shifts by 0, so all `-inf` gives `-inf` and `+inf` gives `+inf`.

use super::convert::same;
use super::reduce::sum_run;
use super::strided::{PAR_THRESHOLD, par_chunks};
use super::vmath;
use crate::dtype::Element;
use num_traits::Float;

/// Elements per exponential buffer: it stays in L1.
const BLOCK: usize = 256;

/// `out[r] = log(sum(exp(src[r * len..(r + 1) * len])))` for every row `r`; f32 and f64 rows
/// (other types never reach here: 16-bit floats are widened by the caller).
///
/// # Panics
/// When `len` is 0 or `src` holds fewer than `out.len() * len` elements (a caller bug).
pub fn logsumexp<T: Element>(src: &[T], len: usize, out: &mut [T]) {
    assert!(len > 0 && src.len() >= out.len() * len, "logsumexp rows");
    par_chunks(out, rows_per_task(out.len(), len), &|start, o| {
        let src = &src[start * len..(start + o.len()) * len];
        if let (Some(x), Some(y)) = (same::<T, f32>(src), super::convert::same_mut::<T, f32>(o)) {
            rows_f32(x, len, y);
        } else if let Some(x) = same::<T, f64>(src) {
            for (y, row) in o.iter_mut().zip(x.chunks_exact(len)) {
                *y = T::from_f64(row_f64(row));
            }
        } else {
            unreachable!("logsumexp rows of {}", T::DTYPE)
        }
    });
}

/// Rows of `len` elements per pool task: all of them below the parallel threshold, else
/// about [`PAR_THRESHOLD`] elements' worth, at most a quarter of a thread's share.
pub(super) fn rows_per_task(rows: usize, len: usize) -> usize {
    if rows.saturating_mul(len) < PAR_THRESHOLD {
        return rows.max(1);
    }
    (PAR_THRESHOLD / len)
        .min(rows.div_ceil(rayon::current_num_threads() * 4))
        .max(1)
}

/// f32 rows. Short rows are packed several to a buffer, so that one vectorised `exp` and one
/// vectorised `log` serve many rows (a softmax over 10 classes would otherwise pay both
/// calls' set-up per row).
fn rows_f32(src: &[f32], len: usize, out: &mut [f32]) {
    let mut buf = [0f32; BLOCK];
    if len > BLOCK / 4 {
        for (y, row) in out.iter_mut().zip(src.chunks_exact(len)) {
            *y = row_f32(row, &mut buf);
        }
        return;
    }
    let per = BLOCK / len;
    let mut shifts = [0f32; BLOCK];
    for (o, rows) in out.chunks_mut(per).zip(src.chunks(per * len)) {
        let b = &mut buf[..rows.len()];
        for ((row, d), shift) in rows
            .chunks_exact(len)
            .zip(b.chunks_exact_mut(len))
            .zip(&mut shifts)
        {
            let m = row_max(row);
            *shift = if m.is_finite() { m } else { 0.0 };
            for (d, &v) in d.iter_mut().zip(row) {
                *d = v - *shift;
            }
        }
        vmath::exp(b);
        for (y, e) in o.iter_mut().zip(b.chunks_exact(len)) {
            *y = e.iter().sum();
        }
        vmath::log(o);
        for (y, &shift) in o.iter_mut().zip(&shifts) {
            *y += shift;
        }
    }
}

/// `out[r * len + j] = exp(src[r * len + j] - m) / sum(exp(src[r * len..][..len] - m))` with
/// `m` the row's maximum, for every row `r` (PyTorch's `softmax` over the last axis): the
/// shifted row is written to `out`, exponentiated and summed there while it is in the cache,
/// then scaled by the reciprocal of the sum. f32 and f64 (16-bit floats are widened by the
/// caller). As the composed op, a NaN or a maximum of `±inf` in a row makes the row NaN.
///
///
/// `causal: Some(l)` masks as `scaled_dot_product_attention`'s causal mask over matrices of
/// `l` rows: row `i` of each matrix keeps its first `i + 1` elements and its others are read
/// as `-inf` (so they give 0, and the row rounds as `masked_fill` then softmax round).
///
/// # Panics
/// When `len` is 0, `out.len()` is not a multiple of it, or `src` is shorter than `out` (a
/// caller bug).
pub fn softmax<T: Element>(src: &[T], len: usize, out: &mut [T], causal: Option<usize>) {
    let rows = out.len() / len.max(1);
    assert!(
        len > 0 && out.len().is_multiple_of(len) && src.len() >= out.len(),
        "softmax rows"
    );
    par_chunks(out, rows_per_task(rows, len) * len, &|start, o| {
        let src = &src[start..start + o.len()];
        let kept = Kept::new(causal, start / len, len);
        if let (Some(x), Some(y)) = (same::<T, f32>(src), super::convert::same_mut::<T, f32>(o)) {
            softmax_widest(x, len, y, kept, vmath::exp);
        } else if let (Some(x), Some(y)) =
            (same::<T, f64>(src), super::convert::same_mut::<T, f64>(o))
        {
            softmax_widest(x, len, y, kept, |v: &mut [f64]| {
                v.iter_mut().for_each(|e| *e = e.exp())
            });
        } else {
            unreachable!("softmax rows of {}", T::DTYPE)
        }
    });
}

/// `out[r * len + j] = (x[j] - m) - log(Σ_k exp(x[k] - m))` over each row `x` of `len`
/// elements, `m` its maximum (PyTorch's `log_softmax` over the last axis): the shifted row is
/// written to `out`, its exponentials summed through a stack buffer while it is in the cache,
/// then the log of the sum subtracted. Shifting first keeps the digits that `x - logsumexp(x)`
/// loses to the rounding of `logsumexp` for large `x`. f32 and f64 (16-bit floats are widened
/// by the caller). A NaN or a maximum of `±inf` in a row makes the row NaN, as in PyTorch.
///
/// # Panics
/// When `len` is 0, `out.len()` is not a multiple of it, or `src` is shorter than `out` (a
/// caller bug).
pub fn log_softmax<T: Element>(src: &[T], len: usize, out: &mut [T]) {
    let rows = out.len() / len.max(1);
    assert!(
        len > 0 && out.len().is_multiple_of(len) && src.len() >= out.len(),
        "log_softmax rows"
    );
    par_chunks(out, rows_per_task(rows, len) * len, &|start, o| {
        let src = &src[start..start + o.len()];
        if let (Some(x), Some(y)) = (same::<T, f32>(src), super::convert::same_mut::<T, f32>(o)) {
            let mut buf = [0f32; BLOCK];
            log_softmax_widest(x, len, y, |d: &[f32]| {
                d.chunks(BLOCK).fold(0.0, |acc, c| {
                    let b = &mut buf[..c.len()];
                    b.copy_from_slice(c);
                    vmath::exp(b);
                    acc + sum_run(b)
                })
            });
        } else if let (Some(x), Some(y)) =
            (same::<T, f64>(src), super::convert::same_mut::<T, f64>(o))
        {
            log_softmax_widest(x, len, y, |d: &[f64]| d.iter().map(|v| v.exp()).sum());
        } else {
            unreachable!("log_softmax rows of {}", T::DTYPE)
        }
    });
}

widest! {
    /// [`log_softmax_typed`] at the CPU's widest vectors.
    fn log_softmax_widest<F: Float, Element>(x: &[F], len: usize, y: &mut [F], exp_sum: impl FnMut(&[F]) -> f64) = log_softmax_typed
}

/// [`log_softmax`] for one float type, row by row; `exp_sum` sums the exponentials of a
/// shifted row (in f64).
#[inline(always)]
fn log_softmax_typed<F: num_traits::Float + Element>(
    src: &[F],
    len: usize,
    out: &mut [F],
    mut exp_sum: impl FnMut(&[F]) -> f64,
) {
    for (d, x) in out.chunks_exact_mut(len).zip(src.chunks_exact(len)) {
        let m = row_max(x);
        for (d, &v) in d.iter_mut().zip(x) {
            *d = v - m;
        }
        let l = F::from(exp_sum(d).ln()).expect("a float");
        d.iter_mut().for_each(|v| *v = *v - l);
    }
}

/// How many leading elements of each row a causal mask keeps, row after row: all of them
/// without a mask; `min(i + 1, len)` for row `i` of each matrix of `l` rows with one.
#[derive(Clone, Copy)]
struct Kept {
    len: usize,
    /// Rows per matrix and the next row's index in its matrix (`None`: no mask).
    causal: Option<(usize, usize)>,
}

impl Kept {
    /// From the global index of the first row; `causal` is the rows per matrix (`l > 0`).
    fn new(causal: Option<usize>, first_row: usize, len: usize) -> Self {
        Kept {
            len,
            causal: causal.map(|l| (l, first_row % l)),
        }
    }
    fn next_row(&mut self) -> usize {
        match &mut self.causal {
            None => self.len,
            Some((l, i)) => {
                let k = (*i + 1).min(self.len);
                *i = if *i + 1 == *l { 0 } else { *i + 1 };
                k
            }
        }
    }
}

widest! {
    /// [`softmax_typed`] at the CPU's widest vectors (the row's maximum, shift and scale).
    fn softmax_widest<F: Float, Element>(x: &[F], len: usize, y: &mut [F], kept: Kept, exp: impl Fn(&mut [F])) = softmax_typed
}

/// [`softmax`] for one float type, row by row. The shift is the maximum even when it is not
/// finite (unlike `logsumexp`'s), so that `±inf` rows give NaN as `x - max(x)` does.
#[inline(always)]
fn softmax_typed<F: num_traits::Float + Element>(
    src: &[F],
    len: usize,
    out: &mut [F],
    mut kept: Kept,
    exp: impl Fn(&mut [F]),
) {
    for (d, x) in out.chunks_exact_mut(len).zip(src.chunks_exact(len)) {
        let k = kept.next_row();
        let m = row_max(&x[..k]);
        for (d, &v) in d[..k].iter_mut().zip(x) {
            *d = v - m;
        }
        // A masked element is `-inf`, shifted as the others (0 after `exp` unless `m` is
        // `-inf`, NaN or `inf`, where the composed ops give NaN too).
        d[k..].fill(F::neg_infinity() - m);
        exp(d);
        let c = F::one() / F::from(sum_run(d)).expect("a float");
        d.iter_mut().for_each(|v| *v = *v * c);
    }
}

/// `out[r * len + j] = exp(src[r * len + j] - shift[r]) · scale[r]` (no factor without
/// `scale`) for every row `r` of `out`; f32 and f64 (16-bit floats are widened by the caller).
///
/// # Panics
/// When `len` is 0, `out.len()` is not a multiple of it, or `src`, `shift` or `scale` are
/// shorter than `out`'s rows need (a caller bug).
pub fn exp_sub<T: Element>(src: &[T], len: usize, shift: &[T], scale: Option<&[T]>, out: &mut [T]) {
    let rows = out.len() / len.max(1);
    assert!(
        len > 0
            && out.len().is_multiple_of(len)
            && src.len() >= out.len()
            && shift.len() >= rows
            && scale.is_none_or(|s| s.len() >= rows),
        "exp_sub rows"
    );
    par_chunks(out, rows_per_task(rows, len) * len, &|start, o| {
        let (r0, src) = (start / len, &src[start..start + o.len()]);
        let rows = r0..r0 + o.len() / len;
        if let (Some(x), Some(y)) = (same::<T, f32>(src), super::convert::same_mut::<T, f32>(o)) {
            let shift = same::<T, f32>(&shift[rows.clone()]).expect("f32");
            let scale = scale.map(|s| same::<T, f32>(&s[rows]).expect("f32"));
            exp_sub_typed(x, len, shift, scale, y, vmath::exp);
        } else if let (Some(x), Some(y)) =
            (same::<T, f64>(src), super::convert::same_mut::<T, f64>(o))
        {
            let shift = same::<T, f64>(&shift[rows.clone()]).expect("f64");
            let scale = scale.map(|s| same::<T, f64>(&s[rows]).expect("f64"));
            exp_sub_typed(x, len, shift, scale, y, |v: &mut [f64]| {
                v.iter_mut().for_each(|e| *e = e.exp())
            });
        } else {
            unreachable!("exp_sub rows of {}", T::DTYPE)
        }
    });
}

/// [`exp_sub`] for one float type: the shifted values are written to `out`, exponentiated
/// there in place, then scaled.
fn exp_sub_typed<F: num_traits::Float>(
    src: &[F],
    len: usize,
    shift: &[F],
    scale: Option<&[F]>,
    out: &mut [F],
    exp: impl Fn(&mut [F]),
) {
    for ((d, x), &s) in out
        .chunks_exact_mut(len)
        .zip(src.chunks_exact(len))
        .zip(shift)
    {
        for (d, &x) in d.iter_mut().zip(x) {
            *d = x - s;
        }
    }
    exp(out);
    if let Some(scale) = scale {
        for (d, &c) in out.chunks_exact_mut(len).zip(scale) {
            d.iter_mut().for_each(|v| *v = *v * c);
        }
    }
}

/// `out[r] = y[r] · (g[r] - Σ g[r] · y[r])` for every row `r` of `len` elements: the gradient
/// of `softmax` over the last axis from its output `y` and the output's gradient `g`
/// (PyTorch's `_softmax_backward_data`), each product rounded as the composed ops round and
/// the dot product summed in f64. f32 and f64 (16-bit floats are widened by the caller).
///
/// # Panics
/// When `len` is 0, `out.len()` is not a multiple of it, or `grad` or `y` is shorter than
/// `out` (a caller bug).
pub fn softmax_backward<T: Element>(
    grad: &[T],
    y: &[T],
    len: usize,
    out: &mut [T],
    causal: Option<usize>,
) {
    let rows = out.len() / len.max(1);
    assert!(
        len > 0 && out.len().is_multiple_of(len) && grad.len() >= out.len() && y.len() >= out.len(),
        "softmax_backward rows"
    );
    par_chunks(out, rows_per_task(rows, len) * len, &|start, o| {
        let (g, y) = (&grad[start..start + o.len()], &y[start..start + o.len()]);
        let kept = Kept::new(causal, start / len, len);
        if let (Some(g), Some(y), Some(d)) = (
            same::<T, f32>(g),
            same::<T, f32>(y),
            super::convert::same_mut(o),
        ) {
            softmax_backward_widest(g, y, len, d, kept);
        } else if let (Some(g), Some(y), Some(d)) = (
            same::<T, f64>(g),
            same::<T, f64>(y),
            super::convert::same_mut(o),
        ) {
            softmax_backward_widest(g, y, len, d, kept);
        } else {
            unreachable!("softmax_backward rows of {}", T::DTYPE)
        }
    });
}

/// `out[r] = g[r] - exp(y[r]) · Σ g[r]` for every row `r` of `len` elements: the gradient of
/// `log_softmax` over the last axis from its output `y` (PyTorch's
/// `_log_softmax_backward_data`), the sum in f64 rounded to the element type, each product
/// rounded as the composed ops round. f32 and f64 (16-bit floats are widened by the caller).
///
/// # Panics
/// When `len` is 0, `out.len()` is not a multiple of it, or `grad` or `y` is shorter than
/// `out` (a caller bug).
pub fn log_softmax_backward<T: Element>(grad: &[T], y: &[T], len: usize, out: &mut [T]) {
    let rows = out.len() / len.max(1);
    assert!(
        len > 0 && out.len().is_multiple_of(len) && grad.len() >= out.len() && y.len() >= out.len(),
        "log_softmax_backward rows"
    );
    par_chunks(out, rows_per_task(rows, len) * len, &|start, o| {
        let (g, y) = (&grad[start..start + o.len()], &y[start..start + o.len()]);
        if let (Some(g), Some(y), Some(d)) = (
            same::<T, f32>(g),
            same::<T, f32>(y),
            super::convert::same_mut(o),
        ) {
            log_softmax_backward_widest(g, y, len, d, vmath::exp);
        } else if let (Some(g), Some(y), Some(d)) = (
            same::<T, f64>(g),
            same::<T, f64>(y),
            super::convert::same_mut(o),
        ) {
            log_softmax_backward_widest(g, y, len, d, |v: &mut [f64]| {
                v.iter_mut().for_each(|e| *e = e.exp())
            });
        } else {
            unreachable!("log_softmax_backward rows of {}", T::DTYPE)
        }
    });
}

widest! {
    /// [`log_softmax_backward_typed`] at the CPU's widest vectors.
    fn log_softmax_backward_widest<F: Float, Element>(g: &[F], y: &[F], len: usize, d: &mut [F], exp: impl Fn(&mut [F])) = log_softmax_backward_typed
}

#[inline(always)]
fn log_softmax_backward_typed<F: num_traits::Float + Element>(
    g: &[F],
    y: &[F],
    len: usize,
    out: &mut [F],
    exp: impl Fn(&mut [F]),
) {
    for ((d, g), y) in out
        .chunks_exact_mut(len)
        .zip(g.chunks_exact(len))
        .zip(y.chunks_exact(len))
    {
        let s = F::from_f64(sum_run(g));
        d.copy_from_slice(y);
        exp(d);
        for (d, &g) in d.iter_mut().zip(g) {
            *d = g - *d * s;
        }
    }
}

widest! {
    /// [`softmax_backward_typed`] at the CPU's widest vectors.
    fn softmax_backward_widest<F: Float, Element>(g: &[F], y: &[F], len: usize, d: &mut [F], kept: Kept) = softmax_backward_typed
}

#[inline(always)]
fn softmax_backward_typed<F: num_traits::Float + Element>(
    g: &[F],
    y: &[F],
    len: usize,
    out: &mut [F],
    mut kept: Kept,
) {
    for ((d, g), y) in out
        .chunks_exact_mut(len)
        .zip(g.chunks_exact(len))
        .zip(y.chunks_exact(len))
    {
        let k = kept.next_row();
        let dot = F::from_f64(super::norm::sum_products(&g[..k], &y[..k]));
        for ((d, &g), &y) in d[..k].iter_mut().zip(g).zip(y) {
            *d = y * (g - dot);
        }
        // A masked element does not reach the output: its gradient is 0 (`masked_fill`'s),
        // even where the row is NaN.
        d[k..].fill(F::zero());
    }
}

/// The row's maximum ignoring NaN (`-inf` for an all-NaN row), in 32 independent lanes (one
/// lane a dependent chain of maxima: the SSE2 copy ran a 512-element row at about one
/// element per cycle), then 4 for the rest (a row of 10 classes). A NaN needs no test of its
/// own: `exp(NaN - shift)` carries it through the sum and the log, as in the composed op.
#[inline(always)]
fn row_max<F: num_traits::Float>(row: &[F]) -> F {
    // `maxps`' rule, so the loops vectorise.
    let max = |a: F, b: F| if b > a { b } else { a };
    let mut m = [F::neg_infinity(); 32];
    let blocks = row.chunks_exact(32);
    let row = blocks.remainder();
    for b in blocks {
        for k in 0..32 {
            m[k] = max(m[k], b[k]);
        }
    }
    let mut w = 16;
    while w >= 4 {
        for k in 0..w {
            m[k] = max(m[k], m[k + w]);
        }
        w /= 2;
    }
    let quads = row.chunks_exact(4);
    for &v in quads.remainder() {
        m[0] = max(m[0], v);
    }
    for q in quads {
        for k in 0..4 {
            m[k] = max(m[k], q[k]);
        }
    }
    max(max(m[0], m[1]), max(m[2], m[3]))
}

fn row_f32(row: &[f32], buf: &mut [f32; BLOCK]) -> f32 {
    let m = row_max(row);
    let shift = if m.is_finite() { m } else { 0.0 };
    log_sum_f32(row, shift, buf) + shift
}

/// `log(Σ exp(row - shift))`, the exponentials through `buf`.
fn log_sum_f32(row: &[f32], shift: f32, buf: &mut [f32; BLOCK]) -> f32 {
    let mut s = 0f64;
    for c in row.chunks(BLOCK) {
        let b = &mut buf[..c.len()];
        for (d, &v) in b.iter_mut().zip(c) {
            *d = v - shift;
        }
        vmath::exp(b);
        s += sum_run(b);
    }
    // The log in f64: near 1 (a confident softmax), `s` rounded to f32 first would lose the
    // digits of `s - 1`.
    s.ln() as f32
}

/// `logsumexp` in two parts per row of `len` elements: `out[2r]` the row's maximum `m` and
/// `out[2r + 1] = log(Σ exp(x - m))`, which keeps the digits that `m + log(..)` rounds away
/// (the cross-entropy `(m - x[t]) + log(..)` and its softmax `exp(x - m) / Σ` need them). A
/// NaN or a maximum of `±inf` makes the second part NaN (PyTorch's log-softmax gives NaN
/// there); f32 and f64 (16-bit floats are widened by the caller).
///
/// # Panics
/// When `len` is 0, `out.len()` is odd, or `src` holds fewer than `out.len() / 2 * len`
/// elements (a caller bug).
pub fn logsumexp_parts<T: Element>(src: &[T], len: usize, out: &mut [T]) {
    let rows = out.len() / 2;
    assert!(
        len > 0 && out.len().is_multiple_of(2) && src.len() >= rows * len,
        "logsumexp_parts rows"
    );
    par_chunks(out, rows_per_task(rows, len) * 2, &|start, o| {
        let r0 = start / 2;
        let src = &src[r0 * len..(r0 + o.len() / 2) * len];
        if let (Some(x), Some(y)) = (same::<T, f32>(src), super::convert::same_mut::<T, f32>(o)) {
            let mut buf = [0f32; BLOCK];
            for (p, row) in y.chunks_exact_mut(2).zip(x.chunks_exact(len)) {
                let m = row_max(row);
                (p[0], p[1]) = (m, log_sum_f32(row, m, &mut buf));
            }
        } else if let (Some(x), Some(y)) =
            (same::<T, f64>(src), super::convert::same_mut::<T, f64>(o))
        {
            for (p, row) in y.chunks_exact_mut(2).zip(x.chunks_exact(len)) {
                let m = row_max(row);
                (p[0], p[1]) = (m, row.iter().map(|&v| (v - m).exp()).sum::<f64>().ln());
            }
        } else {
            unreachable!("logsumexp_parts rows of {}", T::DTYPE)
        }
    });
}

fn row_f64(row: &[f64]) -> f64 {
    let m = row_max(row);
    let shift = if m.is_finite() { m } else { 0.0 };
    row.iter().map(|&v| (v - shift).exp()).sum::<f64>().ln() + shift
}

#[cfg(test)]
mod tests {
    /// The definition in f64, with the composed op's treatment of non-finite maxima.
    fn want(row: &[f32]) -> f64 {
        let m = row.iter().fold(f64::NEG_INFINITY, |a, &v| a.max(v as f64));
        let shift = if m.is_finite() { m } else { 0.0 };
        let s: f64 = row.iter().map(|&v| (v as f64 - shift).exp()).sum();
        s.ln() + shift
    }

    /// Rows of one length, passed together (so short rows are packed several to a buffer,
    /// with special rows between ordinary ones) and one at a time.
    fn check(rows: &[Vec<f32>]) {
        let len = rows[0].len();
        let flat: Vec<f32> = rows.concat();
        let mut out = vec![0f32; rows.len()];
        super::logsumexp(&flat, len, &mut out);
        for (row, &got) in rows.iter().zip(&out) {
            let mut one = [0f32];
            super::logsumexp(row, len, &mut one);
            let w = want(row);
            for got in [got, one[0]] {
                if row.iter().any(|v| v.is_nan()) {
                    assert!(got.is_nan(), "{row:?}");
                } else if w.is_infinite() {
                    assert_eq!(got as f64, w, "{row:?}");
                } else {
                    let tol = 2e-7 * w.abs().max(1.0);
                    assert!((got as f64 - w).abs() <= tol, "{row:?}: {got} vs {w}");
                }
            }
        }
    }

    #[test]
    fn exp_sub_matches_the_definition_in_f32_and_f64() {
        let (inf, nan) = (f32::INFINITY, f32::NAN);
        for len in [1, 3, 10, 37] {
            let rows = 50;
            let mut x: Vec<f32> = (0..rows * len)
                .map(|i| (i as f32 * 0.73).sin() * 9.0)
                .collect();
            x[len] = nan;
            x[2 * len] = -inf;
            let mut shift: Vec<f32> = (0..rows).map(|r| (r as f32 * 0.31).cos() * 5.0).collect();
            shift[3] = inf;
            shift[4] = nan;
            let scale: Vec<f32> = (0..rows).map(|r| r as f32 - 20.5).collect();
            for sc in [None, Some(&scale[..])] {
                let mut out = vec![0f32; rows * len];
                super::exp_sub(&x, len, &shift, sc, &mut out);
                let x64: Vec<f64> = x.iter().map(|&v| v as f64).collect();
                let s64: Vec<f64> = shift.iter().map(|&v| v as f64).collect();
                let c64: Vec<f64> = scale.iter().map(|&v| v as f64).collect();
                let mut out64 = vec![0f64; rows * len];
                super::exp_sub(&x64, len, &s64, sc.map(|_| &c64[..]), &mut out64);
                for (i, (&got, &got64)) in out.iter().zip(&out64).enumerate() {
                    let r = i / len;
                    let c = sc.map_or(1.0, |_| scale[r] as f64);
                    let want = (x[i] as f64 - shift[r] as f64).exp() * c;
                    if want.is_nan() {
                        assert!(got.is_nan() && got64.is_nan(), "{i}");
                    } else {
                        assert_eq!(got64, want, "f64 {i}");
                        // f32 subtracts in f32, as the composed `exp(x - shift)` does.
                        let want = ((x[i] - shift[r]) as f64).exp() * c;
                        let tol = 2.5e-7 * want.abs();
                        assert!((got as f64 - want).abs() <= tol, "f32 {i}: {got} vs {want}");
                    }
                }
            }
        }
    }

    #[test]
    fn rows_match_the_definition_and_its_special_values() {
        let (inf, nan) = (f32::INFINITY, f32::NAN);
        let mut short: Vec<Vec<f32>> = vec![
            vec![1.0, 2.0, 3.0],
            vec![-inf, -inf, -inf],
            vec![inf, 1.0, -inf],
            vec![nan, 1.0, 2.0],
            vec![1000.0, 1000.0, -1000.0],
            vec![-0.5, 1e-30, 88.0],
        ];
        // Enough rows of 3 to fill several packed buffers, the special ones among them.
        short.extend((0..300).map(|i| {
            (0..3)
                .map(|j| ((i * 3 + j) as f32 * 0.37).sin() * 30.0)
                .collect()
        }));
        short.swap(2, 150);
        check(&short);
        for len in [1, 10, 64, 65, 255, 256, 700] {
            let mut rows: Vec<Vec<f32>> = (0..40)
                .map(|i| {
                    (0..len)
                        .map(|j| ((i * len + j) as f32 * 0.91).cos() * 20.0)
                        .collect()
                })
                .collect();
            rows[3][len / 2] = nan;
            rows[7].fill(-inf);
            rows[9][0] = inf;
            check(&rows);
        }
    }

    #[test]
    fn row_max_every_length_and_position() {
        let want = |r: &[f32]| {
            r.iter()
                .fold(f32::NEG_INFINITY, |a, &v| if v > a { v } else { a })
        };
        for len in 0..100usize {
            let row: Vec<f32> = (0..len).map(|j| (j as f32 * 0.73).sin()).collect();
            assert_eq!(super::row_max(&row), want(&row), "len {len}");
            for at in 0..len {
                // The maximum in every lane and the tail; NaN skipped; inf found.
                for (v, expect) in [
                    (5.0, Some(5.0)),
                    (f32::NAN, None),
                    (f32::INFINITY, Some(f32::INFINITY)),
                ] {
                    let mut r = row.clone();
                    r[at] = v;
                    let got = super::row_max(&r);
                    assert_eq!(
                        got,
                        expect.unwrap_or_else(|| want(&r)),
                        "len {len}, {v} at {at}"
                    );
                }
            }
            assert_eq!(super::row_max(&vec![f32::NAN; len]), f32::NEG_INFINITY);
            assert_eq!(
                super::row_max::<f64>(&vec![f64::NEG_INFINITY; len]),
                f64::NEG_INFINITY
            );
        }
    }
}
