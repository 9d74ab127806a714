//! Margin and soft-margin losses with PyTorch's definitions (`margin_ranking_loss`,
//! `hinge_embedding_loss`, `cosine_embedding_loss`, `triplet_margin_loss`, `multi_margin_loss`,
//! `soft_margin_loss`, `multilabel_soft_margin_loss`, `multilabel_margin_loss`), each composed of
//! differentiable ops.
//!
//! ```
//! use typed_tensor::prelude::*;
//! use typed_tensor::nn::{self, Reduction};
//!
//! let x1 = tensor![0.5f32, 2.0];
//! let x2 = tensor![1.0f32, 1.0];
//! let y = tensor![1.0f32, -1.0];
//! let l = nn::margin_ranking_loss(&x1, &x2, &y, 0.0, Reduction::None)?;
//! assert_eq!(l.to_vec(), vec![0.5, 1.0]); // max(0, -y·(x1 - x2) + margin)
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use super::loss::{pair, reduce};
use super::{Reduction, pairwise_distance};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// `max(0, t)` element-wise.
fn hinge<T: FloatElement, D: Backend>(t: &Tensor<T, D>) -> Result<Tensor<T, D>> {
    t.try_maximum_scalar(T::ZERO)
}

/// `max(0, -y·(x1 - x2) + margin)` reduced (PyTorch `margin_ranking_loss`): `y = 1` asks
/// for `x1` to rank above `x2`, `y = -1` below. The three shapes broadcast.
///
/// # Errors
/// `Broadcast` when the shapes do not broadcast.
pub fn margin_ranking_loss<T: FloatElement, D: Backend>(
    x1: &Tensor<T, D>,
    x2: &Tensor<T, D>,
    target: &Tensor<T, D>,
    margin: f64,
    reduction: Reduction,
) -> Result<Tensor<T, D>> {
    let op = "margin_ranking_loss";
    pair(op, x1, x2)?;
    pair(op, x1, target)?;
    let d = target.try_mul(&x1.try_sub(x2)?)?.try_neg()?;
    reduce(hinge(&d.try_add_scalar(T::from_f64(margin))?)?, reduction)
}

/// `x` where `y = 1`, `max(0, margin - x)` where `y = -1`, both where `y` is neither (PyTorch
/// `hinge_embedding_loss`, whose formula this is).
///
/// # Errors
/// `Broadcast` when the shapes do not broadcast.
pub fn hinge_embedding_loss<T: FloatElement, D: Backend>(
    input: &Tensor<T, D>,
    target: &Tensor<T, D>,
    margin: f64,
    reduction: Reduction,
) -> Result<Tensor<T, D>> {
    pair("hinge_embedding_loss", input, target)?;
    let zero = Tensor::scalar_on(T::ZERO, input.device_handle())?;
    let below = hinge(&input.try_rsub_scalar(T::from_f64(margin))?)?;
    let from_margin = Tensor::try_where(&target.try_ne_scalar(T::ONE)?, &below, &zero)?;
    let from_self = Tensor::try_where(&target.try_ne_scalar(T::from_f64(-1.0))?, input, &zero)?;
    reduce(from_margin.try_add(&from_self)?, reduction)
}

