//! Convolutions and pooling over `(N, C, H, W)` inputs (PyTorch's `conv1d`, `conv2d`,
//! `max_pool2d`, `avg_pool2d`): windows are gathered by one strided view of the padded input
//! (im2col), then a batched `matmul` or a reduction does the work. The window gather has its
//! own backward rule (col2im: one strided add per kernel offset).

use crate::autograd::{Op, record};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::shape::{Layout, Shape};
use crate::tensor::Tensor;

/// Stride, padding and dilation of a 2-d window, each as (height, width).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conv2dOptions {
    /// Step between windows.
    pub stride: (usize, usize),
    /// Zeros added on both sides (for max pooling: `-inf`).
    pub padding: (usize, usize),
    /// Step between the taps of one window.
    pub dilation: (usize, usize),
    /// Channel groups: input and output channels split into this many independent parts.
    pub groups: usize,
}

impl Default for Conv2dOptions {
    fn default() -> Self {
        Conv2dOptions {
            stride: (1, 1),
            padding: (0, 0),
            dilation: (1, 1),
            groups: 1,
        }
    }
}

/// The windows' geometry: `(kh, kw, sh, sw, dh, dw)`.
pub(crate) type Window = (usize, usize, usize, usize, usize, usize);

/// Output length of a windowed axis, or an `Err` naming the op when the window does not fit.
pub(crate) fn out_len(op: &'static str, len: usize, k: usize, s: usize, d: usize) -> Result<usize> {
    let span = d
        .checked_mul(k.saturating_sub(1))
        .and_then(|v| v.checked_add(1));
    match span {
        Some(span) if k > 0 && s > 0 && d > 0 && span <= len => Ok((len - span) / s + 1),
        _ => Err(Error::InvalidArgument {
            op,
            msg: format!(
                "a window of {k} taps (dilation {d}, stride {s}) does not fit an axis of {len} (after padding); kernel, stride and dilation must be positive"
            ),
        }),
    }
}

/// The windows of a contiguous `(N, C, H, W)` tensor as a contiguous `(N, C, kh, kw, oh, ow)`
/// tensor (im2col, PyTorch's column layout: each tap's rows of windows are runs of the input),
/// recorded with the col2im rule.
pub(crate) fn unfold<T: FloatElement, D: Backend>(
    op: &'static str,
    xp: &Tensor<T, D>,
    w: Window,
) -> Result<Tensor<T, D>> {
    let (kh, kw, sh, sw, dh, dw) = w;
    let [n, c, h, wd] = xp.dims()[..] else {
        return Err(Error::InvalidArgument {
            op,
            msg: format!("expects an (N, C, H, W) input, got {}", xp.shape()),
        });
    };
    let (oh, ow) = (out_len(op, h, kh, sh, dh)?, out_len(op, wd, kw, sw, dw)?);
    let xp = xp.try_contiguous()?;
    let st = xp.stride().to_vec();
    // A stride or dilation may be huge where its axis has one window or one tap: checked.
    let mul = |s: isize, by: usize, count: usize| {
        if count <= 1 {
            return Ok(0); // one window or tap on this axis: its step is never taken
        }
        isize::try_from(by)
            .ok()
            .and_then(|by| s.checked_mul(by))
            .ok_or_else(|| Error::InvalidArgument {
                op,
                msg: format!("a window step of {by} overflows the input's strides"),
            })
    };
    let strides = vec![
        st[0],
        st[1],
        mul(st[2], dh, kh)?,
        mul(st[3], dw, kw)?,
        mul(st[2], sh, oh)?,
        mul(st[3], sw, ow)?,
    ];
    let windows = crate::autograd::no_grad(|| {
        if let Some(t) = D::unfold2d(&xp, w, (oh, ow))? {
            return Ok(t);
        }
        let layout = Layout {
            shape: Shape::new(vec![n, c, kh, kw, oh, ow]),
            strides: strides.into(),
            offset: xp.layout.offset,
        };
        xp.with_layout(op, layout)?.try_contiguous()
    })?;
    Ok(record(windows, Op::Unfold(w), &[&xp], &[&xp]))
}

