//! Anomaly detection (PyTorch `torch.autograd.detect_anomaly`): while it is on, backward
//! checks every gradient a rule returns and stops at the first one holding a NaN, naming the
//! op, instead of letting the NaN spread into every leaf.

use super::{Grad, Node, mismatch};
use crate::backend::Backend;
use crate::device::{Cpu, Cuda};
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use std::cell::Cell;

thread_local! {
    static ANOMALY: Cell<bool> = const { Cell::new(false) };
}

/// Whether backward passes on this thread check their gradients for NaN (PyTorch
/// `torch.is_anomaly_enabled`).
pub fn is_anomaly_enabled() -> bool {
    ANOMALY.with(Cell::get)
}

/// Turns anomaly detection on or off for this thread (PyTorch
/// `torch.autograd.set_detect_anomaly`); see [`detect_anomaly`].
pub fn set_detect_anomaly(enabled: bool) {
    ANOMALY.with(|a| a.set(enabled));
}

/// Runs `f` with anomaly detection on for this thread (PyTorch `with
/// torch.autograd.detect_anomaly():`): a backward pass inside it returns an `Err` naming the
/// op whose gradient rule returned a NaN, and which of its inputs that gradient was for,
/// instead of writing NaN into the leaves' gradients; when the forward pass ran inside it
/// too, the error shows where the failing op was recorded (a backtrace captured per recorded
/// op, as PyTorch keeps the forward traceback). Each check reads a flag back from the
/// device, so backward is slower (as in PyTorch). The previous mode is restored afterwards,
/// also on a panic.
///
/// ```
/// use typed_tensor::autograd::detect_anomaly;
/// use typed_tensor::prelude::*;
/// let x = Tensor::<f64>::from_vec(vec![0.0, 4.0], [2])?.with_requires_grad(true)?;
/// let y = x.sqrt().sum(&[], false).mul_scalar(0.0); // d/dx of 0 · sqrt(x) at 0 is 0 · inf
/// let err = detect_anomaly(|| y.try_backward()).unwrap_err().to_string();
/// assert!(err.contains("sqrt") && err.contains("NaN"), "{err}");
/// # Ok::<(), typed_tensor::Error>(())
/// ```
pub fn detect_anomaly<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            set_detect_anomaly(self.0);
        }
    }
    let _restore = Restore(ANOMALY.with(|a| a.replace(true)));
    f()
}

/// `grads`, what the rule of `op` returned for its inputs, with deferred view gradients
/// materialised (to be read; the pass would materialise them later anyway); the `Err` for
/// the first that holds a NaN.
pub(super) fn check(node: &Node, grads: Vec<Option<Grad>>) -> Result<Vec<Option<Grad>>> {
    let grads = (grads.into_iter())
        .map(|g| g.map(super::resolve).transpose())
        .collect::<Result<Vec<_>>>()?;
    for (i, g) in grads.iter().enumerate() {
        if let Some(g) = g
            && has_nan(g)?
        {
            return Err(Error::InvalidArgument {
                op: "backward",
                msg: format!(
                    "the gradient rule of `{}` returned NaN values for its input {i} (detect_anomaly is on){}",
                    node.name(),
                    match &node.trace {
                        Some(t) => format!("; the op was recorded at:\n{t}"),
                        None => "; record the forward pass inside detect_anomaly too to see where the op was recorded".into(),
                    }
                ),
            });
        }
    }
    Ok(grads)
}

fn has_nan(g: &Grad) -> Result<bool> {
    fn one<F: FloatElement, D: Backend>(g: &Grad) -> Option<Result<bool>> {
        let t = g.downcast_ref::<Tensor<F, D>>()?;
        Some(super::no_grad(|| {
            t.try_is_nan()?.try_any(&[], false)?.try_item()
        }))
    }
    fn on<D: Backend>(g: &Grad) -> Option<Result<bool>> {
        one::<f32, D>(g)
            .or_else(|| one::<f64, D>(g))
            .or_else(|| one::<half::f16, D>(g))
            .or_else(|| one::<half::bf16, D>(g))
    }
    on::<Cpu>(g)
        .or_else(|| on::<Cuda>(g))
        .unwrap_or_else(|| Err(mismatch::<f32>()))
}
