//! Out-of-place writes of a whole view (PyTorch `slice_scatter`, `select_scatter`,
//! `diagonal_scatter`): `self` with the elements a view selects replaced by `src`, which has
//! the view's shape. One definition for the three: the view is taken of the flat positions
//! `0..numel` in `self`'s shape, which names the elements it covers, and one `scatter` writes
//! `src` there, so both `self` (0 where written) and `src` (the gradient of its targets)
//! differentiate on every device.
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let x = Tensor::<f32>::zeros([3, 3])?;
//! let d = x.try_diagonal_scatter(&tensor![1.0f32, 2.0, 3.0], 0, 0, 1)?;
//! assert_eq!(d.to_vec(), vec![1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 3.0]);
//! let r = x.try_select_scatter(&tensor![7.0f32, 8.0, 9.0], 0, -1)?; // the last row
//! assert_eq!(r.to_vec()[6..], [7.0, 8.0, 9.0]);
//! let s = x.try_slice_scatter(&Tensor::ones([3, 2])?, 1, Slice::new(None, None, 2))?;
//! assert_eq!(s.to_vec()[..3], [1.0, 0.0, 1.0]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::NumElement;
use crate::error::{Error, OrPanic, Result};
use crate::tensor::{Slice, SliceArg, Tensor};

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// `self` with the view `view(self)` replaced by `src`; `view` must be a view (a layout
    /// change) that works on any tensor of `self`'s shape.
    fn embed(
        &self,
        op: &'static str,
        src: &Self,
        view: impl Fn(&Tensor<i64, D>) -> Result<Tensor<i64, D>>,
    ) -> Result<Self> {
        crate::ops::device_ops::same_device(op, self, src)?;
        let n = self.numel();
        let positions = Tensor::<i64, D>::arange_on(0, n as i64, 1, self.device_handle())?
            .try_reshape(self.dims())?;
        let covered = view(&positions).map_err(|e| e.renamed(op))?;
        if covered.dims() != src.dims() {
            return Err(Error::ShapeMismatch {
                op,
                lhs: covered.shape().clone(),
                rhs: src.shape().clone(),
                msg: "src must have the shape of the view it replaces (the left shape)".into(),
            });
        }
        let flat = covered.try_reshape([covered.numel()])?;
        self.try_reshape([n])?
            .try_scatter(0, &flat, &src.try_reshape([src.numel()])?)?
            .try_reshape(self.dims())
    }

    /// `self` with the elements `slice` selects along `dim` replaced by `src` (PyTorch
    /// `slice_scatter(src, dim, start, end, step)`; `slice`'s bounds are Python's, clamped,
    /// negative ones counting from the end). `src` has the sliced shape.
    ///
    /// # Errors
    /// `ShapeMismatch` when `src` does not have the slice's shape; `InvalidArgument` for a bad
    /// `dim` or a zero step; `Device` across devices.
    pub fn try_slice_scatter(&self, src: &Self, dim: i64, slice: Slice) -> Result<Self> {
        let d = self.shape().axis("slice_scatter", dim)?;
        let mut args = vec![SliceArg::Range(Slice::all()); d];
        args.push(SliceArg::Range(slice));
        self.embed("slice_scatter", src, |p| p.slice(&args))
    }

    /// `self` with the slice at `index` of `dim` replaced by `src` (PyTorch
    /// `select_scatter(src, dim, index)`; a negative index counts from the end). `src` has
    /// `self`'s shape without `dim`.
    ///
    /// # Errors
    /// As [`Tensor::try_slice_scatter`]; `Index` for an index outside `-len..len`.
    pub fn try_select_scatter(&self, src: &Self, dim: i64, index: i64) -> Result<Self> {
        self.embed("select_scatter", src, |p| p.select(dim, index))
    }

    /// `self` with the diagonal at `offset` of the planes over `dim1` and `dim2` replaced by
    /// `src` (PyTorch `diagonal_scatter(src, offset, dim1, dim2)`). `src` has
    /// [`Tensor::diagonal_axes`]'s shape: the other axes, then the diagonal.
    ///
    /// # Errors
    /// As [`Tensor::try_slice_scatter`], for `diagonal_axes`' axis errors.
    pub fn try_diagonal_scatter(
        &self,
        src: &Self,
        offset: i64,
        dim1: i64,
        dim2: i64,
    ) -> Result<Self> {
        self.embed("diagonal_scatter", src, |p| {
            p.diagonal_axes(offset, dim1, dim2)
        })
    }

    plain_forms! {
        /// [`Tensor::try_slice_scatter`], panicking with its error.
        slice_scatter, try_slice_scatter(src: &Self, dim: i64, slice: Slice) -> Self;
        /// [`Tensor::try_select_scatter`], panicking with its error.
        select_scatter, try_select_scatter(src: &Self, dim: i64, index: i64) -> Self;
        /// [`Tensor::try_diagonal_scatter`], panicking with its error.
        diagonal_scatter, try_diagonal_scatter(src: &Self, offset: i64, dim1: i64, dim2: i64) -> Self;
    }
}
