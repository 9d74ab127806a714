//! Batch normalisation (PyTorch's `batch_norm`): one recorded node where the device fuses the
//! pass (`Backend::batch_norm_forward`), with PyTorch's backward as its rule; composed from
//! differentiable ops elsewhere.

use super::layers::{affine_grads, channel_affine, check_channels, per_channel};
use crate::autograd::{Op, Saved, Tracked};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// Batch normalisation over every axis but the channels (axis 1) of `(N, C, ...)` (PyTorch
/// `batch_norm`). While `training`, the batch's mean and biased variance normalise, and the
/// running statistics, when given (`(C,)` each), move by `momentum` toward the batch's mean
/// and unbiased variance, in place and unrecorded; otherwise the running statistics
/// normalise. `weight` and `bias` (`(C,)`) are the optional affine map. Where the device
/// fuses it (the CPU, for contiguous f32/f64), the result is one pass `x · alpha + beta` per
/// channel and one recorded node.
///
/// # Errors
/// `InvalidArgument` for an input of fewer than 2 dimensions, statistics or parameters not of
/// shape `(C,)`, evaluation without running statistics, or a training batch of one value per
/// channel (as PyTorch).
///
/// # Example
/// ```
/// use typed_tensor::{nn, prelude::*};
/// let x = Tensor::<f32>::from_vec(vec![1.0, 10.0, 3.0, 30.0], [2, 2])?.with_requires_grad(true)?;
/// let y = nn::batch_norm(&x, None, None, None, None, true, 0.1, 1e-5)?;
/// assert!((y.to_vec()[0] + 1.0).abs() < 1e-3); // each channel becomes (-1, 1)
/// y.sum(&[], false).backward();
/// assert!(x.grad_tensor().is_some());
/// # Ok::<(), typed_tensor::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn batch_norm<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    running_mean: Option<&Tensor<T, D>>,
    running_var: Option<&Tensor<T, D>>,
    weight: Option<&Tensor<T, D>>,
    bias: Option<&Tensor<T, D>>,
    training: bool,
    momentum: f64,
    eps: f64,
) -> Result<Tensor<T, D>> {
    let op = "batch_norm";
    let bad = |msg: String| Err(Error::InvalidArgument { op, msg });
    if x.ndim() < 2 {
        return bad(format!("expects (N, C, ...) input, got {}", x.shape()));
    }
    let c = x.dims()[1];
    // Every check before the running statistics are updated, so an `Err` changes nothing.
    let named = [
        ("running_mean", running_mean),
        ("running_var", running_var),
        ("weight", weight),
        ("bias", bias),
    ];
    check_channels(op, c, &named)?;
    let count = x.numel() / c.max(1);
    if training && count <= 1 {
        return bad(format!(
            "a training batch needs more than one value per channel, got shape {}",
            x.shape()
        ));
    }
    let running = match (running_mean, running_var) {
        (Some(m), Some(v)) => Some([m, v]),
        _ if training => None,
        _ => return bad("evaluation (training = false) needs the running statistics".into()),
    };
    // The running statistics move toward the batch's mean and unbiased variance.
    let update = |mean: &Tensor<T, D>, var: &Tensor<T, D>| match running {
        Some([rm, rv]) if training => crate::autograd::no_grad(|| -> Result<()> {
            let m = T::from_f64(momentum);
            let keep = T::from_f64(1.0 - momentum);
            let unbiased = var.try_mul_scalar(T::from_f64(count as f64 / (count - 1) as f64))?;
            let (mut rm, mut rv) = (rm.clone(), rv.clone());
            rm.mul_scalar_(keep)?;
            rm.add_(&mean.try_reshape([c])?.try_mul_scalar(m)?)?;
            rv.mul_scalar_(keep)?;
            rv.add_(&unbiased.try_reshape([c])?.try_mul_scalar(m)?)
        }),
        _ => Ok(()),
    };
    // One recorded node where the device fuses the pass (PyTorch's rule; the composed form
    // records five to eight ops).
    let given = running.filter(|_| !training);
    let fused = crate::autograd::no_grad(|| D::batch_norm_forward(x, given, weight, bias, eps))?;
    if let Some([y, mean, var]) = fused {
        update(&mean, &var)?;
        let inputs: Vec<&dyn Tracked> = [Some(x), weight, bias]
            .into_iter()
            .flatten()
            .map(|t| t as _)
            .collect();
        if !crate::autograd::recording(&inputs) {
            return Ok(y);
        }
        // The running statistics saved as they are now: a later training step moves them in
        // place.
        let (mean, var) = match training {
            true => (mean, var),
            false => (mean.try_deep_copy()?, var.try_deep_copy()?),
        };
        let mut saved = inputs.clone();
        saved.extend([&mean as &dyn Tracked, &var]);
        let op = Op::BatchNorm {
            eps,
            training,
            weight: weight.is_some(),
            bias: bias.is_some(),
        };
        return Ok(crate::autograd::record(y, op, &inputs, &saved));
    }
    let axes: Vec<i64> = (0..x.ndim() as i64).filter(|&a| a != 1).collect();
    let (mean, var) = match given {
        Some([m, v]) => (per_channel(m, x.ndim())?, per_channel(v, x.ndim())?),
        None => {
            let (mean, var) = (x.try_mean(&axes, true)?, x.try_var(&axes, 0, true)?);
            update(&mean, &var)?;
            (mean, var)
        }
    };
    let y = x
        .try_sub(&mean)?
        .try_div(&var.try_add_scalar(T::from_f64(eps))?.try_sqrt()?)?;
    channel_affine(op, y, weight, bias)
}

