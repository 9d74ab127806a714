//! Families PyTorch defines through others, with its formulas: `Chi2` and `InverseGamma`
//! (from the Gamma), `NegativeBinomial` (a Gamma–Poisson mixture), `HalfCauchy` (`|X|` of a
//! Cauchy) and `Kumaraswamy` (a uniform through power maps). Densities are written in closed
//! form rather than through a transformed base, so values on the support's edge give the
//! density's limit rather than a base support `Err`.

use super::counts::{counts, probs_and_logits};
use super::gamma::{positive, standard_gamma};
use super::{Cauchy, Distribution, Gamma, KlDivergence, check, extended, unit_interval};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;

/// The chi-squared distribution with `df` degrees of freedom (PyTorch `Chi2`):
/// `Gamma(df / 2, 1 / 2)`.
#[derive(Clone)]
pub struct Chi2<T: FloatElement, D: Backend> {
    gamma: Gamma<T, D>,
}

impl<T: FloatElement, D: Backend> Chi2<T, D> {
    /// The density `x^(df/2 - 1) e^(-x/2) / (2^(df/2) Γ(df/2))` on `x > 0`.
    ///
    /// # Errors
    /// `InvalidArgument` for degrees of freedom that are not positive and finite.
    pub fn new(df: &Tensor<T, D>) -> Result<Self> {
        let half = T::from_f64(0.5);
        let rate = Tensor::scalar_on(half, df.device_handle())?;
        let gamma = Gamma::new(&df.try_mul_scalar(half)?, &rate).map_err(|e| e.renamed("Chi2"))?;
        Ok(Chi2 { gamma })
    }
    /// The Gamma it is.
    pub(super) fn gamma(&self) -> &Gamma<T, D> {
        &self.gamma
    }
    /// The degrees of freedom (also the mean).
    ///
    /// # Errors
    /// Allocation failure.
    pub fn df(&self) -> Result<Tensor<T, D>> {
        self.gamma.concentration().try_mul_scalar(T::from_f64(2.0))
    }
    /// The variance, `2 df`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn variance(&self) -> Result<Tensor<T, D>> {
        self.gamma.concentration().try_mul_scalar(T::from_f64(4.0))
    }
    /// The Gamma's draws, differentiable in `df`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        self.gamma.rsample(sample_shape)
    }
    /// `P(X ≤ value)`.
    ///
    /// # Errors
    /// As [`Gamma::cdf`].
    pub fn cdf(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        self.gamma.cdf(value).map_err(|e| e.renamed("Chi2.cdf"))
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for Chi2<T, D> {
    type Value = Tensor<T, D>;
    fn batch_shape(&self) -> &Shape {
        self.gamma.batch_shape()
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        self.gamma.sample(sample_shape)
    }
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        self.gamma
            .log_prob(value)
            .map_err(|e| e.renamed("Chi2.log_prob"))
    }
    fn entropy(&self) -> Result<Tensor<T, D>> {
        self.gamma.entropy()
    }
}

impl<T: FloatElement, D: Backend> KlDivergence<Chi2<T, D>> for Chi2<T, D> {
    type Out = Tensor<T, D>;
    /// The Gammas' divergence.
    fn kl_divergence(&self, q: &Chi2<T, D>) -> Result<Tensor<T, D>> {
        self.gamma.kl_divergence(&q.gamma)
    }
}

/// The inverse-gamma distribution (PyTorch `InverseGamma`): `1 / X` for `X ~ Gamma(α, β)`,
/// density `β^α x^(-α-1) e^(-β/x) / Γ(α)` on `x > 0`.
#[derive(Clone)]
pub struct InverseGamma<T: FloatElement, D: Backend> {
    gamma: Gamma<T, D>,
}

