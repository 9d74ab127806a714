//! Reductions on `Tensor<T, Cuda>` with the CPU's names, dtypes and NaN rules: sum, product,
//! min, max, arg-reductions, mean, var, std, any, all, the `nan*` forms and logsumexp. One
//! kernel per root in `kernels/reduce.cu` reduces the middle axis of an (outer, len, inner)
//! view; long slices are split over blocks whose partials the last block merges.

use super::table::{Module, symbol};
use super::{THREADS, empty, launch};
use crate::device::cuda::{Arg, COUNTERS};
use crate::device::{Cuda, CudaStorage};
use crate::dtype::{Element, FloatElement, FloatOf, SumOf};
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;

impl<T: Element> Tensor<T, Cuda> {
    /// Sum over `axes` (empty = all) as on the CPU: integers give i64, floats sum in f64.
    pub fn sum(&self, axes: &[i64], keepdim: bool) -> Result<Tensor<SumOf<T>, Cuda>> {
        self.reduce_kernel("sum", axes, keepdim, 0.0)
    }
    /// Product over `axes`, with the output dtype of [`Tensor::sum`].
    pub fn product(&self, axes: &[i64], keepdim: bool) -> Result<Tensor<SumOf<T>, Cuda>> {
        self.reduce_kernel("product", axes, keepdim, 0.0)
    }
    /// Maximum over `axes`; NaN propagates. `EmptyReduction` for an empty slice.
    pub fn max(&self, axes: &[i64], keepdim: bool) -> Result<Self> {
        self.reduce_kernel("max", axes, keepdim, 0.0)
    }
    /// Minimum over `axes`; NaN propagates. `EmptyReduction` for an empty slice.
    pub fn min(&self, axes: &[i64], keepdim: bool) -> Result<Self> {
        self.reduce_kernel("min", axes, keepdim, 0.0)
    }
    /// Index of the maximum (row-major inside the reduced block; first NaN or first tie).
    pub fn argmax(&self, axes: &[i64], keepdim: bool) -> Result<Tensor<i64, Cuda>> {
        self.reduce_kernel("argmax", axes, keepdim, 0.0)
    }
    /// Mean over `axes` as [`FloatOf<T>`]: the f64/i64 sum, cast, divided by the count (NaN
    /// for an empty slice, as on the CPU).
    pub fn mean(&self, axes: &[i64], keepdim: bool) -> Result<Tensor<FloatOf<T>, Cuda>> {
        let mask = self.shape().axes_mask("mean", axes)?;
        let count: usize = self
            .dims()
            .iter()
            .zip(&mask)
            .filter(|(_, m)| **m)
            .map(|(d, _)| d)
            .product();
        let sum: Tensor<FloatOf<T>, Cuda> = self.sum(axes, keepdim)?.cast()?;
        sum.try_div_scalar(FloatOf::<T>::from_f64(count as f64))
    }
    /// Index of the minimum, as [`Tensor::argmax`].
    pub fn argmin(&self, axes: &[i64], keepdim: bool) -> Result<Tensor<i64, Cuda>> {
        self.reduce_kernel("argmin", axes, keepdim, 0.0)
    }

    /// Variance over `axes` with `correction` (divides by `n - correction`), as
    /// [`Tensor::var`] on the CPU: moments merged in f64, NaN when `n <= correction`.
    pub fn var(
        &self,
        axes: &[i64],
        correction: usize,
        keepdim: bool,
    ) -> Result<Tensor<FloatOf<T>, Cuda>> {
        self.reduce_kernel("var", axes, keepdim, correction as f64)
    }
    /// Standard deviation: the square root of [`Tensor::var`].
    pub fn std(
        &self,
        axes: &[i64],
        correction: usize,
        keepdim: bool,
    ) -> Result<Tensor<FloatOf<T>, Cuda>> {
        self.reduce_kernel("std", axes, keepdim, correction as f64)
    }
    /// True where any element of the slice is non-zero (NaN counts; empty → false).
    pub fn any(&self, axes: &[i64], keepdim: bool) -> Result<Tensor<bool, Cuda>> {
        self.reduce_kernel("any", axes, keepdim, 0.0)
    }
    /// True where every element of the slice is non-zero (empty → true).
    pub fn all(&self, axes: &[i64], keepdim: bool) -> Result<Tensor<bool, Cuda>> {
        self.reduce_kernel("all", axes, keepdim, 0.0)
    }

