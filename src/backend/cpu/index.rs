//! The CPU kernels of the indexing ops: select/assign through views, index_select, gather and
//! scatter_add.

use super::drivers::copy_assign;
use super::drivers::storage_id;
use super::kernels::strided;
use crate::device::{AlignedBuf, Cpu};
use crate::dtype::{Element, NumElement};
use crate::error::Result;
use crate::ops::device_ops::check_gather_shape;
use crate::ops::index::check_index;
use crate::shape::{Layout, Shape, Strides};
use crate::tensor::{Tensor, read, write};

/// The distance between consecutive rows of `w` elements of `l` (the elements from `axis` on,
/// for each position of the axes before it) when each row is contiguous and they are evenly
/// spaced: the row stride of a contiguous layout or a `narrow` of one along `axis`.
fn row_stride(l: &Layout, axis: usize, w: usize) -> Option<usize> {
    let (dims, strides) = (l.shape.dims(), &l.strides);
    // Within a row: contiguous, axes of length 1 in any stride.
    let mut expect = 1isize;
    for j in (axis..dims.len()).rev() {
        if dims[j] != 1 && strides[j] != expect {
            return None;
        }
        expect *= dims[j] as isize;
    }
    // Across rows: the axes before `axis` merge into one non-negative stride.
    let mut rs = None::<isize>;
    let mut span = 1isize;
    for j in (0..axis).rev() {
        if dims[j] == 1 {
            continue;
        }
        let base = *rs.get_or_insert(strides[j]);
        if strides[j] != base * span {
            return None;
        }
        span *= dims[j] as isize;
    }
    usize::try_from(rs.unwrap_or(w as isize)).ok()
}

impl Cpu {
    /// `concat` in one pass over the output: each output row (the elements before `axis`
    /// fixed) is the inputs' rows one after another, copied with `memcpy`, the output split
    /// across threads into equal parts (mid-row when there are few rows). Copying input by
    /// input into strided views of the output was one pass (and one wake-up of the pool) per
    /// input. An input's rows must each be contiguous, one stride apart (a contiguous tensor,
    /// or a `narrow` of one along `axis`, as `roll` and `chunk` give); `None` otherwise, or
    /// when the output is empty.
    pub(crate) fn cpu_concat<T: Element>(
        inputs: &[&Tensor<T, Cpu>],
        axis: usize,
        dims: &[usize],
    ) -> Result<Option<Tensor<T, Cpu>>> {
        const OP: &str = "concat";
        let shape = Shape::new(dims.to_vec());
        let len = shape.checked_numel(OP, T::SIZE)?;
        if len == 0 {
            return Ok(None);
        }
        // The checked shapes make every count below fit: `outer · row == len`.
        let outer: usize = dims[..axis].iter().product();
        let row = len / outer;
        let widths: Vec<usize> = inputs.iter().map(|t| t.numel() / outer).collect();
        let Some(row_strides) = (inputs.iter().zip(&widths))
            .map(|(t, &w)| row_stride(&t.layout, axis, w))
            .collect::<Option<Vec<usize>>>()
        else {
            return Ok(None);
        };
        let guards = inputs
            .iter()
            .map(|t| read(OP, &t.storage))
            .collect::<Result<Vec<_>>>()?;
        let srcs: Vec<&[T]> = (guards.iter().zip(inputs))
            .map(|(g, t)| &g[t.layout.offset..])
            .collect();
        // The inputs' starts within an output row.
        let starts: Vec<usize> = (widths.iter())
            .scan(0, |at, &w| {
                *at += w;
                Some(*at - w)
            })
            .collect();
        // Every element is written below: the parts cover the output, and each part is
        // filled run by run (a run: one input's piece of one row, or the part's share of it).
        let mut buf = AlignedBuf::<T>::for_overwrite(OP, len)?;
        strided::par_out(&mut buf, |start, part| {
            let mut done = 0;
            while done < part.len() {
                let p = start + done;
                let (r, c) = (p / row, p % row);
                // The last input starting at or before column `c < row`: it has elements (an
                // input of width 0 starts where the next one does, and the last input ends at
                // `row`), so `n > 0`.
                let i = starts.partition_point(|&s| s <= c) - 1;
                let (w, from) = (widths[i], c - starts[i]);
                let n = (w - from).min(part.len() - done);
                let at = r * row_strides[i] + from;
                let src = &srcs[i][at..at + n];
                part[done..done + n].copy_from_slice(src);
                done += n;
            }
        });
        Ok(Some(Tensor::from_buf(buf, shape)))
    }

