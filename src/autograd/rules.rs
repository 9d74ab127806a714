//! The backward rules: for each recorded op, the gradients of its inputs from the gradient `g`
//! of its output (PyTorch's `derivatives.yaml` formulas). Written once over `F: FloatElement`
//! and `D: Backend`, so they run on every device.

use super::{Grad, Saved, saved, take};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::shape::{Layout, Shape};
use crate::tensor::Tensor;
use half::{bf16, f16};
use std::sync::Arc;

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
    /// `matmul`; saved: both operands.
    Matmul,
    /// A view; saved: the tensor viewed and the view (their layouts locate the view).
    View(&'static str),
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
    /// `pinv`; saved: the input and the output.
    Pinv,
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
    /// gradient evenly (PyTorch's `amax`).
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
    /// An op recorded without a rule yet: `backward` through it is an `Err` naming it.
    NoGrad(&'static str),
}

impl Op {
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Op::Leaf => "leaf",
            Op::Binary(n) | Op::Unary(n) | Op::View(n) | Op::Copy(n) => n,
            Op::Scalar { name, .. } => name,
            Op::Sum { mean: false, .. } => "sum",
            Op::Sum { mean: true, .. } => "mean",
            Op::Matmul => "matmul",
            Op::Cast(_) => "cast",
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
            Op::Pinv => "pinv",
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
    if let Op::View(name) = op {
        let gx = view_backward(name, &g, saved::<F, D>(&s[0])?, saved::<F, D>(&s[1])?)?;
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
    if g.is::<Tensor<f32, D>>() {
        go::<f32, D>(take(g)?, to)
    } else if g.is::<Tensor<f64, D>>() {
        go::<f64, D>(take(g)?, to)
    } else if g.is::<Tensor<f16, D>>() {
        go::<f16, D>(take(g)?, to)
    } else {
        go::<bf16, D>(take(g)?, to)
    }
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
            // d(a^b)/da = b a^(b-1); d(a^b)/db = a^b ln a, taken as 0 where a = 0 (PyTorch).
            let (a, b, y) = (arg(0)?, arg(1)?, arg(2)?);
            let ga = needs[0]
                .then(|| {
                    let d = a.try_pow(&b.try_sub_scalar(F::ONE)?)?.try_mul(b)?;
                    sum_to(&g.try_mul(&d)?, a.shape())
                })
                .transpose()?;
            let gb = needs[1]
                .then(|| {
                    let zero = c(0.0)?;
                    let ln = Tensor::try_where(&a.try_eq(&zero)?, &zero, &a.try_log()?)?;
                    sum_to(&g.try_mul(&y.try_mul(&ln)?)?, b.shape())
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
                    // The gradient goes to the selected operand; ties split it evenly (PyTorch).
                    let pick = if *name == "maximum" {
                        a.try_gt(b)?
                    } else {
                        a.try_lt(b)?
                    };
                    let tie = a.try_eq(b)?;
                    let half = g.try_mul_scalar(F::from_f64(0.5))?;
                    let zero = c(0.0)?;
                    let ga = Tensor::try_where(&pick, g, &Tensor::try_where(&tie, &half, &zero)?)?;
                    (ga.clone(), g.try_sub(&ga)?)
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
                // Clamp semantics (PyTorch `clamp_min`/`clamp_max`): the gradient passes where
                // x is kept, ties included, so `clip` passes it on its bounds.
                ("maximum" | "minimum", _) => {
                    let v = c(*v)?;
                    let keep = if *name == "maximum" {
                        x.try_ge(&v)?
                    } else {
                        x.try_le(&v)?
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
            let ga = match needs[0] {
                true => {
                    let t = g2.try_matmul(&b2.transpose(-1, -2)?)?;
                    Some(sum_to(&t, a2.shape())?.try_reshape(a.dims())?)
                }
                false => None,
            };
            let gb = match needs[1] {
                true => {
                    let t = a2.transpose(-1, -2)?.try_matmul(&g2)?;
                    Some(sum_to(&t, b2.shape())?.try_reshape(b.dims())?)
                }
                false => None,
            };
            vec![ga, gb]
        }
        Op::View(name) => vec![Some(view_backward(name, g, arg(0)?, arg(1)?)?)],
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
        Op::Inverse => {
            // d(A⁻¹) = -A⁻¹ dA A⁻¹, so dA = -A⁻ᵀ g A⁻ᵀ.
            let it = arg(0)?.transpose(-1, -2)?;
            vec![Some(it.try_matmul(g)?.try_matmul(&it)?.try_neg()?)]
        }
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
            // x = A⁻¹ b: db = A⁻ᵀ g, dA = -db xᵀ (a vector b as one column).
            let (a, b, x) = (arg(0)?, arg(1)?, arg(2)?);
            let gb = a.transpose(-1, -2)?.try_solve(g)?;
            let ga = needs[0]
                .then(|| {
                    let (gb2, x2) = if b.ndim() == 1 {
                        (gb.unsqueeze(-1)?, x.unsqueeze(-1)?)
                    } else {
                        (gb.clone(), x.clone())
                    };
                    let t = gb2.try_matmul(&x2.transpose(-1, -2)?)?.try_neg()?;
                    sum_to(&t, a.shape())
                })
                .transpose()?;
            vec![ga, needs[1].then(|| sum_to(&gb, b.shape())).transpose()?]
        }
        Op::Prod { mask } => vec![Some(prod_backward(g, arg(0)?, mask)?)],
        Op::Cumprod(ax) => {
            // y_i = Π_{j≤i} x_j, so dL/dx_j = Σ_{i≥j} g_i y_i / x_j.
            let (x, y) = (arg(0)?, arg(1)?);
            if x.try_eq(&c(0.0)?)?.try_any(&[], false)?.try_item()? {
                return Err(Error::InvalidArgument {
                    op: "backward",
                    msg: "the gradient of cumprod over an input holding 0 is not implemented (it needs products that skip the zero); compute the product another way or detach".into(),
                });
            }
            let a = *ax as i64;
            let tail = g.try_mul(y)?.flip(&[a])?.try_cumsum(a)?.flip(&[a])?;
            vec![Some(tail.try_div(x)?)]
        }
        Op::Unfold(w) => vec![Some(crate::nn::fold(g, arg(0)?, *w)?)],
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
            let hit = x.try_eq(&y)?.try_cast::<F>()?;
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
            // std = sqrt(var): d/dx = (x - mean) / ((n - correction) std).
            let (x, y) = (arg(0)?, arg(1)?);
            let kept = keep_shape(x, mask);
            let n = crate::shape::numel_of(
                (x.dims().iter().zip(mask))
                    .filter(|(_, m)| **m)
                    .map(|(&d, _)| d),
            );
            let dof = F::from_f64(n as f64 - *correction as f64);
            let axes = axes_of(mask);
            let centred = x.try_sub(&x.try_mean(&axes, true)?)?;
            let g = g.try_reshape(kept.clone())?;
            let scale = if *std {
                y.try_reshape(kept)?.try_mul_scalar(dof)?.try_reciprocal()?
            } else {
                c(2.0)?.try_div_scalar(dof)?
            };
            vec![Some(centred.try_mul(&g.try_mul(&scale)?)?)]
        }
        Op::Copy(_) => vec![Some(g.try_reshape(arg(0)?.dims())?)],
        Op::Cast(_) => unreachable!("casts are applied before dispatching on one type"),
        Op::NoGrad(name) => return Err(no_gradient(name)),
    })
}

/// The gradient of `product` over the axes in `mask`: each element gets `g` times the product
/// of the *other* elements of its slice, from exclusive prefix and suffix products, so zeros
/// are handled exactly (no division).
fn prod_backward<F: FloatElement, D: Backend>(
    g: &Tensor<F, D>,
    x: &Tensor<F, D>,
    mask: &[bool],
) -> Result<Tensor<F, D>> {
    let n = x.ndim();
    let kept: Vec<usize> = (0..n).filter(|&i| !mask[i]).collect();
    let red: Vec<usize> = (0..n).filter(|&i| mask[i]).collect();
    let k = crate::shape::numel_of(red.iter().map(|&i| x.dims()[i]));
    if k == 0 || x.numel() == 0 {
        return Tensor::zeros_on(x.dims(), &g.device);
    }
    let r = x.numel() / k;
    let perm: Vec<i64> = kept.iter().chain(&red).map(|&i| i as i64).collect();
    let flat = x.permute(&perm)?.try_contiguous()?.try_reshape([r, k])?;
    let ones = Tensor::<F, D>::ones_on([r, 1], &g.device)?;
    // Along axis 1: [1, t0, t0·t1, ...], the products of the elements before each one.
    let exclusive = |t: &Tensor<F, D>| -> Result<Tensor<F, D>> {
        if k == 1 {
            return Ok(ones.clone());
        }
        let run = t.narrow(1, 0, k - 1)?.try_cumprod(1)?;
        Tensor::try_concat(&[&ones, &run], 1)
    };
    let before = exclusive(&flat)?;
    let after = exclusive(&flat.flip(&[1])?)?.flip(&[1])?;
    let gk = before.try_mul(&after)?.try_mul(&g.try_reshape([r, 1])?)?;
    let moved: Vec<usize> = perm.iter().map(|&p| x.dims()[p as usize]).collect();
    let mut inv = vec![0i64; n];
    for (i, &p) in perm.iter().enumerate() {
        inv[p as usize] = i as i64;
    }
    gk.try_reshape(moved)?.permute(&inv)?.try_contiguous()
}

/// `x`'s shape with the axes in `mask` as size 1 (a keepdim reduction's shape).
fn keep_shape<F: FloatElement, D: Backend>(x: &Tensor<F, D>, mask: &[bool]) -> Vec<usize> {
    (x.dims().iter().zip(mask))
        .map(|(&d, &m)| if m { 1 } else { d })
        .collect()
}

/// The axes set in `mask`.
fn axes_of(mask: &[bool]) -> Vec<i64> {
    (0..mask.len())
        .filter(|&i| mask[i])
        .map(|i| i as i64)
        .collect()
}

/// The gradient of a unary op from `g`, the input `x` and the output `y`.
fn unary<F: FloatElement, D: Backend>(
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
        other => return Err(no_gradient(other)),
    };
    g.try_mul(&d)
}

