//! Ops defined once for every device: creation on a device (`zeros_on`, `full_on`,
//! `scalar_on`, `arange_on`, `rand_on`, ...), copies and transfers (`to_vec`, `deep_copy`,
//! `contiguous`, `to_device`, `copy_from`, `fill_`, `set_data`, `item`, `reshape`),
//! `where`, `masked_fill`, `concat`/`cat`/`stack`, `index_select`/`take` and `gather`. Their
//! device-specific steps are [`Backend`] methods.

use crate::backend::Backend;
use crate::device::{Cpu, Device};
use crate::dtype::{Element, FloatElement, NumElement};
use crate::error::{Error, OrPanic, Result};
use crate::shape::{Layout, Shape, broadcast_shapes};
use crate::tensor::ReshapeDims;
use crate::tensor::Tensor;

/// `Err` naming both devices unless `b` is on `a`'s device (CUDA ordinals can differ).
pub(crate) fn same_device<D: Device, A: Element, B: Element>(
    op: &'static str,
    a: &Tensor<A, D>,
    b: &Tensor<B, D>,
) -> Result<()> {
    if a.device() == b.device() {
        return Ok(());
    }
    Err(Error::Device {
        op,
        msg: format!(
            "the operands are on {} and {}; move one with to_cuda() first",
            a.device(),
            b.device()
        ),
    })
}

/// The index must have `src`'s rank and be no larger outside `ax` (PyTorch `gather`).
pub(crate) fn check_gather_shape(
    op: &'static str,
    src: &Shape,
    index: &Shape,
    ax: usize,
) -> Result<()> {
    let (s, i) = (src.dims(), index.dims());
    if i.len() != s.len() || (0..s.len()).any(|d| d != ax && i[d] > s[d]) {
        return Err(Error::ShapeMismatch {
            op,
            lhs: src.clone(),
            rhs: index.clone(),
            msg: format!("the index must have the same rank and be no larger outside axis {ax}"),
        });
    }
    Ok(())
}

impl<T: Element, D: Backend> Tensor<T, D> {
    /// A 0-d tensor holding `value` on `device`.
    ///
    /// # Errors
    /// `Device` when the allocation or the copy to the device fails.
    pub fn scalar_on(value: T, device: &D) -> Result<Self> {
        Ok(Self::from_storage(
            device.upload(&[value])?,
            Shape::new(vec![]),
            device,
        ))
    }

    /// A zero-filled tensor on `device`.
    ///
    /// # Errors
    /// `ShapeOverflow` when the element count overflows; `Device` when allocation fails.
    pub fn zeros_on(shape: impl Into<Shape>, device: &D) -> Result<Self> {
        let shape = shape.into();
        let n = shape.try_numel("zeros_on")?;
        Ok(Self::from_storage(device.zeros(n)?, shape, device))
    }

    /// A tensor of `shape` on `device` that the caller writes whole before it is read or
    /// returned ([`crate::device::RawDevice::for_overwrite`]): no zeroing pass on the CPU.
    pub(crate) fn for_overwrite_on(shape: impl Into<Shape>, device: &D) -> Result<Self> {
        let shape = shape.into();
        let n = shape.try_numel("alloc")?;
        Ok(Self::from_storage(device.for_overwrite(n)?, shape, device))
    }

    /// [`Tensor::empty`] on `device`: zero-filled, as the CPU's (no uninitialised memory is
    /// ever exposed).
    ///
    /// # Errors
    /// As [`Tensor::zeros_on`].
    pub fn empty_on(shape: impl Into<Shape>, device: &D) -> Result<Self> {
        Self::zeros_on(shape, device)
    }

    /// A tensor of `shape` filled with `value` on `device` (PyTorch `full(..., device=)`).
    ///
    /// # Errors
    /// As [`Tensor::zeros_on`].
    pub fn full_on(shape: impl Into<Shape>, value: T, device: &D) -> Result<Self> {
        // `fill` writes every element.
        let mut out = Self::for_overwrite_on(shape, device)?;
        D::fill(&mut out, value)?;
        Ok(out)
    }

    /// Ones on `device`.
    ///
    /// # Errors
    /// As [`Tensor::zeros_on`].
    pub fn ones_on(shape: impl Into<Shape>, device: &D) -> Result<Self> {
        Self::full_on(shape, T::ONE, device)
    }

