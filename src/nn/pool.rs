//! Pooling with indices and its inverse (PyTorch `max_pool2d(return_indices=True)`,
//! `max_unpool2d`) and adaptive max pooling (`adaptive_max_pool2d`). The maximum of each
//! window is picked by `argmax` and `gather`, so the gradient reaches one element per window
//! (the first maximum, as PyTorch's), on every device. Also the power-average pools
//! (`lp_pool1d`, `lp_pool2d`) and the 1-d adaptive pools, through the 2-d ones.

use super::conv::{check_pool, out_len, windows};
use crate::backend::Backend;
use crate::backend::PoolWindow;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// [`super::max_pool2d`] with the position of each maximum: `(values, indices)`, both
/// `(N, C, oh, ow)`, the indices Int64 into each input plane flattened (`row · W + col`, as
/// PyTorch's `return_indices=True`), ready for [`max_unpool2d`]. Ties pick the first maximum
/// in the window's row-major order; a window holding NaN picks its first NaN (PyTorch: its
/// last); a window whose input elements are all `-inf` names the first of them (as PyTorch),
/// never a padding position. The values are gathered from `x` at the indices, so the
/// gradient reaches one element per window.
///
/// # Errors
/// As [`super::max_pool2d`].
pub fn max_pool2d_with_indices<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    kernel: (usize, usize),
    stride: (usize, usize),
    padding: (usize, usize),
) -> Result<(Tensor<T, D>, Tensor<i64, D>)> {
    const OP: &str = "max_pool2d_with_indices";
    let index = crate::autograd::no_grad(|| window_index(OP, x, kernel, stride, padding))?;
    Ok((gather_planes(x, &index)?, index))
}

/// The elements of `x` `(N, C, H, W)` at `index` `(N, C, oh, ow)` into each flattened plane,
/// recorded: the gradient is one scatter into the planes.
pub(super) fn gather_planes<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    index: &Tensor<i64, D>,
) -> Result<Tensor<T, D>> {
    let (&[n, c, h, w], &[_, _, oh, ow]) = (x.dims(), index.dims()) else {
        unreachable!("checked (N, C, H, W) input and (N, C, oh, ow) indices")
    };
    if x.numel() == 0 {
        // No plane (the windows fit, so N·C = 0), and H·W may overflow: an empty result that
        // still records, so its (empty) gradient reaches x.
        return x.try_sum(&[2, 3], true)?.broadcast_to([n, c, oh, ow]);
    }
    x.try_reshape([n, c, h * w])?
        .try_gather(-1, &index.try_reshape([n, c, oh * ow])?)?
        .try_reshape([n, c, oh, ow])
}

/// [`max_pool2d_with_indices`] over the last axis of an `(N, C, L)` input (PyTorch
/// `max_pool1d(return_indices=True)`): values and indices `(N, C, oL)`, the indices into `L`.
///
/// # Errors
/// As [`super::max_pool2d`], for a 3-d input.
pub fn max_pool1d_with_indices<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    kernel: usize,
    stride: usize,
    padding: usize,
) -> Result<(Tensor<T, D>, Tensor<i64, D>)> {
    const OP: &str = "max_pool1d_with_indices";
    let x = super::conv::as_2d(OP, x)?;
    let (y, at) = max_pool2d_with_indices(&x, (1, kernel), (1, stride), (0, padding))
        .map_err(|e| e.invalid_named(OP))?;
    Ok((y.squeeze_dims(&[2])?, at.squeeze_dims(&[2])?))
}

/// The inverse of [`max_pool1d_with_indices`] (PyTorch `max_unpool1d`): zeros of shape
/// `(N, C, output_size)` with each value of `x` `(N, C, oL)` written at its index.
///
/// # Errors
/// As [`max_unpool2d`], for 3-d `x` and `indices`.
pub fn max_unpool1d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    indices: &Tensor<i64, D>,
    output_size: usize,
) -> Result<Tensor<T, D>> {
    const OP: &str = "max_unpool1d";
    if x.ndim() != 3 || indices.dims() != x.dims() {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!(
                "expects an (N, C, oL) input and indices of its shape, got {} and {}",
                x.shape(),
                indices.shape()
            ),
        });
    }
    max_unpool2d(&x.unsqueeze(2)?, &indices.unsqueeze(2)?, (1, output_size))
        .map_err(|e| e.invalid_named(OP))?
        .squeeze_dims(&[2])
}

