//! Bessel functions of torch.special that neither Rust's std nor `libm` has, in f64, for the
//! CPU side of the `float_ops!` table (`kernels/unary.cu` holds the same algorithms for
//! CUDA): the modified Bessel functions of the second kind `K₀`, `K₁` and their scaled forms,
//! and the spherical Bessel function `j₀`. (`J₀`, `J₁`, `Y₀`, `Y₁` come from `libm`, and from
//! CUDA's math library on the GPU.) Checked against SciPy in `tests/all/special.rs`.

/// `K_ν(x)` for ν 0 or 1 and `0 < x <= 2` by the power series (DLMF 10.31.1)
/// `K₀ = Σ (ψ(k+1) - ln(x/2))·q^k/(k!)²` and
/// `K₁ = 1/x + Σ (ln(x/2) - (ψ(k+1) + ψ(k+2))/2)·(x/2)·q^k/(k!(k+1)!)`, `q = x²/4`.
fn series_k(nu: u32, x: f64) -> f64 {
    const EULER_GAMMA: f64 = 0.577_215_664_901_532_9;
    let (q, l) = (x * x / 4.0, (x / 2.0).ln());
    let (mut psi, mut term) = (-EULER_GAMMA, if nu == 0 { 1.0 } else { x / 2.0 });
    let mut sum = if nu == 0 { 0.0 } else { 1.0 / x };
    for k in 0..60 {
        let k1 = (k + 1) as f64;
        let add = if nu == 0 {
            (psi - l) * term
        } else {
            (l - psi - 0.5 / k1) * term
        };
        sum += add;
        psi += 1.0 / k1;
        term *= q / (k1 * (k1 + nu as f64));
        if k > 2 && add.abs() < 1e-17 * sum.abs() {
            break;
        }
    }
    sum
}

/// `e^x·K_ν(x)` for `x > 2` (ν 0 or 1, and 1/3 for `Ai`), by the trapezoidal rule on
/// `∫₀^∞ exp(-x(cosh t - 1))·cosh(νt) dt` (DLMF 10.32.9). The integrand is analytic in the
/// strip `|Im t| < π/2` and about `exp(-xt²/2)` near 0, so with the step `min(1/8, 1/(2√x))`
/// the rule's error is below f64's precision; the sum stops where the terms fall below `e^-45`.
fn integral_k(nu: f64, x: f64) -> f64 {
    let h = 0.125f64.min(0.5 / x.sqrt());
    let mut sum = 0.5;
    for k in 1..10_000 {
        let t = k as f64 * h;
        // x·(cosh t - 1) = 2x·sinh²(t/2), without cancellation near 0; ln cosh t.
        let s = (t / 2.0).sinh();
        let decay = 2.0 * x * s * s;
        // ln cosh(νt)
        let grow = if nu == 0.0 {
            0.0
        } else {
            nu * t - std::f64::consts::LN_2 + (-2.0 * nu * t).exp().ln_1p()
        };
        if decay - grow > 45.0 {
            break;
        }
        sum += (grow - decay).exp();
    }
    sum * h
}

/// `K_ν(x)`, times `e^x` when `scaled`, for `x > 0`: the series to 2, the integral beyond.
fn bessel_k(nu: u32, x: f64, scaled: bool) -> f64 {
    match (x <= 2.0, scaled) {
        (true, false) => series_k(nu, x),
        (true, true) => series_k(nu, x) * x.exp(),
        (false, false) => integral_k(f64::from(nu), x) * (-x).exp(),
        (false, true) => integral_k(f64::from(nu), x),
    }
}

/// The edge cases both orders share: NaN below 0 and for NaN, `inf` at 0, 0 at `inf`.
fn k_edges(x: f64) -> Option<f64> {
    match x {
        _ if x.is_nan() || x < 0.0 => Some(f64::NAN),
        0.0 => Some(f64::INFINITY),
        f64::INFINITY => Some(0.0),
        _ => None,
    }
}

/// The modified Bessel function of the second kind of order 0 (PyTorch
/// `special.modified_bessel_k0`, SciPy `k0`).
pub(crate) fn k0(x: f64) -> f64 {
    k_edges(x).unwrap_or_else(|| bessel_k(0, x, false))
}

