//! `DynTensor` forms of the shape, indexing, combining and linear-algebra ops,
//! each a dispatch to the typed op of the same name: no kernel is written twice.

use super::{not_float, not_numeric, pair_mismatch};
use crate::dynamic::{DeviceTensor, DynTensor, Scalar, device_mismatch, typed_like};
use crate::error::Result;
use crate::shape::Shape;
use crate::tensor::SliceArg;

/// The Int64 index tensors of `indices`, typed like `like` (same device).
fn typed_indices<'a, U: crate::dtype::Element, D: crate::device::Device>(
    op: &'static str,
    indices: &[Option<&'a DynTensor>],
    like: &crate::tensor::Tensor<U, D>,
) -> Result<Vec<Option<&'a crate::tensor::Tensor<i64, D>>>> {
    indices
        .iter()
        .map(|i| i.map(|d| typed_like(op, d, like)).transpose())
        .collect()
}

fn all(v: Vec<impl Into<DynTensor>>) -> Vec<DynTensor> {
    v.into_iter().map(Into::into).collect()
}

impl DynTensor {
    /// The slices along `axis`, which they lack (see [`crate::Tensor::unbind`]).
    pub fn unbind(&self, axis: i64) -> Result<Vec<DynTensor>> {
        dyn_each!(self, t => Ok(all(t.try_unbind(axis)?)))
    }
    /// `sections` pieces whose sizes differ by at most one (see [`crate::Tensor::tensor_split`]).
    pub fn tensor_split(&self, sections: usize, axis: i64) -> Result<Vec<DynTensor>> {
        dyn_each!(self, t => Ok(all(t.try_tensor_split(sections, axis)?)))
    }
    /// `axis` replaced by dimensions of `sizes`, one of which may be -1 (see
    /// [`crate::Tensor::unflatten`]).
    pub fn unflatten(&self, axis: i64, sizes: &[i64]) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.try_unflatten(axis, sizes)?.into()))
    }
    /// Dimensions `a` and `b` exchanged, a view (see [`crate::Tensor::swapaxes`]).
    pub fn swapaxes(&self, a: i64, b: i64) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.swapaxes(a, b)?.into()))
    }
    /// The elements where the Bool `mask` is true, 1-d (see [`crate::Tensor::masked_select`]).
    pub fn masked_select(&self, mask: &DynTensor) -> Result<DynTensor> {
        dyn_each!(self, t => {
            let m = typed_like("masked_select", mask, t)?;
            Ok(t.try_masked_select(m)?.into())
        })
    }
    /// `self` with `alpha · source` added at the Int64 `index` along `axis` (see
    /// [`crate::Tensor::index_add`]).
    pub fn index_add(
        &self,
        axis: i64,
        index: &DynTensor,
        source: &DynTensor,
        alpha: impl Into<Scalar>,
    ) -> Result<DynTensor> {
        let alpha = alpha.into();
        pair!(self, source, "index_add", t, s => {
            let i = typed_like("index_add", index, t)?;
            Ok(t.try_index_add(axis, i, s, alpha.to())?.into())
        }, bool: Err(not_numeric("index_add")))
    }
    /// `self` with the slices of `source` combined by `reduce` into the slices the Int64
    /// `index` names along `axis` (see [`crate::Tensor::index_reduce`]).
    pub fn index_reduce(
        &self,
        axis: i64,
        index: &DynTensor,
        source: &DynTensor,
        reduce: crate::ops::scatter_reduce::ScatterReduce,
        include_self: bool,
    ) -> Result<DynTensor> {
        pair!(self, source, "index_reduce", t, s => {
            let i = typed_like("index_reduce", index, t)?;
            Ok(t.try_index_reduce(axis, i, s, reduce, include_self)?.into())
        }, bool: Err(not_numeric("index_reduce")))
    }
    /// Advanced indexing `self[i0, i1, ..]` with Int64 index tensors, `None` for a whole axis
    /// (see [`crate::Tensor::index`]).
    pub fn index(&self, indices: &[Option<&DynTensor>]) -> Result<DynTensor> {
        dyn_each!(self, t => {
            let idx = typed_indices("index", indices, t)?;
            Ok(t.try_index(&idx)?.into())
        })
    }
    /// `self` with `values` written (or, with `accumulate`, added) at `self[i0, i1, ..]` (see
    /// [`crate::Tensor::index_put`]).
    pub fn index_put(
        &self,
        indices: &[Option<&DynTensor>],
        values: &DynTensor,
        accumulate: bool,
    ) -> Result<DynTensor> {
        pair!(self, values, "index_put", t, v => {
            let idx = typed_indices("index_put", indices, t)?;
            Ok(t.try_index_put(&idx, v, accumulate)?.into())
        }, bool: {
            let idx = typed_indices("index_put", indices, t)?;
            Ok(t.try_index_put(&idx, v, accumulate)?.into())
        })
    }
    /// In-place [`DynTensor::index_put`] (see [`crate::Tensor::index_put_`]).
    pub fn index_put_(
        &mut self,
        indices: &[Option<&DynTensor>],
        values: &DynTensor,
        accumulate: bool,
    ) -> Result<()> {
        pair!(self, values, "index_put_", t, v => {
            let idx = typed_indices("index_put_", indices, &*t)?;
            t.index_put_(&idx, v, accumulate)
        }, bool: {
            let idx = typed_indices("index_put_", indices, &*t)?;
            t.index_put_(&idx, v, accumulate)
        })
    }
    /// `self` with `source` written (or added) at the flat Int64 positions `index` (see
    /// [`crate::Tensor::put`]).
    pub fn put(
        &self,
        index: &DynTensor,
        source: &DynTensor,
        accumulate: bool,
    ) -> Result<DynTensor> {
        pair!(self, source, "put", t, s => {
            let i = typed_like("put", index, t)?;
            Ok(t.try_put(i, s, accumulate)?.into())
        }, bool: Err(not_numeric("put")))
    }
    /// The batched product of two 3-d stacks without broadcasting (see [`crate::Tensor::bmm`]).
    pub fn bmm(&self, other: &DynTensor) -> Result<DynTensor> {
        pair!(self, other, "bmm", a, b => Ok(a.try_bmm(b)?.into()), bool: Err(not_numeric("bmm")))
    }
    /// A matrix times a vector (see [`crate::Tensor::mv`]).
    pub fn mv(&self, vec: &DynTensor) -> Result<DynTensor> {
        pair!(self, vec, "mv", a, b => Ok(a.try_mv(b)?.into()), bool: Err(not_numeric("mv")))
    }
    /// The `n`-th power of each square matrix (see [`crate::Tensor::matrix_power`]).
    pub fn matrix_power(&self, n: i64) -> Result<DynTensor> {
        numeric!(self, "matrix_power", t => Ok(t.try_matrix_power(n)?.into()))
    }
    /// Splits `axis` into pieces of `sizes` (see [`crate::Tensor::split`]); views.
    pub fn split(&self, sizes: &[usize], axis: i64) -> Result<Vec<DynTensor>> {
        dyn_each!(self, t => Ok(all(t.try_split(sizes, axis)?)))
    }
    /// Splits `axis` into `n` near-equal pieces (PyTorch `chunk`); views.
    pub fn chunk(&self, n: usize, axis: i64) -> Result<Vec<DynTensor>> {
        dyn_each!(self, t => Ok(all(t.try_chunk(n, axis)?)))
    }
    /// NumPy basic indexing (a view): ranges with steps, single indices that drop their axis,
    /// new axes; see [`crate::Tensor::slice`] and [`crate::s!`].
    pub fn slice<S: Into<SliceArg> + Copy>(&self, args: &[S]) -> Result<DynTensor> {
        let args: Vec<SliceArg> = args.iter().map(|&a| a.into()).collect();
        dyn_each!(self, t => Ok(t.slice(&args)?.into()))
    }
    /// Reverses the order along `axes` (a view with negative strides).
    pub fn flip(&self, axes: &[i64]) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.flip(axes)?.into()))
    }
    /// Stretches size-1 dimensions to `shape` (a view with zero strides).
    pub fn broadcast_to(&self, shape: impl Into<Shape>) -> Result<DynTensor> {
        self.broadcast_to_shape(shape.into())
    }
    fn broadcast_to_shape(&self, shape: Shape) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.broadcast_to(shape.clone())?.into()))
    }
    /// PyTorch's name for [`DynTensor::broadcast_to`].
    pub fn expand(&self, shape: impl Into<Shape>) -> Result<DynTensor> {
        self.broadcast_to(shape)
    }
    /// NumPy's name for [`DynTensor::unsqueeze`] (a view).
    pub fn expand_dims(&self, dim: i64) -> Result<DynTensor> {
        self.unsqueeze(dim)
    }
    /// NumPy's name for [`DynTensor::flatten`].
    pub fn ravel(&self) -> Result<DynTensor> {
        self.flatten()
    }
    /// Removes the listed size-1 dimensions (a view).
    pub fn squeeze_dims(&self, dims: &[i64]) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.squeeze_dims(dims)?.into()))
    }
    /// The `offset`-th diagonal of the last two dimensions (a view).
    pub fn diagonal(&self, offset: i64) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.diagonal(offset)?.into()))
    }
    /// The diagonal of `axis1` and `axis2` (see [`crate::Tensor::diagonal_axes`]).
    pub fn diagonal_axes(&self, offset: i64, axis1: i64, axis2: i64) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.diagonal_axes(offset, axis1, axis2)?.into()))
    }
    /// The length-`r` combinations of a 1-d tensor's elements (see
    /// [`crate::Tensor::combinations`]).
    pub fn combinations(&self, r: usize, with_replacement: bool) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.try_combinations(r, with_replacement)?.into()))
    }
    /// `self` with `slice` of `dim` replaced by `src` (see [`crate::Tensor::slice_scatter`]).
    pub fn slice_scatter(
        &self,
        src: &DynTensor,
        dim: i64,
        slice: crate::Slice,
    ) -> Result<DynTensor> {
        pair!(self, src, "slice_scatter", t, s => Ok(t.try_slice_scatter(s, dim, slice)?.into()), bool: Err(not_numeric("slice_scatter")))
    }
    /// `self` with slice `index` of `dim` replaced by `src` (see
    /// [`crate::Tensor::select_scatter`]).
    pub fn select_scatter(&self, src: &DynTensor, dim: i64, index: i64) -> Result<DynTensor> {
        pair!(self, src, "select_scatter", t, s => Ok(t.try_select_scatter(s, dim, index)?.into()), bool: Err(not_numeric("select_scatter")))
    }
    /// `self` with a diagonal replaced by `src` (see [`crate::Tensor::diagonal_scatter`]).
    pub fn diagonal_scatter(
        &self,
        src: &DynTensor,
        offset: i64,
        dim1: i64,
        dim2: i64,
    ) -> Result<DynTensor> {
        pair!(self, src, "diagonal_scatter", t, s => Ok(t.try_diagonal_scatter(s, offset, dim1, dim2)?.into()), bool: Err(not_numeric("diagonal_scatter")))
    }
    /// Rolls elements by `shift` along `axis`, wrapping around (NumPy `roll`).
    pub fn roll(&self, shift: i64, axis: i64) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.try_roll(shift, axis)?.into()))
    }
    /// Repeats the whole tensor `reps` times per dimension (NumPy `tile`).
    pub fn tile(&self, reps: &[usize]) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.try_tile(reps)?.into()))
    }
    /// PyTorch `repeat` (the same as [`DynTensor::tile`]).
    pub fn repeat(&self, reps: &[usize]) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.try_repeat(reps)?.into()))
    }
    /// Repeats each element `n` times along `axis`.
    pub fn repeat_interleave(&self, n: usize, axis: i64) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.try_repeat_interleave(n, axis)?.into()))
    }
    /// Zeroes the elements above the `k`-th diagonal of the last two dimensions.
    pub fn tril(&self, k: i64) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.try_tril(k)?.into()))
    }
    /// Zeroes the elements below the `k`-th diagonal of the last two dimensions.
    pub fn triu(&self, k: i64) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.try_triu(k)?.into()))
    }
    /// NumPy `diag`: a 1-d input becomes a diagonal matrix, a 2-d one gives its `k`-th diagonal.
    pub fn diag(&self, k: i64) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.try_diag(k)?.into()))
    }
    /// Each last-dimension vector becomes a diagonal matrix (PyTorch `diag_embed`).
    pub fn diag_embed(&self) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.try_diag_embed()?.into()))
    }
    /// Pads each dimension with `(before, after)` copies of `value`, converted to the dtype.
    pub fn pad(&self, pads: &[(usize, usize)], value: impl Into<Scalar>) -> Result<DynTensor> {
        let v = value.into();
        dyn_each!(self, t => Ok(t.try_pad(pads, v.to())?.into()))
    }
    /// Pads each dimension with `(before, after)` elements by `mode` (reflect, symmetric,
    /// replicate, circular; see [`crate::Tensor::try_pad_mode`]).
    pub fn pad_mode(
        &self,
        pads: &[(usize, usize)],
        mode: crate::ops::pad::PadMode,
    ) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.try_pad_mode(pads, mode)?.into()))
    }
    /// `value` (converted to the dtype) where the Bool `mask` is true, broadcasting the mask.
    pub fn masked_fill(&self, mask: &DynTensor, value: impl Into<Scalar>) -> Result<DynTensor> {
        let v = value.into();
        dyn_each!(self, t => {
            let m = typed_like("masked_fill", mask, t)?;
            Ok(t.try_masked_fill(m, v.to())?.into())
        })
    }
    /// Int64 indices that sort `axis` (stable).
    pub fn argsort(&self, axis: i64, descending: bool) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.try_argsort(axis, descending)?.into()))
    }
    /// NumPy `take` along `axis` with Int64 `indices`.
    pub fn take(&self, axis: i64, indices: &DynTensor) -> Result<DynTensor> {
        dyn_each!(self, t => {
            let i = typed_like("take", indices, t)?;
            Ok(t.try_take(axis, i)?.into())
        })
    }
    /// A copy with `src` added at Int64 `index` along `axis` (PyTorch `scatter_add`); `src`
    /// must have this tensor's dtype.
    pub fn scatter_add(&self, axis: i64, index: &DynTensor, src: &DynTensor) -> Result<DynTensor> {
        pair!(self, src, "scatter_add", t, s => {
            let i = typed_like("scatter_add", index, t)?;
            Ok(t.try_scatter_add(axis, i, s)?.into())
        }, bool: Err(not_numeric("scatter_add")))
    }
    /// Variance over `axes` dividing by `n - correction` (PyTorch; NumPy's `ddof`).
    pub fn var(&self, axes: &[i64], correction: usize, keepdim: bool) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.try_var(axes, correction, keepdim)?.into()))
    }
    /// Standard deviation, the square root of [`DynTensor::var`].
    pub fn std(&self, axes: &[i64], correction: usize, keepdim: bool) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.try_std(axes, correction, keepdim)?.into()))
    }
    /// The `p`-norm over `axes` (Frobenius for `p = 2` over a matrix), as a float dtype.
    pub fn norm(&self, p: f64, axes: &[i64], keepdim: bool) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.try_norm(p, axes, keepdim)?.into()))
    }
    /// Contracts `axes_a` of `self` with `axes_b` of `other` (NumPy `tensordot`).
    pub fn tensordot(
        &self,
        other: &DynTensor,
        axes_a: &[i64],
        axes_b: &[i64],
    ) -> Result<DynTensor> {
        pair!(self, other, "tensordot", a, b => Ok(a.try_tensordot(b, axes_a, axes_b)?.into()), bool: Err(not_numeric("tensordot")))
    }
    /// Seed 001's name for [`DynTensor::tensordot`].
    pub fn tensor_product(
        &self,
        other: &DynTensor,
        axes_a: &[i64],
        axes_b: &[i64],
    ) -> Result<DynTensor> {
        self.tensordot(other, axes_a, axes_b)
    }
    /// The inner product of two 1-d tensors.
    pub fn dot(&self, other: &DynTensor) -> Result<DynTensor> {
        pair!(self, other, "dot", a, b => Ok(a.try_dot(b)?.into()), bool: Err(not_numeric("dot")))
    }
    /// The outer product of two 1-d tensors.
    pub fn outer(&self, other: &DynTensor) -> Result<DynTensor> {
        pair!(self, other, "outer", a, b => Ok(a.try_outer(b)?.into()), bool: Err(not_numeric("outer")))
    }
    /// The determinant of each square matrix in `(..., n, n)`; integers promote like `sin`.
    pub fn det(&self) -> Result<DynTensor> {
        numeric!(self, "det", t => Ok(t.try_det()?.into()))
    }
    /// The Cholesky factor of each symmetric positive-definite matrix, lower (or `upper`).
    pub fn cholesky(&self, upper: bool) -> Result<DynTensor> {
        numeric!(self, "cholesky", t => Ok(t.try_cholesky(upper)?.into()))
    }
    /// The sign and `log|det|` of each square matrix (NumPy `linalg.slogdet`).
    pub fn slogdet(&self) -> Result<(DynTensor, DynTensor)> {
        numeric!(self, "slogdet", t => {
            let (s, l) = t.try_slogdet()?;
            Ok((s.into(), l.into()))
        })
    }
    /// Inverse of each square matrix in `(..., n, n)`; integers promote like `sin`.
    pub fn inverse(&self) -> Result<DynTensor> {
        numeric!(self, "inverse", t => Ok(t.try_inverse()?.into()))
    }
    /// Solves `self · x = b` for each matrix; `b` must have this tensor's dtype.
    pub fn solve(&self, b: &DynTensor) -> Result<DynTensor> {
        pair!(self, b, "solve", a, b => Ok(a.try_solve(b)?.into()), bool: Err(not_numeric("solve")))
    }
    /// Thin SVD `(u, s, vh)` of each matrix (NumPy `full_matrices=False`).
    pub fn svd(&self) -> Result<(DynTensor, DynTensor, DynTensor)> {
        numeric!(self, "svd", t => {
            let (u, s, vh) = t.try_svd()?;
            Ok((u.into(), s.into(), vh.into()))
        })
    }
    /// Moore-Penrose pseudo-inverse of each matrix.
    pub fn pinv(&self) -> Result<DynTensor> {
        numeric!(self, "pinv", t => Ok(t.try_pinv()?.into()))
    }
    /// Eigenvalues (ascending) and eigenvectors of each symmetric matrix (lower triangle).
    pub fn eigh(&self) -> Result<(DynTensor, DynTensor)> {
        numeric!(self, "eigh", t => {
            let (w, v) = t.try_eigh()?;
            Ok((w.into(), v.into()))
        })
    }
    /// The reduced QR factorization `(q, r)` of each matrix (see [`crate::Tensor::try_qr`]).
    pub fn qr(&self) -> Result<(DynTensor, DynTensor)> {
        numeric!(self, "qr", t => {
            let (q, r) = t.try_qr()?;
            Ok((q.into(), r.into()))
        })
    }
    /// The LU factorization `(P, L, U)` of each matrix (see [`crate::Tensor::lu`]).
    pub fn lu(&self) -> Result<(DynTensor, DynTensor, DynTensor)> {
        numeric!(self, "lu", t => {
            let (p, l, u) = t.try_lu()?;
            Ok((p.into(), l.into(), u.into()))
        })
    }
    /// The packed LU factors and Int32 pivots (see [`crate::Tensor::lu_factor`]).
    pub fn lu_factor(&self) -> Result<(DynTensor, DynTensor)> {
        numeric!(self, "lu_factor", t => {
            let (lu, piv) = t.try_lu_factor()?;
            Ok((lu.into(), piv.into()))
        })
    }
    /// The matrix exponential of each square matrix (see [`crate::Tensor::matrix_exp`]);
    /// float dtypes.
    pub fn matrix_exp(&self) -> Result<DynTensor> {
        float!(self, "matrix_exp", "", t => Ok(t.try_matrix_exp()?.into()))
    }
    /// The singular values of each matrix (see [`crate::Tensor::svdvals`]).
    pub fn svdvals(&self) -> Result<DynTensor> {
        numeric!(self, "svdvals", t => Ok(t.try_svdvals()?.into()))
    }
}
