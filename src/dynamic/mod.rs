//! `DynTensor`: a runtime-dtype API (dtype and device as values, as in PyTorch) as an erased wrapper over the typed
//! tensor, for programs that pick the dtype at run time (a config file, a flag, a checkpoint).
//!
//! It is an enum with one variant per element type, dispatched by the macros below to the one
//! typed implementation of each op: there is no second kernel. What the type system enforces for
//! `Tensor<T, D>` is checked here at run time and reported as an `Err` (mixed dtypes, in-place
//! ops that cannot keep the dtype, `nan*` reductions of integers, `rand` of integers). Every `Err`
//! leaves its inputs unchanged. Each variant holds a CPU or a CUDA tensor; ops run on the device
//! of their operands, and mixing devices is an `Err` (no automatic transfer, as in PyTorch).
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! // The dtype is a value: read it from a file, a flag, a config.
//! let dtype = Dtype::Float16;
//! let opts = TensorOptions::new().dtype(dtype);
//! let x = DynTensor::full([2, 2], opts, 1.5)?;
//! let y = x.add(&x)?.sin()?; // the same op names as the typed API
//! assert_eq!(y.dtype(), Dtype::Float16);
//! let i = DynTensor::from_vec(vec![1i32, 2], [2], DeviceIndex::cpu())?;
//! assert!(i.add(&x).is_err()); // mixed dtypes: an Err, not a compile error
//! assert_eq!(i.add_promoted(&DynTensor::from(tensor![0.5f32, 0.5]))?.dtype(), Dtype::Float32);
//! let typed: Tensor<f16, Cpu> = y.downcast()?; // back to the typed API
//! # let _ = typed;
//! # Ok::<(), typed_tensor::Error>(())
//! ```

/// Runs `$body` with `$t` bound to the typed tensor inside any variant, on either device: the
/// body is compiled once per dtype × device, so it may only call methods that both devices
/// spell alike.
macro_rules! dyn_each {
    ($v:expr, $t:ident => $body:expr) => {
        dyn_each!(@arms $v, $t => $body; F32 F64 F16 BF16 I16 I32 I64 U8 Bool)
    };
    (@arms $v:expr, $t:ident => $body:expr; $($V:ident)*) => {
        match $v {
            $(
                $crate::dynamic::DynTensor::$V($crate::dynamic::DeviceTensor::Cpu($t)) => $body,
                $crate::dynamic::DynTensor::$V($crate::dynamic::DeviceTensor::Cuda($t)) => $body,
            )*
        }
    };
}

/// As [`dyn_each!`] for the float variants; any other runs `$other`.
macro_rules! dyn_float {
    ($v:expr, $t:ident => $body:expr, $o:ident => $other:expr) => {
        dyn_float!(@arms $v, $t => $body, $o => $other; F32 F64 F16 BF16)
    };
    (@arms $v:expr, $t:ident => $body:expr, $o:ident => $other:expr; $($V:ident)*) => {
        match $v {
            $(
                $crate::dynamic::DynTensor::$V($crate::dynamic::DeviceTensor::Cpu($t)) => $body,
                $crate::dynamic::DynTensor::$V($crate::dynamic::DeviceTensor::Cuda($t)) => $body,
            )*
            $o => $other,
        }
    };
}

/// As [`dyn_each!`] with one body per device, for what only exists on one of them.
macro_rules! dyn_device {
    ($v:expr, cpu $c:ident => $cpu:expr, cuda $g:ident => $cuda:expr) => {
        dyn_device!(@arms $v, $c => $cpu, $g => $cuda; F32 F64 F16 BF16 I16 I32 I64 U8 Bool)
    };
    (@arms $v:expr, $c:ident => $cpu:expr, $g:ident => $cuda:expr; $($V:ident)*) => {
        match $v {
            $(
                $crate::dynamic::DynTensor::$V($crate::dynamic::DeviceTensor::Cpu($c)) => $cpu,
                $crate::dynamic::DynTensor::$V($crate::dynamic::DeviceTensor::Cuda($g)) => $cuda,
            )*
        }
    };
}

