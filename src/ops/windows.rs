//! Sliding windows and 1-d convolution: PyTorch's `Tensor.unfold` (NumPy
//! `sliding_window_view` with a step) and NumPy's `convolve`/`correlate`, for every numeric
//! dtype. The windows are one copy of their overlapping strided view (PyTorch returns the view,
//! which in-place writes could not use anyway), recorded with the overlap-add of their
//! gradients as the rule, so they differentiate on every device.
//!
//! ```
//! use typed_tensor::prelude::*;
//! use typed_tensor::ops::windows::ConvMode;
//! let x = tensor![1i32, 2, 3, 4, 5];
//! let w = x.unfold(0, 3, 2);
//! assert_eq!((w.dims(), w.to_vec()), (&[2, 3][..], vec![1, 2, 3, 3, 4, 5]));
//! let k = tensor![1i32, 0, -1];
//! assert_eq!(x.convolve(&k, ConvMode::Valid).to_vec(), vec![2, 2, 2]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::{Element, NumElement};
use crate::error::{Error, OrPanic, Result};
use crate::tensor::Tensor;

/// The output length of [`Tensor::try_convolve`] and [`Tensor::try_correlate`] (NumPy's
/// `mode`), for inputs of lengths `n` and `m`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvMode {
    /// Every overlap: `n + m - 1` (NumPy `convolve`'s default).
    Full,
    /// `max(n, m)`, centred on the full result.
    Same,
    /// Only complete overlaps: `max(n, m) - min(n, m) + 1` (NumPy `correlate`'s default).
    Valid,
}

impl<T: Element, D: Backend> Tensor<T, D> {
    /// The windows of `size` elements along `dim`, every `step` (PyTorch `Tensor.unfold`):
    /// `dim` becomes the window count `(n - size) / step + 1`, and a last axis of `size` is
    /// added. Gradients flow back to every element a window holds.
    ///
    /// # Errors
    /// `Axis` for a bad `dim` (a 0-d tensor has none); `InvalidArgument` for a zero `step` or a
    /// `size` larger than the axis; `OutOfMemory` when the windows cannot be allocated.
    pub fn try_unfold(&self, dim: i64, size: usize, step: usize) -> Result<Self> {
        let (view, ax, n) = self.windows_view(dim, size, step)?;
        let out = crate::autograd::no_grad(|| view.try_deep_copy())?;
        let op = crate::autograd::Op::Windows {
            axis: ax,
            step,
            len: n,
        };
        Ok(crate::autograd::record(out, op, &[self], &[]))
    }

    /// The windows of [`Tensor::try_unfold`] as the overlapping strided view itself, outside
    /// the graph, with the axis and its length: for a reader that consumes them at once
    /// (`stft` multiplies them by its window), never for writes, which would alias.
    pub(crate) fn windows_view(
        &self,
        dim: i64,
        size: usize,
        step: usize,
    ) -> Result<(Self, usize, usize)> {
        const OP: &str = "unfold";
        let ax = self.shape().axis(OP, dim)?;
        let n = self.dims()[ax];
        if step == 0 || size > n {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!(
                    "needs a step above 0 and a size of at most axis {ax}'s {n} of {}, got size {size} and step {step}",
                    self.shape()
                ),
            });
        }
        let count = (n - size) / step + 1;
        // The windows hold count · size elements: refused when that overflows.
        count
            .checked_mul(size)
            .ok_or_else(|| Error::ShapeOverflow {
                op: OP,
                dims: vec![count, size],
            })?;
        let detached = self.detach();
        if count == 1 {
            // One window (its step may be any): the first `size` elements.
            let w = detached
                .narrow(ax as i64, 0, size)?
                .movedim(&[ax as i64], &[-1])?;
            return Ok((w.unsqueeze(ax as i64)?, ax, n));
        }
        // The overlapping windows' strided view. With two windows or more, step · stride is
        // within the axis's span, so it does not overflow.
        let mut layout = self.layout.clone();
        let stride = layout.strides[ax];
        layout.strides[ax] = step as isize * stride;
        layout.strides.push(stride);
        let mut dims = self.dims().to_vec();
        dims[ax] = count;
        dims.push(size);
        layout.shape = crate::shape::Shape::new(dims);
        Ok((detached.with_layout(OP, layout)?, ax, n))
    }

    plain_forms! {
        /// [`Tensor::try_unfold`], panicking with its error.
        unfold, try_unfold(dim: i64, size: usize, step: usize) -> Self;
    }
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// The discrete linear convolution of two 1-d tensors, `(a ∗ v)[k] = Σ a[i]·v[k - i]`
    /// (NumPy `convolve`; the longer operand slides, so the arguments commute), in `T` (an
    /// integer convolution wraps as its products do).
    ///
    /// # Errors
    /// `InvalidArgument` unless both are 1-d and non-empty (NumPy refuses empty ones);
    /// `Device` across devices.
    pub fn try_convolve(&self, v: &Self, mode: ConvMode) -> Result<Self> {
        check_1d("convolve", self, v)?;
        let (long, short) = if v.numel() > self.numel() {
            (v, self)
        } else {
            (self, v)
        };
        slide(long, &short.flip(&[0])?, mode)
    }

    /// The cross-correlation of two 1-d tensors, `c[k] = Σ a[n + k]·v[n]` (NumPy `correlate`,
    /// real dtypes): the convolution with `v` reversed. When `v` is longer than `self` the
    /// result is reversed as NumPy's is.
    ///
    /// # Errors
    /// As [`Tensor::try_convolve`].
    pub fn try_correlate(&self, v: &Self, mode: ConvMode) -> Result<Self> {
        check_1d("correlate", self, v)?;
        if v.numel() > self.numel() {
            return slide(v, self, mode)?.flip(&[0]);
        }
        slide(self, v, mode)
    }

    plain_forms! {
        /// [`Tensor::try_convolve`], panicking with its error.
        convolve, try_convolve(v: &Self, mode: ConvMode) -> Self;
        /// [`Tensor::try_correlate`], panicking with its error.
        correlate, try_correlate(v: &Self, mode: ConvMode) -> Self;
    }
}

