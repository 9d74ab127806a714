//! `typed_tensor::distributions` on every device against PyTorch 2.15's
//! `torch.distributions` (the values below, float64): log-probabilities, entropies, moments,
//! `cdf`/`icdf` and KL divergences of the six families; the samples' moments; `rsample`'s
//! gradients; refused parameters and values.

#![allow(clippy::approx_constant)] // PyTorch's values as printed

use crate::common::assert_close;
use typed_tensor::distributions::{
    Bernoulli, Beta, Binomial, Categorical, Cauchy, Dirichlet, Distribution, Exponential, Gamma,
    Geometric, Gumbel, Laplace, LogNormal, Multinomial, MultivariateNormal, Normal, Poisson,
    StudentT, Uniform, kl_divergence,
};
use typed_tensor::prelude::*;

#[test]
fn distributions_match_pytorch() {
    on_every_device!("distributions", |dev| {
        let f =
            |v: Vec<f64>, d: &[usize]| Tensor::<f64, _>::from_vec_on(v, d.to_vec(), &dev).unwrap();
        let host = |t: Tensor<f64, _>| t.try_to_vec().unwrap();
        let n = Normal::new(&f(vec![0.5, -1.0, 2.0], &[3]), &f(vec![1.5, 0.25], &[2, 1])).unwrap();
        assert_eq!(n.batch_shape().dims(), [2, 3]);
        let v = f(vec![0.3, -1.2, 4.0], &[3]);
        assert_close(
            &host(n.log_prob(&v).unwrap()),
            &[
                -1.333292530201726,
                -1.333292530201726,
                -2.213292530201726,
                0.14735582791521784,
                0.14735582791521806,
                -31.532644172084783,
            ],
            1e-13,
        );
        assert_close(
            &host(n.entropy().unwrap()),
            &[
                1.824403641312837,
                1.824403641312837,
                1.824403641312837,
                0.0326441720847821,
                0.0326441720847821,
                0.0326441720847821,
            ],
            1e-13,
        );
        assert_close(
            &host(n.cdf(&v).unwrap()),
            &[
                0.446964883376386,
                0.446964883376386,
                0.9087887802741321,
                0.2118553985833967,
                0.21185539858339675,
                0.9999999999999993,
            ],
            1e-13,
        );
        assert_close(
            &host(n.icdf(&f(vec![0.1, 0.5, 0.975], &[3])).unwrap()),
            &[
                -1.4223273483169012,
                -1.0,
                4.9399459768100815,
                0.1796121086138498,
                -1.0,
                2.4899909961350133,
            ],
            1e-12,
        );
        let n2 = Normal::new(
            &f(vec![0.0, 1.0, -2.0], &[3]),
            &f(vec![2.0, 0.5, 1.0], &[3]),
        )
        .unwrap();
        assert_close(
            &host(kl_divergence(&n, &n2).unwrap()),
            &[
                0.1001820724517809,
                10.90138771133189,
                8.219534891891836,
                1.6185040416798357,
                8.318147180559945,
                8.91754436111989,
            ],
            1e-13,
        );

        let u = Uniform::new(&f(vec![-1.0, 0.0], &[2]), &f(vec![2.0, 0.5], &[2])).unwrap();
        let uv = f(vec![0.5, 0.25], &[2]);
        assert_close(
            &host(u.log_prob(&uv).unwrap()),
            &[-1.0986122886681098, 0.6931471805599453],
            1e-13,
        );
        assert_close(
            &host(u.entropy().unwrap()),
            &[1.0986122886681098, -0.6931471805599453],
            1e-13,
        );
        assert_close(&host(u.cdf(&uv).unwrap()), &[0.5, 0.5], 1e-13);
        assert_close(
            &host(u.icdf(&f(vec![0.2, 0.9], &[2])).unwrap()),
            &[-0.3999999999999999, 0.45],
            1e-13,
        );
        let mv: Vec<f64> = [host(u.mean().unwrap()), host(u.variance().unwrap())].concat();
        assert_close(&mv, &[0.5, 0.25, 0.75, 0.020833333333333332], 1e-13);
        let u2 = Uniform::new(&f(vec![-2.0, 0.1], &[2]), &f(vec![3.0, 1.0], &[2])).unwrap();
        assert_close(
            &host(kl_divergence(&u, &u2).unwrap()),
            &[0.5108256237659907, f64::INFINITY],
            1e-13,
        );

        let e = Exponential::new(&f(vec![0.5, 2.0, 3.0], &[3])).unwrap();
        let ev = f(vec![1.0, 0.0, 0.7], &[3]);
        assert_close(
            &host(e.log_prob(&ev).unwrap()),
            &[-1.1931471805599454, 0.6931471805599453, -1.0013877113318899],
            1e-13,
        );
        assert_close(
            &host(e.entropy().unwrap()),
            &[1.6931471805599454, 0.3068528194400547, -0.09861228866810978],
            1e-13,
        );
        assert_close(
            &host(e.cdf(&ev).unwrap()),
            &[0.3934693402873666, 0.0, 0.877543571747018],
            1e-13,
        );
        assert_close(
            &host(e.icdf(&f(vec![0.3, 0.5, 0.99], &[3])).unwrap()),
            &[0.7133498878774647, 0.34657359027997264, 1.535056728662697],
            1e-13,
        );
        let e2 = Exponential::new(&f(vec![1.0, 1.0, 0.5], &[3])).unwrap();
        assert_close(
            &host(kl_divergence(&e, &e2).unwrap()),
            &[0.3068528194400546, 0.1931471805599454, 0.9584261358947217],
            1e-13,
        );

        let l = Laplace::new(&f(vec![0.0, 1.0], &[2]), &f(vec![1.0, 0.5], &[2])).unwrap();
        let lv = f(vec![-0.7, 2.0], &[2]);
        assert_close(
            &host(l.log_prob(&lv).unwrap()),
            &[-1.3931471805599451, -2.0],
            1e-13,
        );
        assert_close(
            &host(l.entropy().unwrap()),
            &[1.6931471805599454, 1.0],
            1e-13,
        );
        assert_close(
            &host(l.cdf(&lv).unwrap()),
            &[0.24829265189570476, 0.9323323583816936],
            1e-13,
        );
        assert_close(
            &host(l.icdf(&f(vec![0.2, 0.8], &[2])).unwrap()),
            &[-0.916290731874155, 1.4581453659370776],
            1e-13,
        );
        let l2 = Laplace::new(&f(vec![0.5, 0.0], &[2]), &f(vec![2.0, 1.0], &[2])).unwrap();
        assert_close(
            &host(kl_divergence(&l, &l2).unwrap()),
            &[0.246412510416262, 0.7608148221782518],
            1e-13,
        );

        let b = Bernoulli::from_probs(&f(vec![0.0, 0.3, 1.0, 0.9], &[4])).unwrap();
        let bv = f(vec![0.0, 1.0, 1.0, 0.0], &[4]);
        assert_close(
            &host(b.log_prob(&bv).unwrap()),
            &[
                -0.0,
                -1.2039728043259361,
                -2.220446049250318e-16,
                -2.302585092994046,
            ],
            1e-13,
        );
        assert_close(
            &host(b.entropy().unwrap()),
            &[
                0.0,
                0.6108643020548935,
                2.220446049250318e-16,
                0.3250829733914482,
            ],
            1e-13,
        );
        assert_close(
            &host(b.logits().clone()),
            &[
                -36.04365338911715,
                -0.8472978603872038,
                36.04365338911715,
                2.1972245773362196,
            ],
            1e-13,
        );
        let b2 = Bernoulli::from_probs(&f(vec![0.5, 0.0, 0.2, 1.0], &[4])).unwrap();
        assert_close(
            &host(kl_divergence(&b, &b2).unwrap()),
            &[
                0.6931471805599451,
                f64::INFINITY,
                1.6094379124341,
                f64::INFINITY,
            ],
            1e-13,
        );
        let bl = Bernoulli::from_logits(&f(vec![-2.0, 0.5], &[2])).unwrap();
        assert_close(
            &host(bl.log_prob(&f(vec![1.0, 0.0], &[2])).unwrap()),
            &[-2.1269280110429727, -0.9740769841801067],
            1e-13,
        );
        assert_close(
            &host(bl.entropy().unwrap()),
            &[0.36533385508720784, 0.6628473185791794],
            1e-13,
        );

        let c = Categorical::from_probs(&f(
            vec![1.0, 2.0, 0.0, 1.0, 0.25, 0.25, 0.25, 0.25],
            &[2, 4],
        ))
        .unwrap();
        assert_eq!((c.batch_shape().dims(), c.num_classes()), (&[2][..], 4));
        let cv = Tensor::<i64, _>::from_vec_on(vec![1, 3, 2, 0], [2, 2], &dev).unwrap();
        assert_close(
            &host(c.log_prob(&cv).unwrap()),
            &[
                -0.6931471805599453,
                -1.3862943611198906,
                -36.04365338911715,
                -1.3862943611198906,
            ],
            1e-13,
        );
        assert_close(
            &host(c.entropy().unwrap()),
            &[1.0397207708399179, 1.3862943611198906],
            1e-13,
        );
        let c2 =
            Categorical::from_logits(&f(vec![0.5, -1.0, 2.0, 0.0, 1.0, 1.0, -3.0, 0.2], &[2, 4]))
                .unwrap();
        assert_close(
            &host(c2.entropy().unwrap()),
            &[0.878281175268733, 1.078623919097481],
            1e-13,
        );
        assert_close(
            &host(kl_divergence(&c, &c2).unwrap()),
            &[1.677628811549904, 0.7169697325304452],
            1e-13,
        );
        assert_close(
            &host(kl_divergence(&c2, &c).unwrap()),
            &[f64::INFINITY, 0.30767044202240973],
            1e-13,
        );
    });
}

