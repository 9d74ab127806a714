//! The layers without parameters: `Dropout`, `Activation`, `Flatten`, `Identity`, `Upsample`.

use super::{Module, Parameters};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::nn;
use crate::tensor::Tensor;

no_parameters!(Activation, Flatten, Identity, Upsample);

/// Dropout with probability `p` while training (PyTorch `nn.Dropout`); the identity in
/// evaluation.
#[derive(Clone, Copy, Debug)]
pub struct Dropout {
    /// The probability of zeroing an element.
    pub p: f64,
    /// Drop (true) or pass through.
    pub training: bool,
}

impl Dropout {
    /// Dropout with probability `p`, in training mode.
    pub fn new(p: f64) -> Self {
        Dropout { p, training: true }
    }
}

impl<T: FloatElement, D: Backend> Parameters<T, D> for Dropout {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        Vec::new()
    }
    fn set_training(&mut self, training: bool) {
        self.training = training;
    }
}

impl<T: FloatElement, D: Backend> Module<T, D> for Dropout {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        nn::dropout(x, self.p, self.training)
    }
}

/// A parameter-free activation (PyTorch's `nn.ReLU`, `nn.GELU`, `nn.ELU`, `nn.Softplus`, ...),
/// each calling the function of the same name.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Activation {
    /// `max(x, 0)`.
    Relu,
    /// GELU, the exact form.
    Gelu,
    /// GELU's tanh approximation.
    GeluTanh,
    /// `tanh`.
    Tanh,
    /// The logistic function.
    Sigmoid,
    /// `x · sigmoid(x)`.
    Silu,
    /// `x` above 0, the slope times `x` below.
    LeakyRelu(f64),
    /// The softmax along an axis.
    Softmax(i64),
    /// The log-softmax along an axis.
    LogSoftmax(i64),
    /// The softmin along an axis.
    Softmin(i64),
    /// `x` above 0, `alpha·(exp(x) - 1)` below.
    Elu(f64),
    /// `max(0, x) + min(0, alpha·(exp(x/alpha) - 1))`.
    Celu(f64),
    /// The scaled ELU of self-normalising networks.
    Selu,
    /// `log(1 + exp(beta·x)) / beta`, `x` where `beta·x > threshold` (PyTorch's defaults 1, 20).
    Softplus {
        /// The sharpness β.
        beta: f64,
        /// Above `β·x = threshold` the output is `x`.
        threshold: f64,
    },
    /// `x · tanh(softplus(x))`.
    Mish,
    /// `x` clamped to `[min, max]`.
    Hardtanh(f64, f64),
    /// `x` clamped to `[0, 6]`.
    Relu6,
    /// `x · relu6(x + 3) / 6`.
    Hardswish,
    /// `relu6(x + 3) / 6`.
    Hardsigmoid,
    /// `x / (1 + |x|)`.
    Softsign,
    /// `x - tanh(x)`.
    Tanhshrink,
    /// `x ∓ λ` outside `[-λ, λ]`, 0 inside.
    Softshrink(f64),
    /// `x` outside `[-λ, λ]`, 0 inside.
    Hardshrink(f64),
    /// `log(sigmoid(x))`.
    LogSigmoid,
    /// The gated linear unit along an axis: the first half times the sigmoid of the second.
    Glu(i64),
    /// `x` above the threshold (first), the value (second) at or below.
    Threshold(f64, f64),
}

impl<T: FloatElement, D: Backend> Module<T, D> for Activation {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        match *self {
            Activation::Relu => x.try_relu(),
            Activation::Gelu => x.try_gelu(),
            Activation::GeluTanh => x.try_gelu_tanh(),
            Activation::Tanh => x.try_tanh(),
            Activation::Sigmoid => x.try_sigmoid(),
            Activation::Silu => x.try_silu(),
            Activation::LeakyRelu(slope) => x.try_leaky_relu(slope),
            Activation::Softmax(axis) => x.try_softmax(axis),
            Activation::LogSoftmax(axis) => x.try_log_softmax(axis),
            Activation::Softmin(axis) => x.try_softmin(axis),
            Activation::Elu(alpha) => x.try_elu(alpha),
            Activation::Celu(alpha) => x.try_celu(alpha),
            Activation::Selu => x.try_selu(),
            Activation::Softplus { beta, threshold } => x.try_softplus_with(beta, threshold),
            Activation::Mish => x.try_mish(),
            Activation::Hardtanh(lo, hi) => x.try_hardtanh(lo, hi),
            Activation::Relu6 => x.try_relu6(),
            Activation::Hardswish => x.try_hardswish(),
            Activation::Hardsigmoid => x.try_hardsigmoid(),
            Activation::Softsign => x.try_softsign(),
            Activation::Tanhshrink => x.try_tanhshrink(),
            Activation::Softshrink(l) => x.try_softshrink(l),
            Activation::Hardshrink(l) => x.try_hardshrink(l),
            Activation::LogSigmoid => x.try_logsigmoid(),
            Activation::Glu(axis) => x.try_glu(axis),
            Activation::Threshold(t, v) => x.try_threshold(t, v),
        }
    }
}

/// The axes `start..=end` merged into one (PyTorch `nn.Flatten`, default `(1, -1)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flatten {
    /// The first axis merged.
    pub start: i64,
    /// The last axis merged.
    pub end: i64,
}

impl Default for Flatten {
    fn default() -> Self {
        Flatten { start: 1, end: -1 }
    }
}

impl<T: FloatElement, D: Backend> Module<T, D> for Flatten {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let (s, e) = (
            x.shape().axis("Flatten", self.start)?,
            x.shape().axis("Flatten", self.end)?,
        );
        if s > e {
            return Err(Error::InvalidArgument {
                op: "Flatten",
                msg: format!(
                    "start axis {} comes after end axis {} for shape {}",
                    self.start,
                    self.end,
                    x.shape()
                ),
            });
        }
        let d = x.dims();
        // Checked: an empty tensor's other axes may multiply past usize.
        let merged = (d[s..=e].iter())
            .try_fold(1usize, |a, &n| a.checked_mul(n))
            .ok_or_else(|| Error::InvalidArgument {
                op: "Flatten",
                msg: format!("merging axes {s}..={e} of shape {} overflows", x.shape()),
            })?;
        let shape: Vec<usize> = [&d[..s], &[merged][..], &d[e + 1..]].concat();
        x.try_reshape(shape)
    }
}

/// The identity (PyTorch `nn.Identity`): a placeholder layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Identity;

impl<T: FloatElement, D: Backend> Module<T, D> for Identity {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        Ok(x.clone())
    }
}

/// Resizing of `(N, C, ...)` by per-axis scale factors (PyTorch `nn.Upsample(scale_factor,
/// mode)`): [`nn::interpolate_scale`], one factor per spatial axis.
#[derive(Clone, Debug, PartialEq)]
pub struct Upsample {
    /// One factor per spatial axis (`[2.0, 2.0]` doubles an image).
    pub scale_factor: Vec<f64>,
    /// Nearest, linear, bilinear, bicubic, trilinear or area.
    pub mode: nn::Interpolation,
}

impl<T: FloatElement, D: Backend> Module<T, D> for Upsample {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        nn::interpolate_scale(x, &self.scale_factor, self.mode)
    }
}
