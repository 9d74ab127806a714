//! `nn::conv_same` (PyTorch's `padding="same"` and `padding_mode`) and
//! `nn::multi_head_attention` and the `torch.nn.utils` helpers against PyTorch 2.15.

use crate::common::{assert_close, host_f64s};
use typed_tensor::nn::{self, Conv3dOptions};
use typed_tensor::prelude::*;

/// `padding="same"` (an even kernel, a dilation, groups) and `padding_mode="reflect"` against
/// PyTorch 2.15's `F.conv2d`/`nn.Conv2d`, values and gradients, on every device; 1-d and 3-d
/// against the explicitly padded convolution; the refusals.
#[test]
fn conv_same_matches_pytorch() {
    use typed_tensor::ops::pad::PadMode;
    on_every_device!("conv_same", |dev| {
        let xv: Vec<f64> = (0..20).map(|i| (i as f64).sin()).collect();
        let x = Tensor::<f64, _>::from_vec_on(xv, [1, 2, 2, 5], &dev).unwrap();
        let x = x.with_requires_grad(true).unwrap();
        let wv = vec![1.0, 2.0, 0.5, -1.0, 2.0, 0.0, 1.0, 1.0];
        let w = Tensor::<f64, _>::from_vec_on(wv, [2, 1, 2, 2], &dev).unwrap();
        let w = w.with_requires_grad(true).unwrap();
        let y = nn::conv_same(&x, &w, None, &[1, 2], 2, None).unwrap();
        assert_eq!(y.dims(), [1, 2, 2, 5]);
        let want = [
            1.9623574678147189,
            0.6821461176010051,
            -0.00535499479521373,
            -0.6879327496725367,
            0.6357991313715581,
            -0.5588309963978517,
            0.35504892277443967,
            1.6993009950478377,
            1.4812235692023021,
            0.9893582466233818,
            -0.2879033166650653,
            -1.3991518735011796,
            -3.0388709765381483,
            -1.8846661182174742,
            0.08934682688160578,
            0.0,
            1.3005756803142337,
            -0.5758066333301306,
            -1.9227949837591136,
            -1.501974493543352,
        ];
        assert_close(&y.try_to_vec().unwrap(), &want, 1e-14);
        let cw: Vec<f64> = (0..20).map(|i| (i as f64).cos()).collect();
        let cw = Tensor::<f64, _>::from_vec_on(cw, [1, 2, 2, 5], &dev).unwrap();
        y.try_mul(&cw)
            .unwrap()
            .try_sum(&[], false)
            .unwrap()
            .try_backward()
            .unwrap();
        let gx = [
            0.5403023058681398,
            1.5838531634528576,
            0.09061211513583411,
            -1.4859372939578968,
            -1.9799849932008908,
            1.230321439584436,
            0.1131532069961858,
            0.7395419853237559,
            0.6859992729172687,
            0.6989924289832183,
            0.00885139597610157,
            1.6877079174649843,
            1.8148935629003924,
            0.2734744364156672,
            0.0,
            -1.9108932626587185,
            -0.5455442464471542,
            2.2325058959264075,
            2.9580004133136644,
            0.9074467814501962,
        ];
        assert_close(&host_f64s(&x.grad_tensor().unwrap()), &gx, 1e-13);
        let gw = [
            -3.4710236914931296,
            3.260744186970042,
            -1.698930630848531,
            -0.7441566366305262,
            -3.1965775269322525,
            3.5351903515309195,
            -1.215175342647706,
            -0.2604013484297014,
        ];
        assert_close(&host_f64s(&w.grad_tensor().unwrap()), &gw, 1e-13);
        let r = nn::conv_same(&x, &w, None, &[1, 2], 2, Some(PadMode::Reflect)).unwrap();
        let want = [
            2.6641207035231522,
            0.6821461176010051,
            -0.00535499479521373,
            -0.6879327496725367,
            -0.07131909913208923,
            -1.258981987000726,
            -0.554248504051242,
            1.9789164793919187,
            2.692674777923071,
            2.8975147358402116,
            -2.5757870464315373,
            -1.3991518735011796,
            -3.0388709765381483,
            -1.8846661182174742,
            -0.6616404198900703,
            -2.5757870464315378,
            0.21998165142442894,
            -1.1556298030541932,
            -1.4687605460646784,
            -0.6616404198900702,
        ];
        assert_close(&r.try_to_vec().unwrap(), &want, 1e-14);

        // 1-d (kernel 4, dilation 3: pads (4, 5)) and 3-d (kernel (1, 2, 3): pads (0, 0),
        // (0, 1), (1, 1)) equal the convolutions of the explicitly padded input, with a bias.
        let x1 =
            Tensor::<f64, _>::from_vec_on((0..14).map(|i| i as f64).collect(), [1, 2, 7], &dev);
        let x1 = x1.unwrap();
        let w1: Vec<f64> = (0..24).map(|i| (i as f64 * 0.7).cos()).collect();
        let w1 = Tensor::<f64, _>::from_vec_on(w1, [3, 2, 4], &dev).unwrap();
        let b = Tensor::<f64, _>::from_vec_on(vec![0.5, -1.0, 2.0], [3], &dev).unwrap();
        let same = nn::conv_same(&x1, &w1, Some(&b), &[3], 1, Some(PadMode::Replicate));
        let padded = x1.try_pad_mode(&[(0, 0), (0, 0), (4, 5)], PadMode::Replicate);
        let opts = nn::Conv2dOptions {
            dilation: (1, 3),
            ..Default::default()
        };
        let want = nn::conv1d(&padded.unwrap(), &w1, Some(&b), opts).unwrap();
        assert_eq!(
            same.unwrap().try_to_vec().unwrap(),
            want.try_to_vec().unwrap()
        );
        let x3: Vec<f64> = (0..2 * 3 * 4 * 5).map(|i| (i as f64 * 0.3).sin()).collect();
        let x3 = Tensor::<f64, _>::from_vec_on(x3, [1, 2, 3, 4, 5], &dev).unwrap();
        let w3: Vec<f64> = (0..2 * 2 * 6).map(|i| (i as f64 * 0.9).cos()).collect();
        let w3 = Tensor::<f64, _>::from_vec_on(w3, [2, 2, 1, 2, 3], &dev).unwrap();
        let same = nn::conv_same(&x3, &w3, None, &[1], 1, None).unwrap();
        assert_eq!(same.dims(), [1, 2, 3, 4, 5]);
        let padded = x3
            .try_pad(&[(0, 0), (0, 0), (0, 0), (0, 1), (1, 1)], 0.0)
            .unwrap();
        let want = nn::conv3d(&padded, &w3, None, Conv3dOptions::default()).unwrap();
        assert_eq!(same.try_to_vec().unwrap(), want.try_to_vec().unwrap());

        // Refusals: rank, dilation count, zero dilation, overflowing padding.
        let bad = |r: Result<Tensor<f64, _>>| match r {
            Err(Error::InvalidArgument { op, .. }) => assert_eq!(op, "conv_same"),
            other => panic!("expected InvalidArgument, got {other:?}"),
        };
        bad(nn::conv_same(&x1, &w3, None, &[1], 1, None));
        bad(nn::conv_same(&x3, &w3, None, &[1, 1], 1, None));
        bad(nn::conv_same(&x1, &w1, None, &[0], 1, None));
        bad(nn::conv_same(&x1, &w1, None, &[usize::MAX], 1, None));
        bad(nn::conv_same(&x1, &w1, None, &[1], 3, None));
        assert_eq!(
            nn::same_padding(&[3, 2, 1], &[2, 1, 5]).unwrap(),
            [(2, 2), (0, 1), (0, 0)]
        );
    });
}

