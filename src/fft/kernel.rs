//! The one transform every FFT here is made of: a complex DFT along one axis, computed on the
//! host in f64 by `rustfft` (instantiated once, for f64), and recorded with its adjoint.

use crate::backend::Backend;
use crate::device::Cpu;
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::tensor::Tensor;
use parking_lot::Mutex;
use rayon::prelude::*;
use rustfft::num_complex::Complex;
use rustfft::{Fft, FftPlanner};
use std::sync::{Arc, OnceLock};

/// The plans made so far (`rustfft` caches them by length and direction).
fn plan(n: usize, inverse: bool) -> Arc<dyn Fft<f64>> {
    static PLANNER: OnceLock<Mutex<FftPlanner<f64>>> = OnceLock::new();
    let mut planner = PLANNER.get_or_init(|| Mutex::new(FftPlanner::new())).lock();
    if inverse {
        planner.plan_fft_inverse(n)
    } else {
        planner.plan_fft_forward(n)
    }
}

/// Transforms each run of `n` complex values of `lines` (interleaved real and imaginary parts,
/// `2n` values a line) in place, unnormalised, then multiplies by `scale`. `n > 0`.
fn transform_lines(
    op: &'static str,
    lines: Vec<f64>,
    n: usize,
    inverse: bool,
    scale: f64,
) -> Result<Vec<f64>> {
    let count = lines.len() / (2 * n);
    let mut data: Vec<Complex<f64>> = crate::alloc::collect(
        op,
        count * n,
        lines.chunks_exact(2).map(|p| Complex::new(p[0], p[1])),
    )?;
    drop(lines);
    let fft = plan(n, inverse);
    let scratch_len = fft.get_inplace_scratch_len();
    // Lines in tasks of about 2^16 values: one scratch buffer each.
    let per_task = (1 << 16) / n + 1;
    let tasks: Vec<&mut [Complex<f64>]> = data.chunks_mut(per_task * n).collect();
    tasks.into_par_iter().try_for_each(|chunk| -> Result<()> {
        let mut scratch = crate::alloc::try_vec(op, scratch_len, Complex::new(0.0, 0.0))?;
        fft.process_with_scratch(chunk, &mut scratch);
        if scale != 1.0 {
            chunk.iter_mut().for_each(|c| *c *= scale);
        }
        Ok(())
    })?;
    crate::alloc::collect(op, 2 * count * n, data.iter().flat_map(|c| [c.re, c.im]))
}

/// The DFT of the complex pairs `z` (`(..., 2)`) along its axis `ax` (not the last), times
/// `scale`: `Σ_k z_k e^{∓2πijk/n}` (`-` forward, `+` `inverse`), computed on the host in f64.
/// The result is recorded with its adjoint, the same transform the other way with the same
/// scale (the DFT matrix is symmetric, so its adjoint is its conjugate).
pub(super) fn dft<T: FloatElement, D: Backend>(
    op: &'static str,
    z: &Tensor<T, D>,
    ax: usize,
    inverse: bool,
    scale: f64,
) -> Result<Tensor<T, D>> {
    let last = z.ndim() as i64 - 1;
    let out = crate::autograd::no_grad(|| -> Result<Tensor<T, D>> {
        let moved = z.movedim(&[ax as i64], &[last - 1])?;
        let n = moved.dims()[moved.ndim() - 2];
        let out = if n == 0 || moved.numel() == 0 {
            moved.try_contiguous()?
        } else {
            let host: Vec<f64> = D::to_host(&moved)?.try_cast::<f64>()?.try_to_vec()?;
            let done = transform_lines(op, host, n, inverse, scale)?;
            let done = Tensor::<f64, Cpu>::from_vec(done, moved.dims().to_vec())?;
            D::from_host(&done.try_cast::<T>()?, z.device_handle())?
        };
        out.movedim(&[last - 1], &[ax as i64])
    })?;
    Ok(crate::autograd::linear(op, z, out, move |g| {
        dft(op, g, ax, !inverse, scale)
    }))
}
