//! Probability distributions with PyTorch's `torch.distributions` semantics (38 families,
//! `MixtureSameFamily`, `Independent` and `TransformedDistribution`; the [`Moments`] trait for
//! generic means and variances, [`Mode`] for the modes, [`EnumerateSupport`] for finite supports, [`Expand`] for larger batches):
//! sampling (`sample`; `rsample` draws through the parameters, so gradients reach them: the
//! reparameterization trick), `log_prob`, `entropy`, moments, `cdf`/`icdf`, and
//! [`kl_divergence`] between two distributions of one family. Parameters broadcast together
//! into the `batch_shape`; `sample(&[n, ..])` has shape `[n, ..] ++ batch_shape`. Every
//! distribution is generic over the float dtype and the device, and differentiable in its
//! parameters where PyTorch's is.
//!
//! As PyTorch with its default `validate_args`, parameters outside their domain (a scale
//! that is not positive, probabilities outside `[0, 1]`) are an `Err` at construction, and
//! values outside the support (a NaN for a real variable, `2` for a Bernoulli) an `Err` from
//! `log_prob`: each check reads one flag back from the device.
//!
//! ```
//! use typed_tensor::distributions::{Distribution, Normal, kl_divergence};
//! use typed_tensor::prelude::*;
//! let loc = Tensor::<f64>::from_vec(vec![0.0, 1.0], [2])?.with_requires_grad(true)?;
//! let p = Normal::new(&loc, &Tensor::from_vec(vec![1.0, 2.0], [2])?)?;
//! let lp = p.log_prob(&Tensor::from_vec(vec![0.0, 1.0], [2])?)?;
//! assert!((lp.to_vec()[0] - (-0.9189385332046727)).abs() < 1e-15); // -log √(2π)
//! let x = p.rsample(&[1000])?; // (1000, 2), differentiable in loc and scale
//! x.try_sum(&[], false)?.try_backward()?; // d/dloc Σx = 1000 per element
//! assert_eq!(loc.grad().unwrap().to_vec(), vec![1000.0, 1000.0]);
//! let q = Normal::new(&Tensor::scalar(0.0), &Tensor::scalar(1.0))?;
//! assert!(kl_divergence(&q, &q)?.item().abs() < 1e-15);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

/// The part of [`Distribution`] a reparameterized family with a `batch` field shares:
/// `batch_shape`, and `sample` as its `rsample` without recording.
macro_rules! reparameterized {
    () => {
        fn batch_shape(&self) -> &Shape {
            &self.batch
        }
        fn sample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
            crate::autograd::no_grad(|| self.rsample(sample_shape))
        }
    };
}

mod constraints;
mod continuous;
mod continuous_bernoulli;
mod counts;
mod derived;
mod discrete;
mod event_transforms;
mod expand;
mod fisher_snedecor;
mod gamma;
mod generalized_pareto;
mod kl_cross;
mod location_scale;
mod logistic_normal;
mod low_rank;
mod mixture;
mod mode;
mod moments;
mod multivariate;
mod relaxed;
mod support;
mod transformed;
mod von_mises;
mod wishart;

pub use constraints::{Bijection, Constraint, biject_to, transform_to};
pub use continuous::{Exponential, Laplace, Normal, Uniform};
pub use continuous_bernoulli::ContinuousBernoulli;
pub use counts::{Binomial, Geometric, Multinomial};
pub use derived::{Chi2, HalfCauchy, InverseGamma, Kumaraswamy, NegativeBinomial};
pub use discrete::{Bernoulli, Categorical, Poisson};
pub use event_transforms::EventTransform;
pub use expand::Expand;
pub use fisher_snedecor::FisherSnedecor;
pub use gamma::{Beta, Dirichlet, Gamma};
pub use generalized_pareto::GeneralizedPareto;
pub use location_scale::{Cauchy, Gumbel, LogNormal, StudentT};
pub use logistic_normal::LogisticNormal;
pub use low_rank::LowRankMultivariateNormal;
pub use mixture::MixtureSameFamily;
pub use mode::Mode;
pub use moments::Moments;
pub use multivariate::MultivariateNormal;
pub use relaxed::{
    LogitRelaxedBernoulli, OneHotCategorical, RelaxedBernoulli, RelaxedOneHotCategorical,
};
pub use support::EnumerateSupport;
pub use transformed::{HalfNormal, Pareto, Rsample, Transform, TransformedDistribution, Weibull};
pub use von_mises::VonMises;
pub use wishart::{LKJCholesky, Wishart};

