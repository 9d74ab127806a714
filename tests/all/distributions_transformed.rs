//! `TransformedDistribution` with every transform, `Rsample` through it, and `HalfNormal`,
//! `Weibull`, `Pareto`, on every device against PyTorch 2.15's values (below), with sample
//! moments, gradients and the refusals.

use crate::common::{assert_close, host_f64s};
use typed_tensor::distributions::{
    Distribution, EventTransform, HalfNormal, Normal, Pareto, Rsample, Transform,
    TransformedDistribution, Weibull,
};
use typed_tensor::prelude::*;

#[test]
fn transformed_distributions_match_pytorch() {
    on_every_device!("transformed", |dev| {
        let t = |v: &[f64]| Tensor::<f64, _>::from_vec_on(v.to_vec(), [v.len()], &dev).unwrap();
        let s = |v: f64| Tensor::<f64, _>::scalar_on(v, &dev).unwrap();
        let (mu, sd) = (t(&[0.0, 0.5, -1.0]), t(&[1.0, 2.0, 0.5]));
        let normal = || Normal::new(&mu, &sd).unwrap();
        let lp = |tr: Vec<Transform<f64, _>>, y: &[f64]| {
            let d = TransformedDistribution::new(normal(), tr).unwrap();
            host_f64s(&d.log_prob(&t(y)).unwrap())
        };
        assert_close(&lp(vec![Transform::Tanh], &[0.3, -0.9, 0.99]), TANH, 1e-12);
        let affine = Transform::Affine {
            loc: s(1.0),
            scale: s(-2.0),
        };
        assert_close(
            &lp(vec![affine, Transform::Exp], &[0.5, 2.0, 7.0]),
            AFFEXP,
            1e-12,
        );
        assert_close(&lp(vec![Transform::Sigmoid], &[0.1, 0.5, 0.97]), SIG, 1e-12);
        assert_close(
            &lp(vec![Transform::Softplus], &[0.1, 1.5, 4.0]),
            SOFTPLUS,
            1e-12,
        );
        let pow = Transform::Power(s(2.0));
        assert_close(
            &lp(vec![Transform::Exp, pow], &[0.1, 1.5, 4.0]),
            EXPPOW,
            1e-12,
        );
        // Gradients of log_prob in the parameters, through the tanh.
        let (m, v) = (
            t(&[0.0, 0.5, -1.0]).with_requires_grad(true).unwrap(),
            t(&[1.0, 2.0, 0.5]).with_requires_grad(true).unwrap(),
        );
        let d = TransformedDistribution::new(Normal::new(&m, &v).unwrap(), vec![Transform::Tanh])
            .unwrap();
        d.log_prob(&t(&[0.3, -0.9, 0.99]))
            .unwrap()
            .try_sum(&[], false)
            .unwrap()
            .backward();
        assert_close(&host_f64s(&m.grad_tensor().unwrap()), TANH_GMU, 1e-10);
        assert_close(&host_f64s(&v.grad_tensor().unwrap()), TANH_GS, 1e-10);
        // Samples: inside (-1, 1), of the batch shape, differentiable through rsample.
        let a = d.rsample(&[500]).unwrap();
        assert_eq!(a.dims(), [500, 3]);
        assert!(host_f64s(&a).iter().all(|x| x.abs() < 1.0));
        assert!(!d.sample(&[2]).unwrap().requires_grad());
        assert!(d.entropy().unwrap_err().to_string().contains("entropy"));
        // Transforms round-trip and the batch shape broadcasts with their parameters.
        let x = t(&[-0.7, 0.2, 1.3]);
        for tr in [
            Transform::Exp,
            Transform::Sigmoid,
            Transform::Tanh,
            Transform::Softplus,
            Transform::Power(s(3.0)),
        ] {
            let xp = if matches!(tr, Transform::Power(_)) {
                x.try_exp().unwrap()
            } else {
                x.clone()
            };
            let back = tr.inverse(&tr.forward(&xp).unwrap()).unwrap();
            assert_close(&host_f64s(&back), &host_f64s(&xp), 1e-9);
        }
        let wide = Transform::Affine {
            loc: Tensor::<f64, _>::zeros_on([2, 1], &dev).unwrap(),
            scale: s(3.0),
        };
        let d = TransformedDistribution::new(normal(), vec![wide]).unwrap();
        assert_eq!(d.batch_shape().dims(), [2, 3]);
        let zero = Transform::Affine {
            loc: s(0.0),
            scale: t(&[1.0, 0.0, 2.0]),
        };
        assert!(TransformedDistribution::new(normal(), vec![zero]).is_err());

        // HalfNormal, Weibull, Pareto.
        let sc = t(&[1.0, 2.5, 0.3]);
        let h = HalfNormal::new(&sc).unwrap();
        assert_close(
            &host_f64s(&h.log_prob(&t(&[0.0, 1.2, 0.7])).unwrap()),
            HN_LP,
            1e-12,
        );
        assert_close(&host_f64s(&h.entropy().unwrap()), HN_ENT, 1e-12);
        assert_close(&host_f64s(&h.mean().unwrap()), HN_MEAN, 1e-12);
        assert!(h.log_prob(&t(&[-0.1, 1.0, 1.0])).is_err());
        let w = Weibull::new(&sc, &t(&[0.5, 1.5, 3.0])).unwrap();
        assert_close(
            &host_f64s(&w.log_prob(&t(&[0.2, 1.2, 0.4])).unwrap()),
            WB_LP,
            1e-12,
        );
        assert_close(&host_f64s(&w.entropy().unwrap()), WB_ENT, 1e-12);
        assert_close(&host_f64s(&w.mean().unwrap()), WB_MEAN, 1e-12);
        let p = Pareto::new(&sc, &t(&[0.5, 2.0, 3.5])).unwrap();
        assert_close(
            &host_f64s(&p.log_prob(&t(&[1.5, 2.5, 0.31])).unwrap()),
            PA_LP,
            1e-12,
        );
        assert_close(&host_f64s(&p.entropy().unwrap()), PA_ENT, 1e-12);
        assert!(p.log_prob(&t(&[0.5, 2.5, 1.0])).is_err()); // below the scale
        assert!(Weibull::new(&sc, &t(&[1.0, -1.0, 1.0])).is_err());
        assert!(Pareto::new(&t(&[0.0]), &s(1.0)).is_err());
        assert!(HalfNormal::new(&t(&[f64::NAN])).is_err());
        // Sample means against the distributions' means (20000 draws: within 5%).
        let mean = |x: Tensor<f64, _>| host_f64s(&x.try_mean(&[0], false).unwrap());
        let got = mean(h.sample(&[20000]).unwrap());
        assert_close(&got, HN_MEAN, 0.05);
        let got = mean(w.rsample(&[20000]).unwrap());
        assert_close(&got, WB_MEAN, 0.05);
        let px = p.sample(&[2000]).unwrap();
        let lo: Vec<f64> = host_f64s(&px.try_amin(&[0], false).unwrap());
        assert!(lo.iter().zip([1.0, 2.5, 0.3]).all(|(l, s)| *l >= s));
        assert_eq!(Rsample::rsample(&p, &[4, 2]).unwrap().dims(), [4, 2, 3]);
    });
}

