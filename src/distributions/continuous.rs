//! The continuous families: Normal, Uniform, Exponential, Laplace (PyTorch's formulas).

use super::{Distribution, KlDivergence, broadcast, check, check_real, extended, loc_scale};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::shape::Shape;
use crate::tensor::Tensor;
use std::f64::consts::{LN_2, PI};

/// `Err` naming `op` unless every element of `t` is positive.
fn positive<T: FloatElement, D: Backend>(
    op: &'static str,
    what: &str,
    t: &Tensor<T, D>,
) -> Result<()> {
    check(
        op,
        t.try_gt_scalar(T::ZERO)?,
        &format!("{what} must be positive (and not NaN)"),
    )
}

/// The normal distribution `N(loc, scale²)` (PyTorch `Normal`).
#[derive(Clone)]
pub struct Normal<T: FloatElement, D: Backend> {
    loc: Tensor<T, D>,
    scale: Tensor<T, D>,
    batch: Shape,
}

impl<T: FloatElement, D: Backend> Normal<T, D> {
    /// `N(loc, scale²)`, the two broadcast together.
    ///
    /// # Errors
    /// `Broadcast` when the shapes do not broadcast; `InvalidArgument` for a scale that is
    /// not positive.
    pub fn new(loc: &Tensor<T, D>, scale: &Tensor<T, D>) -> Result<Self> {
        let (loc, scale, batch) = loc_scale("Normal", loc, scale)?;
        Ok(Normal { loc, scale, batch })
    }
    /// The mean μ, broadcast to the batch shape.
    pub fn loc(&self) -> &Tensor<T, D> {
        &self.loc
    }
    /// The standard deviation σ, broadcast to the batch shape.
    pub fn scale(&self) -> &Tensor<T, D> {
        &self.scale
    }
    /// The mean, `loc`.
    pub fn mean(&self) -> Tensor<T, D> {
        self.loc.clone()
    }
    /// The standard deviation, `scale`.
    pub fn stddev(&self) -> Tensor<T, D> {
        self.scale.clone()
    }
    /// The variance, `scale²`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn variance(&self) -> Result<Tensor<T, D>> {
        self.scale.try_mul(&self.scale)
    }
    /// `loc + scale · ε` with `ε ~ N(0, 1)` of shape `sample_shape ++ batch_shape`:
    /// differentiable in `loc` and `scale` (PyTorch `rsample`).
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        let eps = Tensor::<T, D>::randn_on(
            extended(sample_shape, &self.batch),
            self.loc.device_handle(),
        )?;
        self.loc.try_add(&eps.try_mul(&self.scale)?)
    }
    /// `P(X ≤ value) = (1 + erf((value - loc) / (scale √2))) / 2`.
    ///
    /// # Errors
    /// As [`Distribution::log_prob`].
    pub fn cdf(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        check_real("Normal.cdf", value)?;
        let z = value.try_sub(&self.loc)?.try_div(&self.scale)?;
        let z = z.try_mul_scalar(T::from_f64(std::f64::consts::FRAC_1_SQRT_2))?;
        z.try_erf()?
            .try_add_scalar(T::ONE)?
            .try_mul_scalar(T::from_f64(0.5))
    }
    /// The quantile of `p`: `loc + scale · √2 · erfinv(2p - 1)`.
    ///
    /// # Errors
    /// `Broadcast` when `p` does not broadcast with the batch shape.
    pub fn icdf(&self, p: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let e = p
            .try_mul_scalar(T::from_f64(2.0))?
            .try_sub_scalar(T::ONE)?
            .try_erfinv()?;
        self.loc.try_add(
            &self
                .scale
                .try_mul(&e)?
                .try_mul_scalar(T::from_f64(std::f64::consts::SQRT_2))?,
        )
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for Normal<T, D> {
    type Value = Tensor<T, D>;
    reparameterized!();
    /// `-(value - loc)² / (2 scale²) - log scale - log √(2π)`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        check_real("Normal.log_prob", value)?;
        let d = value.try_sub(&self.loc)?;
        let quad = d
            .try_mul(&d)?
            .try_div(&self.variance()?.try_mul_scalar(T::from_f64(2.0))?)?;
        quad.try_neg()?
            .try_sub(&self.scale.try_log()?)?
            .try_sub(&super::c(&self.loc, 0.5 * (2.0 * PI).ln())?)
    }
    /// `1/2 + log(√(2π) scale)`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        self.scale
            .try_log()?
            .try_add_scalar(T::from_f64(0.5 + 0.5 * (2.0 * PI).ln()))
    }
}

