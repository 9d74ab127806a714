//! Neural-network functions (PyTorch's `torch.nn.functional`): activations, `softmax` and
//! `log_softmax`, losses and `linear`. Each is written once over `T: FloatElement` and
//! `D: Backend` from differentiable ops, so each has a gradient on every device; 16-bit floats
//! compute in f32 and round once.
//!
//! The free functions return `Result`, under PyTorch's names. Each also exists as a method of
//! its first argument in the library's two forms: `logits.try_cross_entropy(..)` returns
//! `Result`, `logits.cross_entropy(..)` panics with the error.
//!
//! ```
//! use typed_tensor::prelude::*;
//! use typed_tensor::nn::{Reduction, cross_entropy};
//! let logits = Tensor::<f32>::from_vec(vec![2.0, 0.5, -1.0, 0.0, 1.0, 3.0], [2, 3])?
//!     .with_requires_grad(true)?;
//! let target = Tensor::<i64>::from_vec(vec![0, 2], [2])?;
//! let loss = cross_entropy(&logits, &target, Reduction::Mean, 0.0)?;
//! loss.try_backward()?;
//! assert_eq!(logits.grad().unwrap().len(), 6);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

mod activations;
mod attention;
mod bags;
mod batch_norm;
mod class_loss;
mod conv;
mod conv_same;
mod ctc;
mod dropout;
mod embedding;
mod fractional;
pub mod init;
mod interpolate;
mod layers;
mod packed;

pub(crate) use batch_norm::batch_norm_rule;
pub use conv::{
    Conv2dOptions, adaptive_avg_pool2d, avg_pool1d, avg_pool2d, conv1d, conv2d, max_pool1d,
    max_pool2d,
};
pub(crate) use conv::{Window, fold as col2im, unfold_recorded};
pub(crate) use layers::layer_norm_rule;
mod likelihood;
mod loss;
mod margin;
mod methods;
mod mha;
pub mod modules;
mod pool;
mod rearrange;
mod recurrent;
mod resample;
mod sample;
mod sequence;
mod utils;
mod volume;

pub use activations::gumbel_softmax;
pub use attention::{AttentionOptions, AttnMask, WithWeights, scaled_dot_product_attention};
pub use bags::{BagMode, embedding_bag};
pub use batch_norm::batch_norm;
pub use class_loss::{
    ClassLossOptions, cross_entropy_probs, cross_entropy_with, linear_cross_entropy,
    linear_cross_entropy_probs, nll_loss_with,
};
pub use conv_same::{conv_same, same_padding};
pub use ctc::ctc_loss;
pub use dropout::{alpha_dropout, dropout, dropout1d, dropout2d, dropout3d, feature_alpha_dropout};
pub use embedding::{EmbeddingOptions, embedding, embedding_with};
pub use fractional::{
    FractionalSize, FractionalSize3d, fractional_max_pool2d, fractional_max_pool3d,
};
pub use interpolate::{
    Interpolation, adaptive_avg_pool3d, interpolate, interpolate_scale, interpolate1d,
    interpolate3d, upsample_bilinear, upsample_nearest,
};
pub use layers::{
    bilinear, cdist, cosine_similarity, group_norm, instance_norm, layer_norm, local_response_norm,
    normalize, pairwise_distance, pdist, rms_norm,
};
pub use likelihood::{binary_cross_entropy, gaussian_nll_loss, poisson_nll_loss};
pub use loss::{
    Reduction, binary_cross_entropy_with_logits, binary_cross_entropy_with_logits_weighted,
    cross_entropy, huber_loss, kl_div, kl_div_batchmean, l1_loss, linear, mse_loss, nll_loss,
    smooth_l1_loss,
};
pub use margin::{
    DistanceFn, cosine_embedding_loss, hinge_embedding_loss, margin_ranking_loss,
    multi_margin_loss, multilabel_margin_loss, multilabel_soft_margin_loss, soft_margin_loss,
    triplet_margin_loss, triplet_margin_with_distance_loss,
};
pub use mha::{MhaOptions, MhaParams, multi_head_attention};
pub use packed::{
    PackedRnnOutput, PackedSequence, pack_padded_sequence, pack_sequence, pad_packed_sequence,
    rnn_packed, unpack_sequence,
};
pub use pool::{
    adaptive_avg_pool1d, adaptive_max_pool1d, adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d, adaptive_max_pool2d_with_indices, lp_pool1d, lp_pool2d,
    max_pool1d_with_indices, max_pool2d_with_indices, max_unpool1d, max_unpool2d,
};
pub use rearrange::{channel_shuffle, one_hot, pixel_shuffle, pixel_unshuffle, prelu};
pub use recurrent::{CellWeights, gru_cell, lstm_cell, rnn_relu_cell, rnn_tanh_cell};
pub use resample::{conv_transpose1d, conv_transpose2d, conv_transpose3d, fold, unfold};
pub use sample::{GridMode, GridPadding, affine_grid, grid_sample};
pub use sequence::{RnnMode, RnnOptions, RnnOutput, rnn};
pub use utils::{
    SpectralState, pad_sequence, parameters_to_vector, spectral_norm, spectral_state,
    unpad_sequence, vector_to_parameters, weight_norm,
};
pub use volume::{
    Conv3dOptions, adaptive_max_pool3d, adaptive_max_pool3d_with_indices, avg_pool3d, conv3d,
    lp_pool3d, max_pool3d, max_pool3d_with_indices, max_unpool3d,
};

