//! DynTensor: the seed's code examples ported to Rust (documented outputs asserted), the
//! runtime rules that replace compile errors, and typed-versus-dynamic agreement.

use crate::common::*;
use typed_tensor::prelude::*;

fn t_simple() -> DynTensor {
    DynTensor::from_vec(
        vec![1.0f32, 5.0, 3.0, 4.0, 2.0, 6.0],
        [2, 3],
        DeviceIndex::cpu(),
    )
    .unwrap()
}
fn t_complex() -> DynTensor {
    DynTensor::from_vec(
        vec![1.0f32, 5.0, 3.0, 4.0, f32::NAN, 6.0],
        [2, 3],
        DeviceIndex::cpu(),
    )
    .unwrap()
}
fn f32s(t: &DynTensor) -> Vec<f32> {
    t.to_vec::<f32>().unwrap()
}

#[test]
fn seed_creating_a_tensor() {
    // Method 1: direct construction; CUDA works where a device is present and is a clear
    // error elsewhere.
    let on_cuda = DynTensor::new([4, 4], Dtype::Float32, DeviceIndex::cuda(0), true);
    match crate::cuda::gpu("seed_creating_a_tensor") {
        Some(_) => {
            let g = on_cuda.unwrap();
            assert_eq!(
                (g.device(), g.requires_grad()),
                (DeviceIndex::cuda(0), true)
            );
            assert_eq!(f32s(&g.to_cpu().unwrap()), vec![0.0; 16]);
        }
        None => assert!(on_cuda.unwrap_err().to_string().contains("cuda:0")),
    }
    let cpu = DynTensor::new([10, 20], Dtype::Int32, DeviceIndex::cpu(), false).unwrap();
    assert_eq!(
        (cpu.dtype(), cpu.numel(), cpu.requires_grad()),
        (Dtype::Int32, 200, false)
    );
    // Method 2: TensorOptions.
    let opts = TensorOptions::new().dtype(Dtype::Float16);
    let a = DynTensor::with_options([128, 128], opts).unwrap();
    let b = DynTensor::with_options([64, 32, 8], opts).unwrap();
    assert_eq!(
        (a.dtype(), b.shape().dims()),
        (Dtype::Float16, &[64, 32, 8][..])
    );
    let d = TensorOptions::default();
    assert_eq!(
        (d.dtype, d.device, d.requires_grad),
        (Dtype::Float32, DeviceIndex::cpu(), false)
    );
    assert_eq!(Shape::from([10, 100]).dims()[1], 100);
    assert_eq!(Shape::from(vec![2, 3]).to_string(), "(2, 3)");
}

#[test]
fn seed_metadata_and_data_access() {
    let t = DynTensor::new([5, 10, 2], Dtype::Float32, DeviceIndex::cpu(), false).unwrap();
    assert_eq!((t.numel(), t.ndim()), (100, 3));
    let t = DynTensor::new([10], Dtype::Float32, DeviceIndex::cpu(), false).unwrap();
    assert_eq!(t.nbytes(), 40);
    assert_eq!(
        DynTensor::new([3, 4], Dtype::Float32, DeviceIndex::cpu(), false)
            .unwrap()
            .stride(),
        &[4, 1]
    );
    assert_eq!(DynTensor::dtype_size(Dtype::Float32), 4);
    assert_eq!(
        DynTensor::new([4, 4], Dtype::Int16, DeviceIndex::cpu(), false)
            .unwrap()
            .dtype(),
        Dtype::Int16
    );
    // Writing and reading data and gradients.
    let mut t = DynTensor::new([5], Dtype::Float32, DeviceIndex::cpu(), true).unwrap();
    t.set_data(&[0.0f32, 1.5, 3.0, 4.5, 6.0]).unwrap();
    assert_eq!(f32s(&t), vec![0.0, 1.5, 3.0, 4.5, 6.0]);
    assert_eq!(&*t.data::<f32>().unwrap(), &[0.0, 1.5, 3.0, 4.5, 6.0]);
    assert_eq!(t.grad::<f32>().unwrap().unwrap().len(), 5);
    assert_eq!((t.grad_nbytes(), t.owns_grad()), (20, true));
    // The wrong element type is an error, not garbage.
    assert!(matches!(
        t.to_vec::<f64>().unwrap_err(),
        Error::DtypeMismatch {
            expected: Dtype::Float64,
            actual: Dtype::Float32,
            ..
        }
    ));
    assert!(t.set_data(&[1i32; 5]).is_err());
    assert_eq!(f32s(&t)[1], 1.5, "an Err leaves the tensor unchanged");
}

