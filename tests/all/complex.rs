//! `ComplexTensor`'s division, `exp`/`log`/`sqrt`, reductions, matrix products, `solve` and
//! `inverse`, `sort_complex`, `isreal`/`iscomplex`/`real_if_close` on every device against
//! NumPy 2.4 (the constants below), with gradients through the pairs.

use crate::common::{assert_close, host_f64s};
use typed_tensor::complex::ComplexTensor;
use typed_tensor::prelude::*;

#[test]
fn complex_math_matches_numpy() {
    on_every_device!("complex_math", |dev| {
        let z = |v: &[f64], dims: &[usize]| {
            let mut d = dims.to_vec();
            d.push(2);
            ComplexTensor::from_pairs(&Tensor::<f64, _>::from_vec_on(v.to_vec(), d, &dev).unwrap())
                .unwrap()
        };
        let host = |c: ComplexTensor<f64, _>| host_f64s(c.pairs());
        let (a, b) = (z(XA, &[7]), z(XB, &[7]));
        let q = host(a.try_div(&b).unwrap());
        // Huge, tiny and zero divisors (the last: inf + inf·i, as NumPy).
        assert_close(&q, DIV, 1e-14);
        let pick = |idx: &[usize]| {
            let v: Vec<f64> = idx
                .iter()
                .flat_map(|&i| [XA[2 * i], XA[2 * i + 1]])
                .collect();
            z(&v, &[idx.len()])
        };
        assert_close(&host(pick(&[0, 1, 3, 4]).try_exp().unwrap()), EXP, 1e-14);
        assert_close(&host(pick(&[0, 1, 3, 5]).try_log().unwrap()), LOG, 1e-14);
        assert_close(
            &host(pick(&[0, 1, 3, 4, 5]).try_sqrt().unwrap()),
            SQRT,
            1e-14,
        );
        let r = host(pick(&[0]).try_reciprocal().unwrap()); // 1/(1 + 2i) = (1 - 2i)/5
        assert_close(&r, &[0.2, -0.4], 1e-15);
        assert_close(&host(pick(&[0]).try_neg().unwrap()), &[-1.0, -2.0], 0.0);

        // Matrix products (a batch against one matrix), reductions, the conjugate transpose.
        let (ma, mb) = (z(A, &[2, 3, 4]), z(B, &[4, 2]));
        assert_close(&host(ma.try_matmul(&mb).unwrap()), AB, 1e-13);
        assert_close(&host(ma.try_sum(&[1], false).unwrap()), ASUM1, 1e-14);
        assert_close(&host(ma.try_mean(&[0, -1], false).unwrap()), AMEAN, 1e-14);
        let kept = ma.try_sum(&[1], true).unwrap();
        assert_eq!(kept.dims(), [2, 1, 4]);
        assert_close(&host(ma.try_conj_transpose().unwrap()), AH, 0.0);
        assert!(z(XA, &[7]).try_conj_transpose().is_err());
        assert!(ma.try_sum(&[3], false).is_err()); // the pairs' axis is not a complex axis
        assert!(ma.try_matmul(&z(XA, &[7])).is_err());
        // Transposed and broadcast operands: A·Aᴴ is Hermitian with a real diagonal.
        let g = ma.try_matmul(&ma.try_conj_transpose().unwrap()).unwrap();
        let gh = host(g.try_conj_transpose().unwrap());
        assert_close(&host(g.clone()), &gh, 1e-13);
        let one = z(&[2.0, 0.0], &[]);
        assert_close(
            &host(ma.try_div(&one).unwrap()),
            &A.iter().map(|v| v / 2.0).collect::<Vec<_>>(),
            1e-15,
        );
    });
}

