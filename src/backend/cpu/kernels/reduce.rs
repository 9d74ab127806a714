//! The reduction driver: the reduced axes of a strided input form one block per output
//! element; blocks are walked as contiguous runs where the layout allows, outputs are split
//! across threads, and a single large block (a full reduction) is split into chunks whose
//! partial results are merged in order (so "first occurrence" stays first).

use super::strided::{PAR_THRESHOLD, Plan, par_chunks};
use crate::dtype::Element;
use crate::shape::{Layout, Shape};

/// One reduction, defined once: an accumulator, a step per element (with the element's flat
/// index inside the block, row-major over the reduced axes), and an in-order merge.
pub trait Reducer<T: Element>: Sync {
    /// The running state.
    type Acc: Copy + Send + Sync;
    /// The empty state.
    fn init(&self) -> Self::Acc;
    /// Folds element `x` at block index `i`.
    fn step(&self, acc: Self::Acc, x: T, i: usize) -> Self::Acc;
    /// Combines the states of two consecutive parts, `a` before `b`.
    fn merge(&self, a: Self::Acc, b: Self::Acc) -> Self::Acc;
    /// Folds element `xs[k]` (all at block index `i`) into `accs[k]` for a strip of outputs.
    #[inline]
    fn step_strip(&self, accs: &mut [Self::Acc], xs: &[T], i: usize) {
        for (a, &x) in accs.iter_mut().zip(xs) {
            *a = self.step(*a, x, i);
        }
    }
    /// Folds `count` rows of `accs.len()` elements into a strip of outputs, in order: row `j`
    /// starts at `src[start + j · stride]` and has block index `i + j`. Override to fold them
    /// in one call (a narrow strip pays a call per row otherwise).
    #[inline]
    fn step_rows(
        &self,
        accs: &mut [Self::Acc],
        src: &[T],
        (start, stride): (isize, isize),
        count: usize,
        i: usize,
    ) {
        for j in 0..count {
            self.step_strip(accs, strip_row(src, (start, stride), accs.len(), j), i + j);
        }
    }
    /// Folds a contiguous run starting at block index `i0`; override to vectorise.
    #[inline]
    fn run(&self, mut acc: Self::Acc, xs: &[T], i0: usize) -> Self::Acc {
        for (j, &x) in xs.iter().enumerate() {
            acc = self.step(acc, x, i0 + j);
        }
        acc
    }
}

/// Row `j` of a strip of `len` elements whose rows start at `src[start + j · stride]`.
#[inline(always)]
pub(crate) fn strip_row<T>(
    src: &[T],
    (start, stride): (isize, isize),
    len: usize,
    j: usize,
) -> &[T] {
    let at = (start + j as isize * stride) as usize;
    &src[at..at + len]
}

