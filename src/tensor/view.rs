//! Views (no copy; they share storage and report `owns_data() == false`) and the copies that
//! materialise them.

use super::Tensor;
use crate::cpu::strided;
use crate::device::{Cpu, Device};
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

impl<T: Element> Tensor<T, Cpu> {
    /// An independent contiguous copy (PyTorch `clone()`; here `Clone` shares storage).
    pub fn deep_copy(&self) -> Self {
        let g = super::read(&self.storage);
        Self::from_buf(strided::copy(&g, &self.layout), self.shape().clone())
    }

    /// `self` (a shared handle) when already contiguous, otherwise a packed copy. The copy is
    /// cache-blocked through the strided driver's inner runs.
    pub fn contiguous(&self) -> Self {
        if self.is_contiguous() {
            self.clone()
        } else {
            self.deep_copy()
        }
    }
}

impl<T: Element, D: Device> Tensor<T, D> {
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
        Ok(self.with_layout(l))
    }
}

impl<T: Element> Tensor<T, Cpu> {
    /// Another shape with the same element count: a view when contiguous, otherwise a copy
    /// (NumPy, PyTorch `reshape`). One dimension may be `-1`.
    ///
    /// # Errors
    /// `ShapeMismatch` when the element counts differ, naming both shapes.
    pub fn reshape(&self, shape: impl ReshapeDims) -> Result<Self> {
        let spec = shape.spec();
        if self.is_contiguous() {
            self.view(spec_shape(spec))
        } else {
            let s = resolve("reshape", self.shape(), spec)?;
            let c = self.deep_copy();
            Ok(Tensor {
                layout: Layout::contiguous(s),
                ..c
            })
        }
    }

    /// A 1-d view (or copy when not contiguous) of all elements (NumPy `ravel`).
    pub fn flatten(&self) -> Self {
        self.reshape([self.numel()]).expect("same element count")
    }

    /// NumPy's name for [`Tensor::flatten`]: a 1-d view when contiguous, else a copy.
    pub fn ravel(&self) -> Self {
        self.flatten()
    }
}

impl<T: Element, D: Device> Tensor<T, D> {
    /// Swaps two dimensions (a view). Negative dims count from the end.
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
        Ok(self.with_layout(Layout {
            shape: Shape::new(dims),
            strides,
            offset: self.layout.offset,
        }))
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
        let s = if d < strides.len() {
            strides[d] * dims[d] as isize
        } else {
            1
        };
        dims.insert(d, 1);
        strides.insert(d, s);
        Ok(self.with_layout(Layout {
            shape: Shape::new(dims),
            strides,
            offset: self.layout.offset,
        }))
    }

    /// Removes every size-1 dimension (a view).
    pub fn squeeze(&self) -> Self {
        let keep: Vec<usize> = (0..self.ndim()).filter(|&i| self.dims()[i] != 1).collect();
        self.keep_dims(&keep)
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
        Ok(self.keep_dims(&keep))
    }

    fn keep_dims(&self, keep: &[usize]) -> Self {
        self.with_layout(Layout {
            shape: Shape::new(keep.iter().map(|&i| self.dims()[i]).collect()),
            strides: keep.iter().map(|&i| self.stride()[i]).collect(),
            offset: self.layout.offset,
        })
    }

    /// A read-only broadcast view with `shape` (stride 0 on stretched dimensions; NumPy
    /// `broadcast_to`, PyTorch `expand`). In-place writes to it are refused.
    pub fn broadcast_to(&self, shape: impl Into<Shape>) -> Result<Self> {
        let l = self.layout.broadcast_to("broadcast_to", &shape.into())?;
        Ok(self.with_layout(l))
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
    /// `Axis` for a bad dim, `Index` when `start + len` exceeds the dimension.
    pub fn narrow(&self, dim: i64, start: usize, len: usize) -> Result<Self> {
        self.slice_dim(dim, start, start.saturating_add(len), 1)
    }

    /// The elements `start..stop` with `step` of dimension `dim` (a view; Python's
    /// `t[..., start:stop:step, ...]` for non-negative bounds). `stop` is clamped to the size.
    pub fn slice_dim(&self, dim: i64, start: usize, stop: usize, step: usize) -> Result<Self> {
        let d = self.shape().axis("slice", dim)?;
        let size = self.dims()[d];
        if step == 0 || start > size {
            return Err(Error::Index {
                op: "slice",
                index: start as i64,
                dim: d,
                size,
                shape: self.shape().clone(),
            });
        }
        let stop = stop.min(size).max(start);
        let len = (stop - start).div_ceil(step);
        let mut l = self.layout.clone();
        l.offset = (l.offset as isize + start as isize * l.strides[d]) as usize;
        l.shape = {
            let mut v = l.shape.dims().to_vec();
            v[d] = len;
            Shape::new(v)
        };
        l.strides[d] *= step as isize;
        Ok(self.with_layout(l))
    }

    /// Reverses the order of elements along `axes` (a view with negative strides; NumPy `flip`).
    pub fn flip(&self, axes: &[i64]) -> Result<Self> {
        let mask = self.shape().axes_mask("flip", axes)?;
        let mut l = self.layout.clone();
        for (i, &m) in mask.iter().enumerate() {
            let d = l.shape.dims()[i];
            if m && d > 0 {
                l.offset = (l.offset as isize + (d as isize - 1) * l.strides[i]) as usize;
                l.strides[i] = -l.strides[i];
            }
        }
        Ok(self.with_layout(l))
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
        let (r, c) = (self.dims()[n - 2] as i64, self.dims()[n - 1] as i64);
        let (rs, cs) = (self.stride()[n - 2], self.stride()[n - 1]);
        let (r0, c0) = if offset >= 0 {
            (0, offset)
        } else {
            (-offset, 0)
        };
        let len = (r - r0).min(c - c0).max(0) as usize;
        let mut dims = self.dims()[..n - 2].to_vec();
        dims.push(len);
        let mut strides = self.stride()[..n - 2].to_vec();
        strides.push(rs + cs);
        let off = if len > 0 {
            (self.layout.offset as isize + r0 as isize * rs + c0 as isize * cs) as usize
        } else {
            self.layout.offset
        };
        Ok(self.with_layout(Layout {
            shape: Shape::new(dims),
            strides,
            offset: off,
        }))
    }
}

fn spec_shape(spec: Vec<Option<usize>>) -> SpecDims {
    SpecDims(spec)
}
struct SpecDims(Vec<Option<usize>>);
impl ReshapeDims for SpecDims {
    fn spec(&self) -> Vec<Option<usize>> {
        self.0.clone()
    }
}
