//! 3-d convolution and pooling (PyTorch `conv3d`, `max_pool3d`, `avg_pool3d`,
//! `max_pool3d_with_indices`, `max_unpool3d`, `adaptive_max_pool3d`, `lp_pool3d`) built on the
//! 2-d ones: a 3-d convolution is the sum over the kernel's depth taps of one batched `conv2d`
//! each (every output depth a batch entry), and 3-d pooling is separable (2-d pooling of every
//! depth slice, then pooling over depth), so all of it differentiates on every device.

use super::conv::{Conv2dOptions, avg_pool2d, conv2d, max_pool2d, out_len};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// Stride, padding and dilation of a 3-d window, each as (depth, height, width).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conv3dOptions {
    /// Step between windows.
    pub stride: (usize, usize, usize),
    /// Zeros added on both sides.
    pub padding: (usize, usize, usize),
    /// Step between the taps of one window.
    pub dilation: (usize, usize, usize),
    /// Channel groups.
    pub groups: usize,
}

impl Default for Conv3dOptions {
    fn default() -> Self {
        Conv3dOptions {
            stride: (1, 1, 1),
            padding: (0, 0, 0),
            dilation: (1, 1, 1),
            groups: 1,
        }
    }
}

/// 3-d convolution (PyTorch `conv3d`): `x` `(N, C, D, H, W)`, `weight`
/// `(O, C / groups, kd, kh, kw)`, an optional bias `(O,)`; `(N, O, od, oh, ow)` out.
///
/// # Errors
/// `InvalidArgument` when the shapes do not fit each other and `groups`, or a window does not
/// fit its padded axis; `Device` across devices.
pub fn conv3d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    weight: &Tensor<T, D>,
    bias: Option<&Tensor<T, D>>,
    opts: Conv3dOptions,
) -> Result<Tensor<T, D>> {
    const OP: &str = "conv3d";
    let (&[n, c, d, h, w], &[o, _, kd, _, _]) = (x.dims(), weight.dims()) else {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!(
                "expects an (N, C, D, H, W) input and an (O, C / groups, kd, kh, kw) weight, got {} and {}",
                x.shape(),
                weight.shape()
            ),
        });
    };
    let (sd, pd, dd) = (opts.stride.0, opts.padding.0, opts.dilation.0);
    let depth = pd
        .checked_mul(2)
        .and_then(|p| d.checked_add(p))
        .ok_or_else(|| Error::ShapeOverflow {
            op: OP,
            dims: x.dims().to_vec(),
        })?;
    let od = out_len(OP, depth, kd, sd, dd)?;
    let batch = n.checked_mul(od).ok_or_else(|| Error::ShapeOverflow {
        op: OP,
        dims: x.dims().to_vec(),
    })?;
    let xp = x.try_pad(
        &[(0, 0), (0, 0), (pd, pd), (0, 0), (0, 0)],
        T::from_f64(0.0),
    )?;
    let opts2 = Conv2dOptions {
        stride: (opts.stride.1, opts.stride.2),
        padding: (opts.padding.1, opts.padding.2),
        dilation: (opts.dilation.1, opts.dilation.2),
        groups: opts.groups,
    };
    let mut total: Option<Tensor<T, D>> = None;
    // Without channels or filters every tap adds zeros: one of them gives the shape and the
    // graph (an empty weight may have 2^33 depth taps).
    let taps = if x.numel() == 0 || weight.numel() == 0 {
        kd.min(1)
    } else {
        kd
    };
    for t in 0..taps {
        // The depth slices tap t reads, one per output depth: (N, C, od, H, W) → (N·od, C, H, W).
        let slices = xp
            .slice_dim(2, t * dd, t * dd + (od - 1) * sd + 1, sd)?
            .permute(&[0, 2, 1, 3, 4])?
            .try_reshape([batch, c, h, w])?;
        let tap = weight.narrow(2, t, 1)?.squeeze_dims(&[2])?;
        let y = conv2d(&slices, &tap, None, opts2).map_err(|e| e.invalid_named(OP))?;
        total = Some(match total {
            Some(acc) => acc.try_add(&y)?,
            None => y,
        });
    }
    let Some(y) = total else {
        unreachable!("out_len refuses kd = 0")
    };
    let (oh, ow) = (y.dims()[2], y.dims()[3]);
    let y = y
        .try_reshape([n, od, o, oh, ow])?
        .permute(&[0, 2, 1, 3, 4])?;
    match bias {
        Some(b) if b.dims() == [o] => y.try_add(&b.try_reshape([1, o, 1, 1, 1])?),
        Some(b) => Err(Error::InvalidArgument {
            op: OP,
            msg: format!("the bias has shape {}; it needs ({o},)", b.shape()),
        }),
        None => Ok(y),
    }
}

