//! Parameter groups (PyTorch's `param_groups`): several optimizers, each over its own
//! parameters with its own hyperparameters, stepped, zeroed, scheduled and checkpointed as one.

use super::Optimizer;
use crate::dynamic::DynTensor;
use crate::error::{Error, Result};
use std::collections::BTreeMap;

/// One optimizer made of parameter groups, as PyTorch's
/// `AdamW([{"params": decay}, {"params": no_decay, "weight_decay": 0}], lr=1e-3)`: each group
/// is an optimizer over its own parameters with its own hyperparameters (learning rate, weight
/// decay, betas, ...; usually all of one kind, but any [`Optimizer`] may be a group), and
/// `step`, `zero_grad`, schedules, [`GradScaler`](super::GradScaler) and checkpoints treat
/// them as one optimizer.
///
/// **Learning rates.** Each group's rate when it is added is its base rate (PyTorch's
/// `initial_lr`). [`Optimizer::lr`] is the *reference group*'s rate (the first with a non-zero
/// base; group 0 when all are zero), and [`Optimizer::set_lr`] gives every group
/// `lr · base_g / base_ref`: a schedule built on the reference group's base rate moves every
/// group by the same factor, which is PyTorch's result for its multiplicative schedules
/// (`StepLR`, `MultiStepLR`, `ExponentialLR`, `LinearLR`, `LambdaLR`, `PolynomialLR`,
/// `ConstantLR`, `ReduceLROnPlateau` without `min_lr`, `CosineAnnealingLR` with `eta_min` 0).
/// A schedule's floor (`CosineAnnealing::min`, ...) is scaled with each group, where PyTorch
/// applies it unscaled to each; set such rates per group with [`ParamGroups::group_mut`].
/// Groups whose base rate is 0 stay at 0; when every base rate is 0, every group gets `lr`.
/// A group added later ([`ParamGroups::add_param_group`]) moves from its own rate by the
/// factors that come after it, as PyTorch's `scheduler.step()` moves it.
///
/// **State.** [`Optimizer::state_dict`] holds each group's state under its group number:
/// `"1.0.exp_avg"` is group 1's buffer of its parameter 0, `"1.step"` its step counter (each
/// group counts its own steps, as PyTorch's per-parameter `step`).
///
/// ```
/// use typed_tensor::prelude::*;
/// use typed_tensor::optim::{Adam, LrSchedule, Optimizer, ParamGroups, StepDecay};
/// let w = Tensor::<f32>::from_vec(vec![1.0, -2.0], [2])?.with_requires_grad(true)?;
/// let b = Tensor::<f32>::from_vec(vec![0.5], [1])?.with_requires_grad(true)?;
/// let mut no_decay = Adam::adamw(vec![b.clone()], 1e-2);
/// no_decay.weight_decay = 0.0; // biases are not decayed
/// let mut opt = ParamGroups::new(vec![
///     Box::new(Adam::adamw(vec![w.clone()], 1e-3)),
///     Box::new(no_decay),
/// ])?;
/// let schedule = StepDecay { base: 1e-3, step_size: 1, gamma: 0.5 };
/// w.try_mul(&b)?.try_sum(&[], false)?.try_backward()?;
/// opt.step()?;
/// schedule.apply(&mut opt, 1); // every group's rate halves
/// assert_eq!(opt.lrs(), vec![5e-4, 5e-3]);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
pub struct ParamGroups {
    groups: Vec<Box<dyn Optimizer>>,
    base: Vec<f64>,
}

impl ParamGroups {
    /// The groups in order (group `g` is `groups[g]`), each's current rate its base rate.
    ///
    /// # Errors
    /// `InvalidArgument` for an empty list (PyTorch refuses an empty parameter list).
    pub fn new(groups: Vec<Box<dyn Optimizer>>) -> Result<Self> {
        if groups.is_empty() {
            return Err(Error::InvalidArgument {
                op: "ParamGroups::new",
                msg: "got no groups; pass at least one optimizer".into(),
            });
        }
        let base = groups.iter().map(|g| g.lr()).collect();
        Ok(ParamGroups { groups, base })
    }

    /// Appends a group (PyTorch's `add_param_group`), numbered [`ParamGroups::num_groups`]
    /// before the call. It keeps its rate until the next `set_lr`, and from there moves by the
    /// schedule's factors since it was added, as with PyTorch's schedules: its base rate is its
    /// rate divided by the current factor (the reference group's rate over its base), or its
    /// rate when that factor is 0 or not finite.
    pub fn add_param_group(&mut self, group: Box<dyn Optimizer>) {
        let lr = group.lr();
        let r = self.reference();
        let factor = self.groups[r].lr() / self.base[r];
        let base = if factor.is_finite() && factor != 0.0 {
            lr / factor
        } else {
            lr
        };
        self.base.push(base);
        self.groups.push(group);
    }

    /// The number of groups (at least 1).
    pub fn num_groups(&self) -> usize {
        self.groups.len()
    }

