//! `index_reduce`, `lu_unpack` and `cholesky_inverse` against PyTorch 2.15 (values quoted),
//! on every device; their gradients against PyTorch's (`index_reduce`) or by `gradcheck`;
//! their refusals.

use crate::autograd::gradcheck;
use crate::common::{assert_close, check_grad, host_f64s};
use typed_tensor::ops::scatter_reduce::ScatterReduce;
use typed_tensor::prelude::*;

#[test]
fn index_reduce_matches_pytorch() {
    on_every_device!("index_reduce", |dev| {
        let f = |v: Vec<f64>, s: &[usize]| Tensor::<f64, _>::from_vec_on(v, s, &dev).unwrap();
        let x0 = f((1..=12).map(f64::from).collect(), &[4, 3]);
        let src0 = f(vec![2.0, -1.0, 0.5, 3.0, 3.0, -2.0, 0.0, 4.0, 1.0], &[3, 3]);
        let idx = Tensor::<i64, _>::from_vec_on(vec![0, 2, 0], [3], &dev).unwrap();
        let weights = f((0..12).map(f64::from).collect(), &[4, 3]);
        // (reduce, include_self, value, self's gradient, source's gradient) from PyTorch.
        type Case = (ScatterReduce, bool, [f64; 12], [f64; 12], [f64; 9]);
        let cases: [Case; 5] = [
            (
                ScatterReduce::Prod,
                true,
                [0., -8., 1.5, 4., 5., 6., 21., 24., -18., 10., 11., 12.],
                [0., -4., 1., 3., 4., 5., 18., 21., -16., 9., 10., 11.],
                [0., 8., 6., 42., 56., 72., 0., -2., 3.],
            ),
            (
                ScatterReduce::Prod,
                false,
                [0., -4., 0.5, 4., 5., 6., 3., 3., -2., 10., 11., 12.],
                [0., 0., 0., 3., 4., 5., 0., 0., 0., 9., 10., 11.],
                [0., 4., 2., 6., 7., 8., 0., -1., 1.],
            ),
            (
                ScatterReduce::Mean,
                true,
                [1., 5. / 3., 1.5, 4., 5., 6., 5., 5.5, 3.5, 10., 11., 12.],
                [0., 1. / 3., 2. / 3., 3., 4., 5., 3., 3.5, 4., 9., 10., 11.],
                [0., 1. / 3., 2. / 3., 3., 3.5, 4., 0., 1. / 3., 2. / 3.],
            ),
            (
                ScatterReduce::Amax,
                false,
                [2., 4., 1., 4., 5., 6., 3., 3., -2., 10., 11., 12.],
                [0., 0., 0., 3., 4., 5., 0., 0., 0., 9., 10., 11.],
                [0., 0., 0., 6., 7., 8., 0., 1., 2.],
            ),
            (
                ScatterReduce::Amin,
                true,
                [0., -1., 0.5, 4., 5., 6., 3., 3., -2., 10., 11., 12.],
                [0., 0., 0., 3., 4., 5., 0., 0., 0., 9., 10., 11.],
                [0., 1., 2., 6., 7., 8., 0., 0., 0.],
            ),
        ];
        for (reduce, include_self, want, gx, gs) in cases {
            let x = x0.clone().with_requires_grad(true).unwrap();
            let src = src0.clone().with_requires_grad(true).unwrap();
            let y = x
                .try_index_reduce(0, &idx, &src, reduce, include_self)
                .unwrap();
            assert_close(&host_f64s(&y), &want, 1e-15);
            y.try_mul(&weights)
                .unwrap()
                .try_sum(&[], false)
                .unwrap()
                .try_backward()
                .unwrap();
            let what = format!("{reduce:?} include_self {include_self}");
            assert_eq!(host_f64s(&x.grad_tensor().unwrap()).len(), 12, "{what}");
            assert_close(&host_f64s(&x.grad_tensor().unwrap()), &gx, 1e-15);
            assert_close(&host_f64s(&src.grad_tensor().unwrap()), &gs, 1e-15);
        }
        // Integers along axis 1: a repeated index, the floor mean, the product.
        let i = |v: Vec<i64>, s: &[usize]| Tensor::<i64, _>::from_vec_on(v, s, &dev).unwrap();
        let (xi, si) = (i((0..6).collect(), &[2, 3]), i(vec![5, 1, -2, 7], &[2, 2]));
        let got = |idx: Vec<i64>, r, inc| {
            let idx = i(idx, &[2]);
            xi.try_index_reduce(1, &idx, &si, r, inc)
                .unwrap()
                .try_to_vec()
                .unwrap()
        };
        assert_eq!(
            got(vec![2, 2], ScatterReduce::Amax, true),
            [0, 1, 5, 3, 4, 7]
        );
        assert_eq!(
            got(vec![2, 2], ScatterReduce::Mean, false),
            [0, 1, 3, 3, 4, 2]
        );
        assert_eq!(
            got(vec![0, 2], ScatterReduce::Prod, true),
            [0, 1, 2, -6, 4, 35]
        );
        // index_add's refusals, under index_reduce's name.
        let bad = |r: Result<Tensor<i64, _>>| match r {
            Err(Error::InvalidArgument { op, .. })
            | Err(Error::ShapeMismatch { op, .. })
            | Err(Error::Index { op, .. }) => assert_eq!(op, "index_reduce"),
            other => panic!("expected an index_reduce error, got {other:?}"),
        };
        bad(xi.try_index_reduce(1, &i(vec![0, 3], &[2]), &si, ScatterReduce::Amin, true));
        bad(xi.try_index_reduce(1, &i(vec![0], &[1]), &si, ScatterReduce::Amin, true));
        bad(xi.try_index_reduce(1, &i(vec![0, 1], &[1, 2]), &si, ScatterReduce::Amin, true));
    });
}

