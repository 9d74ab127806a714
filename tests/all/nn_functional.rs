//! More of PyTorch's `nn.functional` against PyTorch 2.15 (`tests/data/torch_grads/
//! functional.npz`, made by `make/functional.py`): the shrink activations, `threshold`,
//! `rrelu`, `local_response_norm`, the power-average and 1-d adaptive pools,
//! `channel_shuffle`, `bilinear`, `multilabel_margin_loss` and `conv_transpose1d`, values and
//! gradients (kinks included) in f64 on every device.

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
        assert_close(
            &host_f64s(&s.tanhshrink()),
            &want(&a, "special_tanhshrink"),
            0.0,
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
    // An empty input with 2^40 samples is refused, not an abort (found by the fuzzer).
    let huge = Tensor::<f64>::from_vec(vec![], [1 << 40, 0]).unwrap();
    let empty_t = Tensor::<i64>::from_vec(vec![], [1 << 40, 0]).unwrap();
    assert!(nn::multilabel_margin_loss(&huge, &empty_t, Reduction::None).is_err());
    // An empty batch and a sample whose first target is -1 give zero loss.
    let none = Tensor::<i64>::full([1, 4], -1).unwrap();
    let l = nn::multilabel_margin_loss(&m.narrow(0, 0, 1).unwrap(), &none, Reduction::Sum);
    assert_eq!(l.unwrap().to_vec(), [0.0]);
}
