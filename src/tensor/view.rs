//! Views (no copy; they share storage and report `owns_data() == false`) and the copies that
//! materialise them.

use super::Tensor;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::shape::{Layout, Shape};

/// A target shape for `reshape`/`view`: `usize` dimensions, or `i64` ones where one `-1` is
/// inferred from the element count (NumPy, PyTorch).
pub trait ReshapeDims {
    /// The dims, with `-1` as `None`.
    fn spec(&self) -> Vec<Option<usize>>;
}
impl ReshapeDims for Shape {
    fn spec(&self) -> Vec<Option<usize>> {
        self.dims().iter().map(|&d| Some(d)).collect()
    }
}
impl<const N: usize> ReshapeDims for [usize; N] {
    fn spec(&self) -> Vec<Option<usize>> {
        self.iter().map(|&d| Some(d)).collect()
    }
}
impl ReshapeDims for &[usize] {
    fn spec(&self) -> Vec<Option<usize>> {
        self.iter().map(|&d| Some(d)).collect()
    }
}
impl ReshapeDims for Vec<usize> {
    fn spec(&self) -> Vec<Option<usize>> {
        self.iter().map(|&d| Some(d)).collect()
    }
}
macro_rules! signed_dims {
    ($($t:ty),*) => {$(
        impl<const N: usize> ReshapeDims for [$t; N] {
            fn spec(&self) -> Vec<Option<usize>> {
                self.iter().map(|&d| (d >= 0).then_some(d as usize)).collect()
            }
        }
        impl ReshapeDims for &[$t] {
            fn spec(&self) -> Vec<Option<usize>> {
                self.iter().map(|&d| (d >= 0).then_some(d as usize)).collect()
            }
        }
        impl ReshapeDims for Vec<$t> {
            fn spec(&self) -> Vec<Option<usize>> {
                self.iter().map(|&d| (d >= 0).then_some(d as usize)).collect()
            }
        }
    )*};
}
signed_dims!(i32, i64, isize);

pub(crate) fn resolve(op: &'static str, from: &Shape, spec: Vec<Option<usize>>) -> Result<Shape> {
    let n = from.numel();
    let bad = |msg: String| Error::ShapeMismatch {
        op,
        lhs: from.clone(),
        rhs: Shape::new(spec.iter().map(|d| d.unwrap_or(0)).collect()),
        msg,
    };
    let unknown = spec.iter().filter(|d| d.is_none()).count();
    if unknown > 1 {
        return Err(bad("only one dimension can be -1".into()));
    }
    let known: Option<usize> = spec
        .iter()
        .flatten()
        .try_fold(1usize, |a, &d| a.checked_mul(d));
    let known = known.ok_or_else(|| bad("the element count overflows usize".into()))?;
    let dims: Vec<usize> = if unknown == 1 {
        if known == 0 || !n.is_multiple_of(known) {
            return Err(bad(format!(
                "cannot infer -1: {n} elements do not divide into the given dimensions"
            )));
        }
        spec.iter().map(|d| d.unwrap_or(n / known)).collect()
    } else {
        spec.iter().map(|d| d.unwrap()).collect()
    };
    if dims.iter().product::<usize>() != n {
        return Err(bad(format!(
            "{n} elements cannot be viewed as {}",
            Shape::new(dims.clone())
        )));
    }
    Ok(Shape::new(dims))
}

impl<T: Element, D: crate::backend::Backend> Tensor<T, D> {
    /// A view with another shape of the same element count, or an `Err` when the strides do not
    /// allow one (PyTorch `view`). One dimension may be `-1`.
    pub fn view(&self, shape: impl ReshapeDims) -> Result<Self> {
        let shape = resolve("view", self.shape(), shape.spec())?;
        if !self.is_contiguous() {
            return Err(Error::Layout {
                op: "view",
                msg: format!(
                    "a non-contiguous tensor of shape {} (strides {:?}) cannot be viewed as {shape}; use reshape(), which copies",
                    self.shape(),
                    self.stride()
                ),
            });
        }
        let mut l = Layout::contiguous(shape);
        l.offset = self.layout.offset;
        self.with_layout("view", l)
    }
}

