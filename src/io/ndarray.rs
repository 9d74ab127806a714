//! `ndarray` interop (the `ndarray` feature): arrays in by copy, copies out, and zero-copy
//! read-only views of CPU tensors that carry the tensor's strides (negative and zero included).

use crate::backend::cpu::lock::{ReadGuard, read};
use crate::device::Cpu;
use crate::dtype::Element;
use crate::error::OrPanic;
use crate::error::Result;
use crate::shape::Shape;
use crate::tensor::Tensor;
use ndarray::{ArrayBase, ArrayD, ArrayViewD, Axis, Data, Dimension, IxDyn, ShapeBuilder};

impl<T: Element> Tensor<T, Cpu> {
    /// A tensor holding a copy of `array`'s elements in logical (row-major) order, whatever its
    /// memory layout (C, Fortran, sliced, negative strides).
    ///
    /// # Errors
    /// `OutOfMemory` when the buffer cannot be allocated.
    pub fn try_from_ndarray<S: Data<Elem = T>, Dm: Dimension>(
        array: &ArrayBase<S, Dm>,
    ) -> Result<Self> {
        let shape = Shape::from(array.shape());
        match array.as_slice() {
            Some(s) => Tensor::from_slice(s, shape), // one copy, straight into the buffer
            None => Tensor::from_vec(array.iter().copied().collect(), shape),
        }
    }

    /// A copy as an owned `ndarray` array of dynamic rank, in row-major order (any layout,
    /// views included).
    ///
    /// # Errors
    /// `Layout` when this thread holds a write borrow of the buffer.
    pub fn to_ndarray(&self) -> Result<ArrayD<T>> {
        let data = self.try_to_vec()?;
        Ok(ArrayD::from_shape_vec(IxDyn(self.dims()), data)
            .expect("to_vec returns exactly numel elements in row-major order"))
    }

    /// A zero-copy read-only `ndarray` view of this tensor, holding the buffer's read lock:
    /// call [`NdarrayView::view`] on the result. Strides are carried over as they are (a
    /// transposed, sliced, flipped or broadcast tensor is viewed without a copy).
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    ///
    /// let t = Tensor::<f32, Cpu>::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3])?;
    /// let tt = t.transpose(0, 1)?;
    /// let guard = tt.ndarray_view()?;
    /// let v = guard.view();
    /// assert_eq!(v.shape(), &[3, 2]);
    /// assert_eq!(v[[2, 1]], 6.0);
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// `Layout` when this thread holds a write borrow of the buffer.
    pub fn ndarray_view(&self) -> Result<NdarrayView<'_, T>> {
        Ok(NdarrayView {
            guard: read("ndarray_view", &self.storage)?,
            tensor: self,
        })
    }
}

/// A CPU tensor's buffer, locked for reading, from which [`NdarrayView::view`] borrows an
/// `ArrayViewD`. Writers to the buffer wait until it is dropped.
pub struct NdarrayView<'a, T: Element> {
    guard: ReadGuard<'a, T>,
    tensor: &'a Tensor<T, Cpu>,
}

impl<T: Element> NdarrayView<'_, T> {
    /// The view: the tensor's shape and strides over its buffer.
    pub fn view(&self) -> ArrayViewD<'_, T> {
        let layout = &self.tensor.layout;
        let dims = layout.shape.dims();
        let buf: &[T] = &self.guard;
        if dims.contains(&0) {
            return ArrayViewD::from_shape(IxDyn(dims), &[]).expect("an empty shape fits");
        }
        // ndarray wants non-negative strides from the lowest address: start there, then flip
        // the axes whose stride is negative.
        let mut low = layout.offset as isize;
        for (&d, &s) in dims.iter().zip(&layout.strides) {
            if s < 0 {
                low += s * (d as isize - 1);
            }
        }
        let abs: Vec<usize> = layout.strides.iter().map(|s| s.unsigned_abs()).collect();
        // Every tensor's layout was checked to lie within its buffer (`check_within`), so the
        // lowest address is in the buffer and every index reaches an element of it.
        assert!(
            low >= 0 && (low as usize) < buf.len(),
            "layout within buffer"
        );
        // SAFETY: the pointer and every offset reachable through `dims`/`abs` lie inside `buf`
        // (checked when the layout was made), which the read guard keeps alive and unwritten
        // for the view's lifetime; strides are non-negative.
        let mut view = unsafe {
            ArrayViewD::from_shape_ptr(
                IxDyn(dims).strides(IxDyn(&abs)),
                buf.as_ptr().add(low as usize),
            )
        };
        for (i, &s) in layout.strides.iter().enumerate() {
            if s < 0 {
                view.invert_axis(Axis(i));
            }
        }
        view
    }
}

impl<T: Element, Dm: Dimension> From<ndarray::Array<T, Dm>> for Tensor<T, Cpu> {
    /// A copy of `array` (see [`Tensor::try_from_ndarray`]).
    ///
    /// # Panics
    /// When the buffer cannot be allocated.
    fn from(array: ndarray::Array<T, Dm>) -> Self {
        Tensor::try_from_ndarray(&array).or_panic()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array2, ArrayView2, s};

    #[test]
    fn arrays_in_any_layout() {
        let a = Array2::from_shape_vec((2, 3), vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        let t = Tensor::from(a.clone());
        assert_eq!(t.dims(), &[2, 3]);
        assert_eq!(t.to_vec(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let f = Tensor::from(a.t().to_owned()); // Fortran-ordered
        assert_eq!(f.to_vec(), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
        let flipped = a.slice(s![..;-1, 1..]);
        let t = Tensor::try_from_ndarray(&flipped).unwrap();
        assert_eq!(t.to_vec(), vec![5.0, 6.0, 2.0, 3.0]);
        let e = Tensor::try_from_ndarray(&Array2::<i64>::zeros((0, 5))).unwrap();
        assert_eq!(e.dims(), &[0, 5]);
        let z = Tensor::from(ndarray::arr0(true));
        assert_eq!(z.dims(), &[] as &[usize]);
    }

    #[test]
    fn views_carry_strides() {
        let t = Tensor::<i32, Cpu>::from_vec((0..12).collect(), [3, 4]).unwrap();
        let cases = [
            t.clone(),
            t.transpose(0, 1).unwrap(),
            t.flip(&[0, 1]).unwrap(),
            t.flip(&[1]).unwrap().narrow(0, 1, 2).unwrap(),
            t.narrow(1, 0, 1).unwrap().expand([3, 5]).unwrap(),
            t.narrow(0, 0, 0).unwrap(),
            t.narrow(0, 1, 1)
                .unwrap()
                .narrow(1, 2, 1)
                .unwrap()
                .squeeze(),
        ];
        for v in cases {
            let guard = v.ndarray_view().unwrap();
            let view = guard.view();
            assert_eq!(view.shape(), v.dims());
            assert_eq!(view.iter().copied().collect::<Vec<_>>(), v.to_vec());
            assert_eq!(v.to_ndarray().unwrap(), view.to_owned());
            assert_eq!(
                Tensor::try_from_ndarray(&view).unwrap().to_vec(),
                v.to_vec()
            );
        }
        let two: ArrayView2<'_, i32> = ArrayView2::from_shape((1, 1), &[7]).unwrap();
        assert_eq!(Tensor::try_from_ndarray(&two).unwrap().to_vec(), vec![7]);
    }
}
