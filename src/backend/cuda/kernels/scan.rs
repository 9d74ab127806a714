//! The CUDA scan step: `cumsum` and `cumprod` along one axis (`SCAN` in `kernels/reduce.cu`).

use super::{empty, launch};
use crate::backend::cuda::device::Arg;
use crate::backend::cuda::kernels::table::{Module, symbol};
use crate::device::{Cuda, CudaStorage};
use crate::dtype::Element;
use crate::error::Result;
use crate::ops::reduce::ScanOp;
use crate::tensor::Tensor;

impl<T: Element> Tensor<T, Cuda> {
    /// Runs `op`'s scan kernel over the (outer, len, inner) view of axis `ax`. Each line is
    /// summed in order in the output dtype, as on the CPU, so the two agree bit for bit.
    pub(crate) fn cuda_scan<O: Element>(&self, op: ScanOp, ax: usize) -> Result<Tensor<O, Cuda>> {
        let root = op.name();
        let dims = self.dims();
        let outer: usize = crate::shape::numel_of(dims[..ax].iter().copied());
        let inner: usize = crate::shape::numel_of(dims[ax + 1..].iter().copied());
        let src = self.try_contiguous()?;
        let dev = &self.device;
        let out: CudaStorage<O> = empty(dev, self.numel())?;
        if self.numel() > 0 {
            launch(
                dev,
                Module::Reduce,
                &symbol::<T>(root),
                outer * inner,
                &[
                    Arg::U64(outer as u64),
                    Arg::U64(dims[ax] as u64),
                    Arg::U64(inner as u64),
                    Arg::I64(src.layout.offset as i64),
                    Arg::Buf(&src.storage.buf),
                    Arg::Buf(&out.buf),
                ],
            )?;
        }
        Ok(Tensor::from_storage(out, self.shape().clone(), dev))
    }
}
