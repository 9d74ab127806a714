//! Drivers that call an op's closure per element: into a new contiguous buffer, into an
//! existing one, and in place.

use super::stream::{STREAM_BLOCK, stream_copy, stream_fence, streams};
use super::{Plan, SendPtr, at, par_out, par_ranges};
use crate::device::AlignedBuf;
use crate::dtype::Element;
use crate::error::Result;
use crate::shape::Layout;

/// `out[i] = f(src[i])` into a new contiguous buffer, in the logical order of `l`.
///
/// # Errors
/// `OutOfMemory` when the output cannot be allocated.
pub fn map<I: Element, O: Element>(
    op: &'static str,
    src: &[I],
    l: &Layout,
    f: impl Fn(I) -> O + Sync,
) -> Result<AlignedBuf<O>> {
    let mut out = AlignedBuf::for_overwrite(op, l.shape.numel())?;
    map_into(src, l, &mut out, &f);
    Ok(out)
}

/// `out[i] = f(src[i])` into a contiguous `out` of `l.shape.numel()` elements.
pub fn map_into<I: Element, O: Element>(
    src: &[I],
    l: &Layout,
    out: &mut [O],
    f: &(impl Fn(I) -> O + Sync),
) {
    let plan = Plan::new([l]);
    par_out(out, |start, chunk| {
        plan.for_rows(
            start,
            start + chunk.len(),
            |pos, [o], [s], len, rows, [so]| {
                for r in 0..rows {
                    let o = o + r as isize * so;
                    let d0 = pos - start + r * len;
                    let dst = &mut chunk[d0..d0 + len];
                    if s == 1 {
                        let o = o as usize;
                        map_slice(dst, &src[o..o + len], f);
                    } else if s == 0 {
                        dst.fill(f(src[o as usize]));
                    } else if s == -1 {
                        // A flipped run: the slice read backwards, which vectorises (the
                        // index arithmetic per element made `flip` 3.4× PyTorch's time).
                        let lo = (o + 1) as usize - len;
                        let run = src[lo..lo + len].iter().rev();
                        dst.iter_mut().zip(run).for_each(|(d, &x)| *d = f(x));
                    } else {
                        for (j, d) in dst.iter_mut().enumerate() {
                            *d = f(src[at(o, j, s)]);
                        }
                    }
                }
            },
        )
    });
}

/// `out[i] = f(a[i], b[i])` into a new contiguous buffer; `la` and `lb` are already broadcast
/// to the output shape.
///
/// # Errors
/// `OutOfMemory` when the output cannot be allocated.
pub fn zip<A: Element, B: Element, O: Element>(
    op: &'static str,
    (a, la): (&[A], &Layout),
    (b, lb): (&[B], &Layout),
    f: impl Fn(A, B) -> O + Sync,
) -> Result<AlignedBuf<O>> {
    let mut out = AlignedBuf::for_overwrite(op, la.shape.numel())?;
    zip_into(a, la, b, lb, &mut out, &f, false);
    Ok(out)
}

/// `out[i] = f(a[i], b[i])` into a contiguous `out`. `may_stream`: `out` is an existing
/// buffer, which a large output writes with non-temporal stores ([`STREAM_BYTES`]); a fresh
/// one is faulted in by these writes, and the kernel's zeroing left its pages in the cache.
pub fn zip_into<A: Element, B: Element, O: Element>(
    a: &[A],
    la: &Layout,
    b: &[B],
    lb: &Layout,
    out: &mut [O],
    f: &(impl Fn(A, B) -> O + Sync),
    may_stream: bool,
) {
    let plan = Plan::new([la, lb]);
    let stream = may_stream && streams(out);
    par_out(out, |start, chunk| {
        plan.for_rows(
            start,
            start + chunk.len(),
            |pos, offs, [sa, sb], len, rows, outer| {
                for r in 0..rows {
                    let (oa, ob) = (
                        offs[0] + r as isize * outer[0],
                        offs[1] + r as isize * outer[1],
                    );
                    let d0 = pos - start + r * len;
                    let dst = &mut chunk[d0..d0 + len];
                    match (sa, sb) {
                        (1, 1) if stream => {
                            let (oa, ob) = (oa as usize, ob as usize);
                            let x = a[oa..oa + len].chunks(STREAM_BLOCK);
                            let y = b[ob..ob + len].chunks(STREAM_BLOCK);
                            let mut tmp = [O::ZERO; STREAM_BLOCK];
                            for ((d, x), y) in dst.chunks_mut(STREAM_BLOCK).zip(x).zip(y) {
                                let t = &mut tmp[..d.len()];
                                zip_slices(t, x, y, f);
                                stream_copy(d, t);
                            }
                        }
                        (1, 1) => {
                            let (oa, ob) = (oa as usize, ob as usize);
                            zip_slices(dst, &a[oa..oa + len], &b[ob..ob + len], f);
                        }
                        (1, 0) => {
                            let (oa, y) = (oa as usize, b[ob as usize]);
                            map_slice(dst, &a[oa..oa + len], |x| f(x, y));
                        }
                        (0, 1) => {
                            let (x, ob) = (a[oa as usize], ob as usize);
                            map_slice(dst, &b[ob..ob + len], |y| f(x, y));
                        }
                        _ => {
                            for (j, d) in dst.iter_mut().enumerate() {
                                *d = f(a[at(oa, j, sa)], b[at(ob, j, sb)]);
                            }
                        }
                    }
                }
            },
        );
        if stream {
            stream_fence();
        }
    });
}

