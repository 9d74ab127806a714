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
        let dims = matmul_dims(self.shape(), other.shape())?;
        // A contiguous batch times one matrix (linear's 3-d input) is one product over the
        // batch's rows, as PyTorch folds it: one large gemm instead of a batch of small ones.
        let k = self.dims().last().copied().unwrap_or(0);
        if self.ndim() > 2 && other.ndim() == 2 && k > 0 && self.is_contiguous() {
            let rows = self.try_reshape([self.numel() / k, k])?;
            return rows.try_matmul(other)?.try_reshape(dims.out);
        }
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

    /// The batched product of `(b, n, k)` and `(b, k, m)` stacks (PyTorch `bmm`): `(b, n, m)`.
    /// Unlike [`Tensor::try_matmul`] it does not broadcast: both must be 3-d with one batch size.
    ///
    /// # Errors
    /// `ShapeMismatch` naming both shapes otherwise.
    pub fn try_bmm(&self, other: &Self) -> Result<Self> {
        let (a, b) = (self.dims(), other.dims());
        if a.len() != 3 || b.len() != 3 || a[0] != b[0] || a[2] != b[1] {
            return Err(shapes(
                "bmm",
                self,
                other,
                "needs (b, n, k) and (b, k, m) stacks",
            ));
        }
        self.try_matmul(other)
    }

    /// A matrix `(n, k)` times a vector `(k)`: `(n)` (PyTorch `mv`).
    ///
    /// # Errors
    /// `ShapeMismatch` naming both shapes for other shapes.
    pub fn try_mv(&self, vec: &Self) -> Result<Self> {
        let (a, b) = (self.dims(), vec.dims());
        if a.len() != 2 || b.len() != 1 || a[1] != b[0] {
            return Err(shapes(
                "mv",
                self,
                vec,
                "needs an (n, k) matrix and a (k) vector",
            ));
        }
        self.try_matmul(vec)
    }

    /// `beta · self + alpha · (m1 · m2)` for matrices `m1` `(n, k)` and `m2` `(k, m)`, with
    /// `self` broadcast to `(n, m)` (PyTorch `addmm`); `beta = 0` ignores `self`'s values, NaN
    /// included, as PyTorch does.
    ///
    /// # Errors
    /// `ShapeMismatch` when `m1`/`m2` are not matrices that multiply; `Broadcast` when `self`
    /// does not broadcast to `(n, m)`.
    pub fn try_addmm(&self, m1: &Self, m2: &Self, beta: T, alpha: T) -> Result<Self> {
        let (a, b) = (m1.dims(), m2.dims());
        if a.len() != 2 || b.len() != 2 || a[1] != b[0] {
            return Err(shapes("addmm", m1, m2, "needs (n, k) and (k, m) matrices"));
        }
        self.check_target("addmm", vec![a[0], b[1]])?;
        self.beta_plus(m1.try_matmul(m2)?, beta, alpha)
    }

    /// `beta · self + alpha · (mat · vec)` for a matrix `mat` `(n, m)` and a vector `vec`
    /// `(m)`, with `self` broadcast to `(n)` (PyTorch `addmv`); `beta = 0` ignores `self`'s
    /// values, NaN included.
    ///
    /// # Errors
    /// `ShapeMismatch` when `mat` and `vec` do not multiply; `Broadcast` when `self` does not
    /// broadcast to `(n)`.
    pub fn try_addmv(&self, mat: &Self, vec: &Self, beta: T, alpha: T) -> Result<Self> {
        let (a, b) = (mat.dims(), vec.dims());
        if a.len() != 2 || b.len() != 1 || a[1] != b[0] {
            return Err(shapes(
                "addmv",
                mat,
                vec,
                "needs an (n, m) matrix and an (m) vector",
            ));
        }
        self.check_target("addmv", vec![a[0]])?;
        self.beta_plus(mat.try_matmul(vec)?, beta, alpha)
    }

    /// `beta · self + alpha · outer(vec1, vec2)` for vectors `(n)` and `(m)`, with `self`
    /// broadcast to `(n, m)` (PyTorch `addr`); `beta = 0` ignores `self`'s values.
    ///
    /// # Errors
    /// `ShapeMismatch` when `vec1` or `vec2` is not 1-d; `Broadcast` when `self` does not
    /// broadcast to `(n, m)`.
    pub fn try_addr(&self, vec1: &Self, vec2: &Self, beta: T, alpha: T) -> Result<Self> {
        let (a, b) = (vec1.dims(), vec2.dims());
        if a.len() != 1 || b.len() != 1 {
            return Err(shapes("addr", vec1, vec2, "needs two 1-d vectors"));
        }
        self.check_target("addr", vec![a[0], b[0]])?;
        self.beta_plus(vec1.try_outer(vec2)?, beta, alpha)
    }

    /// `beta · self + alpha · Σ_b batch1[b] · batch2[b]` for stacks `(b, n, k)` and
    /// `(b, k, m)`, with `self` broadcast to `(n, m)` (PyTorch `addbmm`: the products summed
    /// over the batch); `beta = 0` ignores `self`'s values.
    ///
    /// # Errors
    /// `ShapeMismatch` when the batches are not 3-d stacks that multiply; `Broadcast` when
    /// `self` does not broadcast to `(n, m)`.
    pub fn try_addbmm(&self, batch1: &Self, batch2: &Self, beta: T, alpha: T) -> Result<Self> {
        let (a, b) = (batch1.dims(), batch2.dims());
        if a.len() != 3 || b.len() != 3 || a[0] != b[0] || a[2] != b[1] {
            return Err(shapes(
                "addbmm",
                batch1,
                batch2,
                "needs (b, n, k) and (b, k, m) stacks",
            ));
        }
        self.check_target("addbmm", vec![a[1], b[2]])?;
        // (n, b·k) · (b·k, m) sums the batch's products in one matrix product.
        let left = batch1
            .permute(&[1, 0, 2])?
            .try_reshape([a[1], a[0] * a[2]])?;
        let right = batch2.try_reshape([b[0] * b[1], b[2]])?;
        self.beta_plus(left.try_matmul(&right)?, beta, alpha)
    }

    /// `Err(Broadcast)` unless `self` broadcasts to `out`, the shape of an `add*` op's product.
    fn check_target(&self, op: &'static str, out: Vec<usize>) -> Result<()> {
        let out = Shape::from(out);
        if broadcast_shapes(op, self.shape(), &out)? != out {
            return Err(Error::Broadcast {
                op,
                lhs: self.shape().clone(),
                rhs: out,
            });
        }
        Ok(())
    }

    /// `beta · self + alpha · product`, the tail of the `add*` family; `beta = 0` ignores
    /// `self`'s values (NaN included), as PyTorch does.
    fn beta_plus(&self, product: Self, beta: T, alpha: T) -> Result<Self> {
        let p = product.try_mul_scalar(alpha)?;
        if beta == T::ZERO {
            return Ok(p);
        }
        p.try_add(&self.try_mul_scalar(beta)?)
    }

    /// `beta · self + alpha · (batch1 · batch2)` for stacks of matrices `batch1` `(b, n, k)`
    /// and `batch2` `(b, k, m)`, with `self` broadcast to `(b, n, m)` (PyTorch `baddbmm`);
    /// `beta = 0` ignores `self`'s values, NaN included.
    ///
    /// # Errors
    /// `ShapeMismatch` when the batches are not 3-d stacks that multiply; `Broadcast` when
    /// `self` does not broadcast to `(b, n, m)`.
    pub fn try_baddbmm(&self, batch1: &Self, batch2: &Self, beta: T, alpha: T) -> Result<Self> {
        let (a, b) = (batch1.dims(), batch2.dims());
        if a.len() != 3 || b.len() != 3 || a[0] != b[0] || a[2] != b[1] {
            return Err(shapes(
                "baddbmm",
                batch1,
                batch2,
                "needs (b, n, k) and (b, k, m) stacks",
            ));
        }
        self.check_target("baddbmm", vec![a[0], a[1], b[2]])?;
        self.beta_plus(batch1.try_matmul(batch2)?, beta, alpha)
    }

    /// The `n`-th power of each square matrix in the last two dimensions (PyTorch
    /// `matrix_power`): the identity for `n = 0`, repeated squaring for `n > 0`; a negative
    /// `n` raises the inverse (floats only: integers have no inverse here).
    ///
    /// # Errors
    /// `InvalidArgument` for non-square input, or a negative power of an integer tensor;
    /// `Singular` (from [`Tensor::try_inverse`]) for a singular matrix and `n < 0`.
    pub fn try_matrix_power(&self, n: i64) -> Result<Self> {
        let d = self.dims();
        if d.len() < 2 || d[d.len() - 1] != d[d.len() - 2] {
            return Err(Error::InvalidArgument {
                op: "matrix_power",
                msg: format!(
                    "needs square matrices in the last two dimensions, got shape {}",
                    self.shape()
                ),
            });
        }
        let base = if n < 0 {
            if !T::DTYPE.is_float() {
                return Err(Error::InvalidArgument {
                    op: "matrix_power",
                    msg: format!(
                        "a negative power of a {} tensor has no integer result; cast to a float dtype first",
                        T::DTYPE
                    ),
                });
            }
            crate::ops::promote::converted::<_, T, D>(&self.try_inverse()?)?
        } else {
            self.clone()
        };
        let k = d[d.len() - 1];
        let eye = Self::eye_on(k, self.device_handle())?;
        let mut acc: Option<Self> = None;
        let (mut sq, mut e) = (base, n.unsigned_abs());
        while e > 0 {
            if e & 1 == 1 {
                acc = Some(match acc {
                    Some(a) => a.try_matmul(&sq)?,
                    None => sq.clone(),
                });
            }
            e >>= 1;
            if e > 0 {
                sq = sq.try_matmul(&sq)?;
            }
        }
        match acc {
            Some(a) => Ok(a),
            None => eye.expand(self.shape().clone())?.try_contiguous(),
        }
    }

    plain_forms! {
        /// [`Tensor::try_bmm`], panicking with its error.
        bmm, try_bmm(other: &Self) -> Self;
        /// [`Tensor::try_mv`], panicking with its error.
        mv, try_mv(vec: &Self) -> Self;
        /// [`Tensor::try_addmm`], panicking with its error.
        addmm, try_addmm(m1: &Self, m2: &Self, beta: T, alpha: T) -> Self;
        /// [`Tensor::try_baddbmm`], panicking with its error.
        baddbmm, try_baddbmm(batch1: &Self, batch2: &Self, beta: T, alpha: T) -> Self;
        /// [`Tensor::try_addmv`], panicking with its error.
        addmv, try_addmv(mat: &Self, vec: &Self, beta: T, alpha: T) -> Self;
        /// [`Tensor::try_addr`], panicking with its error.
        addr, try_addr(vec1: &Self, vec2: &Self, beta: T, alpha: T) -> Self;
        /// [`Tensor::try_addbmm`], panicking with its error.
        addbmm, try_addbmm(batch1: &Self, batch2: &Self, beta: T, alpha: T) -> Self;
        /// [`Tensor::try_matrix_power`], panicking with its error.
        matrix_power, try_matrix_power(n: i64) -> Self;
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

/// `ShapeMismatch` for a product's operands.
fn shapes<T: NumElement, D: Backend>(
    op: &'static str,
    a: &Tensor<T, D>,
    b: &Tensor<T, D>,
    msg: &str,
) -> Error {
    Error::ShapeMismatch {
        op,
        lhs: a.shape().clone(),
        rhs: b.shape().clone(),
        msg: msg.into(),
    }
}
