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
        if let Some(row) = self.scalar_as_row("argsort", axis)? {
            return row.try_argsort(0, descending)?.to_0d();
        }
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
        if let Some(row) = self.scalar_as_row("topk", axis)? {
            // k = 1 gives the 0-d element (PyTorch); k = 0 an empty (0,) result.
            let (v, i) = row.try_topk(k, 0)?;
            return if k == 1 {
                Ok((v.to_0d()?, i.to_0d()?))
            } else {
                Ok((v, i))
            };
        }
        let ax = self.shape().axis("topk", axis)?;
        if k > self.dims()[ax] {
            return Err(Error::InvalidArgument {
                op: "topk",
                msg: format!("k = {k} exceeds dimension {ax} of shape {}", self.shape()),
            });
        }
        let idx = match D::topk(self, ax, k)? {
            Some(idx) => idx,
            None => self
                .try_argsort(axis, true)?
                .narrow(ax as i64, 0, k)?
                .try_contiguous()?,
        };
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

impl<T: Element, D: Backend> Tensor<T, D> {
    /// The elements where `mask` (broadcast with `self`) is true, in row-major order, as a 1-d
    /// tensor (PyTorch `masked_select`, NumPy `x[mask]`); the length is decided by one
    /// read-back of the mask. Differentiable (through `index_select`).
    ///
    /// # Errors
    /// `Broadcast` when the shapes do not broadcast; `Device` across devices.
    pub fn try_masked_select(&self, mask: &Tensor<bool, D>) -> Result<Self> {
        let shape = crate::shape::broadcast_shapes("masked_select", self.shape(), mask.shape())?;
        same_device("masked_select", self, mask)?;
        let n = shape.numel();
        let (x, mask) = (self.expand(shape.clone())?, mask.expand(shape)?);
        if !crate::autograd::recording(&[self])
            && let Some(out) = D::masked_select(&x, &mask)?
        {
            return Ok(out);
        }
        let x = x.try_reshape([n])?;
        let at = mask.try_reshape([n])?.try_nonzero()?;
        let k = at.numel();
        x.try_index_select(0, &at.try_reshape([k])?)
    }

    plain_forms! {
        /// [`Tensor::try_masked_select`], panicking with its error.
        masked_select, try_masked_select(mask: &Tensor<bool, D>) -> Self;
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
        let ax = check_scatter_add(self, axis, index, src)?;
        let out = D::scatter_add(self, ax, index, src)?;
        let saved: [&dyn crate::autograd::Tracked; 1] = [index];
        let op = crate::autograd::Op::ScatterAdd(ax);
        Ok(crate::autograd::record(out, op, &[self, src], &saved))
    }

    /// `self` with `alpha · source` added at the slices `index` names along `axis` (PyTorch
    /// `index_add`): `out[.., index[j], ..] += alpha · source[.., j, ..]`; repeated indices
    /// accumulate. `index` is 1-d (or 0-d) with entries in `0..len`; `source` has `self`'s shape
    /// with `axis` of the index's length. Differentiable in `self` and `source`.
    ///
    /// # Errors
    /// `InvalidArgument` for a 2-d or larger index; `ShapeMismatch` for a `source` of another
    /// shape; `Index` for an index outside `-len..len` (a negative one counts from the end); `Axis`, `Device`.
    pub fn try_index_add(
        &self,
        axis: i64,
        index: &Tensor<i64, D>,
        source: &Self,
        alpha: T,
    ) -> Result<Self> {
        const OP: &str = "index_add";
        let ax = check_slices(OP, self, axis, index, source)?;
        let src = if alpha == T::ONE {
            source.clone()
        } else {
            source.try_mul_scalar(alpha)?
        };
        add_slices(Some(self), self.dims(), ax, index, &src).map_err(|e| e.index_named(OP))
    }

    /// `self` with the slices of `source` combined by `reduce` into the slices `index` names
    /// along `axis`, together with the target's own value when `include_self` (PyTorch
    /// `index_reduce`, which takes `Prod`, `Mean`, `Amax` and `Amin`; `Sum` is
    /// [`Tensor::try_index_add`]); slices no index names keep their value. Shapes as
    /// [`Tensor::try_index_add`]; the reduction is [`Tensor::try_scatter_reduce`]'s, with its
    /// gradients.
    ///
    /// # Errors
    /// As [`Tensor::try_index_add`].
    pub fn try_index_reduce(
        &self,
        axis: i64,
        index: &Tensor<i64, D>,
        source: &Self,
        reduce: super::scatter_reduce::ScatterReduce,
        include_self: bool,
    ) -> Result<Self> {
        const OP: &str = "index_reduce";
        let ax = check_slices(OP, self, axis, index, source)?;
        let idx = expanded_index(ax, index, source.shape())?;
        self.try_scatter_reduce(ax as i64, &idx, source, reduce, include_self)
            .map_err(|e| e.index_named(OP))
    }

