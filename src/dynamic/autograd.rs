//! Autograd on `DynTensor`: the typed engine (`crate::autograd`) behind run-time dtypes. Only
//! float dtypes have gradients; on the others these calls are an `Err`.

use super::DynTensor;
use crate::device::Device;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

fn not_differentiable(op: &'static str, t: &DynTensor) -> Error {
    Error::InvalidArgument {
        op,
        msg: format!(
            "a {} tensor cannot require grad: only Float32, Float64, Float16 and Bfloat16 have gradients; convert with to_dtype first",
            t.dtype()
        ),
    }
}

/// `g` as the typed tensor type of `_t` (an `Err` when its dtype or device differs).
fn like<T: Element, D: Device>(g: DynTensor, _t: &Tensor<T, D>) -> Result<Tensor<T, D>> {
    g.downcast()
}

impl DynTensor {
    /// Makes this tensor a leaf that requires grad, with a zero-filled gradient buffer;
    /// `false` freezes a leaf that requires grad (every handle of it) and detaches a recorded
    /// result; see [`crate::Tensor::set_requires_grad`].
    ///
    /// # Errors
    /// `InvalidArgument` for a non-float dtype; allocation failure.
    pub fn set_requires_grad(&mut self, requires_grad: bool) -> Result<()> {
        dyn_float!(self, t => t.set_requires_grad(requires_grad), other => {
            if requires_grad {
                Err(not_differentiable("requires_grad", other))
            } else {
                Ok(())
            }
        })
    }

    /// Backward from this one-element result into the gradient buffers of the leaves it was
    /// computed from (PyTorch `loss.backward()`); see [`crate::Tensor::try_backward`].
    ///
    /// # Errors
    /// As the typed form; `InvalidArgument` for a non-float dtype.
    pub fn backward(&self) -> Result<()> {
        dyn_float!(self, t => t.try_backward(), other => Err(not_differentiable("backward", other)))
    }

    /// Backward with `grad` as the result's gradient (same shape and dtype), keeping the graph
    /// when `retain_graph`; see [`crate::Tensor::try_backward_with`].
    ///
    /// # Errors
    /// As the typed form; an `Err` from [`DynTensor::downcast`] when `grad`'s dtype or
    /// device differs.
    pub fn backward_with(&self, grad: &DynTensor, retain_graph: bool) -> Result<()> {
        dyn_float!(self, t => {
            let g = like(grad.clone(), t)?;
            t.try_backward_with(&g, retain_graph)
        }, other => Err(not_differentiable("backward", other)))
    }

    /// Sets the gradient buffer to 0; nothing happens without one.
    ///
    /// # Errors
    /// `Layout` when this thread holds a guard on the gradient buffer.
    pub fn zero_grad(&self) -> Result<()> {
        dyn_each!(self, t => t.zero_grad())
    }

    /// The gradient buffer as a tensor of this tensor's shape (shared), `None` without one.
    pub fn grad_tensor(&self) -> Option<DynTensor> {
        dyn_each!(self, t => t.grad_tensor().map(DynTensor::from))
    }

    /// The same data without the graph or gradient buffer (PyTorch `detach`).
    pub fn detach(&self) -> DynTensor {
        dyn_each!(self, t => DynTensor::from(t.detach()))
    }

    /// True unless a recorded op produced this tensor (PyTorch `is_leaf`).
    pub fn is_leaf(&self) -> bool {
        dyn_each!(self, t => t.is_leaf())
    }

    /// Keeps this non-leaf tensor's gradient for [`DynTensor::grad`] after backward (PyTorch
    /// `retain_grad`); see [`crate::Tensor::retain_grad`].
    ///
    /// # Errors
    /// `InvalidArgument` when the tensor does not require grad (every non-float dtype);
    /// allocation failure.
    pub fn retain_grad(&mut self) -> Result<()> {
        dyn_float!(self, t => t.retain_grad(), other => Err(not_differentiable("retain_grad", other)))
    }

    /// Whether backward keeps this non-leaf tensor's gradient (PyTorch `retains_grad`).
    pub fn retains_grad(&self) -> bool {
        dyn_float!(self, t => t.retains_grad(), _other => false)
    }

