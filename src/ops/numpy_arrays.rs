//! NumPy's array routines not covered elsewhere: `packbits`/`unpackbits`, `matvec`/`vecmat`
//! (NumPy 2.2), `rollaxis`, `choose`, `array_equiv`, `unique_all`, `apply_along_axis`,
//! `indices` and `fromfunction`. Each is composed of this crate's ops, so it runs on every
//! device, and those computing floats are differentiable where their parts are.
//!
//! ```
//! use typed_tensor::ops::numpy_arrays::{BitOrder, ChooseMode};
//! use typed_tensor::prelude::*;
//!
//! let bits = tensor![[true, false, true], [false, false, true]];
//! let packed = bits.try_packbits(Some(-1), BitOrder::Big)?; // 101_00000, 001_00000
//! assert_eq!(packed.to_vec(), vec![160u8, 32]);
//! let back = packed.try_unpackbits(Some(-1), Some(3), BitOrder::Big)?;
//! assert_eq!(back.to_vec(), vec![1u8, 0, 1, 0, 0, 1]);
//! let m = tensor![[1.0f64, 2.0], [3.0, 4.0]];
//! assert_eq!(m.try_matvec(&tensor![1.0f64, 1.0])?.to_vec(), vec![3.0, 7.0]);
//! assert_eq!(tensor![1.0f64, 1.0].try_vecmat(&m)?.to_vec(), vec![4.0, 6.0]);
//! let pick = tensor![1i64, 0, 1];
//! let c = Tensor::try_choose(&pick, &[&tensor![1, 2, 3], &tensor![10, 20, 30]], ChooseMode::Raise)?;
//! assert_eq!(c.to_vec(), vec![10, 2, 30]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::device::Cpu;
use crate::dtype::{Element, NumElement};
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// The order of the bits in a byte for [`Tensor::try_packbits`] and
/// [`Tensor::try_unpackbits`] (NumPy's `bitorder`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BitOrder {
    /// The first element is the most significant bit (NumPy's default, `"big"`).
    #[default]
    Big,
    /// The first element is the least significant bit (`"little"`).
    Little,
}

/// What [`Tensor::try_choose`] does with an index outside `0..choices.len()` (NumPy's `mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ChooseMode {
    /// An `Err` (NumPy's default, `"raise"`).
    #[default]
    Raise,
    /// The index modulo the number of choices (`"wrap"`).
    Wrap,
    /// The index clipped to `0..choices.len()` (`"clip"`).
    Clip,
}

/// `self` flattened when `axis` is `None`, with the axis it works along.
fn along<T: Element, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    axis: Option<i64>,
) -> Result<(Tensor<T, D>, usize)> {
    match axis {
        None => Ok((x.try_reshape([x.numel()])?, 0)),
        Some(a) => Ok((x.clone(), x.shape().axis(op, a)?)),
    }
}

/// A `[len]` tensor of `values`, shaped to broadcast along axis `ax` of an `ndim`-d tensor.
fn along_axis<T: Element, D: Backend>(
    values: Vec<T>,
    ax: usize,
    ndim: usize,
    dev: &D,
) -> Result<Tensor<T, D>> {
    let mut dims = vec![1; ndim];
    dims[ax] = values.len();
    Tensor::from_vec_on(values, dims, dev)
}

impl<T: Element, D: Backend> Tensor<T, D> {
    /// The elements' truth values (nonzero is 1) packed 8 to a byte along `axis` (flattened
    /// when `None`), the last byte padded with zero bits (NumPy `packbits`). The result is
    /// `u8`, with `ceil(n / 8)` bytes along the axis.
    ///
    /// # Errors
    /// `Axis` for an invalid axis (a 0-d tensor has none: pass `None`).
    pub fn try_packbits(&self, axis: Option<i64>, order: BitOrder) -> Result<Tensor<u8, D>> {
        let (x, ax) = along("packbits", self, axis)?;
        let bits = x.try_cast::<bool>()?.try_cast::<u8>()?;
        let n = x.dims()[ax];
        let bytes = n.div_ceil(8);
        let mut pads = vec![(0, 0); x.ndim()];
        pads[ax] = (0, bytes * 8 - n);
        let mut dims = x.dims().to_vec();
        dims.splice(ax..=ax, [bytes, 8]);
        let grouped = bits.try_pad(&pads, 0)?.try_reshape(dims)?;
        let weights: Vec<u8> = match order {
            BitOrder::Big => (0..8).rev().map(|k| 1 << k).collect(),
            BitOrder::Little => (0..8).map(|k| 1 << k).collect(),
        };
        let w = along_axis(weights, ax + 1, grouped.ndim(), self.device_handle())?;
        grouped
            .try_mul(&w)?
            .try_sum(&[ax as i64 + 1], false)?
            .try_cast::<u8>()
    }

