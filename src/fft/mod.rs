//! Discrete Fourier transforms: PyTorch's `torch.fft` and NumPy's `numpy.fft`, on every
//! device, differentiable.
//!
//! Complex values are [`ComplexTensor`]s (real tensors with a last axis of (real, imaginary)
//! pairs, PyTorch's `view_as_real` layout), so a spectrum and a signal are different types.
//! `dim`/`dims` count the complex dimensions. `n` (or `s`) crops or zero-pads the input along
//! the transformed axis first, as in both libraries. Every transform is made of 1-d transforms
//! along one axis (`kernel.rs`: complex, real to half-spectrum, and back), computed on the
//! host by `rustfft`/`realfft` for every device (a CUDA tensor is copied to the host and
//! back): in f64 for f64 tensors, in f32 for the others, as NumPy 2 and PyTorch compute their
//! f32 transforms (errors about `log2(n)` f32 epsilons of the input's norm). Each
//! one's gradient is its adjoint, another of them, so gradients of every order flow through
//! the FFTs.
//!
//! | `norm` | forward transform (`fft`, `rfft`, `ihfft`) | backward transform (`ifft`, `irfft`, `hfft`) |
//! |---|---|---|
//! | [`Norm::Backward`] (default) | no scaling | `1/n` |
//! | [`Norm::Ortho`] | `1/√n` | `1/√n` |
//! | [`Norm::Forward`] | `1/n` | no scaling |
//!
//! ```
//! use typed_tensor::fft::{self, Norm};
//! use typed_tensor::prelude::*;
//! let x = tensor![1.0f64, 2.0, 3.0, 4.0];
//! let spectrum = fft::rfft(&x, None, -1, Norm::Backward)?; // n/2 + 1 = 3 bins
//! assert_eq!(spectrum.dims(), &[3]);
//! assert_eq!(spectrum.real().to_vec(), vec![10.0, -2.0, -2.0]);
//! assert_eq!(spectrum.imag().to_vec(), vec![0.0, 2.0, 0.0]);
//! let back = fft::irfft(&spectrum, Some(4), -1, Norm::Backward)?;
//! assert_eq!(back.to_vec(), vec![1.0, 2.0, 3.0, 4.0]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

mod kernel;
mod stft;

pub use crate::complex::ComplexTensor;
pub use stft::{Stft, istft, stft};

use crate::backend::Backend;
use crate::dtype::{Element, FloatElement};
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;

/// How a transform of length `n` is scaled (NumPy's and PyTorch's `norm`; module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Norm {
    /// The forward transform unscaled, the backward one by `1/n` (`"backward"`, the default).
    #[default]
    Backward,
    /// Both by `1/√n`, so the transforms are unitary (`"ortho"`).
    Ortho,
    /// The forward transform by `1/n`, the backward one unscaled (`"forward"`).
    Forward,
}

impl Norm {
    /// The factor of a transform of length `n`, forward or `inverse`.
    fn scale(self, n: usize, inverse: bool) -> f64 {
        match (self, inverse) {
            (Norm::Backward, false) | (Norm::Forward, true) => 1.0,
            (Norm::Ortho, _) => 1.0 / (n as f64).sqrt(),
            _ => 1.0 / n as f64,
        }
    }

    /// The norm whose forward scaling is this one's backward scaling (`hfft` is an `irfft`
    /// with it).
    fn swapped(self) -> Norm {
        match self {
            Norm::Backward => Norm::Forward,
            Norm::Ortho => Norm::Ortho,
            Norm::Forward => Norm::Backward,
        }
    }
}

/// `t` cropped or zero-padded along `ax` to `n` elements.
fn resize<T: Element, D: Backend>(t: &Tensor<T, D>, ax: usize, n: usize) -> Result<Tensor<T, D>> {
    let len = t.dims()[ax];
    if n <= len {
        return t.narrow(ax as i64, 0, n);
    }
    let mut pads = vec![(0, 0); t.ndim()];
    pads[ax] = (0, n - len);
    t.try_pad(&pads, T::ZERO)
}

