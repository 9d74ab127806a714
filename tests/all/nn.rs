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
        ("softmax", |v| v[0].try_softmax(1)),
        ("log_softmax", |v| v[0].try_log_softmax(0)),
    ] {
        let x = t(&[-1.3, -0.4, 0.3, 0.7, 1.1, 2.2], &[2, 3]);
        gradcheck(f, &[x], 1e-6, 1e-6).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
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
    gradcheck(
        |v| nn::layer_norm(&v[0], &[2, 3], Some(&v[1]), Some(&v[2]), 1e-5),
        &[x.clone(), w.clone(), b],
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
    let idx = Tensor::<i64>::from_vec(vec![2, 0, 2, -1], [2, 2]).unwrap();
    let e = nn::embedding(&idx, &table).unwrap();
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
    manual_seed(7);
    let d = nn::dropout(&ones, 0.3, true).unwrap().to_vec();
    let kept = d.iter().filter(|&&v| v != 0.0).count() as f64 / 10_000.0;
    assert!((kept - 0.7).abs() < 0.03, "kept {kept}");
    assert!(d.iter().all(|&v| v == 0.0 || (v - 1.0 / 0.7).abs() < 1e-12));
    manual_seed(7);
    assert_eq!(nn::dropout(&ones, 0.3, true).unwrap().to_vec(), d); // seeded
    assert!(nn::dropout(&ones, 1.5, true).is_err());
}
