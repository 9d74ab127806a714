//! More of PyTorch's `nn.functional` against PyTorch 2.15 (`tests/data/torch_grads/
//! functional.npz`, made by `make/functional.py`): the shrink activations, `threshold`,
//! `rrelu`, `local_response_norm`, the power-average and 1-d adaptive pools,
//! `channel_shuffle`, `bilinear`, `multilabel_margin_loss` and `conv_transpose1d`, values and
//! gradients (kinks included) in f64 on every device; and `pdist`, the pools with indices,
//! `triplet_margin_with_distance_loss` and `gumbel_softmax`.

use crate::common::{assert_close, host_f64s};
use std::collections::BTreeMap;
use typed_tensor::dynamic::DynTensor;
use typed_tensor::io::load_npz;
use typed_tensor::nn::{self, Reduction};
use typed_tensor::prelude::*;

type Fixture = BTreeMap<String, DynTensor>;

fn fixture() -> Fixture {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/torch_grads");
    load_npz(format!("{dir}/functional.npz")).unwrap()
}

fn on<D: Backend>(a: &Fixture, k: &str, dev: &D) -> Tensor<f64, D> {
    a[k].clone()
        .downcast::<f64, Cpu>()
        .unwrap()
        .to_device(dev)
        .unwrap()
}

fn want(a: &Fixture, k: &str) -> Vec<f64> {
    a[k].clone().downcast::<f64, Cpu>().unwrap().to_vec()
}

/// Case `name` of the fixture: `f` over its float inputs (leaves) on `dev`; the value and
/// each input's gradient of `sum(y · w)` match PyTorch's.
fn check<D: Backend>(
    a: &Fixture,
    name: &str,
    dev: &D,
    f: impl Fn(&[Tensor<f64, D>]) -> Tensor<f64, D>,
) {
    let xs: Vec<Tensor<f64, D>> = (0..)
        .map(|i| format!("{name}_x{i}"))
        .take_while(|k| a.contains_key(k) && a[k].dtype() == Dtype::Float64)
        .map(|k| on(a, &k, dev).with_requires_grad(true).unwrap())
        .collect();
    let y = f(&xs);
    assert_close(
        &host_f64s(&y.detach()),
        &want(a, &format!("{name}_y")),
        1e-12,
    );
    y.mul(&on(a, &format!("{name}_w"), dev))
        .sum(&[], false)
        .backward();
    for (i, x) in xs.iter().enumerate() {
        let g = host_f64s(&x.grad_tensor().unwrap());
        assert_close(&g, &want(a, &format!("{name}_g{i}")), 1e-12);
    }
}

