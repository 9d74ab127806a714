//! One-hot categoricals and their continuous relaxations (PyTorch's formulas):
//! `OneHotCategorical`, and the Concrete / Gumbel-softmax families `LogitRelaxedBernoulli`,
//! `RelaxedBernoulli` and `RelaxedOneHotCategorical`, whose `rsample` is differentiable in
//! the logits (Maddison et al. 2017, "The Concrete Distribution"; Jang et al. 2017,
//! "Categorical Reparameterization with Gumbel-Softmax").

use super::transformed::{Rsample, Transform, TransformedDistribution};
use super::{Categorical, Distribution, KlDivergence, check, eps, extended};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::shape::{Shape, broadcast_shapes};
use crate::tensor::Tensor;

/// `p` clamped into `[eps, 1 - eps]` of its dtype (PyTorch's `distributions.utils.clamp_probs`).
fn clamp_eps<T: FloatElement, D: Backend>(p: &Tensor<T, D>) -> Result<Tensor<T, D>> {
    let e = eps::<T>();
    p.try_clip(T::from_f64(e), T::from_f64(1.0 - e))
}

/// Uniform draws of `shape` in `[eps, 1 - eps]`, on `like`'s device.
fn uniforms<T: FloatElement, D: Backend>(
    like: &Tensor<T, D>,
    shape: Vec<usize>,
) -> Result<Tensor<T, D>> {
    clamp_eps(&Tensor::rand_on(shape, like.device_handle())?)
}

fn positive_temperature<T: FloatElement, D: Backend>(
    op: &'static str,
    t: &Tensor<T, D>,
) -> Result<()> {
    let ok = t
        .try_gt_scalar(T::ZERO)?
        .try_logical_and(&t.try_is_finite()?)?;
    check(op, ok, "temperature must be positive and finite")
}

/// The categorical of either class weights or logits (exactly one of the two), its errors
/// naming `op`.
pub(super) fn categorical<T: FloatElement, D: Backend>(
    op: &'static str,
    probs: Option<&Tensor<T, D>>,
    logits: Option<&Tensor<T, D>>,
) -> Result<Categorical<T, D>> {
    match (probs, logits) {
        (Some(p), None) => Categorical::from_probs(p),
        (None, Some(l)) => Categorical::from_logits(l),
        _ => Err(Error::InvalidArgument {
            op,
            msg: "pass exactly one of probs and logits".into(),
        }),
    }
    .map_err(|e| e.renamed(op))
}

/// The categorical distribution with one-hot samples (PyTorch `OneHotCategorical`): a sample
/// is a `(..., K)` float vector with a single 1, the event shape `[K]`.
///
/// ```
/// use typed_tensor::distributions::{Distribution, OneHotCategorical};
/// use typed_tensor::prelude::*;
/// let d = OneHotCategorical::from_probs(&tensor![0.25f64, 0.75])?;
/// let s = d.sample(&[5])?; // (5, 2), each row [1, 0] or [0, 1]
/// assert!(s.try_sum(&[1], false)?.to_vec().iter().all(|&v| v == 1.0));
/// let lp = d.log_prob(&tensor![0.0f64, 1.0])?;
/// assert!((lp.item() - 0.75f64.ln()).abs() < 1e-15);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
#[derive(Clone)]
pub struct OneHotCategorical<T: FloatElement, D: Backend> {
    pub(super) categorical: Categorical<T, D>,
}

