//! More of NumPy's math routines, composed of device ops: the NaN-skipping `nanprod`,
//! `nancumsum`, `nancumprod`; `percentile`/`nanpercentile`; `divmod` and `modf`; `ediff1d`;
//! `unwrap`; `cumulative_sum`/`cumulative_prod` (NumPy 2.1, with `include_initial`); and
//! `histogram`/`histogram_bin_edges` with equal-width bins.
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let x = tensor![1.0f64, f64::NAN, 3.0, 4.0];
//! assert_eq!(x.nanprod(&[], false).item(), 12.0);
//! assert_eq!(x.nancumsum(0).to_vec(), vec![1.0, 1.0, 4.0, 8.0]);
//! let (frac, whole) = tensor![2.5f64, -1.25].modf();
//! assert_eq!((frac.to_vec(), whole.to_vec()), (vec![0.5, -0.25], vec![2.0, -1.0]));
//! let (counts, edges) = tensor![1.0f64, 2.0, 2.0, 4.0].histogram(3, None);
//! assert_eq!((counts.to_vec(), edges.to_vec()), (vec![1, 2, 1], vec![1.0, 2.0, 3.0, 4.0]));
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::{Element, FloatElement, NumElement, SumOf};
use crate::error::{Error, OrPanic, Result};
use crate::tensor::Tensor;

type Pair<A> = (A, A);

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// `self` with NaN replaced by `value`.
    fn nan_as(&self, value: f64) -> Result<Self> {
        let v = Self::scalar_on(T::from_f64(value), self.device_handle())?;
        Self::try_where(&self.try_is_nan()?, &v, self)
    }

    /// The product over `axes` treating NaN as 1 (NumPy `nanprod`; an all-NaN slice gives 1).
    ///
    /// # Errors
    /// `Axis` for an out-of-range or repeated axis.
    pub fn try_nanprod(&self, axes: &[i64], keepdim: bool) -> Result<Self> {
        self.nan_as(1.0)?.try_product(axes, keepdim)
    }

    /// The running sum along `axis` treating NaN as 0 (NumPy `nancumsum`).
    ///
    /// # Errors
    /// `Axis` for a bad axis.
    pub fn try_nancumsum(&self, axis: i64) -> Result<Self> {
        self.nan_as(0.0)?.try_cumsum(axis)
    }

    /// The running product along `axis` treating NaN as 1 (NumPy `nancumprod`).
    ///
    /// # Errors
    /// `Axis` for a bad axis.
    pub fn try_nancumprod(&self, axis: i64) -> Result<Self> {
        self.nan_as(1.0)?.try_cumprod(axis)
    }

    /// The `q`-th percentile along `axis`, `q` in `[0, 100]` (NumPy `percentile` with its
    /// default linear interpolation): [`Tensor::try_quantile`] at `q / 100`.
    ///
    /// # Errors
    /// `InvalidArgument` for `q` outside `[0, 100]`; as [`Tensor::try_quantile`].
    pub fn try_percentile(&self, q: f64, axis: i64, keepdim: bool) -> Result<Self> {
        percent("percentile", q)?;
        self.try_quantile(q / 100.0, axis, keepdim)
    }

    /// The `q`-th percentile along `axis` of the elements that are not NaN (NumPy
    /// `nanpercentile`): [`Tensor::try_nanquantile`] at `q / 100`.
    ///
    /// # Errors
    /// As [`Tensor::try_percentile`].
    pub fn try_nanpercentile(&self, q: f64, axis: i64, keepdim: bool) -> Result<Self> {
        percent("nanpercentile", q)?;
        self.try_nanquantile(q / 100.0, axis, keepdim)
    }

    /// The fractional and integral parts, both with `self`'s sign (NumPy `modf`, C `modf`):
    /// `(x - trunc(x), trunc(x))`, with `(±0, ±inf)` for `±inf` and NaN for NaN.
    /// Differentiable.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn try_modf(&self) -> Result<Pair<Self>> {
        let whole = self.try_trunc()?;
        let zero = Self::scalar_on(T::ZERO, self.device_handle())?;
        let frac = Self::try_where(&self.try_is_inf()?, &zero, &self.try_sub(&whole)?)?;
        Ok((frac.try_copysign(self)?, whole))
    }

    /// `p` with its jumps larger than `discont` between neighbours along `axis` corrected by
    /// multiples of `period` (NumPy `unwrap`; `discont` defaults to `period / 2`, and values
    /// below `period / 2` act as `period / 2`). Differentiable.
    ///
    /// # Errors
    /// `InvalidArgument` for a non-positive or non-finite `period`; `Axis` for a bad axis.
    pub fn try_unwrap(&self, discont: Option<f64>, axis: i64, period: f64) -> Result<Self> {
        let op = "unwrap";
        if !(period.is_finite() && period > 0.0) {
            return Err(Error::InvalidArgument {
                op,
                msg: format!("needs a positive finite period, got {period}"),
            });
        }
        let ax = self.shape().axis(op, axis)? as i64;
        let n = self.dims()[ax as usize];
        if n < 2 {
            return self.try_contiguous();
        }
        let discont = discont.unwrap_or(period / 2.0).max(period / 2.0);
        let (low, high) = (T::from_f64(-period / 2.0), T::from_f64(period / 2.0));
        let dd = self.try_diff(1, ax)?;
        let ddmod = dd
            .try_sub_scalar(low)?
            .try_remainder_scalar(T::from_f64(period))?
            .try_add_scalar(low)?;
        // NumPy maps the ambiguous boundary -period/2 to +period/2 where the jump was upwards.
        let flip = ddmod
            .try_eq_scalar(low)?
            .try_logical_and(&dd.try_gt_scalar(T::ZERO)?)?;
        let high_t = Self::scalar_on(high, self.device_handle())?;
        let ddmod = Self::try_where(&flip, &high_t, &ddmod)?;
        let small = dd.try_abs()?.try_lt_scalar(T::from_f64(discont))?;
        let zero = Self::scalar_on(T::ZERO, self.device_handle())?;
        let correct = Self::try_where(&small, &zero, &ddmod.try_sub(&dd)?)?.try_cumsum(ax)?;
        let rest = self.narrow(ax, 1, n - 1)?.try_add(&correct)?;
        Self::try_concat(&[&self.narrow(ax, 0, 1)?, &rest], ax)
    }

    plain_forms! {
        /// [`Tensor::try_nanprod`], panicking with its error.
        nanprod, try_nanprod(axes: &[i64], keepdim: bool) -> Self;
        /// [`Tensor::try_nancumsum`], panicking with its error.
        nancumsum, try_nancumsum(axis: i64) -> Self;
        /// [`Tensor::try_nancumprod`], panicking with its error.
        nancumprod, try_nancumprod(axis: i64) -> Self;
        /// [`Tensor::try_percentile`], panicking with its error.
        percentile, try_percentile(q: f64, axis: i64, keepdim: bool) -> Self;
        /// [`Tensor::try_nanpercentile`], panicking with its error.
        nanpercentile, try_nanpercentile(q: f64, axis: i64, keepdim: bool) -> Self;
        /// [`Tensor::try_modf`], panicking with its error.
        modf, try_modf() -> Pair<Self>;
        /// [`Tensor::try_unwrap`], panicking with its error.
        unwrap, try_unwrap(discont: Option<f64>, axis: i64, period: f64) -> Self;
    }
}

