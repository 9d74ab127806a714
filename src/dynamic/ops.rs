//! `DynTensor` operations: each dispatches to the typed op of the same name; what the typed API
//! rejects at compile time is an `Err` here, naming the op, the dtypes and the form to use.

use super::{DeviceTensor, DynTensor, Scalar, device_mismatch, typed_like};
use crate::backend::Backend;
use crate::dtype::Dtype;
use crate::error::{Error, Result};
use crate::ops::reduce::{NanReductions, Reductions};
use crate::tensor::{ReshapeDims, Tensor};

fn not_float(op: &'static str, alt: &str, dtype: Dtype) -> Error {
    let msg = if alt.is_empty() {
        format!("{op} needs a float tensor and this one is {dtype}; convert with to_dtype() first")
    } else {
        format!(
            "{op} cannot store its {} result in a {dtype} tensor; use {alt}(), which returns a new {} tensor",
            dtype.float_of(),
            dtype.float_of()
        )
    };
    Error::InvalidArgument { op, msg }
}

fn not_numeric(op: &'static str) -> Error {
    Error::InvalidArgument {
        op,
        msg: format!(
            "{op} is not defined for Bool tensors; use the logical ops or to_dtype() first"
        ),
    }
}

fn pair_mismatch(op: &'static str, a: Dtype, b: Dtype) -> Error {
    Error::DtypeMismatch {
        op,
        expected: a,
        actual: b,
        hint: "make sure the datatypes of both tensors are the same (convert one with to_dtype())",
    }
}

/// Runs `$body` on the typed tensor of a numeric variant, on either device; Bool is an `Err`.
macro_rules! numeric {
    ($v:expr, $op:expr, $t:ident => $body:expr) => {
        numeric!(@arms $v, $t => $body, _ => Err(not_numeric($op)); F32 F64 F16 BF16 I16 I32 I64 U8)
    };
    (@arms $v:expr, $t:ident => $body:expr, _ => $other:expr; $($V:ident)*) => {
        match $v {
            $(
                DynTensor::$V(DeviceTensor::Cpu($t)) => $body,
                DynTensor::$V(DeviceTensor::Cuda($t)) => $body,
            )*
            #[allow(unreachable_patterns)]
            _ => $other,
        }
    };
}

/// Runs `$body` on the typed tensor of a float variant, on either device; others are an `Err`.
macro_rules! float {
    ($v:expr, $op:expr, $alt:expr, $t:ident => $body:expr) => {{
        let dtype = $v.dtype();
        numeric!(@arms $v, $t => $body, _ => Err(not_float($op, $alt, dtype)); F32 F64 F16 BF16)
    }};
}

/// Runs `$body` on two typed tensors of the same variant and device; mixed dtypes or devices
/// are an `Err` naming both.
macro_rules! pair {
    ($a:expr, $b:expr, $op:expr, $x:ident, $y:ident => $body:expr, bool: $bool_ok:expr) => {
        pair!(@arms $a, $b, $op, $x, $y => $body, $bool_ok; F32 F64 F16 BF16 I16 I32 I64 U8)
    };
    (@arms $a:expr, $b:expr, $op:expr, $x:ident, $y:ident => $body:expr, $bool_ok:expr; $($V:ident)*) => {
        match ($a, $b) {
            $(
                (DynTensor::$V(DeviceTensor::Cpu($x)), DynTensor::$V(DeviceTensor::Cpu($y))) => $body,
                (DynTensor::$V(DeviceTensor::Cuda($x)), DynTensor::$V(DeviceTensor::Cuda($y))) => $body,
            )*
            (DynTensor::Bool(DeviceTensor::Cpu($x)), DynTensor::Bool(DeviceTensor::Cpu($y))) => {
                let _ = (&$x, &$y);
                $bool_ok
            }
            (DynTensor::Bool(DeviceTensor::Cuda($x)), DynTensor::Bool(DeviceTensor::Cuda($y))) => {
                let _ = (&$x, &$y);
                $bool_ok
            }
            (a, b) if a.dtype() == b.dtype() => Err(device_mismatch($op, a.device(), b.device())),
            (a, b) => Err(pair_mismatch($op, a.dtype(), b.dtype())),
        }
    };
}

