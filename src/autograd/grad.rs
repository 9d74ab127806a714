//! Gradients returned rather than accumulated (PyTorch `torch.autograd.grad`).

use super::{Grad, backward_pass, take};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use std::collections::HashMap;

/// The gradients of the one-element `output` with respect to each of `inputs`, returned
/// instead of added into gradient buffers (PyTorch `torch.autograd.grad(output, inputs,
/// allow_unused=True)`): no leaf's buffer changes, and only the part of the graph between
/// `output` and `inputs` runs. An input may be a leaf or an intermediate result (the gradient
/// that reaches it); `None` for one that `output` does not depend on. With `retain_graph`
/// the graph stays for another pass, as in [`Tensor::try_backward_with`].
///
/// ```
/// use typed_tensor::autograd::grad;
/// use typed_tensor::prelude::*;
/// let x = Tensor::<f64>::from_vec(vec![1.0, 2.0], [2])?.with_requires_grad(true)?;
/// let h = x.try_mul(&x)?; // an intermediate result
/// let y = h.try_sum(&[], false)?.try_mul_scalar(3.0)?;
/// let g = grad(&y, &[&x, &h], false)?;
/// assert_eq!(g[0].as_ref().unwrap().to_vec(), vec![6.0, 12.0]); // 6x
/// assert_eq!(g[1].as_ref().unwrap().to_vec(), vec![3.0, 3.0]);
/// assert!(x.grad().unwrap().to_vec().iter().all(|&v| v == 0.0)); // untouched
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `InvalidArgument` when `output` has more than one element (use [`grad_with`]), when it or an
/// input does not require grad, or when the graph was freed by an earlier backward; any error
/// of a backward rule.
pub fn grad<T: FloatElement, D: Backend>(
    output: &Tensor<T, D>,
    inputs: &[&Tensor<T, D>],
    retain_graph: bool,
) -> Result<Vec<Option<Tensor<T, D>>>> {
    if output.numel() != 1 {
        return Err(Error::InvalidArgument {
            op: "grad",
            msg: format!(
                "grad() needs a one-element output, got shape {}; call grad_with with a gradient of that shape",
                output.shape()
            ),
        });
    }
    let one =
        Tensor::<T, D>::scalar_on(T::ONE, output.device_handle())?.try_reshape(output.dims())?;
    grad_with(output, &one, inputs, retain_graph)
}

/// [`grad`] from an output of any shape, with `grad_output` (same shape, dtype and device) as
/// the gradient of the output (PyTorch's `grad_outputs`).
///
/// # Errors
/// `ShapeMismatch` when `grad_output`'s shape differs from `output`'s; as [`grad`] otherwise.
pub fn grad_with<T: FloatElement, D: Backend>(
    output: &Tensor<T, D>,
    grad_output: &Tensor<T, D>,
    inputs: &[&Tensor<T, D>],
    retain_graph: bool,
) -> Result<Vec<Option<Tensor<T, D>>>> {
    gradients(output, grad_output, inputs, retain_graph, false)
}

/// [`grad`] with PyTorch's `create_graph=True`: the gradients are themselves recorded, so they
/// can be differentiated again (Hessians, gradient penalties, [`super::hessian`]). The rules
/// run with recording on, on the saved tensors' graphs, and the graph is kept (PyTorch's
/// default `retain_graph=create_graph`). `grad_output` is the output's gradient (ones for a
/// one-element output when `None`); it may require grad itself. A gradient that does not
/// depend on any tensor that requires grad (that of a linear function) comes back without a
/// graph, as in PyTorch. Under [`super::no_grad`] nothing is recorded, as in PyTorch.
///
/// ```
/// use typed_tensor::autograd::grad_create_graph;
/// use typed_tensor::prelude::*;
/// let x = Tensor::<f64>::from_vec(vec![1.0, 2.0], [2])?.with_requires_grad(true)?;
/// let y = x.try_mul(&x)?.try_mul(&x)?.try_sum(&[], false)?; // Σ x³
/// let g = grad_create_graph(&y, None, &[&x])?.remove(0).unwrap(); // 3x²
/// assert_eq!(g.to_vec(), vec![3.0, 12.0]);
/// let h = grad_create_graph(&g.try_sum(&[], false)?, None, &[&x])?.remove(0).unwrap();
/// assert_eq!(h.to_vec(), vec![6.0, 12.0]); // 6x
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// As [`grad_with`].
pub fn grad_create_graph<T: FloatElement, D: Backend>(
    output: &Tensor<T, D>,
    grad_output: Option<&Tensor<T, D>>,
    inputs: &[&Tensor<T, D>],
) -> Result<Vec<Option<Tensor<T, D>>>> {
    match grad_output {
        Some(g) => gradients(output, g, inputs, true, true),
        None => {
            if output.numel() != 1 {
                return Err(Error::InvalidArgument {
                    op: "grad",
                    msg: format!(
                        "grad_create_graph(output, None, ..) needs a one-element output, got shape {}; pass the output's gradient",
                        output.shape()
                    ),
                });
            }
            let one = Tensor::<T, D>::scalar_on(T::ONE, output.device_handle())?
                .try_reshape(output.dims())?;
            gradients(output, &one, inputs, true, true)
        }
    }
}

