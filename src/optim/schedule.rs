//! Learning-rate schedules: each gives the rate for an epoch and sets it on an optimizer
//! (PyTorch's `StepLR` and `CosineAnnealingLR`).

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
