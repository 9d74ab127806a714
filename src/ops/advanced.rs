//! Advanced (integer-array) indexing under PyTorch's names: `index` (`x[i, j]` with index
//! tensors, NumPy's rules), `index_put`/`index_put_` (`x[i, j] = v`, optionally accumulating),
//! `put` (the same on the flattened tensor), and NumPy's `unravel_index`/`ravel_multi_index`.
//!
//! An index list names one index tensor (or `None`, a whole axis, `:`) per leading axis; the
//! index tensors broadcast together to a shape `B`. The result has the non-indexed axes with
//! `B` in place of the indexed ones: where the indexed axes are adjacent, `B` stands where they
//! stood; otherwise it comes first (NumPy's and PyTorch's rule). Every op here is composed of
//! views, `index_select` and `scatter`, so it runs on every device and differentiates through
//! them.
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let x = Tensor::<i32>::arange(0, 12, 1)?.reshape([3, 4]);
//! let (rows, cols) = (tensor![0i64, 2, -1], tensor![1i64, 3, 0]);
//! assert_eq!(x.index(&[Some(&rows), Some(&cols)]).to_vec(), vec![1, 11, 8]); // x[[0,2,-1],[1,3,0]]
//! assert_eq!(x.index(&[None, Some(&tensor![3i64])]).dims(), &[3, 1]); // x[:, [3]]
//! let y = x.index_put(&[Some(&tensor![1i64, 1])], &tensor![[7, 7, 7, 7]], true); // x[[1,1]] += 7
//! assert_eq!(y.to_vec()[4..8], [18, 19, 20, 21]);
//! let coords = tensor![5i64, 11].unravel_index(&[3, 4])?;
//! assert_eq!((coords[0].to_vec(), coords[1].to_vec()), (vec![1, 2], vec![1, 3]));
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use super::device_ops::same_device;
use crate::backend::Backend;
use crate::dtype::{Element, NumElement};
use crate::error::{Error, OrPanic, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;

/// One index per leading axis: an index tensor, or `None` for the whole axis (`:`).
pub type Indices<'a, D> = [Option<&'a Tensor<i64, D>>];

/// The shapes of an advanced-indexing operation, worked out from shapes alone.
struct Plan {
    /// The indexed axes, ascending, and their sizes.
    axes: Vec<usize>,
    /// The other axes, in order.
    rest: Vec<usize>,
    /// The index tensors' broadcast shape `B`.
    index_dims: Vec<usize>,
    /// How many non-indexed axes precede `B` in the result (0 unless the indexed axes are
    /// adjacent).
    at: usize,
    /// The source tensor's dims.
    dims: Vec<usize>,
}

impl Plan {
    fn new(op: &'static str, dims: &[usize], shapes: &[Option<&Shape>]) -> Result<Plan> {
        if shapes.len() > dims.len() {
            return Err(Error::InvalidArgument {
                op,
                msg: format!(
                    "{} indices for a tensor of {} dimensions ({:?}); pass at most one per axis",
                    shapes.len(),
                    dims.len(),
                    dims
                ),
            });
        }
        let axes: Vec<usize> = (0..shapes.len()).filter(|&k| shapes[k].is_some()).collect();
        let rest = (0..dims.len()).filter(|k| !axes.contains(k)).collect();
        let mut b = Shape::from(Vec::<usize>::new());
        for s in shapes.iter().flatten() {
            b = crate::shape::broadcast_shapes(op, &b, s)?;
        }
        // The indexed axes become one of their sizes' product, and `B` one of its count: both
        // are checked, since an empty tensor's other dimensions may multiply past usize.
        let indexed: Vec<usize> = axes.iter().map(|&a| dims[a]).collect();
        Shape::new(indexed).checked_numel(op, 8)?;
        b.checked_numel(op, 8)?;
        let adjacent = axes.last().is_some_and(|l| l + 1 - axes[0] == axes.len());
        Ok(Plan {
            at: if adjacent { axes[0] } else { 0 },
            axes,
            rest,
            index_dims: b.dims().to_vec(),
            dims: dims.to_vec(),
        })
    }

