//! Multi-layer recurrent networks over whole sequences (PyTorch `nn.RNN`, `nn.LSTM`,
//! `nn.GRU` as functions of their weights): the cells of `recurrent.rs` stepped through time,
//! layer after layer, in both directions when asked; every step differentiates.

use super::linear;
use super::recurrent::{CellWeights, elman, gru_gates, lstm_gates};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;

/// Which cell a recurrent network runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RnnMode {
    /// `nn.RNN` with `nonlinearity='tanh'`.
    Tanh,
    /// `nn.RNN` with `nonlinearity='relu'`.
    Relu,
    /// `nn.LSTM`.
    Lstm,
    /// `nn.GRU`.
    Gru,
}

/// The options of [`rnn`], as PyTorch's constructor arguments and training flag.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RnnOptions {
    /// Stacked layers; layer `l > 0` reads layer `l - 1`'s output.
    pub num_layers: usize,
    /// Run each layer forwards and backwards, concatenating the two outputs.
    pub bidirectional: bool,
    /// The input and output are `(N, L, ·)` instead of `(L, N, ·)`.
    pub batch_first: bool,
    /// The probability of zeroing each element of every layer's output but the last one's
    /// (scaling the others by `1 / (1 - dropout)`), in `[0, 1]`, when `training`.
    pub dropout: f64,
    /// Whether `dropout` applies (PyTorch's module `training` flag).
    pub training: bool,
}

impl Default for RnnOptions {
    /// One unidirectional layer, sequence first, no dropout (PyTorch's defaults).
    fn default() -> Self {
        RnnOptions {
            num_layers: 1,
            bidirectional: false,
            batch_first: false,
            dropout: 0.0,
            training: true,
        }
    }
}

/// What [`rnn`] returns: the last layer's output at every step, and the final hidden (and,
/// for an LSTM, cell) state of every layer and direction.
#[derive(Clone, Debug)]
pub struct RnnOutput<T: FloatElement, D: Backend> {
    /// `(L, N, dirs·H)` (`(N, L, dirs·H)` batch first, `(L, dirs·H)` unbatched).
    pub output: Tensor<T, D>,
    /// `(layers·dirs, N, H)` (`(layers·dirs, H)` unbatched).
    pub h_n: Tensor<T, D>,
    /// The LSTM's final cell states, shaped as `h_n`; `None` for the other modes.
    pub c_n: Option<Tensor<T, D>>,
}

