//! `TransformerEncoderLayer` and `TransformerDecoderLayer` (PyTorch's): attention and a
//! feed-forward block, each with a residual connection and layer normalisation, built from
//! the other modules so that their parameters carry PyTorch's names.

use super::{
    Activation, Dropout, LayerNorm, Linear, Module, MultiheadAttention, Parameters, prefixed,
};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::nn::{AttnMask, MhaOptions};
use crate::tensor::Tensor;

/// The options of [`TransformerEncoderLayer::new`], PyTorch's constructor arguments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EncoderOptions {
    /// Attention heads (must divide `d_model`).
    pub nhead: usize,
    /// The feed-forward block's hidden width (PyTorch's 2048).
    pub dim_feedforward: usize,
    /// Dropout after the attention, inside and after the feed-forward block (PyTorch's 0.1).
    pub dropout: f64,
    /// The feed-forward activation: [`Activation::Relu`] (PyTorch's default) or
    /// [`Activation::Gelu`].
    pub activation: Activation,
    /// Added to the variance of both layer norms (PyTorch's 1e-5).
    pub layer_norm_eps: f64,
    /// Inputs `(N, L, E)` rather than `(L, N, E)`.
    pub batch_first: bool,
    /// Normalise before each block (pre-LN) rather than after the residual sum (PyTorch's
    /// default, post-LN).
    pub norm_first: bool,
}

impl Default for EncoderOptions {
    fn default() -> Self {
        EncoderOptions {
            nhead: 8,
            dim_feedforward: 2048,
            dropout: 0.1,
            activation: Activation::Relu,
            layer_norm_eps: 1e-5,
            batch_first: false,
            norm_first: false,
        }
    }
}

/// One encoder layer: `x + Dropout(SelfAttn(x))` then `x + Dropout(Linear2(Dropout(
/// act(Linear1(x)))))`, each followed (post-LN) or preceded (pre-LN, `norm_first`) by its
/// layer norm. Parameters: `self_attn.in_proj_weight`, `self_attn.out_proj.weight`,
/// `linear1.weight`, `linear2.weight`, `norm1.weight`, `norm2.weight` and their biases.
#[derive(Clone)]
pub struct TransformerEncoderLayer<T: FloatElement, D: Backend> {
    /// The self-attention.
    pub self_attn: MultiheadAttention<T, D>,
    /// `d_model → dim_feedforward`.
    pub linear1: Linear<T, D>,
    /// `dim_feedforward → d_model`.
    pub linear2: Linear<T, D>,
    /// The attention block's layer norm.
    pub norm1: LayerNorm<T, D>,
    /// The feed-forward block's layer norm.
    pub norm2: LayerNorm<T, D>,
    /// The dropouts (one probability, as PyTorch's `dropout`, `dropout1`, `dropout2`).
    pub dropout: Dropout,
    /// The options it was made with.
    pub opts: EncoderOptions,
}

impl<T: FloatElement, D: Backend> TransformerEncoderLayer<T, D> {
    /// A layer over `d_model` features, initialised as PyTorch's sub-modules are.
    ///
    /// # Errors
    /// `InvalidArgument` when `nhead` is 0 or does not divide `d_model`, the dropout is
    /// outside `[0, 1]`, or the activation is not `Relu` or `Gelu`; allocation failure.
    pub fn new(d_model: usize, opts: EncoderOptions, device: &D) -> Result<Self> {
        if !(0.0..=1.0).contains(&opts.dropout)
            || !matches!(opts.activation, Activation::Relu | Activation::Gelu)
        {
            return Err(Error::InvalidArgument {
                op: "TransformerEncoderLayer",
                msg: format!(
                    "needs a dropout in [0, 1] and a Relu or Gelu activation (PyTorch's), got {} and {:?}",
                    opts.dropout, opts.activation
                ),
            });
        }
        let attn = MhaOptions {
            num_heads: opts.nhead,
            batch_first: opts.batch_first,
            need_weights: false,
            dropout_p: opts.dropout,
            ..MhaOptions::default()
        };
        let norm = || LayerNorm::new(&[d_model], opts.layer_norm_eps, true, device);
        Ok(TransformerEncoderLayer {
            self_attn: MultiheadAttention::new(d_model, true, attn, device)?,
            linear1: Linear::new(d_model, opts.dim_feedforward, true, device)?,
            linear2: Linear::new(opts.dim_feedforward, d_model, true, device)?,
            norm1: norm()?,
            norm2: norm()?,
            dropout: Dropout::new(opts.dropout),
            opts,
        })
    }