/// Refuses a transform of no points (`n == 0`), as both libraries do.
fn check_points(op: &'static str, n: usize, shape: &Shape) -> Result<()> {
    if n == 0 {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "a transform needs at least 1 point, got 0 along the transformed axis of {shape}; pass n >= 1"
            ),
        });
    }
    Ok(())
}

/// The complex DFT of `z` along complex axis `dim`, after resizing it to `n`.
fn c2c<T: FloatElement, D: Backend>(
    op: &'static str,
    z: &ComplexTensor<T, D>,
    n: Option<usize>,
    dim: i64,
    norm: Norm,
    inverse: bool,
) -> Result<ComplexTensor<T, D>> {
    let ax = z.shape().axis(op, dim)?;
    let n = n.unwrap_or(z.dims()[ax]);
    check_points(op, n, &z.shape())?;
    let pairs = resize(z.pairs(), ax, n)?;
    let out = kernel::dft(op, &pairs, ax, inverse, norm.scale(n, inverse))?;
    ComplexTensor::from_pairs(&out)
}

/// The DFT `X_k = Σ_j z_j e^{-2πijk/n}` along complex axis `dim` (PyTorch `torch.fft.fft`,
/// NumPy `fft.fft`), `z` first cropped or zero-padded to `n` points there (default: its
/// length). Same shape as `z` but `n` along `dim`. A real signal: [`ComplexTensor::from_real`]
/// or [`rfft`].
///
/// # Errors
/// `Axis` for a bad `dim` (a 0-d complex tensor has none); `InvalidArgument` for 0 points;
/// `OutOfMemory`; a device error.
pub fn fft<T: FloatElement, D: Backend>(
    z: &ComplexTensor<T, D>,
    n: Option<usize>,
    dim: i64,
    norm: Norm,
) -> Result<ComplexTensor<T, D>> {
    c2c("fft", z, n, dim, norm, false)
}

/// The inverse DFT `x_j = (1/n) Σ_k X_k e^{2πijk/n}` (with the default norm) along complex
/// axis `dim` (`torch.fft.ifft`, `numpy.fft.ifft`); `n` as in [`fft`].
///
/// # Errors
/// As [`fft`].
pub fn ifft<T: FloatElement, D: Backend>(
    z: &ComplexTensor<T, D>,
    n: Option<usize>,
    dim: i64,
    norm: Norm,
) -> Result<ComplexTensor<T, D>> {
    c2c("ifft", z, n, dim, norm, true)
}

/// The DFT of the real `x` along `dim`, keeping the `n/2 + 1` non-negative frequencies (the
/// others are their conjugates) (`torch.fft.rfft`, `numpy.fft.rfft`); `x` is first cropped or
/// zero-padded to `n` points (default: its length).
///
/// # Errors
/// As [`fft`] (`dim` counts `x`'s dimensions).
pub fn rfft<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    n: Option<usize>,
    dim: i64,
    norm: Norm,
) -> Result<ComplexTensor<T, D>> {
    const OP: &str = "rfft";
    let ax = x.shape().axis(OP, dim)?;
    let n = n.unwrap_or(x.dims()[ax]);
    check_points(OP, n, x.shape())?;
    let out = kernel::r2c(OP, &resize(x, ax, n)?, ax, norm.scale(n, false))?;
    ComplexTensor::from_pairs(&out)
}