/// `out[i] = f(a[i], b[i], c[i])` into a new contiguous buffer (for `where_`, `clip`).
///
/// # Errors
/// `OutOfMemory` when the output cannot be allocated.
pub fn zip3<A: Element, B: Element, C: Element, O: Element>(
    op: &'static str,
    (a, la): (&[A], &Layout),
    (b, lb): (&[B], &Layout),
    (c, lc): (&[C], &Layout),
    f: impl Fn(A, B, C) -> O + Sync,
) -> Result<AlignedBuf<O>> {
    let mut out = AlignedBuf::for_overwrite(op, la.shape.numel())?;
    let plan = Plan::new([la, lb, lc]);
    par_out(&mut out, |start, chunk| {
        plan.for_runs(start, start + chunk.len(), |pos, o, s, len| {
            let d = &mut chunk[pos - start..pos - start + len];
            if s == [1, 1, 1] {
                // Contiguous runs as slices: no index arithmetic or bounds check per element,
                // so the loop vectorises (`where` over contiguous operands was 1.1 ms for
                // 2^19 f32 elements).
                let [x, y, z] = o.map(|o| o as usize);
                let (x, y, z) = (&a[x..x + len], &b[y..y + len], &c[z..z + len]);
                for (((d, &x), &y), &z) in d.iter_mut().zip(x).zip(y).zip(z) {
                    *d = f(x, y, z);
                }
                return;
            }
            // Other strides (a broadcast scalar's 0, a transposed operand): blocks of the
            // operands gathered into stack buffers, then the same vectorised loop (`tril`'s
            // `where` against a scalar 0 went element by element through the index
            // arithmetic at 2.4 ns each).
            const BLOCK: usize = 64;
            let (mut xs, mut ys, mut zs) = ([a[0]; BLOCK], [b[0]; BLOCK], [c[0]; BLOCK]);
            for (j0, d) in (0..len).step_by(BLOCK).zip(d.chunks_mut(BLOCK)) {
                let n = d.len();
                gather_block(&mut xs[..n], a, o[0], s[0], j0);
                gather_block(&mut ys[..n], b, o[1], s[1], j0);
                gather_block(&mut zs[..n], c, o[2], s[2], j0);
                for (((d, &x), &y), &z) in d.iter_mut().zip(&xs).zip(&ys).zip(&zs) {
                    *d = f(x, y, z);
                }
            }
        })
    });
    Ok(out)
}

/// `buf[t] = src[o + (j0 + t) · s]`: a copy for stride 1, a fill for 0.
#[inline(always)]
fn gather_block<X: Copy>(buf: &mut [X], src: &[X], o: isize, s: isize, j0: usize) {
    match s {
        1 => buf.copy_from_slice(&src[at(o, j0, 1)..][..buf.len()]),
        0 => buf.fill(src[o as usize]),
        _ => {
            for (t, v) in buf.iter_mut().enumerate() {
                *v = src[at(o, j0 + t, s)];
            }
        }
    }
}

/// Below this many elements a run is computed in blocks of 8: LLVM's vectorised loop body
/// (4 registers of 4 lanes on the baseline target) needs 16 or more, so the short runs of a
/// broadcast bias or a per-row shift would otherwise be scalar.
const SHORT_RUN: usize = 32;

/// `d[j] = f(x[j], y[j])`.
#[inline(always)]
fn zip_slices<A: Copy, B: Copy, O>(d: &mut [O], x: &[A], y: &[B], f: impl Fn(A, B) -> O) {
    if d.len() >= SHORT_RUN {
        for ((d, &x), &y) in d.iter_mut().zip(x).zip(y) {
            *d = f(x, y);
        }
        return;
    }
    let mut dc = d.chunks_exact_mut(8);
    let (mut xc, mut yc) = (x.chunks_exact(8), y.chunks_exact(8));
    for ((d, x), y) in (&mut dc).zip(&mut xc).zip(&mut yc) {
        let (d, x, y): (&mut [O; 8], &[A; 8], &[B; 8]) = (
            d.try_into().expect("8"),
            x.try_into().expect("8"),
            y.try_into().expect("8"),
        );
        // A fixed trip count of 8, fully unrolled and vectorised.
        for ((d, &x), &y) in d.iter_mut().zip(x).zip(y) {
            *d = f(x, y);
        }
    }
    let (x, y) = (xc.remainder(), yc.remainder());
    for ((d, &x), &y) in dc.into_remainder().iter_mut().zip(x).zip(y) {
        *d = f(x, y);
    }
}

