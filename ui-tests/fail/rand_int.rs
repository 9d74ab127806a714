// Uniform and normal samples are floats.
use typed_tensor::prelude::*;

fn main() {
    let _u = Tensor::<i32>::rand([3]);
    let _n = Tensor::<i16>::randn([3]);
}