    /// NumPy's `array_equiv`: whether the shapes broadcast together and every pair of elements
    /// is equal (NaN equals nothing). Shapes that do not broadcast give `false`, not an `Err`.
    ///
    /// # Errors
    /// `Device` when the tensors are on different devices.
    pub fn try_array_equiv(&self, other: &Self) -> Result<bool> {
        if crate::shape::broadcast_shapes("array_equiv", self.shape(), other.shape()).is_err() {
            return Ok(false);
        }
        self.try_eq(other)?.try_all(&[], false)?.try_item()
    }

    /// NumPy's `unique_all`: the sorted distinct values, the flat index of each one's first
    /// occurrence, each element's position among the values (in `self`'s shape) and the
    /// counts, as [`Tensor::try_unique`] finds them.
    ///
    /// # Errors
    /// As [`Tensor::try_unique`].
    pub fn try_unique_all(&self) -> Result<UniqueAll<T, D>> {
        let (values, inverse, counts) = self.try_unique()?;
        let dev = self.device_handle();
        let n = self.numel() as i64;
        let positions = Tensor::<i64, D>::arange_on(0, n, 1, dev)?;
        let first = Tensor::<i64, D>::full_on([values.numel()], n, dev)?.try_scatter_reduce(
            0,
            &inverse.try_reshape([self.numel()])?,
            &positions,
            crate::ops::scatter_reduce::ScatterReduce::Amin,
            true,
        )?;
        Ok((values, first, inverse, counts))
    }

    /// Applies `f` to every 1-d slice of `self` along `axis` and assembles the results (NumPy
    /// `apply_along_axis`): results of shape `r` give a tensor of shape `self.shape[..axis] ++
    /// r ++ self.shape[axis + 1..]`. `f` runs once per slice, in row-major order of the other
    /// axes.
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    /// let x = tensor![[3.0f64, 1.0, 2.0], [6.0, 5.0, 4.0]];
    /// let top = x.try_apply_along_axis(1, |row| row.try_amax(&[0], true))?;
    /// assert_eq!((top.dims(), top.to_vec()), (&[2, 1][..], vec![3.0, 6.0]));
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// `Axis` for an invalid axis; `InvalidArgument` when another axis is empty (NumPy's
    /// rule) or the results' shapes differ; `f`'s errors; allocation failure.
    pub fn try_apply_along_axis<U: Element>(
        &self,
        axis: i64,
        mut f: impl FnMut(&Self) -> Result<Tensor<U, D>>,
    ) -> Result<Tensor<U, D>> {
        let op = "apply_along_axis";
        let ax = self.shape().axis(op, axis)?;
        let n = self.dims()[ax];
        let outer: Vec<usize> = (self.dims().iter().enumerate())
            .filter(|&(i, _)| i != ax)
            .map(|(_, &d)| d)
            .collect();
        if outer.contains(&0) {
            return Err(Error::InvalidArgument {
                op,
                msg: format!(
                    "cannot apply along axis {axis} of shape {}: another axis is empty (NumPy's rule)",
                    self.shape()
                ),
            });
        }
        let rows = crate::shape::numel_of(outer.iter().copied());
        let lines = self.moveaxis(&[ax as i64], &[-1])?.try_reshape([rows, n])?;
        let mut results: Vec<Tensor<U, D>> = crate::alloc::with_capacity(op, rows)?;
        for r in 0..rows {
            let out = f(&lines.select(0, r as i64)?)?;
            if let Some(first) = results.first()
                && first.shape() != out.shape()
            {
                return Err(Error::ShapeMismatch {
                    op,
                    lhs: first.shape().clone(),
                    rhs: out.shape().clone(),
                    msg: format!("the function's result for slice {r} has another shape"),
                });
            }
            results.push(out);
        }
        let parts: Vec<&Tensor<U, D>> = results.iter().collect();
        let stacked = Tensor::try_stack(&parts, 0)?;
        // (outer ++ r) → (before ++ r ++ after).
        let r = stacked.ndim() - 1;
        let mut dims = outer.clone();
        dims.extend_from_slice(&stacked.dims()[1..]);
        let grid = stacked.try_reshape(dims)?;
        let perm: Vec<i64> = (0..ax)
            .chain(outer.len()..outer.len() + r)
            .chain(ax..outer.len())
            .map(|i| i as i64)
            .collect();
        grid.permute(&perm)
    }

