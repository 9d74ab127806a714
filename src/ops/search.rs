//! Ops whose output size depends on the values (`nonzero`, `unique`, `bincount`) and sorted
//! searches (`searchsorted`, `isin`), with NumPy's and PyTorch's semantics. Sizes are decided
//! on the host: these read the values back once (a synchronisation on CUDA), then compute
//! there or on the device. No gradients (the results are indices, counts or truth values).
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let x = tensor![[0i32, 3], [2, 0]];
//! assert_eq!(x.nonzero().to_vec(), vec![0, 1, 1, 0]); // (k, ndim) coordinates
//! let (values, inverse, counts) = tensor![3i32, 1, 3, 2].unique();
//! assert_eq!((values.to_vec(), inverse.to_vec(), counts.to_vec()),
//!            (vec![1, 2, 3], vec![2, 0, 2, 1], vec![1, 1, 2]));
//! let sorted = tensor![1.0f32, 2.0, 2.0, 5.0];
//! assert_eq!(sorted.searchsorted(&tensor![2.0f32, 6.0], false).to_vec(), vec![1, 4]);
//! assert_eq!(tensor![1i32, 4].isin(&tensor![4i32, 5]).to_vec(), vec![false, true]);
//! assert_eq!(tensor![1i64, 1, 3].bincount(0).to_vec(), vec![0, 2, 0, 1]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use std::cmp::Ordering;

use rayon::prelude::*;

use crate::backend::Backend;
use crate::dtype::Element;
use crate::error::{Error, OrPanic, Result};
use crate::tensor::Tensor;

/// The order of `sort`: NaN after every number, NaNs equal to each other.
fn nan_last<T: Element>(a: &T, b: &T) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(b).unwrap_or(Ordering::Equal),
    }
}

/// `v` as an i64 tensor of `shape` on `dev`.
fn indices_on<D: Backend>(v: Vec<i64>, shape: Vec<usize>, dev: &D) -> Result<Tensor<i64, D>> {
    Tensor::from_vec_on(v, shape, dev)
}

impl<T: Element, D: Backend> Tensor<T, D> {
    /// The coordinates of the non-zero (true, non-`0`, NaN) elements in row-major order, as a
    /// `(k, ndim)` i64 tensor (PyTorch `nonzero`, NumPy `argwhere`).
    ///
    /// # Errors
    /// Allocation or transfer failure.
    pub fn try_nonzero(&self) -> Result<Tensor<i64, D>> {
        crate::backend::on_host(self, crate::backend::cpu::compact::nonzero)
    }

    /// The sorted distinct values (1-d), each element's position among them (`inverse`, in
    /// `self`'s shape) and how often each occurs (`counts`) (NumPy `unique` with
    /// `return_inverse` and `return_counts`; PyTorch `unique(sorted=True, ..)`). NaNs count as
    /// one value, sorted last (NumPy's `equal_nan`); `-0.0` equals `0.0`.
    ///
    /// # Errors
    /// Allocation or transfer failure.
    #[allow(clippy::type_complexity)]
    pub fn try_unique(&self) -> Result<(Self, Tensor<i64, D>, Tensor<i64, D>)> {
        let values = self.try_to_vec()?;
        // (value, position) pairs sorted on all threads: comparing positions through the
        // values missed the cache on every comparison (3x PyTorch's time at 2^20 elements).
        let mut order: Vec<(T, usize)> = crate::alloc::with_capacity("unique", values.len())?;
        order.extend(values.iter().copied().zip(0..));
        drop(values);
        // Equal values (±0) by position: the first occurrence stands for them, as in a
        // stable sort.
        order.par_sort_unstable_by(|a, b| nan_last(&a.0, &b.0).then(a.1.cmp(&b.1)));
        let (mut distinct, mut counts) = (Vec::new(), Vec::new());
        let mut inverse = crate::alloc::with_capacity("unique", order.len())?;
        inverse.resize(order.len(), 0i64);
        for &(v, i) in &order {
            let new = distinct
                .last()
                .is_none_or(|l| nan_last(l, &v) != Ordering::Equal);
            if new {
                distinct.push(v);
                counts.push(0i64);
            }
            *counts.last_mut().expect("pushed") += 1;
            inverse[i] = distinct.len() as i64 - 1;
        }
        let dev = self.device_handle();
        let n = distinct.len();
        Ok((
            Self::from_vec_on(distinct, [n], dev)?,
            indices_on(inverse, self.dims().to_vec(), dev)?,
            indices_on(counts, vec![n], dev)?,
        ))
    }

