//! `DynTensor`: the seed's runtime-dtype API (`000`) as an erased wrapper over the typed
//! tensor, for programs that pick the dtype at run time (a config file, a flag, a checkpoint).
//!
//! It is an enum with one variant per element type, dispatched by the macros below to the one
//! typed implementation of each op: there is no second kernel. What the type system enforces for
//! `Tensor<T, D>` is checked here at run time and reported as an `Err` (mixed dtypes, in-place
//! ops that cannot keep the dtype, `nan*` reductions of integers, `rand` of integers). Every `Err`
//! leaves its inputs unchanged. This build has no CUDA backend, so only CPU tensors exist;
//! asking for `DeviceIndex::cuda(n)` is an `Err`.

/// Runs `$body` with `$t` bound to the typed tensor inside any variant.
macro_rules! dyn_each {
    ($v:expr, $t:ident => $body:expr) => {
        match $v {
            $crate::dynamic::DynTensor::F32($t) => $body,
            $crate::dynamic::DynTensor::F64($t) => $body,
            $crate::dynamic::DynTensor::F16($t) => $body,
            $crate::dynamic::DynTensor::BF16($t) => $body,
            $crate::dynamic::DynTensor::I16($t) => $body,
            $crate::dynamic::DynTensor::I32($t) => $body,
            $crate::dynamic::DynTensor::I64($t) => $body,
            $crate::dynamic::DynTensor::U8($t) => $body,
            $crate::dynamic::DynTensor::Bool($t) => $body,
        }
    };
}

mod ops;
mod scalar;

pub use ops::*;
pub use scalar::{Scalar, TensorOptions};

use crate::device::{Cpu, DeviceIndex, DeviceKind};
use crate::dtype::{Dtype, Element};
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::{DataRef, Tensor};
use half::{bf16, f16};
use std::fmt;

/// A tensor whose dtype is a run-time value. Convert from a typed tensor with `From`, back with
/// [`DynTensor::downcast`] or `TryFrom`.
#[derive(Clone)]
pub enum DynTensor {
    /// Float32 elements.
    F32(Tensor<f32, Cpu>),
    /// Float64 elements.
    F64(Tensor<f64, Cpu>),
    /// Float16 elements.
    F16(Tensor<f16, Cpu>),
    /// Bfloat16 elements.
    BF16(Tensor<bf16, Cpu>),
    /// Int16 elements.
    I16(Tensor<i16, Cpu>),
    /// Int32 elements.
    I32(Tensor<i32, Cpu>),
    /// Int64 elements.
    I64(Tensor<i64, Cpu>),
    /// UInt8 elements.
    U8(Tensor<u8, Cpu>),
    /// Bool elements.
    Bool(Tensor<bool, Cpu>),
}

/// Builds a `DynTensor` of `dtype`, running `$body` with the type alias `$T` for its element.
macro_rules! with_dtype {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            Dtype::Float32 => {
                type $T = f32;
                DynTensor::from($body)
            }
            Dtype::Float64 => {
                type $T = f64;
                DynTensor::from($body)
            }
            Dtype::Float16 => {
                type $T = f16;
                DynTensor::from($body)
            }
            Dtype::Bfloat16 => {
                type $T = bf16;
                DynTensor::from($body)
            }
            Dtype::Int16 => {
                type $T = i16;
                DynTensor::from($body)
            }
            Dtype::Int32 => {
                type $T = i32;
                DynTensor::from($body)
            }
            Dtype::Int64 => {
                type $T = i64;
                DynTensor::from($body)
            }
            Dtype::UInt8 => {
                type $T = u8;
                DynTensor::from($body)
            }
            Dtype::Bool => {
                type $T = bool;
                DynTensor::from($body)
            }
        }
    };
}

macro_rules! variants {
    ($($v:ident: $t:ty),*) => {$(
        impl From<Tensor<$t, Cpu>> for DynTensor {
            fn from(t: Tensor<$t, Cpu>) -> Self {
                DynTensor::$v(t)
            }
        }
        impl TryFrom<DynTensor> for Tensor<$t, Cpu> {
            type Error = Error;
            fn try_from(d: DynTensor) -> Result<Self> {
                match d {
                    DynTensor::$v(t) => Ok(t),
                    other => Err(mismatch("downcast", <$t>::DTYPE, other.dtype())),
                }
            }
        }
    )*};
}
variants!(F32: f32, F64: f64, F16: f16, BF16: bf16, I16: i16, I32: i32, I64: i64, U8: u8, Bool: bool);

