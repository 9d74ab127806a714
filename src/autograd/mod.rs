//! Reverse-mode automatic differentiation with PyTorch's autograd semantics.
//!
//! When recording is on (the default; see [`no_grad`]) and an input of a differentiable op
//! requires grad, the result carries a [`Node`]: the op's name, the nodes of its inputs and a
//! backward rule mapping the gradient of the output to gradients of the inputs. A leaf (a
//! tensor made with `requires_grad`) carries a node that adds what reaches it into its gradient
//! buffer. [`Tensor::try_backward`] walks the graph from a result in reverse creation order
//! (node ids grow with creation, so every node comes after the nodes it was computed from),
//! summing the gradients that reach each node before passing them on. Nothing is recorded when
//! no input requires grad, so plain code pays one flag check per op.
//!
//! ```
//! use typed_tensor::prelude::*;
//! let w = Tensor::<f64>::from_vec(vec![1.0, 2.0, 3.0], [3])?.with_requires_grad(true)?;
//! let loss = w.try_mul(&w)?.try_sum(&[], false)?; // sum(w²)
//! loss.try_backward()?;
//! assert_eq!(w.grad().unwrap().to_vec(), vec![2.0, 4.0, 6.0]); // d/dw = 2w
//! # Ok::<(), typed_tensor::Error>(())
//! ```

mod anomaly;
mod check;
mod function;
mod functional;
mod grad;
mod hooks;
mod rules;
pub(crate) use rules::sum_to;
mod version;

use version::Registration;
pub(crate) use version::bump;

pub use anomaly::{detect_anomaly, is_anomaly_enabled, set_detect_anomaly};
pub use check::{gradcheck, gradgradcheck};
pub(crate) use function::linear;
pub use function::{checkpoint, custom};
pub use functional::{Vjp, hessian, hvp, jacobian, jvp, vhp, vjp};
pub use grad::{grad, grad_create_graph, grad_with};
pub use hooks::HookHandle;
pub(crate) use rules::Op;

use crate::backend::Backend;
use crate::device::{Cpu, Cuda};
use crate::dtype::{Element, FloatElement};
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use parking_lot::Mutex;
use std::any::Any;
use std::cell::Cell;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

thread_local! {
    static ENABLED: Cell<bool> = const { Cell::new(true) };
    /// Whether a backward pass on this thread captures gradients ([`grad`]) rather than
    /// accumulating them.
    static CAPTURING: Cell<bool> = const { Cell::new(false) };
}

/// Whether the backward pass running on this thread captures gradients (`autograd::grad`).
pub(crate) fn capturing() -> bool {
    CAPTURING.with(Cell::get)
}

/// Whether ops on this thread record the graph (PyTorch `torch.is_grad_enabled`).
pub fn is_grad_enabled() -> bool {
    ENABLED.with(Cell::get)
}

/// Runs `f` with recording off on this thread (PyTorch `with torch.no_grad()`): its results
/// do not require grad and keep no graph. Recording is restored afterwards, also on a panic.
pub fn no_grad<R>(f: impl FnOnce() -> R) -> R {
    let _guard = NoGradGuard::new();
    f()
}

/// Runs `f` for inference (PyTorch `with torch.inference_mode()`): here the same as
/// [`no_grad`] (PyTorch's mode also skips version counting and view tracking for speed,
/// which cost little here); its results are ordinary tensors, usable later in recorded code
/// (PyTorch's inference tensors are not).
///
/// ```
/// use typed_tensor::prelude::*;
/// let w = Tensor::<f32>::ones([2])?.with_requires_grad(true)?;
/// let y = typed_tensor::autograd::inference_mode(|| w.try_mul_scalar(2.0))?;
/// assert!(!y.requires_grad());
/// # Ok::<(), typed_tensor::Error>(())
/// ```
pub fn inference_mode<R>(f: impl FnOnce() -> R) -> R {
    no_grad(f)
}

/// Runs `f` with recording on on this thread, also inside [`no_grad`] (PyTorch `with
/// torch.enable_grad()`). The previous mode is restored afterwards, also on a panic.
pub fn enable_grad<R>(f: impl FnOnce() -> R) -> R {
    // The guard restores whatever mode it found.
    let _guard = NoGradGuard {
        prev: ENABLED.with(|e| e.replace(true)),
    };
    f()
}

