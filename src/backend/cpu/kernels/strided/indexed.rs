//! The indexed reads and writes behind `gather`, `index_select` and `scatter_add`: one walk over
//! the index's positions that resolves each index value and moves the element it names, with
//! no list of positions built first and no copy of a strided source.

use super::{PAR_THRESHOLD, Plan, at, chunk_len, par_out_from};
use crate::dtype::Element;
use crate::shape::Layout;
use rayon::prelude::*;
use std::sync::Mutex;

/// The indexed side of a gather or scatter: `base` is its layout over the index's shape with
/// stride 0 on the indexed axis (so it walks the other coordinates), `step` its stride along
/// that axis and `size` the axis's length.
pub struct Indexed<'a> {
    pub base: &'a Layout,
    pub step: isize,
    pub size: usize,
}

/// The element an index value names along an axis of `size` (a negative one counts from the
/// end), or `None` outside `-size..size`.
#[inline(always)]
fn resolve(i: i64, size: usize) -> Option<usize> {
    let Ok(n) = i64::try_from(size) else {
        // An axis longer than i64::MAX (a broadcast view): every non-negative index fits.
        return usize::try_from(i).ok();
    };
    // In range, `i + n` cannot overflow for a negative `i`.
    let j = if i < 0 { i + n } else { i };
    (0 <= j && j < n).then_some(j as usize)
}

/// From this many elements a gather runs on the pool: an element costs about five of an
/// `add`'s (a resolved index and a random read), so the pool pays from an eighth of
/// [`PAR_THRESHOLD`] (f32 (1024, 64) from (1024, 1024): 43 µs on one thread, 26 on two).
const GATHER_PAR: usize = PAR_THRESHOLD / 4;

/// The first bad index in logical order: `(position, value)`.
type Bad = Option<(usize, i64)>;

fn note(bad: &Mutex<Bad>, pos: usize, i: i64) {
    let mut b = bad.lock().unwrap_or_else(|e| e.into_inner());
    if b.is_none_or(|(p, _)| pos < p) {
        *b = Some((pos, i));
    }
}

