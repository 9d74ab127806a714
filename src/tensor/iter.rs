//! Iteration: the elements of a CPU tensor in logical (row-major) order, read through the
//! buffer's read lock; the sub-tensors along an axis (views) on every device.

use super::Tensor;
use crate::backend::Backend;
use crate::backend::cpu::lock::{ReadGuard, read};
use crate::device::Cpu;
use crate::dtype::Element;
use crate::error::{OrPanic, Result};
use crate::shape::Layout;

/// The elements of a CPU tensor in row-major order (see [`Tensor::iter`]). Holds the buffer's
/// read lock: writers to the buffer wait until it is dropped.
pub struct Iter<'a, T: Element> {
    guard: ReadGuard<'a, T>,
    dims: Vec<usize>,
    strides: Vec<isize>,
    /// The multi-index of the next element, and its offset in the buffer.
    index: Vec<usize>,
    offset: isize,
    remaining: usize,
}

impl<T: Element> Iterator for Iter<'_, T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        if self.remaining == 0 {
            return None;
        }
        // The layout was checked to lie inside the buffer when the tensor was made.
        let v = self.guard[self.offset as usize];
        self.remaining -= 1;
        // Advance the multi-index like an odometer, last axis fastest.
        for d in (0..self.dims.len()).rev() {
            self.index[d] += 1;
            self.offset += self.strides[d];
            if self.index[d] < self.dims[d] {
                break;
            }
            self.offset -= self.strides[d] * self.dims[d] as isize;
            self.index[d] = 0;
        }
        Some(v)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl<T: Element> ExactSizeIterator for Iter<'_, T> {}

impl<T: Element> Tensor<T, Cpu> {
    /// The elements in logical (row-major) order, whatever the layout (views, negative and
    /// broadcast strides), without copying; as `to_vec().into_iter()` but lazy.
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    ///
    /// let t = tensor![[1, 2, 3], [4, 5, 6]];
    /// assert_eq!(t.t().iter().collect::<Vec<_>>(), vec![1, 4, 2, 5, 3, 6]);
    /// assert_eq!(t.iter().filter(|&x| x % 2 == 0).count(), 3);
    /// for (i, row) in t.rows().enumerate() {
    ///     assert_eq!(row.to_vec(), t.to_vec()[3 * i..3 * (i + 1)].to_vec());
    /// }
    /// ```
    ///
    /// # Errors
    /// `Layout` when this thread holds a write borrow (`data_mut`) of the buffer.
    pub fn try_iter(&self) -> Result<Iter<'_, T>> {
        let Layout {
            shape,
            strides,
            offset,
        } = &self.layout;
        Ok(Iter {
            guard: read("iter", &self.storage)?,
            dims: shape.dims().to_vec(),
            strides: strides.to_vec(),
            index: vec![0; shape.ndim()],
            offset: *offset as isize,
            remaining: self.numel(),
        })
    }

    /// As [`Tensor::try_iter`].
    ///
    /// # Panics
    /// When this thread holds a write borrow of the buffer.
    #[track_caller]
    pub fn iter(&self) -> Iter<'_, T> {
        self.try_iter().or_panic()
    }
}

/// `for x in &t` over a CPU tensor's elements in row-major order ([`Tensor::iter`]).
///
/// # Panics
/// When this thread holds a write borrow of the buffer.
impl<'a, T: Element> IntoIterator for &'a Tensor<T, Cpu> {
    type Item = T;
    type IntoIter = Iter<'a, T>;
    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

/// The sub-tensors of a tensor along one axis, as views (see [`Tensor::axis_iter`]).
pub struct AxisIter<T: Element, D: Backend> {
    tensor: Tensor<T, D>,
    axis: usize,
    next: usize,
}

impl<T: Element, D: Backend> Iterator for AxisIter<T, D> {
    type Item = Tensor<T, D>;
    fn next(&mut self) -> Option<Tensor<T, D>> {
        let n = self.tensor.dims()[self.axis];
        if self.next >= n {
            return None;
        }
        let i = self.next;
        self.next += 1;
        let l = &self.tensor.layout;
        let mut shape = l.shape.dims().to_vec();
        let mut strides = l.strides.clone();
        shape.remove(self.axis);
        let stride = strides.remove(self.axis);
        let layout = Layout {
            shape: shape.into(),
            strides,
            // Inside the tensor's span: index i < n along an axis of stride `stride`.
            offset: (l.offset as isize + i as isize * stride) as usize,
        };
        Some(
            self.tensor
                .with_layout("axis_iter", layout)
                .expect("a slice along a valid axis lies within the tensor"),
        )
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.tensor.dims()[self.axis] - self.next;
        (left, Some(left))
    }
}

impl<T: Element, D: Backend> ExactSizeIterator for AxisIter<T, D> {}

impl<T: Element, D: Backend> Tensor<T, D> {
    /// The sub-tensors at each index of `axis`, as views that drop the axis (NumPy's iteration
    /// over `np.moveaxis(t, axis, 0)`, PyTorch's `t.unbind(axis)` without the copy); negative
    /// axes count from the end.
    ///
    /// # Errors
    /// `Axis` when `axis` is out of range (a 0-d tensor has no axis).
    pub fn try_axis_iter(&self, axis: i64) -> Result<AxisIter<T, D>> {
        let axis = self.shape().axis("axis_iter", axis)?;
        Ok(AxisIter {
            tensor: self.clone(),
            axis,
            next: 0,
        })
    }

    /// As [`Tensor::try_axis_iter`].
    ///
    /// # Panics
    /// When `axis` is out of range.
    #[track_caller]
    pub fn axis_iter(&self, axis: i64) -> AxisIter<T, D> {
        self.try_axis_iter(axis).or_panic()
    }

    /// The sub-tensors along the first axis (the rows of a matrix), as views:
    /// `axis_iter(0)`.
    ///
    /// # Errors
    /// `Axis` for a 0-d tensor.
    pub fn try_rows(&self) -> Result<AxisIter<T, D>> {
        self.try_axis_iter(0)
    }

    /// As [`Tensor::try_rows`].
    ///
    /// # Panics
    /// For a 0-d tensor.
    #[track_caller]
    pub fn rows(&self) -> AxisIter<T, D> {
        self.try_rows().or_panic()
    }
}
