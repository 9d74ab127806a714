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

/// An index as `i64`: every `i64`, `i32`, `isize` fits; a `usize` beyond `i64::MAX` saturates
/// (bounds are clamped to the dimension anyway).
trait AsIndex: Copy {
    fn as_index(self) -> i64;
}

/// `From<$range>` for [`Slice`] and [`SliceArg`], with the bounds converted by `$bounds`.
macro_rules! range_from {
    ($($range:ty => |$r:ident| ($start:expr, $stop:expr);)*) => {$(
        impl From<$range> for Slice {
            fn from($r: $range) -> Self {
                Slice::new($start, $stop, 1)
            }
        }
        impl From<$range> for SliceArg {
            fn from(r: $range) -> Self {
                SliceArg::Range(Slice::from(r))
            }
        }
        impl SliceEntry for $range {
            fn entry(self) -> SliceArg {
                self.into()
            }
        }
        impl SliceRange for $range {
            fn range(self) -> Slice {
                self.into()
            }
        }
    )*};
}

macro_rules! index_types {
    ($($t:ty),*) => {$(
        impl AsIndex for $t {
            fn as_index(self) -> i64 {
                i64::try_from(self).unwrap_or(i64::MAX)
            }
        }
        /// A single index: selects one position and drops the axis (NumPy's `t[i]`).
        impl From<$t> for SliceArg {
            fn from(i: $t) -> Self {
                SliceArg::Index(i.as_index())
            }
        }
        impl SliceEntry for $t {
            fn entry(self) -> SliceArg {
                self.into()
            }
        }
        range_from! {
            Range<$t> => |r| (Some(r.start.as_index()), Some(r.end.as_index()));
            RangeFrom<$t> => |r| (Some(r.start.as_index()), None);
            RangeTo<$t> => |r| (None, Some(r.end.as_index()));
            RangeInclusive<$t> => |r| (Some(r.start().as_index()), inclusive_stop(r.end().as_index()));
            RangeToInclusive<$t> => |r| (None, inclusive_stop(r.end.as_index()));
        }
    )*};
}
index_types!(i64, i32, isize, usize);

/// What [`s!`](crate::s) accepts as an entry: integer ranges, integer indices, `..`, a
/// [`Slice`], [`NewAxis`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a slicing entry",
    label = "not an integer range, an integer index or `NewAxis`",
    note = "entries of `s![..]` are integer ranges (`1..3`, `2..`, `..-1`, `..`), ranges with a step (`..;2`, `4..0;-1`), integer indices (`-1`, which drop the axis) and `NewAxis`"
)]
pub trait SliceEntry {
    /// The entry.
    fn entry(self) -> SliceArg;
}

/// What [`s!`](crate::s) accepts before `;step`: a range (a single index has no step).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot take a step",
    label = "a step needs a range",
    note = "write the step after a range: `..;2`, `1..;2`, `4..0;-1`; a single index selects one position and has no step"
)]
pub trait SliceRange {
    /// The range.
    fn range(self) -> Slice;
}

impl SliceEntry for RangeFull {
    fn entry(self) -> SliceArg {
        self.into()
    }
}
impl SliceRange for RangeFull {
    fn range(self) -> Slice {
        self.into()
    }
}
impl SliceEntry for Slice {
    fn entry(self) -> SliceArg {
        self.into()
    }
}
impl SliceRange for Slice {
    fn range(self) -> Slice {
        self
    }
}
impl SliceEntry for NewAxis {
    fn entry(self) -> SliceArg {
        SliceArg::NewAxis
    }
}

impl From<RangeFull> for SliceArg {
    fn from(_: RangeFull) -> Self {
        SliceArg::Range(Slice::all())
    }
}
impl From<Slice> for SliceArg {
    fn from(s: Slice) -> Self {
        SliceArg::Range(s)
    }
}
impl From<NewAxis> for SliceArg {
    fn from(_: NewAxis) -> Self {
        SliceArg::NewAxis
    }
}

/// Inserts an axis of length 1 where it appears in [`s!`](crate::s) (NumPy's `np.newaxis`,
/// PyTorch's `None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewAxis;

/// One entry of a [`Tensor::slice`]: a range with a step (keeps the axis), a single index
/// (drops the axis), or a new axis of length 1. Built by [`s!`](crate::s) or with `From`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SliceArg {
    /// `start:stop:step` along the next axis.
    Range(Slice),
    /// One position of the next axis, which is removed; negative counts from the end.
    Index(i64),
    /// A new axis of length 1.
    NewAxis,
}

/// The stop after an inclusive `end`: `..=-1` runs to the end, as Python's `:` does.
fn inclusive_stop(end: i64) -> Option<i64> {
    (end != -1).then_some(end + 1)
}