#[test]
fn samples_gradients_and_refusals() {
    on_every_device!("distributions_samples", |dev| {
        let f =
            |v: Vec<f64>, d: &[usize]| Tensor::<f64, _>::from_vec_on(v, d.to_vec(), &dev).unwrap();
        typed_tensor::manual_seed(7);
        let moments = |x: &Tensor<f64, _>| -> (Vec<f64>, Vec<f64>) {
            let m = x.try_mean(&[0], false).unwrap();
            (
                m.try_to_vec().unwrap(),
                x.try_var(&[0], 1, false).unwrap().try_to_vec().unwrap(),
            )
        };
        let n = 40_000;
        let close = |got: &[f64], want: &[f64], tol: f64| {
            for (g, w) in got.iter().zip(want) {
                assert!(
                    (g - w).abs() < tol * w.abs().max(1.0),
                    "{got:?} against {want:?}"
                );
            }
        };
        // Each family's sample moments, within 5 standard errors of 40,000 draws.
        let norm = Normal::new(&f(vec![1.0, -2.0], &[2]), &f(vec![0.5, 3.0], &[2])).unwrap();
        let x = norm.sample(&[n]).unwrap();
        assert_eq!(x.dims(), [n, 2]);
        let (m, v) = moments(&x);
        close(&m, &[1.0, -2.0], 0.08);
        close(&v, &[0.25, 9.0], 0.04);
        let lap = Laplace::new(&f(vec![0.5], &[1]), &f(vec![2.0], &[1])).unwrap();
        let (m, v) = moments(&lap.sample(&[n]).unwrap());
        close(&m, &[0.5], 0.08);
        close(&v, &[8.0], 0.06);
        let exp = Exponential::new(&f(vec![4.0], &[1])).unwrap();
        let (m, v) = moments(&exp.sample(&[n]).unwrap());
        close(&m, &[0.25], 0.01);
        close(&v, &[0.0625], 0.01);
        let uni = Uniform::new(&f(vec![-1.0], &[1]), &f(vec![3.0], &[1])).unwrap();
        let s = uni.sample(&[n]).unwrap();
        let (m, v) = moments(&s);
        close(&m, &[1.0], 0.03);
        close(&v, &[4.0 / 3.0], 0.03);
        assert!(
            s.try_to_vec()
                .unwrap()
                .iter()
                .all(|&x| (-1.0..3.0).contains(&x))
        );
        let ber = Bernoulli::from_probs(&f(vec![0.2, 0.9], &[2])).unwrap();
        let (m, _) = moments(&ber.sample(&[n]).unwrap());
        close(&m, &[0.2, 0.9], 0.02);
        let cat = Categorical::from_probs(&f(vec![1.0, 0.0, 3.0], &[3])).unwrap();
        let s = cat.sample(&[n, 2]).unwrap();
        assert_eq!(s.dims(), [n, 2]);
        let s = s.try_to_vec().unwrap();
        assert!(!s.contains(&1));
        let twos = s.iter().filter(|&&c| c == 2).count() as f64 / (2 * n) as f64;
        assert!((twos - 0.75).abs() < 0.02, "{twos}");
        assert_eq!(cat.sample(&[0]).unwrap().dims(), [0]);

        // rsample passes gradients to the parameters: x = loc + scale·ε.
        let loc = f(vec![0.0, 1.0], &[2]).with_requires_grad(true).unwrap();
        let scale = f(vec![1.0, 2.0], &[2]).with_requires_grad(true).unwrap();
        let norm = Normal::new(&loc, &scale).unwrap();
        let x = norm.rsample(&[3]).unwrap();
        x.try_sum(&[], false).unwrap().try_backward().unwrap();
        assert_eq!(loc.grad_tensor().unwrap().try_to_vec().unwrap(), [3.0, 3.0]);
        let eps = x
            .detach()
            .try_sub(&loc.detach())
            .unwrap()
            .try_div(&scale.detach())
            .unwrap();
        let want = eps.try_sum(&[0], false).unwrap().try_to_vec().unwrap();
        assert_close(
            &scale.grad_tensor().unwrap().try_to_vec().unwrap(),
            &want,
            1e-12,
        );
        assert!(norm.sample(&[2]).unwrap().grad_fn().is_none());
        // log_prob is differentiable in the parameters: d/dloc log N(v) = (v - loc) / scale².
        let lp = norm.log_prob(&f(vec![1.0, 1.0], &[2])).unwrap();
        let g =
            typed_tensor::autograd::grad(&lp.try_sum(&[], false).unwrap(), &[&loc], false).unwrap();
        assert_eq!(g[0].as_ref().unwrap().try_to_vec().unwrap(), [1.0, 0.0]);

        // Parameters outside their domain and values outside the support are Errs.
        let bad = |r: typed_tensor::Result<()>, what: &str| {
            let e = r.unwrap_err().to_string();
            assert!(e.contains(what), "{e}");
        };
        bad(
            Normal::new(&f(vec![0.0], &[1]), &f(vec![0.0], &[1])).map(|_| ()),
            "scale must be positive",
        );
        bad(
            Normal::new(&f(vec![0.0], &[1]), &f(vec![f64::NAN], &[1])).map(|_| ()),
            "Normal",
        );
        bad(
            Normal::new(&f(vec![0.0; 2], &[2]), &f(vec![1.0; 3], &[3])).map(|_| ()),
            "Normal",
        );
        bad(
            Uniform::new(&f(vec![1.0], &[1]), &f(vec![1.0], &[1])).map(|_| ()),
            "low must be less than high",
        );
        bad(
            Exponential::new(&f(vec![-1.0], &[1])).map(|_| ()),
            "rate must be positive",
        );
        bad(
            Bernoulli::from_probs(&f(vec![1.5], &[1])).map(|_| ()),
            "probs must lie in [0, 1]",
        );
        bad(
            Categorical::from_probs(&f(vec![1.0, -1.0, 3.0], &[3])).map(|_| ()),
            "Categorical",
        );
        bad(
            Categorical::from_probs(&f(vec![0.0, 0.0], &[2])).map(|_| ()),
            "Categorical",
        );
        bad(
            Categorical::from_probs(&f(vec![], &[0])).map(|_| ()),
            "at least one class",
        );
        bad(
            Categorical::from_logits(&Tensor::scalar_on(1.0, &dev).unwrap()).map(|_| ()),
            "at least one class",
        );
        bad(
            norm.log_prob(&f(vec![f64::NAN, 0.0], &[2])).map(|_| ()),
            "Normal.log_prob",
        );
        bad(
            uni.log_prob(&f(vec![3.0], &[1])).map(|_| ()),
            "outside the support",
        );
        bad(
            exp.log_prob(&f(vec![-0.5], &[1])).map(|_| ()),
            "outside the support",
        );
        bad(ber.log_prob(&f(vec![0.5, 1.0], &[2])).map(|_| ()), "0 or 1");
        let three = Tensor::<i64, _>::from_vec_on(vec![3], [1], &dev).unwrap();
        bad(cat.log_prob(&three).map(|_| ()), "class index");
    });
}

