//! Element-wise functions and statistics composed of other ops (NumPy's and PyTorch's
//! `logaddexp`, `lerp`, `nan_to_num`, `count_nonzero`, `median`, `quantile`, `cov`,
//! `corrcoef`, `mvlgamma`): each is written
//! once over `D: Backend` from differentiable ops, so it runs on every device and has a
//! gradient wherever its parts do.
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let x = tensor![1.0f64, 2.0, f64::NAN, 4.0];
//! assert_eq!(x.nan_to_num(0.0, None, None).to_vec(), vec![1.0, 2.0, 0.0, 4.0]);
//! let y = tensor![[3.0f64, 1.0, 2.0], [6.0, 5.0, 4.0]];
//! assert_eq!(y.quantile(0.5, 1, false).to_vec(), vec![2.0, 5.0]);
//! let (m, at) = y.median(1, false);
//! assert_eq!((m.to_vec(), at.to_vec()), (vec![2.0, 5.0], vec![2, 1]));
//! let l = tensor![0.0f64].logaddexp(&tensor![0.0f64]);
//! assert!((l.item() - 2f64.ln()).abs() < 1e-15);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::{Dtype, Element, FloatElement, NumElement};
use crate::error::{Error, OrPanic, Result};
use crate::tensor::Tensor;

