//! `GeneralizedPareto`, `LogisticNormal`, `Wishart`, `LKJCholesky` and the `Mode` trait on every device against PyTorch 2.15, with
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
        let perplexity: Vec<f64> = GP_ENT.iter().map(|h| h.exp()).collect();
        assert_close(&host_f64s(&d.perplexity().unwrap()), &perplexity, 1e-12);
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

/// The lower triangle of each `n × n` matrix of `v` (row-major).
fn lower(v: &[f64], n: usize) -> Vec<f64> {
    (v.iter().enumerate())
        .filter(|(i, _)| i % n <= (i / n) % n)
        .map(|(_, x)| *x)
        .collect()
}

#[test]
fn wishart_matches_pytorch() {
    on_every_device!("wishart", |dev| {
        let t =
            |v: &[f64], s: &[usize]| Tensor::<f64, _>::from_vec_on(v.to_vec(), s, &dev).unwrap();
        let df = t(&[4.5, 3.2], &[2]).with_requires_grad(true).unwrap();
        let l = t(&[1.0, 0.0, 0.0, 0.3, 0.8, 0.0, -0.2, 0.1, 0.5], &[3, 3]);
        let l = l.with_requires_grad(true).unwrap();
        let w = Wishart::from_scale_tril(&df, &l).unwrap();
        assert_eq!(
            (w.batch_shape().dims(), w.event_shape()),
            (&[2][..], vec![3, 3])
        );
        let x = t(
            &[
                2.0, 0.3, 0.1, 0.3, 1.5, -0.2, 0.1, -0.2, 0.8, 1., 0., 0., 0., 1., 0., 0., 0., 1.,
            ],
            &[2, 3, 3],
        );
        let lp = w.log_prob(&x).unwrap();
        assert_close(&host_f64s(&lp), W_LP, 1e-12);
        lp.try_sum(&[], false).unwrap().backward();
        assert_close(&host_f64s(&df.grad_tensor().unwrap()), W_GDF, 1e-10);
        // The factor's lower triangle (PyTorch's cholesky_solve also sends gradients to the
        // unused upper one).
        let gl = host_f64s(&l.grad_tensor().unwrap());
        assert_close(&lower(&gl, 3), &lower(W_GL, 3), 1e-10);
        assert_close(&host_f64s(&w.entropy().unwrap()), W_ENT, 1e-12);
        assert_close(&host_f64s(&w.mean().unwrap()), W_MEAN, 1e-12);
        assert_close(&host_f64s(&w.variance().unwrap()), W_VAR, 1e-12);
        let p = t(&[2.0, 0.5, 0.5, 1.0], &[2, 2]);
        let wp = Wishart::from_precision(&t(&[2.5], &[]), &p).unwrap();
        let lp = wp.log_prob(&t(&[1.0, 0.2, 0.2, 0.7], &[2, 2])).unwrap();
        assert_close(&host_f64s(&lp), W_LP_PREC, 1e-12);
        // Refusals: df ≤ p - 1, a factor that is not lower triangular, values that are not
        // symmetric positive definite or of the wrong size.
        assert!(Wishart::from_scale_tril(&t(&[2.0], &[]), &l.detach()).is_err());
        assert!(
            Wishart::from_scale_tril(&t(&[4.0], &[]), &l.detach().transpose(0, 1).unwrap())
                .is_err()
        );
        assert!(
            Wishart::from_covariance(&t(&[4.0], &[]), &t(&[1.0, 2.0, 2.0, 1.0], &[2, 2])).is_err()
        );
        assert!(Wishart::from_scale_tril(&t(&[4.0, 5.0, 6.0], &[3]), &l.detach()).is_ok());
        assert!(
            Wishart::from_scale_tril(
                &t(&[4.0, 5.0], &[2]),
                &l.detach().expand([3, 3, 3]).unwrap()
            )
            .is_err()
        );
        assert!(w.log_prob(&t(&[1.0, 0.5, 0.0, 1.0], &[2, 2])).is_err());
        let asym = t(&[2.0, 0.3, 0.1, 0.0, 1.5, -0.2, 0.1, -0.2, 0.8], &[3, 3]);
        assert!(w.log_prob(&asym).is_err());
        let indefinite = t(&[1.0, 2.0, 0.0, 2.0, 1.0, 0.0, 0.0, 0.0, 1.0], &[3, 3]);
        assert!(w.log_prob(&indefinite).is_err());
        // Sample mean ν Σ, samples symmetric.
        let s = w.rsample(&[20000]).unwrap();
        assert_eq!(s.dims(), [20000, 2, 3, 3]);
        let m = host_f64s(&s.try_mean(&[0], false).unwrap());
        assert_close(&m, W_MEAN, 0.05);
        let st = host_f64s(&s.transpose(-1, -2).unwrap());
        assert_close(&host_f64s(&s), &st, 1e-12);
    });
}