    pub(crate) fn cpu_select<T: Element>(
        s: &Shape,
        cond: &Tensor<bool, Cpu>,
        a: &Tensor<T, Cpu>,
        b: &Tensor<T, Cpu>,
    ) -> Result<Tensor<T, Cpu>> {
        let op = "where_";
        let (lc, la, lb) = (
            cond.layout.broadcast_to(op, s)?,
            a.layout.broadcast_to(op, s)?,
            b.layout.broadcast_to(op, s)?,
        );
        let (gc, ga, gb) = (
            read(op, &cond.storage)?,
            read(op, &a.storage)?,
            read(op, &b.storage)?,
        );
        let buf = strided::zip3(op, (&gc, &lc), (&ga, &la), (&gb, &lb), |c, x, y| {
            if c { x } else { y }
        })?;
        Ok(Tensor::from_buf(buf, s.clone()))
    }

    pub(crate) fn cpu_assign<T: Element>(
        dst: &mut Tensor<T, Cpu>,
        src: &Tensor<T, Cpu>,
    ) -> Result<()> {
        copy_assign("copy_from", dst, src)
    }

    /// `index_select` along the checked axis `ax`: the 1-d (or 0-d) index broadcast over the
    /// output, whose axis `ax` has the index's length, and gathered from.
    pub(crate) fn cpu_index_select<T: Element>(
        src: &Tensor<T, Cpu>,
        ax: usize,
        indices: &Tensor<i64, Cpu>,
    ) -> Result<Tensor<T, Cpu>> {
        const OP: &str = "index_select";
        // Every index checked, even where the output is empty (another axis of length 0).
        let mut ids = crate::alloc::try_vec(OP, indices.numel(), 0usize)?;
        {
            let g = read(OP, &indices.storage)?;
            let s = indices.stride().first().copied().unwrap_or(0);
            for (k, id) in ids.iter_mut().enumerate() {
                let i = g[(indices.layout.offset as isize + k as isize * s) as usize];
                *id = check_index(OP, i, ax, src.dims()[ax], src.shape())?;
            }
        }
        let mut dims = src.dims().to_vec();
        dims[ax] = indices.numel();
        let shape = Shape::new(dims.clone());
        let len = shape.checked_numel(OP, T::SIZE)?;
        if len > 0 && src.is_contiguous() {
            // Whole runs of `inner` elements (the axes after `ax`) copied with `memcpy`, the
            // output split across threads (mid-run when there are few runs). A non-empty
            // output has a non-empty source (an index into an empty axis is refused above).
            let inner: usize = src.dims()[ax + 1..].iter().product();
            let (n, k) = (src.dims()[ax], ids.len());
            let g = read(OP, &src.storage)?;
            let from = &g[src.layout.offset..src.layout.offset + src.numel()];
            // Every element is written: the parts cover the output, each filled run by run.
            let mut buf = AlignedBuf::<T>::for_overwrite(OP, len)?;
            strided::par_out(&mut buf, |start, part| {
                let mut done = 0;
                while done < part.len() {
                    let p = start + done;
                    let (run, c) = (p / inner, p % inner);
                    let (o, j) = (run / k, run % k);
                    let at = (o * n + ids[j]) * inner + c;
                    let m = (inner - c).min(part.len() - done);
                    part[done..done + m].copy_from_slice(&from[at..at + m]);
                    done += m;
                }
            });
            drop(g);
            return Ok(Tensor::from_buf(buf, shape));
        }
        let mut strides: Strides = smallvec::smallvec![0; dims.len()];
        strides[ax] = indices.stride().first().copied().unwrap_or(0);
        let li = Layout {
            shape: Shape::new(dims),
            strides,
            offset: indices.layout.offset,
        };
        gather("index_select", src, ax, indices, &li)
    }

