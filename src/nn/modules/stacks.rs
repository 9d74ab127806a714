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

/// `n` layers made by `make`, the later ones given the first one's values in their own
/// buffers (PyTorch's stacks deep-copy one layer).
fn copies<T: FloatElement, D: Backend, L: Parameters<T, D>>(
    n: usize,
    make: impl Fn() -> Result<L>,
) -> Result<Vec<L>> {
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
    Ok(layers)
}

/// The stacks' final layer norm, when asked for.
fn final_norm_of<T: FloatElement, D: Backend>(
    wanted: bool,
    d_model: usize,
    opts: EncoderOptions,
    device: &D,
) -> Result<Option<LayerNorm<T, D>>> {
    match wanted {
        true => Ok(Some(LayerNorm::new(
            &[d_model],
            opts.layer_norm_eps,
            true,
            device,
        )?)),
        false => Ok(None),
    }
}

/// A stack of encoder layers and an optional final layer norm (PyTorch
/// `nn.TransformerEncoder(layer, num_layers, norm)`): the layers start from one layer's
/// weights copied, as PyTorch's deep copies of its `encoder_layer` do; parameters are named
/// `layers.{i}.…` and `norm.…`.
#[derive(Clone)]
pub struct TransformerEncoder<T: FloatElement, D: Backend> {
    /// The layers, applied in order.
    pub layers: Vec<TransformerEncoderLayer<T, D>>,
    /// The final layer norm (PyTorch's `norm` argument), if any.
    pub norm: Option<LayerNorm<T, D>>,
}

impl<T: FloatElement, D: Backend> TransformerEncoder<T, D> {
    /// `num_layers` layers of `d_model` features, equal at first, and a final layer norm when
    /// `final_norm` (its eps `opts.layer_norm_eps`).
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
        Ok(TransformerEncoder {
            layers: copies(num_layers, || {
                TransformerEncoderLayer::new(d_model, opts, device)
            })?,
            norm: final_norm_of(final_norm, d_model, opts, device)?,
        })
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
        let mut x = src.clone();
        for layer in &self.layers {
            x = layer.forward_masked(&x, mask.clone(), src_key_padding_mask)?;
        }
        match &self.norm {
            Some(n) => n.forward(&x),
            None => Ok(x),
        }
    }
}

impl<T: FloatElement, D: Backend> Parameters<T, D> for TransformerEncoder<T, D> {
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

/// A stack of decoder layers and an optional final layer norm (PyTorch
/// `nn.TransformerDecoder(layer, num_layers, norm)`), equal at first as the encoder stack's;
/// parameters `layers.{i}.…` and `norm.…`.
#[derive(Clone)]
pub struct TransformerDecoder<T: FloatElement, D: Backend> {
    /// The layers, applied in order, each attending to the same memory.
    pub layers: Vec<TransformerDecoderLayer<T, D>>,
    /// The final layer norm, if any.
    pub norm: Option<LayerNorm<T, D>>,
}

impl<T: FloatElement, D: Backend> TransformerDecoder<T, D> {
    /// `num_layers` layers of `d_model` features, equal at first, and a final layer norm when
    /// `final_norm`.
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
        Ok(TransformerDecoder {
            layers: copies(num_layers, || {
                TransformerDecoderLayer::new(d_model, opts, device)
            })?,
            norm: final_norm_of(final_norm, d_model, opts, device)?,
        })
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
        let mut x = tgt.clone();
        for layer in &self.layers {
            x = layer.forward_masked(&x, memory, masks)?;
        }
        match &self.norm {
            Some(n) => n.forward(&x),
            None => Ok(x),
        }
    }
}

impl<T: FloatElement, D: Backend> Parameters<T, D> for TransformerDecoder<T, D> {
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
