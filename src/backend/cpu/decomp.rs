//! The host factorizations behind `ops::decomp` (`inverse`, `solve`, `svd`, `pinv`, `eigh`):
//! stacks of matrices read as f64 and factorized by `faer` (`kernels/linalg.rs`); every device
//! comes here through the host. Without the `linalg` feature each is an error naming it.

#[cfg(feature = "linalg")]
use crate::backend::cpu::kernels::linalg as k;
use crate::device::Cpu;
use crate::dtype::{FloatOf, NumElement};
use crate::error::{Error, Result};
#[cfg(feature = "linalg")]
use crate::shape::{Shape, broadcast_shapes};
use crate::tensor::Tensor;

#[cfg(feature = "linalg")]
/// A stack of `m × n` matrices as row-major f64, with the batch dimensions.
struct Stack {
    data: Vec<f64>,
    batch: Vec<usize>,
    m: usize,
    n: usize,
}

#[cfg(feature = "linalg")]
impl Stack {
    fn count(&self) -> usize {
        crate::shape::numel_of(self.batch.iter().copied())
    }
    fn matrix(&self, i: usize) -> &[f64] {
        &self.data[i * self.m * self.n..(i + 1) * self.m * self.n]
    }
}

#[cfg(feature = "linalg")]
/// `dims` with the batch dimensions in front.
fn with_batch(batch: &[usize], dims: &[usize]) -> Vec<usize> {
    batch.iter().chain(dims).copied().collect()
}

#[cfg(feature = "linalg")]
/// Packs one output per matrix into a tensor of shape `batch + dims`.
fn pack<T: NumElement>(
    parts: Vec<Vec<f64>>,
    batch: &[usize],
    dims: &[usize],
) -> Result<Tensor<FloatOf<T>, Cpu>> {
    Ok(Tensor::<f64, Cpu>::from_vec(parts.concat(), with_batch(batch, dims))?.cast())
}

#[cfg(feature = "linalg")]
/// `value` everywhere in a `(batch.., dims..)` result: the results of a stack of empty
/// matrices, made directly since such a stack can hold 2^40 of them (shape `(2^40, 0, 3)`).
fn filled<T: NumElement>(
    value: f64,
    batch: &[usize],
    dims: &[usize],
) -> Result<Tensor<FloatOf<T>, Cpu>> {
    Tensor::<f64, Cpu>::full(with_batch(batch, dims), value)?.try_cast()
}

/// The host results of `cholesky_ex`/`inv_ex`: the matrices and each one's `info`.
pub(crate) type HostEx<T> = (Tensor<FloatOf<T>, Cpu>, Tensor<i32, Cpu>);

/// The host results of `svd`: `(u, s, vh)`.
type HostSvd<T> = (
    Tensor<FloatOf<T>, Cpu>,
    Tensor<FloatOf<T>, Cpu>,
    Tensor<FloatOf<T>, Cpu>,
);
/// The host results of `eigh`: `(eigenvalues, eigenvectors)`; of `slogdet`: `(sign, log|det|)`.
type HostEigh<T> = (Tensor<FloatOf<T>, Cpu>, Tensor<FloatOf<T>, Cpu>);

/// The host results of `lu`: each matrix's row order (`a[perm[i]] = (l·u)[i]`, the stack's
/// orders one after another), `l` and `u`.
pub(crate) type HostLu<T> = (Vec<usize>, Tensor<FloatOf<T>, Cpu>, Tensor<FloatOf<T>, Cpu>);