fn percent(op: &'static str, q: f64) -> Result<()> {
    if (0.0..=100.0).contains(&q) {
        return Ok(());
    }
    Err(Error::InvalidArgument {
        op,
        msg: format!("q = {q} must lie in [0, 100]"),
    })
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// `(floor_divide(self, other), remainder(self, other))` with broadcasting (NumPy
    /// `divmod`, Python's `divmod`): `self == q · other + r` with `r` of `other`'s sign.
    ///
    /// # Errors
    /// As [`Tensor::try_floor_divide`] (`DivisionByZero` for an integer zero divisor).
    pub fn try_divmod(&self, other: &Self) -> Result<Pair<Self>> {
        Ok((self.try_floor_divide(other)?, self.try_remainder(other)?))
    }

    /// The differences between consecutive elements of the flattened tensor, with
    /// `to_begin` and `to_end` (flattened) put before and after (NumPy `ediff1d`).
    ///
    /// # Errors
    /// `Device` across devices.
    pub fn try_ediff1d(&self, to_end: Option<&Self>, to_begin: Option<&Self>) -> Result<Self> {
        let flat = self.try_flatten()?;
        let n = flat.numel();
        let d = flat
            .narrow(0, 1.min(n), n.saturating_sub(1))?
            .try_sub(&flat.narrow(0, 0, n.saturating_sub(1))?)?;
        let mut parts = vec![];
        if let Some(b) = to_begin {
            parts.push(b.try_flatten()?);
        }
        parts.push(d);
        if let Some(e) = to_end {
            parts.push(e.try_flatten()?);
        }
        Self::try_concat(&parts.iter().collect::<Vec<_>>(), 0)
    }

    /// The equal-width histogram of the elements (NumPy `histogram` with an integer bin
    /// count): `bins` counts (Int64) and the `bins + 1` edges (f64) spanning `range`, or the
    /// data's minimum and maximum (widened by 0.5 each way when they are equal, as NumPy).
    /// An element counts in bin `i` when `edge[i] <= x < edge[i + 1]`, the last bin closed;
    /// elements outside the range are not counted. The edges are computed in f64 (NumPy
    /// keeps a float input's dtype for them). Reads the counts (and the data's range when
    /// `range` is `None`) back from the device.
    ///
    /// # Errors
    /// `InvalidArgument` for `bins == 0`, a range that is reversed or not finite (given, or
    /// the data's: NaN in the data needs an explicit range).
    pub fn try_histogram(
        &self,
        bins: usize,
        range: Option<(f64, f64)>,
    ) -> Result<(Tensor<i64, D>, Tensor<f64, D>)> {
        let op = "histogram";
        let x = self.try_cast::<f64>()?.try_flatten()?;
        let edges = x
            .try_histogram_bin_edges(bins, range)
            .map_err(|e| match e {
                Error::InvalidArgument { msg, .. } => Error::InvalidArgument { op, msg },
                e => e,
            })?;
        let inside = x
            .try_ge(&edges.narrow(0, 0, 1)?)?
            .try_logical_and(&x.try_le(&edges.narrow(0, bins, 1)?)?)?;
        let x = x.try_masked_select(&inside)?;
        // The last edge belongs to the last bin.
        let at = edges
            .try_searchsorted(&x, true)?
            .try_sub_scalar(1)?
            .try_minimum_scalar(bins as i64 - 1)?;
        Ok((at.try_bincount(bins)?, edges))
    }

    /// The `bins + 1` equal-width bin edges [`Tensor::try_histogram`] uses (NumPy
    /// `histogram_bin_edges`), as f64.
    ///
    /// # Errors
    /// As [`Tensor::try_histogram`].
    pub fn try_histogram_bin_edges(
        &self,
        bins: usize,
        range: Option<(f64, f64)>,
    ) -> Result<Tensor<f64, D>> {
        let op = "histogram_bin_edges";
        let x = self.try_cast::<f64>()?;
        let (mut lo, mut hi) = match range {
            Some(r) => r,
            None if x.numel() == 0 => (0.0, 1.0),
            None => (
                x.try_min(&[], false)?.try_item()?,
                x.try_max(&[], false)?.try_item()?,
            ),
        };
        if bins == 0 || !(lo.is_finite() && hi.is_finite()) || lo > hi {
            return Err(Error::InvalidArgument {
                op,
                msg: format!(
                    "needs bins > 0 and a finite, ordered range, got {bins} bins over [{lo}, {hi}]{}",
                    if range.is_none() {
                        " (the data's; pass a range)"
                    } else {
                        ""
                    }
                ),
            });
        }
        if lo == hi {
            (lo, hi) = (lo - 0.5, hi + 0.5);
        }
        let edges = bins.checked_add(1).ok_or_else(|| Error::InvalidArgument {
            op,
            msg: format!("{bins} bins are too many"),
        })?;
        Tensor::<f64, D>::linspace_on(lo, hi, edges, self.device_handle())
    }

    plain_forms! {
        /// [`Tensor::try_divmod`], panicking with its error.
        divmod, try_divmod(other: &Self) -> Pair<Self>;
        /// [`Tensor::try_ediff1d`], panicking with its error.
        ediff1d, try_ediff1d(to_end: Option<&Self>, to_begin: Option<&Self>) -> Self;
        /// [`Tensor::try_histogram`], panicking with its error.
        histogram, try_histogram(bins: usize, range: Option<(f64, f64)>) -> (Tensor<i64, D>, Tensor<f64, D>);
        /// [`Tensor::try_histogram_bin_edges`], panicking with its error.
        histogram_bin_edges, try_histogram_bin_edges(bins: usize, range: Option<(f64, f64)>) -> Tensor<f64, D>;
    }
}