#[test]
fn transformed_rsample_gradients() {
    // d/dscale of the mean of Weibull samples is the mean's derivative, Γ(1 + 1/k).
    let scale = Tensor::<f64>::from_vec(vec![2.0], [1])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    let w = Weibull::new(&scale, &Tensor::from_vec(vec![1.5], [1]).unwrap()).unwrap();
    w.rsample(&[40000])
        .unwrap()
        .try_mean(&[], false)
        .unwrap()
        .backward();
    let want = 0.902_745_292_950_933_6; // Γ(1 + 1/1.5) = Γ(5/3)
    assert_close(&scale.grad().unwrap(), &[want], 0.03);
    // Through a TransformedDistribution of an Independent normal: d/dloc of E[exp(x)] is
    // E[exp(x)] = exp(loc + 1/2).
    let loc = Tensor::<f64>::from_vec(vec![0.0, 0.3], [2])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    let base = typed_tensor::distributions::Independent::new(
        Normal::new(&loc, &Tensor::scalar(1.0)).unwrap(),
        1,
    )
    .unwrap();
    let d = TransformedDistribution::new(base, vec![Transform::Exp]).unwrap();
    d.rsample(&[40000])
        .unwrap()
        .try_mean(&[0], false)
        .unwrap()
        .try_sum(&[], false)
        .unwrap()
        .backward();
    let want: Vec<f64> = [0.0f64, 0.3].iter().map(|l| (l + 0.5).exp()).collect();
    assert_close(&loc.grad().unwrap(), &want, 0.05);
}