impl<T: FloatElement, D: Backend> InverseGamma<T, D> {
    /// The concentration α of the gamma variable inverted.
    pub fn concentration(&self) -> &Tensor<T, D> {
        self.gamma.concentration()
    }
    /// The rate β of the gamma variable inverted.
    pub fn rate(&self) -> &Tensor<T, D> {
        self.gamma.rate()
    }
    /// From the concentration α and the rate β of the gamma variable inverted.
    ///
    /// # Errors
    /// `Broadcast`; `InvalidArgument` for a parameter that is not positive and finite.
    pub fn new(concentration: &Tensor<T, D>, rate: &Tensor<T, D>) -> Result<Self> {
        let gamma = Gamma::new(concentration, rate).map_err(|e| e.renamed("InverseGamma"))?;
        Ok(InverseGamma { gamma })
    }
    fn where_above(
        &self,
        min: f64,
        value: Result<Tensor<T, D>>,
        otherwise: f64,
    ) -> Result<Tensor<T, D>> {
        let a = self.gamma.concentration();
        let other = Tensor::scalar_on(T::from_f64(otherwise), a.device_handle())?;
        Tensor::try_where(&a.try_gt_scalar(T::from_f64(min))?, &value?, &other)
    }
    /// The mean, `β / (α - 1)`, infinite for `α ≤ 1`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn mean(&self) -> Result<Tensor<T, D>> {
        let (a, b) = (self.gamma.concentration(), self.gamma.rate());
        self.where_above(1.0, b.try_div(&a.try_sub_scalar(T::ONE)?), f64::INFINITY)
    }
    /// The variance, `β² / ((α - 1)² (α - 2))`, infinite for `α ≤ 2`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn variance(&self) -> Result<Tensor<T, D>> {
        let (a, b) = (self.gamma.concentration(), self.gamma.rate());
        let a1 = a.try_sub_scalar(T::ONE)?;
        let den = a1
            .try_mul(&a1)?
            .try_mul(&a.try_sub_scalar(T::from_f64(2.0))?)?;
        self.where_above(2.0, b.try_mul(b)?.try_div(&den), f64::INFINITY)
    }
    /// `1 / X` of the gamma's draws, differentiable in both parameters.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        self.gamma.rsample(sample_shape)?.try_reciprocal()
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for InverseGamma<T, D> {
    type Value = Tensor<T, D>;
    fn batch_shape(&self) -> &Shape {
        self.gamma.batch_shape()
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        crate::autograd::no_grad(|| self.rsample(sample_shape))
    }
    /// `xlogy(α, β) - lgamma(α) - (α + 1) log x - β / x`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        check(
            "InverseGamma.log_prob",
            value.try_gt_scalar(T::ZERO)?,
            "the value lies outside the support (0, inf)",
        )?;
        let (a, b) = (self.gamma.concentration(), self.gamma.rate());
        a.try_xlogy(b)?
            .try_sub(&a.try_lgamma()?)?
            .try_sub(&a.try_add_scalar(T::ONE)?.try_mul(&value.try_log()?)?)?
            .try_sub(&b.try_div(value)?)
    }
    /// `α + log β + lgamma(α) - (1 + α) ψ(α)`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        let (a, b) = (self.gamma.concentration(), self.gamma.rate());
        a.try_add(&b.try_log()?)?
            .try_add(&a.try_lgamma()?)?
            .try_sub(&a.try_add_scalar(T::ONE)?.try_mul(&a.try_digamma()?)?)
    }
}

/// The negative binomial distribution (PyTorch `NegativeBinomial`): the number of successes,
/// each of probability `probs`, before `total_count` failures. Samples are counts as `T`,
/// drawn as `Poisson(λ)` with `λ ~ Gamma(total_count, e^-logits)` (on the host).
#[derive(Clone)]
pub struct NegativeBinomial<T: FloatElement, D: Backend> {
    total_count: Tensor<T, D>,
    probs: Tensor<T, D>,
    logits: Tensor<T, D>,
    batch: Shape,
}

