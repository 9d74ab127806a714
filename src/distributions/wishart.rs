//! Distributions over matrices (PyTorch's formulas): `Wishart` over symmetric positive
//! definite matrices, sampled by the Bartlett decomposition, and `LKJCholesky` over Cholesky
//! factors of correlation matrices, sampled by the onion method.

use super::multivariate::{to, with};
use super::{Beta, Chi2, Distribution, MultivariateNormal, check, extended};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::shape::{Shape, broadcast_shapes};
use crate::tensor::Tensor;
use std::f64::consts::{LN_2, PI};

/// The Wishart distribution `W_p(ν, Σ)` over symmetric positive definite `p × p` matrices
/// (PyTorch `Wishart`): the law of `Σᵢ xᵢ xᵢᵀ` for `ν` draws `xᵢ ~ N(0, Σ)`, for any real
/// `ν > p - 1`. `df` `(...)` and `Σ`'s factor `(..., p, p)` broadcast into the batch shape;
/// the event shape is `[p, p]`.
///
/// ```
/// use typed_tensor::distributions::{Distribution, Wishart};
/// use typed_tensor::prelude::*;
/// let w = Wishart::from_covariance(&tensor![4.0f64], &Tensor::eye(2)?)?;
/// let s = w.sample(&[3])?; // (3, 1, 2, 2) symmetric positive definite
/// assert_eq!(s.dims(), &[3, 1, 2, 2]);
/// let lp = w.log_prob(&Tensor::<f64>::eye(2)?)?; // of the batch shape (1,)
/// assert!(lp.to_vec()[0].is_finite());
/// # Ok::<(), typed_tensor::Error>(())
/// ```
#[derive(Clone)]
pub struct Wishart<T: FloatElement, D: Backend> {
    df: Tensor<T, D>,
    scale_tril: Tensor<T, D>,
    batch: Shape,
}

