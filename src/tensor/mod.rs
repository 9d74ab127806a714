//! The typed tensor: shared storage, a layout (shape, strides, offset) and an optional gradient
//! buffer of the same dtype.

mod access;
mod create;
mod display;
mod element;
mod iter;
mod literal;
mod memory;
mod random_state;
mod slice;
mod view;
mod view_layout;

pub(crate) use crate::backend::cpu::lock::{read, write};
pub use access::{DataMut, DataRef};
pub(crate) use create::checked_data_shape;
pub use display::{
    MAX_PRECISION, PrintOptions, SUMMARY_THRESHOLD, get_printoptions, set_printoptions,
};
pub use iter::{AxisIter, Iter};
pub use random_state::{
    Generator, RngState, get_rng_state, initial_seed, manual_seed, seed, set_rng_state,
};
pub(crate) use random_state::{next_key, restore_rng_state, rng_state, with_global_rng};
pub use slice::{NewAxis, Slice, SliceArg, SliceEntry, SliceRange};
pub use view::ReshapeDims;
pub(crate) use view::resolve;

use crate::device::{AlignedBuf, Cpu, Device, DeviceIndex};
use crate::dtype::{Dtype, Element};
use crate::error::Result;
use crate::shape::{Layout, Shape};

/// An n-dimensional array whose element type `T` and device `D` are part of its type.
///
/// `Clone` is a cheap handle copy that **shares storage** (as in candle): writing through one
/// handle is seen by the other. Use [`Tensor::deep_copy`] for an independent copy. Views
/// (`transpose`, `narrow`, `reshape` of a contiguous tensor, ...) share storage too and report
/// `owns_data() == false`.
pub struct Tensor<T: Element, D: Device = Cpu> {
    pub(crate) storage: D::Storage<T>,
    pub(crate) layout: Layout,
    pub(crate) device: D,
    pub(crate) requires_grad: bool,
    pub(crate) grad: Option<D::Storage<T>>,
    pub(crate) is_view: bool,
    /// The autograd node that made this tensor, or the leaf node of a tensor that requires
    /// grad; `None` when no gradient flows through it.
    pub(crate) node: Option<std::sync::Arc<crate::autograd::Node>>,
}

// A panic while a write guard is held can leave some elements written and others not; every
// bit pattern is a valid element (`Pod`), so no invariant breaks and tensors may cross
// `catch_unwind` (as they did behind std's poisoning `RwLock`).
impl<T: Element, D: Device> std::panic::RefUnwindSafe for Tensor<T, D> {}
impl<T: Element, D: Device> std::panic::UnwindSafe for Tensor<T, D> {}

impl<T: Element, D: Device> Clone for Tensor<T, D> {
    fn clone(&self) -> Self {
        Tensor {
            storage: self.storage.clone(),
            layout: self.layout.clone(),
            device: self.device.clone(),
            requires_grad: self.requires_grad,
            grad: self.grad.clone(),
            is_view: self.is_view,
            node: self.node.clone(),
        }
    }
}