/// col2im: the gradient of [`unfold`] for `g` of shape `(N, C, kh, kw, oh, ow)`.
pub(crate) fn fold<T: FloatElement, D: Backend>(
    g: &Tensor<T, D>,
    x: &Tensor<T, D>,
    w: Window,
) -> Result<Tensor<T, D>> {
    let gx = crate::autograd::no_grad(|| fold_values(g, x, w))?;
    // Recorded only in a `create_graph` pass, where `g` carries a graph.
    Ok(record(gx, Op::Fold(w), &[g], &[]))
}

/// [`unfold`] of a gradient of the padded input's shape: the rule of [`fold`].
pub(crate) fn unfold_recorded<T: FloatElement, D: Backend>(
    g: &Tensor<T, D>,
    w: Window,
) -> Result<Tensor<T, D>> {
    unfold("backward", &g.try_contiguous()?, w)
}

fn fold_values<T: FloatElement, D: Backend>(
    g: &Tensor<T, D>,
    x: &Tensor<T, D>,
    w: Window,
) -> Result<Tensor<T, D>> {
    let (kh, kw, sh, sw, dh, dw) = w;
    let [n, c, _, _, oh, ow] = g.dims()[..] else {
        unreachable!("unfold's gradient is 6-d")
    };
    if let [_, _, h, wd] = x.dims()[..]
        && let Some(gx) = D::fold2d(g, [n, c, h, wd], w)?
    {
        return Ok(gx);
    }
    let gx = Tensor::<T, D>::zeros_on(x.dims(), &g.device)?;
    if g.numel() == 0 {
        return Ok(gx); // no window has a tap: nothing to add (kh·kw may be 2^40)
    }
    let st = gx.stride().to_vec();
    for i in 0..kh {
        for j in 0..kw {
            // The input positions tap (i, j) read: rows i·dh + r·sh, columns j·dw + q·sw.
            let layout = Layout {
                shape: Shape::new(vec![n, c, oh, ow]),
                // One window on an axis: its (possibly huge) step is never taken.
                strides: vec![
                    st[0],
                    st[1],
                    if oh > 1 { st[2] * sh as isize } else { 0 },
                    if ow > 1 { st[3] * sw as isize } else { 0 },
                ]
                .into(),
                offset: (i * dh) * st[2] as usize + (j * dw) * st[3] as usize,
            };
            let mut target = gx.with_layout("backward", layout)?;
            let tap = g.narrow(2, i, 1)?.narrow(3, j, 1)?;
            target.add_(&tap.try_reshape(target.dims())?)?;
        }
    }
    Ok(gx)
}

fn pad2d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    p: (usize, usize),
    v: T,
) -> Result<Tensor<T, D>> {
    if p == (0, 0) {
        return Ok(x.clone());
    }
    x.try_pad(&[(0, 0), (0, 0), (p.0, p.0), (p.1, p.1)], v)
}

