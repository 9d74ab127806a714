//! The rules of the matrix ops: `matmul`, `det`, `slogdet`, `inverse`, `cholesky`, `pinv`,
//! `solve` (PyTorch's formulas; the decompositions' rules are in `spectral`).

use super::{Grads, Three, sum_to};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::tensor::Tensor;

/// `matmul(a, b)`'s rule (1-d operands included).
pub(super) fn matmul_backward<F: FloatElement, D: Backend>(
    g: &Tensor<F, D>,
    (a, b): (&Tensor<F, D>, &Tensor<F, D>),
    needs: &[bool],
) -> Result<Grads<F, D>> {
    // 1-d operands as (1, k) and (k, 1), as matmul itself treats them.
    let a2 = if a.ndim() == 1 {
        a.unsqueeze(0)?
    } else {
        a.clone()
    };
    let b2 = if b.ndim() == 1 {
        b.unsqueeze(1)?
    } else {
        b.clone()
    };
    let out_dims = crate::ops::matmul::matmul_dims(a2.shape(), b2.shape())?.out;
    let g2 = g.try_reshape(out_dims)?;
    // A transposed 2-d operand (linear's `w.t()`) gets its gradient as the transpose of
    // a product computed the other way round: laid out as the operand itself, it passes
    // through the transpose's backward without a copy.
    let plain = a2.ndim() == 2 && b2.ndim() == 2;
    let transposed = |t: &Tensor<F, D>| !t.is_contiguous() && t.t().is_contiguous();
    let flipped = |t: &Tensor<F, D>| plain && transposed(t);
    let ga = match needs[0] {
        true if flipped(&a2) => Some(b2.try_matmul(&g2.t())?.t().try_reshape(a.dims())?),
        true => {
            let t = g2.try_matmul(&b2.transpose(-1, -2)?)?;
            Some(sum_to(&t, a2.shape())?.try_reshape(a.dims())?)
        }
        false => None,
    };
    // A batch of `a`s times one 2-d `b` (linear's 3-d input) is one product over the batch's
    // rows, as PyTorch folds it: `b`'s gradient is one 2-d product, not a batch of them summed.
    let folded = match (a2.dims().split_last(), b2.ndim()) {
        (Some((&k, lead)), 2) if lead.len() > 1 => lead
            .iter()
            .try_fold(1usize, |r, &d| r.checked_mul(d))
            .map(|rows| (rows, k)),
        _ => None,
    };
    let gb = match (needs[1], folded) {
        (true, Some((rows, k))) => {
            let af = a2.try_reshape([rows, k])?;
            let gf = g2.try_reshape([rows, g2.dims()[g2.ndim() - 1]])?;
            let t = match transposed(&b2) {
                true => gf.t().try_matmul(&af)?.t(),
                false => af.t().try_matmul(&gf)?,
            };
            Some(t.try_reshape(b.dims())?)
        }
        (false, _) => None,
        (true, _) if flipped(&b2) => Some(g2.t().try_matmul(&a2)?.t().try_reshape(b.dims())?),
        (true, _) => {
            let t = a2.transpose(-1, -2)?.try_matmul(&g2)?;
            Some(sum_to(&t, b2.shape())?.try_reshape(b.dims())?)
        }
    };
    Ok(vec![ga, gb])
}

/// The rule of `slogdet`'s log-absolute-determinant output.
pub(super) fn logabsdet_backward<F: FloatElement, D: Backend>(
    g: &Tensor<F, D>,
    a: &Tensor<F, D>,
) -> Result<Tensor<F, D>> {
    // d log|det A| = tr(A⁻¹ dA), so dA = g · A⁻ᵀ (PyTorch's `slogdet_backward`; a
    // singular A makes backward the inverse's `Singular` error).
    let it = a.try_inverse()?.transpose(-1, -2)?;
    it.try_mul(&g.unsqueeze(-1)?.unsqueeze(-1)?)
}

/// `det(a)`'s rule.
pub(super) fn det_backward<F: FloatElement, D: Backend>(
    g: &Tensor<F, D>,
    a: &Tensor<F, D>,
) -> Result<Tensor<F, D>> {
    // dA = g · adj(A)ᵀ, which is det · A⁻ᵀ for an invertible A and exists for every A.
    // Through the SVD A = U S Vᵀ: adj(A)ᵀ = det(U) det(V) · U · diag(∏_{j≠i} s_j) · Vᵀ.
    // A matrix holding NaN or ±inf (whose SVD does not converge) gets a NaN gradient,
    // as in PyTorch: it is decomposed as zeros and its gradient replaced at the end.
    let finite = a.try_is_finite()?.try_all(&[-2, -1], true)?;
    let zero = Tensor::scalar_on(F::ZERO, &g.device)?;
    let a = &Tensor::try_where(&finite, a, &zero)?;
    let (u, sv, vh) = a.try_svd()?;
    let n = sv.dims()[sv.ndim() - 1];
    let others = if n == 0 {
        sv.clone()
    } else {
        // The products of all but one singular value, as prefix × suffix products.
        let ones = |t: &Tensor<F, D>| -> Result<Tensor<F, D>> {
            let mut pads = vec![(0, 0); t.ndim()];
            pads[t.ndim() - 1] = (1, 0);
            t.narrow(-1, 0, n - 1)?
                .try_pad(&pads, F::ONE)?
                .try_cumprod(-1)
        };
        let pre = ones(&sv)?;
        let suf = ones(&sv.flip(&[-1])?)?.flip(&[-1])?;
        pre.try_mul(&suf)?
    };
    let sign = u.try_slogdet()?.0.try_mul(&vh.try_slogdet()?.0)?;
    let adj_t = u.try_mul(&others.unsqueeze(-2)?)?.try_matmul(&vh)?;
    let scale = g.try_mul(&sign)?.unsqueeze(-1)?.unsqueeze(-1)?;
    let nan = Tensor::scalar_on(F::from_f64(f64::NAN), &g.device)?;
    Tensor::try_where(&finite, &adj_t.try_mul(&scale)?, &nan)
}

