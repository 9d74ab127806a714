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

/// `e^x·K_ν(x)` for ν 0 or 1 and `x > 2`, by the trapezoidal rule on
/// `∫₀^∞ exp(-x(cosh t - 1))·cosh(νt) dt` (DLMF 10.32.9). The integrand is analytic in the
/// strip `|Im t| < π/2` and about `exp(-xt²/2)` near 0, so with the step `min(1/8, 1/(2√x))`
/// the rule's error is below f64's precision; the sum stops where the terms fall below `e^-45`.
fn integral_k(nu: u32, x: f64) -> f64 {
    let h = 0.125f64.min(0.5 / x.sqrt());
    let mut sum = 0.5;
    for k in 1..10_000 {
        let t = k as f64 * h;
        // x·(cosh t - 1) = 2x·sinh²(t/2), without cancellation near 0; ln cosh t.
        let s = (t / 2.0).sinh();
        let decay = 2.0 * x * s * s;
        let grow = if nu == 0 {
            0.0
        } else {
            t - std::f64::consts::LN_2 + (-2.0 * t).exp().ln_1p()
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
        (false, false) => integral_k(nu, x) * (-x).exp(),
        (false, true) => integral_k(nu, x),
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