    /// Reduces the axes in `axes` with kernel `root` (see `kernels/reduce.cu`); `param` is
    /// var/std's correction.
    fn reduce_kernel<O: Element>(
        &self,
        root: &'static str,
        axes: &[i64],
        keepdim: bool,
        param: f64,
    ) -> Result<Tensor<O, Cuda>> {
        let mask = self.shape().axes_mask(root, axes)?;
        let dims = self.dims();
        let kept: Vec<usize> = (0..dims.len()).filter(|&i| !mask[i]).collect();
        let reduced: Vec<usize> = (0..dims.len()).filter(|&i| mask[i]).collect();
        let rows: usize = kept.iter().map(|&i| dims[i]).product();
        let len: usize = reduced.iter().map(|&i| dims[i]).product();
        let out_dims: Vec<usize> = if keepdim {
            dims.iter()
                .zip(&mask)
                .map(|(&d, &m)| if m { 1 } else { d })
                .collect()
        } else {
            kept.iter().map(|&i| dims[i]).collect()
        };
        let has_identity = matches!(
            root,
            "sum" | "product" | "var" | "std" | "any" | "all" | "nansum" | "nanproduct" | "nanmean"
        );
        if len == 0 && rows > 0 && !has_identity {
            return Err(Error::EmptyReduction {
                op: root,
                msg: format!(
                    "a reduced slice of the tensor of shape {} is empty, and the {root} of nothing is undefined",
                    self.shape()
                ),
            });
        }
        // (outer, len, inner) with the reduced axes as the middle one: in place when they are
        // consecutive, otherwise moved last and packed (inner = 1).
        let consecutive = reduced.windows(2).all(|w| w[1] == w[0] + 1);
        let (src, outer, inner) = match (consecutive, reduced.first(), reduced.last()) {
            (true, Some(&a), Some(&b)) => {
                let outer = dims[..a].iter().product();
                (self.contiguous()?, outer, dims[b + 1..].iter().product())
            }
            _ => {
                let perm: Vec<usize> = kept.iter().chain(&reduced).copied().collect();
                (self.permute_usize(&perm)?.contiguous()?, rows, 1)
            }
        };
        let dev = &self.device;
        let out: CudaStorage<O> = empty(dev, rows)?;
        if rows > 0 {
            // A block covers 32 columns (or one row); split `len` when that leaves too few
            // blocks for the GPU, keeping at least 2048 elements per block.
            let cols = if inner == 1 { 1 } else { 32 };
            let groups = outer * inner.div_ceil(cols);
            let split = if groups >= COUNTERS {
                1
            } else {
                2048usize.div_ceil(groups).min(len / 2048).max(1)
            };
            let (parts, counts) = if split > 1 {
                // Up to 32 bytes per partial (var/std's moments); one block counter per group.
                (
                    empty::<i64>(dev, 4 * rows * split)?,
                    Some(dev.ctx.counters()?),
                )
            } else {
                (empty::<i64>(dev, 0)?, None)
            };
            launch(
                dev,
                Module::Reduce,
                &symbol::<T>(root),
                groups * split * THREADS as usize,
                &[
                    Arg::U64(outer as u64),
                    Arg::U64(len as u64),
                    Arg::U64(inner as u64),
                    Arg::U64(split as u64),
                    Arg::I64(src.layout.offset as i64),
                    Arg::F64(param),
                    Arg::Buf(&src.storage.buf),
                    Arg::Buf(&out.buf),
                    Arg::Buf(&parts.buf),
                    counts.as_ref().map_or(Arg::U64(0), |c| Arg::Buf(c)),
                ],
            )?;
        }
        Ok(Tensor::from_storage(out, Shape::new(out_dims), dev))
    }
}

