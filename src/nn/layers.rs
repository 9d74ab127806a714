//! Normalisation and the bilinear form (PyTorch's `layer_norm`, `rms_norm`,
//! `local_response_norm`, `bilinear`), written from differentiable ops.

use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// The axes of the trailing `n` dimensions of `x`, checked against `normalized_shape`.
fn trailing_axes<T: FloatElement, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    normalized_shape: &[usize],
) -> Result<Vec<i64>> {
    let n = normalized_shape.len();
    if n == 0 || n > x.ndim() || x.dims()[x.ndim() - n..] != *normalized_shape {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "normalized_shape {normalized_shape:?} must be the last dimensions of the input's shape {}",
                x.shape()
            ),
        });
    }
    Ok((x.ndim() - n..x.ndim()).map(|a| a as i64).collect())
}

/// Checks that the optional affine `weight` and `bias` each have `normalized_shape`.
fn check_affine<T: FloatElement, D: Backend>(
    op: &'static str,
    normalized_shape: &[usize],
    weight: Option<&Tensor<T, D>>,
    bias: Option<&Tensor<T, D>>,
) -> Result<()> {
    for (name, p) in [("weight", weight), ("bias", bias)] {
        if let Some(p) = p.filter(|p| p.dims() != normalized_shape) {
            return Err(Error::InvalidArgument {
                op,
                msg: format!(
                    "the {name} has shape {}, but normalized_shape is {normalized_shape:?}",
                    p.shape()
                ),
            });
        }
    }
    Ok(())
}

/// Applies the optional affine `weight` and `bias` (shapes checked by [`check_affine`]).
fn affine<T: FloatElement, D: Backend>(
    y: Tensor<T, D>,
    weight: Option<&Tensor<T, D>>,
    bias: Option<&Tensor<T, D>>,
) -> Result<Tensor<T, D>> {
    let y = match weight {
        Some(w) => y.try_mul(w)?,
        None => y,
    };
    match bias {
        Some(b) => y.try_add(b),
        None => Ok(y),
    }
}

/// `(x - mean) / sqrt(var + eps) · weight + bias` over the trailing `normalized_shape`
/// dimensions, with the biased variance (PyTorch `layer_norm`; `eps` is 1e-5 there). 16-bit
/// floats compute in f32. Each row is one fused pass where the device has the kernel (the CPU
/// for contiguous inputs; the gradient too), with the same rounding as the composed ops.
///
/// # Errors
/// `InvalidArgument` when `normalized_shape` is not the input's trailing shape, or for a
/// weight or bias of another shape.
///
/// # Example
/// ```
/// use typed_tensor::{nn, prelude::*};
/// let x = Tensor::<f32>::from_vec(vec![1.0, 2.0, 3.0, 4.0], [2, 2])?.with_requires_grad(true)?;
/// let y = nn::layer_norm(&x, &[2], None, None, 1e-5)?;
/// assert!((y.to_vec()[0] + 1.0).abs() < 1e-3); // each row becomes (-1, 1)
/// y.mul(&Tensor::from_vec(vec![1.0, 0.0, 0.0, 0.0], [2, 2])?).sum(&[], false).backward();
/// assert!(x.grad_tensor().is_some());
/// # Ok::<(), typed_tensor::Error>(())
/// ```
pub fn layer_norm<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    normalized_shape: &[usize],
    weight: Option<&Tensor<T, D>>,
    bias: Option<&Tensor<T, D>>,
    eps: f64,
) -> Result<Tensor<T, D>> {
    trailing_axes("layer_norm", x, normalized_shape)?;
    check_affine("layer_norm", normalized_shape, weight, bias)?;
    // The trailing dimensions of an existing tensor: their product overflows only beside an
    // empty axis (a (0, 2^33, 2^33) input), where there are no rows; 0 then stands for it.
    let len = (normalized_shape.iter()).try_fold(1usize, |a, &d| a.checked_mul(d));
    let len = len.unwrap_or(0);
    let tracked: Vec<&dyn crate::autograd::Tracked> = [Some(x), weight, bias]
        .into_iter()
        .flatten()
        .map(|t| t as _)
        .collect();
    // With nothing to record: the affine fused too where the device has it.
    if !crate::autograd::recording(&tracked)
        && let Some(y) = D::layer_norm_last(x, len, weight, bias, eps)?
    {
        return Ok(y);
    }
    // One recorded node with the affine where the device fuses it (two passes fewer than a
    // recorded mul and add; the rule computes their gradients).
    if weight.is_some() || bias.is_some() {
        let fused = crate::autograd::no_grad(|| D::layer_norm_last(x, len, weight, bias, eps))?;
        if let Some(y) = fused {
            let op = crate::autograd::Op::LayerNorm {
                len,
                eps,
                weight: weight.is_some(),
                bias: bias.is_some(),
            };
            return Ok(crate::autograd::record(y, op, &tracked, &tracked));
        }
    }
    // The normalisation is one recorded node; the weight and bias are a recorded mul and add.
    let y = crate::autograd::no_grad(|| {
        super::in_f32(
            x,
            |v| standardize(v, len, eps),
            |v| standardize(v, len, eps),
        )
    })?;
    let op = crate::autograd::Op::LayerNorm {
        len,
        eps,
        weight: false,
        bias: false,
    };
    affine(crate::autograd::record(y, op, &[x], &[x]), weight, bias)
}

