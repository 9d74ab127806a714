//! The device layer: [`Backend`], the one trait through which every device-specific step of an
//! op goes. The public ops of `Tensor<T, D>` are defined once, over `D: Backend`, in `ops/`;
//! they check arguments, pick the output dtype and call these steps. `cpu.rs` implements them
//! with the strided CPU drivers, `cuda.rs` with the NVRTC kernels and cuBLAS.
//!
//! A step a device has no kernel for is a default method that runs on the host
//! (`on_host`): a new op is then a compile error in one place (the trait), never a silent gap
//! on one device.

pub(crate) mod cpu;
#[doc(hidden)]
pub mod cuda;

use crate::device::{Cpu, RawDevice};
use crate::dtype::{Element, FloatElement, FloatOf, NumElement};
use crate::error::Result;
use crate::ops::binary::BinaryOp;
use crate::ops::compare::CompareOp;
use crate::ops::reduce::{ReduceOp, ScanOp};
use crate::ops::unary::{FloatUnaryOp, SameUnaryOp};
use crate::shape::Shape;
use crate::tensor::Tensor;

/// The gradients of `Backend::layer_norm_backward_last`: the input's, then, when asked for,
/// the weight's and the bias's (`(len,)` each).
#[doc(hidden)]
pub type LayerNormGrads<T, D> = (Tensor<T, D>, Option<[Tensor<T, D>; 2]>);

/// The activations whose backward [`Backend::pointwise_backward`] may fuse.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointwiseGrad {
    /// GELU, the exact form: `Φ(x) + x φ(x)`.
    Gelu,
    /// SiLU: `s (1 + x (1 - s))`, `s = sigmoid(x)`.
    Silu,
}

/// A 2-d pooling window's geometry, each pair (height, width): the kernel, the stride, the
/// padding and the output size it gives.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct PoolWindow {
    pub kernel: (usize, usize),
    pub stride: (usize, usize),
    pub padding: (usize, usize),
    pub out: (usize, usize),
}

/// A device with kernels: implemented for [`Cpu`] and [`crate::Cuda`] (sealed through
/// [`RawDevice`]). Write device-generic code with `D: Backend`, or with the same bound under
/// its other name, [`crate::Device`]:
///
/// ```
/// use typed_tensor::prelude::*;
///
/// /// `softmax` over the last axis, for any float type on any device.
/// fn softmax<T: FloatElement, D: Backend>(x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
///     let e = x.try_sub(&x.try_max(&[-1], true)?)?.try_exp()?;
///     e.try_div(&e.try_sum(&[-1], true)?)
/// }
///
/// let x = Tensor::<f32>::from_vec(vec![1.0, 2.0, 3.0, 1.0, 1.0, 1.0], [2, 3])?;
/// let p = softmax(&x)?;
/// assert!((p.sum(&[], false).item() - 2.0).abs() < 1e-6);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// Its methods are the steps behind the typed API and are not called directly: they take
/// tensors whose arguments the public op has already checked (axes resolved, shapes
/// broadcastable, operands on one device).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a device with kernels",
    note = "the backends are `Cpu` and `Cuda`; generic code takes `D: Backend`"
)]
pub trait Backend: RawDevice {
    // ---- transfers and copies -------------------------------------------------------------

    /// A host tensor with `x`'s elements (shared storage on the CPU, a download on CUDA).
    #[doc(hidden)]
    fn to_host<T: Element>(x: &Tensor<T, Self>) -> Result<Tensor<T, Cpu>>;
    /// `x` on `device` (shared storage on the CPU, an upload on CUDA).
    #[doc(hidden)]
    fn from_host<T: Element>(x: &Tensor<T, Cpu>, device: &Self) -> Result<Tensor<T, Self>>;
    /// The elements in row-major order, on the host.
    #[doc(hidden)]
    fn to_vec<T: Element>(x: &Tensor<T, Self>) -> Result<Vec<T>>;
    /// An independent contiguous copy.
    #[doc(hidden)]
    fn deep_copy<T: Element>(x: &Tensor<T, Self>) -> Result<Tensor<T, Self>>;
    /// Every element converted with Rust `as` semantics.
    #[doc(hidden)]
    fn cast<T: Element, U: Element>(x: &Tensor<T, Self>) -> Result<Tensor<U, Self>>;
    /// Writes `src` (broadcast to `dst`'s shape) into the writable view `dst`.
    #[doc(hidden)]
    fn assign<T: Element>(dst: &mut Tensor<T, Self>, src: &Tensor<T, Self>) -> Result<()>;
    /// Sets every element of the writable view `dst` to `value`.
    #[doc(hidden)]
    fn fill<T: Element>(dst: &mut Tensor<T, Self>, value: T) -> Result<()> {
        let s = Tensor::scalar_on(value, &dst.device)?;
        Self::assign(dst, &s)
    }
    /// `cond ? a : b`, the three already checked to broadcast to `shape`.
    #[doc(hidden)]
    fn select<T: Element>(
        shape: &Shape,
        cond: &Tensor<bool, Self>,
        a: &Tensor<T, Self>,
        b: &Tensor<T, Self>,
    ) -> Result<Tensor<T, Self>>;
    /// `inputs` joined along `axis` into a new tensor of shape `dims` in one pass, the caller
    /// having checked that the shapes fit (every dimension but `axis` equal, `dims` their
    /// join). `None` where this device has no such kernel or the layouts do not suit it; the
    /// caller then copies input by input into views of the output. Records no graph.
    #[doc(hidden)]
    fn concat<T: Element>(
        inputs: &[&Tensor<T, Self>],
        axis: usize,
        dims: &[usize],
    ) -> Result<Option<Tensor<T, Self>>> {
        let _ = (inputs, axis, dims);
        Ok(None)
    }

