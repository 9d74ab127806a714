//! PyTorch's `torch.nn.utils` helpers: `pad_sequence`/`unpad_sequence` (batches of
//! variable-length sequences), `parameters_to_vector`/`vector_to_parameters`, and the weight
//! normalisation `weight_norm` (`torch._weight_norm`, what
//! `nn.utils.parametrizations.weight_norm` computes). Composed of differentiable ops.
//!
//! ```
//! use typed_tensor::prelude::*;
//! use typed_tensor::nn;
//! let a = Tensor::<f32>::ones([3, 2])?;
//! let b = Tensor::<f32>::ones([1, 2])?;
//! let padded = nn::pad_sequence(&[&a, &b], true, 0.0, false)?; // (batch, max length, 2)
//! assert_eq!(padded.dims(), &[2, 3, 2]);
//! assert_eq!(padded.to_vec()[6..].to_vec(), vec![1.0, 1.0, 0.0, 0.0, 0.0, 0.0]);
//! let back = nn::unpad_sequence(&padded, &[3, 1], true)?;
//! assert_eq!(back[1].dims(), &[1, 2]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::autograd::no_grad;
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// Sequences `(L_i, *)` padded with `padding_value` to the longest and stacked (PyTorch
/// `pad_sequence`): `(L_max, B, *)`, or `(B, L_max, *)` with `batch_first`; the padding goes
/// before each sequence with `pad_left` (PyTorch `padding_side="left"`), else after.
///
/// # Errors
/// `InvalidArgument` for an empty list or a 0-d sequence; `ShapeMismatch` when the trailing
/// dimensions differ; `Device` across devices.
pub fn pad_sequence<T: FloatElement, D: Backend>(
    sequences: &[&Tensor<T, D>],
    batch_first: bool,
    padding_value: f64,
    pad_left: bool,
) -> Result<Tensor<T, D>> {
    const OP: &str = "pad_sequence";
    if sequences.is_empty() || sequences.iter().any(|s| s.ndim() == 0) {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: "needs at least one sequence, each with a length axis first".into(),
        });
    }
    let longest = sequences.iter().map(|s| s.dims()[0]).max().unwrap_or(0);
    let padded = (sequences.iter())
        .map(|s| {
            let extra = longest - s.dims()[0];
            let mut pads = vec![(0, 0); s.ndim()];
            pads[0] = if pad_left { (extra, 0) } else { (0, extra) };
            s.try_pad(&pads, T::from_f64(padding_value))
        })
        .collect::<Result<Vec<_>>>()?;
    let refs: Vec<&Tensor<T, D>> = padded.iter().collect();
    Tensor::try_stack(&refs, if batch_first { 0 } else { 1 }).map_err(|e| e.shape_named(OP))
}

/// The sequences of a padded batch, each cut to its length (PyTorch `unpad_sequence`, for
/// padding after the sequence): `padded` `(L_max, B, *)` (`(B, L_max, *)` with
/// `batch_first`), `lengths` one per batch entry; views.
///
/// # Errors
/// `InvalidArgument` for fewer than 2 dimensions, a `lengths` of another count than `B`, or a
/// length above `L_max`.
pub fn unpad_sequence<T: FloatElement, D: Backend>(
    padded: &Tensor<T, D>,
    lengths: &[usize],
    batch_first: bool,
) -> Result<Vec<Tensor<T, D>>> {
    let (b_axis, l_axis) = if batch_first { (0, 1) } else { (1, 0) };
    let fits = padded.ndim() >= 2
        && lengths.len() == padded.dims()[b_axis]
        && lengths.iter().all(|&l| l <= padded.dims()[l_axis]);
    if !fits {
        return Err(Error::InvalidArgument {
            op: "unpad_sequence",
            msg: format!(
                "lengths {lengths:?} do not fit a padded batch of shape {} (batch_first = {batch_first})",
                padded.shape()
            ),
        });
    }
    (lengths.iter().enumerate())
        .map(|(i, &len)| {
            let seq = padded.select(b_axis as i64, i as i64)?;
            seq.narrow(0, 0, len)
        })
        .collect()
}

