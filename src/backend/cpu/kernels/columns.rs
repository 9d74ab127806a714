//! The softmax family over a middle axis: a contiguous tensor seen as `(outer, len, inner)`,
//! reduced over `len` with `inner > 1` (the classes of `(N, C, H, W)` segmentation scores, a
//! softmax over axis 0). The row kernels of `rows.rs` need the reduced axis last; here a
//! block of `w` adjacent columns of one outer index is handled whole: its `len` rows of `w`
//! elements are read once for the columns' maxima, then again, from the cache, for the
//! exponentials and their sums, each step vectorised across the columns (PyTorch's
//! `_vec_softmax` over an inner dimension does the same). Sums are f64 in row order, so any
//! thread count gives the same bits; each result rounds as its row kernel's does.
//!
//! f32 and f64 only (16-bit floats are widened by the caller): each entry dispatches on the
//! element type, so the bodies are compiled for those two alone.

use super::convert::{same, same_mut};
use super::strided::{PAR_THRESHOLD, par_chunks};
use super::vmath;
use crate::dtype::Element;
use num_traits::Float;
use rayon::prelude::*;

/// A contiguous tensor as `outer` slabs of `len` rows of `inner` elements, reduced over the
/// rows.
#[derive(Clone, Copy, Debug)]
pub struct Cols {
    pub outer: usize,
    pub len: usize,
    pub inner: usize,
}

/// What a block computes; each names the row kernel whose semantics it has.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ColOp {
    /// `exp(x - m) · (1 / Σ exp(x - m))`, `m` the column's maximum (`rows::softmax`).
    Softmax,
    /// `(x - m) - log Σ exp(x - m)` (`rows::log_softmax`).
    LogSoftmax,
    /// Two output rows per slab: `m`, then `log Σ exp(x - m)` (`rows::logsumexp_parts`).
    LogSumExpParts,
    /// One output row per slab: `log Σ exp(x - s) + s`, `s` the maximum where it is finite
    /// and 0 elsewhere (`rows::logsumexp`, the composed op's semantics).
    LogSumExp,
    /// `y · (g - Σ g·y)` from `a = g`, `b = y` (`rows::softmax_backward`).
    SoftmaxBackward,
    /// `g - exp(y) · Σ g` from `a = g`, `b = y`: `log_softmax`'s gradient from its output, as
    /// the composed sum, `exp_sub` and sub round it.
    LogSoftmaxBackward,
}

/// The widest block: its per-column maxima and f64 sums live on the stack.
const MAX_W: usize = 256;

/// `op` over every column of `a` (and `b`, the backward passes' `y`) into `out`: `len` rows
/// per slab, 2 for [`ColOp::LogSumExpParts`], 1 for [`ColOp::LogSumExp`].
///
/// # Panics
/// When a dimension is 0, the lengths do not match `c` (or `b` is missing for a backward
/// op), or `T` is not f32 or f64 (a caller bug).
pub fn columns<T: Element>(op: ColOp, a: &[T], b: Option<&[T]>, c: Cols, out: &mut [T]) {
    let n = c.outer * c.len * c.inner;
    let rows = match op {
        ColOp::LogSumExpParts => 2,
        ColOp::LogSumExp => 1,
        _ => c.len,
    };
    let two = matches!(op, ColOp::SoftmaxBackward | ColOp::LogSoftmaxBackward);
    assert!(
        n > 0
            && a.len() == n
            && b.map(<[T]>::len) == two.then_some(n)
            && out.len() == c.outer * rows * c.inner,
        "{op:?} columns"
    );
    let b = b.unwrap_or(a);
    if let (Some(a), Some(b), Some(o)) = (same::<T, f32>(a), same::<T, f32>(b), same_mut(out)) {
        for_blocks(o, rows, c, &|at, blk| {
            block_widest(op, [a, b], c, at, blk, vmath::exp, vmath::log)
        });
    } else if let (Some(a), Some(b), Some(o)) =
        (same::<T, f64>(a), same::<T, f64>(b), same_mut(out))
    {
        let exp = |v: &mut [f64]| v.iter_mut().for_each(|e| *e = e.exp());
        let log = |v: &mut [f64]| v.iter_mut().for_each(|e| *e = e.ln());
        for_blocks(o, rows, c, &|at, blk| {
            block_widest(op, [a, b], c, at, blk, exp, log)
        });
    } else {
        unreachable!("{op:?} columns of {}", T::DTYPE)
    }
}