    // ---- element-wise ---------------------------------------------------------------------

    /// A float-valued unary op into a new tensor.
    #[doc(hidden)]
    fn float_unary<T: Element, Op: FloatUnaryOp>(
        x: &Tensor<T, Self>,
    ) -> Result<Tensor<FloatOf<T>, Self>>;
    /// A float-valued unary op into `out` (shape checked here; `out` may be `x`).
    #[doc(hidden)]
    fn float_unary_into<T: Element, Op: FloatUnaryOp>(
        x: &Tensor<T, Self>,
        out: &mut Tensor<FloatOf<T>, Self>,
    ) -> Result<()> {
        out.store(Op::NAME, &Self::float_unary::<T, Op>(x)?)
    }
    /// A float-valued unary op in place.
    #[doc(hidden)]
    fn float_unary_<T: FloatElement, Op: FloatUnaryOp>(x: &mut Tensor<T, Self>) -> Result<()> {
        let r = Self::float_unary::<T, Op>(x)?;
        x.store(Op::NAME, &r)
    }
    /// A type-keeping unary op into a new tensor.
    #[doc(hidden)]
    fn same_unary<T: NumElement, Op: SameUnaryOp>(x: &Tensor<T, Self>) -> Result<Tensor<T, Self>>;
    /// A type-keeping unary op into `out`.
    #[doc(hidden)]
    fn same_unary_into<T: NumElement, Op: SameUnaryOp>(
        x: &Tensor<T, Self>,
        out: &mut Tensor<T, Self>,
    ) -> Result<()> {
        out.store(Op::NAME, &Self::same_unary::<T, Op>(x)?)
    }
    /// A type-keeping unary op in place.
    #[doc(hidden)]
    fn same_unary_<T: NumElement, Op: SameUnaryOp>(x: &mut Tensor<T, Self>) -> Result<()> {
        let r = Self::same_unary::<T, Op>(x)?;
        x.store(Op::NAME, &r)
    }
    /// `Op(a, b)` with broadcasting into a new tensor; an invalid right operand (an integer
    /// zero divisor) is an `Err` before anything is written.
    #[doc(hidden)]
    fn binary<T: NumElement, Op: BinaryOp>(
        a: &Tensor<T, Self>,
        b: &Tensor<T, Self>,
    ) -> Result<Tensor<T, Self>>;
    /// `out = Op(a, b)`; `out` has the broadcast shape and may be an operand.
    #[doc(hidden)]
    fn binary_into<T: NumElement, Op: BinaryOp>(
        a: &Tensor<T, Self>,
        b: &Tensor<T, Self>,
        out: &mut Tensor<T, Self>,
    ) -> Result<()> {
        out.store(Op::NAME, &Self::binary::<T, Op>(a, b)?)
    }
    /// `dst = Op(dst, b)`, `b` broadcast into `dst`'s shape.
    #[doc(hidden)]
    fn binary_<T: NumElement, Op: BinaryOp>(
        dst: &mut Tensor<T, Self>,
        b: &Tensor<T, Self>,
    ) -> Result<()> {
        let r = Self::binary::<T, Op>(dst, b)?;
        dst.store(Op::NAME, &r)
    }
    /// `Op(x, s)`, or `Op(s, x)` when `lhs`.
    #[doc(hidden)]
    fn scalar<T: NumElement, Op: BinaryOp>(
        x: &Tensor<T, Self>,
        s: T,
        lhs: bool,
    ) -> Result<Tensor<T, Self>> {
        let s = Tensor::scalar_on(s, &x.device)?;
        if lhs {
            Self::binary::<T, Op>(&s, x)
        } else {
            Self::binary::<T, Op>(x, &s)
        }
    }
    /// `minimum(maximum(x, lo), hi)` (NumPy `clip`, NaN propagating): the two scalar ops,
    /// or one pass where the device has it.
    #[doc(hidden)]
    fn clip<T: NumElement>(x: &Tensor<T, Self>, lo: T, hi: T) -> Result<Tensor<T, Self>> {
        use crate::ops::binary::ops::{Maximum, Minimum};
        Self::scalar::<T, Minimum>(&Self::scalar::<T, Maximum>(x, lo, false)?, hi, false)
    }
    /// `out = Op(x, s)`.
    #[doc(hidden)]
    fn scalar_into<T: NumElement, Op: BinaryOp>(
        x: &Tensor<T, Self>,
        s: T,
        out: &mut Tensor<T, Self>,
    ) -> Result<()> {
        out.store(Op::NAME, &Self::scalar::<T, Op>(x, s, false)?)
    }
    /// `x = Op(x, s)`.
    #[doc(hidden)]
    fn scalar_<T: NumElement, Op: BinaryOp>(x: &mut Tensor<T, Self>, s: T) -> Result<()> {
        let r = Self::scalar::<T, Op>(x, s, false)?;
        x.store(Op::NAME, &r)
    }
    /// A comparison with broadcasting.
    #[doc(hidden)]
    fn compare<T: Element, Op: CompareOp>(
        a: &Tensor<T, Self>,
        b: &Tensor<T, Self>,
    ) -> Result<Tensor<bool, Self>>;
    /// A comparison against a scalar right operand.
    #[doc(hidden)]
    fn compare_scalar<T: Element, Op: CompareOp>(
        x: &Tensor<T, Self>,
        s: T,
    ) -> Result<Tensor<bool, Self>> {
        Self::compare::<T, Op>(x, &Tensor::scalar_on(s, &x.device)?)
    }

