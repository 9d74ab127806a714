//! Matrix factorizations (NumPy `linalg` semantics): `inverse`,
//! `solve`, `svd`, `pinv`, `eigh`/`eigvalsh`, `qr`, `slogdet`/`det`, `cholesky`, over stacks of matrices in the last two dimensions. Computed
//! in f64 by `faer` (`backend/cpu/decomp.rs`) on the host for every device (a CUDA tensor is
//! downloaded, factorized and uploaded: its results and errors are the CPU's exactly), returned
//! as [`FloatOf<T>`] like every float-valued op.
//!
//! They need the `linalg` cargo feature (on by default). A build without it (`default-features
//! = false` to save faer's compile time) keeps the methods, and each returns
//! `Error::InvalidArgument` naming the feature.
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let a = tensor![[4.0f64, 1.0], [2.0, 3.0]];
//! let b = tensor![[1.0f64], [2.0]];
//! let x = a.solve(&b); // a @ x == b
//! assert!((a.matmul(&x).to_vec()[1] - 2.0).abs() < 1e-12);
//! let inv = a.inverse();
//! assert!((inv.to_vec()[0] - 0.3).abs() < 1e-12);
//! assert!(tensor![[1.0f64, 2.0], [2.0, 4.0]].try_inverse().is_err()); // singular
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::autograd::{Op, record, record_out};
use crate::backend::{Backend, on_host};
use crate::dtype::{Dtype, Element, FloatOf, NumElement};
use crate::error::{OrPanic, Result};
use crate::tensor::Tensor;

