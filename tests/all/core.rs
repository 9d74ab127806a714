//! The core issue: elements, devices, metadata, creation, data access, display, errors.

use typed_tensor::prelude::*;

#[test]
fn seed_metadata_examples() {
    let t = Tensor::<f32>::zeros([5, 10, 2]).unwrap();
    assert_eq!(t.numel(), 100);
    assert_eq!(t.ndim(), 3);
    let t = Tensor::<f32>::zeros([10]).unwrap();
    assert_eq!(t.nbytes(), 40);
    assert!(t.allocated_bytes() >= 40 && t.allocated_bytes().is_multiple_of(64));
    let m = Tensor::<f32>::zeros([3, 4]).unwrap();
    assert_eq!(m.stride(), &[4, 1]);
    assert_eq!(Tensor::<f32>::dtype_size(Dtype::Float32), 4);
    assert_eq!(dtype_size(Dtype::Bfloat16), 2);
    assert_eq!(Dtype::Int64.size(), 8);
    let i = Tensor::<i16>::zeros([4, 4]).unwrap();
    assert_eq!(i.dtype(), Dtype::Int16);
    assert_eq!(i.device(), DeviceIndex::cpu());
    assert!(i.is_cpu() && !i.is_cuda());
    assert_eq!(i.shape().dims(), &[4, 4]);
    assert_eq!(format!("{}", i.shape()), "(4, 4)");
    assert!(m.owns_data() && m.is_contiguous());
    let v = m.t();
    assert!(!v.owns_data() && !v.is_contiguous());
    assert!(v.shares_storage_with(&m));
}

#[test]
fn grad_buffer() {
    let mut t = Tensor::<f32>::from_vec(vec![0.0; 5], [5]).unwrap();
    assert!(!t.requires_grad() && t.grad().is_none());
    assert_eq!((t.grad_nbytes(), t.grad_allocated_bytes()), (0, 0));
    t.set_requires_grad(true).unwrap();
    assert_eq!(t.grad_nbytes(), 20);
    assert!(t.grad_allocated_bytes() >= 20 && t.owns_grad());
    {
        let mut d = t.data_mut().unwrap();
        for (i, x) in d.iter_mut().enumerate() {
            *x = 1.5 * i as f32;
        }
    }
    t.grad_mut().unwrap().fill(-1.5);
    assert_eq!(t.to_vec(), vec![0.0, 1.5, 3.0, 4.5, 6.0]);
    assert_eq!(&*t.grad().unwrap(), &[-1.5; 5]);
}