/// Reduces the axes marked in `mask`. Returns one state per output element (row-major over the
/// kept axes), the kept dimensions, and the block size.
pub fn reduce<T: Element, R: Reducer<T>>(
    src: &[T],
    l: &Layout,
    mask: &[bool],
    r: &R,
) -> (Vec<R::Acc>, Vec<usize>, usize) {
    let dims = l.shape.dims();
    let pick = |keep: bool| -> (Vec<usize>, Vec<isize>) {
        (0..dims.len())
            .filter(|&i| mask[i] != keep)
            .map(|i| (dims[i], l.strides[i]))
            .unzip()
    };
    let (kd, ks) = pick(true);
    let (rd, rs) = pick(false);
    let n_out: usize = crate::shape::numel_of(kd.iter().copied());
    let blk: usize = crate::shape::numel_of(rd.iter().copied());
    let out_l = Layout {
        shape: Shape::new(kd.clone()),
        strides: ks.into(),
        offset: l.offset,
    };
    let blk_l = Layout {
        shape: Shape::new(rd),
        strides: rs.into(),
        offset: 0,
    };
    let bplan = Plan::new([&blk_l]);
    let fold = |base: isize, start: usize, end: usize, mut acc: R::Acc| {
        bplan.for_runs(start, end, |pos, [o], [s], len| {
            let o = o + base;
            if s == 1 {
                acc = r.run(acc, &src[o as usize..o as usize + len], pos);
            } else {
                for j in 0..len {
                    acc = r.step(acc, src[(o + j as isize * s) as usize], pos + j);
                }
            }
        });
        acc
    };
    // Output runs: (storage offset, stride, length) of consecutive output elements.
    let mut runs: Vec<(isize, isize, usize)> = Vec::new();
    Plan::new([&out_l]).for_runs(0, n_out, |_, [o], [s], len| runs.push((o, s, len)));
    if runs.first().is_some_and(|r| r.1 == 1 && r.2 >= 2) && blk > 1 {
        // The kept dimension is the contiguous one (a column reduction such as axis 0 of a
        // row-major matrix): fold whole rows into a strip of accumulators, which vectorises
        // and reads memory in order, instead of walking each column with a large stride.
        const STRIP: usize = 2048;
        let strips = strips_of(&runs, STRIP);
        let serial = n_out.saturating_mul(blk) < PAR_THRESHOLD;
        // Few strips (a narrow matrix, or many threads): split the rows into bands too, and
        // merge each strip's band results in order afterwards.
        let threads = rayon::current_num_threads();
        let bands = if serial || strips.len() >= 2 * threads {
            1
        } else {
            (2 * threads).div_ceil(strips.len()).min(blk.div_ceil(64))
        };
        let band = blk.div_ceil(bands);
        let fold_strip = |&((o, len), b): &((isize, usize), usize)| -> Vec<R::Acc> {
            let mut acc = vec![r.init(); len];
            bplan.for_runs(
                b * band,
                ((b + 1) * band).min(blk),
                |pos, [ob], [sb], blen| r.step_rows(&mut acc, src, (o + ob, sb), blen, pos),
            );
            acc
        };
        let work = strips_by_band(&strips, bands);
        let mut parts: Vec<Vec<R::Acc>> = vec![Vec::new(); work.len()];
        let chunk = if serial { work.len() } else { 1 };
        par_chunks(&mut parts, chunk, &|i, ps| {
            for (k, p) in ps.iter_mut().enumerate() {
                *p = fold_strip(&work[i + k]);
            }
        });
        let parts: Vec<Vec<R::Acc>> = parts
            .chunks(bands)
            .map(|bs| {
                let mut it = bs.iter();
                let first = it.next().cloned().unwrap_or_default();
                it.fold(first, |a, b| {
                    a.iter().zip(b).map(|(&x, &y)| r.merge(x, y)).collect()
                })
            })
            .collect();
        return (parts.concat(), kd, blk);
    }
    let mut bases = Vec::with_capacity(n_out);
    for &(o, s, len) in &runs {
        bases.extend((0..len).map(|j| o + j as isize * s));
    }
    let threads = rayon::current_num_threads();
    let serial = n_out.saturating_mul(blk) < PAR_THRESHOLD;
    if serial || n_out >= threads * 4 || blk < PAR_THRESHOLD {
        // One output per task. A block of at most two strided runs (after merging) is folded
        // by an inlined loop: many small blocks (pooling windows, softmax rows) must not pay
        // the plan's walk or a call per output.
        let min_len = (PAR_THRESHOLD / blk.max(1)).max(1);
        let geometry = match (bplan.dims(), bplan.strides()) {
            ([], _) => Some((1, 1, 0, 0)),
            (&[len], &[s]) => Some((1, len, 0, s)),
            (&[rows, len], &[s0, s1]) => Some((rows, len, s0, s1)),
            _ => None,
        };
        let accs = match geometry {
            Some(g) => each(&bases, serial, min_len, r.init(), |b| fold2(r, src, b, g)),
            None => each(&bases, serial, min_len, r.init(), |b| {
                fold(b, 0, blk, r.init())
            }),
        };
        return (accs, kd, blk);
    }
    // Few outputs with large blocks: each block is split in chunks across the threads.
    let chunk = blk.div_ceil(threads * 4).max(PAR_THRESHOLD / 2);
    let accs = bases
        .iter()
        .map(|&b| {
            let mut parts = vec![r.init(); blk.div_ceil(chunk)];
            par_chunks(&mut parts, 1, &|c, p| {
                p[0] = fold(b, c * chunk, ((c + 1) * chunk).min(blk), r.init());
            });
            parts.into_iter().fold(r.init(), |a, p| r.merge(a, p))
        })
        .collect();
    (accs, kd, blk)
}

