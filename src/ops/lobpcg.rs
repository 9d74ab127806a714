//! `lobpcg` (PyTorch's `torch.lobpcg`, Knyazev's locally optimal block preconditioned
//! conjugate gradient): the `k` largest or smallest eigenpairs of a symmetric `A`, or of the
//! pencil `A·x = λ·B·x`. Each iteration minimises the Rayleigh quotient over the span of the
//! current vectors `X`, the (preconditioned) residuals `W` and the previous step `P`, made
//! `B`-orthonormal by SVQB (Stathopoulos–Wu: the scaled Gram matrix's eigenvectors, dependent
//! directions dropped). The iteration runs in f64 on the host (its stopping test reads the
//! residuals every step); the gradient, one `custom` node, is PyTorch's: the symmetric-
//! eigenproblem rule restricted to the computed pairs, as device ops.
//!
//! ```
//! use typed_tensor::ops::lobpcg::Lobpcg;
//! use typed_tensor::prelude::*;
//! // diag(1, ..., 9): the two largest eigenvalues are 9 and 8.
//! let a = Tensor::<f64>::arange(1.0, 10.0, 1.0)?.try_diag_embed()?;
//! let (e, x) = a.try_lobpcg(&Lobpcg { k: Some(2), ..Lobpcg::default() })?;
//! assert!((e.to_vec()[0] - 9.0).abs() < 1e-6 && (e.to_vec()[1] - 8.0).abs() < 1e-6);
//! assert_eq!(x.dims(), &[9, 2]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::device::Cpu;
use crate::dtype::FloatElement;
use crate::error::{Error, OrPanic, Result};
use crate::tensor::Tensor;

type H = Tensor<f64, Cpu>;

/// The keywords of [`Tensor::try_lobpcg`] (PyTorch `torch.lobpcg`'s); `Lobpcg::default()`
/// asks for the largest eigenpair from a random start.
#[derive(Clone, Debug)]
pub struct Lobpcg<'a, T: FloatElement, D: Backend> {
    /// The number of eigenpairs: by default `X`'s columns, or 1.
    pub k: Option<usize>,
    /// The symmetric positive-definite `B` of `A·x = λ·B·x`, `A`'s shape; `None` is `I`.
    pub b: Option<&'a Tensor<T, D>>,
    /// The starting vectors `(..., m, n)`, `k <= n`; `None` draws `n` normal ones from the
    /// global generator.
    pub x: Option<&'a Tensor<T, D>>,
    /// The block size without `x` (by default `k`).
    pub n: Option<usize>,
    /// A preconditioner `(m, m)` applied to the residuals (PyTorch's `iK`).
    pub ik: Option<&'a Tensor<T, D>>,
    /// The most iterations (default 1000); a negative value iterates until convergence, at
    /// most `1000 + 100·m` times.
    pub niter: Option<i64>,
    /// The residual tolerance (default `√eps` of `T`): a pair has converged when `‖r‖ <
    /// tol·‖x‖·(‖A‖ + |λ|·‖B‖)`, the norms estimated as PyTorch's from the start.
    pub tol: Option<f64>,
    /// The largest eigenpairs (default) or the smallest.
    pub largest: bool,
}