#[test]
fn lkj_cholesky_matches_pytorch() {
    on_every_device!("lkj_cholesky", |dev| {
        let t =
            |v: &[f64], s: &[usize]| Tensor::<f64, _>::from_vec_on(v.to_vec(), s, &dev).unwrap();
        let eta = t(&[0.5, 1.0, 3.0], &[3]).with_requires_grad(true).unwrap();
        let d = LKJCholesky::new(4, &eta).unwrap();
        assert_eq!(
            (d.batch_shape().dims(), d.event_shape()),
            (&[3][..], vec![4, 4])
        );
        let lp = d.log_prob(&t(LKJ_L, &[4, 4])).unwrap();
        assert_close(&host_f64s(&lp), LKJ_LP, 1e-12);
        lp.try_sum(&[], false).unwrap().backward();
        assert_close(&host_f64s(&eta.grad_tensor().unwrap()), LKJ_GETA, 1e-10);
        let d2 = LKJCholesky::new(2, &t(&[1.7], &[])).unwrap();
        let l2 = t(&[1.0, 0.0, -0.6, 0.8], &[2, 2]);
        assert_close(&host_f64s(&d2.log_prob(&l2).unwrap()), LKJ_LP2, 1e-12);
        // Refusals: dim < 2, η ≤ 0; values not lower triangular, rows not of unit norm.
        assert!(LKJCholesky::new(1, &t(&[1.0], &[])).is_err());
        assert!(LKJCholesky::new(3, &t(&[0.0], &[])).is_err());
        assert!(d2.log_prob(&t(&[1.0, 0.1, -0.6, 0.8], &[2, 2])).is_err());
        assert!(d2.log_prob(&t(&[1.0, 0.0, -0.6, 0.9], &[2, 2])).is_err());
        assert!(d2.log_prob(&t(&[1.0; 9], &[3, 3])).is_err());
        assert!(d.entropy().is_err());
        // Samples are valid factors; with η = 1 and dim 2 the correlation L₁₀ is uniform on
        // (-1, 1): mean 0, variance 1/3.
        let s = d.sample(&[50]).unwrap();
        assert_eq!(s.dims(), [50, 3, 4, 4]);
        assert!(d.log_prob(&s).is_ok());
        let u = LKJCholesky::new(2, &t(&[1.0], &[]))
            .unwrap()
            .sample(&[40000])
            .unwrap();
        let r = u.select(-2, 1).unwrap().select(-1, 0).unwrap();
        let m = host_f64s(&r.try_mean(&[], false).unwrap())[0];
        let v = host_f64s(&r.try_var(&[], 0, false).unwrap())[0];
        assert!(m.abs() < 0.02 && (v - 1.0 / 3.0).abs() < 0.01, "{m} {v}");
    });
}

