//! The LU family (PyTorch `linalg.lu`, `linalg.lu_factor`, `linalg.lu_solve`), the matrix
//! exponential (`linalg.matrix_exp`, SciPy `expm`), NumPy's `tensorsolve`/`tensorinv`, and
//! `svdvals`. The LU factors come from the host factorization (`faer`, as every
//! decomposition here); everything else is composed of differentiable ops, so gradients flow
//! through all of them (the LU's by PyTorch's `linalg_lu_backward`).
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let a = tensor![[1.0f64, 2.0], [3.0, 4.0]];
//! let (p, l, u) = a.lu();
//! let back = p.matmul(&l).matmul(&u).to_vec();
//! assert!(back.iter().zip(a.to_vec()).all(|(x, y)| (x - y).abs() < 1e-12));
//! let (lu, pivots) = a.lu_factor();
//! assert_eq!(pivots.to_vec(), vec![2, 2]); // LAPACK's 1-based row swaps
//! let x = Tensor::lu_solve(&lu, &pivots, &tensor![[5.0f64], [6.0]]);
//! assert!((x.to_vec()[0] + 4.0).abs() < 1e-12);
//! let e = tensor![[0.0f64, 1.0], [0.0, 0.0]].matrix_exp(); // I + N for a nilpotent N
//! assert!(e.to_vec().iter().zip([1.0, 1.0, 0.0, 1.0]).all(|(x, y)| (x - y).abs() < 1e-15));
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::autograd::{Op, record};
use crate::backend::Backend;
use crate::device::Cpu;
use crate::dtype::{Dtype, FloatElement, FloatOf, NumElement};
use crate::error::{Error, OrPanic, Result};
use crate::tensor::Tensor;

type Float<T, D> = Tensor<FloatOf<T>, D>;
type Lu<T, D> = (Float<T, D>, Float<T, D>, Float<T, D>);

/// The permutation matrices `P` (`P[order[i], i] = 1`) of a stack of row orders, as f64 on the
/// host: shape `batch + (m, m)`.
fn permutations(orders: &[usize], batch: &[usize], m: usize) -> Result<Tensor<f64, Cpu>> {
    let dims: Vec<usize> = batch.iter().copied().chain([m, m]).collect();
    let mut p = Tensor::<f64, Cpu>::zeros(dims)?;
    {
        let mut data = p.data_mut()?;
        for (k, &row) in orders.iter().enumerate() {
            let (b, i) = (k / m, k % m);
            data[b * m * m + row * m + i] = 1.0;
        }
    }
    Ok(p)
}

