//! The small-tensor fast path (issue 26). When every operand is contiguous, no operand is
//! broadcast and the result holds at most [`SMALL`] elements, an element-wise op runs its
//! kernel straight over the slices: no broadcast layouts, no iteration plan, no thread pool,
//! and the locks are taken with `try_` calls instead of the ordered, registered locking of
//! `tensor::lock`. That is sound because a try-lock never waits (so no two ops can wait on
//! each other) and only built-in kernels run here, never a user closure that could lock the
//! same buffer again; user closures (`map`, `zip_map`) take the general path.
//!
//! Every function returns `None` when its case does not apply (strides, broadcasting, a
//! larger tensor, an output that is also an input, a lock held elsewhere); the caller then
//! takes the general path, which also produces every error. `Some(Err)` is returned only
//! for errors the general path would give too (allocation, a write the graph forbids).

use crate::device::{AlignedBuf, Cpu};
use crate::dtype::Element;
use crate::error::Result;
use crate::shape::Shape;
use crate::tensor::Tensor;

/// The largest result (in elements) taken by the fast path: far below rayon's threshold, and
/// small enough for the per-call overhead to matter against the arithmetic.
pub(crate) const SMALL: usize = 1 << 14;

/// `t`'s element range (`n` elements) when its shape is `shape` and its strides are the
/// row-major ones (size-1 dimensions excepted). Element loops, inlined: a `memcmp` call and
/// out-of-line `is_contiguous`/`numel` calls showed in the 16-element add's profile.
#[inline(always)]
fn range<T: Element>(
    t: &Tensor<T, Cpu>,
    shape: &Shape,
    n: usize,
) -> Option<std::ops::Range<usize>> {
    let (d, e, st) = (t.dims(), shape.dims(), &t.layout.strides[..]);
    if d.len() != e.len() || st.len() != d.len() {
        return None;
    }
    let mut expected = 1isize;
    for i in (0..d.len()).rev() {
        if d[i] != e[i] || (st[i] != expected && d[i] != 1) {
            return None;
        }
        expected = expected.wrapping_mul(d[i] as isize);
    }
    Some(t.layout.offset..t.layout.offset + n)
}

/// `kernel(src, out)` into a new contiguous tensor of `a`'s shape.
#[inline]
pub(crate) fn map_new<I: Element, O: Element>(
    op: &'static str,
    a: &Tensor<I, Cpu>,
    kernel: impl FnOnce(&[I], &mut [O]),
) -> Option<Result<Tensor<O, Cpu>>> {
    let mut kernel = Some(kernel);
    map_new_dyn(op, a, &mut |s, o| {
        if let Some(k) = kernel.take() {
            k(s, o)
        }
    })
}

/// A two-input kernel behind a pointer.
type Kernel2<'k, A, B, O> = dyn FnMut(&[A], &[B], &mut [O]) + 'k;

// The bodies below are compiled once per element types, not once per op: each calls its
// op's kernel once, through a pointer (the kernel's loop itself is the op's own code).

fn map_new_dyn<I: Element, O: Element>(
    op: &'static str,
    a: &Tensor<I, Cpu>,
    kernel: &mut dyn FnMut(&[I], &mut [O]),
) -> Option<Result<Tensor<O, Cpu>>> {
    let n = a.numel();
    if n > SMALL {
        return None;
    }
    let ra = range(a, a.shape(), n)?;
    let ga = a.storage.try_read_recursive()?;
    Some(AlignedBuf::zeros(op, ra.len()).map(|mut buf| {
        kernel(&ga[ra], &mut buf);
        drop(ga);
        Tensor::from_buf_layout(buf, a.layout.contiguous_copy())
    }))
}

/// `kernel(a, b, out)` into a new contiguous tensor, when `a` and `b` have one shape.
#[inline]
pub(crate) fn zip_new<A: Element, B: Element, O: Element>(
    op: &'static str,
    a: &Tensor<A, Cpu>,
    b: &Tensor<B, Cpu>,
    kernel: impl FnOnce(&[A], &[B], &mut [O]),
) -> Option<Result<Tensor<O, Cpu>>> {
    let mut kernel = Some(kernel);
    zip_new_dyn(op, a, b, &mut |x, y, o| {
        if let Some(k) = kernel.take() {
            k(x, y, o)
        }
    })
}

