//! Vectorisable f32 kernels over slices: Cephes `sinf`/`cosf` polynomials after a five-part
//! Cody-Waite reduction (four 11-bit pieces of π/2, so every `j · piece` product is exact in
//! f32), Cephes `expf` and `logf`, and the functions built on their polynomials (`exp2`,
//! `expm1`, `log2`, `log1p`, `tanh`, the logistic sigmoid), written branch-free so LLVM emits
//! SIMD code. With AVX2 and FMA (or AVX-512F), detected at run time, the polynomials' `a·b + c`
//! steps are fused multiply-adds (one rounding, half the instructions); elsewhere they round
//! twice (SSE2). The two paths may differ in the last bit; both are swept by the test.
//!
//! Error bound: at most 2 ulp against the correctly rounded result on each kernel's covered
//! range (|x| ≤ 8192 for sin/cos, [-87, 88] for exp, positive normal floats for log, ...; see
//! each `covers`), checked by a test over dense sweeps; other, infinite and NaN inputs fall back
//! to the scalar libm function, bit for bit.

// The split constants are written with every digit of their exact binary values.
#![allow(clippy::excessive_precision)]

const LIMIT: f32 = 8192.0;
const TWO_OVER_PI: f32 = std::f32::consts::FRAC_2_PI;
const P1: f32 = 1.570_312_5;
const P2: f32 = 4.837_512_969_970_703e-4;
const P3: f32 = 7.549_533_620_476_723e-8;
const P4: f32 = 2.563_282_919_254_561_4e-12;
const P5: f32 = 6.123_234_262_925_839e-17;
/// Adding and subtracting 1.5 · 2^23 rounds an f32 to the nearest integer without a libm call.
const ROUND: f32 = 12_582_912.0;

/// How a polynomial step `a·b + c` is evaluated: [`Plain`] rounds twice (any x86-64 CPU),
/// [`Fused`] once, as one FMA instruction. `Fused` is instantiated only inside functions
/// compiled with the `fma` target feature, where `mul_add` is that instruction rather than a
/// call to libm's software `fmaf`.
trait Arith {
    fn fma(a: f32, b: f32, c: f32) -> f32;
}
struct Plain;
impl Arith for Plain {
    #[inline(always)]
    fn fma(a: f32, b: f32, c: f32) -> f32 {
        a * b + c
    }
}
struct Fused;
impl Arith for Fused {
    #[inline(always)]
    fn fma(a: f32, b: f32, c: f32) -> f32 {
        a.mul_add(b, c)
    }
}

