//! Losses and `linear`, with PyTorch's definitions and reductions.

use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// How a loss combines its per-element values (PyTorch's `reduction`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// The mean over every element (a 0-d result).
    Mean,
    /// The sum over every element (a 0-d result).
    Sum,
    /// No reduction: the per-element losses.
    None,
}

pub(super) fn reduce<T: FloatElement, D: Backend>(
    t: Tensor<T, D>,
    r: Reduction,
) -> Result<Tensor<T, D>> {
    match r {
        Reduction::Mean => t.try_mean(&[], false),
        Reduction::Sum => t.try_sum(&[], false),
        Reduction::None => Ok(t),
    }
}

/// Negative log-likelihood of class `target` under log-probabilities `log_probs` (PyTorch
/// `nll_loss`): `log_probs` is `(N, C)` or `(N, C, d1, ...)` with classes on axis 1, `target`
/// holds class indices in `0..C` with shape `(N)` or `(N, d1, ...)`; per element the loss is
/// `-log_probs[n, target[n], ...]`. PyTorch's unbatched form, `(C)` with a 0-d target, gives
/// a 0-d loss. Every target must be a class: a negative one (PyTorch's default ignored -100
/// included) is an `Index` error; [`nll_loss_with`](super::nll_loss_with) has PyTorch's
/// `weight` and `ignore_index`.
///
/// # Errors
/// `ShapeMismatch` when the shapes do not fit that pattern; `Index` for a class outside `0..C`.
pub fn nll_loss<T: FloatElement, D: Backend>(
    log_probs: &Tensor<T, D>,
    target: &Tensor<i64, D>,
    reduction: Reduction,
) -> Result<Tensor<T, D>> {
    if let Some((x, t)) = unbatched(log_probs, target)? {
        return squeeze_none(nll_loss(&x, &t, reduction)?, reduction);
    }
    check_classes("nll_loss", log_probs, target)?;
    let picked = log_probs.try_gather(1, &target.unsqueeze(1)?)?;
    let per = picked.try_neg()?.try_reshape(target.dims())?;
    reduce(per, reduction)
}

/// PyTorch's unbatched form, `(C)` scores with a 0-d target, as a batch of one.
#[allow(clippy::type_complexity)]
fn unbatched<T: FloatElement, D: Backend>(
    scores: &Tensor<T, D>,
    target: &Tensor<i64, D>,
) -> Result<Option<(Tensor<T, D>, Tensor<i64, D>)>> {
    if scores.ndim() != 1 || target.ndim() != 0 {
        return Ok(None);
    }
    Ok(Some((scores.unsqueeze(0)?, target.unsqueeze(0)?)))
}

/// The unbatched form's per-element loss is 0-d.
pub(super) fn squeeze_none<T: FloatElement, D: Backend>(
    loss: Tensor<T, D>,
    reduction: Reduction,
) -> Result<Tensor<T, D>> {
    match reduction {
        Reduction::None => loss.try_reshape([0usize; 0]),
        _ => Ok(loss),
    }
}

/// Checks that `target` holds one class index per `(N, C, ...)` score vector: shape `(N, ...)`.
pub(super) fn check_classes<T: FloatElement, D: Backend>(
    op: &'static str,
    scores: &Tensor<T, D>,
    target: &Tensor<i64, D>,
) -> Result<()> {
    let fits = scores.ndim() >= 2
        && target.ndim() + 1 == scores.ndim()
        && target.dims()[0] == scores.dims()[0]
        && target.dims()[1..] == scores.dims()[2..];
    if fits {
        return super::check_range(op, target, scores.dims()[1], 1, scores.shape());
    }
    Err(Error::ShapeMismatch {
        op,
        lhs: scores.shape().clone(),
        rhs: target.shape().clone(),
        msg: "scores (N, C, ...) need class indices of shape (N, ...)".into(),
    })
}

