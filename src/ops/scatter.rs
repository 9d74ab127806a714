//! Writing at indices, under PyTorch's names: `scatter` (from a tensor or a value),
//! `index_copy`, `index_fill`, `masked_scatter`, with `take_along_dim` and the `select` view.
//! Each is composed of `scatter_add`, `argsort`, `gather` and `where_`, so it runs on every
//! device and differentiates through them.
//!
//! Where an index repeats, the **last** write in row-major order of the index wins (what
//! PyTorch's CPU loop does; PyTorch calls the choice unspecified): the writes are ordered by
//! their target with one stable `argsort`, and only the last of each target is kept.
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let x = Tensor::<f32>::zeros([3])?;
//! let idx = tensor![2i64, 0, 2];
//! let y = x.scatter(0, &idx, &tensor![1.0f32, 2.0, 3.0]); // index 2 twice: the last wins
//! assert_eq!(y.to_vec(), vec![2.0, 0.0, 3.0]);
//! let m = tensor![[1, 2], [3, 4]];
//! assert_eq!(m.index_fill(1, &tensor![1i64], 0).to_vec(), vec![1, 0, 3, 0]);
//! assert_eq!(m.select(0, -1)?.to_vec(), vec![3, 4]);
//! let picked = m.take_along_dim(&tensor![[1i64], [0]], Some(1));
//! assert_eq!(picked.to_vec(), vec![2, 3]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use super::device_ops::{check_gather_shape, same_device};
use super::index::check_index;
use crate::backend::Backend;
use crate::dtype::{Element, NumElement};
use crate::error::{Error, OrPanic, Result};
use crate::tensor::Tensor;

/// The 1-d `index` reshaped along `ax` and expanded to `self`'s shape with `ax` of the
/// index's length: the N-d index of the slices `index_copy`/`index_fill` write.
fn slice_index<T: Element, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    ax: usize,
    index: &Tensor<i64, D>,
) -> Result<Tensor<i64, D>> {
    if index.ndim() > 1 {
        return Err(Error::InvalidArgument {
            op,
            msg: format!("takes a 1-d index, got shape {}", index.shape()),
        });
    }
    let n = index.numel();
    let mut along = vec![1; x.ndim()];
    along[ax] = n;
    let mut dims = x.dims().to_vec();
    dims[ax] = n;
    index.try_reshape(along)?.expand(dims)
}

impl<T: Element, D: Backend> Tensor<T, D> {
    /// The slice at `index` along `axis`, with that axis removed (PyTorch `select`, NumPy
    /// `x[.., index, ..]`); a view. A negative index counts from the end.
    ///
    /// # Errors
    /// `Index` for an index outside `-len..len`; `Axis` for a bad axis.
    pub fn select(&self, axis: i64, index: i64) -> Result<Self> {
        let ax = self.shape().axis("select", axis)?;
        let i = check_index("select", index, ax, self.dims()[ax], self.shape())?;
        self.narrow(ax as i64, i, 1)?.squeeze_dims(&[ax as i64])
    }

    /// `self[.., indices[.., j, ..], ..]` along `axis`, `self` and `indices` broadcast against
    /// each other outside that axis (PyTorch `take_along_dim`, NumPy `take_along_axis`); with
    /// `axis = None`, both are flattened first. Differentiable (through `gather`).
    ///
    /// # Errors
    /// `ShapeMismatch` when the ranks differ; `Broadcast` when the other axes do not
    /// broadcast; `Index` for an out-of-range index; `Axis`, `Device`.
    pub fn try_take_along_dim(&self, indices: &Tensor<i64, D>, axis: Option<i64>) -> Result<Self> {
        let op = "take_along_dim";
        same_device(op, self, indices)?;
        let Some(axis) = axis else {
            let flat = self.try_reshape([self.numel()])?;
            let idx = indices.try_reshape([indices.numel()])?;
            return flat.try_gather(0, &idx).map_err(|e| e.index_named(op));
        };
        let ax = self.shape().axis(op, axis)?;
        if indices.ndim() != self.ndim() {
            return Err(Error::ShapeMismatch {
                op,
                lhs: self.shape().clone(),
                rhs: indices.shape().clone(),
                msg: "the indices must have the tensor's rank".into(),
            });
        }
        let (mut a, mut b) = (self.dims().to_vec(), indices.dims().to_vec());
        let (la, lb) = (a[ax], b[ax]);
        a[ax] = 1;
        b[ax] = 1;
        let common = crate::shape::broadcast_shapes(op, &a.into(), &b.into())?;
        let (mut sa, mut sb) = (common.dims().to_vec(), common.dims().to_vec());
        sa[ax] = la;
        sb[ax] = lb;
        self.expand(sa)?
            .try_gather(ax as i64, &indices.expand(sb)?)
            .map_err(|e| e.index_named(op))
    }

