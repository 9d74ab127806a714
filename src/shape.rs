//! Shapes, strides (in elements), broadcasting and axis normalisation. All size, stride and
//! offset arithmetic on layouts is checked here (in `i128` where sums of products appear), so
//! no layout that reaches a kernel can point outside its storage.

use crate::error::{Error, Result};
use smallvec::SmallVec;
use std::fmt;

/// Dimensions, stored inline up to four (the common case allocates nothing).
pub type Dims = SmallVec<[usize; 4]>;
/// Strides in elements, stored inline up to four dimensions.
pub type Strides = SmallVec<[isize; 4]>;
/// A mask of axes (`true` for each chosen axis), inline up to eight dimensions.
pub(crate) type AxesMask = SmallVec<[bool; 8]>;

/// The largest tensor this crate creates or views, in bytes: `isize::MAX`, the most one Rust
/// allocation can hold (and the most a stride can address). A shape whose element count times
/// the element size exceeds it is an `Err(ShapeOverflow)`, before anything is allocated.
pub const MAX_BYTES: usize = isize::MAX as usize;

/// The product of some of a tensor's dimensions. Saturating, so that an empty tensor whose other
/// dimensions are huge (a broadcast view of a `[0, ..]` tensor) gives 0 instead of overflowing;
/// for a non-empty tensor the product fits, since its element count does.
pub(crate) fn numel_of(dims: impl IntoIterator<Item = usize>) -> usize {
    dims.into_iter().fold(1usize, usize::saturating_mul)
}

/// The dimensions of a tensor, outermost first. `[]` is a 0-d scalar; a zero-length dimension
/// (`[0, 3]`) is a valid, empty tensor, as in NumPy.
#[derive(PartialEq, Eq, Hash, Default)]
pub struct Shape(Dims);

/// A copy of dimensions or strides. When they are inline, the whole inline buffer is copied
/// at once: `SmallVec::clone` writes element by element, and the 16-byte moves of the result
/// that follow stalled on store forwarding in the small-tensor profiles (issue 26).
#[inline]
fn copy_small<T: Copy>(v: &SmallVec<[T; 4]>) -> SmallVec<[T; 4]> {
    if v.spilled() {
        v.clone()
    } else {
        // SAFETY: an inline `SmallVec` of `Copy` elements owns no heap memory and holds no
        // pointer into itself, so its bitwise copy is an independent, valid `SmallVec` (what
        // `Copy` would make).
        unsafe { std::ptr::read(v) }
    }
}

impl Clone for Shape {
    #[inline]
    fn clone(&self) -> Self {
        Shape(copy_small(&self.0))
    }
}

impl Shape {
    /// `(m, n)` of the matrices in the last two dimensions, or the `InvalidArgument` naming
    /// `op`; `square` demands `m == n`.
    pub(crate) fn matrix_dims(&self, op: &'static str, square: bool) -> Result<(usize, usize)> {
        match self.dims() {
            [.., m, n] if !square || m == n => Ok((*m, *n)),
            _ => Err(Error::InvalidArgument {
                op,
                msg: format!(
                    "needs {} in the last two dimensions (..., m, n), got shape {self}",
                    if square {
                        "square matrices"
                    } else {
                        "matrices"
                    }
                ),
            }),
        }
    }