    /// A `(rows, cols)` matrix with ones on the main diagonal on `device` (built on the host,
    /// then copied).
    ///
    /// # Errors
    /// As [`Tensor::zeros_on`].
    pub fn identity_on(rows: usize, cols: usize, device: &D) -> Result<Self> {
        D::from_host(&Tensor::<T, Cpu>::identity(rows, cols)?, device)
    }

    /// The `n × n` identity matrix on `device`.
    pub fn eye_on(n: usize, device: &D) -> Result<Self> {
        Self::identity_on(n, n, device)
    }

    /// `cond ? a : b` element-wise, the three broadcast together (NumPy `where`).
    ///
    /// # Errors
    /// `Broadcast` when the shapes do not broadcast; `Device` when the operands are on
    /// different devices.
    pub fn try_where(cond: &Tensor<bool, D>, a: &Self, b: &Self) -> Result<Self> {
        let op = "where_";
        same_device(op, a, b)?;
        same_device(op, a, cond)?;
        let s = broadcast_shapes(
            op,
            &broadcast_shapes(op, cond.shape(), a.shape())?,
            b.shape(),
        )?;
        let out = D::select(&s, cond, a, b)?;
        let saved: [&dyn crate::autograd::Tracked; 3] = [cond, a, b];
        Ok(crate::autograd::record(
            out,
            crate::autograd::Op::Where,
            &[a, b],
            &saved,
        ))
    }

    /// Replaces elements where `mask` is true with `value` (PyTorch `masked_fill`); `mask`
    /// broadcasts to `self`'s shape.
    ///
    /// # Errors
    /// `Broadcast` when `mask` does not broadcast to `self`'s shape.
    pub fn try_masked_fill(&self, mask: &Tensor<bool, D>, value: T) -> Result<Self> {
        let m = mask.broadcast_to(self.shape().clone())?;
        Self::try_where(&m, &Self::scalar_on(value, &self.device)?, self)
    }

    /// Copies `src` (broadcast to `self`'s shape) into `self`, which may be a view; the
    /// storage it shares with other handles sees the new values.
    ///
    /// # Errors
    /// `Broadcast` when `src` does not broadcast to `self`'s shape; `Device` across devices;
    /// `Layout` when `self` is a broadcast view (several elements share one location).
    pub fn copy_from(&mut self, src: &Self) -> Result<()> {
        same_device("copy_from", self, src)?;
        self.check_writable("copy_from")?;
        D::assign(self, src)
    }

    /// Joins tensors along an existing axis (NumPy `concatenate`, PyTorch `cat`).
    ///
    /// # Errors
    /// `InvalidArgument` for an empty list; `ShapeMismatch` when ranks or the other dimensions
    /// differ, naming both shapes; `Axis` for a bad axis; `Device` across devices.
    pub fn try_concat(tensors: &[&Self], axis: i64) -> Result<Self> {
        let first = tensors.first().ok_or_else(|| Error::InvalidArgument {
            op: "concat",
            msg: "needs at least one tensor".into(),
        })?;
        let ax = first.shape().axis("concat", axis)?;
        for t in tensors {
            same_device("concat", *first, *t)?;
        }
        let shapes: Vec<&Shape> = tensors.iter().map(|t| t.shape()).collect();
        let dims = concat_dims(&shapes, ax)?;
        let out = match D::concat(tensors, ax, &dims)? {
            Some(out) => out,
            None => {
                // The inputs' slices cover the output along `ax`, so every element is
                // written (an `Err` drops the output unread).
                let out = Self::for_overwrite_on(dims, &first.device)?;
                let mut off = 0;
                for t in tensors {
                    let n = t.dims()[ax];
                    out.narrow(ax as i64, off, n)?.copy_from(t)?;
                    off += n;
                }
                out
            }
        };
        let inputs: Vec<&dyn crate::autograd::Tracked> = tensors
            .iter()
            .map(|t| *t as &dyn crate::autograd::Tracked)
            .collect();
        let op = crate::autograd::Op::Concat(ax);
        Ok(crate::autograd::record(out, op, &inputs, &inputs))
    }

    /// Alias of [`Tensor::try_concat`] (PyTorch's name).
    pub fn try_cat(tensors: &[&Self], axis: i64) -> Result<Self> {
        Self::try_concat(tensors, axis)
    }

    /// Joins equally shaped tensors along a new axis (NumPy `stack`).
    ///
    /// # Errors
    /// As [`Tensor::try_concat`].
    pub fn try_stack(tensors: &[&Self], axis: i64) -> Result<Self> {
        let expanded: Vec<Self> = tensors
            .iter()
            .map(|t| t.unsqueeze(axis))
            .collect::<Result<_>>()?;
        let refs: Vec<&Self> = expanded.iter().collect();
        Self::try_concat(&refs, axis)
    }

