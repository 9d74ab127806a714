//! Generic element-wise drivers over strided blocks (candle's `layout.rs` idea): dimensions
//! that are contiguous for every operand are merged, so a contiguous tensor is one flat loop
//! the compiler vectorises, a strided one is a sequence of inner runs, and broadcasting is
//! stride 0. Work is split across rayon threads above [`PAR_THRESHOLD`] elements.

use super::convert::Compute;
use crate::device::AlignedBuf;
use crate::dtype::Element;
use crate::error::Result;
use crate::shape::{Dims, Layout, Strides};
use rayon::prelude::*;

/// Below this many elements an element-wise op runs on one thread: waking the pool costs more
/// than it saves. Set from the cheapest op, an f32 `add_into` (`cargo bench --bench ops --
/// add_into_small`, 2 cores): parallel 16.5 / 14.6 / 16.9 / 29.4 µs at 32 / 64 / 128 / 256 Ki
/// elements against a plain loop's 3.5 / 7.0 / 15.5 / 77.1 µs, so the pool pays from 128 Ki.
pub const PAR_THRESHOLD: usize = 1 << 17;

/// A run: its first logical position, its storage offset in each operand, its length.
type Run<const K: usize> = (usize, [isize; K], usize);

/// Rows handed over by [`Plan::for_rows`]: first position, offsets, row length, row count.
type Rows<const K: usize> = (usize, [isize; K], usize, usize);

/// Runs handed over per call by [`Plan::walk`].
const RUN_BATCH: usize = 32;

/// An iteration plan for `K` operands that share one logical shape.
pub struct Plan<const K: usize> {
    dims: Dims,
    strides: [Strides; K],
    offsets: [isize; K],
}

impl<const K: usize> Plan<K> {
    /// Merges dimensions that are contiguous with respect to every operand and drops size-1
    /// dimensions; the logical row-major order is preserved.
    pub fn new(layouts: [&Layout; K]) -> Self {
        let shape = layouts[0].shape.dims();
        let mut dims = Dims::new();
        let mut strides: [Strides; K] = std::array::from_fn(|_| Strides::new());
        if shape.contains(&0) {
            // Nothing to visit; the other dimensions may be huge (an empty broadcast view), so
            // their strides are never multiplied.
            return Plan {
                dims: smallvec::smallvec![0],
                strides: std::array::from_fn(|_| smallvec::smallvec![0]),
                offsets: [0; K],
            };
        }
        for (i, &d) in shape.iter().enumerate() {
            if d == 1 {
                continue;
            }
            // Checked: a sub-layout (a reduction's block of an empty tensor, say) can have
            // huge extents, and an overflowing product matches no stride anyway.
            let mergeable = !dims.is_empty()
                && dims.last().unwrap().checked_mul(d).is_some()
                && (0..K).all(|k| {
                    (layouts[k].strides[i]).checked_mul(d as isize)
                        == Some(*strides[k].last().unwrap())
                });
            if mergeable {
                *dims.last_mut().unwrap() *= d;
                for k in 0..K {
                    *strides[k].last_mut().unwrap() = layouts[k].strides[i];
                }
            } else {
                dims.push(d);
                for k in 0..K {
                    strides[k].push(layouts[k].strides[i]);
                }
            }
        }
        Plan {
            dims,
            strides,
            offsets: std::array::from_fn(|k| layouts[k].offset as isize),
        }
    }

    /// The merged dimensions (size-1 ones dropped; `[0]` when there is no element).
    pub fn dims(&self) -> &[usize] {
        &self.dims
    }

    /// The merged strides of operand 0, one per merged dimension.
    pub fn strides(&self) -> &[isize] {
        &self.strides[0]
    }

    /// Calls `f(pos, offsets, inner_strides, len)` for each run of the logical positions
    /// `start..end`, where `offsets` are the storage indices of position `pos` in each operand.
    #[inline]
    pub fn for_runs(
        &self,
        start: usize,
        end: usize,
        mut f: impl FnMut(usize, [isize; K], [isize; K], usize),
    ) {
        if let (&[len], true) = (&self.dims[..], start < end) {
            // One merged dimension (any contiguous operand set): a single run, called
            // directly so the body inlines here, where the compiler still knows that the
            // output and the inputs do not alias and vectorises small ops fully.
            debug_assert!(end <= len);
            let (offs, inner) = self.run_at(start);
            return f(start, offs, inner, end - start);
        }
        self.walk(start, end, &mut |runs, inner| {
            for &(pos, offs, len) in runs {
                f(pos, offs, inner, len);
            }
        })
    }

