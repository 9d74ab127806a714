//! Rearrangements and small products composed of views and element-wise ops (NumPy's and
//! PyTorch's `movedim`, `rot90`, `broadcast_tensors`, `meshgrid`, `vstack`/`hstack`/`dstack`,
//! `block_diag`, `cartesian_prod`, `diff`, `kron`, `cross`, `trace`),
//! written once over `D: Backend`; each is differentiable through its parts.
//!
//! ```
//! use typed_tensor::prelude::*;
//! use typed_tensor::ops::arrange::Indexing;
//!
//! let x = tensor![1i32, 2, 3];
//! let y = tensor![10i32, 20];
//! let g = Tensor::meshgrid(&[&x, &y], Indexing::Ij)?;
//! assert_eq!(g[0].dims(), &[3, 2]);
//! assert_eq!(g[1].to_vec(), vec![10, 20, 10, 20, 10, 20]);
//! assert_eq!(tensor![1i32, 4, 9, 16].diff(1, 0).to_vec(), vec![3, 5, 7]);
//! let k = tensor![[1i32, 2], [3, 4]].kron(&tensor![[0i32, 1], [1, 0]]);
//! assert_eq!(k.to_vec(), vec![0, 1, 0, 2, 1, 0, 2, 0, 0, 3, 0, 4, 3, 0, 4, 0]);
//! let c = tensor![1.0f64, 0.0, 0.0].cross(&tensor![0.0f64, 1.0, 0.0], -1);
//! assert_eq!(c.to_vec(), vec![0.0, 0.0, 1.0]);
//! assert_eq!(tensor![[1i32, 2], [3, 4]].trace().item(), 5i64);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::{Element, NumElement};
use crate::error::{Error, OrPanic, Result};
use crate::shape::{Shape, broadcast_shapes};
use crate::tensor::Tensor;

/// How [`Tensor::meshgrid`] lays out its grids (NumPy's and PyTorch's `indexing`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Indexing {
    /// Matrix indexing: grid `i` varies along axis `i` (PyTorch's default).
    Ij,
    /// Cartesian indexing: the first two axes swapped (NumPy's default).
    Xy,
}

impl<T: Element, D: Backend> Tensor<T, D> {
    /// A view with the axes `source` moved to the positions `destination` and the others in
    /// their order (NumPy `moveaxis`, PyTorch `movedim`).
    ///
    /// # Errors
    /// `Axis` for a bad or repeated axis; `InvalidArgument` when the lists' lengths differ.
    pub fn movedim(&self, source: &[i64], destination: &[i64]) -> Result<Self> {
        let op = "movedim";
        if source.len() != destination.len() {
            return Err(Error::InvalidArgument {
                op,
                msg: format!("source {source:?} and destination {destination:?} differ in length"),
            });
        }
        let n = self.ndim();
        let normalise = |axes: &[i64]| -> Result<Vec<usize>> {
            let out: Vec<usize> =
                (axes.iter().map(|&a| self.shape().axis(op, a))).collect::<Result<_>>()?;
            match (1..out.len()).find(|&i| out[..i].contains(&out[i])) {
                Some(i) => Err(Error::Axis {
                    op,
                    axis: axes[i],
                    shape: self.shape().clone(),
                    ndim: n,
                    msg: "an axis is listed twice",
                }),
                None => Ok(out),
            }
        };
        let (src, dst) = (normalise(source)?, normalise(destination)?);
        let mut order: Vec<Option<usize>> = vec![None; n];
        for (&s, &d) in src.iter().zip(&dst) {
            order[d] = Some(s);
        }
        let mut rest = (0..n).filter(|a| !src.contains(a));
        let perm: Vec<i64> = order
            .into_iter()
            .map(|o| o.or_else(|| rest.next()).map_or(0, |a| a as i64))
            .collect();
        self.permute(&perm)
    }

    /// Views of `tensors` expanded to their common broadcast shape (PyTorch
    /// `broadcast_tensors`, NumPy `broadcast_arrays`).
    ///
    /// # Errors
    /// `Broadcast` when the shapes do not broadcast.
    pub fn broadcast_tensors(tensors: &[&Self]) -> Result<Vec<Self>> {
        Self::broadcast_for("broadcast_tensors", tensors)
    }