/// LAPACK's pivots (1-based: row `i` was swapped with row `piv[i] - 1`, in order) of each
/// row order, `k` per matrix.
fn lapack_pivots(orders: &[usize], m: usize, k: usize) -> Vec<i32> {
    let mut pivots = Vec::with_capacity(orders.len() / m.max(1) * k);
    for order in orders.chunks(m.max(1)) {
        // `at[row]`: the current position of original row `row`; `row_at` its inverse.
        let mut at: Vec<usize> = (0..m).collect();
        let mut row_at: Vec<usize> = (0..m).collect();
        for (i, &want) in order.iter().take(k).enumerate() {
            let j = at[want];
            let other = row_at[i];
            row_at.swap(i, j);
            at[want] = i;
            at[other] = j;
            pivots.push(j as i32 + 1);
        }
    }
    pivots
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// The LU factors and the host's row orders.
    fn lu_parts(&self) -> Result<(Vec<usize>, Lu<T, D>)> {
        let (orders, l, u) = D::to_host(self)?.host_lu()?;
        let d = self.ndim();
        let m = self.dims()[d - 2];
        let p = permutations(&orders, &self.dims()[..d - 2], m)?.try_cast::<FloatOf<T>>()?;
        let dev = self.device_handle();
        let (p, l, u) = (
            D::from_host(&p, dev)?,
            D::from_host(&l, dev)?,
            D::from_host(&u, dev)?,
        );
        let saved: [&dyn crate::autograd::Tracked; 3] = [&p, &l, &u];
        let l2 = record(l.clone(), Op::Lu(0), &[self], &saved);
        let u2 = record(u.clone(), Op::Lu(1), &[self], &saved);
        Ok((orders, (p, l2, u2)))
    }

    /// The LU factorization with partial pivoting `self = P · L · U` of each `(m, n)`
    /// matrix (PyTorch `linalg.lu`, SciPy `linalg.lu`): `P` `(..., m, m)` a permutation, `L`
    /// `(..., m, k)` unit lower triangular, `U` `(..., k, n)` upper triangular, `k = min(m, n)`.
    /// A singular matrix factorizes too (a zero on `U`'s diagonal). Differentiable in `L`
    /// and `U` (PyTorch's formula, which assumes `U`'s `k × k` block is invertible).
    ///
    /// # Errors
    /// `InvalidArgument` with fewer than two dimensions, or without the `linalg` feature.
    pub fn try_lu(&self) -> Result<Lu<T, D>> {
        Ok(self.lu_parts()?.1)
    }

    /// The LU factorization packed as LAPACK's `getrf` returns it (PyTorch
    /// `linalg.lu_factor`): `LU` `(..., m, n)` holding `U` on and above the diagonal and `L`
    /// below it (its unit diagonal implied), and the 1-based Int32 `pivots` `(..., k)`: row
    /// `i` was swapped with row `pivots[i] - 1`, in order. Differentiable in `LU`.
    ///
    /// # Errors
    /// As [`Tensor::try_lu`].
    pub fn try_lu_factor(&self) -> Result<(Float<T, D>, Tensor<i32, D>)> {
        let (orders, (_, l, u)) = self.lu_parts()?;
        let d = self.ndim();
        let (m, n) = (self.dims()[d - 2], self.dims()[d - 1]);
        let k = m.min(n);
        let dev = self.device_handle();
        let zeros = |rows: usize, cols: usize| {
            let mut dims = self.dims()[..d - 2].to_vec();
            dims.extend([rows, cols]);
            Float::<T, D>::zeros_on(dims, dev)
        };
        let lower = Tensor::try_concat(&[&l.try_tril(-1)?, &zeros(m, n - k)?], -1)?;
        let upper = Tensor::try_concat(&[&u, &zeros(m - k, n)?], -2)?;
        let mut pdims = self.dims()[..d - 2].to_vec();
        pdims.push(k);
        let pivots = Tensor::from_vec_on(lapack_pivots(&orders, m, k), pdims, dev)?;
        Ok((lower.try_add(&upper)?, pivots))
    }

    plain_forms! {
        /// [`Tensor::try_lu`], panicking with its error.
        lu, try_lu() -> Lu<T, D>;
        /// [`Tensor::try_lu_factor`], panicking with its error.
        lu_factor, try_lu_factor() -> (Float<T, D>, Tensor<i32, D>);
        /// [`Tensor::try_svdvals`], panicking with its error.
        svdvals, try_svdvals() -> Float<T, D>;
        /// [`Tensor::try_tensorsolve`], panicking with its error.
        tensorsolve, try_tensorsolve(b: &Self) -> Float<T, D>;
        /// [`Tensor::try_tensorinv`], panicking with its error.
        tensorinv, try_tensorinv(ind: usize) -> Float<T, D>;
    }

    /// The singular values of each matrix, descending, `(..., min(m, n))` (PyTorch
    /// `linalg.svdvals`, NumPy `linalg.svd(compute_uv=False)`). Differentiable.
    ///
    /// # Errors
    /// As [`Tensor::try_svd`].
    pub fn try_svdvals(&self) -> Result<Float<T, D>> {
        Ok(self.try_svd()?.1)
    }

    /// `x` with `tensordot(self, x, x.ndim)` equal to `b` (NumPy `linalg.tensorsolve`):
    /// `self` has shape `b.shape + Q` with `prod(Q) == b.numel()`, and `x` has shape `Q`.
    ///
    /// # Errors
    /// `ShapeMismatch` when `self`'s leading dimensions are not `b`'s or `prod(Q)` differs
    /// from `b.numel()`; as [`Tensor::try_solve`].
    pub fn try_tensorsolve(&self, b: &Self) -> Result<Float<T, D>> {
        let (lead, q) = self.dims().split_at(b.ndim().min(self.ndim()));
        let n = b.numel();
        // Checked: an empty `self` may have trailing dimensions whose product overflows.
        let pq = q.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
        if lead != b.dims() || pq != Some(n) {
            return Err(Error::ShapeMismatch {
                op: "tensorsolve",
                lhs: self.shape().clone(),
                rhs: b.shape().clone(),
                msg: "needs a of shape b.shape + Q with prod(Q) == b.numel()".into(),
            });
        }
        self.try_reshape([n, n])?
            .try_solve(&b.try_reshape([n])?)?
            .try_reshape(q.to_vec())
    }

    /// The inverse of `self` with respect to `tensordot` over `ind` axes (NumPy
    /// `linalg.tensorinv`): for `self` of shape `A + B` with `A` its first `ind` dimensions
    /// and `prod(A) == prod(B)`, the result has shape `B + A`.
    ///
    /// # Errors
    /// `InvalidArgument` for `ind` 0 or beyond the rank, or `prod(A) != prod(B)`; as
    /// [`Tensor::try_inverse`].
    pub fn try_tensorinv(&self, ind: usize) -> Result<Float<T, D>> {
        let d = self.dims();
        if ind == 0 || ind > d.len() {
            return Err(Error::InvalidArgument {
                op: "tensorinv",
                msg: format!(
                    "ind = {ind} must lie in 1..={} for shape {}",
                    d.len(),
                    self.shape()
                ),
            });
        }
        let (a, b) = d.split_at(ind);
        let product = |d: &[usize]| {
            d.iter()
                .try_fold(1usize, |p, &x| p.checked_mul(x))
                .ok_or_else(|| Error::ShapeOverflow {
                    op: "tensorinv",
                    dims: d.to_vec(),
                })
        };
        let (pa, pb) = (product(a)?, product(b)?);
        if pa != pb {
            return Err(Error::InvalidArgument {
                op: "tensorinv",
                msg: format!(
                    "the first {ind} dimensions' product {pa} differs from the rest's {pb}"
                ),
            });
        }
        let out: Vec<usize> = b.iter().chain(a).copied().collect();
        self.try_reshape([pa, pb])?.try_inverse()?.try_reshape(out)
    }
}