impl<T: Element, D: Backend> Tensor<T, D> {
    /// The running sum along `axis` (NumPy 2.1 `cumulative_sum`), with a leading 0 when
    /// `include_initial` (the axis then grows by one). Integer and bool sums are Int64, as
    /// [`Tensor::try_cumsum`].
    ///
    /// # Errors
    /// `Axis` for a bad axis.
    pub fn try_cumulative_sum(
        &self,
        axis: i64,
        include_initial: bool,
    ) -> Result<Tensor<SumOf<T>, D>> {
        with_initial(self.try_cumsum(axis)?, axis, include_initial, 0.0)
    }

    /// The running product along `axis` (NumPy 2.1 `cumulative_prod`), with a leading 1
    /// when `include_initial`.
    ///
    /// # Errors
    /// `Axis` for a bad axis.
    pub fn try_cumulative_prod(
        &self,
        axis: i64,
        include_initial: bool,
    ) -> Result<Tensor<SumOf<T>, D>> {
        with_initial(self.try_cumprod(axis)?, axis, include_initial, 1.0)
    }

    plain_forms! {
        /// [`Tensor::try_cumulative_sum`], panicking with its error.
        cumulative_sum, try_cumulative_sum(axis: i64, include_initial: bool) -> Tensor<SumOf<T>, D>;
        /// [`Tensor::try_cumulative_prod`], panicking with its error.
        cumulative_prod, try_cumulative_prod(axis: i64, include_initial: bool) -> Tensor<SumOf<T>, D>;
    }
}

/// `scan` with a slice of `initial` put before it along `axis` when `include`.
fn with_initial<S: NumElement, D: Backend>(
    scan: Tensor<S, D>,
    axis: i64,
    include: bool,
    initial: f64,
) -> Result<Tensor<S, D>> {
    if !include {
        return Ok(scan);
    }
    let ax = scan.shape().axis("cumulative", axis)?;
    let mut dims = scan.dims().to_vec();
    dims[ax] = 1;
    let first = Tensor::full_on(dims, S::from_f64(initial), scan.device_handle())?;
    Tensor::try_concat(&[&first, &scan], ax as i64)
}
