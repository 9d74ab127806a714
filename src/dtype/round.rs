//! Correctly rounded conversion from `f64` (IEEE 754 round-to-nearest-even, one rounding).
//!
//! `half`'s `bf16::from_f64`/`f16::from_f64` round twice on the way (through `f32`, or by
//! dropping low bits first), so `1 + 2^-8 + 2^-22` became bf16 `1.0` instead of `1.0078125`.
//! Here `f64` goes to `f32` with *round-to-odd* (truncate, then set the last bit when anything
//! was dropped), which keeps the sticky information; the final `f32 → 16-bit` rounding (RNE in
//! `half`) is then correct, because `f32` has more than two bits beyond either 16-bit format's
//! precision (Boldo & Melquiond, "When double rounding is odd", 2005).

use half::{bf16, f16};

/// `x` rounded to `f32` toward zero with the last bit set when inexact (round-to-odd).
pub(crate) fn f64_to_f32_odd(x: f64) -> f32 {
    let f = x as f32;
    if !x.is_finite() || f as f64 == x {
        return f;
    }
    let mut bits = f.to_bits();
    if (f as f64).abs() > x.abs() {
        // Rounded away from zero (possibly to inf): step one ulp back toward zero.
        bits -= 1;
    }
    f32::from_bits(bits | 1)
}

/// Conversion from `f64` with one correct rounding (`as` for primitives: Rust's `as` rounds
/// floats to nearest-even and saturates integers).
pub(crate) trait RoundFromF64 {
    fn round_from_f64(v: f64) -> Self;
}

macro_rules! by_as {
    ($($t:ty),*) => {$(
        impl RoundFromF64 for $t {
            #[inline]
            fn round_from_f64(v: f64) -> Self {
                v as $t
            }
        }
    )*};
}
by_as!(f32, f64, i16, i32, i64, u8);

impl RoundFromF64 for f16 {
    #[inline]
    fn round_from_f64(v: f64) -> Self {
        f16::from_f32(f64_to_f32_odd(v))
    }
}

impl RoundFromF64 for bf16 {
    #[inline]
    fn round_from_f64(v: f64) -> Self {
        bf16::from_f32(f64_to_f32_odd(v))
    }
}

/// NumPy's float floor division (`npy_divmod`): computed from `fmod` so that `1.0 // 0.1` is 9
/// (as `1.0 = 9 * 0.1 + 0.0999..`), `inf // 2` is NaN and `-1 // inf` is -1.
pub(crate) fn floor_div<F: num_traits::Float>(a: F, b: F) -> F {
    if b == F::zero() {
        return a / b;
    }
    // NumPy's quotient from the remainder; the remainder itself is not needed here.
    let m = a % b;
    let mut div = (a - m) / b;
    if m != F::zero() && (b < F::zero()) != (m < F::zero()) {
        div = div - F::one();
    }
    if div != F::zero() {
        let mut q = div.floor();
        if div - q > F::from(0.5).expect("0.5 is representable") {
            q = q + F::one();
        }
        q
    } else {
        F::zero().copysign(a / b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exhaustive over the f32 values around every bf16 rounding boundary in [1, 2) and across
    /// exponents: the odd path must equal the exact decision made on the bits.
    #[test]
    fn bf16_from_f64_is_correctly_rounded() {
        let x = 1.0 + 2f64.powi(-8) + 2f64.powi(-22);
        assert_eq!(bf16::round_from_f64(x).to_f64(), 1.0078125);
        assert_eq!(bf16::round_from_f64(1.0 + 2f64.powi(-8)).to_f64(), 1.0);
        assert_eq!(
            bf16::round_from_f64(1.0 + 3.0 * 2f64.powi(-8)).to_f64(),
            1.015625
        );
        // f64 values just above a halfway point, below f32 resolution.
        for hi in [0x3F80u32, 0x3F81, 0x4000, 0x00FF, 0x7F00, 0x0001] {
            let half_way = f32::from_bits((hi << 16) | 0x8000) as f64;
            let up = bf16::round_from_f64(half_way * (1.0 + 2f64.powi(-40)));
            assert_eq!(up.to_bits(), (hi + 1) as u16, "hi {hi:#x}");
            let down = bf16::round_from_f64(half_way * (1.0 - 2f64.powi(-40)));
            assert_eq!(down.to_bits(), hi as u16, "hi {hi:#x}");
        }
        assert!(bf16::round_from_f64(f64::NAN).is_nan());
        assert_eq!(bf16::round_from_f64(1e300).to_f64(), f64::INFINITY);
        assert_eq!(bf16::round_from_f64(-1e-300).to_bits(), 0x8000);
    }

    /// Every f32 whose low 16 bits sit at or next to the bf16 halfway point, over all
    /// exponents: f32 → f64 → bf16 must equal half's direct (correct) f32 → bf16.
    #[test]
    fn bf16_matches_direct_rounding_near_every_boundary() {
        for hi in 0..0x7F80u32 {
            for lo in [0x7FFFu32, 0x8000, 0x8001, 0x0001, 0xFFFF] {
                let f = f32::from_bits((hi << 16) | lo);
                assert_eq!(
                    bf16::round_from_f64(f as f64).to_bits(),
                    bf16::from_f32(f).to_bits(),
                    "{f:e}"
                );
            }
        }
    }

    #[test]
    fn f16_from_f64_is_correctly_rounded() {
        // 1 + 2^-11 is halfway between 1 and the next f16; a hair above rounds up.
        let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
        assert_eq!(f16::round_from_f64(x).to_f64(), 1.0 + 2f64.powi(-10));
        assert_eq!(f16::round_from_f64(1.0 + 2f64.powi(-11)).to_f64(), 1.0);
        // Subnormal halfway: 2^-25 is half the smallest subnormal.
        assert_eq!(f16::round_from_f64(2f64.powi(-25)).to_bits(), 0);
        assert_eq!(f16::round_from_f64(2f64.powi(-25) * 1.000001).to_bits(), 1);
        assert_eq!(f16::round_from_f64(65520.0).to_f64(), f64::INFINITY);
        assert_eq!(f16::round_from_f64(65519.99).to_f64(), 65504.0);
    }

    #[test]
    fn floor_div_follows_numpy() {
        assert_eq!(floor_div(1.0f64, 0.1), 9.0);
        assert!(floor_div(f64::INFINITY, 2.0).is_nan());
        assert_eq!(floor_div(-1.0f64, f64::INFINITY), -1.0);
        assert_eq!(floor_div(1.0f64, f64::INFINITY), 0.0);
        assert_eq!(floor_div(7.0f64, 2.0), 3.0);
        assert_eq!(floor_div(-7.0f64, 2.0), -4.0);
        assert_eq!(floor_div(7.0f64, -2.0), -4.0);
        assert_eq!(floor_div(1.0f64, 0.0), f64::INFINITY);
        assert!(floor_div(0.0f64, 0.0).is_nan());
        assert_eq!(floor_div(-0.0f64, 3.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(floor_div(1.0f32, 0.1), 9.0);
    }
}