/// `sin(a·i + 0.3)`, the values of the reference script, as an f64 tensor.
fn vals<D: Backend>(n: usize, a: f64, shape: &[usize], dev: &D) -> Tensor<f64, D> {
    let v = (0..n).map(|i| (a * i as f64 + 0.3).sin()).collect();
    Tensor::from_vec_on(v, shape.to_vec(), dev).unwrap()
}

/// `nn::multi_head_attention` against PyTorch 2.15's `F.multi_head_attention_forward` (values,
/// weights and gradients quoted from `mha_ref.py`): key padding with a bool mask (the negation
/// of PyTorch's), batch-first per-head weights with an additive `(N·H, L, S)` mask, and an
/// unbatched causal call; every device.
#[test]
fn multi_head_attention_matches_pytorch() {
    use typed_tensor::nn::{self, AttnMask, MhaOptions, MhaParams};
    on_every_device!("multi_head_attention", |dev| {
        let (e, h, l, s, n) = (4, 2, 3, 5, 2);
        let w_in = vals(3 * e * e, 0.37, &[3 * e, e], &dev)
            .with_requires_grad(true)
            .unwrap();
        let b_in = vals(3 * e, 1.1, &[3 * e], &dev).mul_scalar(0.1);
        let w_out = vals(e * e, 0.61, &[e, e], &dev);
        let b_out = vals(e, 0.9, &[e], &dev).mul_scalar(0.1);
        let q = vals(l * n * e, 0.23, &[l, n, e], &dev)
            .with_requires_grad(true)
            .unwrap();
        let k = vals(s * n * e, 0.41, &[s, n, e], &dev);
        let v = vals(s * n * e, 0.53, &[s, n, e], &dev);
        let b = |v: &[u8], shape: &[usize]| {
            let v = v.iter().map(|&x| x == 1).collect();
            Tensor::<bool, _>::from_vec_on(v, shape.to_vec(), &dev).unwrap()
        };
        let kp = b(&[0, 0, 0, 1, 1, 0, 1, 0, 0, 0], &[n, s]);
        let allowed = b(&[1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1], &[l, s]);
        let params = MhaParams {
            in_proj_weight: &w_in,
            in_proj_bias: Some(&b_in),
            out_proj_weight: &w_out,
            out_proj_bias: Some(&b_out),
        };
        let opts = MhaOptions {
            num_heads: h,
            ..Default::default()
        };
        let (out, w) = nn::multi_head_attention(
            &q,
            &k,
            &v,
            params,
            Some(&kp),
            Some(AttnMask::Bool(&allowed)),
            opts,
        )
        .unwrap();
        let w = w.unwrap();
        assert_eq!((out.dims(), w.dims()), (&[l, n, e][..], &[n, l, s][..]));
        assert_close(&host_f64s(&out), OUT1, 1e-13);
        assert_close(&host_f64s(&w), W1, 1e-13);
        let loss = out
            .mul(&vals(l * n * e, 0.77, &[l, n, e], &dev))
            .sum(&[], false);
        let loss = loss.add(
            &w.mul(&vals(n * l * s, 0.19, &[n, l, s], &dev))
                .sum(&[], false),
        );
        loss.try_backward().unwrap();
        assert_close(&host_f64s(&q.grad_tensor().unwrap()), GQ1, 1e-12);
        assert_close(&host_f64s(&w_in.grad_tensor().unwrap()), GW1, 1e-12);

        // Batch first, the heads' own weights, an additive (N·H, L, S) mask, no biases.
        let params = MhaParams {
            in_proj_bias: None,
            out_proj_bias: None,
            ..params
        };
        let opts2 = MhaOptions {
            batch_first: true,
            average_attn_weights: false,
            ..opts
        };
        let add = vals(n * h * l * s, 0.29, &[n * h, l, s], &dev);
        let bf = |t: &Tensor<f64, _>| t.detach().transpose(0, 1).unwrap();
        let (out, w) = nn::multi_head_attention(
            &bf(&q),
            &bf(&k),
            &bf(&v),
            params,
            None,
            Some(AttnMask::Additive(&add)),
            opts2,
        )
        .unwrap();
        assert_eq!(
            (out.dims(), w.as_ref().unwrap().dims()),
            (&[n, l, e][..], &[n, h, l, s][..])
        );
        assert_close(&host_f64s(&out), OUT2, 1e-13);
        assert_close(&host_f64s(&w.unwrap()), W2, 1e-13);

        // Unbatched (L, E), causal, a padded key; the weights without N.
        let params = MhaParams {
            in_proj_bias: Some(&b_in),
            out_proj_bias: Some(&b_out),
            ..params
        };
        let first = |t: &Tensor<f64, _>, len: usize| {
            t.detach().select(1, 0).unwrap().narrow(0, 0, len).unwrap()
        };
        let kp3 = b(&[0, 1, 0], &[3]);
        let (out, w) = nn::multi_head_attention(
            &first(&q, 3),
            &first(&k, 3),
            &first(&v, 3),
            params,
            Some(&kp3),
            Some(AttnMask::Causal),
            opts,
        )
        .unwrap();
        assert_eq!(
            (out.dims(), w.as_ref().unwrap().dims()),
            (&[3, e][..], &[3, 3][..])
        );
        assert_close(&host_f64s(&out), OUT3, 1e-13);
        assert_close(&host_f64s(&w.unwrap()), W3, 1e-13);
        // Without the weights, and causal without padding: the fused path, the same output.
        let no_w = MhaOptions {
            need_weights: false,
            ..opts
        };
        let (o1, w) = nn::multi_head_attention(
            &first(&q, 3),
            &first(&k, 3),
            &first(&v, 3),
            params,
            None,
            Some(AttnMask::Causal),
            no_w,
        )
        .unwrap();
        let tri = b(&[1, 0, 0, 1, 1, 0, 1, 1, 1], &[3, 3]);
        let (o2, _) = nn::multi_head_attention(
            &first(&q, 3),
            &first(&k, 3),
            &first(&v, 3),
            params,
            None,
            Some(AttnMask::Bool(&tri)),
            opts,
        )
        .unwrap();
        assert!(w.is_none());
        assert_close(&host_f64s(&o1), &host_f64s(&o2), 1e-14);

        // Refusals: heads not dividing E, S differing, rank, padding and mask shapes, and a
        // projection of another shape.
        let refused = |v: &Tensor<f64, _>, p: MhaParams<'_, f64, _>, kp, mask, o| {
            match nn::multi_head_attention(&q, &k, v, p, kp, mask, o) {
                Err(Error::InvalidArgument { op, .. }) | Err(Error::ShapeMismatch { op, .. }) => {
                    assert_eq!(op, "multi_head_attention")
                }
                other => panic!("expected an error, got {:?}", other.map(|_| ())),
            }
        };
        let three = MhaOptions {
            num_heads: 3,
            ..opts
        };
        refused(&v, params, None, None, three);
        refused(&v.narrow(0, 0, 4).unwrap(), params, None, None, opts);
        refused(&first(&v, 5), params, None, None, opts);
        refused(&v, params, Some(&kp3), None, opts);
        refused(&v, params, None, Some(AttnMask::Bool(&kp)), opts);
        let short = MhaParams {
            in_proj_weight: &w_out,
            ..params
        };
        refused(&v, short, None, None, opts);
    });
}

