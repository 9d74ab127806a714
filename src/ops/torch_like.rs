//! PyTorch's `*_like` and `new_*` constructors (a tensor shaped as, and on the device of,
//! another) and its older names for ops this crate has: `ger` (`outer`), `pinverse` (`pinv`),
//! `subtract` (`sub`), `chain_matmul` (`multi_dot`), `trapz` (`trapezoid`).
//!
//! ```
//! use typed_tensor::prelude::*;
//! let x = Tensor::<f32>::ones([2, 3])?;
//! typed_tensor::manual_seed(7);
//! let u = x.rand_like(); // uniform on [0, 1), x's shape and device
//! assert!(u.dims() == [2, 3] && u.to_vec().iter().all(|v| (0.0..1.0).contains(v)));
//! let d = Tensor::<i64>::zeros([4])?.randint_like(0, 3);
//! assert!(d.to_vec().iter().all(|v| (0..3).contains(v)));
//! let t = x.new_tensor(&[1.0, 2.0], [2])?; // x's dtype and device, these values
//! assert_eq!(t.ger(&t).to_vec(), vec![1.0, 2.0, 2.0, 4.0]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::device::Cpu;
use crate::dtype::{Element, FloatElement, FloatOf, NumElement};
use crate::error::{OrPanic, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;

impl<T: Element, D: Backend> Tensor<T, D> {
    /// A tensor of `shape` with this tensor's dtype and device. Its elements are zeros: this
    /// crate never hands out uninitialised memory (PyTorch `new_empty` leaves them undefined).
    ///
    /// # Errors
    /// `ShapeOverflow`, `OutOfMemory` or `Device` when the allocation fails.
    pub fn new_empty(&self, shape: impl Into<Shape>) -> Result<Self> {
        Self::zeros_on(shape, &self.device)
    }

    /// `values` as a tensor of `shape` with this tensor's dtype, on its device (PyTorch
    /// `new_tensor`: a copy, without a graph).
    ///
    /// # Errors
    /// `ShapeMismatch` when `values.len()` is not the shape's element count; `Device` when the
    /// upload fails.
    pub fn new_tensor(&self, values: &[T], shape: impl Into<Shape>) -> Result<Self> {
        D::from_host(&Tensor::<T, Cpu>::from_slice(values, shape)?, &self.device)
    }

    /// Zeros of this tensor's shape on its device (PyTorch `empty_like`; see
    /// [`Tensor::new_empty`]). Errors as [`Tensor::try_zeros_like`].
    pub fn try_empty_like(&self) -> Result<Self> {
        self.try_zeros_like()
    }

    /// [`Tensor::try_empty_like`], panicking with its error.
    ///
    /// # Panics
    /// When the allocation fails.
    #[track_caller]
    pub fn empty_like(&self) -> Self {
        self.try_empty_like().or_panic()
    }
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// Uniform samples on `[0, 1)` in this tensor's shape, dtype and device (PyTorch
    /// `rand_like`), from the global generator as [`Tensor::rand_on`].
    ///
    /// # Errors
    /// `OutOfMemory` or `Device` when the allocation fails.
    pub fn try_rand_like(&self) -> Result<Self> {
        Self::rand_on(self.shape().clone(), &self.device)
    }

    /// Standard-normal samples in this tensor's shape, dtype and device (PyTorch
    /// `randn_like`). Errors as [`Tensor::try_rand_like`].
    pub fn try_randn_like(&self) -> Result<Self> {
        Self::randn_on(self.shape().clone(), &self.device)
    }

    /// [`Tensor::try_rand_like`], panicking with its error.
    ///
    /// # Panics
    /// When the allocation fails.
    #[track_caller]
    pub fn rand_like(&self) -> Self {
        self.try_rand_like().or_panic()
    }

    /// [`Tensor::try_randn_like`], panicking with its error.
    ///
    /// # Panics
    /// When the allocation fails.
    #[track_caller]
    pub fn randn_like(&self) -> Self {
        self.try_randn_like().or_panic()
    }

    /// The integral by the trapezoidal rule (PyTorch's older name `trapz`;
    /// [`Tensor::try_trapezoid`]).
    ///
    /// # Errors
    /// As [`Tensor::try_trapezoid`].
    pub fn try_trapz(&self, dx: f64, axis: i64) -> Result<Self> {
        self.try_trapezoid(dx, axis)
    }

    /// [`Tensor::try_trapz`], panicking with its error.
    ///
    /// # Panics
    /// As [`Tensor::try_trapezoid`]'s errors.
    #[track_caller]
    pub fn trapz(&self, dx: f64, axis: i64) -> Self {
        self.try_trapz(dx, axis).or_panic()
    }
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// Integers drawn uniformly from `low..high` in this tensor's shape, dtype and device
    /// (PyTorch `randint_like`; [`Tensor::randint_on`]).
    ///
    /// # Errors
    /// As [`Tensor::randint_on`]: `InvalidArgument` for `low >= high` or bounds the dtype
    /// does not hold exactly; allocation failure.
    pub fn try_randint_like(&self, low: i64, high: i64) -> Result<Self> {
        Self::randint_on(low, high, self.shape().clone(), &self.device)
    }

    /// [`Tensor::try_randint_like`], panicking with its error.
    ///
    /// # Panics
    /// When `try_randint_like` returns an `Err`.
    #[track_caller]
    pub fn randint_like(&self, low: i64, high: i64) -> Self {
        self.try_randint_like(low, high).or_panic()
    }

    /// The outer product of two 1-d tensors (PyTorch's older name `ger`;
    /// [`Tensor::try_outer`]).
    ///
    /// # Errors
    /// As [`Tensor::try_outer`].
    pub fn try_ger(&self, other: &Self) -> Result<Self> {
        self.try_outer(other)
    }

    /// [`Tensor::try_ger`], panicking with its error.
    ///
    /// # Panics
    /// As [`Tensor::try_outer`]'s errors.
    #[track_caller]
    pub fn ger(&self, other: &Self) -> Self {
        self.try_ger(other).or_panic()
    }

    /// `self - other`, broadcast (PyTorch/NumPy `subtract`; [`Tensor::try_sub`]).
    ///
    /// # Errors
    /// As [`Tensor::try_sub`].
    pub fn try_subtract(&self, other: &Self) -> Result<Self> {
        self.try_sub(other)
    }

    /// [`Tensor::try_subtract`], panicking with its error.
    ///
    /// # Panics
    /// As [`Tensor::try_sub`]'s errors.
    #[track_caller]
    pub fn subtract(&self, other: &Self) -> Self {
        self.try_subtract(other).or_panic()
    }

    /// The product of a chain of matrices (PyTorch's older name `chain_matmul`;
    /// [`Tensor::try_multi_dot`]).
    ///
    /// # Errors
    /// As [`Tensor::try_multi_dot`].
    pub fn try_chain_matmul(tensors: &[&Self]) -> Result<Self> {
        Self::try_multi_dot(tensors)
    }

    /// [`Tensor::try_chain_matmul`], panicking with its error.
    ///
    /// # Panics
    /// As [`Tensor::try_multi_dot`]'s errors.
    #[track_caller]
    pub fn chain_matmul(tensors: &[&Self]) -> Self {
        Self::try_chain_matmul(tensors).or_panic()
    }

    /// The pseudo-inverse (PyTorch's older name `pinverse`; [`Tensor::try_pinv`]).
    ///
    /// # Errors
    /// As [`Tensor::try_pinv`].
    pub fn try_pinverse(&self) -> Result<Tensor<FloatOf<T>, D>> {
        self.try_pinv()
    }

    /// [`Tensor::try_pinverse`], panicking with its error.
    ///
    /// # Panics
    /// As [`Tensor::try_pinv`]'s errors.
    #[track_caller]
    pub fn pinverse(&self) -> Tensor<FloatOf<T>, D> {
        self.try_pinverse().or_panic()
    }
}
