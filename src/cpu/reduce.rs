//! The reduction driver: the reduced axes of a strided input form one block per output
//! element; blocks are walked as contiguous runs where the layout allows, outputs are split
//! across threads, and a single large block (a full reduction) is split into chunks whose
//! partial results are merged in order (so "first occurrence" stays first).

use super::strided::{PAR_THRESHOLD, Plan};
use crate::dtype::Element;
use crate::shape::{Layout, Shape};
use rayon::prelude::*;

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
    /// Folds a contiguous run starting at block index `i0`; override to vectorise.
    #[inline]
    fn run(&self, mut acc: Self::Acc, xs: &[T], i0: usize) -> Self::Acc {
        for (j, &x) in xs.iter().enumerate() {
            acc = self.step(acc, x, i0 + j);
        }
        acc
    }
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
    let n_out: usize = kd.iter().product();
    let blk: usize = rd.iter().product();
    let out_l = Layout {
        shape: Shape::new(kd.clone()),
        strides: ks,
        offset: l.offset,
    };
    let blk_l = Layout {
        shape: Shape::new(rd),
        strides: rs,
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
    if runs.first().is_some_and(|r| r.1 == 1 && r.2 >= 16) && blk > 1 {
        // The kept dimension is the contiguous one (a column reduction such as axis 0 of a
        // row-major matrix): fold whole rows into a strip of accumulators, which vectorises
        // and reads memory in order, instead of walking each column with a large stride.
        const STRIP: usize = 2048;
        let strips: Vec<(isize, usize)> = runs
            .iter()
            .flat_map(|&(o, _, len)| {
                (0..len)
                    .step_by(STRIP)
                    .map(move |k| (o + k as isize, STRIP.min(len - k)))
            })
            .collect();
        let fold_strip = |&(o, len): &(isize, usize)| -> Vec<R::Acc> {
            let mut acc = vec![r.init(); len];
            bplan.for_runs(0, blk, |pos, [ob], [sb], blen| {
                for j in 0..blen {
                    let start = (o + ob + j as isize * sb) as usize;
                    r.step_strip(&mut acc, &src[start..start + len], pos + j);
                }
            });
            acc
        };
        let parts: Vec<Vec<R::Acc>> = if n_out.saturating_mul(blk) < PAR_THRESHOLD {
            strips.iter().map(fold_strip).collect()
        } else {
            strips.par_iter().map(fold_strip).collect()
        };
        return (parts.concat(), kd, blk);
    }
    let mut bases = Vec::with_capacity(n_out);
    for &(o, s, len) in &runs {
        bases.extend((0..len).map(|j| o + j as isize * s));
    }
    let threads = rayon::current_num_threads();
    let accs: Vec<R::Acc> = if n_out.saturating_mul(blk) < PAR_THRESHOLD {
        bases.iter().map(|&b| fold(b, 0, blk, r.init())).collect()
    } else if n_out >= threads * 4 || blk < PAR_THRESHOLD {
        bases
            .par_iter()
            .with_min_len((PAR_THRESHOLD / blk.max(1)).max(1))
            .map(|&b| fold(b, 0, blk, r.init()))
            .collect()
    } else {
        let chunk = blk.div_ceil(threads * 4).max(PAR_THRESHOLD / 2);
        bases
            .iter()
            .map(|&b| {
                let parts: Vec<R::Acc> = (0..blk.div_ceil(chunk))
                    .into_par_iter()
                    .map(|c| fold(b, c * chunk, ((c + 1) * chunk).min(blk), r.init()))
                    .collect();
                parts.into_iter().fold(r.init(), |a, p| r.merge(a, p))
            })
            .collect()
    };
    (accs, kd, blk)
}

/// Inclusive scan along `axis` into a contiguous output of the same shape:
/// `out[.., i, ..] = f(out[.., i-1, ..], x[.., i, ..])`, starting from `init`.
pub fn scan<T: Element, O: Element>(
    src: &[T],
    l: &Layout,
    axis: usize,
    init: O,
    f: impl Fn(O, T) -> O + Sync,
) -> Vec<O> {
    let dims = l.shape.dims();
    let n = l.shape.numel();
    let mut out = vec![O::ZERO; n];
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