impl<T: FloatElement, D: Backend> OneHotCategorical<T, D> {
    /// From non-negative class weights along the last axis, normalised (as
    /// [`Categorical::from_probs`]).
    ///
    /// # Errors
    /// As [`Categorical::from_probs`].
    pub fn from_probs(probs: &Tensor<T, D>) -> Result<Self> {
        let categorical = categorical("OneHotCategorical", Some(probs), None)?;
        Ok(OneHotCategorical { categorical })
    }
    /// From unnormalised log-probabilities along the last axis.
    ///
    /// # Errors
    /// As [`Categorical::from_logits`].
    pub fn from_logits(logits: &Tensor<T, D>) -> Result<Self> {
        let categorical = categorical("OneHotCategorical", None, Some(logits))?;
        Ok(OneHotCategorical { categorical })
    }
    /// The class probabilities, normalised (also the mean).
    pub fn probs(&self) -> &Tensor<T, D> {
        self.categorical.probs()
    }
    /// The normalised log-probabilities.
    pub fn logits(&self) -> &Tensor<T, D> {
        self.categorical.logits()
    }
    /// The number of classes `K`.
    pub fn num_classes(&self) -> usize {
        self.categorical.num_classes()
    }
    /// The variance of each coordinate, `p (1 - p)`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn variance(&self) -> Result<Tensor<T, D>> {
        let p = self.probs();
        p.try_mul(&p.try_rsub_scalar(T::ONE)?)
    }
    /// One-hot samples whose gradient is that of the probabilities: `sample + (p -
    /// p.detach())` (PyTorch `OneHotCategoricalStraightThrough.rsample`, the straight-through
    /// estimator of Bengio et al. 2013). The values are the plain samples'.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample_straight_through(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        let p = self.probs();
        self.sample(sample_shape)?.try_add(&p.try_sub(&p.detach())?)
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for OneHotCategorical<T, D> {
    type Value = Tensor<T, D>;
    fn batch_shape(&self) -> &Shape {
        self.categorical.batch_shape()
    }
    fn event_shape(&self) -> Vec<usize> {
        vec![self.num_classes()]
    }
    /// The categorical's class indices, one-hot encoded.
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        let idx = self.categorical.sample(sample_shape)?;
        crate::nn::one_hot(&idx, Some(self.num_classes()))?.try_cast::<T>()
    }
    /// The log-probability of the value's class; the value must be one-hot over the `K`
    /// classes of the last axis.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        const OP: &str = "OneHotCategorical.log_prob";
        let k = self.num_classes();
        if value.dims().last() != Some(&k) {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!(
                    "needs one-hot values (..., {k}), got shape {}",
                    value.shape()
                ),
            });
        }
        let binary = value
            .try_eq_scalar(T::ZERO)?
            .try_logical_or(&value.try_eq_scalar(T::ONE)?)?
            .try_all(&[-1], false)?;
        let one = value.try_sum(&[-1], false)?.try_eq_scalar(T::ONE)?;
        let ok = binary.try_logical_and(&one)?;
        check(
            OP,
            ok,
            "the value must be one-hot (a single 1, zeros elsewhere)",
        )?;
        self.categorical.log_prob(&value.try_argmax(&[-1], false)?)
    }
    fn entropy(&self) -> Result<Tensor<T, D>> {
        self.categorical.entropy()
    }
}

impl<T: FloatElement, D: Backend> KlDivergence<OneHotCategorical<T, D>>
    for OneHotCategorical<T, D>
{
    type Out = Tensor<T, D>;
    /// The categoricals' divergence (PyTorch's `_kl_onehotcategorical_onehotcategorical`).
    fn kl_divergence(&self, q: &OneHotCategorical<T, D>) -> Result<Tensor<T, D>> {
        self.categorical.kl_divergence(&q.categorical)
    }
}

/// The logit of a [`RelaxedBernoulli`] variable (PyTorch `LogitRelaxedBernoulli`): draws are
/// `(logit(u) + logits) / temperature` for uniform `u`, real numbers.
#[derive(Clone)]
pub struct LogitRelaxedBernoulli<T: FloatElement, D: Backend> {
    pub(super) temperature: Tensor<T, D>,
    pub(super) probs: Tensor<T, D>,
    pub(super) logits: Tensor<T, D>,
    pub(super) batch: Shape,
}

