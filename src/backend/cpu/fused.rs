//! The CPU's fused `layer_norm` forward and gradients over contiguous f32/f64 rows
//! (`kernels::norm`), `batch_norm` in training and its gradients over contiguous f32/f64
//! `(N, C, ...)` (`kernels::batch_norm`), the causal `softmax`'s backward over contiguous f32/f64 rows (`kernels::rows`; the others are in `softmax.rs`), and
//! GELU's backward over contiguous f32 (`kernels::vmath`); other
//! layouts and dtypes return `None` and the caller composes.

use crate::backend::cpu::kernels::batch_norm::{self as bn, Channels};
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

/// `softmax`'s gradient under the causal mask over the last two axes (`kernels::rows`).
pub(super) fn cpu_softmax_causal_backward_last<T: FloatElement>(
    g: &Tensor<T, Cpu>,
    y: &Tensor<T, Cpu>,
) -> Result<Option<Tensor<T, Cpu>>> {
    let len = y.dims().last().copied().unwrap_or(0);
    let rows = (y.ndim() >= 2).then(|| y.dims()[y.ndim() - 2]);
    if !fits(len, &[Some(g), Some(y)]) || g.dims() != y.dims() || rows.is_none() {
        return Ok(None);
    }
    // Every element of every row is written.
    let mut buf = AlignedBuf::for_overwrite("softmax backward", y.numel())?;
    let gg = read("softmax backward", &g.storage)?;
    let gy = read("softmax backward", &y.storage)?;
    rows::softmax_backward(&gg[elems(g)], &gy[elems(y)], len, &mut buf, rows);
    drop((gg, gy));
    Ok(Some(Tensor::from_buf(buf, y.shape().clone())))
}

/// The `(N, C, S)` channels of a contiguous f32/f64 `x` of 2 or more axes and elements, with
/// contiguous per-channel operands (`(C,)` each, checked by the caller); else `None`.
fn channels<T: FloatElement>(
    x: &Tensor<T, Cpu>,
    per_channel: &[Option<&Tensor<T, Cpu>>],
) -> Option<Channels> {
    let fits = (const { T::DTYPE.size() >= 4 })
        && x.ndim() >= 2
        && x.numel() > 0
        && x.is_contiguous()
        && per_channel.iter().flatten().all(|t| t.is_contiguous());
    fits.then(|| Channels {
        c: x.dims()[1],
        s: x.dims()[2..].iter().product(),
    })
}

/// A `(C,)` tensor of `values` rounded to `T`.
fn per_channel<T: FloatElement>(values: impl Iterator<Item = f64>) -> Result<Tensor<T, Cpu>> {
    let v: Vec<T> = values.map(T::from_f64).collect();
    let n = v.len();
    Tensor::from_vec(v, [n])
}

/// The values of an optional contiguous `(C,)` tensor as f64, `fill` for each channel when
/// there is none.
fn channel_values<T: FloatElement>(
    t: Option<&Tensor<T, Cpu>>,
    c: usize,
    fill: f64,
) -> Result<Vec<f64>> {
    match t {
        Some(t) => Ok(read("batch_norm", &t.storage)?[elems(t)]
            .iter()
            .map(|v| v.to_f64())
            .collect()),
        None => Ok(vec![fill; c]),
    }
}

pub(super) fn cpu_batch_norm_forward<T: FloatElement>(
    x: &Tensor<T, Cpu>,
    stats: Option<[&Tensor<T, Cpu>; 2]>,
    weight: Option<&Tensor<T, Cpu>>,
    bias: Option<&Tensor<T, Cpu>>,
    eps: f64,
) -> Result<Option<[Tensor<T, Cpu>; 3]>> {
    let [m, v] = stats.map_or([None, None], |s| s.map(Some));
    let Some(ch) = channels(x, &[weight, bias, m, v]) else {
        return Ok(None);
    };
    let (w, b) = (
        channel_values(weight, ch.c, 1.0)?,
        channel_values(bias, ch.c, 0.0)?,
    );
    // Every element is written.
    let mut buf = AlignedBuf::for_overwrite("batch_norm", x.numel())?;
    let gx = read("batch_norm", &x.storage)?;
    let xs = &gx[elems(x)];
    let moments: Vec<[f64; 2]> = match stats {
        Some(_) => (channel_values(m, ch.c, 0.0)?.into_iter())
            .zip(channel_values(v, ch.c, 0.0)?)
            .map(|(m, v)| [m, v])
            .collect(),
        None => bn::moments(xs, ch),
    };
    // y = x · alpha + beta, alpha = w / sd and beta = b - mean · alpha (PyTorch's CPU form).
    let coef: Vec<[f64; 3]> = (moments.iter().zip(w.iter().zip(&b)))
        .map(|(&[mean, var], (&w, &b))| {
            let alpha = w / (var + eps).sqrt();
            [alpha, 0.0, b - mean * alpha]
        })
        .collect();
    bn::combine(xs, xs, ch, &coef, &mut buf);
    drop(gx);
    let y = Tensor::from_buf(buf, x.shape().clone());
    let [mean, var] = match stats {
        Some([m, v]) => [m.clone(), v.clone()],
        None => {
            let [m, v] = [0, 1].map(|k| per_channel(moments.iter().map(|s| s[k])));
            [m?, v?]
        }
    };
    Ok(Some([y, mean, var]))
}

pub(super) fn cpu_batch_norm_backward<T: FloatElement>(
    x: &Tensor<T, Cpu>,
    g: &Tensor<T, Cpu>,
    [mean, var]: [&Tensor<T, Cpu>; 2],
    weight: Option<&Tensor<T, Cpu>>,
    eps: f64,
) -> Result<Option<[Tensor<T, Cpu>; 3]>> {
    let Some(ch) = channels(x, &[Some(g), Some(mean), Some(var), weight]) else {
        return Ok(None);
    };
    if g.dims() != x.dims() {
        return Ok(None);
    }
    let w = channel_values(weight, ch.c, 1.0)?;
    let (means, vars) = (
        channel_values(Some(mean), ch.c, 0.0)?,
        channel_values(Some(var), ch.c, 0.0)?,
    );
    let mut buf = AlignedBuf::for_overwrite("batch_norm backward", x.numel())?;
    let gx = read("batch_norm backward", &x.storage)?;
    let gg = read("batch_norm backward", &g.storage)?;
    let (xs, gs) = (&gx[elems(x)], &gg[elems(g)]);
    let sums = bn::grad_sums(gs, xs, ch, &means);
    let n = (x.numel() / ch.c) as f64;
    let istd: Vec<f64> = vars.iter().map(|v| 1.0 / (v + eps).sqrt()).collect();
    // dx = (g - Σg/n - (x - mean) · k) · w / sd, k = Σ g (x - mean) / (n · (var + eps))
    // (PyTorch's batch_norm_backward in training), as g · a + x · b + c.
    let coef: Vec<[f64; 3]> = (0..ch.c)
        .map(|c| {
            let [sg, sgx] = sums[c];
            let (k, iw) = (sgx * istd[c] * istd[c] / n, istd[c] * w[c]);
            [iw, -k * iw, (means[c] * k - sg / n) * iw]
        })
        .collect();
    bn::combine(gs, xs, ch, &coef, &mut buf);
    drop((gx, gg));
    let dx = Tensor::from_buf(buf, x.shape().clone());
    let dw = per_channel(sums.iter().zip(&istd).map(|(s, i)| s[1] * i))?;
    let db = per_channel(sums.iter().map(|s| s[0]))?;
    Ok(Some([dx, dw, db]))
}
