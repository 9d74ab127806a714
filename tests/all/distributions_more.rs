//! The one-hot and relaxed categoricals, `NegativeBinomial`, `VonMises`, `MixtureSameFamily`,
//! `Chi2`, `InverseGamma`, `HalfCauchy` and `Kumaraswamy`, on every device against PyTorch
//! 2.15 (SciPy 1.17 for `VonMises`, whose PyTorch log-density is a polynomial fit), with
//! gradients, sample moments and the refusals. The values come from
//! `tests/data/torch_grads/make/distributions_more.py`.

use crate::common::{assert_close, f64s, host_f64s};
use typed_tensor::distributions::*;
use typed_tensor::prelude::*;

#[test]
fn categorical_relaxations_match_pytorch() {
    on_every_device!("relaxed", |dev| {
        let t =
            |v: &[f64], s: &[usize]| Tensor::<f64, _>::from_vec_on(v.to_vec(), s, &dev).unwrap();
        let g = |x: &Tensor<f64, _>| host_f64s(&x.grad_tensor().unwrap());
        let p = t(&[0.2, 0.3, 0.5, 0.1, 0.6, 0.3], &[2, 3]);
        let d = OneHotCategorical::from_probs(&p).unwrap();
        let v = t(&[0., 0., 1., 1., 0., 0.], &[2, 3]);
        assert_close(&host_f64s(&d.log_prob(&v).unwrap()), OH_LP, 1e-12);
        assert_close(&host_f64s(&d.entropy().unwrap()), OH_ENT, 1e-12);
        let q = OneHotCategorical::from_probs(&t(&[0.5, 0.25, 0.25, 0.3, 0.3, 0.4], &[2, 3]));
        assert_close(
            &host_f64s(&kl_divergence(&d, &q.unwrap()).unwrap()),
            OH_KL,
            1e-12,
        );
        assert_eq!(
            (d.batch_shape().dims(), d.event_shape()),
            (&[2][..], vec![3])
        );
        for bad in [[0., 1., 1.], [0., 0., 0.], [0., 0.5, 0.5]] {
            assert!(d.log_prob(&t(&bad, &[3])).is_err(), "{bad:?}");
        }
        assert!(d.log_prob(&t(&[1., 0.], &[2])).is_err());
        let s = d.sample(&[4000]).unwrap();
        assert_eq!(s.dims(), [4000, 2, 3]);
        assert!(
            host_f64s(&s.try_sum(&[2], false).unwrap())
                .iter()
                .all(|&x| x == 1.0)
        );
        assert_close(
            &host_f64s(&s.try_mean(&[0], false).unwrap()),
            &host_f64s(&p),
            0.04,
        );
        // The straight-through sample is one-hot, with the probabilities' gradient.
        let lg = t(&[0.3, -0.2, 1.0], &[3]).with_requires_grad(true).unwrap();
        let st = OneHotCategorical::from_logits(&lg).unwrap();
        let y = st.rsample_straight_through(&[5]).unwrap();
        assert!(host_f64s(&y).iter().all(|&x| x == 0.0 || x == 1.0));
        let c = t(&[1., 2., 3.], &[3]);
        y.try_mul(&c)
            .unwrap()
            .try_sum(&[], false)
            .unwrap()
            .backward();
        // 5 · dp/dlogits · c = 5 p (c - p·c).
        let p = host_f64s(&lg.detach().try_softmax(0).unwrap());
        let pc: f64 = p.iter().zip([1., 2., 3.]).map(|(p, c)| p * c).sum();
        let want: Vec<f64> = p
            .iter()
            .zip([1., 2., 3.])
            .map(|(p, c)| 5.0 * p * (c - pc))
            .collect();
        assert_close(&g(&lg), &want, 1e-12);

        // LogitRelaxedBernoulli and RelaxedBernoulli.
        let d =
            LogitRelaxedBernoulli::new(&t(&[0.7], &[]), None, Some(&t(&[0.3, -1.2, 2.0], &[3])));
        let lp = d.unwrap().log_prob(&t(&[0.5, -2.0, 3.1], &[3])).unwrap();
        assert_close(&host_f64s(&lp), LRB_LP, 1e-12);
        let pr = t(&[0.2, 0.5, 0.9], &[3]).with_requires_grad(true).unwrap();
        let tp = t(&[0.5], &[1]).with_requires_grad(true).unwrap();
        let d = RelaxedBernoulli::new(&tp, Some(&pr), None).unwrap();
        let lp = d.log_prob(&t(&[0.1, 0.5, 0.95], &[3])).unwrap();
        assert_close(&host_f64s(&lp), RB_LP, 1e-12);
        lp.try_sum(&[], false).unwrap().backward();
        assert_close(&g(&pr), RB_GP, 1e-10);
        assert_close(&g(&tp), RB_GT, 1e-10);
        assert!(d.log_prob(&t(&[1.5, 0.5, 0.5], &[3])).is_err());
        assert!(d.entropy().is_err());
        // A second backward needs a fresh distribution (as in PyTorch: the parameters'
        // broadcast belongs to the first graph).
        let d = RelaxedBernoulli::new(&tp, Some(&pr), None).unwrap();
        let y = d.rsample(&[3000]).unwrap();
        assert!(host_f64s(&y).iter().all(|&x| (0.0..=1.0).contains(&x)));
        y.try_sum(&[], false).unwrap().backward(); // reaches the probabilities
        assert!(g(&pr).iter().all(|x| x.is_finite()));
        let cold = RelaxedBernoulli::new(&t(&[0.05], &[]), Some(&pr.detach()), None).unwrap();
        let m = host_f64s(&cold.sample(&[6000]).unwrap().try_mean(&[0], false).unwrap());
        assert_close(&m, &[0.2, 0.5, 0.9], 0.05);
        assert!(RelaxedBernoulli::new(&t(&[0.0], &[]), Some(&pr), None).is_err());
        assert!(RelaxedBernoulli::new(&tp, Some(&pr), Some(&pr)).is_err());

        // RelaxedOneHotCategorical.
        let lg = t(&[1., 0., -1., 0.5, 0.5, 2.], &[2, 3])
            .with_requires_grad(true)
            .unwrap();
        let tp = t(&[0.8], &[]).with_requires_grad(true).unwrap();
        let d = RelaxedOneHotCategorical::new(&tp, None, Some(&lg)).unwrap();
        let lp = d
            .log_prob(&t(&[0.2, 0.3, 0.5, 0.6, 0.3, 0.1], &[2, 3]))
            .unwrap();
        assert_close(&host_f64s(&lp), RO_LP, 1e-12);
        lp.try_sum(&[], false).unwrap().backward();
        assert_close(&g(&lg), RO_GL, 1e-10);
        assert_close(&g(&tp), RO_GT, 1e-10);
        assert!(d.log_prob(&t(&[0.2, 0.3, 0.6], &[3])).is_err()); // off the simplex
        let y = d.rsample(&[7]).unwrap();
        assert_eq!((y.dims(), d.event_shape()), (&[7, 2, 3][..], vec![3]));
        let sums = host_f64s(&y.try_sum(&[2], false).unwrap());
        assert!(sums.iter().all(|s| (s - 1.0).abs() < 1e-12));
        // At a low temperature the argmax frequencies are the class probabilities.
        let probs = t(&[0.1, 0.2, 0.7], &[3]);
        let cold = RelaxedOneHotCategorical::new(&t(&[0.01], &[]), Some(&probs), None).unwrap();
        let y = cold.sample(&[4000]).unwrap();
        let hits = typed_tensor::nn::one_hot(&y.try_argmax(&[1], false).unwrap(), Some(3));
        let freq = hits
            .unwrap()
            .try_cast::<f64>()
            .unwrap()
            .try_mean(&[0], false)
            .unwrap();
        assert_close(&host_f64s(&freq), &[0.1, 0.2, 0.7], 0.04);
        // A temperature per batch element broadcasts; one that does not is an Err.
        let two = t(&[0.5, 2.0], &[2]);
        assert!(RelaxedOneHotCategorical::new(&two, None, Some(&lg)).is_ok());
        assert!(RelaxedOneHotCategorical::new(&t(&[1.0; 3], &[3]), None, Some(&lg)).is_err());
    });
}

