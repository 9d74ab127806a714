//! Derivatives of whole functions (PyTorch `torch.autograd.functional`): [`jacobian`],
//! [`vjp`], and with recorded gradients ([`super::grad_create_graph`]) [`hessian`], [`hvp`]
//! and [`jvp`], through reverse passes of the recorded graph.

use super::grad::{grad_create_graph, grad_with};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::Error;
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

/// Gradients of `out` (recorded) with respect to `xs`, zeros for an unused input.
fn recorded_grads<T: FloatElement, D: Backend>(
    out: &Tensor<T, D>,
    seed: Option<&Tensor<T, D>>,
    xs: &[Tensor<T, D>],
) -> Result<Vec<Tensor<T, D>>> {
    let grads = if out.grad_fn().is_none() {
        vec![None; xs.len()]
    } else {
        let refs: Vec<&Tensor<T, D>> = xs.iter().collect();
        grad_create_graph(out, seed, &refs)?
    };
    (grads.into_iter().zip(xs))
        .map(|(g, x)| g.map_or_else(|| x.try_zeros_like(), Ok))
        .collect()
}

/// `Σ_i sum(a_i · b_i)`, checking that `b` matches `a`'s shapes.
fn dot_all<T: FloatElement, D: Backend>(
    op: &'static str,
    a: &[Tensor<T, D>],
    b: &[Tensor<T, D>],
) -> Result<Tensor<T, D>> {
    if a.len() != b.len() {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "got {} inputs but {} vectors v; pass one v per input",
                a.len(),
                b.len()
            ),
        });
    }
    let mut total: Option<Tensor<T, D>> = None;
    for (x, v) in a.iter().zip(b) {
        if x.shape() != v.shape() {
            return Err(Error::ShapeMismatch {
                op,
                lhs: x.shape().clone(),
                rhs: v.shape().clone(),
                msg: "each v must have its input's shape".into(),
            });
        }
        let term = x.try_mul(v)?.try_sum(&[], false)?;
        total = Some(match total {
            Some(t) => t.try_add(&term)?,
            None => term,
        });
    }
    total.ok_or_else(|| Error::InvalidArgument {
        op,
        msg: "no inputs".into(),
    })
}

/// The one-element output of `f`, or an `Err` naming `op`.
fn scalar_output<T: FloatElement, D: Backend>(
    op: &'static str,
    out: Tensor<T, D>,
) -> Result<Tensor<T, D>> {
    if out.numel() != 1 {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "f must return one element (a loss), got shape {}",
                out.shape()
            ),
        });
    }
    Ok(out)
}

/// The Hessian of the one-element `f` at `inputs` (PyTorch
/// `torch.autograd.functional.hessian`): `h[i][j]`, of shape `input_i.shape ++
/// input_j.shape`, holds `∂²f / ∂input_i ∂input_j`. `f` runs once on detached copies of
/// `inputs` that require grad; its gradient is recorded ([`super::grad_create_graph`]), then
/// differentiated once per gradient element.
///
/// ```
/// use typed_tensor::autograd::hessian;
/// use typed_tensor::prelude::*;
/// let x = Tensor::<f64>::from_vec(vec![1.0, 2.0], [2])?;
/// // f = x₀²·x₁²: H = [[2x₁², 4x₀x₁], [4x₀x₁, 2x₀²]]
/// let f = |v: &[Tensor<f64>]| v[0].try_square()?.try_product(&[], false);
/// let h = hessian(f, &[x])?;
/// assert_eq!((h[0][0].dims(), h[0][0].to_vec()), (&[2, 2][..], vec![8.0, 8.0, 8.0, 2.0]));
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `InvalidArgument` when `f`'s output has more than one element; `f`'s errors; those of
/// [`super::grad_create_graph`].
pub fn hessian<T: FloatElement, D: Backend>(
    f: impl FnOnce(&[Tensor<T, D>]) -> Result<Tensor<T, D>>,
    inputs: &[Tensor<T, D>],
) -> Result<Vec<Vec<Tensor<T, D>>>> {
    let xs = leaves(inputs)?;
    let out = scalar_output("hessian", f(&xs)?)?;
    let grads = recorded_grads(&out, None, &xs)?;
    let refs: Vec<&Tensor<T, D>> = xs.iter().collect();
    let mut h = Vec::with_capacity(xs.len());
    for gi in &grads {
        let n = gi.numel();
        let flat = gi.try_reshape([n])?;
        // Row k of block (i, ·): the gradient of gradient element k.
        let mut rows: Vec<Vec<Tensor<T, D>>> = Vec::with_capacity(xs.len());
        for _ in &xs {
            rows.push(crate::alloc::with_capacity("hessian", n)?);
        }
        for k in 0..n {
            let gk = flat.select(0, k as i64)?;
            let second = match gk.grad_fn() {
                Some(_) => super::grad(&gk, &refs, true)?,
                None => vec![None; xs.len()],
            };
            for ((row, g), x) in rows.iter_mut().zip(second).zip(&xs) {
                row.push(g.map_or_else(|| x.try_zeros_like(), Ok)?);
            }
        }
        let block = (rows.iter().zip(&xs))
            .map(|(row, xj)| {
                let dims: Vec<usize> = gi.dims().iter().chain(xj.dims()).copied().collect();
                if n == 0 {
                    return Tensor::zeros_on(dims, xj.device_handle());
                }
                let parts: Vec<&Tensor<T, D>> = row.iter().collect();
                Tensor::try_stack(&parts, 0)?.try_reshape(dims)
            })
            .collect::<Result<Vec<_>>>()?;
        h.push(block);
    }
    Ok(h)
}