/// The factorizations of a build without the `linalg` feature: each is this error.
#[cfg(not(feature = "linalg"))]
impl<T: NumElement> Tensor<T, Cpu> {
    fn linalg_off<R>(op: &'static str) -> Result<R> {
        Err(Error::InvalidArgument {
            op,
            msg: "this build of typed-tensor has no factorizations (the `linalg` cargo feature \
                  is off); enable it: typed-tensor = { features = [\"linalg\"] }"
                .into(),
        })
    }
    pub(crate) fn host_inverse(&self) -> Result<Tensor<FloatOf<T>, Cpu>> {
        Self::linalg_off("inverse")
    }
    pub(crate) fn host_solve(&self, _b: &Self) -> Result<Tensor<FloatOf<T>, Cpu>> {
        Self::linalg_off("solve")
    }
    pub(crate) fn host_svd(&self) -> Result<HostSvd<T>> {
        Self::linalg_off("svd")
    }
    pub(crate) fn host_pinv(&self) -> Result<Tensor<FloatOf<T>, Cpu>> {
        Self::linalg_off("pinv")
    }
    pub(crate) fn host_eigh(&self) -> Result<HostEigh<T>> {
        Self::linalg_off("eigh")
    }
    pub(crate) fn host_qr(&self) -> Result<HostEigh<T>> {
        Self::linalg_off("qr")
    }
    pub(crate) fn host_eig(&self) -> Result<HostEigh<T>> {
        Self::linalg_off("eig")
    }
    pub(crate) fn host_slogdet(&self) -> Result<HostEigh<T>> {
        Self::linalg_off("slogdet")
    }
    pub(crate) fn host_det(&self) -> Result<Tensor<FloatOf<T>, Cpu>> {
        Self::linalg_off("det")
    }
    pub(crate) fn host_cholesky(&self) -> Result<Tensor<FloatOf<T>, Cpu>> {
        Self::linalg_off("cholesky")
    }
    pub(crate) fn host_factor_ex(&self, op: &'static str) -> Result<HostEx<T>> {
        Self::linalg_off(op)
    }
    pub(crate) fn host_lu(&self) -> Result<HostLu<T>> {
        Self::linalg_off("lu")
    }
}

#[cfg(feature = "linalg")]
impl<T: NumElement> Tensor<T, Cpu> {
    /// `(m, n)` of the matrices in the last two dimensions; `square` demands `m == n`.
    fn matrix_dims(&self, op: &'static str, square: bool) -> Result<(usize, usize)> {
        self.shape().matrix_dims(op, square)
    }

    /// The matrices of the last two dimensions, converted to f64 (checked as in `matrix_dims`).
    fn matrices(&self, op: &'static str, square: bool) -> Result<Stack> {
        let (m, n) = self.matrix_dims(op, square)?;
        Ok(Stack {
            data: self.try_cast::<f64>()?.try_to_vec()?,
            batch: self.dims()[..self.ndim() - 2].to_vec(),
            m,
            n,
        })
    }

    /// The inverse of each square matrix in the last two dimensions: shape `(..., n, n)` in and
    /// out (NumPy `linalg.inv`).
    ///
    /// # Errors
    /// `InvalidArgument` when the last two dimensions are missing or not square; `Singular` when
    /// a pivot of the LU factorization is numerically zero (`|u_ii| ≤ n·ε·max|u_jj|` in f64), so
    /// `arange(9).reshape(3, 3)` is an error where NumPy returns huge values.
    /// `cholesky_ex` (`op` "cholesky_ex") or `inv_ex` (any other `op`): each matrix's factor
    /// or inverse, NaN where it fails, and PyTorch's `info` per matrix: 0, or the 1-based order
    /// of the first leading minor that is not positive-definite (the first zero pivot).
    pub(crate) fn host_factor_ex(&self, op: &'static str) -> Result<HostEx<T>> {
        let s = self.matrices(op, true)?;
        let batch_len = s.batch.iter().product::<usize>();
        if s.n == 0 {
            let info = Tensor::<i32, Cpu>::zeros(s.batch.clone())?;
            return Ok((filled::<T>(0.0, &s.batch, &[0, 0])?, info));
        }
        let mut info = crate::alloc::with_capacity(op, batch_len)?;
        let parts = (0..s.count())
            .map(|i| {
                let r = if op == "cholesky_ex" {
                    k::cholesky(s.matrix(i), s.n)
                } else {
                    k::inverse(s.matrix(i), s.n)
                };
                info.push(r.as_ref().map_or_else(|&k| k as i32 + 1, |_| 0));
                r.unwrap_or_else(|_| vec![f64::NAN; s.n * s.n])
            })
            .collect();
        let info = Tensor::<i32, Cpu>::from_vec(info, s.batch.clone())?;
        Ok((pack::<T>(parts, &s.batch, &[s.n, s.n])?, info))
    }

