//! Higher-order gradients (`autograd::grad_create_graph`, PyTorch's `create_graph=True`) on
//! every device: `gradgradcheck` (the recorded gradients against central differences of the
//! plain ones) over the op families, Hessians against closed forms and PyTorch 2.15, and the
//! factorizations, whose outputs get their nodes back for the pass.

use crate::common::assert_close;
use typed_tensor::autograd::{grad_create_graph, gradgradcheck};
use typed_tensor::nn::{self, Conv2dOptions, Reduction};
use typed_tensor::prelude::*;

type F<D> = Box<dyn Fn(&[Tensor<f64, D>]) -> typed_tensor::Result<Tensor<f64, D>>>;

fn vals(n: usize, seed: u64) -> Vec<f64> {
    // Deterministic values in (-1.2, 1.2), away from the kinks of relu/abs at 0.
    (0..n)
        .map(|i| {
            let t = ((i as u64 * 2654435761 + seed * 97) % 1000) as f64 / 1000.0;
            let v = 2.4 * t - 1.2;
            if v.abs() < 0.05 { v + 0.1 } else { v }
        })
        .collect()
}

#[test]
fn second_derivatives_match_finite_differences() {
    on_every_device!("higher_order", |dev| {
        let t = |dims: &[usize], seed: u64| {
            let n = dims.iter().product();
            Tensor::<f64, _>::from_vec_on(vals(n, seed), dims.to_vec(), &dev).unwrap()
        };
        let pos = |dims: &[usize], seed: u64| {
            t(dims, seed)
                .try_abs()
                .unwrap()
                .try_add_scalar(0.5)
                .unwrap()
        };
        let idx = Tensor::<i64, _>::from_vec_on(vec![2, 0, 2, 1], [4], &dev).unwrap();
        let target = Tensor::<i64, _>::from_vec_on(vec![1, 0, 3], [3], &dev).unwrap();
        let cases: Vec<(&str, F<_>, Vec<Tensor<f64, _>>)> = vec![
            (
                "sin·exp",
                Box::new(|v| v[0].try_sin()?.try_mul(&v[0].try_exp()?)),
                vec![t(&[2, 3], 1)],
            ),
            (
                "tanh sigmoid",
                Box::new(|v| {
                    v[0].try_tanh()?
                        .try_add(&v[0].try_sigmoid()?)?
                        .try_mul(&v[0])
                }),
                vec![t(&[5], 2)],
            ),
            (
                "log sqrt reciprocal",
                Box::new(|v| {
                    v[0].try_log()?
                        .try_add(&v[0].try_sqrt()?)?
                        .try_add(&v[0].try_reciprocal()?)
                }),
                vec![pos(&[4], 3)],
            ),
            (
                "div pow",
                Box::new(|v| v[0].try_div(&v[1])?.try_pow(&v[1])),
                vec![pos(&[3], 4), pos(&[3], 5)],
            ),
            (
                "mul broadcast",
                Box::new(|v| v[0].try_mul(&v[1])?.try_mul(&v[0])),
                vec![t(&[2, 3], 6), t(&[3], 7)],
            ),
            (
                "relu gelu",
                Box::new(|v| v[0].try_relu()?.try_mul(&v[0])?.try_add(&v[0].try_gelu()?)),
                vec![t(&[6], 8)],
            ),
            (
                "matmul",
                Box::new(|v| v[0].try_matmul(&v[1])?.try_tanh()),
                vec![t(&[2, 3], 9), t(&[3, 2], 10)],
            ),
            (
                "sum mean prod",
                Box::new(|v| {
                    v[0].try_sum(&[1], false)?
                        .try_mul(&v[0].try_mean(&[0], false)?.try_sum(&[], false)?)?
                        .try_add(&v[0].try_product(&[1], false)?)
                }),
                vec![t(&[2, 3], 11)],
            ),
            (
                "var std norm",
                Box::new(|v| {
                    v[0].try_var(&[1], 1, false)?
                        .try_add(&v[0].try_std(&[1], 1, false)?)?
                        .try_add(&v[0].try_norm(2.0, &[1], false)?)?
                        .try_add(&v[0].try_norm(3.0, &[1], false)?)
                }),
                vec![t(&[2, 4], 12)],
            ),
            (
                "logsumexp amax",
                Box::new(|v| {
                    v[0].try_logsumexp(&[1], false)?.try_add(
                        &v[0]
                            .try_amax(&[1], false)?
                            .try_mul(&v[0].try_sum(&[1], false)?)?,
                    )
                }),
                vec![t(&[3, 4], 13)],
            ),
            (
                "views",
                Box::new(|v| {
                    let a = v[0].t().try_contiguous()?.narrow(1, 1, 2)?;
                    let b = v[0]
                        .select(1, 0)?
                        .narrow(0, 0, 2)?
                        .unsqueeze(1)?
                        .expand([2usize, 2])?;
                    let c = v[0].permute(&[1, 0])?.narrow(1, 0, 2)?.try_sin()?;
                    a.try_mul(&a)?.try_mul(&b)?.try_add(&c)
                }),
                vec![t(&[3, 2], 14)],
            ),
            (
                "views of a broadcast result",
                Box::new(|v| {
                    let b = v[0]
                        .try_exp()?
                        .expand([3usize, 2, 2])?
                        .narrow(0, 1, 2)?
                        .transpose(1, 2)?;
                    b.try_mul(&b)?.try_mul(&v[0].try_sin()?)
                }),
                vec![t(&[2, 2], 27)],
            ),
            (
                "flip pad concat",
                Box::new(|v| {
                    let p = v[0].flip(&[0])?.try_pad(&[(1, 0), (0, 2)], 0.5)?;
                    Tensor::try_concat(&[&p, &p.try_exp()?], 1)?.try_mul(&p.try_sum(&[], false)?)
                }),
                vec![t(&[2, 2], 15)],
            ),
            (
                "gather index_select where",
                Box::new(move |v| {
                    let g = v[0].try_index_select(0, &idx)?;
                    let c = g.try_gt_scalar(0.0)?;
                    Tensor::try_where(&c, &g.try_mul(&g)?, &g.try_exp()?)?
                        .try_sum(&[0], false)?
                        .try_mul(&v[0].try_sum(&[0], false)?)
                }),
                vec![t(&[3, 2], 16)],
            ),
            (
                "cumsum cumprod",
                Box::new(|v| v[0].try_cumsum(1)?.try_mul(&v[0].try_cumprod(1)?)),
                vec![t(&[2, 4], 17)],
            ),
            (
                "softmax log_softmax",
                Box::new(|v| {
                    v[0].try_softmax(1)?
                        .try_mul(&v[0])?
                        .try_add(&v[0].try_log_softmax(0)?.try_mul(&v[0])?)
                }),
                vec![t(&[3, 4], 18)],
            ),
            (
                "layer_norm",
                Box::new(|v| nn::layer_norm(&v[0], &[4], Some(&v[1]), None, 1e-5)?.try_tanh()),
                vec![t(&[3, 4], 19), t(&[4], 20)],
            ),
            (
                "cross_entropy",
                Box::new(move |v| {
                    nn::cross_entropy(&v[0].try_matmul(&v[1])?, &target, Reduction::Mean, 0.0)
                }),
                vec![t(&[3, 2], 21), t(&[2, 4], 22)],
            ),
            (
                "conv2d",
                Box::new(|v| {
                    let opts = Conv2dOptions {
                        stride: (1, 2),
                        padding: (1, 0),
                        ..Default::default()
                    };
                    nn::conv2d(&v[0], &v[1], None, opts)?.try_tanh()
                }),
                vec![t(&[1, 2, 4, 4], 23), t(&[2, 2, 2, 3], 24)],
            ),
            (
                "svd eigh",
                Box::new(|v| {
                    let (u, s, vh) = v[0].try_svd()?;
                    let sym = v[0]
                        .narrow(0, 0, 2)?
                        .try_matmul(&v[0].narrow(0, 0, 2)?.t())?;
                    let (w, q) = sym.try_eigh()?;
                    let parts = [
                        s.try_exp()?,
                        u.try_mul(&u)?.try_reshape([6])?,
                        vh.try_mul(&vh)?.try_reshape([4])?,
                        w,
                        q.try_mul(&q)?.try_reshape([4])?,
                    ];
                    Tensor::try_concat(&parts.iter().collect::<Vec<_>>(), 0)
                }),
                vec![t(&[3, 2], 28)],
            ),
            (
                "qr lu det slogdet",
                Box::new(|v| {
                    let (q, r) = v[0].try_qr()?;
                    let (_, l, u) = v[0].try_lu()?;
                    let det = v[0].try_det()?.try_reshape([1])?;
                    let logdet = v[0].try_slogdet()?.1.try_reshape([1])?;
                    let parts = [
                        q.try_reshape([9])?,
                        r.try_reshape([9])?,
                        l.try_reshape([9])?,
                        u.try_reshape([9])?,
                        det,
                        logdet,
                    ];
                    Tensor::try_concat(&parts.iter().collect::<Vec<_>>(), 0)?.try_tanh()
                }),
                vec![t(&[3, 3], 29)],
            ),
            (
                "inverse solve cholesky",
                Box::new(|v| {
                    let spd = v[0]
                        .try_matmul(&v[0].t())?
                        .try_add(&Tensor::eye_on(3, v[0].device_handle())?.try_mul_scalar(3.0)?)?;
                    spd.try_inverse()?
                        .try_add(&spd.try_solve(&v[1])?.try_matmul(&v[1].t())?)?
                        .try_add(&spd.try_cholesky(false)?)
                }),
                vec![t(&[3, 3], 25), t(&[3, 2], 26)],
            ),
        ];
        for (name, f, x) in cases {
            if let Err(e) = gradgradcheck(&f, &x, 1e-5, 1e-5) {
                panic!("{name}: {e}");
            }
        }
    });
}

