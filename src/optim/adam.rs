//! The Adam family (PyTorch `Adam`/`AdamW`, `Adamax`, `NAdam`, `RAdam`): moving averages of the
//! gradient `m` and of its square `v` (or its largest magnitude, `Adamax`), with bias
//! correction. Each step follows PyTorch's single-tensor update formula, in the same order.

use super::state::state_methods;
use super::{
    Optimizer, Range, Slots, acc, check_hyper, common_methods, descend, ema, grad_of, state,
    step_grad,
};
use crate::autograd::no_grad;
use crate::backend::{AdamHyper, Backend};
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::tensor::Tensor;

/// `m ← β₁m + (1-β₁)g` and `v ← β₂v + (1-β₂)g²` for one parameter (both start at 0).
fn moments<A: FloatElement, D: Backend>(
    m: &mut Option<Tensor<A, D>>,
    v: &mut Option<Tensor<A, D>>,
    g: &Tensor<A, D>,
    (b1, b2): (f64, f64),
) -> Result<(Tensor<A, D>, Tensor<A, D>)> {
    let m = state(m, g, 0.0)?;
    ema(m, g, b1)?;
    let v = state(v, g, 0.0)?;
    ema(v, &g.try_mul(g)?, b2)?;
    Ok((m.clone(), v.clone()))
}

/// The step's gradient with weight decay: AdamW's decoupled `p ← p · (1 - lr·wd)` first, or
/// Adam's L2 term `wd·p` added to the gradient.
fn decayed_grad<T: FloatElement, D: Backend>(
    p: &Tensor<T, D>,
    op: &'static str,
    lr: f64,
    wd: f64,
    decoupled: bool,
    maximize: bool,
) -> Result<Tensor<T::Acc, D>> {
    if !decoupled {
        return step_grad(p, op, maximize, wd);
    }
    if wd != 0.0 {
        p.clone().mul_scalar_(T::from_f64(1.0 - lr * wd))?;
    }
    step_grad(p, op, maximize, 0.0)
}

/// A moment of `p` in the compute type, zeros at the first step.
fn zeros_state<'a, T: FloatElement, D: Backend>(
    slot: &'a mut Option<Tensor<T::Acc, D>>,
    p: &Tensor<T, D>,
) -> Result<&'a mut Tensor<T::Acc, D>> {
    let t = match slot.take() {
        Some(t) => t,
        None => Tensor::full_on(p.dims(), acc::<T>(0.0), &p.device)?,
    };
    Ok(slot.insert(t))
}

/// The checks every Adam variant shares (PyTorch's constructors').
fn check_adam(op: &'static str, lr: f64, eps: f64, betas: (f64, f64), wd: f64) -> Result<()> {
    check_hyper(
        op,
        &[
            ("lr", lr, Range::NonNegative),
            ("eps", eps, Range::NonNegative),
            ("betas.0", betas.0, Range::Below1),
            ("betas.1", betas.1, Range::Below1),
            ("weight_decay", wd, Range::NonNegative),
        ],
    )
}

/// Adam (PyTorch `Adam`, and `AdamW` with `decoupled_weight_decay`): `m ← β₁m + (1-β₁)g`,
/// `v ← β₂v + (1-β₂)g²`, `p ← p - lr/(1-β₁ᵗ) · m / (√v / √(1-β₂ᵗ) + ε)`. Weight decay adds
/// `wd·p` to `g` (Adam) or multiplies `p` by `1 - lr·wd` first (AdamW). With `amsgrad`, `v` in
/// the denominator is the largest `v` so far.
pub struct Adam<T: FloatElement, D: Backend> {
    params: Vec<Tensor<T, D>>,
    m: Slots<T, D>,
    v: Slots<T, D>,
    v_max: Slots<T, D>,
    t: u64,
    /// Learning rate.
    pub lr: f64,
    /// Decay rates of the first and second moment estimates.
    pub betas: (f64, f64),
    /// Added to the denominator for stability.
    pub eps: f64,
    /// Weight decay factor.
    pub weight_decay: f64,
    /// Decoupled weight decay (AdamW) instead of an L2 term in the gradient (Adam).
    pub decoupled_weight_decay: bool,
    /// The AMSGrad variant: divide by the running maximum of `v`.
    pub amsgrad: bool,
    /// Ascend the gradient instead of descending it.
    pub maximize: bool,
}

