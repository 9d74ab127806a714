//! Dense factorizations of one row-major f64 matrix at a time, through `faer` (partial-pivot LU,
//! SVD, self-adjoint eigendecomposition). Callers loop over batches and convert dtypes; f64 keeps
//! one instantiation of faer's generic code and the best accuracy for every float dtype.

use faer::linalg::solvers::{DenseSolveCore, Solve};
use faer::{Mat, MatRef, Side};

/// An `m × n` faer view of a row-major slice.
fn view(a: &[f64], m: usize, n: usize) -> MatRef<'_, f64> {
    MatRef::from_row_major_slice(a, m, n)
}

/// The row-major elements of `m`.
fn rows(m: &Mat<f64>) -> Vec<f64> {
    let (r, c) = (m.nrows(), m.ncols());
    (0..r * c).map(|k| m[(k / c, k % c)]).collect()
}

/// LU of the `n × n` matrix `a`, or the index of the first pivot that is numerically zero
/// (`|u_ii| <= n · ε · max_j |u_jj|`, or not finite).
fn lu(a: &[f64], n: usize) -> Result<faer::linalg::solvers::PartialPivLu<f64>, usize> {
    let lu = view(a, n, n).partial_piv_lu();
    let u = lu.U();
    let diag: Vec<f64> = (0..n).map(|i| u[(i, i)].abs()).collect();
    let tol = diag.iter().cloned().fold(0.0, f64::max) * n as f64 * f64::EPSILON;
    match diag
        .iter()
        .position(|&d| d.is_nan() || d <= tol || !d.is_finite())
    {
        Some(p) => Err(p),
        None => Ok(lu),
    }
}

/// The inverse of the `n × n` matrix `a`; `Err(pivot)` when it is singular.
pub fn inverse(a: &[f64], n: usize) -> Result<Vec<f64>, usize> {
    if n == 0 {
        return Ok(vec![]);
    }
    Ok(rows(&lu(a, n)?.inverse()))
}

/// The lower Cholesky factor of the `n × n` matrix `a`, read from its lower triangle (NumPy
/// `linalg.cholesky`); `Err(k)` when the leading minor of order `k + 1` is not positive-definite.
pub fn cholesky(a: &[f64], n: usize) -> Result<Vec<f64>, usize> {
    if n == 0 {
        return Ok(vec![]);
    }
    let llt = view(a, n, n).llt(Side::Lower).map_err(|e| match e {
        faer::linalg::cholesky::llt::factor::LltError::NonPositivePivot { index } => index,
    })?;
    let l = llt.L();
    Ok((0..n * n)
        .map(|k| {
            if k % n <= k / n {
                l[(k / n, k % n)]
            } else {
                0.0
            }
        })
        .collect())
}

/// The sign and the log of the absolute value of the determinant of the `n × n` matrix `a`
/// (NumPy `linalg.slogdet`), from its partial-pivot LU: `(0, -inf)` when a pivot is exactly 0,
/// `(NaN, NaN)` when the matrix holds NaN.
pub fn slogdet(a: &[f64], n: usize) -> (f64, f64) {
    if n == 0 {
        return (1.0, 0.0);
    }
    let lu = view(a, n, n).partial_piv_lu();
    let u = lu.U();
    // The permutation's parity: each cycle of even length flips the sign.
    let (fwd, _) = lu.P().arrays();
    let (mut sign, mut log) = (1.0f64, 0.0f64);
    let mut seen = vec![false; n];
    for i in 0..n {
        let mut len = 0;
        let mut j = i;
        while !seen[j] {
            seen[j] = true;
            j = fwd[j];
            len += 1;
        }
        if len % 2 == 0 && len > 0 {
            sign = -sign;
        }
    }
    for i in 0..n {
        let d = u[(i, i)];
        if d == 0.0 {
            return (0.0, f64::NEG_INFINITY);
        }
        sign *= d.signum();
        log += d.abs().ln();
    }
    if log.is_nan() {
        (f64::NAN, f64::NAN)
    } else {
        (sign, log)
    }
}

/// `x` with `a · x = b` for the `n × n` matrix `a` and the `n × k` matrix `b`.
pub fn solve(a: &[f64], n: usize, b: &[f64], k: usize) -> Result<Vec<f64>, usize> {
    if n == 0 || k == 0 {
        return Ok(vec![0.0; n * k]);
    }
    Ok(rows(&lu(a, n)?.solve(view(b, n, k))))
}

