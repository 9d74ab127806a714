//! The sequence layers: `Rnn` (PyTorch's `nn.RNN`, `nn.LSTM`, `nn.GRU`) and
//! `MultiheadAttention` (`nn.MultiheadAttention`). Their inputs and outputs are not one tensor,
//! so each has its own `forward` beside [`Parameters`].

use super::{Parameters, param};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::nn::{
    self as nn, AttnMask, CellWeights, MhaOptions, MhaParams, PackedRnnOutput, PackedSequence,
    RnnMode, RnnOptions, RnnOutput, init,
};
use crate::tensor::Tensor;

/// One layer and direction's weights, PyTorch's `weight_ih_l{k}{_reverse}` and the rest.
#[derive(Clone)]
struct Cell<T: FloatElement, D: Backend> {
    w_ih: Tensor<T, D>,
    w_hh: Tensor<T, D>,
    b_ih: Option<Tensor<T, D>>,
    b_hh: Option<Tensor<T, D>>,
}

/// A multi-layer, optionally bidirectional recurrent network (PyTorch `nn.RNN`, `nn.LSTM`,
/// `nn.GRU`): every weight and bias from `U(-1/√H, 1/√H)`, as PyTorch initialises them, named
/// `weight_ih_l0`, `weight_hh_l0`, `bias_ih_l0`, `bias_hh_l0`, `weight_ih_l0_reverse`, ....
#[derive(Clone)]
pub struct Rnn<T: FloatElement, D: Backend> {
    /// `Tanh`, `Relu` (the plain RNN's nonlinearity), `Lstm` or `Gru`.
    pub mode: RnnMode,
    /// Layers, direction, layout, dropout between layers and training flag.
    pub opts: RnnOptions,
    hidden_size: usize,
    cells: Vec<Cell<T, D>>,
}

impl<T: FloatElement, D: Backend> Rnn<T, D> {
    /// A network reading `input_size` features into `hidden_size` states per direction.
    ///
    /// # Errors
    /// `InvalidArgument` for 0 layers or a hidden size of 0, a dropout outside `[0, 1]`;
    /// allocation failure.
    pub fn new(
        mode: RnnMode,
        input_size: usize,
        hidden_size: usize,
        bias: bool,
        opts: RnnOptions,
        device: &D,
    ) -> Result<Self> {
        if opts.num_layers == 0 || hidden_size == 0 || !(0.0..=1.0).contains(&opts.dropout) {
            return Err(Error::InvalidArgument {
                op: "Rnn",
                msg: format!(
                    "needs at least 1 layer and hidden unit and a dropout in [0, 1], got {} layers, hidden size {hidden_size}, dropout {}",
                    opts.num_layers, opts.dropout
                ),
            });
        }
        let gates = match mode {
            RnnMode::Lstm => 4,
            RnnMode::Gru => 3,
            RnnMode::Tanh | RnnMode::Relu => 1,
        };
        let dirs = if opts.bidirectional { 2 } else { 1 };
        // Every size checked, and the whole network's elements refused up front when they
        // exceed memory, so hostile sizes neither overflow nor loop over 2^60 layers.
        let too_big = || Error::InvalidArgument {
            op: "Rnn",
            msg: format!(
                "{} layers of hidden size {hidden_size} over {input_size} inputs overflow",
                opts.num_layers
            ),
        };
        let gh = hidden_size.checked_mul(gates).ok_or_else(too_big)?;
        let wide = hidden_size.checked_mul(dirs).ok_or_else(too_big)?;
        let per_cell = (input_size.max(wide) + hidden_size + 2)
            .checked_mul(gh)
            .ok_or_else(too_big)?;
        let n_cells = opts.num_layers.checked_mul(dirs).ok_or_else(too_big)?;
        let total = n_cells.checked_mul(per_cell).ok_or_else(too_big)?;
        crate::alloc::check_bytes("Rnn", total.checked_mul(T::SIZE).ok_or_else(too_big)?)?;
        let b = 1.0 / (hidden_size as f64).sqrt();
        let u = |shape: &[usize]| param(shape, device, |t| init::uniform_(t, -b, b));
        let mut cells = crate::alloc::with_capacity("Rnn", n_cells)?;
        for layer in 0..opts.num_layers {
            let inputs = if layer == 0 { input_size } else { wide };
            for _ in 0..dirs {
                cells.push(Cell {
                    w_ih: u(&[gh, inputs])?,
                    w_hh: u(&[gh, hidden_size])?,
                    b_ih: if bias { Some(u(&[gh])?) } else { None },
                    b_hh: if bias { Some(u(&[gh])?) } else { None },
                });
            }
        }
        Ok(Rnn {
            mode,
            opts,
            hidden_size,
            cells,
        })
    }

