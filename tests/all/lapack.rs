//! `geqrf`, `ormqr`, `ldl_factor`/`ldl_factor_ex`/`ldl_solve`, `matrix_sqrth` and `polar` on every
//! device against PyTorch 2.15 (values, pivots, gradients) and by their identities, with the
//! refusals. The constants come from `tests/data/torch_grads/make/lapack.py`.

use crate::common::{assert_close, check_grad, host_f64s};
use typed_tensor::prelude::*;

#[test]
fn geqrf_and_ormqr_match_pytorch() {
    on_every_device!("geqrf_ormqr", |dev| {
        let t =
            |v: &[f64], s: &[usize]| Tensor::<f64, _>::from_vec_on(v.to_vec(), s, &dev).unwrap();
        let a = t(
            &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0, 0.0, 1.0, -1.0],
            &[4, 3],
        );
        let (qr, tau) = a.geqrf();
        assert_close(&host_f64s(&qr), QR_A, 1e-13);
        assert_close(&host_f64s(&tau), QR_TAU, 1e-13);
        let (qr_w, tau_w) = a.t().geqrf();
        assert_close(&host_f64s(&qr_w), QR_A_WIDE, 1e-13);
        assert_close(&host_f64s(&tau_w), QR_TAU_WIDE, 1e-13);
        // Integers promote; a batch is each matrix on its own.
        let ai = Tensor::<i32, _>::from_vec_on(vec![3, 1, 4, 2], [2, 2], &dev).unwrap();
        let (qi, ti) = ai.geqrf();
        let (qf, tf) = ai.try_cast::<f32>().unwrap().geqrf();
        assert_eq!(
            (host_f64s(&qi), host_f64s(&ti)),
            (host_f64s(&qf), host_f64s(&tf))
        );
        let both = Tensor::stack(&[&a, &a.mul_scalar(-2.0)], 0);
        let (qb, tb) = both.geqrf();
        assert_close(&host_f64s(&qb.select(0, 0).unwrap()), QR_A, 1e-13);
        let (q2, t2) = a.mul_scalar(-2.0).geqrf();
        assert_close(
            &host_f64s(&qb.select(0, 1).unwrap()),
            &host_f64s(&q2),
            1e-13,
        );
        assert_close(
            &host_f64s(&tb.select(0, 1).unwrap()),
            &host_f64s(&t2),
            1e-13,
        );
        // A zero column below the diagonal is already reduced: τ = 0, the entry kept.
        let (z, zt) = t(&[0.0, 1.0, 0.0, 0.0], &[2, 2]).geqrf();
        assert_eq!(
            (host_f64s(&z), host_f64s(&zt)),
            (vec![0.0, 1.0, 0.0, 0.0], vec![0.0, 0.0])
        );
        // Empty stacks, one whose matrices' element count overflows (a fuzzer find).
        for dims in [
            &[0usize, 3][..],
            &[3, 0],
            &[2, 0, 0],
            &[0, 1 << 33, 1 << 33],
        ] {
            let (e, et) = Tensor::<f64, _>::zeros_on(dims, &dev).unwrap().geqrf();
            assert_eq!(e.dims(), dims);
            assert_eq!(et.numel(), 0);
        }
        assert!(t(&[1.0, 2.0], &[2]).try_geqrf().is_err());
        let leaf = a.clone().with_requires_grad(true).unwrap();
        let (r, _) = leaf.geqrf();
        let e = r.try_sum(&[], false).unwrap().try_backward().unwrap_err();
        assert!(e.to_string().contains("geqrf"), "{e}");

        // ormqr on both sides, with and without Qᵀ.
        let c = t(&[-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0], &[4, 2]);
        let c2 = t(&[-1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5], &[2, 4]);
        for (got, want) in [
            (qr.ormqr(&tau, &c, true, false), ORM_LN),
            (qr.ormqr(&tau, &c, true, true), ORM_LT),
            (qr.ormqr(&tau, &c2, false, false), ORM_RN),
            (qr.ormqr(&tau, &c2, false, true), ORM_RT),
        ] {
            assert_close(&host_f64s(&got), want, 1e-12);
        }
        // Q's first columns are householder_product's; Qᵀ·Q = I; Q·R = A.
        let eye = Tensor::<f64, _>::eye_on(4, &dev).unwrap();
        let q = qr.ormqr(&tau, &eye, true, false);
        let reduced = qr.householder_product(&tau);
        assert_close(
            &host_f64s(&q.narrow(-1, 0, 3).unwrap()),
            &host_f64s(&reduced),
            1e-13,
        );
        let qtq = qr.ormqr(&tau, &q, true, true);
        assert_close(&host_f64s(&qtq), &host_f64s(&eye), 1e-13);
        let r = qr.triu(0);
        assert_close(
            &host_f64s(
                &q.narrow(-1, 0, 3)
                    .unwrap()
                    .matmul(&r.narrow(-2, 0, 3).unwrap()),
            ),
            &host_f64s(&a),
            1e-13,
        );
        // Gradients in all three operands (PyTorch's, through the reflectors).
        let leaf = |x: &Tensor<f64, _>| x.detach().with_requires_grad(true).unwrap();
        let (ga, gt, gc) = (leaf(&qr), leaf(&tau), leaf(&c));
        let w = Tensor::<f64, _>::linspace_on(-1.0, 1.0, 8, &dev)
            .unwrap()
            .try_reshape([4, 2])
            .unwrap();
        ga.ormqr(&gt, &gc, true, true)
            .mul(&w)
            .sum(&[], false)
            .backward();
        let g = |x: &Tensor<f64, _>| host_f64s(&x.grad_tensor().unwrap());
        assert_close(&g(&ga), ORM_GA, 1e-11);
        assert_close(&g(&gt), ORM_GTAU, 1e-11);
        assert_close(&g(&gc), ORM_GC, 1e-11);
        // PyTorch's checks: q rows (left) or columns (right), k = min(q, c) scalars, one batch.
        assert!(
            qr.try_ormqr(&tau, &t(&[0.0; 6], &[3, 2]), true, false)
                .is_err()
        );
        assert!(qr.try_ormqr(&tau, &c, false, false).is_err());
        assert!(
            qr.try_ormqr(&tau.narrow(0, 0, 2).unwrap(), &c, true, false)
                .is_err()
        );
        assert!(
            qr.try_ormqr(&tau, &c.unsqueeze(0).unwrap(), true, false)
                .is_err()
        );
        let batch = qr.unsqueeze(0).unwrap().expand([2, 4, 3]).unwrap();
        let tb = tau.unsqueeze(0).unwrap().expand([2, 3]).unwrap();
        assert!(batch.try_ormqr(&tb, &c, true, false).is_err());
        let cb = c.unsqueeze(0).unwrap().expand([2, 4, 2]).unwrap();
        assert_close(
            &host_f64s(&batch.ormqr(&tb, &cb, true, false).select(0, 1).unwrap()),
            ORM_LN,
            1e-12,
        );
    });
}

