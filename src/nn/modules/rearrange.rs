//! The rearranging layers without parameters: `Unflatten`, `PixelShuffle`,
//! `PixelUnshuffle`, `ChannelShuffle` and `Pad` (PyTorch's `nn.Unflatten`,
//! `nn.PixelShuffle`, `nn.PixelUnshuffle`, `nn.ChannelShuffle`, and the `nn.ZeroPad*d`,
//! `nn.ConstantPad*d`, `nn.ReflectionPad*d`, `nn.ReplicationPad*d`, `nn.CircularPad*d`
//! family).

use super::Module;
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::nn;
use crate::ops::pad::PadMode;
use crate::tensor::Tensor;

no_parameters!(Unflatten, PixelShuffle, PixelUnshuffle, ChannelShuffle, Pad);

/// Splits `axis` into `sizes` (PyTorch `nn.Unflatten`; one size may be -1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unflatten {
    /// The axis split.
    pub axis: i64,
    /// Its new sizes, whose product is its length.
    pub sizes: Vec<i64>,
}

impl<T: FloatElement, D: Backend> Module<T, D> for Unflatten {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        x.try_unflatten(self.axis, &self.sizes)
    }
}

/// `(N, C·r², H, W)` to `(N, C, H·r, W·r)` (PyTorch `nn.PixelShuffle(r)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelShuffle(pub usize);

impl<T: FloatElement, D: Backend> Module<T, D> for PixelShuffle {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        nn::pixel_shuffle(x, self.0)
    }
}

/// `(N, C, H·r, W·r)` to `(N, C·r², H, W)` (PyTorch `nn.PixelUnshuffle(r)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelUnshuffle(pub usize);

impl<T: FloatElement, D: Backend> Module<T, D> for PixelUnshuffle {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        nn::pixel_unshuffle(x, self.0)
    }
}

/// The channels of `(N, C, ...)` interleaved from `groups` groups (PyTorch
/// `nn.ChannelShuffle(groups)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChannelShuffle(pub usize);

impl<T: FloatElement, D: Backend> Module<T, D> for ChannelShuffle {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        nn::channel_shuffle(x, self.0)
    }
}

/// Padding of the trailing axes (PyTorch's padding layers): `padding[i] = (before, after)`
/// for the `i`-th of the last `padding.len()` axes, in axis order (`[(top, bottom), (left,
/// right)]` for an image; PyTorch's tuple lists the last axis first). `mode` `None` pads with
/// `value` (`nn.ConstantPad*d`, `nn.ZeroPad*d`), else reflects, replicates or wraps.
#[derive(Clone, Debug, PartialEq)]
pub struct Pad {
    /// `(before, after)` per trailing axis, in axis order.
    pub padding: Vec<(usize, usize)>,
    /// `None`: constant; else `Reflect`, `Replicate` or `Circular` (and NumPy's `Symmetric`).
    pub mode: Option<PadMode>,
    /// The constant (mode `None`).
    pub value: f64,
}

impl Pad {
    /// Zeros (PyTorch `nn.ZeroPad2d` and the like).
    pub fn zeros(padding: Vec<(usize, usize)>) -> Self {
        Pad {
            padding,
            mode: None,
            value: 0.0,
        }
    }
    /// `mode` (PyTorch `nn.ReflectionPad2d` for `Reflect`, and the like).
    pub fn with_mode(padding: Vec<(usize, usize)>, mode: PadMode) -> Self {
        Pad {
            padding,
            mode: Some(mode),
            value: 0.0,
        }
    }
}

impl<T: FloatElement, D: Backend> Module<T, D> for Pad {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let n = x.ndim();
        let Some(lead) = n.checked_sub(self.padding.len()) else {
            return Err(Error::InvalidArgument {
                op: "Pad",
                msg: format!(
                    "{} padded axes for an input of shape {}",
                    self.padding.len(),
                    x.shape()
                ),
            });
        };
        let pads: Vec<(usize, usize)> = (std::iter::repeat_n((0, 0), lead))
            .chain(self.padding.iter().copied())
            .collect();
        match self.mode {
            None => x.try_pad(&pads, T::from_f64(self.value)),
            Some(mode) => x.try_pad_mode(&pads, mode),
        }
    }
}