#[test]
fn hessian_of_a_cubic() {
    on_every_device!("higher_order_cubic", |dev| {
        let x = Tensor::<f64, _>::from_vec_on(vec![1.0, 2.0], [2], &dev).unwrap();
        let x = x.with_requires_grad(true).unwrap();
        // f = x0²·x1 + x1³: ∇ = (2 x0 x1, x0² + 3 x1²), H = [[2 x1, 2 x0], [2 x0, 6 x1]].
        let (x0, x1) = (x.select(0, 0).unwrap(), x.select(0, 1).unwrap());
        let f = x0.try_mul(&x0).unwrap().try_mul(&x1).unwrap();
        let f = f
            .try_add(&x1.try_mul(&x1).unwrap().try_mul(&x1).unwrap())
            .unwrap();
        let g = grad_create_graph(&f, None, &[&x])
            .unwrap()
            .remove(0)
            .unwrap();
        assert_eq!(g.try_to_vec().unwrap(), [4.0, 13.0]);
        for (i, want) in [[4.0, 2.0], [2.0, 12.0]].iter().enumerate() {
            let gi = g.select(0, i as i64).unwrap();
            let h = grad_create_graph(&gi, None, &[&x])
                .unwrap()
                .remove(0)
                .unwrap();
            assert_eq!(h.try_to_vec().unwrap(), want);
        }
        // A linear function's gradient has no graph, as in PyTorch.
        let lin = x.try_mul_scalar(3.0).unwrap().try_sum(&[], false).unwrap();
        let gl = grad_create_graph(&lin, None, &[&x])
            .unwrap()
            .remove(0)
            .unwrap();
        assert!(!gl.requires_grad());
        // The leaf's gradient buffer is untouched, and a plain backward still works after.
        assert!(
            x.grad_tensor()
                .unwrap()
                .try_to_vec()
                .unwrap()
                .iter()
                .all(|&v| v == 0.0)
        );
        f.try_backward().unwrap();
        assert_eq!(x.grad_tensor().unwrap().try_to_vec().unwrap(), [4.0, 13.0]);
    });
}