/// Runs `$body` with `$dev` bound to the device `$idx` names (`&Cpu` or an opened `&Cuda`).
macro_rules! on_device {
    ($idx:expr, $dev:ident => $body:expr) => {
        match $idx.kind {
            DeviceKind::Cpu => {
                let $dev = &Cpu;
                DynTensor::from($body)
            }
            DeviceKind::Cuda => {
                let $dev = &Cuda::new($idx.index)?;
                DynTensor::from($body)
            }
        }
    };
}

mod autograd;
mod ops;
mod optim;
mod scalar;

pub use autograd::{backward, grad};
pub use ops::*;
pub use optim::{DynOptimizer, Recipe};
pub use scalar::{Scalar, TensorOptions};

use crate::device::{Cpu, Cuda, Device, DeviceIndex, DeviceKind};
use crate::dtype::{Dtype, Element};
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::{DataRef, Tensor};
use half::{bf16, f16};
use std::any::Any;
use std::fmt;

/// A tensor whose dtype and device are run-time values: one variant per dtype, each holding a
/// [`DeviceTensor`]. Convert from a typed tensor with `From`, back with
/// [`DynTensor::downcast`] or `TryFrom`.
#[derive(Clone)]
pub enum DynTensor {
    /// Float32 elements.
    F32(DeviceTensor<f32>),
    /// Float64 elements.
    F64(DeviceTensor<f64>),
    /// Float16 elements.
    F16(DeviceTensor<f16>),
    /// Bfloat16 elements.
    BF16(DeviceTensor<bf16>),
    /// Int16 elements.
    I16(DeviceTensor<i16>),
    /// Int32 elements.
    I32(DeviceTensor<i32>),
    /// Int64 elements.
    I64(DeviceTensor<i64>),
    /// UInt8 elements.
    U8(DeviceTensor<u8>),
    /// Bool elements.
    Bool(DeviceTensor<bool>),
}

/// A typed tensor on either device: the device half of [`DynTensor`].
#[derive(Clone)]
pub enum DeviceTensor<T: Element> {
    /// In host memory.
    Cpu(Tensor<T, Cpu>),
    /// On a CUDA device.
    Cuda(Tensor<T, Cuda>),
}

/// Builds a `DynTensor` of `dtype`, running `$body` (which yields the `DynTensor`) with the type
/// alias `$T` for its element.
macro_rules! with_dtype {
    ($dtype:expr, $T:ident => $body:expr) => {
        $crate::dynamic::with_dtype!(@arms $dtype, $T => $body; Float32 f32, Float64 f64, Float16 half::f16,
            Bfloat16 half::bf16, Int16 i16, Int32 i32, Int64 i64, UInt8 u8, Bool bool)
    };
    (@arms $dtype:expr, $T:ident => $body:expr; $($d:ident $t:ty),*) => {
        match $dtype {
            $($crate::dtype::Dtype::$d => {
                type $T = $t;
                $body
            })*
        }
    };
}
pub(crate) use with_dtype;

/// Wraps any typed tensor, so code generic over `T` and `D` can hand its tensors to the
/// runtime-dtype API (`save_safetensors`, `DynTensor` ops).
impl<T: Element, D: Device> From<Tensor<T, D>> for DynTensor {
    fn from(t: Tensor<T, D>) -> Self {
        let mut slot = Some(t);
        let any = &mut slot as &mut dyn Any;
        // Only the arm of `T`'s dtype is compiled into each instance (a `const` guard).
        macro_rules! variants {
            ($($v:ident: $t:ty),*) => {$(
                if const { T::DTYPE.same(<$t as Element>::DTYPE) } {
                    if let Some(t) = any.downcast_mut::<Option<Tensor<$t, Cpu>>>().and_then(Option::take) {
                        return DynTensor::$v(DeviceTensor::Cpu(t));
                    }
                    if let Some(t) = any.downcast_mut::<Option<Tensor<$t, Cuda>>>().and_then(Option::take) {
                        return DynTensor::$v(DeviceTensor::Cuda(t));
                    }
                }
            )*};
        }
        variants!(F32: f32, F64: f64, F16: f16, BF16: bf16, I16: i16, I32: i32, I64: i64, U8: u8, Bool: bool);
        unreachable!("Element and Device are sealed: every (T, D) is a variant")
    }
}

