//! Unary element-wise ops: float-valued ones (promote integers through [`FloatOf`]), type-keeping
//! ones (`neg`, `abs`, `floor`, ...), `square`, `pow`, `clip`, closures (`map`).
//!
//! Semantics and dtype rules follow the seed (`000`): trigonometric, exponent/logarithm and
//! basic-arithmetic tables; rounding and `clip` follow NumPy (seed `004`).

use super::{map_assign, map_new, write_into};
use crate::cpu::{convert, strided};
use crate::device::{Cpu, Cuda, Device};
use crate::dtype::{Element, FloatElement, FloatOf, NumElement, SquareOf};
use crate::error::{Error, Result};
use crate::shape::Layout;
use crate::tensor::Tensor;
use num_traits::Float;

/// A float-valued unary op, defined once as a function generic over the compute type
/// (`f32` for f16/bf16/f32 and promoted 16/32-bit integers, `f64` for f64 and i64).
pub trait FloatUnaryOp: Send + Sync + 'static {
    /// The op's name, as in the seed (`"sin"`).
    const NAME: &'static str;
    /// The scalar function.
    fn apply<F: Float>(x: F) -> F;
    /// A vectorised version over f32 buffers, where one exists (`sin`, `cos`).
    const F32_SLICE: Option<fn(&mut [f32])> = None;
}

/// A unary op whose result keeps the element type (`neg`, `abs`, `floor`, ...).
pub trait SameUnaryOp: Send + Sync + 'static {
    /// The op's name.
    const NAME: &'static str;
    /// The scalar function (integers wrap, 16-bit floats compute in f32).
    fn apply<T: NumElement>(x: T) -> T;
}

