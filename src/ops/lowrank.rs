//! Randomized low-rank decompositions (PyTorch `svd_lowrank`, `pca_lowrank`; Halko, Martinsson
//! and Tropp 2011, Algorithm 4.4): a Gaussian sketch of the range, `niter` subspace iterations
//! re-orthonormalised by `qr`, then the small `svd`. Composed of `matmul`, `qr` and `svd`, so
//! it runs (and differentiates, where those do) on every device; the sketch comes from the
//! global generator.
//!
//! ```
//! use typed_tensor::prelude::*;
//! // A rank-2 (4, 3) matrix: its two singular triplets are found exactly.
//! let a = tensor![[1.0f64, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0], [0.0, 1.0, 1.0]];
//! let (u, s, v) = a.svd_lowrank(Some(2), 2);
//! assert_eq!((u.dims(), s.dims(), v.dims()), (&[4, 2][..], &[2][..], &[3, 2][..]));
//! let back = u.mul(&s.unsqueeze(0)?).matmul(&v.t());
//! assert!(back.to_vec().iter().zip(a.to_vec()).all(|(x, y)| (x - y).abs() < 1e-10));
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, OrPanic, Result};
use crate::tensor::Tensor;

/// `U`, `S` and `V` of a low-rank decomposition.
pub type LowRank<T, D> = (Tensor<T, D>, Tensor<T, D>, Tensor<T, D>);

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// An approximate rank-`q` SVD `self ≈ U · diag(S) · Vᵀ` of each `(m, n)` matrix (PyTorch
    /// `svd_lowrank`): `U` `(..., m, q)`, `S` `(..., q)` descending, `V` `(..., n, q)` (`V`,
    /// not `Vᵀ`, as PyTorch returns it). Exact, up to rounding and signs, for a matrix of rank
    /// at most `q`; `niter` subspace iterations (PyTorch's default 2) sharpen the others.
    /// `q` `None` is `min(6, m, n)`.
    ///
    /// # Errors
    /// `InvalidArgument` for fewer than 2 dimensions or `q` above `min(m, n)`; as
    /// [`Tensor::try_qr`] and [`Tensor::try_svd`] (the `linalg` feature).
    pub fn try_svd_lowrank(&self, q: Option<usize>, niter: usize) -> Result<LowRank<T, D>> {
        let q = rank("svd_lowrank", self, q)?;
        let (m, n) = (self.dims()[self.ndim() - 2], self.dims()[self.ndim() - 1]);
        if m < n {
            // The sketch of the smaller side: the transposed problem, its U and V swapped.
            let (u, s, v) = approximate(&self.transpose(-1, -2)?, q, niter)?;
            return Ok((v, s, u));
        }
        approximate(self, q, niter)
    }

    /// Principal components by [`Tensor::try_svd_lowrank`] of each `(m, n)` matrix whose rows
    /// are samples (PyTorch `pca_lowrank`): with `center`, the column means are subtracted
    /// first; `V`'s columns are the principal directions and `S² / (m - 1)` the variances
    /// along them. `q` `None` is `min(6, m, n)`.
    ///
    /// # Errors
    /// As [`Tensor::try_svd_lowrank`].
    pub fn try_pca_lowrank(
        &self,
        q: Option<usize>,
        center: bool,
        niter: usize,
    ) -> Result<LowRank<T, D>> {
        rank("pca_lowrank", self, q)?;
        if center {
            let c = self.try_sub(&self.try_mean(&[-2], true)?)?;
            c.try_svd_lowrank(q, niter)
        } else {
            self.try_svd_lowrank(q, niter)
        }
    }

    /// [`Tensor::try_svd_lowrank`], panicking with its error.
    ///
    /// # Panics
    /// When [`Tensor::try_svd_lowrank`] returns an `Err`.
    #[track_caller]
    pub fn svd_lowrank(&self, q: Option<usize>, niter: usize) -> LowRank<T, D> {
        self.try_svd_lowrank(q, niter).or_panic()
    }

    /// [`Tensor::try_pca_lowrank`], panicking with its error.
    ///
    /// # Panics
    /// When [`Tensor::try_pca_lowrank`] returns an `Err`.
    #[track_caller]
    pub fn pca_lowrank(&self, q: Option<usize>, center: bool, niter: usize) -> LowRank<T, D> {
        self.try_pca_lowrank(q, center, niter).or_panic()
    }
}

/// The checked rank: `q`, or `min(6, m, n)`.
fn rank<T: FloatElement, D: Backend>(
    op: &'static str,
    a: &Tensor<T, D>,
    q: Option<usize>,
) -> Result<usize> {
    let &[.., m, n] = a.dims() else {
        return Err(Error::InvalidArgument {
            op,
            msg: format!("needs a matrix or a stack of them, got shape {}", a.shape()),
        });
    };
    let k = m.min(n);
    match q {
        None => Ok(k.min(6)),
        Some(q) if q <= k => Ok(q),
        Some(q) => Err(Error::InvalidArgument {
            op,
            msg: format!("q = {q} exceeds min(m, n) = {k} of shape {}", a.shape()),
        }),
    }
}

/// Algorithm 4.4 for `m >= n`: an orthonormal basis `Q` `(m, q)` of `A`'s approximate range,
/// then the SVD of `Qᵀ·A` `(q, n)`.
fn approximate<T: FloatElement, D: Backend>(
    a: &Tensor<T, D>,
    q: usize,
    niter: usize,
) -> Result<LowRank<T, D>> {
    let n = a.dims()[a.ndim() - 1];
    let at = a.transpose(-1, -2)?;
    let r = Tensor::<T, D>::randn_on([n, q], a.device_handle())?;
    let mut basis = a.try_matmul(&r)?.try_qr()?.0;
    for _ in 0..niter {
        basis = at.try_matmul(&basis)?.try_qr()?.0;
        basis = a.try_matmul(&basis)?.try_qr()?.0;
    }
    let b = basis.transpose(-1, -2)?.try_matmul(a)?;
    let (ub, s, vh) = b.try_svd()?;
    Ok((basis.try_matmul(&ub)?, s, vh.transpose(-1, -2)?))
}
