//! The [`EnumerateSupport`] trait: every value of a discrete distribution with finite support
//! (PyTorch's `enumerate_support`).

use super::{Bernoulli, Binomial, Categorical, Distribution, Independent, OneHotCategorical};
use crate::backend::Backend;
use crate::dtype::{Element, FloatElement};
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// The values of a finite support, enumerated along a new leading axis (PyTorch's
/// `enumerate_support`): shape `(n,) ++ [1; batch axes] ++ event_shape`, or `(n,) ++
/// batch_shape ++ event_shape` with `expand` (a broadcast view, no copy). `log_prob` of the
/// result gives every value's log-probability at once.
///
/// ```
/// use typed_tensor::distributions::{Binomial, Distribution, EnumerateSupport};
/// use typed_tensor::prelude::*;
/// let d = Binomial::new(&tensor![3.0f64, 3.0], Some(&tensor![0.2f64, 0.7]), None)?;
/// let v = d.enumerate_support(true)?; // (4, 2): 0, 1, 2, 3 for each batch element
/// assert_eq!(v.dims(), &[4, 2]);
/// let total = d.log_prob(&v)?.try_exp()?.try_sum(&[0], false)?;
/// assert!(total.to_vec().iter().all(|p| (p - 1.0).abs() < 1e-12));
/// # Ok::<(), typed_tensor::Error>(())
/// ```
pub trait EnumerateSupport<T: FloatElement, D: Backend>: Distribution<T, D> {
    /// Every value of the support along a new axis 0.
    ///
    /// # Errors
    /// `InvalidArgument` where PyTorch raises `NotImplementedError` (a `Binomial` whose counts
    /// differ across the batch; an `Independent` with reinterpreted axes); allocation failure.
    fn enumerate_support(&self, expand: bool) -> Result<Self::Value>;
}

/// `values` `(n,) ++ event` with a unit axis per batch axis inserted after the first, expanded
/// to the batch shape when `expand`.
fn along_batch<E: Element, D: Backend>(
    values: Tensor<E, D>,
    batch: &[usize],
    expand: bool,
) -> Result<Tensor<E, D>> {
    let d = values.dims();
    let mut unit: Vec<usize> = vec![d[0]];
    unit.extend(std::iter::repeat_n(1, batch.len()));
    unit.extend(&d[1..]);
    let values = values.try_reshape(unit)?;
    if !expand {
        return Ok(values);
    }
    let mut full: Vec<usize> = vec![d[0]];
    full.extend(batch);
    full.extend(&d[1..]);
    values.expand(full)
}

impl<T: FloatElement, D: Backend> EnumerateSupport<T, D> for Bernoulli<T, D> {
    /// `[0, 1]`.
    fn enumerate_support(&self, expand: bool) -> Result<Tensor<T, D>> {
        let v = Tensor::<i64, D>::arange_on(0, 2, 1, self.probs().device_handle())?;
        along_batch(v.try_cast::<T>()?, self.batch_shape().dims(), expand)
    }
}

impl<T: FloatElement, D: Backend> EnumerateSupport<T, D> for Binomial<T, D> {
    /// `0, 1, ..., n` for the batch's one count `n`.
    fn enumerate_support(&self, expand: bool) -> Result<Tensor<T, D>> {
        const OP: &str = "Binomial.enumerate_support";
        let n = self.total_count();
        let hi = n.try_max(&[], false)?.try_item()?.to_f64();
        let lo = n.try_min(&[], false)?.try_item()?.to_f64();
        if hi != lo {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!(
                    "needs one total_count across the batch, got counts from {lo} to {hi} (PyTorch's restriction)"
                ),
            });
        }
        let v = Tensor::<i64, D>::arange_on(0, hi as i64 + 1, 1, n.device_handle())?;
        along_batch(v.try_cast::<T>()?, self.batch_shape().dims(), expand)
    }
}

impl<T: FloatElement, D: Backend> EnumerateSupport<T, D> for Categorical<T, D> {
    /// The classes `0, 1, ..., K - 1`.
    fn enumerate_support(&self, expand: bool) -> Result<Tensor<i64, D>> {
        let k = self.num_classes() as i64;
        let v = Tensor::<i64, D>::arange_on(0, k, 1, self.probs().device_handle())?;
        along_batch(v, self.batch_shape().dims(), expand)
    }
}

impl<T: FloatElement, D: Backend> EnumerateSupport<T, D> for OneHotCategorical<T, D> {
    /// The `K` one-hot vectors: shape `(K,) ++ batch ++ (K,)` expanded.
    fn enumerate_support(&self, expand: bool) -> Result<Tensor<T, D>> {
        let eye = Tensor::<T, D>::eye_on(self.num_classes(), self.probs().device_handle())?;
        along_batch(eye, self.batch_shape().dims(), expand)
    }
}

impl<T, D, B> EnumerateSupport<T, D> for Independent<B>
where
    T: FloatElement,
    D: Backend,
    B: EnumerateSupport<T, D>,
{
    /// The base's, when no axis is reinterpreted.
    fn enumerate_support(&self, expand: bool) -> Result<B::Value> {
        if self.event_shape() != self.base().event_shape() {
            return Err(Error::InvalidArgument {
                op: "Independent.enumerate_support",
                msg: "enumerating the cartesian product of reinterpreted axes is not implemented (as in PyTorch)".into(),
            });
        }
        self.base().enumerate_support(expand)
    }
}