macro_rules! float_ops {
    ($($(#[$doc:meta])* $op:ident, $name:ident, $inplace:ident, $into:ident, |$x:ident| $body:expr $(, fast = $fast:path)?;)*) => {
        /// Zero-sized op types, one per float-valued unary op.
        pub mod float_ops {
            use super::*;
            /// Every op's name, which is also its CUDA kernel root.
            pub const NAMES: &[&str] = &[$(stringify!($name)),*];
            $(
                #[doc = concat!("The `", stringify!($name), "` op.")]
                pub struct $op;
                impl FloatUnaryOp for $op {
                    const NAME: &'static str = stringify!($name);
                    #[inline(always)]
                    fn apply<F: Float>($x: F) -> F { $body }
                    $(const F32_SLICE: Option<fn(&mut [f32])> = Some($fast);)?
                }
            )*
        }
        impl<T: Element> Tensor<T, Cpu> {
            $(
                $(#[$doc])*
                ///
                /// Returns `Tensor<FloatOf<T>>`: integers and bool are promoted (i16/i32/u8/bool → f32,
                /// i64 → f64); 16-bit floats compute in f32 and round once.
                ///
                /// # Panics
                /// When the output cannot be allocated, or this thread holds a `data_mut()`
                /// guard on the buffer (the message of the `Err` the `try_` form returns).
                #[track_caller]
                pub fn $name(&self) -> Tensor<FloatOf<T>, Cpu> {
                    self.float_unary::<float_ops::$op>().unwrap_or_else(|e| panic!("{e}"))
                }
                #[doc = concat!("Writes `", stringify!($name), "(self)` into `out` (shape must match; `out` may be `self`).")]
                pub fn $into(&self, out: &mut Tensor<FloatOf<T>, Cpu>) -> Result<()> {
                    self.float_unary_into::<float_ops::$op>(out)
                }
            )*
        }
        impl<T: Element> Tensor<T, Cuda> {
            $(
                #[doc = concat!("`", stringify!($name), "` on the GPU (see the CPU form); `Err` when the launch fails.")]
                pub fn $name(&self) -> Result<Tensor<FloatOf<T>, Cuda>> {
                    self.try_float_unary::<float_ops::$op>()
                }
                #[doc = concat!("Writes `", stringify!($name), "(self)` into `out` on the GPU (shape must match; `out` may be `self`).")]
                pub fn $into(&self, out: &mut Tensor<FloatOf<T>, Cuda>) -> Result<()> {
                    out.store(stringify!($into), &self.try_float_unary::<float_ops::$op>()?)
                }
                #[doc = concat!("In-place `", stringify!($name), "` on the GPU; float tensors only, as on the CPU.")]
                pub fn $inplace(&mut self) -> Result<()>
                where
                    T: FloatElement,
                {
                    let r = self.float_unary_same::<float_ops::$op>()?;
                    self.store(stringify!($inplace), &r)
                }
            )*
        }
        impl<T: Element> Tensor<T, Cpu> {
            $(
                #[doc = concat!("In-place `", stringify!($name), "`; float tensors only (an integer tensor cannot hold the result: use `", stringify!($name), "()`, which returns a float tensor). Calling it on an integer tensor does not compile.")]
                pub fn $inplace(&mut self) -> Result<()>
                where
                    T: FloatElement,
                {
                    self.float_unary_::<float_ops::$op>()
                }
            )*
        }
    };
}

float_ops! {
    /// Sine of radians (seed: Trigonometric).
    Sin, sin, sin_, sin_into, |x| x.sin(), fast = crate::cpu::vmath::sin;
    /// Cosine of radians.
    Cos, cos, cos_, cos_into, |x| x.cos(), fast = crate::cpu::vmath::cos;
    /// Tangent of radians.
    Tan, tan, tan_, tan_into, |x| x.tan();
    /// Inverse sine; NaN outside [-1, 1].
    Asin, asin, asin_, asin_into, |x| x.asin();
    /// Inverse cosine; NaN outside [-1, 1] (`acos(2)` is NaN).
    Acos, acos, acos_, acos_into, |x| x.acos();
    /// Inverse tangent.
    Atan, atan, atan_, atan_into, |x| x.atan();
    /// Hyperbolic sine.
    Sinh, sinh, sinh_, sinh_into, |x| x.sinh();
    /// Hyperbolic cosine.
    Cosh, cosh, cosh_, cosh_into, |x| x.cosh();
    /// Hyperbolic tangent.
    Tanh, tanh, tanh_, tanh_into, |x| x.tanh();
    /// Inverse hyperbolic sine.
    Asinh, asinh, asinh_, asinh_into, |x| x.asinh();
    /// Inverse hyperbolic cosine; NaN below 1.
    Acosh, acosh, acosh_, acosh_into, |x| via_f64(x, acosh_f64);
    /// Inverse hyperbolic tangent; NaN outside (-1, 1), ±inf at ±1.
    Atanh, atanh, atanh_, atanh_into, |x| via_f64(x, f64::atanh);
    /// `e^x` (seed: Exponent and Logarithm).
    Exp, exp, exp_, exp_into, |x| x.exp();
    /// `2^x`.
    Exp2, exp2, exp2_, exp2_into, |x| x.exp2();
    /// `e^x - 1`, accurate near 0.
    Expm1, expm1, expm1_, expm1_into, |x| x.exp_m1();
    /// Natural logarithm; `log(0)` is -inf, negative input is NaN.
    Log, log, log_, log_into, |x| x.ln();
    /// Base-2 logarithm.
    Log2, log2, log2_, log2_into, |x| x.log2();
    /// Base-10 logarithm.
    Log10, log10, log10_, log10_into, |x| x.log10();
    /// `ln(1 + x)`, accurate near 0.
    Log1p, log1p, log1p_, log1p_into, |x| x.ln_1p();
    /// Square root; NaN for negative input (seed: Basic Arithmetic).
    Sqrt, sqrt, sqrt_, sqrt_into, |x| x.sqrt();
    /// `1 / x`; ±inf at 0.
    Reciprocal, reciprocal, reciprocal_, reciprocal_into, |x| x.recip();
    /// The logistic function `1 / (1 + e^-x)`.
    Sigmoid, sigmoid, sigmoid_, sigmoid_into, |x| if x >= F::zero() { F::one() / (F::one() + (-x).exp()) } else { let e = x.exp(); e / (F::one() + e) };
}

macro_rules! same_ops {
    ($($(#[$doc:meta])* $op:ident, $name:ident, $inplace:ident, $into:ident, |$x:ident| $body:expr;)*) => {
        /// Zero-sized op types, one per type-keeping unary op.
        pub mod same_ops {
            use super::*;
            /// Every op's name, which is also its CUDA kernel root.
            pub const NAMES: &[&str] = &[$(stringify!($name)),*];
            $(
                #[doc = concat!("The `", stringify!($name), "` op.")]
                pub struct $op;
                impl SameUnaryOp for $op {
                    const NAME: &'static str = stringify!($name);
                    #[inline(always)]
                    fn apply<T: NumElement>($x: T) -> T { $body }
                }
            )*
        }
        impl<T: NumElement> Tensor<T, Cpu> {
            $(
                $(#[$doc])*
                pub fn $name(&self) -> Tensor<T, Cpu> {
                    map_new(same_ops::$op::NAME, self, same_ops::$op::apply).unwrap_or_else(|e| panic!("{e}"))
                }
                #[doc = concat!("In-place `", stringify!($name), "` (keeps the element type, so it exists for integers too).")]
                pub fn $inplace(&mut self) -> Result<()> {
                    map_assign(same_ops::$op::NAME, self, same_ops::$op::apply)
                }
                #[doc = concat!("Writes `", stringify!($name), "(self)` into `out`.")]
                pub fn $into(&self, out: &mut Tensor<T, Cpu>) -> Result<()> {
                    let (src, shape) = (self, self.shape().clone());
                    write_into(same_ops::$op::NAME, out, &shape, &src.storage, |g, o| {
                        strided::map_into(g, &src.layout, o, &same_ops::$op::apply);
                    })
                }
            )*
        }
        impl<T: NumElement> Tensor<T, Cuda> {
            $(
                #[doc = concat!("`", stringify!($name), "` on the GPU (see the CPU form); `Err` when the launch fails.")]
                pub fn $name(&self) -> Result<Tensor<T, Cuda>> {
                    self.try_same_unary::<same_ops::$op>()
                }
                #[doc = concat!("In-place `", stringify!($name), "` on the GPU.")]
                pub fn $inplace(&mut self) -> Result<()> {
                    let r = self.try_same_unary::<same_ops::$op>()?;
                    self.store(stringify!($inplace), &r)
                }
                #[doc = concat!("Writes `", stringify!($name), "(self)` into `out` on the GPU.")]
                pub fn $into(&self, out: &mut Tensor<T, Cuda>) -> Result<()> {
                    out.store(stringify!($into), &self.try_same_unary::<same_ops::$op>()?)
                }
            )*
        }
    };
}

same_ops! {
    /// `-x` (integers wrap: `-i32::MIN == i32::MIN`).
    Neg, neg, neg_, neg_into, |x| x.neg();
    /// `|x|` (integers wrap at MIN, as NumPy).
    Abs, abs, abs_, abs_into, |x| x.abs();
    /// -1, 0 or 1 (NaN stays NaN).
    Sign, sign, sign_, sign_into, |x| x.sign();
    /// Round toward -inf (NumPy `floor`; identity for integers).
    Floor, floor, floor_, floor_into, |x| x.floor();
    /// Round toward +inf.
    Ceil, ceil, ceil_, ceil_into, |x| x.ceil();
    /// Round half to even (NumPy `round`).
    Round, round, round_, round_into, |x| x.round();
    /// Round toward zero.
    Trunc, trunc, trunc_, trunc_into, |x| x.trunc();
    /// `max(x, 0)`; NaN stays NaN.
    Relu, relu, relu_, relu_into, |x| if x.is_nan() || x > T::ZERO { x } else { T::ZERO };
}

impl<T: Element> Tensor<T, Cpu> {
    pub(crate) fn float_unary<Op: FloatUnaryOp>(&self) -> Result<Tensor<FloatOf<T>, Cpu>> {
        let mut out = Tensor::zeros(self.shape())?;
        self.float_unary_into::<Op>(&mut out)?;
        Ok(out)
    }

    fn float_unary_into<Op: FloatUnaryOp>(&self, out: &mut Tensor<FloatOf<T>, Cpu>) -> Result<()> {
        let shape = self.shape().clone();
        write_into(Op::NAME, out, &shape, &self.storage, |g, o| {
            float_unary_kernel::<T, Op>(g, &self.layout, o);
        })
    }

    /// Applies `f` to every element, in parallel, into a new tensor whose element type may
    /// differ (seed 001's `map`, seed 002's `F`).
    pub fn map<O: Element>(&self, f: impl Fn(T) -> O + Sync + Send) -> Tensor<O, Cpu> {
        map_new("map", self, f).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Applies `f` to every element in place.
    pub fn map_(&mut self, f: impl Fn(T) -> T + Sync + Send) -> Result<()> {
        map_assign("map_", self, f)
    }
}

impl<T: FloatElement> Tensor<T, Cpu> {
    fn float_unary_<Op: FloatUnaryOp>(&mut self) -> Result<()> {
        if convert::computes_in_f32::<T>() {
            // Compute into a fresh buffer on the vectorised path, then write it back once.
            let shape = self.shape().clone();
            let mut buf = crate::device::AlignedBuf::zeros(Op::NAME, self.numel())?;
            float_unary_kernel::<T, Op>(
                &crate::tensor::read(Op::NAME, &self.storage)?,
                &self.layout,
                &mut buf,
            );
            return super::assign_result(Op::NAME, self, buf, &shape);
        }
        map_assign(Op::NAME, self, |x: T| T::from_acc(Op::apply(x.to_acc())))
    }
}

impl<T: NumElement> Tensor<T, Cpu> {
    /// `x * x`; integers return `Tensor<f64>` so the square cannot overflow (the seed's rule),
    /// floats keep their type.
    pub fn square(&self) -> Tensor<SquareOf<T>, Cpu> {
        map_new("square", self, |x: T| {
            let w = x.to_square();
            w.mul(w)
        })
        .unwrap_or_else(|e| panic!("{e}"))
    }

    /// In-place `x * x`, keeping the element type (integers wrap, as the seed's in-place
    /// square on Int32 shows).
    pub fn square_(&mut self) -> Result<()> {
        map_assign("square_", self, |x: T| x.mul(x))
    }

    /// Clamps every element into `[min, max]` (NumPy `clip`; a NaN element or a NaN bound
    /// gives NaN, as in NumPy and PyTorch).
    ///
    /// # Errors
    /// `InvalidArgument` when `min > max`.
    pub fn clip(&self, min: T, max: T) -> Result<Tensor<T, Cpu>> {
        check_clip(min, max)?;
        map_new("clip", self, move |x: T| clip1(x, min, max))
    }

    /// In-place [`Tensor::clip`].
    pub fn clip_(&mut self, min: T, max: T) -> Result<()> {
        check_clip(min, max)?;
        map_assign("clip_", self, move |x: T| clip1(x, min, max))
    }

    /// Raises every element to a power. The exponent's type picks the result type (the seed's
    /// three `pow` overloads): an `i32` exponent keeps `T`; an `f32` or `f64` exponent returns
    /// `FloatOf<T>`.
    ///
    /// # Errors
    /// `InvalidArgument` for a negative `i32` exponent on an integer tensor (the result would
    /// not be an integer).
    pub fn pow<E: PowExponent<T>>(&self, exponent: E) -> Result<Tensor<E::Output, Cpu>> {
        exponent.pow(self)
    }

    /// In-place power. An `i32` exponent works for every numeric type (a negative one is an
    /// `Err` on integers); a float exponent exists only for float tensors.
    pub fn pow_<E: PowExponentInplace<T>>(&mut self, exponent: E) -> Result<()> {
        exponent.pow_(self)
    }
}

pub(crate) fn check_clip<T: NumElement>(min: T, max: T) -> Result<()> {
    if min > max {
        return Err(Error::InvalidArgument {
            op: "clip",
            msg: format!("min {min:?} is greater than max {max:?}"),
        });
    }
    Ok(())
}

/// `f(x)` computed in f64 and rounded once: within an ulp for f32 (and the 16-bit types that
/// compute in f32) where Rust's f32 formulas lose up to hundreds of ulps (`acosh(1 + 2^-22)`).
#[inline]
fn via_f64<F: Float>(x: F, f: fn(f64) -> f64) -> F {
    F::from(f(x.to_f64().unwrap_or(f64::NAN))).unwrap_or_else(F::nan)
}

/// `acosh` accurate near 1: `log1p(t + sqrt(2t + t²))` with `t = x - 1` (exact), instead of
/// `ln(x + sqrt(x² - 1))`, which cancels there.
fn acosh_f64(x: f64) -> f64 {
    let t = x - 1.0;
    if (0.0..1.0).contains(&t) {
        (t + (2.0 * t + t * t).sqrt()).ln_1p()
    } else {
        x.acosh()
    }
}

/// NumPy/PyTorch `clip`: a NaN bound (like a NaN element) gives NaN.
#[inline]
fn clip1<T: NumElement>(x: T, min: T, max: T) -> T {
    if min.is_nan() {
        min
    } else if max.is_nan() {
        max
    } else if x < min {
        min
    } else if x > max {
        max
    } else {
        x
    }
}

pub(crate) fn negative_exponent(op: &'static str, e: i32, dtype: crate::Dtype) -> Error {
    Error::InvalidArgument {
        op,
        msg: format!(
            "exponent {e} is negative and the tensor has integer dtype {dtype}; the result would not be an integer: use a float exponent (pow({e}.0) returns a float tensor) or cast first"
        ),
    }
}

/// An exponent type for [`Tensor::pow`]: `i32` keeps the element type, `f32`/`f64` promote to
/// [`FloatOf`].
#[diagnostic::on_unimplemented(
    message = "`pow` takes an `i32`, `f32` or `f64` exponent, not `{Self}`",
    label = "unsupported exponent type"
)]
pub trait PowExponent<T: NumElement, D: Device = Cpu> {
    /// The result element type.
    type Output: Element;
    /// Computes `t ^ self`.
    fn pow(self, t: &Tensor<T, D>) -> Result<Tensor<Self::Output, D>>;
}

impl<T: NumElement> PowExponent<T> for i32 {
    type Output = T;
    fn pow(self, t: &Tensor<T, Cpu>) -> Result<Tensor<T, Cpu>> {
        if self < 0 {
            if !T::DTYPE.is_float() {
                return Err(negative_exponent("pow", self, T::DTYPE));
            }
            let e = self;
            return map_new("pow", t, move |x: T| T::from_f64(x.to_f64().powi(e)));
        }
        let e = self as u32;
        map_new("pow", t, move |x: T| x.powi(e))
    }
}

macro_rules! float_exponent {
    ($e:ty) => {
        impl<T: NumElement> PowExponent<T> for $e {
            type Output = FloatOf<T>;
            fn pow(self, t: &Tensor<T, Cpu>) -> Result<Tensor<FloatOf<T>, Cpu>> {
                let e = self as f64;
                map_new("pow", t, move |x: T| {
                    let f = x.to_float().to_acc();
                    <FloatOf<T>>::from_acc(f.powf(num_traits::NumCast::from(e).unwrap()))
                })
            }
        }
        impl<T: FloatElement> PowExponentInplace<T> for $e {
            fn pow_(self, t: &mut Tensor<T, Cpu>) -> Result<()> {
                let e: T::Acc = num_traits::NumCast::from(self).unwrap();
                map_assign("pow_", t, move |x: T| T::from_acc(x.to_acc().powf(e)))
            }
        }
    };
}
float_exponent!(f32);
float_exponent!(f64);

/// An exponent type for [`Tensor::pow_`]. A float exponent on an integer tensor does not
/// compile: the result would not be an integer.
#[diagnostic::on_unimplemented(
    message = "`pow_` with a `{Self}` exponent needs a float tensor, and `{T}` is not a float type",
    label = "an integer tensor cannot hold a fractional power in place",
    note = "use `pow(..)`, which returns a float tensor, or an `i32` exponent"
)]
pub trait PowExponentInplace<T: NumElement, D: Device = Cpu> {
    /// Computes `t = t ^ self`.
    fn pow_(self, t: &mut Tensor<T, D>) -> Result<()>;
}

impl<T: NumElement> PowExponentInplace<T> for i32 {
    fn pow_(self, t: &mut Tensor<T, Cpu>) -> Result<()> {
        if self < 0 {
            if !T::DTYPE.is_float() {
                return Err(negative_exponent("pow_", self, T::DTYPE));
            }
            let e = self;
            return map_assign("pow_", t, move |x: T| T::from_f64(x.to_f64().powi(e)));
        }
        let e = self as u32;
        map_assign("pow_", t, move |x: T| x.powi(e))
    }
}

/// One float-valued op over a strided input into a contiguous output: the chunked f32 path
/// (vectorised conversions and, for `sin`/`cos`, a vectorised kernel) when the result computes
/// in f32, the scalar path otherwise.
fn float_unary_kernel<T: Element, Op: FloatUnaryOp>(src: &[T], l: &Layout, out: &mut [FloatOf<T>]) {
    if convert::computes_in_f32::<FloatOf<T>>() {
        strided::map_into_f32(src, l, out, &|buf: &mut [f32]| match Op::F32_SLICE {
            Some(fast) => fast(buf),
            None => buf.iter_mut().for_each(|x| *x = Op::apply(*x)),
        });
    } else {
        strided::map_into(src, l, out, &|x: T| {
            <FloatOf<T>>::from_acc(Op::apply(x.to_float().to_acc()))
        });
    }
}