/// The rule of [`layer_norm`]'s node, from the saved input and (where `affine` says so) the
/// weight and bias: `dx` is the normalisation's gradient of `g · weight`, `dweight` the sum of
/// `g · x̂` over the rows and `dbias` that of `g` (PyTorch's `native_layer_norm_backward`).
pub(crate) fn layer_norm_rule<F: FloatElement, D: Backend>(
    g: &Tensor<F, D>,
    saved: &[crate::autograd::Saved],
    (len, eps): (usize, f64),
    (weight, bias): (bool, bool),
    needs: &[bool],
) -> Result<Vec<Option<Tensor<F, D>>>> {
    let arg = |i: usize| crate::autograd::saved::<F, D>(&saved[i]);
    let x = arg(0)?;
    let w = weight.then(|| arg(1)).transpose()?;
    let params = usize::from(weight) + usize::from(bias);
    // The fused passes: the input's gradient, then the affine's column sums (a
    // `create_graph` pass, recording on in a rule, composes recorded ops instead).
    if !crate::autograd::is_grad_enabled()
        && let Some((dx, sums)) =
            D::layer_norm_backward_last(x, g, w, (len, eps), needs[1..].contains(&true))?
    {
        let dims = if params > 0 { arg(1)?.dims() } else { &[] };
        let [dw, db] = match sums {
            Some([w, b]) => [Some(w.try_reshape(dims)?), Some(b.try_reshape(dims)?)],
            None => [None, None],
        };
        return Ok(affine_grads(needs, (weight, bias), [Some(dx), dw, db]));
    }
    let scaled = match w {
        Some(w) => g.try_mul(w)?,
        None => g.clone(),
    };
    let mut grads = vec![
        needs[0]
            .then(|| layer_norm_backward(&scaled, x, len, eps))
            .transpose()?,
    ];
    // The leading axes: the rows the affine's parameters are shared by.
    let params = usize::from(weight) + usize::from(bias);
    let normalized = if params > 0 { arg(1)?.ndim() } else { 0 };
    let rows: Vec<i64> = (0..x.ndim() - normalized).map(|a| a as i64).collect();
    // (An empty axis list would sum every axis: a single row is its own sum.)
    let over_rows = |t: Tensor<F, D>| match rows.is_empty() {
        true => Ok(t),
        false => t.try_sum(&rows, false),
    };
    if let Some(w) = w {
        grads.push(
            needs[1]
                .then(|| {
                    // x̂ again: the fused rows, or a recorded normalisation in a
                    // `create_graph` pass.
                    let xhat = layer_norm(x, w.dims(), None, None, eps)?;
                    over_rows(g.try_mul(&xhat)?)
                })
                .transpose()?,
        );
    }
    if bias {
        grads.push(needs[params].then(|| over_rows(g.clone())).transpose()?);
    }
    Ok(grads)
}

