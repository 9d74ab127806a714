//! Combining, indexing and reordering (seed 002's combining/indexing tables, seed 004's shape
//! ops, NumPy/PyTorch semantics): `concat`, `stack`, `split`, `chunk`, `index_select`, `gather`,
//! `scatter_add`, `roll`, `tile`, `repeat_interleave`, `tril`/`triu`, `diag`, `diag_embed`,
//! `pad`, `sort`/`argsort`, `topk`. Indices are `Tensor<i64>`; an out-of-range index is an
//! `Err`, never a read out of bounds.

use super::device_ops::{DeviceOps, check_gather_shape};
use super::zip_assign;
use crate::cpu::strided;
use crate::device::Cpu;
use crate::dtype::{Element, NumElement};
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::tensor::try_read;

pub(crate) fn check_index(
    op: &'static str,
    i: i64,
    dim: usize,
    size: usize,
    shape: &Shape,
) -> Result<usize> {
    let j = if i < 0 { i + size as i64 } else { i };
    if j < 0 || j >= size as i64 {
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
            try_read(op, &cond.storage)?,
            try_read(op, &a.storage)?,
            try_read(op, &b.storage)?,
        );
        let buf = strided::zip3(
            (&gc, &lc),
            (&ga, &la),
            (&gb, &lb),
            |c, x, y| if c { x } else { y },
        );
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
            .to_vec()
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
        let data = src.contiguous().to_vec();
        Tensor::from_vec(
            pos.iter().map(|&p| data[p]).collect(),
            index.shape().clone(),
        )
    }
}

impl<T: Element> Tensor<T, Cpu> {
    /// Views of consecutive pieces of `sizes[i]` elements along `axis` (PyTorch `split` with a
    /// list). The sizes must add up to the dimension.
    pub fn split(&self, sizes: &[usize], axis: i64) -> Result<Vec<Self>> {
        let ax = self.shape().axis("split", axis)?;
        if sizes.iter().sum::<usize>() != self.dims()[ax] {
            return Err(Error::InvalidArgument {
                op: "split",
                msg: format!(
                    "sizes {sizes:?} do not add up to dimension {ax} of shape {}",
                    self.shape()
                ),
            });
        }
        let mut off = 0;
        sizes
            .iter()
            .map(|&n| {
                let v = self.narrow(ax as i64, off, n);
                off += n;
                v
            })
            .collect()
    }

    /// `n` views of (nearly) equal size along `axis`; the last may be smaller (PyTorch `chunk`).
    pub fn chunk(&self, n: usize, axis: i64) -> Result<Vec<Self>> {
        let ax = self.shape().axis("chunk", axis)?;
        if n == 0 {
            return Err(Error::InvalidArgument {
                op: "chunk",
                msg: "needs at least one chunk".into(),
            });
        }
        let d = self.dims()[ax];
        let step = d.div_ceil(n).max(1);
        let sizes: Vec<usize> = (0..d).step_by(step).map(|s| step.min(d - s)).collect();
        self.split(&sizes, axis)
    }

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
        let iv = index.to_vec();
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

    /// The elements on and below the `k`-th diagonal of the last two dimensions (NumPy `tril`);
    /// the rest are zero.
    pub fn tril(&self, k: i64) -> Result<Self> {
        self.triangle("tril", k, true)
    }

    /// The elements on and above the `k`-th diagonal (NumPy `triu`).
    pub fn triu(&self, k: i64) -> Result<Self> {
        self.triangle("triu", k, false)
    }

    fn triangle(&self, op: &'static str, k: i64, lower: bool) -> Result<Self> {
        if self.ndim() < 2 {
            return Err(Error::InvalidArgument {
                op,
                msg: format!("needs at least 2 dimensions, got {}", self.shape()),
            });
        }
        let n = self.ndim();
        let (r, c) = (self.dims()[n - 2], self.dims()[n - 1]);
        let mask: Vec<bool> = (0..r * c)
            .map(|p| {
                let d = (p % c) as i64 - (p / c) as i64;
                if lower { d <= k } else { d >= k }
            })
            .collect();
        let mask = Tensor::<bool, Cpu>::from_vec(mask, [r, c])?;
        Self::where_(&mask, self, &Self::scalar(T::ZERO))
    }

    /// For a 1-d tensor, the square matrix with it on the `k`-th diagonal; for a 2-d tensor, a
    /// copy of its `k`-th diagonal (NumPy `diag`).
    pub fn diag(&self, k: i64) -> Result<Self> {
        match self.ndim() {
            1 => {
                let n = self.numel() + k.unsigned_abs() as usize;
                let out = Self::zeros([n, n])?;
                out.diagonal(k)?.copy_from(self)?;
                Ok(out)
            }
            2 => Ok(self.diagonal(k)?.deep_copy()),
            _ => Err(Error::InvalidArgument {
                op: "diag",
                msg: format!("takes a 1-d or 2-d tensor, got {}", self.shape()),
            }),
        }
    }

