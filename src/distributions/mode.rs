//! The [`Mode`] trait: the most likely value (PyTorch's `mode` property), implemented by the
//! families that have one in PyTorch; the others do not compile (PyTorch raises
//! `NotImplementedError`).

use super::*;
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::tensor::Tensor;

/// The mode: where the density (or mass) is largest, of shape `batch_shape ++ event_shape`
/// (PyTorch's `Distribution.mode`, its formulas). NaN where there is no single mode (a
/// `Uniform`; a `Bernoulli` with `p = 1/2`; a `FisherSnedecor` with `df1 ≤ 2`).
///
/// ```
/// use typed_tensor::distributions::{Gamma, Mode, Normal};
/// use typed_tensor::prelude::*;
/// let g = Gamma::new(&tensor![3.0f64, 0.5], &tensor![2.0f64, 1.0])?;
/// assert_eq!(g.mode()?.to_vec(), vec![1.0, 0.0]); // (α - 1)/β, 0 for α < 1
/// let n = Normal::new(&tensor![0.5f64], &tensor![2.0f64])?;
/// assert_eq!(n.mode()?.to_vec(), vec![0.5]);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
pub trait Mode<T: FloatElement, D: Backend>: Distribution<T, D> {
    /// The mode.
    ///
    /// # Errors
    /// Allocation failure.
    fn mode(&self) -> Result<Self::Value>;
}

/// `value`, NaN where `nan` holds.
fn nan_where<T: FloatElement, D: Backend>(
    nan: Tensor<bool, D>,
    value: Tensor<T, D>,
) -> Result<Tensor<T, D>> {
    Tensor::try_where(&nan, &super::c(&value, f64::NAN)?, &value)
}

/// Families whose mode is a parameter or its zeros.
macro_rules! mode_is {
    ($($family:ident: |$d:ident| $e:expr;)*) => {$(
        impl<T: FloatElement, D: Backend> Mode<T, D> for $family<T, D> {
            fn mode(&self) -> Result<Tensor<T, D>> {
                let $d = self;
                $e
            }
        }
    )*};
}

