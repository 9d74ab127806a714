//! Indexing and reordering on the CPU (seed 002's indexing table, NumPy/PyTorch semantics):
//! the [`DeviceOps`] steps for `Cpu` (where, copies into views, `index_select`, `gather`),
//! `scatter_add`, `sort`/`argsort` and `topk`. The combining ops built on these steps are in
//! `ops::combine`, once for every device. Indices are `Tensor<i64>`; an out-of-range index is
//! an `Err`, never a read out of bounds.

use super::device_ops::{DeviceOps, check_gather_shape};
use super::zip_assign;
use crate::cpu::strided;
use crate::device::{Cpu, Cuda};
use crate::dtype::{Element, NumElement};
use crate::error::{Error, Result};
use crate::ops::Lift;
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::tensor::read;

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

impl DeviceOps for Cpu {
    fn select<T: Element>(
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

    fn assign<T: Element>(dst: &mut Tensor<T, Cpu>, src: &Tensor<T, Cpu>) -> Result<()> {
        zip_assign("copy_from", dst, src, |_, v| v)
    }

    fn index_select<T: Element>(
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
            out.narrow(ax as i64, k, 1)?
                .copy_from(&src.narrow(ax as i64, i, 1)?)?;
        }
        Ok(out)
    }

    fn gather<T: Element>(
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
        for (flat, &i) in iv.iter().enumerate() {
            let mut rem = flat;
            let mut p = 0isize;
            for d in (0..idims.len()).rev() {
                let c = rem % idims[d];
                rem /= idims[d];
                let c = if d == ax {
                    check_index(op, i, ax, self.dims()[ax], self.shape())?
                } else {
                    c
                };
                p += c as isize * strides[d];
            }
            pos.push(p as usize);
        }
        Ok(pos)
    }

    /// The indices that sort each slice along `axis`, stably, ascending or descending; NaN
    /// sorts last either way (NumPy `argsort(kind="stable")`).
    pub fn argsort(&self, axis: i64, descending: bool) -> Result<Tensor<i64, Cpu>> {
        let ax = self.shape().axis("argsort", axis)?;
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

/// `sort` and `topk` for both devices, built on each device's `argsort` and the shared `gather`.
macro_rules! sort_ops {
    ($($D:ident),*) => {$(
        impl<T: Element> Tensor<T, $D> {
            /// Sorted values and their indices along `axis` (PyTorch `sort`), stable, NaN last.
            pub fn sort(&self, axis: i64, descending: bool) -> Result<(Self, Tensor<i64, $D>)> {
                let idx = self.argsort(axis, descending)?;
                Ok((self.gather(axis, &idx)?, idx))
            }

            /// The `k` largest values along `axis` in descending order, with their indices
            /// (PyTorch `topk`); ties keep their order along the axis.
            ///
            /// # Errors
            /// `InvalidArgument` when `k` exceeds the axis' length; `Axis` for a bad axis.
            pub fn topk(&self, k: usize, axis: i64) -> Result<(Self, Tensor<i64, $D>)> {
                let ax = self.shape().axis("topk", axis)?;
                if k > self.dims()[ax] {
                    return Err(Error::InvalidArgument {
                        op: "topk",
                        msg: format!("k = {k} exceeds dimension {ax} of shape {}", self.shape()),
                    });
                }
                let idx = self
                    .argsort(axis, true)?
                    .narrow(ax as i64, 0, k)?
                    .contiguous()
                    .lift()?;
                Ok((self.gather(axis, &idx)?, idx))
            }
        }
    )*};
}
sort_ops!(Cpu, Cuda);

impl<T: NumElement> Tensor<T, Cpu> {
    /// `self` with `src` added at `index` along `axis`: `out[.., index[.., j, ..], ..] +=
    /// src[.., j, ..]` (PyTorch `scatter_add`); repeated indices accumulate.
    pub fn scatter_add(&self, axis: i64, index: &Tensor<i64, Cpu>, src: &Self) -> Result<Self> {
        let ax = self.shape().axis("scatter_add", axis)?;
        if src.shape() != index.shape() {
            return Err(Error::ShapeMismatch {
                op: "scatter_add",
                lhs: index.shape().clone(),
                rhs: src.shape().clone(),
                msg: "src must have the index's shape".into(),
            });
        }
        let pos = self.gather_positions("scatter_add", ax, index)?;
        let mut out = self.try_contiguous()?.try_to_vec()?;
        for (&p, &v) in pos.iter().zip(&src.try_to_vec()?) {
            out[p] = out[p].add(v);
        }
        Self::from_vec(out, self.shape().clone())
    }
}