/// `f(base)` for every base, in order: on this thread when `serial`, else on the pool in
/// tasks of at least `min_len` bases.
#[inline]
fn each<A: Copy + Send, F: Fn(isize) -> A + Sync>(
    bases: &[isize],
    serial: bool,
    min_len: usize,
    init: A,
    f: F,
) -> Vec<A> {
    if serial {
        return bases.iter().map(|&b| f(b)).collect();
    }
    let mut out = vec![init; bases.len()];
    let chunk = bases
        .len()
        .div_ceil(rayon::current_num_threads() * 4)
        .max(min_len);
    par_chunks(&mut out, chunk, &|start, accs| {
        for (a, &b) in accs.iter_mut().zip(&bases[start..]) {
            *a = f(b);
        }
    });
    out
}

/// Folds the block at `base` made of `rows` runs of `len` elements (strides `s0` between
/// runs, `s1` inside one), block indices in row-major order.
#[inline(always)]
fn fold2<T: Element, R: Reducer<T>>(
    r: &R,
    src: &[T],
    base: isize,
    (rows, len, s0, s1): (usize, usize, isize, isize),
) -> R::Acc {
    let mut acc = r.init();
    for i in 0..rows {
        let o = base + i as isize * s0;
        if s1 == 1 {
            acc = r.run(acc, &src[o as usize..o as usize + len], i * len);
        } else {
            for j in 0..len {
                acc = r.step(acc, src[(o + j as isize * s1) as usize], i * len + j);
            }
        }
    }
    acc
}

/// Inclusive scan along `axis` into a contiguous output of the same shape:
/// `out[.., i, ..] = f(out[.., i-1, ..], x[.., i, ..])`, starting from `init`; `out` comes
/// allocated (fallibly, by the caller) with one element per input element.
pub fn scan<T: Element, O: Element>(
    mut out: Vec<O>,
    src: &[T],
    l: &Layout,
    axis: usize,
    init: O,
    f: impl Fn(O, T) -> O + Sync,
) -> Vec<O> {
    let dims = l.shape.dims();
    let n = l.shape.numel();
    debug_assert_eq!(out.len(), n);
    if n == 0 {
        return out;
    }
    let len = dims[axis];
    let out_strides = l.shape.contiguous_strides();
    let others: Vec<usize> = (0..dims.len()).filter(|&i| i != axis).collect();
    let sub = |strides: &[isize], offset: usize| Layout {
        shape: Shape::new(others.iter().map(|&i| dims[i]).collect()),
        strides: others.iter().map(|&i| strides[i]).collect(),
        offset,
    };
    let (li, lo) = (sub(&l.strides, l.offset), sub(&out_strides, 0));
    let (si, so) = (l.strides[axis], out_strides[axis]);
    Plan::new([&li, &lo]).for_runs(0, n / len, |_, [oi, oo], [ssi, sso], run| {
        if run > 1 && ssi.abs() < si.abs() {
            // The lines lie side by side in memory (a scan down the columns): step every line
            // of the run at once, position by position, reading the previous position's
            // result from `out`, so memory is read in order rather than one strided column
            // at a time. Each line's order of operations is unchanged.
            for k in 0..len as isize {
                for j in 0..run as isize {
                    let prev = match k {
                        0 => init,
                        _ => out[(oo + j * sso + (k - 1) * so) as usize],
                    };
                    out[(oo + j * sso + k * so) as usize] =
                        f(prev, src[(oi + j * ssi + k * si) as usize]);
                }
            }
            return;
        }
        for j in 0..run {
            let (bi, bo) = (oi + j as isize * ssi, oo + j as isize * sso);
            let mut acc = init;
            for k in 0..len as isize {
                acc = f(acc, src[(bi + k * si) as usize]);
                out[(bo + k * so) as usize] = acc;
            }
        }
    });
    out
}

