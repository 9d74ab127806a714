//! Resampling of `(N, C, H, W)` inputs: the transposed convolution (PyTorch
//! `conv_transpose2d`, and `conv_transpose1d`/`conv_transpose3d` likewise; the gradient of `conv2d` with respect to its input, used to upsample
//! in decoders) and the public `unfold`/`fold` (im2col and col2im); `interpolate` is in
//! `interpolate.rs`. Both are
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

/// `x` with `s - 1` zeros between neighbours along `axis` (a spatial axis): length
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

/// The transposed 1-d convolution (PyTorch `conv_transpose1d`): `x` `(N, C, L)`, `weight`
/// `(C, O / groups, k)`, `bias` `(O,)`; the options' second components apply (`stride.1`,
/// `padding.1`, `dilation.1`), and the output is `(N, O, (L - 1)·s - 2·p + d·(k - 1) +
/// output_padding + 1)`. It is [`conv_transpose2d`] over a height of 1.
///
/// # Errors
/// As [`conv_transpose2d`], for inputs that are not 3-d too.
pub fn conv_transpose1d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    weight: &Tensor<T, D>,
    bias: Option<&Tensor<T, D>>,
    opts: Conv2dOptions,
    output_padding: usize,
) -> Result<Tensor<T, D>> {
    let (x, w, opts) =
        super::conv::as_height_1("conv_transpose1d", x, weight, "(C, O / groups, k)", opts)?;
    conv_transpose2d(&x, &w, bias, opts, (0, output_padding))
        .map_err(|e| e.invalid_named("conv_transpose1d"))?
        .squeeze_dims(&[2])
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
    let (s, d, p, q) = (opts.stride, opts.dilation, opts.padding, output_padding);
    let (up, w) = transposed_operands(
        op,
        x,
        weight,
        opts.groups,
        [[s.0, s.1], [d.0, d.1], [p.0, p.1], [q.0, q.1]],
    )?;
    let opts = Conv2dOptions {
        stride: (1, 1),
        padding: (0, 0),
        dilation: d,
        groups: opts.groups,
    };
    // The bias is checked by `conv2d` (its error renamed to this op).
    conv2d(&up, &w, bias, opts).map_err(|e| e.invalid_named(op))
}

/// The transposed 3-d convolution (PyTorch `conv_transpose3d`): `x` `(N, C, D, H, W)`,
/// `weight` `(C, O / groups, kd, kh, kw)`, `bias` `(O,)`; the output is `(N, O, od, oh, ow)`
/// with each axis as in [`conv_transpose2d`] (`od = (D - 1)·sd - 2·pd + dd·(kd - 1) +
/// output_padding.0 + 1`). It is a [`super::conv3d`] of the input spread by the stride and
/// padded by `d·(k - 1) - p` on each axis, with the flipped, transposed weight.
///
/// # Errors
/// As [`conv_transpose2d`], for 5-d inputs and weights.
pub fn conv_transpose3d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    weight: &Tensor<T, D>,
    bias: Option<&Tensor<T, D>>,
    opts: super::Conv3dOptions,
    output_padding: (usize, usize, usize),
) -> Result<Tensor<T, D>> {
    let op = "conv_transpose3d";
    let triple = |t: (usize, usize, usize)| [t.0, t.1, t.2];
    let steps = [opts.stride, opts.dilation, opts.padding, output_padding].map(triple);
    let (up, w) = transposed_operands(op, x, weight, opts.groups, steps)?;
    let opts = super::Conv3dOptions {
        stride: (1, 1, 1),
        padding: (0, 0, 0),
        dilation: opts.dilation,
        groups: opts.groups,
    };
    super::conv3d(&up, &w, bias, opts).map_err(|e| e.invalid_named(op))
}

