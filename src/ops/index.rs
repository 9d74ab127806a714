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
use super::zip_assign;
use crate::backend::Backend;
use crate::backend::cpu::kernels::strided;
use crate::device::Cpu;
use crate::dtype::{Element, NumElement};
use crate::error::{Error, OrPanic, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::tensor::read;

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

impl Cpu {
    pub(crate) fn cpu_select<T: Element>(
        s: &Shape,
        cond: &Tensor<bool, Cpu>,
        a: &Tensor<T, Cpu>,
        b: &Tensor<T, Cpu>,
    ) -> Result<Tensor<T, Cpu>> {
        let op = "where_";
        let (lc, la, lb) = (
            cond.layout.broadcast_to(op, s)?,
            a.layout.broadcast_to(op, s)?,
            b.layout.broadcast_to(op, s)?,
        );
        let (gc, ga, gb) = (
            read(op, &cond.storage)?,
            read(op, &a.storage)?,
            read(op, &b.storage)?,
        );
        let buf = strided::zip3(op, (&gc, &lc), (&ga, &la), (&gb, &lb), |c, x, y| {
            if c { x } else { y }
        })?;
        Ok(Tensor::from_buf(buf, s.clone()))
    }

    pub(crate) fn cpu_assign<T: Element>(
        dst: &mut Tensor<T, Cpu>,
        src: &Tensor<T, Cpu>,
    ) -> Result<()> {
        zip_assign("copy_from", dst, src, |_, v| v)
    }

    pub(crate) fn cpu_index_select<T: Element>(
        src: &Tensor<T, Cpu>,
        ax: usize,
        indices: &Tensor<i64, Cpu>,
    ) -> Result<Tensor<T, Cpu>> {
        let idx: Vec<usize> = indices
            .try_to_vec()?
            .iter()
            .map(|&i| check_index("index_select", i, ax, src.dims()[ax], src.shape()))
            .collect::<Result<_>>()?;
        let mut dims = src.dims().to_vec();
        dims[ax] = idx.len();
        let out = Tensor::zeros(dims)?;
        for (k, &i) in idx.iter().enumerate() {
            Cpu::cpu_assign(
                &mut out.narrow(ax as i64, k, 1)?,
                &src.narrow(ax as i64, i, 1)?,
            )?;
        }
        Ok(out)
    }

    pub(crate) fn cpu_gather<T: Element>(
        src: &Tensor<T, Cpu>,
        ax: usize,
        index: &Tensor<i64, Cpu>,
    ) -> Result<Tensor<T, Cpu>> {
        let pos = src.gather_positions("gather", ax, index)?;
        let data = src.try_contiguous()?.try_to_vec()?;
        Tensor::from_vec(
            pos.iter().map(|&p| data[p]).collect(),
            index.shape().clone(),
        )
    }
}

impl<T: Element> Tensor<T, Cpu> {
    /// Maps every position of `index` to a flat storage position of a contiguous `self`, with
    /// the `axis` coordinate replaced by the index value (PyTorch `gather`/`scatter` rule).
    fn gather_positions(
        &self,
        op: &'static str,
        ax: usize,
        index: &Tensor<i64, Cpu>,
    ) -> Result<Vec<usize>> {
        check_gather_shape(op, self.shape(), index.shape(), ax)?;
        let strides = self.shape().contiguous_strides();
        let idims = index.dims().to_vec();
        let iv = index.try_to_vec()?;
        let mut pos = Vec::with_capacity(iv.len());
        // The index's own position as a counter, and the offset of its other coordinates
        // kept up to date with it (no division or inner loop per element).
        let (size, step) = (self.dims()[ax], strides[ax]);
        let mut at = vec![0usize; idims.len()];
        let mut base = 0isize;
        for &i in &iv {
            let j = check_index(op, i, ax, size, self.shape())?;
            pos.push((base + j as isize * step) as usize);
            for d in (0..idims.len()).rev() {
                at[d] += 1;
                let s = if d == ax { 0 } else { strides[d] };
                if at[d] < idims[d] {
                    base += s;
                    break;
                }
                base -= (idims[d] - 1) as isize * s;
                at[d] = 0;
            }
        }
        Ok(pos)
    }

    /// The CPU's argsort step along the checked axis `ax`.
    pub(crate) fn cpu_argsort(&self, ax: usize, descending: bool) -> Result<Tensor<i64, Cpu>> {
        let n = self.ndim();
        let mut perm: Vec<usize> = (0..n).filter(|&i| i != ax).collect();
        perm.push(ax);
        let moved = self.permute_usize(&perm)?.try_contiguous()?;
        let len = self.dims()[ax];
        let v = moved.try_to_vec()?;
        let mut out: Vec<i64> = Vec::with_capacity(v.len());
        for row in v
            .chunks(len.max(1))
            .take(v.len().checked_div(len).unwrap_or(0))
        {
            let mut idx: Vec<usize> = (0..len).collect();
            idx.sort_by(|&a, &b| {
                let (x, y) = (row[a], row[b]);
                match (x.is_nan(), y.is_nan()) {
                    (true, true) => std::cmp::Ordering::Equal,
                    // NaN is the largest value (PyTorch): last ascending, first descending.
                    (true, false) if descending => std::cmp::Ordering::Less,
                    (false, true) if descending => std::cmp::Ordering::Greater,
                    (true, false) => std::cmp::Ordering::Greater,
                    (false, true) => std::cmp::Ordering::Less,
                    _ => {
                        let o = x.partial_cmp(&y).unwrap_or(std::cmp::Ordering::Equal);
                        if descending { o.reverse() } else { o }
                    }
                }
            });
            out.extend(idx.iter().map(|&i| i as i64));
        }
        let sorted = Tensor::<i64, Cpu>::from_vec(out, moved.shape().clone())?;
        let mut inv = vec![0usize; n];
        for (i, &p) in perm.iter().enumerate() {
            inv[p] = i;
        }
        sorted.permute_usize(&inv)?.try_contiguous()
    }
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

impl<T: NumElement> Tensor<T, Cpu> {
    /// The CPU's scatter_add step (shapes checked by the public op).
    pub(crate) fn cpu_scatter_add(
        &self,
        ax: usize,
        index: &Tensor<i64, Cpu>,
        src: &Self,
    ) -> Result<Self> {
        let pos = self.gather_positions("scatter_add", ax, index)?;
        let mut out = self.try_contiguous()?.try_to_vec()?;
        for (&p, &v) in pos.iter().zip(&src.try_to_vec()?) {
            out[p] = out[p].add(v);
        }
        Self::from_vec(out, self.shape().clone())
    }
}
