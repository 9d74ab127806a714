//! [`Backend`] for [`Cpu`]: each step runs one of the drivers of `drivers.rs` (over the strided
//! kernels of `kernels/`) on the locked buffers; the steps are in `elementwise.rs`, `index.rs`,
//! `matmul.rs`, `reduce.rs` and `decomp.rs`. In-place and `_into` forms write straight into their
//! target, without a temporary, when it shares no buffer with an operand.

mod buf_cache;
pub(crate) mod compact;
mod decomp;
pub(crate) mod device;
pub(crate) mod drivers;
mod elementwise;
mod fused;
mod index;
pub(crate) mod kernels;
pub(crate) mod lock;
mod map_cache;
mod matmul;
mod optim;
mod pool;
mod reduce;
pub(crate) mod small;
mod softmax;
mod sort;

use super::Backend;
use crate::backend::cpu::kernels::strided;
use crate::device::Cpu;
use crate::dtype::{Element, FloatElement, FloatOf, NumElement};
use crate::error::Result;
use crate::ops::binary::BinaryOp;
use crate::ops::compare::CompareOp;
use crate::ops::reduce::{ReduceOp, ScanOp};
use crate::ops::unary::{FloatUnaryOp, SameUnaryOp};
use crate::shape::Shape;
use crate::tensor::{Tensor, read, write};
use drivers::{map_assign, map_new, zip_new};

impl Backend for Cpu {
    fn to_host<T: Element>(x: &Tensor<T, Cpu>) -> Result<Tensor<T, Cpu>> {
        Ok(x.clone())
    }
    fn from_host<T: Element>(x: &Tensor<T, Cpu>, _: &Cpu) -> Result<Tensor<T, Cpu>> {
        Ok(x.clone())
    }
    fn to_vec<T: Element>(x: &Tensor<T, Cpu>) -> Result<Vec<T>> {
        let mut out = crate::alloc::try_vec("to_vec", x.numel(), T::ZERO)?;
        let g = read("to_vec", &x.storage)?;
        strided::map_into(&g, &x.layout, &mut out, &|v| v);
        Ok(out)
    }
    fn deep_copy<T: Element>(x: &Tensor<T, Cpu>) -> Result<Tensor<T, Cpu>> {
        let g = read("deep_copy", &x.storage)?;
        let buf = strided::copy("deep_copy", &g, &x.layout)?;
        Ok(Tensor::from_buf(buf, x.shape().clone()))
    }
    fn cast<T: Element, U: Element>(x: &Tensor<T, Cpu>) -> Result<Tensor<U, Cpu>> {
        let op = "cast";
        if let Some(r) = small::map_new(op, x, strided::cast_slice::<T, U>) {
            return r;
        }
        x.shape().checked_numel(op, U::SIZE)?;
        let g = read(op, &x.storage)?;
        let mut out = crate::device::AlignedBuf::for_overwrite(op, x.numel())?;
        strided::cast_into(&g, &x.layout, &mut out);
        drop(g);
        Ok(Tensor::from_buf(out, x.shape().clone()))
    }
    fn assign<T: Element>(dst: &mut Tensor<T, Cpu>, src: &Tensor<T, Cpu>) -> Result<()> {
        Cpu::cpu_assign(dst, src)
    }
    fn fill<T: Element>(dst: &mut Tensor<T, Cpu>, value: T) -> Result<()> {
        let mut g = write("fill_", &dst.storage)?;
        strided::map_inplace(&mut g, &dst.layout, |_| value);
        Ok(())
    }
    fn select<T: Element>(
        shape: &Shape,
        cond: &Tensor<bool, Cpu>,
        a: &Tensor<T, Cpu>,
        b: &Tensor<T, Cpu>,
    ) -> Result<Tensor<T, Cpu>> {
        Cpu::cpu_select(shape, cond, a, b)
    }