/// A normalisation rule's gradients in its inputs' order: the input's, then the weight's and
/// the bias's where the op has them (`weight`, `bias`), each kept only where `needs` asks.
pub(super) fn affine_grads<F: FloatElement, D: Backend>(
    needs: &[bool],
    (weight, bias): (bool, bool),
    [dx, dw, db]: [Option<Tensor<F, D>>; 3],
) -> Vec<Option<Tensor<F, D>>> {
    let params = usize::from(weight) + usize::from(bias);
    let mut grads = vec![dx.filter(|_| needs[0])];
    if weight {
        grads.push(dw.filter(|_| needs[1]));
    }
    if bias {
        grads.push(db.filter(|_| needs[params]));
    }
    grads
}

/// `(x - mean) / sqrt(var + eps)` over the last `len` elements of each row: the device's
/// fused rows, else composed (the semantics).
fn standardize<F: FloatElement, D: Backend>(
    x: &Tensor<F, D>,
    len: usize,
    eps: f64,
) -> Result<Tensor<F, D>> {
    if let Some(y) = D::layer_norm_last(x, len, None, None, eps)? {
        return Ok(y);
    }
    let rows = x.try_reshape([x.numel().checked_div(len).unwrap_or(0), len])?;
    let centred = rows.try_sub(&rows.try_mean(&[1], true)?)?;
    let var = centred.try_mul(&centred)?.try_mean(&[1], true)?;
    let sd = var.try_add_scalar(F::from_f64(eps))?.try_sqrt()?;
    centred.try_div(&sd)?.try_reshape(x.dims())
}

/// The gradient of [`layer_norm`]'s normalisation with respect to `x`, from the gradient `g`
/// of its output: `(g - mean(g) - x̂ · mean(g · x̂)) / sqrt(var + eps)` per row of `len`
/// elements, `x̂` the normalised row (PyTorch's `native_layer_norm_backward`), composed (the
/// semantics of the fused `Backend::layer_norm_backward_last`).
pub(crate) fn layer_norm_backward<F: FloatElement, D: Backend>(
    g: &Tensor<F, D>,
    x: &Tensor<F, D>,
    len: usize,
    eps: f64,
) -> Result<Tensor<F, D>> {
    let shape = [x.numel().checked_div(len).unwrap_or(0), len];
    let (rows, g) = (x.try_reshape(shape)?, g.try_reshape(shape)?);
    let centred = rows.try_sub(&rows.try_mean(&[1], true)?)?;
    let var = centred.try_mul(&centred)?.try_mean(&[1], true)?;
    let sd = var.try_add_scalar(F::from_f64(eps))?.try_sqrt()?;
    let xhat = centred.try_div(&sd)?;
    let mean_gx = g.try_mul(&xhat)?.try_mean(&[1], true)?;
    let dx = g
        .try_sub(&g.try_mean(&[1], true)?)?
        .try_sub(&xhat.try_mul(&mean_gx)?)?
        .try_div(&sd)?;
    dx.try_reshape(x.dims())
}