impl<T: Element, D: crate::backend::Backend> Tensor<T, D> {
    /// A view by NumPy's basic indexing: each entry applies to the next axis in order. A range
    /// with a step (`1..3`, `..;2`, `Slice::new(..)`) keeps the axis, a single index (`-1`)
    /// selects one position and drops the axis, [`NewAxis`] inserts an axis of length 1; axes
    /// after the entries are kept whole. Range bounds are clamped like Python's; a negative step
    /// walks backwards (a view with a negative stride). Write the entries with [`s!`](crate::s).
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    ///
    /// let t = Tensor::<i32, Cpu>::arange(0, 24, 1)?.try_reshape([2, 3, 4])?;
    /// let v = t.slice(&s![.., 1.., ..;-2])?; // NumPy t[:, 1:, ::-2]
    /// assert_eq!(v.dims(), &[2, 2, 2]);
    /// assert_eq!(v.to_vec(), vec![7, 5, 11, 9, 19, 17, 23, 21]);
    /// let row = t.slice(&s![-1, 0])?; // t[-1, 0]: both indexed axes are dropped
    /// assert_eq!(row.to_vec(), vec![12, 13, 14, 15]);
    /// let col = t.slice(&s![0, .., 2, NewAxis])?; // t[0, :, 2, None]
    /// assert_eq!(col.dims(), &[3, 1]);
    /// assert!(t.slice(&s![2]).is_err()); // index 2 of an axis of length 2
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` for more ranges and indices than dimensions or a zero step; `Index`
    /// for an index outside `-len..len`.
    pub fn slice<S: Into<SliceArg> + Copy>(&self, args: &[S]) -> Result<Self> {
        let args: Vec<SliceArg> = args.iter().map(|&a| a.into()).collect();
        let used = args.iter().filter(|a| **a != SliceArg::NewAxis).count();
        if used > self.ndim() {
            return Err(Error::InvalidArgument {
                op: "slice",
                msg: format!(
                    "{used} ranges and indices given for a tensor of shape {} ({} dimensions)",
                    self.shape(),
                    self.ndim()
                ),
            });
        }
        // Step every indexed axis in place, then drop the indexed axes and insert new ones.
        let mut t = self.with_layout("slice", self.layout.clone())?;
        let (mut shape, mut strides) = (Vec::new(), Vec::new());
        let mut d = 0;
        for a in &args {
            let size = t.dims().get(d).copied().unwrap_or(0);
            match *a {
                SliceArg::NewAxis => {
                    shape.push(1);
                    strides.push(0);
                    continue;
                }
                SliceArg::Range(s) if s.step == 0 => {
                    return Err(Error::InvalidArgument {
                        op: "slice",
                        msg: format!("step 0 for dimension {d} of shape {}", self.shape()),
                    });
                }
                SliceArg::Range(s) => {
                    let (start, len) = s.resolve(size);
                    t = t.step_dim("slice", d, start, len, s.step as i128)?;
                    shape.push(t.dims()[d]);
                    strides.push(t.stride()[d]);
                }
                SliceArg::Index(i) => {
                    let at = if i < 0 {
                        i as i128 + size as i128
                    } else {
                        i as i128
                    };
                    if at < 0 || at >= size as i128 {
                        return Err(Error::Index {
                            op: "slice",
                            index: i,
                            dim: d,
                            size,
                            shape: self.shape().clone(),
                        });
                    }
                    t = t.step_dim("slice", d, at as usize, 1, 1)?;
                }
            }
            d += 1;
        }
        if shape.len() == used && !args.iter().any(|a| matches!(a, SliceArg::Index(_))) {
            return Ok(t); // ranges only: the stepped view is the answer
        }
        shape.extend_from_slice(&t.dims()[d..]);
        strides.extend_from_slice(&t.stride()[d..]);
        let offset = t.layout.offset;
        t.with_layout(
            "slice",
            crate::shape::Layout {
                shape: shape.into(),
                strides: strides.into(),
                offset,
            },
        )
    }
}

/// Slicing entries for [`Tensor::slice`] and [`crate::dynamic::DynTensor::slice`], in NumPy's basic
/// indexing syntax written with Rust ranges: `s![.., 1..3, ..;2, -1, NewAxis]` is NumPy's
/// `t[:, 1:3, ::2, -1, None]`.
///
/// - `a..b`, `a..`, `..b`, `a..=b`, `..`: a range of the next axis (negative bounds count from
///   the end; out-of-range bounds are clamped, as Python does);
/// - `range;step`: the same with a step; a negative step walks backwards from `a` towards `b`
///   (NumPy's `a:b:-1`), and `..;-1` reverses the axis;
/// - `i`: one position (negative counts from the end), dropping the axis; out of range is an
///   `Err` when the slice is taken;
/// - `NewAxis`: a new axis of length 1.
///
/// The result is an array of [`SliceArg`]; pass it by reference: `t.slice(&s![0, ..])`.
/// Integer literals default to `i32`; variables of type `i64`, `i32`, `isize` or `usize` work.
#[macro_export]
macro_rules! s {
    (@acc [$($acc:expr,)*]) => { [$($acc,)*] };
    (@acc [$($acc:expr,)*] $r:expr ; $step:expr $(, $($rest:tt)*)?) => {
        $crate::s!(@acc [$($acc,)* {
            // `4..0;-1` walks backwards: the range is not meant to be iterated.
            #[allow(clippy::reversed_empty_ranges)]
            let r = $r;
            $crate::tensor::SliceArg::Range($crate::tensor::SliceRange::range(r).step($step))
        },] $($($rest)*)?)
    };
    (@acc [$($acc:expr,)*] $r:expr $(, $($rest:tt)*)?) => {
        $crate::s!(@acc [$($acc,)* {
            #[allow(clippy::reversed_empty_ranges)]
            let r = $r;
            $crate::tensor::SliceEntry::entry(r)
        },] $($($rest)*)?)
    };
    ($($t:tt)*) => { $crate::s!(@acc [] $($t)*) };
}
