//! The method forms of the `nn` functions: `x.try_conv2d(..)` returns `Result` and
//! `x.conv2d(..)` panics with the error, as every other op of the library. Each is a thin
//! shell over the free function of the same name, which stays the definition.

use super::{Conv2dOptions, Interpolation, Reduction};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{OrPanic, Result};
use crate::ops::plain_forms;
use crate::tensor::Tensor;

/// For each `name, try_name = free_fn(args)`: a `try_name` method that calls `free_fn(self,
/// args)`, and a panicking `name`.
macro_rules! nn_methods {
    ($($(#[$doc:meta])* $name:ident, $try_name:ident = $f:ident($($arg:ident: $ty:ty),*);)*) => {
        impl<T: FloatElement, D: Backend> Tensor<T, D> {
            $(
                $(#[$doc])*
                #[doc = concat!("The method form of [`", stringify!($f), "`](super::", stringify!($f), "), with `self` as its first argument.")]
                ///
                /// # Errors
                #[doc = concat!("As [`", stringify!($f), "`](super::", stringify!($f), ").")]
                pub fn $try_name(&self $(, $arg: $ty)*) -> Result<Self> {
                    super::$f(self $(, $arg)*)
                }
            )*
            plain_forms! {$(
                #[doc = concat!("[`Tensor::", stringify!($try_name), "`], panicking with its error.")]
                $name, $try_name($($arg: $ty),*) -> Self;
            )*}
        }
    };
}

nn_methods! {
    /// Cross-entropy of these logits against class indices.
    cross_entropy, try_cross_entropy = cross_entropy(
        target: &Tensor<i64, D>, reduction: Reduction, label_smoothing: f64);
    /// Negative log-likelihood of these log-probabilities at class indices.
    nll_loss, try_nll_loss = nll_loss(target: &Tensor<i64, D>, reduction: Reduction);
    /// Mean squared error against `target`.
    mse_loss, try_mse_loss = mse_loss(target: &Tensor<T, D>, reduction: Reduction);
    /// Binary cross-entropy of these logits against probabilities.
    binary_cross_entropy_with_logits, try_binary_cross_entropy_with_logits =
        binary_cross_entropy_with_logits(target: &Tensor<T, D>, reduction: Reduction);
    /// `self · weightᵀ + bias`.
    linear, try_linear = linear(weight: &Tensor<T, D>, bias: Option<&Tensor<T, D>>);
    /// Layer normalisation over the trailing `normalized_shape` dimensions.
    layer_norm, try_layer_norm = layer_norm(normalized_shape: &[usize],
        weight: Option<&Tensor<T, D>>, bias: Option<&Tensor<T, D>>, eps: f64);
    /// RMS normalisation over the trailing `normalized_shape` dimensions.
    rms_norm, try_rms_norm = rms_norm(normalized_shape: &[usize],
        weight: Option<&Tensor<T, D>>, eps: f64);
    /// Dropout with probability `p` while `training`.
    dropout, try_dropout = dropout(p: f64, training: bool);
    /// Channel dropout of an `(N, C, L)` or `(C, L)` input.
    dropout1d, try_dropout1d = dropout1d(p: f64, training: bool);
    /// Channel dropout of an `(N, C, H, W)` (or `(N, C, L)`) input.
    dropout2d, try_dropout2d = dropout2d(p: f64, training: bool);
    /// Channel dropout of an `(N, C, D, H, W)` or `(C, D, H, W)` input.
    dropout3d, try_dropout3d = dropout3d(p: f64, training: bool);
    /// Alpha dropout (for SELU networks) while `training`.
    alpha_dropout, try_alpha_dropout = alpha_dropout(p: f64, training: bool);
    /// Alpha dropout of whole channels of an `(N, C, ...)` input.
    feature_alpha_dropout, try_feature_alpha_dropout = feature_alpha_dropout(p: f64,
        training: bool);
    /// 1-d convolution of an `(N, C, L)` input.
    conv1d, try_conv1d = conv1d(weight: &Tensor<T, D>, bias: Option<&Tensor<T, D>>,
        opts: Conv2dOptions);
    /// 2-d convolution of an `(N, C, H, W)` input.
    conv2d, try_conv2d = conv2d(weight: &Tensor<T, D>, bias: Option<&Tensor<T, D>>,
        opts: Conv2dOptions);
    /// The maximum of each window of an `(N, C, H, W)` input.
    max_pool2d, try_max_pool2d = max_pool2d(kernel: (usize, usize), stride: (usize, usize),
        padding: (usize, usize));
    /// The mean of each window of an `(N, C, H, W)` input.
    avg_pool2d, try_avg_pool2d = avg_pool2d(kernel: (usize, usize), stride: (usize, usize),
        padding: (usize, usize));
    adaptive_avg_pool2d, try_adaptive_avg_pool2d = adaptive_avg_pool2d(
        output_size: (usize, usize));
    l1_loss, try_l1_loss = l1_loss(target: &Tensor<T, D>, reduction: Reduction);
    smooth_l1_loss, try_smooth_l1_loss = smooth_l1_loss(target: &Tensor<T, D>,
        reduction: Reduction, beta: f64);
    huber_loss, try_huber_loss = huber_loss(target: &Tensor<T, D>, reduction: Reduction,
        delta: f64);
    kl_div, try_kl_div = kl_div(target: &Tensor<T, D>, reduction: Reduction, log_target: bool);
    group_norm, try_group_norm = group_norm(num_groups: usize, weight: Option<&Tensor<T, D>>,
        bias: Option<&Tensor<T, D>>, eps: f64);
    normalize, try_normalize = normalize(p: f64, axis: i64, eps: f64);
    cosine_similarity, try_cosine_similarity = cosine_similarity(other: &Tensor<T, D>,
        axis: i64, eps: f64);
    /// The transposed 2-d convolution of an `(N, C, H, W)` input.
    conv_transpose2d, try_conv_transpose2d = conv_transpose2d(weight: &Tensor<T, D>,
        bias: Option<&Tensor<T, D>>, opts: Conv2dOptions, output_padding: (usize, usize));
    /// An `(N, C, H, W)` input resized to `size`.
    interpolate, try_interpolate = interpolate(size: (usize, usize), mode: Interpolation);
    /// Instance normalisation of an `(N, C, ...)` input.
    instance_norm, try_instance_norm = instance_norm(weight: Option<&Tensor<T, D>>,
        bias: Option<&Tensor<T, D>>, eps: f64);
    /// The `p`-norm distances between the rows of `self` and those of `other`.
    cdist, try_cdist = cdist(other: &Tensor<T, D>, p: f64);
}

impl<D: Backend> Tensor<i64, D> {
    /// The rows of `weight` at these indices: the method form of
    /// [`embedding`](super::embedding), with `self` as the indices.
    ///
    /// # Errors
    /// As [`embedding`](super::embedding).
    pub fn try_embedding<T: FloatElement>(&self, weight: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        super::embedding(self, weight)
    }

    /// [`Tensor::try_embedding`], panicking with its error.
    ///
    /// # Panics
    /// When [`Tensor::try_embedding`] returns an `Err`.
    #[track_caller]
    pub fn embedding<T: FloatElement>(&self, weight: &Tensor<T, D>) -> Tensor<T, D> {
        self.try_embedding(weight).or_panic()
    }
}