#[test]
fn creation() {
    assert_eq!(Tensor::<i32>::ones([2, 2]).unwrap().to_vec(), vec![1; 4]);
    assert_eq!(
        Tensor::<f64>::full([2], 42.0).unwrap().to_vec(),
        vec![42.0; 2]
    );
    assert_eq!(Tensor::<bool>::ones([2]).unwrap().to_vec(), vec![true; 2]);
    assert_eq!(
        Tensor::<i64>::arange(0, 10, 3).unwrap().to_vec(),
        vec![0, 3, 6, 9]
    );
    // Integer lengths are exact where f64 would round the bounds (NumPy), both directions.
    let big = 1i64 << 60;
    assert_eq!(
        Tensor::<i64>::arange(big, big + 3, 1).unwrap().to_vec(),
        vec![big, big + 1, big + 2]
    );
    assert_eq!(Tensor::<i64>::arange(big + 5, big, -2).unwrap().numel(), 3);
    assert_eq!(
        Tensor::<i16>::arange(5, -5, -3).unwrap().to_vec(),
        vec![5, 2, -1, -4]
    );
    assert_eq!(Tensor::<i32>::arange(0, 5, -1).unwrap().numel(), 0);
    assert_eq!(
        Tensor::<f32>::arange(1.0, 0.0, -0.25).unwrap().to_vec(),
        vec![1.0, 0.75, 0.5, 0.25]
    );
    assert_eq!(
        Tensor::<f64>::linspace(0.0, 1.0, 5).unwrap().to_vec(),
        vec![0.0, 0.25, 0.5, 0.75, 1.0]
    );
    assert_eq!(Tensor::<i32>::eye(2).unwrap().to_vec(), vec![1, 0, 0, 1]);
    assert_eq!(
        Tensor::<f32>::identity(2, 3).unwrap().to_vec(),
        vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
    );
    let s = Tensor::scalar(7i16);
    assert_eq!((s.ndim(), s.numel(), s.item()), (0, 1, 7));
    let z = Tensor::<bf16>::zeros([2, 3]).unwrap();
    assert_eq!(z.ones_like().to_vec(), vec![bf16::ONE; 6]);
    assert_eq!(
        z.full_like(bf16::from_f32(2.0)).to_vec(),
        vec![bf16::from_f32(2.0); 6]
    );
    assert_eq!(Tensor::<u8>::empty([3]).unwrap().to_vec(), vec![0; 3]);
    // The `_on` forms, generic over the device.
    let t = Tensor::<i16>::from_slice_on(&[1, 2, 3, 4], [2, 2], &Cpu).unwrap();
    assert_eq!((t.dims(), t.to_vec()), (&[2, 2][..], vec![1, 2, 3, 4]));
    let e = Tensor::<f32>::from_slice_on(&[1.0; 3], [2, 2], &Cpu).unwrap_err();
    assert!(e.to_string().contains("from_slice_on"), "{e}");
    assert_eq!(
        Tensor::<f64>::empty_on([2], &Cpu).unwrap().to_vec(),
        vec![0.0; 2]
    );
}

#[test]
fn bad_input_is_an_error() {
    let e = Tensor::<f32>::from_vec(vec![1.0; 5], [2, 3]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::DataLength {
                len: 5,
                numel: 6,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("(2, 3)"));
    let e = Tensor::<f32>::zeros([usize::MAX, 3]).unwrap_err();
    assert!(matches!(e, Error::ShapeOverflow { .. }), "{e}");
    let e = Tensor::<u8>::from_vec(vec![], [1 << 62, 1 << 62]).unwrap_err();
    assert!(matches!(e, Error::ShapeOverflow { .. }));
    let e = Tensor::<i32>::arange(0, 5, 0).unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument { op: "arange", .. }),
        "{e}"
    );
    assert!(Tensor::<f32>::arange(0.0, f32::NAN, 1.0).is_err());
    assert!(Tensor::<f32>::zeros([2, 2]).unwrap().try_item().is_err());
    assert!(Tensor::<f32>::zeros([2, 2]).unwrap().t().data().is_err());
}

#[test]
fn empty_and_zero_d_work_end_to_end() {
    let e = Tensor::<f32>::zeros([0, 3]).unwrap();
    assert_eq!((e.numel(), e.nbytes(), e.allocated_bytes()), (0, 0, 0));
    assert!(e.to_vec().is_empty());
    assert!(e.to_string().starts_with("[[]]"));
    assert_eq!(e.sin().shape().dims(), &[0, 3]);
    let s = Tensor::<f64>::from_vec(vec![2.5], Shape::from(())).unwrap();
    assert_eq!(s.to_vec(), vec![2.5]);
    assert!(s.to_string().starts_with("2.5000\n"));
    assert_eq!((&s + 1.0).item(), 3.5);
}