/// Metadata, with PyTorch's and NumPy's names. None of these touch the data.
impl<T: Element, D: Device> Tensor<T, D> {
    /// The shape.
    pub fn shape(&self) -> &Shape {
        &self.layout.shape
    }
    /// The shape's dimensions as a slice.
    pub fn dims(&self) -> &[usize] {
        self.layout.shape.dims()
    }
    /// The runtime dtype tag, `T::DTYPE`.
    pub fn dtype(&self) -> Dtype {
        T::DTYPE
    }
    /// The device this tensor lives on.
    pub fn device(&self) -> DeviceIndex {
        self.device.index()
    }
    /// The type-level device handle.
    pub fn device_handle(&self) -> &D {
        &self.device
    }
    /// Number of elements (the product of the dimensions; 1 for a 0-d tensor).
    pub fn numel(&self) -> usize {
        self.layout.shape.numel()
    }
    /// `numel() * dtype_size()` in bytes: the size if the tensor were contiguous.
    pub fn nbytes(&self) -> usize {
        self.numel() * T::SIZE
    }
    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.layout.shape.ndim()
    }
    /// Strides in elements (a contiguous (3, 4) tensor has `[4, 1]`).
    pub fn stride(&self) -> &[isize] {
        &self.layout.strides
    }
    /// Offset of the first element inside the storage, in elements.
    pub fn offset(&self) -> usize {
        self.layout.offset
    }
    /// The full layout (shape, strides, offset).
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    /// Size in bytes of one element of `dtype`.
    pub fn dtype_size(dtype: Dtype) -> usize {
        dtype.size()
    }
    /// True on the host.
    pub fn is_cpu(&self) -> bool {
        D::KIND == crate::device::DeviceKind::Cpu
    }
    /// True on a CUDA device.
    pub fn is_cuda(&self) -> bool {
        D::KIND == crate::device::DeviceKind::Cuda
    }
    /// Whether ops on this tensor record a graph for autograd (PyTorch `requires_grad`): a
    /// leaf made with `requires_grad` and not frozen since, or a result recorded from one.
    pub fn requires_grad(&self) -> bool {
        self.requires_grad && !self.is_frozen()
    }
    /// Bytes of the gradient buffer (`nbytes()` when `requires_grad`, else 0).
    pub fn grad_nbytes(&self) -> usize {
        if self.grad.is_some() {
            self.nbytes()
        } else {
            0
        }
    }
    /// Bytes really allocated for the data buffer (64-byte aligned, so it may exceed `nbytes()`;
    /// a view reports its base's allocation).
    pub fn allocated_bytes(&self) -> usize {
        D::allocated_bytes(&self.storage)
    }
    /// Bytes really allocated for the gradient buffer, 0 without one.
    pub fn grad_allocated_bytes(&self) -> usize {
        self.grad.as_ref().map_or(0, |g| D::allocated_bytes(g))
    }
    /// False for a view that points into another tensor's memory.
    pub fn owns_data(&self) -> bool {
        !self.is_view
    }
    /// True when this tensor allocated its own gradient buffer.
    pub fn owns_grad(&self) -> bool {
        self.grad.is_some() && !self.is_view
    }
    /// True when the elements are one row-major run in memory.
    pub fn is_contiguous(&self) -> bool {
        self.layout.is_contiguous()
    }
    /// True when `self` and `other` share one data buffer.
    pub fn shares_storage_with(&self, other: &Self) -> bool {
        D::same_storage(&self.storage, &other.storage)
    }
}

impl<T: Element, D: crate::backend::Backend> Tensor<T, D> {
    /// A view of the same storage with another layout: the only way views are made, so every
    /// layout is checked here before any kernel can see it.
    ///
    /// # Errors
    /// `ShapeOverflow` when the view holds more than [`crate::shape::MAX_BYTES`]; `Layout` when
    /// it reaches outside the elements `self` spans (a bug in the caller's arithmetic, refused
    /// rather than trusted). An empty view keeps `self`'s offset, which is inside the storage.
    pub(crate) fn with_layout(&self, op: &'static str, layout: Layout) -> Result<Self> {
        let layout = view_layout::checked(op, &self.layout, layout, T::SIZE)?;
        let view = Tensor {
            storage: self.storage.clone(),
            layout,
            device: self.device.clone(),
            requires_grad: false,
            grad: None,
            is_view: true,
            node: None,
        };
        // A view of a tensor that requires grad passes its gradient back to it.
        let saved: [&dyn crate::autograd::Tracked; 2] = [self, &view];
        let rule = if self.graph_node().is_some() && !self.is_leaf() && self.layout.has_aliasing() {
            crate::autograd::Op::BroadcastView(op)
        } else {
            crate::autograd::Op::View(op)
        };
        Ok(crate::autograd::record(view.clone(), rule, &[self], &saved))
    }
}

impl<T: Element, D: Device> Tensor<T, D> {
    /// A fresh, contiguous tensor that owns `storage` on `device`; `storage` holds at least
    /// `shape.numel()` elements.
    pub(crate) fn from_storage(storage: D::Storage<T>, shape: Shape, device: &D) -> Self {
        Tensor {
            storage,
            layout: Layout::contiguous(shape),
            device: device.clone(),
            requires_grad: false,
            grad: None,
            is_view: false,
            node: None,
        }
    }
}

impl<T: Element> Tensor<T, Cpu> {
    /// A fresh, contiguous tensor that owns `buf`. `buf.len()` must equal `shape.numel()`.
    #[inline(always)]
    pub(crate) fn from_buf(buf: AlignedBuf<T>, shape: Shape) -> Self {
        Self::from_buf_layout(buf, Layout::contiguous(shape))
    }
    /// [`Tensor::from_buf`] with its contiguous layout (offset 0) already made.
    #[inline(always)]
    pub(crate) fn from_buf_layout(buf: AlignedBuf<T>, layout: Layout) -> Self {
        debug_assert!(buf.len() == layout.shape.numel() && layout.is_contiguous());
        Tensor {
            storage: std::sync::Arc::new(parking_lot::RwLock::new(buf)),
            layout,
            device: Cpu,
            requires_grad: false,
            grad: None,
            is_view: false,
            node: None,
        }
    }
}
