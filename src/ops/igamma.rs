//! The regularized incomplete gamma functions `P(a, x)` and `Q(a, x) = 1 - P(a, x)` in f64, for
//! the CPU side of the `gammainc`/`gammaincc` binary ops (`kernels/binary.cu` holds the same
//! algorithm for CUDA). Cephes' split (SciPy `gammainc`, PyTorch `special.gammainc`): the power
//! series of `P` for `x <= max(1, a)`, the continued fraction of `Q` beyond, each giving the
//! other as its complement, and DLMF 8.7.3 for `Q` at small `a` and `x`; for `a >= 10⁴`
//! Temme's uniform asymptotic expansion (DLMF 8.12), where the series would need `O(√a)`
//! terms. Checked against mpmath in `tests/all/special.rs`: SciPy 1.17 and PyTorch 2.15 are
//! off by up to 15% near `x = a` for large `a` (`P(10⁸, 0.999·10⁸)`), where this is not.

/// `Σ_n d[k][n]·η^n` is Temme's `c_k(η)` (DLMF 8.12.12), for k = 0, 1, 2: SciPy's table
/// (`scipy/special/_precompute/gammainc_asy.py`), recomputed with mpmath at 40 digits.
const TEMME_D: [[f64; 16]; 3] = [
    [
        -0.3333333333333333,
        0.08333333333333333,
        -0.014814814814814815,
        0.0011574074074074073,
        0.0003527336860670194,
        -0.0001787551440329218,
        3.919263178522438e-05,
        -2.185448510679992e-06,
        -1.85406221071516e-06,
        8.296711340953087e-07,
        -1.7665952736826078e-07,
        6.707853543401498e-09,
        1.0261809784240309e-08,
        -4.382036018453353e-09,
        9.14769958223679e-10,
        -2.5514193994946248e-11,
    ],
    [
        -0.001851851851851852,
        -0.003472222222222222,
        0.0026455026455026454,
        -0.0009902263374485596,
        0.00020576131687242798,
        -4.018775720164609e-07,
        -1.8098550334489977e-05,
        7.64916091608111e-06,
        -1.6120900894563446e-06,
        4.647127802807434e-09,
        1.378633446915721e-07,
        -5.752545603517705e-08,
        1.1951628599778148e-08,
        -1.7543241719747647e-11,
        -1.0091543710600413e-09,
        4.162792991842583e-10,
    ],
    [
        0.004133597883597883,
        -0.0026813271604938273,
        0.0007716049382716049,
        2.0093878600823047e-06,
        -0.0001073665322636516,
        5.2923448829120125e-05,
        -1.2760635188618728e-05,
        3.423578734096138e-08,
        1.3721957309062934e-06,
        -6.298992138380055e-07,
        1.4280614206064242e-07,
        -2.0477098421990866e-10,
        -1.409252991086752e-08,
        6.228974084922022e-09,
        -1.3670488396617114e-09,
        9.428356159014678e-13,
    ],
];

/// Where Temme's expansion takes over: its first omitted term is below 1e-17 relative.
const TEMME_FROM: f64 = 1e4;
/// The series and the continued fraction stop here; for `a < 10⁴` they converge in about
/// `9√a` terms.
const MAX_TERMS: usize = 2000;

/// `ln(1 + t) - t` without the cancellation of `log1p(t) - t` for small `t`.
fn log1pmx(t: f64) -> f64 {
    if t.abs() >= 0.2 {
        return t.ln_1p() - t;
    }
    // -t²/2 + t³/3 - ...: 0.2^n/n falls below 1e-17 of the first term by n = 24.
    let (mut sum, mut power) = (0.0, t);
    for n in 2..40 {
        power *= -t;
        let term = power / n as f64;
        sum += term;
        if term.abs() <= 1e-17 * sum.abs() {
            break;
        }
    }
    sum
}

/// `ln Γ(a) - ((a - ½) ln a - a + ½ ln 2π)`, Stirling's series, accurate for `a >= 10`.
fn stirling_tail(a: f64) -> f64 {
    let (r, r2) = (1.0 / a, 1.0 / (a * a));
    r * (1.0 / 12.0
        - r2 * (1.0 / 360.0
            - r2 * (1.0 / 1260.0
                - r2 * (1.0 / 1680.0 - r2 * (1.0 / 1188.0 - r2 * 691.0 / 360360.0)))))
}

/// `x^a·e^-x / Γ(a)`, the factor in front of both expansions; for `a >= 10` written as
/// `√(a/2π)·exp(a·log1pmx((x - a)/a) - stirling_tail(a))`, which cancels nothing large.
fn prefactor(a: f64, x: f64) -> f64 {
    if a < 10.0 {
        return (a * x.ln() - x - libm::lgamma(a)).exp();
    }
    // a·log1pmx(t) is a·ln(x/a) + a - x; the series form only near x = a, since t = (x - a)/a
    // loses x/a's relative precision when x << a.
    let t = (x - a) / a;
    let exponent = if t.abs() < 0.2 {
        a * log1pmx(t)
    } else {
        a * (x / a).ln() + (a - x)
    };
    (a / std::f64::consts::TAU).sqrt() * (exponent - stirling_tail(a)).exp()
}

/// `ln Γ(1 + a)` for `|a| <= 0.5` by its Taylor series `-γa + Σ_k (-1)^k ζ(k)/k · a^k`, which
/// keeps the relative precision that `lgamma(1.0 + a)` loses to the rounding of `1 + a`.
fn lgamma1p(a: f64) -> f64 {
    const EULER_GAMMA: f64 = 0.577_215_664_901_532_9;
    let (mut sum, mut power) = (-EULER_GAMMA * a, -a);
    for k in 2..80 {
        power *= -a;
        let term = crate::ops::special::zeta(k as f64, 1.0) * power / k as f64;
        sum += term;
        if term.abs() <= f64::EPSILON / 4.0 * sum.abs() {
            break;
        }
    }
    sum
}

