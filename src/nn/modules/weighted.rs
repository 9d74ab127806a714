//! The layers with parameters other than the convolutions: `Linear`, `Embedding`,
//! `LayerNorm`, `BatchNorm`, `GroupNorm`, `RmsNorm`, `PRelu`.

use super::{Module, Parameters, fan_in_uniform, named, param};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::nn::{self as nn, init};
use crate::tensor::Tensor;

/// `x·Wᵀ + b` (PyTorch `nn.Linear`): `weight (out, in)`, `bias (out)`.
#[derive(Clone)]
pub struct Linear<T: FloatElement, D: Backend> {
    /// `(out_features, in_features)`.
    pub weight: Tensor<T, D>,
    /// `(out_features)`, when the layer has one.
    pub bias: Option<Tensor<T, D>>,
}

impl<T: FloatElement, D: Backend> Linear<T, D> {
    /// Initialised as PyTorch: weight and bias from `U(-1/√in, 1/√in)`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn new(in_features: usize, out_features: usize, bias: bool, device: &D) -> Result<Self> {
        Ok(Linear {
            weight: fan_in_uniform(&[out_features, in_features], in_features, device)?,
            bias: match bias {
                true => Some(fan_in_uniform(&[out_features], in_features, device)?),
                false => None,
            },
        })
    }
}

impl<T: FloatElement, D: Backend> Parameters<T, D> for Linear<T, D> {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        named(&[("weight", Some(&self.weight)), ("bias", self.bias.as_ref())])
    }
}

impl<T: FloatElement, D: Backend> Module<T, D> for Linear<T, D> {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        nn::linear(x, &self.weight, self.bias.as_ref())
    }
}

/// A lookup table of `num_embeddings` rows of `embedding_dim` (PyTorch `nn.Embedding`):
/// its input is Int64 indices, so it has its own [`Embedding::forward`] rather than
/// [`Module`]'s.
#[derive(Clone)]
pub struct Embedding<T: FloatElement, D: Backend> {
    /// `(num_embeddings, embedding_dim)`.
    pub weight: Tensor<T, D>,
    /// `padding_idx` and `max_norm`, applied by every `forward` (none by default).
    pub options: nn::EmbeddingOptions,
}