/// The NaN-skipping reductions and `logsumexp`, for float tensors, as on the CPU.
impl<T: FloatElement> Tensor<T, Cuda> {
    /// Sum skipping NaN; an all-NaN slice sums to 0.
    pub fn nansum(&self, axes: &[i64], keepdim: bool) -> Result<Self> {
        self.reduce_kernel("nansum", axes, keepdim, 0.0)
    }
    /// Product skipping NaN.
    pub fn nanproduct(&self, axes: &[i64], keepdim: bool) -> Result<Self> {
        self.reduce_kernel("nanproduct", axes, keepdim, 0.0)
    }
    /// Maximum skipping NaN; an all-NaN slice gives NaN. `EmptyReduction` for an empty slice.
    pub fn nanmax(&self, axes: &[i64], keepdim: bool) -> Result<Self> {
        self.reduce_kernel("nanmax", axes, keepdim, 0.0)
    }
    /// Minimum skipping NaN, as [`Tensor::nanmax`].
    pub fn nanmin(&self, axes: &[i64], keepdim: bool) -> Result<Self> {
        self.reduce_kernel("nanmin", axes, keepdim, 0.0)
    }
    /// Mean of the non-NaN values (moments in f64); an all-NaN slice gives NaN.
    pub fn nanmean(&self, axes: &[i64], keepdim: bool) -> Result<Self> {
        self.reduce_kernel("nanmean", axes, keepdim, 0.0)
    }
    /// Index of the maximum skipping NaN.
    ///
    /// # Errors
    /// `EmptyReduction` for an all-NaN or empty slice (found by reading the result back).
    pub fn nanargmax(&self, axes: &[i64], keepdim: bool) -> Result<Tensor<i64, Cuda>> {
        self.nan_arg("nanargmax", axes, keepdim)
    }
    /// Index of the minimum skipping NaN, as [`Tensor::nanargmax`].
    pub fn nanargmin(&self, axes: &[i64], keepdim: bool) -> Result<Tensor<i64, Cuda>> {
        self.nan_arg("nanargmin", axes, keepdim)
    }
    fn nan_arg(
        &self,
        root: &'static str,
        axes: &[i64],
        keepdim: bool,
    ) -> Result<Tensor<i64, Cuda>> {
        let out: Tensor<i64, Cuda> = self.reduce_kernel(root, axes, keepdim, 0.0)?;
        if out.to_vec()?.contains(&-1) {
            return Err(Error::EmptyReduction {
                op: root,
                msg: format!(
                    "a reduced slice of the tensor of shape {} holds only NaN",
                    self.shape()
                ),
            });
        }
        Ok(out)
    }

    /// `log(sum(exp(x)))` over `axes`, computed stably as `m + log(sum(exp(x - m)))` with `m`
    /// the maximum (a non-finite maximum shifts by 0), as on the CPU.
    pub fn logsumexp(&self, axes: &[i64], keepdim: bool) -> Result<Self> {
        let m = self.max(axes, true)?;
        // m * 0 is 0 for finite m and NaN for ±inf or NaN.
        let finite = m
            .try_mul_scalar(T::ZERO)?
            .try_eq(&Self::scalar_on(T::ZERO, &self.device)?)?;
        let shift = Self::where_(&finite, &m, &Self::scalar_on(T::ZERO, &self.device)?)?;
        let e: Tensor<T, Cuda> = self.try_sub(&shift)?.exp()?;
        let out: Tensor<T, Cuda> = e.sum(axes, true)?.log()?.try_add(&shift)?;
        if keepdim {
            return Ok(out);
        }
        let mask = self.shape().axes_mask("logsumexp", axes)?;
        let dims: Vec<usize> = (self.dims().iter().zip(&mask))
            .filter(|(_, m)| !**m)
            .map(|(&d, _)| d)
            .collect();
        out.view(dims)
    }
}
