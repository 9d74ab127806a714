//! Fractional max pooling (PyTorch `F.fractional_max_pool2d`, Graham 2014): windows of a fixed
//! size at pseudo-random, increasing starts chosen so that an `H × W` plane pools to any
//! smaller `oh × ow`. One sample pair per plane places the windows, as PyTorch's
//! `generate_intervals`: `start[i] = ⌊(i + u)·α⌋ - ⌊u·α⌋` with `α = (in - k) / (out - 1)`, the
//! last window at `in - k`. The window maxima are found on the host (a NaN wins, as in
//! PyTorch), and the values gathered on the device, so the gradient reaches each window's
//! maximum through one scatter.

use super::pool::gather_planes;
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// The output size of [`fractional_max_pool2d`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FractionalSize {
    /// `(oh, ow)`.
    Size(usize, usize),
    /// `(rh, rw)` in `(0, 1)`: `oh = ⌊H·rh⌋`, `ow = ⌊W·rw⌋` (PyTorch's `output_ratio`).
    Ratio(f64, f64),
}

/// `x` rounded to `T` (PyTorch computes the window starts in the input's dtype).
fn round<T: FloatElement>(x: f64) -> f64 {
    T::from_f64(x).to_f64()
}

/// The window starts along one axis for the sample `u` (PyTorch's `generate_intervals`, in
/// `T`'s precision), clamped to `[0, len - k]` so that samples outside `[0, 1)` stay inside.
fn starts<T: FloatElement>(u: f64, len: usize, out: usize, k: usize) -> Vec<usize> {
    let last = len - k;
    let mut s = vec![last; out];
    if out > 1 {
        let alpha = round::<T>(round::<T>(last as f64) / round::<T>((out - 1) as f64));
        let base = round::<T>(u * alpha).trunc();
        for (i, v) in s.iter_mut().enumerate().take(out - 1) {
            let at = round::<T>(round::<T>(i as f64 + u) * alpha).trunc() - base;
            *v = (at as i64).clamp(0, last as i64) as usize;
        }
    }
    s
}

