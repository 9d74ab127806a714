//! The cudarc side: contexts, buffers, NVRTC compilation with a per-device module cache, and
//! one non-generic launcher.

use super::{Arg, GemmDtype, KernelModule};
use crate::error::{Error, Result};
use cudarc::cublas::{CudaBlas, sys as blas};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, LaunchConfig, PushKernelArg,
};
use cudarc::driver::{DevicePtr, DevicePtrMut};
use cudarc::nvrtc::{CompileError, CompileOptions, Ptx};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// A device buffer of bytes (at least one byte: CUDA has no empty allocation).
pub type Buffer = CudaSlice<u8>;

/// One device's context, its stream, and the modules compiled for it.
pub struct Context {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    arch: String,
    /// The compiled kernels, by (module name, symbol); see [`KernelModule`].
    modules: Mutex<HashMap<(&'static str, String), Arc<CudaModule>>>,
    blas: Mutex<Option<Arc<CudaBlas>>>,
    counters: Mutex<Option<Arc<Buffer>>>,
}

fn driver_err(op: &'static str, what: impl std::fmt::Display) -> Error {
    Error::Device {
        op,
        msg: what.to_string(),
    }
}

/// Whether `TYPED_TENSOR_CUDA_POISON` asks for poisoned allocations (read once).
fn poison() -> bool {
    static POISON: OnceLock<bool> = OnceLock::new();
    *POISON.get_or_init(|| std::env::var("TYPED_TENSOR_CUDA_POISON").is_ok_and(|v| v != "0"))
}

fn driver_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: only tries to dlopen libcuda; cudarc would panic on a later call without it.
    *PRESENT.get_or_init(|| unsafe { cudarc::driver::sys::is_culib_present() })
}

/// The number of devices; 0 without a driver.
pub fn device_count() -> usize {
    if !driver_present() {
        return 0;
    }
    CudaContext::device_count().map_or(0, |n| n.max(0) as usize)
}

/// The cached context of `ordinal`, opened on first use.
pub fn open(ordinal: usize) -> Result<Arc<Context>> {
    static CONTEXTS: Mutex<Vec<(usize, Arc<Context>)>> = Mutex::new(Vec::new());
    let mut cache = CONTEXTS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, c)) = cache.iter().find(|(o, _)| *o == ordinal) {
        return Ok(c.clone());
    }
    if !driver_present() {
        return Err(super::device_error(
            ordinal,
            "no CUDA driver found (libcuda could not be loaded); use Cpu on this machine",
        ));
    }
    let count = device_count();
    if ordinal >= count {
        let s = if count == 1 { "" } else { "s" };
        return Err(super::device_error(
            ordinal,
            &format!("device {ordinal} not present; {count} device{s} available"),
        ));
    }
    let ctx = CudaContext::new(ordinal).map_err(|e| driver_err("Cuda::new", e))?;
    let (major, minor) = ctx
        .compute_capability()
        .map_err(|e| driver_err("Cuda::new", e))?;
    keep_freed_memory(&ctx);
    // SAFETY: every buffer of this context is used on its one stream, in order, so cudarc's
    // per-buffer events (two per allocation, recorded at every launch) only cost time.
    unsafe { ctx.disable_event_tracking() };
    let c = Arc::new(Context {
        stream: ctx.default_stream(),
        ctx,
        arch: format!("compute_{major}{minor}"),
        modules: Mutex::new(HashMap::new()),
        blas: Mutex::new(None),
        counters: Mutex::new(None),
    });
    cache.push((ordinal, c.clone()));
    Ok(c)
}

/// Raises the release threshold of the device's default memory pool (behind cudarc's
/// `cuMemAllocAsync`) from 0, which returns freed memory to the driver at every synchronize
/// and makes the next large allocation map pages again, to unlimited: freed blocks stay cached
/// for reuse, as in PyTorch's caching allocator. Best effort: a driver without pools keeps
/// its default.
fn keep_freed_memory(ctx: &CudaContext) {
    use cudarc::driver::sys;
    let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
    let mut threshold = u64::MAX;
    // SAFETY: `pool` and `threshold` outlive the calls; the attribute takes a u64.
    unsafe {
        if sys::cuDeviceGetDefaultMemPool(&mut pool, ctx.cu_device()) == sys::CUresult::CUDA_SUCCESS
        {
            sys::cuMemPoolSetAttribute(
                pool,
                sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                &mut threshold as *mut u64 as *mut std::ffi::c_void,
            );
        }
    }
}