#[test]
fn ldl_factor_and_solve_match_pytorch() {
    on_every_device!("ldl", |dev| {
        let t =
            |v: &[f64], s: &[usize]| Tensor::<f64, _>::from_vec_on(v.to_vec(), s, &dev).unwrap();
        let s1 = t(&[0.0, 1.0, 2.0, 1.0, 0.0, 3.0, 2.0, 3.0, 0.0], &[3, 3]);
        let s2 = t(
            &[
                1.0, 2.0, 3.0, 0.5, 2.0, -1.0, 4.0, 1.0, 3.0, 4.0, 0.5, -2.0, 0.5, 1.0, -2.0, 6.0,
            ],
            &[4, 4],
        );
        let s3 = t(
            &[
                0.1, 5.0, 0.2, 0.3, 5.0, 0.2, 0.1, 0.4, 0.2, 0.1, 9.0, 0.5, 0.3, 0.4, 0.5, 0.01,
            ],
            &[4, 4],
        );
        let s4 = t(
            &[
                4.0, 1.0, 0.5, 0.2, 1.0, 3.0, 0.2, 0.1, 0.5, 0.2, 2.0, 0.3, 0.2, 0.1, 0.3, 1.0,
            ],
            &[4, 4],
        );
        for (s, ld_want, piv_want) in [
            (&s1, LDL_S1, PIV_S1),
            (&s2, LDL_S2, PIV_S2),
            (&s3, LDL_S3, PIV_S3),
            (&s4, LDL_S4, PIV_S4),
        ] {
            let (ld, piv) = s.ldl_factor();
            assert_close(&host_f64s(&ld), ld_want, 1e-13);
            assert_eq!(piv.to_device(&Cpu).unwrap().to_vec(), piv_want);
            // The upper triangle is never read.
            let (ld_l, _) = s.tril(0).ldl_factor();
            assert_eq!(host_f64s(&ld_l), host_f64s(&ld));
        }
        let (ld, piv) = s2.ldl_factor();
        let b = Tensor::<f64, _>::linspace_on(-2.0, 3.0, 24, &dev)
            .unwrap()
            .try_reshape([3, 4, 2])
            .unwrap();
        assert_close(&host_f64s(&Tensor::ldl_solve(&ld, &piv, &b)), LDL_X, 1e-12);
        // A larger indefinite matrix: A·A⁻¹ = I through the factors, batched.
        let n = 24;
        let vals: Vec<f64> = (0..2 * n * n)
            .map(|i| ((i * 7919 % 101) as f64 - 50.0) / 17.0)
            .collect();
        let m = t(&vals, &[2, n, n]);
        let sym = m.add(&m.transpose(-1, -2).unwrap());
        let (ld, piv) = sym.ldl_factor();
        let eye = Tensor::<f64, _>::eye_on(n, &dev).unwrap();
        let inv = Tensor::ldl_solve(&ld, &piv, &eye);
        let prod = host_f64s(&sym.matmul(&inv));
        let want: Vec<f64> = (0..2 * n * n)
            .map(|i| f64::from(i % (n * n) % (n + 1) == 0))
            .collect();
        assert_close(&prod, &want, 1e-9);
        assert!(
            host_f64s(&piv.try_cast::<f64>().unwrap())
                .iter()
                .any(|&p| p < 0.0)
        );
        // Singular: `Err` for ldl_factor, `info` for the `_ex` form; empty matrices factor.
        let z = t(&[1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0], &[2, 2, 2]);
        assert!(
            z.try_ldl_factor()
                .unwrap_err()
                .to_string()
                .contains("ldl_factor")
        );
        let (_, _, info) = z.ldl_factor_ex();
        assert_eq!(info.to_device(&Cpu).unwrap().to_vec(), vec![0, 1]);
        let (e, ep, ei) = Tensor::<f64, _>::zeros_on([3, 0, 0], &dev)
            .unwrap()
            .ldl_factor_ex();
        assert_eq!(
            (e.dims(), ep.dims(), ei.dims()),
            (&[3, 0, 0][..], &[3, 0][..], &[3][..])
        );
        assert!(t(&[0.0; 6], &[2, 3]).try_ldl_factor().is_err());
        let huge = Tensor::<f64, _>::zeros_on([0, 1 << 33, 1 << 33], &dev).unwrap();
        let (e, ep) = huge.ldl_factor();
        assert_eq!(
            (e.dims(), ep.dims()),
            (&[0, 1 << 33, 1 << 33][..], &[0, 1 << 33][..])
        );
        let (e, _) = huge.geqrf();
        assert_eq!(
            e.ormqr(
                &Tensor::zeros_on([0, 1 << 33], &dev).unwrap(),
                &huge,
                true,
                false
            )
            .dims(),
            huge.dims()
        );
        // Hostile pivots are refused before any row is read.
        let (ld, _) = s1.ldl_factor();
        let eye3 = Tensor::<f64, _>::eye_on(3, &dev).unwrap();
        for bad in [[0, 1, 2], [4, 2, 3], [1, 2, -3], [-2, 1, 3], [-4, -4, 3]] {
            let p = Tensor::<i32, _>::from_vec_on(bad.to_vec(), [3], &dev).unwrap();
            let e = Tensor::try_ldl_solve(&ld, &p, &eye3).unwrap_err();
            assert!(e.to_string().contains("LAPACK's format"), "{bad:?}: {e}");
        }
        let (ld, piv) = s2.ldl_factor();
        assert!(Tensor::try_ldl_solve(&ld, &piv, &t(&[0.0; 3], &[3, 1])).is_err());
        assert!(Tensor::try_ldl_solve(&ld, &piv, &t(&[0.0; 4], &[4])).is_err());
        assert!(Tensor::try_ldl_solve(&ld, &piv.narrow(0, 0, 3).unwrap(), &b).is_err());
        // Differentiable in b (A⁻¹ applied to the gradient, summed over the broadcast batch);
        // a gradient through LD is an `Err`, as in PyTorch.
        let bl = b.narrow(0, 0, 1).unwrap().with_requires_grad(true).unwrap();
        let x = Tensor::ldl_solve(&ld, &piv, &bl.expand([3, 4, 2]).unwrap());
        x.sum(&[], false).backward();
        let want = s2
            .inverse()
            .matmul(&Tensor::<f64, _>::ones_on([4, 2], &dev).unwrap())
            .mul_scalar(3.0);
        assert_close(
            &host_f64s(&bl.grad_tensor().unwrap()),
            &host_f64s(&want.unsqueeze(0).unwrap()),
            1e-12,
        );
        let ldl = ld.with_requires_grad(true).unwrap();
        let e = Tensor::ldl_solve(&ldl, &piv, &b)
            .sum(&[], false)
            .try_backward()
            .unwrap_err();
        assert!(e.to_string().contains("ldl_solve"), "{e}");
    });
}