/// The real signal of `n` points whose [`rfft`] is `z` along `dim` (`torch.fft.irfft`,
/// `numpy.fft.irfft`): `z` is cropped or zero-padded to `n/2 + 1` bins, the other bins are
/// their conjugates, and the imaginary parts of the zero (and, for even `n`, the `n/2`)
/// frequency are ignored. `n` defaults to `2(m - 1)` for `m` bins.
///
/// # Errors
/// As [`fft`]; `InvalidArgument` when `n` is 0 (given, or one bin without `n`).
pub fn irfft<T: FloatElement, D: Backend>(
    z: &ComplexTensor<T, D>,
    n: Option<usize>,
    dim: i64,
    norm: Norm,
) -> Result<Tensor<T, D>> {
    c2r("irfft", z, n, dim, norm)
}

fn c2r<T: FloatElement, D: Backend>(
    op: &'static str,
    z: &ComplexTensor<T, D>,
    n: Option<usize>,
    dim: i64,
    norm: Norm,
) -> Result<Tensor<T, D>> {
    let ax = z.shape().axis(op, dim)?;
    let n = n.unwrap_or(2 * z.dims()[ax].saturating_sub(1));
    check_points(op, n, &z.shape())?;
    let half = resize(z.pairs(), ax, n / 2 + 1)?;
    kernel::c2r(op, &half, ax, n, norm.scale(n, true))
}

/// The real signal of `n` points with the Hermitian-symmetric spectrum whose first half is `z`
/// (`torch.fft.hfft`, `numpy.fft.hfft`): [`irfft`] of `conj(z)` with the norm's forward scaling.
///
/// # Errors
/// As [`irfft`].
pub fn hfft<T: FloatElement, D: Backend>(
    z: &ComplexTensor<T, D>,
    n: Option<usize>,
    dim: i64,
    norm: Norm,
) -> Result<Tensor<T, D>> {
    c2r("hfft", &z.conj()?, n, dim, norm.swapped())
}

/// The inverse of [`hfft`]: the `n/2 + 1` bins of the inverse DFT of the real `x`
/// (`torch.fft.ihfft`, `numpy.fft.ihfft`), `conj(rfft(x))` with the norm's backward scaling.
///
/// # Errors
/// As [`rfft`].
pub fn ihfft<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    n: Option<usize>,
    dim: i64,
    norm: Norm,
) -> Result<ComplexTensor<T, D>> {
    rfft(x, n, dim, norm.swapped())?.conj()
}

/// The axes (normalised) and sizes of an n-d transform over `ndim` dimensions of `dims`
/// (PyTorch's rules: `dims` default to the last `s.len()` axes, or all axes without `s`).
fn plan_axes(
    op: &'static str,
    shape: &Shape,
    s: Option<&[usize]>,
    dims: Option<&[i64]>,
) -> Result<Vec<(usize, Option<usize>)>> {
    let ndim = shape.ndim();
    let axes: Vec<usize> = match (dims, s) {
        (Some(d), _) => (d.iter())
            .map(|&a| shape.axis(op, a))
            .collect::<Result<_>>()?,
        (None, Some(s)) if s.len() <= ndim => (ndim - s.len()..ndim).collect(),
        (None, Some(s)) => {
            return Err(Error::InvalidArgument {
                op,
                msg: format!(
                    "s has {} sizes for the {ndim} dimensions of {shape}",
                    s.len()
                ),
            });
        }
        (None, None) => (0..ndim).collect(),
    };
    if let Some(s) = s
        && s.len() != axes.len()
    {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "s has {} sizes for {} dims; give one size per dim",
                s.len(),
                axes.len()
            ),
        });
    }
    for (i, a) in axes.iter().enumerate() {
        if axes[..i].contains(a) {
            return Err(Error::InvalidArgument {
                op,
                msg: format!("dims name axis {a} twice; name each axis once"),
            });
        }
    }
    Ok((axes.iter().enumerate())
        .map(|(i, &a)| (a, s.map(|s| s[i])))
        .collect())
}

