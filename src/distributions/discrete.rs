//! The discrete families: Bernoulli and Categorical (PyTorch's formulas).

use super::{Distribution, KlDivergence, check, eps, extended};
use crate::backend::Backend;
use crate::dtype::{Dtype, FloatElement};
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;

/// `log p - log(1 - p)` of the probabilities clamped to `[eps, 1 - eps]` (PyTorch's
/// `probs_to_logits(is_binary=True)`), or `log p` of them (`is_binary=False`).
fn probs_to_logits<T: FloatElement, D: Backend>(
    p: &Tensor<T, D>,
    binary: bool,
) -> Result<Tensor<T, D>> {
    let e = eps::<T>();
    let p = p.try_clip(T::from_f64(e), T::from_f64(1.0 - e))?;
    match binary {
        true => p.try_log()?.try_sub(&p.try_neg()?.try_log1p()?),
        false => p.try_log(),
    }
}

/// Every element not NaN.
fn not_nan<T: FloatElement, D: Backend>(op: &'static str, t: &Tensor<T, D>) -> Result<()> {
    check(
        op,
        t.try_is_nan()?.try_logical_not()?,
        "logits must not be NaN",
    )
}

/// The Bernoulli distribution: 1 with probability `probs`, else 0 (PyTorch `Bernoulli`).
#[derive(Clone)]
pub struct Bernoulli<T: FloatElement, D: Backend> {
    pub(super) probs: Tensor<T, D>,
    pub(super) logits: Tensor<T, D>,
}

impl<T: FloatElement, D: Backend> Bernoulli<T, D> {
    /// From the probabilities of 1.
    ///
    /// # Errors
    /// `InvalidArgument` for a probability outside `[0, 1]` or NaN.
    pub fn from_probs(probs: &Tensor<T, D>) -> Result<Self> {
        let ok = probs
            .try_ge_scalar(T::ZERO)?
            .try_logical_and(&probs.try_le_scalar(T::ONE)?)?;
        check("Bernoulli", ok, "probs must lie in [0, 1]")?;
        Ok(Bernoulli {
            logits: probs_to_logits(probs, true)?,
            probs: probs.clone(),
        })
    }
    /// From the log-odds `log(p / (1 - p))`.
    ///
    /// # Errors
    /// `InvalidArgument` for a NaN logit.
    pub fn from_logits(logits: &Tensor<T, D>) -> Result<Self> {
        not_nan("Bernoulli", logits)?;
        Ok(Bernoulli {
            probs: logits.try_sigmoid()?,
            logits: logits.clone(),
        })
    }
    /// The probabilities of 1 (the mean).
    pub fn probs(&self) -> &Tensor<T, D> {
        &self.probs
    }
    /// The log-odds.
    pub fn logits(&self) -> &Tensor<T, D> {
        &self.logits
    }
    /// The variance, `p (1 - p)`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn variance(&self) -> Result<Tensor<T, D>> {
        self.probs.try_mul(&self.probs.try_rsub_scalar(T::ONE)?)
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for Bernoulli<T, D> {
    type Value = Tensor<T, D>;
    fn batch_shape(&self) -> &Shape {
        self.probs.shape()
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        crate::autograd::no_grad(|| {
            let shape = extended(sample_shape, self.probs.shape());
            self.probs.expand(shape)?.try_bernoulli()
        })
    }
    /// `value · logits - softplus(logits)`, minus PyTorch's binary cross-entropy with logits.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let ok = value
            .try_eq_scalar(T::ZERO)?
            .try_logical_or(&value.try_eq_scalar(T::ONE)?)?;
        check("Bernoulli.log_prob", ok, "the value must be 0 or 1")?;
        self.logits
            .try_mul(value)?
            .try_sub(&self.logits.try_softplus()?)
    }
    /// `softplus(logits) - logits · p`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        self.logits
            .try_softplus()?
            .try_sub(&self.logits.try_mul(&self.probs)?)
    }
}

impl<T: FloatElement, D: Backend> KlDivergence<Bernoulli<T, D>> for Bernoulli<T, D> {
    type Out = Tensor<T, D>;
    /// PyTorch's `_kl_bernoulli_bernoulli`: infinite where `q` gives 0 (or 1) a mass that
    /// `self` does not.
    fn kl_divergence(&self, q: &Bernoulli<T, D>) -> Result<Tensor<T, D>> {
        let (p, dev) = (&self.probs, self.probs.device_handle());
        let inf = Tensor::scalar_on(T::from_f64(f64::INFINITY), dev)?;
        let zero = Tensor::scalar_on(T::ZERO, dev)?;
        let sp = |t: &Tensor<T, D>| t.try_softplus();
        let t1 = p.try_mul(&sp(&q.logits.try_neg()?)?.try_sub(&sp(&self.logits.try_neg()?)?)?)?;
        let t1 = Tensor::try_where(&q.probs.try_eq_scalar(T::ZERO)?, &inf, &t1)?;
        let t1 = Tensor::try_where(&p.try_eq_scalar(T::ZERO)?, &zero, &t1)?;
        let t2 = p
            .try_rsub_scalar(T::ONE)?
            .try_mul(&sp(&q.logits)?.try_sub(&sp(&self.logits)?)?)?;
        let t2 = Tensor::try_where(&q.probs.try_eq_scalar(T::ONE)?, &inf, &t2)?;
        let t2 = Tensor::try_where(&p.try_eq_scalar(T::ONE)?, &zero, &t2)?;
        t1.try_add(&t2)
    }
}