    fn float_unary<T: Element, Op: FloatUnaryOp>(
        x: &Tensor<T, Cpu>,
    ) -> Result<Tensor<FloatOf<T>, Cpu>> {
        x.cpu_float_unary::<Op>()
    }
    fn float_unary_into<T: Element, Op: FloatUnaryOp>(
        x: &Tensor<T, Cpu>,
        out: &mut Tensor<FloatOf<T>, Cpu>,
    ) -> Result<()> {
        x.cpu_float_unary_into::<Op>(out)
    }
    fn float_unary_<T: FloatElement, Op: FloatUnaryOp>(x: &mut Tensor<T, Cpu>) -> Result<()> {
        x.cpu_float_unary_::<Op>()
    }
    fn same_unary<T: NumElement, Op: SameUnaryOp>(x: &Tensor<T, Cpu>) -> Result<Tensor<T, Cpu>> {
        map_new(Op::NAME, x, Op::apply)
    }
    fn same_unary_into<T: NumElement, Op: SameUnaryOp>(
        x: &Tensor<T, Cpu>,
        out: &mut Tensor<T, Cpu>,
    ) -> Result<()> {
        x.cpu_same_unary_into::<Op>(out)
    }
    fn same_unary_<T: NumElement, Op: SameUnaryOp>(x: &mut Tensor<T, Cpu>) -> Result<()> {
        map_assign(Op::NAME, x, Op::apply)
    }
    fn binary<T: NumElement, Op: BinaryOp>(
        a: &Tensor<T, Cpu>,
        b: &Tensor<T, Cpu>,
    ) -> Result<Tensor<T, Cpu>> {
        a.cpu_binary::<Op>(b)
    }
    fn binary_into<T: NumElement, Op: BinaryOp>(
        a: &Tensor<T, Cpu>,
        b: &Tensor<T, Cpu>,
        out: &mut Tensor<T, Cpu>,
    ) -> Result<()> {
        a.cpu_binary_into::<Op>(b, out)
    }
    fn binary_<T: NumElement, Op: BinaryOp>(
        dst: &mut Tensor<T, Cpu>,
        b: &Tensor<T, Cpu>,
    ) -> Result<()> {
        dst.cpu_binary_::<Op>(b)
    }
    fn scalar<T: NumElement, Op: BinaryOp>(
        x: &Tensor<T, Cpu>,
        s: T,
        lhs: bool,
    ) -> Result<Tensor<T, Cpu>> {
        if lhs {
            x.cpu_scalar_lhs::<Op>(s)
        } else {
            x.cpu_scalar::<Op>(s)
        }
    }
    fn scalar_into<T: NumElement, Op: BinaryOp>(
        x: &Tensor<T, Cpu>,
        s: T,
        out: &mut Tensor<T, Cpu>,
    ) -> Result<()> {
        x.cpu_scalar_into::<Op>(s, out)
    }
    fn clip<T: NumElement>(x: &Tensor<T, Cpu>, lo: T, hi: T) -> Result<Tensor<T, Cpu>> {
        use crate::ops::binary::ops::{Maximum, Minimum};
        // One pass instead of two; a contiguous input at the CPU's widest vectors (the SSE2
        // copy's NaN selects cost more than the memory traffic).
        if x.is_contiguous() && x.numel() > 64 {
            let mut buf = crate::device::AlignedBuf::for_overwrite("clip", x.numel())?;
            let g = crate::tensor::read("clip", &x.storage)?;
            let src = &g[x.layout.offset..x.layout.offset + x.numel()];
            strided::par_out(&mut buf, |start, o| {
                kernels::clip_widest(&src[start..start + o.len()], o, lo, hi)
            });
            drop(g);
            return Ok(Tensor::from_buf(buf, x.shape().clone()));
        }
        drivers::map_new("clip", x, move |v| {
            Minimum::apply(Maximum::apply(v, lo), hi)
        })
    }
    fn scalar_<T: NumElement, Op: BinaryOp>(x: &mut Tensor<T, Cpu>, s: T) -> Result<()> {
        x.cpu_scalar_::<Op>(s)
    }
    fn compare<T: Element, Op: CompareOp>(
        a: &Tensor<T, Cpu>,
        b: &Tensor<T, Cpu>,
    ) -> Result<Tensor<bool, Cpu>> {
        zip_new(Op::NAME, a, b, Op::apply::<T>)
    }
    fn compare_scalar<T: Element, Op: CompareOp>(
        x: &Tensor<T, Cpu>,
        s: T,
    ) -> Result<Tensor<bool, Cpu>> {
        map_new(Op::NAME, x, move |v: T| Op::apply(v, s))
    }

