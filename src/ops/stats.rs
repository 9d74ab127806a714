//! Paired and named reductions composed of the reductions in `reduce.rs`, under PyTorch's
//! names: `var_mean`, `std_mean`, `aminmax`, `amax`, `amin`, the trapezoidal rule
//! (`trapezoid` and `cumulative_trapezoid`, NumPy's and PyTorch's), NumPy's `nanvar` and
//! `nanstd`, and the order statistics `kthvalue` and
//! `nanmedian` (from one sort). Each runs once over `D: Backend` and is differentiable
//! wherever its parts are.
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let x = tensor![[1.0f64, 2.0, 3.0], [4.0, 6.0, 8.0]];
//! let (v, m) = x.var_mean(&[1], 1, false);
//! assert_eq!((v.to_vec(), m.to_vec()), (vec![1.0, 4.0], vec![2.0, 6.0]));
//! let (lo, hi) = x.aminmax(&[], false);
//! assert_eq!((lo.item(), hi.item()), (1.0, 8.0));
//! assert_eq!(x.trapezoid(1.0, 1).to_vec(), vec![4.0, 12.0]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::{Element, FloatElement, FloatOf, NumElement};
use crate::error::Error;
use crate::error::{OrPanic, Result};
use crate::ops::numeric::order_axis;
use crate::tensor::Tensor;

/// Two float results of one reduction (`var_mean`, `std_mean`).
type Moments<T, D> = (Tensor<FloatOf<T>, D>, Tensor<FloatOf<T>, D>);
type Pair<A, B> = (A, B);

impl<T: Element, D: Backend> Tensor<T, D> {
    /// The variance and the mean over `axes` in one call (PyTorch `var_mean`), as
    /// [`Tensor::try_var`] (divisor `n - correction`) and [`Tensor::try_mean`].
    ///
    /// # Errors
    /// `Axis` for an out-of-range or repeated axis.
    pub fn try_var_mean(
        &self,
        axes: &[i64],
        correction: usize,
        keepdim: bool,
    ) -> Result<Moments<T, D>> {
        Ok((
            self.try_var(axes, correction, keepdim)?,
            self.try_mean(axes, keepdim)?,
        ))
    }

    /// The standard deviation and the mean over `axes` (PyTorch `std_mean`).
    ///
    /// # Errors
    /// As [`Tensor::try_var_mean`].
    pub fn try_std_mean(
        &self,
        axes: &[i64],
        correction: usize,
        keepdim: bool,
    ) -> Result<Moments<T, D>> {
        Ok((
            self.try_std(axes, correction, keepdim)?,
            self.try_mean(axes, keepdim)?,
        ))
    }

    /// The minimum and the maximum over `axes` (all when empty) in one call (PyTorch
    /// `aminmax`); NaN propagates.
    ///
    /// # Errors
    /// `Axis` for a bad axis; `EmptyReduction` for an empty slice.
    pub fn try_aminmax(&self, axes: &[i64], keepdim: bool) -> Result<Pair<Self, Self>> {
        Ok((self.try_min(axes, keepdim)?, self.try_max(axes, keepdim)?))
    }

    /// The maximum over `axes` (PyTorch `amax`, NumPy `amax`): [`Tensor::try_max`] under
    /// that name; the gradient is split evenly between tied maxima, as PyTorch's `amax`.
    ///
    /// # Errors
    /// As [`Tensor::try_max`].
    pub fn try_amax(&self, axes: &[i64], keepdim: bool) -> Result<Self> {
        self.try_max(axes, keepdim)
    }

    /// The minimum over `axes` (PyTorch `amin`): [`Tensor::try_min`] under that name.
    ///
    /// # Errors
    /// As [`Tensor::try_min`].
    pub fn try_amin(&self, axes: &[i64], keepdim: bool) -> Result<Self> {
        self.try_min(axes, keepdim)
    }