/// The gradient of a view: `g` written at the view's places in a zero gradient of the tensor
/// viewed. Both layouts index one storage, so the view's layout is replayed on a zero buffer
/// spanning the base; broadcast dimensions (stride 0) are summed first, since every element
/// along them is the same base element.
fn view_backward<F: FloatElement, D: Backend>(
    name: &str,
    g: &Tensor<F, D>,
    base: &Tensor<F, D>,
    view: &Tensor<F, D>,
) -> Result<Tensor<F, D>> {
    if base.layout.has_aliasing() {
        return Err(Error::InvalidArgument {
            op: "backward",
            msg: format!(
                "`{name}` of a broadcast view (shape {}, strides {:?}) has no gradient here; call contiguous() on the broadcast view first",
                base.shape(),
                base.stride()
            ),
        });
    }
    if base.numel() == 0 {
        return Tensor::zeros_on(base.dims(), &g.device);
    }
    let (lo, hi) = base.layout.span();
    let buf = Tensor::<F, D>::zeros_on([hi - lo + 1], &g.device)?;
    let shift = |l: &Layout| Layout {
        shape: l.shape.clone(),
        strides: l.strides.clone(),
        offset: l.offset - lo,
    };
    // Sum `g` over the view's broadcast dimensions, keeping them as size 1.
    let stretched: Vec<i64> = (0..view.ndim())
        .filter(|&i| view.stride()[i] == 0 && view.dims()[i] > 1)
        .map(|i| i as i64)
        .collect();
    let mut vl = shift(&view.layout);
    let g = if stretched.is_empty() {
        g.clone()
    } else {
        let mut dims = vl.shape.dims().to_vec();
        for &i in &stretched {
            dims[i as usize] = 1;
        }
        vl.shape = Shape::new(dims);
        g.try_sum(&stretched, true)?
    };
    let mut target = buf.with_layout("backward", vl)?;
    target.add_(&g)?;
    buf.with_layout("backward", shift(&base.layout))?
        .try_contiguous()
}
