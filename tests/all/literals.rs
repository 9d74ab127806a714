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

/// `s!` against NumPy's basic indexing (expected shapes and values printed by NumPy 2.4 for
/// `t = np.arange(60).reshape(3, 4, 5)`), on the typed and the dynamic tensor.
#[test]
fn s_macro_matches_numpy_basic_indexing() {
    let t = Tensor::<i64, Cpu>::arange(0, 60, 1)
        .unwrap()
        .try_reshape([3, 4, 5])
        .unwrap();
    let d = DynTensor::from(&t);
    let check = |what: &str, v: Result<Tensor<i64, Cpu>>, dims: &[usize], want: &[i64]| {
        let v = v.unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(v.dims(), dims, "{what}");
        assert_eq!(v.to_vec(), want, "{what}");
    };
    check(
        "t[:, 1:3, ::2]",
        t.slice(&s![.., 1..3, ..;2]),
        &[3, 2, 3],
        &[
            5, 7, 9, 10, 12, 14, 25, 27, 29, 30, 32, 34, 45, 47, 49, 50, 52, 54,
        ],
    );
    check(
        "t[-1, ::-1, 2]",
        t.slice(&s![-1, ..;-1, 2]),
        &[4],
        &[57, 52, 47, 42],
    );
    check(
        "t[None, 0, :, None, -2]",
        t.slice(&s![NewAxis, 0, .., NewAxis, -2]),
        &[1, 4, 1],
        &[3, 8, 13, 18],
    );
    check(
        "t[1:, -3:, 4:0:-2]",
        t.slice(&s![1.., -3.., 4..0;-2]),
        &[2, 3, 2],
        &[29, 27, 34, 32, 39, 37, 49, 47, 54, 52, 59, 57],
    );
    check("t[5:1]", t.slice(&s![5..1]), &[0, 4, 5], &[]);
    check("t[0, 0, 0]", t.slice(&s![0, 0, 0]), &[], &[0]);
    let want: Vec<i64> = (40..60).collect();
    check("t[2:100:3]", t.slice(&s![2..100;3]), &[1, 4, 5], &want);
    check(
        "t[::-1, 1]",
        t.slice(&s![..;-1, 1]),
        &[3, 5],
        &[45, 46, 47, 48, 49, 25, 26, 27, 28, 29, 5, 6, 7, 8, 9],
    );
    check(
        "t[:, :, -1]",
        t.slice(&s![.., .., -1]),
        &[3, 4],
        &[4, 9, 14, 19, 24, 29, 34, 39, 44, 49, 54, 59],
    );
    let want: Vec<i64> = (20..40).collect();
    check("t[1][None]", t.slice(&s![1, NewAxis]), &[1, 4, 5], &want);
    // Index variables of any integer type; inclusive ranges; the dynamic tensor agrees.
    let (i, j): (usize, i64) = (2, -2);
    check("t[2, -2]", t.slice(&s![i, j]), &[5], &[50, 51, 52, 53, 54]);
    check("t[0, 1:=2, 0]", t.slice(&s![0, 1..=2, 0]), &[2], &[5, 10]);
    let v = d.slice(&s![.., 1..3, ..;2]).unwrap();
    assert_eq!(v.shape().dims(), &[3, 2, 3]);
    assert_eq!(v.to_vec::<i64>().unwrap()[..3], [5, 7, 9]);
    // Views share storage: writing through one is seen by the tensor.
    let mut w = t.slice(&s![0, 0]).unwrap();
    w.fill_(-1).unwrap();
    assert_eq!(t.slice(&s![0, 0, ..2]).unwrap().to_vec(), vec![-1, -1]);
    // Errors: an index out of range, too many entries, a zero step.
    let e = t.slice(&s![3]).unwrap_err().to_string();
    assert!(
        e.contains("index 3 is out of range for dimension 0 of size 3"),
        "{e}"
    );
    assert!(t.slice(&s![-4]).is_err());
    assert!(t.slice(&s![0, 0, 0, 0]).is_err());
    assert!(t.slice(&s![NewAxis, 0, 0, 0, NewAxis]).is_ok());
    assert!(t.slice(&s![..;0]).is_err());
    assert!(d.slice(&s![i64::MIN]).is_err());
}