    /// For each of `values`, the index at which it would be inserted into `self`, a sorted
    /// 1-d tensor (ascending, NaN last), to keep it sorted: before equal elements, or after
    /// them when `right` (NumPy `searchsorted` with `side`, PyTorch `searchsorted`). The
    /// result has `values`' shape.
    ///
    /// # Errors
    /// `InvalidArgument` when `self` is not 1-d; `Device` across devices. An unsorted `self`
    /// gives unspecified (but in-range) indices, as in NumPy.
    pub fn try_searchsorted(&self, values: &Self, right: bool) -> Result<Tensor<i64, D>> {
        if self.ndim() != 1 {
            return Err(Error::InvalidArgument {
                op: "searchsorted",
                msg: format!(
                    "the sorted sequence must be 1-d, got shape {}",
                    self.shape()
                ),
            });
        }
        super::device_ops::same_device("searchsorted", self, values)?;
        let seq = self.try_to_vec()?;
        // Each search misses the cache at every level: all threads search.
        let at: Vec<i64> = (values.try_to_vec()?.par_iter())
            .with_min_len(4096)
            .map(|v| {
                let i = seq.partition_point(|s| match nan_last(s, v) {
                    Ordering::Less => true,
                    Ordering::Equal => right,
                    Ordering::Greater => false,
                });
                i as i64
            })
            .collect();
        indices_on(at, values.dims().to_vec(), self.device_handle())
    }

    /// Whether each element occurs in `elements` (any shape), in `self`'s shape (NumPy and
    /// PyTorch `isin`); NaN is never found.
    ///
    /// # Errors
    /// `Device` across devices; allocation or transfer failure.
    pub fn try_isin(&self, elements: &Self) -> Result<Tensor<bool, D>> {
        super::device_ops::same_device("isin", self, elements)?;
        let mut set = elements.try_to_vec()?;
        set.retain(|v| !v.is_nan());
        set.sort_by(nan_last);
        let found: Vec<bool> = (self.try_to_vec()?.iter())
            .map(|v| set.binary_search_by(|s| nan_last(s, v)).is_ok() && !v.is_nan())
            .collect();
        Tensor::from_vec_on(found, self.dims().to_vec(), self.device_handle())
    }

    /// The elements with each run of equal neighbours collapsed to one (1-d, in order), each
    /// element's run (`inverse`, in `self`'s shape) and the runs' lengths (`counts`), over the
    /// flattened tensor (PyTorch `unique_consecutive` with `return_inverse` and
    /// `return_counts`). NaN equals nothing, as in PyTorch, so each NaN is its own run.
    ///
    /// # Errors
    /// Allocation or transfer failure.
    #[allow(clippy::type_complexity)]
    pub fn try_unique_consecutive(&self) -> Result<(Self, Tensor<i64, D>, Tensor<i64, D>)> {
        let op = "unique_consecutive";
        let values = self.try_to_vec()?;
        let (mut runs, mut counts) = (Vec::new(), Vec::new());
        let mut inverse = crate::alloc::with_capacity(op, values.len())?;
        for (i, v) in values.iter().enumerate() {
            if i == 0 || values[i - 1] != *v || v.is_nan() {
                runs.push(*v);
                counts.push(0i64);
            }
            *counts.last_mut().expect("pushed") += 1;
            inverse.push(runs.len() as i64 - 1);
        }
        let dev = self.device_handle();
        let n = runs.len();
        Ok((
            Self::from_vec_on(runs, [n], dev)?,
            indices_on(inverse, self.dims().to_vec(), dev)?,
            indices_on(counts, vec![n], dev)?,
        ))
    }

