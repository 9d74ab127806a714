//! The short-time Fourier transform and its inverse (PyTorch `torch.stft`/`torch.istft`),
//! made of `unfold`, [`super::rfft`] and a `scatter_add` overlap-add, so they differentiate.

use super::{ComplexTensor, Norm};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::ops::device_ops::same_device;
use crate::ops::pad::PadMode;
use crate::tensor::Tensor;

/// The options of [`stft`] and [`istft`], PyTorch's defaults in [`Stft::default`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stft {
    /// Samples between frames (`None`: `n_fft / 4`).
    pub hop_length: Option<usize>,
    /// The window's length, at most `n_fft`; it is zero-padded on both sides to `n_fft`
    /// (`None`: `n_fft`).
    pub win_length: Option<usize>,
    /// Whether the signal is padded by `n_fft / 2` on both sides, so frame `t` is centred on
    /// sample `t · hop_length` (default `true`).
    pub center: bool,
    /// How `center` pads (default [`PadMode::Reflect`]).
    pub pad_mode: PadMode,
    /// Whether frames are scaled by `1/√n_fft` ([`Norm::Ortho`]; default `false`).
    pub normalized: bool,
    /// Whether only the `n_fft/2 + 1` non-negative frequencies are kept (default `true`).
    pub onesided: bool,
}

impl Default for Stft {
    fn default() -> Self {
        Stft {
            hop_length: None,
            win_length: None,
            center: true,
            pad_mode: PadMode::Reflect,
            normalized: false,
            onesided: true,
        }
    }
}

impl Stft {
    fn norm(&self) -> Norm {
        if self.normalized {
            Norm::Ortho
        } else {
            Norm::Backward
        }
    }

    /// The hop and the window padded to `n_fft` (ones when `window` is `None`).
    fn frame<T: FloatElement, D: Backend>(
        &self,
        op: &'static str,
        n_fft: usize,
        window: Option<&Tensor<T, D>>,
        device: &D,
    ) -> Result<(usize, Tensor<T, D>)> {
        let hop = self.hop_length.unwrap_or(n_fft / 4);
        let win = self.win_length.unwrap_or(n_fft);
        if n_fft == 0 || hop == 0 || win == 0 || win > n_fft {
            return Err(Error::InvalidArgument {
                op,
                msg: format!(
                    "needs n_fft > 0, hop_length > 0 and 0 < win_length <= n_fft, got n_fft {n_fft}, hop_length {hop}, win_length {win}"
                ),
            });
        }
        let window = match window {
            Some(w) if w.dims() != [win] => {
                return Err(Error::InvalidArgument {
                    op,
                    msg: format!(
                        "the window must be 1-d of win_length {win} samples, got shape {}",
                        w.shape()
                    ),
                });
            }
            Some(w) => w.clone(),
            None => Tensor::ones_on([win], device)?,
        };
        let left = (n_fft - win) / 2;
        Ok((hop, window.try_pad(&[(left, n_fft - win - left)], T::ZERO)?))
    }
}

/// The short-time Fourier transform of the real signal `x` (`(L,)` or `(B, L)`; PyTorch
/// `torch.stft` with `return_complex=True`): frames of `n_fft` samples every `hop_length`,
/// each multiplied by `window` (`win_length` samples, centred in the frame; a rectangular
/// window for `None`) and transformed. Shape `(n_fft/2 + 1, frames)` (`n_fft` frequencies
/// unless `onesided`), after the batch axis if any, with `1 + (L' - n_fft) / hop_length`
/// frames for the (centre-padded) length `L'`.
///
/// ```
/// use typed_tensor::fft::{self, Stft};
/// use typed_tensor::prelude::*;
/// let x = Tensor::<f32>::arange(0.0, 64.0, 1.0)?.try_sin()?;
/// let w = Tensor::<f32>::hann_window(16, true)?;
/// let spec = fft::stft(&x, 16, Some(&w), &Stft::default())?;
/// assert_eq!(spec.dims(), &[9, 17]); // 9 frequencies, 1 + 64/4 frames
/// let back = fft::istft(&spec, 16, Some(&w), &Stft::default(), Some(64))?;
/// assert!(back.try_sub(&x)?.try_abs()?.to_vec().iter().all(|&e| e < 1e-5));
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `InvalidArgument` for a signal that is not 1-d or 2-d, shorter than `n_fft` (after
/// padding), `n_fft`, `hop_length` or `win_length` of 0, a `win_length` above `n_fft`, or a
/// window of another length; `Device` when the window is elsewhere; `OutOfMemory`.
pub fn stft<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    n_fft: usize,
    window: Option<&Tensor<T, D>>,
    opts: &Stft,
) -> Result<ComplexTensor<T, D>> {
    const OP: &str = "stft";
    if let Some(w) = window {
        same_device(OP, x, w)?;
    }
    if !matches!(x.ndim(), 1 | 2) {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!("needs a signal of shape (L,) or (B, L), got {}", x.shape()),
        });
    }
    let (hop, window) = opts.frame(OP, n_fft, window, x.device_handle())?;
    let x = if opts.center {
        let mut pads = vec![(0, 0); x.ndim()];
        pads[x.ndim() - 1] = (n_fft / 2, n_fft / 2);
        x.try_pad_mode(&pads, opts.pad_mode)?
    } else {
        x.clone()
    };
    let len = x.dims()[x.ndim() - 1];
    if len < n_fft {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!(
                "the signal has {len} samples (after padding), fewer than n_fft = {n_fft}"
            ),
        });
    }
    // Outside the graph of `x`, the windows are multiplied straight from their strided view
    // (one pass instead of a copy and a product).
    let frames = if crate::autograd::recording(&[&x]) {
        x.try_unfold(-1, n_fft, hop)?.try_mul(&window)?
    } else {
        x.windows_view(-1, n_fft, hop)?.0.try_mul(&window)?
    };
    let spec = if opts.onesided {
        super::rfft(&frames, None, -1, opts.norm())?
    } else {
        super::fft(&ComplexTensor::from_real(&frames)?, None, -1, opts.norm())?
    };
    // (.., frames, freq) → (.., freq, frames).
    let last = spec.ndim() as i64 - 1;
    ComplexTensor::from_pairs(&spec.pairs().movedim(&[last], &[last - 1])?)
}

