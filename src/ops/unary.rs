//! Unary element-wise ops: float-valued ones (promote integers through [`FloatOf`]), type-keeping
//! ones (`neg`, `abs`, `floor`, ...), `square`, `pow`, `clip`, closures (`map`).
//!
//! Each op is defined once for every device over `D: Backend`; the CPU kernels are in
//! `backend/cpu/elementwise.rs`. Rounding and `clip` follow NumPy; the float functions are
//! IEEE 754's, computed in f32 for the 16-bit types and rounded once.
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let x = tensor![[0.0f32, 1.0], [4.0, 9.0]];
//! assert_eq!(x.sqrt().to_vec(), vec![0.0, 1.0, 2.0, 3.0]);
//! let n = tensor![-2i32, 3];
//! let s: Tensor<f32, Cpu> = n.sin(); // integers promote to a float type
//! assert_eq!(n.abs().to_vec(), vec![2, 3]); // type-keeping ops stay i32
//! assert_eq!(tensor![1.5f64, -2.5].round().to_vec(), vec![2.0, -2.0]); // half to even, NumPy
//! let mut y = x.deep_copy();
//! y.exp_()?; // in place (float tensors only)
//! assert_eq!(s.dims(), &[2]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use super::binary::PowOp;
use super::device_ops::same_device;
use crate::autograd::{Op, record, record_out};
use crate::backend::Backend;
use crate::backend::cpu::drivers::map_assign;
use crate::device::Cpu;
use crate::dtype::{Element, FloatElement, FloatOf, NumElement, SquareOf};
use crate::error::{Error, OrPanic, Result};
use crate::tensor::Tensor;
use num_traits::Float;

