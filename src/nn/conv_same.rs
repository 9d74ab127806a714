//! PyTorch's `padding="same"` and `padding_mode` for `conv1d`/`conv2d`/`conv3d`: the input's
//! spatial axes are padded first (zeros, or a [`PadMode`] rule, both differentiable on every
//! device), then the convolution runs unpadded, as `torch.nn.ConvNd` does.
//!
//! ```
//! use typed_tensor::prelude::*;
//! use typed_tensor::nn;
//! use typed_tensor::ops::pad::PadMode;
//! let x = Tensor::<f32>::from_vec(vec![1.0, 2.0, 3.0, 4.0], [1, 1, 4])?;
//! let w = Tensor::<f32>::from_vec(vec![1.0, 1.0], [1, 1, 2])?; // an even kernel
//! // Total padding d·(k - 1) = 1, the odd element on the right (PyTorch).
//! let y = nn::conv_same(&x, &w, None, &[1], 1, None)?;
//! assert_eq!(y.to_vec(), vec![3.0, 5.0, 7.0, 4.0]);
//! // nn.Conv1d(padding="same", padding_mode="circular")
//! let y = nn::conv_same(&x, &w, None, &[1], 1, Some(PadMode::Circular))?;
//! assert_eq!(y.to_vec(), vec![3.0, 5.0, 7.0, 5.0]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use super::conv::{Conv2dOptions, conv1d, conv2d};
use super::volume::{Conv3dOptions, conv3d};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::ops::pad::PadMode;
use crate::tensor::Tensor;

/// The `(before, after)` padding of each spatial axis that keeps its length under a
/// stride-1 convolution (PyTorch `padding="same"`): `d·(k - 1)` in all, `before` its floor
/// half, so an odd total puts the extra element after. `dilation` has one entry per kernel
/// axis, or one for all.
///
/// # Errors
/// `InvalidArgument` when `dilation` has another length, or `d·(k - 1)` overflows `usize`.
pub fn same_padding(kernel: &[usize], dilation: &[usize]) -> Result<Vec<(usize, usize)>> {
    const OP: &str = "same_padding";
    if dilation.len() != kernel.len() && dilation.len() != 1 {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!(
                "{} dilations for a kernel of {} axes {kernel:?}; give one per axis, or one for all",
                dilation.len(),
                kernel.len()
            ),
        });
    }
    let d = |i: usize| dilation[if dilation.len() == 1 { 0 } else { i }];
    (kernel.iter().enumerate())
        .map(|(i, &k)| {
            let total = d(i).checked_mul(k.saturating_sub(1));
            let total = total.ok_or_else(|| Error::InvalidArgument {
                op: OP,
                msg: format!("dilation {} × (kernel {k} - 1) overflows usize", d(i)),
            })?;
            Ok((total / 2, total - total / 2))
        })
        .collect()
}

/// A convolution whose output has the input's spatial shape (PyTorch `conv1d`/`conv2d`/
/// `conv3d` with `padding="same"`, stride 1): `x` `(N, C, *spatial)` with 1 to 3 spatial
/// axes, `weight` `(O, C / groups, *kernel)`, an optional `bias` `(O,)`; `(N, O, *spatial)`
/// out. The padding is [`same_padding`]'s, filled with zeros (`mode` `None`, PyTorch's
/// `padding_mode="zeros"`) or by `mode` (`Reflect`, `Replicate`, `Circular` are PyTorch's
/// `padding_mode`s; PyTorch refuses pads as long as the axis for them, where this repeats
/// the pattern as NumPy's `pad` does). `dilation` has one entry per spatial axis, or one for
/// all. Differentiable on every device.
///
/// # Errors
/// `InvalidArgument` for an input that is not 3-, 4- or 5-d, a weight of another rank, a
/// `dilation` of another length, or the conditions of [`conv2d`]/[`conv3d`] (channels and
/// `groups`, a zero kernel or dilation, the bias); a `mode` padding of an empty axis is
/// refused as by [`Tensor::try_pad_mode`].
pub fn conv_same<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    weight: &Tensor<T, D>,
    bias: Option<&Tensor<T, D>>,
    dilation: &[usize],
    groups: usize,
    mode: Option<PadMode>,
) -> Result<Tensor<T, D>> {
    const OP: &str = "conv_same";
    let spatial = x.ndim().wrapping_sub(2);
    if !(1..=3).contains(&spatial) || weight.ndim() != x.ndim() {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!(
                "expects an (N, C, *spatial) input with 1 to 3 spatial axes and an (O, C / groups, *kernel) weight of the same rank, got {} and {}",
                x.shape(),
                weight.shape()
            ),
        });
    }
    let pads = same_padding(&weight.dims()[2..], dilation).map_err(|e| e.invalid_named(OP))?;
    let d = |i: usize| dilation[if dilation.len() == 1 { 0 } else { i }];
    let all: Vec<(usize, usize)> = [(0, 0), (0, 0)].into_iter().chain(pads).collect();
    let xp = if all.iter().all(|&p| p == (0, 0)) {
        x.clone()
    } else {
        match mode {
            None => x.try_pad(&all, T::ZERO)?,
            Some(mode) => x.try_pad_mode(&all, mode)?,
        }
    };
    let conv2 = |dh: usize, dw: usize| Conv2dOptions {
        dilation: (dh, dw),
        groups,
        ..Default::default()
    };
    let y = match spatial {
        1 => conv1d(&xp, weight, bias, conv2(1, d(0))),
        2 => conv2d(&xp, weight, bias, conv2(d(0), d(1))),
        _ => conv3d(
            &xp,
            weight,
            bias,
            Conv3dOptions {
                dilation: (d(0), d(1), d(2)),
                groups,
                ..Default::default()
            },
        ),
    };
    y.map_err(|e| e.invalid_named(OP))
}
