//! Resilient backpropagation and averaged SGD (PyTorch `Rprop`, `ASGD`), with PyTorch's
//! single-tensor update formulas in the same order.

use super::state::state_methods;
use super::{Optimizer, Range, Slots, acc, check_hyper, common_methods, state, step_grad};
use crate::autograd::no_grad;
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::ops::converted;
use crate::tensor::Tensor;

/// Rprop (PyTorch `Rprop`): each element keeps its own step size, multiplied by `etas.1`
/// while its gradient keeps its sign and by `etas.0` when the sign flips (clamped to
/// `step_sizes`), and moves by that step against the gradient's sign; after a flip the
/// gradient counts as 0 for that step and the next. Step sizes start at `lr`.
pub struct Rprop<T: FloatElement, D: Backend> {
    params: Vec<Tensor<T, D>>,
    prev: Slots<T, D>,
    step_size: Slots<T, D>,
    t: u64,
    /// The initial step size of every element.
    pub lr: f64,
    /// The factors `(etaminus, etaplus)`, `0 < etaminus < 1 < etaplus`.
    pub etas: (f64, f64),
    /// The least and greatest step size.
    pub step_sizes: (f64, f64),
    /// Ascend the gradient instead of descending it.
    pub maximize: bool,
}

impl<T: FloatElement, D: Backend> Rprop<T, D> {
    /// Rprop over `params` with PyTorch's defaults: lr 0.01, etas (0.5, 1.2), step sizes
    /// (1e-6, 50).
    pub fn new(params: Vec<Tensor<T, D>>) -> Self {
        let n = params.len();
        Rprop {
            params,
            prev: vec![None; n],
            step_size: vec![None; n],
            t: 0,
            lr: 0.01,
            etas: (0.5, 1.2),
            step_sizes: (1e-6, 50.0),
            maximize: false,
        }
    }
}

impl<T: FloatElement, D: Backend> Optimizer for Rprop<T, D> {
    fn step(&mut self) -> Result<()> {
        let op = "Rprop::step";
        check_hyper(op, &[("lr", self.lr, Range::NonNegative)])?;
        let (minus, plus) = self.etas;
        if !(0.0 < minus && minus < 1.0 && 1.0 < plus) {
            return Err(Error::InvalidArgument {
                op,
                msg: format!("etas must satisfy 0 < etaminus < 1 < etaplus, got ({minus}, {plus})"),
            });
        }
        self.t += 1;
        let c = |v: f64| acc::<T>(v);
        no_grad(|| {
            for (i, p) in super::trainable(&self.params) {
                let g = step_grad(p, op, self.maximize, 0.0)?;
                let prev = state(&mut self.prev[i], &g, 0.0)?;
                let s = g.try_mul(prev)?.try_sign()?;
                // etaplus where the sign held, etaminus where it flipped, 1 at a zero (and
                // NaN stays NaN), as PyTorch's three masked writes.
                let dev = &g.device;
                let at = |v: f64| Tensor::scalar_on(c(v), dev);
                let one_at_zero = Tensor::try_where(&s.try_eq_scalar(c(0.0))?, &at(1.0)?, &s)?;
                let flipped =
                    Tensor::try_where(&s.try_lt_scalar(c(0.0))?, &at(minus)?, &one_at_zero)?;
                let factor = Tensor::try_where(&s.try_gt_scalar(c(0.0))?, &at(plus)?, &flipped)?;
                let size = state(&mut self.step_size[i], &g, self.lr)?;
                *size = size
                    .try_mul(&factor)?
                    .try_clip(c(self.step_sizes.0), c(self.step_sizes.1))?;
                let g = Tensor::try_where(&factor.try_eq_scalar(c(minus))?, &at(0.0)?, &g)?;
                let step = g.try_sign()?.try_mul(size)?;
                p.clone().sub_(&converted::<T::Acc, T, D>(&step)?)?;
                *prev = g;
            }
            Ok(())
        })
    }
    common_methods!();
    state_methods!(
        slots: [prev => "prev", step_size => "step_size"],
        counters: [t => "step"]
    );
}

