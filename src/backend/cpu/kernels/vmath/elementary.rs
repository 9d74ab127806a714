//! The elementary kernels: Cephes `sinf`/`cosf` after a five-part Cody-Waite reduction,
//! `expf`, `logf` and the functions built on their polynomials (`exp2`, `expm1`, `log2`,
//! `log1p`, `tanh`, the logistic sigmoid).

// The split constants are written with every digit of their exact binary values.
#![allow(clippy::excessive_precision)]

use super::{Arith, Kernel};

pub(super) const LIMIT: f32 = 8192.0;
pub(super) const TWO_OVER_PI: f32 = std::f32::consts::FRAC_2_PI;
pub(super) const P1: f32 = 1.570_312_5;
pub(super) const P2: f32 = 4.837_512_969_970_703e-4;
pub(super) const P3: f32 = 7.549_533_620_476_723e-8;
pub(super) const P4: f32 = 2.563_282_919_254_561_4e-12;
pub(super) const P5: f32 = 6.123_234_262_925_839e-17;
/// Adding and subtracting 1.5 · 2^23 rounds an f32 to the nearest integer without a libm call.
pub(super) const ROUND: f32 = 12_582_912.0;

#[inline(always)]
pub(super) fn kernel<A: Arith>(x: f32, shift: i32) -> f32 {
    let t = x * TWO_OVER_PI + ROUND;
    let j = t - ROUND;
    // The low mantissa bits of `t` hold `j` in two's complement: no saturating float-to-int.
    let q = (t.to_bits() as i32).wrapping_add(shift);
    let r = (((x - j * P1) - j * P2) - j * P3) - j * P4 - j * P5;
    let z = r * r;
    let sp = A::fma(A::fma(z, -1.951_529_6e-4, 8.332_161e-3), z, -1.666_665_5e-1);
    let s = A::fma(r * z, sp, r);
    // `r + (+0)` is +0 for r = -0: keep r's sign, as IEEE 754's sin(-0) = -0 (a select).
    let s = if r == 0.0 { r } else { s };
    let cp = A::fma(
        A::fma(z, 2.443_315_7e-5, -1.388_731_6e-3),
        z,
        4.166_664_6e-2,
    );
    let c = A::fma(z * z, cp, 1.0 - 0.5 * z);
    let v = if q & 1 != 0 { c } else { s };
    if q & 2 != 0 { -v } else { v }
}

/// `sin` (`QUADRANT` 0) and `cos` (`QUADRANT` 1: `cos x = sin(x + π/2)`, one quadrant further).
pub(super) struct SinCos<const QUADRANT: i32>;
impl<const QUADRANT: i32> Kernel for SinCos<QUADRANT> {
    #[inline(always)]
    fn covers(x: f32) -> bool {
        x.abs() <= LIMIT
    }
    #[inline(always)]
    fn eval<A: Arith>(x: f32) -> f32 {
        kernel::<A>(x, QUADRANT)
    }
    fn slow(x: f32) -> f32 {
        if QUADRANT == 0 { x.sin() } else { x.cos() }
    }
}

/// Cephes `expf`: `x = n ln 2 + r` with ln 2 in two parts (`n · EXP_C1` is exact for |n| ≤ 127),
/// a degree-5 polynomial for `e^r` on |r| ≤ ln 2 / 2, and `2^n` built from its exponent bits.
/// Covers [-87, 88], where every result and `2^n` are normal f32, and everything below -104
/// (-inf included: a softmax's masked scores), where the result rounds to +0; between them
/// (subnormal results), above (overflow to inf) and at NaN `f32::exp` decides.
pub(super) struct Exp;
pub(super) const EXP_C1: f32 = 0.693_359_375;
pub(super) const EXP_C2: f32 = -2.121_944_4e-4;
impl Exp {
    /// The kernel on [-87, 88].
    #[inline(always)]
    pub(super) fn normal<A: Arith>(x: f32) -> f32 {
        let (r, scale) = exp_reduce(x);
        (exp_m1_poly::<A>(r) + 1.0) * scale
    }
}
impl Kernel for Exp {
    #[inline(always)]
    fn covers(x: f32) -> bool {
        (-87.0..=88.0).contains(&x) || x < -104.0
    }
    #[inline(always)]
    fn eval<A: Arith>(x: f32) -> f32 {
        let y = Exp::normal::<A>(x.max(-87.0));
        if x < -104.0 { 0.0 } else { y }
    }
    fn slow(x: f32) -> f32 {
        x.exp()
    }
}

