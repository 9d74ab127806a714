//! The continuous Bernoulli distribution (PyTorch `ContinuousBernoulli`; Loaiza-Ganem and
//! Cunningham 2019), the normalised Bernoulli likelihood on `[0, 1]` that VAEs of pixel
//! intensities use.

use super::{Distribution, KlDivergence, Moments, Rsample, eps, extended, unit_interval};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::shape::Shape;
use crate::tensor::Tensor;

/// Near `p = 1/2` the closed forms divide 0 by 0: there (`p` in `(0.499, 0.501]`, PyTorch's
/// `_lims`) each quantity is a Taylor polynomial in `p - 1/2`.
const LIMS: (f64, f64) = (0.499, 0.501);

/// The density `C(p) p^x (1 - p)^(1-x)` on `x ∈ [0, 1]`, `C(p)` its normaliser (PyTorch
/// `ContinuousBernoulli`), with PyTorch's numerics. `rsample` is the inverse distribution
/// function of a uniform draw, differentiable in the parameter.
///
/// ```
/// use typed_tensor::distributions::{ContinuousBernoulli, Distribution};
/// use typed_tensor::prelude::*;
/// let d = ContinuousBernoulli::new(Some(&tensor![0.2f64, 0.5]), None)?;
/// let lp = d.log_prob(&tensor![0.3f64, 0.3])?; // p = 1/2 is the uniform: log 1 = 0
/// assert!(lp.to_vec()[1].abs() < 1e-12);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
#[derive(Clone)]
pub struct ContinuousBernoulli<T: FloatElement, D: Backend> {
    pub(super) probs: Tensor<T, D>,
    pub(super) logits: Tensor<T, D>,
}

impl<T: FloatElement, D: Backend> ContinuousBernoulli<T, D> {
    /// From either the shape parameter `p ∈ [0, 1]` or its log-odds (one of the two); the
    /// probabilities from logits are clamped into `[eps, 1 - eps]`, as PyTorch's.
    ///
    /// # Errors
    /// `InvalidArgument` unless exactly one is given, for a probability outside `[0, 1]` or a
    /// NaN logit.
    pub fn new(probs: Option<&Tensor<T, D>>, logits: Option<&Tensor<T, D>>) -> Result<Self> {
        let (p, logits) = super::counts::probs_and_logits("ContinuousBernoulli", probs, logits)?;
        let probs = match probs {
            Some(_) => p,
            None => p.try_clip(T::from_f64(eps::<T>()), T::from_f64(1.0 - eps::<T>()))?,
        };
        Ok(ContinuousBernoulli { probs, logits })
    }
    /// The shape parameter `p`.
    pub fn probs(&self) -> &Tensor<T, D> {
        &self.probs
    }
    /// Its log-odds.
    pub fn logits(&self) -> &Tensor<T, D> {
        &self.logits
    }
    fn scalar(&self, v: f64) -> Result<Tensor<T, D>> {
        Tensor::scalar_on(T::from_f64(v), self.probs.device_handle())
    }
    /// Where the closed forms hold (outside `(0.499, 0.501]`).
    fn stable(&self) -> Result<Tensor<bool, D>> {
        let p = &self.probs;
        p.try_le_scalar(T::from_f64(LIMS.0))?
            .try_logical_or(&p.try_gt_scalar(T::from_f64(LIMS.1))?)
    }
    /// `p` where stable, 0.499 elsewhere (so the unused closed forms stay finite).
    fn cut(&self) -> Result<Tensor<T, D>> {
        Tensor::try_where(&self.stable()?, &self.probs, &self.scalar(LIMS.0)?)
    }
    /// The closed form where stable, the Taylor polynomial `taylor` in `p - 1/2` elsewhere.
    fn pick(&self, closed: Tensor<T, D>, taylor: Tensor<T, D>) -> Result<Tensor<T, D>> {
        Tensor::try_where(&self.stable()?, &closed, &taylor)
    }
    /// `log |log(1 - p) - log p|` (the magnitude of the logit) of the cut probabilities.
    fn log_odds(&self, cut: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        cut.try_neg()?.try_log1p()?.try_sub(&cut.try_log()?)
    }
    /// `log C(p)`.
    pub(super) fn log_norm(&self) -> Result<Tensor<T, D>> {
        let cut = self.cut()?;
        let low = cut.try_le_scalar(T::from_f64(0.5))?;
        let below = Tensor::try_where(&low, &cut, &self.scalar(0.0)?)?;
        let above = Tensor::try_where(
            &cut.try_ge_scalar(T::from_f64(0.5))?,
            &cut,
            &self.scalar(1.0)?,
        )?;
        let side = Tensor::try_where(
            &low,
            &below.try_mul_scalar(T::from_f64(-2.0))?.try_log1p()?,
            &above
                .try_mul_scalar(T::from_f64(2.0))?
                .try_sub_scalar(T::ONE)?
                .try_log()?,
        )?;
        let closed = self.log_odds(&cut)?.try_abs()?.try_log()?.try_sub(&side)?;
        let x = self.probs.try_sub_scalar(T::from_f64(0.5))?.try_square()?;
        let taylor = x
            .try_mul_scalar(T::from_f64(104.0 / 45.0))?
            .try_add_scalar(T::from_f64(4.0 / 3.0))?
            .try_mul(&x)?
            .try_add_scalar(T::from_f64(std::f64::consts::LN_2))?;
        self.pick(closed, taylor)
    }
    /// `P(X ≤ value)`: `(p^x (1 - p)^(1 - x) + p - 1) / (2p - 1)`, 0 below 0 and 1 above 1.
    ///
    /// # Errors
    /// `InvalidArgument` for a NaN value; `Broadcast`.
    pub fn cdf(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        super::check_real("ContinuousBernoulli.cdf", value)?;
        let cut = self.cut()?;
        let q = cut.try_rsub_scalar(T::ONE)?;
        let num = cut
            .try_pow(value)?
            .try_mul(&q.try_pow(&value.try_rsub_scalar(T::ONE)?)?)?
            .try_add(&cut)?
            .try_sub_scalar(T::ONE)?;
        let cdf = num.try_div(
            &cut.try_mul_scalar(T::from_f64(2.0))?
                .try_sub_scalar(T::ONE)?,
        )?;
        let cdf = self.pick(cdf, value.clone())?;
        let cdf = Tensor::try_where(&value.try_le_scalar(T::ZERO)?, &self.scalar(0.0)?, &cdf)?;
        Tensor::try_where(&value.try_ge_scalar(T::ONE)?, &self.scalar(1.0)?, &cdf)
    }
    /// The inverse distribution function: `(log1p(-p + u (2p - 1)) - log1p(-p)) / (log p -
    /// log1p(-p))`, `u` itself near `p = 1/2`.
    ///
    /// # Errors
    /// `Broadcast`.
    pub fn icdf(&self, u: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let cut = self.cut()?;
        let l1 = cut.try_neg()?.try_log1p()?;
        let inner = cut
            .try_mul_scalar(T::from_f64(2.0))?
            .try_sub_scalar(T::ONE)?
            .try_mul(u)?
            .try_sub(&cut)?
            .try_log1p()?;
        let x = inner.try_sub(&l1)?.try_div(&cut.try_log()?.try_sub(&l1)?)?;
        self.pick(x, u.clone())
    }
    /// The inverse distribution function of uniform draws: differentiable in the parameter.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        let shape = extended(sample_shape, self.probs.shape());
        self.icdf(&Tensor::rand_on(shape, self.probs.device_handle())?)
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for ContinuousBernoulli<T, D> {
    type Value = Tensor<T, D>;
    fn batch_shape(&self) -> &Shape {
        self.probs.shape()
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        crate::autograd::no_grad(|| self.rsample(sample_shape))
    }
    /// `value · logits - softplus(logits) + log C(p)`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        unit_interval("ContinuousBernoulli.log_prob", value)?;
        let l = &self.logits;
        l.try_mul(value)?
            .try_sub(&l.try_softplus()?)?
            .try_add(&self.log_norm()?)
    }
    /// `mean · (log(1 - p) - log p) - log C(p) - log(1 - p)`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        let p = &self.probs;
        let l0 = p.try_neg()?.try_log1p()?;
        Moments::mean(self)?
            .try_mul(&l0.try_sub(&p.try_log()?)?)?
            .try_sub(&self.log_norm()?)?
            .try_sub(&l0)
    }
}

