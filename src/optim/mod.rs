//! Optimizers (PyTorch's `torch.optim` update formulas), gradient clipping
//! (`torch.nn.utils.clip_grad_norm_`/`clip_grad_value_`) and learning-rate schedules. `step()`
//! updates each parameter in place on its device from the gradient `backward` left in its
//! buffer, without recording; `zero_grad()` clears the buffers for the next step.
//!
//! | optimizer | file | PyTorch |
//! |---|---|---|
//! | [`Sgd`] (momentum, dampening, Nesterov) | `sgd.rs` | `SGD` |
//! | [`Adam`] (and AdamW, AMSGrad), [`Adamax`], [`NAdam`], [`RAdam`] | `adam.rs` | `Adam`, `AdamW`, `Adamax`, `NAdam`, `RAdam` |
//! | [`RmsProp`] (centered, momentum), [`Adagrad`], [`Adadelta`] | `adaptive.rs` | `RMSprop`, `Adagrad`, `Adadelta` |
//! | [`Rprop`], [`Asgd`] (with its averages) | `rprop.rs` | `Rprop`, `ASGD` |
//! | [`Adafactor`] (factored second moments, relative steps, update clipping) | `adafactor.rs` | `Adafactor` |
//! | [`Lbfgs`] (fixed step or strong-Wolfe line search; steps through a closure) | `lbfgs.rs` | `LBFGS` |
//!
//! Each has PyTorch's defaults, its `weight_decay` (an L2 term added to the gradient, or
//! decoupled where PyTorch offers it; Rprop has none, as there) and `maximize`. The optimizers' state (moments, sums,
//! momentum buffers) is kept in the compute type `T::Acc`: f32 for f16 and bf16 parameters,
//! whose range cannot hold `g²` or `eps`.
//!
//! [`ParamGroups`] (`groups.rs`, PyTorch's `param_groups`) makes one optimizer of several, each
//! over its own parameters with its own hyperparameters.
//!
//! [`GradScaler`] (`scaler.rs`, PyTorch `torch.amp.GradScaler`) scales the loss for f16/bf16
//! training and skips the steps whose gradients overflowed.
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
//!
//! A checkpoint keeps the optimizer's state beside the weights (PyTorch's `state_dict`):
//!
//! ```
//! use typed_tensor::prelude::*;
//! use typed_tensor::optim::{Adam, Optimizer};
//! let w = Tensor::<f32>::from_vec(vec![1.0, -2.0], [2])?.with_requires_grad(true)?;
//! let mut opt = Adam::new(vec![w.clone()], 0.1);
//! w.try_mul(&w)?.try_sum(&[], false)?.try_backward()?;
//! opt.step()?;
//! let path = std::env::temp_dir().join("typed-tensor-adam-state.safetensors");
//! typed_tensor::io::save_safetensors(&path, opt.state_dict()?, None)?; // 0.exp_avg, 0.exp_avg_sq, step
//! let mut resumed = Adam::new(vec![w.clone()], 0.1);
//! resumed.load_state_dict(&typed_tensor::io::load_safetensors(&path)?)?;
//! assert_eq!(resumed.state_dict()?.len(), 3);
//! # std::fs::remove_file(&path).ok();
//! # Ok::<(), typed_tensor::Error>(())
//! ```

mod adafactor;
mod adam;
mod adaptive;
mod clip;
mod groups;
mod lbfgs;
mod rprop;
mod scaler;
mod schedule;
mod sgd;
mod state;
mod swa;

pub use adafactor::Adafactor;
pub use adam::{Adam, Adamax, NAdam, RAdam};
pub use adaptive::{Adadelta, Adagrad, RmsProp};
pub use clip::{clip_grad_norm_, clip_grad_value_};
pub use groups::ParamGroups;
pub(crate) use groups::load_all_or_nothing;
pub use lbfgs::Lbfgs;
pub use rprop::{Asgd, Rprop};
pub use scaler::GradScaler;
pub(crate) use scaler::unscaled as scaler_unscaled;
pub use schedule::{
    Anneal, Chained, ConstantFactor, CosineAnnealing, CosineWarmRestarts, Cyclic, CyclicMode,
    ExponentialDecay, LambdaSchedule, LinearRamp, LrSchedule, MultiStepDecay,
    MultiplicativeSchedule, OneCycle, PolynomialDecay, ReduceOnPlateau, Sequential, StepDecay,
};
pub use sgd::Sgd;
pub use swa::{AveragedParams, Averaging, SwaSchedule};

use crate::backend::Backend;
use crate::dtype::{Element, FloatElement};
use crate::dynamic::DynTensor;
use crate::error::{Error, Result};
use crate::ops::converted;
use crate::tensor::Tensor;
use std::collections::BTreeMap;

