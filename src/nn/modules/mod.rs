//! Layers that own their parameters (PyTorch's `nn.Module`s): [`Linear`], [`Conv1d`],
//! [`Conv2d`], [`Conv3d`], [`ConvTranspose1d`], [`ConvTranspose2d`], [`ConvTranspose3d`],
//! [`GroupNorm`], [`RmsNorm`], [`PRelu`], [`Identity`], [`Embedding`], [`LayerNorm`],
//! [`BatchNorm`], [`Dropout`], [`Activation`] (26 of PyTorch's activation layers),
//! [`Flatten`], [`Pool1d`], [`Pool2d`], [`Pool3d`], [`AdaptivePool1d`], [`AdaptivePool2d`],
//! [`AdaptivePool3d`], [`Sequential`], [`Rnn`], [`RnnCell`], [`Bilinear`], [`EmbeddingBag`],
//! [`InstanceNorm`], [`Unflatten`], [`PixelShuffle`], [`PixelUnshuffle`], [`ChannelShuffle`],
//! [`Pad`], [`MultiheadAttention`], [`Hooked`] (forward and backward hooks on any layer),
//! [`TransformerEncoderLayer`], [`TransformerDecoderLayer`], [`TransformerEncoder`],
//! [`TransformerDecoder`], [`Transformer`] and [`Upsample`], each initialised as PyTorch
//! initialises it and running the functions of [`crate::nn`], so gradients reach the
//! parameters through autograd; the losses as layers ([`CrossEntropyLoss`], [`MseLoss`], ...,
//! through the [`Loss`] trait). Parameters
//! and buffers carry PyTorch's names (`weight`, `bias`, `running_mean`; `0.weight` inside a
//! `Sequential`), so a PyTorch `state_dict` saved as safetensors loads with
//! [`Parameters::load_state_dict`]. A model's fields may be a `Vec` of layers (PyTorch's
//! `nn.ModuleList`: `"{i}.{name}"`), a `BTreeMap<String, _>` (`nn.ModuleDict`), an `Option` of one (an optional sub-module) or a
//! `Box<dyn Module>`: each is [`Parameters`] (and `Module` for the last two).
//!
//! ```
//! use typed_tensor::nn::modules::{Activation, Linear, Module, Parameters, Sequential};
//! use typed_tensor::optim::{Adam, Optimizer};
//! use typed_tensor::prelude::*;
//!
//! typed_tensor::manual_seed(0);
//! let model = Sequential::<f32, Cpu>::new()
//!     .push(Linear::new(4, 8, true, &Cpu)?)
//!     .push(Activation::Relu)
//!     .push(Linear::new(8, 2, true, &Cpu)?);
//! let names: Vec<String> = model.named_parameters().into_iter().map(|(n, _)| n).collect();
//! assert_eq!(names, ["0.weight", "0.bias", "2.weight", "2.bias"]);
//! let mut opt = Adam::adamw(model.parameters(), 1e-2);
//! let x = Tensor::<f32>::randn([16, 4])?;
//! let target = Tensor::<i64>::zeros([16])?;
//! for _ in 0..20 {
//!     let loss = typed_tensor::nn::cross_entropy(
//!         &model.forward(&x)?, &target, typed_tensor::nn::Reduction::Mean, 0.0)?;
//!     opt.zero_grad()?;
//!     loss.try_backward()?;
//!     opt.step()?;
//! }
//! # Ok::<(), typed_tensor::Error>(())
//! ```

/// `Parameters` (none) for the parameter-free layers.
macro_rules! no_parameters {
    ($($name:ident),*) => {$(
        impl<T: $crate::dtype::FloatElement, D: $crate::backend::Backend> $crate::nn::modules::Parameters<T, D> for $name {
            fn named_parameters(&self) -> Vec<(String, $crate::tensor::Tensor<T, D>)> {
                Vec::new()
            }
        }
    )*};
}

mod cells;
mod containers;
mod conv;
mod conv_transpose;
mod hooks;
mod losses;
mod pooling;
mod rearrange;
mod sequence;
mod stacks;
mod stateless;
mod transformer;
mod weighted;

