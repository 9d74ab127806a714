//! `gradcheck`: analytic gradients against central finite differences, as PyTorch's
//! `torch.autograd.gradcheck`.

use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// Checks the gradients that `backward` computes for `f` at `inputs` against central finite
/// differences in f64, for every element of every input, on any device. The scalar
/// differentiated is `sum(f(inputs) * w)` with fixed, distinct weights `w`, so every output
/// element counts. `eps` is the finite-difference step (1e-6 suits values near 1); a gradient
/// passes when it is within `tol · max(1, |fd|)` of the finite difference `fd`.
///
/// ```
/// use typed_tensor::prelude::*;
/// use typed_tensor::autograd::gradcheck;
/// let x = Tensor::<f64>::from_vec(vec![0.5, -1.0, 2.0], [3])?;
/// gradcheck(|v| v[0].try_exp()?.try_mul(&v[0]), &[x], 1e-6, 1e-6)?;
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `InvalidArgument` naming the input, the element and both values at the first mismatch;
/// any error `f` or `backward` returns.
pub fn gradcheck<D: Backend>(
    f: impl Fn(&[Tensor<f64, D>]) -> Result<Tensor<f64, D>>,
    inputs: &[Tensor<f64, D>],
    eps: f64,
    tol: f64,
) -> Result<()> {
    let leaves: Vec<Tensor<f64, D>> = inputs
        .iter()
        .map(|x| x.detach().try_deep_copy()?.with_requires_grad(true))
        .collect::<Result<_>>()?;
    let y = f(&leaves)?;
    let n = y.numel();
    let w: Vec<f64> = (0..n).map(|i| 1.0 + (i % 7) as f64 / 7.0).collect();
    let w = Tensor::<f64, D>::from_vec_on(w, y.dims().to_vec(), &y.device)?;
    let loss = |y: &Tensor<f64, D>| y.try_mul(&w)?.try_sum(&[], false);
    loss(&y)?.try_backward()?;
    for (i, x) in inputs.iter().enumerate() {
        let got = match leaves[i].grad_tensor() {
            Some(g) => g.try_to_vec()?,
            None => vec![0.0; x.numel()],
        };
        let base = x.try_to_vec()?;
        for (j, &gj) in got.iter().enumerate() {
            let at = |d: f64| -> Result<f64> {
                let mut v = base.clone();
                v[j] += d;
                let mut xs: Vec<Tensor<f64, D>> = inputs.to_vec();
                xs[i] = Tensor::from_vec_on(v, x.dims().to_vec(), &x.device)?;
                super::no_grad(|| loss(&f(&xs)?)?.try_item())
            };
            let fd = (at(eps)? - at(-eps)?) / (2.0 * eps);
            if (gj - fd).abs() > tol * fd.abs().max(1.0) || gj.is_nan() != fd.is_nan() {
                return Err(Error::InvalidArgument {
                    op: "gradcheck",
                    msg: format!(
                        "input {i} (shape {}), element {j}: backward gives {gj}, the central difference {fd}",
                        x.shape()
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Second derivatives against central finite differences of the first (PyTorch's
/// `torch.autograd.gradgradcheck`): [`gradcheck`] of the function mapping the inputs to the
/// gradients of `Σ w·f(inputs)` (fixed weights `w`), computed with
/// [`super::grad_create_graph`]. So the check covers the rules run recorded and the
/// derivatives of the gradients themselves.
///
/// ```
/// use typed_tensor::prelude::*;
/// use typed_tensor::autograd::gradgradcheck;
/// let x = Tensor::<f64>::from_vec(vec![0.5, -1.0, 2.0], [3])?;
/// gradgradcheck(|v| v[0].try_tanh()?.try_mul(&v[0]), &[x], 1e-5, 1e-5)?;
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// As [`gradcheck`], for the gradient function; any error of [`super::grad_create_graph`].
pub fn gradgradcheck<D: Backend>(
    f: impl Fn(&[Tensor<f64, D>]) -> Result<Tensor<f64, D>>,
    inputs: &[Tensor<f64, D>],
    eps: f64,
    tol: f64,
) -> Result<()> {
    let grads = |xs: &[Tensor<f64, D>]| -> Result<Tensor<f64, D>> {
        // `gradcheck` passes leaves that require grad for its analytic pass and plain tensors,
        // under `no_grad`, for its differences: those become leaves here.
        super::enable_grad(|| {
            let leaves: Vec<Tensor<f64, D>> = (xs.iter())
                .map(|x| match x.requires_grad() {
                    true => Ok(x.clone()),
                    false => x.detach().with_requires_grad(true),
                })
                .collect::<Result<_>>()?;
            let y = f(&leaves)?;
            let w: Vec<f64> = (0..y.numel()).map(|i| 1.0 + (i % 5) as f64 / 5.0).collect();
            let w = Tensor::<f64, D>::from_vec_on(w, y.dims().to_vec(), &y.device)?;
            let loss = y.try_mul(&w)?.try_sum(&[], false)?;
            let refs: Vec<&Tensor<f64, D>> = leaves.iter().collect();
            let gs = if loss.requires_grad() {
                super::grad_create_graph(&loss, None, &refs)?
            } else {
                vec![None; leaves.len()]
            };
            // Every gradient flattened, zeros for an unused input; plus 0·Σx, so that a
            // gradient without a graph (a linear `f`) is checked as a zero second derivative.
            let mut flat = Vec::with_capacity(gs.len());
            let mut zero = Tensor::<f64, D>::scalar_on(0.0, &w.device)?;
            for (g, x) in gs.into_iter().zip(&leaves) {
                let g = match g {
                    Some(g) => g,
                    None => Tensor::zeros_on(x.dims(), &x.device)?,
                };
                flat.push(g.try_reshape([g.numel()])?);
                zero = zero.try_add(&x.try_sum(&[], false)?.try_mul_scalar(0.0)?)?;
            }
            let parts: Vec<&Tensor<f64, D>> = flat.iter().collect();
            Tensor::try_concat(&parts, 0)?.try_add(&zero)
        })
    };
    gradcheck(grads, inputs, eps, tol)
}
