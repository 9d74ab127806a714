//! `kl_divergence` between distributions of different families on every device, against
//! PyTorch 2.15 (values and the gradients in every parameter of both sides), the infinite
//! pairs' broadcast shapes and the refusals. The values come from
//! `tests/data/torch_grads/make/kl_cross.py`.

use crate::common::{assert_close, host_f64s};
use typed_tensor::distributions::*;
use typed_tensor::prelude::*;

#[test]
fn cross_family_kl_matches_pytorch() {
    on_every_device!("kl_cross", |dev| {
        let t = |v: &[f64]| Tensor::<f64, _>::from_vec_on(v.to_vec(), [v.len()], &dev).unwrap();
        let normal = Normal::new(&t(&[0.3, -1.0, 2.0]), &t(&[0.8, 1.5, 0.4])).unwrap();
        let laplace = Laplace::new(&t(&[0.1, 0.5, -1.0]), &t(&[1.2, 0.6, 2.0])).unwrap();
        let gumbel = Gumbel::new(&t(&[0.2, -0.5, 1.0]), &t(&[1.0, 0.7, 2.0])).unwrap();
        let exponential = Exponential::new(&t(&[0.5, 2.0, 1.3])).unwrap();
        let gamma = Gamma::new(&t(&[0.7, 2.5, 4.0]), &t(&[1.0, 0.5, 3.0])).unwrap();
        let chi2 = Chi2::new(&t(&[1.5, 3.0, 6.0])).unwrap();
        let beta = Beta::new(&t(&[0.6, 2.0, 5.0]), &t(&[1.5, 0.8, 3.0])).unwrap();
        let cb = ContinuousBernoulli::new(Some(&t(&[0.2, 0.5003, 0.9])), None).unwrap();
        let uniform = Uniform::new(&t(&[0.1, -0.1, 0.2]), &t(&[0.7, 0.5, 1.2])).unwrap();
        let pareto = Pareto::new(&t(&[0.5, 1.0, 2.0]), &t(&[0.8, 1.5, 3.0])).unwrap();
        let poisson = Poisson::new(&t(&[0.5, 2.0, 0.1])).unwrap();
        let bernoulli = Bernoulli::from_probs(&t(&[0.2, 0.7, 0.95])).unwrap();
        let q_uniform = Uniform::new(&t(&[0.0, 0.1, -1.0]), &t(&[1.0, 1.0, 2.0])).unwrap();
        let q_pareto = Pareto::new(&t(&[0.05, 0.5, 0.1]), &t(&[2.0, 1.5, 0.7])).unwrap();
        macro_rules! check {
            ($($p:ident $q:ident $want:ident),* $(,)?) => {$(
                let got = host_f64s(&kl_divergence(&$p, &$q).unwrap());
                assert_close(&got, $want, 1e-12);
            )*};
        }
        check!(
            bernoulli poisson KL_BERNOULLI_POISSON, beta cb KL_BETA_CB,
            beta exponential KL_BETA_EXPONENTIAL, beta gamma KL_BETA_GAMMA,
            beta normal KL_BETA_NORMAL, beta q_uniform KL_BETA_UNIFORM,
            cb exponential KL_CB_EXPONENTIAL, cb normal KL_CB_NORMAL,
            exponential gamma KL_EXPONENTIAL_GAMMA, exponential gumbel KL_EXPONENTIAL_GUMBEL,
            exponential normal KL_EXPONENTIAL_NORMAL, gamma exponential KL_GAMMA_EXPONENTIAL,
            gamma gumbel KL_GAMMA_GUMBEL, gamma normal KL_GAMMA_NORMAL,
            gumbel normal KL_GUMBEL_NORMAL, laplace normal KL_LAPLACE_NORMAL,
            normal gumbel KL_NORMAL_GUMBEL, normal laplace KL_NORMAL_LAPLACE,
            pareto exponential KL_PARETO_EXPONENTIAL, pareto gamma KL_PARETO_GAMMA,
            pareto normal KL_PARETO_NORMAL, uniform beta KL_UNIFORM_BETA,
            uniform cb KL_UNIFORM_CB, uniform exponential KL_UNIFORM_EXPONENTIAL,
            uniform gamma KL_UNIFORM_GAMMA, uniform gumbel KL_UNIFORM_GUMBEL,
            uniform normal KL_UNIFORM_NORMAL, uniform q_pareto KL_UNIFORM_PARETO,
            chi2 exponential KL_CHI2_EXPONENTIAL, chi2 gumbel KL_CHI2_GUMBEL,
            chi2 normal KL_CHI2_NORMAL, chi2 gamma KL_CHI2_GAMMA,
            exponential chi2 KL_EXPONENTIAL_CHI2, beta chi2 KL_BETA_CHI2,
            uniform chi2 KL_UNIFORM_CHI2, pareto chi2 KL_PARETO_CHI2, gamma chi2 KL_GAMMA_CHI2,
        );
        // A uniform on exactly [0, 1] (or inside it) is finitely far from a continuous
        // Bernoulli (PyTorch says infinite for bounds equal to 0 or 1).
        let inside = Uniform::new(&t(&[0.0, 0.25, 0.0]), &t(&[1.0, 0.75, 0.5])).unwrap();
        let got = host_f64s(&kl_divergence(&inside, &cb).unwrap());
        assert_close(&got, KL_UNIFORM01_CB, 1e-12);
        let unit = Uniform::new(&t(&[0.0]), &t(&[1.0])).unwrap();
        let got = host_f64s(&kl_divergence(&cb, &unit).unwrap());
        let h = host_f64s(&cb.entropy().unwrap());
        assert_close(&got, &h.iter().map(|h| -h).collect::<Vec<_>>(), 1e-12);

        // The infinite pairs have the broadcast batch shape; shapes that do not broadcast
        // are an `Err`.
        let wide = Beta::new(
            &Tensor::<f64, _>::from_vec_on(vec![1.0, 2.0], [2, 1], &dev).unwrap(),
            &t(&[1.0]),
        )
        .unwrap();
        let kl = kl_divergence(&normal, &wide).unwrap();
        assert_eq!(kl.dims(), [2, 3]);
        assert!(host_f64s(&kl).iter().all(|&v| v == f64::INFINITY));
        for kl in [
            kl_divergence(&gamma, &q_pareto),
            kl_divergence(&laplace, &chi2),
            kl_divergence(&poisson, &bernoulli),
            kl_divergence(&exponential, &uniform),
        ] {
            assert!(host_f64s(&kl.unwrap()).iter().all(|&v| v == f64::INFINITY));
        }
        let two = Normal::new(&t(&[0.0, 1.0]), &t(&[1.0, 1.0])).unwrap();
        assert!(kl_divergence(&two, &laplace).is_err());
        assert!(kl_divergence(&two, &beta).is_err());

        // MultivariateNormal against LowRankMultivariateNormal, both ways.
        let m = |v: &[f64], s: &[usize]| Tensor::from_vec_on(v.to_vec(), s, &dev).unwrap();
        let cov = m(&[1.0, 0.2, 0.1, 0.2, 0.8, -0.1, 0.1, -0.1, 0.5], &[3, 3]);
        let mv = MultivariateNormal::from_covariance(
            &m(&[0.1, -0.3, 0.5, 1.0, 0.0, -1.0], &[2, 3]),
            &cov,
        );
        let w = m(&[0.5, 0.1, -0.2, 0.3, 0.4, -0.6], &[3, 2]);
        let lr = LowRankMultivariateNormal::new(&t(&[0.0, 0.2, -0.1]), &w, &t(&[0.7, 1.1, 0.4]));
        let (mv, lr) = (mv.unwrap(), lr.unwrap());
        assert_close(
            &host_f64s(&kl_divergence(&mv, &lr).unwrap()),
            KL_MVN_LR,
            1e-12,
        );
        assert_close(
            &host_f64s(&kl_divergence(&lr, &mv).unwrap()),
            KL_LR_MVN,
            1e-12,
        );
    });
}