#[test]
fn ldl_solve_gradient_checks() {
    let s = Tensor::<f64>::from_vec(vec![1.0, 2.0, 3.0, 2.0, -1.0, 4.0, 3.0, 4.0, 0.5], [3, 3])
        .unwrap();
    let (ld, piv) = s.ldl_factor();
    let b = Tensor::<f64>::from_vec(vec![0.3, -1.2, 2.0, 0.7, 1.1, -0.4], [3, 2]).unwrap();
    check_grad(
        "ldl_solve",
        &|x| Tensor::try_ldl_solve(&ld, &piv, &x[0]),
        &[b],
    );
}

#[test]
fn matrix_sqrth_matches_pytorch() {
    on_every_device!("matrix_sqrth", |dev| {
        let t =
            |v: &[f64], s: &[usize]| Tensor::<f64, _>::from_vec_on(v.to_vec(), s, &dev).unwrap();
        let a = t(&[4.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 2.0], &[3, 3])
            .with_requires_grad(true)
            .unwrap();
        let x = a.matrix_sqrth();
        assert_close(&host_f64s(&x), SQRTH, 1e-13);
        let w = Tensor::<f64, _>::arange_on(0.0, 9.0, 1.0, &dev)
            .unwrap()
            .try_reshape([3, 3])
            .unwrap();
        x.mul(&w).sum(&[], false).backward();
        assert_close(&host_f64s(&a.grad_tensor().unwrap()), SQRTH_G, 1e-12);
        let xx = x.matmul(&x);
        assert_close(&host_f64s(&xx), &host_f64s(&a), 1e-13);
        assert_close(
            &host_f64s(&t(&[4.0, 1.0, 1.0, 0.0], &[2, 2]).matrix_sqrth()),
            SQRTH_INDEF,
            1e-13,
        );
        assert_close(
            &host_f64s(&t(&[4.0, 100.0, 1.0, 9.0], &[2, 2]).matrix_sqrth()),
            SQRTH_UPPER_IGNORED,
            1e-13,
        );
        // Repeated eigenvalues: the identity's gradient is sym(g)/2, finite.
        let eye = Tensor::<f64, _>::eye_on(3, &dev)
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        eye.matrix_sqrth().mul(&w).sum(&[], false).backward();
        let want: Vec<f64> = (0..9)
            .map(|i| ((i / 3 * 3 + i % 3) + (i % 3 * 3 + i / 3)) as f64 / 4.0)
            .collect();
        assert_close(&host_f64s(&eye.grad_tensor().unwrap()), &want, 1e-13);
        // Integers promote; batches and empty stacks keep their shape; f32 agrees with f64.
        let i = Tensor::<i64, _>::from_vec_on(vec![4, 0, 0, 9], [1, 2, 2], &dev).unwrap();
        assert_eq!(host_f64s(&i.matrix_sqrth()), vec![2.0, 0.0, 0.0, 3.0]);
        assert_eq!(
            Tensor::<f32, _>::zeros_on([2, 0, 0], &dev)
                .unwrap()
                .matrix_sqrth()
                .dims(),
            [2, 0, 0]
        );
        let f = a.detach().try_cast::<f32>().unwrap().matrix_sqrth();
        assert_close(&host_f64s(&f), SQRTH, 1e-6);
        assert!(t(&[1.0; 6], &[2, 3]).try_matrix_sqrth().is_err());
    });
}

