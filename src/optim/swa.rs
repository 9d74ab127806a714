//! Weight averaging (PyTorch's `torch.optim.swa_utils`): [`AveragedParams`], the running
//! mean (stochastic weight averaging) or exponential moving average of a model's
//! parameters, and [`SwaSchedule`], `SWALR`'s anneal to a constant rate.

use super::schedule::LrSchedule;
use crate::autograd::no_grad;
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// How [`AveragedParams`] averages.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Averaging {
    /// The running mean of every update (PyTorch's default, `get_swa_multi_avg_fn`).
    Mean,
    /// `a ← decay·a + (1 - decay)·p` (PyTorch's `get_ema_multi_avg_fn(decay)`).
    Ema {
        /// The weight of the average so far, in `[0, 1]`.
        decay: f64,
    },
}

/// Averaged copies of parameters (PyTorch `AveragedModel` over the parameters): the first
/// [`AveragedParams::update`] copies them, each later one folds them into the averages
/// (`lerp` as PyTorch, weight `1/(n+1)` or `1 - decay`). The averages are detached tensors
/// on the parameters' devices; evaluate a model with them by copying them in.
///
/// ```
/// use typed_tensor::optim::{AveragedParams, Averaging};
/// use typed_tensor::prelude::*;
/// let w = Tensor::<f64>::from_vec(vec![0.0, 2.0], [2])?;
/// let mut swa = AveragedParams::new(Averaging::Mean);
/// swa.update(&[w.clone()])?;
/// swa.update(&[w.try_add_scalar(1.0)?])?;
/// assert_eq!(swa.averaged()[0].to_vec(), vec![0.5, 2.5]);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
pub struct AveragedParams<T: FloatElement, D: Backend> {
    averaged: Vec<Tensor<T, D>>,
    n_averaged: u64,
    /// The averaging rule.
    pub averaging: Averaging,
}

impl<T: FloatElement, D: Backend> AveragedParams<T, D> {
    /// No average yet; the first [`AveragedParams::update`] sets the parameters' count and
    /// shapes.
    pub fn new(averaging: Averaging) -> Self {
        AveragedParams {
            averaged: Vec::new(),
            n_averaged: 0,
            averaging,
        }
    }

    /// The averages, one per parameter (empty before the first update).
    pub fn averaged(&self) -> &[Tensor<T, D>] {
        &self.averaged
    }

    /// The number of updates averaged (PyTorch's `n_averaged`).
    pub fn n_averaged(&self) -> u64 {
        self.n_averaged
    }

    /// Folds `params` into the averages (PyTorch `update_parameters`), unrecorded.
    ///
    /// # Errors
    /// `InvalidArgument` for another number of parameters or shapes than the first update's,
    /// or an EMA decay outside `[0, 1]`; `Device` across devices. Nothing changes then.
    pub fn update(&mut self, params: &[Tensor<T, D>]) -> Result<()> {
        const OP: &str = "AveragedParams::update";
        let bad = |msg: String| Err(Error::InvalidArgument { op: OP, msg });
        if let Averaging::Ema { decay } = self.averaging
            && !(0.0..=1.0).contains(&decay)
        {
            return bad(format!("the EMA decay must be in [0, 1], got {decay}"));
        }
        no_grad(|| {
            if self.n_averaged == 0 {
                self.averaged = params
                    .iter()
                    .map(|p| p.detach().try_deep_copy())
                    .collect::<Result<_>>()?;
                self.n_averaged = 1;
                return Ok(());
            }
            if params.len() != self.averaged.len() {
                return bad(format!(
                    "{} parameters where the first update had {}",
                    params.len(),
                    self.averaged.len()
                ));
            }
            for (i, (a, p)) in self.averaged.iter().zip(params).enumerate() {
                if a.dims() != p.dims() {
                    return bad(format!(
                        "parameter {i} has shape {}, the average {}",
                        p.shape(),
                        a.shape()
                    ));
                }
                crate::ops::device_ops::same_device(OP, a, p)?;
            }
            let weight = match self.averaging {
                Averaging::Mean => 1.0 / (self.n_averaged + 1) as f64,
                Averaging::Ema { decay } => 1.0 - decay,
            };
            let next: Vec<Tensor<T, D>> = (self.averaged.iter().zip(params))
                .map(|(a, p)| a.try_lerp(&p.detach(), T::from_f64(weight)))
                .collect::<Result<_>>()?;
            self.averaged = next;
            self.n_averaged += 1;
            Ok(())
        })
    }
}

/// The rate annealed from `base` to `swa_lr` over `anneal_epochs` epochs, then held there
/// (PyTorch `SWALR`): `α·swa_lr + (1 - α)·base` with `α` the cosine `(1 - cos πt)/2` or the
/// linear `t` of `t = min(1, epoch / anneal_epochs)` (`anneal_epochs = 0`: `swa_lr` at once).
#[derive(Clone, Copy, Debug)]
pub struct SwaSchedule {
    /// The optimizer's rate before averaging.
    pub base: f64,
    /// The rate held while averaging.
    pub swa_lr: f64,
    /// The epochs of the anneal.
    pub anneal_epochs: usize,
    /// The cosine anneal (PyTorch's default) rather than the linear one.
    pub cosine: bool,
}

impl LrSchedule for SwaSchedule {
    fn lr_at(&self, epoch: usize) -> f64 {
        let step = if self.anneal_epochs == 0 {
            epoch.max(1)
        } else {
            epoch
        };
        let t = (step as f64 / self.anneal_epochs.max(1) as f64).clamp(0.0, 1.0);
        let alpha = match self.cosine {
            true => (1.0 - (std::f64::consts::PI * t).cos()) / 2.0,
            false => t,
        };
        self.swa_lr * alpha + self.base * (1.0 - alpha)
    }
}
