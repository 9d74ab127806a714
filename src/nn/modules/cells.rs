//! Layers with more than one input or a non-tensor state: `RnnCell` (PyTorch's `nn.RNNCell`,
//! `nn.LSTMCell`, `nn.GRUCell`), `Bilinear` (`nn.Bilinear`), `EmbeddingBag`
//! (`nn.EmbeddingBag`), and `InstanceNorm` (`nn.InstanceNorm1d/2d/3d`, affine or not).

use super::{Module, Parameters, named, param};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::nn::{self as nn, BagMode, CellWeights, RnnMode, init};
use crate::tensor::Tensor;

/// A cell's new state: `h`, and `c` for an LSTM.
pub type CellState<T, D> = (Tensor<T, D>, Option<Tensor<T, D>>);

/// One step of a recurrent cell (PyTorch `nn.RNNCell`, `nn.LSTMCell`, `nn.GRUCell`):
/// `weight_ih (G·H, In)`, `weight_hh (G·H, H)`, `bias_ih`/`bias_hh (G·H)` with `G` 1, 4 or 3
/// gates, all from `U(-1/√H, 1/√H)` as PyTorch initialises them.
///
/// ```
/// use typed_tensor::nn::RnnMode;
/// use typed_tensor::nn::modules::RnnCell;
/// use typed_tensor::prelude::*;
/// let cell = RnnCell::<f32, Cpu>::new(RnnMode::Lstm, 3, 4, true, &Cpu)?;
/// let (mut h, mut c) = (None, None);
/// for _ in 0..5 {
///     // One step of a batch of 2: PyTorch's `h, c = cell(x, (h, c))`, zeros at first.
///     let x = Tensor::<f32>::randn([2, 3])?;
///     let (h2, c2) = cell.step(&x, h.as_ref(), c.as_ref())?;
///     (h, c) = (Some(h2), c2);
/// }
/// assert_eq!(h.unwrap().dims(), [2, 4]);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
#[derive(Clone)]
pub struct RnnCell<T: FloatElement, D: Backend> {
    /// `Tanh` or `Relu` (`nn.RNNCell`), `Lstm`, `Gru`.
    pub mode: RnnMode,
    /// `(G·H, In)`.
    pub weight_ih: Tensor<T, D>,
    /// `(G·H, H)`.
    pub weight_hh: Tensor<T, D>,
    /// `(G·H)`, when the cell has biases.
    pub bias_ih: Option<Tensor<T, D>>,
    /// `(G·H)`, when the cell has biases.
    pub bias_hh: Option<Tensor<T, D>>,
}

impl<T: FloatElement, D: Backend> RnnCell<T, D> {
    /// A cell reading `input_size` features into `hidden_size` states.
    ///
    /// # Errors
    /// `InvalidArgument` for a hidden size of 0 or sizes that overflow; allocation failure.
    pub fn new(
        mode: RnnMode,
        input_size: usize,
        hidden_size: usize,
        bias: bool,
        device: &D,
    ) -> Result<Self> {
        let gates = match mode {
            RnnMode::Lstm => 4,
            RnnMode::Gru => 3,
            RnnMode::Tanh | RnnMode::Relu => 1,
        };
        let gh = hidden_size.checked_mul(gates).filter(|_| hidden_size > 0);
        let Some(gh) = gh else {
            return Err(Error::InvalidArgument {
                op: "RnnCell",
                msg: format!(
                    "needs a hidden size of at least 1 that fits {gates} gates, got {hidden_size}"
                ),
            });
        };
        let b = 1.0 / (hidden_size as f64).sqrt();
        let u = |shape: &[usize]| param(shape, device, |t| init::uniform_(t, -b, b));
        Ok(RnnCell {
            mode,
            weight_ih: u(&[gh, input_size])?,
            weight_hh: u(&[gh, hidden_size])?,
            bias_ih: if bias { Some(u(&[gh])?) } else { None },
            bias_hh: if bias { Some(u(&[gh])?) } else { None },
        })
    }