#[test]
fn derived_families_match_pytorch() {
    on_every_device!("derived", |dev| {
        let t = |v: &[f64]| Tensor::<f64, _>::from_vec_on(v.to_vec(), [v.len()], &dev).unwrap();
        let g = |x: &Tensor<f64, _>| host_f64s(&x.grad_tensor().unwrap());
        let mean0 = |x: Tensor<f64, _>| host_f64s(&x.try_mean(&[0], false).unwrap());
        // NegativeBinomial, total_count 0 included (a point mass at 0).
        let d = NegativeBinomial::new(
            &t(&[3., 0.5, 10., 0.]),
            Some(&t(&[0.3, 0.7, 0.05, 0.4])),
            None,
        )
        .unwrap();
        assert_close(
            &host_f64s(&d.log_prob(&t(&[0., 4., 2., 0.])).unwrap()),
            NB_LP,
            1e-12,
        );
        assert_close(&host_f64s(&d.mean().unwrap()), NB_MEAN, 1e-12);
        assert_close(&host_f64s(&d.variance().unwrap()), NB_VAR, 1e-12);
        assert_close(&mean0(d.sample(&[20000]).unwrap()), NB_MEAN, 0.05);
        assert!(d.log_prob(&t(&[0.5, 1., 1., 1.])).is_err());
        assert!(d.entropy().is_err());
        let (n, l) = (
            t(&[3., 0.5, 10.]).with_requires_grad(true).unwrap(),
            t(&[-0.5, 1.0, -3.0]).with_requires_grad(true).unwrap(),
        );
        let lp = NegativeBinomial::new(&n, None, Some(&l))
            .unwrap()
            .log_prob(&t(&[1., 4., 2.]));
        let lp = lp.unwrap();
        assert_close(&host_f64s(&lp), NB_LP2, 1e-12);
        lp.try_sum(&[], false).unwrap().backward();
        assert_close(&g(&n), NB_GN, 1e-10);
        assert_close(&g(&l), NB_GL, 1e-10);
        assert!(NegativeBinomial::new(&t(&[1.]), Some(&t(&[1.0])), None).is_err());
        assert!(NegativeBinomial::new(&t(&[-1.]), Some(&t(&[0.5])), None).is_err());

        // Chi2, InverseGamma, HalfCauchy, Kumaraswamy.
        let d = Chi2::new(&t(&[1., 2.5, 7.])).unwrap();
        let x = t(&[0.5, 2.0, 9.0]);
        assert_close(&host_f64s(&d.log_prob(&x).unwrap()), CHI_LP, 1e-12);
        assert_close(&host_f64s(&d.entropy().unwrap()), CHI_ENT, 1e-12);
        assert_close(&host_f64s(&d.cdf(&x).unwrap()), CHI_CDF, 1e-10);
        assert_close(&mean0(d.sample(&[20000]).unwrap()), &[1., 2.5, 7.], 0.05);
        assert!(Chi2::new(&t(&[0.0])).is_err_and(|e| e.to_string().contains("Chi2")));
        let d = InverseGamma::new(&t(&[0.5, 1.5, 3.]), &t(&[1., 2., 0.5])).unwrap();
        assert_close(
            &host_f64s(&d.log_prob(&t(&[0.3, 1.0, 4.0])).unwrap()),
            IG_LP,
            1e-12,
        );
        assert_close(&host_f64s(&d.entropy().unwrap()), IG_ENT, 1e-12);
        assert_close(&host_f64s(&d.mean().unwrap()), IG_MEAN, 1e-12);
        assert_close(&host_f64s(&d.variance().unwrap()), IG_VAR, 1e-12);
        let med = host_f64s(&d.sample(&[20001]).unwrap().try_median(0, false).unwrap().0);
        // The median of 1/X is 1 / the gamma's median (SciPy: invgamma(3, scale=0.5).median()).
        assert_close(&med[2..], &[0.186_981_571_595_056_16], 0.05);
        assert!(d.log_prob(&t(&[0.0, 1.0, 1.0])).is_err());
        let d = HalfCauchy::new(&t(&[1., 2.5, 0.3])).unwrap();
        let x = t(&[0., 1.2, 0.7]);
        assert_close(&host_f64s(&d.log_prob(&x).unwrap()), HC_LP, 1e-12);
        assert_close(&host_f64s(&d.entropy().unwrap()), HC_ENT, 1e-12);
        assert_close(&host_f64s(&d.cdf(&x).unwrap()), HC_CDF, 1e-12);
        assert_close(
            &host_f64s(&d.icdf(&t(&[0.1, 0.5, 0.9])).unwrap()),
            HC_ICDF,
            1e-12,
        );
        let med = host_f64s(&d.sample(&[20001]).unwrap().try_median(0, false).unwrap().0);
        assert_close(&med, &[1., 2.5, 0.3], 0.06); // the median is the scale
        assert!(d.log_prob(&t(&[-0.1, 1., 1.])).is_err());
        let (a, b) = (
            t(&[0.5, 2., 5.]).with_requires_grad(true).unwrap(),
            t(&[1.5, 1.0, 0.7]).with_requires_grad(true).unwrap(),
        );
        let d = Kumaraswamy::new(&a, &b).unwrap();
        let lp = d.log_prob(&t(&[0.2, 0.5, 0.9])).unwrap();
        assert_close(&host_f64s(&lp), KU_LP, 1e-12);
        assert_close(&host_f64s(&d.entropy().unwrap()), KU_ENT, 1e-12);
        assert_close(&host_f64s(&d.mean().unwrap()), KU_MEAN, 1e-12);
        assert_close(&host_f64s(&d.variance().unwrap()), KU_VAR, 1e-12);
        lp.try_sum(&[], false).unwrap().backward();
        assert_close(&g(&a), KU_GA, 1e-10);
        assert_close(&g(&b), KU_GB, 1e-10);
        assert_close(&mean0(d.sample(&[20000]).unwrap()), KU_MEAN, 0.05);
        // The edges of [0, 1] give the density's limit, not NaN, where it is finite.
        let edge = Kumaraswamy::new(&t(&[1.0]), &t(&[1.0])).unwrap();
        assert_close(
            &host_f64s(&edge.log_prob(&t(&[0.0, 1.0])).unwrap()),
            &[0.0, 0.0],
            0.0,
        );
        assert!(d.log_prob(&t(&[1.1, 0.5, 0.5])).is_err());
    });
}