impl<D: Backend> Tensor<i32, D> {
    /// The row order of `m` rows that each matrix's `k` pivots (the last axis) describe
    /// (`PA = LU` with `(PA)[i] = A[order[i]]`), checked, on the host: batch-major, `m` per
    /// matrix.
    fn pivot_orders_host(&self, op: &'static str, m: usize) -> Result<Vec<usize>> {
        if m == 0 {
            return Ok(Vec::new()); // no rows, however many matrices (2^39 empty ones, say)
        }
        let k = self.dims().last().copied().unwrap_or(0);
        let batch = (self.dims()[..self.ndim().saturating_sub(1)].iter())
            .try_fold(1usize, |a, &d| a.checked_mul(d))
            .filter(|b| b.checked_mul(m).is_some())
            .ok_or_else(|| Error::ShapeOverflow {
                op,
                dims: self.dims().to_vec(),
            })?;
        let piv = self.try_to_vec()?;
        let mut orders = crate::alloc::with_capacity(op, batch.saturating_mul(m))?;
        for b in 0..batch {
            let mut order: Vec<usize> = crate::alloc::collect(op, m, 0..m)?;
            for (i, &p) in piv[b * k..(b + 1) * k].iter().enumerate() {
                if p < 1 || p as usize > m {
                    return Err(Error::InvalidArgument {
                        op,
                        msg: format!(
                            "pivot {p} lies outside 1..={m}; pass the pivots of lu_factor"
                        ),
                    });
                }
                order.swap(i, p as usize - 1);
            }
            orders.extend(order);
        }
        Ok(orders)
    }