    /// The indexed axes' sizes.
    fn indexed(&self) -> Vec<usize> {
        self.axes.iter().map(|&a| self.dims[a]).collect()
    }

    fn rest_dims(&self) -> Vec<usize> {
        self.rest.iter().map(|&a| self.dims[a]).collect()
    }

    /// The source's axes with the indexed ones first.
    fn order(&self) -> Vec<i64> {
        (self.axes.iter().chain(&self.rest))
            .map(|&a| a as i64)
            .collect()
    }

    /// `[P] + rest`: the source viewed with its indexed axes as one (`P` their product).
    fn flat_dims(&self) -> Vec<usize> {
        let p = self.indexed().iter().product();
        std::iter::once(p).chain(self.rest_dims()).collect()
    }

    /// `B + rest`: the gathered slices before `B` moves to its place.
    fn gathered_dims(&self) -> Vec<usize> {
        self.index_dims
            .iter()
            .copied()
            .chain(self.rest_dims())
            .collect()
    }

    /// The permutation of `B + rest` that puts `B` after the first `at` non-indexed axes.
    fn to_result(&self) -> Vec<i64> {
        let (nb, at) = (self.index_dims.len(), self.at);
        let n = nb + self.rest.len();
        ((nb..nb + at).chain(0..nb).chain(nb + at..n))
            .map(|a| a as i64)
            .collect()
    }

    /// The result's dims.
    fn result_dims(&self) -> Vec<usize> {
        let g = self.gathered_dims();
        self.to_result().iter().map(|&a| g[a as usize]).collect()
    }
}

/// The inverse of a permutation.
fn inverse(p: &[i64]) -> Vec<i64> {
    let mut inv = vec![0; p.len()];
    for (i, &a) in p.iter().enumerate() {
        inv[a as usize] = i as i64;
    }
    inv
}

/// `idx` with each negative index `i` replaced by `i + len`, for an axis `axis` of length
/// `len = shape[axis]`; an index outside `-len..len` is an `Index` error naming the axis and
/// `shape` (checking reads one value back from the device).
pub(crate) fn wrap_indices<D: Backend>(
    op: &'static str,
    idx: &Tensor<i64, D>,
    axis: usize,
    shape: &Shape,
) -> Result<Tensor<i64, D>> {
    let size = shape.dims()[axis];
    // Tensor sizes are below 2^63 bytes, so every length fits in i64.
    let len = size as i64;
    if let Some(index) = first_outside(idx, -len, len)? {
        return Err(Error::Index {
            op,
            index,
            dim: axis,
            size,
            shape: shape.clone(),
        });
    }
    let negative = idx.try_lt_scalar(0)?;
    Tensor::try_where(&negative, &idx.try_add_scalar(len)?, idx)
}

/// The row-major offset into the indexed axes (viewed as one of size `P`) of every position of
/// `B`, as a 1-d tensor; each index is checked against its axis (negative counts from the end).
fn offsets<D: Backend>(
    op: &'static str,
    plan: &Plan,
    shape: &Shape,
    indices: &Indices<'_, D>,
) -> Result<Tensor<i64, D>> {
    let sizes = plan.indexed();
    let mut total: Option<Tensor<i64, D>> = None;
    let mut mult = 1usize;
    for (&axis, &size) in plan.axes.iter().zip(&sizes).rev() {
        let idx = indices[axis].expect("planned from the Some entries");
        let wrapped = wrap_indices(op, idx, axis, shape)?;
        let term = if mult == 1 {
            wrapped
        } else {
            wrapped.try_mul_scalar(mult as i64)?
        };
        total = Some(match total {
            None => term,
            Some(t) => t.try_add(&term)?,
        });
        // The plan checked the product of the indexed sizes, but an indexed axis of length 0
        // makes it 0 however large the others are: the running product saturates then (every
        // index of that axis is out of range, or there is none and the result is empty).
        mult = mult.saturating_mul(size);
    }
    let total = total.expect("at least one indexed axis");
    let nb: usize = plan.index_dims.iter().product();
    total
        .broadcast_to(plan.index_dims.clone())?
        .try_reshape([nb])
}