/// What a stride-1 convolution turns into the transposed one, for `K` spatial axes: the
/// input spread by the stride and padded by `d·(k - 1) - p` (plus the output padding after)
/// on each, and the weight flipped, with its channel axes swapped within each group. `steps`
/// holds the stride, dilation, padding and output padding.
fn transposed_operands<T: FloatElement, D: Backend, const K: usize>(
    op: &'static str,
    x: &Tensor<T, D>,
    weight: &Tensor<T, D>,
    g: usize,
    [s, d, p, q]: [[usize; K]; 4],
) -> Result<(Tensor<T, D>, Tensor<T, D>)> {
    let fits = x.ndim() == K + 2
        && weight.ndim() == K + 2
        && g > 0
        && weight.dims()[0] == x.dims()[1]
        && x.dims()[1].is_multiple_of(g);
    if !fits {
        let (input, kernel) = if K == 2 {
            ("(N, C, H, W)", "(C, O / groups, kh, kw)")
        } else {
            ("(N, C, D, H, W)", "(C, O / groups, kd, kh, kw)")
        };
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "input {} {input} and weight {} {kernel} do not fit with groups = {g}",
                x.shape(),
                weight.shape()
            ),
        });
    }
    if (0..K).any(|i| s[i] == 0 || d[i] == 0 || q[i] >= s[i].max(d[i])) {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "stride {s:?} and dilation {d:?} must be positive, and output_padding {q:?} smaller than one of them on each axis"
            ),
        });
    }
    if x.dims()[2..].contains(&0) {
        return Err(Error::InvalidArgument {
            op,
            msg: format!("needs a non-empty spatial input, got {}", x.shape()),
        });
    }
    let (c, og, k) = (weight.dims()[0], weight.dims()[1], &weight.dims()[2..]);
    let mut up = x.clone();
    for i in 0..K {
        up = spread(op, &up, 2 + i, s[i])?;
        let e = d_reach(d[i], k[i]) - p[i] as i128;
        up = pad_or_crop(op, &up, 2 + i, e, e + q[i] as i128)?;
    }
    let spatial: Vec<i64> = (2..K as i64 + 2).collect();
    let grouped: Vec<usize> = [g, c / g, og]
        .into_iter()
        .chain(k.iter().copied())
        .collect();
    let merged: Vec<usize> = [og * g, c / g]
        .into_iter()
        .chain(k.iter().copied())
        .collect();
    let w = weight
        .flip(&spatial)?
        .try_reshape(grouped)?
        .transpose(1, 2)?
        .try_reshape(merged)?;
    Ok((up, w))
}

/// The sliding windows of an `(N, C, H, W)` input as columns (PyTorch `unfold`, im2col): shape
/// `(N, C·kh·kw, L)` with `L` the number of window positions, channel-major then kernel row
/// and column, as PyTorch orders them. Padding adds zeros. Differentiable (col2im).
///
/// # Errors
/// As [`super::conv2d`]'s window checks: a window that does not fit, or a zero kernel,
/// stride or dilation; `InvalidArgument` for a non-4-d input.
pub fn unfold<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    kernel: (usize, usize),
    opts: Conv2dOptions,
) -> Result<Tensor<T, D>> {
    let op = "unfold";
    if x.ndim() != 4 {
        return Err(Error::InvalidArgument {
            op,
            msg: format!("expects an (N, C, H, W) input, got {}", x.shape()),
        });
    }
    let [n, c, _, _] = x.dims()[..] else {
        unreachable!("checked 4-d")
    };
    let p = opts.padding;
    let xp = x.try_pad(&[(0, 0), (0, 0), (p.0, p.0), (p.1, p.1)], T::ZERO)?;
    let (s, d) = (opts.stride, opts.dilation);
    // (N, C, kh, kw, oh, ow) → (N, C·kh·kw, L), a view.
    let cols = super::conv::unfold(op, &xp, (kernel.0, kernel.1, s.0, s.1, d.0, d.1))?;
    let (oh, ow) = (cols.dims()[4], cols.dims()[5]);
    cols.try_reshape([n, c * kernel.0 * kernel.1, oh * ow])
}