    pub(crate) fn host_inverse(&self) -> Result<Tensor<FloatOf<T>, Cpu>> {
        let s = self.matrices("inverse", true)?;
        if s.n == 0 {
            return filled::<T>(0.0, &s.batch, &[0, 0]);
        }
        let parts = (0..s.count())
            .map(|i| {
                k::inverse(s.matrix(i), s.n).map_err(|pivot| Error::Singular {
                    op: "inverse",
                    pivot,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        pack::<T>(parts, &s.batch, &[s.n, s.n])
    }

    /// `x` with `self · x = b` (NumPy `linalg.solve`): `self` is `(..., n, n)`; `b` is a vector
    /// `(n,)` (result `(..., n)`) or a stack `(..., n, k)` whose batch dimensions broadcast with
    /// `self`'s (result `(..., n, k)`).
    ///
    /// # Errors
    /// As [`Tensor::try_inverse`]; `ShapeMismatch` when `b`'s rows differ from `n` or the
    /// batch dimensions do not broadcast.
    pub(crate) fn host_solve(&self, b: &Self) -> Result<Tensor<FloatOf<T>, Cpu>> {
        const OP: &str = "solve";
        let n = self.matrix_dims(OP, true)?.1;
        let vector = b.ndim() == 1;
        let b2 = if vector { b.unsqueeze(-1)? } else { b.clone() };
        let bd = b2.dims();
        if bd.len() < 2 || bd[bd.len() - 2] != n {
            return Err(Error::ShapeMismatch {
                op: OP,
                lhs: self.shape().clone(),
                rhs: b.shape().clone(),
                msg: format!("b needs {n} rows (shape (n,) or (..., n, k)) to match the matrix"),
            });
        }
        let kc = bd[bd.len() - 1];
        let out_dims: &[usize] = if vector { &[n] } else { &[n, kc] };
        let batch = broadcast_shapes(
            OP,
            &Shape::new(self.dims()[..self.ndim() - 2].to_vec()),
            &Shape::new(bd[..bd.len() - 2].to_vec()),
        )?;
        let batch = batch.dims().to_vec();
        if n == 0 || kc == 0 {
            return filled::<T>(0.0, &batch, out_dims);
        }
        let a = self
            .broadcast_to(with_batch(&batch, &[n, n]))?
            .matrices(OP, true)?;
        let rhs = b2
            .broadcast_to(with_batch(&batch, &[n, kc]))?
            .matrices(OP, false)?;
        let parts = (0..a.count())
            .map(|i| {
                k::solve(a.matrix(i), n, rhs.matrix(i), kc)
                    .map_err(|pivot| Error::Singular { op: OP, pivot })
            })
            .collect::<Result<Vec<_>>>()?;
        pack::<T>(parts, &batch, out_dims)
    }

    /// The thin singular value decomposition `self = u · diag(s) · vh` of each `(m, n)` matrix
    /// (NumPy `linalg.svd(full_matrices=False)`): `u` is `(..., m, r)`, `s` `(..., r)` descending,
    /// `vh` `(..., r, n)`, with `r = min(m, n)`. Singular vectors are unique only up to sign.
    ///
    /// # Errors
    /// `InvalidArgument` with fewer than two dimensions or when the iteration does not converge.
    pub(crate) fn host_svd(&self) -> Result<HostSvd<T>> {
        let s = self.matrices("svd", false)?;
        let r = s.m.min(s.n);
        if r == 0 {
            let z = |dims: &[usize]| filled::<T>(0.0, &s.batch, dims);
            return Ok((z(&[s.m, 0])?, z(&[0])?, z(&[0, s.n])?));
        }
        let (mut us, mut ss, mut vs) = (vec![], vec![], vec![]);
        for i in 0..s.count() {
            let (u, sv, vh) = if r == 0 {
                (vec![], vec![], vec![])
            } else {
                k::svd(s.matrix(i), s.m, s.n).ok_or_else(|| no_convergence("svd"))?
            };
            us.push(u);
            ss.push(sv);
            vs.push(vh);
        }
        Ok((
            pack::<T>(us, &s.batch, &[s.m, r])?,
            pack::<T>(ss, &s.batch, &[r])?,
            pack::<T>(vs, &s.batch, &[r, s.n])?,
        ))
    }

    /// The Moore–Penrose pseudo-inverse of each `(m, n)` matrix, shape `(..., n, m)` (NumPy
    /// `linalg.pinv`, through the SVD).
    ///
    /// # Errors
    /// As [`Tensor::try_svd`].
    pub(crate) fn host_pinv(&self) -> Result<Tensor<FloatOf<T>, Cpu>> {
        let s = self.matrices("pinv", false)?;
        if s.m.min(s.n) == 0 {
            return filled::<T>(0.0, &s.batch, &[s.n, s.m]);
        }
        let parts = (0..s.count())
            .map(|i| match s.m.min(s.n) {
                0 => Some(vec![0.0; s.m * s.n]),
                _ => k::pinv(s.matrix(i), s.m, s.n),
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| no_convergence("pinv"))?;
        pack::<T>(parts, &s.batch, &[s.n, s.m])
    }

    /// Eigenvalues (ascending, `(..., n)`) and eigenvectors (the columns of `(..., n, n)`) of
    /// each symmetric matrix, read from its lower triangle (NumPy `linalg.eigh`, `UPLO='L'`).
    ///
    /// # Errors
    /// `InvalidArgument` for non-square input or when the iteration does not converge.
    /// The reduced QR factorization of each `(m, n)` matrix: `q` `(..., m, k)` and `r`
    /// `(..., k, n)` with `k = min(m, n)`.
    pub(crate) fn host_qr(&self) -> Result<HostEigh<T>> {
        let s = self.matrices("qr", false)?;
        let k = s.m.min(s.n);
        let (mut qs, mut rs) = (vec![], vec![]);
        for i in 0..s.count() {
            let (q, r) = if k == 0 {
                (vec![0.0; s.m * k], vec![0.0; k * s.n])
            } else {
                k::qr(s.matrix(i), s.m, s.n)
            };
            qs.push(q);
            rs.push(r);
        }
        Ok((
            pack::<T>(qs, &s.batch, &[s.m, k])?,
            pack::<T>(rs, &s.batch, &[k, s.n])?,
        ))
    }

    /// The eigenvalues `(..., n, 2)` and right eigenvectors `(..., n, n, 2)` (columns) of
    /// each general square matrix, as (re, im) pairs ([`k::eig`]).
    pub(crate) fn host_eig(&self) -> Result<HostEigh<T>> {
        let s = self.matrices("eig", true)?;
        if s.n == 0 || s.count() == 0 {
            return Ok((
                filled::<T>(0.0, &s.batch, &[s.n, 2])?,
                filled::<T>(0.0, &s.batch, &[s.n, s.n, 2])?,
            ));
        }
        if s.data.iter().any(|v| !v.is_finite()) {
            return Err(Error::InvalidArgument {
                op: "eig",
                msg: "the matrix has NaN or infinite entries; eigenvalues need finite ones".into(),
            });
        }
        let (mut ws, mut vs) = (vec![], vec![]);
        for i in 0..s.count() {
            let (w, v) = k::eig(s.matrix(i), s.n).ok_or_else(|| no_convergence("eig"))?;
            ws.push(w);
            vs.push(v);
        }
        Ok((
            pack::<T>(ws, &s.batch, &[s.n, 2])?,
            pack::<T>(vs, &s.batch, &[s.n, s.n, 2])?,
        ))
    }

    pub(crate) fn host_eigh(&self) -> Result<HostEigh<T>> {
        let s = self.matrices("eigh", true)?;
        if s.n == 0 {
            return Ok((
                filled::<T>(0.0, &s.batch, &[0])?,
                filled::<T>(0.0, &s.batch, &[0, 0])?,
            ));
        }
        let (mut ws, mut vs) = (vec![], vec![]);
        for i in 0..s.count() {
            let (w, v) = if s.n == 0 {
                (vec![], vec![])
            } else {
                k::eigh(s.matrix(i), s.n).ok_or_else(|| no_convergence("eigh"))?
            };
            ws.push(w);
            vs.push(v);
        }
        Ok((
            pack::<T>(ws, &s.batch, &[s.n])?,
            pack::<T>(vs, &s.batch, &[s.n, s.n])?,
        ))
    }
}

#[cfg(feature = "linalg")]
impl<T: NumElement> Tensor<T, Cpu> {
    /// The sign and `log|det|` of each square matrix, each of shape `(...)` (NumPy
    /// `linalg.slogdet`).
    ///
    /// # Errors
    /// `InvalidArgument` for non-square input.
    pub(crate) fn host_slogdet(&self) -> Result<HostEigh<T>> {
        let s = self.matrices("slogdet", true)?;
        if s.n == 0 {
            // The empty product: det 1 (NumPy, PyTorch).
            return Ok((
                filled::<T>(1.0, &s.batch, &[])?,
                filled::<T>(0.0, &s.batch, &[])?,
            ));
        }
        let (signs, logs): (Vec<f64>, Vec<f64>) =
            (0..s.count()).map(|i| k::slogdet(s.matrix(i), s.n)).unzip();
        Ok((
            pack::<T>(vec![signs], &s.batch, &[])?,
            pack::<T>(vec![logs], &s.batch, &[])?,
        ))
    }

    /// The lower Cholesky factor of each symmetric positive-definite matrix (read from its
    /// lower triangle), shape `(..., n, n)` (NumPy `linalg.cholesky`).
    ///
    /// # Errors
    /// `InvalidArgument` for non-square input, or a matrix that is not positive-definite.
    pub(crate) fn host_cholesky(&self) -> Result<Tensor<FloatOf<T>, Cpu>> {
        let s = self.matrices("cholesky", true)?;
        if s.n == 0 {
            return filled::<T>(0.0, &s.batch, &[0, 0]);
        }
        let parts = (0..s.count())
            .map(|i| {
                k::cholesky(s.matrix(i), s.n).map_err(|k| Error::InvalidArgument {
                    op: "cholesky",
                    msg: format!(
                        "matrix {i} of the stack is not positive-definite (its leading minor \
                         of order {} is not)",
                        k + 1
                    ),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        pack::<T>(parts, &s.batch, &[s.n, s.n])
    }

    /// The partial-pivot LU factorization of each `(m, n)` matrix: the row orders, `l`
    /// `(..., m, k)` unit lower triangular and `u` `(..., k, n)` upper triangular,
    /// `k = min(m, n)`. An empty matrix gives the identity order and empty factors.
    ///
    /// # Errors
    /// `InvalidArgument` with fewer than two dimensions.
    pub(crate) fn host_lu(&self) -> Result<HostLu<T>> {
        let s = self.matrices("lu", false)?;
        let k = s.m.min(s.n);
        if k == 0 {
            let order = crate::alloc::collect("lu", s.m, 0..s.m)?;
            let count = if s.m == 0 { 0 } else { s.count() };
            let total = count.checked_mul(s.m).ok_or_else(|| Error::ShapeOverflow {
                op: "lu",
                dims: self.dims().to_vec(),
            })?;
            let orders =
                crate::alloc::collect("lu", total, order.iter().copied().cycle().take(total))?;
            return Ok((
                orders,
                filled::<T>(0.0, &s.batch, &[s.m, 0])?,
                filled::<T>(0.0, &s.batch, &[0, s.n])?,
            ));
        }
        let (mut orders, mut ls, mut us) = (vec![], vec![], vec![]);
        for i in 0..s.count() {
            let (p, l, u) = k::lu_factors(s.matrix(i), s.m, s.n);
            orders.extend(p);
            ls.push(l);
            us.push(u);
        }
        Ok((
            orders,
            pack::<T>(ls, &s.batch, &[s.m, k])?,
            pack::<T>(us, &s.batch, &[k, s.n])?,
        ))
    }

    /// The determinant of each square matrix, `sign · exp(log|det|)` in f64, shape `(...)`.
    ///
    /// # Errors
    /// `InvalidArgument` for non-square input.
    pub(crate) fn host_det(&self) -> Result<Tensor<FloatOf<T>, Cpu>> {
        let s = self.matrices("det", true)?;
        if s.n == 0 {
            return filled::<T>(1.0, &s.batch, &[]);
        }
        let dets = (0..s.count())
            .map(|i| {
                let (sign, log) = k::slogdet(s.matrix(i), s.n);
                sign * log.exp()
            })
            .collect();
        pack::<T>(vec![dets], &s.batch, &[])
    }
}

#[cfg(feature = "linalg")]
fn no_convergence(op: &'static str) -> Error {
    Error::InvalidArgument {
        op,
        msg: "the iteration did not converge (is there a NaN or inf in the input?)".into(),
    }
}
