//! Indexing and reordering (NumPy/PyTorch semantics): `argsort`, `sort`, `topk` and
//! `scatter_add` for every device, and the CPU's steps for them and for `where`, copies into
//! views, `index_select` and `gather`. The combining ops built on these steps are in
//! `ops::combine`, once for every device. Indices are `Tensor<i64>`; an out-of-range index is
//! an `Err`, never a read out of bounds.
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let x = tensor![[10.0f32, 20.0], [30.0, 40.0], [50.0, 60.0]];
//! let rows = tensor![2i64, 0];
//! assert_eq!(x.index_select(0, &rows).to_vec(), vec![50.0, 60.0, 10.0, 20.0]);
//! let (values, indices) = tensor![3.0f32, 1.0, 2.0].sort(0, false);
//! assert_eq!((values.to_vec(), indices.to_vec()), (vec![1.0, 2.0, 3.0], vec![1, 2, 0]));
//! let (top, at) = tensor![3.0f32, 1.0, 2.0].topk(2, 0);
//! assert_eq!((top.to_vec(), at.to_vec()), (vec![3.0, 2.0], vec![0, 2]));
//! assert!(x.try_index_select(0, &tensor![3i64]).is_err()); // out of range: an Err
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use super::device_ops::{check_gather_shape, same_device};
use crate::backend::Backend;
use crate::dtype::{Element, NumElement};
use crate::error::{Error, OrPanic, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;

#[inline]
pub(crate) fn check_index(
    op: &'static str,
    i: i64,
    dim: usize,
    size: usize,
    shape: &Shape,
) -> Result<usize> {
    let (i128_i, n) = (i as i128, size as i128);
    let j = if i128_i < 0 { i128_i + n } else { i128_i };
    if j < 0 || j >= n {
        return Err(Error::Index {
            op,
            index: i,
            dim,
            size,
            shape: shape.clone(),
        });
    }
    Ok(j as usize)
}

impl<T: Element, D: Backend> Tensor<T, D> {
    /// The indices that sort each slice along `axis`, stably, ascending or descending. NaN
    /// counts as the largest value, as in PyTorch's `argsort(stable=True)` and in `max`: it
    /// sorts last ascending (NumPy `argsort(kind="stable")`) and first descending.
    ///
    /// # Errors
    /// `Axis` for a bad axis.
    pub fn try_argsort(&self, axis: i64, descending: bool) -> Result<Tensor<i64, D>> {
        let ax = self.shape().axis("argsort", axis)?;
        D::argsort(self, ax, descending)
    }

    /// Sorted values and their indices along `axis` (PyTorch `sort`), stable; NaN is the
    /// largest value (last ascending, first descending).
    ///
    /// # Errors
    /// `Axis` for a bad axis.
    pub fn try_sort(&self, axis: i64, descending: bool) -> Result<(Self, Tensor<i64, D>)> {
        let idx = self.try_argsort(axis, descending)?;
        Ok((self.try_gather(axis, &idx)?, idx))
    }

    /// The `k` largest values along `axis` in descending order, with their indices (PyTorch
    /// `topk`); ties keep their order along the axis, and NaN counts as the largest value
    /// (`topk([1, NaN, 3, 2], 2)` is `[NaN, 3]`, as in PyTorch).
    ///
    /// # Errors
    /// `InvalidArgument` when `k` exceeds the axis' length; `Axis` for a bad axis.
    pub fn try_topk(&self, k: usize, axis: i64) -> Result<(Self, Tensor<i64, D>)> {
        let ax = self.shape().axis("topk", axis)?;
        if k > self.dims()[ax] {
            return Err(Error::InvalidArgument {
                op: "topk",
                msg: format!("k = {k} exceeds dimension {ax} of shape {}", self.shape()),
            });
        }
        let idx = self
            .try_argsort(axis, true)?
            .narrow(ax as i64, 0, k)?
            .try_contiguous()?;
        Ok((self.try_gather(axis, &idx)?, idx))
    }

    plain_forms! {
        /// [`Tensor::try_argsort`], panicking with its error.
        argsort, try_argsort(axis: i64, descending: bool) -> Tensor<i64, D>;
        /// [`Tensor::try_sort`], panicking with its error.
        sort, try_sort(axis: i64, descending: bool) -> (Self, Tensor<i64, D>);
        /// [`Tensor::try_topk`], panicking with its error.
        topk, try_topk(k: usize, axis: i64) -> (Self, Tensor<i64, D>);
    }
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// `self` with `src` added at `index` along `axis`: `out[.., index[.., j, ..], ..] +=
    /// src[.., j, ..]` (PyTorch `scatter_add`); repeated indices accumulate.
    ///
    /// # Errors
    /// `ShapeMismatch` when `src` does not have the index's shape or the index does not fit
    /// `self` (as `gather`); `Index` for an out-of-range index; `Device` across devices.
    pub fn try_scatter_add(&self, axis: i64, index: &Tensor<i64, D>, src: &Self) -> Result<Self> {
        let ax = self.shape().axis("scatter_add", axis)?;
        if src.shape() != index.shape() {
            return Err(Error::ShapeMismatch {
                op: "scatter_add",
                lhs: index.shape().clone(),
                rhs: src.shape().clone(),
                msg: "src must have the index's shape".into(),
            });
        }
        check_gather_shape("scatter_add", self.shape(), index.shape(), ax)?;
        same_device("scatter_add", self, index)?;
        same_device("scatter_add", self, src)?;
        let out = D::scatter_add(self, ax, index, src)?;
        let saved: [&dyn crate::autograd::Tracked; 1] = [index];
        let op = crate::autograd::Op::ScatterAdd(ax);
        Ok(crate::autograd::record(out, op, &[self, src], &saved))
    }

    plain_forms! {
        /// [`Tensor::try_scatter_add`], panicking with its error.
        scatter_add, try_scatter_add(axis: i64, index: &Tensor<i64, D>, src: &Self) -> Self;
    }
}