impl<T: FloatElement, D: Backend> Default for Lobpcg<'_, T, D> {
    fn default() -> Self {
        Lobpcg {
            k: None,
            b: None,
            x: None,
            n: None,
            ik: None,
            niter: None,
            tol: None,
            largest: true,
        }
    }
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// The `k` largest (or smallest) eigenvalues `(..., k)`, in that order, and eigenvectors
    /// `(..., m, k)` (`B`-orthonormal columns, each up to sign) of the symmetric `self` `(...,
    /// m, m)` by LOBPCG (PyTorch `torch.lobpcg`), each matrix of a batch on its own; `self`
    /// (and `B`) must be symmetric, as PyTorch assumes. The values agree with
    /// [`Tensor::try_eigh`]'s to about `tol` relative to `‖A‖`. Differentiable in `self` when
    /// `B` is `I` (PyTorch's rule, a symmetric gradient); with a `B`, `backward` is an `Err`,
    /// as PyTorch's.
    ///
    /// # Errors
    /// `InvalidArgument` naming `lobpcg` for a non-square `self`, a `B` of another shape, `X`
    /// not `(..., m, n)`, `k` above `n` or 0, `m < 3·n` (PyTorch's rule), a preconditioner
    /// not `(m, m)`, a starting block of rank below `n`, NaN or infinite entries; `Device`
    /// across devices.
    #[allow(clippy::type_complexity)]
    pub fn try_lobpcg(&self, opts: &Lobpcg<'_, T, D>) -> Result<(Tensor<T, D>, Tensor<T, D>)> {
        const OP: &str = "lobpcg";
        let bad = |msg: String| Err(Error::InvalidArgument { op: OP, msg });
        let (m, _) = self.shape().matrix_dims(OP, true)?;
        let batch = &self.dims()[..self.ndim() - 2];
        for (name, t) in [("B", opts.b), ("X", opts.x), ("iK", opts.ik)] {
            if let Some(t) = t {
                crate::ops::device_ops::same_device(OP, self, t)?;
                if name == "B" && t.dims() != self.dims() {
                    return bad(format!(
                        "B must have A's shape {}, got {}",
                        self.shape(),
                        t.shape()
                    ));
                }
                if name == "iK" && t.dims() != [m, m] {
                    return bad(format!(
                        "the preconditioner iK must be ({m}, {m}), got {}",
                        t.shape()
                    ));
                }
            }
        }
        let n = match opts.x {
            Some(x) => {
                let d = x.dims();
                if d.len() != self.ndim() || &d[..d.len() - 2] != batch || d[d.len() - 2] != m {
                    return bad(format!(
                        "X must be (..., {m}, n) with A's batch, got {}",
                        x.shape()
                    ));
                }
                d[d.len() - 1]
            }
            None => opts.n.unwrap_or(opts.k.unwrap_or(1)),
        };
        let k = opts.k.unwrap_or(if opts.x.is_some() { n } else { 1 });
        if k == 0 || k > n {
            return bad(format!("needs 1 <= k <= n, got k = {k} and n = {n}"));
        }
        if n.checked_mul(3).is_none_or(|three_n| m < three_n) {
            return bad(format!(
                "LOBPCG is not applicable when the number of A's rows ({m}) is smaller than 3 x the block size ({n})"
            ));
        }
        let tol = opts.tol.unwrap_or(T::DTYPE.eps().sqrt());
        let niter = match opts.niter {
            Some(i) if i < 0 => 1000 + 100 * m,
            Some(i) => i as usize,
            None => 1000,
        };
        let host = |t: &Tensor<T, D>| -> Result<H> { D::to_host(&t.detach())?.try_cast::<f64>() };
        let (b, x0, ik) = (
            opts.b.map(host).transpose()?,
            opts.x.map(host).transpose()?,
            opts.ik.map(host).transpose()?,
        );
        let largest = opts.largest;
        let count = batch.iter().product::<usize>();
        let dev = self.device_handle().clone();
        let with_b = b.is_some();
        let packed = crate::autograd::custom(
            OP,
            &[self],
            |a| {
                let a = host(&a[0])?;
                let mut parts = Vec::with_capacity(count);
                for i in 0..count {
                    let pick = |t: &H| {
                        t.try_reshape([count, m, t.dims()[t.ndim() - 1]])?
                            .select(0, i as i64)
                    };
                    let start = match &x0 {
                        Some(x) => pick(x)?,
                        None => H::randn([m, n])?,
                    };
                    let b = b.as_ref().map(pick).transpose()?;
                    let (e, x) = lobpcg_one(
                        &pick(&a)?,
                        b.as_ref(),
                        ik.as_ref(),
                        start,
                        k,
                        largest,
                        niter,
                        tol,
                    )?;
                    parts.push(H::try_concat(&[&x, &e.unsqueeze(0)?], 0)?);
                }
                let refs: Vec<&H> = parts.iter().collect();
                let mut dims = batch.to_vec();
                dims.extend([m + 1, k]);
                let all = match count {
                    0 => H::zeros(dims)?,
                    _ => H::try_stack(&refs, 0)?.try_reshape(dims)?,
                };
                D::from_host(&all.try_cast::<T>()?, &dev)
            },
            move |g, a, out| {
                if with_b {
                    return Err(Error::InvalidArgument {
                        op: "backward",
                        msg: "lobpcg has no gradient with B != I (as PyTorch's); compute it under no_grad".into(),
                    });
                }
                lobpcg_backward(&a[0], out, g, m, k, largest).map(|g| vec![Some(g)])
            },
        )?;
        Ok((
            packed.narrow(-2, m, 1)?.squeeze_dims(&[-2])?,
            packed.narrow(-2, 0, m)?,
        ))
    }

    crate::ops::plain_forms! {
        /// [`Tensor::try_lobpcg`], panicking with its error.
        lobpcg, try_lobpcg(opts: &Lobpcg<'_, T, D>) -> (Tensor<T, D>, Tensor<T, D>);
    }
}

