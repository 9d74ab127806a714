//! The backward rules of the spectral factorizations, PyTorch's `svd_backward` and the
//! Hermitian case of `linalg_eig_backward` for real matrices. Each output (`U`, `S`, `Vᵀ`;
//! eigenvalues, eigenvectors) is its own node saving all the factors; the formulas are linear
//! in the output gradients, so each node's share, computed with the others' gradients zero,
//! adds up to PyTorch's gradient. Both hold where the singular values (eigenvalues) are
//! distinct, and for `U`/`Vᵀ` of a non-square matrix where they are non-zero, as in PyTorch.

use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::tensor::Tensor;

/// `x - xᵀ` over the last two axes.
fn skew<F: FloatElement, D: Backend>(x: &Tensor<F, D>) -> Result<Tensor<F, D>> {
    x.try_sub(&x.transpose(-1, -2)?)
}

/// `e[i][j] = v[j] - v[i]` for a stack of vectors `(..., k)`, with ones on the diagonal.
fn gaps<F: FloatElement, D: Backend>(v: &Tensor<F, D>) -> Result<Tensor<F, D>> {
    let e = v.unsqueeze(-2)?.try_sub(&v.unsqueeze(-1)?)?;
    let k = v.dims()[v.ndim() - 1];
    let eye = Tensor::<F, D>::eye_on(k, &v.device)?;
    e.try_add(&eye)
}

/// The gradient of `A = U·diag(S)·Vh` (thin, `U` `(.., m, k)`, `Vh` `(.., k, n)`) from the
/// gradient `g` of output `part` (0: `U`, 1: `S`, 2: `Vh`).
pub(super) fn svd_backward<F: FloatElement, D: Backend>(
    part: u8,
    g: &Tensor<F, D>,
    u: &Tensor<F, D>,
    s: &Tensor<F, D>,
    vh: &Tensor<F, D>,
) -> Result<Tensor<F, D>> {
    let tr = |x: &Tensor<F, D>| x.transpose(-1, -2);
    let (m, n) = (u.dims()[u.ndim() - 2], vh.dims()[vh.ndim() - 1]);
    if u.numel() == 0 || vh.numel() == 0 {
        // An empty stack or matrix: its (empty) gradient, without the k × k gap matrix.
        let mut dims = u.dims()[..u.ndim() - 1].to_vec();
        dims.push(n);
        return Tensor::zeros_on(dims, &g.device);
    }
    if part == 1 {
        // gA = U·diag(gS)·Vh.
        return u.try_mul(&g.unsqueeze(-2)?)?.try_matmul(vh);
    }
    let e = gaps(&s.try_mul(s)?)?;
    let (s_row, s_col) = (s.unsqueeze(-2)?, s.unsqueeze(-1)?);
    if part == 0 {
        let core = skew(&tr(u)?.try_matmul(g)?)?.try_mul(&s_row.try_div(&e)?)?;
        let ua = u.try_matmul(&core)?;
        let ua = if m > n {
            // + (I - U·Uᵀ)·gU·S⁻¹
            let gs = g.try_div(&s_row)?;
            ua.try_add(&gs)?
                .try_sub(&u.try_matmul(&tr(u)?.try_matmul(&gs)?)?)?
        } else {
            ua
        };
        ua.try_matmul(vh)
    } else {
        let core = s_col.try_mul(&skew(&vh.try_matmul(&tr(g)?)?)?.try_div(&e)?)?;
        let av = core.try_matmul(vh)?;
        let av = if m < n {
            // + S⁻¹·gVh·(I - Vᵀ·V)
            let sg = g.try_div(&s_col)?;
            av.try_add(&sg)?
                .try_sub(&sg.try_matmul(&tr(vh)?)?.try_matmul(vh)?)?
        } else {
            av
        };
        u.try_matmul(&av)
    }
}

