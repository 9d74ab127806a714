//! The CUDA device: one context and stream per ordinal, byte buffers, NVRTC-compiled modules
//! and a non-generic launcher.
//!
//! With the `cuda` feature (on by default) the driver, NVRTC and cuBLAS are loaded at run time
//! by `cudarc`, so nothing CUDA is needed to build, and a machine without a driver gets an
//! `Err` from [`Cuda::new`], never a panic. Without the feature, the type still exists (code
//! written against `Tensor<T, Cuda>` compiles everywhere) and `Cuda::new` always errs.

#[cfg(feature = "cuda")]
mod driver;
#[cfg(not(feature = "cuda"))]
mod driver {
    //! No CUDA backend compiled in: the context and buffer types are uninhabited.
    use crate::error::Result;

    /// Uninhabited: no context can exist.
    pub enum Context {}
    /// Uninhabited: no buffer can exist.
    pub enum Buffer {}

    pub fn open(ordinal: usize) -> Result<std::sync::Arc<Context>> {
        Err(super::device_error(
            ordinal,
            "this build of typed-tensor has no CUDA backend (the `cuda` feature is off)",
        ))
    }
    pub fn device_count() -> usize {
        0
    }
    impl Context {
        pub fn name(&self) -> String {
            match *self {}
        }
        pub fn alloc_zeros(&self, _bytes: usize) -> Result<Buffer> {
            match *self {}
        }
        pub fn upload(&self, _bytes: &[u8]) -> Result<Buffer> {
            match *self {}
        }
        pub fn alloc(&self, _bytes: usize) -> Result<Buffer> {
            match *self {}
        }
        pub fn copy(&self, _src: &Buffer, _start: usize, _bytes: usize) -> Result<Buffer> {
            match *self {}
        }
        pub fn counters(&self) -> Result<std::sync::Arc<Buffer>> {
            match *self {}
        }
        pub fn synchronize(&self) -> Result<()> {
            match *self {}
        }
        pub fn download(&self, _buf: &Buffer, _start: usize, _bytes: usize) -> Result<Vec<u8>> {
            match *self {}
        }
        #[allow(clippy::too_many_arguments)]
        pub fn gemm(
            &self,
            _dt: super::GemmDtype,
            _dims: (usize, usize, usize, usize),
            _a: (&Buffer, usize, bool),
            _b: (&Buffer, usize, bool),
            _c: &Buffer,
        ) -> Result<()> {
            match *self {}
        }
        pub fn launch(
            &self,
            _m: super::KernelModule,
            _sym: &str,
            _grid: (u32, u32),
            _args: &[super::Arg<'_>],
        ) -> Result<()> {
            match *self {}
        }
    }
    impl Buffer {
        pub fn num_bytes(&self) -> usize {
            match *self {}
        }
    }
}

#[cfg(feature = "cuda")]
pub use driver::compile_ptx;

/// How many block counters `Context::counters` holds: a reduction splits its slices over
/// several blocks only while there are fewer than this many column groups.
pub(crate) const COUNTERS: usize = 1024;
pub(crate) use driver::{Buffer, Context};

/// A kernel module: its file name and a function producing the NVRTC source of one of its
/// kernels.
///
/// Each kernel is compiled alone, on its first launch: NVRTC and the driver's JIT take about
/// 0.15 s for one (the prelude and the family's templates, then one instantiation line),
/// where a whole module of every op and dtype took minutes and one dtype's kernels of a
/// module a few seconds, most of them never launched. Different kernels compile in parallel.
#[derive(Debug, Clone, Copy)]
pub struct KernelModule {
    /// The `.cu` file name, for messages and the cache key.
    pub name: &'static str,
    /// The source with the prelude and the instantiation line of the kernel named by the
    /// argument.
    pub source: fn(&str) -> String,
}

/// The dtype group of a kernel symbol, its last `_`-separated part (`sin_f32` → `f32`): the
/// NVRTC test compiles the module one group at a time.
pub fn group_of(symbol: &str) -> &str {
    symbol.rsplit('_').next().unwrap_or(symbol)
}

/// The float dtypes cuBLAS multiplies (16-bit ones accumulate in f32).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GemmDtype {
    /// f32 in, f32 compute.
    F32,
    /// f64 in, f64 compute.
    F64,
    /// f16 in, f32 compute.
    F16,
    /// bf16 in, f32 compute.
    Bf16,
}

