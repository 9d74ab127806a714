//! Reductions with `axes` (empty = all; negative counts from the end) and `keepdim`, `var`/`std`
//! (PyTorch's `correction`), `any`/`all` (NumPy truth values), `logsumexp`, `cumsum`/`cumprod`,
//! once for every device.
//!
//! Output dtypes are types: `sum`/`product` return [`SumOf<T>`] (i64 for integers), `mean`,
//! `var`, `std` return [`FloatOf<T>`], `argmin`/`argmax` return i64, `any`/`all` bool. Float
//! sums accumulate in f64. NaN propagates through the plain forms; the `nan*` forms, which
//! exist only for float tensors, skip it (NumPy's `nansum`, ...).
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let x = tensor![[1i32, 2, 3], [4, 5, 6]];
//! let total: Tensor<i64, Cpu> = x.sum(&[], false); // integer sums widen to i64
//! assert_eq!(total.item(), 21);
//! assert_eq!(x.sum(&[0], false).to_vec(), vec![5, 7, 9]);
//! let m: Tensor<f32, Cpu> = x.mean(&[1], true); // keepdim: shape [2, 1]
//! assert_eq!((m.dims(), m.to_vec()), (&[2usize, 1][..], vec![2.0, 5.0]));
//! assert_eq!(x.argmax(&[1], false).to_vec(), vec![2, 2]);
//! let f = tensor![1.0f64, f64::NAN, 3.0];
//! assert!(f.sum(&[], false).item().is_nan());
//! assert_eq!(f.nansum(&[], false).item(), 4.0); // NumPy's nansum
//! assert_eq!(f.cumsum(0).to_vec()[0], 1.0);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::{Element, FloatElement, FloatOf, SumOf};
use crate::error::{OrPanic, Result};
use crate::tensor::Tensor;

/// A reduction, as the backends see it: which one, and `var`/`std`'s correction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReduceOp {
    /// Sum (an empty sum is 0).
    Sum,
    /// Product (an empty product is 1).
    Product,
    /// Minimum (NaN propagates).
    Min,
    /// Maximum (NaN propagates).
    Max,
    /// Index of the minimum.
    ArgMin,
    /// Index of the maximum.
    ArgMax,
    /// Mean (NaN for an empty slice).
    Mean,
    /// Variance dividing by `n - correction`.
    Var(usize),
    /// Standard deviation dividing by `n - correction`.
    Std(usize),
    /// Any element non-zero.
    Any,
    /// Every element non-zero.
    All,
    /// Sum skipping NaN.
    NanSum,
    /// Product skipping NaN.
    NanProduct,
    /// Minimum skipping NaN.
    NanMin,
    /// Maximum skipping NaN.
    NanMax,
    /// Mean of the non-NaN values.
    NanMean,
    /// Index of the minimum skipping NaN.
    NanArgMin,
    /// Index of the maximum skipping NaN.
    NanArgMax,
}

impl ReduceOp {
    /// The name errors use (`"reduce_sum"`).
    pub fn name(self) -> &'static str {
        use ReduceOp::*;
        match self {
            Sum => "reduce_sum",
            Product => "reduce_product",
            Min => "reduce_min",
            Max => "reduce_max",
            ArgMin => "reduce_argmin",
            ArgMax => "reduce_argmax",
            Mean => "reduce_mean",
            Var(_) => "reduce_var",
            Std(_) => "reduce_std",
            Any => "reduce_any",
            All => "reduce_all",
            NanSum => "reduce_nansum",
            NanProduct => "reduce_nanproduct",
            NanMin => "reduce_nanmin",
            NanMax => "reduce_nanmax",
            NanMean => "reduce_nanmean",
            NanArgMin => "reduce_nanargmin",
            NanArgMax => "reduce_nanargmax",
        }
    }

    /// The CUDA kernel root (`"sum"`): the name without its `reduce_` prefix.
    pub fn root(self) -> &'static str {
        &self.name()["reduce_".len()..]
    }

    /// True when an empty slice has a value (0, 1, NaN, false or true) rather than an `Err`.
    pub fn has_identity(self) -> bool {
        use ReduceOp::*;
        !matches!(
            self,
            Min | Max | ArgMin | ArgMax | NanMin | NanMax | NanArgMin | NanArgMax
        )
    }
}