impl<T: Element, D: crate::backend::Backend> Tensor<T, D> {
    /// Swaps two dimensions (a view). Negative dims count from the end.
    ///
    /// Views share storage with their base (writes through one are seen by the other) and
    /// copy nothing; `contiguous()` materialises one:
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    ///
    /// let t = Tensor::<i32, Cpu>::arange(0, 6, 1)?.try_reshape([2, 3])?;
    /// let tt = t.transpose(0, 1)?;
    /// assert_eq!((tt.dims(), tt.to_vec()), (&[3usize, 2][..], vec![0, 3, 1, 4, 2, 5]));
    /// assert!(!tt.is_contiguous() && tt.shares_storage_with(&t));
    /// assert_eq!(t.permute(&[1, 0])?.to_vec(), tt.to_vec());
    /// assert_eq!(t.unsqueeze(0)?.dims(), &[1, 2, 3]);
    /// assert_eq!(t.narrow(1, 1, 2)?.to_vec(), vec![1, 2, 4, 5]);
    /// assert_eq!(t.flip(&[1])?.to_vec(), vec![2, 1, 0, 5, 4, 3]);
    /// assert_eq!(t.slice(&s![.., 0])?.expand([4, 2])?.dims(), &[4, 2]); // broadcast view
    /// assert!(tt.view([6]).is_err()); // a transposed view cannot be flattened without a copy
    /// assert_eq!(tt.contiguous().view([6])?.to_vec(), vec![0, 3, 1, 4, 2, 5]);
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    pub fn transpose(&self, d0: i64, d1: i64) -> Result<Self> {
        let a = self.shape().axis("transpose", d0)?;
        let b = self.shape().axis("transpose", d1)?;
        let mut perm: Vec<usize> = (0..self.ndim()).collect();
        perm.swap(a, b);
        self.permute_usize(&perm)
    }

    /// The transpose of a 2-d tensor (a view); for other ranks, reverses the dimensions.
    pub fn t(&self) -> Self {
        let perm: Vec<usize> = (0..self.ndim()).rev().collect();
        self.permute_usize(&perm)
            .expect("a reversal is a permutation")
    }

    /// Reorders the dimensions (a view): output dimension `i` is input dimension `dims[i]`.
    ///
    /// # Errors
    /// `Axis` when `dims` is not a permutation of `0..ndim`.
    pub fn permute(&self, dims: &[i64]) -> Result<Self> {
        if dims.len() != self.ndim() {
            return Err(Error::InvalidArgument {
                op: "permute",
                msg: format!(
                    "permute of a tensor of shape {} needs {} dims, got {dims:?}",
                    self.shape(),
                    self.ndim()
                ),
            });
        }
        let mask = self.shape().axes_mask("permute", dims)?;
        debug_assert!(mask.iter().all(|&m| m));
        let perm: Vec<usize> = dims
            .iter()
            .map(|&d| self.shape().axis("permute", d))
            .collect::<Result<_>>()?;
        self.permute_usize(&perm)
    }

    pub(crate) fn permute_usize(&self, perm: &[usize]) -> Result<Self> {
        let dims = perm.iter().map(|&p| self.dims()[p]).collect();
        let strides = perm.iter().map(|&p| self.stride()[p]).collect();
        self.with_layout(
            "permute",
            Layout {
                shape: Shape::new(dims),
                strides,
                offset: self.layout.offset,
            },
        )
    }

    /// Inserts a size-1 dimension at `dim` (`-1` appends), a view (NumPy `expand_dims`).
    pub fn unsqueeze(&self, dim: i64) -> Result<Self> {
        let n = self.ndim() as i64 + 1;
        let d = if dim < 0 { dim + n } else { dim };
        if d < 0 || d >= n {
            return Err(Error::Axis {
                op: "unsqueeze",
                axis: dim,
                shape: self.shape().clone(),
                ndim: self.ndim(),
                msg: "the new axis must lie in -(ndim+1)..=ndim",
            });
        }
        let d = d as usize;
        let mut dims = self.dims().to_vec();
        let mut strides = self.stride().to_vec();
        // The stride of a size-1 dimension is never used to step; any value that keeps the
        // layout contiguous-looking will do, and this one cannot overflow.
        let s = if d < strides.len() {
            strides[d].saturating_mul(dims[d] as isize)
        } else {
            1
        };
        dims.insert(d, 1);
        strides.insert(d, s);
        self.with_layout(
            "unsqueeze",
            Layout {
                shape: Shape::new(dims),
                strides: strides.into(),
                offset: self.layout.offset,
            },
        )
    }

