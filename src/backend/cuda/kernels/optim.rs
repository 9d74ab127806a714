//! The fused optimizer steps of `kernels/binary.cu` (`ADAM_STEP`): one pass over a parameter,
//! its gradient and its moments, where the composed step was about 18 kernels.

use super::launch;
use super::table::{Module, symbol};
use crate::backend::AdamHyper;
use crate::backend::cuda::device::Arg;
use crate::device::Cuda;
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::tensor::Tensor;

impl<T: FloatElement> Tensor<T, Cuda> {
    /// [`crate::backend::Backend::adam_step`] on CUDA: `false` unless the operands fit
    /// ([`crate::backend::fused_operands_fit`]).
    pub(crate) fn cuda_adam_step(
        &mut self,
        g: &Self,
        m: &mut Tensor<T::Acc, Cuda>,
        v: &mut Tensor<T::Acc, Cuda>,
        h: &AdamHyper,
    ) -> Result<bool> {
        if !crate::backend::fused_operands_fit(self, g, &[m, v]) {
            return Ok(false);
        }
        self.check_writable("Adam::step")?;
        m.check_writable("Adam::step")?;
        v.check_writable("Adam::step")?;
        let n = self.numel();
        if n == 0 {
            return Ok(true);
        }
        let (b1, b2) = h.betas;
        launch(
            &self.device,
            Module::Binary,
            &symbol::<T>("adam_step"),
            n,
            &[
                Arg::U64(n as u64),
                Arg::Buf(&self.storage.buf),
                Arg::Buf(&g.storage.buf),
                Arg::Buf(&m.storage.buf),
                Arg::Buf(&v.storage.buf),
                Arg::F64(h.decay),
                Arg::F64(b1),
                Arg::F64(b2),
                Arg::F64(h.c2_sqrt),
                Arg::F64(h.eps),
                Arg::F64(h.step),
            ],
        )?;
        Ok(true)
    }
}