impl<T: FloatElement, D: Backend> Wishart<T, D> {
    /// From the degrees of freedom `ν` and the lower Cholesky factor `L` of the scale matrix
    /// `Σ = L Lᵀ` (PyTorch's `scale_tril`).
    ///
    /// # Errors
    /// `InvalidArgument` when `scale_tril` is not a stack of square matrices, not lower
    /// triangular or its diagonal not positive, or `df` is not greater than `p - 1`;
    /// `Broadcast` when the batch axes do not broadcast.
    pub fn from_scale_tril(df: &Tensor<T, D>, scale_tril: &Tensor<T, D>) -> Result<Self> {
        const OP: &str = "Wishart";
        let sd = scale_tril.dims();
        if sd.len() < 2 || sd[sd.len() - 1] != sd[sd.len() - 2] || sd[sd.len() - 1] == 0 {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!(
                    "needs scale_tril (..., p, p) with p ≥ 1, got {}",
                    scale_tril.shape()
                ),
            });
        }
        let p = sd[sd.len() - 1];
        // The factor's checks are the multivariate normal's.
        let zeros = Tensor::zeros_on(sd[..sd.len() - 1].to_vec(), scale_tril.device_handle())?;
        MultivariateNormal::from_scale_tril(&zeros, scale_tril).map_err(|e| e.renamed(OP))?;
        let batch = broadcast_shapes(OP, &Shape::new(sd[..sd.len() - 2].to_vec()), df.shape())?;
        let ok = df.try_gt_scalar(T::from_f64(p as f64 - 1.0))?;
        check(
            OP,
            ok,
            &format!("df must be greater than p - 1 = {}", p - 1),
        )?;
        Ok(Wishart {
            df: to(df, batch.dims().to_vec())?,
            scale_tril: to(scale_tril, with(batch.dims(), &[p, p]))?,
            batch,
        })
    }
    /// From `ν` and the scale matrix `Σ`, factored by `cholesky`.
    ///
    /// # Errors
    /// As [`Wishart::from_scale_tril`]; `cholesky`'s `Err` for a `Σ` that is not positive
    /// definite.
    pub fn from_covariance(df: &Tensor<T, D>, covariance: &Tensor<T, D>) -> Result<Self> {
        let l = covariance
            .try_cholesky(false)
            .map_err(|e| e.renamed("Wishart"))?;
        Self::from_scale_tril(df, &l)
    }
    /// From `ν` and the precision `Σ⁻¹`.
    ///
    /// # Errors
    /// As [`Wishart::from_covariance`]; `Singular` for a singular precision.
    pub fn from_precision(df: &Tensor<T, D>, precision: &Tensor<T, D>) -> Result<Self> {
        let cov = precision.try_inverse().map_err(|e| e.renamed("Wishart"))?;
        Self::from_covariance(df, &cov)
    }
    /// The matrix size `p`.
    pub fn event_size(&self) -> usize {
        self.scale_tril.dims()[self.scale_tril.ndim() - 1]
    }
    /// The degrees of freedom `ν`, broadcast to the batch shape.
    pub fn df(&self) -> &Tensor<T, D> {
        &self.df
    }
    /// `L`, broadcast to the batch shape.
    pub fn scale_tril(&self) -> &Tensor<T, D> {
        &self.scale_tril
    }
    /// `Σ = L Lᵀ`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn covariance(&self) -> Result<Tensor<T, D>> {
        let l = &self.scale_tril;
        l.try_matmul(&l.transpose(-1, -2)?)
    }
    /// `Σ⁻¹`, by two triangular solves.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn precision(&self) -> Result<Tensor<T, D>> {
        let eye = Tensor::eye_on(self.event_size(), self.df.device_handle())?;
        to(&eye, with(self.batch.dims(), &[self.event_size(); 2]))?
            .try_cholesky_solve(&self.scale_tril, false)
    }
    /// `ν` with two trailing unit axes, to scale matrices.
    fn df_matrix(&self) -> Result<Tensor<T, D>> {
        self.df.unsqueeze(-1)?.unsqueeze(-1)
    }
    /// The mean, `ν Σ`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn mean(&self) -> Result<Tensor<T, D>> {
        self.df_matrix()?.try_mul(&self.covariance()?)
    }
    /// The element-wise variances, `ν (Σ_ij² + Σ_ii Σ_jj)`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn variance(&self) -> Result<Tensor<T, D>> {
        let v = self.covariance()?;
        let d = v.diagonal(0)?;
        let outer = d.unsqueeze(-1)?.try_mul(&d.unsqueeze(-2)?)?;
        self.df_matrix()?.try_mul(&v.try_square()?.try_add(&outer)?)
    }
    /// `(L A)(L A)ᵀ` with Bartlett's `A`: `√χ²(ν - i)` on the diagonal (clamped to `eps`, as
    /// PyTorch's), standard normals below it. Differentiable in `ν` (through the χ² draws) and
    /// `L`. PyTorch redraws the rare singular samples; with the clamp none is singular in
    /// exact arithmetic, and none is redrawn here.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        let p = self.event_size();
        let dev = self.df.device_handle();
        let steps = Tensor::<i64, D>::arange_on(0, p as i64, 1, dev)?.try_cast::<T>()?;
        let chi2 = Chi2::new(&self.df.unsqueeze(-1)?.try_sub(&steps)?)?;
        let eps = T::from_f64(super::eps::<T>());
        let diag = chi2.rsample(sample_shape)?.try_sqrt()?.try_clamp_min(eps)?;
        let dims = with(&extended(sample_shape, &self.batch), &[p, p]);
        let below = Tensor::<T, D>::randn_on(dims, dev)?.try_tril(-1)?;
        let chol = self
            .scale_tril
            .try_matmul(&below.try_add(&diag.try_diag_embed()?)?)?;
        chol.try_matmul(&chol.transpose(-1, -2)?)
    }
    /// `Σ log diag L + p log 2 / 2`.
    fn log_norm_part(&self) -> Result<Tensor<T, D>> {
        let p = self.event_size() as f64;
        self.scale_tril
            .diagonal(0)?
            .try_log()?
            .try_sum(&[-1], false)?
            .try_add_scalar(T::from_f64(p * LN_2 / 2.0))
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for Wishart<T, D> {
    type Value = Tensor<T, D>;
    reparameterized!();
    /// `[p, p]`.
    fn event_shape(&self) -> Vec<usize> {
        vec![self.event_size(); 2]
    }
    /// `-ν (p log 2 / 2 + Σ log diag L) - log Γ_p(ν/2) + (ν - p - 1)/2 log |X| - tr(Σ⁻¹ X)/2`.
    ///
    /// # Errors
    /// `InvalidArgument` for a value that is not `(..., p, p)`, not symmetric (within 1e-6,
    /// PyTorch's tolerance) or not positive definite.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        const OP: &str = "Wishart.log_prob";
        let p = self.event_size();
        let vd = value.dims();
        if vd.len() < 2 || vd[vd.len() - 2..] != [p, p] {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!("needs values (..., {p}, {p}), got {}", value.shape()),
            });
        }
        let asym = value.try_sub(&value.transpose(-1, -2)?)?.try_abs()?;
        let sym = asym.try_le_scalar(T::from_f64(1e-6))?;
        check(OP, sym, "the value must be a symmetric matrix")?;
        value
            .try_cholesky(false)
            .map_err(|_| Error::InvalidArgument {
                op: OP,
                msg: "the value must be positive definite (its Cholesky factorization failed)"
                    .into(),
            })?;
        let nu = &self.df;
        let half_nu = nu.try_mul_scalar(T::from_f64(0.5))?;
        let trace = value
            .try_cholesky_solve(&self.scale_tril, false)?
            .diagonal(0)?
            .try_sum(&[-1], false)?;
        let (_, log_det) = value.try_slogdet()?;
        nu.try_mul(&self.log_norm_part()?)?
            .try_add(&half_nu.try_mvlgamma(p)?)?
            .try_neg()?
            .try_add(
                &nu.try_sub_scalar(T::from_f64(p as f64 + 1.0))?
                    .try_mul_scalar(T::from_f64(0.5))?
                    .try_mul(&log_det)?,
            )?
            .try_sub(&trace.try_mul_scalar(T::from_f64(0.5))?)
    }
    /// `(p + 1)(p log 2 / 2 + Σ log diag L) + log Γ_p(ν/2) - (ν - p - 1)/2 ψ_p(ν/2) + ν p / 2`,
    /// with `ψ_p(x) = Σ_{i<p} ψ(x - i/2)`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        let p = self.event_size();
        let nu = &self.df;
        let half_nu = nu.try_mul_scalar(T::from_f64(0.5))?;
        let dev = nu.device_handle();
        let halves = Tensor::<i64, D>::arange_on(0, p as i64, 1, dev)?
            .try_cast::<T>()?
            .try_mul_scalar(T::from_f64(0.5))?;
        let mv_digamma = half_nu
            .unsqueeze(-1)?
            .try_sub(&halves)?
            .try_digamma()?
            .try_sum(&[-1], false)?;
        self.log_norm_part()?
            .try_mul_scalar(T::from_f64(p as f64 + 1.0))?
            .try_add(&half_nu.try_mvlgamma(p)?)?
            .try_sub(
                &nu.try_sub_scalar(T::from_f64(p as f64 + 1.0))?
                    .try_mul_scalar(T::from_f64(0.5))?
                    .try_mul(&mv_digamma)?,
            )?
            .try_add(&nu.try_mul_scalar(T::from_f64(p as f64 / 2.0))?)
    }
}