    /// NumPy's `choose`: element `i` of the result is `choices[index[i]][i]`, with `index` and
    /// every choice broadcast together; `mode` treats indices outside `0..choices.len()`.
    /// Differentiable in the choices (through `gather`).
    ///
    /// # Errors
    /// `InvalidArgument` without choices, or (with [`ChooseMode::Raise`]) for an index out of
    /// range, naming it; `Broadcast` when the shapes do not broadcast; `Device` across
    /// devices.
    pub fn try_choose(index: &Tensor<i64, D>, choices: &[&Self], mode: ChooseMode) -> Result<Self> {
        let op = "choose";
        let k = choices.len() as i64;
        if k == 0 {
            return Err(Error::InvalidArgument {
                op,
                msg: "needs at least one choice".into(),
            });
        }
        let mut shape = index.shape().clone();
        for c in choices {
            shape = crate::shape::broadcast_shapes(op, &shape, c.shape())?;
        }
        let index = match mode {
            ChooseMode::Raise => {
                if index.numel() > 0 {
                    let lo = index.try_min(&[], false)?.try_item()?;
                    let hi = index.try_max(&[], false)?.try_item()?;
                    if lo < 0 || hi >= k {
                        let bad = if lo < 0 { lo } else { hi };
                        return Err(Error::InvalidArgument {
                            op,
                            msg: format!(
                                "index {bad} is out of range for {k} choices; use ChooseMode::Wrap or Clip"
                            ),
                        });
                    }
                }
                index.clone()
            }
            ChooseMode::Wrap => index.try_remainder_scalar(k)?,
            ChooseMode::Clip => index.try_clip(0, k - 1)?,
        };
        let wide = (choices.iter())
            .map(|c| c.broadcast_to(shape.dims()))
            .collect::<Result<Vec<_>>>()?;
        let parts: Vec<&Self> = wide.iter().collect();
        let stacked = Self::try_stack(&parts, 0)?;
        let at = index
            .broadcast_to(shape.dims())?
            .unsqueeze(0)?
            .try_contiguous()?;
        stacked.try_gather(0, &at)?.squeeze_dims(&[0])
    }
}

/// What [`Tensor::try_unique_all`] returns: values, first indices, inverse, counts.
pub type UniqueAll<T, D> = (Tensor<T, D>, Tensor<i64, D>, Tensor<i64, D>, Tensor<i64, D>);

impl<D: Backend> Tensor<u8, D> {
    /// Each byte's 8 bits as `u8` 0/1 elements along `axis` (flattened when `None`), keeping
    /// the first `count` bits along it (NumPy `unpackbits`): a negative count drops that many
    /// from the end, one beyond the bits pads with zeros.
    ///
    /// # Errors
    /// `Axis` for an invalid axis; `InvalidArgument` when a negative `count` drops more bits
    /// than there are.
    pub fn try_unpackbits(
        &self,
        axis: Option<i64>,
        count: Option<i64>,
        order: BitOrder,
    ) -> Result<Tensor<u8, D>> {
        let op = "unpackbits";
        let (x, ax) = along(op, self, axis)?;
        let shifts: Vec<u8> = match order {
            BitOrder::Big => (0..8).rev().collect(),
            BitOrder::Little => (0..8).collect(),
        };
        let wide = x.unsqueeze(ax as i64 + 1)?;
        let s = along_axis(shifts, ax + 1, wide.ndim(), self.device_handle())?;
        let bits = wide
            .try_bitwise_right_shift(&s)?
            .try_bitwise_and(&Tensor::scalar_on(1, self.device_handle())?)?;
        let mut dims = x.dims().to_vec();
        let total = dims[ax]
            .checked_mul(8)
            .ok_or_else(|| Error::InvalidArgument {
                op,
                msg: format!("{} bytes along the axis overflow the bit count", dims[ax]),
            })?;
        dims[ax] = total;
        let bits = bits.try_reshape(dims)?;
        let keep = match count {
            None => return Ok(bits),
            Some(c) if c >= 0 => c as u64,
            Some(c) => match (total as u64).checked_sub(c.unsigned_abs()) {
                Some(k) => k,
                None => {
                    return Err(Error::InvalidArgument {
                        op,
                        msg: format!("count {c} drops more than the {total} bits along the axis"),
                    });
                }
            },
        };
        if keep <= total as u64 {
            return bits.narrow(ax as i64, 0, keep as usize)?.try_contiguous();
        }
        let mut pads = vec![(0, 0); bits.ndim()];
        pads[ax] = (0, usize::try_from(keep).unwrap_or(usize::MAX) - total);
        bits.try_pad(&pads, 0)
    }
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// NumPy 2.2's `matvec`: matrices `(..., M, N)` times vectors `(..., N)`, giving `(..., M)`;
    /// the batch axes broadcast. Differentiable as `matmul`.
    ///
    /// # Errors
    /// `ShapeMismatch` when `self` has fewer than 2 dimensions, `v` none, the inner sizes
    /// differ or the batch axes do not broadcast.
    pub fn try_matvec(&self, v: &Self) -> Result<Self> {
        if self.ndim() < 2 || v.ndim() < 1 {
            return Err(Error::ShapeMismatch {
                op: "matvec",
                lhs: self.shape().clone(),
                rhs: v.shape().clone(),
                msg: "needs matrices (..., M, N) and vectors (..., N)".into(),
            });
        }
        self.try_matmul(&v.unsqueeze(-1)?)?.squeeze_dims(&[-1])
    }

