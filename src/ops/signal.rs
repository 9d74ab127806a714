//! Window functions for spectral analysis (PyTorch `hann_window`, `hamming_window`,
//! `blackman_window`, `bartlett_window`, `kaiser_window`; NumPy `hanning`, `hamming`,
//! `blackman`, `bartlett`, `kaiser` are their `periodic = false` forms), computed in f64 on the
//! host and copied to the device once.
//!
//! A window of length `L` is symmetric (`periodic = false`: `w[n] = w[L - 1 - n]`), or
//! periodic (the first `L` values of the symmetric window of length `L + 1`, as spectral
//! analysis with an `L`-point FFT wants). Length 0 is empty and length 1 is `[1]`.
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let w = Tensor::<f64>::hann_window(4, false)?; // 0.5 - 0.5·cos(2πn/3)
//! assert_eq!(w.to_vec()[0], 0.0);
//! assert!((w.to_vec()[1] - 0.75).abs() < 1e-15);
//! let p = Tensor::<f32>::hann_window(4, true)?; // cos(2πn/4)
//! assert_eq!(p.to_vec(), vec![0.0, 0.5, 1.0, 0.5]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::device::Cpu;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use std::f64::consts::TAU;

/// A window of `len` values `f(n, m)`, `m = N - 1` for the symmetric length `N` (`len`, or
/// `len + 1` when periodic).
fn window<T: FloatElement, D: Backend>(
    op: &'static str,
    len: usize,
    periodic: bool,
    device: &D,
    f: impl Fn(f64, f64) -> f64,
) -> Result<Tensor<T, D>> {
    if len == 1 {
        return Tensor::from_vec_on(vec![T::ONE], [1], device);
    }
    let m = if periodic {
        len as f64
    } else {
        len as f64 - 1.0
    };
    let v = crate::alloc::collect(op, len, (0..len).map(|n| T::from_f64(f(n as f64, m))))?;
    Tensor::from_vec_on(v, [len], device)
}