    /// The slices at `indices` (1-d, negative counts from the end) along `axis` (PyTorch
    /// `index_select`, NumPy `take` with an axis).
    ///
    /// # Errors
    /// `Index` for an out-of-range index; `InvalidArgument` when `indices` is not 1-d.
    pub fn try_index_select(&self, axis: i64, indices: &Tensor<i64, D>) -> Result<Self> {
        if let Some(row) = self.scalar_as_row("index_select", axis)? {
            // PyTorch: one index, 0-d or 1-d, selects the element.
            if indices.ndim() > 1 || indices.numel() != 1 {
                return Err(Error::InvalidArgument {
                    op: "index_select",
                    msg: format!(
                        "a 0-d tensor takes one index, got shape {}",
                        indices.shape()
                    ),
                });
            }
            return row.try_index_select(0, &indices.try_reshape([1])?)?.to_0d();
        }
        let ax = self.shape().axis("index_select", axis)?;
        if indices.ndim() != 1 {
            return Err(Error::InvalidArgument {
                op: "index_select",
                msg: format!("indices must be 1-d, got shape {}", indices.shape()),
            });
        }
        same_device("index_select", self, indices)?;
        let out = D::index_select(self, ax, indices)?;
        let saved: [&dyn crate::autograd::Tracked; 2] = [self, indices];
        let op = crate::autograd::Op::IndexSelect(ax);
        Ok(crate::autograd::record(out, op, &[self], &saved))
    }

    /// The slices at `indices` (any shape, negative counts from the end) along `axis`
    /// (NumPy `take` with an axis): the result's shape is `self`'s with `axis` replaced by the
    /// indices' shape, so a 0-d index drops the axis and 1-d indices are
    /// [`Tensor::try_index_select`].
    ///
    /// # Errors
    /// `Index` for an out-of-range index; `Axis` for a bad axis.
    pub fn try_take(&self, axis: i64, indices: &Tensor<i64, D>) -> Result<Self> {
        if let Some(row) = self.scalar_as_row("take", axis)? {
            return row.try_take(0, indices); // NumPy: as if the shape were (1,)
        }
        let ax = self.shape().axis("take", axis)?;
        let flat = indices.try_reshape([indices.numel()])?;
        let picked = self
            .try_index_select(axis, &flat)
            .map_err(|e| e.index_named("take"))?;
        let dims = self.dims();
        let shape: Vec<usize> = (dims[..ax].iter().chain(indices.dims()))
            .chain(&dims[ax + 1..])
            .copied()
            .collect();
        picked.try_reshape(shape)
    }

    /// `out[..., j, ...] = self[..., index[..., j, ...], ...]` along `axis` (PyTorch `gather`);
    /// the output has `index`'s shape.
    ///
    /// # Errors
    /// `ShapeMismatch` when the index's rank differs or it is larger outside `axis`; `Index`
    /// for an out-of-range index value.
    pub fn try_gather(&self, axis: i64, index: &Tensor<i64, D>) -> Result<Self> {
        if let Some(row) = self.scalar_as_row("gather", axis)? {
            // PyTorch: a 0-d or 1-d index of zeros; the output has the index's shape.
            if index.ndim() == 0 {
                return row.try_gather(0, &index.try_reshape([1])?)?.to_0d();
            }
            return row.try_gather(0, index);
        }
        let ax = self.shape().axis("gather", axis)?;
        check_gather_shape("gather", self.shape(), index.shape(), ax)?;
        same_device("gather", self, index)?;
        let out = D::gather(self, ax, index)?;
        let saved: [&dyn crate::autograd::Tracked; 2] = [self, index];
        let op = crate::autograd::Op::Gather(ax);
        Ok(crate::autograd::record(out, op, &[self], &saved))
    }
}

