//! More location–scale families: Cauchy, Gumbel and LogNormal (PyTorch's formulas).

use super::{Distribution, KlDivergence, Normal, check, check_real, extended, loc_scale};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::shape::Shape;
use crate::tensor::Tensor;
use std::f64::consts::PI;

/// The Euler–Mascheroni constant.
const EULER_GAMMA: f64 = 0.577_215_664_901_532_9;

/// Uniform draws of `shape ++ batch` on `like`'s device, in `(0, 1)`: clamped away from 0 and 1
/// by the dtype's resolution, as PyTorch's `clamp_probs`.
fn open_uniform<T: FloatElement, D: Backend>(
    like: &Tensor<T, D>,
    shape: &[usize],
    batch: &Shape,
) -> Result<Tensor<T, D>> {
    let e = super::eps::<T>();
    Tensor::<T, D>::rand_on(extended(shape, batch), like.device_handle())?
        .try_clip(T::from_f64(e), T::from_f64(1.0 - e))
}

/// The Cauchy distribution (PyTorch `Cauchy`): no mean or variance (NaN and infinity there).
#[derive(Clone)]
pub struct Cauchy<T: FloatElement, D: Backend> {
    loc: Tensor<T, D>,
    scale: Tensor<T, D>,
    batch: Shape,
}

impl<T: FloatElement, D: Backend> Cauchy<T, D> {
    /// The density `1 / (π scale (1 + ((x - loc) / scale)²))`.
    ///
    /// # Errors
    /// `Broadcast`; `InvalidArgument` for a scale that is not positive.
    pub fn new(loc: &Tensor<T, D>, scale: &Tensor<T, D>) -> Result<Self> {
        let (loc, scale, batch) = loc_scale("Cauchy", loc, scale)?;
        Ok(Cauchy { loc, scale, batch })
    }
    /// The location (the median), broadcast to the batch shape.
    pub fn loc(&self) -> &Tensor<T, D> {
        &self.loc
    }
    /// The scale (the half width at half maximum), broadcast to the batch shape.
    pub fn scale(&self) -> &Tensor<T, D> {
        &self.scale
    }
    /// `loc + scale · tan(π (u - 1/2))`: differentiable in the parameters.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        let u = open_uniform(&self.loc, sample_shape, &self.batch)?;
        let t = u
            .try_sub_scalar(T::from_f64(0.5))?
            .try_mul_scalar(T::from_f64(PI))?
            .try_tan()?;
        self.loc.try_add(&t.try_mul(&self.scale)?)
    }
    /// `atan((value - loc) / scale) / π + 1/2`.
    ///
    /// # Errors
    /// As [`Distribution::log_prob`].
    pub fn cdf(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        check_real("Cauchy.cdf", value)?;
        let z = value.try_sub(&self.loc)?.try_div(&self.scale)?;
        z.try_atan()?
            .try_div_scalar(T::from_f64(PI))?
            .try_add_scalar(T::from_f64(0.5))
    }
    /// `loc + scale · tan(π (p - 1/2))`.
    ///
    /// # Errors
    /// `Broadcast`.
    pub fn icdf(&self, p: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let t = p
            .try_sub_scalar(T::from_f64(0.5))?
            .try_mul_scalar(T::from_f64(PI))?
            .try_tan()?;
        self.loc.try_add(&t.try_mul(&self.scale)?)
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for Cauchy<T, D> {
    type Value = Tensor<T, D>;
    reparameterized!();
    /// `-log π - log scale - log1p(((value - loc) / scale)²)`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        check_real("Cauchy.log_prob", value)?;
        let z = value.try_sub(&self.loc)?.try_div(&self.scale)?;
        z.try_mul(&z)?
            .try_log1p()?
            .try_neg()?
            .try_sub(&self.scale.try_log()?)?
            .try_sub_scalar(T::from_f64(PI.ln()))
    }
    /// `log(4π scale)`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        self.scale
            .try_log()?
            .try_add_scalar(T::from_f64((4.0 * PI).ln()))
    }
}

impl<T: FloatElement, D: Backend> KlDivergence<Cauchy<T, D>> for Cauchy<T, D> {
    type Out = Tensor<T, D>;
    /// `log((s_p + s_q)² + (loc_p - loc_q)²) - log(4 s_p s_q)` (PyTorch's `_kl_cauchy_cauchy`).
    fn kl_divergence(&self, q: &Cauchy<T, D>) -> Result<Tensor<T, D>> {
        let s = self.scale.try_add(&q.scale)?;
        let d = self.loc.try_sub(&q.loc)?;
        let t1 = s.try_mul(&s)?.try_add(&d.try_mul(&d)?)?.try_log()?;
        let t2 = self
            .scale
            .try_mul(&q.scale)?
            .try_mul_scalar(T::from_f64(4.0))?
            .try_log()?;
        t1.try_sub(&t2)
    }
}