type Float<T, D> = Tensor<FloatOf<T>, D>;

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// The inverse of each square matrix in the last two dimensions: shape `(..., n, n)` in and
    /// out (NumPy `linalg.inv`).
    ///
    /// # Errors
    /// `InvalidArgument` when the last two dimensions are missing or not square; `Singular` when
    /// a pivot of the LU factorization is numerically zero (`|u_ii| ≤ n·ε·max|u_jj|` in f64), so
    /// `arange(9).reshape(3, 3)` is an error where NumPy returns huge values.
    pub fn try_inverse(&self) -> Result<Float<T, D>> {
        let out = on_host(self, |h| h.host_inverse())?;
        Ok(record_out(out, Op::Inverse, &[self], &[]))
    }

    /// `x` with `self · x = b` (NumPy `linalg.solve`): `self` is `(..., n, n)`; `b` is a vector
    /// `(n,)` (result `(..., n)`) or a stack `(..., n, k)` whose batch dimensions broadcast with
    /// `self`'s (result `(..., n, k)`).
    ///
    /// # Errors
    /// As [`Tensor::try_inverse`]; `ShapeMismatch` when `b`'s rows differ from `n` or the batch
    /// dimensions do not broadcast; `Device` across devices.
    pub fn try_solve(&self, b: &Self) -> Result<Float<T, D>> {
        crate::ops::device_ops::same_device("solve", self, b)?;
        let hb = D::to_host(b)?;
        let out = on_host(self, |h| h.host_solve(&hb))?;
        Ok(record_out(out, Op::Solve, &[self, b], &[self, b]))
    }

    /// The thin singular value decomposition `self = u · diag(s) · vh` of each `(m, n)` matrix
    /// (NumPy `linalg.svd(full_matrices=False)`): `u` is `(..., m, r)`, `s` `(..., r)`
    /// descending, `vh` `(..., r, n)`, with `r = min(m, n)`. Singular vectors are unique only up
    /// to sign. Differentiable (PyTorch's `svd_backward`), where the singular values are
    /// distinct and, for `u`/`vh` of a non-square matrix, non-zero; a loss that depends on the
    /// vectors' signs has no meaningful gradient, as in PyTorch.
    ///
    /// # Errors
    /// `InvalidArgument` with fewer than two dimensions or when the iteration does not converge.
    #[allow(clippy::type_complexity)]
    pub fn try_svd(&self) -> Result<(Float<T, D>, Float<T, D>, Float<T, D>)> {
        let (u, s, vh) = D::to_host(self)?.host_svd()?;
        let d = &self.device;
        let (u, s, vh) = (
            D::from_host(&u, d)?,
            D::from_host(&s, d)?,
            D::from_host(&vh, d)?,
        );
        let saved: [&dyn crate::autograd::Tracked; 3] = [&u, &s, &vh];
        let part = |t: &Float<T, D>, i| record(t.clone(), Op::Svd(i), &[self], &saved);
        Ok((part(&u, 0), part(&s, 1), part(&vh, 2)))
    }

    /// The Moore–Penrose pseudo-inverse of each `(m, n)` matrix, shape `(..., n, m)` (NumPy
    /// `linalg.pinv`, through the SVD). Differentiable with PyTorch's `pinv_backward`
    /// formula, which holds where the rank does not change near the input (a full-rank matrix).
    ///
    /// # Errors
    /// As [`Tensor::try_svd`].
    pub fn try_pinv(&self) -> Result<Float<T, D>> {
        let out = on_host(self, |h| h.host_pinv())?;
        Ok(record_out(out, Op::Pinv, &[self], &[self]))
    }

    /// Eigenvalues (ascending, `(..., n)`) and eigenvectors (the columns of `(..., n, n)`) of
    /// each symmetric matrix, read from its lower triangle (NumPy `linalg.eigh`, `UPLO='L'`).
    /// Differentiable where the eigenvalues are distinct; the gradient is the symmetric one
    /// of PyTorch's Hermitian `eig` backward.
    ///
    /// # Errors
    /// `InvalidArgument` for non-square input or when the iteration does not converge.
    #[allow(clippy::type_complexity)]
    pub fn try_eigh(&self) -> Result<(Float<T, D>, Float<T, D>)> {
        let (w, v) = D::to_host(self)?.host_eigh()?;
        let (w, v) = (
            D::from_host(&w, &self.device)?,
            D::from_host(&v, &self.device)?,
        );
        let saved: [&dyn crate::autograd::Tracked; 2] = [&w, &v];
        let part = |t: &Float<T, D>, i| record(t.clone(), Op::Eigh(i), &[self], &saved);
        Ok((part(&w, 0), part(&v, 1)))
    }

    /// The reduced QR factorization `self = q · r` of each `(m, n)` matrix (NumPy
    /// `linalg.qr`, PyTorch `linalg.qr`, mode `reduced`): `q` `(..., m, k)` with orthonormal
    /// columns and `r` `(..., k, n)` upper triangular, `k = min(m, n)`, by Householder
    /// reflections (so the signs of `r`'s diagonal, and of `q`'s columns, are LAPACK's
    /// choice; compare `q·r`). Differentiable for `m >= n` (PyTorch's `linalg_qr_backward`
    /// where `r` is invertible); for `m < n`, `backward` says it has no gradient.
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    /// let a = tensor![[3.0f64, 1.0], [4.0, 2.0], [0.0, 5.0]];
    /// let (q, r) = a.qr();
    /// assert_eq!((q.dims(), r.dims()), (&[3, 2][..], &[2, 2][..]));
    /// let back = q.matmul(&r).to_vec();
    /// assert!(back.iter().zip(a.to_vec()).all(|(x, y)| (x - y).abs() < 1e-12));
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` with fewer than two dimensions.
    #[allow(clippy::type_complexity)]
    pub fn try_qr(&self) -> Result<(Float<T, D>, Float<T, D>)> {
        let (q, r) = D::to_host(self)?.host_qr()?;
        let (q, r) = (
            D::from_host(&q, &self.device)?,
            D::from_host(&r, &self.device)?,
        );
        let saved: [&dyn crate::autograd::Tracked; 2] = [&q, &r];
        let part = |t: &Float<T, D>, i| record(t.clone(), Op::Qr(i), &[self], &saved);
        Ok((part(&q, 0), part(&r, 1)))
    }

    /// The eigenvalues of each symmetric matrix, ascending (NumPy `linalg.eigvalsh`): the
    /// first output of [`Tensor::try_eigh`], differentiable as there.
    ///
    /// # Errors
    /// As [`Tensor::try_eigh`].
    pub fn try_eigvalsh(&self) -> Result<Float<T, D>> {
        Ok(self.try_eigh()?.0)
    }

    /// The sign (`-1`, `0` or `1`) and the natural log of the absolute value of the
    /// determinant of each square matrix, each of shape `(...)` (NumPy `linalg.slogdet`): a
    /// singular matrix gives `(0, -inf)`. The log is differentiable, `A⁻ᵀ` times its gradient
    /// (PyTorch's formula; backward through a singular matrix is the inverse's `Singular`
    /// error); the sign has no gradient.
    ///
    /// # Errors
    /// `InvalidArgument` when the last two dimensions are missing or not square.
    pub fn try_slogdet(&self) -> Result<(Float<T, D>, Float<T, D>)> {
        let (sign, log) = D::to_host(self)?.host_slogdet()?;
        let d = &self.device;
        // The sign is piecewise constant: a plain tensor, as in PyTorch.
        let sign = D::from_host(&sign, d)?;
        let log = D::from_host(&log, d)?;
        let saved: [&dyn crate::autograd::Tracked; 1] = [self];
        Ok((sign, record(log, Op::LogAbsDet, &[self], &saved)))
    }

    /// The determinant of each square matrix, shape `(...)` (NumPy `linalg.det`), `sign ·
    /// exp(log|det|)` of the partial-pivot LU in f64. Differentiable everywhere: the gradient
    /// is `adj(A)ᵀ` times the incoming one (`det · A⁻ᵀ` for an invertible `A`), computed
    /// through the SVD as PyTorch does, so a singular matrix has one too.
    ///
    /// # Errors
    /// As [`Tensor::try_slogdet`].
    pub fn try_det(&self) -> Result<Float<T, D>> {
        let out = on_host(self, |h| h.host_det())?;
        Ok(record_out(out, Op::Det, &[self], &[self]))
    }

    /// The Cholesky factor of each symmetric positive-definite matrix, read from its lower
    /// triangle: lower-triangular `L` with `A = L Lᵀ`, or with `upper` the upper-triangular
    /// `U = Lᵀ` with `A = Uᵀ U`; shape `(..., n, n)` (NumPy and PyTorch `linalg.cholesky`).
    /// Differentiable (PyTorch's `cholesky_backward`, the gradient symmetrised).
    ///
    /// # Errors
    /// `InvalidArgument` for non-square input, or for a matrix that is not positive-definite
    /// (naming it and the first leading minor that is not).
    pub fn try_cholesky(&self, upper: bool) -> Result<Float<T, D>> {
        let out = on_host(self, |h| h.host_cholesky())?;
        let l = record_out(out, Op::Cholesky, &[self], &[]);
        if upper {
            l.transpose(-1, -2)?.try_contiguous()
        } else {
            Ok(l)
        }
    }

    /// The principal square root of each symmetric positive-semidefinite matrix, read from
    /// its lower triangle (PyTorch `linalg.matrix_sqrth`): the symmetric `X` with `X·X = A`,
    /// `V·diag(√λ)·Vᵀ` from [`Tensor::try_eigh`], shape `(..., n, n)`. Negative eigenvalues
    /// (an indefinite matrix) are taken as 0, as PyTorch's. Differentiable with the
    /// Daleckii–Krein formula `gA = V·((Vᵀ·sym(g)·V) / (√λᵢ + √λⱼ))·Vᵀ` (PyTorch's), finite
    /// for repeated eigenvalues (the identity's gradient is `g`'s symmetric part / 2) and
    /// infinite where two eigenvalues are 0. f16 and bf16 are computed in f32.
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    /// let x = tensor![[2.0f64, 0.0], [0.0, 9.0]].matrix_sqrth();
    /// assert_eq!(x.to_vec(), vec![2f64.sqrt(), 0.0, 0.0, 3.0]);
    /// ```
    ///
    /// # Errors
    /// As [`Tensor::try_eigh`].
    pub fn try_matrix_sqrth(&self) -> Result<Float<T, D>> {
        if const { matches!(T::DTYPE, Dtype::Float16 | Dtype::Bfloat16) } {
            // The products in f32, so the result stays symmetric.
            return self.try_cast::<f32>()?.try_matrix_sqrth()?.try_cast();
        }
        let a = self.try_cast::<FloatOf<T>>()?;
        crate::autograd::custom(
            "matrix_sqrth",
            &[&a],
            |x| {
                let (w, v) = x[0].try_eigh()?;
                let s = w.try_clamp_min(FloatOf::<T>::ZERO)?.try_sqrt()?;
                v.try_mul(&s.unsqueeze(-2)?)?
                    .try_matmul(&v.transpose(-1, -2)?)
            },
            |g, x, _| {
                let (w, v) = x[0].try_eigh()?;
                let s = w.try_clamp_min(FloatOf::<T>::ZERO)?.try_sqrt()?;
                let sums = s.unsqueeze(-1)?.try_add(&s.unsqueeze(-2)?)?;
                let half = FloatOf::<T>::from_f64(0.5);
                let sym = g.try_add(&g.transpose(-1, -2)?)?.try_mul_scalar(half)?;
                let vt = v.transpose(-1, -2)?;
                let inner = vt.try_matmul(&sym)?.try_matmul(&v)?.try_div(&sums)?;
                Ok(vec![Some(v.try_matmul(&inner)?.try_matmul(&vt)?)])
            },
        )
    }

    /// The polar decomposition `A = U·H` of each `(m, n)` matrix with `m >= n` (PyTorch
    /// `linalg.polar`, SciPy `linalg.polar`): `U` `(..., m, n)` with orthonormal columns (the
    /// nearest such matrix to `A` in the Frobenius norm) and `H` `(..., n, n)` symmetric
    /// positive-semidefinite, from the SVD `A = W·S·Vᵀ` as `U = W·Vᵀ`, `H = V·S·Vᵀ`.
    /// Differentiable where `A` has full column rank, repeated singular values included
    /// (an orthogonal `A`): the gradient is that of `H = (AᵀA)^½`, `U = A·H⁻¹`, with
    /// [`Tensor::try_matrix_sqrth`]'s rule, as PyTorch's.
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    /// let a = tensor![[0.0f64, 2.0], [3.0, 0.0]];
    /// let (u, h) = a.polar();
    /// assert_eq!(u.to_vec(), vec![0.0, 1.0, 1.0, 0.0]);
    /// assert_eq!(h.to_vec(), vec![3.0, 0.0, 0.0, 2.0]);
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` for fewer than two dimensions or more columns than rows (PyTorch's
    /// rule); as [`Tensor::try_svd`].
    #[allow(clippy::type_complexity)]
    pub fn try_polar(&self) -> Result<(Float<T, D>, Float<T, D>)> {
        let (m, n) = self.shape().matrix_dims("polar", false)?;
        if m < n {
            return Err(crate::error::Error::InvalidArgument {
                op: "polar",
                msg: format!(
                    "needs at least as many rows as columns, got shape {}",
                    self.shape()
                ),
            });
        }
        let a = self.try_cast::<FloatOf<T>>()?;
        let packed = crate::autograd::custom(
            "polar",
            &[&a],
            |x| {
                let (w, s, vh) = x[0].try_svd()?;
                let v = vh.transpose(-1, -2)?;
                let u = w.try_matmul(&vh)?;
                let h = v.try_mul(&s.unsqueeze(-2)?)?.try_matmul(&vh)?;
                Tensor::try_concat(&[&u, &h], -2)
            },
            move |g, x, out| {
                // H = (AᵀA)^½ and U = A·H⁻¹, differentiated through their factors.
                let (u, (gu, gh)) = (
                    out.narrow(-2, 0, m)?,
                    (g.narrow(-2, 0, m)?, g.narrow(-2, m, n)?),
                );
                let (_, s, vh) = x[0].try_svd()?;
                let v = vh.transpose(-1, -2)?;
                let h_inv = v.try_div(&s.unsqueeze(-2)?)?.try_matmul(&vh)?;
                let gh = gh.try_sub(&u.transpose(-1, -2)?.try_matmul(&gu)?.try_matmul(&h_inv)?)?;
                let half = FloatOf::<T>::from_f64(0.5);
                let sym = gh.try_add(&gh.transpose(-1, -2)?)?.try_mul_scalar(half)?;
                let sums = s.unsqueeze(-1)?.try_add(&s.unsqueeze(-2)?)?;
                let gm = v
                    .try_matmul(&vh.try_matmul(&sym)?.try_matmul(&v)?.try_div(&sums)?)?
                    .try_matmul(&vh)?;
                let two = FloatOf::<T>::from_f64(2.0);
                let ga = gu
                    .try_matmul(&h_inv)?
                    .try_add(&x[0].try_matmul(&gm)?.try_mul_scalar(two)?)?;
                Ok(vec![Some(ga)])
            },
        )?;
        Ok((packed.narrow(-2, 0, m)?, packed.narrow(-2, m, n)?))
    }

    plain_forms! {
        /// [`Tensor::try_matrix_sqrth`], panicking with its error.
        matrix_sqrth, try_matrix_sqrth() -> Float<T, D>;
        /// [`Tensor::try_polar`], panicking with its error.
        polar, try_polar() -> (Float<T, D>, Float<T, D>);
        /// [`Tensor::try_cholesky`], panicking with its error.
        cholesky, try_cholesky(upper: bool) -> Float<T, D>;
        /// [`Tensor::try_slogdet`], panicking with its error.
        slogdet, try_slogdet() -> (Float<T, D>, Float<T, D>);
        /// [`Tensor::try_det`], panicking with its error.
        det, try_det() -> Float<T, D>;
        /// [`Tensor::try_inverse`], panicking with its error.
        inverse, try_inverse() -> Float<T, D>;
        /// [`Tensor::try_solve`], panicking with its error.
        solve, try_solve(b: &Self) -> Float<T, D>;
        /// [`Tensor::try_svd`], panicking with its error.
        svd, try_svd() -> (Float<T, D>, Float<T, D>, Float<T, D>);
        /// [`Tensor::try_pinv`], panicking with its error.
        pinv, try_pinv() -> Float<T, D>;
        /// [`Tensor::try_eigh`], panicking with its error.
        eigh, try_eigh() -> (Float<T, D>, Float<T, D>);
        /// [`Tensor::try_qr`], panicking with its error.
        qr, try_qr() -> (Float<T, D>, Float<T, D>);
        /// [`Tensor::try_eigvalsh`], panicking with its error.
        eigvalsh, try_eigvalsh() -> Float<T, D>;
    }
}

#[cfg(all(test, not(feature = "linalg")))]
mod without_the_feature {
    use crate::prelude::*;

    #[test]
    fn every_factorization_is_an_error_naming_the_feature() {
        let a = Tensor::<f32>::eye(3).unwrap();
        let errors = [
            a.try_inverse().err(),
            a.try_solve(&a).err(),
            a.try_svd().err(),
            a.try_pinv().err(),
            a.try_eigh().err(),
            a.try_det().err(),
            a.try_slogdet().err(),
            a.try_cholesky(false).err(),
        ];
        for (e, op) in errors.into_iter().zip([
            "inverse", "solve", "svd", "pinv", "eigh", "det", "slogdet", "cholesky",
        ]) {
            let msg = e.expect("an error").to_string();
            assert!(
                msg.starts_with(op) && msg.contains("`linalg` cargo feature"),
                "{msg}"
            );
        }
        let d = DynTensor::from(a);
        assert!(d.inverse().unwrap_err().to_string().contains("`linalg`"));
    }
}