/// `iter()` reads every layout in row-major order; `axis_iter`/`rows` yield views.
#[test]
fn iteration_over_elements_and_axes() {
    let t = Tensor::<i32, Cpu>::arange(0, 24, 1)
        .unwrap()
        .try_reshape([2, 3, 4])
        .unwrap();
    let layouts = [
        t.clone(),
        t.permute(&[2, 0, 1]).unwrap(),
        t.slice(&s![..;-1, 1.., ..;3]).unwrap(),
        t.slice(&s![0, NewAxis]).unwrap().expand([5, 3, 4]).unwrap(),
        t.slice(&s![1, 2, 3]).unwrap(),
        t.slice(&s![1..1]).unwrap(),
    ];
    for v in &layouts {
        assert_eq!(v.iter().collect::<Vec<_>>(), v.to_vec(), "{:?}", v.dims());
        assert_eq!(v.iter().len(), v.numel());
        let mut sum = 0;
        for x in v {
            sum += x;
        }
        assert_eq!(sum, v.to_vec().iter().sum::<i32>());
    }
    // Sub-tensors along an axis are views, in order.
    let rows: Vec<_> = t.rows().collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1].dims(), &[3, 4]);
    assert!(rows[1].shares_storage_with(&t));
    let cols: Vec<Vec<i32>> = t.axis_iter(-1).map(|c| c.to_vec()).collect();
    assert_eq!(cols.len(), 4);
    assert_eq!(cols[1], vec![1, 5, 9, 13, 17, 21]);
    let flipped = t.flip(&[1]).unwrap();
    let mid: Vec<Vec<i32>> = flipped.axis_iter(1).map(|c| c.to_vec()).collect();
    assert_eq!(mid[0], t.slice(&s![.., 2]).unwrap().to_vec());
    assert_eq!(t.slice(&s![.., 0..0]).unwrap().axis_iter(1).count(), 0);
    // Errors: no axis 3, a 0-d tensor has no rows; a write borrow blocks reading.
    assert!(t.try_axis_iter(3).is_err());
    assert!(Tensor::<f32>::scalar(1.0).try_rows().is_err());
    let mut m = t.deep_copy();
    let shared = m.clone();
    let g = m.data_mut().unwrap();
    assert!(shared.try_iter().is_err());
    drop(g);
    assert!(shared.try_iter().is_ok());
}

/// The type-level promotion table agrees with the runtime one on all 81 pairs, is symmetric,
/// and gives PyTorch's `torch.result_type` on the documented cases.
#[test]
fn promotion_table_types_match_runtime() {
    use typed_tensor::dtype::Promote;
    macro_rules! row {
        ($l:ty; $($r:ty),*) => {$(
            let (l, r) = (<$l as Element>::DTYPE, <$r as Element>::DTYPE);
            assert_eq!(<<$l as Promote<$r>>::Output as Element>::DTYPE, Dtype::promote_types(l, r), "{l} with {r}");
            assert_eq!(Dtype::promote_types(l, r), Dtype::promote_types(r, l), "{l} with {r}");
        )*};
    }
    macro_rules! all {
        ($($l:ty),*) => {$( row!($l; f32, f64, f16, bf16, i16, i32, i64, u8, bool); )*};
    }
    all!(f32, f64, f16, bf16, i16, i32, i64, u8, bool);
    use Dtype::*;
    for (a, b, want) in [
        (Float32, Int32, Float32),
        (UInt8, Int16, Int16),
        (UInt8, Int64, Int64),
        (Float16, Bfloat16, Float32),
        (Int64, Float16, Float16),
        (Bfloat16, Int32, Bfloat16),
        (Bool, UInt8, UInt8),
        (Bool, Bool, Bool),
        (Float64, Bfloat16, Float64),
        (Int16, Int32, Int32),
    ] {
        assert_eq!(Dtype::promote_types(a, b), want, "{a} with {b}");
    }
}

