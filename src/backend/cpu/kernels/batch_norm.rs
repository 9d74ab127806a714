//! Fused `batch_norm` in training (PyTorch's `batch_norm_cpu` and its backward) over an
//! `(N, C, S)` contiguous input: `C` channels of `S` contiguous elements, repeated over the
//! batch. Per-channel sums are in f64, one channel per task in a fixed order, so any thread
//! count gives the same bits; the element-wise pass splits the output across threads.
//! f32 and f64 only: each entry dispatches on the element type, so the bodies are compiled
//! for those two alone.

use super::convert::{same, same_mut};
use super::reduce::sum_run;
use super::strided::{PAR_THRESHOLD, par_chunks};
use crate::dtype::Element;
use num_traits::Float;
use rayon::prelude::*;

/// The layout: `c` channels of `s` contiguous elements each, repeated over the batch.
#[derive(Clone, Copy, Debug)]
pub struct Channels {
    pub c: usize,
    pub s: usize,
}

impl Channels {
    /// The runs of channel `ch` in `xs`, one per batch entry.
    fn runs<T>(self, xs: &[T], ch: usize) -> impl Iterator<Item = &[T]> {
        let run = ch * self.s..(ch + 1) * self.s;
        xs.chunks_exact(self.c * self.s)
            .map(move |b| &b[run.clone()])
    }

    /// `f(channel)` for every channel, across threads where there is enough to share.
    fn each<R: Send>(self, len: usize, f: impl Fn(usize) -> R + Sync + Send) -> Vec<R> {
        let per_channel = (len / self.c).max(1);
        let min = (PAR_THRESHOLD / per_channel).max(1);
        (0..self.c)
            .into_par_iter()
            .with_min_len(min)
            .map(f)
            .collect()
    }
}

/// Each channel's mean and biased variance (`[mean, var]`, f64) over its `len / c` elements
/// of `x`: the sum, then the centred squares (two passes, as `var` composes them).
///
/// # Panics
/// When `x.len()` is not a multiple of `c · s` or either is 0, or `T` is not f32 or f64 (a
/// caller bug).
pub fn moments<T: Element>(x: &[T], ch: Channels) -> Vec<[f64; 2]> {
    assert!(
        ch.c * ch.s > 0 && x.len().is_multiple_of(ch.c * ch.s),
        "batch_norm moments"
    );
    if let Some(x) = same::<T, f32>(x) {
        moments_of(x, ch)
    } else if let Some(x) = same::<T, f64>(x) {
        moments_of(x, ch)
    } else {
        unreachable!("batch_norm moments of {}", T::DTYPE)
    }
}

fn moments_of<F: Wide>(x: &[F], ch: Channels) -> Vec<[f64; 2]> {
    let count = (x.len() / ch.c) as f64;
    ch.each(x.len(), |c| {
        let mean = ch.runs(x, c).map(sum_run).sum::<f64>() / count;
        let squares = ch.runs(x, c).map(|r| centred_widest(r, r, mean)[1]);
        [mean, squares.sum::<f64>() / count]
    })
}

/// Each channel's `[Σ g, Σ g · (x - mean)]` (f64), `means` per channel: the sums the
/// backward pass needs (the bias's gradient, and the weight's times `1 / sd`).
///
/// # Panics
/// As [`moments`], or when `g` and `x` differ in length or `means` has not `c` entries.
pub fn grad_sums<T: Element>(g: &[T], x: &[T], ch: Channels, means: &[f64]) -> Vec<[f64; 2]> {
    assert!(
        ch.c * ch.s > 0
            && x.len().is_multiple_of(ch.c * ch.s)
            && g.len() == x.len()
            && means.len() == ch.c,
        "batch_norm grad_sums"
    );
    if let (Some(g), Some(x)) = (same::<T, f32>(g), same::<T, f32>(x)) {
        grad_sums_of(g, x, ch, means)
    } else if let (Some(g), Some(x)) = (same::<T, f64>(g), same::<T, f64>(x)) {
        grad_sums_of(g, x, ch, means)
    } else {
        unreachable!("batch_norm grad_sums of {}", T::DTYPE)
    }
}