impl<T: FloatElement, D: Backend> NegativeBinomial<T, D> {
    /// The number of failures until the experiment stops, broadcast to the batch shape.
    pub fn total_count(&self) -> &Tensor<T, D> {
        &self.total_count
    }
    /// From the number of failures (a non-negative real, as PyTorch) and either the success
    /// probabilities (in `[0, 1)`) or their log-odds (one of the two), broadcast together.
    ///
    /// # Errors
    /// `InvalidArgument` unless exactly one of `probs`/`logits` is given, for a
    /// `total_count` that is negative, NaN or infinite, a probability outside `[0, 1)` or a
    /// NaN logit; `Broadcast`.
    pub fn new(
        total_count: &Tensor<T, D>,
        probs: Option<&Tensor<T, D>>,
        logits: Option<&Tensor<T, D>>,
    ) -> Result<Self> {
        const OP: &str = "NegativeBinomial";
        let ok =
            (total_count.try_ge_scalar(T::ZERO)?).try_logical_and(&total_count.try_is_finite()?)?;
        check(OP, ok, "total_count must be non-negative and finite")?;
        let (p, l) = probs_and_logits(OP, probs, logits)?;
        if probs.is_some() {
            check(OP, p.try_lt_scalar(T::ONE)?, "probs must lie in [0, 1)")?;
        }
        let (all, batch) = super::broadcast(OP, &[total_count, &p, &l])?;
        let [total_count, probs, logits] = <[Tensor<T, D>; 3]>::try_from(all).expect("three");
        Ok(NegativeBinomial {
            total_count,
            probs,
            logits,
            batch,
        })
    }
    /// The success probabilities.
    pub fn probs(&self) -> &Tensor<T, D> {
        &self.probs
    }
    /// Their log-odds.
    pub fn logits(&self) -> &Tensor<T, D> {
        &self.logits
    }
    /// The mean, `total_count · e^logits`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn mean(&self) -> Result<Tensor<T, D>> {
        self.total_count.try_mul(&self.logits.try_exp()?)
    }
    /// The variance, `mean / σ(-logits)`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn variance(&self) -> Result<Tensor<T, D>> {
        self.mean()?.try_div(&self.logits.try_neg()?.try_sigmoid()?)
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for NegativeBinomial<T, D> {
    type Value = Tensor<T, D>;
    fn batch_shape(&self) -> &Shape {
        &self.batch
    }
    /// `Poisson(Gamma(total_count, 1) · e^logits)`, 0 where `total_count` is 0.
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        crate::autograd::no_grad(|| {
            let shape = extended(sample_shape, &self.batch);
            let n = self.total_count.expand(shape)?;
            let some = n.try_gt_scalar(T::ZERO)?;
            let dev = n.device_handle();
            let (one, zero) = (
                Tensor::scalar_on(T::ONE, dev)?,
                Tensor::scalar_on(T::ZERO, dev)?,
            );
            let g = standard_gamma(&Tensor::try_where(&some, &n, &one)?)?;
            let g = Tensor::try_where(&some, &g, &zero)?;
            g.try_mul(&self.logits.try_exp()?)?
                .try_poisson()
                .map_err(|e| e.renamed("NegativeBinomial.sample"))
        })
    }
    /// `n logσ(-logits) + k logσ(logits) + lgamma(n + k) - lgamma(k + 1) - lgamma(n)`, the
    /// last three read as 0 where `n + k = 0`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        check(
            "NegativeBinomial.log_prob",
            counts(value)?,
            "the value must be a count 0, 1, 2, ...",
        )?;
        let (n, l) = (&self.total_count, &self.logits);
        let unnormalized = n
            .try_mul(&l.try_neg()?.try_logsigmoid()?)?
            .try_add(&value.try_mul(&l.try_logsigmoid()?)?)?;
        let nk = n.try_add(value)?;
        let norm = value
            .try_add_scalar(T::ONE)?
            .try_lgamma()?
            .try_add(&n.try_lgamma()?)?
            .try_sub(&nk.try_lgamma()?)?;
        let zero = Tensor::scalar_on(T::ZERO, n.device_handle())?;
        let norm = Tensor::try_where(&nk.try_eq_scalar(T::ZERO)?, &zero, &norm)?;
        unnormalized.try_sub(&norm)
    }
    /// PyTorch has none: an `Err`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        Err(Error::InvalidArgument {
            op: "NegativeBinomial.entropy",
            msg: "the negative binomial entropy has no closed form (PyTorch raises NotImplementedError)".into(),
        })
    }
}

