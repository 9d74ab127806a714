//! Views (no copy; they share storage and report `owns_data() == false`) and the copies that
//! materialise them.

use super::Tensor;
use super::view_layout as vl;
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
    /// For an op along one axis, PyTorch's rule for 0-d tensors ([`Shape::scalar_axis`]): a
    /// 0-d tensor with axis 0 or -1 gives `Some` of it viewed as shape `(1,)`, for the op to
    /// run on before its result is made 0-d again ([`Tensor::to_0d`]); any tensor with
    /// dimensions gives `None`.
    pub(crate) fn scalar_as_row(&self, op: &'static str, axis: i64) -> Result<Option<Self>> {
        match self.shape().scalar_axis(op, axis)? {
            true => self.try_reshape([1]).map(Some),
            false => Ok(None),
        }
    }

    /// A one-element result reshaped to 0-d (the way back of [`Tensor::scalar_as_row`]).
    pub(crate) fn to_0d(&self) -> Result<Self> {
        self.try_reshape([0usize; 0])
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
        self.permute_usize(&vl::transpose_perm(self.shape(), d0, d1)?)
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
        self.permute_usize(&vl::permutation(self.shape(), dims)?)
    }

    pub(crate) fn permute_usize(&self, perm: &[usize]) -> Result<Self> {
        self.with_layout("permute", vl::permuted(&self.layout, perm))
    }

    /// Inserts a size-1 dimension at `dim` (`-1` appends), a view (NumPy `expand_dims`).
    pub fn unsqueeze(&self, dim: i64) -> Result<Self> {
        self.with_layout("unsqueeze", vl::unsqueezed(&self.layout, dim)?)
    }

    /// Removes every size-1 dimension (a view).
    pub fn squeeze(&self) -> Self {
        let keep: Vec<usize> = (0..self.ndim()).filter(|&i| self.dims()[i] != 1).collect();
        self.keep_dims(&keep)
            .expect("dropping size-1 dimensions keeps a valid layout")
    }

    /// Removes the listed size-1 dimensions (a view); an empty list removes none (NumPy,
    /// PyTorch).
    ///
    /// # Errors
    /// `Axis` when an axis is out of range, repeated, or not of size 1.
    pub fn squeeze_dims(&self, dims: &[i64]) -> Result<Self> {
        self.keep_dims(&vl::squeeze_keep(self.shape(), dims)?)
    }

    fn keep_dims(&self, keep: &[usize]) -> Result<Self> {
        self.with_layout("squeeze", vl::kept(&self.layout, keep))
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
        let (d, start, len) = vl::narrow_args(self.shape(), dim, start, len)?;
        self.step_dim("slice", d, start, len, 1)
    }

    /// The elements `start..stop` with `step` of dimension `dim` (a view; Python's
    /// `t[..., start:stop:step, ...]` for non-negative bounds). Both bounds are clamped to the
    /// size, as Python's are, so `start` past the end gives an empty view.
    ///
    /// # Errors
    /// `Axis` for a bad dim; `InvalidArgument` for a zero step.
    pub fn slice_dim(&self, dim: i64, start: usize, stop: usize, step: usize) -> Result<Self> {
        let (d, start, len) = vl::slice_args(self.shape(), dim, start, stop, step)?;
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
        self.with_layout(op, vl::stepped(&self.layout, op, d, start, len, step)?)
    }

    /// Reverses the order of elements along `axes` (a view with negative strides; NumPy `flip`,
    /// PyTorch `flip`). An empty `axes` flips nothing, as in both (unlike a reduction's empty
    /// axes, which mean all).
    ///
    /// # Errors
    /// `Axis` when an axis is out of range or repeated.
    pub fn flip(&self, axes: &[i64]) -> Result<Self> {
        let mask = match axes {
            [] => vec![false; self.ndim()],
            _ => self.shape().axes_mask("flip", axes)?,
        };
        self.with_layout("flip", vl::flipped(&self.layout, &mask)?)
    }

    /// The diagonal of the last two dimensions as a view, appended as the last dimension
    /// (NumPy `linalg.diagonal`, PyTorch `linalg.diagonal`; the same as NumPy's and PyTorch's
    /// `diagonal` for a matrix). `offset > 0` is above the main diagonal, `< 0` below; an
    /// offset past the edge gives an empty diagonal.
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    ///
    /// let x = Tensor::<i32>::arange(0, 24, 1)?.reshape([2, 3, 4]);
    /// assert_eq!(x.diagonal(1)?.to_vec(), vec![1, 6, 11, 13, 18, 23]); // shape (2, 3)
    /// // NumPy's `diagonal(x, 0, axis1=0, axis2=1)`: shape (4, 2).
    /// assert_eq!(x.diagonal_axes(0, 0, 1)?.to_vec(), vec![0, 16, 1, 17, 2, 18, 3, 19]);
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` for fewer than 2 dimensions.
    pub fn diagonal(&self, offset: i64) -> Result<Self> {
        self.with_layout("diagonal", vl::diagonal(&self.layout, offset)?)
    }

    /// The diagonal of dimensions `axis1` and `axis2` as a view, appended as the last dimension
    /// after the others in order (NumPy `diagonal(offset, axis1, axis2)`, PyTorch
    /// `diagonal(offset, dim1, dim2)`); `offset` counts along `axis2` from `axis1`'s diagonal.
    ///
    /// # Errors
    /// `Axis` for an out-of-range axis; `InvalidArgument` when the two axes are the same.
    pub fn diagonal_axes(&self, offset: i64, axis1: i64, axis2: i64) -> Result<Self> {
        let a = self.shape().axis("diagonal", axis1)?;
        let b = self.shape().axis("diagonal", axis2)?;
        if a == b {
            return Err(Error::InvalidArgument {
                op: "diagonal",
                msg: format!("axis1 and axis2 are both axis {a}; pass two different axes"),
            });
        }
        let mut perm: Vec<i64> = (0..self.ndim())
            .filter(|&i| i != a && i != b)
            .map(|i| i as i64)
            .collect();
        perm.extend([a as i64, b as i64]);
        self.permute(&perm)?.diagonal(offset)
    }
}