impl<T: FloatElement, D: Backend> LogitRelaxedBernoulli<T, D> {
    /// From the temperature and either the probabilities of 1 or their log-odds (one of the
    /// two), broadcast together into the batch shape.
    ///
    /// # Errors
    /// `InvalidArgument` unless exactly one of `probs`/`logits` is given, for a probability
    /// outside `[0, 1]`, a NaN logit or a temperature that is not positive and finite;
    /// `Broadcast`.
    pub fn new(
        temperature: &Tensor<T, D>,
        probs: Option<&Tensor<T, D>>,
        logits: Option<&Tensor<T, D>>,
    ) -> Result<Self> {
        const OP: &str = "LogitRelaxedBernoulli";
        let (p, l) = super::counts::probs_and_logits(OP, probs, logits)?;
        positive_temperature(OP, temperature)?;
        let (all, batch) = super::broadcast(OP, &[temperature, &p, &l])?;
        let [temperature, probs, logits] = <[Tensor<T, D>; 3]>::try_from(all).expect("three");
        Ok(LogitRelaxedBernoulli {
            temperature,
            probs,
            logits,
            batch,
        })
    }
    /// The temperature.
    pub fn temperature(&self) -> &Tensor<T, D> {
        &self.temperature
    }
    /// The probabilities of 1.
    pub fn probs(&self) -> &Tensor<T, D> {
        &self.probs
    }
    /// The log-odds.
    pub fn logits(&self) -> &Tensor<T, D> {
        &self.logits
    }
    /// `(log u - log(1 - u) + log p - log(1 - p)) / temperature`, `u` and `p` clamped into
    /// `[eps, 1 - eps]`: differentiable in the probabilities and the temperature.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        let shape = extended(sample_shape, &self.batch);
        let p = clamp_eps(&self.probs.expand(shape.clone())?)?;
        let u = uniforms(&self.probs, shape)?;
        let logit = |t: &Tensor<T, D>| t.try_log()?.try_sub(&t.try_neg()?.try_log1p()?);
        logit(&u)?.try_add(&logit(&p)?)?.try_div(&self.temperature)
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for LogitRelaxedBernoulli<T, D> {
    type Value = Tensor<T, D>;
    reparameterized!();
    /// `log t + d - 2 softplus(d)` with `d = logits - t · value`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        super::check_real("LogitRelaxedBernoulli.log_prob", value)?;
        let t = &self.temperature;
        let d = self.logits.try_sub(&value.try_mul(t)?)?;
        t.try_log()?
            .try_add(&d)?
            .try_sub(&d.try_softplus()?.try_mul_scalar(T::from_f64(2.0))?)
    }
    /// PyTorch has none: an `Err`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        Err(no_entropy("LogitRelaxedBernoulli.entropy"))
    }
}

impl<T: FloatElement, D: Backend> Rsample<T, D> for LogitRelaxedBernoulli<T, D> {
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        LogitRelaxedBernoulli::rsample(self, sample_shape)
    }
}

fn no_entropy(op: &'static str) -> Error {
    Error::InvalidArgument {
        op,
        msg: "the relaxed distributions have no closed-form entropy (PyTorch raises NotImplementedError); estimate it as -log_prob of samples".into(),
    }
}

/// The Concrete relaxation of a Bernoulli variable on `(0, 1)` (PyTorch `RelaxedBernoulli`):
/// the sigmoid of a [`LogitRelaxedBernoulli`] draw. As the temperature falls, samples
/// approach 0 and 1 with the Bernoulli's probabilities.
///
/// ```
/// use typed_tensor::distributions::{Distribution, RelaxedBernoulli};
/// use typed_tensor::prelude::*;
/// let logits = Tensor::<f64>::from_vec(vec![0.0, 2.0], [2])?.with_requires_grad(true)?;
/// let d = RelaxedBernoulli::new(&Tensor::scalar(0.5), None, Some(&logits))?;
/// let y = d.rsample(&[4])?; // (4, 2) in (0, 1), differentiable in the logits
/// y.try_sum(&[], false)?.try_backward()?;
/// assert!(logits.grad().is_some());
/// # Ok::<(), typed_tensor::Error>(())
/// ```
#[derive(Clone)]
pub struct RelaxedBernoulli<T: FloatElement, D: Backend> {
    pub(super) inner: TransformedDistribution<LogitRelaxedBernoulli<T, D>, T, D>,
}

