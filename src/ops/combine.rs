//! Combining ops built once for every device from views and the [`Backend`] steps
//! (NumPy/PyTorch semantics): `split`, `chunk`, `tril`/`triu`, `diag`,
//! `diag_embed`, `pad`, `roll`, `tile`/`repeat`, `repeat_interleave`, and `from_vec_on`.
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let a = tensor![[1i32, 2], [3, 4]];
//! let both = Tensor::concat(&[&a, &a], 0);
//! assert_eq!(both.dims(), &[4, 2]);
//! let parts = both.try_split(&[1, 3], 0)?; // views
//! assert_eq!(parts[1].dims(), &[3, 2]);
//! assert_eq!(a.triu(0).to_vec(), vec![1, 2, 0, 4]);
//! assert_eq!(a.pad(&[(0, 0), (1, 0)], 0).to_vec(), vec![0, 1, 2, 0, 3, 4]);
//! assert_eq!(tensor![1i32, 2].tile(&[2]).to_vec(), vec![1, 2, 1, 2]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::Element;
use crate::error::{Error, OrPanic, Result};
use crate::shape::Shape;
use crate::tensor::{Tensor, checked_data_shape};

impl<T: Element, D: Backend> Tensor<T, D> {
    /// A tensor on `device` holding `data` in row-major order (a host-to-device copy for CUDA).
    ///
    /// # Errors
    /// `DataLength` when `data.len()` is not the shape's element count, `ShapeOverflow` when
    /// that count overflows; `Device` when the copy fails.
    pub fn from_vec_on(data: Vec<T>, shape: impl Into<Shape>, device: &D) -> Result<Self> {
        Self::from_slice_on(&data, shape, device)
    }

    /// A tensor on `device` holding a copy of `data` in row-major order ([`Tensor::from_slice`]
    /// on any device).
    ///
    /// # Errors
    /// As [`Tensor::from_vec_on`].
    pub fn from_slice_on(data: &[T], shape: impl Into<Shape>, device: &D) -> Result<Self> {
        let shape = checked_data_shape("from_slice_on", data.len(), shape.into())?;
        Ok(Self::from_storage(device.upload(data)?, shape, device))
    }

    /// A new contiguous tensor with `self`'s values (a copy on `self`'s device).
    fn packed_copy(&self) -> Result<Self> {
        let mut out = Self::zeros_on(self.shape().clone(), &self.device)?;
        out.copy_from(self)?;
        let op = crate::autograd::Op::Copy("copy");
        Ok(crate::autograd::record(out, op, &[self], &[self]))
    }

    /// Views of consecutive pieces of `sizes[i]` elements along `axis` (PyTorch `split` with a
    /// list). The sizes must add up to the dimension.
    pub fn try_split(&self, sizes: &[usize], axis: i64) -> Result<Vec<Self>> {
        let ax = self.shape().axis("split", axis)?;
        let total = sizes.iter().try_fold(0usize, |a, &n| a.checked_add(n));
        if total != Some(self.dims()[ax]) {
            return Err(Error::InvalidArgument {
                op: "split",
                msg: format!(
                    "sizes {sizes:?} do not add up to dimension {ax} of shape {}",
                    self.shape()
                ),
            });
        }
        let mut out = crate::alloc::with_capacity("split", sizes.len())?;
        let mut off = 0;
        for &n in sizes {
            out.push(self.narrow(ax as i64, off, n)?);
            off += n;
        }
        Ok(out)
    }

    /// `n` views of (nearly) equal size along `axis`; the last may be smaller (PyTorch `chunk`).
    pub fn try_chunk(&self, n: usize, axis: i64) -> Result<Vec<Self>> {
        let ax = self.shape().axis("chunk", axis)?;
        if n == 0 {
            return Err(Error::InvalidArgument {
                op: "chunk",
                msg: "needs at least one chunk".into(),
            });
        }
        let d = self.dims()[ax];
        let step = d.div_ceil(n).max(1);
        // Reserved fallibly: an empty tensor's axis can be 2^40 long.
        let mut sizes = crate::alloc::with_capacity("chunk", d.div_ceil(step))?;
        sizes.extend((0..d).step_by(step).map(|s| step.min(d - s)));
        self.try_split(&sizes, axis)
    }

    /// The elements on and below the `k`-th diagonal of the last two dimensions (NumPy `tril`);
    /// the rest are zero.
    pub fn try_tril(&self, k: i64) -> Result<Self> {
        self.triangle("tril", k, true)
    }

    /// The elements on and above the `k`-th diagonal (NumPy `triu`).
    pub fn try_triu(&self, k: i64) -> Result<Self> {
        self.triangle("triu", k, false)
    }