macro_rules! float_unary {
    ($($name:ident, $try_name:ident, $inplace:ident;)*) => {
        impl DynTensor {
            $(
                #[doc = concat!("`", stringify!($name), "`; integer dtypes promote (Int64 → Float64, others → Float32), as PyTorch does for Int16/Int32/UInt8/Bool and NumPy for Int64.")]
                pub fn $name(&self) -> Result<DynTensor> {
                    Ok(dyn_each!(self, t => DynTensor::from(t.$try_name()?)))
                }
                #[doc = concat!("In-place `", stringify!($name), "`; float dtypes only (an `Err` naming `", stringify!($name), "` for integers).")]
                pub fn $inplace(&mut self) -> Result<()> {
                    float!(self, stringify!($inplace), stringify!($name), t => t.$inplace())
                }
            )*
        }
        $(
            #[doc = concat!("`", stringify!($name), "(x)` as a free function: [`DynTensor::", stringify!($name), "`].")]
            pub fn $name(t: &DynTensor) -> Result<DynTensor> {
                t.$name()
            }
            #[doc = concat!("`", stringify!($inplace), "(x)` as a free function: [`DynTensor::", stringify!($inplace), "`].")]
            pub fn $inplace(t: &mut DynTensor) -> Result<()> {
                t.$inplace()
            }
        )*
    };
}

float_unary! {
    sin, try_sin, sin_; cos, try_cos, cos_; tan, try_tan, tan_; asin, try_asin, asin_; acos, try_acos, acos_; atan, try_atan, atan_;
    sinh, try_sinh, sinh_; cosh, try_cosh, cosh_; tanh, try_tanh, tanh_; asinh, try_asinh, asinh_; acosh, try_acosh, acosh_; atanh, try_atanh, atanh_;
    exp, try_exp, exp_; exp2, try_exp2, exp2_; expm1, try_expm1, expm1_; log, try_log, log_; log2, try_log2, log2_; log10, try_log10, log10_; log1p, try_log1p, log1p_;
    sqrt, try_sqrt, sqrt_; reciprocal, try_reciprocal, reciprocal_; sigmoid, try_sigmoid, sigmoid_; erf, try_erf, erf_;
    erfc, try_erfc, erfc_; erfinv, try_erfinv, erfinv_; lgamma, try_lgamma, lgamma_; cbrt, try_cbrt, cbrt_; digamma, try_digamma, digamma_;
    i0, try_i0, i0_; i1, try_i1, i1_; i0e, try_i0e, i0e_; i1e, try_i1e, i1e_; erfcx, try_erfcx, erfcx_;
    log_ndtr, try_log_ndtr, log_ndtr_; ndtri, try_ndtri, ndtri_;
    bessel_j0, try_bessel_j0, bessel_j0_; bessel_j1, try_bessel_j1, bessel_j1_; bessel_y0, try_bessel_y0, bessel_y0_; bessel_y1, try_bessel_y1, bessel_y1_;
    modified_bessel_k0, try_modified_bessel_k0, modified_bessel_k0_; modified_bessel_k1, try_modified_bessel_k1, modified_bessel_k1_;
    scaled_modified_bessel_k0, try_scaled_modified_bessel_k0, scaled_modified_bessel_k0_; scaled_modified_bessel_k1, try_scaled_modified_bessel_k1, scaled_modified_bessel_k1_;
    airy_ai, try_airy_ai, airy_ai_;
    spherical_bessel_j0, try_spherical_bessel_j0, spherical_bessel_j0_; gelu, try_gelu, gelu_;
}

macro_rules! same_unary {
    ($($name:ident, $try_name:ident, $inplace:ident;)*) => {
        impl DynTensor {
            $(
                #[doc = concat!("`", stringify!($name), "`, keeping the dtype; numeric dtypes only.")]
                pub fn $name(&self) -> Result<DynTensor> {
                    numeric!(self, stringify!($name), t => Ok(DynTensor::from(t.$try_name()?)))
                }
                #[doc = concat!("In-place `", stringify!($name), "`.")]
                pub fn $inplace(&mut self) -> Result<()> {
                    numeric!(self, stringify!($inplace), t => t.$inplace())
                }
            )*
        }
        $(
            #[doc = concat!("`", stringify!($name), "(x)` as a free function.")]
            pub fn $name(t: &DynTensor) -> Result<DynTensor> {
                t.$name()
            }
            #[doc = concat!("`", stringify!($inplace), "(x)` as a free function.")]
            pub fn $inplace(t: &mut DynTensor) -> Result<()> {
                t.$inplace()
            }
        )*
    };
}

