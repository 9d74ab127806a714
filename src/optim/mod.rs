//! Optimizers (PyTorch's `torch.optim` update formulas) and learning-rate schedules. `step()`
//! updates each parameter in place on its device from the gradient `backward` left in its
//! buffer, without recording; `zero_grad()` clears the buffers for the next step.
//!
//! ```
//! use typed_tensor::prelude::*;
//! use typed_tensor::optim::{Optimizer, Sgd};
//! let w = Tensor::<f64>::from_vec(vec![1.0, -2.0], [2])?.with_requires_grad(true)?;
//! let mut opt = Sgd::new(vec![w.clone()], 0.1);
//! w.try_mul(&w)?.try_sum(&[], false)?.try_backward()?; // gradient 2w
//! opt.step()?;
//! assert_eq!(w.to_vec(), vec![0.8, -1.6]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

mod schedule;

pub use schedule::{CosineAnnealing, LrSchedule, StepDecay};

use crate::autograd::no_grad;
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// What every optimizer offers.
pub trait Optimizer {
    /// One update of every parameter from its gradient buffer.
    ///
    /// # Errors
    /// `InvalidArgument` when a parameter does not require grad; any op's error.
    fn step(&mut self) -> Result<()>;
    /// Zeros every parameter's gradient buffer.
    ///
    /// # Errors
    /// `Layout` when this thread holds a guard on a buffer.
    fn zero_grad(&self) -> Result<()>;
    /// The learning rate used by the next `step`.
    fn lr(&self) -> f64;
    /// Sets the learning rate (a schedule calls this between steps).
    fn set_lr(&mut self, lr: f64);
}

/// The gradient buffer of a parameter, or an `Err` saying it has none.
fn grad_of<T: FloatElement, D: Backend>(
    p: &Tensor<T, D>,
    op: &'static str,
) -> Result<Tensor<T, D>> {
    p.grad_tensor().ok_or_else(|| Error::InvalidArgument {
        op,
        msg: format!(
            "a parameter of shape {} does not require grad, so it has no gradient to step with; call with_requires_grad(true) on it",
            p.shape()
        ),
    })
}

/// The `Optimizer` methods every optimizer spells alike (each has `params` and `lr`).
macro_rules! common_methods {
    () => {
        fn zero_grad(&self) -> Result<()> {
            self.params.iter().try_for_each(|p| p.zero_grad())
        }
        fn lr(&self) -> f64 {
            self.lr
        }
        fn set_lr(&mut self, lr: f64) {
            self.lr = lr;
        }
    };
}

/// Stochastic gradient descent with momentum, Nesterov momentum and L2 weight decay
/// (PyTorch `SGD`): `g ← g + wd·p`; `b ← μ·b + g` (`b = g` at the first step);
/// `g ← g + μ·b` (Nesterov) or `g ← b`; `p ← p - lr·g`.
pub struct Sgd<T: FloatElement, D: Backend> {
    params: Vec<Tensor<T, D>>,
    bufs: Vec<Option<Tensor<T, D>>>,
    /// Learning rate.
    pub lr: f64,
    /// Momentum factor μ (0 disables momentum).
    pub momentum: f64,
    /// Use Nesterov momentum.
    pub nesterov: bool,
    /// L2 penalty added to the gradient.
    pub weight_decay: f64,
}

impl<T: FloatElement, D: Backend> Sgd<T, D> {
    /// Plain SGD over `params` (handles sharing the parameters' storage) with learning rate
    /// `lr`; set `momentum`, `nesterov` and `weight_decay` on the result.
    pub fn new(params: Vec<Tensor<T, D>>, lr: f64) -> Self {
        let bufs = vec![None; params.len()];
        Sgd {
            params,
            bufs,
            lr,
            momentum: 0.0,
            nesterov: false,
            weight_decay: 0.0,
        }
    }
}