/// A running reduction along one axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanOp {
    /// Running sum.
    CumSum,
    /// Running product.
    CumProd,
}

impl ScanOp {
    /// The op's name (also its CUDA kernel root).
    pub fn name(self) -> &'static str {
        match self {
            ScanOp::CumSum => "cumsum",
            ScanOp::CumProd => "cumprod",
        }
    }
}

macro_rules! reductions {
    ($($(#[$doc:meta])* $name:ident, $try_name:ident, $op:expr => $out:ty;)*) => {
        $(
            $(#[$doc])*
            ///
            /// # Errors
            /// `Axis` for an out-of-range or repeated axis; `EmptyReduction` when a reduced slice
            /// of an op without an identity (min, max, the arg-reductions) is empty. A 0-d
            /// tensor takes axis 0 or -1 (its one element), as in PyTorch (NumPy: `sum`, `max`).
            #[inline(always)]
            pub fn $try_name(&self, axes: &[i64], keepdim: bool) -> Result<$out> {
                self.reduce_op($op, axes, keepdim)
            }
        )*
        plain_forms! {
            $(
                #[doc = concat!("[`Tensor::", stringify!($try_name), "`], panicking with its error.")]
                $name, $try_name(axes: &[i64], keepdim: bool) -> $out;
            )*
        }
    };
}

impl<T: Element, D: Backend> Tensor<T, D> {
    #[inline(always)]
    fn reduce_op<O: Element>(
        &self,
        op: ReduceOp,
        axes: &[i64],
        keepdim: bool,
    ) -> Result<Tensor<O, D>> {
        use crate::autograd::{Op, record_out, recording};
        let mask = self.shape().axes_mask_inline(op.name(), axes)?;
        let out = D::reduce::<T, O>(self, op, &mask, keepdim);
        // Not recording (the common case): the backend's result is returned as it is, not
        // unwrapped and wrapped again (each move of a fresh tensor cost a store-forwarding
        // stall on the small path, issue 26).
        if !recording(&[self]) {
            return out;
        }
        let out = out?;
        let mask = mask.into_vec();
        let rule = match op {
            ReduceOp::Sum => Op::Sum { mask, mean: false },
            ReduceOp::Mean => Op::Sum { mask, mean: true },
            ReduceOp::Max | ReduceOp::Min | ReduceOp::NanMax | ReduceOp::NanMin => {
                Op::Extreme { mask, keepdim }
            }
            ReduceOp::NanSum => Op::NanSum { mask, mean: false },
            ReduceOp::NanMean => Op::NanSum { mask, mean: true },
            ReduceOp::Product => Op::Prod { mask },
            ReduceOp::Var(c) => Op::Var {
                mask,
                correction: c,
                std: false,
            },
            ReduceOp::Std(c) => Op::Var {
                mask,
                correction: c,
                std: true,
            },
            _ => Op::NoGrad(op.root()),
        };
        Ok(record_out(out, rule, &[self], &[self]))
    }

    reductions! {
        /// Sum over `axes`; integers and bool give i64, floats accumulate in f64 and keep their
        /// type. An empty sum is 0.
        sum, try_sum, ReduceOp::Sum => Tensor<SumOf<T>, D>;
        /// Product over `axes`, with [`Tensor::try_sum`]'s dtype; an empty product is 1.
        product, try_product, ReduceOp::Product => Tensor<SumOf<T>, D>;
        /// Minimum over `axes`; NaN propagates.
        min, try_min, ReduceOp::Min => Tensor<T, D>;
        /// Maximum over `axes`; NaN propagates.
        max, try_max, ReduceOp::Max => Tensor<T, D>;
        /// Index of the minimum, as i64: with several axes, the row-major flat index inside the
        /// reduced block; ties give the first; a NaN's index wins (PyTorch).
        argmin, try_argmin, ReduceOp::ArgMin => Tensor<i64, D>;
        /// Index of the maximum, as [`Tensor::try_argmin`].
        argmax, try_argmax, ReduceOp::ArgMax => Tensor<i64, D>;
        /// Mean over `axes` as [`FloatOf<T>`], accumulated in f64; an empty mean is NaN.
        mean, try_mean, ReduceOp::Mean => Tensor<FloatOf<T>, D>;
        /// True where any element of the slice is non-zero (NaN counts as true; empty → false).
        any, try_any, ReduceOp::Any => Tensor<bool, D>;
        /// True where every element of the slice is non-zero (empty → true).
        all, try_all, ReduceOp::All => Tensor<bool, D>;
    }

    /// Variance over `axes` with `correction` (divides by `n - correction`; PyTorch's default is
    /// 1, NumPy's `ddof` is 0), as [`FloatOf<T>`], moments in f64. With `n <= correction` the
    /// divisor is 0, as in NumPy and PyTorch: inf, or NaN for a constant or empty slice.
    /// On the CPU a contiguous run is summed in two passes (mean, then squared deviations)
    /// and runs are merged with Chan's formula; a strided slice, or a run whose f64 sum is
    /// not finite, takes Welford's updates (which do not overflow where the sum does).
    ///
    /// # Errors
    /// `Axis` for an out-of-range or repeated axis.
    pub fn try_var(
        &self,
        axes: &[i64],
        correction: usize,
        keepdim: bool,
    ) -> Result<Tensor<FloatOf<T>, D>> {
        self.reduce_op(ReduceOp::Var(correction), axes, keepdim)
    }

    /// Standard deviation: the square root of [`Tensor::try_var`]. Errors as `try_var`.
    pub fn try_std(
        &self,
        axes: &[i64],
        correction: usize,
        keepdim: bool,
    ) -> Result<Tensor<FloatOf<T>, D>> {
        self.reduce_op(ReduceOp::Std(correction), axes, keepdim)
    }

    /// Running sum along `axis` (NumPy `cumsum`), as [`SumOf<T>`]. A 0-d tensor takes axis 0
    /// or -1 and gives a 0-d result, as PyTorch (NumPy's is shape `(1,)`); so do the other
    /// ops along one axis (scans, sorts, order statistics, `softmax`, `gather`).
    ///
    /// # Errors
    /// `Axis` for an out-of-range axis.
    pub fn try_cumsum(&self, axis: i64) -> Result<Tensor<SumOf<T>, D>> {
        if let Some(row) = self.scalar_as_row("cumsum", axis)? {
            return row.try_cumsum(0)?.to_0d();
        }
        let ax = self.shape().axis("cumsum", axis)?;
        let out = D::scan(self, ScanOp::CumSum, ax)?;
        let op = crate::autograd::Op::Cumsum(ax);
        Ok(crate::autograd::record(out, op, &[self], &[]))
    }

    /// Running product along `axis` (NumPy `cumprod`), as [`SumOf<T>`]. Errors as
    /// [`Tensor::try_cumsum`].
    pub fn try_cumprod(&self, axis: i64) -> Result<Tensor<SumOf<T>, D>> {
        if let Some(row) = self.scalar_as_row("cumprod", axis)? {
            return row.try_cumprod(0)?.to_0d();
        }
        let ax = self.shape().axis("cumprod", axis)?;
        let out = D::scan(self, ScanOp::CumProd, ax)?;
        let op = crate::autograd::Op::Cumprod(ax);
        Ok(crate::autograd::record_out(out, op, &[self], &[self]))
    }

    plain_forms! {
        /// [`Tensor::try_var`], panicking with its error.
        var, try_var(axes: &[i64], correction: usize, keepdim: bool) -> Tensor<FloatOf<T>, D>;
        /// [`Tensor::try_std`], panicking with its error.
        std, try_std(axes: &[i64], correction: usize, keepdim: bool) -> Tensor<FloatOf<T>, D>;
        /// [`Tensor::try_cumsum`], panicking with its error.
        cumsum, try_cumsum(axis: i64) -> Tensor<SumOf<T>, D>;
        /// [`Tensor::try_cumprod`], panicking with its error.
        cumprod, try_cumprod(axis: i64) -> Tensor<SumOf<T>, D>;
    }
}

/// The NaN-aware reductions and `logsumexp` exist only for float tensors: calling them on an
/// integer tensor does not compile.
impl<T: FloatElement, D: Backend> Tensor<T, D> {
    reductions! {
        /// Sum skipping NaN; an all-NaN slice sums to 0 (NumPy `nansum`).
        nansum, try_nansum, ReduceOp::NanSum => Tensor<T, D>;
        /// Product skipping NaN.
        nanproduct, try_nanproduct, ReduceOp::NanProduct => Tensor<T, D>;
        /// Minimum skipping NaN; an all-NaN slice gives NaN (NumPy).
        nanmin, try_nanmin, ReduceOp::NanMin => Tensor<T, D>;
        /// Maximum skipping NaN; an all-NaN slice gives NaN.
        nanmax, try_nanmax, ReduceOp::NanMax => Tensor<T, D>;
        /// Mean of the non-NaN values, dividing by their count; an all-NaN slice gives NaN.
        nanmean, try_nanmean, ReduceOp::NanMean => Tensor<T, D>;
        /// Index of the minimum skipping NaN; an all-NaN slice is an `EmptyReduction` error.
        nanargmin, try_nanargmin, ReduceOp::NanArgMin => Tensor<i64, D>;
        /// Index of the maximum skipping NaN, as [`Tensor::try_nanargmin`].
        nanargmax, try_nanargmax, ReduceOp::NanArgMax => Tensor<i64, D>;
    }

    /// `log(sum(exp(x)))` over `axes`, computed stably as `m + log(sum(exp(x - m)))` with `m`
    /// the maximum (PyTorch `logsumexp`); a slice whose maximum is not finite shifts by 0, so
    /// an all-`-inf` slice gives `-inf` and `inf - inf` never makes NaN; an empty slice gives
    /// `-inf` (the log of an empty sum, as NumPy and PyTorch). f16/bf16 compute in f32 and
    /// round once.
    ///
    /// # Errors
    /// `Axis` for bad axes.
    pub fn try_logsumexp(&self, axes: &[i64], keepdim: bool) -> Result<Self> {
        if const { T::DTYPE.size() < 4 } {
            // f16/bf16: every intermediate in f32, one rounding at the end.
            return self
                .try_cast::<f32>()?
                .try_logsumexp(axes, keepdim)?
                .try_cast::<T>();
        }
        let mask = self.shape().axes_mask("logsumexp", axes)?;
        if (self.dims().iter().zip(&mask)).any(|(&d, &m)| m && d == 0) {
            // Empty slices: log(0) = -inf, as NumPy and PyTorch (there is no maximum to shift by).
            return self.try_exp()?.try_sum(axes, keepdim)?.try_log();
        }
        use crate::autograd::{Op, record_out};
        if let Some(out) = D::logsumexp(self, &mask, keepdim)? {
            return Ok(record_out(out, Op::LogSumExp { mask }, &[self], &[self]));
        }
        // The value without a graph; one node records it (its gradient is the softmax).
        let out = crate::autograd::no_grad(|| -> Result<Self> {
            let m = self.try_max(axes, true)?;
            let finite = m.try_is_finite()?;
            let zero = Self::scalar_on(T::ZERO, &self.device)?;
            let shift = Self::try_where(&finite, &m, &zero)?;
            let out = self
                .try_sub(&shift)?
                .try_exp()?
                .try_sum(axes, true)?
                .try_log()?
                .try_add(&shift)?;
            if keepdim {
                return Ok(out);
            }
            let dims: Vec<usize> = (self.dims().iter().zip(&mask))
                .filter(|(_, m)| !**m)
                .map(|(&d, _)| d)
                .collect();
            out.try_reshape(dims)
        })?;
        Ok(record_out(out, Op::LogSumExp { mask }, &[self], &[self]))
    }

    plain_forms! {
        /// [`Tensor::try_logsumexp`], panicking with its error.
        logsumexp, try_logsumexp(axes: &[i64], keepdim: bool) -> Self;
    }
}

/// `x - m`, `m` the maximum over `axes` (keepdim) and not tracked: the shift after which
/// `logsumexp` is near 0 and keeps its digits, so that `s - logsumexp(s)` is the log-softmax to
/// the last bit for any magnitude (PyTorch's `x - max - log Σ exp`), where `x - logsumexp(x)`
/// loses them to the rounding of `logsumexp(x)` (`[1e200, 1e200]` gave 0, not `-ln 2`). A
/// slice holding NaN or an infinite maximum becomes NaN, as in PyTorch. The gradient passes to
/// `x` unchanged.
pub(crate) fn sub_max<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    axes: &[i64],
) -> Result<Tensor<T, D>> {
    if x.numel() == 0 {
        return Ok(x.clone());
    }
    x.try_sub(&crate::autograd::no_grad(|| x.try_max(axes, true))?)
}

/// `exp(x - shift) · scale` (no factor without `scale`), where `shift` and `scale` broadcast
/// to `x` (a softmax from its `logsumexp`, times a per-row gradient): one fused pass where
/// the device has a kernel for the layouts ([`Backend::exp_sub`]), else composed. Records no
/// graph: for backward rules, and forward ops that record their own node.
pub(crate) fn exp_sub<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    shift: &Tensor<T, D>,
    scale: Option<&Tensor<T, D>>,
) -> Result<Tensor<T, D>> {
    if let Some(y) = D::exp_sub(x, shift, scale)? {
        return Ok(y);
    }
    crate::autograd::no_grad(|| {
        let e = x.try_sub(shift)?.try_exp()?;
        match scale {
            Some(c) => e.try_mul(c),
            None => Ok(e),
        }
    })
}

/// [`exp_sub`] in a backward rule: composed of recorded ops in a `create_graph` pass (see
/// `autograd::rules::graph_mode`), so the gradient keeps its graph; fused otherwise.
pub(crate) fn exp_sub_rule<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    shift: &Tensor<T, D>,
    scale: Option<&Tensor<T, D>>,
) -> Result<Tensor<T, D>> {
    if !crate::autograd::is_grad_enabled() {
        return exp_sub(x, shift, scale);
    }
    let e = x.try_sub(shift)?.try_exp()?;
    match scale {
        Some(c) => e.try_mul(c),
        None => Ok(e),
    }
}

