//! Likelihood losses with PyTorch's definitions: `binary_cross_entropy` of probabilities,
//! `poisson_nll_loss` and `gaussian_nll_loss`, each composed of differentiable ops. The
//! range checks PyTorch makes on the values (probabilities in `[0, 1]`, variances `>= 0`)
//! read one reduction back from the device.
//!
//! ```
//! use typed_tensor::prelude::*;
//! use typed_tensor::nn::{self, Reduction};
//!
//! let p = tensor![0.5f64, 1.0];
//! let y = tensor![1.0f64, 1.0];
//! let l = nn::binary_cross_entropy(&p, &y, Reduction::None)?;
//! assert!((l.to_vec()[0] - 2f64.ln()).abs() < 1e-15 && l.to_vec()[1] == 0.0);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use super::Reduction;
use super::loss::{pair, reduce};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// `log(x)` clamped below at -100, as PyTorch's `binary_cross_entropy` takes it; a 0 gives
/// -100 with a zero gradient (no `0 · inf`).
fn clamped_log<T: FloatElement, D: Backend>(x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
    let one = Tensor::scalar_on(T::ONE, x.device_handle())?;
    let floor = Tensor::scalar_on(T::from_f64(-100.0), x.device_handle())?;
    let pos = x.try_gt_scalar(T::ZERO)?;
    let log = Tensor::try_where(&pos, x, &one)?.try_log()?;
    Tensor::try_where(&pos, &log, &floor)?.try_maximum_scalar(T::from_f64(-100.0))
}

/// Binary cross-entropy of probabilities `input` against `target` (PyTorch
/// `binary_cross_entropy`): `-(y·log p + (1 - y)·log(1 - p))`, each log clamped at -100 as
/// PyTorch does. The gradients are PyTorch's: `(p - y) / max(p·(1 - p), 1e-12)` for `p`
/// (bounded near 0 and 1), and `-logit(p)` for `y` (infinite at 0 and 1).
///
/// # Errors
/// `InvalidArgument` when an element of `input` lies outside `[0, 1]` (NaN included, as
/// PyTorch); `Broadcast` when the shapes do not broadcast.
pub fn binary_cross_entropy<T: FloatElement, D: Backend>(
    input: &Tensor<T, D>,
    target: &Tensor<T, D>,
    reduction: Reduction,
) -> Result<Tensor<T, D>> {
    let op = "binary_cross_entropy";
    pair(op, input, target)?;
    let outside = crate::autograd::no_grad(|| -> Result<i64> {
        let inside = input
            .try_ge_scalar(T::ZERO)?
            .try_logical_and(&input.try_le_scalar(T::ONE)?)?;
        inside.try_logical_not()?.try_sum(&[], false)?.try_item()
    })?;
    if outside > 0 {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "{outside} elements of the input lie outside [0, 1] (or are NaN); pass probabilities, or logits to binary_cross_entropy_with_logits"
            ),
        });
    }
    // The value without a graph; one node records it with PyTorch's rule.
    let per = crate::autograd::no_grad(|| -> Result<Tensor<T, D>> {
        let pos = target.try_mul(&clamped_log(input)?)?;
        let neg = target
            .try_rsub_scalar(T::ONE)?
            .try_mul(&clamped_log(&input.try_rsub_scalar(T::ONE)?)?)?;
        pos.try_add(&neg)?.try_neg()
    })?;
    let node = crate::autograd::Op::Binary(op);
    let per = crate::autograd::record(per, node, &[input, target], &[input, target]);
    reduce(per, reduction)
}

/// The negative log-likelihood of `target` counts under a Poisson distribution (PyTorch
/// `poisson_nll_loss`): with `log_input`, `exp(x) - y·x`; otherwise `x - y·log(x + eps)`; with
/// `full`, Stirling's term `y·log y - y + log(2πy)/2` is added where `y > 1`.
///
/// # Errors
/// `Broadcast` when the shapes do not broadcast.
pub fn poisson_nll_loss<T: FloatElement, D: Backend>(
    input: &Tensor<T, D>,
    target: &Tensor<T, D>,
    log_input: bool,
    full: bool,
    eps: f64,
    reduction: Reduction,
) -> Result<Tensor<T, D>> {
    pair("poisson_nll_loss", input, target)?;
    let mut per = if log_input {
        input.try_exp()?.try_sub(&target.try_mul(input)?)?
    } else {
        let log = input.try_add_scalar(T::from_f64(eps))?.try_log()?;
        input.try_sub(&target.try_mul(&log)?)?
    };
    if full {
        // Where y <= 1 the term is 0; y is replaced by 1 there so no log sees 0.
        let big = target.try_gt_scalar(T::ONE)?;
        let one = Tensor::scalar_on(T::ONE, target.device_handle())?;
        let y = Tensor::try_where(&big, target, &one)?;
        let stirling = y.try_mul(&y.try_log()?)?.try_sub(&y)?.try_add(
            &y.try_mul_scalar(T::from_f64(2.0 * std::f64::consts::PI))?
                .try_log()?
                .try_mul_scalar(T::from_f64(0.5))?,
        )?;
        let zero = Tensor::scalar_on(T::ZERO, target.device_handle())?;
        per = per.try_add(&Tensor::try_where(&big, &stirling, &zero)?)?;
    }
    reduce(per, reduction)
}

/// The negative log-likelihood of `target` under Gaussians of mean `input` and variance
/// `var` (PyTorch `gaussian_nll_loss`): `(log(max(var, eps)) + (x - y)² / max(var, eps)) / 2`,
/// plus `log(2π)/2` with `full`. As in PyTorch the clamp at `eps` does not stop the gradient
/// (it is applied under `no_grad`). `var` broadcasts with `input`.
///
/// # Errors
/// `InvalidArgument` for a negative variance; `Broadcast` when the shapes do not broadcast.
pub fn gaussian_nll_loss<T: FloatElement, D: Backend>(
    input: &Tensor<T, D>,
    target: &Tensor<T, D>,
    var: &Tensor<T, D>,
    full: bool,
    eps: f64,
    reduction: Reduction,
) -> Result<Tensor<T, D>> {
    let op = "gaussian_nll_loss";
    pair(op, input, target)?;
    pair(op, input, var)?;
    let negative =
        crate::autograd::no_grad(|| var.try_lt_scalar(T::ZERO)?.try_any(&[], false)?.try_item())?;
    if negative {
        return Err(Error::InvalidArgument {
            op,
            msg: "the variance has negative entries".into(),
        });
    }
    // max(var, eps) in value, the identity in gradient.
    let lift = crate::autograd::no_grad(|| var.try_maximum_scalar(T::from_f64(eps))?.try_sub(var))?;
    let v = var.try_add(&lift)?;
    let d = input.try_sub(target)?;
    let mut per = v
        .try_log()?
        .try_add(&d.try_mul(&d)?.try_div(&v)?)?
        .try_mul_scalar(T::from_f64(0.5))?;
    if full {
        per = per.try_add_scalar(T::from_f64(0.5 * (2.0 * std::f64::consts::PI).ln()))?;
    }
    reduce(per, reduction)
}
