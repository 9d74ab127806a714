//! Eigendecomposition of general square matrices and polynomial roots, whose results are
//! complex: NumPy's and PyTorch's `linalg.eig`/`eigvals` and NumPy's `roots`, returning
//! [`ComplexTensor`]s. Computed in f64 by `faer` on the host for every device, like the other
//! factorizations (the `linalg` feature). `eig` and `eigvals` differentiate with PyTorch's
//! `linalg_eig_backward` (written with the complex ops, so it differentiates again); `roots`
//! has no gradient (`backward` through it is an `Err` naming it).
//!
//! ```
//! use typed_tensor::prelude::*;
//! // A rotation by 90°: eigenvalues ±i.
//! let a = tensor![[0.0f64, -1.0], [1.0, 0.0]];
//! let w = a.try_eigvals()?;
//! let mut im = w.imag().to_vec();
//! im.sort_by(f64::total_cmp);
//! assert!((im[0] + 1.0).abs() < 1e-12 && (im[1] - 1.0).abs() < 1e-12);
//! assert!(w.real().to_vec().iter().all(|r| r.abs() < 1e-12));
//! // x² - 3x + 2 = (x - 1)(x - 2).
//! let r = tensor![1.0f64, -3.0, 2.0].try_roots()?;
//! let mut re = r.real().to_vec();
//! re.sort_by(f64::total_cmp);
//! assert!((re[0] - 1.0).abs() < 1e-12 && (re[1] - 2.0).abs() < 1e-12);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::autograd::{Op, record};
use crate::backend::Backend;
use crate::complex::ComplexTensor;
use crate::device::Cpu;
use crate::dtype::{FloatElement, FloatOf, NumElement};
use crate::error::{Error, OrPanic, Result};
use crate::tensor::Tensor;

