//! Optimizers over runtime-dtype parameters: [`DynOptimizer`] groups `DynTensor` parameters
//! by dtype and device and runs one typed optimizer (`crate::optim`) per group, built from a
//! [`Recipe`], so the update is the typed one, bit for bit.

use super::DeviceTensor;
use super::DynTensor;
use crate::autograd::no_grad;
use crate::backend::Backend;
use crate::device::DeviceIndex;
use crate::dtype::{Dtype, FloatElement};
use crate::error::{Error, Result};
use crate::optim::{
    Adadelta, Adagrad, Adam, Adamax, GradScaler, NAdam, Optimizer, RAdam, RmsProp, Sgd,
};
use crate::tensor::Tensor;
use std::collections::BTreeMap;

/// How to build a typed optimizer over one group of parameters (one dtype, one device).
/// Every typed optimizer with a learning rate is a recipe: its hyperparameters are copied and
/// its own parameters ignored, so `Adam::<f32, Cpu>::adamw(vec![], 1e-3)` describes AdamW for
/// parameters of any float dtype on any device. Implement it for other set-ups.
pub trait Recipe {
    /// The optimizer over `params`.
    fn build<T: FloatElement, D: Backend>(&self, params: Vec<Tensor<T, D>>) -> Box<dyn Optimizer>;
}

/// `Recipe` for typed optimizers: `new(params, lr)`, then the named public fields copied.
macro_rules! recipes {
    ($($name:ident { $($field:ident),* };)*) => {$(
        impl<A: FloatElement, B: Backend> Recipe for $name<A, B> {
            fn build<T: FloatElement, D: Backend>(&self, params: Vec<Tensor<T, D>>) -> Box<dyn Optimizer> {
                let mut o = $name::<T, D>::new(params, 0.0);
                o.lr = self.lr;
                $(o.$field = self.$field;)*
                Box::new(o)
            }
        }
    )*};
}

recipes! {
    Sgd { momentum, dampening, nesterov, weight_decay, maximize };
    Adam { betas, eps, weight_decay, decoupled_weight_decay, amsgrad, maximize };
    RmsProp { alpha, eps, weight_decay, momentum, centered, maximize };
    Adagrad { lr_decay, weight_decay, initial_accumulator_value, eps, maximize };
}

/// As `recipes!` for the optimizers whose `new` takes no learning rate.
macro_rules! recipes_default_lr {
    ($($name:ident { $($field:ident),* };)*) => {$(
        impl<A: FloatElement, B: Backend> Recipe for $name<A, B> {
            fn build<T: FloatElement, D: Backend>(&self, params: Vec<Tensor<T, D>>) -> Box<dyn Optimizer> {
                let mut o = $name::<T, D>::new(params);
                o.lr = self.lr;
                $(o.$field = self.$field;)*
                Box::new(o)
            }
        }
    )*};
}

recipes_default_lr! {
    Adamax { betas, eps, weight_decay, maximize };
    NAdam { betas, eps, weight_decay, momentum_decay, decoupled_weight_decay, maximize };
    RAdam { betas, eps, weight_decay, decoupled_weight_decay, maximize };
    Adadelta { rho, eps, weight_decay, maximize };
}

/// One typed optimizer and the positions of its parameters in the list given to
/// [`DynOptimizer::new`].
struct Group {
    members: Vec<usize>,
    opt: Box<dyn Optimizer>,
}

