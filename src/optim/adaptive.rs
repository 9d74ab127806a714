//! Optimizers that scale each element's step by its gradient history (PyTorch `RMSprop`,
//! `Adagrad`, `Adadelta`), with PyTorch's single-tensor update formulas in the same order.

use super::state::state_methods;
use super::{
    Optimizer, Range, Slots, acc, check_hyper, common_methods, descend, ema, state, step_grad,
};
use crate::autograd::no_grad;
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::tensor::Tensor;

/// RMSprop (PyTorch `RMSprop`): `v ← αv + (1-α)g²`; the denominator is `√v + ε`, or with
/// `centered` `√(v - ḡ²) + ε` where `ḡ ← αḡ + (1-α)g`; `p ← p - lr·g/denominator`, or with
/// momentum `b ← μb + g/denominator`, `p ← p - lr·b`. Weight decay adds `wd·p` to `g`.
pub struct RmsProp<T: FloatElement, D: Backend> {
    params: Vec<Tensor<T, D>>,
    square_avg: Slots<T, D>,
    grad_avg: Slots<T, D>,
    bufs: Slots<T, D>,
    /// Learning rate.
    pub lr: f64,
    /// Smoothing constant α of the averages.
    pub alpha: f64,
    /// Added to the denominator for stability.
    pub eps: f64,
    /// L2 penalty added to the gradient.
    pub weight_decay: f64,
    /// Momentum factor μ (0 disables momentum).
    pub momentum: f64,
    /// Divide by the estimated variance of the gradient instead of its second moment.
    pub centered: bool,
    /// Ascend the gradient instead of descending it.
    pub maximize: bool,
}

impl<T: FloatElement, D: Backend> RmsProp<T, D> {
    /// RMSprop over `params` with learning rate `lr` and PyTorch's defaults: alpha 0.99, eps
    /// 1e-8, no weight decay, no momentum, not centered.
    pub fn new(params: Vec<Tensor<T, D>>, lr: f64) -> Self {
        let n = params.len();
        RmsProp {
            params,
            square_avg: vec![None; n],
            grad_avg: vec![None; n],
            bufs: vec![None; n],
            lr,
            alpha: 0.99,
            eps: 1e-8,
            weight_decay: 0.0,
            momentum: 0.0,
            centered: false,
            maximize: false,
        }
    }
}

impl<T: FloatElement, D: Backend> Optimizer for RmsProp<T, D> {
    fn step(&mut self) -> Result<()> {
        check_hyper(
            "RmsProp::step",
            &[
                ("lr", self.lr, Range::NonNegative),
                ("alpha", self.alpha, Range::NonNegative),
                ("eps", self.eps, Range::NonNegative),
                ("weight_decay", self.weight_decay, Range::NonNegative),
                ("momentum", self.momentum, Range::NonNegative),
            ],
        )?;
        no_grad(|| {
            for (i, p) in super::trainable(&self.params) {
                let g = step_grad(p, "RmsProp::step", self.maximize, self.weight_decay)?;
                let v = state(&mut self.square_avg[i], &g, 0.0)?;
                ema(v, &g.try_mul(&g)?, self.alpha)?;
                let var = if self.centered {
                    let ga = state(&mut self.grad_avg[i], &g, 0.0)?;
                    ema(ga, &g, self.alpha)?;
                    v.try_sub(&ga.try_mul(ga)?)?
                } else {
                    v.clone()
                };
                let avg = var.try_sqrt()?.try_add_scalar(acc::<T>(self.eps))?;
                let scaled = g.try_div(&avg)?;
                if self.momentum > 0.0 {
                    let b = state(&mut self.bufs[i], &g, 0.0)?;
                    b.mul_scalar_(acc::<T>(self.momentum))?;
                    b.add_(&scaled)?;
                    descend(p, b, self.lr)?;
                } else {
                    descend(p, &scaled, self.lr)?;
                }
            }
            Ok(())
        })
    }
    common_methods!();
    state_methods!(
        slots: [square_avg => "square_avg", grad_avg => "grad_avg", bufs => "momentum_buffer"],
        counters: []
    );
}

/// Adagrad (PyTorch `Adagrad`): `s ← s + g²` (starting at `initial_accumulator_value`),
/// `p ← p - lr/(1 + (t-1)·lr_decay) · g/(√s + ε)`; weight decay adds `wd·p` to `g`.
pub struct Adagrad<T: FloatElement, D: Backend> {
    params: Vec<Tensor<T, D>>,
    sums: Slots<T, D>,
    t: u64,
    /// Learning rate.
    pub lr: f64,
    /// The learning rate's decay per step.
    pub lr_decay: f64,
    /// L2 penalty added to the gradient.
    pub weight_decay: f64,
    /// The value every element's sum of squares starts at.
    pub initial_accumulator_value: f64,
    /// Added to the denominator for stability.
    pub eps: f64,
    /// Ascend the gradient instead of descending it.
    pub maximize: bool,
}

