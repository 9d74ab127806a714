//! The sealed `Element` trait and the capability split (`NumElement`, `FloatElement`,
//! `IntElement`) that ops are bounded on.

use super::Dtype;
use half::{bf16, f16};
use std::fmt::Debug;

mod sealed {
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be a tensor element: `Element` is sealed",
        note = "the element types are fixed by typed-tensor (f32, f64, f16, bf16, i16, i32, i64, u8, bool) because every CPU and CUDA kernel is instantiated for exactly those; store your data as one of them"
    )]
    pub trait Sealed {}
}

/// A type that can be stored in a tensor: `f32`, `f64`, `f16`, `bf16`, `i16`, `i32`, `i64`,
/// `u8`, `bool`. Sealed: the set is fixed by this crate, because every kernel is instantiated
/// for exactly these types.
///
/// Each element knows its runtime tag ([`Dtype`]), its CUDA type name and kernel suffix, its
/// promotion targets (`Float`, `Sum`, `Square`: see [`crate::dtype::FloatOf`]) and its
/// conversions to and from `f64`/`i64` with Rust `as` semantics (float → int truncates toward
/// zero and saturates, NaN → 0; int → int wraps).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tensor element type",
    label = "`{Self}` cannot be stored in a `Tensor`",
    note = "tensor elements are f32, f64, half::f16, half::bf16, i16, i32, i64, u8 and bool; convert your data to one of them first"
)]
pub trait Element:
    sealed::Sealed
    + Copy
    + Send
    + Sync
    + 'static
    + Debug
    + Default
    + PartialEq
    + PartialOrd
    + bytemuck::Zeroable
    + bytemuck::NoUninit
{
    /// The runtime tag.
    const DTYPE: Dtype;
    /// The type name used in `kernels/*.cu`.
    const CUDA_TYPE: &'static str;
    /// The suffix of this type's kernel symbols (`sin_f32`).
    const KERNEL_SUFFIX: &'static str;
    /// Size in bytes.
    const SIZE: usize = std::mem::size_of::<Self>();
    /// Zero (false).
    const ZERO: Self;
    /// One (true).
    const ONE: Self;
    /// Result type of float-valued ops ([`crate::dtype::FloatOf`]).
    type Float: FloatElement;
    /// Result type of `sum`/`product` ([`crate::dtype::SumOf`]).
    type Sum: NumElement;
    /// Result type of `square` ([`crate::dtype::SquareOf`]).
    type Square: NumElement;

    /// The value as `f64` (exact for every type but `i64` beyond 2^53).
    fn to_f64(self) -> f64;
    /// The value as `i64` (floats truncate toward zero and saturate, NaN → 0).
    fn to_i64(self) -> i64;
    /// From `f64` with `as` semantics (rounding to nearest for floats).
    fn from_f64(v: f64) -> Self;
    /// From `i64` with `as` semantics (wrapping for narrower integers).
    fn from_i64(v: i64) -> Self;
    /// Promotion to this type's float type.
    fn to_float(self) -> Self::Float;
    /// Promotion to the `sum` type.
    fn to_sum(self) -> Self::Sum;
    /// Promotion to the `square` type.
    fn to_square(self) -> Self::Square;
    /// True for NaN (always false for integers and bool).
    fn is_nan(self) -> bool;

    /// Conversion to any element type, as Rust's `as` would do it.
    #[inline]
    fn cast<U: Element>(self) -> U {
        if Self::DTYPE.is_float() {
            U::from_f64(self.to_f64())
        } else {
            U::from_i64(self.to_i64())
        }
    }
}

