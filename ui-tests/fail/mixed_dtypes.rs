// Tensors of different element types do not mix: cast one of them first. A literal's elements
// must share one type, and its rows one length.
use typed_tensor::prelude::*;
use typed_tensor::tensor;

fn main() {
    let a = Tensor::<f32>::ones([2, 2]).unwrap();
    let b = Tensor::<i32>::ones([2, 2]).unwrap();
    let _sum = &a + &b;
    let _prod = a.matmul(&b);
    let _mixed = tensor![[1, 2], [3.0, 4.0]];
    let _ragged = tensor![[1, 2], [3]];
}
