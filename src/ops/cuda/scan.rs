//! Running reductions on `Tensor<T, Cuda>`: `cumsum` and `cumprod` along one axis (`SCAN` in
//! `kernels/reduce.cu`).

use super::{empty, launch};
use crate::device::cuda::Arg;
use crate::device::{Cuda, CudaStorage};
use crate::dtype::{Element, SumOf};
use crate::error::Result;
use crate::ops::cuda::table::{Module, symbol};
use crate::tensor::Tensor;

impl<T: Element> Tensor<T, Cuda> {
    /// Running sum along `axis` (NumPy `cumsum`; the CPU's [`Tensor::cumsum`]), same shape,
    /// as [`SumOf<T>`]: floats keep their dtype, integers and bool widen to i64 (wrapping).
    /// Each line is summed in order in the output dtype, as on the CPU, so the two agree bit
    /// for bit.
    ///
    /// # Errors
    /// `Axis` when `axis` is outside `-ndim..ndim`; CUDA allocation, compile or launch errors.
    pub fn cumsum(&self, axis: i64) -> Result<Tensor<SumOf<T>, Cuda>> {
        self.scan_kernel("cumsum", axis)
    }

    /// Running product along `axis` (NumPy `cumprod`), with [`Tensor::cumsum`]'s dtype rule,
    /// order and errors.
    pub fn cumprod(&self, axis: i64) -> Result<Tensor<SumOf<T>, Cuda>> {
        self.scan_kernel("cumprod", axis)
    }

    /// Runs scan kernel `root` over the (outer, len, inner) view of `axis`.
    fn scan_kernel(&self, root: &'static str, axis: i64) -> Result<Tensor<SumOf<T>, Cuda>> {
        let ax = self.shape().axis(root, axis)?;
        let dims = self.dims();
        let outer: usize = dims[..ax].iter().product();
        let inner: usize = dims[ax + 1..].iter().product();
        let src = self.contiguous()?;
        let dev = &self.device;
        let out: CudaStorage<SumOf<T>> = empty(dev, self.numel())?;
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
