//! The composites of `ops/numeric.rs` and `ops/arrange.rs` and the searches of
//! `ops/search.rs`, against NumPy 2.4's and PyTorch 2.15's outputs (quoted), on every dtype
//! they take, on transposed and empty inputs, with their errors; each body runs on every
//! device. Their gradients are in the PyTorch fixture (`torch_grads.rs`).

use std::cmp::Ordering;
use typed_tensor::ops::arrange::Indexing;
use typed_tensor::prelude::*;

fn on<T: Element, D: Backend>(v: &[T], dims: &[usize], dev: &D) -> Tensor<T, D> {
    Tensor::from_vec_on(v.to_vec(), dims, dev).unwrap()
}

/// Bit-exact equality with NaN equal to NaN.
fn same<T: Element>(got: Vec<T>, want: &[T]) {
    let eq = |(a, b): (&T, &T)| a == b || (a.is_nan() && b.is_nan());
    assert!(
        got.len() == want.len() && got.iter().zip(want).all(eq),
        "{got:?} against {want:?}"
    );
}

#[test]
fn float_composites_match_numpy() {
    on_every_device!("float_composites_match_numpy", |dev| {
        let (inf, nan) = (f64::INFINITY, f64::NAN);
        let a = on(&[0.0, 1.0, -inf, inf, inf, nan, 1000.0, -40.0], &[8], &dev);
        let b = on(&[0.0, 2.0, -inf, inf, -inf, 1.0, 999.0, 0.0], &[8], &dev);
        // np.logaddexp
        let want = [
            std::f64::consts::LN_2,
            2.313261687518223,
            -inf,
            inf,
            inf,
            nan,
            1000.3132616875182,
            4.248354255291589e-18,
        ];
        same(a.logaddexp(&b).to_vec(), &want);
        // torch.lerp(a, b, 0.25)
        same(
            a.lerp(&b, 0.25).to_vec(),
            &[0.0, 1.25, nan, nan, nan, nan, 999.75, -30.0],
        );
        let f = on(
            &[f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1.5],
            &[4],
            &dev,
        );
        same(
            f.nan_to_num(0.0, None, None).to_vec(),
            &[0.0, f32::MAX, f32::MIN, 1.5],
        );
        same(
            f.nan_to_num(-1.0, Some(7.0), Some(-7.0)).to_vec(),
            &[-1.0, 7.0, -7.0, 1.5],
        );
        let h = f.cast::<f16>().nan_to_num(f16::ZERO, None, None);
        same(
            h.to_vec(),
            &[f16::ZERO, f16::MAX, f16::MIN, f16::from_f32(1.5)],
        );
        // np.quantile over both axes of a (2, 4) matrix and of its transposed view.
        let q = on(&[3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0], &[2, 4], &dev);
        let cases: [(f64, [f64; 2], [f64; 4]); 3] = [
            (0.1, [1.0, 2.9000000000000004], [3.2, 1.8, 2.2, 1.5]),
            (0.5, [2.0, 5.5], [4.0, 5.0, 3.0, 3.5]),
            (0.9, [3.7, 8.100000000000001], [4.8, 8.2, 3.8, 5.5]),
        ];
        for (p, rows, cols) in cases {
            let close = |got: Vec<f64>, want: &[f64]| {
                assert!(
                    got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-12),
                    "{got:?}"
                )
            };
            close(q.quantile(p, 1, false).to_vec(), &rows);
            close(q.quantile(p, 0, false).to_vec(), &cols);
            close(q.t().quantile(p, 0, false).to_vec(), &rows);
            assert_eq!(q.quantile(p, 0, true).dims(), &[1, 4]);
        }
        let qn = on(&[3.0, nan, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0], &[2, 4], &dev);
        same(qn.quantile(0.5, 1, false).to_vec(), &[nan, 5.5]);
        // torch.median: the lower middle, NaN (and its first index) where a row has one.
        let (m, i) = qn.median(1, false);
        same(m.to_vec(), &[nan, 5.0]);
        assert_eq!(i.to_vec(), vec![1, 0]);
        assert!(q.try_quantile(1.5, 0, false).is_err());
        assert!(q.try_quantile(f64::NAN, 0, false).is_err());
        let empty = Tensor::<f64, _>::zeros_on([2, 0], &dev).unwrap();
        assert!(matches!(
            empty.try_quantile(0.5, 1, false),
            Err(Error::EmptyReduction { op: "quantile", .. })
        ));
        assert_eq!(empty.quantile(0.5, 0, false).dims(), &[0]);
        assert!(empty.try_median(-1, false).is_err());
        // Inputs are unchanged.
        same(qn.to_vec(), &[3.0, nan, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]);
    });
}

