//! Normalisation, embedding lookup and dropout (PyTorch's `layer_norm`, `rms_norm`,
//! `embedding`, `dropout`), written from differentiable ops.

use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// The axes of the trailing `n` dimensions of `x`, checked against `normalized_shape`.
fn trailing_axes<T: FloatElement, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    normalized_shape: &[usize],
) -> Result<Vec<i64>> {
    let n = normalized_shape.len();
    if n == 0 || n > x.ndim() || x.dims()[x.ndim() - n..] != *normalized_shape {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "normalized_shape {normalized_shape:?} must be the last dimensions of the input's shape {}",
                x.shape()
            ),
        });
    }
    Ok((x.ndim() - n..x.ndim()).map(|a| a as i64).collect())
}

/// Applies the optional affine `weight` and `bias`, each of `normalized_shape` (as PyTorch).
fn affine<T: FloatElement, D: Backend>(
    op: &'static str,
    y: Tensor<T, D>,
    normalized_shape: &[usize],
    weight: Option<&Tensor<T, D>>,
    bias: Option<&Tensor<T, D>>,
) -> Result<Tensor<T, D>> {
    for (name, p) in [("weight", weight), ("bias", bias)] {
        if let Some(p) = p.filter(|p| p.dims() != normalized_shape) {
            return Err(Error::InvalidArgument {
                op,
                msg: format!(
                    "the {name} has shape {}, but normalized_shape is {normalized_shape:?}",
                    p.shape()
                ),
            });
        }
    }
    let y = match weight {
        Some(w) => y.try_mul(w)?,
        None => y,
    };
    match bias {
        Some(b) => y.try_add(b),
        None => Ok(y),
    }
}

/// `(x - mean) / sqrt(var + eps) · weight + bias` over the trailing `normalized_shape`
/// dimensions, with the biased variance (PyTorch `layer_norm`; `eps` is 1e-5 there). 16-bit
/// floats compute in f32.
///
/// # Errors
/// `InvalidArgument` when `normalized_shape` is not the input's trailing shape, or for a
/// weight or bias of another shape.
pub fn layer_norm<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    normalized_shape: &[usize],
    weight: Option<&Tensor<T, D>>,
    bias: Option<&Tensor<T, D>>,
    eps: f64,
) -> Result<Tensor<T, D>> {
    let axes = trailing_axes("layer_norm", x, normalized_shape)?;
    fn norm<F: FloatElement, D: Backend>(
        x: &Tensor<F, D>,
        axes: &[i64],
        eps: f64,
    ) -> Result<Tensor<F, D>> {
        let centred = x.try_sub(&x.try_mean(axes, true)?)?;
        let var = centred.try_mul(&centred)?.try_mean(axes, true)?;
        centred.try_div(&var.try_add_scalar(F::from_f64(eps))?.try_sqrt()?)
    }
    let y = super::in_f32(x, |v| norm(v, &axes, eps), |v| norm(v, &axes, eps))?;
    affine("layer_norm", y, normalized_shape, weight, bias)
}

/// `x / sqrt(mean(x²) + eps) · weight` over the trailing `normalized_shape` dimensions
/// (PyTorch `rms_norm`).
///
/// # Errors
/// As [`layer_norm`].
pub fn rms_norm<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    normalized_shape: &[usize],
    weight: Option<&Tensor<T, D>>,
    eps: f64,
) -> Result<Tensor<T, D>> {
    let axes = trailing_axes("rms_norm", x, normalized_shape)?;
    fn norm<F: FloatElement, D: Backend>(
        x: &Tensor<F, D>,
        axes: &[i64],
        eps: f64,
    ) -> Result<Tensor<F, D>> {
        let ms = x.try_mul(x)?.try_mean(axes, true)?;
        x.try_div(&ms.try_add_scalar(F::from_f64(eps))?.try_sqrt()?)
    }
    let y = super::in_f32(x, |v| norm(v, &axes, eps), |v| norm(v, &axes, eps))?;
    affine("rms_norm", y, normalized_shape, weight, None)
}

/// The rows of `weight` (`(num_embeddings, dim)`) at `indices` (any shape, values in
/// `0..num_embeddings`): shape `indices.shape + (dim,)` (PyTorch `embedding`). The gradient
/// adds into the rows used.
///
/// # Errors
/// `InvalidArgument` when `weight` is not 2-d; `Index` for an index outside
/// `0..num_embeddings` (a negative one too, as PyTorch).
pub fn embedding<T: FloatElement, D: Backend>(
    indices: &Tensor<i64, D>,
    weight: &Tensor<T, D>,
) -> Result<Tensor<T, D>> {
    if weight.ndim() != 2 {
        return Err(Error::InvalidArgument {
            op: "embedding",
            msg: format!(
                "the weight must be (num_embeddings, dim), got {}",
                weight.shape()
            ),
        });
    }
    let rows = weight.dims()[0];
    super::check_range("embedding", indices, rows, 0, weight.shape())?;
    let flat = indices.try_reshape([indices.numel()])?.try_contiguous()?;
    let rows = weight.try_index_select(0, &flat)?;
    let mut dims = indices.dims().to_vec();
    dims.push(weight.dims()[1]);
    rows.try_reshape(dims)
}

/// Zeros each element with probability `p` and scales the rest by `1 / (1 - p)` while
/// `training`; the identity otherwise (PyTorch `dropout`). The mask is drawn from the
/// library's generator, so `manual_seed` makes it reproducible.
///
/// # Errors
/// `InvalidArgument` for `p` outside `[0, 1]`.
pub fn dropout<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    p: f64,
    training: bool,
) -> Result<Tensor<T, D>> {
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::InvalidArgument {
            op: "dropout",
            msg: format!("p must lie in [0, 1], got {p}"),
        });
    }
    if !training || p == 0.0 {
        return Ok(x.clone());
    }
    if p == 1.0 {
        return x.try_mul_scalar(T::ZERO);
    }
    let keep = Tensor::<f32, D>::rand_on(x.shape().clone(), x.device_handle())?
        .try_ge_scalar(p as f32)?
        .try_cast::<T>()?
        .try_mul_scalar(T::from_f64(1.0 / (1.0 - p)))?;
    x.try_mul(&keep)
}
