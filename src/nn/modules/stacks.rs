//! PyTorch's `nn.TransformerEncoder` and `nn.TransformerDecoder` (stacks of equal layers
//! with an optional final layer norm) and `nn.Transformer` (one of each).

use super::{
    DecoderMasks, EncoderOptions, LayerNorm, Module, Parameters, TransformerDecoderLayer,
    TransformerEncoderLayer, prefixed,
};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::nn::AttnMask;
use crate::tensor::Tensor;

/// Layers of one kind applied in order, then an optional final layer norm: PyTorch's
/// `nn.TransformerEncoder(layer, num_layers, norm)` and `nn.TransformerDecoder` are this over
/// their layer type ([`TransformerEncoder`], [`TransformerDecoder`]). The layers start from one
/// layer's values copied into each, as PyTorch's deep copies of its layer do; parameters are
/// named `layers.{i}.…` and `norm.…`.
#[derive(Clone)]
pub struct LayerStack<L, T: FloatElement, D: Backend> {
    /// The layers, applied in order.
    pub layers: Vec<L>,
    /// The final layer norm (PyTorch's `norm` argument), if any.
    pub norm: Option<LayerNorm<T, D>>,
}

/// PyTorch's `nn.TransformerEncoder`: a [`LayerStack`] of encoder layers.
pub type TransformerEncoder<T, D> = LayerStack<TransformerEncoderLayer<T, D>, T, D>;

/// PyTorch's `nn.TransformerDecoder`: a [`LayerStack`] of decoder layers, each attending to
/// the same memory.
pub type TransformerDecoder<T, D> = LayerStack<TransformerDecoderLayer<T, D>, T, D>;

impl<L: Parameters<T, D>, T: FloatElement, D: Backend> LayerStack<L, T, D> {
    /// `n` layers made by `make`, the later ones given the first one's values in their own
    /// buffers, and a final layer norm over `d_model` when `final_norm`.
    fn build(
        n: usize,
        make: impl Fn() -> Result<L>,
        final_norm: bool,
        d_model: usize,
        opts: EncoderOptions,
        device: &D,
    ) -> Result<Self> {
        let mut layers: Vec<L> = Vec::with_capacity(n);
        for i in 0..n {
            let layer = make()?;
            if i > 0 {
                let state = (layers[0].state_dict().into_iter())
                    .map(|(n, t)| (n, crate::dynamic::DynTensor::from(t)))
                    .collect();
                layer.load_state_dict(&state)?;
            }
            layers.push(layer);
        }
        let eps = opts.layer_norm_eps;
        let norm = match final_norm {
            true => Some(LayerNorm::new(&[d_model], eps, true, device)?),
            false => None,
        };
        Ok(LayerStack { layers, norm })
    }

    /// `x` through each layer by `step`, then the final norm.
    fn run(
        &self,
        x: &Tensor<T, D>,
        step: impl Fn(&L, &Tensor<T, D>) -> Result<Tensor<T, D>>,
    ) -> Result<Tensor<T, D>> {
        let mut x = x.clone();
        for layer in &self.layers {
            x = step(layer, &x)?;
        }
        match &self.norm {
            Some(n) => n.forward(&x),
            None => Ok(x),
        }
    }
}

impl<T: FloatElement, D: Backend> TransformerEncoder<T, D> {
    /// `num_layers` encoder layers of `d_model` features, equal at first, and a final layer
    /// norm when `final_norm` (its eps `opts.layer_norm_eps`).
    ///
    /// # Errors
    /// As [`TransformerEncoderLayer::new`]; allocation failure.
    pub fn new(
        d_model: usize,
        opts: EncoderOptions,
        num_layers: usize,
        final_norm: bool,
        device: &D,
    ) -> Result<Self> {
        let make = || TransformerEncoderLayer::new(d_model, opts, device);
        Self::build(num_layers, make, final_norm, d_model, opts, device)
    }

    /// The stack over `src` with the masks every layer takes.
    ///
    /// # Errors
    /// As [`TransformerEncoderLayer::forward_masked`].
    pub fn forward_masked(
        &self,
        src: &Tensor<T, D>,
        mask: Option<AttnMask<'_, T, D>>,
        src_key_padding_mask: Option<&Tensor<bool, D>>,
    ) -> Result<Tensor<T, D>> {
        self.run(src, |l, x| {
            l.forward_masked(x, mask.clone(), src_key_padding_mask)
        })
    }
}