/// The half-Cauchy distribution `|X|`, `X ~ Cauchy(0, scale)` (PyTorch `HalfCauchy`): no
/// mean or variance (both infinite).
#[derive(Clone)]
pub struct HalfCauchy<T: FloatElement, D: Backend> {
    cauchy: Cauchy<T, D>,
}

impl<T: FloatElement, D: Backend> HalfCauchy<T, D> {
    /// The density `2 / (π scale (1 + (x / scale)²))` on `x ≥ 0`.
    ///
    /// # Errors
    /// `InvalidArgument` for a scale that is not positive.
    pub fn new(scale: &Tensor<T, D>) -> Result<Self> {
        let zero = Tensor::scalar_on(T::ZERO, scale.device_handle())?;
        let cauchy = Cauchy::new(&zero, scale).map_err(|e| e.renamed("HalfCauchy"))?;
        Ok(HalfCauchy { cauchy })
    }
    /// The scale (the median).
    pub fn scale(&self) -> &Tensor<T, D> {
        self.cauchy.scale()
    }
    /// `|x|` for `x` from the Cauchy: differentiable in the scale.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        self.cauchy.rsample(sample_shape)?.try_abs()
    }
    /// `2 F(value) - 1`, `F` the Cauchy's distribution function.
    ///
    /// # Errors
    /// As [`Distribution::log_prob`].
    pub fn cdf(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        super::non_negative("HalfCauchy.cdf", value)?;
        let c = self.cauchy.cdf(value)?;
        c.try_mul_scalar(T::from_f64(2.0))?.try_sub_scalar(T::ONE)
    }
    /// `F⁻¹((p + 1) / 2)`.
    ///
    /// # Errors
    /// `Broadcast`.
    pub fn icdf(&self, p: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let q = p.try_add_scalar(T::ONE)?.try_mul_scalar(T::from_f64(0.5))?;
        self.cauchy.icdf(&q)
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for HalfCauchy<T, D> {
    type Value = Tensor<T, D>;
    fn batch_shape(&self) -> &Shape {
        self.cauchy.batch_shape()
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        crate::autograd::no_grad(|| self.rsample(sample_shape))
    }
    /// The Cauchy's `log_prob` plus `log 2`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        super::non_negative("HalfCauchy.log_prob", value)?;
        self.cauchy
            .log_prob(value)?
            .try_add_scalar(T::from_f64(std::f64::consts::LN_2))
    }
    /// The Cauchy's entropy minus `log 2`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        self.cauchy
            .entropy()?
            .try_sub_scalar(T::from_f64(std::f64::consts::LN_2))
    }
}

/// The Kumaraswamy distribution on `[0, 1]` with `concentration1` a and `concentration0` b
/// (PyTorch `Kumaraswamy`): density `a b x^(a-1) (1 - x^a)^(b-1)`, sampled as `(1 -
/// u^(1/b))^(1/a)` for uniform `u`, a Beta-like law with a closed-form distribution function.
#[derive(Clone)]
pub struct Kumaraswamy<T: FloatElement, D: Backend> {
    a: Tensor<T, D>,
    b: Tensor<T, D>,
    batch: Shape,
}