/// Transformed distributions with the same transforms: the bases' divergence; other
/// transforms are refused (PyTorch's `NotImplementedError`).
#[test]
fn transformed_kl_is_the_bases() {
    on_every_device!("kl_transformed", |dev| {
        let t = |v: &[f64]| Tensor::<f64, _>::from_vec_on(v.to_vec(), [v.len()], &dev).unwrap();
        let (p, q) = (
            Normal::new(&t(&[0.3, -1.0]), &t(&[0.8, 1.5])).unwrap(),
            Normal::new(&t(&[0.1, 0.5]), &t(&[1.2, 0.6])).unwrap(),
        );
        let affine = |a: f64| Transform::Affine {
            loc: t(&[1.0, a]),
            scale: t(&[2.0, 2.0]),
        };
        let tp = TransformedDistribution::new(p.clone(), vec![affine(0.0), Transform::Exp]);
        let tq = TransformedDistribution::new(q.clone(), vec![affine(0.0), Transform::Exp]);
        let want = host_f64s(&kl_divergence(&p, &q).unwrap());
        let got = kl_divergence(&tp.unwrap(), &tq.unwrap()).unwrap();
        assert_close(&host_f64s(&got), &want, 0.0);
        let tp = TransformedDistribution::new(p.clone(), vec![affine(0.0), Transform::Exp]);
        for other in [
            vec![affine(0.5), Transform::Exp],
            vec![affine(0.0)],
            vec![affine(0.0), Transform::Tanh],
        ] {
            let tq = TransformedDistribution::new(q.clone(), other).unwrap();
            assert!(kl_divergence(tp.as_ref().unwrap(), &tq).is_err());
        }
    });
}

