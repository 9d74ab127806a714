//! Loss scaling for 16-bit training (PyTorch `torch.amp.GradScaler`): the loss is multiplied
//! by a large factor before `backward`, so small gradients survive f16's narrow range; the
//! gradients are divided by it again before the optimizer's step, a step whose gradients hold
//! an inf or NaN is skipped, and the factor adapts (halved after an overflow, doubled after
//! `growth_interval` clean steps).

use super::{Optimizer, acc, grad_of};
use crate::autograd::no_grad;
use crate::backend::Backend;
use crate::device::Cpu;
use crate::dtype::FloatElement;
use crate::dynamic::DynTensor;
use crate::error::{Error, Result};
use crate::ops::converted;
use crate::tensor::Tensor;
use std::collections::BTreeMap;

/// Where the scaler is between two `update`s (PyTorch's per-optimizer `OptState`).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Stage {
    /// Nothing since the last `update`.
    Ready,
    /// The gradients were unscaled; `found_inf` says whether one held an inf or NaN.
    Unscaled { found_inf: bool },
    /// The step ran (or was skipped, when `found_inf`).
    Stepped { found_inf: bool },
}

/// Dynamic loss scaling (PyTorch `torch.amp.GradScaler`, the same defaults and update rule).
///
/// One iteration: `scaler.scale(&loss)?.try_backward()?`, then optionally
/// [`GradScaler::unscale_`] (to clip the true gradients), then
/// [`GradScaler::step`] (unscales if not done yet, and steps unless a gradient is not
/// finite), then [`GradScaler::update`]. Parameters whose dtype is a run-time value
/// (`DynTensor`s, under a [`crate::dynamic::DynOptimizer`]) take `scale_dyn`, `unscale_dyn_`
/// and `step_dyn`.
///
/// Several optimizers may share one scaler, as in PyTorch: each `step(opt, params)` unscales
/// and checks its own parameters (told apart by their storages) and is skipped only for its
/// own overflow, and `update` backs off when any of them overflowed.
///
/// Unlike PyTorch, which refuses to unscale f16 gradients (it expects f32 master weights
/// under autocast), f16 and bf16 parameters are accepted: the scale and the division run in
/// the compute type (f32), and only the result is rounded to the parameter's dtype. A
/// gradient is checked for inf/NaN after the division, which also catches one that the
/// division pushes past the dtype's range.
///
/// ```
/// use typed_tensor::prelude::*;
/// use typed_tensor::optim::{GradScaler, Optimizer, Sgd};
/// let w = Tensor::<f16>::from_vec(vec![f16::from_f32(0.5)], [1])?.with_requires_grad(true)?;
/// let mut opt = Sgd::new(vec![w.clone()], 0.5);
/// let mut scaler = GradScaler::new(); // scale 65536
/// let loss = w.try_mul(&w)?.try_sum(&[], false)?; // gradient 2w = 1
/// opt.zero_grad()?;
/// scaler.scale(&loss)?.try_backward()?; // 65536 overflows f16: the step is skipped
/// assert!(!scaler.step(&mut opt, &[w.clone()])?);
/// scaler.update()?;
/// assert_eq!(scaler.get_scale(), 32768.0);
/// opt.zero_grad()?;
/// scaler.scale(&w.try_mul(&w)?.try_sum(&[], false)?)?.try_backward()?;
/// assert!(scaler.step(&mut opt, &[w.clone()])?); // 32768 fits: w ← 0.5 - 0.5·1
/// scaler.update()?;
/// assert_eq!(w.to_vec()[0].to_f32(), 0.0);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct GradScaler {
    scale: f64,
    growth_factor: f64,
    backoff_factor: f64,
    growth_interval: u64,
    growth_tracker: u64,
    enabled: bool,
    /// Each parameter set's stage since the last `update` (keyed by its storages; a set not
    /// listed is ready), as PyTorch keeps one per optimizer.
    stages: Vec<(Vec<usize>, Stage)>,
}

impl Default for GradScaler {
    fn default() -> Self {
        Self::new()
    }
}

fn invalid(op: &'static str, msg: String) -> Error {
    Error::InvalidArgument { op, msg }
}

/// The ids of the parameters' storages: what tells one optimizer's parameter set from
/// another's.
pub(crate) fn storage_key<T: FloatElement, D: Backend>(params: &[Tensor<T, D>]) -> Vec<usize> {
    params.iter().map(|p| D::storage_id(&p.storage)).collect()
}

/// A gradient buffer, its unscaled value and whether that is finite.
pub(crate) type Unscaled<T, D> = (Tensor<T, D>, Tensor<T, D>, Tensor<bool, D>);