impl<T: Element, D: Backend> Tensor<T, D> {
    /// Advanced indexing `self[i0, i1, ..]` with index tensors (PyTorch `Tensor.index`, NumPy
    /// integer-array indexing): `indices[k]` indexes axis `k` (`None`: the whole axis); the
    /// index tensors broadcast to a shape `B`, and the result is the non-indexed axes with `B`
    /// where the indexed axes stood if they are adjacent, or first otherwise. A negative index
    /// counts from the end. With no index tensor at all the result is `self` itself (a view);
    /// otherwise a new tensor. Differentiable (through `index_select`).
    ///
    /// # Errors
    /// `InvalidArgument` for more indices than axes; `Broadcast` when the index tensors do not
    /// broadcast together; `Index` for an index outside `-len..len` of its axis; `Device`.
    pub fn try_index(&self, indices: &Indices<'_, D>) -> Result<Self> {
        let op = "index";
        let shapes: Vec<Option<&Shape>> = indices.iter().map(|i| i.map(|t| t.shape())).collect();
        let plan = Plan::new(op, self.dims(), &shapes)?;
        if plan.axes.is_empty() {
            return Ok(self.clone());
        }
        for idx in indices.iter().flatten() {
            same_device(op, self, *idx)?;
        }
        let at = offsets(op, &plan, self.shape(), indices)?;
        self.permute(&plan.order())?
            .try_reshape(plan.flat_dims())?
            .try_index_select(0, &at)?
            .try_reshape(plan.gathered_dims())?
            .permute(&plan.to_result())
    }

    /// Writes `out`, a result computed from `self` without recording, over `self` in place
    /// (the in-place forms of ops written out of place): nothing is written when `out` is an
    /// `Err`, and a tensor in a graph that requires grad is refused, as every in-place op.
    pub(crate) fn overwrite(&mut self, op: &'static str, out: Result<Self>) -> Result<()> {
        let out = out?;
        self.check_settable(op)?;
        crate::autograd::no_grad(|| D::assign(self, &out))
    }