    /// [`Plan::for_runs`] for kernels that loop over rows themselves: `f(pos, offsets,
    /// inner_strides, len, rows, outer_strides)` covers `rows` runs of `len` elements, run `r`
    /// at logical position `pos + r * len` and storage offsets `offsets + r * outer_strides`.
    /// A plan of two or more merged dimensions hands over tiles of its last two (whole rows of
    /// a broadcast bias or a strided matrix, an im2col window's `kh × kw` block), so short
    /// rows cost a loop iteration each, not a walk step and a call; a one-dimensional plan is
    /// one run (`rows` = 1), called directly.
    #[inline]
    pub fn for_rows(
        &self,
        start: usize,
        end: usize,
        mut f: impl FnMut(usize, [isize; K], [isize; K], usize, usize, [isize; K]),
    ) {
        if self.dims.len() < 2 {
            return self.for_runs(start, end, |pos, offs, inner, n| {
                f(pos, offs, inner, n, 1, [0; K])
            });
        }
        let (inner, outer) = self.inner_outer();
        self.tiles(start, end, &mut |parts| {
            for &(pos, offs, len, rows) in parts {
                f(pos, offs, inner, len, rows, outer);
            }
        })
    }

    /// The offsets of logical position `p` of a one-dimensional plan, and its strides.
    /// Written as loops, not `array::from_fn`: these helpers are compiled once per `K`, while
    /// a `from_fn` closure inside the generic `for_runs` was instantiated once per op.
    fn run_at(&self, p: usize) -> ([isize; K], [isize; K]) {
        let (mut offs, mut inner) = (self.offsets, [0; K]);
        for k in 0..K {
            inner[k] = self.strides[k][0];
            offs[k] += p as isize * inner[k];
        }
        (offs, inner)
    }

    /// The inner (element) and outer (row) strides of the last two dimensions.
    fn inner_outer(&self) -> ([isize; K], [isize; K]) {
        let (mut inner, mut outer) = ([0; K], [0; K]);
        let last = self.dims.len() - 1;
        for k in 0..K {
            (outer[k], inner[k]) = (self.strides[k][last - 1], self.strides[k][last]);
        }
        (inner, outer)
    }

    /// The storage offsets of logical position `p`.
    fn offsets_at(&self, mut p: usize) -> [isize; K] {
        let mut o = self.offsets;
        for d in (0..self.dims.len()).rev() {
            let i = (p % self.dims[d]) as isize;
            p /= self.dims[d];
            for k in 0..K {
                o[k] += i * self.strides[k][d];
            }
        }
        o
    }

    /// The tiles behind [`Plan::for_rows`] (two or more dimensions), compiled once per `K`:
    /// `start..end` as parts `(pos, offsets, len, rows)` handed to `f` in batches. A partial
    /// tile at either end is a partial first row, whole rows and a partial last row; the whole
    /// tiles between are found by walking the dimensions before the last two.
    fn tiles(&self, start: usize, end: usize, f: &mut dyn FnMut(&[Rows<K>])) {
        let nd = self.dims.len();
        let (rows, len) = (self.dims[nd - 2], self.dims[nd - 1]);
        let tile = rows * len; // at most the element count
        let mut batch = [(0, [0; K], 0, 0); RUN_BATCH];
        let mut n = 0;
        let mut push = |part: Rows<K>, f: &mut dyn FnMut(&[Rows<K>])| {
            batch[n] = part;
            n += 1;
            if n == RUN_BATCH {
                f(&batch);
                n = 0;
            }
        };
        // Positions p..q inside one tile.
        let partial = |p: usize, q: usize, push: &mut dyn FnMut(Rows<K>)| {
            let mut p = p;
            if p < q && !p.is_multiple_of(len) {
                let m = (len - p % len).min(q - p);
                push((p, self.offsets_at(p), m, 1));
                p += m;
            }
            if q - p >= len {
                let r = (q - p) / len;
                push((p, self.offsets_at(p), len, r));
                p += r * len;
            }
            if p < q {
                push((p, self.offsets_at(p), q - p, 1));
            }
        };
        let mut p = start;
        if p < end && !p.is_multiple_of(tile) {
            let q = (p - p % tile + tile).min(end);
            partial(p, q, &mut |part| push(part, f));
            p = q;
        }
        let (t0, t1) = (p / tile, end / tile);
        if p < end && t0 < t1 {
            let outer = Plan {
                dims: self.dims[..nd - 2].into(),
                strides: std::array::from_fn(|k| self.strides[k][..nd - 2].into()),
                offsets: self.offsets,
            };
            outer.walk(t0, t1, &mut |runs, step| {
                for &(t, mut offs, count) in runs {
                    for i in 0..count {
                        push(((t + i) * tile, offs, len, rows), f);
                        for k in 0..K {
                            offs[k] += step[k];
                        }
                    }
                }
            });
            p = t1 * tile;
        }
        if p < end {
            partial(p, end, &mut |part| push(part, f));
        }
        if n > 0 {
            f(&batch[..n]);
        }
    }