/// Cross-entropy of `logits` against class indices (PyTorch `cross_entropy`):
/// `nll_loss(log_softmax(logits, 1), target)`, with optional label smoothing `ε ∈ [0, 1]`
/// mixing in the uniform distribution: `(1 - ε) · nll + ε · mean_c(-log_softmax)`. Shapes as
/// [`nll_loss`]; computed in f32 for 16-bit floats. One fused node; PyTorch's `weight`,
/// `ignore_index` and probability targets are [`cross_entropy_with`](super::cross_entropy_with)
/// and [`cross_entropy_probs`](super::cross_entropy_probs).
///
/// # Errors
/// As [`nll_loss`]; `InvalidArgument` for `ε` outside `[0, 1]`.
pub fn cross_entropy<T: FloatElement, D: Backend>(
    logits: &Tensor<T, D>,
    target: &Tensor<i64, D>,
    reduction: Reduction,
    label_smoothing: f64,
) -> Result<Tensor<T, D>> {
    if !(0.0..=1.0).contains(&label_smoothing) {
        return Err(Error::InvalidArgument {
            op: "cross_entropy",
            msg: format!("label_smoothing must lie in [0, 1], got {label_smoothing}"),
        });
    }
    if let Some((x, t)) = unbatched(logits, target)? {
        return squeeze_none(
            cross_entropy(&x, &t, reduction, label_smoothing)?,
            reduction,
        );
    }
    if const { T::DTYPE.size() >= 4 } && label_smoothing == 0.0 {
        // One node for the whole loss: its gradient is `softmax - one_hot` (scaled), which
        // costs two passes instead of the chain of log_softmax, gather and their rules.
        // Per element `(m - logits[target]) + log Σ exp(logits - m)`, `m` each row's maximum:
        // the log-softmax at the targets only, to the last bit for any magnitude (`lse -
        // logits[target]` loses the digits `lse` rounds away: a confident 1e-4 loss at logits
        // near 50 came out 4% off). The rule's softmax is `exp(logits - m) · (1/Σ)`.
        check_classes("cross_entropy", logits, target)?;
        let (loss, shift, factor) = crate::autograd::no_grad(|| -> Result<_> {
            let (m, log_sum) = match D::logsumexp_parts_along(logits, 1)? {
                Some((m, l)) => (m.try_contiguous()?, l),
                None => {
                    let m = logits.try_max(&[1], true)?;
                    let l = logits.try_sub(&m)?.try_logsumexp(&[1], true)?;
                    (m, l)
                }
            };
            let picked = logits.try_gather(1, &target.unsqueeze(1)?)?;
            let nll = m.try_sub(&picked)?.try_add(&log_sum)?;
            let nll = nll.try_reshape(target.dims())?;
            Ok((reduce(nll, reduction)?, m, log_sum.try_neg()?.try_exp()?))
        })?;
        use crate::autograd::{Op, Tracked, record};
        let saved: [&dyn Tracked; 4] = [logits, &shift, target, &factor];
        return Ok(record(loss, Op::CrossEntropy(reduction), &[logits], &saved));
    }
    let logp = logits.try_log_softmax(1)?;
    let nll = nll_loss(&logp, target, Reduction::None)?;
    if label_smoothing == 0.0 {
        return reduce(nll, reduction);
    }
    let smooth = logp.try_mean(&[1], false)?.try_neg()?;
    let e = T::from_f64(label_smoothing);
    let mixed = nll
        .try_mul_scalar(T::from_f64(1.0 - label_smoothing))?
        .try_add(&smooth.try_mul_scalar(e)?)?;
    reduce(mixed, reduction)
}

/// `Broadcast` naming `op` when `input` and `target` do not broadcast, before any work.
pub(super) fn pair<T: FloatElement, D: Backend>(
    op: &'static str,
    input: &Tensor<T, D>,
    target: &Tensor<T, D>,
) -> Result<()> {
    crate::shape::broadcast_shapes(op, input.shape(), target.shape()).map(|_| ())
}