/// [`scan`] along the last axis of contiguous rows of `len` elements (`src` and `out` of
/// equal length, a multiple of `len`): rows split across threads, four rows scanned together
/// in each so that their dependency chains overlap (each row's order of operations is
/// [`scan`]'s, so the results are the same bits). Every element of `out` is written.
///
/// # Panics
/// When `len` is 0 or the lengths differ or are not a multiple of `len` (a caller bug).
pub fn scan_rows<T: Element, O: Element>(
    src: &[T],
    out: &mut [O],
    len: usize,
    init: O,
    f: impl Fn(O, T) -> O + Sync,
) {
    assert!(
        len > 0 && src.len() == out.len() && out.len().is_multiple_of(len),
        "scan rows"
    );
    let rows = out.len() / len;
    let chunk = super::rows::rows_per_task(rows, len) * len;
    super::strided::par_chunks(out, chunk, &|start, o| {
        let src = &src[start..start + o.len()];
        let done = o.len() / (4 * len) * (4 * len);
        let mut quads = o.chunks_exact_mut(4 * len);
        for (oq, sq) in (&mut quads).zip(src.chunks_exact(4 * len)) {
            let (o01, o23) = oq.split_at_mut(2 * len);
            let ((o0, o1), (o2, o3)) = (o01.split_at_mut(len), o23.split_at_mut(len));
            let (s0, s1, s2, s3) = (
                &sq[..len],
                &sq[len..2 * len],
                &sq[2 * len..3 * len],
                &sq[3 * len..],
            );
            let mut a = [init; 4];
            for k in 0..len {
                a[0] = f(a[0], s0[k]);
                a[1] = f(a[1], s1[k]);
                a[2] = f(a[2], s2[k]);
                a[3] = f(a[3], s3[k]);
                (o0[k], o1[k], o2[k], o3[k]) = (a[0], a[1], a[2], a[3]);
            }
        }
        let rest = quads.into_remainder();
        for (orow, srow) in rest
            .chunks_exact_mut(len)
            .zip(src[done..].chunks_exact(len))
        {
            let mut a = init;
            for (y, &x) in orow.iter_mut().zip(srow) {
                a = f(a, x);
                *y = a;
            }
        }
    });
}

/// The sum of `xs` widened to f64, in 16 independent lanes so that the additions overlap.
/// f32 on an AVX-512 or AVX2 CPU (picked at run time like [`sum_rows`]) uses eight 8- or
/// 4-wide registers, written out with intrinsics: LLVM's vectorisation of a lane array stayed
/// 2-wide.
#[inline]
pub fn sum_run<T: Element>(xs: &[T]) -> f64 {
    // A short row (a softmax over 10 classes) is summed inline by the caller's loop.
    if xs.len() < 16 {
        short_sum(xs)
    } else {
        long_sum(xs)
    }
}

/// Fewer than 16 elements, in four chains rather than one.
#[inline(always)]
fn short_sum<T: Element>(xs: &[T]) -> f64 {
    let mut t = [0f64; 4];
    let quads = xs.chunks_exact(4);
    for &x in quads.remainder() {
        t[0] += x.to_f64();
    }
    for q in quads {
        for k in 0..4 {
            t[k] += q[k].to_f64();
        }
    }
    (t[0] + t[1]) + (t[2] + t[3])
}

fn long_sum<T: Element>(xs: &[T]) -> f64 {
    #[inline(always)]
    fn body<T: Element>(xs: &[T]) -> f64 {
        let mut lanes = [0f64; 16];
        let chunks = xs.chunks_exact(16);
        let rest = chunks.remainder();
        for c in chunks {
            for k in 0..16 {
                lanes[k] += c[k].to_f64();
            }
        }
        // Fold the lanes pairwise (four vector steps, not 15 dependent additions).
        let mut w = 8;
        while w > 0 {
            for k in 0..w {
                lanes[k] += lanes[k + w];
            }
            w /= 2;
        }
        lanes[0] + short_sum(rest)
    }
    #[cfg(target_arch = "x86_64")]
    {
        if xs.len() >= 64
            && let Some(f) = super::convert::same::<T, f32>(xs)
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the CPU has AVX-512F, checked just above.
                return unsafe { avx512_f32(f) };
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2, checked just above.
                return unsafe { avx2_f32(f) };
            }
        }
    }
    body(xs)
}