#[test]
fn more_functional_matches_pytorch() {
    let a = fixture();
    on_every_device!("more_functional_matches_pytorch", |dev| {
        let d = &dev;
        check(&a, "tanhshrink", d, |x| x[0].tanhshrink());
        check(&a, "softshrink", d, |x| x[0].softshrink(0.5));
        check(&a, "softshrink12", d, |x| x[0].softshrink(1.2));
        check(&a, "hardshrink", d, |x| x[0].hardshrink(0.5));
        check(&a, "threshold", d, |x| x[0].threshold(0.1, 20.0));
        check(&a, "rrelu", d, |x| x[0].rrelu(0.1, 0.3, false));
        let s = on(&a, "special_x", d);
        // x - tanh(x) cancels: CUDA's tanh differs from the host's in the last bit.
        assert_close(
            &host_f64s(&s.tanhshrink()),
            &want(&a, "special_tanhshrink"),
            1e-13,
        );
        assert_close(
            &host_f64s(&s.softshrink(0.5)),
            &want(&a, "special_softshrink"),
            0.0,
        );
        assert_close(
            &host_f64s(&s.hardshrink(0.5)),
            &want(&a, "special_hardshrink"),
            0.0,
        );
        assert_close(
            &host_f64s(&s.threshold(0.1, 20.0)),
            &want(&a, "special_threshold"),
            0.0,
        );
        check(&a, "lrn3", d, |x| {
            nn::local_response_norm(&x[0], 3, 1e-2, 0.75, 1.0).unwrap()
        });
        check(&a, "lrn4", d, |x| {
            nn::local_response_norm(&x[0], 2, 0.5, 0.6, 2.0).unwrap()
        });
        check(&a, "lp2", d, |x| {
            nn::lp_pool2d(&x[0], 2.0, (2, 2), (2, 1)).unwrap()
        });
        check(&a, "lp3", d, |x| {
            nn::lp_pool2d(&x[0], 3.0, (3, 2), (1, 2)).unwrap()
        });
        check(&a, "lp1", d, |x| nn::lp_pool1d(&x[0], 2.0, 3, 2).unwrap());
        check(&a, "aap1", d, |x| {
            nn::adaptive_avg_pool1d(&x[0], 3).unwrap()
        });
        check(&a, "amp1", d, |x| {
            nn::adaptive_max_pool1d(&x[0], 4).unwrap()
        });
        check(&a, "shuffle", d, |x| nn::channel_shuffle(&x[0], 3).unwrap());
        check(&a, "bilinear", d, |x| {
            nn::bilinear(&x[0], &x[1], &x[2], Some(&x[3])).unwrap()
        });
        let ct = nn::Conv2dOptions {
            stride: (1, 2),
            padding: (0, 1),
            dilation: (1, 2),
            groups: 2,
        };
        check(&a, "ct1", d, |x| {
            nn::conv_transpose1d(&x[0], &x[1], Some(&x[2]), ct, 1).unwrap()
        });
        check(&a, "ct1_plain", d, |x| {
            nn::conv_transpose1d(&x[0], &x[1], None, nn::Conv2dOptions::default(), 0).unwrap()
        });
        let target = |k: &str| {
            a[k].clone()
                .downcast::<i64, Cpu>()
                .unwrap()
                .to_device(d)
                .unwrap()
        };
        let (y2, y1) = (target("mlm_none_x1"), target("mlm_1d_x1"));
        check(&a, "mlm_none", d, |x| {
            nn::multilabel_margin_loss(&x[0], &y2, Reduction::None).unwrap()
        });
        check(&a, "mlm_mean", d, |x| {
            nn::multilabel_margin_loss(&x[0], &y2, Reduction::Mean).unwrap()
        });
        check(&a, "mlm_1d", d, |x| {
            nn::multilabel_margin_loss(&x[0], &y1, Reduction::Sum).unwrap()
        });
    });
}