const OUT1: &[f64] = &[
    -0.34604161114593,
    2.8506569955044165,
    -3.750454605115812,
    3.1178338854428698,
    0.5766209696004082,
    -1.0036561771249992,
    1.2148488037837757,
    -0.6130013952199184,
    0.2361546625159536,
    0.15809162039916258,
    -0.21940614659042235,
    0.4162622767581531,
    -0.04482361021155257,
    0.35202213389286385,
    -0.23468202256939197,
    0.24566765586003514,
    -0.651303422299705,
    -1.1345466441543033,
    2.6427254527319732,
    -2.6633787105076205,
    0.12164198147266196,
    0.2584927338281607,
    -0.25826925903233805,
    0.37522963549554117,
];

const W1: &[f64] = &[
    0.9998560572626338,
    0.00014394273736603464,
    0.0,
    0.0,
    0.0,
    0.33386297096082673,
    2.6184811193769128e-05,
    0.6661108442279796,
    0.0,
    0.0,
    0.0,
    0.9999993047450058,
    6.952549942811828e-07,
    0.0,
    0.0,
    0.983226936603387,
    0.0,
    0.0,
    0.006641683474206723,
    0.01013137992240632,
    0.13997389509293767,
    0.0,
    0.22624950520761455,
    0.26228522973255763,
    0.37149136996689025,
    0.0,
    0.0,
    0.050429027533658605,
    0.5773046318774172,
    0.3722663405889242,
];

const GQ1: &[f64] = &[
    5.715224516849713e-05,
    6.02048516762775e-05,
    5.5109013943400535e-05,
    4.255442970135557e-05,
    0.017793841854953182,
    0.017518899872413417,
    0.014872856977017013,
    0.0102138426615075,
    -0.023024430465150177,
    -0.020888901921490365,
    -0.015926158497025635,
    -0.008807884232975438,
    0.06030362501015542,
    0.07320351549163803,
    0.07619565356454282,
    0.06887506737745631,
    -3.91679656944545e-08,
    -4.08475708560472e-08,
    -3.6998648926891365e-08,
    -2.8142133433989104e-08,
    -0.04950258351085516,
    -0.021656641193945454,
    0.009120425912668218,
    0.03866308615785436,
];

const GW1: &[f64] = &[
    -0.03930575112730942,
    -0.04646878931151963,
    -0.05118444601111379,
    -0.0532043607444572,
    0.045216156711476864,
    0.040307417303456966,
    0.033275798684191546,
    0.024491636588065826,
    0.011558727737967388,
    0.012130203110369131,
    0.012062814528344805,
    0.01136011116049477,
    -0.01964002446769167,
    -0.01371241629108252,
    -0.0070626134062109075,
    -4.084237800150003e-05,
    0.14754945827036114,
    0.057656006679913024,
    -0.04179440969715785,
    -0.13431705350109668,
    0.1371436216371289,
    0.0575061190092466,
    -0.03166350327162897,
    -0.11558463535671205,
    -0.02806689583012398,
    -0.011163037781077648,
    0.007591187040294358,
    0.02508710919017673,
    -0.04630847630999845,
    -0.02238848735333045,
    0.0052425804237872355,
    0.03200464669722246,
    -0.14195092243010193,
    -0.0712343149753972,
    0.019027981182005035,
    0.10406926837830899,
    -0.10472487702169438,
    -0.038279158447994566,
    0.038669819897124875,
    0.10500834649353824,
    -0.02981264949734612,
    0.007962776021377271,
    0.043553328401685416,
    0.06719346335747385,
    0.0558835118823714,
    0.05330309306100155,
    0.03609705926430561,
    0.008986502855064832,
];

const OUT2: &[f64] = &[
    -0.21956000350230453,
    -0.5541867922161758,
    1.0661525968731675,
    -1.0745003302366698,
    0.6573908490105536,
    -1.0320159143884124,
    0.9191480393815746,
    -0.3721025764908436,
    -0.5764192436548319,
    1.143816976910291,
    -1.1709103470626125,
    0.6449012698028826,
    0.61277876657734,
    -1.2517835843868357,
    1.2994838963548019,
    -0.733347525395278,
    0.11965867579687983,
    0.8871894117861701,
    -1.474956195486309,
    1.3659985172363118,
    -0.32212170025551234,
    2.2250933474860983,
    -3.076998549448496,
    2.475423190193948,
];

