//! The rules of the binary element-wise ops and their scalar forms (PyTorch's
//! `derivatives.yaml` formulas): each operand's gradient is summed back to its own shape.

use super::{Grads, Three, no_gradient, sum_to};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::tensor::Tensor;

/// `pow(a, b)`'s rule, from the operands and the result `y`.
pub(super) fn pow_backward<F: FloatElement, D: Backend>(
    g: &Tensor<F, D>,
    (a, b, y): Three<'_, F, D>,
    needs: &[bool],
) -> Result<Grads<F, D>> {
    let c = |v: f64| Tensor::<F, D>::scalar_on(F::from_f64(v), &g.device);
    // PyTorch's `pow_backward_self`/`_exponent`: d(a^b)/da = b a^(b-1), 0 where b = 0;
    // d(a^b)/db = a^b ln a, 0 where a = 0 and b >= 0.
    let zero = c(0.0)?;
    let ga = needs[0]
        .then(|| {
            let d = a.try_pow(&b.try_sub_scalar(F::ONE)?)?.try_mul(b)?;
            let gd = Tensor::try_where(&b.try_eq(&zero)?, &zero, &g.try_mul(&d)?)?;
            sum_to(&gd, a.shape())
        })
        .transpose()?;
    let gb = needs[1]
        .then(|| {
            let d = g.try_mul(&y.try_mul(&a.try_log()?)?)?;
            let flat = a.try_eq(&zero)?.try_logical_and(&b.try_ge(&zero)?)?;
            sum_to(&Tensor::try_where(&flat, &zero, &d)?, b.shape())
        })
        .transpose()?;
    Ok(vec![ga, gb])
}

/// The rule of the binary op `name` (all but `pow`), from its operands.
pub(super) fn binary_backward<F: FloatElement, D: Backend>(
    name: &str,
    g: &Tensor<F, D>,
    (a, b): (&Tensor<F, D>, &Tensor<F, D>),
    needs: &[bool],
) -> Result<Grads<F, D>> {
    let c = |v: f64| Tensor::<F, D>::scalar_on(F::from_f64(v), &g.device);
    // The arithmetic ops compute only the gradients asked for: one operand is often a
    // constant (`x * mask`, `x / n`, `x - target`).
    let only = |i: usize, f: &dyn Fn() -> Result<Tensor<F, D>>| needs[i].then(f).transpose();
    let arithmetic = match name {
        "add" => Some((only(0, &|| Ok(g.clone()))?, only(1, &|| Ok(g.clone()))?)),
        "sub" => Some((only(0, &|| Ok(g.clone()))?, only(1, &|| g.try_neg())?)),
        "mul" => Some((only(0, &|| g.try_mul(b))?, only(1, &|| g.try_mul(a))?)),
        // d(a/b)/db = -a/b² = -(a/b)/b
        "div" => Some((
            only(0, &|| g.try_div(b))?,
            only(1, &|| g.try_mul(&a.try_div(b)?.try_div(b)?)?.try_neg())?,
        )),
        _ => None,
    };
    if let Some((ga, gb)) = arithmetic {
        return Ok(vec![
            ga.map(|ga| sum_to(&ga, a.shape())).transpose()?,
            gb.map(|gb| sum_to(&gb, b.shape())).transpose()?,
        ]);
    }
    let (ga, gb) = match name {
        "maximum" | "minimum" => {
            // PyTorch's rule: an operand gets `g` unless the other one was selected
            // over it, and half of it on ties; so where either is NaN (the result is
            // NaN), both get `g`.
            let (lose_a, lose_b) = if name == "maximum" {
                (a.try_lt(b)?, a.try_gt(b)?)
            } else {
                (a.try_gt(b)?, a.try_lt(b)?)
            };
            let half = g.try_mul_scalar(F::from_f64(0.5))?;
            let kept = Tensor::try_where(&a.try_eq(b)?, &half, g)?;
            let zero = c(0.0)?;
            (
                Tensor::try_where(&lose_a, &zero, &kept)?,
                Tensor::try_where(&lose_b, &zero, &kept)?,
            )
        }
        // PyTorch's formulas: atan2 d/da = b/(a²+b²), d/db = -a/(a²+b²); hypot
        // d/da = a/h, d/db = b/h; copysign d/da = copysign(a, b)/a (0 where a = 0),
        // nothing to b; fmod d/da = 1, d/db = -trunc(a/b).
        "atan2" => {
            // 0 at the origin, where a² + b² = 0 (PyTorch).
            let r = a.try_mul(a)?.try_add(&b.try_mul(b)?)?;
            let zero = c(0.0)?;
            let gr = Tensor::try_where(&r.try_eq(&zero)?, &zero, &g.try_div(&r)?)?;
            (gr.try_mul(b)?, gr.try_mul(a)?.try_neg()?)
        }
        "hypot" => {
            let gh = g.try_div(&a.try_hypot(b)?)?;
            (gh.try_mul(a)?, gh.try_mul(b)?)
        }
        "copysign" => {
            let ratio = a.try_copysign(b)?.try_div(a)?;
            let zero = c(0.0)?;
            let ratio = Tensor::try_where(&a.try_eq(&zero)?, &zero, &ratio)?;
            (g.try_mul(&ratio)?, g.try_mul(&zero)?)
        }
        "fmod" => (
            g.clone(),
            g.try_mul(&a.try_div(b)?.try_trunc()?)?.try_neg()?,
        ),
        // PyTorch's formulas: xlogy d/da = log(b), 0 where a = 0 and b <= 0, d/db = a/b;
        // xlog1py d/da = log1p(b), 0 where a = 0 and b <= -1, d/db = a/(1 + b).
        "xlogy" | "xlog1py" => {
            let (zero, floor) = (c(0.0)?, c(if name == "xlogy" { 0.0 } else { -1.0 })?);
            let (log, den) = if name == "xlogy" {
                (b.try_log()?, b.clone())
            } else {
                (b.try_log1p()?, b.try_add_scalar(F::ONE)?)
            };
            let flat = a.try_eq(&zero)?.try_logical_and(&b.try_le(&floor)?)?;
            let d = Tensor::try_where(&flat, &zero, &log)?;
            (g.try_mul(&d)?, g.try_mul(a)?.try_div(&den)?)
        }
        // PyTorch's binary_cross_entropy rules for p = a, y = b: (p - y) / max(p (1 - p), ε)
        // with its f32 ε = 1e-12, and -logit(p).
        "binary_cross_entropy" => {
            let eps = F::from_f64(f64::from(1e-12f32));
            let den = a
                .try_mul(&a.try_rsub_scalar(F::ONE)?)?
                .try_maximum_scalar(eps)?;
            let ga = g.try_mul(&a.try_sub(b)?)?.try_div(&den)?;
            let logit = a.try_div(&a.try_rsub_scalar(F::ONE)?)?.try_log()?;
            (ga, g.try_mul(&logit)?.try_neg()?)
        }
        // remainder(a, b) = a - b·floor(a / b): 1 and -floor(a / b) (PyTorch).
        "remainder" => (g.clone(), g.try_mul(&a.try_floor_divide(b)?)?.try_neg()?),
        // ∂ζ(x, q)/∂q = -x·ζ(x + 1, q); none in x (PyTorch has none either).
        "zeta" => {
            if needs[0] {
                return Err(no_gradient("zeta (with respect to its first argument, x)"));
            }
            let d = a.try_add_scalar(F::ONE)?.try_zeta(b)?.try_mul(a)?;
            (g.clone(), g.try_mul(&d)?.try_neg()?)
        }
        // ∂P(a, x)/∂x = -∂Q(a, x)/∂x = x^(a-1)·e^-x / Γ(a), PyTorch's formula; none in
        // a (PyTorch has none either).
        "gammainc" | "gammaincc" => {
            if needs[0] {
                return Err(no_gradient(if name == "gammainc" {
                    "gammainc (with respect to its first argument, a)"
                } else {
                    "gammaincc (with respect to its first argument, a)"
                }));
            }
            let log_density = a
                .try_sub_scalar(F::ONE)?
                .try_mul(&b.try_log()?)?
                .try_sub(b)?
                .try_sub(&a.try_lgamma()?)?;
            let d = g.try_mul(&log_density.try_exp()?)?;
            (g.clone(), if name == "gammainc" { d } else { d.try_neg()? })
        }
        other => return Err(no_gradient(other)),
    };
    Ok(vec![
        needs[0].then(|| sum_to(&ga, a.shape())).transpose()?,
        needs[1].then(|| sum_to(&gb, b.shape())).transpose()?,
    ])
}