use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::OrPanic;
use crate::error::Result;
use crate::ops::plain_forms;
use crate::tensor::Tensor;

/// Checks that every value of `indices` lies in `0..size`, as PyTorch's class targets and
/// embedding indices must (a negative one is an error there, not a count from the end).
pub(crate) fn check_range<D: Backend>(
    op: &'static str,
    indices: &Tensor<i64, D>,
    size: usize,
    dim: usize,
    shape: &crate::shape::Shape,
) -> Result<()> {
    if indices.numel() == 0 {
        return Ok(());
    }
    // One read-back (one synchronisation on CUDA) for both extremes.
    let ends = crate::autograd::no_grad(|| -> Result<Vec<i64>> {
        let (lo, hi) = (indices.try_min(&[], false)?, indices.try_max(&[], false)?);
        Tensor::try_stack(&[&lo, &hi], 0)?.try_to_vec()
    })?;
    let (lo, hi) = (ends[0], ends[1]);
    let bad = if lo < 0 { lo } else { hi };
    if lo < 0 || usize::try_from(hi).is_ok_and(|h| h >= size) {
        return Err(crate::error::Error::Index {
            op,
            index: bad,
            dim,
            size,
            shape: shape.clone(),
        });
    }
    Ok(())
}

/// Runs `f` in f32 for f16/bf16 tensors (one rounding at the end), directly otherwise.
pub(crate) fn in_f32<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    f: impl Fn(&Tensor<f32, D>) -> Result<Tensor<f32, D>>,
    g: impl Fn(&Tensor<T, D>) -> Result<Tensor<T, D>>,
) -> Result<Tensor<T, D>> {
    if const { T::DTYPE.size() < 4 } {
        f(&x.try_cast::<f32>()?)?.try_cast::<T>()
    } else {
        g(x)
    }
}

/// The gradient of `log_softmax` along `axis` from its output `y`: `g - exp(y) · Σ g`
/// (PyTorch's `_log_softmax_backward_data`): one fused pass where the device has the kernel,
/// else the product one fused pass where the device has [`Backend::exp_sub`] for the layout.
pub(crate) fn log_softmax_backward<F: FloatElement, D: Backend>(
    g: &Tensor<F, D>,
    y: &Tensor<F, D>,
    axis: usize,
) -> Result<Tensor<F, D>> {
    // A `create_graph` pass (recording on in a rule) composes recorded ops.
    if !crate::autograd::is_grad_enabled()
        && let Some(d) = D::log_softmax_backward_along(g, y, axis)?
    {
        return Ok(d);
    }
    let total = g.try_sum(&[axis as i64], true)?;
    let zero = Tensor::zeros_on(total.dims(), &g.device)?;
    g.try_sub(&crate::ops::reduce::exp_sub_rule(y, &zero, Some(&total))?)
}

