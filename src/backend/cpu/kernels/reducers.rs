//! The CPU reductions' accumulators: one [`Reducer`] per family (float and integer sums and
//! products, min/max with their index, moments for var/std, mean, any/all), each with the
//! NaN rule of `ops::reduce`. The drivers in [`super::reduce`] run them over any layout.

use super::reduce::Reducer;
use crate::dtype::Element;

/// Float sum (or product) accumulated in f64, optionally skipping NaN.
pub(crate) struct FloatSumR {
    pub(crate) product: bool,
    pub(crate) skip_nan: bool,
}

impl<T: Element> Reducer<T> for FloatSumR {
    type Acc = f64;
    fn init(&self) -> f64 {
        if self.product { 1.0 } else { 0.0 }
    }
    #[inline(always)]
    fn step(&self, f: f64, x: T, _: usize) -> f64 {
        if self.skip_nan && x.is_nan() {
            f
        } else if self.product {
            f * x.to_f64()
        } else {
            f + x.to_f64()
        }
    }
    fn merge(&self, a: f64, b: f64) -> f64 {
        if self.product { a * b } else { a + b }
    }
    #[inline]
    fn step_strip(&self, accs: &mut [f64], xs: &[T], _: usize) {
        if self.product || self.skip_nan {
            for (a, &x) in accs.iter_mut().zip(xs) {
                *a = self.step(*a, x, 0);
            }
        } else {
            for (a, &x) in accs.iter_mut().zip(xs) {
                *a += x.to_f64();
            }
        }
    }
    #[inline]
    fn step_rows(&self, accs: &mut [f64], src: &[T], at: (isize, isize), count: usize, i: usize) {
        if self.product || self.skip_nan {
            let len = accs.len();
            for j in 0..count {
                let o = (at.0 + j as isize * at.1) as usize;
                Reducer::<T>::step_strip(self, accs, &src[o..o + len], i + j);
            }
        } else {
            super::reduce::sum_rows(accs, src, at.0, at.1, count);
        }
    }
    #[inline]
    fn run(&self, acc: f64, xs: &[T], _: usize) -> f64 {
        if self.product {
            return acc * self.product_run(xs);
        }
        if self.skip_nan {
            return xs.iter().fold(acc, |a, &x| self.step(a, x, 0));
        }
        acc + super::reduce::sum_run(xs)
    }
}

impl FloatSumR {
    /// The product (NaNs skipped where `skip_nan`) of a contiguous run in 32 f64 lanes (four
    /// vectors), then the lanes multiplied together: one serial chain of multiplications waited
    /// four cycles per element (`prod` over rows ran at a tenth of PyTorch's speed). Like
    /// PyTorch's vectorised `prod`, the order differs from a left-to-right fold only in the f64
    /// rounding.
    #[inline(always)]
    fn product_run<T: Element>(&self, xs: &[T]) -> f64 {
        const L: usize = 32;
        let value = |x: T| {
            let v = x.to_f64();
            if self.skip_nan && v.is_nan() { 1.0 } else { v }
        };
        let mut lanes = [1.0f64; L];
        let chunks = xs.chunks_exact(L);
        let tail = chunks.remainder();
        for c in chunks {
            for (a, &x) in lanes.iter_mut().zip(c) {
                *a *= value(x);
            }
        }
        let p = tail.iter().fold(1.0, |p, &x| p * value(x));
        lanes.iter().fold(p, |a, &l| a * l)
    }
}

/// Integer and bool sum (or product) in i64, wrapping like NumPy.
pub(crate) struct IntSumR {
    pub(crate) product: bool,
}

impl<T: Element> Reducer<T> for IntSumR {
    type Acc = i64;
    fn init(&self) -> i64 {
        if self.product { 1 } else { 0 }
    }
    #[inline(always)]
    fn step(&self, a: i64, x: T, _: usize) -> i64 {
        if self.product {
            a.wrapping_mul(x.to_i64())
        } else {
            a.wrapping_add(x.to_i64())
        }
    }
    fn merge(&self, a: i64, b: i64) -> i64 {
        if self.product {
            a.wrapping_mul(b)
        } else {
            a.wrapping_add(b)
        }
    }
}