/// The position of each max-pooling window's maximum as an index into the flattened input
/// plane, `(N, C, oh, ow)`: the device's kernel (`Backend::max_pool2d_index`) where it has
/// one, else `argmax` over the gathered windows.
fn window_index<T: FloatElement, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    kernel: (usize, usize),
    stride: (usize, usize),
    padding: (usize, usize),
) -> Result<Tensor<i64, D>> {
    if let Some(window) = pool_window(op, x, kernel, stride, padding)?
        && let Some(index) = D::max_pool2d_index(x, window)?
    {
        return Ok(index);
    }
    composed_index(op, x, kernel, stride, padding)
}

/// The checked window geometry of pooling `x`, for the device's kernels; `None` where the
/// padded input's size overflows (the composed form then reports it).
pub(crate) fn pool_window<T: FloatElement, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    kernel: (usize, usize),
    stride: (usize, usize),
    padding: (usize, usize),
) -> Result<Option<PoolWindow>> {
    let [_, _, h, w] = check_pool(op, x, kernel, padding)?;
    let padded = |len: usize, p: usize| len.checked_add(p).and_then(|v| v.checked_add(p));
    let (Some(hp), Some(wp)) = (padded(h, padding.0), padded(w, padding.1)) else {
        return Ok(None);
    };
    let out = (
        out_len(op, hp, kernel.0, stride.0, 1)?,
        out_len(op, wp, kernel.1, stride.1, 1)?,
    );
    Ok(Some(PoolWindow {
        kernel,
        stride,
        padding,
        out,
    }))
}

/// [`window_index`] from the gathered windows and `argmax`, on any device.
fn composed_index<T: FloatElement, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    kernel: (usize, usize),
    stride: (usize, usize),
    padding: (usize, usize),
) -> Result<Tensor<i64, D>> {
    let [_, _, h, w] = check_pool(op, x, kernel, padding)?;
    let win = windows(
        op,
        x,
        kernel,
        stride,
        padding,
        T::from_f64(f64::NEG_INFINITY),
    )?;
    let k = win.try_argmax(&[-1], false)?;
    let (oh, ow) = (win.dims()[2], win.dims()[3]);
    // Window (i, j)'s element k is the input's (i·sh - ph + k / kw, j·sw - pw + k % kw).
    let dev = x.device_handle();
    let starts = |n: usize, step: usize, pad: usize| -> Vec<i64> {
        (0..n).map(|i| (i * step) as i64 - pad as i64).collect()
    };
    let (rows, cols) = (
        starts(oh, stride.0, padding.0),
        starts(ow, stride.1, padding.1),
    );
    let kw = kernel.1 as i64;
    let row = k
        .try_floor_divide_scalar(kw)?
        .try_add(&Tensor::from_vec_on(rows.clone(), [oh, 1], dev)?)?;
    let col =
        k.try_remainder_scalar(kw)?
            .try_add(&Tensor::from_vec_on(cols.clone(), [1, ow], dev)?)?;
    let index = row.try_mul_scalar(w as i64)?.try_add(&col)?;
    if padding == (0, 0) {
        return Ok(index);
    }
    // A padding position wins only where every input element of the window is -inf (padding
    // is at most half the kernel, so each window has input elements); PyTorch then names the
    // window's first input element.
    let first: Vec<i64> = rows
        .iter()
        .flat_map(|&r| cols.iter().map(move |&c| r.max(0) * w as i64 + c.max(0)))
        .collect();
    let padded = row
        .try_lt_scalar(0)?
        .try_logical_or(&row.try_ge_scalar(h as i64)?)?
        .try_logical_or(&col.try_lt_scalar(0)?)?
        .try_logical_or(&col.try_ge_scalar(w as i64)?)?;
    Tensor::try_where(&padded, &Tensor::from_vec_on(first, [oh, ow], dev)?, &index)
}