impl<T: FloatElement, D: Backend> super::Rsample<T, D> for Wishart<T, D> {
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        Wishart::rsample(self, sample_shape)
    }
}

/// The LKJ distribution over lower Cholesky factors of `dim × dim` correlation matrices
/// (PyTorch `LKJCholesky`): the correlation matrix `L Lᵀ` has density proportional to
/// `det(L Lᵀ)^(η - 1)` for the concentration `η > 0` (`η = 1` is uniform over correlation
/// matrices). Samples by the onion method (Lewandowski, Kurowicka and Joe 2009), PyTorch's
/// draw. The batch shape is the concentration's, the event shape `[dim, dim]`.
///
/// ```
/// use typed_tensor::distributions::{Distribution, LKJCholesky};
/// use typed_tensor::prelude::*;
/// let d = LKJCholesky::new(3, &tensor![2.0f64])?;
/// let l = d.sample(&[4])?; // (4, 1, 3, 3), rows of unit norm
/// let norms = l.try_square()?.try_sum(&[-1], false)?;
/// assert!(norms.to_vec().iter().all(|n| (n - 1.0).abs() < 1e-12));
/// # Ok::<(), typed_tensor::Error>(())
/// ```
#[derive(Clone)]
pub struct LKJCholesky<T: FloatElement, D: Backend> {
    dim: usize,
    concentration: Tensor<T, D>,
    beta: Beta<T, D>,
}

