//! NumPy's in-place masked writes (`copyto`, `putmask`, `place`), for every dtype: each
//! computes the new contents out of place with `where_` and writes them over `self` once, so
//! an error leaves `self` unchanged, and a tensor in a graph that requires grad is refused as
//! every in-place op is.
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let mask = tensor![true, false, true, true];
//! let mut a = tensor![0i32, 0, 0, 0];
//! a.putmask_(&mask, &tensor![1i32, 2])?; // values by position, repeated: a.flat[n] = v[n % 2]
//! assert_eq!(a.to_vec(), vec![1, 0, 1, 2]);
//! let mut b = tensor![0i32, 0, 0, 0];
//! b.place_(&mask, &tensor![1i32, 2])?; // values in turn over the true positions
//! assert_eq!(b.to_vec(), vec![1, 0, 2, 1]);
//! b.copyto_(&tensor![7i32], Some(&mask.logical_not()))?;
//! assert_eq!(b.to_vec(), vec![1, 7, 2, 1]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

impl<T: Element, D: Backend> Tensor<T, D> {
    /// Copies `src`, broadcast to `self`'s shape, into `self` where `mask` (broadcast too) is
    /// true, everywhere when `None` (NumPy `copyto(dst, src, where=mask)`; same dtype).
    ///
    /// # Errors
    /// `Broadcast` when `src` or `mask` does not broadcast to `self`'s shape; `Device` across
    /// devices; `InvalidArgument` when `self` requires grad while recording.
    pub fn copyto_(&mut self, src: &Self, mask: Option<&Tensor<bool, D>>) -> Result<()> {
        let op = "copyto";
        let out = crate::autograd::no_grad(|| -> Result<Self> {
            let src = src.broadcast_to(self.dims()).map_err(|e| e.renamed(op))?;
            match mask {
                None => Ok(src),
                Some(m) => {
                    let m = m.broadcast_to(self.dims()).map_err(|e| e.renamed(op))?;
                    Self::try_where(&m, &src, self)
                }
            }
        });
        self.overwrite(op, out)
    }

    /// Writes `values.flat[n % len]` at every flat position `n` where `mask` is true (NumPy
    /// `putmask`: the values are indexed by position in `self` and repeat when too few).
    ///
    /// # Errors
    /// `ShapeMismatch` when `mask` does not have `self`'s shape; `InvalidArgument` for empty
    /// `values` with a true `mask` somewhere; `Device`; as [`Tensor::copyto_`] for grad.
    pub fn putmask_(&mut self, mask: &Tensor<bool, D>, values: &Self) -> Result<()> {
        let op = "putmask";
        let n = self.numel() as i64;
        let out = self.masked_source(op, mask, values, |len, dev| {
            Tensor::<i64, D>::arange_on(0, n, 1, dev)?.try_remainder_scalar(len)
        });
        self.overwrite(op, out)
    }

    /// Writes `values.flat[k % len]` at the `k`-th true position of `mask` in row-major order
    /// (NumPy `place`: the values go in turn to the true positions and repeat when too few).
    ///
    /// # Errors
    /// As [`Tensor::putmask_`].
    pub fn place_(&mut self, mask: &Tensor<bool, D>, values: &Self) -> Result<()> {
        let op = "place";
        let n = self.numel();
        let out = self.masked_source(op, mask, values, |len, _| {
            // The rank of each true position among them: a running count, minus one.
            mask.try_reshape([n])?
                .try_cast::<i64>()?
                .try_cumsum(0)?
                .try_sub_scalar(1)?
                .try_clamp(Some(0), None)?
                .try_remainder_scalar(len)
        });
        self.overwrite(op, out)
    }

    /// `where(mask, values.flat[index(len)], self)`, after the checks both writes share.
    fn masked_source(
        &self,
        op: &'static str,
        mask: &Tensor<bool, D>,
        values: &Self,
        index: impl FnOnce(i64, &D) -> Result<Tensor<i64, D>>,
    ) -> Result<Self> {
        if mask.dims() != self.dims() {
            return Err(Error::ShapeMismatch {
                op,
                lhs: self.shape().clone(),
                rhs: mask.shape().clone(),
                msg: "the mask must have the tensor's shape".into(),
            });
        }
        crate::ops::device_ops::same_device(op, self, values)?;
        crate::ops::device_ops::same_device(op, self, mask)?;
        crate::autograd::no_grad(|| {
            let len = values.numel();
            if len == 0 {
                if mask.try_any(&[], false)?.try_item()? {
                    return Err(Error::InvalidArgument {
                        op,
                        msg: "cannot write an empty set of values where the mask is true".into(),
                    });
                }
                return Ok(self.clone());
            }
            let at = index(len as i64, self.device_handle())?;
            let source = values.try_reshape([len])?.try_index_select(0, &at)?;
            Self::try_where(mask, &source.try_reshape(self.dims())?, self)
        })
    }
}
