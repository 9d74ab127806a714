//! Matrix products: `matmul` with NumPy's rules (batched, broadcast batch dimensions, 1-d
//! operands promoted and their dimension removed), `dot`, `outer`, `vecdot`.
//!
//! The seed's broadcasting example `A(4, 1, 2, 3) @ B(5, 3, 2) -> (4, 5, 3, 2)` has the wrong
//! matrix dimensions: NumPy gives `(4, 5, 2, 2)`, and so does this crate. The seed's code example
//! `(1, 4, 2, 3) @ (5, 3, 4)` is not broadcastable (batch 4 against 5), so it is an `Err`.

use crate::cpu::matmul::{Mat, matmul as mm};
use crate::cpu::strided::Plan;
use crate::device::Cpu;
use crate::dtype::NumElement;
use crate::error::{Error, Result};
use crate::ops::{Lift, write_into};
use crate::shape::{Layout, Shape, broadcast_shapes};
use crate::tensor::Tensor;
use rayon::prelude::*;

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

impl<T: NumElement> Tensor<T, Cpu> {
    /// The matrix product (NumPy `matmul`, the seed's `matmul`): 2-d × 2-d is `(m, k) · (k, n)
    /// → (m, n)`; for N-d operands the last two dimensions are matrices and the earlier ones
    /// broadcast; a 1-d left operand is a row vector and a 1-d right one a column vector, and
    /// their dimension is removed from the result. Transposed and sliced operands are read
    /// through their strides, not copied.
    ///
    /// # Errors
    /// `ShapeMismatch` naming both shapes when an operand is 0-d, the inner dimensions differ,
    /// or the batch dimensions do not broadcast.
    pub fn matmul(&self, other: &Self) -> Result<Self> {
        let mut out = Tensor::zeros(matmul_dims(self.shape(), other.shape())?.out)?;
        self.matmul_into(other, &mut out)?;
        Ok(out)
    }

    /// `out = self @ other` ([`Tensor::matmul`]'s rules) written into an existing tensor, as
    /// PyTorch's `matmul(a, b, out=c)`: no allocation when `out` is contiguous and is not an
    /// operand (otherwise the product goes through a temporary, so `out` may be an operand).
    ///
    /// # Errors
    /// [`Tensor::matmul`]'s errors, and `ShapeMismatch` when `out` does not have the result's
    /// shape; `out` is unchanged on error.
    pub fn matmul_into(&self, other: &Self, out: &mut Self) -> Result<()> {
        let op = "matmul";
        let MatmulDims {
            m,
            k,
            n,
            batch,
            out: dims,
        } = matmul_dims(self.shape(), other.shape())?;
        let a = if self.ndim() == 1 {
            self.unsqueeze(0)?
        } else {
            self.clone()
        };
        let b = if other.ndim() == 1 {
            other.unsqueeze(-1)?
        } else {
            other.clone()
        };
        let (ra, rb) = (a.ndim(), b.ndim());
        let sub = |t: &Tensor<T, Cpu>, r: usize| Layout {
            shape: Shape::new(t.dims()[..r - 2].to_vec()),
            strides: t.stride()[..r - 2].to_vec(),
            offset: t.layout.offset,
        };
        let la = sub(&a, ra).broadcast_to(op, &batch)?;
        let lb = sub(&b, rb).broadcast_to(op, &batch)?;
        let nb = batch.numel();
        let mut offsets = Vec::with_capacity(nb);
        Plan::new([&la, &lb]).for_runs(0, nb, |_, [oa, ob], [sa, sb], len| {
            offsets.extend((0..len).map(|j| (oa + j as isize * sa, ob + j as isize * sb)));
        });
        let (ars, acs) = (a.stride()[ra - 2], a.stride()[ra - 1]);
        let (brs, bcs) = (b.stride()[rb - 2], b.stride()[rb - 1]);
        let inputs = (&a.storage, &b.storage);
        write_into(op, out, &Shape::new(dims), inputs, |(ga, gb), dst| {
            let one = |(dst, &(oa, ob)): (&mut [T], &(isize, isize))| {
                let am = Mat {
                    data: ga,
                    offset: oa as usize,
                    rs: ars,
                    cs: acs,
                };
                let bm = Mat {
                    data: gb,
                    offset: ob as usize,
                    rs: brs,
                    cs: bcs,
                };
                mm(dst, am, bm, m, n, k);
            };
            if m * n == 0 {
                return;
            }
            if nb > 1 && m * n * k < (1 << 18) {
                dst.par_chunks_mut(m * n)
                    .zip(offsets.par_iter())
                    .for_each(one);
            } else {
                dst.chunks_mut(m * n).zip(offsets.iter()).for_each(one);
            }
        })
    }
}

on_both_devices! {
impl<T: NumElement> {
    /// The inner product of two 1-d tensors of equal length, as a 0-d tensor (NumPy `dot` for
    /// vectors; for 2-d operands use [`Tensor::matmul`]).
    pub fn dot(&self, other: &Self) -> Result<Self> {
        if self.ndim() != 1 || other.ndim() != 1 {
            return Err(Error::ShapeMismatch {
                op: "dot",
                lhs: self.shape().clone(),
                rhs: other.shape().clone(),
                msg: "dot takes two 1-d tensors; use matmul for matrices".into(),
            });
        }
        self.matmul(other)
    }

    /// The outer product of two 1-d tensors: `(m,) ⊗ (n,) → (m, n)` (NumPy `outer`).
    pub fn outer(&self, other: &Self) -> Result<Self> {
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
    /// `(..., n) · (..., n) → (...)`.
    pub fn vecdot(&self, other: &Self) -> Result<Self> {
        let p = self.try_mul(other)?;
        if p.ndim() == 0 {
            return Ok(p);
        }
        p.sum(&[-1], false)?.cast::<T>().lift()
    }
}
}
