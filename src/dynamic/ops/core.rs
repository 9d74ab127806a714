//! `DynTensor` forms of the PyTorch-core composites (`ops/scan.rs`, `ops/pointwise.rs`,
//! `ops/scatter.rs`, `ops/matrix.rs` and the later entries of `ops/float_math.rs`,
//! `ops/stats.rs`, `ops/matmul.rs`), each a dispatch to the typed op of the same name.

use super::{not_float, not_numeric, pair_mismatch};
use crate::dynamic::{DeviceTensor, DynTensor, Scalar, device_mismatch, typed_like};
use crate::error::Result;
use crate::ops::matrix::MatrixNorm;

type Pair = (DynTensor, DynTensor);

/// `DynTensor` methods of one float tensor (no other argument) that keep the dtype.
macro_rules! float_composites {
    ($($(#[$doc:meta])* $name:ident => $typed:ident;)*) => {
        impl DynTensor {
            $(
                $(#[$doc])*
                pub fn $name(&self) -> Result<DynTensor> {
                    float!(self, stringify!($name), "", t => Ok(t.$typed()?.into()))
                }
            )*
        }
    };
}

float_composites! {
    /// `self - trunc(self)` (see [`crate::Tensor::frac`]); float dtypes.
    frac => try_frac;
    /// `sin(πx) / (πx)`, 1 at 0 (see [`crate::Tensor::sinc`]); float dtypes.
    sinc => try_sinc;
    /// Degrees to radians (see [`crate::Tensor::deg2rad`]); float dtypes.
    deg2rad => try_deg2rad;
    /// Radians to degrees (see [`crate::Tensor::rad2deg`]); float dtypes.
    rad2deg => try_rad2deg;
    /// `log(det)` of each square matrix (see [`crate::Tensor::logdet`]); float dtypes.
    logdet => try_logdet;
    /// `-x·ln x` (see [`crate::Tensor::entr`]); float dtypes.
    entr => try_entr;
    /// The standard normal distribution function (see [`crate::Tensor::ndtr`]); float dtypes.
    ndtr => try_ndtr;
}

/// `DynTensor` methods of two tensors of one numeric dtype and device that keep it.
macro_rules! numeric_pairs {
    ($($(#[$doc:meta])* $name:ident => $typed:ident;)*) => {
        impl DynTensor {
            $(
                $(#[$doc])*
                pub fn $name(&self, other: &DynTensor) -> Result<DynTensor> {
                    let op = stringify!($name);
                    pair!(self, other, op, a, b => Ok(a.$typed(b)?.into()), bool: Err(not_numeric(op)))
                }
            )*
        }
    };
}

numeric_pairs! {
    /// The larger of the two, ignoring NaN (see [`crate::Tensor::fmax`]).
    fmax => try_fmax;
    /// The smaller of the two, ignoring NaN (see [`crate::Tensor::fmin`]).
    fmin => try_fmin;
    /// The Heaviside step with `other` at zero (see [`crate::Tensor::heaviside`]).
    heaviside => try_heaviside;
}

impl DynTensor {
    /// The running maximum along `axis` and its Int64 indices (see
    /// [`crate::Tensor::cummax`]).
    pub fn cummax(&self, axis: i64) -> Result<Pair> {
        numeric!(self, "cummax", t => {
            let (v, i) = t.try_cummax(axis)?;
            Ok((v.into(), i.into()))
        })
    }
    /// The running minimum along `axis` and its Int64 indices (see
    /// [`crate::Tensor::cummin`]).
    pub fn cummin(&self, axis: i64) -> Result<Pair> {
        numeric!(self, "cummin", t => {
            let (v, i) = t.try_cummin(axis)?;
            Ok((v.into(), i.into()))
        })
    }
    /// `log(cumsum(exp(self)))` along `axis` (see [`crate::Tensor::logcumsumexp`]); float
    /// dtypes.
    pub fn logcumsumexp(&self, axis: i64) -> Result<DynTensor> {
        float!(self, "logcumsumexp", "", t => Ok(t.try_logcumsumexp(axis)?.into()))
    }
    /// The `k`-th smallest element along `axis` and its Int64 index (see
    /// [`crate::Tensor::kthvalue`]).
    pub fn kthvalue(&self, k: usize, axis: i64, keepdim: bool) -> Result<Pair> {
        dyn_each!(self, t => {
            let (v, i) = t.try_kthvalue(k, axis, keepdim)?;
            Ok((v.into(), i.into()))
        })
    }
    /// The lower median of the non-NaN elements along `axis` and its Int64 index (see
    /// [`crate::Tensor::nanmedian`]); float dtypes.
    pub fn nanmedian(&self, axis: i64, keepdim: bool) -> Result<Pair> {
        float!(self, "nanmedian", "median", t => {
            let (v, i) = t.try_nanmedian(axis, keepdim)?;
            Ok((v.into(), i.into()))
        })
    }
    /// Clamps into `[min, max]`, either bound optional (see [`crate::Tensor::clamp`]); a
    /// float bound on an integer tensor computes in its float dtype, as [`DynTensor::clip`].
    pub fn clamp(&self, min: Option<Scalar>, max: Option<Scalar>) -> Result<DynTensor> {
        let float_bound = [min, max].iter().flatten().any(|s| s.is_float());
        if float_bound && !self.dtype().is_float() && self.dtype() != crate::dtype::Dtype::Bool {
            return self.to_dtype(self.dtype().float_of())?.clamp(min, max);
        }
        numeric!(self, "clamp", t => Ok(t.try_clamp(min.map(|s| s.to()), max.map(|s| s.to()))?.into()))
    }
    /// Whether the sign bit is set, as Bool (see [`crate::Tensor::signbit`]).
    pub fn signbit(&self) -> Result<DynTensor> {
        numeric!(self, "signbit", t => Ok(t.try_signbit()?.into()))
    }
    /// `log2(2^a + 2^b)` (see [`crate::Tensor::logaddexp2`]); float dtypes, both the same.
    pub fn logaddexp2(&self, other: &DynTensor) -> Result<DynTensor> {
        float!(self, "logaddexp2", "", a => {
            let b = typed_like("logaddexp2", other, a)?;
            Ok(a.try_logaddexp2(b)?.into())
        })
    }
    /// `self · log1p(other)`, 0 where `self` is 0 (see [`crate::Tensor::xlog1py`]); float
    /// dtypes, both the same.
    pub fn xlog1py(&self, other: &DynTensor) -> Result<DynTensor> {
        float!(self, "xlog1py", "", a => {
            let b = typed_like("xlog1py", other, a)?;
            Ok(a.try_xlog1py(b)?.into())
        })
    }
    /// `self + value · tensor1 · tensor2` (see [`crate::Tensor::addcmul`]).
    pub fn addcmul(
        &self,
        tensor1: &DynTensor,
        tensor2: &DynTensor,
        value: impl Into<Scalar>,
    ) -> Result<DynTensor> {
        let value = value.into();
        pair!(self, tensor1, "addcmul", a, b => {
            let c = typed_like("addcmul", tensor2, a)?;
            Ok(a.try_addcmul(b, c, value.to())?.into())
        }, bool: Err(not_numeric("addcmul")))
    }
    /// `self + value · tensor1 / tensor2` (see [`crate::Tensor::addcdiv`]); float dtypes.
    pub fn addcdiv(
        &self,
        tensor1: &DynTensor,
        tensor2: &DynTensor,
        value: impl Into<Scalar>,
    ) -> Result<DynTensor> {
        let value = value.into();
        float!(self, "addcdiv", "", a => {
            let b = typed_like("addcdiv", tensor1, a)?;
            let c = typed_like("addcdiv", tensor2, a)?;
            Ok(a.try_addcdiv(b, c, value.to())?.into())
        })
    }
    /// `self` with `src` written at the Int64 `index` along `axis`, the last of repeated
    /// writes winning (see [`crate::Tensor::scatter`]).
    pub fn scatter(&self, axis: i64, index: &DynTensor, src: &DynTensor) -> Result<DynTensor> {
        pair!(self, src, "scatter", t, s => {
            let i = typed_like("scatter", index, t)?;
            Ok(t.try_scatter(axis, i, s)?.into())
        }, bool: Err(not_numeric("scatter")))
    }
    /// `self` with `value` written at the Int64 `index` along `axis` (see
    /// [`crate::Tensor::scatter_value`]).
    pub fn scatter_value(
        &self,
        axis: i64,
        index: &DynTensor,
        value: impl Into<Scalar>,
    ) -> Result<DynTensor> {
        let value = value.into();
        numeric!(self, "scatter", t => {
            let i = typed_like("scatter", index, t)?;
            Ok(t.try_scatter_value(axis, i, value.to())?.into())
        })
    }
    /// `self` with the slices of `source` copied to the slices the 1-d Int64 `index` names
    /// (see [`crate::Tensor::index_copy`]).
    pub fn index_copy(
        &self,
        axis: i64,
        index: &DynTensor,
        source: &DynTensor,
    ) -> Result<DynTensor> {
        pair!(self, source, "index_copy", t, s => {
            let i = typed_like("index_copy", index, t)?;
            Ok(t.try_index_copy(axis, i, s)?.into())
        }, bool: Err(not_numeric("index_copy")))
    }
    /// `self` with `value` in the slices the 1-d Int64 `index` names (see
    /// [`crate::Tensor::index_fill`]).
    pub fn index_fill(
        &self,
        axis: i64,
        index: &DynTensor,
        value: impl Into<Scalar>,
    ) -> Result<DynTensor> {
        let value = value.into();
        numeric!(self, "index_fill", t => {
            let i = typed_like("index_fill", index, t)?;
            Ok(t.try_index_fill(axis, i, value.to())?.into())
        })
    }
    /// `self` with the elements of `source` written where the Bool `mask` is true (see
    /// [`crate::Tensor::masked_scatter`]).
    pub fn masked_scatter(&self, mask: &DynTensor, source: &DynTensor) -> Result<DynTensor> {
        pair!(self, source, "masked_scatter", t, s => {
            let m = typed_like("masked_scatter", mask, t)?;
            Ok(t.try_masked_scatter(m, s)?.into())
        }, bool: Err(not_numeric("masked_scatter")))
    }
    /// The elements at the Int64 `indices` along `axis`, broadcast (see
    /// [`crate::Tensor::take_along_dim`]).
    pub fn take_along_dim(&self, indices: &DynTensor, axis: Option<i64>) -> Result<DynTensor> {
        dyn_each!(self, t => {
            let i = typed_like("take_along_dim", indices, t)?;
            Ok(t.try_take_along_dim(i, axis)?.into())
        })
    }
    /// The slice at `index` along `axis`, that axis removed; a view (see
    /// [`crate::Tensor::select`]).
    pub fn select(&self, axis: i64, index: i64) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.select(axis, index)?.into()))
    }
    /// The `ord`-norm over `axes`, negative orders included (see
    /// [`crate::Tensor::vector_norm`]).
    pub fn vector_norm(&self, ord: f64, axes: &[i64], keepdim: bool) -> Result<DynTensor> {
        numeric!(self, "vector_norm", t => Ok(t.try_vector_norm(ord, axes, keepdim)?.into()))
    }
    /// The matrix norm of each matrix in the last two dimensions (see
    /// [`crate::Tensor::matrix_norm`]).
    pub fn matrix_norm(&self, ord: MatrixNorm, keepdim: bool) -> Result<DynTensor> {
        numeric!(self, "matrix_norm", t => Ok(t.try_matrix_norm(ord, keepdim)?.into()))
    }
    /// The columns in reverse order, a view (see [`crate::Tensor::fliplr`]).
    pub fn fliplr(&self) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.fliplr()?.into()))
    }
    /// The rows in reverse order, a view (see [`crate::Tensor::flipud`]).
    pub fn flipud(&self) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.flipud()?.into()))
    }
    /// The flattened tensor on the `k`-th diagonal (see [`crate::Tensor::diagflat`]).
    pub fn diagflat(&self, k: i64) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.try_diagflat(k)?.into()))
    }
    /// The Int64 bucket of each element among the sorted 1-d `boundaries` (see
    /// [`crate::Tensor::bucketize`]).
    pub fn bucketize(&self, boundaries: &DynTensor, right: bool) -> Result<DynTensor> {
        pair!(self, boundaries, "bucketize", a, b => Ok(a.try_bucketize(b, right)?.into()),
            bool: Ok(a.try_bucketize(b, right)?.into()))
    }
    /// The bin of each element among monotonic 1-d `bins`, as Int64 (NumPy `digitize`, see
    /// [`crate::Tensor::digitize`]).
    pub fn digitize(&self, bins: &DynTensor, right: bool) -> Result<DynTensor> {
        pair!(self, bins, "digitize", a, b => Ok(a.try_digitize(b, right)?.into()),
            bool: Ok(a.try_digitize(b, right)?.into()))
    }
    /// The histogram in `bins` bins over `[min, max]` (see [`crate::Tensor::histc`]); float
    /// dtypes.
    pub fn histc(&self, bins: usize, min: f64, max: f64) -> Result<DynTensor> {
        float!(self, "histc", "", t => Ok(t.try_histc(bins, min, max)?.into()))
    }
    /// The Vandermonde matrix of a 1-d tensor (see [`crate::Tensor::vander`]).
    pub fn vander(&self, n: Option<usize>, increasing: bool) -> Result<DynTensor> {
        numeric!(self, "vander", t => Ok(t.try_vander(n, increasing)?.into()))
    }
    /// `X` with `A·X = B` for the triangle of `self` (see
    /// [`crate::Tensor::solve_triangular`]).
    pub fn solve_triangular(
        &self,
        b: &DynTensor,
        upper: bool,
        left: bool,
        unitriangular: bool,
    ) -> Result<DynTensor> {
        pair!(self, b, "solve_triangular", a, b => Ok(a.try_solve_triangular(b, upper, left, unitriangular)?.into()),
            bool: Err(not_numeric("solve_triangular")))
    }
    /// `X` with `L·Lᵀ·X = self` (see [`crate::Tensor::cholesky_solve`]).
    pub fn cholesky_solve(&self, l: &DynTensor, upper: bool) -> Result<DynTensor> {
        pair!(self, l, "cholesky_solve", b, l => Ok(b.try_cholesky_solve(l, upper)?.into()),
            bool: Err(not_numeric("cholesky_solve")))
    }
    /// `A⁻¹` for `A = L·Lᵀ` given its Cholesky factor `self` (see
    /// [`crate::Tensor::cholesky_inverse`]).
    pub fn cholesky_inverse(&self, upper: bool) -> Result<DynTensor> {
        numeric!(self, "cholesky_inverse", t => Ok(t.try_cholesky_inverse(upper)?.into()))
    }
    /// The Cholesky factors and PyTorch's `info` per matrix (Int32) instead of an `Err` (see
    /// [`crate::Tensor::cholesky_ex`]).
    pub fn cholesky_ex(&self, upper: bool) -> Result<(DynTensor, DynTensor)> {
        numeric!(self, "cholesky_ex", t => {
            let (l, info) = t.try_cholesky_ex(upper)?;
            Ok((l.into(), info.into()))
        })
    }
    /// The inverses and PyTorch's `info` per matrix (Int32) instead of an `Err` (see
    /// [`crate::Tensor::inv_ex`]).
    pub fn inv_ex(&self) -> Result<(DynTensor, DynTensor)> {
        numeric!(self, "inv_ex", t => {
            let (inv, info) = t.try_inv_ex()?;
            Ok((inv.into(), info.into()))
        })
    }
    /// The least-squares solution of `self · X = b` (see [`crate::Tensor::lstsq`]).
    pub fn lstsq(&self, b: &DynTensor) -> Result<DynTensor> {
        pair!(self, b, "lstsq", a, b => Ok(a.try_lstsq(b)?.into()), bool: Err(not_numeric("lstsq")))
    }
    /// `self` with the values of `src` at the Int64 `index` combined per target by `reduce`
    /// (see [`crate::Tensor::scatter_reduce`]).
    pub fn scatter_reduce(
        &self,
        axis: i64,
        index: &DynTensor,
        src: &DynTensor,
        reduce: crate::ops::scatter_reduce::ScatterReduce,
        include_self: bool,
    ) -> Result<DynTensor> {
        pair!(self, src, "scatter_reduce", t, s => {
            let i = typed_like("scatter_reduce", index, t)?;
            Ok(t.try_scatter_reduce(axis, i, s, reduce, include_self)?.into())
        }, bool: Err(not_numeric("scatter_reduce")))
    }
    /// Each segment of consecutive elements along `axis` reduced by `reduce` (see
    /// [`crate::Tensor::segment_reduce`]), its segments given by `lengths` or, when there are
    /// none, by `offsets`, of any integer dtype (PyTorch's keywords); `initial` in `f64`.
    /// Float tensors only, as PyTorch's.
    pub fn segment_reduce(
        &self,
        reduce: crate::ops::segment::SegmentReduce,
        lengths: Option<&DynTensor>,
        offsets: Option<&DynTensor>,
        axis: i64,
        initial: Option<f64>,
    ) -> Result<DynTensor> {
        use crate::ops::segment::Segments;
        let op = "segment_reduce";
        let (seg, by_lengths) = match (lengths, offsets) {
            (Some(l), _) => (l, true),
            (None, Some(o)) => (o, false),
            (None, None) => {
                return Err(crate::error::Error::InvalidArgument {
                    op,
                    msg: "needs lengths or offsets; give one of them".into(),
                });
            }
        };
        if seg.dtype().is_float() {
            return Err(crate::error::Error::InvalidArgument {
                op,
                msg: format!("needs integer lengths or offsets, got {}", seg.dtype()),
            });
        }
        let seg = seg.to_dtype(crate::Dtype::Int64)?;
        float!(self, op, "", t => {
            let s = typed_like(op, &seg, t)?;
            let segments = if by_lengths { Segments::Lengths(s) } else { Segments::Offsets(s) };
            let init = initial.map(crate::dtype::Element::from_f64);
            Ok(t.try_segment_reduce(reduce, segments, axis, init)?.into())
        })
    }
}