    crate::ops::plain_forms! {
        /// [`Tensor::try_var_mean`], panicking with its error.
        var_mean, try_var_mean(axes: &[i64], correction: usize, keepdim: bool) -> Moments<T, D>;
        /// [`Tensor::try_std_mean`], panicking with its error.
        std_mean, try_std_mean(axes: &[i64], correction: usize, keepdim: bool) -> Moments<T, D>;
        /// [`Tensor::try_aminmax`], panicking with its error.
        aminmax, try_aminmax(axes: &[i64], keepdim: bool) -> Pair<Self, Self>;
        /// [`Tensor::try_amax`], panicking with its error.
        amax, try_amax(axes: &[i64], keepdim: bool) -> Self;
        /// [`Tensor::try_amin`], panicking with its error.
        amin, try_amin(axes: &[i64], keepdim: bool) -> Self;
        /// [`Tensor::try_kthvalue`], panicking with its error.
        kthvalue, try_kthvalue(k: usize, axis: i64, keepdim: bool) -> Pair<Self, Tensor<i64, D>>;
    }

    /// The `k`-th smallest element along `axis` (1-based) and its index (PyTorch
    /// `kthvalue`). NaN sorts above every number, as in `sort`; among equal values the index is
    /// the `k`-th in a stable sort (PyTorch may name another of the ties). The gradient goes
    /// to the indexed element.
    ///
    /// # Errors
    /// `InvalidArgument` unless `1 <= k <= len` of the axis; `EmptyReduction` for an empty
    /// axis; `Axis` for a bad axis.
    pub fn try_kthvalue(
        &self,
        k: usize,
        axis: i64,
        keepdim: bool,
    ) -> Result<Pair<Self, Tensor<i64, D>>> {
        if let Some(row) = self.scalar_as_row("kthvalue", axis)? {
            return row.try_kthvalue(k, 0, false);
        }
        let (ax, n) = order_axis("kthvalue", self, axis)?;
        if k == 0 || k > n {
            return Err(Error::InvalidArgument {
                op: "kthvalue",
                msg: format!(
                    "k = {k} must lie in 1..={n}, the length of axis {ax} of shape {}",
                    self.shape()
                ),
            });
        }
        let mut dims = self.dims().to_vec();
        dims[ax] = 1;
        let rank = Tensor::full_on(dims, k as i64 - 1, self.device_handle())?;
        select_ranked(self, ax, &rank, keepdim)
    }
}

/// The elements of rank `rank` (from 0; `x`'s shape with axis `ax` of length 1, every rank
/// within the axis) in a stable ascending sort's order along `ax` (NaN last), and their
/// indices: one selection per row where the device has it ([`Backend::argselect`]), else the
/// axis sorted. The gradient goes to the selected elements, through `gather`.
pub(crate) fn select_ranked<T: Element, D: Backend>(
    x: &Tensor<T, D>,
    ax: usize,
    rank: &Tensor<i64, D>,
    keepdim: bool,
) -> Result<Pair<Tensor<T, D>, Tensor<i64, D>>> {
    let idx = crate::autograd::no_grad(|| match D::argselect(x, ax, rank)? {
        Some(i) => Ok(i),
        None => x.try_argsort(ax as i64, false)?.try_gather(ax as i64, rank),
    })?;
    squeezed(x.try_gather(ax as i64, &idx)?, idx, ax, keepdim)
}