#[test]
fn promoted_ops_convert_then_compute() {
    let i = tensor![1i32, 2, 3];
    let f = tensor![0.5f32, 0.5, 0.5];
    let s: Tensor<f32, Cpu> = i.add_promoted(&f);
    assert_eq!(s.to_vec(), vec![1.5, 2.5, 3.5]);
    let q: Tensor<f32, Cpu> = f.div_promoted(&i);
    assert_eq!(q.to_vec(), vec![0.5, 0.25, 0.5 / 3.0]);
    // u8 with i16 computes in i16: 250 + 10 does not wrap.
    let u = tensor![250u8, 0];
    let w: Tensor<i16, Cpu> = u.add_promoted(&tensor![10i16, -1]);
    assert_eq!(w.to_vec(), vec![260, -1]);
    // Broadcasting, comparisons, bool operands.
    let m = Tensor::<i64, Cpu>::from_vec(vec![1, 2, 3, 4], [2, 2]).unwrap();
    let h =
        Tensor::<f16, Cpu>::from_vec(vec![f16::from_f32(2.0), f16::from_f32(3.5)], [2]).unwrap();
    let c: Tensor<bool, Cpu> = m.lt_promoted(&h);
    assert_eq!(c.to_vec(), vec![true, true, false, false]);
    let p: Tensor<f16, Cpu> = m.mul_promoted(&h);
    assert_eq!(p.to_vec()[3], f16::from_f32(14.0));
    let b: Tensor<u8, Cpu> = tensor![true, false].add_promoted(&tensor![5u8, 5]);
    assert_eq!(b.to_vec(), vec![6, 5]);
    let e: Tensor<bool, Cpu> = tensor![true, false].eq_promoted(&tensor![1.0f64, 1.0]);
    assert_eq!(e.to_vec(), vec![true, false]);
    // Errors of the promoted op: shapes, integer division by zero.
    assert!(i.try_add_promoted(&tensor![1u8, 2]).is_err());
    assert!(i.try_div_promoted(&tensor![0i16, 1, 1]).is_err());
    // The operand that already has the type is shared, not copied.
    let (a, b) = typed_tensor::ops::promote(&f, &i).unwrap();
    assert!(a.shares_storage_with(&f));
    assert_eq!(b.to_vec(), vec![1.0, 2.0, 3.0]);
    // Gradients flow back through the casts to each operand's own dtype.
    let x = tensor![1.0f32, 2.0].with_requires_grad(true).unwrap();
    let y = tensor![3.0f64, 4.0].with_requires_grad(true).unwrap();
    let z: Tensor<f64, Cpu> = x.mul_promoted(&y);
    z.try_sum(&[], false).unwrap().backward();
    assert_eq!(x.grad_tensor().unwrap().to_vec(), vec![3.0f32, 4.0]);
    assert_eq!(y.grad_tensor().unwrap().to_vec(), vec![1.0f64, 2.0]);
    // DynTensor: the runtime table.
    let d = DynTensor::from(&i)
        .add_promoted(&DynTensor::from(&f))
        .unwrap();
    assert_eq!(d.dtype(), Dtype::Float32);
    assert_eq!(d.to_vec::<f32>().unwrap(), vec![1.5, 2.5, 3.5]);
    let d = DynTensor::from(&u)
        .gt_promoted(&DynTensor::from(&tensor![100i16, 100]))
        .unwrap();
    assert_eq!(d.to_vec::<bool>().unwrap(), vec![true, false]);
    assert!(
        DynTensor::from(&tensor![true])
            .add_promoted(&DynTensor::from(&tensor![false]))
            .is_err()
    );
}
