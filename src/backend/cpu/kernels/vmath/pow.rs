//! `x^y` for f32 `x` and one f32 exponent `y`, as `e^(y ln|x|)` evaluated in f64 (the scheme of
//! musl's and Arm's `powf`: f64 leaves 29 spare bits, so one rounding to f32 at the end gives
//! at most 0.51 ulp). `ln` is fdlibm's: `|x| = 2^k m` with m in [√½, √2), `s = (m-1)/(m+1)`,
//! `ln m = 2 atanh s` by its odd series to s^13 (relative error below 2^-39 for |s| ≤ 0.172);
//! `e^t` is `2^n e^r` with |r| ≤ ln 2 / 2 and Taylor's degree-9 polynomial (below 2^-35).
//! Every step is branch-free, so LLVM vectorises it in f64 lanes. `t` is clamped to ±200
//! first: beyond that the f32 result is 0 or inf either way, and `2^n` stays a normal f64.
//! A negative `x` takes the sign IEEE 754 gives it from `y` alone: kept for odd integers,
//! dropped for even ones, NaN for non-integers. Zero, infinite and NaN `x` go to `f32::powf`.

use super::{Arith, BLOCK, Fused, Path, Plain};

/// What a negative base gives, decided once from `y` (the `NEG` parameter).
const EVEN: u8 = 0;
const ODD: u8 = 1;
const NAN: u8 = 2;

/// Adding and subtracting 1.5 · 2^52 rounds an f64 to the nearest integer without libm.
const ROUND: f64 = 6_755_399_441_055_744.0;

/// `ln|x|` in f64 for finite nonzero `x` (subnormal f32 inputs are normal in f64).
#[inline(always)]
fn ln_abs<A: Arith>(x: f32) -> f64 {
    // Moving √½'s mantissa to the binade's start splits |x| = 2^k m with m in [√½, √2)
    // (fdlibm's `log`, on all 64 bits at once).
    let ix = (x as f64)
        .abs()
        .to_bits()
        .wrapping_add(0x3ff0_0000_0000_0000 - 0x3fe6_a09e_0000_0000);
    // k as an f64 without an i64 → f64 conversion (which AVX2 lacks): OR the biased exponent
    // into 2^52's mantissa.
    let k = f64::from_bits(0x4330_0000_0000_0000 | (ix >> 52)) - (4_503_599_627_370_496.0 + 1023.0);
    let m = f64::from_bits((ix & 0x000f_ffff_ffff_ffff) + 0x3fe6_a09e_0000_0000);
    let s = (m - 1.0) / (m + 1.0);
    let z = s * s;
    let p = A::fma64(z, 2.0 / 13.0, 2.0 / 11.0);
    let p = A::fma64(p, z, 2.0 / 9.0);
    let p = A::fma64(p, z, 2.0 / 7.0);
    let p = A::fma64(p, z, 2.0 / 5.0);
    let p = A::fma64(p, z, 2.0 / 3.0);
    A::fma64(k, std::f64::consts::LN_2, A::fma64(s * z, p, 2.0 * s))
}

/// `e^t` in f64 for |t| ≤ 200.
#[inline(always)]
fn exp<A: Arith>(t: f64) -> f64 {
    let shifted = A::fma64(t, std::f64::consts::LOG2_E, ROUND);
    let n = shifted - ROUND;
    let r = A::fma64(-n, std::f64::consts::LN_2, t);
    let mut p = 1.0 / 362_880.0;
    for c in [
        1.0 / 40_320.0,
        1.0 / 5_040.0,
        1.0 / 720.0,
        1.0 / 120.0,
        1.0 / 24.0,
        1.0 / 6.0,
        0.5,
        1.0,
        1.0,
    ] {
        p = A::fma64(p, r, c);
    }
    // `shifted`'s low mantissa bits hold n in two's complement.
    let ni = (shifted.to_bits() as i64).wrapping_sub(ROUND.to_bits() as i64);
    p * f64::from_bits((ni.wrapping_add(1023) as u64) << 52)
}

/// The kernel's inputs: finite and nonzero.
#[inline(always)]
pub(super) fn covers(x: f32) -> bool {
    let a = x.abs();
    a > 0.0 && a < f32::INFINITY
}

#[inline(always)]
fn eval<A: Arith, const NEG: u8>(x: f32, y: f64) -> f32 {
    let t = (y * ln_abs::<A>(x)).clamp(-200.0, 200.0);
    let v = exp::<A>(t) as f32;
    match NEG {
        ODD => f32::from_bits(v.to_bits() | (x.to_bits() & 0x8000_0000)),
        NAN if x < 0.0 => f32::NAN,
        _ => v,
    }
}

/// The blocks of [`powf`]: a block of covered inputs in one branch-free loop, others element
/// by element with `f32::powf` for the inputs the kernel does not cover.
#[inline(always)]
fn blocks<A: Arith, const NEG: u8>(xs: &mut [f32], y: f32) {
    for b in xs.chunks_mut(BLOCK) {
        if b.iter().fold(true, |all, &x| all & covers(x)) {
            for x in b.iter_mut() {
                *x = eval::<A, NEG>(*x, y as f64);
            }
        } else {
            for x in b.iter_mut() {
                *x = if covers(*x) {
                    eval::<A, NEG>(*x, y as f64)
                } else {
                    x.powf(y)
                };
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn blocks_avx2<const NEG: u8>(xs: &mut [f32], y: f32) {
    blocks::<Fused, NEG>(xs, y)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
fn blocks_avx512<const NEG: u8>(xs: &mut [f32], y: f32) {
    blocks::<Fused, NEG>(xs, y)
}

fn apply<const NEG: u8>(xs: &mut [f32], y: f32, path: Path) {
    match path {
        // SAFETY: `Path::detect` chose these only where the CPU has the features.
        #[cfg(target_arch = "x86_64")]
        Path::Avx512 => unsafe { blocks_avx512::<NEG>(xs, y) },
        #[cfg(target_arch = "x86_64")]
        Path::Avx2 => unsafe { blocks_avx2::<NEG>(xs, y) },
        Path::Plain => blocks::<Plain, NEG>(xs, y),
    }
}

/// `x^y` for every element `x`, in place, within 1 ulp of `f32::powf` (IEEE 754 `pow`: the
/// same special cases, which it computes). A non-finite `y` is left to `f32::powf` entirely.
pub fn powf(xs: &mut [f32], y: f32) {
    powf_on(xs, y, Path::detect())
}

pub(super) fn powf_on(xs: &mut [f32], y: f32, path: Path) {
    if !y.is_finite() {
        return xs.iter_mut().for_each(|x| *x = x.powf(y));
    }
    // Every f32 of magnitude 2^24 or more is an even integer.
    let neg = if y.trunc() != y {
        NAN
    } else if y.abs() < 16_777_216.0 && (y as i32) & 1 == 1 {
        ODD
    } else {
        EVEN
    };
    match neg {
        ODD => apply::<ODD>(xs, y, path),
        NAN => apply::<NAN>(xs, y, path),
        _ => apply::<EVEN>(xs, y, path),
    }
}
