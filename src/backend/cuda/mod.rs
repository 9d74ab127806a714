//! [`Backend`] for [`Cuda`]: each step launches the NVRTC-compiled kernels of the repository's
//! `kernels/` (through the launchers in `kernels/` here) or cuBLAS. In-place and `_into` forms
//! compute into a temporary and copy it into their target (the trait's defaults), so a target
//! may alias an operand.
//! Factorizations, `linspace` and long-line sorts run on the host.

// The launcher and the kernel table; public only so the NVRTC compile check in the tests can
// instantiate every kernel, not part of the API.
#[doc(hidden)]
pub mod kernels;
// The device itself (contexts, buffers, the driver and NVRTC); `Cuda` and `CudaStorage` are
// re-exported from `crate::device`, the rest is public only for the NVRTC compile check.
#[doc(hidden)]
pub mod device;

use super::Backend;
use crate::device::{Cpu, Cuda, RawDevice};
use crate::dtype::{Element, FloatElement, FloatOf, NumElement};
use crate::error::Result;
use crate::ops::binary::BinaryOp;
use crate::ops::compare::CompareOp;
use crate::ops::reduce::{ReduceOp, ScanOp};
use crate::ops::unary::{FloatUnaryOp, SameUnaryOp};
use crate::shape::Shape;
use crate::tensor::Tensor;

impl Backend for Cuda {
    fn to_host<T: Element>(x: &Tensor<T, Cuda>) -> Result<Tensor<T, Cpu>> {
        Tensor::from_vec(x.cuda_to_vec()?, x.shape().clone())
    }
    fn from_host<T: Element>(x: &Tensor<T, Cpu>, device: &Cuda) -> Result<Tensor<T, Cuda>> {
        let storage = device.upload(&x.try_to_vec()?)?;
        Ok(Tensor::from_storage(storage, x.shape().clone(), device))
    }
    fn to_vec<T: Element>(x: &Tensor<T, Cuda>) -> Result<Vec<T>> {
        x.cuda_to_vec()
    }
    fn deep_copy<T: Element>(x: &Tensor<T, Cuda>) -> Result<Tensor<T, Cuda>> {
        x.cuda_deep_copy()
    }
    fn cast<T: Element, U: Element>(x: &Tensor<T, Cuda>) -> Result<Tensor<U, Cuda>> {
        x.cuda_cast()
    }
    fn assign<T: Element>(dst: &mut Tensor<T, Cuda>, src: &Tensor<T, Cuda>) -> Result<()> {
        Cuda::cuda_assign(dst, src)
    }
    fn select<T: Element>(
        shape: &Shape,
        cond: &Tensor<bool, Cuda>,
        a: &Tensor<T, Cuda>,
        b: &Tensor<T, Cuda>,
    ) -> Result<Tensor<T, Cuda>> {
        Cuda::cuda_select(shape, cond, a, b)
    }

    fn float_unary<T: Element, Op: FloatUnaryOp>(
        x: &Tensor<T, Cuda>,
    ) -> Result<Tensor<FloatOf<T>, Cuda>> {
        x.cuda_float_unary::<Op>()
    }
    fn same_unary<T: NumElement, Op: SameUnaryOp>(x: &Tensor<T, Cuda>) -> Result<Tensor<T, Cuda>> {
        x.cuda_same_unary::<Op>()
    }
    fn binary<T: NumElement, Op: BinaryOp>(
        a: &Tensor<T, Cuda>,
        b: &Tensor<T, Cuda>,
    ) -> Result<Tensor<T, Cuda>> {
        a.cuda_binary::<Op>(b)
    }
    // The `_into` and in-place forms write straight into the output where that is safe
    // (`cuda_binary_direct`), else compute a new tensor and store it, as the defaults do.
    fn binary_into<T: NumElement, Op: BinaryOp>(
        a: &Tensor<T, Cuda>,
        b: &Tensor<T, Cuda>,
        out: &mut Tensor<T, Cuda>,
    ) -> Result<()> {
        if a.cuda_binary_direct::<Op>(b, out)? {
            return Ok(());
        }
        out.store(Op::NAME, &a.cuda_binary::<Op>(b)?)
    }
    fn binary_<T: NumElement, Op: BinaryOp>(
        dst: &mut Tensor<T, Cuda>,
        b: &Tensor<T, Cuda>,
    ) -> Result<()> {
        let a = dst.clone();
        Self::binary_into::<T, Op>(&a, b, dst)
    }
    fn scalar_into<T: NumElement, Op: BinaryOp>(
        x: &Tensor<T, Cuda>,
        s: T,
        out: &mut Tensor<T, Cuda>,
    ) -> Result<()> {
        let s = Tensor::scalar_on(s, &x.device)?;
        Self::binary_into::<T, Op>(x, &s, out)
    }
    fn scalar_<T: NumElement, Op: BinaryOp>(x: &mut Tensor<T, Cuda>, s: T) -> Result<()> {
        let a = x.clone();
        Self::scalar_into::<T, Op>(&a, s, x)
    }
    fn compare<T: Element, Op: CompareOp>(
        a: &Tensor<T, Cuda>,
        b: &Tensor<T, Cuda>,
    ) -> Result<Tensor<bool, Cuda>> {
        a.cuda_compare::<Op>(b)
    }