impl<T: FloatElement, D: Backend> Embedding<T, D> {
    /// Initialised as PyTorch: `N(0, 1)`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn new(num_embeddings: usize, embedding_dim: usize, device: &D) -> Result<Self> {
        Self::with_options(num_embeddings, embedding_dim, Default::default(), device)
    }

    /// [`Embedding::new`] with PyTorch's `padding_idx` and `max_norm` (PyTorch
    /// `nn.Embedding(n, dim, padding_idx, max_norm, norm_type)`): the `padding_idx` row starts
    /// at zero and its lookups pass no gradient back; see [`nn::embedding_with`].
    ///
    /// ```
    /// use typed_tensor::nn::{EmbeddingOptions, modules::Embedding};
    /// use typed_tensor::prelude::*;
    /// let pad = EmbeddingOptions { padding_idx: Some(0), ..Default::default() };
    /// let e = Embedding::<f32, Cpu>::with_options(5, 3, pad, &Cpu)?;
    /// let y = e.forward(&Tensor::from_vec(vec![0, 2], [2])?)?;
    /// assert_eq!(y.to_vec()[..3], [0.0; 3]);
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// `Index` for a `padding_idx` outside `-num_embeddings..num_embeddings`;
    /// `InvalidArgument` for a negative or NaN `max_norm`; allocation failure.
    pub fn with_options(
        num_embeddings: usize,
        embedding_dim: usize,
        options: nn::EmbeddingOptions,
        device: &D,
    ) -> Result<Self> {
        let shape = [num_embeddings, embedding_dim];
        let pad = options.checked_padding("Embedding", &shape)?;
        let weight = param(&shape, device, |t| {
            init::normal_(t, 0.0, 1.0)?;
            match pad {
                Some(row) => t.narrow(0, row, 1)?.fill_(T::from_f64(0.0)),
                None => Ok(()),
            }
        })?;
        Ok(Embedding { weight, options })
    }

    /// A layer whose weight is `embeddings` (PyTorch `nn.Embedding.from_pretrained`): the
    /// storage is shared, not copied (a broadcast view is copied, as
    /// [`Tensor::set_requires_grad`] does), and with `freeze` the weight is frozen, so it is
    /// not trained until `requires_grad_(true)` thaws it. The `padding_idx` row is left as it
    /// is, as PyTorch leaves it.
    ///
    /// ```
    /// use typed_tensor::nn::modules::{Embedding, Parameters};
    /// use typed_tensor::prelude::*;
    /// let glove = Tensor::<f32>::from_vec(vec![0.5, -1.0, 2.0, 0.25], [2, 2])?;
    /// let e = Embedding::from_pretrained(&glove, true, Default::default())?;
    /// let y = e.forward(&Tensor::from_vec(vec![1], [1])?)?;
    /// assert_eq!((y.to_vec(), y.requires_grad()), (vec![2.0, 0.25], false));
    /// e.requires_grad_(true)?; // fine-tune it after all
    /// assert!(e.forward(&Tensor::from_vec(vec![1], [1])?)?.requires_grad());
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` when `embeddings` is not 2-d, or for a negative or NaN `max_norm`;
    /// `Index` for a `padding_idx` outside `-num_embeddings..num_embeddings`; allocation
    /// failure.
    pub fn from_pretrained(
        embeddings: &Tensor<T, D>,
        freeze: bool,
        options: nn::EmbeddingOptions,
    ) -> Result<Self> {
        if embeddings.ndim() != 2 {
            return Err(Error::InvalidArgument {
                op: "Embedding::from_pretrained",
                msg: format!(
                    "the embeddings must be 2-d (num_embeddings, embedding_dim), got shape {}",
                    embeddings.shape()
                ),
            });
        }
        options.checked_padding("Embedding", embeddings.dims())?;
        let mut weight = embeddings.detach().with_requires_grad(true)?;
        if freeze {
            weight.requires_grad_(false)?;
        }
        Ok(Embedding { weight, options })
    }

    /// The rows at `indices`: shape `indices.shape + [embedding_dim]`.
    ///
    /// # Errors
    /// As [`nn::embedding_with`] (indices out of range, ...).
    pub fn forward(&self, indices: &Tensor<i64, D>) -> Result<Tensor<T, D>> {
        nn::embedding_with(indices, &self.weight, self.options)
    }
}

impl<T: FloatElement, D: Backend> Parameters<T, D> for Embedding<T, D> {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        named(&[("weight", Some(&self.weight))])
    }
}

/// Layer normalisation over the trailing `normalized_shape` (PyTorch `nn.LayerNorm`).
#[derive(Clone)]
pub struct LayerNorm<T: FloatElement, D: Backend> {
    /// The trailing shape normalised over.
    pub normalized_shape: Vec<usize>,
    /// Ones at first, when affine.
    pub weight: Option<Tensor<T, D>>,
    /// Zeros at first, when affine.
    pub bias: Option<Tensor<T, D>>,
    /// Added to the variance.
    pub eps: f64,
}

impl<T: FloatElement, D: Backend> LayerNorm<T, D> {
    /// PyTorch's defaults are `eps = 1e-5` and `elementwise_affine = true`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn new(
        normalized_shape: &[usize],
        eps: f64,
        elementwise_affine: bool,
        device: &D,
    ) -> Result<Self> {
        let affine = |v: f64| -> Result<Option<Tensor<T, D>>> {
            match elementwise_affine {
                true => Ok(Some(param(normalized_shape, device, |t| {
                    init::constant_(t, v)
                })?)),
                false => Ok(None),
            }
        };
        Ok(LayerNorm {
            normalized_shape: normalized_shape.to_vec(),
            weight: affine(1.0)?,
            bias: affine(0.0)?,
            eps,
        })
    }
}

impl<T: FloatElement, D: Backend> Parameters<T, D> for LayerNorm<T, D> {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        named(&[
            ("weight", self.weight.as_ref()),
            ("bias", self.bias.as_ref()),
        ])
    }
}

impl<T: FloatElement, D: Backend> Module<T, D> for LayerNorm<T, D> {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let (w, b) = (self.weight.as_ref(), self.bias.as_ref());
        nn::layer_norm(x, &self.normalized_shape, w, b, self.eps)
    }
}

/// Batch normalisation over the channels of `(N, C, ...)` (PyTorch `nn.BatchNorm1d`/`2d`/`3d`):
/// batch statistics while training (updating the running averages with `momentum`), the
/// running averages in evaluation.
#[derive(Clone)]
pub struct BatchNorm<T: FloatElement, D: Backend> {
    /// `(C)`, ones at first.
    pub weight: Tensor<T, D>,
    /// `(C)`, zeros at first.
    pub bias: Tensor<T, D>,
    /// `(C)`, zeros at first.
    pub running_mean: Tensor<T, D>,
    /// `(C)`, ones at first.
    pub running_var: Tensor<T, D>,
    /// The running averages' update factor (PyTorch's 0.1).
    pub momentum: f64,
    /// Added to the variance (PyTorch's 1e-5).
    pub eps: f64,
    /// Batch statistics (true) or the running ones.
    pub training: bool,
}

impl<T: FloatElement, D: Backend> BatchNorm<T, D> {
    /// `num_features` channels, PyTorch's defaults otherwise, in training mode.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn new(num_features: usize, device: &D) -> Result<Self> {
        let c = [num_features];
        Ok(BatchNorm {
            weight: param(&c, device, init::ones_)?,
            bias: param(&c, device, init::zeros_)?,
            running_mean: Tensor::zeros_on(c, device)?,
            running_var: Tensor::ones_on(c, device)?,
            momentum: 0.1,
            eps: 1e-5,
            training: true,
        })
    }
}

impl<T: FloatElement, D: Backend> Parameters<T, D> for BatchNorm<T, D> {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        named(&[("weight", Some(&self.weight)), ("bias", Some(&self.bias))])
    }
    fn named_buffers(&self) -> Vec<(String, Tensor<T, D>)> {
        named(&[
            ("running_mean", Some(&self.running_mean)),
            ("running_var", Some(&self.running_var)),
        ])
    }
    fn set_training(&mut self, training: bool) {
        self.training = training;
    }
}

impl<T: FloatElement, D: Backend> Module<T, D> for BatchNorm<T, D> {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        nn::batch_norm(
            x,
            Some(&self.running_mean),
            Some(&self.running_var),
            Some(&self.weight),
            Some(&self.bias),
            self.training,
            self.momentum,
            self.eps,
        )
    }
}

/// Group normalisation of `(N, C, ...)` in `num_groups` groups (PyTorch `nn.GroupNorm`).
#[derive(Clone)]
pub struct GroupNorm<T: FloatElement, D: Backend> {
    /// The number of channel groups.
    pub num_groups: usize,
    /// `(C)`, ones at first, when affine.
    pub weight: Option<Tensor<T, D>>,
    /// `(C)`, zeros at first, when affine.
    pub bias: Option<Tensor<T, D>>,
    /// Added to the variance (PyTorch's 1e-5).
    pub eps: f64,
}

impl<T: FloatElement, D: Backend> GroupNorm<T, D> {
    /// `num_channels` channels in `num_groups` groups.
    ///
    /// # Errors
    /// `InvalidArgument` when `num_groups` is 0 or does not divide `num_channels`;
    /// allocation failure.
    pub fn new(
        num_groups: usize,
        num_channels: usize,
        eps: f64,
        affine: bool,
        device: &D,
    ) -> Result<Self> {
        if num_groups == 0 || !num_channels.is_multiple_of(num_groups) {
            return Err(Error::InvalidArgument {
                op: "GroupNorm",
                msg: format!(
                    "num_groups {num_groups} must be at least 1 and divide num_channels {num_channels}"
                ),
            });
        }
        let c = [num_channels];
        let (weight, bias) = match affine {
            true => (
                Some(param(&c, device, init::ones_)?),
                Some(param(&c, device, init::zeros_)?),
            ),
            false => (None, None),
        };
        Ok(GroupNorm {
            num_groups,
            weight,
            bias,
            eps,
        })
    }
}

impl<T: FloatElement, D: Backend> Parameters<T, D> for GroupNorm<T, D> {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        named(&[
            ("weight", self.weight.as_ref()),
            ("bias", self.bias.as_ref()),
        ])
    }
}

impl<T: FloatElement, D: Backend> Module<T, D> for GroupNorm<T, D> {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let (w, b) = (self.weight.as_ref(), self.bias.as_ref());
        nn::group_norm(x, self.num_groups, w, b, self.eps)
    }
}

/// RMS normalisation over the trailing `normalized_shape` (PyTorch `nn.RMSNorm`).
#[derive(Clone)]
pub struct RmsNorm<T: FloatElement, D: Backend> {
    /// The trailing shape normalised over.
    pub normalized_shape: Vec<usize>,
    /// Ones at first, when affine.
    pub weight: Option<Tensor<T, D>>,
    /// Added to the mean square; `None` is the dtype's machine epsilon, as PyTorch's.
    pub eps: Option<f64>,
}

impl<T: FloatElement, D: Backend> RmsNorm<T, D> {
    /// PyTorch's defaults are `eps = None` and `elementwise_affine = true`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn new(
        normalized_shape: &[usize],
        eps: Option<f64>,
        elementwise_affine: bool,
        device: &D,
    ) -> Result<Self> {
        let weight = match elementwise_affine {
            true => Some(param(normalized_shape, device, init::ones_)?),
            false => None,
        };
        Ok(RmsNorm {
            normalized_shape: normalized_shape.to_vec(),
            weight,
            eps,
        })
    }
}

impl<T: FloatElement, D: Backend> Parameters<T, D> for RmsNorm<T, D> {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        named(&[("weight", self.weight.as_ref())])
    }
}

impl<T: FloatElement, D: Backend> Module<T, D> for RmsNorm<T, D> {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let eps = self.eps.unwrap_or(T::DTYPE.eps());
        nn::rms_norm(x, &self.normalized_shape, self.weight.as_ref(), eps)
    }
}

/// `max(0, x) + a·min(0, x)` with a learnt slope `a` per channel, or one shared (PyTorch
/// `nn.PReLU`): `weight (num_parameters)`, 0.25 at first.
#[derive(Clone)]
pub struct PRelu<T: FloatElement, D: Backend> {
    /// One slope, or one per channel (axis 1).
    pub weight: Tensor<T, D>,
}

impl<T: FloatElement, D: Backend> PRelu<T, D> {
    /// `num_parameters` slopes (1, or the channel count), each `init` (PyTorch's 0.25).
    ///
    /// # Errors
    /// Allocation failure; `InvalidArgument` for a non-finite `init`.
    pub fn new(num_parameters: usize, init: f64, device: &D) -> Result<Self> {
        Ok(PRelu {
            weight: param(&[num_parameters], device, |t| init::constant_(t, init))?,
        })
    }
}

impl<T: FloatElement, D: Backend> Parameters<T, D> for PRelu<T, D> {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        named(&[("weight", Some(&self.weight))])
    }
}

impl<T: FloatElement, D: Backend> Module<T, D> for PRelu<T, D> {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        nn::prelu(x, &self.weight)
    }
}
