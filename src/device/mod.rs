//! Devices as types (`Cpu`, `Cuda`) and at run time (`DeviceKind`, `DeviceIndex`): the
//! [`Device`] and [`RawDevice`] traits are defined here; each device type and its storage live in their backend's
//! folder (`backend/cpu/device.rs`, `backend/cuda/device/`) and are re-exported here.

mod threads;

pub use crate::backend::cpu::device::{AlignedBuf, Cpu, CpuStorage};
pub use crate::backend::cuda::device::{Cuda, CudaStorage};
pub use threads::{get_num_threads, set_num_threads};

use crate::dtype::Element;
use std::fmt;

/// The kind of a device (PyTorch's `device.type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeviceKind {
    /// Host memory.
    Cpu,
    /// An NVIDIA GPU.
    Cuda,
}

/// A device at run time: its kind and ordinal (PyTorch's `torch.device`, printed `cpu` or `cuda:N`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DeviceIndex {
    /// CPU or CUDA.
    pub kind: DeviceKind,
    /// The ordinal (0 for the CPU).
    pub index: usize,
}

impl DeviceIndex {
    /// The host.
    pub const fn cpu() -> Self {
        DeviceIndex {
            kind: DeviceKind::Cpu,
            index: 0,
        }
    }
    /// CUDA device number `n`.
    pub const fn cuda(n: usize) -> Self {
        DeviceIndex {
            kind: DeviceKind::Cuda,
            index: n,
        }
    }
}

impl fmt::Display for DeviceIndex {
    /// `cpu` or `cuda:N`, as PyTorch prints devices.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            DeviceKind::Cpu => write!(f, "cpu"),
            DeviceKind::Cuda => write!(f, "cuda:{}", self.index),
        }
    }
}

pub(crate) mod sealed {
    pub trait Sealed {}
}

/// A device as a type, for generic code: `fn f<T: FloatElement, D: Device>(x: &Tensor<T, D>)`
/// can call every op, on `Cpu` and on `Cuda` alike. Binary ops take two tensors with the same
/// `D`, so mixing a CPU and a CUDA tensor does not compile.
///
/// `Device` is [`crate::Backend`] (the kernels) over [`RawDevice`] (the storage) under the
/// name the field uses; every backend is a device, so `D: Device` and `D: Backend` are
/// interchangeable bounds.
///
/// ```
/// use typed_tensor::prelude::*;
///
/// fn centered<T: FloatElement, D: Device>(x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
///     x.try_sub(&x.try_mean(&[-1], true)?)
/// }
/// let x = Tensor::<f64>::from_vec(vec![1.0, 2.0, 6.0], [3])?;
/// assert_eq!(centered(&x)?.to_vec(), [-2.0, -1.0, 3.0]);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a device",
    note = "devices are `Cpu` and `Cuda`"
)]
pub trait Device: crate::backend::Backend {}

impl<B: crate::backend::Backend> Device for B {}

/// The storage half of a device: its buffer type, allocation and identity. Generic code names
/// [`Device`] (or [`crate::Backend`]), which adds the kernels; this trait is the layer below.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a device",
    note = "devices are `Cpu` and `Cuda`"
)]
pub trait RawDevice: sealed::Sealed + Clone + fmt::Debug + Send + Sync + 'static {
    /// The buffer type holding `T` elements on this device; cloning it shares the memory.
    type Storage<T: Element>: Clone + Send + Sync;
    /// The device kind.
    const KIND: DeviceKind;
    /// The runtime description of this device.
    fn index(&self) -> DeviceIndex;
    /// A zero-filled buffer of `len` elements.
    fn zeros<T: Element>(&self, len: usize) -> crate::Result<Self::Storage<T>>;
    /// A buffer of `len` elements that the caller writes whole before anything reads it (the
    /// CPU's may hold an earlier buffer's elements; zeros where the device has nothing
    /// cheaper). Internal: no public op returns one unwritten.
    #[doc(hidden)]
    fn for_overwrite<T: Element>(&self, len: usize) -> crate::Result<Self::Storage<T>> {
        self.zeros(len)
    }
    /// Bytes actually allocated for a buffer (may exceed `len * size` through alignment).
    fn allocated_bytes<T: Element>(storage: &Self::Storage<T>) -> usize;
    /// True when two handles share one buffer.
    fn same_storage<T: Element>(a: &Self::Storage<T>, b: &Self::Storage<T>) -> bool;
    /// True when `s` is the only handle to its buffer (no clone, view or saved copy shares
    /// it), so writing it in place is seen by nobody else.
    fn is_unique<T: Element>(s: &Self::Storage<T>) -> bool;
    /// An identity of the buffer, the same for every handle sharing it (its address).
    fn storage_id<T: Element>(s: &Self::Storage<T>) -> usize;
    /// A buffer on this device holding a copy of `data` (a host-to-device copy for CUDA).
    fn upload<T: Element>(&self, data: &[T]) -> crate::Result<Self::Storage<T>>;
    /// The whole buffer copied to the host (a device-to-host copy for CUDA).
    fn download<T: Element>(&self, storage: &Self::Storage<T>) -> crate::Result<Vec<T>>;
}