    plain_forms! {
        /// [`Tensor::try_take_along_dim`], panicking with its error.
        take_along_dim, try_take_along_dim(indices: &Tensor<i64, D>, axis: Option<i64>) -> Self;
    }
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// `self` with `src[.., j, ..]` written at `index[.., j, ..]` along `axis` (PyTorch
    /// `scatter(dim, index, src)`): `out[.., index[p], ..] = src[p]` for every position `p` of
    /// `index`; `src` may be larger than `index` (only the part `index` covers is read). A
    /// target named twice takes the last write in row-major order. Differentiable: `self`'s
    /// gradient is 0 where written, `src`'s is the output gradient at the targets its kept
    /// writes reached.
    ///
    /// # Errors
    /// `ShapeMismatch` when `index` has another rank, or is larger than `self` outside `axis`
    /// or than `src` anywhere; `Index` for an index outside `-len..len` (a negative one counts
    /// from the end, as in `gather`); `Axis`, `Device`.
    pub fn try_scatter(&self, axis: i64, index: &Tensor<i64, D>, src: &Self) -> Result<Self> {
        let (ax, src) = scatter_args("scatter", self, axis, index, src)?;
        // `targets` checks every index value before `last_writes` computes with them.
        let hit = crate::autograd::no_grad(|| targets(self, ax, index))?;
        let kept = crate::autograd::no_grad(|| last_writes(self, ax, index))?;
        let zero = Self::scalar_on(T::ZERO, self.device_handle())?;
        let written = Self::try_where(&kept, &src, &zero)?;
        let sum = self
            .try_zeros_like()?
            .try_scatter_add(ax as i64, index, &written)?;
        Self::try_where(&hit, &sum, self)
    }

    /// `self` with `value` written at `index[.., j, ..]` along `axis` (PyTorch
    /// `scatter(dim, index, value)`). Differentiable in `self` (0 where written).
    ///
    /// # Errors
    /// As [`Tensor::try_scatter`].
    pub fn try_scatter_value(&self, axis: i64, index: &Tensor<i64, D>, value: T) -> Result<Self> {
        let op = "scatter";
        let ax = self.shape().axis(op, axis)?;
        check_gather_shape(op, self.shape(), index.shape(), ax)?;
        same_device(op, self, index)?;
        let hit = crate::autograd::no_grad(|| targets(self, ax, index))?;
        self.try_masked_fill(&hit, value)
    }

    /// `self` with the slices of `source` copied to the slices `index` names along `axis`
    /// (PyTorch `index_copy`): `out[.., index[j], ..] = source[.., j, ..]`; a repeated index
    /// takes its last slice. Shapes as [`Tensor::try_index_add`]. Differentiable.
    ///
    /// # Errors
    /// `InvalidArgument` for a 2-d or larger index; `ShapeMismatch` for a `source` of another
    /// shape; `Index` for an index outside `-len..len` (a negative one counts from the end); `Axis`, `Device`.
    pub fn try_index_copy(&self, axis: i64, index: &Tensor<i64, D>, source: &Self) -> Result<Self> {
        let op = "index_copy";
        let ax = self.shape().axis(op, axis)?;
        let idx = slice_index(op, self, ax, index)?;
        if source.shape() != idx.shape() {
            return Err(Error::ShapeMismatch {
                op,
                lhs: self.shape().clone(),
                rhs: source.shape().clone(),
                msg: format!(
                    "source needs shape {}: self's with axis {ax} of the index's length",
                    idx.shape()
                ),
            });
        }
        self.try_scatter(ax as i64, &idx, source)
            .map_err(|e| e.index_named(op))
    }

