//! LAPACK's packed factorizations as PyTorch exposes them: `geqrf` (the Householder QR's
//! reflectors and scalars), `ormqr` (a product with that QR's `Q`), and the Bunch–Kaufman
//! `L·D·Lᵀ` of a symmetric indefinite matrix (`linalg.ldl_factor`, `ldl_factor_ex`,
//! `ldl_solve`; LAPACK `sytrf`/`sytrs` on the lower triangle). The factorizations run on the
//! host in f64 with LAPACK's unblocked algorithms (`geqr2`, `sytf2`), so their signs, pivots
//! and packing are LAPACK's; `ormqr` is composed of differentiable ops.
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let a = tensor![[1.0f64, 2.0], [3.0, 4.0], [5.0, 6.0]];
//! let (qr, tau) = a.geqrf();
//! let r = qr.narrow(-2, 0, 2)?.triu(0);
//! // Q · R with Q applied by its reflectors gives `a` back.
//! let r_full = Tensor::<f64>::concat(&[&r, &Tensor::zeros([1, 2])?], -2);
//! let back = qr.ormqr(&tau, &r_full, true, false).to_vec();
//! assert!(back.iter().zip(a.to_vec()).all(|(x, y)| (x - y).abs() < 1e-12));
//!
//! let s = tensor![[0.0f64, 1.0, 2.0], [1.0, 0.0, 3.0], [2.0, 3.0, 0.0]]; // indefinite
//! let (ld, pivots) = s.ldl_factor();
//! assert_eq!(pivots.to_vec(), vec![-3, -3, 3]); // a 2 × 2 block, rows 2 and 3 swapped
//! let x = Tensor::ldl_solve(&ld, &pivots, &Tensor::eye(3)?); // the inverse
//! let id = s.matmul(&x).to_vec();
//! assert!(id.iter().enumerate().all(|(i, v)| (v - f64::from(i % 4 == 0)).abs() < 1e-12));
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::autograd::{Op, record, recording};
use crate::backend::Backend;
use crate::device::Cpu;
use crate::dtype::{FloatElement, FloatOf, NumElement};
use crate::error::{Error, OrPanic, Result};
use crate::shape::{Shape, broadcast_shapes};
use crate::tensor::Tensor;

type Float<T, D> = Tensor<FloatOf<T>, D>;

/// What [`Tensor::try_ldl_factor_ex`] returns: `LD`, the 1-based pivots and `info`.
pub type LdlFactorEx<T, D> = (Float<T, D>, Tensor<i32, D>, Tensor<i32, D>);

/// `v` of shape `dims` as `F` on `like`'s device.
fn upload<F: FloatElement, U: NumElement, D: Backend>(
    v: Vec<f64>,
    dims: Vec<usize>,
    like: &Tensor<U, D>,
) -> Result<Tensor<F, D>> {
    let host = Tensor::<f64, Cpu>::from_vec(v, dims)?.try_cast::<F>()?;
    D::from_host(&host, like.device_handle())
}