/// Best value with its block index: min or max, NaN sticky (or skipped), first occurrence wins.
pub(crate) struct ExtremeR {
    pub(crate) max: bool,
    pub(crate) skip_nan: bool,
    /// Whether the index is wanted (`argmax`): a contiguous run's is then found by a second
    /// pass for the first element equal to the lanes' extreme.
    pub(crate) index: bool,
}

/// Lanes of [`ExtremeR`]'s vectorised run (one AVX-512 register of f32).
const LANES: usize = 16;

impl ExtremeR {
    #[inline(always)]
    fn better<T: Element>(&self, x: T, b: T) -> bool {
        if self.max { x > b } else { x < b }
    }
}

impl<T: Element> Reducer<T> for ExtremeR {
    type Acc = Option<(T, usize)>;
    fn init(&self) -> Self::Acc {
        None
    }
    #[inline(always)]
    fn step(&self, acc: Self::Acc, x: T, i: usize) -> Self::Acc {
        if x.is_nan() && self.skip_nan {
            return acc;
        }
        match acc {
            None => Some((x, i)),
            Some((b, _)) if b.is_nan() => acc,
            Some(_) if x.is_nan() => Some((x, i)),
            Some((b, _)) if self.better(x, b) => Some((x, i)),
            _ => acc,
        }
    }
    /// The value-only fold of a contiguous run: sixteen lanes of branch-free selects and NaN
    /// flags, which LLVM turns into vector compares and blends, then the lanes folded. A NaN
    /// anywhere makes the run's result its first NaN, as the element-wise fold gives; of
    /// equal values (±0) the lanes may keep another than the first, so with the index wanted
    /// the first equal element is looked up.
    #[inline]
    fn run(&self, acc: Self::Acc, xs: &[T], i0: usize) -> Self::Acc {
        if self.skip_nan || xs.len() < 2 * LANES {
            let mut acc = acc;
            for (j, &x) in xs.iter().enumerate() {
                acc = self.step(acc, x, i0 + j);
            }
            return acc;
        }
        let (best, nan) = extreme_widest(xs, self.max);
        let tail = &xs[xs.len() / LANES * LANES..];
        if nan || tail.iter().any(|x| x.is_nan()) {
            let j = xs.iter().position(|x| x.is_nan()).expect("a NaN was seen");
            return self.merge(acc, Some((xs[j], i0 + j)));
        }
        let mut run = Some((best, i0));
        for &b in tail {
            run = self.step(run, b, i0);
        }
        if self.index {
            // The fold keeps the first element equal to the extreme (`==`, so ±0 alike).
            let best = run.expect("a non-empty run").0;
            let j = xs
                .iter()
                .position(|&x| x == best)
                .expect("the extreme is in the run");
            run = Some((xs[j], i0 + j));
        }
        self.merge(acc, run)
    }
    /// The value-only fold of whole rows (a column `max`): each column's best and a NaN flag
    /// in branch-free selects across the strip, then merged into the states; a flagged
    /// column takes its first NaN, as the element-wise fold gives.
    fn step_rows(
        &self,
        accs: &mut [Self::Acc],
        src: &[T],
        rows: (isize, isize),
        count: usize,
        i: usize,
    ) {
        let len = accs.len();
        let row = |j: usize| super::reduce::strip_row(src, rows, len, j);
        if self.index || self.skip_nan || count == 0 {
            for j in 0..count {
                self.step_strip(accs, row(j), i + j);
            }
            return;
        }
        let mut best = row(0).to_vec();
        let mut nan = vec![false; len];
        for j in 0..count {
            extreme_rows_widest(&mut best, &mut nan, row(j), self.max);
        }
        for (k, (acc, b)) in accs.iter_mut().zip(best).enumerate() {
            let b = match nan[k] {
                true => (0..count)
                    .map(|j| row(j)[k])
                    .find(|x| x.is_nan())
                    .expect("a NaN"),
                false => b,
            };
            *acc = self.merge(*acc, Some((b, i)));
        }
    }
    fn merge(&self, a: Self::Acc, b: Self::Acc) -> Self::Acc {
        match (a, b) {
            (None, b) => b,
            (a, None) => a,
            (Some((x, _)), _) if x.is_nan() => a,
            (_, Some((y, _))) if y.is_nan() => b,
            (Some((x, _)), Some((y, _))) => {
                if self.better(y, x) {
                    b
                } else {
                    a
                }
            }
        }
    }
}