impl<T: FloatElement, D: Backend> Adam<T, D> {
    /// Adam over `params` with learning rate `lr` and PyTorch's defaults: betas (0.9, 0.999),
    /// eps 1e-8, no weight decay.
    pub fn new(params: Vec<Tensor<T, D>>, lr: f64) -> Self {
        let n = params.len();
        Adam {
            params,
            m: vec![None; n],
            v: vec![None; n],
            v_max: vec![None; n],
            t: 0,
            lr,
            betas: (0.9, 0.999),
            eps: 1e-8,
            weight_decay: 0.0,
            decoupled_weight_decay: false,
            amsgrad: false,
            maximize: false,
        }
    }

    /// AdamW (PyTorch's defaults: weight decay 0.01, decoupled).
    pub fn adamw(params: Vec<Tensor<T, D>>, lr: f64) -> Self {
        Adam {
            weight_decay: 0.01,
            decoupled_weight_decay: true,
            ..Self::new(params, lr)
        }
    }
}

impl<T: FloatElement, D: Backend> Optimizer for Adam<T, D> {
    fn step(&mut self) -> Result<()> {
        check_adam(
            "Adam::step",
            self.lr,
            self.eps,
            self.betas,
            self.weight_decay,
        )?;
        self.t += 1;
        let (b1, b2) = self.betas;
        let c1 = 1.0 - b1.powf(self.t as f64);
        let c2_sqrt = (1.0 - b2.powf(self.t as f64)).sqrt();
        // A device with a fused kernel does the whole update in one pass (the composed ops
        // below are about a dozen passes, 18 kernels on CUDA).
        let decoupled = self.decoupled_weight_decay;
        let hyper = AdamHyper {
            decay: if decoupled {
                1.0 - self.lr * self.weight_decay
            } else {
                1.0
            },
            l2: if decoupled { 0.0 } else { self.weight_decay },
            maximize: self.maximize,
            betas: self.betas,
            c2_sqrt,
            eps: self.eps,
            step: self.lr / c1,
        };
        no_grad(|| {
            for (i, p) in super::trainable(&self.params) {
                let grad = grad_of(p, "Adam::step")?;
                let m = zeros_state(&mut self.m[i], p)?;
                let v = zeros_state(&mut self.v[i], p)?;
                let v_max = if self.amsgrad {
                    Some(zeros_state(&mut self.v_max[i], p)?)
                } else {
                    None
                };
                if D::adam_step(&mut p.clone(), &grad, m, v, v_max, &hyper)? {
                    continue;
                }
                let g = decayed_grad(
                    p,
                    "Adam::step",
                    self.lr,
                    self.weight_decay,
                    self.decoupled_weight_decay,
                    self.maximize,
                )?;
                let (m, mut v) = moments(&mut self.m[i], &mut self.v[i], &g, self.betas)?;
                if self.amsgrad {
                    let v_max = state(&mut self.v_max[i], &g, 0.0)?;
                    v_max.maximum_(&v)?;
                    v = v_max.clone();
                }
                let denom = v
                    .try_sqrt()?
                    .try_div_scalar(acc::<T>(c2_sqrt))?
                    .try_add_scalar(acc::<T>(self.eps))?;
                descend(p, &m.try_div(&denom)?, self.lr / c1)?;
            }
            Ok(())
        })
    }
    common_methods!();
    state_methods!(
        slots: [m => "exp_avg", v => "exp_avg_sq", v_max => "max_exp_avg_sq"],
        counters: [t => "step"]
    );
}

/// Adamax (PyTorch `Adamax`, Adam with the infinity norm): `m ← β₁m + (1-β₁)g`,
/// `u ← max(β₂u, |g| + ε)`, `p ← p - lr/(1-β₁ᵗ) · m/u`; weight decay adds `wd·p` to `g`.
pub struct Adamax<T: FloatElement, D: Backend> {
    params: Vec<Tensor<T, D>>,
    m: Slots<T, D>,
    u: Slots<T, D>,
    t: u64,
    /// Learning rate.
    pub lr: f64,
    /// Decay rates of the first moment and of the infinity norm.
    pub betas: (f64, f64),
    /// Added to `|g|` for stability.
    pub eps: f64,
    /// L2 penalty added to the gradient.
    pub weight_decay: f64,
    /// Ascend the gradient instead of descending it.
    pub maximize: bool,
}

impl<T: FloatElement, D: Backend> Adamax<T, D> {
    /// Adamax over `params` with PyTorch's defaults: lr 2e-3, betas (0.9, 0.999), eps 1e-8.
    pub fn new(params: Vec<Tensor<T, D>>) -> Self {
        let n = params.len();
        Adamax {
            params,
            m: vec![None; n],
            u: vec![None; n],
            t: 0,
            lr: 2e-3,
            betas: (0.9, 0.999),
            eps: 1e-8,
            weight_decay: 0.0,
            maximize: false,
        }
    }
}