    /// The layer over `src` (`(L, N, E)`, `(N, L, E)` batch first, or `(L, E)`), with an
    /// attention mask and a key padding mask as [`MultiheadAttention::forward`] takes them.
    ///
    /// # Errors
    /// As the blocks' functions (shapes, masks).
    pub fn forward_masked(
        &self,
        src: &Tensor<T, D>,
        src_mask: Option<AttnMask<'_, T, D>>,
        src_key_padding_mask: Option<&Tensor<bool, D>>,
    ) -> Result<Tensor<T, D>> {
        let attend = |x: &Tensor<T, D>| -> Result<Tensor<T, D>> {
            let (a, _) = self
                .self_attn
                .forward(x, x, x, src_key_padding_mask, src_mask)?;
            Module::<T, D>::forward(&self.dropout, &a)
        };
        let feed = |x: &Tensor<T, D>| -> Result<Tensor<T, D>> {
            let h = self.opts.activation.forward(&self.linear1.forward(x)?)?;
            let h = Module::<T, D>::forward(&self.dropout, &h)?;
            Module::<T, D>::forward(&self.dropout, &self.linear2.forward(&h)?)
        };
        if self.opts.norm_first {
            let x = src.try_add(&attend(&self.norm1.forward(src)?)?)?;
            x.try_add(&feed(&self.norm2.forward(&x)?)?)
        } else {
            let x = self.norm1.forward(&src.try_add(&attend(src)?)?)?;
            self.norm2.forward(&x.try_add(&feed(&x)?)?)
        }
    }
}

impl<T: FloatElement, D: Backend> Parameters<T, D> for TransformerEncoderLayer<T, D> {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        [
            prefixed("self_attn", &self.self_attn),
            prefixed("linear1", &self.linear1),
            prefixed("linear2", &self.linear2),
            prefixed("norm1", &self.norm1),
            prefixed("norm2", &self.norm2),
        ]
        .concat()
    }
    fn set_training(&mut self, training: bool) {
        self.self_attn.set_training(training);
        Parameters::<T, D>::set_training(&mut self.dropout, training);
    }
}

impl<T: FloatElement, D: Backend> Module<T, D> for TransformerEncoderLayer<T, D> {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        self.forward_masked(x, None, None)
    }
}

/// One decoder layer (PyTorch `nn.TransformerDecoderLayer`): self-attention over the target,
/// attention over the encoder's `memory`, and the feed-forward block, each with its residual
/// connection and layer norm (after, or before with `norm_first`). Parameters:
/// `self_attn.*`, `multihead_attn.*`, `linear1`, `linear2`, `norm1`, `norm2`, `norm3`.
#[derive(Clone)]
pub struct TransformerDecoderLayer<T: FloatElement, D: Backend> {
    /// The encoder-layer parts: self-attention, feed-forward block, `norm1`, `norm2`,
    /// dropout and options.
    pub base: TransformerEncoderLayer<T, D>,
    /// The attention over the memory.
    pub multihead_attn: MultiheadAttention<T, D>,
    /// The feed-forward block's layer norm (the memory attention's is `base.norm2`).
    pub norm3: LayerNorm<T, D>,
}

