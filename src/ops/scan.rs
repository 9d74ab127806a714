//! Running extrema and the running `logsumexp` along an axis (PyTorch `cummax`, `cummin`,
//! `logcumsumexp`), composed of other ops with a log-step (Hillis–Steele) scan: `⌈log₂ n⌉`
//! passes of one element-wise op over shifted views, so every device runs them with the
//! kernels it has and autograd differentiates them through those ops.
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let x = tensor![1.0f32, 3.0, 2.0, 3.0, 0.0];
//! let (v, i) = x.cummax(0);
//! assert_eq!(v.to_vec(), vec![1.0, 3.0, 3.0, 3.0, 3.0]);
//! assert_eq!(i.to_vec(), vec![0, 1, 1, 3, 3]); // a tie moves the index to the later element
//! let l = tensor![0.0f64, 0.0].logcumsumexp(0);
//! assert!((l.to_vec()[1] - 2f64.ln()).abs() < 1e-15);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::{Element, FloatElement, NumElement};
use crate::error::{OrPanic, Result};
use crate::tensor::Tensor;

/// The inclusive scan of `x` along `ax` under the associative `combine(later, earlier)`:
/// after the pass with shift `s`, element `i` combines elements `i - 2s + 1 ..= i`.
fn log_step_scan<T: Element, D: Backend>(
    x: &Tensor<T, D>,
    ax: usize,
    combine: impl Fn(&Tensor<T, D>, &Tensor<T, D>) -> Result<Tensor<T, D>>,
) -> Result<Tensor<T, D>> {
    let n = x.dims()[ax];
    let a = ax as i64;
    let mut v = x.clone();
    let mut shift = 1;
    while shift < n {
        let tail = combine(&v.narrow(a, shift, n - shift)?, &v.narrow(a, 0, n - shift)?)?;
        v = Tensor::try_concat(&[&v.narrow(a, 0, shift)?, &tail], a)?;
        shift *= 2;
    }
    Ok(v)
}

/// `cummax` (`max = true`) or `cummin`: the running extremum's index by PyTorch's rule (the
/// latest element equal to it; from the first NaN on, the latest NaN's), and the values
/// gathered at those indices, so the gradient flows to the element each output copies.
fn running_extremum<T: NumElement, D: Backend>(
    x: &Tensor<T, D>,
    op: &'static str,
    axis: i64,
    max: bool,
) -> Result<(Tensor<T, D>, Tensor<i64, D>)> {
    if let Some(row) = x.scalar_as_row(op, axis)? {
        let (v, i) = running_extremum(&row, op, 0, max)?;
        return Ok((v.to_0d()?, i.to_0d()?));
    }
    let ax = x.shape().axis(op, axis)?;
    let a = ax as i64;
    let n = x.dims()[ax];
    let idx = crate::autograd::no_grad(|| -> Result<Tensor<i64, D>> {
        let v = log_step_scan(x, ax, |l, e| {
            if max {
                l.try_maximum(e)
            } else {
                l.try_minimum(e)
            }
        })?;
        let mut along = vec![1; x.ndim()];
        along[ax] = n;
        let pos = Tensor::<i64, D>::arange_on(0, n as i64, 1, x.device_handle())?
            .try_reshape(along)?
            .expand(x.shape().clone())?;
        let none = Tensor::<i64, D>::scalar_on(-1, x.device_handle())?;
        // An element is the running extremum's source when it equals it or is NaN (once a
        // NaN is reached the extremum stays NaN, and each later NaN takes over, as PyTorch's
        // `isnan(x) || x >= out` update does).
        let hit = x.try_eq(&v)?.try_logical_or(&x.try_ne(x)?)?;
        let hits = Tensor::try_where(&hit, &pos, &none)?;
        log_step_scan(&hits, ax, |l, e| l.try_maximum(e))
    })?;
    Ok((x.try_gather(a, &idx)?, idx))
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// The running maximum along `axis` and, for each output, the index of the element it
    /// copies (PyTorch `cummax`): ties take the later index; from the first NaN on, the values
    /// are NaN and the index is the latest NaN's. Shapes are `self`'s. The gradient goes to the
    /// indexed elements. Cost: `⌈log₂ n⌉` element-wise passes for an axis of length `n`.
    ///
    /// # Errors
    /// `Axis` for an out-of-range axis (a 0-d tensor has none, as for `cumsum`).
    pub fn try_cummax(&self, axis: i64) -> Result<(Self, Tensor<i64, D>)> {
        running_extremum(self, "cummax", axis, true)
    }

    /// The running minimum along `axis` and its indices (PyTorch `cummin`); as
    /// [`Tensor::try_cummax`] otherwise.
    ///
    /// # Errors
    /// `Axis` for an out-of-range axis.
    pub fn try_cummin(&self, axis: i64) -> Result<(Self, Tensor<i64, D>)> {
        running_extremum(self, "cummin", axis, false)
    }

    plain_forms! {
        /// [`Tensor::try_cummax`], panicking with its error.
        cummax, try_cummax(axis: i64) -> (Self, Tensor<i64, D>);
        /// [`Tensor::try_cummin`], panicking with its error.
        cummin, try_cummin(axis: i64) -> (Self, Tensor<i64, D>);
    }
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// `log(cumsum(exp(self)))` along `axis` without overflow or underflow (PyTorch
    /// `logcumsumexp`): each pass combines with [`Tensor::try_logaddexp`], so `-inf` elements
    /// add nothing and NaN propagates. Differentiable.
    ///
    /// # Errors
    /// `Axis` for an out-of-range axis.
    pub fn try_logcumsumexp(&self, axis: i64) -> Result<Self> {
        if let Some(row) = self.scalar_as_row("logcumsumexp", axis)? {
            return row.try_logcumsumexp(0)?.to_0d();
        }
        let ax = self.shape().axis("logcumsumexp", axis)?;
        log_step_scan(self, ax, |l, e| l.try_logaddexp(e))
    }

    plain_forms! {
        /// [`Tensor::try_logcumsumexp`], panicking with its error.
        logcumsumexp, try_logcumsumexp(axis: i64) -> Self;
    }
}
