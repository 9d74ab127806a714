//! Sliding windows and 1-d convolution: PyTorch's `Tensor.unfold` (NumPy
//! `sliding_window_view` with a step) and NumPy's `convolve`/`correlate`, for every numeric
//! dtype. The windows are gathered by one `index_select` (a copy; PyTorch returns a view of
//! overlapping windows, which in-place writes could not use anyway), so they differentiate
//! on every device.
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
        let len = count
            .checked_mul(size)
            .ok_or_else(|| Error::ShapeOverflow {
                op: OP,
                dims: vec![count, size],
            })?;
        if !crate::autograd::recording(&[self]) {
            // Unrecorded: one copy of the overlapping windows' strided view (the view itself
            // would alias, so it is not offered; recorded, the gather below has the rule).
            let mut layout = self.layout.clone();
            let stride = layout.strides[ax];
            let step = isize::try_from(step)
                .ok()
                .and_then(|s| s.checked_mul(stride));
            if let Some(step) = step {
                layout.strides[ax] = step;
                layout.strides.push(stride);
                let mut dims = self.dims().to_vec();
                dims[ax] = count;
                dims.push(size);
                layout.shape = crate::shape::Shape::new(dims);
                return self.with_layout(OP, layout)?.try_deep_copy();
            }
        }
        // Every window start plus every offset: at most n + (size - 1)·(count - 1) < 2^63.
        // Windows of size 0 need no walk over their (possibly 2^40) starts.
        let starts = if size == 0 { 0 } else { count };
        let index = crate::alloc::collect(
            OP,
            len,
            (0..starts).flat_map(|w| (0..size).map(move |j| (w * step + j) as i64)),
        )?;
        let index = Tensor::<i64, D>::from_vec_on(index, [len], &self.device)?;
        let rows = self
            .try_index_select(ax as i64, &index)?
            .try_unflatten(ax as i64, &[count as i64, size as i64])?;
        rows.movedim(&[ax as i64 + 1], &[-1])
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