    /// One step from `x` `(N, In)` (or `(In)`) and the state (`h`, and `c` for an LSTM;
    /// zeros when `None`, as PyTorch): the new `h` `(N, H)`, and the LSTM's new `c`.
    ///
    /// # Errors
    /// `InvalidArgument` for a `c` given to a cell other than an LSTM; the errors of
    /// [`nn::lstm_cell`] and the others (shapes, devices).
    pub fn step(
        &self,
        x: &Tensor<T, D>,
        h: Option<&Tensor<T, D>>,
        c: Option<&Tensor<T, D>>,
    ) -> Result<CellState<T, D>> {
        if c.is_some() && self.mode != RnnMode::Lstm {
            return Err(Error::InvalidArgument {
                op: "RnnCell",
                msg: format!("a {:?} cell has no cell state c; pass None", self.mode),
            });
        }
        // Checked: the weights are public fields, so they may have been replaced.
        let Some(&hidden) = self.weight_hh.dims().get(1) else {
            return Err(Error::InvalidArgument {
                op: "RnnCell",
                msg: format!("weight_hh must be (G·H, H), got {}", self.weight_hh.shape()),
            });
        };
        let zeros = || {
            let mut dims = x.dims().to_vec();
            dims.pop();
            dims.push(hidden);
            Tensor::zeros_on(dims, &x.device)
        };
        let h = match h {
            Some(h) => h.clone(),
            None => zeros()?,
        };
        let w = CellWeights {
            w_ih: &self.weight_ih,
            w_hh: &self.weight_hh,
            b_ih: self.bias_ih.as_ref(),
            b_hh: self.bias_hh.as_ref(),
        };
        Ok(match self.mode {
            RnnMode::Tanh => (nn::rnn_tanh_cell(x, &h, w)?, None),
            RnnMode::Relu => (nn::rnn_relu_cell(x, &h, w)?, None),
            RnnMode::Gru => (nn::gru_cell(x, &h, w)?, None),
            RnnMode::Lstm => {
                let c = match c {
                    Some(c) => c.clone(),
                    None => zeros()?,
                };
                let (h, c) = nn::lstm_cell(x, (&h, &c), w)?;
                (h, Some(c))
            }
        })
    }
}

impl<T: FloatElement, D: Backend> Parameters<T, D> for RnnCell<T, D> {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        named(&[
            ("weight_ih", Some(&self.weight_ih)),
            ("weight_hh", Some(&self.weight_hh)),
            ("bias_ih", self.bias_ih.as_ref()),
            ("bias_hh", self.bias_hh.as_ref()),
        ])
    }
}

/// `x1ᵀ·W·x2 + b` (PyTorch `nn.Bilinear`): `weight (out, in1, in2)`, `bias (out)`, both from
/// `U(-1/√in1, 1/√in1)` as PyTorch initialises them.
#[derive(Clone)]
pub struct Bilinear<T: FloatElement, D: Backend> {
    /// `(out, in1, in2)`.
    pub weight: Tensor<T, D>,
    /// `(out)`, when the layer has one.
    pub bias: Option<Tensor<T, D>>,
}

impl<T: FloatElement, D: Backend> Bilinear<T, D> {
    /// A layer from `in1` and `in2` features to `out`.
    ///
    /// # Errors
    /// Allocation failure (the weight's size checked).
    pub fn new(in1: usize, in2: usize, out: usize, bias: bool, device: &D) -> Result<Self> {
        let b = if in1 == 0 {
            0.0
        } else {
            1.0 / (in1 as f64).sqrt()
        };
        let u = |shape: &[usize]| param(shape, device, |t| init::uniform_(t, -b, b));
        Ok(Bilinear {
            weight: u(&[out, in1, in2])?,
            bias: if bias { Some(u(&[out])?) } else { None },
        })
    }

