//! `lu`, `lu_factor`, `lu_solve`, `matrix_exp`, `tensorsolve`, `tensorinv` and `svdvals`
//! against PyTorch 2.15 / SciPy 1.17 / NumPy 2.4 (values quoted), on every device; their
//! gradients by `gradcheck` (square, tall and wide LU), and their refusals.

use crate::autograd::gradcheck;
use crate::common::assert_close;
use typed_tensor::prelude::*;

fn host<D: Device>(t: &Tensor<f64, D>) -> Vec<f64> {
    t.try_to_vec().unwrap()
}

fn values<D: Device>(dev: &D) -> Result<()> {
    let t = |v: Vec<f64>, s: &[usize]| Tensor::<f64, D>::from_vec_on(v, s.to_vec(), dev);
    let a = t(vec![2., -1., 0.5, 4., 3., -2., -6., 1., 1.], &[3, 3])?;
    let (p, l, u) = a.try_lu()?;
    assert_eq!(host(&p), [0., 0., 1., 0., 1., 0., 1., 0., 0.]);
    let want_l = [
        1.0,
        0.0,
        0.0,
        -2.0 / 3.0,
        1.0,
        0.0,
        -1.0 / 3.0,
        -0.18181818181818185,
        1.0,
    ];
    assert_close(&host(&l), &want_l, 1e-15);
    let want_u = [
        -6.0,
        1.0,
        1.0,
        0.0,
        3.6666666666666665,
        -1.3333333333333335,
        0.0,
        0.0,
        0.5909090909090908,
    ];
    assert_close(&host(&u), &want_u, 1e-15);
    let (lu, piv) = a.try_lu_factor()?;
    let packed = [
        -6.0,
        1.0,
        1.0,
        -2.0 / 3.0,
        3.6666666666666665,
        -1.3333333333333335,
        -1.0 / 3.0,
        -0.18181818181818185,
        0.5909090909090908,
    ];
    assert_close(&host(&lu), &packed, 1e-15);
    assert_eq!(piv.try_to_vec()?, [3, 2, 3]);
    let b = t(vec![1., 2., 3., 4., 5., 6.], &[3, 2])?;
    let x = Tensor::try_lu_solve(&lu, &piv, &b)?;
    let want_x = [
        0.9230769230769234,
        1.4615384615384621,
        4.076923076923078,
        5.538461538461541,
        6.461538461538463,
        9.230769230769234,
    ];
    assert_close(&host(&x), &want_x, 1e-13);

    // Tall and wide.
    let tall = t(vec![1., 2., 3., 4., 5., -6.], &[3, 2])?;
    let (p, l, u) = tall.try_lu()?;
    assert_eq!(
        (p.dims(), l.dims(), u.dims()),
        (&[3, 3][..], &[3, 2][..], &[2, 2][..])
    );
    assert_eq!(host(&p), [0., 0., 1., 0., 1., 0., 1., 0., 0.]);
    assert_close(
        &host(&l),
        &[1.0, 0.0, 0.6, 1.0, 0.2, 0.42105263157894735],
        1e-15,
    );
    assert_close(&host(&u), &[5.0, -6.0, 0.0, 7.6], 1e-15);
    let (lu_t, piv_t) = tall.try_lu_factor()?;
    assert_close(
        &host(&lu_t),
        &[5.0, -6.0, 0.6, 7.6, 0.2, 0.42105263157894735],
        1e-15,
    );
    assert_eq!(piv_t.try_to_vec()?, [3, 2]);
    let wide = tall.t().try_contiguous()?;
    let (p, l, u) = wide.try_lu()?;
    assert_eq!(
        (p.dims(), l.dims(), u.dims()),
        (&[2, 2][..], &[2, 2][..], &[2, 3][..])
    );
    assert_eq!(host(&p), [0., 1., 1., 0.]);
    assert_close(&host(&l), &[1.0, 0.0, 0.5, 1.0], 1e-15);
    assert_close(&host(&u), &[2.0, 4.0, -6.0, 0.0, 1.0, 8.0], 1e-15);
    // A batch: P·L·U gives every matrix back.
    let stack = Tensor::<f64, D>::from_vec_on(
        (0..24).map(|i| ((i * 7 % 11) as f64 - 5.0) * 0.5).collect(),
        [2, 3, 4],
        dev,
    )?;
    let (p, l, u) = stack.try_lu()?;
    assert_close(
        &host(&p.try_matmul(&l)?.try_matmul(&u)?),
        &host(&stack),
        1e-14,
    );
    let st = stack.transpose(-1, -2)?;
    let (p, l, u) = st.try_lu()?;
    assert_close(
        &host(&p.try_matmul(&l)?.try_matmul(&u)?),
        &host(&st.try_contiguous()?),
        1e-14,
    );
    // A singular matrix factorizes; solving with it is an error.
    let sing = t(vec![1., 2., 2., 4.], &[2, 2])?;
    let (lu_s, piv_s) = sing.try_lu_factor()?;
    assert!(Tensor::try_lu_solve(&lu_s, &piv_s, &t(vec![1., 1.], &[2, 1])?).is_err());

    let m = t(vec![0.1, 2., -1., 0.5, -0.3, 0.2, 1.5, 0., 0.7], &[3, 3])?;
    let e1 = [
        0.7046816562183242,
        1.5964050612304383,
        -1.1417914683797499,
        0.570895734189875,
        1.2443729883835626,
        -0.057965821127825445,
        2.0562761403341554,
        1.7179446888226528,
        0.9545438827444354,
    ];
    assert_close(&host(&m.try_matrix_exp()?), &e1, 1e-14);
    let e2 = [
        54.31956068502423,
        111.80203943500227,
        -42.305746415668686,
        21.15287320783434,
        -2.0290304565574004,
        19.79054370132746,
        49.863346321670576,
        -67.97636650916237,
        96.92368805007989,
    ];
    let both = Tensor::try_stack(&[&m, &m.try_mul_scalar(8.0)?], 0)?;
    let e = both.try_matrix_exp()?;
    assert_close(&host(&e)[..9], &e1, 1e-13);
    assert_close(&host(&e)[9..], &e2, 1e-13);
    let stiff = t(vec![-50., 10., 5., -60.], &[2, 2])?.try_matrix_exp()?;
    let e3 = [
        5.912922515259231e-21,
        4.328559537478741e-21,
        2.164279768739379e-21,
        1.5843629777804193e-21,
    ];
    for (g, w) in host(&stiff).iter().zip(e3) {
        assert!((g - w).abs() <= 1e-12 * w, "{g} vs {w}");
    }
    let nil = t(vec![0., 1., 0., 0.], &[2, 2])?;
    assert_close(&host(&nil.try_matrix_exp()?), &[1., 1., 0., 1.], 1e-15);
    let f32m = Tensor::<f32, D>::from_vec_on(vec![1., 2., -3., 0.5], [2, 2], dev)?;
    let e4 = [
        -1.471740961074829,
        1.1258811950683594,
        -1.688821792602539,
        -1.7532117366790771,
    ];
    let got: Vec<f64> = f32m
        .try_matrix_exp()?
        .try_to_vec()?
        .iter()
        .map(|&x| x as f64)
        .collect();
    assert_close(&got, &e4, 2e-6);
    let h = Tensor::<bf16, D>::from_vec_on(
        [1., 2., -3., 0.5].map(bf16::from_f32).to_vec(),
        [2, 2],
        dev,
    )?;
    let got: Vec<f64> = h
        .try_matrix_exp()?
        .try_to_vec()?
        .iter()
        .map(|x| x.to_f64())
        .collect();
    assert_close(&got, &e4, 1e-2);
    assert_eq!(t(vec![], &[0, 0])?.try_matrix_exp()?.dims(), &[0, 0]);
    assert!(matches!(
        tall.try_matrix_exp(),
        Err(Error::InvalidArgument {
            op: "matrix_exp",
            ..
        })
    ));

    let a6 = t(
        vec![
            0.126, -0.132, 0.64, 0.105, -0.536, 0.362, 1.304, 0.947, -0.704, -1.265, -0.623, 0.041,
            -2.325, -0.219, -1.246, -0.732, -0.544, -0.316, 0.412, 1.043, -0.129, 1.366, -0.665,
            0.352, 0.903, 0.094, -0.743, -0.922, -0.458, 0.22, -1.01, -0.209, -0.159, 0.541, 0.215,
            0.355,
        ],
        &[2, 3, 6],
    )?;
    let rhs = t(vec![-0.654, -0.13, 0.784, 1.493, -1.259, 1.514], &[2, 3])?;
    let xs = a6.try_tensorsolve(&rhs)?;
    let want = [
        -1.1992430819951905,
        2.47569292907188,
        0.148840251099611,
        -0.07151906276551336,
        1.5409631185813575,
        1.5527736668925907,
    ];
    assert_eq!(xs.dims(), &[6]);
    assert_close(&host(&xs), &want, 1e-12);
    assert!(a6.try_tensorsolve(&t(vec![1., 2.], &[2])?).is_err());
    let sq = a6.try_reshape([6, 6])?.try_reshape([2, 3, 2, 3])?;
    let inv = sq.try_tensorinv(2)?;
    assert_eq!(inv.dims(), &[2, 3, 2, 3]);
    let id = sq.try_tensordot(&inv, &[2, 3], &[0, 1])?;
    assert_close(
        &host(&id.try_reshape([6, 6])?),
        &host(&Tensor::<f64, D>::eye_on(6, dev)?),
        1e-12,
    );
    assert!(a6.try_tensorinv(1).is_err());
    assert!(a6.try_tensorinv(0).is_err());
    assert_close(
        &host(&tall.try_svdvals()?),
        &[8.039754922197856, 5.13442701681457],
        1e-14,
    );
    Ok(())
}