impl<T: FloatElement, D: Backend> Kumaraswamy<T, D> {
    /// The concentration `a` (the exponent of `x`), broadcast to the batch shape.
    pub fn concentration1(&self) -> &Tensor<T, D> {
        &self.a
    }
    /// The concentration `b`, broadcast to the batch shape.
    pub fn concentration0(&self) -> &Tensor<T, D> {
        &self.b
    }
    /// The Kumaraswamy distribution, the parameters broadcast.
    ///
    /// # Errors
    /// `Broadcast`; `InvalidArgument` for a parameter that is not positive and finite.
    pub fn new(concentration1: &Tensor<T, D>, concentration0: &Tensor<T, D>) -> Result<Self> {
        const OP: &str = "Kumaraswamy";
        let (p, batch) = super::broadcast(OP, &[concentration1, concentration0])?;
        positive(OP, "concentration1", &p[0])?;
        positive(OP, "concentration0", &p[1])?;
        let [a, b] = <[Tensor<T, D>; 2]>::try_from(p).expect("two parameters");
        Ok(Kumaraswamy { a, b, batch })
    }
    /// `E[X^n] = b Γ(1 + n/a) Γ(b) / Γ(1 + n/a + b)` (PyTorch's `_moments`).
    fn moment(&self, n: f64) -> Result<Tensor<T, D>> {
        let arg = self
            .a
            .try_reciprocal()?
            .try_mul_scalar(T::from_f64(n))?
            .try_add_scalar(T::ONE)?;
        let log = arg
            .try_lgamma()?
            .try_add(&self.b.try_lgamma()?)?
            .try_sub(&arg.try_add(&self.b)?.try_lgamma()?)?;
        self.b.try_mul(&log.try_exp()?)
    }
    /// The mean, `b B(1 + 1/a, b)`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn mean(&self) -> Result<Tensor<T, D>> {
        self.moment(1.0)
    }
    /// The variance, `E[X²] - E[X]²`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn variance(&self) -> Result<Tensor<T, D>> {
        let m = self.moment(1.0)?;
        self.moment(2.0)?.try_sub(&m.try_mul(&m)?)
    }
    /// `(1 - u^(1/b))^(1/a)`: differentiable in both parameters.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        let shape = extended(sample_shape, &self.batch);
        let u = Tensor::<T, D>::rand_on(shape, self.a.device_handle())?;
        u.try_pow(&self.b.try_reciprocal()?)?
            .try_rsub_scalar(T::ONE)?
            .try_pow(&self.a.try_reciprocal()?)
    }
    /// `1 - (1 - value^a)^b`.
    ///
    /// # Errors
    /// As [`Distribution::log_prob`].
    pub fn cdf(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        unit_interval("Kumaraswamy.cdf", value)?;
        value
            .try_pow(&self.a)?
            .try_rsub_scalar(T::ONE)?
            .try_pow(&self.b)?
            .try_rsub_scalar(T::ONE)
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for Kumaraswamy<T, D> {
    type Value = Tensor<T, D>;
    reparameterized!();
    /// `log a + log b + (a - 1) log x + (b - 1) log(1 - x^a)`, each product read as 0 where
    /// its factor `a - 1` or `b - 1` is 0 (so `x = 0` or `1` gives the density's limit).
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        unit_interval("Kumaraswamy.log_prob", value)?;
        let (a, b) = (&self.a, &self.b);
        let b1 = b.try_sub_scalar(T::ONE)?;
        // log(1 - x^a) is -inf at x = 1: read as 0 where b = 1 (before the product, so its
        // gradient is not 0 · inf).
        let log_tail = value.try_pow(a)?.try_neg()?.try_log1p()?;
        let edge = b1
            .try_eq_scalar(T::ZERO)?
            .try_logical_and(&log_tail.try_is_inf()?)?;
        let zero = Tensor::scalar_on(T::ZERO, b.device_handle())?;
        let tail = b1.try_mul(&Tensor::try_where(&edge, &zero, &log_tail)?)?;
        a.try_log()?
            .try_add(&b.try_log()?)?
            .try_add(&a.try_sub_scalar(T::ONE)?.try_xlogy(value)?)?
            .try_add(&tail)
    }
    /// `(1 - 1/b) + (1 - 1/a) (ψ(b + 1) + γ) - log a - log b` (γ the Euler–Mascheroni
    /// constant).
    fn entropy(&self) -> Result<Tensor<T, D>> {
        let (a, b) = (&self.a, &self.b);
        let t1 = a.try_reciprocal()?.try_rsub_scalar(T::ONE)?;
        let t0 = b.try_reciprocal()?.try_rsub_scalar(T::ONE)?;
        let h0 = b
            .try_add_scalar(T::ONE)?
            .try_digamma()?
            .try_add_scalar(T::from_f64(0.577_215_664_901_532_9))?;
        t0.try_add(&t1.try_mul(&h0)?)?
            .try_sub(&a.try_log()?)?
            .try_sub(&b.try_log()?)
    }
}