impl<T: FloatElement, D: Backend> Optimizer for Adamax<T, D> {
    fn step(&mut self) -> Result<()> {
        check_adam(
            "Adamax::step",
            self.lr,
            self.eps,
            self.betas,
            self.weight_decay,
        )?;
        self.t += 1;
        let (b1, b2) = self.betas;
        let c1 = 1.0 - b1.powf(self.t as f64);
        no_grad(|| {
            for (i, p) in super::trainable(&self.params) {
                let g = step_grad(p, "Adamax::step", self.maximize, self.weight_decay)?;
                let m = state(&mut self.m[i], &g, 0.0)?;
                ema(m, &g, b1)?;
                let u = state(&mut self.u[i], &g, 0.0)?;
                u.mul_scalar_(acc::<T>(b2))?;
                u.maximum_(&g.try_abs()?.try_add_scalar(acc::<T>(self.eps))?)?;
                descend(p, &m.try_div(u)?, self.lr / c1)?;
            }
            Ok(())
        })
    }
    common_methods!();
    state_methods!(slots: [m => "exp_avg", u => "exp_inf"], counters: [t => "step"]);
}

/// NAdam (PyTorch `NAdam`, Adam with Nesterov momentum and a momentum schedule):
/// `μₜ = β₁(1 - ½·0.96^(t·ψ))`, `m`, `v` as in Adam, `d = √(v/(1-β₂ᵗ)) + ε`,
/// `p ← p - lr(1-μₜ)/(1-Πμ) · g/d - lr·μₜ₊₁/(1-Πμ·μₜ₊₁) · m/d`, where `Πμ` is the product of
/// `μ₁..μₜ` and `ψ` the momentum decay.
pub struct NAdam<T: FloatElement, D: Backend> {
    params: Vec<Tensor<T, D>>,
    m: Slots<T, D>,
    v: Slots<T, D>,
    t: u64,
    mu_product: f64,
    /// Learning rate.
    pub lr: f64,
    /// Decay rates of the first and second moment estimates.
    pub betas: (f64, f64),
    /// Added to the denominator for stability.
    pub eps: f64,
    /// Weight decay factor.
    pub weight_decay: f64,
    /// The momentum schedule's decay `ψ`.
    pub momentum_decay: f64,
    /// Decoupled weight decay (as AdamW) instead of an L2 term in the gradient.
    pub decoupled_weight_decay: bool,
    /// Ascend the gradient instead of descending it.
    pub maximize: bool,
}

impl<T: FloatElement, D: Backend> NAdam<T, D> {
    /// NAdam over `params` with PyTorch's defaults: lr 2e-3, betas (0.9, 0.999), eps 1e-8,
    /// momentum decay 4e-3, no weight decay.
    pub fn new(params: Vec<Tensor<T, D>>) -> Self {
        let n = params.len();
        NAdam {
            params,
            m: vec![None; n],
            v: vec![None; n],
            t: 0,
            mu_product: 1.0,
            lr: 2e-3,
            betas: (0.9, 0.999),
            eps: 1e-8,
            weight_decay: 0.0,
            momentum_decay: 4e-3,
            decoupled_weight_decay: false,
            maximize: false,
        }
    }
}

impl<T: FloatElement, D: Backend> Optimizer for NAdam<T, D> {
    fn step(&mut self) -> Result<()> {
        check_adam(
            "NAdam::step",
            self.lr,
            self.eps,
            self.betas,
            self.weight_decay,
        )?;
        check_hyper(
            "NAdam::step",
            &[("momentum_decay", self.momentum_decay, Range::NonNegative)],
        )?;
        self.t += 1;
        let t = self.t as f64;
        let (b1, b2) = self.betas;
        let c2 = 1.0 - b2.powf(t);
        let mu = b1 * (1.0 - 0.5 * 0.96f64.powf(t * self.momentum_decay));
        let mu_next = b1 * (1.0 - 0.5 * 0.96f64.powf((t + 1.0) * self.momentum_decay));
        self.mu_product *= mu;
        let grad_scale = self.lr * (1.0 - mu) / (1.0 - self.mu_product);
        let m_scale = self.lr * mu_next / (1.0 - self.mu_product * mu_next);
        no_grad(|| {
            for (i, p) in super::trainable(&self.params) {
                let g = decayed_grad(
                    p,
                    "NAdam::step",
                    self.lr,
                    self.weight_decay,
                    self.decoupled_weight_decay,
                    self.maximize,
                )?;
                let (m, v) = moments(&mut self.m[i], &mut self.v[i], &g, self.betas)?;
                let denom = v
                    .try_div_scalar(acc::<T>(c2))?
                    .try_sqrt()?
                    .try_add_scalar(acc::<T>(self.eps))?;
                descend(p, &g.try_div(&denom)?, grad_scale)?;
                descend(p, &m.try_div(&denom)?, m_scale)?;
            }
            Ok(())
        })
    }
    common_methods!();
    state_methods!(
        slots: [m => "exp_avg", v => "exp_avg_sq"],
        counters: [t => "step", mu_product => "mu_product"]
    );
}

