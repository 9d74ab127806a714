//! Scalar special functions in f64 that neither Rust's std nor `libm` has, for the CPU side of
//! the `float_ops!` table (`kernels/unary.cu` holds the same algorithms for CUDA): `digamma`,
//! `erfinv`, the modified Bessel functions `i0`, `i1` and their scaled forms `i0e`, `i1e`,
//! `erfcx`, `log_ndtr` and `ndtri` (CUDA's math library has the last three's building blocks:
//! `erfcx`, `normcdfinv`). Each is accurate to a few ulp in f64, checked against PyTorch and
//! SciPy in `tests/all/special.rs`.

use std::f64::consts::PI;

/// The digamma function `ψ(x) = Γ'(x)/Γ(x)` (PyTorch `digamma`): `-inf` at 0 (PyTorch's
/// choice), NaN at the negative integers, the reflection `ψ(1 - x) - π/tan(πx)` below 0, and
/// for `x > 0` the recurrence up to 10 then the asymptotic series.
pub(crate) fn digamma(x: f64) -> f64 {
    if x.is_nan() || x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
    }
    if x < 0.0 {
        if x == x.floor() {
            return f64::NAN;
        }
        // tan has period π: reduce to r = x - round(x) in [-1/2, 1/2], exactly, so that x
        // near an integer keeps its distance to it (x - floor(x) would round that away).
        let r = x - x.round();
        return digamma(1.0 - x) - PI / (PI * r).tan();
    }
    let (mut x, mut acc) = (x, 0.0);
    while x < 10.0 {
        acc -= 1.0 / x;
        x += 1.0;
    }
    if x == f64::INFINITY {
        return f64::INFINITY;
    }
    // ln x - 1/(2x) - Σ B_2k / (2k x^2k), Bernoulli numbers B_2 .. B_12.
    const B: [f64; 6] = [
        1.0 / 12.0,
        -1.0 / 120.0,
        1.0 / 252.0,
        -1.0 / 240.0,
        1.0 / 132.0,
        -691.0 / 32760.0,
    ];
    let z = 1.0 / (x * x);
    let series = B.iter().rev().fold(0.0, |s, &b| (s + b) * z);
    acc + x.ln() - 0.5 / x - series
}

/// The inverse error function (PyTorch `erfinv`): `erf(erfinv(y)) = y` on `(-1, 1)`, `±inf` at
/// `±1`, NaN outside. Giles' single-precision approximation ("Approximating the erfinv
/// function", 2010) refined by Newton steps, on `erf` below 0.5 and on `erfc` above, where
/// `1 - |y|` is exact and `erfc` keeps its relative precision.
pub(crate) fn erfinv(y: f64) -> f64 {
    if y.is_nan() || y.abs() > 1.0 {
        return f64::NAN;
    }
    if y.abs() == 1.0 {
        return y * f64::INFINITY;
    }
    if y == 0.0 {
        return y;
    }
    let a = y.abs();
    let w = -((1.0 - a) * (1.0 + a)).ln();
    let (w, c) = if w < 5.0 {
        let c = [
            2.81022636e-08,
            3.43273939e-07,
            -3.5233877e-06,
            -4.39150654e-06,
            0.00021858087,
            -0.00125372503,
            -0.00417768164,
            0.246640727,
            1.50140941,
        ];
        (w - 2.5, c)
    } else {
        let c = [
            -0.000200214257,
            0.000100950558,
            0.00134934322,
            -0.00367342844,
            0.00573950773,
            -0.0076224613,
            0.00943887047,
            1.00167406,
            2.83297682,
        ];
        (w.sqrt() - 3.0, c)
    };
    let mut x = c.iter().fold(0.0, |p, &k| p * w + k) * a;
    // Newton on `erf(x) = a` below 0.5; above, on `ln erfc(x) = ln(1 - a)`, which is nearly
    // quadratic in the tail (Newton on `erfc` itself creeps there from the approximation's
    // 1e-1 error). Each converges in a few steps; six bound the loop.
    for _ in 0..6 {
        let slope = std::f64::consts::FRAC_2_SQRT_PI * (-x * x).exp();
        let step = if a > 0.5 {
            let e = libm::erfc(x);
            (e.ln() - (1.0 - a).ln()) * e / slope
        } else {
            (a - libm::erf(x)) / slope
        };
        x += step;
        if step.abs() <= 1e-17 * x {
            break;
        }
    }
    x.copysign(y)
}

/// `I_ν(x)` for `ν` 0 or 1: the power series `Σ (x/2)^(2k+ν) / (k! (k+ν)!)` for `|x| <= 20`,
/// the asymptotic expansion `e^|x| / √(2π|x|) · Σ (-1)^k a_k(ν) / x^k` beyond (its terms fall
/// below 1e-17 before they grow).
fn bessel_i(nu: u32, x: f64) -> f64 {
    bessel_i_scaled(nu, x, false)
}

