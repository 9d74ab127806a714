//! The CPU kernels of the indexing ops: select/assign through views, index_select, gather,
//! scatter_add and argsort.

use super::drivers::zip_assign;
use super::kernels::strided;
use crate::device::Cpu;
use crate::dtype::{Element, NumElement};
use crate::error::Result;
use crate::ops::device_ops::check_gather_shape;
use crate::ops::index::check_index;
use crate::shape::Shape;
use crate::tensor::{Tensor, read};

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
