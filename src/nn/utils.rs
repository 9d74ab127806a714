//! PyTorch's `torch.nn.utils` helpers: `pad_sequence`/`unpad_sequence` (batches of
//! variable-length sequences), `parameters_to_vector`/`vector_to_parameters`, and the weight
//! normalisation `weight_norm` (`torch._weight_norm`, what
//! `nn.utils.parametrizations.weight_norm` computes). Composed of differentiable ops.
//!
//! ```
//! use typed_tensor::prelude::*;
//! use typed_tensor::nn;
//! let a = Tensor::<f32>::ones([3, 2])?;
//! let b = Tensor::<f32>::ones([1, 2])?;
//! let padded = nn::pad_sequence(&[&a, &b], true, 0.0, false)?; // (batch, max length, 2)
//! assert_eq!(padded.dims(), &[2, 3, 2]);
//! assert_eq!(padded.to_vec()[6..].to_vec(), vec![1.0, 1.0, 0.0, 0.0, 0.0, 0.0]);
//! let back = nn::unpad_sequence(&padded, &[3, 1], true)?;
//! assert_eq!(back[1].dims(), &[1, 2]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::autograd::no_grad;
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// Sequences `(L_i, *)` padded with `padding_value` to the longest and stacked (PyTorch
/// `pad_sequence`): `(L_max, B, *)`, or `(B, L_max, *)` with `batch_first`; the padding goes
/// before each sequence with `pad_left` (PyTorch `padding_side="left"`), else after.
///
/// # Errors
/// `InvalidArgument` for an empty list or a 0-d sequence; `ShapeMismatch` when the trailing
/// dimensions differ; `Device` across devices.
pub fn pad_sequence<T: FloatElement, D: Backend>(
    sequences: &[&Tensor<T, D>],
    batch_first: bool,
    padding_value: f64,
    pad_left: bool,
) -> Result<Tensor<T, D>> {
    const OP: &str = "pad_sequence";
    if sequences.is_empty() || sequences.iter().any(|s| s.ndim() == 0) {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: "needs at least one sequence, each with a length axis first".into(),
        });
    }
    let longest = sequences.iter().map(|s| s.dims()[0]).max().unwrap_or(0);
    let padded = (sequences.iter())
        .map(|s| {
            let extra = longest - s.dims()[0];
            let mut pads = vec![(0, 0); s.ndim()];
            pads[0] = if pad_left { (extra, 0) } else { (0, extra) };
            s.try_pad(&pads, T::from_f64(padding_value))
        })
        .collect::<Result<Vec<_>>>()?;
    let refs: Vec<&Tensor<T, D>> = padded.iter().collect();
    Tensor::try_stack(&refs, if batch_first { 0 } else { 1 }).map_err(|e| e.shape_named(OP))
}

/// The sequences of a padded batch, each cut to its length (PyTorch `unpad_sequence`, for
/// padding after the sequence): `padded` `(L_max, B, *)` (`(B, L_max, *)` with
/// `batch_first`), `lengths` one per batch entry; views.
///
/// # Errors
/// `InvalidArgument` for fewer than 2 dimensions, a `lengths` of another count than `B`, or a
/// length above `L_max`.
pub fn unpad_sequence<T: FloatElement, D: Backend>(
    padded: &Tensor<T, D>,
    lengths: &[usize],
    batch_first: bool,
) -> Result<Vec<Tensor<T, D>>> {
    let (b_axis, l_axis) = if batch_first { (0, 1) } else { (1, 0) };
    let fits = padded.ndim() >= 2
        && lengths.len() == padded.dims()[b_axis]
        && lengths.iter().all(|&l| l <= padded.dims()[l_axis]);
    if !fits {
        return Err(Error::InvalidArgument {
            op: "unpad_sequence",
            msg: format!(
                "lengths {lengths:?} do not fit a padded batch of shape {} (batch_first = {batch_first})",
                padded.shape()
            ),
        });
    }
    (lengths.iter().enumerate())
        .map(|(i, &len)| {
            let seq = padded.select(b_axis as i64, i as i64)?;
            seq.narrow(0, 0, len)
        })
        .collect()
}