impl<T: FloatElement, D: Backend> KlDivergence<Normal<T, D>> for Normal<T, D> {
    type Out = Tensor<T, D>;
    fn kl_divergence(&self, q: &Normal<T, D>) -> Result<Tensor<T, D>> {
        let ratio = self.scale.try_div(&q.scale)?;
        let var_ratio = ratio.try_mul(&ratio)?;
        let t = self.loc.try_sub(&q.loc)?.try_div(&q.scale)?;
        let t1 = t.try_mul(&t)?;
        var_ratio
            .try_add(&t1)?
            .try_sub_scalar(T::ONE)?
            .try_sub(&var_ratio.try_log()?)?
            .try_mul_scalar(T::from_f64(0.5))
    }
}

/// The uniform distribution on `[low, high)` (PyTorch `Uniform`).
#[derive(Clone)]
pub struct Uniform<T: FloatElement, D: Backend> {
    low: Tensor<T, D>,
    high: Tensor<T, D>,
    batch: Shape,
}

impl<T: FloatElement, D: Backend> Uniform<T, D> {
    /// The uniform distribution on `[low, high)`, the bounds broadcast together.
    ///
    /// # Errors
    /// `Broadcast`; `InvalidArgument` unless `low < high` everywhere.
    pub fn new(low: &Tensor<T, D>, high: &Tensor<T, D>) -> Result<Self> {
        let (p, batch) = broadcast("Uniform", &[low, high])?;
        check("Uniform", p[0].try_lt(&p[1])?, "low must be less than high")?;
        let [low, high] = <[Tensor<T, D>; 2]>::try_from(p).expect("two parameters");
        Ok(Uniform { low, high, batch })
    }
    /// The lower bound (included), broadcast to the batch shape.
    pub fn low(&self) -> &Tensor<T, D> {
        &self.low
    }
    /// The upper bound (excluded), broadcast to the batch shape.
    pub fn high(&self) -> &Tensor<T, D> {
        &self.high
    }
    fn width(&self) -> Result<Tensor<T, D>> {
        self.high.try_sub(&self.low)
    }
    /// The mean, `(low + high) / 2`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn mean(&self) -> Result<Tensor<T, D>> {
        self.low
            .try_add(&self.high)?
            .try_mul_scalar(T::from_f64(0.5))
    }
    /// The variance, `(high - low)² / 12`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn variance(&self) -> Result<Tensor<T, D>> {
        let w = self.width()?;
        w.try_mul(&w)?.try_div_scalar(T::from_f64(12.0))
    }
    /// `low + (high - low) · u`, `u ~ U[0, 1)`: differentiable in the bounds.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        let u = Tensor::<T, D>::rand_on(
            extended(sample_shape, &self.batch),
            self.low.device_handle(),
        )?;
        self.low.try_add(&u.try_mul(&self.width()?)?)
    }
    /// `(value - low) / (high - low)`, clamped to `[0, 1]`.
    ///
    /// # Errors
    /// As [`Distribution::log_prob`].
    pub fn cdf(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        self.in_support("Uniform.cdf", value)?;
        value
            .try_sub(&self.low)?
            .try_div(&self.width()?)?
            .try_clip(T::ZERO, T::ONE)
    }
    /// `low + p · (high - low)`.
    ///
    /// # Errors
    /// `Broadcast`.
    pub fn icdf(&self, p: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        self.low.try_add(&p.try_mul(&self.width()?)?)
    }
    fn in_support(&self, op: &'static str, value: &Tensor<T, D>) -> Result<()> {
        let inside = value
            .try_ge(&self.low)?
            .try_logical_and(&value.try_lt(&self.high)?)?;
        check(op, inside, "the value lies outside the support [low, high)")
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for Uniform<T, D> {
    type Value = Tensor<T, D>;
    reparameterized!();
    /// `-log(high - low)`, broadcast with `value`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        self.in_support("Uniform.log_prob", value)?;
        let zero = value.try_sub(value)?;
        zero.try_sub(&self.width()?.try_log()?)
    }
    /// `log(high - low)`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        self.width()?.try_log()
    }
}