/// The inverse arrangement of [`unfold`] (PyTorch `fold`, col2im): columns `(N, C·kh·kw, L)`
/// summed into an `(N, C, H, W)` output of `output_size`, overlapping windows adding up. It is
/// a grouped [`conv_transpose2d`] with a one-hot weight, so it differentiates and runs on every
/// device.
///
/// # Errors
/// `InvalidArgument` when the columns' shape does not fit the kernel and `output_size` (the
/// second axis must be a multiple of `kh·kw`, and `L` the number of windows of the output),
/// or for a zero kernel, stride or dilation.
pub fn fold<T: FloatElement, D: Backend>(
    cols: &Tensor<T, D>,
    output_size: (usize, usize),
    kernel: (usize, usize),
    opts: Conv2dOptions,
) -> Result<Tensor<T, D>> {
    let op = "fold";
    let (kh, kw) = kernel;
    let (s, p, d) = (opts.stride, opts.padding, opts.dilation);
    let k = kh.checked_mul(kw).filter(|&k| k > 0);
    // Windows along one output axis of `len`: (len + 2p - d(k - 1) - 1) / s + 1.
    let windows = |len: usize, k: usize, s: usize, p: usize, d: usize| -> Option<usize> {
        let span = d.checked_mul(k.checked_sub(1)?)?.checked_add(1)?;
        let padded = len.checked_add(p.checked_mul(2)?)?;
        (s > 0 && padded >= span).then(|| (padded - span) / s + 1)
    };
    let (oh, ow) = (
        windows(output_size.0, kh, s.0, p.0, d.0),
        windows(output_size.1, kw, s.1, p.1, d.1),
    );
    let fits = match (cols.dims(), k, oh, ow) {
        ([_, ck, l], Some(k), Some(oh), Some(ow)) => ck % k == 0 && oh.checked_mul(ow) == Some(*l),
        _ => false,
    };
    if !fits {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "columns {} do not fit a {kh}×{kw} kernel over an output of {output_size:?} (stride {s:?}, padding {p:?}, dilation {d:?})",
                cols.shape()
            ),
        });
    }
    let (k, oh, ow) = (k.unwrap_or(1), oh.unwrap_or(0), ow.unwrap_or(0));
    let [n, ck, _] = cols.dims()[..] else {
        unreachable!("checked 3-d")
    };
    let c = ck / k;
    // One-hot weight (C·kh·kw, 1, kh, kw): column c·k + i·kw + j feeds tap (i, j) of channel c.
    let size = ck.checked_mul(k).ok_or(Error::ShapeOverflow {
        op,
        dims: vec![ck, 1, kh, kw],
    })?;
    let mut w = crate::alloc::try_vec(op, size, T::ZERO)?;
    for r in 0..ck {
        w[r * k + r % k] = T::ONE;
    }
    let w = Tensor::from_vec_on(w, [ck, 1, kh, kw], cols.device_handle())?;
    let x = cols.try_reshape([n, ck, oh, ow])?;
    // The output padding that reaches `output_size`: what the windows leave uncovered.
    let reach = |o: usize, s: usize, k: usize, d: usize, p: usize| {
        ((o - 1) * s + d * (k - 1) + 1) as i128 - 2 * p as i128
    };
    let extra = (
        output_size.0 as i128 - reach(oh, s.0, kh, d.0, p.0),
        output_size.1 as i128 - reach(ow, s.1, kw, d.1, p.1),
    );
    let groups = Conv2dOptions {
        groups: c.max(1),
        ..opts
    };
    if c == 0 {
        return Tensor::zeros_on([n, 0, output_size.0, output_size.1], cols.device_handle());
    }
    // The uncovered rows and columns are zeros at the end: conv_transpose2d's output padding
    // when it is below the stride or dilation, a pad otherwise.
    let small = |e: i128, s: usize, d: usize| e >= 0 && e < s.max(d) as i128;
    let (op_h, op_w) = (
        if small(extra.0, s.0, d.0) {
            extra.0 as usize
        } else {
            0
        },
        if small(extra.1, s.1, d.1) {
            extra.1 as usize
        } else {
            0
        },
    );
    let y =
        conv_transpose2d(&x, &w, None, groups, (op_h, op_w)).map_err(|e| e.invalid_named(op))?;
    let (gh, gw) = (output_size.0 - y.dims()[2], output_size.1 - y.dims()[3]);
    if (gh, gw) == (0, 0) {
        return Ok(y);
    }
    y.try_pad(&[(0, 0), (0, 0), (0, gh), (0, gw)], T::ZERO)
}

/// `dilation · (k - 1)`, the span of a kernel beyond its first tap.
fn d_reach(dilation: usize, k: usize) -> i128 {
    dilation as i128 * (k as i128 - 1)
}