    /// The walk behind [`Plan::for_runs`], compiled once per operand count, so each op and
    /// dtype does not instantiate its own copy. It hands the runs to `f` (through a pointer)
    /// in batches of up to [`RUN_BATCH`] with their inner strides, so short runs (a broadcast
    /// bias, a narrow image row) do not pay an indirect call each.
    fn walk(&self, start: usize, end: usize, f: &mut dyn FnMut(&[Run<K>], [isize; K])) {
        if start >= end {
            return;
        }
        let nd = self.dims.len();
        if nd == 0 {
            f(&[(0, self.offsets, 1)], [0; K]);
            return;
        }
        let last = nd - 1;
        // The position as an index per dimension; on the stack for the usual ranks, because
        // reductions call this once per output element.
        let (mut small, mut large) = ([0usize; 8], Vec::new());
        let idx: &mut [usize] = if nd <= small.len() {
            &mut small[..nd]
        } else {
            large.resize(nd, 0);
            &mut large
        };
        let mut rem = start;
        for d in (0..nd).rev() {
            idx[d] = rem % self.dims[d];
            rem /= self.dims[d];
        }
        let mut offs = self.offsets;
        for k in 0..K {
            for d in 0..nd {
                offs[k] += idx[d] as isize * self.strides[k][d];
            }
        }
        let inner: [isize; K] = std::array::from_fn(|k| self.strides[k][last]);
        let mut pos = start;
        let mut batch = [(0usize, [0isize; K], 0usize); RUN_BATCH];
        let mut n = 0;
        while pos < end {
            let len = (self.dims[last] - idx[last]).min(end - pos);
            batch[n] = (pos, offs, len);
            n += 1;
            if n == RUN_BATCH {
                f(&batch, inner);
                n = 0;
            }
            pos += len;
            idx[last] += len;
            for k in 0..K {
                offs[k] += len as isize * inner[k];
            }
            if idx[last] == self.dims[last] {
                for k in 0..K {
                    offs[k] -= self.dims[last] as isize * inner[k];
                }
                idx[last] = 0;
                for d in (0..last).rev() {
                    idx[d] += 1;
                    for k in 0..K {
                        offs[k] += self.strides[k][d];
                    }
                    if idx[d] < self.dims[d] {
                        break;
                    }
                    for k in 0..K {
                        offs[k] -= self.dims[d] as isize * self.strides[k][d];
                    }
                    idx[d] = 0;
                }
            }
        }
        if n > 0 {
            f(&batch[..n], inner);
        }
    }
}

/// Splits `0..n` into ranges and runs `f(start, end)` on each, in parallel above the threshold.
#[inline]
pub fn par_ranges(n: usize, f: impl Fn(usize, usize) + Sync) {
    if n < PAR_THRESHOLD {
        f(0, n);
        return;
    }
    par_ranges_dyn(n, chunk_len(n), &f)
}

/// The pool side of [`par_ranges`], compiled once: rayon's job machinery is large, and
/// instantiating it for every op and dtype was a quarter of the crate's code.
fn par_ranges_dyn(n: usize, chunk: usize, f: &(dyn Fn(usize, usize) + Sync)) {
    (0..n.div_ceil(chunk))
        .into_par_iter()
        .for_each(|i| f(i * chunk, ((i + 1) * chunk).min(n)));
}

fn chunk_len(n: usize) -> usize {
    let parts = rayon::current_num_threads() * 4;
    n.div_ceil(parts)
        .max(PAR_THRESHOLD / 2)
        .next_multiple_of(64)
}