/// Shares the tensor's storage (a cheap clone), so `&t` can be passed where an owned
/// `DynTensor` is taken (`save_safetensors`, `save_npy`).
impl<T: Element, D: Device> From<&Tensor<T, D>> for DynTensor {
    fn from(t: &Tensor<T, D>) -> Self {
        DynTensor::from(t.clone())
    }
}

impl<T: Element, D: Device> TryFrom<DynTensor> for Tensor<T, D> {
    type Error = Error;
    fn try_from(d: DynTensor) -> Result<Self> {
        d.downcast::<T, D>()
    }
}

/// Shares the storage (a cheap clone), as `From<&Tensor>`.
impl From<&DynTensor> for DynTensor {
    fn from(t: &DynTensor) -> Self {
        t.clone()
    }
}

pub(crate) fn mismatch(op: &'static str, expected: Dtype, actual: Dtype) -> Error {
    Error::DtypeMismatch {
        op,
        expected,
        actual,
        hint: "use the element type that matches the tensor's dtype, or convert with to_dtype()",
    }
}

/// Mixed devices (no automatic transfer, as in PyTorch).
pub(crate) fn device_mismatch(op: &'static str, a: DeviceIndex, b: DeviceIndex) -> Error {
    Error::Device {
        op,
        msg: format!(
            "the operands are on {a} and {b}; move one with to(), to_cpu() or to_cuda() first"
        ),
    }
}

/// `d`'s typed tensor as `Tensor<T, D>`, where `like` fixes `D` (the device of the tensor the
/// caller is dispatching on): a `DtypeMismatch` or `Device` error names what differs.
pub(crate) fn typed_like<'a, T: Element, U: Element, D: Device>(
    op: &'static str,
    d: &'a DynTensor,
    like: &Tensor<U, D>,
) -> Result<&'a Tensor<T, D>> {
    if d.dtype() != T::DTYPE {
        return Err(mismatch(op, T::DTYPE, d.dtype()));
    }
    inner(d)
        .downcast_ref::<Tensor<T, D>>()
        .ok_or_else(|| device_mismatch(op, like.device(), d.device()))
}

/// The typed tensor inside `d`, erased: one match compiled once, where a match in each generic
/// caller was compiled for every `(T, D)` it is instantiated with.
fn inner(d: &DynTensor) -> &dyn Any {
    dyn_each!(d, t => t as &dyn Any)
}

fn inner_mut(d: &mut DynTensor) -> &mut dyn Any {
    dyn_each!(d, t => t as &mut dyn Any)
}

fn into_any(d: DynTensor) -> Box<dyn Any> {
    dyn_each!(d, t => Box::new(t))
}

/// `t` as `Tensor<T, D>` when its element type is `T`.
fn as_typed<T: Element, U: Element, D: Device>(t: &Tensor<U, D>) -> Option<&Tensor<T, D>> {
    (t as &dyn Any).downcast_ref::<Tensor<T, D>>()
}

/// `Err` for a host-memory borrow of a CUDA tensor.
fn on_host_only(op: &'static str, device: DeviceIndex) -> Error {
    Error::Device {
        op,
        msg: format!(
            "{op} borrows host memory and this tensor is on {device}; use to_vec() or to_cpu() first"
        ),
    }
}