    /// The hidden size per direction.
    pub fn hidden_size(&self) -> usize {
        self.hidden_size
    }

    /// The network over `input` from the states `h0` (and the LSTM's `c0`), zeros when
    /// `None`: [`nn::rnn`]'s shapes and output.
    ///
    /// # Errors
    /// As [`nn::rnn`].
    pub fn forward(
        &self,
        input: &Tensor<T, D>,
        h0: Option<&Tensor<T, D>>,
        c0: Option<&Tensor<T, D>>,
    ) -> Result<RnnOutput<T, D>> {
        nn::rnn(self.mode, input, h0, c0, &self.weights(), self.opts)
    }

    /// The network over a packed batch, each sequence over its own length (PyTorch's module
    /// given a `PackedSequence`): [`nn::rnn_packed`]'s output.
    ///
    /// # Errors
    /// As [`nn::rnn_packed`].
    pub fn forward_packed(
        &self,
        input: &PackedSequence<T, D>,
        h0: Option<&Tensor<T, D>>,
        c0: Option<&Tensor<T, D>>,
    ) -> Result<PackedRnnOutput<T, D>> {
        nn::rnn_packed(self.mode, input, h0, c0, &self.weights(), self.opts)
    }

    fn weights(&self) -> Vec<CellWeights<'_, T, D>> {
        (self.cells.iter())
            .map(|c| CellWeights {
                w_ih: &c.w_ih,
                w_hh: &c.w_hh,
                b_ih: c.b_ih.as_ref(),
                b_hh: c.b_hh.as_ref(),
            })
            .collect()
    }
}

impl<T: FloatElement, D: Backend> Parameters<T, D> for Rnn<T, D> {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        let dirs = if self.opts.bidirectional { 2 } else { 1 };
        let mut out = Vec::new();
        for (k, c) in self.cells.iter().enumerate() {
            let suffix = format!(
                "l{}{}",
                k / dirs,
                if k % dirs == 1 { "_reverse" } else { "" }
            );
            out.push((format!("weight_ih_{suffix}"), c.w_ih.clone()));
            out.push((format!("weight_hh_{suffix}"), c.w_hh.clone()));
            if let (Some(bi), Some(bh)) = (&c.b_ih, &c.b_hh) {
                out.push((format!("bias_ih_{suffix}"), bi.clone()));
                out.push((format!("bias_hh_{suffix}"), bh.clone()));
            }
        }
        out
    }
    fn set_training(&mut self, training: bool) {
        self.opts.training = training;
    }
}

