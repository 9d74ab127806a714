//! Float functions with NumPy broadcasting: `atan2`, `hypot`, `copysign`, `zeta`, `gammainc`,
//! `gammaincc`, `nextafter` (kernels of their
//! own, in `kernels/binary.cu`; NumPy's and PyTorch's names, IEEE 754 / C99 semantics) and
//! `polygamma` (through `zeta`), `xlogy`, `xlog1py`, `entr`, `ndtr`, `logit`, `rsqrt`, `frac`, `sinc`, `deg2rad`, `rad2deg`, `logaddexp2`, `addcdiv`
//! (composed of other ops, as PyTorch defines them). Integer and bool
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
//! let p = tensor![1.0f64].gammainc(&tensor![2.0f64]); // P(1, 2) = 1 - e^-2
//! assert!((p.to_vec()[0] - (1.0 - (-2.0f64).exp())).abs() < 1e-15);
//! assert_eq!(tensor![1.0f32].nextafter(&tensor![2.0f32]).to_vec(), vec![1.0 + f32::EPSILON]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use super::binary::ops;
use super::device_ops::same_device;
use super::promote::converted;
use crate::autograd::{Op, record};
use crate::backend::Backend;
use crate::dtype::{Element, FloatElement, FloatOf, NumElement};
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
    Zeta: zeta, try_zeta, "The Hurwitz zeta function `ζ(self, other) = Σ_k (k + other)^-self` (PyTorch `special.zeta`, SciPy `zeta`; Cephes' Euler–Maclaurin summation in f64): `inf` at `self = 1` and at the poles `other = 0, -1, ..`, NaN for `self < 1`. Differentiable in `other` only (`-self·ζ(self + 1, other)`), as in PyTorch";
    Nextafter: nextafter, try_nextafter, "The next value of the float type after `self` toward `other` (C99 `nextafter`, NumPy and PyTorch `nextafter`; steps of the stored format, f16 and bf16 included): `other` where they are equal, NaN where either is, the smallest subnormal of `other`'s sign from zero. Not differentiable (a backward through it is an `Err`), as in PyTorch";
    Gammainc: gammainc, try_gammainc, "The regularized lower incomplete gamma function `P(self, other) = γ(a, x)/Γ(a)` with `a = self`, `x = other` (PyTorch `special.gammainc` and `igamma`, SciPy `gammainc`; Cephes' series and continued fraction, Temme's expansion from `a = 10⁴`, in f64): NaN for a negative or NaN argument and at `a = x = 0`, 1 at `a = 0 < x`. Differentiable in `other` only (`x^(a-1)·e^-x / Γ(a)`), as in PyTorch";
    Gammaincc: gammaincc, try_gammaincc, "The regularized upper incomplete gamma function `Q(self, other) = Γ(a, x)/Γ(a) = 1 - P(a, x)` with `a = self`, `x = other` (PyTorch `special.gammaincc` and `igammac`, SciPy `gammaincc`), computed directly where `P` is near 1: NaN for a negative or NaN argument and at `a = x = 0`, 0 at `a = 0 < x`. Differentiable in `other` only (`-x^(a-1)·e^-x / Γ(a)`), as in PyTorch";
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// `self / other` in `FloatOf<T>`, integers converted first (NumPy's `/`, PyTorch
    /// `true_divide`): `7 / 2 = 3.5`, `1 / 0 = inf`.
    ///
    /// # Errors
    /// `Broadcast` naming both shapes; `Device` across devices.
    pub fn try_true_divide(&self, other: &Self) -> Result<Tensor<FloatOf<T>, D>> {
        same_device("true_divide", self, other)?;
        converted::<T, FloatOf<T>, D>(self)?.try_div(&converted::<T, FloatOf<T>, D>(other)?)
    }

    /// `self ^ exponent` computed in f64 whatever the dtype (PyTorch `float_power`, NumPy
    /// `float_power`): `Tensor<f64, D>`.
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_float_power(&self, exponent: f64) -> Result<Tensor<f64, D>> {
        self.try_cast::<f64>()?.try_pow(exponent)
    }

    /// `self · 2^exponent` (NumPy and PyTorch `ldexp`), in `FloatOf<T>`: the power of two
    /// applied in two halves, so that `ldexp(0.5, 1024)` is `2^1023` rather than `0.5 · inf`.
    ///
    /// # Errors
    /// `Broadcast` naming both shapes; `Device` across devices.
    pub fn try_ldexp(&self, exponent: &Tensor<i64, D>) -> Result<Tensor<FloatOf<T>, D>> {
        same_device("ldexp", self, exponent)?;
        crate::shape::broadcast_shapes("ldexp", self.shape(), exponent.shape())?;
        let half = exponent.try_div_scalar(2)?;
        let rest = exponent.try_sub(&half)?;
        let two = |e: &Tensor<i64, D>| e.try_cast::<FloatOf<T>>()?.try_exp2();
        converted::<T, FloatOf<T>, D>(self)?
            .try_mul(&two(&half)?)?
            .try_mul(&two(&rest)?)
    }

    /// The `n`-th derivative of the digamma function (PyTorch `polygamma`, SciPy
    /// `polygamma`): `digamma` for `n = 0`, else `(-1)^(n+1)·n!·ζ(n + 1, x)` in `FloatOf<T>`
    /// (`n!` overflows the float type for large `n`, as in PyTorch). Differentiable.
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_polygamma(&self, n: usize) -> Result<Tensor<FloatOf<T>, D>> {
        if n == 0 {
            return self.try_digamma();
        }
        let x = converted::<T, FloatOf<T>, D>(self)?;
        let order = Tensor::full_on(
            [],
            FloatOf::<T>::from_f64(n as f64 + 1.0),
            x.device_handle(),
        )?;
        let sign = if n % 2 == 1 { 1.0 } else { -1.0 };
        let factorial = libm::lgamma(n as f64 + 1.0).exp();
        order
            .try_zeta(&x)?
            .try_mul_scalar(FloatOf::<T>::from_f64(sign * factorial))
    }

    /// The distance from each element to the next value of the float type away from zero
    /// (NumPy `spacing`): `nextafter(x, ±inf) - x`, signed as `x`, in `FloatOf<T>`; the
    /// smallest positive subnormal at both zeros, NaN at ±inf and NaN, inf at the largest
    /// finite value. NumPy's f16 `spacing` of a negative number is positive (the step toward
    /// zero); this is the f64 rule for every type. Not differentiable.
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_spacing(&self) -> Result<Tensor<FloatOf<T>, D>> {
        let x = converted::<T, FloatOf<T>, D>(self)?;
        let dev = x.device_handle();
        let inf = |v: f64| Tensor::scalar_on(FloatOf::<T>::from_f64(v), dev);
        let negative = x.try_lt_scalar(FloatOf::<T>::ZERO)?;
        let toward = Tensor::try_where(&negative, &inf(f64::NEG_INFINITY)?, &inf(f64::INFINITY)?)?;
        x.try_nextafter(&toward)?.try_sub(&x)
    }

    /// SciPy's and PyTorch's `special.expit`: [`Tensor::try_sigmoid`].
    ///
    /// # Errors
    /// As [`Tensor::try_sigmoid`].
    pub fn try_expit(&self) -> Result<Tensor<FloatOf<T>, D>> {
        self.try_sigmoid()
    }

    /// SciPy's and PyTorch's `special.gammaln`: [`Tensor::try_lgamma`].
    ///
    /// # Errors
    /// As [`Tensor::try_lgamma`].
    pub fn try_gammaln(&self) -> Result<Tensor<FloatOf<T>, D>> {
        self.try_lgamma()
    }

    /// SciPy's and PyTorch's `special.psi`: [`Tensor::try_digamma`].
    ///
    /// # Errors
    /// As [`Tensor::try_digamma`].
    pub fn try_psi(&self) -> Result<Tensor<FloatOf<T>, D>> {
        self.try_digamma()
    }

    /// SciPy's and PyTorch's `special.multigammaln`: [`Tensor::try_mvlgamma`] of the float
    /// tensor.
    ///
    /// # Errors
    /// As [`Tensor::try_mvlgamma`].
    pub fn try_multigammaln(&self, p: usize) -> Result<Tensor<FloatOf<T>, D>> {
        converted::<T, FloatOf<T>, D>(self)?.try_mvlgamma(p)
    }

    /// PyTorch's `special.modified_bessel_i0`: [`Tensor::try_i0`].
    ///
    /// # Errors
    /// As [`Tensor::try_i0`].
    pub fn try_modified_bessel_i0(&self) -> Result<Tensor<FloatOf<T>, D>> {
        self.try_i0()
    }

    /// PyTorch's `special.modified_bessel_i1`: [`Tensor::try_i1`].
    ///
    /// # Errors
    /// As [`Tensor::try_i1`].
    pub fn try_modified_bessel_i1(&self) -> Result<Tensor<FloatOf<T>, D>> {
        self.try_i1()
    }

    /// PyTorch's older name for [`Tensor::try_gammainc`] (`torch.igamma`).
    ///
    /// # Errors
    /// As [`Tensor::try_gammainc`].
    pub fn try_igamma(&self, other: &Self) -> Result<Tensor<FloatOf<T>, D>> {
        self.try_gammainc(other)
    }

    /// PyTorch's older name for [`Tensor::try_gammaincc`] (`torch.igammac`).
    ///
    /// # Errors
    /// As [`Tensor::try_gammaincc`].
    pub fn try_igammac(&self, other: &Self) -> Result<Tensor<FloatOf<T>, D>> {
        self.try_gammaincc(other)
    }

    plain_forms! {
        /// [`Tensor::try_spacing`], panicking with its error.
        spacing, try_spacing() -> Tensor<FloatOf<T>, D>;
        /// [`Tensor::try_expit`], panicking with its error.
        expit, try_expit() -> Tensor<FloatOf<T>, D>;
        /// [`Tensor::try_gammaln`], panicking with its error.
        gammaln, try_gammaln() -> Tensor<FloatOf<T>, D>;
        /// [`Tensor::try_psi`], panicking with its error.
        psi, try_psi() -> Tensor<FloatOf<T>, D>;
        /// [`Tensor::try_multigammaln`], panicking with its error.
        multigammaln, try_multigammaln(p: usize) -> Tensor<FloatOf<T>, D>;
        /// [`Tensor::try_modified_bessel_i0`], panicking with its error.
        modified_bessel_i0, try_modified_bessel_i0() -> Tensor<FloatOf<T>, D>;
        /// [`Tensor::try_modified_bessel_i1`], panicking with its error.
        modified_bessel_i1, try_modified_bessel_i1() -> Tensor<FloatOf<T>, D>;
        /// [`Tensor::try_igamma`], panicking with its error.
        igamma, try_igamma(other: &Self) -> Tensor<FloatOf<T>, D>;
        /// [`Tensor::try_igammac`], panicking with its error.
        igammac, try_igammac(other: &Self) -> Tensor<FloatOf<T>, D>;
        /// [`Tensor::try_polygamma`], panicking with its error.
        polygamma, try_polygamma(n: usize) -> Tensor<FloatOf<T>, D>;
        /// [`Tensor::try_true_divide`], panicking with its error.
        true_divide, try_true_divide(other: &Self) -> Tensor<FloatOf<T>, D>;
        /// [`Tensor::try_float_power`], panicking with its error.
        float_power, try_float_power(exponent: f64) -> Tensor<f64, D>;
        /// [`Tensor::try_ldexp`], panicking with its error.
        ldexp, try_ldexp(exponent: &Tensor<i64, D>) -> Tensor<FloatOf<T>, D>;
    }
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// The mantissa in `±[0.5, 1)` and the exponent of each element, `x = m · 2^e` (C's
    /// `frexp`, NumPy and PyTorch `frexp`): `(0, 0)` for zeros, `(x, 0)` for infinities and
    /// NaN. The mantissa keeps the dtype; the exponent is i32.
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_frexp(&self) -> Result<(Self, Tensor<i32, D>)> {
        crate::autograd::no_grad(|| {
            let x = self.try_cast::<f64>()?;
            let finite = x.try_is_finite()?.try_logical_and(&x.try_ne_scalar(0.0)?)?;
            let one = Tensor::<f64, D>::scalar_on(1.0, self.device_handle())?;
            let safe = Tensor::try_where(&finite, &x, &one)?;
            // A first guess from log2, corrected by one where it rounded across a power of 2.
            let mut e = safe
                .try_abs()?
                .try_log2()?
                .try_floor()?
                .try_add_scalar(1.0)?;
            let scale = |e: &Tensor<f64, D>| -> Result<Tensor<f64, D>> {
                let h = e.try_mul_scalar(0.5)?.try_trunc()?;
                let r = e.try_sub(&h)?;
                safe.try_mul(&h.try_neg()?.try_exp2()?)?
                    .try_mul(&r.try_neg()?.try_exp2()?)
            };
            let m = scale(&e)?;
            let big = m.try_abs()?.try_ge_scalar(1.0)?.try_cast::<f64>()?;
            let small = m.try_abs()?.try_lt_scalar(0.5)?.try_cast::<f64>()?;
            e = e.try_add(&big)?.try_sub(&small)?;
            let m = scale(&e)?;
            let zero = Tensor::<f64, D>::scalar_on(0.0, self.device_handle())?;
            let m = Tensor::try_where(&finite, &m, &x)?;
            let e = Tensor::try_where(&finite, &e, &zero)?;
            Ok((m.try_cast::<T>()?, e.try_cast::<i32>()?))
        })
    }

    /// Rounds to `decimals` decimal places, half to even (NumPy `round(x, decimals)`, PyTorch
    /// `round(decimals=)`): `rint(x·10ᵈ)/10ᵈ`, or `rint(x/10⁻ᵈ)·10⁻ᵈ` for negative `decimals`,
    /// computed in f64 for 16-bit types and f32 in `T`, as NumPy does (so `round(2.675, 2)` is
    /// 2.67 and the result need not be the nearest decimal). Its gradient is 0, as `round`'s.
    ///
    /// # Errors
    /// `InvalidArgument` when `|decimals| > 308` (10ᵈ leaves f64's range).
    pub fn try_round_decimals(&self, decimals: i32) -> Result<Self> {
        if decimals.unsigned_abs() > 308 {
            return Err(Error::InvalidArgument {
                op: "round_decimals",
                msg: format!("decimals must lie in -308..=308, got {decimals}"),
            });
        }
        let scale = T::from_f64(10f64.powi(decimals.abs()));
        if decimals >= 0 {
            self.try_mul_scalar(scale)?
                .try_round()?
                .try_div_scalar(scale)
        } else {
            self.try_div_scalar(scale)?
                .try_round()?
                .try_mul_scalar(scale)
        }
    }

    plain_forms! {
        /// [`Tensor::try_frexp`], panicking with its error.
        frexp, try_frexp() -> (Self, Tensor<i32, D>);
        /// [`Tensor::try_round_decimals`], panicking with its error.
        round_decimals, try_round_decimals(decimals: i32) -> Self;
    }
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// `self · log(other)`, and 0 where `self` is 0 unless `other` is NaN (PyTorch `xlogy`,
    /// SciPy `special.xlogy`), with broadcasting. Gradients (PyTorch's): `log(other)`, 0 where
    /// `self` is 0 and `other <= 0`; and `self / other`.
    ///
    /// # Errors
    /// `Broadcast` naming both shapes; `Device` across devices.
    pub fn try_xlogy(&self, other: &Self) -> Result<Self> {
        self.x_log(other, "xlogy")
    }

    /// `self · log1p(other)`, and 0 where `self` is 0 unless `other` is NaN (PyTorch
    /// `special.xlog1py`, SciPy `special.xlog1py`), with broadcasting. Gradients (PyTorch's):
    /// `log1p(other)`, 0 where `self` is 0 and `other <= -1`; and `self / (1 + other)`.
    ///
    /// # Errors
    /// `Broadcast` naming both shapes; `Device` across devices.
    pub fn try_xlog1py(&self, other: &Self) -> Result<Self> {
        self.x_log(other, "xlog1py")
    }

    /// `xlogy` or `xlog1py`, recorded as one binary op (its rule is in `autograd::rules`).
    fn x_log(&self, other: &Self, name: &'static str) -> Result<Self> {
        crate::shape::broadcast_shapes(name, self.shape(), other.shape())?;
        let out = crate::autograd::no_grad(|| {
            let zero = Self::scalar_on(T::ZERO, self.device_handle())?;
            let skip = self
                .try_eq(&zero)?
                .try_logical_and(&other.try_ne(other)?.try_logical_not()?)?;
            let log = if name == "xlogy" {
                other.try_log()?
            } else {
                other.try_log1p()?
            };
            Self::try_where(&skip, &zero, &self.try_mul(&log)?)
        })?;
        let op = crate::autograd::Op::Binary(name);
        Ok(crate::autograd::record(
            out,
            op,
            &[self, other],
            &[self, other],
        ))
    }

    /// The elementwise entropy `-x·ln x`, 0 at 0 and `-inf` below (PyTorch `special.entr`,
    /// SciPy `special.entr`).
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_entr(&self) -> Result<Self> {
        let zero = Self::scalar_on(T::ZERO, self.device_handle())?;
        let neg_inf = Self::scalar_on(T::from_f64(f64::NEG_INFINITY), self.device_handle())?;
        let xlogx = self.try_xlogy(self)?.try_neg()?;
        let out = Self::try_where(&self.try_lt(&zero)?, &neg_inf, &xlogx)?;
        Self::try_where(&self.try_eq(&zero)?, &zero, &out)
    }

    /// The standard normal distribution function `Φ(x) = erfc(-x/√2) / 2` (PyTorch
    /// `special.ndtr`, SciPy `special.ndtr`), accurate in both tails.
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_ndtr(&self) -> Result<Self> {
        self.try_mul_scalar(T::from_f64(-std::f64::consts::FRAC_1_SQRT_2))?
            .try_erfc()?
            .try_mul_scalar(T::from_f64(0.5))
    }

    /// `log(p / (1 - p))` (PyTorch `logit`), with `p` clamped to `[eps, 1 - eps]` first when
    /// `eps` is given (the gradient is then 0 outside that interval). Without `eps` the
    /// gradient is PyTorch's `1 / (p (1 - p))`: infinite at 0 and 1, NaN outside `[0, 1]`.
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
            None => {
                let y = crate::autograd::no_grad(|| {
                    self.try_div(&self.try_rsub_scalar(T::ONE)?)?.try_log()
                })?;
                let op = crate::autograd::Op::Unary("logit");
                return Ok(crate::autograd::record_out(y, op, &[self], &[self]));
            }
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

    /// The fractional part `self - trunc(self)`, with `self`'s sign (PyTorch `frac`; NumPy
    /// `modf`'s first result): `frac(-1.5) = -0.5`, infinities give NaN. Gradient 1.
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_frac(&self) -> Result<Self> {
        self.try_sub(&self.try_trunc()?)
    }

    /// The normalised sinc `sin(πx) / (πx)`, 1 at 0 (NumPy and PyTorch `sinc`). The gradient
    /// at 0 is 0, and finite near it, without NaN.
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_sinc(&self) -> Result<Self> {
        use std::f64::consts::PI;
        let dev = self.device_handle();
        // Below |x| = 2^-15 the series 1 - (πx)²/6 is exact to well under an f64 ulp (the next
        // term is (πx)⁴/120 < 2^-65), and unlike sin(πx)/(πx) its gradient never divides by
        // an underflowed (πx)². The sine branch sees 1 there, so it holds no 0/0 either (whose
        // gradient times 0 would be NaN).
        let small = self.try_abs()?.try_lt_scalar(T::from_f64(2f64.powi(-15)))?;
        let px = Self::try_where(&small, &Self::scalar_on(T::ONE, dev)?, self)?
            .try_mul_scalar(T::from_f64(PI))?;
        let series = self
            .try_mul(self)?
            .try_mul_scalar(T::from_f64(-PI * PI / 6.0))?
            .try_add_scalar(T::ONE)?;
        Self::try_where(&small, &series, &px.try_sin()?.try_div(&px)?)
    }

    /// Degrees to radians, `self · π/180` (NumPy and PyTorch `deg2rad`).
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_deg2rad(&self) -> Result<Self> {
        self.try_mul_scalar(T::from_f64(std::f64::consts::PI / 180.0))
    }

    /// Radians to degrees, `self · 180/π` (NumPy and PyTorch `rad2deg`).
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_rad2deg(&self) -> Result<Self> {
        self.try_mul_scalar(T::from_f64(180.0 / std::f64::consts::PI))
    }

    /// `log2(2^a + 2^b)` without overflow (NumPy and PyTorch `logaddexp2`), with
    /// broadcasting: `max(a, b) + log2(1 + 2^-|a - b|)`, and `a + 1` where `a == b` (so equal
    /// infinities stay infinite). NaN propagates.
    ///
    /// # Errors
    /// `Broadcast` naming both shapes; `Device` across devices.
    pub fn try_logaddexp2(&self, other: &Self) -> Result<Self> {
        crate::shape::broadcast_shapes("logaddexp2", self.shape(), other.shape())?;
        let m = self.try_maximum(other)?;
        let tail = self
            .try_sub(other)?
            .try_abs()?
            .try_neg()?
            .try_exp2()?
            .try_log1p()?
            .try_mul_scalar(T::from_f64(std::f64::consts::LOG2_E))?;
        Self::try_where(
            &self.try_eq(other)?,
            &m.try_add_scalar(T::ONE)?,
            &m.try_add(&tail)?,
        )
    }

    /// `self + value · tensor1 / tensor2`, the three broadcast together (PyTorch `addcdiv`;
    /// float dtypes only, as PyTorch now requires).
    ///
    /// # Errors
    /// `Broadcast` when the shapes do not broadcast; `Device` across devices.
    pub fn try_addcdiv(&self, tensor1: &Self, tensor2: &Self, value: T) -> Result<Self> {
        let shape = crate::shape::broadcast_shapes("addcdiv", tensor1.shape(), tensor2.shape())?;
        crate::shape::broadcast_shapes("addcdiv", self.shape(), &shape)?;
        let q = tensor1.try_div(tensor2)?;
        let q = if value == T::ONE {
            q
        } else {
            q.try_mul_scalar(value)?
        };
        self.try_add(&q)
    }

    plain_forms! {
        /// [`Tensor::try_frac`], panicking with its error.
        frac, try_frac() -> Self;
        /// [`Tensor::try_sinc`], panicking with its error.
        sinc, try_sinc() -> Self;
        /// [`Tensor::try_deg2rad`], panicking with its error.
        deg2rad, try_deg2rad() -> Self;
        /// [`Tensor::try_rad2deg`], panicking with its error.
        rad2deg, try_rad2deg() -> Self;
        /// [`Tensor::try_logaddexp2`], panicking with its error.
        logaddexp2, try_logaddexp2(other: &Self) -> Self;
        /// [`Tensor::try_addcdiv`], panicking with its error.
        addcdiv, try_addcdiv(tensor1: &Self, tensor2: &Self, value: T) -> Self;
        /// [`Tensor::try_xlogy`], panicking with its error.
        xlogy, try_xlogy(other: &Self) -> Self;
        /// [`Tensor::try_xlog1py`], panicking with its error.
        xlog1py, try_xlog1py(other: &Self) -> Self;
        /// [`Tensor::try_entr`], panicking with its error.
        entr, try_entr() -> Self;
        /// [`Tensor::try_ndtr`], panicking with its error.
        ndtr, try_ndtr() -> Self;
        /// [`Tensor::try_logit`], panicking with its error.
        logit, try_logit(eps: Option<f64>) -> Self;
        /// [`Tensor::try_rsqrt`], panicking with its error.
        rsqrt, try_rsqrt() -> Self;
    }
}