/// Runs `f` with recording on or off on this thread (PyTorch `with
/// torch.set_grad_enabled(mode):`, as in `set_grad_enabled(phase == Train, ...)`): [`enable_grad`]
/// or [`no_grad`]. The previous mode is restored afterwards, also on a panic.
///
/// ```
/// use typed_tensor::autograd::set_grad_enabled;
/// use typed_tensor::prelude::*;
/// let w = Tensor::<f32>::ones([2])?.with_requires_grad(true)?;
/// let training = false;
/// let y = set_grad_enabled(training, || w.try_mul_scalar(2.0))?;
/// assert!(!y.requires_grad());
/// # Ok::<(), typed_tensor::Error>(())
/// ```
pub fn set_grad_enabled<R>(enabled: bool, f: impl FnOnce() -> R) -> R {
    if enabled { enable_grad(f) } else { no_grad(f) }
}

/// Recording is off on this thread while the guard lives (the guard form of [`no_grad`]).
pub struct NoGradGuard {
    prev: bool,
}

impl NoGradGuard {
    /// Turns recording off until the guard is dropped.
    pub fn new() -> Self {
        NoGradGuard {
            prev: ENABLED.with(|e| e.replace(false)),
        }
    }
}

impl Default for NoGradGuard {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for NoGradGuard {
    fn drop(&mut self) {
        ENABLED.with(|e| e.set(self.prev));
    }
}

/// A gradient on its way through the graph, or a saved input: a `Tensor<F, D>` of a float
/// type `F`, erased so that the rules are compiled once per float type, not once per op dtype.
type Grad = Box<dyn Any + Send + Sync>;
pub(crate) type Saved = Arc<dyn Any + Send + Sync>;

/// One recorded op (or a leaf) in the graph.
pub struct Node {
    id: u64,
    op: Op,
    inputs: Vec<Option<Arc<Node>>>,
    /// The tensors the rule needs and their buffers' versions; `None` once a `backward` has
    /// freed the graph.
    saved: Mutex<Option<(Vec<Saved>, Vec<Registration>)>>,
    /// A leaf's sink: adds a gradient into the tensor's gradient buffer.
    sink: Option<Box<dyn Fn(Grad) -> Result<()> + Send + Sync>>,
    /// The tensor's gradient hooks and its `retain_grad` buffer ([`hooks`]).
    hooks: Mutex<Vec<hooks::Hook>>,
    /// Whether the last saved tensor is the node's own output ([`record_out`]), saved without
    /// its node (which would hold itself) and given it back for a `create_graph` pass.
    saves_output: bool,
    /// A leaf set `requires_grad_(false)` through any of its handles (PyTorch's frozen
    /// parameter): ops do not record it and optimizers skip it, until `requires_grad_(true)`.
    /// Shared by every clone of the tensor, as a layer's parameter and the handles
    /// `parameters()` returns are one variable.
    frozen: std::sync::atomic::AtomicBool,
    /// Where the op was recorded, when anomaly detection was on then (PyTorch's forward
    /// traceback in an anomaly error).
    trace: Option<Box<std::backtrace::Backtrace>>,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// The tensor inside an erased gradient or saved value.
pub(crate) fn take<T: Element, D: Backend>(g: Grad) -> Result<Tensor<T, D>> {
    g.downcast::<Tensor<T, D>>()
        .map(|t| *t)
        .map_err(|_| mismatch::<T>())
}

/// A saved tensor, by reference.
pub(crate) fn saved<T: Element, D: Backend>(s: &Saved) -> Result<&Tensor<T, D>> {
    s.downcast_ref::<Tensor<T, D>>().ok_or_else(mismatch::<T>)
}

/// A gradient on its way, by reference.
fn saved_grad<T: Element, D: Backend>(g: &Grad) -> Result<&Tensor<T, D>> {
    g.downcast_ref::<Tensor<T, D>>().ok_or_else(mismatch::<T>)
}

fn mismatch<T: Element>() -> Error {
    Error::InvalidArgument {
        op: "backward",
        msg: format!(
            "a gradient of another dtype or device reached a {} node (a bug in a backward rule)",
            T::DTYPE
        ),
    }
}

// The graph runs through plain functions that find the device (and `rules` the float type)
// from the gradient itself. Generic entry points stored by `record`, which every op's generic
// `try_x` calls, would make each downstream crate compile every backward rule again: release
// builds do not share generic instances between crates.

/// Whether a gradient lives on the CPU (otherwise it is on a CUDA device).
fn on_cpu(g: &Grad) -> bool {
    g.is::<Tensor<f32, Cpu>>()
        || g.is::<Tensor<f64, Cpu>>()
        || g.is::<Tensor<half::f16, Cpu>>()
        || g.is::<Tensor<half::bf16, Cpu>>()
}

/// Applies a node's rule: (op, output gradient, saved tensors, which inputs need a gradient).
fn apply(op: &Op, g: Grad, saved: &[Saved], needs: &[bool]) -> Result<Vec<Option<Grad>>> {
    if on_cpu(&g) {
        rules::apply::<Cpu>(op, g, saved, needs)
    } else {
        rules::apply::<Cuda>(op, g, saved, needs)
    }
}

/// A gradient whose computation waits for the backward pass to need it (a view's write
/// into a zero gradient of its base, `rules::views`): summed into another gradient of the
/// same node in place where it can be, computed only when its node runs.
pub(crate) struct Deferred(Box<dyn DeferredGrad>);

/// What a [`Deferred`] gradient can do.
pub(crate) trait DeferredGrad: Send + Sync {
    /// The gradient itself.
    fn materialize(self: Box<Self>) -> Result<Grad>;
    /// `acc` (a computed gradient of the same node) plus this one.
    fn add_into(self: Box<Self>, acc: Grad) -> Result<Grad>;
}

/// `g` computed, when it is [`Deferred`].
fn resolve(g: Grad) -> Result<Grad> {
    match g.downcast::<Deferred>() {
        Ok(d) => d.0.materialize(),
        Err(g) => Ok(g),
    }
}

/// Sums two gradients of one node.
fn add_grads(a: Grad, b: Grad) -> Result<Grad> {
    let b = match b.downcast::<Deferred>() {
        Ok(d) => return d.0.add_into(resolve(a)?),
        Err(b) => b,
    };
    let a = resolve(a)?;
    if on_cpu(&a) {
        add_grads_on::<Cpu>(a, b)
    } else {
        add_grads_on::<Cuda>(a, b)
    }
}

fn add_grads_on<D: Backend>(a: Grad, b: Grad) -> Result<Grad> {
    fn go<F: FloatElement, D: Backend>(mut a: Tensor<F, D>, b: Grad) -> Result<Grad> {
        let b = take::<F, D>(b)?;
        // A rule's fresh output that nothing else holds (no clone, saved copy or hook) and
        // whose elements are distinct takes `b` in place: no new buffer, and `a`'s layout
        // (a view rule's storage order) is kept. Not when either carries a graph (a
        // `create_graph` pass): the in-place add would not record `b`'s.
        if a.node.is_none()
            && b.node.is_none()
            && a.dims() == b.dims()
            && a.layout.is_dense()
            && D::is_unique(&a.storage)
        {
            a.add_(&b)?;
            return Ok(Box::new(a));
        }
        Ok(Box::new(a.try_add(&b)?))
    }
    if a.is::<Tensor<f32, D>>() {
        go::<f32, D>(take(a)?, b)
    } else if a.is::<Tensor<f64, D>>() {
        go::<f64, D>(take(a)?, b)
    } else if a.is::<Tensor<half::f16, D>>() {
        go::<half::f16, D>(take(a)?, b)
    } else {
        go::<half::bf16, D>(take(a)?, b)
    }
}

impl Node {
    /// The leaf node of a tensor whose gradient buffer is `grad` (a contiguous tensor over the
    /// buffer, shared with every clone of the leaf).
    pub(crate) fn leaf<T: FloatElement, D: Backend>(grad: Tensor<T, D>) -> Arc<Node> {
        let sink = move |g: Grad| {
            let g = take::<T, D>(g)?;
            let mut buf = grad.clone();
            buf.add_(&g)
        };
        Arc::new(Node {
            sink: Some(Box::new(sink)),
            ..Node::op(Op::Leaf, Vec::new(), None, false)
        })
    }

