//! NumPy's and PyTorch's names for ops this crate has under another name or in one line:
//! `fliplr`/`flipud`, `moveaxis`, `expand_as`, `msort`, `argwhere`, `diagflat`, `bucketize`,
//! `positive`/`negative`/`absolute`/`fix`/`sgn`,
//! and the constructors `vander`, `tril_indices`/`triu_indices`.
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let m = tensor![[1, 2], [3, 4]];
//! assert_eq!(m.fliplr()?.to_vec(), vec![2, 1, 4, 3]);
//! assert_eq!(tensor![0.5f32, 2.0].bucketize(&tensor![1.0f32, 2.0], false).to_vec(), vec![0, 1]);
//! assert_eq!(tensor![2i32, 3].vander(Some(3), false).to_vec(), vec![4, 2, 1, 9, 3, 1]);
//! let ij = Tensor::<i64>::tril_indices(3, 3, 0)?;
//! assert_eq!(ij.to_vec(), vec![0, 1, 1, 2, 2, 2, 0, 0, 1, 0, 1, 2]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::device::Cpu;
use crate::dtype::{Element, FloatElement, NumElement};
use crate::error::{Error, OrPanic, Result};
use crate::tensor::Tensor;

impl<T: Element, D: Backend> Tensor<T, D> {
    /// The columns in reverse order, a view (NumPy `fliplr`: axis 1).
    ///
    /// # Errors
    /// `Axis` for a tensor of fewer than 2 dimensions.
    pub fn fliplr(&self) -> Result<Self> {
        if self.ndim() < 2 {
            return Err(Error::Axis {
                op: "fliplr",
                axis: 1,
                shape: self.shape().clone(),
                ndim: self.ndim(),
                msg: "needs at least 2 dimensions",
            });
        }
        self.flip(&[1])
    }

    /// The rows in reverse order, a view (NumPy `flipud`: axis 0).
    ///
    /// # Errors
    /// `Axis` for a 0-d tensor.
    pub fn flipud(&self) -> Result<Self> {
        self.shape().axis("flipud", 0)?;
        self.flip(&[0])
    }

    /// NumPy's name for [`Tensor::movedim`].
    ///
    /// # Errors
    /// As [`Tensor::movedim`].
    pub fn moveaxis(&self, source: &[i64], destination: &[i64]) -> Result<Self> {
        self.movedim(source, destination)
    }

    /// `self` broadcast to `other`'s shape, a view (PyTorch `expand_as`).
    ///
    /// # Errors
    /// `Broadcast` when the shape does not broadcast to `other`'s.
    pub fn expand_as<U: Element>(&self, other: &Tensor<U, D>) -> Result<Self> {
        self.broadcast_to(other.shape().clone())
    }

    /// The sorted values along the first axis (PyTorch `msort`, `sort(dim=0).values`).
    ///
    /// # Errors
    /// `Axis` for a 0-d tensor.
    pub fn try_msort(&self) -> Result<Self> {
        Ok(self.try_sort(0, false)?.0)
    }

    /// NumPy's name for [`Tensor::try_nonzero`]: the `(k, ndim)` coordinates of the non-zero
    /// elements.
    ///
    /// # Errors
    /// As [`Tensor::try_nonzero`].
    pub fn try_argwhere(&self) -> Result<Tensor<i64, D>> {
        self.try_nonzero()
    }

    /// The flattened tensor on the `k`-th diagonal of a square matrix (NumPy `diagflat`).
    ///
    /// # Errors
    /// As [`Tensor::try_diag`] of the flattened tensor.
    pub fn try_diagflat(&self, k: i64) -> Result<Self> {
        self.try_reshape([self.numel()])?.try_diag(k)
    }

    plain_forms! {
        /// [`Tensor::try_msort`], panicking with its error.
        msort, try_msort() -> Self;
        /// [`Tensor::try_argwhere`], panicking with its error.
        argwhere, try_argwhere() -> Tensor<i64, D>;
        /// [`Tensor::try_diagflat`], panicking with its error.
        diagflat, try_diagflat(k: i64) -> Self;
    }
}

impl<T: Element, D: Backend> Tensor<T, D> {
    /// The bucket of each element among the sorted 1-d `boundaries` (PyTorch `bucketize`):
    /// the `i` with `boundaries[i-1] < x <= boundaries[i]`, or with `right` the `i` with
    /// `boundaries[i-1] <= x < boundaries[i]`; [`Tensor::try_searchsorted`] with the roles
    /// swapped. As i64, in `self`'s shape.
    ///
    /// # Errors
    /// As [`Tensor::try_searchsorted`] (`boundaries` must be 1-d).
    pub fn try_bucketize(&self, boundaries: &Self, right: bool) -> Result<Tensor<i64, D>> {
        boundaries.try_searchsorted(self, right)
    }