/// The gradient of `A = V·diag(L)·Vᵀ` (symmetric, eigenvalues `L` ascending) from the
/// gradient `g` of output `part` (0: `L`, 1: `V`); symmetric, as PyTorch's.
pub(super) fn eigh_backward<F: FloatElement, D: Backend>(
    part: u8,
    g: &Tensor<F, D>,
    l: &Tensor<F, D>,
    v: &Tensor<F, D>,
) -> Result<Tensor<F, D>> {
    if v.numel() == 0 {
        return Tensor::zeros_on(v.dims(), &g.device);
    }
    let vt = v.transpose(-1, -2)?;
    let inner = if part == 0 {
        g.try_diag_embed()?
    } else {
        // The skew part of Vᵀ·gV over the eigenvalue gaps (its diagonal is 0).
        skew(&vt.try_matmul(g)?)?
            .try_mul_scalar(F::from_f64(0.5))?
            .try_div(&gaps(l)?)?
    };
    v.try_matmul(&inner)?.try_matmul(&vt)
}

/// The gradient of the reduced `A = Q·R` (`m >= n`) from the gradient `g` of output `part`
/// (0: `Q`, 1: `R`), PyTorch's `linalg_qr_backward` (Walter and Lehmann): with
/// `M = R·gRᵀ - gQᵀ·Q` and `copyltu(M) = tril(M) + tril(M, -1)ᵀ`,
/// `gA = (gQ + Q·copyltu(M))·R⁻ᵀ`; linear in `(gQ, gR)`, so each output adds its share.
pub(super) fn qr_backward<F: FloatElement, D: Backend>(
    part: u8,
    g: &Tensor<F, D>,
    q: &Tensor<F, D>,
    r: &Tensor<F, D>,
) -> Result<Tensor<F, D>> {
    let (m, n) = (q.dims()[q.ndim() - 2], r.dims()[r.ndim() - 1]);
    if m < n {
        return Err(crate::error::Error::InvalidArgument {
            op: "backward",
            msg: format!(
                "qr of a wide ({m} × {n}) matrix has no gradient here (PyTorch's formula needs m >= n); transpose it first"
            ),
        });
    }
    if q.numel() == 0 || r.numel() == 0 {
        let mut dims = q.dims()[..q.ndim() - 1].to_vec();
        dims.push(n);
        return Tensor::zeros_on(dims, &g.device);
    }
    let tr = |x: &Tensor<F, D>| x.transpose(-1, -2);
    let (lead, m_mat) = if part == 0 {
        (Some(g), tr(g)?.try_matmul(q)?.try_neg()?)
    } else {
        (None, r.try_matmul(&tr(g)?)?)
    };
    let copyltu = m_mat.try_tril(0)?.try_add(&tr(&m_mat.try_tril(-1)?)?)?;
    let mut x = q.try_matmul(&copyltu)?;
    if let Some(gq) = lead {
        x = x.try_add(gq)?;
    }
    // X·R⁻ᵀ = (R⁻¹·Xᵀ)ᵀ, R upper triangular.
    tr(&r.try_solve_triangular(&tr(&x)?, true, true, false)?)
}