#[test]
fn matrix_sqrth_gradient_checks() {
    // Of a symmetric positive-definite function of x, so every entry of x matters.
    let x = Tensor::<f64>::from_vec(vec![0.4, -0.3, 0.2, 0.1, 0.9, 0.5, -0.2, 0.3, 0.6], [3, 3])
        .unwrap();
    check_grad(
        "matrix_sqrth",
        &|x| {
            let spd = x[0].try_matmul(&x[0].t())?.try_add(&Tensor::eye(3)?)?;
            spd.try_matrix_sqrth()
        },
        &[x],
    );
}

#[test]
fn polar_matches_pytorch() {
    on_every_device!("polar", |dev| {
        let t =
            |v: &[f64], s: &[usize]| Tensor::<f64, _>::from_vec_on(v.to_vec(), s, &dev).unwrap();
        let a = t(
            &[2.0, 1.0, 0.5, 0.3, 1.5, -0.2, 0.1, 0.4, 1.2, 1.0, -0.5, 0.3],
            &[4, 3],
        )
        .with_requires_grad(true)
        .unwrap();
        let (u, h) = a.polar();
        assert_close(&host_f64s(&u), POLAR_U, 1e-13);
        assert_close(&host_f64s(&h), POLAR_H, 1e-13);
        let gu = Tensor::<f64, _>::linspace_on(-1.0, 1.0, 12, &dev)
            .unwrap()
            .try_reshape([4, 3])
            .unwrap();
        let gh = Tensor::<f64, _>::linspace_on(0.5, -0.7, 9, &dev)
            .unwrap()
            .try_reshape([3, 3])
            .unwrap();
        u.mul(&gu)
            .sum(&[], false)
            .add(&h.mul(&gh).sum(&[], false))
            .backward();
        assert_close(&host_f64s(&a.grad_tensor().unwrap()), POLAR_G, 1e-11);
        // An orthogonal matrix (every singular value 1): PyTorch's gradient 0.5·I, finite.
        let q = t(&[0.0, 1.0, 1.0, 0.0], &[2, 2])
            .with_requires_grad(true)
            .unwrap();
        let (u, h) = q.polar();
        u.sum(&[], false)
            .add(&h.select(0, 0).unwrap().select(0, 1).unwrap())
            .backward();
        assert_close(
            &host_f64s(&q.grad_tensor().unwrap()),
            &[0.5, 0.0, 0.0, 0.5],
            1e-13,
        );
        // U·H = A, UᵀU = I; batches, empty matrices, the refusals.
        let (u, h) = a
            .detach()
            .unsqueeze(0)
            .unwrap()
            .expand([2, 4, 3])
            .unwrap()
            .polar();
        assert_close(
            &host_f64s(&u.matmul(&h)),
            &host_f64s(&a.detach().unsqueeze(0).unwrap().expand([2, 4, 3]).unwrap()),
            1e-13,
        );
        assert_eq!(
            Tensor::<f64, _>::zeros_on([3, 0], &dev)
                .unwrap()
                .polar()
                .1
                .dims(),
            [0, 0]
        );
        assert!(t(&[1.0; 6], &[2, 3]).try_polar().is_err());
        assert!(t(&[1.0; 3], &[3]).try_polar().is_err());
    });
}

