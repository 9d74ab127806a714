//! Padding by a rule on the existing elements (NumPy `pad` modes `reflect`, `symmetric`,
//! `edge`, `wrap`; PyTorch `F.pad` modes `reflect`, `replicate`, `circular`): one
//! `index_select` per padded axis, with the source index of every output position computed
//! on the host, so it runs and differentiates on every device. Constant padding is
//! [`Tensor::try_pad`].

use crate::backend::Backend;
use crate::dtype::Element;
use crate::error::{Error, OrPanic, Result};
use crate::tensor::Tensor;

/// How [`Tensor::try_pad_mode`] fills the padding, for an axis of length `n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadMode {
    /// Mirror at the edge without repeating it: `[a b c]` → `c b | a b c | b a` (NumPy and
    /// PyTorch `reflect`). An axis of length 1 repeats its element.
    Reflect,
    /// Mirror including the edge: `[a b c]` → `b a | a b c | c b` (NumPy `symmetric`).
    Symmetric,
    /// Repeat the edge: `a a | a b c | c c` (NumPy `edge`, PyTorch `replicate`).
    Replicate,
    /// Wrap around: `b c | a b c | a b` (NumPy `wrap`, PyTorch `circular`).
    Circular,
}

impl PadMode {
    /// The source index for position `i` (relative to the first element, so negative in the
    /// leading padding) of an axis of length `n > 0`. Pads longer than the axis repeat the
    /// pattern, as NumPy does.
    fn source(self, i: i64, n: i64) -> i64 {
        match self {
            PadMode::Replicate => i.clamp(0, n - 1),
            PadMode::Circular => i.rem_euclid(n),
            PadMode::Symmetric => {
                let j = i.rem_euclid(2 * n);
                if j < n { j } else { 2 * n - 1 - j }
            }
            PadMode::Reflect if n == 1 => 0,
            PadMode::Reflect => {
                let j = i.rem_euclid(2 * (n - 1));
                if j < n { j } else { 2 * (n - 1) - j }
            }
        }
    }
}

/// Consecutive padded positions with sources `start..start + len` (`Up`), `start` down to
/// `start - len + 1` (`Down`, given as its lowest source and length), or one source (`Same`).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Run {
    Up(i64, i64),
    Down(i64, i64),
    Same(i64, i64),
}

impl PadMode {
    /// The sources of an axis of `n` padded by `before` and `after` as at most 16 runs, or
    /// `None` (pads many times longer than the axis: the caller gathers by an index). Each
    /// run is found from its first position, so the work is the number of runs, not the pad.
    fn runs(self, n: i64, before: i64, after: i64) -> Option<Vec<Run>> {
        let mut runs = Vec::new();
        let walk = |from: i64, to: i64, runs: &mut Vec<Run>| -> Option<()> {
            let mut p = from;
            while p < to {
                let run = self.run_at(p, n, to - p);
                p += run.len();
                runs.push(run);
                if runs.len() > 16 {
                    return None;
                }
            }
            Some(())
        };
        walk(-before, 0, &mut runs)?;
        runs.push(Run::Up(0, n));
        walk(n, n + after, &mut runs)?;
        Some(runs)
    }

    /// The run of sources starting at padded position `p` (outside `0..n`), at most `most`
    /// long: the sources of `source` go up, down or stay until the pattern turns.
    fn run_at(self, p: i64, n: i64, most: i64) -> Run {
        let down = |start: i64, len: i64| {
            let len = len.min(most);
            Run::Down(start - len + 1, len)
        };
        match self {
            PadMode::Replicate => Run::Same(if p < 0 { 0 } else { n - 1 }, most),
            PadMode::Reflect if n == 1 => Run::Same(0, most),
            PadMode::Circular => {
                let s = p.rem_euclid(n);
                Run::Up(s, (n - s).min(most))
            }
            PadMode::Symmetric => {
                let j = p.rem_euclid(2 * n);
                if j < n {
                    Run::Up(j, (n - j).min(most))
                } else {
                    down(2 * n - 1 - j, 2 * n - j)
                }
            }
            PadMode::Reflect => {
                // Up through sources 0..n-1, then down through n-1..1.
                let j = p.rem_euclid(2 * (n - 1));
                if j < n - 1 {
                    Run::Up(j, (n - 1 - j).min(most))
                } else {
                    down(2 * (n - 1) - j, 2 * (n - 1) - j)
                }
            }
        }
    }
}