    /// [`Self::pivot_orders_host`] of square factors, as an Int64 tensor of shape
    /// `batch + (n, 1)`.
    fn pivot_orders(&self, n: usize) -> Result<Tensor<i64, D>> {
        let mut dims = self.dims()[..self.ndim() - 1].to_vec();
        dims.extend([n, 1]);
        let orders = self.pivot_orders_host("lu_solve", n)?;
        let orders = orders.into_iter().map(|i| i as i64).collect();
        Tensor::from_vec_on(orders, dims, self.device_handle())
    }
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// `P`, `L` and `U` of a packed LU factorization (PyTorch `lu_unpack`): `lu` `(..., m, n)`
    /// and the 1-based `pivots` `(..., k)`, `k = min(m, n)`, from
    /// [`Tensor::try_lu_factor`]; `P` `(..., m, m)` a permutation, `L` `(..., m, k)` unit
    /// lower triangular, `U` `(..., k, n)` upper triangular, with `P · L · U` the factored
    /// matrix, as [`Tensor::try_lu`] returns them. Reading the pivots reads them back from the
    /// device. Differentiable in `lu`.
    ///
    /// # Errors
    /// `InvalidArgument` for factors with fewer than 2 dimensions, pivots of another shape or
    /// outside `1..=m`; `Device` across devices.
    pub fn try_lu_unpack(lu: &Self, pivots: &Tensor<i32, D>) -> Result<(Self, Self, Self)> {
        const OP: &str = "lu_unpack";
        let d = lu.ndim();
        let (m, n) = match d {
            0 | 1 => (0, 0),
            _ => (lu.dims()[d - 2], lu.dims()[d - 1]),
        };
        let k = m.min(n);
        let fits = d >= 2
            && pivots.ndim() + 1 == d
            && pivots.dims()[..d - 2] == lu.dims()[..d - 2]
            && pivots.dims()[d - 2] == k;
        if !fits {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!(
                    "needs LU factors (..., m, n) and pivots (..., min(m, n)), got shapes {} and {}",
                    lu.shape(),
                    pivots.shape()
                ),
            });
        }
        crate::ops::device_ops::same_device(OP, lu, pivots)?;
        let dev = lu.device_handle();
        // P is m × m per matrix, where the factors may be m × 0: refused before the orders are.
        let mut p_dims = lu.dims()[..d - 2].to_vec();
        p_dims.extend([m, m]);
        let p_numel = crate::shape::Shape::new(p_dims).checked_numel(OP, 8)?;
        crate::alloc::check_bytes(OP, p_numel.saturating_mul(8))?;
        let orders = pivots.pivot_orders_host(OP, m)?;
        let p = permutations(&orders, &lu.dims()[..d - 2], m)?.try_cast::<T>()?;
        let p = D::from_host(&p, dev)?;
        let l = lu.narrow(-1, 0, k)?.try_tril(-1)?;
        let l = if l.numel() > 0 {
            l.try_add(&Tensor::identity_on(m, k, dev)?)?
        } else {
            l
        };
        let u = lu.narrow(-2, 0, k)?.try_triu(0)?;
        Ok((p, l, u))
    }

    /// [`Tensor::try_lu_unpack`], panicking with its error.
    ///
    /// # Panics
    /// When `try_lu_unpack` returns an `Err`.
    #[track_caller]
    pub fn lu_unpack(lu: &Self, pivots: &Tensor<i32, D>) -> (Self, Self, Self) {
        Self::try_lu_unpack(lu, pivots).or_panic()
    }
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// `X` with `A · X = B`, for `A` given by its packed LU factorization and pivots (PyTorch
    /// `linalg.lu_solve`, SciPy `lu_solve`): `lu` `(..., n, n)` and `pivots` `(..., n)` from
    /// [`Tensor::try_lu_factor`], `b` `(..., n, k)` with the same batch dimensions. Reading
    /// the pivots reads them back from the device. Differentiable in `lu` and `b`.
    ///
    /// # Errors
    /// `InvalidArgument` for a non-square `lu`, pivots of another shape or outside `1..=n`;
    /// `ShapeMismatch` when `b` does not have `lu`'s batch dimensions and `n` rows; as
    /// [`Tensor::try_solve`] (`Singular` for a zero on `U`'s diagonal).
    pub fn try_lu_solve(lu: &Self, pivots: &Tensor<i32, D>, b: &Self) -> Result<Self> {
        let op = "lu_solve";
        let d = lu.ndim();
        if d < 2 || lu.dims()[d - 1] != lu.dims()[d - 2] || pivots.ndim() + 1 != d {
            return Err(Error::InvalidArgument {
                op,
                msg: format!(
                    "needs square LU factors (..., n, n) and pivots (..., n), got shapes {} and {}",
                    lu.shape(),
                    pivots.shape()
                ),
            });
        }
        let n = lu.dims()[d - 1];
        if pivots.dims() != &lu.dims()[..d - 1] {
            return Err(Error::InvalidArgument {
                op,
                msg: format!(
                    "pivots of shape {} do not match LU factors {}",
                    pivots.shape(),
                    lu.shape()
                ),
            });
        }
        if b.ndim() != d || b.dims()[..d - 1] != lu.dims()[..d - 1] {
            return Err(Error::ShapeMismatch {
                op,
                lhs: lu.shape().clone(),
                rhs: b.shape().clone(),
                msg: "b needs the factors' batch dimensions and n rows: (..., n, k)".into(),
            });
        }
        crate::ops::device_ops::same_device(op, lu, b)?;
        let order = pivots.pivot_orders(n)?.expand(b.shape().clone())?;
        let pb = b.try_gather(-2, &order)?;
        let y = lu.try_solve_triangular(&pb, false, true, true)?;
        lu.try_solve_triangular(&y, true, true, false)
    }

    /// The first `n` columns of the product `H₁·H₂·…·H_k` of Householder reflectors
    /// `H_i = I - τ_i·v_i·v_iᵀ` (PyTorch `linalg.householder_product`, LAPACK `orgqr`): `self`
    /// `(..., m, n)` holds `v_i` below its diagonal in column `i` (an implicit 1 on the
    /// diagonal, zeros above), `tau` `(..., k)` with `k <= n <= m`; the result is
    /// `(..., m, n)`. With a QR factorization's reflectors it is the reduced `Q`.
    /// Differentiable in both (the reflectors are applied as products).
    ///
    /// # Errors
    /// `InvalidArgument` for an input with fewer than 2 dimensions, more columns than rows,
    /// or `tau` without the batch dimensions and at most `n` entries; `Device` across devices.
    pub fn try_householder_product(&self, tau: &Self) -> Result<Self> {
        const OP: &str = "householder_product";
        let d = self.ndim();
        let ok = d >= 2
            && self.dims()[d - 1] <= self.dims()[d - 2]
            && tau.ndim() == d - 1
            && tau.dims()[..d - 2] == self.dims()[..d - 2]
            && tau.dims()[d - 2] <= self.dims()[d - 1];
        if !ok {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!(
                    "needs reflectors (..., m, n) with n <= m and tau (..., k) with k <= n, got shapes {} and {}",
                    self.shape(),
                    tau.shape()
                ),
            });
        }
        crate::ops::device_ops::same_device(OP, self, tau)?;
        let (m, n, k) = (self.dims()[d - 2], self.dims()[d - 1], tau.dims()[d - 2]);
        let dev = self.device_handle();
        // The m × n identity, broadcast over the batch; each reflector applied from the left,
        // the last first: Q ← Q - τ_i·v_i·(v_iᵀ·Q).
        let size = m.checked_mul(n).ok_or_else(|| Error::ShapeOverflow {
            op: OP,
            dims: self.dims().to_vec(),
        })?;
        let eye = (0..size).map(|p| if p / n == p % n { T::ONE } else { T::ZERO });
        let eye = crate::alloc::collect(OP, size, eye)?;
        let mut batch = self.dims()[..d - 2].to_vec();
        let mut q = Tensor::from_vec_on(eye, [m, n], dev)?;
        if !batch.is_empty() {
            batch.extend([m, n]);
            q = q.expand(batch)?.try_contiguous()?;
        }
        for i in (0..k).rev() {
            let below: Vec<bool> = (0..m).map(|r| r > i).collect();
            let at: Vec<T> = (0..m)
                .map(|r| if r == i { T::ONE } else { T::ZERO })
                .collect();
            let column = self.narrow(-1, i, 1)?;
            let v = Tensor::try_where(
                &Tensor::from_vec_on(below, [m, 1], dev)?,
                &column,
                &Tensor::from_vec_on(at, [m, 1], dev)?,
            )?;
            let vt_q = v.transpose(-1, -2)?.try_matmul(&q)?;
            let t = tau.narrow(-1, i, 1)?.unsqueeze(-1)?;
            q = q.try_sub(&v.try_matmul(&vt_q)?.try_mul(&t)?)?;
        }
        Ok(q)
    }

    /// [`Tensor::try_householder_product`], panicking with its error.
    ///
    /// # Panics
    /// When `try_householder_product` returns an `Err`.
    #[track_caller]
    pub fn householder_product(&self, tau: &Self) -> Self {
        self.try_householder_product(tau).or_panic()
    }

    /// [`Tensor::try_lu_solve`], panicking with its error.
    ///
    /// # Panics
    /// When `try_lu_solve` returns an `Err`.
    #[track_caller]
    pub fn lu_solve(lu: &Self, pivots: &Tensor<i32, D>, b: &Self) -> Self {
        Self::try_lu_solve(lu, pivots, b).or_panic()
    }

    /// The matrix exponential `Σ Aᵏ/k!` of each square matrix (PyTorch `linalg.matrix_exp`,
    /// SciPy `linalg.expm`): Higham's scaling and squaring with the degree-13 Padé
    /// approximant, `s` halvings chosen from the largest 1-norm in the stack (read back from
    /// the device), computed in f32 for f16 and bf16; a matrix holding NaN or inf gives NaN.
    /// Differentiable (through `matmul` and `solve`).
    ///
    /// # Errors
    /// `InvalidArgument` for non-square input; as [`Tensor::try_solve`] (the `linalg`
    /// feature).
    pub fn try_matrix_exp(&self) -> Result<Self> {
        let d = self.ndim();
        if d < 2 || self.dims()[d - 1] != self.dims()[d - 2] {
            return Err(Error::InvalidArgument {
                op: "matrix_exp",
                msg: format!(
                    "needs square matrices in the last two dimensions, got shape {}",
                    self.shape()
                ),
            });
        }
        if self.numel() == 0 {
            return self.try_contiguous();
        }
        if const { matches!(T::DTYPE, Dtype::Float16 | Dtype::Bfloat16) } {
            return self.try_cast::<f32>()?.try_matrix_exp()?.try_cast::<T>();
        }
        expm(self).map_err(|e| e.invalid_named("matrix_exp"))
    }

    plain_forms! {
        /// [`Tensor::try_matrix_exp`], panicking with its error.
        matrix_exp, try_matrix_exp() -> Self;
    }
}

