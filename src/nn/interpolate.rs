//! `interpolate` (PyTorch `nn.functional.interpolate` with an output size) for 1-, 2- and
//! 3-d spatial inputs: `(N, C, L)`, `(N, C, H, W)` and `(N, C, D, H, W)`. Every mode is
//! separable, so each spatial axis is resized in turn: nearest and nearest-exact pick one
//! index (`index_select`), linear, bilinear and trilinear blend two, bicubic four (PyTorch's
//! cubic convolution, `A = -0.75`, taps clamped at the border), and area averages each
//! output cell's window (PyTorch's `mode="area"`, adaptive average pooling) through one
//! `matmul` with an averaging matrix. Composed of differentiable ops, so it runs and
//! differentiates on every device.
//!
//! ```
//! use typed_tensor::prelude::*;
//! use typed_tensor::nn::{self, Interpolation};
//!
//! let x = Tensor::<f64>::from_vec(vec![0.0, 1.0, 2.0, 3.0], [1, 1, 4])?;
//! let half = nn::interpolate1d(&x, 2, Interpolation::Area)?;
//! assert_eq!(half.to_vec(), vec![0.5, 2.5]);
//! let lin = nn::interpolate1d(&x, 7, Interpolation::Linear { align_corners: true })?;
//! assert_eq!(lin.to_vec(), vec![0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// How [`interpolate`] computes each output element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// The input element at `floor(i · in / out)` (PyTorch `mode="nearest"`).
    Nearest,
    /// The input element at `floor((i + 0.5) · in / out)` (PyTorch `mode="nearest-exact"`,
    /// which matches scikit-image and PIL).
    NearestExact,
    /// The blend of the two neighbours along the one spatial axis of an `(N, C, L)` input
    /// (PyTorch `mode="linear"`).
    Linear {
        /// PyTorch's `align_corners`.
        align_corners: bool,
    },
    /// The bilinear blend of the four neighbours (PyTorch `mode="bilinear"`); with
    /// `align_corners` the corner pixels' centres line up, otherwise their outer edges.
    Bilinear {
        /// PyTorch's `align_corners`.
        align_corners: bool,
    },
    /// The cubic convolution of the 4 × 4 neighbours (PyTorch `mode="bicubic"`, `A = -0.75`;
    /// it may overshoot the input's range, as there).
    Bicubic {
        /// PyTorch's `align_corners`.
        align_corners: bool,
    },
    /// The trilinear blend of the eight neighbours of an `(N, C, D, H, W)` input (PyTorch
    /// `mode="trilinear"`).
    Trilinear {
        /// PyTorch's `align_corners`.
        align_corners: bool,
    },
    /// The mean of each output cell's window (PyTorch `mode="area"`, which is adaptive
    /// average pooling).
    Area,
}

impl Interpolation {
    /// The number of spatial axes the mode needs, `None` for any (PyTorch's rule).
    fn spatial(self) -> Option<usize> {
        match self {
            Interpolation::Linear { .. } => Some(1),
            Interpolation::Bilinear { .. } | Interpolation::Bicubic { .. } => Some(2),
            Interpolation::Trilinear { .. } => Some(3),
            _ => None,
        }
    }
}

/// Resizes the two spatial axes of an `(N, C, H, W)` input to `size` (PyTorch `interpolate`
/// with an output size), by PyTorch's index rules: nearest takes `min(floor(i · in/out),
/// in - 1)` (the scale rounded to f32, as PyTorch does), nearest-exact
/// `min(floor((i + 0.5) · in/out), in - 1)`; bilinear samples at `(i + 0.5)·in/out - 0.5`
/// clamped at 0 (or `i·(in - 1)/(out - 1)` with `align_corners`), bicubic at the same point
/// unclamped. Differentiable.
///
/// # Errors
/// `InvalidArgument` for an input that is not 4-d, a mode for another rank (`Linear`,
/// `Trilinear`), or an empty spatial axis in the input or the output size (as PyTorch);
/// `OutOfMemory` when the index tables of a huge size cannot be allocated.
pub fn interpolate<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    size: (usize, usize),
    mode: Interpolation,
) -> Result<Tensor<T, D>> {
    resize(x, &[size.0, size.1], None, mode)
}