fn grad_sums_of<F: Wide>(g: &[F], x: &[F], ch: Channels, means: &[f64]) -> Vec<[f64; 2]> {
    ch.each(x.len(), |c| {
        (ch.runs(g, c).zip(ch.runs(x, c)))
            .map(|(g, x)| centred_widest(g, x, means[c]))
            .fold([0.0, 0.0], |a, s| [a[0] + s[0], a[1] + s[1]])
    })
}

/// The two element types the kernels are compiled for.
trait Wide: Element + Float {}
impl Wide for f32 {}
impl Wide for f64 {}

widest! {
    /// [`centred`] at the CPU's widest vectors.
    fn centred_widest<F: Wide>(g: &[F], x: &[F], mean: f64) -> [f64; 2] = centred
}

/// `[Σ g, Σ g · (x - mean)]` in f64, in eight independent lanes (with `g = x`: the sum and
/// the centred squares).
#[inline(always)]
fn centred<F: Wide>(g: &[F], x: &[F], mean: f64) -> [f64; 2] {
    let (mut s, mut p) = ([0f64; 8], [0f64; 8]);
    let (cg, cx) = (g.chunks_exact(8), x.chunks_exact(8));
    for (&g, &x) in cg.remainder().iter().zip(cx.remainder()) {
        s[0] += g.to_f64();
        p[0] += g.to_f64() * (x.to_f64() - mean);
    }
    for (g, x) in cg.zip(cx) {
        for k in 0..8 {
            s[k] += g[k].to_f64();
            p[k] += g[k].to_f64() * (x[k].to_f64() - mean);
        }
    }
    [s.iter().sum(), p.iter().sum()]
}

/// `out = g · k[0] + x · k[1] + k[2]` with `k` the element's channel's coefficients (`coef`,
/// `c` of them, rounded to the element type): the forward's `x · (w / sd) + (b - mean · w /
/// sd)` (with `g = x` and `k[1] = 0`) and the backward's input gradient.
///
/// # Panics
/// When the lengths differ, are not a multiple of `c · s`, `coef` has not `c` entries, or
/// `T` is not f32 or f64 (a caller bug).
pub fn combine<T: Element>(g: &[T], x: &[T], ch: Channels, coef: &[[f64; 3]], out: &mut [T]) {
    assert!(
        ch.c * ch.s > 0
            && out.len().is_multiple_of(ch.c * ch.s)
            && g.len() == out.len()
            && x.len() == out.len()
            && coef.len() == ch.c,
        "batch_norm combine"
    );
    if let (Some(g), Some(x), Some(o)) = (same::<T, f32>(g), same::<T, f32>(x), same_mut(out)) {
        combine_of(g, x, ch, coef, o)
    } else if let (Some(g), Some(x), Some(o)) =
        (same::<T, f64>(g), same::<T, f64>(x), same_mut(out))
    {
        combine_of(g, x, ch, coef, o)
    } else {
        unreachable!("batch_norm combine of {}", T::DTYPE)
    }
}

fn combine_of<F: Wide>(g: &[F], x: &[F], ch: Channels, coef: &[[f64; 3]], out: &mut [F]) {
    let coef: Vec<[F; 3]> = coef.iter().map(|k| k.map(F::from_f64)).collect();
    // Tasks of whole runs (whole rows of channels when each run is one element).
    let unit = if ch.s == 1 { ch.c } else { ch.s };
    par_chunks(out, (PAR_THRESHOLD / unit).max(1) * unit, &|start, o| {
        let (g, x) = (&g[start..start + o.len()], &x[start..start + o.len()]);
        combine_widest(g, x, (start / ch.s) % ch.c, ch, &coef, o);
    });
}