    /// [`Tensor::broadcast_tensors`] whose error names `op`, the op that broadcasts.
    pub(crate) fn broadcast_for(op: &'static str, tensors: &[&Self]) -> Result<Vec<Self>> {
        let mut shape = Shape::from(Vec::<usize>::new());
        for t in tensors {
            shape = broadcast_shapes(op, &shape, t.shape())?;
        }
        tensors.iter().map(|t| t.expand(shape.clone())).collect()
    }

    /// Coordinate grids of 1-d (or 0-d) tensors (NumPy and PyTorch `meshgrid`): with
    /// [`Indexing::Ij`], grid `i` has shape `(len_0, .., len_k)` and varies along axis `i`;
    /// [`Indexing::Xy`] swaps the first two axes. The grids are broadcast views.
    ///
    /// # Errors
    /// `InvalidArgument` for an input of more than one dimension.
    pub fn meshgrid(tensors: &[&Self], indexing: Indexing) -> Result<Vec<Self>> {
        if let Some(t) = tensors.iter().find(|t| t.ndim() > 1) {
            return Err(Error::InvalidArgument {
                op: "meshgrid",
                msg: format!("takes 0-d or 1-d tensors, got shape {}", t.shape()),
            });
        }
        let mut lens: Vec<usize> = tensors.iter().map(|t| t.numel()).collect();
        let swap = indexing == Indexing::Xy && lens.len() >= 2;
        if swap {
            lens.swap(0, 1);
        }
        let k = lens.len();
        (tensors.iter().enumerate())
            .map(|(i, t)| {
                let axis = match (swap, i) {
                    (true, 0) => 1,
                    (true, 1) => 0,
                    _ => i,
                };
                let mut dims = vec![1; k];
                dims[axis] = lens[axis];
                t.try_reshape(dims)?.expand(lens.clone())
            })
            .collect()
    }
}

/// `t` with leading size-1 axes (and, for `dstack`, a trailing one) until it has `n` axes, as
/// NumPy's `atleast_2d`/`atleast_3d` place them.
fn at_least<T: Element, D: Backend>(t: &Tensor<T, D>, n: usize) -> Result<Tensor<T, D>> {
    let d = t.dims();
    let dims = match (n, d.len()) {
        (_, k) if k >= n => return Ok(t.clone()),
        (3, 2) => vec![d[0], d[1], 1],
        (3, 1) => vec![1, d[0], 1],
        (_, _) => [vec![1; n - d.len()], d.to_vec()].concat(),
    };
    t.try_reshape(dims)
}

impl<T: Element, D: Backend> Tensor<T, D> {
    /// Stacks along the first axis after making each input at least 2-d, `(n,)` as `(1, n)`
    /// (NumPy `vstack`, PyTorch `vstack`).
    ///
    /// # Errors
    /// As [`Tensor::try_concat`]; `InvalidArgument` for no tensors.
    pub fn try_vstack(tensors: &[&Self]) -> Result<Self> {
        Self::stack_at("vstack", tensors, 2, 0)
    }

    /// Concatenates along the second axis, or the first when every input is 1-d (0-d inputs
    /// count as `(1,)`) (NumPy `hstack`).
    ///
    /// # Errors
    /// As [`Tensor::try_concat`]; `InvalidArgument` for no tensors.
    pub fn try_hstack(tensors: &[&Self]) -> Result<Self> {
        let axis = if tensors.iter().all(|t| t.ndim() <= 1) {
            0
        } else {
            1
        };
        Self::stack_at("hstack", tensors, 1, axis)
    }

    /// Stacks along the third axis after making each input at least 3-d, `(n,)` as
    /// `(1, n, 1)` and `(m, n)` as `(m, n, 1)` (NumPy `dstack`).
    ///
    /// # Errors
    /// As [`Tensor::try_concat`]; `InvalidArgument` for no tensors.
    pub fn try_dstack(tensors: &[&Self]) -> Result<Self> {
        Self::stack_at("dstack", tensors, 3, 2)
    }