/// `Err` unless `d` has an integer or bool dtype, for the bitwise ops.
fn integral(op: &'static str, d: &DynTensor) -> Result<()> {
    if d.dtype().is_float() {
        return Err(crate::error::Error::InvalidArgument {
            op,
            msg: format!(
                "{op} needs an integer or bool tensor and this one is {}; convert with to_dtype() first",
                d.dtype()
            ),
        });
    }
    Ok(())
}

/// The bitwise ops of two integer tensors of one dtype and device; on bool tensors the
/// logical op given.
macro_rules! bitwise_pairs {
    ($($(#[$doc:meta])* $name:ident => $typed:ident, bool: $logical:ident;)*) => {
        impl DynTensor {
            $(
                $(#[$doc])*
                pub fn $name(&self, other: &DynTensor) -> Result<DynTensor> {
                    let op = stringify!($name);
                    integral(op, self)?;
                    pair!(@arms self, other, op, a, b => Ok(a.$typed(b)?.into()),
                        $logical(op, a, b); I16 I32 I64 U8)
                }
            )*
        }
    };
}

fn and<D: crate::backend::Backend>(
    _: &str,
    a: &crate::tensor::Tensor<bool, D>,
    b: &crate::tensor::Tensor<bool, D>,
) -> Result<DynTensor> {
    Ok(a.try_logical_and(b)?.into())
}
fn or<D: crate::backend::Backend>(
    _: &str,
    a: &crate::tensor::Tensor<bool, D>,
    b: &crate::tensor::Tensor<bool, D>,
) -> Result<DynTensor> {
    Ok(a.try_logical_or(b)?.into())
}
fn xor<D: crate::backend::Backend>(
    _: &str,
    a: &crate::tensor::Tensor<bool, D>,
    b: &crate::tensor::Tensor<bool, D>,
) -> Result<DynTensor> {
    Ok(a.try_logical_xor(b)?.into())
}
fn no_shift<D: crate::backend::Backend>(
    op: &'static str,
    _: &crate::tensor::Tensor<bool, D>,
    _: &crate::tensor::Tensor<bool, D>,
) -> Result<DynTensor> {
    Err(not_numeric(op))
}

bitwise_pairs! {
    /// Bitwise AND of integer tensors (NumPy `bitwise_and`); logical AND of bool tensors.
    bitwise_and => try_bitwise_and, bool: and;
    /// Bitwise OR of integer tensors (NumPy `bitwise_or`); logical OR of bool tensors.
    bitwise_or => try_bitwise_or, bool: or;
    /// Bitwise XOR of integer tensors (NumPy `bitwise_xor`); logical XOR of bool tensors.
    bitwise_xor => try_bitwise_xor, bool: xor;
    /// `self << other` for integer tensors (NumPy `left_shift`; see
    /// [`crate::Tensor::bitwise_left_shift`]).
    bitwise_left_shift => try_bitwise_left_shift, bool: no_shift;
    /// `self >> other` for integer tensors, arithmetic for signed dtypes (NumPy
    /// `right_shift`).
    bitwise_right_shift => try_bitwise_right_shift, bool: no_shift;
}

impl DynTensor {
    /// Every bit flipped (NumPy `invert`); logical NOT of a bool tensor.
    pub fn bitwise_not(&self) -> Result<DynTensor> {
        integral("bitwise_not", self)?;
        numeric!(@arms self, t => Ok(t.try_bitwise_not()?.into()),
            _ => match self {
                DynTensor::Bool(DeviceTensor::Cpu(t)) => Ok(t.try_logical_not()?.into()),
                DynTensor::Bool(DeviceTensor::Cuda(t)) => Ok(t.try_logical_not()?.into()),
                _ => Err(not_numeric("bitwise_not")),
            }; I16 I32 I64 U8)
    }
}

bitwise_pairs! {
    /// The greatest common divisor of integer tensors (NumPy `gcd`).
    gcd => try_gcd, bool: no_shift;
    /// The least common multiple of integer tensors (NumPy `lcm`).
    lcm => try_lcm, bool: no_shift;
}

fn all(v: Vec<impl Into<DynTensor>>) -> Vec<DynTensor> {
    v.into_iter().map(Into::into).collect()
}

impl DynTensor {
    /// `self / other` in the float dtype, integers converted first (see
    /// [`crate::Tensor::true_divide`]).
    pub fn true_divide(&self, other: &DynTensor) -> Result<DynTensor> {
        pair!(self, other, "true_divide", a, b => Ok(a.try_true_divide(b)?.into()), bool: Err(not_numeric("true_divide")))
    }
    /// Where an element is `+inf`, as Bool (see [`crate::Tensor::isposinf`]).
    pub fn isposinf(&self) -> Result<DynTensor> {
        numeric!(self, "isposinf", t => Ok(t.try_isposinf()?.into()))
    }
    /// Where an element is `-inf`, as Bool (see [`crate::Tensor::isneginf`]).
    pub fn isneginf(&self) -> Result<DynTensor> {
        numeric!(self, "isneginf", t => Ok(t.try_isneginf()?.into()))
    }
    /// True for the same dtype, device, shape and elements (see [`crate::Tensor::equal`]);
    /// another dtype is `false`, not an `Err`, as PyTorch.
    pub fn equal(&self, other: &DynTensor) -> Result<bool> {
        if self.dtype() != other.dtype() {
            return Ok(false);
        }
        dyn_each!(self, t => t.try_equal(typed_like("equal", other, t)?))
    }
    /// The `q`-quantile of the non-NaN elements along `axis` (see
    /// [`crate::Tensor::nanquantile`]); float dtypes.
    pub fn nanquantile(&self, q: f64, axis: i64, keepdim: bool) -> Result<DynTensor> {
        float!(self, "nanquantile", "quantile", t => Ok(t.try_nanquantile(q, axis, keepdim)?.into()))
    }
    /// The derivative along `axis` by central differences (see [`crate::Tensor::gradient`]);
    /// float dtypes.
    pub fn gradient(&self, dx: f64, axis: i64) -> Result<DynTensor> {
        float!(self, "gradient", "", t => Ok(t.try_gradient(dx, axis)?.into()))
    }
    /// The `p`-norm of `self - other` (see [`crate::Tensor::dist`]).
    pub fn dist(&self, other: &DynTensor, p: f64) -> Result<DynTensor> {
        pair!(self, other, "dist", a, b => Ok(a.try_dist(b, p)?.into()), bool: Err(not_numeric("dist")))
    }
    /// Slices along `axis` scaled down to norm `maxnorm` (see [`crate::Tensor::renorm`]).
    pub fn renorm(&self, p: f64, axis: i64, maxnorm: f64) -> Result<DynTensor> {
        numeric!(self, "renorm", t => Ok(t.try_renorm(p, axis, maxnorm)?.into()))
    }
    /// Equal sections along the columns (see [`crate::Tensor::hsplit`]).
    pub fn hsplit(&self, sections: usize) -> Result<Vec<DynTensor>> {
        dyn_each!(self, t => Ok(all(t.try_hsplit(sections)?)))
    }
    /// Equal sections along the rows (see [`crate::Tensor::vsplit`]).
    pub fn vsplit(&self, sections: usize) -> Result<Vec<DynTensor>> {
        dyn_each!(self, t => Ok(all(t.try_vsplit(sections)?)))
    }
    /// Equal sections along the depth axis (see [`crate::Tensor::dsplit`]).
    pub fn dsplit(&self, sections: usize) -> Result<Vec<DynTensor>> {
        dyn_each!(self, t => Ok(all(t.try_dsplit(sections)?)))
    }
    /// A view with at least two dimensions (see [`crate::Tensor::atleast_2d`]).
    pub fn atleast_2d(&self) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.atleast_2d()?.into()))
    }
    /// Collapsed runs of equal neighbours, their inverse and counts (see
    /// [`crate::Tensor::unique_consecutive`]).
    pub fn unique_consecutive(&self) -> Result<(DynTensor, DynTensor, DynTensor)> {
        dyn_each!(self, t => {
            let (v, i, c) = t.try_unique_consecutive()?;
            Ok((v.into(), i.into(), c.into()))
        })
    }
    /// The most frequent value along `axis` and its last index (see [`crate::Tensor::mode`]).
    pub fn mode(&self, axis: i64, keepdim: bool) -> Result<Pair> {
        dyn_each!(self, t => {
            let (v, i) = t.try_mode(axis, keepdim)?;
            Ok((v.into(), i.into()))
        })
    }
}