/// The stack's batch dimensions and matrix size, or an `InvalidArgument` for fewer than two
/// dimensions (or, with `square`, a non-square matrix).
fn matrices<T: NumElement, D: Backend>(
    x: &Tensor<T, D>,
    op: &'static str,
    square: bool,
) -> Result<(Vec<usize>, usize, usize)> {
    let (m, n) = x.shape().matrix_dims(op, square)?;
    Ok((x.dims()[..x.ndim() - 2].to_vec(), m, n))
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// The QR factorization of each `(m, n)` matrix packed as LAPACK's `geqrf` returns it
    /// (PyTorch `geqrf`): `a` `(..., m, n)` holding `R` on and above the diagonal and the
    /// Householder vectors `v_i` below it (their leading 1 implied), and `tau` `(..., k)`,
    /// `k = min(m, n)`, with `Q = H₁·…·H_k`, `H_i = I - τ_i·v_i·v_iᵀ` (LAPACK's signs: `R`'s
    /// diagonal is `-sign(a_ii)·‖column‖`, `τ_i = 0` where the column below is already
    /// zero). Pass them to [`Tensor::try_ormqr`] or [`Tensor::try_householder_product`].
    /// Computed on the host in f64. Not differentiable (as PyTorch's): `backward` through it
    /// is an `Err`; [`Tensor::try_qr`] is.
    ///
    /// # Errors
    /// `InvalidArgument` with fewer than two dimensions; allocation or transfer failure.
    pub fn try_geqrf(&self) -> Result<(Float<T, D>, Float<T, D>)> {
        const OP: &str = "geqrf";
        let (batch, m, n) = matrices(self, OP, false)?;
        let k = m.min(n);
        let mut a: Vec<f64> = D::to_host(self)?.try_cast::<f64>()?.try_to_vec()?;
        // `m·n` may overflow only for an empty batch, where there is nothing to factor.
        let mn = m.saturating_mul(n);
        let count = a.len().checked_div(mn).unwrap_or(0);
        let mut tau = crate::alloc::try_vec(OP, count * k, 0.0)?;
        for (mat, t) in a.chunks_mut(mn.max(1)).zip(tau.chunks_mut(k.max(1))) {
            geqr2(mat, m, n, t);
        }
        let mut tau_dims = batch;
        tau_dims.push(k);
        let a = upload(a, self.dims().to_vec(), self)?;
        let tau = upload(tau, tau_dims, self)?;
        let no_grad = |t| record(t, Op::NoGrad(OP), &[self], &[]);
        Ok((no_grad(a), no_grad(tau)))
    }

    /// The Bunch–Kaufman factorization `A = L·D·Lᵀ` of each symmetric `(n, n)` matrix, read
    /// from its lower triangle (PyTorch `linalg.ldl_factor`, LAPACK `sytrf` with `uplo =
    /// 'L'`): `LD` `(..., n, n)` holds the block-diagonal `D` (1 × 1 and 2 × 2 blocks) and
    /// below it the multipliers of `L` (zeros above the diagonal), and the 1-based Int32
    /// `pivots` `(..., n)` give the symmetric interchanges, LAPACK's format: `pivots[k] > 0`
    /// is a 1 × 1 block after swapping rows and columns `k` and `pivots[k] - 1`; a pair
    /// `pivots[k] = pivots[k + 1] = -p` is a 2 × 2 block after swapping `k + 1` and `p - 1`.
    /// Pass them to [`Tensor::try_ldl_solve`]. For real matrices PyTorch's `hermitian` flag
    /// changes nothing, so there is none. Computed on the host in f64 (LAPACK's unblocked
    /// `sytf2`). Not differentiable (as PyTorch's): `backward` through it is an `Err`.
    ///
    /// # Errors
    /// `InvalidArgument` for fewer than two dimensions or non-square matrices; `Singular`
    /// naming the first exactly zero diagonal block of `D` (a NaN counts) where
    /// [`Tensor::try_ldl_factor_ex`] reports it in `info` instead.
    pub fn try_ldl_factor(&self) -> Result<(Float<T, D>, Tensor<i32, D>)> {
        const OP: &str = "ldl_factor";
        let (ld, pivots, info) = self.ldl_parts(OP)?;
        if let Some(&pivot) = info.iter().find(|&&i| i != 0) {
            return Err(Error::Singular {
                op: OP,
                pivot: pivot as usize,
            });
        }
        Ok((ld, pivots))
    }

    /// [`Tensor::try_ldl_factor`] that reports singular matrices instead of returning an
    /// `Err` (PyTorch `linalg.ldl_factor_ex`): also `info` `(...)`, 0 for each matrix whose
    /// `D` is invertible, else the 1-based index of its first exactly zero (or NaN) diagonal
    /// block; the factorization is complete either way (LAPACK's).
    ///
    /// # Errors
    /// `InvalidArgument` for fewer than two dimensions or non-square matrices.
    pub fn try_ldl_factor_ex(&self) -> Result<LdlFactorEx<T, D>> {
        const OP: &str = "ldl_factor_ex";
        let (ld, pivots, info) = self.ldl_parts(OP)?;
        let dims = self.dims()[..self.ndim() - 2].to_vec();
        let info = if info.is_empty() {
            Tensor::zeros_on(dims, self.device_handle())?
        } else {
            Tensor::from_vec_on(info, dims, self.device_handle())?
        };
        Ok((ld, pivots, info))
    }

    /// `LD`, the pivots and each matrix's `info` (on the host).
    #[allow(clippy::type_complexity)]
    fn ldl_parts(&self, op: &'static str) -> Result<(Float<T, D>, Tensor<i32, D>, Vec<i32>)> {
        let (mut batch, n, _) = matrices(self, op, true)?;
        let mut a: Vec<f64> = D::to_host(self)?.try_cast::<f64>()?.try_to_vec()?;
        // Empty matrices (there may be 2^40 of them) have no pivots and report no info here.
        let nn = n.saturating_mul(n);
        let count = a.len().checked_div(nn).unwrap_or(0);
        let mut pivots = crate::alloc::try_vec(op, count * n, 0i32)?;
        let mut info = crate::alloc::try_vec(op, count, 0i32)?;
        for ((mat, piv), inf) in (a.chunks_mut(nn.max(1)))
            .zip(pivots.chunks_mut(n.max(1)))
            .zip(info.iter_mut())
        {
            *inf = sytf2_lower(mat, n, piv);
            for i in 0..n {
                mat[i * n + i + 1..(i + 1) * n].fill(0.0);
            }
        }
        let ld = upload(a, self.dims().to_vec(), self)?;
        let ld = record(ld, Op::NoGrad(op), &[self], &[]);
        batch.push(n);
        let pivots = Tensor::from_vec_on(pivots, batch, self.device_handle())?;
        Ok((ld, pivots, info))
    }

    plain_forms! {
        /// [`Tensor::try_geqrf`], panicking with its error.
        geqrf, try_geqrf() -> (Float<T, D>, Float<T, D>);
        /// [`Tensor::try_ldl_factor`], panicking with its error.
        ldl_factor, try_ldl_factor() -> (Float<T, D>, Tensor<i32, D>);
        /// [`Tensor::try_ldl_factor_ex`], panicking with its error.
        ldl_factor_ex, try_ldl_factor_ex() -> LdlFactorEx<T, D>;
    }
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// The product of `other` `(..., m, n)` with the `Q` of a [`Tensor::try_geqrf`]
    /// factorization (PyTorch `ormqr`, LAPACK `ormqr`): `Q·other` with `left`, else
    /// `other·Q`; `Qᵀ` instead of `Q` with `transpose`. `self` `(..., q, c)` holds the
    /// reflectors below its diagonal, `q` = `m` with `left` (else `n`), and `tau` `(..., k)`
    /// with `k = min(q, c)`; all three have the same batch dimensions. `Q` is `q × q` and
    /// never formed: the reflectors are applied one by one. Differentiable in all three.
    ///
    /// # Errors
    /// `InvalidArgument` for operands with fewer than two dimensions, different batch
    /// dimensions, `q` not `other`'s matching size, or `tau` without `k` entries (PyTorch's
    /// checks); `Device` across devices.
    pub fn try_ormqr(&self, tau: &Self, other: &Self, left: bool, transpose: bool) -> Result<Self> {
        const OP: &str = "ormqr";
        let d = self.ndim();
        let q = if left { -2 } else { -1 };
        let fits = d >= 2
            && other.ndim() == d
            && tau.ndim() == d - 1
            && other.dims()[..d - 2] == self.dims()[..d - 2]
            && tau.dims()[..d - 2] == self.dims()[..d - 2]
            && other.dims()[(d as i64 + q) as usize] == self.dims()[d - 2]
            && tau.dims()[d - 2] == self.dims()[d - 2].min(self.dims()[d - 1]);
        if !fits {
            let side = if left { "rows" } else { "columns" };
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!(
                    "needs reflectors (..., q, c), tau (..., min(q, c)) and other with the same batch dimensions and q {side}, got shapes {}, {} and {}",
                    self.shape(),
                    tau.shape(),
                    other.shape()
                ),
            });
        }
        crate::ops::device_ops::same_device(OP, self, tau)?;
        crate::ops::device_ops::same_device(OP, self, other)?;
        let (rows, k) = (self.dims()[d - 2], tau.dims()[d - 2]);
        if k == 0 || other.numel() == 0 {
            // `Q = I`, or nothing to multiply (however large the empty stack's matrices).
            return other.try_deep_copy();
        }
        let dev = self.device_handle();
        let cells = rows.checked_mul(k).ok_or_else(|| Error::ShapeOverflow {
            op: OP,
            dims: self.dims().to_vec(),
        })?;
        // The reflectors as columns: below the diagonal from `self`, 1 on it, 0 above.
        let mask = |f: fn(usize, usize) -> bool| {
            let mask = crate::alloc::collect(OP, cells, (0..cells).map(|p| f(p / k, p % k)))?;
            Tensor::<bool, D>::from_vec_on(mask, [rows, k], dev)
        };
        let ones = mask(|r, c| r == c)?.try_cast::<T>()?;
        let v = Tensor::try_where(&mask(|r, c| r > c)?, &self.narrow(-1, 0, k)?, &ones)?;
        // Q = H₁·…·H_k: Q·C applies H_k first, C·Q applies H₁ first; Qᵀ reverses the order.
        let mut order: Vec<usize> = (0..k).collect();
        if left != transpose {
            order.reverse();
        }
        let mut c = other.clone();
        for i in order {
            let vi = v.narrow(-1, i, 1)?;
            let t = tau.narrow(-1, i, 1)?.unsqueeze(-1)?;
            c = if left {
                let w = vi.transpose(-1, -2)?.try_matmul(&c)?;
                c.try_sub(&vi.try_matmul(&w)?.try_mul(&t)?)?
            } else {
                let w = c.try_matmul(&vi)?;
                c.try_sub(&w.try_matmul(&vi.transpose(-1, -2)?)?.try_mul(&t)?)?
            };
        }
        Ok(c)
    }

    /// `X` with `A·X = B` for `A` given by its [`Tensor::try_ldl_factor`] (PyTorch
    /// `linalg.ldl_solve`, LAPACK `sytrs`): `ld` `(..., n, n)`, `pivots` `(..., n)` with its
    /// batch dimensions, `b` `(..., n, k)` whose batch dimensions broadcast with theirs; the
    /// result has the broadcast batch. Computed on the host in f64. Differentiable in `b`
    /// (`A⁻¹` applied to the gradient; PyTorch has no gradient at all); a gradient through
    /// `ld` is an `Err`, as in PyTorch.
    ///
    /// # Errors
    /// `InvalidArgument` for a non-square `ld`, pivots of another shape or not in LAPACK's
    /// format (each in `±1..=n`, negative ones in pairs), `b` with fewer than two dimensions
    /// or other than `n` rows, or batch dimensions that do not broadcast; `Device` across
    /// devices.
    pub fn try_ldl_solve(ld: &Self, pivots: &Tensor<i32, D>, b: &Self) -> Result<Self> {
        const OP: &str = "ldl_solve";
        let (batch, n, _) = matrices(ld, OP, true)?;
        let (_, rows, k) = matrices(b, OP, false)?;
        if pivots.ndim() + 1 != ld.ndim()
            || pivots.dims()[..batch.len()] != batch[..]
            || pivots.dims()[batch.len()] != n
            || rows != n
        {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!(
                    "needs LD (..., n, n), pivots (..., n) and b (..., n, k), got shapes {}, {} and {}",
                    ld.shape(),
                    pivots.shape(),
                    b.shape()
                ),
            });
        }
        crate::ops::device_ops::same_device(OP, ld, b)?;
        crate::ops::device_ops::same_device(OP, ld, pivots)?;
        let out_batch = broadcast_shapes(
            OP,
            &Shape::from(batch.clone()),
            &Shape::from(b.dims()[..b.ndim() - 2].to_vec()),
        )?;
        let with = |tail: &[usize]| {
            let mut dims = out_batch.dims().to_vec();
            dims.extend_from_slice(tail);
            dims
        };
        let x: Self = if out_batch.numel() == 0 || n == 0 || k == 0 {
            // Nothing to solve (however large the broadcast batch of empty matrices).
            Self::zeros_on(with(&[n, k]), b.device_handle())?
        } else {
            let piv = D::to_host(&pivots.expand(with(&[n]))?)?.try_to_vec()?;
            for p in piv.chunks(n) {
                check_pivots(p, n)?;
            }
            let host = |t: &Self, tail: &[usize]| -> Result<Vec<f64>> {
                D::to_host(&t.expand(with(tail))?)?
                    .try_cast::<f64>()?
                    .try_to_vec()
            };
            let a = host(ld, &[n, n])?;
            let mut x = host(b, &[n, k])?;
            for ((a, piv), x) in a.chunks(n * n).zip(piv.chunks(n)).zip(x.chunks_mut(n * k)) {
                sytrs_lower(a, n, piv, x, k);
            }
            upload(x, with(&[n, k]), ld)?
        };
        if recording(&[ld]) {
            return Ok(record(x, Op::NoGrad(OP), &[ld, b], &[]));
        }
        // Linear in `b` with a symmetric `A`: the gradient is the same solve, summed over the
        // broadcast batch.
        let (ld, pivots, shape) = (ld.detach(), pivots.clone(), b.shape().clone());
        crate::autograd::custom(
            OP,
            &[b],
            |_| Ok(x),
            move |g, _, _| {
                let gb = Tensor::try_ldl_solve(&ld, &pivots, g)?;
                Ok(vec![Some(crate::autograd::sum_to(&gb, &shape)?)])
            },
        )
    }

    /// [`Tensor::try_ormqr`], panicking with its error.
    ///
    /// # Panics
    /// When `try_ormqr` returns an `Err`.
    #[track_caller]
    pub fn ormqr(&self, tau: &Self, other: &Self, left: bool, transpose: bool) -> Self {
        self.try_ormqr(tau, other, left, transpose).or_panic()
    }

    /// [`Tensor::try_ldl_solve`], panicking with its error.
    ///
    /// # Panics
    /// When `try_ldl_solve` returns an `Err`.
    #[track_caller]
    pub fn ldl_solve(ld: &Self, pivots: &Tensor<i32, D>, b: &Self) -> Self {
        Self::try_ldl_solve(ld, pivots, b).or_panic()
    }
}