impl<T: FloatElement, D: Backend> TransformerDecoder<T, D> {
    /// `num_layers` decoder layers of `d_model` features, equal at first, and a final layer
    /// norm when `final_norm`.
    ///
    /// # Errors
    /// As [`TransformerDecoderLayer::new`]; allocation failure.
    pub fn new(
        d_model: usize,
        opts: EncoderOptions,
        num_layers: usize,
        final_norm: bool,
        device: &D,
    ) -> Result<Self> {
        let make = || TransformerDecoderLayer::new(d_model, opts, device);
        Self::build(num_layers, make, final_norm, d_model, opts, device)
    }

    /// The stack over `tgt` attending to `memory`, with the masks every layer takes.
    ///
    /// # Errors
    /// As [`TransformerDecoderLayer::forward_masked`].
    pub fn forward_masked(
        &self,
        tgt: &Tensor<T, D>,
        memory: &Tensor<T, D>,
        masks: &DecoderMasks<'_, T, D>,
    ) -> Result<Tensor<T, D>> {
        self.run(tgt, |l, x| l.forward_masked(x, memory, masks))
    }
}

impl<L: Parameters<T, D>, T: FloatElement, D: Backend> Parameters<T, D> for LayerStack<L, T, D> {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        let mut out = Vec::new();
        for (i, l) in self.layers.iter().enumerate() {
            out.extend(prefixed(&format!("layers.{i}"), l));
        }
        if let Some(n) = &self.norm {
            out.extend(prefixed("norm", n));
        }
        out
    }
    fn set_training(&mut self, training: bool) {
        for l in &mut self.layers {
            l.set_training(training);
        }
    }
}

impl<T: FloatElement, D: Backend> Module<T, D> for TransformerEncoder<T, D> {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        self.forward_masked(x, None, None)
    }
}

/// The encoder-decoder model of "Attention is all you need" (PyTorch `nn.Transformer`): an
/// encoder stack and a decoder stack, each with a final layer norm; every parameter of two
/// or more dimensions re-initialised by Xavier-uniform, as PyTorch's `_reset_parameters`
/// does. Parameters `encoder.layers.{i}.…`, `encoder.norm.…`, `decoder.…`.
#[derive(Clone)]
pub struct Transformer<T: FloatElement, D: Backend> {
    /// The encoder stack, with its final norm.
    pub encoder: TransformerEncoder<T, D>,
    /// The decoder stack, with its final norm.
    pub decoder: TransformerDecoder<T, D>,
}

impl<T: FloatElement, D: Backend> Transformer<T, D> {
    /// `num_encoder_layers` and `num_decoder_layers` layers of `d_model` features (PyTorch's
    /// defaults: 6 and 6, `d_model` 512).
    ///
    /// # Errors
    /// As [`TransformerEncoderLayer::new`]; allocation failure.
    pub fn new(
        d_model: usize,
        opts: EncoderOptions,
        num_encoder_layers: usize,
        num_decoder_layers: usize,
        device: &D,
    ) -> Result<Self> {
        let t = Transformer {
            encoder: TransformerEncoder::new(d_model, opts, num_encoder_layers, true, device)?,
            decoder: TransformerDecoder::new(d_model, opts, num_decoder_layers, true, device)?,
        };
        for (_, p) in t.named_parameters() {
            if p.ndim() > 1 {
                let mut p = p;
                crate::nn::init::xavier_uniform_(&mut p, 1.0)?;
            }
        }
        Ok(t)
    }

    /// `tgt` decoded against the encoding of `src`, with the encoder's masks (`src_mask`,
    /// `src_key_padding_mask`) and the decoder's ([`DecoderMasks`]; its memory padding mask
    /// is usually `src_key_padding_mask`).
    ///
    /// # Errors
    /// As the stacks' `forward_masked`.
    pub fn forward_masked(
        &self,
        src: &Tensor<T, D>,
        tgt: &Tensor<T, D>,
        src_mask: Option<AttnMask<'_, T, D>>,
        src_key_padding_mask: Option<&Tensor<bool, D>>,
        masks: &DecoderMasks<'_, T, D>,
    ) -> Result<Tensor<T, D>> {
        let memory = self
            .encoder
            .forward_masked(src, src_mask, src_key_padding_mask)?;
        self.decoder.forward_masked(tgt, &memory, masks)
    }
}

impl<T: FloatElement, D: Backend> Parameters<T, D> for Transformer<T, D> {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        [
            prefixed("encoder", &self.encoder),
            prefixed("decoder", &self.decoder),
        ]
        .concat()
    }
    fn set_training(&mut self, training: bool) {
        self.encoder.set_training(training);
        self.decoder.set_training(training);
    }
}
