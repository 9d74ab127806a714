//! The typed API on `Tensor<T, Cuda>`: transfers, `contiguous`, casts, unary and binary
//! element-wise ops with broadcasting, and comparisons; `reduce.rs` adds the reductions,
//! `index.rs` the `DeviceOps` steps and the generators, `matmul.rs` the matrix product,
//! `scan.rs` cumsum and cumprod, `sort.rs` sort and argsort, `compose.rs` the ops built from
//! others, and `host.rs` the few that run on the host.
//! Each launches a kernel from [`table`], looked up by the op's root and `T`'s suffix, so an op
//! exists on CUDA for exactly the dtypes its CPU form accepts. Every CUDA op returns `Result`
//! (allocation, compilation and launch can fail); results match the CPU's within float
//! tolerance (sums are reordered), and integer division by zero is the CPU's `Err`.

mod compose;
mod host;
mod index;
mod matmul;
mod reduce;
mod scan;
mod sort;
pub mod table;

pub use sort::SORT_MAX;

use super::binary::BinaryOp;
use super::unary::{FloatUnaryOp, SameUnaryOp};
use crate::device::cuda::Arg;
use crate::device::cuda::download_range;
use crate::device::{Cpu, Cuda, CudaStorage, Device};
use crate::dtype::{Element, FloatElement, FloatOf, NumElement};
use crate::error::{Error, Result};
use crate::ops::device_ops::same_device;
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

impl<T: Element> Tensor<T, Cuda> {
    /// A host copy (device-to-host; a strided view is packed on the device first).
    pub fn to_cpu(&self) -> Result<Tensor<T, Cpu>> {
        Tensor::<T, Cpu>::from_vec(self.to_vec()?, self.shape().clone())
    }