/// LAPACK's `dgeqr2` on a row-major `m × n` matrix: `tau` gets `min(m, n)` scalars.
fn geqr2(a: &mut [f64], m: usize, n: usize, tau: &mut [f64]) {
    let mut w = vec![0.0; n];
    for i in 0..m.min(n) {
        // `dlarfg`: the reflector taking column i's entries i.. to (β, 0, …, 0).
        let alpha = a[i * n + i];
        let below = || (i + 1..m).map(|r| a[r * n + i]);
        let scale = below().fold(0.0f64, |s, v| s.max(v.abs()));
        let xnorm = if scale > 0.0 && scale.is_finite() {
            scale
                * below()
                    .map(|v| (v / scale) * (v / scale))
                    .sum::<f64>()
                    .sqrt()
        } else {
            below().map(|v| v * v).sum::<f64>().sqrt() // 0, or inf/NaN carried
        };
        if xnorm == 0.0 {
            tau[i] = 0.0;
            continue;
        }
        let beta = -alpha.hypot(xnorm).copysign(alpha);
        tau[i] = (beta - alpha) / beta;
        let s = 1.0 / (alpha - beta);
        for r in i + 1..m {
            a[r * n + i] *= s;
        }
        a[i * n + i] = beta;
        // `dlarf`: the columns to the right ← H·them, H = I - τ·v·vᵀ with v = (1, a[i+1.., i]).
        let w = &mut w[i + 1..];
        w.copy_from_slice(&a[i * n + i + 1..(i + 1) * n]);
        for r in i + 1..m {
            let v = a[r * n + i];
            for (wc, x) in w.iter_mut().zip(&a[r * n + i + 1..(r + 1) * n]) {
                *wc += v * x;
            }
        }
        w.iter_mut().for_each(|wc| *wc *= tau[i]);
        for r in i..m {
            let v = if r == i { 1.0 } else { a[r * n + i] };
            for (x, wc) in a[r * n + i + 1..(r + 1) * n].iter_mut().zip(w.iter()) {
                *x -= v * wc;
            }
        }
    }
}