    fn stack_at(op: &'static str, tensors: &[&Self], ndim: usize, axis: i64) -> Result<Self> {
        if tensors.is_empty() {
            return Err(Error::InvalidArgument {
                op,
                msg: "needs at least one tensor".into(),
            });
        }
        let parts: Vec<Self> = tensors
            .iter()
            .map(|t| at_least(t, ndim))
            .collect::<Result<_>>()?;
        Self::try_concat(&parts.iter().collect::<Vec<_>>(), axis)
    }

    /// Rotates by 90° `k` times in the plane of `axes`, from the first axis toward the second
    /// (NumPy `rot90`); a view. Negative `k` rotates the other way.
    ///
    /// # Errors
    /// `Axis` for bad or equal axes.
    pub fn rot90(&self, k: i64, axes: (i64, i64)) -> Result<Self> {
        let a = self.shape().axis("rot90", axes.0)? as i64;
        let b = self.shape().axis("rot90", axes.1)? as i64;
        if a == b {
            return Err(Error::Axis {
                op: "rot90",
                axis: axes.1,
                shape: self.shape().clone(),
                ndim: self.ndim(),
                msg: "the two axes of the plane must differ",
            });
        }
        match k.rem_euclid(4) {
            0 => Ok(self.clone()),
            1 => self.flip(&[b])?.transpose(a, b),
            2 => self.flip(&[a, b]),
            _ => self.transpose(a, b)?.flip(&[b]),
        }
    }

    /// The block-diagonal matrix of `tensors` (each 2-d, or 0-d/1-d as `(1, 1)`/`(1, n)`),
    /// zero elsewhere (PyTorch `block_diag`).
    ///
    /// # Errors
    /// `InvalidArgument` for an input of more than 2 dimensions, or for no tensors.
    pub fn try_block_diag(tensors: &[&Self]) -> Result<Self> {
        if let Some(t) = tensors.iter().find(|t| t.ndim() > 2) {
            return Err(Error::InvalidArgument {
                op: "block_diag",
                msg: format!(
                    "takes tensors of at most 2 dimensions, got shape {}",
                    t.shape()
                ),
            });
        }
        let blocks: Vec<Self> = tensors
            .iter()
            .map(|t| at_least(t, 2))
            .collect::<Result<_>>()?;
        let width: usize = blocks.iter().map(|b| b.dims()[1]).sum();
        let mut left = 0;
        let rows: Vec<Self> = (blocks.iter())
            .map(|b| {
                let w = b.dims()[1];
                let row = b.try_pad(&[(0, 0), (left, width - left - w)], T::ZERO);
                left += w;
                row
            })
            .collect::<Result<_>>()?;
        if rows.is_empty() {
            return Err(Error::InvalidArgument {
                op: "block_diag",
                msg: "needs at least one tensor (to know the device)".into(),
            });
        }
        Self::try_concat(&rows.iter().collect::<Vec<_>>(), 0)
    }

    /// The Cartesian product of 1-d tensors as an `(n_1 · … · n_k, k)` tensor in row-major
    /// order (PyTorch `cartesian_prod`; one tensor is returned as it is).
    ///
    /// # Errors
    /// `InvalidArgument` for an input that is not 1-d, or for no tensors.
    pub fn try_cartesian_prod(tensors: &[&Self]) -> Result<Self> {
        let op = "cartesian_prod";
        if tensors.is_empty() || tensors.iter().any(|t| t.ndim() != 1) {
            return Err(Error::InvalidArgument {
                op,
                msg: "takes one or more 1-d tensors".into(),
            });
        }
        if tensors.len() == 1 {
            return Ok(tensors[0].clone());
        }
        let grids = Self::meshgrid(tensors, Indexing::Ij)?;
        let flat: Vec<Self> = grids
            .iter()
            .map(|g| g.try_flatten())
            .collect::<Result<_>>()?;
        Self::try_stack(&flat.iter().collect::<Vec<_>>(), 1)
    }