#[test]
fn complex_solve_and_inverse_match_numpy() {
    on_every_device!("complex_solve", |dev| {
        let z = |v: &[f64], dims: &[usize]| {
            let mut d = dims.to_vec();
            d.push(2);
            ComplexTensor::from_pairs(&Tensor::<f64, _>::from_vec_on(v.to_vec(), d, &dev).unwrap())
                .unwrap()
        };
        let a = z(SA, &[2, 3, 3]);
        let x = a.try_solve(&z(SB, &[3])).unwrap();
        assert_eq!(x.dims(), [2, 3]);
        assert_close(host_f64s(x.pairs()).as_slice(), SOLVE_V, 1e-12);
        let x = a.try_solve(&z(SBM, &[3, 2])).unwrap();
        assert_eq!(x.dims(), [2, 3, 2]);
        assert_close(host_f64s(x.pairs()).as_slice(), SOLVE_M, 1e-12);
        let inv = a.try_inverse().unwrap();
        assert_close(host_f64s(inv.pairs()).as_slice(), INV, 1e-12);
        // A · A⁻¹ = I.
        let eye = host_f64s(a.try_matmul(&inv).unwrap().pairs());
        for (i, v) in eye.iter().enumerate() {
            let on_diag = i % 2 == 0 && (i / 2) % 3 == (i / 2 / 3) % 3;
            assert!(
                (v - if on_diag { 1.0 } else { 0.0 }).abs() < 1e-12,
                "{eye:?}"
            );
        }
        // Refusals: non-square, singular (a rank-1 complex matrix), mismatched right side.
        assert!(z(SB, &[3]).try_inverse().is_err());
        assert!(z(&SBM[..12], &[3, 2]).try_solve(&z(SB, &[3])).is_err());
        let ones = z(&[1.0, 1.0, 2.0, 2.0, 1.0, 1.0, 2.0, 2.0], &[2, 2]); // rows (1+i)(1, 2)
        assert!(ones.try_inverse().is_err());
        assert!(a.try_solve(&z(&SB[..4], &[2])).is_err());
    });
}

#[test]
fn complex_math_gradients() {
    use crate::common::check_grad;
    use typed_tensor::Result;
    let pairs = |v: &[Tensor<f64>]| ComplexTensor::from_pairs(&v[0]).unwrap();
    let x = Tensor::<f64>::from_vec(vec![1.0, 2.0, -3.0, 0.5, 2.0, -1.0], [3, 2]).unwrap();
    let y = Tensor::<f64>::from_vec(vec![3.0, -4.0, 0.25, 2.0, -1.0, 1.0], [3, 2]).unwrap();
    type F = fn(&ComplexTensor<f64>, &ComplexTensor<f64>) -> Result<ComplexTensor<f64>>;
    let cases: [(&str, F); 7] = [
        ("solve", |a, b| {
            let a = ComplexTensor::from_pairs(&a.pairs().try_reshape([3, 1, 2])?)?;
            let a = a.try_matmul(&ComplexTensor::from_pairs(&a.pairs().transpose(0, 1)?)?)?;
            let a = a.try_add(&ComplexTensor::from_real(
                &Tensor::eye(3)?.try_mul_scalar(4.0)?,
            )?)?;
            a.try_solve(b)
        }),
        ("inverse", |a, _| {
            let m = ComplexTensor::from_pairs(&a.pairs().try_reshape([3, 1, 2])?)?;
            let m = m.try_matmul(&ComplexTensor::from_pairs(&m.pairs().transpose(0, 1)?)?)?;
            m.try_add(&ComplexTensor::from_real(
                &Tensor::eye(3)?.try_mul_scalar(4.0)?,
            )?)?
            .try_inverse()
        }),
        ("div", |a, b| a.try_div(b)),
        ("exp", |a, _| a.try_exp()),
        ("log", |a, _| a.try_log()),
        ("sqrt", |a, _| a.try_sqrt()),
        ("matmul", |a, b| {
            let a = ComplexTensor::from_pairs(&a.pairs().try_reshape([3, 1, 2])?)?;
            let b = ComplexTensor::from_pairs(&b.pairs().try_reshape([1, 3, 2])?)?;
            a.try_matmul(&b)
        }),
    ];
    for (name, f) in cases {
        let g = move |v: &[Tensor<f64>]| -> Result<Tensor<f64>> {
            let b = ComplexTensor::from_pairs(&v[1])?;
            f(&pairs(v), &b)?.into_pairs().try_sin()
        };
        check_grad(name, &g, &[x.clone(), y.clone()]);
    }
}