/// The index and value of the first largest `|f(i)|` over `range` (BLAS `idamax`: a NaN is
/// never the largest), or `(range.start, 0)` when it is empty.
fn idamax(range: std::ops::Range<usize>, f: impl Fn(usize) -> f64) -> (usize, f64) {
    let mut best = (range.start, 0.0);
    for (n, i) in range.enumerate() {
        let v = f(i).abs();
        if n == 0 || v > best.1 {
            best = (i, v);
        }
    }
    best
}

/// LAPACK's `dsytf2` with `uplo = 'L'` on a row-major `n × n` matrix (0-based here, the
/// pivots 1-based as LAPACK's); returns `info`.
fn sytf2_lower(a: &mut [f64], n: usize, piv: &mut [i32]) -> i32 {
    let alpha = (1.0 + 17f64.sqrt()) / 8.0;
    let at = |i: usize, j: usize| i * n + j;
    let mut info = 0;
    let mut k = 0;
    while k < n {
        let mut kstep = 1;
        let mut kp = k;
        let absakk = a[at(k, k)].abs();
        let (imax, colmax) = idamax(k + 1..n, |i| a[at(i, k)]);
        if absakk.max(colmax) == 0.0 || absakk.is_nan() {
            if info == 0 {
                info = k as i32 + 1;
            }
        } else {
            if absakk < alpha * colmax {
                // The largest off-diagonal entry in row/column `imax` of the trailing matrix.
                let (_, mut rowmax) = idamax(k..imax, |j| a[at(imax, j)]);
                if imax + 1 < n {
                    rowmax = rowmax.max(idamax(imax + 1..n, |i| a[at(i, imax)]).1);
                }
                if absakk >= alpha * colmax * (colmax / rowmax) {
                    kp = k;
                } else if a[at(imax, imax)].abs() >= alpha * rowmax {
                    kp = imax;
                } else {
                    kp = imax;
                    kstep = 2;
                }
            }
            let kk = k + kstep - 1;
            if kp != kk {
                // Swap rows and columns `kk` and `kp` of the trailing lower triangle.
                for i in kp + 1..n {
                    a.swap(at(i, kk), at(i, kp));
                }
                for j in kk + 1..kp {
                    a.swap(at(j, kk), at(kp, j));
                }
                a.swap(at(kk, kk), at(kp, kp));
                if kstep == 2 {
                    a.swap(at(k + 1, k), at(kp, k));
                }
            }
            if kstep == 1 {
                if k + 1 < n {
                    let d11 = 1.0 / a[at(k, k)];
                    for j in k + 1..n {
                        let t = -d11 * a[at(j, k)];
                        for i in j..n {
                            a[at(i, j)] += a[at(i, k)] * t;
                        }
                    }
                    for i in k + 1..n {
                        a[at(i, k)] *= d11;
                    }
                }
            } else if k + 2 < n {
                let d21 = a[at(k + 1, k)];
                let d11 = a[at(k + 1, k + 1)] / d21;
                let d22 = a[at(k, k)] / d21;
                let t = 1.0 / (d11 * d22 - 1.0);
                let d21 = t / d21;
                for j in k + 2..n {
                    let wk = d21 * (d11 * a[at(j, k)] - a[at(j, k + 1)]);
                    let wkp1 = d21 * (d22 * a[at(j, k + 1)] - a[at(j, k)]);
                    for i in j..n {
                        a[at(i, j)] -= a[at(i, k)] * wk + a[at(i, k + 1)] * wkp1;
                    }
                    a[at(j, k)] = wk;
                    a[at(j, k + 1)] = wkp1;
                }
            }
        }
        if kstep == 1 {
            piv[k] = kp as i32 + 1;
        } else {
            piv[k] = -(kp as i32 + 1);
            piv[k + 1] = piv[k];
        }
        k += kstep;
    }
    info
}

