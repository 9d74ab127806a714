//! Whether two tensors' elements overlap in memory (NumPy `may_share_memory` and
//! `shares_memory`): the questions to ask before writing into one while reading the other.

use super::Tensor;
use crate::backend::Backend;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::shape::Layout;

/// The most elements (both tensors together) the exact test enumerates.
const MAX_WORK: usize = 1 << 27;

/// The first and last element offsets a layout reaches, or `None` when it is empty.
fn extent(l: &Layout) -> Option<(isize, isize)> {
    if l.shape.dims().contains(&0) {
        return None;
    }
    let (mut lo, mut hi) = (l.offset as isize, l.offset as isize);
    for (&d, &s) in l.shape.dims().iter().zip(&l.strides) {
        let reach = (d as isize - 1) * s;
        if reach < 0 {
            lo += reach;
        } else {
            hi += reach;
        }
    }
    Some((lo, hi))
}

/// Every element offset of a non-empty layout, in row-major order of its indices.
fn offsets(l: &Layout) -> Vec<isize> {
    let dims = l.shape.dims();
    let mut out = Vec::with_capacity(l.shape.numel());
    let mut index = vec![0usize; dims.len()];
    let mut at = l.offset as isize;
    loop {
        out.push(at);
        // Odometer increment, last axis fastest.
        let mut axis = dims.len();
        loop {
            if axis == 0 {
                return out;
            }
            axis -= 1;
            index[axis] += 1;
            at += l.strides[axis];
            if index[axis] < dims[axis] {
                break;
            }
            at -= l.strides[axis] * dims[axis] as isize;
            index[axis] = 0;
        }
    }
}

impl<T: Element, D: Backend> Tensor<T, D> {
    /// Whether `self` and `other` might share elements (NumPy `may_share_memory`): the same
    /// storage and overlapping ranges of element offsets. Cheap (no element is enumerated)
    /// and conservative: `true` for two interleaved views that never touch the same element,
    /// where [`Tensor::try_shares_memory`] answers exactly. Empty tensors share nothing.
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    /// let x = Tensor::<f32>::zeros([4, 4])?;
    /// let (even, odd) = (x.slice(&s![.., 0..;2])?, x.slice(&s![.., 1..;2])?);
    /// assert!(even.may_share_memory(&odd)); // interleaved ranges
    /// assert!(!even.try_shares_memory(&odd)?); // but no common element
    /// assert!(x.try_shares_memory(&x.narrow(0, 3, 1)?)?);
    /// assert!(!x.may_share_memory(&x.try_deep_copy()?)); // a copy has its own storage
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    pub fn may_share_memory(&self, other: &Self) -> bool {
        if !self.shares_storage_with(other) {
            return false;
        }
        match (extent(&self.layout), extent(&other.layout)) {
            (Some((a0, a1)), Some((b0, b1))) => a0 <= b1 && b0 <= a1,
            _ => false,
        }
    }

    /// Whether `self` and `other` share at least one element (NumPy `shares_memory`),
    /// exactly: after [`Tensor::may_share_memory`]'s test, the offsets of both are compared
    /// (time and memory proportional to their element counts).
    ///
    /// # Errors
    /// `InvalidArgument` when that needs more than 2^27 elements enumerated (NumPy's
    /// `TooHardError` for its `max_work`); `may_share_memory` still answers.
    pub fn try_shares_memory(&self, other: &Self) -> Result<bool> {
        if !self.may_share_memory(other) {
            return Ok(false);
        }
        let work = self.numel().saturating_add(other.numel());
        if work > MAX_WORK {
            return Err(Error::InvalidArgument {
                op: "shares_memory",
                msg: format!(
                    "deciding it exactly for shapes {} and {} needs {work} elements enumerated, over the 2^27 limit; use may_share_memory",
                    self.shape(),
                    other.shape()
                ),
            });
        }
        let (small, large) = if self.numel() <= other.numel() {
            (self, other)
        } else {
            (other, self)
        };
        let mut seen = offsets(&small.layout);
        seen.sort_unstable();
        Ok(offsets(&large.layout)
            .iter()
            .any(|o| seen.binary_search(o).is_ok()))
    }

    /// [`Tensor::try_shares_memory`], panicking with its error.
    ///
    /// # Panics
    /// When `try_shares_memory` returns an `Err`.
    #[track_caller]
    pub fn shares_memory(&self, other: &Self) -> bool {
        use crate::error::OrPanic;
        self.try_shares_memory(other).or_panic()
    }
}