const XA: &[f64] = &[
    1.0, 2.0, -3.0, 0.5, 1e+300, 1e+300, 2.0, -1.0, 0.0, 0.0, -4.0, 0.0, 1.0, 1.0,
];
const XB: &[f64] = &[
    3.0, -4.0, 0.25, 2.0, 1e+300, -1e+300, 1e-300, 1e-300, 2.0, 0.0, 1.0, 1.0, 0.0, 0.0,
];
const DIV: &[f64] = &[
    -0.2,
    0.4,
    0.06153846153846154,
    1.5076923076923077,
    0.0,
    1.0,
    4.9999999999999995e+299,
    -1.4999999999999998e+300,
    0.0,
    0.0,
    -2.0,
    2.0,
    f64::INFINITY,
    f64::INFINITY,
];
const EXP: &[f64] = &[
    -1.1312043837568135,
    2.4717266720048188,
    0.04369226300728118,
    0.02386919206778745,
    3.992324048441272,
    -6.217676312367968,
    1.0,
    0.0,
];
const LOG: &[f64] = &[
    0.8047189562170503,
    1.1071487177940904,
    1.1123117757621668,
    2.976443976175166,
    0.8047189562170503,
    -0.4636476090008061,
    1.3862943611198906,
    std::f64::consts::PI,
];
const SQRT: &[f64] = &[
    1.272019649514069,
    0.7861513777574233,
    0.14384238796180673,
    1.738013415533538,
    1.455346690225355,
    -0.34356074972251244,
    0.0,
    0.0,
    0.0,
    2.0,
];
const A: &[f64] = &[
    0.1257302210933933,
    0.9034701816518086,
    -0.1321048632913019,
    0.09401229776087457,
    0.6404226504432821,
    -0.7434992493538084,
    0.10490011715303971,
    -0.9217253762584194,
    -0.535669373161111,
    -0.45772582566733916,
    0.36159505490948474,
    0.2201951234700494,
    1.3040000451301372,
    -1.009618183538736,
    0.9470809631292422,
    -0.20917557487171307,
    -0.7037352358069926,
    -0.15922500991447772,
    -1.2654214710460525,
    0.5408455846858077,
    -0.6232744625373522,
    0.2146591225063409,
    0.0413259793472436,
    0.3553727090399214,
    -2.3250307746388343,
    -0.6538286094183394,
    -0.21879166393254573,
    -0.12961363369276946,
    -1.2459109472530652,
    0.7839754700613295,
    -0.7322673547034516,
    1.4934311452207607,
    -0.5442589828573099,
    -1.2590655321041202,
    -0.31630015636915454,
    1.5139237747390626,
    0.4116305363741328,
    1.3458754237823045,
    1.0425133694426776,
    0.7813114007004275,
    -0.12853466294403426,
    0.2644556303293035,
    1.3664634705496859,
    -0.3139228145364278,
    -0.6651946734866135,
    1.4580206835369587,
    0.3515100700930197,
    1.9602583164499647,
];
const B: &[f64] = &[
    1.801634869866125,
    0.42986369482223,
    1.31510376473437,
    0.6960427239628685,
    0.357380410658956,
    -1.184117966757189,
    -1.2083186322821715,
    -0.6617025720390349,
    -0.004454133120083229,
    -0.43643524714322124,
    0.6564749350763358,
    -1.169801907772864,
    -1.2883614637495544,
    1.739367877130134,
    0.39512206018200824,
    -0.4959107284421519,
];
const AB: &[f64] = &[
    1.0429893167890358,
    2.9655801121617733,
    -1.1066431870054019,
    -0.40398342325821257,
    -1.6811474072375299,
    -0.05219605591908938,
    -0.7316122040646615,
    -4.220668240908343,
    -1.5861464789710908,
    0.9874157590474355,
    1.106760341062287,
    0.47453923374287066,
    -5.44596616086902,
    -4.622146903834424,
    -1.8734994755883343,
    0.7485724328861088,
    -0.8762725249557239,
    -0.9656921617671754,
    4.188578497387642,
    -3.460907903615282,
    -3.451814665680574,
    -2.939339476757641,
    0.16795861776202337,
    2.0689710921946776,
];
const ASUM1: &[f64] = &[
    -1.1136743878747102,
    0.28651934606999174,
    -1.0359312794278697,
    0.8550530059167316,
    1.3211482330360669,
    -1.5384583103862033,
    1.0933070596295253,
    -0.775528242090211,
    -2.9978244204401783,
    -1.648438511193156,
    0.8313716502479855,
    1.0703873265098651,
    -1.499475084365546,
    3.587871577380593,
    0.6617560848322457,
    4.235000862371153,
];
const AMEAN: &[f64] = &[
    -0.4728815768911855,
    0.10327777824642957,
    0.33382393207476235,
    0.11571507581374196,
    -0.203357623228887,
    0.5400580277621739,
];
const AH: &[f64] = &[
    0.1257302210933933,
    -0.9034701816518086,
    -0.535669373161111,
    0.45772582566733916,
    -0.7037352358069926,
    0.15922500991447772,
    -0.1321048632913019,
    -0.09401229776087457,
    0.36159505490948474,
    -0.2201951234700494,
    -1.2654214710460525,
    -0.5408455846858077,
    0.6404226504432821,
    0.7434992493538084,
    1.3040000451301372,
    1.009618183538736,
    -0.6232744625373522,
    -0.2146591225063409,
    0.10490011715303971,
    0.9217253762584194,
    0.9470809631292422,
    0.20917557487171307,
    0.0413259793472436,
    -0.3553727090399214,
    -2.3250307746388343,
    0.6538286094183394,
    -0.5442589828573099,
    1.2590655321041202,
    -0.12853466294403426,
    -0.2644556303293035,
    -0.21879166393254573,
    0.12961363369276946,
    -0.31630015636915454,
    -1.5139237747390626,
    1.3664634705496859,
    0.3139228145364278,
    -1.2459109472530652,
    -0.7839754700613295,
    0.4116305363741328,
    -1.3458754237823045,
    -0.6651946734866135,
    -1.4580206835369587,
    -0.7322673547034516,
    -1.4934311452207607,
    1.0425133694426776,
    -0.7813114007004275,
    0.3515100700930197,
    -1.9602583164499647,
];
const SA: &[f64] = &[
    0.345584192064786,
    -0.7819084623568421,
    0.8216181435011584,
    -0.2571922406188707,
    0.33043707618338714,
    0.008142180518343508,
    -1.303157231604361,
    -0.2756029052993704,
    0.9053558666731177,
    1.2940638143982073,
    0.4463745723640113,
    1.0067243153057943,
    -0.5369532353602852,
    -2.7111624789659685,
    0.5811181041963531,
    -1.8890132459676727,
    0.36457239618607573,
    -0.17477209205516195,
    0.294132496655526,
    -0.42219041157635356,
    0.02842224131579679,
    0.2136429974986111,
    0.5467129866124469,
    0.21732193102256359,
    -0.7364540870016669,
    2.1178387550510482,
    -0.16290994799305278,
    -1.1120207626922813,
    -0.48211931267997826,
    -0.37760500712699807,
    0.5988462126346276,
    2.0427716074923303,
    0.03972210748165899,
    0.6467029962018469,
    -0.2924567509650886,
    0.6630633723762617,
];
const SB: &[f64] = &[
    -0.5140063716874629,
    0.10901408782154753,
    -1.6480751708556527,
    -1.2273520542445742,
    0.16746474422274113,
    -0.6832266617805622,
];
const SBM: &[f64] = &[
    -0.07204367972722743,
    0.5937480717858228,
    -0.9447516230607774,
    0.8911669542823284,
    -0.09826996785221727,
    0.3208483045665637,
    0.09548302746945433,
    -0.818230227390307,
    0.03558623705548571,
    0.7316522837854408,
    -0.5062916583143148,
    -0.5014400184670523,
];
const SOLVE_V: &[f64] = &[
    0.29428386196914885,
    -0.5482920599405536,
    0.5127608985764283,
    1.5707509244002198,
    -3.1085269916504488,
    -1.8302151643953213,
    -0.22395925796416388,
    0.5032261300803219,
    1.0844294055054937,
    -1.295890425601072,
    -1.7356063452151846,
    0.0892281027918792,
];
const SOLVE_M: &[f64] = &[
    -0.774667255434567,
    -0.04163577926572362,
    -1.7982238206946766,
    -1.5682545348901515,
    1.1410131632053728,
    -0.27963751482387467,
    4.655175316689541,
    2.2375241227129377,
    -1.8884117996949068,
    1.6372516068942513,
    -10.623297987766117,
    -1.5964737785618217,
    0.5276435054185159,
    -0.18981243305274903,
    0.2399799090613351,
    0.11520818295235762,
    0.2382693919976553,
    -0.5254283019344997,
    0.835421108366802,
    -0.7447201911349595,
    0.10477616937659207,
    1.4881724573518857,
    -1.4662950286784135,
    2.0484981006445966,
];
const INV: &[f64] = &[
    -0.16048497443052437,
    1.707073884852846,
    -0.36864109331948464,
    -0.1193465278825871,
    0.39627108344903933,
    -0.1896014962814242,
    -0.4327962128995775,
    -3.5468170412108804,
    0.5676044885447611,
    0.10378090835781303,
    -0.6738945336583482,
    1.2068917070977339,
    3.1452170446885113,
    6.239572734989805,
    -0.8375371343819575,
    -0.543113223311669,
    0.7111460006235442,
    -2.406944958176385,
    -0.37596032541047214,
    -0.2967929731328852,
    -0.04453354836376612,
    -0.24573056736739327,
    0.018952443537173416,
    -0.3286324631540736,
    -1.0136848591504815,
    0.16817558231544105,
    -0.13108746282061876,
    0.5861878424812091,
    0.28585308431516543,
    -0.5878703872767492,
    2.1425033940317997,
    -0.5949312057299226,
    0.42895490490327076,
    -0.05194764822280954,
    0.03699581980302385,
    0.09559148825719412,
];