/// `x / sqrt(mean(x²) + eps) · weight` over the trailing `normalized_shape` dimensions
/// (PyTorch `rms_norm`).
///
/// # Errors
/// As [`layer_norm`].
pub fn rms_norm<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    normalized_shape: &[usize],
    weight: Option<&Tensor<T, D>>,
    eps: f64,
) -> Result<Tensor<T, D>> {
    let axes = trailing_axes("rms_norm", x, normalized_shape)?;
    check_affine("rms_norm", normalized_shape, weight, None)?;
    fn norm<F: FloatElement, D: Backend>(
        x: &Tensor<F, D>,
        axes: &[i64],
        eps: f64,
    ) -> Result<Tensor<F, D>> {
        let ms = x.try_mul(x)?.try_mean(axes, true)?;
        x.try_div(&ms.try_add_scalar(F::from_f64(eps))?.try_sqrt()?)
    }
    let y = super::in_f32(x, |v| norm(v, &axes, eps), |v| norm(v, &axes, eps))?;
    affine(y, weight, None)
}

/// Checks that each named per-channel tensor has shape `(c,)`.
pub(super) fn check_channels<T: FloatElement, D: Backend>(
    op: &'static str,
    c: usize,
    named: &[(&str, Option<&Tensor<T, D>>)],
) -> Result<()> {
    match named
        .iter()
        .find_map(|(n, p)| p.filter(|p| p.dims() != [c]).map(|p| (n, p)))
    {
        Some((name, p)) => Err(Error::InvalidArgument {
            op,
            msg: format!("{name} has shape {}; it needs ({c},)", p.shape()),
        }),
        None => Ok(()),
    }
}

/// A `(C,)` tensor as `(1, C, 1, ...)` of `ndim` axes, to broadcast over `(N, C, ...)`.
pub(super) fn per_channel<T: FloatElement, D: Backend>(
    t: &Tensor<T, D>,
    ndim: usize,
) -> Result<Tensor<T, D>> {
    let mut dims = vec![1; ndim];
    dims[1] = t.numel();
    t.try_reshape(dims)
}

/// `y · weight + bias` per channel (axis 1), each optional and checked to be `(C,)`.
pub(super) fn channel_affine<T: FloatElement, D: Backend>(
    op: &'static str,
    y: Tensor<T, D>,
    weight: Option<&Tensor<T, D>>,
    bias: Option<&Tensor<T, D>>,
) -> Result<Tensor<T, D>> {
    check_channels(op, y.dims()[1], &[("weight", weight), ("bias", bias)])?;
    let y = match weight {
        Some(w) => y.try_mul(&per_channel(w, y.ndim())?)?,
        None => y,
    };
    match bias {
        Some(b) => y.try_add(&per_channel(b, y.ndim())?),
        None => Ok(y),
    }
}

/// Group normalisation (PyTorch `group_norm`): the `C` channels of `(N, C, ...)` in
/// `num_groups` groups, each group of each sample normalised by its mean and biased variance,
/// then the optional per-channel affine `weight` and `bias` (`(C,)`).
///
/// # Errors
/// `InvalidArgument` for an input of fewer than 2 dimensions, `C` not divisible by
/// `num_groups` (or 0 groups), or parameters not of shape `(C,)`.
pub fn group_norm<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    num_groups: usize,
    weight: Option<&Tensor<T, D>>,
    bias: Option<&Tensor<T, D>>,
    eps: f64,
) -> Result<Tensor<T, D>> {
    let op = "group_norm";
    let c = x.dims().get(1).copied().unwrap_or(0);
    if x.ndim() < 2 || num_groups == 0 || c % num_groups != 0 {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "expects (N, C, ...) input with C divisible by {num_groups} groups, got {}",
                x.shape()
            ),
        });
    }
    // One group's elements: its channels times the spatial size (checked: a shape holding a
    // 0 may have other axes whose product overflows).
    let group = (x.dims()[2..].iter())
        .try_fold(c / num_groups, |p, &d| p.checked_mul(d))
        .ok_or(Error::ShapeOverflow {
            op,
            dims: x.dims().to_vec(),
        })?;
    let g = x.try_reshape([x.dims()[0], num_groups, group])?;
    let y = layer_norm(&g, &[group], None, None, eps)?.try_reshape(x.dims())?;
    channel_affine(op, y, weight, bias)
}