same_unary! {
    neg, try_neg, neg_; abs, try_abs, abs_; sign, try_sign, sign_; floor, try_floor, floor_; ceil, try_ceil, ceil_; round, try_round, round_; trunc, try_trunc, trunc_; relu, try_relu, relu_;
}

impl DynTensor {
    /// `x * x`; integer dtypes give Float64, so squares cannot overflow.
    pub fn square(&self) -> Result<DynTensor> {
        numeric!(self, "square", t => Ok(DynTensor::from(t.try_square()?)))
    }
    /// In-place `x * x`, keeping the dtype (integers wrap, as in NumPy and PyTorch).
    pub fn square_(&mut self) -> Result<()> {
        numeric!(self, "square_", t => t.square_())
    }
    /// `x ^ exponent`: an integer exponent keeps the dtype (negative on an integer tensor is an
    /// `Err`), a float exponent returns a float tensor (PyTorch's `pow` promotion).
    pub fn pow(&self, exponent: impl Into<Scalar>) -> Result<DynTensor> {
        match exponent.into() {
            Scalar::Float(e) => numeric!(self, "pow", t => Ok(DynTensor::from(t.try_pow(e)?))),
            s => {
                let e = i32::try_from(s.to::<i64>()).map_err(|_| Error::InvalidArgument {
                    op: "pow",
                    msg: format!("integer exponent {s:?} does not fit in i32"),
                })?;
                numeric!(self, "pow", t => Ok(DynTensor::from(t.try_pow(e)?)))
            }
        }
    }
    /// In-place power; a float exponent (or a negative integer one) on an integer tensor is an
    /// `Err` naming `pow`, and nothing is modified.
    pub fn pow_(&mut self, exponent: impl Into<Scalar>) -> Result<()> {
        match exponent.into() {
            Scalar::Float(e) => float!(self, "pow_", "pow", t => t.pow_(e)),
            s => {
                let e = i32::try_from(s.to::<i64>()).map_err(|_| Error::InvalidArgument {
                    op: "pow_",
                    msg: format!("integer exponent {s:?} does not fit in i32"),
                })?;
                numeric!(self, "pow_", t => t.pow_(e))
            }
        }
    }
    /// Clamps into `[min, max]`. A float bound on an integer tensor computes in its float dtype
    /// (PyTorch's promotion, as the scalar arithmetic ops); an integer bound outside an integer
    /// dtype's range clips nothing on its side (it saturates rather than wraps).
    pub fn clip(&self, min: impl Into<Scalar>, max: impl Into<Scalar>) -> Result<DynTensor> {
        let (lo, hi) = (min.into(), max.into());
        if (lo.is_float() || hi.is_float()) && !self.dtype().is_float() {
            return self.to_dtype(self.dtype().float_of())?.clip(lo, hi);
        }
        fn bound<T: crate::dtype::Element>(s: Scalar) -> T {
            match s {
                // `f64 as` saturates; every integer dtype but i64 is exact in f64.
                Scalar::Int(v) if T::DTYPE != Dtype::Int64 => T::from_f64(v as f64),
                s => s.to(),
            }
        }
        numeric!(self, "clip", t => Ok(DynTensor::from(t.try_clip(bound(lo), bound(hi))?)))
    }
}

/// `square(x)` as a free function.
pub fn square(t: &DynTensor) -> Result<DynTensor> {
    t.square()
}
/// `square_(x)` as a free function.
pub fn square_(t: &mut DynTensor) -> Result<()> {
    t.square_()
}
/// `pow(x, exponent)` as a free function, for int, float and double exponents.
pub fn pow(t: &DynTensor, exponent: impl Into<Scalar>) -> Result<DynTensor> {
    t.pow(exponent)
}
/// `pow_(x, exponent)` as a free function.
pub fn pow_(t: &mut DynTensor, exponent: impl Into<Scalar>) -> Result<()> {
    t.pow_(exponent)
}
/// `matmul(A, B)` as a free function: [`crate::Tensor::matmul`] for matching dtypes.
pub fn matmul(a: &DynTensor, b: &DynTensor) -> Result<DynTensor> {
    a.matmul(b)
}