/// An optimizer over `DynTensor` parameters of any float dtypes and devices (PyTorch's
/// optimizers take a parameter list whatever its dtypes): one typed optimizer per (dtype,
/// device) group, stepped together. It is an [`Optimizer`], so learning-rate schedules and
/// checkpoints work as for the typed ones; its `state_dict` names each buffer by the
/// parameter's position in the list (`"2.exp_avg"`), as PyTorch.
///
/// ```
/// use typed_tensor::prelude::*;
/// use typed_tensor::dynamic::DynOptimizer;
/// use typed_tensor::optim::Optimizer;
/// // The dtype is a run-time value: f64 here, f16 or bf16 from a flag elsewhere.
/// let w = DynTensor::full([2], TensorOptions::new().dtype(Dtype::Float64).requires_grad(true), 1.0)?;
/// let mut opt = DynOptimizer::sgd(&[w.clone()], 0.25)?;
/// w.mul(&w)?.reduce_sum(&[], false)?.backward()?; // gradient 2w
/// opt.step()?;
/// assert_eq!(w.to_vec::<f64>()?, vec![0.5, 0.5]);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
pub struct DynOptimizer {
    groups: Vec<Group>,
    len: usize,
}

const OP: &str = "DynOptimizer::new";

/// The typed optimizer `recipe` builds over `members`, all of `_first`'s dtype and device.
fn build_group<T: FloatElement, D: Backend, R: Recipe + ?Sized>(
    _first: &Tensor<T, D>,
    members: &[&DynTensor],
    recipe: &R,
) -> Result<Box<dyn Optimizer>> {
    let params = (members.iter())
        .map(|m| (*m).clone().downcast::<T, D>())
        .collect::<Result<Vec<_>>>()?;
    Ok(recipe.build(params))
}

impl DynOptimizer {
    /// `recipe`'s optimizer over `params`, one typed optimizer per (dtype, device) group,
    /// each parameter sharing its storage and gradient with the caller's handle.
    ///
    /// # Errors
    /// `InvalidArgument` for an empty list (as PyTorch), a non-float parameter, or one that
    /// does not require grad (naming its position).
    pub fn new<R: Recipe + ?Sized>(params: &[DynTensor], recipe: &R) -> Result<Self> {
        if params.is_empty() {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: "got an empty parameter list".into(),
            });
        }
        let mut keys: Vec<(Dtype, DeviceIndex, Vec<usize>)> = Vec::new();
        for (i, p) in params.iter().enumerate() {
            // A frozen parameter is kept (the typed optimizers skip it while it is frozen).
            if !p.dtype().is_float() || !(p.requires_grad() || p.is_frozen()) {
                return Err(Error::InvalidArgument {
                    op: OP,
                    msg: format!(
                        "parameter {i} ({} of shape {}) must be a float tensor that requires grad; call set_requires_grad(true) on it",
                        p.dtype(),
                        p.shape()
                    ),
                });
            }
            let key = (p.dtype(), p.device());
            match keys.iter_mut().find(|(d, dev, _)| (*d, *dev) == key) {
                Some((_, _, members)) => members.push(i),
                None => keys.push((key.0, key.1, vec![i])),
            }
        }
        let groups = (keys.into_iter())
            .map(|(_, _, members)| {
                let tensors: Vec<&DynTensor> = members.iter().map(|&i| &params[i]).collect();
                let opt = dyn_float!(tensors[0], t => build_group(t, &tensors, recipe)?, _o => {
                    unreachable!("float dtypes were checked")
                });
                Ok(Group { members, opt })
            })
            .collect::<Result<_>>()?;
        Ok(DynOptimizer {
            groups,
            len: params.len(),
        })
    }

    /// SGD with learning rate `lr` and PyTorch's defaults (`torch.optim.SGD(params, lr)`).
    ///
    /// # Errors
    /// As [`DynOptimizer::new`].
    pub fn sgd(params: &[DynTensor], lr: f64) -> Result<Self> {
        Self::new(params, &Sgd::<f32, crate::device::Cpu>::new(Vec::new(), lr))
    }

    /// Adam with learning rate `lr` and PyTorch's defaults.
    ///
    /// # Errors
    /// As [`DynOptimizer::new`].
    pub fn adam(params: &[DynTensor], lr: f64) -> Result<Self> {
        Self::new(
            params,
            &Adam::<f32, crate::device::Cpu>::new(Vec::new(), lr),
        )
    }

    /// AdamW with learning rate `lr` and PyTorch's defaults (weight decay 0.01).
    ///
    /// # Errors
    /// As [`DynOptimizer::new`].
    pub fn adamw(params: &[DynTensor], lr: f64) -> Result<Self> {
        Self::new(
            params,
            &Adam::<f32, crate::device::Cpu>::adamw(Vec::new(), lr),
        )
    }

    /// The number of (dtype, device) groups, one typed optimizer each.
    pub fn num_groups(&self) -> usize {
        self.groups.len()
    }
}

