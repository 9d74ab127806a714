// A CPU tensor and a CUDA tensor do not mix: there is no automatic transfer.
use typed_tensor::prelude::*;

fn step(host: &Tensor<f32, Cpu>, gpu: &Tensor<f32, Cuda>) {
    let _sum = host + gpu;
    let _diff = host.try_sub(gpu);
}

fn main() {}
