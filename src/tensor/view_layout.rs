//! The layout arithmetic of the views in `view.rs`, in plain functions of the base layout: it
//! is the same for every element type and device, so it is compiled once, and each generic
//! view method is a thin shell that hands the result to `Tensor::with_layout` (which checks it).

use crate::error::{Error, Result};
use crate::shape::{Layout, Shape};

/// The permutation that swaps dimensions `d0` and `d1` (negative counts from the end).
pub(super) fn transpose_perm(shape: &Shape, d0: i64, d1: i64) -> Result<Vec<usize>> {
    // A 0-d tensor's axes 0 and -1 are its one element (PyTorch): nothing to swap.
    if shape.scalar_axis("transpose", d0)? & shape.scalar_axis("transpose", d1)? {
        return Ok(Vec::new());
    }
    let a = shape.axis("transpose", d0)?;
    let b = shape.axis("transpose", d1)?;
    let mut perm: Vec<usize> = (0..shape.ndim()).collect();
    perm.swap(a, b);
    Ok(perm)
}

/// `dims` checked to be a permutation of `0..ndim` (negative counts from the end).
pub(super) fn permutation(shape: &Shape, dims: &[i64]) -> Result<Vec<usize>> {
    if dims.len() != shape.ndim() {
        return Err(Error::InvalidArgument {
            op: "permute",
            msg: format!(
                "permute of a tensor of shape {shape} needs {} dims, got {dims:?}",
                shape.ndim()
            ),
        });
    }
    let mask = shape.axes_mask("permute", dims)?;
    debug_assert!(mask.iter().all(|&m| m));
    dims.iter().map(|&d| shape.axis("permute", d)).collect()
}

/// `l` with output dimension `i` taken from input dimension `perm[i]`.
pub(super) fn permuted(l: &Layout, perm: &[usize]) -> Layout {
    Layout {
        shape: Shape::new(perm.iter().map(|&p| l.shape.dims()[p]).collect()),
        strides: perm.iter().map(|&p| l.strides[p]).collect(),
        offset: l.offset,
    }
}

/// `l` with a size-1 dimension inserted at `dim` (`-1` appends).
pub(super) fn unsqueezed(l: &Layout, dim: i64) -> Result<Layout> {
    let ndim = l.shape.ndim();
    let n = ndim as i64 + 1;
    let d = if dim < 0 { dim + n } else { dim };
    if d < 0 || d >= n {
        return Err(Error::Axis {
            op: "unsqueeze",
            axis: dim,
            shape: l.shape.clone(),
            ndim,
            msg: "the new axis must lie in -(ndim+1)..=ndim",
        });
    }
    let d = d as usize;
    let mut dims = l.shape.dims().to_vec();
    let mut strides = l.strides.to_vec();
    // The stride of a size-1 dimension is never used to step; any value that keeps the
    // layout contiguous-looking will do, and this one cannot overflow.
    let s = if d < strides.len() {
        strides[d].saturating_mul(dims[d] as isize)
    } else {
        1
    };
    dims.insert(d, 1);
    strides.insert(d, s);
    Ok(Layout {
        shape: Shape::new(dims),
        strides: strides.into(),
        offset: l.offset,
    })
}

/// The dimensions `squeeze_dims(dims)` keeps: all but the listed ones, which must be size 1.
pub(super) fn squeeze_keep(shape: &Shape, dims: &[i64]) -> Result<Vec<usize>> {
    // No dimension listed squeezes none (NumPy `squeeze(axis=())`, PyTorch `squeeze(dim=())`),
    // not all as for reductions.
    let mask = match dims {
        [] => vec![false; shape.ndim()],
        _ => shape.axes_mask("squeeze_dims", dims)?,
    };
    for (i, &m) in mask.iter().enumerate() {
        if m && shape.dims()[i] != 1 {
            return Err(Error::Axis {
                op: "squeeze_dims",
                axis: i as i64,
                shape: shape.clone(),
                ndim: shape.ndim(),
                msg: "only dimensions of size 1 can be squeezed",
            });
        }
    }
    Ok((0..shape.ndim()).filter(|&i| !mask[i]).collect())
}

/// `l` with only the dimensions in `keep`.
pub(super) fn kept(l: &Layout, keep: &[usize]) -> Layout {
    Layout {
        shape: Shape::new(keep.iter().map(|&i| l.shape.dims()[i]).collect()),
        strides: keep.iter().map(|&i| l.strides[i]).collect(),
        offset: l.offset,
    }
}

/// `narrow(dim, start, len)` as `(d, start, len)` for [`stepped`], or the `Index` error.
pub(super) fn narrow_args(
    shape: &Shape,
    dim: i64,
    start: usize,
    len: usize,
) -> Result<(usize, usize, usize)> {
    let d = shape.axis("narrow", dim)?;
    let size = shape.dims()[d];
    match start.checked_add(len) {
        Some(end) if end <= size => Ok((d, start, len)),
        _ => Err(Error::Index {
            op: "narrow",
            index: i64::try_from(start.saturating_add(len)).unwrap_or(i64::MAX),
            dim: d,
            size,
            shape: shape.clone(),
        }),
    }
}

