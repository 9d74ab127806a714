//! `matmul` on `Tensor<T, Cuda>`: NumPy's shape rule (shared with the CPU), float dtypes
//! through cuBLAS (`GemmStridedBatchedEx`; f16/bf16 accumulate in f32), integers through
//! `kernels/matmul.cu` (wrapping like the CPU).

use super::launch;
use crate::backend::cuda::device::{Arg, GemmDtype};
use crate::backend::cuda::kernels::table::{Module, symbol};
use crate::device::{Cuda, CudaStorage, RawDevice};
use crate::dtype::{Dtype, NumElement};
use crate::error::Result;
use crate::ops::matmul::{MatmulDims, matmul_dims};
use crate::shape::Shape;
use crate::tensor::Tensor;

impl<T: NumElement> Tensor<T, Cuda> {
    /// The matrix product with NumPy's rules, as [`Tensor::matmul`] on the CPU: batch
    /// dimensions broadcast, 1-d operands are promoted and their dimension removed.
    /// Broadcast or strided operands are packed on the device first.
    ///
    /// # Errors
    /// `ShapeMismatch` naming both shapes (0-d operand, inner dimensions, batch dimensions);
    /// `Device` when the operands are on different devices or cuBLAS fails.
    pub(crate) fn cuda_matmul(&self, other: &Self) -> Result<Self> {
        let MatmulDims {
            m,
            k,
            n,
            batch,
            out,
        } = matmul_dims(self.shape(), other.shape())?;
        let float = match T::DTYPE {
            Dtype::Float32 => Some(GemmDtype::F32),
            Dtype::Float64 => Some(GemmDtype::F64),
            Dtype::Float16 => Some(GemmDtype::F16),
            Dtype::Bfloat16 => Some(GemmDtype::Bf16),
            _ => None,
        };
        // Both operands as packed (batch..., rows, cols) stacks, or for cuBLAS also as packed
        // stacks of transposed matrices (`true`), which it reads with its transpose flag: the
        // `x @ w.t()` of `linear` and the transposed operands of its backward are not copied.
        let stack = |t: &Self, rows: usize, cols: usize| -> Result<(Self, bool)> {
            let mut dims = batch.dims().to_vec();
            dims.extend([rows, cols]);
            let t = if t.ndim() == 1 {
                t.reshape_view(rows, cols)?
            } else {
                t.clone()
            };
            let t = t.broadcast_to(Shape::new(dims))?;
            let nd = t.ndim();
            if float.is_some() && !t.layout.is_contiguous() {
                let mut perm: Vec<usize> = (0..nd).collect();
                perm.swap(nd - 2, nd - 1);
                let swapped = t.permute_usize(&perm)?;
                if swapped.layout.is_contiguous() {
                    return Ok((swapped, true));
                }
            }
            Ok((t.try_contiguous()?, false))
        };
        let ((a, ta), (b, tb)) = (stack(self, m, k)?, stack(other, k, n)?);
        let nb = batch.numel();
        let dev = &self.device;
        // k == 0 gives zeros; otherwise cuBLAS (beta = 0) or the kernel writes every element.
        let c: CudaStorage<T> = if k == 0 {
            dev.zeros(nb * m * n)?
        } else {
            super::empty(dev, nb * m * n)?
        };
        if nb * m * n > 0 && k > 0 {
            let (ao, bo) = (a.layout.offset, b.layout.offset);
            match float {
                Some(dt) => dev.ctx.gemm(
                    dt,
                    (nb, m, n, k),
                    (&a.storage.buf, ao, ta),
                    (&b.storage.buf, bo, tb),
                    &c.buf,
                )?,
                None => {
                    let sym = symbol::<T>("matmul");
                    let total = nb * m * n;
                    launch(
                        dev,
                        Module::Matmul,
                        &sym,
                        total,
                        &[
                            Arg::U64(nb as u64),
                            Arg::U64(m as u64),
                            Arg::U64(n as u64),
                            Arg::U64(k as u64),
                            Arg::Buf(&a.storage.buf),
                            Arg::I64(ao as i64),
                            Arg::Buf(&b.storage.buf),
                            Arg::I64(bo as i64),
                            Arg::Buf(&c.buf),
                        ],
                    )?;
                }
            }
        }
        Ok(Tensor::from_storage(c, Shape::new(out), dev))
    }

    /// A 1-d tensor viewed as `(rows, cols)` (one of them is 1).
    fn reshape_view(&self, rows: usize, cols: usize) -> Result<Self> {
        if rows == 1 {
            self.unsqueeze(0)
        } else {
            debug_assert_eq!(cols, 1);
            self.unsqueeze(-1)
        }
    }
}