    /// `(*, in1)` and `(*, in2)` to `(*, out)`: [`nn::bilinear`].
    ///
    /// # Errors
    /// As [`nn::bilinear`].
    pub fn forward(&self, x1: &Tensor<T, D>, x2: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        nn::bilinear(x1, x2, &self.weight, self.bias.as_ref())
    }
}

impl<T: FloatElement, D: Backend> Parameters<T, D> for Bilinear<T, D> {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        named(&[("weight", Some(&self.weight)), ("bias", self.bias.as_ref())])
    }
}

/// Sums, means or maxima of bags of embedding rows (PyTorch `nn.EmbeddingBag`): `weight
/// (num_embeddings, dim)` from `N(0, 1)`, as PyTorch initialises it.
#[derive(Clone)]
pub struct EmbeddingBag<T: FloatElement, D: Backend> {
    /// `(num_embeddings, dim)`.
    pub weight: Tensor<T, D>,
    /// How each bag's rows combine (PyTorch's default: mean).
    pub mode: BagMode,
    /// A row index left out of every bag.
    pub padding_idx: Option<i64>,
}

impl<T: FloatElement, D: Backend> EmbeddingBag<T, D> {
    /// A table of `num_embeddings` rows of `dim`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn new(num_embeddings: usize, dim: usize, mode: BagMode, device: &D) -> Result<Self> {
        let weight = param(&[num_embeddings, dim], device, |t| {
            init::normal_(t, 0.0, 1.0)
        })?;
        Ok(EmbeddingBag {
            weight,
            mode,
            padding_idx: None,
        })
    }

    /// The bags of `input` (`(B, N)`, or 1-d with `offsets`), `(B, dim)` out:
    /// [`nn::embedding_bag`].
    ///
    /// # Errors
    /// As [`nn::embedding_bag`].
    pub fn forward(
        &self,
        input: &Tensor<i64, D>,
        offsets: Option<&Tensor<i64, D>>,
        per_sample_weights: Option<&Tensor<T, D>>,
    ) -> Result<Tensor<T, D>> {
        let (w, m, p) = (&self.weight, self.mode, self.padding_idx);
        nn::embedding_bag(input, w, offsets, m, per_sample_weights, false, p)
    }
}

impl<T: FloatElement, D: Backend> Parameters<T, D> for EmbeddingBag<T, D> {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        named(&[("weight", Some(&self.weight))])
    }
}

/// Instance normalisation of `(N, C, ...)` (PyTorch `nn.InstanceNorm1d/2d/3d` without
/// running statistics, their default): each sample's channels by their own statistics,
/// then the per-channel affine when there is one (PyTorch's default has none).
#[derive(Clone)]
pub struct InstanceNorm<T: FloatElement, D: Backend> {
    /// `(C)`, ones at first, when affine.
    pub weight: Option<Tensor<T, D>>,
    /// `(C)`, zeros at first, when affine.
    pub bias: Option<Tensor<T, D>>,
    /// Added to the variance (PyTorch's 1e-5).
    pub eps: f64,
}

impl<T: FloatElement, D: Backend> InstanceNorm<T, D> {
    /// For `num_features` channels, with the affine parameters when `affine`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn new(num_features: usize, eps: f64, affine: bool, device: &D) -> Result<Self> {
        let c = [num_features];
        let (weight, bias) = match affine {
            true => (
                Some(param(&c, device, init::ones_)?),
                Some(param(&c, device, init::zeros_)?),
            ),
            false => (None, None),
        };
        Ok(InstanceNorm { weight, bias, eps })
    }
}

impl<T: FloatElement, D: Backend> Parameters<T, D> for InstanceNorm<T, D> {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        named(&[
            ("weight", self.weight.as_ref()),
            ("bias", self.bias.as_ref()),
        ])
    }
}

impl<T: FloatElement, D: Backend> Module<T, D> for InstanceNorm<T, D> {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let (w, b) = (self.weight.as_ref(), self.bias.as_ref());
        nn::instance_norm(x, w, b, self.eps)
    }
}