    /// NumPy 2.2's `vecmat`: vectors `(..., M)` times matrices `(..., M, N)`, giving `(..., N)`;
    /// the batch axes broadcast. Differentiable as `matmul`.
    ///
    /// # Errors
    /// As [`Tensor::try_matvec`], with the operands' roles swapped.
    pub fn try_vecmat(&self, m: &Self) -> Result<Self> {
        if self.ndim() < 1 || m.ndim() < 2 {
            return Err(Error::ShapeMismatch {
                op: "vecmat",
                lhs: self.shape().clone(),
                rhs: m.shape().clone(),
                msg: "needs vectors (..., M) and matrices (..., M, N)".into(),
            });
        }
        self.unsqueeze(-2)?.try_matmul(m)?.squeeze_dims(&[-2])
    }

    /// One grid per axis of `dims`, each holding its axis's index at every position, as `T`:
    /// the coordinate arrays of NumPy `indices`, stacked there along a new first axis
    /// (`Tensor::try_stack(&grids, 0)` gives NumPy's array). Each grid is a broadcast view.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn index_grids_on(dims: &[usize], device: &D) -> Result<Vec<Self>> {
        (0..dims.len())
            .map(|i| {
                let n = i64::try_from(dims[i]).map_err(|_| Error::InvalidArgument {
                    op: "indices",
                    msg: format!("axis {i} of {} elements is too long", dims[i]),
                })?;
                let mut shape = vec![1; dims.len()];
                shape[i] = dims[i];
                Tensor::<i64, D>::arange_on(0, n, 1, device)?
                    .try_cast::<T>()?
                    .try_reshape(shape)?
                    .expand(dims.to_vec())
            })
            .collect()
    }

    /// NumPy's `fromfunction`: `f` called once with the index grids of `dims` (see
    /// [`Tensor::index_grids_on`]; NumPy passes float grids by default, here they are `T`).
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    /// let t = Tensor::<f64>::fromfunction(&[2, 3], |ij| ij[0].try_mul_scalar(10.0)?.try_add(&ij[1]))?;
    /// assert_eq!(t.to_vec(), vec![0.0, 1.0, 2.0, 10.0, 11.0, 12.0]);
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// `f`'s errors; as [`Tensor::index_grids_on`].
    pub fn fromfunction_on<U: Element>(
        dims: &[usize],
        device: &D,
        f: impl FnOnce(&[Self]) -> Result<Tensor<U, D>>,
    ) -> Result<Tensor<U, D>> {
        f(&Self::index_grids_on(dims, device)?)
    }
}

impl<T: NumElement> Tensor<T, Cpu> {
    /// [`Tensor::fromfunction_on`] on the CPU.
    ///
    /// # Errors
    /// As [`Tensor::fromfunction_on`].
    pub fn fromfunction<U: Element>(
        dims: &[usize],
        f: impl FnOnce(&[Self]) -> Result<Tensor<U, Cpu>>,
    ) -> Result<Tensor<U, Cpu>> {
        Self::fromfunction_on(dims, &Cpu, f)
    }
}

