//! Binary element-wise ops between tensors (NumPy broadcasting) and with scalars, their
//! in-place and `_into` forms, and the `+ - * /` operators.
//!
//! Integer `+ - *` wrap; integer `/` truncates toward zero; integer division by zero is an
//! `Err`, float division follows IEEE 754. `floor_divide` and `remainder` follow
//! NumPy (floor semantics, the remainder takes the divisor's sign).
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let a = tensor![[1i32, 2, 3], [4, 5, 6]];
//! let b = tensor![10i32, 20, 30]; // broadcasts over the rows
//! assert_eq!((&a + &b).to_vec(), vec![11, 22, 33, 14, 25, 36]);
//! assert_eq!((&a * 2).to_vec(), vec![2, 4, 6, 8, 10, 12]);
//! assert_eq!(tensor![-7i32, 7].floor_divide_scalar(2).to_vec(), vec![-4, 3]); // NumPy's //
//! assert_eq!((&tensor![-7i32, 7] % 3).to_vec(), vec![2, 1]); // the divisor's sign
//! assert!(a.try_div(&tensor![0i32]).is_err()); // integer division by zero
//! let mut c = a.deep_copy();
//! c += &b;
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use super::device_ops::same_device;
use crate::autograd::{Op, record};
use crate::backend::Backend;
use crate::device::Cpu;
use crate::dtype::{Element, IntElement, NumElement};
use crate::error::{Error, OrPanic, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;

/// A binary op on numeric elements, defined once.
pub trait BinaryOp: Send + Sync + 'static {
    /// The op's name.
    const NAME: &'static str;
    /// The element-wise function. For integers it is only called with right operands that
    /// pass [`BinaryOp::valid_rhs`].
    fn apply<T: NumElement>(a: T, b: T) -> T;
    /// False for a right operand without a defined integer result (division by zero).
    #[inline(always)]
    fn valid_rhs<T: NumElement>(_b: T) -> bool {
        true
    }
    /// The error for an invalid right operand.
    fn invalid(dtype: crate::Dtype) -> Error {
        Error::DivisionByZero {
            op: Self::NAME,
            dtype,
        }
    }
    /// A vectorised `x = op(x, s)` over f32 buffers with a scalar right operand, where one
    /// exists (`pow`); the CPU's f32, f16 and bf16 scalar forms take it.
    const F32_SCALAR: Option<fn(&mut [f32], f32)> = None;
}