use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;

/// What every distribution offers (PyTorch's `Distribution` interface). `Value` is the type
/// of a sample: a float tensor, or `i64` category indices for [`Categorical`].
pub trait Distribution<T: FloatElement, D: Backend> {
    /// The type of a sample.
    type Value;
    /// The shape of the parameters broadcast together.
    fn batch_shape(&self) -> &Shape;
    /// The shape of one event, the trailing axes of a sample that `log_prob` reduces over
    /// (PyTorch `event_shape`): `[]` for the scalar families, `[d]` for a
    /// `MultivariateNormal` over `d`-vectors, `[K]` for `Dirichlet`, `Multinomial` and the
    /// one-hot families.
    fn event_shape(&self) -> Vec<usize> {
        Vec::new()
    }
    /// Samples of shape `sample_shape ++ batch_shape`, without a graph (PyTorch `sample`).
    ///
    /// # Errors
    /// Allocation failure.
    fn sample(&self, sample_shape: &[usize]) -> Result<Self::Value>;
    /// The log density (or log mass) of `value`, which broadcasts with the batch shape.
    ///
    /// # Errors
    /// `InvalidArgument` for a value outside the support; `Broadcast` for a value whose shape
    /// does not broadcast with the batch shape.
    fn log_prob(&self, value: &Self::Value) -> Result<Tensor<T, D>>;
    /// The entropy, of the batch shape (nats).
    ///
    /// # Errors
    /// Allocation failure.
    fn entropy(&self) -> Result<Tensor<T, D>>;
    /// `e^entropy`, of the batch shape (PyTorch `perplexity`).
    ///
    /// # Errors
    /// As [`Distribution::entropy`].
    fn perplexity(&self) -> Result<Tensor<T, D>> {
        self.entropy()?.try_exp()
    }
}

/// The Kullback–Leibler divergence `KL(self ‖ q)` of two distributions of one family.
pub trait KlDivergence<Q> {
    /// The divergence's element type.
    type Out;
    /// `KL(self ‖ q)`, of the two batch shapes broadcast.
    ///
    /// # Errors
    /// `Broadcast` when the batch shapes do not broadcast.
    fn kl_divergence(&self, q: &Q) -> Result<Self::Out>;
}

/// `KL(p ‖ q)` (PyTorch `torch.distributions.kl_divergence`), for two distributions of one
/// family: Normal, Uniform, Exponential, Laplace, Cauchy, Gumbel, LogNormal, HalfNormal,
/// Pareto, Gamma, Chi2, Beta, Dirichlet, Bernoulli, ContinuousBernoulli, Binomial, Geometric,
/// Categorical, OneHotCategorical, Poisson, MultivariateNormal, LowRankMultivariateNormal, and
/// `Independent` of any of them, `TransformedDistribution`s of one base family through the same
/// transforms; and for PyTorch's pairs of different families (its formulas):
/// Bernoulli–Poisson, MultivariateNormal–LowRankMultivariateNormal both ways, and among
/// Beta, ContinuousBernoulli, Exponential, Gamma (and Chi2), Gumbel, Laplace, Normal, Pareto
/// and Uniform every pair with a closed form (`Beta`–`Normal`, `Uniform`–`Gamma`,
/// `Normal`–`Laplace`, ...) or an infinite value (`Normal`–`Gamma`: `q` has no density below
/// 0). Infinite where `q` has no mass under some of `p`'s, as in PyTorch; the result has the
/// two batch shapes broadcast.
///
/// ```
/// use typed_tensor::distributions::{Beta, Gamma, Normal, kl_divergence};
/// use typed_tensor::prelude::*;
/// let p = Beta::new(&tensor![2.0f64], &tensor![3.0f64])?;
/// let q = Gamma::new(&tensor![1.5f64], &tensor![2.0f64])?;
/// assert!(kl_divergence(&p, &q)?.to_vec()[0].is_finite());
/// let n = Normal::new(&tensor![0.0f64, 1.0], &tensor![1.0f64, 1.0])?;
/// assert_eq!(kl_divergence(&n, &q)?.to_vec(), vec![f64::INFINITY; 2]); // q is 0 below 0
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// As [`KlDivergence::kl_divergence`].
pub fn kl_divergence<P: KlDivergence<Q>, Q>(p: &P, q: &Q) -> Result<P::Out> {
    p.kl_divergence(q)
}