fn integer_composites<T: NumElement, D: Backend>(dev: &D) {
    let v = |x: &[i64]| x.iter().map(|&x| T::from_i64(x)).collect::<Vec<T>>();
    let x = on(&v(&[5, 3, 3, 1, 7, 3]), &[6], dev);
    // torch.median([5, 3, 3, 1, 7, 3]) = 3 at index 2; np.diff(x, 2)
    let (m, i) = x.median(0, false);
    assert_eq!((m.to_vec(), i.to_vec()), (v(&[3]), vec![2]));
    let d = x.diff(2, 0).to_vec();
    if T::DTYPE != Dtype::UInt8 {
        assert_eq!(d, v(&[2, -2, 8, -10]));
    }
    assert_eq!(x.diff(10, 0).dims(), &[0]);
    assert_eq!(x.diff(0, 0).to_vec(), x.to_vec());
    // np.kron([1, 2, 3], [[1, 2], [3, 4]]) and its transposed right operand
    let k = on(&v(&[1, 2, 3]), &[3], dev).kron(&on(&v(&[1, 2, 3, 4]), &[2, 2], dev));
    assert_eq!(k.dims(), &[2, 6]);
    assert_eq!(k.to_vec(), v(&[1, 2, 2, 4, 3, 6, 3, 4, 6, 8, 9, 12]));
    let kt = on(&v(&[1, 2]), &[2], dev).kron(&on(&v(&[1, 2, 3, 4]), &[2, 2], dev).t());
    assert_eq!(kt.to_vec(), v(&[1, 3, 2, 6, 2, 4, 4, 8]));
    // torch.trace of (2, 3), as i64 for integers
    let m23 = on(&v(&[1, 2, 3, 4, 5, 6]), &[2, 3], dev);
    assert_eq!(m23.trace().cast::<f64>().to_vec(), vec![6.0]);
    assert!(on(&v(&[1]), &[1], dev).try_trace().is_err());
    // np.cross of (2, 3) with a broadcast (3,)
    let c = on(&v(&[1, 2, 3, 4, 5, 6]), &[2, 3], dev).cross(&on(&v(&[7, 8, 9]), &[3], dev), -1);
    if T::DTYPE != Dtype::UInt8 {
        assert_eq!(c.to_vec(), v(&[-6, 12, -6, -3, 6, -3]));
    }
    assert!(m23.t().try_cross(&m23.t(), 1).is_err()); // length 2
    let ct = m23.t().cross(&m23.t(), 0); // columns (1, 4) x (1, 4) = 0
    assert_eq!(ct.count_nonzero(&[], false).to_vec(), vec![0]);
    assert_eq!(x.count_nonzero(&[], false).to_vec(), vec![6]);
}

#[test]
fn integer_composites_every_dtype() {
    on_every_device!("integer_composites_every_dtype", |dev| {
        for_types!(integer_composites(&dev): f32, f64, f16, bf16, i16, i32, i64, u8; _);
    });
}

#[test]
fn rearrangements_match_numpy() {
    on_every_device!("rearrangements_match_numpy", |dev| {
        let t = Tensor::<i32>::arange(0, 24, 1).unwrap().reshape([2, 3, 4]);
        let t = t.to_device(&dev).unwrap();
        // np.moveaxis(t, [0, 1], [2, 0])
        let mv = t.movedim(&[0, 1], &[2, 0]).unwrap();
        assert_eq!(mv.dims(), &[3, 4, 2]);
        assert_eq!(mv.to_vec()[..6], [0, 12, 1, 13, 2, 14]);
        assert_eq!(t.movedim(&[-1], &[0]).unwrap().dims(), &[4, 2, 3]);
        assert!(t.movedim(&[0, 0], &[1, 2]).is_err());
        assert!(t.movedim(&[0], &[1, 2]).is_err());
        assert!(t.movedim(&[3], &[0]).is_err());
        // np.meshgrid (xy) and torch.meshgrid (ij)
        let (x, y) = (on(&[1, 2, 3], &[3], &dev), on(&[4, 5], &[2], &dev));
        let g = Tensor::meshgrid(&[&x, &y], Indexing::Xy).unwrap();
        assert_eq!(g[0].dims(), &[2, 3]);
        assert_eq!(g[0].to_vec(), vec![1, 2, 3, 1, 2, 3]);
        assert_eq!(g[1].to_vec(), vec![4, 4, 4, 5, 5, 5]);
        let g = Tensor::meshgrid(&[&x, &y], Indexing::Ij).unwrap();
        assert_eq!(g[0].to_vec(), vec![1, 1, 2, 2, 3, 3]);
        assert!(Tensor::meshgrid(&[&t], Indexing::Ij).is_err());
        let b = Tensor::broadcast_tensors(&[&x.reshape([3, 1]), &y]).unwrap();
        assert_eq!(
            (b[0].dims(), b[1].to_vec()),
            (&[3, 2][..], vec![4, 5, 4, 5, 4, 5])
        );
        assert!(Tensor::broadcast_tensors(&[&x, &y]).is_err());
    });
}

#[test]
fn broadcast_of_nothing_is_nothing() {
    let none: &[&Tensor<i32>] = &[];
    assert!(Tensor::broadcast_tensors(none).unwrap().is_empty());
    assert!(Tensor::meshgrid(none, Indexing::Xy).unwrap().is_empty());
}

