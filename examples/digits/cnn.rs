//! `--model cnn`: a small convolutional net on the 8×8 images, in PyTorch's naming:
//! `nn.Sequential(Conv2d(1, c, 3, padding=1), ReLU, MaxPool2d(2), Conv2d(c, 2c, 3, padding=1),
//! ReLU, MaxPool2d(2), Flatten, Linear(2c·2·2, 10))` with `c = cfg.hidden`.

use super::model::Config;
use super::net::{Net, he_normal};
use typed_tensor::nn::{Conv2dOptions, conv2d, linear, max_pool2d};
use typed_tensor::prelude::*;

/// The network's parameters, PyTorch's layouts (`(out, in, kh, kw)` and `(out, in)`).
pub struct Cnn<T: FloatElement, D: Backend> {
    c1: Tensor<T, D>,
    b1: Tensor<T, D>,
    c2: Tensor<T, D>,
    b2: Tensor<T, D>,
    w3: Tensor<T, D>,
    b3: Tensor<T, D>,
}

/// A 3×3 convolution keeping the size, then ReLU and a 2×2 max pool (halving it).
fn block<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    w: &Tensor<T, D>,
    b: &Tensor<T, D>,
) -> Result<Tensor<T, D>> {
    let same = Conv2dOptions {
        padding: (1, 1),
        ..Default::default()
    };
    max_pool2d(
        &conv2d(x, w, Some(b), same)?.try_relu()?,
        (2, 2),
        (2, 2),
        (0, 0),
    )
}

impl<T: FloatElement, D: Backend> Net<T, D> for Cnn<T, D> {
    const ARCH: &'static str = "cnn";

    /// He-scaled normal weights, zero biases.
    fn new(cfg: &Config, device: &D) -> Result<Self> {
        let c = cfg.hidden;
        let zeros = |n: usize| Tensor::<T, D>::zeros_on([n], device)?.with_requires_grad(true);
        Ok(Cnn {
            c1: he_normal([c, 1, 3, 3], device)?,
            b1: zeros(c)?,
            c2: he_normal([2 * c, c, 3, 3], device)?,
            b2: zeros(2 * c)?,
            w3: he_normal([10, 8 * c], device)?,
            b3: zeros(10)?,
        })
    }

    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let n = x.dims()[0];
        let h = block(&x.try_reshape([n, 1, 8, 8])?, &self.c1, &self.b1)?; // (n, c, 4, 4)
        let h = block(&h, &self.c2, &self.b2)?; // (n, 2c, 2, 2)
        let flat = h.dims()[1..].iter().product::<usize>();
        linear(&h.try_reshape([n, flat])?, &self.w3, Some(&self.b3))
    }

    fn state(&self) -> Vec<(&'static str, &Tensor<T, D>)> {
        vec![
            ("0.weight", &self.c1),
            ("0.bias", &self.b1),
            ("3.weight", &self.c2),
            ("3.bias", &self.b2),
            ("7.weight", &self.w3),
            ("7.bias", &self.b3),
        ]
    }

    fn from_state(get: impl Fn(&str) -> Result<Tensor<T, D>>) -> Result<Self> {
        Ok(Cnn {
            c1: get("0.weight")?,
            b1: get("0.bias")?,
            c2: get("3.weight")?,
            b2: get("3.bias")?,
            w3: get("7.weight")?,
            b3: get("7.bias")?,
        })
    }

    fn describe(cfg: &Config) -> String {
        let c = cfg.hidden;
        format!(
            "cnn conv3x3(1-{c}) relu maxpool2 conv3x3({c}-{}) relu maxpool2 linear({}-10); torch nn.Sequential(Conv2d, ReLU, MaxPool2d, Conv2d, ReLU, MaxPool2d, Flatten, Linear) state_dict",
            2 * c,
            8 * c
        )
    }
}
