//! The multivariate normal with a low-rank plus diagonal covariance (PyTorch
//! `LowRankMultivariateNormal`), evaluated through the Woodbury identity and the matrix
//! determinant lemma: `O(k r²)` per batch element instead of a `k × k` Cholesky factor.

use super::multivariate::{to, tri_solve, with};
use super::{
    Distribution, KlDivergence, Moments, MultivariateNormal, Rsample, check, check_real, extended,
};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::shape::{Shape, broadcast_shapes};
use crate::tensor::Tensor;
use std::f64::consts::PI;

/// `N(loc, W Wᵀ + diag(d))` over vectors of `k` elements: `loc` `(..., k)`, the factor `W`
/// `(..., k, r)`, the diagonal `d` `(..., k)` positive; their batch axes broadcast together.
/// The covariance is never formed: `log_prob` and `entropy` go through the `r × r`
/// capacitance `I + Wᵀ d⁻¹ W` and its Cholesky factor (PyTorch's formulas), and samples are
/// `loc + W ε_r + √d ε_k`.
///
/// ```
/// use typed_tensor::distributions::{Distribution, LowRankMultivariateNormal};
/// use typed_tensor::prelude::*;
/// let w = Tensor::<f64>::from_vec(vec![1.0, 0.5, 0.0], [3, 1])?; // rank 1
/// let d = LowRankMultivariateNormal::new(&Tensor::zeros([3])?, &w, &Tensor::ones([3])?)?;
/// let x = d.rsample(&[10])?; // (10, 3)
/// assert_eq!(x.dims(), &[10, 3]);
/// let lp = d.log_prob(&Tensor::zeros([3])?)?; // -(3 log 2π + log det Σ) / 2, det Σ = 2.25
/// assert!((lp.item() - -3.162_280_707_722_182).abs() < 1e-12);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
#[derive(Clone)]
pub struct LowRankMultivariateNormal<T: FloatElement, D: Backend> {
    pub(super) loc: Tensor<T, D>,
    pub(super) cov_factor: Tensor<T, D>,
    pub(super) cov_diag: Tensor<T, D>,
    pub(super) capacitance_tril: Tensor<T, D>,
    pub(super) batch: Shape,
}