/// Multi-head attention with its projections (PyTorch `nn.MultiheadAttention` with `kdim =
/// vdim = embed_dim`): `in_proj_weight` `(3E, E)` by Xavier-uniform, `in_proj_bias` and
/// `out_proj.bias` zeros, `out_proj.weight` `(E, E)` from `U(-1/√E, 1/√E)`, PyTorch's
/// initialisation and names.
#[derive(Clone)]
pub struct MultiheadAttention<T: FloatElement, D: Backend> {
    /// `(3E, E)`.
    pub in_proj_weight: Tensor<T, D>,
    /// `(3E,)`, when the layer has biases.
    pub in_proj_bias: Option<Tensor<T, D>>,
    /// `(E, E)`.
    pub out_proj_weight: Tensor<T, D>,
    /// `(E,)`, when the layer has biases.
    pub out_proj_bias: Option<Tensor<T, D>>,
    /// Heads, layout, whether to return (averaged) weights, dropout.
    pub opts: MhaOptions,
    /// Whether the attention dropout applies (PyTorch's module `training` flag).
    pub training: bool,
}

impl<T: FloatElement, D: Backend> MultiheadAttention<T, D> {
    /// `embed_dim` features split into `opts.num_heads` heads.
    ///
    /// # Errors
    /// `InvalidArgument` when `num_heads` is 0 or does not divide `embed_dim`; allocation
    /// failure.
    pub fn new(embed_dim: usize, bias: bool, opts: MhaOptions, device: &D) -> Result<Self> {
        let h = opts.num_heads;
        if h == 0 || !embed_dim.is_multiple_of(h) {
            return Err(Error::InvalidArgument {
                op: "MultiheadAttention",
                msg: format!("num_heads {h} must be at least 1 and divide embed_dim {embed_dim}"),
            });
        }
        let e = embed_dim;
        let e3 = e.checked_mul(3).ok_or_else(|| Error::InvalidArgument {
            op: "MultiheadAttention",
            msg: format!("embed_dim {e} is too large"),
        })?;
        let b = if e == 0 { 0.0 } else { 1.0 / (e as f64).sqrt() };
        let zeros = |n: usize| -> Result<Option<Tensor<T, D>>> {
            match bias {
                true => Ok(Some(param(&[n], device, init::zeros_)?)),
                false => Ok(None),
            }
        };
        Ok(MultiheadAttention {
            in_proj_weight: param(&[e3, e], device, |t| init::xavier_uniform_(t, 1.0))?,
            in_proj_bias: zeros(e3)?,
            out_proj_weight: param(&[e, e], device, |t| init::uniform_(t, -b, b))?,
            out_proj_bias: zeros(e)?,
            opts,
            training: true,
        })
    }

    /// Attention of `query` over `key`/`value`: [`nn::multi_head_attention`]'s shapes, masks
    /// and outputs (the output, and the weights when `opts.need_weights`); dropout only while
    /// training.
    ///
    /// # Errors
    /// As [`nn::multi_head_attention`].
    pub fn forward(
        &self,
        query: &Tensor<T, D>,
        key: &Tensor<T, D>,
        value: &Tensor<T, D>,
        key_padding_mask: Option<&Tensor<bool, D>>,
        attn_mask: Option<AttnMask<'_, T, D>>,
    ) -> Result<nn::WithWeights<T, D>> {
        let params = MhaParams {
            in_proj_weight: &self.in_proj_weight,
            in_proj_bias: self.in_proj_bias.as_ref(),
            out_proj_weight: &self.out_proj_weight,
            out_proj_bias: self.out_proj_bias.as_ref(),
        };
        let mut opts = self.opts;
        if !self.training {
            opts.dropout_p = 0.0;
        }
        nn::multi_head_attention(query, key, value, params, key_padding_mask, attn_mask, opts)
    }
}

impl<T: FloatElement, D: Backend> Parameters<T, D> for MultiheadAttention<T, D> {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        let mut out = vec![("in_proj_weight".to_string(), self.in_proj_weight.clone())];
        if let Some(b) = &self.in_proj_bias {
            out.push(("in_proj_bias".into(), b.clone()));
        }
        out.push(("out_proj.weight".into(), self.out_proj_weight.clone()));
        if let Some(b) = &self.out_proj_bias {
            out.push(("out_proj.bias".into(), b.clone()));
        }
        out
    }
    fn set_training(&mut self, training: bool) {
        self.training = training;
    }
}