impl<T: FloatElement, D: Backend> KlDivergence<Uniform<T, D>> for Uniform<T, D> {
    type Out = Tensor<T, D>;
    /// `log((q.high - q.low) / (high - low))`, infinite where `q` does not cover `self`.
    fn kl_divergence(&self, q: &Uniform<T, D>) -> Result<Tensor<T, D>> {
        let kl = q.width()?.try_div(&self.width()?)?.try_log()?;
        let outside = q
            .low
            .try_gt(&self.low)?
            .try_logical_or(&q.high.try_lt(&self.high)?)?;
        Tensor::try_where(&outside, &super::c(&kl, f64::INFINITY)?, &kl)
    }
}

/// The exponential distribution with `rate` λ (PyTorch `Exponential`).
#[derive(Clone)]
pub struct Exponential<T: FloatElement, D: Backend> {
    rate: Tensor<T, D>,
    batch: Shape,
}

impl<T: FloatElement, D: Backend> Exponential<T, D> {
    /// The exponential distribution with density `λ e^(-λx)` on `x ≥ 0`.
    ///
    /// # Errors
    /// `InvalidArgument` for a rate that is not positive.
    pub fn new(rate: &Tensor<T, D>) -> Result<Self> {
        positive("Exponential", "rate", rate)?;
        Ok(Exponential {
            rate: rate.clone(),
            batch: rate.shape().clone(),
        })
    }
    /// The rate λ.
    pub fn rate(&self) -> &Tensor<T, D> {
        &self.rate
    }
    /// The mean, `1/λ`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn mean(&self) -> Result<Tensor<T, D>> {
        self.rate.try_reciprocal()
    }
    /// The variance, `1/λ²`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn variance(&self) -> Result<Tensor<T, D>> {
        self.rate.try_mul(&self.rate)?.try_reciprocal()
    }
    /// `-log(1 - u) / λ`, `u ~ U[0, 1)`: differentiable in the rate.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        let u = Tensor::<T, D>::rand_on(
            extended(sample_shape, &self.batch),
            self.rate.device_handle(),
        )?;
        u.try_neg()?.try_log1p()?.try_neg()?.try_div(&self.rate)
    }
    /// `1 - e^(-λ value)`.
    ///
    /// # Errors
    /// As [`Distribution::log_prob`].
    pub fn cdf(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        self.in_support("Exponential.cdf", value)?;
        self.rate.try_mul(value)?.try_neg()?.try_expm1()?.try_neg()
    }
    /// `-log(1 - p) / λ`.
    ///
    /// # Errors
    /// `Broadcast`.
    pub fn icdf(&self, p: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        p.try_neg()?.try_log1p()?.try_neg()?.try_div(&self.rate)
    }
    fn in_support(&self, op: &'static str, value: &Tensor<T, D>) -> Result<()> {
        check(
            op,
            value.try_ge_scalar(T::ZERO)?,
            "the value lies outside the support [0, inf)",
        )
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for Exponential<T, D> {
    type Value = Tensor<T, D>;
    reparameterized!();
    /// `log λ - λ value`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        self.in_support("Exponential.log_prob", value)?;
        self.rate.try_log()?.try_sub(&self.rate.try_mul(value)?)
    }
    /// `1 - log λ`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        self.rate.try_log()?.try_rsub_scalar(T::ONE)
    }
}

impl<T: FloatElement, D: Backend> KlDivergence<Exponential<T, D>> for Exponential<T, D> {
    type Out = Tensor<T, D>;
    /// `r - 1 - log r` with `r = q.λ / λ`.
    fn kl_divergence(&self, q: &Exponential<T, D>) -> Result<Tensor<T, D>> {
        let r = q.rate.try_div(&self.rate)?;
        r.try_sub_scalar(T::ONE)?.try_sub(&r.try_log()?)
    }
}

/// The Laplace distribution with `loc` and `scale` (PyTorch `Laplace`).
#[derive(Clone)]
pub struct Laplace<T: FloatElement, D: Backend> {
    loc: Tensor<T, D>,
    scale: Tensor<T, D>,
    batch: Shape,
}

