//! Sorting along an axis (`Backend::argsort`) and the `k` largest (`Backend::topk`): the axis
//! moved last and made contiguous, then each row ordered on its own, rows split across
//! threads. Both order (key, position) pairs of integers, where the key orders the values, so
//! an unstable sort gives the stable result and a selection of the first `k` gives what the
//! sort's first `k` would: NaN is the largest value (PyTorch), and equal values keep their
//! order along the axis.

use super::kernels::strided::{PAR_THRESHOLD, par_chunks};
use crate::device::{AlignedBuf, Cpu};
use crate::dtype::Element;
use crate::error::Result;
use crate::shape::{Layout, Shape};
use crate::tensor::{Tensor, read};
use std::sync::Mutex;

/// A key whose integer order is the sort's order of values: ascending with NaN last (every NaN
/// one key, and -0 the key of +0, as they compare equal), or, for `descending`, its complement.
/// Floats go through `f64` (exact for every float type), integers through `i64`.
#[inline(always)]
fn key<T: Element>(v: T, descending: bool) -> u64 {
    let k = if T::DTYPE.is_float() {
        let f = v.to_f64();
        if f.is_nan() {
            u64::MAX
        } else {
            let bits = (f + 0.0).to_bits(); // -0 + 0 = +0
            // Negative: all bits flipped; otherwise the sign bit set. Branch-free, since a
            // branch on the sign of mixed-sign data mispredicts half the time.
            bits ^ ((bits as i64 >> 63) as u64 | 1 << 63)
        }
    } else {
        (v.to_i64() as u64) ^ 1 << 63
    };
    if descending { !k } else { k }
}

/// Up to this `k`, the first `k` of a longer row are kept in one pass (a sorted insertion
/// into `k` slots); beyond it, a selection then a sort of the `k`.
const SMALL_K: usize = 32;

/// The first `k` (`0 < k < row.len()`) `(key, position)` pairs of `row` in ascending order,
/// sorted, into `best` (whose capacity is at least `k`): each element is compared with the
/// worst kept one (a later position never beats an equal key), and the few that beat it are
/// inserted in place. Once `k` are kept, a block of 16 keys whose least does not beat the
/// worst kept one is skipped whole, so the common case is one branch per block.
#[inline(always)]
fn first_k<T: Element>(row: &[T], k: usize, best: &mut Vec<(u64, usize)>, descending: bool) {
    const BLOCK: usize = 16;
    #[inline(always)]
    fn offer(best: &mut Vec<(u64, usize)>, k: usize, e: (u64, usize)) {
        if best.len() == k {
            if e.0 >= best[k - 1].0 {
                return;
            }
            best.pop();
        }
        let at = best.partition_point(|b| *b < e);
        best.insert(at, e);
    }
    best.clear();
    let mut blocks = row.chunks_exact(BLOCK);
    for (b, block) in (&mut blocks).enumerate() {
        let mut keys = [0u64; BLOCK];
        for (key_, &v) in keys.iter_mut().zip(block) {
            *key_ = key(v, descending);
        }
        if best.len() == k && keys.iter().fold(u64::MAX, |a, &x| a.min(x)) >= best[k - 1].0 {
            continue;
        }
        for (j, &key_) in keys.iter().enumerate() {
            offer(best, k, (key_, b * BLOCK + j));
        }
    }
    let done = row.len() - blocks.remainder().len();
    for (j, &v) in blocks.remainder().iter().enumerate() {
        offer(best, k, (key(v, descending), done + j));
    }
}

/// The positions of the first `k` elements of each row of `x` along `ax` in the order above
/// (`k` = the axis length: argsort), as `x`'s shape with axis `ax` of length `k`.
pub(super) fn sorted_positions<T: Element>(
    x: &Tensor<T, Cpu>,
    ax: usize,
    k: usize,
    descending: bool,
) -> Result<Tensor<i64, Cpu>> {
    let len = x.dims()[ax];
    let work = len.saturating_mul(len.max(2).ilog2() as usize);
    per_row(x, ax, k, work, &|_, row, pairs, dst| {
        if k <= SMALL_K && k < len {
            // A few of many: one pass keeping the best `k` sorted.
            first_k(row, k, pairs, descending);
            for (d, &(_, p)) in dst.iter_mut().zip(pairs.iter()) {
                *d = p as i64;
            }
            return;
        }
        pairs.clear();
        pairs.extend(row.iter().map(|&v| key(v, descending)).zip(0..));
        // (key, position) pairs are distinct: unstable = stable here.
        if k < len {
            pairs.select_nth_unstable(k);
        }
        let first = &mut pairs[..k];
        first.sort_unstable();
        for (d, &(_, p)) in dst.iter_mut().zip(first.iter()) {
            *d = p as i64;
        }
    })
}