macro_rules! binary {
    ($($name:ident, $try:ident, $inplace:ident, $scalar:ident, $scalar_:ident, $rscalar:ident;)*) => {
        impl DynTensor {
            $(
                #[doc = concat!("Element-wise `", stringify!($name), "` with NumPy broadcasting; both dtypes must match.")]
                pub fn $name(&self, other: &DynTensor) -> Result<DynTensor> {
                    pair!(self, other, stringify!($name), a, b => Ok(DynTensor::from(a.$try(b)?)), bool: Err(not_numeric(stringify!($name))))
                }
                #[doc = concat!("In-place `", stringify!($name), "`; `other` broadcasts into `self`.")]
                pub fn $inplace(&mut self, other: &DynTensor) -> Result<()> {
                    pair!(self, other, stringify!($inplace), a, b => a.$inplace(b), bool: Err(not_numeric(stringify!($inplace))))
                }
                #[doc = concat!("`", stringify!($name), "` with a scalar of any Rust type; an integer tensor with a float scalar is promoted to its float dtype first (PyTorch).")]
                pub fn $scalar(&self, s: impl Into<Scalar>) -> Result<DynTensor> {
                    // Generic shells around non-generic bodies (here and below): the dispatch
                    // is compiled once, not once per scalar type in every calling crate.
                    fn go(t: &DynTensor, s: Scalar) -> Result<DynTensor> {
                        let t = t.promoted_for(s)?;
                        numeric!(&t, stringify!($scalar), x => Ok(DynTensor::from(x.$try(&crate::Tensor::scalar_on(s.to(), &x.device)?)?)))
                    }
                    go(self, s.into())
                }
                #[doc = concat!("`", stringify!($name), "` with the scalar on the left (`s - t`).")]
                pub fn $rscalar(&self, s: impl Into<Scalar>) -> Result<DynTensor> {
                    fn go(t: &DynTensor, s: Scalar) -> Result<DynTensor> {
                        let t = t.promoted_for(s)?;
                        numeric!(&t, stringify!($rscalar), x => Ok(DynTensor::from(crate::Tensor::scalar_on(s.to(), &x.device)?.$try(x)?)))
                    }
                    go(self, s.into())
                }
                #[doc = concat!("In-place `", stringify!($name), "` with a scalar; the dtype is kept, so a float scalar on an integer tensor is an `Err`.")]
                pub fn $scalar_(&mut self, s: impl Into<Scalar>) -> Result<()> {
                    fn go(t: &mut DynTensor, s: Scalar) -> Result<()> {
                        if s.is_float() && !t.dtype().is_float() {
                            return Err(not_float(stringify!($scalar_), stringify!($scalar), t.dtype()));
                        }
                        numeric!(t, stringify!($scalar_), x => { let s = crate::Tensor::scalar_on(s.to(), &x.device)?; x.$inplace(&s) })
                    }
                    go(self, s.into())
                }
            )*
        }
    };
}

binary! {
    add, try_add, add_, add_scalar, add_scalar_, radd_scalar;
    sub, try_sub, sub_, sub_scalar, sub_scalar_, rsub_scalar;
    mul, try_mul, mul_, mul_scalar, mul_scalar_, rmul_scalar;
    div, try_div, div_, div_scalar, div_scalar_, rdiv_scalar;
    floor_divide, try_floor_divide, floor_divide_, floor_divide_scalar, floor_divide_scalar_, rfloor_divide_scalar;
    remainder, try_remainder, remainder_, remainder_scalar, remainder_scalar_, rremainder_scalar;
    maximum, try_maximum, maximum_, maximum_scalar, maximum_scalar_, rmaximum_scalar;
    minimum, try_minimum, minimum_, minimum_scalar, minimum_scalar_, rminimum_scalar;
    fmod, try_fmod, fmod_, fmod_scalar, fmod_scalar_, rfmod_scalar;
}

