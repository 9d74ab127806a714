//! Element-wise composites over every numeric dtype, under PyTorch's names: `clamp` (either
//! bound optional) with `clamp_min`/`clamp_max`, the NaN-ignoring `fmax`/`fmin` (NumPy's),
//! `heaviside`, `addcmul` and `signbit`. Each is written with other ops, so it runs on every
//! device and differentiates through them.
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let x = tensor![-2.0f32, 0.0, 3.0, f32::NAN];
//! assert_eq!(x.clamp(None, Some(1.0)).to_vec()[..3], [-2.0, 0.0, 1.0]);
//! assert_eq!(x.fmax(&tensor![0.0f32]).to_vec(), vec![0.0, 0.0, 3.0, 0.0]);
//! assert_eq!(x.heaviside(&tensor![0.5f32]).to_vec()[..3], [0.0, 0.5, 1.0]);
//! assert_eq!(tensor![-0.0f32, 0.0].signbit().to_vec(), vec![true, false]);
//! let y = tensor![1i32, 2].addcmul(&tensor![3i32, 4], &tensor![5i32, 6], 2);
//! assert_eq!(y.to_vec(), vec![31, 50]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::{Element, FloatOf, NumElement};
use crate::error::{Error, OrPanic, Result};
use crate::tensor::Tensor;

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// Clamps every element into `[min, max]`, either bound optional (PyTorch `clamp`;
    /// [`Tensor::try_clip`] with both). NaN elements stay NaN.
    ///
    /// # Errors
    /// `InvalidArgument` when `min > max` or both bounds are `None` (PyTorch's rule).
    pub fn try_clamp(&self, min: Option<T>, max: Option<T>) -> Result<Self> {
        match (min, max) {
            (Some(lo), Some(hi)) => self.try_clip(lo, hi),
            (Some(lo), None) => self.try_maximum_scalar(lo),
            (None, Some(hi)) => self.try_minimum_scalar(hi),
            (None, None) => Err(Error::InvalidArgument {
                op: "clamp",
                msg: "needs at least one of min and max".into(),
            }),
        }
    }

    /// `max(self, min)` element-wise (PyTorch `clamp_min`); NaN propagates.
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_clamp_min(&self, min: T) -> Result<Self> {
        self.try_maximum_scalar(min)
    }

    /// `min(self, max)` element-wise (PyTorch `clamp_max`); NaN propagates.
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_clamp_max(&self, max: T) -> Result<Self> {
        self.try_minimum_scalar(max)
    }

    /// The larger of the two, ignoring NaN: NaN only where both are (NumPy `fmax`, PyTorch
    /// `fmax`), with broadcasting. The gradient is `maximum`'s, and goes to the number where
    /// the other operand is NaN.
    ///
    /// # Errors
    /// `Broadcast` naming both shapes; `Device` across devices.
    pub fn try_fmax(&self, other: &Self) -> Result<Self> {
        self.nan_ignoring(other, "fmax", Self::try_maximum)
    }

    /// The smaller of the two, ignoring NaN (NumPy and PyTorch `fmin`); as
    /// [`Tensor::try_fmax`].
    ///
    /// # Errors
    /// As [`Tensor::try_fmax`].
    pub fn try_fmin(&self, other: &Self) -> Result<Self> {
        self.nan_ignoring(other, "fmin", Self::try_minimum)
    }

    fn nan_ignoring(
        &self,
        other: &Self,
        op: &'static str,
        f: fn(&Self, &Self) -> Result<Self>,
    ) -> Result<Self> {
        crate::shape::broadcast_shapes(op, self.shape(), other.shape())?;
        let m = f(self, other)?;
        if !const { T::DTYPE.is_float() } {
            return Ok(m);
        }
        // `self` where both are NaN, so that it gets the gradient there (PyTorch).
        let m = Self::try_where(&self.try_ne(self)?, other, &m)?;
        Self::try_where(&other.try_ne(other)?, self, &m)
    }

    /// The Heaviside step: 0 below zero, `values` at zero, 1 above, with broadcasting (NumPy
    /// and PyTorch `heaviside`). A NaN element gives NaN, as in NumPy (PyTorch gives 0). The
    /// gradient reaches `values` where `self` is 0, and is 0 for `self`.
    ///
    /// # Errors
    /// `Broadcast` naming both shapes; `Device` across devices.
    pub fn try_heaviside(&self, values: &Self) -> Result<Self> {
        crate::shape::broadcast_shapes("heaviside", self.shape(), values.shape())?;
        let zero = Self::scalar_on(T::ZERO, self.device_handle())?;
        let step = self.try_gt(&zero)?.try_cast::<T>()?;
        let out = Self::try_where(&self.try_eq(&zero)?, values, &step)?;
        if const { T::DTYPE.is_float() } {
            Self::try_where(&self.try_ne(self)?, self, &out)
        } else {
            Ok(out)
        }
    }

    /// `self + value · tensor1 · tensor2`, the three broadcast together (PyTorch `addcmul`).
    ///
    /// # Errors
    /// `Broadcast` when the shapes do not broadcast; `Device` across devices.
    pub fn try_addcmul(&self, tensor1: &Self, tensor2: &Self, value: T) -> Result<Self> {
        let shape = crate::shape::broadcast_shapes("addcmul", tensor1.shape(), tensor2.shape())?;
        crate::shape::broadcast_shapes("addcmul", self.shape(), &shape)?;
        let p = tensor1.try_mul(tensor2)?;
        let p = if value == T::ONE {
            p
        } else {
            p.try_mul_scalar(value)?
        };
        self.try_add(&p)
    }

    /// Whether the sign bit is set (NumPy and PyTorch `signbit`): true for negative numbers,
    /// `-0.0`, `-inf` and NaNs with the sign bit set; for integers `self < 0`.
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_signbit(&self) -> Result<Tensor<bool, D>> {
        let one = Self::scalar_on(T::ONE, self.device_handle())?;
        let signed = one.try_copysign(self)?;
        let zero = Tensor::scalar_on(<FloatOf<T> as Element>::ZERO, self.device_handle())?;
        signed.try_lt(&zero)
    }

    /// Where an element is `+inf` (NumPy and PyTorch `isposinf`); all false for integers.
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_isposinf(&self) -> Result<Tensor<bool, D>> {
        self.try_eq_scalar(T::from_f64(f64::INFINITY))?
            .try_logical_and(&Tensor::scalar_on(
                const { T::DTYPE.is_float() },
                self.device_handle(),
            )?)
    }

    /// Where an element is `-inf` (NumPy and PyTorch `isneginf`); all false for integers.
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_isneginf(&self) -> Result<Tensor<bool, D>> {
        self.try_eq_scalar(T::from_f64(f64::NEG_INFINITY))?
            .try_logical_and(&Tensor::scalar_on(
                const { T::DTYPE.is_float() },
                self.device_handle(),
            )?)
    }

    /// `|self - other|`'s `p`-norm over every element, as `FloatOf<T>` (PyTorch `dist`).
    ///
    /// # Errors
    /// `Broadcast` naming both shapes; `InvalidArgument` for a `p` that is not a norm order.
    pub fn try_dist(&self, other: &Self, p: f64) -> Result<Tensor<FloatOf<T>, D>> {
        crate::shape::broadcast_shapes("dist", self.shape(), other.shape())?;
        let d = if const { T::DTYPE.is_float() } {
            crate::ops::converted::<T, FloatOf<T>, D>(&self.try_sub(other)?)?
        } else {
            // Integer differences in the float type, so that they cannot wrap.
            self.try_cast::<FloatOf<T>>()?
                .try_sub(&other.try_cast::<FloatOf<T>>()?)?
        };
        d.try_norm(p, &[], false)
    }

    plain_forms! {
        /// [`Tensor::try_isposinf`], panicking with its error.
        isposinf, try_isposinf() -> Tensor<bool, D>;
        /// [`Tensor::try_isneginf`], panicking with its error.
        isneginf, try_isneginf() -> Tensor<bool, D>;
        /// [`Tensor::try_dist`], panicking with its error.
        dist, try_dist(other: &Self, p: f64) -> Tensor<FloatOf<T>, D>;
        /// [`Tensor::try_clamp`], panicking with its error.
        clamp, try_clamp(min: Option<T>, max: Option<T>) -> Self;
        /// [`Tensor::try_clamp_min`], panicking with its error.
        clamp_min, try_clamp_min(min: T) -> Self;
        /// [`Tensor::try_clamp_max`], panicking with its error.
        clamp_max, try_clamp_max(max: T) -> Self;
        /// [`Tensor::try_fmax`], panicking with its error.
        fmax, try_fmax(other: &Self) -> Self;
        /// [`Tensor::try_fmin`], panicking with its error.
        fmin, try_fmin(other: &Self) -> Self;
        /// [`Tensor::try_heaviside`], panicking with its error.
        heaviside, try_heaviside(values: &Self) -> Self;
        /// [`Tensor::try_addcmul`], panicking with its error.
        addcmul, try_addcmul(tensor1: &Self, tensor2: &Self, value: T) -> Self;
        /// [`Tensor::try_signbit`], panicking with its error.
        signbit, try_signbit() -> Tensor<bool, D>;
    }
}
