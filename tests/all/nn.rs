//! NN functions and optimizers: values against f64 references written out here, gradients
//! against finite differences, optimizer steps against hand-computed PyTorch updates.

use typed_tensor::autograd::gradcheck;
use typed_tensor::nn::{self, Reduction};
use typed_tensor::optim::{Adam, CosineAnnealing, LrSchedule, Optimizer, Sgd, StepDecay};
use typed_tensor::prelude::*;

use crate::common::assert_close;

fn t(v: &[f64], dims: &[usize]) -> Tensor<f64> {
    Tensor::from_vec(v.to_vec(), dims.to_vec()).unwrap()
}

#[test]
fn activations_and_softmax() {
    let xs = [-3.0, -0.5, 0.0, 0.25, 2.0, 40.0];
    let x = t(&xs, &[2, 3]);
    let each = |f: fn(f64) -> f64| xs.iter().map(|&v| f(v)).collect::<Vec<_>>();
    assert_close(&x.silu().to_vec(), &each(|v| v / (1.0 + (-v).exp())), 1e-12);
    assert_close(
        &x.leaky_relu(0.1).to_vec(),
        &each(|v| if v > 0.0 { v } else { 0.1 * v }),
        1e-12,
    );
    assert_close(
        &x.elu(1.5).to_vec(),
        &each(|v| if v > 0.0 { v } else { 1.5 * v.exp_m1() }),
        1e-12,
    );
    assert_close(&x.softplus().to_vec(), &each(|v| v.exp().ln_1p()), 1e-12);
    let g = |v: f64| {
        0.5 * v * (1.0 + ((2.0 / std::f64::consts::PI).sqrt() * (v + 0.044715 * v * v * v)).tanh())
    };
    assert_close(&x.gelu_tanh().to_vec(), &each(g), 1e-12);
    let exact = |v: f64| 0.5 * v * (1.0 + libm::erf(v / std::f64::consts::SQRT_2));
    assert_close(&x.gelu().to_vec(), &each(exact), 1e-15);
    let h = x.cast::<bf16>().gelu().cast::<f64>(); // in f32, rounded once
    assert_close(&h.to_vec(), &each(exact), 1e-2);
    // Softmax rows sum to 1 and survive large logits; log_softmax matches log(softmax).
    let s = x.softmax(1);
    assert_close(&s.sum(&[1], false).to_vec(), &[1.0, 1.0], 1e-12);
    let row = [0.25f64, 2.0, 40.0];
    let z: f64 = row.iter().map(|v| (v - 40.0).exp()).sum();
    let want: Vec<f64> = row.iter().map(|v| v - 40.0 - z.ln()).collect();
    assert_close(&x.log_softmax(1).to_vec()[3..], &want, 1e-12);
    // 16-bit: computed in f32, rounded once.
    let h = x.cast::<f16>().softmax(1).cast::<f64>();
    assert_close(&h.to_vec(), &s.to_vec(), 1e-3);
    for (name, f) in [
        (
            "silu",
            (|v: &[Tensor<f64>]| v[0].try_silu()) as fn(&[Tensor<f64>]) -> Result<Tensor<f64>>,
        ),
        ("leaky_relu", |v| v[0].try_leaky_relu(0.2)),
        ("elu", |v| v[0].try_elu(1.0)),
        ("softplus", |v| v[0].try_softplus()),
        ("gelu_tanh", |v| v[0].try_gelu_tanh()),
        ("gelu", |v| v[0].try_gelu()),
        ("softmax", |v| v[0].try_softmax(1)),
        ("log_softmax", |v| v[0].try_log_softmax(0)),
    ] {
        let x = t(&[-1.3, -0.4, 0.3, 0.7, 1.1, 2.2], &[2, 3]);
        gradcheck(f, &[x], 1e-6, 1e-6).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// `activation`'s gradient of `Σ g·f(x)` against `g · d(x)` in f64, at `xs` with the edge
/// values: in f32 from a contiguous input (a fused pass on the CPU, within `tol.0`) and a
/// transposed one (the composed rule, within `tol.1`), and in bf16 (within 8e-3).
fn check_activation_gradient(
    activation: fn(&Tensor<f32>) -> Tensor<f32>,
    activation16: fn(&Tensor<bf16>) -> Tensor<bf16>,
    d: fn(f64) -> f64,
    mut xs: Vec<f64>,
    tol: (f64, f64),
) {
    xs.extend([
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1e30,
        -1e30,
        -100.0,
        0.0,
    ]);
    let gs: Vec<f64> = (0..xs.len()).map(|i| 1.0 + (i % 7) as f64 * 0.25).collect();
    let (rows, cols) = (xs.len() / 7, 7);
    fn grad<T: FloatElement>(
        x: &Tensor<T>,
        g: &Tensor<T>,
        f: fn(&Tensor<T>) -> Tensor<T>,
    ) -> Vec<f64> {
        let leaf = x.detach().with_requires_grad(true).unwrap();
        f(&leaf).mul(g).sum(&[], false).backward();
        leaf.grad_tensor().unwrap().cast::<f64>().to_vec()
    }
    let x32 = t(&xs, &[rows, cols]).cast::<f32>();
    let g32 = t(&gs, &[rows, cols]).cast::<f32>();
    let want: Vec<f64> = (x32.cast::<f64>().to_vec().iter().zip(&gs))
        .map(|(&x, &g)| g * d(x))
        .collect();
    assert_close(&grad(&x32, &g32, activation), &want, tol.0);
    // Transposed: the composed rule, which rounds through more ops.
    let xt = x32.t().contiguous();
    assert_close(&grad(&xt.t(), &g32, activation), &want, tol.1);
    let (xb, gb) = (x32.cast::<bf16>(), g32.cast::<bf16>());
    let want: Vec<f64> = (xb
        .cast::<f64>()
        .to_vec()
        .iter()
        .zip(&gb.cast::<f64>().to_vec()))
    .map(|(&x, &g)| g * d(x))
    .collect();
    assert_close(&grad(&xb, &gb, activation16), &want, 8e-3);
}

/// GELU's gradient against `g · (Φ(x) + x φ(x))` (NaN at ±inf and NaN, as PyTorch's
/// `gelu_backward`).
#[test]
fn gelu_gradient_fused_and_composed() {
    let d = |x: f64| {
        let pdf = (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt();
        0.5 * (1.0 + libm::erf(x / std::f64::consts::SQRT_2)) + x * pdf
    };
    let xs = (0..602).map(|i| -7.0 + i as f64 * 0.0237).collect();
    check_activation_gradient(|x| x.gelu(), |x| x.gelu(), d, xs, (4e-6, 2e-5));
}

/// SiLU's gradient against `g · s (1 + x (1 - s))` (PyTorch's `silu_backward`: NaN at ±inf
/// and NaN, -0 far below 0); in f64 through the composed rule.
#[test]
fn silu_gradient_fused_and_composed() {
    let d = |x: f64| {
        let s = 1.0 / (1.0 + (-x).exp());
        s * (1.0 + x * (1.0 - s))
    };
    let xs: Vec<f64> = (0..602).map(|i| -9.0 + i as f64 * 0.03).collect();
    check_activation_gradient(|x| x.silu(), |x| x.silu(), d, xs.clone(), (4e-6, 2e-5));
    let x64 = t(&xs, &[86, 7]).detach().with_requires_grad(true).unwrap();
    x64.silu().sum(&[], false).backward();
    let want: Vec<f64> = xs.iter().map(|&x| d(x)).collect();
    assert_close(&x64.grad_tensor().unwrap().to_vec(), &want, 1e-13);
}

/// The fused softmax over the last axis (taken when nothing is recorded) against the f64
/// definition, for short and long rows, f32 and f64, beside the composed path (other axes,
/// strided inputs, recording): values, and NaN for rows with a NaN or an infinite maximum.
#[test]
fn fused_softmax_matches_the_definition() {
    let def = |v: &[f64], len: usize| -> Vec<f64> {
        v.chunks(len)
            .flat_map(|r| {
                let m = r.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
                let z: f64 = r.iter().map(|x| (x - m).exp()).sum();
                r.iter().map(move |x| (x - m).exp() / z).collect::<Vec<_>>()
            })
            .collect()
    };
    for len in [1usize, 3, 10, 17, 256, 1000] {
        let rows = 7;
        let v: Vec<f64> = (0..rows * len)
            .map(|i| {
                ((i * 7919) % 1009) as f64 / 50.0 - 10.0 + if i / len == 3 { 900.0 } else { 0.0 }
            })
            .collect();
        let x = t(&v, &[rows, len]);
        let want = def(&v, len);
        assert_close(&x.softmax(1).to_vec(), &want, 1e-14);
        assert_close(&x.softmax(-1).to_vec(), &want, 1e-14);
        let x32 = x.cast::<f32>();
        let want32 = def(&x32.cast::<f64>().to_vec(), len);
        assert_close(&x32.softmax(1).cast::<f64>().to_vec(), &want32, 1e-6);
        // The composed path on the transposed copy, and while recording, agrees.
        let xt = x.t().contiguous().t();
        assert_close(&xt.softmax(1).to_vec(), &want, 1e-14);
        let mut r = x.deep_copy();
        r.requires_grad_(true).unwrap();
        let y = r.softmax(1);
        assert!(!y.is_leaf(), "recorded, so composed");
        assert_close(&y.detach().to_vec(), &want, 1e-14);
    }
    let (nan, inf) = (f64::NAN, f64::INFINITY);
    let x = t(
        &[
            1.0, nan, 2.0, inf, 1.0, 0.0, -inf, -inf, -inf, -inf, 0.0, 1.0,
        ],
        &[4, 3],
    );
    for got in [
        x.softmax(1).to_vec(),
        x.cast::<f32>().softmax(1).cast::<f64>().to_vec(),
    ] {
        assert!(got[..9].iter().all(|v| v.is_nan()), "{got:?}");
        assert_close(&got[9..], &def(&[-inf, 0.0, 1.0], 3), 1e-6);
    }
    let e = Tensor::<f32>::zeros([0, 4]).unwrap().softmax(1);
    assert_eq!(e.dims(), &[0, 4]);
}

#[test]
fn losses() {
    let logits = t(&[2.0, 0.5, -1.0, 0.0, 1.0, 3.0], &[2, 3]);
    let target = Tensor::<i64>::from_vec(vec![0, 2], [2]).unwrap();
    // Per row: logsumexp(z) - z[y].
    let lse = |r: &[f64]| r.iter().map(|v| v.exp()).sum::<f64>().ln();
    let rows = [[2.0, 0.5, -1.0], [0.0, 1.0, 3.0]];
    let per = [lse(&rows[0]) - 2.0, lse(&rows[1]) - 3.0];
    let ce = nn::cross_entropy(&logits, &target, Reduction::None, 0.0).unwrap();
    assert_close(&ce.to_vec(), &per, 1e-12);
    let mean = nn::cross_entropy(&logits, &target, Reduction::Mean, 0.0).unwrap();
    assert_close(&[mean.item()], &[(per[0] + per[1]) / 2.0], 1e-12);
    // Label smoothing ε: (1 - ε) nll + ε · mean over classes of -log p.
    let eps = 0.1;
    let smooth: Vec<f64> = rows
        .iter()
        .map(|r| r.iter().map(|v| lse(r) - v).sum::<f64>() / 3.0)
        .collect();
    let want =
        ((1.0 - eps) * per[0] + eps * smooth[0] + (1.0 - eps) * per[1] + eps * smooth[1]) / 2.0;
    let ls = nn::cross_entropy(&logits, &target, Reduction::Mean, eps).unwrap();
    assert_close(&[ls.item()], &[want], 1e-12);
    let sum = nn::nll_loss(&logits.log_softmax(1), &target, Reduction::Sum).unwrap();
    assert_close(&[sum.item()], &[per[0] + per[1]], 1e-12);
    // Bad targets and shapes are errors.
    let bad = Tensor::<i64>::from_vec(vec![0, 3], [2]).unwrap();
    assert!(nn::cross_entropy(&logits, &bad, Reduction::Mean, 0.0).is_err());
    let wrong = Tensor::<i64>::from_vec(vec![0, 1, 2], [3]).unwrap();
    assert!(nn::nll_loss(&logits, &wrong, Reduction::Mean).is_err());
    assert!(nn::cross_entropy(&logits, &target, Reduction::Mean, 1.5).is_err());
    // mse and bce with logits.
    let y = t(&[1.0, 0.0, 0.5, 0.0, 1.0, 1.0], &[2, 3]);
    let mse = nn::mse_loss(&logits, &y, Reduction::Mean).unwrap().item();
    let want: f64 = logits
        .to_vec()
        .iter()
        .zip(y.to_vec())
        .map(|(a, b)| (a - b).powi(2))
        .sum::<f64>()
        / 6.0;
    assert_close(&[mse], &[want], 1e-12);
    let bce = nn::binary_cross_entropy_with_logits(&logits, &y, Reduction::Sum)
        .unwrap()
        .item();
    let want: f64 = logits
        .to_vec()
        .iter()
        .zip(y.to_vec())
        .map(|(&x, y)| {
            let p = 1.0 / (1.0 + (-x).exp());
            -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
        })
        .sum();
    assert_close(&[bce], &[want], 1e-12);
    // Gradients.
    let tg = target.clone();
    gradcheck(
        move |v| nn::cross_entropy(&v[0], &tg, Reduction::Mean, 0.1),
        &[logits.clone()],
        1e-6,
        1e-6,
    )
    .unwrap();
    for r in [Reduction::Mean, Reduction::Sum, Reduction::None] {
        let tg = target.clone();
        let f = move |v: &[Tensor<f64>]| nn::cross_entropy(&v[0], &tg, r, 0.0);
        gradcheck(f, &[logits.clone()], 1e-6, 1e-6).unwrap();
    }
    // Classes on axis 1 of an (N, C, d) input, as PyTorch.
    let z = t(
        &[
            0.1, -0.3, 2.0, 0.5, 1.5, -1.0, 0.0, 0.7, -0.2, 0.3, 1.1, -0.6,
        ],
        &[2, 3, 2],
    );
    let tz = Tensor::<i64>::from_vec(vec![2, 0, 1, 1], [2, 2]).unwrap();
    let f = move |v: &[Tensor<f64>]| nn::cross_entropy(&v[0], &tz, Reduction::Mean, 0.0);
    gradcheck(f, &[z], 1e-6, 1e-6).unwrap();
    gradcheck(
        |v| nn::mse_loss(&v[0], &v[1], Reduction::Sum),
        &[logits.clone(), y.clone()],
        1e-6,
        1e-6,
    )
    .unwrap();
    gradcheck(
        |v| nn::binary_cross_entropy_with_logits(&v[0], &v[1], Reduction::Mean),
        &[logits.clone(), y],
        1e-6,
        1e-6,
    )
    .unwrap();
    let w = t(&[0.5, -1.0, 0.25, 2.0, 0.0, 1.0], &[2, 3]);
    let b = t(&[0.1, -0.2], &[2]);
    gradcheck(
        |v| nn::linear(&v[0], &v[1], Some(&v[2])),
        &[logits, w, b],
        1e-6,
        1e-6,
    )
    .unwrap();
}

#[test]
fn optimizers_match_hand_computed_updates() {
    // loss = sum(p²): gradient 2p.
    let run = |opt: &mut dyn Optimizer, p: &Tensor<f64>, steps: usize| {
        for _ in 0..steps {
            opt.zero_grad().unwrap();
            p.mul(p).sum(&[], false).backward();
            opt.step().unwrap();
        }
        p.to_vec()[0]
    };
    let leaf = |v: f64| t(&[v], &[1]).with_requires_grad(true).unwrap();
    // Plain SGD: p ← p - lr·2p.
    let p = leaf(1.0);
    assert_close(
        &[run(&mut Sgd::new(vec![p.clone()], 0.1), &p, 2)],
        &[0.64],
        1e-12,
    );
    // Momentum 0.9, weight decay 0.1: g = 2p + 0.1p; b = 0.9b + g; p -= lr·b.
    let p = leaf(1.0);
    let mut sgd = Sgd::new(vec![p.clone()], 0.1);
    sgd.momentum = 0.9;
    sgd.weight_decay = 0.1;
    let (mut pv, mut b) = (1.0f64, 0.0f64);
    for k in 0..3 {
        let g = 2.1 * pv;
        b = if k == 0 { g } else { 0.9 * b + g };
        pv -= 0.1 * b;
    }
    assert_close(&[run(&mut sgd, &p, 3)], &[pv], 1e-12);
    // Nesterov: g ← g + μ·b.
    let p = leaf(1.0);
    let mut nes = Sgd::new(vec![p.clone()], 0.1);
    nes.momentum = 0.9;
    nes.nesterov = true;
    let (mut pv, mut b) = (1.0f64, 0.0f64);
    for k in 0..3 {
        let g = 2.0 * pv;
        b = if k == 0 { g } else { 0.9 * b + g };
        pv -= 0.1 * (g + 0.9 * b);
    }
    assert_close(&[run(&mut nes, &p, 3)], &[pv], 1e-12);
    // Adam and AdamW with bias correction.
    for decoupled in [false, true] {
        let p = leaf(1.0);
        let mut adam = if decoupled {
            Adam::adamw(vec![p.clone()], 0.01)
        } else {
            let mut a = Adam::new(vec![p.clone()], 0.01);
            a.weight_decay = 0.01;
            a
        };
        let (mut pv, mut m, mut v) = (1.0f64, 0.0f64, 0.0f64);
        for k in 1..=3 {
            let mut g = 2.0 * pv;
            if decoupled {
                pv *= 1.0 - 0.01 * 0.01;
            } else {
                g += 0.01 * pv;
            }
            m = 0.9 * m + 0.1 * g;
            v = 0.999 * v + 0.001 * g * g;
            let mh = m / (1.0 - 0.9f64.powi(k));
            let vh = v / (1.0 - 0.999f64.powi(k));
            pv -= 0.01 * mh / (vh.sqrt() + 1e-8);
        }
        assert_close(&[run(&mut adam, &p, 3)], &[pv], 1e-12);
    }
    // A parameter without requires_grad is a clear error.
    let mut bad = Sgd::new(vec![t(&[1.0], &[1])], 0.1);
    assert!(
        bad.step()
            .unwrap_err()
            .to_string()
            .contains("with_requires_grad")
    );
    // Schedules.
    let step = StepDecay {
        base: 1.0,
        step_size: 2,
        gamma: 0.5,
    };
    assert_eq!([0, 1, 2, 5].map(|e| step.lr_at(e)), [1.0, 1.0, 0.5, 0.25]);
    let cos = CosineAnnealing {
        base: 1.0,
        min: 0.0,
        t_max: 10,
    };
    assert_close(
        &[cos.lr_at(0), cos.lr_at(5), cos.lr_at(10), cos.lr_at(20)],
        &[1.0, 0.5, 0.0, 0.0],
        1e-12,
    );
    let mut opt = Sgd::new(vec![leaf(1.0)], 1.0);
    cos.apply(&mut opt, 5);
    assert_close(&[opt.lr()], &[0.5], 1e-12);
}

#[test]
fn normalisation_embedding_and_dropout() {
    let xs = [0.5, -1.0, 2.0, 4.0, 0.0, 1.0];
    let x = t(&xs, &[2, 3]);
    // layer_norm over the last axis against the formula, with an affine weight and bias.
    let w = t(&[1.0, 2.0, 0.5], &[3]);
    let b = t(&[0.0, 0.1, -0.1], &[3]);
    let y = nn::layer_norm(&x, &[3], Some(&w), Some(&b), 1e-5).unwrap();
    let mut want = Vec::new();
    for r in xs.chunks(3) {
        let m = r.iter().sum::<f64>() / 3.0;
        let v = r.iter().map(|a| (a - m).powi(2)).sum::<f64>() / 3.0;
        for (i, a) in r.iter().enumerate() {
            want.push((a - m) / (v + 1e-5).sqrt() * [1.0, 2.0, 0.5][i] + [0.0, 0.1, -0.1][i]);
        }
    }
    assert_close(&y.to_vec(), &want, 1e-12);
    let r = nn::rms_norm(&x, &[3], None, 1e-6).unwrap();
    let mut want = Vec::new();
    for row in xs.chunks(3) {
        let ms = row.iter().map(|a| a * a).sum::<f64>() / 3.0;
        want.extend(row.iter().map(|a| a / (ms + 1e-6).sqrt()));
    }
    assert_close(&r.to_vec(), &want, 1e-12);
    assert!(nn::layer_norm(&x, &[2], None, None, 1e-5).is_err());
    // The affine parameters have normalized_shape exactly (PyTorch refuses broadcasting ones).
    assert!(nn::layer_norm(&x, &[2, 3], Some(&w), None, 1e-5).is_err());
    assert!(nn::layer_norm(&x, &[3], None, Some(&t(&[1.0], &[1])), 1e-5).is_err());
    let w6 = t(&[1.0, 2.0, 0.5, -1.0, 0.3, 1.5], &[2, 3]);
    gradcheck(
        |v| nn::layer_norm(&v[0], &[2, 3], Some(&v[1]), Some(&v[2]), 1e-5),
        &[x.clone(), w6.clone(), w6.try_mul_scalar(0.5).unwrap()],
        1e-6,
        1e-5,
    )
    .unwrap();
    gradcheck(
        |v| nn::rms_norm(&v[0], &[3], Some(&v[1]), 1e-6),
        &[x.clone(), w],
        1e-6,
        1e-5,
    )
    .unwrap();
    // 16-bit input computes in f32.
    let h = nn::layer_norm(&x.cast::<bf16>(), &[3], None, None, 1e-5)
        .unwrap()
        .cast::<f64>();
    assert_close(
        &h.to_vec(),
        &nn::layer_norm(&x, &[3], None, None, 1e-5).unwrap().to_vec(),
        1e-2,
    );
    // embedding: rows by index, any index shape; the gradient adds into the rows used.
    let table = t(&[0.0, 1.0, 10.0, 11.0, 20.0, 21.0], &[3, 2]);
    let idx = Tensor::<i64>::from_vec(vec![2, 0, 2, 2], [2, 2]).unwrap();
    let e = nn::embedding(&idx, &table).unwrap();
    // PyTorch refuses negative indices here (no counting from the end), and so do classes.
    let neg = Tensor::<i64>::from_vec(vec![0, -1], [2]).unwrap();
    assert!(matches!(
        nn::embedding(&neg, &table),
        Err(Error::Index {
            op: "embedding",
            index: -1,
            ..
        })
    ));
    assert!(matches!(
        nn::cross_entropy(
            &table,
            &Tensor::from_vec(vec![0i64, -1, 1], [3]).unwrap(),
            nn::Reduction::Mean,
            0.0
        ),
        Err(Error::Index {
            op: "cross_entropy",
            index: -1,
            ..
        })
    ));
    assert!(matches!(
        nn::nll_loss(
            &table,
            &Tensor::from_vec(vec![0i64, 2, 1], [3]).unwrap(),
            nn::Reduction::Sum
        ),
        Err(Error::Index {
            op: "nll_loss",
            index: 2,
            size: 2,
            ..
        })
    ));
    // PyTorch's unbatched form: (C) scores and a 0-d class give a 0-d loss.
    let one = nn::cross_entropy(
        &t(&[1.0, 2.0, 3.0], &[3]),
        &Tensor::scalar(2i64),
        nn::Reduction::None,
        0.0,
    )
    .unwrap();
    let want = 3.0 - (1f64.exp() + 2f64.exp() + 3f64.exp()).ln();
    assert_eq!(one.dims(), &[] as &[usize]);
    assert!((one.item() + want).abs() < 1e-12);
    assert_eq!(e.dims(), &[2, 2, 2]);
    assert_eq!(
        e.to_vec(),
        vec![20.0, 21.0, 0.0, 1.0, 20.0, 21.0, 20.0, 21.0]
    );
    let leaf = table.deep_copy().with_requires_grad(true).unwrap();
    nn::embedding(&idx, &leaf)
        .unwrap()
        .sum(&[], false)
        .backward();
    assert_eq!(
        leaf.grad().unwrap().to_vec(),
        vec![1.0, 1.0, 0.0, 0.0, 3.0, 3.0]
    );
    assert!(nn::embedding(&Tensor::<i64>::from_vec(vec![3], [1]).unwrap(), &table).is_err());
    // dropout: identity in eval; in training zeros about p and scales the rest by 1/(1-p).
    let ones = Tensor::<f64>::ones([10_000]).unwrap();
    assert_eq!(
        nn::dropout(&ones, 0.3, false).unwrap().to_vec(),
        ones.to_vec()
    );
    let d = nn::dropout(&ones, 0.3, true).unwrap().to_vec();
    let kept = d.iter().filter(|&&v| v != 0.0).count() as f64 / 10_000.0;
    assert!((kept - 0.7).abs() < 0.03, "kept {kept}");
    assert!(d.iter().all(|&v| v == 0.0 || (v - 1.0 / 0.7).abs() < 1e-12));
    let seeded = crate::common::reproducible(7, || nn::dropout(&ones, 0.3, true).unwrap().to_vec());
    assert!(seeded);
    assert!(nn::dropout(&ones, 1.5, true).is_err());
}

/// Direct loops over the definition of PyTorch's conv2d (cross-correlation, zero padding).
#[allow(clippy::too_many_arguments)]
fn conv2d_ref(
    x: &[f64],
    [n, c, h, w]: [usize; 4],
    k: &[f64],
    [o, cg, kh, kw]: [usize; 4],
    b: &[f64],
    opts: nn::Conv2dOptions,
) -> (Vec<f64>, [usize; 4]) {
    let (sh, sw) = opts.stride;
    let (ph, pw) = opts.padding;
    let (dh, dw) = opts.dilation;
    let oh = (h + 2 * ph - dh * (kh - 1) - 1) / sh + 1;
    let ow = (w + 2 * pw - dw * (kw - 1) - 1) / sw + 1;
    let og = o / opts.groups;
    let mut out = vec![0.0; n * o * oh * ow];
    for b_ in 0..n {
        for oc in 0..o {
            let grp = oc / og;
            for y in 0..oh {
                for xq in 0..ow {
                    let mut acc = b.get(oc).copied().unwrap_or(0.0);
                    for ci in 0..cg {
                        let ic = grp * cg + ci;
                        for i in 0..kh {
                            for j in 0..kw {
                                let r = (y * sh + i * dh) as isize - ph as isize;
                                let q = (xq * sw + j * dw) as isize - pw as isize;
                                if r >= 0 && q >= 0 && (r as usize) < h && (q as usize) < w {
                                    let xv = x[((b_ * c + ic) * h + r as usize) * w + q as usize];
                                    acc += xv * k[((oc * cg + ci) * kh + i) * kw + j];
                                }
                            }
                        }
                    }
                    out[((b_ * o + oc) * oh + y) * ow + xq] = acc;
                }
            }
        }
    }
    (out, [n, o, oh, ow])
}

fn vals(n: usize, seed: u64) -> Vec<f64> {
    (0..n)
        .map(|i| (((i as u64 + 1) * 2654435761 + seed * 97) % 1000) as f64 / 500.0 - 1.0)
        .collect()
}

/// The input gradient of [`conv2d_ref`] for the output gradient `gy`: each product's
/// `gy · w` added to the input element it read.
fn conv2d_input_grad_ref(
    gy: &[f64],
    [n, c, h, w]: [usize; 4],
    k: &[f64],
    [o, cg, kh, kw]: [usize; 4],
    opts: nn::Conv2dOptions,
) -> Vec<f64> {
    let ((sh, sw), (ph, pw), (dh, dw)) = (opts.stride, opts.padding, opts.dilation);
    let oh = (h + 2 * ph - dh * (kh - 1) - 1) / sh + 1;
    let ow = (w + 2 * pw - dw * (kw - 1) - 1) / sw + 1;
    let og = o / opts.groups;
    let mut dx = vec![0.0; n * c * h * w];
    for b_ in 0..n {
        for oc in 0..o {
            for y in 0..oh {
                for xq in 0..ow {
                    let g = gy[((b_ * o + oc) * oh + y) * ow + xq];
                    for ci in 0..cg {
                        let ic = oc / og * cg + ci;
                        for i in 0..kh {
                            for j in 0..kw {
                                let r = (y * sh + i * dh) as isize - ph as isize;
                                let q = (xq * sw + j * dw) as isize - pw as isize;
                                if r >= 0 && q >= 0 && (r as usize) < h && (q as usize) < w {
                                    dx[((b_ * c + ic) * h + r as usize) * w + q as usize] +=
                                        g * k[((oc * cg + ci) * kh + i) * kw + j];
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    dx
}

/// `conv2d` (im2col: each tap's rows of windows copied) and its input gradient (col2im: each
/// tap's products added back where the tap read) against the direct sums, in f64 and f32, for
/// strides, dilations, padding and groups, and with enough planes to split across threads.
#[test]
fn conv2d_and_its_input_gradient_match_direct_sums() {
    let opts = |stride, padding, dilation, groups| nn::Conv2dOptions {
        stride,
        padding,
        dilation,
        groups,
    };
    let cases = [
        ([2, 4, 9, 8], [6, 2, 3, 2], opts((2, 1), (1, 1), (1, 2), 2)),
        ([1, 2, 7, 9], [3, 2, 2, 3], opts((1, 3), (1, 1), (2, 1), 1)),
        ([3, 3, 5, 5], [2, 3, 5, 5], opts((1, 1), (2, 2), (1, 1), 1)),
        ([1, 1, 4, 6], [1, 1, 1, 1], opts((3, 2), (0, 0), (1, 1), 1)),
        (
            [8, 16, 28, 28],
            [4, 16, 3, 3],
            opts((1, 1), (1, 1), (1, 1), 1),
        ),
    ];
    for (xd, wd, o) in cases {
        let (xv, wv) = (vals(xd.iter().product(), 7), vals(wd.iter().product(), 8));
        let (y, yd) = conv2d_ref(&xv, xd, &wv, wd, &[], o);
        let gy = vals(y.len(), 9);
        let want = conv2d_input_grad_ref(&gy, xd, &wv, wd, o);
        let x = t(&xv, &xd).with_requires_grad(true).unwrap();
        let out = nn::conv2d(&x, &t(&wv, &wd), None, o).unwrap();
        assert_close(&out.to_vec(), &y, 1e-12);
        (&out * &t(&gy, &yd)).sum(&[], false).backward();
        assert_close(&x.grad().unwrap(), &want, 1e-12);
        let x32 = x.detach().cast::<f32>().with_requires_grad(true).unwrap();
        let out = nn::conv2d(&x32, &t(&wv, &wd).cast::<f32>(), None, o).unwrap();
        (&out * &t(&gy, &yd).cast::<f32>())
            .sum(&[], false)
            .backward();
        let got: Vec<f64> = x32.grad().unwrap().iter().map(|&v| v as f64).collect();
        assert_close(&got, &want, 1e-4);
    }
}

#[test]
fn convolutions_and_pooling() {
    let cases = [
        (
            [2, 4, 5, 6],
            [6, 2, 3, 2],
            nn::Conv2dOptions {
                stride: (2, 1),
                padding: (1, 2),
                dilation: (1, 2),
                groups: 2,
            },
        ),
        ([1, 3, 4, 4], [2, 3, 2, 2], nn::Conv2dOptions::default()),
        (
            [1, 2, 7, 5],
            [4, 1, 3, 3],
            nn::Conv2dOptions {
                stride: (3, 2),
                padding: (0, 1),
                dilation: (2, 1),
                groups: 2,
            },
        ),
    ];
    for (xd, wd, opts) in cases {
        let (xv, wv) = (vals(xd.iter().product(), 1), vals(wd.iter().product(), 2));
        let bv = vals(wd[0], 3);
        let (want, dims) = conv2d_ref(&xv, xd, &wv, wd, &bv, opts);
        let (x, w, b) = (t(&xv, &xd), t(&wv, &wd), t(&bv, &[wd[0]]));
        let y = nn::conv2d(&x, &w, Some(&b), opts).unwrap();
        assert_eq!(y.dims(), &dims);
        assert_close(&y.to_vec(), &want, 1e-12);
        gradcheck(
            |v| nn::conv2d(&v[0], &v[1], Some(&v[2]), opts),
            &[x, w, b],
            1e-6,
            1e-5,
        )
        .unwrap();
    }
    // conv1d is conv2d with a height of 1.
    let x = t(&vals(2 * 3 * 7, 4), &[2, 3, 7]);
    let w = t(&vals(4 * 3 * 3, 5), &[4, 3, 3]);
    let opts = nn::Conv2dOptions {
        stride: (1, 2),
        padding: (0, 1),
        ..Default::default()
    };
    let y = nn::conv1d(&x, &w, None, opts).unwrap();
    let (want, _) = conv2d_ref(
        &x.to_vec(),
        [2, 3, 1, 7],
        &w.to_vec(),
        [4, 3, 1, 3],
        &[],
        opts,
    );
    assert_eq!(y.dims(), &[2, 4, 4]);
    assert_close(&y.to_vec(), &want, 1e-12);
    // Windows that do not fit, and bad shapes, are errors.
    let small = t(&[1.0; 4], &[1, 1, 2, 2]);
    assert!(
        nn::conv2d(
            &small,
            &t(&[1.0; 9], &[1, 1, 3, 3]),
            None,
            Default::default()
        )
        .is_err()
    );
    assert!(
        nn::conv2d(
            &small,
            &t(&[1.0; 8], &[1, 2, 2, 2]),
            None,
            Default::default()
        )
        .is_err()
    );
    let zero_stride = nn::Conv2dOptions {
        stride: (0, 1),
        ..Default::default()
    };
    assert!(nn::conv2d(&small, &t(&[1.0], &[1, 1, 1, 1]), None, zero_stride).is_err());
    // Huge strides and dilations where they cannot matter, or overflow: never a panic.
    for big in [usize::MAX, 1 << 62] {
        let o = nn::Conv2dOptions {
            stride: (big, big),
            dilation: (big, 1),
            ..Default::default()
        };
        let r = nn::conv2d(&small, &t(&[1.0], &[1, 1, 1, 1]), None, o);
        assert!(r.is_err() || r.unwrap().dims() == [1, 1, 1, 1]);
        assert!(nn::max_pool2d(&small, (1, 1), (big, big), (0, 0)).is_ok_and(|p| p.numel() == 1));
        let leaf = small.deep_copy().with_requires_grad(true).unwrap();
        let p = nn::avg_pool2d(&leaf, (2, 1), (big, big), (0, 0)).unwrap();
        p.sum(&[], false).backward();
        assert_eq!(leaf.grad().unwrap().to_vec(), vec![0.5, 0.0, 0.5, 0.0]);
    }
    // Pooling: 2×2 windows, stride 2, one row of padding.
    let x = t(
        &(0..16).map(|v| v as f64).collect::<Vec<_>>(),
        &[1, 1, 4, 4],
    );
    assert_eq!(
        nn::max_pool2d(&x, (2, 2), (2, 2), (0, 0)).unwrap().to_vec(),
        vec![5.0, 7.0, 13.0, 15.0]
    );
    assert_eq!(
        nn::avg_pool2d(&x, (2, 2), (2, 2), (0, 0)).unwrap().to_vec(),
        vec![2.5, 4.5, 10.5, 12.5]
    );
    let p = nn::max_pool2d(&x, (2, 2), (2, 2), (1, 1)).unwrap();
    assert_eq!(p.dims(), &[1, 1, 3, 3]);
    assert_eq!(
        p.to_vec(),
        vec![0.0, 2.0, 3.0, 8.0, 10.0, 11.0, 12.0, 14.0, 15.0]
    );
    let a = nn::avg_pool2d(&x, (2, 2), (2, 2), (1, 1)).unwrap();
    assert_eq!(a.to_vec()[0], 0.0 / 4.0); // padded zeros count
    // Windows that tile the input (stride = kernel, no padding) take the reshape path: rows
    // and columns past the last whole window are dropped; a transposed input works too.
    let v = vals(2 * 3 * 5 * 7, 5);
    let x = t(&v, &[2, 3, 7, 5]).transpose(2, 3).unwrap(); // (2, 3, 5, 7), strided
    let (mx, av) = (
        nn::max_pool2d(&x, (2, 3), (2, 3), (0, 0)).unwrap(),
        nn::avg_pool2d(&x, (2, 3), (2, 3), (0, 0)).unwrap(),
    );
    assert_eq!(mx.dims(), &[2, 3, 2, 2]);
    let at = |b: usize, c: usize, h: usize, w: usize| v[((b * 3 + c) * 7 + w) * 5 + h];
    for (k, (m, a)) in mx.to_vec().iter().zip(av.to_vec()).enumerate() {
        let (b, c, i, j) = (k / 12, k / 4 % 3, k / 2 % 2, k % 2);
        let win: Vec<f64> = (0..2)
            .flat_map(|di| (0..3).map(move |dj| (2 * i + di, 3 * j + dj)))
            .map(|(h, w)| at(b, c, h, w))
            .collect();
        assert_eq!(
            *m,
            win.iter().cloned().fold(f64::MIN, f64::max),
            "max window {k}"
        );
        assert!(
            (a - win.iter().sum::<f64>() / 6.0).abs() < 1e-12,
            "mean window {k}"
        );
    }
    for pool in [nn::max_pool2d::<f64, Cpu>, nn::avg_pool2d::<f64, Cpu>] {
        gradcheck(
            |v| pool(&v[0], (2, 3), (2, 3), (0, 0)),
            &[x.clone()],
            1e-6,
            1e-5,
        )
        .unwrap();
    }
    let r = t(&vals(2 * 3 * 5 * 5, 6), &[2, 3, 5, 5]);
    gradcheck(
        |v| nn::max_pool2d(&v[0], (3, 2), (2, 1), (1, 0)),
        &[r.clone()],
        1e-6,
        1e-5,
    )
    .unwrap();
    gradcheck(
        |v| nn::avg_pool2d(&v[0], (2, 3), (1, 2), (1, 1)),
        &[r],
        1e-6,
        1e-5,
    )
    .unwrap();
}

/// The pooling kernels against a naive loop: every geometry (tiling, overlapping, padded,
/// kernel 1), f64, f32 and bf16, NaN and `-inf` windows, a strided input and enough planes to
/// split across threads; without recording, while recording, and with indices. `avg_pool2d`
/// beside `max_pool2d`: the window's sum over `kh·kw` (padding counts as zeros), rounded once.
#[test]
fn pooling_matches_naive_windows() {
    fn naive(
        x: &[f64],
        [n, c, h, w]: [usize; 4],
        k: (usize, usize),
        s: (usize, usize),
        p: (usize, usize),
        max: bool,
    ) -> Vec<f64> {
        let (oh, ow) = ((h + 2 * p.0 - k.0) / s.0 + 1, (w + 2 * p.1 - k.1) / s.1 + 1);
        let mut out = Vec::new();
        for plane in 0..n * c {
            for i in 0..oh {
                for j in 0..ow {
                    let (mut m, mut sum) = (f64::NEG_INFINITY, 0.0);
                    for r in
                        (i * s.0).saturating_sub(p.0)..(i * s.0 + k.0).saturating_sub(p.0).min(h)
                    {
                        for q in (j * s.1).saturating_sub(p.1)
                            ..(j * s.1 + k.1).saturating_sub(p.1).min(w)
                        {
                            let v = x[plane * h * w + r * w + q];
                            sum += v;
                            if v.is_nan() || m.is_nan() {
                                m = f64::NAN;
                            } else {
                                m = m.max(v);
                            }
                        }
                    }
                    out.push(if max { m } else { sum / (k.0 * k.1) as f64 });
                }
            }
        }
        out
    }
    fn check<T: FloatElement>(
        dims: [usize; 4],
        k: (usize, usize),
        s: (usize, usize),
        p: (usize, usize),
    ) {
        let [n, c, h, w] = dims;
        let mut v = vals(n * c * h * w, 9);
        for (i, x) in v.iter_mut().enumerate() {
            match i % 37 {
                0 => *x = f64::NAN,
                5..=7 => *x = f64::NEG_INFINITY,
                _ => {}
            }
        }
        // Round to T first, so the reference sees T's values.
        let xt = Tensor::<f64>::from_vec(v, [n, c, w, h])
            .unwrap()
            .cast::<T>();
        let x = xt.transpose(2, 3).unwrap(); // (n, c, h, w), strided
        let xs: Vec<f64> = x.contiguous().cast::<f64>().to_vec();
        // The mean rounded to T; f64's own sums may differ in the last bits by their order.
        let (want, mean) = (
            naive(&xs, dims, k, s, p, true),
            naive(&xs, dims, k, s, p, false),
        );
        let mean: Vec<f64> = mean.iter().map(|&m| T::from_f64(m).to_f64()).collect();
        let close = |got: &Tensor<T>, want: &[f64], how: &str| {
            let got = got.cast::<f64>().to_vec();
            assert_eq!(got.len(), want.len(), "{how} {dims:?} {k:?} {s:?} {p:?}");
            for (i, (a, b)) in got.iter().zip(want).enumerate() {
                assert!(
                    a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-12 * b.abs(),
                    "{how} {dims:?} {k:?} {s:?} {p:?} at {i}: {a} vs {b}"
                );
            }
        };
        let same = |got: &Tensor<T>, how: &str| close(got, &want, how);
        same(&nn::max_pool2d(&x, k, s, p).unwrap(), "no grad");
        same(
            &nn::max_pool2d_with_indices(&x, k, s, p).unwrap().0,
            "with indices",
        );
        let leaf = x.contiguous().with_requires_grad(true).unwrap();
        same(&nn::max_pool2d(&leaf, k, s, p).unwrap(), "recording");
        close(&nn::avg_pool2d(&x, k, s, p).unwrap(), &mean, "avg");
        close(
            &nn::avg_pool2d(&leaf, k, s, p).unwrap(),
            &mean,
            "avg recording",
        );
    }
    let geometries = [
        ((2, 2), (2, 2), (0, 0)),
        ((2, 2), (2, 2), (1, 1)),
        ((3, 3), (2, 2), (1, 1)),
        ((3, 3), (1, 1), (1, 1)),
        ((2, 3), (1, 2), (1, 1)),
        ((1, 1), (1, 1), (0, 0)),
        ((1, 1), (3, 2), (0, 0)),
        ((3, 2), (2, 1), (1, 0)),
    ];
    for (k, s, p) in geometries {
        check::<f64>([2, 3, 7, 6], k, s, p);
        check::<f32>([2, 3, 5, 8], k, s, p);
        check::<bf16>([1, 2, 6, 5], k, s, p);
    }
    check::<f32>([64, 16, 8, 8], (2, 2), (2, 2), (0, 0));
    check::<f32>([9, 40, 13, 11], (3, 3), (2, 2), (1, 1));
}

/// A device-generic caller: the method forms compile for any `D: Backend` and agree with the
/// free functions; the plain forms panic with the `try_` form's error.
fn method_forms<D: Backend>(dev: &D) {
    let v = |n: usize, s: u64| vals(n, s).into_iter().map(|x| x as f32).collect::<Vec<_>>();
    let x = Tensor::<f32, D>::from_vec_on(v(2 * 3 * 5 * 5, 1), [2, 3, 5, 5], dev).unwrap();
    let w = Tensor::<f32, D>::from_vec_on(v(4 * 3 * 3 * 3, 2), [4, 3, 3, 3], dev).unwrap();
    let opts = nn::Conv2dOptions::default();
    let same = |a: &Tensor<f32, D>, b: &Tensor<f32, D>| assert_eq!(a.to_vec(), b.to_vec());
    same(
        &x.conv2d(&w, None, opts),
        &nn::conv2d(&x, &w, None, opts).unwrap(),
    );
    let p = x.max_pool2d((2, 2), (2, 2), (0, 0));
    same(&p, &nn::max_pool2d(&x, (2, 2), (2, 2), (0, 0)).unwrap());
    same(
        &x.avg_pool2d((3, 3), (1, 1), (1, 1)),
        &nn::avg_pool2d(&x, (3, 3), (1, 1), (1, 1)).unwrap(),
    );
    let flat = p.reshape([2, 12]);
    let lw = Tensor::<f32, D>::from_vec_on(v(5 * 12, 3), [5, 12], dev).unwrap();
    let logits = flat.linear(&lw, None);
    same(&logits, &nn::linear(&flat, &lw, None).unwrap());
    let target = Tensor::<i64, D>::from_vec_on(vec![4, 0], [2], dev).unwrap();
    let ce = logits.cross_entropy(&target, Reduction::Mean, 0.1);
    same(
        &ce,
        &nn::cross_entropy(&logits, &target, Reduction::Mean, 0.1).unwrap(),
    );
    let nll = logits.log_softmax(1).nll_loss(&target, Reduction::Sum);
    assert!(nll.item().is_finite());
    same(
        &logits.layer_norm(&[5], None, None, 1e-5),
        &nn::layer_norm(&logits, &[5], None, None, 1e-5).unwrap(),
    );
    same(
        &logits.rms_norm(&[5], None, 1e-6),
        &nn::rms_norm(&logits, &[5], None, 1e-6).unwrap(),
    );
    same(&logits.dropout(0.5, false), &logits);
    let emb = target.embedding(&lw);
    assert_eq!(emb.dims(), &[2, 12]);
    assert_eq!(emb.to_vec()[..12], lw.to_vec()[48..60]);
    assert!(logits.mse_loss(&logits, Reduction::Sum).item() == 0.0);
    assert!(
        logits
            .binary_cross_entropy_with_logits(&logits, Reduction::None)
            .dims()
            == [2, 5]
    );
    // Errors: the try_ form returns them, the plain form panics with the same message.
    let bad = Tensor::<i64, D>::from_vec_on(vec![7, 0], [2], dev).unwrap();
    let err = logits
        .try_cross_entropy(&bad, Reduction::Mean, 0.0)
        .unwrap_err();
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        logits.cross_entropy(&bad, Reduction::Mean, 0.0)
    }))
    .unwrap_err();
    let msg = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains(&err.to_string()), "{msg} vs {err}");
    assert!(x.try_conv2d(&lw, None, opts).is_err());
    assert!(x.try_max_pool2d((9, 9), (1, 1), (0, 0)).is_err());
}

#[test]
fn nn_method_forms() {
    method_forms(&Cpu);
    match Cuda::new(0) {
        Ok(gpu) => method_forms(&gpu),
        Err(e) => println!("nn method forms on CUDA skipped: {e}"),
    }
}

/// The activations, losses, normalisations and pooling added with `nn/activations.rs`, at
/// PyTorch 2.15's values; their gradients are in the PyTorch fixture (`torch_grads.rs`).
#[test]
fn more_functional_ops_match_pytorch() {
    let close = |got: Vec<f64>, want: &[f64]| {
        let ok =
            got.len() == want.len() && got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-12);
        assert!(ok, "{got:?} against {want:?}");
    };
    // Kinks: PyTorch's gradients of hardswish at -3, -2, 0, 2, 3, 4.
    let x = t(&[-3.0, -2.0, 0.0, 2.0, 3.0, 4.0], &[6])
        .with_requires_grad(true)
        .unwrap();
    x.hardswish().sum(&[], false).backward();
    close(
        x.grad_tensor().unwrap().to_vec(),
        &[0.0, -1.0 / 6.0, 0.5, 7.0 / 6.0, 1.0, 1.0],
    );
    close(
        t(&[-1.0, 1.0], &[2]).selu().to_vec(),
        &[-1.1113307378125625, 1.0507009873554805],
    );
    close(t(&[-1.0], &[1]).celu(2.0).to_vec(), &[-0.7869386805747332]);
    close(t(&[1.0], &[1]).mish().to_vec(), &[0.8650983882673103]);
    close(
        t(&[-4.0, 0.0, 7.0], &[3]).relu6().to_vec(),
        &[0.0, 0.0, 6.0],
    );
    assert!(t(&[1.0, 2.0, 3.0], &[3]).try_glu(0).is_err());
    // Losses.
    let (a, b) = (t(&[0.0, 3.0], &[2]), t(&[0.5, 0.0], &[2]));
    close(
        nn::huber_loss(&a, &b, Reduction::None, 1.0)
            .unwrap()
            .to_vec(),
        &[0.125, 2.5],
    );
    close(
        nn::smooth_l1_loss(&a, &b, Reduction::None, 2.0)
            .unwrap()
            .to_vec(),
        &[0.0625, 2.0],
    );
    close(
        nn::l1_loss(&a, &b, Reduction::Sum).unwrap().to_vec(),
        &[3.5],
    );
    assert!(nn::smooth_l1_loss(&a, &b, Reduction::Sum, -1.0).is_err());
    let kl = nn::kl_div(
        &t(&[-1.0, -2.0], &[2]),
        &t(&[0.0, 0.5], &[2]),
        Reduction::Sum,
        false,
    );
    close(kl.unwrap().to_vec(), &[0.6534264097200273]);
    // batch_norm in training updates the running statistics in place (unbiased variance).
    let xs: Vec<f64> = (0..24).map(|i| i as f64 * 0.5 - 3.0).collect();
    let x = t(&xs, &[2, 3, 2, 2]);
    let (rm, rv) = (t(&[0.0; 3], &[3]), t(&[1.0; 3], &[3]));
    let y = nn::batch_norm(&x, Some(&rm), Some(&rv), None, None, true, 0.1, 1e-5).unwrap();
    close(
        rm.to_vec(),
        &[0.07500000000000001, 0.275, 0.47500000000000003],
    );
    close(rv.to_vec(), &[1.9642857142857144; 3]);
    let y0 = [
        -1.228847220994995,
        -1.065000924862329,
        -0.901154628729663,
        -0.7373083325969969,
    ];
    close(y.to_vec()[..4].to_vec(), &y0);
    assert!(nn::batch_norm(&x, None, None, None, None, false, 0.1, 1e-5).is_err());
    // A bad weight is refused before the running statistics move.
    let w2 = t(&[1.0, 1.0], &[2]);
    assert!(nn::batch_norm(&x, Some(&rm), Some(&rv), Some(&w2), None, true, 0.1, 1e-5).is_err());
    close(
        rm.to_vec(),
        &[0.07500000000000001, 0.275, 0.47500000000000003],
    );
    assert!(
        nn::batch_norm(
            &t(&[1.0, 2.0], &[1, 2]),
            None,
            None,
            None,
            None,
            true,
            0.1,
            1e-5
        )
        .is_err()
    );
    let g = nn::group_norm(
        &t(&(0..8).map(f64::from).collect::<Vec<_>>(), &[1, 4, 2]),
        2,
        None,
        None,
        1e-5,
    );
    let third = [
        -1.3416354199689269,
        -0.447211806656309,
        0.447211806656309,
        1.3416354199689269,
    ];
    close(g.unwrap().to_vec(), &[third, third].concat());
    assert!(nn::group_norm(&x, 2, None, None, 1e-5).is_err()); // 3 channels
    // adaptive_avg_pool2d of a 5 × 6 ramp to 3 × 4 (overlapping windows).
    let ramp = t(&(0..30).map(f64::from).collect::<Vec<_>>(), &[1, 1, 5, 6]);
    let p = nn::adaptive_avg_pool2d(&ramp, (3, 4)).unwrap();
    let want = [
        3.5, 4.5, 6.5, 7.5, 12.5, 13.5, 15.5, 16.5, 21.5, 22.5, 24.5, 25.5,
    ];
    close(p.to_vec(), &want);
    close(
        nn::adaptive_avg_pool2d(&ramp, (1, 1)).unwrap().to_vec(),
        &[14.5],
    );
    assert!(nn::adaptive_avg_pool2d(&ramp, (0, 1)).is_err());
    let c = nn::cosine_similarity(
        &t(&[1.0, 0.0, 1.0, 1.0], &[2, 2]),
        &t(&[1.0, 1.0], &[2]),
        -1,
        1e-8,
    );
    close(
        c.unwrap().to_vec(),
        &[0.7071067811865475, 0.9999999999999998],
    );
}

/// The channel and alpha dropouts on every device: whole channels kept (scaled by 1/(1-p))
/// or zeroed, about a fraction p of them dropped; alpha dropout keeps a standard normal's mean
/// and variance and gives each element one of its two affine images; the identities (eval,
/// p = 0), zeros at p = 1, gradients through the mask, and refused shapes and p.
#[test]
fn dropout_variants() {
    on_every_device!("dropout_variants", |dev| {
        let p = 0.4;
        let ones = |dims: &[usize]| {
            Tensor::<f64>::ones(dims.to_vec())
                .unwrap()
                .to_device(&dev)
                .unwrap()
        };
        // (output, elements per channel) for each feature dropout and layout.
        let cases = [
            (nn::dropout1d(&ones(&[16, 64, 7]), p, true).unwrap(), 7),
            (nn::dropout1d(&ones(&[64, 7]), p, true).unwrap(), 7),
            (nn::dropout2d(&ones(&[8, 64, 5, 3]), p, true).unwrap(), 15),
            (nn::dropout2d(&ones(&[16, 64, 6]), p, true).unwrap(), 6),
            (
                nn::dropout3d(&ones(&[4, 64, 2, 3, 3]), p, true).unwrap(),
                18,
            ),
            (nn::dropout3d(&ones(&[64, 2, 3, 3]), p, true).unwrap(), 18),
        ];
        for (k, (y, per)) in cases.iter().enumerate() {
            let v = crate::common::host_f64s(y);
            let mut dropped = 0;
            for ch in v.chunks(*per) {
                assert!(ch.iter().all(|&e| e == ch[0]), "case {k}: a channel split");
                assert!(
                    ch[0] == 0.0 || (ch[0] - 1.0 / (1.0 - p)).abs() < 1e-12,
                    "case {k}"
                );
                dropped += usize::from(ch[0] == 0.0);
            }
            let frac = dropped as f64 / (v.len() / per) as f64;
            assert!((frac - p).abs() < 0.15, "case {k}: dropped {frac}");
        }
        // Alpha dropout of a standard normal sample keeps mean 0 and variance 1.
        let a = 1.0 / ((1.7580993408473766f64.powi(2) * p + 1.0) * (1.0 - p)).sqrt();
        let (al, n) = (1.7580993408473766, 200_000);
        let x = Tensor::<f64>::randn([n]).unwrap();
        let xv = x.to_vec();
        let y = crate::common::host_f64s(
            &nn::alpha_dropout(&x.to_device(&dev).unwrap(), p, true).unwrap(),
        );
        let mean = y.iter().sum::<f64>() / n as f64;
        let var = y.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n as f64;
        assert!(
            mean.abs() < 0.02 && (var - 1.0).abs() < 0.03,
            "{mean} {var}"
        );
        for (&yi, &xi) in y.iter().zip(&xv) {
            let (kept, gone) = (a * xi + al * a * p, -al * a + al * a * p);
            assert!(
                (yi - kept).abs() < 1e-9 || (yi - gone).abs() < 1e-9,
                "{xi} -> {yi}"
            );
        }
        // feature_alpha_dropout: one draw per (n, c) row.
        let f = nn::feature_alpha_dropout(&ones(&[32, 16, 10]), p, true).unwrap();
        for row in crate::common::host_f64s(&f).chunks(10) {
            assert!(row.iter().all(|&e| e == row[0]));
        }
        // Identities, zeros, and the gradient (the mask times 1/(1-p)).
        let x = ones(&[2, 3, 4, 4]);
        for d in [nn::dropout2d, nn::alpha_dropout, nn::feature_alpha_dropout] {
            assert_eq!(d(&x, p, false).unwrap().to_vec(), x.to_vec());
            assert_eq!(d(&x, 0.0, true).unwrap().to_vec(), x.to_vec());
            assert!(d(&x, 1.0, true).unwrap().to_vec().iter().all(|&v| v == 0.0));
            assert!(d(&x, 1.5, true).is_err() && d(&x, f64::NAN, true).is_err());
        }
        let leaf = x.detach().with_requires_grad(true).unwrap();
        let y = nn::dropout2d(&leaf, p, true).unwrap();
        y.sum(&[], false).backward();
        assert_eq!(leaf.grad_tensor().unwrap().to_vec(), y.detach().to_vec());
        // Refused layouts name the op and the shape.
        let bad = [
            nn::dropout1d(&ones(&[4]), p, true),
            nn::dropout2d(&ones(&[4, 4]), p, true),
            nn::dropout3d(&ones(&[4, 4, 4]), p, true),
            nn::feature_alpha_dropout(&ones(&[4]), p, true),
        ];
        for e in bad {
            let e = e.unwrap_err().to_string();
            assert!(e.contains("dropout") && e.contains("shape"), "{e}");
        }
    });
}

#[test]
fn layer_norm_with_one_affine_parameter_or_leading_axes() {
    // One recorded node with the affine: each parameter's gradient alone, and rows spread
    // over two leading axes.
    let x = t(
        &(0..24)
            .map(|i| ((i * 7) % 11) as f64 * 0.3 - 1.0)
            .collect::<Vec<_>>(),
        &[2, 3, 4],
    );
    let w = t(&[1.0, 2.0, 0.5, -1.0], &[4]);
    let b = t(&[0.0, 0.1, -0.1, 0.3], &[4]);
    let tol = (1e-6, 1e-5);
    gradcheck(
        |v| nn::layer_norm(&v[0], &[4], Some(&v[1]), None, 1e-5),
        &[x.clone(), w.clone()],
        tol.0,
        tol.1,
    )
    .unwrap();
    gradcheck(
        |v| nn::layer_norm(&v[0], &[4], None, Some(&v[1]), 1e-5),
        &[x.clone(), b.clone()],
        tol.0,
        tol.1,
    )
    .unwrap();
    gradcheck(
        |v| nn::layer_norm(&v[0], &[4], Some(&v[1]), Some(&v[2]), 1e-5)?.try_square(),
        &[x.clone(), w.clone(), b.clone()],
        tol.0,
        tol.1,
    )
    .unwrap();
    // Recorded or not, the same values; and as the normalisation, a mul and an add.
    let plain = nn::layer_norm(&x, &[4], Some(&w), Some(&b), 1e-5).unwrap();
    let leaf = x.clone().with_requires_grad(true).unwrap();
    let recorded = nn::layer_norm(&leaf, &[4], Some(&w), Some(&b), 1e-5).unwrap();
    assert_eq!(recorded.grad_fn().unwrap().name(), "layer_norm");
    assert_eq!(recorded.to_vec(), plain.to_vec());
    let composed = nn::layer_norm(&x, &[4], None, None, 1e-5)
        .unwrap()
        .mul(&w)
        .add(&b);
    assert_close(&plain.to_vec(), &composed.to_vec(), 1e-14);
}

#[test]
fn mse_loss_as_one_node_matches_its_definition() {
    use crate::common::host_f64s;
    on_every_device!("mse_loss_as_one_node_matches_its_definition", |dev| {
        let xs: Vec<f32> = (0..600)
            .map(|i| ((i * 37) % 101) as f32 * 0.05 - 2.0)
            .collect();
        let ts: Vec<f32> = (0..600)
            .map(|i| ((i * 11) % 89) as f32 * 0.03 - 1.0)
            .collect();
        let x = Tensor::<f32>::from_vec(xs.clone(), [20, 30])
            .unwrap()
            .to_device(&dev)
            .unwrap();
        let t = Tensor::<f32>::from_vec(ts.clone(), [20, 30])
            .unwrap()
            .to_device(&dev)
            .unwrap();
        let sq: f64 = xs
            .iter()
            .zip(&ts)
            .map(|(&a, &b)| ((a - b) as f64).powi(2))
            .sum();
        for (r, want) in [(Reduction::Mean, sq / 600.0), (Reduction::Sum, sq)] {
            let xl = x.clone().with_requires_grad(true).unwrap();
            let tl = t.clone().with_requires_grad(true).unwrap();
            let loss = nn::mse_loss(&xl, &tl, r).unwrap();
            assert_eq!(loss.grad_fn().unwrap().name(), "mse_loss");
            let got = host_f64s(&loss)[0];
            assert!((got - want).abs() <= 1e-6 * want, "{r:?}: {got} vs {want}");
            loss.mul_scalar(3.0).backward();
            let scale = if r == Reduction::Mean {
                2.0 / 600.0
            } else {
                2.0
            } * 3.0;
            let (gx, gt) = (
                host_f64s(&xl.grad_tensor().unwrap()),
                host_f64s(&tl.grad_tensor().unwrap()),
            );
            for i in 0..600 {
                let d = (xs[i] - ts[i]) as f64 * scale;
                assert!(
                    (gx[i] - d).abs() <= 1e-6 * (1.0 + d.abs()) && gx[i] == -gt[i],
                    "{r:?} {i}"
                );
            }
        }
        // A broadcast target takes the composed path, with the same values.
        let row = t.narrow(0, 0, 1).unwrap();
        let fused = nn::mse_loss(
            &x,
            &row.expand([20, 30]).unwrap().contiguous(),
            Reduction::Mean,
        )
        .unwrap();
        let composed = nn::mse_loss(&x, &row, Reduction::Mean).unwrap();
        assert!((host_f64s(&fused)[0] - host_f64s(&composed)[0]).abs() < 1e-5);
        // No elements: a NaN mean and a zero sum (PyTorch).
        let e = x.narrow(0, 0, 0).unwrap();
        assert!(host_f64s(&nn::mse_loss(&e, &e, Reduction::Mean).unwrap())[0].is_nan());
        assert_eq!(
            host_f64s(&nn::mse_loss(&e, &e, Reduction::Sum).unwrap())[0],
            0.0
        );
    });
    // Second order: d²/dx² of mean((x - t)²) is 2/n on the diagonal.
    let x = t(&[0.5, -1.0, 2.0, 4.0], &[4])
        .with_requires_grad(true)
        .unwrap();
    let target = t(&[0.0, 1.0, 1.0, 1.0], &[4]);
    let loss = nn::mse_loss(&x, &target, Reduction::Mean).unwrap();
    let g = typed_tensor::autograd::grad_create_graph(&loss, None, &[&x]).unwrap()[0]
        .clone()
        .unwrap();
    assert_eq!(g.to_vec(), vec![0.25, -1.0, 0.5, 1.5]);
    let h = typed_tensor::autograd::grad(&g.sum(&[], false), &[&x], false).unwrap();
    assert_eq!(h[0].as_ref().unwrap().to_vec(), vec![0.5; 4]);
}

/// `batch_norm` in training, one fused node where the device has the kernel, against the
/// definition in f64: the output, the running statistics, and the gradients of the input,
/// weight and bias under a non-uniform output gradient; (N, C), (N, C, L) and (N, C, H, W),
/// each affine combination; a transposed input (the composed path) agrees; gradchecks.
#[test]
fn batch_norm_in_training_matches_its_definition() {
    use crate::common::host_f64s;
    on_every_device!("batch_norm_in_training_matches_its_definition", |dev| {
        for dims in [vec![6usize, 3], vec![4, 3, 5], vec![3, 2, 7, 9]] {
            let (c, numel) = (dims[1], dims.iter().product::<usize>());
            let s: usize = dims[2..].iter().product();
            let chan = |i: usize| i / s % c;
            let xs: Vec<f32> = (0..numel)
                .map(|i| ((i * 37 % 101) as f32 * 0.37).sin() * 2.0 + chan(i) as f32)
                .collect();
            let cs: Vec<f32> = (0..numel)
                .map(|i| ((i * 13 % 67) as f32 * 0.21).cos())
                .collect();
            let ws: Vec<f32> = (0..c).map(|k| 0.5 + k as f32 * 0.75).collect();
            let bs: Vec<f32> = (0..c).map(|k| k as f32 - 0.5).collect();
            let dev_t = |v: &[f32], d: &[usize]| {
                Tensor::<f32>::from_vec(v.to_vec(), d)
                    .unwrap()
                    .to_device(&dev)
                    .unwrap()
            };
            // The definition, per channel, in f64.
            let n = (numel / c) as f64;
            let (mut mean, mut var) = (vec![0f64; c], vec![0f64; c]);
            (0..numel).for_each(|i| mean[chan(i)] += xs[i] as f64 / n);
            (0..numel).for_each(|i| var[chan(i)] += (xs[i] as f64 - mean[chan(i)]).powi(2) / n);
            let sd: Vec<f64> = var.iter().map(|v| (v + 1e-5).sqrt()).collect();
            let xhat: Vec<f64> = (0..numel)
                .map(|i| (xs[i] as f64 - mean[chan(i)]) / sd[chan(i)])
                .collect();
            for (affine_w, affine_b) in [(true, true), (true, false), (false, true), (false, false)]
            {
                let x = dev_t(&xs, &dims).with_requires_grad(true).unwrap();
                let w = dev_t(&ws, &[c]).with_requires_grad(true).unwrap();
                let b = dev_t(&bs, &[c]).with_requires_grad(true).unwrap();
                let (rm, rv) = (dev_t(&vec![0.0; c], &[c]), dev_t(&vec![1.0; c], &[c]));
                let y = nn::batch_norm(
                    &x,
                    Some(&rm),
                    Some(&rv),
                    affine_w.then_some(&w),
                    affine_b.then_some(&b),
                    true,
                    0.1,
                    1e-5,
                )
                .unwrap();
                y.mul(&dev_t(&cs, &dims)).sum(&[], false).backward();
                let wk = |k: usize| if affine_w { ws[k] as f64 } else { 1.0 };
                let bk = |k: usize| if affine_b { bs[k] as f64 } else { 0.0 };
                let close = |what: &str, got: &[f64], want: &[f64], tol: f64| {
                    for (i, (a, b)) in got.iter().zip(want).enumerate() {
                        assert!(
                            (a - b).abs() <= tol * (1.0 + b.abs()),
                            "{what} {dims:?} ({affine_w}, {affine_b}) [{i}]: {a} vs {b}"
                        );
                    }
                };
                let y_want: Vec<f64> = (0..numel)
                    .map(|i| xhat[i] * wk(chan(i)) + bk(chan(i)))
                    .collect();
                close("y", &host_f64s(&y), &y_want, 1e-5);
                let rm_want: Vec<f64> = mean.iter().map(|m| 0.1 * m).collect();
                let rv_want: Vec<f64> = var.iter().map(|v| 0.9 + 0.1 * v * n / (n - 1.0)).collect();
                close("running_mean", &host_f64s(&rm), &rm_want, 1e-6);
                close("running_var", &host_f64s(&rv), &rv_want, 1e-6);
                // dx = (ĝ - mean(ĝ) - x̂ · mean(ĝ · x̂)) / sd, ĝ = g · w.
                let (mut mg, mut mgx, mut dw, mut db) =
                    (vec![0f64; c], vec![0f64; c], vec![0f64; c], vec![0f64; c]);
                for i in 0..numel {
                    let (k, g) = (chan(i), cs[i] as f64);
                    mg[k] += g * wk(k) / n;
                    mgx[k] += g * wk(k) * xhat[i] / n;
                    dw[k] += g * xhat[i];
                    db[k] += g;
                }
                let dx: Vec<f64> = (0..numel)
                    .map(|i| {
                        let k = chan(i);
                        (cs[i] as f64 * wk(k) - mg[k] - xhat[i] * mgx[k]) / sd[k]
                    })
                    .collect();
                close("dx", &host_f64s(&x.grad_tensor().unwrap()), &dx, 1e-4);
                // A parameter not passed keeps its zero gradient.
                let unused = |p: &Tensor<f32, _>| {
                    host_f64s(&p.grad_tensor().unwrap())
                        .iter()
                        .all(|&v| v == 0.0)
                };
                assert!(affine_w || unused(&w));
                assert!(affine_b || unused(&b));
                if affine_w {
                    close("dweight", &host_f64s(&w.grad_tensor().unwrap()), &dw, 1e-4);
                }
                if affine_b {
                    close("dbias", &host_f64s(&b.grad_tensor().unwrap()), &db, 1e-4);
                }
            }
            // A transposed copy of the input's batch (not contiguous: the composed path).
            let xt = dev_t(&xs, &dims)
                .transpose(0, 1)
                .unwrap()
                .contiguous()
                .transpose(0, 1)
                .unwrap();
            let strided = nn::batch_norm(&xt, None, None, None, None, true, 0.1, 1e-5).unwrap();
            close_all(&host_f64s(&strided), &xhat, 1e-5);
        }
    });
    // Gradients by finite differences, through the fused node (f64, contiguous).
    let x = t(
        &(0..60)
            .map(|i| ((i * 37 % 23) as f64).sin())
            .collect::<Vec<_>>(),
        &[3, 4, 5],
    );
    let w = t(&[0.5, 1.5, -1.0, 2.0], &[4]);
    let b = t(&[0.1, 0.2, 0.3, 0.4], &[4]);
    let f = |v: &[Tensor<f64>]| {
        nn::batch_norm(&v[0], None, None, Some(&v[1]), Some(&v[2]), true, 0.1, 1e-5)?.try_mul(&v[0])
    };
    gradcheck(f, &[x.clone(), w.clone(), b.clone()], 1e-6, 1e-5).unwrap();
    // A `create_graph` pass composes the rule from recorded ops: the same gradients.
    let leaves: Vec<Tensor<f64>> = [x, w, b]
        .iter()
        .map(|t| t.clone().with_requires_grad(true).unwrap())
        .collect();
    let loss = f(&leaves).unwrap().sum(&[], false);
    let refs: Vec<&Tensor<f64>> = leaves.iter().collect();
    let fused = typed_tensor::autograd::grad(&loss, &refs, true).unwrap();
    let composed = typed_tensor::autograd::grad_create_graph(&loss, None, &refs).unwrap();
    for (a, b) in fused.iter().zip(&composed) {
        close_all(
            &a.as_ref().unwrap().to_vec(),
            &b.as_ref().unwrap().to_vec(),
            1e-12,
        );
    }
}

/// Every element of `got` within `tol` (relative, plus 1) of `want`.
fn close_all(got: &[f64], want: &[f64], tol: f64) {
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        assert!((a - b).abs() <= tol * (1.0 + b.abs()), "[{i}]: {a} vs {b}");
    }
}

/// `batch_norm` in evaluation against the definition in f64: the output from the running
/// statistics, `dx = g · weight / sd`, the parameters' gradients; a training step that moves
/// the running statistics before the backward pass changes nothing (they are saved as they
/// were); a `create_graph` pass gives the same gradients.
#[test]
fn batch_norm_in_evaluation_matches_its_definition() {
    use crate::common::host_f64s;
    on_every_device!("batch_norm_in_evaluation_matches_its_definition", |dev| {
        let dims = [3usize, 4, 5];
        let (c, numel, s) = (4usize, 60usize, 5usize);
        let chan = |i: usize| i / s % c;
        let xs: Vec<f64> = (0..numel)
            .map(|i| ((i * 37 % 101) as f64 * 0.37).sin() * 2.0)
            .collect();
        let gs: Vec<f64> = (0..numel)
            .map(|i| ((i * 13 % 67) as f64 * 0.21).cos())
            .collect();
        let (ws, bs) = ([0.5, 1.5, -1.0, 2.0], [0.1, -0.2, 0.3, 0.0]);
        let (rms, rvs) = ([0.25, -0.5, 1.0, 0.0], [1.0, 0.5, 2.0, 0.125]);
        let on = |v: &[f64], d: &[usize]| {
            Tensor::<f64>::from_vec(v.to_vec(), d)
                .unwrap()
                .to_device(&dev)
                .unwrap()
        };
        let x = on(&xs, &dims).with_requires_grad(true).unwrap();
        let w = on(&ws, &[c]).with_requires_grad(true).unwrap();
        let b = on(&bs, &[c]).with_requires_grad(true).unwrap();
        let (rm, rv) = (on(&rms, &[c]), on(&rvs, &[c]));
        let y = nn::batch_norm(
            &x,
            Some(&rm),
            Some(&rv),
            Some(&w),
            Some(&b),
            false,
            0.1,
            1e-5,
        )
        .unwrap();
        let sd: Vec<f64> = rvs.iter().map(|v| (v + 1e-5f64).sqrt()).collect();
        let xhat: Vec<f64> = (0..numel)
            .map(|i| (xs[i] - rms[chan(i)]) / sd[chan(i)])
            .collect();
        let y_want: Vec<f64> = (0..numel)
            .map(|i| xhat[i] * ws[chan(i)] + bs[chan(i)])
            .collect();
        close_all(&host_f64s(&y), &y_want, 1e-12);
        assert_eq!(host_f64s(&rm), rms, "evaluation leaves the running mean");
        // A training step moves the running statistics in place before the backward pass.
        nn::batch_norm(
            &x.detach(),
            Some(&rm),
            Some(&rv),
            None,
            None,
            true,
            0.5,
            1e-5,
        )
        .unwrap();
        assert_ne!(host_f64s(&rm), rms);
        let loss = y.mul(&on(&gs, &dims)).sum(&[], false);
        let refs = [&x, &w, &b];
        let composed = typed_tensor::autograd::grad_create_graph(&loss, None, &refs).unwrap();
        loss.backward();
        let dx: Vec<f64> = (0..numel)
            .map(|i| gs[i] * ws[chan(i)] / sd[chan(i)])
            .collect();
        let (mut dw, mut db) = (vec![0f64; c], vec![0f64; c]);
        for i in 0..numel {
            dw[chan(i)] += gs[i] * xhat[i];
            db[chan(i)] += gs[i];
        }
        for (t, want) in refs.iter().zip([&dx, &dw, &db]) {
            close_all(&host_f64s(&t.grad_tensor().unwrap()), want, 1e-12);
        }
        for (g, want) in composed.iter().zip([&dx, &dw, &db]) {
            close_all(&host_f64s(g.as_ref().unwrap()), want, 1e-12);
        }
    });
}

/// `layer_norm` and `batch_norm` with their output used through a permutation: the same
/// gradients as under the equal contiguous product.
#[test]
fn norm_gradients_through_a_permuted_output() {
    let x = t(
        &(0..96)
            .map(|i| ((i * 37 % 41) as f64).sin())
            .collect::<Vec<_>>(),
        &[4, 3, 8],
    );
    let c = t(
        &(0..96)
            .map(|i| ((i * 11 % 29) as f64).cos())
            .collect::<Vec<_>>(),
        &[8, 4, 3],
    );
    let w8 = t(
        &(0..8).map(|i| 0.5 + i as f64 * 0.25).collect::<Vec<_>>(),
        &[8],
    );
    let w3 = t(&[0.5, -1.5, 2.0], &[3]);
    type Norm = fn(&Tensor<f64>, &Tensor<f64>) -> Tensor<f64>;
    let norms: [(&str, Norm, &Tensor<f64>); 2] = [
        (
            "layer_norm",
            |x, w| nn::layer_norm(x, &[8], Some(w), Some(w), 1e-5).unwrap(),
            &w8,
        ),
        (
            "batch_norm",
            |x, w| nn::batch_norm(x, None, None, Some(w), Some(w), true, 0.1, 1e-5).unwrap(),
            &w3,
        ),
    ];
    for (name, f, w) in norms {
        let grads = |permuted: bool| {
            let (x, w) = (
                x.clone().with_requires_grad(true).unwrap(),
                w.clone().with_requires_grad(true).unwrap(),
            );
            let y = f(&x, &w);
            let loss = match permuted {
                true => y.permute(&[2, 0, 1]).unwrap().mul(&c).sum(&[], false),
                false => y
                    .mul(&c.permute(&[1, 2, 0]).unwrap().contiguous())
                    .sum(&[], false),
            };
            let g = typed_tensor::autograd::grad(&loss, &[&x, &w], false).unwrap();
            g.into_iter()
                .map(|g| g.unwrap().to_vec())
                .collect::<Vec<_>>()
        };
        for (a, b) in grads(true).iter().zip(&grads(false)) {
            for (u, v) in a.iter().zip(b) {
                assert!((u - v).abs() < 1e-12, "{name}: {u} vs {v}");
            }
        }
    }
}
