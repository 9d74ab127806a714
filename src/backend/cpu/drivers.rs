//! The CPU's generic drivers: element-wise maps and zips into new tensors, in place and into
//! existing outputs (with the aliasing and locking rules), on which the CPU steps are built.

use super::kernels::strided;
use super::small;
use crate::backend::cpu::lock::Inputs;
use crate::device::{AlignedBuf, Cpu};
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::shape::{Layout, Shape, broadcast_shapes};
use crate::tensor::{Tensor, read, write};

/// A type-erased identity of a tensor's buffer, to detect an output that is also an input.
pub(crate) fn storage_id<T: Element>(t: &Tensor<T, Cpu>) -> usize {
    crate::backend::cpu::lock::id(&t.storage)
}

/// `f(a, b)` element-wise with NumPy broadcasting, into a new tensor; `f` is a built-in
/// kernel (small operands take [`small`]'s fast path).
pub(crate) fn zip_new<A: Element, B: Element, O: Element>(
    op: &'static str,
    a: &Tensor<A, Cpu>,
    b: &Tensor<B, Cpu>,
    f: impl Fn(A, B) -> O + Sync,
) -> Result<Tensor<O, Cpu>> {
    if let Some(r) = small::zip_new(op, a, b, small::each2(&f)) {
        return r;
    }
    zip_new_general(op, a, b, f)
}

/// [`zip_new`] without the fast path, for user closures (which may lock buffers themselves).
pub(crate) fn zip_new_general<A: Element, B: Element, O: Element>(
    op: &'static str,
    a: &Tensor<A, Cpu>,
    b: &Tensor<B, Cpu>,
    f: impl Fn(A, B) -> O + Sync,
) -> Result<Tensor<O, Cpu>> {
    let shape = broadcast_shapes(op, a.shape(), b.shape())?;
    shape.checked_numel(op, O::SIZE)?;
    let la = a.layout.broadcast_to(op, &shape)?;
    let lb = b.layout.broadcast_to(op, &shape)?;
    let ga = read(op, &a.storage)?;
    let gb = read(op, &b.storage)?;
    let buf = strided::zip(op, (&ga, &la), (&gb, &lb), f)?;
    Ok(Tensor::from_buf(buf, shape))
}

/// `f(x)` element-wise into a new tensor; `f` is a built-in kernel (small operands take
/// [`small`]'s fast path).
pub(crate) fn map_new<I: Element, O: Element>(
    op: &'static str,
    a: &Tensor<I, Cpu>,
    f: impl Fn(I) -> O + Sync,
) -> Result<Tensor<O, Cpu>> {
    if let Some(r) = small::map_new(op, a, small::each(&f)) {
        return r;
    }
    map_new_general(op, a, f)
}

/// [`map_new`] without the fast path, for user closures (which may lock buffers themselves).
pub(crate) fn map_new_general<I: Element, O: Element>(
    op: &'static str,
    a: &Tensor<I, Cpu>,
    f: impl Fn(I) -> O + Sync,
) -> Result<Tensor<O, Cpu>> {
    a.shape().checked_numel(op, O::SIZE)?;
    let g = read(op, &a.storage)?;
    Ok(Tensor::from_buf(
        strided::map(op, &g, &a.layout, f)?,
        a.shape().clone(),
    ))
}

/// `dst = f(dst, src)` with `src` broadcast into `dst`'s shape (which must not grow). When
/// `src` shares `dst`'s buffer it is copied first, so overlapping views give NumPy's results.
pub(crate) fn zip_assign<T: Element, U: Element>(
    op: &'static str,
    dst: &mut Tensor<T, Cpu>,
    src: &Tensor<U, Cpu>,
    f: impl Fn(T, U) -> T + Sync,
) -> Result<()> {
    assign_with(op, dst, src, |d, ld, s, ls| {
        strided::zip_inplace(d, ld, s, ls, f)
    })
}

/// `dst = src` as [`zip_assign`], contiguous runs by `memcpy`.
pub(crate) fn copy_assign<T: Element>(
    op: &'static str,
    dst: &mut Tensor<T, Cpu>,
    src: &Tensor<T, Cpu>,
) -> Result<()> {
    assign_with(op, dst, src, strided::copy_inplace)
}