/// Training-mode `rrelu` draws one slope per element from `[lower, upper]`; refused
/// arguments name the op.
#[test]
fn more_functional_randomness_and_refusals() {
    let x = Tensor::<f64>::full([10_000], -1.0).unwrap();
    let y = x.rrelu(0.1, 0.3, true).to_vec();
    assert!(
        y.iter().all(|&v| (-0.3..=-0.1).contains(&v)),
        "slopes in range"
    );
    let mean = y.iter().sum::<f64>() / y.len() as f64;
    assert!((mean + 0.2).abs() < 0.005, "{mean}");
    assert_eq!(
        Tensor::<f64>::ones([3])
            .unwrap()
            .rrelu(0.1, 0.3, true)
            .to_vec(),
        [1.0; 3]
    );
    let m = Tensor::<f64>::zeros([2, 4]).unwrap();
    let errs = [
        m.try_softshrink(-1.0).unwrap_err(),
        m.try_hardshrink(f64::NAN).unwrap_err(),
        m.try_rrelu(0.5, 0.2, true).unwrap_err(),
        nn::local_response_norm(&m, 2, 1e-4, 0.75, 1.0).unwrap_err(),
        nn::local_response_norm(&m.unsqueeze(0).unwrap(), 0, 1e-4, 0.75, 1.0).unwrap_err(),
        nn::lp_pool1d(&m, 2.0, 2, 1).unwrap_err(),
        nn::adaptive_avg_pool1d(&m, 2).unwrap_err(),
        nn::adaptive_max_pool1d(&m.unsqueeze(0).unwrap(), 0).unwrap_err(),
        nn::channel_shuffle(&m.unsqueeze(0).unwrap(), 3).unwrap_err(),
        nn::channel_shuffle(&m.unsqueeze(0).unwrap(), 0).unwrap_err(),
        nn::bilinear(&m, &m, &Tensor::zeros([3, 4, 5]).unwrap(), None).unwrap_err(),
        nn::conv_transpose1d(&m, &m, None, nn::Conv2dOptions::default(), 0).unwrap_err(),
        nn::multilabel_margin_loss(&m, &Tensor::<i64>::zeros([2, 3]).unwrap(), Reduction::Mean)
            .unwrap_err(),
        nn::multilabel_margin_loss(
            &m,
            &Tensor::<i64>::full([2, 4], 4).unwrap(),
            Reduction::Mean,
        )
        .unwrap_err(),
    ];
    for e in errs {
        let s = e.to_string();
        assert!(
            [
                "shrink", "rrelu", "norm", "pool", "shuffle", "bilinear", "margin", "conv"
            ]
            .iter()
            .any(|w| s.contains(w)),
            "{s}"
        );
    }
    // A window wider than the channels covers them all, at the cost of 2·C + 1 slices (a
    // size of usize::MAX looped for ever before; found by the fuzzer).
    let c3 = Tensor::<f64>::from_vec(vec![1.0, 2.0, 3.0], [1, 3, 1]).unwrap();
    let y = nn::local_response_norm(&c3, usize::MAX, 1e18, 1.0, 1.0).unwrap();
    let div = 1.0 + 1e18 / usize::MAX as f64 * 14.0;
    assert_close(&y.to_vec(), &[1.0 / div, 2.0 / div, 3.0 / div], 1e-12);
    // An empty input with 2^40 samples is refused, not an abort (found by the fuzzer).
    let huge = Tensor::<f64>::from_vec(vec![], [1 << 40, 0]).unwrap();
    let empty_t = Tensor::<i64>::from_vec(vec![], [1 << 40, 0]).unwrap();
    assert!(nn::multilabel_margin_loss(&huge, &empty_t, Reduction::None).is_err());
    // An empty batch and a sample whose first target is -1 give zero loss.
    let none = Tensor::<i64>::full([1, 4], -1).unwrap();
    let l = nn::multilabel_margin_loss(&m.narrow(0, 0, 1).unwrap(), &none, Reduction::Sum);
    assert_eq!(l.unwrap().to_vec(), [0.0]);
}