    pub(crate) fn cpu_gather<T: Element>(
        src: &Tensor<T, Cpu>,
        ax: usize,
        index: &Tensor<i64, Cpu>,
    ) -> Result<Tensor<T, Cpu>> {
        check_gather_shape("gather", src.shape(), index.shape(), ax)?;
        gather("gather", src, ax, index, &index.layout)
    }
}

/// `src`'s layout over `shape` (no larger than it outside axis `ax`) with stride 0 on `ax`:
/// the walk over the coordinates an index does not replace.
fn indexed_base(l: &Layout, shape: &Shape, ax: usize) -> Layout {
    let mut strides = l.strides.clone();
    strides[ax] = 0;
    Layout {
        shape: shape.clone(),
        strides,
        offset: l.offset,
    }
}

/// The `Index` error for the index value `i` along axis `ax` of `shape`.
fn bad_index(op: &'static str, i: i64, ax: usize, shape: &Shape) -> crate::Error {
    match check_index(op, i, ax, shape.dims()[ax], shape) {
        Err(e) => e,
        Ok(_) => unreachable!("the kernel found {i} out of range"),
    }
}

/// The elements of `src` that `index` (values along `ax`, laid out as `li`, whose shape is
/// the output's) names.
fn gather<T: Element>(
    op: &'static str,
    src: &Tensor<T, Cpu>,
    ax: usize,
    index: &Tensor<i64, Cpu>,
    li: &Layout,
) -> Result<Tensor<T, Cpu>> {
    let shape = li.shape.clone();
    let mut out = AlignedBuf::<T>::for_overwrite(op, shape.checked_numel(op, T::SIZE)?)?;
    let base = indexed_base(&src.layout, &shape, ax);
    let at = strided::Indexed {
        base: &base,
        step: src.layout.strides[ax],
        size: src.dims()[ax],
    };
    let (gs, gi) = (read(op, &src.storage)?, read(op, &index.storage)?);
    if let Some((_, i)) = strided::gather_into(&gs, &at, (&gi, li), &mut out) {
        return Err(bad_index(op, i, ax, src.shape()));
    }
    Ok(Tensor::from_buf_layout(out, Layout::contiguous(shape)))
}