    /// Registers `hook` on this tensor's gradient: `Ok(None)` keeps it, `Ok(Some(g))` (same
    /// shape, dtype and device) replaces it (PyTorch `register_hook`); see
    /// [`crate::Tensor::register_hook`].
    ///
    /// # Errors
    /// `InvalidArgument` when the tensor does not require grad. During backward, the hook's
    /// `Err`, or the [`DynTensor::downcast`] error of a replacement of another dtype or device.
    pub fn register_hook<F>(&self, hook: F) -> Result<crate::autograd::HookHandle>
    where
        F: Fn(&DynTensor) -> Result<Option<DynTensor>> + Send + Sync + 'static,
    {
        dyn_float!(self, t => t.register_hook(move |g| match hook(&DynTensor::from(g.clone()))? {
            Some(new) => Ok(Some(like(new, g)?)),
            None => Ok(None),
        }), other => Err(not_differentiable("register_hook", other)))
    }

    /// Registers `hook`, called on this leaf after each backward pass has added its gradient
    /// into its buffer, with a handle sharing its data and gradient (PyTorch
    /// `register_post_accumulate_grad_hook`); see
    /// [`crate::Tensor::register_post_accumulate_grad_hook`].
    ///
    /// # Errors
    /// `InvalidArgument` when the tensor does not require grad or is not a leaf. During
    /// backward, the hook's `Err`.
    pub fn register_post_accumulate_grad_hook<F>(
        &self,
        hook: F,
    ) -> Result<crate::autograd::HookHandle>
    where
        F: Fn(&DynTensor) -> Result<()> + Send + Sync + 'static,
    {
        dyn_float!(self, t => t.register_post_accumulate_grad_hook(move |p| hook(&DynTensor::from(p.clone()))),
            other => Err(not_differentiable("register_post_accumulate_grad_hook", other)))
    }
}

/// `t.backward()` as a free function (PyTorch's `torch.autograd.backward`): [`DynTensor::backward`].
///
/// # Errors
/// As [`DynTensor::backward`].
pub fn backward(t: &DynTensor) -> Result<()> {
    t.backward()
}

/// The gradients of `output` with respect to each of `inputs`, returned rather than added
/// into gradient buffers (PyTorch `torch.autograd.grad(output, inputs, grad_output,
/// retain_graph, create_graph, allow_unused=True)`): `None` for an input `output` does not
/// depend on. `grad_output` is the output's gradient (required unless the output has one
/// element). With `create_graph` the gradients are recorded, for higher-order derivatives
/// (the graph is then kept); see [`crate::autograd::grad_with`] and
/// [`crate::autograd::grad_create_graph`].
///
/// ```
/// use typed_tensor::prelude::*;
/// let mut x = DynTensor::from_vec(vec![1.0f64, 2.0], [2], DeviceIndex::cpu())?;
/// x.set_requires_grad(true)?;
/// let y = x.mul(&x)?.mul(&x)?.reduce_sum(&[], false)?; // Σ x³
/// let g = typed_tensor::dynamic::grad(&y, &[&x], None, false, true)?.remove(0).unwrap();
/// let s = g.reduce_sum(&[], false)?;
/// let h = typed_tensor::dynamic::grad(&s, &[&x], None, false, false)?;
/// assert_eq!(h[0].as_ref().unwrap().to_vec::<f64>()?, vec![6.0, 12.0]); // 6x
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// As the typed forms; `InvalidArgument` for a non-float output; an `Err` from
/// [`DynTensor::downcast`] when an input or `grad_output` has another dtype or device.
pub fn grad(
    output: &DynTensor,
    inputs: &[&DynTensor],
    grad_output: Option<&DynTensor>,
    retain_graph: bool,
    create_graph: bool,
) -> Result<Vec<Option<DynTensor>>> {
    dyn_float!(output, t => {
        let xs = (inputs.iter())
            .map(|x| like((*x).clone(), t))
            .collect::<Result<Vec<_>>>()?;
        let refs: Vec<_> = xs.iter().collect();
        let seed = grad_output.map(|g| like(g.clone(), t)).transpose()?;
        let grads = match (create_graph, &seed) {
            (true, _) => crate::autograd::grad_create_graph(t, seed.as_ref(), &refs)?,
            (false, Some(g)) => crate::autograd::grad_with(t, g, &refs, retain_graph)?,
            (false, None) => crate::autograd::grad(t, &refs, retain_graph)?,
        };
        Ok(grads.into_iter().map(|g| g.map(DynTensor::from)).collect())
    }, other => Err(not_differentiable("grad", other)))
}
