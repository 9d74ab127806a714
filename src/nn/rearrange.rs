//! Encodings and rearrangements of `torch.nn.functional`: `one_hot`, `pixel_shuffle`,
//! `pixel_unshuffle`, and `prelu`, the activation with a learned slope per channel.
//!
//! ```
//! use typed_tensor::prelude::*;
//! use typed_tensor::nn::{one_hot, pixel_shuffle, pixel_unshuffle, prelu};
//!
//! let labels = tensor![2i64, 0];
//! assert_eq!(one_hot(&labels, Some(3))?.to_vec(), vec![0, 0, 1, 1, 0, 0]);
//! let x = Tensor::<f32>::arange(0.0, 16.0, 1.0)?.try_reshape([1, 4, 2, 2])?;
//! let y = pixel_shuffle(&x, 2)?; // (1, 1, 4, 4)
//! assert_eq!(y.dims(), &[1, 1, 4, 4]);
//! assert!(pixel_unshuffle(&y, 2)?.all_close(&x, 0.0, 0.0));
//! let a = tensor![0.25f32];
//! assert_eq!(prelu(&tensor![-4.0f32, 3.0], &a)?.to_vec(), vec![-1.0, 3.0]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// `indices` (any shape, values in `0..num_classes`) as one-hot rows: shape `(..., C)`, i64
/// (PyTorch `one_hot`). Without `num_classes`, `C` is the largest index plus one.
///
/// # Errors
/// `Index` for an index outside `0..C` (negative ones included), read back once.
pub fn one_hot<D: Backend>(
    indices: &Tensor<i64, D>,
    num_classes: Option<usize>,
) -> Result<Tensor<i64, D>> {
    let c = match num_classes {
        Some(c) => c,
        None if indices.numel() == 0 => 0,
        None => {
            let hi = indices.try_max(&[], false)?.try_item()?;
            usize::try_from(hi).map_or(0, |h| h.saturating_add(1))
        }
    };
    let dim = indices.ndim();
    super::check_range("one_hot", indices, c, dim, indices.shape())?;
    let classes = Tensor::<i64, D>::arange_on(0, c as i64, 1, indices.device_handle())?;
    indices.unsqueeze(-1)?.try_eq(&classes)?.try_cast::<i64>()
}

/// `(N, C·r², H, W)` rearranged to `(N, C, H·r, W·r)` (PyTorch `pixel_shuffle`): each group
/// of `r²` channels becomes an `r × r` block of pixels. Leading batch dimensions may be any.
///
/// # Errors
/// `InvalidArgument` for fewer than 3 dimensions, `r = 0`, or channels not divisible by `r²`.
pub fn pixel_shuffle<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    r: usize,
) -> Result<Tensor<T, D>> {
    let (lead, [c, h, w]) = last3("pixel_shuffle", x, r)?;
    let rr = r * r;
    if c % rr != 0 {
        return Err(Error::InvalidArgument {
            op: "pixel_shuffle",
            msg: format!(
                "{c} channels are not divisible by r² = {rr} (shape {})",
                x.shape()
            ),
        });
    }
    let b = lead.len();
    let mut s = lead.clone();
    s.extend([c / rr, r, r, h, w]);
    let mut perm: Vec<i64> = (0..b as i64).collect();
    perm.extend([0, 3, 1, 4, 2].map(|k| b as i64 + k));
    let mut out = lead;
    out.extend([c / rr, h * r, w * r]);
    x.try_reshape(s)?.permute(&perm)?.try_reshape(out)
}