#[test]
fn searches_match_numpy() {
    on_every_device!("searches_match_numpy", |dev| {
        let (inf, nan) = (f64::INFINITY, f64::NAN);
        // np.argwhere; -0.0 is zero, NaN is not
        let nz = on(&[0.0f32, -0.0, f32::NAN, 1.0], &[2, 2], &dev).nonzero();
        assert_eq!((nz.dims(), nz.to_vec()), (&[2, 2][..], vec![1, 0, 1, 1]));
        let nzt = on(&[0, 1, 2, 0], &[2, 2], &dev).t().nonzero();
        assert_eq!(nzt.to_vec(), vec![0, 1, 1, 0]);
        assert_eq!(
            Tensor::scalar_on(true, &dev).unwrap().nonzero().dims(),
            &[1, 0]
        );
        assert_eq!(on::<u8, _>(&[], &[0, 3], &dev).nonzero().dims(), &[0, 2]);
        // np.unique(return_inverse, return_counts): NaNs collapse and sort last
        let u = on(&[2.0, nan, -0.0, 0.0, nan, 2.0, -inf], &[7], &dev);
        let (v, inv, cnt) = u.unique();
        same(v.to_vec(), &[-inf, -0.0, 2.0, nan]);
        assert_eq!(inv.to_vec(), vec![2, 3, 1, 1, 3, 2, 0]);
        assert_eq!(cnt.to_vec(), vec![1, 2, 2, 2]);
        let (v, inv, _) = on(&[true, false, true, true], &[2, 2], &dev).unique();
        assert_eq!((v.to_vec(), inv.dims()), (vec![false, true], &[2, 2][..]));
        // np.searchsorted with side='left' and 'right'
        let s = on(&[1.0, 2.0, 2.0, 3.0, nan], &[5], &dev);
        let q = on(&[0.0, 2.0, 2.5, 3.0, 10.0, nan, -inf], &[7], &dev);
        assert_eq!(
            s.searchsorted(&q, false).to_vec(),
            vec![0, 1, 3, 3, 4, 4, 0]
        );
        assert_eq!(s.searchsorted(&q, true).to_vec(), vec![0, 3, 3, 4, 4, 5, 0]);
        let q2 = q.narrow(0, 0, 6).unwrap().reshape([2, 3]);
        assert_eq!(s.searchsorted(&q2, false).dims(), &[2, 3]);
        assert!(q2.try_searchsorted(&s, false).is_err());
        // np.isin: NaN is never found
        assert_eq!(
            q.isin(&s).to_vec(),
            vec![false, true, false, true, false, false, false]
        );
        // np.bincount
        let c = on(&[1i64, 1, 3], &[3], &dev);
        assert_eq!(c.bincount(0).to_vec(), vec![0, 2, 0, 1]);
        assert_eq!(c.bincount(6).to_vec(), vec![0, 2, 0, 1, 0, 0]);
        assert_eq!(
            on::<i64, _>(&[], &[0], &dev).bincount(2).to_vec(),
            vec![0, 0]
        );
        assert!(on(&[0i64, -1], &[2], &dev).try_bincount(0).is_err());
        assert!(matches!(
            on(&[i64::MAX], &[1], &dev).try_bincount(0),
            Err(Error::OutOfMemory { op: "bincount", .. })
        ));
        assert!(c.reshape([3, 1]).try_bincount(0).is_err());
    });
}

