//! Vectorisable f32 sine, cosine, exponential and logarithm over slices: Cephes `sinf`/`cosf` polynomials
//! after a five-part Cody-Waite reduction (four 11-bit pieces of π/2, so every `j · piece`
//! product is exact in f32), Cephes `expf` and `logf`, written branch-free so LLVM emits SIMD code; AVX2
//! is used when the CPU has it (detected at run time), with results identical to the SSE2 path
//! (no FMA contraction).
//!
//! Error bound: at most 2 ulp against the correctly rounded result for |x| ≤ 8192 (sin, cos)
//! on [-87, 88] (exp) and on positive normal floats (log), checked by a test over dense sweeps;
//! other, infinite and NaN inputs fall back to `f32::sin`/`cos`/`exp`/`ln`.

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

#[inline(always)]
fn kernel(x: f32, shift: i32) -> f32 {
    let t = x * TWO_OVER_PI + ROUND;
    let j = t - ROUND;
    // The low mantissa bits of `t` hold `j` in two's complement: no saturating float-to-int.
    let q = (t.to_bits() as i32).wrapping_add(shift);
    let r = (((x - j * P1) - j * P2) - j * P3) - j * P4 - j * P5;
    let z = r * r;
    let s = r + r * z * (-1.666_665_5e-1 + z * (8.332_161e-3 + z * -1.951_529_6e-4));
    let c = 1.0 - 0.5 * z + z * z * (4.166_664_6e-2 + z * (-1.388_731_6e-3 + z * 2.443_315_7e-5));
    let v = if q & 1 != 0 { c } else { s };
    if q & 2 != 0 { -v } else { v }
}

/// A branch-free f32 kernel for the inputs it `covers`; the others (and NaN) are left to
/// `slow`, the scalar libm function.
trait Kernel {
    fn covers(x: f32) -> bool;
    fn eval(x: f32) -> f32;
    fn slow(x: f32) -> f32;
}

/// `sin` (`QUADRANT` 0) and `cos` (`QUADRANT` 1: `cos x = sin(x + π/2)`, one quadrant further).
struct SinCos<const QUADRANT: i32>;
impl<const QUADRANT: i32> Kernel for SinCos<QUADRANT> {
    #[inline(always)]
    fn covers(x: f32) -> bool {
        x.abs() <= LIMIT
    }
    #[inline(always)]
    fn eval(x: f32) -> f32 {
        kernel(x, QUADRANT)
    }
    fn slow(x: f32) -> f32 {
        if QUADRANT == 0 { x.sin() } else { x.cos() }
    }
}