#[test]
fn lu_unpack_and_cholesky_inverse_match_pytorch() {
    on_every_device!("lu_unpack", |dev| {
        let f = |v: Vec<f64>, s: &[usize]| Tensor::<f64, _>::from_vec_on(v, s, &dev).unwrap();
        // PyTorch's lu_factor of a (2, 3, 4) stack, and its lu_unpack.
        let lu = f(
            vec![
                7.0,
                8.0,
                -9.0,
                2.0,
                0.5714285714285714,
                -9.571428571428571,
                11.142857142857142,
                -0.1428571428571428,
                0.14285714285714285,
                -0.08955223880597016,
                5.2835820895522385,
                0.20149253731343286,
                2.0,
                2.0,
                0.0,
                1.0,
                0.5,
                -1.0,
                1.0,
                -0.5,
                0.0,
                -1.0,
                3.0,
                2.5,
            ],
            &[2, 3, 4],
        );
        let piv = Tensor::<i32, _>::from_vec_on(vec![3, 2, 3, 3, 2, 3], [2, 3], &dev).unwrap();
        let (p, l, u) = Tensor::try_lu_unpack(&lu, &piv).unwrap();
        assert_eq!(
            (p.dims(), l.dims(), u.dims()),
            (&[2, 3, 3][..], &[2, 3, 3][..], &[2, 3, 4][..])
        );
        let want_p = [
            0., 0., 1., 0., 1., 0., 1., 0., 0., 0., 0., 1., 0., 1., 0., 1., 0., 0.,
        ];
        assert_eq!(host_f64s(&p), want_p);
        let want_l = [
            1.0,
            0.0,
            0.0,
            0.5714285714285714,
            1.0,
            0.0,
            0.14285714285714285,
            -0.08955223880597016,
            1.0,
            1.0,
            0.0,
            0.0,
            0.5,
            1.0,
            0.0,
            0.0,
            -1.0,
            1.0,
        ];
        assert_eq!(host_f64s(&l), want_l);
        let want_u = [
            7.0,
            8.0,
            -9.0,
            2.0,
            0.0,
            -9.571428571428571,
            11.142857142857142,
            -0.1428571428571428,
            0.0,
            0.0,
            5.2835820895522385,
            0.20149253731343286,
            2.0,
            2.0,
            0.0,
            1.0,
            0.0,
            -1.0,
            1.0,
            -0.5,
            0.0,
            0.0,
            3.0,
            2.5,
        ];
        assert_eq!(host_f64s(&u), want_u);
        // Our own factors round-trip, tall ones included (4 × 3: P 4 × 4, L 4 × 3, U 3 × 3).
        let a = f(
            (0..12)
                .map(|i| ((i * 7 % 5) as f64) - 1.5 + i as f64 * 0.1)
                .collect(),
            &[4, 3],
        );
        let (lu, piv) = a.try_lu_factor().unwrap();
        let (p, l, u) = Tensor::try_lu_unpack(&lu, &piv).unwrap();
        assert_eq!(
            (p.dims(), l.dims(), u.dims()),
            (&[4, 4][..], &[4, 3][..], &[3, 3][..])
        );
        let back = p.try_matmul(&l).unwrap().try_matmul(&u).unwrap();
        assert_close(&host_f64s(&back), &host_f64s(&a), 1e-14);
        let bad = |r: Result<(Tensor<f64, _>, Tensor<f64, _>, Tensor<f64, _>)>| match r {
            Err(Error::InvalidArgument { op, .. }) => assert_eq!(op, "lu_unpack"),
            other => panic!("expected InvalidArgument, got {:?}", other.map(|_| ())),
        };
        let piv4 = |v: Vec<i32>, s: &[usize]| Tensor::<i32, _>::from_vec_on(v, s, &dev).unwrap();
        bad(Tensor::try_lu_unpack(&lu, &piv4(vec![5, 2, 3], &[3])));
        bad(Tensor::try_lu_unpack(&lu, &piv4(vec![0, 2, 3], &[3])));
        bad(Tensor::try_lu_unpack(&lu, &piv4(vec![1, 2], &[2])));
        bad(Tensor::try_lu_unpack(
            &f(vec![1.0], &[1]),
            &piv4(vec![], &[0]),
        ));
        // An empty batch of 2^33-row factors: no permutation is built.
        let e = Tensor::<f64, _>::zeros_on([0, 1 << 33, 0], &dev).unwrap();
        let (p, _, _) = Tensor::try_lu_unpack(&e, &piv4(vec![], &[0, 0])).unwrap();
        assert_eq!(p.dims(), [0, 1 << 33, 1 << 33]);
        let one = Tensor::<f64, _>::zeros_on([1 << 33, 0], &dev).unwrap();
        assert!(Tensor::try_lu_unpack(&one, &piv4(vec![], &[0])).is_err());

        // cholesky_inverse: A⁻¹ of A = L·Lᵀ (and Uᵀ·U), against PyTorch's values.
        let l = f(vec![2.0, 0.0, 0.0, -1.0, 1.5, 0.0, 0.5, 0.25, 3.0], &[3, 3]);
        let want = [
            0.3734567901234568,
            0.22839506172839505,
            -0.037037037037037035,
            0.22839506172839505,
            0.44753086419753085,
            -0.018518518518518517,
            -0.037037037037037035,
            -0.018518518518518517,
            0.1111111111111111,
        ];
        let got = l.try_cholesky_inverse(false).unwrap();
        assert_close(&host_f64s(&got), &want, 1e-14);
        let upper = l.transpose(0, 1).unwrap();
        assert_close(
            &host_f64s(&upper.try_cholesky_inverse(true).unwrap()),
            &want,
            1e-14,
        );
        let batch = l.unsqueeze(0).unwrap().expand([2, 3, 3]).unwrap();
        let got = batch.try_cholesky_inverse(false).unwrap();
        assert_close(&host_f64s(&got)[9..], &want, 1e-14);
        assert!(matches!(
            f(vec![1.0; 6], &[2, 3]).try_cholesky_inverse(false),
            Err(Error::InvalidArgument {
                op: "cholesky_inverse",
                ..
            })
        ));
    });
    let t = |v: Vec<f64>, s: &[usize]| Tensor::<f64>::from_vec(v, s.to_vec()).unwrap();
    let a = t(
        vec![2., -1., 0.5, 4., 3., -2., -6., 1., 1., 0.5, 2.5, -1.],
        &[3, 4],
    );
    gradcheck("lu_unpack L, U", &[a], |v| {
        let (lu, piv) = v[0].try_lu_factor()?;
        let (_, l, u) = Tensor::try_lu_unpack(&lu, &piv)?;
        l.try_sum(&[], false)?
            .try_mul(&u.try_sin()?.try_sum(&[], false)?)
    });
    let l = t(vec![2.0, 0.0, 0.0, -1.0, 1.5, 0.0, 0.5, 0.25, 3.0], &[3, 3]);
    gradcheck("cholesky_inverse", &[l], |v| {
        v[0].try_cholesky_inverse(false)?.try_sin()
    });
}