/// The rule of [`batch_norm`]'s fused node, from the saved input, weight and bias (those
/// there are) and the statistics it normalised by (PyTorch's `batch_norm_backward`), with
/// `ĝ = g · weight`, `x̂ = (x - mean) / sd` and sums over every axis but the channels:
/// - in training, `dx = (ĝ - mean(ĝ) - x̂ · mean(ĝ · x̂)) / sd` (the batch's statistics
///   depend on `x`), through `Backend::batch_norm_backward`, or composed from recorded ops in
///   a `create_graph` pass, the statistics taken again from `x` so that second derivatives
///   flow through them;
/// - in evaluation, `dx = ĝ / sd` (the running statistics are constants);
///
/// and `dweight = Σ g · x̂`, `dbias = Σ g` in both.
pub(crate) fn batch_norm_rule<F: FloatElement, D: Backend>(
    g: &Tensor<F, D>,
    saved: &[Saved],
    (eps, training): (f64, bool),
    (weight, bias): (bool, bool),
    needs: &[bool],
) -> Result<Vec<Option<Tensor<F, D>>>> {
    let arg = |i: usize| crate::autograd::saved::<F, D>(&saved[i]);
    let x = arg(0)?;
    let w = weight.then(|| arg(1)).transpose()?;
    let params = usize::from(weight) + usize::from(bias);
    let stats = [arg(1 + params)?, arg(2 + params)?];
    let fused = match training && !crate::autograd::is_grad_enabled() {
        true => D::batch_norm_backward(x, g, stats, w, eps)?,
        false => None,
    };
    let [dx, dw, db] = match fused {
        Some(grads) => grads.map(Ok),
        None => {
            let axes: Vec<i64> = (0..x.ndim() as i64).filter(|&a| a != 1).collect();
            let (mean, var) = match training {
                true => (x.try_mean(&axes, true)?, x.try_var(&axes, 0, true)?),
                false => (
                    per_channel(stats[0], x.ndim())?,
                    per_channel(stats[1], x.ndim())?,
                ),
            };
            let sd = var.try_add_scalar(F::from_f64(eps))?.try_sqrt()?;
            let xhat = x.try_sub(&mean)?.try_div(&sd)?;
            let scaled = match w {
                Some(w) => g.try_mul(&per_channel(w, x.ndim())?)?,
                None => g.clone(),
            };
            let dx = match training {
                true => {
                    let mean_gx = scaled.try_mul(&xhat)?.try_mean(&axes, true)?;
                    (scaled.try_sub(&scaled.try_mean(&axes, true)?)?)
                        .try_sub(&xhat.try_mul(&mean_gx)?)?
                        .try_div(&sd)
                }
                false => scaled.try_div(&sd),
            };
            [
                dx,
                g.try_mul(&xhat)?.try_sum(&axes, false),
                g.try_sum(&axes, false),
            ]
        }
    };
    let grads = [Some(dx?), Some(dw?), Some(db?)];
    Ok(affine_grads(needs, (weight, bias), grads))
}
