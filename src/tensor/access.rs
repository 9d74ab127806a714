//! Reading and writing elements: `to_vec`, borrowed slices, the gradient buffer.

use super::Tensor;
use crate::backend::cpu::lock::{ReadGuard, WriteGuard, read, write};
use crate::device::Cpu;
use crate::dtype::Element;
use crate::error::{Error, Result};
use std::ops::{Deref, DerefMut, Range};

/// A read-only borrow of a contiguous CPU tensor's elements.
/// The tensor cannot be moved or written while it is alive.
pub struct DataRef<'a, T: Element> {
    guard: ReadGuard<'a, T>,
    range: Range<usize>,
}

impl<T: Element> Deref for DataRef<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.guard[self.range.clone()]
    }
}

/// A mutable borrow of a contiguous CPU tensor's elements.
pub struct DataMut<'a, T: Element> {
    guard: WriteGuard<'a, T>,
    range: Range<usize>,
}

impl<T: Element> Deref for DataMut<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.guard[self.range.clone()]
    }
}
impl<T: Element> DerefMut for DataMut<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.guard[self.range.clone()]
    }
}

impl<T: Element> Tensor<T, Cpu> {
    fn contiguous_range(&self, op: &'static str) -> Result<Range<usize>> {
        if !self.is_contiguous() {
            return Err(Error::Layout {
                op,
                msg: format!(
                    "a tensor of shape {} with strides {:?} is not contiguous; call `contiguous()` first or use `to_vec()`",
                    self.shape(),
                    self.stride()
                ),
            });
        }
        Ok(self.layout.offset..self.layout.offset + self.numel())
    }

    /// Borrows the elements of a contiguous tensor (read-only).
    ///
    /// # Errors
    /// `Layout` when the tensor is not contiguous, or its buffer is mutably borrowed elsewhere.
    pub fn data(&self) -> Result<DataRef<'_, T>> {
        let range = self.contiguous_range("data")?;
        Ok(DataRef {
            guard: read("data", &self.storage)?,
            range,
        })
    }

    /// Borrows the elements of a contiguous tensor for writing.
    /// Views and clones that share the buffer see the writes.
    ///
    /// # Errors
    /// `Layout` when the tensor is not contiguous or its buffer is borrowed elsewhere.
    pub fn data_mut(&mut self) -> Result<DataMut<'_, T>> {
        let range = self.contiguous_range("data_mut")?;
        let guard = write("data_mut", &self.storage)?;
        // Writes through the guard change what a graph may have saved.
        crate::autograd::bump(<Cpu as crate::device::RawDevice>::storage_id(&self.storage));
        Ok(DataMut { guard, range })
    }

    /// Borrows the gradient buffer (`numel()` elements, row-major), `None` without
    /// `requires_grad`. Waits while another thread writes it.
    ///
    /// # Panics
    /// When this thread holds a `grad_mut()` guard on the same buffer (through a clone).
    #[track_caller]
    pub fn grad(&self) -> Option<DataRef<'_, T>> {
        let g = self.grad.as_ref()?;
        Some(DataRef {
            guard: read("grad", g).unwrap_or_else(|e| panic!("{e}")),
            range: 0..self.numel(),
        })
    }

    /// Borrows the gradient buffer for writing, `None` without `requires_grad`. Waits while
    /// other threads use it.
    ///
    /// # Panics
    /// When this thread holds a `grad()`/`grad_mut()` guard on the same buffer (a clone's).
    #[track_caller]
    pub fn grad_mut(&mut self) -> Option<DataMut<'_, T>> {
        let n = self.numel();
        let g = self.grad.as_ref()?;
        Some(DataMut {
            guard: write("grad_mut", g).unwrap_or_else(|e| panic!("{e}")),
            range: 0..n,
        })
    }
}

impl<T: Element, D: crate::device::Device> Tensor<T, D> {
    /// `item()`'s precondition: exactly one element.
    pub(crate) fn check_one_element(&self) -> Result<()> {
        if self.numel() != 1 {
            return Err(Error::InvalidArgument {
                op: "item",
                msg: format!(
                    "a tensor of shape {} has {} elements; item() needs exactly one",
                    self.shape(),
                    self.numel()
                ),
            });
        }
        Ok(())
    }

    /// `Err` when the layout maps several logical elements onto one memory element (a
    /// broadcast view), which cannot be written in place (PyTorch refuses the same).
    pub(crate) fn check_writable(&self, op: &'static str) -> Result<()> {
        self.check_overwrite(op, true)
    }

