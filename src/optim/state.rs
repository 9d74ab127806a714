//! Saving and restoring an optimizer's state (PyTorch's `optimizer.state_dict()` and
//! `load_state_dict`): the per-parameter buffers as `"{index}.{name}"` with PyTorch's names
//! (`"0.exp_avg"`, `"2.momentum_buffer"`) and the counters (`"step"`) as named tensors, so
//! `io::save_safetensors` can write a checkpoint that `io::load_safetensors` reads back.

use super::Slots;
use crate::backend::Backend;
use crate::device::Cpu;
use crate::dtype::{Element, FloatElement};
use crate::dynamic::DynTensor;
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;
use std::collections::BTreeMap;

const OP: &str = "load_state_dict";

fn invalid(msg: String) -> Error {
    Error::InvalidArgument { op: OP, msg }
}

/// A counter kept in an optimizer's state: the step count (u64) or a running product (f64).
pub(super) trait Counter: Sized + Copy {
    /// The value read back from entry `name`, checked.
    fn from_state(name: &str, v: f64) -> Result<Self>;
    /// The value as it is saved.
    fn to_state(self) -> f64;
}

impl Counter for u64 {
    fn from_state(name: &str, v: f64) -> Result<Self> {
        // Integral, non-negative and exact in f64 (PyTorch keeps the step as a float tensor).
        if v.fract() == 0.0 && (0.0..=9_007_199_254_740_992.0).contains(&v) {
            Ok(v as u64)
        } else {
            Err(invalid(format!(
                "entry {name:?} must be a whole number of steps in 0..=2^53, got {v}"
            )))
        }
    }
    fn to_state(self) -> f64 {
        self as f64
    }
}

impl Counter for f64 {
    fn from_state(name: &str, v: f64) -> Result<Self> {
        if v.is_finite() {
            Ok(v)
        } else {
            Err(invalid(format!("entry {name:?} must be finite, got {v}")))
        }
    }
    fn to_state(self) -> f64 {
        self
    }
}

/// The checked value of entry `name` for a counter of `current`'s type.
pub(super) fn counter<C: Counter>(_current: &C, name: &str, v: f64) -> Result<C> {
    C::from_state(name, v)
}

/// Copies of the buffers in `slots` (named per parameter) and the `counters` as 0-d f64 CPU
/// tensors.
pub(super) fn export<T: FloatElement, D: Backend>(
    slots: &[(&str, &Slots<T, D>)],
    counters: &[(&str, f64)],
) -> Result<Vec<(String, DynTensor)>> {
    let mut out = Vec::new();
    for &(name, slot) in slots {
        for (i, buf) in slot.iter().enumerate() {
            if let Some(b) = buf {
                out.push((format!("{i}.{name}"), DynTensor::from(b.try_deep_copy()?)));
            }
        }
    }
    for &(name, v) in counters {
        out.push((name.to_string(), DynTensor::from(Tensor::scalar(v))));
    }
    Ok(out)
}

/// A slot's buffer shape from its name and its parameter's shape.
pub(super) type ShapeOf<'a> = dyn Fn(&str, &Shape) -> Shape + 'a;

/// An optimizer's state checked for loading: one `Slots` per slot name, one value per counter.
pub(super) type Loaded<T, D> = (Vec<Slots<T, D>>, Vec<f64>);

/// The slots (in `slot_names` order) and counter values (in `counter_names` order) that
/// `state` holds for `params`, each buffer checked against its parameter's shape (or the
/// shape `shape_of(slot, parameter shape)` gives) and copied to its device; nothing of the
/// optimizer changes until all of it is checked.
pub(super) fn import<T: FloatElement, D: Backend>(
    params: &[Tensor<T, D>],
    slot_names: &[&str],
    counter_names: &[&str],
    state: &BTreeMap<String, DynTensor>,
    shape_of: Option<&ShapeOf<'_>>,
) -> Result<Loaded<T, D>> {
    let mut slots: Vec<Slots<T, D>> = slot_names
        .iter()
        .map(|_| vec![None; params.len()])
        .collect();
    let mut counters = vec![None; counter_names.len()];
    for (key, t) in state {
        if let Some(c) = counter_names.iter().position(|n| n == key) {
            if t.shape().numel() != 1 {
                return Err(invalid(format!(
                    "entry {key:?} must hold one value, got shape {}",
                    t.shape()
                )));
            }
            let v = t
                .to_cpu()?
                .to_dtype(crate::dtype::Dtype::Float64)?
                .to_vec::<f64>()?;
            counters[c] = Some(v[0]);
            continue;
        }
        let known = key.split_once('.').and_then(|(i, name)| {
            let s = slot_names.iter().position(|n| *n == name)?;
            Some((i.parse::<usize>().ok().filter(|&i| i < params.len())?, s))
        });
        let Some((i, s)) = known else {
            return Err(invalid(format!(
                "unknown entry {key:?}: this optimizer of {} parameters keeps {} per parameter (as \"index.name\") and {}",
                params.len(),
                slot_names.join(", "),
                if counter_names.is_empty() {
                    "no counter".to_string()
                } else {
                    counter_names.join(", ")
                }
            )));
        };
        let p = &params[i];
        let want = <T::Acc as Element>::DTYPE;
        let shape = shape_of.map_or_else(|| p.shape().clone(), |f| f(slot_names[s], p.shape()));
        if t.dtype() != want || *t.shape() != shape {
            return Err(invalid(format!(
                "entry {key:?} is {} of shape {}, but parameter {i} needs {want} of shape {shape}",
                t.dtype(),
                t.shape(),
            )));
        }
        let host: Tensor<T::Acc, Cpu> = t.to_cpu()?.downcast()?;
        slots[s][i] = Some(host.to_device(&p.device)?.try_deep_copy()?);
    }
    let counters = (counter_names.iter().zip(counters))
        .map(|(name, v)| v.ok_or_else(|| invalid(format!("the entry {name:?} is missing"))))
        .collect::<Result<_>>()?;
    Ok((slots, counters))
}

/// `state_dict` and `load_state_dict` of an optimizer whose per-parameter buffers are the
/// fields `$slot` (saved as `$sname`) and whose counters are the fields `$c` (`$cname`).
macro_rules! state_methods {
    (slots: [$($slot:ident => $sname:literal),*], counters: [$($c:ident => $cname:literal),*]) => {
        fn state_dict(&self) -> Result<Vec<(String, crate::dynamic::DynTensor)>> {
            super::state::export::<T, D>(
                &[$(($sname, &self.$slot)),*],
                &[$(($cname, super::state::Counter::to_state(self.$c))),*],
            )
        }
        fn load_state_dict(
            &mut self,
            state: &std::collections::BTreeMap<String, crate::dynamic::DynTensor>,
        ) -> Result<()> {
            let (slots, counters) =
                super::state::import(&self.params, &[$($sname),*], &[$($cname),*], state, None)?;
            #[allow(unused_mut, unused_variables)] // optimizers without counters
            let mut counters = counters.into_iter();
            $(let $c = super::state::counter(&self.$c, $cname, counters.next().expect("one per name"))?;)*
            let mut slots = slots.into_iter();
            $(self.$slot = slots.next().expect("one per name");)*
            $(self.$c = $c;)*
            Ok(())
        }
    };
}
pub(super) use state_methods;