const W2: &[f64] = &[
    0.12705505700303804,
    2.8489496718254393e-05,
    0.3498824986974659,
    2.8564191371486003e-05,
    0.5230053906114065,
    0.26698963343815807,
    2.1790778005810976e-05,
    0.40516500885160794,
    9.055195593188263e-06,
    0.327814511736635,
    7.408726018002168e-07,
    0.4600313343318509,
    1.7646299555135068e-07,
    0.539967658266809,
    9.006574262123617e-08,
    0.15762992990351277,
    2.9567655044407964e-05,
    0.3023675087433148,
    2.7712766335655556e-05,
    0.5399452809317924,
    0.08823932716747866,
    1.2079876091471632e-05,
    0.30006554391042706,
    1.2831590231926527e-05,
    0.6116702174557709,
    5.175911634453653e-07,
    0.39165211080956874,
    2.1838623272871637e-07,
    0.6083470353615855,
    1.1785144959421667e-07,
    0.9340212110541948,
    0.0005067004389790662,
    0.05923157682923366,
    0.0028378705222404355,
    0.0034026411553520356,
    0.09272154729078828,
    0.3106629151818371,
    0.13444739551787843,
    0.18620231082403813,
    0.275965831185458,
    0.0007872382948250391,
    0.6991402267812933,
    0.009110443057368666,
    0.1664104116013608,
    0.12455168026515226,
    0.8493051934256162,
    0.0008954348750395545,
    0.12801989773680483,
    0.00963298068570189,
    0.012146493276837365,
    0.1426696843940146,
    0.4192181862739686,
    0.1499771441888846,
    0.14347237818975378,
    0.14466260695337826,
    0.001849287546376666,
    0.8412378581948738,
    0.008332559323137827,
    0.09102295692235692,
    0.05755733801325467,
];

const OUT3: &[f64] = &[
    -0.3462330013373127,
    2.8513922689146556,
    -3.7513864409412765,
    3.118522112771291,
    -0.3462330013373127,
    2.8513922689146556,
    -3.7513864409412765,
    3.118522112771291,
    -0.0674790137087354,
    1.6370592475280803,
    -2.175088384329653,
    1.9248542968666453,
];

const W3: &[f64] = &[
    1.0,
    0.0,
    0.0,
    1.0,
    0.0,
    0.0,
    0.7023988130966785,
    0.0,
    0.2976011869033214,
];

/// `pad_sequence`, `unpad_sequence`, `parameters_to_vector`, `vector_to_parameters` and
/// `weight_norm` against PyTorch 2.15's `torch.nn.utils` (values quoted), on every device.
#[test]
fn nn_utils_match_pytorch() {
    on_every_device!("nn_utils", |dev| {
        let f = |v: Vec<f64>, s: &[usize]| Tensor::<f64, _>::from_vec_on(v, s, &dev).unwrap();
        let a = f((0..6).map(f64::from).collect(), &[3, 2])
            .with_requires_grad(true)
            .unwrap();
        let b = f(vec![10.0, 11.0], &[1, 2]);
        let c = f(vec![20.0, 21.0, 22.0, 23.0], &[2, 2]);
        let p = nn::pad_sequence(&[&a, &b, &c], false, 0.0, false).unwrap();
        assert_eq!(p.dims(), [3, 3, 2]);
        let want = [
            0., 1., 10., 11., 20., 21., 2., 3., 0., 0., 22., 23., 4., 5., 0., 0., 0., 0.,
        ];
        assert_eq!(host_f64s(&p), want);
        let left = nn::pad_sequence(&[&a, &b, &c], true, -1.0, true).unwrap();
        let want = [
            0., 1., 2., 3., 4., 5., -1., -1., -1., -1., 10., 11., -1., -1., 20., 21., 22., 23.,
        ];
        assert_eq!(host_f64s(&left), want);
        p.try_sum(&[], false).unwrap().try_backward().unwrap();
        assert_eq!(host_f64s(&a.grad_tensor().unwrap()), [1.0; 6]);
        let back = nn::unpad_sequence(&p, &[3, 1, 2], false).unwrap();
        assert_eq!(host_f64s(&back[2]), host_f64s(&c));
        assert_eq!(back[1].dims(), [1, 2]);
        let none: Vec<_> = [&a].into_iter().take(0).collect();
        assert!(nn::pad_sequence(&none, false, 0.0, false).is_err());
        assert!(nn::pad_sequence(&[&a, &f(vec![1.0; 3], &[1, 3])], false, 0.0, false).is_err());
        assert!(nn::unpad_sequence(&p, &[4, 1, 1], false).is_err());
        assert!(nn::unpad_sequence(&p, &[1, 1], false).is_err());

        // parameters_to_vector and back.
        let v = nn::parameters_to_vector(&[&a, &b]).unwrap();
        assert_eq!(host_f64s(&v), [0., 1., 2., 3., 4., 5., 10., 11.]);
        let (mut x, mut y) = (f(vec![0.0; 4], &[2, 2]), f(vec![0.0; 4], &[4]));
        let new = f((1..=8).map(f64::from).collect(), &[8]);
        nn::vector_to_parameters(&new, &mut [&mut x, &mut y]).unwrap();
        assert_eq!(
            (host_f64s(&x), host_f64s(&y)),
            (vec![1., 2., 3., 4.], vec![5., 6., 7., 8.])
        );
        assert!(
            nn::vector_to_parameters(&new.narrow(0, 0, 7).unwrap(), &mut [&mut x, &mut y]).is_err()
        );
        assert_eq!(host_f64s(&x), [1., 2., 3., 4.], "nothing written on error");

        // weight_norm over axis 0, axis 1 and the whole tensor (PyTorch's dim=-1).
        let v = f(vec![1., 2., 2., 3., 0., 4.], &[2, 3]);
        let w0 = nn::weight_norm(&v, &f(vec![2., 10.], &[2, 1]), Some(0)).unwrap();
        crate::common::assert_close(
            &host_f64s(&w0),
            &[2. / 3., 4. / 3., 4. / 3., 6., 0., 8.],
            1e-15,
        );
        let w1 = nn::weight_norm(&v, &f(vec![1., 2., 3.], &[1, 3]), Some(1)).unwrap();
        let want = [
            0.31622776601683794,
            2.0,
            1.3416407864998738,
            0.9486832980505138,
            0.0,
            2.6832815729997477,
        ];
        crate::common::assert_close(&host_f64s(&w1), &want, 1e-15);
        let wall = nn::weight_norm(&v, &f(vec![3.], &[]), None).unwrap();
        let n = 34f64.sqrt();
        crate::common::assert_close(
            &host_f64s(&wall),
            &[3. / n, 6. / n, 6. / n, 9. / n, 0.0, 12. / n],
            1e-15,
        );
    });
}