const TANH: &[f64] = &[
    -0.8725290464264568,
    -0.43756072132945345,
    -22.904903438567814,
];
const TANH_GMU: &[f64] = &[0.30951960420311175, -0.4930548723958051, 14.586609649448983];
const TANH_GS: &[f64] = &[-0.904197614613949, -0.013793785613512743, 104.3845905326991];
const AFFEXP: &[f64] = &[-1.277281955084434, -3.0133942315694524, -3.420401389192282];
const SIG: &[f64] = &[-0.9248908461779641, -0.2570413526447275, -36.75969321013011];
const SOFTPLUS: &[f64] = &[-1.1029014606214358, -1.4294510641159308, -49.83828039278981];
const EXPPOW: &[f64] = &[0.02776211541962792, -2.721743994235129, -8.038727644400748];
const HN_LP: &[f64] = &[
    -0.22579135264472738,
    -1.2572820845188826,
    -1.7440407705410133,
];
const HN_ENT: &[f64] = &[0.7257913526447274, 1.6420820845188824, -0.47818145168120874];
const HN_MEAN: &[f64] = &[0.7978845608028654, 1.9947114020071635, 0.2393653682408596];
const WB_LP: &[f64] = &[
    -0.33564181984285313,
    -1.2103639663593153,
    0.5075788675272368,
];
const WB_ENT: &[f64] = &[1.1159315156584124, 1.703230845399835, -0.9177746497263573];
const WB_MEAN: &[f64] = &[2.0, 2.2568632323773343, 0.26789385347077477];
const PA_LP: &[f64] = &[
    -1.3013448427221919,
    -0.22314355131420982,
    2.3091815701178446,
];
const PA_ENT: &[f64] = &[3.6931471805599454, 1.7231435513142097, -1.1710214871070184];