/// Compiles `source` with NVRTC for `arch` (e.g. `compute_80`) and returns the PTX text.
///
/// # Errors
/// `Error::Device` when the NVRTC library cannot be loaded (it says how to install it), or the
/// compiler's log when the source does not compile.
pub fn compile_ptx(name: &str, source: &str, arch: &str) -> Result<String> {
    compile(name, source, arch).map(|p| p.to_src())
}

fn compile(name: &str, source: &str, arch: &str) -> Result<Ptx> {
    // SAFETY: only tries to dlopen libnvrtc; cudarc panics on a compile without it.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err(driver_err(
            "nvrtc",
            format!(
                "cannot compile {name}: the NVRTC library (libnvrtc.so.13) was not found; \
                 `pip install nvidia-cuda-nvrtc==13.0.88` and put its lib folder on LD_LIBRARY_PATH"
            ),
        ));
    }
    let opts = CompileOptions {
        // 186: "pointless comparison of unsigned integer with zero", from templates that
        // serve signed and unsigned types alike.
        options: vec![
            format!("--gpu-architecture={arch}"),
            "--std=c++17".into(),
            "--diag-suppress=186".into(),
        ],
        name: Some(name.into()),
        ..Default::default()
    };
    cudarc::nvrtc::compile_ptx_with_opts(source, opts).map_err(|e| {
        let detail = match &e {
            CompileError::CompileError { log, .. } => log.to_string_lossy().into_owned(),
            other => format!("{other:?}"),
        };
        driver_err(
            "nvrtc",
            format!("NVRTC failed on {name} for {arch}:\n{detail}"),
        )
    })
}

impl Context {
    /// The device's name.
    pub fn name(&self) -> String {
        self.ctx.name().unwrap_or_else(|e| format!("unknown ({e})"))
    }

    /// `bytes` zero bytes (at least one is allocated).
    pub fn alloc_zeros(&self, bytes: usize) -> Result<Buffer> {
        self.stream
            .alloc_zeros::<u8>(bytes.max(1))
            .map_err(|e| driver_err("alloc", format!("{bytes} bytes on the GPU: {e}")))
    }

    /// `bytes` uninitialised bytes (at least one), for outputs that a kernel writes in full.
    /// With `TYPED_TENSOR_CUDA_POISON=1` in the environment every such buffer is first filled
    /// with 0xFF bytes (NaN floats, -1 or 255 integers, invalid bools), so an element a kernel
    /// fails to write shows in any test that compares it, and a bool fails its download check.
    pub fn alloc(&self, bytes: usize) -> Result<Buffer> {
        // SAFETY: callers launch a kernel that writes every element before any read; an
        // element left unwritten is arbitrary bytes, which the download checks for bools.
        let mut buf = unsafe { self.stream.alloc::<u8>(bytes.max(1)) }
            .map_err(|e| driver_err("alloc", format!("{bytes} bytes on the GPU: {e}")))?;
        if poison() {
            let (ptr, _record) = buf.device_ptr_mut(&self.stream);
            // SAFETY: `ptr` addresses the `bytes.max(1)` bytes just allocated on this stream.
            unsafe {
                cudarc::driver::result::memset_d8_async(
                    ptr,
                    0xFF,
                    bytes.max(1),
                    self.stream.cu_stream(),
                )
            }
            .map_err(|e| driver_err("alloc", format!("poisoning {bytes} bytes: {e}")))?;
        }
        Ok(buf)
    }

    /// [`super::COUNTERS`] zeroed `u32` counters, allocated once per device. A kernel that counts
    /// finished blocks in them (the split reductions) sets each one back to 0 when done; the
    /// device's single stream keeps launches from overlapping, so no memset is needed per call.
    pub fn counters(&self) -> Result<Arc<Buffer>> {
        let mut c = self.counters.lock().unwrap_or_else(|e| e.into_inner());
        if c.is_none() {
            *c = Some(Arc::new(self.alloc_zeros(super::COUNTERS * 4)?));
        }
        Ok(c.clone().expect("set above"))
    }

