//! Spatial transformers (PyTorch `affine_grid` and `grid_sample`): sampling an image at
//! normalised coordinates, bilinear or nearest, with PyTorch's padding modes and
//! `align_corners` rule. The coordinates, corner indices and weights are tensor ops and the
//! corners are gathered, so gradients reach both the image and the grid on every device.

use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// How [`grid_sample`] interpolates (PyTorch's `mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridMode {
    /// The four neighbours, weighted by distance.
    Bilinear,
    /// The nearest pixel (halves round to even, as PyTorch's `nearbyint`); no gradient to the
    /// grid.
    Nearest,
}

/// What [`grid_sample`] reads outside the image (PyTorch's `padding_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridPadding {
    /// Zeros.
    Zeros,
    /// The nearest border pixel (coordinates clamped).
    Border,
    /// The image mirrored at its border (coordinates reflected, then clamped).
    Reflection,
}

/// The sampling grid of a batch of 2-d affine maps (PyTorch `affine_grid`): `theta` is
/// `(N, 2, 3)`, `size` the output's `(N, C, H, W)`; returns `(N, H, W, 2)` holding, for each
/// output pixel, `theta · (x, y, 1)` at its normalised position in `[-1, 1]` (pixel centres
/// when not `align_corners`, corner pixels at ±1 when `align_corners`).
///
/// # Errors
/// `InvalidArgument` when `theta` is not `(N, 2, 3)` with `size`'s `N`.
pub fn affine_grid<T: FloatElement, D: Backend>(
    theta: &Tensor<T, D>,
    size: [usize; 4],
    align_corners: bool,
) -> Result<Tensor<T, D>> {
    const OP: &str = "affine_grid";
    let [n, _, h, w] = size;
    if theta.dims() != [n, 2, 3] {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!(
                "theta must be (N, 2, 3) with N = {n}, got {}",
                theta.shape()
            ),
        });
    }
    let dev = theta.device_handle();
    // Normalised positions of `len` pixels.
    let axis = |len: usize| -> Result<Vec<f64>> {
        let at = |i: usize| {
            if align_corners {
                if len == 1 {
                    0.0
                } else {
                    -1.0 + 2.0 * i as f64 / (len - 1) as f64
                }
            } else {
                (2.0 * i as f64 + 1.0) / len as f64 - 1.0
            }
        };
        crate::alloc::collect(OP, len, (0..len).map(at))
    };
    let (xs, ys) = (axis(w)?, axis(h)?);
    let cells = h
        .checked_mul(w)
        .and_then(|c| c.checked_mul(3))
        .ok_or_else(|| Error::ShapeOverflow {
            op: OP,
            dims: size.to_vec(),
        })?;
    let base = crate::alloc::collect(
        OP,
        cells,
        ys.iter()
            .flat_map(|&y| xs.iter().flat_map(move |&x| [x, y, 1.0]))
            .map(T::from_f64),
    )?;
    // (H·W, 3) · θᵀ (N, 3, 2) → (N, H·W, 2).
    let base = Tensor::from_vec_on(base, [h * w, 3], dev)?;
    base.try_matmul(&theta.transpose(1, 2)?)?
        .try_reshape([n, h, w, 2])
}

/// `coord` in `[-1, 1]` to pixel units on an axis of `size` (PyTorch's
/// `grid_sampler_unnormalize`), then through the padding's rule.
fn source<T: FloatElement, D: Backend>(
    coord: &Tensor<T, D>,
    size: usize,
    padding: GridPadding,
    align_corners: bool,
) -> Result<Tensor<T, D>> {
    let c = |v: f64| T::from_f64(v);
    let s = size as f64;
    let x = if align_corners {
        coord
            .try_add_scalar(c(1.0))?
            .try_mul_scalar(c((s - 1.0) / 2.0))?
    } else {
        coord
            .try_add_scalar(c(1.0))?
            .try_mul_scalar(c(s))?
            .try_sub_scalar(c(1.0))?
            .try_div_scalar(c(2.0))?
    };
    let clip = |x: Tensor<T, D>| x.try_clip(c(0.0), c((s - 1.0).max(0.0)));
    match padding {
        GridPadding::Zeros => Ok(x),
        GridPadding::Border => clip(x),
        GridPadding::Reflection => {
            // PyTorch's `reflect_coordinates` over [low, high] (doubled bounds), then clamped.
            let (twice_low, twice_high) = if align_corners {
                (0.0, 2.0 * (s - 1.0))
            } else {
                (-1.0, 2.0 * s - 1.0)
            };
            if twice_low == twice_high {
                return x.try_mul_scalar(c(0.0));
            }
            let (min, span) = (twice_low / 2.0, (twice_high - twice_low) / 2.0);
            let dist = x.try_sub_scalar(c(min))?.try_abs()?;
            let extra = dist.try_fmod_scalar(c(span))?;
            let flips = dist.try_div_scalar(c(span))?.try_floor()?;
            let odd = flips.try_fmod_scalar(c(2.0))?.try_ne_scalar(c(0.0))?;
            let forward = extra.try_add_scalar(c(min))?;
            let back = extra.try_rsub_scalar(c(span + min))?;
            clip(Tensor::try_where(&odd, &back, &forward)?)
        }
    }
}

