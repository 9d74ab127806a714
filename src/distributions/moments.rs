//! The [`Moments`] trait (PyTorch's `mean`, `variance`, `stddev` properties), for generic code
//! and the mixtures built on it; each family's are its inherent methods.

use super::{Bernoulli, Cauchy, Chi2, HalfCauchy, HalfNormal, OneHotCategorical, Pareto, Weibull};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::tensor::Tensor;

/// The first two moments of a distribution, of shape `batch_shape ++ event_shape` (PyTorch's
/// `mean`, `variance` and `stddev`). Infinite or NaN where the moment does not exist, as
/// PyTorch's (`Cauchy`: NaN mean, infinite variance; `Pareto` with `α ≤ 1`: infinite mean).
/// `VonMises` gives its circular mean and variance, as PyTorch's.
///
/// ```
/// use typed_tensor::distributions::{Gamma, Moments, Normal};
/// use typed_tensor::prelude::*;
/// fn spread<M: Moments<f64, Cpu>>(d: &M) -> typed_tensor::Result<Vec<f64>> {
///     Ok(d.stddev()?.to_vec())
/// }
/// let n = Normal::new(&tensor![0.0f64], &tensor![2.0f64])?;
/// let g = Gamma::new(&tensor![4.0f64], &tensor![1.0f64])?;
/// assert_eq!((spread(&n)?, spread(&g)?), (vec![2.0], vec![2.0]));
/// # Ok::<(), typed_tensor::Error>(())
/// ```
pub trait Moments<T: FloatElement, D: Backend> {
    /// The mean.
    ///
    /// # Errors
    /// Allocation failure.
    fn mean(&self) -> Result<Tensor<T, D>>;
    /// The variance (of each coordinate, for a vector event).
    ///
    /// # Errors
    /// Allocation failure.
    fn variance(&self) -> Result<Tensor<T, D>>;
    /// The standard deviation, `√variance`.
    ///
    /// # Errors
    /// Allocation failure.
    fn stddev(&self) -> Result<Tensor<T, D>> {
        self.variance()?.try_sqrt()
    }
}

/// A moment as the inherent methods return it: a tensor, a borrowed one or a `Result`.
trait IntoMoment<T: FloatElement, D: Backend> {
    fn into_moment(self) -> Result<Tensor<T, D>>;
}

impl<T: FloatElement, D: Backend> IntoMoment<T, D> for Tensor<T, D> {
    fn into_moment(self) -> Result<Tensor<T, D>> {
        Ok(self)
    }
}

impl<T: FloatElement, D: Backend> IntoMoment<T, D> for &Tensor<T, D> {
    fn into_moment(self) -> Result<Tensor<T, D>> {
        Ok(self.clone())
    }
}

impl<T: FloatElement, D: Backend> IntoMoment<T, D> for Result<Tensor<T, D>> {
    fn into_moment(self) -> Result<Tensor<T, D>> {
        self
    }
}

macro_rules! moments_from_inherent {
    ($($family:ident),*) => {$(
        impl<T: FloatElement, D: Backend> Moments<T, D> for super::$family<T, D> {
            fn mean(&self) -> Result<Tensor<T, D>> {
                super::$family::mean(self).into_moment()
            }
            fn variance(&self) -> Result<Tensor<T, D>> {
                super::$family::variance(self).into_moment()
            }
        }
    )*};
}

moments_from_inherent!(
    Normal,
    Uniform,
    Exponential,
    Laplace,
    Gumbel,
    LogNormal,
    StudentT,
    Gamma,
    Beta,
    Dirichlet,
    Binomial,
    Geometric,
    Multinomial,
    Poisson,
    MultivariateNormal,
    InverseGamma,
    NegativeBinomial,
    Kumaraswamy,
    VonMises
);

/// `value` everywhere in `like`'s shape and device.
fn full<T: FloatElement, D: Backend>(like: &Tensor<T, D>, value: f64) -> Result<Tensor<T, D>> {
    Tensor::full_on(
        like.shape().clone(),
        T::from_f64(value),
        like.device_handle(),
    )
}

impl<T: FloatElement, D: Backend> Moments<T, D> for Bernoulli<T, D> {
    /// `p`.
    fn mean(&self) -> Result<Tensor<T, D>> {
        Ok(self.probs().clone())
    }
    fn variance(&self) -> Result<Tensor<T, D>> {
        Bernoulli::variance(self)
    }
}