/// Instance normalisation (PyTorch `instance_norm` without running statistics): each
/// channel of each sample of `(N, C, ...)` normalised by its own mean and biased variance,
/// then the optional per-channel `weight` and `bias` (`(C,)`). [`group_norm`] with one
/// channel per group.
///
/// # Errors
/// `InvalidArgument` for an input of fewer than 3 dimensions (PyTorch's rule) or
/// parameters not of shape `(C,)`.
pub fn instance_norm<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    weight: Option<&Tensor<T, D>>,
    bias: Option<&Tensor<T, D>>,
    eps: f64,
) -> Result<Tensor<T, D>> {
    if x.ndim() < 3 {
        return Err(Error::InvalidArgument {
            op: "instance_norm",
            msg: format!(
                "expects (N, C, ...) input with a spatial axis, got {}",
                x.shape()
            ),
        });
    }
    let c = x.dims()[1];
    if c == 0 {
        return Ok(x.clone());
    }
    group_norm(x, c, weight, bias, eps).map_err(|e| e.invalid_named("instance_norm"))
}

/// `‖x1 - x2 + eps‖_p` along the last axis after broadcasting (PyTorch
/// `pairwise_distance`, default `p = 2`, `eps = 1e-6`).
///
/// # Errors
/// `Broadcast` when the shapes do not broadcast; `InvalidArgument` for a `p` that is not a
/// norm order or 0-d inputs.
pub fn pairwise_distance<T: FloatElement, D: Backend>(
    x1: &Tensor<T, D>,
    x2: &Tensor<T, D>,
    p: f64,
    eps: f64,
) -> Result<Tensor<T, D>> {
    let op = "pairwise_distance";
    let v = Tensor::broadcast_for(op, &[x1, x2])?;
    if v[0].ndim() == 0 {
        return Err(Error::InvalidArgument {
            op,
            msg: "needs at least 1-d inputs".into(),
        });
    }
    let d = v[0].try_sub(&v[1])?.try_add_scalar(T::from_f64(eps))?;
    d.try_norm(p, &[-1], false).map_err(|e| e.invalid_named(op))
}

/// The `p`-norm distance between each row of `x1` `(..., P, M)` and each row of `x2`
/// `(..., R, M)`, shape `(..., P, R)`, batch dimensions broadcast (PyTorch `cdist`, SciPy
/// `cdist` for 2-d inputs). Computed from the `(..., P, R, M)` differences, exactly and
/// differentiably (0 gradient at a zero distance, as PyTorch), at that memory cost.
///
/// # Errors
/// `InvalidArgument` for inputs of fewer than 2 dimensions, different `M`, or a `p` that is
/// not a norm order; `Broadcast` when the batch dimensions do not broadcast.
pub fn cdist<T: FloatElement, D: Backend>(
    x1: &Tensor<T, D>,
    x2: &Tensor<T, D>,
    p: f64,
) -> Result<Tensor<T, D>> {
    let op = "cdist";
    let (a, b) = (x1.dims(), x2.dims());
    if a.len() < 2 || b.len() < 2 || a[a.len() - 1] != b[b.len() - 1] {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "expects (..., P, M) and (..., R, M) inputs, got {} and {}",
                x1.shape(),
                x2.shape()
            ),
        });
    }
    let d = x1.unsqueeze(-2)?.try_sub(&x2.unsqueeze(-3)?)?;
    d.try_norm(p, &[-1], false).map_err(|e| e.invalid_named(op))
}