/// [`sum_run`] of f32 on AVX2: eight 4-wide accumulators.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn avx2_f32(xs: &[f32]) -> f64 {
    use std::arch::x86_64::*;
    let chunks = xs.chunks_exact(32);
    let tail = chunks.remainder();
    let mut acc = [_mm256_setzero_pd(); 8];
    for c in chunks {
        for (k, a) in acc.iter_mut().enumerate() {
            // SAFETY: `c` holds 32 elements, so `c[4k..4k + 4]` is in bounds; the load
            // is unaligned.
            let v = unsafe { _mm_loadu_ps(c.as_ptr().add(4 * k)) };
            *a = _mm256_add_pd(*a, _mm256_cvtps_pd(v));
        }
    }
    // The tail in two registers (see `avx512_f32`).
    let [a0, a1, a2, a3, a4, a5, a6, a7] = acc;
    let mut lo = _mm256_add_pd(_mm256_add_pd(a0, a4), _mm256_add_pd(a2, a6));
    let mut hi = _mm256_add_pd(_mm256_add_pd(a1, a5), _mm256_add_pd(a3, a7));
    let rest = tail.chunks_exact(8);
    let tail = rest.remainder();
    for c in rest {
        // SAFETY: `c` holds 8 elements; the loads are unaligned.
        let (u, v) = unsafe { (_mm_loadu_ps(c.as_ptr()), _mm_loadu_ps(c.as_ptr().add(4))) };
        lo = _mm256_add_pd(lo, _mm256_cvtps_pd(u));
        hi = _mm256_add_pd(hi, _mm256_cvtps_pd(v));
    }
    let rest = tail.chunks_exact(4);
    let tail = rest.remainder();
    for c in rest {
        // SAFETY: `c` holds 4 elements; the load is unaligned.
        lo = _mm256_add_pd(lo, _mm256_cvtps_pd(unsafe { _mm_loadu_ps(c.as_ptr()) }));
    }
    let mut lanes = [0f64; 4];
    // SAFETY: `lanes` holds four f64; the store is unaligned.
    unsafe { _mm256_storeu_pd(lanes.as_mut_ptr(), _mm256_add_pd(lo, hi)) };
    let mut s = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    for &x in tail {
        s += x as f64;
    }
    s
}

/// [`sum_run`] of f32 on AVX-512F: eight 8-wide accumulators.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn avx512_f32(xs: &[f32]) -> f64 {
    use std::arch::x86_64::*;
    let chunks = xs.chunks_exact(64);
    let tail = chunks.remainder();
    let mut acc = [_mm512_setzero_pd(); 8];
    for c in chunks {
        for (k, a) in acc.iter_mut().enumerate() {
            // SAFETY: `c` holds 64 elements, so `c[8k..8k + 8]` is in bounds; the load
            // is unaligned.
            let v = unsafe { _mm256_loadu_ps(c.as_ptr().add(8 * k)) };
            *a = _mm512_add_pd(*a, _mm512_cvtps_pd(v));
        }
    }
    // The tail in two registers and one masked load: indexing `acc` by a loop
    // counter kept all eight accumulators in memory (a third of a 1,000-element sum).
    let [a0, a1, a2, a3, a4, a5, a6, a7] = acc;
    let (mut lo, mut hi) = (
        _mm512_add_pd(_mm512_add_pd(a0, a4), _mm512_add_pd(a2, a6)),
        _mm512_add_pd(_mm512_add_pd(a1, a5), _mm512_add_pd(a3, a7)),
    );
    let rest = tail.chunks_exact(16);
    let tail = rest.remainder();
    for c in rest {
        // SAFETY: `c` holds 16 elements; the loads are unaligned.
        let (u, v) = unsafe {
            (
                _mm256_loadu_ps(c.as_ptr()),
                _mm256_loadu_ps(c.as_ptr().add(8)),
            )
        };
        lo = _mm512_add_pd(lo, _mm512_cvtps_pd(u));
        hi = _mm512_add_pd(hi, _mm512_cvtps_pd(v));
    }
    if !tail.is_empty() {
        // SAFETY: the mask selects the `tail.len() < 16` elements that exist; masked-off
        // lanes are not read (no fault) and count as +0.0, which changes no sum (the
        // accumulators start at +0.0).
        let v = unsafe { _mm512_maskz_loadu_ps((1u16 << tail.len()) - 1, tail.as_ptr()) };
        let v = _mm512_castps_pd(v);
        lo = _mm512_add_pd(
            lo,
            _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_castpd512_pd256(v))),
        );
        hi = _mm512_add_pd(
            hi,
            _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd::<1>(v))),
        );
    }
    _mm512_reduce_add_pd(_mm512_add_pd(lo, hi))
}

widest! {
    /// `accs[k] += Σ_j src[start + j · stride + k]` over `count` rows, widened to f64 and
    /// added four rows at a time, `(a + b) + (c + d)`, so a column sum touches its accumulators
    /// once per four rows; in one call at the CPU's widest vectors (the default x86-64 target
    /// has only SSE2; a narrow strip, such as axis 0 of `(131072, 8)`, paid a call per four
    /// rows before).
    pub fn sum_rows<T: Element>(accs: &mut [f64], src: &[T], start: isize, stride: isize, count: usize) = sum_rows_body
}

