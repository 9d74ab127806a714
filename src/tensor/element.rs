//! Reading and writing one element by its index (PyTorch `t[i, j]`, NumPy `a[i, j]`).
//!
//! These are methods, not `Index`/`IndexMut`: those must hand out a plain `&T`/`&mut T`, which
//! cannot hold the buffer's lock (other handles and threads share it) and cannot exist for a
//! CUDA tensor.

use super::Tensor;
use crate::backend::Backend;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::shape::{Layout, Shape};

impl<T: Element, D: Backend> Tensor<T, D> {
    /// The 0-d view of the element at `index`, one entry per dimension; negative entries count
    /// from the end (Python).
    fn element(&self, op: &'static str, index: &[i64]) -> Result<Self> {
        if index.len() != self.ndim() {
            return Err(Error::InvalidArgument {
                op,
                msg: format!(
                    "an index of {} entries for a tensor of shape {} ({} dimensions)",
                    index.len(),
                    self.shape(),
                    self.ndim()
                ),
            });
        }
        let mut offset = self.layout.offset as i128;
        for (d, (&i, &size)) in index.iter().zip(self.dims()).enumerate() {
            let j = if i < 0 {
                i as i128 + size as i128
            } else {
                i as i128
            };
            if !(0..size as i128).contains(&j) {
                return Err(Error::Index {
                    op,
                    index: i,
                    dim: d,
                    size,
                    shape: self.shape().clone(),
                });
            }
            offset += j * self.stride()[d] as i128;
        }
        let layout = Layout {
            shape: Shape::new(Vec::new()),
            strides: Vec::new().into(),
            offset: usize::try_from(offset).map_err(|_| Error::Layout {
                op,
                msg: "the element lies before the storage".into(),
            })?,
        };
        self.with_layout(op, layout)
    }

    /// The element at `index` (one entry per dimension, negative counts from the end), copied
    /// to the host.
    ///
    /// ```
    /// use typed_tensor::Tensor;
    /// let mut t = Tensor::<i32>::from_vec(vec![1, 2, 3, 4, 5, 6], [2, 3])?;
    /// assert_eq!(t.get(&[1, -1])?, 6);
    /// t.set(&[0, 1], 20)?;
    /// assert_eq!(t.to_vec(), vec![1, 20, 3, 4, 5, 6]);
    /// assert!(t.get(&[2, 0]).is_err()); // out of range
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` when `index` has the wrong length; `Index` for an entry out of range.
    pub fn get(&self, index: &[i64]) -> Result<T> {
        self.element("get", index)?.try_item()
    }

    /// Writes `value` at `index` (as [`Tensor::get`]); views and clones sharing the buffer see
    /// it.
    ///
    /// # Errors
    /// As [`Tensor::get`]; `Layout` on a broadcast view; `InvalidArgument` on a tensor that
    /// requires grad while recording (write under `no_grad`).
    pub fn set(&mut self, index: &[i64], value: T) -> Result<()> {
        self.check_writable("set")?;
        self.element("set", index)?.fill_(value)
    }
}
