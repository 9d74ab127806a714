//! NumPy's splitting and stacking by direction: `hsplit`/`vsplit`/`dsplit` (equal sections,
//! as `np.split`), `column_stack`, `row_stack`, `block`, and the `atleast_1d/2d/3d` views.
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let m = Tensor::<i32>::arange(0, 8, 1)?.try_reshape([2, 4])?;
//! let halves = m.hsplit(2);
//! assert_eq!(halves[1].to_vec(), vec![2, 3, 6, 7]);
//! let c = Tensor::column_stack(&[&tensor![1, 2], &tensor![3, 4]]);
//! assert_eq!((c.dims(), c.to_vec()), (&[2, 2][..], vec![1, 3, 2, 4]));
//! assert_eq!(tensor![5].atleast_3d()?.dims(), &[1, 1, 1]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::Element;
use crate::error::{Error, OrPanic, Result};
use crate::tensor::Tensor;

impl<T: Element, D: Backend> Tensor<T, D> {
    /// `sections` equal pieces along `axis` (NumPy `split` with a count).
    fn equal_split(&self, op: &'static str, sections: usize, axis: i64) -> Result<Vec<Self>> {
        let ax = self.shape().axis(op, axis)?;
        let len = self.dims()[ax];
        if sections == 0 || !len.is_multiple_of(sections) {
            return Err(Error::InvalidArgument {
                op,
                msg: format!(
                    "axis {ax} of {} does not split into {sections} equal sections",
                    self.shape()
                ),
            });
        }
        self.try_tensor_split(sections, ax as i64)
    }

    /// `sections` equal pieces along the columns: axis 1, or axis 0 of a 1-d tensor (NumPy and
    /// PyTorch `hsplit`); views.
    ///
    /// # Errors
    /// `InvalidArgument` when the axis does not divide into `sections` equal parts; `Axis` for
    /// a 0-d tensor.
    pub fn try_hsplit(&self, sections: usize) -> Result<Vec<Self>> {
        self.equal_split("hsplit", sections, if self.ndim() == 1 { 0 } else { 1 })
    }

    /// `sections` equal pieces along axis 0 of a tensor of at least 2 dimensions (NumPy
    /// `vsplit`); views.
    ///
    /// # Errors
    /// As [`Tensor::try_hsplit`]; `Axis` below 2 dimensions.
    pub fn try_vsplit(&self, sections: usize) -> Result<Vec<Self>> {
        at_least("vsplit", self, 2)?;
        self.equal_split("vsplit", sections, 0)
    }

    /// `sections` equal pieces along axis 2 of a tensor of at least 3 dimensions (NumPy
    /// `dsplit`); views.
    ///
    /// # Errors
    /// As [`Tensor::try_hsplit`]; `Axis` below 3 dimensions.
    pub fn try_dsplit(&self, sections: usize) -> Result<Vec<Self>> {
        at_least("dsplit", self, 3)?;
        self.equal_split("dsplit", sections, 2)
    }

    /// The 1-d (and 0-d) inputs as columns `(n, 1)`, then concatenated along axis 1 (NumPy
    /// `column_stack`).
    ///
    /// # Errors
    /// As [`Tensor::try_concat`]; `InvalidArgument` for no tensors.
    pub fn try_column_stack(tensors: &[&Self]) -> Result<Self> {
        let cols: Vec<Self> = tensors
            .iter()
            .map(|t| {
                if t.ndim() < 2 {
                    t.try_reshape([t.numel(), 1])
                } else {
                    Ok((*t).clone())
                }
            })
            .collect::<Result<_>>()?;
        if cols.is_empty() {
            return Err(Error::InvalidArgument {
                op: "column_stack",
                msg: "needs at least one tensor".into(),
            });
        }
        Self::try_concat(&cols.iter().collect::<Vec<_>>(), 1)
    }

    /// NumPy's `row_stack`, [`Tensor::try_vstack`] under its older name.
    ///
    /// # Errors
    /// As [`Tensor::try_vstack`].
    pub fn try_row_stack(tensors: &[&Self]) -> Result<Self> {
        Self::try_vstack(tensors)
    }

