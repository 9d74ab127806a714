//! The CUDA device type. It exists and type-checks on every machine so that code written
//! against `Tensor<T, Cuda>` compiles everywhere; this build has no CUDA backend yet, so
//! [`Cuda::new`] returns an error and no CUDA tensor can be created.

use super::{Device, DeviceIndex, DeviceKind, sealed};
use crate::dtype::Element;
use crate::error::{Error, Result};
use std::convert::Infallible;
use std::marker::PhantomData;

/// An NVIDIA GPU, selected by ordinal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cuda {
    ordinal: usize,
}

impl Cuda {
    /// Opens CUDA device `ordinal`.
    ///
    /// # Errors
    /// Always `Error::Device` in this build: the CUDA backend (NVRTC kernels, cuBLAS) is not
    /// compiled in yet, so no GPU can be used. CPU tensors are unaffected.
    pub fn new(ordinal: usize) -> Result<Self> {
        Err(Error::Device {
            op: "Cuda::new",
            msg: format!(
                "cannot open cuda:{ordinal}: this build of typed-tensor has no CUDA backend yet; use Cpu"
            ),
        })
    }
    /// The ordinal of this device.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }
}

/// Device memory for `T` on a CUDA device. Uninhabited in this build: no CUDA buffer can exist.
pub enum CudaStorage<T: Element> {
    #[doc(hidden)]
    Never(Infallible, PhantomData<T>),
}

impl<T: Element> Clone for CudaStorage<T> {
    fn clone(&self) -> Self {
        match self {
            CudaStorage::Never(x, _) => match *x {},
        }
    }
}

impl sealed::Sealed for Cuda {}

impl Device for Cuda {
    type Storage<T: Element> = CudaStorage<T>;
    const KIND: DeviceKind = DeviceKind::Cuda;
    fn index(&self) -> DeviceIndex {
        DeviceIndex::cuda(self.ordinal)
    }
    fn zeros<T: Element>(&self, _len: usize) -> Result<CudaStorage<T>> {
        Err(Error::Device {
            op: "alloc",
            msg: "this build has no CUDA backend".into(),
        })
    }
    fn allocated_bytes<T: Element>(s: &CudaStorage<T>) -> usize {
        match s {
            CudaStorage::Never(x, _) => match *x {},
        }
    }
    fn same_storage<T: Element>(a: &CudaStorage<T>, _b: &CudaStorage<T>) -> bool {
        match a {
            CudaStorage::Never(x, _) => match *x {},
        }
    }
}
