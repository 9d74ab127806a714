// The allowed counterparts of the rejected programs.
use typed_tensor::prelude::*;

fn main() {
    let x = Tensor::<i32>::from_vec(vec![-1, 2, -3], [3]).unwrap();
    let s: Tensor<f32, Cpu> = x.sin(); // int sin gives f32
    let mut y = x.deep_copy();
    y.abs_().unwrap(); // in-place ops that keep the integer type exist
    y.pow_(2).unwrap();
    let f = Tensor::<f32>::ones([3]).unwrap();
    let sum = &x.cast::<f32>() + &f; // cast explicitly, then mix
    let _m: Tensor<f32, Cpu> = x.mean(&[], false).unwrap();
    let _r = Tensor::<f32>::rand([2]).unwrap();
    assert_eq!(sum.to_vec(), vec![0.0, 3.0, -2.0]);
    assert_eq!(y.to_vec(), vec![1, 4, 9]);
    assert_eq!(s.dtype(), Dtype::Float32);
}