/// `B·y`, or `y` without `B`.
fn bmul(b: Option<&H>, y: &H) -> Result<H> {
    b.map_or_else(|| Ok(y.clone()), |b| b.try_matmul(y))
}

/// The columns of `y` made `B`-orthonormal by SVQB: `y·Δ·Z·θ^{-½}` from the eigenpairs `(θ,
/// Z)` of the Gram matrix scaled to a unit diagonal (`Δ`), directions with `θ` below `drop`
/// times the largest dropped (so the result may have fewer columns).
fn svqb(y: &H, b: Option<&H>, drop: f64) -> Result<H> {
    let c = y.dims()[1];
    if c == 0 {
        return Ok(y.clone());
    }
    let g = y.t().try_matmul(&bmul(b, y)?)?;
    let scale: Vec<f64> = (g.diagonal(0)?.try_to_vec()?)
        .iter()
        .map(|&d| if d > 0.0 { 1.0 / d.sqrt() } else { 0.0 })
        .collect();
    let s = H::from_vec(scale, [c])?;
    let gs = g.try_mul(&s.unsqueeze(0)?)?.try_mul(&s.unsqueeze(1)?)?;
    let gs = gs.try_add(&gs.t())?.try_mul_scalar(0.5)?;
    let (theta, z) = gs.try_eigh()?;
    let theta = theta.try_to_vec()?;
    let top = theta.last().copied().unwrap_or(0.0);
    let keep: Vec<i64> = (0..c as i64)
        .filter(|&i| top > 0.0 && theta[i as usize] > drop * top)
        .collect();
    let inv: Vec<f64> = keep
        .iter()
        .map(|&i| 1.0 / theta[i as usize].sqrt())
        .collect();
    let kept = keep.len();
    let zk = z.try_index_select(1, &Tensor::<i64, Cpu>::from_vec(keep, [kept])?)?;
    y.try_mul(&s.unsqueeze(0)?)?
        .try_matmul(&zk)?
        .try_mul(&H::from_vec(inv, [kept])?.unsqueeze(0)?)
}

/// The Rayleigh–Ritz step on the `B`-orthonormal basis `s`: the `n` extreme eigenpairs of
/// `sᵀ·A·s` (largest first, or smallest first), as values and coefficients.
fn rayleigh_ritz(a: &H, s: &H, n: usize, largest: bool) -> Result<(H, H)> {
    let g = s.t().try_matmul(&a.try_matmul(s)?)?;
    let g = g.try_add(&g.t())?.try_mul_scalar(0.5)?;
    let (w, v) = g.try_eigh()?;
    let c = s.dims()[1];
    let order: Vec<i64> = match largest {
        true => (0..n).map(|j| (c - 1 - j) as i64).collect(),
        false => (0..n as i64).collect(),
    };
    let order = Tensor::<i64, Cpu>::from_vec(order, [n])?;
    Ok((
        w.try_index_select(0, &order)?,
        v.try_index_select(1, &order)?,
    ))
}