/// The degree-13 Padé coefficients of `exp` (Higham 2005, Table 2.3's `b_j`).
const PADE13: [f64; 14] = [
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
    1.0,
];

/// The 1-norm bound below which the degree-13 approximant is accurate to f64 rounding.
const THETA13: f64 = 5.371920351148152;

/// Scaling and squaring for a non-empty stack of square f32/f64 matrices.
fn expm<T: FloatElement, D: Backend>(a: &Tensor<T, D>) -> Result<Tensor<T, D>> {
    let n = a.dims()[a.ndim() - 1];
    let norm = crate::autograd::no_grad(|| -> Result<f64> {
        let col_sums = a.try_abs()?.try_sum(&[-2], false)?;
        Ok(col_sums.try_max(&[], false)?.try_item()?.to_f64())
    })?;
    if !norm.is_finite() {
        // NaN or inf in a matrix: NaN throughout, as PyTorch (the Padé solve would call the
        // matrix singular).
        return a.try_mul_scalar(T::from_f64(f64::NAN));
    }
    // Enough halvings to bring the norm under θ13; more than 1100 only repeat inf or NaN.
    let s = if norm > THETA13 {
        (norm / THETA13).log2().ceil().min(1100.0) as i32
    } else {
        0
    };
    let a = a.try_mul_scalar(T::from_f64(0.5f64.powi(s)))?;
    let eye = Tensor::<T, D>::eye_on(n, a.device_handle())?;
    let a2 = a.try_matmul(&a)?;
    let a4 = a2.try_matmul(&a2)?;
    let a6 = a4.try_matmul(&a2)?;
    let b = |k: usize| T::from_f64(PADE13[k]);
    let sum = |c6: usize, c4: usize, c2: usize| -> Result<Tensor<T, D>> {
        a6.try_mul_scalar(b(c6))?
            .try_add(&a4.try_mul_scalar(b(c4))?)?
            .try_add(&a2.try_mul_scalar(b(c2))?)
    };
    let u = a6
        .try_matmul(&sum(13, 11, 9)?)?
        .try_add(&sum(7, 5, 3)?)?
        .try_add(&eye.try_mul_scalar(b(1))?)?;
    let u = a.try_matmul(&u)?;
    let v = a6
        .try_matmul(&sum(12, 10, 8)?)?
        .try_add(&sum(6, 4, 2)?)?
        .try_add(&eye.try_mul_scalar(b(0))?)?;
    let mut r = v.try_sub(&u)?.try_solve(&v.try_add(&u)?)?;
    for _ in 0..s {
        r = r.try_matmul(&r)?;
    }
    Ok(r)
}
