//! The CUDA kernels behind `Backend for Cuda` (`crate::backend::cuda`): copies, casts, unary
//! and binary element-wise ops with broadcasting, and comparisons; `reduce.rs` adds the
//! reductions, `index.rs` where/copies/index_select/gather/scatter_add and the generators,
//! `matmul.rs` the matrix product, `scan.rs` cumsum and cumprod, `sort.rs` argsort, `rows.rs`
//! the fused softmax, logsumexp and layer norm over rows.
//! Each launches a kernel from [`table`], looked up by the op's root and `T`'s suffix, so an op
//! exists on CUDA for exactly the dtypes its CPU form accepts. Results match the CPU's within
//! float tolerance (sums are reordered), and integer division by zero is the CPU's `Err`.

mod index;
mod matmul;
mod optim;
mod reduce;
mod rows;
mod scan;
mod sort;
pub mod table;

pub use sort::SORT_MAX;

use crate::backend::cuda::device::Arg;
use crate::backend::cuda::device::download_range;
use crate::device::{Cuda, CudaStorage, RawDevice};
use crate::dtype::{Element, FloatOf, NumElement};
use crate::error::{Error, Result};
use crate::ops::binary::BinaryOp;
use crate::ops::compare::CompareOp;
use crate::ops::device_ops::same_device;
use crate::ops::unary::{FloatUnaryOp, SameUnaryOp};
use crate::shape::{Layout, broadcast_shapes};
use crate::tensor::Tensor;
use table::{Module, symbol};

const THREADS: u32 = 256;

/// Uninitialised device memory for `n` elements of an output that a kernel writes in full.
fn empty<O: Element>(dev: &Cuda, n: usize) -> Result<CudaStorage<O>> {
    let bytes = n.checked_mul(O::SIZE).ok_or(Error::ShapeOverflow {
        op: "alloc",
        dims: vec![n],
    })?;
    Ok(CudaStorage::new(dev.ctx.alloc(bytes)?, n))
}

/// Blocks for a grid-stride loop over `n` items.
fn blocks(n: usize) -> u32 {
    n.div_ceil(THREADS as usize).clamp(1, 1 << 16) as u32
}

/// The grid items of an element-wise kernel over `n` elements of `T`: one per 16-byte pack
/// (`map1`/`map2` in `kernels/prelude.cuh`), so no block is left without work.
fn packs<T: Element>(n: usize) -> usize {
    n.div_ceil((16 / T::SIZE).max(1))
}

/// The CUDA kernels behind the element-wise `Backend` steps.
impl<T: Element> Tensor<T, Cuda> {
    /// The elements in row-major order, copied to the host (only the viewed range travels).
    pub(crate) fn cuda_to_vec(&self) -> Result<Vec<T>> {
        let c = if self.is_contiguous() {
            self.clone()
        } else {
            self.cuda_deep_copy()?
        };
        download_range(&c.device.ctx, &c.storage, c.layout.offset, c.numel())
    }

    /// An independent contiguous copy: a device-to-device memcpy when contiguous, the `copy`
    /// kernel otherwise.
    pub(crate) fn cuda_deep_copy(&self) -> Result<Self> {
        if !self.is_contiguous() {
            return self.map_kernel(Module::Cast, symbol::<T>("copy"));
        }
        let buf = self.device.ctx.copy(
            &self.storage.buf,
            self.layout.offset * T::SIZE,
            self.numel() * T::SIZE,
        )?;
        Ok(Self::from_storage(
            CudaStorage::new(buf, self.numel()),
            self.shape().clone(),
            &self.device,
        ))
    }

    /// Every element converted to `U` with Rust `as` semantics.
    pub(crate) fn cuda_cast<U: Element>(&self) -> Result<Tensor<U, Cuda>> {
        let root = table::cast_root(T::DTYPE);
        self.map_kernel(Module::Cast, symbol::<U>(&root))
    }

    /// A float-valued unary op (`sin`, `exp`, ...): integers promote to [`FloatOf<T>`], 16-bit
    /// floats compute in f32.
    pub(crate) fn cuda_float_unary<Op: FloatUnaryOp>(&self) -> Result<Tensor<FloatOf<T>, Cuda>> {
        let per_thread = if table::capped(Op::NAME, T::DTYPE) {
            4
        } else {
            1
        };
        self.map_kernel_with(Module::Unary, symbol::<T>(Op::NAME), per_thread)
    }