/// `local_response_norm` with a window wider than 64 channels (the running-sum path) against
/// the definition, its gradient by `gradcheck`, and an empty input with 2^40 channels (the
/// fuzzer's seed 1227 looped over them).
#[test]
fn local_response_norm_wide_windows() {
    let (n, c, s) = (2, 100, 3);
    let v: Vec<f64> = (0..n * c * s).map(|i| (i as f64 * 0.37).sin()).collect();
    let x = Tensor::<f64>::from_vec(v.clone(), [n, c, s]).unwrap();
    let (size, alpha, beta, k) = (150, 0.3, 0.75, 1.5);
    let got = nn::local_response_norm(&x, size, alpha, beta, k)
        .unwrap()
        .to_vec();
    for b in 0..n {
        for i in 0..c {
            for t in 0..s {
                let lo = i.saturating_sub(size / 2);
                let hi = (i + (size - 1) / 2).min(c - 1);
                let sum: f64 = (lo..=hi).map(|j| v[(b * c + j) * s + t].powi(2)).sum();
                let want = v[(b * c + i) * s + t] / (k + alpha / size as f64 * sum).powf(beta);
                let g = got[(b * c + i) * s + t];
                assert!(
                    (g - want).abs() <= 1e-13 * want.abs().max(1.0),
                    "{b} {i} {t}: {g} vs {want}"
                );
            }
        }
    }
    let small = Tensor::<f64>::from_vec(v[..2 * 40 * 2].to_vec(), [2, 40, 2]).unwrap();
    crate::common::check_grad(
        "local_response_norm, wide",
        &|x| nn::local_response_norm(&x[0], 100, 0.3, 0.75, 1.5),
        &[small],
    );
    let empty = Tensor::<f32>::from_vec(vec![], [2, 1 << 40, 0, 2]).unwrap();
    assert_eq!(
        nn::local_response_norm(&empty, 1 << 40, 0.0, -1.25, f64::NAN)
            .unwrap()
            .dims(),
        empty.dims()
    );
}

/// `linear_cross_entropy` against PyTorch 2.15's `F.linear_cross_entropy` with a
/// `(C, out, in)` weight, a bias, label smoothing and an ignored target: the loss and every
/// gradient; on every device; the refusals.
#[test]
fn linear_cross_entropy_matches_pytorch() {
    use typed_tensor::nn::{ClassLossOptions, linear_cross_entropy};
    on_every_device!("linear_cross_entropy", |dev| {
        let f = |v: Vec<f64>, s: &[usize]| {
            let t = Tensor::<f64, _>::from_vec_on(v, s, &dev).unwrap();
            t.with_requires_grad(true).unwrap()
        };
        let x = f(
            vec![
                0.5, -1.0, 2.0, 1.5, 0.25, -0.5, 0.0, 1.0, 1.0, -2.0, 0.5, 0.75,
            ],
            &[4, 3],
        );
        let w = f(
            vec![
                0.1, 0.2, -0.3, 0.4, -0.5, 0.6, -0.7, 0.8, 0.9, 1.0, -1.1, 0.2, 0.3, 0.3, -0.3,
                0.0, 0.5, -0.5,
            ],
            &[3, 2, 3],
        );
        let b = f(vec![0.1, -0.1, 0.2, 0.0, -0.3, 0.3], &[3, 2]);
        let t = Tensor::<i64, _>::from_vec_on(vec![2, 0, 1, -100, 0, 1, 2, 2], [4, 2], &dev);
        let opts = ClassLossOptions {
            label_smoothing: 0.1,
            ..Default::default()
        };
        let l = linear_cross_entropy(&x, &w, &t.unwrap(), Some(&b), opts).unwrap();
        assert_close(&[l.try_to_vec().unwrap()[0]], &[1.8975368888217345], 1e-14);
        l.try_backward().unwrap();
        let gx = [
            -0.059109737656050966,
            0.0029395693574235707,
            0.09213781053714902,
            0.10676571302119477,
            -0.06578166368368457,
            -0.14299742423313835,
            -0.17874333783591284,
            0.19848405806796723,
            0.10348803662437955,
            -0.11131625289309996,
            0.024279022061306783,
            0.19327172222435668,
        ];
        let gw = [
            0.09720177108080622,
            -0.11808651130135256,
            -0.1085767320508443,
            -0.10546673493798973,
            0.1350611143727661,
            -0.06745856724871785,
            -0.3838708133552549,
            0.04317838831443403,
            0.46232417402341425,
            0.03098244132606889,
            -0.1830636580660561,
            0.033759395184295424,
            0.28666904227444867,
            0.07490812298691858,
            -0.35374744197256996,
            0.07448429361192087,
            0.04800254369328996,
            0.03369917206442248,
        ];
        let gb = [
            -0.033417623773200636,
            0.011756312421204146,
            0.2161162984475347,
            -0.037673366639456085,
            -0.18269867467433398,
            0.02591705421825198,
        ];
        assert_close(&x.grad_tensor().unwrap().try_to_vec().unwrap(), &gx, 1e-13);
        assert_close(&w.grad_tensor().unwrap().try_to_vec().unwrap(), &gw, 1e-13);
        assert_close(&b.grad_tensor().unwrap().try_to_vec().unwrap(), &gb, 1e-13);
        // Refusals: a 1-d weight, a bias of the wrong shape, an input of the wrong width.
        let t1 = Tensor::<i64, _>::zeros_on([4], &dev).unwrap();
        let w1 = w.narrow(1, 0, 1).unwrap().squeeze_dims(&[1]).unwrap(); // (3, 3)
        let d = ClassLossOptions::default();
        let flat = w1.try_flatten().unwrap();
        let e = linear_cross_entropy(&x, &flat, &t1, None, d)
            .unwrap_err()
            .to_string();
        assert!(e.contains("linear_cross_entropy"), "{e}");
        let e = linear_cross_entropy(&x, &w1, &t1, Some(&b), d)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("linear_cross_entropy") && e.contains("bias"),
            "{e}"
        );
        assert!(linear_cross_entropy(&x.t(), &w1, &t1, None, d).is_err());
        assert!(linear_cross_entropy(&x, &w1, &t1, None, d).is_ok());
    });
}