    /// A node of `op` (not a leaf) with a fresh id.
    fn op(
        op: Op,
        inputs: Vec<Option<Arc<Node>>>,
        saved: Option<(Vec<Saved>, Vec<Registration>)>,
        saves_output: bool,
    ) -> Node {
        Node {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            op,
            inputs,
            saved: Mutex::new(saved),
            sink: None,
            hooks: Mutex::new(Vec::new()),
            saves_output,
            frozen: std::sync::atomic::AtomicBool::new(false),
            trace: anomaly::is_anomaly_enabled()
                .then(|| Box::new(std::backtrace::Backtrace::force_capture())),
        }
    }

    /// The op's name (`"mul"`), or `"leaf"`.
    pub fn name(&self) -> &'static str {
        self.op.name()
    }

    pub(crate) fn is_leaf(&self) -> bool {
        self.sink.is_some()
    }

    /// Whether this leaf is frozen ([`Node::set_frozen`]).
    pub(crate) fn is_frozen(&self) -> bool {
        self.frozen.load(Ordering::Relaxed)
    }

    /// Freezes or thaws a leaf (see the `frozen` field).
    pub(crate) fn set_frozen(&self, frozen: bool) {
        self.frozen.store(frozen, Ordering::Relaxed);
    }
}

/// An input of a recorded op: its node, and itself erased for saving.
pub(crate) trait Tracked {
    fn node(&self) -> Option<Arc<Node>>;
    fn save(&self) -> (Saved, Registration);
}

impl<T: Element, D: Backend> Tracked for Tensor<T, D> {
    fn node(&self) -> Option<Arc<Node>> {
        self.graph_node().cloned()
    }
    fn save(&self) -> (Saved, Registration) {
        let id = D::storage_id(&self.storage);
        // The node stays (the new node holds it among its inputs anyway), so a rule run with
        // `create_graph` records its gradient's dependence on the saved tensor.
        let mut t = self.clone();
        t.grad = None;
        (Arc::new(t), Registration::new(id))
    }
}

/// Whether an op on `inputs` records: recording is on and one of them requires grad.
pub(crate) fn recording(inputs: &[&dyn Tracked]) -> bool {
    inputs.iter().any(|t| t.node().is_some()) && is_grad_enabled()
}

/// Records `out = op(inputs)` when [`recording`]: `out` gets a node holding `saved` and the
/// inputs' nodes, and requires grad. Otherwise `out` is returned as it is.
pub(crate) fn record<T: Element, D: Backend>(
    out: Tensor<T, D>,
    op: Op,
    inputs: &[&dyn Tracked],
    saved: &[&dyn Tracked],
) -> Tensor<T, D> {
    record_node(out, op, inputs, saved, false)
}

fn record_node<T: Element, D: Backend>(
    out: Tensor<T, D>,
    op: Op,
    inputs: &[&dyn Tracked],
    saved: &[&dyn Tracked],
    saves_output: bool,
) -> Tensor<T, D> {
    // Integer and bool results carry no gradient (PyTorch).
    if const { !T::DTYPE.is_float() } || !recording(inputs) {
        return out;
    }
    let mut out = out;
    out.node = Some(Arc::new(Node::op(
        op,
        inputs.iter().map(|t| t.node()).collect(),
        Some(saved.iter().map(|t| t.save()).unzip()),
        saves_output,
    )));
    out.requires_grad = true;
    out
}

/// [`record`] for rules that also save the output, after `saved`: the output is cloned only
/// when recording, so an untracked op allocates nothing more than its result.
pub(crate) fn record_out<T: Element, D: Backend>(
    out: Tensor<T, D>,
    op: Op,
    inputs: &[&dyn Tracked],
    saved: &[&dyn Tracked],
) -> Tensor<T, D> {
    if const { !T::DTYPE.is_float() } || !recording(inputs) {
        return out;
    }
    let kept = out.clone();
    let mut all = saved.to_vec();
    all.push(&kept);
    record_node(out, op, inputs, &all, true)
}

/// Runs the backward pass from `root` with `grad` as its gradient. Without `capture` each leaf
/// adds what reaches it into its gradient buffer; with it, the gradient that reaches each
/// node of `capture` (id → its positions in the result) is returned instead, no buffer is
/// touched, and only the nodes leading to a captured one run their rules ([`grad`]).
///
/// With `create_graph` (and recording on) the rules run recorded, on saved tensors that keep
/// their nodes, so the gradients carry a graph of their own (PyTorch's `create_graph=True`,
/// for higher-order gradients); the graph is then always retained, as the new graph runs
/// back through it. Otherwise the rules run under [`no_grad`].
fn backward_pass(
    root: &Arc<Node>,
    grad: Grad,
    retain_graph: bool,
    create_graph: bool,
    capture: Option<&HashMap<u64, Vec<usize>>>,
) -> Result<Vec<Option<Grad>>> {
    let prev = CAPTURING.with(|c| c.replace(capture.is_some()));
    let out = if create_graph && is_grad_enabled() {
        run_backward(root, grad, true, true, capture)
    } else {
        no_grad(|| run_backward(root, grad, retain_graph, false, capture))
    };
    CAPTURING.with(|c| c.set(prev));
    out
}

/// `s` (a saved float tensor) as the output of `node`, for a `create_graph` pass.
fn attach(s: &Saved, node: Arc<Node>) -> Result<Saved> {
    fn on<F: FloatElement, D: Backend>(s: &Saved, node: &Arc<Node>) -> Option<Saved> {
        let mut t = s.downcast_ref::<Tensor<F, D>>()?.clone();
        t.node = Some(node.clone());
        t.requires_grad = true;
        Some(Arc::new(t))
    }
    fn any<D: Backend>(s: &Saved, node: &Arc<Node>) -> Option<Saved> {
        on::<f32, D>(s, node)
            .or_else(|| on::<f64, D>(s, node))
            .or_else(|| on::<half::f16, D>(s, node))
            .or_else(|| on::<half::bf16, D>(s, node))
    }
    any::<Cpu>(s, &node)
        .or_else(|| any::<Cuda>(s, &node))
        .ok_or_else(mismatch::<f32>)
}

/// The saved tensors of `node` for a `create_graph` pass, with the outputs among them given
/// their nodes back: the node's own output ([`record_out`] saves it last, without its node,
/// which would hold itself), and a factorization's factors (each output is its own node
/// saving all of them: the other outputs get nodes made again from the same op, inputs and
/// saved tensors, so a gradient reaching them flows to the input as through the originals).
fn saved_with_outputs(saved: &[Saved], node: &Arc<Node>) -> Result<Vec<Saved>> {
    let mut all = saved.to_vec();
    if node.saves_output {
        let Some(last) = all.last_mut() else {
            return Err(mismatch::<f32>());
        };
        *last = attach(last, node.clone())?;
        return Ok(all);
    }
    // (the saved position of each output, its op) and the position of this node's output.
    let (parts, this): (Vec<(usize, Op)>, usize) = match node.op {
        Op::Svd(i) => (
            (0..3).map(|j| (j as usize, Op::Svd(j))).collect(),
            i as usize,
        ),
        Op::Eigh(i) => (
            (0..2).map(|j| (j as usize, Op::Eigh(j))).collect(),
            i as usize,
        ),
        Op::Qr(i) => (
            (0..2).map(|j| (j as usize, Op::Qr(j))).collect(),
            i as usize,
        ),
        // Saved: P, L, U; P is piecewise constant.
        Op::Lu(i) => (
            (0..2).map(|j| (j as usize + 1, Op::Lu(j))).collect(),
            i as usize + 1,
        ),
        _ => return Ok(all),
    };
    for (at, op) in parts {
        let owner = if at == this {
            node.clone()
        } else {
            // The versions are checked by `node`, which shares these tensors.
            let again = (saved.to_vec(), Vec::new());
            Arc::new(Node::op(op, node.inputs.clone(), Some(again), false))
        };
        all[at] = attach(&saved[at], owner)?;
    }
    Ok(all)
}

fn run_backward(
    root: &Arc<Node>,
    grad: Grad,
    retain_graph: bool,
    create_graph: bool,
    capture: Option<&HashMap<u64, Vec<usize>>>,
) -> Result<Vec<Option<Grad>>> {
    // Every node reachable from the root, each once.
    let mut seen: HashMap<u64, Arc<Node>> = HashMap::new();
    let mut stack = vec![root.clone()];
    while let Some(n) = stack.pop() {
        if seen.contains_key(&n.id) {
            continue;
        }
        stack.extend(n.inputs.iter().flatten().cloned());
        seen.insert(n.id, n);
    }
    let mut order: Vec<Arc<Node>> = seen.into_values().collect();
    order.sort_unstable_by_key(|n| std::cmp::Reverse(n.id));
    // With a capture, the nodes from which a captured node is reachable (inputs first).
    let mut captured: Vec<Option<Grad>> = Vec::new();
    let mut needed: std::collections::HashSet<u64> = std::collections::HashSet::new();
    if let Some(capture) = capture {
        captured.resize_with(capture.values().flatten().count(), || None);
        for node in order.iter().rev() {
            let feeds = node.inputs.iter().flatten().any(|i| needed.contains(&i.id));
            if feeds || capture.contains_key(&node.id) {
                needed.insert(node.id);
            }
        }
    }
    let mut pending: HashMap<u64, Grad> = HashMap::new();
    pending.insert(root.id, grad);
    for node in order {
        let Some(g) = pending.remove(&node.id) else {
            continue;
        };
        if capture.is_some_and(|_| !needed.contains(&node.id)) {
            continue;
        }
        let g = resolve(g)?;
        // The tensor's hooks see (and may replace) the whole gradient that reached it, before
        // it is captured, retained, accumulated or passed on (PyTorch's tensor hooks).
        let g = hooks::run(&node, g)?;
        let g = match capture {
            None => g,
            Some(capture) => {
                for &i in capture.get(&node.id).into_iter().flatten() {
                    captured[i] = Some(clone_grad(&g)?);
                }
                // Nothing further unless an input of this node leads to another one.
                if node
                    .inputs
                    .iter()
                    .flatten()
                    .all(|i| !needed.contains(&i.id))
                {
                    continue;
                }
                g
            }
        };
        if let Some(sink) = &node.sink {
            if capture.is_none() {
                sink(g)?;
                hooks::run_post(&node)?;
            }
            continue;
        }
        let mut slot = node.saved.lock();
        let Some((saved, versions)) = slot.as_ref() else {
            return Err(Error::InvalidArgument {
                op: "backward",
                msg: format!(
                    "the graph through `{}` was freed by an earlier backward; pass retain_graph = true to the first backward to run it twice",
                    node.op.name()
                ),
            });
        };
        if let Some(k) = versions.iter().position(|v| v.writes_since() > 0) {
            return Err(Error::InvalidArgument {
                op: "backward",
                msg: format!(
                    "tensor {k} that `{}` saved for its gradient was modified by an in-place op after it was used, so the gradient would be wrong; use the out-of-place op (or deep_copy() before writing)",
                    node.op.name()
                ),
            });
        }
        // With a capture, only the inputs that lead to a captured node.
        let needs: Vec<bool> = (node.inputs.iter())
            .map(|i| {
                i.as_ref()
                    .is_some_and(|i| capture.is_none() || needed.contains(&i.id))
            })
            .collect();
        let grads = if create_graph {
            apply(&node.op, g, &saved_with_outputs(saved, &node)?, &needs)?
        } else {
            apply(&node.op, g, saved, &needs)?
        };
        let grads = match anomaly::is_anomaly_enabled() {
            true => anomaly::check(&node, grads)?,
            false => grads,
        };
        if !retain_graph {
            *slot = None;
        }
        drop(slot);
        for (input, g) in node.inputs.iter().zip(grads) {
            let (Some(input), Some(g)) = (input, g) else {
                continue;
            };
            let g = match pending.remove(&input.id) {
                Some(prev) => add_grads(prev, g)?,
                None => g,
            };
            pending.insert(input.id, g);
        }
    }
    Ok(captured)
}

/// Another handle on a gradient (the tensor shares its buffer).
fn clone_grad(g: &Grad) -> Result<Grad> {
    fn on<D: Backend>(g: &Grad) -> Option<Grad> {
        fn one<F: FloatElement, D: Backend>(g: &Grad) -> Option<Grad> {
            let t = g.downcast_ref::<Tensor<F, D>>()?;
            Some(Box::new(t.clone()))
        }
        one::<f32, D>(g)
            .or_else(|| one::<f64, D>(g))
            .or_else(|| one::<half::f16, D>(g))
            .or_else(|| one::<half::bf16, D>(g))
    }
    on::<Cpu>(g)
        .or_else(|| on::<Cuda>(g))
        .ok_or_else(mismatch::<f32>)
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// Computes the gradient of this one-element tensor (0-d, or any shape with one element)
    /// with respect to every leaf it was computed from, adding it into each leaf's gradient
    /// buffer ([`Tensor::grad`]); the graph is freed (PyTorch `loss.backward()`).
    ///
    /// # Errors
    /// `InvalidArgument` when the tensor has more than one element (use
    /// [`Tensor::try_backward_with`]), does not require grad, or its graph was freed by an
    /// earlier backward; any error of a backward rule.
    pub fn try_backward(&self) -> Result<()> {
        if self.numel() != 1 {
            return Err(Error::InvalidArgument {
                op: "backward",
                msg: format!(
                    "backward() needs a one-element result, got shape {}; call backward_with(grad) with a gradient of that shape",
                    self.shape()
                ),
            });
        }
        let one = Tensor::<T, D>::scalar_on(T::ONE, &self.device)?.try_reshape(self.dims())?;
        self.try_backward_with(&one, false)
    }

    /// Backward from a result of any shape, with `grad` (same shape, dtype and device) as the
    /// gradient of the result (PyTorch `t.backward(gradient, retain_graph)`). With
    /// `retain_graph` the graph stays for another backward.
    ///
    /// # Errors
    /// `ShapeMismatch` when `grad`'s shape differs; as [`Tensor::try_backward`] otherwise.
    pub fn try_backward_with(&self, grad: &Tensor<T, D>, retain_graph: bool) -> Result<()> {
        let Some(node) = self.graph_node() else {
            return Err(Error::InvalidArgument {
                op: "backward",
                msg: format!(
                    "the tensor of shape {} does not require grad: no input of the ops that made it had requires_grad set (or they ran under no_grad)",
                    self.shape()
                ),
            });
        };
        if grad.shape() != self.shape() {
            return Err(Error::ShapeMismatch {
                op: "backward",
                lhs: self.shape().clone(),
                rhs: grad.shape().clone(),
                msg: "the gradient passed to backward_with must have the result's shape".into(),
            });
        }
        let g = grad.try_contiguous()?;
        backward_pass(node, Box::new(g), retain_graph, false, None).map(|_| ())
    }

    /// [`Tensor::try_backward`], panicking with its error.
    ///
    /// # Panics
    /// When `try_backward` returns an `Err`.
    #[track_caller]
    pub fn backward(&self) {
        crate::error::OrPanic::or_panic(self.try_backward())
    }
}

impl<T: Element, D: Backend> Tensor<T, D> {
    /// True for a tensor no recorded op produced: one made by the user (with or without
    /// `requires_grad`), or a result computed without recording (PyTorch `is_leaf`).
    pub fn is_leaf(&self) -> bool {
        self.node.as_ref().is_none_or(|n| n.is_leaf())
    }

