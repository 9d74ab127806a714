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
    // 1 / sqrt(±(1 - x²)) and friends.
    let inv_sqrt = |t: Tensor<F, D>| t.try_sqrt()?.try_reciprocal();
    let d = match name {
        "neg" => return g.try_neg(),
        "sin" => x.try_cos()?,
        "cos" => x.try_sin()?.try_neg()?,
        "tan" => y.try_mul(y)?.try_add_scalar(F::ONE)?,
        "asin" => inv_sqrt(x.try_mul(x)?.try_rsub_scalar(F::ONE)?)?,
        "acos" => inv_sqrt(x.try_mul(x)?.try_rsub_scalar(F::ONE)?)?.try_neg()?,
        "atan" => x.try_mul(x)?.try_add_scalar(F::ONE)?.try_reciprocal()?,
        "sinh" => x.try_cosh()?,
        "cosh" => x.try_sinh()?,
        "tanh" => y.try_mul(y)?.try_rsub_scalar(F::ONE)?,
        "asinh" => inv_sqrt(x.try_mul(x)?.try_add_scalar(F::ONE)?)?,
        "acosh" => inv_sqrt(x.try_mul(x)?.try_sub_scalar(F::ONE)?)?,
        "atanh" => x.try_mul(x)?.try_rsub_scalar(F::ONE)?.try_reciprocal()?,
        "exp" => y.clone(),
        "exp2" => y.try_mul_scalar(F::from_f64(std::f64::consts::LN_2))?,
        "expm1" => y.try_add_scalar(F::ONE)?,
        "log" => x.try_reciprocal()?,
        "log2" => x
            .try_mul_scalar(F::from_f64(std::f64::consts::LN_2))?
            .try_reciprocal()?,
        "log10" => x
            .try_mul_scalar(F::from_f64(std::f64::consts::LN_10))?
            .try_reciprocal()?,
        "log1p" => x.try_add_scalar(F::ONE)?.try_reciprocal()?,
        "sqrt" => y.try_mul_scalar(F::from_f64(2.0))?.try_reciprocal()?,
        "reciprocal" => y.try_mul(y)?.try_neg()?,
        "sigmoid" => y.try_mul(&y.try_rsub_scalar(F::ONE)?)?,
        // d erf / dx = 2/√π e^(-x²).
        "erf" => x
            .try_mul(x)?
            .try_neg()?
            .try_exp()?
            .try_mul_scalar(F::from_f64(std::f64::consts::FRAC_2_SQRT_PI))?,
        "square" => x.try_mul_scalar(F::from_f64(2.0))?,
        // PyTorch: abs'(0) = 0 through sign; relu'(0) = 0.
        "abs" => x.try_sign()?,
        "relu" => x
            .try_gt(&Tensor::scalar_on(F::ZERO, &g.device)?)?
            .try_cast::<F>()?,
        // Piecewise constant: the gradient is 0 almost everywhere (PyTorch).
        "sign" | "floor" | "ceil" | "round" | "trunc" => {
            return Tensor::zeros_on(g.dims(), &g.device);
        }
        other => return Err(super::no_gradient(other)),
    };
    g.try_mul(&d)
}