/// Runs `f(start, out_chunk)` over disjoint chunks of a contiguous output.
#[inline]
fn par_out<O: Send>(out: &mut [O], f: impl Fn(usize, &mut [O]) + Sync) {
    if out.len() < PAR_THRESHOLD {
        f(0, out);
        return;
    }
    let chunk = chunk_len(out.len());
    par_chunks(out, chunk, &f)
}

/// Runs `f(start, out_chunk)` over the chunks of `chunk` elements of `out` on the pool
/// (inline when there is one chunk). Compiled once per element type, as [`par_ranges_dyn`].
pub fn par_chunks<O: Send>(out: &mut [O], chunk: usize, f: &(dyn Fn(usize, &mut [O]) + Sync)) {
    let chunk = chunk.max(1);
    if out.len() <= chunk {
        f(0, out);
        return;
    }
    out.par_chunks_mut(chunk)
        .enumerate()
        .for_each(|(i, c)| f(i * chunk, c));
}

#[inline(always)]
fn at(o: isize, j: usize, s: isize) -> usize {
    (o + j as isize * s) as usize
}

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

/// Outputs of at least this many bytes are written with non-temporal stores: they cannot stay
/// in the cache (32 MiB of L3 here), and a normal store first reads the line it writes, so
/// streaming cuts an add's memory traffic from four array passes to three.
const STREAM_BYTES: usize = 32 << 20;
/// Elements computed into a cache-resident block before each block is streamed out.
const STREAM_BLOCK: usize = 1024;

/// Whether `out` is written with [`stream_copy`] (large enough, and the CPU has AVX).
fn streams<O>(out: &[O]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::mem::size_of_val(out) >= STREAM_BYTES && std::arch::is_x86_feature_detected!("avx")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = out;
        false
    }
}

/// `dst.copy_from_slice(src)` with non-temporal stores for the 32-byte aligned part; only
/// called when [`streams`] said yes. The writing thread calls [`stream_fence`] before the
/// data is handed on.
#[inline]
fn stream_copy<O: bytemuck::NoUninit>(dst: &mut [O], src: &[O]) {
    assert_eq!(dst.len(), src.len());
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx")]
        fn copy_avx(dst: &mut [u8], src: &[u8]) {
            use std::arch::x86_64::*;
            let head = dst.as_ptr().align_offset(32).min(dst.len());
            let (dh, db) = dst.split_at_mut(head);
            let (sh, sb) = src.split_at(head);
            dh.copy_from_slice(sh);
            let mut dc = db.chunks_exact_mut(32);
            let mut sc = sb.chunks_exact(32);
            for (d, s) in (&mut dc).zip(&mut sc) {
                // SAFETY: `d` and `s` hold 32 bytes each and `d` starts 32-byte aligned (the
                // head above, and 32-byte steps after it); the load is unaligned.
                unsafe {
                    let v = _mm256_loadu_si256(s.as_ptr() as *const __m256i);
                    _mm256_stream_si256(d.as_mut_ptr() as *mut __m256i, v);
                }
            }
            dc.into_remainder().copy_from_slice(sc.remainder());
        }
        // `O` has no padding (`NoUninit`), so its bytes can be read as `u8`.
        let s: &[u8] = bytemuck::cast_slice(src);
        // SAFETY: `dst`'s own `s.len()` bytes (same length and type as `src`); only the bytes
        // of valid `O`s from `src` are written there, so `dst` keeps holding valid `O`s.
        let d = unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr() as *mut u8, s.len()) };
        // SAFETY: only reached when `streams` found AVX.
        unsafe { copy_avx(d, s) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    dst.copy_from_slice(src);
}

/// Orders this thread's non-temporal stores before what follows (Rust's rule for
/// `_mm256_stream_si256`: an `sfence` before any other access to that memory).
fn stream_fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of x86-64.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
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
            for j in 0..len {
                chunk[pos - start + j] = f(
                    a[at(o[0], j, s[0])],
                    b[at(o[1], j, s[1])],
                    c[at(o[2], j, s[2])],
                );
            }
        })
    });
    Ok(out)
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

/// A raw pointer that may cross threads; each thread writes a disjoint set of indices.
#[derive(Clone, Copy)]
struct SendPtr<T>(*mut T);