/// `fractional_max_pool2d` against PyTorch 2.15 with fixed samples
/// (`tests/data/torch_grads/fractional.npz`, made by `make/fractional.py`): values, indices
/// (NaN windows included) and the gradient in f64; an `output_ratio` in f32 (the window starts
/// computed in f32, as PyTorch's); a 3-d input; drawn samples; the refusals; every device.
#[test]
fn fractional_max_pool2d_matches_pytorch() {
    use typed_tensor::nn::{FractionalSize, fractional_max_pool2d};
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/torch_grads");
    let f = typed_tensor::io::load_npz(format!("{dir}/fractional.npz")).unwrap();
    let get = |k: &str| {
        f[k].to_dtype(Dtype::Float64)
            .unwrap()
            .to_vec::<f64>()
            .unwrap()
    };
    let idx = |k: &str| f[k].to_vec::<i64>().unwrap();
    on_every_device!("fractional_max_pool2d", |dev| {
        let t = |k: &str, s: &[usize]| Tensor::<f64, _>::from_vec_on(get(k), s, &dev).unwrap();
        let x = t("x", &[2, 3, 7, 9]).with_requires_grad(true).unwrap();
        let u = t("u", &[2, 3, 2]);
        let size = FractionalSize::Size(4, 5);
        let (y, i) = fractional_max_pool2d(&x, (3, 2), size, Some(&u)).unwrap();
        assert_eq!(i.try_to_vec().unwrap(), idx("i"));
        assert_close(&host_f64s(&y), &get("y"), 0.0);
        let w = t("w", &[2, 3, 4, 5]);
        let y0 = y.try_nan_to_num(0.0, None, None).unwrap();
        y0.try_mul(&w)
            .unwrap()
            .try_sum(&[], false)
            .unwrap()
            .try_backward()
            .unwrap();
        assert_close(&host_f64s(&x.grad_tensor().unwrap()), &get("gx"), 0.0);
        // f32 with a ratio: 7·0.5 → 3 rows, 9·0.7 → 6 columns.
        let (x32, u32) = (
            x.detach().try_cast::<f32>().unwrap(),
            u.try_cast::<f32>().unwrap(),
        );
        let (y32, i32) =
            fractional_max_pool2d(&x32, (2, 3), FractionalSize::Ratio(0.5, 0.7), Some(&u32))
                .unwrap();
        assert_eq!(
            (y32.dims(), i32.try_to_vec().unwrap()),
            (&[2, 3, 3, 6][..], idx("i32"))
        );
        assert_close(&host_f64s(&y32), &get("y32"), 0.0);
        // A 3-d input pools as its batch of one; drawn samples give valid windows.
        let x3 = x32.select(0, 0).unwrap();
        let u3 = u32.narrow(0, 0, 1).unwrap();
        let ratio = FractionalSize::Ratio(0.5, 0.7);
        let (y3, _) = fractional_max_pool2d(&x3, (2, 3), ratio, Some(&u3)).unwrap();
        assert_close(&host_f64s(&y3), &host_f64s(&y32.select(0, 0).unwrap()), 0.0);
        let (yd, id) =
            fractional_max_pool2d(&x32, (2, 2), FractionalSize::Size(6, 8), None).unwrap();
        assert_eq!(yd.dims(), [2, 3, 6, 8]);
        assert!(
            id.try_to_vec()
                .unwrap()
                .iter()
                .all(|&k| (0..63).contains(&k))
        );
        // Refusals.
        let e = |r: Result<(Tensor<f32, _>, Tensor<i64, _>)>| r.unwrap_err().to_string();
        let too_big = e(fractional_max_pool2d(
            &x32,
            (3, 3),
            FractionalSize::Size(6, 2),
            None,
        ));
        assert!(
            too_big.contains("fractional_max_pool2d") && too_big.contains("height"),
            "{too_big}"
        );
        assert!(
            e(fractional_max_pool2d(
                &x32,
                (0, 1),
                FractionalSize::Size(2, 2),
                None
            ))
            .contains("kernel")
        );
        assert!(
            e(fractional_max_pool2d(
                &x32,
                (2, 2),
                FractionalSize::Ratio(1.0, 0.5),
                None
            ))
            .contains("ratio")
        );
        assert!(
            e(fractional_max_pool2d(
                &x32,
                (2, 2),
                FractionalSize::Size(2, 2),
                Some(&u3)
            ))
            .contains("random_samples")
        );
        assert!(
            e(fractional_max_pool2d(
                &x32.select(0, 0).unwrap().select(0, 0).unwrap(),
                (1, 1),
                FractionalSize::Size(1, 1),
                None
            ))
            .contains("(N, C, H, W)")
        );
    });
}