/// The Gumbel distribution of maxima (PyTorch `Gumbel`).
#[derive(Clone)]
pub struct Gumbel<T: FloatElement, D: Backend> {
    loc: Tensor<T, D>,
    scale: Tensor<T, D>,
    batch: Shape,
}

impl<T: FloatElement, D: Backend> Gumbel<T, D> {
    /// The density `e^(-(z + e^(-z))) / scale` with `z = (x - loc) / scale`.
    ///
    /// # Errors
    /// `Broadcast`; `InvalidArgument` for a scale that is not positive.
    pub fn new(loc: &Tensor<T, D>, scale: &Tensor<T, D>) -> Result<Self> {
        let (loc, scale, batch) = loc_scale("Gumbel", loc, scale)?;
        Ok(Gumbel { loc, scale, batch })
    }
    /// The location (the mode), broadcast to the batch shape.
    pub fn loc(&self) -> &Tensor<T, D> {
        &self.loc
    }
    /// The scale, broadcast to the batch shape.
    pub fn scale(&self) -> &Tensor<T, D> {
        &self.scale
    }
    /// The mean, `loc + γ scale` (γ Euler's constant).
    ///
    /// # Errors
    /// Allocation failure.
    pub fn mean(&self) -> Result<Tensor<T, D>> {
        self.loc
            .try_add(&self.scale.try_mul_scalar(T::from_f64(EULER_GAMMA))?)
    }
    /// The variance, `π² scale² / 6`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn variance(&self) -> Result<Tensor<T, D>> {
        self.scale
            .try_mul(&self.scale)?
            .try_mul_scalar(T::from_f64(PI * PI / 6.0))
    }
    /// `loc - scale · log(-log u)`: differentiable in the parameters.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        let u = open_uniform(&self.loc, sample_shape, &self.batch)?;
        self.icdf(&u)
    }
    /// `exp(-exp(-(value - loc) / scale))`.
    ///
    /// # Errors
    /// As [`Distribution::log_prob`].
    pub fn cdf(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        check_real("Gumbel.cdf", value)?;
        let z = value.try_sub(&self.loc)?.try_div(&self.scale)?;
        z.try_neg()?.try_exp()?.try_neg()?.try_exp()
    }
    /// `loc - scale · log(-log p)`.
    ///
    /// # Errors
    /// `Broadcast`.
    pub fn icdf(&self, p: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let g = p.try_log()?.try_neg()?.try_log()?;
        self.loc.try_sub(&self.scale.try_mul(&g)?)
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for Gumbel<T, D> {
    type Value = Tensor<T, D>;
    reparameterized!();
    /// `-(z + e^(-z)) - log scale`, `z = (value - loc) / scale`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        check_real("Gumbel.log_prob", value)?;
        let z = value.try_sub(&self.loc)?.try_div(&self.scale)?;
        z.try_add(&z.try_neg()?.try_exp()?)?
            .try_neg()?
            .try_sub(&self.scale.try_log()?)
    }
    /// `log scale + 1 + γ`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        self.scale
            .try_log()?
            .try_add_scalar(T::from_f64(1.0 + EULER_GAMMA))
    }
}

/// The distribution of `exp(X)` for `X ~ N(loc, scale²)` (PyTorch `LogNormal`).
#[derive(Clone)]
pub struct LogNormal<T: FloatElement, D: Backend> {
    base: Normal<T, D>,
}