/// A recurrent network over a sequence (PyTorch `nn.RNN`/`nn.LSTM`/`nn.GRU` forward): `input`
/// is `(L, N, In)` (`(N, L, In)` with `batch_first`, or unbatched `(L, In)`); `weights` holds
/// one [`CellWeights`] per layer and direction in PyTorch's order (`l0`, `l0_reverse`, `l1`,
/// ...), the first layer's `w_ih` `(G·H, In)` and the others' `(G·H, dirs·H)`; `h0` (and
/// `c0`) are `(layers·dirs, N, H)` or zeros when `None`. The reverse direction reads the
/// sequence from its end, and its outputs are stored in time order, as PyTorch's.
///
/// # Errors
/// `InvalidArgument` for an input that is not 2-d or 3-d, an empty sequence, zero layers, a
/// `dropout` outside `[0, 1]`, a
/// count of weights other than `layers·dirs`, a `c0` outside LSTM mode, or initial states of
/// another shape; the cells' `ShapeMismatch` for weights that do not fit.
pub fn rnn<T: FloatElement, D: Backend>(
    mode: RnnMode,
    input: &Tensor<T, D>,
    h0: Option<&Tensor<T, D>>,
    c0: Option<&Tensor<T, D>>,
    weights: &[CellWeights<'_, T, D>],
    opts: RnnOptions,
) -> Result<RnnOutput<T, D>> {
    run(mode, input, h0, c0, weights, opts, None)
}

/// [`rnn`], where with `active` only the first `active[t]` batch rows step at time `t` (the
/// others keep their state): the sequences of a packed batch, sorted longest first.
pub(super) fn run<T: FloatElement, D: Backend>(
    mode: RnnMode,
    input: &Tensor<T, D>,
    h0: Option<&Tensor<T, D>>,
    c0: Option<&Tensor<T, D>>,
    weights: &[CellWeights<'_, T, D>],
    opts: RnnOptions,
    active: Option<&[usize]>,
) -> Result<RnnOutput<T, D>> {
    const OP: &str = "rnn";
    let bad = |msg: String| Error::InvalidArgument { op: OP, msg };
    let dirs = if opts.bidirectional { 2 } else { 1 };
    let unbatched = input.ndim() == 2;
    if !(2..=3).contains(&input.ndim()) {
        return Err(bad(format!(
            "needs an (L, N, In) or (L, In) input, got {}",
            input.shape()
        )));
    }
    if opts.num_layers == 0 || weights.len() != opts.num_layers * dirs {
        return Err(bad(format!(
            "{} layers × {dirs} directions need as many weight sets, got {}",
            opts.num_layers,
            weights.len()
        )));
    }
    if !(0.0..=1.0).contains(&opts.dropout) {
        return Err(bad(format!(
            "dropout must be a probability in [0, 1], got {}",
            opts.dropout
        )));
    }
    if c0.is_some() && mode != RnnMode::Lstm {
        return Err(bad(format!("a c0 is only for the LSTM, not {mode:?}")));
    }
    // (L, N, In) from here on.
    let x = if unbatched {
        input.unsqueeze(1)?
    } else if opts.batch_first {
        input.transpose(0, 1)?
    } else {
        input.clone()
    };
    let (len, n) = (x.dims()[0], x.dims()[1]);
    if len == 0 {
        return Err(bad(format!("the sequence of {} is empty", input.shape())));
    }
    let h = weights[0].w_hh.dims().get(1).copied().unwrap_or(0);
    let states = opts.num_layers * dirs;
    // The output must fit in memory before the loop over time starts (an empty input can name
    // a sequence of 2^40 steps).
    let out_len = [len, n, dirs, h, T::SIZE]
        .into_iter()
        .try_fold(1usize, |a, d| a.checked_mul(d))
        .ok_or_else(|| Error::ShapeOverflow {
            op: OP,
            dims: vec![len, n, dirs * h],
        })?;
    crate::alloc::check_bytes(OP, out_len)?;
    let initial = |s: Option<&Tensor<T, D>>, name: &str| -> Result<Tensor<T, D>> {
        let Some(s) = s else {
            return Tensor::zeros_on([states, n, h], input.device_handle());
        };
        let s = if unbatched {
            s.unsqueeze(1)?
        } else {
            s.clone()
        };
        if s.dims() != [states, n, h] {
            return Err(bad(format!(
                "{name} must be ({states}, {n}, {h}) for this input and these weights, got {}",
                s.shape()
            )));
        }
        Ok(s)
    };
    let (h0, c0) = (initial(h0, "h0")?, initial(c0, "c0")?);
    let x_features = x.dims()[2];
    let (mut layer_in, mut h_n, mut c_n) = (x, Vec::new(), Vec::new());
    if n == 0 || h == 0 {
        // Nothing to step: empty outputs and the initial states as the final ones, after one
        // step of every cell checks the weights' shapes.
        for (k, w) in weights.iter().enumerate() {
            let features = if k < dirs { x_features } else { dirs * h };
            let (hk, ck) = (h0.select(0, k as i64)?, c0.select(0, k as i64)?);
            check(mode, w, &Shape::new(vec![n, features]), &hk, &ck)?;
        }
        layer_in = Tensor::zeros_on([len, n, dirs * h], input.device_handle())?;
        h_n = (0..states)
            .map(|k| h0.select(0, k as i64))
            .collect::<Result<_>>()?;
        c_n = (0..states)
            .map(|k| c0.select(0, k as i64))
            .collect::<Result<_>>()?;
    }
    for layer in 0..opts.num_layers {
        if n == 0 || h == 0 {
            break;
        }
        let mut outs = Vec::new();
        for dir in 0..dirs {
            let k = layer * dirs + dir;
            let (mut hs, mut cs) = (h0.select(0, k as i64)?, c0.select(0, k as i64)?);
            let w = &weights[k];
            check(mode, w, &Shape::new(vec![n, layer_in.dims()[2]]), &hs, &cs)?;
            // Every step's input projection in one matmul; each step then adds its hidden
            // projection to a `select` of it (whose gradients sum in place, see
            // `autograd::rules::views`).
            let gi_all = linear(&layer_in, w.w_ih, w.b_ih)?;
            let mut steps = vec![None; len];
            for i in 0..len {
                let t = if dir == 0 { i } else { len - 1 - i };
                let gi = gi_all.select(0, t as i64)?;
                let gh = linear(&hs, w.w_hh, w.b_hh)?;
                let (nh, nc) = match mode {
                    RnnMode::Tanh => (elman(&gi, &gh, false)?, cs.clone()),
                    RnnMode::Relu => (elman(&gi, &gh, true)?, cs.clone()),
                    RnnMode::Gru => (gru_gates(&gi, &gh, &hs)?, cs.clone()),
                    RnnMode::Lstm => lstm_gates(&gi, &gh, &cs)?,
                };
                (hs, cs) = match active.map(|a| a[t]).filter(|&a| a < n) {
                    // Rows past the sequences still running keep their state.
                    Some(a) => {
                        let rows =
                            Tensor::<i64, D>::arange_on(0, n as i64, 1, input.device_handle())?;
                        let on = rows.try_lt_scalar(a as i64)?.unsqueeze(1)?;
                        (
                            Tensor::try_where(&on, &nh, &hs)?,
                            Tensor::try_where(&on, &nc, &cs)?,
                        )
                    }
                    None => (nh, nc),
                };
                steps[t] = Some(hs.clone());
            }
            let steps: Vec<Tensor<T, D>> = steps.into_iter().flatten().collect();
            outs.push(Tensor::try_stack(&steps.iter().collect::<Vec<_>>(), 0)?);
            h_n.push(hs);
            c_n.push(cs);
        }
        layer_in = Tensor::try_concat(&outs.iter().collect::<Vec<_>>(), -1)?;
        if layer + 1 < opts.num_layers {
            layer_in = super::dropout(&layer_in, opts.dropout, opts.training)?;
        }
    }
    let stack = |v: &[Tensor<T, D>]| -> Result<Tensor<T, D>> {
        let s = Tensor::try_stack(&v.iter().collect::<Vec<_>>(), 0)?;
        if unbatched {
            s.squeeze_dims(&[1])
        } else {
            Ok(s)
        }
    };
    let output = if unbatched {
        layer_in.squeeze_dims(&[1])?
    } else if opts.batch_first {
        layer_in.transpose(0, 1)?
    } else {
        layer_in
    };
    Ok(RnnOutput {
        output,
        h_n: stack(&h_n)?,
        c_n: if mode == RnnMode::Lstm {
            Some(stack(&c_n)?)
        } else {
            None
        },
    })
}

/// Checks `w` against `mode`'s cell with an input of shape `x` and the states `h`, `c`; errors
/// name the cell.
fn check<T: FloatElement, D: Backend>(
    mode: RnnMode,
    w: &CellWeights<'_, T, D>,
    x: &Shape,
    h: &Tensor<T, D>,
    c: &Tensor<T, D>,
) -> Result<()> {
    match mode {
        RnnMode::Tanh => w.check("rnn_tanh_cell", 1, x, &[h]),
        RnnMode::Relu => w.check("rnn_relu_cell", 1, x, &[h]),
        RnnMode::Gru => w.check("gru_cell", 3, x, &[h]),
        RnnMode::Lstm => w.check("lstm_cell", 4, x, &[h, c]),
    }
}