#[test]
fn seed_factories_display_and_transfers() {
    let opts = TensorOptions::new().dtype(Dtype::Float64);
    assert_eq!(
        DynTensor::zeros([2, 3], opts)
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        vec![0.0; 6]
    );
    assert_eq!(
        DynTensor::ones([2], TensorOptions::default())
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        vec![1.0; 2]
    );
    let f = DynTensor::full([3, 3], TensorOptions::new().dtype(Dtype::Int32), 42.0f32).unwrap();
    assert_eq!(f.to_vec::<i32>().unwrap(), vec![42; 9]);
    let r = DynTensor::rand([100], TensorOptions::new().dtype(Dtype::Bfloat16)).unwrap();
    assert_eq!(r.dtype(), Dtype::Bfloat16);
    assert!(DynTensor::randn([3], TensorOptions::new().dtype(Dtype::Int32)).is_err());
    // display(): the seed's example, default precision 4 and precision 2.
    let mut m =
        DynTensor::with_options([2, 3], TensorOptions::new().dtype(Dtype::Float32)).unwrap();
    m.set_data(&[1.123456f32, 2.2, 3.3, 4.4, 5.5, 6.6]).unwrap();
    assert!(
        m.display(4)
            .starts_with("[[1.1235, 2.2000, 3.3000],\n [4.4000, 5.5000, 6.6000]]")
    );
    assert!(m.display(2).starts_with("[[1.12, 2.20, 3.30],"));
    assert_eq!(format!("{m:.2}"), m.display(2));
    // Same-device `to` shares data; CUDA is a copy, or a clear error without a device.
    let c = m.to(DeviceIndex::cpu()).unwrap();
    assert!(dyn_shares(&c, &m));
    match crate::cuda::gpu("seed_factories_display_and_transfers") {
        Some(_) => assert_eq!(
            m.to_cuda().unwrap().to_cpu().unwrap().display(2),
            m.display(2)
        ),
        None => assert!(m.to_cuda().unwrap_err().to_string().contains("cuda:0")),
    }
    assert!(m.to_cpu().is_ok());
    let mut g = DynTensor::new([10, 10], Dtype::Float32, DeviceIndex::cpu(), false).unwrap();
    g.fill_(5.0f32).unwrap();
    assert_eq!(f32s(&g), vec![5.0; 100]);
}

fn dyn_shares(a: &DynTensor, b: &DynTensor) -> bool {
    a.clone()
        .downcast::<f32, Cpu>()
        .unwrap()
        .shares_storage_with(&b.clone().downcast::<f32, Cpu>().unwrap())
}

#[test]
fn seed_unary_examples() {
    // Trigonometry on Float32 and Bfloat16: sin out of place, cos_ in place.
    for dtype in [Dtype::Float32, Dtype::Bfloat16] {
        let mut a = DynTensor::new([2, 3], dtype, DeviceIndex::cpu(), false).unwrap();
        a.fill_(0.5f32).unwrap();
        let s = sin(&a).unwrap();
        cos_(&mut a).unwrap();
        let (sv, cv) = (f64s_dyn(&s), f64s_dyn(&a));
        assert!(
            sv.iter().all(|v| (v - 0.5f64.sin()).abs() < 4e-3)
                && cv.iter().all(|v| (v - 0.5f64.cos()).abs() < 4e-3)
        );
        assert_eq!(s.dtype(), dtype);
    }
    let data = vec![100i32, -200, 3000, 400, 0, 600];
    let mut t = DynTensor::from_vec(data.clone(), [2, 3], DeviceIndex::cpu()).unwrap();
    let sq = square(&t).unwrap();
    assert_eq!(sq.dtype(), Dtype::Float64);
    assert_eq!(
        sq.to_vec::<f64>().unwrap(),
        vec![1e4, 4e4, 9e6, 1.6e5, 0.0, 3.6e5]
    );
    square_(&mut t).unwrap();
    assert_eq!(
        t.to_vec::<i32>().unwrap(),
        vec![10000, 40000, 9000000, 160000, 0, 360000]
    );
    let i64t = DynTensor::from_vec(
        vec![100i64, -200, 3000, 400, 0, 600],
        [2, 3],
        DeviceIndex::cpu(),
    )
    .unwrap();
    let r = sqrt(&i64t).unwrap();
    assert_eq!(
        r.dtype(),
        Dtype::Float64,
        "the trig table: Int64 promotes to Float64"
    );
    assert_eq!(r.to_vec::<f64>().unwrap()[0], 10.0);
    assert!(r.to_vec::<f64>().unwrap()[1].is_nan());
    let mut f = DynTensor::from_vec(
        vec![100.0f32, -200.0, 3000.0, 400.0, 0.0, 600.0],
        [2, 3],
        DeviceIndex::cpu(),
    )
    .unwrap();
    assert_eq!(neg(&i64t).unwrap().to_vec::<i64>().unwrap()[1], 200);
    assert_eq!(abs(&i64t).unwrap().to_vec::<i64>().unwrap()[1], 200);
    assert_eq!(
        sign(&i64t).unwrap().to_vec::<i64>().unwrap(),
        vec![1, -1, 1, 1, 0, 1]
    );
    assert_eq!(
        reciprocal(&f).unwrap().to_vec::<f32>().unwrap()[4],
        f32::INFINITY
    );
    assert_eq!(pow(&f, 3).unwrap().to_vec::<f32>().unwrap()[1], -8e6);
    pow_(&mut f, 3).unwrap();
    assert_eq!(f.to_vec::<f32>().unwrap()[0], 1e6);
    assert_eq!(exp(&i64t).unwrap().dtype(), Dtype::Float64);
    assert_eq!(
        log(&DynTensor::from_vec(vec![0i32], [1], DeviceIndex::cpu()).unwrap())
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        vec![f32::NEG_INFINITY]
    );
    assert!(
        acos(&DynTensor::from_vec(vec![2.0f64], [1], DeviceIndex::cpu()).unwrap())
            .unwrap()
            .to_vec::<f64>()
            .unwrap()[0]
            .is_nan()
    );
}

fn f64s_dyn(t: &DynTensor) -> Vec<f64> {
    t.to_dtype(Dtype::Float64).unwrap().to_vec::<f64>().unwrap()
}