/// The modified Bessel function of the second kind of order 1 (PyTorch
/// `special.modified_bessel_k1`, SciPy `k1`).
pub(crate) fn k1(x: f64) -> f64 {
    k_edges(x).unwrap_or_else(|| bessel_k(1, x, false))
}

/// `e^x·K₀(x)` (PyTorch `special.scaled_modified_bessel_k0`, SciPy `k0e`).
pub(crate) fn k0e(x: f64) -> f64 {
    k_edges(x).unwrap_or_else(|| bessel_k(0, x, true))
}

/// `e^x·K₁(x)` (PyTorch `special.scaled_modified_bessel_k1`, SciPy `k1e`).
pub(crate) fn k1e(x: f64) -> f64 {
    k_edges(x).unwrap_or_else(|| bessel_k(1, x, true))
}

/// The spherical Bessel function of the first kind of order 0, `sin(x)/x` (PyTorch
/// `special.spherical_bessel_j0`, SciPy `spherical_jn(0, x)`): 1 at 0, 0 at ±inf.
pub(crate) fn spherical_j0(x: f64) -> f64 {
    if x.is_infinite() {
        0.0
    } else if x.abs() < 1e-4 {
        // 1 - x²/6 + x⁴/120: below 1e-4 the next term is under 1e-20.
        let x2 = x * x;
        1.0 - x2 / 6.0 * (1.0 - x2 / 20.0)
    } else {
        x.sin() / x
    }
}

/// A double-double number `hi + lo` with `|lo| <= ulp(hi)/2`: about 32 significant digits,
/// what the Airy series needs where its terms are `e^(2ζ)` times larger than its sum.
#[derive(Clone, Copy)]
struct Dd(f64, f64);

impl Dd {
    /// `a + b` renormalised, for `|a| >= |b|` (Dekker's fast two-sum).
    fn quick(a: f64, b: f64) -> Dd {
        let s = a + b;
        Dd(s, b - (s - a))
    }

    fn add(self, b: Dd) -> Dd {
        // Knuth's two-sum of the high parts, then the low parts added to its error.
        let s = self.0 + b.0;
        let v = s - self.0;
        let e = (self.0 - (s - v)) + (b.0 - v);
        Dd::quick(s, e + self.1 + b.1)
    }

    fn mul(self, b: Dd) -> Dd {
        let p = self.0 * b.0;
        Dd::quick(p, self.0.mul_add(b.0, -p) + self.0 * b.1 + self.1 * b.0)
    }

    /// `self / d` for a double `d` (the series' integer divisors, exact in f64).
    fn div(self, d: f64) -> Dd {
        let q = self.0 / d;
        let p = q * d;
        let r = (self.0 - p) - q.mul_add(d, -p) + self.1;
        Dd::quick(q, r / d)
    }
}

/// `Ai(0)` and `-Ai'(0)` as double-doubles (mpmath, 50 digits).
const AI0: Dd = Dd(0.3550280538878172, 2.05233632436212e-17);
const AIP0: Dd = Dd(0.2588194037928068, -2.522243111610832e-17);

/// `Ai(x)` for `-12 <= x <= 2` by the Maclaurin series (DLMF 9.4.1)
/// `Ai = Ai(0)·f - (-Ai'(0))·g`, `f = Σ 3^k (1/3)_k x^3k/(3k)!`,
/// `g = Σ 3^k (2/3)_k x^(3k+1)/(3k+1)!`, in double-double: at `x = -12` the terms are
/// `e^ζ ≈ 1e12` times larger than the sum (`ζ = 2/3·|x|^(3/2)`).
fn airy_series(x: f64) -> f64 {
    let x3 = Dd(x * x, x.mul_add(x, -x * x)).mul(Dd(x, 0.0));
    let (mut f, mut a, mut g, mut b) = (Dd(1.0, 0.0), Dd(1.0, 0.0), Dd(x, 0.0), Dd(x, 0.0));
    for k in 1..200 {
        let k3 = 3.0 * k as f64;
        a = a.mul(x3).div(k3 * (k3 - 1.0));
        b = b.mul(x3).div(k3 * (k3 + 1.0));
        f = f.add(a);
        g = g.add(b);
        if a.0.abs() <= 1e-34 * f.0.abs() && b.0.abs() <= 1e-34 * g.0.abs() {
            break;
        }
    }
    let ag = AIP0.mul(g);
    AI0.mul(f).add(Dd(-ag.0, -ag.1)).0
}