/// [`bessel_i`], times `e^-|x|` when `scaled` (PyTorch's `i0e`/`i1e`): the series times the
/// exponential, and the asymptotic expansion without it, so neither overflows.
fn bessel_i_scaled(nu: u32, x: f64, scaled: bool) -> f64 {
    if x.is_nan() {
        return x;
    }
    let ax = x.abs();
    let odd = |v: f64| if nu == 1 && x < 0.0 { -v } else { v };
    if ax == f64::INFINITY {
        return odd(if scaled { 0.0 } else { f64::INFINITY });
    }
    if ax <= 20.0 {
        let q = ax * ax / 4.0;
        let mut term = if nu == 0 { 1.0 } else { ax / 2.0 };
        let mut sum = term;
        for k in 1..200 {
            term *= q / (k as f64 * (k + nu as usize) as f64);
            sum += term;
            if term < sum * 1e-17 {
                break;
            }
        }
        return odd(if scaled { sum * (-ax).exp() } else { sum });
    }
    let mu = 4.0 * (nu * nu) as f64;
    let (mut term, mut sum) = (1.0, 1.0);
    for k in 1..60 {
        let j = (2 * k - 1) as f64;
        term *= -(mu - j * j) / (k as f64 * 8.0 * ax);
        sum += term;
        if term.abs() < 1e-17 * sum.abs() {
            break;
        }
    }
    if scaled {
        return odd(sum / (2.0 * PI * ax).sqrt());
    }
    // e^ax overflows from ax ≈ 709.8; the product with the small factor is split so that the
    // result overflows only when it must.
    let half = (ax / 2.0).exp();
    odd(half * (half / (2.0 * PI * ax).sqrt()) * sum)
}

/// The modified Bessel function of the first kind of order 0 (PyTorch `i0`, NumPy `i0`).
pub(crate) fn i0(x: f64) -> f64 {
    bessel_i(0, x)
}

/// The modified Bessel function of the first kind of order 1 (PyTorch `special.i1`).
pub(crate) fn i1(x: f64) -> f64 {
    bessel_i(1, x)
}

/// `I₀(x)·e^-|x|`, the exponentially scaled modified Bessel function of order 0 (PyTorch
/// `special.i0e`, SciPy `i0e`).
pub(crate) fn i0e(x: f64) -> f64 {
    bessel_i_scaled(0, x, true)
}

/// `I₁(x)·e^-|x|` (PyTorch `special.i1e`, SciPy `i1e`).
pub(crate) fn i1e(x: f64) -> f64 {
    bessel_i_scaled(1, x, true)
}

/// `e^(x²)` with `x²` split into its rounded value and the rounding error (by a fused
/// multiply-add), so the result keeps its relative precision where `x²` is large.
fn exp_square(x: f64) -> f64 {
    let hi = x * x;
    let lo = x.mul_add(x, -hi);
    hi.exp() * (1.0 + lo)
}