/// The parameters flattened and joined into one 1-d tensor (PyTorch
/// `parameters_to_vector`); differentiable.
///
/// # Errors
/// `InvalidArgument` for an empty list; `Device` across devices.
pub fn parameters_to_vector<T: FloatElement, D: Backend>(
    parameters: &[&Tensor<T, D>],
) -> Result<Tensor<T, D>> {
    if parameters.is_empty() {
        return Err(Error::InvalidArgument {
            op: "parameters_to_vector",
            msg: "needs at least one parameter".into(),
        });
    }
    let flat = (parameters.iter())
        .map(|p| p.try_reshape([p.numel()]))
        .collect::<Result<Vec<_>>>()?;
    Tensor::try_concat(&flat.iter().collect::<Vec<_>>(), 0)
}

/// Writes consecutive slices of the 1-d `vector` into the parameters, unrecorded (PyTorch
/// `vector_to_parameters`): each parameter takes as many elements as it has. Everything is
/// checked before anything is written.
///
/// # Errors
/// `InvalidArgument` when `vector` is not 1-d with exactly the parameters' element count;
/// `Device` across devices; `Layout` for a broadcast view.
pub fn vector_to_parameters<T: FloatElement, D: Backend>(
    vector: &Tensor<T, D>,
    parameters: &mut [&mut Tensor<T, D>],
) -> Result<()> {
    let total = (parameters.iter()).try_fold(0usize, |a, p| a.checked_add(p.numel()));
    if vector.ndim() != 1 || total != Some(vector.numel()) {
        return Err(Error::InvalidArgument {
            op: "vector_to_parameters",
            msg: format!(
                "a vector of shape {} for parameters of {total:?} elements in all; it must be 1-d with exactly that many",
                vector.shape()
            ),
        });
    }
    for p in parameters.iter() {
        crate::ops::device_ops::same_device("vector_to_parameters", vector, *p)?;
        if p.layout.has_aliasing() {
            return Err(Error::Layout {
                op: "vector_to_parameters",
                msg: format!("a broadcast view of shape {} cannot be written", p.shape()),
            });
        }
    }
    let mut at = 0;
    for p in parameters.iter_mut() {
        let n = p.numel();
        let part = vector.narrow(0, at, n)?.try_reshape(p.dims())?;
        no_grad(|| p.copy_from(&part.detach()))?;
        at += n;
    }
    Ok(())
}

/// `g · v / ‖v‖` (PyTorch `torch._weight_norm`, the weight of
/// `nn.utils.parametrizations.weight_norm`): the 2-norm of `v` over every axis but `axis`
/// (`None`: over the whole tensor), `g` broadcasting against it (shape `(1, .., n, .., 1)`, or
/// 0-d with `None`). Differentiable in both.
///
/// # Errors
/// `Axis` for a bad axis; `Broadcast` when `g` does not broadcast.
pub fn weight_norm<T: FloatElement, D: Backend>(
    v: &Tensor<T, D>,
    g: &Tensor<T, D>,
    axis: Option<i64>,
) -> Result<Tensor<T, D>> {
    let axes: Vec<i64> = match axis {
        Some(a) => {
            let a = v.shape().axis("weight_norm", a)?;
            (0..v.ndim())
                .filter(|&i| i != a)
                .map(|i| i as i64)
                .collect()
        }
        None => Vec::new(), // every axis
    };
    let norm = if axes.is_empty() && axis.is_some() {
        v.try_abs()? // a 1-d v normalised along its only axis: each element alone
    } else {
        v.try_square()?.try_sum(&axes, true)?.try_sqrt()?
    };
    v.try_mul(&g.try_div(&norm)?)
}
