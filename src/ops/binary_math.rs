//! Float binary functions with NumPy broadcasting: `atan2`, `hypot`, `copysign` (NumPy's and
//! PyTorch's names and IEEE 754 / C99 semantics). Integer and bool operands are converted to
//! their float type first, as `sin`'s are, so the result is a `Tensor<FloatOf<T>, D>`; each
//! kernel runs once per float dtype on every device (`kernels/binary.cu`).
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
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use super::binary::ops;
use super::device_ops::same_device;
use super::promote::converted;
use crate::autograd::{Op, record};
use crate::backend::Backend;
use crate::dtype::{FloatOf, NumElement};
use crate::error::{OrPanic, Result};
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
