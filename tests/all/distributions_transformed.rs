//! `TransformedDistribution` with every transform, `Rsample` through it, and `HalfNormal`,
//! `Weibull`, `Pareto`, on every device against PyTorch 2.15's values (below), with sample
//! moments, gradients and the refusals.

use crate::common::{assert_close, host_f64s};
use typed_tensor::distributions::{
    Distribution, HalfNormal, Normal, Pareto, Rsample, Transform, TransformedDistribution, Weibull,
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
