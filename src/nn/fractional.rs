//! Fractional max pooling (PyTorch `F.fractional_max_pool2d`/`3d`, Graham 2014): windows of a
//! fixed size at pseudo-random, increasing starts chosen so that an `H × W` plane (a `T × H × W`
//! volume) pools to any smaller size. One sample per axis and plane places the windows, as PyTorch's
//! `generate_intervals`: `start[i] = ⌊(i + u)·α⌋ - ⌊u·α⌋` with `α = (in - k) / (out - 1)`, the
//! last window at `in - k`. The window maxima are found on the host (a NaN wins, as in
//! PyTorch), and the values gathered on the device, so the gradient reaches each window's
//! maximum through one scatter.

use super::pool::gather_planes;
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// The output size of [`fractional_max_pool2d`] (and, with three values, of
/// [`fractional_max_pool3d`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FractionalSize {
    /// `(oh, ow)`.
    Size(usize, usize),
    /// `(rh, rw)` in `(0, 1)`: `oh = ⌊H·rh⌋`, `ow = ⌊W·rw⌋` (PyTorch's `output_ratio`).
    Ratio(f64, f64),
}

/// The output size of [`fractional_max_pool3d`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FractionalSize3d {
    /// `(ot, oh, ow)`.
    Size(usize, usize, usize),
    /// `(rt, rh, rw)` in `(0, 1)`: each output size `⌊input·ratio⌋` (PyTorch's `output_ratio`).
    Ratio(f64, f64, f64),
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
    let x4 = batched(OP, x, 4, "(N, C, H, W) or (C, H, W)")?;
    let (oh, ow) = match output {
        FractionalSize::Size(oh, ow) => (oh, ow),
        FractionalSize::Ratio(rh, rw) => {
            let [oh, ow] = ratio_size(OP, &x4.dims()[2..], [rh, rw])?;
            (oh, ow)
        }
    };
    let x5 = x4.unsqueeze(2)?;
    // The 2-d samples place the columns with index 0 and the rows with 1 (PyTorch's order).
    let index = windows(
        OP,
        &x5,
        [1, kernel.0, kernel.1],
        [1, oh, ow],
        random_samples,
        [None, Some(1), Some(0)],
    )?;
    let index = index.squeeze_dims(&[2])?;
    let values = gather_planes(&x4, &index)?;
    unbatch(x.ndim() == 3, values, index)
}

/// Fractional max pooling of `x` `(N, C, T, H, W)` or `(C, T, H, W)` with `kernel` `(kt, kh,
/// kw)` windows to `output` (PyTorch `F.fractional_max_pool3d`): the maxima `(N, C, ot, oh,
/// ow)` and their flat indices into each `T × H × W` volume (Int64, PyTorch's
/// `return_indices`). `random_samples` `(N, C, 3)` (`(1, C, 3)` for a 4-d input; indices 0, 1
/// and 2 place the windows along `T`, `H` and `W`, values in `[0, 1)`) fixes the windows;
/// `None` draws them from the global generator. Differentiable in `x`.
///
/// ```
/// use typed_tensor::nn::{FractionalSize3d, fractional_max_pool3d};
/// use typed_tensor::prelude::*;
/// let x = Tensor::<f64>::arange(0.0, 64.0, 1.0)?.try_reshape([1, 1, 4, 4, 4])?;
/// let u = Tensor::<f64>::from_vec(vec![0.5, 0.5, 0.5], [1, 1, 3])?;
/// let (y, i) = fractional_max_pool3d(&x, (3, 3, 3), FractionalSize3d::Size(2, 2, 1), Some(&u))?;
/// // starts 0 and 1 along T and H, 1 along W; each maximum is its window's far corner
/// assert_eq!(y.to_vec(), vec![43.0, 47.0, 59.0, 63.0]);
/// assert_eq!(i.to_vec(), vec![43, 47, 59, 63]);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// As [`fractional_max_pool2d`], for a 4-d or 5-d input and `(N, C, 3)` samples.
pub fn fractional_max_pool3d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    kernel: (usize, usize, usize),
    output: FractionalSize3d,
    random_samples: Option<&Tensor<T, D>>,
) -> Result<(Tensor<T, D>, Tensor<i64, D>)> {
    const OP: &str = "fractional_max_pool3d";
    let x5 = batched(OP, x, 5, "(N, C, T, H, W) or (C, T, H, W)")?;
    let out = match output {
        FractionalSize3d::Size(ot, oh, ow) => [ot, oh, ow],
        FractionalSize3d::Ratio(rt, rh, rw) => ratio_size(OP, &x5.dims()[2..], [rt, rh, rw])?,
    };
    let kernel = [kernel.0, kernel.1, kernel.2];
    let index = windows(
        OP,
        &x5,
        kernel,
        out,
        random_samples,
        [Some(0), Some(1), Some(2)],
    )?;
    let [n, c, t, h, w] = [0, 1, 2, 3, 4].map(|i| x5.dims()[i]);
    let [ot, oh, ow] = out;
    // Volumes flattened to planes of `H·W`: the indices already count from each volume's start.
    let hw = h
        .checked_mul(w)
        .ok_or_else(|| bad(OP, "H·W overflows".into()))?;
    let ohw = oh
        .checked_mul(ow)
        .ok_or_else(|| bad(OP, "the output overflows".into()))?;
    let values = gather_planes(
        &x5.try_reshape([n, c, t, hw])?,
        &index.try_reshape([n, c, ot, ohw])?,
    )?
    .try_reshape([n, c, ot, oh, ow])?;
    unbatch(x.ndim() == 4, values, index)
}