/// [`interpolate`] for an `(N, C, L)` input: `Nearest`, `NearestExact`, `Linear` or `Area`.
///
/// # Errors
/// As [`interpolate`], for a 3-d input.
pub fn interpolate1d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    size: usize,
    mode: Interpolation,
) -> Result<Tensor<T, D>> {
    resize(x, &[size], None, mode)
}

/// [`interpolate`] for an `(N, C, D, H, W)` input: `Nearest`, `NearestExact`, `Trilinear`
/// or `Area`.
///
/// # Errors
/// As [`interpolate`], for a 5-d input.
pub fn interpolate3d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    size: (usize, usize, usize),
    mode: Interpolation,
) -> Result<Tensor<T, D>> {
    resize(x, &[size.0, size.1, size.2], None, mode)
}

/// The mean over each of `size` adaptive windows of the three spatial axes of an
/// `(N, C, D, H, W)` input (PyTorch `adaptive_avg_pool3d`): [`interpolate3d`] in `Area` mode.
///
/// # Errors
/// As [`interpolate3d`].
pub fn adaptive_avg_pool3d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    size: (usize, usize, usize),
) -> Result<Tensor<T, D>> {
    interpolate3d(x, size, Interpolation::Area).map_err(|e| e.invalid_named("adaptive_avg_pool3d"))
}

/// Resizes the spatial axes (all after the first two) of an `(N, C, L)`, `(N, C, H, W)` or
/// `(N, C, D, H, W)` input by `scales`, one per spatial axis (PyTorch `interpolate` with
/// `scale_factor`, `recompute_scale_factor=None`): each output size is `floor(in · scale)`,
/// and, as in PyTorch, the source coordinates use `1 / scale` itself rather than `in / out`
/// (the two differ when `in · scale` is not an integer; `align_corners` and `Area` use the
/// sizes). Differentiable.
///
/// ```
/// use typed_tensor::nn::{Interpolation, interpolate_scale};
/// use typed_tensor::prelude::*;
/// let x = Tensor::<f32>::arange(0.0, 3.0, 1.0)?.try_reshape([1, 1, 3])?;
/// let y = interpolate_scale(&x, &[1.2], Interpolation::Nearest)?; // 3 · 1.2 → 3 samples
/// assert_eq!(y.to_vec(), vec![0.0, 0.0, 1.0]); // floor(i / 1.2), not the identity
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// As [`interpolate`]; `InvalidArgument` for a scale that is not finite and positive, or one
/// per spatial axis, or an output size of 0 or over `usize::MAX`.
pub fn interpolate_scale<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    scales: &[f64],
    mode: Interpolation,
) -> Result<Tensor<T, D>> {
    let spatial = x.dims().get(2..).unwrap_or(&[]);
    let bad = scales.iter().any(|s| !s.is_finite() || *s <= 0.0);
    let sizes: Option<Vec<usize>> = (!bad && spatial.len() == scales.len()).then(|| {
        let out = spatial
            .iter()
            .zip(scales)
            .map(|(&n, &s)| (n as f64 * s).floor());
        out.map(|o| {
            if o < usize::MAX as f64 {
                o as usize
            } else {
                usize::MAX
            }
        })
        .collect()
    });
    match sizes {
        Some(sizes) if !sizes.contains(&usize::MAX) => resize(x, &sizes, Some(scales), mode),
        _ => Err(Error::InvalidArgument {
            op: "interpolate",
            msg: format!(
                "needs one finite, positive scale per spatial axis of {} (axes after the first two) with a representable output size, got {scales:?}",
                x.shape()
            ),
        }),
    }
}

/// Nearest-neighbour upsampling of the two spatial axes by `scale` (PyTorch's deprecated
/// `upsample_nearest` with `scale_factor`): [`interpolate_scale`] in `Nearest` mode.
///
/// # Errors
/// As [`interpolate_scale`].
pub fn upsample_nearest<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    scale: f64,
) -> Result<Tensor<T, D>> {
    interpolate_scale(x, &[scale, scale], Interpolation::Nearest)
        .map_err(|e| e.invalid_named("upsample_nearest"))
}

