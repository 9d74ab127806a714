//! `GeneralizedPareto` and `LogisticNormal` on every device against PyTorch 2.15, with
//! gradients, sample moments and the refusals. The values come from
//! `tests/data/torch_grads/make/distributions_extra.py`.

use crate::common::{assert_close, host_f64s};
use typed_tensor::distributions::*;
use typed_tensor::prelude::*;

#[test]
fn generalized_pareto_matches_pytorch() {
    on_every_device!("generalized_pareto", |dev| {
        let t = |v: &[f64]| Tensor::<f64, _>::from_vec_on(v.to_vec(), [v.len()], &dev).unwrap();
        let leaf = |v: &[f64]| t(v).with_requires_grad(true).unwrap();
        let g = |x: &Tensor<f64, _>| host_f64s(&x.grad_tensor().unwrap());
        // ξ > 0, ξ = 0 (the exponential), ξ = -1 (the uniform), ξ = -1/2, ξ = 0.7.
        let (loc, scale) = (
            leaf(&[0.1, 0.0, -1.0, 0.5, 2.0]),
            leaf(&[2.0, 1.0, 3.0, 0.5, 1.5]),
        );
        let xi = leaf(&[0.4, 0.0, -1.0, -0.5, 0.7]);
        let d = GeneralizedPareto::new(&loc, &scale, &xi).unwrap();
        let x = t(&[1.5, 2.0, 1.0, 1.2, 2.0]);
        let lp = d.log_prob(&x).unwrap();
        assert_close(&host_f64s(&lp), GP_LP, 1e-12);
        lp.try_sum(&[], false).unwrap().backward();
        assert_close(&g(&loc), GP_GLOC, 1e-12);
        assert_close(&g(&scale), GP_GSCALE, 1e-12);
        assert_close(&g(&xi), GP_GXI, 1e-12);
        assert_close(&host_f64s(&d.cdf(&x).unwrap()), GP_CDF, 1e-12);
        let u = t(&[0.3, 0.5, 0.9, 0.1, 0.99]);
        assert_close(&host_f64s(&d.icdf(&u).unwrap()), GP_ICDF, 1e-12);
        assert_close(&host_f64s(&d.entropy().unwrap()), GP_ENT, 1e-12);
        assert_close(&host_f64s(&d.mean().unwrap()), GP_MEAN, 1e-12);
        assert_close(&host_f64s(&d.variance().unwrap()), GP_VAR, 1e-12);
        // Outside the support: below loc, or above loc - scale/ξ for ξ < 0 (here 1.5).
        assert!(d.log_prob(&t(&[0.0, 2.0, 1.0, 1.2, 2.0])).is_err());
        assert!(d.log_prob(&t(&[1.5, 2.0, 1.0, 1.6, 2.0])).is_err());
        assert!(d.cdf(&t(&[f64::NAN; 5])).is_err());
        assert!(GeneralizedPareto::new(&t(&[0.0]), &t(&[0.0]), &t(&[0.1])).is_err());
        assert!(GeneralizedPareto::new(&t(&[0.0]), &t(&[1.0]), &t(&[f64::NAN])).is_err());
        assert!(GeneralizedPareto::new(&t(&[0.0, 1.0]), &t(&[1.0; 3]), &t(&[0.1])).is_err());
        // Sample moments: ξ = 0.2 has mean μ + σ/(1 - ξ) and a finite variance.
        let d = GeneralizedPareto::new(&t(&[1.0]), &t(&[2.0]), &t(&[0.2])).unwrap();
        let s = d.sample(&[40000]).unwrap();
        assert_eq!(s.dims(), [40000, 1]);
        let m = host_f64s(&s.try_mean(&[], false).unwrap())[0];
        assert!((m - 3.5).abs() < 0.1, "{m}");
        assert!(host_f64s(&s).iter().all(|&v| v >= 1.0));
    });
}