    /// The bin of each element among the monotonic 1-d `bins` (NumPy `digitize`): for
    /// increasing bins the `i` with `bins[i-1] <= x < bins[i]` (with `right`,
    /// `bins[i-1] < x <= bins[i]`), for decreasing bins the mirror image; 0 below (or above)
    /// all bins, `len(bins)` beyond them. As i64, in `self`'s shape. Checking the bins'
    /// order reads one value back from the device.
    ///
    /// # Errors
    /// `InvalidArgument` when `bins` is not 1-d or neither non-decreasing nor non-increasing
    /// (NumPy's `ValueError`); `Device` across devices.
    pub fn try_digitize(&self, bins: &Self, right: bool) -> Result<Tensor<i64, D>> {
        let op = "digitize";
        let n = bins.numel();
        if bins.ndim() != 1 {
            return Err(Error::InvalidArgument {
                op,
                msg: format!("needs 1-d bins, got shape {}", bins.shape()),
            });
        }
        let order = |ok: Tensor<bool, D>| ok.try_all(&[], false)?.try_item();
        let (lo, hi) = (
            bins.narrow(0, 0, n.saturating_sub(1))?,
            bins.narrow(0, 1.min(n), n.saturating_sub(1))?,
        );
        if order(hi.try_ge(&lo)?)? {
            return bins.try_searchsorted(self, !right);
        }
        if !order(hi.try_le(&lo)?)? {
            return Err(Error::InvalidArgument {
                op,
                msg: "the bins must be monotonically increasing or decreasing".into(),
            });
        }
        // Decreasing: count from the end of the reversed bins (NumPy's own reduction).
        bins.flip(&[0])?
            .try_searchsorted(self, !right)?
            .try_rsub_scalar(n as i64)
    }

    plain_forms! {
        /// [`Tensor::try_bucketize`], panicking with its error.
        bucketize, try_bucketize(boundaries: &Self, right: bool) -> Tensor<i64, D>;
        /// [`Tensor::try_digitize`], panicking with its error.
        digitize, try_digitize(bins: &Self, right: bool) -> Tensor<i64, D>;
    }
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// `self` (NumPy and PyTorch `positive`): a view of the same elements.
    pub fn positive(&self) -> Self {
        self.clone()
    }

    /// NumPy's name for [`Tensor::try_neg`].
    ///
    /// # Errors
    /// As [`Tensor::try_neg`].
    pub fn try_negative(&self) -> Result<Self> {
        self.try_neg()
    }

    /// NumPy's name for [`Tensor::try_abs`].
    ///
    /// # Errors
    /// As [`Tensor::try_abs`].
    pub fn try_absolute(&self) -> Result<Self> {
        self.try_abs()
    }

    /// NumPy's and PyTorch's `fix`, [`Tensor::try_trunc`] (rounding toward zero).
    ///
    /// # Errors
    /// As [`Tensor::try_trunc`].
    pub fn try_fix(&self) -> Result<Self> {
        self.try_trunc()
    }

    /// NumPy's and PyTorch's `prod`, [`Tensor::try_product`].
    ///
    /// # Errors
    /// As [`Tensor::try_product`].
    pub fn try_prod(
        &self,
        axes: &[i64],
        keepdim: bool,
    ) -> Result<Tensor<crate::dtype::SumOf<T>, D>> {
        self.try_product(axes, keepdim)
    }

    /// NumPy's `rint`, [`Tensor::try_round`] (half to even).
    ///
    /// # Errors
    /// As [`Tensor::try_round`].
    pub fn try_rint(&self) -> Result<Self> {
        self.try_round()
    }

    /// The matrices in the last two dimensions transposed, a view (NumPy
    /// `matrix_transpose`, PyTorch `mT`).
    ///
    /// # Errors
    /// `InvalidArgument` for fewer than two dimensions.
    pub fn matrix_transpose(&self) -> Result<Self> {
        if self.ndim() < 2 {
            return Err(Error::InvalidArgument {
                op: "matrix_transpose",
                msg: format!("needs at least 2 dimensions, got shape {}", self.shape()),
            });
        }
        self.swapaxes(-2, -1)
    }

    /// PyTorch's `sgn`, [`Tensor::try_sign`] for real tensors.
    ///
    /// # Errors
    /// As [`Tensor::try_sign`].
    pub fn try_sgn(&self) -> Result<Self> {
        self.try_sign()
    }

