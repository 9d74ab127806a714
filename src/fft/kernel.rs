//! The three transforms every FFT here is made of, along one axis: complex to complex, real
//! to half-spectrum and half-spectrum to real. Computed on the host by `rustfft` and
//! `realfft`, in f64 for f64 tensors and in f32 for the others (as PyTorch's and NumPy's f32
//! transforms; the 16-bit types gain nothing from more), each line read from the input and
//! written to the output by the task that transforms it; each recorded with its adjoint.

use crate::backend::Backend;
use crate::device::Cpu;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use parking_lot::Mutex;
use rayon::prelude::*;
use realfft::{ComplexToReal, RealFftPlanner, RealToComplex};
use rustfft::num_complex::Complex;
use rustfft::{Fft, FftPlanner};
use std::sync::{Arc, OnceLock};

/// What a line transform does (`n` real or complex points).
#[derive(Clone, Copy)]
enum Kind {
    /// `n` complex values to `n`, forward or `inverse`.
    C2c { inverse: bool },
    /// `n` reals to `n/2 + 1` complex values (the forward DFT's non-negative frequencies).
    R2c,
    /// `n/2 + 1` complex values to `n` reals (the inverse DFT of the Hermitian spectrum they
    /// begin; the imaginary parts of its zero and, for even `n`, `n/2` bins are ignored).
    C2r,
}

impl Kind {
    /// The `T` values a line takes and gives.
    fn widths(self, n: usize) -> (usize, usize) {
        let half = 2 * (n / 2 + 1);
        match self {
            Kind::C2c { .. } => (2 * n, 2 * n),
            Kind::R2c => (n, half),
            Kind::C2r => (half, n),
        }
    }
}

/// The precision a transform runs in, with its planners (shared by all threads; the plans
/// they cache are reused).
trait Real: rustfft::FftNum + realfft::FftNum {
    fn of_f64(v: f64) -> Self;
    fn as_f64(self) -> f64;
    fn planners() -> &'static (Mutex<FftPlanner<Self>>, Mutex<RealFftPlanner<Self>>);
}

macro_rules! real {
    ($f:ty) => {
        impl Real for $f {
            fn of_f64(v: f64) -> Self {
                v as $f
            }
            fn as_f64(self) -> f64 {
                f64::from(self)
            }
            fn planners() -> &'static (Mutex<FftPlanner<$f>>, Mutex<RealFftPlanner<$f>>) {
                static P: OnceLock<(Mutex<FftPlanner<$f>>, Mutex<RealFftPlanner<$f>>)> =
                    OnceLock::new();
                P.get_or_init(|| {
                    let complex = Mutex::new(FftPlanner::new());
                    (complex, Mutex::new(RealFftPlanner::new()))
                })
            }
        }
    };
}
real!(f32);
real!(f64);

/// A planned transform of one length in precision `F`.
enum Plan<F: Real> {
    C2c(Arc<dyn Fft<F>>),
    R2c(Arc<dyn RealToComplex<F>>),
    C2r(Arc<dyn ComplexToReal<F>>),
}

fn plan<F: Real>(kind: Kind, n: usize) -> Plan<F> {
    let (complex, real) = F::planners();
    match kind {
        Kind::C2c { inverse } => {
            let mut p = complex.lock();
            Plan::C2c(if inverse {
                p.plan_fft_inverse(n)
            } else {
                p.plan_fft_forward(n)
            })
        }
        Kind::R2c => Plan::R2c(real.lock().plan_fft_forward(n)),
        Kind::C2r => Plan::C2r(real.lock().plan_fft_inverse(n)),
    }
}

/// One task's buffers: a complex line, a real line and the plan's scratch.
struct Buffers<F> {
    complex: Vec<Complex<F>>,
    real: Vec<F>,
    scratch: Vec<Complex<F>>,
}

impl<F: Real> Plan<F> {
    fn buffers(&self, op: &'static str, n: usize) -> Result<Buffers<F>> {
        let zero = Complex::new(F::zero(), F::zero());
        let (complex, real, scratch) = match self {
            Plan::C2c(f) => (n, 0, f.get_inplace_scratch_len()),
            Plan::R2c(f) => (n / 2 + 1, n, f.get_scratch_len()),
            Plan::C2r(f) => (n / 2 + 1, n, f.get_scratch_len()),
        };
        Ok(Buffers {
            complex: crate::alloc::try_vec(op, complex, zero)?,
            real: crate::alloc::try_vec(op, real, F::zero())?,
            scratch: crate::alloc::try_vec(op, scratch, zero)?,
        })
    }