/// Averaged SGD (PyTorch `ASGD`): `p ← p·(1 - λη) - η·g` with `η = lr / (1 + λ·lr·t)^α`
/// after step `t`, and the running average `ax` of the parameters, which starts averaging
/// after `t0` steps (before, it is the parameter itself); weight decay adds `wd·p` to `g`.
/// [`Asgd::averages`] returns the averages.
pub struct Asgd<T: FloatElement, D: Backend> {
    params: Vec<Tensor<T, D>>,
    ax: Slots<T, D>,
    t: u64,
    eta: f64,
    mu: f64,
    /// Learning rate.
    pub lr: f64,
    /// The decay term λ.
    pub lambd: f64,
    /// The power α of η's decay.
    pub alpha: f64,
    /// The step after which averaging starts.
    pub t0: f64,
    /// L2 penalty added to the gradient.
    pub weight_decay: f64,
    /// Ascend the gradient instead of descending it.
    pub maximize: bool,
}

impl<T: FloatElement, D: Backend> Asgd<T, D> {
    /// ASGD over `params` with learning rate `lr` and PyTorch's defaults: lambd 1e-4, alpha
    /// 0.75, t0 1e6, no weight decay.
    pub fn new(params: Vec<Tensor<T, D>>, lr: f64) -> Self {
        let n = params.len();
        Asgd {
            params,
            ax: vec![None; n],
            t: 0,
            eta: lr,
            mu: 1.0,
            lr,
            lambd: 1e-4,
            alpha: 0.75,
            t0: 1e6,
            weight_decay: 0.0,
            maximize: false,
        }
    }

    /// The averaged parameters (PyTorch's `state["ax"]`) in the compute type, `None` before
    /// the first step.
    pub fn averages(&self) -> Vec<Option<Tensor<T::Acc, D>>> {
        self.ax.clone()
    }
}

impl<T: FloatElement, D: Backend> Optimizer for Asgd<T, D> {
    fn step(&mut self) -> Result<()> {
        let op = "Asgd::step";
        check_hyper(
            op,
            &[
                ("lr", self.lr, Range::NonNegative),
                ("lambd", self.lambd, Range::NonNegative),
                ("alpha", self.alpha, Range::NonNegative),
                ("t0", self.t0, Range::NonNegative),
                ("weight_decay", self.weight_decay, Range::NonNegative),
            ],
        )?;
        self.t += 1;
        let (eta, mu) = (self.eta, self.mu);
        no_grad(|| -> Result<()> {
            for (i, p) in super::trainable(&self.params) {
                let g = step_grad(p, op, self.maximize, self.weight_decay)?;
                let x = converted::<T, T::Acc, D>(p)?
                    .try_mul_scalar(acc::<T>(1.0 - self.lambd * eta))?
                    .try_sub(&g.try_mul_scalar(acc::<T>(eta))?)?;
                p.clone().copy_from(&converted::<T::Acc, T, D>(&x)?)?;
                let x = converted::<T, T::Acc, D>(p)?;
                let ax = state(&mut self.ax[i], &g, 0.0)?;
                if mu != 1.0 {
                    ax.add_(&x.try_sub(ax)?.try_mul_scalar(acc::<T>(mu))?)?;
                } else {
                    // A copy: `x` shares the parameter's buffer when `T` is its own compute type.
                    *ax = x.try_deep_copy()?;
                }
            }
            Ok(())
        })?;
        let t = self.t as f64;
        self.eta = self.lr / (1.0 + self.lambd * self.lr * t).powf(self.alpha);
        self.mu = 1.0 / (t - self.t0).max(1.0);
        Ok(())
    }
    common_methods!();
    state_methods!(
        slots: [ax => "ax"],
        counters: [t => "step", eta => "eta", mu => "mu"]
    );
}
