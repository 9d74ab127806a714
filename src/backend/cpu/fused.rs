//! The CPU's fused `layer_norm` forward and input gradient over contiguous f32/f64 rows
//! (`kernels::norm`), `softmax`'s backward over contiguous f32/f64 rows (`kernels::rows`), and
//! GELU's backward over contiguous f32 (`kernels::vmath`); other
//! layouts and dtypes return `None` and the caller composes.

use crate::backend::cpu::kernels::convert::{same, same_mut};
use crate::backend::cpu::kernels::strided::par_out;
use crate::backend::cpu::kernels::{norm, rows};
use crate::device::{AlignedBuf, Cpu};
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::tensor::{Tensor, read};

/// The elements of a contiguous tensor in its storage guard.
fn elems<T: FloatElement>(t: &Tensor<T, Cpu>) -> std::ops::Range<usize> {
    t.layout.offset..t.layout.offset + t.numel()
}

/// True when the fused rows apply: f32/f64, rows of `len > 0` elements, contiguous operands.
fn fits<T: FloatElement>(len: usize, ts: &[Option<&Tensor<T, Cpu>>]) -> bool {
    (const { T::DTYPE.size() >= 4 })
        && len > 0
        && ts
            .iter()
            .flatten()
            .all(|t| t.numel() > 0 && t.is_contiguous())
}

pub(super) fn cpu_layer_norm_last<T: FloatElement>(
    x: &Tensor<T, Cpu>,
    len: usize,
    weight: Option<&Tensor<T, Cpu>>,
    bias: Option<&Tensor<T, Cpu>>,
    eps: f64,
) -> Result<Option<Tensor<T, Cpu>>> {
    if !fits(len, &[Some(x), weight, bias]) {
        return Ok(None);
    }
    // Every row is written whole.
    let mut buf = AlignedBuf::for_overwrite("layer_norm", x.numel())?;
    let gx = read("layer_norm", &x.storage)?;
    let gw = weight.map(|w| read("layer_norm", &w.storage)).transpose()?;
    let gb = bias.map(|b| read("layer_norm", &b.storage)).transpose()?;
    norm::layer_norm(
        &gx[elems(x)],
        len,
        gw.as_ref().zip(weight).map(|(g, w)| &g[elems(w)]),
        gb.as_ref().zip(bias).map(|(g, b)| &g[elems(b)]),
        eps,
        &mut buf,
    );
    drop((gx, gw, gb));
    Ok(Some(Tensor::from_buf(buf, x.shape().clone())))
}

pub(super) fn cpu_layer_norm_backward_last<T: FloatElement>(
    x: &Tensor<T, Cpu>,
    g: &Tensor<T, Cpu>,
    weight: Option<&Tensor<T, Cpu>>,
    (len, eps): (usize, f64),
    params: bool,
) -> Result<Option<crate::backend::LayerNormGrads<T, Cpu>>> {
    if !fits(len, &[Some(x), Some(g), weight]) || g.dims() != x.dims() {
        return Ok(None);
    }
    let op = "layer_norm backward";
    // Every row and column is written whole.
    let mut buf = AlignedBuf::for_overwrite(op, x.numel())?;
    let mut sums = match params {
        true => Some((
            AlignedBuf::<T>::for_overwrite(op, len)?,
            AlignedBuf::for_overwrite(op, len)?,
            AlignedBuf::<f64>::for_overwrite(op, x.numel() / len * 2)?,
        )),
        false => None,
    };
    let gx = read(op, &x.storage)?;
    let gg = read(op, &g.storage)?;
    let gw = weight.map(|w| read(op, &w.storage)).transpose()?;
    let p = sums.as_mut().map(|(w, b, stats)| norm::ParamGrads {
        weight: w,
        bias: b,
        stats,
    });
    norm::layer_norm_backward(
        &gx[elems(x)],
        &gg[elems(g)],
        gw.as_ref().zip(weight).map(|(g, w)| &g[elems(w)]),
        len,
        eps,
        &mut buf,
        p,
    );
    drop((gx, gg, gw));
    let sums = sums
        .map(|(w, b, _)| [w, b].map(|s| Tensor::from_buf(s, crate::shape::Shape::new(vec![len]))));
    Ok(Some((Tensor::from_buf(buf, x.shape().clone()), sums)))
}

/// `g · f'(x)` in one pass over contiguous f32 operands of one shape: each chunk of `x` is
/// copied to the output, replaced by the derivative (`derivative`: `vmath::gelu_grad`,
/// `vmath::silu_grad`) and multiplied by `g` while it is in the cache.
pub(super) fn cpu_pointwise_backward<T: FloatElement>(
    g: &Tensor<T, Cpu>,
    x: &Tensor<T, Cpu>,
    derivative: fn(&mut [f32]),
) -> Result<Option<Tensor<T, Cpu>>> {
    let fits = const { T::DTYPE.same(crate::Dtype::Float32) }
        && x.numel() > 0
        && g.dims() == x.dims()
        && g.is_contiguous()
        && x.is_contiguous();
    if !fits {
        return Ok(None);
    }
    let mut buf = AlignedBuf::<T>::for_overwrite("activation backward", x.numel())?;
    let gx = read("activation backward", &x.storage)?;
    let gg = read("activation backward", &g.storage)?;
    let xs = same::<T, f32>(&gx[elems(x)]).expect("f32");
    let gs = same::<T, f32>(&gg[elems(g)]).expect("f32");
    let out = same_mut::<T, f32>(&mut buf).expect("f32");
    par_out(out, |start, o| {
        let n = o.len();
        o.copy_from_slice(&xs[start..start + n]);
        derivative(o);
        o.iter_mut()
            .zip(&gs[start..start + n])
            .for_each(|(d, &g)| *d *= g);
    });
    drop((gx, gg));
    Ok(Some(Tensor::from_buf(buf, x.shape().clone())))
}

pub(super) fn cpu_softmax_backward_last<T: FloatElement>(
    g: &Tensor<T, Cpu>,
    y: &Tensor<T, Cpu>,
    causal: bool,
) -> Result<Option<Tensor<T, Cpu>>> {
    let len = y.dims().last().copied().unwrap_or(0);
    let rows = (y.ndim() >= 2).then(|| y.dims()[y.ndim() - 2]);
    if !fits(len, &[Some(g), Some(y)]) || g.dims() != y.dims() || (causal && rows.is_none()) {
        return Ok(None);
    }
    // Every element of every row is written.
    let mut buf = AlignedBuf::for_overwrite("softmax backward", y.numel())?;
    let gg = read("softmax backward", &g.storage)?;
    let gy = read("softmax backward", &y.storage)?;
    let causal = rows.filter(|_| causal);
    rows::softmax_backward(&gg[elems(g)], &gy[elems(y)], len, &mut buf, causal);
    drop((gg, gy));
    Ok(Some(Tensor::from_buf(buf, y.shape().clone())))
}