/// The numeric element types (every element but `bool`): arithmetic is defined on them.
///
/// Integers wrap on overflow (two's complement, as NumPy and PyTorch); 16-bit floats compute in
/// `f32` and round once. Division-like methods return `None` for an integer division by zero.
#[diagnostic::on_unimplemented(
    message = "arithmetic needs a numeric tensor, and `{Self}` is not numeric",
    label = "no arithmetic on `{Self}` elements",
    note = "use the logical ops (`logical_and`, `logical_or`, ...) on bool tensors, or `cast::<f32>()` first"
)]
pub trait NumElement: Element {
    /// `a + b`.
    fn add(self, o: Self) -> Self;
    /// `a - b`.
    fn sub(self, o: Self) -> Self;
    /// `a * b`.
    fn mul(self, o: Self) -> Self;
    /// `a / b`; integers truncate toward zero; `None` on integer division by zero.
    fn div(self, o: Self) -> Option<Self>;
    /// `floor(a / b)` (NumPy `floor_divide`).
    fn floor_div(self, o: Self) -> Option<Self>;
    /// Floor modulo, the sign of the divisor (NumPy `remainder`, Python `%`).
    fn rem(self, o: Self) -> Option<Self>;
    /// Truncated remainder, the sign of the dividend (C `fmod`, PyTorch `fmod`); `None` for
    /// an integer zero divisor.
    fn fmod(self, o: Self) -> Option<Self>;
    /// `-a`.
    fn neg(self) -> Self;
    /// `|a|`.
    fn abs(self) -> Self;
    /// -1, 0 or 1 (NaN stays NaN).
    fn sign(self) -> Self;
    /// The larger; NaN if either is NaN (NumPy `maximum`).
    fn max_of(self, o: Self) -> Self;
    /// The smaller; NaN if either is NaN (NumPy `minimum`).
    fn min_of(self, o: Self) -> Self;
    /// `a^e` for a non-negative integer exponent.
    fn powi(self, e: u32) -> Self;
    /// `a^b` element-wise; `None` for a negative integer exponent on integers.
    fn pow(self, e: Self) -> Option<Self>;
    /// Round toward -inf (identity for integers).
    fn floor(self) -> Self;
    /// Round toward +inf (identity for integers).
    fn ceil(self) -> Self;
    /// Round half to even (NumPy `round`; identity for integers).
    fn round(self) -> Self;
    /// Round toward zero (identity for integers).
    fn trunc(self) -> Self;
}

/// The floating-point element types: `f32`, `f64`, `f16`, `bf16`. Float-valued in-place ops
/// (`sin_`, `sqrt_`, `exp_`) and NaN-aware reductions exist only for these.
#[diagnostic::on_unimplemented(
    message = "this operation needs a float tensor, and `{Self}` is not a float type",
    label = "`{Self}` elements are not floating-point",
    note = "in-place float ops (`sin_`, `sqrt_`, ...), `nan*` reductions, `rand`/`randn` and gradients (`set_requires_grad`, `backward`) exist only for f32, f64, f16 and bf16; use the out-of-place form (`sin()` returns a float tensor) or `cast::<f32>()` first"
)]
pub trait FloatElement: NumElement + Element<Float = Self, Sum = Self, Square = Self> {
    /// The type arithmetic is done in: `f32` for `f16`, `bf16`, `f32`; `f64` for `f64`.
    type Acc: FloatElement + num_traits::Float + Send + Sync + Debug + Default + 'static;
    /// Widen to the compute type.
    fn to_acc(self) -> Self::Acc;
    /// Round from the compute type.
    fn from_acc(v: Self::Acc) -> Self;
    /// True for ±inf.
    fn is_inf(self) -> bool;
}

/// The integer element types: `i16`, `i32`, `i64`, `u8`.
pub trait IntElement: NumElement {}

macro_rules! common {
    ($t:ty, $dt:ident, $cu:literal, $sfx:literal, $float:ty, $sum:ty, $sq:ty, $zero:expr, $one:expr) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: Dtype = Dtype::$dt;
            const CUDA_TYPE: &'static str = $cu;
            const KERNEL_SUFFIX: &'static str = $sfx;
            const ZERO: Self = $zero;
            const ONE: Self = $one;
            type Float = $float;
            type Sum = $sum;
            type Square = $sq;
            #[inline]
            fn to_f64(self) -> f64 {
                num_traits::AsPrimitive::<f64>::as_(self)
            }
            #[inline]
            fn to_i64(self) -> i64 {
                num_traits::AsPrimitive::<i64>::as_(self)
            }
            #[inline]
            fn from_f64(v: f64) -> Self {
                <$t as super::round::RoundFromF64>::round_from_f64(v)
            }
            #[inline]
            fn from_i64(v: i64) -> Self {
                num_traits::AsPrimitive::<$t>::as_(v)
            }
            #[inline]
            fn to_float(self) -> $float {
                num_traits::AsPrimitive::<$float>::as_(self)
            }
            #[inline]
            fn to_sum(self) -> $sum {
                num_traits::AsPrimitive::<$sum>::as_(self)
            }
            #[inline]
            fn to_square(self) -> $sq {
                num_traits::AsPrimitive::<$sq>::as_(self)
            }
            #[inline]
            #[allow(clippy::eq_op)]
            fn is_nan(self) -> bool {
                self != self
            }
        }
    };
}

