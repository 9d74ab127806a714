//! Gradient clipping (PyTorch `torch.nn.utils.clip_grad_norm_` and `clip_grad_value_`), in
//! place on the parameters' gradient buffers, between `backward` and an optimizer's `step`.

use super::grad_of;
use crate::autograd::no_grad;
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// Scales the gradients of `params` so that their joint `norm_type`-norm (the norm of the
/// vector of every gradient element; `f64::INFINITY` for the largest magnitude) is at most
/// `max_norm`: each gradient is multiplied by `min(1, max_norm / (total + 1e-6))` (PyTorch
/// `clip_grad_norm_`, `error_if_nonfinite=False`: a NaN or infinite total turns the gradients
/// into NaN or zeros, as there). Returns the total norm before clipping, a 0-d tensor on the
/// parameters' device (0 for no parameters); nothing is read back to the host.
///
/// ```
/// use typed_tensor::prelude::*;
/// use typed_tensor::optim::clip_grad_norm_;
/// let w = Tensor::<f64>::from_vec(vec![3.0, 4.0], [2])?.with_requires_grad(true)?;
/// w.try_mul(&w)?.try_sum(&[], false)?.try_mul_scalar(0.5)?.try_backward()?; // gradient w
/// let total = clip_grad_norm_(&[w.clone()], 1.0, 2.0)?;
/// assert_eq!(total.item(), 5.0);
/// let g = w.grad_tensor().unwrap().to_vec();
/// assert!((g[0] - 0.6).abs() < 1e-6 && (g[1] - 0.8).abs() < 1e-6);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `InvalidArgument` for an empty `params` (PyTorch returns 0), a parameter that does not
/// require grad, a NaN or negative `max_norm` or a NaN `norm_type`; `Device` when the
/// parameters are on different devices. Frozen parameters (`requires_grad_(false)`) are left
/// out of the norm and their buffers are not scaled, as PyTorch leaves out parameters without
/// a gradient; with every parameter frozen the total norm is 0.
pub fn clip_grad_norm_<T: FloatElement, D: Backend>(
    params: &[Tensor<T, D>],
    max_norm: f64,
    norm_type: f64,
) -> Result<Tensor<T, D>> {
    const OP: &str = "clip_grad_norm_";
    if max_norm.is_nan() || max_norm < 0.0 || norm_type.is_nan() {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!(
                "max_norm must be >= 0 and norm_type a number, got max_norm {max_norm} and norm_type {norm_type}"
            ),
        });
    }
    if params.is_empty() {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: "got no parameters (PyTorch returns a total norm of 0; there is no device to put it on here)".into(),
        });
    }
    no_grad(|| {
        // Frozen parameters are left out, as PyTorch leaves out those without a gradient.
        let grads = (super::trainable(params))
            .map(|(_, p)| grad_of(p, OP))
            .collect::<Result<Vec<_>>>()?;
        if grads.is_empty() {
            return Tensor::scalar_on(T::from_f64(0.0), &params[0].device);
        }
        let norms = grads
            .iter()
            .map(|g| g.try_vector_norm(norm_type, &[], false))
            .collect::<Result<Vec<_>>>()?;
        let refs: Vec<&Tensor<T, D>> = norms.iter().collect();
        let total = Tensor::try_stack(&refs, 0)?.try_vector_norm(norm_type, &[], false)?;
        let coef = total
            .try_add_scalar(T::from_f64(1e-6))?
            .try_rdiv_scalar(T::from_f64(max_norm))?
            .try_minimum_scalar(T::from_f64(1.0))?;
        for mut g in grads {
            g.mul_(&coef)?;
        }
        Ok(total)
    })
}

/// Clamps every gradient element of `params` into `[-clip_value, clip_value]` in place
/// (PyTorch `clip_grad_value_`; NaN stays NaN). Frozen parameters are left as they are.
///
/// # Errors
/// `InvalidArgument` when a parameter does not require grad, or for a NaN or negative
/// `clip_value`.
pub fn clip_grad_value_<T: FloatElement, D: Backend>(
    params: &[Tensor<T, D>],
    clip_value: f64,
) -> Result<()> {
    const OP: &str = "clip_grad_value_";
    if clip_value.is_nan() || clip_value < 0.0 {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!("clip_value must be >= 0, got {clip_value}"),
        });
    }
    let (lo, hi) = (T::from_f64(-clip_value), T::from_f64(clip_value));
    no_grad(|| {
        for (_, p) in super::trainable(params) {
            grad_of(p, OP)?.clip_(lo, hi)?;
        }
        Ok(())
    })
}