pub use cells::{Bilinear, CellState, EmbeddingBag, InstanceNorm, RnnCell};
pub use conv::{Conv1d, Conv2d, Conv3d};
pub use conv_transpose::{ConvTranspose1d, ConvTranspose2d, ConvTranspose3d};
pub use hooks::{Hooked, ModuleHookHandle};
pub use losses::{
    BceLoss, BceWithLogitsLoss, CrossEntropyLoss, HuberLoss, KlDivLoss, L1Loss, Loss, MseLoss,
    NllLoss, SmoothL1Loss,
};
pub use pooling::{AdaptivePool1d, AdaptivePool2d, AdaptivePool3d, Pool1d, Pool2d, Pool3d};
pub use rearrange::{ChannelShuffle, Pad, PixelShuffle, PixelUnshuffle, Unflatten};
pub use sequence::{MultiheadAttention, Rnn};
pub use stacks::{LayerStack, Transformer, TransformerDecoder, TransformerEncoder};
pub use stateless::{Activation, Dropout, Flatten, Identity, Upsample};
pub use transformer::{
    DecoderMasks, EncoderOptions, TransformerDecoderLayer, TransformerEncoderLayer,
};
pub use weighted::{BatchNorm, Embedding, GroupNorm, LayerNorm, Linear, PRelu, RmsNorm};

use super::init;
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::dynamic::DynTensor;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use std::collections::BTreeMap;