/// `x = n ln 2 + r` with |r| ≤ ln 2 / 2 (`n · EXP_C1` is exact for |n| ≤ 127): returns `r` and
/// `2^n`, built from its exponent bits (normal for n in [-126, 127]).
#[inline(always)]
pub(super) fn exp_reduce(x: f32) -> (f32, f32) {
    let t = x * std::f32::consts::LOG2_E + ROUND;
    let n = t - ROUND;
    let r = (x - n * EXP_C1) - n * EXP_C2;
    (r, pow2(t))
}

/// `2^n` for the integer `n` held in the low mantissa bits of `t = n + ROUND`.
#[inline(always)]
pub(super) fn pow2(t: f32) -> f32 {
    // `t`'s mantissa holds ROUND + n exactly, so the bit difference is n.
    let ni = (t.to_bits() as i32).wrapping_sub(ROUND.to_bits() as i32);
    f32::from_bits((ni.wrapping_add(127) as u32) << 23)
}

/// `e^r - 1` for |r| ≤ ln 2 / 2: Cephes `expf`'s degree-5 polynomial without its leading 1.
#[inline(always)]
pub(super) fn exp_m1_poly<A: Arith>(r: f32) -> f32 {
    let z = r * r;
    let p = 1.987_569_1e-4;
    let p = A::fma(p, r, 1.398_199_9e-3);
    let p = A::fma(p, r, 8.333_452e-3);
    let p = A::fma(p, r, 4.166_579_6e-2);
    let p = A::fma(p, r, 1.666_666_5e-1);
    let p = A::fma(p, r, 5.000_000_1e-1);
    p * z + r
}

/// `2^x`: `x = n + t` with |t| ≤ ½ (exact), `2^t = e^(t ln 2)` by the `exp` polynomial. Covers
/// [-125, 127], where the result is normal.
pub(super) struct Exp2;
impl Kernel for Exp2 {
    #[inline(always)]
    fn covers(x: f32) -> bool {
        (-125.0..=127.0).contains(&x)
    }
    #[inline(always)]
    fn eval<A: Arith>(x: f32) -> f32 {
        let t = x + ROUND;
        let r = (x - (t - ROUND)) * std::f32::consts::LN_2;
        (exp_m1_poly::<A>(r) + 1.0) * pow2(t)
    }
    fn slow(x: f32) -> f32 {
        x.exp2()
    }
}

/// `e^x - 1` (Cephes `expm1f`'s scheme): `2^n (e^r - 1) + (2^n - 1)`, which is the polynomial
/// itself (no cancellation) when n = 0. Covers [-87, 88] except ±0 (whose sign libm keeps).
pub(super) struct Expm1;
impl Kernel for Expm1 {
    #[inline(always)]
    fn covers(x: f32) -> bool {
        (-87.0..=88.0).contains(&x) && x != 0.0
    }
    #[inline(always)]
    fn eval<A: Arith>(x: f32) -> f32 {
        let (r, scale) = exp_reduce(x);
        scale * exp_m1_poly::<A>(r) + (scale - 1.0)
    }
    fn slow(x: f32) -> f32 {
        x.exp_m1()
    }
}