    plain_forms! {
        /// [`Tensor::try_negative`], panicking with its error.
        negative, try_negative() -> Self;
        /// [`Tensor::try_absolute`], panicking with its error.
        absolute, try_absolute() -> Self;
        /// [`Tensor::try_fix`], panicking with its error.
        fix, try_fix() -> Self;
        /// [`Tensor::try_sgn`], panicking with its error.
        sgn, try_sgn() -> Self;
        /// [`Tensor::try_prod`], panicking with its error.
        prod, try_prod(axes: &[i64], keepdim: bool) -> Tensor<crate::dtype::SumOf<T>, D>;
        /// [`Tensor::try_rint`], panicking with its error.
        rint, try_rint() -> Self;
    }
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// The Vandermonde matrix of a 1-d tensor (NumPy `vander`): `(len, n)` with column `j`
    /// holding `x^(n-1-j)`, or `x^j` when `increasing`; `n` defaults to the length.
    /// Differentiable.
    ///
    /// # Errors
    /// `InvalidArgument` when `self` is not 1-d; `ShapeOverflow`/`OutOfMemory` for a huge `n`.
    pub fn try_vander(&self, n: Option<usize>, increasing: bool) -> Result<Self> {
        if self.ndim() != 1 {
            return Err(Error::InvalidArgument {
                op: "vander",
                msg: format!("needs a 1-d tensor, got shape {}", self.shape()),
            });
        }
        let n = n.unwrap_or(self.numel());
        let powers = (0..n).map(|j| T::from_f64(j as f64));
        let e = crate::alloc::collect("vander", n, powers)?;
        let e = Self::from_vec_on(e, [n], self.device_handle())?;
        let v = self.unsqueeze(1)?.try_pow(&e)?;
        if increasing { Ok(v) } else { v.flip(&[1]) }
    }

    plain_forms! {
        /// [`Tensor::try_vander`], panicking with its error.
        vander, try_vander(n: Option<usize>, increasing: bool) -> Self;
    }
}

/// The `(row, col)` coordinates of the elements on or below (`lower`) or on or above the
/// `offset`-th diagonal of a `rows × cols` matrix, rows then columns, in row-major order. Only
/// rows holding some of them are visited, so the work is the output's size.
fn triangle(
    op: &'static str,
    rows: usize,
    cols: usize,
    offset: i64,
    lower: bool,
) -> Result<Vec<i64>> {
    let (rows, cols, offset) = (rows as i128, cols as i128, offset as i128);
    // Row r holds columns lo(r)..hi(r).
    let span = |r: i128| {
        if lower {
            (0, (r + offset + 1).clamp(0, cols))
        } else {
            ((r + offset).clamp(0, cols), cols)
        }
    };
    let (first, last) = if lower {
        ((-offset).clamp(0, rows), rows)
    } else {
        (0, (cols - offset).clamp(0, rows))
    };
    if rows == 0 || cols == 0 {
        return Ok(Vec::new());
    }
    // The count in closed form: runs of full rows, and the partial rows, whose lengths grow
    // (lower) or shrink (upper) by one per row. Any overflow is an output too large to hold.
    let too_many = || Error::OutOfMemory {
        op,
        bytes: usize::MAX,
    };
    // Σ r for r in a..b.
    let sum = |a: i128, b: i128| -> Option<i128> {
        if b <= a {
            Some(0)
        } else {
            (b - a).checked_mul(a + b - 1).map(|v| v / 2)
        }
    };
    let count = || -> Option<i128> {
        if lower {
            let partial_end = (cols - offset - 1).clamp(first, last);
            let partial = sum(first, partial_end)?
                .checked_add((partial_end - first).checked_mul(offset + 1)?)?;
            partial.checked_add((last - partial_end).checked_mul(cols)?)
        } else {
            let full_end = (1 - offset).clamp(0, last);
            let partial = (last - full_end)
                .checked_mul(cols - offset)?
                .checked_sub(sum(full_end, last)?)?;
            partial.checked_add(full_end.checked_mul(cols)?)
        }
    };
    let total = count().ok_or_else(too_many)?;
    let n = usize::try_from(total.saturating_mul(2)).map_err(|_| Error::OutOfMemory {
        op,
        bytes: usize::MAX,
    })?;
    let mut rs = crate::alloc::with_capacity(op, n)?;
    let mut cs = crate::alloc::with_capacity(op, n / 2)?;
    for r in first..last {
        let (lo, hi) = span(r);
        for c in lo..hi {
            rs.push(r as i64);
            cs.push(c as i64);
        }
    }
    rs.extend(cs);
    Ok(rs)
}