    /// A shape from its dimensions.
    pub fn new(dims: Vec<usize>) -> Self {
        // Inline when it fits, so that clones of the shape never allocate.
        if dims.len() <= 4 {
            Shape(Dims::from_slice(&dims))
        } else {
            Shape(Dims::from_vec(dims))
        }
    }
    /// A shape from inline dimensions (no allocation up to 4 dimensions).
    pub(crate) fn from_dims(dims: Dims) -> Self {
        Shape(dims)
    }
    /// The dimensions.
    #[inline]
    pub fn dims(&self) -> &[usize] {
        &self.0
    }
    /// Number of dimensions.
    #[inline]
    pub fn ndim(&self) -> usize {
        self.0.len()
    }
    /// Number of elements, or `Err(ShapeOverflow)` when it does not fit in `usize`.
    pub fn try_numel(&self, op: &'static str) -> Result<usize> {
        if self.0.contains(&0) {
            return Ok(0); // the other dimensions may be huge; their product never matters
        }
        self.0
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| Error::ShapeOverflow {
                op,
                dims: self.0.to_vec(),
            })
    }
    /// Number of elements when the shape's size in bytes (`elem_size` bytes an element) is at
    /// most [`MAX_BYTES`]; `Err(ShapeOverflow)` otherwise. Every tensor and view passes this.
    pub fn checked_numel(&self, op: &'static str, elem_size: usize) -> Result<usize> {
        let n = self.try_numel(op)?;
        match n.checked_mul(elem_size.max(1)) {
            Some(b) if b <= MAX_BYTES => Ok(n),
            _ => Err(Error::ShapeOverflow {
                op,
                dims: self.0.to_vec(),
            }),
        }
    }
    /// Number of elements (the product of the dimensions; 1 for a 0-d shape).
    ///
    /// Never overflows for a tensor's shape: tensors and views are only created from shapes
    /// that passed [`Shape::checked_numel`].
    #[inline]
    pub fn numel(&self) -> usize {
        if self.0.contains(&0) {
            return 0;
        }
        self.0.iter().product()
    }
    /// Row-major (C-contiguous) strides in elements: `(3, 4)` gives `[4, 1]`.
    pub fn contiguous_strides(&self) -> Strides {
        let mut s: Strides = smallvec::smallvec![0isize; self.0.len()];
        let mut acc = 1isize;
        for i in (0..self.0.len()).rev() {
            s[i] = acc;
            acc = acc.wrapping_mul(self.0[i].max(1) as isize);
        }
        s
    }
    /// Normalises an axis that may count from the end (`-1` is the last), as NumPy does.
    pub fn axis(&self, op: &'static str, axis: i64) -> Result<usize> {
        let n = self.0.len() as i64;
        let a = if axis < 0 { axis + n } else { axis };
        if a < 0 || a >= n {
            return Err(Error::Axis {
                op,
                axis,
                shape: self.clone(),
                ndim: self.0.len(),
                msg: "axes must lie in -ndim..ndim",
            });
        }
        Ok(a as usize)
    }
    /// PyTorch's rule for a 0-d tensor (`maybe_wrap_dim` with `wrap_scalar`): axes 0 and -1
    /// name its one element, as if its shape were `(1,)`, so `sum(dim=0)`, `cumsum(0)` or
    /// `softmax(-1)` of a 0-d tensor work and return a 0-d tensor. `Ok(true)` for a 0-d shape
    /// and one of those axes, `Ok(false)` for a shape with dimensions, and the `Axis` error for
    /// any other axis of a 0-d shape.
    pub fn scalar_axis(&self, op: &'static str, axis: i64) -> Result<bool> {
        match (self.0.is_empty(), axis) {
            (false, _) => Ok(false),
            (true, 0 | -1) => Ok(true),
            (true, _) => Err(Error::Axis {
                op,
                axis,
                shape: self.clone(),
                ndim: 0,
                msg: "a 0-d tensor takes only axis 0 or -1 (its one element, as PyTorch)",
            }),
        }
    }
    /// Normalises a list of axes; empty means all axes. Repeated axes are an `Err`.
    /// Returns a mask with `true` for each reduced axis. For a 0-d shape the axes 0 and -1
    /// are accepted and the mask is empty ([`Shape::scalar_axis`]).
    pub fn axes_mask(&self, op: &'static str, axes: &[i64]) -> Result<Vec<bool>> {
        self.axes_mask_inline(op, axes).map(SmallVec::into_vec)
    }
    /// [`Shape::axes_mask`] inline up to 8 dimensions (no allocation on a reduction's path).
    #[inline]
    pub(crate) fn axes_mask_inline(&self, op: &'static str, axes: &[i64]) -> Result<AxesMask> {
        let n = self.0.len();
        let mut mask = if n <= 8 {
            AxesMask::from_buf_and_len([axes.is_empty(); 8], n)
        } else {
            smallvec::smallvec![axes.is_empty(); n]
        };
        if n == 0 {
            // A 0-d tensor reduced over its one element: nothing to mark.
            for (k, &a) in axes.iter().enumerate() {
                self.scalar_axis(op, a)?;
                if k > 0 {
                    return Err(Error::Axis {
                        op,
                        axis: a,
                        shape: self.clone(),
                        ndim: 0,
                        msg: "an axis is listed twice (0 and -1 are the same axis of a 0-d tensor)",
                    });
                }
            }
            return Ok(mask);
        }
        for &a in axes {
            let i = self.axis(op, a)?;
            if mask[i] {
                return Err(Error::Axis {
                    op,
                    axis: a,
                    shape: self.clone(),
                    ndim: self.0.len(),
                    msg: "an axis is listed twice",
                });
            }
            mask[i] = true;
        }
        Ok(mask)
    }
}

/// The NumPy broadcast of two shapes: align on the right, pad with 1s, stretch size-1
/// dimensions. `(3, 4)` with `(5,)` is an `Err` naming both shapes.
pub fn broadcast_shapes(op: &'static str, a: &Shape, b: &Shape) -> Result<Shape> {
    let n = a.ndim().max(b.ndim());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i + a.ndim() >= n {
            a.0[i + a.ndim() - n]
        } else {
            1
        };
        let db = if i + b.ndim() >= n {
            b.0[i + b.ndim() - n]
        } else {
            1
        };
        out[i] = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => {
                return Err(Error::Broadcast {
                    op,
                    lhs: a.clone(),
                    rhs: b.clone(),
                });
            }
        };
    }
    Ok(Shape(out.into()))
}