/// The gradient of `A = P·L·U` (partial-pivot LU of an `m × n` matrix, `k = min(m, n)`) from
/// the gradient `g` of `L` (`part` 0) or of `U` (`part` 1): PyTorch's `linalg_lu_backward`,
/// split by output (it is linear in the two). With `ᵀ` the transpose of the last two axes:
/// square: `P·L⁻ᵀ·(tril₋₁(Lᵀ·gL) + triu(gU·Uᵀ))·U⁻ᵀ`; wide and tall matrices take the
/// square block's formula and pass the rest of `U` (wide) or `L` (tall) through.
pub(super) fn lu_backward<F: FloatElement, D: Backend>(
    part: u8,
    g: &Tensor<F, D>,
    p: &Tensor<F, D>,
    l: &Tensor<F, D>,
    u: &Tensor<F, D>,
) -> Result<Tensor<F, D>> {
    let tr = |x: &Tensor<F, D>| x.transpose(-1, -2);
    let (m, n) = (l.dims()[l.ndim() - 2], u.dims()[u.ndim() - 1]);
    let k = m.min(n);
    if k == 0 {
        let mut dims = l.dims()[..l.ndim() - 1].to_vec();
        dims.push(n);
        return Tensor::zeros_on(dims, &g.device);
    }
    let (gl, gu) = if part == 0 {
        (Some(g), None)
    } else {
        (None, Some(g))
    };
    // X·Aᵀ⁻¹ for upper-triangular A: (A⁻¹·Xᵀ)ᵀ.
    let right_upper_t = |a: &Tensor<F, D>, x: &Tensor<F, D>| -> Result<Tensor<F, D>> {
        tr(&a.try_solve_triangular(&tr(x)?, true, true, false)?)
    };
    // L⁻ᵀ·X for unit lower-triangular L: Lᵀ is unit upper.
    let left_unit_lt = |a: &Tensor<F, D>, x: &Tensor<F, D>| -> Result<Tensor<F, D>> {
        tr(a)?.try_solve_triangular(x, true, true, true)
    };
    let inner = if m == n {
        let a = match (gl, gu) {
            (Some(gl), _) => tr(l)?.try_matmul(gl)?.try_tril(-1)?,
            (_, Some(gu)) => gu.try_matmul(&tr(u)?)?.try_triu(0)?,
            _ => unreachable!("one part"),
        };
        left_unit_lt(l, &right_upper_t(u, &a)?)?
    } else if m < n {
        // Wide: U = [U1 U2], U1 k × k.
        let u1 = u.narrow(-1, 0, k)?;
        let a = match (gl, gu) {
            (Some(gl), _) => tr(l)?.try_matmul(gl)?,
            (_, Some(gu)) => gu.try_triu(0)?.try_matmul(&tr(u)?)?.try_neg()?,
            _ => unreachable!("one part"),
        };
        let a = right_upper_t(&u1, &a.try_tril(-1)?)?;
        let a = match gu {
            Some(gu) => Tensor::try_concat(
                &[
                    &a.try_add(&gu.narrow(-1, 0, k)?.try_triu(0)?)?,
                    &gu.narrow(-1, k, n - k)?,
                ],
                -1,
            )?,
            None => a,
        };
        let a = left_unit_lt(l, &a)?;
        if gu.is_none() {
            let mut dims = a.dims().to_vec();
            let last = dims.len() - 1;
            dims[last] = n - k;
            Tensor::try_concat(&[&a, &Tensor::zeros_on(dims, &g.device)?], -1)?
        } else {
            a
        }
    } else {
        // Tall: L = [L1; L2], L1 k × k.
        let l1 = l.narrow(-2, 0, k)?;
        let a = match (gl, gu) {
            (_, Some(gu)) => gu.try_matmul(&tr(u)?)?,
            (Some(gl), _) => tr(l)?.try_matmul(&gl.try_tril(-1)?)?.try_neg()?,
            _ => unreachable!("one part"),
        };
        let a = left_unit_lt(&l1, &a.try_triu(0)?)?;
        let a = match gl {
            Some(gl) => Tensor::try_concat(
                &[
                    &a.try_add(&gl.narrow(-2, 0, k)?.try_tril(-1)?)?,
                    &gl.narrow(-2, k, m - k)?,
                ],
                -2,
            )?,
            None => a,
        };
        let a = right_upper_t(u, &a)?;
        if gl.is_none() {
            let mut dims = a.dims().to_vec();
            let rows = dims.len() - 2;
            dims[rows] = m - k;
            Tensor::try_concat(&[&a, &Tensor::zeros_on(dims, &g.device)?], -2)?
        } else {
            a
        }
    };
    p.try_matmul(&inner)
}