/// The scaled complementary error function `e^(x²)·erfc(x)` (PyTorch `special.erfcx`, SciPy
/// `erfcx`): the product with a split `e^(x²)` up to 26, the asymptotic series
/// `1/(x√π)·Σ (-1)^k (2k-1)!!/(2x²)^k` beyond (its terms fall below 1e-17 there), and
/// `2e^(x²) - erfcx(-x)` for negative `x`, which overflows below about -26.6.
pub(crate) fn erfcx(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x < 0.0 {
        if x < -26.7 {
            return f64::INFINITY;
        }
        return 2.0 * exp_square(x) - erfcx(-x);
    }
    if x < 26.0 {
        return exp_square(x) * libm::erfc(x);
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    let z = 1.0 / (2.0 * x * x);
    let (mut term, mut sum) = (1.0f64, 1.0f64);
    for k in 1..12 {
        term *= -((2 * k - 1) as f64) * z;
        sum += term;
    }
    sum / (x * PI.sqrt())
}

/// The log of the standard normal CDF, `ln Φ(x)` (PyTorch `special.log_ndtr`, SciPy
/// `log_ndtr`): `log1p(-erfc(x/√2)/2)` above 0, `ln(erfc(-x/√2)/2)` down to -1, and
/// `ln(erfcx(-x/√2)/2) - x²/2` below, which keeps its precision far into the lower tail.
pub(crate) fn log_ndtr(x: f64) -> f64 {
    let t = x * std::f64::consts::FRAC_1_SQRT_2;
    if x > 0.0 {
        (-0.5 * libm::erfc(t)).ln_1p()
    } else if x >= -1.0 {
        (0.5 * libm::erfc(-t)).ln()
    } else {
        (0.5 * erfcx(-t)).ln() - 0.5 * x * x
    }
}

/// The inverse of the standard normal CDF (PyTorch `special.ndtri`, SciPy `ndtri`): `-inf`
/// at 0, `inf` at 1, NaN outside `[0, 1]`. Acklam's rational approximation, refined by
/// Newton steps on `log_ndtr(x) = ln p` (relative in `p`, so the far lower tail keeps its
/// precision); the upper half through `ndtri(p) = -ndtri(1 - p)`, where `1 - p` is exact.
pub(crate) fn ndtri(p: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p > 0.5 {
        return -ndtri(1.0 - p);
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    const A: [f64; 6] = [
        -3.969683028665376e1,
        2.209460984245205e2,
        -2.759285104469687e2,
        1.38357751867269e2,
        -3.066479806614716e1,
        2.506628277459239,
    ];
    const B: [f64; 5] = [
        -5.447609879822406e1,
        1.615858368580409e2,
        -1.556989798598866e2,
        6.680131188771972e1,
        -1.328068155288572e1,
    ];
    const C: [f64; 6] = [
        -7.784894002430293e-3,
        -3.223964580411365e-1,
        -2.400758277161838,
        -2.549732539343734,
        4.374664141464968,
        2.938163982698783,
    ];
    const D: [f64; 4] = [
        7.784695709041462e-3,
        3.224671290700398e-1,
        2.445134137142996,
        3.754408661907416,
    ];
    let horner = |c: &[f64], x: f64| c.iter().fold(0.0, |acc, &k| acc * x + k);
    let mut x = if p < 0.02425 {
        let q = (-2.0 * p.ln()).sqrt();
        horner(&C, q) / (horner(&D, q) * q + 1.0)
    } else {
        let q = p - 0.5;
        let r = q * q;
        horner(&A, r) * q / (horner(&B, r) * r + 1.0)
    };
    let target = p.ln();
    for _ in 0..4 {
        let l = log_ndtr(x);
        // d/dx ln Φ(x) = φ(x)/Φ(x) = e^(-x²/2 - ln Φ(x)) / √(2π).
        let slope = (-0.5 * x * x - l).exp() / (2.0 * PI).sqrt();
        let step = (l - target) / slope;
        x -= step;
        if step.abs() <= 1e-16 * x.abs() {
            break;
        }
    }
    x
}

/// `(2k)! / B_2k` for k = 1..12 (`B` the Bernoulli numbers): the Euler–Maclaurin tail of
/// [`zeta`] (Cephes' `A` table; `tests/all/special.rs` recomputes it from the Bernoulli
/// numbers).
pub(crate) const ZETA_A: [f64; 12] = [
    12.0,
    -720.0,
    30240.0,
    -1209600.0,
    47900160.0,
    -1892437580.3183792,
    74724249600.0,
    -2950130727918.164,
    116467828143500.67,
    -4597978722407473.0,
    1.8152105401943546e17,
    -7.166165256175667e18,
];

/// The Hurwitz zeta function `ζ(x, q) = Σ_k (k + q)^-x` (PyTorch `special.zeta`, SciPy
/// `zeta`), by Cephes' Euler–Maclaurin summation: `inf` at `x = 1` and at the poles
/// `q = 0, -1, ...`, NaN for `x < 1` and for a negative `q` with a non-integer `x`.
pub(crate) fn zeta(x: f64, q: f64) -> f64 {
    if x.is_nan() || q.is_nan() {
        return f64::NAN;
    }
    if x == 1.0 {
        return f64::INFINITY;
    }
    if x < 1.0 {
        return f64::NAN;
    }
    if q <= 0.0 {
        if q == q.floor() {
            return f64::INFINITY;
        }
        if x != x.floor() {
            return f64::NAN;
        }
    }
    let mut s = q.powf(-x);
    let mut a = q;
    let mut b = 0.0;
    let mut i = 0;
    while i < 9 || a <= 9.0 {
        i += 1;
        a += 1.0;
        b = a.powf(-x);
        s += b;
        if (b / s).abs() < f64::EPSILON / 2.0 {
            return s;
        }
    }
    let w = a;
    s += b * w / (x - 1.0);
    s -= 0.5 * b;
    let mut a = 1.0;
    let mut k = 0.0;
    for &ak in &ZETA_A {
        a *= x + k;
        b /= w;
        let t = a * b / ak;
        s += t;
        if (t / s).abs() < f64::EPSILON / 2.0 {
            return s;
        }
        k += 1.0;
        a *= x + k;
        b /= w;
        k += 1.0;
    }
    s
}

#[cfg(test)]
mod tests {
    /// `ZETA_A` is `(2k)!/B_2k` for the Bernoulli numbers `B_2 .. B_24`.
    #[test]
    fn zeta_table_is_the_bernoulli_ratios() {
        let bernoulli = [
            (1.0, 6.0),
            (-1.0, 30.0),
            (1.0, 42.0),
            (-1.0, 30.0),
            (5.0, 66.0),
            (-691.0, 2730.0),
            (7.0, 6.0),
            (-3617.0, 510.0),
            (43867.0, 798.0),
            (-174611.0, 330.0),
            (854513.0, 138.0),
            (-236364091.0, 2730.0),
        ];
        let mut fact = 1.0f64;
        for (k, (num, den)) in bernoulli.iter().enumerate() {
            let m = 2 * (k + 1);
            fact *= (m - 1) as f64 * m as f64;
            let want = fact * den / num;
            let got = super::ZETA_A[k];
            assert!(
                (got - want).abs() <= 1e-15 * want.abs(),
                "A[{k}]: {got} vs {want}"
            );
        }
    }
}