impl<T: FloatElement, D: Backend> Moments<T, D> for OneHotCategorical<T, D> {
    /// The class probabilities.
    fn mean(&self) -> Result<Tensor<T, D>> {
        Ok(self.probs().clone())
    }
    fn variance(&self) -> Result<Tensor<T, D>> {
        OneHotCategorical::variance(self)
    }
}

impl<T: FloatElement, D: Backend> Moments<T, D> for Chi2<T, D> {
    /// The degrees of freedom.
    fn mean(&self) -> Result<Tensor<T, D>> {
        self.df()
    }
    fn variance(&self) -> Result<Tensor<T, D>> {
        Chi2::variance(self)
    }
}

impl<T: FloatElement, D: Backend> Moments<T, D> for Cauchy<T, D> {
    /// NaN: the Cauchy distribution has no mean (PyTorch's value).
    fn mean(&self) -> Result<Tensor<T, D>> {
        full(self.scale(), f64::NAN)
    }
    /// Infinite (PyTorch's value).
    fn variance(&self) -> Result<Tensor<T, D>> {
        full(self.scale(), f64::INFINITY)
    }
}

impl<T: FloatElement, D: Backend> Moments<T, D> for HalfCauchy<T, D> {
    /// Infinite (PyTorch's value).
    fn mean(&self) -> Result<Tensor<T, D>> {
        full(self.scale(), f64::INFINITY)
    }
    /// Infinite (PyTorch's value).
    fn variance(&self) -> Result<Tensor<T, D>> {
        self.mean()
    }
}

impl<T: FloatElement, D: Backend> Moments<T, D> for HalfNormal<T, D> {
    fn mean(&self) -> Result<Tensor<T, D>> {
        HalfNormal::mean(self)
    }
    /// `scale² (1 - 2/π)`.
    fn variance(&self) -> Result<Tensor<T, D>> {
        let s = self.scale();
        let c = 1.0 - 2.0 / std::f64::consts::PI;
        s.try_mul(s)?.try_mul_scalar(T::from_f64(c))
    }
}

impl<T: FloatElement, D: Backend> Moments<T, D> for Weibull<T, D> {
    fn mean(&self) -> Result<Tensor<T, D>> {
        Weibull::mean(self)
    }
    /// `λ² (Γ(1 + 2/k) - Γ(1 + 1/k)²)`.
    fn variance(&self) -> Result<Tensor<T, D>> {
        let (scale, k) = (self.scale(), self.concentration());
        let gamma = |m: f64| {
            k.try_reciprocal()?
                .try_mul_scalar(T::from_f64(m))?
                .try_add_scalar(T::ONE)?
                .try_lgamma()?
                .try_exp()
        };
        let g1 = gamma(1.0)?;
        let v = gamma(2.0)?.try_sub(&g1.try_mul(&g1)?)?;
        scale.try_mul(scale)?.try_mul(&v)
    }
}

impl<T: FloatElement, D: Backend> Moments<T, D> for Pareto<T, D> {
    /// `α scale / (α - 1)`, infinite for `α ≤ 1`.
    fn mean(&self) -> Result<Tensor<T, D>> {
        let (scale, a) = (self.scale(), self.alpha());
        let m = a.try_mul(scale)?.try_div(&a.try_sub_scalar(T::ONE)?)?;
        above(a, 1.0, &m)
    }
    /// `scale² α / ((α - 1)² (α - 2))`, infinite for `α ≤ 2`.
    fn variance(&self) -> Result<Tensor<T, D>> {
        let (scale, a) = (self.scale(), self.alpha());
        let a1 = a.try_sub_scalar(T::ONE)?;
        let den = a1
            .try_mul(&a1)?
            .try_mul(&a.try_sub_scalar(T::from_f64(2.0))?)?;
        let v = scale.try_mul(scale)?.try_mul(a)?.try_div(&den)?;
        above(a, 2.0, &v)
    }
}

/// `value` where `a > min`, infinity elsewhere.
fn above<T: FloatElement, D: Backend>(
    a: &Tensor<T, D>,
    min: f64,
    value: &Tensor<T, D>,
) -> Result<Tensor<T, D>> {
    let inf = Tensor::scalar_on(T::from_f64(f64::INFINITY), a.device_handle())?;
    Tensor::try_where(&a.try_gt_scalar(T::from_f64(min))?, value, &inf)
}

impl<T, D, B> Moments<T, D> for super::Independent<B>
where
    T: FloatElement,
    D: Backend,
    B: Moments<T, D>,
{
    /// The base's.
    fn mean(&self) -> Result<Tensor<T, D>> {
        self.base().mean()
    }
    /// The base's.
    fn variance(&self) -> Result<Tensor<T, D>> {
        self.base().variance()
    }
}