impl<T: FloatElement, D: Backend> Rsample<T, D> for ContinuousBernoulli<T, D> {
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        ContinuousBernoulli::rsample(self, sample_shape)
    }
}

impl<T: FloatElement, D: Backend> Moments<T, D> for ContinuousBernoulli<T, D> {
    /// `p / (2p - 1) + 1 / (log(1 - p) - log p)`.
    fn mean(&self) -> Result<Tensor<T, D>> {
        let cut = self.cut()?;
        let two_p1 = cut
            .try_mul_scalar(T::from_f64(2.0))?
            .try_sub_scalar(T::ONE)?;
        let closed = cut
            .try_div(&two_p1)?
            .try_add(&self.log_odds(&cut)?.try_reciprocal()?)?;
        let x = self.probs.try_sub_scalar(T::from_f64(0.5))?;
        let taylor = x
            .try_square()?
            .try_mul_scalar(T::from_f64(16.0 / 45.0))?
            .try_add_scalar(T::from_f64(1.0 / 3.0))?
            .try_mul(&x)?
            .try_add_scalar(T::from_f64(0.5))?;
        self.pick(closed, taylor)
    }
    /// `p (p - 1) / (1 - 2p)² + 1 / (log(1 - p) - log p)²`.
    fn variance(&self) -> Result<Tensor<T, D>> {
        let cut = self.cut()?;
        let one_2p = cut
            .try_mul_scalar(T::from_f64(-2.0))?
            .try_add_scalar(T::ONE)?;
        let closed = cut
            .try_mul(&cut.try_sub_scalar(T::ONE)?)?
            .try_div(&one_2p.try_square()?)?
            .try_add(&self.log_odds(&cut)?.try_square()?.try_reciprocal()?)?;
        let x = self.probs.try_sub_scalar(T::from_f64(0.5))?.try_square()?;
        let taylor = x
            .try_mul_scalar(T::from_f64(128.0 / 945.0))?
            .try_rsub_scalar(T::from_f64(1.0 / 15.0))?
            .try_mul(&x)?
            .try_rsub_scalar(T::from_f64(1.0 / 12.0))?;
        self.pick(closed, taylor)
    }
}

impl<T: FloatElement, D: Backend> KlDivergence<ContinuousBernoulli<T, D>>
    for ContinuousBernoulli<T, D>
{
    type Out = Tensor<T, D>;
    /// PyTorch's `_kl_continuous_bernoulli_continuous_bernoulli`: `mean_p (logit p - logit
    /// q) + log C(p) + log(1 - p) - log C(q) - log(1 - q)`.
    fn kl_divergence(&self, q: &ContinuousBernoulli<T, D>) -> Result<Tensor<T, D>> {
        let log1m = |d: &Self| d.probs.try_neg()?.try_log1p();
        Moments::mean(self)?
            .try_mul(&self.logits.try_sub(&q.logits)?)?
            .try_add(&self.log_norm()?)?
            .try_add(&log1m(self)?)?
            .try_sub(&q.log_norm()?)?
            .try_sub(&log1m(q)?)
    }
}