/// `1 - cos(x1, x2)` where `y = 1`, `max(0, cos(x1, x2) - margin)` where `y = -1`, 0
/// otherwise (PyTorch `cosine_embedding_loss`): the cosine over the last axis of `(N, D)` or
/// `(D,)` inputs, with PyTorch's `1e-12` added to each squared magnitude. `target` is `(N,)`
/// (or 0-d).
///
/// # Errors
/// `InvalidArgument` unless `x1` and `x2` have one shape of 1 or 2 dimensions and `target`
/// one entry per row.
pub fn cosine_embedding_loss<T: FloatElement, D: Backend>(
    x1: &Tensor<T, D>,
    x2: &Tensor<T, D>,
    target: &Tensor<T, D>,
    margin: f64,
    reduction: Reduction,
) -> Result<Tensor<T, D>> {
    let op = "cosine_embedding_loss";
    let rows = &x1.dims()[..x1.ndim().saturating_sub(1)];
    if x1.shape() != x2.shape() || !(1..=2).contains(&x1.ndim()) || target.dims() != rows {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "expects inputs of one shape (N, D) or (D,) and a target (N,) or (), got {}, {} and {}",
                x1.shape(),
                x2.shape(),
                target.shape()
            ),
        });
    }
    let eps = T::from_f64(1e-12);
    let dot = x1.try_mul(x2)?.try_sum(&[-1], false)?;
    let m1 = x1.try_mul(x1)?.try_sum(&[-1], false)?.try_add_scalar(eps)?;
    let m2 = x2.try_mul(x2)?.try_sum(&[-1], false)?.try_add_scalar(eps)?;
    let cos = dot.try_div(&m1.try_mul(&m2)?.try_sqrt()?)?;
    let zero = Tensor::scalar_on(T::ZERO, x1.device_handle())?;
    let pos = Tensor::try_where(
        &target.try_eq_scalar(T::ONE)?,
        &cos.try_rsub_scalar(T::ONE)?,
        &zero,
    )?;
    let neg = hinge(&cos.try_sub_scalar(T::from_f64(margin))?)?;
    let neg = Tensor::try_where(&target.try_eq_scalar(T::from_f64(-1.0))?, &neg, &zero)?;
    reduce(pos.try_add(&neg)?, reduction)
}

/// `max(0, margin + d(a, p) - d(a, n))` with `d` the [`pairwise_distance`] of order `p`
/// (PyTorch `triplet_margin_loss`; with `swap`, `d(a, n)` is the smaller of it and `d(p, n)`).
///
/// # Errors
/// As [`pairwise_distance`].
#[allow(clippy::too_many_arguments)]
pub fn triplet_margin_loss<T: FloatElement, D: Backend>(
    anchor: &Tensor<T, D>,
    positive: &Tensor<T, D>,
    negative: &Tensor<T, D>,
    margin: f64,
    p: f64,
    eps: f64,
    swap: bool,
    reduction: Reduction,
) -> Result<Tensor<T, D>> {
    let d_ap = pairwise_distance(anchor, positive, p, eps)?;
    let mut d_an = pairwise_distance(anchor, negative, p, eps)?;
    if swap {
        d_an = d_an.try_minimum(&pairwise_distance(positive, negative, p, eps)?)?;
    }
    let l = d_ap.try_sub(&d_an)?.try_add_scalar(T::from_f64(margin))?;
    reduce(hinge(&l)?, reduction)
}

/// A distance between two batches of embeddings, for
/// [`triplet_margin_with_distance_loss`]: `(x1, x2) -> d`, one value per sample.
pub type DistanceFn<'a, T, D> = &'a dyn Fn(&Tensor<T, D>, &Tensor<T, D>) -> Result<Tensor<T, D>>;

/// `max(0, margin + d(a, p) - d(a, n))` with any distance `d` (PyTorch
/// `triplet_margin_with_distance_loss`; `None` is [`pairwise_distance`] with `p = 2`,
/// `eps = 1e-6`; with `swap`, `d(a, n)` is the smaller of it and `d(p, n)`).
///
/// ```
/// use typed_tensor::prelude::*;
/// use typed_tensor::nn::{Reduction, triplet_margin_with_distance_loss};
/// let a = Tensor::<f64>::from_vec(vec![0.0, 0.0], [1, 2])?;
/// let p = Tensor::<f64>::from_vec(vec![1.0, 0.0], [1, 2])?;
/// let n = Tensor::<f64>::from_vec(vec![0.0, 3.0], [1, 2])?;
/// let l1 = |x: &Tensor<f64>, y: &Tensor<f64>| x.try_sub(y)?.try_abs()?.try_sum(&[-1], false);
/// let loss = triplet_margin_with_distance_loss(&a, &p, &n, Some(&l1), 2.5, false, Reduction::Mean)?;
/// assert_eq!(loss.item(), 0.5); // 2.5 + 1 - 3
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `InvalidArgument` for a margin that is not positive or inputs of different ranks; the
/// distance's errors.
#[allow(clippy::too_many_arguments)]
pub fn triplet_margin_with_distance_loss<T: FloatElement, D: Backend>(
    anchor: &Tensor<T, D>,
    positive: &Tensor<T, D>,
    negative: &Tensor<T, D>,
    distance: Option<DistanceFn<'_, T, D>>,
    margin: f64,
    swap: bool,
    reduction: Reduction,
) -> Result<Tensor<T, D>> {
    let op = "triplet_margin_with_distance_loss";
    let ranks = (anchor.ndim(), positive.ndim(), negative.ndim());
    if margin.is_nan() || margin <= 0.0 || ranks.0 != ranks.1 || ranks.0 != ranks.2 {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "needs a positive margin (got {margin}) and inputs of one rank (got {}, {} and {})",
                anchor.shape(),
                positive.shape(),
                negative.shape()
            ),
        });
    }
    let default = |x: &Tensor<T, D>, y: &Tensor<T, D>| pairwise_distance(x, y, 2.0, 1e-6);
    let d = distance.unwrap_or(&default);
    let d_ap = d(anchor, positive)?;
    let mut d_an = d(anchor, negative)?;
    if swap {
        d_an = d_an.try_minimum(&d(positive, negative)?)?;
    }
    let l = d_ap.try_sub(&d_an)?.try_add_scalar(T::from_f64(margin))?;
    reduce(hinge(&l)?, reduction)
}