    fn triangle(&self, op: &'static str, k: i64, lower: bool) -> Result<Self> {
        if self.ndim() < 2 {
            return Err(Error::InvalidArgument {
                op,
                msg: format!("needs at least 2 dimensions, got {}", self.shape()),
            });
        }
        if self.numel() == 0 {
            // Nothing to mask (and r · c may not even fit: shape (0, 2^40, 2^40)).
            return self.try_contiguous();
        }
        let n = self.ndim();
        let (r, c) = (self.dims()[n - 2], self.dims()[n - 1]);
        // r * c fits: it is at most the element count of the non-empty `self`.
        let rc = r * c;
        // Row `i` keeps `j <= i + k` (lower) or `j >= i + k`: one cut per row, filled.
        let mut mask = crate::alloc::try_vec(op, rc, false)?;
        for (i, row) in mask.chunks_mut(c).enumerate() {
            let edge = (i as i128 + k as i128 + lower as i128).clamp(0, c as i128) as usize;
            match lower {
                true => row[..edge].fill(true),
                false => row[edge..].fill(true),
            }
        }
        let mask = Tensor::<bool, D>::from_vec_on(mask, [r, c], &self.device)?;
        Self::try_where(&mask, self, &Self::scalar_on(T::ZERO, &self.device)?)
    }

    /// For a 1-d tensor, the square matrix with it on the `k`-th diagonal; for a 2-d tensor, a
    /// copy of its `k`-th diagonal (NumPy `diag`).
    pub fn try_diag(&self, k: i64) -> Result<Self> {
        match self.ndim() {
            1 => {
                let n = usize::try_from(k.unsigned_abs())
                    .ok()
                    .and_then(|k| self.numel().checked_add(k))
                    .ok_or_else(|| Error::InvalidArgument {
                        op: "diag",
                        msg: format!("diagonal {k} makes the matrix side overflow usize"),
                    })?;
                let out = Self::zeros_on([n, n], &self.device)?;
                out.diagonal(k)?.copy_from(self)?;
                let op = crate::autograd::Op::Diag(k);
                Ok(crate::autograd::record(out, op, &[self], &[]))
            }
            2 => self.diagonal(k)?.packed_copy(),
            _ => Err(Error::InvalidArgument {
                op: "diag",
                msg: format!("takes a 1-d or 2-d tensor, got {}", self.shape()),
            }),
        }
    }

    /// `(..., n) → (..., n, n)` with the last dimension on the diagonal (PyTorch `diag_embed`).
    pub fn try_diag_embed(&self) -> Result<Self> {
        let mut dims = self.dims().to_vec();
        let n = *dims.last().ok_or_else(|| Error::InvalidArgument {
            op: "diag_embed",
            msg: "needs at least 1 dimension".into(),
        })?;
        dims.push(n);
        let out = Self::zeros_on(dims, &self.device)?;
        out.diagonal(0)?.copy_from(self)?;
        let op = crate::autograd::Op::Diag(0);
        Ok(crate::autograd::record(out, op, &[self], &[]))
    }

    /// Pads with `value`: `pads[i] = (before, after)` for dimension `i` (NumPy `pad` with a
    /// constant).
    pub fn try_pad(&self, pads: &[(usize, usize)], value: T) -> Result<Self> {
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
            .map(|(&d, &(b, a))| d.checked_add(b)?.checked_add(a))
            .collect::<Option<_>>()
            .ok_or_else(|| Error::ShapeOverflow {
                op: "pad",
                dims: self.dims().to_vec(),
            })?;
        let mut out = Self::full_on(dims, value, &self.device)?;
        let mut inner = out.clone();
        for (i, &(b, _)) in pads.iter().enumerate() {
            inner = inner.narrow(i as i64, b, self.dims()[i])?;
        }
        inner.copy_from(self)?;
        out.is_view = false;
        let op = crate::autograd::Op::Pad(pads.iter().map(|p| p.0).collect());
        Ok(crate::autograd::record(out, op, &[self], &[self]))
    }

    /// Rotates elements by `shift` along `axis` (NumPy `roll`): element `i` moves to `i + shift`.
    pub fn try_roll(&self, shift: i64, axis: i64) -> Result<Self> {
        let ax = self.shape().axis("roll", axis)?;
        let d = self.dims()[ax];
        if d == 0 {
            return self.packed_copy();
        }
        let s = shift.rem_euclid(d as i64) as usize;
        let (head, tail) = (
            self.narrow(ax as i64, d - s, s)?,
            self.narrow(ax as i64, 0, d - s)?,
        );
        Self::try_concat(&[&head, &tail], ax as i64)
    }

