//! The logistic-normal distribution on the simplex (PyTorch `LogisticNormal`): a normal
//! pushed through PyTorch's `StickBreakingTransform`.

use super::{Distribution, Normal, Rsample, simplex};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;

/// `[k, k - 1, ..., 1]` as a tensor of `T` on `like`'s device: the stick-breaking offsets of
/// `k + 1` classes.
pub(super) fn offsets<T: FloatElement, D: Backend>(
    like: &Tensor<T, D>,
    k: usize,
) -> Result<Tensor<T, D>> {
    let k = k as i64;
    Tensor::<i64, D>::arange_on(k, 0, -1, like.device_handle())?.try_cast::<T>()
}

/// The stick-breaking map `(..., K-1) → (..., K)`: `z_i = sigmoid(y_i - log(K - i))` clamped
/// into `[tiny, 1 - eps]`, `x_i = z_i Π_{j<i} (1 - z_j)`, the last class the rest.
pub(super) fn stick_breaking<T: FloatElement, D: Backend>(
    y: &Tensor<T, D>,
) -> Result<Tensor<T, D>> {
    let k = y.dims()[y.ndim() - 1];
    let z = y
        .try_sub(&offsets(y, k)?.try_log()?)?
        .try_sigmoid()?
        .try_clip(
            T::from_f64(super::tiny::<T>()),
            T::from_f64(1.0 - super::eps::<T>()),
        )?;
    let rest = z.try_rsub_scalar(T::ONE)?.try_cumprod(-1)?;
    let pad = |t: &Tensor<T, D>, left: usize| {
        let mut pads = vec![(0, 0); t.ndim()];
        pads[t.ndim() - 1] = (left, 1 - left);
        t.try_pad(&pads, T::ONE)
    };
    pad(&z, 0)?.try_mul(&pad(&rest, 1)?)
}

/// Its inverse: `y_i = log x_i - log(1 - Σ_{j≤i} x_j) + log(K - i)`, the remainder clamped
/// to `tiny`.
pub(super) fn stick_breaking_inverse<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
) -> Result<Tensor<T, D>> {
    let k = x.dims()[x.ndim() - 1] - 1;
    let crop = x.narrow(-1, 0, k)?;
    let rest = crop
        .try_cumsum(-1)?
        .try_rsub_scalar(T::ONE)?
        .try_clamp_min(T::from_f64(super::tiny::<T>()))?;
    crop.try_log()?
        .try_sub(&rest.try_log()?)?
        .try_add(&offsets(x, k)?.try_log()?)
}

/// The distribution of the stick-breaking image of `Normal(loc, scale)` (PyTorch
/// `LogisticNormal`): `loc`, `scale` `(..., K-1)` broadcast together give points on the
/// simplex of `K` classes, the event shape `[K]`, the batch shape the leading axes. A 0-d
/// `loc` and `scale` are one `(1,)` vector (two classes), as PyTorch's.
///
/// ```
/// use typed_tensor::distributions::{Distribution, LogisticNormal};
/// use typed_tensor::prelude::*;
/// let d = LogisticNormal::new(&tensor![0.0f64, 0.0], &tensor![1.0f64, 1.0])?;
/// let x = d.sample(&[5])?; // (5, 3), rows on the simplex
/// assert_eq!(x.dims(), &[5, 3]);
/// assert!(x.to_vec().iter().all(|&v| v > 0.0));
/// let lp = d.log_prob(&tensor![0.2f64, 0.3, 0.5])?; // 0-d
/// assert!(lp.item().is_finite());
/// # Ok::<(), typed_tensor::Error>(())
/// ```
#[derive(Clone)]
pub struct LogisticNormal<T: FloatElement, D: Backend> {
    pub(super) base: Normal<T, D>,
    pub(super) batch: Shape,
}

impl<T: FloatElement, D: Backend> LogisticNormal<T, D> {
    /// From the base normal's mean and standard deviation, `(..., K-1)` each (broadcast).
    ///
    /// # Errors
    /// `Broadcast`; `InvalidArgument` for a scale that is not positive.
    pub fn new(loc: &Tensor<T, D>, scale: &Tensor<T, D>) -> Result<Self> {
        let base = Normal::new(loc, scale).map_err(|e| e.renamed("LogisticNormal"))?;
        let base = match base.batch_shape().ndim() {
            0 => Normal::new(
                &base.loc().try_reshape([1])?,
                &base.scale().try_reshape([1])?,
            )?,
            _ => base,
        };
        let dims = base.batch_shape().dims();
        let batch = Shape::new(dims[..dims.len() - 1].to_vec());
        Ok(LogisticNormal { base, batch })
    }
    /// The base normal's mean, `(..., K-1)`.
    pub fn loc(&self) -> &Tensor<T, D> {
        self.base.loc()
    }
    /// The base normal's standard deviation, `(..., K-1)`.
    pub fn scale(&self) -> &Tensor<T, D> {
        self.base.scale()
    }
    /// The stick-breaking image of the base's `rsample`: differentiable in both parameters.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        stick_breaking(&self.base.rsample(sample_shape)?)
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for LogisticNormal<T, D> {
    type Value = Tensor<T, D>;
    reparameterized!();
    /// `[K]`.
    fn event_shape(&self) -> Vec<usize> {
        let dims = self.base.batch_shape().dims();
        vec![dims[dims.len() - 1] + 1]
    }
    /// The base's `log_prob` of the inverted value summed over the event, less the
    /// stick-breaking map's `log |det J|`: `Σ_i (-u_i + logsigmoid(u_i) + log x_i)` with `u_i
    /// = y_i - log(K - i)`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        const OP: &str = "LogisticNormal.log_prob";
        let k = self.event_shape()[0];
        if value.ndim() == 0 || value.dims()[value.ndim() - 1] != k {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!("needs values (..., {k}), got {}", value.shape()),
            });
        }
        simplex(OP, value)?;
        let y = stick_breaking_inverse(value)?;
        let u = y.try_sub(&offsets(&y, k - 1)?.try_log()?)?;
        let log_det = u
            .try_neg()?
            .try_add(&u.try_logsigmoid()?)?
            .try_add(&value.narrow(-1, 0, k - 1)?.try_log()?)?
            .try_sum(&[-1], false)?;
        self.base
            .log_prob(&y)?
            .try_sum(&[-1], false)?
            .try_sub(&log_det)
    }
    /// PyTorch has none (a `TransformedDistribution`): an `Err`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        Err(Error::InvalidArgument {
            op: "LogisticNormal.entropy",
            msg: "PyTorch's LogisticNormal has no entropy (NotImplementedError)".into(),
        })
    }
}

impl<T: FloatElement, D: Backend> Rsample<T, D> for LogisticNormal<T, D> {
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        LogisticNormal::rsample(self, sample_shape)
    }
}