#[test]
fn runtime_rules_replace_compile_errors() {
    let mut i = DynTensor::from_vec(vec![1i32, 4, 9], [3], DeviceIndex::cpu()).unwrap();
    let e = sin_(&mut i).unwrap_err();
    assert!(e.to_string().contains("sin()"), "{e}");
    // The seed's pow_ error cases.
    assert!(pow_(&mut i, -2).is_err());
    assert!(pow_(&mut i, 0.5).is_err());
    assert_eq!(
        i.to_vec::<i32>().unwrap(),
        vec![1, 4, 9],
        "nothing was modified"
    );
    assert_eq!(
        pow(&i, 0.5).unwrap().to_vec::<f32>().unwrap(),
        vec![1.0, 2.0, 3.0]
    );
    assert!(reduce_nansum(&i, &[], false).is_err());
    let z = DynTensor::from_vec(vec![0i32, 1, 1], [3], DeviceIndex::cpu()).unwrap();
    assert!(matches!(
        i.div(&z).unwrap_err(),
        Error::DivisionByZero { .. }
    ));
    assert!(i.div_scalar(0).is_err());
    let f = DynTensor::ones([3], TensorOptions::default()).unwrap();
    let e = f.add(&i).unwrap_err();
    assert!(
        e.to_string().contains("Float32") && e.to_string().contains("Int32"),
        "{e}"
    );
    assert!(f.matmul(&i).is_err());
    assert!(std::panic::catch_unwind(|| &f + &i).is_err());
    let mut j = i.clone();
    assert!(
        j.add_scalar_(1.5).is_err(),
        "an integer tensor cannot hold 1.5 in place"
    );
    assert_eq!(
        (&i * 3.5).to_vec::<f32>().unwrap(),
        vec![3.5, 14.0, 31.5],
        "int * float promotes"
    );
    assert_eq!((&i + 1).to_vec::<i32>().unwrap(), vec![2, 5, 10]);
    assert!(i.clone().downcast::<f32, Cpu>().is_err());
    let typed: Result<Tensor<i32>> = i.clone().try_into();
    assert!(typed.is_ok());
}

#[test]
fn seed_scalar_and_tensor_operations() {
    let mut a = DynTensor::new([2, 3], Dtype::Float32, DeviceIndex::cpu(), false).unwrap();
    a.fill_(2.0f32).unwrap();
    let result = &a * 3.5;
    a += 1.5;
    assert_eq!((f32s(&result), f32s(&a)), (vec![7.0; 6], vec![3.5; 6]));
    assert_eq!(f32s(&(2.0 - &a)), vec![-1.5; 6]);
    assert_eq!(f32s(&(&a / 0.0)), vec![f32::INFINITY; 6]);
    let mut x = DynTensor::new([2, 3], Dtype::Float32, DeviceIndex::cpu(), false).unwrap();
    x.fill_(1.0f32).unwrap();
    let mut y = DynTensor::new([1, 3], Dtype::Float32, DeviceIndex::cpu(), false).unwrap();
    y.fill_(2.0f32).unwrap();
    assert_eq!(f32s(&(&x + &y)), vec![3.0; 6]);
    x -= &y;
    assert_eq!(f32s(&x), vec![-1.0; 6]);
    assert!(
        x.add(&DynTensor::ones([5], TensorOptions::default()).unwrap())
            .is_err()
    );
    assert_eq!(x.lt(&y).unwrap().to_vec::<bool>().unwrap(), vec![true; 6]);
    // clip: a float bound promotes an integer tensor (PyTorch); an integer bound past the
    // dtype's range clips nothing on its side instead of wrapping into it.
    let u = DynTensor::from(Tensor::<u8>::from_vec(vec![0, 7, 255], [3]).unwrap());
    let f = u.clip(0.5, 6.5).unwrap();
    assert_eq!((f.dtype(), f32s(&f)), (Dtype::Float32, vec![0.5, 6.5, 6.5]));
    let same = u.clip(-1, 300).unwrap();
    assert_eq!(same.to_vec::<u8>().unwrap(), vec![0, 7, 255]);
}

#[test]
fn seed_reductions_through_dyn() {
    let (s, c) = (t_simple(), t_complex());
    assert_eq!(f32s(&reduce_sum(&s, &[], false).unwrap()), vec![21.0]);
    assert_eq!(
        f32s(&reduce_sum(&s, &[0], false).unwrap()),
        vec![5.0, 7.0, 9.0]
    );
    let k = reduce_sum(&s, &[1], true).unwrap();
    assert_eq!((k.shape().dims(), f32s(&k)), (&[2, 1][..], vec![9.0, 12.0]));
    assert_eq!(f32s(&reduce_product(&s, &[], false).unwrap()), vec![720.0]);
    assert_eq!(f32s(&reduce_min(&s, &[1], false).unwrap()), vec![1.0, 2.0]);
    assert_eq!(
        f32s(&reduce_max(&s, &[0], false).unwrap()),
        vec![4.0, 5.0, 6.0]
    );
    assert_eq!(f32s(&reduce_mean(&s, &[1], false).unwrap()), vec![3.0, 4.0]);
    assert_eq!(
        f32s(&reduce_nansum(&c, &[0], false).unwrap()),
        vec![5.0, 5.0, 9.0]
    );
    assert_eq!(
        f32s(&reduce_nanproduct(&c, &[1], false).unwrap()),
        vec![15.0, 24.0]
    );
    assert_eq!(
        f32s(&reduce_nanmin(&c, &[0], false).unwrap()),
        vec![1.0, 5.0, 3.0]
    );
    assert_eq!(f32s(&reduce_nanmax(&c, &[], false).unwrap()), vec![6.0]);
    assert!((f32s(&reduce_nanmean(&c, &[], false).unwrap())[0] - 3.8).abs() < 1e-6);
    let am = reduce_argmax(&s, &[0], false).unwrap();
    assert_eq!(
        (am.dtype(), am.to_vec::<i64>().unwrap()),
        (Dtype::Int64, vec![1, 0, 1])
    );
    assert_eq!(
        reduce_argmin(&s, &[1], true)
            .unwrap()
            .to_vec::<i64>()
            .unwrap(),
        vec![0, 1]
    );
    assert_eq!(
        reduce_nanargmin(&c, &[0], false)
            .unwrap()
            .to_vec::<i64>()
            .unwrap(),
        vec![0, 0, 0]
    );
    assert_eq!(
        reduce_nanargmax(&c, &[1], false)
            .unwrap()
            .to_vec::<i64>()
            .unwrap(),
        vec![1, 2]
    );
    let i = s.to_dtype(Dtype::Int32).unwrap();
    assert_eq!(reduce_sum(&i, &[], false).unwrap().dtype(), Dtype::Int64);
    assert_eq!(reduce_mean(&i, &[], false).unwrap().dtype(), Dtype::Float32);
}