    /// `(..., n) → (..., n, n)` with the last dimension on the diagonal (PyTorch `diag_embed`).
    pub fn diag_embed(&self) -> Result<Self> {
        let mut dims = self.dims().to_vec();
        let n = *dims.last().ok_or_else(|| Error::InvalidArgument {
            op: "diag_embed",
            msg: "needs at least 1 dimension".into(),
        })?;
        dims.push(n);
        let out = Self::zeros(dims)?;
        out.diagonal(0)?.copy_from(self)?;
        Ok(out)
    }

    /// Pads with `value`: `pads[i] = (before, after)` for dimension `i` (NumPy `pad` with a
    /// constant).
    pub fn pad(&self, pads: &[(usize, usize)], value: T) -> Result<Self> {
        if pads.len() != self.ndim() {
            return Err(Error::InvalidArgument {
                op: "pad",
                msg: format!(
                    "needs one (before, after) pair per dimension of {}, got {}",
                    self.shape(),
                    pads.len()
                ),
            });
        }
        let dims: Vec<usize> = self
            .dims()
            .iter()
            .zip(pads)
            .map(|(&d, &(b, a))| d + b + a)
            .collect();
        let mut out = Self::full(dims, value)?;
        let mut inner = out.clone();
        for (i, &(b, _)) in pads.iter().enumerate() {
            inner = inner.narrow(i as i64, b, self.dims()[i])?;
        }
        inner.copy_from(self)?;
        out.is_view = false;
        Ok(out)
    }

    /// Rotates elements by `shift` along `axis` (NumPy `roll`): element `i` moves to `i + shift`.
    pub fn roll(&self, shift: i64, axis: i64) -> Result<Self> {
        let ax = self.shape().axis("roll", axis)?;
        let d = self.dims()[ax];
        if d == 0 {
            return Ok(self.deep_copy());
        }
        let s = shift.rem_euclid(d as i64) as usize;
        let (head, tail) = (
            self.narrow(ax as i64, d - s, s)?,
            self.narrow(ax as i64, 0, d - s)?,
        );
        Self::concat(&[&head, &tail], ax as i64)
    }

    /// Repeats the whole tensor `reps[i]` times along dimension `i` (NumPy `tile`; missing
    /// leading reps count as 1, extra ones add dimensions).
    pub fn tile(&self, reps: &[usize]) -> Result<Self> {
        let n = reps.len().max(self.ndim());
        let mut t = self.clone();
        while t.ndim() < n {
            t = t.unsqueeze(0)?;
        }
        let reps: Vec<usize> = std::iter::repeat_n(1, n - reps.len())
            .chain(reps.iter().copied())
            .collect();
        for (i, &r) in reps.iter().enumerate() {
            let copies: Vec<&Self> = std::iter::repeat_n(&t, r).collect();
            t = if r == 0 {
                let mut dims = t.dims().to_vec();
                dims[i] = 0;
                Self::zeros(dims)?
            } else {
                Self::concat(&copies, i as i64)?
            };
        }
        Ok(t.contiguous())
    }

    /// Alias of [`Tensor::tile`] (PyTorch's `repeat`).
    pub fn repeat(&self, reps: &[usize]) -> Result<Self> {
        self.tile(reps)
    }

    /// Repeats each element `n` times along `axis` (NumPy `repeat`, PyTorch `repeat_interleave`).
    pub fn repeat_interleave(&self, n: usize, axis: i64) -> Result<Self> {
        let ax = self.shape().axis("repeat_interleave", axis)?;
        let idx: Vec<i64> = (0..self.dims()[ax] as i64)
            .flat_map(|i| std::iter::repeat_n(i, n))
            .collect();
        let len = idx.len();
        self.index_select(ax as i64, &Tensor::from_vec(idx, [len])?)
    }

    /// The indices that sort each slice along `axis`, stably, ascending or descending; NaN
    /// sorts last either way (NumPy `argsort(kind="stable")`).
    pub fn argsort(&self, axis: i64, descending: bool) -> Result<Tensor<i64, Cpu>> {
        let ax = self.shape().axis("argsort", axis)?;
        let n = self.ndim();
        let mut perm: Vec<usize> = (0..n).filter(|&i| i != ax).collect();
        perm.push(ax);
        let moved = self.permute_usize(&perm)?.contiguous();
        let len = self.dims()[ax];
        let v = moved.to_vec();
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
        Ok(sorted.permute_usize(&inv)?.contiguous())
    }

    /// Sorted values and their indices along `axis` (PyTorch `sort`).
    pub fn sort(&self, axis: i64, descending: bool) -> Result<(Self, Tensor<i64, Cpu>)> {
        let idx = self.argsort(axis, descending)?;
        Ok((self.gather(axis, &idx)?, idx))
    }

    /// The `k` largest values along `axis` in descending order, with their indices (PyTorch
    /// `topk`).
    pub fn topk(&self, k: usize, axis: i64) -> Result<(Self, Tensor<i64, Cpu>)> {
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
            .contiguous();
        Ok((self.gather(axis, &idx)?, idx))
    }
}

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
        let mut out = self.contiguous().to_vec();
        for (&p, &v) in pos.iter().zip(&src.to_vec()) {
            out[p] = out[p].add(v);
        }
        Self::from_vec(out, self.shape().clone())
    }
}