impl<T: FloatElement, D: Backend> LowRankMultivariateNormal<T, D> {
    /// The mean `(..., k)`.
    pub fn loc(&self) -> &Tensor<T, D> {
        &self.loc
    }
    /// From the mean, the covariance's factor `W` and its diagonal part `d`.
    ///
    /// # Errors
    /// `InvalidArgument` when `loc` is 0-d or the shapes are not `(..., k)`, `(..., k, r)`,
    /// `(..., k)` with one `k`, for a NaN or infinite factor, or a diagonal that is not
    /// positive and finite; `Broadcast` when the batch axes do not broadcast.
    pub fn new(
        loc: &Tensor<T, D>,
        cov_factor: &Tensor<T, D>,
        cov_diag: &Tensor<T, D>,
    ) -> Result<Self> {
        const OP: &str = "LowRankMultivariateNormal";
        let (ld, wd, dd) = (loc.dims(), cov_factor.dims(), cov_diag.dims());
        let k = ld.last().copied();
        let fits = wd.len() >= 2 && Some(wd[wd.len() - 2]) == k && dd.last().copied() == k;
        let Some(k) = k.filter(|_| fits) else {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!(
                    "needs loc (..., k), cov_factor (..., k, r) and cov_diag (..., k), got {}, {} and {}",
                    loc.shape(),
                    cov_factor.shape(),
                    cov_diag.shape()
                ),
            });
        };
        let r = wd[wd.len() - 1];
        let lead = |d: &[usize], n: usize| Shape::new(d[..d.len() - n].to_vec());
        let batch = broadcast_shapes(OP, &lead(ld, 1), &lead(wd, 2))?;
        let batch = broadcast_shapes(OP, &batch, &lead(dd, 1))?;
        check(OP, cov_factor.try_is_finite()?, "cov_factor must be finite")?;
        super::gamma::positive(OP, "cov_diag", cov_diag)?;
        let b = batch.dims();
        let (loc, cov_factor) = (to(loc, with(b, &[k]))?, to(cov_factor, with(b, &[k, r]))?);
        let cov_diag = to(cov_diag, with(b, &[k]))?;
        // I + Wᵀ d⁻¹ W, positive definite for any W.
        let wt_dinv = cov_factor
            .transpose(-1, -2)?
            .try_div(&cov_diag.unsqueeze(-2)?)?;
        let eye = Tensor::eye_on(r, loc.device_handle())?;
        let capacitance = eye.try_add(&wt_dinv.try_matmul(&cov_factor)?)?;
        let capacitance_tril = capacitance.try_cholesky(false).map_err(|e| e.renamed(OP))?;
        Ok(LowRankMultivariateNormal {
            loc,
            cov_factor,
            cov_diag,
            capacitance_tril,
            batch,
        })
    }
    /// The event size `k`.
    pub fn event_size(&self) -> usize {
        self.loc.dims()[self.loc.ndim() - 1]
    }
    /// The factor `W`, `(..., k, r)`.
    pub fn cov_factor(&self) -> &Tensor<T, D> {
        &self.cov_factor
    }
    /// The diagonal part `d`, `(..., k)`.
    pub fn cov_diag(&self) -> &Tensor<T, D> {
        &self.cov_diag
    }
    /// The covariance `W Wᵀ + diag(d)`, `(..., k, k)` (formed on request).
    ///
    /// # Errors
    /// Allocation failure.
    pub fn covariance(&self) -> Result<Tensor<T, D>> {
        let w = &self.cov_factor;
        w.try_matmul(&w.transpose(-1, -2)?)?
            .try_add(&self.cov_diag.try_diag_embed()?)
    }
    /// `loc + W ε_r + √d ε_k`: differentiable in all three parameters.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        let outer = extended(sample_shape, &self.batch);
        let r = self.cov_factor.dims()[self.cov_factor.ndim() - 1];
        let dev = self.loc.device_handle();
        let eps_w = Tensor::<T, D>::randn_on(with(&outer, &[r, 1]), dev)?;
        let eps_d = Tensor::<T, D>::randn_on(with(&outer, &[self.event_size()]), dev)?;
        let w = self.cov_factor.try_matmul(&eps_w)?.squeeze_dims(&[-1])?;
        self.loc
            .try_add(&w)?
            .try_add(&self.cov_diag.try_sqrt()?.try_mul(&eps_d)?)
    }
    /// `Wᵀ d⁻¹`, `(..., r, k)`.
    fn wt_dinv(&self) -> Result<Tensor<T, D>> {
        (self.cov_factor.transpose(-1, -2)?).try_div(&self.cov_diag.unsqueeze(-2)?)
    }
    /// `δᵀ Σ⁻¹ δ = Σ δ²/d - |C⁻¹ Wᵀ d⁻¹ δ|²` (Woodbury) for `δ` `(..., k)`.
    fn mahalanobis(&self, diff: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let term1 = (diff.try_mul(diff)?.try_div(&self.cov_diag)?).try_sum(&[-1], false)?;
        let u = self.wt_dinv()?.try_matmul(&diff.unsqueeze(-1)?)?;
        let z = tri_solve(&self.capacitance_tril, &u)?;
        term1.try_sub(&z.try_mul(&z)?.try_sum(&[-2, -1], false)?)
    }
    /// `log det(W Wᵀ + diag d) = 2 Σ log diag(C) + Σ log d` (the matrix determinant lemma).
    fn log_det(&self) -> Result<Tensor<T, D>> {
        let c = self.capacitance_tril.diagonal(0)?.try_log()?;
        c.try_sum(&[-1], false)?
            .try_mul_scalar(T::from_f64(2.0))?
            .try_add(&self.cov_diag.try_log()?.try_sum(&[-1], false)?)
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for LowRankMultivariateNormal<T, D> {
    type Value = Tensor<T, D>;
    reparameterized!();
    fn event_shape(&self) -> Vec<usize> {
        vec![self.event_size()]
    }
    /// `-(k log 2π + log det Σ + m) / 2`, the Mahalanobis term `m = Σ δ²/d - |C⁻¹ Wᵀ d⁻¹
    /// δ|²` for `δ = value - loc` (Woodbury); `value` is `(..., k)`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        const OP: &str = "LowRankMultivariateNormal.log_prob";
        check_real(OP, value)?;
        let k = self.event_size();
        if value.dims().last() != Some(&k) {
            return Err(Error::ShapeMismatch {
                op: OP,
                lhs: self.loc.shape().clone(),
                rhs: value.shape().clone(),
                msg: format!("the value must end in the event size {k}"),
            });
        }
        let m = self.mahalanobis(&value.try_sub(&self.loc)?)?;
        let c = T::from_f64(k as f64 * (2.0 * PI).ln());
        m.try_add(&self.log_det()?)?
            .try_add_scalar(c)?
            .try_mul_scalar(T::from_f64(-0.5))
    }
    /// `(k (1 + log 2π) + log det Σ) / 2`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        let k = self.event_size() as f64;
        self.log_det()?
            .try_add_scalar(T::from_f64(k * (1.0 + (2.0 * PI).ln())))?
            .try_mul_scalar(T::from_f64(0.5))
    }
}