impl<T: FloatElement, D: Backend> RelaxedBernoulli<T, D> {
    /// As [`LogitRelaxedBernoulli::new`].
    ///
    /// # Errors
    /// As [`LogitRelaxedBernoulli::new`].
    pub fn new(
        temperature: &Tensor<T, D>,
        probs: Option<&Tensor<T, D>>,
        logits: Option<&Tensor<T, D>>,
    ) -> Result<Self> {
        let base = LogitRelaxedBernoulli::new(temperature, probs, logits)
            .map_err(|e| e.renamed("RelaxedBernoulli"))?;
        let inner = TransformedDistribution::new(base, vec![Transform::Sigmoid])?;
        Ok(RelaxedBernoulli { inner })
    }
    /// The temperature.
    pub fn temperature(&self) -> &Tensor<T, D> {
        self.inner.base().temperature()
    }
    /// The probabilities of 1.
    pub fn probs(&self) -> &Tensor<T, D> {
        self.inner.base().probs()
    }
    /// The log-odds.
    pub fn logits(&self) -> &Tensor<T, D> {
        self.inner.base().logits()
    }
    /// The sigmoid of [`LogitRelaxedBernoulli::rsample`], clamped into `[tiny, 1 - eps]`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        self.inner.rsample(sample_shape)
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for RelaxedBernoulli<T, D> {
    type Value = Tensor<T, D>;
    fn batch_shape(&self) -> &Shape {
        self.inner.batch_shape()
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        self.inner.sample(sample_shape)
    }
    /// The logit's `log_prob` at `logit(value)` minus `log σ'`; values outside `[0, 1]` are
    /// outside the support.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        super::unit_interval("RelaxedBernoulli.log_prob", value)?;
        self.inner.log_prob(value)
    }
    /// PyTorch has none: an `Err`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        Err(no_entropy("RelaxedBernoulli.entropy"))
    }
}

impl<T: FloatElement, D: Backend> Rsample<T, D> for RelaxedBernoulli<T, D> {
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        RelaxedBernoulli::rsample(self, sample_shape)
    }
}

/// The Concrete (Gumbel-softmax) relaxation of a one-hot categorical on the simplex of the
/// last axis (PyTorch `RelaxedOneHotCategorical`): `softmax((logits + g) / temperature)` for
/// Gumbel noise `g`. The event shape is `[K]`; the batch shape is the categorical's broadcast
/// with the temperature's shape.
///
/// ```
/// use typed_tensor::distributions::{Distribution, RelaxedOneHotCategorical};
/// use typed_tensor::prelude::*;
/// let logits = Tensor::<f64>::from_vec(vec![1.0, 0.0, -1.0], [3])?.with_requires_grad(true)?;
/// let d = RelaxedOneHotCategorical::new(&Tensor::scalar(0.1), None, Some(&logits))?;
/// let y = d.rsample(&[2])?; // (2, 3), rows on the simplex, nearly one-hot
/// assert!(y.try_sum(&[1], false)?.to_vec().iter().all(|s| (s - 1.0).abs() < 1e-12));
/// y.try_mul(&tensor![1.0f64, 2.0, 3.0])?.try_sum(&[], false)?.try_backward()?;
/// assert!(logits.grad().is_some());
/// # Ok::<(), typed_tensor::Error>(())
/// ```
#[derive(Clone)]
pub struct RelaxedOneHotCategorical<T: FloatElement, D: Backend> {
    pub(super) temperature: Tensor<T, D>,
    pub(super) categorical: Categorical<T, D>,
    pub(super) batch: Shape,
}

