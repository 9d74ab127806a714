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
    /// non-zeros. Computed in f64, returned as [`FloatOf<T>`].
    ///
    /// # Errors
    /// `Axis` for bad axes; `InvalidArgument` for a negative or NaN `p`.
    pub fn try_norm(&self, p: f64, axes: &[i64], keepdim: bool) -> Result<Tensor<FloatOf<T>, D>> {
        check_norm_order(p)?;
        let a = self.try_cast::<f64>()?.try_abs()?;
        let r = if p.is_infinite() {
            a.try_max(axes, keepdim)?
        } else if p == 0.0 {
            a.try_ne_scalar(0.0)?
                .try_cast::<f64>()?
                .try_sum(axes, keepdim)?
        } else if p == 1.0 {
            a.try_sum(axes, keepdim)?
        } else if p == 2.0 {
            a.try_mul(&a)?.try_sum(axes, keepdim)?.try_sqrt()?
        } else {
            a.try_pow(p)?.try_sum(axes, keepdim)?.try_pow(1.0 / p)?
        };
        r.try_cast()
    }

    plain_forms! {
        /// [`Tensor::try_norm`], panicking with its error.
        norm, try_norm(p: f64, axes: &[i64], keepdim: bool) -> Tensor<FloatOf<T>, D>;
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
        if axes_a.len() != axes_b.len() {
            return Err(Error::InvalidArgument {
                op: "tensordot",
                msg: format!("axes lists {axes_a:?} and {axes_b:?} must have the same length"),
            });
        }
        let ma = self.shape().axes_mask("tensordot", axes_a)?;
        let mb = other.shape().axes_mask("tensordot", axes_b)?;
        let ca: Vec<usize> = axes_a
            .iter()
            .map(|&a| self.shape().axis("tensordot", a))
            .collect::<Result<_>>()?;
        let cb: Vec<usize> = axes_b
            .iter()
            .map(|&b| other.shape().axis("tensordot", b))
            .collect::<Result<_>>()?;
        if axes_a.is_empty() {
            // An outer product: every element of self times every element of other.
            let a = self.try_reshape([self.numel(), 1])?;
            let b = other.try_reshape([1, other.numel()])?;
            let dims: Vec<usize> = self.dims().iter().chain(other.dims()).copied().collect();
            return a.try_mul(&b)?.try_reshape(dims);
        }
        for (&i, &j) in ca.iter().zip(&cb) {
            if self.dims()[i] != other.dims()[j] {
                return Err(Error::ShapeMismatch {
                    op: "tensordot",
                    lhs: self.shape().clone(),
                    rhs: other.shape().clone(),
                    msg: format!(
                        "dimension {i} of the left ({}) differs from dimension {j} of the right ({})",
                        self.dims()[i],
                        other.dims()[j]
                    ),
                });
            }
        }
        let free_a: Vec<usize> = (0..self.ndim()).filter(|&i| !ma[i]).collect();
        let free_b: Vec<usize> = (0..other.ndim()).filter(|&i| !mb[i]).collect();
        let k: usize = crate::shape::numel_of(ca.iter().map(|&i| self.dims()[i]));
        let m: usize = crate::shape::numel_of(free_a.iter().map(|&i| self.dims()[i]));
        let n: usize = crate::shape::numel_of(free_b.iter().map(|&i| other.dims()[i]));
        let pa: Vec<usize> = free_a.iter().chain(&ca).copied().collect();
        let pb: Vec<usize> = cb.iter().chain(&free_b).copied().collect();
        let a2 = self.permute_usize(&pa)?.try_reshape([m, k])?;
        let b2 = other.permute_usize(&pb)?.try_reshape([k, n])?;
        let dims: Vec<usize> = free_a
            .iter()
            .map(|&i| self.dims()[i])
            .chain(free_b.iter().map(|&i| other.dims()[i]))
            .collect();
        a2.try_matmul(&b2)?.try_reshape(dims)
    }

    /// Another name for [`Tensor::try_tensordot`] (same arguments, result and errors).
    pub fn try_tensor_product(&self, other: &Self, axes_a: &[i64], axes_b: &[i64]) -> Result<Self> {
        self.try_tensordot(other, axes_a, axes_b)
    }

    plain_forms! {
        /// [`Tensor::try_tensordot`], panicking with its error.
        tensordot, try_tensordot(other: &Self, axes_a: &[i64], axes_b: &[i64]) -> Self;
        /// [`Tensor::try_tensor_product`], panicking with its error.
        tensor_product, try_tensor_product(other: &Self, axes_a: &[i64], axes_b: &[i64]) -> Self;
    }
}
