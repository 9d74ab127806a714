// In-place float-valued ops cannot store their result in an integer tensor, and integer
// tensors have no gradient.
use typed_tensor::prelude::*;

fn main() {
    let mut x = Tensor::<i32>::from_vec(vec![1, 4, 9], [3]).unwrap();
    x.sin_().unwrap();
    x.sqrt_().unwrap();
    x.exp_().unwrap();
    x.pow_(0.5).unwrap();
    x.set_requires_grad(true).unwrap();
}