impl<T: FloatElement, D: Backend> LKJCholesky<T, D> {
    /// Over `dim × dim` factors with concentration `η`.
    ///
    /// # Errors
    /// `InvalidArgument` for `dim < 2` or a concentration that is not positive.
    pub fn new(dim: usize, concentration: &Tensor<T, D>) -> Result<Self> {
        const OP: &str = "LKJCholesky";
        if dim < 2 {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!("dim must be at least 2, got {dim}"),
            });
        }
        let eta = concentration;
        let ok = eta
            .try_gt_scalar(T::ZERO)?
            .try_logical_and(&eta.try_is_finite()?)?;
        check(OP, ok, "concentration must be positive and finite")?;
        // The marginal Beta(i/2, η + (dim - 2)/2 - (i - 1)/2) of the i-th row's squared norm,
        // the first row's unused (offset 0).
        let dev = eta.device_handle();
        let offset = Tensor::<i64, D>::arange_on(0, dim as i64 - 1, 1, dev)?.try_cast::<T>()?;
        let offset = offset.try_pad(&[(1, 0)], T::ZERO)?;
        let conc1 = offset.try_add_scalar(T::from_f64(0.5))?;
        let marginal = eta.try_add_scalar(T::from_f64(0.5 * (dim as f64 - 2.0)))?;
        let conc0 = marginal
            .unsqueeze(-1)?
            .try_sub(&offset.try_mul_scalar(T::from_f64(0.5))?)?;
        let beta = Beta::new(&conc1, &conc0).map_err(|e| e.renamed(OP))?;
        Ok(LKJCholesky {
            dim,
            concentration: eta.clone(),
            beta,
        })
    }
    /// The concentration `η`.
    pub fn concentration(&self) -> &Tensor<T, D> {
        &self.concentration
    }
    /// `Err` naming `op` unless `value` is a lower triangular `(..., dim, dim)` stack with a
    /// positive diagonal and rows of unit norm (within `10 · dim · eps`, PyTorch's
    /// `corr_cholesky`).
    fn in_support(&self, op: &'static str, value: &Tensor<T, D>) -> Result<()> {
        let n = self.dim;
        let vd = value.dims();
        if vd.len() < 2 || vd[vd.len() - 2..] != [n, n] {
            return Err(Error::InvalidArgument {
                op,
                msg: format!("needs values (..., {n}, {n}), got {}", value.shape()),
            });
        }
        let lower = value.try_triu(1)?.try_eq_scalar(T::ZERO)?;
        let tol = T::from_f64(10.0 * n as f64 * super::eps::<T>());
        let norms = value.try_square()?.try_sum(&[-1], false)?.try_sqrt()?;
        let unit = norms
            .try_sub_scalar(T::ONE)?
            .try_abs()?
            .try_le_scalar(tol)?;
        let ok = lower
            .try_all(&[-2, -1], false)?
            .try_logical_and(
                &value
                    .diagonal(0)?
                    .try_gt_scalar(T::ZERO)?
                    .try_all(&[-1], false)?,
            )?
            .try_logical_and(&unit.try_all(&[-1], false)?)?;
        check(
            op,
            ok,
            "the value must be the lower Cholesky factor of a correlation matrix (lower triangular, positive diagonal, rows of unit norm)",
        )
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for LKJCholesky<T, D> {
    type Value = Tensor<T, D>;
    fn batch_shape(&self) -> &Shape {
        self.concentration.shape()
    }
    /// `[dim, dim]`.
    fn event_shape(&self) -> Vec<usize> {
        vec![self.dim; 2]
    }
    /// The onion method: row `i`'s off-diagonal part is a uniform direction scaled by the
    /// square root of a `Beta` draw, the diagonal what makes the row's norm 1 (clamped to
    /// `tiny`). Not differentiable (PyTorch has no `rsample` either).
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        crate::autograd::no_grad(|| {
            let n = self.dim;
            let y = self.beta.sample(sample_shape)?.unsqueeze(-1)?;
            let dims = with(&extended(sample_shape, self.concentration.shape()), &[n, n]);
            let dev = self.concentration.device_handle();
            let u = Tensor::<T, D>::randn_on(dims, dev)?.try_tril(-1)?;
            // The first row is all zero: its norm clamped so it stays zero.
            let tiny = T::from_f64(super::tiny::<T>());
            let norm = u.try_square()?.try_sum(&[-1], true)?.try_sqrt()?;
            let w = y
                .try_sqrt()?
                .try_mul(&u.try_div(&norm.try_clamp_min(tiny)?)?)?;
            let diag = w
                .try_square()?
                .try_sum(&[-1], false)?
                .try_rsub_scalar(T::ONE)?
                .try_clamp_min(tiny)?
                .try_sqrt()?;
            w.try_add(&diag.try_diag_embed()?)
        })
    }
    /// `Σ_{i≥1} (2(η - 1) + dim - i - 1) log L_ii` less the normaliser `(dim-1)/2 log π +
    /// log Γ_{dim-1}(α - 1/2) - (dim - 1) log Γ(α)`, `α = η + (dim - 1)/2`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        self.in_support("LKJCholesky.log_prob", value)?;
        let n = self.dim;
        let eta = &self.concentration;
        let dev = eta.device_handle();
        let diag = value.diagonal(0)?.narrow(-1, 1, n - 1)?;
        let order = Tensor::<i64, D>::arange_on(2, n as i64 + 1, 1, dev)?
            .try_cast::<T>()?
            .try_neg()?
            .try_add_scalar(T::from_f64(n as f64))?;
        let order = eta
            .try_sub_scalar(T::ONE)?
            .try_mul_scalar(T::from_f64(2.0))?
            .unsqueeze(-1)?
            .try_add(&order)?;
        let unnormalized = order.try_mul(&diag.try_log()?)?.try_sum(&[-1], false)?;
        let dm1 = (n - 1) as f64;
        let alpha = eta.try_add_scalar(T::from_f64(0.5 * dm1))?;
        let numerator = alpha
            .try_sub_scalar(T::from_f64(0.5))?
            .try_mvlgamma(n - 1)?;
        let denominator = alpha.try_lgamma()?.try_mul_scalar(T::from_f64(dm1))?;
        let norm = numerator
            .try_sub(&denominator)?
            .try_add_scalar(T::from_f64(0.5 * dm1 * PI.ln()))?;
        unnormalized.try_sub(&norm)
    }
    /// PyTorch has none: an `Err`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        Err(Error::InvalidArgument {
            op: "LKJCholesky.entropy",
            msg: "PyTorch's LKJCholesky has no entropy (NotImplementedError)".into(),
        })
    }
}