fn check_1d<T: Element, D: Backend>(
    op: &'static str,
    a: &Tensor<T, D>,
    v: &Tensor<T, D>,
) -> Result<()> {
    if a.ndim() != 1 || v.ndim() != 1 || a.numel() == 0 || v.numel() == 0 {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "needs two non-empty 1-d tensors, got shapes {} and {}",
                a.shape(),
                v.shape()
            ),
        });
    }
    crate::ops::device_ops::same_device(op, a, v)
}

/// `Σ long[k + i]·kernel[i]` for every window position `mode` keeps (`long` at least as long
/// as `kernel`): the zero-padded windows of `long` times `kernel`.
fn slide<T: NumElement, D: Backend>(
    long: &Tensor<T, D>,
    kernel: &Tensor<T, D>,
    mode: ConvMode,
) -> Result<Tensor<T, D>> {
    let (n, m) = (long.numel(), kernel.numel());
    let padded = match mode {
        ConvMode::Valid => long.clone(),
        _ => long.try_pad(&[(m - 1, m - 1)], T::from_f64(0.0))?,
    };
    let full = padded.try_unfold(0, m, 1)?.try_mv(kernel)?;
    match mode {
        // NumPy centres `same` at (m - 1) / 2 of the full result.
        ConvMode::Same => full.narrow(0, (m - 1) / 2, n),
        _ => Ok(full),
    }
}

/// Frames `(.., F, n)` summed at offsets `0, hop, 2·hop, ..` into `(.., covered)`, `covered =
/// (F - 1)·hop + n` (the adjoint of [`Tensor::try_unfold`], `istft`'s overlap-add): the frames
/// cut into `⌈n/hop⌉` blocks of `hop` samples, block `j` of frame `t` landing on output block
/// `t + j`, so it is `⌈n/hop⌉` shifted adds of `F·hop` samples. Recorded ops throughout.
pub(crate) fn overlap_add<T: NumElement, D: Backend>(
    frames: &Tensor<T, D>,
    hop: usize,
    covered: usize,
) -> Result<Tensor<T, D>> {
    const OP: &str = "overlap_add";
    let nd = frames.ndim();
    let (count, n) = (frames.dims()[nd - 2], frames.dims()[nd - 1]);
    if count <= 1 {
        // No overlap (and a hop that may be any): the frame itself.
        let mut dims = frames.dims()[..nd - 2].to_vec();
        dims.push(count * n);
        return frames.try_reshape(dims);
    }
    let k = n.div_ceil(hop);
    let mut pads = vec![(0, 0); nd];
    pads[nd - 1] = (0, k * hop - n);
    let blocks = frames
        .try_pad(&pads, T::ZERO)?
        .try_unflatten(-1, &[k as i64, hop as i64])?;
    let mut sum: Option<Tensor<T, D>> = None;
    for j in 0..k {
        let mut shift = vec![(0, 0); nd];
        shift[nd - 2] = (j, k - 1 - j);
        let part = blocks
            .select(nd as i64 - 1, j as i64)?
            .try_pad(&shift, T::ZERO)?;
        sum = Some(match sum {
            Some(s) => s.try_add(&part)?,
            None => part,
        });
    }
    let mut dims = frames.dims()[..nd - 2].to_vec();
    let len = (count + k - 1)
        .checked_mul(hop)
        .ok_or_else(|| Error::ShapeOverflow {
            op: OP,
            dims: vec![count, hop],
        })?;
    dims.push(len);
    let sum = sum.map_or_else(
        || Tensor::zeros_on(dims.clone(), frames.device_handle()),
        Ok,
    )?;
    sum.try_reshape(dims)?.narrow(nd as i64 - 2, 0, covered)
}

/// The gradient of [`Tensor::try_unfold`] along `axis` (of `len` elements) with `step`: each
/// window's gradient added back where the window came from.
pub(crate) fn unfold_backward<T: NumElement, D: Backend>(
    g: &Tensor<T, D>,
    axis: usize,
    step: usize,
    len: usize,
) -> Result<Tensor<T, D>> {
    let (count, size) = (g.dims()[axis], g.dims()[g.ndim() - 1]);
    let covered = (count - 1) * step + size;
    let frames = g.movedim(&[axis as i64], &[-2])?;
    let sum = overlap_add(&frames, step, covered)?;
    let mut pads = vec![(0, 0); sum.ndim()];
    pads[sum.ndim() - 1] = (0, len - covered);
    sum.try_pad(&pads, T::ZERO)?.movedim(&[-1], &[axis as i64])
}