/// 3-d pooling by a separable 2-d `pool` over `(H, W)` of every depth slice, then over `D`.
fn pool3d<T: FloatElement, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    kernel: (usize, usize, usize),
    stride: (usize, usize, usize),
    padding: (usize, usize, usize),
    pool: impl Fn(&Tensor<T, D>, (usize, usize), (usize, usize), (usize, usize)) -> Result<Tensor<T, D>>,
) -> Result<Tensor<T, D>> {
    let &[n, c, d, h, w] = x.dims() else {
        return Err(Error::InvalidArgument {
            op,
            msg: format!("expects an (N, C, D, H, W) input, got {}", x.shape()),
        });
    };
    let named = |e: Error| e.invalid_named(op);
    let planes = c.checked_mul(d).ok_or_else(|| Error::ShapeOverflow {
        op,
        dims: x.dims().to_vec(),
    })?;
    let plane = pool(
        &x.try_reshape([n, planes, h, w])?,
        (kernel.1, kernel.2),
        (stride.1, stride.2),
        (padding.1, padding.2),
    )
    .map_err(named)?;
    let (oh, ow) = (plane.dims()[2], plane.dims()[3]);
    // An empty input may have a plane of 2^66 positions.
    let area = oh.checked_mul(ow).ok_or_else(|| Error::ShapeOverflow {
        op,
        dims: x.dims().to_vec(),
    })?;
    let deep = pool(
        &plane.try_reshape([n, c, d, area])?,
        (kernel.0, 1),
        (stride.0, 1),
        (padding.0, 0),
    )
    .map_err(named)?;
    let od = deep.dims()[2];
    deep.try_reshape([n, c, od, oh, ow])
}

/// The maximum of each 3-d window (PyTorch `max_pool3d`; padding counts as `-inf`):
/// `(N, C, D, H, W)` in, `(N, C, od, oh, ow)` out; the gradient goes to the first maximum in
/// (depth, row, column) order, as PyTorch's.
///
/// # Errors
/// `InvalidArgument` for a non-5-d input, padding above half the kernel, or a window that does
/// not fit.
pub fn max_pool3d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    kernel: (usize, usize, usize),
    stride: (usize, usize, usize),
    padding: (usize, usize, usize),
) -> Result<Tensor<T, D>> {
    pool3d("max_pool3d", x, kernel, stride, padding, |t, k, s, p| {
        max_pool2d(t, k, s, p)
    })
}

/// The mean of each 3-d window (PyTorch `avg_pool3d` with `count_include_pad=True`).
///
/// # Errors
/// As [`max_pool3d`].
pub fn avg_pool3d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    kernel: (usize, usize, usize),
    stride: (usize, usize, usize),
    padding: (usize, usize, usize),
) -> Result<Tensor<T, D>> {
    pool3d("avg_pool3d", x, kernel, stride, padding, |t, k, s, p| {
        avg_pool2d(t, k, s, p)
    })
}