fn einsum_cases<T: NumElement, D: Backend>(dev: &D) {
    let seq = |n: usize, dims: &[usize]| {
        let v: Vec<T> = (0..n as i64).map(|i| T::from_i64(i % 7 - 3)).collect();
        on(&v, dims, dev)
    };
    let (a, b) = (seq(6, &[2, 3]), seq(12, &[3, 4]));
    let same = |x: Tensor<T, D>, y: Tensor<T, D>| {
        assert_eq!(x.dims(), y.dims());
        assert_eq!(x.cast::<f64>().to_vec(), y.cast::<f64>().to_vec());
    };
    same(
        Tensor::einsum("ij,jk->ik", &[&a, &b]).unwrap(),
        a.matmul(&b),
    );
    same(Tensor::einsum("ij, jk", &[&a, &b]).unwrap(), a.matmul(&b));
    same(
        Tensor::einsum("ji,jk->ik", &[&a.t(), &b]).unwrap(),
        a.matmul(&b),
    );
    same(Tensor::einsum("ij->ji", &[&a]).unwrap(), a.t().contiguous());
    let m = seq(9, &[3, 3]);
    let tr = Tensor::einsum("ii", &[&m]).unwrap();
    // einsum keeps the dtype (u8 wraps, as in NumPy); trace widens integers to i64.
    assert_eq!(
        tr.cast::<f64>().to_vec(),
        m.trace().cast::<T>().cast::<f64>().to_vec()
    );
    same(
        Tensor::einsum("ii->i", &[&m]).unwrap(),
        m.diagonal(0).unwrap().contiguous(),
    );
    // Batched with broadcast ellipsis: (5, 2, 3) · (3, 4) → (5, 2, 4)
    let batch = seq(30, &[5, 2, 3]);
    let r = Tensor::einsum("...ij,...jk->...ik", &[&batch, &b]).unwrap();
    same(r, batch.matmul(&b));
    // Outer product, a three-operand chain and a sum to 0-d.
    let (u, v) = (seq(3, &[3]), seq(2, &[2]));
    same(Tensor::einsum("i,j->ij", &[&u, &v]).unwrap(), u.outer(&v));
    let c = seq(8, &[4, 2]);
    same(
        Tensor::einsum("ij,jk,kl->il", &[&a, &b, &c]).unwrap(),
        a.matmul(&b).matmul(&c),
    );
    assert_eq!(
        Tensor::einsum("ij->", &[&a]).unwrap().dims(),
        &[] as &[usize]
    );
    // Errors name einsum.
    let err = |r: Result<Tensor<T, D>>| match r {
        Err(
            Error::InvalidArgument { op: "einsum", .. } | Error::ShapeMismatch { op: "einsum", .. },
        ) => {}
        other => panic!("{:?}", other.map(|t| t.dims().to_vec())),
    };
    err(Tensor::einsum("ij,jk->ik", &[&a]));
    err(Tensor::einsum("ijk,jk->ik", &[&a, &b]));
    err(Tensor::einsum("ij,jk->iz", &[&a, &b]));
    err(Tensor::einsum("ij,jk->ii", &[&a, &b]));
    err(Tensor::einsum("i1,jk", &[&a, &b]));
    err(Tensor::einsum("ij,ij->i", &[&a, &b]));
    err(Tensor::einsum("ii", &[&a]));
}

#[test]
fn einsum_matches_the_products_it_names() {
    on_every_device!("einsum_matches_the_products_it_names", |dev| {
        for_types!(einsum_cases(&dev): f32, f64, f16, bf16, i16, i32, i64, u8; _);
    });
}

#[test]
fn dyn_tensor_forms_of_the_new_ops() {
    let cpu = DeviceIndex::cpu();
    let x = DynTensor::from_vec(vec![3.0, 1.0, 2.0, 1.0], [2, 2], cpu).unwrap();
    let e = DynTensor::einsum("ij,jk->ik", &[&x, &x]).unwrap();
    assert_eq!(e.to_vec::<f64>().unwrap(), vec![11.0, 4.0, 8.0, 3.0]);
    let i = x.to_dtype(Dtype::Int32).unwrap();
    assert!(DynTensor::einsum("ij,jk->ik", &[&x, &i]).is_err()); // mixed dtypes
    assert!(DynTensor::einsum("i", &[]).is_err());
    assert_eq!(i.trace().unwrap().dtype(), Dtype::Int64);
    assert!(i.quantile(0.5, 0, false).is_err()); // floats only, as PyTorch
    assert_eq!(
        x.quantile(0.5, 1, false).unwrap().to_vec::<f64>().unwrap(),
        vec![2.0, 1.5]
    );
    assert_eq!(i.nan_to_num(0.0, None, None).unwrap().dtype(), Dtype::Int32);
    assert!(i.logaddexp(&i).is_err());
    let (v, _, c) = i.unique().unwrap();
    assert_eq!(
        (v.to_vec::<i32>().unwrap(), c.to_vec::<i64>().unwrap()),
        (vec![1, 2, 3], vec![2, 1, 1])
    );
    assert!(x.bincount(0).is_err());
    let b = DynTensor::from_vec(vec![2i64, 0], [2], cpu).unwrap();
    assert_eq!(
        b.bincount(0).unwrap().to_vec::<i64>().unwrap(),
        vec![1, 0, 1]
    );
    assert!(x.isin(&i).is_err());
    assert_eq!(x.nonzero().unwrap().shape().dims(), &[4, 2]);
    assert_eq!(i.diff(1, 1).unwrap().to_vec::<i32>().unwrap(), vec![-2, -1]);
    let v = DynTensor::vstack(&[&x, &x]).unwrap();
    assert_eq!(v.shape().dims(), &[4, 2]);
    assert!(DynTensor::hstack(&[&x, &i]).is_err()); // mixed dtypes
    assert!(DynTensor::dstack(&[]).is_err());
    assert_eq!(
        DynTensor::block_diag(&[&x, &x]).unwrap().shape().dims(),
        &[4, 4]
    );
    assert_eq!(
        x.rot90(1, (0, 1)).unwrap().to_vec::<f64>().unwrap(),
        vec![1.0, 1.0, 3.0, 2.0]
    );
    assert!(i.cov(1).is_err());
    assert_eq!(x.corrcoef().unwrap().shape().dims(), &[2, 2]);
    let bool_t = x.gt(&x).unwrap();
    assert!(bool_t.diff(1, 0).is_err() && bool_t.median(0, false).is_err());
}

