//! `nll_loss` and `cross_entropy` with PyTorch's options: class weights, `ignore_index`, label
//! smoothing, and class-probability targets. Composed of recorded ops, so every device runs
//! them and they have gradients; the plain [`nll_loss`](super::nll_loss) and
//! [`cross_entropy`](super::cross_entropy) stay the fused, option-free forms.
//!
//! ```
//! use typed_tensor::nn::{self, ClassLossOptions};
//! use typed_tensor::prelude::*;
//!
//! let logits = Tensor::<f32>::from_vec(vec![2.0, 0.5, -1.0, 0.1, 0.2, 0.3], [2, 3])?;
//! // The second sample is padding (PyTorch's default ignore_index, -100): only the first counts.
//! let target = Tensor::<i64>::from_vec(vec![0, -100], [2])?;
//! let loss = nn::cross_entropy_with(&logits, &target, ClassLossOptions::default())?;
//! let first = nn::cross_entropy(&logits.narrow(0, 0, 1)?, &target.narrow(0, 0, 1)?, nn::Reduction::Mean, 0.0)?;
//! assert!((loss.item() - first.item()).abs() < 1e-6);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use super::loss::{Reduction, reduce, squeeze_none as squeeze};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// The options of [`nll_loss_with`] and [`cross_entropy_with`], PyTorch's defaults in
/// `default()`: no weights, `ignore_index` -100, `Mean`, no label smoothing.
pub struct ClassLossOptions<'a, T: FloatElement, D: Backend> {
    /// One weight per class, shape `(C)`: each sample's loss is scaled by its target's weight,
    /// and `Mean` divides by the sum of the weights of the samples counted (PyTorch's weighted
    /// mean), not by their number.
    pub weight: Option<&'a Tensor<T, D>>,
    /// Samples whose target is this value count for nothing (a loss of 0, no gradient, left
    /// out of `Mean`'s divisor); `None`: every target must be a class in `0..C`.
    pub ignore_index: Option<i64>,
    /// How the per-sample losses are combined.
    pub reduction: Reduction,
    /// `ε ∈ [0, 1]`: the target distribution mixes in the uniform one, `(1 - ε)·onehot + ε/C`
    /// (`cross_entropy_with` only; `nll_loss_with` refuses anything but 0).
    pub label_smoothing: f64,
}

impl<T: FloatElement, D: Backend> Default for ClassLossOptions<'_, T, D> {
    fn default() -> Self {
        ClassLossOptions {
            weight: None,
            ignore_index: Some(-100),
            reduction: Reduction::Mean,
            label_smoothing: 0.0,
        }
    }
}

impl<T: FloatElement, D: Backend> Clone for ClassLossOptions<'_, T, D> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: FloatElement, D: Backend> Copy for ClassLossOptions<'_, T, D> {}

/// Scores and their target.
type Pair<T, U, D> = (Tensor<T, D>, Tensor<U, D>);

/// `(C)` scores and a 0-d target (PyTorch's unbatched form) as a batch of one.
fn batched<T: FloatElement, D: Backend, U: crate::dtype::Element>(
    scores: &Tensor<T, D>,
    target: &Tensor<U, D>,
    target_ndim: usize,
) -> Result<Option<Pair<T, U, D>>> {
    if scores.ndim() != 1 || target.ndim() != target_ndim {
        return Ok(None);
    }
    Ok(Some((scores.unsqueeze(0)?, target.unsqueeze(0)?)))
}

/// `InvalidArgument` for an `ε` outside `[0, 1]`; `ShapeMismatch` for a weight that is not
/// `(C)`. Returns `C`.
fn check_options<T: FloatElement, D: Backend>(
    op: &'static str,
    scores: &Tensor<T, D>,
    opts: &ClassLossOptions<'_, T, D>,
) -> Result<usize> {
    if !(0.0..=1.0).contains(&opts.label_smoothing) {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "label_smoothing must lie in [0, 1], got {}",
                opts.label_smoothing
            ),
        });
    }
    let classes = if scores.ndim() >= 2 {
        scores.dims()[1]
    } else {
        0
    };
    if let Some(w) = opts.weight
        && (scores.ndim() < 2 || w.dims() != [classes])
    {
        return Err(Error::ShapeMismatch {
            op,
            lhs: scores.shape().clone(),
            rhs: w.shape().clone(),
            msg: "the weight needs one element per class (axis 1 of the scores)".into(),
        });
    }
    Ok(classes)
}