#[test]
fn multivariate_normal_and_poisson_match_pytorch() {
    on_every_device!("distributions_mvn", |dev| {
        let f =
            |v: Vec<f64>, d: &[usize]| Tensor::<f64, _>::from_vec_on(v, d.to_vec(), &dev).unwrap();
        let host = |t: Tensor<f64, _>| t.try_to_vec().unwrap();
        let loc = f(vec![0.5, -1.0, 2.0, 0.0, 0.0, 1.0], &[2, 3]);
        let l = f(vec![2.0, 0.0, 0.0, 0.5, 1.0, 0.0, -0.3, 0.2, 0.7], &[3, 3]);
        let m = MultivariateNormal::from_scale_tril(&loc, &l).unwrap();
        assert_eq!((m.batch_shape().dims(), m.event_size()), (&[2][..], 3));
        let v = f(vec![0.3, -1.2, 4.0], &[3]);
        assert_close(
            &host(m.log_prob(&v).unwrap()),
            &[-7.191170489296456, -15.029595234194415],
            1e-13,
        );
        assert_close(
            &host(m.entropy().unwrap()),
            &[4.593287836235231, 4.593287836235231],
            1e-13,
        );
        assert_close(
            &host(m.variance().unwrap()),
            &[4.0, 1.25, 0.6199999999999999, 4.0, 1.25, 0.6199999999999999],
            1e-13,
        );
        assert_close(
            &host(m.covariance().unwrap()),
            &[
                4.0,
                1.0,
                -0.6,
                1.0,
                1.25,
                0.05000000000000002,
                -0.6,
                0.05000000000000002,
                0.6199999999999999,
                4.0,
                1.0,
                -0.6,
                1.0,
                1.25,
                0.05000000000000002,
                -0.6,
                0.05000000000000002,
                0.6199999999999999,
            ],
            1e-13,
        );
        let cov = f(vec![1.0, 0.3, 0.3, 2.0], &[2, 2]);
        let m2 = MultivariateNormal::from_covariance(&f(vec![1.0, -1.0], &[2]), &cov).unwrap();
        assert_close(
            &host(m2.log_prob(&f(vec![0.0, 0.0, 1.0, 2.0], &[2, 2])).unwrap()),
            &[-3.103837064401965, -4.5174496298469915],
            1e-13,
        );
        assert_close(
            &host(m2.scale_tril()),
            &[1.0, 0.0, 0.3, 1.3820274961085253],
            1e-13,
        );
        let ql = f(vec![1.0, 0.0, 0.0, 0.2, 1.5, 0.0, 0.1, -0.4, 0.8], &[3, 3]);
        let q = MultivariateNormal::from_scale_tril(&f(vec![0.0, 1.0, -1.0], &[3]), &ql).unwrap();
        assert_close(
            &host(kl_divergence(&m, &q).unwrap()),
            &[6.865858000728298, 3.8677243201727425],
            1e-12,
        );
        // Sample moments: the covariance of 40,000 draws.
        typed_tensor::manual_seed(11);
        let x = m2.sample(&[40_000]).unwrap();
        let c = x.try_sub(&x.try_mean(&[0], true).unwrap()).unwrap();
        let emp = c
            .t()
            .try_matmul(&c)
            .unwrap()
            .try_div_scalar(40_000.0)
            .unwrap();
        for (g, w) in host(emp).iter().zip([1.0, 0.3, 0.3, 2.0]) {
            assert!((g - w).abs() < 0.05, "{g} against {w}");
        }
        // Refusals: an upper factor, a zero diagonal, a covariance that is not positive definite.
        assert!(MultivariateNormal::from_scale_tril(&v, &l.t()).is_err());
        assert!(
            MultivariateNormal::from_scale_tril(
                &v,
                &f(vec![1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0], &[3, 3])
            )
            .is_err()
        );
        assert!(
            MultivariateNormal::from_covariance(
                &f(vec![0.0; 2], &[2]),
                &f(vec![1.0, 2.0, 2.0, 1.0], &[2, 2])
            )
            .is_err()
        );
        assert!(MultivariateNormal::from_scale_tril(&f(vec![0.0; 2], &[2]), &l).is_err());
        assert!(m.log_prob(&f(vec![0.0; 2], &[2])).is_err());

        let p = Poisson::new(&f(vec![0.0, 2.5, 10.0], &[3])).unwrap();
        assert_close(
            &host(p.log_prob(&f(vec![0.0, 3.0, 7.0], &[3])).unwrap()),
            &[0.0, -1.5428872736055896, -2.4070657101070942],
            1e-13,
        );
        let (p1, p2) = (
            Poisson::new(&f(vec![2.5, 10.0], &[2])).unwrap(),
            Poisson::new(&f(vec![1.0, 12.0], &[2])).unwrap(),
        );
        assert_close(
            &host(kl_divergence(&p1, &p2).unwrap()),
            &[0.7907268296853878, 0.17678443206045547],
            1e-13,
        );
        assert!(p.log_prob(&f(vec![0.5, 1.0, 2.0], &[3])).is_err());
        assert!(Poisson::new(&f(vec![-1.0], &[1])).is_err());
        assert!(p.entropy().is_err());
        let s = p1.sample(&[20_000]).unwrap().try_mean(&[0], false).unwrap();
        for (g, w) in host(s).iter().zip([2.5, 10.0]) {
            assert!((g - w).abs() < 0.15, "{g} against {w}");
        }
    });
}

