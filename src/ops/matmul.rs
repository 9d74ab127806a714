//! Matrix products: `matmul` with NumPy's rules (batched, broadcast batch dimensions, 1-d
//! operands promoted and their dimension removed), `dot`, `outer`, `vecdot`.
//!
//! As in NumPy, `A(4, 1, 2, 3) @ B(5, 3, 2)` is `(4, 5, 2, 2)` (batch dimensions broadcast,
//! then each `(2, 3) @ (3, 2)`), and `(1, 4, 2, 3) @ (5, 3, 4)` is an `Err` (batch 4 against 5).

use crate::backend::Backend;
use crate::dtype::NumElement;
use crate::error::{Error, OrPanic, Result};
use crate::ops::device_ops::same_device;
use crate::shape::{Shape, broadcast_shapes};
use crate::tensor::Tensor;

/// NumPy's `matmul` shape rule, shared by the CPU and CUDA backends.
pub(crate) struct MatmulDims {
    /// Rows of the left matrices.
    pub m: usize,
    /// The contracted dimension.
    pub k: usize,
    /// Columns of the right matrices.
    pub n: usize,
    /// The broadcast batch shape (all but the last two dimensions).
    pub batch: Shape,
    /// The result's dimensions (a 1-d operand's dimension removed).
    pub out: Vec<usize>,
}

