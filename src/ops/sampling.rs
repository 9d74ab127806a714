//! Sampling from the global generator ([`crate::manual_seed`] makes it reproducible):
//! PyTorch's `multinomial`, `poisson`, `binomial` and its in-place distributions `exponential_`, `geometric_`,
//! `cauchy_`, `log_normal_` and `random_`.
//!
//! `multinomial` reads the weights to the host and draws there (one f64 uniform per sample,
//! or per category without replacement), so every device gives the same indices for the same
//! seed; the in-place fills transform f64 uniforms or normals on the tensor's device.
//!
//! ```
//! use typed_tensor::prelude::*;
//! manual_seed(3);
//! let p = Tensor::<f32>::from_vec(vec![0.0, 1.0, 3.0], [3])?; // weights, not normalised
//! let draws = p.multinomial(1000, true);
//! assert!(draws.to_vec().iter().all(|&i| i == 1 || i == 2)); // never the 0-weight class
//! let order = p.multinomial(3, false).to_vec(); // a permutation, 0-weight classes last
//! assert_eq!(order[2], 0);
//! let mut waits = Tensor::<f64>::zeros([4])?;
//! waits.exponential_(2.0)?; // mean 1/2
//! assert!(waits.to_vec().iter().all(|&w| w >= 0.0));
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::device::Cpu;
use crate::dtype::FloatElement;
use crate::error::{Error, OrPanic, Result};
use crate::nn::init::write as fill_with;
use crate::shape::Shape;
use crate::tensor::Tensor;
use rand_distr::{Binomial, Distribution, Poisson};

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// `num_samples` category indices per row of non-negative weights (PyTorch
    /// `multinomial`): `self` is `(C,)` or `(R, C)`, the weights of `C` categories (any
    /// positive scale); the result is i64 `(num_samples,)` or `(R, num_samples)` on `self`'s
    /// device. With `replacement` each draw is independent; without, a row is a sequence of
    /// distinct categories in draw order (the exponential-race method: the categories with the
    /// largest `w / E`, `E ~ Exp(1)`), and once the positive weights are used up the
    /// zero-weight categories follow in index order, as in PyTorch. A zero weight is never
    /// drawn otherwise.
    ///
    /// # Errors
    /// `InvalidArgument` for a tensor that is not 1-d or 2-d, `num_samples` = 0, more samples
    /// than categories without replacement, a NaN, infinite or negative weight, or a row
    /// without a positive weight; `ShapeOverflow` for an output too large to allocate.
    pub fn try_multinomial(&self, num_samples: usize, replacement: bool) -> Result<Tensor<i64, D>> {
        const OP: &str = "multinomial";
        let invalid = |msg: String| Err(Error::InvalidArgument { op: OP, msg });
        let (rows, cats, shape) = match *self.dims() {
            [c] => (1, c, vec![num_samples]),
            [r, c] => (r, c, vec![r, num_samples]),
            _ => {
                return invalid(format!(
                    "expects (C,) or (R, C) category weights, got shape {}",
                    self.shape()
                ));
            }
        };
        if num_samples == 0 {
            return invalid("num_samples is 0; draw at least one sample".into());
        }
        if !replacement && num_samples > cats {
            return invalid(format!(
                "cannot draw {num_samples} samples without replacement from {cats} categories; pass replacement = true or draw at most {cats}"
            ));
        }
        let shape = Shape::new(shape);
        let n = shape.checked_numel(OP, std::mem::size_of::<i64>())?;
        let w: Vec<f64> = self.try_to_vec()?.iter().map(|v| v.to_f64()).collect();
        if let Some(bad) = w.iter().find(|v| !(v.is_finite() && **v >= 0.0)) {
            return invalid(format!(
                "the weights must be finite and non-negative, got {bad}"
            ));
        }
        let per_row = if replacement { num_samples } else { cats };
        let u = Tensor::<f64, Cpu>::rand([rows, per_row])?.try_to_vec()?;
        let mut out = crate::alloc::with_capacity::<i64>(OP, n)?;
        for r in 0..rows {
            let w = &w[r * cats..(r + 1) * cats];
            let u = &u[r * per_row..(r + 1) * per_row];
            // Scaled by the row's largest weight: the running sum cannot overflow.
            let max = w.iter().fold(0.0, |a: f64, &b| a.max(b));
            if max <= 0.0 {
                return invalid(format!(
                    "row {r} of shape {} has no positive weight",
                    self.shape()
                ));
            }
            if replacement {
                draw_with_replacement(w, max, u, &mut out);
            } else {
                draw_without_replacement(w, max, u, num_samples, &mut out);
            }
        }
        Tensor::from_vec_on(out, shape, self.device_handle())
    }

    /// [`Tensor::try_multinomial`], panicking with its error.
    ///
    /// # Panics
    /// When [`Tensor::try_multinomial`] returns an `Err`.
    #[track_caller]
    pub fn multinomial(&self, num_samples: usize, replacement: bool) -> Tensor<i64, D> {
        self.try_multinomial(num_samples, replacement).or_panic()
    }

    /// [`Tensor::try_poisson`], panicking with its error.
    ///
    /// # Panics
    /// When [`Tensor::try_poisson`] returns an `Err`.
    #[track_caller]
    pub fn poisson(&self) -> Self {
        self.try_poisson().or_panic()
    }

    /// [`Tensor::try_binomial`], panicking with its error.
    ///
    /// # Panics
    /// When [`Tensor::try_binomial`] returns an `Err`.
    #[track_caller]
    pub fn binomial(count: &Self, prob: &Self) -> Self {
        Self::try_binomial(count, prob).or_panic()
    }

    /// One Poisson draw per element, with the element as its rate (PyTorch `poisson`): counts
    /// `0, 1, ...` as `T`, drawn on the host (`rand_distr`'s `Poisson`) from the global
    /// generator, so every device gives the same values for a seed. Not differentiable (the
    /// result has no gradient, as in PyTorch).
    ///
    /// # Errors
    /// `InvalidArgument` for a NaN, negative or infinite rate, or one above 1.844e19
    /// (`Poisson::MAX_LAMBDA`).
    pub fn try_poisson(&self) -> Result<Self> {
        const OP: &str = "poisson";
        let rates = self.try_to_vec()?;
        let draws = crate::tensor::with_global_rng(|rng| {
            let mut out = crate::alloc::with_capacity(OP, rates.len())?;
            for r in &rates {
                let r = r.to_f64();
                let v = if r == 0.0 {
                    0.0
                } else {
                    let d = Poisson::new(r).map_err(|e| Error::InvalidArgument {
                        op: OP,
                        msg: format!("rate {r}: {e}; rates must be finite and non-negative"),
                    })?;
                    d.sample(rng)
                };
                out.push(T::from_f64(v));
            }
            Ok::<_, Error>(out)
        })?;
        Self::from_vec_on(draws, self.dims().to_vec(), self.device_handle())
    }

    /// One binomial draw per element of `count` and `prob` broadcast together: the successes
    /// among `count` trials of probability `prob` (PyTorch `binomial`), as `T`, drawn on the
    /// host (`rand_distr`'s `Binomial`) from the global generator. Not differentiable.
    ///
    /// # Errors
    /// `InvalidArgument` for a count that is not a non-negative integer up to 2^53 or a
    /// probability outside `[0, 1]` (NaN included); `Broadcast` for shapes that do not
    /// broadcast; `Device` across devices.
    pub fn try_binomial(count: &Self, prob: &Self) -> Result<Self> {
        const OP: &str = "binomial";
        super::device_ops::same_device(OP, count, prob)?;
        let shape = crate::shape::broadcast_shapes(OP, count.shape(), prob.shape())?;
        let n = count.broadcast_to(shape.clone())?.try_to_vec()?;
        let p = prob.broadcast_to(shape.clone())?.try_to_vec()?;
        let draws = crate::tensor::with_global_rng(|rng| {
            let mut out = crate::alloc::with_capacity(OP, n.len())?;
            for (n, p) in n.iter().zip(&p) {
                let (n, p) = (n.to_f64(), p.to_f64());
                if !(n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_992.0) {
                    return Err(Error::InvalidArgument {
                        op: OP,
                        msg: format!("count {n} is not a non-negative integer up to 2^53"),
                    });
                }
                let d = Binomial::new(n as u64, p).map_err(|_| Error::InvalidArgument {
                    op: OP,
                    msg: format!("probability {p} lies outside [0, 1]"),
                })?;
                out.push(T::from_f64(d.sample(rng) as f64));
            }
            Ok(out)
        })?;
        Self::from_vec_on(draws, shape, count.device_handle())
    }

    /// Fills with samples of the exponential distribution of rate `lambd` (mean `1/lambd`;
    /// PyTorch `exponential_`): `-log(1 - u) / lambd`, computed in f64.
    ///
    /// # Errors
    /// `InvalidArgument` unless `lambd > 0` (infinity gives zeros), or when `self` is part of
    /// a recorded graph (not a leaf); `Layout` for a broadcast view.
    pub fn exponential_(&mut self, lambd: f64) -> Result<()> {
        positive("exponential_", "lambda", lambd, true)?;
        fill_with(self, "exponential_", |t| {
            uniform(t)?
                .try_neg()?
                .try_log1p()?
                .try_div_scalar(-lambd)?
                .try_cast()
        })
    }

    /// Fills with samples of the geometric distribution with success probability `p`: the
    /// number of Bernoulli trials up to the first success, `1, 2, ...` (PyTorch
    /// `geometric_`): `max(1, ceil(log(1 - u) / log(1 - p)))`, computed in f64.
    ///
    /// # Errors
    /// `InvalidArgument` unless `0 < p < 1`; otherwise as [`Tensor::exponential_`].
    pub fn geometric_(&mut self, p: f64) -> Result<()> {
        if !(p > 0.0 && p < 1.0) {
            return Err(Error::InvalidArgument {
                op: "geometric_",
                msg: format!("expects p in (0, 1), got {p}"),
            });
        }
        fill_with(self, "geometric_", |t| {
            (uniform(t)?.try_neg()?.try_log1p()?)
                .try_div_scalar((-p).ln_1p())?
                .try_ceil()?
                .try_clamp_min(1.0)?
                .try_cast()
        })
    }

    /// Fills with samples of the Cauchy distribution `median + sigma · tan(π(u - 1/2))`
    /// (PyTorch `cauchy_`), computed in f64.
    ///
    /// # Errors
    /// `InvalidArgument` for a non-finite `median` or unless `0 < sigma < ∞`; otherwise as
    /// [`Tensor::exponential_`].
    pub fn cauchy_(&mut self, median: f64, sigma: f64) -> Result<()> {
        finite("cauchy_", "median", median)?;
        positive("cauchy_", "sigma", sigma, false)?;
        fill_with(self, "cauchy_", |t| {
            (uniform(t)?.try_sub_scalar(0.5)?)
                .try_mul_scalar(std::f64::consts::PI)?
                .try_tan()?
                .try_mul_scalar(sigma)?
                .try_add_scalar(median)?
                .try_cast()
        })
    }

    /// Fills with samples of `exp(N(mean, std²))` (PyTorch `log_normal_`: `mean` and `std`
    /// are those of the logarithm), computed in f64.
    ///
    /// # Errors
    /// `InvalidArgument` for a non-finite `mean` or unless `0 < std < ∞`; otherwise as
    /// [`Tensor::exponential_`].
    pub fn log_normal_(&mut self, mean: f64, std: f64) -> Result<()> {
        finite("log_normal_", "mean", mean)?;
        positive("log_normal_", "std", std, false)?;
        fill_with(self, "log_normal_", |t| {
            Tensor::<f64, D>::randn_on(t.dims(), t.device_handle())?
                .try_mul_scalar(std)?
                .try_add_scalar(mean)?
                .try_exp()?
                .try_cast()
        })
    }

    /// Fills with integers drawn uniformly from `low..high` (PyTorch `random_(from, to)`), as
    /// [`Tensor::randint_on`] draws them.
    ///
    /// # Errors
    /// As [`Tensor::randint_on`] (`low >= high`, bounds beyond the integers `T` holds
    /// exactly); otherwise as [`Tensor::exponential_`].
    pub fn random_(&mut self, low: i64, high: i64) -> Result<()> {
        fill_with(self, "random_", |t| {
            Tensor::randint_on(low, high, t.dims(), t.device_handle())
        })
    }
}

