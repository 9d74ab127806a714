//! The F distribution (PyTorch `FisherSnedecor`).

use super::{Distribution, Gamma, Moments, Rsample, check};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;

/// Snedecor's F distribution with `df1` and `df2` degrees of freedom (PyTorch
/// `FisherSnedecor`): the ratio `(U₁/df1) / (U₂/df2)` of two independent χ² variables,
/// sampled as a ratio of gamma draws (differentiable in both parameters).
#[derive(Clone)]
pub struct FisherSnedecor<T: FloatElement, D: Backend> {
    df1: Tensor<T, D>,
    df2: Tensor<T, D>,
    gamma1: Gamma<T, D>,
    gamma2: Gamma<T, D>,
}

impl<T: FloatElement, D: Backend> FisherSnedecor<T, D> {
    /// The numerator degrees of freedom, broadcast to the batch shape.
    pub fn df1(&self) -> &Tensor<T, D> {
        &self.df1
    }
    /// The denominator degrees of freedom, broadcast to the batch shape.
    pub fn df2(&self) -> &Tensor<T, D> {
        &self.df2
    }
    /// The F distribution, the parameters broadcast.
    ///
    /// # Errors
    /// `Broadcast`; `InvalidArgument` for degrees of freedom that are not positive and
    /// finite.
    pub fn new(df1: &Tensor<T, D>, df2: &Tensor<T, D>) -> Result<Self> {
        const OP: &str = "FisherSnedecor";
        let (p, _) = super::broadcast(OP, &[df1, df2])?;
        let [df1, df2] = <[Tensor<T, D>; 2]>::try_from(p).expect("two parameters");
        let half = T::from_f64(0.5);
        let gamma = |df: &Tensor<T, D>| {
            Gamma::new(&df.try_mul_scalar(half)?, df).map_err(|e| match e {
                Error::InvalidArgument { msg, .. } => Error::InvalidArgument {
                    op: OP,
                    msg: format!("degrees of freedom must be positive and finite ({msg})"),
                },
                e => e.renamed(OP),
            })
        };
        let (gamma1, gamma2) = (gamma(&df1)?, gamma(&df2)?);
        Ok(FisherSnedecor {
            df1,
            df2,
            gamma1,
            gamma2,
        })
    }
    /// `X₁ / X₂` for `X_i ~ Gamma(df_i / 2, df_i)`, each clamped to the smallest normal
    /// number (as PyTorch's).
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        let tiny = T::from_f64(super::tiny::<T>());
        let x2 = self.gamma2.rsample(sample_shape)?.try_clamp_min(tiny)?;
        self.gamma1
            .rsample(sample_shape)?
            .try_div(&x2)?
            .try_clamp_min(tiny)
    }
    /// `value` where `df2 > min`, NaN elsewhere (PyTorch's undefined moments).
    fn where_df2_above(&self, min: f64, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let nan = Tensor::scalar_on(T::from_f64(f64::NAN), self.df2.device_handle())?;
        Tensor::try_where(&self.df2.try_gt_scalar(T::from_f64(min))?, value, &nan)
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for FisherSnedecor<T, D> {
    type Value = Tensor<T, D>;
    fn batch_shape(&self) -> &Shape {
        self.df1.shape()
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        crate::autograd::no_grad(|| self.rsample(sample_shape))
    }
    /// `lgamma((d₁+d₂)/2) - lgamma(d₁/2) - lgamma(d₂/2) + (d₁/2) log(d₁/d₂) + (d₁/2 - 1) log x
    /// - ((d₁+d₂)/2) log1p(d₁ x / d₂)`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        check(
            "FisherSnedecor.log_prob",
            value.try_gt_scalar(T::ZERO)?,
            "the value lies outside the support (0, inf)",
        )?;
        let half = T::from_f64(0.5);
        let (c1, c2) = (
            self.df1.try_mul_scalar(half)?,
            self.df2.try_mul_scalar(half)?,
        );
        let c3 = self.df1.try_div(&self.df2)?;
        let c12 = c1.try_add(&c2)?;
        let t1 = c12
            .try_lgamma()?
            .try_sub(&c1.try_lgamma()?)?
            .try_sub(&c2.try_lgamma()?)?;
        let t2 = c1
            .try_mul(&c3.try_log()?)?
            .try_add(&c1.try_sub_scalar(T::ONE)?.try_mul(&value.try_log()?)?)?;
        let t3 = c12.try_mul(&c3.try_mul(value)?.try_log1p()?)?;
        t1.try_add(&t2)?.try_sub(&t3)
    }
    /// PyTorch has none: an `Err`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        Err(Error::InvalidArgument {
            op: "FisherSnedecor.entropy",
            msg: "PyTorch's FisherSnedecor has no entropy (NotImplementedError)".into(),
        })
    }
}

impl<T: FloatElement, D: Backend> Rsample<T, D> for FisherSnedecor<T, D> {
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        FisherSnedecor::rsample(self, sample_shape)
    }
}

impl<T: FloatElement, D: Backend> Moments<T, D> for FisherSnedecor<T, D> {
    /// `d₂ / (d₂ - 2)`, NaN for `d₂ ≤ 2`.
    fn mean(&self) -> Result<Tensor<T, D>> {
        let d2 = &self.df2;
        self.where_df2_above(2.0, &d2.try_div(&d2.try_sub_scalar(T::from_f64(2.0))?)?)
    }
    /// `2 d₂² (d₁ + d₂ - 2) / (d₁ (d₂ - 2)² (d₂ - 4))`, NaN for `d₂ ≤ 4`.
    fn variance(&self) -> Result<Tensor<T, D>> {
        let (d1, d2) = (&self.df1, &self.df2);
        let num = d2
            .try_square()?
            .try_mul_scalar(T::from_f64(2.0))?
            .try_mul(&d1.try_add(d2)?.try_sub_scalar(T::from_f64(2.0))?)?;
        let den = d1
            .try_mul(&d2.try_sub_scalar(T::from_f64(2.0))?.try_square()?)?
            .try_mul(&d2.try_sub_scalar(T::from_f64(4.0))?)?;
        self.where_df2_above(4.0, &num.try_div(&den)?)
    }
}
