//! Linear algebra beyond matmul (NumPy `linalg`): vector/matrix norms and `tensordot`.
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let v = tensor![3.0f64, 4.0];
//! assert_eq!(v.norm(2.0, &[], false).item(), 5.0);
//! let a = Tensor::<f32, Cpu>::ones([2, 3, 4])?;
//! let b = Tensor::<f32, Cpu>::ones([4, 3, 5])?;
//! let c = a.tensordot(&b, &[1, 2], &[1, 0]); // contract 3 and 4
//! assert_eq!(c.dims(), &[2, 5]);
//! assert_eq!(c.to_vec()[0], 12.0);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::{Element, FloatOf, NumElement};
use crate::error::{Error, OrPanic, Result};
use crate::tensor::Tensor;

/// `p` must be a norm order: `p >= 0` or infinity.
pub(crate) fn check_norm_order(p: f64) -> Result<()> {
    if p.is_nan() || p < 0.0 {
        return Err(Error::InvalidArgument {
            op: "norm",
            msg: format!("p = {p} is not a norm order; use p >= 0 or f64::INFINITY"),
        });
    }
    Ok(())
}

impl<T: Element, D: Backend> Tensor<T, D> {
    /// The `p`-norm over `axes` (empty = all; NumPy `linalg.norm` of the flattened slice, PyTorch
    /// `linalg.vector_norm`): `(Σ|x|^p)^(1/p)`; `p = 2` is the Frobenius norm of a matrix, `p = 1`
    /// the sum of magnitudes, `p = f64::INFINITY` the largest magnitude, `p = 0` the count of
    /// non-zeros. Computed in f64, returned as [`FloatOf<T>`]. For `p = 2` a float input's
    /// sum of squares is one fused pass on the CPU (each element widened, then squared),
    /// without an f64 copy of the input.
    ///
    /// # Errors
    /// `Axis` for bad axes; `InvalidArgument` for a negative or NaN `p`.
    pub fn try_norm(&self, p: f64, axes: &[i64], keepdim: bool) -> Result<Tensor<FloatOf<T>, D>> {
        check_norm_order(p)?;
        if p == 2.0 && !crate::autograd::recording(&[self]) {
            // Without a graph, the fused sum of squares reads the input in its own dtype.
            let mask = self.shape().axes_mask("norm", axes)?;
            if let Some(s) = D::sum_squares(self, &mask, keepdim)? {
                return s.try_sqrt()?.try_cast();
            }
        }
        norm_f64(&self.try_cast::<f64>()?, p, axes, keepdim)?.try_cast()
    }

    plain_forms! {
        /// [`Tensor::try_norm`], panicking with its error.
        norm, try_norm(p: f64, axes: &[i64], keepdim: bool) -> Tensor<FloatOf<T>, D>;
    }
}

/// The `p`-norm of `x` over `axes`, in f64 whatever the input's dtype (compiled per device).
fn norm_f64<D: Backend>(
    x: &Tensor<f64, D>,
    p: f64,
    axes: &[i64],
    keepdim: bool,
) -> Result<Tensor<f64, D>> {
    // `x · x` needs no `abs` (the same bits); the other orders do.
    let a = if p == 2.0 { x.clone() } else { x.try_abs()? };
    if p.is_infinite() {
        a.try_max(axes, keepdim)
    } else if p == 0.0 {
        a.try_ne_scalar(0.0)?
            .try_cast::<f64>()?
            .try_sum(axes, keepdim)
    } else if p == 1.0 {
        a.try_sum(axes, keepdim)
    } else {
        // One node with PyTorch's `linalg_vector_norm_backward`, which gives 0 at a zero
        // norm (the composed ops would give 0 · inf = NaN there).
        let mask = x.shape().axes_mask("norm", axes)?;
        let out = crate::autograd::no_grad(|| {
            if p == 2.0 {
                match D::sum_squares(&a, &mask, keepdim)? {
                    Some(s) => s.try_sqrt(),
                    None => a.try_mul(&a)?.try_sum(axes, keepdim)?.try_sqrt(),
                }
            } else {
                a.try_pow(p)?.try_sum(axes, keepdim)?.try_pow(1.0 / p)
            }
        })?;
        let op = crate::autograd::Op::Norm { p, mask };
        Ok(crate::autograd::record_out(out, op, &[x], &[x]))
    }
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// Contracts `axes_a` of `self` with `axes_b` of `other` (NumPy `tensordot` with explicit
    /// axes): the result has `self`'s remaining dimensions followed by
    /// `other`'s. Computed as one matmul of the permuted operands.
    ///
    /// # Errors
    /// `InvalidArgument` when the axis lists differ in length; `Axis` for bad axes;
    /// `ShapeMismatch` when paired dimensions differ.
    pub fn try_tensordot(&self, other: &Self, axes_a: &[i64], axes_b: &[i64]) -> Result<Self> {
        let p = tensordot_plan(self.shape(), other.shape(), axes_a, axes_b)?;
        if p.outer {
            // An outer product: every element of self times every element of other.
            let a = self.try_reshape([self.numel(), 1])?;
            let b = other.try_reshape([1, other.numel()])?;
            return a.try_mul(&b)?.try_reshape(p.dims);
        }
        let a2 = self.permute_usize(&p.perm_a)?.try_reshape([p.m, p.k])?;
        let b2 = other.permute_usize(&p.perm_b)?.try_reshape([p.k, p.n])?;
        a2.try_matmul(&b2)?.try_reshape(p.dims)
    }

    /// The inner product over the last axes (NumPy `inner`, PyTorch `inner`): for 1-d
    /// operands their dot product, for more `out[i.., j..] = Σ_k self[i.., k] · other[j.., k]`
    /// (`self`'s leading dimensions, then `other`'s); a 0-d operand multiplies.
    ///
    /// # Errors
    /// `ShapeMismatch` when the last dimensions differ; `Device` across devices.
    pub fn try_inner(&self, other: &Self) -> Result<Self> {
        if self.ndim() == 0 || other.ndim() == 0 {
            return self.try_mul(other);
        }
        self.try_tensordot(other, &[-1], &[-1])
            .map_err(|e| e.shape_named("inner"))
    }

    /// The dot product of the two tensors flattened (NumPy `vdot` for real values), as a
    /// 0-d tensor.
    ///
    /// # Errors
    /// `ShapeMismatch` when the element counts differ; `Device` across devices.
    pub fn try_vdot(&self, other: &Self) -> Result<Self> {
        if self.numel() != other.numel() {
            return Err(Error::ShapeMismatch {
                op: "vdot",
                lhs: self.shape().clone(),
                rhs: other.shape().clone(),
                msg: "needs the same number of elements".into(),
            });
        }
        self.try_flatten()?.try_dot(&other.try_flatten()?)
    }

    /// Another name for [`Tensor::try_tensordot`] (same arguments, result and errors).
    pub fn try_tensor_product(&self, other: &Self, axes_a: &[i64], axes_b: &[i64]) -> Result<Self> {
        self.try_tensordot(other, axes_a, axes_b)
    }

    plain_forms! {
        /// [`Tensor::try_tensordot`], panicking with its error.
        tensordot, try_tensordot(other: &Self, axes_a: &[i64], axes_b: &[i64]) -> Self;
        /// [`Tensor::try_inner`], panicking with its error.
        inner, try_inner(other: &Self) -> Self;
        /// [`Tensor::try_vdot`], panicking with its error.
        vdot, try_vdot(other: &Self) -> Self;
        /// [`Tensor::try_tensor_product`], panicking with its error.
        tensor_product, try_tensor_product(other: &Self, axes_a: &[i64], axes_b: &[i64]) -> Self;
    }
}

