//! `Scalar` (a runtime-typed number) and `TensorOptions` (PyTorch's C++ option bundle).

use crate::device::DeviceIndex;
use crate::dtype::{Dtype, Element};
use half::{bf16, f16};

/// A number whose type is known at run time: the `value` argument of `DynTensor::full`,
/// `fill_`, `pow` and the scalar operators. `From` exists for every Rust element type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// A floating-point value (f16/bf16/f32 widen exactly to f64).
    Float(f64),
    /// An integer value.
    Int(i64),
    /// A boolean.
    Bool(bool),
}

impl Scalar {
    /// The value converted to `T` with Rust `as` semantics.
    pub fn to<T: Element>(self) -> T {
        match self {
            Scalar::Float(v) => T::from_f64(v),
            Scalar::Int(v) => T::from_i64(v),
            Scalar::Bool(v) => T::from_i64(v as i64),
        }
    }
    /// True for `Scalar::Float`.
    pub fn is_float(self) -> bool {
        matches!(self, Scalar::Float(_))
    }
}

macro_rules! scalar_from {
    ($($t:ty => $v:ident, $conv:expr;)*) => {$(
        impl From<$t> for Scalar {
            fn from(x: $t) -> Self {
                Scalar::$v($conv(x))
            }
        }
    )*};
}

scalar_from! {
    f32 => Float, f64::from;
    f64 => Float, |x| x;
    f16 => Float, f64::from;
    bf16 => Float, f64::from;
    i16 => Int, i64::from;
    i32 => Int, i64::from;
    i64 => Int, |x| x;
    u8 => Int, i64::from;
    bool => Bool, |x| x;
}

/// Dtype, device and `requires_grad` bundled (PyTorch's C++ `TensorOptions`). The default is
/// Float32 on the CPU without a gradient, as PyTorch's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TensorOptions {
    /// The element type.
    pub dtype: Dtype,
    /// Where the data lives.
    pub device: DeviceIndex,
    /// Whether a gradient buffer is attached.
    pub requires_grad: bool,
}

impl Default for TensorOptions {
    fn default() -> Self {
        TensorOptions {
            dtype: Dtype::Float32,
            device: DeviceIndex::cpu(),
            requires_grad: false,
        }
    }
}

impl TensorOptions {
    /// The defaults (Float32, CPU, no gradient).
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets the dtype.
    pub fn dtype(mut self, dtype: Dtype) -> Self {
        self.dtype = dtype;
        self
    }
    /// Sets the device.
    pub fn device(mut self, device: DeviceIndex) -> Self {
        self.device = device;
        self
    }
    /// Sets `requires_grad`.
    pub fn requires_grad(mut self, requires_grad: bool) -> Self {
        self.requires_grad = requires_grad;
        self
    }
}