#[test]
fn cauchy_gumbel_lognormal_match_pytorch() {
    on_every_device!("distributions_location_scale", |dev| {
        let f = |v: Vec<f64>| {
            let n = v.len();
            Tensor::<f64, _>::from_vec_on(v, [n], &dev).unwrap()
        };
        let host = |t: Tensor<f64, _>| t.try_to_vec().unwrap();
        let (loc, scale) = (f(vec![0.0, 1.0]), f(vec![1.0, 0.5]));
        let (v, p) = (f(vec![0.7, -2.0]), f(vec![0.1, 0.8]));
        let c = Cauchy::new(&loc, &scale).unwrap();
        assert_close(
            &host(c.log_prob(&v).unwrap()),
            &[-1.5435060058067678, -4.062500617933679],
            1e-13,
        );
        assert_close(
            &host(c.entropy().unwrap()),
            &[2.5310242469692907, 1.8378770664093453],
            1e-13,
        );
        assert_close(
            &host(c.cdf(&v).unwrap()),
            &[0.6944001122142147, 0.052568456711253375],
            1e-13,
        );
        assert_close(
            &host(c.icdf(&p).unwrap()),
            &[-3.0776835371752527, 1.688190960235587],
            1e-12,
        );
        let c2 = Cauchy::new(&f(vec![0.5, 0.0]), &f(vec![2.0, 1.0])).unwrap();
        assert_close(
            &host(kl_divergence(&c, &c2).unwrap()),
            &[0.14518200984449825, 0.4855078157817009],
            1e-13,
        );
        let g = Gumbel::new(&loc, &scale).unwrap();
        assert_close(
            &host(g.log_prob(&v).unwrap()),
            &[-1.1965853037914096, -396.73564631217516],
            1e-13,
        );
        assert_close(
            &host(g.entropy().unwrap()),
            &[1.5772156649015328, 0.8840684843415875],
            1e-13,
        );
        assert_close(&host(g.cdf(&v).unwrap()), &[0.6086053178044065, 0.0], 1e-13);
        assert_close(
            &host(g.icdf(&p).unwrap()),
            &[-0.8340324452479561, 1.7499699933797572],
            1e-13,
        );
        let mv: Vec<f64> = [host(g.mean().unwrap()), host(g.variance().unwrap())].concat();
        assert_close(
            &mv,
            &[
                0.5772156649015329,
                1.2886078324507664,
                1.6449340668482264,
                0.4112335167120566,
            ],
            1e-13,
        );
        let l = LogNormal::new(&loc, &scale).unwrap();
        let lv = f(vec![0.7, 2.0]);
        assert_close(
            &host(l.log_prob(&lv).unwrap()),
            &[-0.6258720970827892, -1.1072558388012943],
            1e-13,
        );
        assert_close(
            &host(l.entropy().unwrap()),
            &[1.4189385332046727, 1.7257913526447273],
            1e-13,
        );
        assert_close(
            &host(l.cdf(&lv).unwrap()),
            &[0.3606675826226491, 0.26970493073490953],
            1e-13,
        );
        assert_close(
            &host(l.icdf(&p).unwrap()),
            &[0.2776062418520097, 4.140475419145248],
            1e-12,
        );
        let mv: Vec<f64> = [host(l.mean().unwrap()), host(l.variance().unwrap())].concat();
        assert_close(
            &mv,
            &[
                1.6487212707001282,
                3.080216848918031,
                4.670774270471605,
                2.694758124344948,
            ],
            1e-13,
        );
        let l2 = LogNormal::new(&f(vec![0.5, 0.0]), &f(vec![2.0, 1.0])).unwrap();
        assert_close(
            &host(kl_divergence(&l, &l2).unwrap()),
            &[0.3493971805599453, 0.8181471805599453],
            1e-13,
        );
        assert!(
            l.log_prob(&f(vec![0.0, 1.0])).is_err()
                && Cauchy::new(&loc, &f(vec![0.0, 1.0])).is_err()
        );
        // Sampling: Gumbel's and LogNormal's moments, Cauchy's median and quartiles.
        typed_tensor::manual_seed(5);
        let n = 40_000;
        let m = |t: Tensor<f64, _>| host(t.try_mean(&[0], false).unwrap());
        for (got, want) in m(g.sample(&[n]).unwrap())
            .iter()
            .zip(host(g.mean().unwrap()))
        {
            assert!((got - want).abs() < 0.04, "{got} against {want}");
        }
        for (got, want) in m(l.sample(&[n]).unwrap())
            .iter()
            .zip(host(l.mean().unwrap()))
        {
            assert!((got - want).abs() < 0.06 * want, "{got} against {want}");
        }
        let s = host(c.sample(&[n]).unwrap().select(1, 0).unwrap());
        let below = |x: f64| s.iter().filter(|&&v| v < x).count() as f64 / n as f64;
        assert!((below(0.0) - 0.5).abs() < 0.01 && (below(1.0) - 0.75).abs() < 0.01);
        // rsample reaches the parameters.
        let sc = f(vec![1.0, 0.5]).with_requires_grad(true).unwrap();
        let x = Gumbel::new(&loc, &sc).unwrap().rsample(&[4]).unwrap();
        x.try_sum(&[], false).unwrap().try_backward().unwrap();
        assert!(
            sc.grad_tensor()
                .unwrap()
                .try_to_vec()
                .unwrap()
                .iter()
                .all(|v| v.is_finite())
        );
    });
}

