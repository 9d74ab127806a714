//! Embedding lookup (PyTorch's `embedding`, and its `padding_idx` and `max_norm` options),
//! written from differentiable ops.

use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

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
    check(indices, weight)?;
    lookup(indices, weight)
}

/// The lookup itself, the arguments checked.
fn lookup<T: FloatElement, D: Backend>(
    indices: &Tensor<i64, D>,
    weight: &Tensor<T, D>,
) -> Result<Tensor<T, D>> {
    let flat = indices.try_reshape([indices.numel()])?.try_contiguous()?;
    let rows = weight.try_index_select(0, &flat)?;
    let mut dims = indices.dims().to_vec();
    dims.push(weight.dims()[1]);
    rows.try_reshape(dims)
}

/// `InvalidArgument` unless `weight` is 2-d; `Index` for an index outside its rows.
fn check<T: FloatElement, D: Backend>(
    indices: &Tensor<i64, D>,
    weight: &Tensor<T, D>,
) -> Result<()> {
    if weight.ndim() != 2 {
        return Err(Error::InvalidArgument {
            op: "embedding",
            msg: format!(
                "the weight must be (num_embeddings, dim), got {}",
                weight.shape()
            ),
        });
    }
    super::check_range("embedding", indices, weight.dims()[0], 0, weight.shape())
}

/// The options of [`embedding_with`], PyTorch's defaults in `default()` (none of them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EmbeddingOptions {
    /// The row whose lookups pass no gradient back (a padding token's); negative counts from
    /// the end, as PyTorch.
    pub padding_idx: Option<i64>,
    /// Rows looked up whose `norm_type`-norm exceeds this are first scaled, in place in the
    /// weight, to norm `max_norm` (PyTorch's `embedding_renorm_`, factor
    /// `max_norm / (norm + 1e-7)`).
    pub max_norm: Option<f64>,
    /// The `p` of `max_norm`'s norm (PyTorch's default 2).
    pub norm_type: f64,
}

impl Default for EmbeddingOptions {
    fn default() -> Self {
        EmbeddingOptions {
            padding_idx: None,
            max_norm: None,
            norm_type: 2.0,
        }
    }
}

impl EmbeddingOptions {
    /// The row `padding_idx` names (negative from the end) in a table of shape `dims`, after
    /// checking it and `max_norm` as PyTorch does.
    ///
    /// # Errors
    /// `Index` for a `padding_idx` outside `-dims[0]..dims[0]`; `InvalidArgument` for a negative or NaN
    /// `max_norm`.
    pub(crate) fn checked_padding(
        &self,
        op: &'static str,
        dims: &[usize],
    ) -> Result<Option<usize>> {
        let n = dims[0];
        if let Some(max) = self.max_norm.filter(|m| m.is_nan() || *m < 0.0) {
            return Err(Error::InvalidArgument {
                op,
                msg: format!("max_norm must be non-negative, got {max}"),
            });
        }
        let Some(p) = self.padding_idx else {
            return Ok(None);
        };
        let row = if p < 0 {
            p.checked_add(n as i64)
        } else {
            Some(p)
        };
        match row.filter(|&r| (0..n as i64).contains(&r)) {
            Some(r) => Ok(Some(r as usize)),
            None => Err(Error::Index {
                op,
                index: p,
                dim: 0,
                size: n,
                shape: crate::shape::Shape::new(dims.to_vec()),
            }),
        }
    }
}

/// [`embedding`] with PyTorch's `padding_idx` and `max_norm` (PyTorch `embedding`): lookups of
/// `padding_idx` add nothing to the weight's gradient, and with `max_norm` the rows looked up
/// are renormalised in the weight itself before the lookup, unrecorded, as PyTorch does
/// (every tensor sharing the weight's storage sees the new rows).
///
/// ```
/// use typed_tensor::nn::{self, EmbeddingOptions};
/// use typed_tensor::prelude::*;
/// let w = Tensor::<f32>::from_vec(vec![0.0, 0.0, 1.0, 2.0, 3.0, 4.0], [3, 2])?.with_requires_grad(true)?;
/// let ids = Tensor::<i64>::from_vec(vec![1, 0, 2, 0], [4])?;
/// let pad = EmbeddingOptions { padding_idx: Some(0), ..Default::default() };
/// nn::embedding_with(&ids, &w, pad)?.sum(&[], false).backward();
/// assert_eq!(w.grad_tensor().unwrap().to_vec(), vec![0.0, 0.0, 1.0, 1.0, 1.0, 1.0]);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// As [`embedding`]; `Index` for a `padding_idx` outside `-num_embeddings..num_embeddings`;
/// `InvalidArgument` for a `max_norm` that is negative or NaN; for `max_norm`, as an in-place
/// write (`Layout` for a broadcast weight).
pub fn embedding_with<T: FloatElement, D: Backend>(
    indices: &Tensor<i64, D>,
    weight: &Tensor<T, D>,
    opts: EmbeddingOptions,
) -> Result<Tensor<T, D>> {
    let op = "embedding";
    check(indices, weight)?;
    let pad = opts.checked_padding(op, weight.dims())?;
    if let Some(max) = opts.max_norm {
        renorm_rows(indices, weight, max, opts.norm_type)?;
    }
    let rows = lookup(indices, weight)?;
    let Some(pad) = pad else {
        return Ok(rows);
    };
    // The padding lookups read the detached rows: the same values, no gradient.
    let at_pad = indices.try_eq_scalar(pad as i64)?.unsqueeze(-1)?;
    Tensor::try_where(&at_pad, &rows.detach(), &rows)
}

/// Scales, in `weight`, each row that `indices` looks up and whose `p`-norm exceeds `max` by
/// `max / (norm + 1e-7)` (PyTorch's `embedding_renorm_`), without recording.
fn renorm_rows<T: FloatElement, D: Backend>(
    indices: &Tensor<i64, D>,
    weight: &Tensor<T, D>,
    max: f64,
    p: f64,
) -> Result<()> {
    crate::autograd::no_grad(|| {
        let used = indices.try_flatten()?.try_unique()?.0;
        let rows = weight.try_index_select(0, &used)?;
        let norm = rows.try_vector_norm(p, &[1], true)?;
        let over = norm.try_gt_scalar(T::from_f64(max))?;
        let factor = norm
            .try_add_scalar(T::from_f64(1e-7))?
            .try_rdiv_scalar(T::from_f64(max))?;
        let one = Tensor::scalar_on(T::ONE, weight.device_handle())?;
        let scaled = rows.try_mul(&Tensor::try_where(&over, &factor, &one)?)?;
        let mut w = weight.clone();
        w.index_put_(&[Some(&used)], &scaled, false)
    })
}