/// `tanh`: Cephes `tanhf`, `x + x³ P(x²)` for |x| < 0.625, else `±(1 - 2 / (e^(2|x|) + 1))`,
/// both computed and one selected. Covers 0 < |x| ≤ 43 (`e^(2|x|)` stays finite).
pub(super) struct Tanh;
impl Kernel for Tanh {
    #[inline(always)]
    fn covers(x: f32) -> bool {
        x.abs() <= 43.0 && x != 0.0
    }
    #[inline(always)]
    fn eval<A: Arith>(x: f32) -> f32 {
        let a = x.abs();
        let s = x * x;
        let p = -5.704_988_7e-3;
        let p = A::fma(p, s, 2.063_908_9e-2);
        let p = A::fma(p, s, -5.373_971_6e-2);
        let p = A::fma(p, s, 1.333_144_2e-1);
        let p = A::fma(p, s, -3.333_328_2e-1);
        let small = p * s * x + x;
        let large = (1.0 - 2.0 / (Exp::normal::<A>(a + a) + 1.0)).copysign(x);
        if a < 0.625 { small } else { large }
    }
    fn slow(x: f32) -> f32 {
        x.tanh()
    }
}

/// The logistic function: `e = e^-|x|`, then `1 / (1 + e)` for x ≥ 0 and `e / (1 + e)` below,
/// one division either way (no cancellation). Covers |x| ≤ 87.
pub(super) struct Sigmoid;
impl Kernel for Sigmoid {
    #[inline(always)]
    fn covers(x: f32) -> bool {
        x.abs() <= 87.0
    }
    #[inline(always)]
    fn eval<A: Arith>(x: f32) -> f32 {
        let e = Exp::normal::<A>(-x.abs());
        let num = if x >= 0.0 { 1.0 } else { e };
        num / (1.0 + e)
    }
    fn slow(x: f32) -> f32 {
        if x >= 0.0 {
            1.0 / (1.0 + (-x).exp())
        } else {
            let e = x.exp();
            e / (1.0 + e)
        }
    }
}

/// SiLU, `x / (1 + e^-x)` with [`Exp`], in PyTorch's formula (far below 0 it is `x / inf =
/// -0`, not a subnormal). Covers |x| ≤ 87; the others go to the same formula in scalar f32.
pub(super) struct Silu;
impl Kernel for Silu {
    #[inline(always)]
    fn covers(x: f32) -> bool {
        x.abs() <= 87.0
    }
    #[inline(always)]
    fn eval<A: Arith>(x: f32) -> f32 {
        x / (1.0 + Exp::normal::<A>(-x))
    }
    fn slow(x: f32) -> f32 {
        x / (1.0 + (-x).exp())
    }
}

/// SiLU's derivative, `s (1 + x (1 - s))` with `s = 1 / (1 + e^-x)` and `1 - s = e^-x s`
/// (PyTorch's `silu_backward` without the incoming gradient). Covers |x| ≤ 87; the others go
/// to PyTorch's formula in f64 (NaN at ±inf, as PyTorch's; -0 far below 0).
pub(super) struct SiluGrad;
impl Kernel for SiluGrad {
    #[inline(always)]
    fn covers(x: f32) -> bool {
        x.abs() <= 87.0
    }
    #[inline(always)]
    fn eval<A: Arith>(x: f32) -> f32 {
        let e = Exp::normal::<A>(-x);
        let s = 1.0 / (1.0 + e);
        s * (1.0 + x * (e * s))
    }
    fn slow(x: f32) -> f32 {
        silu_grad_f64(f64::from(x)) as f32
    }
}

/// SiLU's derivative in f64, PyTorch's formula (the reference of [`SiluGrad`]).
pub(super) fn silu_grad_f64(x: f64) -> f64 {
    let s = 1.0 / (1.0 + (-x).exp());
    s * (1.0 + x * (1.0 - s))
}

/// Cephes `logf`: `x = m · 2^e` with `m` in [√½, √2) from the bits, `log(1 + f)` for
/// `f = m - 1` by a degree-9 polynomial, plus `e · ln 2` in two parts. Covers positive normal
/// finite inputs; 0, negatives, subnormals, inf and NaN go to `f32::ln`.
pub(super) struct Log;
impl Kernel for Log {
    #[inline(always)]
    fn covers(x: f32) -> bool {
        (f32::MIN_POSITIVE..=f32::MAX).contains(&x)
    }
    #[inline(always)]
    fn eval<A: Arith>(x: f32) -> f32 {
        let (e, f) = log_reduce(x);
        let y = log1p_poly::<A>(f) + e * EXP_C2;
        (f + y) + e * EXP_C1
    }
    fn slow(x: f32) -> f32 {
        x.ln()
    }
}