    /// A comparison with broadcasting (a BINARY kernel with a bool output).
    pub(crate) fn cuda_compare<Op: CompareOp>(&self, other: &Self) -> Result<Tensor<bool, Cuda>> {
        self.zip_kernel::<bool>(other, Op::NAME)
    }

    /// Launches a `(n, ndim, info, offset, in, out)` kernel into a new contiguous tensor.
    fn map_kernel<O: Element>(&self, module: Module, sym: String) -> Result<Tensor<O, Cuda>> {
        self.map_kernel_with(module, sym, 1)
    }

    /// [`Tensor::map_kernel`] with a grid of `per_thread` packs a thread.
    fn map_kernel_with<O: Element>(
        &self,
        module: Module,
        sym: String,
        per_thread: usize,
    ) -> Result<Tensor<O, Cuda>> {
        let n = self.numel();
        let out: CudaStorage<O> = empty(&self.device, n)?;
        if n > 0 {
            let info = Info::new(&self.device, &[&self.layout])?;
            launch(
                &self.device,
                module,
                &sym,
                packs::<T>(n).div_ceil(per_thread),
                &[
                    Arg::U64(n as u64),
                    Arg::I32(info.ndim),
                    info.arg(),
                    Arg::I64(self.layout.offset as i64),
                    Arg::Buf(&self.storage.buf),
                    Arg::Buf(&out.buf),
                ],
            )?;
        }
        Ok(Tensor::from_storage(
            out,
            self.shape().clone(),
            &self.device,
        ))
    }
}

impl<T: NumElement> Tensor<T, Cuda> {
    /// A type-keeping unary op (`neg`, `abs`, `floor`, ...); integers wrap as on the CPU.
    pub(crate) fn cuda_same_unary<Op: SameUnaryOp>(&self) -> Result<Self> {
        self.map_kernel(Module::Unary, symbol::<T>(Op::NAME))
    }

    /// Element-wise `Op(self, other)` with NumPy broadcasting; `DivisionByZero` when an
    /// integer divisor is zero (or an integer `pow` exponent is negative), detected by the
    /// kernel, as on the CPU.
    pub(crate) fn cuda_binary<Op: BinaryOp>(&self, other: &Self) -> Result<Self> {
        self.zip_kernel::<T>(other, Op::NAME)
    }
}

impl<T: Element> Tensor<T, Cuda> {
    /// Launches a BINARY kernel `root` over the broadcast shape; checks the kernel's flag.
    fn zip_kernel<O: Element>(&self, other: &Self, root: &'static str) -> Result<Tensor<O, Cuda>> {
        same_device(root, self, other)?;
        let shape = broadcast_shapes(root, self.shape(), other.shape())?;
        let out: CudaStorage<O> = empty(&self.device, shape.numel())?;
        self.zip_launch(other, root, &shape, &out)?;
        Ok(Tensor::from_storage(out, shape, &self.device))
    }

    /// `out = Op(self, other)` written straight into `out`'s buffer, when that is safe: a float
    /// dtype (integer division's flag must be read before anything is written), `out` packed
    /// from its buffer's start in the broadcast shape, and each operand either in another
    /// buffer or exactly `out`'s elements (each element is read before it is written, by the
    /// same thread). Returns `false`, having done nothing, otherwise: the caller computes a new
    /// tensor and copies it (the in-place ops of an optimizer step were two passes each).
    pub(crate) fn cuda_binary_direct<Op: BinaryOp>(
        &self,
        other: &Self,
        out: &mut Self,
    ) -> Result<bool> {
        same_device(Op::NAME, self, other)?;
        same_device(Op::NAME, self, out)?;
        let shape = broadcast_shapes(Op::NAME, self.shape(), other.shape())?;
        let packed = |t: &Self| t.layout.is_contiguous() && t.layout.offset == 0;
        let apart = |t: &Self| {
            !std::sync::Arc::ptr_eq(&t.storage.buf, &out.storage.buf)
                || (packed(t) && t.shape() == out.shape())
        };
        if !T::DTYPE.is_float() || shape != *out.shape() || !packed(out) {
            return Ok(false);
        }
        if !apart(self) || !apart(other) {
            return Ok(false);
        }
        out.check_writable(Op::NAME)?;
        self.zip_launch(other, Op::NAME, &shape, &out.storage)?;
        Ok(true)
    }

