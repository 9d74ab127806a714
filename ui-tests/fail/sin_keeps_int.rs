// `sin` of an integer tensor is a float tensor: the promotion is in the type.
use typed_tensor::prelude::*;

fn main() {
    let x = Tensor::<i32>::from_vec(vec![0, 1, 2], [3]).unwrap();
    let _y: Tensor<i32, Cpu> = x.sin();
}