/// `out[p] = src[base(p) + index[p]·step]` for every logical position `p` of the index's layout
/// (PyTorch `gather`; `index_select` with its 1-d index broadcast over the output). Returns the
/// first position whose index is out of range, with the index; the output is zero there and
/// the caller discards it.
pub fn gather_into<T: Element>(
    src: &[T],
    at_src: &Indexed<'_>,
    (index, li): (&[i64], &Layout),
    out: &mut [T],
) -> Bad {
    let Indexed { base, step, size } = *at_src;
    let plan = Plan::new([base, li]);
    let bad = Mutex::new(None);
    par_out_from(out, GATHER_PAR, |start, chunk| {
        plan.for_runs(
            start,
            start + chunk.len(),
            |pos, [ob, oi], [sb, si], len| {
                let (size, step) = (size, step); // locals, not loads through the closure
                let d = &mut chunk[pos - start..pos - start + len];
                if si == 0 {
                    // One index for the whole run (an `index_select` row): checked once, then a
                    // strided copy.
                    let Some(k) = resolve(index[oi as usize], size) else {
                        d.fill(T::ZERO);
                        return note(&bad, pos, index[oi as usize]);
                    };
                    let o = ob + k as isize * step;
                    if sb == 1 {
                        d.copy_from_slice(&src[o as usize..o as usize + len]);
                    } else {
                        for (j, v) in d.iter_mut().enumerate() {
                            *v = src[at(o, j, sb)];
                        }
                    }
                    return;
                }
                if (sb, si, step) == (0, 1, 1)
                    && let Some(line) = src.get(ob as usize..).and_then(|l| l.get(..size))
                {
                    // The commonest case, a contiguous line: one select and one compare per
                    // element (a negative index past the start wraps to a huge `k`).
                    let n = size as i64; // a slice's length fits
                    let ix = &index[oi as usize..][..len];
                    for (j, (v, &i)) in d.iter_mut().zip(ix).enumerate() {
                        let k = if i < 0 { i + n } else { i } as usize;
                        match line.get(k) {
                            Some(&x) => *v = x,
                            None => {
                                *v = T::ZERO;
                                note(&bad, pos + j, i);
                            }
                        }
                    }
                    return;
                }
                if (sb, si) == (0, 1) {
                    // One source line, the index packed along the run.
                    let ix = &index[oi as usize..][..len];
                    for (j, (v, &i)) in d.iter_mut().zip(ix).enumerate() {
                        match resolve(i, size) {
                            Some(k) => *v = src[(ob + k as isize * step) as usize],
                            None => {
                                *v = T::ZERO;
                                note(&bad, pos + j, i);
                            }
                        }
                    }
                    return;
                }
                for (j, v) in d.iter_mut().enumerate() {
                    let i = index[at(oi, j, si)];
                    match resolve(i, size) {
                        Some(k) => *v = src[at(ob + k as isize * step, j, sb)],
                        None => {
                            *v = T::ZERO;
                            note(&bad, pos + j, i);
                        }
                    }
                }
            },
        )
    });
    bad.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// `dst[base(p) + index[p]·step] = f(that element, src[p])` for every logical position `p` of
/// the index's layout; repeated indices accumulate in logical order. Two positions name one
/// element only when they differ on the indexed axis alone, so with another axis first the
/// threads take whole rows of it (and of the contiguous `dst`); an index along axis 0 runs on
/// one thread. Returns the first out-of-range index in logical order with its position; `dst`
/// is then partly written and the caller discards it.
pub fn scatter_into<T: Element>(
    dst: &mut [T],
    at_dst: &Indexed<'_>,
    (index, li): (&[i64], &Layout),
    (src, ls): (&[T], &Layout),
    f: impl Fn(T, T) -> T + Sync,
) -> Bad {
    let Indexed { base, step, size } = *at_dst;
    let plan = Plan::new([base, li, ls]);
    let bad = Mutex::new(None);
    // Positions `start..end`, whose `dst` offsets lie in `part`, which starts at `dst[shift]`.
    let run = |part: &mut [T], shift: isize, start: usize, end: usize| {
        plan.for_runs(start, end, |pos, [ob, oi, os], [sb, si, ss], len| {
            let (size, step) = (size, step); // locals, not loads through the closure each time
            if (sb, si, ss) == (0, 1, 1) {
                // The common case: one `dst` line, the index and `src` packed along the run.
                let line = ob - shift;
                let (ix, sx) = (&index[oi as usize..][..len], &src[os as usize..][..len]);
                for (j, (&i, &x)) in ix.iter().zip(sx).enumerate() {
                    let Some(k) = resolve(i, size) else {
                        return note(&bad, pos + j, i);
                    };
                    let o = (line + k as isize * step) as usize;
                    part[o] = f(part[o], x);
                }
                return;
            }
            for j in 0..len {
                let i = index[at(oi, j, si)];
                let Some(k) = resolve(i, size) else {
                    return note(&bad, pos + j, i);
                };
                let o = at(ob - shift + k as isize * step, j, sb);
                part[o] = f(part[o], src[at(os, j, ss)]);
            }
        })
    };
    let n = li.shape.numel();
    let dims = li.shape.dims();
    // Contiguous `dst` with the index on another axis: `base.strides[0]` is a `dst` row.
    let (rows, dst_row) = (dims.first().copied().unwrap_or(0), base.strides.first());
    match dst_row {
        Some(&dst_row) if n >= PAR_THRESHOLD && dst_row > 0 && rows > 1 => {
            let (dst_row, idx_row) = (dst_row as usize, n / rows);
            let per = chunk_len(n).div_ceil(idx_row);
            dst.par_chunks_mut(per * dst_row)
                .enumerate()
                .for_each(|(c, part)| {
                    let r0 = (c * per).min(rows);
                    let r1 = (r0 + per).min(rows);
                    run(part, (r0 * dst_row) as isize, r0 * idx_row, r1 * idx_row);
                });
        }
        _ => run(dst, 0, 0, n),
    }
    bad.into_inner().unwrap_or_else(|e| e.into_inner())
}