impl Run {
    /// The positions the run covers.
    fn len(self) -> i64 {
        match self {
            Run::Up(_, l) | Run::Down(_, l) | Run::Same(_, l) => l,
        }
    }
}

impl<T: Element, D: Backend> Tensor<T, D> {
    /// Pads by `mode` (see [`PadMode`]): `pads[i] = (before, after)` for dimension `i`, as in
    /// [`Tensor::try_pad`]; padding longer than the axis repeats the rule (NumPy; PyTorch
    /// refuses it). Differentiable: the gradient of each padded element goes back to its
    /// source.
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    /// use typed_tensor::ops::pad::PadMode;
    /// let t = Tensor::<i32>::from_vec(vec![1, 2, 3], [3])?;
    /// assert_eq!(t.try_pad_mode(&[(2, 2)], PadMode::Reflect)?.to_vec(), [3, 2, 1, 2, 3, 2, 1]);
    /// assert_eq!(t.try_pad_mode(&[(2, 2)], PadMode::Circular)?.to_vec(), [2, 3, 1, 2, 3, 1, 2]);
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` without one pair per dimension, or when an empty axis would be
    /// padded (there is nothing to copy); `ShapeOverflow` when a padded length overflows;
    /// `OutOfMemory` when the index or the output cannot be allocated.
    pub fn try_pad_mode(&self, pads: &[(usize, usize)], mode: PadMode) -> Result<Self> {
        const OP: &str = "pad_mode";
        if pads.len() != self.ndim() {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!(
                    "needs one (before, after) pair per dimension of {}, got {}",
                    self.shape(),
                    pads.len()
                ),
            });
        }
        if pads.iter().all(|&p| p == (0, 0)) {
            // Nothing to pad: still a new tensor, as `pad` returns.
            return self.try_pad(pads, T::from_f64(0.0));
        }
        let mut out = self.clone();
        for (axis, (&n, &(before, after))) in self.dims().iter().zip(pads).enumerate() {
            if before == 0 && after == 0 {
                continue;
            }
            if n == 0 {
                return Err(Error::InvalidArgument {
                    op: OP,
                    msg: format!(
                        "cannot pad axis {axis} of shape {} by {mode:?}: it is empty",
                        self.shape()
                    ),
                });
            }
            let overflow = || Error::ShapeOverflow {
                op: OP,
                dims: self.dims().to_vec(),
            };
            let len = n
                .checked_add(before)
                .and_then(|l| l.checked_add(after))
                .filter(|&l| i64::try_from(l).is_ok())
                .ok_or_else(overflow)?;
            let (n, before) = (n as i64, before as i64);
            if let Some(runs) = mode.runs(n, before, after as i64) {
                // A few runs of consecutive sources: views joined by one copy.
                let ax = axis as i64;
                let pieces = (runs.iter())
                    .map(|r| match *r {
                        Run::Up(start, len) => out.narrow(ax, start as usize, len as usize),
                        Run::Down(start, len) => {
                            out.narrow(ax, start as usize, len as usize)?.flip(&[ax])
                        }
                        Run::Same(at, len) => {
                            let mut dims = out.dims().to_vec();
                            dims[axis] = len as usize;
                            out.narrow(ax, at as usize, 1)?.expand(dims)
                        }
                    })
                    .collect::<Result<Vec<_>>>()?;
                out = Tensor::try_concat(&pieces.iter().collect::<Vec<_>>(), ax)?;
                continue;
            }
            let index = crate::alloc::collect(
                OP,
                len,
                (0..len as i64).map(|p| mode.source(p - before, n)),
            )?;
            let index = Tensor::<i64, D>::from_vec_on(index, [len], &self.device)?;
            out = out.try_index_select(axis as i64, &index)?;
        }
        Ok(out)
    }

    /// [`Tensor::try_pad_mode`], panicking with its error.
    ///
    /// # Panics
    /// When `try_pad_mode` returns an `Err`.
    #[track_caller]
    pub fn pad_mode(&self, pads: &[(usize, usize)], mode: PadMode) -> Self {
        self.try_pad_mode(pads, mode).or_panic()
    }
}
