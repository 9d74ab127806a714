//! Derivatives of whole functions (PyTorch `torch.autograd.functional`): [`jacobian`] and
//! [`vjp`], through reverse passes of the recorded graph.

use super::grad::grad_with;
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::tensor::Tensor;

/// Leaves for `f`: detached copies of `inputs` that require grad (the caller's tensors and
/// their graphs are left alone).
fn leaves<T: FloatElement, D: Backend>(inputs: &[Tensor<T, D>]) -> Result<Vec<Tensor<T, D>>> {
    inputs
        .iter()
        .map(|x| x.detach().with_requires_grad(true))
        .collect()
}

/// The Jacobian of `f` at `inputs` (PyTorch `torch.autograd.functional.jacobian`): one tensor
/// per input, of shape `output.shape ++ input.shape`, whose element `[o.., i..]` is
/// `∂ output[o..] / ∂ input[i..]`; zeros for an input the output does not depend on. `f`
/// runs once, on detached copies of `inputs` that require grad; then one reverse pass per
/// output element (so the cost grows with the output's size, as PyTorch's default).
///
/// ```
/// use typed_tensor::autograd::jacobian;
/// use typed_tensor::prelude::*;
/// let x = Tensor::<f64>::from_vec(vec![1.0, 2.0], [2])?;
/// // f(x) = (x₀·x₁, x₀²): J = [[x₁, x₀], [2x₀, 0]]
/// let f = |v: &[Tensor<f64>]| -> Result<Tensor<f64>> {
///     let (a, b) = (v[0].narrow(0, 0, 1)?, v[0].narrow(0, 1, 1)?);
///     Tensor::try_cat(&[&a.try_mul(&b)?, &a.try_square()?], 0)
/// };
/// let j = jacobian(f, &[x])?;
/// assert_eq!((j[0].dims(), j[0].to_vec()), (&[2, 2][..], vec![2.0, 1.0, 2.0, 0.0]));
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `f`'s errors; allocation failure; a backward rule's error.
pub fn jacobian<T: FloatElement, D: Backend>(
    f: impl FnOnce(&[Tensor<T, D>]) -> Result<Tensor<T, D>>,
    inputs: &[Tensor<T, D>],
) -> Result<Vec<Tensor<T, D>>> {
    let xs = leaves(inputs)?;
    let out = f(&xs)?;
    let shape_of =
        |x: &Tensor<T, D>| -> Vec<usize> { out.dims().iter().chain(x.dims()).copied().collect() };
    let n = out.numel();
    // A constant (or empty) output: every derivative is 0.
    if out.grad_fn().is_none() || n == 0 {
        return xs
            .iter()
            .map(|x| Tensor::zeros_on(shape_of(x), x.device_handle()))
            .collect();
    }
    let refs: Vec<&Tensor<T, D>> = xs.iter().collect();
    let mut rows: Vec<Vec<Tensor<T, D>>> = Vec::with_capacity(xs.len());
    for _ in &xs {
        rows.push(crate::alloc::with_capacity("jacobian", n)?);
    }
    let mut one_hot = crate::alloc::with_capacity("jacobian", n)?;
    one_hot.resize(n, T::ZERO);
    for k in 0..n {
        one_hot[k] = T::ONE;
        let seed = Tensor::from_vec_on(one_hot.clone(), out.dims(), out.device_handle())?;
        one_hot[k] = T::ZERO;
        let grads = grad_with(&out, &seed, &refs, true)?;
        for ((row, g), x) in rows.iter_mut().zip(grads).zip(&xs) {
            row.push(match g {
                Some(g) => g,
                None => x.try_zeros_like()?,
            });
        }
    }
    rows.iter()
        .zip(&xs)
        .map(|(row, x)| {
            let parts: Vec<&Tensor<T, D>> = row.iter().collect();
            Tensor::try_stack(&parts, 0)?.try_reshape(shape_of(x))
        })
        .collect()
}

/// What [`vjp`] returns: the output, detached, and one product per input.
pub type Vjp<T, D> = (Tensor<T, D>, Vec<Tensor<T, D>>);

/// `f(inputs)` and the vector–Jacobian products `vᵀ·∂f/∂input` for each input (PyTorch
/// `torch.autograd.functional.vjp`): `v` has the output's shape; one reverse pass. The
/// products have the inputs' shapes (zeros for an input the output does not depend on); the
/// output is returned detached.
///
/// # Errors
/// `ShapeMismatch` when `v`'s shape is not the output's; `f`'s errors; a backward rule's error.
pub fn vjp<T: FloatElement, D: Backend>(
    f: impl FnOnce(&[Tensor<T, D>]) -> Result<Tensor<T, D>>,
    inputs: &[Tensor<T, D>],
    v: &Tensor<T, D>,
) -> Result<Vjp<T, D>> {
    let xs = leaves(inputs)?;
    let out = f(&xs)?;
    if v.shape() != out.shape() {
        return Err(crate::error::Error::ShapeMismatch {
            op: "vjp",
            lhs: out.shape().clone(),
            rhs: v.shape().clone(),
            msg: "v must have the output's shape".into(),
        });
    }
    let grads = if out.grad_fn().is_none() {
        vec![None; xs.len()]
    } else {
        let refs: Vec<&Tensor<T, D>> = xs.iter().collect();
        grad_with(&out, v, &refs, false)?
    };
    let products = grads
        .into_iter()
        .zip(&xs)
        .map(|(g, x)| g.map_or_else(|| x.try_zeros_like(), Ok))
        .collect::<Result<_>>()?;
    Ok((out.detach(), products))
}