/// The event transforms against PyTorch 2.15 (`make/event_transforms.py`): forward, inverse
/// and log-Jacobians of stick-breaking and the correlation Cholesky factor, the lower
/// Cholesky, positive-definite and softmax maps, a reshape; gradients flow; the refusals.
#[test]
fn event_transforms_match_pytorch() {
    on_every_device!("event_transforms", |dev| {
        let t =
            |v: &[f64], s: &[usize]| Tensor::<f64, _>::from_vec_on(v.to_vec(), s, &dev).unwrap();
        let x3 = t(&[0.5, -1.0, 2.0, 0.0, 3.0, -0.25], &[2, 3]);
        let sb = EventTransform::StickBreaking;
        let y = sb.forward(&x3).unwrap();
        assert_eq!(y.dims(), &[2, 4]);
        assert_close(&host_f64s(&y), SB_Y, 1e-12);
        assert_close(
            &host_f64s(&sb.log_abs_det_jacobian(&x3, &y).unwrap()),
            SB_LADJ,
            1e-12,
        );
        assert_close(&host_f64s(&sb.inverse(&y).unwrap()), &host_f64s(&x3), 1e-12);
        let cc = EventTransform::CorrCholesky;
        let y = cc.forward(&x3).unwrap();
        assert_eq!(y.dims(), &[2, 3, 3]);
        assert_close(&host_f64s(&y), CC_Y, 1e-12);
        assert_close(
            &host_f64s(&cc.log_abs_det_jacobian(&x3, &y).unwrap()),
            CC_LADJ,
            1e-12,
        );
        assert_close(&host_f64s(&cc.inverse(&y).unwrap()), CC_INV, 1e-10);
        let x6 = t(&[0.3, -0.2, 0.9, 1.5, -2.0, 0.1], &[6]);
        let y6 = cc.forward(&x6).unwrap();
        assert_close(&host_f64s(&y6), CC6_Y, 1e-12);
        assert_close(
            &host_f64s(&cc.log_abs_det_jacobian(&x6, &y6).unwrap()),
            CC6_LADJ,
            1e-12,
        );
        // Each row of the factor has unit norm: L·Lᵀ has ones on its diagonal.
        let corr = y6.matmul(&y6.t());
        assert_close(&host_f64s(&corr.diagonal(0).unwrap()), &[1.0; 4], 1e-12);
        let m = t(&[0.5, 9.0, -1.0, 0.2, -0.3, 1.0, 2.0, 1.1], &[2, 2, 2]);
        assert_close(
            &host_f64s(&EventTransform::LowerCholesky.forward(&m).unwrap()),
            LC_Y,
            1e-12,
        );
        let lc_back = EventTransform::LowerCholesky
            .inverse(&EventTransform::LowerCholesky.forward(&m).unwrap())
            .unwrap();
        assert_close(&host_f64s(&lc_back), &host_f64s(&m.tril(0)), 1e-12);
        let pd = EventTransform::PositiveDefinite.forward(&m).unwrap();
        assert_close(&host_f64s(&pd), PD_Y, 1e-12);
        assert_close(
            &host_f64s(&EventTransform::PositiveDefinite.inverse(&pd).unwrap()),
            PD_INV,
            1e-12,
        );
        let sm = EventTransform::Softmax.forward(&x3).unwrap();
        assert_close(&host_f64s(&sm), SM_Y, 1e-12);
        assert_close(
            &host_f64s(&EventTransform::Softmax.inverse(&sm).unwrap().exp()),
            SM_Y,
            1e-12,
        );
        let r = EventTransform::Reshape {
            from: vec![3],
            to: vec![3, 1],
        };
        let y = r.forward(&x3).unwrap();
        assert_eq!(y.dims(), &[2, 3, 1]);
        assert_eq!(r.inverse(&y).unwrap().dims(), &[2, 3]);
        assert_eq!(
            host_f64s(&r.log_abs_det_jacobian(&x3, &y).unwrap()),
            vec![0.0, 0.0]
        );
        assert_eq!(
            host_f64s(&EventTransform::Abs.forward(&x3).unwrap())[1],
            1.0
        );
        assert_eq!(
            (
                cc.domain_event_dim(),
                cc.codomain_event_dim(),
                r.codomain_event_dim()
            ),
            (1, 2, 2)
        );
        // Gradients reach the unconstrained values.
        let leaf = x3.detach().with_requires_grad(true).unwrap();
        let y = cc.forward(&leaf).unwrap();
        cc.log_abs_det_jacobian(&leaf, &y)
            .unwrap()
            .sum(&[], false)
            .backward();
        assert!(
            host_f64s(&leaf.grad_tensor().unwrap())
                .iter()
                .all(|g| g.is_finite())
        );
        // Refusals.
        let e = |r: Result<Tensor<f64, _>>| r.unwrap_err().to_string();
        assert!(e(cc.forward(&t(&[0.1, 0.2], &[2]))).contains("n(n-1)/2"));
        assert!(e(EventTransform::LowerCholesky.forward(&x3)).contains("square"));
        assert!(
            e(EventTransform::Softmax.log_abs_det_jacobian(&x3, &sm)).contains("SoftmaxTransform")
        );
        assert!(e(r.forward(&t(&[1.0, 2.0], &[2]))).contains("ReshapeTransform"));
        assert!(
            e(sb.inverse(&Tensor::<f64, _>::zeros_on([2, 0], &dev).unwrap()))
                .contains("StickBreakingTransform")
        );
        assert!(
            e(sb.forward(&Tensor::<f64, _>::scalar_on(1.0, &dev).unwrap()))
                .contains("event dimension")
        );
    });
}

