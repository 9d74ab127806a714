//! Containers of layers as fields of a user's model: a `Vec` of layers is PyTorch's
//! `nn.ModuleList` (parameters `"{i}.{name}"`), a `BTreeMap<String, _>` its `nn.ModuleDict`
//! (`"{key}.{name}"`), an `Option` an optional sub-module (PyTorch's
//! `None` attribute: no parameters), a `Box` the layer it holds (so `Box<dyn Module>` is a
//! `Module`).

use super::{Module, Parameters};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::tensor::Tensor;

/// The `i`-th item's entries named `"{i}.{name}"`.
fn numbered<P: Parameters<T, D>, T: FloatElement, D: Backend>(
    items: &[P],
    get: impl Fn(&P) -> Vec<(String, Tensor<T, D>)>,
) -> Vec<(String, Tensor<T, D>)> {
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        out.extend(get(item).into_iter().map(|(n, t)| (format!("{i}.{n}"), t)));
    }
    out
}

/// A list of layers (PyTorch `nn.ModuleList`): the `i`-th layer's parameters and buffers are
/// named `"{i}.{name}"`, and `set_training` reaches every layer. A model holds one as a field
/// and names it with [`prefixed`](super::prefixed) (`"blocks.0.weight"`), applying the layers
/// in its own `forward` as it likes.
///
/// ```
/// use typed_tensor::nn::modules::{Linear, Module, Parameters, prefixed};
/// use typed_tensor::prelude::*;
/// struct Residual { blocks: Vec<Linear<f32, Cpu>> }
/// impl Parameters<f32, Cpu> for Residual {
///     fn named_parameters(&self) -> Vec<(String, Tensor<f32>)> {
///         prefixed("blocks", &self.blocks)
///     }
/// }
/// impl Module<f32, Cpu> for Residual {
///     fn forward(&self, x: &Tensor<f32>) -> typed_tensor::Result<Tensor<f32>> {
///         self.blocks.iter().try_fold(x.clone(), |h, b| h.try_add(&b.forward(&h)?))
///     }
/// }
/// let m = Residual { blocks: vec![Linear::new(4, 4, true, &Cpu)?, Linear::new(4, 4, false, &Cpu)?] };
/// let names: Vec<String> = m.named_parameters().into_iter().map(|(n, _)| n).collect();
/// assert_eq!(names, ["blocks.0.weight", "blocks.0.bias", "blocks.1.weight"]);
/// assert_eq!(m.forward(&Tensor::<f32>::ones([2, 4])?)?.dims(), [2, 4]);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
impl<P: Parameters<T, D>, T: FloatElement, D: Backend> Parameters<T, D> for Vec<P> {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        numbered(self, |p| p.named_parameters())
    }
    fn named_buffers(&self) -> Vec<(String, Tensor<T, D>)> {
        numbered(self, |p| p.named_buffers())
    }
    fn set_training(&mut self, training: bool) {
        self.iter_mut().for_each(|p| p.set_training(training));
    }
}

/// Named layers (PyTorch `nn.ModuleDict`): the layer under key `k` has its parameters and
/// buffers named `"{k}.{name}"`, in key order (PyTorch keeps insertion order; the names, and
/// so a state dict, are the same).
impl<P: Parameters<T, D>, T: FloatElement, D: Backend> Parameters<T, D>
    for std::collections::BTreeMap<String, P>
{
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        let mut out = Vec::new();
        for (k, p) in self {
            out.extend(super::prefixed(k, p));
        }
        out
    }
    fn named_buffers(&self) -> Vec<(String, Tensor<T, D>)> {
        let mut out = Vec::new();
        for (k, p) in self {
            out.extend(super::prefixed_buffers(k, p));
        }
        out
    }
    fn set_training(&mut self, training: bool) {
        self.values_mut().for_each(|p| p.set_training(training));
    }
}

/// An optional sub-module (a PyTorch attribute that may be `None`, such as a final norm):
/// the layer's parameters and buffers under their own names, or none.
impl<P: Parameters<T, D>, T: FloatElement, D: Backend> Parameters<T, D> for Option<P> {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        self.as_ref()
            .map_or_else(Vec::new, |p| p.named_parameters())
    }
    fn named_buffers(&self) -> Vec<(String, Tensor<T, D>)> {
        self.as_ref().map_or_else(Vec::new, |p| p.named_buffers())
    }
    fn set_training(&mut self, training: bool) {
        if let Some(p) = self {
            p.set_training(training);
        }
    }
}

/// The boxed layer's parameters and buffers (so a `Vec<Box<dyn Module<T, D>>>` of mixed
/// layers is a list of modules too).
impl<P: Parameters<T, D> + ?Sized, T: FloatElement, D: Backend> Parameters<T, D> for Box<P> {
    fn named_parameters(&self) -> Vec<(String, Tensor<T, D>)> {
        (**self).named_parameters()
    }
    fn named_buffers(&self) -> Vec<(String, Tensor<T, D>)> {
        (**self).named_buffers()
    }
    fn set_training(&mut self, training: bool) {
        (**self).set_training(training)
    }
}

/// The boxed layer's `forward`.
impl<M: Module<T, D> + ?Sized, T: FloatElement, D: Backend> Module<T, D> for Box<M> {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        (**self).forward(x)
    }
}

/// An optional layer applied when present, the identity when absent.
impl<M: Module<T, D>, T: FloatElement, D: Backend> Module<T, D> for Option<M> {
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        match self {
            Some(m) => m.forward(x),
            None => Ok(x.clone()),
        }
    }
}
