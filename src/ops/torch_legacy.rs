//! PyTorch's older names and small queries that users still call: `triangular_solve` (with
//! its `cloned_coefficient`), `nuclear_norm`, `frobenius_norm`, `is_nonzero`,
//! `as_strided_scatter`, and the conjugation queries of a real tensor (`resolve_conj`,
//! `resolve_neg`, `is_conj`, `is_neg`, `is_complex`).
//!
//! ```
//! use typed_tensor::prelude::*;
//! let a = tensor![[2.0f64, 1.0], [0.0, 4.0]];
//! let b = tensor![[1.0f64], [2.0]];
//! let (x, a_copy) = b.triangular_solve(&a, true, false, false);
//! assert_eq!(x.to_vec(), vec![0.25, 0.5]);
//! assert_eq!(a_copy.to_vec(), a.to_vec());
//! assert!(tensor![3i32].is_nonzero()?);
//! let z = Tensor::<f32>::zeros([2, 3])?;
//! let y = z.as_strided_scatter(&Tensor::ones([2])?, &[2], &[3], Some(1));
//! assert_eq!(y.to_vec(), vec![0.0, 1.0, 0.0, 0.0, 1.0, 0.0]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::{Element, FloatOf, NumElement};
use crate::error::{Error, OrPanic, Result};
use crate::ops::matrix::MatrixNorm;
use crate::tensor::Tensor;

type Float<T, D> = Tensor<FloatOf<T>, D>;

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// The solution `X` of `A·X = self` (or `Aᵀ·X = self` with `transpose`) for a triangular
    /// `a` `(..., n, n)` and `self` `(..., n, k)`, batches broadcast, with `a` broadcast to
    /// the result's batch as a copy (PyTorch's deprecated `triangular_solve`, which returns
    /// `(solution, cloned_coefficient)`; PyTorch's `upper` defaults to true). Only the
    /// triangle named by `upper` is read; `unitriangular` takes its diagonal as ones.
    /// Differentiable as [`Tensor::try_solve_triangular`].
    ///
    /// # Errors
    /// As [`Tensor::try_solve_triangular`].
    #[allow(clippy::type_complexity)]
    pub fn try_triangular_solve(
        &self,
        a: &Self,
        upper: bool,
        transpose: bool,
        unitriangular: bool,
    ) -> Result<(Float<T, D>, Float<T, D>)> {
        let x = match transpose {
            true => a
                .transpose(-1, -2)?
                .try_solve_triangular(self, !upper, true, unitriangular)?,
            false => a.try_solve_triangular(self, upper, true, unitriangular)?,
        };
        let mut dims = x.dims()[..x.ndim() - 2].to_vec();
        dims.extend(&a.dims()[a.ndim() - 2..]);
        let coefficient = a.try_cast::<FloatOf<T>>()?.expand(dims)?.try_contiguous()?;
        Ok((x, coefficient))
    }

    /// The nuclear norm (the sum of the singular values) of each matrix spanned by `axes`
    /// (`None`: the last two), PyTorch's deprecated `nuclear_norm`; with `keepdim` the two
    /// axes stay with size 1.
    ///
    /// # Errors
    /// `InvalidArgument` for two equal or out-of-range axes, fewer than two dimensions; as
    /// [`Tensor::try_matrix_norm`].
    pub fn try_nuclear_norm(&self, axes: Option<[i64; 2]>, keepdim: bool) -> Result<Float<T, D>> {
        let [a, b] = axes.unwrap_or([-2, -1]);
        let (i, j) = (
            self.shape().axis("nuclear_norm", a)?,
            self.shape().axis("nuclear_norm", b)?,
        );
        if i == j {
            return Err(Error::InvalidArgument {
                op: "nuclear_norm",
                msg: format!(
                    "needs two different axes, got {a} and {b} for shape {}",
                    self.shape()
                ),
            });
        }
        let m = self.movedim(&[i as i64, j as i64], &[-2, -1])?;
        let norm = m.try_matrix_norm(MatrixNorm::Nuc, false)?;
        if !keepdim {
            return Ok(norm);
        }
        let (lo, hi) = (i.min(j) as i64, i.max(j) as i64);
        norm.unsqueeze(lo)?.unsqueeze(hi)
    }

    /// The Frobenius norm `sqrt(Σ|x|²)` over `axes` (PyTorch's deprecated `frobenius_norm`;
    /// at most two axes, none meaning every axis), optionally keeping them with size 1.
    ///
    /// # Errors
    /// `InvalidArgument` for more than two axes or one out of range.
    pub fn try_frobenius_norm(&self, axes: &[i64], keepdim: bool) -> Result<Float<T, D>> {
        if axes.len() > 2 {
            return Err(Error::InvalidArgument {
                op: "frobenius_norm",
                msg: format!("takes at most two axes, got {axes:?}"),
            });
        }
        self.try_norm(2.0, axes, keepdim)
    }

    /// `self` with `src` written into the view `as_strided(size, stride, storage_offset)`
    /// of a copy of it (PyTorch `as_strided_scatter`), positions counted in `self`'s
    /// row-major order (PyTorch counts in the storage, the same for a contiguous tensor).
    /// Where the view overlaps itself, the last write in `src`'s order wins. Differentiable
    /// in both.
    ///
    /// # Errors
    /// As [`Tensor::as_strided`] (a view outside `self`); `ShapeMismatch` when `src`'s
    /// shape is not `size`.
    pub fn try_as_strided_scatter(
        &self,
        src: &Self,
        size: &[usize],
        stride: &[isize],
        storage_offset: Option<usize>,
    ) -> Result<Self> {
        let n = self.numel();
        let dev = self.device_handle();
        let positions = crate::autograd::no_grad(|| -> Result<Tensor<i64, D>> {
            let flat = Tensor::<i64, D>::arange_on(0, n as i64, 1, dev)?;
            flat.try_reshape(self.shape().clone())?
                .as_strided(size, stride, storage_offset)
        })?;
        if positions.dims() != src.dims() {
            return Err(Error::ShapeMismatch {
                op: "as_strided_scatter",
                lhs: positions.shape().clone(),
                rhs: src.shape().clone(),
                msg: "src must have the view's shape `size`".into(),
            });
        }
        (self.try_reshape([n])?)
            .try_scatter(
                0,
                &positions.try_reshape([src.numel()])?,
                &src.try_reshape([src.numel()])?,
            )?
            .try_reshape(self.shape().clone())
    }

    super::plain_forms! {
        /// [`Tensor::try_triangular_solve`], panicking with its error.
        triangular_solve, try_triangular_solve(a: &Self, upper: bool, transpose: bool, unitriangular: bool) -> (Float<T, D>, Float<T, D>);
        /// [`Tensor::try_nuclear_norm`], panicking with its error.
        nuclear_norm, try_nuclear_norm(axes: Option<[i64; 2]>, keepdim: bool) -> Float<T, D>;
        /// [`Tensor::try_frobenius_norm`], panicking with its error.
        frobenius_norm, try_frobenius_norm(axes: &[i64], keepdim: bool) -> Float<T, D>;
        /// [`Tensor::try_as_strided_scatter`], panicking with its error.
        as_strided_scatter, try_as_strided_scatter(src: &Self, size: &[usize], stride: &[isize], storage_offset: Option<usize>) -> Self;
    }
}