#[test]
fn polar_gradient_checks() {
    let a = Tensor::<f64>::from_vec(vec![2.0, 1.0, 0.5, 0.3, 1.5, -0.2, 0.1, 0.4, 1.2], [3, 3])
        .unwrap();
    check_grad("polar U", &|x| Ok(x[0].try_polar()?.0), &[a.clone()]);
    check_grad("polar H", &|x| Ok(x[0].try_polar()?.1), &[a]);
}

const POLAR_U: &[f64] = &[
    0.8291946667107221,
    0.31673945290000977,
    0.11794689139777123,
    -0.007607405734461066,
    0.8273384869971745,
    -0.22369094888915161,
    -0.16590044433786022,
    0.20247190070181492,
    0.9609610109646135,
    0.5337184413574144,
    -0.4173634822741737,
    0.11227121447878705,
];
const POLAR_H: &[f64] = &[
    2.1732355086247344,
    0.48456415969518035,
    0.37715381370404566,
    0.48456415969518035,
    1.8474176848135857,
    0.11065926521049614,
    0.37715381370404566,
    0.11065926521049614,
    1.290546212977889,
];
const POLAR_G: &[f64] = &[
    0.43346261834431504,
    -0.004610955901515237,
    -0.9204499397022445,
    0.15168857397712995,
    0.11782657255814921,
    -0.12209372656551001,
    0.08030071024216844,
    -0.04034614031648498,
    -0.7132745152640307,
    0.2905108324408512,
    0.4500945455967423,
    0.5939362740421078,
];
const QR_A: &[f64] = &[
    -8.124038404635959,
    -9.601136296387953,
    -11.939874624995277,
    0.438402363362213,
    1.3483997249264839,
    0.2696799449852977,
    0.7672041358838727,
    0.6277618056651791,
    1.8348478592697193,
    0.0,
    -0.6971724730935992,
    0.5646998492792077,
];
const QR_TAU: &[f64] = &[1.1230914909793328, 1.0637537730351554, 1.5164313834965661];
const QR_A_WIDE: &[f64] = &[
    -3.7416573867739418,
    -8.552359741197577,
    -14.16484582135849,
    0.2672612419124244,
    0.4217934441190679,
    1.9639610121239293,
    3.491486243775877,
    0.654653670707978,
    0.6326901661786019,
    0.8597677535291117,
    0.4082482904638649,
    -1.2247448713915887,
];
const QR_TAU_WIDE: &[f64] = &[1.2672612419124243, 1.1499536117281508, 0.0];
const ORM_LN: &[f64] = &[
    -0.23894406593583284,
    0.7408242517498342,
    3.848516389024131,
    4.440525616499901,
    1.316713389106742,
    -0.3221214154967882,
    -1.8433917618655458,
    -1.905032669248961,
];
const ORM_LT: &[f64] = &[
    0.0,
    -1.4770978917519928,
    7.771561172376096e-16,
    1.348399724926485,
    -4.360034517076558,
    -4.360034517076556,
    -0.9950371902099904,
    -0.9950371902099899,
];
const ORM_RN: &[f64] = &[
    0.3692744729379984,
    -0.3370999312316211,
    -1.0900086292691396,
    -0.24875929755249748,
    -2.584921310565988,
    2.3596995186213485,
    -1.0900086292691384,
    -0.24875929755249793,
];
const ORM_RT: &[f64] = &[
    -0.30467809590537487,
    0.8141267903870901,
    0.7388870484275679,
    -0.4454377136205325,
    1.6548585394659592,
    1.9981452453386308,
    -2.5387825607794916,
    -0.5687195283873636,
];
const ORM_GA: &[f64] = &[
    0.0,
    0.0,
    0.0,
    1.6509279615829853,
    0.0,
    0.0,
    2.131347473921594,
    4.989068330558639,
    0.0,
    3.6855806439861256,
    7.308634885346555,
    -20.311630127641678,
];
const ORM_GTAU: &[f64] = &[-2.208995477692563, -0.6662240751804243, -7.57724252639164];
const ORM_GC: &[f64] = &[
    -0.20823663565104744,
    0.07169716940200022,
    1.015003364367499,
    1.1841488579320045,
    0.6103230832595733,
    0.14208456765856492,
    -0.5178775166210967,
    -0.5354892044449296,
];
const LDL_S1: &[f64] = &[0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 1.5, 0.5, -3.0];
const PIV_S1: &[i32] = &[-3, -3, 3];
const LDL_S2: &[f64] = &[
    1.0,
    0.0,
    0.0,
    0.0,
    3.0,
    0.5,
    0.0,
    0.0,
    1.2941176470588236,
    0.23529411764705888,
    -4.529411764705882,
    0.0,
    -0.7352941176470589,
    0.4117647058823529,
    -0.18181818181818185,
    7.34090909090909,
];
const PIV_S2: &[i32] = &[-3, -3, 3, 4];
const LDL_S3: &[f64] = &[
    0.1,
    0.0,
    0.0,
    0.0,
    5.0,
    0.2,
    0.0,
    0.0,
    0.018414731785428344,
    0.039631705364291434,
    8.992353883106484,
    0.0,
    0.07766212970376302,
    0.05844675740592474,
    0.05322554078057598,
    -0.06215230446647584,
];
const PIV_S3: &[i32] = &[-2, -2, 3, 4];
const LDL_S4: &[f64] = &[
    4.0,
    0.0,
    0.0,
    0.0,
    0.25,
    2.75,
    0.0,
    0.0,
    0.125,
    0.02727272727272728,
    1.9354545454545455,
    0.0,
    0.05,
    0.018181818181818184,
    0.1413809300140911,
    0.950403945514326,
];
const PIV_S4: &[i32] = &[1, 2, 3, 4];
const LDL_X: &[f64] = &[
    -0.012922331403957488,
    0.036305597753975793,
    -0.3209045631982771,
    -0.2888871795857932,
    -0.4151298963521335,
    -0.3864777032094302,
    -0.1997577062861758,
    -0.16341364921254545,
    0.38090110185950815,
    0.4301290310174414,
    -0.06476549429840586,
    -0.03274811068592196,
    -0.1859123512105071,
    -0.15726015806780383,
    0.09099475030286715,
    0.12733880737649753,
    0.7747245351229736,
    0.8239524642809068,
    0.19137357460146542,
    0.22339095821394928,
    0.04330519393111931,
    0.07195738707382268,
    0.38174720689191016,
    0.4180912639655405,
];
const SQRTH: &[f64] = &[
    1.976580656375757,
    0.26922044932486017,
    0.14369849862298262,
    0.26922044932486017,
    1.7102165217242127,
    0.051766770102559784,
    0.14369849862298262,
    0.051766770102559784,
    1.4059413014086497,
];
const SQRTH_G: &[f64] = &[
    -0.12086223784033295,
    0.3925031992320353,
    0.9271083206814128,
    0.3925031992320353,
    1.0542262445465105,
    1.7651279208951731,
    0.9271083206814128,
    1.7651279208951731,
    2.6853190465291368,
];
const SQRTH_INDEF: &[f64] = &[
    1.9495275788956719,
    0.46022103262996295,
    0.46022103262996295,
    0.10864344837582006,
];
const SQRTH_UPPER_IGNORED: &[f64] = &[
    1.98990694260153,
    0.20067476120886102,
    0.20067476120886102,
    2.993280748645835,
];