/// `(input - target)²` reduced (PyTorch `mse_loss`); the shapes broadcast. Reduced by its
/// mean or sum over operands of one shape it is one recorded node, the squares summed in f64
/// (the mean of no elements is NaN), with PyTorch's rule `2 (input - target) g` (`/ n` for
/// the mean), also for the target.
///
/// # Errors
/// `Broadcast` when the shapes do not broadcast.
pub fn mse_loss<T: FloatElement, D: Backend>(
    input: &Tensor<T, D>,
    target: &Tensor<T, D>,
    reduction: Reduction,
) -> Result<Tensor<T, D>> {
    pair("mse_loss", input, target)?;
    if reduction != Reduction::None && input.dims() == target.dims() {
        // One node: the difference, then its squares summed in f64 (one fused pass where the
        // device has it); the rule is one product. The composed sub, mul and mean were three
        // recorded passes forward and four back.
        let mean = reduction == Reduction::Mean;
        let (loss, d) = crate::autograd::no_grad(|| -> Result<_> {
            let d = input.try_sub(target)?;
            let mask = vec![true; d.ndim()];
            let total = match D::sum_squares(&d, &mask, false)? {
                Some(s) => s,
                None => d.try_cast::<f64>()?.try_square()?.try_sum(&[], false)?,
            };
            // The mean of no elements is NaN, as PyTorch's.
            let loss = match mean {
                true => total.try_div_scalar(d.numel() as f64)?,
                false => total,
            };
            Ok((loss.try_cast::<T>()?, d))
        })?;
        use crate::autograd::{Op, Tracked, record};
        let saved: [&dyn Tracked; 3] = [input, target, &d];
        return Ok(record(loss, Op::MseLoss { mean }, &[input, target], &saved));
    }
    let d = input.try_sub(target)?;
    reduce(d.try_mul(&d)?, reduction)
}

/// `|input - target|` reduced (PyTorch `l1_loss`); the shapes broadcast.
///
/// # Errors
/// `Broadcast` when the shapes do not broadcast.
pub fn l1_loss<T: FloatElement, D: Backend>(
    input: &Tensor<T, D>,
    target: &Tensor<T, D>,
    reduction: Reduction,
) -> Result<Tensor<T, D>> {
    pair("l1_loss", input, target)?;
    reduce(input.try_sub(target)?.try_abs()?, reduction)
}

/// With `d = input - target`: `d² / (2·beta)` where `|d| < beta`, `|d| - beta / 2` elsewhere
/// (PyTorch `smooth_l1_loss`; `beta = 0` is `l1_loss`).
///
/// # Errors
/// `Broadcast` when the shapes do not broadcast; `InvalidArgument` for a negative or NaN
/// `beta`.
pub fn smooth_l1_loss<T: FloatElement, D: Backend>(
    input: &Tensor<T, D>,
    target: &Tensor<T, D>,
    reduction: Reduction,
    beta: f64,
) -> Result<Tensor<T, D>> {
    piecewise(
        "smooth_l1_loss",
        input,
        target,
        reduction,
        beta,
        0.5 / beta,
        1.0,
    )
}

/// With `d = input - target`: `d² / 2` where `|d| <= delta`, `delta · (|d| - delta / 2)`
/// elsewhere (PyTorch `huber_loss`).
///
/// # Errors
/// `Broadcast` when the shapes do not broadcast; `InvalidArgument` for a negative or NaN
/// `delta`.
pub fn huber_loss<T: FloatElement, D: Backend>(
    input: &Tensor<T, D>,
    target: &Tensor<T, D>,
    reduction: Reduction,
    delta: f64,
) -> Result<Tensor<T, D>> {
    piecewise("huber_loss", input, target, reduction, delta, 0.5, delta)
}

/// `quad · d²` where `|d| < at` (`<=` makes no difference: the pieces meet), `slope · (|d| -
/// at / 2)` elsewhere.
fn piecewise<T: FloatElement, D: Backend>(
    op: &'static str,
    input: &Tensor<T, D>,
    target: &Tensor<T, D>,
    reduction: Reduction,
    at: f64,
    quad: f64,
    slope: f64,
) -> Result<Tensor<T, D>> {
    if at.is_nan() || at < 0.0 {
        return Err(Error::InvalidArgument {
            op,
            msg: format!("the threshold must be non-negative, got {at}"),
        });
    }
    pair(op, input, target)?;
    let d = input.try_sub(target)?;
    let a = d.try_abs()?;
    if at == 0.0 {
        return reduce(a.try_mul_scalar(T::from_f64(slope))?, reduction);
    }
    // The quadratic piece of d, 0 on the linear piece, so that the branch not taken holds no
    // infinity (whose gradient times 0 would be NaN; PyTorch's slope is ±1 at ±inf). NaN takes
    // the quadratic piece, whose gradient `2·quad·d` is then NaN, as PyTorch's; the pieces
    // agree in value and slope at |d| = at.
    let linear = a.try_gt_scalar(T::from_f64(at))?;
    let zero = Tensor::scalar_on(T::ZERO, d.device_handle())?;
    let dq = Tensor::try_where(&linear, &zero, &d)?;
    let inner = dq.try_mul(&dq)?.try_mul_scalar(T::from_f64(quad))?;
    let outer = a
        .try_add_scalar(T::from_f64(-at / 2.0))?
        .try_mul_scalar(T::from_f64(slope))?;
    let per = Tensor::try_where(&linear, &outer, &inner)?;
    reduce(per, reduction)
}

