//! The multivariate normal distribution (PyTorch `MultivariateNormal`), through the lower
//! Cholesky factor of its covariance.

use super::{Distribution, KlDivergence, check, check_real, extended};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::shape::{Shape, broadcast_shapes};
use crate::tensor::Tensor;
use std::f64::consts::PI;

/// `N(loc, L Lᵀ)` over vectors of `k` elements: `loc` is `(..., k)`, the factor `L` `(..., k,
/// k)` lower triangular with a positive diagonal; their batch axes broadcast together.
#[derive(Clone)]
pub struct MultivariateNormal<T: FloatElement, D: Backend> {
    loc: Tensor<T, D>,
    scale_tril: Tensor<T, D>,
    batch: Shape,
}

/// `t` expanded to `dims` unless it already has them.
pub(super) fn to<T: FloatElement, D: Backend>(
    t: &Tensor<T, D>,
    dims: Vec<usize>,
) -> Result<Tensor<T, D>> {
    match t.dims() == dims.as_slice() {
        true => Ok(t.clone()),
        false => t.expand(dims),
    }
}

/// `dims ++ tail`.
pub(super) fn with(dims: &[usize], tail: &[usize]) -> Vec<usize> {
    dims.iter().chain(tail).copied().collect()
}

impl<T: FloatElement, D: Backend> MultivariateNormal<T, D> {
    /// From the mean and the lower Cholesky factor of the covariance (PyTorch's
    /// `scale_tril`).
    ///
    /// # Errors
    /// `InvalidArgument` when `loc` is 0-d, `scale_tril` is not a stack of `k × k` matrices
    /// for `loc`'s `k`, is not lower triangular, or has a diagonal element that is not
    /// positive; `Broadcast` when the batch axes do not broadcast.
    pub fn from_scale_tril(loc: &Tensor<T, D>, scale_tril: &Tensor<T, D>) -> Result<Self> {
        const OP: &str = "MultivariateNormal";
        let (ld, sd) = (loc.dims(), scale_tril.dims());
        let k = ld.last().copied();
        let square = sd.len() >= 2 && Some(sd[sd.len() - 1]) == k && Some(sd[sd.len() - 2]) == k;
        let Some(k) = k.filter(|_| square) else {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!(
                    "needs loc (..., k) and scale_tril (..., k, k), got {} and {}",
                    loc.shape(),
                    scale_tril.shape()
                ),
            });
        };
        let lb = Shape::new(ld[..ld.len() - 1].to_vec());
        let sb = Shape::new(sd[..sd.len() - 2].to_vec());
        let batch = broadcast_shapes(OP, &lb, &sb)?;
        let upper_zero = scale_tril.try_triu(1)?.try_eq_scalar(T::ZERO)?;
        check(OP, upper_zero, "scale_tril must be lower triangular")?;
        let diag = scale_tril.diagonal(0)?.try_gt_scalar(T::ZERO)?;
        check(OP, diag, "scale_tril's diagonal must be positive")?;
        Ok(MultivariateNormal {
            loc: to(loc, with(batch.dims(), &[k]))?,
            scale_tril: to(scale_tril, with(batch.dims(), &[k, k]))?,
            batch,
        })
    }

    /// From the mean and the covariance matrices, factored by `cholesky`.
    ///
    /// # Errors
    /// As [`MultivariateNormal::from_scale_tril`]; `cholesky`'s `Err` for a covariance that is
    /// not positive definite.
    pub fn from_covariance(loc: &Tensor<T, D>, covariance: &Tensor<T, D>) -> Result<Self> {
        let l = covariance
            .try_cholesky(false)
            .map_err(|e| e.renamed("MultivariateNormal"))?;
        Self::from_scale_tril(loc, &l)
    }

    /// The event size `k`.
    pub fn event_size(&self) -> usize {
        self.loc.dims()[self.loc.ndim() - 1]
    }
    /// The mean, `loc` (batch ++ `[k]`).
    pub fn mean(&self) -> Tensor<T, D> {
        self.loc.clone()
    }
    /// The lower Cholesky factor of the covariance.
    pub fn scale_tril(&self) -> Tensor<T, D> {
        self.scale_tril.clone()
    }
    /// The covariance `L Lᵀ`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn covariance(&self) -> Result<Tensor<T, D>> {
        self.scale_tril
            .try_matmul(&self.scale_tril.transpose(-1, -2)?)
    }
    /// The variances, the covariance's diagonal: the rows of `L` squared and summed.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn variance(&self) -> Result<Tensor<T, D>> {
        self.scale_tril
            .try_mul(&self.scale_tril)?
            .try_sum(&[-1], false)
    }
    /// `loc + L ε` with `ε ~ N(0, I)`: differentiable in `loc` and `L`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        let dims = with(
            &extended(sample_shape, &self.batch),
            &[self.event_size(), 1],
        );
        let eps = Tensor::<T, D>::randn_on(dims, self.loc.device_handle())?;
        let step = self.scale_tril.try_matmul(&eps)?.squeeze_dims(&[-1])?;
        self.loc.try_add(&step)
    }
    /// `Σ log diag(L)`, half the log-determinant of the covariance.
    fn half_log_det(&self) -> Result<Tensor<T, D>> {
        self.scale_tril
            .diagonal(0)?
            .try_log()?
            .try_sum(&[-1], false)
    }
}