#[test]
fn gamma_beta_dirichlet_match_pytorch() {
    on_every_device!("distributions_gamma", |dev| {
        let f =
            |v: Vec<f64>, d: &[usize]| Tensor::<f64, _>::from_vec_on(v, d.to_vec(), &dev).unwrap();
        let host = |t: Tensor<f64, _>| t.try_to_vec().unwrap();
        let g = Gamma::new(&f(vec![0.5, 2.0, 7.5], &[3]), &f(vec![1.0, 3.0, 0.5], &[3])).unwrap();
        let v = f(vec![0.2, 1.0, 12.0], &[3]);
        assert_close(
            &host(g.log_prob(&v).unwrap()),
            &[
                0.03235401329234999,
                -0.8027754226637804,
                -2.5810748673363184,
            ],
            1e-12,
        );
        assert_close(
            &host(g.entropy().unwrap()),
            &[0.09060992991398853, 0.4786033762334232, 3.073587769719113],
            1e-12,
        );
        assert_close(
            &host(g.cdf(&v).unwrap()),
            &[0.47291074313446185, 0.8008517265285442, 0.3209709429095853],
            1e-10,
        );
        let mv: Vec<f64> = [host(g.mean().unwrap()), host(g.variance().unwrap())].concat();
        assert_close(
            &mv,
            &[0.5, 0.6666666666666666, 15.0, 0.5, 0.2222222222222222, 30.0],
            1e-13,
        );
        let g2 = Gamma::new(&f(vec![1.0, 1.0, 5.0], &[3]), &f(vec![2.0, 1.0, 1.0], &[3])).unwrap();
        assert_close(
            &host(kl_divergence(&g, &g2).unwrap()),
            &[0.21624288952606607, 0.18806329043324355, 4.544847401404704],
            1e-12,
        );
        let b = Beta::new(&f(vec![0.5, 2.0], &[2]), &f(vec![1.5, 3.0], &[2])).unwrap();
        let bv = f(vec![0.3, 0.9], &[2]);
        assert_close(
            &host(b.log_prob(&bv).unwrap()),
            &[-0.027933775095853042, -2.2256240518579173],
            1e-12,
        );
        assert_close(
            &host(b.entropy().unwrap()),
            &[-0.5484172947105447, -0.23490664978800035],
            1e-12,
        );
        let mv: Vec<f64> = [host(b.mean().unwrap()), host(b.variance().unwrap())].concat();
        assert_close(&mv, &[0.25, 0.4, 0.0625, 0.04], 1e-13);
        let b2 = Beta::new(&f(vec![1.0, 4.0], &[2]), &f(vec![1.0, 0.5], &[2])).unwrap();
        assert_close(
            &host(kl_divergence(&b, &b2).unwrap()),
            &[0.5484172947105447, 3.103627824431646],
            1e-12,
        );
        let d = Dirichlet::new(&f(vec![1.0, 2.0, 3.0, 0.5, 0.5, 4.0], &[2, 3])).unwrap();
        let dv = f(vec![0.2, 0.3, 0.5], &[3]);
        assert_close(
            &host(d.log_prob(&dv).unwrap()),
            &[1.5040773967762737, -0.43117170802932714],
            1e-12,
        );
        assert_close(
            &host(d.entropy().unwrap()),
            &[-1.2443445622221008, -2.9611921697237134],
            1e-12,
        );
        let mv: Vec<f64> = [host(d.mean().unwrap()), host(d.variance().unwrap())].concat();
        assert_close(
            &mv,
            &[
                0.16666666666666666,
                0.3333333333333333,
                0.5,
                0.1,
                0.1,
                0.8,
                0.01984126984126984,
                0.031746031746031744,
                0.03571428571428571,
                0.015,
                0.015,
                0.02666666666666667,
            ],
            1e-13,
        );
        let d2 = Dirichlet::new(&f(vec![2.0, 2.0, 2.0, 1.0, 1.0, 1.0], &[2, 3])).unwrap();
        assert_close(
            &host(kl_divergence(&d, &d2).unwrap()),
            &[0.8068528194400547, 2.268044989163768],
            1e-12,
        );
        // Sample means, values in the support; refusals.
        typed_tensor::manual_seed(3);
        let n = 30_000;
        let m = |t: Tensor<f64, _>| host(t.try_mean(&[0], false).unwrap());
        for (got, want) in m(g.sample(&[n]).unwrap())
            .iter()
            .zip([0.5, 2.0 / 3.0, 15.0])
        {
            assert!(
                (got - want).abs() < 0.03 * want.max(1.0),
                "{got} against {want}"
            );
        }
        let s = b.sample(&[n]).unwrap();
        assert_eq!(s.dims(), [n, 2]);
        for (got, want) in m(s).iter().zip([0.25, 0.4]) {
            assert!((got - want).abs() < 0.01, "{got} against {want}");
        }
        let s = d.sample(&[4]).unwrap();
        assert_eq!(s.dims(), [4, 2, 3]);
        for row in host(s.try_sum(&[-1], false).unwrap()) {
            assert!((row - 1.0).abs() < 1e-12);
        }
        assert!(Gamma::new(&f(vec![0.0], &[1]), &f(vec![1.0], &[1])).is_err());
        assert!(Beta::new(&f(vec![1.0], &[1]), &f(vec![f64::INFINITY], &[1])).is_err());
        assert!(Dirichlet::new(&f(vec![], &[0])).is_err());
        assert!(g.log_prob(&f(vec![0.0, 1.0, 1.0], &[3])).is_err());
        assert!(b.log_prob(&f(vec![1.5, 0.5], &[2])).is_err());
        assert!(d.log_prob(&f(vec![0.5, 0.5, 0.5], &[3])).is_err());
    });
}

