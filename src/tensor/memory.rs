//! Memory geometry: whether two tensors' elements overlap (NumPy `may_share_memory` and
//! `shares_memory`, the questions to ask before writing into one while reading the other),
//! and PyTorch's `as_strided`, a view with any sizes, strides and offset inside the tensor.

use super::Tensor;
use crate::backend::Backend;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::shape::{Layout, Shape};

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
fn offsets(l: &Layout) -> Result<Vec<isize>> {
    let dims = l.shape.dims();
    let mut out = crate::alloc::with_capacity("offsets", l.shape.numel())?;
    let mut index = vec![0usize; dims.len()];
    let mut at = l.offset as isize;
    loop {
        out.push(at);
        // Odometer increment, last axis fastest.
        let mut axis = dims.len();
        loop {
            if axis == 0 {
                return Ok(out);
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
        let mut seen = offsets(&small.layout)?;
        seen.sort_unstable();
        Ok(offsets(&large.layout)?
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

/// Whether no two indices of `dims`/`strides` reach one offset, stride-0 axes aside (those
/// are broadcast, as `expand`'s), by the sufficient test on the strides sorted by size: each
/// at least one past the reach of the smaller ones.
fn surely_disjoint(dims: &[usize], strides: &[isize]) -> bool {
    if dims.contains(&0) {
        return true;
    }
    let mut axes: Vec<(usize, usize)> = (dims.iter().zip(strides))
        .filter(|&(&d, &s)| d > 1 && s != 0)
        .map(|(&d, &s)| (d, s.unsigned_abs()))
        .collect();
    axes.sort_by_key(|&(_, s)| s);
    let mut reach = 0usize;
    for (d, s) in axes {
        if s <= reach {
            return false;
        }
        // `s·(d - 1)` lies within the (already checked) view's span: no overflow.
        reach += s * (d - 1);
    }
    true
}

impl<T: Element, D: Backend> Tensor<T, D> {
    /// A view with sizes `size`, strides `stride` (in elements; negative ones walk backwards,
    /// which PyTorch refuses) and its first element at `storage_offset` in the storage
    /// (`None`: this tensor's offset) (PyTorch `as_strided`). Every element it reaches must lie
    /// within the elements this tensor spans. A stride 0 broadcasts, as `expand` (a view that
    /// in-place ops refuse to write); any other layout whose elements may overlap (sliding
    /// windows such as sizes `(3, 2)` with strides `(1, 1)`) is returned as a **copy**, since
    /// writing through it would race: reads are the same, writes do not reach `self`.
    /// Differentiable: a view's gradient goes to the elements it shows; a copy's is summed
    /// over the places each element was read.
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    /// let x = Tensor::<f32>::arange(0.0, 6.0, 1.0)?;
    /// let t = x.as_strided(&[3, 2], &[1, 3], None)?; // x.reshape(2, 3).t(), a view
    /// assert_eq!(t.to_vec(), vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    /// assert!(t.shares_memory(&x));
    /// let w = x.as_strided(&[4, 3], &[1, 1], Some(0))?; // overlapping windows: a copy
    /// assert_eq!(w.to_vec()[3..6], [1.0, 2.0, 3.0]);
    /// assert!(x.as_strided(&[7], &[1], None).is_err()); // past the end
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// Returns a `Result`, as every view method.
    ///
    /// # Errors
    /// `InvalidArgument` when `size` and `stride` differ in length; `Layout` when the view
    /// reaches outside the elements this tensor spans; `ShapeOverflow` when it holds more than
    /// `isize::MAX` bytes.
    pub fn as_strided(
        &self,
        size: &[usize],
        stride: &[isize],
        storage_offset: Option<usize>,
    ) -> Result<Self> {
        const OP: &str = "as_strided";
        if size.len() != stride.len() {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!(
                    "needs one stride per size, got sizes {size:?} and strides {stride:?}"
                ),
            });
        }
        let layout = Layout {
            shape: Shape::new(size.to_vec()),
            strides: stride.iter().copied().collect(),
            offset: storage_offset.unwrap_or(self.layout.offset),
        };
        // Checked first (inside this tensor's span, no overflow), then a view or a copy.
        let view = self.detach().with_layout(OP, layout.clone())?;
        if surely_disjoint(size, stride) {
            return self.with_layout(OP, layout);
        }
        // Overlapping: the view's offsets gathered from the span, a copy.
        let (lo, hi) = self.layout.span();
        let span = self.with_layout(
            OP,
            Layout {
                shape: Shape::new(vec![hi - lo]),
                strides: [1].into_iter().collect(),
                offset: lo,
            },
        )?;
        let at: Vec<i64> = offsets(&view.layout)?
            .into_iter()
            .map(|o| (o - lo as isize) as i64)
            .collect();
        let at = Tensor::from_vec_on(at, [view.numel()], self.device_handle())?;
        span.try_index_select(0, &at)?.try_reshape(size)
    }
}
