//! The convolutions: `Conv1d`, `Conv2d`, `ConvTranspose2d` (PyTorch's `nn.Conv1d`,
//! `nn.Conv2d`, `nn.ConvTranspose2d`), initialised as PyTorch from the weight's fan-in.

use super::{Module, Parameters, fan_in_uniform, named};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::nn::{self as nn, Conv2dOptions};
use crate::tensor::Tensor;

/// `groups` checked against the channel counts, and the fan-in of a weight whose dimensions
/// after the first are `rest` (PyTorch's `_calculate_fan_in_and_fan_out`).
fn checked_fan_in(
    op: &'static str,
    groups: usize,
    channels: (usize, usize),
    rest: &[usize],
) -> Result<usize> {
    let (i, o) = channels;
    if groups == 0 || !i.is_multiple_of(groups) || !o.is_multiple_of(groups) {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "groups {groups} must be at least 1 and divide in_channels {i} and out_channels {o}"
            ),
        });
    }
    (rest.iter())
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| Error::InvalidArgument {
            op,
            msg: format!("the kernel {rest:?} has too many elements"),
        })
}

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
        let g = opts.groups;
        let shape = [out_channels, in_channels / g.max(1), kernel.0, kernel.1];
        let fan_in = checked_fan_in("Conv2d", g, (in_channels, out_channels), &shape[1..])?;
        Ok(Conv2d {
            weight: fan_in_uniform(&shape, fan_in, device)?,
            bias: match bias {
                true => Some(fan_in_uniform(&[out_channels], fan_in, device)?),
                false => None,
            },
            opts,
        })
    }
}

impl<T: FloatElement, D: Backend> Parameters<T, D> for Conv2d<T, D> {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        named(&[("weight", Some(&self.weight)), ("bias", self.bias.as_ref())])
    }
}

impl<T: FloatElement, D: Backend> Module<T, D> for Conv2d<T, D> {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        nn::conv2d(x, &self.weight, self.bias.as_ref(), self.opts)
    }
}

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
        let c = Conv2d::<T, D>::new(in_channels, out_channels, (1, kernel), opts, bias, device)?;
        Ok(Conv1d {
            weight: c
                .weight
                .squeeze_dims(&[2])?
                .detach()
                .with_requires_grad(true)?,
            bias: c.bias,
            opts,
        })
    }
}

impl<T: FloatElement, D: Backend> Parameters<T, D> for Conv1d<T, D> {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        named(&[("weight", Some(&self.weight)), ("bias", self.bias.as_ref())])
    }
}

impl<T: FloatElement, D: Backend> Module<T, D> for Conv1d<T, D> {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        nn::conv1d(x, &self.weight, self.bias.as_ref(), self.opts)
    }
}

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
    /// As [`Conv2d::new`].
    pub fn new(
        in_channels: usize,
        out_channels: usize,
        kernel: (usize, usize),
        opts: Conv2dOptions,
        output_padding: (usize, usize),
        bias: bool,
        device: &D,
    ) -> Result<Self> {
        let g = opts.groups;
        let shape = [in_channels, out_channels / g.max(1), kernel.0, kernel.1];
        let fan_in = checked_fan_in(
            "ConvTranspose2d",
            g,
            (in_channels, out_channels),
            &shape[1..],
        )?;
        Ok(ConvTranspose2d {
            weight: fan_in_uniform(&shape, fan_in, device)?,
            bias: match bias {
                true => Some(fan_in_uniform(&[out_channels], fan_in, device)?),
                false => None,
            },
            opts,
            output_padding,
        })
    }
}

impl<T: FloatElement, D: Backend> Parameters<T, D> for ConvTranspose2d<T, D> {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        named(&[("weight", Some(&self.weight)), ("bias", self.bias.as_ref())])
    }
}

impl<T: FloatElement, D: Backend> Module<T, D> for ConvTranspose2d<T, D> {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let b = self.bias.as_ref();
        nn::conv_transpose2d(x, &self.weight, b, self.opts, self.output_padding)
    }
}