/// `out[o, k, j] = exp(x[o, k, j] - shift[o, j]) · scale[o, j]` (no factor without `scale`):
/// `rows::exp_sub` with one shift and scale per column.
///
/// # Panics
/// When the lengths do not match `c`, or `T` is not f32 or f64 (a caller bug).
pub fn exp_sub<T: Element>(x: &[T], c: Cols, shift: &[T], scale: Option<&[T]>, out: &mut [T]) {
    let per = c.outer * c.inner;
    assert!(
        c.inner > 0
            && x.len() == out.len()
            && out.len() == c.outer * c.len * c.inner
            && shift.len() == per
            && scale.is_none_or(|s| s.len() == per),
        "exp_sub columns"
    );
    let rows_per_task = (PAR_THRESHOLD / c.inner).max(1);
    if let (Some(x), Some(s), Some(o)) = (same::<T, f32>(x), same::<T, f32>(shift), same_mut(out)) {
        let scale = scale.map(|s| same::<T, f32>(s).expect("f32"));
        par_chunks(o, rows_per_task * c.inner, &|start, o| {
            exp_sub_rows(
                &x[start..][..o.len()],
                start / c.inner,
                c,
                s,
                scale,
                o,
                vmath::exp,
            )
        });
    } else if let (Some(x), Some(s), Some(o)) =
        (same::<T, f64>(x), same::<T, f64>(shift), same_mut(out))
    {
        let scale = scale.map(|s| same::<T, f64>(s).expect("f64"));
        let exp = |v: &mut [f64]| v.iter_mut().for_each(|e| *e = e.exp());
        par_chunks(o, rows_per_task * c.inner, &|start, o| {
            exp_sub_rows(&x[start..][..o.len()], start / c.inner, c, s, scale, o, exp)
        });
    } else {
        unreachable!("exp_sub columns of {}", T::DTYPE)
    }
}

/// [`exp_sub`] over whole rows of `inner` elements, the first of them row `r0` of the
/// tensor.
fn exp_sub_rows<F: Float>(
    x: &[F],
    r0: usize,
    c: Cols,
    shift: &[F],
    scale: Option<&[F]>,
    out: &mut [F],
    exp: impl Fn(&mut [F]),
) {
    let rows = out.chunks_exact_mut(c.inner).zip(x.chunks_exact(c.inner));
    for (r, (d, x)) in (r0..).zip(rows) {
        let at = (r / c.len) * c.inner..(r / c.len + 1) * c.inner;
        for ((d, &x), &s) in d.iter_mut().zip(x).zip(&shift[at.clone()]) {
            *d = x - s;
        }
        exp(d);
        if let Some(scale) = scale {
            d.iter_mut().zip(&scale[at]).for_each(|(d, &k)| *d = *d * k);
        }
    }
}

/// One block's output rows: either a slab that the block shares with the others of its outer
/// index (the block's columns `j0..j0 + w` of each row), or the block's own pieces of them.
enum Block<'a, F> {
    Slab {
        data: &'a mut [F],
        inner: usize,
        j0: usize,
        w: usize,
    },
    Pieces(Vec<&'a mut [F]>),
}

impl<F> Block<'_, F> {
    #[inline(always)]
    fn row(&mut self, k: usize) -> &mut [F] {
        match self {
            Block::Slab { data, inner, j0, w } => &mut data[k * *inner + *j0..][..*w],
            Block::Pieces(p) => &mut *p[k],
        }
    }
}

/// Where a block lies: its outer index, first column and width.
#[derive(Clone, Copy)]
struct At {
    o: usize,
    j0: usize,
    w: usize,
}