/// [`max_pool3d`] with the position of each maximum (PyTorch `max_pool3d(return_indices=True)`):
/// `(values, indices)`, both `(N, C, od, oh, ow)`, the indices Int64 into each flattened
/// `(D, H, W)` volume (`(d·H + h)·W + w`), ready for [`max_unpool3d`]. Ties pick the first
/// maximum in (depth, row, column) order, and the conventions for NaN and all-`-inf` windows
/// are [`super::max_pool2d_with_indices`]'s. Computed separably: 2-d pooling with indices of
/// every depth slice, then over depth, whose first maximum lies in the first slice holding the
/// window's maximum; the values are gathered from `x` at the indices, so the gradient reaches
/// one element per window.
///
/// # Errors
/// As [`max_pool3d`].
#[allow(clippy::type_complexity)]
pub fn max_pool3d_with_indices<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    kernel: (usize, usize, usize),
    stride: (usize, usize, usize),
    padding: (usize, usize, usize),
) -> Result<(Tensor<T, D>, Tensor<i64, D>)> {
    let (hw, shw, phw) = (
        (kernel.1, kernel.2),
        (stride.1, stride.2),
        (padding.1, padding.2),
    );
    separable_max(
        "max_pool3d_with_indices",
        x,
        |t| super::max_pool2d_with_indices(t, hw, shw, phw),
        |t| super::max_pool2d_with_indices(t, (kernel.0, 1), (stride.0, 1), (padding.0, 0)),
    )
}

/// The maximum over adaptive 3-d windows giving an `output_size` of `(od, oh, ow)` (PyTorch
/// `adaptive_max_pool3d`): `(N, C, D, H, W)` in, `(N, C, od, oh, ow)` out; window `i` of an axis
/// of length `len` covers `floor(i·len/out) .. ceil((i+1)·len/out)`.
///
/// # Errors
/// `InvalidArgument` for a non-5-d input or a zero output or input axis.
pub fn adaptive_max_pool3d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    output_size: (usize, usize, usize),
) -> Result<Tensor<T, D>> {
    Ok(adaptive_max_pool3d_with_indices(x, output_size)?.0)
}

/// [`adaptive_max_pool3d`] with the position of each maximum (PyTorch
/// `adaptive_max_pool3d(return_indices=True)`), the indices as [`max_pool3d_with_indices`]'s.
///
/// # Errors
/// As [`adaptive_max_pool3d`].
#[allow(clippy::type_complexity)]
pub fn adaptive_max_pool3d_with_indices<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    output_size: (usize, usize, usize),
) -> Result<(Tensor<T, D>, Tensor<i64, D>)> {
    let (od, oh, ow) = output_size;
    separable_max(
        "adaptive_max_pool3d",
        x,
        |t| super::adaptive_max_pool2d_with_indices(t, (oh, ow)),
        |t| super::adaptive_max_pool2d_with_indices(t, (od, t.dims()[3])),
    )
}

/// 3-d max pooling with indices from two 2-d ones: `plane` pools every depth slice
/// `(N, C·D, H, W)` (values and indices into `H·W`), then `depth` pools `(N, C, D, oh·ow)` over
/// depth only (indices into `D·oh·ow`). The first maximum over depth lies in the first slice
/// holding the window's maximum, so the combined index is the first maximum in (depth, row,
/// column) order, as PyTorch's. The values are gathered from `x` at the indices, so the
/// gradient reaches one element per window.
#[allow(clippy::type_complexity)]
fn separable_max<T: FloatElement, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    plane: impl Fn(&Tensor<T, D>) -> Result<(Tensor<T, D>, Tensor<i64, D>)>,
    depth: impl Fn(&Tensor<T, D>) -> Result<(Tensor<T, D>, Tensor<i64, D>)>,
) -> Result<(Tensor<T, D>, Tensor<i64, D>)> {
    let &[n, c, d, h, w] = x.dims() else {
        return Err(Error::InvalidArgument {
            op,
            msg: format!("expects an (N, C, D, H, W) input, got {}", x.shape()),
        });
    };
    let named = |e: Error| e.invalid_named(op);
    let overflow = || Error::ShapeOverflow {
        op,
        dims: x.dims().to_vec(),
    };
    let index = crate::autograd::no_grad(|| -> Result<Tensor<i64, D>> {
        let slices = x.try_reshape([n, c.checked_mul(d).ok_or_else(overflow)?, h, w])?;
        let (values, in_plane) = plane(&slices).map_err(named)?;
        let (oh, ow) = (values.dims()[2], values.dims()[3]);
        let area = oh.checked_mul(ow).ok_or_else(overflow)?;
        let (_, at) = depth(&values.try_reshape([n, c, d, area])?).map_err(named)?;
        let od = at.dims()[2];
        if x.numel() == 0 {
            return Tensor::zeros_on([n, c, od, oh, ow], x.device_handle());
        }
        let flat = at.try_reshape([n, c, od * area])?;
        let within = in_plane
            .try_reshape([n, c, d * area])?
            .try_gather(-1, &flat)?;
        let slice = flat.try_floor_divide_scalar(area as i64)?;
        slice
            .try_mul_scalar((h * w) as i64)?
            .try_add(&within)?
            .try_reshape([n, c, od, oh, ow])
    })?;
    let [_, _, od, oh, ow] = index.dims()[..] else {
        unreachable!("5-d indices")
    };
    if x.numel() == 0 {
        // N·C = 0 and D·H·W may overflow: an empty result that still records.
        let values = x
            .try_sum(&[2, 3, 4], true)?
            .broadcast_to([n, c, od, oh, ow])?;
        return Ok((values, index));
    }
    let values = x
        .try_reshape([n, c, d * h * w])?
        .try_gather(-1, &index.try_reshape([n, c, od * oh * ow])?)?
        .try_reshape([n, c, od, oh, ow])?;
    Ok((values, index))
}

