//! The derivatives of the unary element-wise ops.

use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::tensor::Tensor;

/// The gradient of a unary op from `g`, the input `x` and the output `y`.
pub(super) fn unary<F: FloatElement, D: Backend>(
    name: &str,
    g: &Tensor<F, D>,
    x: &Tensor<F, D>,
    y: &Tensor<F, D>,
) -> Result<Tensor<F, D>> {
    // Derivatives of the form 1/h are applied as g / h: one pass instead of two, and no
    // overflow of 1/h where g·(1/h) is finite (xlogy's `x / y` at subnormal `y`).
    let over = |h: Tensor<F, D>| g.try_div(&h);
    let sqrt_of = |t: Tensor<F, D>| t.try_sqrt();
    let d = match name {
        "neg" => return g.try_neg(),
        "sin" => x.try_cos()?,
        "cos" => x.try_sin()?.try_neg()?,
        "tan" => y.try_mul(y)?.try_add_scalar(F::ONE)?,
        "asin" => return over(sqrt_of(x.try_mul(x)?.try_rsub_scalar(F::ONE)?)?),
        "acos" => return over(sqrt_of(x.try_mul(x)?.try_rsub_scalar(F::ONE)?)?.try_neg()?),
        "atan" => return over(x.try_mul(x)?.try_add_scalar(F::ONE)?),
        "sinh" => x.try_cosh()?,
        "cosh" => x.try_sinh()?,
        "tanh" => y.try_mul(y)?.try_rsub_scalar(F::ONE)?,
        "asinh" => return over(sqrt_of(x.try_mul(x)?.try_add_scalar(F::ONE)?)?),
        "acosh" => return over(sqrt_of(x.try_mul(x)?.try_sub_scalar(F::ONE)?)?),
        "atanh" => return over(x.try_mul(x)?.try_rsub_scalar(F::ONE)?),
        "exp" => y.clone(),
        "exp2" => y.try_mul_scalar(F::from_f64(std::f64::consts::LN_2))?,
        "expm1" => y.try_add_scalar(F::ONE)?,
        "log" => return g.try_div(x),
        "log2" => return over(x.try_mul_scalar(F::from_f64(std::f64::consts::LN_2))?),
        "log10" => return over(x.try_mul_scalar(F::from_f64(std::f64::consts::LN_10))?),
        "log1p" => return over(x.try_add_scalar(F::ONE)?),
        "sqrt" => return over(y.try_mul_scalar(F::from_f64(2.0))?),
        // 1 / (3 cbrt(x)²): inf at 0, as PyTorch's pow(x, 1/3) rule.
        "cbrt" => return over(y.try_mul(y)?.try_mul_scalar(F::from_f64(3.0))?),
        // 1 / (p (1 - p)), NaN outside [0, 1] where p (1 - p) < 0 (PyTorch's logit_backward).
        "logit" => {
            let h = x.try_mul(&x.try_rsub_scalar(F::ONE)?)?;
            let nan = Tensor::scalar_on(F::from_f64(f64::NAN), &g.device)?;
            return over(Tensor::try_where(&h.try_lt_scalar(F::ZERO)?, &nan, &h)?);
        }
        "reciprocal" => y.try_mul(y)?.try_neg()?,
        "sigmoid" => y.try_mul(&y.try_rsub_scalar(F::ONE)?)?,
        // d silu / dx = s (1 + x (1 - s)), s = sigmoid(x) (PyTorch's silu_backward).
        "silu" => {
            if !super::graph_mode()
                && let Some(d) = D::pointwise_backward(crate::backend::PointwiseGrad::Silu, g, x)?
            {
                return Ok(d);
            }
            let s = x.try_sigmoid()?;
            let inner = x
                .try_mul(&s.try_rsub_scalar(F::ONE)?)?
                .try_add_scalar(F::ONE)?;
            s.try_mul(&inner)?
        }
        // d gelu / dx = Φ(x) + x φ(x) = (1 + erf(t)) / 2 + x e^(-t²) / √(2π), t = x / √2.
        "gelu" => {
            if !super::graph_mode()
                && let Some(d) = D::pointwise_backward(crate::backend::PointwiseGrad::Gelu, g, x)?
            {
                return Ok(d);
            }
            let t = x.try_mul_scalar(F::from_f64(std::f64::consts::FRAC_1_SQRT_2))?;
            let cdf = t
                .try_erf()?
                .try_add_scalar(F::ONE)?
                .try_mul_scalar(F::from_f64(0.5))?;
            let pdf = t.try_mul(&t)?.try_neg()?.try_exp()?;
            let c = 0.5 * std::f64::consts::FRAC_2_SQRT_PI * std::f64::consts::FRAC_1_SQRT_2;
            x.try_mul(&pdf)?
                .try_mul_scalar(F::from_f64(c))?
                .try_add(&cdf)?
        }
        // d erf / dx = 2/√π e^(-x²).
        "erf" => x
            .try_mul(x)?
            .try_neg()?
            .try_exp()?
            .try_mul_scalar(F::from_f64(std::f64::consts::FRAC_2_SQRT_PI))?,
        // d erfc / dx = -2/√π e^(-x²); d erfinv / dx = √π/2 e^(erfinv(x)²).
        "erfc" => x
            .try_mul(x)?
            .try_neg()?
            .try_exp()?
            .try_mul_scalar(F::from_f64(-std::f64::consts::FRAC_2_SQRT_PI))?,
        "erfinv" => y
            .try_mul(y)?
            .try_exp()?
            .try_mul_scalar(F::from_f64(std::f64::consts::PI.sqrt() / 2.0))?,
        "lgamma" => x.try_digamma()?,
        "digamma" => trigamma(x)?,
        // i0' = i1; i1' = i0 - i1/x, 1/2 at 0 (PyTorch).
        "i0" => x.try_i1()?,
        "i1" => {
            let zero = x.try_eq(&Tensor::scalar_on(F::ZERO, &g.device)?)?;
            let one = Tensor::scalar_on(F::ONE, &g.device)?;
            let safe = Tensor::try_where(&zero, &one, x)?;
            let d = x.try_i0()?.try_sub(&y.try_div(&safe)?)?;
            Tensor::try_where(&zero, &Tensor::scalar_on(F::from_f64(0.5), &g.device)?, &d)?
        }
        // i0e' = i1e - sign(x)·i0e; i1e' = i0e - i1e·(sign(x) + 1/x), 1/2 at 0 (PyTorch).
        "i0e" => x.try_i1e()?.try_sub(&x.try_sign()?.try_mul(y)?)?,
        "i1e" => {
            let zero = x.try_eq(&Tensor::scalar_on(F::ZERO, &g.device)?)?;
            let one = Tensor::scalar_on(F::ONE, &g.device)?;
            let safe = Tensor::try_where(&zero, &one, x)?;
            let k = x.try_sign()?.try_add(&safe.try_reciprocal()?)?;
            let d = x.try_i0e()?.try_sub(&y.try_mul(&k)?)?;
            Tensor::try_where(&zero, &Tensor::scalar_on(F::from_f64(0.5), &g.device)?, &d)?
        }
        // erfcx' = 2x·erfcx(x) - 2/√π.
        "erfcx" => x
            .try_mul(y)?
            .try_mul_scalar(F::from_f64(2.0))?
            .try_sub_scalar(F::from_f64(std::f64::consts::FRAC_2_SQRT_PI))?,
        // log_ndtr' = φ(x)/Φ(x) = e^(-x²/2 - log_ndtr(x)) / √(2π).
        "log_ndtr" => x
            .try_mul(x)?
            .try_mul_scalar(F::from_f64(-0.5))?
            .try_sub(y)?
            .try_exp()?
            .try_mul_scalar(F::from_f64(1.0 / (2.0 * std::f64::consts::PI).sqrt()))?,
        // ndtri' = √(2π)·e^(ndtri(p)²/2).
        "ndtri" => y
            .try_mul(y)?
            .try_mul_scalar(F::from_f64(0.5))?
            .try_exp()?
            .try_mul_scalar(F::from_f64((2.0 * std::f64::consts::PI).sqrt()))?,
        // J₀' = -J₁, Y₀' = -Y₁, K₀' = -K₁; J₁' = J₀ - J₁/x (1/2 at 0), Y₁' = Y₀ - Y₁/x,
        // K₁' = -K₀ - K₁/x; the scaled K's: (e^x K)' = e^x K + e^x K'; (sin x / x)' =
        // (cos x - j₀(x))/x, 0 at 0 (DLMF 10.6, 10.29).
        "bessel_j0" => x.try_bessel_j1()?.try_neg()?,
        "bessel_y0" => x.try_bessel_y1()?.try_neg()?,
        "modified_bessel_k0" => x.try_modified_bessel_k1()?.try_neg()?,
        "scaled_modified_bessel_k0" => y.try_sub(&x.try_scaled_modified_bessel_k1()?)?,
        "bessel_j1"
        | "bessel_y1"
        | "modified_bessel_k1"
        | "scaled_modified_bessel_k1"
        | "spherical_bessel_j0" => {
            let zero = x.try_eq(&Tensor::scalar_on(F::ZERO, &g.device)?)?;
            let one = Tensor::scalar_on(F::ONE, &g.device)?;
            let safe = Tensor::try_where(&zero, &one, x)?;
            let over_x = y.try_div(&safe)?;
            let (d, at_zero) = match name {
                "bessel_j1" => (x.try_bessel_j0()?.try_sub(&over_x)?, 0.5),
                "bessel_y1" => (x.try_bessel_y0()?.try_sub(&over_x)?, f64::INFINITY),
                "modified_bessel_k1" => (
                    x.try_modified_bessel_k0()?.try_add(&over_x)?.try_neg()?,
                    f64::NEG_INFINITY,
                ),
                "scaled_modified_bessel_k1" => (
                    y.try_sub(&x.try_scaled_modified_bessel_k0()?)?
                        .try_sub(&over_x)?,
                    f64::NEG_INFINITY,
                ),
                _ => (x.try_cos()?.try_sub(y)?.try_div(&safe)?, 0.0),
            };
            Tensor::try_where(
                &zero,
                &Tensor::scalar_on(F::from_f64(at_zero), &g.device)?,
                &d,
            )?
        }
        "square" => x.try_mul_scalar(F::from_f64(2.0))?,
        // PyTorch: abs'(0) = 0 and abs'(NaN) = 0 through `sgn`.
        "abs" => {
            let nan = x.try_ne(x)?;
            let zero = Tensor::scalar_on(F::ZERO, &g.device)?;
            Tensor::try_where(&nan, &zero, &x.try_sign()?)?
        }
        // 0 where x <= 0, else g (NaN included), in one pass: PyTorch's threshold_backward,
        // which masks a NaN or infinite g rather than multiplying it by 0.
        "relu" if super::graph_mode() => {
            let zero = Tensor::scalar_on(F::ZERO, &g.device)?;
            return Tensor::try_where(&x.try_gt(&zero)?, g, &zero);
        }
        "relu" => return D::binary::<F, crate::ops::binary::ops::ReluBackward>(g, x),
        // Piecewise constant: the gradient is 0 almost everywhere (PyTorch).
        "sign" | "floor" | "ceil" | "round" | "trunc" => {
            return Tensor::zeros_on(g.dims(), &g.device);
        }
        other => return Err(super::no_gradient(other)),
    };
    g.try_mul(&d)
}

