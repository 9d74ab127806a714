//! Learning-rate schedules: each gives the rate for an epoch and sets it on an optimizer
//! (PyTorch's `StepLR`, `MultiStepLR`, `ExponentialLR`, `LinearLR` and `CosineAnnealingLR`, in
//! their closed forms).

use super::Optimizer;

/// A learning rate as a function of the epoch, applied to an optimizer with [`LrSchedule::apply`].
pub trait LrSchedule {
    /// The learning rate for `epoch` (0-based).
    fn lr_at(&self, epoch: usize) -> f64;
    /// Sets the optimizer's learning rate for `epoch`.
    fn apply(&self, opt: &mut dyn Optimizer, epoch: usize) {
        opt.set_lr(self.lr_at(epoch));
    }
}

/// `base · gamma^(epoch / step_size)` (PyTorch `StepLR`).
#[derive(Clone, Copy, Debug)]
pub struct StepDecay {
    /// The rate at epoch 0.
    pub base: f64,
    /// Epochs between decays (0 is treated as 1).
    pub step_size: usize,
    /// The factor applied at each decay.
    pub gamma: f64,
}

impl LrSchedule for StepDecay {
    fn lr_at(&self, epoch: usize) -> f64 {
        let k = epoch / self.step_size.max(1);
        self.base * self.gamma.powi(k.min(i32::MAX as usize) as i32)
    }
}

/// `min + (base - min) · (1 + cos(π · epoch / t_max)) / 2`, held at `min` after `t_max`
/// (PyTorch `CosineAnnealingLR` without restarts).
#[derive(Clone, Copy, Debug)]
pub struct CosineAnnealing {
    /// The rate at epoch 0.
    pub base: f64,
    /// The rate reached at `t_max`.
    pub min: f64,
    /// Epochs of the half cosine (0 is treated as 1).
    pub t_max: usize,
}

impl LrSchedule for CosineAnnealing {
    fn lr_at(&self, epoch: usize) -> f64 {
        let t = epoch.min(self.t_max) as f64 / self.t_max.max(1) as f64;
        self.min + (self.base - self.min) * (1.0 + (std::f64::consts::PI * t).cos()) / 2.0
    }
}

/// `base · gamma^k`, where `k` counts the `milestones` at or before `epoch` (PyTorch
/// `MultiStepLR`; a milestone listed twice decays twice, as there).
#[derive(Clone, Debug)]
pub struct MultiStepDecay {
    /// The rate at epoch 0.
    pub base: f64,
    /// The epochs at which the rate is multiplied by `gamma`, in any order.
    pub milestones: Vec<usize>,
    /// The factor applied at each milestone.
    pub gamma: f64,
}

impl LrSchedule for MultiStepDecay {
    fn lr_at(&self, epoch: usize) -> f64 {
        let k = self.milestones.iter().filter(|&&m| m <= epoch).count();
        self.base * self.gamma.powi(k.min(i32::MAX as usize) as i32)
    }
}

/// `base · gamma^epoch` (PyTorch `ExponentialLR`).
#[derive(Clone, Copy, Debug)]
pub struct ExponentialDecay {
    /// The rate at epoch 0.
    pub base: f64,
    /// The factor applied every epoch.
    pub gamma: f64,
}

impl LrSchedule for ExponentialDecay {
    fn lr_at(&self, epoch: usize) -> f64 {
        self.base * self.gamma.powi(epoch.min(i32::MAX as usize) as i32)
    }
}

/// `base · (start + (end - start) · min(epoch, total) / total)`: a linear ramp of the factor
/// from `start` to `end` over `total` epochs, then held (PyTorch `LinearLR`, the usual warm-up;
/// its defaults are `start` 1/3, `end` 1, `total` 5).
#[derive(Clone, Copy, Debug)]
pub struct LinearRamp {
    /// The optimizer's nominal rate.
    pub base: f64,
    /// The factor at epoch 0.
    pub start: f64,
    /// The factor from epoch `total` on.
    pub end: f64,
    /// Epochs of the ramp (0 is treated as 1).
    pub total: usize,
}

impl LrSchedule for LinearRamp {
    fn lr_at(&self, epoch: usize) -> f64 {
        let total = self.total.max(1);
        let f = epoch.min(total) as f64 / total as f64;
        self.base * (self.start + (self.end - self.start) * f)
    }
}
