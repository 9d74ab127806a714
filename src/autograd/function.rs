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

/// `out`, computed from `x` by a linear map, recorded with `adjoint` (the map's adjoint,
/// applied to the output's gradient) as its rule; nothing is saved (the FFTs, whose adjoint is
/// the transform the other way). Applied before the float dispatch, as a [`custom`] rule, so
/// 16-bit transforms get 16-bit gradients; written with recorded ops, it differentiates again.
pub(crate) fn linear<T, D, A>(
    name: &'static str,
    x: &Tensor<T, D>,
    out: Tensor<T, D>,
    adjoint: A,
) -> Tensor<T, D>
where
    T: FloatElement,
    D: Backend,
    A: Fn(&Tensor<T, D>) -> Result<Tensor<T, D>> + Send + Sync + 'static,
{
    if !super::recording(&[x]) {
        return out;
    }
    let erased = move |g: Grad, _: &[Saved]| -> Result<Vec<Option<Grad>>> {
        Ok(vec![Some(Box::new(adjoint(&take::<T, D>(g)?)?) as Grad)])
    };
    let rule = CustomRule {
        name,
        backward: Arc::new(erased),
    };
    super::record(out, super::Op::Custom(rule), &[x], &[])
}

/// Gradient checkpointing (PyTorch `torch.utils.checkpoint` with `use_reentrant=True`):
/// `f(inputs)` runs without recording, so none of its intermediate results is kept for
/// backward; the backward pass runs `f` again, recorded, on fresh leaves holding the inputs'
/// values, and backpropagates through that. Memory for compute: a block's activations are
/// freed after its forward. The global generator is restored for the second run, so `f`'s
/// random draws (dropout) repeat, as PyTorch's `preserve_rng_state`.
///
/// Tensors `f` captures (a block's weights) get their gradients as in PyTorch's reentrant
/// form: the second run's backward adds into their gradient buffers, so they must be leaves
/// reached by [`Tensor::try_backward`]; [`super::grad`] and [`super::grad_create_graph`]
/// through a checkpoint are an `Err` (as PyTorch's reentrant checkpoint does not support
/// `torch.autograd.grad`). `f` must give the same shape both times. When no input requires
/// grad (with recording on), `f` simply runs recorded, so its captured tensors still get
/// their gradients (PyTorch would leave them `None`).
///
/// ```
/// use typed_tensor::autograd::checkpoint;
/// use typed_tensor::prelude::*;
/// let w = Tensor::<f64>::from_vec(vec![0.5, -1.0, 2.0, 1.0], [2, 2])?.with_requires_grad(true)?;
/// let x = Tensor::<f64>::from_vec(vec![1.0, 2.0], [1, 2])?.with_requires_grad(true)?;
/// let wc = w.clone(); // shares w's gradient buffer
/// let y = checkpoint(move |v| v[0].try_matmul(&wc)?.try_tanh(), &[&x])?;
/// y.try_sum(&[], false)?.try_backward()?;
/// assert!(x.grad().is_some() && w.grad().is_some());
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `f`'s errors. During backward: `f`'s errors; `InvalidArgument` in a capturing or
/// `create_graph` pass, or when the second run's result has another shape.
pub fn checkpoint<T, D, F>(f: F, inputs: &[&Tensor<T, D>]) -> Result<Tensor<T, D>>
where
    T: FloatElement,
    D: Backend,
    F: Fn(&[Tensor<T, D>]) -> Result<Tensor<T, D>> + Send + Sync + 'static,
{
    if super::is_grad_enabled() && !inputs.iter().any(|x| x.requires_grad()) {
        // No input carries a graph, so no node would record the checkpoint and the tensors
        // `f` captures would get no gradient (PyTorch warns that they are None): run `f`
        // recorded instead, keeping its intermediates.
        let xs: Vec<Tensor<T, D>> = inputs.iter().map(|x| (*x).clone()).collect();
        return f(&xs);
    }
    let f = Arc::new(f);
    let rng = crate::tensor::rng_state();
    let again = f.clone();
    let backward = move |g: &Tensor<T, D>, xs: &[Tensor<T, D>], _: &Tensor<T, D>| {
        let refuse = |what: &str| Error::InvalidArgument {
            op: "checkpoint",
            msg: format!(
                "{what} through a checkpoint is not supported (as PyTorch's reentrant checkpoint); use backward(), or call the function without checkpoint"
            ),
        };
        if super::is_grad_enabled() {
            return Err(refuse("create_graph"));
        }
        if super::capturing() {
            return Err(refuse("autograd::grad"));
        }
        let leaves = (xs.iter())
            .map(|x| match x.requires_grad() {
                true => x.detach().with_requires_grad(true),
                false => Ok(x.detach()),
            })
            .collect::<Result<Vec<_>>>()?;
        // The second run draws what the first drew; the generator then goes on from where it
        // was before the replay.
        let now = crate::tensor::rng_state();
        crate::tensor::restore_rng_state(rng.clone());
        let out = super::enable_grad(|| again(&leaves));
        crate::tensor::restore_rng_state(now);
        let out = out?;
        if out.shape() != g.shape() {
            return Err(Error::InvalidArgument {
                op: "checkpoint",
                msg: format!(
                    "the function gave shape {} when run again for backward, {} the first time; it must be deterministic in shape",
                    out.shape(),
                    g.shape()
                ),
            });
        }
        if out.grad_fn().is_some() {
            out.try_backward_with(g, false)?;
        }
        Ok(leaves.iter().map(|l| l.grad_tensor()).collect())
    };
    custom("checkpoint", inputs, |v| f(v), backward)
}
