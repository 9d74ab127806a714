//! CUDA forms of the factorizations, which run on the host (`inverse`, `solve`, `svd`, `pinv`,
//! `eigh`, through `faer` in f64 as on the CPU). Each copies its operands to the host, runs the
//! CPU op and copies the result back, so results and errors are the CPU's exactly; the cost is
//! one download and one upload of the operands (bytes = elements × dtype size), which
//! dominates for large tensors. A device kernel can replace any of them without changing its
//! signature.

use crate::device::{Cpu, Cuda};
use crate::dtype::{FloatOf, NumElement};
use crate::error::Result;
use crate::tensor::Tensor;

type Gpu<T> = Tensor<T, Cuda>;

impl<T: NumElement> Tensor<T, Cuda> {
    fn host(&self) -> Result<Tensor<T, Cpu>> {
        self.to_cpu()
    }

    /// Inverse of each square matrix, as [`Tensor::inverse`] on the CPU (computed on the host).
    pub fn inverse(&self) -> Result<Gpu<FloatOf<T>>> {
        self.host()?.inverse()?.to_cuda(&self.device)
    }

    /// Solves `self · x = b`, as [`Tensor::solve`] on the CPU (computed on the host).
    pub fn solve(&self, b: &Self) -> Result<Gpu<FloatOf<T>>> {
        crate::ops::device_ops::same_device("solve", self, b)?;
        self.host()?.solve(&b.host()?)?.to_cuda(&self.device)
    }

    /// Thin SVD `(u, s, vh)`, as [`Tensor::svd`] on the CPU (computed on the host).
    #[allow(clippy::type_complexity)]
    pub fn svd(&self) -> Result<(Gpu<FloatOf<T>>, Gpu<FloatOf<T>>, Gpu<FloatOf<T>>)> {
        let (u, s, vh) = self.host()?.svd()?;
        let d = &self.device;
        Ok((u.to_cuda(d)?, s.to_cuda(d)?, vh.to_cuda(d)?))
    }

    /// Moore-Penrose pseudo-inverse, as [`Tensor::pinv`] on the CPU (computed on the host).
    pub fn pinv(&self) -> Result<Gpu<FloatOf<T>>> {
        self.host()?.pinv()?.to_cuda(&self.device)
    }

    /// Eigenvalues and eigenvectors of symmetric matrices, as [`Tensor::eigh`] on the CPU
    /// (computed on the host).
    #[allow(clippy::type_complexity)]
    pub fn eigh(&self) -> Result<(Gpu<FloatOf<T>>, Gpu<FloatOf<T>>)> {
        let (w, v) = self.host()?.eigh()?;
        Ok((w.to_cuda(&self.device)?, v.to_cuda(&self.device)?))
    }
}