/// The multi-class hinge loss of `(N, C)` scores (or `(C,)`) against class indices (PyTorch
/// `multi_margin_loss` without weights): per sample `Σ_{i ≠ y} max(0, margin - x[y] +
/// x[i])^p / C`, with `p` 1 or 2.
///
/// # Errors
/// `InvalidArgument` for `p` other than 1 or 2 or shapes that do not fit; `Index` for a
/// class outside `0..C`.
pub fn multi_margin_loss<T: FloatElement, D: Backend>(
    input: &Tensor<T, D>,
    target: &Tensor<i64, D>,
    p: u32,
    margin: f64,
    reduction: Reduction,
) -> Result<Tensor<T, D>> {
    let op = "multi_margin_loss";
    let fits = match input.ndim() {
        1 => target.ndim() == 0,
        2 => target.dims() == [input.dims()[0]],
        _ => false,
    };
    if !fits || !(1..=2).contains(&p) || input.dims()[input.ndim() - 1] == 0 {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "expects (N, C) or (C,) scores with C > 0, a target (N,) or (), and p 1 or 2; got {}, {} and p = {p}",
                input.shape(),
                target.shape()
            ),
        });
    }
    let c = input.dims()[input.ndim() - 1];
    let y = target.unsqueeze(-1)?;
    let at_y = input.try_gather(-1, &y).map_err(|e| e.index_named(op))?;
    let m = hinge(&input.try_sub(&at_y)?.try_add_scalar(T::from_f64(margin))?)?;
    let m = if p == 2 { m.try_mul(&m)? } else { m };
    // The target class's own term (margin^p) is left out by zeroing it.
    let own = input.try_zeros_like()?.try_scatter_value(-1, &y, T::ONE)?;
    let per = m
        .try_mul(&own.try_rsub_scalar(T::ONE)?)?
        .try_sum(&[-1], false)?
        .try_div_scalar(T::from_f64(c as f64))?;
    reduce(per, reduction)
}

/// `log(1 + exp(-y·x))` reduced (PyTorch `soft_margin_loss`), for targets ±1.
///
/// # Errors
/// `Broadcast` when the shapes do not broadcast.
pub fn soft_margin_loss<T: FloatElement, D: Backend>(
    input: &Tensor<T, D>,
    target: &Tensor<T, D>,
    reduction: Reduction,
) -> Result<Tensor<T, D>> {
    pair("soft_margin_loss", input, target)?;
    reduce(target.try_mul(input)?.try_neg()?.try_softplus()?, reduction)
}