    /// A view with at least one dimension: 0-d as `(1,)` (NumPy `atleast_1d`).
    ///
    /// # Errors
    /// None in practice (a view of the same elements).
    pub fn atleast_1d(&self) -> Result<Self> {
        if self.ndim() >= 1 {
            Ok(self.clone())
        } else {
            self.unsqueeze(0)
        }
    }

    /// A view with at least two dimensions: `(n,)` as `(1, n)` (NumPy `atleast_2d`).
    ///
    /// # Errors
    /// None in practice.
    pub fn atleast_2d(&self) -> Result<Self> {
        match self.ndim() {
            0 | 1 => self.atleast_1d()?.unsqueeze(0),
            _ => Ok(self.clone()),
        }
    }

    /// A view with at least three dimensions: `(n,)` as `(1, n, 1)`, `(m, n)` as `(m, n, 1)`
    /// (NumPy `atleast_3d`).
    ///
    /// # Errors
    /// None in practice.
    pub fn atleast_3d(&self) -> Result<Self> {
        match self.ndim() {
            0 | 1 => self.atleast_2d()?.unsqueeze(2),
            2 => self.unsqueeze(2),
            _ => Ok(self.clone()),
        }
    }

    /// The matrix of blocks `rows` (NumPy `block` with a nested list two deep): each row's
    /// blocks joined along the last axis, then the rows along the second-to-last. Blocks are
    /// first given the largest dimension count among them (at least 2) by leading axes of
    /// length 1, as NumPy's. Differentiable (joins of reshapes).
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    /// let a = Tensor::<i32>::eye(2)?;
    /// let b = tensor![[5, 6], [7, 8]];
    /// let m = Tensor::try_block(&[&[&a, &b], &[&tensor![1, 2, 3, 4]]])?;
    /// assert_eq!(m.dims(), &[3, 4]);
    /// assert_eq!(m.to_vec(), vec![1, 0, 5, 6, 0, 1, 7, 8, 1, 2, 3, 4]);
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` for no rows or an empty row; `ShapeMismatch` when the blocks of a row
    /// differ but along the last axis, or the rows but along the second-to-last; `Device`
    /// across devices.
    pub fn try_block(rows: &[&[&Self]]) -> Result<Self> {
        const OP: &str = "block";
        if rows.is_empty() || rows.iter().any(|r| r.is_empty()) {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: "needs at least one row, each with at least one block".into(),
            });
        }
        let nd = (rows.iter().flat_map(|r| r.iter()))
            .map(|t| t.ndim())
            .max()
            .unwrap_or(0)
            .max(2);
        let lift = |t: &Self| -> Result<Self> {
            let mut dims = vec![1; nd - t.ndim()];
            dims.extend(t.dims());
            t.try_reshape(dims)
        };
        let joined = (rows.iter())
            .map(|r| {
                let lifted = r.iter().map(|t| lift(t)).collect::<Result<Vec<_>>>()?;
                Self::try_cat(&lifted.iter().collect::<Vec<_>>(), -1)
            })
            .collect::<Result<Vec<_>>>()
            .map_err(|e| e.renamed(OP))?;
        Self::try_cat(&joined.iter().collect::<Vec<_>>(), -2).map_err(|e| e.renamed(OP))
    }

    plain_forms! {
        /// [`Tensor::try_hsplit`], panicking with its error.
        hsplit, try_hsplit(sections: usize) -> Vec<Self>;
        /// [`Tensor::try_vsplit`], panicking with its error.
        vsplit, try_vsplit(sections: usize) -> Vec<Self>;
        /// [`Tensor::try_dsplit`], panicking with its error.
        dsplit, try_dsplit(sections: usize) -> Vec<Self>;
    }

    /// [`Tensor::try_column_stack`], panicking with its error.
    ///
    /// # Panics
    /// When [`Tensor::try_column_stack`] returns an `Err`.
    #[track_caller]
    pub fn column_stack(tensors: &[&Self]) -> Self {
        Self::try_column_stack(tensors).or_panic()
    }
}

/// `Err` naming `op` unless `t` has at least `n` dimensions.
fn at_least<T: Element, D: Backend>(op: &'static str, t: &Tensor<T, D>, n: usize) -> Result<()> {
    if t.ndim() < n {
        return Err(Error::Axis {
            op,
            axis: n as i64 - 1,
            shape: t.shape().clone(),
            ndim: t.ndim(),
            msg: "needs more dimensions",
        });
    }
    Ok(())
}
