//! `scatter_reduce` (PyTorch's): the writes of `scatter` combined per target by a sum,
//! product, mean, maximum or minimum, optionally with the target's own value. Sums and means
//! are `scatter_add`s; the others order the writes by target (one stable `argsort`) and
//! combine each run of one target with a segmented log-step scan, whose last element goes to
//! the target. Every step is a differentiable op on every device.
//!
//! ```
//! use typed_tensor::prelude::*;
//! use typed_tensor::ops::scatter_reduce::ScatterReduce;
//!
//! let x = tensor![1.0f32, 2.0, 3.0];
//! let idx = tensor![0i64, 0, 2];
//! let src = tensor![5.0f32, 7.0, -1.0];
//! let y = x.scatter_reduce(0, &idx, &src, ScatterReduce::Amax, true);
//! assert_eq!(y.to_vec(), vec![7.0, 2.0, 3.0]);
//! let m = x.scatter_reduce(0, &idx, &src, ScatterReduce::Mean, false);
//! assert_eq!(m.to_vec(), vec![6.0, 2.0, -1.0]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use super::scatter::{scatter_args, sorted_writes, targets, unsorted};
use crate::backend::Backend;
use crate::dtype::NumElement;
use crate::error::{OrPanic, Result};
use crate::tensor::Tensor;

/// How [`Tensor::try_scatter_reduce`] combines the values written to one target (PyTorch's
/// `reduce` argument).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScatterReduce {
    /// The sum.
    Sum,
    /// The product.
    Prod,
    /// The mean (floor division for integers, as PyTorch).
    Mean,
    /// The maximum; NaN propagates.
    Amax,
    /// The minimum; NaN propagates.
    Amin,
}

impl ScatterReduce {
    fn combine<T: NumElement, D: Backend>(
        self,
        a: &Tensor<T, D>,
        b: &Tensor<T, D>,
    ) -> Result<Tensor<T, D>> {
        match self {
            ScatterReduce::Sum | ScatterReduce::Mean => a.try_add(b),
            ScatterReduce::Prod => a.try_mul(b),
            ScatterReduce::Amax => a.try_maximum(b),
            ScatterReduce::Amin => a.try_minimum(b),
        }
    }
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// `self` with the values of `src` written at `index` along `axis` (as
    /// [`Tensor::try_scatter`]) combined per target by `reduce`, together with the target's
    /// own value when `include_self` (PyTorch `scatter_reduce`). Targets no write reaches keep
    /// their value. Differentiable in `self` and `src` (for `Amax`/`Amin` the gradient goes to
    /// the elements equal to the result, ties sharing it pairwise).
    ///
    /// # Errors
    /// As [`Tensor::try_scatter`].
    pub fn try_scatter_reduce(
        &self,
        axis: i64,
        index: &Tensor<i64, D>,
        src: &Self,
        reduce: ScatterReduce,
        include_self: bool,
    ) -> Result<Self> {
        let (ax, src) = scatter_args("scatter_reduce", self, axis, index, src)?;
        let a = ax as i64;
        let dev = self.device_handle();
        // `targets` checks every index value before `sorted_writes` computes with them.
        let hit = crate::autograd::no_grad(|| targets(self, ax, index))?;
        let zeros = self.try_zeros_like()?;
        let reduced = match reduce {
            ScatterReduce::Sum | ScatterReduce::Mean => zeros.try_scatter_add(a, index, &src)?,
            _ => {
                let Some(w) = crate::autograd::no_grad(|| sorted_writes(self, ax, index))? else {
                    return Ok(self.clone());
                };
                // Each run of one target scanned: element i combines with i - s when both
                // write the same target (the keys are sorted, so the run spans them).
                let n = index.numel();
                let mut v = src.try_reshape([n])?.try_gather(0, &w.order)?;
                let mut s = 1;
                while s < n {
                    let (later, earlier) = (v.narrow(0, s, n - s)?, v.narrow(0, 0, n - s)?);
                    let same =
                        w.sorted
                            .narrow(0, s, n - s)?
                            .try_eq(&w.sorted.narrow(0, 0, n - s)?)?;
                    let tail = Self::try_where(&same, &reduce.combine(&later, &earlier)?, &later)?;
                    v = Self::try_concat(&[&v.narrow(0, 0, s)?, &tail], 0)?;
                    s *= 2;
                }
                // Only the last write of each target carries its run's total.
                let zero = Self::scalar_on(T::ZERO, dev)?;
                let totals = Self::try_where(&w.last, &v, &zero)?;
                zeros.try_scatter_add(a, index, &unsorted(&w, &totals, index.shape())?)?
            }
        };
        let out = match (reduce, include_self) {
            (ScatterReduce::Mean, _) => {
                let ones = Tensor::<T, D>::ones_on(index.shape().clone(), dev)?;
                let count = self.try_zeros_like()?.try_scatter_add(a, index, &ones)?;
                let (sum, count) = if include_self {
                    (reduced.try_add(self)?, count.try_add_scalar(T::ONE)?)
                } else {
                    (reduced, count)
                };
                // Untouched targets divide by 1 (their value is replaced below anyway).
                let count = count.try_maximum_scalar(T::ONE)?;
                if const { T::DTYPE.is_float() } {
                    sum.try_div(&count)?
                } else {
                    sum.try_floor_divide(&count)?
                }
            }
            (_, true) => reduce.combine(&reduced, self)?,
            (_, false) => reduced,
        };
        Self::try_where(&hit, &out, self)
    }

    plain_forms! {
        /// [`Tensor::try_scatter_reduce`], panicking with its error.
        scatter_reduce, try_scatter_reduce(axis: i64, index: &Tensor<i64, D>, src: &Self, reduce: ScatterReduce, include_self: bool) -> Self;
    }
}
