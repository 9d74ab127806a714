//! The crate's one error type.

use crate::dtype::Dtype;
use crate::shape::Shape;

/// Every fallible operation returns this. Messages name the operation, the shapes, dtypes and
/// devices involved, and what to do instead.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// A data buffer's length does not match the element count of the requested shape.
    #[error(
        "{op}: {len} elements of data do not fill shape {shape} ({numel} elements); pass exactly {numel} values or change the shape"
    )]
    DataLength {
        /// The operation.
        op: &'static str,
        /// Length of the data given.
        len: usize,
        /// The requested shape.
        shape: Shape,
        /// Its element count.
        numel: usize,
    },
    /// The element count of a shape does not fit in `usize`.
    #[error("{op}: the element count of shape {dims:?} overflows usize; use smaller dimensions")]
    ShapeOverflow {
        /// The operation.
        op: &'static str,
        /// The dimensions given.
        dims: Vec<usize>,
    },
    /// Two shapes cannot be broadcast together (NumPy rules).
    #[error(
        "{op}: shapes {lhs} and {rhs} cannot be broadcast together (trailing dimensions must be equal or 1)"
    )]
    Broadcast {
        /// The operation.
        op: &'static str,
        /// Left shape.
        lhs: Shape,
        /// Right shape.
        rhs: Shape,
    },
    /// Shapes that must match (or be compatible in an op-specific way) do not.
    #[error("{op}: incompatible shapes {lhs} and {rhs}: {msg}")]
    ShapeMismatch {
        /// The operation.
        op: &'static str,
        /// Left shape.
        lhs: Shape,
        /// Right shape.
        rhs: Shape,
        /// What is wrong and what to do.
        msg: String,
    },
    /// An axis or dimension index out of range, or repeated.
    #[error(
        "{op}: axis {axis} is invalid for a tensor of shape {shape} ({ndim} dimensions): {msg}"
    )]
    Axis {
        /// The operation.
        op: &'static str,
        /// The axis given.
        axis: i64,
        /// The tensor's shape.
        shape: Shape,
        /// Its rank.
        ndim: usize,
        /// What is wrong.
        msg: &'static str,
    },
    /// An index (into a dimension or an index tensor's value) out of range.
    #[error(
        "{op}: index {index} is out of range for dimension {dim} of size {size} (shape {shape})"
    )]
    Index {
        /// The operation.
        op: &'static str,
        /// The index.
        index: i64,
        /// The dimension it indexes.
        dim: usize,
        /// That dimension's size.
        size: usize,
        /// The tensor's shape.
        shape: Shape,
    },
    /// An argument that is invalid for the operation (zero step, negative count, ...).
    #[error("{op}: {msg}")]
    InvalidArgument {
        /// The operation.
        op: &'static str,
        /// What is wrong and what to do.
        msg: String,
    },
    /// Integer division (or remainder) by zero.
    #[error(
        "{op}: integer division by zero in a {dtype} tensor; check the divisor or cast to a float dtype, where x/0 is ±inf or NaN"
    )]
    DivisionByZero {
        /// The operation.
        op: &'static str,
        /// The integer dtype.
        dtype: Dtype,
    },
    /// A dtype that does not match what the operation or the caller expects.
    #[error("{op}: dtype mismatch: expected {expected}, got {actual}; {hint}")]
    DtypeMismatch {
        /// The operation.
        op: &'static str,
        /// The dtype expected.
        expected: Dtype,
        /// The dtype found.
        actual: Dtype,
        /// What to do.
        hint: &'static str,
    },
    /// Tensors on different devices (there is no automatic transfer), or an unusable device.
    #[error("{op}: {msg}")]
    Device {
        /// The operation.
        op: &'static str,
        /// What is wrong and what to do.
        msg: String,
    },
    /// A reduction that has no identity (min, max, argmin, argmax) over an empty slice, or a
    /// nan-arg reduction over an all-NaN slice.
    #[error("{op}: {msg}")]
    EmptyReduction {
        /// The operation.
        op: &'static str,
        /// What is wrong.
        msg: String,
    },
    /// A view that the strides do not allow, or an operation that needs a contiguous tensor.
    #[error("{op}: {msg}")]
    Layout {
        /// The operation.
        op: &'static str,
        /// What is wrong and what to do.
        msg: String,
    },
    /// The allocator (or the kernel's `mmap`) refused a buffer: the machine has not that much
    /// memory. Nothing was changed.
    #[error(
        "{op}: out of memory allocating {bytes} bytes; use a smaller shape or free other tensors"
    )]
    OutOfMemory {
        /// The operation.
        op: &'static str,
        /// The size of the refused allocation, in bytes.
        bytes: usize,
    },
    /// A matrix that has no inverse.
    #[error("{op}: the matrix is singular (pivot {pivot} is zero); it has no inverse")]
    Singular {
        /// The operation.
        op: &'static str,
        /// The pivot that vanished.
        pivot: usize,
    },
    /// The operating system refused a file operation (open, read, write, rename).
    #[error("{op}: {path}: {msg}")]
    Io {
        /// The operation.
        op: &'static str,
        /// The file.
        path: String,
        /// The system's message and what to do.
        msg: String,
    },
    /// A file whose contents are not a valid file of its format (truncated, a header that
    /// lies, offsets out of range, a dtype this crate does not have). Nothing was loaded.
    #[error("{op}: {path}: {msg}")]
    Format {
        /// The operation.
        op: &'static str,
        /// The file (or archive member).
        path: String,
        /// What is wrong and what to do.
        msg: String,
    },
}