/// Cephes `expf`: `x = n ln 2 + r` with ln 2 in two parts (`n · EXP_C1` is exact for |n| ≤ 127),
/// a degree-5 polynomial for `e^r` on |r| ≤ ln 2 / 2, and `2^n` built from its exponent bits.
/// Covers [-87, 88], where every result and `2^n` are normal f32; outside it (overflow to inf,
/// subnormal results, 0) `f32::exp` decides.
struct Exp;
const EXP_C1: f32 = 0.693_359_375;
const EXP_C2: f32 = -2.121_944_4e-4;
impl Kernel for Exp {
    #[inline(always)]
    fn covers(x: f32) -> bool {
        (-87.0..=88.0).contains(&x)
    }
    #[inline(always)]
    fn eval(x: f32) -> f32 {
        let t = x * std::f32::consts::LOG2_E + ROUND;
        let n = t - ROUND;
        // `t`'s mantissa holds ROUND + n exactly, so the bit difference is n.
        let ni = (t.to_bits() as i32).wrapping_sub(ROUND.to_bits() as i32);
        let r = (x - n * EXP_C1) - n * EXP_C2;
        let z = r * r;
        let p = 1.987_569_1e-4;
        let p = p * r + 1.398_199_9e-3;
        let p = p * r + 8.333_452e-3;
        let p = p * r + 4.166_579_6e-2;
        let p = p * r + 1.666_666_5e-1;
        let p = p * r + 5.000_000_1e-1;
        let y = p * z + r + 1.0;
        y * f32::from_bits((ni.wrapping_add(127) as u32) << 23)
    }
    fn slow(x: f32) -> f32 {
        x.exp()
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
    fn eval(x: f32) -> f32 {
        let bits = x.to_bits();
        let e = ((bits >> 23) & 0xff) as i32 - 126;
        let m = f32::from_bits((bits & 0x807f_ffff) | (126 << 23)); // in [0.5, 1)
        let low = m < std::f32::consts::FRAC_1_SQRT_2;
        let e = (if low { e - 1 } else { e }) as f32;
        let f = if low { m + m - 1.0 } else { m - 1.0 };
        let z = f * f;
        let p = 7.037_683_6e-2;
        let p = p * f - 1.151_461e-1;
        let p = p * f + 1.167_699_9e-1;
        let p = p * f - 1.242_014_1e-1;
        let p = p * f + 1.424_932_3e-1;
        let p = p * f - 1.666_805_8e-1;
        let p = p * f + 2.000_071_4e-1;
        let p = p * f - 2.499_999_4e-1;
        let p = p * f + 3.333_333_1e-1;
        let y = p * f * z + e * EXP_C2 - 0.5 * z;
        (f + y) + e * EXP_C1
    }
    fn slow(x: f32) -> f32 {
        x.ln()
    }
}

/// Applies `K` to a block it covers entirely, or else element by element with `slow` for the
/// inputs it does not cover; returns nothing, the block is overwritten.
#[inline(always)]
fn block<K: Kernel>(xs: &mut [f32]) {
    // A branch-free scan (vectorised) decides; the common all-covered case is then one
    // branch-free loop, and a block holding NaN, inf or out-of-range inputs goes element-wise.
    if xs.iter().fold(true, |all, &x| all & K::covers(x)) {
        for x in xs.iter_mut() {
            *x = K::eval(*x);
        }
    } else {
        for x in xs.iter_mut() {
            *x = if K::covers(*x) {
                K::eval(*x)
            } else {
                K::slow(*x)
            };
        }
    }
}

#[inline(always)]
fn blocks<K: Kernel>(xs: &mut [f32]) {
    for b in xs.chunks_mut(256) {
        block::<K>(b);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn blocks_avx2<K: Kernel>(xs: &mut [f32]) {
    blocks::<K>(xs)
}

fn apply<K: Kernel>(xs: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        return unsafe { blocks_avx2::<K>(xs) };
    }
    blocks::<K>(xs)
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

    #[test]
    fn within_two_ulp_of_correctly_rounded() {
        let mut xs: Vec<f32> = (0..2_000_000)
            .map(|i| -8192.0 + i as f32 * (16384.0 / 2e6))
            .collect();
        xs.extend((0..100_000).map(|i| i as f32 * 1e-5));
        xs.extend([0.0, -0.0, 1e-30, f32::MIN_POSITIVE, 8192.0, -8192.0]);
        let exps: Vec<f32> = (0..2_000_001)
            .map(|i| -87.0 + i as f32 * (175.0 / 2e6))
            .chain((0..100_000).map(|i| (i as f32 - 5e4) * 1e-6))
            .collect();
        // Every binade from MIN_POSITIVE to MAX, and densely around 1.
        let logs: Vec<f32> = (0..2_000_000u32)
            .map(|i| f32::from_bits(0x0080_0000 + i * ((0x7f7f_ffff - 0x0080_0000) / 2_000_000)))
            .chain((0..200_000).map(|i| 0.9 + i as f32 * 1e-6))
            .chain([1.0, f32::MIN_POSITIVE, f32::MAX, 0.5, 2.0])
            .collect();
        for (f, r, xs) in [
            (
                super::sin as fn(&mut [f32]),
                f64::sin as fn(f64) -> f64,
                &xs,
            ),
            (super::cos, f64::cos, &xs),
            (super::exp, f64::exp, &exps),
            (super::log, f64::ln, &logs),
        ] {
            let mut ys = xs.clone();
            f(&mut ys);
            let (worst, wx) = xs
                .iter()
                .zip(&ys)
                .map(|(&x, &y)| (ulps(y, r(x as f64) as f32), x))
                .max_by_key(|p| p.0)
                .unwrap();
            assert!(worst <= 2, "worst error {worst} ulp at x = {wx:e}");
        }
        let mut special = [f32::NAN, f32::INFINITY, 1e10, -3e7];
        super::sin(&mut special);
        assert!(special[0].is_nan() && special[1].is_nan());
        assert_eq!(special[2], 1e10f32.sin());
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
        super::exp(&mut e);
        assert!(e[0].is_nan());
        // A NaN beside inputs whose results leave the covered range: only the NaN is redone.
        let mut mixed = [f32::NAN, 5.0, 60.0, -80.0];
        super::exp(&mut mixed);
        assert!(mixed[0].is_nan());
        for (y, x) in mixed[1..].iter().zip([5.0f32, 60.0, -80.0]) {
            assert!(ulps(*y, (x as f64).exp() as f32) <= 2, "exp({x}) = {y}");
        }
        let mut l = [f32::NAN, 0.0, -0.0, -1.0, f32::INFINITY, 1e-40, 1.0];
        super::log(&mut l);
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