/// `d KL / dθ` in every parameter of both sides, against PyTorch's autograd.
#[test]
fn cross_family_kl_gradients_match_pytorch() {
    on_every_device!("kl_cross_grad", |dev| {
        let leaf = |v: &[f64]| {
            Tensor::<f64, _>::from_vec_on(v.to_vec(), [v.len()], &dev)
                .unwrap()
                .with_requires_grad(true)
                .unwrap()
        };
        let check = |params: &[&Tensor<f64, _>], kl: Tensor<f64, _>, want: [&[f64]; 4]| {
            kl.try_sum(&[], false).unwrap().backward();
            for (x, w) in params.iter().zip(want) {
                // 1e-8: PyTorch's trigamma (in the Gamma and Beta gradients) is off by up
                // to 3e-10 here; ours agrees with mpmath at 40 digits to 1e-15.
                assert_close(&host_f64s(&x.grad_tensor().unwrap()), w, 1e-8);
            }
        };
        let (a, b, c, d) = (
            leaf(&[0.3, -1.0]),
            leaf(&[0.8, 1.5]),
            leaf(&[0.1, 0.5]),
            leaf(&[1.2, 0.6]),
        );
        let kl = kl_divergence(
            &Normal::new(&a, &b).unwrap(),
            &Laplace::new(&c, &d).unwrap(),
        );
        check(
            &[&a, &b, &c, &d],
            kl.unwrap(),
            [
                G_NORMAL_LAPLACE_0,
                G_NORMAL_LAPLACE_1,
                G_NORMAL_LAPLACE_2,
                G_NORMAL_LAPLACE_3,
            ],
        );
        let (a, b, c, d) = (
            leaf(&[0.7, 2.5]),
            leaf(&[1.0, 0.5]),
            leaf(&[0.2, -0.5]),
            leaf(&[1.0, 0.7]),
        );
        let kl = kl_divergence(&Gamma::new(&a, &b).unwrap(), &Gumbel::new(&c, &d).unwrap());
        check(
            &[&a, &b, &c, &d],
            kl.unwrap(),
            [
                G_GAMMA_GUMBEL_0,
                G_GAMMA_GUMBEL_1,
                G_GAMMA_GUMBEL_2,
                G_GAMMA_GUMBEL_3,
            ],
        );
        let (a, b, c, d) = (
            leaf(&[0.1, 0.3]),
            leaf(&[0.7, 0.9]),
            leaf(&[0.6, 2.0]),
            leaf(&[1.5, 0.8]),
        );
        let kl = kl_divergence(&Uniform::new(&a, &b).unwrap(), &Beta::new(&c, &d).unwrap());
        check(
            &[&a, &b, &c, &d],
            kl.unwrap(),
            [
                G_UNIFORM_BETA_0,
                G_UNIFORM_BETA_1,
                G_UNIFORM_BETA_2,
                G_UNIFORM_BETA_3,
            ],
        );
        let (a, b, c, d) = (
            leaf(&[0.6, 2.0]),
            leaf(&[1.5, 0.8]),
            leaf(&[0.7, 2.5]),
            leaf(&[1.0, 0.5]),
        );
        let kl = kl_divergence(&Beta::new(&a, &b).unwrap(), &Gamma::new(&c, &d).unwrap());
        check(
            &[&a, &b, &c, &d],
            kl.unwrap(),
            [
                G_BETA_GAMMA_0,
                G_BETA_GAMMA_1,
                G_BETA_GAMMA_2,
                G_BETA_GAMMA_3,
            ],
        );
        let (a, b, c, d) = (
            leaf(&[0.5, 1.0]),
            leaf(&[2.5, 3.0]),
            leaf(&[0.3, -1.0]),
            leaf(&[0.8, 1.5]),
        );
        let kl = kl_divergence(&Pareto::new(&a, &b).unwrap(), &Normal::new(&c, &d).unwrap());
        check(
            &[&a, &b, &c, &d],
            kl.unwrap(),
            [
                G_PARETO_NORMAL_0,
                G_PARETO_NORMAL_1,
                G_PARETO_NORMAL_2,
                G_PARETO_NORMAL_3,
            ],
        );
        let (a, c, d) = (leaf(&[0.5, 2.0]), leaf(&[0.2, -0.5]), leaf(&[1.0, 0.7]));
        let kl = kl_divergence(
            &Exponential::new(&a).unwrap(),
            &Gumbel::new(&c, &d).unwrap(),
        );
        check(
            &[&a, &c, &d],
            kl.unwrap(),
            [
                G_EXPONENTIAL_GUMBEL_0,
                G_EXPONENTIAL_GUMBEL_1,
                G_EXPONENTIAL_GUMBEL_2,
                &[],
            ],
        );
    });
}

