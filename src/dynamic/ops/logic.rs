//! `DynTensor` forms of the logical and classification ops (`logical_*`, `is_inf`,
//! `is_finite`, `is_close`/`all_close`), the NumPy indexing and statistics routines still
//! missing here (`take_along_axis`, `put_along_axis`, `moveaxis`, `average`, `ptp`,
//! `argwhere`, `flatnonzero`, `rsqrt`, `logit`), and NumPy's ufunc names for the ops that have
//! PyTorch's (`absolute`, `arccos`, `subtract`, `greater`, ...), each a dispatch to one
//! typed op. Integer and Bool tensors get NumPy's answers where NumPy has one (`isinf` of an
//! integer is false everywhere, `isclose` of integers compares their values in f64).

use super::{not_float, not_numeric, pair_mismatch};
use crate::dynamic::{DeviceTensor, DynTensor, device_mismatch, typed_like};
use crate::error::Result;
use crate::ops::reduce::Reductions;

/// `DynTensor` methods of two tensors of one dtype (Bool included) giving a Bool tensor.
macro_rules! logical_pairs {
    ($($(#[$doc:meta])* $name:ident => $typed:ident;)*) => {
        impl DynTensor {
            $(
                $(#[$doc])*
                pub fn $name(&self, other: &DynTensor) -> Result<DynTensor> {
                    pair!(self, other, stringify!($name), a, b => Ok(a.$typed(b)?.into()),
                        bool: Ok(a.$typed(b)?.into()))
                }
            )*
        }
    };
}

logical_pairs! {
    /// True where both are nonzero (NumPy `logical_and`); a Bool tensor, broadcast.
    logical_and => try_logical_and;
    /// True where either is nonzero (NumPy `logical_or`).
    logical_or => try_logical_or;
    /// True where exactly one is nonzero (NumPy `logical_xor`).
    logical_xor => try_logical_xor;
}

/// NumPy's names for the `DynTensor` methods of the same meaning.
macro_rules! numpy_aliases {
    ($($name:ident($($arg:ident: $ty:ty),*) => $base:ident;)*) => {
        impl DynTensor {
            $(
                #[doc = concat!("NumPy's `", stringify!($name), "`: [`DynTensor::", stringify!($base), "`].")]
                ///
                /// # Errors
                #[doc = concat!("As [`DynTensor::", stringify!($base), "`].")]
                pub fn $name(&self $(, $arg: $ty)*) -> Result<DynTensor> {
                    self.$base($($arg),*)
                }
            )*
        }
    };
}

numpy_aliases! {
    absolute() => abs;
    fabs() => abs;
    negative() => neg;
    arccos() => acos;
    arcsin() => asin;
    arctan() => atan;
    arccosh() => acosh;
    arcsinh() => asinh;
    arctanh() => atanh;
    arctan2(other: &DynTensor) => atan2;
    rint() => round;
    degrees() => rad2deg;
    radians() => deg2rad;
    subtract(other: &DynTensor) => sub;
    multiply(other: &DynTensor) => mul;
    divide(other: &DynTensor) => div;
    mod_(other: &DynTensor) => remainder;
    not_equal(other: &DynTensor) => ne;
    greater(other: &DynTensor) => gt;
    greater_equal(other: &DynTensor) => ge;
    less(other: &DynTensor) => lt;
    less_equal(other: &DynTensor) => le;
    isnan() => is_nan;
    isinf() => is_inf;
    isfinite() => is_finite;
}

impl DynTensor {
    /// True where the element is zero (NumPy `logical_not`); a Bool tensor.
    ///
    /// # Errors
    /// When the output cannot be allocated.
    pub fn logical_not(&self) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.try_logical_not()?.into()))
    }

    /// True where the element is ±inf (PyTorch `isinf`, NumPy `isinf`): false everywhere for
    /// integer and Bool tensors.
    ///
    /// # Errors
    /// When the output cannot be allocated.
    pub fn is_inf(&self) -> Result<DynTensor> {
        dyn_float!(self, t => Ok(t.try_is_inf()?.into()),
            other => Ok(other.is_nan()?.logical_and(&other.is_nan()?)?))
    }

    /// True where the element is neither NaN nor ±inf (NumPy `isfinite`): true everywhere for
    /// integer and Bool tensors.
    ///
    /// # Errors
    /// When the output cannot be allocated.
    pub fn is_finite(&self) -> Result<DynTensor> {
        self.is_nan()?.logical_or(&self.is_inf()?)?.logical_not()
    }

    /// `|a - b| <= atol + rtol·|b|`, or `a == b`, element-wise (NumPy `isclose`, PyTorch
    /// `isclose` with `equal_nan = false`); integer tensors compare their values in f64.
    ///
    /// # Errors
    /// `DtypeMismatch`/`Device` for operands of different dtypes or devices;
    /// `InvalidArgument` for Bool tensors; `Broadcast` naming both shapes.
    pub fn is_close(&self, other: &DynTensor, rtol: f64, atol: f64) -> Result<DynTensor> {
        let (a, b) = if self.dtype().is_float() {
            (self.clone(), other.clone())
        } else if self.dtype() == other.dtype() && self.dtype() != crate::Dtype::Bool {
            let f = crate::Dtype::Float64;
            (self.to_dtype(f)?, other.to_dtype(f)?)
        } else if self.dtype() != other.dtype() {
            return Err(pair_mismatch("is_close", self.dtype(), other.dtype()));
        } else {
            return Err(not_numeric("is_close"));
        };
        float!(&a, "is_close", "", x => {
            let y = typed_like("is_close", &b, x)?;
            Ok(x.try_is_close(y, rtol, atol)?.into())
        })
    }

    /// NumPy's `isclose`: [`DynTensor::is_close`].
    ///
    /// # Errors
    /// As [`DynTensor::is_close`].
    pub fn isclose(&self, other: &DynTensor, rtol: f64, atol: f64) -> Result<DynTensor> {
        self.is_close(other, rtol, atol)
    }

    /// True when every pair is close (NumPy `allclose`, PyTorch `allclose`).
    ///
    /// # Errors
    /// As [`DynTensor::is_close`].
    pub fn allclose(&self, other: &DynTensor, rtol: f64, atol: f64) -> Result<bool> {
        let close = self.is_close(other, rtol, atol)?;
        Ok(close.reduce_all(&[], false)?.to_vec::<bool>()?[0])
    }

    /// The elements of `self` at the Int64 `indices` along `axis` (NumPy `take_along_axis`,
    /// PyTorch `take_along_dim`; `None` flattens both first).
    ///
    /// # Errors
    /// `DtypeMismatch`/`Device` for indices that are not Int64 or on another device; as
    /// [`crate::Tensor::try_take_along_axis`].
    pub fn take_along_axis(&self, indices: &DynTensor, axis: Option<i64>) -> Result<DynTensor> {
        dyn_each!(self, t => {
            let i = typed_like::<i64, _, _>("take_along_axis", indices, t)?;
            Ok(t.try_take_along_axis(i, axis)?.into())
        })
    }

    /// A copy of `self` with `values` written at the Int64 `indices` along `axis` (NumPy
    /// `put_along_axis`, out of place).
    ///
    /// # Errors
    /// `DtypeMismatch`/`Device` for indices that are not Int64, values of another dtype, or
    /// another device; `InvalidArgument` for Bool tensors; as
    /// [`crate::Tensor::try_put_along_axis`].
    pub fn put_along_axis(
        &self,
        indices: &DynTensor,
        values: &DynTensor,
        axis: Option<i64>,
    ) -> Result<DynTensor> {
        numeric!(self, "put_along_axis", t => {
            let i = typed_like::<i64, _, _>("put_along_axis", indices, t)?;
            let v = typed_like("put_along_axis", values, t)?;
            Ok(t.try_put_along_axis(i, v, axis)?.into())
        })
    }

    /// The axes `source` moved to the positions `destination`, the others in order (NumPy
    /// `moveaxis`, PyTorch `movedim`); a view.
    ///
    /// # Errors
    /// As [`crate::Tensor::moveaxis`].
    pub fn moveaxis(&self, source: &[i64], destination: &[i64]) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.moveaxis(source, destination)?.into()))
    }

    /// The (weighted) mean over `axes` (NumPy `average`), in the float dtype of `self`
    /// (integers: their float dtype); `weights` of `self`'s dtype.
    ///
    /// # Errors
    /// `InvalidArgument` for Bool tensors; as [`crate::Tensor::try_average`].
    pub fn average(
        &self,
        axes: &[i64],
        weights: Option<&DynTensor>,
        keepdim: bool,
    ) -> Result<DynTensor> {
        numeric!(self, "average", t => {
            let w = weights.map(|w| typed_like("average", w, t)).transpose()?;
            Ok(t.try_average(axes, w, keepdim)?.into())
        })
    }

    /// The range `max - min` over `axes` (NumPy `ptp`).
    ///
    /// # Errors
    /// `InvalidArgument` for Bool tensors; as [`crate::Tensor::try_ptp`].
    pub fn ptp(&self, axes: &[i64], keepdim: bool) -> Result<DynTensor> {
        numeric!(self, "ptp", t => Ok(t.try_ptp(axes, keepdim)?.into()))
    }

    /// The Int64 coordinates `(nonzero, ndim)` of the nonzero elements (NumPy `argwhere`).
    ///
    /// # Errors
    /// When the output cannot be allocated.
    pub fn argwhere(&self) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.try_argwhere()?.into()))
    }

    /// The Int64 flat positions of the nonzero elements (NumPy `flatnonzero`).
    ///
    /// # Errors
    /// When the output cannot be allocated.
    pub fn flatnonzero(&self) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.try_flatnonzero()?.into()))
    }

    /// `1 / √x` (PyTorch `rsqrt`); float dtypes.
    ///
    /// # Errors
    /// `InvalidArgument` for other dtypes.
    pub fn rsqrt(&self) -> Result<DynTensor> {
        float!(self, "rsqrt", "", t => Ok(t.try_rsqrt()?.into()))
    }

    /// `ln(x / (1 - x))`, `x` first clamped to `[eps, 1 - eps]` when given (PyTorch `logit`);
    /// float dtypes.
    ///
    /// # Errors
    /// `InvalidArgument` for other dtypes.
    pub fn logit(&self, eps: Option<f64>) -> Result<DynTensor> {
        float!(self, "logit", "", t => Ok(t.try_logit(eps)?.into()))
    }
}
