//! The transposed convolutions: `ConvTranspose1d`, `ConvTranspose2d`, `ConvTranspose3d`
//! (PyTorch's `nn.ConvTranspose*d`): `weight (in, out/groups, k...)`, `bias (out)`,
//! initialised as PyTorch from the fan-in `out/groups·window` (the weight's dimensions after
//! the first); `output_padding` adds outputs on one side of each spatial axis.

use super::conv::{conv_impls, weight_and_bias};
use super::named;
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::nn::{self as nn, Conv2dOptions, Conv3dOptions};
use crate::tensor::Tensor;

/// Transposed 2-d convolution (PyTorch `nn.ConvTranspose2d`): `weight (in, out/groups, kh,
/// kw)`, `bias (out)`; `output_padding` adds rows and columns on one side of the output.
#[derive(Clone)]
pub struct ConvTranspose2d<T: FloatElement, D: Backend> {
    /// `(in_channels, out_channels / groups, kh, kw)`.
    pub weight: Tensor<T, D>,
    /// `(out_channels)`, when the layer has one.
    pub bias: Option<Tensor<T, D>>,
    /// Stride, padding, dilation and groups.
    pub opts: Conv2dOptions,
    /// Extra output rows and columns (less than the stride or the dilation).
    pub output_padding: (usize, usize),
}

impl<T: FloatElement, D: Backend> ConvTranspose2d<T, D> {
    /// Initialised as PyTorch: `U(-1/√fan_in, 1/√fan_in)` with `fan_in = out/groups·kh·kw`
    /// (the weight's second dimension times its window).
    ///
    /// # Errors
    /// As [`super::Conv2d::new`].
    pub fn new(
        in_channels: usize,
        out_channels: usize,
        kernel: (usize, usize),
        opts: Conv2dOptions,
        output_padding: (usize, usize),
        bias: bool,
        device: &D,
    ) -> Result<Self> {
        let shape = [
            in_channels,
            out_channels / opts.groups.max(1),
            kernel.0,
            kernel.1,
        ];
        let channels = (in_channels, out_channels);
        let (weight, bias) = weight_and_bias(
            "ConvTranspose2d",
            opts.groups,
            channels,
            &shape,
            bias,
            device,
        )?;
        Ok(ConvTranspose2d {
            weight,
            bias,
            opts,
            output_padding,
        })
    }
}

conv_impls!(ConvTranspose2d, |s, x| {
    nn::conv_transpose2d(x, &s.weight, s.bias.as_ref(), s.opts, s.output_padding)
});

/// Transposed 1-d convolution (PyTorch `nn.ConvTranspose1d`): `weight (in, out/groups, k)`,
/// `bias (out)`; the options' second components apply along the length.
#[derive(Clone)]
pub struct ConvTranspose1d<T: FloatElement, D: Backend> {
    /// `(in_channels, out_channels / groups, k)`.
    pub weight: Tensor<T, D>,
    /// `(out_channels)`, when the layer has one.
    pub bias: Option<Tensor<T, D>>,
    /// Stride, padding, dilation (second components) and groups.
    pub opts: Conv2dOptions,
    /// Extra outputs at the end (less than the stride or the dilation).
    pub output_padding: usize,
}

impl<T: FloatElement, D: Backend> ConvTranspose1d<T, D> {
    /// Initialised as PyTorch: `fan_in = out/groups·k`.
    ///
    /// # Errors
    /// As [`super::Conv2d::new`].
    pub fn new(
        in_channels: usize,
        out_channels: usize,
        kernel: usize,
        opts: Conv2dOptions,
        output_padding: usize,
        bias: bool,
        device: &D,
    ) -> Result<Self> {
        let shape = [in_channels, out_channels / opts.groups.max(1), kernel];
        let channels = (in_channels, out_channels);
        let (weight, bias) = weight_and_bias(
            "ConvTranspose1d",
            opts.groups,
            channels,
            &shape,
            bias,
            device,
        )?;
        Ok(ConvTranspose1d {
            weight,
            bias,
            opts,
            output_padding,
        })
    }
}

conv_impls!(ConvTranspose1d, |s, x| {
    nn::conv_transpose1d(x, &s.weight, s.bias.as_ref(), s.opts, s.output_padding)
});

/// Transposed 3-d convolution (PyTorch `nn.ConvTranspose3d`): `weight (in, out/groups, kd,
/// kh, kw)`, `bias (out)`.
#[derive(Clone)]
pub struct ConvTranspose3d<T: FloatElement, D: Backend> {
    /// `(in_channels, out_channels / groups, kd, kh, kw)`.
    pub weight: Tensor<T, D>,
    /// `(out_channels)`, when the layer has one.
    pub bias: Option<Tensor<T, D>>,
    /// Stride, padding, dilation and groups.
    pub opts: Conv3dOptions,
    /// Extra outputs on one side of each spatial axis (less than the stride or the dilation).
    pub output_padding: (usize, usize, usize),
}

impl<T: FloatElement, D: Backend> ConvTranspose3d<T, D> {
    /// Initialised as PyTorch: `fan_in = out/groups·kd·kh·kw`.
    ///
    /// # Errors
    /// As [`super::Conv2d::new`].
    pub fn new(
        in_channels: usize,
        out_channels: usize,
        kernel: (usize, usize, usize),
        opts: Conv3dOptions,
        output_padding: (usize, usize, usize),
        bias: bool,
        device: &D,
    ) -> Result<Self> {
        let (kd, kh, kw) = kernel;
        let shape = [in_channels, out_channels / opts.groups.max(1), kd, kh, kw];
        let channels = (in_channels, out_channels);
        let (weight, bias) = weight_and_bias(
            "ConvTranspose3d",
            opts.groups,
            channels,
            &shape,
            bias,
            device,
        )?;
        Ok(ConvTranspose3d {
            weight,
            bias,
            opts,
            output_padding,
        })
    }
}

conv_impls!(ConvTranspose3d, |s, x| {
    nn::conv_transpose3d(x, &s.weight, s.bias.as_ref(), s.opts, s.output_padding)
});