/// `fractional_max_pool3d` against PyTorch 2.15 with fixed samples (`fractional.npz`, made by
/// `make/fractional.py`): values, indices (NaN windows included) and the gradient in f64; an
/// unbatched f32 input with an `output_ratio`; drawn samples; the refusals; every device.
#[test]
fn fractional_max_pool3d_matches_pytorch() {
    use typed_tensor::nn::{FractionalSize3d, fractional_max_pool3d};
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/torch_grads");
    let f = typed_tensor::io::load_npz(format!("{dir}/fractional.npz")).unwrap();
    let get = |k: &str| {
        f[k].to_dtype(Dtype::Float64)
            .unwrap()
            .to_vec::<f64>()
            .unwrap()
    };
    let idx = |k: &str| f[k].to_vec::<i64>().unwrap();
    on_every_device!("fractional_max_pool3d", |dev| {
        let t = |k: &str, s: &[usize]| Tensor::<f64, _>::from_vec_on(get(k), s, &dev).unwrap();
        let x = t("x3", &[2, 2, 5, 6, 7]).with_requires_grad(true).unwrap();
        let u = t("u3", &[2, 2, 3]);
        let size = FractionalSize3d::Size(3, 3, 4);
        let (y, i) = fractional_max_pool3d(&x, (2, 3, 2), size, Some(&u)).unwrap();
        assert_eq!(i.try_to_vec().unwrap(), idx("i3"));
        assert_close(&host_f64s(&y), &get("y3"), 0.0);
        let w = t("w3", &[2, 2, 3, 3, 4]);
        let y0 = y.try_nan_to_num(0.0, None, None).unwrap();
        y0.try_mul(&w)
            .unwrap()
            .try_sum(&[], false)
            .unwrap()
            .try_backward()
            .unwrap();
        assert_close(&host_f64s(&x.grad_tensor().unwrap()), &get("gx3"), 0.0);
        // Unbatched f32 with a ratio: 6·0.5 → 3, 5·0.6 → 3, 8·0.7 → 5.
        let x4 = Tensor::<f32, _>::from_vec_on(
            get("x4").iter().map(|&v| v as f32).collect(),
            [2, 6, 5, 8],
            &dev,
        )
        .unwrap();
        let u4 = t("u4", &[1, 2, 3]).try_cast::<f32>().unwrap();
        let ratio = FractionalSize3d::Ratio(0.5, 0.6, 0.7);
        let (y4, i4) = fractional_max_pool3d(&x4, (2, 2, 3), ratio, Some(&u4)).unwrap();
        assert_eq!(
            (y4.dims(), i4.try_to_vec().unwrap()),
            (&[2, 3, 3, 5][..], idx("i4"))
        );
        assert_close(&host_f64s(&y4), &get("y4"), 0.0);
        let (yd, id) =
            fractional_max_pool3d(&x4, (1, 2, 2), FractionalSize3d::Size(6, 4, 7), None).unwrap();
        assert_eq!(yd.dims(), [2, 6, 4, 7]);
        assert!(
            id.try_to_vec()
                .unwrap()
                .iter()
                .all(|&k| (0..240).contains(&k))
        );
        // Empty batches and refusals.
        let e0 = Tensor::<f32, _>::zeros_on([0, 2, 3, 3, 3], &dev).unwrap();
        let (ye, ie) =
            fractional_max_pool3d(&e0, (2, 2, 2), FractionalSize3d::Size(2, 2, 2), None).unwrap();
        assert_eq!(
            (ye.dims(), ie.dims()),
            (&[0, 2, 2, 2, 2][..], &[0, 2, 2, 2, 2][..])
        );
        let e = |r: Result<(Tensor<f32, _>, Tensor<i64, _>)>| r.unwrap_err().to_string();
        let size = FractionalSize3d::Size(2, 2, 2);
        for (got, want) in [
            (
                e(fractional_max_pool3d(&x4, (2, 6, 1), size, None)),
                "height 6 too large",
            ),
            (
                e(fractional_max_pool3d(&x4, (6, 1, 1), size, None)),
                "time 6 too large",
            ),
            (
                e(fractional_max_pool3d(&x4, (1, 0, 1), size, None)),
                "kernel",
            ),
            (
                e(fractional_max_pool3d(
                    &x4,
                    (1, 1, 1),
                    FractionalSize3d::Ratio(0.5, 0.0, 0.5),
                    None,
                )),
                "ratio",
            ),
            (
                e(fractional_max_pool3d(
                    &x4,
                    (1, 1, 1),
                    size,
                    Some(&u4.narrow(2, 0, 2).unwrap()),
                )),
                "random_samples must be (1, 2, 3)",
            ),
            (
                e(fractional_max_pool3d(
                    &x4.select(0, 0).unwrap(),
                    (1, 1, 1),
                    size,
                    None,
                )),
                "(N, C, T, H, W)",
            ),
        ] {
            assert!(
                got.contains(want) && got.contains("fractional_max_pool3d"),
                "{got} lacks {want}"
            );
        }
    });
}

/// `spectral_norm` against PyTorch 2.15's `parametrizations.spectral_norm` (`make/
/// spectral_norm.py`): a 3-d weight normalized along axis 1 from fixed vectors, two power
/// iterations: the weight, the updated vectors, the gradient; evaluation mode leaves the
/// vectors; a fresh state converges to the largest singular value; the refusals.
#[test]
fn spectral_norm_matches_pytorch() {
    use typed_tensor::nn::{SpectralState, spectral_norm, spectral_state};
    on_every_device!("spectral_norm", |dev| {
        let eye = Tensor::<f64, _>::eye_on(2, &dev).unwrap();
        let w = Tensor::<f64, _>::linspace_on(-1.0, 2.0, 12, &dev)
            .unwrap()
            .try_reshape([3, 2, 2])
            .unwrap()
            .add(&eye);
        let w = w.with_requires_grad(true).unwrap();
        let v: Vec<f64> = (1..7).map(|k| k as f64 / 91f64.sqrt()).collect();
        let mut state = SpectralState {
            u: Tensor::from_vec_on(vec![0.6, 0.8], [2], &dev).unwrap(),
            v: Tensor::from_vec_on(v, [6], &dev).unwrap(),
        };
        let wn = spectral_norm(&w, &mut state, 2, 1, 1e-12, true).unwrap();
        assert_close(&host_f64s(&wn), SN_W, 1e-12);
        assert_close(&host_f64s(&state.u), SN_U, 1e-12);
        assert_close(&host_f64s(&state.v), SN_V, 1e-12);
        let g = Tensor::<f64, _>::linspace_on(0.5, -0.5, 12, &dev)
            .unwrap()
            .try_reshape([3, 2, 2])
            .unwrap();
        wn.mul(&g).sum(&[], false).backward();
        assert_close(&host_f64s(&w.grad_tensor().unwrap()), SN_G, 1e-12);
        // Evaluation mode keeps the vectors.
        let before = host_f64s(&state.u);
        spectral_norm(&w, &mut state, 2, 1, 1e-12, false).unwrap();
        assert_eq!(host_f64s(&state.u), before);
        // From a fresh state, σ is the largest singular value: diag(4, 1) / 4.
        let d = Tensor::<f64, _>::from_vec_on(vec![4.0, 0.0, 0.0, 1.0], [2, 2], &dev).unwrap();
        let mut s = spectral_state(&d, 0, 1e-12).unwrap();
        let dn = spectral_norm(&d, &mut s, 1, 0, 1e-12, true).unwrap();
        assert_close(&host_f64s(&dn), &[1.0, 0.0, 0.0, 0.25], 1e-9);
        // A vector is normalized; the refusals.
        let vec1 = Tensor::<f64, _>::from_vec_on(vec![3.0, 4.0], [2], &dev).unwrap();
        let mut vs = spectral_state(&vec1, 0, 1e-12).unwrap();
        assert_close(
            &host_f64s(&spectral_norm(&vec1, &mut vs, 1, 0, 1e-12, true).unwrap()),
            &[0.6, 0.8],
            1e-15,
        );
        let e = spectral_norm(&w, &mut s, 1, 1, 1e-12, true)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("spectral_norm") && e.contains("(2,)") && e.contains("(6,)"),
            "{e}"
        );
        assert!(spectral_norm(&w, &mut state, 1, 3, 1e-12, true).is_err());
        let zero_d = Tensor::<f64, _>::scalar_on(1.0, &dev).unwrap();
        assert!(spectral_state(&zero_d, 0, 1e-12).is_err());
    });
}