/// One argument of a kernel launch, in the order of the kernel's parameters.
pub enum Arg<'a> {
    /// An element count (`u64` in the kernel), or a null pointer as 0.
    U64(u64),
    /// A rank (`int`).
    I32(i32),
    /// A signed offset in elements (`i64`).
    I64(i64),
    /// A float parameter (`double`).
    F64(f64),
    /// A device pointer.
    Buf(&'a Buffer),
}

use crate::device::{DeviceIndex, DeviceKind, RawDevice, sealed};
use crate::dtype::Element;
use crate::error::{Error, Result};
use std::marker::PhantomData;
use std::sync::Arc;

fn device_error(ordinal: usize, why: &str) -> Error {
    Error::Device {
        op: "Cuda::new",
        msg: format!("cannot open cuda:{ordinal}: {why}"),
    }
}

/// An NVIDIA GPU, selected by ordinal. Cloning shares the device's context and stream.
#[derive(Clone)]
pub struct Cuda {
    ordinal: usize,
    pub(crate) ctx: Arc<Context>,
}

impl Cuda {
    /// Opens CUDA device `ordinal` (its primary context and one stream, cached per ordinal).
    ///
    /// # Errors
    /// `Error::Device` when no CUDA driver can be loaded ("no CUDA driver found"), when the
    /// ordinal is out of range ("device 3 not present; 1 device available"), when the driver
    /// fails, or when this build lacks the `cuda` feature.
    pub fn new(ordinal: usize) -> Result<Self> {
        Ok(Cuda {
            ordinal,
            ctx: driver::open(ordinal)?,
        })
    }
    /// The number of CUDA devices; 0 when no driver can be loaded.
    pub fn device_count() -> usize {
        driver::device_count()
    }
    /// The ordinal of this device.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }
    /// The device's name, as the driver reports it (e.g. "NVIDIA H100 80GB HBM3").
    pub fn name(&self) -> String {
        self.ctx.name()
    }
    /// Blocks until every operation queued on this device has finished. CUDA ops return as
    /// soon as their kernels are queued; copies to the host wait by themselves, so this is
    /// only needed for timing.
    ///
    /// # Errors
    /// `Device` when an earlier kernel failed asynchronously.
    pub fn synchronize(&self) -> Result<()> {
        self.ctx.synchronize()
    }
}

impl std::fmt::Debug for Cuda {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Cuda({})", self.ordinal)
    }
}

impl PartialEq for Cuda {
    fn eq(&self, other: &Self) -> bool {
        self.ordinal == other.ordinal
    }
}
impl Eq for Cuda {}

/// Device memory holding `len` elements of `T`: a shared byte buffer (so the launcher is not
/// generic), at least one byte long. Cloning shares the memory, as views do on the CPU.
pub struct CudaStorage<T: Element> {
    pub(crate) buf: Arc<Buffer>,
    pub(crate) len: usize,
    _t: PhantomData<T>,
}

impl<T: Element> CudaStorage<T> {
    pub(crate) fn new(buf: Buffer, len: usize) -> Self {
        CudaStorage {
            buf: Arc::new(buf),
            len,
            _t: PhantomData,
        }
    }
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// True when the buffer holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<T: Element> Clone for CudaStorage<T> {
    fn clone(&self) -> Self {
        CudaStorage {
            buf: self.buf.clone(),
            len: self.len,
            _t: PhantomData,
        }
    }
}

