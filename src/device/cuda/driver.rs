//! The cudarc side: contexts, buffers, NVRTC compilation with a per-device module cache, and
//! one non-generic launcher.

use super::{Arg, KernelModule};
use crate::error::{Error, Result};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, LaunchConfig, PushKernelArg,
};
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
    modules: Mutex<HashMap<&'static str, Arc<CudaModule>>>,
}

fn driver_err(op: &'static str, what: impl std::fmt::Display) -> Error {
    Error::Device {
        op,
        msg: what.to_string(),
    }
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
    let c = Arc::new(Context {
        stream: ctx.default_stream(),
        ctx,
        arch: format!("compute_{major}{minor}"),
        modules: Mutex::new(HashMap::new()),
    });
    cache.push((ordinal, c.clone()));
    Ok(c)
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

    /// A device copy of `bytes`.
    pub fn upload(&self, bytes: &[u8]) -> Result<Buffer> {
        if bytes.is_empty() {
            return self.alloc_zeros(0);
        }
        self.stream
            .clone_htod(bytes)
            .map_err(|e| driver_err("upload", e))
    }

    /// The whole buffer, copied to the host (waits for queued work).
    pub fn download(&self, buf: &Buffer) -> Result<Vec<u8>> {
        self.stream
            .clone_dtoh(buf)
            .map_err(|e| driver_err("download", e))
    }

    fn function(&self, module: KernelModule, symbol: &str) -> Result<CudaFunction> {
        let m = {
            let mut cache = self.modules.lock().unwrap_or_else(|e| e.into_inner());
            match cache.get(module.name) {
                Some(m) => m.clone(),
                None => {
                    let ptx = compile(module.name, &(module.source)(), &self.arch)?;
                    let m = self
                        .ctx
                        .load_module(ptx)
                        .map_err(|e| driver_err("load_module", format!("{}: {e}", module.name)))?;
                    cache.insert(module.name, m.clone());
                    m
                }
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
}
