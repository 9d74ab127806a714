//! Dropout while training (PyTorch's `dropout`, `dropout1d`/`2d`/`3d`, `alpha_dropout` and
//! `feature_alpha_dropout`): a mask drawn from the library's generator (so `manual_seed`
//! makes it reproducible), of the input's shape, or one value per channel for the feature
//! forms. Outside training, and for `p = 0`, each is the identity; `p = 1` gives zeros, as
//! PyTorch's `_dropout_impl`. The gradient flows through the mask's product.

use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// SELU's `λ·α`: alpha dropout sets dropped units to its negative saturation.
const SELU_SATURATION: f64 = 1.758_099_340_847_376_6;

/// The dropout of `x` with probability `p`, the mask of shape `mask` (broadcast over `x`),
/// plain (`x · keep / (1 - p)`) or alpha (PyTorch's affine correction that keeps a SELU
/// network's mean and variance).
fn drop<T: FloatElement, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    p: f64,
    training: bool,
    mask: Vec<usize>,
    alpha: bool,
) -> Result<Tensor<T, D>> {
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::InvalidArgument {
            op,
            msg: format!("p must lie in [0, 1], got {p}"),
        });
    }
    if !training || p == 0.0 {
        return Ok(x.clone());
    }
    if p == 1.0 {
        return x.try_mul_scalar(T::ZERO);
    }
    let keep = Tensor::<f32, D>::rand_on(mask, x.device_handle())?
        .try_ge_scalar(p as f32)?
        .try_cast::<T>()?;
    if !alpha {
        return x.try_mul(&keep.try_mul_scalar(T::from_f64(1.0 / (1.0 - p)))?);
    }
    // PyTorch: a = 1/√((α²p + 1)(1 - p)), b = (keep - 1)·α·a + α·a·p, y = x·keep·a + b.
    let al = SELU_SATURATION;
    let a = 1.0 / ((al * al * p + 1.0) * (1.0 - p)).sqrt();
    let b = keep
        .try_add_scalar(T::from_f64(-1.0))?
        .try_mul_scalar(T::from_f64(al * a))?
        .try_add_scalar(T::from_f64(al * a * p))?;
    x.try_mul(&keep.try_mul_scalar(T::from_f64(a))?)?
        .try_add(&b)
}

/// The per-channel mask shape of a feature dropout: `(N, C, 1, ...)` for a batched input of
/// `batched` dimensions, `(C, 1, ...)` for an unbatched one (one fewer), else an error.
fn channel_mask<T: FloatElement, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    batched: usize,
    layout: &str,
) -> Result<Vec<usize>> {
    let n = x.ndim();
    if n != batched && n + 1 != batched {
        return Err(Error::InvalidArgument {
            op,
            msg: format!("expects a {layout} input, got shape {}", x.shape()),
        });
    }
    let lead = if n == batched { 2 } else { 1 };
    Ok((x.dims().iter().enumerate())
        .map(|(i, &d)| if i < lead { d } else { 1 })
        .collect())
}

/// Zeros each element with probability `p` and scales the rest by `1 / (1 - p)` while
/// `training`; the identity otherwise (PyTorch `dropout`).
///
/// ```
/// use typed_tensor::prelude::*;
/// let x = Tensor::<f32>::ones([4, 8, 16])?;
/// let y = typed_tensor::nn::dropout(&x, 0.5, true)?; // each element 0 or 2
/// assert!(y.to_vec().iter().all(|&v| v == 0.0 || v == 2.0));
/// let z = typed_tensor::nn::dropout2d(&x.unsqueeze(0)?, 0.5, true)?; // whole (16,) rows
/// assert!(typed_tensor::nn::dropout(&x, 0.5, false)?.to_vec() == x.to_vec());
/// # let _ = z;
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `InvalidArgument` for `p` outside `[0, 1]`.
pub fn dropout<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    p: f64,
    training: bool,
) -> Result<Tensor<T, D>> {
    drop("dropout", x, p, training, x.dims().to_vec(), false)
}

/// Zeros whole channels of an `(N, C, L)` or unbatched `(C, L)` input with probability `p`,
/// scaling the rest by `1 / (1 - p)` (PyTorch `dropout1d`).
///
/// # Errors
/// `InvalidArgument` for `p` outside `[0, 1]` or another number of dimensions.
pub fn dropout1d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    p: f64,
    training: bool,
) -> Result<Tensor<T, D>> {
    let mask = channel_mask("dropout1d", x, 3, "(N, C, L) or (C, L)")?;
    drop("dropout1d", x, p, training, mask, false)
}

/// Zeros whole channels of an `(N, C, H, W)` input with probability `p`, scaling the rest by
/// `1 / (1 - p)` (PyTorch `dropout2d`). A 3-d input is `(N, C, L)`, as PyTorch 2 reads it.
///
/// # Errors
/// `InvalidArgument` for `p` outside `[0, 1]` or another number of dimensions.
pub fn dropout2d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    p: f64,
    training: bool,
) -> Result<Tensor<T, D>> {
    // (N, C, L) is batched too: one value per (n, c), as for (N, C, H, W).
    let batched = if x.ndim() == 3 { 3 } else { 4 };
    let mask = channel_mask("dropout2d", x, batched, "(N, C, H, W) or (N, C, L)")?;
    drop("dropout2d", x, p, training, mask, false)
}

/// Zeros whole channels of an `(N, C, D, H, W)` or unbatched `(C, D, H, W)` input with
/// probability `p`, scaling the rest by `1 / (1 - p)` (PyTorch `dropout3d`).
///
/// # Errors
/// `InvalidArgument` for `p` outside `[0, 1]` or another number of dimensions.
pub fn dropout3d<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    p: f64,
    training: bool,
) -> Result<Tensor<T, D>> {
    let mask = channel_mask("dropout3d", x, 5, "(N, C, D, H, W) or (C, D, H, W)")?;
    drop("dropout3d", x, p, training, mask, false)
}

/// Alpha dropout for self-normalising (SELU) networks (PyTorch `alpha_dropout`): each element
/// is dropped with probability `p` to SELU's negative saturation `-λα`, then all are scaled
/// and shifted so that inputs of mean 0 and variance 1 keep them: `y = a·(x·keep + α'·(1 -
/// keep)) + b` in PyTorch's form.
///
/// # Errors
/// `InvalidArgument` for `p` outside `[0, 1]`.
pub fn alpha_dropout<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    p: f64,
    training: bool,
) -> Result<Tensor<T, D>> {
    drop("alpha_dropout", x, p, training, x.dims().to_vec(), true)
}

/// Alpha dropout of whole channels (PyTorch `feature_alpha_dropout`): the mask holds one value
/// per `(n, c)` of an input of at least 2 dimensions `(N, C, ...)`.
///
/// # Errors
/// `InvalidArgument` for `p` outside `[0, 1]` or an input of fewer than 2 dimensions.
pub fn feature_alpha_dropout<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    p: f64,
    training: bool,
) -> Result<Tensor<T, D>> {
    const OP: &str = "feature_alpha_dropout";
    if x.ndim() < 2 {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!("expects an (N, C, ...) input, got shape {}", x.shape()),
        });
    }
    let mask = channel_mask(OP, x, x.ndim(), "(N, C, ...)")?;
    drop(OP, x, p, training, mask, true)
}