/// The partial-pivot LU factorization of the `m × n` matrix `a` (`m, n > 0`): the row order
/// `perm` with `a[perm[i]] = (l · u)[i]`, `l` (`m × k`, unit lower triangular) and `u`
/// (`k × n`, upper triangular), `k = min(m, n)`, all row-major.
pub fn lu_factors(a: &[f64], m: usize, n: usize) -> (Vec<usize>, Vec<f64>, Vec<f64>) {
    let lu = view(a, m, n).partial_piv_lu();
    let (fwd, _) = lu.P().arrays();
    (
        fwd.to_vec(),
        rows(&lu.L().to_owned()),
        rows(&lu.U().to_owned()),
    )
}

/// The thin SVD of the `m × n` matrix `a`: `(u: m×r, s: r, vh: r×n)` with `r = min(m, n)` and `s`
/// descending (NumPy's `full_matrices=False`). `None` when the iteration does not converge.
pub fn svd(a: &[f64], m: usize, n: usize) -> Option<(Vec<f64>, Vec<f64>, Vec<f64>)> {
    let d = view(a, m, n).thin_svd().ok()?;
    let s: Vec<f64> = d.S().column_vector().iter().copied().collect();
    let vh = d.V().transpose().to_owned();
    Some((rows(&d.U().to_owned()), s, rows(&vh)))
}

/// The reduced QR factorization of the `m × n` matrix `a` by Householder reflections:
/// `(q: m×k, r: k×n)` with `k = min(m, n)`, `q` with orthonormal columns and `r` upper
/// triangular (NumPy `linalg.qr(mode='reduced')`).
pub fn qr(a: &[f64], m: usize, n: usize) -> (Vec<f64>, Vec<f64>) {
    let f = view(a, m, n).qr();
    let k = m.min(n);
    let r = f.R();
    let r: Vec<f64> = (0..k * n)
        .map(|i| {
            if i % n >= i / n {
                r[(i / n, i % n)]
            } else {
                0.0
            }
        })
        .collect();
    (rows(&f.compute_thin_Q()), r)
}

/// The Moore–Penrose pseudo-inverse (`n × m`) of the `m × n` matrix `a`.
pub fn pinv(a: &[f64], m: usize, n: usize) -> Option<Vec<f64>> {
    Some(rows(&view(a, m, n).thin_svd().ok()?.pseudoinverse()))
}

/// Eigenvalues and right eigenvectors (columns) of the general `n × n` matrix `a` (NumPy's and
/// PyTorch's `eig`), as interleaved (re, im) pairs: `2n` values and `2n²` row-major vector
/// elements. Each eigenvector has unit 2-norm and its largest component real and positive (LAPACK
/// `geev` makes it real; the sign is fixed here so results are reproducible).
pub fn eig(a: &[f64], n: usize) -> Option<(Vec<f64>, Vec<f64>)> {
    let e = view(a, n, n).eigen().ok()?;
    let (s, u) = (e.S().column_vector(), e.U());
    let w = (0..n).flat_map(|i| [s[i].re, s[i].im]).collect();
    let mut v = vec![0.0; 2 * n * n];
    for j in 0..n {
        let col: Vec<faer::c64> = (0..n).map(|i| u[(i, j)]).collect();
        let norm = col.iter().map(|c| c.norm_sqr()).sum::<f64>().sqrt();
        // The first component of the largest magnitude, rotated onto the positive reals.
        let big = col.iter().fold(
            col[0],
            |b, &c| if c.norm_sqr() > b.norm_sqr() { c } else { b },
        );
        let turn = if big.norm_sqr() > 0.0 {
            big.conj() / big.norm()
        } else {
            faer::c64::new(1.0, 0.0)
        };
        for (i, &c) in col.iter().enumerate() {
            let c = c * turn / norm;
            v[2 * (i * n + j)] = c.re;
            v[2 * (i * n + j) + 1] = c.im;
        }
    }
    Some((w, v))
}

/// Eigenvalues (ascending) and eigenvectors (columns) of the symmetric `n × n` matrix `a`, read
/// from its lower triangle (NumPy's `eigh` with `UPLO='L'`).
pub fn eigh(a: &[f64], n: usize) -> Option<(Vec<f64>, Vec<f64>)> {
    let e = view(a, n, n).self_adjoint_eigen(Side::Lower).ok()?;
    let w: Vec<f64> = e.S().column_vector().iter().copied().collect();
    Some((w, rows(&e.U().to_owned())))
}