    /// The elements in row-major order, copied to the host (only the viewed range travels).
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let c = self.contiguous()?;
        download_range(&c.device.ctx, &c.storage, c.layout.offset, c.numel())
    }

    /// An independent contiguous copy on the same device (PyTorch `clone()`; `Clone` shares
    /// storage): a device-to-device memcpy when contiguous, the `copy` kernel otherwise.
    pub fn deep_copy(&self) -> Result<Self> {
        if !self.is_contiguous() {
            return self.contiguous();
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

    /// On device `device`: the same tensor (shared storage) when it is already there,
    /// otherwise a copy through the host.
    pub fn to_cuda(&self, device: &Cuda) -> Result<Tensor<T, Cuda>> {
        if *device == self.device {
            return Ok(self.clone());
        }
        self.to_cpu()?.to_cuda(device)
    }

    /// [`Tensor::to_vec`] under the CPU's fallible name.
    pub fn try_to_vec(&self) -> Result<Vec<T>> {
        self.to_vec()
    }

    /// [`Tensor::deep_copy`] under the CPU's fallible name.
    pub fn try_deep_copy(&self) -> Result<Self> {
        self.deep_copy()
    }

    /// [`Tensor::contiguous`] under the CPU's fallible name.
    pub fn try_contiguous(&self) -> Result<Self> {
        self.contiguous()
    }

    /// `self` when contiguous, otherwise a packed copy made by the `copy` kernel.
    pub fn contiguous(&self) -> Result<Self> {
        if self.is_contiguous() {
            return Ok(self.clone());
        }
        self.map_kernel(Module::Cast, symbol::<T>("copy"))
    }

    /// Converts every element to `U` with Rust `as` semantics, as [`Tensor::cast`] on the CPU.
    pub fn cast<U: Element>(&self) -> Result<Tensor<U, Cuda>> {
        let root = table::cast_root(T::DTYPE);
        self.map_kernel(Module::Cast, symbol::<U>(&root))
    }

    /// A float-valued unary op (`sin`, `exp`, ...): integers promote to [`FloatOf<T>`], 16-bit
    /// floats compute in f32.
    pub fn try_float_unary<Op: FloatUnaryOp>(&self) -> Result<Tensor<FloatOf<T>, Cuda>> {
        self.map_kernel(Module::Unary, symbol::<T>(Op::NAME))
    }

    /// A float-valued op on a float tensor, whose result has `T` itself (`FloatOf<T> == T`):
    /// the same kernel as [`Tensor::try_float_unary`], typed for the in-place forms.
    pub(crate) fn float_unary_same<Op: FloatUnaryOp>(&self) -> Result<Self>
    where
        T: FloatElement,
    {
        self.map_kernel(Module::Unary, symbol::<T>(Op::NAME))
    }

    /// Copies `result` into `self` (an in-place op's target or an `_into` op's output, possibly
    /// a view). In-place and `_into` forms on CUDA compute into a temporary first, so `self`
    /// may alias the operands.
    ///
    /// # Errors
    /// `ShapeMismatch` naming both shapes when they differ (an in-place op whose broadcast
    /// result would not fit `self`); nothing is written then.
    pub(crate) fn store(&mut self, op: &'static str, result: &Self) -> Result<()> {
        if self.shape() != result.shape() {
            return Err(Error::ShapeMismatch {
                op,
                lhs: self.shape().clone(),
                rhs: result.shape().clone(),
                msg: "the output tensor must have the result's shape".into(),
            });
        }
        self.copy_from(result)
    }

    /// Launches a `(n, ndim, info, offset, in, out)` kernel into a new contiguous tensor.
    fn map_kernel<O: Element>(&self, module: Module, sym: String) -> Result<Tensor<O, Cuda>> {
        let n = self.numel();
        let out: CudaStorage<O> = empty(&self.device, n)?;
        if n > 0 {
            let info = Info::new(&self.device, &[&self.layout])?;
            launch(
                &self.device,
                module,
                &sym,
                packs::<T>(n),
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
    pub fn try_same_unary<Op: SameUnaryOp>(&self) -> Result<Self> {
        self.map_kernel(Module::Unary, symbol::<T>(Op::NAME))
    }

    /// Element-wise `Op(self, other)` with NumPy broadcasting.
    ///
    /// # Errors
    /// `Broadcast` naming both shapes; `DivisionByZero` when an integer divisor is zero (or an
    /// integer `pow` exponent is negative), detected by the kernel, as on the CPU.
    pub fn try_binary<Op: BinaryOp>(&self, other: &Self) -> Result<Self> {
        let out = self.zip_kernel::<T>(other, Op::NAME)?;
        Ok(out)
    }
}

impl<T: NumElement> Tensor<T, Cuda> {
    /// Clamps every element into `[min, max]` as [`Tensor::clip`] on the CPU: below `min`
    /// gives `min`, above `max` gives `max`, anything else (NaN too) stays.
    ///
    /// # Errors
    /// `InvalidArgument` when `min > max`.
    pub fn clip(&self, min: T, max: T) -> Result<Self> {
        super::unary::check_clip(min, max)?;
        let (lo, hi) = (
            Self::scalar_on(min, &self.device)?,
            Self::scalar_on(max, &self.device)?,
        );
        let upper = Self::where_(&self.try_gt(&hi)?, &hi, self)?;
        Self::where_(&self.try_lt(&lo)?, &lo, &upper)
    }
}

impl<T: Element> Tensor<T, Cuda> {
    /// Launches a BINARY kernel `root` over the broadcast shape; checks the kernel's flag.
    fn zip_kernel<O: Element>(&self, other: &Self, root: &'static str) -> Result<Tensor<O, Cuda>> {
        same_device(root, self, other)?;
        let shape = broadcast_shapes(root, self.shape(), other.shape())?;
        let la = self.layout.broadcast_to(root, &shape)?;
        let lb = other.layout.broadcast_to(root, &shape)?;
        let n = shape.numel();
        let dev = &self.device;
        let out: CudaStorage<O> = empty(dev, n)?;
        if n > 0 {
            // Only integer division and pow write the flag; floats pass a null pointer.
            let int = !T::DTYPE.is_float() && O::DTYPE == T::DTYPE;
            let flag: Option<CudaStorage<i32>> = if int { Some(dev.zeros(1)?) } else { None };
            let info = Info::new(dev, &[&la, &lb])?;
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
        Ok(Tensor::from_storage(out, shape, dev))
    }
}

macro_rules! cuda_binary {
    ($($name:ident, $sname:ident, $inplace:ident, $into:ident, $sinplace:ident, $sinto:ident, $rname:ident: $op:ty;)*) => {
        impl<T: NumElement> Tensor<T, Cuda> {
            $(
                #[doc = concat!("Element-wise `", stringify!($name), "` with broadcasting, on the GPU; see [`Tensor::try_binary`].")]
                pub fn $name(&self, other: &Self) -> Result<Self> {
                    self.try_binary::<$op>(other)
                }
                #[doc = concat!("[`Tensor::", stringify!($name), "`] with a scalar right operand (a 0-d tensor on this device, broadcast).")]
                pub fn $sname(&self, s: T) -> Result<Self> {
                    self.try_binary::<$op>(&Self::scalar_on(s, &self.device)?)
                }
                #[doc = concat!("In-place [`Tensor::", stringify!($name), "`]: `other` broadcasts into `self`'s shape (`ShapeMismatch` if `self` would have to grow).")]
                pub fn $inplace(&mut self, other: &Self) -> Result<()> {
                    let r = self.try_binary::<$op>(other)?;
                    self.store(stringify!($inplace), &r)
                }
                #[doc = concat!("Writes [`Tensor::", stringify!($name), "`] into `out`, which must have the broadcast shape and may be an operand.")]
                pub fn $into(&self, other: &Self, out: &mut Self) -> Result<()> {
                    out.store(stringify!($into), &self.try_binary::<$op>(other)?)
                }
                #[doc = concat!("In-place [`Tensor::", stringify!($sname), "`].")]
                pub fn $sinplace(&mut self, s: T) -> Result<()> {
                    let r = self.$sname(s)?;
                    self.store(stringify!($sinplace), &r)
                }
                #[doc = concat!("Writes [`Tensor::", stringify!($sname), "`] into `out`.")]
                pub fn $sinto(&self, s: T, out: &mut Self) -> Result<()> {
                    out.store(stringify!($sinto), &self.$sname(s)?)
                }
                #[doc = concat!("[`Tensor::", stringify!($name), "`] with the scalar on the left (`s - t`), as the CPU's.")]
                pub fn $rname(&self, s: T) -> Result<Self> {
                    Self::scalar_on(s, &self.device)?.try_binary::<$op>(self)
                }
            )*
        }
    };
}

cuda_binary! {
    try_add, try_add_scalar, add_, add_into, add_scalar_, add_scalar_into, radd_scalar: super::binary::ops::Add;
    try_sub, try_sub_scalar, sub_, sub_into, sub_scalar_, sub_scalar_into, rsub_scalar: super::binary::ops::Sub;
    try_mul, try_mul_scalar, mul_, mul_into, mul_scalar_, mul_scalar_into, rmul_scalar: super::binary::ops::Mul;
    try_div, try_div_scalar, div_, div_into, div_scalar_, div_scalar_into, rdiv_scalar: super::binary::ops::Div;
    try_floor_divide, try_floor_divide_scalar, floor_divide_, floor_divide_into, floor_divide_scalar_, floor_divide_scalar_into, rfloor_divide_scalar: super::binary::ops::FloorDivide;
    try_remainder, try_remainder_scalar, remainder_, remainder_into, remainder_scalar_, remainder_scalar_into, rremainder_scalar: super::binary::ops::Remainder;
    try_maximum, try_maximum_scalar, maximum_, maximum_into, maximum_scalar_, maximum_scalar_into, rmaximum_scalar: super::binary::ops::Maximum;
    try_minimum, try_minimum_scalar, minimum_, minimum_into, minimum_scalar_, minimum_scalar_into, rminimum_scalar: super::binary::ops::Minimum;
}

macro_rules! cuda_compare {
    ($($name:ident, $sname:ident, $root:literal;)*) => {
        impl<T: Element> Tensor<T, Cuda> {
            $(
                #[doc = concat!("`", $root, "` element-wise with broadcasting, on the GPU; a bool tensor.")]
                pub fn $name(&self, other: &Self) -> Result<Tensor<bool, Cuda>> {
                    self.zip_kernel::<bool>(other, $root)
                }
                #[doc = concat!("`", $root, "` against a scalar, as the CPU's; a bool tensor.")]
                pub fn $sname(&self, s: T) -> Result<Tensor<bool, Cuda>> {
                    self.zip_kernel::<bool>(&Self::scalar_on(s, &self.device)?, $root)
                }
            )*
        }
    };
}

cuda_compare! {
    try_eq, eq_scalar, "eq";
    try_ne, ne_scalar, "ne";
    try_lt, lt_scalar, "lt";
    try_le, le_scalar, "le";
    try_gt, gt_scalar, "gt";
    try_ge, ge_scalar, "ge";
}

impl<T: Element> Tensor<T, Cpu> {
    /// The same tensor, sharing storage: it is already on the host (the counterpart of the
    /// CUDA form, for code that handles both devices).
    pub fn to_cpu(&self) -> Tensor<T, Cpu> {
        self.clone()
    }

    /// A copy on CUDA device `device` (host-to-device).
    ///
    /// # Errors
    /// `Device` when the allocation or the copy fails.
    pub fn to_cuda(&self, device: &Cuda) -> Result<Tensor<T, Cuda>> {
        let storage = device.upload(&self.to_vec())?;
        Ok(Tensor::from_storage(storage, self.shape().clone(), device))
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

/// Launches `sym` from `module` over `n` grid-stride items.
fn launch(dev: &Cuda, module: Module, sym: &str, n: usize, args: &[Arg<'_>]) -> Result<()> {
    dev.ctx
        .launch(module.kernels(), sym, (blocks(n), THREADS), args)
}

/// Shape, dtype and device (the data stays on the GPU; `to_cpu()` to print it).
impl<T: Element> std::fmt::Debug for Tensor<T, Cuda> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Tensor(shape={}, dtype={}, device={})",
            self.shape(),
            T::DTYPE,
            self.device()
        )
    }
}