/// The gradient of `softmax` along `axis` from its output `y` and the output's gradient `g`:
/// `y · (g - Σ g·y)` (PyTorch's `_softmax_backward_data`), fused over the last axis where the
/// device has the kernel. `causal` (attention's causal softmax over the last axis): the masked
/// elements' gradient is 0, as `masked_fill`'s backward makes it.
pub(crate) fn softmax_backward<F: FloatElement, D: Backend>(
    g: &Tensor<F, D>,
    y: &Tensor<F, D>,
    axis: usize,
    causal: bool,
) -> Result<Tensor<F, D>> {
    // A `create_graph` pass (recording on in a rule) composes recorded ops.
    let fused = if crate::autograd::is_grad_enabled() {
        None
    } else if causal {
        D::softmax_causal_backward_last(g, y)?
    } else {
        D::softmax_backward_along(g, y, axis)?
    };
    if let Some(d) = fused {
        return Ok(d);
    }
    let dot = g.try_mul(y)?.try_sum(&[axis as i64], true)?;
    let d = y.try_mul(&g.try_sub(&dot)?)?;
    if causal {
        return d.try_masked_fill(&attention::causal_mask(y)?, F::ZERO);
    }
    Ok(d)
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// `exp(x) / sum(exp(x))` along `axis`, computed from `x - max` so it never overflows
    /// (PyTorch `softmax(x, dim)`). Shape and dtype are kept. A row holding NaN or an infinite
    /// maximum gives NaN, as `x - max(x)` does. Over any axis of a contiguous CPU tensor a
    /// fused kernel computes it (f16/bf16 in f32), and its gradient too; recorded, it is one
    /// node whose rule is PyTorch's `y · (g - Σ g·y)`.
    ///
    /// # Errors
    /// `Axis` for a bad axis.
    pub fn try_softmax(&self, axis: i64) -> Result<Self> {
        fn f<F: FloatElement, D: Backend>(x: &Tensor<F, D>, axis: i64) -> Result<Tensor<F, D>> {
            // Over the last axis with nothing to record: one fused pass where the device has it.
            if let Some(row) = x.scalar_as_row("softmax", axis)? {
                return row.try_softmax(0)?.to_0d();
            }
            let ax = x.shape().axis("softmax", axis)?;
            if x.numel() == 0 {
                // Nothing to normalise (PyTorch returns the empty tensor); still recorded.
                return x.try_exp();
            }
            // The value without a graph (one fused pass where the device has it); one node
            // records it, whose rule reads only the output.
            let y = crate::autograd::no_grad(|| {
                if let Some(y) = D::softmax_along(x, ax)? {
                    return Ok(y);
                }
                let e = x.try_sub(&x.try_max(&[axis], true)?)?.try_exp()?;
                e.try_div(&e.try_sum(&[axis], true)?)
            })?;
            let op = crate::autograd::Op::Softmax {
                axis: ax,
                causal: false,
            };
            Ok(crate::autograd::record_out(y, op, &[x], &[]))
        }
        in_f32(self, |x| f(x, axis), |x| f(x, axis))
    }

    /// `x - logsumexp(x)` along `axis`, computed as `s - log Σ exp(s)` with `s = x - max(x)`,
    /// so it is stable and keeps its digits for any magnitude (PyTorch `log_softmax`). A row
    /// holding NaN or an infinite maximum gives NaN, as PyTorch (and [`Tensor::try_softmax`]).
    /// Fused on the CPU as `softmax` is, forward and backward.
    ///
    /// # Errors
    /// `Axis` for a bad axis.
    pub fn try_log_softmax(&self, axis: i64) -> Result<Self> {
        fn f<F: FloatElement, D: Backend>(x: &Tensor<F, D>, axis: i64) -> Result<Tensor<F, D>> {
            x.shape().axes_mask("log_softmax", &[axis])?;
            // The device's fused kernel, recorded as one node.
            if x.ndim() > 0 {
                let ax = x.shape().axis("log_softmax", axis)?;
                let y = crate::autograd::no_grad(|| D::log_softmax_along(x, ax))?;
                if let Some(y) = y {
                    let op = crate::autograd::Op::LogSoftmax { axis: ax };
                    return Ok(crate::autograd::record_out(y, op, &[x], &[]));
                }
            }
            let s = crate::ops::reduce::sub_max(x, &[axis])?;
            s.try_sub(&s.try_logsumexp(&[axis], true)?)
        }
        in_f32(self, |x| f(x, axis), |x| f(x, axis))
    }

    /// `softmax(-x)` along `axis` (PyTorch `softmin`): the smallest elements get the largest
    /// weights.
    ///
    /// # Errors
    /// `Axis` for a bad axis.
    pub fn try_softmin(&self, axis: i64) -> Result<Self> {
        self.try_neg()?.try_softmax(axis)
    }

    /// `x` for `x > 0`, `negative_slope · x` otherwise (PyTorch `leaky_relu`, default slope
    /// 0.01).
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_leaky_relu(&self, negative_slope: f64) -> Result<Self> {
        let pos = self.try_gt_scalar(T::ZERO)?;
        let neg = self.try_mul_scalar(T::from_f64(negative_slope))?;
        Self::try_where(&pos, self, &neg)
    }

    /// `x` for `x > 0`, `alpha · (exp(x) - 1)` otherwise (PyTorch `elu`).
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_elu(&self, alpha: f64) -> Result<Self> {
        let pos = self.try_gt_scalar(T::ZERO)?;
        let zero = Self::scalar_on(T::ZERO, &self.device)?;
        // expm1 of x where x <= 0 and of 0 elsewhere: the unused branch never overflows, and
        // the gradient reaches x on the negative side, 0 included (PyTorch's elu'(0) = alpha).
        let neg = Self::try_where(&pos, &zero, self)?
            .try_expm1()?
            .try_mul_scalar(T::from_f64(alpha))?;
        Self::try_where(&pos, self, &neg)
    }

    /// `log(1 + exp(x))` (PyTorch `softplus` with `beta = 1`), computed as
    /// `x + log1p(exp(-x))` for `x > 0` and `log1p(exp(x))` otherwise, each branch on an input
    /// clamped to its side, so nothing overflows and the gradient is `sigmoid(x)` everywhere.
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_softplus(&self) -> Result<Self> {
        // Each side on x where x is on it and on 0 elsewhere (`where`, not a clamp, so the
        // gradient reaches x at 0 as well).
        let up = self.try_gt_scalar(T::ZERO)?;
        let zero = Self::scalar_on(T::ZERO, &self.device)?;
        let pos = Self::try_where(&up, self, &zero)?;
        let neg = Self::try_where(&up, &zero, self)?;
        let hi = pos.try_add(&pos.try_neg()?.try_exp()?.try_log1p()?)?;
        let lo = neg.try_exp()?.try_log1p()?;
        Self::try_where(&up, &hi, &lo)
    }

    /// GELU in its tanh form, `0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))` (PyTorch
    /// `gelu(approximate="tanh")`).
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_gelu_tanh(&self) -> Result<Self> {
        fn f<F: FloatElement, D: Backend>(x: &Tensor<F, D>) -> Result<Tensor<F, D>> {
            let c = (2.0 / std::f64::consts::PI).sqrt();
            let cube = x.try_mul(x)?.try_mul(x)?;
            let inner = x.try_add(&cube.try_mul_scalar(F::from_f64(0.044715))?)?;
            let t = inner.try_mul_scalar(F::from_f64(c))?.try_tanh()?;
            x.try_mul(&t.try_add_scalar(F::ONE)?)?
                .try_mul_scalar(F::from_f64(0.5))
        }
        in_f32(self, f, f)
    }

    plain_forms! {
        /// [`Tensor::try_softmax`], panicking with its error.
        softmax, try_softmax(axis: i64) -> Self;
        /// [`Tensor::try_softmin`], panicking with its error.
        softmin, try_softmin(axis: i64) -> Self;
        /// [`Tensor::try_log_softmax`], panicking with its error.
        log_softmax, try_log_softmax(axis: i64) -> Self;
        /// [`Tensor::try_leaky_relu`], panicking with its error.
        leaky_relu, try_leaky_relu(negative_slope: f64) -> Self;
        /// [`Tensor::try_elu`], panicking with its error.
        elu, try_elu(alpha: f64) -> Self;
        /// [`Tensor::try_softplus`], panicking with its error.
        softplus, try_softplus() -> Self;
        /// [`Tensor::try_gelu_tanh`], panicking with its error.
        gelu_tanh, try_gelu_tanh() -> Self;
    }
}