/// `Mode` of every family that has one, against PyTorch 2.15 (the Weibull with `k < 1` and
/// the Kumaraswamy against their formulas: PyTorch's are NaN there).
#[test]
fn modes_match_pytorch() {
    on_every_device!("modes", |dev| {
        let t =
            |v: &[f64], s: &[usize]| Tensor::<f64, _>::from_vec_on(v.to_vec(), s, &dev).unwrap();
        let v = |v: &[f64]| t(v, &[v.len()]);
        let check = |m: Tensor<f64, _>, want: &[f64]| assert_close(&host_f64s(&m), want, 1e-12);
        check(
            LogNormal::new(&v(&[0.3, -1.0]), &v(&[0.8, 1.5]))
                .unwrap()
                .mode()
                .unwrap(),
            MODE_LOGNORMAL,
        );
        check(
            Gamma::new(&v(&[3.0, 0.5]), &v(&[2.0, 1.0]))
                .unwrap()
                .mode()
                .unwrap(),
            MODE_GAMMA,
        );
        check(
            Chi2::new(&v(&[1.5, 6.0])).unwrap().mode().unwrap(),
            MODE_CHI2,
        );
        check(
            InverseGamma::new(&v(&[3.0, 0.5]), &v(&[2.0, 1.0]))
                .unwrap()
                .mode()
                .unwrap(),
            MODE_INVGAMMA,
        );
        check(
            Poisson::new(&v(&[0.5, 3.7])).unwrap().mode().unwrap(),
            MODE_POISSON,
        );
        check(
            Binomial::new(&v(&[10., 4.]), Some(&v(&[0.33, 0.99])), None)
                .unwrap()
                .mode()
                .unwrap(),
            MODE_BINOMIAL,
        );
        check(
            NegativeBinomial::new(&v(&[10., 0.5]), Some(&v(&[0.3, 0.7])), None)
                .unwrap()
                .mode()
                .unwrap(),
            MODE_NEGBIN,
        );
        check(
            Bernoulli::from_probs(&v(&[0.2, 0.5, 0.7]))
                .unwrap()
                .mode()
                .unwrap(),
            MODE_BERNOULLI,
        );
        check(
            FisherSnedecor::new(&v(&[5.0, 1.5]), &v(&[3.0, 4.0]))
                .unwrap()
                .mode()
                .unwrap(),
            MODE_FISHER,
        );
        check(
            Weibull::new(&v(&[2.0, 1.0, 1.5]), &v(&[3.0, 1.0, 0.5]))
                .unwrap()
                .mode()
                .unwrap(),
            &[MODE_WEIBULL, &[0.0]].concat(),
        );
        check(
            Kumaraswamy::new(&v(&[2.0, 0.5]), &v(&[3.0, 2.0]))
                .unwrap()
                .mode()
                .unwrap(),
            MODE_KUMARASWAMY,
        );
        let dir = t(&[2.0, 3.0, 1.5, 0.5, 2.0, 3.0, 0.5, 0.3, 0.9], &[3, 3]);
        check(
            Dirichlet::new(&dir).unwrap().mode().unwrap(),
            MODE_DIRICHLET,
        );
        check(
            Beta::new(&v(&[2.0, 0.5, 0.5]), &v(&[3.0, 0.7, 2.0]))
                .unwrap()
                .mode()
                .unwrap(),
            MODE_BETA,
        );
        let w = Wishart::from_scale_tril(&v(&[4.5, 3.5]), &t(&[1.0, 0.0, 0.3, 0.8], &[2, 2]));
        check(w.unwrap().mode().unwrap(), MODE_WISHART);
        let p = t(&[0.2, 0.5, 0.3, 0.6, 0.1, 0.3], &[2, 3]);
        check(
            OneHotCategorical::from_probs(&p).unwrap().mode().unwrap(),
            MODE_ONEHOT,
        );
        let best = Categorical::from_probs(&p).unwrap().mode().unwrap();
        assert_eq!(host_f64s(&best), vec![1.0, 0.0]);
        // The location families, the zero-mode ones and the uniform.
        let (loc, scale) = (v(&[0.5, -1.0]), v(&[2.0, 0.5]));
        for m in [
            Normal::new(&loc, &scale).unwrap().mode().unwrap(),
            Laplace::new(&loc, &scale).unwrap().mode().unwrap(),
            Cauchy::new(&loc, &scale).unwrap().mode().unwrap(),
            Gumbel::new(&loc, &scale).unwrap().mode().unwrap(),
            StudentT::new(&scale, &loc, &scale).unwrap().mode().unwrap(),
            GeneralizedPareto::new(&loc, &scale, &scale)
                .unwrap()
                .mode()
                .unwrap(),
            Independent::new(Normal::new(&loc, &scale).unwrap(), 1)
                .unwrap()
                .mode()
                .unwrap(),
        ] {
            check(m, &[0.5, -1.0]);
        }
        check(
            Pareto::new(&scale, &scale).unwrap().mode().unwrap(),
            &[2.0, 0.5],
        );
        check(
            Exponential::new(&scale).unwrap().mode().unwrap(),
            &[0.0, 0.0],
        );
        check(
            HalfNormal::new(&scale).unwrap().mode().unwrap(),
            &[0.0, 0.0],
        );
        check(
            Uniform::new(&loc, &v(&[1.0, 1.0])).unwrap().mode().unwrap(),
            &[f64::NAN; 2],
        );
    });
}

