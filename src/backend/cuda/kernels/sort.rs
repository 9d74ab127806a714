//! `argsort` on `Tensor<T, Cuda>`: lines of up to [`SORT_MAX`] elements are sorted on the
//! device, one block per line (`ARGSORT` in `kernels/index.cu`, a bitonic network over (key,
//! position) items, in registers and warp shuffles from 256 padded entries, in shared memory
//! below); longer lines are sorted on the host. Either way the
//! result is the CPU's stable order, index for index. `sort` and `topk` build on it (defined
//! once for both devices in `ops/index.rs`).

use crate::backend::Backend;
use crate::backend::cuda::device::Arg;
use crate::backend::cuda::kernels::empty;
use crate::backend::cuda::kernels::table::{Module, symbol};
use crate::device::{Cpu, Cuda};
use crate::dtype::Element;
use crate::error::Result;
use crate::tensor::Tensor;

/// The longest line the device kernel sorts (its shared-memory capacity, `SORT_MAX` in
/// `kernels/index.cu`).
pub const SORT_MAX: usize = 2048;

impl<T: Element> Tensor<T, Cuda> {
    /// The CUDA argsort step along axis `ax`: stable, NaN the largest value, the CPU's result exactly
    /// (lines longer than [`SORT_MAX`] are sorted on the host).
    pub(crate) fn cuda_argsort(&self, ax: usize, descending: bool) -> Result<Tensor<i64, Cuda>> {
        let len = self.dims()[ax];
        if len > SORT_MAX {
            return crate::backend::on_host(self, |h| <Cpu as Backend>::argsort(h, ax, descending));
        }
        // The sorted axis last, packed: (lines, len).
        let n = self.ndim();
        let mut perm: Vec<usize> = (0..n).filter(|&i| i != ax).collect();
        perm.push(ax);
        let moved = self.permute_usize(&perm)?.try_contiguous()?;
        let lines = moved.numel().checked_div(len).unwrap_or(0);
        let dev = &self.device;
        let out = Tensor::from_storage(empty(dev, moved.numel())?, moved.shape().clone(), dev);
        if lines > 0 {
            // From 256 padded entries, 8 in each thread's registers; below, one thread per
            // compare-exchange (half the padded line). The kernel tells them apart by
            // `threads * 8 == pow2`, which only the first satisfies.
            let pow2 = len.next_power_of_two();
            let threads = if pow2 >= 256 {
                pow2 / 8
            } else {
                (pow2 / 2).max(32)
            };
            dev.ctx.launch(
                Module::Index.kernels(),
                &symbol::<T>("argsort"),
                (lines.min(1 << 16) as u32, threads as u32),
                &[
                    Arg::U64(lines as u64),
                    Arg::U64(len as u64),
                    Arg::U64(pow2 as u64),
                    Arg::I32(descending as i32),
                    Arg::I64(moved.layout.offset as i64),
                    Arg::Buf(&moved.storage.buf),
                    Arg::Buf(&out.storage.buf),
                ],
            )?;
        }
        let mut inv = vec![0usize; n];
        for (i, &p) in perm.iter().enumerate() {
            inv[p] = i;
        }
        out.permute_usize(&inv)?.try_contiguous()
    }
}
