//! The numeric limits of each dtype (PyTorch's `torch.finfo` and `torch.iinfo`, NumPy's
//! `np.finfo` and `np.iinfo`).

use super::Dtype;
use crate::error::{Error, Result};

/// The limits of a floating-point dtype (PyTorch `torch.finfo`), as f64 values (each exact:
/// every value of the four float dtypes is an f64).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FInfo {
    /// The dtype described.
    pub dtype: Dtype,
    /// Bits per element.
    pub bits: u32,
    /// The gap between 1 and the next value.
    pub eps: f64,
    /// The largest finite value.
    pub max: f64,
    /// The most negative finite value (`-max`).
    pub min: f64,
    /// The smallest positive normal value (PyTorch's `tiny`, an alias of `smallest_normal`).
    pub smallest_normal: f64,
    /// The smallest positive subnormal value.
    pub smallest_subnormal: f64,
    /// The number of decimal digits the dtype holds (NumPy's `precision`).
    pub precision: u32,
    /// `10^-precision` (PyTorch's and NumPy's `resolution`).
    pub resolution: f64,
}

impl FInfo {
    /// The smallest positive normal value (PyTorch's and NumPy's name for `smallest_normal`).
    pub fn tiny(&self) -> f64 {
        self.smallest_normal
    }
}

/// The limits of an integer dtype (PyTorch `torch.iinfo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IInfo {
    /// The dtype described.
    pub dtype: Dtype,
    /// Bits per element.
    pub bits: u32,
    /// The largest value.
    pub max: i64,
    /// The smallest value.
    pub min: i64,
}

/// The limits of a float dtype (PyTorch `torch.finfo(dtype)`):
///
/// ```
/// use typed_tensor::{Dtype, finfo};
/// let h = finfo(Dtype::Float16)?;
/// assert_eq!((h.max, h.eps, h.tiny(), h.resolution), (65504.0, 2f64.powi(-10), 2f64.powi(-14), 1e-3));
/// assert_eq!(finfo(Dtype::Bfloat16)?.precision, 2);
/// assert!(finfo(Dtype::Int32).is_err()); // integers: iinfo
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `InvalidArgument` for an integer or bool dtype (PyTorch raises a `TypeError`).
pub fn finfo(dtype: Dtype) -> Result<FInfo> {
    // (bits, mantissa bits, largest finite, smallest normal exponent)
    let (bits, mantissa, max, min_exp): (u32, i32, f64, i32) = match dtype {
        Dtype::Float32 => (32, 23, f64::from(f32::MAX), -126),
        Dtype::Float64 => (64, 52, f64::MAX, -1022),
        Dtype::Float16 => (16, 10, 65504.0, -14),
        Dtype::Bfloat16 => (16, 7, half::bf16::MAX.to_f64(), -126),
        _ => {
            return Err(Error::InvalidArgument {
                op: "finfo",
                msg: format!("{dtype:?} is not a floating-point dtype; use iinfo for integers"),
            });
        }
    };
    let precision = (f64::from(mantissa as u32) * std::f64::consts::LOG10_2).floor() as u32;
    let smallest_normal = 2f64.powi(min_exp);
    Ok(FInfo {
        dtype,
        bits,
        eps: 2f64.powi(-mantissa),
        max,
        min: -max,
        smallest_normal,
        // A product of powers of two: exact, where 2^-1074 from `powi` would underflow.
        smallest_subnormal: smallest_normal * 2f64.powi(-mantissa),
        precision,
        // 10^precision is exact in f64, so the quotient is the correctly rounded 1e-p.
        resolution: 1.0 / 10f64.powi(precision as i32),
    })
}

/// The limits of an integer dtype (PyTorch `torch.iinfo(dtype)`):
///
/// ```
/// use typed_tensor::{Dtype, iinfo};
/// assert_eq!(iinfo(Dtype::UInt8)?.max, 255);
/// assert_eq!(iinfo(Dtype::Int64)?.min, i64::MIN);
/// assert!(iinfo(Dtype::Bool).is_err() && iinfo(Dtype::Float32).is_err());
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `InvalidArgument` for a float or bool dtype (PyTorch raises a `TypeError` for both).
pub fn iinfo(dtype: Dtype) -> Result<IInfo> {
    let (bits, min, max) = match dtype {
        Dtype::UInt8 => (8, 0, i64::from(u8::MAX)),
        Dtype::Int16 => (16, i64::from(i16::MIN), i64::from(i16::MAX)),
        Dtype::Int32 => (32, i64::from(i32::MIN), i64::from(i32::MAX)),
        Dtype::Int64 => (64, i64::MIN, i64::MAX),
        _ => {
            return Err(Error::InvalidArgument {
                op: "iinfo",
                msg: format!(
                    "{dtype:?} is not an integer dtype; use finfo for floats (bool has no limits)"
                ),
            });
        }
    };
    Ok(IInfo {
        dtype,
        bits,
        max,
        min,
    })
}