/// `rsample` of the gamma family by implicit reparameterization: the gradient of the sample
/// mean in each parameter matches the derivative of the distribution's mean.
#[test]
fn gamma_family_rsample_gradients() {
    on_every_device!("distributions_gamma_rsample", |dev| {
        let leaf = |v: Vec<f64>| {
            let n = v.len();
            Tensor::<f64, _>::from_vec_on(v, [n], &dev)
                .unwrap()
                .with_requires_grad(true)
                .unwrap()
        };
        typed_tensor::manual_seed(21);
        let n = 40_000;
        // E[x] = α / β: d/dα = 1/β, d/dβ = -α/β².
        let (a, b) = (leaf(vec![0.5, 3.0]), leaf(vec![1.0, 2.0]));
        let x = Gamma::new(&a, &b).unwrap().rsample(&[n]).unwrap();
        x.try_mean(&[0], false)
            .unwrap()
            .try_sum(&[], false)
            .unwrap()
            .try_backward()
            .unwrap();
        let (ga, gb) = (
            a.grad_tensor().unwrap().try_to_vec().unwrap(),
            b.grad_tensor().unwrap().try_to_vec().unwrap(),
        );
        for (g, w) in ga.iter().zip([1.0, 0.5]) {
            assert!((g - w).abs() < 0.03, "d/dα {g} against {w}");
        }
        for (g, w) in gb.iter().zip([-0.5, -0.75]) {
            assert!((g - w).abs() < 0.03, "d/dβ {g} against {w}");
        }
        // Beta: E[x] = α / (α + β), d/dα = β / (α + β)² = 0.1875 at (1, 3).
        let (c1, c0) = (leaf(vec![1.0]), leaf(vec![3.0]));
        let x = Beta::new(&c1, &c0).unwrap().rsample(&[n]).unwrap();
        x.try_mean(&[], false).unwrap().try_backward().unwrap();
        let g = c1.grad_tensor().unwrap().try_to_vec().unwrap()[0];
        assert!((g - 0.1875).abs() < 0.01, "{g}");
        assert!(
            Gamma::new(&a, &b)
                .unwrap()
                .sample(&[2])
                .unwrap()
                .grad_fn()
                .is_none()
        );
        // Dirichlet: each draw stays on the simplex, and the gradient reaches the concentration.
        let c = leaf(vec![1.0, 2.0, 3.0]);
        let x = Dirichlet::new(&c).unwrap().rsample(&[4]).unwrap();
        x.select(1, 0)
            .unwrap()
            .try_sum(&[], false)
            .unwrap()
            .try_backward()
            .unwrap();
        assert!(
            c.grad_tensor()
                .unwrap()
                .try_to_vec()
                .unwrap()
                .iter()
                .all(|v| v.is_finite())
        );
    });
}