#[test]
fn hessian_hvp_jvp_and_gradient_penalty_match_pytorch() {
    use typed_tensor::autograd::{hessian, hvp, jvp};
    on_every_device!("higher_order_torch", |dev| {
        let t = |dims: &[usize], seed: u64| {
            let n = dims.iter().product();
            Tensor::<f64, _>::from_vec_on(vals(n, seed), dims.to_vec(), &dev).unwrap()
        };
        let x = t(&[3, 2], 1);
        let tgt = Tensor::<i64, _>::from_vec_on(vec![2, 0, 1], [3], &dev).unwrap();
        let params = [t(&[2, 4], 2), t(&[4], 3), t(&[4, 3], 4)];
        let f = |p: &[Tensor<f64, _>]| {
            let h = x.try_matmul(&p[0])?.try_add(&p[1])?.try_tanh()?;
            let h = nn::layer_norm(&h, &[4], None, None, 1e-5)?;
            nn::cross_entropy(&h.try_matmul(&p[2])?, &tgt, Reduction::Mean, 0.0)
        };
        // PyTorch 2.15, torch.autograd.functional (tests/all/higher_order.rs's values).
        let h = hessian(f, &params).unwrap();
        assert_eq!(h[0][0].dims(), [2, 4, 2, 4]);
        assert_eq!(h[1][2].dims(), [4, 4, 3]);
        let h_w1w1 = [
            -0.13359985017319326,
            -0.21799848343632694,
            0.1968529151760282,
            -0.02194688826993041,
            0.05382248922351002,
            0.20614686164497814,
            -0.1722429761113866,
            0.04602892662919199,
            -0.217998483436327,
            0.33868236555928094,
            0.01387963873508347,
            -0.07339777083742877,
            0.20614686164497817,
            -0.29941704449472095,
            -0.01967511263752183,
            0.07669706727351727,
            0.19685291517602818,
            0.013879638735083452,
            -0.1775827358854579,
            -0.21038898412422574,
            -0.17224297611138656,
            -0.019675112637521815,
            0.1619396083136848,
            0.2068632305499279,
            -0.02194688826993045,
            -0.07339777083742878,
            -0.2103889841242258,
            0.5760601259671979,
            0.046028926629192016,
            0.07669706727351729,
            0.20686323054992795,
            -0.6143805364853314,
            0.05382248922350996,
            0.20614686164497814,
            -0.17224297611138661,
            0.04602892662919196,
            0.02477806612553335,
            -0.19705393513461703,
            0.15011300358205618,
            -0.07072734349756729,
            0.20614686164497817,
            -0.2994170444947209,
            -0.01967511263752183,
            0.07669706727351729,
            -0.19705393513461705,
            0.2645068221667857,
            0.02572689628125918,
            -0.08116788262266177,
            -0.1722429761113866,
            -0.01967511263752181,
            0.16193960831368484,
            0.20686323054992783,
            0.15011300358205615,
            0.02572689628125916,
            -0.14926830300506977,
            -0.2057604585564705,
            0.04602892662919199,
            0.07669706727351726,
            0.20686323054992795,
            -0.6143805364853312,
            -0.07072734349756732,
            -0.08116788262266174,
            -0.20576045855647054,
            0.6609968928473067,
        ];
        let h_bw2 = [
            -0.1392170477252073,
            0.528680407558223,
            -0.3894633598330157,
            0.06043199986420983,
            0.1836436572415573,
            -0.24407565710576712,
            0.03336901111590976,
            -0.4516448819370713,
            0.4182758708211616,
            0.04541603674508772,
            -0.2606791828627089,
            0.21526314611762126,
            0.008655351093001348,
            -0.11214006834690084,
            0.1034847172538995,
            -0.08470887845713333,
            -0.018933780864118434,
            0.10364265932125176,
            0.043558522150831995,
            0.11186223448772491,
            -0.15542075663855692,
            0.03249500521330001,
            0.019211614723294385,
            -0.051706619936594395,
            -0.09249623381996915,
            0.04229943438832791,
            0.05019679943164124,
            -0.2274801412188902,
            0.20454105434515646,
            0.022939086873733784,
            0.15611600411193444,
            -0.027383978407511403,
            -0.12873202570442305,
            0.163860370926925,
            -0.21945651032597296,
            0.05559613939904804,
            0.2931614305710428,
            -0.35599465568463495,
            0.06283322511359217,
            0.5192286906744639,
            -0.5471889393551169,
            0.027960248680652954,
            -0.40557944311835936,
            0.2942979255584332,
            0.11128151755992605,
            -0.40681067812714755,
            0.6088856694813187,
            -0.20207499135417117,
        ];
        assert_close(&h[0][0].try_to_vec().unwrap(), &h_w1w1, 1e-9);
        assert_close(&h[1][2].try_to_vec().unwrap(), &h_bw2, 1e-9);
        let v = [t(&[2, 4], 5), t(&[4], 6), t(&[4, 3], 7)];
        let (_, hv) = hvp(f, &params, &v).unwrap();
        assert_close(
            &hv[2].try_to_vec().unwrap(),
            &[
                0.36298733551369516,
                -0.04067996055708831,
                -0.3223073749566068,
                0.8335413494319738,
                -0.24933425494138223,
                -0.5842070944905913,
                -0.6446915272203818,
                -0.1957258311237775,
                0.8404173583441592,
                -0.551837157725287,
                0.48574004662224807,
                0.06609711110303884,
            ],
            1e-9,
        );
        let w2 = params[2].clone();
        let g = |p: &[Tensor<f64, _>]| {
            let r = x.try_matmul(&p[0])?.try_add(&p[1])?.try_relu()?;
            r.try_mul(&r)?.try_matmul(&w2)
        };
        let (_, jv) = jvp(g, &params[..2], &v[..2]).unwrap();
        assert_close(
            &jv.try_to_vec().unwrap(),
            &[
                -1.5642118119725046,
                -0.005315614939029767,
                0.3722340124953872,
                -1.6904615688636524,
                -0.4289795253310627,
                0.2356502560936546,
                -2.2785114272521474,
                -0.22468211592491005,
                0.4568064324119812,
            ],
            1e-9,
        );

        // A gradient penalty (WGAN-10.670508610690218) on a conv critic: the penalty's gradient in the
        // critic's weights runs through conv2d's and gelu's rules, recorded.
        let img = t(&[2, 1, 5, 5], 8).with_requires_grad(true).unwrap();
        let k = t(&[2, 1, 3, 3], 9).with_requires_grad(true).unwrap();
        let lw = t(&[18, 1], 10).with_requires_grad(true).unwrap();
        let c = nn::conv2d(&img, &k, None, Conv2dOptions::default()).unwrap();
        let c = c.try_gelu().unwrap().try_reshape([2, 18]).unwrap();
        let out = c.try_matmul(&lw).unwrap().try_sum(&[], false).unwrap();
        let gi = grad_create_graph(&out, None, &[&img])
            .unwrap()
            .remove(0)
            .unwrap();
        let norm = gi
            .try_reshape([2, 25])
            .unwrap()
            .try_norm(2.0, &[1], false)
            .unwrap();
        let d = norm.try_sub_scalar(1.0).unwrap();
        let gp = d.try_mul(&d).unwrap().try_mean(&[], false).unwrap();
        assert_close(&[gp.try_item().unwrap()], &[10.670508610690218], 1e-12);
        let gs = typed_tensor::autograd::grad(&gp, &[&k, &lw], false).unwrap();
        assert_close(
            &gs[0].as_ref().unwrap().try_to_vec().unwrap(),
            &[
                4.578614568013303,
                0.09420199172363097,
                -8.06433175513856,
                -0.8697002927984132,
                -4.591668040799695,
                5.2459637825533525,
                -7.137734059324828,
                0.18758643276170606,
                4.834659027174204,
                4.688666832206436,
                -4.149364094867263,
                -3.8220687275256005,
                -9.017350531278787,
                1.4427075190635013,
                7.956253831943423,
                -0.6268850512056594,
                5.342709734420771,
                2.642732712357631,
            ],
            1e-9,
        );
        assert_close(
            &gs[1].as_ref().unwrap().try_to_vec().unwrap(),
            &[
                12.681266543915074,
                0.28896360703656787,
                -1.7474057411917348,
                -4.051604900537903,
                3.0998064654529482,
                -0.07642144043564852,
                -1.1031890462635103,
                0.4612546731628433,
                -0.01692829390383553,
                12.681975865521075,
                0.2574260668905153,
                -1.100997364948546,
                -3.8895439691255316,
                1.0162135607072398,
                -0.022623931542798736,
                -1.022493647703578,
                0.11358501603433335,
                0.161906914909594,
            ],
            1e-9,
        );
    });
}