/// `L⁻¹ x` for the lower triangular `l` `(..., k, k)` and `x` `(..., k, m)`, their batch axes
/// broadcast.
pub(super) fn tri_solve<T: FloatElement, D: Backend>(
    l: &Tensor<T, D>,
    x: &Tensor<T, D>,
) -> Result<Tensor<T, D>> {
    let lb = Shape::new(l.dims()[..l.ndim() - 2].to_vec());
    let xb = Shape::new(x.dims()[..x.ndim() - 2].to_vec());
    let b = broadcast_shapes("MultivariateNormal", &lb, &xb)?;
    let l = to(l, with(b.dims(), &l.dims()[l.ndim() - 2..]))?;
    let x = to(x, with(b.dims(), &x.dims()[x.ndim() - 2..]))?;
    l.try_solve_triangular(&x, false, true, false)
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for MultivariateNormal<T, D> {
    type Value = Tensor<T, D>;
    reparameterized!();
    fn event_shape(&self) -> Vec<usize> {
        vec![self.event_size()]
    }
    /// `-(k log 2π + |L⁻¹(value - loc)|²) / 2 - Σ log diag(L)`; `value` is `(..., k)`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        check_real("MultivariateNormal.log_prob", value)?;
        let k = self.event_size();
        if value.dims().last() != Some(&k) {
            return Err(Error::ShapeMismatch {
                op: "MultivariateNormal.log_prob",
                lhs: self.loc.shape().clone(),
                rhs: value.shape().clone(),
                msg: format!("the value must end in the event size {k}"),
            });
        }
        let diff = value.try_sub(&self.loc)?.unsqueeze(-1)?;
        let z = tri_solve(&self.scale_tril, &diff)?;
        let m = z.try_mul(&z)?.try_sum(&[-2, -1], false)?;
        let c = T::from_f64(k as f64 * (2.0 * PI).ln());
        m.try_add_scalar(c)?
            .try_mul_scalar(T::from_f64(-0.5))?
            .try_sub(&self.half_log_det()?)
    }
    /// `k (1 + log 2π) / 2 + Σ log diag(L)`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        let k = self.event_size() as f64;
        self.half_log_det()?
            .try_add_scalar(T::from_f64(0.5 * k * (1.0 + (2.0 * PI).ln())))
    }
}

impl<T: FloatElement, D: Backend> KlDivergence<MultivariateNormal<T, D>>
    for MultivariateNormal<T, D>
{
    type Out = Tensor<T, D>;
    /// `log|L_q| - log|L_p| + (|L_q⁻¹ L_p|² + |L_q⁻¹ (loc_q - loc_p)|² - k) / 2` (PyTorch's
    /// `_kl_multivariatenormal_multivariatenormal`).
    fn kl_divergence(&self, q: &MultivariateNormal<T, D>) -> Result<Tensor<T, D>> {
        let k = self.event_size();
        if q.event_size() != k {
            return Err(Error::InvalidArgument {
                op: "kl_divergence",
                msg: format!("event sizes {k} and {} differ", q.event_size()),
            });
        }
        let m = tri_solve(&q.scale_tril, &self.scale_tril)?;
        let term2 = m.try_mul(&m)?.try_sum(&[-2, -1], false)?;
        let z = tri_solve(&q.scale_tril, &q.loc.try_sub(&self.loc)?.unsqueeze(-1)?)?;
        let term3 = z.try_mul(&z)?.try_sum(&[-2, -1], false)?;
        let half = q.half_log_det()?.try_sub(&self.half_log_det()?)?;
        term2
            .try_add(&term3)?
            .try_sub_scalar(T::from_f64(k as f64))?
            .try_mul_scalar(T::from_f64(0.5))?
            .try_add(&half)
    }
}