impl fmt::Display for Shape {
    /// `(2, 3)`; a 1-d shape prints as `(5,)` and a 0-d one as `()`, as in Python.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "(")?;
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{d}")?;
        }
        if self.0.len() == 1 {
            write!(f, ",")?;
        }
        write!(f, ")")
    }
}

impl fmt::Debug for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl<const N: usize> From<[usize; N]> for Shape {
    fn from(d: [usize; N]) -> Self {
        Shape(Dims::from_slice(&d))
    }
}
impl From<Vec<usize>> for Shape {
    fn from(d: Vec<usize>) -> Self {
        Shape(Dims::from_vec(d))
    }
}
impl From<&[usize]> for Shape {
    fn from(d: &[usize]) -> Self {
        Shape(Dims::from_slice(d))
    }
}
impl From<&Vec<usize>> for Shape {
    fn from(d: &Vec<usize>) -> Self {
        Shape(Dims::from_slice(d))
    }
}
impl From<&Shape> for Shape {
    fn from(s: &Shape) -> Self {
        s.clone()
    }
}
impl From<()> for Shape {
    fn from(_: ()) -> Self {
        Shape(Dims::new())
    }
}
impl From<usize> for Shape {
    fn from(d: usize) -> Self {
        Shape(smallvec::smallvec![d])
    }
}

/// Where a tensor's elements live inside its storage: shape, strides in elements (0 for a
/// broadcast dimension, negative for a flipped one) and the offset of element `[0, ..., 0]`.
#[derive(Debug, PartialEq, Eq)]
pub struct Layout {
    /// The logical shape.
    pub shape: Shape,
    /// Strides in elements, one per dimension.
    pub strides: Strides,
    /// Offset in elements of the first element.
    pub offset: usize,
}

impl Clone for Layout {
    #[inline]
    fn clone(&self) -> Self {
        Layout {
            shape: self.shape.clone(),
            strides: copy_small(&self.strides),
            offset: self.offset,
        }
    }
}

impl Layout {
    /// The layout of a 0-d tensor: no dimensions, offset 0.
    #[inline]
    pub fn scalar() -> Self {
        Layout {
            shape: Shape(Dims::new()),
            strides: Strides::new(),
            offset: 0,
        }
    }
    /// A row-major layout at offset 0.
    pub fn contiguous(shape: Shape) -> Self {
        let strides = shape.contiguous_strides();
        Layout {
            shape,
            strides,
            offset: 0,
        }
    }
    /// The row-major layout of this layout's shape at offset 0, copied from `self` when its
    /// strides already are the row-major ones (a copy of the inline arrays, no stride arithmetic).
    #[inline]
    pub fn contiguous_copy(&self) -> Self {
        let mut expected = 1isize;
        let canonical = (self.shape.0.iter().zip(&self.strides).rev()).all(|(&d, &s)| {
            let ok = s == expected;
            expected = expected.wrapping_mul(d.max(1) as isize);
            ok
        });
        if canonical {
            Layout {
                offset: 0,
                ..self.clone()
            }
        } else {
            Layout::contiguous(self.shape.clone())
        }
    }
    /// The strides that view this layout's elements as `shape` (same element count) without
    /// moving any, or `None` when the strides do not allow it (PyTorch's `computeStride`,
    /// which decides whether `reshape` can be a view): each run of dimensions that is
    /// contiguous in memory may be split or merged freely, but never across runs.
    pub fn view_strides(&self, shape: &Shape) -> Option<Vec<isize>> {
        let (old, new) = (self.shape.dims(), shape.dims());
        if old.contains(&0) || new.is_empty() || old.is_empty() {
            // No elements, or a 0-d side: any strides address the (at most one) element.
            return Some(shape.contiguous_strides().to_vec());
        }
        let mut strides = vec![0isize; new.len()];
        let mut view_d = new.len();
        let mut base = *self.strides.last()?;
        let (mut tensor_numel, mut view_numel) = (1usize, 1usize);
        for d in (0..old.len()).rev() {
            tensor_numel = tensor_numel.checked_mul(old[d])?;
            let chunk_ends = d == 0
                || (old[d - 1] != 1
                    && isize::try_from(tensor_numel)
                        .ok()
                        .and_then(|n| n.checked_mul(base))
                        != Some(self.strides[d - 1]));
            if chunk_ends {
                while view_d > 0 && (view_numel < tensor_numel || new[view_d - 1] == 1) {
                    view_d -= 1;
                    strides[view_d] = isize::try_from(view_numel).ok()?.checked_mul(base)?;
                    view_numel = view_numel.checked_mul(new[view_d])?;
                }
                if view_numel != tensor_numel {
                    return None;
                }
                if d > 0 {
                    base = self.strides[d - 1];
                    tensor_numel = 1;
                    view_numel = 1;
                }
            }
        }
        (view_d == 0).then_some(strides)
    }

