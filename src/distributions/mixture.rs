//! Mixtures of one family (PyTorch `MixtureSameFamily`).

use super::{Categorical, Distribution, extended};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::shape::{Shape, broadcast_shapes};
use crate::tensor::Tensor;

/// A mixture of the `K` distributions along the last batch axis of `component`, weighted by
/// the categorical `mixture` (PyTorch `MixtureSameFamily`): a Gaussian mixture model is
/// `MixtureSameFamily::new(Categorical::from_logits(w)?, Normal::new(mu, sigma)?)` with `w`,
/// `mu`, `sigma` of shape `(..., K)`. The batch shape is the component's without its last axis;
/// the event shape is the component's. `log_prob` is differentiable in every parameter;
/// sampling is not (as PyTorch's).
///
/// ```
/// use typed_tensor::distributions::{Categorical, Distribution, MixtureSameFamily, Normal};
/// use typed_tensor::prelude::*;
/// let w = Categorical::from_probs(&tensor![0.3f64, 0.7])?;
/// let gmm = MixtureSameFamily::new(w, Normal::new(&tensor![-2.0f64, 2.0], &tensor![1.0f64, 0.5])?)?;
/// let x = gmm.sample(&[100])?; // (100,)
/// assert_eq!(x.dims(), &[100]);
/// let p = gmm.log_prob(&tensor![2.0f64])?.try_exp()?; // 0.3 N(2; -2, 1) + 0.7 N(2; 2, 0.5)
/// assert!((p.item() - 0.558_559_341_629_735_3).abs() < 1e-12);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
#[derive(Clone)]
pub struct MixtureSameFamily<C, T: FloatElement, D: Backend> {
    pub(super) mixture: Categorical<T, D>,
    pub(super) component: C,
    pub(super) batch: Shape,
    pub(super) event: Vec<usize>,
}

impl<C: Distribution<T, D, Value = Tensor<T, D>>, T: FloatElement, D: Backend>
    MixtureSameFamily<C, T, D>
{
    /// The mixture of `component`'s last batch axis with the weights of `mixture`.
    ///
    /// # Errors
    /// `InvalidArgument` when the component has no batch axis, its last batch axis is not the
    /// mixture's number of classes, or the mixture's batch shape does not broadcast to the
    /// component's other batch axes.
    pub fn new(mixture: Categorical<T, D>, component: C) -> Result<Self> {
        const OP: &str = "MixtureSameFamily";
        let cb = component.batch_shape().dims();
        let k = mixture.num_classes();
        let Some((&kc, rest)) = cb.split_last().filter(|(kc, _)| **kc == k) else {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!(
                    "the component's batch shape {} must end in the mixture's {k} classes",
                    component.batch_shape()
                ),
            });
        };
        let batch = Shape::new(rest.to_vec());
        let joint = broadcast_shapes(OP, mixture.batch_shape(), &batch);
        if joint.as_ref().ok() != Some(&batch) {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!(
                    "the mixture's batch shape {} must broadcast to the component's {} (without its {kc} classes)",
                    mixture.batch_shape(),
                    batch
                ),
            });
        }
        let event = component.event_shape();
        Ok(MixtureSameFamily {
            mixture,
            component,
            batch,
            event,
        })
    }
    /// The mixing distribution.
    pub fn mixture(&self) -> &Categorical<T, D> {
        &self.mixture
    }
    /// The components, the last batch axis indexing them.
    pub fn component(&self) -> &C {
        &self.component
    }
}

impl<C: Distribution<T, D, Value = Tensor<T, D>>, T: FloatElement, D: Backend> Distribution<T, D>
    for MixtureSameFamily<C, T, D>
{
    type Value = Tensor<T, D>;
    fn batch_shape(&self) -> &Shape {
        &self.batch
    }
    fn event_shape(&self) -> Vec<usize> {
        self.event.clone()
    }
    /// A class from the mixture, then that component's draw: every component is sampled and
    /// the chosen one gathered (PyTorch's method).
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        crate::autograd::no_grad(|| {
            let outer = extended(sample_shape, &self.batch);
            // The classes (sample ++ mixture batch), aligned to the component's batch axes.
            let idx = self.mixture.sample(sample_shape)?;
            let pad = self.batch.ndim() - self.mixture.batch_shape().ndim();
            let mut dims = sample_shape.to_vec();
            dims.extend(std::iter::repeat_n(1, pad));
            dims.extend(self.mixture.batch_shape().dims());
            let mut at = idx.try_reshape(dims)?.expand(outer.clone())?;
            let mut wide = outer.clone();
            wide.push(1);
            wide.extend(&self.event);
            for _ in 0..=self.event.len() {
                at = at.unsqueeze(-1)?;
            }
            let at = at.expand(wide)?.try_contiguous()?;
            let all = self.component.sample(sample_shape)?; // (outer, K, event)
            let axis = outer.len() as i64;
            all.try_gather(axis, &at)?.squeeze_dims(&[axis])
        })
    }
    /// `logsumexp(log w + component.log_prob(value))` over the components; `value` is
    /// `(..., event)`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let x = value.unsqueeze(-1 - self.event.len() as i64)?;
        let lp = self.component.log_prob(&x)?;
        lp.try_add(self.mixture.logits())?
            .try_logsumexp(&[-1], false)
    }
    /// PyTorch has none: an `Err`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        Err(Error::InvalidArgument {
            op: "MixtureSameFamily.entropy",
            msg: "a mixture has no closed-form entropy (PyTorch raises NotImplementedError); estimate it as -log_prob of samples".into(),
        })
    }
}

impl<C, T: FloatElement, D: Backend> super::Moments<T, D> for MixtureSameFamily<C, T, D>
where
    C: Distribution<T, D, Value = Tensor<T, D>> + super::Moments<T, D>,
{
    /// `Σ_k w_k μ_k`.
    fn mean(&self) -> Result<Tensor<T, D>> {
        let w = self.weights()?;
        w.try_mul(&self.component.mean()?)?
            .try_sum(&[self.class_axis()], false)
    }
    /// The law of total variance: `Σ_k w_k σ²_k + Σ_k w_k (μ_k - μ)²`.
    fn variance(&self) -> Result<Tensor<T, D>> {
        let (w, axis) = (self.weights()?, self.class_axis());
        let within = w.try_mul(&self.component.variance()?)?;
        let spread =
            (self.component.mean()?).try_sub(&super::Moments::mean(self)?.unsqueeze(axis)?)?;
        within
            .try_add(&w.try_mul(&spread.try_mul(&spread)?)?)?
            .try_sum(&[axis], false)
    }
}

impl<C, T: FloatElement, D: Backend> MixtureSameFamily<C, T, D> {
    /// The components' axis, counted from the end: before the event axes.
    fn class_axis(&self) -> i64 {
        -1 - self.event.len() as i64
    }
    /// The mixture's probabilities with a length-1 axis per event axis, to broadcast against
    /// the components' moments.
    fn weights(&self) -> Result<Tensor<T, D>> {
        let mut w = self.mixture.probs().clone();
        for _ in 0..self.event.len() {
            w = w.unsqueeze(-1)?;
        }
        Ok(w)
    }
}
