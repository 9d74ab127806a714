//! Forward hooks on any layer (PyTorch `register_forward_pre_hook` and
//! `register_forward_hook`): [`Hooked`] wraps a layer, runs the hooks around its `forward`,
//! and hands out a [`ForwardHookHandle`] per hook that removes it, even after the layer moved into a
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

/// The registered hooks, each with the id its handle removes.
struct Hooks<M, T: FloatElement, D: Backend> {
    next_id: u64,
    pre: Vec<(u64, PreHook<M, T, D>)>,
    post: Vec<(u64, PostHook<M, T, D>)>,
}

/// What a [`ForwardHookHandle`] needs of a hook list, whatever its layer and tensor types.
trait RemoveHook: Send + Sync {
    fn remove(&self, id: u64) -> bool;
}

impl<M: 'static, T: FloatElement, D: Backend> RemoveHook for Mutex<Hooks<M, T, D>> {
    fn remove(&self, id: u64) -> bool {
        // A hook list is consistent after any panic (each change is one push or retain).
        let mut h = self.lock().unwrap_or_else(PoisonError::into_inner);
        let n = h.pre.len() + h.post.len();
        h.pre.retain(|(i, _)| *i != id);
        h.post.retain(|(i, _)| *i != id);
        n != h.pre.len() + h.post.len()
    }
}

/// Removes the forward hook it was returned for (PyTorch's `RemovableHandle`; a tensor's
/// gradient hook has [`crate::autograd::HookHandle`]). Dropping the handle keeps the hook.
pub struct ForwardHookHandle {
    hooks: Weak<dyn RemoveHook>,
    id: u64,
}

impl ForwardHookHandle {
    /// Removes the hook; `true` if it was still registered (false after an earlier
    /// `remove`, or when the layer is gone).
    pub fn remove(&self) -> bool {
        self.hooks.upgrade().is_some_and(|h| h.remove(self.id))
    }
}

impl std::fmt::Debug for ForwardHookHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ForwardHookHandle")
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
    ) -> ForwardHookHandle {
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
    ) -> ForwardHookHandle {
        self.register(|h, id| h.post.push((id, Arc::new(hook))))
    }

    /// Adds a hook under a fresh id and returns its handle.
    fn register(&self, add: impl FnOnce(&mut Hooks<M, T, D>, u64)) -> ForwardHookHandle {
        let mut h = self.hooks.lock().unwrap_or_else(PoisonError::into_inner);
        let id = h.next_id;
        h.next_id += 1;
        add(&mut h, id);
        let hooks: Arc<dyn RemoveHook> = self.hooks.clone();
        ForwardHookHandle {
            hooks: Arc::downgrade(&hooks),
            id,
        }
    }

    /// The hooks as they are now; the lock is released before any runs, so a hook may
    /// register or remove hooks (for the next call).
    #[allow(clippy::type_complexity)]
    fn snapshot(&self) -> (Vec<PreHook<M, T, D>>, Vec<PostHook<M, T, D>>) {
        let h = self.hooks.lock().unwrap_or_else(PoisonError::into_inner);
        let pre = h.pre.iter().map(|(_, f)| f.clone()).collect();
        let post = h.post.iter().map(|(_, f)| f.clone()).collect();
        (pre, post)
    }
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
        let (pre, post) = self.snapshot();
        let mut x = x.clone();
        for f in &pre {
            if let Some(new) = f(&self.inner, &x)? {
                x = new;
            }
        }
        let mut y = self.inner.forward(&x)?;
        for f in &post {
            if let Some(new) = f(&self.inner, &x, &y)? {
                y = new;
            }
        }
        Ok(y)
    }
}