impl<T: FloatElement, D: Backend> Optimizer for Sgd<T, D> {
    fn step(&mut self) -> Result<()> {
        no_grad(|| {
            for (p, buf) in self.params.iter().zip(&mut self.bufs) {
                let mut g = grad_of(p, "Sgd::step")?;
                if self.weight_decay != 0.0 {
                    g = g.try_add(&p.try_mul_scalar(T::from_f64(self.weight_decay))?)?;
                }
                if self.momentum != 0.0 {
                    let mu = T::from_f64(self.momentum);
                    let b = match buf.take() {
                        Some(b) => b.try_mul_scalar(mu)?.try_add(&g)?,
                        None => g.try_deep_copy()?,
                    };
                    g = if self.nesterov {
                        g.try_add(&b.try_mul_scalar(mu)?)?
                    } else {
                        b.clone()
                    };
                    *buf = Some(b);
                }
                p.clone().sub_(&g.try_mul_scalar(T::from_f64(self.lr))?)?;
            }
            Ok(())
        })
    }
    common_methods!();
}

/// Adam (PyTorch `Adam`, and `AdamW` with `decoupled_weight_decay`): `m ← β₁m + (1-β₁)g`,
/// `v ← β₂v + (1-β₂)g²`, `p ← p - lr · (m / (1-β₁ᵗ)) / (√(v / (1-β₂ᵗ)) + ε)`. Weight decay
/// adds `wd·p` to `g` (Adam) or multiplies `p` by `1 - lr·wd` first (AdamW).
pub struct Adam<T: FloatElement, D: Backend> {
    params: Vec<Tensor<T, D>>,
    /// Moment estimates in the compute type (f32 for 16-bit parameters, whose range cannot
    /// hold `g²` or `eps`).
    m: Vec<Option<Tensor<T::Acc, D>>>,
    v: Vec<Option<Tensor<T::Acc, D>>>,
    t: i32,
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
            t: 0,
            lr,
            betas: (0.9, 0.999),
            eps: 1e-8,
            weight_decay: 0.0,
            decoupled_weight_decay: false,
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
        self.t += 1;
        let (b1, b2) = self.betas;
        let c1 = 1.0 - b1.powi(self.t);
        let c2 = 1.0 - b2.powi(self.t);
        let f = <T::Acc as crate::dtype::Element>::from_f64;
        no_grad(|| {
            for (i, p) in self.params.iter().enumerate() {
                let mut g = grad_of(p, "Adam::step")?.try_cast::<T::Acc>()?;
                let mut p = p.clone();
                if self.weight_decay != 0.0 {
                    if self.decoupled_weight_decay {
                        p.mul_scalar_(T::from_f64(1.0 - self.lr * self.weight_decay))?;
                    } else {
                        let decay = p
                            .try_cast::<T::Acc>()?
                            .try_mul_scalar(f(self.weight_decay))?;
                        g = g.try_add(&decay)?;
                    }
                }
                let m = match self.m[i].take() {
                    Some(m) => m.try_mul_scalar(f(b1))?,
                    None => Tensor::zeros_on(g.dims(), &g.device)?,
                }
                .try_add(&g.try_mul_scalar(f(1.0 - b1))?)?;
                let v = match self.v[i].take() {
                    Some(v) => v.try_mul_scalar(f(b2))?,
                    None => Tensor::zeros_on(g.dims(), &g.device)?,
                }
                .try_add(&g.try_mul(&g)?.try_mul_scalar(f(1.0 - b2))?)?;
                let denom = v
                    .try_div_scalar(f(c2))?
                    .try_sqrt()?
                    .try_add_scalar(f(self.eps))?;
                let update = m.try_div_scalar(f(c1))?.try_div(&denom)?;
                p.sub_(&update.try_mul_scalar(f(self.lr))?.try_cast::<T>()?)?;
                self.m[i] = Some(m);
                self.v[i] = Some(v);
            }
            Ok(())
        })
    }
    common_methods!();
}