/// Runs `f` on every block of `out` (`outer` slabs of `rows` rows of `inner`), across threads
/// where there is enough work. Many slabs: tasks of whole slabs, each walked block by block.
/// Few slabs (a softmax over axis 0): the blocks themselves are the tasks, each given its own
/// pieces of the rows, so the columns of one slab share the threads without `unsafe`.
fn for_blocks<F: Send>(out: &mut [F], rows: usize, c: Cols, f: &(dyn Fn(At, Block<'_, F>) + Sync)) {
    let slab = rows * c.inner;
    let work = c.outer * c.len * c.inner;
    let tasks = rayon::current_num_threads() * 4;
    // Blocks of about 16 Ki elements stay in L1/L2 between the passes over them.
    let fit = ((1 << 17) / c.len).clamp(16, MAX_W) / 16 * 16;
    if work < PAR_THRESHOLD || c.outer >= tasks {
        let w = fit.min(c.inner);
        let per_task = match work < PAR_THRESHOLD {
            true => c.outer,
            false => (PAR_THRESHOLD / (c.len * c.inner)).clamp(1, c.outer.div_ceil(tasks)),
        };
        par_chunks(out, per_task * slab, &|start, chunk| {
            for (i, data) in chunk.chunks_mut(slab).enumerate() {
                for j0 in (0..c.inner).step_by(w) {
                    let at = At {
                        o: start / slab + i,
                        j0,
                        w: w.min(c.inner - j0),
                    };
                    let (inner, w) = (c.inner, at.w);
                    let data = &mut *data;
                    f(at, Block::Slab { data, inner, j0, w });
                }
            }
        });
        return;
    }
    // Enough blocks per slab that every thread gets several.
    let w = fit.min(
        c.inner
            .div_ceil(tasks.div_ceil(c.outer))
            .next_multiple_of(16),
    );
    let per_slab = c.inner.div_ceil(w);
    let mut blocks: Vec<Vec<&mut [F]>> = (0..c.outer * per_slab)
        .map(|_| Vec::with_capacity(rows))
        .collect();
    for (r, row) in out.chunks_mut(c.inner).enumerate() {
        for (b, piece) in row.chunks_mut(w).enumerate() {
            blocks[r / rows * per_slab + b].push(piece);
        }
    }
    blocks.into_par_iter().enumerate().for_each(|(i, p)| {
        let (o, j0) = (i / per_slab, i % per_slab * w);
        let w = p[0].len();
        f(At { o, j0, w }, Block::Pieces(p));
    });
}

/// The two element types the kernels are compiled for.
trait Wide: Element + Float {}
impl Wide for f32 {}
impl Wide for f64 {}

widest! {
    /// [`block`] at the CPU's widest vectors.
    fn block_widest<F: Wide>(op: ColOp, ab: [&[F]; 2], c: Cols, at: At, out: Block<'_, F>, exp: impl Fn(&mut [F]), log: impl Fn(&mut [F])) = block
}

/// `op` over one block of `ab` (`a`, and `b` for the gradients): row `k` of the block in `a`
/// is `a[(o · len + k) · inner + j0..][..w]`.
#[inline(always)]
fn block<F: Wide>(
    op: ColOp,
    [a, b]: [&[F]; 2],
    c: Cols,
    at: At,
    mut out: Block<'_, F>,
    exp: impl Fn(&mut [F]),
    log: impl Fn(&mut [F]),
) {
    let w = at.w;
    let base = at.o * c.len * c.inner + at.j0;
    // Row `k` of the block, as indices into `a` and `b`.
    let row = |k: usize| base + k * c.inner..base + k * c.inner + w;
    let mut sums = [0f64; MAX_W];
    let sums = &mut sums[..w];
    let mut buf = [F::zero(); MAX_W];
    let buf = &mut buf[..w];
    match op {
        ColOp::SoftmaxBackward | ColOp::LogSoftmaxBackward => {
            let dot = op == ColOp::SoftmaxBackward;
            for k in 0..c.len {
                let (g, y) = (&a[row(k)], &b[row(k)]);
                for ((s, &g), &y) in sums.iter_mut().zip(g).zip(y) {
                    *s += if dot { g * y } else { g }.to_f64();
                }
            }
            for (v, &s) in buf.iter_mut().zip(&*sums) {
                *v = F::from_f64(s);
            }
            for k in 0..c.len {
                let (g, y, d) = (&a[row(k)], &b[row(k)], out.row(k));
                if dot {
                    for (((d, &g), &y), &s) in d.iter_mut().zip(g).zip(y).zip(&*buf) {
                        *d = y * (g - s);
                    }
                } else {
                    d.copy_from_slice(y);
                    exp(d);
                    for ((d, &g), &s) in d.iter_mut().zip(g).zip(&*buf) {
                        *d = g - *d * s;
                    }
                }
            }
        }
        ColOp::Softmax | ColOp::LogSoftmax | ColOp::LogSumExpParts | ColOp::LogSumExp => {
            // The maxima, ignoring NaN (`maxps`' rule, so the loop vectorises): a NaN reaches
            // the result through `exp(NaN - m)`, as in the row kernels.
            let mut m = [F::neg_infinity(); MAX_W];
            let m = &mut m[..w];
            for k in 0..c.len {
                for (m, &v) in m.iter_mut().zip(&a[row(k)]) {
                    *m = if v > *m { v } else { *m };
                }
            }
            if op == ColOp::LogSumExp {
                // The shift: the maximum where it is finite, else 0 (so `±inf` lines give
                // `±inf`, as the composed op).
                m.iter_mut()
                    .for_each(|m| *m = if m.is_finite() { *m } else { F::zero() });
            }
            // Softmax exponentiates the shifted row where it is written; the others need only
            // the sums (log-softmax shifts again from the cache: cheaper than a copy).
            for k in 0..c.len {
                let x = &a[row(k)];
                match op {
                    ColOp::Softmax => {
                        let d = out.row(k);
                        shifted(d, x, m);
                        exp(d);
                        add_to(sums, d);
                    }
                    _ => {
                        shifted(buf, x, m);
                        exp(buf);
                        add_to(sums, buf);
                    }
                }
            }
            match op {
                ColOp::Softmax => {
                    for (v, &s) in buf.iter_mut().zip(&*sums) {
                        *v = F::one() / F::from_f64(s);
                    }
                    for k in 0..c.len {
                        let d = out.row(k);
                        d.iter_mut().zip(&*buf).for_each(|(d, &r)| *d = *d * r);
                    }
                }
                ColOp::LogSoftmax => {
                    logs(buf, sums, &log);
                    for k in 0..c.len {
                        let (d, x) = (out.row(k), &a[row(k)]);
                        for (((d, &x), &m), &l) in d.iter_mut().zip(x).zip(&*m).zip(&*buf) {
                            *d = (x - m) - l;
                        }
                    }
                }
                ColOp::LogSumExp => {
                    let d = out.row(0);
                    logs(d, sums, &log);
                    d.iter_mut().zip(&*m).for_each(|(d, &m)| *d = *d + m);
                }
                _ => {
                    out.row(0).copy_from_slice(m);
                    logs(out.row(1), sums, &log);
                }
            }
        }
    }
}

/// `d = x - m`, element by element.
#[inline(always)]
fn shifted<F: Float>(d: &mut [F], x: &[F], m: &[F]) {
    for ((d, &x), &m) in d.iter_mut().zip(x).zip(m) {
        *d = x - m;
    }
}

/// `sums += e`, widened to f64.
#[inline(always)]
fn add_to<F: Element>(sums: &mut [f64], e: &[F]) {
    for (s, &e) in sums.iter_mut().zip(e) {
        *s += e.to_f64();
    }
}

/// `d = log(sums)`, the sums rounded to `F` first: one vectorised `log` per block (an f64 `ln`
/// per column was a tenth of a log-softmax over 21 classes).
#[inline(always)]
fn logs<F: Element>(d: &mut [F], sums: &[f64], log: impl Fn(&mut [F])) {
    for (d, &s) in d.iter_mut().zip(sums) {
        *d = F::from_f64(s);
    }
    log(d);
}

#[cfg(test)]
mod tests {
    use super::{ColOp, Cols, columns, exp_sub};

    /// Every op against plain f64 loops over the columns, on layouts for both task shapes
    /// (few slabs split into column blocks, many slabs), a single thread's, and widths that
    /// leave partial blocks.
    #[test]
    fn every_op_matches_plain_loops_on_both_task_shapes() {
        let shapes = [(1, 50, 3001), (40, 50, 70), (3, 7, 300), (2, 1100, 17)];
        for (outer, len, inner) in shapes {
            let c = Cols { outer, len, inner };
            let n = outer * len * inner;
            let x: Vec<f64> = (0..n)
                .map(|i| ((i * 37 % 101) as f64 * 0.7).sin() * 9.0)
                .collect();
            let g: Vec<f64> = (0..n).map(|i| ((i * 13 % 67) as f64 * 0.3).cos()).collect();
            let at = |o: usize, k: usize, j: usize| (o * len + k) * inner + j;
            // The definitions, column by column.
            let (mut sm, mut lsm, mut parts) = (vec![0.0; n], vec![0.0; n], vec![0.0; 2 * n / len]);
            let (mut dsm, mut dlsm) = (vec![0.0; n], vec![0.0; n]);
            for o in 0..outer {
                for j in 0..inner {
                    let col = |v: &[f64]| (0..len).map(|k| v[at(o, k, j)]).collect::<Vec<_>>();
                    let xs = col(&x);
                    let m = xs.iter().fold(f64::NEG_INFINITY, |a, &v| a.max(v));
                    let l = xs.iter().map(|v| (v - m).exp()).sum::<f64>().ln();
                    parts[(2 * o) * inner + j] = m;
                    parts[(2 * o + 1) * inner + j] = l;
                    let gs = col(&g);
                    let dot: f64 = (0..len).map(|k| gs[k] * (xs[k] - m - l).exp()).sum();
                    let total: f64 = gs.iter().sum();
                    for k in 0..len {
                        let i = at(o, k, j);
                        (sm[i], lsm[i]) = ((xs[k] - m - l).exp(), xs[k] - m - l);
                        dsm[i] = sm[i] * (g[i] - dot);
                        dlsm[i] = g[i] - lsm[i].exp() * total;
                    }
                }
            }
            let run = |op, b: Option<&[f64]>, rows: usize| {
                let mut out = vec![f64::NAN; outer * rows * inner];
                let a = if b.is_some() { &g[..] } else { &x[..] };
                columns(op, a, b, c, &mut out);
                out
            };
            let close = |what: &str, got: &[f64], want: &[f64]| {
                for (i, (a, b)) in got.iter().zip(want).enumerate() {
                    assert!(
                        (a - b).abs() <= 1e-12 * (1.0 + b.abs()),
                        "{what} {c:?} [{i}]: {a} vs {b}"
                    );
                }
            };
            close("softmax", &run(ColOp::Softmax, None, len), &sm);
            close("log_softmax", &run(ColOp::LogSoftmax, None, len), &lsm);
            close("parts", &run(ColOp::LogSumExpParts, None, 2), &parts);
            close(
                "softmax grad",
                &run(ColOp::SoftmaxBackward, Some(&sm), len),
                &dsm,
            );
            close(
                "log_softmax grad",
                &run(ColOp::LogSoftmaxBackward, Some(&lsm), len),
                &dlsm,
            );
            // exp_sub from the parts: the softmax again.
            let (m, l): (Vec<f64>, Vec<f64>) = (0..outer * inner)
                .map(|i| {
                    (
                        parts[(2 * (i / inner)) * inner + i % inner],
                        parts[(2 * (i / inner) + 1) * inner + i % inner],
                    )
                })
                .unzip();
            let scale: Vec<f64> = l.iter().map(|l| (-l).exp()).collect();
            let mut out = vec![f64::NAN; n];
            exp_sub(&x, c, &m, Some(&scale), &mut out);
            close("exp_sub", &out, &sm);
        }
    }
}