#[test]
fn dyn_tensor_extras() {
    let x = DynTensor::from(tensor![[1i64, 2], [3, 4], [5, 6]]);
    let src = DynTensor::from(tensor![[10i64, 20], [30, 40]]);
    let idx = DynTensor::from(tensor![2i64, 0]);
    let r = x
        .index_reduce(0, &idx, &src, ScatterReduce::Amin, true)
        .unwrap();
    assert_eq!(r.to_vec::<i64>().unwrap(), [1, 2, 3, 4, 5, 6]);
    let r = x
        .index_reduce(0, &idx, &src, ScatterReduce::Prod, false)
        .unwrap();
    assert_eq!(r.to_vec::<i64>().unwrap(), [30, 40, 3, 4, 10, 20]);
    let l = DynTensor::from(tensor![[2i32, 0], [1, 1]]);
    let inv = l.cholesky_inverse(false).unwrap();
    assert_eq!(inv.dtype(), Dtype::Float32);
    assert_eq!(inv.to_vec::<f32>().unwrap(), [0.5, -0.5, -0.5, 1.0]);
    let w = DynTensor::from(tensor![0.0f32, 1.0]);
    let d = w.multinomial(3, true).unwrap();
    assert_eq!(
        (d.dtype(), d.to_vec::<i64>().unwrap()),
        (Dtype::Int64, vec![1, 1, 1])
    );
    assert!(
        x.multinomial(1, true)
            .unwrap_err()
            .to_string()
            .contains("multinomial")
    );
    let p = DynTensor::from(tensor![0.0f64, 0.0]).poisson().unwrap();
    assert_eq!(p.to_vec::<f64>().unwrap(), [0.0, 0.0]);
}