/// `v` as a 0-d tensor of `T` on `t`'s device.
fn c<T: FloatElement, D: Backend>(t: &Tensor<T, D>, v: f64) -> Result<Tensor<T, D>> {
    Tensor::scalar_on(T::from_f64(v), t.device_handle())
}

/// `Err` naming `op` unless `ok` holds at every element (one read-back).
fn check<D: Backend>(op: &'static str, ok: Tensor<bool, D>, what: &str) -> Result<()> {
    if ok.try_all(&[], false)?.try_item()? {
        return Ok(());
    }
    Err(Error::InvalidArgument {
        op,
        msg: format!("{what} (PyTorch's validate_args)"),
    })
}

/// The parameters broadcast together, and their shape. A parameter of that shape is kept as
/// it is (no `expand` node), so its graph is not freed by a first backward through a sample.
fn broadcast<T: FloatElement, D: Backend>(
    op: &'static str,
    params: &[&Tensor<T, D>],
) -> Result<(Vec<Tensor<T, D>>, Shape)> {
    let mut shape = Shape::new(Vec::new());
    for p in params {
        shape = crate::shape::broadcast_shapes(op, &shape, p.shape())?;
    }
    let all = (params.iter())
        .map(|p| match p.shape() == &shape {
            true => Ok((*p).clone()),
            false => p.expand(shape.clone()),
        })
        .collect::<Result<_>>()?;
    Ok((all, shape))
}

/// `sample_shape ++ batch`.
fn extended(sample_shape: &[usize], batch: &Shape) -> Vec<usize> {
    sample_shape.iter().chain(batch.dims()).copied().collect()
}

/// A real value: `Err` at NaN (PyTorch's `constraints.real`).
fn check_real<T: FloatElement, D: Backend>(op: &'static str, v: &Tensor<T, D>) -> Result<()> {
    check(
        op,
        v.try_is_nan()?.try_logical_not()?,
        "the value holds NaN, outside the support (the real numbers)",
    )
}

/// A value in `[0, 1]` (PyTorch's `constraints.unit_interval`): `Err` naming `op` otherwise.
fn unit_interval<T: FloatElement, D: Backend>(op: &'static str, v: &Tensor<T, D>) -> Result<()> {
    let ok = v
        .try_ge_scalar(T::ZERO)?
        .try_logical_and(&v.try_le_scalar(T::ONE)?)?;
    check(op, ok, "the value lies outside the support [0, 1]")
}

/// A value on the simplex of its last axis: non-negative, summing to 1 within 1e-6
/// (PyTorch's `constraints.simplex`); `Err` naming `op` otherwise.
fn simplex<T: FloatElement, D: Backend>(op: &'static str, value: &Tensor<T, D>) -> Result<()> {
    let total = value.try_sum(&[-1], false)?.try_sub_scalar(T::ONE)?;
    let ok = value.try_ge_scalar(T::ZERO)?.try_all(&[-1], false)?;
    let ok = ok.try_logical_and(&total.try_abs()?.try_lt_scalar(T::from_f64(1e-6))?)?;
    check(
        op,
        ok,
        "the value must lie on the simplex (non-negative, summing to 1)",
    )
}

/// A value in `[0, ∞)` (PyTorch's `constraints.nonnegative`): `Err` naming `op` otherwise.
fn non_negative<T: FloatElement, D: Backend>(op: &'static str, v: &Tensor<T, D>) -> Result<()> {
    let msg = "the value is negative or NaN, outside the support [0, ∞)";
    check(op, v.try_ge_scalar(T::ZERO)?, msg)
}

/// The smallest positive normal number of `T` (PyTorch's `finfo(dtype).tiny`).
fn tiny<T: FloatElement>() -> f64 {
    use crate::dtype::Dtype;
    match T::DTYPE {
        Dtype::Float64 => f64::MIN_POSITIVE,
        Dtype::Float16 => 6.103515625e-05,
        _ => f64::from(f32::MIN_POSITIVE),
    }
}

/// The machine epsilon of `T` (PyTorch's `finfo(dtype).eps`).
fn eps<T: FloatElement>() -> f64 {
    T::DTYPE.eps()
}