    fn reduce<T: Element, O: Element>(
        x: &Tensor<T, Cuda>,
        op: ReduceOp,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<Tensor<O, Cuda>> {
        x.cuda_reduce(op, mask, keepdim)
    }
    fn logsumexp<T: FloatElement>(
        x: &Tensor<T, Cuda>,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<Option<Tensor<T, Cuda>>> {
        x.cuda_logsumexp(mask, keepdim)
    }
    fn softmax_along<T: FloatElement>(
        x: &Tensor<T, Cuda>,
        axis: usize,
    ) -> Result<Option<Tensor<T, Cuda>>> {
        if axis + 1 != x.ndim() {
            return Ok(None);
        }
        x.cuda_softmax_last()
    }
    fn exp_sub<T: FloatElement>(
        x: &Tensor<T, Cuda>,
        shift: &Tensor<T, Cuda>,
        scale: Option<&Tensor<T, Cuda>>,
    ) -> Result<Option<Tensor<T, Cuda>>> {
        x.cuda_exp_sub(shift, scale)
    }
    fn adam_step<T: FloatElement>(
        p: &mut Tensor<T, Cuda>,
        g: &Tensor<T, Cuda>,
        m: &mut Tensor<T::Acc, Cuda>,
        v: &mut Tensor<T::Acc, Cuda>,
        v_max: Option<&mut Tensor<T::Acc, Cuda>>,
        h: &crate::backend::AdamHyper,
    ) -> Result<bool> {
        // `ADAM_STEP` has no L2 term, sign or AMSGrad maximum: those steps are composed.
        if v_max.is_some() || h.l2 != 0.0 || h.maximize {
            return Ok(false);
        }
        p.cuda_adam_step(g, m, v, h)
    }
    fn layer_norm_last<T: FloatElement>(
        x: &Tensor<T, Cuda>,
        len: usize,
        weight: Option<&Tensor<T, Cuda>>,
        bias: Option<&Tensor<T, Cuda>>,
        eps: f64,
    ) -> Result<Option<Tensor<T, Cuda>>> {
        x.cuda_layer_norm_last(len, weight, bias, eps)
    }
    fn scan<T: Element, O: NumElement>(
        x: &Tensor<T, Cuda>,
        op: ScanOp,
        ax: usize,
    ) -> Result<Tensor<O, Cuda>> {
        x.cuda_scan(op, ax)
    }

    fn matmul<T: NumElement>(a: &Tensor<T, Cuda>, b: &Tensor<T, Cuda>) -> Result<Tensor<T, Cuda>> {
        a.cuda_matmul(b)
    }
    fn index_select<T: Element>(
        src: &Tensor<T, Cuda>,
        ax: usize,
        indices: &Tensor<i64, Cuda>,
    ) -> Result<Tensor<T, Cuda>> {
        Cuda::cuda_index_select(src, ax, indices)
    }
    fn gather<T: Element>(
        src: &Tensor<T, Cuda>,
        ax: usize,
        index: &Tensor<i64, Cuda>,
    ) -> Result<Tensor<T, Cuda>> {
        Cuda::cuda_gather(src, ax, index)
    }
    fn scatter_add<T: NumElement>(
        x: &Tensor<T, Cuda>,
        ax: usize,
        index: &Tensor<i64, Cuda>,
        src: &Tensor<T, Cuda>,
    ) -> Result<Tensor<T, Cuda>> {
        x.cuda_scatter_add(ax, index, src)
    }
    fn argsort<T: Element>(
        x: &Tensor<T, Cuda>,
        ax: usize,
        descending: bool,
    ) -> Result<Tensor<i64, Cuda>> {
        x.cuda_argsort(ax, descending)
    }
    fn arange<T: NumElement>(start: T, stop: T, step: T, device: &Cuda) -> Result<Tensor<T, Cuda>> {
        Tensor::cuda_arange(start, stop, step, device)
    }
    fn random<T: FloatElement>(
        shape: Shape,
        device: &Cuda,
        normal: bool,
    ) -> Result<Tensor<T, Cuda>> {
        Tensor::cuda_random(shape, device, normal)
    }
}