/// The power-average pool of an `(N, C, D, H, W)` input (PyTorch `lp_pool3d`, no padding):
/// `(Σ_window x^p)^(1/p)`, computed as [`super::lp_pool2d`] is.
///
/// # Errors
/// As [`avg_pool3d`].
pub fn lp_pool3d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    norm_type: f64,
    kernel: (usize, usize, usize),
    stride: (usize, usize, usize),
) -> Result<Tensor<T, D>> {
    let a = avg_pool3d(&x.try_pow(norm_type)?, kernel, stride, (0, 0, 0))
        .map_err(|e| e.invalid_named("lp_pool3d"))?;
    let count = kernel.0.saturating_mul(kernel.1).saturating_mul(kernel.2);
    super::pool::lp_finish(&a, norm_type, count)
}

/// The inverse of [`max_pool3d_with_indices`] (PyTorch `max_unpool3d`): zeros of shape
/// `(N, C, D, H, W)` = `output_size`, with each value of `x` `(N, C, od, oh, ow)` written at its
/// index into the flattened `(D, H, W)` volume. Differentiable in `x` (a gather at the
/// indices, as PyTorch).
///
/// # Errors
/// `InvalidArgument` unless `x` is 5-d and `indices` has its shape; `Index` for an index
/// outside `0..D·H·W`; `ShapeOverflow` for a huge output.
pub fn max_unpool3d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    indices: &Tensor<i64, D>,
    output_size: (usize, usize, usize),
) -> Result<Tensor<T, D>> {
    const OP: &str = "max_unpool3d";
    let &[n, c, od, oh, ow] = x.dims() else {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!("expects an (N, C, od, oh, ow) input, got {}", x.shape()),
        });
    };
    let (d, h, w) = output_size;
    let overflow = || Error::ShapeOverflow {
        op: OP,
        dims: vec![n, c, d, h, w],
    };
    let (area, in_area) = (
        h.checked_mul(w).ok_or_else(overflow)?,
        oh.checked_mul(ow).ok_or_else(overflow)?,
    );
    super::pool::check_indices(OP, x, indices)?;
    // The volume as a (D, H·W) plane: max_unpool2d's flat index into it is the same number.
    let shape = [n, c, od, in_area];
    let (x, indices) = (x.try_reshape(shape)?, indices.try_reshape(shape)?);
    let out = super::max_unpool2d(&x, &indices, (d, area)).map_err(|e| match e {
        Error::InvalidArgument { msg, .. } => Error::InvalidArgument { op: OP, msg },
        Error::Index {
            index, dim, size, ..
        } => Error::Index {
            op: OP,
            index,
            dim,
            size,
            shape: crate::shape::Shape::new(vec![n, c, d, h, w]),
        },
        e => e,
    })?;
    out.try_reshape([n, c, d, h, w])
}