/// The categorical distribution over `K` classes along the last axis of `probs` or `logits`
/// (PyTorch `Categorical`): the batch shape is the other axes; samples are `i64` indices.
#[derive(Clone)]
pub struct Categorical<T: FloatElement, D: Backend> {
    pub(super) probs: Tensor<T, D>,
    pub(super) logits: Tensor<T, D>,
    pub(super) batch: Shape,
}

impl<T: FloatElement, D: Backend> Categorical<T, D> {
    fn batch_of(op: &'static str, t: &Tensor<T, D>) -> Result<Shape> {
        match t.dims().split_last() {
            Some((&k, batch)) if k > 0 => Ok(Shape::new(batch.to_vec())),
            _ => Err(Error::InvalidArgument {
                op,
                msg: format!(
                    "needs at least one class along the last axis, got shape {}",
                    t.shape()
                ),
            }),
        }
    }
    /// From non-negative weights along the last axis, normalised to sum to 1.
    ///
    /// # Errors
    /// `InvalidArgument` for a 0-d or classless tensor, a negative, NaN or infinite weight, or
    /// a row without a positive weight.
    pub fn from_probs(probs: &Tensor<T, D>) -> Result<Self> {
        let batch = Self::batch_of("Categorical", probs)?;
        let probs = probs.try_div(&probs.try_sum(&[-1], true)?)?;
        let ok = probs
            .try_ge_scalar(T::ZERO)?
            .try_logical_and(&probs.try_is_finite()?)?;
        check(
            "Categorical",
            ok,
            "probs must be non-negative and finite, each row with a positive weight",
        )?;
        Ok(Categorical {
            logits: probs_to_logits(&probs, false)?,
            probs,
            batch,
        })
    }
    /// From unnormalised log-probabilities along the last axis.
    ///
    /// # Errors
    /// `InvalidArgument` for a 0-d or classless tensor or a NaN logit.
    pub fn from_logits(logits: &Tensor<T, D>) -> Result<Self> {
        let batch = Self::batch_of("Categorical", logits)?;
        not_nan("Categorical", logits)?;
        let logits = logits.try_sub(&logits.try_logsumexp(&[-1], true)?)?;
        Ok(Categorical {
            probs: logits.try_softmax(-1)?,
            logits,
            batch,
        })
    }
    /// The class probabilities, normalised.
    pub fn probs(&self) -> &Tensor<T, D> {
        &self.probs
    }
    /// The normalised log-probabilities.
    pub fn logits(&self) -> &Tensor<T, D> {
        &self.logits
    }
    /// The number of classes.
    pub fn num_classes(&self) -> usize {
        self.probs.dims()[self.probs.ndim() - 1]
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for Categorical<T, D> {
    type Value = Tensor<i64, D>;
    fn batch_shape(&self) -> &Shape {
        &self.batch
    }
    /// Class indices, drawn row by row with `multinomial` (with replacement).
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor<i64, D>> {
        let shape = extended(sample_shape, &self.batch);
        let n = crate::shape::numel_of(sample_shape.iter().copied());
        let dev = self.probs.device_handle();
        if n == 0 || self.batch.numel() == 0 {
            return Tensor::zeros_on(shape, dev);
        }
        let k = self.num_classes();
        let rows = self.probs.try_reshape([self.batch.numel(), k])?;
        let drawn = crate::autograd::no_grad(|| rows.try_multinomial(n, true))?; // (rows, n)
        drawn.t().try_contiguous()?.try_reshape(shape)
    }
    /// The normalised logit of each value's class; `value` broadcasts with the batch shape.
    fn log_prob(&self, value: &Tensor<i64, D>) -> Result<Tensor<T, D>> {
        let k = self.num_classes() as i64;
        let ok = value
            .try_ge_scalar(0)?
            .try_logical_and(&value.try_lt_scalar(k)?)?;
        check(
            "Categorical.log_prob",
            ok,
            "the value must be a class index in 0..K",
        )?;
        let v = value.unsqueeze(-1)?;
        let full =
            crate::shape::broadcast_shapes("Categorical.log_prob", v.shape(), self.logits.shape())?;
        let mut at = full.dims().to_vec();
        *at.last_mut().expect("at least one axis") = 1;
        let idx = v.expand(at)?.try_contiguous()?;
        self.logits
            .expand(full)?
            .try_gather(-1, &idx)?
            .squeeze_dims(&[-1])
    }
    /// `-Σ p log p` over the classes (the logits clamped to the dtype's lowest value, so a
    /// class of probability 0 adds 0).
    fn entropy(&self) -> Result<Tensor<T, D>> {
        let lowest = match T::DTYPE {
            Dtype::Float16 => -65504.0,
            Dtype::Bfloat16 => -3.389_531_389_251_535e38,
            Dtype::Float32 => f64::from(f32::MIN),
            _ => f64::MIN,
        };
        let l = self.logits.try_clamp_min(T::from_f64(lowest))?;
        l.try_mul(&self.probs)?.try_sum(&[-1], false)?.try_neg()
    }
}

impl<T: FloatElement, D: Backend> KlDivergence<Categorical<T, D>> for Categorical<T, D> {
    type Out = Tensor<T, D>;
    /// `Σ p (log p - log q)`, infinite where `q` gives 0 to a class `self` does not.
    fn kl_divergence(&self, q: &Categorical<T, D>) -> Result<Tensor<T, D>> {
        let dev = self.probs.device_handle();
        let t = self.probs.try_mul(&self.logits.try_sub(&q.logits)?)?;
        let inf = Tensor::scalar_on(T::from_f64(f64::INFINITY), dev)?;
        let zero = Tensor::scalar_on(T::ZERO, dev)?;
        let t = Tensor::try_where(&q.probs.try_eq_scalar(T::ZERO)?, &inf, &t)?;
        let t = Tensor::try_where(&self.probs.try_eq_scalar(T::ZERO)?, &zero, &t)?;
        t.try_sum(&[-1], false)
    }
}

/// The Poisson distribution with `rate` λ ≥ 0 (PyTorch `Poisson`); samples are counts as `T`.
#[derive(Clone)]
pub struct Poisson<T: FloatElement, D: Backend> {
    rate: Tensor<T, D>,
}

impl<T: FloatElement, D: Backend> Poisson<T, D> {
    /// The distribution of counts with mean `rate`.
    ///
    /// # Errors
    /// `InvalidArgument` for a negative or NaN rate.
    pub fn new(rate: &Tensor<T, D>) -> Result<Self> {
        check(
            "Poisson",
            rate.try_ge_scalar(T::ZERO)?,
            "rate must be non-negative",
        )?;
        Ok(Poisson { rate: rate.clone() })
    }
    /// The rate λ.
    pub fn rate(&self) -> &Tensor<T, D> {
        &self.rate
    }
    /// The mean (and the variance), the rate.
    pub fn mean(&self) -> Tensor<T, D> {
        self.rate.clone()
    }
    /// The variance, the rate.
    pub fn variance(&self) -> Tensor<T, D> {
        self.rate.clone()
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for Poisson<T, D> {
    type Value = Tensor<T, D>;
    fn batch_shape(&self) -> &Shape {
        self.rate.shape()
    }
    /// Counts drawn with [`Tensor::try_poisson`] (on the host, so every device gives the same
    /// values for a seed).
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        crate::autograd::no_grad(|| {
            let shape = extended(sample_shape, self.rate.shape());
            self.rate.expand(shape)?.try_poisson()
        })
    }
    /// `xlogy(value, λ) - λ - lgamma(value + 1)`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let whole = value
            .try_ge_scalar(T::ZERO)?
            .try_logical_and(&value.try_eq(&value.try_floor()?)?)?;
        check(
            "Poisson.log_prob",
            whole,
            "the value must be a count 0, 1, 2, ...",
        )?;
        value
            .try_xlogy(&self.rate)?
            .try_sub(&self.rate)?
            .try_sub(&value.try_add_scalar(T::ONE)?.try_lgamma()?)
    }
    /// PyTorch has no closed form either: an `Err`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        Err(Error::InvalidArgument {
            op: "Poisson.entropy",
            msg: "the Poisson entropy has no closed form (PyTorch raises NotImplementedError)"
                .into(),
        })
    }
}

impl<T: FloatElement, D: Backend> KlDivergence<Poisson<T, D>> for Poisson<T, D> {
    type Out = Tensor<T, D>;
    /// `λ_p (log λ_p - log λ_q) - (λ_p - λ_q)`.
    fn kl_divergence(&self, q: &Poisson<T, D>) -> Result<Tensor<T, D>> {
        let (p, r) = (&self.rate, &q.rate);
        p.try_mul(&p.try_log()?.try_sub(&r.try_log()?)?)?
            .try_sub(&p.try_sub(r)?)
    }
}