/// Whether `piv` is in `sytrf`'s format for `n` rows: each in `±1..=n`, the negative ones in
/// equal pairs (so the solve never reads past the matrix).
fn check_pivots(piv: &[i32], n: usize) -> Result<()> {
    let mut k = 0;
    while k < n {
        let p = piv[k];
        let pair = p < 0 && k + 1 < n && piv[k + 1] == p;
        if p == 0 || p.unsigned_abs() as usize > n || (p < 0 && !pair) {
            return Err(Error::InvalidArgument {
                op: "ldl_solve",
                msg: format!(
                    "pivot {p} at {k} is not in LAPACK's format for {n} rows (±1..={n}, negative ones in equal pairs); pass the pivots of ldl_factor"
                ),
            });
        }
        k += if p < 0 { 2 } else { 1 };
    }
    Ok(())
}

/// LAPACK's `dsytrs` with `uplo = 'L'`: `b` (row-major `n × r`) ← `A⁻¹·b` from `sytf2`'s
/// factors, pivots checked by [`check_pivots`].
fn sytrs_lower(a: &[f64], n: usize, piv: &[i32], b: &mut [f64], r: usize) {
    let swap_rows = |b: &mut [f64], i: usize, j: usize| {
        if i != j {
            for c in 0..r {
                b.swap(i * r + c, j * r + c);
            }
        }
    };
    // L·D·y = b, forward.
    let mut k = 0;
    while k < n {
        if piv[k] > 0 {
            swap_rows(b, k, piv[k] as usize - 1);
            for i in k + 1..n {
                let l = a[i * n + k];
                for c in 0..r {
                    b[i * r + c] -= l * b[k * r + c];
                }
            }
            let inv = 1.0 / a[k * n + k];
            b[k * r..(k + 1) * r].iter_mut().for_each(|v| *v *= inv);
            k += 1;
        } else {
            swap_rows(b, k + 1, piv[k].unsigned_abs() as usize - 1);
            for i in k + 2..n {
                let (l0, l1) = (a[i * n + k], a[i * n + k + 1]);
                for c in 0..r {
                    b[i * r + c] = (b[i * r + c] - l0 * b[k * r + c]) - l1 * b[(k + 1) * r + c];
                }
            }
            let akm1k = a[(k + 1) * n + k];
            let akm1 = a[k * n + k] / akm1k;
            let ak = a[(k + 1) * n + k + 1] / akm1k;
            let denom = akm1 * ak - 1.0;
            for c in 0..r {
                let bkm1 = b[k * r + c] / akm1k;
                let bk = b[(k + 1) * r + c] / akm1k;
                b[k * r + c] = (ak * bkm1 - bk) / denom;
                b[(k + 1) * r + c] = (akm1 * bk - bkm1) / denom;
            }
            k += 2;
        }
    }
    // Lᵀ·x = y, backward.
    let dot = |b: &[f64], col: usize, c: usize| {
        (col + 1..n)
            .map(|i| a[i * n + col] * b[i * r + c])
            .sum::<f64>()
    };
    let mut k = n;
    while k > 0 {
        let kk = k - 1;
        if piv[kk] > 0 {
            for c in 0..r {
                b[kk * r + c] -= dot(b, kk, c);
            }
            swap_rows(b, kk, piv[kk] as usize - 1);
            k -= 1;
        } else {
            for c in 0..r {
                b[kk * r + c] -= dot(b, kk, c);
                let s = (kk + 1..n)
                    .map(|i| a[i * n + kk - 1] * b[i * r + c])
                    .sum::<f64>();
                b[(kk - 1) * r + c] -= s;
            }
            swap_rows(b, kk, piv[kk].unsigned_abs() as usize - 1);
            k -= 2;
        }
    }
}