#[test]
fn von_mises_and_mixtures_match_references() {
    use std::f64::consts::PI;
    on_every_device!("von_mises", |dev| {
        let t =
            |v: &[f64], s: &[usize]| Tensor::<f64, _>::from_vec_on(v.to_vec(), s, &dev).unwrap();
        let g = |x: &Tensor<f64, _>| host_f64s(&x.grad_tensor().unwrap());
        let d = VonMises::new(&t(&[1.0, -2.0, 0.3], &[3]), &t(&[2.0, 0.01, 30.0], &[3])).unwrap();
        let lp = d.log_prob(&t(&[1.0, 3.0, -0.5], &[3])).unwrap();
        assert_close(&host_f64s(&lp), VM_LP, 1e-12);
        assert_close(&host_f64s(&lp), VM_LP_TORCH, 1e-8);
        assert_close(&host_f64s(&d.entropy().unwrap()), VM_ENT, 1e-12);
        assert_close(&host_f64s(&d.variance().unwrap()), VM_VAR, 1e-12);
        // Samples in [-π, π) whose mean direction is loc and mean resultant length I₁/I₀.
        let x = d.sample(&[20000]).unwrap();
        assert!(host_f64s(&x).iter().all(|v| (-PI..PI).contains(v)));
        let (c, s) = (x.try_cos().unwrap(), x.try_sin().unwrap());
        let (c, s) = (
            host_f64s(&c.try_mean(&[0], false).unwrap()),
            host_f64s(&s.try_mean(&[0], false).unwrap()),
        );
        let resultant: Vec<f64> = VM_VAR.iter().map(|v| 1.0 - v).collect();
        let got: Vec<f64> = c.iter().zip(&s).map(|(c, s)| c.hypot(*s)).collect();
        assert_close(&got, &resultant, 0.03);
        for (i, loc) in [1.0f64, 0.3].into_iter().enumerate() {
            let i = [0, 2][i];
            assert!((s[i].atan2(c[i]) - loc).abs() < 0.03, "{i}");
        }
        assert!(VonMises::new(&t(&[0.0], &[1]), &t(&[0.0], &[1])).is_err());
        assert!(VonMises::new(&t(&[f64::NAN], &[1]), &t(&[1.0], &[1])).is_err());
        assert!(d.log_prob(&t(&[f64::NAN], &[1])).is_err());
        let tiny = VonMises::new(&t(&[0.0], &[]), &t(&[1e-12], &[])).unwrap();
        assert_eq!(tiny.sample(&[100]).unwrap().dims(), [100]);

        // A 1-d Gaussian mixture: log_prob and its gradients in the weights and means.
        let w = t(&[0.3, 0.7], &[2]).with_requires_grad(true).unwrap();
        let mu = t(&[-2., 2.], &[2]).with_requires_grad(true).unwrap();
        let comp = Normal::new(&mu, &t(&[1., 0.5], &[2])).unwrap();
        let gmm = MixtureSameFamily::new(Categorical::from_probs(&w).unwrap(), comp).unwrap();
        let lp = gmm.log_prob(&t(&[2.0, 0.0, -1.5], &[3])).unwrap();
        assert_close(&host_f64s(&lp), MIX_LP, 1e-12);
        lp.try_sum(&[], false).unwrap().backward();
        assert_close(&g(&w), MIX_GW, 1e-10);
        assert_close(&g(&mu), MIX_GMU, 1e-10);
        let x = gmm.sample(&[20000]).unwrap();
        assert_eq!((x.dims(), gmm.batch_shape().ndim()), (&[20000][..], 0));
        let frac = host_f64s(&x.try_gt_scalar(0.0).unwrap().try_cast::<f64>().unwrap());
        let frac = frac.iter().sum::<f64>() / frac.len() as f64;
        assert!((frac - 0.7).abs() < 0.03, "{frac}");
        // A batch of two mixtures of three 2-d normals.
        let locs = t(
            &[0., 0., 1., 2., -1., 1., 2., 2., 0., -1., 1., 0.],
            &[2, 3, 2],
        );
        let cov = t(&[1.0, 0.3, 0.3, 0.5], &[2, 2])
            .expand([2, 3, 2, 2])
            .unwrap();
        let comp = MultivariateNormal::from_covariance(&locs, &cov).unwrap();
        let mix = Categorical::from_logits(&t(&[0.1, 0.5, -0.3, 1.0, 0.0, 0.0], &[2, 3])).unwrap();
        let gmm = MixtureSameFamily::new(mix, comp).unwrap();
        assert_eq!(
            (gmm.batch_shape().dims(), gmm.event_shape()),
            (&[2][..], vec![2])
        );
        let lp = gmm.log_prob(&t(&[0.5, 1.0, 1.0, -0.5], &[2, 2])).unwrap();
        assert_close(&host_f64s(&lp), MIXMV_LP, 1e-12);
        let x = gmm.sample(&[20000]).unwrap();
        assert_eq!(x.dims(), [20000, 2, 2]);
        let m = host_f64s(&x.try_mean(&[0], false).unwrap());
        for (got, want) in m.iter().zip(MIXMV_MEAN) {
            assert!((got - want).abs() < 0.05, "{m:?} vs {MIXMV_MEAN:?}");
        }
        // One mixture shared by the batch broadcasts; a class count that differs is an Err.
        let comp = Normal::new(&t(&[0.; 6], &[2, 3]), &t(&[1.], &[1])).unwrap();
        let shared = Categorical::from_logits(&t(&[0., 0., 0.], &[3])).unwrap();
        let gmm = MixtureSameFamily::new(shared, comp.clone()).unwrap();
        assert_eq!(gmm.sample(&[5]).unwrap().dims(), [5, 2]);
        let two = Categorical::from_logits(&t(&[0., 0.], &[2])).unwrap();
        assert!(MixtureSameFamily::new(two, comp.clone()).is_err());
        let wide = Categorical::from_logits(&t(&[0.; 12], &[4, 3])).unwrap();
        assert!(MixtureSameFamily::new(wide, comp).is_err());
        assert!(gmm.entropy().is_err());
    });
}