/// f64 uniforms on `[0, 1)` of `t`'s shape on its device.
fn uniform<T: FloatElement, D: Backend>(t: &Tensor<T, D>) -> Result<Tensor<f64, D>> {
    Tensor::<f64, D>::rand_on(t.dims(), t.device_handle())
}

fn finite(op: &'static str, name: &str, v: f64) -> Result<()> {
    if v.is_finite() {
        return Ok(());
    }
    Err(Error::InvalidArgument {
        op,
        msg: format!("{name} must be finite, got {v}"),
    })
}

/// `v > 0`, and finite unless `inf_ok`.
fn positive(op: &'static str, name: &str, v: f64, inf_ok: bool) -> Result<()> {
    if v > 0.0 && (inf_ok || v.is_finite()) {
        return Ok(());
    }
    Err(Error::InvalidArgument {
        op,
        msg: format!("expects {name} > 0, got {name} = {v}"),
    })
}

/// One independent draw per uniform: the first category whose running weight exceeds
/// `u · total`, kept at or below the last positive weight (where rounding could pass it).
fn draw_with_replacement(w: &[f64], max: f64, u: &[f64], out: &mut Vec<i64>) {
    let mut total = 0.0;
    let cdf: Vec<f64> = (w.iter())
        .map(|&v| {
            total += v / max;
            total
        })
        .collect();
    let last = w.iter().rposition(|&v| v > 0.0).unwrap_or(0);
    for &ui in u {
        let t = ui * total;
        out.push(cdf.partition_point(|&c| c <= t).min(last) as i64);
    }
}

/// The `k` categories with the largest keys `w / E`, `E = -log(1 - u) ~ Exp(1)`, in
/// decreasing key order (the order of sequential draws); zero weights get the key -1, so they
/// come last, in index order.
fn draw_without_replacement(w: &[f64], max: f64, u: &[f64], k: usize, out: &mut Vec<i64>) {
    let key = |i: usize| {
        if w[i] > 0.0 {
            (w[i] / max) / -(-u[i]).ln_1p() // E = 0 gives +inf: drawn first
        } else {
            -1.0
        }
    };
    let mut keyed: Vec<(f64, usize)> = (0..w.len()).map(|i| (key(i), i)).collect();
    let order = |a: &(f64, usize), b: &(f64, usize)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
    if k < keyed.len() {
        keyed.select_nth_unstable_by(k, order);
        keyed.truncate(k);
    }
    keyed.sort_unstable_by(order);
    out.extend(keyed.iter().map(|&(_, i)| i as i64));
}
