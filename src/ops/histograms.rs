//! Multidimensional histograms (NumPy `histogramdd`, `histogram2d`): each coordinate binned
//! as [`Tensor::try_histogram`] bins one (equal-width edges, the last bin closed, values
//! outside the range not counted), the bins combined into one flat index, and the weights
//! added there by one `index_add`.
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let pts = tensor![[0.0f64, 0.0], [0.5, 1.0], [1.0, 1.0], [0.2, 0.9]];
//! let (h, edges) = pts.try_histogramdd(&[2, 2], None, None, false)?;
//! assert_eq!(h.to_vec(), vec![1.0, 1.0, 0.0, 2.0]); // (x bin, y bin) row-major
//! assert_eq!(edges[1].to_vec(), vec![0.0, 0.5, 1.0]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::NumElement;
use crate::error::{Error, OrPanic, Result};
use crate::tensor::Tensor;

/// A histogram and the edges of each of its axes, all f64.
pub type Histogram<D> = (Tensor<f64, D>, Vec<Tensor<f64, D>>);

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// The histogram of `N` points in `D` dimensions (NumPy `histogramdd`): `self` is
    /// `(N, D)` (a 1-d tensor is `N` points of one coordinate), `bins` one count per
    /// dimension (or one for all), `range` one `(low, high)` per dimension (or the data's
    /// extent, widened by 0.5 each way where it is a single value, as NumPy); `weights` `(N)`
    /// adds each point's weight instead of 1. Returns the `bins`-shaped histogram (f64, as
    /// NumPy's) and the `bins[d] + 1` edges of each dimension; with `density` the histogram
    /// is divided by its total and by each bin's volume, so it integrates to 1. Reads the data's
    /// range back from the device when `range` is `None`. Not differentiable.
    ///
    /// # Errors
    /// `InvalidArgument` for a sample that is not 1- or 2-d, `bins`, `range` or `weights` of
    /// the wrong length, a zero bin count, or a range that is reversed or not finite (NaN in
    /// the data needs an explicit range); `ShapeOverflow` when the bin counts' product
    /// overflows; `OutOfMemory` for a histogram too large to allocate.
    pub fn try_histogramdd(
        &self,
        bins: &[usize],
        range: Option<&[(f64, f64)]>,
        weights: Option<&Tensor<f64, D>>,
        density: bool,
    ) -> Result<Histogram<D>> {
        const OP: &str = "histogramdd";
        let invalid = |msg: String| Error::InvalidArgument { op: OP, msg };
        let x = match self.ndim() {
            1 => self.unsqueeze(1)?,
            2 => self.clone(),
            _ => {
                return Err(invalid(format!(
                    "takes (N, D) points, got shape {}",
                    self.shape()
                )));
            }
        };
        let (n, dims) = (x.dims()[0], x.dims()[1]);
        if !(bins.len() == dims || bins.len() == 1) || range.is_some_and(|r| r.len() != dims) {
            return Err(invalid(format!(
                "{dims} dimensions need {dims} bin counts (or one) and {dims} ranges, got {} and {}",
                bins.len(),
                range.map_or(dims, |r| r.len())
            )));
        }
        if weights.is_some_and(|w| w.dims() != [n]) {
            return Err(invalid(format!("weights must be ({n}), one per point")));
        }
        let bins: Vec<usize> = (0..dims).map(|d| bins[d.min(bins.len() - 1)]).collect();
        let total = bins.iter().try_fold(1usize, |a, &b| a.checked_mul(b));
        let total = total.ok_or_else(|| Error::ShapeOverflow {
            op: OP,
            dims: bins.clone(),
        })?;
        let x = x.try_cast::<f64>()?;
        let dev = x.device_handle();
        let (mut flat, mut inside) = (Tensor::<i64, D>::zeros_on([n], dev)?, None);
        let mut edges = Vec::with_capacity(dims);
        let mut stride = total;
        for (d, &b) in bins.iter().enumerate() {
            let coord = x.select(1, d as i64)?;
            let e = coord
                .try_histogram_bin_edges(b, range.map(|r| r[d]))
                .map_err(|e| e.renamed(OP))?;
            let within = coord
                .try_ge(&e.narrow(0, 0, 1)?)?
                .try_logical_and(&coord.try_le(&e.narrow(0, b, 1)?)?)?;
            // Bin i holds edge[i] <= x < edge[i + 1]; the last edge belongs to the last bin.
            let at = e.try_searchsorted(&coord, true)?.try_sub_scalar(1)?;
            let at = at.try_clamp(Some(0), Some(b as i64 - 1))?;
            stride /= b;
            flat = flat.try_add(&at.try_mul_scalar(stride as i64)?)?;
            inside = Some(match inside {
                None => within,
                Some(all) => within.try_logical_and(&all)?,
            });
            edges.push(e);
        }
        let inside = inside.map_or_else(|| Tensor::full_on([n], true, dev), Ok)?;
        let weights = match weights {
            Some(w) => w.clone(),
            None => Tensor::ones_on([n], dev)?,
        };
        let hist = Tensor::<f64, D>::zeros_on([total], dev)?.try_index_add(
            0,
            &flat.try_masked_select(&inside)?,
            &weights.try_masked_select(&inside)?,
            1.0,
        )?;
        let mut hist = hist.try_reshape(bins.clone())?;
        if density {
            // Divide by the total and by each bin's volume, the outer product of the widths.
            hist = hist.try_div(&hist.try_sum(&[], false)?)?;
            for (d, e) in edges.iter().enumerate() {
                let width = e
                    .narrow(0, 1, bins[d])?
                    .try_sub(&e.narrow(0, 0, bins[d])?)?;
                let mut shape = vec![1; dims];
                shape[d] = bins[d];
                hist = hist.try_div(&width.try_reshape(shape)?)?;
            }
        }
        Ok((hist, edges))
    }

    /// The histogram of the points `(self[i], y[i])` (NumPy `histogram2d`): `self` and `y`
    /// 1-d of one length; `bins` per coordinate; the rest as [`Tensor::try_histogramdd`].
    ///
    /// # Errors
    /// As [`Tensor::try_histogramdd`]; `ShapeMismatch` when `self` and `y` are not 1-d of one
    /// length.
    pub fn try_histogram2d(
        &self,
        y: &Self,
        bins: (usize, usize),
        range: Option<[(f64, f64); 2]>,
        weights: Option<&Tensor<f64, D>>,
        density: bool,
    ) -> Result<Histogram<D>> {
        if self.ndim() != 1 || self.dims() != y.dims() {
            return Err(Error::ShapeMismatch {
                op: "histogram2d",
                lhs: self.shape().clone(),
                rhs: y.shape().clone(),
                msg: "x and y must be 1-d of one length".into(),
            });
        }
        let points = Tensor::try_stack(&[self, y], 1)?;
        let range = range.as_ref().map(|r| r.as_slice());
        points
            .try_histogramdd(&[bins.0, bins.1], range, weights, density)
            .map_err(|e| e.renamed("histogram2d"))
    }

    /// [`Tensor::try_histogramdd`], panicking with its error.
    ///
    /// # Panics
    /// When `try_histogramdd` returns an `Err`.
    #[track_caller]
    pub fn histogramdd(
        &self,
        bins: &[usize],
        range: Option<&[(f64, f64)]>,
        weights: Option<&Tensor<f64, D>>,
        density: bool,
    ) -> Histogram<D> {
        self.try_histogramdd(bins, range, weights, density)
            .or_panic()
    }
}
