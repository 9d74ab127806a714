//! The backward rules: for each recorded op, the gradients of its inputs from the gradient `g`
//! of its output (PyTorch's `derivatives.yaml` formulas). Written once over `F: FloatElement`
//! and `D: Backend`, so they run on every device.

mod pointwise;
mod reduce;
mod spectral;
mod views;

use super::{Grad, Saved, saved, take};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;
use half::{bf16, f16};
use pointwise::unary;
use reduce::{axes_of, cumprod_backward, keep_shape, norm_backward, prod_backward};
use std::sync::Arc;
use views::view_backward;

/// What a node computed, with the arguments its rule needs besides the saved tensors.
#[derive(Clone, Debug)]
pub(crate) enum Op {
    /// A tensor made by the user with `requires_grad`.
    Leaf,
    /// A binary element-wise op by name (`"add"`); saved: both operands.
    Binary(&'static str),
    /// A scalar op by name; `left` when the scalar is the left operand (`s - x`). Saved: `x`.
    Scalar {
        name: &'static str,
        s: f64,
        left: bool,
    },
    /// A unary element-wise op by name (`"sin"`); saved: the input and the output.
    Unary(&'static str),
    /// `sum` or `mean` over the axes in `mask`; saved: the input.
    Sum { mask: Vec<bool>, mean: bool },
    /// `nansum` or `nanmean` over the axes in `mask`; saved: the input. The NaNs get 0 and
    /// the others `g` (divided by the slice's count of non-NaN values for the mean), as
    /// PyTorch's `nansum`/`nanmean`.
    NanSum { mask: Vec<bool>, mean: bool },
    /// The `p`-norm over the axes in `mask`, for `p` other than 0, 1 and infinity (those are
    /// composed of ops with rules); saved: the input and the output.
    Norm { p: f64, mask: Vec<bool> },
    /// `matmul`; saved: both operands.
    Matmul,
    /// A view; saved: the tensor viewed and the view (their layouts locate the view).
    View(&'static str),
    /// A view of a broadcast view that a recorded op made (a view of `expand`'s result, say);
    /// saved as [`Op::View`]. Aliased elements share one storage element, so the rule gives
    /// the gradient of each storage element to the first of its aliases: the view op that made
    /// the broadcast view sums over its aliases, so the gradient reaching its input is exact.
    BroadcastView(&'static str),
    /// A copy (`contiguous`, `deep_copy`, `reshape` through a copy); saved: the input. The
    /// gradient passes back reshaped to the input's shape.
    Copy(&'static str),
    /// `where_(cond, a, b)`; saved: `cond`, `a`, `b`.
    Where,
    /// `concat` along the axis; saved: the inputs (their sizes split the gradient).
    Concat(usize),
    /// `index_select` along the axis; saved: the input and the indices.
    IndexSelect(usize),
    /// `gather` along the axis; saved: the input and the index.
    Gather(usize),
    /// `scatter_add` along the axis; inputs: `self` and `src`; saved: the index.
    ScatterAdd(usize),
    /// `pad` with these leading pad sizes per axis; saved: the input.
    Pad(Vec<usize>),
    /// A matrix built with the input on its `k`-th diagonal (`diag` of a vector, `diag_embed`).
    Diag(i64),
    /// `inverse`; saved: the output.
    Inverse,
    /// `log|det|` of `slogdet`; saved: the input.
    LogAbsDet,
    /// `det`; saved: the input and the output.
    Det,
    /// `cholesky` (the lower factor); saved: the output.
    Cholesky,
    /// `pinv`; saved: the input and the output.
    Pinv,
    /// Output `0` (`U`), `1` (`S`) or `2` (`Vh`) of `svd`; saved: `U`, `S`, `Vh`.
    Svd(u8),
    /// Output `0` (eigenvalues) or `1` (eigenvectors) of `eigh`; saved: both.
    Eigh(u8),
    /// Output `0` (`Q`) or `1` (`R`) of `qr`; saved: `Q`, `R`.
    Qr(u8),
    /// Output `0` (`L`) or `1` (`U`) of `lu`; saved: `P`, `L`, `U`.
    Lu(u8),
    /// `solve(a, b)`; saved: `a`, `b` and the solution.
    Solve,
    /// `product` over the axes in `mask`; saved: the input.
    Prod { mask: Vec<bool> },
    /// `cumprod` along the axis; saved: the input and the output.
    Cumprod(usize),
    /// The windows of a padded `(N, C, H, W)` input (im2col) with geometry
    /// `(kh, kw, sh, sw, dh, dw)`; saved: the input.
    Unfold(crate::nn::Window),
    /// `cross_entropy` without label smoothing; saved: the logits, their `logsumexp` over the
    /// class axis (keepdim) and the targets.
    CrossEntropy(crate::nn::Reduction),
    /// `cumsum` along the axis.
    Cumsum(usize),
    /// `max`/`min` over the axes in `mask`; saved: the input and the output. Ties share the
    /// gradient evenly (PyTorch's `amax`), and so do the NaNs of a slice whose result is NaN.
    Extreme { mask: Vec<bool>, keepdim: bool },
    /// `logsumexp` over the axes in `mask`; saved: the input and the output. The gradient is
    /// the softmax, `exp(x - out)`.
    LogSumExp { mask: Vec<bool> },
    /// `var`/`std` with `correction`; saved: the input and the output.
    Var {
        mask: Vec<bool>,
        correction: usize,
        std: bool,
    },
    /// A cast from the float dtype given; the gradient is cast back to it.
    Cast(crate::dtype::Dtype),
    /// A copy from the device given (`to_device`); the gradient is copied back to it.
    ToDevice(crate::device::DeviceIndex),
    /// An op recorded without a rule yet: `backward` through it is an `Err` naming it.
    NoGrad(&'static str),
}

impl Op {
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Op::Leaf => "leaf",
            Op::Binary(n) | Op::Unary(n) | Op::View(n) | Op::Copy(n) => n,
            Op::BroadcastView(n) => n,
            Op::Scalar { name, .. } => name,
            Op::Sum { mean: false, .. } => "sum",
            Op::Sum { mean: true, .. } => "mean",
            Op::NanSum { mean: false, .. } => "nansum",
            Op::NanSum { mean: true, .. } => "nanmean",
            Op::Norm { .. } => "norm",
            Op::Matmul => "matmul",
            Op::Cast(_) => "cast",
            Op::ToDevice(_) => "to_device",
            Op::Where => "where_",
            Op::Concat(_) => "concat",
            Op::IndexSelect(_) => "index_select",
            Op::Gather(_) => "gather",
            Op::ScatterAdd(_) => "scatter_add",
            Op::Cumsum(_) => "cumsum",
            Op::CrossEntropy(_) => "cross_entropy",
            Op::Unfold(_) => "conv2d windows",
            Op::Prod { .. } => "product",
            Op::Cumprod(_) => "cumprod",
            Op::Pad(_) => "pad",
            Op::Diag(_) => "diag",
            Op::Inverse => "inverse",
            Op::LogAbsDet => "slogdet",
            Op::Det => "det",
            Op::Cholesky => "cholesky",
            Op::Pinv => "pinv",
            Op::Svd(_) => "svd",
            Op::Eigh(_) => "eigh",
            Op::Qr(_) => "qr",
            Op::Lu(_) => "lu",
            Op::Solve => "solve",
            Op::Extreme { .. } => "max/min",
            Op::LogSumExp { .. } => "logsumexp",
            Op::Var { std: false, .. } => "var",
            Op::Var { std: true, .. } => "std",
            Op::NoGrad(n) => n,
        }
    }
}

/// Runs `op`'s rule for the float type the gradient holds.
pub(super) fn apply<D: Backend>(
    op: &Op,
    g: Grad,
    saved: &[Saved],
    needs: &[bool],
) -> Result<Vec<Option<Grad>>> {
    if let Op::Cast(to) = op {
        return Ok(vec![Some(cast_back::<D>(g, *to)?)]);
    }
    if let Op::ToDevice(from) = op {
        return Ok(vec![Some(to_device_back::<D>(g, *from)?)]);
    }
    if g.is::<Tensor<f32, D>>() {
        go::<f32, D>(op, g, saved, needs)
    } else if g.is::<Tensor<f64, D>>() {
        go::<f64, D>(op, g, saved, needs)
    } else if g.is::<Tensor<f16, D>>() {
        half_precision::<f16, D>(op, g, saved, needs)
    } else {
        half_precision::<bf16, D>(op, g, saved, needs)
    }
}

/// `op`'s rule in the gradient's own float type.
fn go<F: FloatElement, D: Backend>(
    op: &Op,
    g: Grad,
    s: &[Saved],
    needs: &[bool],
) -> Result<Vec<Option<Grad>>> {
    let g = take::<F, D>(g)?;
    let grads = rule::<F, D>(op, &g, s, needs)?;
    Ok(grads
        .into_iter()
        .map(|t| t.map(|t| Box::new(t) as Grad))
        .collect())
}

/// f16/bf16 rules. On the CPU every 16-bit op computes in f32 and rounds its result, so the
/// rule runs in f32 on upcast copies and rounds once, at the end: one rounding instead of one
/// per op of the rule, and the CPU rules are compiled for f32 and f64 only. Views keep their
/// 16-bit rule, which reads the saved layouts, not values (an upcast copy is contiguous).
/// CUDA runs the 16-bit rule, whose kernels read and write half the bytes.
fn half_precision<F: FloatElement, D: Backend>(
    op: &Op,
    g: Grad,
    s: &[Saved],
    needs: &[bool],
) -> Result<Vec<Option<Grad>>> {
    use crate::device::DeviceKind;
    if const { !matches!(D::KIND, DeviceKind::Cpu) } {
        return go::<F, D>(op, g, s, needs);
    }
    let g = take::<F, D>(g)?;
    if let Op::View(name) | Op::BroadcastView(name) = op {
        let (base, view) = (saved::<F, D>(&s[0])?, saved::<F, D>(&s[1])?);
        let gx = view_backward(name, &g, base, view, matches!(op, Op::BroadcastView(_)))?;
        return Ok(vec![Some(Box::new(gx))]);
    }
    let up = s
        .iter()
        .map(|x| match x.downcast_ref::<Tensor<F, D>>() {
            Some(t) => Ok(Arc::new(t.try_cast::<f32>()?) as Saved),
            None => Ok(x.clone()),
        })
        .collect::<Result<Vec<Saved>>>()?;
    rule::<f32, D>(op, &g.try_cast::<f32>()?, &up, needs)?
        .into_iter()
        .map(|t| {
            t.map(|t| Ok(Box::new(t.try_cast::<F>()?) as Grad))
                .transpose()
        })
        .collect()
}

/// `$go::<F, $d>(gradient, $arg)` for the float type `F` that the gradient `$g` holds.
macro_rules! by_float {
    ($g:ident, $d:ty, $go:ident, $arg:expr) => {
        if $g.is::<Tensor<f32, $d>>() {
            $go::<f32, $d>(take($g)?, $arg)
        } else if $g.is::<Tensor<f64, $d>>() {
            $go::<f64, $d>(take($g)?, $arg)
        } else if $g.is::<Tensor<f16, $d>>() {
            $go::<f16, $d>(take($g)?, $arg)
        } else {
            $go::<bf16, $d>(take($g)?, $arg)
        }
    };
}

/// The gradient of a cast, cast back to the input's float dtype `to`.
fn cast_back<D: Backend>(g: Grad, to: crate::dtype::Dtype) -> Result<Grad> {
    fn go<F: FloatElement, D: Backend>(g: Tensor<F, D>, to: crate::dtype::Dtype) -> Result<Grad> {
        use crate::dtype::Dtype::*;
        Ok(match to {
            Float32 => Box::new(g.try_cast::<f32>()?),
            Float64 => Box::new(g.try_cast::<f64>()?),
            Float16 => Box::new(g.try_cast::<f16>()?),
            Bfloat16 => Box::new(g.try_cast::<bf16>()?),
            other => return Err(no_gradient(&other.to_string())),
        })
    }
    by_float!(g, D, go, to)
}

/// The gradient of a transfer, copied back to the input's device `from` (PyTorch's `to`
/// backward).
fn to_device_back<D: Backend>(g: Grad, from: crate::device::DeviceIndex) -> Result<Grad> {
    fn go<F: FloatElement, D: Backend>(
        g: Tensor<F, D>,
        from: crate::device::DeviceIndex,
    ) -> Result<Grad> {
        use crate::device::{Cpu, Cuda, DeviceKind};
        Ok(match from.kind {
            DeviceKind::Cpu => Box::new(g.to_device(&Cpu)?),
            DeviceKind::Cuda => Box::new(g.to_device(&Cuda::new(from.index)?)?),
        })
    }
    by_float!(g, D, go, from)
}

fn no_gradient(op: &str) -> Error {
    Error::InvalidArgument {
        op: "backward",
        msg: format!(
            "`{op}` has no gradient (it is piecewise constant or not differentiable); detach its input or compute it under no_grad"
        ),
    }
}

/// `g` summed over the dimensions that broadcasting stretched, so it has `shape` (NumPy's
/// broadcasting rules run backwards).
pub(crate) fn sum_to<F: FloatElement, D: Backend>(
    g: &Tensor<F, D>,
    shape: &Shape,
) -> Result<Tensor<F, D>> {
    if g.shape() == shape {
        return Ok(g.clone());
    }
    let lead = g.ndim() - shape.ndim();
    let axes: Vec<i64> = (0..g.ndim())
        .filter(|&i| i < lead || (shape.dims()[i - lead] == 1 && g.dims()[i] != 1))
        .map(|i| i as i64)
        .collect();
    g.try_sum(&axes, true)?.try_reshape(shape.dims())
}

fn rule<F: FloatElement, D: Backend>(
    op: &Op,
    g: &Tensor<F, D>,
    s: &[Saved],
    needs: &[bool],
) -> Result<Vec<Option<Tensor<F, D>>>> {
    let arg = |i: usize| saved::<F, D>(&s[i]);
    let c = |v: f64| Tensor::<F, D>::scalar_on(F::from_f64(v), &g.device);
    Ok(match op {
        Op::Leaf => Vec::new(),
        Op::Binary("pow") => {
            // PyTorch's `pow_backward_self`/`_exponent`: d(a^b)/da = b a^(b-1), 0 where b = 0;
            // d(a^b)/db = a^b ln a, 0 where a = 0 and b >= 0.
            let (a, b, y) = (arg(0)?, arg(1)?, arg(2)?);
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
            vec![ga, gb]
        }
        Op::Binary(name) => {
            let (a, b) = (arg(0)?, arg(1)?);
            let (ga, gb) = match *name {
                "add" => (g.clone(), g.clone()),
                "sub" => (g.clone(), g.try_neg()?),
                "mul" => (g.try_mul(b)?, g.try_mul(a)?),
                // d(a/b)/db = -a/b² = -(a/b)/b
                "div" => (
                    g.try_div(b)?,
                    g.try_mul(&a.try_div(b)?.try_div(b)?)?.try_neg()?,
                ),
                "maximum" | "minimum" => {
                    // PyTorch's rule: an operand gets `g` unless the other one was selected
                    // over it, and half of it on ties; so where either is NaN (the result is
                    // NaN), both get `g`.
                    let (lose_a, lose_b) = if *name == "maximum" {
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
                    let r = a.try_mul(a)?.try_add(&b.try_mul(b)?)?;
                    let gr = g.try_div(&r)?;
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
                        return Err(no_gradient(if *name == "gammainc" {
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
                    (
                        g.clone(),
                        if *name == "gammainc" { d } else { d.try_neg()? },
                    )
                }
                other => return Err(no_gradient(other)),
            };
            vec![
                needs[0].then(|| sum_to(&ga, a.shape())).transpose()?,
                needs[1].then(|| sum_to(&gb, b.shape())).transpose()?,
            ]
        }
        Op::Scalar { name, s: v, left } => {
            let x = arg(0)?;
            let gx = match (*name, *left) {
                ("add", _) | ("sub", false) => g.clone(),
                ("sub", true) => g.try_neg()?,
                ("mul", _) => g.try_mul_scalar(F::from_f64(*v))?,
                ("div", false) => g.try_div_scalar(F::from_f64(*v))?,
                // Clamp semantics (PyTorch `clamp_min`/`clamp_max` since 2.13, the minimum-norm
                // subgradient): the gradient passes where x is strictly inside, so `clip` and
                // `relu` give 0 on their bounds, and a NaN x gets 0.
                ("maximum" | "minimum", _) => {
                    let v = c(*v)?;
                    let keep = if *name == "maximum" {
                        x.try_gt(&v)?
                    } else {
                        x.try_lt(&v)?
                    };
                    Tensor::try_where(&keep, g, &c(0.0)?)?
                }
                // d(x^s)/dx = s x^(s-1); 0 for s = 0 (PyTorch).
                ("pow", false) if *v == 0.0 => g.try_mul_scalar(F::ZERO)?,
                ("pow", false) => {
                    let d = x.try_pow(&c(*v - 1.0)?)?.try_mul_scalar(F::from_f64(*v))?;
                    g.try_mul(&d)?
                }
                // d(s/x)/dx = -s/x²
                ("div", true) => g
                    .try_mul(&x.try_mul(x)?.try_reciprocal()?)?
                    .try_mul_scalar(F::from_f64(-*v))?,
                // fmod(x, s): 1; fmod(s, x): -trunc(s/x) (PyTorch).
                ("fmod", false) | ("remainder", false) => g.clone(),
                ("fmod", true) => g
                    .try_mul(&x.try_rdiv_scalar(F::from_f64(*v))?.try_trunc()?)?
                    .try_neg()?,
                (other, _) => return Err(no_gradient(other)),
            };
            vec![Some(gx)]
        }
        Op::Unary(name) => vec![Some(unary::<F, D>(name, g, arg(0)?, arg(1)?)?)],
        Op::Sum { mask, mean } => {
            let x = arg(0)?;
            // Put the reduced axes back as size 1, then broadcast to the input's shape.
            let kept: Vec<usize> = (x.dims().iter().zip(mask))
                .map(|(&d, &m)| if m { 1 } else { d })
                .collect();
            let mut gx = g.try_reshape(kept)?.expand(x.shape().clone())?;
            if *mean {
                let n = crate::shape::numel_of(
                    (x.dims().iter().zip(mask))
                        .filter(|(_, m)| **m)
                        .map(|(&d, _)| d),
                );
                gx = gx.try_div_scalar(F::from_f64(n as f64))?;
            }
            vec![Some(gx.try_contiguous()?)]
        }
        Op::NanSum { mask, mean } => {
            let x = arg(0)?;
            let kept = x.try_is_nan()?.try_logical_not()?.try_cast::<F>()?;
            let mut g = g.try_reshape(keep_shape(x, mask))?;
            if *mean {
                g = g.try_div(&kept.try_sum(&axes_of(mask), true)?)?;
            }
            vec![Some(kept.try_mul(&g)?)]
        }
        Op::Norm { p, mask } => vec![Some(norm_backward(g, arg(0)?, arg(1)?, *p, mask)?)],
        Op::Matmul => {
            let (a, b) = (arg(0)?, arg(1)?);
            // 1-d operands as (1, k) and (k, 1), as matmul itself treats them.
            let a2 = if a.ndim() == 1 {
                a.unsqueeze(0)?
            } else {
                a.clone()
            };
            let b2 = if b.ndim() == 1 {
                b.unsqueeze(1)?
            } else {
                b.clone()
            };
            let out_dims = crate::ops::matmul::matmul_dims(a2.shape(), b2.shape())?.out;
            let g2 = g.try_reshape(out_dims)?;
            // A transposed 2-d operand (linear's `w.t()`) gets its gradient as the transpose of
            // a product computed the other way round: laid out as the operand itself, it passes
            // through the transpose's backward without a copy.
            let plain = a2.ndim() == 2 && b2.ndim() == 2;
            let flipped = |t: &Tensor<F, D>| plain && !t.is_contiguous() && t.t().is_contiguous();
            let ga = match needs[0] {
                true if flipped(&a2) => Some(b2.try_matmul(&g2.t())?.t().try_reshape(a.dims())?),
                true => {
                    let t = g2.try_matmul(&b2.transpose(-1, -2)?)?;
                    Some(sum_to(&t, a2.shape())?.try_reshape(a.dims())?)
                }
                false => None,
            };
            let gb = match needs[1] {
                true if flipped(&b2) => Some(g2.t().try_matmul(&a2)?.t().try_reshape(b.dims())?),
                true => {
                    let t = a2.transpose(-1, -2)?.try_matmul(&g2)?;
                    Some(sum_to(&t, b2.shape())?.try_reshape(b.dims())?)
                }
                false => None,
            };
            vec![ga, gb]
        }
        Op::View(name) | Op::BroadcastView(name) => {
            let aliased = matches!(op, Op::BroadcastView(_));
            vec![Some(view_backward(name, g, arg(0)?, arg(1)?, aliased)?)]
        }
        Op::Where => {
            let cond = saved::<bool, D>(&s[0])?;
            let (a, b, zero) = (arg(1)?, arg(2)?, c(0.0)?);
            vec![
                needs[0]
                    .then(|| sum_to(&Tensor::try_where(cond, g, &zero)?, a.shape()))
                    .transpose()?,
                needs[1]
                    .then(|| sum_to(&Tensor::try_where(cond, &zero, g)?, b.shape()))
                    .transpose()?,
            ]
        }
        Op::Concat(ax) => {
            let mut off = 0;
            let mut grads = Vec::with_capacity(s.len());
            for (i, need) in needs.iter().enumerate() {
                let n = arg(i)?.dims()[*ax];
                grads.push(need.then(|| g.narrow(*ax as i64, off, n)).transpose()?);
                off += n;
            }
            grads
        }
        Op::IndexSelect(ax) => {
            // Each selected slice adds back at its index (repeats accumulate).
            let (x, idx) = (arg(0)?, saved::<i64, D>(&s[1])?);
            let mut shape = vec![1; g.ndim()];
            shape[*ax] = idx.numel();
            let index = idx
                .try_reshape(shape)?
                .expand(g.shape().clone())?
                .try_contiguous()?;
            vec![Some(
                Tensor::zeros_on(x.dims(), &g.device)?.try_scatter_add(*ax as i64, &index, g)?,
            )]
        }
        Op::Gather(ax) => {
            let (x, idx) = (arg(0)?, saved::<i64, D>(&s[1])?);
            vec![Some(
                Tensor::zeros_on(x.dims(), &g.device)?.try_scatter_add(*ax as i64, idx, g)?,
            )]
        }
        Op::ScatterAdd(ax) => {
            let idx = saved::<i64, D>(&s[0])?;
            vec![
                needs[0].then(|| g.clone()),
                needs[1]
                    .then(|| g.try_gather(*ax as i64, idx))
                    .transpose()?,
            ]
        }
        Op::Pad(before) => {
            // The gradient of the input is the padded gradient's interior.
            let x = arg(0)?;
            let mut inner = g.clone();
            for (i, &b) in before.iter().enumerate() {
                inner = inner.narrow(i as i64, b, x.dims()[i])?;
            }
            vec![Some(inner.try_contiguous()?)]
        }
        Op::Diag(k) => vec![Some(g.diagonal(*k)?.try_contiguous()?)],
        Op::LogAbsDet => {
            // d log|det A| = tr(A⁻¹ dA), so dA = g · A⁻ᵀ (PyTorch's `slogdet_backward`; a
            // singular A makes backward the inverse's `Singular` error).
            let a = arg(0)?;
            let it = a.try_inverse()?.transpose(-1, -2)?;
            vec![Some(it.try_mul(&g.unsqueeze(-1)?.unsqueeze(-1)?)?)]
        }
        Op::Det => {
            // dA = g · adj(A)ᵀ, which is det · A⁻ᵀ for an invertible A and exists for every A.
            // Through the SVD A = U S Vᵀ: adj(A)ᵀ = det(U) det(V) · U · diag(∏_{j≠i} s_j) · Vᵀ.
            // A matrix holding NaN or ±inf (whose SVD does not converge) gets a NaN gradient,
            // as in PyTorch: it is decomposed as zeros and its gradient replaced at the end.
            let finite = arg(0)?.try_is_finite()?.try_all(&[-2, -1], true)?;
            let zero = Tensor::scalar_on(F::ZERO, &g.device)?;
            let a = &Tensor::try_where(&finite, arg(0)?, &zero)?;
            let (u, sv, vh) = a.try_svd()?;
            let n = sv.dims()[sv.ndim() - 1];
            let others = if n == 0 {
                sv.clone()
            } else {
                // The products of all but one singular value, as prefix × suffix products.
                let ones = |t: &Tensor<F, D>| -> Result<Tensor<F, D>> {
                    let mut pads = vec![(0, 0); t.ndim()];
                    pads[t.ndim() - 1] = (1, 0);
                    t.narrow(-1, 0, n - 1)?
                        .try_pad(&pads, F::ONE)?
                        .try_cumprod(-1)
                };
                let pre = ones(&sv)?;
                let suf = ones(&sv.flip(&[-1])?)?.flip(&[-1])?;
                pre.try_mul(&suf)?
            };
            let sign = u.try_slogdet()?.0.try_mul(&vh.try_slogdet()?.0)?;
            let adj_t = u.try_mul(&others.unsqueeze(-2)?)?.try_matmul(&vh)?;
            let scale = g.try_mul(&sign)?.unsqueeze(-1)?.unsqueeze(-1)?;
            let nan = Tensor::scalar_on(F::from_f64(f64::NAN), &g.device)?;
            vec![Some(Tensor::try_where(
                &finite,
                &adj_t.try_mul(&scale)?,
                &nan,
            )?)]
        }
        Op::Cholesky => {
            // PyTorch's `cholesky_backward`: gA = L⁻ᵀ Φ(Lᵀ gL) L⁻¹, symmetrised, with Φ the
            // lower triangle with its diagonal halved.
            let l = arg(0)?;
            let li = l.try_inverse()?;
            let x = l.transpose(-1, -2)?.try_matmul(g)?;
            let half = x
                .diagonal(0)?
                .try_mul_scalar(F::from_f64(0.5))?
                .try_diag_embed()?;
            let phi = x.try_tril(0)?.try_sub(&half)?;
            let ga = li.transpose(-1, -2)?.try_matmul(&phi)?.try_matmul(&li)?;
            let sym = ga.try_add(&ga.transpose(-1, -2)?)?;
            vec![Some(sym.try_mul_scalar(F::from_f64(0.5))?)]
        }
        Op::Inverse => {
            // d(A⁻¹) = -A⁻¹ dA A⁻¹, so dA = -A⁻ᵀ g A⁻ᵀ.
            let it = arg(0)?.transpose(-1, -2)?;
            vec![Some(it.try_matmul(g)?.try_matmul(&it)?.try_neg()?)]
        }
        Op::Svd(part) => vec![Some(spectral::svd_backward(
            *part,
            g,
            arg(0)?,
            arg(1)?,
            arg(2)?,
        )?)],
        Op::Eigh(part) => vec![Some(spectral::eigh_backward(*part, g, arg(0)?, arg(1)?)?)],
        Op::Qr(part) => vec![Some(spectral::qr_backward(*part, g, arg(0)?, arg(1)?)?)],
        Op::Lu(part) => vec![Some(spectral::lu_backward(
            *part,
            g,
            arg(0)?,
            arg(1)?,
            arg(2)?,
        )?)],
        Op::Pinv => {
            // PyTorch's `pinv_backward` (valid where the rank is locally constant), with
            // `P = pinv(A)` of `A` (m × n), `ᵀ` the transpose of the last two axes, and the
            // products grouped so the square factor is min(m, n) wide:
            // m ≤ n: K = gᵀP, dA = -(PK)ᵀ + KPᵀ - AP·KPᵀ + PᵀP·(gᵀ - KA);
            // m > n: K = Pgᵀ, dA = -(KP)ᵀ + (gᵀ - AK)·P·Pᵀ + PᵀK - PᵀK·P·A.
            let (a, p) = (arg(0)?, arg(1)?);
            let tr = |x: &Tensor<F, D>| x.transpose(-1, -2);
            let (m, n) = (a.dims()[a.ndim() - 2], a.dims()[a.ndim() - 1]);
            let (ph, gh) = (tr(p)?, tr(g)?);
            let ga = if m <= n {
                let k = gh.try_matmul(p)?;
                let kph = k.try_matmul(&ph)?;
                tr(&p.try_matmul(&k)?)?
                    .try_neg()?
                    .try_add(&kph)?
                    .try_sub(&a.try_matmul(p)?.try_matmul(&kph)?)?
                    .try_add(
                        &ph.try_matmul(p)?
                            .try_matmul(&gh.try_sub(&k.try_matmul(a)?)?)?,
                    )?
            } else {
                let k = p.try_matmul(&gh)?;
                let phk = ph.try_matmul(&k)?;
                tr(&k.try_matmul(p)?)?
                    .try_neg()?
                    .try_add(
                        &gh.try_sub(&a.try_matmul(&k)?)?
                            .try_matmul(p)?
                            .try_matmul(&ph)?,
                    )?
                    .try_add(&phk)?
                    .try_sub(&phk.try_matmul(p)?.try_matmul(a)?)?
            };
            vec![Some(ga)]
        }
        Op::Solve => {
            // x = A⁻¹ b: db = A⁻ᵀ g, dA = -db xᵀ. A vector b is one column of every matrix
            // of a stack A, so g and x are then stacks of vectors `(..., n)`: solved as columns.
            let (a, b, x) = (arg(0)?, arg(1)?, arg(2)?);
            let at = a.transpose(-1, -2)?;
            let (gb2, x2) = if b.ndim() == 1 {
                (at.try_solve(&g.unsqueeze(-1)?)?, x.unsqueeze(-1)?)
            } else {
                (at.try_solve(g)?, x.clone())
            };
            let gb = if b.ndim() == 1 {
                gb2.squeeze_dims(&[-1])?
            } else {
                gb2.clone()
            };
            let ga = needs[0]
                .then(|| {
                    let t = gb2.try_matmul(&x2.transpose(-1, -2)?)?.try_neg()?;
                    sum_to(&t, a.shape())
                })
                .transpose()?;
            vec![ga, needs[1].then(|| sum_to(&gb, b.shape())).transpose()?]
        }
        Op::Prod { mask } => vec![Some(prod_backward(g, arg(0)?, mask)?)],
        Op::Cumprod(ax) => vec![Some(cumprod_backward(g, arg(0)?, arg(1)?, *ax)?)],
        Op::Unfold(w) => vec![Some(crate::nn::col2im(g, arg(0)?, *w)?)],
        Op::CrossEntropy(reduction) => {
            // d/dlogits = (softmax(logits) - one_hot(target)) · g, with g spread over the
            // elements the reduction combined.
            let (z, lse, target) = (arg(0)?, arg(1)?, saved::<i64, D>(&s[2])?);
            // The factor per score vector, then softmax · factor in one pass, then the
            // factor taken off at each target.
            let idx = target.unsqueeze(1)?;
            let scale = match reduction {
                crate::nn::Reduction::Mean => {
                    g.try_div_scalar(F::from_f64(target.numel().max(1) as f64))?
                }
                crate::nn::Reduction::Sum => g.clone(),
                crate::nn::Reduction::None => g.unsqueeze(1)?,
            };
            let rows = scale.expand(lse.shape().clone())?.try_contiguous()?;
            let d = crate::ops::reduce::exp_sub(z, lse, Some(&rows))?;
            vec![Some(d.try_scatter_add(1, &idx, &rows.try_neg()?)?)]
        }
        Op::Cumsum(ax) => {
            // Each input element feeds every later output: a reversed running sum.
            let a = *ax as i64;
            vec![Some(
                g.flip(&[a])?.try_cumsum(a)?.flip(&[a])?.try_contiguous()?,
            )]
        }
        Op::Extreme { mask, keepdim } => {
            let (x, y) = (arg(0)?, arg(1)?);
            let kept = keep_shape(x, mask);
            let (y, g) = if *keepdim {
                (y.clone(), g.clone())
            } else {
                (y.try_reshape(kept.clone())?, g.try_reshape(kept)?)
            };
            // PyTorch's `evenly_distribute_backward`: a NaN result came from the NaNs.
            let nan = x.try_is_nan()?.try_logical_and(&y.try_is_nan()?)?;
            let hit = x.try_eq(&y)?.try_logical_or(&nan)?.try_cast::<F>()?;
            let axes = axes_of(mask);
            let count = hit.try_sum(&axes, true)?;
            vec![Some(hit.try_mul(&g.try_div(&count)?)?)]
        }
        Op::LogSumExp { mask } => {
            let (x, y) = (arg(0)?, arg(1)?);
            let kept = keep_shape(x, mask);
            let (y, g) = (y.try_reshape(kept.clone())?, g.try_reshape(kept)?);
            vec![Some(crate::ops::reduce::exp_sub(x, &y, Some(&g))?)]
        }
        Op::Var {
            mask,
            correction,
            std,
        } => {
            // var = Σ(x - mean)² / (n - correction): d/dx = 2 (x - mean) / (n - correction);
            // std = sqrt(var): d/dx = (x - mean) / ((n - correction) std), 0 where std = 0.
            let (x, y) = (arg(0)?, arg(1)?);
            let kept = keep_shape(x, mask);
            let n = crate::shape::numel_of(
                (x.dims().iter().zip(mask))
                    .filter(|(_, m)| **m)
                    .map(|(&d, _)| d),
            );
            let dof = F::from_f64((n as f64 - *correction as f64).max(0.0));
            let axes = axes_of(mask);
            let centred = x.try_sub(&x.try_mean(&axes, true)?)?;
            let g = g.try_reshape(kept.clone())?;
            let scale = if *std {
                // 0 where std = 0 (a constant slice), as PyTorch's `std_backward`.
                let y = y.try_reshape(kept)?;
                let inv = y.try_mul_scalar(dof)?.try_reciprocal()?;
                Tensor::try_where(&y.try_eq(&c(0.0)?)?, &c(0.0)?, &inv)?
            } else {
                c(2.0)?.try_div_scalar(dof)?
            };
            vec![Some(centred.try_mul(&g.try_mul(&scale)?)?)]
        }
        Op::Copy(_) => vec![Some(g.try_reshape(arg(0)?.dims())?)],
        Op::Cast(_) | Op::ToDevice(_) => {
            unreachable!("casts and transfers are applied before dispatching on one type")
        }
        Op::NoGrad(name) => return Err(no_gradient(name)),
    })
}
