//! The pooling windows (`Backend::max_pool2d_index`, `Backend::max_pool2d` and
//! `Backend::avg_pool2d`): one pass over each input plane, where the composed forms gather
//! every window and reduce the copy.

use super::kernels::strided::{PAR_THRESHOLD, par_chunks};
use crate::backend::PoolWindow;
use crate::device::{AlignedBuf, Cpu};
use crate::dtype::{Element, FloatElement};
use crate::error::Result;
use crate::shape::{Layout, Shape};
use crate::tensor::{Tensor, read};

/// The index of each window's maximum into its flattened plane (the hook's semantics: first
/// maximum, first NaN, and the first input element of an all `-inf` window).
pub(super) fn max_pool2d_index<T: FloatElement>(
    x: &Tensor<T, Cpu>,
    window: PoolWindow,
) -> Result<Tensor<i64, Cpu>> {
    each_window("max_pool2d", x, window, |xs, w, rs, cs| {
        argmax(xs, w, rs, cs) as i64
    })
}

/// The maximum of each window: the element [`max_pool2d_index`] names. `None` for an empty
/// input (windows of padding alone: the composed form gives their `-inf`).
pub(super) fn max_pool2d<T: FloatElement>(
    x: &Tensor<T, Cpu>,
    window: PoolWindow,
) -> Result<Option<Tensor<T, Cpu>>> {
    if x.numel() == 0 {
        return Ok(None);
    }
    each_window("max_pool2d", x, window, |xs, w, rs, cs| {
        xs[argmax(xs, w, rs, cs)]
    })
    .map(Some)
}

/// The mean of each window with padding counted as zeros (`count_include_pad`): the sum of
/// its input elements in f64 over `kh·kw`, rounded once, as the composed `mean` gives.
pub(super) fn avg_pool2d<T: FloatElement>(
    x: &Tensor<T, Cpu>,
    window: PoolWindow,
) -> Result<Tensor<T, Cpu>> {
    let count = window.kernel.0 as f64 * window.kernel.1 as f64;
    each_window("avg_pool2d", x, window, |xs, w, (r0, r1), (c0, c1)| {
        let sum: f64 = (r0..r1)
            .map(|r| {
                xs[r * w + c0..r * w + c1]
                    .iter()
                    .map(|v| v.to_f64())
                    .sum::<f64>()
            })
            .sum();
        T::from_f64(sum / count)
    })
}

/// Writes `f(plane, w, rows, columns)` for each window, `(N, C, oh, ow)`: the window's input
/// rows and columns (start, end exclusive, clamped to the plane; never empty) of its plane of
/// rows of `w`. Zeros for an empty input.
fn each_window<T: FloatElement, O: Element>(
    op: &'static str,
    x: &Tensor<T, Cpu>,
    PoolWindow {
        kernel: (kh, kw),
        stride: (sh, sw),
        padding: (ph, pw),
        out: (oh, ow),
    }: PoolWindow,
    f: impl Fn(&[T], usize, (usize, usize), (usize, usize)) -> O + Sync,
) -> Result<Tensor<O, Cpu>> {
    let x = x.try_contiguous()?;
    let [n, c, h, w] = x.dims()[..] else {
        unreachable!("the caller checked an (N, C, H, W) input")
    };
    let out_shape = Shape::new(vec![n, c, oh, ow]);
    let len = out_shape.checked_numel(op, O::SIZE)?;
    // With input elements, every output element is written below (the chunks cover the
    // output plane by plane); without, zeros.
    let mut out = if x.numel() > 0 {
        AlignedBuf::<O>::for_overwrite(op, len)?
    } else {
        AlignedBuf::<O>::zeros(op, len)?
    };
    // Non-empty: x's and the output's element counts fit, so the planes' sizes do too.
    if !out.is_empty() && x.numel() > 0 {
        let (plane, per_plane) = (h * w, oh * ow);
        let g = read(op, &x.storage)?;
        let src = &g[x.layout.offset..x.layout.offset + x.numel()];
        // Start and end (exclusive) of window `i`'s input rows or columns, clamped; in i128,
        // since a kernel and its padding may each be near usize::MAX (`i·s` cannot overflow:
        // it is at most the padded length less the kernel).
        let span = |i: usize, s: usize, p: usize, k: usize, len: usize| {
            let start = (i * s) as i128 - p as i128;
            let end = (start + k as i128).min(len as i128);
            (start.max(0) as usize, end as usize)
        };
        // The spans of every window row and column, found once (not per window).
        let spans = |count: usize, s: usize, p: usize, k: usize, len: usize| {
            let mut v = crate::alloc::try_vec(op, count, (0, 0))?;
            for (i, e) in v.iter_mut().enumerate() {
                *e = span(i, s, p, k, len);
            }
            Result::Ok(v)
        };
        let (rows, cols) = (spans(oh, sh, ph, kh, h)?, spans(ow, sw, pw, kw, w)?);
        let work = per_plane.saturating_mul(kh.saturating_mul(kw)).max(1);
        let planes = (PAR_THRESHOLD / work).max(1);
        par_chunks(
            &mut out,
            planes.saturating_mul(per_plane),
            &|start, chunk| {
                // Chunks hold whole planes: `start` is a multiple of `per_plane`.
                for (q, out_plane) in chunk.chunks_mut(per_plane).enumerate() {
                    let p = start / per_plane + q;
                    let xs = &src[p * plane..(p + 1) * plane];
                    for (out_row, &rs) in out_plane.chunks_mut(ow).zip(&rows) {
                        for (o, &cs) in out_row.iter_mut().zip(&cols) {
                            debug_assert!(rs.0 < rs.1 && cs.0 < cs.1, "every window holds one");
                            *o = f(xs, w, rs, cs);
                        }
                    }
                }
            },
        );
    }
    Ok(Tensor::from_buf_layout(out, Layout::contiguous(out_shape)))
}

/// The index in `xs` (a plane of rows of `w`) of the maximum of rows `r0..r1`, columns
/// `c0..c1`: the first maximum, or the first NaN.
#[inline(always)]
fn argmax<T: FloatElement>(
    xs: &[T],
    w: usize,
    (r0, r1): (usize, usize),
    (c0, c1): (usize, usize),
) -> usize {
    let mut best = (r0 * w + c0, f64::NEG_INFINITY);
    for r in r0..r1 {
        for (q, v) in xs[r * w + c0..r * w + c1].iter().enumerate() {
            let v = v.to_f64();
            if v.is_nan() {
                return r * w + c0 + q;
            }
            if v > best.1 {
                best = (r * w + c0 + q, v);
            }
        }
    }
    best.0
}
