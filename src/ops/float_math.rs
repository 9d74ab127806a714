//! Float functions with NumPy broadcasting: `atan2`, `hypot`, `copysign` (kernels of their
//! own, in `kernels/binary.cu`; NumPy's and PyTorch's names, IEEE 754 / C99 semantics) and
//! `xlogy`, `logit`, `rsqrt` (composed of other ops, as PyTorch defines them). Integer and bool
//! operands of the first three are converted to their float type first, as `sin`'s are, so the
//! result is a `Tensor<FloatOf<T>, D>`.
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let y = tensor![1.0f64, -1.0, 0.0];
//! let x = tensor![-1.0f64, -1.0, -2.0];
//! let angle = y.atan2(&x); // the quadrant from both signs: [3π/4, -3π/4, π]
//! assert!((angle.to_vec()[0] - 3.0 * std::f64::consts::FRAC_PI_4).abs() < 1e-15);
//! assert_eq!(tensor![3i32, 5].hypot(&tensor![4i32, 12]).to_vec(), vec![5.0f32, 13.0]);
//! assert_eq!(tensor![2.0f32, -3.0].copysign(&tensor![-0.0f32, 1.0]).to_vec(), vec![-2.0, 3.0]);
//! assert_eq!(tensor![0.0f64, 2.0].xlogy(&tensor![0.0f64, 1.0]).to_vec(), vec![0.0, 0.0]);
//! assert_eq!(tensor![0.5f32].logit(None).to_vec(), vec![0.0]);
//! assert_eq!(tensor![4.0f32].rsqrt().to_vec(), vec![0.5]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use super::binary::ops;
use super::device_ops::same_device;
use super::promote::converted;
use crate::autograd::{Op, record};
use crate::backend::Backend;
use crate::dtype::{FloatElement, FloatOf, NumElement};
use crate::error::{Error, OrPanic, Result};
use crate::tensor::Tensor;

macro_rules! float_binary {
    ($($op:ident: $name:ident, $try_name:ident, $what:literal;)*) => {
        impl<T: NumElement, D: Backend> Tensor<T, D> {
            $(
                #[doc = concat!($what, ", element-wise with NumPy broadcasting, in `FloatOf<T>` (integers are converted first).")]
                ///
                /// # Errors
                /// `Broadcast` naming both shapes; `Device` when the operands are on different
                /// devices; allocation failure.
                pub fn $try_name(&self, other: &Self) -> Result<Tensor<FloatOf<T>, D>> {
                    same_device(stringify!($name), self, other)?;
                    let a = converted::<T, FloatOf<T>, D>(self)?;
                    let b = converted::<T, FloatOf<T>, D>(other)?;
                    let out = D::binary::<FloatOf<T>, ops::$op>(&a, &b)?;
                    Ok(record(out, Op::Binary(stringify!($name)), &[&a, &b], &[&a, &b]))
                }
                #[doc = concat!("[`Tensor::", stringify!($try_name), "`], panicking with its error.")]
                ///
                /// # Panics
                #[doc = concat!("When [`Tensor::", stringify!($try_name), "`] returns an `Err`.")]
                #[track_caller]
                pub fn $name(&self, other: &Self) -> Tensor<FloatOf<T>, D> {
                    self.$try_name(other).or_panic()
                }
            )*
        }
    };
}

float_binary! {
    Atan2: atan2, try_atan2, "The angle of the point `(other, self)` in radians, in `[-π, π]` (`atan2(y, x)` with `self` as `y`; C99's signed zeros and infinities)";
    Hypot: hypot, try_hypot, "`sqrt(self² + other²)` without intermediate overflow or underflow (C99 `hypot`: infinite if either is, even with a NaN)";
    Copysign: copysign, try_copysign, "The magnitude of `self` with the sign bit of `other` (IEEE 754 `copySign`: `-0.0` and NaN signs count)";
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// `self · log(other)`, and 0 where `self` is 0 unless `other` is NaN (PyTorch `xlogy`,
    /// SciPy `special.xlogy`), with broadcasting. Gradients: `log(other)` (0 where `self` is
    /// 0) and `self / other`.
    ///
    /// # Errors
    /// `Broadcast` naming both shapes; `Device` across devices.
    pub fn try_xlogy(&self, other: &Self) -> Result<Self> {
        crate::shape::broadcast_shapes("xlogy", self.shape(), other.shape())?;
        let zero = Self::scalar_on(T::ZERO, self.device_handle())?;
        let one = Self::scalar_on(T::ONE, self.device_handle())?;
        let skip = self
            .try_eq(&zero)?
            .try_logical_and(&other.try_ne(other)?.try_logical_not()?)?;
        // The log of 1 where the result is 0, so that no branch holds -inf or NaN (whose
        // gradient times 0 would be NaN).
        let y = Self::try_where(&skip, &one, other)?;
        Self::try_where(&skip, &zero, &self.try_mul(&y.try_log()?)?)
    }

    /// `log(p / (1 - p))` (PyTorch `logit`), with `p` clamped to `[eps, 1 - eps]` first when
    /// `eps` is given (the gradient is then 0 outside that interval).
    ///
    /// # Errors
    /// `InvalidArgument` for an `eps` outside `[0, 0.5]`.
    pub fn try_logit(&self, eps: Option<f64>) -> Result<Self> {
        let p = match eps {
            Some(e) if !(0.0..=0.5).contains(&e) => {
                return Err(Error::InvalidArgument {
                    op: "logit",
                    msg: format!("eps = {e} must lie in [0, 0.5]"),
                });
            }
            Some(e) => self.try_clip(T::from_f64(e), T::from_f64(1.0 - e))?,
            None => self.clone(),
        };
        p.try_div(&p.try_rsub_scalar(T::ONE)?)?.try_log()
    }

    /// `1 / sqrt(self)` (PyTorch `rsqrt`): `inf` at 0, NaN below.
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_rsqrt(&self) -> Result<Self> {
        self.try_sqrt()?.try_reciprocal()
    }

    plain_forms! {
        /// [`Tensor::try_xlogy`], panicking with its error.
        xlogy, try_xlogy(other: &Self) -> Self;
        /// [`Tensor::try_logit`], panicking with its error.
        logit, try_logit(eps: Option<f64>) -> Self;
        /// [`Tensor::try_rsqrt`], panicking with its error.
        rsqrt, try_rsqrt() -> Self;
    }
}