impl<T: FloatElement, D: Backend> LogNormal<T, D> {
    /// The mean of the log.
    pub fn loc(&self) -> &Tensor<T, D> {
        self.base.loc()
    }
    /// The standard deviation of the log.
    pub fn scale(&self) -> &Tensor<T, D> {
        self.base.scale()
    }
    /// The log-normal distribution whose logarithm is `N(loc, scale²)`.
    ///
    /// # Errors
    /// As [`Normal::new`].
    pub fn new(loc: &Tensor<T, D>, scale: &Tensor<T, D>) -> Result<Self> {
        Ok(LogNormal {
            base: Normal::new(loc, scale)?,
        })
    }
    /// The mean, `exp(loc + scale² / 2)`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn mean(&self) -> Result<Tensor<T, D>> {
        let half = self.base.variance()?.try_mul_scalar(T::from_f64(0.5))?;
        self.base.mean().try_add(&half)?.try_exp()
    }
    /// The variance, `(exp(scale²) - 1) · exp(2 loc + scale²)`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn variance(&self) -> Result<Tensor<T, D>> {
        let s2 = self.base.variance()?;
        let two_loc = self.base.mean().try_mul_scalar(T::from_f64(2.0))?;
        s2.try_expm1()?.try_mul(&two_loc.try_add(&s2)?.try_exp()?)
    }
    /// `exp` of the normal's `rsample`: differentiable in the parameters.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        self.base.rsample(sample_shape)?.try_exp()
    }
    fn positive(op: &'static str, value: &Tensor<T, D>) -> Result<()> {
        check(
            op,
            value.try_gt_scalar(T::ZERO)?,
            "the value lies outside the support (0, inf)",
        )
    }
    /// The normal's `cdf` of `log value`.
    ///
    /// # Errors
    /// As [`Distribution::log_prob`].
    pub fn cdf(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        Self::positive("LogNormal.cdf", value)?;
        self.base.cdf(&value.try_log()?)
    }
    /// `exp` of the normal's `icdf`.
    ///
    /// # Errors
    /// `Broadcast`.
    pub fn icdf(&self, p: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        self.base.icdf(p)?.try_exp()
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for LogNormal<T, D> {
    type Value = Tensor<T, D>;
    fn batch_shape(&self) -> &Shape {
        self.base.batch_shape()
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        crate::autograd::no_grad(|| self.rsample(sample_shape))
    }
    /// The normal's `log_prob` of `log value`, minus `log value`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        Self::positive("LogNormal.log_prob", value)?;
        let y = value.try_log()?;
        self.base.log_prob(&y)?.try_sub(&y)
    }
    /// The normal's entropy plus `loc`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        self.base.entropy()?.try_add(&self.base.mean())
    }
}

impl<T: FloatElement, D: Backend> KlDivergence<LogNormal<T, D>> for LogNormal<T, D> {
    type Out = Tensor<T, D>;
    /// The KL divergence of the underlying normals (`exp` is a bijection).
    fn kl_divergence(&self, q: &LogNormal<T, D>) -> Result<Tensor<T, D>> {
        self.base.kl_divergence(&q.base)
    }
}

/// Student's t distribution with `df` degrees of freedom, `loc` and `scale` (PyTorch
/// `StudentT`).
#[derive(Clone)]
pub struct StudentT<T: FloatElement, D: Backend> {
    df: Tensor<T, D>,
    loc: Tensor<T, D>,
    scale: Tensor<T, D>,
    batch: Shape,
}