/// Checks `a @ b` and returns its dimensions: a 1-d left operand is a row vector, a 1-d right
/// one a column vector, and the batch dimensions broadcast.
///
/// # Errors
/// `ShapeMismatch` naming both shapes when an operand is 0-d, the inner dimensions differ, or
/// the batch dimensions do not broadcast.
pub(crate) fn matmul_dims(a: &Shape, b: &Shape) -> Result<MatmulDims> {
    let bad = |msg: &str| Error::ShapeMismatch {
        op: "matmul",
        lhs: a.clone(),
        rhs: b.clone(),
        msg: msg.into(),
    };
    let (da, db) = (a.dims(), b.dims());
    if da.is_empty() || db.is_empty() {
        return Err(bad("both operands need at least one dimension"));
    }
    let da: Vec<usize> = if da.len() == 1 {
        vec![1, da[0]]
    } else {
        da.to_vec()
    };
    let db: Vec<usize> = if db.len() == 1 {
        vec![db[0], 1]
    } else {
        db.to_vec()
    };
    let (ra, rb) = (da.len(), db.len());
    let (m, k, k2, n) = (da[ra - 2], da[ra - 1], db[rb - 2], db[rb - 1]);
    if k != k2 {
        return Err(bad(&format!(
            "the last dimension of the left operand ({k}) must equal the second-to-last of the right ({k2})"
        )));
    }
    let batch = broadcast_shapes(
        "matmul",
        &Shape::new(da[..ra - 2].to_vec()),
        &Shape::new(db[..rb - 2].to_vec()),
    )
    .map_err(|_| bad("the batch dimensions (all but the last two) do not broadcast"))?;
    let mut out = batch.dims().to_vec();
    if a.ndim() > 1 {
        out.push(m);
    }
    if b.ndim() > 1 {
        out.push(n);
    }
    Ok(MatmulDims {
        m,
        k,
        n,
        batch,
        out,
    })
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// The matrix product (NumPy `matmul`): 2-d × 2-d is `(m, k) · (k, n) → (m, n)`; for N-d
    /// operands the last two dimensions are matrices and the earlier ones broadcast; a 1-d left
    /// operand is a row vector and a 1-d right one a column vector, and their dimension is
    /// removed from the result. Integers wrap; f16/bf16 accumulate in f32.
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    /// let a = Tensor::<f32>::from_vec(vec![1.0, 2.0, 3.0, 4.0], [2, 2])?;
    /// let b = Tensor::<f32>::from_vec(vec![1.0, 0.0, 0.0, 1.0], [2, 2])?;
    /// assert_eq!(a.matmul(&b).to_vec(), vec![1.0, 2.0, 3.0, 4.0]);
    /// assert!(a.try_matmul(&Tensor::zeros([3])?).is_err()); // inner dimensions 2 and 3
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// `ShapeMismatch` naming both shapes when an operand is 0-d, the inner dimensions differ,
    /// or the batch dimensions do not broadcast; `Device` across devices.
    pub fn try_matmul(&self, other: &Self) -> Result<Self> {
        same_device("matmul", self, other)?;
        matmul_dims(self.shape(), other.shape())?;
        let out = D::matmul(self, other)?;
        let op = crate::autograd::Op::Matmul;
        Ok(crate::autograd::record(
            out,
            op,
            &[self, other],
            &[self, other],
        ))
    }

    /// `out = self @ other` written into an existing tensor (PyTorch `matmul(a, b, out=c)`): no
    /// allocation on the CPU when `out` is contiguous and not an operand; `out` may be an
    /// operand.
    ///
    /// # Errors
    /// [`Tensor::try_matmul`]'s errors, and `ShapeMismatch` when `out` does not have the
    /// result's shape; `out` is unchanged on error.
    pub fn matmul_into(&self, other: &Self, out: &mut Self) -> Result<()> {
        same_device("matmul_into", self, other)?;
        same_device("matmul_into", self, out)?;
        matmul_dims(self.shape(), other.shape())?;
        D::matmul_into(self, other, out)
    }

    /// The inner product of two 1-d tensors of equal length, as a 0-d tensor (NumPy `dot` for
    /// vectors; for 2-d operands use [`Tensor::try_matmul`]).
    ///
    /// # Errors
    /// `ShapeMismatch` when an operand is not 1-d or the lengths differ.
    pub fn try_dot(&self, other: &Self) -> Result<Self> {
        if self.ndim() != 1 || other.ndim() != 1 || self.dims() != other.dims() {
            return Err(Error::ShapeMismatch {
                op: "dot",
                lhs: self.shape().clone(),
                rhs: other.shape().clone(),
                msg: "dot takes two 1-d tensors of the same length; use matmul for matrices".into(),
            });
        }
        self.try_matmul(other)
    }

    /// The outer product of two 1-d tensors: `(m,) ⊗ (n,) → (m, n)` (NumPy `outer`).
    ///
    /// # Errors
    /// `ShapeMismatch` when an operand is not 1-d.
    pub fn try_outer(&self, other: &Self) -> Result<Self> {
        if self.ndim() != 1 || other.ndim() != 1 {
            return Err(Error::ShapeMismatch {
                op: "outer",
                lhs: self.shape().clone(),
                rhs: other.shape().clone(),
                msg: "outer takes two 1-d tensors".into(),
            });
        }
        self.unsqueeze(1)?.try_mul(&other.unsqueeze(0)?)
    }

    /// The dot product along the last dimension with broadcasting (NumPy `vecdot`):
    /// `(..., n) · (..., n) → (...)`, in `T` (integers wrap).
    ///
    /// # Errors
    /// `Broadcast` when the shapes do not broadcast.
    pub fn try_vecdot(&self, other: &Self) -> Result<Self> {
        let p = self.try_mul(other)?;
        if p.ndim() == 0 {
            return Ok(p);
        }
        p.try_sum(&[-1], false)?.try_cast::<T>()
    }

    plain_forms! {
        /// [`Tensor::try_matmul`], panicking with its error.
        matmul, try_matmul(other: &Self) -> Self;
        /// [`Tensor::try_dot`], panicking with its error.
        dot, try_dot(other: &Self) -> Self;
        /// [`Tensor::try_outer`], panicking with its error.
        outer, try_outer(other: &Self) -> Self;
        /// [`Tensor::try_vecdot`], panicking with its error.
        vecdot, try_vecdot(other: &Self) -> Self;
    }
}