/// The rule of the scalar op `name` with scalar `v` (`left`: `v` is the left operand), from
/// the tensor operand `x`.
pub(super) fn scalar_backward<F: FloatElement, D: Backend>(
    (name, v, left): (&str, f64, bool),
    g: &Tensor<F, D>,
    x: &Tensor<F, D>,
) -> Result<Tensor<F, D>> {
    let c = |v: f64| Tensor::<F, D>::scalar_on(F::from_f64(v), &g.device);
    Ok(match (name, left) {
        ("add", _) | ("sub", false) => g.clone(),
        ("sub", true) => g.try_neg()?,
        ("mul", _) => g.try_mul_scalar(F::from_f64(v))?,
        ("div", false) => g.try_div_scalar(F::from_f64(v))?,
        // Clamp semantics (PyTorch `clamp_min`/`clamp_max` since 2.13, the minimum-norm
        // subgradient): the gradient passes where x is strictly inside, so `clip` and
        // `relu` give 0 on their bounds, and a NaN x gets 0.
        ("maximum" | "minimum", _) => {
            let v = c(v)?;
            let keep = if name == "maximum" {
                x.try_gt(&v)?
            } else {
                x.try_lt(&v)?
            };
            Tensor::try_where(&keep, g, &c(0.0)?)?
        }
        // d(x^s)/dx = s x^(s-1); 0 for s = 0 (PyTorch); `(g x) · 2` for the square (the
        // doubling is exact), `g` for s = 1.
        ("pow", false) if v == 0.0 => g.try_mul_scalar(F::ZERO)?,
        ("pow", false) if v == 1.0 => g.clone(),
        ("pow", false) if v == 2.0 => g.try_mul(x)?.try_mul_scalar(F::from_f64(2.0))?,
        ("pow", false) => {
            let d = x.try_pow(&c(v - 1.0)?)?.try_mul_scalar(F::from_f64(v))?;
            g.try_mul(&d)?
        }
        // d(s/x)/dx = -s/x², as (-s/x)/x: no overflow of 1/x² where the gradient is finite.
        ("div", true) => g.try_mul(&x.try_rdiv_scalar(F::from_f64(-v))?.try_div(x)?)?,
        // fmod(x, s): 1; fmod(s, x): -trunc(s/x) (PyTorch).
        ("fmod", false) | ("remainder", false) => g.clone(),
        ("fmod", true) => g
            .try_mul(&x.try_rdiv_scalar(F::from_f64(v))?.try_trunc()?)?
            .try_neg()?,
        (other, _) => return Err(no_gradient(other)),
    })
}