/// A float-valued unary op, defined once as a function generic over the compute type
/// (`f32` for f16/bf16/f32 and promoted 16/32-bit integers, `f64` for f64 and i64).
pub trait FloatUnaryOp: Send + Sync + 'static {
    /// The op's name (`"sin"`), as NumPy and PyTorch spell it.
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
    ($($(#[$doc:meta])* $op:ident, $name:ident, $try_name:ident, $inplace:ident, $into:ident, |$x:ident| $body:expr $(, fast = $fast:path)?;)*) => {
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
        impl<T: Element, D: Backend> Tensor<T, D> {
            $(
                $(#[$doc])*
                ///
                /// Returns `Tensor<FloatOf<T>, D>`: integers and bool are promoted (i16/i32/u8/bool
                /// → f32, i64 → f64); 16-bit floats compute in f32 and round once.
                ///
                /// # Errors
                /// `OutOfMemory`/`Device` when the output cannot be allocated or the kernel fails;
                /// `Layout` when this thread holds a `data_mut()` guard on the buffer.
                pub fn $try_name(&self) -> Result<Tensor<FloatOf<T>, D>> {
                    let out = D::float_unary::<T, float_ops::$op>(self)?;
                    Ok(record_out(out, Op::Unary(stringify!($name)), &[self], &[self]))
                }
                #[doc = concat!("[`Tensor::", stringify!($try_name), "`], panicking with its error.")]
                ///
                /// # Panics
                #[doc = concat!("When [`Tensor::", stringify!($try_name), "`] returns an `Err`.")]
                #[track_caller]
                pub fn $name(&self) -> Tensor<FloatOf<T>, D> {
                    self.$try_name().or_panic()
                }
                #[doc = concat!("Writes `", stringify!($name), "(self)` into `out` (shape must match; `out` may be `self`).")]
                pub fn $into(&self, out: &mut Tensor<FloatOf<T>, D>) -> Result<()> {
                    same_device(stringify!($into), self, out)?;
                    D::float_unary_into::<T, float_ops::$op>(self, out)
                }
                #[doc = concat!("In-place `", stringify!($name), "`; float tensors only (an integer tensor cannot hold the result: use `", stringify!($name), "()`, which returns a float tensor). Calling it on an integer tensor does not compile.")]
                pub fn $inplace(&mut self) -> Result<()>
                where
                    T: FloatElement,
                {
                    self.check_writable(stringify!($inplace))?;
                    D::float_unary_::<T, float_ops::$op>(self)
                }
            )*
        }
    };
}

float_ops! {
    /// Sine of radians (IEEE 754 `sin`).
    Sin, sin, try_sin, sin_, sin_into, |x| x.sin(), fast = crate::backend::cpu::kernels::vmath::sin;
    /// Cosine of radians.
    Cos, cos, try_cos, cos_, cos_into, |x| x.cos(), fast = crate::backend::cpu::kernels::vmath::cos;
    /// Tangent of radians.
    Tan, tan, try_tan, tan_, tan_into, |x| x.tan();
    /// Inverse sine; NaN outside [-1, 1].
    Asin, asin, try_asin, asin_, asin_into, |x| x.asin();
    /// Inverse cosine; NaN outside [-1, 1] (`acos(2)` is NaN).
    Acos, acos, try_acos, acos_, acos_into, |x| x.acos();
    /// Inverse tangent.
    Atan, atan, try_atan, atan_, atan_into, |x| x.atan();
    /// Hyperbolic sine.
    Sinh, sinh, try_sinh, sinh_, sinh_into, |x| x.sinh();
    /// Hyperbolic cosine.
    Cosh, cosh, try_cosh, cosh_, cosh_into, |x| x.cosh();
    /// Hyperbolic tangent.
    Tanh, tanh, try_tanh, tanh_, tanh_into, |x| x.tanh(), fast = crate::backend::cpu::kernels::vmath::tanh;
    /// Inverse hyperbolic sine.
    Asinh, asinh, try_asinh, asinh_, asinh_into, |x| x.asinh();
    /// Inverse hyperbolic cosine; NaN below 1.
    Acosh, acosh, try_acosh, acosh_, acosh_into, |x| via_f64(x, acosh_f64);
    /// Inverse hyperbolic tangent; NaN outside (-1, 1), ±inf at ±1.
    Atanh, atanh, try_atanh, atanh_, atanh_into, |x| via_f64(x, f64::atanh);
    /// `e^x`.
    Exp, exp, try_exp, exp_, exp_into, |x| x.exp(), fast = crate::backend::cpu::kernels::vmath::exp;
    /// `2^x`.
    Exp2, exp2, try_exp2, exp2_, exp2_into, |x| x.exp2(), fast = crate::backend::cpu::kernels::vmath::exp2;
    /// `e^x - 1`, accurate near 0.
    Expm1, expm1, try_expm1, expm1_, expm1_into, |x| x.exp_m1(), fast = crate::backend::cpu::kernels::vmath::expm1;
    /// Natural logarithm; `log(0)` is -inf, negative input is NaN.
    Log, log, try_log, log_, log_into, |x| x.ln(), fast = crate::backend::cpu::kernels::vmath::log;
    /// Base-2 logarithm.
    Log2, log2, try_log2, log2_, log2_into, |x| x.log2(), fast = crate::backend::cpu::kernels::vmath::log2;
    /// Base-10 logarithm.
    Log10, log10, try_log10, log10_, log10_into, |x| x.log10();
    /// `ln(1 + x)`, accurate near 0.
    Log1p, log1p, try_log1p, log1p_, log1p_into, |x| x.ln_1p(), fast = crate::backend::cpu::kernels::vmath::log1p;
    /// Square root; NaN for negative input.
    Sqrt, sqrt, try_sqrt, sqrt_, sqrt_into, |x| x.sqrt();
    /// Cube root, real for negative input (NumPy `cbrt`).
    Cbrt, cbrt, try_cbrt, cbrt_, cbrt_into, |x| via_f64(x, f64::cbrt);
    /// `1 / x`; ±inf at 0.
    Reciprocal, reciprocal, try_reciprocal, reciprocal_, reciprocal_into, |x| x.recip();
    /// The Gauss error function `erf(x) = 2/√π ∫₀ˣ e^(-t²) dt` (C99 `erf`, `torch.erf`,
    /// `scipy.special.erf`); ±1 at ±inf.
    Erf, erf, try_erf, erf_, erf_into, |x| via_f64(x, libm::erf), fast = crate::backend::cpu::kernels::vmath::erf;
    /// The complementary error function `1 - erf(x)`, accurate where `erf` is near 1 (C99
    /// `erfc`, `torch.erfc`).
    Erfc, erfc, try_erfc, erfc_, erfc_into, |x| via_f64(x, libm::erfc);
    /// The inverse error function on `[-1, 1]` (`torch.erfinv`): ±inf at ±1, NaN outside.
    Erfinv, erfinv, try_erfinv, erfinv_, erfinv_into, |x| via_f64(x, crate::ops::special::erfinv);
    /// `ln|Γ(x)|` (C99 `lgamma`, `torch.lgamma`): +inf at 0 and the negative integers.
    Lgamma, lgamma, try_lgamma, lgamma_, lgamma_into, |x| via_f64(x, libm::lgamma);
    /// The digamma function `Γ'(x)/Γ(x)` (`torch.digamma`): -inf at 0, NaN at the negative
    /// integers.
    Digamma, digamma, try_digamma, digamma_, digamma_into, |x| via_f64(x, crate::ops::special::digamma);
    /// The modified Bessel function of the first kind of order 0 (`torch.i0`, NumPy `i0`).
    I0, i0, try_i0, i0_, i0_into, |x| via_f64(x, crate::ops::special::i0);
    /// The modified Bessel function of the first kind of order 1 (`torch.special.i1`).
    I1, i1, try_i1, i1_, i1_into, |x| via_f64(x, crate::ops::special::i1);
    /// `i0(x)·e^-|x|`, the exponentially scaled Bessel function (`torch.special.i0e`), finite
    /// where `i0` overflows.
    I0e, i0e, try_i0e, i0e_, i0e_into, |x| via_f64(x, crate::ops::special::i0e);
    /// `i1(x)·e^-|x|` (`torch.special.i1e`).
    I1e, i1e, try_i1e, i1e_, i1e_into, |x| via_f64(x, crate::ops::special::i1e);
    /// The scaled complementary error function `e^(x²)·erfc(x)` (`torch.special.erfcx`),
    /// finite where `erfc` underflows.
    Erfcx, erfcx, try_erfcx, erfcx_, erfcx_into, |x| via_f64(x, crate::ops::special::erfcx);
    /// The log of the standard normal CDF, `ln Φ(x)` (`torch.special.log_ndtr`), accurate in
    /// the far lower tail.
    LogNdtr, log_ndtr, try_log_ndtr, log_ndtr_, log_ndtr_into, |x| via_f64(x, crate::ops::special::log_ndtr);
    /// The inverse of the standard normal CDF (`torch.special.ndtri`, SciPy `ndtri`): `-inf`
    /// at 0, `inf` at 1, NaN outside `[0, 1]`.
    Ndtri, ndtri, try_ndtri, ndtri_, ndtri_into, |x| via_f64(x, crate::ops::special::ndtri);
    /// The Bessel function of the first kind of order 0 (`torch.special.bessel_j0`, SciPy
    /// `j0`; C's `j0`).
    BesselJ0, bessel_j0, try_bessel_j0, bessel_j0_, bessel_j0_into, |x| via_f64(x, libm::j0);
    /// The Bessel function of the first kind of order 1 (`torch.special.bessel_j1`).
    BesselJ1, bessel_j1, try_bessel_j1, bessel_j1_, bessel_j1_into, |x| via_f64(x, libm::j1);
    /// The Bessel function of the second kind of order 0 (`torch.special.bessel_y0`): `-inf`
    /// at 0, NaN below.
    BesselY0, bessel_y0, try_bessel_y0, bessel_y0_, bessel_y0_into, |x| via_f64(x, libm::y0);
    /// The Bessel function of the second kind of order 1 (`torch.special.bessel_y1`): `-inf`
    /// at 0, NaN below.
    BesselY1, bessel_y1, try_bessel_y1, bessel_y1_, bessel_y1_into, |x| via_f64(x, libm::y1);
    /// The modified Bessel function of the second kind of order 0 (`torch.special.
    /// modified_bessel_k0`, SciPy `k0`): `inf` at 0, NaN below.
    ModifiedBesselK0, modified_bessel_k0, try_modified_bessel_k0, modified_bessel_k0_, modified_bessel_k0_into, |x| via_f64(x, crate::ops::bessel::k0);
    /// The modified Bessel function of the second kind of order 1 (`torch.special.
    /// modified_bessel_k1`, SciPy `k1`): `inf` at 0, NaN below.
    ModifiedBesselK1, modified_bessel_k1, try_modified_bessel_k1, modified_bessel_k1_, modified_bessel_k1_into, |x| via_f64(x, crate::ops::bessel::k1);
    /// `e^x·K₀(x)` (`torch.special.scaled_modified_bessel_k0`, SciPy `k0e`), finite where
    /// `K₀` underflows.
    ScaledModifiedBesselK0, scaled_modified_bessel_k0, try_scaled_modified_bessel_k0, scaled_modified_bessel_k0_, scaled_modified_bessel_k0_into, |x| via_f64(x, crate::ops::bessel::k0e);
    /// `e^x·K₁(x)` (`torch.special.scaled_modified_bessel_k1`, SciPy `k1e`).
    ScaledModifiedBesselK1, scaled_modified_bessel_k1, try_scaled_modified_bessel_k1, scaled_modified_bessel_k1_, scaled_modified_bessel_k1_into, |x| via_f64(x, crate::ops::bessel::k1e);
    /// The spherical Bessel function of the first kind of order 0, `sin(x)/x`
    /// (`torch.special.spherical_bessel_j0`): 1 at 0.
    SphericalBesselJ0, spherical_bessel_j0, try_spherical_bessel_j0, spherical_bessel_j0_, spherical_bessel_j0_into, |x| via_f64(x, crate::ops::bessel::spherical_j0);
    /// The Airy function `Ai(x)` (`torch.special.airy_ai`, SciPy `airy(x)[0]`), to a few f64
    /// ulps over the whole line: oscillating for `x < 0`, decaying as `e^(-2/3·x^(3/2))` for
    /// `x > 0` (0 beyond about 104); NaN at ±inf, as PyTorch and SciPy. No gradient, as in
    /// PyTorch: `backward` through it is an `Err`.
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    ///
    /// let ai = tensor![0.0f64, 1.0, -2.0].airy_ai().to_vec();
    /// assert!((ai[0] - 0.3550280538878172).abs() < 1e-16);
    /// assert!((ai[1] - 0.1352924163128814).abs() < 1e-16);
    /// assert!((ai[2] - 0.2274074282016856).abs() < 1e-16);
    /// ```
    AiryAi, airy_ai, try_airy_ai, airy_ai_, airy_ai_into, |x| via_f64(x, crate::ops::bessel::airy_ai);
    /// GELU, `x Φ(x) = 0.5 x (1 + erf(x / √2))` (PyTorch `gelu`, the exact form, computed as
    /// PyTorch does: far below 0, where `1 + erf` cancels, the result is ±0, not the tiny
    /// `x Φ(x)`); 16-bit floats compute in f32. [`Tensor::try_gelu_tanh`] is the tanh form.
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    ///
    /// let x = tensor![-1.0f64, 0.0, 1.0];
    /// let g = x.gelu().to_vec();
    /// assert!((g[2] - 0.8413447460685429).abs() < 1e-15 && g[1] == 0.0);
    /// assert!((x.gelu_tanh().to_vec()[2] - g[2]).abs() < 1e-3); // the tanh approximation
    /// ```
    Gelu, gelu, try_gelu, gelu_, gelu_into, |x| via_f64(x, gelu_f64), fast = crate::backend::cpu::kernels::vmath::gelu;
    /// SiLU (swish), `x · sigmoid(x)`, computed as PyTorch's `x / (1 + e^-x)` (so far below 0
    /// it is `-0`); one pass, and one derivative rule, `s (1 + x (1 - s))` (PyTorch
    /// `silu_backward`).
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    /// let y = tensor![-1.0f64, 0.0, 2.0].silu().to_vec();
    /// assert!((y[0] + 0.2689414213699951).abs() < 1e-15 && y[1] == 0.0);
    /// assert!((y[2] - 1.7615941559557649).abs() < 1e-15);
    /// ```
    Silu, silu, try_silu, silu_, silu_into, |x| x / (F::one() + (-x).exp()), fast = crate::backend::cpu::kernels::vmath::silu;
    /// The logistic function `1 / (1 + e^-x)`.
    Sigmoid, sigmoid, try_sigmoid, sigmoid_, sigmoid_into, |x| if x >= F::zero() { F::one() / (F::one() + (-x).exp()) } else { let e = x.exp(); e / (F::one() + e) }, fast = crate::backend::cpu::kernels::vmath::sigmoid;
}

macro_rules! same_ops {
    ($($(#[$doc:meta])* $op:ident, $name:ident, $try_name:ident, $inplace:ident, $into:ident, |$x:ident| $body:expr;)*) => {
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
        impl<T: NumElement, D: Backend> Tensor<T, D> {
            $(
                $(#[$doc])*
                ///
                /// # Errors
                /// `OutOfMemory`/`Device` when the output cannot be allocated or the kernel fails.
                pub fn $try_name(&self) -> Result<Tensor<T, D>> {
                    let out = D::same_unary::<T, same_ops::$op>(self)?;
                    Ok(record_out(out, Op::Unary(stringify!($name)), &[self], &[self]))
                }
                #[doc = concat!("[`Tensor::", stringify!($try_name), "`], panicking with its error.")]
                ///
                /// # Panics
                #[doc = concat!("When [`Tensor::", stringify!($try_name), "`] returns an `Err`.")]
                #[track_caller]
                pub fn $name(&self) -> Tensor<T, D> {
                    self.$try_name().or_panic()
                }
                #[doc = concat!("In-place `", stringify!($name), "` (keeps the element type, so it exists for integers too).")]
                pub fn $inplace(&mut self) -> Result<()> {
                    self.check_writable(stringify!($inplace))?;
                    D::same_unary_::<T, same_ops::$op>(self)
                }
                #[doc = concat!("Writes `", stringify!($name), "(self)` into `out` (shape must match; `out` may be `self`).")]
                pub fn $into(&self, out: &mut Tensor<T, D>) -> Result<()> {
                    same_device(stringify!($into), self, out)?;
                    D::same_unary_into::<T, same_ops::$op>(self, out)
                }
            )*
        }
    };
}

same_ops! {
    /// `-x` (integers wrap: `-i32::MIN == i32::MIN`).
    Neg, neg, try_neg, neg_, neg_into, |x| x.neg();
    /// `|x|` (integers wrap at MIN, as NumPy).
    Abs, abs, try_abs, abs_, abs_into, |x| x.abs();
    /// -1, 0 or 1 (NaN stays NaN).
    Sign, sign, try_sign, sign_, sign_into, |x| x.sign();
    /// Round toward -inf (NumPy `floor`; identity for integers).
    Floor, floor, try_floor, floor_, floor_into, |x| x.floor();
    /// Round toward +inf.
    Ceil, ceil, try_ceil, ceil_, ceil_into, |x| x.ceil();
    /// Round half to even (NumPy `round`).
    Round, round, try_round, round_, round_into, |x| x.round();
    /// Round toward zero.
    Trunc, trunc, try_trunc, trunc_, trunc_into, |x| x.trunc();
    /// `max(x, 0)`; NaN stays NaN.
    Relu, relu, try_relu, relu_, relu_into, |x| if x.is_nan() || x > T::ZERO { x } else { T::ZERO };
}

/// `x · x · x` in one pass: the kernel of `pow(x, 3)` for f32, f64 and the integers (which
/// wrap). Not public: PyTorch and NumPy spell it `pow`.
pub(crate) struct Cube;

impl SameUnaryOp for Cube {
    const NAME: &'static str = "cube";
    #[inline(always)]
    fn apply<T: NumElement>(x: T) -> T {
        x.mul(x).mul(x)
    }
}

/// The type-keeping ops without public methods of their own ([`Cube`]): CUDA kernel roots
/// too.
pub(crate) const HIDDEN_SAME_NAMES: &[&str] = &[Cube::NAME];

/// Host closures over every element (CPU only, by design).
impl<T: Element> Tensor<T, Cpu> {
    /// Applies `f` to every element, in parallel, into a new tensor whose element type may
    /// differ (a host closure, so CPU only).
    ///
    /// # Panics
    /// When the output cannot be allocated or this thread holds a `data_mut()` guard on the
    /// buffer.
    #[track_caller]
    pub fn map<O: Element>(&self, f: impl Fn(T) -> O + Sync + Send) -> Tensor<O, Cpu> {
        crate::backend::cpu::drivers::map_new_general("map", self, f).or_panic()
    }

    /// Applies `f` to every element in place.
    ///
    /// # Errors
    /// As the in-place ops: `InvalidArgument` for a tensor that requires grad while recording
    /// (write under `no_grad`); `Layout` for a broadcast view (elements sharing memory), or
    /// while this thread holds a guard on the buffer.
    pub fn map_(&mut self, f: impl Fn(T) -> T + Sync + Send) -> Result<()> {
        map_assign("map_", self, f)
    }

    /// [`Tensor::map_`] under PyTorch's name (`Tensor.apply_`, CPU only there too).
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    /// let mut x = Tensor::<i32>::from_vec(vec![1, -2, 3], [3])?;
    /// x.apply_(|v| v * 10)?;
    /// assert_eq!(x.to_vec(), vec![10, -20, 30]);
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Tensor::map_`].
    pub fn apply_(&mut self, f: impl Fn(T) -> T + Sync + Send) -> Result<()> {
        map_assign("apply_", self, f)
    }
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// `x * x`; integers return `Tensor<f64, D>` so the square cannot overflow, floats keep
    /// their type.
    ///
    /// # Errors
    /// As [`Tensor::try_mul`].
    pub fn try_square(&self) -> Result<Tensor<SquareOf<T>, D>> {
        // Floats square in their own type, without a copy to cast.
        if let Some(x) = (self as &dyn std::any::Any).downcast_ref::<Tensor<SquareOf<T>, D>>() {
            return x.try_mul(x);
        }
        let w = self.try_cast::<SquareOf<T>>()?;
        w.try_mul(&w)
    }

    /// [`Tensor::try_square`], panicking with its error.
    ///
    /// # Panics
    /// When `try_square` returns an `Err`.
    #[track_caller]
    pub fn square(&self) -> Tensor<SquareOf<T>, D> {
        self.try_square().or_panic()
    }

    /// In-place `x * x`, keeping the element type (integers wrap).
    pub fn square_(&mut self) -> Result<()> {
        let same = self.clone();
        self.mul_(&same)
    }

    /// Clamps every element into `[min, max]` (NumPy `clip`: `minimum(maximum(x, min), max)`,
    /// so a NaN element or a NaN bound gives NaN, as in NumPy and PyTorch).
    ///
    /// # Errors
    /// `InvalidArgument` when `min > max`.
    pub fn try_clip(&self, min: T, max: T) -> Result<Tensor<T, D>> {
        check_clip(min, max)?;
        if !crate::autograd::recording(&[self]) {
            return D::clip(self, min, max);
        }
        // Recorded as the two ops, whose rules give the gradient.
        self.try_maximum_scalar(min)?.try_minimum_scalar(max)
    }

    /// [`Tensor::try_clip`], panicking with its error.
    ///
    /// # Panics
    /// When `min > max` or the output cannot be allocated.
    #[track_caller]
    pub fn clip(&self, min: T, max: T) -> Tensor<T, D> {
        self.try_clip(min, max).or_panic()
    }

    /// In-place [`Tensor::clip`].
    pub fn clip_(&mut self, min: T, max: T) -> Result<()> {
        check_clip(min, max)?;
        self.maximum_scalar_(min)?;
        self.minimum_scalar_(max)
    }

    /// Raises every element to a power. The exponent's type picks the result type: an `i32`
    /// keeps `T`; an `f32` or `f64` returns `FloatOf<T>`; a `&Tensor<T, D>` broadcasts
    /// (NumPy `power`). As in PyTorch, a scalar 2 is `x · x`, 3 is `x · x · x` (f32, f64 and
    /// the integers; for floats within about an ulp of the rounded power) and -1 is `1 / x`.
    /// Other scalar exponents follow IEEE 754 `pow` (a negative base gives NaN under a
    /// non-integer exponent); on the CPU, f32, f16 and bf16 compute in f64 lanes within 1 ulp
    /// of the correctly rounded power, f64 by libm's `pow`.
    ///
    /// # Errors
    /// `InvalidArgument` for a negative integer exponent on an integer tensor (the result would
    /// not be an integer) or an `i32` exponent that `T` cannot hold.
    pub fn try_pow<E: PowExponent<T, D>>(&self, exponent: E) -> Result<Tensor<E::Output, D>> {
        exponent.pow(self)
    }

    /// [`Tensor::try_pow`], panicking with its error.
    ///
    /// # Panics
    /// When `try_pow` returns an `Err`.
    #[track_caller]
    pub fn pow<E: PowExponent<T, D>>(&self, exponent: E) -> Tensor<E::Output, D> {
        self.try_pow(exponent).or_panic()
    }

    /// In-place power. An `i32` exponent works for every numeric type (a negative one is an
    /// `Err` on integers); a float exponent exists only for float tensors.
    pub fn pow_<E: PowExponentInplace<T, D>>(&mut self, exponent: E) -> Result<()> {
        exponent.pow_(self)
    }

    /// Writes `self ^ other` (broadcast) into `out`, which may be an operand.
    pub fn pow_into(&self, other: &Self, out: &mut Self) -> Result<()> {
        same_device("pow_into", self, other)?;
        same_device("pow_into", self, out)?;
        D::binary_into::<T, PowOp>(self, other, out)
    }
}

/// The autograd record of `x ^ e` for a scalar exponent.
pub(crate) fn pow_op(e: f64) -> Op {
    Op::Scalar {
        name: "pow",
        s: e,
        left: false,
    }
}

/// `x^e` without `pow` for the exponents code writes most, as PyTorch's `pow` does: `x · x`
/// for 2 (exactly `pow`'s correctly rounded result, and the integers' wrapping power),
/// `x · x · x` for 3 in one pass ([`Cube`]: the integers' wrapping power; for f32 and f64 two
/// roundings, within about an ulp, where the 16-bit floats keep `pow`), `1 / x` for -1
/// (exact for floats).
/// `None` for the other exponents. `pow` per element cost about 90 times a multiplication
/// (f32 on the CPU). No recording: the caller records `pow`.
fn pow_shortcut<T: NumElement, D: Backend>(
    x: &Tensor<T, D>,
    e: f64,
) -> Result<Option<Tensor<T, D>>> {
    use super::binary::ops::{Div, Mul};
    let wide_float = matches!(T::DTYPE, crate::Dtype::Float32 | crate::Dtype::Float64);
    Ok(Some(match e {
        2.0 => D::binary::<T, Mul>(x, x)?,
        3.0 if wide_float || !T::DTYPE.is_float() => D::same_unary::<T, Cube>(x)?,
        -1.0 if T::DTYPE.is_float() => D::scalar::<T, Div>(x, T::ONE, true)?,
        _ => return Ok(None),
    }))
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

/// GELU in f64, in the order of PyTorch's formula.
fn gelu_f64(x: f64) -> f64 {
    x * 0.5 * (1.0 + libm::erf(x * std::f64::consts::FRAC_1_SQRT_2))
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

pub(crate) fn negative_exponent(op: &'static str, e: i32, dtype: crate::Dtype) -> Error {
    Error::InvalidArgument {
        op,
        msg: format!(
            "exponent {e} is negative and the tensor has integer dtype {dtype}; the result would not be an integer: use a float exponent (pow({e}.0) returns a float tensor) or cast first"
        ),
    }
}

/// An `i32` exponent as a scalar of `T`: negative ones have no integer result, and ones `T`
/// cannot hold are refused (NumPy 2 raises `OverflowError` for them).
fn int_exponent<T: NumElement>(op: &'static str, e: i32) -> Result<T> {
    if e < 0 && !T::DTYPE.is_float() {
        return Err(negative_exponent(op, e, T::DTYPE));
    }
    let s = T::from_f64(e as f64);
    if s.to_f64() != e as f64 {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "exponent {e} does not fit dtype {}; cast the tensor to a wider dtype first",
                T::DTYPE
            ),
        });
    }
    Ok(s)
}

/// An exponent type for [`Tensor::pow`]: `i32` keeps the element type, `f32`/`f64` promote to
/// [`FloatOf`], a tensor of the same type broadcasts.
#[diagnostic::on_unimplemented(
    message = "`pow` takes an `i32`, `f32` or `f64` exponent or a tensor of the same type, not `{Self}`",
    label = "unsupported exponent type"
)]
pub trait PowExponent<T: NumElement, D: Backend = Cpu> {
    /// The result element type.
    type Output: Element;
    /// Computes `t ^ self`.
    fn pow(self, t: &Tensor<T, D>) -> Result<Tensor<Self::Output, D>>;
}

/// An exponent type for [`Tensor::pow_`]. A float exponent on an integer tensor does not
/// compile: the result would not be an integer.
#[diagnostic::on_unimplemented(
    message = "`pow_` with a `{Self}` exponent needs a float tensor, and `{T}` is not a float type",
    label = "an integer tensor cannot hold a fractional power in place",
    note = "use `pow(..)`, which returns a float tensor, or an `i32` exponent"
)]
pub trait PowExponentInplace<T: NumElement, D: Backend = Cpu> {
    /// Computes `t = t ^ self`.
    fn pow_(self, t: &mut Tensor<T, D>) -> Result<()>;
}

impl<T: NumElement, D: Backend> PowExponent<T, D> for i32 {
    type Output = T;
    fn pow(self, t: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let e = int_exponent("pow", self)?;
        let out = match pow_shortcut(t, self as f64)? {
            Some(out) => out,
            None => D::scalar::<T, PowOp>(t, e, false)?,
        };
        Ok(record(out, pow_op(self as f64), &[t], &[t]))
    }
}

impl<T: NumElement, D: Backend> PowExponentInplace<T, D> for i32 {
    fn pow_(self, t: &mut Tensor<T, D>) -> Result<()> {
        let e = int_exponent("pow_", self)?;
        t.check_writable("pow_")?;
        D::scalar_::<T, PowOp>(t, e)
    }
}

impl<T: NumElement, D: Backend> PowExponent<T, D> for &Tensor<T, D> {
    type Output = T;
    fn pow(self, t: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        same_device("pow", t, self)?;
        let out = D::binary::<T, PowOp>(t, self)?;
        Ok(record_out(out, Op::Binary("pow"), &[t, self], &[t, self]))
    }
}

impl<T: NumElement, D: Backend> PowExponentInplace<T, D> for &Tensor<T, D> {
    fn pow_(self, t: &mut Tensor<T, D>) -> Result<()> {
        same_device("pow_", t, self)?;
        t.check_writable("pow_")?;
        D::binary_::<T, PowOp>(t, self)
    }
}

macro_rules! float_exponent {
    ($($e:ty),*) => {$(
        impl<T: NumElement, D: Backend> PowExponent<T, D> for $e {
            type Output = FloatOf<T>;
            fn pow(self, t: &Tensor<T, D>) -> Result<Tensor<FloatOf<T>, D>> {
                // A float tensor is used as it is (a cast to its own type would copy it).
                let f = crate::ops::converted::<T, FloatOf<T>, D>(t)?;
                let out = match pow_shortcut(&f, self as f64)? {
                    Some(out) => out,
                    None => D::scalar::<FloatOf<T>, PowOp>(&f, <FloatOf<T>>::from_f64(self as f64), false)?,
                };
                Ok(record(out, pow_op(self as f64), &[&f], &[&f]))
            }
        }
        impl<T: FloatElement, D: Backend> PowExponentInplace<T, D> for $e {
            fn pow_(self, t: &mut Tensor<T, D>) -> Result<()> {
                t.check_writable("pow_")?;
                D::scalar_::<T, PowOp>(t, T::from_f64(self as f64))
            }
        }
    )*};
}
float_exponent!(f32, f64);