impl<T: Element, D: Backend> Tensor<T, D> {
    /// The truth of the one element (PyTorch `is_nonzero`, Python's `bool(tensor)`): not
    /// zero, so NaN is true. Reads the value back.
    ///
    /// # Errors
    /// `InvalidArgument` unless there is exactly one element (PyTorch: "ambiguous").
    pub fn is_nonzero(&self) -> Result<bool> {
        if self.numel() != 1 {
            return Err(Error::InvalidArgument {
                op: "is_nonzero",
                msg: format!(
                    "the truth of a tensor of {} elements (shape {}) is ambiguous; reduce it with any() or all() first",
                    self.numel(),
                    self.shape()
                ),
            });
        }
        self.try_ne_scalar(T::ZERO)?.try_item()
    }

    /// `self`: a real tensor has no lazy conjugation to resolve (PyTorch `resolve_conj`).
    pub fn resolve_conj(&self) -> Self {
        self.clone()
    }

    /// `self`: a real tensor has no lazy negation to resolve (PyTorch `resolve_neg`).
    pub fn resolve_neg(&self) -> Self {
        self.clone()
    }

    /// `false`: a real tensor is never a lazily conjugated view (PyTorch `is_conj`).
    pub fn is_conj(&self) -> bool {
        false
    }

    /// `false`: a real tensor is never a lazily negated view (PyTorch `is_neg`).
    pub fn is_neg(&self) -> bool {
        false
    }

    /// `false`: complex numbers are [`crate::complex::ComplexTensor`]s, another type
    /// (PyTorch `is_complex`).
    pub fn is_complex(&self) -> bool {
        false
    }
}
