//! Comparisons (returning `Tensor<bool, D>`), logical ops, NaN/inf tests, `is_close`, and
//! casts, once for every device. Broadcasting follows NumPy; comparisons with NaN are false
//! except `ne` (IEEE 754); truth values are NumPy's (non-zero is true, NaN is true).
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let x = tensor![1.0f32, f32::NAN, 3.0];
//! assert_eq!(x.gt_scalar(2.0).to_vec(), vec![false, false, true]); // NaN compares false
//! assert_eq!(x.is_nan().to_vec(), vec![false, true, false]);
//! let m = x.ge_scalar(1.0).logical_and(&x.lt_scalar(3.0));
//! assert_eq!(m.to_vec(), vec![true, false, false]);
//! let picked = Tensor::where_(&m, &x, &Tensor::scalar(0.0)); // NumPy's where
//! assert_eq!(picked.to_vec()[0], 1.0);
//! assert_eq!(tensor![3.9f32, -1.5].cast::<i32>().to_vec(), vec![3, -1]); // `as` semantics
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use super::device_ops::same_device;
use crate::backend::Backend;
use crate::dtype::{Element, FloatElement, NumElement};
use crate::error::{OrPanic, Result};
use crate::tensor::Tensor;

/// A comparison, defined once: its name (the CUDA kernel root) and the scalar predicate.
pub trait CompareOp: Send + Sync + 'static {
    /// The op's name.
    const NAME: &'static str;
    /// The predicate.
    fn apply<T: Element>(a: T, b: T) -> bool;
}

