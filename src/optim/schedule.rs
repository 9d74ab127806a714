//! Learning-rate schedules: each gives the rate for an epoch (or step) and sets it on an
//! optimizer (PyTorch's `StepLR`, `MultiStepLR`, `ExponentialLR`, `LinearLR`,
//! `CosineAnnealingLR`, `CosineAnnealingWarmRestarts`, `OneCycleLR`, `SequentialLR`,
//! `PolynomialLR`, `ConstantLR`, `LambdaLR` and `CyclicLR`, in their closed forms), and `ReduceOnPlateau`, driven by a metric (`ReduceLROnPlateau`).

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

/// How [`OneCycle`] moves between its rates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anneal {
    /// Half a cosine (PyTorch `anneal_strategy='cos'`).
    Cos,
    /// A straight line (`'linear'`).
    Linear,
}

impl Anneal {
    fn at(self, start: f64, end: f64, pct: f64) -> f64 {
        match self {
            Anneal::Cos => end + (start - end) / 2.0 * ((std::f64::consts::PI * pct).cos() + 1.0),
            Anneal::Linear => (end - start) * pct + start,
        }
    }
}

/// The 1cycle policy over `total_steps` steps (PyTorch `OneCycleLR` with
/// `cycle_momentum=False`; it is stepped per batch): from `max_lr / div_factor` up to `max_lr`
/// over the first `pct_start` of the steps, then down to `max_lr / div_factor /
/// final_div_factor`; with `three_phase`, back to the start rate first, as PyTorch's phases.
/// Held at the last rate after `total_steps` (PyTorch refuses to step further).
#[derive(Clone, Copy, Debug)]
pub struct OneCycle {
    /// The peak rate.
    pub max_lr: f64,
    /// Steps in the cycle.
    pub total_steps: usize,
    /// The fraction of the steps spent rising (PyTorch's default 0.3).
    pub pct_start: f64,
    /// The shape of each phase (PyTorch's default `Cos`).
    pub anneal: Anneal,
    /// `max_lr / div_factor` is the start rate (PyTorch's default 25).
    pub div_factor: f64,
    /// The start rate divided by this is the final rate (PyTorch's default 1e4).
    pub final_div_factor: f64,
    /// PyTorch's `three_phase`.
    pub three_phase: bool,
}

impl OneCycle {
    /// PyTorch's defaults for `max_lr` and `total_steps`.
    pub fn new(max_lr: f64, total_steps: usize) -> Self {
        OneCycle {
            max_lr,
            total_steps,
            pct_start: 0.3,
            anneal: Anneal::Cos,
            div_factor: 25.0,
            final_div_factor: 1e4,
            three_phase: false,
        }
    }
}

impl LrSchedule for OneCycle {
    fn lr_at(&self, step: usize) -> f64 {
        let total = self.total_steps as f64;
        let start = self.max_lr / self.div_factor;
        let end = start / self.final_div_factor;
        let rise = self.pct_start * total - 1.0;
        let phases: Vec<(f64, f64, f64)> = if self.three_phase {
            vec![
                (rise, start, self.max_lr),
                (2.0 * self.pct_start * total - 2.0, self.max_lr, start),
                (total - 1.0, start, end),
            ]
        } else {
            vec![(rise, start, self.max_lr), (total - 1.0, self.max_lr, end)]
        };
        let step = (step as f64).min(total - 1.0).max(0.0);
        let mut from = 0.0;
        for (i, &(to, a, b)) in phases.iter().enumerate() {
            if step <= to || i + 1 == phases.len() {
                return self.anneal.at(a, b, (step - from) / (to - from));
            }
            from = to;
        }
        end
    }
}

/// Cosine annealing with warm restarts (PyTorch `CosineAnnealingWarmRestarts`): a half cosine
/// from `base` to `min` over `t_0` epochs, restarted with each period `t_mult` times longer.
#[derive(Clone, Copy, Debug)]
pub struct CosineWarmRestarts {
    /// The rate at each restart.
    pub base: f64,
    /// The rate each period approaches.
    pub min: f64,
    /// Epochs of the first period (0 is treated as 1).
    pub t_0: usize,
    /// Growth of each period (0 is treated as 1).
    pub t_mult: usize,
}

impl LrSchedule for CosineWarmRestarts {
    fn lr_at(&self, epoch: usize) -> f64 {
        let (mut t_cur, mut t_i) = (epoch, self.t_0.max(1));
        while t_cur >= t_i {
            t_cur -= t_i;
            t_i = t_i.saturating_mul(self.t_mult.max(1));
        }
        let t = t_cur as f64 / t_i as f64;
        self.min + (self.base - self.min) * (1.0 + (std::f64::consts::PI * t).cos()) / 2.0
    }
}

