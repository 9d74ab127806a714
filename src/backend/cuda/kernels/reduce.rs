//! The CUDA reduction step, with the CPU's dtypes and NaN rules: sum, product, min, max,
//! arg-reductions, mean, var, std, any, all and the `nan*` forms. One
//! kernel per root in `kernels/reduce.cu` reduces the middle axis of an (outer, len, inner)
//! view; long slices are split over blocks whose partials the last block merges.

use super::table::{Module, symbol};
use super::{THREADS, empty, launch};
use crate::backend::cuda::device::{Arg, COUNTERS};
use crate::device::{Cuda, CudaStorage};
use crate::dtype::{Element, SumOf};
use crate::error::{Error, Result};
use crate::ops::reduce::ReduceOp;
use crate::shape::Shape;
use crate::tensor::Tensor;

impl<T: Element> Tensor<T, Cuda> {
    /// The CUDA reduction step: one kernel per root, except `mean` (the sum divided in f64)
    /// and the NaN-skipping arg-reductions (whose all-NaN slices are read back for the error).
    pub(crate) fn cuda_reduce<O: Element>(
        &self,
        op: ReduceOp,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<Tensor<O, Cuda>> {
        let param = match op {
            ReduceOp::Var(c) | ReduceOp::Std(c) => c as f64,
            _ => 0.0,
        };
        match op {
            ReduceOp::Mean => {
                let count = crate::shape::numel_of(
                    (self.dims().iter().zip(mask))
                        .filter(|(_, m)| **m)
                        .map(|(&d, _)| d),
                );
                let sum: Tensor<SumOf<T>, Cuda> =
                    self.reduce_kernel(ReduceOp::Sum, mask, keepdim, 0.0)?;
                sum.try_cast::<f64>()?
                    .try_div_scalar(count as f64)?
                    .try_cast::<O>()
            }
            ReduceOp::NanArgMin | ReduceOp::NanArgMax => {
                let out: Tensor<O, Cuda> = self.reduce_kernel(op, mask, keepdim, 0.0)?;
                if out.try_to_vec()?.iter().any(|v| v.to_i64() == -1) {
                    return Err(Error::EmptyReduction {
                        op: op.name(),
                        msg: format!(
                            "a reduced slice of the tensor of shape {} holds only NaN",
                            self.shape()
                        ),
                    });
                }
                Ok(out)
            }
            _ => self.reduce_kernel(op, mask, keepdim, param),
        }
    }

    /// Reduces the axes in `mask` with `op`'s kernel (see `kernels/reduce.cu`); `param` is
    /// var/std's correction.
    fn reduce_kernel<O: Element>(
        &self,
        op: ReduceOp,
        mask: &[bool],
        keepdim: bool,
        param: f64,
    ) -> Result<Tensor<O, Cuda>> {
        let root = op.root();
        let dims = self.dims();
        let kept: Vec<usize> = (0..dims.len()).filter(|&i| !mask[i]).collect();
        let reduced: Vec<usize> = (0..dims.len()).filter(|&i| mask[i]).collect();
        let rows: usize = crate::shape::numel_of(kept.iter().map(|&i| dims[i]));
        let len: usize = crate::shape::numel_of(reduced.iter().map(|&i| dims[i]));
        let out_dims: Vec<usize> = if keepdim {
            dims.iter()
                .zip(mask)
                .map(|(&d, &m)| if m { 1 } else { d })
                .collect()
        } else {
            kept.iter().map(|&i| dims[i]).collect()
        };
        if len == 0 && rows > 0 && !op.has_identity() {
            return Err(Error::EmptyReduction {
                op: op.name(),
                msg: format!(
                    "a reduced slice of the tensor of shape {} is empty, and the {root} of nothing is undefined",
                    self.shape()
                ),
            });
        }
        // (outer, len, inner) with the reduced axes as the middle one: in place when they are
        // consecutive, otherwise moved last and packed (inner = 1).
        let consecutive = reduced.windows(2).all(|w| w[1] == w[0] + 1);
        let (src, outer, inner) = match (consecutive, reduced.first(), reduced.last()) {
            (true, Some(&a), Some(&b)) => {
                let outer = crate::shape::numel_of(dims[..a].iter().copied());
                (
                    self.try_contiguous()?,
                    outer,
                    crate::shape::numel_of(dims[b + 1..].iter().copied()),
                )
            }
            _ => {
                let perm: Vec<usize> = kept.iter().chain(&reduced).copied().collect();
                (self.permute_usize(&perm)?.try_contiguous()?, rows, 1)
            }
        };
        let dev = &self.device;
        let out: CudaStorage<O> = empty(dev, rows)?;
        if rows > 0 {
            // A block covers 32 columns (or one row); split `len` when that leaves too few
            // blocks for the GPU, keeping at least 2048 elements per block.
            let cols = if inner == 1 { 1 } else { 32 };
            let groups = outer * inner.div_ceil(cols);
            let split = if groups >= COUNTERS {
                1
            } else {
                2048usize.div_ceil(groups).min(len / 2048).max(1)
            };
            let (parts, counts) = if split > 1 {
                // Up to 32 bytes per partial (var/std's moments); one block counter per group.
                (
                    empty::<i64>(dev, 4 * rows * split)?,
                    Some(dev.ctx.counters()?),
                )
            } else {
                (empty::<i64>(dev, 0)?, None)
            };
            launch(
                dev,
                Module::Reduce,
                &symbol::<T>(root),
                groups * split * THREADS as usize,
                &[
                    Arg::U64(outer as u64),
                    Arg::U64(len as u64),
                    Arg::U64(inner as u64),
                    Arg::U64(split as u64),
                    Arg::I64(src.layout.offset as i64),
                    Arg::F64(param),
                    Arg::Buf(&src.storage.buf),
                    Arg::Buf(&out.buf),
                    Arg::Buf(&parts.buf),
                    counts.as_ref().map_or(Arg::U64(0), |c| Arg::Buf(c)),
                ],
            )?;
        }
        Ok(Tensor::from_storage(out, Shape::new(out_dims), dev))
    }
}