/// `enumerate_support` as PyTorch's: the values along a new axis 0, unit batch axes or
/// expanded, their probabilities summing to 1; the refusals where PyTorch raises.
#[test]
fn enumerate_support_matches_pytorch() {
    on_every_device!("enumerate_support", |dev| {
        let t =
            |v: &[f64], s: &[usize]| Tensor::<f64, _>::from_vec_on(v.to_vec(), s, &dev).unwrap();
        let sums_to_one = |lp: Tensor<f64, _>| {
            let total = host_f64s(&lp.try_exp().unwrap().try_sum(&[0], false).unwrap());
            assert!(total.iter().all(|p| (p - 1.0).abs() < 1e-12), "{total:?}");
        };
        let b = Bernoulli::from_probs(&t(&[0.2, 0.7, 0.5, 0.9, 0.1, 0.4], &[2, 3])).unwrap();
        let v = b.enumerate_support(false).unwrap();
        assert_eq!((v.dims(), host_f64s(&v)), (&[2, 1, 1][..], vec![0.0, 1.0]));
        let v = b.enumerate_support(true).unwrap();
        assert_eq!(v.dims(), [2, 2, 3]);
        sums_to_one(b.log_prob(&v).unwrap());
        let n = Binomial::new(&t(&[4.0], &[]), Some(&t(&[0.2, 0.7, 0.5], &[3])), None).unwrap();
        let v = n.enumerate_support(true).unwrap();
        assert_eq!(v.dims(), [5, 3]);
        assert_eq!(
            host_f64s(&v.select(1, 2).unwrap()),
            vec![0.0, 1.0, 2.0, 3.0, 4.0]
        );
        sums_to_one(n.log_prob(&v).unwrap());
        let uneven = Binomial::new(&t(&[4.0, 5.0], &[2]), Some(&t(&[0.2], &[])), None).unwrap();
        assert!(uneven.enumerate_support(false).is_err());
        let p = t(&[0.2, 0.5, 0.3, 0.6, 0.1, 0.3], &[2, 3]);
        let c = Categorical::from_probs(&p).unwrap();
        let v = c.enumerate_support(false).unwrap();
        assert_eq!(
            (v.dims(), host_f64s(&v)),
            (&[3, 1][..], vec![0.0, 1.0, 2.0])
        );
        sums_to_one(c.log_prob(&c.enumerate_support(true).unwrap()).unwrap());
        let o = OneHotCategorical::from_probs(&p).unwrap();
        let v = o.enumerate_support(true).unwrap();
        assert_eq!(v.dims(), [3, 2, 3]);
        sums_to_one(o.log_prob(&v).unwrap());
        assert_eq!(o.enumerate_support(false).unwrap().dims(), [3, 1, 3]);
        let ind = Independent::new(b.clone(), 0).unwrap();
        assert_eq!(ind.enumerate_support(true).unwrap().dims(), [2, 2, 3]);
        assert!(
            Independent::new(b, 1)
                .unwrap()
                .enumerate_support(true)
                .is_err()
        );
    });
}

