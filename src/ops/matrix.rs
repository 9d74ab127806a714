//! Matrix functions composed of the factorizations (`ops/decomp.rs`) and `matmul`, under
//! PyTorch's `linalg` names: `vector_norm` (every order, negative ones included),
//! `matrix_norm`, `cond`, `matrix_rank`, `logdet` and `multi_dot` (the cheapest
//! multiplication order, NumPy's `linalg.multi_dot`), and the solvers `cholesky_solve`,
//! `solve_triangular` and `lstsq` (through `solve` and `pinv`). The SVD-based ones (`matrix_norm` of
//! order ±2 or `Nuc`, `cond`, `matrix_rank`) need the `linalg` feature and differentiate
//! through `svd`'s rule.
//!
//! ```
//! use typed_tensor::prelude::*;
//! use typed_tensor::ops::matrix::MatrixNorm;
//!
//! let a = tensor![[1.0f64, -2.0], [3.0, 4.0]];
//! assert_eq!(a.matrix_norm(MatrixNorm::Ord(1.0), false).item(), 6.0); // largest column sum
//! assert_eq!(a.matrix_norm(MatrixNorm::Ord(f64::INFINITY), false).item(), 7.0);
//! assert_eq!(tensor![3.0f32, -4.0].vector_norm(f64::NEG_INFINITY, &[], false).item(), 3.0);
//! let v = tensor![1.0f64, 2.0];
//! let chain = Tensor::multi_dot(&[&v, &a, &a, &v]); // v·a·a·v, a scalar
//! assert_eq!(chain.dims(), &[] as &[usize]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::{Element, FloatOf, NumElement};
use crate::error::{Error, OrPanic, Result};
use crate::tensor::Tensor;

type Float<T, D> = Tensor<FloatOf<T>, D>;

/// A matrix norm's order (PyTorch `linalg.matrix_norm`'s `ord`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MatrixNorm {
    /// The Frobenius norm, `sqrt(Σ|a_ij|²)`.
    Fro,
    /// The nuclear norm, the sum of the singular values.
    Nuc,
    /// `1`/`-1`: the largest/smallest column sum of magnitudes; `inf`/`-inf`: the
    /// largest/smallest row sum; `2`/`-2`: the largest/smallest singular value.
    Ord(f64),
}