/// The largest finite value of a float type, as `f64`.
fn max_finite<T: FloatElement>() -> f64 {
    match T::DTYPE {
        Dtype::Float16 => half::f16::MAX.to_f64(),
        Dtype::Bfloat16 => half::bf16::MAX.to_f64(),
        Dtype::Float32 => f64::from(f32::MAX),
        _ => f64::MAX,
    }
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// `log(exp(a) + exp(b))` element-wise with broadcasting, without overflow (NumPy and
    /// PyTorch `logaddexp`): `max(a, b) + log1p(exp(-|a - b|))`, and `a + ln 2` where `a == b`
    /// (so two equal infinities stay infinite). NaN propagates. The gradient is PyTorch's,
    /// `exp(a) / (exp(a) + exp(b))`, split evenly at `a == b`.
    ///
    /// # Errors
    /// `Broadcast` when the shapes do not broadcast; `Device` across devices.
    pub fn try_logaddexp(&self, other: &Self) -> Result<Self> {
        crate::shape::broadcast_shapes("logaddexp", self.shape(), other.shape())?;
        let m = self.try_maximum(other)?;
        let tail = self
            .try_sub(other)?
            .try_abs()?
            .try_neg()?
            .try_exp()?
            .try_log1p()?;
        let ln2 = T::from_f64(std::f64::consts::LN_2);
        Self::try_where(
            &self.try_eq(other)?,
            &m.try_add_scalar(ln2)?,
            &m.try_add(&tail)?,
        )
    }

    /// `self + weight · (end - self)` with broadcasting (PyTorch `lerp` with a scalar weight),
    /// computed from the nearer end as PyTorch and NumPy's `quantile` do: `end - (end - self)
    /// · (1 - weight)` when `|weight| >= 0.5`, so `lerp(a, b, 1)` is exactly `b`.
    ///
    /// # Errors
    /// `Broadcast` when the shapes do not broadcast; `Device` across devices.
    pub fn try_lerp(&self, end: &Self, weight: T) -> Result<Self> {
        let w = weight.to_f64();
        if w.abs() < 0.5 {
            self.try_add(&end.try_sub(self)?.try_mul_scalar(weight)?)
        } else {
            let back = end.try_sub(self)?.try_mul_scalar(T::from_f64(1.0 - w))?;
            end.try_sub(&back)
        }
    }

    /// NaN replaced by `nan`, `+inf` by `posinf` and `-inf` by `neginf`; the infinities
    /// default to the dtype's largest and smallest finite values (NumPy and PyTorch
    /// `nan_to_num`). The gradient passes through the finite elements only.
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_nan_to_num(&self, nan: T, posinf: Option<T>, neginf: Option<T>) -> Result<Self> {
        let big = max_finite::<T>();
        let dev = self.device_handle();
        let fill = |v: T| Self::scalar_on(v, dev);
        let pos = fill(posinf.unwrap_or(T::from_f64(big)))?;
        let neg = fill(neginf.unwrap_or(T::from_f64(-big)))?;
        let inf = T::from_f64(f64::INFINITY);
        let x = Self::try_where(&self.try_eq_scalar(inf)?, &pos, self)?;
        let x = Self::try_where(&self.try_eq_scalar(T::from_f64(-inf.to_f64()))?, &neg, &x)?;
        Self::try_where(&self.try_is_nan()?, &fill(nan)?, &x)
    }

    /// The `q`-quantile along `axis` with linear interpolation between the two nearest
    /// sorted values (NumPy's and PyTorch's default `quantile`); a slice holding NaN gives
    /// NaN. `quantile(0.5, ..)` is NumPy's `median`. Differentiable (through the sort).
    ///
    /// # Errors
    /// `InvalidArgument` for `q` outside `[0, 1]`; `EmptyReduction` for an empty axis; `Axis`
    /// for a bad axis.
    pub fn try_quantile(&self, q: f64, axis: i64, keepdim: bool) -> Result<Self> {
        if !(0.0..=1.0).contains(&q) {
            return Err(Error::InvalidArgument {
                op: "quantile",
                msg: format!("q = {q} must lie in [0, 1]"),
            });
        }
        if let Some(row) = self.scalar_as_row("quantile", axis)? {
            return row.try_quantile(q, 0, false);
        }
        let (ax, n) = order_axis("quantile", self, axis)?;
        let (sorted, _) = self.try_sort(ax as i64, false)?;
        let pos = q * (n - 1) as f64;
        let lo = (pos.floor() as usize).min(n - 1);
        let hi = (lo + 1).min(n - 1);
        let a = sorted.narrow(ax as i64, lo, 1)?;
        let b = sorted.narrow(ax as i64, hi, 1)?;
        let v = a.try_lerp(&b, T::from_f64(pos - lo as f64))?;
        let v = with_nan_of(&sorted, ax, n, v)?;
        if keepdim {
            Ok(v)
        } else {
            v.squeeze_dims(&[ax as i64])
        }
    }

    /// The `q`-quantile along `axis` of the elements that are not NaN (NumPy and PyTorch
    /// `nanquantile`), interpolated as [`Tensor::try_quantile`]; an all-NaN slice gives NaN.
    /// Differentiable (through the sort).
    ///
    /// # Errors
    /// As [`Tensor::try_quantile`].
    pub fn try_nanquantile(&self, q: f64, axis: i64, keepdim: bool) -> Result<Self> {
        if !(0.0..=1.0).contains(&q) {
            return Err(Error::InvalidArgument {
                op: "nanquantile",
                msg: format!("q = {q} must lie in [0, 1]"),
            });
        }
        if let Some(row) = self.scalar_as_row("nanquantile", axis)? {
            return row.try_nanquantile(q, 0, false);
        }
        let (ax, _) = order_axis("nanquantile", self, axis)?;
        let a = ax as i64;
        let (sorted, _) = self.try_sort(a, false)?;
        // Per slice: m numbers (NaN sorts last), the position q·(m - 1) between two of them.
        let (lo, hi, t, none) = crate::autograd::no_grad(|| -> Result<_> {
            let m = self.try_eq(self)?.try_sum(&[a], true)?;
            let last = m.try_sub_scalar(1)?.try_maximum_scalar(0)?;
            let pos = last.try_cast::<f64>()?.try_mul_scalar(q)?;
            let lo = pos.try_floor()?;
            let t = pos.try_sub(&lo)?.try_cast::<T>()?;
            let lo = lo.try_cast::<i64>()?;
            let hi = lo.try_add_scalar(1)?.try_minimum(&last)?;
            Ok((lo, hi, t, m.try_eq_scalar(0)?))
        })?;
        let (va, vb) = (sorted.try_gather(a, &lo)?, sorted.try_gather(a, &hi)?);
        // NumPy's `_lerp`, as `quantile`'s: from the nearer end (so a slice ending in two
        // infinities gives NaN between them, as in NumPy).
        let diff = vb.try_sub(&va)?;
        let from_a = va.try_add(&diff.try_mul(&t)?)?;
        let from_b = vb.try_sub(&diff.try_mul(&t.try_rsub_scalar(T::ONE)?)?)?;
        let half = t.try_ge_scalar(T::from_f64(0.5))?;
        let v = Self::try_where(&half, &from_b, &from_a)?;
        let nan = Self::scalar_on(T::from_f64(f64::NAN), self.device_handle())?;
        let v = Self::try_where(&none, &nan, &v)?;
        if keepdim { Ok(v) } else { v.squeeze_dims(&[a]) }
    }

    /// The covariance matrix of the variables in the rows of a 2-d `self` (observations in
    /// the columns), dividing by `max(0, N - correction)` (NumPy `cov` with `ddof`, PyTorch
    /// `cov`): `(V, V)` for `V` variables; a 1-d input is one variable and gives a 0-d
    /// variance.
    ///
    /// # Errors
    /// `InvalidArgument` for more than 2 dimensions.
    pub fn try_cov(&self, correction: usize) -> Result<Self> {
        if self.ndim() > 2 {
            return Err(Error::InvalidArgument {
                op: "cov",
                msg: format!(
                    "takes a (variables, observations) matrix, got shape {}",
                    self.shape()
                ),
            });
        }
        let x = if self.ndim() < 2 {
            self.try_reshape([1, self.numel()])?
        } else {
            self.clone()
        };
        let n = x.dims()[1];
        let centred = x.try_sub(&x.try_mean(&[1], true)?)?;
        let denom = (n as f64 - correction as f64).max(0.0);
        let c = centred
            .try_matmul(&centred.t())?
            .try_div_scalar(T::from_f64(denom))?;
        if self.ndim() < 2 {
            c.try_reshape([0usize; 0])
        } else {
            Ok(c)
        }
    }

    /// Pearson correlation coefficients of the rows (NumPy and PyTorch `corrcoef`): the
    /// covariance over the outer product of the standard deviations, clipped to `[-1, 1]`.
    ///
    /// # Errors
    /// As [`Tensor::try_cov`].
    pub fn try_corrcoef(&self) -> Result<Self> {
        let c = self.try_cov(1)?;
        if c.ndim() == 0 {
            return c.try_div(&c);
        }
        let sd = c.diagonal(0)?.try_sqrt()?;
        c.try_div(&sd.try_outer(&sd)?)?
            .try_clip(T::from_f64(-1.0), T::ONE)
    }

    /// The multivariate log-gamma function of dimension `p` (PyTorch `mvlgamma`, SciPy
    /// `multigammaln`): `p(p-1)/4 · ln π + Σ_{j<p} lgamma(x - j/2)`, element-wise.
    /// Differentiable.
    ///
    /// # Errors
    /// `InvalidArgument` for `p = 0`, or when an element is not greater than `(p - 1) / 2`
    /// (NaN included), as in PyTorch (checking reads one value back from the device).
    pub fn try_mvlgamma(&self, p: usize) -> Result<Self> {
        let op = "mvlgamma";
        let low = (p as f64 - 1.0) / 2.0;
        let above = self.try_gt_scalar(T::from_f64(low))?.try_all(&[], false)?;
        if p == 0 || !above.try_item()? {
            return Err(Error::InvalidArgument {
                op,
                msg: format!(
                    "needs p >= 1 and every element greater than (p - 1) / 2 = {low}; got p = {p}"
                ),
            });
        }
        let halves = Self::arange_on(T::ZERO, T::from_f64(p as f64), T::ONE, self.device_handle())?
            .try_mul_scalar(T::from_f64(0.5))?;
        let constant = p as f64 * (p as f64 - 1.0) / 4.0 * std::f64::consts::PI.ln();
        self.unsqueeze(-1)?
            .try_sub(&halves)?
            .try_lgamma()?
            .try_sum(&[-1], false)?
            .try_add_scalar(T::from_f64(constant))
    }

    plain_forms! {
        /// [`Tensor::try_cov`], panicking with its error.
        cov, try_cov(correction: usize) -> Self;
        /// [`Tensor::try_corrcoef`], panicking with its error.
        corrcoef, try_corrcoef() -> Self;
        /// [`Tensor::try_mvlgamma`], panicking with its error.
        mvlgamma, try_mvlgamma(p: usize) -> Self;
        /// [`Tensor::try_logaddexp`], panicking with its error.
        logaddexp, try_logaddexp(other: &Self) -> Self;
        /// [`Tensor::try_lerp`], panicking with its error.
        lerp, try_lerp(end: &Self, weight: T) -> Self;
        /// [`Tensor::try_nan_to_num`], panicking with its error.
        nan_to_num, try_nan_to_num(nan: T, posinf: Option<T>, neginf: Option<T>) -> Self;
        /// [`Tensor::try_quantile`], panicking with its error.
        quantile, try_quantile(q: f64, axis: i64, keepdim: bool) -> Self;
        /// [`Tensor::try_nanquantile`], panicking with its error.
        nanquantile, try_nanquantile(q: f64, axis: i64, keepdim: bool) -> Self;
    }
}

