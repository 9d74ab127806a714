//! Stochastic gradient descent (PyTorch `SGD`).

use super::state::state_methods;
use super::{Optimizer, Range, check_hyper, common_methods, descend, grad_of, step_grad};
use crate::autograd::no_grad;
use crate::backend::{Backend, SgdHyper};
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::tensor::Tensor;

/// Stochastic gradient descent with momentum, dampening, Nesterov momentum and L2 weight decay
/// (PyTorch `SGD`): `g ← ±g + wd·p`; `b ← μ·b + (1 - dampening)·g` (`b = g` at the first
/// step); `g ← g + μ·b` (Nesterov) or `g ← b`; `p ← p - lr·g`.
pub struct Sgd<T: FloatElement, D: Backend> {
    params: Vec<Tensor<T, D>>,
    bufs: Vec<Option<Tensor<T::Acc, D>>>,
    /// Learning rate.
    pub lr: f64,
    /// Momentum factor μ (0 disables momentum).
    pub momentum: f64,
    /// The fraction of each gradient left out of the momentum buffer after the first step.
    pub dampening: f64,
    /// Use Nesterov momentum.
    pub nesterov: bool,
    /// L2 penalty added to the gradient.
    pub weight_decay: f64,
    /// Ascend the gradient instead of descending it.
    pub maximize: bool,
}

impl<T: FloatElement, D: Backend> Sgd<T, D> {
    /// Plain SGD over `params` (handles sharing the parameters' storage) with learning rate
    /// `lr`; set `momentum`, `dampening`, `nesterov`, `weight_decay` and `maximize` on the
    /// result.
    pub fn new(params: Vec<Tensor<T, D>>, lr: f64) -> Self {
        let bufs = vec![None; params.len()];
        Sgd {
            params,
            bufs,
            lr,
            momentum: 0.0,
            dampening: 0.0,
            nesterov: false,
            weight_decay: 0.0,
            maximize: false,
        }
    }
}

impl<T: FloatElement, D: Backend> Optimizer for Sgd<T, D> {
    fn step(&mut self) -> Result<()> {
        check_hyper(
            "Sgd::step",
            &[
                ("lr", self.lr, Range::NonNegative),
                ("momentum", self.momentum, Range::NonNegative),
                ("weight_decay", self.weight_decay, Range::NonNegative),
            ],
        )?;
        if self.nesterov && (self.momentum <= 0.0 || self.dampening != 0.0) {
            return Err(crate::error::Error::InvalidArgument {
                op: "Sgd::step",
                msg: format!(
                    "Nesterov momentum needs a momentum above 0 and no dampening, got momentum {} and dampening {}",
                    self.momentum, self.dampening
                ),
            });
        }
        let mut hyper = SgdHyper {
            lr: self.lr,
            momentum: self.momentum,
            dampening: self.dampening,
            nesterov: self.nesterov,
            first: false,
            l2: self.weight_decay,
            maximize: self.maximize,
        };
        no_grad(|| {
            for (i, p) in super::trainable(&self.params) {
                let buf = &mut self.bufs[i];
                // A device with a fused kernel does the step in one pass (the composed ops
                // below are up to five passes and four temporaries).
                let grad = grad_of(p, "Sgd::step")?;
                // The first step's buffer is kept only if the fused step wrote it.
                hyper.first = self.momentum != 0.0 && buf.is_none();
                let mut fresh = match hyper.first {
                    true => Some(Tensor::zeros_on(p.dims(), &p.device)?),
                    false => None,
                };
                let b = match (self.momentum != 0.0, hyper.first) {
                    (false, _) => None,
                    (true, true) => fresh.as_mut(),
                    (true, false) => buf.as_mut(),
                };
                if D::sgd_step(&mut p.clone(), &grad, b, &hyper)? {
                    if hyper.first {
                        *buf = fresh;
                    }
                    continue;
                }
                let mut g = step_grad(p, "Sgd::step", self.maximize, self.weight_decay)?;
                if self.momentum != 0.0 {
                    let mu = super::acc::<T>(self.momentum);
                    let b = match buf.take() {
                        Some(b) => b
                            .try_mul_scalar(mu)?
                            .try_add(&g.try_mul_scalar(super::acc::<T>(1.0 - self.dampening))?)?,
                        None => g.try_deep_copy()?,
                    };
                    g = if self.nesterov {
                        g.try_add(&b.try_mul_scalar(mu)?)?
                    } else {
                        b.clone()
                    };
                    *buf = Some(b);
                }
                descend(p, &g, self.lr)?;
            }
            Ok(())
        })
    }
    common_methods!();
    state_methods!(slots: [bufs => "momentum_buffer"], counters: []);
}