const SB_Y: &[f64] = &[
    0.35466124439244334,
    0.1002613801409296,
    0.48010255958285813,
    0.06497481588376891,
    0.25,
    0.6820822488845564,
    0.029735987445330996,
    0.03818176367011258,
];
const SB_LADJ: &[f64] = &[-6.804077952067264, -8.549693926375912];
const CC_Y: &[f64] = &[
    1.0,
    0.0,
    0.0,
    0.46211715726000974,
    0.8868188839700739,
    0.0,
    -0.7615941559557649,
    0.6247421931979867,
    0.17225427034531132,
    1.0,
    0.0,
    0.0,
    0.0,
    1.0,
    0.0,
    0.9950547536867305,
    -0.02432726312290031,
    0.0963027592252132,
];
const CC_LADJ: &[f64] = &[-4.191577000081366, -6.989845120973678];
const CC_INV: &[f64] = &[0.5, -1.0, 2.0000000000000018, 0.0, 3.000000000000001, -0.25];
const CC6_Y: &[f64] = &[
    1.0,
    0.0,
    0.0,
    0.0,
    0.2913126124515909,
    0.9566279119002483,
    0.0,
    0.0,
    -0.197375320224904,
    0.702206856809391,
    0.6840676232771085,
    0.0,
    0.9051482536448664,
    -0.4098043018652316,
    0.011261633579063979,
    0.11242886064320681,
];
const CC6_LADJ: &[f64] = &[-8.274698919076235];
const LC_Y: &[f64] = &[
    1.6487212707001282,
    0.0,
    -1.0,
    1.2214027581601699,
    0.7408182206817179,
    0.0,
    2.0,
    3.0041660239464334,
];
const PD_Y: &[f64] = &[
    2.7182818284590455,
    -1.6487212707001282,
    -1.6487212707001282,
    2.4918246976412703,
    0.5488116360940265,
    1.4816364413634358,
    1.4816364413634358,
    13.025013499434122,
];
const PD_INV: &[f64] = &[0.5, 0.0, -1.0, 0.2, -0.3, 0.0, 2.0, 1.1];
const SM_Y: &[f64] = &[
    0.1752903921400367,
    0.039112573270687456,
    0.7855970345892759,
    0.04573657859820431,
    0.9186437381745075,
    0.03561968322728837,
];

