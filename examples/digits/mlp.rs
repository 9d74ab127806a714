//! The default model: a multilayer perceptron 64 → hidden → 10 with ReLU, in PyTorch's
//! `nn.Sequential(Linear, ReLU, Linear)` naming, so a saved model is evaluated anywhere
//! (README: NumPy).

use super::model::Config;
use super::net::{Net, he_normal};
use typed_tensor::nn::linear;
use typed_tensor::prelude::*;

/// The network's parameters, PyTorch's `nn.Linear` layout (`weight` is `(out, in)`).
pub struct Mlp<T: FloatElement, D: Backend> {
    w1: Tensor<T, D>,
    b1: Tensor<T, D>,
    w2: Tensor<T, D>,
    b2: Tensor<T, D>,
}

impl<T: FloatElement, D: Backend> Net<T, D> for Mlp<T, D> {
    const ARCH: &'static str = "mlp";

    /// He-scaled normal weights, zero biases.
    fn new(cfg: &Config, device: &D) -> Result<Self> {
        let zeros = |n: usize| Tensor::<T, D>::zeros_on([n], device)?.with_requires_grad(true);
        Ok(Mlp {
            w1: he_normal([cfg.hidden, 64], device)?,
            b1: zeros(cfg.hidden)?,
            w2: he_normal([10, cfg.hidden], device)?,
            b2: zeros(10)?,
        })
    }

    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let h = linear(x, &self.w1, Some(&self.b1))?.try_relu()?;
        linear(&h, &self.w2, Some(&self.b2))
    }

    fn state(&self) -> Vec<(&'static str, &Tensor<T, D>)> {
        vec![
            ("0.weight", &self.w1),
            ("0.bias", &self.b1),
            ("2.weight", &self.w2),
            ("2.bias", &self.b2),
        ]
    }

    fn from_state(get: impl Fn(&str) -> Result<Tensor<T, D>>) -> Result<Self> {
        Ok(Mlp {
            w1: get("0.weight")?,
            b1: get("0.bias")?,
            w2: get("2.weight")?,
            b2: get("2.bias")?,
        })
    }

    fn describe(cfg: &Config) -> String {
        format!(
            "mlp 64-{}-10 relu; torch nn.Sequential(Linear, ReLU, Linear) state_dict",
            cfg.hidden
        )
    }
}
