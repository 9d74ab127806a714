//! Resampling of `(N, C, H, W)` inputs: the transposed convolution (PyTorch
//! `conv_transpose2d`, the gradient of `conv2d` with respect to its input, used to upsample
//! in decoders) and `interpolate` (nearest and bilinear, PyTorch's index rules). Both are
//! composed of differentiable ops (`pad`, `conv2d`, `index_select`), so they run and
//! differentiate on every device.
//!
//! ```
//! use typed_tensor::prelude::*;
//! use typed_tensor::nn::{self, Conv2dOptions, Interpolation};
//!
//! let x = Tensor::<f32>::from_vec(vec![1.0, 2.0, 3.0, 4.0], [1, 1, 2, 2])?;
//! let w = Tensor::<f32>::ones([1, 1, 2, 2])?;
//! let opts = Conv2dOptions { stride: (2, 2), ..Default::default() };
//! let y = nn::conv_transpose2d(&x, &w, None, opts, (0, 0))?; // each input fills a 2×2 block
//! assert_eq!(y.dims(), &[1, 1, 4, 4]);
//! assert_eq!(y.to_vec()[..4], [1.0, 1.0, 2.0, 2.0]);
//! let up = nn::interpolate(&x, (4, 4), Interpolation::Nearest)?;
//! assert_eq!(up.to_vec(), y.to_vec());
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use super::{Conv2dOptions, conv2d};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// `x` with `s - 1` zeros between neighbours along `axis` (2 or 3 of a 4-d tensor): length
/// `(len - 1)·s + 1`.
fn spread<T: FloatElement, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    axis: usize,
    s: usize,
) -> Result<Tensor<T, D>> {
    let len = x.dims()[axis];
    if s == 1 || len <= 1 {
        return Ok(x.clone()); // no gaps to fill (and a huge stride is never taken)
    }
    // (.., len, ..) → (.., len, s, ..) with zeros after each element → (.., len·s, ..).
    let t = x.unsqueeze(axis as i64 + 1)?;
    let mut pads = vec![(0, 0); t.ndim()];
    pads[axis + 1] = (0, s - 1);
    let mut dims = x.dims().to_vec();
    dims[axis] = len.checked_mul(s).ok_or_else(|| Error::ShapeOverflow {
        op,
        dims: x.dims().to_vec(),
    })?;
    let t = t.try_pad(&pads, T::ZERO)?.try_reshape(dims)?;
    t.narrow(axis as i64, 0, (len - 1) * s + 1)
}

/// `x` with `before`/`after` zeros along `axis`, or as many elements cropped where negative:
/// padded first, then narrowed, so a crop may reach into the padding on the other side.
fn pad_or_crop<T: FloatElement, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    axis: usize,
    before: i128,
    after: i128,
) -> Result<Tensor<T, D>> {
    let keep = x.dims()[axis] as i128 + before + after;
    if keep <= 0 {
        return Err(Error::InvalidArgument {
            op,
            msg: format!("axis {axis} of the output would have {keep} elements; use less padding"),
        });
    }
    let mut pads = vec![(0, 0); x.ndim()];
    pads[axis] = (before.max(0) as usize, after.max(0) as usize);
    let padded = x.try_pad(&pads, T::ZERO)?;
    padded.narrow(axis as i64, (-before).max(0) as usize, keep as usize)
}

/// The transposed 2-d convolution (PyTorch `conv_transpose2d`): `x` `(N, C, H, W)`, `weight`
/// `(C, O / groups, kh, kw)`, `bias` `(O,)`; the output is `(N, O, oh, ow)` with
/// `oh = (H - 1)·sh - 2·ph + dh·(kh - 1) + output_padding.0 + 1` (the width likewise). It is
/// computed as a `conv2d` of the input spread by the stride and padded by `dh·(kh - 1) - ph`,
/// with the flipped, transposed weight.
///
/// # Errors
/// `InvalidArgument` for inputs that are not 4-d or an empty spatial axis, channels that do
/// not match or divide by `groups`, a zero stride or dilation, an `output_padding` not smaller
/// than the stride or the dilation (PyTorch's rule), a bias that is not `(O,)`, or an output
/// with no elements along an axis.
pub fn conv_transpose2d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    weight: &Tensor<T, D>,
    bias: Option<&Tensor<T, D>>,
    opts: Conv2dOptions,
    output_padding: (usize, usize),
) -> Result<Tensor<T, D>> {
    let op = "conv_transpose2d";
    let g = opts.groups;
    let (s, d, p, q) = (opts.stride, opts.dilation, opts.padding, output_padding);
    let fits = x.ndim() == 4
        && weight.ndim() == 4
        && g > 0
        && weight.dims()[0] == x.dims()[1]
        && x.dims()[1].is_multiple_of(g);
    if !fits {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "input {} (N, C, H, W) and weight {} (C, O / groups, kh, kw) do not fit with groups = {g}",
                x.shape(),
                weight.shape()
            ),
        });
    }
    let bad_step = s.0 == 0 || s.1 == 0 || d.0 == 0 || d.1 == 0;
    if bad_step || q.0 >= s.0.max(d.0) || q.1 >= s.1.max(d.1) {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "stride {s:?} and dilation {d:?} must be positive, and output_padding {q:?} smaller than one of them on each axis"
            ),
        });
    }
    if x.dims()[2] == 0 || x.dims()[3] == 0 {
        return Err(Error::InvalidArgument {
            op,
            msg: format!("needs a non-empty spatial input, got {}", x.shape()),
        });
    }
    let [c, og, kh, kw] = weight.dims()[..] else {
        unreachable!("checked 4-d")
    };
    let o = og * g;
    if let Some(b) = bias.filter(|b| b.dims() != [o]) {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "the bias has shape {}; it needs ({o},), one per output channel",
                b.shape()
            ),
        });
    }
    let up = spread(op, &spread(op, x, 2, s.0)?, 3, s.1)?;
    let reach = |dil: usize, k: usize, pad: usize| d_reach(dil, k) - pad as i128;
    let (eh, ew) = (reach(d.0, kh, p.0), reach(d.1, kw, p.1));
    let up = pad_or_crop(op, &up, 2, eh, eh + q.0 as i128)?;
    let up = pad_or_crop(op, &up, 3, ew, ew + q.1 as i128)?;
    let w = weight
        .flip(&[2, 3])?
        .try_reshape([g, c / g, og, kh, kw])?
        .transpose(1, 2)?
        .try_reshape([o, c / g, kh, kw])?;
    let opts = Conv2dOptions {
        stride: (1, 1),
        padding: (0, 0),
        dilation: d,
        groups: g,
    };
    conv2d(&up, &w, bias, opts).map_err(|e| e.invalid_named(op))
}