#[test]
fn stacking_rotation_and_statistics_match_numpy() {
    on_every_device!("stacking_rotation_and_statistics_match_numpy", |dev| {
        let m = on(&[0, 1, 2, 3, 4, 5], &[2, 3], &dev);
        // np.rot90 with k = 1, 2, 3 and -1
        let r1 = m.rot90(1, (0, 1)).unwrap();
        assert_eq!(
            (r1.dims(), r1.to_vec()),
            (&[3, 2][..], vec![2, 5, 1, 4, 0, 3])
        );
        assert_eq!(m.rot90(2, (0, 1)).unwrap().to_vec(), vec![5, 4, 3, 2, 1, 0]);
        assert_eq!(m.rot90(3, (0, 1)).unwrap().to_vec(), vec![3, 0, 4, 1, 5, 2]);
        assert_eq!(
            m.rot90(-1, (0, 1)).unwrap().to_vec(),
            vec![3, 0, 4, 1, 5, 2]
        );
        assert!(m.rot90(1, (0, -2)).is_err());
        // np.vstack / hstack / dstack
        let (a, b) = (on(&[1, 2], &[2], &dev), on(&[3, 4], &[1, 2], &dev));
        assert_eq!(Tensor::vstack(&[&a, &b]).to_vec(), vec![1, 2, 3, 4]);
        assert_eq!(
            Tensor::hstack(&[&a, &on(&[3], &[1], &dev)]).to_vec(),
            vec![1, 2, 3]
        );
        let h = Tensor::hstack(&[&on(&[1, 1], &[2, 1], &dev), &on(&[0; 4], &[2, 2], &dev)]);
        assert_eq!(
            (h.dims(), h.to_vec()),
            (&[2, 3][..], vec![1, 0, 0, 1, 0, 0])
        );
        let d = Tensor::dstack(&[&a, &on(&[3, 4], &[2], &dev)]);
        assert_eq!((d.dims(), d.to_vec()), (&[1, 2, 2][..], vec![1, 3, 2, 4]));
        let none: Vec<&Tensor<i32, _>> = vec![&a; 0];
        assert!(Tensor::try_vstack(&none).is_err());
        // torch.block_diag and torch.cartesian_prod
        let bd = Tensor::try_block_diag(&[
            &a.reshape([1, 2]),
            &Tensor::scalar_on(3, &dev).unwrap(),
            &on(&[4, 5], &[2, 1], &dev),
        ])
        .unwrap();
        assert_eq!(bd.dims(), &[4, 4]);
        assert_eq!(
            bd.to_vec(),
            vec![1, 2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 4, 0, 0, 0, 5]
        );
        let cp = Tensor::try_cartesian_prod(&[&a, &on(&[3, 4, 5], &[3], &dev)]).unwrap();
        assert_eq!(cp.to_vec(), vec![1, 3, 1, 4, 1, 5, 2, 3, 2, 4, 2, 5]);
        assert!(Tensor::try_cartesian_prod(&[&m]).is_err());
        // np.cov (ddof 1 and 0) and np.corrcoef of three variables, and of one.
        let x = on(
            &[1.0, 2.0, 4.0, 2.0, 1.0, 0.0, 3.0, 5.0, -1.0],
            &[3, 3],
            &dev,
        );
        let near = |got: Vec<f64>, want: &[f64]| {
            assert!(
                got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-12),
                "{got:?}"
            );
        };
        let cov = [
            2.3333333333333335,
            -1.5,
            -3.6666666666666665,
            -1.5,
            1.0,
            2.0,
            -3.6666666666666665,
            2.0,
            9.333333333333334,
        ];
        near(x.cov(1).to_vec(), &cov);
        near(
            x.t().contiguous().t().cov(0).to_vec()[..2].to_vec(),
            &[1.5555555555555556, -1.0],
        );
        let corr = [
            1.0,
            -0.9819805060619656,
            -0.7857142857142855,
            -0.9819805060619656,
            1.0,
            0.6546536707079771,
            -0.7857142857142855,
            0.6546536707079771,
            1.0,
        ];
        near(x.corrcoef().to_vec(), &corr);
        let v = on(&[1.0, 2.0, 4.0], &[3], &dev);
        assert_eq!(v.cov(1).dims(), &[] as &[usize]);
        near(v.cov(1).to_vec(), &[2.3333333333333335]);
        near(v.corrcoef().to_vec(), &[1.0]);
        assert!(on(&[1.0; 8], &[2, 2, 2], &dev).try_cov(1).is_err());
    });
}