/// What every optimizer offers.
pub trait Optimizer {
    /// One update of every parameter from its gradient buffer; a frozen parameter
    /// (`requires_grad_(false)` after it required grad) is skipped, as PyTorch skips one
    /// without a gradient, and its state is kept for when it is thawed.
    ///
    /// # Errors
    /// `InvalidArgument` when a parameter does not require grad, or when a hyperparameter is
    /// out of the range PyTorch's constructor accepts (a negative or NaN `lr`, `eps`,
    /// `weight_decay` or momentum, a beta outside `[0, 1)`; nothing is updated then); any op's
    /// error.
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
    /// The optimizer's state, copied, as named tensors (PyTorch's `state_dict()["state"]`):
    /// each per-parameter buffer as `"{index}.{name}"` with PyTorch's name (`"0.exp_avg"`,
    /// `"1.momentum_buffer"`), in the compute type `T::Acc` on its parameter's device, and
    /// each counter (`"step"`, NAdam's `"mu_product"`) as a 0-d f64 CPU tensor. Buffers not yet
    /// created (before the first step) are absent. The hyperparameters are the optimizer's
    /// public fields, not state. `io::save_safetensors` writes it to a file.
    ///
    /// # Errors
    /// Allocation or copy failure.
    fn state_dict(&self) -> Result<Vec<(String, DynTensor)>>;
    /// Replaces the state with `state`: what [`Optimizer::state_dict`] returned, or what
    /// `io::load_safetensors` read back (buffers are copied to each parameter's device).
    /// Buffers it lacks start afresh at the next step, as before the first one.
    ///
    /// # Errors
    /// `InvalidArgument` naming the entry for an unknown name or parameter index, a buffer
    /// whose dtype or shape is not its parameter's compute type and shape, a counter that is
    /// missing or not one valid value (the step a whole number); the state is unchanged then.
    fn load_state_dict(&mut self, state: &BTreeMap<String, DynTensor>) -> Result<()>;
}

/// The parameters a step updates, with their positions (their state slots' indices): all
/// but the frozen ones (`requires_grad_(false)`), which PyTorch's optimizers skip as having
/// no gradient.
fn trainable<T: FloatElement, D: Backend>(
    params: &[Tensor<T, D>],
) -> impl Iterator<Item = (usize, &Tensor<T, D>)> {
    params.iter().enumerate().filter(|(_, p)| !p.is_frozen())
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

/// The range a hyperparameter must lie in (PyTorch's constructor checks).
#[derive(Clone, Copy)]
enum Range {
    /// `[0, ∞)`.
    NonNegative,
    /// `[0, 1)`: the decay rates (betas).
    Below1,
    /// `[0, 1]`.
    UpTo1,
}

/// An `Err` naming the first hyperparameter outside its range (NaN is outside every range).
fn check_hyper(op: &'static str, values: &[(&str, f64, Range)]) -> Result<()> {
    for &(name, v, range) in values {
        let ok = v >= 0.0
            && match range {
                Range::NonNegative => true,
                Range::Below1 => v < 1.0,
                Range::UpTo1 => v <= 1.0,
            };
        if !ok {
            let want = match range {
                Range::NonNegative => ">= 0",
                Range::Below1 => "in [0, 1)",
                Range::UpTo1 => "in [0, 1]",
            };
            return Err(Error::InvalidArgument {
                op,
                msg: format!("{name} must be {want}, got {v}"),
            });
        }
    }
    Ok(())
}

/// A state tensor per parameter, in the compute type, created at the first step.
type Slots<T, D> = Vec<Option<Tensor<<T as FloatElement>::Acc, D>>>;

/// `x` in the compute type of `T`.
fn acc<T: FloatElement>(x: f64) -> T::Acc {
    <T::Acc as Element>::from_f64(x)
}

/// The gradient one step uses, in the compute type: the parameter's gradient, negated when
/// maximizing, plus `weight_decay · p` (PyTorch's L2 penalty) when that is not zero.
fn step_grad<T: FloatElement, D: Backend>(
    p: &Tensor<T, D>,
    op: &'static str,
    maximize: bool,
    weight_decay: f64,
) -> Result<Tensor<T::Acc, D>> {
    // `converted` shares the buffer when `T` is its own compute type: `g` is never written.
    let mut g = converted::<T, T::Acc, D>(&grad_of(p, op)?)?;
    if maximize {
        g = g.try_neg()?;
    }
    if weight_decay != 0.0 {
        let decay = converted::<T, T::Acc, D>(p)?.try_mul_scalar(acc::<T>(weight_decay))?;
        g = g.try_add(&decay)?;
    }
    Ok(g)
}

/// `p ← p - scale · u`, with `u` in the compute type.
fn descend<T: FloatElement, D: Backend>(
    p: &Tensor<T, D>,
    u: &Tensor<T::Acc, D>,
    scale: f64,
) -> Result<()> {
    let step = u.try_mul_scalar(acc::<T>(scale))?;
    p.clone().sub_(&converted::<T::Acc, T, D>(&step)?)
}

/// A state tensor of the optimizer, created as `g`'s shape filled with `init` at the first
/// step.
fn state<'a, A: FloatElement, D: Backend>(
    slot: &'a mut Option<Tensor<A, D>>,
    g: &Tensor<A, D>,
    init: f64,
) -> Result<&'a mut Tensor<A, D>> {
    let t = match slot.take() {
        Some(t) => t,
        None => Tensor::full_on(g.dims(), A::from_f64(init), &g.device)?,
    };
    Ok(slot.insert(t))
}

/// `s ← β·s + (1 - β)·x`, the exponential moving average of every moment estimate.
fn ema<A: FloatElement, D: Backend>(
    s: &mut Tensor<A, D>,
    x: &Tensor<A, D>,
    beta: f64,
) -> Result<()> {
    s.mul_scalar_(A::from_f64(beta))?;
    s.add_(&x.try_mul_scalar(A::from_f64(1.0 - beta))?)
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
use common_methods;
