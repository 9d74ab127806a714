//! Gradient hooks and `retain_grad` (PyTorch `Tensor.register_hook`, `Tensor.retain_grad`).
//!
//! A hook lives on the tensor's node, so every clone of the tensor shares it. The backward
//! pass calls a node's hooks once, on the whole gradient that reached it (every path summed),
//! before that gradient is captured by [`super::grad`], accumulated into a leaf's buffer or
//! passed to the node's rule. `retain_grad` is a hook that adds into a buffer and runs after
//! the others, so it holds the hooked gradient; it runs in [`super::grad`] too (PyTorch's
//! `autograd.grad` fills retained gradients, not leaves' buffers).

use super::{Grad, Node, take};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

type HookFn = Arc<dyn Fn(Grad) -> Result<Grad> + Send + Sync>;
type PostFn = Arc<dyn Fn() -> Result<()> + Send + Sync>;

/// What a hook does.
#[derive(Clone)]
enum Call {
    /// Sees (and may replace) the gradient that reached the node.
    Grad(HookFn),
    /// Runs after a leaf's gradient was added into its buffer.
    PostAccumulate(PostFn),
}

/// One hook of a node.
pub(super) struct Hook {
    id: u64,
    /// `retain_grad`'s buffer (a `Tensor<T, D>` over the tensor's gradient storage): this
    /// hook runs last.
    retained: Option<super::Saved>,
    f: Call,
}

static NEXT_HOOK: AtomicU64 = AtomicU64::new(0);

/// Runs `node`'s hooks on `g`, the retaining one last. The list is copied out first, so a
/// hook may register or remove hooks without a deadlock.
pub(super) fn run(node: &Node, mut g: Grad) -> Result<Grad> {
    let (plain, retain): (Vec<_>, Vec<_>) = {
        let hooks = node.hooks.lock();
        if hooks.is_empty() {
            return Ok(g);
        }
        (hooks.iter())
            .filter_map(|h| match &h.f {
                Call::Grad(f) => Some((h.retained.is_some(), f.clone())),
                Call::PostAccumulate(_) => None,
            })
            .partition(|(retain, _)| !retain)
    };
    for (_, f) in plain.into_iter().chain(retain) {
        g = f(g)?;
    }
    Ok(g)
}

/// Runs `node`'s post-accumulate hooks in registration order (after a leaf's gradient was
/// added into its buffer), the list copied out first as in [`run`].
pub(super) fn run_post(node: &Node) -> Result<()> {
    let post: Vec<PostFn> = (node.hooks.lock().iter())
        .filter_map(|h| match &h.f {
            Call::PostAccumulate(f) => Some(f.clone()),
            Call::Grad(_) => None,
        })
        .collect();
    post.iter().try_for_each(|f| f())
}

/// What [`Tensor::register_hook`] returns: [`HookHandle::remove`] takes the hook off again.
/// Dropping the handle keeps the hook (as PyTorch's `RemovableHandle`).
#[derive(Debug, Clone)]
pub struct HookHandle {
    node: Weak<Node>,
    id: u64,
}

impl HookHandle {
    /// Removes the hook; nothing happens when it was removed before or its graph is gone.
    pub fn remove(self) {
        if let Some(node) = self.node.upgrade() {
            node.hooks.lock().retain(|h| h.id != self.id);
        }
    }
}

fn add_hook(node: &Arc<Node>, retained: Option<super::Saved>, f: Call) -> HookHandle {
    let id = NEXT_HOOK.fetch_add(1, Ordering::Relaxed);
    node.hooks.lock().push(Hook { id, retained, f });
    HookHandle {
        node: Arc::downgrade(node),
        id,
    }
}