widest! {
    /// [`extreme`] at the CPU's widest vectors (the SSE2 copy took four elements a step).
    fn extreme_widest<T: Element>(xs: &[T], max: bool) -> (T, bool) = extreme
}

/// The maximum (`max`) or minimum of `xs`'s whole blocks of [`LANES`] elements (`xs[0]` when
/// there are none), and whether a block held a NaN (the value is then meaningless): lane by
/// lane with branch-free selects and NaN flags, which LLVM turns into vector compares and
/// blends, then the lanes folded.
///
/// # Panics
/// When `xs` is empty (a caller bug).
#[inline(always)]
fn extreme<T: Element>(xs: &[T], max: bool) -> (T, bool) {
    // One loop per direction, each with its own comparison.
    if max {
        extreme_in::<T, true>(xs)
    } else {
        extreme_in::<T, false>(xs)
    }
}

#[inline(always)]
fn extreme_in<T: Element, const MAX: bool>(xs: &[T]) -> (T, bool) {
    let better = |x: T, b: T| if MAX { x > b } else { x < b };
    let mut best = [xs[0]; LANES];
    let mut nan = [false; LANES];
    for c in xs.chunks_exact(LANES) {
        for k in 0..LANES {
            let x = c[k];
            nan[k] |= x.is_nan();
            best[k] = if better(x, best[k]) { x } else { best[k] };
        }
    }
    let nan = nan.iter().any(|&n| n);
    // The lanes in a scalar chain: a pairwise fold here made LLVM split the loop's lanes
    // into 2-wide pieces.
    let mut b = best[0];
    for &x in &best[1..] {
        b = if better(x, b) { x } else { b };
    }
    (b, nan)
}

widest! {
    /// [`extreme_rows`] at the CPU's widest vectors.
    fn extreme_rows_widest<T: Element>(best: &mut [T], nan: &mut [bool], xs: &[T], max: bool) = extreme_rows
}

/// `best[k] = better(xs[k], best[k])` and `nan[k] |= xs[k] is NaN` across a row, in
/// branch-free selects (one loop per direction, each with its own comparison).
#[inline(always)]
fn extreme_rows<T: Element>(best: &mut [T], nan: &mut [bool], xs: &[T], max: bool) {
    let lanes = best.iter_mut().zip(nan.iter_mut()).zip(xs);
    if max {
        for ((b, n), &x) in lanes {
            *n |= x.is_nan();
            *b = if x > *b { x } else { *b };
        }
    } else {
        for ((b, n), &x) in lanes {
            *n |= x.is_nan();
            *b = if x < *b { x } else { *b };
        }
    }
}

/// Count, mean and sum of squared deviations (Welford, merged with Chan's formula), in f64.
pub(crate) struct MomentsR {
    pub(crate) skip_nan: bool,
}