/// `d[j] = f(x[j])`, short runs in blocks of 8 as [`zip_slices`].
#[inline(always)]
fn map_slice<A: Copy, O>(d: &mut [O], x: &[A], f: impl Fn(A) -> O) {
    if d.len() >= SHORT_RUN {
        for (d, &x) in d.iter_mut().zip(x) {
            *d = f(x);
        }
        return;
    }
    let mut dc = d.chunks_exact_mut(8);
    let mut xc = x.chunks_exact(8);
    for (d, x) in (&mut dc).zip(&mut xc) {
        let (d, x): (&mut [O; 8], &[A; 8]) = (d.try_into().expect("8"), x.try_into().expect("8"));
        for (d, &x) in d.iter_mut().zip(x) {
            *d = f(x);
        }
    }
    for (d, &x) in dc.into_remainder().iter_mut().zip(xc.remainder()) {
        *d = f(x);
    }
}

/// The in-place kernels' precondition, checked before any raw write: every index of `l` lies
/// inside `dst` and no two logical indices share one element. Views are checked when they are
/// made and writers check aliasing first, so this never fails for a safe caller; it guards the
/// `unsafe` blocks below against a future bug turning into an out-of-bounds write.
fn check_writable<T: Element>(dst: &[T], l: &Layout) {
    assert!(
        l.check_within("write", dst.len(), T::SIZE).is_ok(),
        "layout exceeds its storage"
    );
    assert!(!l.has_aliasing(), "in-place write through a broadcast view");
}

/// `dst[i] = f(dst[i], src[i])` in place; `ls` is already broadcast to `ld`'s shape. `ld`
/// must not alias (no stride 0 on a dimension longer than 1); callers check this.
pub fn zip_inplace<T: Element, U: Element>(
    dst: &mut [T],
    ld: &Layout,
    src: &[U],
    ls: &Layout,
    f: impl Fn(T, U) -> T + Sync,
) {
    let run = |d: &mut [T], s: &[U]| {
        for (x, &y) in d.iter_mut().zip(s) {
            *x = f(*x, y);
        }
    };
    inplace_runs(dst, ld, src, ls, run, &f);
}

/// `dst[i] = src[i]` as [`zip_inplace`], contiguous runs by `copy_from_slice` (the library's
/// `memcpy`, at the CPU's widest moves; the element loop moved 16 bytes at a time).
pub fn copy_inplace<T: Element>(dst: &mut [T], ld: &Layout, src: &[T], ls: &Layout) {
    inplace_runs(dst, ld, src, ls, <[T]>::copy_from_slice, &|_, v| v);
}

/// [`zip_inplace`]'s walk: `run` on each pair of contiguous runs, `f` element by element on
/// strided ones.
fn inplace_runs<T: Element, U: Element>(
    dst: &mut [T],
    ld: &Layout,
    src: &[U],
    ls: &Layout,
    run: impl Fn(&mut [T], &[U]) + Sync,
    f: &(impl Fn(T, U) -> T + Sync),
) {
    check_writable(dst, ld);
    let plan = Plan::new_any_order([ld, ls]);
    let p = SendPtr(dst.as_mut_ptr());
    par_ranges(ld.shape.numel(), |start, end| {
        plan.for_runs(start, end, |_, [od, os], [sd, ss], len| {
            // SAFETY: the span check above keeps every index in bounds; the layout does not
            // alias, so threads (which get disjoint logical ranges) write disjoint elements.
            unsafe {
                if sd == 1 && ss == 1 {
                    let d = std::slice::from_raw_parts_mut(p.get().add(od as usize), len);
                    run(d, &src[os as usize..os as usize + len]);
                } else {
                    for j in 0..len {
                        let q = p.get().add(at(od, j, sd));
                        *q = f(*q, src[at(os, j, ss)]);
                    }
                }
            }
        })
    });
}

/// `dst[i] = f(dst[i])` in place.
pub fn map_inplace<T: Element>(dst: &mut [T], ld: &Layout, f: impl Fn(T) -> T + Sync) {
    check_writable(dst, ld);
    let plan = Plan::new_any_order([ld]);
    let p = SendPtr(dst.as_mut_ptr());
    par_ranges(ld.shape.numel(), |start, end| {
        plan.for_runs(start, end, |_, [od], [sd], len| {
            // SAFETY: as in `inplace_runs`.
            unsafe {
                if sd == 1 {
                    let d = std::slice::from_raw_parts_mut(p.get().add(od as usize), len);
                    for x in d.iter_mut() {
                        *x = f(*x);
                    }
                } else {
                    for j in 0..len {
                        let q = p.get().add(at(od, j, sd));
                        *q = f(*q);
                    }
                }
            }
        })
    });
}