    #[inline(always)]
    fn reduce<T: Element, O: Element>(
        x: &Tensor<T, Cpu>,
        op: ReduceOp,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<Tensor<O, Cpu>> {
        if let Some(r) = reduce::small_total(x, op, mask, keepdim) {
            return r;
        }
        reduce::cpu_reduce(x, op, mask, keepdim)
    }
    fn logsumexp<T: FloatElement>(
        x: &Tensor<T, Cpu>,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<Option<Tensor<T, Cpu>>> {
        reduce::cpu_logsumexp(x, mask, keepdim)
    }
    fn concat<T: Element>(
        inputs: &[&Tensor<T, Cpu>],
        axis: usize,
        dims: &[usize],
    ) -> Result<Option<Tensor<T, Cpu>>> {
        Cpu::cpu_concat(inputs, axis, dims)
    }
    fn sum_squares<T: Element>(
        x: &Tensor<T, Cpu>,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<Option<Tensor<f64, Cpu>>> {
        reduce::cpu_sum_squares(x, mask, keepdim)
    }
    fn softmax_along<T: FloatElement>(
        x: &Tensor<T, Cpu>,
        axis: usize,
    ) -> Result<Option<Tensor<T, Cpu>>> {
        softmax::cpu_softmax_along(x, axis)
    }
    #[allow(clippy::type_complexity)]
    fn logsumexp_parts_along<T: FloatElement>(
        x: &Tensor<T, Cpu>,
        axis: usize,
    ) -> Result<Option<(Tensor<T, Cpu>, Tensor<T, Cpu>)>> {
        softmax::cpu_logsumexp_parts_along(x, axis)
    }
    fn log_softmax_along<T: FloatElement>(
        x: &Tensor<T, Cpu>,
        axis: usize,
    ) -> Result<Option<Tensor<T, Cpu>>> {
        softmax::cpu_log_softmax_along(x, axis)
    }
    fn log_softmax_backward_along<T: FloatElement>(
        g: &Tensor<T, Cpu>,
        y: &Tensor<T, Cpu>,
        axis: usize,
    ) -> Result<Option<Tensor<T, Cpu>>> {
        softmax::cpu_log_softmax_backward_along(g, y, axis)
    }
    fn softmax_causal_last<T: FloatElement>(x: &Tensor<T, Cpu>) -> Result<Option<Tensor<T, Cpu>>> {
        reduce::cpu_softmax_causal_last(x)
    }
    fn exp_sub<T: FloatElement>(
        x: &Tensor<T, Cpu>,
        shift: &Tensor<T, Cpu>,
        scale: Option<&Tensor<T, Cpu>>,
    ) -> Result<Option<Tensor<T, Cpu>>> {
        softmax::cpu_exp_sub(x, shift, scale)
    }
    fn layer_norm_last<T: FloatElement>(
        x: &Tensor<T, Cpu>,
        len: usize,
        weight: Option<&Tensor<T, Cpu>>,
        bias: Option<&Tensor<T, Cpu>>,
        eps: f64,
    ) -> Result<Option<Tensor<T, Cpu>>> {
        fused::cpu_layer_norm_last(x, len, weight, bias, eps)
    }
    fn layer_norm_backward_last<T: FloatElement>(
        x: &Tensor<T, Cpu>,
        g: &Tensor<T, Cpu>,
        weight: Option<&Tensor<T, Cpu>>,
        (len, eps): (usize, f64),
        params: bool,
    ) -> Result<Option<crate::backend::LayerNormGrads<T, Cpu>>> {
        fused::cpu_layer_norm_backward_last(x, g, weight, (len, eps), params)
    }
    fn batch_norm_forward<T: FloatElement>(
        x: &Tensor<T, Cpu>,
        stats: Option<[&Tensor<T, Cpu>; 2]>,
        weight: Option<&Tensor<T, Cpu>>,
        bias: Option<&Tensor<T, Cpu>>,
        eps: f64,
    ) -> Result<Option<[Tensor<T, Cpu>; 3]>> {
        fused::cpu_batch_norm_forward(x, stats, weight, bias, eps)
    }
    fn batch_norm_backward<T: FloatElement>(
        x: &Tensor<T, Cpu>,
        g: &Tensor<T, Cpu>,
        stats: [&Tensor<T, Cpu>; 2],
        weight: Option<&Tensor<T, Cpu>>,
        eps: f64,
    ) -> Result<Option<[Tensor<T, Cpu>; 3]>> {
        fused::cpu_batch_norm_backward(x, g, stats, weight, eps)
    }
    fn softmax_backward_along<T: FloatElement>(
        g: &Tensor<T, Cpu>,
        y: &Tensor<T, Cpu>,
        axis: usize,
    ) -> Result<Option<Tensor<T, Cpu>>> {
        softmax::cpu_softmax_backward_along(g, y, axis)
    }
    fn softmax_causal_backward_last<T: FloatElement>(
        g: &Tensor<T, Cpu>,
        y: &Tensor<T, Cpu>,
    ) -> Result<Option<Tensor<T, Cpu>>> {
        fused::cpu_softmax_causal_backward_last(g, y)
    }
    fn pointwise_backward<T: FloatElement>(
        op: crate::backend::PointwiseGrad,
        g: &Tensor<T, Cpu>,
        x: &Tensor<T, Cpu>,
    ) -> Result<Option<Tensor<T, Cpu>>> {
        let kernel = match op {
            crate::backend::PointwiseGrad::Gelu => super::cpu::kernels::vmath::gelu_grad,
            crate::backend::PointwiseGrad::Silu => super::cpu::kernels::vmath::silu_grad,
        };
        fused::cpu_pointwise_backward(g, x, kernel)
    }
    fn adam_step<T: FloatElement>(
        p: &mut Tensor<T, Cpu>,
        g: &Tensor<T, Cpu>,
        m: &mut Tensor<T::Acc, Cpu>,
        v: &mut Tensor<T::Acc, Cpu>,
        v_max: Option<&mut Tensor<T::Acc, Cpu>>,
        h: &crate::backend::AdamHyper,
    ) -> Result<bool> {
        optim::adam_step(p, g, m, v, v_max, h)
    }
    fn sgd_step<T: FloatElement>(
        p: &mut Tensor<T, Cpu>,
        g: &Tensor<T, Cpu>,
        buf: Option<&mut Tensor<T::Acc, Cpu>>,
        h: &crate::backend::SgdHyper,
    ) -> Result<bool> {
        optim::sgd_step(p, g, buf, h)
    }
    fn max_pool2d_index<T: FloatElement>(
        x: &Tensor<T, Cpu>,
        window: crate::backend::PoolWindow,
    ) -> Result<Option<Tensor<i64, Cpu>>> {
        pool::max_pool2d_index(x, window).map(Some)
    }
    fn max_pool2d<T: FloatElement>(
        x: &Tensor<T, Cpu>,
        window: crate::backend::PoolWindow,
    ) -> Result<Option<Tensor<T, Cpu>>> {
        pool::max_pool2d(x, window)
    }
    fn avg_pool2d<T: FloatElement>(
        x: &Tensor<T, Cpu>,
        window: crate::backend::PoolWindow,
    ) -> Result<Option<Tensor<T, Cpu>>> {
        pool::avg_pool2d(x, window).map(Some)
    }
    fn unfold2d<T: FloatElement>(
        x: &Tensor<T, Cpu>,
        window: (usize, usize, usize, usize, usize, usize),
        out: (usize, usize),
    ) -> Result<Option<Tensor<T, Cpu>>> {
        pool::unfold2d(x, window, out).map(Some)
    }
    fn fold2d<T: FloatElement>(
        g: &Tensor<T, Cpu>,
        dims: [usize; 4],
        window: (usize, usize, usize, usize, usize, usize),
    ) -> Result<Option<Tensor<T, Cpu>>> {
        pool::fold2d(g, dims, window).map(Some)
    }
    fn scan<T: Element, O: NumElement>(
        x: &Tensor<T, Cpu>,
        op: ScanOp,
        ax: usize,
    ) -> Result<Tensor<O, Cpu>> {
        reduce::cpu_scan(x, op, ax)
    }

    fn matmul<T: NumElement>(a: &Tensor<T, Cpu>, b: &Tensor<T, Cpu>) -> Result<Tensor<T, Cpu>> {
        let dims = crate::ops::matmul::matmul_dims(a.shape(), b.shape())?;
        // `gemm` overwrites (it does not read `dst`), and `k = 0` fills zeros: every element
        // is written, so a recycled buffer needs no clearing.
        let mut out = Tensor::for_overwrite("matmul", Shape::new(dims.out))?;
        a.cpu_matmul_into(b, &mut out)?;
        Ok(out)
    }
    fn matmul_into<T: NumElement>(
        a: &Tensor<T, Cpu>,
        b: &Tensor<T, Cpu>,
        out: &mut Tensor<T, Cpu>,
    ) -> Result<()> {
        a.cpu_matmul_into(b, out)
    }
    fn index_select<T: Element>(
        src: &Tensor<T, Cpu>,
        ax: usize,
        indices: &Tensor<i64, Cpu>,
    ) -> Result<Tensor<T, Cpu>> {
        Cpu::cpu_index_select(src, ax, indices)
    }
    fn gather<T: Element>(
        src: &Tensor<T, Cpu>,
        ax: usize,
        index: &Tensor<i64, Cpu>,
    ) -> Result<Tensor<T, Cpu>> {
        Cpu::cpu_gather(src, ax, index)
    }
    fn scatter_add<T: NumElement>(
        x: &Tensor<T, Cpu>,
        ax: usize,
        index: &Tensor<i64, Cpu>,
        src: &Tensor<T, Cpu>,
    ) -> Result<Tensor<T, Cpu>> {
        x.cpu_scatter_add(ax, index, src)
    }
    fn scatter_add_<T: NumElement>(
        x: &mut Tensor<T, Cpu>,
        ax: usize,
        index: &Tensor<i64, Cpu>,
        src: &Tensor<T, Cpu>,
    ) -> Result<bool> {
        x.cpu_scatter_add_(ax, index, src)
    }
    fn index_add<T: NumElement>(
        base: Option<&Tensor<T, Cpu>>,
        dims: &[usize],
        ax: usize,
        index: &Tensor<i64, Cpu>,
        src: &Tensor<T, Cpu>,
    ) -> Result<Option<Tensor<T, Cpu>>> {
        Tensor::cpu_index_add(base, dims, ax, index, src).map(Some)
    }
    fn argsort<T: Element>(
        x: &Tensor<T, Cpu>,
        ax: usize,
        descending: bool,
    ) -> Result<Tensor<i64, Cpu>> {
        sort::sorted_positions(x, ax, x.dims()[ax], descending)
    }
    fn topk<T: Element>(
        x: &Tensor<T, Cpu>,
        ax: usize,
        k: usize,
    ) -> Result<Option<Tensor<i64, Cpu>>> {
        sort::sorted_positions(x, ax, k, true).map(Some)
    }
    fn masked_select<T: Element>(
        x: &Tensor<T, Cpu>,
        mask: &Tensor<bool, Cpu>,
    ) -> Result<Option<Tensor<T, Cpu>>> {
        compact::masked_select(x, mask).map(Some)
    }
    fn argselect<T: Element>(
        x: &Tensor<T, Cpu>,
        ax: usize,
        rank: &Tensor<i64, Cpu>,
    ) -> Result<Option<Tensor<i64, Cpu>>> {
        sort::selected_positions(x, ax, rank).map(Some)
    }
    fn random<T: FloatElement>(shape: Shape, _: &Cpu, normal: bool) -> Result<Tensor<T, Cpu>> {
        if normal {
            Tensor::randn(shape)
        } else {
            Tensor::rand(shape)
        }
    }
}