/// The parameters flattened and joined into one 1-d tensor (PyTorch
/// `parameters_to_vector`); differentiable.
///
/// # Errors
/// `InvalidArgument` for an empty list; `Device` across devices.
pub fn parameters_to_vector<T: FloatElement, D: Backend>(
    parameters: &[&Tensor<T, D>],
) -> Result<Tensor<T, D>> {
    if parameters.is_empty() {
        return Err(Error::InvalidArgument {
            op: "parameters_to_vector",
            msg: "needs at least one parameter".into(),
        });
    }
    let flat = (parameters.iter())
        .map(|p| p.try_reshape([p.numel()]))
        .collect::<Result<Vec<_>>>()?;
    Tensor::try_concat(&flat.iter().collect::<Vec<_>>(), 0)
}

/// Writes consecutive slices of the 1-d `vector` into the parameters, unrecorded (PyTorch
/// `vector_to_parameters`): each parameter takes as many elements as it has. Everything is
/// checked before anything is written.
///
/// # Errors
/// `InvalidArgument` when `vector` is not 1-d with exactly the parameters' element count;
/// `Device` across devices; `Layout` for a broadcast view.
pub fn vector_to_parameters<T: FloatElement, D: Backend>(
    vector: &Tensor<T, D>,
    parameters: &mut [&mut Tensor<T, D>],
) -> Result<()> {
    let total = (parameters.iter()).try_fold(0usize, |a, p| a.checked_add(p.numel()));
    if vector.ndim() != 1 || total != Some(vector.numel()) {
        return Err(Error::InvalidArgument {
            op: "vector_to_parameters",
            msg: format!(
                "a vector of shape {} for parameters of {total:?} elements in all; it must be 1-d with exactly that many",
                vector.shape()
            ),
        });
    }
    for p in parameters.iter() {
        crate::ops::device_ops::same_device("vector_to_parameters", vector, *p)?;
        if p.layout.has_aliasing() {
            return Err(Error::Layout {
                op: "vector_to_parameters",
                msg: format!("a broadcast view of shape {} cannot be written", p.shape()),
            });
        }
    }
    let mut at = 0;
    for p in parameters.iter_mut() {
        let n = p.numel();
        let part = vector.narrow(0, at, n)?.try_reshape(p.dims())?;
        no_grad(|| p.copy_from(&part.detach()))?;
        at += n;
    }
    Ok(())
}

/// `g · v / ‖v‖` (PyTorch `torch._weight_norm`, the weight of
/// `nn.utils.parametrizations.weight_norm`): the 2-norm of `v` over every axis but `axis`
/// (`None`: over the whole tensor), `g` broadcasting against it (shape `(1, .., n, .., 1)`, or
/// 0-d with `None`). Differentiable in both.
///
/// # Errors
/// `Axis` for a bad axis; `Broadcast` when `g` does not broadcast.
pub fn weight_norm<T: FloatElement, D: Backend>(
    v: &Tensor<T, D>,
    g: &Tensor<T, D>,
    axis: Option<i64>,
) -> Result<Tensor<T, D>> {
    let axes: Vec<i64> = match axis {
        Some(a) => {
            let a = v.shape().axis("weight_norm", a)?;
            (0..v.ndim())
                .filter(|&i| i != a)
                .map(|i| i as i64)
                .collect()
        }
        None => Vec::new(), // every axis
    };
    let norm = if axes.is_empty() && axis.is_some() {
        v.try_abs()? // a 1-d v normalised along its only axis: each element alone
    } else {
        v.try_square()?.try_sum(&axes, true)?.try_sqrt()?
    };
    v.try_mul(&g.try_div(&norm)?)
}

/// The power-iteration state of [`spectral_norm`]: the estimates of the leading left and
/// right singular vectors of the weight viewed as a matrix (PyTorch's `_u` and `_v`).
#[derive(Clone, Debug)]
pub struct SpectralState<T: FloatElement, D: Backend> {
    /// The left vector, `(rows,)`.
    pub u: Tensor<T, D>,
    /// The right vector, `(columns,)`.
    pub v: Tensor<T, D>,
}