macro_rules! comparisons {
    ($($(#[$doc:meta])* $op:ident, $name:ident, $try_name:ident, $sname:ident, $try_sname:ident, |$a:ident, $b:ident| $body:expr;)*) => {
        /// Zero-sized comparison op types.
        pub mod compare_ops {
            use super::*;
            /// Every comparison's name, which is also its CUDA kernel root.
            pub const NAMES: &[&str] = &[$(stringify!($name)),*];
            $(
                #[doc = concat!("The `", stringify!($name), "` comparison.")]
                pub struct $op;
                impl CompareOp for $op {
                    const NAME: &'static str = stringify!($name);
                    #[inline(always)]
                    fn apply<T: Element>($a: T, $b: T) -> bool { $body }
                }
            )*
        }
        pub use compare_ops::NAMES;
        impl<T: Element, D: Backend> Tensor<T, D> {
    /// True when `other` has the same shape and every element equals (PyTorch `equal`,
    /// NumPy `array_equal`): NaN equals nothing, `-0.0 == 0.0`. Reads one flag back.
    ///
    /// # Errors
    /// `Device` across devices; allocation or transfer failure.
    pub fn try_equal(&self, other: &Self) -> Result<bool> {
        crate::ops::device_ops::same_device("equal", self, other)?;
        if self.shape() != other.shape() {
            return Ok(false);
        }
        self.try_eq(other)?.try_all(&[], false)?.try_item()
    }

    /// [`Tensor::try_equal`], panicking with its error.
    ///
    /// # Panics
    /// When [`Tensor::try_equal`] returns an `Err`.
    #[track_caller]
    pub fn equal(&self, other: &Self) -> bool {
        self.try_equal(other).or_panic()
    }
}

impl<T: Element, D: Backend> Tensor<T, D> {
            $(
                $(#[$doc])*
                ///
                /// # Errors
                /// `Broadcast` when the shapes do not broadcast, naming both; `Device` across
                /// devices.
                pub fn $try_name(&self, other: &Self) -> Result<Tensor<bool, D>> {
                    same_device(stringify!($name), self, other)?;
                    D::compare::<T, compare_ops::$op>(self, other)
                }
                #[doc = concat!("[`Tensor::", stringify!($try_name), "`], panicking with its error.")]
                ///
                /// # Panics
                #[doc = concat!("When [`Tensor::", stringify!($try_name), "`] returns an `Err`.")]
                #[track_caller]
                pub fn $name(&self, other: &Self) -> Tensor<bool, D> {
                    self.$try_name(other).or_panic()
                }
                #[doc = concat!("`", stringify!($name), "` against a scalar; `Err` only when the output cannot be allocated.")]
                pub fn $try_sname(&self, s: T) -> Result<Tensor<bool, D>> {
                    D::compare_scalar::<T, compare_ops::$op>(self, s)
                }
                #[doc = concat!("[`Tensor::", stringify!($try_sname), "`], panicking with its error.")]
                ///
                /// # Panics
                #[doc = concat!("When [`Tensor::", stringify!($try_sname), "`] returns an `Err`.")]
                #[track_caller]
                pub fn $sname(&self, s: T) -> Tensor<bool, D> {
                    self.$try_sname(s).or_panic()
                }
            )*
        }
    };
}

comparisons! {
    /// `a == b` element-wise.
    Eq, eq, try_eq, eq_scalar, try_eq_scalar, |a, b| a == b;
    /// `a != b` element-wise (true where either is NaN).
    Ne, ne, try_ne, ne_scalar, try_ne_scalar, |a, b| a != b;
    /// `a < b` element-wise.
    Lt, lt, try_lt, lt_scalar, try_lt_scalar, |a, b| a < b;
    /// `a <= b` element-wise.
    Le, le, try_le, le_scalar, try_le_scalar, |a, b| a <= b;
    /// `a > b` element-wise.
    Gt, gt, try_gt, gt_scalar, try_gt_scalar, |a, b| a > b;
    /// `a >= b` element-wise.
    Ge, ge, try_ge, ge_scalar, try_ge_scalar, |a, b| a >= b;
}

impl<T: Element, D: Backend> Tensor<T, D> {
    /// NumPy's truth value of every element: `x != 0` (NaN is true).
    fn truth(&self) -> Result<Tensor<bool, D>> {
        self.try_ne_scalar(T::ZERO)
    }

    /// Logical AND of the truth values (NumPy `logical_and`).
    ///
    /// # Errors
    /// `Broadcast` naming both shapes; `Device` across devices.
    pub fn try_logical_and(&self, other: &Self) -> Result<Tensor<bool, D>> {
        same_device("logical_and", self, other)?;
        let (a, b) = (self.truth()?, other.truth()?);
        Tensor::try_where(&a, &b, &a)
    }
    /// Logical OR of the truth values. Errors as [`Tensor::try_logical_and`].
    pub fn try_logical_or(&self, other: &Self) -> Result<Tensor<bool, D>> {
        same_device("logical_or", self, other)?;
        let (a, b) = (self.truth()?, other.truth()?);
        Tensor::try_where(&a, &a, &b)
    }
    /// Logical XOR of the truth values. Errors as [`Tensor::try_logical_and`].
    pub fn try_logical_xor(&self, other: &Self) -> Result<Tensor<bool, D>> {
        same_device("logical_xor", self, other)?;
        self.truth()?.try_ne(&other.truth()?)
    }
    /// Logical NOT of the truth values; `Err` only when the output cannot be allocated.
    pub fn try_logical_not(&self) -> Result<Tensor<bool, D>> {
        self.try_eq_scalar(T::ZERO)
    }
    /// True where the element is NaN (`x != x`; always false for integers); `Err` only when the
    /// output cannot be allocated.
    pub fn try_is_nan(&self) -> Result<Tensor<bool, D>> {
        D::compare::<T, compare_ops::Ne>(self, self)
    }

    /// Converts every element to `U` with Rust `as` semantics: float → int truncates toward
    /// zero and saturates, NaN → 0; int → int wraps; to bool is `x != 0`.
    ///
    /// # Errors
    /// `OutOfMemory`/`Device` when the output cannot be allocated or the kernel fails.
    pub fn try_cast<U: Element>(&self) -> Result<Tensor<U, D>> {
        let out = D::cast::<T, U>(self)?;
        // Between float types the gradient is cast back (PyTorch).
        let op = crate::autograd::Op::Cast(T::DTYPE);
        Ok(crate::autograd::record(out, op, &[self], &[]))
    }

    /// [`Tensor::try_cast`], panicking with its error.
    ///
    /// # Panics
    /// When `try_cast` returns an `Err`.
    #[track_caller]
    pub fn cast<U: Element>(&self) -> Tensor<U, D> {
        self.try_cast::<U>().or_panic()
    }

    plain_forms! {
        /// [`Tensor::try_logical_and`], panicking with its error.
        logical_and, try_logical_and(other: &Self) -> Tensor<bool, D>;
        /// [`Tensor::try_logical_or`], panicking with its error.
        logical_or, try_logical_or(other: &Self) -> Tensor<bool, D>;
        /// [`Tensor::try_logical_xor`], panicking with its error.
        logical_xor, try_logical_xor(other: &Self) -> Tensor<bool, D>;
        /// [`Tensor::try_logical_not`], panicking with its error.
        logical_not, try_logical_not() -> Tensor<bool, D>;
        /// [`Tensor::try_is_nan`], panicking with its error.
        is_nan, try_is_nan() -> Tensor<bool, D>;
    }
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// True where the element is neither NaN nor ±inf (`x - x == 0`; always true for
    /// integers); `Err` only when the output cannot be allocated.
    pub fn try_is_finite(&self) -> Result<Tensor<bool, D>> {
        self.try_sub(self)?.try_eq_scalar(T::ZERO)
    }

    plain_forms! {
        /// [`Tensor::try_is_finite`], panicking with its error.
        is_finite, try_is_finite() -> Tensor<bool, D>;
    }
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// True where the element is ±inf; `Err` only when the output cannot be allocated.
    pub fn try_is_inf(&self) -> Result<Tensor<bool, D>> {
        self.try_abs()?.try_eq_scalar(T::from_f64(f64::INFINITY))
    }

    /// `|a - b| <= atol + rtol * |b|` with `b` finite, or `a == b`, element-wise, computed in f64
    /// (NumPy `isclose`: NaN is never close, equal infinities are, and nothing finite is close
    /// to an infinity).
    ///
    /// # Errors
    /// `Broadcast` naming both shapes; `Device` across devices.
    pub fn try_is_close(&self, other: &Self, rtol: f64, atol: f64) -> Result<Tensor<bool, D>> {
        same_device("is_close", self, other)?;
        let (a, b) = (self.try_cast::<f64>()?, other.try_cast::<f64>()?);
        let bound = b.try_abs()?.try_mul_scalar(rtol)?.try_add_scalar(atol)?;
        a.try_sub(&b)?
            .try_abs()?
            .try_le(&bound)?
            .try_logical_and(&b.try_is_finite()?)?
            .try_logical_or(&a.try_eq(&b)?)
    }

    /// True when every pair is close (NumPy `allclose`). Errors as [`Tensor::try_is_close`].
    pub fn try_all_close(&self, other: &Self, rtol: f64, atol: f64) -> Result<bool> {
        self.try_is_close(other, rtol, atol)?
            .try_all(&[], false)?
            .try_item()
    }

    plain_forms! {
        /// [`Tensor::try_is_inf`], panicking with its error.
        is_inf, try_is_inf() -> Tensor<bool, D>;
        /// [`Tensor::try_is_close`], panicking with its error.
        is_close, try_is_close(other: &Self, rtol: f64, atol: f64) -> Tensor<bool, D>;
        /// [`Tensor::try_all_close`], panicking with its error.
        all_close, try_all_close(other: &Self, rtol: f64, atol: f64) -> bool;
    }
}