/// The `p`-norm distance between each pair of rows `i < j` of `x` `(N, M)`, in row-major
/// order of the pairs, shape `(N·(N - 1) / 2,)` (PyTorch `pdist`, SciPy `pdist`): the upper
/// triangle of [`cdist`]`(x, x, p)`, with its memory cost and its gradients (0 at a zero
/// distance).
///
/// ```
/// use typed_tensor::prelude::*;
/// let x = Tensor::<f64>::from_vec(vec![0.0, 0.0, 3.0, 4.0, 6.0, 8.0], [3, 2])?;
/// assert_eq!(typed_tensor::nn::pdist(&x, 2.0)?.to_vec(), vec![5.0, 10.0, 5.0]);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `InvalidArgument` for an input that is not 2-d or a `p` that is not a norm order;
/// `OutOfMemory` when the `N × N` distances do not fit.
pub fn pdist<T: FloatElement, D: Backend>(x: &Tensor<T, D>, p: f64) -> Result<Tensor<T, D>> {
    let op = "pdist";
    let &[n, _] = x.dims() else {
        return Err(Error::InvalidArgument {
            op,
            msg: format!("expects an (N, M) input, got {}", x.shape()),
        });
    };
    let all = n.checked_mul(n).ok_or_else(|| Error::InvalidArgument {
        op,
        msg: format!("{n} × {n} distances overflow usize"),
    })?;
    let mut pairs = crate::alloc::with_capacity(op, (all - n) / 2)?;
    for i in 0..n {
        pairs.extend((i + 1..n).map(|j| (i * n + j) as i64));
    }
    let len = pairs.len();
    let pairs = Tensor::from_vec_on(pairs, [len], x.device_handle())?;
    cdist(x, x, p)
        .map_err(|e| e.invalid_named(op))?
        .try_reshape([all])?
        .try_index_select(0, &pairs)
}

/// `x / max(‖x‖_p, eps)` along `axis` (PyTorch `normalize`, defaults `p = 2`, `eps = 1e-12`).
///
/// # Errors
/// `Axis` for a bad axis; `InvalidArgument` for a `p` that is not a norm order.
pub fn normalize<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    p: f64,
    axis: i64,
    eps: f64,
) -> Result<Tensor<T, D>> {
    if p.is_nan() || p < 0.0 {
        return Err(Error::InvalidArgument {
            op: "normalize",
            msg: format!("p = {p} is not a norm order; use p >= 0 or f64::INFINITY"),
        });
    }
    x.shape().axis("normalize", axis)?;
    let norm = x.try_norm(p, &[axis], true)?;
    x.try_div(&norm.try_maximum_scalar(T::from_f64(eps))?)
}

/// The cosine of the angle between `x1` and `x2` along `axis` after broadcasting (PyTorch
/// `cosine_similarity`): each normalised by `max(‖x‖, eps)` first, then their dot product.
///
/// # Errors
/// `Broadcast` when the shapes do not broadcast; `Axis` for a bad axis.
pub fn cosine_similarity<T: FloatElement, D: Backend>(
    x1: &Tensor<T, D>,
    x2: &Tensor<T, D>,
    axis: i64,
    eps: f64,
) -> Result<Tensor<T, D>> {
    let v = Tensor::broadcast_for("cosine_similarity", &[x1, x2])?;
    let a = normalize(&v[0], 2.0, axis, eps)?;
    let b = normalize(&v[1], 2.0, axis, eps)?;
    a.try_mul(&b)?.try_sum(&[axis], false)
}