#[test]
fn display() {
    let t = Tensor::<f32>::from_vec(vec![1.123456, 2.2, 3.3, 4.4, 5.5, -6.6], [2, 3]).unwrap();
    assert_eq!(
        t.to_string(),
        "[[ 1.1235,  2.2000,  3.3000],\n [ 4.4000,  5.5000, -6.6000]]\nTensor(shape=(2, 3), dtype=Float32, device=cpu)"
    );
    assert!(format!("{t:.2}").starts_with("[[ 1.12,  2.20,  3.30],"));
    let i = Tensor::<i64>::from_vec(vec![1, -20, 300], [3]).unwrap();
    assert!(i.to_string().starts_with("[  1, -20, 300]"));
    let n = Tensor::<f64>::from_vec(vec![f64::NAN, f64::INFINITY, -f64::INFINITY], [3]).unwrap();
    assert!(n.to_string().starts_with("[ nan,  inf, -inf]"));
    let b = Tensor::<bool>::from_vec(vec![true, false], [2]).unwrap();
    assert!(b.to_string().starts_with("[ true, false]"));
    let big = Tensor::<i32>::arange(0, 2000, 1).unwrap().reshape([40, 50]);
    let s = big.to_string();
    assert!(s.contains("...") && s.lines().count() < 12, "{s}");
    assert!(!big.display(0).contains("..."));
    let three = Tensor::<i32>::arange(0, 8, 1).unwrap().reshape([2, 2, 2]);
    assert!(
        three
            .to_string()
            .starts_with("[[[0, 1],\n  [2, 3]],\n\n [[4, 5],\n  [6, 7]]]")
    );
}

#[test]
fn random_is_seeded_and_in_range() {
    let draw = || Tensor::<f32>::rand([1000]).unwrap();
    assert!(crate::common::reproducible(42, || draw().to_vec()));
    let a = draw();
    assert!(a.to_vec().iter().all(|&x| (0.0..1.0).contains(&x)));
    let h = Tensor::<bf16>::rand([1000]).unwrap();
    assert!(
        h.to_vec()
            .iter()
            .all(|&x| x.to_f32() >= 0.0 && x.to_f32() < 1.0)
    );
    let n = Tensor::<f64>::randn([20000]).unwrap();
    let mean = n.mean(&[], false).item();
    let std = n.std(&[], 1, false).item();
    assert!(
        mean.abs() < 0.05 && (std - 1.0).abs() < 0.05,
        "{mean} {std}"
    );
    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(1);
    let r = Tensor::<f16>::randn_with([10], &mut rng).unwrap();
    assert_eq!(r.numel(), 10);
}

fn element_roundtrip<T: Element>() {
    for v in [0.0, 1.0, 2.0, 100.0] {
        assert_eq!(
            T::from_f64(v).to_f64(),
            if T::DTYPE == Dtype::Bool {
                (v != 0.0) as u8 as f64
            } else {
                v
            }
        );
    }
    assert_eq!(T::DTYPE.size(), T::SIZE);
    // The type-level promotion table agrees with the runtime one.
    assert_eq!(<FloatOf<T>>::DTYPE, T::DTYPE.float_of());
    assert_eq!(<SumOf<T>>::DTYPE, T::DTYPE.sum_of());
    assert_eq!(<SquareOf<T>>::DTYPE, T::DTYPE.square_of());
    let t = Tensor::<T>::from_vec(vec![T::ONE; 3], [3]).unwrap();
    assert_eq!(t.dtype(), T::DTYPE);
    assert_eq!(t.nbytes(), 3 * T::SIZE);
}

#[test]
fn elements_and_promotion_table() {
    for_types!(element_roundtrip: f32, f64, f16, bf16, i16, i32, i64, u8, bool);
    assert_eq!(Dtype::ALL.len(), 9);
    // Rust `as` semantics for casts.
    assert_eq!(f64::NAN.cast::<i32>(), 0);
    assert_eq!(1e20f64.cast::<i32>(), i32::MAX);
    assert_eq!((-2.7f32).cast::<i16>(), -2);
    assert_eq!(300i32.cast::<u8>(), 44);
    assert_eq!(i64::MAX.cast::<i64>(), i64::MAX);
    assert_eq!(0.5f32.cast::<bool>(), true);
}

#[test]
fn cuda_is_a_clear_error_without_a_backend() {
    if Cuda::device_count() == 0 {
        let e = Cuda::new(0).unwrap_err();
        assert!(e.to_string().contains("cuda:0"), "{e}");
    } else {
        assert_eq!(Cuda::new(0).unwrap().index(), DeviceIndex::cuda(0));
    }
    assert_eq!(DeviceIndex::cuda(3).to_string(), "cuda:3");
}