impl<T: FloatElement, D: Backend> Laplace<T, D> {
    /// The density `e^(-|x - loc| / scale) / (2 scale)`, the parameters broadcast together.
    ///
    /// # Errors
    /// `Broadcast`; `InvalidArgument` for a scale that is not positive.
    pub fn new(loc: &Tensor<T, D>, scale: &Tensor<T, D>) -> Result<Self> {
        let (loc, scale, batch) = loc_scale("Laplace", loc, scale)?;
        Ok(Laplace { loc, scale, batch })
    }
    /// The location (the mean and median), broadcast to the batch shape.
    pub fn loc(&self) -> &Tensor<T, D> {
        &self.loc
    }
    /// The scale `b`, broadcast to the batch shape.
    pub fn scale(&self) -> &Tensor<T, D> {
        &self.scale
    }
    /// The mean, `loc`.
    pub fn mean(&self) -> Tensor<T, D> {
        self.loc.clone()
    }
    /// The variance, `2 scale²`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn variance(&self) -> Result<Tensor<T, D>> {
        self.scale
            .try_mul(&self.scale)?
            .try_mul_scalar(T::from_f64(2.0))
    }
    /// `loc - scale · sign(u) · log(1 - |u|)`, `u` uniform on `(-1, 1)` (PyTorch's draw):
    /// differentiable in the parameters.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        let eps = super::eps::<T>();
        let u = Tensor::<T, D>::rand_on(
            extended(sample_shape, &self.batch),
            self.loc.device_handle(),
        )?
        .try_mul_scalar(T::from_f64(2.0 - eps))?
        .try_add_scalar(T::from_f64(eps - 1.0))?;
        let step = u
            .try_abs()?
            .try_neg()?
            .try_log1p()?
            .try_mul(&u.try_sign()?)?;
        self.loc.try_sub(&self.scale.try_mul(&step)?)
    }
    /// `1/2 - sign(value - loc) · expm1(-|value - loc| / scale) / 2`.
    ///
    /// # Errors
    /// As [`Distribution::log_prob`].
    pub fn cdf(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        check_real("Laplace.cdf", value)?;
        let d = value.try_sub(&self.loc)?;
        let e = d.try_abs()?.try_neg()?.try_div(&self.scale)?.try_expm1()?;
        d.try_sign()?
            .try_mul(&e)?
            .try_mul_scalar(T::from_f64(-0.5))?
            .try_add_scalar(T::from_f64(0.5))
    }
    /// `loc - scale · sign(p - 1/2) · log(1 - 2|p - 1/2|)`.
    ///
    /// # Errors
    /// `Broadcast`.
    pub fn icdf(&self, p: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let t = p.try_sub_scalar(T::from_f64(0.5))?;
        let l = t
            .try_abs()?
            .try_mul_scalar(T::from_f64(-2.0))?
            .try_log1p()?;
        self.loc
            .try_sub(&self.scale.try_mul(&t.try_sign()?.try_mul(&l)?)?)
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for Laplace<T, D> {
    type Value = Tensor<T, D>;
    reparameterized!();
    /// `-log(2 scale) - |value - loc| / scale`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        check_real("Laplace.log_prob", value)?;
        let d = value.try_sub(&self.loc)?.try_abs()?.try_div(&self.scale)?;
        d.try_neg()?
            .try_sub(&self.scale.try_log()?)?
            .try_sub_scalar(T::from_f64(LN_2))
    }
    /// `1 + log(2 scale)`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        self.scale
            .try_log()?
            .try_add_scalar(T::from_f64(1.0 + LN_2))
    }
}

impl<T: FloatElement, D: Backend> KlDivergence<Laplace<T, D>> for Laplace<T, D> {
    type Out = Tensor<T, D>;
    /// PyTorch's `_kl_laplace_laplace`.
    fn kl_divergence(&self, q: &Laplace<T, D>) -> Result<Tensor<T, D>> {
        let ratio = self.scale.try_div(&q.scale)?;
        let gap = self.loc.try_sub(&q.loc)?.try_abs()?;
        let t1 = ratio.try_log()?.try_neg()?;
        let t2 = gap.try_div(&q.scale)?;
        let t3 = ratio.try_mul(&gap.try_neg()?.try_div(&self.scale)?.try_exp()?)?;
        t1.try_add(&t2)?.try_add(&t3)?.try_sub_scalar(T::ONE)
    }
}