/// The reductions as free functions (NumPy's `np.sum(x, axis)` style) over any tensor kind: the typed `Tensor<T>` (where
/// each output dtype is a type) and `DynTensor` (where it is a run-time value).
pub trait Reductions {
    /// Output of `reduce_sum`/`reduce_product`.
    type Sum;
    /// Output of `reduce_min`/`reduce_max`.
    type Same;
    /// Output of `reduce_mean`/`reduce_var`/`reduce_std`.
    type Mean;
    /// Output of the arg-reductions (i64).
    type Index;
    /// Output of `reduce_any`/`reduce_all` (bool).
    type Truth;
    /// See [`Tensor::try_sum`].
    fn reduce_sum(&self, axes: &[i64], keepdim: bool) -> Result<Self::Sum>;
    /// See [`Tensor::try_product`].
    fn reduce_product(&self, axes: &[i64], keepdim: bool) -> Result<Self::Sum>;
    /// See [`Tensor::try_min`].
    fn reduce_min(&self, axes: &[i64], keepdim: bool) -> Result<Self::Same>;
    /// See [`Tensor::try_max`].
    fn reduce_max(&self, axes: &[i64], keepdim: bool) -> Result<Self::Same>;
    /// See [`Tensor::try_mean`].
    fn reduce_mean(&self, axes: &[i64], keepdim: bool) -> Result<Self::Mean>;
    /// See [`Tensor::try_var`] (correction 1).
    fn reduce_var(&self, axes: &[i64], keepdim: bool) -> Result<Self::Mean>;
    /// See [`Tensor::try_std`] (correction 1).
    fn reduce_std(&self, axes: &[i64], keepdim: bool) -> Result<Self::Mean>;
    /// See [`Tensor::try_argmin`].
    fn reduce_argmin(&self, axes: &[i64], keepdim: bool) -> Result<Self::Index>;
    /// See [`Tensor::try_argmax`].
    fn reduce_argmax(&self, axes: &[i64], keepdim: bool) -> Result<Self::Index>;
    /// See [`Tensor::try_any`].
    fn reduce_any(&self, axes: &[i64], keepdim: bool) -> Result<Self::Truth>;
    /// See [`Tensor::try_all`].
    fn reduce_all(&self, axes: &[i64], keepdim: bool) -> Result<Self::Truth>;
}