    /// [`Tensor::try_roll`] of the flattened tensor, reshaped back (NumPy `roll` with
    /// `axis=None`, PyTorch `roll` without `dims`).
    ///
    /// # Errors
    /// Allocation failure.
    pub fn try_roll_flat(&self, shift: i64) -> Result<Self> {
        self.try_flatten()?
            .try_roll(shift, 0)?
            .try_reshape(self.shape().clone())
    }

    /// Rotates by `shifts[k]` along `axes[k]` for every `k`, in turn (PyTorch `roll` with
    /// tuples, NumPy `roll` with tuples; an axis named twice rolls by the sum).
    ///
    /// # Errors
    /// `InvalidArgument` when the lists differ in length; `Axis` for a bad axis.
    pub fn try_roll_axes(&self, shifts: &[i64], axes: &[i64]) -> Result<Self> {
        if shifts.len() != axes.len() {
            return Err(Error::InvalidArgument {
                op: "roll",
                msg: format!(
                    "{} shifts for {} axes; pass one shift per axis",
                    shifts.len(),
                    axes.len()
                ),
            });
        }
        let mut t = self.clone();
        for (&s, &a) in shifts.iter().zip(axes) {
            t = t.try_roll(s, a)?;
        }
        Ok(t)
    }

    /// Repeats each slice along `axis` the number of times `repeats` gives for it
    /// (PyTorch `repeat_interleave` with a tensor of repeats, NumPy `repeat` with an array):
    /// `repeats` is 1-d with one count per slice, or one count for all; `None` flattens
    /// first. The counts are read back from the device.
    ///
    /// # Errors
    /// `InvalidArgument` for a negative count or a `repeats` of the wrong length;
    /// `ShapeOverflow` when the total overflows; `Axis`, `Device`.
    pub fn try_repeat_interleave_by(
        &self,
        repeats: &Tensor<i64, D>,
        axis: Option<i64>,
    ) -> Result<Self> {
        let op = "repeat_interleave";
        crate::ops::device_ops::same_device(op, self, repeats)?;
        let (x, ax) = match axis {
            None => (self.try_flatten()?, 0),
            Some(a) => (self.clone(), self.shape().axis(op, a)?),
        };
        let len = x.dims()[ax];
        let counts = repeats.try_to_vec()?;
        if repeats.ndim() > 1 || !(counts.len() == len || counts.len() == 1) {
            return Err(Error::InvalidArgument {
                op,
                msg: format!(
                    "needs 1 or {len} repeats (one per slice), got shape {}",
                    repeats.shape()
                ),
            });
        }
        if let Some(c) = counts.iter().find(|&&c| c < 0) {
            return Err(Error::InvalidArgument {
                op,
                msg: format!("repeats must be non-negative, got {c}"),
            });
        }
        let count = |i: usize| counts[if counts.len() == 1 { 0 } else { i }] as usize;
        // One count for every slice: a product, not a loop over a possibly huge empty axis.
        let total = match counts[..] {
            [c] => len.checked_mul(c as usize),
            _ => (0..len).try_fold(0usize, |acc, i| acc.checked_add(count(i))),
        }
        .ok_or_else(|| Error::ShapeOverflow {
            op,
            dims: x.dims().to_vec(),
        })?;
        let mut dims = x.dims().to_vec();
        dims[ax] = total;
        if Shape::new(dims.clone()).checked_numel(op, T::SIZE.max(8))? == 0 {
            return x.empty_as(ax, dims);
        }
        let idx = crate::alloc::collect(
            op,
            total,
            (0..len).flat_map(|i| std::iter::repeat_n(i as i64, count(i))),
        )?;
        x.try_index_select(ax as i64, &Tensor::from_vec_on(idx, [total], &self.device)?)
    }

    /// An empty result of shape `dims` that keeps the graph (a zero-length slice along `axis`,
    /// reshaped), built without a host index as long as an input axis, which may be huge.
    fn empty_as(&self, axis: usize, dims: Vec<usize>) -> Result<Self> {
        self.narrow(axis as i64, 0, 0)?.try_reshape(dims)
    }