#[test]
fn cov_corrcoef_block_diag_and_rot90_differentiate() {
    use typed_tensor::autograd::gradcheck;
    let x = Tensor::<f64>::from_vec(
        vec![1.0, 2.0, 4.0, 2.0, 1.5, 0.0, 3.0, 5.0, -1.0, 0.5, 0.2, 0.9],
        [3, 4],
    )
    .unwrap();
    gradcheck(|v| v[0].try_cov(1), &[x.clone()], 1e-6, 1e-6).unwrap();
    gradcheck(|v| v[0].try_corrcoef(), &[x.clone()], 1e-6, 1e-6).unwrap();
    gradcheck(|v| v[0].t().rot90(3, (0, 1)), &[x.clone()], 1e-6, 1e-6).unwrap();
    gradcheck(
        |v| Tensor::try_block_diag(&[&v[0], &v[0].narrow(0, 1, 2)?]),
        &[x.clone()],
        1e-6,
        1e-6,
    )
    .unwrap();
    gradcheck(
        |v| Tensor::try_hstack(&[&v[0], &v[0].t().narrow(0, 0, 3)?]),
        &[x],
        1e-6,
        1e-6,
    )
    .unwrap();
}

/// `unique` and `searchsorted` on inputs large enough for their threaded sort and search,
/// against direct references: a value's rank among the distinct values, its count, and the
/// insertion points by counting (left and right), with repeats, ±0 (the first occurrence
/// stands for both) and NaNs (one, last).
#[test]
fn unique_and_searchsorted_at_scale_match_counting_references() {
    let mut seed = 3u64;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as f64 / (1u64 << 31) as f64
    };
    let n = 20_011;
    let mut v: Vec<f32> = (0..n)
        .map(|_| (((next() * 900.0).floor() - 450.0) / 4.0) as f32)
        .collect();
    v[17] = -0.0;
    v[n - 3] = f32::NAN;
    v[40] = f32::NAN;
    let x = Tensor::from_vec(v.clone(), [n]).unwrap();
    let (values, inverse, counts) = x.unique();
    let (values, inverse, counts) = (values.to_vec(), inverse.to_vec(), counts.to_vec());
    let mut want: Vec<f32> = v.iter().copied().filter(|x| !x.is_nan()).collect();
    want.sort_by(|a, b| a.partial_cmp(b).unwrap());
    want.dedup_by(|a, b| a == b);
    // The first occurrence of 0 or -0 in the input is the one kept.
    let zero = *v.iter().find(|x| **x == 0.0).unwrap();
    for w in want.iter_mut().filter(|w| **w == 0.0) {
        *w = zero;
    }
    assert_eq!(values.len(), want.len() + 1);
    for (g, w) in values.iter().zip(&want) {
        assert_eq!(g.to_bits(), w.to_bits());
    }
    assert!(values.last().unwrap().is_nan());
    for (i, x) in v.iter().enumerate() {
        let k = inverse[i] as usize;
        assert!(
            values[k] == *x || x.is_nan() && values[k].is_nan(),
            "inverse at {i}"
        );
    }
    for (k, u) in values.iter().enumerate() {
        let c = v
            .iter()
            .filter(|x| *x == u || x.is_nan() && u.is_nan())
            .count();
        assert_eq!(counts[k], c as i64, "count of {u}");
    }
    // The distinct values as the sorted sequence (NaN last), searched for every input.
    let seq = Tensor::from_vec(values.clone(), [values.len()]).unwrap();
    let finite = &values[..values.len() - 1];
    for right in [false, true] {
        let at = seq.searchsorted(&x, right).to_vec();
        for (i, q) in v.iter().enumerate() {
            let want = if q.is_nan() {
                finite.len() + usize::from(right)
            } else {
                finite.iter().filter(|s| *s < q || right && *s == q).count()
            };
            assert_eq!(at[i], want as i64, "searchsorted({q}, right = {right})");
        }
    }
}

/// `nonzero` of 1-d to 4-d tensors and a permuted view, against the coordinates of each
/// nonzero element in row-major order (NaN counts, ±0 does not).
#[test]
fn nonzero_coordinates_match_row_major_order() {
    let mut seed = 9u64;
    // Small and large (several threads' blocks, rows crossing them), 0-d and empty.
    let shapes = [
        &[37][..],
        &[5, 1],
        &[7, 13, 29],
        &[2, 3, 1, 5],
        &[4, 0, 3],
        &[],
    ];
    for dims in shapes
        .into_iter()
        .chain([&[300, 301][..], &[3, 40_000], &[2, 3, 7001]])
    {
        let n: usize = dims.iter().product();
        let v: Vec<f32> = (0..n)
            .map(|i| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                match (seed >> 60, i % 11) {
                    (_, 3) => -0.0,
                    (_, 5) => f32::NAN,
                    (0..=7, _) => 0.0,
                    _ => 1.5,
                }
            })
            .collect();
        let x = Tensor::from_vec(v, dims).unwrap();
        for t in [
            x.clone(),
            x.permute(&(0..dims.len() as i64).rev().collect::<Vec<_>>())
                .unwrap(),
        ] {
            let (vals, d) = (t.to_vec(), t.dims().to_vec());
            let mut want = Vec::new();
            for (i, v) in vals.iter().enumerate() {
                if *v != 0.0 {
                    let mut rest = i;
                    let mut c = vec![0i64; d.len()];
                    for a in (0..d.len()).rev() {
                        c[a] = (rest % d[a]) as i64;
                        rest /= d[a];
                    }
                    want.extend(c);
                }
            }
            let got = t.nonzero();
            let k = vals.iter().filter(|&&v| v != 0.0).count();
            assert_eq!(got.dims(), &[k, d.len()], "{d:?}");
            assert_eq!(got.to_vec(), want, "{d:?}");
            // The same coordinates from a bool mask and an integer tensor.
            let mask = t.ne_scalar(0.0);
            assert_eq!(mask.nonzero().to_vec(), want, "{d:?}");
            assert_eq!(mask.cast::<i16>().nonzero().to_vec(), want, "{d:?}");
        }
    }
}

