//! Ops defined once for every device: creation on a device (`zeros_on`, `full_on`,
//! `scalar_on`), `where_`, `masked_fill`, `copy_from`, `concat`/`cat`/`stack`,
//! `index_select`/`take` and `gather`. Their device-specific steps come from [`DeviceOps`],
//! implemented for `Cpu` (the strided drivers, in `index.rs` and `compare.rs`) and `Cuda`
//! (`kernels/index.cu`), so one public definition serves both and path calls such as
//! `Tensor::where_(&c, &a, &b)` stay unambiguous.

use crate::device::Device;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::shape::{Shape, broadcast_shapes};
use crate::tensor::Tensor;

/// The device-specific steps behind the device-generic ops of this module. Implemented for
/// `Cpu` and `Cuda`; its methods are called through the typed API, not directly.
pub trait DeviceOps: Device {
    /// `cond ? a : b`, the three already checked to broadcast to `shape`.
    #[doc(hidden)]
    fn select<T: Element>(
        shape: &Shape,
        cond: &Tensor<bool, Self>,
        a: &Tensor<T, Self>,
        b: &Tensor<T, Self>,
    ) -> Result<Tensor<T, Self>>;
    /// Writes `src` (broadcast to `dst`'s shape) into the view `dst`.
    #[doc(hidden)]
    fn assign<T: Element>(dst: &mut Tensor<T, Self>, src: &Tensor<T, Self>) -> Result<()>;
    /// `index_select` along the checked axis `ax` with 1-d `indices`.
    #[doc(hidden)]
    fn index_select<T: Element>(
        src: &Tensor<T, Self>,
        ax: usize,
        indices: &Tensor<i64, Self>,
    ) -> Result<Tensor<T, Self>>;
    /// `gather` along the checked axis `ax`, the index's shape already checked.
    #[doc(hidden)]
    fn gather<T: Element>(
        src: &Tensor<T, Self>,
        ax: usize,
        index: &Tensor<i64, Self>,
    ) -> Result<Tensor<T, Self>>;
}

/// `Err` naming both devices unless `b` is on `a`'s device (CUDA ordinals can differ).
pub(crate) fn same_device<D: Device, A: Element, B: Element>(
    op: &'static str,
    a: &Tensor<A, D>,
    b: &Tensor<B, D>,
) -> Result<()> {
    if a.device() == b.device() {
        return Ok(());
    }
    Err(Error::Device {
        op,
        msg: format!(
            "the operands are on {} and {}; move one with to_cuda() first",
            a.device(),
            b.device()
        ),
    })
}

/// The index must have `src`'s rank and be no larger outside `ax` (PyTorch `gather`).
pub(crate) fn check_gather_shape(
    op: &'static str,
    src: &Shape,
    index: &Shape,
    ax: usize,
) -> Result<()> {
    let (s, i) = (src.dims(), index.dims());
    if i.len() != s.len() || (0..s.len()).any(|d| d != ax && i[d] > s[d]) {
        return Err(Error::ShapeMismatch {
            op,
            lhs: src.clone(),
            rhs: index.clone(),
            msg: format!("the index must have the same rank and be no larger outside axis {ax}"),
        });
    }
    Ok(())
}

impl<T: Element, D: DeviceOps> Tensor<T, D> {
    /// A 0-d tensor holding `value` on `device`.
    ///
    /// # Errors
    /// `Device` when the allocation or the copy to the device fails.
    pub fn scalar_on(value: T, device: &D) -> Result<Self> {
        Ok(Self::from_storage(
            device.upload(&[value])?,
            Shape::new(vec![]),
            device,
        ))
    }

    /// A zero-filled tensor on `device`.
    ///
    /// # Errors
    /// `ShapeOverflow` when the element count overflows; `Device` when allocation fails.
    pub fn zeros_on(shape: impl Into<Shape>, device: &D) -> Result<Self> {
        let shape = shape.into();
        let n = shape.try_numel("zeros_on")?;
        Ok(Self::from_storage(device.zeros(n)?, shape, device))
    }

    /// [`Tensor::empty`] on `device`: zero-filled, as the CPU's (no uninitialised memory is
    /// ever exposed).
    ///
    /// # Errors
    /// As [`Tensor::zeros_on`].
    pub fn empty_on(shape: impl Into<Shape>, device: &D) -> Result<Self> {
        Self::zeros_on(shape, device)
    }

    /// A tensor of `shape` filled with `value` on `device` (PyTorch `full(..., device=)`).
    ///
    /// # Errors
    /// As [`Tensor::zeros_on`].
    pub fn full_on(shape: impl Into<Shape>, value: T, device: &D) -> Result<Self> {
        let mut out = Self::zeros_on(shape, device)?;
        out.copy_from(&Self::scalar_on(value, device)?)?;
        Ok(out)
    }

    /// Ones on `device`.
    ///
    /// # Errors
    /// As [`Tensor::zeros_on`].
    pub fn ones_on(shape: impl Into<Shape>, device: &D) -> Result<Self> {
        Self::full_on(shape, T::ONE, device)
    }

    /// A `(rows, cols)` matrix with ones on the main diagonal on `device` (built on the host,
    /// then copied).
    ///
    /// # Errors
    /// As [`Tensor::zeros_on`].
    pub fn identity_on(rows: usize, cols: usize, device: &D) -> Result<Self> {
        let host = Tensor::<T, crate::device::Cpu>::identity(rows, cols)?;
        Self::from_vec_on(host.to_vec(), [rows, cols], device)
    }