common!(f32, Float32, "float", "f32", f32, f32, f32, 0.0, 1.0);
common!(f64, Float64, "double", "f64", f64, f64, f64, 0.0, 1.0);
common!(
    f16,
    Float16,
    "f16_t",
    "f16",
    f16,
    f16,
    f16,
    f16::ZERO,
    f16::ONE
);
common!(
    bf16,
    Bfloat16,
    "bf16_t",
    "bf16",
    bf16,
    bf16,
    bf16,
    bf16::ZERO,
    bf16::ONE
);
common!(i16, Int16, "short", "i16", f32, i64, f64, 0, 1);
common!(i32, Int32, "int", "i32", f32, i64, f64, 0, 1);
common!(i64, Int64, "long long", "i64", f64, i64, f64, 0, 1);
common!(u8, UInt8, "unsigned char", "u8", f32, i64, f64, 0, 1);

impl sealed::Sealed for bool {}
impl Element for bool {
    const DTYPE: Dtype = Dtype::Bool;
    const CUDA_TYPE: &'static str = "bool";
    const KERNEL_SUFFIX: &'static str = "bool";
    const ZERO: Self = false;
    const ONE: Self = true;
    type Float = f32;
    type Sum = i64;
    type Square = f64;
    fn to_f64(self) -> f64 {
        self as u8 as f64
    }
    fn to_i64(self) -> i64 {
        self as i64
    }
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    fn from_i64(v: i64) -> Self {
        v != 0
    }
    fn to_float(self) -> f32 {
        self as u8 as f32
    }
    fn to_sum(self) -> i64 {
        self as i64
    }
    fn to_square(self) -> f64 {
        self as u8 as f64
    }
    fn is_nan(self) -> bool {
        false
    }
}

macro_rules! float_num {
    ($t:ty, $acc:ty, $to:expr, $from:expr) => {
        impl NumElement for $t {
            #[inline]
            fn add(self, o: Self) -> Self {
                $from($to(self) + $to(o))
            }
            #[inline]
            fn sub(self, o: Self) -> Self {
                $from($to(self) - $to(o))
            }
            #[inline]
            fn mul(self, o: Self) -> Self {
                $from($to(self) * $to(o))
            }
            #[inline]
            fn div(self, o: Self) -> Option<Self> {
                Some($from($to(self) / $to(o)))
            }
            #[inline]
            fn floor_div(self, o: Self) -> Option<Self> {
                Some($from(super::round::floor_div($to(self), $to(o))))
            }
            #[inline]
            fn fmod(self, o: Self) -> Option<Self> {
                Some($from($to(self) % $to(o)))
            }
            #[inline]
            fn rem(self, o: Self) -> Option<Self> {
                let (a, b): ($acc, $acc) = ($to(self), $to(o));
                let mut r = a % b;
                if r != 0.0 && ((r < 0.0) != (b < 0.0)) {
                    r += b;
                }
                Some($from(r))
            }
            #[inline]
            fn neg(self) -> Self {
                -self
            }
            #[inline]
            fn abs(self) -> Self {
                $from($to(self).abs())
            }
            #[inline]
            fn sign(self) -> Self {
                let x: $acc = $to(self);
                $from(if x > 0.0 {
                    1.0
                } else if x < 0.0 {
                    -1.0
                } else {
                    x
                })
            }
            #[inline]
            fn max_of(self, o: Self) -> Self {
                if self.is_nan() || o.is_nan() {
                    $from(<$acc>::NAN)
                } else if self >= o {
                    self
                } else {
                    o
                }
            }
            #[inline]
            fn min_of(self, o: Self) -> Self {
                if self.is_nan() || o.is_nan() {
                    $from(<$acc>::NAN)
                } else if self <= o {
                    self
                } else {
                    o
                }
            }
            #[inline]
            fn powi(self, e: u32) -> Self {
                $from($to(self).powi(e as i32))
            }
            #[inline]
            fn pow(self, e: Self) -> Option<Self> {
                Some($from($to(self).powf($to(e))))
            }
            #[inline]
            fn floor(self) -> Self {
                $from($to(self).floor())
            }
            #[inline]
            fn ceil(self) -> Self {
                $from($to(self).ceil())
            }
            #[inline]
            fn round(self) -> Self {
                $from($to(self).round_ties_even())
            }
            #[inline]
            fn trunc(self) -> Self {
                $from($to(self).trunc())
            }
        }
        impl FloatElement for $t {
            type Acc = $acc;
            #[inline]
            fn to_acc(self) -> $acc {
                $to(self)
            }
            #[inline]
            fn from_acc(v: $acc) -> Self {
                $from(v)
            }
            #[inline]
            fn is_inf(self) -> bool {
                $to(self).is_infinite()
            }
        }
    };
}