#[inline(always)]
fn kernel<A: Arith>(x: f32, shift: i32) -> f32 {
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

/// A branch-free f32 kernel for the inputs it `covers`; the others (and NaN) are left to
/// `slow`, the scalar libm function.
trait Kernel {
    fn covers(x: f32) -> bool;
    fn eval<A: Arith>(x: f32) -> f32;
    fn slow(x: f32) -> f32;
    /// Inputs for which `eval_near` gives exactly `eval`'s result with less work; a block made
    /// of them takes it. None by default (the scan then folds away).
    #[inline(always)]
    fn covers_near(x: f32) -> bool {
        let _ = x;
        false
    }
    #[inline(always)]
    fn eval_near<A: Arith>(x: f32) -> f32 {
        Self::eval::<A>(x)
    }
}

/// `sin` (`QUADRANT` 0) and `cos` (`QUADRANT` 1: `cos x = sin(x + π/2)`, one quadrant further).
struct SinCos<const QUADRANT: i32>;
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
struct Exp;
const EXP_C1: f32 = 0.693_359_375;
const EXP_C2: f32 = -2.121_944_4e-4;
impl Exp {
    /// The kernel on [-87, 88].
    #[inline(always)]
    fn normal<A: Arith>(x: f32) -> f32 {
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
fn exp_reduce(x: f32) -> (f32, f32) {
    let t = x * std::f32::consts::LOG2_E + ROUND;
    let n = t - ROUND;
    let r = (x - n * EXP_C1) - n * EXP_C2;
    (r, pow2(t))
}

/// `2^n` for the integer `n` held in the low mantissa bits of `t = n + ROUND`.
#[inline(always)]
fn pow2(t: f32) -> f32 {
    // `t`'s mantissa holds ROUND + n exactly, so the bit difference is n.
    let ni = (t.to_bits() as i32).wrapping_sub(ROUND.to_bits() as i32);
    f32::from_bits((ni.wrapping_add(127) as u32) << 23)
}

/// `e^r - 1` for |r| ≤ ln 2 / 2: Cephes `expf`'s degree-5 polynomial without its leading 1.
#[inline(always)]
fn exp_m1_poly<A: Arith>(r: f32) -> f32 {
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
struct Exp2;
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
struct Expm1;
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
struct Tanh;
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
struct Sigmoid;
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

/// Cephes `logf`: `x = m · 2^e` with `m` in [√½, √2) from the bits, `log(1 + f)` for
/// `f = m - 1` by a degree-9 polynomial, plus `e · ln 2` in two parts. Covers positive normal
/// finite inputs; 0, negatives, subnormals, inf and NaN go to `f32::ln`.
struct Log;
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
fn log_reduce(x: f32) -> (f32, f32) {
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
fn log1p_poly<A: Arith>(f: f32) -> f32 {
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
struct Log2;
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
struct Log1p;
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

/// `erf`, three fits selected branch-free (least squares on Chebyshev nodes, the
/// coefficients rounded to f32; at most 1 ulp in a dense sweep): `x + x Q(x²)` for |x| < 1
/// (musl's form, so small and subnormal `x` keep their precision), a degree-9 polynomial in
/// `|x| - 1.5` on [1, 2), and `1 - e^(-a²) R(a)` with `R ≈ erfc(a) e^(a²)` in `a - 3` above,
/// `a = min(|x|, 4)` (the result rounds to ±1 from 3.92 on). Covers every non-NaN input.
struct Erf;
impl Erf {
    /// Whether `x` is below 2, where [`Erf::pieces`] needs no tail. GELU and its derivative
    /// take that path for blocks of such inputs (most blocks of a network's activations);
    /// `erf` itself does not, since a block of 256 normal samples almost never qualifies and
    /// the scan would cost more than it saves.
    #[inline(always)]
    fn near(x: f32) -> bool {
        x.abs() < 2.0
    }
    /// The fits; `WITH_TAIL` false leaves out the piece above 2 (for inputs below it).
    #[inline(always)]
    fn pieces<A: Arith, const WITH_TAIL: bool>(x: f32) -> f32 {
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
struct Gelu;
impl Kernel for Gelu {
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
struct GeluGrad;
impl Kernel for GeluGrad {
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
const FRAC_1_SQRT_2PI: f32 = 0.398_942_28;

/// GELU's derivative in f64 (the reference of [`GeluGrad`]): NaN at ±inf, where `x φ(x)` is
/// `inf · 0`, as PyTorch's `gelu_backward` and the composed rule give.
pub fn gelu_grad_f64(x: f64) -> f64 {
    let cdf = 0.5 * (1.0 + libm::erf(x * std::f64::consts::FRAC_1_SQRT_2));
    cdf + x
        * (-0.5 * x * x).exp()
        * (0.5 * std::f64::consts::FRAC_2_SQRT_PI * std::f64::consts::FRAC_1_SQRT_2)
}

/// Applies `K` to a block it covers entirely, or else element by element with `slow` for the
/// inputs it does not cover; returns nothing, the block is overwritten.
#[inline(always)]
fn block<K: Kernel, A: Arith>(xs: &mut [f32]) {
    // A branch-free scan (vectorised) decides; the common all-covered case is then one
    // branch-free loop, and a block holding NaN, inf or out-of-range inputs goes element-wise.
    if xs.iter().fold(true, |all, &x| all & K::covers_near(x)) {
        for x in xs.iter_mut() {
            *x = K::eval_near::<A>(*x);
        }
    } else if xs.iter().fold(true, |all, &x| all & K::covers(x)) {
        for x in xs.iter_mut() {
            *x = K::eval::<A>(*x);
        }
    } else {
        for x in xs.iter_mut() {
            *x = if K::covers(*x) {
                K::eval::<A>(*x)
            } else {
                K::slow(*x)
            };
        }
    }
}

#[inline(always)]
fn blocks<K: Kernel, A: Arith>(xs: &mut [f32]) {
    for b in xs.chunks_mut(256) {
        block::<K, A>(b);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn blocks_avx2<K: Kernel>(xs: &mut [f32]) {
    blocks::<K, Fused>(xs)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
fn blocks_avx512<K: Kernel>(xs: &mut [f32]) {
    blocks::<K, Fused>(xs)
}

/// The widest path the CPU has: AVX-512F or AVX2, with FMA; else SSE2 without it (a CPU with
/// AVX2 but no FMA is rare enough to share the SSE2 path rather than cost another copy of
/// every kernel).
fn apply<K: Kernel>(xs: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU supports AVX-512F and FMA (checked just above).
            return unsafe { blocks_avx512::<K>(xs) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 and FMA (checked just above).
            return unsafe { blocks_avx2::<K>(xs) };
        }
    }
    blocks::<K, Plain>(xs)
}

/// `sin` of every element, in place.
pub fn sin(xs: &mut [f32]) {
    apply::<SinCos<0>>(xs)
}

/// `cos` of every element, in place.
pub fn cos(xs: &mut [f32]) {
    apply::<SinCos<1>>(xs)
}

/// `e^x` of every element, in place (within 2 ulp; see [`Exp`]).
pub fn exp(xs: &mut [f32]) {
    apply::<Exp>(xs)
}

/// The natural logarithm of every element, in place (within 2 ulp; see [`Log`]).
pub fn log(xs: &mut [f32]) {
    apply::<Log>(xs)
}

/// `2^x` of every element, in place (within 2 ulp; see [`Exp2`]).
pub fn exp2(xs: &mut [f32]) {
    apply::<Exp2>(xs)
}

/// `e^x - 1` of every element, in place (within 2 ulp; see [`Expm1`]).
pub fn expm1(xs: &mut [f32]) {
    apply::<Expm1>(xs)
}

/// The base-2 logarithm of every element, in place (within 2 ulp; see [`Log2`]).
pub fn log2(xs: &mut [f32]) {
    apply::<Log2>(xs)
}

/// `log(1 + x)` of every element, in place (within 2 ulp; see [`Log1p`]).
pub fn log1p(xs: &mut [f32]) {
    apply::<Log1p>(xs)
}

/// `tanh` of every element, in place (within 2 ulp; see [`Tanh`]).
pub fn tanh(xs: &mut [f32]) {
    apply::<Tanh>(xs)
}

/// `erf` of every element, in place (within 1 ulp in the test's sweep; see [`Erf`]).
pub fn erf(xs: &mut [f32]) {
    apply::<Erf>(xs)
}

/// GELU of every element, in place (see [`Gelu`]).
pub fn gelu(xs: &mut [f32]) {
    apply::<Gelu>(xs)
}

/// GELU's derivative of every element, in place (see [`GeluGrad`]).
pub fn gelu_grad(xs: &mut [f32]) {
    apply::<GeluGrad>(xs)
}

/// The logistic function `1 / (1 + e^-x)` of every element, in place (within 2 ulp; see
/// [`Sigmoid`]).
pub fn sigmoid(xs: &mut [f32]) {
    apply::<Sigmoid>(xs)
}

#[cfg(test)]
mod tests {
    fn ulps(a: f32, b: f32) -> u32 {
        if a == b {
            return 0;
        }
        let (ia, ib) = (a.to_bits() as i32, b.to_bits() as i32);
        if (ia < 0) != (ib < 0) {
            return (ia & i32::MAX) as u32 + (ib & i32::MAX) as u32;
        }
        ia.abs_diff(ib)
    }

    /// Kernel `K` on the path the CPU takes (FMA where it has one), or on the `Plain` SSE2 path
    /// every x86-64 CPU can take.
    fn run<K: super::Kernel>(plain: bool) -> fn(&mut [f32]) {
        if plain {
            super::blocks::<K, super::Plain>
        } else {
            super::apply::<K>
        }
    }

    #[test]
    fn within_two_ulp_of_correctly_rounded() {
        sweep(false);
        sweep(true);
    }

    fn sweep(plain: bool) {
        let mut xs: Vec<f32> = (0..2_000_000)
            .map(|i| -8192.0 + i as f32 * (16384.0 / 2e6))
            .collect();
        xs.extend((0..100_000).map(|i| i as f32 * 1e-5));
        xs.extend([0.0, -0.0, 1e-30, f32::MIN_POSITIVE, 8192.0, -8192.0]);
        let exps: Vec<f32> = (0..2_000_001)
            .map(|i| -87.0 + i as f32 * (175.0 / 2e6))
            .chain((0..100_000).map(|i| (i as f32 - 5e4) * 1e-6))
            .chain((0..1000).map(|i| -104.001 - i as f32 * 0.1))
            .chain([-1e30, f32::MIN, f32::NEG_INFINITY])
            .collect();
        // Dense over [-5, 5] (erf is ±1 in f32 beyond 3.92), and tiny and subnormal inputs.
        let erfs: Vec<f32> = (0..4_000_001)
            .map(|i| -5.0 + i as f32 * (10.0 / 4e6))
            .chain((0..760).map(|k| 1e-45 * 1.1f32.powi(k)))
            .chain((0..760).map(|k| -1e-45 * 1.1f32.powi(k)))
            .chain([
                0.0,
                -0.0,
                1.0,
                -1.0,
                2.0,
                -2.0,
                4.0,
                1e30,
                f32::MAX,
                f32::INFINITY,
            ])
            .chain([f32::NEG_INFINITY])
            .collect();
        // Every binade from MIN_POSITIVE to MAX, and densely around 1.
        let logs: Vec<f32> = (0..2_000_000u32)
            .map(|i| f32::from_bits(0x0080_0000 + i * ((0x7f7f_ffff - 0x0080_0000) / 2_000_000)))
            .chain((0..200_000).map(|i| 0.9 + i as f32 * 1e-6))
            .chain([1.0, f32::MIN_POSITIVE, f32::MAX, 0.5, 2.0])
            .collect();
        let exp2s: Vec<f32> = (0..2_000_001)
            .map(|i| -125.0 + i as f32 * (252.0 / 2e6))
            .chain((0..100_000).map(|i| (i as f32 - 5e4) * 1e-6))
            .collect();
        // Dense near 0 (where expm1, log1p and tanh must not cancel) and across the range.
        let near0: Vec<f32> = (0..400_000)
            .map(|i| (i as f32 - 2e5) * 5e-6)
            .chain((0..200).map(|k| 1e-30 * 1.5f32.powi(k)))
            .chain((0..200).map(|k| -1e-30 * 1.5f32.powi(k)))
            .collect();
        let expm1s: Vec<f32> = (0..1_000_001)
            .map(|i| -87.0 + i as f32 * (175.0 / 1e6))
            .chain(near0.iter().copied())
            .collect();
        let log1ps: Vec<f32> = (0..1_000_000u32)
            .map(|i| -1.0 + (i + 1) as f32 * 1e-6)
            .chain((0..1_000_000u32).map(|i| {
                f32::from_bits(0x0080_0000 + i * ((0x7f7f_ffff - 0x0080_0000) / 1_000_000))
            }))
            .chain(
                near0
                    .iter()
                    .copied()
                    .filter(|&x| x > -1.0 && x.abs() >= f32::MIN_POSITIVE),
            )
            .collect();
        let tanhs: Vec<f32> = (0..1_000_001)
            .map(|i| -43.0 + i as f32 * (86.0 / 1e6))
            .chain(near0.iter().copied())
            .chain((0..100_000).map(|i| 0.6 + i as f32 * 1e-6))
            .collect();
        let sigmoids: Vec<f32> = (0..2_000_001)
            .map(|i| -87.0 + i as f32 * (174.0 / 2e6))
            .collect();
        let sigmoid = |x: f64| 1.0 / (1.0 + (-x).exp());
        let sigmoid: fn(f64) -> f64 = sigmoid;
        let mut worsts = Vec::new();
        for (k, (f, r, xs)) in [
            (
                run::<super::SinCos<0>>(plain) as fn(&mut [f32]),
                f64::sin as fn(f64) -> f64,
                &xs,
            ),
            (run::<super::SinCos<1>>(plain), f64::cos, &xs),
            (run::<super::Exp>(plain), f64::exp, &exps),
            (run::<super::Log>(plain), f64::ln, &logs),
            (run::<super::Exp2>(plain), f64::exp2, &exp2s),
            (run::<super::Log2>(plain), f64::log2, &logs),
            (run::<super::Expm1>(plain), f64::exp_m1, &expm1s),
            (run::<super::Log1p>(plain), f64::ln_1p, &log1ps),
            (run::<super::Tanh>(plain), f64::tanh, &tanhs),
            (run::<super::Sigmoid>(plain), sigmoid, &sigmoids),
            (run::<super::Erf>(plain), libm::erf, &erfs),
        ]
        .into_iter()
        .enumerate()
        {
            let mut ys = xs.clone();
            f(&mut ys);
            let (worst, wx) = xs
                .iter()
                .zip(&ys)
                .map(|(&x, &y)| (ulps(y, r(x as f64) as f32), x))
                .max_by_key(|p| p.0)
                .unwrap();
            worsts.push((k, worst, wx));
        }
        // Function k of the list above, its worst error and where.
        assert!(worsts.iter().all(|w| w.1 <= 2), "{worsts:?}");
        // Outside the covered ranges every kernel gives exactly what libm gives (NaN as NaN).
        let edges = [
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.0,
            -0.0,
            1e-40,
            -1e-40,
            -1.0,
            -2.0,
            200.0,
            -200.0,
            f32::MAX,
            f32::MIN,
        ];
        let sigmoid32 = |x: f32| {
            if x >= 0.0 {
                1.0 / (1.0 + (-x).exp())
            } else {
                x.exp() / (1.0 + x.exp())
            }
        };
        for (f, r) in [
            (
                run::<super::Exp2>(plain) as fn(&mut [f32]),
                f32::exp2 as fn(f32) -> f32,
            ),
            (run::<super::Expm1>(plain), f32::exp_m1),
            (run::<super::Log2>(plain), f32::log2),
            (run::<super::Log1p>(plain), f32::ln_1p),
            (run::<super::Tanh>(plain), f32::tanh),
            (run::<super::Sigmoid>(plain), sigmoid32),
        ] {
            // Each edge beside covered inputs, so the block takes its mixed path.
            for &x in &edges {
                let mut v = [0.5, x, 0.25];
                f(&mut v);
                let want = r(x);
                assert!(
                    v[1].to_bits() == want.to_bits() || (v[1].is_nan() && want.is_nan()),
                    "f({x}) = {} instead of {want}",
                    v[1]
                );
                assert!(ulps(v[0], r(0.5)) <= 2 && ulps(v[2], r(0.25)) <= 2);
            }
        }
        let mut special = [f32::NAN, f32::INFINITY, 1e10, -3e7];
        run::<super::SinCos<0>>(plain)(&mut special);
        assert!(special[0].is_nan() && special[1].is_nan());
        assert_eq!(special[2], 1e10f32.sin());
        // sin(±0) = ±0 (IEEE 754), beside covered inputs.
        let mut zeros = [0.5, -0.0, 0.0, 0.25];
        run::<super::SinCos<0>>(plain)(&mut zeros);
        assert_eq!((zeros[1].to_bits(), zeros[2].to_bits()), (0x8000_0000, 0));
        let mut e = [
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            89.0,
            -100.0,
            -87.5,
            0.0,
            -0.0,
        ];
        run::<super::Exp>(plain)(&mut e);
        assert!(e[0].is_nan());
        // A NaN beside inputs whose results leave the covered range: only the NaN is redone.
        let mut mixed = [f32::NAN, 5.0, 60.0, -80.0];
        run::<super::Exp>(plain)(&mut mixed);
        assert!(mixed[0].is_nan());
        for (y, x) in mixed[1..].iter().zip([5.0f32, 60.0, -80.0]) {
            assert!(ulps(*y, (x as f64).exp() as f32) <= 2, "exp({x}) = {y}");
        }
        // GELU against its formula in f64: 1 + erf rounds to f32 before the product, so far
        // below 0 the error is up to |x|·2^-23 (PyTorch computes it the same way).
        let mut ys = erfs.clone();
        run::<super::Gelu>(plain)(&mut ys);
        for (&x, &y) in erfs.iter().zip(&ys) {
            let x64 = f64::from(x);
            let r = x64 * 0.5 * (1.0 + libm::erf(x64 * std::f64::consts::FRAC_1_SQRT_2));
            let ok = ulps(y, r as f32) <= 3 || (f64::from(y) - r).abs() <= x64.abs() * 1.2e-7;
            assert!(
                ok || (x == f32::NEG_INFINITY && y.is_nan()),
                "gelu({x}) = {y}, not {r}"
            );
        }
        // GELU's derivative against f64: within a few ulp of its largest term (the sum
        // cancels near x = -0.75, where x φ(x) ≈ -Φ(x)).
        let mut ds = erfs.clone();
        run::<super::GeluGrad>(plain)(&mut ds);
        for (&x, &d) in erfs.iter().zip(&ds) {
            let x64 = f64::from(x);
            let r = super::gelu_grad_f64(x64);
            let scale = 0.5f64.max((x64 * (-0.5 * x64 * x64).exp()).abs() * 0.4);
            assert!(
                (f64::from(d) - r).abs() <= 4.0 * f64::from(f32::EPSILON) * scale
                    || (r.is_nan() && d.is_nan()),
                "gelu'({x}) = {d}, not {r}"
            );
        }
        // GELU blocks whose erf arguments are below 2 skip erf's tail piece: the same bits as
        // the whole kernel element by element (on the plain path, whose `eval` this test can
        // call).
        if plain {
            use super::{Erf, Gelu, GeluGrad, Kernel, Plain};
            for (k, f, ys) in [
                (0, Erf::eval::<Plain> as fn(f32) -> f32, run::<Erf>(true)),
                (1, Gelu::eval::<Plain>, run::<Gelu>(true)),
                (2, GeluGrad::eval::<Plain>, run::<GeluGrad>(true)),
            ] {
                let mut got = erfs.clone();
                ys(&mut got);
                let near = erfs
                    .chunks(256)
                    .filter(|b| b.iter().all(|&x| x.abs() < 1.4))
                    .count();
                assert!(near > 1000, "{near} blocks take the near path");
                for (&x, &y) in erfs.iter().zip(&got) {
                    let want = if x.is_nan() || (k == 2 && x.is_infinite()) {
                        y
                    } else {
                        f(x)
                    };
                    assert_eq!(y.to_bits(), want.to_bits(), "kernel {k} at {x}");
                }
            }
        }
        let mut inf = [0.5, f32::INFINITY, f32::NEG_INFINITY, 1e30, -1e30, -20.0];
        run::<super::GeluGrad>(plain)(&mut inf);
        assert!(inf[1].is_nan() && inf[2].is_nan());
        assert_eq!(&inf[3..], &[1.0, 0.0, 0.0]);
        let mut zeros = [0.5, -0.0, 0.0, f32::NAN];
        run::<super::Erf>(plain)(&mut zeros);
        assert_eq!((zeros[1].to_bits(), zeros[2].to_bits()), (0x8000_0000, 0));
        assert!(zeros[3].is_nan());
        let mut l = [f32::NAN, 0.0, -0.0, -1.0, f32::INFINITY, 1e-40, 1.0];
        run::<super::Log>(plain)(&mut l);
        assert!(l[0].is_nan() && l[3].is_nan());
        assert_eq!(&l[1..3], &[f32::NEG_INFINITY, f32::NEG_INFINITY]);
        assert_eq!(&l[4..], &[f32::INFINITY, 1e-40f32.ln(), 0.0]);
        assert_eq!(
            &e[1..],
            &[
                f32::INFINITY,
                0.0,
                f32::INFINITY,
                (-100f32).exp(),
                (-87.5f32).exp(),
                1.0,
                1.0
            ]
        );
    }
}