/// `x = 2^e (1 + f)` with `1 + f` in [√½, √2): returns `e` (as f32) and `f` (exact).
#[inline(always)]
pub(super) fn log_reduce(x: f32) -> (f32, f32) {
    let bits = x.to_bits();
    let e = ((bits >> 23) & 0xff) as i32 - 126;
    let m = f32::from_bits((bits & 0x807f_ffff) | (126 << 23)); // in [0.5, 1)
    let low = m < std::f32::consts::FRAC_1_SQRT_2;
    let e = (if low { e - 1 } else { e }) as f32;
    let f = if low { m + m - 1.0 } else { m - 1.0 };
    (e, f)
}

/// `log(1 + f) - f` for `1 + f` in [√½, √2): Cephes `logf`'s degree-9 polynomial.
#[inline(always)]
pub(super) fn log1p_poly<A: Arith>(f: f32) -> f32 {
    let z = f * f;
    let p = 7.037_683_6e-2;
    let p = A::fma(p, f, -1.151_461e-1);
    let p = A::fma(p, f, 1.167_699_9e-1);
    let p = A::fma(p, f, -1.242_014_1e-1);
    let p = A::fma(p, f, 1.424_932_3e-1);
    let p = A::fma(p, f, -1.666_805_8e-1);
    let p = A::fma(p, f, 2.000_071_4e-1);
    let p = A::fma(p, f, -2.499_999_4e-1);
    let p = A::fma(p, f, 3.333_333_1e-1);
    p * f * z - 0.5 * z
}

/// `log2`: `e + log(1 + f) · log2(e)`, the integer part added last (exactly representable).
/// Covers positive normal finite inputs, as [`Log`].
pub(super) struct Log2;
impl Kernel for Log2 {
    #[inline(always)]
    fn covers(x: f32) -> bool {
        Log::covers(x)
    }
    #[inline(always)]
    fn eval<A: Arith>(x: f32) -> f32 {
        let (e, f) = log_reduce(x);
        let l = log1p_poly::<A>(f);
        // Cephes `log2f`: (f + l) · log2(e) as (f + l) + (f + l) · (log2(e) - 1), so the
        // leading terms carry no rounding of the constant.
        const LOG2E_M1: f32 = 0.442_695_04;
        (((l * LOG2E_M1 + f * LOG2E_M1) + l) + f) + e
    }
    fn slow(x: f32) -> f32 {
        x.log2()
    }
}

/// `log(1 + x)`: inside [√½ - 1, √2 - 1) the polynomial takes `x` itself; elsewhere `u = 1 + x`
/// is reduced as in [`Log`] and `(x - (u - 1)) / u` restores what rounding `u` lost (Goldberg's
/// correction). Covers x > -1 with |x| normal (±0 and subnormals go to libm, which keeps them).
pub(super) struct Log1p;
impl Kernel for Log1p {
    #[inline(always)]
    fn covers(x: f32) -> bool {
        x > -1.0 && x.abs() >= f32::MIN_POSITIVE && x <= f32::MAX
    }
    #[inline(always)]
    fn eval<A: Arith>(x: f32) -> f32 {
        let u = 1.0 + x;
        let inner = (-0.292_893_23..0.414_213_57).contains(&x);
        let (e, f) = log_reduce(u);
        let c = (x - (u - 1.0)) / u;
        let (e, f, c) = if inner { (0.0, x, 0.0) } else { (e, f, c) };
        let y = log1p_poly::<A>(f) + e * EXP_C2 + c;
        (f + y) + e * EXP_C1
    }
    fn slow(x: f32) -> f32 {
        x.ln_1p()
    }
}