/// The plain forms of the ops above, and the copies, transfers and element access that every
/// device has.
impl<T: Element, D: Backend> Tensor<T, D> {
    plain_forms! {
        /// [`Tensor::try_masked_fill`], panicking with its error.
        masked_fill, try_masked_fill(mask: &Tensor<bool, D>, value: T) -> Self;
        /// [`Tensor::try_index_select`], panicking with its error.
        index_select, try_index_select(axis: i64, indices: &Tensor<i64, D>) -> Self;
        /// [`Tensor::try_take`], panicking with its error.
        take, try_take(axis: i64, indices: &Tensor<i64, D>) -> Self;
        /// [`Tensor::try_gather`], panicking with its error.
        gather, try_gather(axis: i64, index: &Tensor<i64, D>) -> Self;
        /// [`Tensor::try_to_vec`], panicking with its error.
        to_vec, try_to_vec() -> Vec<T>;
        /// [`Tensor::try_deep_copy`], panicking with its error.
        deep_copy, try_deep_copy() -> Self;
        /// [`Tensor::try_contiguous`], panicking with its error.
        contiguous, try_contiguous() -> Self;
        /// [`Tensor::try_item`], panicking with its error.
        item, try_item() -> T;
        /// [`Tensor::try_reshape`], panicking with its error.
        reshape, try_reshape(shape: impl ReshapeDims) -> Self;
        /// [`Tensor::try_flatten`], panicking with its error.
        flatten, try_flatten() -> Self;
        /// [`Tensor::try_ravel`], panicking with its error.
        ravel, try_ravel() -> Self;
        /// [`Tensor::try_zeros_like`], panicking with its error.
        zeros_like, try_zeros_like() -> Self;
        /// [`Tensor::try_ones_like`], panicking with its error.
        ones_like, try_ones_like() -> Self;
        /// [`Tensor::try_full_like`], panicking with its error.
        full_like, try_full_like(value: T) -> Self;
        /// [`Tensor::try_to_cpu`], panicking with its error.
        to_cpu, try_to_cpu() -> Tensor<T, Cpu>;
    }

    /// [`Tensor::try_where`], panicking with its error (`where` is a Rust keyword).
    ///
    /// # Panics
    /// When `try_where` returns an `Err`.
    #[track_caller]
    pub fn where_(cond: &Tensor<bool, D>, a: &Self, b: &Self) -> Self {
        Self::try_where(cond, a, b).or_panic()
    }
    /// [`Tensor::try_concat`], panicking with its error.
    ///
    /// # Panics
    /// When `try_concat` returns an `Err`.
    #[track_caller]
    pub fn concat(tensors: &[&Self], axis: i64) -> Self {
        Self::try_concat(tensors, axis).or_panic()
    }
    /// [`Tensor::try_cat`], panicking with its error.
    ///
    /// # Panics
    /// When `try_cat` returns an `Err`.
    #[track_caller]
    pub fn cat(tensors: &[&Self], axis: i64) -> Self {
        Self::try_cat(tensors, axis).or_panic()
    }
    /// [`Tensor::try_stack`], panicking with its error.
    ///
    /// # Panics
    /// When `try_stack` returns an `Err`.
    #[track_caller]
    pub fn stack(tensors: &[&Self], axis: i64) -> Self {
        Self::try_stack(tensors, axis).or_panic()
    }

    /// The elements in logical row-major order, copied to the host (a download on CUDA; only
    /// the viewed range travels).
    ///
    /// # Errors
    /// `OutOfMemory` when the copy cannot be allocated (a large broadcast view); `Layout` when
    /// this thread holds a `data_mut()` guard on the buffer; `Device` when a copy fails.
    pub fn try_to_vec(&self) -> Result<Vec<T>> {
        D::to_vec(self)
    }

    /// An independent contiguous copy on the same device (PyTorch `clone()`; here `Clone`
    /// shares storage).
    ///
    /// # Errors
    /// As [`Tensor::try_to_vec`].
    pub fn try_deep_copy(&self) -> Result<Self> {
        let out = D::deep_copy(self)?;
        let op = crate::autograd::Op::Copy("deep_copy");
        Ok(crate::autograd::record(out, op, &[self], &[self]))
    }

    /// `self` (a shared handle) when already contiguous, otherwise a packed copy.
    ///
    /// # Errors
    /// As [`Tensor::try_deep_copy`].
    pub fn try_contiguous(&self) -> Result<Self> {
        if self.is_contiguous() {
            Ok(self.clone())
        } else {
            let out = D::deep_copy(self)?;
            let op = crate::autograd::Op::Copy("contiguous");
            Ok(crate::autograd::record(out, op, &[self], &[self]))
        }
    }

    /// The single value of a tensor with one element (any shape whose numel is 1), on the
    /// host (PyTorch `item`).
    ///
    /// # Errors
    /// `InvalidArgument` when `numel() != 1`.
    pub fn try_item(&self) -> Result<T> {
        self.check_one_element()?;
        Ok(self.try_to_vec()?[0])
    }

