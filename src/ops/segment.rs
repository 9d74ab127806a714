//! `segment_reduce` (PyTorch's): runs of consecutive elements along one axis, given by their
//! lengths or offsets, each reduced to one value. The segments are read once on the host (as
//! PyTorch reads them to check them), which gives every element its segment; the forward is
//! one `scatter_reduce` into the segments, and the backward, one `custom` node, gathers the
//! gradient back with device ops, so both run on every device.
//!
//! ```
//! use typed_tensor::prelude::*;
//! use typed_tensor::ops::segment::{SegmentReduce, Segments};
//!
//! let x = tensor![1.0f32, 3.0, 2.0, 5.0, 4.0];
//! let lengths = tensor![2i64, 0, 3];
//! let s = x.segment_reduce(SegmentReduce::Sum, Segments::Lengths(&lengths), 0, None);
//! assert_eq!(s.to_vec(), vec![4.0, 0.0, 11.0]);
//! let m = x.segment_reduce(SegmentReduce::Max, Segments::Lengths(&lengths), 0, None);
//! assert_eq!(m.to_vec(), vec![3.0, f32::NEG_INFINITY, 5.0]);
//! let offsets = tensor![0i64, 2, 5];
//! let mean = x.segment_reduce(SegmentReduce::Mean, Segments::Offsets(&offsets), 0, Some(1.0));
//! assert_eq!(mean.to_vec(), vec![2.5, 4.0]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use super::scatter_reduce::ScatterReduce;
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, OrPanic, Result};
use crate::tensor::Tensor;

/// How [`Tensor::try_segment_reduce`] reduces each segment (PyTorch's `reduce` argument).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentReduce {
    /// The sum; an empty segment gives 0.
    Sum,
    /// The mean; an empty segment gives NaN.
    Mean,
    /// The maximum (NaN propagates); an empty segment gives -inf.
    Max,
    /// The minimum (NaN propagates); an empty segment gives +inf.
    Min,
    /// The product; an empty segment gives 1.
    Prod,
}

