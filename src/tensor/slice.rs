//! Basic slicing with a start/stop/step per dimension (NumPy's `t[a:b:c, ...]`), as a view.

use super::Tensor;
use crate::dtype::Element;
use crate::error::{Error, Result};
use std::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};

/// One dimension of a [`Tensor::slice`]: Python's `start:stop:step`, where a missing bound is
/// `None` and negative bounds count from the end. Build it from Rust ranges (`1..3`, `2..`,
/// `..-1`, `..`) and add a step with [`Slice::step`], or write all three with [`Slice::new`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slice {
    /// First index (Python `start`); `None` is the beginning (the end for a negative step).
    pub start: Option<i64>,
    /// One past the last index (Python `stop`); `None` runs to the end (the beginning for a
    /// negative step).
    pub stop: Option<i64>,
    /// Distance between taken indices; negative walks backwards; 0 is an `Err`.
    pub step: i64,
}

impl Slice {
    /// `start:stop:step` with optional bounds.
    pub fn new(start: Option<i64>, stop: Option<i64>, step: i64) -> Self {
        Slice { start, stop, step }
    }

    /// The whole dimension (`:`).
    pub fn all() -> Self {
        Slice::new(None, None, 1)
    }

    /// The same bounds with another step (`1..7` then `.step(2)` is Python's `1:7:2`).
    pub fn step(self, step: i64) -> Self {
        Slice { step, ..self }
    }

    /// The (first index, length) this slice selects in a dimension of `size`, with Python's
    /// clamping of out-of-range bounds (`slice.indices`). Computed in `i128`, so no bound or
    /// step (`i64::MIN` included) can overflow.
    fn resolve(&self, size: usize) -> (usize, usize) {
        let n = size as i128;
        let step = self.step as i128;
        let clamp = |b: i64, lo: i128, hi: i128| {
            let b = b as i128;
            (if b < 0 { b + n } else { b }).clamp(lo, hi)
        };
        let (start, stop) = if step > 0 {
            (
                self.start.map_or(0, |b| clamp(b, 0, n)),
                self.stop.map_or(n, |b| clamp(b, 0, n)),
            )
        } else {
            (
                self.start.map_or(n - 1, |b| clamp(b, -1, n - 1)),
                self.stop.map_or(-1, |b| clamp(b, -1, n - 1)),
            )
        };
        let span = if step > 0 { stop - start } else { start - stop };
        let len = if span <= 0 {
            0
        } else {
            (span + step.abs() - 1) / step.abs()
        };
        // 0 <= len <= size, and start lies in 0..size whenever len > 0.
        (start.max(0) as usize, len as usize)
    }
}

impl From<RangeFull> for Slice {
    fn from(_: RangeFull) -> Self {
        Slice::all()
    }
}
impl From<Range<i64>> for Slice {
    fn from(r: Range<i64>) -> Self {
        Slice::new(Some(r.start), Some(r.end), 1)
    }
}
impl From<RangeFrom<i64>> for Slice {
    fn from(r: RangeFrom<i64>) -> Self {
        Slice::new(Some(r.start), None, 1)
    }
}
impl From<RangeTo<i64>> for Slice {
    fn from(r: RangeTo<i64>) -> Self {
        Slice::new(None, Some(r.end), 1)
    }
}
/// The stop after an inclusive `end`: `..=-1` runs to the end, as Python's `:` does.
fn inclusive_stop(end: i64) -> Option<i64> {
    (end != -1).then_some(end + 1)
}
impl From<RangeInclusive<i64>> for Slice {
    fn from(r: RangeInclusive<i64>) -> Self {
        Slice::new(Some(*r.start()), inclusive_stop(*r.end()), 1)
    }
}
impl From<RangeToInclusive<i64>> for Slice {
    fn from(r: RangeToInclusive<i64>) -> Self {
        Slice::new(None, inclusive_stop(r.end), 1)
    }
}

impl<T: Element, D: crate::backend::Backend> Tensor<T, D> {
    /// A view selecting `start:stop:step` in each leading dimension (NumPy basic slicing; the
    /// dimensions after `slices.len()` are kept whole). Bounds are clamped like Python's; a
    /// negative step walks backwards (a view with a negative stride).
    ///
    /// ```
    /// # use typed_tensor::prelude::*;
    /// # use typed_tensor::tensor::Slice;
    /// let t = Tensor::<i32, Cpu>::arange(0, 12, 1)?.try_reshape([3, 4])?;
    /// let v = t.slice(&[(1..).into(), Slice::all().step(-2)])?; // t[1:, ::-2]
    /// assert_eq!(v.dims(), &[2, 2]);
    /// assert_eq!(v.to_vec(), vec![7, 5, 11, 9]);
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` for more slices than dimensions or a zero step.
    pub fn slice(&self, slices: &[Slice]) -> Result<Self> {
        if slices.len() > self.ndim() {
            return Err(Error::InvalidArgument {
                op: "slice",
                msg: format!(
                    "{} slices given for a tensor of shape {} ({} dimensions)",
                    slices.len(),
                    self.shape(),
                    self.ndim()
                ),
            });
        }
        let mut t = self.with_layout("slice", self.layout.clone())?;
        for (d, s) in slices.iter().enumerate() {
            if s.step == 0 {
                return Err(Error::InvalidArgument {
                    op: "slice",
                    msg: format!("step 0 for dimension {d} of shape {}", self.shape()),
                });
            }
            let (start, len) = s.resolve(t.dims()[d]);
            t = t.step_dim("slice", d, start, len, s.step as i128)?;
        }
        Ok(t)
    }
}