#[inline(always)]
fn sum_rows_body<T: Element>(
    accs: &mut [f64],
    src: &[T],
    start: isize,
    stride: isize,
    count: usize,
) {
    let n = accs.len();
    let row = |j: usize| {
        let at = (start + j as isize * stride) as usize;
        &src[at..at + n]
    };
    let mut j = 0;
    while j + 4 <= count {
        let (a, b, c, d) = (row(j), row(j + 1), row(j + 2), row(j + 3));
        for k in 0..n {
            accs[k] += (a[k].to_f64() + b[k].to_f64()) + (c[k].to_f64() + d[k].to_f64());
        }
        j += 4;
    }
    for j in j..count {
        for (acc, x) in accs.iter_mut().zip(row(j)) {
            *acc += x.to_f64();
        }
    }
}

// The strip bookkeeping of `reduce`'s column path, outside the generic function: a
// `flat_map` there was instantiated per element type and reducer (its `size_hint` alone was
// 56 K lines of IR).

/// The output runs `(offset, stride, len)` cut into strips `(offset, len)` of at most `strip`.
fn strips_of(runs: &[(isize, isize, usize)], strip: usize) -> Vec<(isize, usize)> {
    let mut out = Vec::new();
    for &(o, _, len) in runs {
        for k in (0..len).step_by(strip) {
            out.push((o + k as isize, strip.min(len - k)));
        }
    }
    out
}

/// Every strip paired with every band index, strip-major.
fn strips_by_band(strips: &[(isize, usize)], bands: usize) -> Vec<((isize, usize), usize)> {
    let mut out = Vec::with_capacity(strips.len().saturating_mul(bands));
    for &s in strips {
        out.extend((0..bands).map(|b| (s, b)));
    }
    out
}

#[cfg(test)]
mod tests {
    /// Every length around the vector widths and the tails, with values whose f64 sum is exact.
    #[test]
    fn sum_run_every_length_and_tail() {
        let xs: Vec<f32> = (0..600).map(|i| ((i * 37) % 101) as f32 - 50.25).collect();
        for n in 0..xs.len() {
            let want: f64 = xs[..n].iter().map(|&x| x as f64).sum();
            assert_eq!(super::sum_run(&xs[..n]), want, "f32, n = {n}");
            let ys: Vec<f64> = xs[..n].iter().map(|&x| x as f64).collect();
            assert_eq!(super::sum_run(&ys), want, "f64, n = {n}");
        }
        // An unaligned start.
        assert_eq!(
            super::sum_run(&xs[3..203]),
            xs[3..203].iter().map(|&x| x as f64).sum::<f64>()
        );
    }

    /// Both vector variants, whichever one `sum_run` picks on this CPU, at every length and
    /// start, with a NaN and infinities in the tails.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn sum_f32_vector_variants() {
        let xs: Vec<f32> = (0..700).map(|i| ((i * 37) % 101) as f32 - 50.25).collect();
        let want = |v: &[f32]| v.iter().map(|&x| x as f64).sum::<f64>();
        type Variant = unsafe fn(&[f32]) -> f64;
        let mut variants: Vec<(&str, Variant)> = Vec::new();
        if std::arch::is_x86_feature_detected!("avx2") {
            variants.push(("avx2", super::avx2_f32));
        }
        if std::arch::is_x86_feature_detected!("avx512f") {
            variants.push(("avx512", super::avx512_f32));
        }
        for (name, f) in variants {
            for start in [0, 1, 5] {
                for n in 0..xs.len() - start {
                    let v = &xs[start..start + n];
                    // SAFETY: the CPU has the variant's features, checked above.
                    assert_eq!(unsafe { f(v) }, want(v), "{name}, start {start}, n = {n}");
                }
            }
            let mut v = xs[..203].to_vec();
            v[201] = f32::INFINITY;
            // SAFETY: as above.
            assert_eq!(unsafe { f(&v) }, f64::INFINITY, "{name}");
            v[200] = f32::NEG_INFINITY;
            // SAFETY: as above.
            assert!(unsafe { f(&v) }.is_nan(), "{name}");
            v[200] = f32::NAN;
            // SAFETY: as above.
            assert!(unsafe { f(&v) }.is_nan(), "{name}");
        }
    }
}