impl DynTensor {
    /// A zero-filled tensor (PyTorch's `torch.zeros(shape, dtype=, device=, requires_grad=)`).
    ///
    /// # Errors
    /// `Device` when the CUDA device cannot be opened (no driver, no such ordinal, or a build
    /// without the `cuda` feature); `ShapeOverflow` for a too-large shape.
    pub fn new(
        shape: impl Into<Shape>,
        dtype: Dtype,
        device: DeviceIndex,
        requires_grad: bool,
    ) -> Result<Self> {
        Self::with_options(
            shape,
            TensorOptions {
                dtype,
                device,
                requires_grad,
            },
        )
    }

    /// A zero-filled tensor (PyTorch's C++ `torch::zeros(shape, TensorOptions)`).
    pub fn with_options(shape: impl Into<Shape>, opts: TensorOptions) -> Result<Self> {
        Self::zeros(shape, opts)
    }

    /// Attaches the gradient buffer that `opts` asks for.
    fn with_grad(mut self, opts: TensorOptions) -> Result<Self> {
        if opts.requires_grad {
            self.set_requires_grad(true)?;
        }
        Ok(self)
    }

    /// Zeros (`torch.zeros`).
    pub fn zeros(shape: impl Into<Shape>, opts: TensorOptions) -> Result<Self> {
        Self::full(shape, opts, false)
    }

    /// Ones (`torch.ones`).
    pub fn ones(shape: impl Into<Shape>, opts: TensorOptions) -> Result<Self> {
        Self::full(shape, opts, true)
    }

    /// `value` everywhere, converted to the dtype with `as` semantics (`torch.full`).
    pub fn full(
        shape: impl Into<Shape>,
        opts: TensorOptions,
        value: impl Into<Scalar>,
    ) -> Result<Self> {
        let (s, v) = (shape.into(), value.into());
        with_dtype!(opts.dtype, T => on_device!(opts.device, dev => Tensor::<T, _>::full_on(s, v.to(), dev)?))
            .with_grad(opts)
    }

    fn random(op: &'static str, shape: Shape, opts: TensorOptions, normal: bool) -> Result<Self> {
        macro_rules! draw {
            ($T:ty) => {
                match opts.device.kind {
                    DeviceKind::Cpu if normal => DynTensor::from(Tensor::<$T, Cpu>::randn(shape)?),
                    DeviceKind::Cpu => DynTensor::from(Tensor::<$T, Cpu>::rand(shape)?),
                    DeviceKind::Cuda => {
                        let dev = Cuda::new(opts.device.index)?;
                        DynTensor::from(if normal {
                            Tensor::<$T, Cuda>::randn_on(shape, &dev)?
                        } else {
                            Tensor::<$T, Cuda>::rand_on(shape, &dev)?
                        })
                    }
                }
            };
        }
        let t = match opts.dtype {
            Dtype::Float32 => draw!(f32),
            Dtype::Float64 => draw!(f64),
            Dtype::Float16 => draw!(f16),
            Dtype::Bfloat16 => draw!(bf16),
            d => {
                return Err(Error::InvalidArgument {
                    op,
                    msg: format!(
                        "{op} draws floats and {d} is not a float dtype; use Float32 (then to_dtype) or full()"
                    ),
                });
            }
        };
        t.with_grad(opts)
    }

    /// Uniform samples on [0, 1) (`torch.rand`); float dtypes only.
    ///
    /// # Errors
    /// `InvalidArgument` for an integer or bool dtype.
    pub fn rand(shape: impl Into<Shape>, opts: TensorOptions) -> Result<Self> {
        Self::random("rand", shape.into(), opts, false)
    }

    /// Standard-normal samples (`torch.randn`); float dtypes only.
    pub fn randn(shape: impl Into<Shape>, opts: TensorOptions) -> Result<Self> {
        Self::random("randn", shape.into(), opts, true)
    }

    /// A tensor holding `data` (row-major) on `device`; the dtype is `T`'s.
    pub fn from_vec<T: Element>(
        data: Vec<T>,
        shape: impl Into<Shape>,
        device: DeviceIndex,
    ) -> Result<Self>
    where
        Self: From<Tensor<T, Cpu>> + From<Tensor<T, Cuda>>,
    {
        let shape = shape.into();
        Ok(on_device!(device, dev => Tensor::from_vec_on(data, shape, dev)?))
    }