/// 2-d convolution (cross-correlation, as PyTorch `conv2d`): `x` is `(N, C, H, W)`, `weight`
/// `(O, C / groups, kh, kw)`, `bias` `(O)`; the output is `(N, O, oh, ow)` with
/// `oh = (H + 2·ph - dh·(kh - 1) - 1) / sh + 1` (and the same for the width).
///
/// ```
/// use typed_tensor::prelude::*;
/// use typed_tensor::nn::{Conv2dOptions, conv2d};
/// let x = Tensor::<f32>::from_vec((0..16).map(|v| v as f32).collect(), [1, 1, 4, 4])?;
/// let w = Tensor::<f32>::ones([1, 1, 2, 2])?; // sums of 2×2 windows
/// let y = conv2d(&x, &w, None, Conv2dOptions { stride: (2, 2), ..Default::default() })?;
/// assert_eq!(y.to_vec(), vec![10.0, 18.0, 42.0, 50.0]);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `InvalidArgument` for inputs that are not 4-d, channels that do not match or do not divide
/// by `groups`, or a window that does not fit, or a bias that is not `(O,)`.
pub fn conv2d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    weight: &Tensor<T, D>,
    bias: Option<&Tensor<T, D>>,
    opts: Conv2dOptions,
) -> Result<Tensor<T, D>> {
    let op = "conv2d";
    let g = opts.groups;
    let ok = x.ndim() == 4
        && weight.ndim() == 4
        && g > 0
        && x.dims()[1].is_multiple_of(g)
        && weight.dims()[0].is_multiple_of(g)
        && weight.dims()[1] * g == x.dims()[1];
    if !ok {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "input {} (N, C, H, W) and weight {} (O, C / groups, kh, kw) do not fit with groups = {g}",
                x.shape(),
                weight.shape()
            ),
        });
    }
    let n = x.dims()[0];
    let [o, cg, kh, kw] = weight.dims()[..] else {
        unreachable!("checked 4-d")
    };
    if let Some(b) = bias.filter(|b| b.dims() != [o]) {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "the bias has shape {}; it needs ({o},), one per output channel",
                b.shape()
            ),
        });
    }
    let (sh, sw) = opts.stride;
    let (dh, dw) = opts.dilation;
    let xp = pad2d(x, opts.padding, T::ZERO)?;
    let cols = unfold(op, &xp, (kh, kw, sh, sw, dh, dw))?; // (N, C, kh, kw, oh, ow)
    let (oh, ow) = (cols.dims()[4], cols.dims()[5]);
    // Empty inputs may have huge axes (no channels beside 2^33 × 2^33 windows): checked.
    let overflow = || Error::InvalidArgument {
        op,
        msg: format!("{n} × {oh} × {ow} windows of {cg} × {kh} × {kw} taps overflow usize"),
    };
    let k = (cg.checked_mul(kh))
        .and_then(|v| v.checked_mul(kw))
        .ok_or_else(overflow)?;
    // One product per image and group, the columns in PyTorch's im2col layout:
    // (g, O/g, k) @ (N, g, k, L) → (N, g, O/g, L), which is (N, O, oh, ow) as it is (the
    // windows-first layout needed a transposing copy of the output).
    let windows = match n {
        0 => 0, // an empty batch of 2^33 × 2^33 windows: an empty result
        _ => oh.checked_mul(ow).ok_or_else(overflow)?,
    };
    let cols = cols.try_reshape([n, g, k, windows])?;
    let wm = weight.try_reshape([g, o / g, k])?;
    let y = wm.try_matmul(&cols)?.try_reshape([n, o, oh, ow])?;
    match bias {
        Some(b) => y.try_add(&b.try_reshape([1, o, 1, 1])?),
        None => Ok(y),
    }
}

/// 1-d convolution (PyTorch `conv1d`): `x` is `(N, C, L)`, `weight` `(O, C / groups, k)`;
/// the options' second components apply (`stride.1`, `padding.1`, `dilation.1`).
///
/// # Errors
/// As [`conv2d`].
pub fn conv1d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    weight: &Tensor<T, D>,
    bias: Option<&Tensor<T, D>>,
    opts: Conv2dOptions,
) -> Result<Tensor<T, D>> {
    let (x, w, opts) = as_height_1("conv1d", x, weight, "(O, C / groups, k)", opts)?;
    conv2d(&x, &w, bias, opts)?.squeeze_dims(&[2])
}

/// A 1-d convolution as a 2-d one: input, weight and options.
pub(super) type Height1<T, D> = (Tensor<T, D>, Tensor<T, D>, Conv2dOptions);

/// A 1-d convolution's `(N, C, L)` input and 3-d weight as 2-d ones of height 1, with the
/// options' second components only.
pub(super) fn as_height_1<T: FloatElement, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    weight: &Tensor<T, D>,
    weight_layout: &str,
    opts: Conv2dOptions,
) -> Result<Height1<T, D>> {
    if x.ndim() != 3 || weight.ndim() != 3 {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "expects an (N, C, L) input and a {weight_layout} weight, got {} and {}",
                x.shape(),
                weight.shape()
            ),
        });
    }
    let opts = Conv2dOptions {
        stride: (1, opts.stride.1),
        padding: (0, opts.padding.1),
        dilation: (1, opts.dilation.1),
        groups: opts.groups,
    };
    Ok((x.unsqueeze(2)?, weight.unsqueeze(2)?, opts))
}

