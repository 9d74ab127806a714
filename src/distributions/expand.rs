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
