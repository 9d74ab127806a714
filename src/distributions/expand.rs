//! The [`Expand`] trait: a distribution's parameters broadcast to a larger batch shape
//! (PyTorch's `Distribution.expand`).

use super::*;
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// The same distribution over a larger batch (PyTorch's `expand`): every parameter broadcast
/// to `batch_shape` (followed by its event axes), as views, so gradients flow back to the
/// original parameters. The batch shape must be one the current one broadcasts to.
///
/// ```
/// use typed_tensor::distributions::{Distribution, Expand, Normal};
/// use typed_tensor::prelude::*;
/// let d = Normal::new(&tensor![0.0f64], &tensor![1.0f64])?.expand(&[4, 3])?;
/// assert_eq!(d.batch_shape().dims(), &[4, 3]);
/// assert_eq!(d.sample(&[2])?.dims(), &[2, 4, 3]);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
pub trait Expand<T: FloatElement, D: Backend>: Distribution<T, D> + Sized {
    /// The distribution with batch shape `batch_shape`.
    ///
    /// # Errors
    /// `InvalidArgument` when the current batch shape does not broadcast to `batch_shape`.
    fn expand(&self, batch_shape: &[usize]) -> Result<Self>;
}

/// `t` broadcast to `batch ++` its last `event` axes, after checking that `batch_shape`
/// (the distribution's current one) broadcasts to `batch`.
fn grow<T: FloatElement, D: Backend>(
    t: &Tensor<T, D>,
    batch: &[usize],
    event: usize,
) -> Result<Tensor<T, D>> {
    let d = t.dims();
    let mut dims = batch.to_vec();
    dims.extend(&d[d.len().saturating_sub(event)..]);
    t.expand(dims)
}

/// `Err` unless `from` broadcasts to `to` (PyTorch's `expand` rule).
fn check_target(from: &[usize], to: &[usize]) -> Result<()> {
    let fits = from.len() <= to.len()
        && (from.iter().rev().zip(to.iter().rev())).all(|(&f, &t)| f == t || f == 1);
    if fits {
        return Ok(());
    }
    Err(Error::InvalidArgument {
        op: "expand",
        msg: format!("a batch of shape {from:?} does not broadcast to {to:?}"),
    })
}

/// A parameter as an accessor returns it: borrowed, owned, or computed.
trait Param<T: FloatElement, D: Backend> {
    fn param(self) -> Result<Tensor<T, D>>;
}

impl<T: FloatElement, D: Backend> Param<T, D> for &Tensor<T, D> {
    fn param(self) -> Result<Tensor<T, D>> {
        Ok(self.clone())
    }
}

impl<T: FloatElement, D: Backend> Param<T, D> for Tensor<T, D> {
    fn param(self) -> Result<Tensor<T, D>> {
        Ok(self)
    }
}

impl<T: FloatElement, D: Backend> Param<T, D> for Result<Tensor<T, D>> {
    fn param(self) -> Result<Tensor<T, D>> {
        self
    }
}

/// Implements [`Expand`] by calling the constructor on the parameters grown to the new batch:
/// `family: constructor(param [event axes], ...)`.
macro_rules! expand_via {
    ($($family:ident: $ctor:ident($($param:ident $(+ $event:literal)?),*);)*) => {$(
        impl<T: FloatElement, D: Backend> Expand<T, D> for $family<T, D> {
            fn expand(&self, batch_shape: &[usize]) -> Result<Self> {
                check_target(self.batch_shape().dims(), batch_shape)?;
                $family::$ctor($(&grow(&self.$param().param()?, batch_shape, 0 $(+ $event)?)?),*)
            }
        }
    )*};
}

expand_via! {
    Normal: new(loc, scale);
    Laplace: new(loc, scale);
    Cauchy: new(loc, scale);
    Gumbel: new(loc, scale);
    LogNormal: new(loc, scale);
    StudentT: new(df, loc, scale);
    Uniform: new(low, high);
    Exponential: new(rate);
    Gamma: new(concentration, rate);
    InverseGamma: new(concentration, rate);
    Beta: new(concentration1, concentration0);
    Kumaraswamy: new(concentration1, concentration0);
    Poisson: new(rate);
    HalfNormal: new(scale);
    HalfCauchy: new(scale);
    Pareto: new(scale, alpha);
    Weibull: new(scale, concentration);
    VonMises: new(loc, concentration);
    GeneralizedPareto: new(loc, scale, concentration);
    FisherSnedecor: new(df1, df2);
    Chi2: new(df);
    Dirichlet: new(concentration + 1);
    MultivariateNormal: from_scale_tril(mean + 1, scale_tril + 2);
}