impl<T: FloatElement, D: Backend> RelaxedOneHotCategorical<T, D> {
    /// From the temperature and either class weights or logits along the last axis (one of
    /// the two, as [`Categorical`]).
    ///
    /// # Errors
    /// `InvalidArgument` unless exactly one of `probs`/`logits` is given, as [`Categorical`]'s
    /// constructors, or for a temperature that is not positive and finite; `Broadcast` when
    /// the temperature's shape does not broadcast with the batch shape.
    pub fn new(
        temperature: &Tensor<T, D>,
        probs: Option<&Tensor<T, D>>,
        logits: Option<&Tensor<T, D>>,
    ) -> Result<Self> {
        const OP: &str = "RelaxedOneHotCategorical";
        let categorical = categorical(OP, probs, logits)?;
        positive_temperature(OP, temperature)?;
        let batch = broadcast_shapes(OP, temperature.shape(), categorical.batch_shape())?;
        Ok(RelaxedOneHotCategorical {
            temperature: temperature.clone(),
            categorical,
            batch,
        })
    }
    /// The temperature.
    pub fn temperature(&self) -> &Tensor<T, D> {
        &self.temperature
    }
    /// The class probabilities, normalised.
    pub fn probs(&self) -> &Tensor<T, D> {
        self.categorical.probs()
    }
    /// The normalised log-probabilities.
    pub fn logits(&self) -> &Tensor<T, D> {
        self.categorical.logits()
    }
    /// `log softmax((logits + g) / t)` for Gumbel noise `g = -log(-log u)` (PyTorch
    /// `ExpRelaxedCategorical.rsample`).
    fn log_rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        let mut shape = extended(sample_shape, &self.batch);
        shape.push(self.categorical.num_classes());
        let u = uniforms(self.logits(), shape)?;
        let gumbels = u.try_log()?.try_neg()?.try_log()?.try_neg()?;
        let scores =
            (self.logits().try_add(&gumbels)?).try_div(&self.temperature.unsqueeze(-1)?)?;
        scores.try_sub(&scores.try_logsumexp(&[-1], true)?)
    }
    /// Points of the simplex, differentiable in the logits and the temperature.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        self.log_rsample(sample_shape)?.try_exp()
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for RelaxedOneHotCategorical<T, D> {
    type Value = Tensor<T, D>;
    reparameterized!();
    fn event_shape(&self) -> Vec<usize> {
        vec![self.categorical.num_classes()]
    }
    /// PyTorch's `ExpRelaxedCategorical.log_prob` at `log value` minus `Σ log value` (the
    /// exp transform's Jacobian): `lgamma(K) + (K - 1) log t + Σ log_softmax(logits - t log
    /// value) - Σ log value`. The value must lie on the simplex (non-negative, summing to 1
    /// within 1e-6, PyTorch's check).
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        super::simplex("RelaxedOneHotCategorical.log_prob", value)?;
        let k = self.categorical.num_classes() as f64;
        let t = &self.temperature;
        let x = value.try_log()?;
        let score = self.logits().try_sub(&x.try_mul(&t.unsqueeze(-1)?)?)?;
        let score = score
            .try_sub(&score.try_logsumexp(&[-1], true)?)?
            .try_sum(&[-1], false)?;
        let log_scale = t
            .try_log()?
            .try_mul_scalar(T::from_f64(k - 1.0))?
            .try_add_scalar(T::from_f64(libm::lgamma(k)))?;
        score
            .try_add(&log_scale)?
            .try_sub(&x.try_sum(&[-1], false)?)
    }
    /// PyTorch has none: an `Err`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        Err(no_entropy("RelaxedOneHotCategorical.entropy"))
    }
}

impl<T: FloatElement, D: Backend> Rsample<T, D> for RelaxedOneHotCategorical<T, D> {
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        RelaxedOneHotCategorical::rsample(self, sample_shape)
    }
}
