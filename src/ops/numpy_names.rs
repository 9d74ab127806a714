//! NumPy's names for ops this crate has under PyTorch's (or C's) names, each a `try_` form and
//! a plain form calling the op it names, so NumPy code ports word for word; also NumPy 2's
//! `unique_values`/`unique_counts`/`unique_inverse` and `bitwise_count`.
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let x = tensor![0.0f64, 0.5, 1.0];
//! assert_eq!(x.arccos().to_vec(), x.acos().to_vec());
//! assert_eq!(tensor![[1i32, 2], [3, 4]].permute_dims(&[1, 0])?.to_vec(), vec![1, 3, 2, 4]);
//! assert_eq!(tensor![1i32, 5].greater(&tensor![2i32, 2]).to_vec(), vec![false, true]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::{Element, FloatElement, FloatOf, IntElement, NumElement};
use crate::error::{OrPanic, Result};
use crate::tensor::Tensor;

/// `$(#[doc] name, try_name => target(args) -> Out;)*`: the `try_` form calls `try_target`,
/// the plain form panics with its error.
macro_rules! numpy_names {
    ($($numpy:literal $name:ident, $try_name:ident => $target:ident($($arg:ident: $ty:ty),*) -> $out:ty;)*) => {$(
        #[doc = concat!("NumPy's `", $numpy, "`: [`Tensor::", stringify!($target), "`].")]
        ///
        /// # Errors
        #[doc = concat!("As [`Tensor::", stringify!($target), "`].")]
        pub fn $try_name(&self, $($arg: $ty),*) -> Result<$out> {
            self.$target($($arg),*)
        }
        #[doc = concat!("[`Tensor::", stringify!($try_name), "`], panicking with its error.")]
        ///
        /// # Panics
        #[doc = concat!("When [`Tensor::", stringify!($target), "`] returns an `Err`.")]
        #[track_caller]
        pub fn $name(&self, $($arg: $ty),*) -> $out {
            self.$target($($arg),*).or_panic()
        }
    )*};
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    numpy_names! {
        "arccos" arccos, try_arccos => try_acos() -> Tensor<FloatOf<T>, D>;
        "arcsin" arcsin, try_arcsin => try_asin() -> Tensor<FloatOf<T>, D>;
        "arctan" arctan, try_arctan => try_atan() -> Tensor<FloatOf<T>, D>;
        "arccosh" arccosh, try_arccosh => try_acosh() -> Tensor<FloatOf<T>, D>;
        "arcsinh" arcsinh, try_arcsinh => try_asinh() -> Tensor<FloatOf<T>, D>;
        "arctanh" arctanh, try_arctanh => try_atanh() -> Tensor<FloatOf<T>, D>;
        "arctan2" arctan2, try_arctan2 => try_atan2(other: &Self) -> Tensor<FloatOf<T>, D>;
    }
}

impl<T: Element, D: Backend> Tensor<T, D> {
    numpy_names! {
        "greater" greater, try_greater => try_gt(other: &Self) -> Tensor<bool, D>;
        "greater_equal" greater_equal, try_greater_equal => try_ge(other: &Self) -> Tensor<bool, D>;
        "less" less, try_less => try_lt(other: &Self) -> Tensor<bool, D>;
        "less_equal" less_equal, try_less_equal => try_le(other: &Self) -> Tensor<bool, D>;
        "not_equal" not_equal, try_not_equal => try_ne(other: &Self) -> Tensor<bool, D>;
        "unstack" unstack, try_unstack => try_unbind(axis: i64) -> Vec<Self>;
        "array_split" array_split, try_array_split => try_tensor_split(sections: usize, axis: i64) -> Vec<Self>;
        "take_along_axis" take_along_axis, try_take_along_axis => try_take_along_dim(indices: &Tensor<i64, D>, axis: Option<i64>) -> Self;
    }

    /// NumPy's `unique_values`: the sorted distinct values of [`Tensor::try_unique`].
    ///
    /// # Errors
    /// As [`Tensor::try_unique`].
    pub fn try_unique_values(&self) -> Result<Self> {
        Ok(self.try_unique()?.0)
    }

    /// NumPy's `unique_counts`: the sorted distinct values and how often each occurs.
    ///
    /// # Errors
    /// As [`Tensor::try_unique`].
    pub fn try_unique_counts(&self) -> Result<(Self, Tensor<i64, D>)> {
        let (values, _, counts) = self.try_unique()?;
        Ok((values, counts))
    }

    /// NumPy's `unique_inverse`: the sorted distinct values and each element's position among
    /// them, in `self`'s shape.
    ///
    /// # Errors
    /// As [`Tensor::try_unique`].
    pub fn try_unique_inverse(&self) -> Result<(Self, Tensor<i64, D>)> {
        let (values, inverse, _) = self.try_unique()?;
        Ok((values, inverse))
    }

    /// NumPy's `permute_dims` (the array API's `transpose`): [`Tensor::permute`], a view.
    ///
    /// # Errors
    /// As [`Tensor::permute`].
    pub fn permute_dims(&self, axes: &[i64]) -> Result<Self> {
        self.permute(axes)
    }
}

impl<T: IntElement, D: Backend> Tensor<T, D> {
    /// The number of 1 bits in each element's absolute value (NumPy `bitwise_count`), as
    /// `u8`: a SWAR popcount of the value widened to i64 (the wrapped `|i64::MIN|` has its one
    /// set bit, as `2^63` does).
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_bitwise_count(&self) -> Result<Tensor<u8, D>> {
        let v = self.try_cast::<i64>()?.try_abs()?;
        let pairs = v
            .try_bitwise_right_shift_scalar(1)?
            .try_bitwise_and_scalar(0x5555_5555_5555_5555)?;
        let v = v.try_sub(&pairs)?;
        let nibbles = |t: &Tensor<i64, D>| t.try_bitwise_and_scalar(0x3333_3333_3333_3333);
        let v = nibbles(&v)?.try_add(&nibbles(&v.try_bitwise_right_shift_scalar(2)?)?)?;
        let v = v
            .try_add(&v.try_bitwise_right_shift_scalar(4)?)?
            .try_bitwise_and_scalar(0x0f0f_0f0f_0f0f_0f0f)?;
        // The byte counts summed into the top byte (the product wraps).
        v.try_mul_scalar(0x0101_0101_0101_0101)?
            .try_bitwise_right_shift_scalar(56)?
            .try_cast::<u8>()
    }

    /// [`Tensor::try_bitwise_count`], panicking with its error.
    ///
    /// # Panics
    /// When `try_bitwise_count` returns an `Err`.
    #[track_caller]
    pub fn bitwise_count(&self) -> Tensor<u8, D> {
        self.try_bitwise_count().or_panic()
    }

    numpy_names! {
        "invert" invert, try_invert => try_bitwise_not() -> Self;
        "bitwise_invert" bitwise_invert, try_bitwise_invert => try_bitwise_not() -> Self;
        "left_shift" left_shift, try_left_shift => try_bitwise_left_shift(other: &Self) -> Self;
        "right_shift" right_shift, try_right_shift => try_bitwise_right_shift(other: &Self) -> Self;
    }
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    numpy_names! {
        "isclose" isclose, try_isclose => try_is_close(other: &Self, rtol: f64, atol: f64) -> Tensor<bool, D>;
    }
}