macro_rules! compare {
    ($($name:ident, $try:ident;)*) => {
        impl DynTensor {
            $(
                #[doc = concat!("Element-wise `", stringify!($name), "`, a Bool tensor; both dtypes must match.")]
                pub fn $name(&self, other: &DynTensor) -> Result<DynTensor> {
                    pair!(self, other, stringify!($name), a, b => Ok(DynTensor::from(a.$try(b)?)), bool: Ok(DynTensor::from(a.$try(b)?)))
                }
            )*
        }
    };
}

compare! { eq, try_eq; ne, try_ne; lt, try_lt; le, try_le; gt, try_gt; ge, try_ge; }

impl DynTensor {
    /// An integer tensor meeting a float scalar computes in its float dtype (PyTorch's rule).
    fn promoted_for(&self, s: Scalar) -> Result<DynTensor> {
        if s.is_float() && !self.dtype().is_float() {
            self.to_dtype(self.dtype().float_of())
        } else {
            Ok(self.clone())
        }
    }

    /// The matrix product (see [`crate::Tensor::matmul`]); both dtypes must match.
    pub fn matmul(&self, other: &DynTensor) -> Result<DynTensor> {
        pair!(self, other, "matmul", a, b => Ok(DynTensor::from(a.try_matmul(b)?)), bool: Err(not_numeric("matmul")))
    }
    /// True where NaN.
    pub fn is_nan(&self) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(DynTensor::from(t.try_is_nan()?)))
    }
    /// `cond ? a : b` with broadcasting; `cond` must be Bool and `a`, `b` of one dtype.
    pub fn where_(cond: &DynTensor, a: &DynTensor, b: &DynTensor) -> Result<DynTensor> {
        pair!(a, b, "where_", x, y => {
            let c = typed_like::<bool, _, _>("where_", cond, x)?;
            Ok(DynTensor::from(crate::Tensor::try_where(c, x, y)?))
        }, bool: {
            let c = typed_like::<bool, _, _>("where_", cond, x)?;
            Ok(DynTensor::from(crate::Tensor::try_where(c, x, y)?))
        })
    }
    /// Another shape with the same element count (a view when contiguous).
    pub fn reshape(&self, shape: impl ReshapeDims) -> Result<DynTensor> {
        let spec = shape.spec();
        dyn_each!(self, t => Ok(DynTensor::from(t.try_reshape(spec.iter().map(|d| d.map_or(-1, |v| v as i64)).collect::<Vec<i64>>())?)))
    }
    /// Swaps two dimensions (a view).
    pub fn transpose(&self, d0: i64, d1: i64) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(DynTensor::from(t.transpose(d0, d1)?)))
    }
    /// Reorders dimensions (a view).
    pub fn permute(&self, dims: &[i64]) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(DynTensor::from(t.permute(dims)?)))
    }
    /// Inserts a size-1 dimension (a view).
    pub fn unsqueeze(&self, dim: i64) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(DynTensor::from(t.unsqueeze(dim)?)))
    }
    /// A sub-range of one dimension (a view).
    pub fn narrow(&self, dim: i64, start: usize, len: usize) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(DynTensor::from(t.narrow(dim, start, len)?)))
    }
    /// `self` when contiguous, else a packed copy.
    pub fn contiguous(&self) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(DynTensor::from(t.try_contiguous()?)))
    }
    /// An independent copy.
    pub fn deep_copy(&self) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(DynTensor::from(t.try_deep_copy()?)))
    }
}

macro_rules! dyn_reductions {
    ($($f:ident => $m:ident $(($c:expr))?;)*) => {$(
        fn $f(&self, axes: &[i64], keepdim: bool) -> Result<DynTensor> {
            Ok(dyn_each!(self, t => DynTensor::from(t.$m(axes, $($c,)? keepdim)?)))
        }
    )*};
}

impl Reductions for DynTensor {
    type Sum = DynTensor;
    type Same = DynTensor;
    type Mean = DynTensor;
    type Index = DynTensor;
    type Truth = DynTensor;
    dyn_reductions! {
        reduce_sum => try_sum; reduce_product => try_product; reduce_min => try_min;
        reduce_max => try_max; reduce_mean => try_mean; reduce_var => try_var(1);
        reduce_std => try_std(1); reduce_argmin => try_argmin; reduce_argmax => try_argmax;
        reduce_any => try_any; reduce_all => try_all;
    }
}