impl<T: FloatElement, D: Backend> Rsample<T, D> for LowRankMultivariateNormal<T, D> {
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        LowRankMultivariateNormal::rsample(self, sample_shape)
    }
}

impl<T: FloatElement, D: Backend> Moments<T, D> for LowRankMultivariateNormal<T, D> {
    /// `loc`.
    fn mean(&self) -> Result<Tensor<T, D>> {
        Ok(self.loc.clone())
    }
    /// The covariance's diagonal, `Σ_r W² + d`.
    fn variance(&self) -> Result<Tensor<T, D>> {
        let w = &self.cov_factor;
        w.try_mul(w)?.try_sum(&[-1], false)?.try_add(&self.cov_diag)
    }
}

/// `tr(X Xᵀ)`, the squares of each matrix summed.
fn trace_xxt<T: FloatElement, D: Backend>(x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
    x.try_mul(x)?.try_sum(&[-2, -1], false)
}

impl<T: FloatElement, D: Backend> KlDivergence<LowRankMultivariateNormal<T, D>>
    for LowRankMultivariateNormal<T, D>
{
    type Out = Tensor<T, D>;
    /// PyTorch's `_kl_lowrankmultivariatenormal_lowrankmultivariatenormal`: `(log det Σ_q -
    /// log det Σ_p + tr(Σ_q⁻¹ Σ_p) + (μ_q - μ_p)ᵀ Σ_q⁻¹ (μ_q - μ_p) - k) / 2`, the trace
    /// through Woodbury with `A = C_q⁻¹ W_qᵀ d_q⁻¹`.
    fn kl_divergence(&self, q: &LowRankMultivariateNormal<T, D>) -> Result<Tensor<T, D>> {
        let k = self.event_size();
        if q.event_size() != k {
            return Err(Error::InvalidArgument {
                op: "kl_divergence",
                msg: format!("event sizes {k} and {} differ", q.event_size()),
            });
        }
        let (pw, pd, qd) = (&self.cov_factor, &self.cov_diag, &q.cov_diag);
        let term1 = q.log_det()?.try_sub(&self.log_det()?)?;
        let term3 = q.mahalanobis(&q.loc.try_sub(&self.loc)?)?;
        let a = tri_solve(&q.capacitance_tril, &q.wt_dinv()?)?;
        let term21 = pd.try_div(qd)?.try_sum(&[-1], false)?;
        let term22 = trace_xxt(&pw.try_mul(&qd.try_rsqrt()?.unsqueeze(-1)?)?)?;
        let term23 = trace_xxt(&a.try_mul(&pd.try_sqrt()?.unsqueeze(-2)?)?)?;
        let term24 = trace_xxt(&a.try_matmul(pw)?)?;
        term1
            .try_add(&term21)?
            .try_add(&term22)?
            .try_sub(&term23)?
            .try_sub(&term24)?
            .try_add(&term3)?
            .try_sub_scalar(T::from_f64(k as f64))?
            .try_mul_scalar(T::from_f64(0.5))
    }
}

impl<T: FloatElement, D: Backend> LowRankMultivariateNormal<T, D> {
    /// The same law with its covariance formed (for the pairs with a full covariance).
    fn as_full(&self) -> Result<MultivariateNormal<T, D>> {
        MultivariateNormal::from_covariance(&self.loc, &self.covariance()?)
    }
}

impl<T: FloatElement, D: Backend> KlDivergence<MultivariateNormal<T, D>>
    for LowRankMultivariateNormal<T, D>
{
    type Out = Tensor<T, D>;
    /// The full-covariance divergence, the covariance `W Wᵀ + diag(d)` formed (PyTorch's
    /// `_kl_lowrankmultivariatenormal_multivariatenormal` in `O(k³)` instead of Woodbury).
    fn kl_divergence(&self, q: &MultivariateNormal<T, D>) -> Result<Tensor<T, D>> {
        self.as_full()?.kl_divergence(q)
    }
}

impl<T: FloatElement, D: Backend> KlDivergence<LowRankMultivariateNormal<T, D>>
    for MultivariateNormal<T, D>
{
    type Out = Tensor<T, D>;
    /// The full-covariance divergence, `q`'s covariance formed (PyTorch's
    /// `_kl_multivariatenormal_lowrankmultivariatenormal` in `O(k³)`).
    fn kl_divergence(&self, q: &LowRankMultivariateNormal<T, D>) -> Result<Tensor<T, D>> {
        self.kl_divergence(&q.as_full()?)
    }
}