    /// The most frequent value along `axis` and the index of its last occurrence (PyTorch
    /// `mode`): among equally frequent values the smallest wins; NaN equals nothing (each NaN
    /// counts once). Decided on the host (one read-back); the values are gathered at the
    /// indices, so the gradient reaches those elements.
    ///
    /// # Errors
    /// `EmptyReduction` for an empty axis; `Axis` for a bad axis.
    pub fn try_mode(&self, axis: i64, keepdim: bool) -> Result<(Self, Tensor<i64, D>)> {
        if let Some(row) = self.scalar_as_row("mode", axis)? {
            return row.try_mode(0, false);
        }
        let (ax, n) = super::numeric::order_axis("mode", self, axis)?;
        let a = ax as i64;
        let rows = self.movedim(&[a], &[-1])?.try_contiguous()?.try_to_vec()?;
        let mut best = crate::alloc::with_capacity("mode", rows.len() / n)?;
        let mut order: Vec<usize> = Vec::with_capacity(n);
        for row in rows.chunks(n) {
            order.clear();
            order.extend(0..n);
            order.sort_by(|&i, &j| nan_last(&row[i], &row[j]).then(i.cmp(&j)));
            // Runs of equal values in sorted order: (count, last index); the first longest
            // run is the smallest of the most frequent values.
            let (mut top, mut at, mut start) = (0usize, 0usize, 0usize);
            for k in 1..=n {
                let ends = k == n || row[order[k]] != row[order[start]] || row[order[k]].is_nan();
                if ends {
                    let last = order[start..k].iter().copied().max().expect("a run");
                    if k - start > top {
                        (top, at) = (k - start, last);
                    }
                    start = k;
                }
            }
            best.push(at as i64);
        }
        let mut dims: Vec<usize> = self.dims().to_vec();
        dims.remove(ax);
        dims.push(1);
        let idx = indices_on(best, dims, self.device_handle())?.movedim(&[-1], &[a])?;
        let values = self.try_gather(a, &idx)?;
        if keepdim {
            Ok((values, idx))
        } else {
            Ok((values.squeeze_dims(&[a])?, idx.squeeze_dims(&[a])?))
        }
    }

    plain_forms! {
        /// [`Tensor::try_unique_consecutive`], panicking with its error.
        unique_consecutive, try_unique_consecutive() -> (Self, Tensor<i64, D>, Tensor<i64, D>);
        /// [`Tensor::try_mode`], panicking with its error.
        mode, try_mode(axis: i64, keepdim: bool) -> (Self, Tensor<i64, D>);
        /// [`Tensor::try_nonzero`], panicking with its error.
        nonzero, try_nonzero() -> Tensor<i64, D>;
        /// [`Tensor::try_unique`], panicking with its error.
        unique, try_unique() -> (Self, Tensor<i64, D>, Tensor<i64, D>);
        /// [`Tensor::try_searchsorted`], panicking with its error.
        searchsorted, try_searchsorted(values: &Self, right: bool) -> Tensor<i64, D>;
        /// [`Tensor::try_isin`], panicking with its error.
        isin, try_isin(elements: &Self) -> Tensor<bool, D>;
    }
}

impl<D: Backend> Tensor<i64, D> {
    /// How often each value `0..=max` occurs in a 1-d tensor of non-negative integers, with
    /// at least `minlength` bins (NumPy and PyTorch `bincount`, without weights).
    ///
    /// # Errors
    /// `InvalidArgument` when `self` is not 1-d or holds a negative value.
    pub fn try_bincount(&self, minlength: usize) -> Result<Tensor<i64, D>> {
        let op = "bincount";
        if self.ndim() != 1 {
            return Err(Error::InvalidArgument {
                op,
                msg: format!("takes a 1-d tensor, got shape {}", self.shape()),
            });
        }
        crate::backend::on_host(self, |h| {
            crate::backend::cpu::compact::bincount(h, minlength)
        })
    }

    plain_forms! {
        /// [`Tensor::try_bincount`], panicking with its error.
        bincount, try_bincount(minlength: usize) -> Tensor<i64, D>;
    }
}