    /// Transforms one line `src` into `dst`, times `scale`.
    fn line<T: FloatElement>(&self, src: &[T], dst: &mut [T], b: &mut Buffers<F>, scale: f64) {
        let lo = |v: T| F::of_f64(v.to_f64());
        let hi = |v: F| T::from_f64(v.as_f64() * scale);
        let pairs = |src: &[T], to: &mut [Complex<F>]| {
            for (c, p) in to.iter_mut().zip(src.chunks_exact(2)) {
                *c = Complex::new(lo(p[0]), lo(p[1]));
            }
        };
        let unpair = |from: &[Complex<F>], dst: &mut [T]| {
            for (c, p) in from.iter().zip(dst.chunks_exact_mut(2)) {
                p[0] = hi(c.re);
                p[1] = hi(c.im);
            }
        };
        // The buffers have the plans' lengths, so the calls cannot fail.
        match self {
            Plan::C2c(f) => {
                pairs(src, &mut b.complex);
                f.process_with_scratch(&mut b.complex, &mut b.scratch);
                unpair(&b.complex, dst);
            }
            Plan::R2c(f) => {
                for (r, &s) in b.real.iter_mut().zip(src) {
                    *r = lo(s);
                }
                let done = f.process_with_scratch(&mut b.real, &mut b.complex, &mut b.scratch);
                debug_assert!(done.is_ok());
                unpair(&b.complex, dst);
            }
            Plan::C2r(f) => {
                pairs(src, &mut b.complex);
                // Ignored, as NumPy and PyTorch ignore them (realfft asks for zeros).
                b.complex[0].im = F::zero();
                if b.real.len().is_multiple_of(2) {
                    b.complex[b.real.len() / 2].im = F::zero();
                }
                let done = f.process_with_scratch(&mut b.complex, &mut b.real, &mut b.scratch);
                debug_assert!(done.is_ok());
                for (d, &r) in dst.iter_mut().zip(&b.real) {
                    *d = hi(r);
                }
            }
        }
    }
}

/// `x` (its transformed axis last, the pairs' axis after it for complex input) transformed
/// line by line: a new tensor of `x`'s shape with the axis (and pairs) of the output's width.
fn lines<T: FloatElement, D: Backend>(
    op: &'static str,
    kind: Kind,
    x: &Tensor<T, D>,
    n: usize,
    out_dims: Vec<usize>,
    scale: f64,
) -> Result<Tensor<T, D>> {
    // Every element is written by the line that holds it, so it is not zeroed first.
    let mut out = Tensor::<T, Cpu>::for_overwrite(op, crate::shape::Shape::new(out_dims))?;
    if out.numel() > 0 {
        // The input holds a line of `n` points, so these widths do not overflow (an empty
        // tensor's `n` may be 2^63: it returns above).
        let (w_in, w_out) = kind.widths(n);
        let host = D::to_host(x)?.try_contiguous()?;
        let (src, mut dst) = (host.data()?, out.data_mut()?);
        match T::DTYPE {
            crate::dtype::Dtype::Float64 => run(
                op,
                plan::<f64>(kind, n),
                &src,
                &mut dst,
                n,
                w_in,
                w_out,
                scale,
            ),
            _ => run(
                op,
                plan::<f32>(kind, n),
                &src,
                &mut dst,
                n,
                w_in,
                w_out,
                scale,
            ),
        }?;
    }
    D::from_host(&out, x.device_handle())
}

/// Every line of `src` (`w_in` values each) transformed into `dst` (`w_out` each) by `plan`,
/// in rayon tasks of about 2^15 values, one set of buffers each.
#[allow(clippy::too_many_arguments)]
fn run<T: FloatElement, F: Real>(
    op: &'static str,
    plan: Plan<F>,
    src: &[T],
    dst: &mut [T],
    n: usize,
    w_in: usize,
    w_out: usize,
    scale: f64,
) -> Result<()> {
    let per_task = (1 << 15) / w_out.max(1) + 1;
    (src.par_chunks(per_task * w_in))
        .zip(dst.par_chunks_mut(per_task * w_out))
        .try_for_each(|(s, d)| -> Result<()> {
            let mut b = plan.buffers(op, n)?;
            for (s, d) in s.chunks_exact(w_in).zip(d.chunks_exact_mut(w_out)) {
                plan.line(s, d, &mut b, scale);
            }
            Ok(())
        })
}

/// `t` with its axis `ax` moved to position `to` (a view), outside the graph.
fn moved<T: FloatElement, D: Backend>(
    t: &Tensor<T, D>,
    ax: usize,
    to: usize,
) -> Result<Tensor<T, D>> {
    t.movedim(&[ax as i64], &[to as i64])
}

