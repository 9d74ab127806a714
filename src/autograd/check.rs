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