/// `key` as (parameter position, buffer name) when it names a per-parameter buffer.
fn per_param(key: &str) -> Option<(usize, &str)> {
    let (i, name) = key.split_once('.')?;
    Some((i.parse().ok()?, name))
}

impl Optimizer for DynOptimizer {
    /// Steps every group's optimizer in turn; a group's `Err` stops there (the groups before
    /// it have stepped).
    fn step(&mut self) -> Result<()> {
        self.groups.iter_mut().try_for_each(|g| g.opt.step())
    }

    fn zero_grad(&self) -> Result<()> {
        self.groups.iter().try_for_each(|g| g.opt.zero_grad())
    }

    fn lr(&self) -> f64 {
        self.groups[0].opt.lr()
    }

    fn set_lr(&mut self, lr: f64) {
        self.groups.iter_mut().for_each(|g| g.opt.set_lr(lr));
    }

    /// Every group's state with each buffer renamed to its parameter's position in the list;
    /// the counters (`"step"`) once, as the groups step together.
    fn state_dict(&self) -> Result<Vec<(String, DynTensor)>> {
        let mut out: Vec<(String, DynTensor)> = Vec::new();
        for g in &self.groups {
            for (key, t) in g.opt.state_dict()? {
                match per_param(&key) {
                    Some((local, name)) => out.push((format!("{}.{name}", g.members[local]), t)),
                    None if out.iter().any(|(k, _)| *k == key) => {}
                    None => out.push((key, t)),
                }
            }
        }
        Ok(out)
    }

    /// Hands each group the buffers of its parameters (renamed to its own positions) and
    /// every counter; all or nothing: when a group refuses its part, the groups loaded
    /// before it get their previous state back.
    fn load_state_dict(&mut self, state: &BTreeMap<String, DynTensor>) -> Result<()> {
        let mut parts: Vec<BTreeMap<String, DynTensor>> = vec![BTreeMap::new(); self.groups.len()];
        for (key, t) in state {
            match per_param(key) {
                Some((i, name)) => {
                    let found = (self.groups.iter().enumerate())
                        .find_map(|(g, grp)| Some((g, grp.members.iter().position(|&m| m == i)?)));
                    let Some((g, local)) = found else {
                        return Err(Error::InvalidArgument {
                            op: "load_state_dict",
                            msg: format!(
                                "entry {key:?} names parameter {i}, but this optimizer has {} parameters",
                                self.len
                            ),
                        });
                    };
                    parts[g].insert(format!("{local}.{name}"), t.clone());
                }
                None => parts.iter_mut().for_each(|p| {
                    p.insert(key.clone(), t.clone());
                }),
            }
        }
        let members: Vec<Vec<usize>> = self.groups.iter().map(|g| g.members.clone()).collect();
        let mut opts: Vec<&mut Box<dyn Optimizer>> =
            self.groups.iter_mut().map(|g| &mut g.opt).collect();
        crate::optim::load_all_or_nothing(&mut opts, &parts, |g, e| Error::InvalidArgument {
            op: "load_state_dict",
            msg: format!(
                "the group of parameters {:?} (numbered 0.. within it below) refused its state: {e}",
                members[g]
            ),
        })
    }
}

