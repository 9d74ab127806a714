// Scalars have the tensor's element type, and only the crate's element types can be stored.
// Slicing entries are integer ranges or indices: a step needs a range, an index an integer.
use typed_tensor::prelude::*;

fn main() {
    let x = Tensor::<f32>::ones([2]).unwrap();
    let _y = &x + 1.0f64;
    let _s = Tensor::<String, Cpu>::zeros([2]);
    let _u = Tensor::<u128, Cpu>::zeros([2]);
    let _stepped_index = x.slice(&s![1;2]);
    let _float_index = x.slice(&s![0.5]);
}