/// `base · (1 - min(epoch, total) / total)^power`: down to 0 at `total` (PyTorch
/// `PolynomialLR`; its defaults are `total` 5, `power` 1).
#[derive(Clone, Copy, Debug)]
pub struct PolynomialDecay {
    /// The rate at epoch 0.
    pub base: f64,
    /// Epochs until the rate reaches 0 (0 is treated as 1).
    pub total: usize,
    /// The power of the decay (1: linear).
    pub power: f64,
}

impl LrSchedule for PolynomialDecay {
    fn lr_at(&self, epoch: usize) -> f64 {
        let total = self.total.max(1);
        self.base * (1.0 - epoch.min(total) as f64 / total as f64).powf(self.power)
    }
}

/// `base · factor` for the first `total` epochs, then `base` (PyTorch `ConstantLR`; its
/// defaults are `factor` 1/3, `total` 5).
#[derive(Clone, Copy, Debug)]
pub struct ConstantFactor {
    /// The optimizer's nominal rate.
    pub base: f64,
    /// The factor before epoch `total`.
    pub factor: f64,
    /// Epochs at the reduced rate.
    pub total: usize,
}

impl LrSchedule for ConstantFactor {
    fn lr_at(&self, epoch: usize) -> f64 {
        if epoch < self.total {
            self.base * self.factor
        } else {
            self.base
        }
    }
}

/// `base · f(epoch)` for any function `f` (PyTorch `LambdaLR`).
#[derive(Clone, Copy, Debug)]
pub struct LambdaSchedule<F: Fn(usize) -> f64> {
    /// The optimizer's nominal rate.
    pub base: f64,
    /// The factor for each epoch.
    pub f: F,
}

impl<F: Fn(usize) -> f64> LrSchedule for LambdaSchedule<F> {
    fn lr_at(&self, epoch: usize) -> f64 {
        self.base * (self.f)(epoch)
    }
}

/// `base · f(1) · f(2) ⋯ f(epoch)`: the rate multiplied by `f(epoch)` at each epoch after
/// the first (PyTorch `MultiplicativeLR`).
#[derive(Clone, Copy, Debug)]
pub struct MultiplicativeSchedule<F: Fn(usize) -> f64> {
    /// The optimizer's nominal rate.
    pub base: f64,
    /// The factor applied at each epoch.
    pub f: F,
}

impl<F: Fn(usize) -> f64> LrSchedule for MultiplicativeSchedule<F> {
    fn lr_at(&self, epoch: usize) -> f64 {
        (1..=epoch).fold(self.base, |lr, k| lr * (self.f)(k))
    }
}

/// How [`Cyclic`] scales each cycle's amplitude (PyTorch `CyclicLR`'s `mode`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CyclicMode {
    /// Every cycle the same.
    Triangular,
    /// The amplitude halved each cycle.
    Triangular2,
    /// The amplitude times `gamma^step`.
    ExpRange {
        /// The factor per step.
        gamma: f64,
    },
}

/// A triangular cycle between `base_lr` and `max_lr` (PyTorch `CyclicLR` with
/// `cycle_momentum=False`; it is stepped per batch): up over `step_size_up` steps, down over
/// `step_size_down` (the same as up when `None`), the amplitude scaled by `mode`.
#[derive(Clone, Copy, Debug)]
pub struct Cyclic {
    /// The rate at the bottom of each cycle.
    pub base_lr: f64,
    /// The rate at the top of the first cycle.
    pub max_lr: f64,
    /// Steps from bottom to top (0 is treated as 1).
    pub step_size_up: usize,
    /// Steps from top to bottom.
    pub step_size_down: Option<usize>,
    /// The amplitude's scaling.
    pub mode: CyclicMode,
}

impl LrSchedule for Cyclic {
    fn lr_at(&self, epoch: usize) -> f64 {
        let up = self.step_size_up.max(1) as f64;
        let total = up + self.step_size_down.map_or(up, |d| d as f64);
        let ratio = up / total;
        let e = epoch as f64;
        let cycle = (1.0 + e / total).floor();
        let x = 1.0 + e / total - cycle;
        let scale = if x <= ratio {
            x / ratio
        } else {
            (x - 1.0) / (ratio - 1.0)
        };
        let amplitude = match self.mode {
            CyclicMode::Triangular => 1.0,
            CyclicMode::Triangular2 => 1.0 / 2f64.powf(cycle - 1.0),
            CyclicMode::ExpRange { gamma } => gamma.powf(e),
        };
        self.base_lr + (self.max_lr - self.base_lr) * scale * amplitude
    }
}