/// Fractional max pooling of `x` `(N, C, H, W)` or `(C, H, W)` with `kernel` `(kh, kw)` windows
/// to `output`: the maxima `(N, C, oh, ow)` and their flat indices into each `H × W` plane
/// (Int64, PyTorch's `return_indices`). `random_samples` `(N, C, 2)` (`(1, C, 2)` for a 3-d
/// input; index 0 places the columns, 1 the rows, values in `[0, 1)`) fixes the windows;
/// `None` draws them from the global generator, as PyTorch's `_random_samples=None`.
/// Differentiable in `x`.
///
/// ```
/// use typed_tensor::nn::{FractionalSize, fractional_max_pool2d};
/// use typed_tensor::prelude::*;
/// let x = Tensor::<f32>::arange(0.0, 25.0, 1.0)?.try_reshape([1, 1, 5, 5])?;
/// let u = Tensor::<f32>::from_vec(vec![0.5, 0.5], [1, 1, 2])?;
/// let (y, i) = fractional_max_pool2d(&x, (2, 2), FractionalSize::Size(3, 3), Some(&u))?;
/// // α = 1.5: starts ⌊0.75⌋ - ⌊0.75⌋ = 0, ⌊2.25⌋ - 0 = 2, and 5 - 2 = 3 on both axes; each
/// // maximum is its window's bottom-right corner (PyTorch 2.15 gives the same)
/// assert_eq!(y.to_vec(), vec![6.0, 8.0, 9.0, 16.0, 18.0, 19.0, 21.0, 23.0, 24.0]);
/// assert_eq!(i.to_vec(), vec![6, 8, 9, 16, 18, 19, 21, 23, 24]);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `InvalidArgument` for an input that is not 3-d or 4-d, a zero kernel, a ratio outside
/// `(0, 1)`, windows that do not fit (`oh + kh - 1 > H`, as PyTorch), or samples not shaped
/// `(N, C, 2)`; `Device` across devices; allocation failure.
pub fn fractional_max_pool2d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    kernel: (usize, usize),
    output: FractionalSize,
    random_samples: Option<&Tensor<T, D>>,
) -> Result<(Tensor<T, D>, Tensor<i64, D>)> {
    const OP: &str = "fractional_max_pool2d";
    let bad = |msg: String| Error::InvalidArgument { op: OP, msg };
    let unbatched = x.ndim() == 3;
    if !(3..=4).contains(&x.ndim()) {
        return Err(bad(format!(
            "needs an (N, C, H, W) or (C, H, W) input, got {}",
            x.shape()
        )));
    }
    let x4 = if unbatched {
        x.unsqueeze(0)?
    } else {
        x.clone()
    };
    let [n, c, h, w] = [0, 1, 2, 3].map(|i| x4.dims()[i]);
    if kernel.0 == 0 || kernel.1 == 0 {
        return Err(bad(format!("the kernel must be positive, got {kernel:?}")));
    }
    let (oh, ow) = match output {
        FractionalSize::Size(oh, ow) => (oh, ow),
        FractionalSize::Ratio(rh, rw) => {
            if !(rh > 0.0 && rh < 1.0 && rw > 0.0 && rw < 1.0) {
                return Err(bad(format!(
                    "output_ratio must be in (0, 1), got ({rh}, {rw})"
                )));
            }
            ((h as f64 * rh) as usize, (w as f64 * rw) as usize)
        }
    };
    for (axis, out, k, len) in [("height", oh, kernel.0, h), ("width", ow, kernel.1, w)] {
        if out.checked_add(k - 1).is_none_or(|need| need > len) {
            return Err(bad(format!(
                "pool {axis} {k} too large relative to input {axis} {len} for {out} outputs (needs output + kernel - 1 <= input)"
            )));
        }
    }
    let planes = n
        .checked_mul(c)
        .ok_or_else(|| bad("N·C overflows".into()))?;
    let drawn;
    let samples = match random_samples {
        Some(s) => {
            if s.dims() != [n, c, 2] {
                return Err(bad(format!(
                    "random_samples must be ({n}, {c}, 2), got {}",
                    s.shape()
                )));
            }
            crate::ops::device_ops::same_device(OP, x, s)?;
            s
        }
        None => {
            drawn = Tensor::<T, D>::rand_on([n, c, 2], x.device_handle())?;
            &drawn
        }
    };
    let per_plane = oh
        .checked_mul(ow)
        .ok_or_else(|| bad("the output overflows".into()))?;
    let count = planes
        .checked_mul(per_plane)
        .ok_or_else(|| bad("the output overflows".into()))?;
    let mut index = crate::alloc::with_capacity(OP, count)?;
    if count > 0 {
        let u = D::to_host(samples)?.try_cast::<f64>()?.try_to_vec()?;
        let vals = D::to_host(&x4)?.try_cast::<f64>()?.try_to_vec()?;
        for p in 0..planes {
            let plane = &vals[p * h * w..(p + 1) * h * w];
            let rows = starts::<T>(u[2 * p + 1], h, oh, kernel.0);
            let cols = starts::<T>(u[2 * p], w, ow, kernel.1);
            for &r in &rows {
                for &c0 in &cols {
                    let (mut best, mut at) = (f64::NEG_INFINITY, r * w + c0);
                    for i in r..r + kernel.0 {
                        for j in c0..c0 + kernel.1 {
                            let v = plane[i * w + j];
                            if v > best || v.is_nan() {
                                (best, at) = (v, i * w + j);
                            }
                        }
                    }
                    index.push(at as i64);
                }
            }
        }
    }
    let index = Tensor::<i64, D>::from_vec_on(index, [n, c, oh, ow], x.device_handle())?;
    let values = gather_planes(&x4, &index)?;
    if unbatched {
        Ok((values.squeeze_dims(&[0])?, index.squeeze_dims(&[0])?))
    } else {
        Ok((values, index))
    }
}
