//! Ops with a backward rule written by the user (PyTorch `torch.autograd.Function`): the
//! forward runs without recording, and one node records the result with the user's rule.

use super::{Grad, Saved, record_out, saved, take};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use std::sync::Arc;

/// A user's backward rule, erased: (output gradient, saved inputs then output) → gradients.
type Erased = dyn Fn(Grad, &[Saved]) -> Result<Vec<Option<Grad>>> + Send + Sync;

/// The rule of a [`custom`] op: its name and the user's backward.
#[derive(Clone)]
pub(crate) struct CustomRule {
    pub(crate) name: &'static str,
    backward: Arc<Erased>,
}

impl std::fmt::Debug for CustomRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CustomRule({})", self.name)
    }
}

impl CustomRule {
    /// Runs the user's rule on the erased gradient and saved tensors.
    pub(crate) fn apply(&self, g: Grad, saved: &[Saved]) -> Result<Vec<Option<Grad>>> {
        (self.backward)(g, saved)
    }
}

/// An op with its own backward rule (PyTorch `torch.autograd.Function`): `forward` computes
/// the result from `inputs` without recording, and when recording is on and an input requires
/// grad, one node named `name` records it. On `backward` the node calls `backward(grad,
/// inputs, output)`, where `grad` is the gradient of the output (its shape, dtype and device),
/// which returns one gradient per input, of that input's shape (`None` for none). The rule
/// may use any op; written with differentiable ops it is differentiated again under
/// [`super::grad_create_graph`], as PyTorch differentiates a `Function` whose backward is
/// written with tensor ops. The inputs and the output are saved, so writing them in place
/// before `backward` makes `backward` an `Err`, as for built-in ops.
///
/// ```
/// use typed_tensor::autograd::custom;
/// use typed_tensor::prelude::*;
/// // A straight-through rounding: round on the way forward, the identity's gradient back.
/// let x = Tensor::<f64>::from_vec(vec![0.4, 1.6], [2])?.with_requires_grad(true)?;
/// let y = custom("round_ste", &[&x], |v| v[0].try_round(), |g, _, _| Ok(vec![Some(g.clone())]))?;
/// assert_eq!(y.to_vec(), vec![0.0, 2.0]);
/// y.try_mul_scalar(3.0)?.try_sum(&[], false)?.try_backward()?;
/// assert_eq!(x.grad().unwrap().to_vec(), vec![3.0, 3.0]);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `forward`'s errors. During backward: `backward`'s errors, and `InvalidArgument` naming
/// `name` when it returns another number of gradients than inputs or a gradient of another
/// shape than its input's.
pub fn custom<T, D, F, B>(
    name: &'static str,
    inputs: &[&Tensor<T, D>],
    forward: F,
    backward: B,
) -> Result<Tensor<T, D>>
where
    T: FloatElement,
    D: Backend,
    F: FnOnce(&[Tensor<T, D>]) -> Result<Tensor<T, D>>,
    B: Fn(&Tensor<T, D>, &[Tensor<T, D>], &Tensor<T, D>) -> Result<Vec<Option<Tensor<T, D>>>>
        + Send
        + Sync
        + 'static,
{
    let detached: Vec<Tensor<T, D>> = inputs.iter().map(|x| x.detach()).collect();
    let out = super::no_grad(|| forward(&detached))?.detach();
    let n = inputs.len();
    let erased = move |g: Grad, s: &[Saved]| -> Result<Vec<Option<Grad>>> {
        let g = take::<T, D>(g)?;
        let xs = (s[..n].iter())
            .map(|t| saved::<T, D>(t).cloned())
            .collect::<Result<Vec<_>>>()?;
        let y = saved::<T, D>(&s[n])?;
        let grads = backward(&g, &xs, y)?;
        if grads.len() != n {
            return Err(Error::InvalidArgument {
                op: "backward",
                msg: format!(
                    "the backward of `{name}` returned {} gradients for {n} inputs; return one per input (None for none)",
                    grads.len()
                ),
            });
        }
        (grads.into_iter().zip(&xs).enumerate())
            .map(|(i, (gi, x))| match gi {
                Some(gi) if gi.shape() != x.shape() => Err(Error::InvalidArgument {
                    op: "backward",
                    msg: format!(
                        "the backward of `{name}` returned a gradient of shape {} for input {i} of shape {}",
                        gi.shape(),
                        x.shape()
                    ),
                }),
                gi => Ok(gi.map(|t| Box::new(t) as Grad)),
            })
            .collect()
    };
    let rule = CustomRule {
        name,
        backward: Arc::new(erased),
    };
    let tracked: Vec<&dyn super::Tracked> = inputs.iter().map(|x| *x as _).collect();
    Ok(record_out(out, super::Op::Custom(rule), &tracked, &tracked))
}