    /// `self` with `value` written in the slices `index` names along `axis` (PyTorch
    /// `index_fill`). Differentiable in `self`.
    ///
    /// # Errors
    /// `InvalidArgument` for a 2-d or larger index; `Index` for an index outside `-len..len` (a negative one counts from the end);
    /// `Axis`, `Device`.
    pub fn try_index_fill(&self, axis: i64, index: &Tensor<i64, D>, value: T) -> Result<Self> {
        let op = "index_fill";
        let ax = self.shape().axis(op, axis)?;
        let idx = slice_index(op, self, ax, index)?;
        self.try_scatter_value(ax as i64, &idx, value)
            .map_err(|e| e.index_named(op))
    }

    /// `self` with the elements of `source`, in row-major order, written where `mask`
    /// (broadcast to `self`'s shape) is true (PyTorch `masked_scatter`). Counting the true
    /// elements reads one number back from the device. Differentiable.
    ///
    /// # Errors
    /// `InvalidArgument` when `source` has fewer elements than `mask` has true ones;
    /// `Broadcast` when `mask` does not broadcast to `self`'s shape; `Device`.
    pub fn try_masked_scatter(&self, mask: &Tensor<bool, D>, source: &Self) -> Result<Self> {
        let op = "masked_scatter";
        same_device(op, self, mask)?;
        same_device(op, self, source)?;
        let shape = crate::shape::broadcast_shapes(op, self.shape(), mask.shape())?;
        if shape != *self.shape() {
            return Err(Error::Broadcast {
                op,
                lhs: self.shape().clone(),
                rhs: mask.shape().clone(),
            });
        }
        let n = self.numel();
        let m = mask.expand(shape)?.try_reshape([n])?;
        let count = m.try_sum(&[], false)?.try_item()?;
        let have = source.numel();
        if count as u128 > have as u128 {
            return Err(Error::InvalidArgument {
                op,
                msg: format!("the mask has {count} true elements, the source only {have}"),
            });
        }
        if count == 0 {
            return Ok(self.clone());
        }
        // The k-th true element takes source element k: its running count minus one.
        let at = m
            .try_cumsum(0)?
            .try_sub_scalar(1)?
            .try_clip(0, have as i64 - 1)?;
        let taken = source.try_reshape([have])?.try_gather(0, &at)?;
        Self::try_where(&m, &taken, &self.try_reshape([n])?)?.try_reshape(self.shape().clone())
    }

    plain_forms! {
        /// [`Tensor::try_scatter`], panicking with its error.
        scatter, try_scatter(axis: i64, index: &Tensor<i64, D>, src: &Self) -> Self;
        /// [`Tensor::try_scatter_value`], panicking with its error.
        scatter_value, try_scatter_value(axis: i64, index: &Tensor<i64, D>, value: T) -> Self;
        /// [`Tensor::try_index_copy`], panicking with its error.
        index_copy, try_index_copy(axis: i64, index: &Tensor<i64, D>, source: &Self) -> Self;
        /// [`Tensor::try_index_fill`], panicking with its error.
        index_fill, try_index_fill(axis: i64, index: &Tensor<i64, D>, value: T) -> Self;
        /// [`Tensor::try_masked_scatter`], panicking with its error.
        masked_scatter, try_masked_scatter(mask: &Tensor<bool, D>, source: &Self) -> Self;
    }
}

/// The checked axis of a scatter from `src` at `index` into `x`, and the part of `src` the
/// index covers.
pub(crate) fn scatter_args<T: Element, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    axis: i64,
    index: &Tensor<i64, D>,
    src: &Tensor<T, D>,
) -> Result<(usize, Tensor<T, D>)> {
    let ax = x.shape().axis(op, axis)?;
    check_gather_shape(op, x.shape(), index.shape(), ax)?;
    let fits =
        src.ndim() == index.ndim() && src.dims().iter().zip(index.dims()).all(|(s, i)| s >= i);
    if !fits {
        return Err(Error::ShapeMismatch {
            op,
            lhs: index.shape().clone(),
            rhs: src.shape().clone(),
            msg: "src must have the index's rank and be no smaller along any axis".into(),
        });
    }
    same_device(op, x, index)?;
    same_device(op, x, src)?;
    let mut src = src.clone();
    for (d, &n) in index.dims().iter().enumerate() {
        src = src.narrow(d as i64, 0, n)?;
    }
    Ok((ax, src))
}