    /// A new buffer holding bytes `start..start + bytes` of `src` (a device-to-device copy).
    pub fn copy(&self, src: &Buffer, start: usize, bytes: usize) -> Result<Buffer> {
        let mut dst = self.alloc(bytes)?;
        if bytes > 0 {
            self.stream
                .memcpy_dtod(
                    &src.slice(start..start + bytes),
                    &mut dst.slice_mut(0..bytes),
                )
                .map_err(|e| driver_err("copy", e))?;
        }
        Ok(dst)
    }

    /// Waits until all queued work on this device's stream has finished.
    pub fn synchronize(&self) -> Result<()> {
        self.stream
            .synchronize()
            .map_err(|e| driver_err("synchronize", e))
    }

    /// A device copy of `bytes`.
    pub fn upload(&self, bytes: &[u8]) -> Result<Buffer> {
        if bytes.is_empty() {
            return self.alloc_zeros(0);
        }
        self.stream
            .clone_htod(bytes)
            .map_err(|e| driver_err("upload", e))
    }

    /// Bytes `start..start + bytes` of `buf`, copied to the host (waits for queued work).
    pub fn download(&self, buf: &Buffer, start: usize, bytes: usize) -> Result<Vec<u8>> {
        if bytes == 0 {
            return Ok(Vec::new());
        }
        self.stream
            .clone_dtoh(&buf.slice(start..start + bytes))
            .map_err(|e| driver_err("download", e))
    }

    fn function(&self, module: KernelModule, symbol: &str) -> Result<CudaFunction> {
        let key = (module.name, symbol.to_string());
        let cached = {
            let cache = self.modules.lock().unwrap_or_else(|e| e.into_inner());
            cache.get(&key).cloned()
        };
        let m = match cached {
            Some(m) => m,
            None => {
                // Compiled without the lock, so other kernels compile meanwhile; two threads
                // racing for one kernel both compile it, and the first insertion is kept.
                let name = format!("{}:{symbol}", module.name);
                let ptx = compile(&name, &(module.source)(symbol), &self.arch)?;
                let m = self
                    .ctx
                    .load_module(ptx)
                    .map_err(|e| driver_err("load_module", format!("{name}: {e}")))?;
                let mut cache = self.modules.lock().unwrap_or_else(|e| e.into_inner());
                cache.entry(key).or_insert(m).clone()
            }
        };
        m.load_function(symbol).map_err(|e| {
            driver_err(
                "launch",
                format!("kernel {symbol} not found in {}: {e}", module.name),
            )
        })
    }