/// `Σ x³`'s second derivative `6x` in each float dtype (16-bit rules run in f32 on the CPU
/// through recorded casts), and `dynamic::grad` with `create_graph`.
#[test]
fn second_derivatives_in_every_float_dtype() {
    fn go<T: FloatElement, D: Backend>(dev: &D) {
        let x = Tensor::<T, D>::from_vec_on([1.0, -2.0, 0.5].map(T::from_f64).to_vec(), [3], dev)
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        let y = x
            .try_mul(&x)
            .unwrap()
            .try_mul(&x)
            .unwrap()
            .try_sum(&[], false)
            .unwrap();
        let g = grad_create_graph(&y, None, &[&x])
            .unwrap()
            .remove(0)
            .unwrap();
        let h = grad_create_graph(&g.try_sum(&[], false).unwrap(), None, &[&x]).unwrap();
        let h: Vec<f64> = h[0]
            .as_ref()
            .unwrap()
            .try_to_vec()
            .unwrap()
            .iter()
            .map(|v| v.to_f64())
            .collect();
        assert_eq!(h, [6.0, -12.0, 3.0], "{}", T::DTYPE);
    }
    on_every_device!("higher_order_dtypes", |dev| {
        go::<f32, _>(&dev);
        go::<f64, _>(&dev);
        go::<half::f16, _>(&dev);
        go::<half::bf16, _>(&dev);
        let mut x =
            DynTensor::from(Tensor::<f32, _>::from_vec_on(vec![1.0, 2.0], [2], &dev).unwrap());
        x.set_requires_grad(true).unwrap();
        let y = x
            .mul(&x)
            .unwrap()
            .mul(&x)
            .unwrap()
            .reduce_sum(&[], false)
            .unwrap();
        let g = typed_tensor::dynamic::grad(&y, &[&x], None, false, true).unwrap();
        let s = g[0].as_ref().unwrap().reduce_sum(&[], false).unwrap();
        let h = typed_tensor::dynamic::grad(&s, &[&x], None, false, false).unwrap();
        assert_eq!(h[0].as_ref().unwrap().to_vec::<f32>().unwrap(), [6.0, 12.0]);
    });
}

