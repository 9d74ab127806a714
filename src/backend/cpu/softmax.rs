//! The CPU's fused softmax family over any one axis of a contiguous f32/f64 tensor: the row
//! kernels (`kernels::rows`) when the axis is the last one (or every later axis has size 1),
//! the column kernels (`kernels::columns`) otherwise. Other layouts and dtypes return `None`
//! and the caller composes the ops.

use crate::backend::cpu::kernels::columns::{self, ColOp, Cols};
use crate::backend::cpu::kernels::rows;
use crate::device::{AlignedBuf, Cpu};
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::shape::Shape;
use crate::tensor::{Tensor, read};

/// `x` as `(outer, len, inner)` around `axis`, when the fused kernels apply: f32/f64, no
/// empty axis, contiguous.
fn cols<T: FloatElement>(x: &Tensor<T, Cpu>, axis: usize) -> Option<Cols> {
    let d = x.dims();
    let fits = const { T::DTYPE.size() >= 4 } && axis < d.len() && x.numel() > 0;
    (fits && x.is_contiguous()).then(|| Cols {
        outer: d[..axis].iter().product(),
        len: d[axis],
        inner: d[axis + 1..].iter().product(),
    })
}

/// The elements of a contiguous tensor in its storage guard.
fn elems<T: FloatElement>(t: &Tensor<T, Cpu>) -> std::ops::Range<usize> {
    t.layout.offset..t.layout.offset + t.numel()
}

/// `op` over `axis` of `a` (and of `b`, one shape with it, for the gradients), the output
/// `a`'s shape (or `dims`, for the parts).
fn run<T: FloatElement>(
    op: ColOp,
    a: &Tensor<T, Cpu>,
    b: Option<&Tensor<T, Cpu>>,
    axis: usize,
    dims: Option<Vec<usize>>,
) -> Result<Option<Tensor<T, Cpu>>> {
    let name = match op {
        ColOp::Softmax => "softmax",
        ColOp::LogSoftmax => "log_softmax",
        ColOp::LogSumExpParts | ColOp::LogSumExp => "logsumexp",
        ColOp::SoftmaxBackward => "softmax backward",
        ColOp::LogSoftmaxBackward => "log_softmax backward",
    };
    let Some(c) = cols(a, axis) else {
        return Ok(None);
    };
    if b.is_some_and(|b| b.dims() != a.dims() || cols(b, axis).is_none()) {
        return Ok(None);
    }
    let shape = dims.map_or_else(|| a.shape().clone(), Shape::new);
    // Every element of the output is written.
    let mut buf = AlignedBuf::for_overwrite(name, shape.numel())?;
    let ga = read(name, &a.storage)?;
    let gb = b.map(|b| read(name, &b.storage)).transpose()?;
    let (a, b) = (&ga[elems(a)], gb.as_ref().zip(b).map(|(g, b)| &g[elems(b)]));
    if c.inner > 1 {
        columns::columns(op, a, b, c, &mut buf);
    } else {
        let (len, b) = (c.len, b.unwrap_or(a));
        match op {
            ColOp::Softmax => rows::softmax(a, len, &mut buf, None),
            ColOp::LogSoftmax => rows::log_softmax(a, len, &mut buf),
            ColOp::LogSumExpParts => rows::logsumexp_parts(a, len, &mut buf),
            ColOp::LogSumExp => rows::logsumexp(a, len, &mut buf),
            ColOp::SoftmaxBackward => rows::softmax_backward(a, b, len, &mut buf, None),
            ColOp::LogSoftmaxBackward => rows::log_softmax_backward(a, b, len, &mut buf),
        }
    }
    drop((ga, gb));
    Ok(Some(Tensor::from_buf(buf, shape)))
}

pub(super) fn cpu_softmax_along<T: FloatElement>(
    x: &Tensor<T, Cpu>,
    axis: usize,
) -> Result<Option<Tensor<T, Cpu>>> {
    run(ColOp::Softmax, x, None, axis, None)
}

pub(super) fn cpu_log_softmax_along<T: FloatElement>(
    x: &Tensor<T, Cpu>,
    axis: usize,
) -> Result<Option<Tensor<T, Cpu>>> {
    run(ColOp::LogSoftmax, x, None, axis, None)
}