/// Local response normalisation across channels (PyTorch `local_response_norm`, AlexNet's):
/// `x / (k + α/n · Σ x²)^β` with the sum over the `n = size` channels from `c - n/2` to
/// `c + (n-1)/2` (zeros beyond the ends), for an `(N, C, ...)` input of at least 3 dimensions.
///
/// # Errors
/// `InvalidArgument` for fewer than 3 dimensions or `size` 0.
pub fn local_response_norm<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    size: usize,
    alpha: f64,
    beta: f64,
    k: f64,
) -> Result<Tensor<T, D>> {
    if x.ndim() < 3 || size == 0 {
        return Err(Error::InvalidArgument {
            op: "local_response_norm",
            msg: format!(
                "needs an (N, C, *) input of at least 3 dimensions and size > 0; got shape {} and size {size}",
                x.shape()
            ),
        });
    }
    let c = x.dims()[1];
    // Channels more than C away are outside the input anyway: the window is clamped to them,
    // so a huge `size` costs no more than 2·C + 1 slices.
    let (before, after) = ((size / 2).min(c), ((size - 1) / 2).min(c));
    let mut pads = vec![(0, 0); x.ndim()];
    pads[1] = (before, after);
    let sq = x.try_mul(x)?.try_pad(&pads, T::ZERO)?;
    let window = before + after + 1;
    let sum = if x.numel() == 0 || window <= 64 {
        // Slice by slice (exact sums); an empty input needs no pass at all, however many
        // (2^40) channels it has.
        let mut sum = sq.narrow(1, 0, c)?;
        for j in (1..window).take_while(|_| x.numel() > 0) {
            sum = sum.try_add(&sq.narrow(1, j, c)?)?;
        }
        sum
    } else {
        // Wide windows: differences of a running sum, O(C) rather than O(C · window).
        let mut z = sq.dims().to_vec();
        z[1] = 1;
        let run = Tensor::try_concat(&[&Tensor::zeros_on(z, x.device_handle())?, &sq], 1)?
            .try_cumsum(1)?;
        run.narrow(1, window, c)?.try_sub(&run.narrow(1, 0, c)?)?
    };
    let div = sum
        .try_mul_scalar(T::from_f64(alpha / size as f64))?
        .try_add_scalar(T::from_f64(k))?
        .try_pow(beta)?;
    x.try_div(&div)
}

/// `x1ᵀ·W·x2 + b` for each pair of rows (PyTorch `bilinear`): `x1` of shape `(*, in1)`,
/// `x2` of `(*, in2)` with the same leading shape, `weight` `(out, in1, in2)` and `bias`
/// `(out,)` give `(*, out)`.
///
/// # Errors
/// `InvalidArgument` naming the shapes when they do not fit together.
pub fn bilinear<T: FloatElement, D: Backend>(
    x1: &Tensor<T, D>,
    x2: &Tensor<T, D>,
    weight: &Tensor<T, D>,
    bias: Option<&Tensor<T, D>>,
) -> Result<Tensor<T, D>> {
    let (d1, d2, w) = (x1.dims(), x2.dims(), weight.dims());
    let fits = w.len() == 3
        && !d1.is_empty()
        && d1.len() == d2.len()
        && d1[..d1.len() - 1] == d2[..d2.len() - 1]
        && d1[d1.len() - 1] == w[1]
        && d2[d2.len() - 1] == w[2]
        && bias.is_none_or(|b| b.dims() == [w[0]]);
    if !fits {
        return Err(Error::InvalidArgument {
            op: "bilinear",
            msg: format!(
                "needs x1 (*, in1), x2 (*, in2), weight (out, in1, in2) and bias (out,); got {}, {}, {} and {}",
                x1.shape(),
                x2.shape(),
                weight.shape(),
                bias.map_or("none".to_string(), |b| b.shape().to_string())
            ),
        });
    }
    let lead = &d1[..d1.len() - 1];
    let n = crate::shape::numel_of(lead.iter().copied());
    let a = x1.try_reshape([n, w[1]])?;
    let b = x2.try_reshape([n, w[2]])?;
    // (n, in1) · (out, in1, in2) → (out, n, in2); times x2 summed over in2 → (out, n).
    let y = a
        .try_matmul(weight)?
        .try_mul(&b)?
        .try_sum(&[-1], false)?
        .t();
    let y = match bias {
        Some(b) => y.try_add(b)?,
        None => y,
    };
    let mut dims = lead.to_vec();
    dims.push(w[0]);
    y.try_reshape(dims)
}
