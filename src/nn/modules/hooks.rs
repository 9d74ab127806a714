//! Module hooks on any layer (PyTorch `register_forward_pre_hook`, `register_forward_hook`,
//! `register_full_backward_pre_hook` and `register_full_backward_hook`): [`Hooked`] wraps a
//! layer, runs the hooks around its `forward` and its backward, and hands out a
//! [`ModuleHookHandle`] per hook that removes it, even after the layer moved into a
//! `Sequential`.

use super::{Module, Parameters};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::tensor::Tensor;
use std::sync::{Arc, Mutex, PoisonError, Weak};

/// A pre-hook: the layer and its input; `Some` replaces the input.
type PreHook<M, T, D> =
    Arc<dyn Fn(&M, &Tensor<T, D>) -> Result<Option<Tensor<T, D>>> + Send + Sync>;
/// A hook: the layer, its input and its output; `Some` replaces the output.
type PostHook<M, T, D> =
    Arc<dyn Fn(&M, &Tensor<T, D>, &Tensor<T, D>) -> Result<Option<Tensor<T, D>>> + Send + Sync>;

/// A backward pre-hook: the gradient of the output; `Some` replaces it.
type GradPreHook<T, D> = Arc<dyn Fn(&Tensor<T, D>) -> Result<Option<Tensor<T, D>>> + Send + Sync>;
/// A backward hook: the gradients of the input (`None` when the input does not require grad)
/// and of the output; `Some` replaces the input's.
type GradHook<T, D> =
    Arc<dyn Fn(Option<&Tensor<T, D>>, &Tensor<T, D>) -> Result<Option<Tensor<T, D>>> + Send + Sync>;

/// Where the output's node leaves the output's gradient for the input's node.
type GradCell<T, D> = Arc<Mutex<Option<Tensor<T, D>>>>;

/// The registered hooks, each with the id its handle removes.
struct Hooks<M, T: FloatElement, D: Backend> {
    next_id: u64,
    pre: Vec<(u64, PreHook<M, T, D>)>,
    post: Vec<(u64, PostHook<M, T, D>)>,
    grad_pre: Vec<(u64, GradPreHook<T, D>)>,
    grad: Vec<(u64, GradHook<T, D>)>,
}

impl<M, T: FloatElement, D: Backend> Hooks<M, T, D> {
    fn len(&self) -> usize {
        self.pre.len() + self.post.len() + self.grad_pre.len() + self.grad.len()
    }
}

/// The hooks of one kind as they are now.
fn current<H: Clone>(list: &[(u64, H)]) -> Vec<H> {
    list.iter().map(|(_, f)| f.clone()).collect()
}

/// What a [`ModuleHookHandle`] needs of a hook list, whatever its layer and tensor types.
trait RemoveHook: Send + Sync {
    fn remove(&self, id: u64) -> bool;
}

impl<M: 'static, T: FloatElement, D: Backend> RemoveHook for Mutex<Hooks<M, T, D>> {
    fn remove(&self, id: u64) -> bool {
        // A hook list is consistent after any panic (each change is one push or retain).
        let mut h = self.lock().unwrap_or_else(PoisonError::into_inner);
        let n = h.len();
        h.pre.retain(|(i, _)| *i != id);
        h.post.retain(|(i, _)| *i != id);
        h.grad_pre.retain(|(i, _)| *i != id);
        h.grad.retain(|(i, _)| *i != id);
        n != h.len()
    }
}

/// Removes the module hook it was returned for (PyTorch's `RemovableHandle`; a tensor's
/// gradient hook has [`crate::autograd::HookHandle`]). Dropping the handle keeps the hook.
pub struct ModuleHookHandle {
    hooks: Weak<dyn RemoveHook>,
    id: u64,
}

impl ModuleHookHandle {
    /// Removes the hook; `true` if it was still registered (false after an earlier
    /// `remove`, or when the layer is gone).
    pub fn remove(&self) -> bool {
        self.hooks.upgrade().is_some_and(|h| h.remove(self.id))
    }
}

impl std::fmt::Debug for ModuleHookHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModuleHookHandle")
            .field("id", &self.id)
            .finish()
    }
}