    /// Removes every size-1 dimension (a view).
    pub fn squeeze(&self) -> Self {
        let keep: Vec<usize> = (0..self.ndim()).filter(|&i| self.dims()[i] != 1).collect();
        self.keep_dims(&keep)
            .expect("dropping size-1 dimensions keeps a valid layout")
    }

    /// Removes the listed size-1 dimensions (a view).
    ///
    /// # Errors
    /// `Axis` when an axis is out of range, repeated, or not of size 1.
    pub fn squeeze_dims(&self, dims: &[i64]) -> Result<Self> {
        let mask = self.shape().axes_mask("squeeze_dims", dims)?;
        for (i, &m) in mask.iter().enumerate() {
            if m && self.dims()[i] != 1 {
                return Err(Error::Axis {
                    op: "squeeze_dims",
                    axis: i as i64,
                    shape: self.shape().clone(),
                    ndim: self.ndim(),
                    msg: "only dimensions of size 1 can be squeezed",
                });
            }
        }
        let keep: Vec<usize> = (0..self.ndim()).filter(|&i| !mask[i]).collect();
        self.keep_dims(&keep)
    }

    fn keep_dims(&self, keep: &[usize]) -> Result<Self> {
        self.with_layout(
            "squeeze",
            Layout {
                shape: Shape::new(keep.iter().map(|&i| self.dims()[i]).collect()),
                strides: keep.iter().map(|&i| self.stride()[i]).collect(),
                offset: self.layout.offset,
            },
        )
    }

    /// A read-only broadcast view with `shape` (stride 0 on stretched dimensions; NumPy
    /// `broadcast_to`, PyTorch `expand`). In-place writes to it are refused.
    ///
    /// # Errors
    /// `Broadcast` when `shape` is not a broadcast of `self`'s shape; `ShapeOverflow` when it
    /// would hold more than [`crate::shape::MAX_BYTES`] (every later op would have to refuse it).
    pub fn broadcast_to(&self, shape: impl Into<Shape>) -> Result<Self> {
        let l = self.layout.broadcast_to("broadcast_to", &shape.into())?;
        self.with_layout("broadcast_to", l)
    }

    /// PyTorch's name for [`Tensor::broadcast_to`] (a read-only view; same errors).
    pub fn expand(&self, shape: impl Into<Shape>) -> Result<Self> {
        self.broadcast_to(shape)
    }

    /// NumPy's name for [`Tensor::unsqueeze`]: a size-1 dimension inserted at `dim` (a view).
    ///
    /// # Errors
    /// `Axis` when `dim` is outside `-(ndim+1)..=ndim`.
    pub fn expand_dims(&self, dim: i64) -> Result<Self> {
        self.unsqueeze(dim)
    }

    /// `len` elements of dimension `dim` starting at `start` (a view; PyTorch `narrow`).
    ///
    /// # Errors
    /// `Axis` for a bad dim, `Index` when `start + len` exceeds the dimension (PyTorch refuses
    /// the same; nothing is clamped).
    pub fn narrow(&self, dim: i64, start: usize, len: usize) -> Result<Self> {
        let d = self.shape().axis("narrow", dim)?;
        let size = self.dims()[d];
        match start.checked_add(len) {
            Some(end) if end <= size => self.slice_dim(dim, start, end, 1),
            _ => Err(Error::Index {
                op: "narrow",
                index: i64::try_from(start.saturating_add(len)).unwrap_or(i64::MAX),
                dim: d,
                size,
                shape: self.shape().clone(),
            }),
        }
    }