/// `cholesky`'s rule, from its factor `l`.
pub(super) fn cholesky_backward<F: FloatElement, D: Backend>(
    g: &Tensor<F, D>,
    l: &Tensor<F, D>,
) -> Result<Tensor<F, D>> {
    // PyTorch's `cholesky_backward`: gA = L⁻ᵀ Φ(Lᵀ gL) L⁻¹, symmetrised, with Φ the
    // lower triangle with its diagonal halved.
    let li = l.try_inverse()?;
    let x = l.transpose(-1, -2)?.try_matmul(g)?;
    let half = x
        .diagonal(0)?
        .try_mul_scalar(F::from_f64(0.5))?
        .try_diag_embed()?;
    let phi = x.try_tril(0)?.try_sub(&half)?;
    let ga = li.transpose(-1, -2)?.try_matmul(&phi)?.try_matmul(&li)?;
    let sym = ga.try_add(&ga.transpose(-1, -2)?)?;
    sym.try_mul_scalar(F::from_f64(0.5))
}

/// `inverse`'s rule, from its result `inv`.
pub(super) fn inverse_backward<F: FloatElement, D: Backend>(
    g: &Tensor<F, D>,
    inv: &Tensor<F, D>,
) -> Result<Tensor<F, D>> {
    // d(A⁻¹) = -A⁻¹ dA A⁻¹, so dA = -A⁻ᵀ g A⁻ᵀ.
    let it = inv.transpose(-1, -2)?;
    it.try_matmul(g)?.try_matmul(&it)?.try_neg()
}

/// `pinv(a)`'s rule, from `a` and its result `p`.
pub(super) fn pinv_backward<F: FloatElement, D: Backend>(
    g: &Tensor<F, D>,
    (a, p): (&Tensor<F, D>, &Tensor<F, D>),
) -> Result<Tensor<F, D>> {
    // PyTorch's `pinv_backward` (valid where the rank is locally constant), with
    // `P = pinv(A)` of `A` (m × n), `ᵀ` the transpose of the last two axes, and the
    // products grouped so the square factor is min(m, n) wide:
    // m ≤ n: K = gᵀP, dA = -(PK)ᵀ + KPᵀ - AP·KPᵀ + PᵀP·(gᵀ - KA);
    // m > n: K = Pgᵀ, dA = -(KP)ᵀ + (gᵀ - AK)·P·Pᵀ + PᵀK - PᵀK·P·A.
    let tr = |x: &Tensor<F, D>| x.transpose(-1, -2);
    let (m, n) = (a.dims()[a.ndim() - 2], a.dims()[a.ndim() - 1]);
    let (ph, gh) = (tr(p)?, tr(g)?);
    let ga = if m <= n {
        let k = gh.try_matmul(p)?;
        let kph = k.try_matmul(&ph)?;
        tr(&p.try_matmul(&k)?)?
            .try_neg()?
            .try_add(&kph)?
            .try_sub(&a.try_matmul(p)?.try_matmul(&kph)?)?
            .try_add(
                &ph.try_matmul(p)?
                    .try_matmul(&gh.try_sub(&k.try_matmul(a)?)?)?,
            )?
    } else {
        let k = p.try_matmul(&gh)?;
        let phk = ph.try_matmul(&k)?;
        tr(&k.try_matmul(p)?)?
            .try_neg()?
            .try_add(
                &gh.try_sub(&a.try_matmul(&k)?)?
                    .try_matmul(p)?
                    .try_matmul(&ph)?,
            )?
            .try_add(&phk)?
            .try_sub(&phk.try_matmul(p)?.try_matmul(a)?)?
    };
    Ok(ga)
}

/// `solve(a, b)`'s rule, from the operands and the solution `x`.
pub(super) fn solve_backward<F: FloatElement, D: Backend>(
    g: &Tensor<F, D>,
    (a, b, x): Three<'_, F, D>,
    needs: &[bool],
) -> Result<Grads<F, D>> {
    // x = A⁻¹ b: db = A⁻ᵀ g, dA = -db xᵀ. A vector b is one column of every matrix
    // of a stack A, so g and x are then stacks of vectors `(..., n)`: solved as columns.
    let at = a.transpose(-1, -2)?;
    let (gb2, x2) = if b.ndim() == 1 {
        (at.try_solve(&g.unsqueeze(-1)?)?, x.unsqueeze(-1)?)
    } else {
        (at.try_solve(g)?, x.clone())
    };
    let gb = if b.ndim() == 1 {
        gb2.squeeze_dims(&[-1])?
    } else {
        gb2.clone()
    };
    let ga = needs[0]
        .then(|| {
            let t = gb2.try_matmul(&x2.transpose(-1, -2)?)?.try_neg()?;
            sum_to(&t, a.shape())
        })
        .transpose()?;
    Ok(vec![
        ga,
        needs[1].then(|| sum_to(&gb, b.shape())).transpose()?,
    ])
}