/// `t` (`(N, C, ...)`) times the class weights along axis 1, if any.
fn class_weighted<T: FloatElement, D: Backend>(
    t: Tensor<T, D>,
    weight: Option<&Tensor<T, D>>,
) -> Result<Tensor<T, D>> {
    let Some(w) = weight else {
        return Ok(t);
    };
    let mut dims = vec![1; t.ndim()];
    dims[1] = w.numel();
    t.try_mul(&w.try_reshape(dims)?)
}

/// Per sample (shape of `target`): `-w[t]·log_probs[n, t, ...]`, the weight `w[t]` (0 for an
/// ignored sample), and the mask of ignored samples.
#[allow(clippy::type_complexity)]
fn weighted_nll<T: FloatElement, D: Backend>(
    op: &'static str,
    log_probs: &Tensor<T, D>,
    target: &Tensor<i64, D>,
    opts: &ClassLossOptions<'_, T, D>,
) -> Result<(Tensor<T, D>, Tensor<T, D>, Option<Tensor<bool, D>>)> {
    // Ignored samples read class 0 (never out of range), then weigh nothing.
    let (safe, ignored) = match opts.ignore_index {
        Some(i) => {
            let ignored = target.try_eq_scalar(i)?;
            let zero = Tensor::scalar_on(0i64, target.device_handle())?;
            (Tensor::try_where(&ignored, &zero, target)?, Some(ignored))
        }
        None => (target.clone(), None),
    };
    super::loss::check_classes(op, log_probs, &safe)?;
    let picked = log_probs
        .try_gather(1, &safe.unsqueeze(1)?)?
        .try_reshape(target.dims())?;
    let mut w = match opts.weight {
        Some(w) => w
            .try_index_select(0, &safe.try_flatten()?)?
            .try_reshape(target.dims())?,
        None => Tensor::ones_on(target.dims(), log_probs.device_handle())?,
    };
    if let Some(ignored) = &ignored {
        let zero = Tensor::scalar_on(T::ZERO, log_probs.device_handle())?;
        w = Tensor::try_where(ignored, &zero, &w)?;
    }
    Ok((picked.try_mul(&w)?.try_neg()?, w, ignored))
}

/// `per` combined: `Mean` divides by `denominator`'s sum (PyTorch's weighted mean: NaN when
/// nothing is counted, with a zero gradient, as PyTorch).
fn weighted_reduce<T: FloatElement, D: Backend>(
    per: Tensor<T, D>,
    denominator: &Tensor<T, D>,
    reduction: Reduction,
) -> Result<Tensor<T, D>> {
    let Reduction::Mean = reduction else {
        return reduce(per, reduction);
    };
    let dev = per.device_handle();
    let total = denominator.try_sum(&[], false)?;
    let empty = total.try_eq_scalar(T::ZERO)?;
    let safe = Tensor::try_where(&empty, &Tensor::scalar_on(T::ONE, dev)?, &total)?;
    let mean = per.try_sum(&[], false)?.try_div(&safe)?;
    Tensor::try_where(
        &empty,
        &Tensor::scalar_on(T::from_f64(f64::NAN), dev)?,
        &mean,
    )
}

/// Negative log-likelihood of class `target` under `log_probs` with PyTorch's `weight` and
/// `ignore_index` (PyTorch `nll_loss`): shapes as [`nll_loss`](super::nll_loss); per sample
/// `-weight[t] · log_probs[n, t, ...]`, 0 for an ignored one; `Mean` divides by the summed
/// weights of the samples counted (NaN when none is).
///
/// # Errors
/// As [`nll_loss`](super::nll_loss), for the targets not ignored; `ShapeMismatch` for a weight
/// that is not `(C)`; `InvalidArgument` for a nonzero `label_smoothing`.
pub fn nll_loss_with<T: FloatElement, D: Backend>(
    log_probs: &Tensor<T, D>,
    target: &Tensor<i64, D>,
    opts: ClassLossOptions<'_, T, D>,
) -> Result<Tensor<T, D>> {
    let op = "nll_loss";
    if let Some((x, t)) = batched(log_probs, target, 0)? {
        return squeeze(nll_loss_with(&x, &t, opts)?, opts.reduction);
    }
    check_options(op, log_probs, &opts)?;
    if opts.label_smoothing != 0.0 {
        return Err(Error::InvalidArgument {
            op,
            msg: "label_smoothing is an option of cross_entropy_with only".into(),
        });
    }
    let (per, w, _) = weighted_nll(op, log_probs, target, &opts)?;
    weighted_reduce(per, &w, opts.reduction)
}