/// How [`Tensor::try_tensordot`] runs: an outer product, or a `(m, k) @ (k, n)` matmul of the
/// operands permuted (free axes, then contracted axes for the left; the reverse for the right),
/// reshaped to `dims`. Shape logic only, so it is compiled once rather than per element type.
struct TensordotPlan {
    outer: bool,
    perm_a: Vec<usize>,
    perm_b: Vec<usize>,
    m: usize,
    k: usize,
    n: usize,
    dims: Vec<usize>,
}

fn tensordot_plan(
    sa: &crate::shape::Shape,
    sb: &crate::shape::Shape,
    axes_a: &[i64],
    axes_b: &[i64],
) -> Result<TensordotPlan> {
    if axes_a.len() != axes_b.len() {
        return Err(Error::InvalidArgument {
            op: "tensordot",
            msg: format!("axes lists {axes_a:?} and {axes_b:?} must have the same length"),
        });
    }
    let ma = sa.axes_mask("tensordot", axes_a)?;
    let mb = sb.axes_mask("tensordot", axes_b)?;
    let ca: Vec<usize> = axes_a
        .iter()
        .map(|&a| sa.axis("tensordot", a))
        .collect::<Result<_>>()?;
    let cb: Vec<usize> = axes_b
        .iter()
        .map(|&b| sb.axis("tensordot", b))
        .collect::<Result<_>>()?;
    let (da, db) = (sa.dims(), sb.dims());
    if axes_a.is_empty() {
        return Ok(TensordotPlan {
            outer: true,
            perm_a: Vec::new(),
            perm_b: Vec::new(),
            m: 0,
            k: 0,
            n: 0,
            dims: da.iter().chain(db).copied().collect(),
        });
    }
    for (&i, &j) in ca.iter().zip(&cb) {
        if da[i] != db[j] {
            return Err(Error::ShapeMismatch {
                op: "tensordot",
                lhs: sa.clone(),
                rhs: sb.clone(),
                msg: format!(
                    "dimension {i} of the left ({}) differs from dimension {j} of the right ({})",
                    da[i], db[j]
                ),
            });
        }
    }
    let free_a: Vec<usize> = (0..da.len()).filter(|&i| !ma[i]).collect();
    let free_b: Vec<usize> = (0..db.len()).filter(|&i| !mb[i]).collect();
    Ok(TensordotPlan {
        outer: false,
        m: crate::shape::numel_of(free_a.iter().map(|&i| da[i])),
        k: crate::shape::numel_of(ca.iter().map(|&i| da[i])),
        n: crate::shape::numel_of(free_b.iter().map(|&i| db[i])),
        perm_a: free_a.iter().chain(&ca).copied().collect(),
        perm_b: cb.iter().chain(&free_b).copied().collect(),
        dims: (free_a.iter().map(|&i| da[i]))
            .chain(free_b.iter().map(|&i| db[i]))
            .collect(),
    })
}