/// The Kullback–Leibler divergence of `target` from the log-probabilities `input` (PyTorch
/// `kl_div`): per element `target · (log(target) - input)`, 0 where `target` is 0; with
/// `log_target` the target holds log-probabilities, `exp(target) · (target - input)`.
/// `Reduction::Mean` averages over every element (PyTorch's `mean`); the true mean divergence
/// per sample, PyTorch's `batchmean`, is [`kl_div_batchmean`].
///
/// # Errors
/// `Broadcast` when the shapes do not broadcast.
pub fn kl_div<T: FloatElement, D: Backend>(
    input: &Tensor<T, D>,
    target: &Tensor<T, D>,
    reduction: Reduction,
    log_target: bool,
) -> Result<Tensor<T, D>> {
    pair("kl_div", input, target)?;
    let per = if log_target {
        target.try_exp()?.try_mul(&target.try_sub(input)?)?
    } else {
        // xlogy(t, t) - t·input, PyTorch's formula: 0 at t = 0, where the target's gradient
        // is NaN (xlogy's `t / t`), as in PyTorch.
        target.try_xlogy(target)?.try_sub(&target.try_mul(input)?)?
    };
    reduce(per, reduction)
}

/// [`kl_div`] summed and divided by the batch size, `input`'s first dimension (PyTorch's
/// `reduction="batchmean"`, the KL divergence per sample that its documentation recommends;
/// a 0-d input is not divided).
///
/// ```
/// use typed_tensor::nn::{self, Reduction};
/// use typed_tensor::prelude::*;
/// let logp = Tensor::<f64>::from_vec(vec![0.5f64.ln(), 0.5f64.ln(), 0.9f64.ln(), 0.1f64.ln()], [2, 2])?;
/// let p = Tensor::<f64>::from_vec(vec![0.5, 0.5, 0.5, 0.5], [2, 2])?;
/// let kl = nn::kl_div_batchmean(&logp, &p, false)?;
/// let sum = nn::kl_div(&logp, &p, Reduction::Sum, false)?;
/// assert!((kl.item() - sum.item() / 2.0).abs() < 1e-15);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// As [`kl_div`].
pub fn kl_div_batchmean<T: FloatElement, D: Backend>(
    input: &Tensor<T, D>,
    target: &Tensor<T, D>,
    log_target: bool,
) -> Result<Tensor<T, D>> {
    let sum = kl_div(input, target, Reduction::Sum, log_target)?;
    match input.dims().first() {
        Some(&n) => sum.try_div_scalar(T::from_f64(n as f64)),
        None => Ok(sum),
    }
}

/// Binary cross-entropy of `logits` against probabilities `target` (PyTorch
/// `binary_cross_entropy_with_logits`), computed stably as
/// `max(x, 0) - x·y + log(1 + exp(-|x|))`.
///
/// # Errors
/// `Broadcast` when the shapes do not broadcast.
pub fn binary_cross_entropy_with_logits<T: FloatElement, D: Backend>(
    logits: &Tensor<T, D>,
    target: &Tensor<T, D>,
    reduction: Reduction,
) -> Result<Tensor<T, D>> {
    pair("binary_cross_entropy_with_logits", logits, target)?;
    let per = logits.try_softplus()?.try_sub(&logits.try_mul(target)?)?;
    reduce(per, reduction)
}