#[test]
fn new_distributions_in_f32_empty_and_hostile() {
    let t = |v: &[f32]| Tensor::<f32>::from_vec(v.to_vec(), [v.len()]).unwrap();
    // f32 against the f64 references.
    let d = Kumaraswamy::new(&t(&[0.5, 2., 5.]), &t(&[1.5, 1.0, 0.7])).unwrap();
    let lp = d.log_prob(&t(&[0.2, 0.5, 0.9])).unwrap();
    assert_close(&f64s(&lp), KU_LP, 1e-5);
    let d = VonMises::new(&t(&[1.0, -2.0, 0.3]), &t(&[2.0, 0.01, 30.0])).unwrap();
    assert_close(
        &f64s(&d.log_prob(&t(&[1.0, 3.0, -0.5])).unwrap()),
        VM_LP,
        1e-5,
    );
    let d = NegativeBinomial::new(
        &t(&[3., 0.5, 10., 0.]),
        Some(&t(&[0.3, 0.7, 0.05, 0.4])),
        None,
    );
    let lp = d.unwrap().log_prob(&t(&[0., 4., 2., 0.])).unwrap();
    assert_close(&f64s(&lp), NB_LP, 1e-5);
    let lg = Tensor::<f32>::from_vec(vec![1., 0., -1., 0.5, 0.5, 2.], [2, 3]).unwrap();
    let d = RelaxedOneHotCategorical::new(&Tensor::scalar(0.8f32), None, Some(&lg)).unwrap();
    let v = Tensor::<f32>::from_vec(vec![0.2, 0.3, 0.5, 0.6, 0.3, 0.1], [2, 3]).unwrap();
    assert_close(&f64s(&d.log_prob(&v).unwrap()), RO_LP, 1e-5);
    // 0-d parameters and empty batches.
    let s = |v: f64| Tensor::<f64>::scalar(v);
    let d = VonMises::new(&s(0.0), &s(1.0)).unwrap();
    assert_eq!(d.sample(&[]).unwrap().dims(), [] as [usize; 0]);
    let none = Tensor::<f64>::zeros([0]).unwrap();
    let d = Chi2::new(&none.try_add_scalar(1.0).unwrap()).unwrap();
    assert_eq!(d.sample(&[3]).unwrap().dims(), [3, 0]);
    let d = NegativeBinomial::new(&none, None, Some(&none)).unwrap();
    assert_eq!(d.sample(&[2]).unwrap().dims(), [2, 0]);
    assert_eq!(
        VonMises::new(&none, &none)
            .unwrap()
            .sample(&[4])
            .unwrap()
            .dims(),
        [4, 0]
    );
    let d = RelaxedOneHotCategorical::new(&s(1.0), None, Some(&Tensor::zeros([0, 3]).unwrap()));
    assert_eq!(d.unwrap().rsample(&[2]).unwrap().dims(), [2, 0, 3]);
    assert!(OneHotCategorical::from_probs(&Tensor::<f64>::zeros([2, 0]).unwrap()).is_err());
    // Sample shapes past the allocation limit are an Err, not an abort.
    let huge = [1usize << 40, 1 << 30];
    let vm = VonMises::new(&s(0.0), &s(1.0)).unwrap();
    assert!(vm.sample(&huge).is_err());
    assert!(
        NegativeBinomial::new(&s(2.0), Some(&s(0.5)), None)
            .unwrap()
            .sample(&huge)
            .is_err()
    );
    let oh = OneHotCategorical::from_probs(&Tensor::<f64>::ones([3]).unwrap()).unwrap();
    assert!(oh.sample(&huge).is_err());
    assert!(
        Kumaraswamy::new(&s(1.0), &s(2.0))
            .unwrap()
            .rsample(&huge)
            .is_err()
    );
    // Parameters outside the domain are named Errs.
    let e = Kumaraswamy::new(&s(f64::INFINITY), &s(1.0))
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("Kumaraswamy") && e.contains("concentration1"),
        "{e}"
    );
    assert!(InverseGamma::new(&s(1.0), &s(-1.0)).is_err());
    assert!(HalfCauchy::new(&s(0.0)).is_err());
    assert!(RelaxedOneHotCategorical::new(&s(f64::INFINITY), None, Some(&t64(&[0.0]))).is_err());
}

