//! The pooling windows (`Backend::max_pool2d_index`, `Backend::max_pool2d` and
//! `Backend::avg_pool2d`): one pass over each input plane, where the composed forms gather
//! every window and reduce the copy. And the convolution's im2col (`Backend::unfold2d`) and
//! col2im (`Backend::fold2d`): every tap copied from, or added into, each plane while it is in
//! the cache, where the composed forms walked a 6-d view, or made one strided pass over the
//! whole gradient per tap.

use super::kernels::strided::{PAR_THRESHOLD, par_chunks};
use crate::backend::PoolWindow;
use crate::device::{AlignedBuf, Cpu};
use crate::dtype::{Element, FloatElement, NumElement};
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

/// im2col: the windows of a `(N, C, H, W)` input with the geometry `(kh, kw, sh, sw, dh, dw)`
/// as a contiguous `(N, C, kh, kw, oh, ow)` tensor, each tap's rows copied from the plane
/// while it is in the cache.
pub(super) fn unfold2d<T: FloatElement>(
    x: &Tensor<T, Cpu>,
    (kh, kw, sh, sw, dh, dw): (usize, usize, usize, usize, usize, usize),
    (oh, ow): (usize, usize),
) -> Result<Tensor<T, Cpu>> {
    const OP: &str = "conv2d";
    let x = x.try_contiguous()?;
    let [n, c, h, w] = x.dims()[..] else {
        unreachable!("the caller passes an (N, C, H, W) input")
    };
    let shape = Shape::new(vec![n, c, kh, kw, oh, ow]);
    let len = shape.checked_numel(OP, T::SIZE)?;
    if len == 0 {
        let out = AlignedBuf::<T>::zeros(OP, 0)?;
        return Ok(Tensor::from_buf_layout(out, Layout::contiguous(shape)));
    }
    // Every element is written below: the chunks hold whole planes of windows. A window
    // exists, so the input planes are not empty, and the taps stay inside them (as in
    // `fold2d`).
    let mut out = AlignedBuf::<T>::for_overwrite(OP, len)?;
    let (plane, taps, win) = (h * w, kh * kw * oh * ow, oh * ow);
    let g = read(OP, &x.storage)?;
    let src = &g[x.layout.offset..x.layout.offset + x.numel()];
    let planes = (PAR_THRESHOLD / taps).max(1);
    par_chunks(&mut out, planes * taps, &|start, chunk| {
        for (q, o) in chunk.chunks_mut(taps).enumerate() {
            let p = start / taps + q;
            let xs = &src[p * plane..(p + 1) * plane];
            for (t, tap) in o.chunks_exact_mut(win).enumerate() {
                let (i, j) = (t / kw, t % kw);
                for (r, row) in tap.chunks_exact_mut(ow).enumerate() {
                    let at = (i * dh + r * sh) * w + j * dw;
                    if sw == 1 {
                        row.copy_from_slice(&xs[at..at + ow]);
                    } else {
                        for (k, v) in row.iter_mut().enumerate() {
                            *v = xs[at + k * sw];
                        }
                    }
                }
            }
        }
    });
    Ok(Tensor::from_buf_layout(out, Layout::contiguous(shape)))
}

/// col2im: `g` `(N, C, kh, kw, oh, ow)` (the windows of an `(N, C, H, W)` input with the
/// geometry `(kh, kw, sh, sw, dh, dw)`) summed back onto the positions each tap read, taps in
/// row-major order onto zeros, so each element's sum is the composed form's, bit for bit.
pub(super) fn fold2d<T: FloatElement>(
    g: &Tensor<T, Cpu>,
    [n, c, h, w]: [usize; 4],
    (kh, kw, sh, sw, dh, dw): (usize, usize, usize, usize, usize, usize),
) -> Result<Tensor<T, Cpu>> {
    const OP: &str = "conv2d backward";
    let g = g.try_contiguous()?;
    let [gn, gc, gkh, gkw, oh, ow] = g.dims()[..] else {
        unreachable!("the caller passes unfold's 6-d gradient")
    };
    debug_assert_eq!((gn, gc, gkh, gkw), (n, c, kh, kw));
    let shape = Shape::new(vec![n, c, h, w]);
    let len = shape.checked_numel(OP, T::SIZE)?;
    if g.numel() == 0 || len == 0 {
        // No window has a tap (kh·kw may be 2^40): zeros.
        return Ok(Tensor::from_buf_layout(
            AlignedBuf::<T>::zeros(OP, len)?,
            Layout::contiguous(shape),
        ));
    }
    // Each chunk below holds whole planes, each zeroed before its taps are added.
    let mut out = AlignedBuf::<T>::for_overwrite(OP, len)?;
    // Both tensors are non-empty, so the per-plane sizes fit; a tap's rows and columns stay
    // inside the plane (`(oh - 1)·sh + (kh - 1)·dh < H`), and a step is taken only on an axis
    // with more than one window or tap.
    let (plane, taps, win) = (h * w, kh * kw * oh * ow, oh * ow);
    let gr = read(OP, &g.storage)?;
    let src = &gr[g.layout.offset..g.layout.offset + g.numel()];
    let planes = (PAR_THRESHOLD / taps).max(1);
    par_chunks(&mut out, planes * plane, &|start, chunk| {
        for (q, o) in chunk.chunks_mut(plane).enumerate() {
            let p = start / plane + q;
            o.fill(T::ZERO);
            let gs = &src[p * taps..(p + 1) * taps];
            for (t, tap) in gs.chunks_exact(win).enumerate() {
                let (i, j) = (t / kw, t % kw);
                for (r, grow) in tap.chunks_exact(ow).enumerate() {
                    let at = (i * dh + r * sh) * w + j * dw;
                    if sw == 1 {
                        for (d, &v) in o[at..at + ow].iter_mut().zip(grow) {
                            *d = NumElement::add(*d, v);
                        }
                    } else {
                        for (k, &v) in grow.iter().enumerate() {
                            let d = &mut o[at + k * sw];
                            *d = NumElement::add(*d, v);
                        }
                    }
                }
            }
        }
    });
    Ok(Tensor::from_buf_layout(out, Layout::contiguous(shape)))
}