#[test]
fn seed_matmul_through_dyn() {
    let mut a = DynTensor::with_options([2, 3], TensorOptions::default()).unwrap();
    let mut b = DynTensor::with_options([3, 4], TensorOptions::default()).unwrap();
    a.fill_(2.0f32).unwrap();
    b.fill_(3.0f32).unwrap();
    let r = matmul(&a, &b).unwrap();
    assert_eq!(
        (r.shape().to_string(), f32s(&r)),
        ("(2, 4)".to_string(), vec![18.0; 8])
    );
    let ba = DynTensor::ones([1, 4, 2, 3], TensorOptions::default()).unwrap();
    let bb = DynTensor::ones([5, 3, 4], TensorOptions::default()).unwrap();
    assert!(
        matmul(&ba, &bb).is_err(),
        "batch 4 against 5 does not broadcast (NumPy)"
    );
}

fn bits_t<U: Element>(t: &Tensor<U>) -> Vec<u64> {
    t.to_vec().iter().map(|v| v.to_f64().to_bits()).collect()
}

fn bits_d(t: &DynTensor) -> Vec<u64> {
    f64s_dyn(t).iter().map(|v| v.to_bits()).collect()
}

/// The dynamic path dispatches to the typed one: results are bit-identical for every family.
fn agree<T: Element>()
where
    DynTensor: From<Tensor<T>>,
{
    let vals: Vec<f64> = (0..12).map(|i| (i as f64 - 5.0) * 0.75).collect();
    let t = tensor::<T>(&vals, &[3, 4]);
    let d = DynTensor::from(t.clone());
    assert_eq!(bits_d(&d.sin().unwrap()), bits_t(&t.sin()));
    assert_eq!(bits_d(&d.exp().unwrap()), bits_t(&t.exp()));
    assert_eq!(
        bits_d(&reduce_sum(&d, &[1], false).unwrap()),
        bits_t(&t.sum(&[1], false))
    );
    assert_eq!(
        bits_d(&reduce_mean(&d, &[0], true).unwrap()),
        bits_t(&t.mean(&[0], true))
    );
    assert_eq!(
        bits_d(&reduce_argmax(&d, &[0], true).unwrap()),
        bits_t(&t.argmax(&[0], true))
    );
    assert_eq!(bits_d(&d.eq(&d).unwrap()), bits_t(&t.eq(&t)));
    assert_eq!(
        bits_d(&d.to_dtype(Dtype::Int16).unwrap()),
        bits_t(&t.cast::<i16>())
    );
    assert_eq!(
        bits_d(&d.transpose(0, 1).unwrap().contiguous().unwrap()),
        bits_t(&t.t().contiguous())
    );
}

fn agree_numeric<T: NumElement>()
where
    DynTensor: From<Tensor<T>>,
{
    let vals: Vec<f64> = (0..12).map(|i| (i as f64) * 0.5 + 1.0).collect();
    let t = tensor::<T>(&vals, &[3, 4]);
    let d = DynTensor::from(t.clone());
    let m = t.t().contiguous();
    let dm = DynTensor::from(m.clone());
    assert_eq!(bits_d(&d.add(&d).unwrap()), bits_t(&(&t + &t)));
    assert_eq!(
        bits_d(&d.maximum(&d.neg().unwrap()).unwrap()),
        bits_t(&t.maximum(&t.neg()))
    );
    assert_eq!(bits_d(&d.matmul(&dm).unwrap()), bits_t(&t.matmul(&m)));
    assert_eq!(bits_d(&d.square().unwrap()), bits_t(&t.square()));
    assert_eq!(bits_d(&d.pow(2).unwrap()), bits_t(&t.pow(2)));
    assert_eq!(
        bits_d(&reduce_max(&d, &[], false).unwrap()),
        bits_t(&t.max(&[], false))
    );
}

#[test]
fn dynamic_and_typed_agree_bitwise() {
    for_types!(agree: f32, f64, f16, bf16, i16, i32, i64, u8, bool);
    for_types!(agree_numeric: f32, f64, f16, bf16, i16, i32, i64, u8);
}