impl<T: FloatElement, D: Backend> StudentT<T, D> {
    /// The degrees of freedom, broadcast to the batch shape.
    pub fn df(&self) -> &Tensor<T, D> {
        &self.df
    }
    /// The location (the median), broadcast to the batch shape.
    pub fn loc(&self) -> &Tensor<T, D> {
        &self.loc
    }
    /// The scale, broadcast to the batch shape.
    pub fn scale(&self) -> &Tensor<T, D> {
        &self.scale
    }
    /// The t distribution of `loc + scale · X`, `X` with `df` degrees of freedom; the three
    /// broadcast together.
    ///
    /// # Errors
    /// `Broadcast`; `InvalidArgument` for a `df` or scale that is not positive.
    pub fn new(df: &Tensor<T, D>, loc: &Tensor<T, D>, scale: &Tensor<T, D>) -> Result<Self> {
        let (p, batch) = super::broadcast("StudentT", &[df, loc, scale])?;
        check(
            "StudentT",
            p[0].try_gt_scalar(T::ZERO)?,
            "df must be positive (and not NaN)",
        )?;
        check(
            "StudentT",
            p[2].try_gt_scalar(T::ZERO)?,
            "scale must be positive (and not NaN)",
        )?;
        let [df, loc, scale] = <[Tensor<T, D>; 3]>::try_from(p).expect("three parameters");
        Ok(StudentT {
            df,
            loc,
            scale,
            batch,
        })
    }
    fn by_df(&self, cases: &[(f64, f64)], value: Tensor<T, D>) -> Result<Tensor<T, D>> {
        // `value` where df > the last bound; the constants below the bounds, in order.
        let mut out = value;
        for &(bound, v) in cases.iter().rev() {
            let low = self.df.try_le_scalar(T::from_f64(bound))?;
            out = Tensor::try_where(
                &low,
                &Tensor::scalar_on(T::from_f64(v), self.df.device_handle())?,
                &out,
            )?;
        }
        Ok(out)
    }
    /// The mean, `loc` where `df > 1`, NaN elsewhere.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn mean(&self) -> Result<Tensor<T, D>> {
        self.by_df(&[(1.0, f64::NAN)], self.loc.clone())
    }
    /// The variance, `scale² · df / (df - 2)` where `df > 2`, infinite for `1 < df ≤ 2`, NaN
    /// for `df ≤ 1`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn variance(&self) -> Result<Tensor<T, D>> {
        let v = self.scale.try_mul(&self.scale)?.try_mul(&self.df)?;
        let v = v.try_div(&self.df.try_sub_scalar(T::from_f64(2.0))?)?;
        self.by_df(&[(1.0, f64::NAN), (2.0, f64::INFINITY)], v)
    }
    /// `loc + scale · X / √(Z / df)`, `X ~ N(0, 1)`, `Z ~ χ²(df)` (a gamma draw, differentiable
    /// in `df` by implicit reparameterization): differentiable in the three parameters.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        let half = T::from_f64(0.5);
        let chi2 = super::Gamma::new(
            &self.df.try_mul_scalar(half)?,
            &Tensor::scalar_on(half, self.df.device_handle())?,
        )?;
        let z = chi2.rsample(sample_shape)?;
        let x = Tensor::<T, D>::randn_on(
            extended(sample_shape, &self.batch),
            self.loc.device_handle(),
        )?;
        let y = x.try_mul(&z.try_div(&self.df)?.try_rsqrt()?)?;
        self.loc.try_add(&self.scale.try_mul(&y)?)
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for StudentT<T, D> {
    type Value = Tensor<T, D>;
    reparameterized!();
    /// `-(df + 1)/2 · log1p(y²/df) - log scale - log(df π)/2 - lgamma(df/2) + lgamma((df+1)/2)`,
    /// `y = (value - loc) / scale`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        check_real("StudentT.log_prob", value)?;
        let half = T::from_f64(0.5);
        let y = value.try_sub(&self.loc)?.try_div(&self.scale)?;
        let up = self.df.try_add_scalar(T::ONE)?.try_mul_scalar(half)?;
        let z = self
            .scale
            .try_log()?
            .try_add(&self.df.try_log()?.try_mul_scalar(half)?)?
            .try_add_scalar(T::from_f64(0.5 * PI.ln()))?
            .try_add(&self.df.try_mul_scalar(half)?.try_lgamma()?)?
            .try_sub(&up.try_lgamma()?)?;
        y.try_mul(&y)?
            .try_div(&self.df)?
            .try_log1p()?
            .try_mul(&up)?
            .try_neg()?
            .try_sub(&z)
    }
    /// `log scale + (df+1)/2 · (ψ((df+1)/2) - ψ(df/2)) + log(df)/2 + log B(df/2, 1/2)`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        let half = T::from_f64(0.5);
        let (h, up) = (
            self.df.try_mul_scalar(half)?,
            self.df.try_add_scalar(T::ONE)?.try_mul_scalar(half)?,
        );
        let lbeta = h
            .try_lgamma()?
            .try_add_scalar(T::from_f64(0.5 * PI.ln()))?
            .try_sub(&up.try_lgamma()?)?;
        self.scale
            .try_log()?
            .try_add(&up.try_mul(&up.try_digamma()?.try_sub(&h.try_digamma()?)?)?)?
            .try_add(&self.df.try_log()?.try_mul_scalar(half)?)?
            .try_add(&lbeta)
    }
}

impl<T: FloatElement, D: Backend> KlDivergence<Gumbel<T, D>> for Gumbel<T, D> {
    type Out = Tensor<T, D>;
    /// PyTorch's `_kl_gumbel_gumbel`: with `r = s_p/s_q`, `-log r + (μ_p - μ_q)/s_q + γ r +
    /// e^((μ_q - μ_p)/s_q) Γ(1 + r) - (1 + γ)`.
    fn kl_divergence(&self, q: &Gumbel<T, D>) -> Result<Tensor<T, D>> {
        let g = 0.577_215_664_901_532_9;
        let r = self.scale.try_div(&q.scale)?;
        let shift = self.loc.try_sub(&q.loc)?.try_div(&q.scale)?;
        let t3 = r
            .try_add_scalar(T::ONE)?
            .try_lgamma()?
            .try_sub(&shift)?
            .try_exp()?;
        r.try_log()?
            .try_neg()?
            .try_add(&shift)?
            .try_add(&r.try_mul_scalar(T::from_f64(g))?)?
            .try_add(&t3)?
            .try_sub_scalar(T::from_f64(1.0 + g))
    }
}