/// The elements of `x` that `index` writes to along `ax`, as a mask of `x`'s shape. This
/// `scatter_add` also checks every index value, before any arithmetic on them.
pub(crate) fn targets<T: Element, D: Backend>(
    x: &Tensor<T, D>,
    ax: usize,
    index: &Tensor<i64, D>,
) -> Result<Tensor<bool, D>> {
    let dev = x.device_handle();
    let counts = super::index::scatter_add_owned(
        Tensor::<i64, D>::zeros_on(x.shape().clone(), dev)?,
        ax as i64,
        index,
        &Tensor::<i64, D>::ones_on(index.shape().clone(), dev)?,
    )?;
    counts.try_gt(&Tensor::scalar_on(0, dev)?)
}

/// The writes of `index` ordered by their targets: `order` (a permutation of the flattened
/// writes, stable), the targets' row-major offsets in `x` in that order (`sorted`), and which
/// sorted writes are the last to their target (`last`). `None` for an empty index. The index
/// values must have been checked (by [`targets`]).
pub(crate) struct SortedWrites<D: Backend> {
    pub(crate) order: Tensor<i64, D>,
    pub(crate) sorted: Tensor<i64, D>,
    pub(crate) last: Tensor<bool, D>,
}

pub(crate) fn sorted_writes<T: Element, D: Backend>(
    x: &Tensor<T, D>,
    ax: usize,
    index: &Tensor<i64, D>,
) -> Result<Option<SortedWrites<D>>> {
    let dev = x.device_handle();
    let n = index.numel();
    if n == 0 {
        return Ok(None);
    }
    // Offsets fit in i64: each is below x.numel(), which the shape checks bound by isize::MAX.
    // A negative index counts from the end (as in `scatter_add`), so it is made positive
    // first: `-1` and `len - 1` name one target.
    let len = x.dims()[ax] as i64;
    let wrap = index
        .try_lt(&Tensor::scalar_on(0, dev)?)?
        .try_cast::<i64>()?;
    let index = index.try_add(&wrap.try_mul_scalar(len)?)?;
    let strides = x.shape().contiguous_strides();
    let mut key = index.try_mul_scalar(strides[ax] as i64)?;
    for (d, &len) in index.dims().iter().enumerate() {
        if d != ax && len > 1 {
            let mut along = vec![1; index.ndim()];
            along[d] = len;
            let pos = Tensor::<i64, D>::arange_on(0, len as i64, 1, dev)?
                .try_mul_scalar(strides[d] as i64)?
                .try_reshape(along)?;
            key = key.try_add(&pos)?;
        }
    }
    let key = key.try_reshape([n])?;
    let order = key.try_argsort(0, false)?;
    let sorted = key.try_gather(0, &order)?;
    let differs = sorted
        .narrow(0, 0, n - 1)?
        .try_ne(&sorted.narrow(0, 1, n - 1)?)?;
    let last = Tensor::try_concat(&[&differs, &Tensor::ones_on([1], dev)?], 0)?;
    Ok(Some(SortedWrites {
        order,
        sorted,
        last,
    }))
}

/// `v` (in sorted order, `(n,)`) moved back to the writes' own order and shape: `order` is a
/// permutation, so each place receives exactly one value.
pub(crate) fn unsorted<T: crate::dtype::NumElement, D: Backend>(
    w: &SortedWrites<D>,
    v: &Tensor<T, D>,
    shape: &crate::shape::Shape,
) -> Result<Tensor<T, D>> {
    let n = v.numel();
    Tensor::<T, D>::zeros_on([n], v.device_handle())?
        .try_scatter_add(0, &w.order, v)?
        .try_reshape(shape.clone())
}

/// Which writes of `index` (a mask of its shape) are the last to their target in row-major
/// order of the index. The index values must have been checked.
fn last_writes<T: Element, D: Backend>(
    x: &Tensor<T, D>,
    ax: usize,
    index: &Tensor<i64, D>,
) -> Result<Tensor<bool, D>> {
    let Some(w) = sorted_writes(x, ax, index)? else {
        return Tensor::zeros_on(index.shape().clone(), x.device_handle());
    };
    unsorted(&w, &w.last.try_cast::<i64>()?, index.shape())?.try_cast()
}