const SN_W: &[f64] = &[
    0.0,
    -0.15285957850963655,
    -0.09553723656852285,
    0.1719670258233411,
    0.22928936776445483,
    0.07642978925481826,
    0.13375213119593202,
    0.40125639358779597,
    0.45857873552890965,
    0.3057191570192731,
    0.36304149896038684,
    0.6305457613522508,
];
const SN_U: &[f64] = &[0.537779438714848, 0.8430855681931361];
const SN_V: &[f64] = &[
    -0.08054606537597515,
    0.06277817934365466,
    0.23607159902601607,
    0.37939584374564594,
    0.5526892634280073,
    0.6960135081476372,
];
const SN_G: &[f64] = &[
    0.09830656472447714,
    0.09127131928067907,
    0.05624005848436117,
    0.056058398287313335,
    0.04854548297072581,
    0.04151023752692774,
    0.021619235504349625,
    0.021437575307301792,
    -0.0012155987830255247,
    -0.008250844226823595,
    -0.013001587475661922,
    -0.013183247672709758,
];

/// Packed sequences against PyTorch 2.15's `nn.utils.rnn`: an unsorted batch (ties kept in
/// order), unpacking with `total_length` and a padding value, batch-first packing and its
/// gradient, `pack_sequence`/`unpack_sequence`, the refusals.
#[test]
fn packed_sequences_match_pytorch() {
    use typed_tensor::nn::{
        pack_padded_sequence, pack_sequence, pad_packed_sequence, unpack_sequence,
    };
    on_every_device!("packed_sequences", |dev| {
        let x = Tensor::<f64, _>::arange_on(1.0, 25.0, 1.0, &dev)
            .unwrap()
            .try_reshape([4, 3, 2])
            .unwrap();
        let p = pack_padded_sequence(&x, &[2, 4, 2], false, false).unwrap();
        assert_eq!(
            host_f64s(&p.data),
            vec![
                3.0, 4.0, 1.0, 2.0, 5.0, 6.0, 9.0, 10.0, 7.0, 8.0, 11.0, 12.0, 15.0, 16.0, 21.0,
                22.0
            ]
        );
        assert_eq!(
            (
                &p.batch_sizes[..],
                p.sorted_indices.as_deref(),
                p.unsorted_indices.as_deref()
            ),
            (
                &[3, 3, 1, 1][..],
                Some(&[1, 0, 2][..]),
                Some(&[1, 0, 2][..])
            )
        );
        let (y, l) = pad_packed_sequence(&p, false, -1.0, Some(5)).unwrap();
        assert_eq!((y.dims(), l), (&[5, 3, 2][..], vec![2, 4, 2]));
        let want: Vec<f64> = vec![
            1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, -1.0, -1.0, 15.0, 16.0,
            -1.0, -1.0, -1.0, -1.0, 21.0, 22.0, -1.0, -1.0,
        ]
        .into_iter()
        .chain([-1.0; 6])
        .collect();
        assert_eq!(host_f64s(&y), want);
        let (yb, _) = pad_packed_sequence(&p, true, 0.0, None).unwrap();
        assert_eq!(yb.dims(), &[3, 4, 2]);
        // Batch first, sorted; the gradient reaches the packed steps only.
        let xb = Tensor::<f64, _>::arange_on(1.0, 25.0, 1.0, &dev)
            .unwrap()
            .try_reshape([3, 4, 2])
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        let p = pack_padded_sequence(&xb, &[4, 3, 1], true, true).unwrap();
        assert_eq!(p.batch_sizes, vec![3, 2, 2, 1]);
        let w = Tensor::<f64, _>::arange_on(0.0, 16.0, 1.0, &dev)
            .unwrap()
            .try_reshape([8, 2])
            .unwrap();
        p.data.mul(&w).sum(&[], false).backward();
        assert_eq!(
            host_f64s(&xb.grad_tensor().unwrap()),
            vec![
                0.0, 1.0, 6.0, 7.0, 10.0, 11.0, 14.0, 15.0, 2.0, 3.0, 8.0, 9.0, 12.0, 13.0, 0.0,
                0.0, 4.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
            ]
        );
        // A list of sequences round-trips.
        let a = Tensor::<f64, _>::from_vec_on(vec![1.0, 2.0], [2, 1], &dev).unwrap();
        let b = Tensor::<f64, _>::from_vec_on(vec![3.0, 4.0, 5.0], [3, 1], &dev).unwrap();
        let p = pack_sequence(&[&a, &b], false).unwrap();
        let back = unpack_sequence(&p).unwrap();
        assert_eq!(
            (host_f64s(&back[0]), host_f64s(&back[1])),
            (vec![1.0, 2.0], vec![3.0, 4.0, 5.0])
        );
        // Refusals.
        let e = |r: Result<typed_tensor::nn::PackedSequence<f64, _>>| r.unwrap_err().to_string();
        assert!(e(pack_padded_sequence(&x, &[2, 4, 2], false, true)).contains("enforce_sorted"));
        assert!(e(pack_padded_sequence(&x, &[2, 0, 2], false, false)).contains("1..=4"));
        assert!(e(pack_padded_sequence(&x, &[2, 5, 2], false, false)).contains("1..=4"));
        assert!(e(pack_padded_sequence(&x, &[2, 2], false, false)).contains("batch of 3"));
        assert!(e(pack_sequence(&[&a, &b], true)).contains("pack_sequence"));
        // An empty input naming 2^60 steps: refused, not allocated.
        let huge = Tensor::<f64, _>::zeros_on([1 << 60, 2, 0], &dev).unwrap();
        assert!(pack_padded_sequence(&huge, &[1 << 60, 1], false, true).is_err());
        let p = pack_padded_sequence(&x, &[4, 2, 2], false, true).unwrap();
        let e = pad_packed_sequence(&p, false, 0.0, Some(usize::MAX))
            .unwrap_err()
            .to_string();
        assert!(e.contains("overflow"), "{e}");
        assert!(
            pad_packed_sequence(&p, false, 0.0, Some(3))
                .unwrap_err()
                .to_string()
                .contains("total_length")
        );
        let mut broken = p.clone();
        broken.batch_sizes = vec![3, 3, 3];
        assert!(pad_packed_sequence(&broken, false, 0.0, None).is_err());
        broken.batch_sizes = p.batch_sizes.clone();
        broken.unsorted_indices = Some(vec![0, 0, 1]);
        assert!(
            pad_packed_sequence(&broken, false, 0.0, None)
                .unwrap_err()
                .to_string()
                .contains("permutation")
        );
    });
}