/// [`binary_cross_entropy_with_logits`] with PyTorch's `weight` and `pos_weight`:
/// `weight · ((1 - y)·x + (1 + (pos_weight - 1)·y) · softplus(-x))` per element, where
/// `weight` broadcasts with the loss (a rescaling per element or per sample) and `pos_weight`
/// with the target (one factor per class along the last axis, scaling the positive term:
/// above 1 it raises recall). `Mean` averages over the elements, as PyTorch.
///
/// ```
/// use typed_tensor::nn::{self, Reduction};
/// use typed_tensor::prelude::*;
/// let x = Tensor::<f32>::from_vec(vec![0.3, -1.2, 2.0, 0.7], [2, 2])?;
/// let y = Tensor::<f32>::from_vec(vec![1.0, 0.0, 0.0, 1.0], [2, 2])?;
/// let pos = Tensor::<f32>::from_vec(vec![3.0, 1.0], [2])?; // class 0's positives count thrice
/// let l = nn::binary_cross_entropy_with_logits_weighted(&x, &y, None, Some(&pos), Reduction::None)?;
/// let plain = nn::binary_cross_entropy_with_logits(&x, &y, Reduction::None)?;
/// assert!((l.to_vec()[0] - 3.0 * plain.to_vec()[0]).abs() < 1e-6);
/// let rest = l.to_vec().iter().zip(plain.to_vec()).skip(1).all(|(a, b)| (a - b).abs() < 1e-6);
/// assert!(rest); // pos_weight 1, no weight: the plain loss
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `Broadcast` when `logits` and `target`, the weight and the loss, or `pos_weight` and the
/// target do not broadcast (the weight may not widen the loss's shape).
pub fn binary_cross_entropy_with_logits_weighted<T: FloatElement, D: Backend>(
    logits: &Tensor<T, D>,
    target: &Tensor<T, D>,
    weight: Option<&Tensor<T, D>>,
    pos_weight: Option<&Tensor<T, D>>,
    reduction: Reduction,
) -> Result<Tensor<T, D>> {
    let op = "binary_cross_entropy_with_logits";
    let shape = crate::shape::broadcast_shapes(op, logits.shape(), target.shape())?;
    for w in weight.into_iter().chain(pos_weight) {
        if crate::shape::broadcast_shapes(op, &shape, w.shape())? != shape {
            return Err(Error::Broadcast {
                op,
                lhs: shape.clone(),
                rhs: w.shape().clone(),
            });
        }
    }
    let mut per = match pos_weight {
        // (1 - y)·x + (1 + (p - 1)·y)·softplus(-x), PyTorch's form.
        Some(p) => {
            let lw = p
                .try_sub_scalar(T::ONE)?
                .try_mul(target)?
                .try_add_scalar(T::ONE)?;
            target
                .try_rsub_scalar(T::ONE)?
                .try_mul(logits)?
                .try_add(&lw.try_mul(&logits.try_neg()?.try_softplus()?)?)?
        }
        None => logits.try_softplus()?.try_sub(&logits.try_mul(target)?)?,
    };
    if let Some(w) = weight {
        per = per.try_mul(w)?;
    }
    reduce(per, reduction)
}

/// `x · wᵀ + b` (PyTorch `linear`): `x` is `(..., in)`, `weight` `(out, in)`, `bias` `(out)`.
///
/// # Errors
/// `ShapeMismatch` when `in` differs; `Broadcast` for a bias of the wrong length.
pub fn linear<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    weight: &Tensor<T, D>,
    bias: Option<&Tensor<T, D>>,
) -> Result<Tensor<T, D>> {
    let (xd, wd) = (x.dims(), weight.dims());
    if wd.len() != 2 || xd.last() != wd.last() {
        return Err(Error::ShapeMismatch {
            op: "linear",
            lhs: x.shape().clone(),
            rhs: weight.shape().clone(),
            msg: "x (..., in) needs a weight (out, in) with the same in-features".into(),
        });
    }
    if let Some(b) = bias {
        crate::shape::broadcast_shapes("linear", &[wd[0]].into(), b.shape())?;
    }
    let y = x.try_matmul(&weight.t())?;
    match bias {
        Some(b) => y.try_add(b),
        None => Ok(y),
    }
}