    /// Another shape with the same element count (one dimension may be `-1`): a view when the
    /// strides allow one (contiguous, or dimensions split or merged only within runs that are
    /// contiguous in memory), otherwise a packed copy (PyTorch `reshape`).
    ///
    /// # Errors
    /// `ShapeMismatch` when the element counts differ, naming both shapes.
    pub fn try_reshape(&self, shape: impl ReshapeDims) -> Result<Self> {
        self.reshape_spec(shape.spec())
    }

    /// [`Tensor::try_reshape`] after the argument's conversion (not generic over it).
    fn reshape_spec(&self, spec: Vec<Option<usize>>) -> Result<Self> {
        let (layout, view) = reshape_layout(&self.layout, spec)?;
        if view {
            return self.with_layout("reshape", layout);
        }
        // A packed copy owns its buffer (`owns_data()`), as PyTorch's reshape of a
        // non-contiguous tensor.
        let c = D::deep_copy(self)?;
        let out = Tensor { layout, ..c };
        let op = crate::autograd::Op::Copy("reshape");
        Ok(crate::autograd::record(out, op, &[self], &[self]))
    }

    /// A 1-d view (or copy when not contiguous) of all elements.
    ///
    /// # Errors
    /// As [`Tensor::try_contiguous`].
    pub fn try_flatten(&self) -> Result<Self> {
        self.try_reshape([self.numel()])
    }

    /// NumPy's name for [`Tensor::try_flatten`].
    pub fn try_ravel(&self) -> Result<Self> {
        self.try_flatten()
    }

    /// Sets every element (of a view, too) to `value` (PyTorch `fill_`).
    ///
    /// # Errors
    /// `Layout` for a broadcast view or when a guard on the buffer is alive in this thread.
    pub fn fill_(&mut self, value: T) -> Result<()> {
        self.check_settable("fill_")?;
        // Checked above; the device step's own write checks must not refuse a leaf.
        crate::autograd::no_grad(|| D::fill(self, value))
    }

    /// Copies `values` (logical row-major order, `numel()` of them) into the tensor, which may
    /// be a strided view.
    ///
    /// # Errors
    /// `DataLength` when `values.len() != numel()`; `Layout` for a broadcast view. Nothing is
    /// written on error.
    pub fn set_data(&mut self, values: &[T]) -> Result<()> {
        crate::tensor::checked_data_shape("set_data", values.len(), self.shape().clone())?;
        self.check_settable("set_data")?;
        let host = Tensor::<T, Cpu>::from_slice(values, self.shape().clone())?;
        let src = D::from_host(&host, &self.device)?;
        crate::autograd::no_grad(|| D::assign(self, &src))
    }

    /// Zeros of this tensor's shape on its device.
    ///
    /// # Errors
    /// `OutOfMemory`/`Device` when the allocation fails (a large broadcast view's shape).
    pub fn try_zeros_like(&self) -> Result<Self> {
        Self::zeros_on(self.shape().clone(), &self.device)
    }
    /// Ones of this tensor's shape on its device. Errors as [`Tensor::try_zeros_like`].
    pub fn try_ones_like(&self) -> Result<Self> {
        Self::ones_on(self.shape().clone(), &self.device)
    }
    /// `value` in this tensor's shape on its device. Errors as [`Tensor::try_zeros_like`].
    pub fn try_full_like(&self, value: T) -> Result<Self> {
        Self::full_on(self.shape().clone(), value, &self.device)
    }

    /// A host copy (shared storage when already on the CPU, a device-to-host copy otherwise).
    ///
    /// # Errors
    /// `Device` when the copy fails.
    pub fn try_to_cpu(&self) -> Result<Tensor<T, Cpu>> {
        self.to_device(&Cpu)
    }

    /// This tensor on `device`: shared storage when it is already there, otherwise a copy
    /// through the host (PyTorch `to(device)`).
    ///
    /// # Errors
    /// `Device` when the allocation or a copy fails.
    pub fn to_device<E: Backend>(&self, device: &E) -> Result<Tensor<T, E>> {
        if let Some(same) = (self as &dyn std::any::Any).downcast_ref::<Tensor<T, E>>()
            && same.device.index() == device.index()
        {
            return Ok(same.clone());
        }
        let out = E::from_host(&D::to_host(self)?, device)?;
        // The gradient crosses back to this tensor's device.
        let op = crate::autograd::Op::ToDevice(self.device.index());
        Ok(crate::autograd::record(out, op, &[self], &[]))
    }

