//! Recurrent cells (PyTorch `torch.rnn_tanh_cell`/`rnn_relu_cell`, `lstm_cell`, `gru_cell`,
//! the steps of `nn.RNNCell`, `nn.LSTMCell` and `nn.GRUCell`): one time step each, composed of
//! `linear` and element-wise ops, so a loop over time differentiates through every step.

use super::linear;
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;

/// A cell's parameters in PyTorch's layout: `w_ih` is `(G·H, In)` and `w_hh` `(G·H, H)`, the
/// `G` gates stacked in PyTorch's order (LSTM: input, forget, cell, output; GRU: reset,
/// update, new); the biases are `(G·H)`.
#[derive(Clone, Copy, Debug)]
pub struct CellWeights<'a, T: FloatElement, D: Backend> {
    /// Input-to-hidden weights, `(G·H, In)`.
    pub w_ih: &'a Tensor<T, D>,
    /// Hidden-to-hidden weights, `(G·H, H)`.
    pub w_hh: &'a Tensor<T, D>,
    /// Input-to-hidden bias, `(G·H)`.
    pub b_ih: Option<&'a Tensor<T, D>>,
    /// Hidden-to-hidden bias, `(G·H)`.
    pub b_hh: Option<&'a Tensor<T, D>>,
}

impl<T: FloatElement, D: Backend> CellWeights<'_, T, D> {
    /// The gate pre-activations `(x·w_ihᵀ + b_ih, h·w_hhᵀ + b_hh)`, after checking every
    /// shape against `gates` gates.
    fn project(
        &self,
        op: &'static str,
        gates: usize,
        x: &Tensor<T, D>,
        hs: &[&Tensor<T, D>],
    ) -> Result<(Tensor<T, D>, Tensor<T, D>)> {
        self.check(op, gates, x.shape(), hs)?;
        Ok((
            linear(x, self.w_ih, self.b_ih)?,
            linear(hs[0], self.w_hh, self.b_hh)?,
        ))
    }

    /// Checks the weights against `gates` gates, an input of shape `x` (`(N, In)` or `(In)`)
    /// and the states `hs` (`(N, H)` or `(H)`).
    pub(super) fn check(
        &self,
        op: &'static str,
        gates: usize,
        x: &Shape,
        hs: &[&Tensor<T, D>],
    ) -> Result<()> {
        let (wi, wh) = (self.w_ih.dims(), self.w_hh.dims());
        let h = wh.get(1).copied().unwrap_or(0);
        let rows = h.checked_mul(gates);
        let bad = |lhs: &Shape, rhs: &Shape, msg: String| {
            Err(Error::ShapeMismatch {
                op,
                lhs: lhs.clone(),
                rhs: rhs.clone(),
                msg,
            })
        };
        if wi.len() != 2 || wh.len() != 2 || Some(wi[0]) != rows || Some(wh[0]) != rows {
            return bad(
                self.w_ih.shape(),
                self.w_hh.shape(),
                format!("needs w_ih ({gates}·H, In) and w_hh ({gates}·H, H)"),
            );
        }
        for b in [self.b_ih, self.b_hh].into_iter().flatten() {
            if b.dims() != [wi[0]] {
                return bad(
                    b.shape(),
                    self.w_ih.shape(),
                    format!("a bias must be ({gates}·H) = ({})", wi[0]),
                );
            }
        }
        let xd = x.dims();
        let batch = match xd.len() {
            1 | 2 => &xd[..xd.len() - 1],
            _ => &[][..],
        };
        if !(1..=2).contains(&xd.len()) || xd[xd.len() - 1] != wi[1] {
            return bad(
                x,
                self.w_ih.shape(),
                format!("needs x (N, In) or (In) with In = {}", wi[1]),
            );
        }
        let want: Vec<usize> = batch.iter().copied().chain([h]).collect();
        for s in hs {
            if s.dims() != want {
                return bad(
                    s.shape(),
                    x,
                    format!("the hidden state must be {want:?}: x's batch and H = {h}"),
                );
            }
        }
        Ok(())
    }
}

/// The `gates` parts of a pre-activation `(..., gates·H)`, each `(..., H)` (a view each; `H`
/// may be 0, where `chunk` would give fewer parts).
fn split<T: FloatElement, D: Backend>(t: &Tensor<T, D>, gates: usize) -> Result<Vec<Tensor<T, D>>> {
    let h = t.dims()[t.ndim() - 1] / gates;
    (0..gates).map(|i| t.narrow(-1, i * h, h)).collect()
}

/// One Elman RNN step, `h' = tanh(x·w_ihᵀ + b_ih + h·w_hhᵀ + b_hh)` (PyTorch
/// `rnn_tanh_cell`); `x` is `(N, In)` or `(In)`, `h` `(N, H)` or `(H)`, one gate.
///
/// # Errors
/// `ShapeMismatch` naming the op when a shape does not fit the others; `Device` across
/// devices.
pub fn rnn_tanh_cell<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    h: &Tensor<T, D>,
    w: CellWeights<'_, T, D>,
) -> Result<Tensor<T, D>> {
    let (gi, gh) = w.project("rnn_tanh_cell", 1, x, &[h])?;
    elman(&gi, &gh, false)
}