#[test]
fn data_borrows_and_set_data() {
    let mut t = Tensor::<i32>::zeros([2, 3]).unwrap();
    t.set_data(&[1, 2, 3, 4, 5, 6]).unwrap();
    assert_eq!(&*t.data().unwrap(), &[1, 2, 3, 4, 5, 6]);
    assert!(t.set_data(&[1]).is_err());
    let mut col = t.narrow(1, 1, 1).unwrap();
    col.set_data(&[20, 50]).unwrap();
    assert_eq!(t.to_vec(), vec![1, 20, 3, 4, 50, 6]);
    col.fill_(0).unwrap();
    assert_eq!(t.to_vec(), vec![1, 0, 3, 4, 0, 6]);
    let mut b = Tensor::<i32>::zeros([1, 3])
        .unwrap()
        .broadcast_to([4, 3])
        .unwrap();
    assert!(b.fill_(1).is_err());
}

#[test]
fn thread_count_as_pytorch() {
    let n = typed_tensor::get_num_threads(); // starts the pool
    assert!(n >= 1);
    typed_tensor::set_num_threads(n).unwrap(); // the size it has: Ok
    let e = typed_tensor::set_num_threads(n + 1)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("cannot be resized") && e.contains(&format!("{n} threads")),
        "{e}"
    );
    assert!(typed_tensor::set_num_threads(0).is_err());
}

/// `finfo`/`iinfo` against PyTorch 2.15's `torch.finfo`/`torch.iinfo` (and NumPy's
/// `precision` and `smallest_subnormal`), bit for bit.
#[test]
fn dtype_limits_match_pytorch() {
    use typed_tensor::{finfo, iinfo};
    let want = [
        (
            Dtype::Float32,
            32,
            1.1920928955078125e-07,
            3.4028234663852886e+38,
            1.1754943508222875e-38,
            1e-06,
            6,
            1.401298464324817e-45,
        ),
        (
            Dtype::Float64,
            64,
            2.220446049250313e-16,
            1.7976931348623157e+308,
            2.2250738585072014e-308,
            1e-15,
            15,
            5e-324,
        ),
        (
            Dtype::Float16,
            16,
            0.0009765625,
            65504.0,
            6.103515625e-05,
            0.001,
            3,
            5.960464477539063e-08,
        ),
        (
            Dtype::Bfloat16,
            16,
            0.0078125,
            3.3895313892515355e+38,
            1.1754943508222875e-38,
            0.01,
            2,
            2f64.powi(-133),
        ),
    ];
    for (d, bits, eps, max, tiny, resolution, precision, subnormal) in want {
        let f = finfo(d).unwrap();
        assert_eq!(
            (f.dtype, f.bits, f.eps, f.max, f.min),
            (d, bits, eps, max, -max)
        );
        assert_eq!(
            (f.tiny(), f.smallest_normal, f.resolution, f.precision),
            (tiny, tiny, resolution, precision)
        );
        assert_eq!(f.smallest_subnormal, subnormal);
        assert_eq!(f.eps, d.eps());
        assert!(iinfo(d).unwrap_err().to_string().contains("finfo"));
    }
    // The limits are the element types' own.
    assert_eq!(
        finfo(Dtype::Float16).unwrap().smallest_subnormal,
        half::f16::from_bits(1).to_f64()
    );
    assert_eq!(
        finfo(Dtype::Bfloat16).unwrap().max,
        half::bf16::MAX.to_f64()
    );
    let ints = [
        (Dtype::UInt8, 8, 255, 0),
        (Dtype::Int16, 16, 32767, -32768),
        (Dtype::Int32, 32, 2147483647, -2147483648),
        (Dtype::Int64, 64, i64::MAX, i64::MIN),
    ];
    for (d, bits, max, min) in ints {
        assert_eq!(
            iinfo(d).unwrap(),
            typed_tensor::IInfo {
                dtype: d,
                bits,
                max,
                min
            }
        );
        assert!(finfo(d).unwrap_err().to_string().contains("iinfo"));
    }
    assert!(iinfo(Dtype::Bool).is_err() && finfo(Dtype::Bool).is_err());
}