pub(crate) fn mismatch(op: &'static str, expected: Dtype, actual: Dtype) -> Error {
    Error::DtypeMismatch {
        op,
        expected,
        actual,
        hint: "use the element type that matches the tensor's dtype, or convert with to_dtype()",
    }
}

fn check_device(op: &'static str, device: DeviceIndex) -> Result<()> {
    match device.kind {
        DeviceKind::Cpu => Ok(()),
        DeviceKind::Cuda => {
            crate::device::Cuda::new(device.index)
                .map(|_| ())
                .map_err(|e| match e {
                    Error::Device { msg, .. } => Error::Device { op, msg },
                    e => e,
                })
        }
    }
}

/// `Ok(x)` when `x`'s element type is `T`, else a `DtypeMismatch` naming both.
pub(crate) fn cast_ref<'a, T: Element>(
    op: &'static str,
    d: &'a DynTensor,
) -> Result<&'a Tensor<T, Cpu>> {
    dyn_each!(d, t => (t as &dyn std::any::Any).downcast_ref::<Tensor<T, Cpu>>())
        .ok_or_else(|| mismatch(op, T::DTYPE, d.dtype()))
}

fn cast_mut<'a, T: Element>(
    op: &'static str,
    d: &'a mut DynTensor,
) -> Result<&'a mut Tensor<T, Cpu>> {
    let actual = d.dtype();
    dyn_each!(d, t => (t as &mut dyn std::any::Any).downcast_mut::<Tensor<T, Cpu>>())
        .ok_or_else(|| mismatch(op, T::DTYPE, actual))
}

impl DynTensor {
    /// A zero-filled tensor (the seed's `Tensor(shape, dtype, device, requires_grad)`).
    ///
    /// # Errors
    /// `Device` for a CUDA device in this build; `ShapeOverflow` for a too-large shape.
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

    /// A zero-filled tensor (the seed's `Tensor(shape, TensorOptions)`).
    pub fn with_options(shape: impl Into<Shape>, opts: TensorOptions) -> Result<Self> {
        Self::zeros(shape, opts)
    }

    fn make(op: &'static str, opts: TensorOptions, t: Result<Self>) -> Result<Self> {
        check_device(op, opts.device)?;
        let mut t = t?;
        if opts.requires_grad {
            dyn_each!(&mut t, x => x.set_requires_grad(true))?;
        }
        Ok(t)
    }

    /// Zeros (the seed's `Tensor::zeros`).
    pub fn zeros(shape: impl Into<Shape>, opts: TensorOptions) -> Result<Self> {
        let s = shape.into();
        check_device("zeros", opts.device)?;
        Self::make(
            "zeros",
            opts,
            Ok(with_dtype!(opts.dtype, T => Tensor::<T, Cpu>::zeros(&s)?)),
        )
    }

    /// Ones (the seed's `Tensor::ones`).
    pub fn ones(shape: impl Into<Shape>, opts: TensorOptions) -> Result<Self> {
        let s = shape.into();
        check_device("ones", opts.device)?;
        Self::make(
            "ones",
            opts,
            Ok(with_dtype!(opts.dtype, T => Tensor::<T, Cpu>::ones(&s)?)),
        )
    }

    /// `value` everywhere, converted to the dtype with `as` semantics (the seed's `Tensor::full`).
    pub fn full(
        shape: impl Into<Shape>,
        opts: TensorOptions,
        value: impl Into<Scalar>,
    ) -> Result<Self> {
        let s = shape.into();
        let v = value.into();
        check_device("full", opts.device)?;
        Self::make(
            "full",
            opts,
            Ok(with_dtype!(opts.dtype, T => Tensor::<T, Cpu>::full(&s, v.to::<T>())?)),
        )
    }