const KL_BERNOULLI_POISSON: &[f64] = &[0.1382270125738012, 0.9039326715531447, 2.0889405949984705];
const KL_BETA_CB: &[f64] = &[0.13571296453612613, 0.30773448806008363, 0.3491319990160555];
const KL_BETA_EXPONENTIAL: &[f64] = &[1.1899495172061647, 1.0434158189595535, 0.9802865618805099];
const KL_BETA_GAMMA: &[f64] = &[0.2927401712631219, 3.309329230590135, 1.2310325694750452];
const KL_BETA_NORMAL: &[f64] = &[1.1013314775228575, 2.297391035151467, 6.422381961011851];
const KL_BETA_UNIFORM: &[f64] = &[0.3539451937890766, f64::INFINITY, 1.5287631150161107];
const KL_CB_EXPONENTIAL: &[f64] = &[0.9635687269188784, 0.30705287945926696, 0.7881113542251201];
const KL_CB_NORMAL: &[f64] = &[0.8375565424592858, 1.8429888873933242, 5.918925942779308];
const KL_EXPONENTIAL_GAMMA: &[f64] = &[0.602499520669245, 3.8662422706249453, 1.4861066748224872];
const KL_EXPONENTIAL_GUMBEL: &[f64] = &[0.5139870721601112, 1.050609633267531, 1.0308699695929135];
const KL_EXPONENTIAL_NORMAL: &[f64] = &[4.385460301330517, 1.5731063774283378, 5.847852302484398];
const KL_GAMMA_EXPONENTIAL: &[f64] = &[0.4482870001376591, 6.883757729375055, 0.5461748936012978];
const KL_GAMMA_GUMBEL: &[f64] = &[0.6570014106541965, 5.094127086792066, 0.8249583503574717];
const KL_GAMMA_NORMAL: &[f64] = &[0.7728098014681768, 9.123530773470058, 1.855631403843752];
const KL_GUMBEL_NORMAL: &[f64] = &[0.5816018620480228, 0.4646019960950336, 18.36848902779919];
const KL_LAPLACE_NORMAL: &[f64] = &[1.1015762445365627, 0.8020820845188823, 50.74135344021062];
const KL_NORMAL_GUMBEL: &[f64] = &[0.1502817486969179, 17.396176333909537, 1.3092827710355688];
const KL_NORMAL_LAPLACE: &[f64] = &[0.22813335309487726, 1.2744952684195492, 2.383646559789375];
const KL_PARETO_EXPONENTIAL: &[f64] = &[f64::INFINITY, 4.045651260881552, 2.70976751030734];
const KL_PARETO_GAMMA: &[f64] = &[f64::INFINITY, 1.2563492633142799, 2.3900005476506108];
const KL_PARETO_NORMAL: &[f64] = &[f64::INFINITY, f64::INFINITY, 11.574779576105348];
const KL_UNIFORM_BETA: &[f64] = &[0.6079240570122422, f64::INFINITY, f64::INFINITY];
const KL_UNIFORM_CB: &[f64] = &[0.4510270357838848, f64::INFINITY, f64::INFINITY];
const KL_UNIFORM_EXPONENTIAL: &[f64] = &[1.403972804325936, f64::INFINITY, 0.6476357355325089];
const KL_UNIFORM_GAMMA: &[f64] = &[0.8619858945688031, f64::INFINITY, 0.8752899626369186];
const KL_UNIFORM_GUMBEL: &[f64] = &[1.5418927210376812, 1.5333956129875723, 1.7171217397705667];
const KL_UNIFORM_NORMAL: &[f64] = &[1.2378706056564537, 2.1618959317454944, 5.544314467997184];
const KL_UNIFORM_PARETO: &[f64] = &[2.712073233025486, f64::INFINITY, 1.1876293751218259];
const KL_CHI2_EXPONENTIAL: &[f64] = &[0.06818426851532233, 3.252732863504643, 4.996910044609553];
const KL_CHI2_GUMBEL: &[f64] = &[0.4608558977430765, 2.653828688501486, 0.8585116484745047];
const KL_CHI2_NORMAL: &[f64] = &[2.7895820698458396, 4.159172574266314, 84.96192211040754];
const KL_CHI2_GAMMA: &[f64] = &[0.26809022471908583, 0.3689751341295882, 8.008790076657423];
const KL_EXPONENTIAL_CHI2: &[f64] = &[0.058977035205912465, 1.4972671364953571, 4.098728230060705];
const KL_BETA_CHI2: &[f64] = &[0.713454877854218, 1.7929542881710752, 4.5342871676354015];
const KL_UNIFORM_CHI2: &[f64] = &[1.1758778141765331, f64::INFINITY, 4.04124182096065];
const KL_PARETO_CHI2: &[f64] = &[f64::INFINITY, 0.824403641312837, 1.291759469228055];
const KL_GAMMA_CHI2: &[f64] = &[0.17327526800448456, 0.2976915325370787, 2.1994504541145234];
const KL_UNIFORM01_CB: &[f64] = &[0.07883084812988339, 0.693147240559959, 1.4360875697290822];
const G_NORMAL_LAPLACE_0: &[f64] = &[0.16451054280487287, -1.1378158202284765];
const G_NORMAL_LAPLACE_1: &[f64] = &[-0.6055531386619177, 0.1399024150638115];
const G_NORMAL_LAPLACE_2: &[f64] = &[-0.16451054280487287, 1.1378158202284765];
const G_NORMAL_LAPLACE_3: &[f64] = &[0.37628366864046636, -3.1942955882307196];
const G_GAMMA_GUMBEL_0: &[f64] = &[-1.371365489384571, 2.570062463374675];
const G_GAMMA_GUMBEL_1: &[f64] = &[0.5631515568767689, -12.22366145737006];
const G_GAMMA_GUMBEL_2: &[f64] = &[-0.24813840892351746, -1.404636766210084];
const G_GAMMA_GUMBEL_3: &[f64] = &[0.6127792386614723, -9.734498731128674];
const G_UNIFORM_BETA_0: &[f64] = &[2.88906388454242, 0.36157539772168734];
const G_UNIFORM_BETA_1: &[f64] = &[-0.6762802112821198, -2.841232595186974];
const G_UNIFORM_BETA_2: &[f64] = &[-0.9935985968101757, 0.1382917175728211];
const G_UNIFORM_BETA_3: &[f64] = &[0.10720837662251537, -0.7731989697927089];
const G_BETA_GAMMA_0: &[f64] = &[-0.2662260608082448, 0.028385888225963773];
const G_BETA_GAMMA_1: &[f64] = &[0.08860553071081673, -0.28761333450631477];
const G_BETA_GAMMA_2: &[f64] = &[0.805931628875088, 1.8140664749561388];
const G_BETA_GAMMA_3: &[f64] = &[-0.41428571428571426, -4.285714285714286];
const G_PARETO_NORMAL_0: &[f64] = &[1.1249999999999987, 1.0];
const G_PARETO_NORMAL_1: &[f64] = &[-0.898333333333333, -0.11111111111111116];
const G_PARETO_NORMAL_2: &[f64] = &[-0.833333333333333, -1.1111111111111112];
const G_PARETO_NORMAL_3: &[f64] = &[-0.39062499999999933, -1.4074074074074074];
const G_EXPONENTIAL_GUMBEL_0: &[f64] = &[-1.457154329706591, 0.20235005287274482];
const G_EXPONENTIAL_GUMBEL_1: &[f64] = &[-0.5928657472799435, -1.0206200456073011];
const G_EXPONENTIAL_GUMBEL_2: &[f64] = &[-0.6100040153973068, -0.15087131008308696];
const KL_MVN_LR: &[f64] = &[0.3954334189685784, 1.35675647091663];
const KL_LR_MVN: &[f64] = &[0.6805863613924497, 2.0289103837388183];
