//! The backward rules: for each recorded op, the gradients of its inputs from the gradient `g`
//! of its output (PyTorch's `derivatives.yaml` formulas). Written once over `F: FloatElement`
//! and `D: Backend`, so they run on every device.

mod binary;
mod matrix;
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
use reduce::{cumprod_backward, keep_shape, norm_backward, prod_backward};
use std::sync::Arc;
use views::{view_backward, view_grad};

/// The gradients a rule returns, one per input (`None` where the input needs none).
type Grads<F, D> = Vec<Option<Tensor<F, D>>>;

/// Three saved tensors a rule reads (operands and result).
type Three<'a, F, D> = (&'a Tensor<F, D>, &'a Tensor<F, D>, &'a Tensor<F, D>);

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
    /// `unfold`'s windows every `step` along `axis` of `len` elements (the window axis last);
    /// nothing saved. The rule overlap-adds the windows' gradients.
    Windows {
        axis: usize,
        step: usize,
        len: usize,
    },
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
    /// `cross_entropy` without label smoothing; saved: the logits, their maximum over the
    /// class axis (keepdim), the targets, and `1 / Σ exp(logits - max)` (keepdim).
    CrossEntropy(crate::nn::Reduction),
    /// `mse_loss` of two operands of one shape, reduced by its mean (`true`) or sum; saved:
    /// the input, the target and their difference.
    MseLoss { mean: bool },
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
    /// `softmax` along the axis; saved: the output. `causal`: attention's causal softmax over
    /// the last axis, whose masked elements get no gradient.
    Softmax { axis: usize, causal: bool },
    /// `log_softmax` along the axis (the device's fused rows); saved: the output.
    LogSoftmax { axis: usize },
    /// `layer_norm` over the last `len` elements of each row, times the weight and plus the
    /// bias where `weight`/`bias` (the device's fused pass); saved: the input, then the
    /// weight and the bias that are there, which are also the inputs.
    LayerNorm {
        len: usize,
        eps: f64,
        weight: bool,
        bias: bool,
    },
    /// `batch_norm` (the device's fused pass), in training or evaluation, with the weight and
    /// bias where `weight`/`bias`; saved: the input, the weight and bias that are there (also
    /// the inputs), then the mean and biased variance it normalised by (the batch's, or a
    /// copy of the running statistics).
    BatchNorm {
        eps: f64,
        training: bool,
        weight: bool,
        bias: bool,
    },
    /// A cast from the float dtype given; the gradient is cast back to it.
    Cast(crate::dtype::Dtype),
    /// A copy from the device given (`to_device`); the gradient is copied back to it.
    ToDevice(crate::device::DeviceIndex),
    /// A view's gradient placed in a zero gradient of its base (`false`), or the base-shaped
    /// gradient's elements at the view's places (`true`): each one's rule is the other. Only
    /// a `create_graph` pass records them ([`views::gather`]).
    Place(Box<views::Placement>, bool),
    /// col2im, the rule of [`Op::Unfold`], recorded by a `create_graph` pass: its rule is
    /// the unfold of the gradient.
    Fold(crate::nn::Window),
    /// A user's op with its own rule ([`crate::autograd::custom`]); saved: the inputs, then
    /// the output.
    Custom(crate::autograd::function::CustomRule),
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
            Op::MseLoss { .. } => "mse_loss",
            Op::Unfold(_) => "conv2d windows",
            Op::Prod { .. } => "product",
            Op::Cumprod(_) => "cumprod",
            Op::Pad(_) => "pad",
            Op::Windows { .. } => "unfold",
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
            Op::LayerNorm { .. } => "layer_norm",
            Op::BatchNorm { .. } => "batch_norm",
            Op::Softmax { .. } => "softmax",
            Op::LogSoftmax { .. } => "log_softmax",
            Op::Var { std: false, .. } => "var",
            Op::Var { std: true, .. } => "std",
            Op::Place(..) => "view backward",
            Op::Fold(_) => "conv2d windows backward",
            Op::Custom(rule) => rule.name,
            Op::NoGrad(n) => n,
        }
    }
}

/// Whether the rules run recorded: in a `create_graph` pass, the only time they run with
/// recording on (a plain backward runs them under `no_grad`). Fused backward kernels record
/// nothing, so the rules compose their gradients of recorded ops then.
pub(crate) fn graph_mode() -> bool {
    crate::autograd::is_grad_enabled()
}