/// What owns parameters: their names, training mode, and the state dict.
pub trait Parameters<T: FloatElement, D: Backend> {
    /// The parameters (tensors that require grad, shared with the layer) with PyTorch's
    /// names, in registration order.
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)>;

    /// The buffers: state that is saved but not trained (`BatchNorm`'s running statistics).
    fn named_buffers(&self) -> Vec<(String, Tensor<T, D>)> {
        Vec::new()
    }

    /// Switches training-only behaviour on or off (PyTorch `train()`/`eval()`): dropout, and
    /// batch statistics with running-average updates.
    fn set_training(&mut self, _training: bool) {}

    /// The parameters alone (for an optimizer), sharing their storage with the layer.
    fn parameters(&self) -> Vec<Tensor<T, D>> {
        self.named_parameters()
            .into_iter()
            .map(|(_, p)| p)
            .collect()
    }

    /// Parameters then buffers, detached (PyTorch `state_dict()`; the values share storage
    /// with the layer, as PyTorch's do). `io::save_safetensors` writes it.
    fn state_dict(&self) -> Vec<(String, Tensor<T, D>)> {
        let all = self.named_parameters().into_iter();
        all.chain(self.named_buffers())
            .map(|(n, t)| (n, t.detach()))
            .collect()
    }

    /// Zeroes the gradient of every parameter (PyTorch `Module.zero_grad`; the buffers are
    /// kept, where PyTorch's default drops them, which reads the same to an optimizer).
    ///
    /// # Errors
    /// As [`Tensor::zero_grad`].
    fn zero_grad(&self) -> Result<()> {
        self.parameters().iter().try_for_each(|p| p.zero_grad())
    }

    /// Freezes (`false`) or thaws (`true`) every parameter (PyTorch `Module.requires_grad_`):
    /// a frozen parameter is not recorded by the ops that use it, gets no gradient and is
    /// skipped by the optimizers, which may still hold it (fine-tuning a new head on a loaded
    /// backbone). Freezing goes through the handles [`Parameters::parameters`] returns, which
    /// are the layer's own variables (see [`Tensor::set_requires_grad`]).
    ///
    /// ```
    /// use typed_tensor::nn::modules::{Linear, Module, Parameters};
    /// use typed_tensor::prelude::*;
    /// let backbone = Linear::<f32, Cpu>::new(3, 3, true, &Cpu)?;
    /// backbone.requires_grad_(false)?;
    /// let y = backbone.forward(&Tensor::ones([2, 3])?)?;
    /// assert!(!y.requires_grad() && !backbone.weight.requires_grad());
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Tensor::set_requires_grad`] (thawing allocates nothing for a parameter made by a
    /// layer, so it does not fail).
    fn requires_grad_(&self, requires_grad: bool) -> Result<()> {
        (self.parameters().into_iter()).try_for_each(|mut p| p.set_requires_grad(requires_grad))
    }

    /// Copies every entry of `state` into the parameter or buffer of that name (PyTorch
    /// `load_state_dict(strict=True)`), converting the dtype and moving it to the layer's
    /// device; BatchNorm's `num_batches_tracked` entries, which this crate does not keep, are
    /// skipped. Nothing is written unless every entry matches.
    ///
    /// # Errors
    /// `InvalidArgument` naming the missing and unexpected keys, or an entry whose shape is
    /// not its parameter's.
    fn load_state_dict(&self, state: &BTreeMap<String, DynTensor>) -> Result<()> {
        self.load_state_dict_with(state, true).map(|_| ())
    }

    /// [`Parameters::load_state_dict`] with PyTorch's `strict` flag: with `strict = false`
    /// the entries whose names match are loaded and the others are reported (PyTorch's
    /// `load_state_dict(strict=False)` and its `IncompatibleKeys`), for loading a backbone's
    /// weights into a model with a new head. Shapes must match either way, and nothing is
    /// written unless every loaded entry fits.
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use typed_tensor::nn::modules::{Linear, Parameters};
    /// use typed_tensor::prelude::*;
    /// let layer = Linear::<f32, Cpu>::new(2, 2, true, &Cpu)?;
    /// let mut state = BTreeMap::new();
    /// state.insert("weight".to_string(), DynTensor::from(Tensor::<f64>::ones([2, 2])?));
    /// state.insert("head.weight".to_string(), DynTensor::from(Tensor::<f32>::ones([1])?));
    /// let keys = layer.load_state_dict_with(&state, false)?;
    /// assert_eq!((keys.missing_keys, keys.unexpected_keys), (vec!["bias".to_string()], vec!["head.weight".to_string()]));
    /// assert_eq!(layer.weight.to_vec(), vec![1.0; 4]);
    /// assert!(layer.load_state_dict(&state).is_err()); // strict
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` naming the missing and unexpected keys when `strict`, or an entry
    /// whose shape is not its parameter's.
    fn load_state_dict_with(
        &self,
        state: &BTreeMap<String, DynTensor>,
        strict: bool,
    ) -> Result<IncompatibleKeys> {
        const OP: &str = "load_state_dict";
        let bad = |msg: String| Error::InvalidArgument { op: OP, msg };
        let targets: Vec<(String, Tensor<T, D>)> = self
            .named_parameters()
            .into_iter()
            .chain(self.named_buffers())
            .collect();
        let missing_keys: Vec<String> = (targets.iter())
            .filter(|(n, _)| !state.contains_key(n))
            .map(|(n, _)| n.clone())
            .collect();
        let unexpected_keys: Vec<String> = (state.keys())
            .filter(|k| !k.ends_with("num_batches_tracked"))
            .filter(|k| !targets.iter().any(|(n, _)| n == *k))
            .cloned()
            .collect();
        if strict && !(missing_keys.is_empty() && unexpected_keys.is_empty()) {
            return Err(bad(format!(
                "missing keys {missing_keys:?}, unexpected keys {unexpected_keys:?}; pass strict = false to load_state_dict_with to load the matching ones"
            )));
        }
        let mut values = Vec::with_capacity(targets.len());
        for (name, t) in &targets {
            let Some(v) = state.get(name) else { continue };
            if v.shape().dims() != t.dims() {
                return Err(bad(format!(
                    "{name}: the state has shape {}, the layer {}",
                    v.shape(),
                    t.shape()
                )));
            }
            let host = v
                .to_dtype(T::DTYPE)?
                .to_cpu()?
                .downcast::<T, crate::Cpu>()?;
            values.push((t.clone(), host.to_device(t.device_handle())?));
        }
        for (mut t, v) in values {
            init::write(&mut t, OP, |_| Ok(v))?;
        }
        Ok(IncompatibleKeys {
            missing_keys,
            unexpected_keys,
        })
    }
}