#[test]
fn reparameterized_samples_carry_the_means_gradient() {
    // d/dθ of the mean of 40000 rsample draws against d/dθ of the closed-form mean.
    let leaf = |v: f64| Tensor::<f64>::scalar(v).with_requires_grad(true).unwrap();
    let grads = |x: &Tensor<f64>, ps: &[&Tensor<f64>]| -> Vec<f64> {
        let g = typed_tensor::autograd::grad(x, ps, true).unwrap();
        g.iter().map(|g| g.as_ref().unwrap().item()).collect()
    };
    let (a, b) = (leaf(2.0), leaf(3.0));
    let d = Kumaraswamy::new(&a, &b).unwrap();
    let want = grads(&d.mean().unwrap(), &[&a, &b]);
    let got = grads(
        &d.rsample(&[40000]).unwrap().try_mean(&[], false).unwrap(),
        &[&a, &b],
    );
    assert_close(&got, &want, 0.05);
    let (c, r) = (leaf(4.0), leaf(2.0));
    let d = InverseGamma::new(&c, &r).unwrap();
    let want = grads(&d.mean().unwrap(), &[&c, &r]);
    let got = grads(
        &d.rsample(&[40000]).unwrap().try_mean(&[], false).unwrap(),
        &[&c, &r],
    );
    assert_close(&got, &want, 0.05);
}

#[test]
fn moments_through_the_trait_match_pytorch() {
    on_every_device!("moments", |dev| {
        let t =
            |v: &[f64], s: &[usize]| Tensor::<f64, _>::from_vec_on(v.to_vec(), s, &dev).unwrap();
        fn both<M: Moments<f64, D>, D: typed_tensor::backend::Backend>(m: &M) -> Vec<f64> {
            let mut v = host_f64s(&m.mean().unwrap());
            v.extend(host_f64s(&m.variance().unwrap()));
            v
        }
        // Mixtures: the law of total variance, scalar and vector components.
        let comp = Normal::new(&t(&[-2., 2.], &[2]), &t(&[1., 0.5], &[2])).unwrap();
        let gmm = MixtureSameFamily::new(
            Categorical::from_probs(&t(&[0.3, 0.7], &[2])).unwrap(),
            comp,
        );
        let gmm = gmm.unwrap();
        assert_close(&both(&gmm), &[MIX_MEAN, MIX_VAR].concat(), 1e-12);
        let locs = t(
            &[0., 0., 1., 2., -1., 1., 2., 2., 0., -1., 1., 0.],
            &[2, 3, 2],
        );
        let cov = t(&[1.0, 0.3, 0.3, 0.5], &[2, 2])
            .expand([2, 3, 2, 2])
            .unwrap();
        let comp = MultivariateNormal::from_covariance(&locs, &cov).unwrap();
        let mix = Categorical::from_logits(&t(&[0.1, 0.5, -0.3, 1.0, 0.0, 0.0], &[2, 3])).unwrap();
        let gmm = MixtureSameFamily::new(mix, comp).unwrap();
        assert_close(&both(&gmm), &[MIXMV_MEAN, MIXMV_VAR].concat(), 1e-12);
        assert_close(
            &host_f64s(&gmm.stddev().unwrap()),
            &MIXMV_VAR.iter().map(|v| v.sqrt()).collect::<Vec<_>>(),
            1e-12,
        );
        // The families given moments here.
        let sc = t(&[1., 2.5, 0.3], &[3]);
        assert_close(
            &both(&Pareto::new(&sc, &t(&[0.5, 2., 3.5], &[3])).unwrap()),
            PA_MOM,
            1e-12,
        );
        let w = Weibull::new(&sc, &t(&[0.5, 1.5, 3.], &[3])).unwrap();
        assert_close(&host_f64s(&Moments::variance(&w).unwrap()), WB_VAR, 1e-12);
        let h = HalfNormal::new(&sc).unwrap();
        assert_close(&host_f64s(&Moments::variance(&h).unwrap()), HN_VAR, 1e-12);
        let c = Cauchy::new(&t(&[0.0], &[1]), &sc).unwrap();
        let m = both(&c);
        assert!(m[..3].iter().all(|v| v.is_nan()) && m[3..].iter().all(|v| *v == f64::INFINITY));
        assert!(
            both(&HalfCauchy::new(&sc).unwrap())
                .iter()
                .all(|v| *v == f64::INFINITY)
        );
        assert_eq!(both(&Chi2::new(&t(&[3.0], &[1])).unwrap()), [3.0, 6.0]);
        assert_close(
            &both(&Bernoulli::from_probs(&t(&[0.25], &[1])).unwrap()),
            &[0.25, 0.1875],
            1e-15,
        );
        let ind = Independent::new(Normal::new(&sc, &sc).unwrap(), 1).unwrap();
        assert_close(&both(&ind), &[1., 2.5, 0.3, 1., 6.25, 0.09], 1e-15);
    });
}

