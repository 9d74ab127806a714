//! NumPy's array editing and selection routines: `append`, `insert`, `delete`, `resize`,
//! `trim_zeros`, `compress`, `extract`, `flatnonzero`, `put_along_axis`, `fill_diagonal`,
//! and the index helpers `tri`, `ix_`, `diag_indices`. Each is composed of `concat`,
//! `index_select`, `scatter` and views, so it runs on every device and differentiates through
//! them. Where NumPy flattens for `axis=None`, the `Option<i64>` axis does the same.
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let a = tensor![[1, 2], [3, 4]];
//! assert_eq!(a.append(&tensor![[5, 6]], Some(0)).dims(), &[3, 2]);
//! assert_eq!(a.insert(1, &tensor![9, 8], Some(1)).to_vec(), vec![1, 9, 2, 3, 8, 4]);
//! assert_eq!(a.delete(&tensor![0i64], Some(1)).to_vec(), vec![2, 4]);
//! assert_eq!(tensor![0, 0, 3, 0, 5, 0].trim_zeros(true, true).to_vec(), vec![3, 0, 5]);
//! assert_eq!(a.resize(&[3, 3]).to_vec(), vec![1, 2, 3, 4, 1, 2, 3, 4, 1]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use super::advanced::wrap_indices;
use super::device_ops::same_device;
use crate::backend::Backend;
use crate::dtype::{Element, NumElement};
use crate::error::{Error, OrPanic, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;

impl<T: Element, D: Backend> Tensor<T, D> {
    /// `self` and its axis, or the flattened tensor and axis 0 for `None` (NumPy's
    /// `axis=None`).
    fn along(&self, op: &'static str, axis: Option<i64>) -> Result<(Self, usize)> {
        match axis {
            None => Ok((self.try_flatten()?, 0)),
            Some(a) => Ok((self.clone(), self.shape().axis(op, a)?)),
        }
    }

    /// `values` joined to the end of `self` along `axis` (NumPy `append`); with `None` both
    /// are flattened first.
    ///
    /// # Errors
    /// As [`Tensor::try_concat`]: `ShapeMismatch` when the other dimensions differ; `Axis`,
    /// `Device`.
    pub fn try_append(&self, values: &Self, axis: Option<i64>) -> Result<Self> {
        let (x, ax) = self.along("append", axis)?;
        let v = if axis.is_none() {
            values.try_flatten()?
        } else {
            values.clone()
        };
        Self::try_concat(&[&x, &v], ax as i64)
    }

    /// `self` with `values` inserted before position `index` along `axis` (NumPy `insert`
    /// with one index; `None` flattens first). As in NumPy, `values` gets leading axes of
    /// length 1 up to `self`'s rank, its first axis moves to `axis` and gives the number of
    /// slices inserted, and it broadcasts to the slice shape. A negative index counts from
    /// the end; `index = len` appends.
    ///
    /// # Errors
    /// `Index` for an index outside `-len..=len`; `InvalidArgument` when `values` has more
    /// dimensions than `self`; `Broadcast` when it does not broadcast to the slices; `Axis`,
    /// `Device`.
    pub fn try_insert(&self, index: i64, values: &Self, axis: Option<i64>) -> Result<Self> {
        let op = "insert";
        same_device(op, self, values)?;
        let (x, ax) = self.along(op, axis)?;
        let len = x.dims()[ax];
        let at = (index as i128) + if index < 0 { len as i128 } else { 0 };
        if at < 0 || at > len as i128 {
            return Err(Error::Index {
                op,
                index,
                dim: ax,
                size: len,
                shape: x.shape().clone(),
            });
        }
        let at = at as usize;
        if values.ndim() > x.ndim() {
            return Err(Error::InvalidArgument {
                op,
                msg: format!(
                    "values of shape {} have more dimensions than the tensor's {}",
                    values.shape(),
                    x.shape()
                ),
            });
        }
        let mut dims = vec![1; x.ndim() - values.ndim()];
        dims.extend_from_slice(values.dims());
        let v = values.try_reshape(dims)?.movedim(&[0], &[ax as i64])?;
        let mut slices = x.dims().to_vec();
        slices[ax] = v.dims()[ax];
        let v = v.broadcast_to(slices)?;
        let (head, tail) = (
            x.narrow(ax as i64, 0, at)?,
            x.narrow(ax as i64, at, len - at)?,
        );
        Self::try_concat(&[&head, &v, &tail], ax as i64)
    }

    /// `self` without the slices at `indices` (1-d or 0-d Int64, negative counting from the
    /// end, repeats allowed) along `axis` (NumPy `delete`; `None` flattens first).
    ///
    /// # Errors
    /// `Index` for an index outside `-len..len`; `Axis`, `Device`.
    pub fn try_delete(&self, indices: &Tensor<i64, D>, axis: Option<i64>) -> Result<Self> {
        let op = "delete";
        same_device(op, self, indices)?;
        let (x, ax) = self.along(op, axis)?;
        let gone = wrap_indices(op, &indices.try_flatten()?, ax, x.shape())?;
        let len = x.dims()[ax];
        if x.numel() == 0 {
            // Nothing to gather: the shape alone, without an index table as long as the axis.
            let mut distinct = gone.try_to_vec()?;
            distinct.sort_unstable();
            distinct.dedup();
            let mut dims = x.dims().to_vec();
            dims[ax] = len - distinct.len();
            return Self::zeros_on(dims, x.device_handle());
        }
        let all = Tensor::<i64, D>::arange_on(0, len as i64, 1, x.device_handle())?;
        let keep = all.try_masked_select(&all.try_isin(&gone)?.try_logical_not()?)?;
        x.try_index_select(ax as i64, &keep)
    }

    /// A tensor of shape `shape` filled with `self`'s elements in row-major order, repeated
    /// as often as needed (NumPy `resize`; zeros when `self` is empty, as NumPy).
    ///
    /// # Errors
    /// `ShapeOverflow` for a shape whose size overflows; allocation failure.
    pub fn try_resize(&self, shape: &[usize]) -> Result<Self> {
        let op = "resize";
        let target = Shape::from(shape.to_vec());
        let n = target.checked_numel(op, T::SIZE)?;
        let flat = self.try_flatten()?;
        let have = flat.numel();
        if have == 0 || n == 0 {
            return Self::zeros_on(target, self.device_handle());
        }
        flat.try_tile(&[n.div_ceil(have)])?
            .narrow(0, 0, n)?
            .try_reshape(target)
    }

    /// The elements of 1-d `self` with the zeros at its start (`front`) and end (`back`)
    /// removed (NumPy `trim_zeros` with `trim="f"`, `"b"` or `"fb"`). Finding the ends reads
    /// one count back from the device.
    ///
    /// # Errors
    /// `InvalidArgument` when `self` is not 1-d.
    pub fn try_trim_zeros(&self, front: bool, back: bool) -> Result<Self> {
        if self.ndim() != 1 {
            return Err(Error::InvalidArgument {
                op: "trim_zeros",
                msg: format!("takes a 1-d tensor, got shape {}", self.shape()),
            });
        }
        let n = self.numel();
        let nz = self.try_nonzero()?;
        let found = nz.dims()[0];
        if found == 0 {
            let keep = if front || back { 0 } else { n };
            return self.narrow(0, 0, keep)?.try_contiguous();
        }
        let ends = nz.try_to_vec()?;
        let start = if front { ends[0] as usize } else { 0 };
        let stop = if back {
            ends[found - 1] as usize + 1
        } else {
            n
        };
        self.narrow(0, start, stop - start)?.try_contiguous()
    }

    /// The slices along `axis` where the 1-d `condition` is true (NumPy `compress`; `None`
    /// flattens first); `condition` may be shorter than the axis (the rest is dropped).
    ///
    /// # Errors
    /// `InvalidArgument` when `condition` is not 1-d; `Index` when it is true beyond the
    /// axis' end (NumPy's `IndexError`); `Axis`, `Device`.
    pub fn try_compress(&self, condition: &Tensor<bool, D>, axis: Option<i64>) -> Result<Self> {
        let op = "compress";
        same_device(op, self, condition)?;
        let (x, ax) = self.along(op, axis)?;
        if condition.ndim() != 1 {
            return Err(Error::InvalidArgument {
                op,
                msg: format!("needs a 1-d condition, got shape {}", condition.shape()),
            });
        }
        let keep = condition.try_nonzero()?.try_flatten()?;
        x.try_index_select(ax as i64, &keep)
            .map_err(|e| e.index_named(op))
    }

    /// The elements where `condition` (with as many elements as `self`, any shape) is true,
    /// in row-major order, as a 1-d tensor (NumPy `extract`).
    ///
    /// # Errors
    /// `ShapeMismatch` when the element counts differ; `Device`.
    pub fn try_extract(&self, condition: &Tensor<bool, D>) -> Result<Self> {
        if condition.numel() != self.numel() {
            return Err(Error::ShapeMismatch {
                op: "extract",
                lhs: self.shape().clone(),
                rhs: condition.shape().clone(),
                msg: "the condition needs as many elements as the tensor".into(),
            });
        }
        self.try_flatten()?
            .try_masked_select(&condition.try_flatten()?)
    }

    /// The flat (row-major) indices of the non-zero elements (NumPy `flatnonzero`), 1-d
    /// Int64.
    ///
    /// # Errors
    /// Allocation or transfer failure.
    pub fn try_flatnonzero(&self) -> Result<Tensor<i64, D>> {
        self.try_flatten()?.try_nonzero()?.try_flatten()
    }

    plain_forms! {
        /// [`Tensor::try_append`], panicking with its error.
        append, try_append(values: &Self, axis: Option<i64>) -> Self;
        /// [`Tensor::try_insert`], panicking with its error.
        insert, try_insert(index: i64, values: &Self, axis: Option<i64>) -> Self;
        /// [`Tensor::try_delete`], panicking with its error.
        delete, try_delete(indices: &Tensor<i64, D>, axis: Option<i64>) -> Self;
        /// [`Tensor::try_resize`], panicking with its error.
        resize, try_resize(shape: &[usize]) -> Self;
        /// [`Tensor::try_trim_zeros`], panicking with its error.
        trim_zeros, try_trim_zeros(front: bool, back: bool) -> Self;
        /// [`Tensor::try_compress`], panicking with its error.
        compress, try_compress(condition: &Tensor<bool, D>, axis: Option<i64>) -> Self;
        /// [`Tensor::try_extract`], panicking with its error.
        extract, try_extract(condition: &Tensor<bool, D>) -> Self;
        /// [`Tensor::try_flatnonzero`], panicking with its error.
        flatnonzero, try_flatnonzero() -> Tensor<i64, D>;
    }
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// `self` with `values` (broadcast to `indices`' shape) written at `indices` along
    /// `axis` (NumPy `put_along_axis`; `None` flattens first): [`Tensor::try_scatter`] with
    /// NumPy's broadcasting of the values.
    ///
    /// # Errors
    /// `Broadcast` when `values` does not broadcast to `indices`' shape; as
    /// [`Tensor::try_scatter`].
    pub fn try_put_along_axis(
        &self,
        indices: &Tensor<i64, D>,
        values: &Self,
        axis: Option<i64>,
    ) -> Result<Self> {
        let (x, ax) = self.along("put_along_axis", axis)?;
        let idx = if axis.is_none() {
            indices.try_flatten()?
        } else {
            indices.clone()
        };
        let v = values.broadcast_to(idx.shape().clone())?;
        x.try_scatter(ax as i64, &idx, &v)?
            .try_reshape(if axis.is_none() {
                vec![self.numel()]
            } else {
                self.dims().to_vec()
            })
    }

    /// Writes `value` on the main diagonal, in place (NumPy `fill_diagonal`): for a 2-d
    /// tensor the elements `(i, i)`, and with `wrap` a tall matrix's diagonal restarts every
    /// `cols + 1` rows, as NumPy's; for more dimensions, all of one length, the elements
    /// `(i, i, ..., i)`.
    ///
    /// # Errors
    /// `InvalidArgument` for fewer than 2 dimensions, or more with different lengths; as
    /// [`Tensor::fill_`] (a broadcast view, a graph tensor).
    pub fn fill_diagonal_(&mut self, value: T, wrap: bool) -> Result<()> {
        let op = "fill_diagonal_";
        let d = self.dims().to_vec();
        if d.len() < 2 || (d.len() > 2 && d.iter().any(|&n| n != d[0])) {
            return Err(Error::InvalidArgument {
                op,
                msg: format!(
                    "needs a 2-d tensor or one whose dimensions are all equal, got shape {}",
                    self.shape()
                ),
            });
        }
        // NumPy's flat step: `cols + 1`, or `1 + n + n² + ..` for `n`-long axes (the sum of
        // the row-major strides of all but the last axis). Saturating: a huge step only means
        // that one element is written.
        let step = if d.len() == 2 {
            d[1].saturating_add(1)
        } else {
            (1..d.len()).fold(1usize, |s, k| {
                s.saturating_add(d[0].saturating_pow(k as u32))
            })
        };
        let n = self.numel();
        let end = if wrap || d.len() > 2 {
            n
        } else {
            n.min(d[1].saturating_mul(d[1]))
        };
        let count = end
            .div_ceil(step)
            .min(if d.len() > 2 { d[0] } else { usize::MAX });
        let at = Tensor::<i64, D>::arange_on(0, count as i64, 1, self.device_handle())?
            .try_mul_scalar(step as i64)?;
        let fill = Self::full_on([count], value, self.device_handle())?;
        let out = crate::autograd::no_grad(|| self.try_put(&at, &fill, false));
        self.overwrite(op, out)
    }

    plain_forms! {
        /// [`Tensor::try_put_along_axis`], panicking with its error.
        put_along_axis, try_put_along_axis(indices: &Tensor<i64, D>, values: &Self, axis: Option<i64>) -> Self;
    }
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// The `(n, m)` matrix with ones at and below the `k`-th diagonal and zeros above it
    /// (NumPy `tri`), on `device`.
    ///
    /// # Errors
    /// `ShapeOverflow`/`OutOfMemory` for a shape that cannot be allocated.
    pub fn tri_on(n: usize, m: usize, k: i64, device: &D) -> Result<Self> {
        Self::ones_on([n, m], device)?.try_tril(k)
    }
}

impl<D: Backend> Tensor<i64, D> {
    /// The open mesh of 1-d index tensors (NumPy `ix_`): the `k`-th of `n` results has
    /// shape `(1, .., len_k, .., 1)`, so indexing with all of them picks the cross product.
    ///
    /// # Errors
    /// `InvalidArgument` when an input is not 1-d.
    pub fn ix_(indices: &[&Self]) -> Result<Vec<Self>> {
        let n = indices.len();
        indices
            .iter()
            .enumerate()
            .map(|(k, t)| {
                if t.ndim() != 1 {
                    return Err(Error::InvalidArgument {
                        op: "ix_",
                        msg: format!("takes 1-d index tensors, got shape {}", t.shape()),
                    });
                }
                let mut dims = vec![1; n];
                dims[k] = t.numel();
                t.try_reshape(dims)
            })
            .collect()
    }

    /// The indices of the main diagonal of an `ndim`-dimensional array with every length
    /// `n` (NumPy `diag_indices`): `ndim` copies of `0..n`, on `device`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn diag_indices_on(n: usize, ndim: usize, device: &D) -> Result<Vec<Self>> {
        let i = Self::arange_on(0, n as i64, 1, device)?;
        Ok(vec![i; ndim])
    }
}

impl<T: NumElement> Tensor<T, crate::device::Cpu> {
    /// [`Tensor::tri_on`] the CPU (NumPy `tri`).
    ///
    /// # Errors
    /// As [`Tensor::tri_on`].
    pub fn tri(n: usize, m: usize, k: i64) -> Result<Self> {
        Self::tri_on(n, m, k, &crate::device::Cpu)
    }
}

impl Tensor<i64, crate::device::Cpu> {
    /// [`Tensor::diag_indices_on`] the CPU (NumPy `diag_indices`).
    ///
    /// # Errors
    /// As [`Tensor::diag_indices_on`].
    pub fn diag_indices(n: usize, ndim: usize) -> Result<Vec<Self>> {
        Self::diag_indices_on(n, ndim, &crate::device::Cpu)
    }
}
