// Tensors of different element types do not mix: cast one of them first.
use typed_tensor::prelude::*;

fn main() {
    let a = Tensor::<f32>::ones([2, 2]).unwrap();
    let b = Tensor::<i32>::ones([2, 2]).unwrap();
    let _sum = &a + &b;
    let _prod = a.matmul(&b);
}