pub(super) fn cpu_softmax_backward_along<T: FloatElement>(
    g: &Tensor<T, Cpu>,
    y: &Tensor<T, Cpu>,
    axis: usize,
) -> Result<Option<Tensor<T, Cpu>>> {
    run(ColOp::SoftmaxBackward, g, Some(y), axis, None)
}

pub(super) fn cpu_log_softmax_backward_along<T: FloatElement>(
    g: &Tensor<T, Cpu>,
    y: &Tensor<T, Cpu>,
    axis: usize,
) -> Result<Option<Tensor<T, Cpu>>> {
    run(ColOp::LogSoftmaxBackward, g, Some(y), axis, None)
}

/// The two parts of `logsumexp` over `axis`: each line's maximum and `log Σ exp(x - max)`,
/// both keepdim, as views of one buffer whose `axis` has size 2.
#[allow(clippy::type_complexity)]
pub(super) fn cpu_logsumexp_parts_along<T: FloatElement>(
    x: &Tensor<T, Cpu>,
    axis: usize,
) -> Result<Option<(Tensor<T, Cpu>, Tensor<T, Cpu>)>> {
    let mut dims = x.dims().to_vec();
    if let Some(d) = dims.get_mut(axis) {
        *d = 2;
    }
    let Some(both) = run(ColOp::LogSumExpParts, x, None, axis, Some(dims))? else {
        return Ok(None);
    };
    let ax = axis as i64;
    Ok(Some((both.narrow(ax, 0, 1)?, both.narrow(ax, 1, 1)?)))
}

/// The fused `exp(x - shift) · scale` when `x`, `shift` and `scale` are contiguous f32/f64
/// tensors and `shift`/`scale` are `x`'s shape with one run of axes set to 1 (one value per
/// row of those axes: `kernels::rows::exp_sub` when the run is the trailing axes,
/// `kernels::columns::exp_sub` otherwise); `None` otherwise.
pub(super) fn cpu_exp_sub<T: FloatElement>(
    x: &Tensor<T, Cpu>,
    shift: &Tensor<T, Cpu>,
    scale: Option<&Tensor<T, Cpu>>,
) -> Result<Option<Tensor<T, Cpu>>> {
    let (xd, sd) = (x.dims(), shift.dims());
    if sd.len() != xd.len() {
        return Ok(None);
    }
    // The run of axes that `shift` reduces: from its first to its last axis of size 1 where
    // `x`'s is not; every other axis must match.
    let reduced = |i: usize| sd[i] == 1 && xd[i] != 1;
    let first = (0..sd.len()).find(|&i| reduced(i)).unwrap_or(sd.len());
    let end = (0..sd.len())
        .rfind(|&i| reduced(i))
        .map_or(first, |i| i + 1);
    let fits = const { T::DTYPE.size() >= 4 }
        && x.numel() > 0
        // One run: inside it every axis is reduced (or of size 1), outside none is.
        && (0..sd.len()).all(|i| match (first..end).contains(&i) {
            true => sd[i] == 1,
            false => sd[i] == xd[i],
        })
        && x.is_contiguous()
        && shift.is_contiguous()
        && scale.is_none_or(|c| c.is_contiguous() && c.dims() == sd);
    if !fits {
        return Ok(None);
    }
    let c = Cols {
        outer: xd[..first].iter().product(),
        len: xd[first..end].iter().product(),
        inner: xd[end..].iter().product(),
    };
    let mut buf = AlignedBuf::for_overwrite("exp_sub", x.numel())?;
    let gx = read("exp_sub", &x.storage)?;
    let gs = read("exp_sub", &shift.storage)?;
    let gc = scale.map(|c| read("exp_sub", &c.storage)).transpose()?;
    let (xs, ss) = (&gx[elems(x)], &gs[elems(shift)]);
    let cs = gc.as_ref().zip(scale).map(|(g, c)| &g[elems(c)]);
    if c.inner == 1 {
        rows::exp_sub(xs, c.len, ss, cs, &mut buf);
    } else {
        columns::exp_sub(xs, c, ss, cs, &mut buf);
    }
    drop((gx, gs, gc));
    Ok(Some(Tensor::from_buf(buf, x.shape().clone())))
}