mode_is! {
    Normal: |d| Ok(d.loc().clone());
    Laplace: |d| Ok(d.loc().clone());
    Cauchy: |d| Ok(d.loc().clone());
    StudentT: |d| Ok(d.loc().clone());
    Gumbel: |d| Ok(d.loc().clone());
    VonMises: |d| Ok(d.loc().clone());
    GeneralizedPareto: |d| Ok(d.loc().clone());
    MultivariateNormal: |d| Ok(d.mean());
    LowRankMultivariateNormal: |d| Ok(d.loc().clone());
    Pareto: |d| Ok(d.scale().clone());
    Exponential: |d| d.rate().try_zeros_like();
    HalfNormal: |d| d.scale().try_zeros_like();
    HalfCauchy: |d| d.scale().try_zeros_like();
    Geometric: |d| d.probs().try_zeros_like();
    // PyTorch's `nan * high`: every point of the interval is a mode.
    Uniform: |d| d.high().try_mul_scalar(T::from_f64(f64::NAN));
    // `exp(μ - σ²)`.
    LogNormal: |d| d.loc().try_sub(&d.scale().try_square()?)?.try_exp();
    // `(α - 1)/β`, 0 for `α < 1`.
    Gamma: |d| d.concentration().try_sub_scalar(T::ONE)?.try_div(d.rate())?.try_clamp_min(T::ZERO);
    Chi2: |d| d.gamma().mode();
    // `β / (α + 1)`.
    InverseGamma: |d| d.rate().try_div(&d.concentration().try_add_scalar(T::ONE)?);
    // `⌊λ⌋`.
    Poisson: |d| d.rate().try_floor();
    // `min(⌊(n + 1) p⌋, n)`.
    Binomial: |d| {
        let n = d.total_count();
        n.try_add_scalar(T::ONE)?.try_mul(d.probs())?.try_floor()?.try_minimum(n)
    };
    // `max(⌊(r - 1) p / (1 - p)⌋, 0)`.
    NegativeBinomial: |d| {
        let odds = d.logits().try_exp()?;
        d.total_count().try_sub_scalar(T::ONE)?.try_mul(&odds)?.try_floor()?.try_clamp_min(T::ZERO)
    };
    // 1 for `p > 1/2`, 0 below, NaN at `1/2`.
    Bernoulli: |d| {
        let p = d.probs();
        let one = p.try_ge_scalar(T::from_f64(0.5))?.try_cast::<T>()?;
        nan_where(p.try_eq_scalar(T::from_f64(0.5))?, one)
    };
    // `(d₁ - 2)/d₁ · d₂/(d₂ + 2)`, NaN for `d₁ ≤ 2`.
    FisherSnedecor: |d| {
        let (d1, d2) = (d.df1(), d.df2());
        let m = d1.try_sub_scalar(T::from_f64(2.0))?.try_div(d1)?
            .try_mul(&d2.try_div(&d2.try_add_scalar(T::from_f64(2.0))?)?)?;
        nan_where(d1.try_le_scalar(T::from_f64(2.0))?, m)
    };
    // `σ ((k - 1)/k)^(1/k)`; 0 for `k ≤ 1`, where the density is largest at 0 (PyTorch gives
    // NaN for `k < 1`).
    Weibull: |d| {
        let k = d.concentration();
        let m = k.try_sub_scalar(T::ONE)?.try_div(k)?.try_clamp_min(T::ZERO)?
            .try_pow(&k.try_reciprocal()?)?;
        d.scale().try_mul(&m)
    };
    // `((a - 1)/(ab - 1))^(1/a)` for `a, b ≥ 1` (not both 1), NaN otherwise (PyTorch 2.15's
    // formula is in error: it gives NaN for every `b > 1`).
    Kumaraswamy: |d| {
        let (a, b) = (d.concentration1(), d.concentration0());
        let m = a.try_sub_scalar(T::ONE)?
            .try_div(&a.try_mul(b)?.try_sub_scalar(T::ONE)?)?
            .try_pow(&a.try_reciprocal()?)?;
        let bad = a.try_lt_scalar(T::ONE)?.try_logical_or(&b.try_lt_scalar(T::ONE)?)?;
        let flat = a.try_eq_scalar(T::ONE)?.try_logical_and(&b.try_eq_scalar(T::ONE)?)?;
        nan_where(bad.try_logical_or(&flat)?, m)
    };
    // `(α - 1)⁺ / Σ(α - 1)⁺`; where every `α < 1`, the corner of the largest.
    Dirichlet: |d| dirichlet_mode(d.concentration());
    Beta: |d| {
        let pair = Tensor::try_stack(&[&d.concentration1()?, &d.concentration0()?], -1)?;
        dirichlet_mode(&pair)?.select(-1, 0)
    };
    // `ν - p - 1` times `Σ`, NaN where that is not positive.
    Wishart: |d| {
        let p = d.event_size() as f64;
        let f = d.df().try_sub_scalar(T::from_f64(p + 1.0))?;
        let f = nan_where(f.try_le_scalar(T::ZERO)?, f)?;
        f.unsqueeze(-1)?.unsqueeze(-1)?.try_mul(&d.covariance()?)
    };
    // The one-hot vector of the likeliest class.
    OneHotCategorical: |d| {
        let k = d.num_classes();
        let best = d.probs().try_argmax(&[-1], false)?;
        crate::nn::one_hot(&best, Some(k))?.try_cast::<T>()
    };
}

/// PyTorch's Dirichlet mode over the last axis of `conc`.
fn dirichlet_mode<T: FloatElement, D: Backend>(conc: &Tensor<T, D>) -> Result<Tensor<T, D>> {
    let k = conc.dims()[conc.ndim() - 1];
    let m1 = conc.try_sub_scalar(T::ONE)?.try_clamp_min(T::ZERO)?;
    let mode = m1.try_div(&m1.try_sum(&[-1], true)?)?;
    let best = mode.try_argmax(&[-1], false)?;
    let corner = crate::nn::one_hot(&best, Some(k))?.try_cast::<T>()?;
    let all_below = conc.try_lt_scalar(T::ONE)?.try_all(&[-1], true)?;
    Tensor::try_where(&all_below, &corner, &mode)
}

impl<T: FloatElement, D: Backend> Mode<T, D> for Categorical<T, D> {
    /// The likeliest class (the first of ties).
    fn mode(&self) -> Result<Tensor<i64, D>> {
        self.probs().try_argmax(&[-1], false)
    }
}

impl<T, D, B> Mode<T, D> for Independent<B>
where
    T: FloatElement,
    D: Backend,
    B: Mode<T, D>,
{
    /// The base's mode.
    fn mode(&self) -> Result<B::Value> {
        self.base().mode()
    }
}