/// One matrix's LOBPCG: the `n` Ritz values and vectors once the first `k` pairs have
/// converged (or after `niter` steps).
#[allow(clippy::too_many_arguments)]
fn lobpcg_one(
    a: &H,
    b: Option<&H>,
    ik: Option<&H>,
    start: H,
    k: usize,
    largest: bool,
    niter: usize,
    tol: f64,
) -> Result<(H, H)> {
    const OP: &str = "lobpcg";
    let n = start.dims()[1];
    let finite = |t: &H| -> Result<bool> { t.try_is_finite()?.try_all(&[], false)?.try_item() };
    if !finite(a)? || !finite(&start)? || b.map(finite).transpose()? == Some(false) {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: "A, B and X must be finite (they have NaN or infinite entries)".into(),
        });
    }
    // PyTorch's norm estimates, from the starting block.
    let frob = |t: &H| -> Result<f64> { Ok(t.try_norm(2.0, &[], false)?.try_to_vec()?[0]) };
    let x_norm = frob(&start)?;
    let a_norm = frob(&a.try_matmul(&start)?)? / x_norm;
    let b_norm = frob(&bmul(b, &start)?)? / x_norm;
    let drop = 1e-14 * a.dims()[0] as f64;
    let basis = svqb(&svqb(&start, b, drop)?, b, drop)?;
    if basis.dims()[1] < n {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!(
                "the starting block X has rank {} below its {n} columns",
                basis.dims()[1]
            ),
        });
    }
    let (mut e, c) = rayleigh_ritz(a, &basis, n, largest)?;
    let mut x = basis.try_matmul(&c)?;
    let mut p: Option<H> = None;
    for step in 0..=niter {
        let ax = a.try_matmul(&x)?;
        let r = ax.try_sub(&bmul(b, &x)?.try_mul(&e.unsqueeze(0)?)?)?;
        let rn = r.try_norm(2.0, &[0], false)?.try_to_vec()?;
        let xn = x.try_norm(2.0, &[0], false)?.try_to_vec()?;
        let ev = e.try_to_vec()?;
        let converged = (0..k)
            .take_while(|&j| rn[j] < tol * xn[j] * (a_norm + ev[j].abs() * b_norm))
            .count();
        if converged >= k || step == niter {
            break;
        }
        // The new directions: preconditioned residuals and the last step, B-orthogonal to x.
        let w = ik.map_or_else(|| Ok(r.clone()), |ik| ik.try_matmul(&r))?;
        let mut y = match &p {
            Some(p) => H::try_concat(&[&w, p], 1)?,
            None => w,
        };
        for _ in 0..2 {
            y = y.try_sub(&x.try_matmul(&x.t().try_matmul(&bmul(b, &y)?)?)?)?;
            y = svqb(&y, b, drop)?;
        }
        let s = H::try_concat(&[&x, &y], 1)?;
        let (e_new, c) = rayleigh_ritz(a, &s, n, largest)?;
        let extra = y.dims()[1];
        p = (extra > 0)
            .then(|| y.try_matmul(&c.narrow(0, n, extra)?))
            .transpose()?;
        x = s.try_matmul(&c)?;
        e = e_new;
    }
    Ok((e.narrow(0, 0, k)?, x.narrow(1, 0, k)?))
}

/// PyTorch's gradient of `lobpcg` (B = I): `U·(diag(gλ) + (Uᵀ·gU)∘F)·Uᵀ` made symmetric, from
/// the full `eigh` of `A`, with `gλ` and `gU` zero outside the `k` computed pairs (their
/// columns' signs matched to the returned vectors) and `F_ij = 1/(λ_j - λ_i)`.
fn lobpcg_backward<T: FloatElement, D: Backend>(
    a: &Tensor<T, D>,
    out: &Tensor<T, D>,
    g: &Tensor<T, D>,
    m: usize,
    k: usize,
    largest: bool,
) -> Result<Tensor<T, D>> {
    let dev = a.device_handle();
    let (lam, u) = a.try_eigh()?;
    let idx: Vec<i64> = (0..k)
        .map(|j| {
            if largest {
                (m - 1 - j) as i64
            } else {
                j as i64
            }
        })
        .collect();
    let idx = Tensor::<i64, D>::from_vec_on(idx, [k], dev)?;
    let x = out.narrow(-2, 0, m)?;
    let (gx, ge) = (
        g.narrow(-2, 0, m)?,
        g.narrow(-2, m, 1)?.squeeze_dims(&[-2])?,
    );
    let u_sel = u.try_index_select(-1, &idx)?;
    let sign = u_sel.try_mul(&x)?.try_sum(&[-2], true)?.try_sign()?;
    let gu = u
        .try_zeros_like()?
        .try_index_copy(-1, &idx, &gx.try_mul(&sign)?)?;
    let gl = lam.try_zeros_like()?.try_index_copy(-1, &idx, &ge)?;
    let diff = lam.unsqueeze(-2)?.try_sub(&lam.unsqueeze(-1)?)?;
    let ut = u.transpose(-1, -2)?;
    let inner = ut.try_matmul(&gu)?;
    // Only the computed pairs' columns are nonzero; elsewhere 1/0 must not make 0·inf.
    let zero = Tensor::scalar_on(T::ZERO, dev)?;
    let scaled = Tensor::try_where(
        &inner.try_eq_scalar(T::ZERO)?,
        &zero,
        &inner.try_div(&diff)?,
    )?;
    let eye = Tensor::<T, D>::eye_on(m, dev)?.try_ne_scalar(T::ZERO)?;
    let scaled = Tensor::try_where(&eye, &zero, &scaled)?.try_add(&gl.try_diag_embed()?)?;
    let full = u.try_matmul(&scaled)?.try_matmul(&ut)?;
    full.try_add(&full.transpose(-1, -2)?)?
        .try_mul_scalar(T::from_f64(0.5))
}