/// Bilinear upsampling of the two spatial axes by `scale` with the corners aligned (PyTorch's
/// deprecated `upsample_bilinear`, which passes `align_corners=True`).
///
/// # Errors
/// As [`interpolate_scale`].
pub fn upsample_bilinear<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    scale: f64,
) -> Result<Tensor<T, D>> {
    let mode = Interpolation::Bilinear {
        align_corners: true,
    };
    interpolate_scale(x, &[scale, scale], mode).map_err(|e| e.invalid_named("upsample_bilinear"))
}

/// `x`'s spatial axes (all after the first two) resized to `sizes`, with PyTorch's
/// `scale_factor`s when given (the source coordinates then use `1 / scale`).
fn resize<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    sizes: &[usize],
    scales: Option<&[f64]>,
    mode: Interpolation,
) -> Result<Tensor<T, D>> {
    let op = "interpolate";
    let k = sizes.len();
    if x.ndim() != k + 2 || mode.spatial().is_some_and(|m| m != k) {
        let names = ["(N, C, L)", "(N, C, H, W)", "(N, C, D, H, W)"];
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "{mode:?} with {k} output size(s) expects an {} input, got {}",
                names[k - 1],
                x.shape()
            ),
        });
    }
    let spatial = &x.dims()[2..];
    if spatial.contains(&0) || sizes.contains(&0) {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "input {} and output size {sizes:?} must have non-empty spatial axes (PyTorch's rule)",
                x.shape()
            ),
        });
    }
    if x.numel() == 0 {
        // No samples or channels: an empty result of the output's shape, still a view of `x`.
        let dims: Vec<usize> = x.dims()[..2].iter().chain(sizes).copied().collect();
        return x.try_reshape(dims);
    }
    let mut y = x.clone();
    for (i, &out) in sizes.iter().enumerate() {
        let scale = scales.map(|s| s[i]);
        y = resize_axis(op, &y, (i + 2, k), spatial[i], out, scale, mode)?;
    }
    Ok(y)
}

/// PyTorch's source coordinate of output index `i` (`area_pixel_compute_source_index`):
/// the linear modes clamp it at 0, the cubic one does not; a `scale_factor` replaces
/// `out / len` unless the corners are aligned.
fn source(
    i: usize,
    len: usize,
    out: usize,
    align_corners: bool,
    cubic: bool,
    scale: Option<f64>,
) -> f64 {
    if align_corners {
        return if out > 1 {
            i as f64 * (len - 1) as f64 / (out - 1) as f64
        } else {
            0.0
        };
    }
    let ratio = scale.map_or(len as f64 / out as f64, |s| 1.0 / s);
    let src = (i as f64 + 0.5) * ratio - 0.5;
    if cubic { src } else { src.max(0.0) }
}

/// The weighted sum `Σ_k w_k · x[.., idx_k, ..]` along `axis`, the taps given per output
/// index.
fn blend<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    axis: usize,
    taps: Vec<(Vec<i64>, Vec<T>)>,
) -> Result<Tensor<T, D>> {
    let dev = x.device_handle();
    let mut total: Option<Tensor<T, D>> = None;
    for (idx, w) in taps {
        let out = idx.len();
        let mut along = vec![1; x.ndim()];
        along[axis] = out;
        let picked = x.try_index_select(
            axis as i64,
            &Tensor::<i64, D>::from_vec_on(idx, [out], dev)?,
        )?;
        let term = picked.try_mul(&Tensor::<T, D>::from_vec_on(w, along, dev)?)?;
        total = Some(match total {
            None => term,
            Some(t) => t.try_add(&term)?,
        });
    }
    Ok(total.expect("at least one tap"))
}