#[test]
fn factorizations_match_pytorch_and_scipy_on_every_device() {
    on_every_device!("factorizations_match_pytorch_and_scipy", |dev| {
        values(&dev).unwrap();
    });
}

#[test]
fn factorization_gradients_and_refusals() {
    let t = |v: Vec<f64>, s: &[usize]| Tensor::<f64>::from_vec(v, s.to_vec()).unwrap();
    let sq = t(vec![2., -1., 0.5, 4., 3., -2., -6., 1., 1.], &[3, 3]);
    let tall = t(vec![1., 2., 3., 4., 5., -6., 0.5, 1.5], &[4, 2]);
    let wide = tall.t();
    for (name, a) in [("square", &sq), ("tall", &tall), ("wide", &wide)] {
        let w = |x: &Tensor<f64>| -> Result<Tensor<f64>> {
            // A fixed weighting, so every element's gradient differs.
            let n = x.numel();
            let c = Tensor::<f64>::from_vec(
                (0..n).map(|i| 0.3 + i as f64 * 0.17).collect(),
                x.dims().to_vec(),
            )?;
            x.try_mul(&c)
        };
        gradcheck(&format!("lu L {name}"), &[a.clone()], |v| {
            w(&v[0].try_lu()?.1)
        });
        gradcheck(&format!("lu U {name}"), &[a.clone()], |v| {
            w(&v[0].try_lu()?.2)
        });
        gradcheck(&format!("lu_factor {name}"), &[a.clone()], |v| {
            w(&v[0].try_lu_factor()?.0)
        });
    }
    let b = t(vec![1., 2., 3., 4., 5., 6.], &[3, 2]);
    gradcheck("lu_solve", &[sq.clone(), b.clone()], |v| {
        let (lu, piv) = v[0].try_lu_factor()?;
        Tensor::try_lu_solve(&lu, &piv, &v[1])
    });
    let m = t(vec![0.1, 2., -1., 0.5, -0.3, 0.2, 1.5, 0., 0.7], &[3, 3]);
    gradcheck("matrix_exp", &[m.clone()], |v| v[0].try_matrix_exp());
    gradcheck(
        "matrix_exp scaled",
        &[m.try_mul_scalar(6.0).unwrap()],
        |v| v[0].try_matrix_exp(),
    );
    gradcheck("svdvals", &[tall.clone()], |v| v[0].try_svdvals());
    gradcheck("tensorinv", &[sq.clone()], |v| v[0].try_tensorinv(1));
    gradcheck(
        "tensorsolve",
        &[sq.clone(), t(vec![1., -1., 2.], &[3])],
        |v| v[0].try_tensorsolve(&v[1]),
    );

    // Refusals, and the inputs unchanged.
    let before = sq.to_vec();
    let (lu, piv) = sq.lu_factor();
    let b = t(vec![1., 2., 3.], &[3, 1]);
    let bad = Tensor::<i32>::from_vec(vec![1, 4, 3], [3]).unwrap();
    assert!(matches!(
        Tensor::try_lu_solve(&lu, &bad, &b),
        Err(Error::InvalidArgument { op: "lu_solve", .. })
    ));
    let zero = Tensor::<i32>::from_vec(vec![0, 2, 3], [3]).unwrap();
    assert!(Tensor::try_lu_solve(&lu, &zero, &b).is_err());
    assert!(Tensor::try_lu_solve(&lu, &piv, &t(vec![1., 2.], &[2, 1])).is_err());
    assert!(Tensor::try_lu_solve(&tall, &piv, &b).is_err());
    assert!(Tensor::try_lu_solve(&lu, &piv.reshape([1, 3]), &b).is_err());
    assert!(t(vec![1., 2.], &[2]).try_lu().is_err());
    assert_eq!(sq.to_vec(), before);
    // Empty and NaN input.
    let (p, l, u) = Tensor::<f64>::zeros([2, 3, 0]).unwrap().lu();
    assert_eq!(
        (p.dims(), l.dims(), u.dims()),
        (&[2, 3, 3][..], &[2, 3, 0][..], &[2, 0, 0][..])
    );
    assert_eq!(p.to_vec()[..9], [1., 0., 0., 0., 1., 0., 0., 0., 1.]);
    let (p, l, u) = Tensor::<f64>::zeros([0, 2]).unwrap().lu();
    assert_eq!(
        (p.dims(), l.dims(), u.dims()),
        (&[0, 0][..], &[0, 0][..], &[0, 2][..])
    );
    let nan = t(vec![f64::NAN, 1., 2., 3.], &[2, 2]);
    let _ = nan.lu();
    assert!(nan.matrix_exp().to_vec().iter().all(|x| x.is_nan()));
    let huge = t(vec![1e300, 0., 0., -1e300], &[2, 2]);
    let e = huge.matrix_exp().to_vec();
    assert!(e[0].is_infinite() || e[0].is_nan(), "{e:?}");
}