/// `Q(a, x)` for small `x` and `a` by DLMF 8.7.3, `1 - x^a/Γ(a + 1) + x^a/Γ(a)·Σ_n≥1 (-x)^n /
/// (n!(a + n))` (SciPy's `igamc_series`), where `1 - P` would cancel.
fn upper_series(a: f64, x: f64) -> f64 {
    let (mut fac, mut sum) = (1.0, 0.0);
    for n in 1..MAX_TERMS {
        fac *= -x / n as f64;
        let term = fac / (a + n as f64);
        sum += term;
        if term.abs() <= f64::EPSILON / 2.0 * sum.abs() {
            break;
        }
    }
    let log_x = x.ln();
    -(a * log_x - lgamma1p(a)).exp_m1() - (a * log_x - libm::lgamma(a)).exp() * sum
}

/// `P(a, x)` by its power series `x^a e^-x / Γ(a+1) · Σ x^n / ((a+1)…(a+n))`.
fn lower_series(a: f64, x: f64) -> f64 {
    let (mut sum, mut term, mut r) = (1.0, 1.0, a);
    for _ in 0..MAX_TERMS {
        r += 1.0;
        term *= x / r;
        sum += term;
        if term <= sum * f64::EPSILON / 2.0 {
            break;
        }
    }
    prefactor(a, x) * sum / a
}

/// `Q(a, x)` by Legendre's continued fraction, evaluated by the modified Lentz method.
fn upper_fraction(a: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let mut b = x + 1.0 - a;
    let mut c = 1.0 / TINY;
    let mut d = if b.abs() < TINY { 1.0 / TINY } else { 1.0 / b };
    let mut h = d;
    for i in 1..MAX_TERMS {
        let an = -(i as f64) * (i as f64 - a);
        b += 2.0;
        d = an * d + b;
        d = if d.abs() < TINY { 1.0 / TINY } else { 1.0 / d };
        c = b + an / c;
        if c.abs() < TINY {
            c = TINY;
        }
        let delta = d * c;
        h *= delta;
        if (delta - 1.0).abs() <= f64::EPSILON / 2.0 {
            break;
        }
    }
    prefactor(a, x) * h
}

/// Temme's expansion `Q = ½ erfc(η√(a/2)) + e^(-aη²/2)/√(2πa) · Σ_k c_k(η)/a^k` (`upper`),
/// or `P` with `η → -η` and the sum subtracted, for `a >= 10⁴`, where `|η| < 0.4` whenever
/// the exponential does not underflow (the Taylor series of `c_k` converge well there).
fn temme(a: f64, x: f64, upper: bool) -> f64 {
    let l = log1pmx((x - a) / a);
    let eta = (-2.0 * l).sqrt().copysign(x - a);
    let sign = if upper { 1.0 } else { -1.0 };
    let head = 0.5 * libm::erfc(sign * eta * (a / 2.0).sqrt());
    if a * l < -745.0 {
        return head;
    }
    let (mut sum, mut afac) = (0.0, 1.0);
    for row in &TEMME_D {
        let ck = row.iter().rev().fold(0.0, |acc, d| acc * eta + d);
        sum += ck * afac;
        afac /= a;
    }
    head + sign * (a * l).exp() * sum / (std::f64::consts::TAU * a).sqrt()
}

/// The edge cases SciPy and PyTorch share, or `None` for `0 < a, x < inf`.
fn edge(a: f64, x: f64, upper: bool) -> Option<f64> {
    let (zero, one) = if upper { (1.0, 0.0) } else { (0.0, 1.0) };
    Some(if a.is_nan() || x.is_nan() || a < 0.0 || x < 0.0 {
        f64::NAN
    } else if a == 0.0 {
        if x > 0.0 { one } else { f64::NAN }
    } else if x == 0.0 {
        zero
    } else if a.is_infinite() {
        if x.is_infinite() { f64::NAN } else { zero }
    } else if x.is_infinite() {
        one
    } else {
        return None;
    })
}

/// The regularized lower incomplete gamma function `P(a, x) = γ(a, x)/Γ(a)` (PyTorch
/// `special.gammainc`/`igamma`, SciPy `gammainc`): NaN for negative or NaN arguments and at
/// `a = x = 0`, 1 at `a = 0 < x`, 0 at `x = 0 < a`.
pub(crate) fn gammainc(a: f64, x: f64) -> f64 {
    if let Some(v) = edge(a, x, false) {
        v
    } else if a >= TEMME_FROM {
        temme(a, x, false)
    } else if x > 1.0 && x > a {
        1.0 - upper_fraction(a, x)
    } else {
        lower_series(a, x)
    }
}

/// The regularized upper incomplete gamma function `Q(a, x) = Γ(a, x)/Γ(a) = 1 - P(a, x)`
/// (PyTorch `special.gammaincc`/`igammac`, SciPy `gammaincc`), with the mirrored edge cases.
pub(crate) fn gammaincc(a: f64, x: f64) -> f64 {
    if let Some(v) = edge(a, x, true) {
        v
    } else if a >= TEMME_FROM {
        temme(a, x, true)
    } else if x > 1.1 {
        if x < a {
            1.0 - lower_series(a, x)
        } else {
            upper_fraction(a, x)
        }
    } else if a > 0.5 || (x <= 0.5 && -0.4 / x.ln() < a) || (x > 0.5 && x * 1.1 < a) {
        1.0 - lower_series(a, x)
    } else {
        upper_series(a, x)
    }
}