/// `(loc, scale, batch_shape)`.
type LocScale<T, D> = (Tensor<T, D>, Tensor<T, D>, Shape);

/// The parameters `(loc, scale)` of a location–scale family broadcast together, the scale
/// checked positive.
fn loc_scale<T: FloatElement, D: Backend>(
    op: &'static str,
    loc: &Tensor<T, D>,
    scale: &Tensor<T, D>,
) -> Result<LocScale<T, D>> {
    let (p, batch) = broadcast(op, &[loc, scale])?;
    check(
        op,
        p[1].try_gt_scalar(T::ZERO)?,
        "scale must be positive (and not NaN)",
    )?;
    let [loc, scale] = <[Tensor<T, D>; 2]>::try_from(p).expect("two parameters");
    Ok((loc, scale, batch))
}

/// A distribution whose last `reinterpreted` batch axes become event axes (PyTorch
/// `Independent`): `log_prob` and `entropy` sum over them, so `Independent::new(Normal::new(mu,
/// sigma)?, 1)` is a diagonal Gaussian over vectors. Sampling is the base's.
#[derive(Clone)]
pub struct Independent<B> {
    pub(super) base: B,
    pub(super) reinterpreted: usize,
    pub(super) batch: Shape,
}

impl<B> Independent<B> {
    /// `base` with its last `reinterpreted` batch axes read as one event.
    ///
    /// # Errors
    /// `InvalidArgument` when the base has fewer batch axes than `reinterpreted`.
    pub fn new<T: FloatElement, D: Backend>(base: B, reinterpreted: usize) -> Result<Self>
    where
        B: Distribution<T, D>,
    {
        let dims = base.batch_shape().dims();
        let Some(keep) = dims.len().checked_sub(reinterpreted) else {
            return Err(Error::InvalidArgument {
                op: "Independent",
                msg: format!(
                    "cannot reinterpret {reinterpreted} axes of a batch of shape {}",
                    base.batch_shape()
                ),
            });
        };
        let batch = Shape::new(dims[..keep].to_vec());
        Ok(Independent {
            base,
            reinterpreted,
            batch,
        })
    }
    /// The base distribution.
    pub fn base(&self) -> &B {
        &self.base
    }
    /// `t` summed over the event axes (the last `reinterpreted`; none is no sum: an empty axis
    /// list would sum them all).
    fn sum_events<T: FloatElement, D: Backend>(&self, t: Tensor<T, D>) -> Result<Tensor<T, D>> {
        if self.reinterpreted == 0 {
            return Ok(t);
        }
        let axes: Vec<i64> = (1..=self.reinterpreted as i64).map(|i| -i).collect();
        t.try_sum(&axes, false)
    }
}

impl<T, D, B> Distribution<T, D> for Independent<B>
where
    T: FloatElement,
    D: Backend,
    B: Distribution<T, D>,
{
    type Value = B::Value;
    fn batch_shape(&self) -> &Shape {
        &self.batch
    }
    /// The reinterpreted batch axes followed by the base's event shape.
    fn event_shape(&self) -> Vec<usize> {
        let dims = self.base.batch_shape().dims();
        let mut e = dims[dims.len() - self.reinterpreted..].to_vec();
        e.extend(self.base.event_shape());
        e
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<B::Value> {
        self.base.sample(sample_shape)
    }
    /// The base's `log_prob` summed over the event axes.
    fn log_prob(&self, value: &B::Value) -> Result<Tensor<T, D>> {
        self.sum_events(self.base.log_prob(value)?)
    }
    /// The base's entropy summed over the event axes.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        self.sum_events(self.base.entropy()?)
    }
}

impl<T, D, B> KlDivergence<Independent<B>> for Independent<B>
where
    T: FloatElement,
    D: Backend,
    B: KlDivergence<B, Out = Tensor<T, D>>,
{
    type Out = Tensor<T, D>;
    /// The base divergence summed over the event axes (PyTorch's `_kl_independent_independent`).
    fn kl_divergence(&self, q: &Independent<B>) -> Result<Tensor<T, D>> {
        if self.reinterpreted != q.reinterpreted {
            return Err(Error::InvalidArgument {
                op: "kl_divergence",
                msg: format!(
                    "the two Independent distributions reinterpret {} and {} axes",
                    self.reinterpreted, q.reinterpreted
                ),
            });
        }
        self.sum_events(self.base.kl_divergence(&q.base)?)
    }
}