    // ---- reductions and scans -------------------------------------------------------------

    /// Reduces the axes where `mask` is true; `O` is the op's output dtype, picked by the
    /// public op (`SumOf<T>` for a sum, i64 for an arg-reduction, ...).
    #[doc(hidden)]
    fn reduce<T: Element, O: Element>(
        x: &Tensor<T, Self>,
        op: ReduceOp,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<Tensor<O, Self>>;
    /// `logsumexp` over the axes in `mask` by a fused kernel, or `None` where this device has
    /// none for this layout; the caller then composes max, exp, sum and log (the semantics).
    #[doc(hidden)]
    fn logsumexp<T: FloatElement>(
        x: &Tensor<T, Self>,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<Option<Tensor<T, Self>>> {
        let _ = (x, mask, keepdim);
        Ok(None)
    }
    /// `Σ x²` over the axes in `mask` in f64, each element widened before it is squared, by
    /// a fused kernel, or `None` where this device has none for this dtype; the caller then
    /// composes cast, mul and sum (the semantics). Records no graph.
    #[doc(hidden)]
    fn sum_squares<T: Element>(
        x: &Tensor<T, Self>,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<Option<Tensor<f64, Self>>> {
        let _ = (x, mask, keepdim);
        Ok(None)
    }
    /// `softmax` along `axis` (`< x.ndim()`) by a fused kernel (each line read once for its
    /// maximum, once for its exponentials and their sum, then scaled in the cache), or `None`
    /// where this device has none for this layout or axis; the caller then composes max, sub,
    /// exp, sum and div (the semantics). Records no graph: the caller uses it only when nothing
    /// is recorded.
    #[doc(hidden)]
    fn softmax_along<T: FloatElement>(
        x: &Tensor<T, Self>,
        axis: usize,
    ) -> Result<Option<Tensor<T, Self>>> {
        let _ = (x, axis);
        Ok(None)
    }
    /// `logsumexp` along `axis` of `x` in two parts, each line's maximum `m` and
    /// `log Σ exp(x - m)` (both keepdim), or `None` where this device has no kernel for this
    /// layout, axis or dtype; the caller then composes them. Records no graph.
    #[doc(hidden)]
    #[allow(clippy::type_complexity)]
    fn logsumexp_parts_along<T: FloatElement>(
        x: &Tensor<T, Self>,
        axis: usize,
    ) -> Result<Option<(Tensor<T, Self>, Tensor<T, Self>)>> {
        let _ = (x, axis);
        Ok(None)
    }
    /// `x - max - log Σ exp(x - max)` along `axis` of `x` (PyTorch's `log_softmax`, as
    /// `Tensor::try_log_softmax` composes it), or `None` where this device has no kernel for
    /// this layout, axis or dtype; the caller then composes it. Records no graph.
    #[doc(hidden)]
    fn log_softmax_along<T: FloatElement>(
        x: &Tensor<T, Self>,
        axis: usize,
    ) -> Result<Option<Tensor<T, Self>>> {
        let _ = (x, axis);
        Ok(None)
    }
    /// The gradient of `log_softmax` along `axis` from its output `y` and the output's
    /// gradient `g` (one shape), `g - exp(y) · Σ g` (PyTorch's `_log_softmax_backward_data`),
    /// by a fused kernel, or `None`; the caller then composes it.
    #[doc(hidden)]
    fn log_softmax_backward_along<T: FloatElement>(
        g: &Tensor<T, Self>,
        y: &Tensor<T, Self>,
        axis: usize,
    ) -> Result<Option<Tensor<T, Self>>> {
        let _ = (g, y, axis);
        Ok(None)
    }
    /// [`Backend::softmax_along`] over the last axis under `scaled_dot_product_attention`'s causal mask: row `i` of
    /// each matrix (axis -2) keeps its first `i + 1` elements, the others count as `-inf` (0
    /// out). `None` where this device has no such kernel; the caller then composes
    /// `masked_fill` and `softmax`. Records no graph.
    #[doc(hidden)]
    fn softmax_causal_last<T: FloatElement>(
        x: &Tensor<T, Self>,
    ) -> Result<Option<Tensor<T, Self>>> {
        let _ = x;
        Ok(None)
    }
    /// The gradient of [`Backend::softmax_causal_last`]: `y · (g - Σ g·y)` over each row's kept
    /// elements and 0 at the masked ones (whatever `g` holds there), or `None`; the caller
    /// then composes it.
    #[doc(hidden)]
    fn softmax_causal_backward_last<T: FloatElement>(
        g: &Tensor<T, Self>,
        y: &Tensor<T, Self>,
    ) -> Result<Option<Tensor<T, Self>>> {
        let _ = (g, y);
        Ok(None)
    }
    /// The gradient of `softmax` along `axis`, `y · (g - Σ g·y)` per line, from its output `y`
    /// and the output's gradient `g` (one shape), by a fused kernel, or `None` where this
    /// device has none for these layouts, this axis or this dtype; the caller then composes it.
    #[doc(hidden)]
    fn softmax_backward_along<T: FloatElement>(
        g: &Tensor<T, Self>,
        y: &Tensor<T, Self>,
        axis: usize,
    ) -> Result<Option<Tensor<T, Self>>> {
        let _ = (g, y, axis);
        Ok(None)
    }
    /// `exp(x - shift) · scale` by a fused kernel, where `shift` and `scale` have `x`'s shape
    /// with one run of adjacent axes of size 1 (one value per line of those axes: a softmax
    /// from its `logsumexp`, times a per-line gradient), or `None` where this device has none
    /// for these layouts; the caller then composes sub, exp and mul (the semantics).
    #[doc(hidden)]
    fn exp_sub<T: FloatElement>(
        x: &Tensor<T, Self>,
        shift: &Tensor<T, Self>,
        scale: Option<&Tensor<T, Self>>,
    ) -> Result<Option<Tensor<T, Self>>> {
        let _ = (x, shift, scale);
        Ok(None)
    }
    /// `layer_norm` over the last `len` elements of each row of `x` (PyTorch's formula, as
    /// `nn::layer_norm` composes it), times `weight` and plus `bias` (`len` elements each,
    /// their shapes checked by the caller), by a fused kernel, or `None` where this device has
    /// none for this dtype; the caller then composes it. Records no graph: the caller uses it
    /// only when nothing is recorded.
    #[doc(hidden)]
    fn layer_norm_last<T: FloatElement>(
        x: &Tensor<T, Self>,
        len: usize,
        weight: Option<&Tensor<T, Self>>,
        bias: Option<&Tensor<T, Self>>,
        eps: f64,
    ) -> Result<Option<Tensor<T, Self>>> {
        let _ = (x, len, weight, bias, eps);
        Ok(None)
    }
    /// `layer_norm`'s gradients over the last `len` elements of each row of `x`, given the
    /// gradient `g` of its output (`x`'s shape) and the affine's `weight` (`len` elements,
    /// checked by the caller) if there is one: the input's gradient and, when `params` asks,
    /// the sums over the rows of `g · x̂` and of `g` (`(len,)` each: the weight's and the
    /// bias's gradients), by a fused kernel, or `None` where this device has none for these
    /// layouts or this dtype; the caller then composes them (`nn::layer_norm`'s rule, the
    /// semantics).
    #[doc(hidden)]
    fn layer_norm_backward_last<T: FloatElement>(
        x: &Tensor<T, Self>,
        g: &Tensor<T, Self>,
        weight: Option<&Tensor<T, Self>>,
        (len, eps): (usize, f64),
        params: bool,
    ) -> Result<Option<LayerNormGrads<T, Self>>> {
        let _ = (x, g, weight, len, eps, params);
        Ok(None)
    }
    /// `batch_norm` over `x` of `(N, C, ...)`: `y = (x - mean) / sqrt(var + eps) · weight +
    /// bias` per channel, with `stats` (`[mean, var]`, the running statistics in evaluation)
    /// or, without them, each channel's mean and biased variance over the other axes (all
    /// `(C,)`, checked by the caller); returns `[y, mean, var]` by a fused kernel, or `None`
    /// where this device has none for this layout or dtype; the caller then composes it
    /// (`nn::batch_norm`, the semantics). Records no graph.
    #[doc(hidden)]
    fn batch_norm_forward<T: FloatElement>(
        x: &Tensor<T, Self>,
        stats: Option<[&Tensor<T, Self>; 2]>,
        weight: Option<&Tensor<T, Self>>,
        bias: Option<&Tensor<T, Self>>,
        eps: f64,
    ) -> Result<Option<[Tensor<T, Self>; 3]>> {
        let _ = (x, stats, weight, bias, eps);
        Ok(None)
    }
    /// The gradients of [`Backend::batch_norm_forward`]'s `y` in training, given its gradient `g` (`x`'s
    /// shape) and the saved `[mean, var]`: `[dx, dweight, dbias]` (the last two `(C,)`; without
    /// a weight, `dx` is that of weight 1), by a fused kernel, or `None` where this device has
    /// none; the caller then composes them (`nn::batch_norm`'s rule, the semantics).
    #[doc(hidden)]
    fn batch_norm_backward<T: FloatElement>(
        x: &Tensor<T, Self>,
        g: &Tensor<T, Self>,
        stats: [&Tensor<T, Self>; 2],
        weight: Option<&Tensor<T, Self>>,
        eps: f64,
    ) -> Result<Option<[Tensor<T, Self>; 3]>> {
        let _ = (x, g, stats, weight, eps);
        Ok(None)
    }
    /// `g · f'(x)` for an activation `f` whose derivative is a function of `x` alone
    /// ([`PointwiseGrad`]: GELU's and SiLU's, PyTorch's `gelu_backward`/`silu_backward`), by
    /// a fused kernel, or `None` where this device has none for these layouts or this dtype;
    /// the caller then composes it (the semantics: GELU's `Φ(x) + x φ(x)` from `erf` and
    /// `exp`, SiLU's `s (1 + x (1 - s))` from `sigmoid`).
    #[doc(hidden)]
    fn pointwise_backward<T: FloatElement>(
        op: PointwiseGrad,
        g: &Tensor<T, Self>,
        x: &Tensor<T, Self>,
    ) -> Result<Option<Tensor<T, Self>>> {
        let _ = (op, g, x);
        Ok(None)
    }
    /// One Adam/AdamW update of a parameter in one pass (PyTorch's single-tensor formula,
    /// each operation rounded as the composed step rounds it), or `false`, having written
    /// nothing, where this device has no fused kernel for these operands or options; the
    /// caller then composes the step. `g ← ±g + l2·p`, `p ← p·decay`, `m ← β₁m + (1-β₁)g`,
    /// `v ← β₂v + (1-β₂)g²`, with AMSGrad `v̂ ← max(v̂, v)` (else `v̂ = v`), and
    /// `p ← p - step·m/(√v̂/c₂ + ε)`, with `m`, `v`, `v̂` in the compute type `T::Acc`.
    #[doc(hidden)]
    fn adam_step<T: FloatElement>(
        p: &mut Tensor<T, Self>,
        g: &Tensor<T, Self>,
        m: &mut Tensor<T::Acc, Self>,
        v: &mut Tensor<T::Acc, Self>,
        v_max: Option<&mut Tensor<T::Acc, Self>>,
        h: &AdamHyper,
    ) -> Result<bool> {
        let _ = (p, g, m, v, v_max, h);
        Ok(false)
    }
    /// One SGD update of a parameter in one pass (PyTorch's single-tensor formula, each
    /// operation rounded as the composed step rounds it), or `false`, having written nothing,
    /// where this device has no fused kernel for these operands; the caller then composes the
    /// step. `g ← ±g + l2·p`; with a momentum buffer `b`: `b ← g` at the first step, else
    /// `b ← μb + (1-dampening)g`, then `g ← g + μb` (Nesterov) or `g ← b`; `p ← p - lr·g`,
    /// with `b` in the compute type `T::Acc`.
    #[doc(hidden)]
    fn sgd_step<T: FloatElement>(
        p: &mut Tensor<T, Self>,
        g: &Tensor<T, Self>,
        buf: Option<&mut Tensor<T::Acc, Self>>,
        h: &SgdHyper,
    ) -> Result<bool> {
        let _ = (p, g, buf, h);
        Ok(false)
    }
    /// The position of each max-pooling window's maximum in a `(N, C, H, W)` input, as an
    /// index into its flattened `(H, W)` plane, `(N, C, oh, ow)`: the first maximum in the
    /// window's row-major order, the first NaN where there is one, and the window's first input
    /// element where all of them are `-inf` (padding is never picked). The caller checked the
    /// input, that padding is at most half the kernel and that `(oh, ow)` windows fit. `None`
    /// where this device has no kernel; the caller then composes it from the gathered windows
    /// and `argmax`. Records no graph.
    #[doc(hidden)]
    fn max_pool2d_index<T: FloatElement>(
        x: &Tensor<T, Self>,
        window: PoolWindow,
    ) -> Result<Option<Tensor<i64, Self>>> {
        let _ = (x, window);
        Ok(None)
    }
    /// The maximum of each max-pooling window, `(N, C, oh, ow)`: the element
    /// [`Backend::max_pool2d_index`] names, so NaN where the window holds one. Same checks and
    /// `None` as there (the caller then reduces the gathered windows). Records no graph.
    #[doc(hidden)]
    fn max_pool2d<T: FloatElement>(
        x: &Tensor<T, Self>,
        window: PoolWindow,
    ) -> Result<Option<Tensor<T, Self>>> {
        let _ = (x, window);
        Ok(None)
    }
    /// The mean of each average-pooling window, `(N, C, oh, ow)`, padding counted as zeros
    /// (PyTorch's `count_include_pad=True`). Same checks and `None` as
    /// [`Backend::max_pool2d_index`] (the caller then averages the gathered windows). Records
    /// no graph.
    #[doc(hidden)]
    fn avg_pool2d<T: FloatElement>(
        x: &Tensor<T, Self>,
        window: PoolWindow,
    ) -> Result<Option<Tensor<T, Self>>> {
        let _ = (x, window);
        Ok(None)
    }
    /// im2col, the convolution's window gather: the windows of an `(N, C, H, W)` input with
    /// the geometry `(kh, kw, sh, sw, dh, dw)` the caller checked, giving `(oh, ow)` windows
    /// per plane, as a contiguous `(N, C, kh, kw, oh, ow)` tensor. `None` where this device has
    /// no kernel (the caller then copies a 6-d strided view). Records no graph.
    #[doc(hidden)]
    fn unfold2d<T: FloatElement>(
        x: &Tensor<T, Self>,
        window: (usize, usize, usize, usize, usize, usize),
        out: (usize, usize),
    ) -> Result<Option<Tensor<T, Self>>> {
        let _ = (x, window, out);
        Ok(None)
    }
    /// col2im, the gradient of the convolution's window gather: `g` is `(N, C, kh, kw, oh,
    /// ow)`, the windows of an `(N, C, H, W)` input (`dims`) with the geometry `(kh, kw, sh,
    /// sw, dh, dw)` the caller checked; each tap is added onto the input positions it read,
    /// taps in row-major order onto zeros. `None` where this device has no kernel (the caller
    /// then adds one strided view per tap). Records no graph.
    #[doc(hidden)]
    fn fold2d<T: FloatElement>(
        g: &Tensor<T, Self>,
        dims: [usize; 4],
        window: (usize, usize, usize, usize, usize, usize),
    ) -> Result<Option<Tensor<T, Self>>> {
        let _ = (g, dims, window);
        Ok(None)
    }
    /// A running sum or product along the checked axis `ax`.
    #[doc(hidden)]
    fn scan<T: Element, O: NumElement>(
        x: &Tensor<T, Self>,
        op: ScanOp,
        ax: usize,
    ) -> Result<Tensor<O, Self>>;

    // ---- matrix product, indexing, sorting, generators ------------------------------------

    /// NumPy `matmul` of two operands on one device into a new tensor.
    #[doc(hidden)]
    fn matmul<T: NumElement>(a: &Tensor<T, Self>, b: &Tensor<T, Self>) -> Result<Tensor<T, Self>>;
    /// NumPy `matmul` into `out` (shape checked here; `out` may be an operand).
    #[doc(hidden)]
    fn matmul_into<T: NumElement>(
        a: &Tensor<T, Self>,
        b: &Tensor<T, Self>,
        out: &mut Tensor<T, Self>,
    ) -> Result<()> {
        out.store("matmul", &Self::matmul(a, b)?)
    }
    /// `index_select` along the checked axis `ax` with 1-d `indices`.
    #[doc(hidden)]
    fn index_select<T: Element>(
        src: &Tensor<T, Self>,
        ax: usize,
        indices: &Tensor<i64, Self>,
    ) -> Result<Tensor<T, Self>>;
    /// `gather` along the checked axis `ax`, the index's shape already checked.
    #[doc(hidden)]
    fn gather<T: Element>(
        src: &Tensor<T, Self>,
        ax: usize,
        index: &Tensor<i64, Self>,
    ) -> Result<Tensor<T, Self>>;
    /// `scatter_add` along the checked axis `ax`, shapes already checked.
    #[doc(hidden)]
    fn scatter_add<T: NumElement>(
        x: &Tensor<T, Self>,
        ax: usize,
        index: &Tensor<i64, Self>,
        src: &Tensor<T, Self>,
    ) -> Result<Tensor<T, Self>>;
    /// `scatter_add` along the checked axis `ax` written into `x` itself (shapes checked as
    /// the public op checks them), for a fresh `x` the caller holds alone: `false`, nothing
    /// written, where this device has no in-place kernel or `x`'s layout does not suit it.
    /// On an out-of-range index `x` may be partly written.
    #[doc(hidden)]
    fn scatter_add_<T: NumElement>(
        x: &mut Tensor<T, Self>,
        ax: usize,
        index: &Tensor<i64, Self>,
        src: &Tensor<T, Self>,
    ) -> Result<bool> {
        let _ = (x, ax, index, src);
        Ok(false)
    }
    /// `base` (zeros of shape `dims` when `None`) with each slice `j` of `src` along `ax`
    /// added to the slice `index[j]` (PyTorch `index_add`; repeats accumulate, in `j`'s
    /// order), in one pass. The caller checked the shapes (`src`'s is `dims` with `ax` of the
    /// 1-d `index`'s length; `base`'s is `dims`) and devices; the kernel checks every index
    /// value (negative ones count from the end). `None` where this device has no such kernel;
    /// the caller then scatters with an index expanded to `src`'s shape. Records no graph.
    #[doc(hidden)]
    fn index_add<T: NumElement>(
        base: Option<&Tensor<T, Self>>,
        dims: &[usize],
        ax: usize,
        index: &Tensor<i64, Self>,
        src: &Tensor<T, Self>,
    ) -> Result<Option<Tensor<T, Self>>> {
        let _ = (base, dims, ax, index, src);
        Ok(None)
    }
    /// Stable argsort along the checked axis `ax`, NaN the largest value (last ascending, first descending).
    #[doc(hidden)]
    fn argsort<T: Element>(
        x: &Tensor<T, Self>,
        ax: usize,
        descending: bool,
    ) -> Result<Tensor<i64, Self>>;
    /// The positions of the `k` largest elements along the checked axis `ax` (`k` at most its
    /// length), in the order of a stable descending [`Backend::argsort`]: `x`'s shape with axis
    /// `ax` of length `k`. `None` where the device has no selection kernel: the caller then
    /// sorts the whole axis.
    #[doc(hidden)]
    fn topk<T: Element>(
        x: &Tensor<T, Self>,
        ax: usize,
        k: usize,
    ) -> Result<Option<Tensor<i64, Self>>> {
        let _ = (x, ax, k);
        Ok(None)
    }
    /// The position along the checked axis `ax` of each row's element of rank `rank[row]`
    /// (from 0) in a stable ascending [`Backend::argsort`]'s order: `rank` has `x`'s shape
    /// with axis `ax` of length 1 (the caller keeps every rank within the axis), and so has the
    /// result. `None` where the device has no selection kernel: the caller sorts the axis.
    #[doc(hidden)]
    fn argselect<T: Element>(
        x: &Tensor<T, Self>,
        ax: usize,
        rank: &Tensor<i64, Self>,
    ) -> Result<Option<Tensor<i64, Self>>> {
        let _ = (x, ax, rank);
        Ok(None)
    }
    /// The elements of `x` where `mask` is true, in row-major order, as a 1-d tensor
    /// (`masked_select`); the caller gave both one shape and checked their devices. `None`
    /// where the device has no such kernel: the caller gathers at `mask.nonzero()`. Records no
    /// graph.
    #[doc(hidden)]
    fn masked_select<T: Element>(
        x: &Tensor<T, Self>,
        mask: &Tensor<bool, Self>,
    ) -> Result<Option<Tensor<T, Self>>> {
        let _ = (x, mask);
        Ok(None)
    }
    /// NumPy `arange` on `device` (computed on the host by default).
    #[doc(hidden)]
    fn arange<T: NumElement>(start: T, stop: T, step: T, device: &Self) -> Result<Tensor<T, Self>> {
        Self::from_host(&Tensor::<T, Cpu>::arange(start, stop, step)?, device)
    }
    /// Uniform `[0, 1)` (or standard-normal when `normal`) samples from the global generator.
    #[doc(hidden)]
    fn random<T: FloatElement>(
        shape: Shape,
        device: &Self,
        normal: bool,
    ) -> Result<Tensor<T, Self>>;
}

/// Runs the host op `f` on `x` and puts the result on `x`'s device: the default for steps a
/// device has no kernel for. Free on the CPU (no copy either way); one download and one upload
/// of the operands on CUDA.
pub(crate) fn on_host<T: Element, O: Element, D: Backend>(
    x: &Tensor<T, D>,
    f: impl FnOnce(&Tensor<T, Cpu>) -> Result<Tensor<O, Cpu>>,
) -> Result<Tensor<O, D>> {
    D::from_host(&f(&D::to_host(x)?)?, &x.device)
}

/// The scalars of one fused [`Backend::adam_step`]: the decoupled decay factor `1 - lr·wd`,
/// the L2 decay, the sign of the gradient, the betas, `√(1 - β₂ᵗ)`, `eps` and the step size
/// `lr / (1 - β₁ᵗ)`.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct AdamHyper {
    /// `1 - lr·wd` (1 without decoupled weight decay).
    pub decay: f64,
    /// `wd` of Adam's L2 term `wd·p` added to the gradient (0 for AdamW).
    pub l2: f64,
    /// Ascend: the gradient is negated before the L2 term is added.
    pub maximize: bool,
    /// β₁ and β₂.
    pub betas: (f64, f64),
    /// `√(1 - β₂ᵗ)`.
    pub c2_sqrt: f64,
    /// Added to the denominator.
    pub eps: f64,
    /// `lr / (1 - β₁ᵗ)`.
    pub step: f64,
}

/// The scalars of one fused [`Backend::sgd_step`] (the fields of `optim::Sgd`).
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct SgdHyper {
    /// Learning rate.
    pub lr: f64,
    /// Momentum factor μ; used only with a buffer.
    pub momentum: f64,
    /// The fraction of each gradient left out of the buffer after the first step.
    pub dampening: f64,
    /// Nesterov momentum.
    pub nesterov: bool,
    /// The first step: the buffer (zeros) is set to the gradient.
    pub first: bool,
    /// `wd` of the L2 term `wd·p` added to the gradient.
    pub l2: f64,
    /// Ascend: the gradient is negated before the L2 term is added.
    pub maximize: bool,
}

/// Whether a fused optimizer step ([`Backend::adam_step`], [`Backend::sgd_step`]) can take its operands as they are: one shape, each
/// packed from its buffer's start, distinct buffers, one device. Otherwise the step is
/// composed, which handles views and shared buffers.
pub(crate) fn fused_operands_fit<T: FloatElement, D: Backend>(
    p: &Tensor<T, D>,
    g: &Tensor<T, D>,
    states: &[&Tensor<T::Acc, D>],
) -> bool {
    let shape = p.shape();
    let packed = |l: &crate::shape::Layout| l.is_contiguous() && l.offset == 0;
    let device = p.device.index();
    let mut ids = vec![D::storage_id(&p.storage), D::storage_id(&g.storage)];
    ids.extend(states.iter().map(|s| D::storage_id(&s.storage)));
    g.shape() == shape
        && packed(&p.layout)
        && packed(&g.layout)
        && g.device.index() == device
        && states
            .iter()
            .all(|s| s.shape() == shape && packed(&s.layout) && s.device.index() == device)
        && (0..ids.len()).all(|i| (i + 1..ids.len()).all(|j| ids[i] != ids[j]))
}