/// `p`'s gradient buffer, the gradient times `inv` (computed in `T::Acc`, rounded to `T`), and
/// whether all of that is finite (a 0-d bool on `p`'s device).
pub(crate) fn unscaled<T: FloatElement, D: Backend>(
    p: &Tensor<T, D>,
    inv: f64,
    op: &'static str,
) -> Result<Unscaled<T, D>> {
    let g = grad_of(p, op)?;
    let u = converted::<T, T::Acc, D>(&g)?.try_mul_scalar(acc::<T>(inv))?;
    let u = converted::<T::Acc, T, D>(&u)?;
    let ok = u.try_isfinite()?.try_all(&[], false)?;
    Ok((g, u, ok))
}

impl GradScaler {
    /// PyTorch's defaults: `init_scale = 2^16`, `growth_factor = 2`, `backoff_factor = 0.5`,
    /// `growth_interval = 2000`, enabled.
    pub fn new() -> Self {
        GradScaler {
            scale: 65536.0,
            growth_factor: 2.0,
            backoff_factor: 0.5,
            growth_interval: 2000,
            growth_tracker: 0,
            enabled: true,
            stages: Vec::new(),
        }
    }

    /// A scaler with every option (PyTorch's constructor); a disabled one makes `scale`,
    /// `step` and `update` plain pass-throughs, as there.
    ///
    /// # Errors
    /// `InvalidArgument` unless `init_scale` is finite and positive in f32, `growth_factor`
    /// is finite and above 1, `backoff_factor` lies in `(0, 1)` and `growth_interval` is at
    /// least 1 (PyTorch asserts the two factors' sides).
    pub fn with_options(
        init_scale: f64,
        growth_factor: f64,
        backoff_factor: f64,
        growth_interval: u64,
        enabled: bool,
    ) -> Result<Self> {
        const OP: &str = "GradScaler::with_options";
        let scale = f64::from(init_scale as f32);
        if !(scale.is_finite() && scale > 0.0) {
            return Err(invalid(
                OP,
                format!("init_scale must be finite and positive in f32, got {init_scale}"),
            ));
        }
        if !(growth_factor.is_finite() && growth_factor > 1.0) {
            return Err(invalid(
                OP,
                format!("growth_factor must be finite and above 1, got {growth_factor}"),
            ));
        }
        if !(backoff_factor > 0.0 && backoff_factor < 1.0) {
            return Err(invalid(
                OP,
                format!("backoff_factor must lie in (0, 1), got {backoff_factor}"),
            ));
        }
        if growth_interval == 0 {
            return Err(invalid(OP, "growth_interval must be at least 1".into()));
        }
        Ok(GradScaler {
            scale,
            growth_factor,
            backoff_factor,
            growth_interval,
            growth_tracker: 0,
            enabled,
            stages: Vec::new(),
        })
    }

    /// The current scale (1 when disabled, as PyTorch's `get_scale`).
    pub fn get_scale(&self) -> f64 {
        if self.enabled { self.scale } else { 1.0 }
    }

    /// Whether scaling is on (PyTorch `is_enabled`).
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// The clean steps since the scale last changed (PyTorch's `_growth_tracker`).
    pub fn growth_tracker(&self) -> u64 {
        self.growth_tracker
    }

