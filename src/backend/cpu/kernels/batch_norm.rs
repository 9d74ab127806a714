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
    if ch.s < SHORT_RUN {
        let sums = ch.by_position(x, x, &vec![0.0; ch.c], false);
        let means: Vec<f64> = sums.iter().map(|s| s[0] / count).collect();
        let squares = ch.by_position(x, x, &means, true);
        return (means.iter().zip(squares))
            .map(|(&m, s)| [m, s[1] / count])
            .collect();
    }
    ch.each(x.len(), |c| {
        let mean = ch.runs(x, c).map(sum_run).sum::<f64>() / count;
        let squares = ch.runs(x, c).map(|r| centred_widest(r, r, mean, true)[1]);
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
    if ch.s < SHORT_RUN {
        return ch.by_position(g, x, means, false);
    }
    ch.each(x.len(), |c| {
        (ch.runs(g, c).zip(ch.runs(x, c)))
            .map(|(g, x)| centred_widest(g, x, means[c], false))
            .fold([0.0, 0.0], |a, s| [a[0] + s[0], a[1] + s[1]])
    })
}

/// Runs shorter than this (`(N, C)` of `BatchNorm1d`, small feature maps) are summed by
/// position over the batch, in memory order, rather than run by run.
const SHORT_RUN: usize = 64;

impl Channels {
    /// Each channel's `[Σ g, Σ g · (x - mean)]` (f64; with `squares`, `[Σ g, Σ (x - mean)²]`)
    /// with `means` per channel, summed by position: every row of `c · s` elements (one batch entry) is added into per-position
    /// sums, blocks of positions across threads, each position in row order; then each
    /// channel's `s` positions in order. Any thread count gives the same bits.
    fn by_position<F: Wide>(self, g: &[F], x: &[F], means: &[f64], squares: bool) -> Vec<[f64; 2]> {
        let width = self.c * self.s;
        let mean: Vec<f64> = (0..width).map(|j| means[j / self.s]).collect();
        let (mut sg, mut sp) = (vec![0f64; width], vec![0f64; width]);
        // Blocks of whole cache lines, about four per thread where the input is large.
        let block = match x.len() < PAR_THRESHOLD {
            true => width,
            false => width
                .div_ceil(rayon::current_num_threads() * 4)
                .next_multiple_of(16),
        };
        (sg.par_chunks_mut(block).zip(sp.par_chunks_mut(block)))
            .enumerate()
            .for_each(|(i, (sg, sp))| {
                let j0 = i * block;
                by_position_widest(g, x, (j0, width, squares), &mean[j0..j0 + sg.len()], sg, sp);
            });
        (0..self.c)
            .map(|c| {
                let run = c * self.s..(c + 1) * self.s;
                [sg[run.clone()].iter().sum(), sp[run].iter().sum()]
            })
            .collect()
    }
}

widest! {
    /// [`by_position`] at the CPU's widest vectors.
    fn by_position_widest<F: Wide>(g: &[F], x: &[F], at: (usize, usize, bool), mean: &[f64], sg: &mut [f64], sp: &mut [f64]) = by_position
}

/// `sg[k] += g[n][j0 + k]` and `sp[k] += g[n][j0 + k] · (x[n][j0 + k] - mean[k])` (with
/// `squares`, `(x[n][j0 + k] - mean[k])²`) over every row `n` of `width` elements.
#[inline(always)]
fn by_position<F: Wide>(
    g: &[F],
    x: &[F],
    (j0, width, squares): (usize, usize, bool),
    mean: &[f64],
    sg: &mut [f64],
    sp: &mut [f64],
) {
    let cols = j0..j0 + sg.len();
    for (g, x) in g.chunks_exact(width).zip(x.chunks_exact(width)) {
        let (g, x) = (&g[cols.clone()], &x[cols.clone()]);
        for ((((sg, sp), &g), &x), &m) in sg.iter_mut().zip(sp.iter_mut()).zip(g).zip(x).zip(mean) {
            let centred = x.to_f64() - m;
            *sg += g.to_f64();
            let factor = if squares { centred } else { g.to_f64() };
            *sp += factor * centred;
        }
    }
}

/// The two element types the kernels are compiled for.
trait Wide: Element + Float {}
impl Wide for f32 {}
impl Wide for f64 {}

widest! {
    /// [`centred`] at the CPU's widest vectors.
    fn centred_widest<F: Wide>(g: &[F], x: &[F], mean: f64, squares: bool) -> [f64; 2] = centred
}

/// `[Σ g, Σ g · (x - mean)]` in f64, in eight independent lanes; with `squares`,
/// `[Σ g, Σ (x - mean)²]` (`g = x`: the sum and the centred squares).
#[inline(always)]
fn centred<F: Wide>(g: &[F], x: &[F], mean: f64, squares: bool) -> [f64; 2] {
    let (mut s, mut p) = ([0f64; 8], [0f64; 8]);
    let (cg, cx) = (g.chunks_exact(8), x.chunks_exact(8));
    let term = |g: F, x: F| {
        let centred = x.to_f64() - mean;
        let factor = if squares { centred } else { g.to_f64() };
        factor * centred
    };
    for (&g, &x) in cg.remainder().iter().zip(cx.remainder()) {
        s[0] += g.to_f64();
        p[0] += term(g, x);
    }
    for (g, x) in cg.zip(cx) {
        for k in 0..8 {
            s[k] += g[k].to_f64();
            p[k] += term(g[k], x[k]);
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
    /// one element per run and short runs (summed by position, in blocks of positions when
    /// large), long runs (channel by channel), and enough elements to split across tasks
    /// (tasks starting mid-batch, channels per task above one).
    #[test]
    fn sums_and_combine_match_plain_loops() {
        for (n, c, s) in [
            (5usize, 3usize, 1usize),
            (4, 2, 7),
            (3, 70, 700),
            (2000, 80, 1),
            (400, 30, 20),
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

    /// The variance is the mean of centred squares (two passes), not `Σ x (x - mean)`, which
    /// loses every digit beside a large offset: small integers on 1e12, both paths.
    #[test]
    fn variance_keeps_its_digits_beside_a_large_offset() {
        for (n, c, s) in [(64usize, 4usize, 3usize), (4, 2, 100)] {
            let x: Vec<f64> = (0..n * c * s).map(|i| 1e12 + (i % 7) as f64).collect();
            let ch = Channels { c, s };
            for (k, [mean, var]) in super::moments(&x, ch).into_iter().enumerate() {
                let vals: Vec<f64> = (0..x.len())
                    .filter(|i| i / s % c == k)
                    .map(|i| x[i] - 1e12)
                    .collect();
                let m = vals.iter().sum::<f64>() / vals.len() as f64;
                let v = vals.iter().map(|a| (a - m) * (a - m)).sum::<f64>() / vals.len() as f64;
                assert!(
                    (mean - 1e12 - m).abs() < 1e-3,
                    "({n}, {c}, {s}) mean {mean}"
                );
                assert!(
                    (var - v).abs() < 1e-6 * v,
                    "({n}, {c}, {s}) var {var} vs {v}"
                );
            }
        }
    }
}