#[test]
fn dyn_shape_index_and_scan_ops() {
    let a = DynTensor::from_vec(vec![3i32, 1, 2, 6, 5, 4], [2, 3], DeviceIndex::cpu()).unwrap();
    let c = DynTensor::concat(&[&a, &a], 0).unwrap();
    assert_eq!(c.shape().dims(), &[4, 3]);
    assert!(DynTensor::concat(&[&a, &a.to_dtype(Dtype::Float32).unwrap()], 0).is_err());
    assert_eq!(
        DynTensor::stack(&[&a, &a], 0).unwrap().shape().dims(),
        &[2, 2, 3]
    );
    let idx = DynTensor::from_vec(vec![2i64, 0], [2], DeviceIndex::cpu()).unwrap();
    assert_eq!(
        a.index_select(1, &idx).unwrap().to_vec::<i32>().unwrap(),
        vec![2, 3, 4, 6]
    );
    assert!(a.index_select(1, &a).is_err(), "indices must be Int64");
    let (v, i) = a.sort(1, false).unwrap();
    assert_eq!(
        (v.to_vec::<i32>().unwrap(), i.to_vec::<i64>().unwrap()),
        (vec![1, 2, 3, 4, 5, 6], vec![1, 2, 0, 2, 1, 0])
    );
    let (tv, _) = a.topk(1, 1).unwrap();
    assert_eq!(tv.to_vec::<i32>().unwrap(), vec![3, 6]);
    assert_eq!(
        a.gather(1, &i).unwrap().to_vec::<i32>().unwrap(),
        vec![1, 2, 3, 4, 5, 6]
    );
    let cs = a.cumsum(1).unwrap();
    assert_eq!(
        (cs.dtype(), cs.to_vec::<i64>().unwrap()),
        (Dtype::Int64, vec![3, 4, 6, 6, 11, 15])
    );
    assert_eq!(
        a.cumprod(0).unwrap().to_vec::<i64>().unwrap(),
        vec![3, 1, 2, 18, 5, 8]
    );
    assert!(a.logsumexp(&[1], false).is_err());
    let f = a.to_dtype(Dtype::Float64).unwrap();
    let l = f.logsumexp(&[1], false).unwrap().to_vec::<f64>().unwrap();
    assert!((l[0] - (3f64.exp() + 1f64.exp() + 2f64.exp()).ln()).abs() < 1e-12);
    assert_eq!(a.unsqueeze(0).unwrap().squeeze().shape().dims(), &[2, 3]);
    assert_eq!(
        a.transpose(0, 1)
            .unwrap()
            .flatten()
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        vec![3, 6, 1, 5, 2, 4]
    );
}

// Outside the generic test: its `DynTensor: From<Tensor<T>>` bound would capture these.
fn dyn_bool(t: Tensor<bool>) -> DynTensor {
    DynTensor::from(t)
}
fn dyn_i64(t: Tensor<i64>) -> DynTensor {
    DynTensor::from(t)
}

