//! The convolutions: `Conv1d`, `Conv2d`, `Conv3d` (PyTorch's `nn.Conv1d`, `nn.Conv2d`,
//! `nn.Conv3d`), initialised as PyTorch from the weight's fan-in; the transposed ones are in
//! `conv_transpose.rs`.

use super::{fan_in_uniform, named};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::nn::{self as nn, Conv2dOptions, Conv3dOptions};
use crate::tensor::Tensor;

/// A layer's weight and optional bias.
pub(super) type WeightAndBias<T, D> = (Tensor<T, D>, Option<Tensor<T, D>>);

/// A convolution's weight of `shape` (`(out, in/groups, k...)`, or transposed `(in,
/// out/groups, k...)`) and its optional bias `(out)`, both `U(-1/√fan_in, 1/√fan_in)` with
/// `fan_in` the product of `shape[1..]` (PyTorch's `_calculate_fan_in_and_fan_out`), after
/// `groups` is checked against the channel counts.
pub(super) fn weight_and_bias<T: FloatElement, D: Backend>(
    op: &'static str,
    groups: usize,
    channels: (usize, usize),
    shape: &[usize],
    bias: bool,
    device: &D,
) -> Result<WeightAndBias<T, D>> {
    let (i, o) = channels;
    if groups == 0 || !i.is_multiple_of(groups) || !o.is_multiple_of(groups) {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "groups {groups} must be at least 1 and divide in_channels {i} and out_channels {o}"
            ),
        });
    }
    let fan_in = (shape[1..].iter())
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| Error::InvalidArgument {
            op,
            msg: format!("the weight {shape:?} has too many elements"),
        })?;
    let weight = fan_in_uniform(shape, fan_in, device)?;
    let bias = match bias {
        true => Some(fan_in_uniform(&[o], fan_in, device)?),
        false => None,
    };
    Ok((weight, bias))
}

/// `Parameters` (`weight`, `bias`) and `Module` (`$forward(self, x)`) of a convolution layer.
macro_rules! conv_impls {
    ($name:ident, |$s:ident, $x:ident| $forward:expr) => {
        impl<T: FloatElement, D: Backend> super::Parameters<T, D> for $name<T, D> {
            fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
                named(&[("weight", Some(&self.weight)), ("bias", self.bias.as_ref())])
            }
        }

        impl<T: FloatElement, D: Backend> super::Module<T, D> for $name<T, D> {
            fn forward(&self, $x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
                let $s = self;
                $forward
            }
        }
    };
}
pub(super) use conv_impls;

/// 2-d convolution (PyTorch `nn.Conv2d`): `weight (out, in/groups, kh, kw)`, `bias (out)`.
#[derive(Clone)]
pub struct Conv2d<T: FloatElement, D: Backend> {
    /// `(out_channels, in_channels / groups, kh, kw)`.
    pub weight: Tensor<T, D>,
    /// `(out_channels)`, when the layer has one.
    pub bias: Option<Tensor<T, D>>,
    /// Stride, padding, dilation and groups.
    pub opts: Conv2dOptions,
}

impl<T: FloatElement, D: Backend> Conv2d<T, D> {
    /// Initialised as PyTorch: `U(-1/√fan_in, 1/√fan_in)`, `fan_in = in/groups·kh·kw`.
    ///
    /// # Errors
    /// `InvalidArgument` when `groups` is 0 or does not divide both channel counts;
    /// allocation failure.
    pub fn new(
        in_channels: usize,
        out_channels: usize,
        kernel: (usize, usize),
        opts: Conv2dOptions,
        bias: bool,
        device: &D,
    ) -> Result<Self> {
        let shape = [
            out_channels,
            in_channels / opts.groups.max(1),
            kernel.0,
            kernel.1,
        ];
        let channels = (in_channels, out_channels);
        let (weight, bias) =
            weight_and_bias("Conv2d", opts.groups, channels, &shape, bias, device)?;
        Ok(Conv2d { weight, bias, opts })
    }
}

conv_impls!(Conv2d, |s, x| nn::conv2d(
    x,
    &s.weight,
    s.bias.as_ref(),
    s.opts
));

/// 1-d convolution (PyTorch `nn.Conv1d`): `weight (out, in/groups, k)`, `bias (out)`; the
/// options' second components (stride, padding, dilation along the length) apply.
#[derive(Clone)]
pub struct Conv1d<T: FloatElement, D: Backend> {
    /// `(out_channels, in_channels / groups, k)`.
    pub weight: Tensor<T, D>,
    /// `(out_channels)`, when the layer has one.
    pub bias: Option<Tensor<T, D>>,
    /// Stride, padding, dilation (second components) and groups.
    pub opts: Conv2dOptions,
}

impl<T: FloatElement, D: Backend> Conv1d<T, D> {
    /// Initialised as PyTorch: `U(-1/√fan_in, 1/√fan_in)`, `fan_in = in/groups·k`.
    ///
    /// # Errors
    /// As [`Conv2d::new`].
    pub fn new(
        in_channels: usize,
        out_channels: usize,
        kernel: usize,
        opts: Conv2dOptions,
        bias: bool,
        device: &D,
    ) -> Result<Self> {
        let shape = [out_channels, in_channels / opts.groups.max(1), kernel];
        let channels = (in_channels, out_channels);
        let (weight, bias) =
            weight_and_bias("Conv1d", opts.groups, channels, &shape, bias, device)?;
        Ok(Conv1d { weight, bias, opts })
    }
}

conv_impls!(Conv1d, |s, x| nn::conv1d(
    x,
    &s.weight,
    s.bias.as_ref(),
    s.opts
));

/// 3-d convolution (PyTorch `nn.Conv3d`): `weight (out, in/groups, kd, kh, kw)`, `bias (out)`.
#[derive(Clone)]
pub struct Conv3d<T: FloatElement, D: Backend> {
    /// `(out_channels, in_channels / groups, kd, kh, kw)`.
    pub weight: Tensor<T, D>,
    /// `(out_channels)`, when the layer has one.
    pub bias: Option<Tensor<T, D>>,
    /// Stride, padding, dilation and groups.
    pub opts: Conv3dOptions,
}

impl<T: FloatElement, D: Backend> Conv3d<T, D> {
    /// Initialised as PyTorch: `U(-1/√fan_in, 1/√fan_in)`, `fan_in = in/groups·kd·kh·kw`.
    ///
    /// # Errors
    /// As [`Conv2d::new`].
    pub fn new(
        in_channels: usize,
        out_channels: usize,
        kernel: (usize, usize, usize),
        opts: Conv3dOptions,
        bias: bool,
        device: &D,
    ) -> Result<Self> {
        let (kd, kh, kw) = kernel;
        let shape = [out_channels, in_channels / opts.groups.max(1), kd, kh, kw];
        let channels = (in_channels, out_channels);
        let (weight, bias) =
            weight_and_bias("Conv3d", opts.groups, channels, &shape, bias, device)?;
        Ok(Conv3d { weight, bias, opts })
    }
}

conv_impls!(Conv3d, |s, x| nn::conv3d(
    x,
    &s.weight,
    s.bias.as_ref(),
    s.opts
));