fn bad(op: &'static str, msg: String) -> Error {
    Error::InvalidArgument { op, msg }
}

/// `x` with a batch axis: `x` itself when it has `dims` axes, `x` unsqueezed with one fewer.
fn batched<T: FloatElement, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    dims: usize,
    shapes: &str,
) -> Result<Tensor<T, D>> {
    match x.ndim() {
        d if d == dims => Ok(x.clone()),
        d if d + 1 == dims => x.unsqueeze(0),
        _ => Err(bad(
            op,
            format!("needs an {shapes} input, got {}", x.shape()),
        )),
    }
}

/// The results without the batch axis [`batched`] added.
fn unbatch<T: FloatElement, D: Backend>(
    added: bool,
    values: Tensor<T, D>,
    index: Tensor<i64, D>,
) -> Result<(Tensor<T, D>, Tensor<i64, D>)> {
    match added {
        true => Ok((values.squeeze_dims(&[0])?, index.squeeze_dims(&[0])?)),
        false => Ok((values, index)),
    }
}

/// The output sizes `⌊len·ratio⌋` for `ratios` in `(0, 1)` (PyTorch's `output_ratio`).
fn ratio_size<const K: usize>(
    op: &'static str,
    lens: &[usize],
    ratios: [f64; K],
) -> Result<[usize; K]> {
    if !ratios.iter().all(|&r| r > 0.0 && r < 1.0) {
        return Err(bad(
            op,
            format!("output_ratio must be in (0, 1), got {ratios:?}"),
        ));
    }
    Ok(std::array::from_fn(|i| {
        (lens[i] as f64 * ratios[i]) as usize
    }))
}

/// Each window's maximum in `x5` `(N, C, T, H, W)`: flat indices into each `T × H × W` volume,
/// `(N, C, ot, oh, ow)`. Axis `a`'s windows are placed by sample `sample_of[a]` of each plane
/// (none: one window along an axis of one output).
fn windows<T: FloatElement, D: Backend>(
    op: &'static str,
    x5: &Tensor<T, D>,
    kernel: [usize; 3],
    out: [usize; 3],
    random_samples: Option<&Tensor<T, D>>,
    sample_of: [Option<usize>; 3],
) -> Result<Tensor<i64, D>> {
    let [n, c, t, h, w] = [0, 1, 2, 3, 4].map(|i| x5.dims()[i]);
    let lens = [t, h, w];
    if kernel.contains(&0) {
        return Err(bad(
            op,
            format!("the kernel must be positive, got {kernel:?}"),
        ));
    }
    let names = ["time", "height", "width"];
    for a in 0..3 {
        let (out, k, len) = (out[a], kernel[a], lens[a]);
        if out.checked_add(k - 1).is_none_or(|need| need > len) {
            let axis = names[a];
            return Err(bad(
                op,
                format!(
                    "pool {axis} {k} too large relative to input {axis} {len} for {out} outputs (needs output + kernel - 1 <= input)"
                ),
            ));
        }
    }
    let planes = n
        .checked_mul(c)
        .ok_or_else(|| bad(op, "N·C overflows".into()))?;
    let per = sample_of.iter().flatten().count();
    let drawn;
    let samples = match random_samples {
        Some(s) => {
            if s.dims() != [n, c, per] {
                return Err(bad(
                    op,
                    format!(
                        "random_samples must be ({n}, {c}, {per}), got {}",
                        s.shape()
                    ),
                ));
            }
            crate::ops::device_ops::same_device(op, x5, s)?;
            s
        }
        None => {
            drawn = Tensor::<T, D>::rand_on([n, c, per], x5.device_handle())?;
            &drawn
        }
    };
    let count = (out.iter().try_fold(planes, |p, &o| p.checked_mul(o)))
        .ok_or_else(|| bad(op, "the output overflows".into()))?;
    let mut index = crate::alloc::with_capacity(op, count)?;
    if count > 0 {
        // Every window fits, so the volumes are not empty and `T·H·W` fits in memory.
        let u = D::to_host(samples)?.try_cast::<f64>()?.try_to_vec()?;
        let vals = D::to_host(x5)?.try_cast::<f64>()?.try_to_vec()?;
        let vol = t * h * w;
        for p in 0..planes {
            let volume = &vals[p * vol..(p + 1) * vol];
            let [ts, hs, ws] = std::array::from_fn(|a| {
                let s = sample_of[a].map_or(0.0, |i| u[per * p + i]);
                starts::<T>(s, lens[a], out[a], kernel[a])
            });
            for &t0 in &ts {
                for &h0 in &hs {
                    for &w0 in &ws {
                        let (mut best, mut at) = (f64::NEG_INFINITY, (t0 * h + h0) * w + w0);
                        for i in t0..t0 + kernel[0] {
                            for j in h0..h0 + kernel[1] {
                                for k in w0..w0 + kernel[2] {
                                    let flat = (i * h + j) * w + k;
                                    let v = volume[flat];
                                    if v > best || v.is_nan() {
                                        (best, at) = (v, flat);
                                    }
                                }
                            }
                        }
                        index.push(at as i64);
                    }
                }
            }
        }
    }
    let mut dims = vec![n, c];
    dims.extend(out);
    Tensor::<i64, D>::from_vec_on(index, dims, x5.device_handle())
}