/// NumPy's NaN-aware reductions (`np.nansum`, ...); float tensors only (a compile error for a typed integer
/// tensor, an `Err` for an integer `DynTensor`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no NaN-aware reductions: its elements are not floating-point",
    label = "integers cannot be NaN",
    note = "use the plain reduction (`reduce_sum` instead of `reduce_nansum`, ...), or `cast::<f32>()` first"
)]
pub trait NanReductions: Reductions {
    /// See [`Tensor::try_nansum`].
    fn reduce_nansum(&self, axes: &[i64], keepdim: bool) -> Result<Self::Same>;
    /// See [`Tensor::try_nanproduct`].
    fn reduce_nanproduct(&self, axes: &[i64], keepdim: bool) -> Result<Self::Same>;
    /// See [`Tensor::try_nanmin`].
    fn reduce_nanmin(&self, axes: &[i64], keepdim: bool) -> Result<Self::Same>;
    /// See [`Tensor::try_nanmax`].
    fn reduce_nanmax(&self, axes: &[i64], keepdim: bool) -> Result<Self::Same>;
    /// See [`Tensor::try_nanmean`].
    fn reduce_nanmean(&self, axes: &[i64], keepdim: bool) -> Result<Self::Same>;
    /// See [`Tensor::try_nanargmin`].
    fn reduce_nanargmin(&self, axes: &[i64], keepdim: bool) -> Result<Self::Index>;
    /// See [`Tensor::try_nanargmax`].
    fn reduce_nanargmax(&self, axes: &[i64], keepdim: bool) -> Result<Self::Index>;
}