fn gradients<T: FloatElement, D: Backend>(
    output: &Tensor<T, D>,
    grad_output: &Tensor<T, D>,
    inputs: &[&Tensor<T, D>],
    retain_graph: bool,
    create_graph: bool,
) -> Result<Vec<Option<Tensor<T, D>>>> {
    let not_tracked = |what: String| Error::InvalidArgument {
        op: "grad",
        msg: format!(
            "{what} does not require grad, so no gradient reaches it; make the leaves it comes from with_requires_grad(true)"
        ),
    };
    let Some(root) = output.graph_node() else {
        return Err(not_tracked(format!(
            "the output of shape {}",
            output.shape()
        )));
    };
    if grad_output.shape() != output.shape() {
        return Err(Error::ShapeMismatch {
            op: "grad",
            lhs: output.shape().clone(),
            rhs: grad_output.shape().clone(),
            msg: "the gradient of the output must have the output's shape".into(),
        });
    }
    let mut capture: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, x) in inputs.iter().enumerate() {
        let Some(node) = x.graph_node() else {
            return Err(not_tracked(format!("input {i} (shape {})", x.shape())));
        };
        capture.entry(node.id).or_default().push(i);
    }
    let g: Grad = Box::new(grad_output.try_contiguous()?);
    let found = backward_pass(root, g, retain_graph, create_graph, Some(&capture))?;
    found
        .into_iter()
        .map(|g| g.map(take::<T, D>).transpose())
        .collect()
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// [`Tensor::try_backward`] that adds gradients into the buffers of `inputs` only
    /// (PyTorch `loss.backward(inputs=[...])`): every other leaf's buffer is left as it is,
    /// and only the part of the graph between this result and `inputs` runs. Each input's
    /// post-accumulate hooks run after its buffer is updated; an input given twice is added to
    /// once. With `retain_graph` the graph stays for another pass.
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    /// let g = Tensor::<f32>::from_vec(vec![2.0], [1])?.with_requires_grad(true)?;
    /// let d = Tensor::<f32>::from_vec(vec![3.0], [1])?.with_requires_grad(true)?;
    /// let loss = g.mul(&d).sum(&[], false);
    /// loss.try_backward_inputs(&[&g], false)?; // the generator's step only
    /// assert_eq!((g.grad_tensor().unwrap().to_vec(), d.grad_tensor().unwrap().to_vec()), (vec![3.0], vec![0.0]));
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` when this tensor has more than one element, does not require grad,
    /// or its graph was freed, or when an input is not a leaf that requires grad (naming
    /// its position); any error of a backward rule or hook. No buffer is written when the
    /// pass fails before the gradients are added.
    pub fn try_backward_inputs(&self, inputs: &[&Tensor<T, D>], retain_graph: bool) -> Result<()> {
        for (i, x) in inputs.iter().enumerate() {
            if !(x.is_leaf() && x.requires_grad()) {
                return Err(Error::InvalidArgument {
                    op: "backward",
                    msg: format!(
                        "input {i} (shape {}) must be a leaf that requires grad to receive a gradient; use autograd::grad for intermediate results",
                        x.shape()
                    ),
                });
            }
        }
        let grads = super::grad(self, inputs, retain_graph)?;
        let mut done: Vec<u64> = Vec::with_capacity(inputs.len());
        for (x, g) in inputs.iter().zip(grads) {
            let (Some(node), Some(g)) = (x.graph_node(), g) else {
                continue;
            };
            if done.contains(&node.id) {
                continue;
            }
            done.push(node.id);
            let mut buf = x
                .grad_tensor()
                .expect("a leaf that requires grad has a buffer");
            super::no_grad(|| buf.add_(&g))?;
            super::hooks::run_post(node)?;
        }
        Ok(())
    }
}