/// `median`, `kthvalue` and `nanmedian` (one selection per row on the CPU) against a stable
/// sort of each slice with NaN last and -0 equal to +0: the value and the index the sort's
/// rank names, on slices of odd and even length with many ties, ±0 and NaNs (some slices all
/// NaN), over the last, first and middle axes (strided), in every dtype they take.
#[test]
fn order_statistics_match_a_stable_sort() {
    const SHAPES: [&[usize]; 3] = [&[37, 301], &[36, 300], &[6, 7, 43]];
    fn data<T: NumElement, D: Backend>(dims: &[usize], dev: &D) -> Tensor<T, D> {
        let last = dims[dims.len() - 1];
        let v = (0..dims.iter().product::<usize>()).map(|i| {
            let a = ((i * 7919) % 23) as f64 - 11.0;
            let a = if a == 0.0 && i % 2 == 1 { -0.0 } else { a };
            let nan = T::DTYPE.is_float() && (i % 97 == 3 || (i / last) % 5 == 2);
            T::from_f64(if nan { f64::NAN } else { a })
        });
        Tensor::from_vec_on(v.collect(), dims, dev).unwrap()
    }
    /// The slices along `axis` (in the order of the results' elements) and each one's
    /// positions in stable sorted order.
    type Slices<T> = Vec<(Vec<T>, Vec<usize>)>;
    fn slices<T: NumElement, D: Backend>(x: &Tensor<T, D>, axis: usize) -> Slices<T> {
        let mut perm: Vec<i64> = (0..x.ndim() as i64).filter(|&a| a != axis as i64).collect();
        perm.push(axis as i64);
        let moved = x.permute(&perm).unwrap().to_device(&Cpu).unwrap().to_vec();
        let len = x.dims()[axis];
        let key = |v: T| (v.is_nan(), v.to_f64());
        (moved.chunks(len))
            .map(|r| {
                let mut p: Vec<usize> = (0..len).collect();
                p.sort_by(|&a, &b| key(r[a]).partial_cmp(&key(r[b])).unwrap_or(Ordering::Equal));
                (r.to_vec(), p)
            })
            .collect()
    }
    #[track_caller]
    fn check<T: NumElement, D: Backend>(
        name: &str,
        (val, idx): (Tensor<T, D>, Tensor<i64, D>),
        slices: &Slices<T>,
        rank: &dyn Fn(&[T]) -> usize,
    ) {
        let (val, idx) = (
            val.to_device(&Cpu).unwrap().to_vec(),
            idx.to_device(&Cpu).unwrap().to_vec(),
        );
        for (r, (row, order)) in slices.iter().enumerate() {
            let want = order[rank(row)];
            assert_eq!(idx[r], want as i64, "{name} of {:?}, slice {r}", T::DTYPE);
            let (g, w) = (val[r].to_f64(), row[want].to_f64());
            assert!(
                g.to_bits() == w.to_bits() || g.is_nan() && w.is_nan(),
                "{name}: {g} != {w}"
            );
        }
    }
    fn nans<T: NumElement>(row: &[T]) -> usize {
        row.iter().filter(|v| v.is_nan()).count()
    }
    fn run<T: NumElement, D: Backend>(dev: &D) {
        for dims in SHAPES {
            let x = data::<T, D>(dims, dev);
            for (axis, &len) in dims.iter().enumerate() {
                let s = slices(&x, axis);
                let ax = axis as i64;
                let median = |r: &[T]| match nans(r) {
                    0 => (len - 1) / 2,
                    k => len - k,
                };
                check("median", x.median(ax, false), &s, &median);
                check("kthvalue", x.kthvalue(len / 3 + 1, ax, false), &s, &|_| {
                    len / 3
                });
                check("kthvalue", x.kthvalue(len, ax, true), &s, &|_| len - 1);
            }
        }
    }
    fn run_nan<T: FloatElement, D: Backend>(dev: &D) {
        for dims in SHAPES {
            let x = data::<T, D>(dims, dev);
            for (axis, &len) in dims.iter().enumerate() {
                let lower = |r: &[T]| (len - nans(r)).max(1).div_ceil(2) - 1;
                check(
                    "nanmedian",
                    x.nanmedian(axis as i64, false),
                    &slices(&x, axis),
                    &lower,
                );
            }
        }
    }
    on_every_device!("order_statistics_match_a_stable_sort", |dev| {
        for_types!(run(&dev): f32, f64, f16, bf16, i32, i64, u8, i16; _);
        for_types!(run_nan(&dev): f32, f64, f16, bf16; _);
    });
}

