//! PyTorch's view-copy ops (`torch.permute_copy`, `torch.select_copy`, ...): each view op's
//! result in a contiguous buffer of its own, never sharing the input's storage, recorded for
//! autograd like the view and the copy it is made of.
//!
//! ```
//! use typed_tensor::prelude::*;
//! let x = Tensor::<f32>::from_vec(vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [2, 3])?;
//! let mut row = x.try_select_copy(0, 1)?; // a copy, where `select` is a view
//! row.fill_(9.0)?;
//! assert_eq!(x.to_vec(), vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
//! assert_eq!(x.try_t_copy()?.to_vec(), vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::Element;
use crate::error::Result;
use crate::shape::Shape;
use crate::tensor::{ReshapeDims, SliceArg, Tensor};

/// `try_<view>_copy(args) = <view>(args)` copied, for views returning `Result<Self>`.
macro_rules! view_copies {
    ($($(#[$doc:meta])* $name:ident => $view:ident ($($arg:ident: $ty:ty),*);)*) => {$(
        $(#[$doc])*
        ///
        /// # Errors
        #[doc = concat!("As [`Tensor::", stringify!($view), "`]; allocation failure.")]
        pub fn $name(&self, $($arg: $ty),*) -> Result<Self> {
            self.$view($($arg),*)?.try_deep_copy()
        }
    )*};
}

impl<T: Element, D: Backend> Tensor<T, D> {
    view_copies! {
        /// [`Tensor::as_strided`] copied (PyTorch `as_strided_copy`).
        try_as_strided_copy => as_strided(size: &[usize], stride: &[isize], storage_offset: Option<usize>);
        /// [`Tensor::diagonal`] copied (PyTorch `diagonal_copy` with its default axes).
        try_diagonal_copy => diagonal(offset: i64);
        /// [`Tensor::expand`] copied, every repeated element written out (PyTorch
        /// `expand_copy`).
        try_expand_copy => expand(shape: Shape);
        /// [`Tensor::permute`] copied (PyTorch `permute_copy`).
        try_permute_copy => permute(dims: &[i64]);
        /// [`Tensor::select`] copied (PyTorch `select_copy`).
        try_select_copy => select(axis: i64, index: i64);
        /// [`Tensor::squeeze_dims`] copied (PyTorch `squeeze_copy(dim)`).
        try_squeeze_copy => squeeze_dims(dims: &[i64]);
        /// [`Tensor::transpose`] copied (PyTorch `transpose_copy`).
        try_transpose_copy => transpose(d0: i64, d1: i64);
        /// [`Tensor::try_unfold`] copied (PyTorch `unfold_copy`).
        try_unfold_copy => try_unfold(dim: i64, size: usize, step: usize);
        /// [`Tensor::unsqueeze`] copied (PyTorch `unsqueeze_copy`).
        try_unsqueeze_copy => unsqueeze(dim: i64);
    }

    /// [`Tensor::slice`] copied (PyTorch `slice_copy`, one entry per axis here).
    ///
    /// # Errors
    /// As [`Tensor::slice`]; allocation failure.
    pub fn try_slice_copy<S: Into<SliceArg> + Copy>(&self, args: &[S]) -> Result<Self> {
        self.slice(args)?.try_deep_copy()
    }

    /// [`Tensor::view`] copied (PyTorch `view_copy`).
    ///
    /// # Errors
    /// As [`Tensor::view`]; allocation failure.
    pub fn try_view_copy(&self, shape: impl ReshapeDims) -> Result<Self> {
        self.view(shape)?.try_deep_copy()
    }

    /// A copy of `self` (PyTorch `alias_copy`; [`Tensor::try_deep_copy`]).
    ///
    /// # Errors
    /// Allocation failure.
    pub fn try_alias_copy(&self) -> Result<Self> {
        self.try_deep_copy()
    }

    /// A copy without the graph (PyTorch `detach_copy`): [`Tensor::detach`], then copied.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn try_detach_copy(&self) -> Result<Self> {
        self.detach().try_deep_copy()
    }

    /// [`Tensor::t`] copied (PyTorch `t_copy`).
    ///
    /// # Errors
    /// Allocation failure.
    pub fn try_t_copy(&self) -> Result<Self> {
        self.t().try_deep_copy()
    }

    /// [`Tensor::try_split`] with each part copied (PyTorch `split_copy` /
    /// `split_with_sizes_copy`).
    ///
    /// # Errors
    /// As [`Tensor::try_split`]; allocation failure.
    pub fn try_split_copy(&self, sizes: &[usize], axis: i64) -> Result<Vec<Self>> {
        let parts = self.try_split(sizes, axis)?;
        parts.iter().map(|p| p.try_deep_copy()).collect()
    }

    /// [`Tensor::try_unbind`] with each slice copied (PyTorch `unbind_copy`).
    ///
    /// # Errors
    /// As [`Tensor::try_unbind`]; allocation failure.
    pub fn try_unbind_copy(&self, axis: i64) -> Result<Vec<Self>> {
        let parts = self.try_unbind(axis)?;
        parts.iter().map(|p| p.try_deep_copy()).collect()
    }
}