/// The inverse of [`stft`] (PyTorch `torch.istft`): each frame's inverse transform, times the
/// window, overlap-added and divided by the overlap-added squared window; `length` samples
/// (default: what the frames cover, less the centre padding), zero-padded past the frames.
/// `z` is `(freq, frames)` or `(B, freq, frames)`, with `n_fft/2 + 1` frequencies
/// (`n_fft` unless `onesided`), and the options those of the [`stft`] that made it.
///
/// # Errors
/// As [`stft`]; `InvalidArgument` for another number of frequencies, no frames, or a window
/// whose overlap-added square is 0 at a sample (it fails the NOLA condition: the signal
/// cannot be recovered there); `ShapeOverflow` when the length overflows.
pub fn istft<T: FloatElement, D: Backend>(
    z: &ComplexTensor<T, D>,
    n_fft: usize,
    window: Option<&Tensor<T, D>>,
    opts: &Stft,
    length: Option<usize>,
) -> Result<Tensor<T, D>> {
    const OP: &str = "istft";
    if let Some(w) = window {
        same_device(OP, z.pairs(), w)?;
    }
    let (hop, window) = opts.frame(OP, n_fft, window, z.pairs().device_handle())?;
    let bins = if opts.onesided { n_fft / 2 + 1 } else { n_fft };
    let nd = z.ndim();
    if !matches!(nd, 2 | 3) || z.dims()[nd - 2] != bins || z.dims()[nd - 1] == 0 {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!(
                "needs a spectrum of shape ({bins}, frames) or (B, {bins}, frames) with at least one frame for n_fft {n_fft}{}, got {:?}",
                if opts.onesided { " (one-sided)" } else { "" },
                z.dims()
            ),
        });
    }
    let count = z.dims()[nd - 1];
    let covered = (count - 1)
        .checked_mul(hop)
        .and_then(|c| c.checked_add(n_fft))
        .filter(|&c| i64::try_from(c).is_ok())
        .ok_or_else(|| Error::ShapeOverflow {
            op: OP,
            dims: vec![count, hop],
        })?;
    // (.., freq, frames) → (.., frames, freq), then each frame back to n_fft samples.
    let z = ComplexTensor::from_pairs(&z.pairs().movedim(&[nd as i64 - 2], &[nd as i64 - 1])?)?;
    let frames = if opts.onesided {
        super::irfft(&z, Some(n_fft), -1, opts.norm())?
    } else {
        super::ifft(&z, None, -1, opts.norm())?.real()
    };
    let frames = frames.try_mul(&window)?;
    let signal = crate::ops::windows::overlap_add(&frames, hop, covered)?;
    let squares = window.try_mul(&window)?.expand([count, n_fft])?;
    let envelope = crate::ops::windows::overlap_add(&squares, hop, covered)?;
    let start = if opts.center { n_fft / 2 } else { 0 };
    let end = match length {
        Some(l) => start.checked_add(l).ok_or_else(|| Error::ShapeOverflow {
            op: OP,
            dims: vec![start, l],
        })?,
        None if opts.center => covered - n_fft / 2,
        None => covered,
    };
    let stop = end.min(covered);
    let last = signal.ndim() as i64 - 1;
    let envelope = envelope.narrow(0, start.min(stop), stop - start.min(stop))?;
    if envelope.numel() > 0 {
        let low = envelope.try_amin(&[], false)?.try_item()?.to_f64();
        if low.is_nan() || low.abs() < 1e-11 {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!(
                    "the overlap-added squared window is {low:e} at some sample (it fails the NOLA condition), so the signal cannot be recovered there; use a hop_length or window that overlap"
                ),
            });
        }
    }
    let signal = signal
        .narrow(last, start.min(stop), stop - start.min(stop))?
        .try_div(&envelope)?;
    if end > stop {
        let mut pads = vec![(0, 0); signal.ndim()];
        pads[signal.ndim() - 1] = (0, end - stop.max(start));
        return signal.try_pad(&pads, T::ZERO);
    }
    Ok(signal)
}