/// The inverse of [`max_pool2d_with_indices`] (PyTorch `max_unpool2d`): zeros of shape
/// `(N, C, H, W)` = `output_size`, with each value of `x` `(N, C, oh, ow)` written at its
/// index into the flattened `(H, W)` plane. Differentiable in `x`.
///
/// # Errors
/// `InvalidArgument` unless `x` is 4-d and `indices` has its shape; `Index` for an index
/// outside `0..H·W`; `ShapeOverflow` for a huge output.
pub fn max_unpool2d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    indices: &Tensor<i64, D>,
    output_size: (usize, usize),
) -> Result<Tensor<T, D>> {
    const OP: &str = "max_unpool2d";
    let [n, c, oh, ow] = x.dims()[..] else {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!("expects an (N, C, oh, ow) input, got {}", x.shape()),
        });
    };
    check_indices(OP, x, indices)?;
    let (h, w) = output_size;
    let plane = h.checked_mul(w).ok_or_else(|| Error::ShapeOverflow {
        op: OP,
        dims: vec![n, c, h, w],
    })?;
    super::check_range(
        OP,
        indices,
        plane,
        2,
        &crate::shape::Shape::new(vec![n, c, h, w]),
    )?;
    // Checked: an empty input may have planes too large to count.
    let input_plane = oh.checked_mul(ow).ok_or_else(|| Error::ShapeOverflow {
        op: OP,
        dims: vec![n, c, oh, ow],
    })?;
    let (idx, src) = (
        indices.try_reshape([n, c, input_plane])?,
        x.try_reshape([n, c, input_plane])?,
    );
    let zeros = Tensor::<T, D>::zeros_on([n, c, plane], x.device_handle())?;
    let mut out = zeros.try_scatter(-1, &idx, &src.detach())?;
    if crate::autograd::recording(&[x]) {
        // PyTorch's gradient is a gather at the indices: every value gets the gradient of its
        // target, even when overlapping windows picked one element twice (the scatter's rule
        // would give it to the last write only). `scatter_add` has that rule; its value is
        // taken back out, leaving the scatter's.
        let added = zeros.try_scatter_add(-1, &idx, &src)?;
        // `added - added` is exactly 0 where finite, so the values stay the scatter's bit for
        // bit (an infinite value keeps its value, without this gradient path).
        let zero = added.try_sub(&added.detach())?;
        let finite = added.detach().try_is_finite()?;
        out = out.try_add(&Tensor::try_where(&finite, &zero, &zeros)?)?;
    }
    out.try_reshape([n, c, h, w])
}

/// The unpooling indices' shape must be the input's.
pub(super) fn check_indices<T: FloatElement, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    indices: &Tensor<i64, D>,
) -> Result<()> {
    if indices.dims() == x.dims() {
        return Ok(());
    }
    Err(Error::InvalidArgument {
        op,
        msg: format!(
            "the indices' shape {} must be the input's {}",
            indices.shape(),
            x.shape()
        ),
    })
}

/// The `(out, len)` windows of an adaptive pooling axis: window `i` covers
/// `floor(i·len/out) .. ceil((i+1)·len/out)`, as `(out, L)` indices with `L` the widest window,
/// a shorter window repeating its last index (a repeat changes no maximum).
fn adaptive_index<D: Backend>(
    op: &'static str,
    out: usize,
    len: usize,
    dev: &D,
) -> Result<(Tensor<i64, D>, usize)> {
    if out == 0 || len == 0 {
        return Err(Error::InvalidArgument {
            op,
            msg: format!("cannot pool an axis of {len} into {out}"),
        });
    }
    let overflow = || Error::ShapeOverflow {
        op,
        dims: vec![out, len],
    };
    // `i·len` below stays in range; a window spans at most ceil(len / out) + 1 elements, and a
    // wider slot only repeats, so the bound serves without visiting every window (`out` may be
    // huge: the index's allocation refuses it).
    out.checked_mul(len).ok_or_else(overflow)?;
    let widest = len.min(len.div_ceil(out) + 1);
    let size = out.checked_mul(widest).ok_or_else(overflow)?;
    let span = |i: usize| (i * len / out, ((i + 1) * len).div_ceil(out));
    let index = crate::alloc::collect(
        op,
        size,
        (0..out).flat_map(|i| {
            let (a, b) = span(i);
            (0..widest).map(move |k| (a + k).min(b - 1) as i64)
        }),
    )?;
    Ok((Tensor::from_vec_on(index, [size], dev)?, widest))
}

/// The maximum over adaptive windows giving an `output_size` of `(oh, ow)` (PyTorch
/// `adaptive_max_pool2d`): `(N, C, H, W)` in, `(N, C, oh, ow)` out; window `i` of an axis of
/// length `len` covers `floor(i·len/out) .. ceil((i+1)·len/out)`.
///
/// # Errors
/// `InvalidArgument` for a non-4-d input or a zero output or input axis (PyTorch refuses
/// them); `OutOfMemory` for huge windows.
pub fn adaptive_max_pool2d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    output_size: (usize, usize),
) -> Result<Tensor<T, D>> {
    Ok(adaptive_max_pool2d_with_indices(x, output_size)?.0)
}