macro_rules! dyn_nan_reductions {
    ($($f:ident => $m:ident;)*) => {$(
        fn $f(&self, axes: &[i64], keepdim: bool) -> Result<DynTensor> {
            float!(self, stringify!($f), "", t => Ok(DynTensor::from(t.$m(axes, keepdim)?)))
        }
    )*};
}

impl NanReductions for DynTensor {
    dyn_nan_reductions! {
        reduce_nansum => try_nansum; reduce_nanproduct => try_nanproduct;
        reduce_nanmin => try_nanmin; reduce_nanmax => try_nanmax; reduce_nanmean => try_nanmean;
        reduce_nanargmin => try_nanargmin; reduce_nanargmax => try_nanargmax;
    }
}

macro_rules! operators {
    ($($tr:ident, $m:ident, $atr:ident, $am:ident, $op:ident, $op_:ident, $sop:ident, $sop_:ident, $rop:ident;)*) => {$(
        impl std::ops::$tr<&DynTensor> for &DynTensor {
            type Output = DynTensor;
            fn $m(self, rhs: &DynTensor) -> DynTensor {
                self.$op(rhs).unwrap_or_else(|e| panic!("{e}"))
            }
        }
        impl std::ops::$atr<&DynTensor> for DynTensor {
            fn $am(&mut self, rhs: &DynTensor) {
                self.$op_(rhs).unwrap_or_else(|e| panic!("{e}"))
            }
        }
        // Only f64 and i64: with one float and one integer type, literals (`&t * 3.5`, `t += 1`)
        // infer without annotations. Other scalar types go through `add_scalar` and friends.
        scalar_operators!($tr, $m, $atr, $am, $sop, $sop_, $rop; f64, i64);
    )*};
}

macro_rules! scalar_operators {
    ($tr:ident, $m:ident, $atr:ident, $am:ident, $sop:ident, $sop_:ident, $rop:ident; $($s:ty),*) => {$(
        impl std::ops::$tr<$s> for &DynTensor {
            type Output = DynTensor;
            fn $m(self, rhs: $s) -> DynTensor {
                self.$sop(rhs).unwrap_or_else(|e| panic!("{e}"))
            }
        }
        impl std::ops::$tr<&DynTensor> for $s {
            type Output = DynTensor;
            fn $m(self, rhs: &DynTensor) -> DynTensor {
                rhs.$rop(self).unwrap_or_else(|e| panic!("{e}"))
            }
        }
        impl std::ops::$atr<$s> for DynTensor {
            fn $am(&mut self, rhs: $s) {
                self.$sop_(rhs).unwrap_or_else(|e| panic!("{e}"))
            }
        }
    )*};
}

operators! {
    Add, add, AddAssign, add_assign, add, add_, add_scalar, add_scalar_, radd_scalar;
    Sub, sub, SubAssign, sub_assign, sub, sub_, sub_scalar, sub_scalar_, rsub_scalar;
    Mul, mul, MulAssign, mul_assign, mul, mul_, mul_scalar, mul_scalar_, rmul_scalar;
    Div, div, DivAssign, div_assign, div, div_, div_scalar, div_scalar_, rdiv_scalar;
    Rem, rem, RemAssign, rem_assign, remainder, remainder_, remainder_scalar, remainder_scalar_, rremainder_scalar;
}

/// Concatenates `tensors`, all of `first`'s dtype and device, as typed tensors.
fn concat_like<T: crate::Element, D: Backend>(
    first: &Tensor<T, D>,
    tensors: &[&DynTensor],
    axis: i64,
) -> Result<Tensor<T, D>> {
    let typed = tensors
        .iter()
        .map(|d| typed_like::<T, _, _>("concat", d, first).cloned())
        .collect::<Result<Vec<_>>>()?;
    Tensor::try_concat(&typed.iter().collect::<Vec<_>>(), axis)
}