/// The mean over the `C` classes of `-(y·log σ(x) + (1 - y)·log σ(-x))` for `(N, C)` scores
/// and 0/1 targets, then reduced over the samples (PyTorch `multilabel_soft_margin_loss`
/// without weights).
///
/// # Errors
/// `Broadcast` when the shapes do not broadcast; `Axis` for a 0-d input.
pub fn multilabel_soft_margin_loss<T: FloatElement, D: Backend>(
    input: &Tensor<T, D>,
    target: &Tensor<T, D>,
    reduction: Reduction,
) -> Result<Tensor<T, D>> {
    pair("multilabel_soft_margin_loss", input, target)?;
    input.shape().axis("multilabel_soft_margin_loss", -1)?;
    let pos = target.try_mul(&input.try_logsigmoid()?)?;
    let neg = target
        .try_rsub_scalar(T::ONE)?
        .try_mul(&input.try_neg()?.try_logsigmoid()?)?;
    let per = pos.try_add(&neg)?.try_neg()?.try_mean(&[-1], false)?;
    reduce(per, reduction)
}

/// The multi-label hinge loss (PyTorch `multilabel_margin_loss`): for scores `x` of shape
/// `(N, C)` (or `(C)`) and a target of the same shape holding each sample's classes followed
/// by `-1` (the rest is ignored), `Σ_j Σ_{i ∉ targets} max(0, 1 - (x[y_j] - x[i])) / C` per
/// sample, then reduced. The targets are read back to the host to build the masks.
///
/// # Errors
/// `InvalidArgument` when the shapes differ or are not 1-d/2-d; `Index` for a class outside
/// `-1..C` (-1 ends a sample's list).
pub fn multilabel_margin_loss<T: FloatElement, D: Backend>(
    input: &Tensor<T, D>,
    target: &Tensor<i64, D>,
    reduction: Reduction,
) -> Result<Tensor<T, D>> {
    const OP: &str = "multilabel_margin_loss";
    if input.dims() != target.dims() || !(1..=2).contains(&input.ndim()) {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!(
                "needs scores (N, C) or (C) and a target of the same shape; got {} and {}",
                input.shape(),
                target.shape()
            ),
        });
    }
    let unbatched = input.ndim() == 1;
    let (x, y) = if unbatched {
        (input.unsqueeze(0)?, target.unsqueeze(0)?)
    } else {
        (input.clone(), target.clone())
    };
    let (n, c) = (x.dims()[0], x.dims()[1]);
    let ys = y.try_to_vec()?;
    if let Some(&bad) = ys.iter().find(|&&v| v < -1 || v >= c as i64) {
        return Err(Error::Index {
            op: OP,
            index: bad,
            dim: input.ndim() - 1,
            size: c,
            shape: input.shape().clone(),
        });
    }
    // Per sample: the classes before the first -1 (index, valid) padded to the longest, and
    // whether each class is a target.
    let rows = (0..n).map(|r| {
        let row = &ys[r * c..(r + 1) * c];
        &row[..row.iter().position(|&v| v < 0).unwrap_or(c)]
    });
    // Fallibly: an empty input may have a huge N.
    let lists: Vec<&[i64]> = crate::alloc::collect(OP, n, rows)?;
    let k = lists.iter().map(|l| l.len()).max().unwrap_or(0);
    let mut idx = crate::alloc::try_vec(OP, n * k, 0i64)?;
    let mut valid = crate::alloc::try_vec(OP, n * k, T::ZERO)?;
    let mut other = crate::alloc::try_vec(OP, n * c, T::ONE)?;
    for (r, l) in lists.iter().enumerate() {
        for (j, &cls) in l.iter().enumerate() {
            idx[r * k + j] = cls;
            valid[r * k + j] = T::ONE;
            other[r * c + cls as usize] = T::ZERO;
        }
    }
    let dev = x.device_handle();
    let idx = Tensor::from_vec_on(idx, [n, k], dev)?;
    let valid = Tensor::from_vec_on(valid, [n, k, 1], dev)?;
    let other = Tensor::from_vec_on(other, [n, 1, c], dev)?;
    // margins[r, j, i] = max(0, 1 - x[r, y_j] + x[r, i]) over target j and non-target i.
    let xt = x.try_gather(1, &idx)?.unsqueeze(2)?;
    let m = hinge(&x.unsqueeze(1)?.try_sub(&xt)?.try_add_scalar(T::ONE)?)?;
    let per = m
        .try_mul(&valid)?
        .try_mul(&other)?
        .try_sum(&[1, 2], false)?
        .try_div_scalar(T::from_f64(c as f64))?;
    let per = if unbatched {
        per.try_reshape([0usize; 0])?
    } else {
        per
    };
    reduce(per, reduction)
}