fn no_grad_error<T: FloatElement, D: Backend>(op: &'static str, t: &Tensor<T, D>) -> Error {
    Error::InvalidArgument {
        op,
        msg: format!(
            "the tensor of shape {} does not require grad, so no gradient reaches it; call set_requires_grad(true) on it or on an input it is computed from",
            t.shape()
        ),
    }
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// Registers `hook`, called during each backward pass with the gradient of this tensor
    /// (its shape, dtype and device): `Ok(None)` keeps the gradient, `Ok(Some(g))` replaces
    /// it for everything downstream (PyTorch `Tensor.register_hook`). Hooks run in
    /// registration order, under `no_grad`; one on a leaf runs before the gradient is added
    /// into its buffer. The hook is shared by every clone of this tensor.
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    /// let x = Tensor::<f64>::from_vec(vec![1.0, 2.0], [2])?.with_requires_grad(true)?;
    /// let mut y = x.try_mul_scalar(3.0)?; // an intermediate: its gradient is not kept ...
    /// y.retain_grad()?; // ... unless asked
    /// // Double the gradient that flows back through y.
    /// let handle = y.register_hook(|g| Ok(Some(g.try_mul_scalar(2.0)?)))?;
    /// y.try_mul(&y)?.try_sum(&[], false)?.try_backward()?;
    /// assert_eq!(y.grad().unwrap().to_vec(), vec![12.0, 24.0]); // 2·(2y)
    /// assert_eq!(x.grad().unwrap().to_vec(), vec![36.0, 72.0]); // 3·2·(2y)
    /// handle.remove();
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` when the tensor does not require grad. During backward, a hook's
    /// `Err` ends the pass with that error, and a replacement of another shape is a
    /// `ShapeMismatch` naming `register_hook`.
    pub fn register_hook<F>(&self, hook: F) -> Result<HookHandle>
    where
        F: Fn(&Tensor<T, D>) -> Result<Option<Tensor<T, D>>> + Send + Sync + 'static,
    {
        let node = (self.graph_node()).ok_or_else(|| no_grad_error("register_hook", self))?;
        let shape = self.shape().clone();
        let f = move |g: Grad| -> Result<Grad> {
            let g = take::<T, D>(g)?;
            let Some(new) = hook(&g)? else {
                return Ok(Box::new(g));
            };
            if new.shape() != &shape {
                return Err(Error::ShapeMismatch {
                    op: "register_hook",
                    lhs: shape.clone(),
                    rhs: new.shape().clone(),
                    msg: "a hook must return a gradient of its tensor's shape".into(),
                });
            }
            Ok(Box::new(new.detach().try_contiguous()?))
        };
        Ok(add_hook(node, None, Call::Grad(Arc::new(f))))
    }

    /// Registers `hook`, called on this leaf after each backward pass has added its gradient
    /// into its buffer (PyTorch `Tensor.register_post_accumulate_grad_hook`): it receives a
    /// handle to the tensor sharing its data and gradient buffer (read the sum so far with
    /// `grad()`, clear it with `zero_grad()`, update the values in place), under `no_grad`,
    /// so an optimizer can step each parameter as soon as its gradient is complete and drop
    /// it, instead of keeping every gradient until `backward` returns. Hooks run in
    /// registration order, after every gradient hook of the tensor; `autograd::grad`, which
    /// accumulates nothing, does not run them.
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    /// let w = Tensor::<f64>::from_vec(vec![1.0, -2.0], [2])?.with_requires_grad(true)?;
    /// // SGD inside backward: step with lr 0.5, then clear the buffer.
    /// w.register_post_accumulate_grad_hook(|p| {
    ///     let g = p.grad_tensor().expect("the buffer exists");
    ///     p.clone().sub_(&g.try_mul_scalar(0.5)?)?;
    ///     p.zero_grad()
    /// })?;
    /// w.try_mul(&w)?.try_sum(&[], false)?.try_backward()?; // gradient 2w
    /// assert_eq!(w.to_vec(), vec![0.0, 0.0]);
    /// assert_eq!(w.grad().unwrap().to_vec(), vec![0.0, 0.0]);
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` when the tensor does not require grad or is not a leaf (PyTorch
    /// refuses both). During backward, a hook's `Err` ends the pass with that error (the
    /// gradients added before it stay).
    pub fn register_post_accumulate_grad_hook<F>(&self, hook: F) -> Result<HookHandle>
    where
        F: Fn(&Tensor<T, D>) -> Result<()> + Send + Sync + 'static,
    {
        const OP: &str = "register_post_accumulate_grad_hook";
        let node = self.graph_node().ok_or_else(|| no_grad_error(OP, self))?;
        if !node.is_leaf() {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!(
                    "the tensor of shape {} is not a leaf (it was computed by `{}`), so no gradient is accumulated into it; register the hook on the leaf, or use register_hook",
                    self.shape(),
                    node.op.name()
                ),
            });
        }
        // The handle leaves out the node, which holds this hook: no reference cycle.
        let mut handle = self.detach();
        handle.grad = self.grad.clone();
        let f = move || super::no_grad(|| hook(&handle));
        Ok(add_hook(node, None, Call::PostAccumulate(Arc::new(f))))
    }

    /// Keeps the gradient of this non-leaf tensor in a buffer of its own, read with
    /// [`Tensor::grad`] after `backward` (PyTorch `Tensor.retain_grad`). As a leaf's, the
    /// buffer is zero-filled at once (`numel()` elements, contiguous) and each backward adds
    /// into it; it holds the gradient after this tensor's hooks. Nothing changes for a leaf,
    /// or when the tensor already retains its gradient.
    ///
    /// # Errors
    /// `InvalidArgument` when the tensor does not require grad; `OutOfMemory`/`Device` when
    /// the buffer cannot be allocated.
    pub fn retain_grad(&mut self) -> Result<()> {
        let node =
            (self.graph_node().cloned()).ok_or_else(|| no_grad_error("retain_grad", self))?;
        if node.is_leaf() {
            return Ok(());
        }
        // Another clone of this tensor may have asked already: share its buffer.
        let held = node.hooks.lock().iter().find_map(|h| h.retained.clone());
        if let Some(held) = held {
            let buf = super::saved::<T, D>(&held)?;
            self.grad = Some(buf.storage.clone());
            return Ok(());
        }
        let storage = self.device.zeros(self.numel())?;
        let buf = Tensor::from_storage(storage.clone(), self.shape().clone(), &self.device);
        let sink = buf.clone();
        let f = move |g: Grad| -> Result<Grad> {
            let t = super::saved_grad::<T, D>(&g)?;
            sink.clone().add_(t)?;
            Ok(g)
        };
        add_hook(&node, Some(Arc::new(buf)), Call::Grad(Arc::new(f)));
        self.grad = Some(storage);
        Ok(())
    }

    /// Whether backward keeps this non-leaf tensor's gradient ([`Tensor::retain_grad`];
    /// PyTorch `Tensor.retains_grad`, false for leaves).
    pub fn retains_grad(&self) -> bool {
        self.node
            .as_ref()
            .is_some_and(|n| n.hooks.lock().iter().any(|h| h.retained.is_some()))
    }
}