impl<T: NumElement> Tensor<T, Cpu> {
    /// `index_add` in one pass (see `Backend::index_add`): the output (a contiguous copy of
    /// `base`, or zeros) is split across threads into equal parts, and each part adds the
    /// pieces of `src`'s slices that land in it, scanning the whole index. The parts are
    /// disjoint, so repeated indices need no atomics, and every element sums in `index`'s
    /// order on any thread count. Scattering with an index expanded to `src`'s shape cost
    /// that index (8 bytes an element), a zero-filled base and its copy.
    pub(crate) fn cpu_index_add(
        base: Option<&Self>,
        dims: &[usize],
        ax: usize,
        index: &Tensor<i64, Cpu>,
        src: &Self,
    ) -> Result<Self> {
        const OP: &str = "index_add";
        let shape = Shape::new(dims.to_vec());
        let len = shape.checked_numel(OP, T::SIZE)?;
        let size = dims[ax];
        // Every index checked and wrapped, even where nothing is written.
        let idx = {
            let g = read(OP, &index.storage)?;
            let s = index.stride().first().copied().unwrap_or(0);
            let mut idx = crate::alloc::with_capacity(OP, index.numel())?;
            for k in 0..index.numel() {
                let i = g[(index.layout.offset as isize + k as isize * s) as usize];
                idx.push(check_index(OP, i, ax, size, &shape)?);
            }
            idx
        };
        let mut out = match base {
            Some(b) => strided::copy(OP, &read(OP, &b.storage)?, &b.layout)?,
            None => AlignedBuf::zeros(OP, len)?,
        };
        let src = src.try_contiguous()?;
        let gs = read(OP, &src.storage)?;
        let s = &gs[src.layout.offset..src.layout.offset + src.numel()];
        let k = idx.len();
        if len > 0 && k > 0 {
            // `src` is `(outer, k, inner)` and the output `(outer, size, inner)`, both of
            // checked sizes and here not empty (an empty output's other axes may multiply
            // past usize), so every offset below stays inside them.
            let inner = dims[ax + 1..].iter().product::<usize>();
            let slab = size * inner;
            strided::par_out(&mut out, |start, part| {
                let end = start + part.len();
                for o in start / slab..=(end - 1) / slab {
                    for (j, &d) in idx.iter().enumerate() {
                        let row = (o * size + d) * inner;
                        let (lo, hi) = (row.max(start), (row + inner).min(end));
                        if lo < hi {
                            let from = (o * k + j) * inner + (lo - row);
                            let dst = &mut part[lo - start..hi - start];
                            for (x, &y) in dst.iter_mut().zip(&s[from..from + (hi - lo)]) {
                                *x = x.add(y);
                            }
                        }
                    }
                }
            });
        }
        Ok(Self::from_buf(out, shape))
    }

    /// The CPU's scatter_add step (shapes checked by the public op).
    pub(crate) fn cpu_scatter_add(
        &self,
        ax: usize,
        index: &Tensor<i64, Cpu>,
        src: &Self,
    ) -> Result<Self> {
        const OP: &str = "scatter_add";
        check_gather_shape(OP, self.shape(), index.shape(), ax)?;
        // The output starts as a contiguous copy of `self`, private to this call.
        let mut out = strided::copy(OP, &read(OP, &self.storage)?, &self.layout)?;
        let contiguous = Layout::contiguous(self.shape().clone());
        scatter_add_into(&mut out, &contiguous, ax, index, src)?;
        Ok(Self::from_buf(out, self.shape().clone()))
    }

    /// scatter_add into `self` itself (see `Backend::scatter_add_`): `false` unless `self` is
    /// contiguous and shares no storage with an operand.
    pub(crate) fn cpu_scatter_add_(
        &mut self,
        ax: usize,
        index: &Tensor<i64, Cpu>,
        src: &Self,
    ) -> Result<bool> {
        const OP: &str = "scatter_add";
        check_gather_shape(OP, self.shape(), index.shape(), ax)?;
        let id = storage_id(self);
        if !self.is_contiguous() || id == storage_id(src) || id == storage_id(index) {
            return Ok(false);
        }
        self.check_writable(OP)?;
        let layout = self.layout.clone();
        scatter_add_into(&mut write(OP, &self.storage)?, &layout, ax, index, src)?;
        Ok(true)
    }
}

/// `dst` (laid out as `layout`) with `src` added at the positions `index` names along `ax`.
fn scatter_add_into<T: NumElement>(
    dst: &mut [T],
    layout: &Layout,
    ax: usize,
    index: &Tensor<i64, Cpu>,
    src: &Tensor<T, Cpu>,
) -> Result<()> {
    const OP: &str = "scatter_add";
    let base = indexed_base(layout, index.shape(), ax);
    let at = strided::Indexed {
        base: &base,
        step: layout.strides[ax],
        size: layout.shape.dims()[ax],
    };
    let (gi, gs) = (read(OP, &index.storage)?, read(OP, &src.storage)?);
    let pair = |a: T, b: T| a.add(b);
    let index = (&gi[..], &index.layout);
    match strided::scatter_into(dst, &at, index, (&gs, &src.layout), pair) {
        Some((_, i)) => Err(bad_index(OP, i, ax, &layout.shape)),
        None => Ok(()),
    }
}