/// The shape, indexing, combining and linear-algebra forms dispatch to the typed ops: results
/// are bit-identical, for every dtype each op accepts.
fn agree_combine<T: NumElement>()
where
    DynTensor: From<Tensor<T>>,
{
    let vals: Vec<f64> = (0..12).map(|i| ((i * 5 % 12) as f64) * 0.5 - 2.0).collect();
    let t = tensor::<T>(&vals, &[3, 4]);
    let d = DynTensor::from(t.clone());
    let same = |a: &DynTensor, b: &Tensor<T>| {
        assert_eq!((a.dtype(), a.shape().dims()), (T::DTYPE, b.dims()));
        assert_eq!(bits_d(a), bits_t(b));
    };
    for (a, b) in d.split(&[1, 3], 1).unwrap().iter().zip(t.split(&[1, 3], 1)) {
        same(a, &b);
    }
    for (a, b) in d.chunk(2, 0).unwrap().iter().zip(t.chunk(2, 0)) {
        same(a, &b);
    }
    let sl = [Slice::from(1..), Slice::all().step(-2)];
    same(&d.slice(&sl).unwrap(), &t.slice(&sl).unwrap());
    same(&d.flip(&[0, 1]).unwrap(), &t.flip(&[0, 1]).unwrap());
    same(
        &d.broadcast_to([2, 3, 4]).unwrap(),
        &t.broadcast_to([2, 3, 4]).unwrap(),
    );
    same(&d.unsqueeze(0).unwrap().squeeze_dims(&[0]).unwrap(), &t);
    same(&d.expand_dims(-1).unwrap(), &t.expand_dims(-1).unwrap());
    same(&d.expand([2, 3, 4]).unwrap(), &t.expand([2, 3, 4]).unwrap());
    same(&d.transpose(0, 1).unwrap().ravel().unwrap(), &t.t().ravel());
    same(&d.diagonal(1).unwrap(), &t.diagonal(1).unwrap());
    same(&d.roll(5, -1).unwrap(), &t.roll(5, -1));
    same(&d.tile(&[2, 1]).unwrap(), &t.tile(&[2, 1]));
    same(&d.repeat(&[1, 2]).unwrap(), &t.repeat(&[1, 2]));
    same(
        &d.repeat_interleave(2, 0).unwrap(),
        &t.repeat_interleave(2, 0),
    );
    same(&d.tril(0).unwrap(), &t.tril(0));
    same(&d.triu(1).unwrap(), &t.triu(1));
    same(&d.diag(0).unwrap(), &t.diag(0));
    let row = t.narrow(0, 0, 1).unwrap().squeeze();
    let drow = DynTensor::from(row.clone());
    same(&drow.diag_embed().unwrap(), &row.diag_embed());
    same(
        &d.pad(&[(1, 0), (0, 2)], 7).unwrap(),
        &t.pad(&[(1, 0), (0, 2)], T::from_f64(7.0)),
    );
    let mask = t.gt_scalar(T::ZERO);
    same(
        &d.masked_fill(&dyn_bool(mask.clone()), 3.0).unwrap(),
        &t.masked_fill(&mask, T::from_f64(3.0)),
    );
    assert!(d.masked_fill(&d, 1).is_err(), "the mask must be Bool");
    assert_eq!(
        bits_d(&d.argsort(1, true).unwrap()),
        bits_t(&t.argsort(1, true))
    );
    let idx = Tensor::<i64>::from_vec(vec![2, 0, 2], [3]).unwrap();
    let didx = dyn_i64(idx.clone());
    same(&d.take(1, &didx).unwrap(), &t.take(1, &idx));
    let gi = Tensor::<i64>::from_vec(vec![0, 1, 2, 0], [1, 4]).unwrap();
    let src = t.narrow(0, 0, 1).unwrap().contiguous();
    same(
        &d.scatter_add(0, &dyn_i64(gi.clone()), &DynTensor::from(src.clone()))
            .unwrap(),
        &t.scatter_add(0, &gi, &src),
    );
    assert!(
        d.scatter_add(0, &dyn_i64(gi), &d.to_dtype(Dtype::Bool).unwrap())
            .is_err()
    );
    assert_eq!(
        bits_d(&d.var(&[1], 0, false).unwrap()),
        bits_t(&t.var(&[1], 0, false))
    );
    assert_eq!(
        bits_d(&d.std(&[0], 2, true).unwrap()),
        bits_t(&t.std(&[0], 2, true))
    );
    assert_eq!(
        bits_d(&d.norm(1.0, &[1], false).unwrap()),
        bits_t(&t.norm(1.0, &[1], false))
    );
    let tt = t.t().contiguous();
    let dt = DynTensor::from(tt.clone());
    same(
        &d.tensordot(&dt, &[1], &[0]).unwrap(),
        &t.tensordot(&tt, &[1], &[0]),
    );
    same(
        &d.tensor_product(&dt, &[1], &[0]).unwrap(),
        &t.tensor_product(&tt, &[1], &[0]),
    );
    same(&drow.dot(&drow).unwrap(), &row.dot(&row));
    same(&drow.outer(&drow).unwrap(), &row.outer(&row));
    assert!(d.dot(&d.to_dtype(Dtype::Float64).unwrap()).is_err() || T::DTYPE == Dtype::Float64);
    // Factorizations on a well-conditioned matrix (the identity plus a small perturbation).
    let sq: Vec<f64> = (0..9)
        .map(|i| if i % 4 == 0 { 4.0 } else { (i % 3) as f64 })
        .collect();
    let m = tensor::<T>(&sq, &[3, 3]);
    let dm = DynTensor::from(m.clone());
    assert_eq!(bits_d(&dm.inverse().unwrap()), bits_t(&m.inverse()));
    assert_eq!(bits_d(&dm.solve(&dm).unwrap()), bits_t(&m.solve(&m)));
    assert_eq!(bits_d(&dm.pinv().unwrap()), bits_t(&m.pinv()));
    let (u, s, vh) = dm.svd().unwrap();
    let (tu, ts, tvh) = m.svd();
    assert_eq!(
        (bits_d(&u), bits_d(&s), bits_d(&vh)),
        (bits_t(&tu), bits_t(&ts), bits_t(&tvh))
    );
    let sym = m.try_add(&m.t()).unwrap();
    let (w, v) = DynTensor::from(sym.clone()).eigh().unwrap();
    let (tw, tv) = sym.eigh();
    assert_eq!((bits_d(&w), bits_d(&v)), (bits_t(&tw), bits_t(&tv)));
}

#[test]
fn dynamic_combine_and_linalg_agree_with_typed() {
    for_types!(agree_combine: f32, f64, f16, bf16, i16, i32, i64, u8);
    let b = DynTensor::from_vec(vec![true, false, true, true], [2, 2], DeviceIndex::cpu()).unwrap();
    assert_eq!(
        b.flip(&[1]).unwrap().to_vec::<bool>().unwrap(),
        vec![false, true, true, true]
    );
    assert!(
        b.inverse().is_err() && b.dot(&b).is_err(),
        "bool has no linear algebra"
    );
}

/// The twenty-seventh session's typed ops through `DynTensor`: the orthogonal polynomials and
/// the `_ex` factorizations agree with the typed forms; non-float dtypes are refused.
#[test]
fn dyn_orthopoly_and_ex_forms() {
    let x = DynTensor::from_vec(vec![0.5f64, -0.25, 2.0], [3], DeviceIndex::cpu()).unwrap();
    let n = DynTensor::from_vec(vec![3.0f64], [1], DeviceIndex::cpu()).unwrap();
    let t = x
        .chebyshev_polynomial_t(&n)
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    assert_eq!(t, [-1.0, 0.6875, 26.0]);
    let p = x
        .legendre_polynomial_p(&n)
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    let typed = tensor![0.5f64, -0.25, 2.0].legendre_polynomial_p(&tensor![3.0f64]);
    assert_eq!(p, typed.to_vec());
    let i = DynTensor::from_vec(vec![1i32, 2], [2], DeviceIndex::cpu()).unwrap();
    let e = i.hermite_polynomial_h(&i).unwrap_err().to_string();
    assert!(
        e.contains("hermite_polynomial_h") && e.contains("float"),
        "{e}"
    );
    let n32 = n.to_dtype(Dtype::Float32).unwrap();
    assert!(x.laguerre_polynomial_l(&n32).is_err());
    let a = DynTensor::from_vec(
        vec![4.0f32, 2.0, 2.0, 3.0, 1.0, 2.0, 2.0, 1.0],
        [2, 2, 2],
        DeviceIndex::cpu(),
    );
    let (l, info) = a.unwrap().cholesky_ex(false).unwrap();
    assert_eq!(
        (l.dtype(), info.to_vec::<i32>().unwrap()),
        (Dtype::Float32, vec![0, 2])
    );
    let wide = i.reshape([1, 2]).unwrap().to_dtype(Dtype::Float64).unwrap();
    let e = wide.inv_ex().unwrap_err().to_string();
    assert!(e.contains("inv_ex") && e.contains("square"), "{e}");
}