impl DynTensor {
    /// Removes every size-1 dimension (a view).
    pub fn squeeze(&self) -> DynTensor {
        dyn_each!(self, t => DynTensor::from(t.squeeze()))
    }
    /// A 1-d view (or copy) of all elements.
    pub fn flatten(&self) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(DynTensor::from(t.try_flatten()?)))
    }
    /// Joins tensors of one dtype along an existing axis (see [`crate::Tensor::concat`]).
    pub fn concat(tensors: &[&DynTensor], axis: i64) -> Result<DynTensor> {
        let first = tensors.first().ok_or_else(|| Error::InvalidArgument {
            op: "concat",
            msg: "needs at least one tensor".into(),
        })?;
        dyn_each!(*first, f => Ok(DynTensor::from(concat_like(f, tensors, axis)?)))
    }
    /// Joins tensors of one dtype along a new axis.
    pub fn stack(tensors: &[&DynTensor], axis: i64) -> Result<DynTensor> {
        let expanded = tensors
            .iter()
            .map(|t| t.unsqueeze(axis))
            .collect::<Result<Vec<_>>>()?;
        Self::concat(&expanded.iter().collect::<Vec<_>>(), axis)
    }
    /// The slices at Int64 `indices` along `axis` (see [`crate::Tensor::index_select`]).
    pub fn index_select(&self, axis: i64, indices: &DynTensor) -> Result<DynTensor> {
        dyn_each!(self, t => {
            let i = typed_like("index_select", indices, t)?;
            Ok(DynTensor::from(t.try_index_select(axis, i)?))
        })
    }
    /// PyTorch `gather` with an Int64 index tensor.
    pub fn gather(&self, axis: i64, index: &DynTensor) -> Result<DynTensor> {
        dyn_each!(self, t => {
            let i = typed_like("gather", index, t)?;
            Ok(DynTensor::from(t.try_gather(axis, i)?))
        })
    }
    /// Stable sort along `axis`: values and Int64 indices.
    pub fn sort(&self, axis: i64, descending: bool) -> Result<(DynTensor, DynTensor)> {
        dyn_each!(self, t => {
            let (v, i) = t.try_sort(axis, descending)?;
            Ok((DynTensor::from(v), DynTensor::from(i)))
        })
    }
    /// The `k` largest values along `axis` with their Int64 indices.
    pub fn topk(&self, k: usize, axis: i64) -> Result<(DynTensor, DynTensor)> {
        dyn_each!(self, t => {
            let (v, i) = t.try_topk(k, axis)?;
            Ok((DynTensor::from(v), DynTensor::from(i)))
        })
    }
    /// Stable `log(sum(exp(x)))` over `axes`; float dtypes only.
    pub fn logsumexp(&self, axes: &[i64], keepdim: bool) -> Result<DynTensor> {
        float!(self, "logsumexp", "", t => Ok(DynTensor::from(t.try_logsumexp(axes, keepdim)?)))
    }
    /// Running sum along `axis` (integers and bool give Int64).
    pub fn cumsum(&self, axis: i64) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(DynTensor::from(t.try_cumsum(axis)?)))
    }
    /// Running product along `axis` (integers and bool give Int64).
    pub fn cumprod(&self, axis: i64) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(DynTensor::from(t.try_cumprod(axis)?)))
    }
}
mod combine;
mod core;
mod logic;
pub mod nn;
mod numeric;
mod numpy;

macro_rules! dyn_promoted {
    ($($name:ident, $op:ident;)*) => {
        impl DynTensor {
            $(
                #[doc = concat!("[`DynTensor::", stringify!($op), "`] of operands of any two dtypes, both converted first to `Dtype::promote_types` of theirs (PyTorch's `torch.result_type`), as the typed `", stringify!($name), "`.")]
                pub fn $name(&self, other: &DynTensor) -> Result<DynTensor> {
                    let dtype = Dtype::promote_types(self.dtype(), other.dtype());
                    let convert = |t: &DynTensor| if t.dtype() == dtype { Ok(t.clone()) } else { t.to_dtype(dtype) };
                    convert(self)?.$op(&convert(other)?)
                }
            )*
        }
    };
}

dyn_promoted! {
    add_promoted, add; sub_promoted, sub; mul_promoted, mul; div_promoted, div;
    remainder_promoted, remainder; maximum_promoted, maximum; minimum_promoted, minimum;
    eq_promoted, eq; ne_promoted, ne; lt_promoted, lt; le_promoted, le; gt_promoted, gt;
    ge_promoted, ge;
}
