//! `erf` by three fitted pieces, and GELU and its derivative on it.

// The fitted coefficients are written with the digits the fit printed.
#![allow(clippy::excessive_precision)]

use super::elementary::Exp;
use super::{Arith, Kernel};

/// `erf`, three fits selected branch-free (least squares on Chebyshev nodes, the
/// coefficients rounded to f32; at most 1 ulp in a dense sweep): `x + x Q(x²)` for |x| < 1
/// (musl's form, so small and subnormal `x` keep their precision), a degree-9 polynomial in
/// `|x| - 1.5` on [1, 2), and `1 - e^(-a²) R(a)` with `R ≈ erfc(a) e^(a²)` in `a - 3` above,
/// `a = min(|x|, 4)` (the result rounds to ±1 from 3.92 on). Covers every non-NaN input.
pub(super) struct Erf;
impl Erf {
    /// Whether `x` is below 2, where [`Erf::pieces`] needs no tail. GELU and its derivative
    /// take that path for blocks of such inputs (most blocks of a network's activations);
    /// `erf` itself does not, since a block of 256 normal samples almost never qualifies and
    /// the scan would cost more than it saves.
    #[inline(always)]
    pub(super) fn near(x: f32) -> bool {
        x.abs() < 2.0
    }
    /// The fits; `WITH_TAIL` false leaves out the piece above 2 (for inputs below it).
    #[inline(always)]
    pub(super) fn pieces<A: Arith, const WITH_TAIL: bool>(x: f32) -> f32 {
        #[inline(always)]
        fn horner<A: Arith, const N: usize>(c: [f32; N], t: f32) -> f32 {
            c[..N - 1]
                .iter()
                .rev()
                .fold(c[N - 1], |p, &ci| A::fma(p, t, ci))
        }
        const SMALL: [f32; 7] = [
            0.128_379_166_126_251_22,
            -0.376_126_259_565_353_4,
            0.112_835_973_501_205_44,
            -0.026_854_328_811_168_67,
            0.005_189_312_156_289_816,
            -0.000_801_885_500_550_270_1,
            7.882_497_448_008_507e-5,
        ];
        const MIDDLE: [f32; 10] = [
            0.966_105_163_097_381_6,
            0.118_930_287_659_168_24,
            -0.178_395_420_312_881_47,
            0.138_752_207_159_996_03,
            -0.044_599_447_399_377_82,
            -0.014_870_842_918_753_624,
            0.019_333_429_634_571_075,
            -0.004_701_163_619_756_699,
            -0.002_401_930_280_029_773_7,
            0.001_540_411_496_534_943_6,
        ];
        const TAIL: [f32; 8] = [
            0.179_001_107_811_927_8,
            -0.054_372_210_055_589_676,
            0.015_885_822_474_956_512,
            -0.004_480_086_266_994_476,
            0.001_215_876_778_587_699,
            -0.000_321_798_055_665_567_5,
            9.471_501_834_923_401e-5,
            -2.400_868_834_229_186_2e-5,
        ];
        let a = x.abs();
        // All the pieces needed are computed (NaN in an unselected one, at ±inf, is
        // harmless); without the tail for arguments below 2 (`Erf::near`).
        let small = x + x * horner::<A, 7>(SMALL, x * x);
        let middle = horner::<A, 10>(MIDDLE, a - 1.5);
        let large = if WITH_TAIL {
            let c = a.min(4.0);
            let tail = 1.0 - Exp::normal::<A>(-(c * c)) * horner::<A, 8>(TAIL, c - 3.0);
            if a < 2.0 { middle } else { tail }
        } else {
            middle
        };
        if a < 1.0 { small } else { large.copysign(x) }
    }
}
impl Kernel for Erf {
    #[inline(always)]
    fn covers(x: f32) -> bool {
        !x.is_nan()
    }
    #[inline(always)]
    fn eval<A: Arith>(x: f32) -> f32 {
        Erf::pieces::<A, true>(x)
    }
    fn slow(x: f32) -> f32 {
        libm::erf(f64::from(x)) as f32
    }
}

/// GELU, `x / 2 · (1 + erf(x / √2))` with [`Erf`], in the order of PyTorch's formula (so
/// it cancels to ±0 far below 0, as PyTorch's does). Covers every non-NaN input.
pub(super) struct Gelu;
impl Kernel for Gelu {
    const HAS_NEAR: bool = true;
    #[inline(always)]
    fn covers(x: f32) -> bool {
        !x.is_nan()
    }
    #[inline(always)]
    fn eval<A: Arith>(x: f32) -> f32 {
        x * 0.5 * (1.0 + Erf::eval::<A>(x * std::f32::consts::FRAC_1_SQRT_2))
    }
    #[inline(always)]
    fn covers_near(x: f32) -> bool {
        Erf::near(x * std::f32::consts::FRAC_1_SQRT_2)
    }
    #[inline(always)]
    fn eval_near<A: Arith>(x: f32) -> f32 {
        x * 0.5 * (1.0 + Erf::pieces::<A, false>(x * std::f32::consts::FRAC_1_SQRT_2))
    }
    fn slow(x: f32) -> f32 {
        x // NaN, the one input not covered
    }
}

/// GELU's derivative, `Φ(x) + x φ(x) = (1 + erf(x / √2)) / 2 + x e^(-x²/2) / √(2π)` with
/// [`Erf`] and [`Exp`] (PyTorch's `gelu_backward` without the incoming gradient). Covers the
/// finite inputs (`x²` overflowing to inf gives `e^-inf = 0`); ±inf and NaN go to f64, which
/// gives NaN (PyTorch's too).
pub(super) struct GeluGrad;
impl Kernel for GeluGrad {
    const HAS_NEAR: bool = true;
    #[inline(always)]
    fn covers(x: f32) -> bool {
        x.is_finite()
    }
    #[inline(always)]
    fn eval<A: Arith>(x: f32) -> f32 {
        let cdf = 0.5 * (1.0 + Erf::eval::<A>(x * std::f32::consts::FRAC_1_SQRT_2));
        let pdf = Exp::eval::<A>(-0.5 * (x * x)) * FRAC_1_SQRT_2PI;
        cdf + x * pdf
    }
    #[inline(always)]
    fn covers_near(x: f32) -> bool {
        Erf::near(x * std::f32::consts::FRAC_1_SQRT_2)
    }
    #[inline(always)]
    fn eval_near<A: Arith>(x: f32) -> f32 {
        let cdf = 0.5 * (1.0 + Erf::pieces::<A, false>(x * std::f32::consts::FRAC_1_SQRT_2));
        let pdf = Exp::eval::<A>(-0.5 * (x * x)) * FRAC_1_SQRT_2PI;
        cdf + x * pdf
    }
    fn slow(x: f32) -> f32 {
        gelu_grad_f64(f64::from(x)) as f32
    }
}

/// `1 / √(2π)`.
pub(super) const FRAC_1_SQRT_2PI: f32 = 0.398_942_28;

/// GELU's derivative in f64 (the reference of [`GeluGrad`]): NaN at ±inf, where `x φ(x)` is
/// `inf · 0`, as PyTorch's `gelu_backward` and the composed rule give.
pub(super) fn gelu_grad_f64(x: f64) -> f64 {
    let cdf = 0.5 * (1.0 + libm::erf(x * std::f64::consts::FRAC_1_SQRT_2));
    cdf + x
        * (-0.5 * x * x).exp()
        * (0.5 * std::f64::consts::FRAC_2_SQRT_PI * std::f64::consts::FRAC_1_SQRT_2)
}