impl<T: Element, D: Backend> Tensor<T, D> {
    /// NumPy's `rollaxis`: axis `axis` moved to just before position `start` (a view).
    /// Superseded in NumPy by `moveaxis` ([`Tensor::moveaxis`]), kept for ported code.
    ///
    /// # Errors
    /// `Axis` when `axis` is outside `-ndim..ndim` or `start` outside `-ndim..=ndim`.
    pub fn rollaxis(&self, axis: i64, start: i64) -> Result<Self> {
        let op = "rollaxis";
        let n = self.ndim() as i64;
        let a = self.shape().axis(op, axis)? as i64;
        let s = if start < 0 { start + n } else { start };
        if !(0..=n).contains(&s) {
            return Err(Error::Axis {
                op,
                axis: start,
                shape: self.shape().clone(),
                ndim: self.ndim(),
                msg: "start must lie in -ndim..=ndim",
            });
        }
        let to = if a < s { s - 1 } else { s };
        self.moveaxis(&[a], &[to])
    }

    /// Applies `f(a, axis)` for each of `axes` in turn, each time to the previous result
    /// (NumPy `apply_over_axes`): `f` must keep the dimension count (a reduction with
    /// `keepdim`) or drop one, which is then put back as size 1 at `axis`. Negative axes count
    /// from the end of `self`'s dimensions.
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    /// let a = Tensor::<f64>::arange(0.0, 24.0, 1.0)?.try_reshape([2, 3, 4])?;
    /// let s = a.try_apply_over_axes(|t, ax| t.try_sum(&[ax], false), &[0, 2])?;
    /// assert_eq!((s.dims(), s.to_vec()), (&[1, 3, 1][..], vec![60.0, 92.0, 124.0]));
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// `Axis` for an axis outside `self`'s; `InvalidArgument` when `f` returns another
    /// dimension count (NumPy's "not returning an array of the correct shape"); `f`'s errors.
    pub fn try_apply_over_axes(
        &self,
        mut f: impl FnMut(&Self, i64) -> Result<Self>,
        axes: &[i64],
    ) -> Result<Self> {
        const OP: &str = "apply_over_axes";
        let mut a = self.clone();
        for &axis in axes {
            let ax = self.shape().axis(OP, axis)? as i64;
            let r = f(&a, ax)?;
            a = if r.ndim() == a.ndim() {
                r
            } else if r.ndim() + 1 == a.ndim() {
                r.unsqueeze(ax)?
            } else {
                return Err(Error::InvalidArgument {
                    op: OP,
                    msg: format!(
                        "the function returned shape {} for axis {axis} of shape {}: it must keep the dimension count or drop that axis",
                        r.shape(),
                        a.shape()
                    ),
                });
            };
        }
        Ok(a)
    }
}

impl<D: Backend> Tensor<i64, D> {
    /// The row and column indices `(rows, cols)` where `mask_func(ones(n, n), k)` is nonzero
    /// (NumPy `mask_indices`), in row-major order, on `device`: with `try_triu` the upper
    /// triangle from diagonal `k`, as `triu_indices`.
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    /// let (r, c) = Tensor::try_mask_indices(3, |m, k| m.try_triu(k), 1, &Cpu)?;
    /// assert_eq!((r.to_vec(), c.to_vec()), (vec![0, 0, 1], vec![1, 2, 2]));
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` when `mask_func` does not return an `(n, n)` mask; `mask_func`'s
    /// errors; `OutOfMemory` for an `n × n` that does not fit.
    pub fn try_mask_indices(
        n: usize,
        mask_func: impl FnOnce(&Self, i64) -> Result<Self>,
        k: i64,
        device: &D,
    ) -> Result<(Self, Self)> {
        let m = mask_func(&Self::ones_on([n, n], device)?, k)?;
        if m.dims() != [n, n] {
            return Err(Error::InvalidArgument {
                op: "mask_indices",
                msg: format!("mask_func returned shape {}, not ({n}, {n})", m.shape()),
            });
        }
        let nz = m.try_nonzero()?;
        let col = |j: i64| nz.select(1, j)?.try_contiguous();
        Ok((col(0)?, col(1)?))
    }
}