#[test]
fn low_rank_multivariate_normal_matches_pytorch() {
    on_every_device!("low_rank", |dev| {
        let t =
            |v: &[f64], s: &[usize]| Tensor::<f64, _>::from_vec_on(v.to_vec(), s, &dev).unwrap();
        let g = |x: &Tensor<f64, _>| host_f64s(&x.grad_tensor().unwrap());
        let loc = t(&[0., 1., -1., 0.5, 0., 2.], &[2, 3])
            .with_requires_grad(true)
            .unwrap();
        let w = [1., 0.5, 0.2, -0.3, 0., 1., 0.3, 0.1, -1., 0.4, 0.5, 0.5];
        let w = t(&w, &[2, 3, 2]).with_requires_grad(true).unwrap();
        let dg = t(&[1., 0.5, 2., 0.3, 1.5, 1.], &[2, 3])
            .with_requires_grad(true)
            .unwrap();
        let d = LowRankMultivariateNormal::new(&loc, &w, &dg).unwrap();
        assert_eq!(
            (d.batch_shape().dims(), d.event_shape()),
            (&[2][..], vec![3])
        );
        let lp = d
            .log_prob(&t(&[0.3, 0.7, -0.2, 1., 1., 1.], &[2, 3]))
            .unwrap();
        assert_close(&host_f64s(&lp), LR_LP, 1e-12);
        assert_close(&host_f64s(&d.entropy().unwrap()), LR_ENT, 1e-12);
        assert_close(&host_f64s(&d.variance().unwrap()), LR_VAR, 1e-12);
        lp.try_sum(&[], false).unwrap().backward();
        assert_close(&g(&loc), LR_GLOC, 1e-10);
        assert_close(&g(&w), LR_GW, 1e-10);
        assert_close(&g(&dg), LR_GD, 1e-10);
        // The same law as a MultivariateNormal of the formed covariance.
        let full = MultivariateNormal::from_covariance(&loc.detach(), &d.covariance().unwrap());
        let x = t(
            &[0.3, 0.7, -0.2, 1., 1., 1., -2., 0., 0.5, 0.1, 0.2, 0.3],
            &[2, 2, 3],
        );
        let want = host_f64s(&full.unwrap().log_prob(&x).unwrap());
        assert_close(&host_f64s(&d.log_prob(&x).unwrap()), &want, 1e-12);
        // Samples: the sample covariance approaches W Wᵀ + diag(d).
        let n = 40000;
        let s = d.sample(&[n]).unwrap();
        assert_eq!(s.dims(), [n, 2, 3]);
        let c = s.try_sub(&s.try_mean(&[0], true).unwrap()).unwrap();
        let cov = c
            .permute(&[1, 2, 0])
            .unwrap()
            .try_matmul(&c.permute(&[1, 0, 2]).unwrap());
        let cov = host_f64s(&cov.unwrap().try_div_scalar(n as f64).unwrap());
        let want = host_f64s(&d.covariance().unwrap());
        for (a, b) in cov.iter().zip(&want) {
            assert!(
                (a - b).abs() < 0.06 * b.abs().max(1.0),
                "{cov:?} vs {want:?}"
            );
        }
        // Refusals.
        let z = |s: &[usize]| Tensor::<f64, _>::ones_on(s.to_vec(), &dev).unwrap();
        assert!(LowRankMultivariateNormal::new(&z(&[3]), &z(&[2, 1]), &z(&[3])).is_err());
        assert!(LowRankMultivariateNormal::new(&z(&[3]), &z(&[3, 1]), &z(&[2])).is_err());
        let neg = z(&[3]).try_neg().unwrap();
        assert!(LowRankMultivariateNormal::new(&z(&[3]), &z(&[3, 1]), &neg).is_err());
        assert!(d.log_prob(&z(&[2])).is_err());
        // Rank 0 is the diagonal normal.
        let diag = LowRankMultivariateNormal::new(&z(&[3]), &z(&[3, 0]), &z(&[3])).unwrap();
        let e = host_f64s(&diag.entropy().unwrap())[0];
        assert!((e - 1.5 * (1.0 + (2.0 * std::f64::consts::PI).ln())).abs() < 1e-12);
    });
}

#[test]
fn continuous_bernoulli_and_fisher_snedecor_match_pytorch() {
    on_every_device!("cont_bern", |dev| {
        let t = |v: &[f64]| Tensor::<f64, _>::from_vec_on(v.to_vec(), [v.len()], &dev).unwrap();
        // Both sides of the Taylor region around 1/2, and inside it.
        let p = t(&[0.2, 0.5, 0.4995, 0.9])
            .with_requires_grad(true)
            .unwrap();
        let d = ContinuousBernoulli::new(Some(&p), None).unwrap();
        let v = t(&[0.3, 0.3, 0.7, 0.95]);
        let lp = d.log_prob(&v).unwrap();
        assert_close(&host_f64s(&lp), CB_LP, 1e-12);
        assert_close(&host_f64s(&d.entropy().unwrap()), CB_ENT, 1e-12);
        assert_close(&host_f64s(&d.mean().unwrap()), CB_MEAN, 1e-12);
        assert_close(&host_f64s(&d.variance().unwrap()), CB_VAR, 1e-12);
        assert_close(&host_f64s(&d.cdf(&v).unwrap()), CB_CDF, 1e-12);
        assert_close(
            &host_f64s(&d.icdf(&t(&[0.1, 0.5, 0.7, 0.99])).unwrap()),
            CB_ICDF,
            1e-12,
        );
        lp.try_sum(&[], false).unwrap().backward();
        assert_close(&host_f64s(&p.grad_tensor().unwrap()), CB_GP, 1e-10);
        let dl = ContinuousBernoulli::new(None, Some(&t(&[-3., 0., 0.001, 40.]))).unwrap();
        assert_close(&host_f64s(&dl.log_prob(&v).unwrap()), CB_LP_LOGITS, 1e-12);
        let x = d.sample(&[20000]).unwrap();
        assert!(host_f64s(&x).iter().all(|v| (0.0..=1.0).contains(v)));
        assert_close(&host_f64s(&x.try_mean(&[0], false).unwrap()), CB_MEAN, 0.03);
        assert!(d.log_prob(&t(&[1.5, 0.5, 0.5, 0.5])).is_err());
        assert!(ContinuousBernoulli::new(Some(&t(&[1.5])), None).is_err());
        // FisherSnedecor.
        let f = FisherSnedecor::new(&t(&[1., 5., 10.]), &t(&[3., 6., 20.])).unwrap();
        assert_close(
            &host_f64s(&f.log_prob(&t(&[0.5, 1.2, 2.0])).unwrap()),
            F_LP,
            1e-12,
        );
        assert_close(&host_f64s(&f.mean().unwrap()), F_MEAN, 1e-12);
        assert_close(&host_f64s(&f.variance().unwrap()), F_VAR, 1e-12);
        let med = host_f64s(&f.sample(&[20001]).unwrap().try_median(0, false).unwrap().0);
        assert_close(&med, F_MEDIAN, 0.05);
        assert!(f.log_prob(&t(&[0.0, 1., 1.])).is_err());
        let e = FisherSnedecor::new(&t(&[0.0]), &t(&[1.0]))
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("FisherSnedecor") && e.contains("degrees of freedom"),
            "{e}"
        );
    });
}

