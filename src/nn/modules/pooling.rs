//! The pooling layers: `Pool1d`, `Pool2d`, `Pool3d` (PyTorch's `nn.MaxPool*d` and
//! `nn.AvgPool*d`) and `AdaptivePool1d`, `AdaptivePool2d`, `AdaptivePool3d`
//! (`nn.AdaptiveMaxPool*d`, `nn.AdaptiveAvgPool*d`), each calling the function of its kind.

use super::Module;
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::nn;
use crate::tensor::Tensor;

/// A windowed pooling layer per spatial rank: its struct, constructors and `forward`.
macro_rules! pools {
    ($($name:ident($size:ty, $zero:expr, $input:literal): $maxf:path, $avgf:path, $torch:literal;)*) => {$(
        #[doc = concat!("Max or average pooling over `", $input, "` (PyTorch `nn.Max", $torch, "`, `nn.Avg", $torch, "`).")]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $name {
            /// Max (true) or average pooling.
            pub max: bool,
            /// The window.
            pub kernel: $size,
            /// The step between windows (PyTorch's default: the window).
            pub stride: $size,
            /// Padding on both sides.
            pub padding: $size,
        }

        impl $name {
            /// Max pooling with stride = kernel and no padding (PyTorch's defaults).
            pub fn max(kernel: $size) -> Self {
                $name { max: true, kernel, stride: kernel, padding: $zero }
            }
            /// Average pooling with stride = kernel and no padding.
            pub fn avg(kernel: $size) -> Self {
                $name { max: false, ..$name::max(kernel) }
            }
        }

        no_parameters!($name);

        impl<T: FloatElement, D: Backend> Module<T, D> for $name {
            fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
                match self.max {
                    true => $maxf(x, self.kernel, self.stride, self.padding),
                    false => $avgf(x, self.kernel, self.stride, self.padding),
                }
            }
        }
    )*};
}

pools! {
    Pool1d(usize, 0, "(N, C, L)"): nn::max_pool1d, nn::avg_pool1d, "Pool1d";
    Pool2d((usize, usize), (0, 0), "(N, C, H, W)"): nn::max_pool2d, nn::avg_pool2d, "Pool2d";
    Pool3d((usize, usize, usize), (0, 0, 0), "(N, C, D, H, W)"): nn::max_pool3d, nn::avg_pool3d, "Pool3d";
}

/// An adaptive pooling layer per spatial rank.
macro_rules! adaptive_pools {
    ($($name:ident($size:ty, $input:literal): $maxf:path, $avgf:path, $torch:literal;)*) => {$(
        #[doc = concat!("Adaptive max or average pooling of `", $input, "` to a fixed output size, each window")]
        #[doc = concat!("spanning `floor(i·in/out)..ceil((i+1)·in/out)` (PyTorch `nn.AdaptiveMax", $torch, "`, `nn.AdaptiveAvg", $torch, "`).")]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $name {
            /// Max (true) or average pooling.
            pub max: bool,
            /// The output's spatial size.
            pub output_size: $size,
        }

        impl $name {
            /// Adaptive max pooling to `output_size`.
            pub fn max(output_size: $size) -> Self {
                $name { max: true, output_size }
            }
            /// Adaptive average pooling to `output_size` (`(1, 1)`: global average pooling).
            pub fn avg(output_size: $size) -> Self {
                $name { max: false, output_size }
            }
        }

        no_parameters!($name);

        impl<T: FloatElement, D: Backend> Module<T, D> for $name {
            fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
                match self.max {
                    true => $maxf(x, self.output_size),
                    false => $avgf(x, self.output_size),
                }
            }
        }
    )*};
}

adaptive_pools! {
    AdaptivePool1d(usize, "(N, C, L)"): nn::adaptive_max_pool1d, nn::adaptive_avg_pool1d, "Pool1d";
    AdaptivePool2d((usize, usize), "(N, C, H, W)"): nn::adaptive_max_pool2d, nn::adaptive_avg_pool2d, "Pool2d";
    AdaptivePool3d((usize, usize, usize), "(N, C, D, H, W)"): nn::adaptive_max_pool3d, nn::adaptive_avg_pool3d, "Pool3d";
}
