//! The CPU's matmul step.

use super::drivers::write_into;
use super::kernels::matmul::{Mat, PAR_FLOPS, matmul as mm};
use super::kernels::strided::Plan;
use crate::device::Cpu;
use crate::dtype::NumElement;
use crate::error::Result;
use crate::ops::matmul::{MatmulDims, matmul_dims};
use crate::shape::{Layout, Shape};
use crate::tensor::Tensor;
use rayon::prelude::*;

/// `t` (an operand of at least 2 dimensions) copied row-major when its matrices are
/// column-major (a transposed weight, `x @ w.t()`), the other side of the product is at least
/// 64 long, and it broadcasts nothing: `gemm` ran such products at 0.35-0.85 of its row-major
/// speed (f32 (256, 1024) by a transposed (1024, 512): 168 against 476 GFLOP/s with AVX-512),
/// and the copy costs one pass over the operand, a 1/64 or less of the product's work.
fn row_major<T: NumElement>(t: &Tensor<T, Cpu>, other_side: usize) -> Result<Tensor<T, Cpu>> {
    let r = t.ndim();
    let column_major = t.stride()[r - 1] != 1 && t.stride()[r - 2] == 1 && t.dims()[r - 1] > 1;
    // bf16 products are computed from f32 copies anyway.
    let float = T::DTYPE.is_float() && T::DTYPE != crate::Dtype::Bfloat16;
    if float && column_major && other_side >= 64 && !t.stride().contains(&0) {
        return t.try_contiguous();
    }
    Ok(t.clone())
}

/// The CPU's matmul step: operands read through their strides by `gemm`, batches in parallel.
impl<T: NumElement> Tensor<T, Cpu> {
    pub(crate) fn cpu_matmul_into(&self, other: &Self, out: &mut Self) -> Result<()> {
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
            row_major(self, n)?
        };
        let b = if other.ndim() == 1 {
            other.unsqueeze(-1)?
        } else {
            row_major(other, m)?
        };
        let (ra, rb) = (a.ndim(), b.ndim());
        let sub = |t: &Tensor<T, Cpu>, r: usize| Layout {
            shape: Shape::new(t.dims()[..r - 2].to_vec()),
            strides: t.stride()[..r - 2].to_vec().into(),
            offset: t.layout.offset,
        };
        let la = sub(&a, ra).broadcast_to(op, &batch)?;
        let lb = sub(&b, rb).broadcast_to(op, &batch)?;
        let nb = batch.numel();
        // An empty output may still have a huge batch (shape (2^40, 0, 3)): nothing to walk.
        let empty = m == 0 || n == 0 || nb == 0;
        let mut offsets = crate::alloc::with_capacity(op, if empty { 0 } else { nb })?;
        if !empty {
            Plan::new([&la, &lb]).for_runs(0, nb, |_, [oa, ob], [sa, sb], len| {
                offsets.extend((0..len).map(|j| (oa + j as isize * sa, ob + j as isize * sb)));
            });
        }
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
            // A non-empty `dst` holds nb · m · n elements, so m · n fits from here on.
            if dst.is_empty() {
                return;
            }
            // Products that `gemm` runs on one thread run side by side instead (a conv2d's
            // per-image products, attention's heads): one after another they left the other
            // cores idle.
            if nb > 1 && (m * n).saturating_mul(k) < PAR_FLOPS {
                dst.par_chunks_mut(m * n)
                    .zip(offsets.par_iter())
                    .for_each(one);
            } else {
                dst.chunks_mut(m * n).zip(offsets.iter()).for_each(one);
            }
        })
    }
}