/// [`adaptive_max_pool2d`] with the position of each maximum (PyTorch
/// `adaptive_max_pool2d(return_indices=True)`): `(values, indices)`, both `(N, C, oh, ow)`,
/// the indices into each flattened input plane as [`max_pool2d_with_indices`]'s (ties: the
/// first maximum; NaN: the first NaN, where PyTorch picks the last).
///
/// # Errors
/// As [`adaptive_max_pool2d`].
pub fn adaptive_max_pool2d_with_indices<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    output_size: (usize, usize),
) -> Result<(Tensor<T, D>, Tensor<i64, D>)> {
    const OP: &str = "adaptive_max_pool2d";
    let [n, c, h, w] = x.dims()[..] else {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!("expects an (N, C, H, W) input, got {}", x.shape()),
        });
    };
    let (oh, ow) = output_size;
    let dev = x.device_handle();
    let (rows, lh) = adaptive_index(OP, oh, h, dev)?;
    let (cols, lw) = adaptive_index(OP, ow, w, dev)?;
    let index = crate::autograd::no_grad(|| {
        // (N, C, oh·lh, ow·lw) → (N, C, oh, lh, ow, lw) → (N, C, oh, ow, lh·lw).
        let win = x
            .try_index_select(2, &rows)?
            .try_index_select(3, &cols)?
            .try_reshape([n, c, oh, lh, ow, lw])?
            .permute(&[0, 1, 2, 4, 3, 5])?
            .try_reshape([n, c, oh, ow, lh * lw])?;
        let k = win.try_argmax(&[-1], false)?;
        // Window (i, j)'s element k is the input's (rows[i·lh + k / lw], cols[j·lw + k % lw]).
        let at = |table: &Tensor<i64, D>, k: Tensor<i64, D>, step: usize, dims: [usize; 2]| {
            let base = Tensor::<i64, D>::arange_on(0, dims[0].max(dims[1]) as i64, 1, dev)?
                .try_mul_scalar(step as i64)?
                .try_reshape(dims)?;
            let pos = k.try_add(&base)?;
            table
                .try_index_select(0, &pos.try_reshape([pos.numel()])?)?
                .try_reshape(pos.dims())
        };
        let row = at(&rows, k.try_floor_divide_scalar(lw as i64)?, lh, [oh, 1])?;
        let col = at(&cols, k.try_remainder_scalar(lw as i64)?, lw, [1, ow])?;
        row.try_mul_scalar(w as i64)?.try_add(&col)
    })?;
    Ok((gather_planes(x, &index)?, index))
}

/// The power-average pool of an `(N, C, H, W)` input (PyTorch `lp_pool2d`, no padding):
/// `(Σ_window x^p)^(1/p)`, computed as PyTorch does, `(sign(a)·relu(|a|)·kh·kw)^(1/p)` with `a`
/// the window means of `x^p` (so a window of negative values with an odd `p` gives NaN there
/// too, and the gradient at a zero sum is PyTorch's).
///
/// # Errors
/// As [`avg_pool2d`](super::avg_pool2d).
pub fn lp_pool2d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    norm_type: f64,
    kernel: (usize, usize),
    stride: (usize, usize),
) -> Result<Tensor<T, D>> {
    let a = super::avg_pool2d(&x.try_pow(norm_type)?, kernel, stride, (0, 0))
        .map_err(|e| e.invalid_named("lp_pool2d"))?;
    lp_finish(&a, norm_type, kernel.0 * kernel.1)
}

/// [`lp_pool2d`] of an `(N, C, L)` input (PyTorch `lp_pool1d`).
///
/// # Errors
/// As [`avg_pool1d`](super::avg_pool1d).
pub fn lp_pool1d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    norm_type: f64,
    kernel: usize,
    stride: usize,
) -> Result<Tensor<T, D>> {
    let a = super::avg_pool1d(&x.try_pow(norm_type)?, kernel, stride, 0)
        .map_err(|e| e.invalid_named("lp_pool1d"))?;
    lp_finish(&a, norm_type, kernel)
}

/// `(sign(a)·relu(|a|)·count)^(1/p)`, PyTorch's last step of `lp_pool`.
pub(super) fn lp_finish<T: FloatElement, D: Backend>(
    a: &Tensor<T, D>,
    p: f64,
    count: usize,
) -> Result<Tensor<T, D>> {
    a.try_sign()?
        .try_mul(&a.try_abs()?.try_relu()?)?
        .try_mul_scalar(T::from_f64(count as f64))?
        .try_pow(1.0 / p)
}