impl<T> SendPtr<T> {
    /// Taking `self` makes closures capture the whole (Send) wrapper, not the raw field.
    #[inline(always)]
    fn get(self) -> *mut T {
        self.0
    }
}
unsafe impl<T> Send for SendPtr<T> {}
unsafe impl<T> Sync for SendPtr<T> {}

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
    check_writable(dst, ld);
    let plan = Plan::new([ld, ls]);
    let p = SendPtr(dst.as_mut_ptr());
    par_ranges(ld.shape.numel(), |start, end| {
        plan.for_runs(start, end, |_, [od, os], [sd, ss], len| {
            // SAFETY: the span check above keeps every index in bounds; the layout does not
            // alias, so threads (which get disjoint logical ranges) write disjoint elements.
            unsafe {
                if sd == 1 && ss == 1 {
                    let d = std::slice::from_raw_parts_mut(p.get().add(od as usize), len);
                    for (x, &y) in d.iter_mut().zip(&src[os as usize..os as usize + len]) {
                        *x = f(*x, y);
                    }
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
    let plan = Plan::new([ld]);
    let p = SendPtr(dst.as_mut_ptr());
    par_ranges(ld.shape.numel(), |start, end| {
        plan.for_runs(start, end, |_, [od], [sd], len| {
            // SAFETY: as in `zip_inplace`.
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

/// Elements per chunk on the chunked compute paths: two buffers stay in L1.
const CHUNK: usize = 512;

fn gather<T: Element>(src: &[T], o: isize, s: isize, len: usize, buf: &mut [T; CHUNK]) {
    if s == 1 {
        buf[..len].copy_from_slice(&src[o as usize..o as usize + len]);
    } else {
        for (j, b) in buf[..len].iter_mut().enumerate() {
            *b = src[at(o, j, s)];
        }
    }
}

/// Widens `n` elements at `o` with stride `s` into `f`: straight from `src` when contiguous,
/// through the gather buffer `tmp` otherwise.
fn load_run<T: Element, A: Compute>(
    src: &[T],
    o: isize,
    s: isize,
    n: usize,
    tmp: &mut [T; CHUNK],
    f: &mut [A; CHUNK],
) {
    if s == 1 {
        A::load(&src[o as usize..o as usize + n], &mut f[..n]);
    } else {
        gather(src, o, s, n, tmp);
        A::load(&tmp[..n], &mut f[..n]);
    }
}

/// `out = store(f(load(src)))` in chunks of the compute type `A`: 16-bit floats convert whole
/// runs with SIMD conversions and ops like `sin` run vectorised over the buffer. `f` is the
/// op's code, called once per chunk through a pointer, so this driver is compiled once per
/// element types rather than once per op.
pub fn map_into_chunks<I: Element, O: Element, A: Compute>(
    src: &[I],
    l: &Layout,
    out: &mut [O],
    f: &(dyn Fn(&mut [A]) + Sync),
) {
    let plan = Plan::new([l]);
    par_out(out, |start, chunk| {
        let mut tmp = [I::ZERO; CHUNK];
        let mut buf = [A::default(); CHUNK];
        plan.for_runs(start, start + chunk.len(), |pos, [o], [s], len| {
            let d = pos - start;
            // Already in the compute type and contiguous: copy into the output and work there
            // in place (one pass over the data fewer than through the buffer).
            if s == 1
                && let Some(src) = super::convert::same::<I, A>(src)
                && let Some(dst) = super::convert::same_mut::<O, A>(&mut chunk[d..d + len])
            {
                let o = o as usize;
                for (dc, sc) in dst.chunks_mut(CHUNK).zip(src[o..o + len].chunks(CHUNK)) {
                    dc.copy_from_slice(sc);
                    f(dc);
                }
                return;
            }
            let mut done = 0;
            while done < len {
                let n = (len - done).min(CHUNK);
                load_run(src, o + done as isize * s, s, n, &mut tmp, &mut buf);
                f(&mut buf[..n]);
                A::store(&buf[..n], &mut chunk[d + done..d + done + n]);
                done += n;
            }
        })
    });
}

/// [`map_into_chunks`] for a contiguous `src` of `out.len()` elements.
pub fn map_slice_chunks<I: Element, O: Element, A: Compute>(
    src: &[I],
    out: &mut [O],
    f: &dyn Fn(&mut [A]),
) {
    if let (Some(src), Some(out)) = (
        super::convert::same::<I, A>(src),
        super::convert::same_mut::<O, A>(out),
    ) {
        out.copy_from_slice(src);
        return out.chunks_mut(CHUNK).for_each(f);
    }
    let mut buf = [A::default(); CHUNK];
    for (s, o) in src.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
        let b = &mut buf[..s.len()];
        A::load(s, b);
        f(b);
        A::store(b, o);
    }
}

/// `out[i] = src[i].cast::<U>()` (the layout `l` into a contiguous `out`): contiguous runs
/// convert straight into the output, strided runs through a gather buffer of [`CHUNK`]
/// elements. Per dtype pair this is one small run converter ([`cast_slice`]); the plan walk and
/// the thread pool are shared by all 81 pairs.
pub fn cast_into<T: Element, U: Element>(src: &[T], l: &Layout, out: &mut [U]) {
    let plan = Plan::new([l]);
    par_out(out, |start, chunk| {
        let mut tmp = [T::ZERO; CHUNK];
        plan.for_runs(start, start + chunk.len(), |pos, [o], [s], len| {
            let d = pos - start;
            if s == 1 {
                let o = o as usize;
                return cast_slice(&src[o..o + len], &mut chunk[d..d + len]);
            }
            let mut done = 0;
            while done < len {
                let n = (len - done).min(CHUNK);
                gather(src, o + done as isize * s, s, n, &mut tmp);
                cast_slice(&tmp[..n], &mut chunk[d + done..d + done + n]);
                done += n;
            }
        })
    });
}

/// `out[i] = src[i].cast::<U>()` for equal-length slices: 16-bit and 32-bit floats among
/// themselves in f32 chunks (SIMD conversions, one rounding, as `cast` through f64 gives),
/// everything else element by element.
pub fn cast_slice<T: Element, U: Element>(src: &[T], out: &mut [U]) {
    use super::convert::computes_in_f32 as f32_type;
    if const { f32_type(T::DTYPE) && f32_type(U::DTYPE) } {
        map_slice_chunks::<T, U, f32>(src, out, &|_| {})
    } else {
        for (d, &x) in out.iter_mut().zip(src) {
            *d = x.cast::<U>();
        }
    }
}

/// `out = store(f(load(a), load(b)))` in chunks of f32 (see [`map_into_chunks`]): `f` computes
/// a chunk in place in its first argument and is called through a pointer, so the driver is
/// compiled once per element type.
pub fn zip_into_f32<T: Element>(
    a: &[T],
    la: &Layout,
    b: &[T],
    lb: &Layout,
    out: &mut [T],
    f: &(dyn Fn(&mut [f32], &[f32]) + Sync),
) {
    let plan = Plan::new([la, lb]);
    par_out(out, |start, chunk| {
        let (mut ta, mut tb) = ([T::ZERO; CHUNK], [T::ZERO; CHUNK]);
        let (mut fa, mut fb) = ([0f32; CHUNK], [0f32; CHUNK]);
        plan.for_runs(
            start,
            start + chunk.len(),
            |pos, [oa, ob], [sa, sb], len| {
                let mut done = 0;
                while done < len {
                    let n = (len - done).min(CHUNK);
                    load_run(a, oa + done as isize * sa, sa, n, &mut ta, &mut fa);
                    load_run(b, ob + done as isize * sb, sb, n, &mut tb, &mut fb);
                    f(&mut fa[..n], &fb[..n]);
                    let d = pos - start + done;
                    super::convert::store_f32(&fa[..n], &mut chunk[d..d + n]);
                    done += n;
                }
            },
        )
    });
}

/// Copies `src` (layout `l`) into a new contiguous buffer. A layout that coalesces to a
/// transposed matrix (the inner logical dimension strided, the outer one contiguous) goes
/// through [`super::transpose::transpose_rows`] (8×8 register tiles) on all threads, in bands
/// of 64 output rows, instead of walking columns.
///
/// # Errors
/// `OutOfMemory` when the output cannot be allocated.
pub fn copy<T: Element>(op: &'static str, src: &[T], l: &Layout) -> Result<AlignedBuf<T>> {
    let plan = Plan::new([l]);
    let n = l.shape.numel();
    if n > 0 && plan.dims.len() == 2 && plan.strides[0][0] == 1 && plan.strides[0][1] > 1 {
        let (rows, cols) = (plan.dims[0], plan.dims[1]);
        let (cs, off) = (plan.strides[0][1] as usize, plan.offsets[0] as usize);
        let mut out = AlignedBuf::for_overwrite(op, n)?;
        let band = 64;
        let fill = |(bi, block): (usize, &mut [T])| {
            super::transpose::transpose_rows(src, off + bi * band, cs, cols, block);
        };
        if rows * cols < PAR_THRESHOLD {
            out.chunks_mut(band * cols).enumerate().for_each(fill);
        } else {
            out.par_chunks_mut(band * cols).enumerate().for_each(fill);
        }
        return Ok(out);
    }
    map(op, src, l, |x| x)
}

#[cfg(test)]
mod tests {
    /// The streamed copy at every length around the 32-byte steps, from every start alignment,
    /// for 1-, 2-, 4- and 8-byte elements.
    #[test]
    fn stream_copy_every_length_and_alignment() {
        fn check<T: bytemuck::Pod + PartialEq + std::fmt::Debug>(make: impl Fn(usize) -> T) {
            let src: Vec<T> = (0..300).map(&make).collect();
            for start in 0..9 {
                for n in 0..src.len() - start {
                    let mut dst: Vec<T> = (0..src.len()).map(|i| make(i + 1000)).collect();
                    super::stream_copy(&mut dst[start..start + n], &src[..n]);
                    super::stream_fence();
                    assert_eq!(&dst[start..start + n], &src[..n], "start {start}, n = {n}");
                    assert!(
                        dst[..start]
                            .iter()
                            .enumerate()
                            .all(|(i, &v)| v == make(i + 1000))
                    );
                    let after = start + n;
                    assert!(
                        dst[after..]
                            .iter()
                            .zip(after..)
                            .all(|(&v, i)| v == make(i + 1000))
                    );
                }
            }
        }
        #[cfg(target_arch = "x86_64")]
        if !std::arch::is_x86_feature_detected!("avx") {
            return;
        }
        check(|i| i as u8);
        check(|i| i as u16);
        check(|i| i as f32 * 0.5);
        check(|i| i as f64 - 7.25);
    }

    /// `for_rows` over every sub-range of plans of 1 to 4 merged dimensions (permuted,
    /// reversed, broadcast, offset) visits each logical position once, in order, at its
    /// storage offset in both operands.
    #[test]
    fn for_rows_visits_every_position_of_every_range() {
        use crate::shape::{Layout, Shape};
        fn layout(dims: &[usize], strides: &[isize], offset: usize) -> Layout {
            Layout {
                shape: Shape::new(dims.to_vec()),
                strides: strides.into(),
                offset,
            }
        }
        fn offset_of(l: &Layout, mut p: usize) -> isize {
            let mut o = l.offset as isize;
            for d in (0..l.shape.dims().len()).rev() {
                let n = l.shape.dims()[d];
                o += (p % n) as isize * l.strides[d];
                p /= n;
            }
            o
        }
        let cases = [
            (vec![7], vec![2], vec![1]),
            (vec![3, 5], vec![1, 3], vec![5, 1]),
            (vec![2, 3, 4], vec![12, 1, 3], vec![0, 4, 1]),
            (vec![2, 3, 2, 3], vec![36, 2, 12, 1], vec![18, 6, 3, 1]),
            (vec![3, 2, 2], vec![-4, 2, 1], vec![4, 0, 1]),
            (
                vec![2, 2, 2, 2, 3],
                vec![24, 12, 6, 3, 1],
                vec![1, 2, 4, 8, 16],
            ),
        ];
        for (dims, sa, sb) in cases {
            let la = layout(&dims, &sa, if sa[0] < 0 { 8 } else { 1 });
            let lb = layout(&dims, &sb, 2);
            let plan = super::Plan::new([&la, &lb]);
            let n: usize = dims.iter().product();
            for start in 0..=n {
                for end in start..=n {
                    let mut seen = Vec::new();
                    plan.for_rows(start, end, |pos, offs, inner, len, rows, outer| {
                        for r in 0..rows {
                            for j in 0..len {
                                let at = |k: usize| {
                                    offs[k] + r as isize * outer[k] + j as isize * inner[k]
                                };
                                seen.push((pos + r * len + j, at(0), at(1)));
                            }
                        }
                    });
                    let want: Vec<_> = (start..end)
                        .map(|p| (p, offset_of(&la, p), offset_of(&lb, p)))
                        .collect();
                    assert_eq!(seen, want, "{dims:?} {sa:?} {sb:?} {start}..{end}");
                }
            }
        }
    }
}