/// `ζ = 2/3·z^(3/2)` for `z > 0` as a double-double, so that `e^-ζ` and `sin ζ` keep f64's
/// relative precision where `ζ` is in the hundreds or larger.
fn airy_zeta(z: f64) -> Dd {
    let s = z.sqrt();
    let root = Dd::quick(s, (-s).mul_add(s, z) / (2.0 * s));
    Dd(z, 0.0).mul(root).mul(Dd(2.0, 0.0)).div(3.0)
}

/// The sums `P = Σ (-1)^j t_2j` and `Q = Σ (-1)^j t_(2j+1)` of the expansion of `Ai(-z)`
/// (DLMF 9.7.9) over `t_k = u_k ζ^-k`, `u_k = u_(k-1)·(6k-5)(6k-3)(6k-1) / (216·(2k-1)·k)`.
/// The terms shrink until `k ≈ 2ζ`, where they are about `e^-2ζ·√(4πζ)`: below `1e-22` for
/// `z >= 12` (`ζ >= 27.7`), the sum stopping at `1e-18`.
fn airy_asymptotic(zeta: f64) -> (f64, f64) {
    let (mut p, mut q, mut t) = (1.0, 0.0, 1.0f64);
    for k in 1..60u32 {
        let kf = f64::from(k);
        t *= (6.0 * kf - 5.0) * (6.0 * kf - 3.0) * (6.0 * kf - 1.0)
            / (216.0 * (2.0 * kf - 1.0) * kf * zeta);
        let signed = if (k / 2) % 2 == 0 { t } else { -t };
        if k % 2 == 0 {
            p += signed;
        } else {
            q += signed;
        }
        if t < 1e-18 {
            break;
        }
    }
    (p, q)
}

/// The Airy function `Ai(x)` (PyTorch `special.airy_ai`, SciPy `airy(x)[0]`): the series on
/// `[-12, 2]`; above it `Ai = √(x/3)/π·K_(1/3)(ζ)` (DLMF 9.6.1) with `e^ζ K_(1/3)(ζ)` by the
/// same trapezoidal rule as `K₀`, `K₁`; below it the asymptotic expansion (DLMF 9.7.9). NaN at
/// ±inf and NaN as PyTorch and SciPy give. `ζ` is carried in double-double, so the phase of
/// the oscillation is exact to f64 precision while `|x| < 1e20`; further out the result is
/// only a value of the right amplitude, and below `-1.2e205`, where `ζ` overflows, NaN.
pub(crate) fn airy_ai(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    if (-12.0..=2.0).contains(&x) {
        return airy_series(x);
    }
    let z = x.abs();
    let zeta = airy_zeta(z);
    if x > 0.0 {
        // e^-ζ as the square of e^(-ζ/2) (both normal numbers) so that only the last product
        // rounds into the subnormal range; ζ_lo as the factor 1 - ζ_lo.
        let half = (-0.5 * zeta.0).exp();
        let rest = (z / 3.0).sqrt() / std::f64::consts::PI * integral_k(1.0 / 3.0, zeta.0);
        return half * (rest * (1.0 - zeta.1)) * half;
    }
    // z^-¼/√π·(cos(ζ - π/4)·P + sin(ζ - π/4)·Q), with cos(ζ - π/4) = (cos ζ + sin ζ)/√2 and
    // sin(ζ - π/4) = (sin ζ - cos ζ)/√2; sin and cos of ζ_hi + ζ_lo by the angle sums (ζ_lo
    // is more than 1 where ζ_hi is beyond 2^53).
    let (p, q) = airy_asymptotic(zeta.0);
    let ((sh, ch), (sl, cl)) = (zeta.0.sin_cos(), zeta.1.sin_cos());
    let (s, c) = (sh * cl + ch * sl, ch * cl - sh * sl);
    let frac_1_sqrt_2pi = 0.398_942_280_401_432_7;
    frac_1_sqrt_2pi * ((c + s) * p + (s - c) * q) / z.powf(0.25)
}