/// [`adaptive_max_pool2d`] of an `(N, C, L)` input to `(N, C, out)` (PyTorch
/// `adaptive_max_pool1d`).
///
/// # Errors
/// As [`adaptive_max_pool2d`], for a non-3-d input too.
pub fn adaptive_max_pool1d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    output_size: usize,
) -> Result<Tensor<T, D>> {
    let x = super::conv::as_2d("adaptive_max_pool1d", x)?;
    adaptive_max_pool2d(&x, (1, output_size))
        .map_err(|e| e.invalid_named("adaptive_max_pool1d"))?
        .squeeze_dims(&[2])
}

/// [`adaptive_max_pool1d`] with the position of each maximum in `L` (PyTorch
/// `adaptive_max_pool1d(return_indices=True)`): values and indices `(N, C, out)`.
///
/// # Errors
/// As [`adaptive_max_pool1d`].
pub fn adaptive_max_pool1d_with_indices<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    output_size: usize,
) -> Result<(Tensor<T, D>, Tensor<i64, D>)> {
    const OP: &str = "adaptive_max_pool1d";
    let x = super::conv::as_2d(OP, x)?;
    let (y, at) =
        adaptive_max_pool2d_with_indices(&x, (1, output_size)).map_err(|e| e.invalid_named(OP))?;
    Ok((y.squeeze_dims(&[2])?, at.squeeze_dims(&[2])?))
}

/// [`adaptive_avg_pool2d`](super::adaptive_avg_pool2d) of an `(N, C, L)` input to
/// `(N, C, out)` (PyTorch `adaptive_avg_pool1d`).
///
/// # Errors
/// As [`adaptive_avg_pool2d`](super::adaptive_avg_pool2d), for a non-3-d input too.
pub fn adaptive_avg_pool1d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    output_size: usize,
) -> Result<Tensor<T, D>> {
    let x = super::conv::as_2d("adaptive_avg_pool1d", x)?;
    super::adaptive_avg_pool2d(&x, (1, output_size))
        .map_err(|e| e.invalid_named("adaptive_avg_pool1d"))?
        .squeeze_dims(&[2])
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;

    /// The CPU's window search and the composed form every other device runs agree on random
    /// planes full of ties, NaN and -inf, over kernels, strides and paddings.
    #[test]
    fn window_search_matches_the_composed_form() {
        let values = [
            0.0,
            1.0,
            1.0,
            -1.0,
            f64::NAN,
            f64::NEG_INFINITY,
            2.0,
            f64::INFINITY,
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for case in 0..200 {
            let (h, w) = (1 + next() as usize % 7, 1 + next() as usize % 7);
            let kernel = (
                1 + next() as usize % h.min(4),
                1 + next() as usize % w.min(4),
            );
            let stride = (1 + next() as usize % 3, 1 + next() as usize % 3);
            let padding = (
                next() as usize % (kernel.0 / 2 + 1),
                next() as usize % (kernel.1 / 2 + 1),
            );
            let data: Vec<f32> = (0..2 * 3 * h * w)
                .map(|_| values[next() as usize % values.len()] as f32)
                .collect();
            let x = Tensor::<f32>::from_vec(data, [2, 3, h, w]).unwrap();
            let op = "test";
            let got = super::window_index(op, &x, kernel, stride, padding).unwrap();
            let want = super::composed_index(op, &x, kernel, stride, padding).unwrap();
            assert_eq!(
                got.to_vec(),
                want.to_vec(),
                "case {case}: {h}x{w} kernel {kernel:?} stride {stride:?} padding {padding:?}"
            );
            // A strided view gives the same answer as its copy.
            let t = x.transpose(2, 3).unwrap();
            let got = super::window_index(op, &t, kernel, stride, padding).ok();
            let want = super::window_index(op, &t.contiguous(), kernel, stride, padding).ok();
            assert_eq!(got.map(|t| t.to_vec()), want.map(|t| t.to_vec()));
        }
        // A kernel and padding near usize::MAX (the fuzzer's overflow): one window, the row.
        let x = Tensor::<f32>::from_vec(vec![1.0, 4.0, 2.0], [1, 1, 1, 3]).unwrap();
        let (k, p) = (usize::MAX, usize::MAX / 2 - 1);
        let at = super::window_index("test", &x, (1, k), (1, 2), (0, p)).unwrap();
        assert_eq!(at.to_vec(), vec![1]);
    }
}