    /// The node ops record this tensor with: `None` without one and for a frozen leaf.
    pub(crate) fn graph_node(&self) -> Option<&Arc<Node>> {
        self.node.as_ref().filter(|n| !n.is_frozen())
    }

    /// Whether this is a leaf set `requires_grad_(false)` after it required grad (a frozen
    /// parameter): it keeps its gradient buffer, which backward no longer adds to and
    /// optimizers skip (PyTorch skips parameters whose `grad` is `None`).
    pub(crate) fn is_frozen(&self) -> bool {
        self.node.as_ref().is_some_and(|n| n.is_frozen())
    }

    /// The same data without the graph: shares storage, does not require grad and has no
    /// gradient buffer (PyTorch `detach`).
    pub fn detach(&self) -> Self {
        let mut t = self.clone();
        t.node = None;
        t.grad = None;
        t.requires_grad = false;
        t
    }

    /// Whether a live graph keeps this tensor's buffer for a backward pass (its memory is not
    /// released before that graph is freed by `backward` or dropped).
    pub fn is_saved_for_backward(&self) -> bool {
        version::is_saved(D::storage_id(&self.storage))
    }

    /// The node that produced this tensor (`None` for a tensor that does not require grad).
    pub fn grad_fn(&self) -> Option<&Node> {
        self.node.as_deref()
    }

    /// Sets every element of the gradient buffer to 0 (PyTorch `zero_grad`); nothing happens
    /// without one.
    ///
    /// # Errors
    /// `Layout` when this thread holds a guard on the gradient buffer.
    pub fn zero_grad(&self) -> Result<()> {
        match self.grad_tensor() {
            Some(mut g) => g.fill_(T::ZERO),
            None => Ok(()),
        }
    }

    /// The gradient buffer as a contiguous tensor of this tensor's shape (shared, not copied).
    pub fn grad_tensor(&self) -> Option<Tensor<T, D>> {
        let storage = self.grad.clone()?;
        Some(Tensor::from_storage(
            storage,
            self.shape().clone(),
            &self.device,
        ))
    }
}