/// `DynTensor`'s NN functions (`dynamic::nn`) and activation methods give the typed functions'
/// values and gradients bit for bit, in f32 and f64 chosen at run time, through a small
/// conv → pool → linear → cross-entropy network; mixed dtypes, integer inputs and non-Int64
/// targets are refused with the op's name.
#[test]
fn dynamic_nn_matches_typed() {
    use typed_tensor::dynamic::nn as dnn;
    use typed_tensor::nn;
    fn typed_net<T: FloatElement>(
        x: &Tensor<T>,
        w: &Tensor<T>,
        l: &Tensor<T>,
        target: &Tensor<i64>,
    ) -> Tensor<T> {
        let c = nn::conv2d(x, w, None, nn::Conv2dOptions::default()).unwrap();
        let h = nn::max_pool2d(&c.silu(), (2, 2), (2, 2), (0, 0)).unwrap();
        let h = h.try_reshape([2, 8]).unwrap().try_log_softmax(-1).unwrap();
        let z = nn::linear(&h, l, None)
            .unwrap()
            .try_leaky_relu(0.1)
            .unwrap();
        nn::cross_entropy(&z, target, nn::Reduction::Mean, 0.1).unwrap()
    }
    for dtype in [Dtype::Float32, Dtype::Float64] {
        let opts = TensorOptions::new().dtype(dtype).requires_grad(true);
        manual_seed(7);
        let x = DynTensor::randn([2, 2, 5, 5], opts).unwrap();
        let w = DynTensor::randn([2, 2, 2, 2], opts).unwrap();
        let l = DynTensor::randn([3, 8], opts).unwrap();
        let target = DynTensor::from_vec(vec![2i64, 0], [2], DeviceIndex::cpu()).unwrap();
        let c = dnn::conv2d(&x, &w, None, dnn::Conv2dOptions::default()).unwrap();
        let h = dnn::max_pool2d(&c.silu().unwrap(), (2, 2), (2, 2), (0, 0)).unwrap();
        let h = h.reshape([2, 8]).unwrap().log_softmax(-1).unwrap();
        let z = dnn::linear(&h, &l, None).unwrap().leaky_relu(0.1).unwrap();
        let loss = dnn::cross_entropy(&z, &target, dnn::Reduction::Mean, 0.1).unwrap();
        loss.backward().unwrap();
        let check = |want: Vec<f64>, got: &DynTensor| {
            let got = got
                .to_dtype(Dtype::Float64)
                .unwrap()
                .to_vec::<f64>()
                .unwrap();
            assert_eq!(got, want, "{dtype}");
        };
        macro_rules! against {
            ($t:ty) => {{
                let tx: Tensor<$t> = x.clone().downcast().unwrap();
                let tw: Tensor<$t> = w.clone().downcast().unwrap();
                let tl: Tensor<$t> = l.clone().downcast().unwrap();
                let [tx, tw, tl] =
                    [tx, tw, tl].map(|t| t.detach().with_requires_grad(true).unwrap());
                let tt: Tensor<i64> = target.clone().downcast().unwrap();
                let tloss = typed_net(&tx, &tw, &tl, &tt);
                tloss.backward();
                check(tloss.cast::<f64>().to_vec(), &loss);
                for (t, d) in [(&tx, &x), (&tw, &w), (&tl, &l)] {
                    check(
                        t.grad_tensor().unwrap().cast::<f64>().to_vec(),
                        &d.grad_tensor().unwrap(),
                    );
                }
            }};
        }
        if dtype == Dtype::Float32 {
            against!(f32)
        } else {
            against!(f64)
        }
    }
    let x = DynTensor::from(tensor![[1.0f32, 2.0], [3.0, 4.0]]);
    let w64 = DynTensor::from(tensor![[1.0f64, 0.0]]);
    let e = dnn::linear(&x, &w64, None).unwrap_err().to_string();
    assert!(e.contains("linear") && e.contains("Float64"), "{e}");
    let t32 = DynTensor::from(tensor![0i32, 1]);
    let e = dnn::cross_entropy(&x, &t32, dnn::Reduction::Sum, 0.0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("cross_entropy") && e.contains("Int64"), "{e}");
    let e = t32.softmax(0).unwrap_err().to_string();
    assert!(e.contains("softmax") && e.contains("float"), "{e}");
    let h = x.hardtanh(1.5, 3.5).unwrap().to_vec::<f32>().unwrap();
    assert_eq!(h, [1.5, 2.0, 3.0, 3.5]);
    let emb = dnn::embedding(&DynTensor::from(tensor![1i64, 1, 0]), &x).unwrap();
    assert_eq!(emb.to_vec::<f32>().unwrap(), [3.0, 4.0, 3.0, 4.0, 1.0, 2.0]);
    let ln = dnn::layer_norm(&x, &[2], None, None, 1e-5).unwrap();
    assert_eq!(
        ln.to_vec::<f32>().unwrap(),
        typed_tensor::nn::layer_norm(&tensor![[1.0f32, 2.0], [3.0, 4.0]], &[2], None, None, 1e-5)
            .unwrap()
            .to_vec()
    );
}