#[test]
fn dyn_tensor_factorizations() {
    let a = DynTensor::from(tensor![[1i32, 2], [3, 4]]);
    let (p, l, u) = a.lu().unwrap();
    assert_eq!(
        (p.dtype(), l.dtype(), u.dtype()),
        (Dtype::Float32, Dtype::Float32, Dtype::Float32)
    );
    assert_eq!(u.to_vec::<f32>().unwrap(), [3.0, 4.0, 0.0, 2.0 / 3.0]);
    let (lu, piv) = a.lu_factor().unwrap();
    assert_eq!((lu.dtype(), piv.dtype()), (Dtype::Float32, Dtype::Int32));
    assert!(
        a.matrix_exp()
            .unwrap_err()
            .to_string()
            .contains("matrix_exp")
    );
    let f = DynTensor::from(tensor![[0.0f64, 1.0], [-1.0, 0.0]]);
    let e = f.matrix_exp().unwrap().to_vec::<f64>().unwrap();
    let (c, s) = (1f64.cos(), 1f64.sin());
    assert_close(&e, &[c, s, -s, c], 1e-15);
    assert_close(
        &a.svdvals()
            .unwrap()
            .to_dtype(Dtype::Float64)
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        &[5.464985704219043, 0.3659661906262578],
        1e-6,
    );
}