/// The names [`Parameters::load_state_dict_with`] did not match (PyTorch's
/// `_IncompatibleKeys`), each list in the layer's or the state's order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IncompatibleKeys {
    /// The layer's parameters and buffers that the state has no entry for (left as they
    /// were).
    pub missing_keys: Vec<String>,
    /// The state's entries that name no parameter or buffer (ignored).
    pub unexpected_keys: Vec<String>,
}

/// `module`'s parameters named `"{prefix}.{name}"`: what a struct holding layers as fields
/// returns from its own [`Parameters::named_parameters`], as PyTorch names a sub-module's.
///
/// ```
/// use typed_tensor::nn::modules::{Linear, Parameters, prefixed};
/// use typed_tensor::prelude::*;
/// struct Mlp { fc1: Linear<f32, Cpu>, fc2: Linear<f32, Cpu> }
/// impl Parameters<f32, Cpu> for Mlp {
///     fn named_parameters(&self) -> Vec<(String, Tensor<f32>)> {
///         [prefixed("fc1", &self.fc1), prefixed("fc2", &self.fc2)].concat()
///     }
/// }
/// let m = Mlp { fc1: Linear::new(2, 3, true, &Cpu)?, fc2: Linear::new(3, 1, false, &Cpu)? };
/// let names: Vec<String> = m.named_parameters().into_iter().map(|(n, _)| n).collect();
/// assert_eq!(names, ["fc1.weight", "fc1.bias", "fc2.weight"]);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
pub fn prefixed<T: FloatElement, D: Backend>(
    prefix: &str,
    module: &dyn Parameters<T, D>,
) -> Vec<(String, Tensor<T, D>)> {
    (module.named_parameters().into_iter())
        .map(|(n, t)| (format!("{prefix}.{n}"), t))
        .collect()
}

/// `module`'s buffers named `"{prefix}.{name}"`: [`prefixed`]'s counterpart for a struct's
/// own [`Parameters::named_buffers`] (a `BatchNorm` field's running statistics).
///
/// ```
/// use typed_tensor::nn::modules::{BatchNorm, Linear, Parameters, prefixed, prefixed_buffers};
/// use typed_tensor::prelude::*;
/// struct Block { fc: Linear<f32, Cpu>, bn: BatchNorm<f32, Cpu> }
/// impl Parameters<f32, Cpu> for Block {
///     fn named_parameters(&self) -> Vec<(String, Tensor<f32>)> {
///         [prefixed("fc", &self.fc), prefixed("bn", &self.bn)].concat()
///     }
///     fn named_buffers(&self) -> Vec<(String, Tensor<f32>)> {
///         prefixed_buffers("bn", &self.bn)
///     }
///     fn set_training(&mut self, training: bool) {
///         self.bn.set_training(training);
///     }
/// }
/// let b = Block { fc: Linear::new(4, 3, true, &Cpu)?, bn: BatchNorm::new(3, &Cpu)? };
/// let names: Vec<String> = b.state_dict().into_iter().map(|(n, _)| n).collect();
/// assert_eq!(names[4..], ["bn.running_mean", "bn.running_var"]);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
pub fn prefixed_buffers<T: FloatElement, D: Backend>(
    prefix: &str,
    module: &dyn Parameters<T, D>,
) -> Vec<(String, Tensor<T, D>)> {
    (module.named_buffers().into_iter())
        .map(|(n, t)| (format!("{prefix}.{n}"), t))
        .collect()
}

/// A layer mapping one float tensor to another.
pub trait Module<T: FloatElement, D: Backend>: Parameters<T, D> {
    /// The layer applied to `x` (recorded for autograd like the functions it runs).
    ///
    /// # Errors
    /// As the functions it runs (shapes that do not fit the layer, ...).
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>>;
}

