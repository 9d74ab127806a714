//! Comparisons (returning `Tensor<bool>`), logical ops, `where_`, NaN/inf tests, `is_close`,
//! and casts. Broadcasting follows NumPy; comparisons with NaN are false except `ne` (IEEE 754).

use super::{map_new, zip_new};
use crate::device::Cpu;
use crate::dtype::{Element, FloatElement, NumElement};
use crate::error::Result;
use crate::tensor::Tensor;

macro_rules! comparisons {
    ($($(#[$doc:meta])* $name:ident, $try_name:ident, $sname:ident, |$a:ident, $b:ident| $body:expr;)*) => {
        /// Every comparison's name, which is also its CUDA kernel root.
        pub const NAMES: &[&str] = &[$(stringify!($name)),*];
        impl<T: Element> Tensor<T, Cpu> {
            $(
                $(#[$doc])*
                ///
                /// # Errors
                /// `Broadcast` when the shapes do not broadcast, naming both.
                pub fn $try_name(&self, other: &Self) -> Result<Tensor<bool, Cpu>> {
                    zip_new(stringify!($name), self, other, |$a: T, $b: T| $body)
                }
                #[doc = concat!("[`Tensor::", stringify!($try_name), "`] that panics with the error's message.")]
                pub fn $name(&self, other: &Self) -> Tensor<bool, Cpu> {
                    self.$try_name(other).unwrap_or_else(|e| panic!("{e}"))
                }
                #[doc = concat!("`", stringify!($name), "` against a scalar.")]
                pub fn $sname(&self, s: T) -> Tensor<bool, Cpu> {
                    map_new(stringify!($sname), self, move |$a: T| { let $b = s; $body }).unwrap_or_else(|e| panic!("{e}"))
                }
            )*
        }
    };
}

comparisons! {
    /// `a == b` element-wise.
    eq, try_eq, eq_scalar, |a, b| a == b;
    /// `a != b` element-wise (true where either is NaN).
    ne, try_ne, ne_scalar, |a, b| a != b;
    /// `a < b` element-wise.
    lt, try_lt, lt_scalar, |a, b| a < b;
    /// `a <= b` element-wise.
    le, try_le, le_scalar, |a, b| a <= b;
    /// `a > b` element-wise.
    gt, try_gt, gt_scalar, |a, b| a > b;
    /// `a >= b` element-wise.
    ge, try_ge, ge_scalar, |a, b| a >= b;
}

fn truthy<T: Element>(x: T) -> bool {
    x != T::ZERO
}

impl<T: Element> Tensor<T, Cpu> {
    /// Logical AND of the truth values (non-zero is true; NaN is true, as NumPy).
    pub fn logical_and(&self, other: &Self) -> Result<Tensor<bool, Cpu>> {
        zip_new("logical_and", self, other, |a, b| truthy(a) && truthy(b))
    }
    /// Logical OR of the truth values.
    pub fn logical_or(&self, other: &Self) -> Result<Tensor<bool, Cpu>> {
        zip_new("logical_or", self, other, |a, b| truthy(a) || truthy(b))
    }
    /// Logical XOR of the truth values.
    pub fn logical_xor(&self, other: &Self) -> Result<Tensor<bool, Cpu>> {
        zip_new("logical_xor", self, other, |a, b| truthy(a) != truthy(b))
    }
    /// Logical NOT of the truth values.
    pub fn logical_not(&self) -> Tensor<bool, Cpu> {
        self.map(|a| !truthy(a))
    }
    /// True where the element is NaN (always false for integers).
    pub fn is_nan(&self) -> Tensor<bool, Cpu> {
        self.map(|a| a.is_nan())
    }

    /// Converts every element to `U` with Rust `as` semantics: float → int truncates toward
    /// zero and saturates, NaN → 0; int → int wraps; to bool is `x != 0`.
    pub fn cast<U: Element>(&self) -> Tensor<U, Cpu> {
        self.map(|x| x.cast::<U>())
    }
}

impl<T: FloatElement> Tensor<T, Cpu> {
    /// True where the element is ±inf.
    pub fn is_inf(&self) -> Tensor<bool, Cpu> {
        self.map(|a| a.is_inf())
    }

    /// `|a - b| <= atol + rtol * |b|` element-wise (NumPy `isclose`, NaN never close),
    /// computed in f64.
    pub fn is_close(&self, other: &Self, rtol: f64, atol: f64) -> Result<Tensor<bool, Cpu>> {
        zip_new("is_close", self, other, move |a: T, b: T| {
            let (a, b) = (a.to_f64(), b.to_f64());
            a == b || (a - b).abs() <= atol + rtol * b.abs()
        })
    }

    /// True when every pair [`Tensor::is_close`] (NumPy `allclose`).
    pub fn all_close(&self, other: &Self, rtol: f64, atol: f64) -> Result<bool> {
        Ok(self
            .is_close(other, rtol, atol)?
            .to_vec()
            .iter()
            .all(|&c| c))
    }
}

impl<T: NumElement> Tensor<T, Cpu> {
    /// Integer tensors are never inf; kept for symmetry with the float form.
    pub fn is_finite(&self) -> Tensor<bool, Cpu> {
        self.map(|a| a.to_f64().is_finite())
    }
}