float_num!(f32, f32, |x: f32| x, |x: f32| x);
float_num!(f64, f64, |x: f64| x, |x: f64| x);
float_num!(f16, f32, f16::to_f32, f16::from_f32);
float_num!(bf16, f32, bf16::to_f32, bf16::from_f32);

macro_rules! int_num {
    ($t:ty) => {
        impl NumElement for $t {
            #[inline]
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            #[inline]
            fn sub(self, o: Self) -> Self {
                self.wrapping_sub(o)
            }
            #[inline]
            fn mul(self, o: Self) -> Self {
                self.wrapping_mul(o)
            }
            #[inline]
            fn div(self, o: Self) -> Option<Self> {
                (o != 0).then(|| self.wrapping_div(o))
            }
            #[inline]
            fn fmod(self, o: Self) -> Option<Self> {
                (o != 0).then(|| self.wrapping_rem(o))
            }
            #[inline]
            fn floor_div(self, o: Self) -> Option<Self> {
                let q = self.div(o)?;
                let r = self.wrapping_rem(o);
                #[allow(unused_comparisons)]
                let adjust = r != 0 && ((r < 0) != (o < 0));
                Some(if adjust { q.wrapping_sub(1) } else { q })
            }
            #[inline]
            fn rem(self, o: Self) -> Option<Self> {
                if o == 0 {
                    return None;
                }
                let r = self.wrapping_rem(o);
                #[allow(unused_comparisons)]
                let adjust = r != 0 && ((r < 0) != (o < 0));
                Some(if adjust { r.wrapping_add(o) } else { r })
            }
            #[inline]
            fn neg(self) -> Self {
                (0 as $t).wrapping_sub(self)
            }
            #[inline]
            #[allow(unused_comparisons)]
            fn abs(self) -> Self {
                if self < 0 { self.neg() } else { self }
            }
            #[inline]
            #[allow(unused_comparisons)]
            fn sign(self) -> Self {
                if self > 0 {
                    1
                } else if self < 0 {
                    (0 as $t).wrapping_sub(1)
                } else {
                    0
                }
            }
            #[inline]
            fn max_of(self, o: Self) -> Self {
                Ord::max(self, o)
            }
            #[inline]
            fn min_of(self, o: Self) -> Self {
                Ord::min(self, o)
            }
            #[inline]
            fn powi(self, e: u32) -> Self {
                self.wrapping_pow(e)
            }
            #[inline]
            #[allow(unused_comparisons)]
            fn pow(self, e: Self) -> Option<Self> {
                (e >= 0).then(|| self.wrapping_pow(e.to_i64().min(u32::MAX as i64) as u32))
            }
            #[inline]
            fn floor(self) -> Self {
                self
            }
            #[inline]
            fn ceil(self) -> Self {
                self
            }
            #[inline]
            fn round(self) -> Self {
                self
            }
            #[inline]
            fn trunc(self) -> Self {
                self
            }
        }
        impl IntElement for $t {}
    };
}

int_num!(i16);
int_num!(i32);
int_num!(i64);
int_num!(u8);
