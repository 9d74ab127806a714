//! NumPy's set and order routines on flattened values: `union1d`, `intersect1d`,
//! `setdiff1d`, `setxor1d` (sorted distinct values, from [`Tensor::try_unique`] and
//! [`Tensor::try_isin`]), `lexsort` (successive stable sorts) and `partition`/`argpartition`
//! (a full stable sort, which is one valid partition).
//!
//! ```
//! use typed_tensor::prelude::*;
//! let (a, b) = (tensor![3i32, 1, 2, 3], tensor![2i32, 5, 3]);
//! assert_eq!(a.union1d(&b).to_vec(), vec![1, 2, 3, 5]);
//! assert_eq!(a.intersect1d(&b).to_vec(), vec![2, 3]);
//! assert_eq!(a.setdiff1d(&b).to_vec(), vec![1]);
//! // Sort by surname, then first name (the last key is the primary one).
//! let (first, last) = (tensor![2i32, 1, 3, 1], tensor![1i32, 2, 1, 1]);
//! assert_eq!(Tensor::lexsort(&[&first, &last]).to_vec(), vec![3, 0, 2, 1]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::Element;
use crate::error::{Error, OrPanic, Result};
use crate::tensor::Tensor;

impl<T: Element, D: Backend> Tensor<T, D> {
    /// The sorted distinct values of `self` and `other`, both flattened (NumPy `union1d`; NaN
    /// once, last).
    ///
    /// # Errors
    /// `Device` across devices; allocation or transfer failure.
    pub fn try_union1d(&self, other: &Self) -> Result<Self> {
        let both = Self::try_concat(&[&self.try_flatten()?, &other.try_flatten()?], 0)?;
        Ok(both.try_unique()?.0)
    }

    /// The sorted distinct values found in both (NumPy `intersect1d`; NaN is never found, as
    /// NaN ≠ NaN).
    ///
    /// # Errors
    /// As [`Tensor::try_union1d`].
    pub fn try_intersect1d(&self, other: &Self) -> Result<Self> {
        let u = self.try_unique()?.0;
        u.try_masked_select(&u.try_isin(other)?)
    }

    /// The sorted distinct values of `self` not found in `other` (NumPy `setdiff1d`; a NaN of
    /// `self` is kept).
    ///
    /// # Errors
    /// As [`Tensor::try_union1d`].
    pub fn try_setdiff1d(&self, other: &Self) -> Result<Self> {
        let u = self.try_unique()?.0;
        u.try_masked_select(&u.try_isin(other)?.try_logical_not()?)
    }

    /// The sorted distinct values found in exactly one of `self` and `other` (NumPy
    /// `setxor1d`).
    ///
    /// # Errors
    /// As [`Tensor::try_union1d`].
    pub fn try_setxor1d(&self, other: &Self) -> Result<Self> {
        let u = self.try_union1d(other)?;
        let one = u.try_isin(self)?.try_logical_xor(&u.try_isin(other)?)?;
        u.try_masked_select(&one)
    }

    /// The indices that sort by several keys along the last axis, the **last** key the
    /// primary one (NumPy `lexsort`): stable, NaN last. Every key has the same shape; the
    /// result is Int64 of that shape.
    ///
    /// # Errors
    /// `InvalidArgument` for no keys, 0-d keys or keys of different shapes; `Device` across
    /// devices.
    pub fn try_lexsort(keys: &[&Self]) -> Result<Tensor<i64, D>> {
        const OP: &str = "lexsort";
        let Some(first) = keys.first() else {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: "needs at least one key".into(),
            });
        };
        if first.ndim() == 0 || keys.iter().any(|k| k.shape() != first.shape()) {
            let shapes: Vec<String> = keys.iter().map(|k| k.shape().to_string()).collect();
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!("needs keys of one shape with at least one axis, got {shapes:?}"),
            });
        }
        // Stable sorts from the least significant key to the most significant one.
        let mut order = first.try_argsort(-1, false)?;
        for key in &keys[1..] {
            crate::ops::device_ops::same_device(OP, first, key)?;
            let by = key
                .try_take_along_dim(&order, Some(-1))?
                .try_argsort(-1, false)?;
            order = order.try_take_along_dim(&by, Some(-1))?;
        }
        Ok(order)
    }

    /// [`Tensor::try_lexsort`], panicking with its error.
    ///
    /// # Panics
    /// When `try_lexsort` returns an `Err`.
    #[track_caller]
    pub fn lexsort(keys: &[&Self]) -> Tensor<i64, D> {
        Self::try_lexsort(keys).or_panic()
    }

    /// `self` along `axis` with the `kth` element where a sort puts it, no larger element
    /// before it and no smaller one after (NumPy `partition`; a negative `kth` counts from the
    /// end). This returns the full stable sort, one valid partition; NumPy's order of the
    /// other elements is unspecified.
    ///
    /// # Errors
    /// `Axis` for a bad axis; `Index` when `kth` is outside the axis.
    pub fn try_partition(&self, kth: i64, axis: i64) -> Result<Self> {
        self.check_kth("partition", kth, axis)?;
        Ok(self.try_sort(axis, false)?.0)
    }

    /// The indices of [`Tensor::try_partition`] (NumPy `argpartition`), Int64. Errors as
    /// there.
    pub fn try_argpartition(&self, kth: i64, axis: i64) -> Result<Tensor<i64, D>> {
        self.check_kth("argpartition", kth, axis)?;
        self.try_argsort(axis, false)
    }

    fn check_kth(&self, op: &'static str, kth: i64, axis: i64) -> Result<()> {
        let ax = self.shape().axis(op, axis)?;
        let n = self.dims()[ax] as i64;
        if kth < -n || kth >= n {
            return Err(Error::Index {
                op,
                index: kth,
                dim: ax,
                size: n as usize,
                shape: self.shape().clone(),
            });
        }
        Ok(())
    }

    super::plain_forms! {
        /// [`Tensor::try_union1d`], panicking with its error.
        union1d, try_union1d(other: &Self) -> Self;
        /// [`Tensor::try_intersect1d`], panicking with its error.
        intersect1d, try_intersect1d(other: &Self) -> Self;
        /// [`Tensor::try_setdiff1d`], panicking with its error.
        setdiff1d, try_setdiff1d(other: &Self) -> Self;
        /// [`Tensor::try_setxor1d`], panicking with its error.
        setxor1d, try_setxor1d(other: &Self) -> Self;
        /// [`Tensor::try_partition`], panicking with its error.
        partition, try_partition(kth: i64, axis: i64) -> Self;
        /// [`Tensor::try_argpartition`], panicking with its error.
        argpartition, try_argpartition(kth: i64, axis: i64) -> Tensor<i64, D>;
    }
}