#[test]
fn torch_names_for_queries_and_views() {
    on_every_device!("torch_names", |dev| {
        let x = Tensor::<f32, _>::from_vec_on((0..6).map(|v| v as f32).collect(), [2, 3], &dev);
        let x = x.unwrap();
        assert_eq!(
            (x.dim(), x.ndimension(), x.nelement(), x.element_size()),
            (2, 2, 6, 4)
        );
        assert!(x.is_floating_point() && x.is_signed());
        let u = Tensor::<u8, _>::zeros_on([3, 2], &dev).unwrap();
        assert!(!u.is_floating_point() && !u.is_signed() && !x.is_same_size(&u));
        assert!(x.is_same_size(&x.new_ones([2, 3]).unwrap()));
        assert_eq!(x.narrow(1, 1, 2).unwrap().storage_offset(), 1);
        assert_eq!(
            x.new_full([2], 7.5).unwrap().try_to_vec().unwrap(),
            [7.5, 7.5]
        );
        assert_eq!(u.new_zeros([0, 4]).unwrap().dims(), [0, 4]);
        let flat = x
            .view_as(&Tensor::<u8, _>::zeros_on([6], &dev).unwrap())
            .unwrap();
        assert_eq!(flat.dims(), [6]);
        let t = x.transpose(0, 1).unwrap();
        assert!(t.view_as(&flat).is_err()); // not viewable: reshape_as copies
        assert_eq!(
            t.try_reshape_as(&flat).unwrap().try_to_vec().unwrap(),
            [0., 3., 1., 4., 2., 5.]
        );
        assert_eq!(x.swapdims(0, 1).unwrap().dims(), [3, 2]);
        let parts = x.try_split_with_sizes(&[1, 2], 1).unwrap();
        assert_eq!(
            (parts[0].dims(), parts[1].dims()),
            (&[2, 1][..], &[2, 2][..])
        );
        let c = t.try_narrow_copy(0, 1, 2).unwrap();
        assert!(c.is_contiguous() && c.try_to_vec().unwrap() == [1., 4., 2., 5.]);
        // A contiguous slice is copied too: writing the copy leaves `x` alone.
        let mut rows = x.try_narrow_copy(0, 1, 1).unwrap();
        rows.fill_(9.0).unwrap();
        assert_eq!(x.try_to_vec().unwrap(), [0., 1., 2., 3., 4., 5.]);
        assert_eq!(u.type_as(&x).try_to_vec().unwrap(), [0.0; 6]);
        // sum_to_size: leading axes and 1-axes summed; the same shape copies; i32 sums in i64.
        assert_eq!(
            x.try_sum_to_size(&[3]).unwrap().try_to_vec().unwrap(),
            [3., 5., 7.]
        );
        assert_eq!(
            x.try_sum_to_size(&[2, 1]).unwrap().try_to_vec().unwrap(),
            [3., 12.]
        );
        assert_eq!(
            x.try_sum_to_size(&[1, 1]).unwrap().try_to_vec().unwrap(),
            [15.]
        );
        assert_eq!(
            x.try_sum_to_size(&[2, 3]).unwrap().try_to_vec().unwrap(),
            x.try_to_vec().unwrap()
        );
        assert_eq!(x.sum_to_size(&[]).try_to_vec().unwrap(), [15.]);
        let i = Tensor::<i32, _>::full_on([2, 2], i32::MAX, &dev).unwrap();
        assert_eq!(
            i.try_sum_to_size(&[2]).unwrap().try_to_vec().unwrap(),
            [2 * i32::MAX as i64; 2]
        );
        for bad in [vec![3, 1], vec![1, 2, 3], vec![4]] {
            let e = x.try_sum_to_size(&bad);
            assert!(
                matches!(
                    e,
                    Err(Error::InvalidArgument {
                        op: "sum_to_size",
                        ..
                    })
                ),
                "{bad:?}"
            );
        }
        // nonzero_static and rsub against PyTorch.
        let m = Tensor::<i32, _>::from_vec_on(vec![0, 1, 2, 0], [2, 2], &dev).unwrap();
        let nz = m.try_nonzero_static(4, -1).unwrap();
        assert_eq!(
            (nz.dims(), nz.try_to_vec().unwrap()),
            (&[4, 2][..], vec![0, 1, 1, 0, -1, -1, -1, -1])
        );
        assert_eq!(
            m.try_nonzero_static(1, 0).unwrap().try_to_vec().unwrap(),
            [0, 1]
        );
        assert_eq!(m.try_nonzero_static(0, 0).unwrap().dims(), [0, 2]);
        let a = Tensor::<f32, _>::from_vec_on(vec![1.0, 2.0], [2], &dev).unwrap();
        let ten = Tensor::<f32, _>::full_on([2], 10.0, &dev).unwrap();
        assert_eq!(
            a.try_rsub(&ten, 2.0).unwrap().try_to_vec().unwrap(),
            [8.0, 6.0]
        );
        assert_eq!(a.rsub(&ten, 1.0).try_to_vec().unwrap(), [9.0, 8.0]);
        // Differentiable.
        let leaf = x.clone().with_requires_grad(true).unwrap();
        leaf.sum_to_size(&[3])
            .try_sum(&[], false)
            .unwrap()
            .try_backward()
            .unwrap();
        assert_eq!(host_f64s(&leaf.grad_tensor().unwrap()), [1.0; 6]);
    });
}

#[test]
fn svd_and_pca_lowrank() {
    on_every_device!("svd_lowrank", |dev| {
        // A rank-3 (2, 9, 6) stack: Σ_k a_k b_kᵀ with fixed vectors.
        let outer = |m: usize, n: usize, seed: f64| -> Vec<f64> {
            let mut v = vec![0.0; m * n];
            for k in 0..3 {
                let a: Vec<f64> = (0..m)
                    .map(|i| (seed + 1.3 * i as f64 + 0.7 * k as f64).sin())
                    .collect();
                let b: Vec<f64> = (0..n)
                    .map(|j| (seed * 0.5 + 0.9 * j as f64 - 1.1 * k as f64).cos())
                    .collect();
                for i in 0..m {
                    for j in 0..n {
                        v[i * n + j] += (3 - k) as f64 * a[i] * b[j];
                    }
                }
            }
            v
        };
        let data: Vec<f64> = [outer(9, 6, 0.2), outer(9, 6, 1.7)].concat();
        let a = Tensor::<f64, _>::from_vec_on(data, [2, 9, 6], &dev).unwrap();
        let rebuild = |u: &Tensor<f64, _>, s: &Tensor<f64, _>, v: &Tensor<f64, _>| {
            u.try_mul(&s.unsqueeze(-2).unwrap())
                .unwrap()
                .try_matmul(&v.transpose(-1, -2).unwrap())
                .unwrap()
        };
        for (name, x) in [("tall", a.clone()), ("wide", a.transpose(-1, -2).unwrap())] {
            let (u, s, v) = x.try_svd_lowrank(Some(3), 2).unwrap();
            let (m, n) = (x.dims()[1], x.dims()[2]);
            assert_eq!(
                (u.dims(), s.dims(), v.dims()),
                (&[2, m, 3][..], &[2, 3][..], &[2, n, 3][..]),
                "{name}"
            );
            let full = x.try_svdvals().unwrap().narrow(-1, 0, 3).unwrap();
            crate::common::assert_close(&host_f64s(&s), &host_f64s(&full), 1e-10);
            let back = rebuild(&u, &s, &v);
            for (g, w) in host_f64s(&back).iter().zip(host_f64s(&x)) {
                assert!((g - w).abs() < 1e-9, "{name}: {g} against {w}");
            }
            // Orthonormal columns.
            let utu = u.transpose(-1, -2).unwrap().try_matmul(&u).unwrap();
            let eye = [1., 0., 0., 0., 1., 0., 0., 0., 1.];
            for (g, w) in host_f64s(&utu).iter().zip(eye.iter().cycle()) {
                assert!((g - w).abs() < 1e-12);
            }
        }
        // The default q = min(6, m, n); a full-rank matrix's leading values with iterations.
        let (_, s, _) = a.try_svd_lowrank(None, 0).unwrap();
        assert_eq!(s.dims(), [2, 6]);
        // pca_lowrank: the centred data's singular values.
        // (Rank 3 after centring too: exact whatever the sketch.)
        let (_, s, v) = a.try_pca_lowrank(Some(3), true, 1).unwrap();
        assert_eq!(v.dims(), [2, 6, 3]);
        let centred = a.try_sub(&a.try_mean(&[-2], true).unwrap()).unwrap();
        let want = centred.try_svdvals().unwrap().narrow(-1, 0, 3).unwrap();
        crate::common::assert_close(&host_f64s(&s), &host_f64s(&want), 1e-8);
        for r in [
            a.try_svd_lowrank(Some(7), 2),
            a.select(0, 0)
                .unwrap()
                .select(0, 0)
                .unwrap()
                .try_pca_lowrank(None, true, 2),
        ] {
            assert!(
                matches!(r, Err(Error::InvalidArgument { .. })),
                "{:?}",
                r.map(|_| ())
            );
        }
    });
}