/// `weight / σ`, `σ` the power-iteration estimate of the weight's largest singular value
/// (PyTorch `nn.utils.parametrizations.spectral_norm`): the weight viewed as a matrix with
/// axis `axis` as rows (the others flattened, in order), `n_power_iterations` steps `u ←
/// normalize(W·v)`, `v ← normalize(Wᵀ·u)` (`eps` as in [`super::normalize`]) updating `state`
/// when `training`, then `σ = uᵀ·W·v`. The iterations are not recorded, so the gradient is
/// PyTorch's (through `W` in `σ` and in the numerator). A 1-d weight is normalized to unit
/// norm. Start `state` with [`spectral_state`].
///
/// ```
/// use typed_tensor::nn::{spectral_norm, spectral_state};
/// use typed_tensor::prelude::*;
/// let w = tensor![[3.0f64, 0.0], [0.0, 1.0]];
/// let mut s = spectral_state(&w, 0, 1e-12)?;
/// let wn = spectral_norm(&w, &mut s, 1, 0, 1e-12, true)?;
/// assert!((wn.to_vec()[0] - 1.0).abs() < 1e-9); // σ = 3
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `Axis` for a bad axis; `InvalidArgument` for a 0-d weight or a state whose vectors do not
/// match the weight matrix's rows and columns; `Device` across devices.
pub fn spectral_norm<T: FloatElement, D: Backend>(
    weight: &Tensor<T, D>,
    state: &mut SpectralState<T, D>,
    n_power_iterations: usize,
    axis: i64,
    eps: f64,
    training: bool,
) -> Result<Tensor<T, D>> {
    const OP: &str = "spectral_norm";
    if weight.ndim() == 1 {
        return super::normalize(weight, 2.0, 0, eps);
    }
    let w = weight_matrix(OP, weight, axis)?;
    let (rows, cols) = (w.dims()[0], w.dims()[1]);
    if state.u.dims() != [rows] || state.v.dims() != [cols] {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!(
                "the state's u {} and v {} must be ({rows},) and ({cols},) for the weight matrix of shape {}",
                state.u.shape(),
                state.v.shape(),
                w.shape()
            ),
        });
    }
    crate::ops::device_ops::same_device(OP, weight, &state.u)?;
    crate::ops::device_ops::same_device(OP, weight, &state.v)?;
    if training {
        no_grad(|| power_iterations(&w.detach(), state, n_power_iterations, eps))?;
    }
    let (u, v) = (state.u.detach(), state.v.detach());
    let sigma = u
        .try_mul(&w.try_matmul(&v.unsqueeze(1)?)?.squeeze_dims(&[1])?)?
        .try_sum(&[], false)?;
    weight.try_div(&sigma)
}

/// A fresh [`SpectralState`] for `weight` (PyTorch's initialisation): `u` and `v` normal
/// draws from the global generator, normalized, then 15 power iterations.
///
/// # Errors
/// As [`spectral_norm`].
pub fn spectral_state<T: FloatElement, D: Backend>(
    weight: &Tensor<T, D>,
    axis: i64,
    eps: f64,
) -> Result<SpectralState<T, D>> {
    const OP: &str = "spectral_norm";
    let dev = weight.device_handle();
    if weight.ndim() == 1 {
        // Unused for a vector; PyTorch keeps none.
        let e = Tensor::zeros_on([0], dev)?;
        return Ok(SpectralState { u: e.clone(), v: e });
    }
    let w = weight_matrix(OP, weight, axis)?.detach();
    let (rows, cols) = (w.dims()[0], w.dims()[1]);
    let u = super::normalize(&Tensor::randn_on([rows], dev)?, 2.0, 0, eps)?;
    let v = super::normalize(&Tensor::randn_on([cols], dev)?, 2.0, 0, eps)?;
    let mut state = SpectralState { u, v };
    no_grad(|| power_iterations(&w, &mut state, 15, eps))?;
    Ok(state)
}

/// `weight` with `axis` moved first and the rest flattened: `(rows, columns)`.
fn weight_matrix<T: FloatElement, D: Backend>(
    op: &'static str,
    weight: &Tensor<T, D>,
    axis: i64,
) -> Result<Tensor<T, D>> {
    if weight.ndim() == 0 {
        return Err(Error::InvalidArgument {
            op,
            msg: "needs a weight of at least one dimension, got a 0-d one".into(),
        });
    }
    let a = weight.shape().axis(op, axis)?;
    let rows = weight.dims()[a];
    let moved = weight.movedim(&[a as i64], &[0])?;
    let cols = weight.numel().checked_div(rows).unwrap_or(0);
    moved.try_reshape([rows, cols])
}

fn power_iterations<T: FloatElement, D: Backend>(
    w: &Tensor<T, D>,
    state: &mut SpectralState<T, D>,
    n: usize,
    eps: f64,
) -> Result<()> {
    for _ in 0..n {
        let u = w.try_matmul(&state.v.unsqueeze(1)?)?.squeeze_dims(&[1])?;
        state.u = super::normalize(&u, 2.0, 0, eps)?;
        let v = w
            .t()
            .try_matmul(&state.u.unsqueeze(1)?)?
            .squeeze_dims(&[1])?;
        state.v = super::normalize(&v, 2.0, 0, eps)?;
    }
    Ok(())
}