    /// Repeats the whole tensor `reps[i]` times along dimension `i` (NumPy `tile`; missing
    /// leading reps count as 1, extra ones add dimensions).
    pub fn try_tile(&self, reps: &[usize]) -> Result<Self> {
        let n = reps.len().max(self.ndim());
        let mut t = self.clone();
        while t.ndim() < n {
            t = t.unsqueeze(0)?;
        }
        let reps: Vec<usize> = std::iter::repeat_n(1, n - reps.len())
            .chain(reps.iter().copied())
            .collect();
        // The result's shape, checked before any copy is made.
        let out_dims: Vec<usize> = t
            .dims()
            .iter()
            .zip(&reps)
            .map(|(&d, &r)| d.checked_mul(r))
            .collect::<Option<_>>()
            .ok_or_else(|| Error::ShapeOverflow {
                op: "tile",
                dims: t.dims().to_vec(),
            })?;
        let out_shape = Shape::new(out_dims);
        if out_shape.checked_numel("tile", T::SIZE)? == 0 {
            return Self::zeros_on(out_shape, &self.device);
        }
        // One copy, whatever the reps: axis i viewed as (reps[i], d_i), the repeats a
        // broadcast axis (stride 0), then merged. (A list of reps[i] copies to concatenate
        // held 8 bytes a repeat: 25 GB before anything was refused for 2^41 elements.)
        let mut split = Vec::with_capacity(2 * n);
        for (&d, &r) in t.dims().iter().zip(&reps) {
            split.extend([r, d]);
        }
        let mut v = t.clone();
        for i in 0..n {
            v = v.unsqueeze(2 * i as i64)?;
        }
        let t = v.expand(split)?.try_reshape(out_shape)?;
        if t.shares_storage_with(self) {
            return t.packed_copy();
        }
        Ok(t)
    }

    /// Alias of [`Tensor::try_tile`] (PyTorch's `repeat`).
    pub fn try_repeat(&self, reps: &[usize]) -> Result<Self> {
        self.try_tile(reps)
    }

    /// Repeats each element `n` times along `axis` (NumPy `repeat`, PyTorch `repeat_interleave`).
    pub fn try_repeat_interleave(&self, n: usize, axis: i64) -> Result<Self> {
        let op = "repeat_interleave";
        let ax = self.shape().axis(op, axis)?;
        let len = self.dims()[ax]
            .checked_mul(n)
            .ok_or_else(|| Error::ShapeOverflow {
                op,
                dims: self.dims().to_vec(),
            })?;
        let mut dims = self.dims().to_vec();
        dims[ax] = len;
        if Shape::new(dims.clone()).checked_numel(op, T::SIZE.max(8))? == 0 {
            return self.empty_as(ax, dims);
        }
        let idx = crate::alloc::collect(
            op,
            len,
            (0..self.dims()[ax] as i64).flat_map(|i| std::iter::repeat_n(i, n)),
        )?;
        let len = idx.len();
        self.try_index_select(ax as i64, &Tensor::from_vec_on(idx, [len], &self.device)?)
    }

    plain_forms! {
        /// [`Tensor::try_pad`], panicking with its error.
        pad, try_pad(pads: &[(usize, usize)], value: T) -> Self;
        /// [`Tensor::try_split`], panicking with its error.
        split, try_split(sizes: &[usize], axis: i64) -> Vec<Self>;
        /// [`Tensor::try_chunk`], panicking with its error.
        chunk, try_chunk(n: usize, axis: i64) -> Vec<Self>;
        /// [`Tensor::try_tril`], panicking with its error.
        tril, try_tril(k: i64) -> Self;
        /// [`Tensor::try_triu`], panicking with its error.
        triu, try_triu(k: i64) -> Self;
        /// [`Tensor::try_diag`], panicking with its error.
        diag, try_diag(k: i64) -> Self;
        /// [`Tensor::try_diag_embed`], panicking with its error.
        diag_embed, try_diag_embed() -> Self;
        /// [`Tensor::try_roll`], panicking with its error.
        roll, try_roll(shift: i64, axis: i64) -> Self;
        /// [`Tensor::try_roll_flat`], panicking with its error.
        roll_flat, try_roll_flat(shift: i64) -> Self;
        /// [`Tensor::try_roll_axes`], panicking with its error.
        roll_axes, try_roll_axes(shifts: &[i64], axes: &[i64]) -> Self;
        /// [`Tensor::try_tile`], panicking with its error.
        tile, try_tile(reps: &[usize]) -> Self;
        /// [`Tensor::try_repeat`], panicking with its error.
        repeat, try_repeat(reps: &[usize]) -> Self;
        /// [`Tensor::try_repeat_interleave`], panicking with its error.
        repeat_interleave, try_repeat_interleave(n: usize, axis: i64) -> Self;
        /// [`Tensor::try_repeat_interleave_by`], panicking with its error.
        repeat_interleave_by, try_repeat_interleave_by(repeats: &Tensor<i64, D>, axis: Option<i64>) -> Self;
    }
}
