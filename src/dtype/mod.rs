//! Element types, their runtime tags and the type-level promotion table.

mod element;
mod info;
mod promote;
mod round;

pub use element::{Element, FloatElement, IntElement, NumElement};
pub use info::{FInfo, IInfo, finfo, iinfo};
pub use promote::{FloatOf, Promote, SquareOf, SumOf};

/// The runtime tag of an element type (PyTorch's `dtype`).
///
/// Names spell the type out (`Dtype::Float32`, `Dtype::Bfloat16`, ...); `UInt8` and `Bool` hold
/// masks and comparison results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dtype {
    /// IEEE 754 binary32, 4 bytes.
    Float32,
    /// IEEE 754 binary64, 8 bytes.
    Float64,
    /// IEEE 754 binary16, 2 bytes.
    Float16,
    /// bfloat16 (8-bit exponent, 7-bit mantissa), 2 bytes.
    Bfloat16,
    /// Signed 16-bit integer.
    Int16,
    /// Signed 32-bit integer.
    Int32,
    /// Signed 64-bit integer.
    Int64,
    /// Unsigned 8-bit integer.
    UInt8,
    /// Boolean, stored as one byte (0 or 1).
    Bool,
}

impl Dtype {
    /// Every dtype, in declaration order.
    pub const ALL: [Dtype; 9] = [
        Dtype::Float32,
        Dtype::Float64,
        Dtype::Float16,
        Dtype::Bfloat16,
        Dtype::Int16,
        Dtype::Int32,
        Dtype::Int64,
        Dtype::UInt8,
        Dtype::Bool,
    ];

    /// Size of one element in bytes (PyTorch's `element_size()`): `Float32.size() == 4`.
    pub const fn size(self) -> usize {
        match self {
            Dtype::Float64 | Dtype::Int64 => 8,
            Dtype::Float32 | Dtype::Int32 => 4,
            Dtype::Float16 | Dtype::Bfloat16 | Dtype::Int16 => 2,
            Dtype::UInt8 | Dtype::Bool => 1,
        }
    }

    /// The machine epsilon of a float dtype, the gap between 1 and the next value (NumPy's
    /// `finfo(dtype).eps`, PyTorch's `finfo(dtype).eps`); 0 for integers and bool.
    pub const fn eps(self) -> f64 {
        match self {
            Dtype::Float16 => 9.765625e-4,
            Dtype::Bfloat16 => 0.0078125,
            Dtype::Float32 => f32::EPSILON as f64,
            Dtype::Float64 => f64::EPSILON,
            _ => 0.0,
        }
    }

    /// `self == other` in `const` contexts (`PartialEq` is not const). Generic code tests
    /// dtypes inside `const { }` blocks so that the compiler drops the untaken branch, with
    /// every generic function it calls, from each instantiation.
    pub(crate) const fn same(self, other: Dtype) -> bool {
        self as u8 == other as u8
    }

    /// True for the four floating-point dtypes.
    pub const fn is_float(self) -> bool {
        matches!(
            self,
            Dtype::Float32 | Dtype::Float64 | Dtype::Float16 | Dtype::Bfloat16
        )
    }

    /// The dtype of a float-valued op (`sin`, `sqrt`, `mean`) on this dtype: the runtime form of
    /// [`FloatOf`] (Int16/Int32/UInt8/Bool → Float32 as in PyTorch; Int64 → Float64 as in NumPy, so large integers stay exact).
    pub const fn float_of(self) -> Dtype {
        match self {
            Dtype::Int64 => Dtype::Float64,
            Dtype::Int16 | Dtype::Int32 | Dtype::UInt8 | Dtype::Bool => Dtype::Float32,
            d => d,
        }
    }

    /// The dtype of `sum`/`product`: Int64 for integer and bool dtypes (as NumPy), else itself.
    /// The runtime form of [`SumOf`].
    pub const fn sum_of(self) -> Dtype {
        if self.is_float() { self } else { Dtype::Int64 }
    }

    /// The dtype of `square`: Float64 for integer dtypes (so squares cannot overflow), else itself.
    /// The runtime form of [`SquareOf`].
    pub const fn square_of(self) -> Dtype {
        if self.is_float() {
            self
        } else {
            Dtype::Float64
        }
    }

    /// The dtype of a binary op on tensors of `a` and `b` when they are promoted: PyTorch's
    /// `torch.promote_types` (bool gives way to anything, integers widen, integer with float
    /// is the float, floats widen, `Float16` with `Bfloat16` is `Float32`). The runtime form of
    /// [`Promote`]; a test checks the two agree on all 81 pairs.
    pub const fn promote_types(a: Dtype, b: Dtype) -> Dtype {
        use Dtype::*;
        match (a, b) {
            (Bool, x) | (x, Bool) => x,
            (Float64, _) | (_, Float64) => Float64,
            (Float32, _) | (_, Float32) => Float32,
            (Float16, Bfloat16) | (Bfloat16, Float16) => Float32,
            (Float16, _) | (_, Float16) => Float16,
            (Bfloat16, _) | (_, Bfloat16) => Bfloat16,
            (Int64, _) | (_, Int64) => Int64,
            (Int32, _) | (_, Int32) => Int32,
            (Int16, _) | (_, Int16) => Int16,
            (UInt8, UInt8) => UInt8,
        }
    }

    /// Whether PyTorch's casting rules allow converting `from` to `to` implicitly
    /// (`torch.can_cast`): not to a lower category, float → integer or anything but bool →
    /// bool; narrowing within a category is allowed.
    pub const fn can_cast(from: Dtype, to: Dtype) -> bool {
        match (from, to) {
            (Dtype::Bool, _) => true,
            (_, Dtype::Bool) => false,
            _ => to.is_float() || !from.is_float(),
        }
    }
}

impl std::fmt::Display for Dtype {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self, f)
    }
}

/// Size in bytes of one element of `dtype` (PyTorch's `element_size()`).
pub const fn dtype_size(dtype: Dtype) -> usize {
    dtype.size()
}
