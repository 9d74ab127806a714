//! PyTorch's `linalg.*_ex` forms, which report a failing matrix in an Int32 `info` tensor
//! (one value per matrix, 0 for success) instead of returning an `Err`: `cholesky_ex`,
//! `inv_ex`, `solve_ex` and `lu_factor_ex`. A checked error (a shape, a device) is still an
//! `Err`.

use crate::autograd::{Op, record_out};
use crate::backend::Backend;
use crate::dtype::{FloatOf, NumElement};
use crate::error::{OrPanic, Result};
use crate::tensor::Tensor;

type Float<T, D> = Tensor<FloatOf<T>, D>;

/// What [`Tensor::try_lu_factor_ex`] returns: `LU`, the 1-based pivots and `info`.
pub type LuFactorEx<T, D> = (Float<T, D>, Tensor<i32, D>, Tensor<i32, D>);

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// [`Tensor::try_cholesky`] that reports failure instead of returning it (PyTorch
    /// `linalg.cholesky_ex`): the factors and `info` of shape `(...)`, 0 for each matrix
    /// factored, else the 1-based order of its first leading minor that is not
    /// positive-definite, whose factor is then all NaN. Differentiable where `info` is 0.
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    /// let a = Tensor::<f64>::from_vec(vec![4.0, 2.0, 2.0, 3.0, 1.0, 2.0, 2.0, 1.0], [2, 2, 2])?;
    /// let (l, info) = a.try_cholesky_ex(false)?;
    /// assert_eq!(info.to_vec(), vec![0, 2]); // the second matrix is indefinite
    /// let want = [2.0, 0.0, 1.0, 2f64.sqrt()]; // 3 - 1² = 2 under the root
    /// assert!(l.to_vec()[..4].iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-15));
    /// assert!(l.to_vec()[4..].iter().all(|v| v.is_nan()));
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` for non-square input; allocation or transfer failure.
    pub fn try_cholesky_ex(&self, upper: bool) -> Result<(Float<T, D>, Tensor<i32, D>)> {
        let (l, info) = self.factor_ex("cholesky_ex")?;
        let l = record_out(l, Op::Cholesky, &[self], &[]);
        let l = if upper {
            l.transpose(-1, -2)?.try_contiguous()?
        } else {
            l
        };
        Ok((l, info))
    }

    /// [`Tensor::try_inverse`] that reports singular matrices instead of returning an `Err`
    /// (PyTorch `linalg.inv_ex`): the inverses and `info` of shape `(...)`, 0 for each matrix
    /// inverted, else the 1-based index of its first numerically zero pivot (the test of
    /// [`Tensor::try_inverse`]), whose inverse is then all NaN. Differentiable where `info`
    /// is 0.
    ///
    /// # Errors
    /// `InvalidArgument` for non-square input; allocation or transfer failure.
    pub fn try_inv_ex(&self) -> Result<(Float<T, D>, Tensor<i32, D>)> {
        let (inv, info) = self.factor_ex("inv_ex")?;
        Ok((record_out(inv, Op::Inverse, &[self], &[]), info))
    }

    /// [`Tensor::try_solve`] that reports singular matrices instead of returning an `Err`
    /// (PyTorch `linalg.solve_ex`): the solutions and `info` of shape `self`'s batch, 0 for
    /// each matrix solved, else as [`Tensor::try_inv_ex`]'s (the same singularity test as
    /// `solve`), whose solution is then all NaN. Differentiable where `info` is 0.
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    /// let a = Tensor::<f64>::from_vec(vec![2.0, 0.0, 0.0, 4.0, 1.0, 2.0, 2.0, 4.0], [2, 2, 2])?;
    /// let b = Tensor::<f64>::from_vec(vec![2.0, 8.0], [2])?;
    /// let (x, info) = a.try_solve_ex(&b)?;
    /// assert_eq!(info.to_vec(), vec![0, 2]);
    /// assert_eq!(x.to_vec()[..2], [1.0, 2.0]);
    /// assert!(x.to_vec()[2..].iter().all(|v| v.is_nan()));
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Tensor::try_solve`], but never `Singular`.
    pub fn try_solve_ex(&self, b: &Self) -> Result<(Float<T, D>, Tensor<i32, D>)> {
        let (_, info) = crate::autograd::no_grad(|| self.factor_ex("solve_ex"))?;
        if info.try_to_vec()?.iter().all(|&i| i == 0) {
            return Ok((self.try_solve(b)?, info));
        }
        // The failing matrices replaced by the identity, solved, and their solutions NaN.
        let nd = self.ndim();
        let n = self.dims()[nd - 1];
        let ok = info.try_eq_scalar(0)?.unsqueeze(-1)?.unsqueeze(-1)?;
        let eye = Self::eye_on(n, self.device_handle())?;
        let x = Self::try_where(&ok, self, &eye)?.try_solve(b)?;
        let ok = if b.ndim() == 1 {
            ok.squeeze_dims(&[-1])?
        } else {
            ok
        };
        let nan = Float::<T, D>::scalar_on(
            <FloatOf<T> as crate::dtype::Element>::from_f64(f64::NAN),
            self.device_handle(),
        )?;
        Ok((Tensor::try_where(&ok, &x, &nan)?, info))
    }

    /// [`Tensor::try_lu_factor`] with PyTorch's `info` (`linalg.lu_factor_ex`): per matrix 0,
    /// or the 1-based index of the first exactly zero diagonal element of `U` (the
    /// factorization itself never fails).
    ///
    /// # Errors
    /// As [`Tensor::try_lu_factor`].
    pub fn try_lu_factor_ex(&self) -> Result<LuFactorEx<T, D>> {
        let (lu, pivots) = self.try_lu_factor()?;
        let diag = lu.diagonal_axes(0, -2, -1)?;
        let batch = diag.dims()[..diag.ndim() - 1].to_vec();
        let k = diag.dims()[diag.ndim() - 1];
        let values = diag.try_cast::<f64>()?.try_to_vec()?;
        if k == 0 {
            // Empty matrices (the batch may be 2^40 of them): zeros, allocated fallibly.
            let info = Tensor::<i32, D>::zeros_on(batch, self.device_handle())?;
            return Ok((lu, pivots, info));
        }
        let mut info = crate::alloc::with_capacity("lu_factor_ex", values.len() / k)?;
        info.extend(
            values
                .chunks(k)
                .map(|d| d.iter().position(|&v| v == 0.0).map_or(0, |p| p as i32 + 1)),
        );
        let info = Tensor::<i32, D>::from_vec_on(info, batch, self.device_handle())?;
        Ok((lu, pivots, info))
    }

    /// The host's `_ex` results, on this tensor's device.
    fn factor_ex(&self, op: &'static str) -> Result<(Float<T, D>, Tensor<i32, D>)> {
        let (m, info) = D::to_host(self)?.host_factor_ex(op)?;
        Ok((
            D::from_host(&m, &self.device)?,
            D::from_host(&info, &self.device)?,
        ))
    }

    plain_forms! {
        /// [`Tensor::try_cholesky_ex`], panicking with its error.
        cholesky_ex, try_cholesky_ex(upper: bool) -> (Float<T, D>, Tensor<i32, D>);
        /// [`Tensor::try_inv_ex`], panicking with its error.
        inv_ex, try_inv_ex() -> (Float<T, D>, Tensor<i32, D>);
        /// [`Tensor::try_solve_ex`], panicking with its error.
        solve_ex, try_solve_ex(b: &Self) -> (Float<T, D>, Tensor<i32, D>);
        /// [`Tensor::try_lu_factor_ex`], panicking with its error.
        lu_factor_ex, try_lu_factor_ex() -> LuFactorEx<T, D>;
    }
}