/// The DFT over several complex axes (`torch.fft.fftn`, `numpy.fft.fftn`): `s[i]` points along
/// `dims[i]`; `dims` default to the last `s.len()` axes, or every axis without `s`.
///
/// # Errors
/// As [`fft`]; `InvalidArgument` when `s` and `dims` differ in length, `s` is longer than the
/// shape, or an axis is named twice.
pub fn fftn<T: FloatElement, D: Backend>(
    z: &ComplexTensor<T, D>,
    s: Option<&[usize]>,
    dims: Option<&[i64]>,
    norm: Norm,
) -> Result<ComplexTensor<T, D>> {
    c2c_n("fftn", z, s, dims, norm, false)
}

/// The inverse DFT over several complex axes (`torch.fft.ifftn`); arguments as [`fftn`].
///
/// # Errors
/// As [`fftn`].
pub fn ifftn<T: FloatElement, D: Backend>(
    z: &ComplexTensor<T, D>,
    s: Option<&[usize]>,
    dims: Option<&[i64]>,
    norm: Norm,
) -> Result<ComplexTensor<T, D>> {
    c2c_n("ifftn", z, s, dims, norm, true)
}

fn c2c_n<T: FloatElement, D: Backend>(
    op: &'static str,
    z: &ComplexTensor<T, D>,
    s: Option<&[usize]>,
    dims: Option<&[i64]>,
    norm: Norm,
    inverse: bool,
) -> Result<ComplexTensor<T, D>> {
    let mut out = z.clone();
    for (ax, n) in plan_axes(op, &z.shape(), s, dims)? {
        out = c2c(op, &out, n, ax as i64, norm, inverse)?;
    }
    Ok(out)
}

/// [`fftn`] over the last two axes by default (`torch.fft.fft2`).
///
/// # Errors
/// As [`fftn`].
pub fn fft2<T: FloatElement, D: Backend>(
    z: &ComplexTensor<T, D>,
    s: Option<&[usize]>,
    dims: Option<&[i64]>,
    norm: Norm,
) -> Result<ComplexTensor<T, D>> {
    fftn(z, s, Some(dims.unwrap_or(&[-2, -1])), norm)
}

/// [`ifftn`] over the last two axes by default (`torch.fft.ifft2`).
///
/// # Errors
/// As [`fftn`].
pub fn ifft2<T: FloatElement, D: Backend>(
    z: &ComplexTensor<T, D>,
    s: Option<&[usize]>,
    dims: Option<&[i64]>,
    norm: Norm,
) -> Result<ComplexTensor<T, D>> {
    ifftn(z, s, Some(dims.unwrap_or(&[-2, -1])), norm)
}

/// The DFT of the real `x` over several axes, keeping half of the last one (`n/2 + 1` bins)
/// (`torch.fft.rfftn`, `numpy.fft.rfftn`); arguments as [`fftn`].
///
/// # Errors
/// As [`fftn`]; `InvalidArgument` for no axis.
pub fn rfftn<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    s: Option<&[usize]>,
    dims: Option<&[i64]>,
    norm: Norm,
) -> Result<ComplexTensor<T, D>> {
    const OP: &str = "rfftn";
    let plan = plan_axes(OP, x.shape(), s, dims)?;
    let Some(&(last, n)) = plan.last() else {
        return Err(no_axes(OP));
    };
    let mut out = rfft(x, n, last as i64, norm)?;
    for &(ax, n) in &plan[..plan.len() - 1] {
        out = c2c(OP, &out, n, ax as i64, norm, false)?;
    }
    Ok(out)
}

/// The real signal whose [`rfftn`] is `z` (`torch.fft.irfftn`, `numpy.fft.irfftn`): inverse
/// DFTs over all but the last axis, then [`irfft`] along it, with `s[-1]` points (default
/// `2(m - 1)`).
///
/// # Errors
/// As [`rfftn`].
pub fn irfftn<T: FloatElement, D: Backend>(
    z: &ComplexTensor<T, D>,
    s: Option<&[usize]>,
    dims: Option<&[i64]>,
    norm: Norm,
) -> Result<Tensor<T, D>> {
    const OP: &str = "irfftn";
    let plan = plan_axes(OP, &z.shape(), s, dims)?;
    let Some(&(last, n)) = plan.last() else {
        return Err(no_axes(OP));
    };
    let mut out = z.clone();
    for &(ax, n) in &plan[..plan.len() - 1] {
        out = c2c(OP, &out, n, ax as i64, norm, true)?;
    }
    c2r(OP, &out, n, last as i64, norm)
}