/// The trigamma function `ψ'(x)` (digamma's derivative, PyTorch's `polygamma(1, x)`) from
/// tensor ops: the reflection `π²/sin²(πx) - ψ'(1 - x)` below 0.5, the recurrence
/// `ψ'(x) = ψ'(x + 1) + 1/x²` up to 10, then the asymptotic series
/// `1/x + 1/(2x²) + Σ B_2k / x^(2k+1)`.
fn trigamma<F: FloatElement, D: Backend>(x: &Tensor<F, D>) -> Result<Tensor<F, D>> {
    let c = |v: f64| Tensor::<F, D>::scalar_on(F::from_f64(v), &x.device);
    let reflect = x.try_lt(&c(0.5)?)?;
    let z0 = Tensor::try_where(&reflect, &x.try_rsub_scalar(F::ONE)?, x)?;
    let mut z = z0.clone();
    let mut acc = Tensor::<F, D>::zeros_on(x.dims(), &x.device)?;
    for _ in 0..10 {
        let small = z.try_lt(&c(10.0)?)?;
        let step = z.try_mul(&z)?.try_reciprocal()?;
        acc = Tensor::try_where(&small, &acc.try_add(&step)?, &acc)?;
        z = Tensor::try_where(&small, &z.try_add_scalar(F::ONE)?, &z)?;
    }
    let w = z.try_mul(&z)?.try_reciprocal()?;
    // B_2 .. B_10: 1/6, -1/30, 1/42, -1/30, 5/66.
    let mut s = w.try_mul_scalar(F::from_f64(5.0 / 66.0))?;
    for b in [-1.0 / 30.0, 1.0 / 42.0, -1.0 / 30.0, 1.0 / 6.0] {
        s = s.try_add_scalar(F::from_f64(b))?.try_mul(&w)?;
    }
    let series = z
        .try_reciprocal()?
        .try_mul(&s.try_add_scalar(F::ONE)?)?
        .try_add(&w.try_mul_scalar(F::from_f64(0.5))?)?;
    let direct = acc.try_add(&series)?;
    let pi = std::f64::consts::PI;
    let sin = x.try_mul_scalar(F::from_f64(pi))?.try_sin()?;
    let reflected = c(pi * pi)?.try_div(&sin.try_mul(&sin)?)?.try_sub(&direct)?;
    Tensor::try_where(&reflect, &reflected, &direct)
}