/// `Dtype::can_cast` against PyTorch 2.15's `torch.can_cast` on all 81 pairs.
#[test]
fn can_cast_matches_pytorch() {
    use Dtype::*;
    let all = [
        Float32, Float64, Float16, Bfloat16, Int16, Int32, Int64, UInt8, Bool,
    ];
    for from in all {
        let refused: &[Dtype] = match from {
            Float32 | Float64 | Float16 | Bfloat16 => &[Int16, Int32, Int64, UInt8, Bool],
            Bool => &[],
            _ => &[Bool],
        };
        for to in all {
            assert_eq!(
                Dtype::can_cast(from, to),
                !refused.contains(&to),
                "{from} to {to}"
            );
        }
    }
}

/// The `*_like`/`new_*` constructors keep the dtype, shape and device; the older names
/// equal the ops they name.
#[test]
fn like_constructors_and_older_names() {
    on_every_device!("like constructors", |dev| {
        let x = Tensor::<f32, _>::ones_on([3, 4], &dev).unwrap();
        typed_tensor::manual_seed(11);
        let u = x.try_rand_like().unwrap();
        let n = x.randn_like();
        assert_eq!((u.dims(), n.dims()), (&[3, 4][..], &[3, 4][..]));
        let uv = u.try_to_vec().unwrap();
        assert!(uv.iter().all(|v| (0.0..1.0).contains(v)));
        assert!(uv.windows(2).any(|w| w[0] != w[1]));
        // Reproducible from the seed on one device.
        typed_tensor::manual_seed(11);
        assert_eq!(x.rand_like().try_to_vec().unwrap(), uv);
        let i = Tensor::<u8, _>::zeros_on([1000], &dev).unwrap();
        let d = i.try_randint_like(3, 7).unwrap().try_to_vec().unwrap();
        assert!(d.iter().all(|v| (3..7).contains(v)) && d.contains(&3) && d.contains(&6));
        let e = i.try_randint_like(-1, 2).unwrap_err().to_string();
        assert!(e.contains("randint"), "{e}");
        let z = x.empty_like();
        assert_eq!(z.try_to_vec().unwrap(), vec![0.0; 12]);
        assert_eq!(x.new_empty([2, 0]).unwrap().dims(), [2, 0]);
        let t = x.new_tensor(&[1.0, -2.0, 3.0], [3]).unwrap();
        assert!(x.new_tensor(&[1.0], [2]).is_err());
        assert_eq!(
            t.ger(&t).try_to_vec().unwrap(),
            t.outer(&t).try_to_vec().unwrap()
        );
        assert_eq!(
            t.subtract(&t.ones_like()).try_to_vec().unwrap(),
            [0.0, -3.0, 2.0]
        );
        assert_eq!(t.trapz(0.5, 0).try_to_vec().unwrap(), [0.0]);
        let m = Tensor::<f64, _>::from_vec_on(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3], &dev);
        let m = m.unwrap();
        let want = m.try_pinv().unwrap().try_to_vec().unwrap();
        assert_eq!(m.pinverse().try_to_vec().unwrap(), want);
        let mt = m.t();
        let chain = Tensor::chain_matmul(&[&m, &mt, &m]).try_to_vec().unwrap();
        let direct = m.matmul(&mt).matmul(&m).try_to_vec().unwrap();
        assert_close(&chain, &direct, 1e-12);
    });
}