#[test]
fn kl_divergences_of_the_new_pairs_match_pytorch() {
    on_every_device!("kl_more", |dev| {
        let t = |v: &[f64]| Tensor::<f64, _>::from_vec_on(v.to_vec(), [v.len()], &dev).unwrap();
        let tt =
            |v: &[f64], s: &[usize]| Tensor::<f64, _>::from_vec_on(v.to_vec(), s, &dev).unwrap();
        let h = |x: Tensor<f64, _>| host_f64s(&x);
        let geo = |p: &[f64]| Geometric::new(Some(&t(p)), None).unwrap();
        assert_close(
            &h(kl_divergence(&geo(&[0.2, 0.7]), &geo(&[0.5, 0.1])).unwrap()),
            KL_GEOM,
            1e-12,
        );
        let gum = |l: &[f64], s: &[f64]| Gumbel::new(&t(l), &t(s)).unwrap();
        let kl = kl_divergence(&gum(&[0., 1.], &[1., 2.]), &gum(&[0.5, -1.], &[1.5, 0.5]));
        assert_close(&h(kl.unwrap()), KL_GUMBEL, 1e-12);
        let hn = |s: &[f64]| HalfNormal::new(&t(s)).unwrap();
        assert_close(
            &h(kl_divergence(&hn(&[1., 2.]), &hn(&[0.5, 3.])).unwrap()),
            KL_HN,
            1e-12,
        );
        let par = |s: &[f64], a: &[f64]| Pareto::new(&t(s), &t(a)).unwrap();
        let kl = kl_divergence(
            &par(&[1., 2., 0.5], &[2., 3., 1.]),
            &par(&[0.5, 1., 1.], &[1., 2., 2.]),
        );
        assert_close(&h(kl.unwrap()), KL_PARETO, 1e-12);
        let cb = |p: &[f64]| ContinuousBernoulli::new(Some(&t(p)), None).unwrap();
        let kl = kl_divergence(&cb(&[0.2, 0.5, 0.9]), &cb(&[0.6, 0.4995, 0.3]));
        assert_close(&h(kl.unwrap()), KL_CB, 1e-10);
        let bin = |n: &[f64], p: &[f64]| Binomial::new(&t(n), Some(&t(p)), None).unwrap();
        let kl = kl_divergence(&bin(&[5., 7.], &[0.3, 0.6]), &bin(&[5., 4.], &[0.5, 0.2]));
        assert_close(&h(kl.unwrap()), KL_BIN, 1e-12);
        assert!(kl_divergence(&bin(&[3.], &[0.5]), &bin(&[4.], &[0.5])).is_err());
        let w = [1., 0.5, 0.2, -0.3, 0., 1., 0.3, 0.1, -1., 0.4, 0.5, 0.5];
        let p = LowRankMultivariateNormal::new(
            &tt(&[0., 1., -1., 0.5, 0., 2.], &[2, 3]),
            &tt(&w, &[2, 3, 2]),
            &tt(&[1., 0.5, 2., 0.3, 1.5, 1.], &[2, 3]),
        )
        .unwrap();
        let q = LowRankMultivariateNormal::new(
            &t(&[0.2, 0., 0.5]),
            &tt(&[0.7, 0.1, -0.4], &[3, 1]),
            &t(&[0.8, 1.2, 0.6]),
        )
        .unwrap();
        assert_close(&h(kl_divergence(&p, &q).unwrap()), KL_LR, 1e-12);
        assert_close(&h(kl_divergence(&p, &p).unwrap()), &[0.0, 0.0], 1e-12);
        // Against the full-covariance normals' divergence.
        let full = |d: &LowRankMultivariateNormal<f64, _>, loc: &Tensor<f64, _>| {
            MultivariateNormal::from_covariance(loc, &d.covariance().unwrap()).unwrap()
        };
        let (fp, fq) = (
            full(&p, &tt(&[0., 1., -1., 0.5, 0., 2.], &[2, 3])),
            full(&q, &t(&[0.2, 0., 0.5])),
        );
        assert_close(&h(kl_divergence(&fp, &fq).unwrap()), KL_LR, 1e-12);
    });
}

fn t64(v: &[f64]) -> Tensor<f64> {
    Tensor::from_vec(v.to_vec(), [v.len()]).unwrap()
}