/// [`rnn_tanh_cell`] with ReLU (PyTorch `rnn_relu_cell`). Errors as there.
pub fn rnn_relu_cell<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    h: &Tensor<T, D>,
    w: CellWeights<'_, T, D>,
) -> Result<Tensor<T, D>> {
    let (gi, gh) = w.project("rnn_relu_cell", 1, x, &[h])?;
    elman(&gi, &gh, true)
}

/// One LSTM step (PyTorch `lstm_cell`): the pre-activations split into the gates `i, f, g, o`;
/// `c' = σ(f)·c + σ(i)·tanh(g)`, `h' = σ(o)·tanh(c')`. Returns `(h', c')`, each shaped as `h`.
///
/// ```
/// use typed_tensor::prelude::*;
/// use typed_tensor::nn::{CellWeights, lstm_cell};
/// let (n, input, hidden) = (3, 5, 4);
/// let w_ih = Tensor::<f32>::randn([4 * hidden, input])?;
/// let w_hh = Tensor::<f32>::randn([4 * hidden, hidden])?;
/// let w = CellWeights { w_ih: &w_ih, w_hh: &w_hh, b_ih: None, b_hh: None };
/// let (mut h, mut c) = (Tensor::zeros([n, hidden])?, Tensor::zeros([n, hidden])?);
/// for _ in 0..7 {
///     let x = Tensor::<f32>::randn([n, input])?;
///     (h, c) = lstm_cell(&x, (&h, &c), w)?;
/// }
/// assert_eq!(h.dims(), &[3, 4]);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// As [`rnn_tanh_cell`], with four gates; `c` must be shaped as `h`.
pub fn lstm_cell<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    (h, c): (&Tensor<T, D>, &Tensor<T, D>),
    w: CellWeights<'_, T, D>,
) -> Result<(Tensor<T, D>, Tensor<T, D>)> {
    let (gi, gh) = w.project("lstm_cell", 4, x, &[h, c])?;
    lstm_gates(&gi, &gh, c)
}

/// The Elman step from its pre-activations: `tanh(gi + gh)`, or `relu`.
pub(super) fn elman<T: FloatElement, D: Backend>(
    gi: &Tensor<T, D>,
    gh: &Tensor<T, D>,
    relu: bool,
) -> Result<Tensor<T, D>> {
    let pre = gi.try_add(gh)?;
    if relu { pre.try_relu() } else { pre.try_tanh() }
}

/// The LSTM step from its pre-activations and the cell state: `(h', c')`.
pub(super) fn lstm_gates<T: FloatElement, D: Backend>(
    gi: &Tensor<T, D>,
    gh: &Tensor<T, D>,
    c: &Tensor<T, D>,
) -> Result<(Tensor<T, D>, Tensor<T, D>)> {
    let gates = split(&gi.try_add(gh)?, 4)?;
    let (i, f) = (gates[0].try_sigmoid()?, gates[1].try_sigmoid()?);
    let (g, o) = (gates[2].try_tanh()?, gates[3].try_sigmoid()?);
    let c2 = f.try_mul(c)?.try_add(&i.try_mul(&g)?)?;
    let h2 = o.try_mul(&c2.try_tanh()?)?;
    Ok((h2, c2))
}

/// One GRU step (PyTorch `gru_cell`): with the input and hidden pre-activations split into
/// `r, z, n` parts, `r = σ(xr + hr)`, `z = σ(xz + hz)`, `n = tanh(xn + r·hn)`,
/// `h' = (1 - z)·n + z·h`.
///
/// # Errors
/// As [`rnn_tanh_cell`], with three gates.
pub fn gru_cell<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    h: &Tensor<T, D>,
    w: CellWeights<'_, T, D>,
) -> Result<Tensor<T, D>> {
    let (gi, gh) = w.project("gru_cell", 3, x, &[h])?;
    gru_gates(&gi, &gh, h)
}

/// The GRU step from its input and hidden pre-activations and the state.
pub(super) fn gru_gates<T: FloatElement, D: Backend>(
    gi: &Tensor<T, D>,
    gh: &Tensor<T, D>,
    h: &Tensor<T, D>,
) -> Result<Tensor<T, D>> {
    let (xi, hi) = (split(gi, 3)?, split(gh, 3)?);
    let r = xi[0].try_add(&hi[0])?.try_sigmoid()?;
    let z = xi[1].try_add(&hi[1])?.try_sigmoid()?;
    let n = xi[2].try_add(&r.try_mul(&hi[2])?)?.try_tanh()?;
    // (1 - z)·n + z·h, as n + z·(h - n).
    n.try_add(&z.try_mul(&h.try_sub(&n)?)?)
}