    /// Launches `symbol` from `module` over `blocks` blocks of `threads` threads.
    ///
    /// # Errors
    /// Compilation, lookup or launch failures, naming the kernel (whose suffix is the dtype).
    pub fn launch(
        &self,
        module: KernelModule,
        symbol: &str,
        (blocks, threads): (u32, u32),
        args: &[Arg<'_>],
    ) -> Result<()> {
        let f = self.function(module, symbol)?;
        let mut b = self.stream.launch_builder(&f);
        for a in args {
            match a {
                Arg::U64(v) => b.arg(v),
                Arg::I32(v) => b.arg(v),
                Arg::I64(v) => b.arg(v),
                Arg::F64(v) => b.arg(v),
                Arg::Buf(v) => b.arg(*v),
            };
        }
        let cfg = LaunchConfig {
            grid_dim: (blocks.max(1), 1, 1),
            block_dim: (threads, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: the kernel table builds each kernel's parameter list and the callers in
        // `ops::cuda` pass arguments in that order, with buffers sized for the launch.
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(|e| driver_err("launch", format!("kernel {symbol}: {e}")))
    }

    /// The cuBLAS handle on this context's stream, created on first use.
    fn blas(&self) -> Result<Arc<CudaBlas>> {
        let mut b = self.blas.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(h) = b.as_ref() {
            return Ok(h.clone());
        }
        // SAFETY: only tries to dlopen libcublas; cudarc panics on a call without it.
        if !unsafe { blas::is_culib_present() } {
            return Err(driver_err(
                "matmul",
                "the cuBLAS library (libcublas.so.13) was not found; install the CUDA toolkit's \
                 cuBLAS or the nvidia-cublas wheel and put it on LD_LIBRARY_PATH",
            ));
        }
        let h = Arc::new(CudaBlas::new(self.stream.clone()).map_err(|e| driver_err("matmul", e))?);
        *b = Some(h.clone());
        Ok(h)
    }

    /// `batch` row-major products `c[i] = a[i] · b[i]` of `(m, k)` and `(k, n)` contiguous
    /// matrices through `cublasGemmStridedBatchedEx`; `a_off`/`b_off` are element offsets.
    /// f16 and bf16 accumulate in f32. Row-major C is column-major Cᵀ = Bᵀ·Aᵀ, so the
    /// operands are passed swapped.
    #[allow(clippy::too_many_arguments)]
    pub fn gemm(
        &self,
        dt: GemmDtype,
        (batch, m, n, k): (usize, usize, usize, usize),
        (a, a_off, a_t): (&Buffer, usize, bool),
        (b, b_off, b_t): (&Buffer, usize, bool),
        c: &Buffer,
    ) -> Result<()> {
        use blas::cublasComputeType_t::{CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_64F};
        use blas::cudaDataType_t::{CUDA_R_16BF, CUDA_R_16F, CUDA_R_32F, CUDA_R_64F};
        let too_big = |x: usize| {
            i32::try_from(x).map_err(|_| {
                driver_err(
                    "matmul",
                    format!("dimension {x} exceeds cuBLAS's i32 range"),
                )
            })
        };
        let (bi, mi, ni, ki) = (too_big(batch)?, too_big(m)?, too_big(n)?, too_big(k)?);
        let (ty, compute, size) = match dt {
            GemmDtype::F32 => (CUDA_R_32F, CUBLAS_COMPUTE_32F, 4),
            GemmDtype::F64 => (CUDA_R_64F, CUBLAS_COMPUTE_64F, 8),
            GemmDtype::F16 => (CUDA_R_16F, CUBLAS_COMPUTE_32F, 2),
            GemmDtype::Bf16 => (CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2),
        };
        let h = self.blas()?;
        let (one32, zero32, one64, zero64) = (1f32, 0f32, 1f64, 0f64);
        let (alpha, beta) = if matches!(dt, GemmDtype::F64) {
            (
                &one64 as *const f64 as *const _,
                &zero64 as *const f64 as *const _,
            )
        } else {
            (
                &one32 as *const f32 as *const _,
                &zero32 as *const f32 as *const _,
            )
        };
        let (pa, _ra) = a.device_ptr(&self.stream);
        let (pb, _rb) = b.device_ptr(&self.stream);
        let (pc, _rc) = c.device_ptr(&self.stream);
        let (pa, pb) = (pa + (a_off * size) as u64, pb + (b_off * size) as u64);
        // Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ. A packed row-major B is a column-major
        // Bᵀ (leading dimension n); a packed transposed one (`b_t`: Bᵀ row-major) is a
        // column-major B (leading dimension k), which cuBLAS transposes. Likewise for A.
        let op = |t: bool| {
            if t {
                blas::cublasOperation_t::CUBLAS_OP_T
            } else {
                blas::cublasOperation_t::CUBLAS_OP_N
            }
        };
        let (ldb, lda) = (if b_t { ki } else { ni }, if a_t { mi } else { ki });
        // SAFETY: the caller sized a, b and c for `batch` packed matrices of these shapes
        // (transposed where flagged) after the offsets; alpha and beta live until the call
        // returns.
        unsafe {
            cudarc::cublas::result::gemm_strided_batched_ex(
                *h.handle(),
                op(b_t),
                op(a_t),
                ni,
                mi,
                ki,
                alpha,
                pb as *const _,
                ty,
                ldb,
                (k * n) as i64,
                pa as *const _,
                ty,
                lda,
                (m * k) as i64,
                beta,
                pc as *mut _,
                ty,
                ni,
                (m * n) as i64,
                bi,
                compute,
                blas::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
            )
        }
        .map_err(|e| {
            driver_err(
                "matmul",
                format!("cublasGemmStridedBatchedEx ({dt:?}): {e:?}"),
            )
        })
    }
}
