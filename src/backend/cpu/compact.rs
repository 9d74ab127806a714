//! Host kernels of ops whose result's size depends on the values, on all threads.
//! - `nonzero`: the coordinates written straight into the result. A first pass counts each
//!   block's non-zeros, so every block knows where its coordinates go; the second finds each
//!   block's positions branch-free (random masks would mispredict every other element).
//! - `masked_select`: the same two passes, the second copying each block's selected
//!   elements through a buffer a run at a time.
//! - `bincount`: one pass for the range, then per-thread histograms added together.

use rayon::prelude::*;

use crate::device::{AlignedBuf, Cpu};
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::{Tensor, read};

/// Elements per block of work.
const BLOCK: usize = 1 << 14;
/// Positions found at a time within a block.
const RUN: usize = 256;

/// The coordinates of the non-zero (true, non-`0`, NaN) elements of `x` in row-major order,
/// as a `(k, ndim)` tensor (`Tensor::nonzero`).
pub(crate) fn nonzero<T: Element>(x: &Tensor<T, Cpu>) -> Result<Tensor<i64, Cpu>> {
    const OP: &str = "nonzero";
    let x = x.try_contiguous()?;
    let g = read(OP, &x.storage)?;
    let values = &g[x.layout.offset..][..x.numel()];
    let dims = x.dims();
    let nd = dims.len();
    let counts: Vec<usize> = (values.par_chunks(BLOCK))
        .map(|b| b.iter().filter(|&&v| v != T::ZERO).count())
        .collect();
    let k: usize = counts.iter().sum();
    let shape = Shape::new(vec![k, nd]);
    let mut out = AlignedBuf::<i64>::for_overwrite(OP, shape.checked_numel(OP, 8)?)?;
    let mut parts = Vec::with_capacity(counts.len());
    let mut rest = &mut out[..];
    for &c in &counts {
        let (part, tail) = rest.split_at_mut(c * nd);
        parts.push(part);
        rest = tail;
    }
    let last = nd.checked_sub(1);
    (values.par_chunks(BLOCK).zip(parts).enumerate()).for_each(|(b, (block, dst))| {
        let mut at = [0u32; RUN + 1];
        let mut first = vec![0i64; nd];
        let mut w = 0;
        for (r, run) in block.chunks(RUN).enumerate() {
            // Every position is written, the count advances past the non-zeros only.
            let mut n = 0;
            for (j, &v) in run.iter().enumerate() {
                at[n] = j as u32;
                n += (v != T::ZERO) as usize;
            }
            // The run's first coordinates; a position in the same row differs in the last.
            let start = b * BLOCK + r * RUN;
            write_coords(start, dims, &mut first);
            for &j in &at[..n] {
                let d = &mut dst[w..w + nd];
                match last {
                    Some(l) if first[l] as usize + (j as usize) < dims[l] => {
                        for (o, &c) in d.iter_mut().zip(&first) {
                            *o = c;
                        }
                        d[l] += j as i64;
                    }
                    _ => write_coords(start + j as usize, dims, d),
                }
                w += nd;
            }
        }
    });
    drop(g);
    Ok(Tensor::from_buf(out, shape))
}

/// The row-major coordinates of flat position `i` in `dims`.
#[inline(always)]
fn write_coords(mut i: usize, dims: &[usize], dst: &mut [i64]) {
    match dims {
        [_] => dst[0] = i as i64,
        _ => {
            for (d, &n) in dst.iter_mut().zip(dims).rev() {
                *d = (i % n) as i64;
                i /= n;
            }
        }
    }
}

/// The elements of `x` where `mask` (of `x`'s shape) is true, in row-major order, 1-d
/// (`Backend::masked_select`).
pub(crate) fn masked_select<T: Element>(
    x: &Tensor<T, Cpu>,
    mask: &Tensor<bool, Cpu>,
) -> Result<Tensor<T, Cpu>> {
    const OP: &str = "masked_select";
    let (x, mask) = (x.try_contiguous()?, mask.try_contiguous()?);
    let (gx, gm) = (read(OP, &x.storage)?, read(OP, &mask.storage)?);
    let values = &gx[x.layout.offset..][..x.numel()];
    let keep = &gm[mask.layout.offset..][..mask.numel()];
    let counts: Vec<usize> = (keep.par_chunks(BLOCK))
        .map(|b| b.iter().filter(|&&m| m).count())
        .collect();
    let k: usize = counts.iter().sum();
    let mut out = AlignedBuf::<T>::for_overwrite(OP, k)?;
    let mut parts = Vec::with_capacity(counts.len());
    let mut rest = &mut out[..];
    for &c in &counts {
        let (part, tail) = rest.split_at_mut(c);
        parts.push(part);
        rest = tail;
    }
    let blocks = values.par_chunks(BLOCK).zip(keep.par_chunks(BLOCK));
    blocks.zip(parts).for_each(|((vb, kb), dst)| {
        let mut buf = [T::ZERO; RUN + 1];
        let mut w = 0;
        for (vr, kr) in vb.chunks(RUN).zip(kb.chunks(RUN)) {
            // Every element is written, the count advances past the selected ones only.
            let mut n = 0;
            for (&v, &m) in vr.iter().zip(kr) {
                buf[n] = v;
                n += m as usize;
            }
            dst[w..w + n].copy_from_slice(&buf[..n]);
            w += n;
        }
    });
    drop((gx, gm));
    Ok(Tensor::from_buf(out, Shape::new(vec![k])))
}

/// How often each value `0..=max` occurs in the 1-d `x`, with at least `minlength` bins
/// (`Tensor::bincount`).
pub(crate) fn bincount(x: &Tensor<i64, Cpu>, minlength: usize) -> Result<Tensor<i64, Cpu>> {
    const OP: &str = "bincount";
    let x = x.try_contiguous()?;
    let g = read(OP, &x.storage)?;
    let values = &g[x.layout.offset..][..x.numel()];
    let (lo, hi) = (values.par_chunks(BLOCK))
        .map(|b| {
            b.iter()
                .fold((0, -1), |(lo, hi), &v| (v.min(lo), v.max(hi)))
        })
        .reduce(|| (0, -1), |a, b| (a.0.min(b.0), a.1.max(b.1)));
    if lo < 0 {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!("the values must be non-negative, got {lo}"),
        });
    }
    // hi ≥ -1.
    let top = if hi < 0 {
        0
    } else {
        usize::try_from(hi as u64 + 1).unwrap_or(usize::MAX)
    };
    let bins = top.max(minlength);
    // More bins than the machine's memory holds: `OutOfMemory`, as for any allocation.
    crate::alloc::check_bytes(OP, bins.saturating_mul(8))?;
    let mut counts = AlignedBuf::<i64>::zeros(OP, bins)?;
    // A histogram per thread pays when the values outnumber the bins; otherwise one pass.
    let threads = rayon::current_num_threads();
    if threads > 1 && values.len() >= BLOCK && bins <= values.len() / (4 * threads) {
        let part = values.len().div_ceil(threads);
        let partial: Vec<Vec<i64>> = (values.par_chunks(part))
            .map(|p| {
                let mut c = vec![0i64; bins];
                p.iter().for_each(|&v| c[v as usize] += 1);
                c
            })
            .collect();
        for p in partial {
            counts.iter_mut().zip(p).for_each(|(c, n)| *c += n);
        }
    } else {
        values.iter().for_each(|&v| counts[v as usize] += 1);
    }
    Ok(Tensor::from_buf(counts, Shape::new(vec![bins])))
}