impl<T: Element> Reducer<T> for MomentsR {
    type Acc = (f64, f64, f64);
    fn init(&self) -> Self::Acc {
        (0.0, 0.0, 0.0)
    }
    #[inline(always)]
    fn step(&self, (n, m, m2): Self::Acc, x: T, _: usize) -> Self::Acc {
        if self.skip_nan && x.is_nan() {
            return (n, m, m2);
        }
        let x = x.to_f64();
        let n1 = n + 1.0;
        let d = x - m;
        let m1 = m + d / n1;
        (n1, m1, m2 + d * (x - m1))
    }
    /// A contiguous run in two passes, its mean and then `Σ (x - mean)²` in vector lanes
    /// (Welford's division per element was a dependent chain: 2 ns an element), merged with
    /// Chan's formula. Two passes are at least as accurate as Welford's; a run whose f64 sum
    /// is not finite (an infinity, a NaN, an overflow) takes Welford's steps, whose running
    /// mean does not overflow.
    #[inline]
    fn run(&self, acc: Self::Acc, xs: &[T], i0: usize) -> Self::Acc {
        let mean = (!self.skip_nan && xs.len() >= 2)
            .then(|| super::reduce::sum_run(xs) / xs.len() as f64)
            .filter(|m| m.is_finite());
        let Some(mean) = mean else {
            let mut acc = acc;
            for (j, &x) in xs.iter().enumerate() {
                acc = self.step(acc, x, i0 + j);
            }
            return acc;
        };
        let m2 = super::moments::squared_deviations(xs, mean);
        Reducer::<T>::merge(self, acc, (xs.len() as f64, mean, m2))
    }
    fn merge(&self, a: Self::Acc, b: Self::Acc) -> Self::Acc {
        if a.0 == 0.0 {
            return b;
        }
        if b.0 == 0.0 {
            return a;
        }
        let n = a.0 + b.0;
        let d = b.1 - a.1;
        (n, a.1 + d * b.0 / n, a.2 + b.2 + d * d * a.0 * b.0 / n)
    }
}

/// Sum of squares in f64, each element widened before it is squared (exact for f32 and
/// narrower).
pub(crate) struct SquaresR;

impl<T: Element> Reducer<T> for SquaresR {
    type Acc = f64;
    fn init(&self) -> f64 {
        0.0
    }
    #[inline(always)]
    fn step(&self, a: f64, x: T, _: usize) -> f64 {
        let v = x.to_f64();
        a + v * v
    }
    fn merge(&self, a: f64, b: f64) -> f64 {
        a + b
    }
    #[inline]
    fn run(&self, acc: f64, xs: &[T], _: usize) -> f64 {
        acc + super::moments::squared_deviations(xs, 0.0)
    }
}

/// Mean as (sum, count) in f64.
pub(crate) struct MeanR {
    pub(crate) skip_nan: bool,
}

impl<T: Element> Reducer<T> for MeanR {
    type Acc = (f64, usize);
    fn init(&self) -> Self::Acc {
        (0.0, 0)
    }
    #[inline(always)]
    fn step(&self, (s, c): Self::Acc, x: T, _: usize) -> Self::Acc {
        if self.skip_nan && x.is_nan() {
            (s, c)
        } else {
            (s + x.to_f64(), c + 1)
        }
    }
    fn merge(&self, a: Self::Acc, b: Self::Acc) -> Self::Acc {
        (a.0 + b.0, a.1 + b.1)
    }
    #[inline]
    fn run(&self, acc: Self::Acc, xs: &[T], i0: usize) -> Self::Acc {
        if self.skip_nan || !T::DTYPE.is_float() {
            return xs.iter().fold(acc, |a, &x| self.step(a, x, 0));
        }
        let s = FloatSumR {
            product: false,
            skip_nan: false,
        }
        .run(acc.0, xs, i0);
        (s, acc.1 + xs.len())
    }
}

/// Truth reductions (NumPy's `any`/`all`: non-zero, including NaN, is true).
pub(crate) struct TruthR {
    pub(crate) all: bool,
}

impl<T: Element> Reducer<T> for TruthR {
    type Acc = bool;
    fn init(&self) -> bool {
        self.all
    }
    #[inline(always)]
    fn step(&self, acc: bool, x: T, _: usize) -> bool {
        if self.all {
            acc && x != T::ZERO
        } else {
            acc || x != T::ZERO
        }
    }
    fn merge(&self, a: bool, b: bool) -> bool {
        if self.all { a && b } else { a || b }
    }
}