    plain_forms! {
        /// [`Tensor::try_index`], panicking with its error.
        index, try_index(indices: &Indices<'_, D>) -> Self;
    }
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// `self` with `values` written at `self[i0, i1, ..]` (PyTorch `index_put`, NumPy
    /// `x[i0, i1] = values`): the positions are those [`Tensor::try_index`] reads, and `values`
    /// broadcasts to that result's shape. With `accumulate`, values add up at repeated
    /// positions (PyTorch `accumulate=True`, NumPy `add.at`); without it, a position named twice
    /// takes the last write in row-major order of `B` (PyTorch leaves that choice unspecified).
    /// Differentiable in `self` and `values`.
    ///
    /// # Errors
    /// As [`Tensor::try_index`]; `Broadcast` when `values` does not broadcast to the indexed
    /// shape.
    pub fn try_index_put(
        &self,
        indices: &Indices<'_, D>,
        values: &Self,
        accumulate: bool,
    ) -> Result<Self> {
        let op = "index_put";
        same_device(op, self, values)?;
        let shapes: Vec<Option<&Shape>> = indices.iter().map(|i| i.map(|t| t.shape())).collect();
        let plan = Plan::new(op, self.dims(), &shapes)?;
        let target = plan.result_dims();
        let values = values
            .broadcast_to(target.clone())
            .map_err(|_| Error::Broadcast {
                op,
                lhs: values.shape().clone(),
                rhs: target.clone().into(),
            })?;
        if plan.axes.is_empty() {
            // `x[:, :] = v` writes every element.
            return if accumulate {
                self.try_add(&values)
            } else {
                values.try_contiguous()
            };
        }
        for idx in indices.iter().flatten() {
            same_device(op, self, *idx)?;
        }
        let at = offsets(op, &plan, self.shape(), indices)?;
        let flat = plan.flat_dims();
        let gathered: Vec<usize> = std::iter::once(at.numel())
            .chain(plan.rest_dims())
            .collect();
        let src = values
            .permute(&inverse(&plan.to_result()))?
            .try_reshape(gathered.clone())?;
        let mut along = vec![1; gathered.len()];
        along[0] = at.numel();
        let idx = at.try_reshape(along)?.expand(gathered)?;
        let x = self.permute(&plan.order())?.try_reshape(flat)?;
        let out = if accumulate {
            x.try_scatter_add(0, &idx, &src)?
        } else {
            x.try_scatter(0, &idx, &src)?
        };
        let order = plan.order();
        let permuted: Vec<usize> = order.iter().map(|&a| self.dims()[a as usize]).collect();
        out.try_reshape(permuted)?
            .permute(&inverse(&order))?
            .try_contiguous()
    }

    /// In-place [`Tensor::try_index_put`] (PyTorch `index_put_`): computes the result, then
    /// writes it into `self` (which may be a view); nothing is written on error.
    ///
    /// # Errors
    /// As [`Tensor::try_index_put`]; `InvalidArgument` when `self` is part of a graph that
    /// requires grad; `Layout` for a broadcast view.
    pub fn index_put_(
        &mut self,
        indices: &Indices<'_, D>,
        values: &Self,
        accumulate: bool,
    ) -> Result<()> {
        let out = crate::autograd::no_grad(|| self.try_index_put(indices, values, accumulate));
        self.overwrite("index_put_", out)
    }

    /// `self` with `source`'s elements written at the flat (row-major) positions `index`
    /// (PyTorch `put`, NumPy `put` without its cyclic repetition): `index` and `source` have
    /// the same number of elements, in any shapes; negative indices count from the end. With
    /// `accumulate`, repeated positions add up. Differentiable.
    ///
    /// # Errors
    /// `ShapeMismatch` when `index` and `source` differ in element count; `Index` for an index
    /// outside `-numel..numel`; `Device`.
    pub fn try_put(&self, index: &Tensor<i64, D>, source: &Self, accumulate: bool) -> Result<Self> {
        let op = "put";
        if index.numel() != source.numel() {
            return Err(Error::ShapeMismatch {
                op,
                lhs: index.shape().clone(),
                rhs: source.shape().clone(),
                msg: "index and source need the same number of elements".into(),
            });
        }
        let flat_index = index.try_flatten()?;
        self.try_flatten()?
            .try_index_put(&[Some(&flat_index)], &source.try_flatten()?, accumulate)
            .map_err(|e| e.index_named(op))?
            .try_reshape(self.shape().clone())
    }

    plain_forms! {
        /// [`Tensor::try_index_put`], panicking with its error.
        index_put, try_index_put(indices: &Indices<'_, D>, values: &Self, accumulate: bool) -> Self;
        /// [`Tensor::try_put`], panicking with its error.
        put, try_put(index: &Tensor<i64, D>, source: &Self, accumulate: bool) -> Self;
    }
}

/// The first element of `idx` outside `lo..hi`, if any (one `any` read back; the value only on
/// error).
fn first_outside<D: Backend>(idx: &Tensor<i64, D>, lo: i64, hi: i64) -> Result<Option<i64>> {
    let bad = idx
        .try_lt_scalar(lo)?
        .try_logical_or(&idx.try_ge_scalar(hi)?)?;
    if !bad.try_any(&[], false)?.try_item()? {
        return Ok(None);
    }
    Ok(idx.try_masked_select(&bad)?.try_to_vec()?.first().copied())
}

impl<D: Backend> Tensor<i64, D> {
    /// The coordinates in an array of shape `dims` of each flat (row-major) index in `indices`
    /// (NumPy `unravel_index`, PyTorch `unravel_index`): one i64 tensor of `indices`' shape per
    /// dimension. As in PyTorch, a negative index counts from the end (NumPy refuses it).
    ///
    /// # Errors
    /// `Index` for an index outside `-N..N`, `N` the product of `dims` (every index, when `N` is
    /// 0); `ShapeOverflow` when that product overflows `i64`.
    pub fn unravel_index(&self, dims: &[usize]) -> Result<Vec<Self>> {
        let indices = self;
        let op = "unravel_index";
        let n = Shape::from(dims.to_vec()).try_numel(op)?;
        let n = i64::try_from(n).map_err(|_| Error::ShapeOverflow {
            op,
            dims: dims.to_vec(),
        })?;
        if let Some(index) = first_outside(indices, -n, n)? {
            return Err(Error::Index {
                op,
                index,
                dim: 0,
                size: n as usize,
                shape: Shape::from(vec![n as usize]),
            });
        }
        if indices.numel() == 0 {
            return dims.iter().map(|_| indices.try_contiguous()).collect();
        }
        let neg = indices.try_lt_scalar(0)?;
        let mut rest = Tensor::try_where(&neg, &indices.try_add_scalar(n)?, indices)?;
        let mut coords = Vec::with_capacity(dims.len());
        for &d in dims.iter().rev() {
            // Every size is at least 1 here (`N > 0` since an index passed the check).
            let d = d as i64;
            coords.push(rest.try_remainder_scalar(d)?);
            rest = rest.try_floor_divide_scalar(d)?;
        }
        coords.reverse();
        Ok(coords)
    }

    /// The flat (row-major) index in an array of shape `dims` of each coordinate tuple (NumPy
    /// `ravel_multi_index`, `mode="raise"`): `coords[k]` holds the coordinates along axis `k`; the
    /// coordinate tensors broadcast together, and the result has their broadcast shape.
    ///
    /// # Errors
    /// `InvalidArgument` when `coords` and `dims` differ in length or are empty; `Index` for a
    /// coordinate outside `0..dims[k]` (NumPy's `mode="raise"`); `Broadcast`; `Device`;
    /// `ShapeOverflow` when the product of `dims` overflows `i64`.
    pub fn ravel_multi_index(coords: &[&Self], dims: &[usize]) -> Result<Self> {
        let op = "ravel_multi_index";
        if coords.len() != dims.len() || dims.is_empty() {
            return Err(Error::InvalidArgument {
                op,
                msg: format!(
                    "takes one coordinate tensor per dimension: {} for shape {:?}",
                    coords.len(),
                    dims
                ),
            });
        }
        let n = Shape::from(dims.to_vec()).try_numel(op)?;
        i64::try_from(n).map_err(|_| Error::ShapeOverflow {
            op,
            dims: dims.to_vec(),
        })?;
        let mut total: Option<Self> = None;
        let mut mult = 1i64;
        for (k, (c, &d)) in coords.iter().zip(dims).enumerate().rev() {
            if let Some(t) = &total {
                same_device(op, t, *c)?;
            }
            if let Some(index) = first_outside(c, 0, d as i64)? {
                return Err(Error::Index {
                    op,
                    index,
                    dim: k,
                    size: d,
                    shape: Shape::from(dims.to_vec()),
                });
            }
            let term = c.try_mul_scalar(mult)?;
            total = Some(match total {
                None => term,
                Some(t) => t.try_add(&term)?,
            });
            // The product fits in i64 (checked above).
            mult *= d as i64;
        }
        total.expect("dims is not empty").try_contiguous()
    }
}

impl<D: Backend> Tensor<bool, D> {
    /// [`Tensor::try_index_put`] for bool tensors (PyTorch's `x[i, j] = True`): computed on
    /// the values as Int64, so `accumulate` is a logical or (PyTorch's bool addition).
    ///
    /// # Errors
    /// As the numeric [`Tensor::try_index_put`].
    pub fn try_index_put(
        &self,
        indices: &Indices<'_, D>,
        values: &Self,
        accumulate: bool,
    ) -> Result<Self> {
        let (x, v) = (self.try_cast::<i64>()?, values.try_cast::<i64>()?);
        x.try_index_put(indices, &v, accumulate)?.try_cast::<bool>()
    }

    /// In-place [`Tensor::try_index_put`] for bool tensors; nothing is written on error.
    ///
    /// # Errors
    /// As the numeric [`Tensor::index_put_`].
    pub fn index_put_(
        &mut self,
        indices: &Indices<'_, D>,
        values: &Self,
        accumulate: bool,
    ) -> Result<()> {
        let out = crate::autograd::no_grad(|| self.try_index_put(indices, values, accumulate));
        self.overwrite("index_put_", out)
    }

    plain_forms! {
        /// [`Tensor::try_index_put`] for bool tensors, panicking with its error.
        index_put, try_index_put(indices: &Indices<'_, D>, values: &Self, accumulate: bool) -> Self;
    }
}
