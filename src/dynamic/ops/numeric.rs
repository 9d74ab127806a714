//! `DynTensor` forms of the composites (`ops/numeric.rs`, `ops/arrange.rs`) and the searches
//! (`ops/search.rs`), each a dispatch to the typed op of the same name.

use super::{not_float, not_numeric, pair_mismatch};
use crate::backend::Backend;
use crate::dtype::{Dtype, Element, NumElement};
use crate::dynamic::{DeviceTensor, DynTensor, device_mismatch, typed_like};
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// `tensors` as typed tensors of `first`'s dtype and device, or the `Err` naming the first
/// that is not.
fn typed_list<'a, T: Element, D: Backend>(
    op: &'static str,
    first: &Tensor<T, D>,
    tensors: &[&'a DynTensor],
) -> Result<Vec<&'a Tensor<T, D>>> {
    tensors.iter().map(|t| typed_like(op, t, first)).collect()
}

/// The first of `tensors`, which fixes the dtype and device of a list op.
fn first<'a>(op: &'static str, tensors: &[&'a DynTensor]) -> Result<&'a DynTensor> {
    tensors
        .first()
        .copied()
        .ok_or_else(|| Error::InvalidArgument {
            op,
            msg: "needs at least one tensor".into(),
        })
}

/// `einsum` of operands of `first`'s dtype and device.
fn einsum_like<T: NumElement, D: Backend>(
    equation: &str,
    first: &Tensor<T, D>,
    operands: &[&DynTensor],
) -> Result<DynTensor> {
    Ok(Tensor::einsum(equation, &typed_list("einsum", first, operands)?)?.into())
}

/// The list ops of `ops/arrange.rs`, each on tensors of one dtype and device.
macro_rules! list_ops {
    ($($(#[$doc:meta])* $name:ident => $typed:ident;)*) => {
        impl DynTensor {
            $(
                $(#[$doc])*
                pub fn $name(tensors: &[&DynTensor]) -> Result<DynTensor> {
                    let op = stringify!($name);
                    dyn_each!(first(op, tensors)?, t => {
                        Ok(Tensor::$typed(&typed_list(op, t, tensors)?)?.into())
                    })
                }
            )*
        }
    };
}

list_ops! {
    /// Stacks along the first axis, inputs made at least 2-d (NumPy `vstack`).
    vstack => try_vstack;
    /// Concatenates along the second axis, or the first for 1-d inputs (NumPy `hstack`).
    hstack => try_hstack;
    /// Stacks along the third axis, inputs made at least 3-d (NumPy `dstack`).
    dstack => try_dstack;
    /// The block-diagonal matrix of the inputs (PyTorch `block_diag`).
    block_diag => try_block_diag;
    /// The Cartesian product of 1-d inputs, `(n_1 · … · n_k, k)` (PyTorch `cartesian_prod`).
    cartesian_prod => try_cartesian_prod;
}

impl DynTensor {
    /// Einstein summation (NumPy `einsum`); every operand of one numeric dtype and device
    /// (see [`crate::Tensor::einsum`]).
    pub fn einsum(equation: &str, operands: &[&DynTensor]) -> Result<DynTensor> {
        let Some(first) = operands.first() else {
            return Err(Error::InvalidArgument {
                op: "einsum",
                msg: "needs at least one operand".into(),
            });
        };
        numeric!(*first, "einsum", t => einsum_like(equation, t, operands))
    }
    /// `log(exp(a) + exp(b))` without overflow (NumPy `logaddexp`); float dtypes, both the
    /// same (see [`crate::Tensor::logaddexp`]).
    pub fn logaddexp(&self, other: &DynTensor) -> Result<DynTensor> {
        let dtype = self.dtype();
        dyn_float!(self, a => {
            let b = typed_like("logaddexp", other, a)?;
            Ok(a.try_logaddexp(b)?.into())
        }, _o => Err(not_float("logaddexp", "", dtype)))
    }
    /// `atan2(self, other)`, the angle of `(other, self)` (see [`crate::Tensor::atan2`]); both
    /// of one numeric dtype, integers giving their float dtype.
    pub fn atan2(&self, other: &DynTensor) -> Result<DynTensor> {
        pair!(self, other, "atan2", a, b => Ok(a.try_atan2(b)?.into()), bool: Err(not_numeric("atan2")))
    }
    /// `sqrt(self² + other²)` without overflow (see [`crate::Tensor::hypot`]).
    pub fn hypot(&self, other: &DynTensor) -> Result<DynTensor> {
        pair!(self, other, "hypot", a, b => Ok(a.try_hypot(b)?.into()), bool: Err(not_numeric("hypot")))
    }
    /// `|self|` with `other`'s sign bit (see [`crate::Tensor::copysign`]).
    pub fn copysign(&self, other: &DynTensor) -> Result<DynTensor> {
        pair!(self, other, "copysign", a, b => Ok(a.try_copysign(b)?.into()), bool: Err(not_numeric("copysign")))
    }
    /// `self · log(other)`, 0 where `self` is 0 (see [`crate::Tensor::xlogy`]); float dtypes,
    /// both the same.
    pub fn xlogy(&self, other: &DynTensor) -> Result<DynTensor> {
        let dtype = self.dtype();
        dyn_float!(self, a => {
            let b = typed_like("xlogy", other, a)?;
            Ok(a.try_xlogy(b)?.into())
        }, _o => Err(not_float("xlogy", "", dtype)))
    }
    /// The variance and the mean over `axes` (see [`crate::Tensor::var_mean`]).
    pub fn var_mean(
        &self,
        axes: &[i64],
        correction: usize,
        keepdim: bool,
    ) -> Result<(DynTensor, DynTensor)> {
        dyn_each!(self, t => {
            let (v, m) = t.try_var_mean(axes, correction, keepdim)?;
            Ok((v.into(), m.into()))
        })
    }
    /// The standard deviation and the mean over `axes` (see [`crate::Tensor::std_mean`]).
    pub fn std_mean(
        &self,
        axes: &[i64],
        correction: usize,
        keepdim: bool,
    ) -> Result<(DynTensor, DynTensor)> {
        dyn_each!(self, t => {
            let (v, m) = t.try_std_mean(axes, correction, keepdim)?;
            Ok((v.into(), m.into()))
        })
    }
    /// The minimum and the maximum over `axes` (see [`crate::Tensor::aminmax`]).
    pub fn aminmax(&self, axes: &[i64], keepdim: bool) -> Result<(DynTensor, DynTensor)> {
        dyn_each!(self, t => {
            let (lo, hi) = t.try_aminmax(axes, keepdim)?;
            Ok((lo.into(), hi.into()))
        })
    }
    /// The integral along `axis` by the trapezoidal rule (see [`crate::Tensor::trapezoid`]).
    pub fn trapezoid(&self, dx: f64, axis: i64) -> Result<DynTensor> {
        float!(self, "trapezoid", "", t => Ok(t.try_trapezoid(dx, axis)?.into()))
    }
    /// `num_samples` Int64 category indices per row of weights (see
    /// [`crate::Tensor::multinomial`]); float dtypes.
    pub fn multinomial(&self, num_samples: usize, replacement: bool) -> Result<DynTensor> {
        float!(self, "multinomial", "", t => Ok(t.try_multinomial(num_samples, replacement)?.into()))
    }
    /// One Poisson draw per element, the element its rate (see [`crate::Tensor::poisson`]);
    /// float dtypes.
    pub fn poisson(&self) -> Result<DynTensor> {
        float!(self, "poisson", "", t => Ok(t.try_poisson()?.into()))
    }
    /// The running trapezoidal integral along `axis` (see
    /// [`crate::Tensor::cumulative_trapezoid`]); float dtypes.
    pub fn cumulative_trapezoid(&self, dx: f64, axis: i64) -> Result<DynTensor> {
        float!(self, "cumulative_trapezoid", "", t => Ok(t.try_cumulative_trapezoid(dx, axis)?.into()))
    }
    /// The variance of the non-NaN elements (NumPy `nanvar`, see [`crate::Tensor::nanvar`]);
    /// float dtypes.
    pub fn nanvar(&self, axes: &[i64], ddof: usize, keepdim: bool) -> Result<DynTensor> {
        float!(self, "nanvar", "", t => Ok(t.try_nanvar(axes, ddof, keepdim)?.into()))
    }
    /// The standard deviation of the non-NaN elements (NumPy `nanstd`); float dtypes.
    pub fn nanstd(&self, axes: &[i64], ddof: usize, keepdim: bool) -> Result<DynTensor> {
        float!(self, "nanstd", "", t => Ok(t.try_nanstd(axes, ddof, keepdim)?.into()))
    }
    /// The multivariate log-gamma function (see [`crate::Tensor::mvlgamma`]); float dtypes.
    pub fn mvlgamma(&self, p: usize) -> Result<DynTensor> {
        float!(self, "mvlgamma", "", t => Ok(t.try_mvlgamma(p)?.into()))
    }
    /// `self + weight · (end - self)` (PyTorch `lerp`); float dtypes, both the same.
    pub fn lerp(&self, end: &DynTensor, weight: f64) -> Result<DynTensor> {
        let dtype = self.dtype();
        dyn_float!(self, a => {
            let b = typed_like("lerp", end, a)?;
            Ok(a.try_lerp(b, Element::from_f64(weight))?.into())
        }, _o => Err(not_float("lerp", "", dtype)))
    }
    /// NaN and the infinities replaced (NumPy `nan_to_num`; the infinities default to the
    /// dtype's extreme finite values); integer and bool tensors are returned as they are.
    pub fn nan_to_num(
        &self,
        nan: f64,
        posinf: Option<f64>,
        neginf: Option<f64>,
    ) -> Result<DynTensor> {
        dyn_float!(self, a => {
            let f = Element::from_f64;
            Ok(a.try_nan_to_num(f(nan), posinf.map(f), neginf.map(f))?.into())
        }, o => Ok(o.clone()))
    }
    /// The `q`-quantile along `axis` with linear interpolation (NumPy `quantile`); float
    /// dtypes (PyTorch refuses integers too).
    pub fn quantile(&self, q: f64, axis: i64, keepdim: bool) -> Result<DynTensor> {
        float!(self, "quantile", "", t => Ok(t.try_quantile(q, axis, keepdim)?.into()))
    }
    /// The lower median along `axis` and its Int64 index (PyTorch `median(dim)`).
    pub fn median(&self, axis: i64, keepdim: bool) -> Result<(DynTensor, DynTensor)> {
        numeric!(self, "median", t => {
            let (v, i) = t.try_median(axis, keepdim)?;
            Ok((v.into(), i.into()))
        })
    }
    /// The number of non-zero elements over `axes` (all when empty), as Int64 (NumPy
    /// `count_nonzero`).
    pub fn count_nonzero(&self, axes: &[i64], keepdim: bool) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.try_count_nonzero(axes, keepdim)?.into()))
    }
    /// The `n`-th discrete difference along `axis` (NumPy `diff`); numeric dtypes.
    pub fn diff(&self, n: usize, axis: i64) -> Result<DynTensor> {
        numeric!(self, "diff", t => Ok(t.try_diff(n, axis)?.into()))
    }
    /// The Kronecker product (NumPy `kron`); both dtypes the same.
    pub fn kron(&self, other: &DynTensor) -> Result<DynTensor> {
        pair!(self, other, "kron", a, b => Ok(a.try_kron(b)?.into()), bool: Err(not_numeric("kron")))
    }
    /// The cross product of 3-vectors along `axis` (PyTorch `linalg.cross`).
    pub fn cross(&self, other: &DynTensor, axis: i64) -> Result<DynTensor> {
        pair!(self, other, "cross", a, b => Ok(a.try_cross(b, axis)?.into()), bool: Err(not_numeric("cross")))
    }
    /// The sum of a matrix's diagonal (PyTorch `trace`; Int64 for integers).
    pub fn trace(&self) -> Result<DynTensor> {
        numeric!(self, "trace", t => Ok(t.try_trace()?.into()))
    }
    /// Rotates by 90° `k` times in the plane of `axes` (NumPy `rot90`); a view.
    pub fn rot90(&self, k: i64, axes: (i64, i64)) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.rot90(k, axes)?.into()))
    }
    /// The covariance matrix of the rows (NumPy `cov` with `ddof = correction`); float dtypes.
    pub fn cov(&self, correction: usize) -> Result<DynTensor> {
        float!(self, "cov", "", t => Ok(t.try_cov(correction)?.into()))
    }
    /// The correlation coefficients of the rows (NumPy `corrcoef`); float dtypes.
    pub fn corrcoef(&self) -> Result<DynTensor> {
        float!(self, "corrcoef", "", t => Ok(t.try_corrcoef()?.into()))
    }
    /// Moves axes `source` to `destination` (NumPy `moveaxis`); a view.
    pub fn movedim(&self, source: &[i64], destination: &[i64]) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.movedim(source, destination)?.into()))
    }
    /// The `(k, ndim)` Int64 coordinates of the non-zero elements (PyTorch `nonzero`).
    pub fn nonzero(&self) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.try_nonzero()?.into()))
    }
    /// Sorted distinct values, each element's Int64 position among them and the Int64
    /// counts (NumPy `unique` with `return_inverse` and `return_counts`).
    pub fn unique(&self) -> Result<(DynTensor, DynTensor, DynTensor)> {
        dyn_each!(self, t => {
            let (v, i, c) = t.try_unique()?;
            Ok((v.into(), i.into(), c.into()))
        })
    }
    /// Insertion points of `values` into this sorted 1-d tensor (NumPy `searchsorted`);
    /// both dtypes the same.
    pub fn searchsorted(&self, values: &DynTensor, right: bool) -> Result<DynTensor> {
        dyn_each!(self, t => {
            let v = typed_like("searchsorted", values, t)?;
            Ok(t.try_searchsorted(v, right)?.into())
        })
    }
    /// Whether each element occurs in `elements` (NumPy `isin`); both dtypes the same.
    pub fn isin(&self, elements: &DynTensor) -> Result<DynTensor> {
        dyn_each!(self, t => {
            let e = typed_like("isin", elements, t)?;
            Ok(t.try_isin(e)?.into())
        })
    }
    /// Occurrences of each value of a 1-d Int64 tensor (NumPy `bincount`).
    pub fn bincount(&self, minlength: usize) -> Result<DynTensor> {
        match self {
            DynTensor::I64(DeviceTensor::Cpu(t)) => Ok(t.try_bincount(minlength)?.into()),
            DynTensor::I64(DeviceTensor::Cuda(t)) => Ok(t.try_bincount(minlength)?.into()),
            _ => Err(Error::InvalidArgument {
                op: "bincount",
                msg: format!(
                    "takes an {} tensor, got {}; convert with to_dtype() first",
                    Dtype::Int64,
                    self.dtype()
                ),
            }),
        }
    }
}