const OH_LP: &[f64] = &[-std::f64::consts::LN_2, -2.3025850929940455];
const OH_ENT: &[f64] = &[1.0296530140645737, 0.8979457248567798];
const OH_KL: &[f64] = &[0.21801191094332797, 0.21972245773362198];
const LRB_LP: &[f64] = &[-1.743594239965305, -1.7529526827019162, -1.7501856216799783];
const RB_LP: &[f64] = &[0.3078847797693003, -0.6931471805599452, 0.838956953687819];
const RB_GP: &[f64] = &[0.8928571428571439, 0.0, -3.8601826194028495];
const RB_GT: &[f64] = &[7.336835720748096];
const RO_LP: &[f64] = &[-1.1617596499108345, -1.4565431208458506];
const RO_GL: &[f64] = &[
    -1.2539584260860266,
    0.40051487402757396,
    0.8534435520584527,
    0.8606767339868178,
    0.7574241045839368,
    -1.6181008385707545,
];
const RO_GT: &[f64] = &[1.6813616592800553];
const NB_LP: &[f64] = &[
    -1.070024831816197,
    -3.325368380348101,
    -2.497064305751014,
    -0.0,
];
const NB_MEAN: &[f64] = &[
    1.2857142857142856,
    1.1666666666666665,
    0.5263157894736843,
    0.0,
];
const NB_VAR: &[f64] = &[
    1.8367346938775506,
    3.888888888888888,
    0.554016620498615,
    0.0,
];
const NB_LP2: &[f64] = &[-1.2976956480523172, -3.2063597962622064, -2.575715033652431];
const NB_GN: &[f64] = &[-0.14074365084677343, 2.0391192648627285, 0.1423217393353493];
const NB_GL: &[f64] = &[-0.5101626751925818, 0.710236396164978, 1.4308895218691986];
const VM_LP: &[f64] = &[-0.6618706078923016, -1.8350654443984649, -8.32137721916632];
const VM_ENT: &[f64] = &[1.2663212919642852, 1.8378520668780869, -0.2731081613788007];
const VM_VAR: &[f64] = &[
    0.30222534203599183,
    0.9950000624989583,
    0.016810444634663968,
];
const VM_LP_TORCH: &[f64] = &[-0.6618706100681179, -1.8350654443835337, -8.321377223748282];
const MIX_LP: &[f64] = &[-0.5823944143182153, -4.111410219514462, -2.247911337409527];
const MIX_GW: &[f64] = &[3.6287888219220594, -1.5551952093951682];
const MIX_GMU: &[f64] = &[2.47741705269841, -0.09148186556775696];
const MIXMV_LP: &[f64] = &[-2.465331479010715, -2.6663663332815695];
const MIXMV_MEAN: &[f64] = &[
    0.25979350036026305,
    1.1555351628431094,
    1.3641753271487438,
    0.9402922119145728,
];
const CHI_LP: &[f64] = &[
    -0.8223649429247001,
    -1.5948753441381323,
    -2.6339272909663336,
];
const CHI_ENT: &[f64] = &[0.7837571104739339, 1.9017387274821986, 2.6362291812939125];
const CHI_CDF: &[f64] = &[0.5204998778130466, 0.5262112203566578, 0.7473439535034361];
const IG_LP: &[f64] = &[-2.099739069769129, -0.8394969915248369, -8.442766166719343];
const IG_ENT: &[f64] = &[4.017629981956834, 1.9811400079782595, -0.6911373403938681];
const IG_MEAN: &[f64] = &[f64::INFINITY, 4.0, 0.25];
const IG_VAR: &[f64] = &[f64::INFINITY, f64::INFINITY, 0.0625];
const HC_LP: &[f64] = &[-0.4515827052894549, -1.575212756932852, -1.110828334173719];
const HC_ENT: &[f64] = &[1.8378770664093453, 2.7541677982835004, 0.6339042620834093];
const HC_CDF: &[f64] = &[0.0, 0.284900064714503, 0.7422378831816867];
const HC_ICDF: &[f64] = &[0.15838444032453644, 2.4999999999999996, 1.8941254544025092];
const KU_LP: &[f64] = &[0.22064508340691513, 0.0, 1.09915909265289];
const KU_ENT: &[f64] = &[
    -0.6593568997616617,
    -0.19314718055994534,
    -1.052723565246775,
];
const KU_MEAN: &[f64] = &[0.2285714285714285, 0.6666666666666666, 0.867449908243314];
const KU_VAR: &[f64] = &[
    0.05857761286332713,
    0.05555555555555558,
    0.01792069422864162,
];
const KU_GA: &[f64] = &[1.0415933988411623, -0.1931471805599453, 0.04906233294846671];
const KU_GB: &[f64] = &[0.07388306594995844, 0.7123179275482191, 0.5357774726086717];
const MIXMV_VAR: &[f64] = &[
    1.6162662789458806,
    1.2638260924118399,
    1.6554347734790202,
    2.132259652893202,
];
const MIX_MEAN: &[f64] = &[0.7999999999999999];
const MIX_VAR: &[f64] = &[3.8349999999999995];
const PA_MOM: &[f64] = &[
    f64::INFINITY,
    5.0,
    0.42000000000000004,
    f64::INFINITY,
    f64::INFINITY,
    0.0336,
];
const WB_VAR: &[f64] = &[20.000000000000004, 2.348064280087074, 0.009479959638163083];
const HN_VAR: &[f64] = &[0.3633802276324186, 2.271126422702616, 0.03270422048691767];
const LR_LP: &[f64] = &[-3.5900578402149668, -4.068213061563139];
const LR_ENT: &[f64] = &[4.9334428531348635, 4.4190877182061925];
const LR_VAR: &[f64] = &[2.25, 0.63, 3.0, 0.4, 2.66, 1.5];
const LR_GLOC: &[f64] = &[
    0.0945736434108527,
    -0.3824289405684755,
    0.21266149870801032,
    1.9762902992626863,
    0.4749168714760734,
    -0.8351886656064769,
];
const LR_GW: &[f64] = &[
    -0.4479017687238347,
    -0.13510806642229034,
    -0.26531525215498536,
    0.2184697767895893,
    0.05294219765104927,
    -0.18905447722826488,
    -1.035255406277565,
    -0.27252858711826045,
    0.1663632765455888,
    -0.22459812792124986,
    0.03772278581313043,
    -0.321916777777455,
];
const LR_GD: &[f64] = &[
    -0.22808605252088215,
    -0.7666673343615835,
    -0.1602040809513317,
    0.5432910503773978,
    -0.08962686693661256,
    -0.011357169205680473,
];
const CB_ENT: &[f64] = &[
    -0.07641445280335896,
    0.0,
    -1.666667611699424e-07,
    -0.17963111600005544,
];
const CB_MEAN: &[f64] = &[
    0.3880141871111483,
    0.5,
    0.4998333332888889,
    0.6698803866865813,
];
const CB_VAR: &[f64] = &[
    0.0758978008069574,
    0.08333333333333333,
    0.08333331666667512,
    0.0665088624225558,
];
const CB_CDF: &[f64] = &[0.45366139281807033, 0.3, 0.7, 0.8829532673208573];
const CB_ICDF: &[f64] = &[0.056237364629206275, 0.5, 0.7, 0.9959364050282353];
const CB_GP: &[f64] = &[
    -0.5500886694446768,
    -0.8,
    0.8006674675119132,
    3.1124401479268755,
];
const CB_LP_LOGITS: &[f64] = &[
    0.24968146961081095,
    0.0,
    0.00019995833333363855,
    1.5847307979997618,
];
const F_LP: &[f64] = &[
    -0.9626166189980536,
    -1.0146471332878018,
    -1.8790150166498591,
];
const F_MEAN: &[f64] = &[3.0, 1.5, 1.1111111111111112];
const F_VAR: &[f64] = &[f64::NAN, 4.05, 0.43209876543209874];
const F_MEDIAN: &[f64] = &[0.5850602740518215, 0.9765363971139295, 0.9662638885929162]; // SciPy f(d1, d2).median()
const CB_LP: &[f64] = &[
    0.19842802409409477,
    0.0,
    -0.0004001668001055725,
    0.7951168149662167,
];
const KL_GEOM: &[f64] = &[0.9637237851087868, 1.4750763110546945];
const KL_GUMBEL: &[f64] = &[0.13960910067129184, 3.784927966914328];
const KL_HN: &[f64] = &[0.8068528194400547, 0.1276873303303866];
const KL_PARETO: &[f64] = &[0.8862943611198906, 1.4584261358947215, f64::INFINITY];
const KL_CB: &[f64] = &[
    0.12866151363677047,
    1.6666677221666149e-07,
    0.353306527413222,
];
const KL_BIN: &[f64] = &[0.41141439252525946, f64::INFINITY];
const KL_LR: &[f64] = &[3.4651019548892616, 2.5754375901858504];