/// Several schedules applied together (PyTorch `ChainedScheduler`): `base` times every
/// factor schedule's rate, each built with base 1 so that its rate is its factor. PyTorch's
/// chained step multiplies the factors the same way for the multiplicative schedules
/// ([`StepDecay`], [`MultiStepDecay`], [`ExponentialDecay`], [`LinearRamp`],
/// [`ConstantFactor`], [`MultiplicativeSchedule`], [`LambdaSchedule`]).
pub struct Chained {
    /// The optimizer's nominal rate.
    pub base: f64,
    /// The factor schedules, each with base 1.
    pub factors: Vec<Box<dyn LrSchedule>>,
}

impl LrSchedule for Chained {
    fn lr_at(&self, epoch: usize) -> f64 {
        (self.factors.iter()).fold(self.base, |lr, s| lr * s.lr_at(epoch))
    }
}

/// Schedules one after another (PyTorch `SequentialLR`): `schedules[i]` runs from
/// `milestones[i - 1]` (epoch 0 of its own count) until `milestones[i]`; e.g. a
/// [`LinearRamp`] warm-up, then [`CosineAnnealing`].
pub struct Sequential {
    /// The schedules, one more than the milestones.
    pub schedules: Vec<Box<dyn LrSchedule>>,
    /// The epochs at which the next schedule takes over, ascending.
    pub milestones: Vec<usize>,
}

impl LrSchedule for Sequential {
    fn lr_at(&self, epoch: usize) -> f64 {
        let i = self.milestones.iter().take_while(|&&m| m <= epoch).count();
        let start = if i == 0 { 0 } else { self.milestones[i - 1] };
        match self.schedules.get(i).or(self.schedules.last()) {
            Some(s) => s.lr_at(epoch - start),
            None => f64::NAN,
        }
    }
}

/// Reduces the rate when a metric stops improving (PyTorch `ReduceLROnPlateau`): after more
/// than `patience` epochs without a better metric, the rate is multiplied by `factor` (not
/// below `min_lr`, and only by more than `eps`), then `cooldown` epochs pass before counting
/// again. Better means lower by more than `threshold` (relative, or absolute when
/// `threshold_abs`), or higher when `maximize`. A NaN metric is never better.
#[derive(Clone, Copy, Debug)]
pub struct ReduceOnPlateau {
    /// Higher metrics are better (PyTorch `mode='max'`).
    pub maximize: bool,
    /// The factor applied at each reduction (PyTorch's default 0.1).
    pub factor: f64,
    /// Epochs without improvement tolerated (default 10).
    pub patience: usize,
    /// The least improvement that counts (default 1e-4).
    pub threshold: f64,
    /// `threshold` is absolute rather than relative (PyTorch `threshold_mode='abs'`).
    pub threshold_abs: bool,
    /// Epochs to wait after a reduction (default 0).
    pub cooldown: usize,
    /// The lowest rate (default 0).
    pub min_lr: f64,
    /// Reductions smaller than this are skipped (default 1e-8).
    pub eps: f64,
    best: Option<f64>,
    bad_epochs: usize,
    cooldown_left: usize,
}

impl ReduceOnPlateau {
    /// PyTorch's defaults (mode `min`).
    pub fn new() -> Self {
        ReduceOnPlateau {
            maximize: false,
            factor: 0.1,
            patience: 10,
            threshold: 1e-4,
            threshold_abs: false,
            cooldown: 0,
            min_lr: 0.0,
            eps: 1e-8,
            best: None,
            bad_epochs: 0,
            cooldown_left: 0,
        }
    }

    fn better(&self, a: f64) -> bool {
        // Before the first metric, PyTorch's best is the worst value.
        let best = self.best.unwrap_or(if self.maximize {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
        let t = self.threshold;
        match (self.maximize, self.threshold_abs) {
            (false, false) => a < best * (1.0 - t),
            (false, true) => a < best - t,
            (true, false) => a > best * (t + 1.0),
            (true, true) => a > best + t,
        }
    }

    /// Records the epoch's `metric` and reduces `opt`'s rate when it has plateaued; returns
    /// the rate for the next epoch.
    pub fn step(&mut self, metric: f64, opt: &mut dyn Optimizer) -> f64 {
        if self.better(metric) {
            self.best = Some(metric);
            self.bad_epochs = 0;
        } else {
            self.bad_epochs += 1;
        }
        if self.cooldown_left > 0 {
            self.cooldown_left -= 1;
            self.bad_epochs = 0;
        }
        if self.bad_epochs > self.patience {
            let old = opt.lr();
            let new = (old * self.factor).max(self.min_lr);
            if old - new > self.eps {
                opt.set_lr(new);
            }
            self.cooldown_left = self.cooldown;
            self.bad_epochs = 0;
        }
        opt.lr()
    }
}

impl Default for ReduceOnPlateau {
    fn default() -> Self {
        Self::new()
    }
}