    /// Copies `values` into the tensor.
    ///
    /// # Errors
    /// `DtypeMismatch` when `T` is not the dtype's type; `DataLength` for a wrong length.
    pub fn set_data<T: Element>(&mut self, values: &[T]) -> Result<()> {
        let actual = self.dtype();
        let any = inner_mut(self);
        if let Some(t) = any.downcast_mut::<Tensor<T, Cpu>>() {
            t.set_data(values)
        } else if let Some(t) = any.downcast_mut::<Tensor<T, Cuda>>() {
            t.set_data(values)
        } else {
            Err(mismatch("set_data", T::DTYPE, actual))
        }
    }

    /// The elements in row-major order, copied (a CUDA tensor is copied
    /// to the host; NumPy's `tolist` of the flattened array).
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        let any = inner(self);
        if let Some(t) = any.downcast_ref::<Tensor<T, Cpu>>() {
            t.try_to_vec()
        } else if let Some(t) = any.downcast_ref::<Tensor<T, Cuda>>() {
            t.try_to_vec()
        } else {
            Err(mismatch("to_vec", T::DTYPE, self.dtype()))
        }
    }

    /// Borrows the elements of a contiguous CPU tensor.
    ///
    /// # Errors
    /// `DtypeMismatch` for a wrong `T`; `Layout` when not contiguous; `Device` on CUDA (use
    /// [`DynTensor::to_vec`]).
    pub fn data<T: Element>(&self) -> Result<DataRef<'_, T>> {
        self.cpu_tensor::<T>("data")?.data()
    }

    /// Borrows the gradient buffer of a CPU tensor; `Ok(None)` without `requires_grad`
    /// (PyTorch's `.grad`).
    pub fn grad<T: Element>(&self) -> Result<Option<DataRef<'_, T>>> {
        Ok(self.cpu_tensor::<T>("grad")?.grad())
    }

    fn cpu_tensor<T: Element>(&self, op: &'static str) -> Result<&Tensor<T, Cpu>> {
        dyn_device!(self,
            cpu t => as_typed::<T, _, _>(t).ok_or_else(|| mismatch(op, T::DTYPE, self.dtype())),
            cuda t => Err(on_host_only(op, t.device())))
    }

    /// Sets every element to `value`, converted to the dtype (PyTorch's `fill_`).
    pub fn fill_(&mut self, value: impl Into<Scalar>) -> Result<()> {
        let v = value.into();
        dyn_each!(self, t => t.fill_(v.to()))
    }

    /// The typed tensor inside, when `T` and `D` match.
    ///
    /// # Errors
    /// `DtypeMismatch` naming the expected and actual dtype; `Device` naming both devices.
    pub fn downcast<T: Element, D: Device>(self) -> Result<Tensor<T, D>> {
        let (dtype, device) = (self.dtype(), self.device());
        if dtype != T::DTYPE {
            return Err(mismatch("downcast", T::DTYPE, dtype));
        }
        into_any(self)
            .downcast::<Tensor<T, D>>()
            .map(|b| *b)
            .map_err(|_| Error::Device {
                op: "downcast",
                msg: format!(
                    "the tensor is on {device}, not a {:?} device; move it with to() first",
                    D::KIND
                ),
            })
    }

    /// The dtype.
    pub fn dtype(&self) -> Dtype {
        dyn_each!(self, t => t.dtype())
    }
    /// The shape.
    pub fn shape(&self) -> &Shape {
        dyn_each!(self, t => t.shape())
    }
    /// The device.
    pub fn device(&self) -> DeviceIndex {
        dyn_each!(self, t => t.device())
    }
    /// Number of elements.
    pub fn numel(&self) -> usize {
        dyn_each!(self, t => t.numel())
    }
    /// `numel() * dtype_size` in bytes.
    pub fn nbytes(&self) -> usize {
        dyn_each!(self, t => t.nbytes())
    }
    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        dyn_each!(self, t => t.ndim())
    }
    /// Strides in elements.
    pub fn stride(&self) -> &[isize] {
        dyn_each!(self, t => t.stride())
    }
    /// Size in bytes of one element of `dtype`.
    pub fn dtype_size(dtype: Dtype) -> usize {
        dtype.size()
    }
    /// True on the host.
    pub fn is_cpu(&self) -> bool {
        dyn_each!(self, t => t.is_cpu())
    }
    /// True on a CUDA device.
    pub fn is_cuda(&self) -> bool {
        dyn_each!(self, t => t.is_cuda())
    }
    /// Whether a gradient buffer is attached.
    pub fn requires_grad(&self) -> bool {
        dyn_each!(self, t => t.requires_grad())
    }
    /// Whether this is a frozen leaf (`set_requires_grad(false)` after it required grad).
    pub(crate) fn is_frozen(&self) -> bool {
        dyn_each!(self, t => t.is_frozen())
    }
    /// Bytes of the gradient buffer (0 without one).
    pub fn grad_nbytes(&self) -> usize {
        dyn_each!(self, t => t.grad_nbytes())
    }
    /// Bytes allocated for the data.
    pub fn allocated_bytes(&self) -> usize {
        dyn_each!(self, t => t.allocated_bytes())
    }
    /// Bytes allocated for the gradient.
    pub fn grad_allocated_bytes(&self) -> usize {
        dyn_each!(self, t => t.grad_allocated_bytes())
    }
    /// False for a view.
    pub fn owns_data(&self) -> bool {
        dyn_each!(self, t => t.owns_data())
    }
    /// True when this tensor allocated its gradient.
    pub fn owns_grad(&self) -> bool {
        dyn_each!(self, t => t.owns_grad())
    }
    /// True when the elements are one row-major run.
    pub fn is_contiguous(&self) -> bool {
        dyn_each!(self, t => t.is_contiguous())
    }

    /// Every element with `precision` decimals; a CUDA tensor is copied
    /// to the host first (a failed copy prints the error).
    pub fn display(&self, precision: usize) -> String {
        dyn_each!(self, t => t.try_display(precision).unwrap_or_else(|e| format!("<{e}>")))
    }

    /// The tensor on `device`: the same device shares the data, another one gets a copy
    /// (PyTorch's `.to(device)`).
    ///
    /// # Errors
    /// `Device` when the CUDA device cannot be opened or the copy fails.
    pub fn to(&self, device: DeviceIndex) -> Result<Self> {
        Ok(match device.kind {
            DeviceKind::Cpu => dyn_each!(self, t => DynTensor::from(t.try_to_cpu()?)),
            DeviceKind::Cuda => {
                let dev = Cuda::new(device.index)?;
                dyn_each!(self, t => DynTensor::from(t.to_cuda(&dev)?))
            }
        })
    }
    /// [`DynTensor::to`] the CPU.
    pub fn to_cpu(&self) -> Result<Self> {
        self.to(DeviceIndex::cpu())
    }
    /// [`DynTensor::to`] CUDA device 0.
    pub fn to_cuda(&self) -> Result<Self> {
        self.to(DeviceIndex::cuda(0))
    }

    /// A copy converted to `dtype` with Rust `as` semantics, on the same device.
    ///
    /// # Errors
    /// `Device` when a CUDA launch fails.
    pub fn to_dtype(&self, dtype: Dtype) -> Result<Self> {
        dyn_each!(self, t => Ok(with_dtype!(dtype, U => DynTensor::from(t.try_cast::<U>()?))))
    }
}

impl fmt::Display for DynTensor {
    /// As the typed tensor's `Display`, honouring `{:.N}`; a CUDA tensor is copied to the host.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        dyn_each!(self, t => fmt::Display::fmt(t, f))
    }
}

impl fmt::Debug for DynTensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