    fn random(op: &'static str, shape: Shape, opts: TensorOptions, normal: bool) -> Result<Self> {
        check_device(op, opts.device)?;
        let t = match opts.dtype {
            Dtype::Float32 => DynTensor::F32(if normal {
                Tensor::randn(shape)?
            } else {
                Tensor::rand(shape)?
            }),
            Dtype::Float64 => DynTensor::F64(if normal {
                Tensor::randn(shape)?
            } else {
                Tensor::rand(shape)?
            }),
            Dtype::Float16 => DynTensor::F16(if normal {
                Tensor::randn(shape)?
            } else {
                Tensor::rand(shape)?
            }),
            Dtype::Bfloat16 => DynTensor::BF16(if normal {
                Tensor::randn(shape)?
            } else {
                Tensor::rand(shape)?
            }),
            d => {
                return Err(Error::InvalidArgument {
                    op,
                    msg: format!(
                        "{op} draws floats and {d} is not a float dtype; use Float32 (then to_dtype) or full()"
                    ),
                });
            }
        };
        Self::make(op, opts, Ok(t))
    }

    /// Uniform samples on [0, 1) (the seed's `Tensor::rand`); float dtypes only.
    ///
    /// # Errors
    /// `InvalidArgument` for an integer or bool dtype.
    pub fn rand(shape: impl Into<Shape>, opts: TensorOptions) -> Result<Self> {
        Self::random("rand", shape.into(), opts, false)
    }

    /// Standard-normal samples (the seed's `Tensor::randn`); float dtypes only.
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
        Self: From<Tensor<T, Cpu>>,
    {
        check_device("from_vec", device)?;
        Ok(Tensor::<T, Cpu>::from_vec(data, shape)?.into())
    }

    /// Copies `values` into the tensor (the seed's `set_data`).
    ///
    /// # Errors
    /// `DtypeMismatch` when `T` is not the dtype's type; `DataLength` for a wrong length.
    pub fn set_data<T: Element>(&mut self, values: &[T]) -> Result<()> {
        cast_mut::<T>("set_data", self)?.set_data(values)
    }

    /// The elements in row-major order, copied (the seed's `data<T>()` read).
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        Ok(cast_ref::<T>("to_vec", self)?.to_vec())
    }

    /// Borrows the elements of a contiguous tensor (the seed's `data<T>()`).
    pub fn data<T: Element>(&self) -> Result<DataRef<'_, T>> {
        cast_ref::<T>("data", self)?.data()
    }

    /// Borrows the gradient buffer; `Ok(None)` without `requires_grad` (the seed's `grad()`).
    pub fn grad<T: Element>(&self) -> Result<Option<DataRef<'_, T>>> {
        Ok(cast_ref::<T>("grad", self)?.grad())
    }

    /// Sets every element to `value`, converted to the dtype (the seed's `fill_`).
    pub fn fill_(&mut self, value: impl Into<Scalar>) -> Result<()> {
        let v = value.into();
        dyn_each!(self, t => t.fill_(v.to()))
    }

    /// The typed tensor inside, when `T` and `D` match.
    ///
    /// # Errors
    /// `DtypeMismatch` naming the expected and actual dtype.
    pub fn downcast<T: Element>(self) -> Result<Tensor<T, Cpu>> {
        let actual = self.dtype();
        let any: Box<dyn std::any::Any> = dyn_each!(self, t => Box::new(t));
        any.downcast::<Tensor<T, Cpu>>()
            .map(|b| *b)
            .map_err(|_| mismatch("downcast", T::DTYPE, actual))
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

    /// Every element with `precision` decimals (the seed's `display`).
    pub fn display(&self, precision: usize) -> String {
        dyn_each!(self, t => t.display(precision))
    }

    /// The tensor on `device`: the same device shares the data (the seed's `to`).
    ///
    /// # Errors
    /// `Device` for a CUDA device in this build.
    pub fn to(&self, device: DeviceIndex) -> Result<Self> {
        check_device("to", device)?;
        Ok(self.clone())
    }
    /// [`DynTensor::to`] the CPU.
    pub fn to_cpu(&self) -> Result<Self> {
        self.to(DeviceIndex::cpu())
    }
    /// [`DynTensor::to`] CUDA device 0.
    pub fn to_cuda(&self) -> Result<Self> {
        self.to(DeviceIndex::cuda(0))
    }

    /// A copy converted to `dtype` with Rust `as` semantics.
    pub fn to_dtype(&self, dtype: Dtype) -> Self {
        dyn_each!(self, t => with_dtype!(dtype, U => t.cast::<U>()))
    }
}

impl fmt::Display for DynTensor {
    /// As the typed tensor's `Display`, honouring `{:.N}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        dyn_each!(self, t => fmt::Display::fmt(t, f))
    }
}

impl fmt::Debug for DynTensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
