//! The reduction and scan rules: `sum`/`mean`, `nansum`/`nanmean`, `max`/`min`, `var`/`std`,
//! `product`, `cumprod`, `norm`.

use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::tensor::Tensor;

/// The gradient of `product` over the axes in `mask`: each element gets `g` times the product
/// of the *other* elements of its slice, from exclusive prefix and suffix products, so zeros
/// are handled exactly (no division).
pub(super) fn prod_backward<F: FloatElement, D: Backend>(
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

/// The gradient of `cumprod` along `ax` from the input `x` and the output `y`.
pub(super) fn cumprod_backward<F: FloatElement, D: Backend>(
    g: &Tensor<F, D>,
    x: &Tensor<F, D>,
    y: &Tensor<F, D>,
    ax: usize,
) -> Result<Tensor<F, D>> {
    // y_i = Π_{j≤i} x_j, so dL/dx_j = Σ_{i≥j} g_i y_i / x_j where no x is 0.
    let a = ax as i64;
    let c = |v: f64| Tensor::<F, D>::scalar_on(F::from_f64(v), &g.device);
    let (zero, one) = (c(0.0)?, c(1.0)?);
    // Σ_{i≥j} t_i along the axis: a reversed running sum.
    let tail = |t: &Tensor<F, D>| t.flip(&[a])?.try_cumsum(a)?.flip(&[a]);
    let is0 = x.try_eq(&zero)?;
    if !is0.try_any(&[], false)?.try_item()? {
        return tail(&g.try_mul(y)?)?.try_div(x);
    }
    if super::graph_mode() {
        return cumprod_backward_products(g, x, ax);
    }
    // With zeros (as PyTorch's `cumprod_backward`), z being a slice's first zero: before
    // z the formula holds (x_j ≠ 0, and y_i = 0 from z on); after z every product holds
    // x_z, so the gradient is 0; at z it is Π_{k<z} x_k · Σ_{i≥z} g_i Π_{z<k≤i} x_k.
    let zeros_so_far = is0.try_cast::<F>()?.try_cumsum(a)?;
    let before = zeros_so_far.try_eq(&zero)?;
    let first = is0.try_logical_and(&zeros_so_far.try_eq(&one)?)?;
    let head = Tensor::try_where(&before, x, &one)?;
    let lead = tail(&g.try_mul(y)?)?.try_div(&head)?;
    let through_z = before.try_logical_or(&first)?;
    let after = Tensor::try_where(&through_z, &one, x)?.try_cumprod(a)?;
    let at_z = Tensor::try_where(&before, &zero, &g.try_mul(&after)?)?
        .try_sum(&[a], true)?
        .try_mul(&head.try_product(&[a], true)?)?;
    let rest = Tensor::try_where(&first, &at_z, &zero)?;
    Tensor::try_where(&before, &lead, &rest)
}

/// [`cumprod_backward`] through zeros as a polynomial of recorded ops, so a `create_graph`
/// pass differentiates it again (the masked formula's constant pieces would not):
/// `dL/dx_j = Π_{k<j} x_k · Σ_{i≥j} g_i Π_{j<k≤i} x_k`, the inner products from one `cumprod`
/// of an `(n, n)` matrix per slice, so it costs `n²` elements per slice along the axis.
fn cumprod_backward_products<F: FloatElement, D: Backend>(
    g: &Tensor<F, D>,
    x: &Tensor<F, D>,
    ax: usize,
) -> Result<Tensor<F, D>> {
    let a = ax as i64;
    let (xm, gm) = (x.movedim(&[a], &[-1])?, g.movedim(&[a], &[-1])?);
    let n = xm.dims()[xm.ndim() - 1];
    if n == 0 || xm.numel() == 0 {
        return Tensor::zeros_on(x.dims(), &g.device);
    }
    let dev = &g.device;
    let ones = Tensor::<F, D>::ones_on(&xm.dims()[..xm.ndim() - 1], dev)?.unsqueeze(-1)?;
    let before = Tensor::try_concat(&[&ones, &xm.narrow(-1, 0, n - 1)?], -1)?.try_cumprod(-1)?;
    // later[j][k] = k > j; upto[j][i] = i >= j.
    let idx = Tensor::<i64, D>::arange_on(0, n as i64, 1, dev)?;
    let (rows, cols) = (idx.unsqueeze(1)?, idx.unsqueeze(0)?);
    let later = cols.try_gt(&rows)?;
    let upto = cols.try_ge(&rows)?;
    let one = Tensor::<F, D>::scalar_on(F::ONE, dev)?;
    let zero = Tensor::<F, D>::scalar_on(F::ZERO, dev)?;
    let runs = Tensor::try_where(&later, &xm.unsqueeze(-2)?, &one)?.try_cumprod(-1)?;
    let terms = Tensor::try_where(&upto, &runs.try_mul(&gm.unsqueeze(-2)?)?, &zero)?;
    let d = before.try_mul(&terms.try_sum(&[-1], false)?)?;
    d.movedim(&[-1], &[a])?.try_contiguous()
}

/// The gradient of the `p`-norm over the axes in `mask` from the input `x` and the output `y`.
pub(super) fn norm_backward<F: FloatElement, D: Backend>(
    g: &Tensor<F, D>,
    x: &Tensor<F, D>,
    y: &Tensor<F, D>,
    p: f64,
    mask: &[bool],
) -> Result<Tensor<F, D>> {
    // PyTorch's `linalg_vector_norm_backward`, y = ‖x‖_p: d/dx = sgn(x) |x|^(p-1) /
    // y^(p-1), taken as 0 where y = 0 (p > 1) or where x = 0 (p < 1).
    let c = |v: f64| Tensor::<F, D>::scalar_on(F::from_f64(v), &g.device);
    let zero = c(0.0)?;
    let kept = keep_shape(x, mask);
    let (y, g) = (y.try_reshape(kept.clone())?, g.try_reshape(kept)?);
    let grad = if p == 2.0 {
        let scale = Tensor::try_where(&y.try_eq(&zero)?, &zero, &g.try_div(&y)?)?;
        x.try_mul(&scale)?
    } else {
        let d = x
            .try_sign()?
            .try_mul(&x.try_abs()?.try_pow(&c(p - 1.0)?)?)?;
        if p > 1.0 {
            let scale = g.try_div(&y.try_pow(&c(p - 1.0)?)?)?;
            d.try_mul(&Tensor::try_where(&y.try_eq(&zero)?, &zero, &scale)?)?
        } else {
            let d = Tensor::try_where(&x.try_eq(&zero)?, &zero, &d)?;
            d.try_mul(&g.try_mul(&y.try_pow(&c(1.0 - p)?)?)?)?
        }
    };
    Ok(grad)
}

/// `x`'s shape with the axes in `mask` as size 1 (a keepdim reduction's shape).
pub(super) fn keep_shape<F: FloatElement, D: Backend>(
    x: &Tensor<F, D>,
    mask: &[bool],
) -> Vec<usize> {
    (x.dims().iter().zip(mask))
        .map(|(&d, &m)| if m { 1 } else { d })
        .collect()
}

/// The axes set in `mask`.
pub(super) fn axes_of(mask: &[bool]) -> Vec<i64> {
    (0..mask.len())
        .filter(|&i| mask[i])
        .map(|i| i as i64)
        .collect()
}

/// `sum`'s (`mean`: `mean`'s) rule over the axes in `mask`: `g` broadcast back to `x`'s shape.
pub(super) fn sum_backward<F: FloatElement, D: Backend>(
    g: &Tensor<F, D>,
    x: &Tensor<F, D>,
    mask: &[bool],
    mean: bool,
) -> Result<Tensor<F, D>> {
    // Put the reduced axes back as size 1, then broadcast to the input's shape.
    let kept: Vec<usize> = (x.dims().iter().zip(mask))
        .map(|(&d, &m)| if m { 1 } else { d })
        .collect();
    let mut gx = g.try_reshape(kept)?.expand(x.shape().clone())?;
    if mean {
        let n = crate::shape::numel_of(
            (x.dims().iter().zip(mask))
                .filter(|(_, m)| **m)
                .map(|(&d, _)| d),
        );
        gx = gx.try_div_scalar(F::from_f64(n as f64))?;
    }
    gx.try_contiguous()
}

/// `nansum`'s (`mean`: `nanmean`'s) rule: `g` where `x` is not NaN, 0 at the NaNs.
pub(super) fn nansum_backward<F: FloatElement, D: Backend>(
    g: &Tensor<F, D>,
    x: &Tensor<F, D>,
    mask: &[bool],
    mean: bool,
) -> Result<Tensor<F, D>> {
    let kept = x.try_is_nan()?.try_logical_not()?.try_cast::<F>()?;
    let mut g = g.try_reshape(keep_shape(x, mask))?;
    if mean {
        g = g.try_div(&kept.try_sum(&axes_of(mask), true)?)?;
    }
    kept.try_mul(&g)
}

/// The rule of `max`/`min`/`amax`/`amin` over `mask`, from the input `x` and result `y`.
pub(super) fn extreme_backward<F: FloatElement, D: Backend>(
    g: &Tensor<F, D>,
    (x, y): (&Tensor<F, D>, &Tensor<F, D>),
    mask: &[bool],
    keepdim: bool,
) -> Result<Tensor<F, D>> {
    let kept = keep_shape(x, mask);
    let (y, g) = if keepdim {
        (y.clone(), g.clone())
    } else {
        (y.try_reshape(kept.clone())?, g.try_reshape(kept)?)
    };
    // PyTorch's `evenly_distribute_backward`: a NaN result came from the NaNs.
    let nan = x.try_is_nan()?.try_logical_and(&y.try_is_nan()?)?;
    let hit = x.try_eq(&y)?.try_logical_or(&nan)?.try_cast::<F>()?;
    let axes = axes_of(mask);
    let count = hit.try_sum(&axes, true)?;
    hit.try_mul(&g.try_div(&count)?)
}

/// `var`'s (`std`: `std`'s) rule over `mask` with `correction`, from `x` and the result `y`.
pub(super) fn var_backward<F: FloatElement, D: Backend>(
    g: &Tensor<F, D>,
    (x, y): (&Tensor<F, D>, &Tensor<F, D>),
    mask: &[bool],
    (correction, std): (f64, bool),
) -> Result<Tensor<F, D>> {
    let c = |v: f64| Tensor::<F, D>::scalar_on(F::from_f64(v), &g.device);
    // var = Σ(x - mean)² / (n - correction): d/dx = 2 (x - mean) / (n - correction);
    // std = sqrt(var): d/dx = (x - mean) / ((n - correction) std), 0 where std = 0.
    let kept = keep_shape(x, mask);
    let n = crate::shape::numel_of(
        (x.dims().iter().zip(mask))
            .filter(|(_, m)| **m)
            .map(|(&d, _)| d),
    );
    let dof = F::from_f64((n as f64 - correction).max(0.0));
    let axes = axes_of(mask);
    let centred = x.try_sub(&x.try_mean(&axes, true)?)?;
    let g = g.try_reshape(kept.clone())?;
    let scale = if std {
        // 0 where std = 0 (a constant slice), as PyTorch's `std_backward`.
        let y = y.try_reshape(kept)?;
        let inv = y.try_mul_scalar(dof)?.try_reciprocal()?;
        Tensor::try_where(&y.try_eq(&c(0.0)?)?, &c(0.0)?, &inv)?
    } else {
        c(2.0)?.try_div_scalar(dof)?
    };
    centred.try_mul(&g.try_mul(&scale)?)
}