#[test]
fn student_t_binomial_geometric_match_pytorch() {
    on_every_device!("distributions_counts", |dev| {
        let f = |v: Vec<f64>| {
            let n = v.len();
            Tensor::<f64, _>::from_vec_on(v, [n], &dev).unwrap()
        };
        let host = |t: Tensor<f64, _>| t.try_to_vec().unwrap();
        let st = StudentT::new(
            &f(vec![3.0, 1.5, 30.0]),
            &f(vec![0.0, 1.0, -1.0]),
            &f(vec![1.0, 2.0, 0.5]),
        )
        .unwrap();
        assert_close(
            &host(st.log_prob(&f(vec![0.5, -3.0, -1.2])).unwrap()),
            &[
                -1.1609742649705825,
                -3.3939011955546623,
                -0.31657014772169767,
            ],
            1e-12,
        );
        assert_close(
            &host(st.entropy().unwrap()),
            &[1.7734775718632918, 2.8428066484045944, 0.7593961492272605],
            1e-12,
        );
        let mv: Vec<f64> = [host(st.mean().unwrap()), host(st.variance().unwrap())].concat();
        assert_close(
            &mv,
            &[0.0, 1.0, -1.0, 3.0, f64::INFINITY, 0.26785714285714285],
            1e-13,
        );
        let heavy = StudentT::new(&f(vec![1.0, 2.0]), &f(vec![0.0]), &f(vec![1.0])).unwrap();
        assert!(
            host(heavy.mean().unwrap())[0].is_nan()
                && host(heavy.variance().unwrap())[1].is_infinite()
        );
        let b = Binomial::new(
            &f(vec![10.0, 5.0, 0.0]),
            Some(&f(vec![0.3, 0.0, 0.5])),
            None,
        )
        .unwrap();
        assert_close(
            &host(b.log_prob(&f(vec![3.0, 0.0, 0.0])).unwrap()),
            &[-1.321151277766889, -8.881784197001252e-16, 0.0],
            1e-12,
        );
        let mv: Vec<f64> = [host(b.mean().unwrap()), host(b.variance().unwrap())].concat();
        assert_close(&mv, &[3.0, 0.0, 0.0, 2.0999999999999996, 0.0, 0.0], 1e-13);
        let six = Tensor::<f64, _>::scalar_on(6.0, &dev).unwrap();
        let bh = Binomial::new(&six, Some(&f(vec![0.3, 0.0, 0.5])), None).unwrap();
        assert_close(
            &host(bh.entropy().unwrap()),
            &[
                1.5109781376341778,
                4.740904635965554e-14,
                1.6173633156271288,
            ],
            1e-10,
        );
        assert!(b.entropy().is_err()); // counts differ across the batch, as PyTorch refuses
        let b2 = Binomial::new(&f(vec![10.0, 5.0]), None, Some(&f(vec![-0.5, 2.0]))).unwrap();
        assert_close(
            &host(b2.log_prob(&f(vec![10.0, 2.0])).unwrap()),
            &[-9.740769841801065, -4.332054962220818],
            1e-12,
        );
        let g = Geometric::new(Some(&f(vec![0.2, 0.9, 1.0])), None).unwrap();
        assert_close(
            &host(g.log_prob(&f(vec![3.0, 0.0, 0.0])).unwrap()),
            &[-2.2788685663767296, -0.10536051565782628, 0.0],
            1e-12,
        );
        assert_close(
            &host(g.entropy().unwrap()),
            &[
                2.5020121176909393,
                0.36120330376827575,
                2.220446049250318e-16,
            ],
            1e-10,
        );
        let mv: Vec<f64> = [host(g.mean().unwrap()), host(g.variance().unwrap())].concat();
        assert_close(
            &mv,
            &[
                4.0,
                0.11111111111111116,
                0.0,
                20.0,
                0.12345679012345684,
                0.0,
            ],
            1e-13,
        );
        // Samples' means; refusals.
        typed_tensor::manual_seed(17);
        let n = 30_000;
        let m = |t: Tensor<f64, _>| host(t.try_mean(&[0], false).unwrap());
        for (got, want) in m(b.sample(&[n]).unwrap()).iter().zip([3.0, 0.0, 0.0]) {
            assert!((got - want).abs() < 0.05, "{got} against {want}");
        }
        for (got, want) in m(g.sample(&[n]).unwrap()).iter().zip([4.0, 1.0 / 9.0, 0.0]) {
            assert!(
                (got - want).abs() < 0.1 * want.max(0.2),
                "{got} against {want}"
            );
        }
        let t5 = StudentT::new(&f(vec![5.0]), &f(vec![2.0]), &f(vec![1.0])).unwrap();
        let s = t5.sample(&[n]).unwrap();
        assert!((m(s.clone())[0] - 2.0).abs() < 0.03);
        let v = host(s.try_var(&[0], 1, false).unwrap())[0];
        assert!((v - 5.0 / 3.0).abs() < 0.15, "{v}");
        assert!(Binomial::new(&f(vec![2.5]), Some(&f(vec![0.5])), None).is_err());
        assert!(Binomial::new(&f(vec![2.0]), Some(&f(vec![0.5])), Some(&f(vec![0.0]))).is_err());
        assert!(b.log_prob(&f(vec![11.0, 0.0, 0.0])).is_err());
        assert!(Geometric::new(Some(&f(vec![0.0])), None).is_err());
        assert!(g.log_prob(&f(vec![-1.0, 0.0, 0.0])).is_err());
        assert!(StudentT::new(&f(vec![0.0]), &f(vec![0.0]), &f(vec![1.0])).is_err());
    });
}