    /// The elements `start..stop` with `step` of dimension `dim` (a view; Python's
    /// `t[..., start:stop:step, ...]` for non-negative bounds). `stop` is clamped to the size.
    ///
    /// # Errors
    /// `Axis` for a bad dim; `Index` for a zero step or `start` past the dimension.
    pub fn slice_dim(&self, dim: i64, start: usize, stop: usize, step: usize) -> Result<Self> {
        let d = self.shape().axis("slice", dim)?;
        let size = self.dims()[d];
        if step == 0 || start > size {
            return Err(Error::Index {
                op: "slice",
                index: i64::try_from(start).unwrap_or(i64::MAX),
                dim: d,
                size,
                shape: self.shape().clone(),
            });
        }
        let stop = stop.min(size).max(start);
        let len = (stop - start).div_ceil(step);
        self.step_dim("slice", d, start, len, step as i128)
    }

    /// The view that takes `len` elements of dimension `d` from `start` every `step` (which may
    /// be negative), with checked stride and offset arithmetic; `start < size` when `len > 0`.
    pub(crate) fn step_dim(
        &self,
        op: &'static str,
        d: usize,
        start: usize,
        len: usize,
        step: i128,
    ) -> Result<Self> {
        let mut l = self.layout.clone();
        let s = l.strides[d] as i128;
        let overflow = || Error::InvalidArgument {
            op,
            msg: format!(
                "a step of {step} along dimension {d} of shape {} (stride {s}) addresses beyond isize",
                self.shape()
            ),
        };
        if len > 0 {
            let off = (l.offset as i128)
                .checked_add((start as i128).checked_mul(s).ok_or_else(overflow)?)
                .ok_or_else(overflow)?;
            l.offset = usize::try_from(off).map_err(|_| overflow())?;
        }
        // A dimension of length <= 1 never steps, so its stride only has to fit.
        let new_stride = if len > 1 {
            isize::try_from(s.checked_mul(step).ok_or_else(overflow)?).map_err(|_| overflow())?
        } else {
            l.strides[d]
        };
        l.strides[d] = new_stride;
        let mut v = l.shape.dims().to_vec();
        v[d] = len;
        l.shape = Shape::new(v);
        self.with_layout(op, l)
    }

    /// Reverses the order of elements along `axes` (a view with negative strides; NumPy `flip`).
    pub fn flip(&self, axes: &[i64]) -> Result<Self> {
        let mask = self.shape().axes_mask("flip", axes)?;
        let mut t = self.with_layout("flip", self.layout.clone())?;
        for (i, &m) in mask.iter().enumerate() {
            let d = t.dims()[i];
            if m && d > 0 {
                t = t.step_dim("flip", i, d - 1, d, -1)?;
            }
        }
        Ok(t)
    }

    /// The diagonal of the last two dimensions as a view (NumPy `diagonal` with `offset`).
    pub fn diagonal(&self, offset: i64) -> Result<Self> {
        if self.ndim() < 2 {
            return Err(Error::InvalidArgument {
                op: "diagonal",
                msg: format!("needs at least 2 dimensions, got shape {}", self.shape()),
            });
        }
        let n = self.ndim();
        let (r, c) = (self.dims()[n - 2] as i128, self.dims()[n - 1] as i128);
        let (rs, cs) = (self.stride()[n - 2] as i128, self.stride()[n - 1] as i128);
        let offset = offset as i128;
        let (r0, c0) = if offset >= 0 {
            (0, offset)
        } else {
            (-offset, 0)
        };
        // Every quantity below is bounded by products of two i64-sized values: no i128 overflow.
        let len = (r - r0).min(c - c0).max(0) as usize;
        let mut dims = self.dims()[..n - 2].to_vec();
        dims.push(len);
        let mut strides = self.stride()[..n - 2].to_vec();
        let bad = || Error::InvalidArgument {
            op: "diagonal",
            msg: format!(
                "the diagonal of shape {} (strides {:?}) addresses beyond isize",
                self.shape(),
                self.stride()
            ),
        };
        strides.push(if len > 1 {
            isize::try_from(rs + cs).map_err(|_| bad())?
        } else {
            0
        });
        let off = if len > 0 {
            usize::try_from(self.layout.offset as i128 + r0 * rs + c0 * cs).map_err(|_| bad())?
        } else {
            self.layout.offset
        };
        self.with_layout(
            "diagonal",
            Layout {
                shape: Shape::new(dims),
                strides: strides.into(),
                offset: off,
            },
        )
    }
}