/// `alpha - beta·cos(2πn/m)`.
fn cosine_sum(alpha: f64, beta: f64) -> impl Fn(f64, f64) -> f64 {
    move |n, m| alpha - beta * (TAU * n / m).cos()
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// The Hann window `0.5 - 0.5·cos(2πn/(N - 1))` of `len` values on `device` (PyTorch
    /// `hann_window`; NumPy `hanning` when not `periodic`).
    ///
    /// # Errors
    /// `OutOfMemory` (or a device error) when `len` values cannot be allocated.
    pub fn hann_window_on(len: usize, periodic: bool, device: &D) -> Result<Self> {
        window("hann_window", len, periodic, device, cosine_sum(0.5, 0.5))
    }

    /// The Hamming window `0.54 - 0.46·cos(2πn/(N - 1))` (PyTorch `hamming_window` with its
    /// default coefficients; NumPy `hamming` when not `periodic`).
    ///
    /// # Errors
    /// As [`Tensor::hann_window_on`].
    pub fn hamming_window_on(len: usize, periodic: bool, device: &D) -> Result<Self> {
        Self::general_hamming_window_on(len, periodic, 0.54, 0.46, device)
    }

    /// The generalised Hamming window `alpha - beta·cos(2πn/(N - 1))` (PyTorch
    /// `hamming_window(L, periodic, alpha, beta)`).
    ///
    /// # Errors
    /// As [`Tensor::hann_window_on`]; `InvalidArgument` for a coefficient that is not finite.
    pub fn general_hamming_window_on(
        len: usize,
        periodic: bool,
        alpha: f64,
        beta: f64,
        device: &D,
    ) -> Result<Self> {
        if !alpha.is_finite() || !beta.is_finite() {
            return Err(Error::InvalidArgument {
                op: "hamming_window",
                msg: format!("alpha and beta must be finite, got {alpha} and {beta}"),
            });
        }
        window(
            "hamming_window",
            len,
            periodic,
            device,
            cosine_sum(alpha, beta),
        )
    }

    /// The Blackman window `0.42 - 0.5·cos(2πn/(N - 1)) + 0.08·cos(4πn/(N - 1))` (PyTorch
    /// `blackman_window`; NumPy `blackman` when not `periodic`).
    ///
    /// # Errors
    /// As [`Tensor::hann_window_on`].
    pub fn blackman_window_on(len: usize, periodic: bool, device: &D) -> Result<Self> {
        window("blackman_window", len, periodic, device, |n, m| {
            // PyTorch's order of terms, which makes the ends exactly 0.
            0.08 * (2.0 * TAU * n / m).cos() - 0.5 * (TAU * n / m).cos() + 0.42
        })
    }

    /// The Bartlett (triangular) window `1 - |2n/(N - 1) - 1|` (PyTorch `bartlett_window`;
    /// NumPy `bartlett` when not `periodic`).
    ///
    /// # Errors
    /// As [`Tensor::hann_window_on`].
    pub fn bartlett_window_on(len: usize, periodic: bool, device: &D) -> Result<Self> {
        window("bartlett_window", len, periodic, device, |n, m| {
            1.0 - (2.0 * n / m - 1.0).abs()
        })
    }

    /// The Kaiser window `I₀(β·√(1 - ((n - a)/a)²)) / I₀(β)` with `a = (N - 1)/2` (PyTorch
    /// `kaiser_window`, whose default `beta` is 12; NumPy `kaiser(L, beta)` when not
    /// `periodic`).
    ///
    /// # Errors
    /// As [`Tensor::hann_window_on`]; `InvalidArgument` for a negative or non-finite `beta`.
    pub fn kaiser_window_on(len: usize, periodic: bool, beta: f64, device: &D) -> Result<Self> {
        if !(beta >= 0.0 && beta.is_finite()) {
            return Err(Error::InvalidArgument {
                op: "kaiser_window",
                msg: format!("beta must be finite and non-negative, got {beta}"),
            });
        }
        let i0 = crate::ops::special::i0;
        let scale = i0(beta);
        window("kaiser_window", len, periodic, device, |n, m| {
            let r = (n - m / 2.0) / (m / 2.0);
            i0(beta * (1.0 - r * r).max(0.0).sqrt()) / scale
        })
    }
}

impl<T: FloatElement> Tensor<T, Cpu> {
    /// [`Tensor::hann_window_on`] the CPU.
    ///
    /// # Errors
    /// As [`Tensor::hann_window_on`].
    pub fn hann_window(len: usize, periodic: bool) -> Result<Self> {
        Self::hann_window_on(len, periodic, &Cpu)
    }

    /// [`Tensor::hamming_window_on`] the CPU.
    ///
    /// # Errors
    /// As [`Tensor::hann_window_on`].
    pub fn hamming_window(len: usize, periodic: bool) -> Result<Self> {
        Self::hamming_window_on(len, periodic, &Cpu)
    }

    /// [`Tensor::blackman_window_on`] the CPU.
    ///
    /// # Errors
    /// As [`Tensor::hann_window_on`].
    pub fn blackman_window(len: usize, periodic: bool) -> Result<Self> {
        Self::blackman_window_on(len, periodic, &Cpu)
    }

    /// [`Tensor::bartlett_window_on`] the CPU.
    ///
    /// # Errors
    /// As [`Tensor::hann_window_on`].
    pub fn bartlett_window(len: usize, periodic: bool) -> Result<Self> {
        Self::bartlett_window_on(len, periodic, &Cpu)
    }

    /// [`Tensor::kaiser_window_on`] the CPU.
    ///
    /// # Errors
    /// As [`Tensor::kaiser_window_on`].
    pub fn kaiser_window(len: usize, periodic: bool, beta: f64) -> Result<Self> {
        Self::kaiser_window_on(len, periodic, beta, &Cpu)
    }
}