/// The masks of [`TransformerDecoderLayer::forward_masked`]: attention masks and key padding
/// masks for the target's self-attention and for the memory attention.
pub struct DecoderMasks<'a, T: FloatElement, D: Backend> {
    /// The target's self-attention mask (`AttnMask::Causal` for autoregressive decoding).
    pub tgt_mask: Option<AttnMask<'a, T, D>>,
    /// The memory attention's mask.
    pub memory_mask: Option<AttnMask<'a, T, D>>,
    /// True at padded target positions.
    pub tgt_key_padding_mask: Option<&'a Tensor<bool, D>>,
    /// True at padded memory positions.
    pub memory_key_padding_mask: Option<&'a Tensor<bool, D>>,
}

// By hand: a derive would ask `D: Default` of the device.
impl<T: FloatElement, D: Backend> Default for DecoderMasks<'_, T, D> {
    fn default() -> Self {
        DecoderMasks {
            tgt_mask: None,
            memory_mask: None,
            tgt_key_padding_mask: None,
            memory_key_padding_mask: None,
        }
    }
}

impl<T: FloatElement, D: Backend> TransformerDecoderLayer<T, D> {
    /// A layer over `d_model` features, initialised as PyTorch's sub-modules are.
    ///
    /// # Errors
    /// As [`TransformerEncoderLayer::new`].
    pub fn new(d_model: usize, opts: EncoderOptions, device: &D) -> Result<Self> {
        let base = TransformerEncoderLayer::new(d_model, opts, device)?;
        let attn = base.self_attn.opts;
        Ok(TransformerDecoderLayer {
            multihead_attn: MultiheadAttention::new(d_model, true, attn, device)?,
            norm3: LayerNorm::new(&[d_model], opts.layer_norm_eps, true, device)?,
            base,
        })
    }

    /// The layer over `tgt` attending to `memory` (both in the options' layout).
    ///
    /// # Errors
    /// As the blocks' functions (shapes, masks).
    pub fn forward_masked(
        &self,
        tgt: &Tensor<T, D>,
        memory: &Tensor<T, D>,
        masks: &DecoderMasks<'_, T, D>,
    ) -> Result<Tensor<T, D>> {
        let b = &self.base;
        let drop = |t: &Tensor<T, D>| Module::<T, D>::forward(&b.dropout, t);
        let attend = |x: &Tensor<T, D>| -> Result<Tensor<T, D>> {
            let m = masks.tgt_key_padding_mask;
            drop(&b.self_attn.forward(x, x, x, m, masks.tgt_mask.clone())?.0)
        };
        let cross = |x: &Tensor<T, D>| -> Result<Tensor<T, D>> {
            let (mem, m) = (memory, masks.memory_key_padding_mask);
            let mask = masks.memory_mask.clone();
            drop(&self.multihead_attn.forward(x, mem, mem, m, mask)?.0)
        };
        let feed = |x: &Tensor<T, D>| -> Result<Tensor<T, D>> {
            let h = drop(&b.opts.activation.forward(&b.linear1.forward(x)?)?)?;
            drop(&b.linear2.forward(&h)?)
        };
        if b.opts.norm_first {
            let x = tgt.try_add(&attend(&b.norm1.forward(tgt)?)?)?;
            let x = x.try_add(&cross(&b.norm2.forward(&x)?)?)?;
            x.try_add(&feed(&self.norm3.forward(&x)?)?)
        } else {
            let x = b.norm1.forward(&tgt.try_add(&attend(tgt)?)?)?;
            let x = b.norm2.forward(&x.try_add(&cross(&x)?)?)?;
            self.norm3.forward(&x.try_add(&feed(&x)?)?)
        }
    }
}

impl<T: FloatElement, D: Backend> Parameters<T, D> for TransformerDecoderLayer<T, D> {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        let b = &self.base;
        [
            prefixed("self_attn", &b.self_attn),
            prefixed("multihead_attn", &self.multihead_attn),
            prefixed("linear1", &b.linear1),
            prefixed("linear2", &b.linear2),
            prefixed("norm1", &b.norm1),
            prefixed("norm2", &b.norm2),
            prefixed("norm3", &self.norm3),
        ]
        .concat()
    }
    fn set_training(&mut self, training: bool) {
        self.base.set_training(training);
        self.multihead_attn.set_training(training);
    }
}