/// Loss scaling for runtime-dtype training: the `DynTensor` forms of
/// [`GradScaler::scale`], [`GradScaler::unscale_`] and [`GradScaler::step`], for parameters of
/// any float dtypes and devices (one inf/NaN read-back per device).
impl GradScaler {
    /// `loss · scale` in the compute type (f32 for a 16-bit loss), as [`GradScaler::scale`].
    ///
    /// # Errors
    /// `InvalidArgument` for a non-float loss; allocation failure.
    pub fn scale_dyn(&self, loss: &DynTensor) -> Result<DynTensor> {
        dyn_float!(loss, t => Ok(DynTensor::from(self.scale(t)?)), other => Err(Error::InvalidArgument {
            op: "GradScaler::scale_dyn",
            msg: format!("the loss must be a float tensor, got {}", other.dtype()),
        }))
    }

    /// [`GradScaler::unscale_`] over `DynTensor` parameters.
    ///
    /// # Errors
    /// As [`GradScaler::unscale_`]; `InvalidArgument` for a non-float parameter. No gradient
    /// is written on error.
    pub fn unscale_dyn_(&mut self, params: &[DynTensor]) -> Result<()> {
        const OP: &str = "GradScaler::unscale_dyn_";
        let key = dyn_storage_key(params);
        let Some(inv) = self.begin_unscale(OP, &key)? else {
            return Ok(());
        };
        type Write = Box<dyn FnOnce() -> Result<()>>;
        let found_inf = no_grad(|| {
            let mut writes: Vec<Write> = Vec::with_capacity(params.len());
            // One flag per device, and-ed on it.
            let mut flags: Vec<(DeviceIndex, DynTensor)> = Vec::new();
            for p in params {
                let ok = dyn_float!(p, t => {
                    if t.is_frozen() {
                        continue;
                    }
                    let (mut g, u, ok) = crate::optim::scaler_unscaled(t, inv, OP)?;
                    writes.push(Box::new(move || g.copy_from(&u)));
                    DynTensor::from(ok)
                }, other => return Err(Error::InvalidArgument {
                    op: OP,
                    msg: format!("parameters must be float tensors, got {}", other.dtype()),
                }));
                let d = ok.device();
                match flags.iter_mut().find(|(k, _)| *k == d) {
                    Some((_, acc)) => *acc = and(acc, &ok)?,
                    None => flags.push((d, ok)),
                }
            }
            let mut found_inf = false;
            for (_, f) in &flags {
                found_inf |= !f.to_vec::<bool>()?[0];
            }
            writes.into_iter().try_for_each(|w| w())?;
            Ok(found_inf)
        })?;
        self.finish_unscale(&key, found_inf);
        Ok(())
    }

    /// [`GradScaler::step`] over `DynTensor` parameters (a [`DynOptimizer`] or any other
    /// optimizer over them).
    ///
    /// # Errors
    /// As [`GradScaler::step`] and [`GradScaler::unscale_dyn_`].
    pub fn step_dyn<O: Optimizer + ?Sized>(
        &mut self,
        opt: &mut O,
        params: &[DynTensor],
    ) -> Result<bool> {
        self.step_with(opt, &dyn_storage_key(params), |s| s.unscale_dyn_(params))
    }
}

/// The ids of the parameters' storages (what tells one optimizer's parameters from another's).
fn dyn_storage_key(params: &[DynTensor]) -> Vec<usize> {
    fn id<T: crate::dtype::Element, D: Backend>(t: &Tensor<T, D>) -> usize {
        D::storage_id(&t.storage)
    }
    params.iter().map(|p| dyn_each!(p, t => id(t))).collect()
}

/// `a & b` of two 0-d bool flags on one device.
fn and(a: &DynTensor, b: &DynTensor) -> Result<DynTensor> {
    match (a, b) {
        (DynTensor::Bool(DeviceTensor::Cpu(x)), DynTensor::Bool(DeviceTensor::Cpu(y))) => {
            Ok(x.try_logical_and(y)?.into())
        }
        (DynTensor::Bool(DeviceTensor::Cuda(x)), DynTensor::Bool(DeviceTensor::Cuda(y))) => {
            Ok(x.try_logical_and(y)?.into())
        }
        _ => unreachable!("flags are bool tensors grouped by device"),
    }
}