/// Runs `op`'s rule for the float type the gradient holds.
pub(super) fn apply<D: Backend>(
    op: &Op,
    g: Grad,
    saved: &[Saved],
    needs: &[bool],
) -> Result<Vec<Option<Grad>>> {
    if let Op::Custom(rule) = op {
        // The user's rule, in the op's own dtype (no f32 detour for 16-bit types).
        return rule.apply(g, saved);
    }
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
    if let Op::View(name) | Op::BroadcastView(name) = op {
        let (base, view) = (saved::<F, D>(&s[0])?, saved::<F, D>(&s[1])?);
        let aliased = matches!(op, Op::BroadcastView(_));
        return Ok(vec![Some(view_grad(name, &g, base, view, aliased)?)]);
    }
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
        let aliased = matches!(op, Op::BroadcastView(_));
        return Ok(vec![Some(view_grad(name, &g, base, view, aliased)?)]);
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
    // Both kinds in one sentence: piecewise-constant ops (floor_divide, argmax) and smooth
    // ones whose derivative PyTorch does not implement either (airy_ai, geqrf, gammainc's a).
    Error::InvalidArgument {
        op: "backward",
        msg: format!(
            "`{op}` has no gradient rule (as in PyTorch: it is piecewise constant, or its derivative is not implemented there); detach its input or compute it under no_grad"
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
) -> Result<Grads<F, D>> {
    let arg = |i: usize| saved::<F, D>(&s[i]);
    let c = |v: f64| Tensor::<F, D>::scalar_on(F::from_f64(v), &g.device);
    Ok(match op {
        Op::Leaf => Vec::new(),
        Op::Binary("pow") => binary::pow_backward(g, (arg(0)?, arg(1)?, arg(2)?), needs)?,
        Op::Binary(name) => binary::binary_backward(name, g, (arg(0)?, arg(1)?), needs)?,
        Op::Scalar { name, s: v, left } => {
            vec![Some(binary::scalar_backward(
                (name, *v, *left),
                g,
                arg(0)?,
            )?)]
        }
        Op::Unary(name) => vec![Some(unary::<F, D>(name, g, arg(0)?, arg(1)?)?)],
        Op::Sum { mask, mean } => vec![Some(reduce::sum_backward(g, arg(0)?, mask, *mean)?)],
        Op::NanSum { mask, mean } => vec![Some(reduce::nansum_backward(g, arg(0)?, mask, *mean)?)],
        Op::Norm { p, mask } => vec![Some(norm_backward(g, arg(0)?, arg(1)?, *p, mask)?)],
        Op::Matmul => matrix::matmul_backward(g, (arg(0)?, arg(1)?), needs)?,
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
            let gx = crate::ops::index::add_slices(None, x.dims(), *ax, idx, g)?;
            vec![Some(gx)]
        }
        Op::Gather(ax) => {
            let (x, idx) = (arg(0)?, saved::<i64, D>(&s[1])?);
            let zeros = Tensor::zeros_on(x.dims(), &g.device)?;
            vec![Some(crate::ops::index::scatter_add_owned(
                zeros, *ax as i64, idx, g,
            )?)]
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
        Op::Windows { axis, step, len } => vec![Some(crate::ops::windows::unfold_backward(
            g, *axis, *step, *len,
        )?)],
        Op::Diag(k) => vec![Some(g.diagonal(*k)?.try_contiguous()?)],
        Op::LogAbsDet => vec![Some(matrix::logabsdet_backward(g, arg(0)?)?)],
        Op::Det => vec![Some(matrix::det_backward(g, arg(0)?)?)],
        Op::Cholesky => vec![Some(matrix::cholesky_backward(g, arg(0)?)?)],
        Op::Inverse => vec![Some(matrix::inverse_backward(g, arg(0)?)?)],
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
        Op::Pinv => vec![Some(matrix::pinv_backward(g, (arg(0)?, arg(1)?))?)],
        Op::Solve => matrix::solve_backward(g, (arg(0)?, arg(1)?, arg(2)?), needs)?,
        Op::Prod { mask } => vec![Some(prod_backward(g, arg(0)?, mask)?)],
        Op::Cumprod(ax) => vec![Some(cumprod_backward(g, arg(0)?, arg(1)?, *ax)?)],
        Op::Unfold(w) => vec![Some(crate::nn::col2im(g, arg(0)?, *w)?)],
        Op::Fold(w) => vec![Some(crate::nn::unfold_recorded(g, *w)?)],
        Op::Place(p, gathered) => vec![Some(views::place_backward(g, p, *gathered)?)],
        Op::MseLoss { mean } => {
            // PyTorch's mse_loss_backward: `(input - target) · 2g` (over n for the mean), one
            // product with a 0-d factor; a `create_graph` pass takes the difference again,
            // recorded.
            let d = if graph_mode() {
                arg(0)?.try_sub(arg(1)?)?
            } else {
                arg(2)?.clone()
            };
            let n = d.numel().max(1) as f64;
            let factor = g.try_mul_scalar(F::from_f64(if *mean { 2.0 / n } else { 2.0 }))?;
            let gx = d.try_mul(&factor)?;
            vec![
                needs[0].then(|| gx.clone()),
                needs[1].then(|| gx.try_neg()).transpose()?,
            ]
        }
        Op::CrossEntropy(reduction) => {
            // d/dlogits = (softmax(logits) - one_hot(target)) · g, with g spread over the
            // elements the reduction combined.
            let (z, m, target, inv_sum) = (arg(0)?, arg(1)?, saved::<i64, D>(&s[2])?, arg(3)?);
            // The factor per score vector, then `exp(z - m) · (factor / Σ)` (the softmax times
            // the factor) in one pass, then the factor taken off at each target.
            let idx = target.unsqueeze(1)?;
            let scale = match reduction {
                crate::nn::Reduction::Mean => {
                    g.try_div_scalar(F::from_f64(target.numel().max(1) as f64))?
                }
                crate::nn::Reduction::Sum => g.clone(),
                crate::nn::Reduction::None => g.unsqueeze(1)?,
            };
            let rows = scale.expand(m.shape().clone())?.try_contiguous()?;
            let d = if graph_mode() {
                // The saved maximum and sum are plain tensors: the softmax again, recorded.
                z.try_softmax(1)?.try_mul(&rows)?
            } else {
                crate::ops::reduce::exp_sub(z, m, Some(&rows.try_mul(inv_sum)?))?
            };
            let off = rows.try_neg()?;
            vec![Some(crate::ops::index::scatter_add_owned(
                d, 1, &idx, &off,
            )?)]
        }
        Op::Cumsum(ax) => {
            // Each input element feeds every later output: a reversed running sum.
            let a = *ax as i64;
            vec![Some(
                g.flip(&[a])?.try_cumsum(a)?.flip(&[a])?.try_contiguous()?,
            )]
        }
        Op::Extreme { mask, keepdim } => {
            vec![Some(reduce::extreme_backward(
                g,
                (arg(0)?, arg(1)?),
                mask,
                *keepdim,
            )?)]
        }
        Op::LogSumExp { mask } => {
            let (x, y) = (arg(0)?, arg(1)?);
            let kept = keep_shape(x, mask);
            let (y, g) = (y.try_reshape(kept.clone())?, g.try_reshape(kept)?);
            vec![Some(crate::ops::reduce::exp_sub_rule(x, &y, Some(&g))?)]
        }
        Op::Var {
            mask,
            correction,
            std,
        } => {
            let (x, y) = (arg(0)?, arg(1)?);
            let how = (*correction as f64, *std);
            vec![Some(reduce::var_backward(g, (x, y), mask, how)?)]
        }
        Op::Softmax { axis, causal } => {
            let y = arg(0)?;
            vec![Some(crate::nn::softmax_backward(g, y, *axis, *causal)?)]
        }
        Op::LogSoftmax { axis } => {
            vec![Some(crate::nn::log_softmax_backward(g, arg(0)?, *axis)?)]
        }
        Op::LayerNorm {
            len,
            eps,
            weight,
            bias,
        } => crate::nn::layer_norm_rule(g, s, (*len, *eps), (*weight, *bias), needs)?,
        Op::BatchNorm {
            eps,
            training,
            weight,
            bias,
        } => crate::nn::batch_norm_rule(g, s, (*eps, *training), (*weight, *bias), needs)?,
        Op::Copy(_) => vec![Some(g.try_reshape(arg(0)?.dims())?)],
        Op::Cast(_) | Op::ToDevice(_) | Op::Custom(_) => {
            unreachable!(
                "casts, transfers and custom rules are applied before dispatching on one type"
            )
        }
        Op::NoGrad(name) => return Err(no_gradient(name)),
    })
}