/// `expand` as PyTorch's: the batch grows, every moment is the original's broadcast, event
/// axes follow, gradients reach the original parameters, and a batch that does not
/// broadcast is refused.
#[test]
fn expand_broadcasts_the_parameters() {
    on_every_device!("expand", |dev| {
        let t =
            |v: &[f64], s: &[usize]| Tensor::<f64, _>::from_vec_on(v.to_vec(), s, &dev).unwrap();
        let (a, b) = (t(&[0.5, 1.5, 2.5], &[3]), t(&[1.2, 0.7, 3.0], &[3]));
        let u = t(&[0.2, 0.3, 0.6], &[3]);
        fn same<T, D>(d: T, event: usize)
        where
            T: Moments<f64, D> + Expand<f64, D> + Distribution<f64, D, Value = Tensor<f64, D>>,
            D: Backend,
        {
            let e = d.expand(&[2, 3]).unwrap();
            assert_eq!(e.batch_shape().dims(), &[2, 3]);
            let (m, me) = (host_f64s(&d.mean().unwrap()), host_f64s(&e.mean().unwrap()));
            let (v, ve) = (
                host_f64s(&d.variance().unwrap()),
                host_f64s(&e.variance().unwrap()),
            );
            assert_close(&me, &[m.clone(), m].concat(), 0.0);
            assert_close(&ve, &[v.clone(), v].concat(), 0.0);
            assert_eq!(e.sample(&[4]).unwrap().ndim(), 3 + event);
            assert!(d.expand(&[2, 4]).is_err() && d.expand(&[]).is_err());
        }
        same(Normal::new(&a, &b).unwrap(), 0);
        same(Laplace::new(&a, &b).unwrap(), 0);
        same(Gumbel::new(&a, &b).unwrap(), 0);
        same(LogNormal::new(&a, &b).unwrap(), 0);
        same(StudentT::new(&b, &a, &b).unwrap(), 0);
        same(Uniform::new(&a, &a.try_add(&b).unwrap()).unwrap(), 0);
        same(Exponential::new(&b).unwrap(), 0);
        same(Gamma::new(&a, &b).unwrap(), 0);
        same(InverseGamma::new(&b, &a).unwrap(), 0);
        same(Beta::new(&a, &b).unwrap(), 0);
        same(Kumaraswamy::new(&a, &b).unwrap(), 0);
        same(Poisson::new(&b).unwrap(), 0);
        same(HalfNormal::new(&b).unwrap(), 0);
        same(HalfCauchy::new(&b).unwrap(), 0);
        same(Pareto::new(&b, &a).unwrap(), 0);
        same(Weibull::new(&b, &a).unwrap(), 0);
        same(VonMises::new(&a, &b).unwrap(), 0);
        same(GeneralizedPareto::new(&a, &b, &u).unwrap(), 0);
        same(
            FisherSnedecor::new(&b, &t(&[5.0, 6.0, 9.0], &[3])).unwrap(),
            0,
        );
        same(Chi2::new(&b).unwrap(), 0);
        same(
            Dirichlet::new(&t(&[1.0, 2.0, 3.0, 0.5, 0.5, 4.0, 2.0, 2.0, 2.0], &[3, 3])).unwrap(),
            1,
        );
        let tril = t(&[1.0, 0.0, 0.5, 2.0], &[2, 2]);
        let mvn = MultivariateNormal::from_scale_tril(
            &t(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], &[3, 2]),
            &tril,
        );
        same(mvn.unwrap(), 1);
        // Gradients reach the original parameters: each element counted twice.
        let loc = a.clone().with_requires_grad(true).unwrap();
        let e = Normal::new(&loc, &b).unwrap().expand(&[2, 3]).unwrap();
        let lp = e.log_prob(&t(&[0.0; 6], &[2, 3])).unwrap();
        lp.try_sum(&[], false).unwrap().backward();
        let x = a.with_requires_grad(true).unwrap();
        let once = Normal::new(&x, &b)
            .unwrap()
            .log_prob(&t(&[0.0; 3], &[3]))
            .unwrap();
        once.try_sum(&[], false).unwrap().backward();
        let g = host_f64s(&x.grad_tensor().unwrap());
        let twice: Vec<f64> = g.iter().map(|g| 2.0 * g).collect();
        assert_close(&host_f64s(&loc.grad_tensor().unwrap()), &twice, 1e-12);
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
const W_LP: &[f64] = &[-6.218989375342059, -5.843465604577181];
const W_GDF: &[f64] = &[-0.020733959906782284, 0.7957333117996325];
const W_GL: &[f64] = &[
    -3.6825,
    -3.0676562500000006,
    6.148781250000001,
    -1.3250000000000004,
    -4.145312499999999,
    -4.193437500000001,
    3.099999999999999,
    -3.3687500000000004,
    1.303749999999999,
];
const W_ENT: &[f64] = &[8.754872395388666, 6.511253955137476];
const W_MEAN: &[f64] = &[
    4.5,
    1.3499999999999999,
    -0.9,
    1.3499999999999999,
    3.2850000000000006,
    0.09000000000000008,
    -0.9,
    0.09000000000000008,
    1.3499999999999999,
    3.2,
    0.96,
    -0.6400000000000001,
    0.96,
    2.3360000000000003,
    0.06400000000000006,
    -0.6400000000000001,
    0.06400000000000006,
    0.96,
];
const W_VAR: &[f64] = &[
    9.0,
    3.6900000000000004,
    1.5299999999999998,
    3.6900000000000004,
    4.796100000000001,
    0.9873000000000002,
    1.5299999999999998,
    0.9873000000000002,
    0.8099999999999999,
    6.4,
    2.6240000000000006,
    1.0879999999999999,
    2.6240000000000006,
    3.410560000000001,
    0.7020800000000001,
    1.0879999999999999,
    0.7020800000000001,
    0.576,
];
const W_LP_PREC: &[f64] = &[-3.0568434134243505];
const LKJ_LP: &[f64] = &[-3.8874130398040645, -2.712759009752383, -1.019298495581239];
const LKJ_GETA: &[f64] = &[3.269069673656228, 1.7238922291766663, 0.3810350863195233];
const LKJ_L: &[f64] = &[
    1.0,
    0.0,
    0.0,
    0.0,
    0.3,
    0.9539392014169457,
    0.0,
    0.0,
    -0.2,
    0.4822110248920824,
    0.8529200006287386,
    0.0,
    0.1,
    -0.031448545101657545,
    0.2757173415929759,
    0.9555055921112608,
];
const LKJ_LP2: &[f64] = &[-0.6920107505668889];
const MODE_LOGNORMAL: &[f64] = &[0.7117703227626097, 0.03877420783172201];
const MODE_GAMMA: &[f64] = &[1.0, 0.0];
const MODE_CHI2: &[f64] = &[0.0, 4.0];
const MODE_INVGAMMA: &[f64] = &[0.5, 0.6666666666666666];
const MODE_POISSON: &[f64] = &[0.0, 3.0];
const MODE_BINOMIAL: &[f64] = &[3.0, 4.0];
const MODE_NEGBIN: &[f64] = &[3.0, 0.0];
const MODE_BERNOULLI: &[f64] = &[0.0, f64::NAN, 1.0];
const MODE_FISHER: &[f64] = &[0.36, f64::NAN];
const MODE_WEIBULL: &[f64] = &[1.7471609294725978, 0.0];
const MODE_DIRICHLET: &[f64] = &[
    0.2857142857142857,
    0.5714285714285714,
    0.14285714285714285,
    0.0,
    0.3333333333333333,
    0.6666666666666666,
    1.0,
    0.0,
    0.0,
];
const MODE_BETA: &[f64] = &[0.3333333333333333, 1.0, 0.0];
const MODE_WISHART: &[f64] = &[
    1.5,
    0.44999999999999996,
    0.44999999999999996,
    1.0950000000000002,
    0.5,
    0.15,
    0.15,
    0.36500000000000005,
];
const MODE_ONEHOT: &[f64] = &[0.0, 1.0, 0.0, 1.0, 0.0, 0.0];
const MODE_KUMARASWAMY: &[f64] = &[0.4472135954999579, f64::NAN];

/// `expand` of the probs/logits families, the relaxed ones, the low-rank normal and the
/// composites (`MixtureSameFamily`, `Independent`, `TransformedDistribution`,
/// `LogisticNormal`): the batch grows, the event stays, `log_prob` is the original's
/// broadcast, samples have the new batch, and a batch that does not broadcast is refused.
#[test]
fn expand_the_probs_logits_and_composite_families() {
    on_every_device!("expand_more", |dev| {
        let t =
            |v: &[f64], s: &[usize]| Tensor::<f64, _>::from_vec_on(v.to_vec(), s, &dev).unwrap();
        fn same<T, D>(d: T, value: &Tensor<f64, D>, event: usize)
        where
            T: Expand<f64, D> + Distribution<f64, D, Value = Tensor<f64, D>>,
            D: Backend,
        {
            let e = d.expand(&[2, 3]).unwrap();
            assert_eq!(e.batch_shape().dims(), &[2, 3]);
            assert_eq!(e.event_shape(), d.event_shape());
            let lp = host_f64s(&d.log_prob(value).unwrap());
            let lpe = host_f64s(&e.log_prob(value).unwrap());
            assert_close(&lpe, &[lp.clone(), lp].concat(), 1e-12);
            let s = e.sample(&[4]).unwrap();
            assert_eq!((&s.dims()[..3], s.ndim()), (&[4, 2, 3][..], 3 + event));
            assert!(d.expand(&[2, 4]).is_err() && d.expand(&[]).is_err());
        }
        let p = t(&[0.2, 0.5, 0.9], &[3]);
        let l = t(&[-1.0, 0.5, 2.0], &[3]);
        let counts = t(&[1.0, 0.0, 3.0], &[3]);
        let unit = t(&[0.3, 0.6, 0.1], &[3]);
        let p4 = t(
            &[
                0.1, 0.2, 0.3, 0.4, 0.25, 0.25, 0.25, 0.25, 0.7, 0.1, 0.1, 0.1,
            ],
            &[3, 4],
        );
        let temp = t(&[0.5], &[1]);
        same(
            Bernoulli::from_probs(&p).unwrap(),
            &t(&[1.0, 0.0, 1.0], &[3]),
            0,
        );
        same(
            Bernoulli::from_logits(&l).unwrap(),
            &t(&[0.0, 0.0, 1.0], &[3]),
            0,
        );
        same(Geometric::new(Some(&p), None).unwrap(), &counts, 0);
        same(ContinuousBernoulli::new(None, Some(&l)).unwrap(), &unit, 0);
        same(
            Binomial::new(&t(&[3.0, 5.0, 4.0], &[3]), Some(&p), None).unwrap(),
            &counts,
            0,
        );
        same(
            LogitRelaxedBernoulli::new(&temp, None, Some(&l)).unwrap(),
            &l,
            0,
        );
        same(
            RelaxedBernoulli::new(&temp, Some(&p), None).unwrap(),
            &unit,
            0,
        );
        let simplex = t(
            &[
                0.1, 0.2, 0.3, 0.4, 0.5, 0.2, 0.2, 0.1, 0.25, 0.25, 0.25, 0.25,
            ],
            &[3, 4],
        );
        same(
            RelaxedOneHotCategorical::new(&temp, Some(&p4), None).unwrap(),
            &simplex,
            1,
        );
        let one_hot = t(
            &[0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
            &[3, 4],
        );
        same(OneHotCategorical::from_probs(&p4).unwrap(), &one_hot, 1);
        let drawn = t(
            &[1.0, 2.0, 0.0, 2.0, 0.0, 0.0, 5.0, 0.0, 1.0, 1.0, 1.0, 2.0],
            &[3, 4],
        );
        same(
            Multinomial::new(5, None, Some(&p4.try_log().unwrap())).unwrap(),
            &drawn,
            1,
        );
        let loc = t(&[0.0, 1.0, -1.0, 0.5, 2.0, 0.0], &[3, 2]);
        let low = LowRankMultivariateNormal::new(
            &loc,
            &t(&[1.0, 0.5, -0.3, 0.2, 0.0, 1.0], &[3, 2, 1]),
            &t(&[1.0, 2.0, 0.5, 0.5, 1.5, 1.0], &[3, 2]),
        );
        same(
            low.unwrap(),
            &t(&[0.1, 0.2, 0.3, 0.4, 0.5, 0.6], &[3, 2]),
            1,
        );
        let scale = t(&[1.0, 0.5, 2.0, 1.5, 0.3, 0.8], &[3, 2]);
        same(
            LogisticNormal::new(&loc, &scale).unwrap(),
            &t(&[0.2, 0.3, 0.5, 0.1, 0.1, 0.8, 0.6, 0.2, 0.2], &[3, 3]),
            1,
        );
        same(
            Independent::new(Normal::new(&loc, &scale).unwrap(), 1).unwrap(),
            &loc,
            1,
        );
        let mix = MixtureSameFamily::new(
            Categorical::from_probs(&t(&[0.3, 0.7, 0.5, 0.5, 0.9, 0.1], &[3, 2])).unwrap(),
            Normal::new(&loc, &scale).unwrap(),
        );
        same(mix.unwrap(), &l, 0);
        let exp = TransformedDistribution::new(Normal::new(&l, &p).unwrap(), vec![Transform::Exp]);
        same(exp.unwrap(), &unit, 0);
        // Categorical's values are Int64: the same checks by hand.
        let c = Categorical::from_logits(&p4).unwrap();
        let e = c.expand(&[2, 3]).unwrap();
        let k = Tensor::<i64, _>::from_vec_on(vec![3, 0, 1], [3], &dev).unwrap();
        let lp = host_f64s(&c.log_prob(&k).unwrap());
        assert_close(
            &host_f64s(&e.log_prob(&k).unwrap()),
            &[lp.clone(), lp].concat(),
            1e-12,
        );
        assert_eq!(e.sample(&[4]).unwrap().dims(), &[4, 2, 3]);
        assert!(c.expand(&[4]).is_err());
        // Gradients reach the original logits, each element counted twice.
        let leaf = l.clone().with_requires_grad(true).unwrap();
        let e = Bernoulli::from_logits(&leaf)
            .unwrap()
            .expand(&[2, 3])
            .unwrap();
        e.log_prob(&t(&[1.0, 0.0, 1.0], &[3]))
            .unwrap()
            .try_sum(&[], false)
            .unwrap()
            .backward();
        let g = host_f64s(&leaf.grad_tensor().unwrap());
        let sig: Vec<f64> = [-1.0f64, 0.5, 2.0]
            .iter()
            .map(|x| 1.0 / (1.0 + (-x).exp()))
            .collect();
        assert_close(
            &g,
            &[2.0 * (1.0 - sig[0]), -2.0 * sig[1], 2.0 * (1.0 - sig[2])],
            1e-12,
        );
    });
}