/// `slice_dim(dim, start, stop, step)` as `(d, start, len)` for [`stepped`]; `stop` clamps.
pub(super) fn slice_args(
    shape: &Shape,
    dim: i64,
    start: usize,
    stop: usize,
    step: usize,
) -> Result<(usize, usize, usize)> {
    let d = shape.axis("slice", dim)?;
    let size = shape.dims()[d];
    if step == 0 {
        return Err(Error::InvalidArgument {
            op: "slice",
            msg: format!("the step of dimension {d} of shape {shape} is 0; it must be positive"),
        });
    }
    // Python's clamping: bounds past the end select nothing.
    let start = start.min(size);
    let stop = stop.min(size).max(start);
    Ok((d, start, (stop - start).div_ceil(step)))
}

/// `l` taking `len` elements of dimension `d` from `start` every `step` (which may be
/// negative), with checked stride and offset arithmetic; `start < size` when `len > 0`.
pub(super) fn stepped(
    l: &Layout,
    op: &'static str,
    d: usize,
    start: usize,
    len: usize,
    step: i128,
) -> Result<Layout> {
    let mut l = l.clone();
    let s = l.strides[d] as i128;
    let overflow = || Error::InvalidArgument {
        op,
        msg: format!(
            "a step of {step} along dimension {d} of shape {} (stride {s}) addresses beyond isize",
            l.shape
        ),
    };
    let mut offset = l.offset;
    if len > 0 {
        let off = (offset as i128)
            .checked_add((start as i128).checked_mul(s).ok_or_else(overflow)?)
            .ok_or_else(overflow)?;
        offset = usize::try_from(off).map_err(|_| overflow())?;
    }
    // A dimension of length <= 1 never steps, so its stride only has to fit.
    let new_stride = if len > 1 {
        isize::try_from(s.checked_mul(step).ok_or_else(overflow)?).map_err(|_| overflow())?
    } else {
        l.strides[d]
    };
    l.offset = offset;
    l.strides[d] = new_stride;
    let mut v = l.shape.dims().to_vec();
    v[d] = len;
    l.shape = Shape::new(v);
    Ok(l)
}

/// `l` reversed along the axes in `mask` (negative strides).
pub(super) fn flipped(l: &Layout, mask: &[bool]) -> Result<Layout> {
    if l.shape.dims().contains(&0) {
        // No element to reorder, and the step arithmetic of a huge other axis could overflow.
        return Ok(l.clone());
    }
    let mut l = l.clone();
    for (i, &m) in mask.iter().enumerate() {
        let d = l.shape.dims()[i];
        if m && d > 0 {
            l = stepped(&l, "flip", i, d - 1, d, -1)?;
        }
    }
    Ok(l)
}

/// The diagonal `offset` of `l`'s last two dimensions.
pub(super) fn diagonal(l: &Layout, offset: i64) -> Result<Layout> {
    let (dims_in, strides_in) = (l.shape.dims(), &l.strides);
    let n = dims_in.len();
    if n < 2 {
        return Err(Error::InvalidArgument {
            op: "diagonal",
            msg: format!("needs at least 2 dimensions, got shape {}", l.shape),
        });
    }
    let (r, c) = (dims_in[n - 2] as i128, dims_in[n - 1] as i128);
    let (rs, cs) = (strides_in[n - 2] as i128, strides_in[n - 1] as i128);
    let offset = offset as i128;
    let (r0, c0) = if offset >= 0 {
        (0, offset)
    } else {
        (-offset, 0)
    };
    // Every quantity below is bounded by products of two i64-sized values: no i128 overflow.
    let len = (r - r0).min(c - c0).max(0) as usize;
    let mut dims = dims_in[..n - 2].to_vec();
    dims.push(len);
    let mut strides = strides_in[..n - 2].to_vec();
    let bad = || Error::InvalidArgument {
        op: "diagonal",
        msg: format!(
            "the diagonal of shape {} (strides {:?}) addresses beyond isize",
            l.shape, l.strides
        ),
    };
    strides.push(if len > 1 {
        isize::try_from(rs + cs).map_err(|_| bad())?
    } else {
        0
    });
    let off = if len > 0 {
        usize::try_from(l.offset as i128 + r0 * rs + c0 * cs).map_err(|_| bad())?
    } else {
        l.offset
    };
    Ok(Layout {
        shape: Shape::new(dims),
        strides: strides.into(),
        offset: off,
    })
}

/// `layout` checked as a view of `base` (elements of `size` bytes): its element count fits
/// [`crate::shape::MAX_BYTES`], it has one stride per dimension, and every element it reaches
/// lies inside `base`'s span. An empty view takes `base`'s offset, which is inside the storage.
pub(super) fn checked(
    op: &'static str,
    base: &Layout,
    mut layout: Layout,
    size: usize,
) -> Result<Layout> {
    let n = layout.shape.checked_numel(op, size)?;
    if layout.strides.len() != layout.shape.ndim() {
        return Err(Error::Layout {
            op,
            msg: format!(
                "{} strides for shape {}",
                layout.strides.len(),
                layout.shape
            ),
        });
    }
    if n == 0 {
        layout.offset = base.offset;
        return Ok(layout);
    }
    let (lo, hi) = base.span();
    match layout.try_span() {
        Some((a, b)) if a >= lo && b <= hi => Ok(layout),
        _ => Err(Error::Layout {
            op,
            msg: format!(
                "a view of shape {} with strides {:?} at offset {} would reach outside the tensor it views (shape {}, strides {:?}, offset {})",
                layout.shape, layout.strides, layout.offset, base.shape, base.strides, base.offset
            ),
        }),
    }
}