/// The reduction traits for the typed tensor on every device.
impl<T: Element, D: Backend> Reductions for Tensor<T, D> {
    type Sum = Tensor<SumOf<T>, D>;
    type Same = Tensor<T, D>;
    type Mean = Tensor<FloatOf<T>, D>;
    type Index = Tensor<i64, D>;
    type Truth = Tensor<bool, D>;
    fn reduce_sum(&self, axes: &[i64], keepdim: bool) -> Result<Self::Sum> {
        self.try_sum(axes, keepdim)
    }
    fn reduce_product(&self, axes: &[i64], keepdim: bool) -> Result<Self::Sum> {
        self.try_product(axes, keepdim)
    }
    fn reduce_min(&self, axes: &[i64], keepdim: bool) -> Result<Self::Same> {
        self.try_min(axes, keepdim)
    }
    fn reduce_max(&self, axes: &[i64], keepdim: bool) -> Result<Self::Same> {
        self.try_max(axes, keepdim)
    }
    fn reduce_mean(&self, axes: &[i64], keepdim: bool) -> Result<Self::Mean> {
        self.try_mean(axes, keepdim)
    }
    fn reduce_var(&self, axes: &[i64], keepdim: bool) -> Result<Self::Mean> {
        self.try_var(axes, 1, keepdim)
    }
    fn reduce_std(&self, axes: &[i64], keepdim: bool) -> Result<Self::Mean> {
        self.try_std(axes, 1, keepdim)
    }
    fn reduce_argmin(&self, axes: &[i64], keepdim: bool) -> Result<Self::Index> {
        self.try_argmin(axes, keepdim)
    }
    fn reduce_argmax(&self, axes: &[i64], keepdim: bool) -> Result<Self::Index> {
        self.try_argmax(axes, keepdim)
    }
    fn reduce_any(&self, axes: &[i64], keepdim: bool) -> Result<Self::Truth> {
        self.try_any(axes, keepdim)
    }
    fn reduce_all(&self, axes: &[i64], keepdim: bool) -> Result<Self::Truth> {
        self.try_all(axes, keepdim)
    }
}