/// `f(inputs)` (detached) and the Hessian–vector products `H·v` (PyTorch
/// `torch.autograd.functional.hvp`), one per input with its shape, where `v` holds one tensor
/// per input: two reverse passes, no Hessian built.
///
/// # Errors
/// As [`hessian`]; `InvalidArgument`/`ShapeMismatch` when `v` does not match the inputs.
pub fn hvp<T: FloatElement, D: Backend>(
    f: impl FnOnce(&[Tensor<T, D>]) -> Result<Tensor<T, D>>,
    inputs: &[Tensor<T, D>],
    v: &[Tensor<T, D>],
) -> Result<Vjp<T, D>> {
    let xs = leaves(inputs)?;
    let out = scalar_output("hvp", f(&xs)?)?;
    let grads = recorded_grads(&out, None, &xs)?;
    let s = dot_all("hvp", &grads, v)?;
    let products = if s.grad_fn().is_none() {
        vec![None; xs.len()]
    } else {
        let refs: Vec<&Tensor<T, D>> = xs.iter().collect();
        super::grad(&s, &refs, false)?
    };
    let products = (products.into_iter().zip(&xs))
        .map(|(g, x)| g.map_or_else(|| x.try_zeros_like(), Ok))
        .collect::<Result<_>>()?;
    Ok((out.detach(), products))
}

/// `f(inputs)` (detached) and the vector–Hessian products `vᵀ·H` (PyTorch
/// `torch.autograd.functional.vhp`), one per input with its shape. The Hessian of a scalar
/// function is symmetric, so these are [`hvp`]'s products, computed the same way.
///
/// ```
/// use typed_tensor::autograd::vhp;
/// use typed_tensor::prelude::*;
/// let x = Tensor::<f64>::from_vec(vec![1.0, 2.0], [2])?;
/// let v = Tensor::<f64>::from_vec(vec![1.0, 0.0], [2])?;
/// // f = x₀²·x₁: H = [[2x₁, 2x₀], [2x₀, 0]], so vᵀH = [4, 2]
/// let f = |a: &[Tensor<f64>]| a[0].narrow(0, 0, 1)?.try_square()?.try_mul(&a[0].narrow(0, 1, 1)?)?.try_sum(&[], false);
/// let (y, p) = vhp(f, &[x], &[v])?;
/// assert_eq!((y.to_vec(), p[0].to_vec()), (vec![2.0], vec![4.0, 2.0]));
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// As [`hvp`].
pub fn vhp<T: FloatElement, D: Backend>(
    f: impl FnOnce(&[Tensor<T, D>]) -> Result<Tensor<T, D>>,
    inputs: &[Tensor<T, D>],
    v: &[Tensor<T, D>],
) -> Result<Vjp<T, D>> {
    hvp(f, inputs, v)
}

/// `f(inputs)` (detached) and the Jacobian–vector product `(∂f/∂inputs)·v` (PyTorch
/// `torch.autograd.functional.jvp`), of the output's shape, where `v` holds one tensor per
/// input. Computed by reverse mode twice (PyTorch's double-backward trick): the recorded
/// vector–Jacobian product `uᵀJ` is linear in `u`, and its gradient in `u` against `v` is
/// `Jv`.
///
/// ```
/// use typed_tensor::autograd::jvp;
/// use typed_tensor::prelude::*;
/// let x = Tensor::<f64>::from_vec(vec![1.0, 2.0], [2])?;
/// let v = Tensor::<f64>::from_vec(vec![1.0, 1.0], [2])?;
/// let (y, jv) = jvp(|a| a[0].try_square(), &[x], &[v])?; // J = diag(2x)
/// assert_eq!((y.to_vec(), jv.to_vec()), (vec![1.0, 4.0], vec![2.0, 4.0]));
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// As [`hvp`].
pub fn jvp<T: FloatElement, D: Backend>(
    f: impl FnOnce(&[Tensor<T, D>]) -> Result<Tensor<T, D>>,
    inputs: &[Tensor<T, D>],
    v: &[Tensor<T, D>],
) -> Result<(Tensor<T, D>, Tensor<T, D>)> {
    let xs = leaves(inputs)?;
    let out = f(&xs)?;
    let u = out.detach().try_zeros_like()?.with_requires_grad(true)?;
    let grads = recorded_grads(&out, Some(&u), &xs)?;
    let s = dot_all("jvp", &grads, v)?;
    let jv = match s.grad_fn() {
        Some(_) => super::grad(&s, &[&u], false)?.remove(0),
        None => None,
    };
    let jv = jv.map_or_else(|| out.detach().try_zeros_like(), Ok)?;
    Ok((out.detach(), jv))
}