/// `biject_to`/`transform_to` against PyTorch 2.15's registry: values, log-Jacobians and
/// inverses for an interval, bounds on either side, the positive reals and the unit
/// interval; the simplex by stick-breaking or softmax; the refusals.
#[test]
fn constraint_registry_matches_pytorch() {
    use typed_tensor::distributions::{Constraint, biject_to, transform_to};
    on_every_device!("constraints", |dev| {
        let x = Tensor::<f64, _>::from_vec_on(vec![-1.5, 0.0, 2.0], [3], &dev).unwrap();
        let cases: [(Constraint, [f64; 3], [f64; 3]); 5] = [
            (
                Constraint::Interval(-1.0, 3.0),
                [-0.2702979047745746, 1.0, 2.5231883119115293],
                [-0.5165321948456143, 0.0, -0.8675616609660548],
            ),
            (
                Constraint::GreaterThan(2.0),
                [2.22313016014843, 3.0, 9.38905609893065],
                [-1.5, 0.0, 2.0],
            ),
            (
                Constraint::LessThan(-1.0),
                [-1.22313016014843, -2.0, -8.38905609893065],
                [-1.5, 0.0, 2.0],
            ),
            (
                Constraint::Positive,
                [0.22313016014842982, 1.0, 7.38905609893065],
                [-1.5, 0.0, 2.0],
            ),
            (
                Constraint::UnitInterval,
                [0.18242552380635635, 0.5, 0.8807970779778823],
                [
                    -1.9028265559655049,
                    -1.3862943611198906,
                    -2.2538560220859454,
                ],
            ),
        ];
        for (c, y_want, ladj_want) in cases {
            let b = biject_to::<f64, _>(c, &dev).unwrap();
            let y = b.forward(&x).unwrap();
            assert_close(&host_f64s(&y), &y_want, 1e-12);
            assert_close(
                &host_f64s(&b.log_abs_det_jacobian(&x, &y).unwrap()),
                &ladj_want,
                1e-12,
            );
            assert_close(&host_f64s(&b.inverse(&y).unwrap()), &[-1.5, 0.0, 2.0], 1e-9);
        }
        let real = biject_to::<f64, _>(Constraint::Real, &dev).unwrap();
        assert_eq!(host_f64s(&real.forward(&x).unwrap()), vec![-1.5, 0.0, 2.0]);
        assert_eq!(
            host_f64s(&real.log_abs_det_jacobian(&x, &x).unwrap()),
            vec![0.0; 3]
        );
        let sb = biject_to::<f64, _>(Constraint::Simplex, &dev).unwrap();
        assert_close(
            &host_f64s(&sb.forward(&x).unwrap()),
            &[
                0.06922778450193097,
                0.31025740516602296,
                0.546547631782466,
                0.07396717854958003,
            ],
            1e-12,
        );
        let sm = transform_to::<f64, _>(Constraint::Simplex, &dev).unwrap();
        assert_close(
            &host_f64s(&sm.forward(&x).unwrap()),
            &[0.02590865471740153, 0.11611453467414118, 0.8579768106084573],
            1e-12,
        );
        let pd = transform_to::<f64, _>(Constraint::PositiveDefinite, &dev).unwrap();
        assert_eq!(
            pd.forward(&x.try_reshape([1, 3]).unwrap())
                .unwrap_err()
                .to_string()
                .contains("square"),
            true
        );
        let e = |c| biject_to::<f64, _>(c, &dev).unwrap_err().to_string();
        assert!(e(Constraint::Interval(1.0, 1.0)).contains("lower < upper"));
        assert!(e(Constraint::Interval(f64::NAN, 1.0)).contains("lower < upper"));
        assert!(e(Constraint::GreaterThan(f64::NAN)).contains("NaN"));
    });
}