/// Multi-layer, bidirectional, batch-first and unbatched recurrent networks against PyTorch's
/// `nn.LSTM`, `nn.GRU` and `nn.RNN` (`rnn.npz`, made by `make/rnn.py`): outputs, final states
/// and the gradients to the input, the initial states and every weight.
#[test]
fn recurrent_networks_match_pytorch() {
    use nn::{CellWeights, RnnMode, RnnOptions, rnn};
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/torch_grads");
    let a = load_npz(format!("{dir}/rnn.npz")).unwrap();
    on_every_device!("recurrent_networks_match_pytorch", |dev| {
        let cases = [
            ("lstm", RnnMode::Lstm, 2, true, true),
            ("gru", RnnMode::Gru, 1, false, false),
            ("relu", RnnMode::Relu, 2, false, false),
            ("tanh", RnnMode::Tanh, 1, true, false),
        ];
        for (name, mode, layers, bidirectional, batch_first) in cases {
            let leaf = |k: &str| -> Option<Tensor<f64, _>> {
                let k = format!("{name}_{k}");
                a.contains_key(&k)
                    .then(|| on(&a, &k, &dev).with_requires_grad(true).unwrap())
            };
            let (x, h0, c0) = (leaf("x").unwrap(), leaf("h0"), leaf("c0"));
            let suffixes: Vec<String> = (0..layers)
                .flat_map(|l| {
                    let dirs: &[&str] = if bidirectional {
                        &["", "_reverse"]
                    } else {
                        &[""]
                    };
                    dirs.iter().map(move |d| format!("l{l}{d}"))
                })
                .collect();
            let params: Vec<[Option<Tensor<f64, _>>; 4]> = suffixes
                .iter()
                .map(|s| {
                    ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]
                        .map(|p| leaf(&format!("{p}_{s}")))
                })
                .collect();
            let weights: Vec<CellWeights<'_, f64, _>> = params
                .iter()
                .map(|p| CellWeights {
                    w_ih: p[0].as_ref().unwrap(),
                    w_hh: p[1].as_ref().unwrap(),
                    b_ih: p[2].as_ref(),
                    b_hh: p[3].as_ref(),
                })
                .collect();
            let opts = RnnOptions {
                num_layers: layers,
                bidirectional,
                batch_first,
                ..Default::default()
            };
            let r = rnn(mode, &x, h0.as_ref(), c0.as_ref(), &weights, opts).unwrap();
            let outs = [Some(r.output), Some(r.h_n), r.c_n];
            let mut loss: Option<Tensor<f64, _>> = None;
            for (k, o) in outs.iter().enumerate() {
                let Some(o) = o else { continue };
                assert_close(
                    &host_f64s(&o.detach()),
                    &want(&a, &format!("{name}_out{k}")),
                    1e-12,
                );
                let term = o
                    .mul(&on(&a, &format!("{name}_w{k}"), &dev))
                    .sum(&[], false);
                loss = Some(match loss {
                    Some(l) => l.add(&term),
                    None => term,
                });
            }
            loss.unwrap().backward();
            let grad = |t: &Tensor<f64, _>, k: &str| {
                let g = host_f64s(&t.grad_tensor().unwrap());
                assert_close(&g, &want(&a, &format!("{name}_{k}")), 1e-11);
            };
            grad(&x, "gx");
            for (s, label) in [(&h0, "gh0"), (&c0, "gc0")] {
                if let Some(s) = s {
                    grad(s, label);
                }
            }
            for (p, s) in params.iter().zip(&suffixes) {
                let names = ["weight_ih", "weight_hh", "bias_ih", "bias_hh"];
                for (t, n) in p.iter().zip(names) {
                    if let Some(t) = t {
                        grad(t, &format!("g_{n}_{s}"));
                    }
                }
            }
        }
    });
    // Refusals name the op.
    let x = Tensor::<f64>::zeros([3, 2, 4]).unwrap();
    let (wi, wh) = (
        Tensor::<f64>::zeros([5, 4]).unwrap(),
        Tensor::<f64>::zeros([5, 5]).unwrap(),
    );
    let w = CellWeights {
        w_ih: &wi,
        w_hh: &wh,
        b_ih: None,
        b_hh: None,
    };
    let one = RnnOptions::default();
    let two = RnnOptions {
        num_layers: 2,
        ..one
    };
    let h_bad = Tensor::<f64>::zeros([1, 2, 4]).unwrap();
    let errs = [
        rnn(RnnMode::Tanh, &x, None, None, &[w, w], one).unwrap_err(),
        rnn(RnnMode::Tanh, &x, None, None, &[w], two).unwrap_err(),
        rnn(
            RnnMode::Tanh,
            &x.narrow(0, 0, 0).unwrap(),
            None,
            None,
            &[w],
            one,
        )
        .unwrap_err(),
        rnn(RnnMode::Tanh, &x, Some(&h_bad), None, &[w], one).unwrap_err(),
        rnn(RnnMode::Gru, &x, None, Some(&h_bad), &[w], one).unwrap_err(),
        rnn(RnnMode::Lstm, &x, None, None, &[w], one).unwrap_err(),
        rnn(
            RnnMode::Tanh,
            &x.unsqueeze(0).unwrap(),
            None,
            None,
            &[w],
            one,
        )
        .unwrap_err(),
    ];
    for e in errs {
        let s = e.to_string();
        assert!(s.contains("rnn") || s.contains("cell"), "{s}");
    }
    let r = rnn(RnnMode::Tanh, &x, None, None, &[w], one).unwrap();
    assert_eq!(
        (r.output.dims(), r.h_n.dims()),
        (&[3, 2, 5][..], &[1, 2, 5][..])
    );
    // An empty batch: empty outputs, the weights still checked; a sequence of 2^40 empty
    // steps is refused before the loop (its output would not fit), not run.
    let empty = Tensor::<f64>::zeros([3, 0, 4]).unwrap();
    let r = rnn(RnnMode::Tanh, &empty, None, None, &[w], one).unwrap();
    assert_eq!(
        (r.output.dims(), r.h_n.dims()),
        (&[3, 0, 5][..], &[1, 0, 5][..])
    );
    let wrong = CellWeights { w_ih: &wh, ..w };
    assert!(rnn(RnnMode::Tanh, &empty, None, None, &[wrong], one).is_err());
    let (wi0, long) = (
        Tensor::<f64>::zeros([5, 0]).unwrap(),
        Tensor::<f64>::from_vec(vec![], [1 << 40, 1, 0]).unwrap(),
    );
    let w0 = CellWeights { w_ih: &wi0, ..w };
    assert!(rnn(RnnMode::Tanh, &long, None, None, &[w0], one).is_err());

    // Dropout between layers (PyTorch's `dropout`): p = 1 zeroes the second layer's input, so
    // without biases its outputs are tanh(0 + h·w_hh) = 0 from h0 = 0; not in eval mode or
    // with p = 0; only probabilities are taken.
    let x = Tensor::<f64>::from_vec((0..24).map(|v| v as f64 / 10.0).collect(), [3, 2, 4]);
    let (wi, wh, wi2) = (
        Tensor::<f64>::full([5, 4], 0.1).unwrap(),
        Tensor::<f64>::full([5, 5], -0.2).unwrap(),
        Tensor::<f64>::full([5, 5], 0.3).unwrap(),
    );
    let l0 = CellWeights {
        w_ih: &wi,
        w_hh: &wh,
        b_ih: None,
        b_hh: None,
    };
    let l1 = CellWeights { w_ih: &wi2, ..l0 };
    let x = x.unwrap();
    let run = |dropout: f64, training: bool| {
        let opts = RnnOptions {
            num_layers: 2,
            dropout,
            training,
            ..one
        };
        rnn(RnnMode::Tanh, &x, None, None, &[l0, l1], opts)
    };
    let plain = run(0.0, true).unwrap().output.to_vec();
    assert!(plain.iter().all(|v| *v != 0.0));
    assert_eq!(run(1.0, true).unwrap().output.to_vec(), vec![0.0; 30]);
    assert_eq!(run(1.0, false).unwrap().output.to_vec(), plain);
    for p in [-0.1, 1.5, f64::NAN] {
        let e = run(p, true).unwrap_err().to_string();
        assert!(e.contains("rnn") && e.contains("dropout"), "{e}");
    }
}