#[test]
fn as_strided_matches_pytorch() {
    on_every_device!("as_strided", |dev| {
        // (size, stride, offset, values, x's gradient for the loss Σ y·(1, 2, ...)), PyTorch 2.15.
        type Case<'a> = (
            &'a [usize],
            &'a [isize],
            Option<usize>,
            &'a [f64],
            &'a [f64],
        );
        let cases: [Case; 4] = [
            (
                &[3, 2],
                &[1, 3],
                None,
                &[0.0, 3.0, 1.0, 4.0, 2.0, 5.0],
                &[1.0, 3.0, 5.0, 2.0, 4.0, 6.0],
            ),
            (
                &[4, 3],
                &[1, 1],
                None,
                &[0.0, 1.0, 2.0, 1.0, 2.0, 3.0, 2.0, 3.0, 4.0, 3.0, 4.0, 5.0],
                &[1.0, 6.0, 15.0, 24.0, 20.0, 12.0],
            ),
            (
                &[2, 2],
                &[2, 1],
                Some(1),
                &[1.0, 2.0, 3.0, 4.0],
                &[0.0, 1.0, 2.0, 3.0, 4.0, 0.0],
            ),
            (
                &[3, 2],
                &[0, 1],
                Some(2),
                &[2.0, 3.0, 2.0, 3.0, 2.0, 3.0],
                &[0.0, 0.0, 9.0, 12.0, 0.0, 0.0],
            ),
        ];
        for (size, stride, offset, values, grad) in cases {
            let x = Tensor::<f64, _>::arange_on(0.0, 6.0, 1.0, &dev)
                .unwrap()
                .with_requires_grad(true)
                .unwrap();
            let y = x.as_strided(size, stride, offset).unwrap();
            assert_eq!(host_f64s(&y), values, "{size:?} {stride:?}");
            let n = y.numel() as f64;
            let w = Tensor::<f64, _>::arange_on(1.0, n + 1.0, 1.0, &dev)
                .unwrap()
                .try_reshape(size)
                .unwrap();
            y.mul(&w).sum(&[], false).backward();
            assert_eq!(
                host_f64s(&x.grad_tensor().unwrap()),
                grad,
                "{size:?} {stride:?}"
            );
        }
        // Relative to the storage: a view's default offset is its own.
        let x = Tensor::<f64, _>::arange_on(0.0, 6.0, 1.0, &dev).unwrap();
        let b = x.narrow(0, 1, 4).unwrap();
        assert_eq!(
            host_f64s(&b.as_strided(&[2], &[2], None).unwrap()),
            [1.0, 3.0]
        );
        // Outside the tensor's elements, mismatched lengths, overflowing sizes: `Err`.
        assert!(b.as_strided(&[5], &[1], None).is_err());
        assert!(b.as_strided(&[2], &[1], Some(0)).is_err());
        assert!(x.as_strided(&[2, 2], &[1], None).is_err());
        assert!(
            x.as_strided(&[usize::MAX, 2], &[1, isize::MAX], None)
                .is_err()
        );
        assert!(x.as_strided(&[2], &[-1], Some(0)).is_err());
        // Negative strides walk backwards; empty views are fine anywhere.
        assert_eq!(
            host_f64s(&x.as_strided(&[3], &[-2], Some(5)).unwrap()),
            [5.0, 3.0, 1.0]
        );
        assert_eq!(
            x.as_strided(&[0, 9], &[100, 100], None).unwrap().dims(),
            [0, 9]
        );
        // A disjoint layout is a view (writes reach x); an overlapping one a copy.
        let y = x.try_deep_copy().unwrap();
        let mut v = y.as_strided(&[2, 3], &[1, 2], None).unwrap();
        assert!(v.shares_memory(&y));
        v.fill_(7.0).unwrap();
        assert_eq!(host_f64s(&y), [7.0; 6]);
        let w = y.as_strided(&[4, 3], &[1, 1], None).unwrap();
        assert!(!w.may_share_memory(&y));
        // A stride 0 is a broadcast view, which in-place ops refuse.
        let mut e = y.as_strided(&[4, 6], &[0, 1], None).unwrap();
        assert!(e.shares_memory(&y));
        assert!(e.fill_(1.0).is_err());
    });
}