/// [`zip_assign`]'s checks, copy of an overlapping `src`, broadcast and locks, then `kernel`
/// on the two buffers and layouts.
fn assign_with<T: Element, U: Element>(
    op: &'static str,
    dst: &mut Tensor<T, Cpu>,
    src: &Tensor<U, Cpu>,
    kernel: impl FnOnce(&mut [T], &Layout, &[U], &Layout),
) -> Result<()> {
    dst.check_writable(op)?;
    let copy;
    let src = if storage_id(dst) == storage_id(src) {
        copy = src.try_deep_copy()?;
        &copy
    } else {
        src
    };
    let ls = src
        .layout
        .broadcast_to(op, dst.shape())
        .map_err(|_| Error::Broadcast {
            op,
            lhs: dst.shape().clone(),
            rhs: src.shape().clone(),
        })?;
    let (gs, gd) = (&src.storage).lock_with(op, Some(&dst.storage))?;
    let mut gd = gd.expect("asked for");
    kernel(&mut gd, &dst.layout, &gs, &ls);
    Ok(())
}

/// `dst = f(dst)` in place.
pub(crate) fn map_assign<T: Element>(
    op: &'static str,
    dst: &mut Tensor<T, Cpu>,
    f: impl Fn(T) -> T + Sync,
) -> Result<()> {
    dst.check_writable(op)?;
    let mut g = write(op, &dst.storage)?;
    strided::map_inplace(&mut g, &dst.layout, f);
    Ok(())
}

/// Copies a freshly computed contiguous result into `out` (the `*_into` forms), after checking
/// that `out` has the result's shape. `out` may share storage with an input: the result was
/// computed, and the inputs' guards released, before anything is written.
pub(crate) fn assign_result<O: Element>(
    op: &'static str,
    out: &mut Tensor<O, Cpu>,
    result: AlignedBuf<O>,
    shape: &Shape,
) -> Result<()> {
    check_out_shape(op, out, shape)?;
    out.check_writable(op)?;
    let l = Layout::contiguous(shape.clone());
    let mut g = write(op, &out.storage)?;
    if out.is_contiguous() {
        let o = out.layout.offset;
        g[o..o + result.len()].copy_from_slice(&result);
    } else {
        strided::copy_inplace(&mut g, &out.layout, &result, &l);
    }
    Ok(())
}

fn check_out_shape<O: Element>(
    op: &'static str,
    out: &Tensor<O, Cpu>,
    shape: &Shape,
) -> Result<()> {
    if out.shape() != shape {
        return Err(Error::ShapeMismatch {
            op,
            lhs: out.shape().clone(),
            rhs: shape.clone(),
            msg: "the output tensor must have the result's shape".into(),
        });
    }
    Ok(())
}

/// Writes `compute(input_guards, out_slice)` straight into `out` when it is contiguous, has
/// `shape`, and shares no buffer with the inputs; otherwise computes into a fresh buffer and
/// copies (see [`assign_result`]). The inputs' read guards and `out`'s write guard are taken
/// together in address order, so two such ops on crossed buffers cannot wait on each other.
pub(crate) fn write_into<'a, O: Element, I: Inputs<'a>>(
    op: &'static str,
    out: &mut Tensor<O, Cpu>,
    shape: &Shape,
    inputs: I,
    compute: impl FnOnce(&I::Guards, &mut [O]),
) -> Result<()> {
    let mut compute = Some(compute);
    write_into_dyn(op, out, shape, inputs, &mut |g, o| {
        if let Some(f) = compute.take() {
            f(g, o)
        }
    })
}

/// The body of [`write_into`], compiled once per output and input types rather than once per
/// op: `compute` runs exactly once, through a pointer.
fn write_into_dyn<'a, O: Element, I: Inputs<'a>>(
    op: &'static str,
    out: &mut Tensor<O, Cpu>,
    shape: &Shape,
    inputs: I,
    compute: &mut dyn FnMut(&I::Guards, &mut [O]),
) -> Result<()> {
    check_out_shape(op, out, shape)?;
    out.check_writable(op)?;
    if out.is_contiguous() && !inputs.ids().contains(&storage_id(out)) {
        let (o, n) = (out.layout.offset, shape.numel());
        let (g, w) = inputs.lock_with(op, Some(&out.storage))?;
        let mut w = w.expect("asked for");
        compute(&g, &mut w[o..o + n]);
        return Ok(());
    }
    let mut buf = AlignedBuf::zeros(op, shape.numel())?;
    {
        let (g, _) = inputs.lock_with::<O>(op, None)?;
        compute(&g, &mut buf);
    }
    assign_result(op, out, buf, shape)
}
