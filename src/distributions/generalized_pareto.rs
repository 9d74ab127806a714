//! The generalized Pareto distribution (PyTorch `GeneralizedPareto`, after TensorFlow
//! Probability's).

use super::{Distribution, Moments, Rsample, check, extended};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::shape::Shape;
use crate::tensor::Tensor;

/// The generalized Pareto distribution with `loc` μ, `scale` σ and `concentration` ξ (PyTorch
/// `GeneralizedPareto`): survival function `(1 + ξ z)^(-1/ξ)` with `z = (x - μ)/σ` (`e^(-z)`
/// at ξ = 0), on `[μ, ∞)` for `ξ ≥ 0` and `[μ, μ - σ/ξ]` for `ξ < 0`. The exponential (μ = 0,
/// ξ = 0), the Pareto (ξ > 0, μ = σ/ξ) and the uniform (ξ = -1) are special cases. A
/// concentration within 1e-8 of 0 takes the ξ = 0 forms (PyTorch's `isclose`).
///
/// ```
/// use typed_tensor::distributions::{Distribution, GeneralizedPareto};
/// use typed_tensor::prelude::*;
/// let d = GeneralizedPareto::new(&tensor![0.0f64], &tensor![1.0f64], &tensor![0.0f64])?;
/// let lp = d.log_prob(&tensor![2.0f64])?; // the exponential: -2
/// assert!((lp.to_vec()[0] + 2.0).abs() < 1e-12);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
#[derive(Clone)]
pub struct GeneralizedPareto<T: FloatElement, D: Backend> {
    loc: Tensor<T, D>,
    scale: Tensor<T, D>,
    concentration: Tensor<T, D>,
    batch: Shape,
}