    /// The `n × n` identity matrix on `device`.
    pub fn eye_on(n: usize, device: &D) -> Result<Self> {
        Self::identity_on(n, n, device)
    }

    /// `cond ? a : b` element-wise, the three broadcast together (NumPy `where`).
    ///
    /// # Errors
    /// `Broadcast` when the shapes do not broadcast; `Device` when the operands are on
    /// different devices.
    pub fn where_(cond: &Tensor<bool, D>, a: &Self, b: &Self) -> Result<Self> {
        let op = "where_";
        same_device(op, a, b)?;
        same_device(op, a, cond)?;
        let s = broadcast_shapes(
            op,
            &broadcast_shapes(op, cond.shape(), a.shape())?,
            b.shape(),
        )?;
        D::select(&s, cond, a, b)
    }

    /// Replaces elements where `mask` is true with `value` (PyTorch `masked_fill`); `mask`
    /// broadcasts to `self`'s shape.
    ///
    /// # Errors
    /// `Broadcast` when `mask` does not broadcast to `self`'s shape.
    pub fn masked_fill(&self, mask: &Tensor<bool, D>, value: T) -> Result<Self> {
        let m = mask.broadcast_to(self.shape().clone())?;
        Self::where_(&m, &Self::scalar_on(value, &self.device)?, self)
    }

    /// Copies `src` (broadcast to `self`'s shape) into `self`, which may be a view; the
    /// storage it shares with other handles sees the new values.
    ///
    /// # Errors
    /// `Broadcast` when `src` does not broadcast to `self`'s shape; `Device` across devices;
    /// `Layout` when `self` is a broadcast view (several elements share one location).
    pub fn copy_from(&mut self, src: &Self) -> Result<()> {
        same_device("copy_from", self, src)?;
        self.check_writable("copy_from")?;
        D::assign(self, src)
    }

    /// Joins tensors along an existing axis (NumPy `concatenate`, PyTorch `cat`).
    ///
    /// # Errors
    /// `InvalidArgument` for an empty list; `ShapeMismatch` when ranks or the other dimensions
    /// differ, naming both shapes; `Axis` for a bad axis; `Device` across devices.
    pub fn concat(tensors: &[&Self], axis: i64) -> Result<Self> {
        let first = tensors.first().ok_or_else(|| Error::InvalidArgument {
            op: "concat",
            msg: "needs at least one tensor".into(),
        })?;
        let ax = first.shape().axis("concat", axis)?;
        let mut dims = first.dims().to_vec();
        dims[ax] = 0;
        for t in tensors {
            same_device("concat", *first, *t)?;
            let same = t.ndim() == first.ndim()
                && (0..t.ndim()).all(|i| i == ax || t.dims()[i] == first.dims()[i]);
            if !same {
                return Err(Error::ShapeMismatch {
                    op: "concat",
                    lhs: first.shape().clone(),
                    rhs: t.shape().clone(),
                    msg: format!("all dimensions but axis {ax} must match"),
                });
            }
            dims[ax] = dims[ax]
                .checked_add(t.dims()[ax])
                .ok_or_else(|| Error::ShapeOverflow {
                    op: "concat",
                    dims: t.dims().to_vec(),
                })?;
        }
        let out = Self::zeros_on(dims, &first.device)?;
        let mut off = 0;
        for t in tensors {
            let n = t.dims()[ax];
            out.narrow(ax as i64, off, n)?.copy_from(t)?;
            off += n;
        }
        Ok(out)
    }

    /// Alias of [`Tensor::concat`] (PyTorch's name).
    pub fn cat(tensors: &[&Self], axis: i64) -> Result<Self> {
        Self::concat(tensors, axis)
    }

    /// Joins equally shaped tensors along a new axis (NumPy `stack`).
    pub fn stack(tensors: &[&Self], axis: i64) -> Result<Self> {
        let expanded: Vec<Self> = tensors
            .iter()
            .map(|t| t.unsqueeze(axis))
            .collect::<Result<_>>()?;
        let refs: Vec<&Self> = expanded.iter().collect();
        Self::concat(&refs, axis)
    }

    /// The slices at `indices` (1-d, negative counts from the end) along `axis` (PyTorch
    /// `index_select`, NumPy `take` with an axis).
    ///
    /// # Errors
    /// `Index` for an out-of-range index; `InvalidArgument` when `indices` is not 1-d.
    pub fn index_select(&self, axis: i64, indices: &Tensor<i64, D>) -> Result<Self> {
        let ax = self.shape().axis("index_select", axis)?;
        if indices.ndim() != 1 {
            return Err(Error::InvalidArgument {
                op: "index_select",
                msg: format!("indices must be 1-d, got shape {}", indices.shape()),
            });
        }
        same_device("index_select", self, indices)?;
        D::index_select(self, ax, indices)
    }

    /// Alias of [`Tensor::index_select`] (NumPy's `take` with an axis).
    pub fn take(&self, axis: i64, indices: &Tensor<i64, D>) -> Result<Self> {
        self.index_select(axis, indices)
    }

    /// `out[..., j, ...] = self[..., index[..., j, ...], ...]` along `axis` (PyTorch `gather`);
    /// the output has `index`'s shape.
    ///
    /// # Errors
    /// `ShapeMismatch` when the index's rank differs or it is larger outside `axis`; `Index`
    /// for an out-of-range index value.
    pub fn gather(&self, axis: i64, index: &Tensor<i64, D>) -> Result<Self> {
        let ax = self.shape().axis("gather", axis)?;
        check_gather_shape("gather", self.shape(), index.shape(), ax)?;
        same_device("gather", self, index)?;
        D::gather(self, ax, index)
    }
}