/// `(m, n)` of the last two dimensions, or the `Err` naming `op`.
fn matrix_dims<T: Element, D: Backend>(
    op: &'static str,
    a: &Tensor<T, D>,
) -> Result<(usize, usize)> {
    a.shape().matrix_dims(op, false)
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// The `ord`-norm over `axes` (all when empty; PyTorch `linalg.vector_norm`): `ord >= 0`
    /// and `inf` as [`Tensor::try_norm`]; `-inf` is the smallest magnitude and a negative
    /// `ord` gives `(Σ|x|^ord)^(1/ord)` (0 when an element is 0). As [`FloatOf<T>`].
    ///
    /// # Errors
    /// `InvalidArgument` for a NaN `ord`; `Axis` for bad axes; `EmptyReduction` for `-inf`
    /// over an empty slice.
    pub fn try_vector_norm(&self, ord: f64, axes: &[i64], keepdim: bool) -> Result<Float<T, D>> {
        if ord.is_nan() {
            return Err(Error::InvalidArgument {
                op: "vector_norm",
                msg: "ord is NaN".into(),
            });
        }
        if ord >= 0.0 {
            return self.try_norm(ord, axes, keepdim);
        }
        let a = self.try_cast::<FloatOf<T>>()?.try_abs()?;
        if ord == f64::NEG_INFINITY {
            return a
                .try_min(axes, keepdim)
                .map_err(|e| e.empty_named("vector_norm"));
        }
        a.try_pow(ord)?.try_sum(axes, keepdim)?.try_pow(1.0 / ord)
    }

    /// The matrix norm of each matrix in the last two dimensions, shape `(...)` (or
    /// `(..., 1, 1)` with `keepdim`; PyTorch `linalg.matrix_norm`, NumPy `linalg.norm` with
    /// `axis=(-2, -1)`). Every order is differentiable; ±2 and `Nuc` come from the SVD (the
    /// `linalg` feature).
    ///
    /// # Errors
    /// `InvalidArgument` for fewer than two dimensions or an order other than `Fro`, `Nuc`,
    /// ±1, ±2, ±inf; `EmptyReduction` for the order ±1, ±inf, ±2 of an empty matrix.
    pub fn try_matrix_norm(&self, ord: MatrixNorm, keepdim: bool) -> Result<Float<T, D>> {
        let op = "matrix_norm";
        matrix_dims(op, self)?;
        let a = || -> Result<Float<T, D>> { self.try_cast::<FloatOf<T>>()?.try_abs() };
        let out = match ord {
            MatrixNorm::Fro => return self.try_norm(2.0, &[-2, -1], keepdim),
            MatrixNorm::Nuc => self.singular_values()?.try_sum(&[-1], false)?,
            MatrixNorm::Ord(p) if p.abs() == 2.0 => {
                let s = self.singular_values()?;
                if p > 0.0 {
                    s.try_max(&[-1], false)
                } else {
                    s.try_min(&[-1], false)
                }
                .map_err(|e| e.empty_named(op))?
            }
            MatrixNorm::Ord(p) if p.abs() == 1.0 || p.is_infinite() => {
                // Column sums for ±1 (over the rows), row sums for ±inf.
                let sums = a()?.try_sum(&[if p.abs() == 1.0 { -2 } else { -1 }], false)?;
                if p > 0.0 {
                    sums.try_max(&[-1], false)
                } else {
                    sums.try_min(&[-1], false)
                }
                .map_err(|e| e.empty_named(op))?
            }
            MatrixNorm::Ord(p) => {
                return Err(Error::InvalidArgument {
                    op,
                    msg: format!("ord = {p} is not a matrix norm; use Fro, Nuc, ±1, ±2 or ±inf"),
                });
            }
        };
        if keepdim {
            out.unsqueeze(-1)?.unsqueeze(-1)
        } else {
            Ok(out)
        }
    }

    /// The singular values, `(..., min(m, n))`, descending; all NaN for a matrix holding NaN
    /// or ±inf (whose SVD does not converge), as PyTorch's norms give there.
    fn singular_values(&self) -> Result<Float<T, D>> {
        let x = self.try_cast::<FloatOf<T>>()?;
        let finite = x.try_is_finite()?.try_all(&[-2, -1], true)?;
        let zero = Tensor::scalar_on(<FloatOf<T> as Element>::ZERO, self.device_handle())?;
        let s = Tensor::try_where(&finite, &x, &zero)?.try_svd()?.1;
        let nan = Tensor::scalar_on(
            <FloatOf<T> as Element>::from_f64(f64::NAN),
            self.device_handle(),
        )?;
        Tensor::try_where(&finite.squeeze_dims(&[-1])?, &s, &nan)
    }

    /// The 2-norm condition number `σ_max / σ_min` of each matrix, shape `(...)` (PyTorch
    /// `linalg.cond` with its default order, NumPy `linalg.cond`): `inf` for a singular matrix,
    /// the zero matrix included (NumPy; PyTorch gives NaN there), NaN for one holding NaN or ±inf.
    /// Differentiable through the SVD.
    ///
    /// # Errors
    /// `InvalidArgument` for fewer than two dimensions; `EmptyReduction` for an empty matrix.
    pub fn try_cond(&self) -> Result<Float<T, D>> {
        matrix_dims("cond", self)?;
        let s = self.singular_values()?;
        let hi = s.try_max(&[-1], false).map_err(|e| e.empty_named("cond"))?;
        let lo = s.try_min(&[-1], false)?;
        // The zero matrix's 0 / 0 is inf too, as NumPy gives (PyTorch gives NaN there).
        let inf = Tensor::scalar_on(
            <FloatOf<T> as Element>::from_f64(f64::INFINITY),
            self.device_handle(),
        )?;
        Tensor::try_where(
            &lo.try_eq_scalar(<FloatOf<T> as Element>::ZERO)?,
            &inf,
            &hi.try_div(&lo)?,
        )
    }

    /// The numerical rank of each matrix, shape `(...)`, as i64: the count of singular values
    /// above `tol`, by default NumPy's `σ_max · max(m, n) · eps` with `eps` of
    /// [`FloatOf<T>`] (PyTorch `linalg.matrix_rank`, NumPy `linalg.matrix_rank`).
    ///
    /// # Errors
    /// `InvalidArgument` for fewer than two dimensions or a negative or NaN `tol`.
    pub fn try_matrix_rank(&self, tol: Option<f64>) -> Result<Tensor<i64, D>> {
        let (m, n) = matrix_dims("matrix_rank", self)?;
        if tol.is_some_and(|t| t.is_nan() || t < 0.0) {
            return Err(Error::InvalidArgument {
                op: "matrix_rank",
                msg: format!("tol = {} must be a number >= 0", tol.unwrap_or_default()),
            });
        }
        let s = self.singular_values()?.try_cast::<f64>()?;
        if m.min(n) == 0 {
            return Tensor::zeros_on(&self.dims()[..self.ndim() - 2], self.device_handle());
        }
        let bound = match tol {
            Some(t) => Tensor::scalar_on(t, self.device_handle())?,
            None => s
                .narrow(-1, 0, 1)?
                .try_mul_scalar(m.max(n) as f64 * <FloatOf<T> as Element>::DTYPE.eps())?,
        };
        s.try_gt(&bound)?.try_sum(&[-1], false)
    }

    /// `log(det(A))` of each square matrix, shape `(...)` (PyTorch `logdet`): NaN where the
    /// determinant is negative, `-inf` where it is 0. Differentiable as `slogdet`'s log.
    ///
    /// # Errors
    /// As [`Tensor::try_slogdet`].
    pub fn try_logdet(&self) -> Result<Float<T, D>> {
        let (sign, log) = self.try_slogdet()?;
        let zero = Tensor::scalar_on(<FloatOf<T> as Element>::ZERO, self.device_handle())?;
        let nan = log.try_full_like(<FloatOf<T> as Element>::from_f64(f64::NAN))?;
        Tensor::try_where(&sign.try_lt(&zero)?, &nan, &log)
    }

    /// `X` with `A · X = B` for `A = L·Lᵀ` given its Cholesky factor `l` (`self` is `B`; PyTorch
    /// `cholesky_solve(B, L, upper)`, with `upper` for `A = Uᵀ·U`): two triangular solves.
    /// Shapes as [`Tensor::try_solve`]. Differentiable in both.
    ///
    /// # Errors
    /// As [`Tensor::try_solve`] (`Singular` for a zero on the factor's diagonal).
    pub fn try_cholesky_solve(&self, l: &Self, upper: bool) -> Result<Float<T, D>> {
        let lf = l.try_cast::<FloatOf<T>>()?;
        let lower = if upper { lf.transpose(-1, -2)? } else { lf };
        let y = lower.try_tril(0)?.try_solve(&self.try_cast()?)?;
        lower.try_tril(0)?.transpose(-1, -2)?.try_solve(&y)
    }

    /// `A⁻¹` for `A = L·Lᵀ` given its Cholesky factor `self` (`(..., n, n)`; PyTorch
    /// `cholesky_inverse(L, upper)`, with `upper` for `A = Uᵀ·U`): the identity solved by
    /// [`Tensor::try_cholesky_solve`]. Only the factor's triangle is read. Differentiable.
    ///
    /// # Errors
    /// `InvalidArgument` for a factor that is not a (batch of) square matrices; as
    /// [`Tensor::try_solve`] (`Singular` for a zero on the factor's diagonal).
    pub fn try_cholesky_inverse(&self, upper: bool) -> Result<Float<T, D>> {
        let (n, m) = matrix_dims("cholesky_inverse", self)?;
        if n != m {
            return Err(Error::InvalidArgument {
                op: "cholesky_inverse",
                msg: format!(
                    "needs square factors (..., n, n), got shape {}",
                    self.shape()
                ),
            });
        }
        let eye = if self.numel() == 0 {
            Float::<T, D>::zeros_on(self.shape().clone(), self.device_handle())?
        } else {
            Float::<T, D>::identity_on(n, n, self.device_handle())?.expand(self.shape().clone())?
        };
        eye.try_cholesky_solve(&self.try_cast()?, upper)
    }

    /// `X` with `A · X = B` (or `X · A = B` when not `left`) for the triangle of `self`, `A`,
    /// read from its upper or lower part, with ones on the diagonal when `unitriangular`
    /// (PyTorch `linalg.solve_triangular`); the other part is ignored. `b` is `(..., n, k)`
    /// (`(..., k, n)` when not `left`). Differentiable.
    ///
    /// # Errors
    /// As [`Tensor::try_solve`].
    pub fn try_solve_triangular(
        &self,
        b: &Self,
        upper: bool,
        left: bool,
        unitriangular: bool,
    ) -> Result<Float<T, D>> {
        let a = self.try_cast::<FloatOf<T>>()?;
        let tri = |k| if upper { a.try_triu(k) } else { a.try_tril(k) };
        // An empty batch has no diagonal to set (and its n × n identity may not fit: a
        // (0, 2^33, 2^33) batch, as the fuzzer found in `lu`'s backward).
        let a = if unitriangular && a.numel() > 0 {
            let (n, m) = matrix_dims("solve_triangular", &a)?;
            let off = tri(if upper { 1 } else { -1 })?;
            off.try_add(&Tensor::identity_on(n, m, a.device_handle())?)?
        } else {
            tri(0)?
        };
        let b = b.try_cast::<FloatOf<T>>()?;
        if left {
            a.try_solve(&b)
        } else {
            // X·A = B  ⇔  Aᵀ·Xᵀ = Bᵀ.
            a.transpose(-1, -2)?
                .try_solve(&b.transpose(-1, -2)?)?
                .transpose(-1, -2)
        }
    }

    /// The least-squares solution `X` minimising `‖A·X - B‖` of each `(m, n)` matrix `A`
    /// (`self`) and `b` `(m, k)` or `(m,)`, with the smallest norm when `A` is rank-deficient
    /// (NumPy `linalg.lstsq`'s solution, PyTorch `linalg.lstsq(..).solution` with the `gelsd`
    /// driver): `pinv(A) · B`. Differentiable where `A` has full rank.
    ///
    /// # Errors
    /// As [`Tensor::try_pinv`]; `ShapeMismatch` when `b`'s rows differ from `m`.
    pub fn try_lstsq(&self, b: &Self) -> Result<Float<T, D>> {
        let (m, _) = matrix_dims("lstsq", self)?;
        let rows = if b.ndim() == 1 {
            b.dims()[0]
        } else {
            b.dims().get(b.ndim().wrapping_sub(2)).copied().unwrap_or(0)
        };
        if b.ndim() == 0 || rows != m {
            return Err(Error::ShapeMismatch {
                op: "lstsq",
                lhs: self.shape().clone(),
                rhs: b.shape().clone(),
                msg: format!("b needs {m} rows, one per row of A"),
            });
        }
        let p = self.try_pinv()?;
        let b = b.try_cast::<FloatOf<T>>()?;
        if b.ndim() == 1 {
            p.try_matmul(&b.unsqueeze(-1)?)?.squeeze_dims(&[-1])
        } else {
            p.try_matmul(&b)
        }
    }

    /// Each slice along `axis` scaled down to `p`-norm `maxnorm` where its norm exceeds it
    /// (PyTorch `renorm`: the scale is `maxnorm / (norm + 1e-7)`); the others unchanged. As
    /// `FloatOf<T>`.
    ///
    /// # Errors
    /// `Axis` for a bad axis; `InvalidArgument` for a `p` that is not a norm order or a
    /// negative `maxnorm`.
    pub fn try_renorm(&self, p: f64, axis: i64, maxnorm: f64) -> Result<Float<T, D>> {
        let ax = self.shape().axis("renorm", axis)?;
        if maxnorm.is_nan() || maxnorm < 0.0 {
            return Err(Error::InvalidArgument {
                op: "renorm",
                msg: format!("maxnorm = {maxnorm} must be a number >= 0"),
            });
        }
        let others: Vec<i64> = (0..self.ndim() as i64)
            .filter(|&d| d != ax as i64)
            .collect();
        let x = self.try_cast::<FloatOf<T>>()?;
        // A 1-d tensor's slices are its elements (an empty axis list would mean all axes).
        let norm = if others.is_empty() {
            x.unsqueeze(-1)?.try_norm(p, &[-1], false)
        } else {
            x.try_norm(p, &others, true)
        };
        let norm = norm.map_err(|e| e.invalid_named("renorm"))?;
        let cap = <FloatOf<T> as Element>::from_f64(maxnorm);
        let scale = norm
            .try_add_scalar(<FloatOf<T> as Element>::from_f64(1e-7))?
            .try_rdiv_scalar(cap)?;
        let one = Tensor::scalar_on(<FloatOf<T> as Element>::ONE, self.device_handle())?;
        let scale = Tensor::try_where(&norm.try_gt_scalar(cap)?, &scale, &one)?;
        x.try_mul(&scale)
    }

    /// The product of a chain of matrices in the cheapest order (NumPy `linalg.multi_dot`,
    /// PyTorch `linalg.multi_dot`): the first may be 1-d (a row vector) and the last 1-d (a
    /// column vector), the rest 2-d; the order is chosen by the textbook dynamic program over
    /// the dimensions. The result drops the vector dimensions, as `matmul` does.
    ///
    /// # Errors
    /// `InvalidArgument` for fewer than two tensors or a tensor of the wrong rank;
    /// `ShapeMismatch` when neighbouring dimensions differ; `Device` across devices.
    pub fn try_multi_dot(tensors: &[&Self]) -> Result<Self> {
        let op = "multi_dot";
        let k = tensors.len();
        if k < 2 {
            return Err(Error::InvalidArgument {
                op,
                msg: format!("needs at least two tensors, got {k}"),
            });
        }
        let mut mats = Vec::with_capacity(k);
        for (i, t) in tensors.iter().enumerate() {
            let vector_ok = (i == 0 || i == k - 1) && t.ndim() == 1;
            mats.push(match t.ndim() {
                2 => (*t).clone(),
                1 if vector_ok && i == 0 => t.unsqueeze(0)?,
                1 if vector_ok => t.unsqueeze(1)?,
                _ => {
                    return Err(Error::InvalidArgument {
                        op,
                        msg: format!(
                            "tensor {i} has shape {}; the first and last may be 1-d, every tensor must be 2-d otherwise",
                            t.shape()
                        ),
                    });
                }
            });
        }
        for (i, w) in mats.windows(2).enumerate() {
            if w[0].dims()[1] != w[1].dims()[0] {
                return Err(Error::ShapeMismatch {
                    op,
                    lhs: tensors[i].shape().clone(),
                    rhs: tensors[i + 1].shape().clone(),
                    msg: format!("tensors {i} and {} cannot be multiplied", i + 1),
                });
            }
        }
        let mut dims: Vec<u128> = mats.iter().map(|m| m.dims()[0] as u128).collect();
        dims.push(mats[k - 1].dims()[1] as u128);
        let split = chain_order(&dims);
        let out = chain_product(&mats, &split, 0, k - 1)?;
        let first = if tensors[0].ndim() == 1 {
            out.squeeze_dims(&[0])?
        } else {
            out
        };
        if tensors[k - 1].ndim() == 1 {
            first.squeeze_dims(&[-1])
        } else {
            Ok(first)
        }
    }
}