/// Cross-entropy of `logits` against class indices with PyTorch's options (PyTorch
/// `cross_entropy`): `nll_loss_with(log_softmax(logits, 1), target)`, and with label smoothing
/// `(1 - ε) · nll + ε/C · smooth`, where `smooth` is `-Σ_c weight[c]·log_softmax[c]` per sample
/// (0 for an ignored one), reduced as the `nll` term (its `Mean` divides by the same summed
/// weights), exactly PyTorch's formula. Shapes as [`cross_entropy`](super::cross_entropy).
///
/// # Errors
/// As [`nll_loss_with`]; `InvalidArgument` for `ε` outside `[0, 1]`.
pub fn cross_entropy_with<T: FloatElement, D: Backend>(
    logits: &Tensor<T, D>,
    target: &Tensor<i64, D>,
    opts: ClassLossOptions<'_, T, D>,
) -> Result<Tensor<T, D>> {
    let op = "cross_entropy";
    if let Some((x, t)) = batched(logits, target, 0)? {
        return squeeze(cross_entropy_with(&x, &t, opts)?, opts.reduction);
    }
    let classes = check_options(op, logits, &opts)?;
    let logp = logits.try_log_softmax(1)?;
    let (nll, w, ignored) = weighted_nll(op, &logp, target, &opts)?;
    let eps = opts.label_smoothing;
    if eps == 0.0 {
        return weighted_reduce(nll, &w, opts.reduction);
    }
    let mut smooth = class_weighted(logp, opts.weight)?
        .try_sum(&[1], false)?
        .try_neg()?;
    if let Some(ignored) = &ignored {
        smooth = smooth.try_masked_fill(ignored, T::ZERO)?;
    }
    let mixed = nll
        .try_mul_scalar(T::from_f64(1.0 - eps))?
        .try_add(&smooth.try_mul_scalar(T::from_f64(eps / classes as f64))?)?;
    weighted_reduce(mixed, &w, opts.reduction)
}

/// Cross-entropy of `logits` against class probabilities (PyTorch `cross_entropy` with a
/// float target): `target` has the shape of `logits`, `(N, C, ...)` or `(C)`, and per sample
/// the loss is `-Σ_c weight[c] · p[c] · log_softmax(logits)[c]`, with `p` smoothed to
/// `(1 - ε)·p + ε/C`; `Mean` divides by the number of samples (`N·d1·...`, not the weights,
/// as PyTorch). `ignore_index` does not apply (it must be `None` or is unused).
///
/// # Errors
/// `ShapeMismatch` when `target`'s shape differs from `logits`' or the weight is not `(C)`;
/// `InvalidArgument` for `ε` outside `[0, 1]`; `Axis` for 0-d logits.
pub fn cross_entropy_probs<T: FloatElement, D: Backend>(
    logits: &Tensor<T, D>,
    target: &Tensor<T, D>,
    opts: ClassLossOptions<'_, T, D>,
) -> Result<Tensor<T, D>> {
    let op = "cross_entropy";
    if let Some((x, t)) = batched(logits, target, 1)? {
        return squeeze(cross_entropy_probs(&x, &t, opts)?, opts.reduction);
    }
    if logits.dims() != target.dims() {
        return Err(Error::ShapeMismatch {
            op,
            lhs: logits.shape().clone(),
            rhs: target.shape().clone(),
            msg: "class probabilities need the shape of the logits".into(),
        });
    }
    let classes = check_options(op, logits, &opts)?;
    let logp = logits.try_log_softmax(1)?;
    let eps = opts.label_smoothing;
    let p = if eps == 0.0 {
        target.clone()
    } else {
        target
            .try_mul_scalar(T::from_f64(1.0 - eps))?
            .try_add_scalar(T::from_f64(eps / classes as f64))?
    };
    let terms = class_weighted(logp.try_mul(&p)?, opts.weight)?;
    reduce(terms.try_sum(&[1], false)?.try_neg()?, opts.reduction)
}