widest! {
    /// [`combine_runs`] at the CPU's widest vectors.
    fn combine_widest<F: Wide>(g: &[F], x: &[F], first: usize, ch: Channels, coef: &[[F; 3]], out: &mut [F]) = combine_runs
}

/// [`combine`] over whole runs, the first of channel `first`.
#[inline(always)]
fn combine_runs<F: Wide>(
    g: &[F],
    x: &[F],
    first: usize,
    ch: Channels,
    coef: &[[F; 3]],
    out: &mut [F],
) {
    let at = |g: F, x: F, k: &[F; 3]| g * k[0] + x * k[1] + k[2];
    if ch.s == 1 {
        // (N, C): rows of one element per channel.
        for ((o, g), x) in out.chunks_mut(ch.c).zip(g.chunks(ch.c)).zip(x.chunks(ch.c)) {
            for (((o, &g), &x), k) in o.iter_mut().zip(g).zip(x).zip(coef) {
                *o = at(g, x, k);
            }
        }
        return;
    }
    let runs = out.chunks_mut(ch.s).zip(g.chunks(ch.s)).zip(x.chunks(ch.s));
    for (i, ((o, g), x)) in runs.enumerate() {
        let k = &coef[(first + i) % ch.c];
        for ((o, &g), &x) in o.iter_mut().zip(g).zip(x) {
            *o = at(g, x, k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Channels;

    /// Moments, gradient sums and the combined pass against plain f64 loops, on layouts of
    /// one element per run, short runs, and enough elements to split across tasks (tasks
    /// starting mid-batch, channels per task above one).
    #[test]
    fn sums_and_combine_match_plain_loops() {
        for (n, c, s) in [
            (5usize, 3usize, 1usize),
            (4, 2, 7),
            (3, 70, 700),
            (2000, 80, 1),
        ] {
            let ch = Channels { c, s };
            let len = n * c * s;
            let x: Vec<f64> = (0..len)
                .map(|i| ((i * 37 % 101) as f64 * 0.3).sin() + 2.0)
                .collect();
            let g: Vec<f64> = (0..len)
                .map(|i| ((i * 11 % 53) as f64 * 0.7).cos())
                .collect();
            let chan = |i: usize| i / s % c;
            let count = (n * s) as f64;
            let mut mean = vec![0f64; c];
            (0..len).for_each(|i| mean[chan(i)] += x[i] / count);
            let mut var = vec![0f64; c];
            (0..len).for_each(|i| var[chan(i)] += (x[i] - mean[chan(i)]).powi(2) / count);
            let (mut sg, mut sgx) = (vec![0f64; c], vec![0f64; c]);
            for i in 0..len {
                sg[chan(i)] += g[i];
                sgx[chan(i)] += g[i] * (x[i] - mean[chan(i)]);
            }
            let close = |a: f64, b: f64, what: &str| {
                assert!(
                    (a - b).abs() <= 1e-9 * (1.0 + b.abs()),
                    "{what} ({n}, {c}, {s}): {a} vs {b}"
                )
            };
            let m = super::moments(&x, ch);
            let gs = super::grad_sums(&g, &x, ch, &mean);
            for k in 0..c {
                close(m[k][0], mean[k], "mean");
                close(m[k][1], var[k], "var");
                close(gs[k][0], sg[k], "sum g");
                close(gs[k][1], sgx[k], "sum g (x - mean)");
            }
            let coef: Vec<[f64; 3]> = (0..c)
                .map(|k| [k as f64 + 0.5, 2.0 - k as f64, k as f64 * 3.0])
                .collect();
            let mut out = vec![0f64; len];
            super::combine(&g, &x, ch, &coef, &mut out);
            for i in 0..len {
                let k = coef[chan(i)];
                close(out[i], g[i] * k[0] + x[i] * k[1] + k[2], "combine");
            }
        }
    }
}