/// The axis and its (non-zero) length for an order statistic.
pub(crate) fn order_axis<T: Element, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    axis: i64,
) -> Result<(usize, usize)> {
    let ax = x.shape().axis(op, axis)?;
    match x.dims()[ax] {
        0 => Err(Error::EmptyReduction {
            op,
            msg: format!("axis {ax} of shape {} is empty", x.shape()),
        }),
        n => Ok((ax, n)),
    }
}

/// `v` (one element along `ax`), or the slice's NaN where it holds one: NaN sorts last, so the
/// last sorted element tells.
fn with_nan_of<T: Element, D: Backend>(
    sorted: &Tensor<T, D>,
    ax: usize,
    n: usize,
    v: Tensor<T, D>,
) -> Result<Tensor<T, D>> {
    let last = sorted.narrow(ax as i64, n - 1, 1)?;
    Tensor::try_where(&last.try_ne(&last)?, &last, &v)
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// The lower median along `axis` and its index (PyTorch `median(dim)`: for an even
    /// length the smaller of the two middle values; NumPy's mean of the two is
    /// `quantile(0.5, ..)`). A slice holding NaN gives NaN and the index of its first NaN.
    ///
    /// # Errors
    /// `EmptyReduction` for an empty axis; `Axis` for a bad axis.
    pub fn try_median(&self, axis: i64, keepdim: bool) -> Result<(Self, Tensor<i64, D>)> {
        if let Some(row) = self.scalar_as_row("median", axis)? {
            return row.try_median(0, false);
        }
        let (ax, n) = order_axis("median", self, axis)?;
        let rank = crate::autograd::no_grad(|| -> Result<Tensor<i64, D>> {
            // A slice with NaNs gives its first NaN: they sort last, stably, from rank
            // n - (their count). Otherwise the lower middle.
            let nans = self.try_ne(self)?.try_sum(&[ax as i64], true)?;
            let middle = Tensor::full_on(
                nans.shape().clone(),
                (n as i64 - 1) / 2,
                self.device_handle(),
            )?;
            Tensor::try_where(
                &nans.try_gt_scalar(0)?,
                &nans.try_rsub_scalar(n as i64)?,
                &middle,
            )
        })?;
        crate::ops::stats::select_ranked(self, ax, &rank, keepdim)
    }

    plain_forms! {
        /// [`Tensor::try_median`], panicking with its error.
        median, try_median(axis: i64, keepdim: bool) -> (Self, Tensor<i64, D>);
    }
}

impl<T: Element, D: Backend> Tensor<T, D> {
    /// The number of non-zero (true, non-`0`; NaN counts) elements over `axes` (all when
    /// empty), as i64 (NumPy and PyTorch `count_nonzero`).
    ///
    /// # Errors
    /// `Axis` for bad axes.
    pub fn try_count_nonzero(&self, axes: &[i64], keepdim: bool) -> Result<Tensor<i64, D>> {
        self.shape().axes_mask("count_nonzero", axes)?;
        let zero = Self::scalar_on(T::ZERO, self.device_handle())?;
        self.try_ne(&zero)?.try_sum(axes, keepdim)
    }

    plain_forms! {
        /// [`Tensor::try_count_nonzero`], panicking with its error.
        count_nonzero, try_count_nonzero(axes: &[i64], keepdim: bool) -> Tensor<i64, D>;
    }
}