/// The dimensions of a pooling input, after PyTorch's checks: 4-d, and padding at most half
/// the kernel (a wider one would make windows of padding alone).
pub(crate) fn check_pool<T: FloatElement, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    kernel: (usize, usize),
    padding: (usize, usize),
) -> Result<[usize; 4]> {
    let [n, c, h, w] = x.dims()[..] else {
        return Err(Error::InvalidArgument {
            op,
            msg: format!("expects an (N, C, H, W) input, got {}", x.shape()),
        });
    };
    if padding.0 > kernel.0 / 2 || padding.1 > kernel.1 / 2 {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "padding {padding:?} must be at most half the kernel {kernel:?} on each axis"
            ),
        });
    }
    Ok([n, c, h, w])
}

/// Reduces each pooling window of `x` with `reduce(windows, axes)`. Windows that tile the
/// input (stride = kernel, no padding) are a reshape `(N, C, oh, kh, ow, kw)` of it, reduced
/// over axes 3 and 5 with no copy; others are gathered by [`unfold`] as `(N, C, oh, ow,
/// kh·kw)` and reduced over the last axis.
fn pool<T: FloatElement, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    kernel: (usize, usize),
    stride: (usize, usize),
    padding: (usize, usize),
    fill: T,
    reduce: impl Fn(&Tensor<T, D>, &[i64]) -> Result<Tensor<T, D>>,
) -> Result<Tensor<T, D>> {
    let [n, c, h, w] = check_pool(op, x, kernel, padding)?;
    let (kh, kw) = kernel;
    if kernel == stride && padding == (0, 0) && kh > 0 && kw > 0 && kh <= h && kw <= w {
        let (oh, ow) = (h / kh, w / kw);
        // Rows and columns past the last whole window are not pooled.
        let x = x.narrow(2, 0, oh * kh)?.narrow(3, 0, ow * kw)?;
        return reduce(&x.try_reshape([n, c, oh, kh, ow, kw])?, &[3, 5]);
    }
    reduce(&windows(op, x, kernel, stride, padding, fill)?, &[-1])
}

/// The pooling windows of a checked `(N, C, H, W)` input padded with `fill`, as
/// `(N, C, oh, ow, kh·kw)` (a view of the im2col gather).
pub(crate) fn windows<T: FloatElement, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    (kh, kw): (usize, usize),
    stride: (usize, usize),
    padding: (usize, usize),
    fill: T,
) -> Result<Tensor<T, D>> {
    let xp = pad2d(x, padding, fill)?;
    let cols = unfold(op, &xp, (kh, kw, stride.0, stride.1, 1, 1))?;
    let [n, c, _, _, oh, ow] = cols.dims()[..] else {
        unreachable!("unfold is 6-d")
    };
    cols.try_reshape([n, c, kh * kw, oh, ow])?
        .permute(&[0, 1, 3, 4, 2])
}

/// The maximum of each window (PyTorch `max_pool2d`; padding counts as `-inf`): `(N, C, H, W)`
/// in, `(N, C, oh, ow)` out. The gradient goes to the first maximum of each window in row-major
/// order, as PyTorch routes it through the window's argmax (a NaN counts as the maximum).
///
/// # Errors
/// `InvalidArgument` for a non-4-d input, a window that does not fit, or a padding wider than
/// half the kernel (as PyTorch).
pub fn max_pool2d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    kernel: (usize, usize),
    stride: (usize, usize),
    padding: (usize, usize),
) -> Result<Tensor<T, D>> {
    if crate::autograd::recording(&[x]) {
        // The maximum picked by the argmax and gathered from the input, so the gradient
        // reaches one element per window (the max reduction's rule would share it among ties)
        // through one scatter.
        return Ok(super::pool::max_pool2d_with_indices(x, kernel, stride, padding)?.0);
    }
    const OP: &str = "max_pool2d";
    if let Some(window) = super::pool::pool_window(OP, x, kernel, stride, padding)?
        && let Some(y) = D::max_pool2d(x, window)?
    {
        return Ok(y);
    }
    let fill = T::from_f64(f64::NEG_INFINITY);
    pool(OP, x, kernel, stride, padding, fill, |w, axes| {
        w.try_max(axes, false)
    })
}