fn zip_new_dyn<A: Element, B: Element, O: Element>(
    op: &'static str,
    a: &Tensor<A, Cpu>,
    b: &Tensor<B, Cpu>,
    kernel: &mut Kernel2<'_, A, B, O>,
) -> Option<Result<Tensor<O, Cpu>>> {
    let n = a.numel();
    if n > SMALL {
        return None;
    }
    let (ra, rb) = (range(a, a.shape(), n)?, range(b, a.shape(), n)?);
    let ga = a.storage.try_read_recursive()?;
    let gb = b.storage.try_read_recursive()?;
    Some(AlignedBuf::zeros(op, ra.len()).map(|mut buf| {
        kernel(&ga[ra], &gb[rb], &mut buf);
        drop((ga, gb));
        Tensor::from_buf_layout(buf, a.layout.contiguous_copy())
    }))
}

/// `kernel(src, out)` into an existing `out` of `a`'s shape that shares no buffer with `a`.
#[inline]
pub(crate) fn map_into<I: Element, O: Element>(
    op: &'static str,
    a: &Tensor<I, Cpu>,
    out: &mut Tensor<O, Cpu>,
    kernel: impl FnOnce(&[I], &mut [O]),
) -> Option<Result<()>> {
    let mut kernel = Some(kernel);
    map_into_dyn(op, a, out, &mut |s, o| {
        if let Some(k) = kernel.take() {
            k(s, o)
        }
    })
}

fn map_into_dyn<I: Element, O: Element>(
    op: &'static str,
    a: &Tensor<I, Cpu>,
    out: &mut Tensor<O, Cpu>,
    kernel: &mut dyn FnMut(&[I], &mut [O]),
) -> Option<Result<()>> {
    let n = a.numel();
    if n > SMALL
        || crate::backend::cpu::drivers::storage_id(out)
            == crate::backend::cpu::drivers::storage_id(a)
    {
        return None;
    }
    let (ra, ro) = (range(a, a.shape(), n)?, range(out, a.shape(), n)?);
    let ga = a.storage.try_read_recursive()?;
    let mut go = out.storage.try_write()?;
    if let Err(e) = out.check_writable(op) {
        return Some(Err(e));
    }
    kernel(&ga[ra], &mut go[ro]);
    Some(Ok(()))
}

/// `kernel(a, b, out)` into an existing `out` of the operands' one shape that shares no buffer
/// with them. Generic over the kernel (inlined, unlike the others): a binary op into an
/// existing buffer is an optimizer's inner step, where an indirect call showed in the timings.
#[inline]
pub(crate) fn zip_into<A: Element, B: Element, O: Element>(
    op: &'static str,
    a: &Tensor<A, Cpu>,
    b: &Tensor<B, Cpu>,
    out: &mut Tensor<O, Cpu>,
    kernel: impl FnOnce(&[A], &[B], &mut [O]),
) -> Option<Result<()>> {
    let id = crate::backend::cpu::drivers::storage_id(out);
    let n = a.numel();
    if n > SMALL
        || id == crate::backend::cpu::drivers::storage_id(a)
        || id == crate::backend::cpu::drivers::storage_id(b)
    {
        return None;
    }
    let shape = a.shape();
    let (ra, rb, ro) = (
        range(a, shape, n)?,
        range(b, shape, n)?,
        range(out, shape, n)?,
    );
    let ga = a.storage.try_read_recursive()?;
    let gb = b.storage.try_read_recursive()?;
    let mut go = out.storage.try_write()?;
    if let Err(e) = out.check_writable(op) {
        return Some(Err(e));
    }
    kernel(&ga[ra], &gb[rb], &mut go[ro]);
    Some(Ok(()))
}

/// The element-wise kernel of `f` over one slice.
#[inline(always)]
pub(crate) fn each<I: Copy, O>(f: impl Fn(I) -> O) -> impl FnOnce(&[I], &mut [O]) {
    move |src, out| {
        for (o, &x) in out.iter_mut().zip(src) {
            *o = f(x);
        }
    }
}

/// The element-wise kernel of `f` over two slices.
#[inline(always)]
pub(crate) fn each2<A: Copy, B: Copy, O>(
    f: impl Fn(A, B) -> O,
) -> impl FnOnce(&[A], &[B], &mut [O]) {
    move |a, b, out| {
        for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
            *o = f(x, y);
        }
    }
}