    /// The launch of [`Tensor::zip_kernel`] into `out` (`shape.numel()` elements).
    fn zip_launch<O: Element>(
        &self,
        other: &Self,
        root: &'static str,
        shape: &crate::shape::Shape,
        out: &CudaStorage<O>,
    ) -> Result<()> {
        let la = self.layout.broadcast_to(root, shape)?;
        let lb = other.layout.broadcast_to(root, shape)?;
        let n = shape.numel();
        let dev = &self.device;
        if n > 0 {
            // Only integer division and pow write the flag; floats pass a null pointer.
            let int = !T::DTYPE.is_float() && O::DTYPE == T::DTYPE;
            let flag: Option<CudaStorage<i32>> = if int { Some(dev.zeros(1)?) } else { None };
            let info = Info::pair(dev, &la, &lb)?;
            let sym = symbol::<T>(root);
            launch(
                dev,
                Module::Binary,
                &sym,
                packs::<T>(n),
                &[
                    Arg::U64(n as u64),
                    Arg::I32(info.ndim),
                    info.arg(),
                    Arg::I64(la.offset as i64),
                    Arg::Buf(&self.storage.buf),
                    Arg::I64(lb.offset as i64),
                    Arg::Buf(&other.storage.buf),
                    Arg::Buf(&out.buf),
                    flag.as_ref().map_or(Arg::U64(0), |f| Arg::Buf(&f.buf)),
                ],
            )?;
            let divided_by_zero = match &flag {
                Some(f) => dev.download(f)?[0] != 0,
                None => false,
            };
            if divided_by_zero {
                return Err(Error::DivisionByZero {
                    op: root,
                    dtype: T::DTYPE,
                });
            }
        }
        Ok(())
    }
}

/// The dims and strides of a launch's inputs, uploaded once (none when all are contiguous, so
/// the kernel takes its `ndim == 0` fast path).
struct Info {
    ndim: i32,
    buf: Option<CudaStorage<i64>>,
}

impl Info {
    /// The kernel's `info` argument: the uploaded buffer, or a null pointer.
    fn arg(&self) -> Arg<'_> {
        match &self.buf {
            Some(b) => Arg::Buf(&b.buf),
            None => Arg::U64(0),
        }
    }
    fn none() -> Self {
        Info { ndim: 0, buf: None }
    }
    /// As [`Info::new`] for the two operands of `map2`, which also takes a contiguous operand
    /// beside one element broadcast without `info` (`ndim` -1 when that is `b`, -2 when `a`).
    fn pair(dev: &Cuda, a: &Layout, b: &Layout) -> Result<Self> {
        let ndim = match (a.is_contiguous(), b.is_contiguous()) {
            (true, false) if one_element(b) => -1,
            (false, true) if one_element(a) => -2,
            _ => return Info::new(dev, &[a, b]),
        };
        Ok(Info { ndim, buf: None })
    }
    /// `COPY_TO`'s fill of a contiguous destination from one element (`ndim` -1).
    fn fill() -> Self {
        Info {
            ndim: -1,
            buf: None,
        }
    }
    fn new(dev: &Cuda, layouts: &[&Layout]) -> Result<Self> {
        if layouts.iter().all(|l| l.is_contiguous()) {
            return Ok(Info::none());
        }
        let dims = layouts[0].shape.dims();
        let mut v: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        for l in layouts {
            v.extend(l.strides.iter().map(|&s| s as i64));
        }
        Ok(Info {
            ndim: dims.len() as i32,
            buf: Some(dev.upload(&v)?),
        })
    }
}

/// Whether a (broadcast) layout reads one element: every dimension of size 1 or stride 0.
fn one_element(l: &Layout) -> bool {
    (l.strides.iter().zip(l.shape.dims())).all(|(&s, &d)| s == 0 || d == 1)
}

/// Launches `sym` from `module` over `n` grid-stride items.
fn launch(dev: &Cuda, module: Module, sym: &str, n: usize, args: &[Arg<'_>]) -> Result<()> {
    dev.ctx
        .launch(module.kernels(), sym, (blocks(n), THREADS), args)
}