    /// `loss · scale`, computed and returned in the compute type `T::Acc` (f32 for f16 and
    /// bf16 losses, so the product cannot overflow before `backward`); recorded, so
    /// `backward` from it sends gradients multiplied by the scale. Disabled: `loss` in
    /// `T::Acc`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn scale<T: FloatElement, D: Backend>(
        &self,
        loss: &Tensor<T, D>,
    ) -> Result<Tensor<T::Acc, D>> {
        let l = converted::<T, T::Acc, D>(loss)?;
        match self.enabled {
            true => l.try_mul_scalar(acc::<T>(self.scale)),
            false => Ok(l),
        }
    }

    /// Divides the gradient buffer of every parameter in `params` by the scale, in place
    /// (PyTorch `unscale_`), and records whether any gradient element is inf or NaN. Call it
    /// once per iteration, before clipping; [`GradScaler::step`] then uses the result. One
    /// read back to the host (the inf/NaN flag), as in PyTorch. Disabled: nothing. Frozen
    /// parameters are left out, as PyTorch leaves out those without a gradient.
    ///
    /// # Errors
    /// `InvalidArgument` when `unscale_` or `step` already ran since the last `update`, or a
    /// parameter does not require grad; `Device` when they are on different devices. No
    /// gradient is written on error.
    pub fn unscale_<T: FloatElement, D: Backend>(&mut self, params: &[Tensor<T, D>]) -> Result<()> {
        const OP: &str = "GradScaler::unscale_";
        let key = storage_key(params);
        let Some(inv) = self.begin_unscale(OP, &key)? else {
            return Ok(());
        };
        let found_inf = no_grad(|| {
            let mut writes = Vec::with_capacity(params.len());
            let mut finite: Option<Tensor<bool, D>> = None;
            for (_, p) in super::trainable(params) {
                let (g, u, ok) = unscaled(p, inv, OP)?;
                finite = Some(match finite {
                    Some(f) => f.try_logical_and(&ok)?,
                    None => ok,
                });
                writes.push((g, u));
            }
            let found_inf = match finite {
                Some(f) => !f.try_item()?,
                None => false,
            };
            for (mut g, u) in writes {
                g.copy_from(&u)?;
            }
            Ok(found_inf)
        })?;
        self.finish_unscale(&key, found_inf);
        Ok(())
    }

    /// The stage of the parameter set `key` (their storages' ids).
    fn stage(&self, key: &[usize]) -> Stage {
        (self.stages.iter())
            .find(|(k, _)| k == key)
            .map_or(Stage::Ready, |(_, s)| *s)
    }

    fn set_stage(&mut self, key: &[usize], stage: Stage) {
        match self.stages.iter_mut().find(|(k, _)| k == key) {
            Some((_, s)) => *s = stage,
            None => self.stages.push((key.to_vec(), stage)),
        }
    }

    /// The inverse scale (PyTorch's f32 reciprocal) when scaling is on and `unscale_` may
    /// run now on the parameter set `key`; `None` when disabled.
    pub(crate) fn begin_unscale(&self, op: &'static str, key: &[usize]) -> Result<Option<f64>> {
        if !self.enabled {
            return Ok(None);
        }
        match self.stage(key) {
            Stage::Ready => Ok(Some(f64::from((1.0 / self.scale) as f32))),
            Stage::Unscaled { .. } => Err(invalid(
                op,
                "unscale_ was already called on these parameters since the last update()".into(),
            )),
            Stage::Stepped { .. } => Err(invalid(
                op,
                "unscale_ is called before step(), not after it; call update() first".into(),
            )),
        }
    }

    /// Records the result of an unscale that [`GradScaler::begin_unscale`] allowed.
    pub(crate) fn finish_unscale(&mut self, key: &[usize], found_inf: bool) {
        self.set_stage(key, Stage::Unscaled { found_inf });
    }

    /// Unscales the gradients of `params` (unless [`GradScaler::unscale_`] already did),
    /// then runs `opt.step()` unless a gradient held an inf or NaN (PyTorch `step`). Returns
    /// whether the step ran. `params` are the parameters `opt` updates. Disabled: `opt.step()`.
    ///
    /// # Errors
    /// `InvalidArgument` when `step` already ran since the last `update`; as
    /// [`GradScaler::unscale_`]; the optimizer's errors (the scaler then stays unscaled, so
    /// `step` can be retried).
    pub fn step<T: FloatElement, D: Backend, O: Optimizer + ?Sized>(
        &mut self,
        opt: &mut O,
        params: &[Tensor<T, D>],
    ) -> Result<bool> {
        self.step_with(opt, &storage_key(params), |s| s.unscale_(params))
    }

    /// `step` with `unscale` run when the gradients are not unscaled yet.
    pub(crate) fn step_with<O: Optimizer + ?Sized>(
        &mut self,
        opt: &mut O,
        key: &[usize],
        unscale: impl FnOnce(&mut Self) -> Result<()>,
    ) -> Result<bool> {
        if !self.enabled {
            opt.step()?;
            return Ok(true);
        }
        if let Stage::Stepped { .. } = self.stage(key) {
            return Err(invalid(
                "GradScaler::step",
                "step() was already called on these parameters since the last update()".into(),
            ));
        }
        if self.stage(key) == Stage::Ready {
            unscale(self)?;
        }
        let Stage::Unscaled { found_inf } = self.stage(key) else {
            unreachable!("unscale_ leaves the parameters unscaled")
        };
        if !found_inf {
            opt.step()?;
        }
        self.set_stage(key, Stage::Stepped { found_inf });
        Ok(!found_inf)
    }

    /// Adapts the scale after an iteration (PyTorch `update`): multiplied by
    /// `backoff_factor` when a gradient was not finite, by `growth_factor` after
    /// `growth_interval` finite iterations in a row (unless that overflows f32), and kept
    /// otherwise. Disabled: nothing.
    ///
    /// # Errors
    /// `InvalidArgument` when neither `unscale_` nor `step` ran since the last `update`
    /// (PyTorch: "No inf checks were recorded prior to update").
    pub fn update(&mut self) -> Result<()> {
        if !self.enabled {
            return Ok(());
        }
        if self.stages.is_empty() {
            return Err(invalid(
                "GradScaler::update",
                "no inf checks were recorded since the last update(): call step() (or unscale_) first".into(),
            ));
        }
        let found_inf = (self.stages.iter()).any(|(_, s)| {
            matches!(
                s,
                Stage::Unscaled { found_inf: true } | Stage::Stepped { found_inf: true }
            )
        });
        if found_inf {
            self.scale = f64::from((self.scale * self.backoff_factor) as f32);
            self.growth_tracker = 0;
        } else if self.growth_tracker + 1 == self.growth_interval {
            let grown = (self.scale * self.growth_factor) as f32;
            if grown.is_finite() {
                self.scale = f64::from(grown);
            }
            self.growth_tracker = 0;
        } else {
            self.growth_tracker += 1;
        }
        self.stages.clear();
        Ok(())
    }

    /// Sets the scale to `new_scale` (PyTorch `update(new_scale)`), ending the iteration.
    ///
    /// # Errors
    /// `InvalidArgument` unless `new_scale` is finite and positive in f32.
    pub fn update_to(&mut self, new_scale: f64) -> Result<()> {
        let s = f64::from(new_scale as f32);
        if !(s.is_finite() && s > 0.0) {
            return Err(invalid(
                "GradScaler::update_to",
                format!("the scale must be finite and positive in f32, got {new_scale}"),
            ));
        }
        if self.enabled {
            self.scale = s;
            self.stages.clear();
        }
        Ok(())
    }

    /// The scaler's state as 0-d f64 CPU tensors with PyTorch's names (`scale`,
    /// `growth_factor`, `backoff_factor`, `growth_interval`, `_growth_tracker`), for
    /// `io::save_safetensors`; empty when disabled, as PyTorch.
    pub fn state_dict(&self) -> Vec<(String, DynTensor)> {
        if !self.enabled {
            return Vec::new();
        }
        self.entries()
            .into_iter()
            .map(|(k, v)| {
                (
                    k.to_string(),
                    DynTensor::from(Tensor::<f64, Cpu>::scalar(v)),
                )
            })
            .collect()
    }

    fn entries(&self) -> [(&'static str, f64); 5] {
        [
            ("scale", self.scale),
            ("growth_factor", self.growth_factor),
            ("backoff_factor", self.backoff_factor),
            ("growth_interval", self.growth_interval as f64),
            ("_growth_tracker", self.growth_tracker as f64),
        ]
    }

    /// Restores what [`GradScaler::state_dict`] saved (PyTorch `load_state_dict`).
    ///
    /// # Errors
    /// `InvalidArgument` for an empty `state` (PyTorch: "The source state dict is empty"),
    /// a missing or unknown entry, or values [`GradScaler::with_options`] refuses or a
    /// growth tracker that is not a whole number below the interval; the scaler is unchanged
    /// then.
    pub fn load_state_dict(&mut self, state: &BTreeMap<String, DynTensor>) -> Result<()> {
        const OP: &str = "GradScaler::load_state_dict";
        if state.is_empty() {
            return Err(invalid(
                OP,
                "the state dict is empty: it was saved from a disabled scaler".into(),
            ));
        }
        let names = self.entries().map(|(k, _)| k);
        let mut v = [f64::NAN; 5];
        for (key, t) in state {
            let Some(i) = names.iter().position(|n| n == key) else {
                return Err(invalid(
                    OP,
                    format!(
                        "unknown entry {key:?}: a GradScaler keeps {}",
                        names.join(", ")
                    ),
                ));
            };
            if t.shape().numel() != 1 {
                let s = t.shape();
                return Err(invalid(
                    OP,
                    format!("entry {key:?} must hold one value, got shape {s}"),
                ));
            }
            v[i] = t
                .to_cpu()?
                .to_dtype(crate::dtype::Dtype::Float64)?
                .to_vec::<f64>()?[0];
        }
        if let Some(i) = v.iter().position(|x| x.is_nan()) {
            return Err(invalid(
                OP,
                format!("the entry {:?} is missing or NaN", names[i]),
            ));
        }
        let whole = |x: f64| x.fract() == 0.0 && (0.0..9.007_199_254_740_992e15).contains(&x);
        if !whole(v[3]) || !whole(v[4]) || v[4] >= v[3] {
            return Err(invalid(
                OP,
                format!(
                    "growth_interval ({}) and _growth_tracker ({}) must be whole numbers with the tracker below the interval",
                    v[3], v[4]
                ),
            ));
        }
        let mut loaded = Self::with_options(v[0], v[1], v[2], v[3] as u64, true)?;
        loaded.growth_tracker = v[4] as u64;
        *self = loaded;
        Ok(())
    }
}