/// The inverse of [`pixel_shuffle`]: `(N, C, H·r, W·r)` to `(N, C·r², H, W)` (PyTorch
/// `pixel_unshuffle`).
///
/// # Errors
/// `InvalidArgument` for fewer than 3 dimensions, `r = 0`, or a height or width not divisible
/// by `r`.
pub fn pixel_unshuffle<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    r: usize,
) -> Result<Tensor<T, D>> {
    let (lead, [c, h, w]) = last3("pixel_unshuffle", x, r)?;
    if h % r != 0 || w % r != 0 {
        return Err(Error::InvalidArgument {
            op: "pixel_unshuffle",
            msg: format!(
                "height {h} and width {w} must be divisible by r = {r} (shape {})",
                x.shape()
            ),
        });
    }
    let b = lead.len();
    let mut s = lead.clone();
    s.extend([c, h / r, r, w / r, r]);
    let mut perm: Vec<i64> = (0..b as i64).collect();
    perm.extend([0, 2, 4, 1, 3].map(|k| b as i64 + k));
    let mut out = lead;
    out.extend([c * r * r, h / r, w / r]);
    x.try_reshape(s)?.permute(&perm)?.try_reshape(out)
}

/// The leading dimensions and the last three, for the pixel rearrangements.
fn last3<T: FloatElement, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    r: usize,
) -> Result<(Vec<usize>, [usize; 3])> {
    let d = x.dims();
    if d.len() < 3 || r == 0 {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "needs (..., C, H, W) and r >= 1, got shape {} and r = {r}",
                x.shape()
            ),
        });
    }
    let n = d.len();
    // r² channels and r-fold sizes must be representable.
    let big = [d[n - 3], d[n - 2], d[n - 1]].iter().any(|&s| {
        s.max(1)
            .checked_mul(r)
            .and_then(|v| v.checked_mul(r))
            .is_none()
    });
    if big {
        return Err(Error::InvalidArgument {
            op,
            msg: format!("r = {r} is too large for shape {}", x.shape()),
        });
    }
    Ok((d[..n - 3].to_vec(), [d[n - 3], d[n - 2], d[n - 1]]))
}

/// `max(0, x) + weight · min(0, x)` (PyTorch `prelu`): `weight` holds one slope, or one per
/// channel (dimension 1 of `x`, or 0 for a 1-d `x`). Differentiable in both.
///
/// # Errors
/// `ShapeMismatch` when `weight` is neither one element nor one per channel.
pub fn prelu<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    weight: &Tensor<T, D>,
) -> Result<Tensor<T, D>> {
    let channels = match x.ndim() {
        0 => 1,
        1 => x.dims()[0],
        _ => x.dims()[1],
    };
    let w = match weight.numel() {
        1 => weight.try_reshape([0usize; 0])?,
        n if n == channels && weight.ndim() == 1 => {
            let mut s = vec![1; x.ndim().max(1)];
            s[usize::from(x.ndim() > 1)] = n;
            weight.try_reshape(s)?
        }
        _ => {
            return Err(Error::ShapeMismatch {
                op: "prelu",
                lhs: x.shape().clone(),
                rhs: weight.shape().clone(),
                msg: format!("weight needs 1 element or {channels} (one per channel)"),
            });
        }
    };
    // `where`, not max + w·min, so that x = 0 gets the slope's gradient, as in PyTorch.
    let zero = Tensor::scalar_on(T::ZERO, x.device_handle())?;
    Tensor::try_where(&x.try_gt(&zero)?, x, &x.try_mul(&w)?)
}

/// Interleaves the channels of an `(N, C, ...)` input from `groups` groups (PyTorch
/// `channel_shuffle`, ShuffleNet's): `(N, g, C/g, ...)` transposed to `(N, C/g, g, ...)`.
///
/// # Errors
/// `InvalidArgument` for fewer than 3 dimensions, `groups` 0, or `C` not divisible by
/// `groups`.
pub fn channel_shuffle<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    groups: usize,
) -> Result<Tensor<T, D>> {
    let dims = x.dims();
    if dims.len() < 3 || groups == 0 || !dims[1].is_multiple_of(groups) {
        return Err(Error::InvalidArgument {
            op: "channel_shuffle",
            msg: format!(
                "needs an (N, C, *) input with C divisible by groups > 0; got shape {} and {groups} groups",
                x.shape()
            ),
        });
    }
    let mut split = vec![dims[0], groups, dims[1] / groups];
    split.extend_from_slice(&dims[2..]);
    x.try_reshape(split)?
        .transpose(1, 2)?
        .try_reshape(dims.to_vec())
}