/// PyTorch's older names against PyTorch 2.15's outputs: `triangular_solve` (upper,
/// transposed, unit lower; the coefficient broadcast to the batch), `nuclear_norm` and
/// `frobenius_norm` over chosen axes, `as_strided_scatter`, `is_nonzero`; their gradients.
#[test]
fn torch_legacy_names_match_pytorch() {
    on_every_device!("torch_legacy", |dev| {
        let t =
            |v: &[f64], s: &[usize]| Tensor::<f64, _>::from_vec_on(v.to_vec(), s, &dev).unwrap();
        let a = t(&[2.0, 1.0, 0.0, 4.0], &[2, 2]);
        let b = t(&[1.0, 2.0, 3.0, 4.0], &[2, 2, 1]);
        let (x, c) = b.triangular_solve(&a, true, false, false);
        assert_eq!(
            (x.dims(), host_f64s(&x)),
            (&[2, 2, 1][..], vec![0.25, 0.5, 1.0, 1.0])
        );
        assert_eq!(
            (c.dims(), host_f64s(&c)),
            (&[2, 2, 2][..], vec![2.0, 1.0, 0.0, 4.0, 2.0, 1.0, 0.0, 4.0])
        );
        let (x, _) = b.triangular_solve(&a, true, true, false);
        assert_eq!(host_f64s(&x), vec![0.5, 0.375, 1.5, 0.625]);
        let (x, _) = b.triangular_solve(&a.t(), false, false, true);
        assert_eq!(host_f64s(&x), vec![1.0, 1.0, 3.0, 1.0]);
        let m = Tensor::<f64, _>::arange_on(0.0, 6.0, 1.0, &dev)
            .unwrap()
            .try_reshape([2, 3])
            .unwrap();
        assert_close(
            &host_f64s(&m.nuclear_norm(None, false)),
            &[8.348469228349534],
            1e-12,
        );
        assert_close(
            &host_f64s(&m.frobenius_norm(&[0, 1], false)),
            &[7.416198487095663],
            1e-12,
        );
        let m3 = Tensor::<f64, _>::arange_on(0.0, 24.0, 1.0, &dev)
            .unwrap()
            .try_reshape([2, 3, 4])
            .unwrap();
        assert_eq!(m3.nuclear_norm(Some([0, 2]), true).dims(), &[1, 3, 1]);
        let want = m3
            .narrow(1, 1, 1)
            .unwrap()
            .squeeze_dims(&[1])
            .unwrap()
            .nuclear_norm(None, false);
        assert_close(
            &host_f64s(
                &m3.nuclear_norm(Some([2, 0]), false)
                    .narrow(0, 1, 1)
                    .unwrap(),
            ),
            &host_f64s(&want),
            1e-12,
        );
        assert_close(
            &host_f64s(&m3.frobenius_norm(&[1], false)),
            &[
                8.94427190999916,
                10.344080432788601,
                11.832159566199232,
                13.379088160259652,
                28.284271247461902,
                29.983328701129214,
                31.68595903550972,
                33.391615714128,
            ],
            1e-12,
        );
        assert!(m3.try_frobenius_norm(&[0, 1, 2], false).is_err());
        assert!(m3.try_nuclear_norm(Some([1, -2]), false).is_err());
        let z = Tensor::<f64, _>::zeros_on([3, 4], &dev).unwrap();
        let s = Tensor::<f64, _>::full_on([2, 2], 7.0, &dev).unwrap();
        let y = z.as_strided_scatter(&s, &[2, 2], &[4, 1], Some(1));
        assert_eq!(
            host_f64s(&y),
            vec![0.0, 7.0, 7.0, 0.0, 0.0, 7.0, 7.0, 0.0, 0.0, 0.0, 0.0, 0.0]
        );
        let e = z
            .try_as_strided_scatter(&s, &[2, 3], &[4, 1], None)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("as_strided_scatter") && e.contains("(2, 3)"),
            "{e}"
        );
        assert!(
            z.try_as_strided_scatter(&s, &[2, 2], &[4, 1], Some(9))
                .is_err()
        );
        // Truth of one element.
        let one = |v: f64| {
            Tensor::<f64, _>::from_vec_on(vec![v], [1], &dev)
                .unwrap()
                .is_nonzero()
                .unwrap()
        };
        assert_eq!(
            (one(0.0), one(-0.0), one(f64::NAN), one(2.0)),
            (false, false, true, true)
        );
        assert!(
            z.is_nonzero()
                .unwrap_err()
                .to_string()
                .contains("ambiguous")
        );
        assert!(
            !z.is_conj() && !z.is_neg() && !z.is_complex() && z.resolve_conj().dims() == z.dims()
        );
    });
    check_grad(
        "triangular_solve",
        &|v| Ok(v[1].try_triangular_solve(&v[0], false, true, false)?.0),
        &[
            Tensor::from_vec(vec![2.0, 0.0, 0.0, 0.5, 3.0, 0.0, -1.0, 0.2, 1.5], [3, 3]).unwrap(),
            Tensor::from_vec(vec![1.0, -2.0, 0.5, 0.3, 1.1, -0.7], [3, 2]).unwrap(),
        ],
    );
    check_grad(
        "as_strided_scatter",
        &|v| v[0].try_as_strided_scatter(&v[1], &[2, 2], &[1, 3], Some(1)),
        &[
            Tensor::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [2, 4]).unwrap(),
            Tensor::from_vec(vec![0.5, -1.0, 2.0, 0.25], [2, 2]).unwrap(),
        ],
    );
    check_grad(
        "nuclear_norm",
        &|v| v[0].try_nuclear_norm(Some([0, 1]), true),
        &[Tensor::from_vec(vec![1.0, 2.0, 0.5, -1.0, 3.0, 0.2], [2, 3]).unwrap()],
    );
}

/// PyTorch's names `mm`, `isnan`/`isinf`/`isfinite` (integers too), `multiply`/`divide`,
/// `inv`, `orgqr`, `angle`, `conj`, `real`, `adjoint` against PyTorch 2.15's values, and the
/// generator state: `get_rng_state`/`set_rng_state` repeat draws, `initial_seed` names the
/// last seed.
#[test]
fn torch_aliases_and_rng_state() {
    let a = tensor![[1.0f64, 2.0], [3.0, 4.0]];
    assert_eq!(a.mm(&a).to_vec(), a.matmul(&a).to_vec());
    let e = a.try_mm(&tensor![1.0f64, 2.0]).unwrap_err().to_string();
    assert!(
        e.contains("mm") && e.contains("(2, 2)") && e.contains("(2,)"),
        "{e}"
    );
    assert!(a.unsqueeze(0).unwrap().try_mm(&a).is_err());
    assert_eq!(a.inv().to_vec(), a.inverse().to_vec());
    let i = tensor![1i64, -2, 0];
    assert_eq!(i.isinf().to_vec(), [false; 3]);
    assert_eq!(i.isfinite().to_vec(), [true; 3]);
    assert_eq!(i.isnan().to_vec(), [false; 3]);
    let f = tensor![
        -0.0f32,
        0.0,
        -1.0,
        2.0,
        f32::NAN,
        f32::NEG_INFINITY,
        f32::INFINITY
    ];
    assert_eq!(
        f.isinf().to_vec(),
        [false, false, false, false, false, true, true]
    );
    // torch.angle: [0, 0, π, 0, nan, π, 0].
    let pi = std::f32::consts::PI;
    let got = f.angle().to_vec();
    let want = [0.0, 0.0, pi, 0.0, f32::NAN, pi, 0.0];
    assert!(
        got.iter()
            .zip(&want)
            .all(|(g, w)| g.to_bits() == w.to_bits() || g.is_nan() && w.is_nan()),
        "{got:?}"
    );
    let x = tensor![-1.0f64, 2.0].with_requires_grad(true).unwrap();
    x.angle().sum(&[], false).backward();
    assert_eq!(x.grad_tensor().unwrap().to_vec(), [0.0, 0.0]);
    assert_eq!(i.multiply(&i).to_vec(), [1, 4, 0]);
    assert_eq!(
        tensor![1.0f32, 3.0].divide(&tensor![2.0f32, 4.0]).to_vec(),
        [0.5, 0.75]
    );
    assert_eq!(a.conj().to_vec(), a.to_vec());
    assert_eq!(a.real().to_vec(), a.to_vec());
    let r = Tensor::<f32>::ones([2, 3, 4]).unwrap();
    assert_eq!(r.adjoint().unwrap().dims(), [2, 4, 3]);
    assert!(tensor![1.0f32].adjoint().is_err());
    let (qr, tau) = tensor![[2.0f64, 1.0], [1.0, 3.0], [0.5, 1.0]].geqrf();
    assert_eq!(
        qr.orgqr(&tau).to_vec(),
        qr.householder_product(&tau).to_vec()
    );

    // The global generator is shared by every test thread: one of a few tries without a
    // draw from another test in between shows the state repeating the draws.
    assert!((0..8).any(|_| {
        let state = typed_tensor::get_rng_state();
        let first = Tensor::<f64>::rand([4]).unwrap().to_vec();
        typed_tensor::set_rng_state(&state);
        first == Tensor::<f64>::rand([4]).unwrap().to_vec()
    }));
    assert!((0..8).any(|_| {
        typed_tensor::manual_seed(1234);
        typed_tensor::initial_seed() == 1234
    }));
    assert!((0..8).any(|_| {
        let s = typed_tensor::seed();
        typed_tensor::initial_seed() == s
    }));
    assert_eq!(
        format!("{:?}", typed_tensor::get_rng_state()),
        "RngState { .. }"
    );
}