/// RAdam (PyTorch `RAdam`, rectified Adam): `m`, `v` as in Adam; with
/// `ρ∞ = 2/(1-β₂) - 1` and `ρₜ = ρ∞ - 2tβ₂ᵗ/(1-β₂ᵗ)`, the step is
/// `lr/(1-β₁ᵗ) · m · r · √(1-β₂ᵗ)/(√v + ε)` with the rectification
/// `r = √((ρₜ-4)(ρₜ-2)ρ∞ / ((ρ∞-4)(ρ∞-2)ρₜ))` while `ρₜ > 5`, and `lr/(1-β₁ᵗ) · m` (momentum
/// SGD) before.
pub struct RAdam<T: FloatElement, D: Backend> {
    params: Vec<Tensor<T, D>>,
    m: Slots<T, D>,
    v: Slots<T, D>,
    t: u64,
    /// Learning rate.
    pub lr: f64,
    /// Decay rates of the first and second moment estimates.
    pub betas: (f64, f64),
    /// Added to the denominator for stability.
    pub eps: f64,
    /// Weight decay factor.
    pub weight_decay: f64,
    /// Decoupled weight decay (as AdamW) instead of an L2 term in the gradient.
    pub decoupled_weight_decay: bool,
    /// Ascend the gradient instead of descending it.
    pub maximize: bool,
}

impl<T: FloatElement, D: Backend> RAdam<T, D> {
    /// RAdam over `params` with PyTorch's defaults: lr 1e-3, betas (0.9, 0.999), eps 1e-8, no
    /// weight decay.
    pub fn new(params: Vec<Tensor<T, D>>) -> Self {
        let n = params.len();
        RAdam {
            params,
            m: vec![None; n],
            v: vec![None; n],
            t: 0,
            lr: 1e-3,
            betas: (0.9, 0.999),
            eps: 1e-8,
            weight_decay: 0.0,
            decoupled_weight_decay: false,
            maximize: false,
        }
    }
}

impl<T: FloatElement, D: Backend> Optimizer for RAdam<T, D> {
    fn step(&mut self) -> Result<()> {
        check_adam(
            "RAdam::step",
            self.lr,
            self.eps,
            self.betas,
            self.weight_decay,
        )?;
        self.t += 1;
        let t = self.t as f64;
        let (b1, b2) = self.betas;
        let c1 = 1.0 - b1.powf(t);
        let c2 = 1.0 - b2.powf(t);
        let rho_inf = 2.0 / (1.0 - b2) - 1.0;
        let rho_t = rho_inf - 2.0 * t * b2.powf(t) / c2;
        no_grad(|| {
            for (i, p) in super::trainable(&self.params) {
                let g = decayed_grad(
                    p,
                    "RAdam::step",
                    self.lr,
                    self.weight_decay,
                    self.decoupled_weight_decay,
                    self.maximize,
                )?;
                let (m, v) = moments(&mut self.m[i], &mut self.v[i], &g, self.betas)?;
                let m_hat = m.try_div_scalar(acc::<T>(c1))?;
                if rho_t > 5.0 {
                    let rect = ((rho_t - 4.0) * (rho_t - 2.0) * rho_inf
                        / ((rho_inf - 4.0) * (rho_inf - 2.0) * rho_t))
                        .sqrt();
                    let adaptive = v
                        .try_sqrt()?
                        .try_add_scalar(acc::<T>(self.eps))?
                        .try_rdiv_scalar(acc::<T>(c2.sqrt()))?;
                    descend(p, &m_hat.try_mul(&adaptive)?, self.lr * rect)?;
                } else {
                    descend(p, &m_hat, self.lr)?;
                }
            }
            Ok(())
        })
    }
    common_methods!();
    state_methods!(slots: [m => "exp_avg", v => "exp_avg_sq"], counters: [t => "step"]);
}