    /// A copy on CUDA device `device` (shared storage when it is already there).
    ///
    /// # Errors
    /// `Device` when the allocation or the copy fails.
    pub fn to_cuda(&self, device: &crate::device::Cuda) -> Result<Tensor<T, crate::device::Cuda>> {
        self.to_device(device)
    }

    /// Copies `result` into `self` (an in-place op's target or an `_into` op's output, possibly
    /// a view).
    ///
    /// # Errors
    /// `ShapeMismatch` naming both shapes when they differ; nothing is written then.
    pub(crate) fn store(&mut self, op: &'static str, result: &Self) -> Result<()> {
        if self.shape() != result.shape() {
            return Err(Error::ShapeMismatch {
                op,
                lhs: self.shape().clone(),
                rhs: result.shape().clone(),
                msg: "the output tensor must have the result's shape".into(),
            });
        }
        self.check_writable(op)?;
        D::assign(self, result)
    }
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// The 1-d tensor `start, start + step, ...` up to but excluding `stop` on `device` (NumPy
    /// `arange`; floats computed in f64 and rounded, integers in wrapping i64).
    ///
    /// # Errors
    /// `InvalidArgument` for a zero or NaN step or non-finite bounds.
    pub fn arange_on(start: T, stop: T, step: T, device: &D) -> Result<Self> {
        D::arange(start, stop, step, device)
    }

    /// `n` evenly spaced values from `start` to `stop` inclusive on `device` (NumPy
    /// `linspace`; computed on the host in f64, then copied).
    ///
    /// # Errors
    /// As [`Tensor::linspace`].
    pub fn linspace_on(start: T, stop: T, n: usize, device: &D) -> Result<Self> {
        D::from_host(&Tensor::<T, Cpu>::linspace(start, stop, n)?, device)
    }
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// Uniform samples on `[0, 1)` on `device` from the global generator, so
    /// [`crate::manual_seed`] makes them reproducible (CPU and CUDA values differ: CUDA uses a
    /// Philox4x32-10 kernel).
    ///
    /// # Errors
    /// `ShapeOverflow`, `OutOfMemory` or `Device` on allocation failure.
    pub fn rand_on(shape: impl Into<Shape>, device: &D) -> Result<Self> {
        D::random(shape.into(), device, false)
    }

    /// Standard-normal samples on `device`. Errors as [`Tensor::rand_on`].
    pub fn randn_on(shape: impl Into<Shape>, device: &D) -> Result<Self> {
        D::random(shape.into(), device, true)
    }
}

/// The layout of a reshape of `l` to `spec`, and whether it is a view of `l`'s buffer
/// (contiguous, or strides that fit); otherwise it is the contiguous layout of a packed copy.
/// Compiled once, not per element type and device.
fn reshape_layout(l: &Layout, spec: Vec<Option<usize>>) -> Result<(Layout, bool)> {
    let s = crate::tensor::resolve("reshape", &l.shape, spec)?;
    if l.is_contiguous() {
        let mut v = Layout::contiguous(s);
        v.offset = l.offset;
        return Ok((v, true));
    }
    Ok(match l.view_strides(&s) {
        Some(strides) => (
            Layout {
                shape: s,
                strides: strides.into(),
                offset: l.offset,
            },
            true,
        ),
        None => (Layout::contiguous(s), false),
    })
}

/// The shape of `concat` along `ax` (checked to be an axis of `shapes[0]`): every dimension
/// but `ax` must match, and the sizes along `ax` add up without overflow. Compiled once.
fn concat_dims(shapes: &[&Shape], ax: usize) -> Result<Vec<usize>> {
    let first = shapes[0];
    let mut dims = first.dims().to_vec();
    dims[ax] = 0;
    for s in shapes {
        let same = s.ndim() == first.ndim()
            && (0..s.ndim()).all(|i| i == ax || s.dims()[i] == first.dims()[i]);
        if !same {
            return Err(Error::ShapeMismatch {
                op: "concat",
                lhs: first.clone(),
                rhs: (*s).clone(),
                msg: format!("all dimensions but axis {ax} must match"),
            });
        }
        dims[ax] = dims[ax]
            .checked_add(s.dims()[ax])
            .ok_or_else(|| Error::ShapeOverflow {
                op: "concat",
                dims: s.dims().to_vec(),
            })?;
    }
    Ok(dims)
}