/// Implements [`Expand`] by growing the stored fields (both `probs` and `logits`, as views, so
/// the expanded distribution keeps the original's values exactly): `family { field [event
/// axes], ... }`, a `batch` field set to the new batch shape when the family has one.
macro_rules! expand_fields {
    ($($family:ident { $($field:ident $(+ $event:literal)?),* } $(batch $b:ident)?;)*) => {$(
        impl<T: FloatElement, D: Backend> Expand<T, D> for $family<T, D> {
            fn expand(&self, batch_shape: &[usize]) -> Result<Self> {
                check_target(self.batch_shape().dims(), batch_shape)?;
                Ok($family {
                    $($field: grow(&self.$field, batch_shape, 0 $(+ $event)?)?,)*
                    $($b: crate::shape::Shape::new(batch_shape.to_vec()),)?
                })
            }
        }
    )*};
}

expand_fields! {
    Bernoulli { probs, logits };
    Geometric { probs, logits };
    ContinuousBernoulli { probs, logits };
    Categorical { probs + 1, logits + 1 } batch batch;
    Binomial { total_count, probs, logits } batch batch;
    LogitRelaxedBernoulli { temperature, probs, logits } batch batch;
    LowRankMultivariateNormal { loc + 1, cov_factor + 2, cov_diag + 1, capacitance_tril + 2 } batch batch;
}

impl<T: FloatElement, D: Backend> Expand<T, D> for Multinomial<T, D> {
    fn expand(&self, batch_shape: &[usize]) -> Result<Self> {
        Ok(Multinomial {
            total_count: self.total_count,
            classes: self.classes.expand(batch_shape)?,
        })
    }
}

impl<T: FloatElement, D: Backend> Expand<T, D> for OneHotCategorical<T, D> {
    fn expand(&self, batch_shape: &[usize]) -> Result<Self> {
        Ok(OneHotCategorical {
            categorical: self.categorical.expand(batch_shape)?,
        })
    }
}

impl<T: FloatElement, D: Backend> Expand<T, D> for RelaxedOneHotCategorical<T, D> {
    fn expand(&self, batch_shape: &[usize]) -> Result<Self> {
        check_target(self.batch_shape().dims(), batch_shape)?;
        Ok(RelaxedOneHotCategorical {
            temperature: grow(&self.temperature, batch_shape, 0)?,
            categorical: self.categorical.expand(batch_shape)?,
            batch: crate::shape::Shape::new(batch_shape.to_vec()),
        })
    }
}

impl<T: FloatElement, D: Backend> Expand<T, D> for RelaxedBernoulli<T, D> {
    fn expand(&self, batch_shape: &[usize]) -> Result<Self> {
        Ok(RelaxedBernoulli {
            inner: self.inner.expand(batch_shape)?,
        })
    }
}

impl<T: FloatElement, D: Backend> Expand<T, D> for LogisticNormal<T, D> {
    fn expand(&self, batch_shape: &[usize]) -> Result<Self> {
        check_target(self.batch_shape().dims(), batch_shape)?;
        let base = Normal::new(
            &grow(self.base.loc(), batch_shape, 1)?,
            &grow(self.base.scale(), batch_shape, 1)?,
        )?;
        Ok(LogisticNormal {
            base,
            batch: crate::shape::Shape::new(batch_shape.to_vec()),
        })
    }
}

/// The base expanded to the new batch (PyTorch's `TransformedDistribution.expand`); the
/// transforms' parameters broadcast against it as before.
impl<B, T: FloatElement, D: Backend> Expand<T, D> for TransformedDistribution<B, T, D>
where
    B: Expand<T, D> + Distribution<T, D, Value = Tensor<T, D>>,
{
    fn expand(&self, batch_shape: &[usize]) -> Result<Self> {
        check_target(self.batch_shape().dims(), batch_shape)?;
        TransformedDistribution::new(self.base.expand(batch_shape)?, self.transforms.clone())
    }
}

/// The base expanded to the new batch followed by the reinterpreted axes (PyTorch's
/// `Independent.expand`).
impl<B, T: FloatElement, D: Backend> Expand<T, D> for Independent<B>
where
    B: Expand<T, D>,
    Independent<B>: Distribution<T, D>,
{
    fn expand(&self, batch_shape: &[usize]) -> Result<Self> {
        check_target(self.batch_shape().dims(), batch_shape)?;
        let inner = self.base.batch_shape().dims();
        let mut base_batch = batch_shape.to_vec();
        base_batch.extend(&inner[inner.len() - self.reinterpreted..]);
        Independent::new(self.base.expand(&base_batch)?, self.reinterpreted)
    }
}

/// The mixture weights expanded to the new batch and the components to it followed by the
/// component axis (PyTorch's `MixtureSameFamily.expand`).
impl<C, T: FloatElement, D: Backend> Expand<T, D> for MixtureSameFamily<C, T, D>
where
    C: Expand<T, D> + Distribution<T, D, Value = Tensor<T, D>>,
{
    fn expand(&self, batch_shape: &[usize]) -> Result<Self> {
        check_target(self.batch_shape().dims(), batch_shape)?;
        let k = *self.mixture.probs().dims().last().unwrap_or(&1);
        let mut comp = batch_shape.to_vec();
        comp.push(k);
        MixtureSameFamily::new(
            self.mixture.expand(batch_shape)?,
            self.component.expand(&comp)?,
        )
    }
}