#[test]
fn sort_complex_and_real_tests_match_numpy() {
    on_every_device!("sort_complex", |dev| {
        let n = f64::NAN;
        let t = |v: &[f64]| Tensor::<f64, _>::from_vec_on(v.to_vec(), [2, 6], &dev).unwrap();
        let re = t(&[1.0, n, 1.0, -3.0, 1.0, -3.0, 0.0, 2.0, 2.0, n, -1.0, 0.0]);
        let im = t(&[2.0, 0.0, -1.0, n, n, 5.0, 0.0, 2.0, 1.0, n, 0.0, -1.0]);
        let z = ComplexTensor::new(&re, &im).unwrap();
        let s = z.try_sort_complex().unwrap();
        // np.sort_complex: R + Ri, then R + NaN·i, NaN + Ri, NaN + NaN·i.
        let want_re = [-3.0, 1.0, 1.0, -3.0, 1.0, n, -1.0, 0.0, 0.0, 2.0, 2.0, n];
        let want_im = [5.0, -1.0, 2.0, n, n, 0.0, 0.0, -1.0, 0.0, 1.0, 2.0, n];
        assert_close(&host_f64s(&s.real()), &want_re, 0.0);
        assert_close(&host_f64s(&s.imag()), &want_im, 0.0);
        assert_eq!(
            host_f64s(&z.isreal().unwrap().try_cast::<f64>().unwrap()),
            [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
        );
        assert_eq!(
            host_f64s(&z.iscomplex().unwrap().try_cast::<f64>().unwrap())[..4],
            [1.0, 0.0, 1.0, 1.0]
        );
        // np.real_if_close: within 100 epsilons by default, else unchanged.
        let close = ComplexTensor::new(&t(&[1.0; 12]), &t(&[1e-15; 12])).unwrap();
        assert_eq!(
            host_f64s(&close.try_real_if_close(100.0).unwrap().unwrap()),
            vec![1.0; 12]
        );
        assert!(close.try_real_if_close(1.0).unwrap().is_some()); // 1e-15 < 1, absolute
        let far = ComplexTensor::new(&t(&[1.0; 12]), &t(&[1e-10; 12])).unwrap();
        assert!(far.try_real_if_close(100.0).unwrap().is_none());
        assert!(far.try_real_if_close(-1.0).is_err());
        // Sorting is a gather: gradients reach both parts, once each.
        let leaf = re.with_requires_grad(true).unwrap();
        let w = Tensor::<f64, _>::arange_on(0.0, 12.0, 1.0, &dev)
            .unwrap()
            .try_reshape([2, 6])
            .unwrap();
        let zz = ComplexTensor::new(&leaf, &im.nan_to_num(0.0, None, None)).unwrap();
        zz.try_sort_complex()
            .unwrap()
            .real()
            .mul(&w)
            .sum(&[], false)
            .backward();
        let g = host_f64s(&leaf.grad_tensor().unwrap());
        let mut sorted = g.clone();
        sorted.sort_by(f64::total_cmp);
        assert_eq!(sorted, (0..12).map(f64::from).collect::<Vec<_>>());
    });
}

/// PyTorch's names `view_as_complex`, `view_as_real` and `complex`: the same tensors as
/// `from_pairs`, `pairs` and `new`, sharing storage where PyTorch's views do.
#[test]
fn torch_complex_names() {
    let pairs = tensor![[1.0f64, 2.0], [3.0, -4.0]];
    let z = ComplexTensor::view_as_complex(&pairs).unwrap();
    assert_eq!(z.dims(), &[2]);
    assert!(z.view_as_real().shares_memory(&pairs));
    let w = ComplexTensor::complex(&tensor![1.0f64, 3.0], &tensor![2.0f64, -4.0]).unwrap();
    assert_eq!(w.view_as_real().to_vec(), pairs.to_vec());
    assert!(ComplexTensor::view_as_complex(&tensor![1.0f64, 2.0, 3.0]).is_err());
}