/// A layer with forward hooks (PyTorch's `Module.register_forward_pre_hook` and
/// `register_forward_hook`). `forward` runs the pre-hooks in registration order, each seeing
/// the layer and the input so far (`Some(x)` replaces the input), then the layer, then the
/// hooks in registration order, each seeing the layer, the input the layer got and the output
/// so far (`Some(y)` replaces the output). A hook's `Err` ends the call with that error.
/// Hooks run recorded like the layer, so what they compute is differentiated. Parameters,
/// buffers and training mode are the inner layer's, under its names.
///
/// Backward hooks (PyTorch's full backward hooks) run during a backward pass through a
/// recorded call: the pre-hooks get the gradient of the output (`Some(g)` replaces it), then,
/// once the gradient of the input is complete, the hooks get it (`None` when the input does
/// not require grad; they then run right after the pre-hooks) and the gradient of the output
/// (`Some(g)` replaces the input's). As in PyTorch, the call's input and output pass through
/// an identity node each, so writing either in place before the backward pass is an `Err`
/// there. Unlike PyTorch's, backward hooks are not given the layer (the pass may outlive a
/// borrow of it): capture what they need.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use typed_tensor::nn::modules::{Activation, Hooked, Linear, Module, Sequential};
/// use typed_tensor::prelude::*;
///
/// let fc = Hooked::new(Linear::<f32, Cpu>::new(4, 3, true, &Cpu)?);
/// // Keep the features a layer computes (a feature extractor).
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let keep = seen.clone();
/// let handle = fc.register_forward_hook(move |_, _, y| {
///     keep.lock().unwrap().push(y.dims().to_vec());
///     Ok(None)
/// });
/// // Scale the input first.
/// fc.register_forward_pre_hook(|_, x| Ok(Some(x.try_mul_scalar(0.5)?)));
/// let model = Sequential::new().push(fc).push(Activation::Relu);
/// model.forward(&Tensor::<f32>::ones([2, 4])?)?;
/// assert_eq!(*seen.lock().unwrap(), vec![vec![2, 3]]);
/// assert!(handle.remove());
/// model.forward(&Tensor::<f32>::ones([2, 4])?)?;
/// assert_eq!(seen.lock().unwrap().len(), 1); // removed
/// # Ok::<(), typed_tensor::Error>(())
/// ```
pub struct Hooked<M, T: FloatElement, D: Backend> {
    /// The wrapped layer.
    pub inner: M,
    hooks: Arc<Mutex<Hooks<M, T, D>>>,
}

impl<M: 'static, T: FloatElement, D: Backend> Hooked<M, T, D> {
    /// `inner` without hooks.
    pub fn new(inner: M) -> Self {
        let hooks = Hooks {
            next_id: 0,
            pre: Vec::new(),
            post: Vec::new(),
            grad_pre: Vec::new(),
            grad: Vec::new(),
        };
        Hooked {
            inner,
            hooks: Arc::new(Mutex::new(hooks)),
        }
    }

    /// Registers `hook` to run before `forward` (PyTorch `register_forward_pre_hook`):
    /// `hook(layer, input)` returns `Some(x)` to run the layer on `x` instead.
    pub fn register_forward_pre_hook(
        &self,
        hook: impl Fn(&M, &Tensor<T, D>) -> Result<Option<Tensor<T, D>>> + Send + Sync + 'static,
    ) -> ModuleHookHandle {
        self.register(|h, id| h.pre.push((id, Arc::new(hook))))
    }

    /// Registers `hook` to run after `forward` (PyTorch `register_forward_hook`):
    /// `hook(layer, input, output)` returns `Some(y)` to return `y` instead.
    pub fn register_forward_hook(
        &self,
        hook: impl Fn(&M, &Tensor<T, D>, &Tensor<T, D>) -> Result<Option<Tensor<T, D>>>
        + Send
        + Sync
        + 'static,
    ) -> ModuleHookHandle {
        self.register(|h, id| h.post.push((id, Arc::new(hook))))
    }

    /// Registers `hook` to run in a backward pass before the input's gradient is computed
    /// (PyTorch `register_full_backward_pre_hook`): `hook(grad_output)` returns `Some(g)` to
    /// continue with `g`, of the output's shape.
    pub fn register_full_backward_pre_hook(
        &self,
        hook: impl Fn(&Tensor<T, D>) -> Result<Option<Tensor<T, D>>> + Send + Sync + 'static,
    ) -> ModuleHookHandle {
        self.register(|h, id| h.grad_pre.push((id, Arc::new(hook))))
    }

    /// Registers `hook` to run in a backward pass once the input's gradient is complete
    /// (PyTorch `register_full_backward_hook`): `hook(grad_input, grad_output)` returns
    /// `Some(g)` to pass `g`, of the input's shape, on as the input's gradient. `grad_input`
    /// is `None` when the input does not require grad (nothing is passed on then).
    ///
    /// ```
    /// use typed_tensor::nn::modules::{Hooked, Linear, Module};
    /// use typed_tensor::prelude::*;
    ///
    /// let fc = Hooked::new(Linear::<f64, Cpu>::new(3, 2, true, &Cpu)?);
    /// // Clip the gradient that leaves the layer towards its input.
    /// fc.register_full_backward_hook(|gi, _| match gi {
    ///     Some(g) => Ok(Some(g.try_clamp(Some(-0.1), Some(0.1))?)),
    ///     None => Ok(None),
    /// });
    /// let x = Tensor::<f64>::ones([4, 3])?.with_requires_grad(true)?;
    /// fc.forward(&x)?.try_mul_scalar(100.0)?.try_sum(&[], false)?.try_backward()?;
    /// assert!(x.grad().unwrap().iter().all(|g| g.abs() <= 0.1));
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    pub fn register_full_backward_hook(
        &self,
        hook: impl Fn(Option<&Tensor<T, D>>, &Tensor<T, D>) -> Result<Option<Tensor<T, D>>>
        + Send
        + Sync
        + 'static,
    ) -> ModuleHookHandle {
        self.register(|h, id| h.grad.push((id, Arc::new(hook))))
    }

    /// Adds a hook under a fresh id and returns its handle.
    fn register(&self, add: impl FnOnce(&mut Hooks<M, T, D>, u64)) -> ModuleHookHandle {
        let mut h = self.hooks.lock().unwrap_or_else(PoisonError::into_inner);
        let id = h.next_id;
        h.next_id += 1;
        add(&mut h, id);
        let hooks: Arc<dyn RemoveHook> = self.hooks.clone();
        ModuleHookHandle {
            hooks: Arc::downgrade(&hooks),
            id,
        }
    }

    /// The hooks as they are now; the lock is released before any runs, so a hook may
    /// register or remove hooks (for the next call).
    fn snapshot(&self) -> Snapshot<M, T, D> {
        let h = self.hooks.lock().unwrap_or_else(PoisonError::into_inner);
        Snapshot {
            pre: current(&h.pre),
            post: current(&h.post),
            grad_pre: current(&h.grad_pre),
            grad: current(&h.grad),
        }
    }
}