    /// Group `g`, or `None` past the last.
    pub fn group(&self, g: usize) -> Option<&dyn Optimizer> {
        self.groups.get(g).map(|o| o.as_ref())
    }

    /// Group `g` to change (its hyperparameters through [`Optimizer`]'s methods, its rate
    /// with `set_lr`; the base rate stays), or `None` past the last.
    pub fn group_mut(&mut self, g: usize) -> Option<&mut (dyn Optimizer + 'static)> {
        self.groups.get_mut(g).map(|o| o.as_mut())
    }

    /// Every group's current learning rate, in group order (PyTorch's
    /// `[g["lr"] for g in opt.param_groups]`).
    pub fn lrs(&self) -> Vec<f64> {
        self.groups.iter().map(|g| g.lr()).collect()
    }

    /// Every group's base learning rate (its rate when it was added; PyTorch's
    /// `initial_lr`).
    pub fn base_lrs(&self) -> &[f64] {
        &self.base
    }

    /// The reference group: the first with a non-zero base rate, else group 0.
    fn reference(&self) -> usize {
        self.base.iter().position(|&b| b != 0.0).unwrap_or(0)
    }
}

impl std::fmt::Debug for ParamGroups {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParamGroups")
            .field("lrs", &self.lrs())
            .field("base_lrs", &self.base)
            .finish()
    }
}

impl Optimizer for ParamGroups {
    /// Steps every group in order; a group's `Err` stops there (the groups before it have
    /// stepped, as PyTorch's loop over its groups).
    fn step(&mut self) -> Result<()> {
        self.groups.iter_mut().try_for_each(|g| g.step())
    }

    fn zero_grad(&self) -> Result<()> {
        self.groups.iter().try_for_each(|g| g.zero_grad())
    }

    /// The reference group's rate (see the type's documentation).
    fn lr(&self) -> f64 {
        self.groups[self.reference()].lr()
    }

    /// Every group's rate scaled from `lr` by its base rate (see the type's documentation).
    fn set_lr(&mut self, lr: f64) {
        let r = self.base[self.reference()];
        for (g, &b) in self.groups.iter_mut().zip(&self.base) {
            g.set_lr(if r == 0.0 { lr } else { lr * (b / r) });
        }
    }

    /// Each group's state with its entries prefixed by the group number (`"1.0.exp_avg"`,
    /// `"1.step"`).
    fn state_dict(&self) -> Result<Vec<(String, DynTensor)>> {
        let mut out = Vec::new();
        for (g, opt) in self.groups.iter().enumerate() {
            out.extend((opt.state_dict()?.into_iter()).map(|(key, t)| (format!("{g}.{key}"), t)));
        }
        Ok(out)
    }

    /// Hands each group the entries under its number, prefix removed; all or nothing: when a
    /// group refuses its part, the groups loaded before it get their previous state back.
    ///
    /// # Errors
    /// `InvalidArgument` naming an entry without a group number of this optimizer, or the
    /// group that refused its part and why; the state is unchanged then.
    fn load_state_dict(&mut self, state: &BTreeMap<String, DynTensor>) -> Result<()> {
        let mut parts: Vec<BTreeMap<String, DynTensor>> = vec![BTreeMap::new(); self.groups.len()];
        for (key, t) in state {
            let group = key
                .split_once('.')
                .and_then(|(g, rest)| Some((g.parse::<usize>().ok()?, rest)));
            match group {
                Some((g, rest)) if g < parts.len() => {
                    parts[g].insert(rest.to_string(), t.clone());
                }
                _ => {
                    return Err(Error::InvalidArgument {
                        op: "ParamGroups::load_state_dict",
                        msg: format!(
                            "entry {key:?} does not start with a group number below {} (\"<group>.<entry>\")",
                            parts.len()
                        ),
                    });
                }
            }
        }
        let mut opts: Vec<&mut Box<dyn Optimizer>> = self.groups.iter_mut().collect();
        load_all_or_nothing(&mut opts, &parts, |g, e| Error::InvalidArgument {
            op: "ParamGroups::load_state_dict",
            msg: format!("group {g} refused its state (entries \"{g}.*\"): {e}"),
        })
    }
}

/// Loads `parts[g]` into `opts[g]` for every `g`, all or nothing: when one refuses, the
/// optimizers loaded before it get their previous state back, and `describe(g, error)` is
/// returned (a failed restore's error as it is).
pub(crate) fn load_all_or_nothing(
    opts: &mut [&mut Box<dyn Optimizer>],
    parts: &[BTreeMap<String, DynTensor>],
    describe: impl FnOnce(usize, Error) -> Error,
) -> Result<()> {
    let before = (opts.iter())
        .map(|o| o.state_dict())
        .collect::<Result<Vec<_>>>()?;
    for (g, part) in parts.iter().enumerate() {
        if let Err(e) = opts[g].load_state_dict(part) {
            for (o, old) in opts.iter_mut().zip(&before).take(g) {
                let old: BTreeMap<String, DynTensor> = old.iter().cloned().collect();
                o.load_state_dict(&old)?;
            }
            return Err(describe(g, e));
        }
    }
    Ok(())
}