type Complex<T, D> = ComplexTensor<FloatOf<T>, D>;

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// The eigenvalues `(..., n)` and right eigenvectors `(..., n, n)` (column `j` belongs to
    /// value `j`: `self · v = v · diag(w)`) of each square matrix in the last two dimensions
    /// (NumPy `linalg.eig`, PyTorch `linalg.eig`). Complex even when they are real (PyTorch's
    /// convention; NumPy returns real arrays then). The order is the Schur form's, as LAPACK's
    /// (not sorted); each eigenvector has unit norm, and its largest component real and
    /// positive. An empty stack or `0 × 0` matrices give empty results.
    ///
    /// Differentiable (PyTorch's `linalg_eig_backward`, the real part of its gradient): each
    /// eigenvector is fixed only up to a phase, so a loss must not depend on it (`|V_ij|`,
    /// `V·diag(w)·V⁻¹` do; the real part of a complex eigenvector does not): `backward` is an
    /// `Err` when it does, as PyTorch's. Repeated eigenvalues give infinite gradients.
    ///
    /// # Errors
    /// `InvalidArgument` for non-square input, NaN or infinite entries, a build without the
    /// `linalg` feature, or when the iteration does not converge; `OutOfMemory`.
    #[allow(clippy::type_complexity)]
    pub fn try_eig(&self) -> Result<(Complex<T, D>, Complex<T, D>)> {
        if crate::autograd::recording(&[self]) {
            return eig_recorded(&self.try_cast::<FloatOf<T>>()?);
        }
        let (w, v) = D::to_host(self)?.host_eig()?;
        let up = |t: &Tensor<FloatOf<T>, Cpu>| -> Result<Complex<T, D>> {
            ComplexTensor::from_pairs(&D::from_host(t, &self.device)?)
        };
        Ok((up(&w)?, up(&v)?))
    }

    /// The eigenvalues of [`Tensor::try_eig`] without the vectors (NumPy `linalg.eigvals`,
    /// PyTorch `linalg.eigvals`), shape `(..., n)`.
    ///
    /// # Errors
    /// As [`Tensor::try_eig`].
    pub fn try_eigvals(&self) -> Result<Complex<T, D>> {
        Ok(self.try_eig()?.0)
    }

    /// The roots of the polynomial whose coefficients, highest power first, are this 1-d
    /// tensor (NumPy `roots`): leading zeros are dropped, each trailing zero is a root 0
    /// (listed last), and the others are the eigenvalues of the companion matrix. A constant
    /// (or all-zero) polynomial has no roots: an empty result. Differentiable in the
    /// coefficients (through `eigvals` of the companion matrix; distinct roots, phase-free
    /// losses).
    ///
    /// # Errors
    /// `InvalidArgument` for input that is not 1-d or has NaN or infinite coefficients; as
    /// [`Tensor::try_eig`].
    pub fn try_roots(&self) -> Result<Complex<T, D>> {
        const OP: &str = "roots";
        if self.ndim() != 1 {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!("needs 1-d coefficients, got shape {}", self.shape()),
            });
        }
        let p: Vec<f64> = self.try_to_vec()?.iter().map(|v| v.to_f64()).collect();
        if p.iter().any(|v| !v.is_finite()) {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: "the coefficients have NaN or infinite entries".into(),
            });
        }
        let first = p.iter().position(|&v| v != 0.0).unwrap_or(p.len());
        let last = p.iter().rposition(|&v| v != 0.0).map_or(first, |l| l + 1);
        let (p, zeros) = (&p[first..last], p.len() - last.max(first));
        let n = p.len().saturating_sub(1);
        if n > 0 && crate::autograd::recording(&[self]) {
            return self.roots_recorded(first, n, zeros);
        }
        // The companion matrix: first row -p[1..]/p[0], ones below the diagonal.
        let cells = n.checked_mul(n).ok_or_else(|| Error::ShapeOverflow {
            op: OP,
            dims: vec![n, n],
        })?;
        let mut c = crate::alloc::try_vec(OP, cells, 0.0)?;
        for j in 0..n {
            c[j] = -p[j + 1] / p[0];
            if j + 1 < n {
                c[(j + 1) * n + j] = 1.0;
            }
        }
        let w = Tensor::<f64, Cpu>::from_vec(c, [n, n])?
            .try_eigvals()?
            .into_pairs();
        let w = w
            .try_pad(&[(0, zeros), (0, 0)], 0.0)?
            .try_cast::<FloatOf<T>>()?;
        let w = record(
            D::from_host(&w, &self.device)?,
            Op::NoGrad(OP),
            &[self],
            &[],
        );
        ComplexTensor::from_pairs(&w)
    }

    /// [`Tensor::try_roots`] in the graph: the companion matrix of the `n + 1` coefficients
    /// from `first` built from differentiable ops, its `eigvals` (differentiable), then the
    /// `zeros` roots at 0.
    fn roots_recorded(&self, first: usize, n: usize, zeros: usize) -> Result<Complex<T, D>> {
        let core = self.try_cast::<FloatOf<T>>()?.narrow(0, first, n + 1)?;
        let lead = core.narrow(0, 0, 1)?;
        let row = core
            .narrow(0, 1, n)?
            .try_div(&lead)?
            .try_neg()?
            .unsqueeze(0)?;
        let shift =
            Tensor::<FloatOf<T>, D>::eye_on(n, self.device_handle())?.narrow(0, 0, n - 1)?;
        let w = Tensor::try_concat(&[&row, &shift], 0)?
            .try_eigvals()?
            .into_pairs();
        let zero = <FloatOf<T> as crate::dtype::Element>::ZERO;
        ComplexTensor::from_pairs(&w.try_pad(&[(0, zeros), (0, 0)], zero)?)
    }

    plain_forms! {
        /// [`Tensor::try_eigvals`], panicking with its error.
        eigvals, try_eigvals() -> Complex<T, D>;
        /// [`Tensor::try_roots`], panicking with its error.
        roots, try_roots() -> Complex<T, D>;
    }

    /// [`Tensor::try_eig`], panicking with its error.
    ///
    /// # Panics
    /// When `try_eig` returns an `Err`.
    #[track_caller]
    pub fn eig(&self) -> (Complex<T, D>, Complex<T, D>) {
        self.try_eig().or_panic()
    }
}

/// `eig` in the graph: one packed output `(..., n + 1, n, 2)`, the eigenvectors' pairs then
/// the eigenvalues' as a last row, whose rule is PyTorch's `linalg_eig_backward`; the two
/// results are views of it.
#[allow(clippy::type_complexity)]
fn eig_recorded<F: FloatElement, D: Backend>(
    a: &Tensor<F, D>,
) -> Result<(Complex<F, D>, Complex<F, D>)> {
    let n = a.dims().get(a.ndim().wrapping_sub(1)).copied().unwrap_or(0);
    let packed = crate::autograd::custom(
        "eig",
        &[a],
        |x| {
            let (w, v) = D::to_host(&x[0])?.host_eig()?;
            let packed = Tensor::try_cat(&[&v, &w.unsqueeze(-3)?], -3)?;
            D::from_host(&packed, x[0].device_handle())
        },
        move |g, _, out| Ok(vec![Some(eig_backward(g, out, n)?)]),
    )?;
    let (v, w) = unpack(&packed, n)?;
    Ok((w, v))
}