    /// [`Tensor::check_writable`] for writes that set data rather than compute from it
    /// (`set_data`, `fill_`): allowed on a leaf that requires grad, which is how its values are
    /// initialised (PyTorch writes through `.data` or under `no_grad`).
    pub(crate) fn check_settable(&self, op: &'static str) -> Result<()> {
        self.check_overwrite(op, false)
    }

    fn check_overwrite(&self, op: &'static str, leaves_too: bool) -> Result<()> {
        let graph = match self.graph_node() {
            Some(n) => leaves_too || !n.is_leaf(),
            None => false,
        };
        if graph && crate::autograd::is_grad_enabled() {
            return Err(Error::InvalidArgument {
                op,
                msg: format!(
                    "an in-place op on a tensor of shape {} that requires grad would change values the graph depends on; use the out-of-place op, or write under no_grad (as an optimizer step does)",
                    self.shape()
                ),
            });
        }
        crate::autograd::bump(D::storage_id(&self.storage));
        if self.layout.has_aliasing() {
            return Err(Error::Layout {
                op,
                msg: format!(
                    "the tensor of shape {} with strides {:?} is a broadcast view: several elements share one memory location, so it cannot be written in place; call `contiguous()` first",
                    self.shape(),
                    self.stride()
                ),
            });
        }
        Ok(())
    }
}

impl<T: Element, D: crate::backend::Backend> Tensor<T, D> {
    /// Makes this tensor a leaf that requires grad, with a zero-filled gradient buffer of the
    /// same dtype and `numel()` elements on its device (PyTorch's
    /// `requires_grad_`): ops on it record the graph, and `backward` adds into the buffer.
    /// Only float tensors can require grad: on an integer tensor this does not compile.
    ///
    /// On a leaf that already requires grad, `false` freezes it, as PyTorch freezes a
    /// parameter: for every handle of it (its clones, a layer's field and what
    /// `parameters()` returned), ops stop recording it, `requires_grad()` is false, backward
    /// passes recorded from now on leave its gradient buffer as it is (the buffer is kept, as
    /// PyTorch keeps `.grad`) and the optimizers skip it in `step`; `true` thaws it, buffer
    /// and all. `true` on a leaf that requires grad changes nothing. On a tensor without a
    /// node, `false` changes nothing; on a recorded result, `false` detaches this handle and
    /// `true` makes it a new leaf.
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    /// let w = Tensor::<f32>::ones([2])?.with_requires_grad(true)?;
    /// let mut handle = w.clone();
    /// handle.requires_grad_(false)?; // freezes `w` too
    /// assert!(!w.requires_grad() && !w.mul_scalar(2.0).requires_grad());
    /// handle.requires_grad_(true)?;
    /// w.mul_scalar(2.0).sum(&[], false).backward();
    /// assert_eq!(w.grad_tensor().unwrap().to_vec(), [2.0, 2.0]);
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// A broadcast view (a stride 0 over a dimension longer than 1, as `expand` makes) is
    /// first copied into storage of its own: each of its elements is then a variable of its
    /// own, as in PyTorch, so views of it get exact gradients. It no longer shares memory with
    /// the tensor it was expanded from (it could not be written in place anyway).
    ///
    /// # Errors
    /// `OutOfMemory`/`Device` when an allocation fails; nothing changes then.
    pub fn set_requires_grad(&mut self, requires_grad: bool) -> Result<()>
    where
        T: crate::dtype::FloatElement,
    {
        if let Some(leaf) = self.node.as_ref().filter(|n| n.is_leaf()) {
            leaf.set_frozen(!requires_grad);
            return Ok(());
        }
        if requires_grad {
            let grad = self.device.zeros(self.numel())?;
            if self.layout.has_aliasing() {
                let own = D::deep_copy(self)?;
                self.storage = own.storage;
                self.layout = own.layout;
                self.is_view = false;
            }
            let buf = Tensor::from_storage(grad.clone(), self.shape().clone(), &self.device);
            self.grad = Some(grad);
            self.node = Some(crate::autograd::Node::leaf(buf));
        } else {
            self.grad = None;
            self.node = None;
        }
        self.requires_grad = requires_grad;
        Ok(())
    }

    /// Builder form of [`Tensor::set_requires_grad`].
    pub fn with_requires_grad(mut self, requires_grad: bool) -> Result<Self>
    where
        T: crate::dtype::FloatElement,
    {
        self.set_requires_grad(requires_grad)?;
        Ok(self)
    }

    /// PyTorch's name for [`Tensor::set_requires_grad`].
    pub fn requires_grad_(&mut self, requires_grad: bool) -> Result<()>
    where
        T: crate::dtype::FloatElement,
    {
        self.set_requires_grad(requires_grad)
    }
}
