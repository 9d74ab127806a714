//! `DynTensor` forms of `crate::nn`: the activations as methods (PyTorch's `Tensor.softmax`,
//! `Tensor.silu`, ...), the layers and losses as the free functions of [`nn`](self) (PyTorch's
//! `torch.nn.functional`). Each dispatches on the first tensor's dtype and device to the typed
//! function of the same name, so gradients flow as they do there; the other tensors must have
//! the same dtype and device (class targets and embedding indices: `Int64`), or the call is an
//! `Err` naming both.

use super::not_float;
use crate::dtype::Element;
use crate::dynamic::{DeviceTensor, DynTensor, typed_like};
use crate::error::Result;
use crate::tensor::Tensor;

pub use crate::nn::{Conv2dOptions, Reduction};

/// `DynTensor` methods of one float tensor and plain arguments that keep the dtype.
macro_rules! float_methods {
    ($($(#[$doc:meta])* $name:ident($($arg:ident: $ty:ty),*) => $typed:ident;)*) => {
        impl DynTensor {
            $(
                $(#[$doc])*
                ///
                /// # Errors
                #[doc = concat!("`InvalidArgument` for a tensor that is not a float dtype; as [`crate::Tensor::", stringify!($typed), "`].")]
                pub fn $name(&self $(, $arg: $ty)*) -> Result<DynTensor> {
                    float!(self, stringify!($name), "", t => Ok(t.$typed($($arg),*)?.into()))
                }
            )*
        }
    };
}

float_methods! {
    /// `exp(x) / Σ exp(x)` along `axis` (PyTorch `softmax`).
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    /// let x = DynTensor::from(tensor![[1.0f32, 1.0], [0.0, 2.0f32.ln()]]);
    /// assert_eq!(x.softmax(-1)?.to_vec::<f32>()?, [0.5, 0.5, 1.0 / 3.0, 2.0 / 3.0]);
    /// let loss = typed_tensor::dynamic::nn::cross_entropy(
    ///     &x, &DynTensor::from(tensor![0i64, 1]), typed_tensor::dynamic::nn::Reduction::Sum, 0.0)?;
    /// assert!((loss.to_vec::<f32>()?[0] - (2f32.ln() + 1.5f32.ln())).abs() < 1e-6);
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    softmax(axis: i64) => try_softmax;
    /// `x - log Σ exp(x)` along `axis` (PyTorch `log_softmax`).
    log_softmax(axis: i64) => try_log_softmax;
    /// `softmax(-x)` along `axis` (PyTorch `softmin`).
    softmin(axis: i64) => try_softmin;
    /// `a · sigmoid(b)` of the two halves along `axis` (PyTorch `glu`).
    glu(axis: i64) => try_glu;
    /// `x · sigmoid(x)` (PyTorch `silu`).
    silu() => try_silu;
    /// `x · tanh(softplus(x))` (PyTorch `mish`).
    mish() => try_mish;
    /// PyTorch's `selu`.
    selu() => try_selu;
    /// `relu6(x + 3) / 6` (PyTorch `hardsigmoid`).
    hardsigmoid() => try_hardsigmoid;
    /// `x · hardsigmoid(x)` (PyTorch `hardswish`).
    hardswish() => try_hardswish;
    /// `min(max(x, 0), 6)` (PyTorch `relu6`).
    relu6() => try_relu6;
    /// `log(sigmoid(x))` (PyTorch `logsigmoid`).
    logsigmoid() => try_logsigmoid;
    /// `x / (1 + |x|)` (PyTorch `softsign`).
    softsign() => try_softsign;
    /// `x - tanh(x)` (PyTorch `tanhshrink`).
    tanhshrink() => try_tanhshrink;
    /// GELU's tanh approximation (PyTorch `gelu(approximate="tanh")`).
    gelu_tanh() => try_gelu_tanh;
    /// `log(1 + exp(x))` (PyTorch `softplus`, `beta = 1`).
    softplus() => try_softplus;
    /// `x` above 0, `alpha·(exp(x) - 1)` below (PyTorch `elu`).
    elu(alpha: f64) => try_elu;
    /// `max(0, x) + min(0, alpha·(exp(x/alpha) - 1))` (PyTorch `celu`).
    celu(alpha: f64) => try_celu;
    /// `x` above 0, `negative_slope·x` below (PyTorch `leaky_relu`).
    leaky_relu(negative_slope: f64) => try_leaky_relu;
    /// `x ∓ lambd` outside `[-lambd, lambd]`, 0 inside (PyTorch `softshrink`).
    softshrink(lambd: f64) => try_softshrink;
    /// `x` outside `[-lambd, lambd]`, 0 inside (PyTorch `hardshrink`).
    hardshrink(lambd: f64) => try_hardshrink;
    /// `x` clamped to `[min_val, max_val]` (PyTorch `hardtanh`).
    hardtanh(min_val: f64, max_val: f64) => try_hardtanh;
    /// `x` above `threshold`, `value` elsewhere (PyTorch `threshold`).
    threshold(threshold: f64, value: f64) => try_threshold;
}

/// `d`, when given, as the typed tensor of `like`'s dtype and device.
fn opt<'a, T: Element, D: crate::Device>(
    op: &'static str,
    d: Option<&'a DynTensor>,
    like: &Tensor<T, D>,
) -> Result<Option<&'a Tensor<T, D>>> {
    d.map(|d| typed_like(op, d, like)).transpose()
}

/// The public functions: one float tensor `x` leads, the others follow its dtype and device.
macro_rules! functional {
    ($($(#[$doc:meta])* $name:ident($x:ident $(, $arg:ident: $kind:tt $ty:ty)*) $body:expr;)*) => {
        $(
            $(#[$doc])*
            ///
            /// # Errors
            #[doc = concat!("`InvalidArgument` when `", stringify!($x), "` is not a float tensor; `DtypeMismatch` or `Device` when another tensor has another dtype (targets and indices: `Int64`) or device; as [`crate::nn::", stringify!($name), "`].")]
            pub fn $name($x: &DynTensor $(, $arg: functional!(@ty $kind $ty))*) -> Result<DynTensor> {
                const OP: &str = stringify!($name);
                float!($x, OP, "", t => {
                    $(let $arg = functional!(@get $kind OP $arg t);)*
                    Ok($body(t $(, $arg)*)?.into())
                })
            }
        )*
    };
    (@ty tensor $ty:ty) => { &DynTensor };
    (@ty index $ty:ty) => { &DynTensor };
    (@ty option $ty:ty) => { Option<&DynTensor> };
    (@ty value $ty:ty) => { $ty };
    (@get tensor $op:ident $a:ident $t:ident) => { typed_like($op, $a, $t)? };
    (@get index $op:ident $a:ident $t:ident) => { typed_like::<i64, _, _>($op, $a, $t)? };
    (@get option $op:ident $a:ident $t:ident) => { opt($op, $a, $t)? };
    (@get value $op:ident $a:ident $t:ident) => { $a };
}

functional! {
    /// `x·Wᵀ + b` (PyTorch `F.linear`): `x (..., in)`, `weight (out, in)`, `bias (out)`.
    linear(x, weight: tensor _, bias: option _) crate::nn::linear;
    /// 2-d convolution (PyTorch `F.conv2d`): `x (N, C, H, W)`, `weight (O, C/groups, kH, kW)`.
    conv2d(x, weight: tensor _, bias: option _, opts: value Conv2dOptions) crate::nn::conv2d;
    /// 1-d convolution (PyTorch `F.conv1d`): `x (N, C, L)`, `weight (O, C/groups, k)`; the
    /// options' second components apply.
    conv1d(x, weight: tensor _, bias: option _, opts: value Conv2dOptions) crate::nn::conv1d;
    /// 2-d max pooling (PyTorch `F.max_pool2d`).
    max_pool2d(x, kernel: value (usize, usize), stride: value (usize, usize), padding: value (usize, usize)) crate::nn::max_pool2d;
    /// 2-d average pooling (PyTorch `F.avg_pool2d`, padding counted).
    avg_pool2d(x, kernel: value (usize, usize), stride: value (usize, usize), padding: value (usize, usize)) crate::nn::avg_pool2d;
    /// Adaptive average pooling to `output_size` (PyTorch `F.adaptive_avg_pool2d`).
    adaptive_avg_pool2d(x, output_size: value (usize, usize)) crate::nn::adaptive_avg_pool2d;
    /// Layer normalisation over the trailing `normalized_shape` (PyTorch `F.layer_norm`).
    layer_norm(x, normalized_shape: value &[usize], weight: option _, bias: option _, eps: value f64) crate::nn::layer_norm;
    /// RMS normalisation over the trailing `normalized_shape` (PyTorch `F.rms_norm`).
    rms_norm(x, normalized_shape: value &[usize], weight: option _, eps: value f64) crate::nn::rms_norm;
    /// Group normalisation of `(N, C, ...)` (PyTorch `F.group_norm`).
    group_norm(x, num_groups: value usize, weight: option _, bias: option _, eps: value f64) crate::nn::group_norm;
    /// Dropout with probability `p` while `training` (PyTorch `F.dropout`).
    dropout(x, p: value f64, training: value bool) crate::nn::dropout;
    /// Cross entropy of logits `(N, C, ...)` and Int64 class targets `(N, ...)` (PyTorch
    /// `F.cross_entropy`).
    cross_entropy(x, target: index _, reduction: value Reduction, label_smoothing: value f64) crate::nn::cross_entropy;
    /// Negative log-likelihood of log-probabilities and Int64 class targets (PyTorch
    /// `F.nll_loss`).
    nll_loss(x, target: index _, reduction: value Reduction) crate::nn::nll_loss;
    /// Mean squared error (PyTorch `F.mse_loss`).
    mse_loss(x, target: tensor _, reduction: value Reduction) crate::nn::mse_loss;
    /// Mean absolute error (PyTorch `F.l1_loss`).
    l1_loss(x, target: tensor _, reduction: value Reduction) crate::nn::l1_loss;
    /// Smooth L1 loss (PyTorch `F.smooth_l1_loss`).
    smooth_l1_loss(x, target: tensor _, reduction: value Reduction, beta: value f64) crate::nn::smooth_l1_loss;
    /// Huber loss (PyTorch `F.huber_loss`).
    huber_loss(x, target: tensor _, reduction: value Reduction, delta: value f64) crate::nn::huber_loss;
    /// KL divergence of log-probabilities `x` from `target` (PyTorch `F.kl_div`).
    kl_div(x, target: tensor _, reduction: value Reduction, log_target: value bool) crate::nn::kl_div;
    /// Binary cross entropy of probabilities (PyTorch `F.binary_cross_entropy`).
    binary_cross_entropy(x, target: tensor _, reduction: value Reduction) crate::nn::binary_cross_entropy;
    /// Binary cross entropy of logits (PyTorch `F.binary_cross_entropy_with_logits`).
    binary_cross_entropy_with_logits(x, target: tensor _, reduction: value Reduction) crate::nn::binary_cross_entropy_with_logits;
    /// Cosine similarity along `axis` (PyTorch `F.cosine_similarity`).
    cosine_similarity(x, other: tensor _, axis: value i64, eps: value f64) crate::nn::cosine_similarity;
    /// `x / max(‖x‖_p, eps)` along `axis` (PyTorch `F.normalize`).
    normalize(x, p: value f64, axis: value i64, eps: value f64) crate::nn::normalize;
}

/// The rows of the float `weight` `(num, dim)` at the Int64 `indices` (PyTorch
/// `F.embedding(indices, weight)`): shape `indices.shape + [dim]`.
///
/// # Errors
/// `InvalidArgument` when `weight` is not a float tensor; `DtypeMismatch` or `Device` for
/// indices that are not Int64 or on another device; as [`crate::nn::embedding`].
pub fn embedding(indices: &DynTensor, weight: &DynTensor) -> Result<DynTensor> {
    float!(weight, "embedding", "", w => {
        let i = typed_like::<i64, _, _>("embedding", indices, w)?;
        Ok(crate::nn::embedding(i, w)?.into())
    })
}