/// The cross entropy of `target` against the logits `input · Wᵀ + b` (PyTorch
/// `F.linear_cross_entropy`, by its reference definition): `linear_weight` is
/// `(C, *out_features, in)`, flattened to `(C·Π out, in)` for [`super::linear`], and the
/// logits are reshaped to `(*input.shape[..-1], C, *out_features)` before
/// [`cross_entropy_with`] with `opts`. `linear_bias` is `(C, *out_features)`. The usual
/// language-model head is an `(N, in)` input, a `(V, in)` weight and `(N)` class indices.
///
/// ```
/// use typed_tensor::nn::{self, ClassLossOptions};
/// use typed_tensor::prelude::*;
/// let h = Tensor::<f64>::from_vec(vec![0.5, -1.0, 2.0, 0.0], [2, 2])?; // (N, in)
/// let w = Tensor::<f64>::from_vec(vec![1.0, 0.0, 0.0, 1.0, 1.0, 1.0], [3, 2])?; // (V, in)
/// let y = tensor![2i64, 0];
/// let fused = nn::linear_cross_entropy(&h, &w, &y, None, ClassLossOptions::default())?;
/// let logits = nn::linear(&h, &w, None)?;
/// let plain = nn::cross_entropy_with(&logits, &y, ClassLossOptions::default())?;
/// assert_eq!(fused.item(), plain.item());
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `InvalidArgument` for a weight of fewer than two dimensions; `ShapeMismatch` when
/// `input`'s last dimension is not the weight's, or the bias is not `(C, *out_features)`; as
/// [`cross_entropy_with`].
pub fn linear_cross_entropy<T: FloatElement, D: Backend>(
    input: &Tensor<T, D>,
    linear_weight: &Tensor<T, D>,
    target: &Tensor<i64, D>,
    linear_bias: Option<&Tensor<T, D>>,
    opts: ClassLossOptions<'_, T, D>,
) -> Result<Tensor<T, D>> {
    let logits = head_logits(input, linear_weight, linear_bias)?;
    cross_entropy_with(&logits, target, opts)
}

/// [`linear_cross_entropy`] with class probabilities as the target (shaped as the logits),
/// through [`cross_entropy_probs`].
///
/// # Errors
/// As [`linear_cross_entropy`] and [`cross_entropy_probs`].
pub fn linear_cross_entropy_probs<T: FloatElement, D: Backend>(
    input: &Tensor<T, D>,
    linear_weight: &Tensor<T, D>,
    target: &Tensor<T, D>,
    linear_bias: Option<&Tensor<T, D>>,
    opts: ClassLossOptions<'_, T, D>,
) -> Result<Tensor<T, D>> {
    let logits = head_logits(input, linear_weight, linear_bias)?;
    cross_entropy_probs(&logits, target, opts)
}

/// The logits of [`linear_cross_entropy`], `(*input.shape[..-1], C, *out_features)`.
fn head_logits<T: FloatElement, D: Backend>(
    input: &Tensor<T, D>,
    weight: &Tensor<T, D>,
    bias: Option<&Tensor<T, D>>,
) -> Result<Tensor<T, D>> {
    const OP: &str = "linear_cross_entropy";
    let wd = weight.dims();
    if wd.len() < 2 {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!(
                "the weight must be (C, *out_features, in), got shape {}",
                weight.shape()
            ),
        });
    }
    let k = wd[wd.len() - 1];
    let classes = &wd[..wd.len() - 1];
    if let Some(b) = bias
        && b.dims() != classes
    {
        return Err(Error::ShapeMismatch {
            op: OP,
            lhs: weight.shape().clone(),
            rhs: b.shape().clone(),
            msg: format!("the bias must be (C, *out_features) = {classes:?}"),
        });
    }
    let rows: usize = classes.iter().product();
    let w2 = weight.try_reshape([rows, k])?;
    let b2 = bias.map(|b| b.try_reshape([rows])).transpose()?;
    let logits = super::linear(input, &w2, b2.as_ref())?;
    let batch = &input.dims()[..input.ndim().saturating_sub(1)];
    let shape: Vec<usize> = batch.iter().chain(classes).copied().collect();
    logits.try_reshape(shape)
}