/// The mean of each window (PyTorch `avg_pool2d` with `count_include_pad=True`: padded zeros
/// count).
///
/// # Errors
/// As [`max_pool2d`].
pub fn avg_pool2d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    kernel: (usize, usize),
    stride: (usize, usize),
    padding: (usize, usize),
) -> Result<Tensor<T, D>> {
    const OP: &str = "avg_pool2d";
    if !crate::autograd::recording(&[x])
        && let Some(window) = super::pool::pool_window(OP, x, kernel, stride, padding)?
        && let Some(y) = D::avg_pool2d(x, window)?
    {
        return Ok(y);
    }
    pool(OP, x, kernel, stride, padding, T::ZERO, |w, axes| {
        w.try_mean(axes, false)
    })
}

/// [`max_pool2d`] of an `(N, C, L)` input over windows of `kernel` (PyTorch `max_pool1d`).
///
/// # Errors
/// `InvalidArgument` for a non-3-d input; as [`max_pool2d`] otherwise.
pub fn max_pool1d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    kernel: usize,
    stride: usize,
    padding: usize,
) -> Result<Tensor<T, D>> {
    let x = as_2d("max_pool1d", x)?;
    let y = max_pool2d(&x, (1, kernel), (1, stride), (0, padding))
        .map_err(|e| e.invalid_named("max_pool1d"))?;
    y.squeeze_dims(&[2])
}

/// [`avg_pool2d`] of an `(N, C, L)` input (PyTorch `avg_pool1d`, padded zeros counted).
///
/// # Errors
/// As [`max_pool1d`].
pub fn avg_pool1d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    kernel: usize,
    stride: usize,
    padding: usize,
) -> Result<Tensor<T, D>> {
    let x = as_2d("avg_pool1d", x)?;
    let y = avg_pool2d(&x, (1, kernel), (1, stride), (0, padding))
        .map_err(|e| e.invalid_named("avg_pool1d"))?;
    y.squeeze_dims(&[2])
}

/// An `(N, C, L)` input as `(N, C, 1, L)`.
pub(super) fn as_2d<T: FloatElement, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
) -> Result<Tensor<T, D>> {
    if x.ndim() != 3 {
        return Err(Error::InvalidArgument {
            op,
            msg: format!("expects an (N, C, L) input, got {}", x.shape()),
        });
    }
    x.unsqueeze(2)
}

/// The mean over adaptive windows giving an `(N, C, oh, ow)` output (PyTorch
/// `adaptive_avg_pool2d`): output row `i` averages input rows `floor(i·H/oh)` to
/// `ceil((i+1)·H/oh)`, and columns likewise. Computed as `Ph · x · Pwᵀ` with the averaging
/// matrices, two batched products that differentiate and run on every device.
///
/// # Errors
/// `InvalidArgument` for a non-4-d input or an output size of 0 from a non-empty axis.
pub fn adaptive_avg_pool2d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    output_size: (usize, usize),
) -> Result<Tensor<T, D>> {
    let op = "adaptive_avg_pool2d";
    let [_, _, h, w] = x.dims()[..] else {
        return Err(Error::InvalidArgument {
            op,
            msg: format!("expects an (N, C, H, W) input, got {}", x.shape()),
        });
    };
    let (oh, ow) = output_size;
    // The (out, len) matrix averaging each adaptive window of an axis of `len`.
    let averaging = |out: usize, len: usize| -> Result<Tensor<T, D>> {
        if out == 0 && len > 0 || len == 0 && out > 0 {
            return Err(Error::InvalidArgument {
                op,
                msg: format!("cannot pool an axis of {len} into {out}"),
            });
        }
        let size = out.checked_mul(len).ok_or(Error::ShapeOverflow {
            op,
            dims: vec![out, len],
        })?;
        let mut m = crate::alloc::try_vec(op, size, T::ZERO)?;
        for i in 0..out {
            let (a, b) = (i * len / out, ((i + 1) * len).div_ceil(out));
            for j in a..b {
                m[i * len + j] = T::from_f64(1.0 / (b - a) as f64);
            }
        }
        Tensor::from_vec_on(m, [out, len], x.device_handle())
    };
    let (ph, pw) = (averaging(oh, h)?, averaging(ow, w)?);
    ph.try_matmul(x)?.try_matmul(&pw.t())
}
