//! First-hour API: literals (`From` arrays, `tensor!`), element access (`get`/`set`) and the
//! `%` operators.

use typed_tensor::prelude::*;
use typed_tensor::tensor;

#[test]
fn literals_build_tensors_of_every_rank() {
    let v = Tensor::from([1.5f32, 2.5]);
    assert_eq!((v.dims(), v.to_vec()), (&[2usize][..], vec![1.5, 2.5]));
    let m = Tensor::from([[1i64, 2, 3], [4, 5, 6]]);
    assert_eq!(m.dims(), &[2, 3]);
    assert_eq!(m.get(&[1, 0]).unwrap(), 4);
    let c = Tensor::from([[[true, false]], [[false, true]]]);
    assert_eq!(c.dims(), &[2, 1, 2]);
    let h = Tensor::from([[[[1u8; 2]; 3]; 1]; 2]);
    assert_eq!((h.dims(), h.numel()), (&[2usize, 1, 3, 2][..], 12));
    let s: &[f64] = &[1.0, 2.0, 3.0];
    assert_eq!(Tensor::from(s).to_vec(), vec![1.0, 2.0, 3.0]);
    assert_eq!(Tensor::from(vec![bf16::ONE; 2]).dtype(), Dtype::Bfloat16);
    let t = tensor![[1, 2], [3, 4]];
    assert_eq!((t.dtype(), t.to_vec()), (Dtype::Int32, vec![1, 2, 3, 4]));
    let f: Tensor<f16> = tensor![0.5, 1.0].cast();
    assert_eq!(f.to_vec(), vec![f16::from_f32(0.5), f16::ONE]);
    let empty: Tensor<f32> = Tensor::from(Vec::<f32>::new());
    assert_eq!(empty.dims(), &[0]);
    let d = DynTensor::from(tensor![[1.0, 2.0]]);
    assert_eq!(d.dtype(), Dtype::Float64);
}

#[test]
fn get_and_set_with_negative_indices() {
    let mut t = tensor![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
    assert_eq!(t.get(&[0, 0]).unwrap(), 1.0);
    assert_eq!(t.get(&[-1, -1]).unwrap(), 6.0);
    assert_eq!(t.get(&[-2, 1]).unwrap(), 2.0);
    // A strided view reads and writes through to the base.
    let mut col = t.t().narrow(0, 2, 1).unwrap();
    assert_eq!(col.get(&[0, 1]).unwrap(), 6.0);
    col.set(&[0, 0], 30.0).unwrap();
    assert_eq!(t.get(&[0, 2]).unwrap(), 30.0);
    t.set(&[1, -3], 40.0).unwrap();
    assert_eq!(t.to_vec(), vec![1.0, 2.0, 30.0, 40.0, 5.0, 6.0]);
    // Errors leave the tensor unchanged.
    for bad in [
        &[2i64, 0][..],
        &[0, -4],
        &[0],
        &[0, 0, 0],
        &[i64::MIN, 0],
        &[0, i64::MAX],
    ] {
        assert!(t.get(bad).is_err(), "{bad:?}");
        assert!(t.set(bad, 0.0).is_err(), "{bad:?}");
    }
    assert_eq!(t.to_vec(), vec![1.0, 2.0, 30.0, 40.0, 5.0, 6.0]);
    let mut b = Tensor::<f32>::ones([1]).unwrap().expand([3]).unwrap();
    assert!(b.set(&[0], 2.0).is_err());
    let s = Tensor::<i32>::scalar(7);
    assert_eq!(s.get(&[]).unwrap(), 7);
}

#[test]
fn remainder_operators_follow_python() {
    let a = tensor![-7, 7, -7, 7];
    let b = tensor![3, 3, -3, -3];
    assert_eq!((&a % &b).to_vec(), vec![2, 1, -1, -2]);
    assert_eq!((&a % 3).to_vec(), vec![2, 1, 2, 1]);
    assert_eq!((10i32 % &b).to_vec(), vec![1, 1, -2, -2]);
    let mut c = a.deep_copy();
    c %= &b;
    assert_eq!(c.to_vec(), vec![2, 1, -1, -2]);
    c %= 2;
    assert_eq!(c.to_vec(), vec![0, 1, 1, 0]);
    let f = tensor![-7.5, 7.5] % 2.0;
    assert_eq!(f.to_vec(), vec![0.5, 1.5]);
    let r = std::panic::catch_unwind(|| &a % &tensor![0, 1, 1, 1]);
    assert!(r.is_err()); // integer division by zero: the plain operator panics with the Err
    let d = DynTensor::from(tensor![-7i64, 7]);
    assert_eq!((&d % 3i64).to_vec::<i64>().unwrap(), vec![2, 1]);
}