impl<T: FloatElement, D: Backend> Adagrad<T, D> {
    /// Adagrad over `params` with learning rate `lr` and PyTorch's defaults: no learning-rate
    /// decay or weight decay, sums starting at 0, eps 1e-10.
    pub fn new(params: Vec<Tensor<T, D>>, lr: f64) -> Self {
        let n = params.len();
        Adagrad {
            params,
            sums: vec![None; n],
            t: 0,
            lr,
            lr_decay: 0.0,
            weight_decay: 0.0,
            initial_accumulator_value: 0.0,
            eps: 1e-10,
            maximize: false,
        }
    }
}

impl<T: FloatElement, D: Backend> Optimizer for Adagrad<T, D> {
    fn step(&mut self) -> Result<()> {
        check_hyper(
            "Adagrad::step",
            &[
                ("lr", self.lr, Range::NonNegative),
                ("lr_decay", self.lr_decay, Range::NonNegative),
                ("weight_decay", self.weight_decay, Range::NonNegative),
                (
                    "initial_accumulator_value",
                    self.initial_accumulator_value,
                    Range::NonNegative,
                ),
                ("eps", self.eps, Range::NonNegative),
            ],
        )?;
        self.t += 1;
        let clr = self.lr / (1.0 + (self.t - 1) as f64 * self.lr_decay);
        no_grad(|| {
            for (i, p) in super::trainable(&self.params) {
                let g = step_grad(p, "Adagrad::step", self.maximize, self.weight_decay)?;
                let s = state(&mut self.sums[i], &g, self.initial_accumulator_value)?;
                s.add_(&g.try_mul(&g)?)?;
                let std = s.try_sqrt()?.try_add_scalar(acc::<T>(self.eps))?;
                descend(p, &g.try_div(&std)?, clr)?;
            }
            Ok(())
        })
    }
    common_methods!();
    state_methods!(slots: [sums => "sum"], counters: [t => "step"]);
}

/// Adadelta (PyTorch `Adadelta`): `v ← ρv + (1-ρ)g²`, `Δ = √(u + ε)/√(v + ε) · g`,
/// `u ← ρu + (1-ρ)Δ²`, `p ← p - lr·Δ`; weight decay adds `wd·p` to `g`.
pub struct Adadelta<T: FloatElement, D: Backend> {
    params: Vec<Tensor<T, D>>,
    square_avg: Slots<T, D>,
    acc_delta: Slots<T, D>,
    /// Learning rate (scales the step Δ).
    pub lr: f64,
    /// Smoothing constant ρ of both averages.
    pub rho: f64,
    /// Added inside both square roots.
    pub eps: f64,
    /// L2 penalty added to the gradient.
    pub weight_decay: f64,
    /// Ascend the gradient instead of descending it.
    pub maximize: bool,
}

impl<T: FloatElement, D: Backend> Adadelta<T, D> {
    /// Adadelta over `params` with PyTorch's defaults: lr 1.0, rho 0.9, eps 1e-6.
    pub fn new(params: Vec<Tensor<T, D>>) -> Self {
        let n = params.len();
        Adadelta {
            params,
            square_avg: vec![None; n],
            acc_delta: vec![None; n],
            lr: 1.0,
            rho: 0.9,
            eps: 1e-6,
            weight_decay: 0.0,
            maximize: false,
        }
    }
}

impl<T: FloatElement, D: Backend> Optimizer for Adadelta<T, D> {
    fn step(&mut self) -> Result<()> {
        check_hyper(
            "Adadelta::step",
            &[
                ("lr", self.lr, Range::NonNegative),
                ("rho", self.rho, Range::UpTo1),
                ("eps", self.eps, Range::NonNegative),
                ("weight_decay", self.weight_decay, Range::NonNegative),
            ],
        )?;
        let eps = acc::<T>(self.eps);
        no_grad(|| {
            for (i, p) in super::trainable(&self.params) {
                let g = step_grad(p, "Adadelta::step", self.maximize, self.weight_decay)?;
                let v = state(&mut self.square_avg[i], &g, 0.0)?;
                ema(v, &g.try_mul(&g)?, self.rho)?;
                let std = v.try_add_scalar(eps)?.try_sqrt()?;
                let u = state(&mut self.acc_delta[i], &g, 0.0)?;
                let delta = u
                    .try_add_scalar(eps)?
                    .try_sqrt()?
                    .try_div(&std)?
                    .try_mul(&g)?;
                ema(u, &delta.try_mul(&delta)?, self.rho)?;
                descend(p, &delta, self.lr)?;
            }
            Ok(())
        })
    }
    common_methods!();
    state_methods!(
        slots: [square_avg => "square_avg", acc_delta => "acc_delta"],
        counters: []
    );
}
