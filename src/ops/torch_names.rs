//! PyTorch's names for queries and one-line ops this crate has under other names:
//! `dim`/`ndimension`, `nelement`, `element_size`, `is_floating_point`, `is_signed`,
//! `is_same_size`, `storage_offset`, `new_zeros`/`new_ones`/`new_full`, `view_as`,
//! `reshape_as`, `swapdims`, `split_with_sizes`, `narrow_copy`, `type_as`, `sum_to_size`,
//! `rsub` and `nonzero_static`.
//!
//! ```
//! use typed_tensor::prelude::*;
//! let x = Tensor::<f32>::ones([2, 3])?;
//! assert_eq!((x.dim(), x.nelement(), x.element_size()), (2, 6, 4));
//! let z = x.new_zeros([4])?; // x's dtype and device
//! assert_eq!(z.to_vec(), vec![0.0; 4]);
//! let i = tensor![1i64, 2, 3, 4, 5, 6];
//! assert_eq!(i.view_as(&x)?.dims(), &[2, 3]);
//! assert_eq!(i.type_as(&x).to_vec(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
//! // The gradient of a broadcast, summed back to the operand's shape.
//! assert_eq!(x.sum_to_size(&[1, 3]).to_vec(), vec![2.0, 2.0, 2.0]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::{Element, NumElement, SumOf};
use crate::error::{Error, OrPanic, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;

impl<T: Element, D: Backend> Tensor<T, D> {
    /// The number of dimensions (PyTorch `dim`; [`Tensor::ndim`]).
    pub fn dim(&self) -> usize {
        self.ndim()
    }

    /// The number of dimensions (PyTorch `ndimension`; [`Tensor::ndim`]).
    pub fn ndimension(&self) -> usize {
        self.ndim()
    }

    /// The number of elements (PyTorch `nelement`; [`Tensor::numel`]).
    pub fn nelement(&self) -> usize {
        self.numel()
    }

    /// The size of one element in bytes (PyTorch `element_size`, NumPy `itemsize`).
    pub fn element_size(&self) -> usize {
        T::SIZE
    }

    /// Whether the dtype is a floating-point one (PyTorch `is_floating_point`); known from
    /// the type, so it is a constant for each `T`.
    pub fn is_floating_point(&self) -> bool {
        T::DTYPE.is_float()
    }

    /// Whether the dtype holds negative values: every dtype but UInt8 and Bool (PyTorch
    /// `is_signed`).
    pub fn is_signed(&self) -> bool {
        !matches!(T::DTYPE, crate::Dtype::UInt8 | crate::Dtype::Bool)
    }

    /// Whether `other` has the same shape (PyTorch `is_same_size`).
    pub fn is_same_size<U: Element>(&self, other: &Tensor<U, D>) -> bool {
        self.dims() == other.dims()
    }

    /// The offset of the first element in the storage, in elements (PyTorch
    /// `storage_offset`).
    pub fn storage_offset(&self) -> usize {
        self.layout.offset
    }

    /// Zeros of `shape` with `self`'s dtype and device (PyTorch `new_zeros`).
    ///
    /// # Errors
    /// As [`Tensor::zeros_on`].
    pub fn new_zeros(&self, shape: impl Into<Shape>) -> Result<Self> {
        Self::zeros_on(shape, self.device_handle())
    }

    /// Ones of `shape` with `self`'s dtype and device (PyTorch `new_ones`).
    ///
    /// # Errors
    /// As [`Tensor::ones_on`].
    pub fn new_ones(&self, shape: impl Into<Shape>) -> Result<Self> {
        Self::ones_on(shape, self.device_handle())
    }

    /// `value` in every element of `shape`, with `self`'s dtype and device (PyTorch
    /// `new_full`).
    ///
    /// # Errors
    /// As [`Tensor::full_on`].
    pub fn new_full(&self, shape: impl Into<Shape>, value: T) -> Result<Self> {
        Self::full_on(shape, value, self.device_handle())
    }

    /// A view with `other`'s shape (PyTorch `view_as`).
    ///
    /// # Errors
    /// As [`Tensor::view`].
    pub fn view_as<U: Element>(&self, other: &Tensor<U, D>) -> Result<Self> {
        self.view(other.dims())
    }

    /// `self` reshaped to `other`'s shape, a view where the strides allow (PyTorch
    /// `reshape_as`).
    ///
    /// # Errors
    /// As [`Tensor::try_reshape`].
    pub fn try_reshape_as<U: Element>(&self, other: &Tensor<U, D>) -> Result<Self> {
        self.try_reshape(other.dims())
    }

    /// PyTorch's name for [`Tensor::swapaxes`] (and `transpose`).
    ///
    /// # Errors
    /// As [`Tensor::swapaxes`].
    pub fn swapdims(&self, a: i64, b: i64) -> Result<Self> {
        self.swapaxes(a, b)
    }

    /// PyTorch's name for [`Tensor::try_split`] with a list of sizes.
    ///
    /// # Errors
    /// As [`Tensor::try_split`].
    pub fn try_split_with_sizes(&self, sizes: &[usize], axis: i64) -> Result<Vec<Self>> {
        self.try_split(sizes, axis)
    }

    /// [`Tensor::narrow`] as a contiguous copy in a buffer of its own (PyTorch
    /// `narrow_copy`), also when the slice is contiguous already.
    ///
    /// # Errors
    /// As [`Tensor::narrow`].
    pub fn try_narrow_copy(&self, dim: i64, start: usize, len: usize) -> Result<Self> {
        self.narrow(dim, start, len)?.try_deep_copy()
    }

    /// `self` converted to `other`'s dtype (PyTorch `type_as`; [`Tensor::try_cast`]).
    ///
    /// # Errors
    /// As [`Tensor::try_cast`].
    pub fn try_type_as<U: Element>(&self, _other: &Tensor<U, D>) -> Result<Tensor<U, D>> {
        self.try_cast::<U>()
    }

    /// [`Tensor::try_type_as`], panicking with its error.
    ///
    /// # Panics
    /// When [`Tensor::try_type_as`] returns an `Err`.
    #[track_caller]
    pub fn type_as<U: Element>(&self, other: &Tensor<U, D>) -> Tensor<U, D> {
        self.try_type_as(other).or_panic()
    }

    /// [`Tensor::try_reshape_as`], panicking with its error.
    ///
    /// # Panics
    /// When [`Tensor::try_reshape_as`] returns an `Err`.
    #[track_caller]
    pub fn reshape_as<U: Element>(&self, other: &Tensor<U, D>) -> Self {
        self.try_reshape_as(other).or_panic()
    }

    super::plain_forms! {
        /// [`Tensor::try_split_with_sizes`], panicking with its error.
        split_with_sizes, try_split_with_sizes(sizes: &[usize], axis: i64) -> Vec<Self>;
        /// [`Tensor::try_narrow_copy`], panicking with its error.
        narrow_copy, try_narrow_copy(dim: i64, start: usize, len: usize) -> Self;
    }
}

impl<T: Element, D: Backend> Tensor<T, D> {
    /// The coordinates of the non-zero elements as [`Tensor::try_nonzero`] gives them, cut or
    /// padded with `fill_value` rows to exactly `size` rows: `(size, ndim)` (PyTorch
    /// `nonzero_static`, whose fixed shape compiled code needs).
    ///
    /// # Errors
    /// As [`Tensor::try_nonzero`]; `ShapeOverflow` or `OutOfMemory` for a `size` too large to
    /// allocate.
    pub fn try_nonzero_static(&self, size: usize, fill_value: i64) -> Result<Tensor<i64, D>> {
        let nz = self.try_nonzero()?;
        let found = nz.dims()[0];
        if found >= size {
            return nz.narrow(0, 0, size)?.try_contiguous();
        }
        let pad = Tensor::full_on(
            [size - found, self.ndim()],
            fill_value,
            self.device_handle(),
        )?;
        Tensor::try_concat(&[&nz, &pad], 0)
    }

    super::plain_forms! {
        /// [`Tensor::try_nonzero_static`], panicking with its error.
        nonzero_static, try_nonzero_static(size: usize, fill_value: i64) -> Tensor<i64, D>;
    }
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// `other - alpha · self` (PyTorch `rsub`, the reflected subtraction), broadcasting.
    ///
    /// # Errors
    /// As [`Tensor::try_sub`].
    pub fn try_rsub(&self, other: &Self, alpha: T) -> Result<Self> {
        if alpha == T::ONE {
            other.try_sub(self)
        } else {
            other.try_sub(&self.try_mul_scalar(alpha)?)
        }
    }

    /// `self` summed down to `shape`, a shape that broadcasts to `self`'s (PyTorch
    /// `sum_to_size`; how a broadcast operand's gradient is reduced): the leading axes
    /// `shape` lacks and the axes where it has 1 are summed. The result has `sum`'s dtype.
    /// Differentiable.
    ///
    /// # Errors
    /// `InvalidArgument` when `shape` does not broadcast to `self`'s shape.
    pub fn try_sum_to_size(&self, shape: &[usize]) -> Result<Tensor<SumOf<T>, D>> {
        let shape = Shape::new(shape.to_vec());
        let (d, s) = (self.dims(), shape.dims());
        let lead = d.len().checked_sub(s.len());
        let fits = lead
            .is_some_and(|lead| (s.iter().enumerate()).all(|(i, &n)| n == d[lead + i] || n == 1));
        let Some(lead) = lead.filter(|_| fits) else {
            return Err(Error::InvalidArgument {
                op: "sum_to_size",
                msg: format!("shape {shape} does not broadcast to {}", self.shape()),
            });
        };
        let axes: Vec<i64> = (0..d.len())
            .filter(|&i| i < lead || (s[i - lead] == 1 && d[i] != 1))
            .map(|i| i as i64)
            .collect();
        if axes.is_empty() {
            return self.try_cast(); // nothing to sum (an empty axis list would sum all)
        }
        self.try_sum(&axes, true)?.try_reshape(s)
    }

    super::plain_forms! {
        /// [`Tensor::try_rsub`], panicking with its error.
        rsub, try_rsub(other: &Self, alpha: T) -> Self;
        /// [`Tensor::try_sum_to_size`], panicking with its error.
        sum_to_size, try_sum_to_size(shape: &[usize]) -> Tensor<SumOf<T>, D>;
    }
}