/// The logical and classification ops, NumPy's remaining routines and NumPy's ufunc names on
/// `DynTensor`, against NumPy's documented answers (integers are never inf and always finite;
/// `isclose` of integers compares values).
#[test]
fn dynamic_logic_and_numpy_names() {
    let cpu = DeviceIndex::cpu();
    let i = DynTensor::from_vec(vec![1i32, 0, 2], [3], cpu).unwrap();
    let j = DynTensor::from_vec(vec![1i32, 1, 0], [3], cpu).unwrap();
    let b = |d: DynTensor| d.to_vec::<bool>().unwrap();
    assert_eq!(b(i.logical_and(&j).unwrap()), [true, false, false]);
    assert_eq!(b(i.logical_or(&j).unwrap()), [true, true, true]);
    assert_eq!(b(i.logical_xor(&j).unwrap()), [false, true, true]);
    assert_eq!(b(i.logical_not().unwrap()), [false, true, false]);
    let f = DynTensor::from_vec(
        vec![1.0f32, f32::INFINITY, -f32::INFINITY, f32::NAN],
        [4],
        cpu,
    )
    .unwrap();
    assert_eq!(b(f.isinf().unwrap()), [false, true, true, false]);
    assert_eq!(b(f.isfinite().unwrap()), [true, false, false, false]);
    assert_eq!(b(i.isinf().unwrap()), [false; 3]);
    assert_eq!(b(i.isfinite().unwrap()), [true; 3]);
    let t = DynTensor::from_vec(vec![true, false], [2], cpu).unwrap();
    assert_eq!(
        (b(t.is_inf().unwrap()), b(t.is_finite().unwrap())),
        (vec![false; 2], vec![true; 2])
    );
    let k = DynTensor::from_vec(vec![1i32, 3, 2], [3], cpu).unwrap();
    assert_eq!(b(i.isclose(&k, 0.0, 0.5).unwrap()), [true, false, true]);
    assert!(i.allclose(&i, 0.0, 0.0).unwrap() && !i.allclose(&k, 0.0, 0.0).unwrap());
    assert!(t.isclose(&t, 0.0, 0.0).is_err() && i.isclose(&f, 0.0, 0.0).is_err());
    assert_eq!(
        b(f.isclose(&f, 0.0, 0.0).unwrap()),
        [true, true, true, false]
    );

    let x = DynTensor::from_vec(vec![10i64, 30, 20, 60, 40, 50], [2, 3], cpu).unwrap();
    let order = x.argsort(-1, false).unwrap();
    let sorted = x.take_along_axis(&order, Some(-1)).unwrap();
    assert_eq!(sorted.to_vec::<i64>().unwrap(), [10, 20, 30, 40, 50, 60]);
    let first = DynTensor::from_vec(vec![0i64, 2], [2, 1], cpu).unwrap();
    let zero = DynTensor::from_vec(vec![0i64, 0], [2, 1], cpu).unwrap();
    let put = x.put_along_axis(&first, &zero, Some(1)).unwrap();
    assert_eq!(put.to_vec::<i64>().unwrap(), [0, 30, 20, 60, 40, 0]);
    assert!(x.take_along_axis(&i, Some(0)).is_err(), "Int32 indices");
    assert_eq!(x.moveaxis(&[0], &[1]).unwrap().shape().dims(), [3, 2]);
    let w = DynTensor::from_vec(vec![1i64, 0, 1, 1, 0, 1], [2, 3], cpu).unwrap();
    let avg = x.average(&[1], Some(&w), false).unwrap();
    assert_eq!(
        (avg.dtype(), avg.to_vec::<f64>().unwrap()),
        (Dtype::Float64, vec![15.0, 55.0])
    );
    assert_eq!(
        x.ptp(&[1], false).unwrap().to_vec::<i64>().unwrap(),
        [20, 20]
    );
    assert_eq!(i.argwhere().unwrap().to_vec::<i64>().unwrap(), [0, 2]);
    assert_eq!(i.flatnonzero().unwrap().to_vec::<i64>().unwrap(), [0, 2]);
    let h = DynTensor::from_vec(vec![0.25f64, 4.0], [2], cpu).unwrap();
    assert_eq!(h.rsqrt().unwrap().to_vec::<f64>().unwrap(), [2.0, 0.5]);
    assert_eq!(
        h.logit(Some(0.5)).unwrap().to_vec::<f64>().unwrap(),
        [0.0, 0.0]
    );
    assert!(i.rsqrt().is_err());
    let same = |a: DynTensor, c: DynTensor| {
        let bits = |d: DynTensor| {
            let v = d.to_dtype(Dtype::Float64).unwrap().to_vec::<f64>().unwrap();
            v.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        };
        assert_eq!(bits(a), bits(c))
    };
    same(h.arccos().unwrap(), h.acos().unwrap());
    same(h.arctan2(&h).unwrap(), h.atan2(&h).unwrap());
    same(i.absolute().unwrap(), i.abs().unwrap());
    same(i.negative().unwrap(), i.neg().unwrap());
    same(x.subtract(&x).unwrap(), x.sub(&x).unwrap());
    same(x.greater(&put).unwrap(), x.gt(&put).unwrap());
    same(h.degrees().unwrap(), h.rad2deg().unwrap());
}