/// `x` resized along `axis` (one of `k` spatial axes) from `len` to `out`.
fn resize_axis<T: FloatElement, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    (axis, k): (usize, usize),
    len: usize,
    out: usize,
    scale: Option<f64>,
    mode: Interpolation,
) -> Result<Tensor<T, D>> {
    // PyTorch's kernels keep an axis whose size does not change whatever its scale in the
    // linear modes and in 2-d nearest (`nearest_idx`), which also halves the index at exactly
    // twice the size; the other modes follow the scale.
    let linear = matches!(
        mode,
        Interpolation::Linear { .. }
            | Interpolation::Bilinear { .. }
            | Interpolation::Trilinear { .. }
    );
    let nearest_2d = mode == Interpolation::Nearest && k == 2;
    if out == len && (scale.is_none_or(|s| s == 1.0) || linear || nearest_2d) {
        return Ok(x.clone());
    }
    let dev = x.device_handle();
    let a = axis as i64;
    let nearest = |exact: bool| -> Result<Tensor<T, D>> {
        let scale = scale.map_or(len as f32 / out as f32, |s| (1.0 / s) as f32);
        let shift = if exact { 0.5 } else { 0.0 };
        let halve = nearest_2d && Some(out) == len.checked_mul(2);
        let src = (0..out).map(|i| {
            let at = if halve {
                i >> 1
            } else {
                ((i as f32 + shift) * scale).floor() as usize
            };
            at.min(len - 1) as i64
        });
        let index = crate::alloc::collect(op, out, src)?;
        x.try_index_select(a, &Tensor::<i64, D>::from_vec_on(index, [out], dev)?)
    };
    match mode {
        Interpolation::Nearest => nearest(false),
        Interpolation::NearestExact => nearest(true),
        Interpolation::Linear { align_corners }
        | Interpolation::Bilinear { align_corners }
        | Interpolation::Trilinear { align_corners } => {
            let mut lo = (
                crate::alloc::with_capacity(op, out)?,
                crate::alloc::with_capacity(op, out)?,
            );
            let mut hi = (
                crate::alloc::with_capacity(op, out)?,
                crate::alloc::with_capacity(op, out)?,
            );
            for i in 0..out {
                let src = source(i, len, out, align_corners, false, scale);
                let i0 = (src as usize).min(len - 1);
                let t = src - i0 as f64;
                lo.0.push(i0 as i64);
                lo.1.push(T::from_f64(1.0 - t));
                hi.0.push((i0 + 1).min(len - 1) as i64);
                hi.1.push(T::from_f64(t));
            }
            blend(x, axis, vec![lo, hi])
        }
        Interpolation::Bicubic { align_corners } => {
            const A: f64 = -0.75;
            let near = |t: f64| ((A + 2.0) * t - (A + 3.0)) * t * t + 1.0;
            let far = |t: f64| ((A * t - 5.0 * A) * t + 8.0 * A) * t - 4.0 * A;
            let mut taps: Vec<(Vec<i64>, Vec<T>)> = Vec::with_capacity(4);
            for _ in 0..4 {
                taps.push((
                    crate::alloc::with_capacity(op, out)?,
                    crate::alloc::with_capacity(op, out)?,
                ));
            }
            for i in 0..out {
                let src = source(i, len, out, align_corners, true, scale);
                let x0 = src.floor();
                let t = src - x0;
                let w = [far(t + 1.0), near(t), near(1.0 - t), far(2.0 - t)];
                for (k, tap) in taps.iter_mut().enumerate() {
                    let at = (x0 as i64 - 1 + k as i64).clamp(0, len as i64 - 1);
                    tap.0.push(at);
                    tap.1.push(T::from_f64(w[k]));
                }
            }
            blend(x, axis, taps)
        }
        Interpolation::Area => {
            // Output cell i averages [floor(i·len/out), ceil((i+1)·len/out)).
            let cells = out.checked_mul(len).ok_or_else(|| Error::InvalidArgument {
                op,
                msg: format!("an area resize from {len} to {out} is too large"),
            })?;
            let mut m = crate::alloc::collect(op, cells, std::iter::repeat_n(T::ZERO, cells))?;
            for i in 0..out {
                let start = (i as u128 * len as u128 / out as u128) as usize;
                let end = ((i as u128 + 1) * len as u128).div_ceil(out as u128) as usize;
                let w = T::from_f64(1.0 / (end - start) as f64);
                for j in start..end {
                    m[j * out + i] = w;
                }
            }
            let m = Tensor::<T, D>::from_vec_on(m, [len, out], dev)?;
            x.movedim(&[a], &[-1])?.try_matmul(&m)?.movedim(&[-1], &[a])
        }
    }
}