/// Samples `input` `(N, C, H, W)` at `grid` `(N, Ho, Wo, 2)` (each point `(x, y)` normalised
/// to `[-1, 1]`, x along W) (PyTorch `grid_sample`, 2-d): `(N, C, Ho, Wo)` out. Points outside
/// the image follow `padding`; `align_corners` puts ±1 at the corner pixels' centres rather
/// than at the image's edges. Differentiable in `input`, and in `grid` for `Bilinear`.
///
/// ```
/// use typed_tensor::prelude::*;
/// use typed_tensor::nn::{GridMode, GridPadding, affine_grid, grid_sample};
/// let img = Tensor::<f32>::arange(0.0, 16.0, 1.0)?.try_reshape([1, 1, 4, 4])?;
/// let identity = Tensor::<f32>::from_vec(vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0], [1, 2, 3])?;
/// let grid = affine_grid(&identity, [1, 1, 4, 4], false)?;
/// let out = grid_sample(&img, &grid, GridMode::Bilinear, GridPadding::Zeros, false)?;
/// assert!(out.all_close(&img, 1e-5, 1e-5));
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `InvalidArgument` unless `input` is 4-d and `grid` is `(N, Ho, Wo, 2)` with its `N`;
/// `Device` across devices.
pub fn grid_sample<T: FloatElement, D: Backend>(
    input: &Tensor<T, D>,
    grid: &Tensor<T, D>,
    mode: GridMode,
    padding: GridPadding,
    align_corners: bool,
) -> Result<Tensor<T, D>> {
    const OP: &str = "grid_sample";
    let (&[n, c, h, w], &[gn, ho, wo, two]) = (input.dims(), grid.dims()) else {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!(
                "needs an (N, C, H, W) input and an (N, Ho, Wo, 2) grid, got {} and {}",
                input.shape(),
                grid.shape()
            ),
        });
    };
    if gn != n || two != 2 {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!(
                "the grid must be (N, Ho, Wo, 2) with the input's N = {n}, got {}",
                grid.shape()
            ),
        });
    }
    crate::ops::device_ops::same_device(OP, input, grid)?;
    let pts = ho.checked_mul(wo).ok_or_else(|| Error::ShapeOverflow {
        op: OP,
        dims: grid.dims().to_vec(),
    })?;
    let plane = h.checked_mul(w).ok_or_else(|| Error::ShapeOverflow {
        op: OP,
        dims: input.dims().to_vec(),
    })?;
    // (N, Ho·Wo) coordinates in pixel units.
    let coord = |k: usize, size: usize| -> Result<Tensor<T, D>> {
        let g = grid.narrow(3, k, 1)?.try_reshape([n, pts])?;
        source(&g, size, padding, align_corners)
    };
    let (x, y) = (coord(0, w)?, coord(1, h)?);
    let flat = input.try_reshape([n, c, plane])?;
    // The values at integer pixels (xi, yi) (floats holding integers) times `weight`, and 0
    // outside the image: the weight is masked first, so a NaN or infinite coordinate (whose
    // weight is NaN) contributes nothing, nor any gradient, as PyTorch skips such corners.
    let zero = Tensor::<T, D>::zeros_on([], input.device_handle())?;
    let sample = |xi: &Tensor<T, D>,
                  yi: &Tensor<T, D>,
                  weight: Option<&Tensor<T, D>>|
     -> Result<Tensor<T, D>> {
        let lim = |v: usize| T::from_f64(v as f64 - 1.0);
        let inside = xi
            .try_ge_scalar(T::from_f64(0.0))?
            .try_logical_and(&xi.try_le_scalar(lim(w))?)?
            .try_logical_and(&yi.try_ge_scalar(T::from_f64(0.0))?)?
            .try_logical_and(&yi.try_le_scalar(lim(h))?)?;
        let cx = Tensor::try_where(&inside, xi, &zero)?;
        let cy = Tensor::try_where(&inside, yi, &zero)?;
        let at = cy
            .try_mul_scalar(T::from_f64(w as f64))?
            .try_add(&cx)?
            .try_cast::<i64>()?
            .unsqueeze(1)?
            .expand([n, c, pts])?;
        let v = flat.try_gather(2, &at)?;
        let inside = inside.unsqueeze(1)?;
        let v = match weight {
            Some(wt) => v.try_mul(
                &Tensor::try_where(&inside.squeeze_dims(&[1])?, wt, &zero)?.unsqueeze(1)?,
            )?,
            None => v,
        };
        Tensor::try_where(&inside, &v, &zero)
    };
    let out = match mode {
        GridMode::Nearest => sample(&x.detach().try_round()?, &y.detach().try_round()?, None)?,
        GridMode::Bilinear => {
            let (x0, y0) = (x.detach().try_floor()?, y.detach().try_floor()?);
            let one = T::from_f64(1.0);
            let (x1, y1) = (x0.try_add_scalar(one)?, y0.try_add_scalar(one)?);
            // Weights: the distances to the opposite corner, as PyTorch's.
            let (wx1, wy1) = (x.try_sub(&x0)?, y.try_sub(&y0)?);
            let (wx0, wy0) = (x1.try_sub(&x)?, y1.try_sub(&y)?);
            let term =
                |xi: &Tensor<T, D>, yi: &Tensor<T, D>, wx: &Tensor<T, D>, wy: &Tensor<T, D>| {
                    sample(xi, yi, Some(&wx.try_mul(wy)?))
                };
            term(&x0, &y0, &wx0, &wy0)?
                .try_add(&term(&x1, &y0, &wx1, &wy0)?)?
                .try_add(&term(&x0, &y1, &wx0, &wy1)?)?
                .try_add(&term(&x1, &y1, &wx1, &wy1)?)?
        }
    };
    out.try_reshape([n, c, ho, wo])
}