/// [`rfftn`] over the last two axes by default (`torch.fft.rfft2`).
///
/// # Errors
/// As [`rfftn`].
pub fn rfft2<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    s: Option<&[usize]>,
    dims: Option<&[i64]>,
    norm: Norm,
) -> Result<ComplexTensor<T, D>> {
    rfftn(x, s, Some(dims.unwrap_or(&[-2, -1])), norm)
}

/// [`irfftn`] over the last two axes by default (`torch.fft.irfft2`).
///
/// # Errors
/// As [`rfftn`].
pub fn irfft2<T: FloatElement, D: Backend>(
    z: &ComplexTensor<T, D>,
    s: Option<&[usize]>,
    dims: Option<&[i64]>,
    norm: Norm,
) -> Result<Tensor<T, D>> {
    irfftn(z, s, Some(dims.unwrap_or(&[-2, -1])), norm)
}

/// The real signal whose spectrum over several axes is Hermitian-symmetric with first half `z`
/// (`torch.fft.hfftn`): [`irfftn`] of `conj(z)` with the norm's forward scaling; `s[-1]`
/// points along the last axis (default `2(m - 1)`).
///
/// # Errors
/// As [`irfftn`].
pub fn hfftn<T: FloatElement, D: Backend>(
    z: &ComplexTensor<T, D>,
    s: Option<&[usize]>,
    dims: Option<&[i64]>,
    norm: Norm,
) -> Result<Tensor<T, D>> {
    irfftn(&z.conj()?, s, dims, norm.swapped())
}

/// The inverse of [`hfftn`] (`torch.fft.ihfftn`): `conj(rfftn(x))` with the norm's backward
/// scaling.
///
/// # Errors
/// As [`rfftn`].
pub fn ihfftn<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    s: Option<&[usize]>,
    dims: Option<&[i64]>,
    norm: Norm,
) -> Result<ComplexTensor<T, D>> {
    rfftn(x, s, dims, norm.swapped())?.conj()
}

/// [`hfftn`] over the last two axes by default (`torch.fft.hfft2`).
///
/// # Errors
/// As [`irfftn`].
pub fn hfft2<T: FloatElement, D: Backend>(
    z: &ComplexTensor<T, D>,
    s: Option<&[usize]>,
    dims: Option<&[i64]>,
    norm: Norm,
) -> Result<Tensor<T, D>> {
    hfftn(z, s, Some(dims.unwrap_or(&[-2, -1])), norm)
}

/// [`ihfftn`] over the last two axes by default (`torch.fft.ihfft2`).
///
/// # Errors
/// As [`rfftn`].
pub fn ihfft2<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    s: Option<&[usize]>,
    dims: Option<&[i64]>,
    norm: Norm,
) -> Result<ComplexTensor<T, D>> {
    ihfftn(x, s, Some(dims.unwrap_or(&[-2, -1])), norm)
}

fn no_axes(op: &'static str) -> Error {
    Error::InvalidArgument {
        op,
        msg: "needs at least one axis to transform (a 0-d input, or empty dims)".into(),
    }
}

