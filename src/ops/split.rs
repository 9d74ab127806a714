//! Pieces and regrouped axes, as views (PyTorch's names): `unbind` (the slices along an axis),
//! `tensor_split` (NumPy's `array_split`: sizes that differ by at most one), `tensor_split_at`
//! (at indices), `unflatten` (one axis into several) and `swapaxes`.
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let x = Tensor::<i32>::arange(0, 7, 1)?;
//! let parts = x.tensor_split(3, 0); // 7 = 3 + 2 + 2
//! assert_eq!(parts.iter().map(|p| p.to_vec()).collect::<Vec<_>>(), [vec![0, 1, 2], vec![3, 4], vec![5, 6]]);
//! let m = x.narrow(0, 0, 6)?.unflatten(0, &[2, -1]); // (2, 3)
//! assert_eq!(m.unbind(1)[2].to_vec(), vec![2, 5]);
//! assert_eq!(m.swapaxes(0, 1)?.dims(), &[3, 2]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::Element;
use crate::error::{Error, OrPanic, Result};
use crate::tensor::Tensor;

impl<T: Element, D: Backend> Tensor<T, D> {
    /// The slices at each index of `axis`, which they lack (PyTorch `unbind`); views.
    ///
    /// # Errors
    /// `Axis` for a bad axis.
    pub fn try_unbind(&self, axis: i64) -> Result<Vec<Self>> {
        let ax = self.shape().axis("unbind", axis)? as i64;
        let n = self.dims()[ax as usize];
        // An empty tensor's axis can be 2^40 long: the views are reserved fallibly.
        let mut out = crate::alloc::with_capacity("unbind", n)?;
        for i in 0..n {
            out.push(self.narrow(ax, i, 1)?.squeeze_dims(&[ax])?);
        }
        Ok(out)
    }

    /// `sections` views along `axis` whose sizes differ by at most one, the larger first
    /// (NumPy `array_split`, PyTorch `tensor_split(int)`); some are empty when `sections`
    /// exceeds the length.
    ///
    /// # Errors
    /// `Axis` for a bad axis; `InvalidArgument` for `sections == 0`.
    pub fn try_tensor_split(&self, sections: usize, axis: i64) -> Result<Vec<Self>> {
        let ax = self.shape().axis("tensor_split", axis)?;
        if sections == 0 {
            return Err(Error::InvalidArgument {
                op: "tensor_split",
                msg: "needs at least one section".into(),
            });
        }
        let n = self.dims()[ax];
        let (q, r) = (n / sections, n % sections);
        // Reserved fallibly (`try_split` reserves its views too): sections can be 2^40.
        let mut sizes = crate::alloc::with_capacity("tensor_split", sections)?;
        sizes.extend((0..sections).map(|i| q + usize::from(i < r)));
        self.try_split(&sizes, ax as i64)
    }

    /// Views split before each of `indices` along `axis` (PyTorch `tensor_split(indices)`,
    /// NumPy `split(indices)`): `len + 1` pieces; indices past the end clamp to it and a
    /// smaller index than the previous gives an empty piece, as in NumPy.
    ///
    /// # Errors
    /// `Axis` for a bad axis.
    pub fn try_tensor_split_at(&self, indices: &[usize], axis: i64) -> Result<Vec<Self>> {
        let ax = self.shape().axis("tensor_split", axis)?;
        let n = self.dims()[ax];
        let mut start = 0;
        let mut out = crate::alloc::with_capacity("tensor_split", indices.len().saturating_add(1))?;
        for &i in indices.iter().chain(std::iter::once(&n)) {
            let stop = i.min(n).max(start);
            out.push(self.narrow(ax as i64, start, stop - start)?);
            start = stop;
        }
        Ok(out)
    }

    /// `axis` replaced by dimensions of `sizes`, whose product must be its length; one size may
    /// be `-1`, inferred (PyTorch `unflatten`). A view whenever the strides allow (always for a
    /// contiguous axis).
    ///
    /// # Errors
    /// `Axis` for a bad axis; `ShapeMismatch` when the sizes do not fit.
    pub fn try_unflatten(&self, axis: i64, sizes: &[i64]) -> Result<Self> {
        let ax = self.shape().axis("unflatten", axis)?;
        let d = self.dims();
        let mut spec: Vec<i64> = d[..ax].iter().map(|&x| x as i64).collect();
        if let Some(bad) = sizes.iter().find(|&&s| s < -1) {
            return Err(Error::InvalidArgument {
                op: "unflatten",
                msg: format!("size {bad} is negative; only one -1 (inferred) is allowed"),
            });
        }
        spec.extend_from_slice(sizes);
        spec.extend(d[ax + 1..].iter().map(|&x| x as i64));
        let (known, free): (Vec<i64>, Vec<i64>) = sizes.iter().partition(|&&s| s >= 0);
        let prod = known
            .iter()
            .try_fold(1usize, |a, &s| a.checked_mul(s as usize));
        let fits = match (prod, free.len()) {
            (Some(p), 0) => p == d[ax],
            (Some(p), 1) => p != 0 && d[ax].is_multiple_of(p),
            _ => false,
        };
        if !fits {
            return Err(Error::InvalidArgument {
                op: "unflatten",
                msg: format!(
                    "sizes {sizes:?} do not multiply to dimension {ax} of shape {} (length {})",
                    self.shape(),
                    d[ax]
                ),
            });
        }
        self.try_reshape(spec)
    }

    /// Dimensions `a` and `b` exchanged (NumPy `swapaxes`, PyTorch `swapaxes`/`swapdims`): a
    /// view, [`Tensor::transpose`] under that name.
    ///
    /// # Errors
    /// `Axis` for a bad axis.
    pub fn swapaxes(&self, a: i64, b: i64) -> Result<Self> {
        self.transpose(a, b)
    }

    crate::ops::plain_forms! {
        /// [`Tensor::try_unbind`], panicking with its error.
        unbind, try_unbind(axis: i64) -> Vec<Self>;
        /// [`Tensor::try_tensor_split`], panicking with its error.
        tensor_split, try_tensor_split(sections: usize, axis: i64) -> Vec<Self>;
        /// [`Tensor::try_tensor_split_at`], panicking with its error.
        tensor_split_at, try_tensor_split_at(indices: &[usize], axis: i64) -> Vec<Self>;
        /// [`Tensor::try_unflatten`], panicking with its error.
        unflatten, try_unflatten(axis: i64, sizes: &[i64]) -> Self;
    }
}