impl<T: FloatElement, D: Backend> NanReductions for Tensor<T, D> {
    fn reduce_nansum(&self, axes: &[i64], keepdim: bool) -> Result<Self> {
        self.try_nansum(axes, keepdim)
    }
    fn reduce_nanproduct(&self, axes: &[i64], keepdim: bool) -> Result<Self> {
        self.try_nanproduct(axes, keepdim)
    }
    fn reduce_nanmin(&self, axes: &[i64], keepdim: bool) -> Result<Self> {
        self.try_nanmin(axes, keepdim)
    }
    fn reduce_nanmax(&self, axes: &[i64], keepdim: bool) -> Result<Self> {
        self.try_nanmax(axes, keepdim)
    }
    fn reduce_nanmean(&self, axes: &[i64], keepdim: bool) -> Result<Self> {
        self.try_nanmean(axes, keepdim)
    }
    fn reduce_nanargmin(&self, axes: &[i64], keepdim: bool) -> Result<Tensor<i64, D>> {
        self.try_nanargmin(axes, keepdim)
    }
    fn reduce_nanargmax(&self, axes: &[i64], keepdim: bool) -> Result<Tensor<i64, D>> {
        self.try_nanargmax(axes, keepdim)
    }
}

macro_rules! free_fns {
    ($($f:ident -> $out:ident, $tr:ident;)*) => {$(
        #[doc = concat!("`", stringify!($f), "` over `axes` (empty = all) with `keepdim`, for a typed tensor or a `DynTensor`.")]
        pub fn $f<X: $tr>(t: &X, axes: &[i64], keepdim: bool) -> Result<X::$out> {
            t.$f(axes, keepdim)
        }
    )*};
}

free_fns! {
    reduce_sum -> Sum, Reductions;
    reduce_product -> Sum, Reductions;
    reduce_min -> Same, Reductions;
    reduce_max -> Same, Reductions;
    reduce_mean -> Mean, Reductions;
    reduce_var -> Mean, Reductions;
    reduce_std -> Mean, Reductions;
    reduce_argmin -> Index, Reductions;
    reduce_argmax -> Index, Reductions;
    reduce_any -> Truth, Reductions;
    reduce_all -> Truth, Reductions;
    reduce_nansum -> Same, NanReductions;
    reduce_nanproduct -> Same, NanReductions;
    reduce_nanmin -> Same, NanReductions;
    reduce_nanmax -> Same, NanReductions;
    reduce_nanmean -> Same, NanReductions;
    reduce_nanargmin -> Index, NanReductions;
    reduce_nanargmax -> Index, NanReductions;
}