/// The frequencies of the `n` bins of [`fft`] for samples `d` apart, in cycles per unit of
/// `d`: `[0, 1, ..., ⌈n/2⌉ - 1, -⌊n/2⌋, ..., -1] / (d·n)` (`torch.fft.fftfreq`,
/// `numpy.fft.fftfreq`); empty for `n = 0`.
///
/// # Errors
/// `OutOfMemory`; a device error.
pub fn fftfreq_on<T: FloatElement, D: Backend>(
    n: usize,
    d: f64,
    device: &D,
) -> Result<Tensor<T, D>> {
    let scale = 1.0 / (d * n as f64);
    let v = crate::alloc::collect(
        "fftfreq",
        n,
        (0..n).map(|i| {
            let k = if i < n.div_ceil(2) {
                i as f64
            } else {
                i as f64 - n as f64
            };
            T::from_f64(k * scale)
        }),
    )?;
    Tensor::from_vec_on(v, [n], device)
}

/// [`fftfreq_on`] on the CPU.
///
/// # Errors
/// As [`fftfreq_on`].
pub fn fftfreq<T: FloatElement>(n: usize, d: f64) -> Result<Tensor<T>> {
    fftfreq_on(n, d, &crate::device::Cpu)
}

/// The frequencies of the `n/2 + 1` bins of [`rfft`] for `n` samples `d` apart:
/// `[0, 1, ..., ⌊n/2⌋] / (d·n)` (`torch.fft.rfftfreq`, `numpy.fft.rfftfreq`).
///
/// # Errors
/// As [`fftfreq_on`].
pub fn rfftfreq_on<T: FloatElement, D: Backend>(
    n: usize,
    d: f64,
    device: &D,
) -> Result<Tensor<T, D>> {
    let scale = 1.0 / (d * n as f64);
    let len = n / 2 + 1;
    let v = crate::alloc::collect(
        "rfftfreq",
        len,
        (0..len).map(|i| T::from_f64(i as f64 * scale)),
    )?;
    Tensor::from_vec_on(v, [len], device)
}

/// [`rfftfreq_on`] on the CPU.
///
/// # Errors
/// As [`fftfreq_on`].
pub fn rfftfreq<T: FloatElement>(n: usize, d: f64) -> Result<Tensor<T>> {
    rfftfreq_on(n, d, &crate::device::Cpu)
}

/// `x` rolled by `⌊n/2⌋` along each of `dims` (all axes for `None`), so the zero frequency
/// moves to the centre (`torch.fft.fftshift`, `numpy.fft.fftshift`); any dtype. For a
/// spectrum use [`ComplexTensor::fftshift`], which never rolls the pairs' axis.
///
/// # Errors
/// `Axis` for a bad dim; `OutOfMemory`.
pub fn fftshift<T: Element, D: Backend>(
    x: &Tensor<T, D>,
    dims: Option<&[i64]>,
) -> Result<Tensor<T, D>> {
    shift(x, &shift_axes(x.shape(), dims)?, false)
}

/// The inverse of [`fftshift`]: rolls by `-⌊n/2⌋` (`torch.fft.ifftshift`).
///
/// # Errors
/// As [`fftshift`].
pub fn ifftshift<T: Element, D: Backend>(
    x: &Tensor<T, D>,
    dims: Option<&[i64]>,
) -> Result<Tensor<T, D>> {
    shift(x, &shift_axes(x.shape(), dims)?, true)
}

/// The axes of `shape` a shift rolls: `dims` normalised, or all of them.
pub(crate) fn shift_axes(shape: &Shape, dims: Option<&[i64]>) -> Result<Vec<i64>> {
    match dims {
        Some(d) => (d.iter())
            .map(|&a| shape.axis("fftshift", a).map(|a| a as i64))
            .collect(),
        None => Ok((0..shape.ndim() as i64).collect()),
    }
}

pub(crate) fn shift<T: Element, D: Backend>(
    x: &Tensor<T, D>,
    axes: &[i64],
    inverse: bool,
) -> Result<Tensor<T, D>> {
    let mut out = x.clone();
    for &a in axes {
        let half = (x.dims()[a as usize] / 2) as i64;
        out = out.try_roll(if inverse { -half } else { half }, a)?;
    }
    Ok(out)
}