/// The DFT of the complex pairs `z` (`(..., 2)`) along its axis `ax` (not the last), times
/// `scale`: `Σ_k z_k e^{∓2πijk/n}` (`-` forward, `+` `inverse`). Recorded with its adjoint,
/// the same transform the other way with the same scale (the DFT matrix is symmetric, so its
/// adjoint is its conjugate).
pub(super) fn dft<T: FloatElement, D: Backend>(
    op: &'static str,
    z: &Tensor<T, D>,
    ax: usize,
    inverse: bool,
    scale: f64,
) -> Result<Tensor<T, D>> {
    let last = z.ndim() - 2;
    let out = crate::autograd::no_grad(|| {
        let m = moved(z, ax, last)?;
        let n = m.dims()[last];
        let out = lines(op, Kind::C2c { inverse }, &m, n, m.dims().to_vec(), scale)?;
        moved(&out, last, ax)
    })?;
    Ok(crate::autograd::linear(op, z, out, move |g| {
        dft(op, g, ax, !inverse, scale)
    }))
}

/// The `n/2 + 1` non-negative frequencies of the DFT of the real `x` along `ax` (of length
/// `n > 0`), times `scale`, as pairs (`x`'s shape with `n/2 + 1` along `ax`, then 2).
///
/// Adjoint: `Re(Σ_{k ≤ n/2} ḡ_k e^{2πijk/n})`, the [`c2r`] of `ḡ` with the bins other than 0
/// and `n/2` halved (`c2r` counts each of them twice, for its conjugate).
pub(super) fn r2c<T: FloatElement, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    ax: usize,
    scale: f64,
) -> Result<Tensor<T, D>> {
    let last = x.ndim() - 1;
    let n = x.dims()[ax];
    let out = crate::autograd::no_grad(|| {
        let m = moved(x, ax, last)?;
        let mut dims = m.dims().to_vec();
        dims[last] = n / 2 + 1;
        dims.push(2);
        moved(&lines(op, Kind::R2c, &m, n, dims, scale)?, last, ax)
    })?;
    let x_dims = x.dims().to_vec();
    Ok(crate::autograd::linear(op, x, out, move |g| {
        if g.numel() == 0 {
            // No weights of `n/2 + 1` bins for no values (`n` may be huge on an empty axis).
            return Tensor::zeros_on(x_dims.clone(), g.device_handle());
        }
        let w = bin_weights(g.device_handle(), g.ndim(), ax, n, 0.5)?;
        c2r(op, &g.try_mul(&w)?, ax, n, scale)
    }))
}

/// The `n` reals whose DFT has the Hermitian half-spectrum `z` (pairs with `n/2 + 1` bins
/// along `ax`), `Σ_k ext(z)_k e^{2πijk/n}` times `scale`; the imaginary parts of bins 0 and
/// (even `n`) `n/2` are ignored.
///
/// Adjoint: [`r2c`] of `ḡ` with the bins other than 0 and `n/2` doubled; their imaginary
/// parts get 0, as they are ignored.
pub(super) fn c2r<T: FloatElement, D: Backend>(
    op: &'static str,
    z: &Tensor<T, D>,
    ax: usize,
    n: usize,
    scale: f64,
) -> Result<Tensor<T, D>> {
    let last = z.ndim() - 2;
    if z.dims()[ax] != n / 2 + 1 {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "{} bins for {n} points (a bug: they are resized first)",
                z.dims()[ax]
            ),
        });
    }
    let out = crate::autograd::no_grad(|| {
        let m = moved(z, ax, last)?;
        let mut dims = m.dims()[..last + 1].to_vec();
        dims[last] = n;
        moved(&lines(op, Kind::C2r, &m, n, dims, scale)?, last, ax)
    })?;
    let z_dims = z.dims().to_vec();
    Ok(crate::autograd::linear(op, z, out, move |g| {
        if g.numel() == 0 {
            return Tensor::zeros_on(z_dims.clone(), g.device_handle());
        }
        let w = bin_weights(g.device_handle(), g.ndim() + 1, ax, n, 2.0)?;
        r2c(op, g, ax, scale)?.try_mul(&w)
    }))
}

/// `w` at the bins `1..(n+1)/2` of a half spectrum (those with a conjugate among the others),
/// 1 at bin 0 and (even `n`) `n/2`: shaped to broadcast over pairs of rank `rank` whose axis
/// `ax` has the `n/2 + 1` bins.
fn bin_weights<T: FloatElement, D: Backend>(
    device: &D,
    rank: usize,
    ax: usize,
    n: usize,
    w: f64,
) -> Result<Tensor<T, D>> {
    let bins = n / 2 + 1;
    let v = crate::alloc::collect(
        "fft",
        bins,
        (0..bins).map(|k| {
            if k == 0 || 2 * k == n {
                T::ONE
            } else {
                T::from_f64(w)
            }
        }),
    )?;
    let mut dims = vec![1; rank];
    dims[ax] = bins;
    Tensor::from_vec_on(v, dims, device)
}