/// `(values, indices)` with the reduced axis `ax` kept or dropped.
fn squeezed<T: Element, D: Backend>(
    v: Tensor<T, D>,
    i: Tensor<i64, D>,
    ax: usize,
    keepdim: bool,
) -> Result<Pair<Tensor<T, D>, Tensor<i64, D>>> {
    if keepdim {
        return Ok((v, i));
    }
    let a = [ax as i64];
    Ok((v.squeeze_dims(&a)?, i.squeeze_dims(&a)?))
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// The range `max - min` over `axes` (all when empty; NumPy `ptp`, "peak to peak"), in
    /// `T` (an integer range wraps as its subtraction does, as in NumPy); NaN propagates.
    ///
    /// # Errors
    /// As [`Tensor::try_max`] (`EmptyReduction` over an empty slice).
    pub fn try_ptp(&self, axes: &[i64], keepdim: bool) -> Result<Self> {
        self.try_max(axes, keepdim)?
            .try_sub(&self.try_min(axes, keepdim)?)
    }

    /// The weighted mean `Σ w·x / Σ w` over `axes` (all when empty; NumPy `average`), as
    /// [`FloatOf<T>`]. `weights` broadcasts to `self`'s shape, or, with one axis, may be 1-d of
    /// that axis's length (NumPy's rule); `None` is the plain mean. Weights summing to 0 give
    /// NaN or ±inf (NumPy raises).
    ///
    /// # Errors
    /// `ShapeMismatch` when the weights fit neither rule; `Axis` for bad axes; `Device` across
    /// devices.
    pub fn try_average(
        &self,
        axes: &[i64],
        weights: Option<&Self>,
        keepdim: bool,
    ) -> Result<Tensor<FloatOf<T>, D>> {
        let x = self.try_cast::<FloatOf<T>>()?;
        let Some(w) = weights else {
            return x.try_mean(axes, keepdim);
        };
        crate::ops::device_ops::same_device("average", self, w)?;
        let mut w = w.try_cast::<FloatOf<T>>()?;
        if let [axis] = axes
            && w.ndim() == 1
            && self.ndim() > 1
        {
            let ax = self.shape().axis("average", *axis)?;
            if w.dims()[0] == self.dims()[ax] {
                let mut dims = vec![1; self.ndim()];
                dims[ax] = w.dims()[0];
                w = w.try_reshape(dims)?;
            }
        }
        let w = w
            .broadcast_to(self.shape().clone())
            .map_err(|_| Error::ShapeMismatch {
                op: "average",
                lhs: self.shape().clone(),
                rhs: w.shape().clone(),
                msg: "the weights must broadcast to the input, or be 1-d along the one axis".into(),
            })?;
        x.try_mul(&w)?
            .try_sum(axes, keepdim)?
            .try_div(&w.try_sum(axes, keepdim)?)
    }

    crate::ops::plain_forms! {
        /// [`Tensor::try_ptp`], panicking with its error.
        ptp, try_ptp(axes: &[i64], keepdim: bool) -> Self;
        /// [`Tensor::try_average`], panicking with its error.
        average, try_average(axes: &[i64], weights: Option<&Self>, keepdim: bool) -> Tensor<FloatOf<T>, D>;
    }
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// The integral of the samples along `axis` spaced `dx` apart, by the trapezoidal rule
    /// (NumPy `trapezoid`, PyTorch `trapezoid(dx=)`): `dx · Σ (y[i] + y[i+1]) / 2`; fewer than
    /// two samples give 0. The axis is removed.
    ///
    /// # Errors
    /// `Axis` for a bad axis.
    pub fn try_trapezoid(&self, dx: f64, axis: i64) -> Result<Self> {
        let ax = self.shape().axis("trapezoid", axis)? as i64;
        let n = self.dims()[ax as usize];
        if n < 2 {
            return self.narrow(ax, 0, 0)?.try_sum(&[ax], false);
        }
        let pairs = self
            .narrow(ax, 0, n - 1)?
            .try_add(&self.narrow(ax, 1, n - 1)?)?;
        pairs
            .try_sum(&[ax], false)?
            .try_mul_scalar(T::from_f64(dx / 2.0))
    }

    /// The running integral along `axis` by the trapezoidal rule, samples `dx` apart
    /// (PyTorch `cumulative_trapezoid`, SciPy `cumulative_trapezoid` without `initial`):
    /// `out[i] = dx · Σ_{j ≤ i} (y[j] + y[j+1]) / 2`, so the axis has one element fewer (none
    /// for fewer than two samples). Differentiable.
    ///
    /// # Errors
    /// `Axis` for a bad axis.
    pub fn try_cumulative_trapezoid(&self, dx: f64, axis: i64) -> Result<Self> {
        let ax = self.shape().axis("cumulative_trapezoid", axis)? as i64;
        let n = self.dims()[ax as usize];
        if n < 2 {
            return self.narrow(ax, 0, 0)?.try_contiguous();
        }
        self.narrow(ax, 0, n - 1)?
            .try_add(&self.narrow(ax, 1, n - 1)?)?
            .try_mul_scalar(T::from_f64(dx / 2.0))?
            .try_cumsum(ax)
    }

    /// The variance over `axes` of the elements that are not NaN, dividing by their count
    /// less `ddof` (NumPy `nanvar`); a slice with no more than `ddof` numbers (all NaN, say)
    /// gives NaN, as in NumPy. Differentiable.
    ///
    /// # Errors
    /// `Axis` for an out-of-range or repeated axis.
    pub fn try_nanvar(&self, axes: &[i64], ddof: usize, keepdim: bool) -> Result<Self> {
        let num = self.try_eq(self)?;
        let zero = Self::scalar_on(T::ZERO, self.device_handle())?;
        let mean = self.try_nanmean(axes, true)?;
        let dev = Self::try_where(&num, &self.try_sub(&mean)?, &zero)?;
        let count = num.cast::<T>().try_sum(axes, keepdim)?;
        let dof = count.try_sub_scalar(T::from_f64(ddof as f64))?;
        let var = dev.try_square()?.try_sum(axes, keepdim)?.try_div(&dof)?;
        let nan = Self::scalar_on(T::from_f64(f64::NAN), self.device_handle())?;
        Self::try_where(&dof.try_gt_scalar(T::ZERO)?, &var, &nan)
    }

    /// The square root of [`Tensor::try_nanvar`] (NumPy `nanstd`).
    ///
    /// # Errors
    /// As [`Tensor::try_nanvar`].
    pub fn try_nanstd(&self, axes: &[i64], ddof: usize, keepdim: bool) -> Result<Self> {
        self.try_nanvar(axes, ddof, keepdim)?.try_sqrt()
    }

    /// The lower median along `axis` of the elements that are not NaN, and its index
    /// (PyTorch `nanmedian(dim)`; NumPy's `nanmedian` averages the two middle values, which is
    /// `nanquantile(0.5)`); an all-NaN slice gives NaN at index 0. Differentiable through the
    /// indexed element.
    ///
    /// # Errors
    /// `EmptyReduction` for an empty axis; `Axis` for a bad axis.
    pub fn try_nanmedian(&self, axis: i64, keepdim: bool) -> Result<Pair<Self, Tensor<i64, D>>> {
        if let Some(row) = self.scalar_as_row("nanmedian", axis)? {
            return row.try_nanmedian(0, false);
        }
        let (ax, _) = order_axis("nanmedian", self, axis)?;
        let a = ax as i64;
        let rank = crate::autograd::no_grad(|| -> Result<Tensor<i64, D>> {
            // NaN sorts last, so with `m` numbers in a slice the lower median is at (m - 1) / 2.
            let m = self.try_eq(self)?.try_sum(&[a], true)?;
            m.try_maximum_scalar(1)?
                .try_sub_scalar(1)?
                .try_div_scalar(2)
        })?;
        select_ranked(self, ax, &rank, keepdim)
    }

    /// The histogram of the elements in `bins` equal-width bins over `[min, max]` (PyTorch
    /// `histc`), as counts of `T`: elements outside the range and NaN are not counted, and
    /// `max` itself falls in the last bin. With `min == max` the range is the data's minimum
    /// and maximum (read back from the device), widened by 1 on each side if those are equal.
    /// Not differentiable, as in PyTorch.
    ///
    /// # Errors
    /// `InvalidArgument` for `bins == 0`, `min > max`, a NaN bound, or a data range that is
    /// not finite.
    pub fn try_histc(&self, bins: usize, min: f64, max: f64) -> Result<Self> {
        let op = "histc";
        if bins == 0 || min.is_nan() || max.is_nan() || min > max {
            return Err(Error::InvalidArgument {
                op,
                msg: format!("needs bins > 0 and min <= max, got {bins} bins over [{min}, {max}]"),
            });
        }
        crate::autograd::no_grad(|| {
            let x = self.try_cast::<f64>()?.try_reshape([self.numel()])?;
            let (mut lo, mut hi) = (min, max);
            if lo == hi && x.numel() > 0 {
                lo = x.try_min(&[], false)?.try_item()?;
                hi = x.try_max(&[], false)?.try_item()?;
                if !(lo.is_finite() && hi.is_finite()) {
                    return Err(Error::InvalidArgument {
                        op,
                        msg: format!(
                            "the data's range [{lo}, {hi}] is not finite; give min and max"
                        ),
                    });
                }
            }
            if lo == hi {
                (lo, hi) = (lo - 1.0, hi + 1.0);
            }
            let valid = x
                .try_ge_scalar(lo)?
                .try_logical_and(&x.try_le_scalar(hi)?)?;
            let at = x
                .try_sub_scalar(lo)?
                .try_mul_scalar(bins as f64)?
                .try_div_scalar(hi - lo)?
                .try_floor()?
                .try_clip(0.0, (bins - 1) as f64)?
                .try_cast::<i64>()?;
            let counts = Tensor::<f64, D>::zeros_on([bins], self.device_handle())?;
            counts
                .try_scatter_add(0, &at, &valid.try_cast::<f64>()?)?
                .try_cast::<T>()
        })
    }

    /// The derivative along `axis` of samples spaced `dx` apart (NumPy `gradient` with
    /// `edge_order=1`, PyTorch `gradient`): central differences `(y[i+1] - y[i-1]) / 2dx`
    /// inside, one-sided differences at the two ends. Same shape as `self`. Differentiable.
    ///
    /// # Errors
    /// `InvalidArgument` for fewer than 2 samples along the axis or `dx == 0`; `Axis`.
    pub fn try_gradient(&self, dx: f64, axis: i64) -> Result<Self> {
        let op = "gradient";
        let a = self.shape().axis(op, axis)? as i64;
        let n = self.dims()[a as usize];
        if n < 2 || dx == 0.0 || dx.is_nan() {
            return Err(Error::InvalidArgument {
                op,
                msg: format!(
                    "needs at least 2 samples along axis {a} of {} and a non-zero spacing, got dx = {dx}",
                    self.shape()
                ),
            });
        }
        let step = |from: usize, to: usize, len: usize, by: f64| -> Result<Self> {
            self.narrow(a, to, len)?
                .try_sub(&self.narrow(a, from, len)?)?
                .try_div_scalar(T::from_f64(by))
        };
        let first = step(0, 1, 1, dx)?;
        let last = step(n - 2, n - 1, 1, dx)?;
        if n == 2 {
            return Self::try_concat(&[&first, &last], a);
        }
        let inner = step(0, 2, n - 2, 2.0 * dx)?;
        Self::try_concat(&[&first, &inner, &last], a)
    }

    crate::ops::plain_forms! {
        /// [`Tensor::try_gradient`], panicking with its error.
        gradient, try_gradient(dx: f64, axis: i64) -> Self;
        /// [`Tensor::try_histc`], panicking with its error.
        histc, try_histc(bins: usize, min: f64, max: f64) -> Self;
        /// [`Tensor::try_trapezoid`], panicking with its error.
        trapezoid, try_trapezoid(dx: f64, axis: i64) -> Self;
        /// [`Tensor::try_cumulative_trapezoid`], panicking with its error.
        cumulative_trapezoid, try_cumulative_trapezoid(dx: f64, axis: i64) -> Self;
        /// [`Tensor::try_nanvar`], panicking with its error.
        nanvar, try_nanvar(axes: &[i64], ddof: usize, keepdim: bool) -> Self;
        /// [`Tensor::try_nanstd`], panicking with its error.
        nanstd, try_nanstd(axes: &[i64], ddof: usize, keepdim: bool) -> Self;
        /// [`Tensor::try_nanmedian`], panicking with its error.
        nanmedian, try_nanmedian(axis: i64, keepdim: bool) -> Pair<Self, Tensor<i64, D>>;
    }
}