/// `dilation · (k - 1)`, the span of a kernel beyond its first tap.
fn d_reach(dilation: usize, k: usize) -> i128 {
    dilation as i128 * (k as i128 - 1)
}

/// How [`interpolate`] computes each output element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// The input element at `floor(i · in / out)` (PyTorch `mode="nearest"`).
    Nearest,
    /// The bilinear blend of the four neighbours (PyTorch `mode="bilinear"`); with
    /// `align_corners` the corner pixels' centres line up, otherwise their outer edges.
    Bilinear {
        /// PyTorch's `align_corners`.
        align_corners: bool,
    },
}

/// Resizes the two spatial axes of an `(N, C, H, W)` input to `size` (PyTorch `interpolate`
/// with an output size), by PyTorch's index rules: nearest takes `min(floor(i · in/out),
/// in - 1)` (the scale rounded to f32, as PyTorch does); bilinear samples at `(i + 0.5)·in/out
/// - 0.5` clamped at 0 (or `i·(in - 1)/(out - 1)` with `align_corners`). Differentiable.
///
/// # Errors
/// `InvalidArgument` for an input that is not 4-d, or an empty spatial axis in the input or
/// the output size (as PyTorch); `OutOfMemory` when the index tables of a huge size cannot be
/// allocated.
pub fn interpolate<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    size: (usize, usize),
    mode: Interpolation,
) -> Result<Tensor<T, D>> {
    let op = "interpolate";
    let [_, _, h, w] = x.dims()[..] else {
        return Err(Error::InvalidArgument {
            op,
            msg: format!("expects an (N, C, H, W) input, got {}", x.shape()),
        });
    };
    if h == 0 || w == 0 || size.0 == 0 || size.1 == 0 {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "input {} and output size {size:?} must have non-empty spatial axes (PyTorch's rule)",
                x.shape()
            ),
        });
    }
    if x.numel() == 0 {
        // No samples or channels: an empty result of the output's shape, still a view of `x`.
        return x.try_reshape([x.dims()[0], x.dims()[1], size.0, size.1]);
    }
    let y = resize_axis(op, x, 2, h, size.0, mode)?;
    resize_axis(op, &y, 3, w, size.1, mode)
}

/// `x` resized along `axis` from `len` to `out`.
fn resize_axis<T: FloatElement, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    axis: usize,
    len: usize,
    out: usize,
    mode: Interpolation,
) -> Result<Tensor<T, D>> {
    if out == len {
        return Ok(x.clone());
    }
    let dev = x.device_handle();
    let index = |v: Vec<i64>| Tensor::<i64, D>::from_vec_on(v, [out], dev);
    let a = axis as i64;
    match mode {
        Interpolation::Nearest => {
            let scale = len as f32 / out as f32;
            let src = (0..out).map(|i| ((i as f32 * scale).floor() as usize).min(len - 1) as i64);
            x.try_index_select(a, &index(crate::alloc::collect(op, out, src)?)?)
        }
        Interpolation::Bilinear { align_corners } => {
            let mut lo = crate::alloc::with_capacity(op, out)?;
            let mut hi = crate::alloc::with_capacity(op, out)?;
            let mut frac = crate::alloc::with_capacity(op, out)?;
            for i in 0..out {
                let src = if align_corners {
                    if out > 1 {
                        i as f64 * (len - 1) as f64 / (out - 1) as f64
                    } else {
                        0.0
                    }
                } else {
                    ((i as f64 + 0.5) * len as f64 / out as f64 - 0.5).max(0.0)
                };
                let i0 = (src as usize).min(len - 1);
                lo.push(i0 as i64);
                hi.push((i0 + 1).min(len - 1) as i64);
                frac.push(T::from_f64(src - i0 as f64));
            }
            let mut along = vec![1; x.ndim()];
            along[axis] = out;
            let w1 = Tensor::<T, D>::from_vec_on(frac, along, dev)?;
            let w0 = w1.try_rsub_scalar(T::ONE)?;
            let a0 = x.try_index_select(a, &index(lo)?)?.try_mul(&w0)?;
            a0.try_add(&x.try_index_select(a, &index(hi)?)?.try_mul(&w1)?)
        }
    }
}