    plain_forms! {
        /// [`Tensor::try_index_add`], panicking with its error.
        index_add, try_index_add(axis: i64, index: &Tensor<i64, D>, source: &Self, alpha: T) -> Self;
        /// [`Tensor::try_scatter_add`], panicking with its error.
        scatter_add, try_scatter_add(axis: i64, index: &Tensor<i64, D>, src: &Self) -> Self;
        /// [`Tensor::try_index_reduce`], panicking with its error.
        index_reduce, try_index_reduce(axis: i64, index: &Tensor<i64, D>, source: &Self,
            reduce: super::scatter_reduce::ScatterReduce, include_self: bool) -> Self;
    }
}

/// The 1-d (or 0-d) `index` of slices along `ax` made an index of every element of a
/// `source` of shape `shape` (`scatter_add`'s form).
fn expanded_index<D: Backend>(
    ax: usize,
    index: &Tensor<i64, D>,
    shape: &Shape,
) -> Result<Tensor<i64, D>> {
    let mut along = vec![1; shape.ndim()];
    along[ax] = index.numel();
    index
        .try_reshape(along)?
        .expand(shape.clone())?
        .try_contiguous()
}

/// The axis of `x.scatter_add(axis, index, src)` after its checks of shapes and devices.
fn check_scatter_add<T: NumElement, D: Backend>(
    x: &Tensor<T, D>,
    axis: i64,
    index: &Tensor<i64, D>,
    src: &Tensor<T, D>,
) -> Result<usize> {
    let ax = x.shape().axis("scatter_add", axis)?;
    if src.shape() != index.shape() {
        return Err(Error::ShapeMismatch {
            op: "scatter_add",
            lhs: index.shape().clone(),
            rhs: src.shape().clone(),
            msg: "src must have the index's shape".into(),
        });
    }
    check_gather_shape("scatter_add", x.shape(), index.shape(), ax)?;
    same_device("scatter_add", x, index)?;
    same_device("scatter_add", x, src)?;
    Ok(ax)
}

/// `base.scatter_add(axis, index, src)` for a fresh `base` that only the caller holds (a
/// gradient being built): written into `base` itself where the device has the kernel and
/// nothing is recorded, saving the copy the out-of-place form makes; otherwise that form,
/// recorded. On an `Err` `base` is dropped, whatever was written.
pub(crate) fn scatter_add_owned<T: NumElement, D: Backend>(
    mut base: Tensor<T, D>,
    axis: i64,
    index: &Tensor<i64, D>,
    src: &Tensor<T, D>,
) -> Result<Tensor<T, D>> {
    let ax = check_scatter_add(&base, axis, index, src)?;
    let owned = base.node.is_none() && D::is_unique(&base.storage);
    if owned && !crate::autograd::recording(&[src]) && D::scatter_add_(&mut base, ax, index, src)? {
        return Ok(base);
    }
    base.try_scatter_add(axis, index, src)
}

/// `base` (zeros of shape `dims` when `None`) with each slice `j` of `src` along `ax` added
/// to the slice `index[j]` (1-d or 0-d; shapes checked by the caller): the device's one-pass
/// kernel when it has one and nothing is recorded, otherwise `scatter_add` with the index
/// expanded, recorded as such. `index_add` and `index_select`'s gradient.
pub(crate) fn add_slices<T: NumElement, D: Backend>(
    base: Option<&Tensor<T, D>>,
    dims: &[usize],
    ax: usize,
    index: &Tensor<i64, D>,
    src: &Tensor<T, D>,
) -> Result<Tensor<T, D>> {
    const OP: &str = "index_add";
    same_device(OP, src, index)?;
    if let Some(b) = base {
        same_device(OP, b, src)?;
    }
    let tracked = base.is_some_and(|b| crate::autograd::recording(&[b]));
    if !tracked && !crate::autograd::recording(&[src]) {
        let flat = index.try_reshape([index.numel()])?;
        if let Some(out) = D::index_add(base, dims, ax, &flat, src)? {
            return Ok(out);
        }
    }
    let idx = expanded_index(ax, index, src.shape())?;
    match base {
        Some(b) => b.try_scatter_add(ax as i64, &idx, src),
        None => {
            let zeros = Tensor::zeros_on(dims, src.device_handle())?;
            scatter_add_owned(zeros, ax as i64, &idx, src)
        }
    }
}

/// The axis of `index_add`/`index_reduce` on `t`, after checking that `index` is 1-d (or
/// 0-d) and `source` has `t`'s shape with that axis of the index's length.
fn check_slices<T: NumElement, D: Backend>(
    op: &'static str,
    t: &Tensor<T, D>,
    axis: i64,
    index: &Tensor<i64, D>,
    source: &Tensor<T, D>,
) -> Result<usize> {
    let ax = t.shape().axis(op, axis)?;
    if index.ndim() > 1 {
        return Err(Error::InvalidArgument {
            op,
            msg: format!("takes a 1-d index, got shape {}", index.shape()),
        });
    }
    let n = index.numel();
    let mut want = t.dims().to_vec();
    want[ax] = n;
    if source.dims() != want.as_slice() {
        return Err(Error::ShapeMismatch {
            op,
            lhs: t.shape().clone(),
            rhs: source.shape().clone(),
            msg: format!(
                "source needs shape {:?}: self's with axis {ax} of the index's length {n}",
                want
            ),
        });
    }
    Ok(ax)
}
