// Scalars have the tensor's element type, and only the crate's element types can be stored.
use typed_tensor::prelude::*;

fn main() {
    let x = Tensor::<f32>::ones([2]).unwrap();
    let _y = &x + 1.0f64;
    let _s = Tensor::<String, Cpu>::zeros([2]);
    let _u = Tensor::<u128, Cpu>::zeros([2]);
}