/// `split[i][j]`: where the cheapest product of matrices `i..=j` splits, for matrices with
/// `dims[i] × dims[i + 1]` (the matrix-chain dynamic program; costs in u128, saturating).
fn chain_order(dims: &[u128]) -> Vec<Vec<usize>> {
    let k = dims.len() - 1;
    let mut cost = vec![vec![0u128; k]; k];
    let mut split = vec![vec![0usize; k]; k];
    for len in 1..k {
        for i in 0..k - len {
            let j = i + len;
            cost[i][j] = u128::MAX;
            for s in i..j {
                let c = cost[i][s].saturating_add(cost[s + 1][j]).saturating_add(
                    dims[i]
                        .saturating_mul(dims[s + 1])
                        .saturating_mul(dims[j + 1]),
                );
                if c < cost[i][j] {
                    cost[i][j] = c;
                    split[i][j] = s;
                }
            }
        }
    }
    split
}

/// The product of `mats[i..=j]` in the order `split` gives.
fn chain_product<T: NumElement, D: Backend>(
    mats: &[Tensor<T, D>],
    split: &[Vec<usize>],
    i: usize,
    j: usize,
) -> Result<Tensor<T, D>> {
    if i == j {
        return Ok(mats[i].clone());
    }
    let s = split[i][j];
    chain_product(mats, split, i, s)?.try_matmul(&chain_product(mats, split, s + 1, j)?)
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    plain_forms! {
        /// [`Tensor::try_vector_norm`], panicking with its error.
        vector_norm, try_vector_norm(ord: f64, axes: &[i64], keepdim: bool) -> Float<T, D>;
        /// [`Tensor::try_matrix_norm`], panicking with its error.
        matrix_norm, try_matrix_norm(ord: MatrixNorm, keepdim: bool) -> Float<T, D>;
        /// [`Tensor::try_cond`], panicking with its error.
        cond, try_cond() -> Float<T, D>;
        /// [`Tensor::try_matrix_rank`], panicking with its error.
        matrix_rank, try_matrix_rank(tol: Option<f64>) -> Tensor<i64, D>;
        /// [`Tensor::try_logdet`], panicking with its error.
        logdet, try_logdet() -> Float<T, D>;
        /// [`Tensor::try_renorm`], panicking with its error.
        renorm, try_renorm(p: f64, axis: i64, maxnorm: f64) -> Float<T, D>;
        /// [`Tensor::try_cholesky_inverse`], panicking with its error.
        cholesky_inverse, try_cholesky_inverse(upper: bool) -> Float<T, D>;
        /// [`Tensor::try_cholesky_solve`], panicking with its error.
        cholesky_solve, try_cholesky_solve(l: &Self, upper: bool) -> Float<T, D>;
        /// [`Tensor::try_solve_triangular`], panicking with its error.
        solve_triangular, try_solve_triangular(b: &Self, upper: bool, left: bool, unitriangular: bool) -> Float<T, D>;
        /// [`Tensor::try_lstsq`], panicking with its error.
        lstsq, try_lstsq(b: &Self) -> Float<T, D>;
    }

    /// [`Tensor::try_multi_dot`], panicking with its error.
    ///
    /// # Panics
    /// When [`Tensor::try_multi_dot`] returns an `Err`.
    #[track_caller]
    pub fn multi_dot(tensors: &[&Self]) -> Self {
        Self::try_multi_dot(tensors).or_panic()
    }
}