/// The NN ops and composed tensor ops, through their rules run recorded.
#[test]
fn second_derivatives_of_nn_ops_match_finite_differences() {
    use typed_tensor::nn::{AttentionOptions, CellWeights, Interpolation};
    on_every_device!("higher_order_nn", |dev| {
        let t = |dims: &[usize], seed: u64| {
            let n = dims.iter().product();
            Tensor::<f64, _>::from_vec_on(vals(n, seed), dims.to_vec(), &dev).unwrap()
        };
        let pos = |dims: &[usize], seed: u64| {
            let x = t(dims, seed).try_abs().unwrap();
            x.try_mul_scalar(0.8).unwrap().try_add_scalar(0.1).unwrap()
        };
        let ids = Tensor::<i64, _>::from_vec_on(vec![1, 0, 1, 2], [2, 2], &dev).unwrap();
        let target = Tensor::<i64, _>::from_vec_on(vec![1, 0, 2], [3], &dev).unwrap();
        let soft = t(&[3, 4], 40);
        let prob = pos(&[3, 2], 41);
        let cases: Vec<(&str, F<_>, Vec<Tensor<f64, _>>)> = vec![
            (
                "activations",
                Box::new(|v| {
                    let x = &v[0];
                    x.try_silu()?
                        .try_add(&x.try_softplus()?)?
                        .try_add(&x.try_elu(1.0)?)?
                        .try_add(&x.try_mish()?)?
                        .try_add(&x.try_logsigmoid()?)?
                        .try_add(&x.try_leaky_relu(0.1)?.try_mul(x)?)
                }),
                vec![t(&[6], 30)],
            ),
            (
                "attention",
                Box::new(|v| {
                    nn::scaled_dot_product_attention(
                        &v[0],
                        &v[1],
                        &v[2],
                        None,
                        AttentionOptions::default(),
                    )
                }),
                vec![t(&[2, 3, 4], 31), t(&[2, 5, 4], 32), t(&[2, 5, 2], 33)],
            ),
            (
                "batch_norm group_norm",
                Box::new(|v| {
                    let b = nn::batch_norm(&v[0], None, None, Some(&v[1]), None, true, 0.1, 1e-5)?;
                    let g = nn::group_norm(&v[0], 1, None, None, 1e-5)?;
                    b.try_mul(&g)
                }),
                vec![t(&[3, 2, 2], 34), t(&[2], 35)],
            ),
            (
                "pools interpolate",
                Box::new(|v| {
                    let m = nn::max_pool2d(&v[0], (2, 2), (1, 1), (0, 0))?;
                    let a = nn::avg_pool2d(&v[0], (2, 2), (1, 1), (0, 0))?;
                    let i = nn::interpolate(
                        &v[0],
                        (4, 5),
                        Interpolation::Bilinear {
                            align_corners: false,
                        },
                    )?;
                    m.try_mul(&a)?.try_sum(&[], false)?.try_mul(&i.try_tanh()?)
                }),
                vec![t(&[1, 2, 3, 3], 36)],
            ),
            (
                "embedding lstm_cell",
                Box::new(move |v| {
                    let e = nn::embedding(&ids, &v[0])?.try_reshape([2, 4])?;
                    let w = CellWeights {
                        w_ih: &v[1],
                        w_hh: &v[2],
                        b_ih: None,
                        b_hh: None,
                    };
                    let h = e.narrow(1, 0, 3)?;
                    let (h, c) = nn::lstm_cell(&e, (&h, &h.try_tanh()?), w)?;
                    h.try_mul(&c)
                }),
                vec![t(&[3, 2], 37), t(&[12, 4], 38), t(&[12, 3], 39)],
            ),
            (
                "losses",
                Box::new(move |v| {
                    let r = Reduction::Mean;
                    let a = nn::mse_loss(&v[0], &soft, r)?;
                    let b = nn::huber_loss(&v[0], &soft, r, 0.5)?;
                    let c = nn::nll_loss(&v[0].try_log_softmax(1)?, &target, r)?;
                    let d = nn::binary_cross_entropy(&v[1].try_sigmoid()?, &prob, r)?;
                    a.try_add(&b)?.try_add(&c)?.try_add(&d)
                }),
                vec![t(&[3, 4], 42), t(&[3, 2], 43)],
            ),
            (
                "sort topk cummax",
                Box::new(|v| {
                    let (s, _) = v[0].try_sort(1, false)?;
                    let (k, _) = v[0].try_topk(2, 1)?;
                    let (m, _) = v[0].try_cummax(1)?;
                    s.try_mul(&s)?
                        .try_sum(&[1], false)?
                        .try_add(&k.try_exp()?.try_sum(&[1], false)?)?
                        .try_mul(&m.try_sum(&[1], false)?)
                }),
                vec![t(&[2, 4], 44)],
            ),
            (
                "einsum kron cross trace",
                Box::new(|v| {
                    let e = Tensor::einsum("ij,jk->ik", &[&v[0], &v[0]])?;
                    let k = v[0].try_kron(&v[0])?.try_sum(&[], false)?;
                    let c = v[0].try_cross(&v[0].try_sin()?, 1)?;
                    e.try_mul(&c)?
                        .try_mul(&k)?
                        .try_add(&v[0].try_trace()?.try_square()?)
                }),
                vec![t(&[3, 3], 45)],
            ),
            (
                "cdist normalize cosine",
                Box::new(|v| {
                    let d = nn::cdist(&v[0], &v[1], 2.0)?;
                    let n = nn::normalize(&v[0], 2.0, 1, 1e-12)?;
                    let c = nn::cosine_similarity(&v[0], &v[1].narrow(0, 0, 2)?, 1, 1e-8)?;
                    d.try_sum(&[1], false)?
                        .try_mul(&n.try_sum(&[1], false)?)?
                        .try_add(&c)
                }),
                vec![t(&[2, 3], 46), t(&[4, 3], 47)],
            ),
            (
                "clamp masked_fill logcumsumexp lerp",
                Box::new(|v| {
                    let c = v[0].try_clamp(Some(-0.5), Some(0.7))?;
                    let m = v[0].try_masked_fill(&v[0].try_gt_scalar(0.6)?, 0.0)?;
                    let l = v[0].try_logcumsumexp(1)?;
                    c.try_mul(&m)?
                        .try_mul(&l)?
                        .try_add(&v[0].try_lerp(&v[0].try_exp()?, 0.3)?.try_square()?)
                }),
                vec![t(&[2, 4], 48)],
            ),
        ];
        for (name, f, x) in cases {
            if let Err(e) = gradgradcheck(&f, &x, 1e-5, 1e-5) {
                panic!("{name}: {e}");
            }
        }
    });
}