/// `bincount` against a counting reference: many values in few bins (per-thread histograms),
/// few in many (one pass), a strided view, `minlength` above the largest value, and the first
/// negative value's `Err`, which leaves nothing changed.
#[test]
fn bincount_at_scale_matches_counting() {
    on_every_device!("bincount_at_scale", |dev| {
        let mut seed = 5u64;
        let mut draw = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) % m) as i64
        };
        let many: Vec<i64> = (0..200_003).map(|_| draw(1000)).collect();
        let few: Vec<i64> = (0..5_000).map(|_| draw(1 << 20)).collect();
        for (v, minlength) in [(&many, 0), (&many, 1500), (&few, 0)] {
            let x = on(v, &[v.len()], &dev);
            for (t, step) in [(x.clone(), 1), (x.slice(&s![1..;3]).unwrap(), 3)] {
                let vals: Vec<i64> = v[1..].iter().step_by(step).copied().collect();
                let vals = if step == 1 { v.clone() } else { vals };
                let top = vals.iter().max().map_or(0, |&m| m as usize + 1);
                let mut want = vec![0i64; top.max(minlength)];
                vals.iter().for_each(|&a| want[a as usize] += 1);
                assert_eq!(t.bincount(minlength).to_vec(), want);
            }
        }
        let mut bad = many.clone();
        bad[150_000] = -7;
        let e = on(&bad, &[bad.len()], &dev).try_bincount(0).unwrap_err();
        assert!(e.to_string().contains("-7"), "{e}");
    });
}

/// `masked_select` against a row-major walk: large (several threads' blocks) and small, a
/// broadcast mask, a broadcast and a transposed input, every kind of dtype, 0-d and empty;
/// recorded (through `index_select`, with its gradient) and not, the same values.
#[test]
fn masked_select_matches_a_row_major_walk() {
    fn run<T: NumElement, D: Backend>(dev: &D) {
        let mut seed = 11u64;
        let mut bit = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            seed >> 63 == 1
        };
        for (xd, md) in [
            (&[300, 301][..], &[300, 301][..]),
            (&[3, 40_000], &[1, 40_000]),
            (&[7, 1], &[7, 9]),
            (&[5, 4], &[5, 4]),
            (&[], &[]),
            (&[4, 0], &[4, 0]),
        ] {
            let xn: usize = xd.iter().product();
            let mn: usize = md.iter().product();
            let x = Tensor::<T, D>::from_vec_on(
                (0..xn).map(|i| T::from_f64((i % 120) as f64)).collect(),
                xd,
                dev,
            )
            .unwrap();
            let m =
                Tensor::<bool, D>::from_vec_on((0..mn).map(|_| bit()).collect(), md, dev).unwrap();
            for x in [x.clone(), x.t()] {
                let fits = x
                    .dims()
                    .iter()
                    .zip(md)
                    .all(|(&a, &b)| a == b || a == 1 || b == 1);
                if !fits {
                    assert!(x.try_masked_select(&m).is_err());
                    continue;
                }
                let shape: Vec<usize> = x.dims().iter().zip(md).map(|(&a, &b)| a.max(b)).collect();
                let xv = x
                    .expand(shape.clone())
                    .unwrap()
                    .to_device(&Cpu)
                    .unwrap()
                    .to_vec();
                let mv = m
                    .expand(&shape[..])
                    .unwrap()
                    .to_device(&Cpu)
                    .unwrap()
                    .to_vec();
                let want: Vec<T> = xv.iter().zip(&mv).filter(|p| *p.1).map(|p| *p.0).collect();
                assert_eq!(
                    x.masked_select(&m).to_device(&Cpu).unwrap().to_vec(),
                    want,
                    "{xd:?} {md:?} {:?}",
                    T::DTYPE
                );
            }
        }
    }
    on_every_device!("masked_select_matches_a_row_major_walk", |dev| {
        for_types!(run(&dev): f32, f64, f16, i64, i32, u8, i16; _);
        let x = Tensor::<f64, _>::from_vec_on((0..600).map(f64::from).collect(), [20, 30], &dev)
            .unwrap();
        let m = x.gt_scalar(250.5).logical_and(&x.lt_scalar(400.0));
        let plain = x.masked_select(&m).to_device(&Cpu).unwrap().to_vec();
        let leaf = x.detach().with_requires_grad(true).unwrap();
        let recorded = leaf.masked_select(&m);
        assert_eq!(recorded.to_device(&Cpu).unwrap().to_vec(), plain);
        assert_eq!(plain, (251..400).map(f64::from).collect::<Vec<_>>());
        recorded.sum(&[], false).backward();
        let g = leaf
            .grad_tensor()
            .unwrap()
            .to_device(&Cpu)
            .unwrap()
            .to_vec();
        assert!(
            g.iter()
                .enumerate()
                .all(|(i, &v)| v == f64::from(u8::from((251..400).contains(&i))))
        );
    });
}