/// [`Hooked::snapshot`]'s copy of the hook lists.
struct Snapshot<M, T: FloatElement, D: Backend> {
    pre: Vec<PreHook<M, T, D>>,
    post: Vec<PostHook<M, T, D>>,
    grad_pre: Vec<GradPreHook<T, D>>,
    grad: Vec<GradHook<T, D>>,
}

/// The call's input through an identity node whose backward runs the backward hooks on the
/// input's gradient and `grad_output` (filled by the output's node, which runs first).
fn input_node<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    grad: Vec<GradHook<T, D>>,
    grad_output: GradCell<T, D>,
) -> Result<Tensor<T, D>> {
    crate::autograd::custom(
        "full_backward_hook",
        &[x],
        |v| Ok(v[0].clone()),
        move |g, _, _| {
            let go = grad_output
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            // The output's node, downstream of this one, has set its gradient, unless the
            // pass started from a tensor inside the call (one a hook kept): then there is no
            // output gradient, and no hook runs.
            let Some(go) = go else {
                return Ok(vec![Some(g.clone())]);
            };
            let mut g = g.clone();
            for f in &grad {
                if let Some(new) = f(Some(&g), &go)? {
                    g = new;
                }
            }
            Ok(vec![Some(g)])
        },
    )
}

/// The call's output through an identity node whose backward runs the backward pre-hooks,
/// keeps the gradient for the input's node, or runs the hooks with no input gradient.
fn output_node<T: FloatElement, D: Backend>(
    y: &Tensor<T, D>,
    grad_pre: Vec<GradPreHook<T, D>>,
    grad: Vec<GradHook<T, D>>,
    grad_output: Option<GradCell<T, D>>,
) -> Result<Tensor<T, D>> {
    crate::autograd::custom(
        "full_backward_pre_hook",
        &[y],
        |v| Ok(v[0].clone()),
        move |g, _, _| {
            let mut g = g.clone();
            for f in &grad_pre {
                if let Some(new) = f(&g)? {
                    g = new;
                }
            }
            match &grad_output {
                Some(cell) => {
                    *cell.lock().unwrap_or_else(PoisonError::into_inner) = Some(g.clone());
                }
                None => {
                    for f in &grad {
                        f(None, &g)?;
                    }
                }
            }
            Ok(vec![Some(g)])
        },
    )
}

impl<M: Parameters<T, D>, T: FloatElement, D: Backend> Parameters<T, D> for Hooked<M, T, D> {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        self.inner.named_parameters()
    }
    fn named_buffers(&self) -> Vec<(String, Tensor<T, D>)> {
        self.inner.named_buffers()
    }
    fn set_training(&mut self, training: bool) {
        self.inner.set_training(training)
    }
}

impl<M: Module<T, D> + 'static, T: FloatElement, D: Backend> Module<T, D> for Hooked<M, T, D> {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let hooks = self.snapshot();
        let mut x = x.clone();
        for f in &hooks.pre {
            if let Some(new) = f(&self.inner, &x)? {
                x = new;
            }
        }
        // PyTorch's order: the input's backward node before the layer, the output's after
        // the forward hooks.
        let backward = !(hooks.grad_pre.is_empty() && hooks.grad.is_empty())
            && crate::autograd::is_grad_enabled();
        let cell = (backward && x.requires_grad()).then(|| Arc::new(Mutex::new(None)));
        if let Some(cell) = &cell {
            x = input_node(&x, hooks.grad.clone(), cell.clone())?;
        }
        let mut y = self.inner.forward(&x)?;
        for f in &hooks.post {
            if let Some(new) = f(&self.inner, &x, &y)? {
                y = new;
            }
        }
        if backward && y.requires_grad() {
            y = output_node(&y, hooks.grad_pre, hooks.grad, cell)?;
        }
        Ok(y)
    }
}