impl<T: FloatElement, D: Backend> GeneralizedPareto<T, D> {
    /// The distribution, the three parameters broadcast together.
    ///
    /// # Errors
    /// `Broadcast`; `InvalidArgument` for a scale that is not positive, or a NaN location or
    /// concentration.
    pub fn new(
        loc: &Tensor<T, D>,
        scale: &Tensor<T, D>,
        concentration: &Tensor<T, D>,
    ) -> Result<Self> {
        const OP: &str = "GeneralizedPareto";
        let (p, batch) = super::broadcast(OP, &[loc, scale, concentration])?;
        let [loc, scale, concentration] = <[Tensor<T, D>; 3]>::try_from(p).expect("three");
        check(
            OP,
            scale.try_gt_scalar(T::ZERO)?,
            "scale must be positive (and not NaN)",
        )?;
        let real = loc
            .try_is_nan()?
            .try_logical_or(&concentration.try_is_nan()?)?;
        check(
            OP,
            real.try_logical_not()?,
            "loc and concentration must not be NaN",
        )?;
        Ok(GeneralizedPareto {
            loc,
            scale,
            concentration,
            batch,
        })
    }
    /// The location μ (the lower end of the support).
    pub fn loc(&self) -> &Tensor<T, D> {
        &self.loc
    }
    /// The scale σ.
    pub fn scale(&self) -> &Tensor<T, D> {
        &self.scale
    }
    /// The concentration (shape) ξ.
    pub fn concentration(&self) -> &Tensor<T, D> {
        &self.concentration
    }
    /// Where ξ counts as 0 (`|ξ| ≤ 1e-8`, PyTorch's `isclose(ξ, 0)`), and ξ with 1 there (so
    /// the ξ ≠ 0 forms stay finite where they are not used).
    fn zero_and_safe(&self) -> Result<(Tensor<bool, D>, Tensor<T, D>)> {
        let xi = &self.concentration;
        let zero = xi.try_abs()?.try_le_scalar(T::from_f64(1e-8))?;
        let one = Tensor::scalar_on(T::ONE, xi.device_handle())?;
        let safe = Tensor::try_where(&zero, &one, xi)?;
        Ok((zero, safe))
    }
    /// `Err` naming `op` unless `value` lies in `[μ, μ - σ/ξ]` (`[μ, ∞)` for `ξ ≥ 0`).
    fn in_support(&self, op: &'static str, value: &Tensor<T, D>) -> Result<()> {
        let above = value.try_ge(&self.loc)?;
        let upper = self
            .loc
            .try_sub(&self.scale.try_div(&self.concentration)?)?;
        let below =
            (self.concentration.try_ge_scalar(T::ZERO)?).try_logical_or(&value.try_le(&upper)?)?;
        check(
            op,
            above.try_logical_and(&below)?,
            "the value lies outside the support [loc, loc - scale/concentration] ([loc, inf) for concentration ≥ 0)",
        )
    }
    /// `log P(X > value)`: `-log1p(ξ z)/ξ`, `-z` at ξ = 0.
    ///
    /// # Errors
    /// `InvalidArgument` for a value outside the support; `Broadcast`.
    pub fn log_survival_function(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        self.in_support("GeneralizedPareto.log_survival_function", value)?;
        self.log_sf(value)
    }
    fn log_sf(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let z = value.try_sub(&self.loc)?.try_div(&self.scale)?;
        let (zero, safe) = self.zero_and_safe()?;
        let nonzero = safe.try_mul(&z)?.try_log1p()?.try_div(&safe)?.try_neg()?;
        Tensor::try_where(&zero, &z.try_neg()?, &nonzero)
    }
    /// `P(X ≤ value) = 1 - e^(log_survival_function)`.
    ///
    /// # Errors
    /// As [`GeneralizedPareto::log_survival_function`].
    pub fn cdf(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        self.in_support("GeneralizedPareto.cdf", value)?;
        self.log_sf(value)?.try_expm1()?.try_neg()
    }
    /// The quantile of `p`: `μ + σ expm1(-ξ log1p(-p))/ξ`, `μ - σ log1p(-p)` at ξ = 0.
    ///
    /// # Errors
    /// `Broadcast`.
    pub fn icdf(&self, p: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let (zero, safe) = self.zero_and_safe()?;
        let log_q = p.try_neg()?.try_log1p()?;
        let nonzero = safe
            .try_mul(&log_q)?
            .try_neg()?
            .try_expm1()?
            .try_mul(&self.scale.try_div(&safe)?)?;
        let at_zero = self.scale.try_mul(&log_q)?.try_neg()?;
        self.loc
            .try_add(&Tensor::try_where(&zero, &at_zero, &nonzero)?)
    }
    /// The quantiles of uniform draws: differentiable in the three parameters.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        let u = Tensor::<T, D>::rand_on(
            extended(sample_shape, &self.batch),
            self.loc.device_handle(),
        )?;
        self.icdf(&u)
    }
    /// `value` where `ξ < max`, NaN elsewhere (PyTorch's undefined moments); ξ replaced by
    /// `safe` there so the unused form stays finite.
    fn moment(
        &self,
        max: f64,
        safe: f64,
        f: impl Fn(&Tensor<T, D>) -> Result<Tensor<T, D>>,
    ) -> Result<Tensor<T, D>> {
        let xi = &self.concentration;
        let valid = xi.try_lt_scalar(T::from_f64(max))?;
        let dev = xi.device_handle();
        let xi = Tensor::try_where(&valid, xi, &Tensor::scalar_on(T::from_f64(safe), dev)?)?;
        Tensor::try_where(
            &valid,
            &f(&xi)?,
            &Tensor::scalar_on(T::from_f64(f64::NAN), dev)?,
        )
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for GeneralizedPareto<T, D> {
    type Value = Tensor<T, D>;
    reparameterized!();
    /// `-log σ - (1/ξ + 1) log1p(ξ z)` (`-log σ - z` at ξ = 0; `-log σ` at ξ = -1).
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        self.in_support("GeneralizedPareto.log_prob", value)?;
        let z = value.try_sub(&self.loc)?.try_div(&self.scale)?;
        let (zero, safe) = self.zero_and_safe()?;
        let y = safe.try_reciprocal()?.try_add_scalar(T::ONE)?;
        let term = y.try_mul(&safe.try_mul(&z)?.try_log1p()?)?;
        let term = Tensor::try_where(&y.try_eq_scalar(T::ZERO)?, &y, &term)?;
        let term = Tensor::try_where(&zero, &z, &term)?;
        self.scale.try_log()?.try_add(&term)?.try_neg()
    }
    /// `log σ + ξ + 1`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        self.scale
            .try_log()?
            .try_add(&self.concentration)?
            .try_add_scalar(T::ONE)
    }
}

impl<T: FloatElement, D: Backend> Rsample<T, D> for GeneralizedPareto<T, D> {
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        GeneralizedPareto::rsample(self, sample_shape)
    }
}

impl<T: FloatElement, D: Backend> Moments<T, D> for GeneralizedPareto<T, D> {
    /// `μ + σ/(1 - ξ)`, NaN for `ξ ≥ 1`.
    fn mean(&self) -> Result<Tensor<T, D>> {
        self.moment(1.0, 0.5, |xi| {
            self.loc
                .try_add(&self.scale.try_div(&xi.try_rsub_scalar(T::ONE)?)?)
        })
    }
    /// `σ² / ((1 - ξ)² (1 - 2ξ))`, NaN for `ξ ≥ 1/2`.
    fn variance(&self) -> Result<Tensor<T, D>> {
        self.moment(0.5, 0.25, |xi| {
            let den = xi.try_rsub_scalar(T::ONE)?.try_square()?.try_mul(
                &xi.try_mul_scalar(T::from_f64(-2.0))?
                    .try_add_scalar(T::ONE)?,
            )?;
            self.scale.try_square()?.try_div(&den)
        })
    }
}
