//! PyTorch's names for ops this crate has under another name or in one line: `mm`, `isnan`/
//! `isinf`/`isfinite` (of every numeric dtype, as PyTorch's), `multiply`/`divide`, `inv`
//! (`torch.linalg.inv`), `orgqr`, and the complex-number names of a real tensor: `angle` (0,
//! or π below zero), `conj`, `real` and `adjoint` (the matrix transpose).
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let a = tensor![[2.0f64, 0.0], [0.0, 4.0]];
//! assert_eq!(a.mm(&a.inv()).to_vec(), vec![1.0, 0.0, 0.0, 1.0]);
//! assert_eq!(tensor![-2i32, 0, 5].angle().to_vec(), vec![std::f32::consts::PI, 0.0, 0.0]);
//! assert_eq!(tensor![1i64, 2].isinf().to_vec(), vec![false, false]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::{Element, FloatElement, FloatOf, NumElement};
use crate::error::{Error, OrPanic, Result};
use crate::tensor::Tensor;

impl<T: Element, D: Backend> Tensor<T, D> {
    /// True where the element is NaN (PyTorch `isnan`): [`Tensor::try_is_nan`].
    ///
    /// # Errors
    /// As [`Tensor::try_is_nan`].
    pub fn try_isnan(&self) -> Result<Tensor<bool, D>> {
        self.try_is_nan()
    }

    /// `self` itself, a view: the conjugate of a real tensor (PyTorch `conj`, which returns
    /// the input for real dtypes).
    pub fn conj(&self) -> Self {
        self.clone()
    }

    /// `self` itself, a view: the real part of a real tensor (PyTorch `real`).
    pub fn real(&self) -> Self {
        self.clone()
    }

    /// The transpose of the last two dimensions, a view: the conjugate transpose of a real
    /// matrix (PyTorch `adjoint`, `mH`).
    ///
    /// # Errors
    /// `InvalidArgument` for a tensor of fewer than 2 dimensions.
    pub fn adjoint(&self) -> Result<Self> {
        if self.ndim() < 2 {
            return Err(Error::InvalidArgument {
                op: "adjoint",
                msg: format!("needs at least 2 dimensions, got shape {}", self.shape()),
            });
        }
        self.transpose(-2, -1)
    }

    crate::ops::plain_forms! {
        /// [`Tensor::try_isnan`], panicking with its error.
        isnan, try_isnan() -> Tensor<bool, D>;
    }
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// The product of two matrices `(n, k)` and `(k, m)`: `(n, m)` (PyTorch `mm`). Unlike
    /// [`Tensor::try_matmul`] it neither broadcasts nor takes vectors.
    ///
    /// # Errors
    /// `ShapeMismatch` naming both shapes unless both are 2-d with matching inner sizes.
    pub fn try_mm(&self, other: &Self) -> Result<Self> {
        let (a, b) = (self.dims(), other.dims());
        if a.len() != 2 || b.len() != 2 || a[1] != b[0] {
            return Err(Error::ShapeMismatch {
                op: "mm",
                lhs: self.shape().clone(),
                rhs: other.shape().clone(),
                msg: "mm needs matrices (n, k) and (k, m); use matmul to broadcast or for vectors"
                    .into(),
            });
        }
        self.try_matmul(other)
    }

    /// True where the element is ±inf (PyTorch `isinf`): false everywhere for integers.
    ///
    /// # Errors
    /// When the output cannot be allocated.
    pub fn try_isinf(&self) -> Result<Tensor<bool, D>> {
        // Integers cast to their float type are finite, so one path serves every dtype.
        crate::ops::converted::<T, FloatOf<T>, D>(self)?.try_is_inf()
    }

    /// True where the element is neither NaN nor ±inf (PyTorch `isfinite`).
    ///
    /// # Errors
    /// When the output cannot be allocated.
    pub fn try_isfinite(&self) -> Result<Tensor<bool, D>> {
        self.try_is_finite()
    }

    /// `self · other`, broadcast (PyTorch `multiply`): [`Tensor::try_mul`].
    ///
    /// # Errors
    /// As [`Tensor::try_mul`].
    pub fn try_multiply(&self, other: &Self) -> Result<Self> {
        self.try_mul(other)
    }

    /// `self / other`, broadcast, in the dtype (PyTorch `divide` with `rounding_mode=None`
    /// for floats; integers divide as [`Tensor::try_div`] does).
    ///
    /// # Errors
    /// As [`Tensor::try_div`].
    pub fn try_divide(&self, other: &Self) -> Result<Self> {
        self.try_div(other)
    }

    /// The inverse of each square matrix (PyTorch `linalg.inv`): [`Tensor::try_inverse`].
    ///
    /// # Errors
    /// As [`Tensor::try_inverse`].
    pub fn try_inv(&self) -> Result<Tensor<FloatOf<T>, D>> {
        self.try_inverse()
    }

    /// The argument of each element as a complex number (PyTorch `angle` of a real tensor):
    /// π below zero (-inf included), 0 at and above it (-0 included), NaN for NaN, in the
    /// float type; its gradient is zero, as PyTorch's.
    ///
    /// # Errors
    /// When the output cannot be allocated.
    pub fn try_angle(&self) -> Result<Tensor<FloatOf<T>, D>> {
        let x = crate::ops::converted::<T, FloatOf<T>, D>(self)?;
        let zero = x.try_zeros_like()?.detach();
        let below = x.try_lt(&zero)?;
        let pi = zero.try_add_scalar(FloatOf::<T>::from_f64(std::f64::consts::PI))?;
        let angle = Tensor::try_where(&below, &pi, &zero)?;
        Tensor::try_where(&x.try_is_nan()?, &x, &angle)
    }

    crate::ops::plain_forms! {
        /// [`Tensor::try_mm`], panicking with its error.
        mm, try_mm(other: &Self) -> Self;
        /// [`Tensor::try_isinf`], panicking with its error.
        isinf, try_isinf() -> Tensor<bool, D>;
        /// [`Tensor::try_isfinite`], panicking with its error.
        isfinite, try_isfinite() -> Tensor<bool, D>;
        /// [`Tensor::try_multiply`], panicking with its error.
        multiply, try_multiply(other: &Self) -> Self;
        /// [`Tensor::try_divide`], panicking with its error.
        divide, try_divide(other: &Self) -> Self;
        /// [`Tensor::try_inv`], panicking with its error.
        inv, try_inv() -> Tensor<FloatOf<T>, D>;
        /// [`Tensor::try_angle`], panicking with its error.
        angle, try_angle() -> Tensor<FloatOf<T>, D>;
    }
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// The first `k` columns of the orthogonal `Q` from Householder reflectors and their
    /// scales (PyTorch `orgqr`): [`Tensor::try_householder_product`].
    ///
    /// # Errors
    /// As [`Tensor::try_householder_product`].
    pub fn try_orgqr(&self, tau: &Self) -> Result<Self> {
        self.try_householder_product(tau)
    }

    crate::ops::plain_forms! {
        /// [`Tensor::try_orgqr`], panicking with its error.
        orgqr, try_orgqr(tau: &Self) -> Self;
    }
}