#[test]
fn logistic_normal_matches_pytorch() {
    on_every_device!("logistic_normal", |dev| {
        let t =
            |v: &[f64], s: &[usize]| Tensor::<f64, _>::from_vec_on(v.to_vec(), s, &dev).unwrap();
        let loc = t(&[0.3, -0.5, 1.0, 0.2], &[2, 2])
            .with_requires_grad(true)
            .unwrap();
        let scale = t(&[0.8, 1.5, 0.4, 1.0], &[2, 2])
            .with_requires_grad(true)
            .unwrap();
        let d = LogisticNormal::new(&loc, &scale).unwrap();
        assert_eq!(
            (d.batch_shape().dims(), d.event_shape()),
            (&[2][..], vec![3])
        );
        let lp = d
            .log_prob(&t(&[0.2, 0.3, 0.5, 0.6, 0.1, 0.3], &[2, 3]))
            .unwrap();
        assert_close(&host_f64s(&lp), LN_LP, 1e-12);
        lp.try_sum(&[], false).unwrap().backward();
        assert_close(&host_f64s(&loc.grad_tensor().unwrap()), LN_GLOC, 1e-12);
        assert_close(&host_f64s(&scale.grad_tensor().unwrap()), LN_GSCALE, 1e-12);
        // 0-d parameters are one (1,) vector: two classes.
        let d0 = LogisticNormal::new(&t(&[0.4], &[]), &t(&[1.3], &[])).unwrap();
        let lp = d0.log_prob(&t(&[0.7, 0.3], &[2])).unwrap();
        assert_close(&host_f64s(&lp), LN_LP0, 1e-12);
        // Off the simplex, or the wrong number of classes.
        assert!(d.log_prob(&t(&[0.2, 0.3, 0.6], &[3])).is_err());
        assert!(d.log_prob(&t(&[0.5, 0.5], &[2])).is_err());
        assert!(d.entropy().is_err());
        // Samples lie on the simplex; the sample mean of the log-ratios is the base's mean.
        let s = d.rsample(&[20000]).unwrap();
        assert_eq!(s.dims(), [20000, 2, 3]);
        let sums = host_f64s(&s.try_sum(&[-1], false).unwrap());
        assert!(sums.iter().all(|v| (v - 1.0).abs() < 1e-12));
        // With three classes, log(x_1 / x_2) = logit(z_1) is the base's second coordinate.
        let ratio = s
            .narrow(-1, 1, 1)
            .unwrap()
            .try_div(&s.narrow(-1, 2, 1).unwrap());
        let ratio = ratio.unwrap().try_log().unwrap();
        let mean = host_f64s(&ratio.try_mean(&[0], false).unwrap());
        assert_close(&mean, &[-0.5, 0.2], 0.05);
        let std = host_f64s(&ratio.try_std(&[0], 1, false).unwrap());
        assert_close(&std, &[1.5, 1.0], 0.03);
    });
}

const GP_LP: &[f64] = &[
    -1.5571574533202854,
    -2.0,
    -1.0986122886681098,
    -0.5108256237659906,
    -0.4054651081081644,
];
const GP_GLOC: &[f64] = &[0.546875, 1.0, -0.0, 3.333333333333333, 1.1333333333333335];
const GP_GSCALE: &[f64] = &[
    -0.1171875,
    1.0,
    -0.3333333333333333,
    2.666666666666666,
    -0.6666666666666666,
];
const GP_GXI: &[f64] = &[-0.3711870129279635, 0.0, 1.0, -0.1492245506370775, -0.0];
const GP_CDF: &[f64] = &[
    0.46052033906055634,
    0.8646647167633873,
    0.6666666666666666,
    0.91,
    0.0,
];
const GP_ICDF: &[f64] = &[
    0.8667455389092656,
    std::f64::consts::LN_2,
    1.7000000000000002,
    0.5513167019494862,
    53.68328067520526,
];
const GP_ENT: &[f64] = &[
    2.0931471805599453,
    1.0,
    1.0986122886681098,
    -0.1931471805599454,
    2.1054651081081643,
];
const GP_MEAN: &[f64] = &[
    3.4333333333333336,
    1.0,
    0.5,
    0.8333333333333333,
    6.999999999999999,
];
const GP_VAR: &[f64] = &[55.55555555555557, 1.0, 0.75, 0.05555555555555555, f64::NAN];
const LN_LP: &[f64] = &[0.71575407296563, 2.2222115500472364];
const LN_GLOC: &[f64] = &[
    -1.5517924696249141,
    -0.00481138834044037,
    0.6163268041756846,
    -1.2986122886681095,
];
const LN_GSCALE: &[f64] = &[
    0.6764478950276722,
    -0.6666319424800229,
    -2.348056508181835,
    0.6863938762798254,
];
const LN_LP0: &[f64] = &[0.32015105239517627];