    /// True when the elements are one row-major run (size-1 dimensions' strides ignored).
    #[inline]
    pub fn is_contiguous(&self) -> bool {
        if self.shape.0.contains(&0) {
            return true;
        }
        let mut expected = 1isize;
        for i in (0..self.shape.ndim()).rev() {
            let d = self.shape.0[i];
            if d == 1 {
                continue;
            }
            if self.strides[i] != expected {
                return false;
            }
            // A non-empty tensor's element count fits in isize, so this cannot overflow.
            expected = expected.saturating_mul(d as isize);
        }
        true
    }
    /// True when the layout visits each element of its span exactly once: a permutation of a
    /// contiguous layout (its strides, sorted, are 1 and the running products of the sizes;
    /// size-1 dimensions ignored). Such a view can be written in place without two of its
    /// elements meeting.
    pub(crate) fn is_dense(&self) -> bool {
        let mut dims: Vec<(isize, usize)> = (self.strides.iter().copied())
            .zip(self.shape.dims().iter().copied())
            .filter(|&(_, d)| d > 1)
            .collect();
        dims.sort_unstable();
        let mut expected = 1isize;
        dims.iter().all(|&(s, d)| {
            let ok = s == expected;
            expected = expected.saturating_mul(d as isize);
            ok
        })
    }
    /// This layout seen through a broadcast to `target` (stride 0 for stretched dimensions).
    pub fn broadcast_to(&self, op: &'static str, target: &Shape) -> Result<Layout> {
        let n = target.ndim();
        if self.shape.ndim() > n {
            return Err(Error::Broadcast {
                op,
                lhs: self.shape.clone(),
                rhs: target.clone(),
            });
        }
        let pad = n - self.shape.ndim();
        let mut strides = vec![0isize; n];
        for i in 0..n {
            if i < pad {
                continue;
            }
            let d = self.shape.0[i - pad];
            if d == target.0[i] {
                strides[i] = self.strides[i - pad];
            } else if d != 1 {
                return Err(Error::Broadcast {
                    op,
                    lhs: self.shape.clone(),
                    rhs: target.clone(),
                });
            }
        }
        Ok(Layout {
            shape: target.clone(),
            strides: strides.into(),
            offset: self.offset,
        })
    }
    /// The lowest and one-past-highest storage index this layout touches (empty: `(offset,
    /// offset)`), or `None` when that range does not fit in `usize` (a corrupt layout).
    pub fn try_span(&self) -> Option<(usize, usize)> {
        if self.shape.try_numel("span").ok()? == 0 {
            return Some((self.offset, self.offset));
        }
        if self.strides.len() != self.shape.ndim() {
            return None;
        }
        let (mut lo, mut hi) = (self.offset as i128, self.offset as i128);
        for (&d, &s) in self.shape.0.iter().zip(&self.strides) {
            let ext = (d as i128 - 1).checked_mul(s as i128)?;
            if ext < 0 {
                lo = lo.checked_add(ext)?;
            } else {
                hi = hi.checked_add(ext)?;
            }
        }
        Some((
            usize::try_from(lo).ok()?,
            usize::try_from(hi.checked_add(1)?).ok()?,
        ))
    }
    /// [`Layout::try_span`] of a valid layout (every tensor's layout is one).
    pub fn span(&self) -> (usize, usize) {
        self.try_span()
            .expect("a tensor's layout was checked when it was made")
    }
    /// `Ok` when every element of this layout lies in a storage of `len` elements and the shape
    /// holds at most [`MAX_BYTES`] of `elem_size`-byte elements: the precondition of every
    /// kernel. An empty layout needs only `offset <= len`.
    pub fn check_within(&self, op: &'static str, len: usize, elem_size: usize) -> Result<()> {
        self.shape.checked_numel(op, elem_size)?;
        match self.try_span() {
            Some((lo, hi)) if lo <= hi && hi <= len.max(lo) && (lo < hi || lo <= len) => Ok(()),
            _ => Err(Error::Layout {
                op,
                msg: format!(
                    "a view of shape {} with strides {:?} at offset {} reaches outside its storage of {len} elements",
                    self.shape, self.strides, self.offset
                ),
            }),
        }
    }
    /// True when two different logical indices may map to one storage element (a stride 0 on a
    /// dimension longer than 1): such a layout cannot be written in place.
    #[inline]
    pub fn has_aliasing(&self) -> bool {
        // An empty tensor has no element to share (its strides may be arbitrary).
        !self.shape.0.contains(&0)
            && self
                .shape
                .0
                .iter()
                .zip(&self.strides)
                .any(|(&d, &s)| d > 1 && s == 0)
    }
}