impl<D: Backend> Tensor<i64, D> {
    /// The coordinates of the lower triangle of a `rows × cols` matrix, on and below the
    /// `offset`-th diagonal, as a `(2, k)` tensor of rows then columns in row-major order, on
    /// `device` (PyTorch `tril_indices`).
    ///
    /// # Errors
    /// `OutOfMemory` when the coordinates do not fit in memory.
    pub fn tril_indices_on(rows: usize, cols: usize, offset: i64, device: &D) -> Result<Self> {
        let v = triangle("tril_indices", rows, cols, offset, true)?;
        let k = v.len() / 2;
        Self::from_vec_on(v, [2, k], device)
    }

    /// The coordinates of the upper triangle, on and above the `offset`-th diagonal (PyTorch
    /// `triu_indices`); as [`Tensor::tril_indices_on`].
    ///
    /// # Errors
    /// As [`Tensor::tril_indices_on`].
    pub fn triu_indices_on(rows: usize, cols: usize, offset: i64, device: &D) -> Result<Self> {
        let v = triangle("triu_indices", rows, cols, offset, false)?;
        let k = v.len() / 2;
        Self::from_vec_on(v, [2, k], device)
    }
}

impl<T: Element, D: Backend> Tensor<T, D> {
    /// The coordinates of this 2-d tensor's lower triangle, on and below the `offset`-th
    /// diagonal, as [`Tensor::tril_indices_on`] of its shape (NumPy `tril_indices_from`).
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    /// let m = Tensor::<f32>::zeros([2, 3])?;
    /// assert_eq!(m.try_triu_indices_from(1)?.to_vec(), vec![0, 0, 1, 1, 2, 2]);
    /// assert_eq!(m.try_tril_indices_from(0)?.dims(), &[2, 3]);
    /// let d = Tensor::<f32>::zeros([3, 3, 3])?.try_diag_indices_from()?;
    /// assert_eq!((d.len(), d[0].to_vec()), (3, vec![0, 1, 2]));
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` unless the tensor is 2-d; as [`Tensor::tril_indices_on`].
    pub fn try_tril_indices_from(&self, offset: i64) -> Result<Tensor<i64, D>> {
        let (rows, cols) = self.two_dims("tril_indices_from")?;
        Tensor::tril_indices_on(rows, cols, offset, self.device_handle())
    }

    /// The coordinates of this 2-d tensor's upper triangle (NumPy `triu_indices_from`).
    ///
    /// # Errors
    /// As [`Tensor::try_tril_indices_from`].
    pub fn try_triu_indices_from(&self, offset: i64) -> Result<Tensor<i64, D>> {
        let (rows, cols) = self.two_dims("triu_indices_from")?;
        Tensor::triu_indices_on(rows, cols, offset, self.device_handle())
    }

    /// The indices of the main diagonal of this tensor, `ndim` copies of `0..n` (NumPy
    /// `diag_indices_from`).
    ///
    /// # Errors
    /// `InvalidArgument` unless the tensor has at least 2 dimensions, all of one length.
    pub fn try_diag_indices_from(&self) -> Result<Vec<Tensor<i64, D>>> {
        let d = self.dims();
        if d.len() < 2 || d.iter().any(|&n| n != d[0]) {
            return Err(Error::InvalidArgument {
                op: "diag_indices_from",
                msg: format!(
                    "needs at least 2 dimensions, all of one length, got shape {}",
                    self.shape()
                ),
            });
        }
        Tensor::diag_indices_on(d[0], d.len(), self.device_handle())
    }

    /// `(rows, cols)` of a 2-d tensor; `Err` naming `op` otherwise.
    fn two_dims(&self, op: &'static str) -> Result<(usize, usize)> {
        match *self.dims() {
            [r, c] => Ok((r, c)),
            _ => Err(Error::InvalidArgument {
                op,
                msg: format!("needs a 2-d tensor, got shape {}", self.shape()),
            }),
        }
    }
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// NumPy's `fabs`, [`Tensor::try_abs`] of a float tensor.
    ///
    /// # Errors
    /// As [`Tensor::try_abs`].
    pub fn try_fabs(&self) -> Result<Self> {
        self.try_abs()
    }

    /// NumPy's `degrees`, [`Tensor::try_rad2deg`].
    ///
    /// # Errors
    /// As [`Tensor::try_rad2deg`].
    pub fn try_degrees(&self) -> Result<Self> {
        self.try_rad2deg()
    }

    /// NumPy's `radians`, [`Tensor::try_deg2rad`].
    ///
    /// # Errors
    /// As [`Tensor::try_deg2rad`].
    pub fn try_radians(&self) -> Result<Self> {
        self.try_deg2rad()
    }

    /// NumPy's and PyTorch's `allclose`, [`Tensor::try_all_close`].
    ///
    /// # Errors
    /// As [`Tensor::try_all_close`].
    pub fn try_allclose(&self, other: &Self, rtol: f64, atol: f64) -> Result<bool> {
        self.try_all_close(other, rtol, atol)
    }

    plain_forms! {
        /// [`Tensor::try_fabs`], panicking with its error.
        fabs, try_fabs() -> Self;
        /// [`Tensor::try_degrees`], panicking with its error.
        degrees, try_degrees() -> Self;
        /// [`Tensor::try_radians`], panicking with its error.
        radians, try_radians() -> Self;
        /// [`Tensor::try_allclose`], panicking with its error.
        allclose, try_allclose(other: &Self, rtol: f64, atol: f64) -> bool;
    }

    /// `n` values `base^e` for `e` evenly spaced from `start` to `stop` inclusive, on `device`
    /// (NumPy `logspace`, PyTorch `logspace`); computed in f64 on the host.
    ///
    /// # Errors
    /// As [`Tensor::linspace`]; `InvalidArgument` for a non-finite base.
    pub fn logspace_on(start: f64, stop: f64, n: usize, base: f64, device: &D) -> Result<Self> {
        if !base.is_finite() {
            return Err(Error::InvalidArgument {
                op: "logspace",
                msg: format!("base must be finite, got {base}"),
            });
        }
        let e = Tensor::<f64, Cpu>::linspace(start, stop, n)?.try_to_vec()?;
        let v = crate::alloc::collect("logspace", n, e.iter().map(|&e| T::from_f64(base.powf(e))))?;
        Self::from_vec_on(v, [n], device)
    }

    /// `n` values from `start` to `stop` inclusive in geometric progression, on `device`
    /// (NumPy `geomspace`): both ends exact, negative ends allowed when they share a sign.
    ///
    /// # Errors
    /// `InvalidArgument` when an end is 0 or not finite, or the ends differ in sign.
    pub fn geomspace_on(start: f64, stop: f64, n: usize, device: &D) -> Result<Self> {
        let ok = start != 0.0 && stop != 0.0 && start.is_finite() && stop.is_finite();
        if !ok || start.signum() != stop.signum() {
            return Err(Error::InvalidArgument {
                op: "geomspace",
                msg: format!("needs finite, non-zero ends of one sign, got {start} and {stop}"),
            });
        }
        let sign = start.signum();
        let e = Tensor::<f64, Cpu>::linspace(start.abs().log10(), stop.abs().log10(), n)?;
        let e = e.try_to_vec()?;
        let v = crate::alloc::collect(
            "geomspace",
            n,
            e.iter().enumerate().map(|(i, &e)| {
                // The ends exactly, as NumPy sets them.
                let x = match i {
                    0 => start,
                    _ if i + 1 == n => stop,
                    _ => sign * 10f64.powf(e),
                };
                T::from_f64(x)
            }),
        )?;
        Self::from_vec_on(v, [n], device)
    }
}

impl<T: FloatElement> Tensor<T, Cpu> {
    /// [`Tensor::logspace_on`] the CPU.
    ///
    /// # Errors
    /// As [`Tensor::logspace_on`].
    pub fn logspace(start: f64, stop: f64, n: usize, base: f64) -> Result<Self> {
        Self::logspace_on(start, stop, n, base, &Cpu)
    }

    /// [`Tensor::geomspace_on`] the CPU.
    ///
    /// # Errors
    /// As [`Tensor::geomspace_on`].
    pub fn geomspace(start: f64, stop: f64, n: usize) -> Result<Self> {
        Self::geomspace_on(start, stop, n, &Cpu)
    }
}

impl Tensor<i64, Cpu> {
    /// [`Tensor::tril_indices_on`] the CPU.
    ///
    /// # Errors
    /// As [`Tensor::tril_indices_on`].
    pub fn tril_indices(rows: usize, cols: usize, offset: i64) -> Result<Self> {
        Self::tril_indices_on(rows, cols, offset, &Cpu)
    }

    /// [`Tensor::triu_indices_on`] the CPU.
    ///
    /// # Errors
    /// As [`Tensor::tril_indices_on`].
    pub fn triu_indices(rows: usize, cols: usize, offset: i64) -> Result<Self> {
        Self::triu_indices_on(rows, cols, offset, &Cpu)
    }
}