/// The position of each row's element of rank `rank[row]` (from 0) in the ascending order
/// above, by one selection per row (`Backend::argselect`); `rank` has `x`'s shape with axis
/// `ax` of length 1, and so has the result. A rank outside the row is an `Index` error.
pub(super) fn selected_positions<T: Element>(
    x: &Tensor<T, Cpu>,
    ax: usize,
    rank: &Tensor<i64, Cpu>,
) -> Result<Tensor<i64, Cpu>> {
    let len = x.dims()[ax];
    let nd = x.ndim();
    let mut perm: Vec<usize> = (0..nd).filter(|&i| i != ax).collect();
    perm.push(ax);
    // The ranks in the rows' order (the axis moved last, as `per_row` moves `x`'s).
    let ranks = rank.permute_usize(&perm)?.try_to_vec()?;
    if let Some(&r) = ranks.iter().find(|&&r| !(0..len as i64).contains(&r)) {
        return Err(crate::Error::Index {
            op: "argselect",
            index: r,
            dim: ax,
            size: len,
            shape: x.shape().clone(),
        });
    }
    per_row(x, ax, 1, len, &|r, row, pairs, dst| {
        pairs.clear();
        pairs.extend(row.iter().map(|&v| key(v, false)).zip(0..));
        let (_, &mut (_, p), _) = pairs.select_nth_unstable(ranks[r] as usize);
        dst[0] = p as i64;
    })
}

/// One result row of `k` positions per row of `x` along `ax`: the axis moved last and made
/// contiguous, `f(row index, row, scratch pairs, result row)` on each, rows split across
/// threads by `work` (the comparisons per row), the result's axis moved back to `ax`.
#[allow(clippy::type_complexity)]
fn per_row<T: Element>(
    x: &Tensor<T, Cpu>,
    ax: usize,
    k: usize,
    work: usize,
    f: &(dyn Fn(usize, &[T], &mut Vec<(u64, usize)>, &mut [i64]) + Sync),
) -> Result<Tensor<i64, Cpu>> {
    const OP: &str = "argsort";
    let nd = x.ndim();
    let mut perm: Vec<usize> = (0..nd).filter(|&i| i != ax).collect();
    perm.push(ax);
    let moved = x.permute_usize(&perm)?.try_contiguous()?;
    let len = x.dims()[ax];
    let mut dims = moved.dims().to_vec();
    dims[nd - 1] = k;
    let shape = Shape::new(dims);
    let mut out = AlignedBuf::<i64>::for_overwrite(OP, shape.checked_numel(OP, 8)?)?;
    if !out.is_empty() {
        let g = read(OP, &moved.storage)?;
        let src = &g[moved.layout.offset..moved.layout.offset + moved.numel()];
        // Whole rows per chunk; about PAR_THRESHOLD comparisons' worth of rows per thread.
        let rows = (PAR_THRESHOLD / work.max(1)).max(1);
        // Each thread's row of pairs, allocated fallibly: a refusal is reported after the
        // walk (the output is then discarded).
        let refused = Mutex::new(None);
        par_chunks(&mut out, rows.saturating_mul(k), &|start, chunk| {
            let mut pairs: Vec<(u64, usize)> = match crate::alloc::with_capacity(OP, len) {
                Ok(v) => v,
                Err(e) => return *refused.lock().unwrap_or_else(|p| p.into_inner()) = Some(e),
            };
            for (r, dst) in chunk.chunks_mut(k).enumerate() {
                let at = start / k + r;
                f(at, &src[at * len..][..len], &mut pairs, dst);
            }
        });
        if let Some(e) = refused.into_inner().unwrap_or_else(|p| p.into_inner()) {
            return Err(e);
        }
    }
    let sorted = Tensor::from_buf_layout(out, Layout::contiguous(shape));
    let mut inv = vec![0usize; nd];
    for (i, &p) in perm.iter().enumerate() {
        inv[p] = i;
    }
    if ax + 1 == nd {
        return Ok(sorted);
    }
    sorted.permute_usize(&inv)?.try_contiguous()
}
