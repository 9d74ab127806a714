//! Vectorisable f32 sine and cosine over slices (Cephes `sinf`/`cosf` polynomials after a
//! Cody-Waite reduction in f64, written branch-free so LLVM emits SIMD code).
//!
//! Error bound: at most 2 ulp against the correctly rounded result for |x| ≤ 8192 (checked by
//! a test over a dense sweep); larger, infinite and NaN inputs fall back to `f32::sin`/`cos`.

const LIMIT: f32 = 8192.0;
/// π/2 split for the reduction, done in f64 (fdlibm's `pio2_1`, 33 bits, and its tail), so
/// `x - j·π/2` is exact enough for every |x| ≤ 8192 without FMA.
const PIO2_HI: f64 = 1.570_796_326_734_125_614_17;
const PIO2_LO: f64 = 6.077_100_506_506_192_249_32e-11;
/// Adding and subtracting 1.5 · 2^52 rounds an f64 to the nearest integer without a libm call.
const ROUND: f64 = 6_755_399_441_055_744.0;

#[inline(always)]
fn kernel(x: f32, shift: i32) -> f32 {
    let xd = x as f64;
    let j = (xd * std::f64::consts::FRAC_2_PI + ROUND) - ROUND;
    let q = j as i32 + shift;
    let r = ((xd - j * PIO2_HI) - j * PIO2_LO) as f32;
    let z = r * r;
    let s = r + r * z * (-1.666_665_5e-1 + z * (8.332_161e-3 + z * -1.951_529_6e-4));
    let c = 1.0 - 0.5 * z + z * z * (4.166_664_6e-2 + z * (-1.388_731_6e-3 + z * 2.443_315_7e-5));
    let v = if q & 1 != 0 { c } else { s };
    if q & 2 != 0 { -v } else { v }
}

fn apply(xs: &mut [f32], shift: i32, slow: fn(f32) -> f32) {
    let mut any_big = false;
    for x in xs.iter_mut() {
        any_big |= !(x.abs() <= LIMIT);
        *x = if x.abs() <= LIMIT {
            kernel(*x, shift)
        } else {
            *x
        };
    }
    if any_big {
        for x in xs.iter_mut() {
            if !(x.abs() <= LIMIT) {
                *x = slow(*x);
            }
        }
    }
}

/// `sin` of every element, in place.
pub fn sin(xs: &mut [f32]) {
    apply(xs, 0, f32::sin)
}

/// `cos` of every element, in place (`cos x = sin(x + π/2)`: one quadrant further).
pub fn cos(xs: &mut [f32]) {
    apply(xs, 1, f32::cos)
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
        for (f, r) in [
            (super::sin as fn(&mut [f32]), f64::sin as fn(f64) -> f64),
            (super::cos, f64::cos),
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
    }
}