/// The eigenvectors `(..., n, n)` and eigenvalues `(..., n)` of a packed `(..., n + 1, n, 2)`.
fn unpack<F: FloatElement, D: Backend>(
    p: &Tensor<F, D>,
    n: usize,
) -> Result<(Complex<F, D>, Complex<F, D>)> {
    let v = ComplexTensor::from_pairs(&p.narrow(-3, 0, n)?)?;
    let w = ComplexTensor::from_pairs(&p.narrow(-3, n, 1)?.squeeze_dims(&[-3])?)?;
    Ok((v, w))
}

/// PyTorch's `linalg_eig_backward` for a real input: with `E_ij = conj(λ_j) - conj(λ_i)`,
/// `gA = Re(V⁻ᴴ (diag(gλ) + off-diag((VᴴgV - Vᴴ V diag(Re diag(VᴴgV))) / E)) Vᴴ)`. The
/// eigenvectors are fixed only up to a phase `e^{iφ}` each; a loss that depends on it (the
/// imaginary part of `diag(VᴴgV)` not near 0) has no gradient here, as in PyTorch: an `Err`.
fn eig_backward<F: FloatElement, D: Backend>(
    g: &Tensor<F, D>,
    out: &Tensor<F, D>,
    n: usize,
) -> Result<Tensor<F, D>> {
    const OP: &str = "eig backward";
    let (v, l) = unpack(out, n)?;
    let (gv, gl) = unpack(g, n)?;
    let vh = v.try_conj_transpose()?;
    let vhgv = vh.try_matmul(&gv)?;
    let diag_re = vhgv.real().diagonal(0)?;
    let diag_im = vhgv.imag().diagonal(0)?;
    let tol = diag_re
        .try_abs()?
        .try_mul_scalar(F::from_f64(1e-2))?
        .try_add_scalar(F::from_f64(1e-2))?;
    let phase_free = diag_im
        .try_abs()?
        .try_le(&tol)?
        .try_all(&[], false)?
        .try_item()?;
    if !phase_free {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: "the eigenvectors are fixed only up to a phase e^{iφ} each, and the loss depends on it, so its gradient is not defined (as in PyTorch)".into(),
        });
    }
    // VᴴgV - Vᴴ (V · Re diag(VᴴgV)), the columns of V scaled.
    let scaled = v.try_mul_real(&diag_re.unsqueeze(-2)?)?;
    let inner = vhgv.try_sub(&vh.try_matmul(&scaled)?)?;
    // E = conj(λ_j) - conj(λ_i), 1 on the diagonal (overwritten below).
    let lc = l.conj()?;
    let lc_row = ComplexTensor::from_pairs(&lc.pairs().unsqueeze(-3)?)?;
    let lc_col = ComplexTensor::from_pairs(&lc.pairs().unsqueeze(-2)?)?;
    let eye = Tensor::<F, D>::eye_on(n, g.device_handle())?;
    let e = lc_row.try_sub(&lc_col)?;
    let e = ComplexTensor::new(&e.real().try_add(&eye)?, &e.imag())?;
    // Where the vectors' part is exactly 0 (no loss on V), 0 even between repeated
    // eigenvalues (PyTorch's path without `gV`), not 0/0.
    let unused = (inner.real().try_eq_scalar(F::ZERO)?)
        .try_logical_and(&inner.imag().try_eq_scalar(F::ZERO)?)?;
    let off_diag = eye.try_eq_scalar(F::ZERO)?;
    let keep = off_diag.try_logical_and(&unused.try_logical_not()?)?;
    let zero = Tensor::<F, D>::scalar_on(F::ZERO, g.device_handle())?;
    let off = inner.try_div(&e)?;
    let mid = ComplexTensor::new(
        &Tensor::try_where(&keep, &off.real(), &zero)?.try_add(&gl.real().try_diag_embed()?)?,
        &Tensor::try_where(&keep, &off.imag(), &zero)?.try_add(&gl.imag().try_diag_embed()?)?,
    )?;
    let ga = vh.try_solve(&mid.try_matmul(&vh)?)?;
    Ok(ga.real())
}