/// `Constraint::check` against PyTorch 2.15's `constraint.check` on the edge values (bounds,
/// NaN, ±inf) and on matrices (triangular, symmetric, definite, a correlation factor), on
/// every device; the new constraints' bijections and refusals as PyTorch's registry.
#[test]
fn constraint_check_matches_pytorch() {
    use typed_tensor::distributions::{Constraint, biject_to, transform_to};
    let x = vec![
        -1.0,
        0.0,
        0.5,
        1.0,
        2.0,
        2.5,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    let scalar: [(Constraint, [u8; 9]); 13] = [
        (Constraint::Real, [1, 1, 1, 1, 1, 1, 0, 1, 1]),
        (Constraint::Positive, [0, 0, 1, 1, 1, 1, 0, 1, 0]),
        (Constraint::NonNegative, [0, 1, 1, 1, 1, 1, 0, 1, 0]),
        (Constraint::GreaterThan(0.5), [0, 0, 0, 1, 1, 1, 0, 1, 0]),
        (Constraint::GreaterThanEq(0.5), [0, 0, 1, 1, 1, 1, 0, 1, 0]),
        (Constraint::LessThan(1.0), [1, 1, 1, 0, 0, 0, 0, 0, 1]),
        (Constraint::UnitInterval, [0, 1, 1, 1, 0, 0, 0, 0, 0]),
        (Constraint::Interval(0.0, 2.0), [0, 1, 1, 1, 1, 0, 0, 0, 0]),
        (
            Constraint::HalfOpenInterval(0.0, 2.0),
            [0, 1, 1, 1, 0, 0, 0, 0, 0],
        ),
        (Constraint::Boolean, [0, 1, 0, 1, 0, 0, 0, 0, 0]),
        (Constraint::NonNegativeInteger, [0, 1, 0, 1, 1, 0, 0, 0, 0]),
        (Constraint::PositiveInteger, [0, 0, 0, 1, 1, 0, 0, 0, 0]),
        (
            Constraint::IntegerInterval(0, 1),
            [0, 1, 0, 1, 0, 0, 0, 0, 0],
        ),
    ];
    let m = vec![
        1.0, 0.0, 0.5, 2.0, 1.0, 0.5, 0.5, 1.0, 1.0, 2.0, 2.0, 1.0, 1.0, 0.0, 0.6, 0.8, 0.0, 0.0,
        0.0, 0.0, 1.0, 0.0, 0.0, -1.0,
    ];
    let matrix: [(Constraint, &[u8]); 10] = [
        (Constraint::Square, &[1, 1, 1, 1, 1, 1]),
        (Constraint::LowerTriangular, &[1, 0, 0, 1, 1, 1]),
        (Constraint::LowerCholesky, &[1, 0, 0, 1, 0, 0]),
        (Constraint::CorrCholesky, &[0, 0, 0, 1, 0, 0]),
        (Constraint::RealVector, &[1; 12]),
        (Constraint::Simplex, &[1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0]),
        (Constraint::OneHot, &[1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0]),
        (Constraint::Symmetric, &[0, 1, 1, 0, 1, 1]),
        // Not every matrix is symmetric: PyTorch returns the symmetry check.
        (Constraint::PositiveDefinite, &[0, 1, 1, 0, 1, 1]),
        (Constraint::PositiveSemidefinite, &[0, 1, 1, 0, 1, 1]),
    ];
    on_every_device!("constraint_check", |dev| {
        let t = Tensor::<f64, _>::from_vec_on(x.clone(), [9], &dev).unwrap();
        let bools = |b: Tensor<bool, _>| {
            b.try_to_vec()
                .unwrap()
                .iter()
                .map(|&v| v as u8)
                .collect::<Vec<_>>()
        };
        for (c, want) in &scalar {
            assert_eq!(bools(c.check(&t).unwrap()), want, "{c:?}");
        }
        let mt = Tensor::<f64, _>::from_vec_on(m.clone(), [6, 2, 2], &dev).unwrap();
        for (c, want) in &matrix {
            assert_eq!(bools(c.check(&mt).unwrap()), *want, "{c:?}");
        }
        // The symmetric ones alone: [[1, .5], [.5, 1]] is definite, [[1, 2], [2, 1]] is not.
        let sym = mt.narrow(0, 1, 2).unwrap();
        assert_eq!(
            bools(Constraint::PositiveDefinite.check(&sym).unwrap()),
            [1, 0]
        );
        assert_eq!(
            bools(Constraint::PositiveSemidefinite.check(&sym).unwrap()),
            [1, 0]
        );
        let singular =
            Tensor::<f64, _>::from_vec_on(vec![1.0, 0.0, 0.0, 0.0], [1, 2, 2], &dev).unwrap();
        assert_eq!(
            bools(Constraint::PositiveDefinite.check(&singular).unwrap()),
            [0]
        );
        assert_eq!(
            bools(Constraint::PositiveSemidefinite.check(&singular).unwrap()),
            [1]
        );
        assert_eq!(
            bools(
                Constraint::Square
                    .check(&mt.narrow(2, 0, 1).unwrap())
                    .unwrap()
            ),
            [0; 6]
        );
        let e = Constraint::Symmetric.check(&t).unwrap_err().to_string();
        assert!(e.contains("Symmetric") && e.contains("2 dimensions"), "{e}");

        // The new constraints' maps: exp then a shift, sigmoid then an affine map, the
        // identity; the sets without one are refused.
        let r = Tensor::<f64, _>::from_vec_on(vec![-2.0, 0.0, 3.0], [3], &dev).unwrap();
        for c in [
            Constraint::NonNegative,
            Constraint::GreaterThanEq(-1.5),
            Constraint::HalfOpenInterval(-1.0, 2.0),
            Constraint::RealVector,
        ] {
            let b = biject_to::<f64, _>(c, &dev).unwrap();
            let y = b.forward(&r).unwrap();
            let ok = c
                .check(&y)
                .unwrap()
                .try_all(&[], false)
                .unwrap()
                .try_item()
                .unwrap();
            assert!(ok, "{c:?}");
            let back = b.inverse(&y).unwrap().try_to_vec().unwrap();
            crate::common::assert_close(&back, &[-2.0, 0.0, 3.0], 1e-12);
        }
        for c in [
            Constraint::Boolean,
            Constraint::IntegerInterval(0, 3),
            Constraint::OneHot,
            Constraint::Symmetric,
            Constraint::PositiveSemidefinite,
        ] {
            let e = biject_to::<f64, _>(c, &dev).unwrap_err().to_string();
            assert!(e.contains("no bijection"), "{e}");
        }
        let pd = transform_to::<f64, _>(Constraint::PositiveSemidefinite, &dev).unwrap();
        let y = pd
            .forward(
                &Tensor::<f64, _>::from_vec_on(vec![0.3, -1.0, 0.5, 0.2], [2, 2], &dev).unwrap(),
            )
            .unwrap();
        assert_eq!(
            bools(
                Constraint::PositiveDefinite
                    .check(&y.unsqueeze(0).unwrap())
                    .unwrap()
            ),
            [1]
        );
    });
}

/// A base with event axes (a multivariate normal, an `Independent` normal): each transform's
/// log-Jacobian is summed over the event, so `log_prob` has the batch shape, and parameters
/// shaped like the event leave the batch shape alone; against PyTorch 2.15. Parameters that
/// would change the event shape are refused.
#[test]
fn transformed_multivariate_base_matches_pytorch() {
    use typed_tensor::distributions::{Independent, MultivariateNormal};
    on_every_device!("transformed_multivariate", |dev| {
        let t = |v: Vec<f64>, s: &[usize]| Tensor::<f64, _>::from_vec_on(v, s, &dev).unwrap();
        let mvn = MultivariateNormal::from_covariance(
            &t(vec![0.0, 0.5], &[2]),
            &t(vec![1.0, 0.2, 0.2, 2.0], &[2, 2]),
        )
        .unwrap();
        let d = TransformedDistribution::new(mvn.clone(), vec![Transform::Exp]).unwrap();
        let lp = d.log_prob(&t(vec![1.5, 0.7], &[2])).unwrap();
        assert_eq!(lp.dims(), &[] as &[usize]);
        assert_close(&host_f64s(&lp), &[-2.529679412828008], 1e-12);
        let affine = Transform::Affine {
            loc: t(vec![1.0, -1.0], &[2]),
            scale: t(vec![2.0], &[]),
        };
        let d = TransformedDistribution::new(mvn.clone(), vec![affine, Transform::Exp]).unwrap();
        assert_eq!(d.batch_shape().dims(), &[] as &[usize]);
        assert_eq!(d.event_shape(), [2]);
        let lp = d.log_prob(&t(vec![1.5, 0.7, 0.2, 3.0], &[2, 2])).unwrap();
        assert_close(
            &host_f64s(&lp),
            &[-3.6572232550605257, -4.068439572358698],
            1e-12,
        );
        let ind = Independent::new(
            Normal::new(&t(vec![0.0; 6], &[3, 2]), &t(vec![1.0; 6], &[3, 2])).unwrap(),
            1,
        )
        .unwrap();
        let d = TransformedDistribution::new(ind, vec![Transform::Sigmoid]).unwrap();
        assert_eq!(d.batch_shape().dims(), &[3]);
        let lp = d.log_prob(&t(vec![0.3; 6], &[3, 2])).unwrap();
        assert_close(&host_f64s(&lp), &[0.5655047659032579; 3], 1e-12);
        // A loc of 3 entries cannot shift a 2-vector event.
        let wide = Transform::Affine {
            loc: t(vec![0.0; 6], &[3, 2]),
            scale: t(vec![1.0], &[]),
        };
        let grown = TransformedDistribution::new(mvn.clone(), vec![wide]).unwrap();
        assert_eq!(grown.batch_shape().dims(), &[3]);
        let bad = Transform::Affine {
            loc: t(vec![0.0; 3], &[3, 1]),
            scale: t(vec![1.0, 1.0, 1.0], &[3]),
        };
        assert!(TransformedDistribution::new(mvn, vec![bad]).is_err());
    });
}