    /// The length-`r` combinations of a 1-d tensor's elements as a `(count, r)` tensor, in
    /// lexicographic order of positions (PyTorch `combinations`, Python's
    /// `itertools.combinations`, or `combinations_with_replacement` when `with_replacement`).
    /// As PyTorch: `r = 0` gives an empty `(0)` tensor, and `r` past the length without
    /// replacement an empty `(0, r)`. Differentiable (one `index_select`).
    ///
    /// # Errors
    /// `InvalidArgument` for an input that is not 1-d; `ShapeOverflow` when the count
    /// overflows; `OutOfMemory` when the combinations cannot be allocated.
    pub fn try_combinations(&self, r: usize, with_replacement: bool) -> Result<Self> {
        const OP: &str = "combinations";
        let &[n] = self.dims() else {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!("takes a 1-d tensor, got shape {}", self.shape()),
            });
        };
        if r == 0 {
            return self.narrow(0, 0, 0);
        }
        let overflow = || Error::ShapeOverflow {
            op: OP,
            dims: vec![n, r],
        };
        // C(m, r) with m = n, or n + r - 1 with replacement, as C(m, i+1) = C(m, i)·(m-i)/(i+1).
        let m = if with_replacement {
            n.checked_add(r - 1).ok_or_else(overflow)?
        } else {
            n
        };
        let count = if r > m {
            0
        } else {
            (0..r.min(m - r))
                .try_fold(1u128, |c, i| {
                    let c = c.checked_mul((m - i) as u128)? / (i as u128 + 1);
                    (c <= usize::MAX as u128).then_some(c)
                })
                .ok_or_else(overflow)? as usize
        };
        let total = count.checked_mul(r).ok_or_else(overflow)?;
        // Each combination from the previous: raise the last position that can rise, and set
        // the ones after it to their smallest values.
        let mut at: Vec<usize> = if with_replacement {
            vec![0; r]
        } else {
            (0..r).collect()
        };
        let top = |j: usize| if with_replacement { n - 1 } else { n - r + j };
        let mut index = crate::alloc::with_capacity(OP, total)?;
        for k in 0..count {
            if k > 0 {
                let j = (0..r).rev().find(|&j| at[j] < top(j)).unwrap_or(0);
                at[j] += 1;
                for i in j + 1..r {
                    at[i] = if with_replacement {
                        at[j]
                    } else {
                        at[i - 1] + 1
                    };
                }
            }
            index.extend(at.iter().map(|&p| p as i64));
        }
        let index = Tensor::from_vec_on(index, [total], self.device_handle())?;
        self.try_index_select(0, &index)?.try_reshape([count, r])
    }

    /// [`Tensor::try_combinations`], panicking with its error.
    ///
    /// # Panics
    /// When [`Tensor::try_combinations`] returns an `Err`.
    #[track_caller]
    pub fn combinations(&self, r: usize, with_replacement: bool) -> Self {
        self.try_combinations(r, with_replacement).or_panic()
    }

    /// [`Tensor::try_vstack`], panicking with its error.
    ///
    /// # Panics
    /// When [`Tensor::try_vstack`] returns an `Err`.
    #[track_caller]
    pub fn vstack(tensors: &[&Self]) -> Self {
        Self::try_vstack(tensors).or_panic()
    }
    /// [`Tensor::try_hstack`], panicking with its error.
    ///
    /// # Panics
    /// When [`Tensor::try_hstack`] returns an `Err`.
    #[track_caller]
    pub fn hstack(tensors: &[&Self]) -> Self {
        Self::try_hstack(tensors).or_panic()
    }
    /// [`Tensor::try_dstack`], panicking with its error.
    ///
    /// # Panics
    /// When [`Tensor::try_dstack`] returns an `Err`.
    #[track_caller]
    pub fn dstack(tensors: &[&Self]) -> Self {
        Self::try_dstack(tensors).or_panic()
    }
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// The `n`-th discrete difference along `axis`, `out[i] = x[i + 1] - x[i]` applied `n`
    /// times (NumPy `diff`, PyTorch `diff`); the axis shrinks by `n` (to 0 at most). Integers
    /// wrap, as NumPy's do.
    ///
    /// # Errors
    /// `Axis` for a bad axis.
    pub fn try_diff(&self, n: usize, axis: i64) -> Result<Self> {
        let ax = self.shape().axis("diff", axis)? as i64;
        if self.numel() == 0 {
            // The axis of an empty tensor can be 2^40 long: no differences to take one by one.
            let len = self.dims()[ax as usize];
            return self.narrow(ax, 0, len.saturating_sub(n));
        }
        let mut x = self.clone();
        for _ in 0..n {
            let len = x.dims()[ax as usize];
            if len == 0 {
                break;
            }
            x = x
                .narrow(ax, 1, len - 1)?
                .try_sub(&x.narrow(ax, 0, len - 1)?)?;
        }
        Ok(x)
    }

    /// The Kronecker product (NumPy and PyTorch `kron`): the shapes are aligned on the right
    /// (missing axes count as 1) and the result has shape `a_i · b_i` on each axis.
    ///
    /// # Errors
    /// `ShapeOverflow`/`OutOfMemory` for a result too large.
    pub fn try_kron(&self, other: &Self) -> Result<Self> {
        let n = self.ndim().max(other.ndim());
        let pad = |t: &Self| -> Vec<usize> {
            let mut d = vec![1; n - t.ndim()];
            d.extend(t.dims());
            d
        };
        let (da, db) = (pad(self), pad(other));
        // (a0, 1, a1, 1, ..) · (1, b0, 1, b1, ..) → (a0, b0, a1, b1, ..) → (a0·b0, a1·b1, ..).
        let spread = |d: &[usize], first: bool| -> Vec<usize> {
            d.iter()
                .flat_map(|&v| if first { [v, 1] } else { [1, v] })
                .collect()
        };
        let out: Option<Vec<usize>> = (da.iter().zip(&db))
            .map(|(&a, &b)| a.checked_mul(b))
            .collect();
        let total = (out.iter().flatten()).try_fold(1usize, |n, &d| n.checked_mul(d));
        let out = out
            .filter(|_| total.is_some())
            .ok_or_else(|| Error::ShapeOverflow {
                op: "kron",
                dims: da.iter().zip(&db).flat_map(|(&a, &b)| [a, b]).collect(),
            })?;
        let a = self.try_reshape(spread(&da, true))?;
        let b = other.try_reshape(spread(&db, false))?;
        a.try_mul(&b)?.try_reshape(out)
    }

    /// The cross product of 3-vectors along `axis` after broadcasting (PyTorch
    /// `linalg.cross`, NumPy `cross` with `axis`).
    ///
    /// # Errors
    /// `Broadcast` when the shapes do not broadcast; `InvalidArgument` when `axis` does not
    /// have length 3; `Axis` for a bad axis.
    pub fn try_cross(&self, other: &Self, axis: i64) -> Result<Self> {
        let v = Self::broadcast_for("cross", &[self, other])?;
        let ax = v[0].shape().axis("cross", axis)?;
        if v[0].dims()[ax] != 3 {
            return Err(Error::InvalidArgument {
                op: "cross",
                msg: format!("axis {ax} of shape {} must have length 3", v[0].shape()),
            });
        }
        let dev = self.device_handle();
        let rot = |k: [i64; 3]| Tensor::<i64, D>::from_vec_on(k.to_vec(), [3], dev);
        let (r1, r2) = (rot([1, 2, 0])?, rot([2, 0, 1])?);
        let pick = |t: &Self, r: &Tensor<i64, D>| t.try_index_select(ax as i64, r);
        let lhs = pick(&v[0], &r1)?.try_mul(&pick(&v[1], &r2)?)?;
        lhs.try_sub(&pick(&v[0], &r2)?.try_mul(&pick(&v[1], &r1)?)?)
    }

    /// The sum of the main diagonal of a matrix (PyTorch `trace`), in the dtype of `sum`
    /// (i64 for integers).
    ///
    /// # Errors
    /// `InvalidArgument` when `self` is not 2-d.
    pub fn try_trace(&self) -> Result<Tensor<T::Sum, D>> {
        if self.ndim() != 2 {
            return Err(Error::InvalidArgument {
                op: "trace",
                msg: format!("takes a matrix, got shape {}", self.shape()),
            });
        }
        self.diagonal(0)?.try_sum(&[-1], false)
    }

    plain_forms! {
        /// [`Tensor::try_diff`], panicking with its error.
        diff, try_diff(n: usize, axis: i64) -> Self;
        /// [`Tensor::try_kron`], panicking with its error.
        kron, try_kron(other: &Self) -> Self;
        /// [`Tensor::try_cross`], panicking with its error.
        cross, try_cross(other: &Self, axis: i64) -> Self;
        /// [`Tensor::try_trace`], panicking with its error.
        trace, try_trace() -> Tensor<T::Sum, D>;
    }
}