/// PyTorch's view-copy ops: the view's values in a contiguous buffer of their own (writing
/// the copy leaves the input alone), with the view's gradient, on every device.
#[test]
fn view_copies_own_their_buffers() {
    on_every_device!("view_copies", |dev| {
        let vals: Vec<f64> = (0..24).map(f64::from).collect();
        let x = Tensor::<f64, _>::from_vec_on(vals.clone(), [2, 3, 4], &dev).unwrap();
        let x = x.with_requires_grad(true).unwrap();
        let host = |t: &Tensor<f64, _>| t.to_device(&Cpu).unwrap().to_vec();
        let check = |copy: Tensor<f64, _>, view: Tensor<f64, _>| {
            assert!(copy.is_contiguous() && copy.owns_data());
            assert_eq!((copy.dims(), host(&copy)), (view.dims(), host(&view)));
            let mut c = copy.detach();
            c.fill_(-1.0).unwrap();
            assert_eq!(host(&x.detach()), vals);
            copy
        };
        let e = Tensor::<f64, _>::from_vec_on(vec![1.0, 2.0], [2, 1], &dev).unwrap();
        check(
            e.try_expand_copy(Shape::new(vec![2, 3])).unwrap(),
            e.expand([2, 3]).unwrap(),
        );
        let cases = [
            (
                x.try_permute_copy(&[2, 0, 1]).unwrap(),
                x.permute(&[2, 0, 1]).unwrap(),
            ),
            (x.try_select_copy(1, -1).unwrap(), x.select(1, -1).unwrap()),
            (
                x.try_transpose_copy(0, 2).unwrap(),
                x.transpose(0, 2).unwrap(),
            ),
            (x.try_unsqueeze_copy(1).unwrap(), x.unsqueeze(1).unwrap()),
            (
                x.try_unfold_copy(2, 2, 1).unwrap(),
                x.try_unfold(2, 2, 1).unwrap(),
            ),
            (x.try_view_copy([6, 4]).unwrap(), x.view([6, 4]).unwrap()),
            (x.try_alias_copy().unwrap(), x.clone()),
            (x.try_detach_copy().unwrap(), x.detach()),
            (x.try_diagonal_copy(1).unwrap(), x.diagonal(1).unwrap()),
            (
                x.try_as_strided_copy(&[2, 2], &[12, 1], Some(1)).unwrap(),
                x.as_strided(&[2, 2], &[12, 1], Some(1)).unwrap(),
            ),
            (
                x.try_slice_copy(&s![1..2, .., 1..3]).unwrap(),
                x.slice(&s![1..2, .., 1..3]).unwrap(),
            ),
        ];
        for (copy, view) in cases {
            check(copy, view);
        }
        let sq = x.unsqueeze(0).unwrap();
        check(sq.try_squeeze_copy(&[0]).unwrap(), x.clone());
        let m = x.select(0, 0).unwrap();
        check(m.try_t_copy().unwrap(), m.t());
        for (c, v) in x
            .try_split_copy(&[1, 3], 2)
            .unwrap()
            .into_iter()
            .zip(x.try_split(&[1, 3], 2).unwrap())
        {
            check(c, v);
        }
        for (c, v) in x
            .try_unbind_copy(1)
            .unwrap()
            .into_iter()
            .zip(x.try_unbind(1).unwrap())
        {
            check(c, v);
        }
        // The gradient is the view's: ones where the slice reads, zeros elsewhere.
        let s = x.try_select_copy(1, -1).unwrap();
        assert!(!x.try_detach_copy().unwrap().requires_grad());
        s.try_sum(&[], false).unwrap().try_backward().unwrap();
        let g = host(&x.grad_tensor().unwrap());
        let want: Vec<f64> = (0..24)
            .map(|i| if (i / 4) % 3 == 2 { 1.0 } else { 0.0 })
            .collect();
        assert_eq!(g, want);
    });
}