/// Where the segments of [`Tensor::try_segment_reduce`] lie along its axis.
#[derive(Clone, Copy, Debug)]
pub enum Segments<'a, D: Backend> {
    /// Each segment's length, shape `data.shape[..axis] + [segments]`; each row sums to the
    /// axis' length, the segments following one another from 0.
    Lengths(&'a Tensor<i64, D>),
    /// Each segment's start and, last, the end of the last, shape `data.shape[..axis] +
    /// [segments + 1]`, non-decreasing within `0..=data.shape[axis]`; elements before the
    /// first start or after the last end belong to no segment (PyTorch's `offsets`).
    Offsets(&'a Tensor<i64, D>),
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// Each segment of consecutive elements along `axis` reduced by `reduce` (PyTorch
    /// `segment_reduce`): the result has shape `data.shape[..axis] + [segments] +
    /// data.shape[axis+1..]`. The reduction starts from `initial` when given (the result of an
    /// empty segment; a mean divides `initial` plus the sum by the length), otherwise from the
    /// identities of [`SegmentReduce`]. Differentiable in `self`, with PyTorch's rules: a
    /// maximum or minimum's gradient is shared evenly by the elements equal to it or NaN
    /// (PyTorch divides only positive gradients among ties, a bug this does not copy), a
    /// product's is the product of the others, computed explicitly for a 0 or NaN element.
    /// The segments are always checked (PyTorch's `unsafe=False`); they are read back once.
    ///
    /// # Errors
    /// `InvalidArgument` naming `segment_reduce` for a 0-d `self`, an `axis` out of range,
    /// lengths or offsets whose last dimension is not `axis` or whose leading dimensions
    /// differ from `self`'s, a negative length, rows of lengths not summing to the axis'
    /// length, offsets that decrease or leave `0..=data.shape[axis]`; `Device` when they lie
    /// on another device.
    pub fn try_segment_reduce(
        &self,
        reduce: SegmentReduce,
        segments: Segments<'_, D>,
        axis: i64,
        initial: Option<T>,
    ) -> Result<Self> {
        let op = "segment_reduce";
        let fail = |msg: String| Err(Error::InvalidArgument { op, msg });
        if self.ndim() == 0 {
            return fail("needs a tensor of at least one dimension, got a 0-d one".into());
        }
        let ax = self.shape().axis(op, axis)?;
        let (seg, is_offsets) = match segments {
            Segments::Lengths(l) => (l, false),
            Segments::Offsets(o) => (o, true),
        };
        super::device_ops::same_device(op, self, seg)?;
        let sd = seg.dims();
        if sd.len() != ax + 1 {
            return fail(format!(
                "expected axis {ax} to be the last dimension of the {} (shape {}); give them \
                 shape data.shape[..axis] + [segments]",
                if is_offsets { "offsets" } else { "lengths" },
                seg.shape()
            ));
        }
        if sd[..ax] != self.dims()[..ax] {
            return fail(format!(
                "the segments' leading dimensions {:?} differ from the data's {:?} (shape {})",
                &sd[..ax],
                &self.dims()[..ax],
                self.shape()
            ));
        }
        let n = self.dims()[ax];
        let count = match is_offsets {
            false => sd[ax],
            true if sd[ax] == 0 => return fail("needs at least one offset".into()),
            true => sd[ax] - 1,
        };
        let bounds = segment_bounds(op, &seg.try_to_vec()?, sd[ax], n, is_offsets)?;
        let mut out_dims = self.dims().to_vec();
        out_dims[ax] = count;
        let empty = initial.unwrap_or(match reduce {
            SegmentReduce::Sum => T::ZERO,
            SegmentReduce::Mean => T::from_f64(f64::NAN),
            SegmentReduce::Max => T::from_f64(f64::NEG_INFINITY),
            SegmentReduce::Min => T::from_f64(f64::INFINITY),
            SegmentReduce::Prod => T::ONE,
        });
        let dev = self.device_handle().clone();
        if self.numel() == 0 {
            // No element to place (the axis or a later one is empty): every segment is empty.
            return Self::full_on(out_dims, empty, &dev);
        }
        // Every element's segment, `count` for those in none (a spare row, cut off after).
        let b: usize = self.dims()[..ax].iter().product();
        let mut ids = crate::alloc::try_vec(op, b * n, count as i64)?;
        for (row, ends) in ids.chunks_mut(n.max(1)).zip(bounds.chunks(count + 1)) {
            for (s, w) in ends.windows(2).enumerate() {
                row[w[0]..w[1]].fill(s as i64);
            }
        }
        let spare = usize::from(bounds.chunks(count + 1).any(|e| e[0] > 0 || e[count] < n));
        let rows = count + spare;
        let mut id_dims = vec![1; self.ndim()];
        id_dims[..=ax].copy_from_slice(&self.dims()[..=ax]);
        let idx = Tensor::<i64, D>::from_vec_on(ids, id_dims, &dev)?
            .expand(self.shape().clone())?
            .try_contiguous()?;
        // Each segment's length as `T`, broadcasting against the result.
        let mut len_dims = out_dims.clone();
        len_dims[ax] = rows;
        len_dims[ax + 1..].fill(1);
        let lens: Vec<T> = (bounds.chunks(count + 1))
            .flat_map(|e| {
                let spare = (spare == 1).then_some(T::ONE);
                (e.windows(2).map(|w| T::from_f64((w[1] - w[0]) as f64))).chain(spare)
            })
            .collect();
        let lens = Tensor::from_vec_on(lens, len_dims, &dev)?;
        let mut rows_dims = out_dims.clone();
        rows_dims[ax] = rows;
        let a = ax as i64;
        let (idx2, lens2) = (idx.clone(), lens.clone());
        let full = crate::autograd::custom(
            op,
            &[self],
            |x| {
                let start = Self::full_on(rows_dims.clone(), initial.unwrap_or(empty), &dev)?;
                let (how, start) = match reduce {
                    SegmentReduce::Sum => (ScatterReduce::Sum, start),
                    SegmentReduce::Prod => (ScatterReduce::Prod, start),
                    SegmentReduce::Max => (ScatterReduce::Amax, start),
                    SegmentReduce::Min => (ScatterReduce::Amin, start),
                    SegmentReduce::Mean => {
                        let base =
                            Self::full_on(rows_dims.clone(), initial.unwrap_or(T::ZERO), &dev)?;
                        let sum =
                            base.try_scatter_reduce(a, &idx, &x[0], ScatterReduce::Sum, true)?;
                        // 0/0 is NaN without `initial`; with it an empty segment keeps it.
                        let by = match initial {
                            Some(_) => lens.try_maximum_scalar(T::ONE)?,
                            None => lens.clone(),
                        };
                        return sum.try_div(&by);
                    }
                };
                start.try_scatter_reduce(a, &idx, &x[0], how, true)
            },
            move |g, x, y| {
                let at = (a, count, spare == 1);
                segment_backward(reduce, initial, at, &idx2, &lens2, g, &x[0], y)
                    .map(|g| vec![Some(g)])
            },
        )?;
        full.narrow(a, 0, count)
    }

    plain_forms! {
        /// [`Tensor::try_segment_reduce`], panicking with its error.
        segment_reduce, try_segment_reduce(reduce: SegmentReduce, segments: Segments<'_, D>, axis: i64, initial: Option<T>) -> Self;
    }
}

/// Each row's segment bounds (`segments + 1` of them) from its lengths or offsets, checked;
/// empty when there are no lengths (then the axis must be empty, and so is the data).
fn segment_bounds(
    op: &'static str,
    values: &[i64],
    per_row: usize,
    n: usize,
    is_offsets: bool,
) -> Result<Vec<usize>> {
    let fail = |msg: String| Err(Error::InvalidArgument { op, msg });
    if per_row == 0 {
        return match n {
            0 => Ok(Vec::new()),
            _ => fail(format!("no segments cannot hold the axis' {n} elements")),
        };
    }
    if let Some(v) = values.iter().find(|&&v| v < 0).filter(|_| !is_offsets) {
        return fail(format!("lengths contain a negative value, {v}"));
    }
    let cap = (values.len() / per_row).checked_add(values.len());
    let mut bounds = crate::alloc::with_capacity(op, cap.unwrap_or(usize::MAX))?;
    for row in values.chunks(per_row) {
        let mut at = 0;
        if !is_offsets {
            bounds.push(0);
        }
        for (i, &v) in row.iter().enumerate() {
            let next = if is_offsets {
                if v < 0 || v as u64 > n as u64 {
                    return fail(format!("offset {v} lies outside 0..={n}, the axis' length"));
                }
                if i > 0 && (v as usize) < at {
                    return fail(format!("offsets decrease: {v} follows {at}"));
                }
                v as usize
            } else {
                match at.checked_add(v as usize).filter(|&e| e <= n) {
                    Some(e) => e,
                    None => {
                        return fail(format!("a row of lengths sums past the axis' length {n}"));
                    }
                }
            };
            at = next;
            bounds.push(next);
        }
        if !is_offsets && at != n {
            return fail(format!(
                "expected every row of lengths to sum to the axis' length {n}, one sums to {at}"
            ));
        }
    }
    Ok(bounds)
}

/// The gradient of [`Tensor::try_segment_reduce`]'s result `y` (with its spare row, when
/// `spare`) for `x`, PyTorch's `_segment_reduce_backward` as device ops.
#[allow(clippy::too_many_arguments)]
fn segment_backward<T: FloatElement, D: Backend>(
    reduce: SegmentReduce,
    initial: Option<T>,
    (a, count, spare): (i64, usize, bool),
    idx: &Tensor<i64, D>,
    lens: &Tensor<T, D>,
    g: &Tensor<T, D>,
    x: &Tensor<T, D>,
    y: &Tensor<T, D>,
) -> Result<Tensor<T, D>> {
    let dev = x.device_handle();
    let zero = Tensor::scalar_on(T::ZERO, dev)?;
    let per_segment = |v: &Tensor<bool, D>| -> Result<Tensor<T, D>> {
        y.try_zeros_like()?
            .try_scatter_add(a, idx, &v.try_cast()?)?
            .try_gather(a, idx)
    };
    match reduce {
        SegmentReduce::Sum => g.try_gather(a, idx),
        SegmentReduce::Mean => g
            .try_div(&lens.try_maximum_scalar(T::ONE)?)?
            .try_gather(a, idx),
        SegmentReduce::Max | SegmentReduce::Min => {
            // The elements equal to the result, or NaN, share its gradient.
            let hit = x
                .try_is_nan()?
                .try_logical_or(&x.try_eq(&y.try_gather(a, idx)?)?)?;
            let ties = per_segment(&hit)?.try_maximum_scalar(T::ONE)?;
            let share = g.try_gather(a, idx)?.try_div(&ties)?;
            Tensor::try_where(&hit, &share, &zero)
        }
        SegmentReduce::Prod => {
            // `g·y/x`, except for a 0 or NaN element: the product of the others, which is
            // that of the regular elements (and `initial`) when it is the only such element,
            // NaN when another is NaN, and otherwise 0 times it (0 or NaN).
            let nan = x.try_is_nan()?;
            let special = nan.try_logical_or(&x.try_eq_scalar(T::ZERO)?)?;
            let one = Tensor::scalar_on(T::ONE, dev)?;
            let regular = Tensor::try_where(&special, &one, x)?;
            let start = Tensor::full_on(y.shape().clone(), initial.unwrap_or(T::ONE), dev)?;
            let p = (start.try_scatter_reduce(a, idx, &regular, ScatterReduce::Prod, true)?)
                .try_gather(a, idx)?;
            let others_nan = per_segment(&nan)?.try_sub(&nan.try_cast()?)?;
            let alone = per_segment(&special)?.try_eq_scalar(T::ONE)?;
            let nan_t = Tensor::scalar_on(T::from_f64(f64::NAN), dev)?;
            let shared = Tensor::try_where(
                &others_nan.try_gt_scalar(T::ZERO)?,
                &nan_t,
                &p.try_mul_scalar(T::ZERO)?,
            )?;
            let others = Tensor::try_where(&alone, &p, &shared)?;
            let gx = g.try_gather(a, idx)?;
            let grad = Tensor::try_where(
                &special,
                &gx.try_mul(&others)?,
                &gx.try_mul(&y.try_gather(a, idx)?)?.try_div(x)?,
            )?;
            match spare {
                // Elements in no segment: 0 (their spare row's product may be inf).
                true => Tensor::try_where(&idx.try_lt_scalar(count as i64)?, &grad, &zero),
                false => Ok(grad),
            }
        }
    }
}