#[test]
fn independent_reinterprets_batch_axes() {
    use typed_tensor::distributions::Independent;
    on_every_device!("distributions_independent", |dev| {
        let f =
            |v: Vec<f64>, d: &[usize]| Tensor::<f64, _>::from_vec_on(v, d.to_vec(), &dev).unwrap();
        let host = |t: Tensor<f64, _>| t.try_to_vec().unwrap();
        let mu = f(vec![0.0, 1.0, 2.0, 0.5, -0.5, 0.0], &[2, 3]);
        let sd = f(vec![1.0, 0.5, 2.0, 1.0, 1.0, 3.0], &[2, 3]);
        let d = Independent::new(Normal::new(&mu, &sd).unwrap(), 1).unwrap();
        assert_eq!(d.batch_shape().dims(), [2]);
        let v = f(vec![0.3, 0.2, -1.0], &[3]);
        assert_close(
            &host(d.log_prob(&v).unwrap()),
            &[-5.206815599614018, -4.1759834438376835],
            1e-13,
        );
        assert_close(
            &host(d.entropy().unwrap()),
            &[4.2568155996140185, 5.355427888282128],
            1e-13,
        );
        let zeros = f(vec![0.0; 6], &[2, 3]);
        let q = Independent::new(
            Normal::new(&zeros, &zeros.try_add_scalar(1.0).unwrap()).unwrap(),
            1,
        )
        .unwrap();
        assert_close(
            &host(kl_divergence(&d, &q).unwrap()),
            &[3.625, 3.15138771133189],
            1e-13,
        );
        assert_eq!(d.sample(&[5]).unwrap().dims(), [5, 2, 3]);
        // No axis reinterpreted is the base itself; more axes than the batch has is an Err.
        let same = Independent::new(Normal::new(&mu, &sd).unwrap(), 0).unwrap();
        assert_eq!(same.log_prob(&v).unwrap().dims(), [2, 3]);
        assert!(Independent::new(Normal::new(&mu, &sd).unwrap(), 3).is_err());
        let q0 = Independent::new(Normal::new(&mu, &sd).unwrap(), 2).unwrap();
        assert!(kl_divergence(&d, &q0).is_err());
    });
}

#[test]
fn multinomial_matches_pytorch() {
    on_every_device!("distributions_multinomial", |dev| {
        let f =
            |v: Vec<f64>, d: &[usize]| Tensor::<f64, _>::from_vec_on(v, d.to_vec(), &dev).unwrap();
        let host = |t: Tensor<f64, _>| t.try_to_vec().unwrap();
        let p = f(vec![1.0, 2.0, 0.0, 1.0, 0.25, 0.25, 0.25, 0.25], &[2, 4]);
        let m = Multinomial::new(5, Some(&p), None).unwrap();
        let v = f(vec![2.0, 3.0, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0], &[2, 4]);
        assert_close(
            &host(m.log_prob(&v).unwrap()),
            &[-2.5494451709255714, -2.837127243377352],
            1e-12,
        );
        assert_close(
            &host(m.entropy().unwrap()),
            &[2.6167676357498477, 3.7098643994569045],
            1e-10,
        );
        let mv: Vec<f64> = [host(m.mean().unwrap()), host(m.variance().unwrap())].concat();
        assert_close(
            &mv,
            &[
                1.25, 2.5, 0.0, 1.25, 1.25, 1.25, 1.25, 1.25, 0.9375, 1.25, 0.0, 0.9375, 0.9375,
                0.9375, 0.9375, 0.9375,
            ],
            1e-13,
        );
        typed_tensor::manual_seed(2);
        let s = m.sample(&[3000]).unwrap();
        assert_eq!(s.dims(), [3000, 2, 4]);
        let sums = host(s.try_sum(&[-1], false).unwrap());
        assert!(sums.iter().all(|&t| t == 5.0));
        let means = host(s.try_mean(&[0], false).unwrap());
        for (g, w) in means.iter().zip(host(m.mean().unwrap())) {
            assert!((g - w).abs() < 0.08, "{g} against {w}");
        }
        assert_eq!(
            host(
                s.select(-1, 2)
                    .unwrap()
                    .select(1, 0)
                    .unwrap()
                    .try_sum(&[], false)
                    .unwrap()
            ),
            [0.0]
        );
        assert_eq!(
            Multinomial::new(0, Some(&p), None)
                .unwrap()
                .sample(&[2])
                .unwrap()
                .dims(),
            [2, 2, 4]
        );
        assert!(
            m.log_prob(&f(vec![1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0], &[2, 4]))
                .is_err()
        );
        assert!(
            Multinomial::<f64, _>::new(3, None, Some(&p)).is_ok()
                && Multinomial::new(3, Some(&p), Some(&p)).is_err()
        );
    });
}
