//! Bags of embeddings (PyTorch `embedding_bag`): the rows of an embedding table gathered per
//! index and reduced per bag, without the `(bags, length, dim)` intermediate of
//! `embedding(...).sum(1)`. Bags are the rows of a 2-d input, or runs of a 1-d input starting
//! at `offsets`; the bag of every index is worked out on the host, and the rows are summed
//! (`index_add`) or maximised (`scatter_reduce`) on the device, so it differentiates
//! everywhere.

use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::ops::scatter_reduce::ScatterReduce;
use crate::tensor::Tensor;

/// How [`embedding_bag`] reduces each bag (PyTorch's `mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BagMode {
    /// The sum of the bag's rows (each times its `per_sample_weights`, when given).
    Sum,
    /// Their mean.
    Mean,
    /// Their element-wise maximum.
    Max,
}

/// The positions of the indices that count (not `padding_idx`) and the bag of each, from a
/// 2-d input `(B, N)` or a 1-d input with `offsets`; with the number of bags.
fn bag_of<D: Backend>(
    op: &'static str,
    input: &Tensor<i64, D>,
    offsets: Option<&Tensor<i64, D>>,
    include_last_offset: bool,
    padding_idx: Option<i64>,
) -> Result<(Vec<i64>, Vec<i64>, usize)> {
    let values = input.try_to_vec()?;
    let n = values.len();
    // Each bag's (start, end) in the flattened input.
    let bounds: Vec<(usize, usize)> = match (input.ndim(), offsets) {
        (2, None) => {
            let (b, len) = (input.dims()[0], input.dims()[1]);
            // Fallible: an empty input may name 2^40 bags of nothing.
            crate::alloc::collect(op, b, (0..b).map(|i| (i * len, (i + 1) * len)))?
        }
        (1, Some(o)) if o.ndim() == 1 => {
            let o = o.try_to_vec()?;
            let ok = o.first().is_none_or(|&f| f == 0)
                && o.windows(2).all(|w| w[0] <= w[1])
                && o.last().is_none_or(|&l| l >= 0 && l as u64 <= n as u64);
            if !ok {
                return Err(Error::InvalidArgument {
                    op,
                    msg: format!(
                        "offsets must start at 0, never decrease and stay within the {n} indices, got {o:?}"
                    ),
                });
            }
            let o: Vec<usize> = o.into_iter().map(|v| v as usize).collect();
            if include_last_offset {
                // The last offset only closes the last bag (PyTorch's `include_last_offset`).
                o.windows(2).map(|w| (w[0], w[1])).collect()
            } else {
                (0..o.len())
                    .map(|b| (o[b], o.get(b + 1).copied().unwrap_or(n)))
                    .collect()
            }
        }
        _ => {
            return Err(Error::InvalidArgument {
                op,
                msg: format!(
                    "needs a 2-d input (bags, length) without offsets, or a 1-d input with 1-d offsets; got input {} and {}",
                    input.shape(),
                    offsets.map_or("no offsets".to_string(), |o| format!(
                        "offsets {}",
                        o.shape()
                    ))
                ),
            });
        }
    };
    let bags = bounds.len();
    let (mut keep, mut bag) = (Vec::new(), Vec::new());
    for (b, &(start, end)) in bounds.iter().enumerate() {
        for (i, &v) in values.iter().enumerate().take(end).skip(start) {
            if Some(v) != padding_idx {
                keep.push(i as i64);
                bag.push(b as i64);
            }
        }
    }
    Ok((keep, bag, bags))
}

/// The reduction of each bag of embedding rows (PyTorch `embedding_bag`): `weight` is
/// `(num_embeddings, dim)`; `input` holds Int64 row indices, `(B, N)` for `B` bags of `N`, or
/// 1-d with `offsets` marking where each bag starts (the last bag running to the end, or to the
/// last offset with `include_last_offset`). Indices equal to `padding_idx` are left out (of the
/// mean's count too). `per_sample_weights` (`input`'s shape) scales each row, for `Sum` only.
/// Returns `(B, dim)`; an empty bag gives zeros, as PyTorch. Differentiable in `weight` and
/// `per_sample_weights`; `Max`'s gradient goes to the elements equal to the maximum.
///
/// # Errors
/// `InvalidArgument` for a weight that is not 2-d, offsets that do not start at 0, decrease
/// or run past the input, an input that is neither 2-d nor 1-d with offsets, or
/// `per_sample_weights` with another mode or shape; `Index` for an index outside the table.
pub fn embedding_bag<T: FloatElement, D: Backend>(
    input: &Tensor<i64, D>,
    weight: &Tensor<T, D>,
    offsets: Option<&Tensor<i64, D>>,
    mode: BagMode,
    per_sample_weights: Option<&Tensor<T, D>>,
    include_last_offset: bool,
    padding_idx: Option<i64>,
) -> Result<Tensor<T, D>> {
    const OP: &str = "embedding_bag";
    let &[rows, dim] = weight.dims() else {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!(
                "the weight must be (num_embeddings, dim), got {}",
                weight.shape()
            ),
        });
    };
    if let Some(w) = per_sample_weights
        && (mode != BagMode::Sum || w.shape() != input.shape())
    {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!(
                "per_sample_weights need mode Sum and the input's shape {}, got {mode:?} and {}",
                input.shape(),
                w.shape()
            ),
        });
    }
    super::check_range(OP, input, rows, 0, weight.shape())?;
    let (keep, bag, bags) = bag_of(OP, input, offsets, include_last_offset, padding_idx)?;
    let dev = weight.device_handle();
    let mut counts = crate::alloc::try_vec(OP, bags, 0usize)?;
    for &b in &bag {
        counts[b as usize] += 1;
    }
    let k = keep.len();
    let keep = Tensor::<i64, D>::from_vec_on(keep, [k], dev)?;
    let bag = Tensor::<i64, D>::from_vec_on(bag, [k], dev)?;
    let flat = input
        .try_reshape([input.numel()])?
        .try_index_select(0, &keep)?;
    let mut picked = weight.try_index_select(0, &flat)?; // (k, dim)
    if let Some(w) = per_sample_weights {
        let w = w.try_reshape([w.numel()])?.try_index_select(0, &keep)?;
        picked = picked.try_mul(&w.unsqueeze(-1)?)?;
    }
    let zeros = Tensor::<T, D>::zeros_on([bags, dim], dev)?;
    match mode {
        BagMode::Sum => zeros.try_index_add(0, &bag, &picked, T::from_f64(1.0)),
        BagMode::Mean => {
            let scale = counts.iter().map(|&c| T::from_f64(1.0 / c.max(1) as f64));
            let scale = crate::alloc::collect(OP, bags, scale)?;
            let scale = Tensor::from_vec_on(scale, [bags, 1], dev)?;
            zeros
                .try_index_add(0, &bag, &picked, T::from_f64(1.0))?
                .try_mul(&scale)
        }
        BagMode::Max => {
            let at = bag.unsqueeze(-1)?.expand([k, dim])?.try_contiguous()?;
            zeros.try_scatter_reduce(0, &at, &picked, ScatterReduce::Amax, false)
        }
    }
}