/// The `add*` products (`beta · self + alpha · product(m1, m2)`), each a shell converting the
/// scalars around one non-generic body, so a caller's scalar types compile no new dispatch.
macro_rules! add_products {
    ($($name:ident, $body:ident, $try_name:ident, $what:literal;)*) => {
        impl DynTensor {
            $(
                #[doc = concat!("`beta · self + alpha · ", $what, "` (see [`crate::Tensor::", stringify!($name), "`]).")]
                pub fn $name(
                    &self,
                    m1: &DynTensor,
                    m2: &DynTensor,
                    beta: impl Into<Scalar>,
                    alpha: impl Into<Scalar>,
                ) -> Result<DynTensor> {
                    self.$body(m1, m2, beta.into(), alpha.into())
                }
                fn $body(&self, m1: &DynTensor, m2: &DynTensor, beta: Scalar, alpha: Scalar) -> Result<DynTensor> {
                    const OP: &str = stringify!($name);
                    pair!(self, m1, OP, a, b => {
                        let c = typed_like(OP, m2, a)?;
                        Ok(a.$try_name(b, c, beta.to(), alpha.to())?.into())
                    }, bool: Err(not_numeric(OP)))
                }
            )*
        }
    };
}

add_products! {
    baddbmm, baddbmm_s, try_baddbmm, "(batch1 · batch2)";
    addmv, addmv_s, try_addmv, "(mat · vec)";
    addr, addr_s, try_addr, "outer(vec1, vec2)";
    addbmm, addbmm_s, try_addbmm, "Σ_b batch1[b] · batch2[b]";
}