/// A fresh parameter of `shape` filled by `init`, requiring grad.
pub(super) fn param<T: FloatElement, D: Backend>(
    shape: &[usize],
    device: &D,
    init: impl FnOnce(&mut Tensor<T, D>) -> Result<()>,
) -> Result<Tensor<T, D>> {
    let mut t = Tensor::<T, D>::zeros_on(shape, device)?;
    init(&mut t)?;
    t.with_requires_grad(true)
}

/// PyTorch's default for weights and biases of `Linear` and `Conv2d`: `U(-1/√fan_in,
/// 1/√fan_in)` (the weight's `kaiming_uniform_(a=√5)` bound, and the bias's).
pub(super) fn fan_in_uniform<T: FloatElement, D: Backend>(
    shape: &[usize],
    fan_in: usize,
    device: &D,
) -> Result<Tensor<T, D>> {
    let b = if fan_in == 0 {
        0.0
    } else {
        1.0 / (fan_in as f64).sqrt()
    };
    param(shape, device, |t| init::uniform_(t, -b, b))
}

pub(super) fn named<T: FloatElement, D: Backend>(
    pairs: &[(&str, Option<&Tensor<T, D>>)],
) -> Vec<(String, Tensor<T, D>)> {
    (pairs.iter())
        .filter_map(|(n, t)| t.map(|t| (n.to_string(), t.clone())))
        .collect()
}

/// Layers applied in order (PyTorch `nn.Sequential`); the `i`-th layer's parameters are
/// named `"{i}.{name}"`.
pub struct Sequential<T: FloatElement, D: Backend> {
    layers: Vec<Box<dyn Module<T, D>>>,
}

impl<T: FloatElement, D: Backend> Default for Sequential<T, D> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: FloatElement, D: Backend> Sequential<T, D> {
    /// No layers: the identity.
    pub fn new() -> Self {
        Sequential { layers: Vec::new() }
    }

    /// `layer` appended.
    pub fn push(mut self, layer: impl Module<T, D> + 'static) -> Self {
        self.layers.push(Box::new(layer));
        self
    }

    /// The number of layers.
    pub fn len(&self) -> usize {
        self.layers.len()
    }

    /// True without layers.
    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }

    /// The `i`-th layer (PyTorch `seq[i]`), `None` past the end.
    pub fn get(&self, i: usize) -> Option<&dyn Module<T, D>> {
        self.layers.get(i).map(|l| l.as_ref())
    }

    /// The `i`-th layer, mutable (to switch its training mode alone, say).
    pub fn get_mut(&mut self, i: usize) -> Option<&mut (dyn Module<T, D> + 'static)> {
        self.layers.get_mut(i).map(|l| l.as_mut())
    }

    /// The layers in order.
    pub fn iter(&self) -> impl Iterator<Item = &dyn Module<T, D>> {
        self.layers.iter().map(|l| l.as_ref())
    }

    /// `get` of each layer, its names prefixed with the layer's position.
    fn prefixed(
        &self,
        get: impl Fn(&dyn Module<T, D>) -> Vec<(String, Tensor<T, D>)>,
    ) -> Vec<(String, Tensor<T, D>)> {
        let mut out = Vec::new();
        for (i, l) in self.layers.iter().enumerate() {
            out.extend(
                get(l.as_ref())
                    .into_iter()
                    .map(|(n, p)| (format!("{i}.{n}"), p)),
            );
        }
        out
    }
}

impl<T: FloatElement, D: Backend> Parameters<T, D> for Sequential<T, D> {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        self.prefixed(|l| l.named_parameters())
    }
    fn named_buffers(&self) -> Vec<(String, Tensor<T, D>)> {
        self.prefixed(|l| l.named_buffers())
    }
    fn set_training(&mut self, training: bool) {
        for l in &mut self.layers {
            l.set_training(training);
        }
    }
}

impl<T: FloatElement, D: Backend> Module<T, D> for Sequential<T, D> {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        self.layers.iter().try_fold(x.clone(), |h, l| l.forward(&h))
    }
}