/// `pdist`, `max_pool1d_with_indices`/`max_unpool1d` and `triplet_margin_with_distance_loss`
/// against PyTorch 2.15 (values printed by PyTorch, gradients of `sum(y · w)`), on every
/// device; `gumbel_softmax` by its distribution.
#[test]
fn distances_1d_pools_and_gumbel_softmax() {
    let on = |v: Vec<f64>, s: &[usize]| Tensor::<f64>::from_vec(v, s).unwrap();
    crate::on_every_device!("distances_1d_pools_and_gumbel_softmax", |dev| {
        let x = vec![
            0.5, -1.0, 2.0, 1.5, 0.25, -0.75, 0.5, -1.0, 2.0, -2.0, 3.0, 1.0,
        ];
        let w = on(vec![1.0, -2.0, 0.5, 3.0, -1.0, 2.0], &[6])
            .to_device(&dev)
            .unwrap();
        // Rows 0 and 2 are equal: a zero distance, whose gradient is 0.
        let cases: [(f64, [f64; 6], [f64; 12]); 3] = [
            (
                2.0,
                [
                    3.181980515339464,
                    0.0,
                    4.821825380496477,
                    3.181980515339464,
                    4.782781617427248,
                    4.821825380496477,
                ],
                [
                    -0.055031756844748,
                    -0.807617778551363,
                    0.967936790923267,
                    0.525286999224374,
                    2.14632761347502,
                    -3.091070624358377,
                    0.094142653148362,
                    -2.83763401354626,
                    3.007505542242844,
                    -0.564397895527988,
                    1.498924178622602,
                    -0.884371708807734,
                ],
            ),
            (
                1.0,
                [5.0, 0.0, 7.5, 5.0, 8.0, 7.5],
                [
                    -0.5, -1.5, 1.5, 3.0, 5.0, -3.0, -1.0, -5.0, 5.0, -1.5, 1.5, -3.5,
                ],
            ),
            (
                0.5,
                [
                    14.260792011403021,
                    0.0,
                    20.98683298050514,
                    14.260792011403021,
                    23.542066484997324,
                    20.98683298050514,
                ],
                [
                    -2.327663085877081,
                    -4.522951595940095,
                    4.567791966660865,
                    12.511873494095912,
                    16.436543738529192,
                    -5.441110303045964,
                    -5.534305959580728,
                    -14.714139495341335,
                    15.993945315024689,
                    -4.649904448638104,
                    2.800547352752239,
                    -15.120626978639589,
                ],
            ),
        ];
        for (p, y_want, g_want) in cases {
            let xs = on(x.clone(), &[4, 3])
                .to_device(&dev)
                .unwrap()
                .with_requires_grad(true)
                .unwrap();
            let y = nn::pdist(&xs, p).unwrap();
            assert_close(&host_f64s(&y), &y_want, 1e-13);
            y.mul(&w).sum(&[], false).backward();
            assert_close(&host_f64s(&xs.grad_tensor().unwrap()), &g_want, 1e-12);
        }
        // Ties pick the first maximum; padding is never picked.
        let x = vec![
            1.0, 3.0, 2.0, 3.0, -1.0, 0.0, 5.0, 0.0, -2.0, -3.0, 4.0, 4.0, 1.0, -1.0,
        ];
        let xs = on(x, &[1, 2, 7])
            .to_device(&dev)
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        let (y, at) = nn::max_pool1d_with_indices(&xs, 3, 2, 1).unwrap();
        assert_eq!(host_f64s(&y), vec![3.0, 3.0, 3.0, 5.0, 0.0, 4.0, 4.0, 1.0]);
        assert_eq!(
            at.to_device(&Cpu).unwrap().to_vec(),
            vec![1, 1, 3, 6, 0, 3, 3, 5]
        );
        let ramp = Tensor::<f64>::arange(1.0, 9.0, 1.0)
            .unwrap()
            .reshape([1, 2, 4]);
        y.mul(&ramp.to_device(&dev).unwrap())
            .sum(&[], false)
            .backward();
        let g = [
            0.0, 3.0, 0.0, 3.0, 0.0, 0.0, 4.0, 5.0, 0.0, 0.0, 13.0, 0.0, 8.0, 0.0,
        ];
        assert_close(&host_f64s(&xs.grad_tensor().unwrap()), &g, 0.0);
        // Adaptive windows overlap: one input element can win several of them.
        let x = vec![
            1.0, 3.0, 2.0, 3.0, -1.0, 0.0, 5.0, -2.0, -3.0, 4.0, 4.0, 1.0, -1.0, 2.0, 2.0,
        ];
        let xa = on(x, &[1, 1, 3, 5])
            .to_device(&dev)
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        let (ya, ia) = nn::adaptive_max_pool2d_with_indices(&xa, (2, 3)).unwrap();
        assert_eq!(host_f64s(&ya), vec![5.0, 5.0, 4.0, 5.0, 5.0, 4.0]);
        assert_eq!(ia.to_device(&Cpu).unwrap().to_vec(), vec![6, 6, 9, 6, 6, 9]);
        let ramp6 = Tensor::<f64>::arange(1.0, 7.0, 1.0)
            .unwrap()
            .reshape([1, 1, 2, 3]);
        ya.mul(&ramp6.to_device(&dev).unwrap())
            .sum(&[], false)
            .backward();
        let mut g = vec![0.0; 15];
        (g[6], g[9]) = (12.0, 9.0);
        assert_close(&host_f64s(&xa.grad_tensor().unwrap()), &g, 0.0);
        let z = on(vec![1.0, 3.0, 2.0, 3.0, -1.0, 0.0, 5.0], &[1, 1, 7])
            .to_device(&dev)
            .unwrap();
        let (yz, iz) = nn::adaptive_max_pool1d_with_indices(&z, 3).unwrap();
        assert_eq!(
            (host_f64s(&yz), iz.to_device(&Cpu).unwrap().to_vec()),
            (vec![3.0, 3.0, 5.0], vec![1, 3, 6])
        );
        let u = nn::max_unpool1d(&y.detach(), &at, 8).unwrap();
        let want = [
            0.0, 3.0, 0.0, 3.0, 0.0, 0.0, 5.0, 0.0, 0.0, 0.0, 0.0, 4.0, 0.0, 1.0, 0.0, 0.0,
        ];
        assert_close(&host_f64s(&u), &want, 0.0);
        // The default distance, with and without swap.
        let a = on(vec![0.0, 1.0, 2.0, 1.0, -1.0, 0.5], &[2, 3])
            .to_device(&dev)
            .unwrap();
        let p = on(vec![0.5, 1.0, 2.5, 0.0, 0.0, 0.0], &[2, 3])
            .to_device(&dev)
            .unwrap();
        let n = on(vec![0.0, 1.2, 2.0, 3.0, -1.0, 0.5], &[2, 3])
            .to_device(&dev)
            .unwrap();
        for swap in [false, true] {
            let a = a.detach().with_requires_grad(true).unwrap();
            let l =
                nn::triplet_margin_with_distance_loss(&a, &p, &n, None, 1.0, swap, Reduction::Sum)
                    .unwrap();
            assert_close(&host_f64s(&l), &[2.0071077003024884], 1e-14);
            l.backward();
            let g = [
                -0.7071117812108404,
                1.0000014141913907,
                -0.7071117812108404,
                1.6666671851843917,
                -0.6666663518518549,
                0.3333334259253303,
            ];
            assert_close(&host_f64s(&a.grad_tensor().unwrap()), &g, 1e-13);
        }
    });
    // Refusals name the op.
    let x = Tensor::<f64>::zeros([2, 3]).unwrap();
    for e in [
        nn::pdist(&Tensor::<f64>::zeros([2]).unwrap(), 2.0).unwrap_err(),
        nn::pdist(&x, -1.0).unwrap_err(),
        nn::max_pool1d_with_indices(&x, 2, 1, 0).unwrap_err(),
        nn::max_unpool1d(&x, &Tensor::<i64>::zeros([2, 3]).unwrap(), 4).unwrap_err(),
        nn::triplet_margin_with_distance_loss(&x, &x, &x, None, 0.0, false, Reduction::Mean)
            .unwrap_err(),
        nn::gumbel_softmax(&x, 0.0, false, -1).unwrap_err(),
        nn::gumbel_softmax(&x, 1.0, false, 2).unwrap_err(),
        nn::gumbel_softmax(&Tensor::<f64>::zeros([2, 0]).unwrap(), 1.0, true, -1).unwrap_err(),
    ] {
        let s = e.to_string();
        assert!(
            ["pdist", "pool1d", "unpool1d", "triplet", "gumbel"]
                .iter()
                .any(|o| s.contains(o)),
            "{s}"
        );
    }
    // An empty input has no pairs.
    assert_eq!(
        nn::pdist(&Tensor::<f64>::zeros([0, 3]).unwrap(), 2.0)
            .unwrap()
            .dims(),
        [0]
    );
    // Gumbel-max: a hard sample picks class i with probability softmax(logits)_i, whatever tau;
    // soft samples sum to 1; the hard sample's gradient is the soft one's (rows sum to 0).
    let rows = 20_000;
    let l = Tensor::<f32>::from_vec(vec![0.0, 1.0, -1.0, 2.0], [1, 4]).unwrap();
    let logits = l
        .broadcast_to([rows, 4])
        .unwrap()
        .contiguous()
        .with_requires_grad(true)
        .unwrap();
    let hard = nn::gumbel_softmax(&logits, 0.3, true, -1).unwrap();
    let freq = hard.mean(&[0], false).to_vec();
    let probs = l.softmax(-1).to_vec();
    for (f, p) in freq.iter().zip(&probs) {
        assert!((f - p).abs() < 0.015, "{freq:?} against {probs:?}");
    }
    assert!(hard.to_vec().iter().all(|&v| v == 0.0 || v == 1.0));
    let w = Tensor::<f32>::rand([rows, 4]).unwrap();
    hard.mul(&w).sum(&[], false).backward();
    let g = logits.grad_tensor().unwrap().sum(&[-1], false).to_vec();
    assert!(g.iter().all(|v| v.abs() < 1e-5), "{:?}", &g[..4]);
    let soft = nn::gumbel_softmax(&l.cast::<f64>(), 2.0, false, 1).unwrap();
    assert!((soft.sum(&[], false).item() - 1.0).abs() < 1e-12);
}