/// `std::result::Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// This error naming `op` when it is an `Index` error: an op that indexes through another
    /// op (`take` through `index_select`, say) reports the index under its own name.
    pub(crate) fn index_named(self, op: &'static str) -> Self {
        match self {
            Error::Index {
                index,
                dim,
                size,
                shape,
                ..
            } => Error::Index {
                op,
                index,
                dim,
                size,
                shape,
            },
            e => e,
        }
    }

    /// This error under the name `name`, whatever its kind: a composite whose argument checks
    /// are all another op's (`select_scatter` through `select`) reports them as its own.
    pub(crate) fn renamed(mut self, name: &'static str) -> Self {
        match &mut self {
            Error::DataLength { op, .. }
            | Error::ShapeOverflow { op, .. }
            | Error::Broadcast { op, .. }
            | Error::ShapeMismatch { op, .. }
            | Error::Axis { op, .. }
            | Error::Index { op, .. }
            | Error::InvalidArgument { op, .. }
            | Error::DivisionByZero { op, .. }
            | Error::DtypeMismatch { op, .. }
            | Error::Device { op, .. }
            | Error::EmptyReduction { op, .. }
            | Error::Layout { op, .. }
            | Error::OutOfMemory { op, .. }
            | Error::Singular { op, .. }
            | Error::Io { op, .. }
            | Error::Format { op, .. } => *op = name,
        }
        self
    }

    /// This error naming `op` when it is an `InvalidArgument`: a composite that runs through
    /// another op's argument checks (`conv_transpose2d` through `conv2d`, say) reports them
    /// under its own name.
    pub(crate) fn invalid_named(self, op: &'static str) -> Self {
        match self {
            Error::InvalidArgument { msg, .. } => Error::InvalidArgument { op, msg },
            e => e,
        }
    }

    /// This error naming `op` when it is a `ShapeMismatch`: a composite that runs through
    /// another op's shape checks (`inner` through `tensordot`) reports them under its name.
    pub(crate) fn shape_named(self, op: &'static str) -> Self {
        match self {
            Error::ShapeMismatch { lhs, rhs, msg, .. } => {
                Error::ShapeMismatch { op, lhs, rhs, msg }
            }
            e => e,
        }
    }

    /// This error naming `op` when it is an `EmptyReduction`: a composite that reduces through
    /// `max`/`min` reports the empty slice under its own name.
    pub(crate) fn empty_named(self, op: &'static str) -> Self {
        match self {
            Error::EmptyReduction { msg, .. } => Error::EmptyReduction { op, msg },
            e => e,
        }
    }
}

/// The plain (panicking) form of an op: its `try_` form's value, or a panic with the `Err`'s
/// message at the caller's location.
pub(crate) trait OrPanic<T> {
    fn or_panic(self) -> T;
}

impl<T> OrPanic<T> for Result<T> {
    #[track_caller]
    #[inline]
    fn or_panic(self) -> T {
        match self {
            Ok(v) => v,
            Err(e) => panic!("{e}"),
        }
    }
}