/// `householder_product` against PyTorch 2.15 (batched, fewer reflectors than columns), on
/// every device; Q of a QR factorization is orthonormal; its gradient; its errors.
#[test]
fn householder_product_matches_pytorch() {
    on_every_device!("householder_product", |dev| {
        let a: Vec<f64> = (0..24).map(|i| (0.37 * i as f64 + 0.1).sin()).collect();
        let a = Tensor::<f64, _>::from_vec_on(a, [2, 4, 3], &dev).unwrap();
        let tau = Tensor::<f64, _>::from_vec_on(vec![1.2, 0.4, -0.3, 0.9], [2, 2], &dev).unwrap();
        let want = [
            -0.19999999999999996,
            -0.43672836269954535,
            -0.5793032322730081,
            -1.122739201864063,
            0.1913899555260945,
            -0.7165650067302747,
            -0.8786777328363017,
            -0.494345872532506,
            0.49963829413726285,
            0.341310855043755,
            0.36895993212278855,
            0.2715744234218595,
            1.3,
            -0.3606869252197387,
            0.0004574941151318068,
            -0.177514674189303,
            0.3134240733824114,
            -0.674527619894491,
            0.1376854459133071,
            -0.8397947139451184,
            0.49507398382575846,
            0.2999615126154417,
            -1.1944145981788412,
            -0.6241846171882267,
        ];
        let q = a.try_householder_product(&tau).unwrap();
        assert_eq!(q.dims(), [2, 4, 3]);
        assert_close(&q.try_to_vec().unwrap(), &want, 1e-14);
        // With τ = 2/|v|² each reflector is orthogonal, so the columns are orthonormal.
        let v = a.select(0, 0).unwrap();
        let norms: Vec<f64> = (0..3)
            .map(|i| {
                let col: Vec<f64> = v.try_to_vec().unwrap().chunks(3).map(|r| r[i]).collect();
                2.0 / (1.0 + col[i + 1..].iter().map(|x| x * x).sum::<f64>())
            })
            .collect();
        let tau = Tensor::<f64, _>::from_vec_on(norms, [3], &dev).unwrap();
        let q = v.try_householder_product(&tau).unwrap();
        let gram = q.transpose(0, 1).unwrap().try_matmul(&q).unwrap();
        let eye = Tensor::<f64, _>::eye_on(3, &dev).unwrap();
        assert_close(
            &gram.try_to_vec().unwrap(),
            &eye.try_to_vec().unwrap(),
            1e-14,
        );
    });
    let a = Tensor::<f64>::from_vec((0..12).map(|i| (0.53 * i as f64).cos()).collect(), [4, 3])
        .unwrap();
    let tau = Tensor::<f64>::from_vec(vec![0.7, -0.2, 1.1], [3]).unwrap();
    crate::common::check_grad(
        "householder_product",
        &|v| v[0].try_householder_product(&v[1]),
        &[a.clone(), tau.clone()],
    );
    let e = |r: Result<Tensor<f64>>| r.unwrap_err().to_string();
    assert!(
        e(a.transpose(0, 1).unwrap().try_householder_product(&tau))
            .starts_with("householder_product")
    );
    assert!(e(a.try_householder_product(&Tensor::zeros([4]).unwrap())).contains("k <= n"));
    assert!(
        e(a.try_householder_product(&Tensor::zeros([1, 3]).unwrap()))
            .starts_with("householder_product")
    );
    let empty = Tensor::<f64>::zeros([0, 1 << 40, 1 << 30]).unwrap();
    assert!(
        empty
            .try_householder_product(&Tensor::zeros([0, 1]).unwrap())
            .is_err()
    );
}