impl sealed::Sealed for Cuda {}

impl RawDevice for Cuda {
    type Storage<T: Element> = CudaStorage<T>;
    const KIND: DeviceKind = DeviceKind::Cuda;
    fn index(&self) -> DeviceIndex {
        DeviceIndex::cuda(self.ordinal)
    }
    fn zeros<T: Element>(&self, len: usize) -> Result<CudaStorage<T>> {
        let bytes = len.checked_mul(T::SIZE).ok_or(Error::ShapeOverflow {
            op: "alloc",
            dims: vec![len],
        })?;
        Ok(CudaStorage::new(self.ctx.alloc_zeros(bytes)?, len))
    }
    fn allocated_bytes<T: Element>(s: &CudaStorage<T>) -> usize {
        s.buf.num_bytes()
    }
    fn same_storage<T: Element>(a: &CudaStorage<T>, b: &CudaStorage<T>) -> bool {
        Arc::ptr_eq(&a.buf, &b.buf)
    }
    fn is_unique<T: Element>(s: &CudaStorage<T>) -> bool {
        Arc::strong_count(&s.buf) == 1 && Arc::weak_count(&s.buf) == 0
    }
    fn storage_id<T: Element>(s: &CudaStorage<T>) -> usize {
        Arc::as_ptr(&s.buf) as *const u8 as usize
    }
    fn upload<T: Element>(&self, data: &[T]) -> Result<CudaStorage<T>> {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        Ok(CudaStorage::new(self.ctx.upload(bytes)?, data.len()))
    }
    fn download<T: Element>(&self, s: &CudaStorage<T>) -> Result<Vec<T>> {
        download_range(&self.ctx, s, 0, s.len)
    }
}

/// Elements `start..start + len` of `s`, copied to the host.
pub(crate) fn download_range<T: Element>(
    ctx: &Context,
    s: &CudaStorage<T>,
    start: usize,
    len: usize,
) -> Result<Vec<T>> {
    elements_from_bytes(&ctx.download(&s.buf, start * T::SIZE, len * T::SIZE)?)
}

/// The `T`s whose bytes a device returned. Every bit pattern is a valid number, but a bool must
/// be 0 or 1: a device byte outside that (a kernel bug, or memory no kernel wrote) is an `Err`
/// here rather than an invalid `bool` in safe code.
fn elements_from_bytes<T: Element>(bytes: &[u8]) -> Result<Vec<T>> {
    if const { matches!(T::DTYPE, crate::dtype::Dtype::Bool) }
        && let Some(i) = bytes.iter().position(|&b| b > 1)
    {
        return Err(crate::error::Error::Device {
            op: "download",
            msg: format!(
                "bool element {i} holds the byte {}, not 0 or 1: a device kernel wrote an invalid bool or left it unwritten",
                bytes[i]
            ),
        });
    }
    let mut out = vec![T::ZERO; bytes.len() / T::SIZE];
    // SAFETY: `out` holds `out.len() * T::SIZE <= bytes.len()` bytes,
    // and they form valid `T`s: any bits are a valid number, and bools were checked above.
    unsafe {
        std::ptr::copy_nonoverlapping(
            bytes.as_ptr(),
            out.as_mut_ptr() as *mut u8,
            out.len() * T::SIZE,
        )
    };
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::elements_from_bytes;

    #[test]
    fn downloaded_bools_are_checked() {
        assert_eq!(
            elements_from_bytes::<bool>(&[0, 1, 1]).unwrap(),
            vec![false, true, true]
        );
        let e = elements_from_bytes::<bool>(&[0, 1, 255])
            .unwrap_err()
            .to_string();
        assert!(e.contains("element 2") && e.contains("255"), "{e}");
        let f = elements_from_bytes::<f32>(&1.5f32.to_ne_bytes()).unwrap();
        assert_eq!(f, vec![1.5]);
    }
}