macro_rules! binary_ops {
    ($($(#[$doc:meta])* $op:ident, $name:ident, |$a:ident, $b:ident| $body:expr, valid: |$v:ident| $valid:expr;)*) => {
        /// Zero-sized op types.
        pub mod ops {
            use super::*;
            /// Every op's name (and [`PowOp`]'s), which is also its CUDA kernel root.
            pub const NAMES: &[&str] = &[$(stringify!($name),)* PowOp::NAME];
            $(
                #[doc = concat!("The `", stringify!($name), "` op.")]
                pub struct $op;
                impl BinaryOp for $op {
                    const NAME: &'static str = stringify!($name);
                    #[inline(always)]
                    fn apply<T: NumElement>($a: T, $b: T) -> T { $body }
                    #[inline(always)]
                    fn valid_rhs<T: NumElement>($v: T) -> bool { $valid }
                }
            )*
        }
    };
}

binary_ops! {
    Add, add, |a, b| a.add(b), valid: |_b| true;
    Sub, sub, |a, b| a.sub(b), valid: |_b| true;
    Mul, mul, |a, b| a.mul(b), valid: |_b| true;
    Div, div, |a, b| a.div(b).unwrap_or(T::ZERO), valid: |b| T::DTYPE.is_float() || b != T::ZERO;
    FloorDivide, floor_divide, |a, b| a.floor_div(b).unwrap_or(T::ZERO), valid: |b| T::DTYPE.is_float() || b != T::ZERO;
    Remainder, remainder, |a, b| a.rem(b).unwrap_or(T::ZERO), valid: |b| T::DTYPE.is_float() || b != T::ZERO;
    Maximum, maximum, |a, b| a.max_of(b), valid: |_b| true;
    Minimum, minimum, |a, b| a.min_of(b), valid: |_b| true;
    Fmod, fmod, |a, b| a.fmod(b).unwrap_or(T::ZERO), valid: |b| T::DTYPE.is_float() || b != T::ZERO;
    // Float-only (`ops/float_math.rs` casts integers first); computed in f64, which rounds
    // to within one ulp of the float types.
    Atan2, atan2, |a, b| T::from_f64(a.to_f64().atan2(b.to_f64())), valid: |_b| true;
    Hypot, hypot, |a, b| T::from_f64(a.to_f64().hypot(b.to_f64())), valid: |_b| true;
    Copysign, copysign, |a, b| T::from_f64(a.to_f64().copysign(b.to_f64())), valid: |_b| true;
    Zeta, zeta, |a, b| T::from_f64(crate::ops::special::zeta(a.to_f64(), b.to_f64())), valid: |_b| true;
    Gammainc, gammainc, |a, b| T::from_f64(crate::ops::igamma::gammainc(a.to_f64(), b.to_f64())), valid: |_b| true;
    // The neighbour in T's own format (C99 `nextafter` on its bits): a 16-bit float's is not
    // its f32 one.
    Nextafter, nextafter, |a, b| next_after(a, b), valid: |_b| true;
    Gammaincc, gammaincc, |a, b| T::from_f64(crate::ops::igamma::gammaincc(a.to_f64(), b.to_f64())), valid: |_b| true;
    // Integer-only (the typed API bounds them on `IntElement`): the bits of the values
    // sign-extended to i64, which is exact for every integer dtype, truncated back.
    BitwiseAnd, bitwise_and, |a, b| T::from_i64(a.to_i64() & b.to_i64()), valid: |_b| true;
    BitwiseOr, bitwise_or, |a, b| T::from_i64(a.to_i64() | b.to_i64()), valid: |_b| true;
    BitwiseXor, bitwise_xor, |a, b| T::from_i64(a.to_i64() ^ b.to_i64()), valid: |_b| true;
    // A shift by a negative amount or by the type's width or more gives 0 (left) or the sign
    // (right), as PyTorch's kernels define it.
    BitwiseLeftShift, bitwise_left_shift, |a, b| shift(a, b, true), valid: |_b| true;
    BitwiseRightShift, bitwise_right_shift, |a, b| shift(a, b, false), valid: |_b| true;
    // The greatest common divisor (non-negative; gcd(0, 0) = 0) and the least common multiple
    // (|a / gcd · b| wrapping in T, 0 when either is 0), as NumPy's and PyTorch's `gcd`/`lcm`.
    Gcd, gcd, |a, b| T::from_i64(gcd_u64(a.to_i64(), b.to_i64()) as i64), valid: |_b| true;
    Lcm, lcm, |a, b| lcm(a, b), valid: |_b| true;
    // `relu`'s gradient for the autograd rule: 0 where `b` (relu's input) is at most 0, else
    // `a` (the incoming gradient), so a NaN input passes it as PyTorch's threshold_backward
    // does; one pass instead of a comparison and a select.
    ReluBackward, relu_backward, |a, b| if b <= T::ZERO { T::ZERO } else { a }, valid: |_b| true;
}

/// The next value of `a`'s format after `a` toward `b` (C99 `nextafter`, NumPy and PyTorch
/// `nextafter`): `b` when they are equal, NaN when either is, the smallest subnormal of `b`'s
/// sign from zero, infinity past the largest finite value. Integers are returned unchanged
/// (the typed API converts them to floats first).
#[inline(always)]
fn next_after<T: NumElement>(a: T, b: T) -> T {
    let (x, y) = (a.to_f64(), b.to_f64());
    if x.is_nan() || y.is_nan() {
        return T::from_f64(f64::NAN);
    }
    if x == y {
        return b;
    }
    let up = x < y;
    // One step of the 16-bit pattern: away from zero is +1 on the magnitude bits.
    let step16 = |bits: u16| -> u16 {
        if x == 0.0 {
            if up { 1 } else { 0x8001 }
        } else if up == (x > 0.0) {
            bits + 1
        } else {
            bits - 1
        }
    };
    match T::DTYPE {
        crate::Dtype::Float64 => T::from_f64(if up { x.next_up() } else { x.next_down() }),
        crate::Dtype::Float32 => {
            let x = x as f32;
            T::from_f64(f64::from(if up { x.next_up() } else { x.next_down() }))
        }
        crate::Dtype::Float16 => {
            let bits = step16(half::f16::from_f64(x).to_bits());
            T::from_f64(half::f16::from_bits(bits).to_f64())
        }
        crate::Dtype::Bfloat16 => {
            let bits = step16(half::bf16::from_f64(x).to_bits());
            T::from_f64(half::bf16::from_bits(bits).to_f64())
        }
        _ => a,
    }
}

/// Euclid's algorithm on the magnitudes (`|i64::MIN|` is 2^63, so the truncation back to the
/// element type gives MIN where PyTorch's wrapping `abs` does).
#[inline(always)]
fn gcd_u64(a: i64, b: i64) -> u64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while a != 0 {
        (a, b) = (b % a, a);
    }
    b
}

/// `|a / gcd(a, b) · b|` with the product and the magnitude wrapping in `T`, as PyTorch.
#[inline(always)]
fn lcm<T: NumElement>(a: T, b: T) -> T {
    let g = gcd_u64(a.to_i64(), b.to_i64()) as i64;
    if g == 0 {
        return T::ZERO;
    }
    T::from_i64(a.to_i64().wrapping_div(g).wrapping_mul(b.to_i64())).abs()
}

/// `a << b` or `a >> b` (arithmetic for signed types) in `T`'s width, with out-of-range
/// shifts as PyTorch defines them.
#[inline(always)]
fn shift<T: NumElement>(a: T, b: T, left: bool) -> T {
    let (a, b, bits) = (a.to_i64(), b.to_i64(), 8 * T::SIZE as i64);
    let out = match (left, (0..bits).contains(&b)) {
        (true, true) => a.wrapping_shl(b as u32),
        (true, false) => 0,
        (false, true) => a >> b,
        (false, false) => a >> 63,
    };
    T::from_i64(out)
}

/// Element-wise `a ^ b` (NumPy `power`); a negative integer exponent is an `Err`.
pub struct PowOp;
impl BinaryOp for PowOp {
    const NAME: &'static str = "pow";
    const F32_SCALAR: Option<fn(&mut [f32], f32)> = Some(crate::backend::cpu::kernels::vmath::powf);
    #[inline(always)]
    fn apply<T: NumElement>(a: T, b: T) -> T {
        a.pow(b).unwrap_or(T::ZERO)
    }
    #[inline(always)]
    fn valid_rhs<T: NumElement>(b: T) -> bool {
        T::DTYPE.is_float() || b >= T::ZERO
    }
    fn invalid(dtype: crate::Dtype) -> Error {
        Error::InvalidArgument {
            op: "pow",
            msg: format!(
                "a negative exponent in a {dtype} tensor has no integer result; cast to a float dtype first"
            ),
        }
    }
}

/// An in-place op's check, the same on every device: `src` must broadcast to `dst`'s shape,
/// which does not grow (NumPy's `a += b`).
fn check_broadcast_into(op: &'static str, dst: &Shape, src: &Shape) -> Result<()> {
    let fits = dst == src
        || (src.ndim() <= dst.ndim()
            && (src.dims().iter().rev())
                .zip(dst.dims().iter().rev())
                .all(|(&s, &d)| s == d || s == 1));
    if fits {
        return Ok(());
    }
    Err(Error::Broadcast {
        op,
        lhs: dst.clone(),
        rhs: src.clone(),
    })
}

/// The autograd record of `name(a, b)`: `x · x` (one variable: one node, storage and layout)
/// as `pow(x, 2)`, whose rule is one product with `2x` where `mul`'s are two products and
/// their sum (`mse_loss`, variances, L2 penalties).
fn record_binary<T: Element, D: Backend>(
    out: Tensor<T, D>,
    name: &'static str,
    a: &Tensor<T, D>,
    b: &Tensor<T, D>,
) -> Tensor<T, D> {
    let one_variable = match (a.graph_node(), b.graph_node()) {
        (Some(x), Some(y)) => {
            std::sync::Arc::ptr_eq(x, y)
                && a.layout == b.layout
                && D::storage_id(&a.storage) == D::storage_id(&b.storage)
        }
        _ => false,
    };
    if name == "mul" && one_variable {
        return record(out, super::unary::pow_op(2.0), &[a], &[a]);
    }
    record(out, Op::Binary(name), &[a, b], &[a, b])
}

macro_rules! binary_methods {
    ($bound:ident; $($op:ident: $name:ident, $try_name:ident, $inplace:ident, $into:ident,
       $sname:ident, $try_sname:ident, $sinplace:ident, $sinto:ident, $rname:ident, $try_rname:ident,
       errors = $errors:literal;)*) => {
        impl<T: $bound, D: Backend> Tensor<T, D> {
            $(
                #[doc = concat!("Element-wise `", stringify!($name), "` with NumPy broadcasting.")]
                ///
                /// # Errors
                #[doc = concat!("`Broadcast` naming both shapes; `Device` when the operands are on different devices", $errors, ".")]
                pub fn $try_name(&self, other: &Self) -> Result<Self> {
                    same_device(stringify!($name), self, other)?;
                    let out = D::binary::<T, ops::$op>(self, other)?;
                    Ok(record_binary(out, stringify!($name), self, other))
                }
                #[doc = concat!("[`Tensor::", stringify!($try_name), "`], panicking with its error.")]
                ///
                /// # Panics
                #[doc = concat!("When [`Tensor::", stringify!($try_name), "`] returns an `Err`.")]
                #[track_caller]
                pub fn $name(&self, other: &Self) -> Self {
                    self.$try_name(other).or_panic()
                }
                #[doc = concat!("In-place `", stringify!($name), "`; `other` broadcasts into `self`'s shape, which cannot grow. Errors as [`Tensor::", stringify!($try_name), "`]; `self` is unchanged on error.")]
                pub fn $inplace(&mut self, other: &Self) -> Result<()> {
                    same_device(stringify!($inplace), self, other)?;
                    self.check_writable(stringify!($inplace))?;
                    check_broadcast_into(stringify!($inplace), self.shape(), other.shape())?;
                    D::binary_::<T, ops::$op>(self, other)
                }
                #[doc = concat!("Writes `", stringify!($name), "(self, other)` into `out`, which must have the broadcast shape and may be an operand.")]
                pub fn $into(&self, other: &Self, out: &mut Self) -> Result<()> {
                    same_device(stringify!($into), self, other)?;
                    same_device(stringify!($into), self, out)?;
                    D::binary_into::<T, ops::$op>(self, other, out)
                }
                #[doc = concat!("`", stringify!($name), "(self, s)` for a scalar `s`.")]
                ///
                /// # Errors
                #[doc = concat!("Allocation or kernel failure", $errors, ".")]
                pub fn $try_sname(&self, s: T) -> Result<Self> {
                    let out = D::scalar::<T, ops::$op>(self, s, false)?;
                    let op = Op::Scalar { name: stringify!($name), s: s.to_f64(), left: false };
                    Ok(record(out, op, &[self], &[self]))
                }
                #[doc = concat!("[`Tensor::", stringify!($try_sname), "`], panicking with its error.")]
                ///
                /// # Panics
                #[doc = concat!("When [`Tensor::", stringify!($try_sname), "`] returns an `Err`.")]
                #[track_caller]
                pub fn $sname(&self, s: T) -> Self {
                    self.$try_sname(s).or_panic()
                }
                #[doc = concat!("In-place `", stringify!($name), "` with a scalar.")]
                pub fn $sinplace(&mut self, s: T) -> Result<()> {
                    self.check_writable(stringify!($sinplace))?;
                    D::scalar_::<T, ops::$op>(self, s)
                }
                #[doc = concat!("Writes `", stringify!($name), "(self, s)` into `out`.")]
                pub fn $sinto(&self, s: T, out: &mut Self) -> Result<()> {
                    same_device(stringify!($sinto), self, out)?;
                    D::scalar_into::<T, ops::$op>(self, s, out)
                }
                #[doc = concat!("`", stringify!($name), "(s, self)`: the scalar on the left (`s - t`).")]
                ///
                /// # Errors
                #[doc = concat!("Allocation or kernel failure", $errors, ".")]
                pub fn $try_rname(&self, s: T) -> Result<Self> {
                    let out = D::scalar::<T, ops::$op>(self, s, true)?;
                    let op = Op::Scalar { name: stringify!($name), s: s.to_f64(), left: true };
                    Ok(record(out, op, &[self], &[self]))
                }
                #[doc = concat!("[`Tensor::", stringify!($try_rname), "`], panicking with its error.")]
                ///
                /// # Panics
                #[doc = concat!("When [`Tensor::", stringify!($try_rname), "`] returns an `Err`.")]
                #[track_caller]
                pub fn $rname(&self, s: T) -> Self {
                    self.$try_rname(s).or_panic()
                }
            )*
        }
    };
}

binary_methods! {
    NumElement;
    Add: add, try_add, add_, add_into, add_scalar, try_add_scalar, add_scalar_, add_scalar_into, radd_scalar, try_radd_scalar, errors = "";
    Sub: sub, try_sub, sub_, sub_into, sub_scalar, try_sub_scalar, sub_scalar_, sub_scalar_into, rsub_scalar, try_rsub_scalar, errors = "";
    Mul: mul, try_mul, mul_, mul_into, mul_scalar, try_mul_scalar, mul_scalar_, mul_scalar_into, rmul_scalar, try_rmul_scalar, errors = "";
    Div: div, try_div, div_, div_into, div_scalar, try_div_scalar, div_scalar_, div_scalar_into, rdiv_scalar, try_rdiv_scalar, errors = "; `DivisionByZero` for an integer zero divisor (floats follow IEEE 754)";
    FloorDivide: floor_divide, try_floor_divide, floor_divide_, floor_divide_into, floor_divide_scalar, try_floor_divide_scalar, floor_divide_scalar_, floor_divide_scalar_into, rfloor_divide_scalar, try_rfloor_divide_scalar, errors = "; `DivisionByZero` for an integer zero divisor";
    Remainder: remainder, try_remainder, remainder_, remainder_into, remainder_scalar, try_remainder_scalar, remainder_scalar_, remainder_scalar_into, rremainder_scalar, try_rremainder_scalar, errors = "; `DivisionByZero` for an integer zero divisor";
    Maximum: maximum, try_maximum, maximum_, maximum_into, maximum_scalar, try_maximum_scalar, maximum_scalar_, maximum_scalar_into, rmaximum_scalar, try_rmaximum_scalar, errors = "";
    Minimum: minimum, try_minimum, minimum_, minimum_into, minimum_scalar, try_minimum_scalar, minimum_scalar_, minimum_scalar_into, rminimum_scalar, try_rminimum_scalar, errors = "";
    Fmod: fmod, try_fmod, fmod_, fmod_into, fmod_scalar, try_fmod_scalar, fmod_scalar_, fmod_scalar_into, rfmod_scalar, try_rfmod_scalar, errors = "; `DivisionByZero` for an integer zero divisor (C's `fmod`: the result takes the dividend's sign)";
}

// Bitwise ops exist for the integer dtypes only (NumPy's `bitwise_and`, ..., `left_shift`;
// PyTorch's `bitwise_*`); bool tensors have the logical ops, floats none.
binary_methods! {
    IntElement;
    BitwiseAnd: bitwise_and, try_bitwise_and, bitwise_and_, bitwise_and_into, bitwise_and_scalar, try_bitwise_and_scalar, bitwise_and_scalar_, bitwise_and_scalar_into, rbitwise_and_scalar, try_rbitwise_and_scalar, errors = "";
    BitwiseOr: bitwise_or, try_bitwise_or, bitwise_or_, bitwise_or_into, bitwise_or_scalar, try_bitwise_or_scalar, bitwise_or_scalar_, bitwise_or_scalar_into, rbitwise_or_scalar, try_rbitwise_or_scalar, errors = "";
    BitwiseXor: bitwise_xor, try_bitwise_xor, bitwise_xor_, bitwise_xor_into, bitwise_xor_scalar, try_bitwise_xor_scalar, bitwise_xor_scalar_, bitwise_xor_scalar_into, rbitwise_xor_scalar, try_rbitwise_xor_scalar, errors = "";
    BitwiseLeftShift: bitwise_left_shift, try_bitwise_left_shift, bitwise_left_shift_, bitwise_left_shift_into, bitwise_left_shift_scalar, try_bitwise_left_shift_scalar, bitwise_left_shift_scalar_, bitwise_left_shift_scalar_into, rbitwise_left_shift_scalar, try_rbitwise_left_shift_scalar, errors = " (a shift by a negative amount or the type's width or more gives 0)";
    BitwiseRightShift: bitwise_right_shift, try_bitwise_right_shift, bitwise_right_shift_, bitwise_right_shift_into, bitwise_right_shift_scalar, try_bitwise_right_shift_scalar, bitwise_right_shift_scalar_, bitwise_right_shift_scalar_into, rbitwise_right_shift_scalar, try_rbitwise_right_shift_scalar, errors = " (arithmetic for signed dtypes; a shift by a negative amount or the type's width or more gives the sign, 0 or -1)";
    Gcd: gcd, try_gcd, gcd_, gcd_into, gcd_scalar, try_gcd_scalar, gcd_scalar_, gcd_scalar_into, rgcd_scalar, try_rgcd_scalar, errors = "";
    Lcm: lcm, try_lcm, lcm_, lcm_into, lcm_scalar, try_lcm_scalar, lcm_scalar_, lcm_scalar_into, rlcm_scalar, try_rlcm_scalar, errors = " (the product wraps in the dtype, as in PyTorch)";
}

impl<T: IntElement, D: Backend> Tensor<T, D> {
    /// Every bit flipped (NumPy `invert`, PyTorch `bitwise_not`): `!x`, which is `-x - 1` for
    /// signed dtypes and `255 - x` for u8.
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_bitwise_not(&self) -> Result<Self> {
        self.try_bitwise_xor_scalar(T::from_i64(-1))
    }

    /// [`Tensor::try_bitwise_not`], panicking with its error.
    ///
    /// # Panics
    /// When [`Tensor::try_bitwise_not`] returns an `Err`.
    #[track_caller]
    pub fn bitwise_not(&self) -> Self {
        self.try_bitwise_not().or_panic()
    }
}

impl<D: Backend> Tensor<bool, D> {
    /// [`Tensor::try_logical_and`] under the bitwise name, as NumPy and PyTorch allow on bool.
    ///
    /// # Errors
    /// As [`Tensor::try_logical_and`].
    pub fn try_bitwise_and(&self, other: &Self) -> Result<Self> {
        self.try_logical_and(other)
    }
    /// [`Tensor::try_logical_or`] under the bitwise name.
    ///
    /// # Errors
    /// As [`Tensor::try_logical_or`].
    pub fn try_bitwise_or(&self, other: &Self) -> Result<Self> {
        self.try_logical_or(other)
    }
    /// [`Tensor::try_logical_xor`] under the bitwise name.
    ///
    /// # Errors
    /// As [`Tensor::try_logical_xor`].
    pub fn try_bitwise_xor(&self, other: &Self) -> Result<Self> {
        self.try_logical_xor(other)
    }
    /// [`Tensor::try_logical_not`] under the bitwise name.
    ///
    /// # Errors
    /// As [`Tensor::try_logical_not`].
    pub fn try_bitwise_not(&self) -> Result<Self> {
        self.try_logical_not()
    }
}

impl<T: Element> Tensor<T, Cpu> {
    /// `f(a, b)` element-wise with broadcasting, in parallel; the element types may all differ
    /// (NumPy's `np.vectorize` of a two-argument function).
    pub fn zip_map<U: Element, O: Element>(
        &self,
        other: &Tensor<U, Cpu>,
        f: impl Fn(T, U) -> O + Sync + Send,
    ) -> Result<Tensor<O, Cpu>> {
        crate::backend::cpu::drivers::zip_new_general("zip_map", self, other, f)
    }
}

// Operators panic with the error's message, as ndarray's do; the `try_` methods return it.
macro_rules! operators {
    ($bound:ident; $($tr:ident, $m:ident, $atr:ident, $am:ident, $try:ident, $try_s:ident, $inplace:ident, $sinplace:ident;)*) => {$(
        impl<T: $bound, D: Backend> std::ops::$tr<&Tensor<T, D>> for &Tensor<T, D> {
            type Output = Tensor<T, D>;
            #[track_caller]
            fn $m(self, rhs: &Tensor<T, D>) -> Tensor<T, D> {
                self.$try(rhs).or_panic()
            }
        }
        impl<T: $bound, D: Backend> std::ops::$tr<Tensor<T, D>> for Tensor<T, D> {
            type Output = Tensor<T, D>;
            #[track_caller]
            fn $m(self, rhs: Tensor<T, D>) -> Tensor<T, D> {
                self.$try(&rhs).or_panic()
            }
        }
        impl<T: $bound, D: Backend> std::ops::$tr<&Tensor<T, D>> for Tensor<T, D> {
            type Output = Tensor<T, D>;
            #[track_caller]
            fn $m(self, rhs: &Tensor<T, D>) -> Tensor<T, D> {
                self.$try(rhs).or_panic()
            }
        }
        impl<T: $bound, D: Backend> std::ops::$tr<Tensor<T, D>> for &Tensor<T, D> {
            type Output = Tensor<T, D>;
            #[track_caller]
            fn $m(self, rhs: Tensor<T, D>) -> Tensor<T, D> {
                self.$try(&rhs).or_panic()
            }
        }
        impl<T: $bound, D: Backend> std::ops::$tr<T> for &Tensor<T, D> {
            type Output = Tensor<T, D>;
            #[track_caller]
            fn $m(self, rhs: T) -> Tensor<T, D> {
                self.$try_s(rhs).or_panic()
            }
        }
        impl<T: $bound, D: Backend> std::ops::$tr<T> for Tensor<T, D> {
            type Output = Tensor<T, D>;
            #[track_caller]
            fn $m(self, rhs: T) -> Tensor<T, D> {
                self.$try_s(rhs).or_panic()
            }
        }
        impl<T: $bound, D: Backend> std::ops::$atr<&Tensor<T, D>> for Tensor<T, D> {
            #[track_caller]
            fn $am(&mut self, rhs: &Tensor<T, D>) {
                self.$inplace(rhs).or_panic()
            }
        }
        impl<T: $bound, D: Backend> std::ops::$atr<Tensor<T, D>> for Tensor<T, D> {
            #[track_caller]
            fn $am(&mut self, rhs: Tensor<T, D>) {
                self.$inplace(&rhs).or_panic()
            }
        }
        impl<T: $bound, D: Backend> std::ops::$atr<T> for Tensor<T, D> {
            #[track_caller]
            fn $am(&mut self, rhs: T) {
                self.$sinplace(rhs).or_panic()
            }
        }
    )*};
}

operators! {
    NumElement;
    Add, add, AddAssign, add_assign, try_add, try_add_scalar, add_, add_scalar_;
    Sub, sub, SubAssign, sub_assign, try_sub, try_sub_scalar, sub_, sub_scalar_;
    Mul, mul, MulAssign, mul_assign, try_mul, try_mul_scalar, mul_, mul_scalar_;
    Div, div, DivAssign, div_assign, try_div, try_div_scalar, div_, div_scalar_;
    // `%` is NumPy's `remainder` (Python's sign rule: the result takes the divisor's sign), not
    // Rust's truncating `%`: `-7 % 3` is 2, as in Python and PyTorch's `remainder`.
    Rem, rem, RemAssign, rem_assign, try_remainder, try_remainder_scalar, remainder_, remainder_scalar_;
}

// `& | ^ << >>` on integer tensors are NumPy's bitwise ops (`!` is `bitwise_not`).
operators! {
    IntElement;
    BitAnd, bitand, BitAndAssign, bitand_assign, try_bitwise_and, try_bitwise_and_scalar, bitwise_and_, bitwise_and_scalar_;
    BitOr, bitor, BitOrAssign, bitor_assign, try_bitwise_or, try_bitwise_or_scalar, bitwise_or_, bitwise_or_scalar_;
    BitXor, bitxor, BitXorAssign, bitxor_assign, try_bitwise_xor, try_bitwise_xor_scalar, bitwise_xor_, bitwise_xor_scalar_;
    Shl, shl, ShlAssign, shl_assign, try_bitwise_left_shift, try_bitwise_left_shift_scalar, bitwise_left_shift_, bitwise_left_shift_scalar_;
    Shr, shr, ShrAssign, shr_assign, try_bitwise_right_shift, try_bitwise_right_shift_scalar, bitwise_right_shift_, bitwise_right_shift_scalar_;
}

impl<T: IntElement, D: Backend> std::ops::Not for &Tensor<T, D> {
    type Output = Tensor<T, D>;
    #[track_caller]
    fn not(self) -> Tensor<T, D> {
        self.try_bitwise_not().or_panic()
    }
}

impl<T: NumElement, D: Backend> std::ops::Neg for &Tensor<T, D> {
    type Output = Tensor<T, D>;
    #[track_caller]
    fn neg(self) -> Tensor<T, D> {
        self.try_neg().or_panic()
    }
}
impl<T: NumElement, D: Backend> std::ops::Neg for Tensor<T, D> {
    type Output = Tensor<T, D>;
    #[track_caller]
    fn neg(self) -> Tensor<T, D> {
        self.try_neg().or_panic()
    }
}

// `s op t` for a scalar `s` of each element type (a blanket impl over `T` is not allowed).
macro_rules! scalar_lhs {
    ($($t:ty),*) => {$(
        impl<D: Backend> std::ops::Add<&Tensor<$t, D>> for $t {
            type Output = Tensor<$t, D>;
            #[track_caller]
            fn add(self, rhs: &Tensor<$t, D>) -> Tensor<$t, D> {
                rhs.radd_scalar(self)
            }
        }
        impl<D: Backend> std::ops::Sub<&Tensor<$t, D>> for $t {
            type Output = Tensor<$t, D>;
            #[track_caller]
            fn sub(self, rhs: &Tensor<$t, D>) -> Tensor<$t, D> {
                rhs.rsub_scalar(self)
            }
        }
        impl<D: Backend> std::ops::Mul<&Tensor<$t, D>> for $t {
            type Output = Tensor<$t, D>;
            #[track_caller]
            fn mul(self, rhs: &Tensor<$t, D>) -> Tensor<$t, D> {
                rhs.rmul_scalar(self)
            }
        }
        impl<D: Backend> std::ops::Div<&Tensor<$t, D>> for $t {
            type Output = Tensor<$t, D>;
            #[track_caller]
            fn div(self, rhs: &Tensor<$t, D>) -> Tensor<$t, D> {
                rhs.rdiv_scalar(self)
            }
        }
        impl<D: Backend> std::ops::Rem<&Tensor<$t, D>> for $t {
            type Output = Tensor<$t, D>;
            #[track_caller]
            fn rem(self, rhs: &Tensor<$t, D>) -> Tensor<$t, D> {
                rhs.rremainder_scalar(self)
            }
        }
    )*};
}

scalar_lhs! { f32, f64, half::f16, half::bf16, i16, i32, i64, u8 }
