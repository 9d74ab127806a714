//! The digits softmax-regression training step (1,437 × 64 inputs, 10 classes, f32) with
//! gradients from `backward()` against the same step with hand-written gradients, in one run;
//! one AdamW and one SGD step, fused and composed; and one pre-norm transformer block's
//! forward and backward (`transformer_block`; `benches/transformer_torch.py` is PyTorch's twin).
//! `cargo bench -p typed-tensor-benches --bench autograd`; results go in BENCHMARKS.md.

use criterion::{Criterion, criterion_group, criterion_main};
use std::time::Duration;
use typed_tensor::nn;
use typed_tensor::optim::{Adam, Optimizer, Sgd};
use typed_tensor::prelude::*;

const N: usize = 1437;
const K: usize = 10;

struct Setup {
    x: Tensor<f32>,
    target: Tensor<f32>,
    labels: Tensor<i64>,
}

fn setup() -> Setup {
    manual_seed(0);
    let x = Tensor::<f32>::randn([N, 64]).unwrap();
    let mut t = vec![0f32; N * K];
    for i in 0..N {
        t[i * K + i % K] = 1.0;
    }
    Setup {
        x,
        target: Tensor::from_vec(t, [N, K]).unwrap(),
        labels: Tensor::from_vec((0..N).map(|i| (i % K) as i64).collect(), [N]).unwrap(),
    }
}

const LR: f32 = 0.5;
const WD: f32 = 1e-4;

/// Hand-written: d loss / d logits = (softmax - one_hot) / n.
fn manual_step(s: &Setup, w: &mut Tensor<f32>, b: &mut Tensor<f32>) {
    let logits = s.x.matmul(w).add(b);
    let lse = logits.logsumexp(&[1], true);
    let grad = logits
        .sub(&lse)
        .exp()
        .sub(&s.target)
        .mul_scalar(1.0 / N as f32);
    let gw = s.x.t().matmul(&grad).add(&w.mul_scalar(WD));
    let gb = grad.sum(&[0], true);
    w.sub_(&gw.mul_scalar(LR)).unwrap();
    b.sub_(&gb.mul_scalar(LR)).unwrap();
}

/// The same loss, differentiated by `backward()`.
fn autograd_step(s: &Setup, w: &mut Tensor<f32>, b: &mut Tensor<f32>) {
    let logits = s.x.matmul(w).add(b);
    let ce = logits
        .logsumexp(&[1], true)
        .sub(&logits.mul(&s.target).sum(&[1], true))
        .mean(&[], false);
    let loss = ce.add(&w.square().sum(&[], false).mul_scalar(WD / 2.0));
    loss.backward();
    no_grad(|| {
        w.sub_(&w.grad_tensor().unwrap().mul_scalar(LR))?;
        b.sub_(&b.grad_tensor().unwrap().mul_scalar(LR))
    })
    .unwrap();
    w.zero_grad().unwrap();
    b.zero_grad().unwrap();
}

/// As a PyTorch user writes it: `nn::cross_entropy` on class indices, the L2 term as the
/// optimizer's weight decay on `w` (the same gradient as the hand-written step), `optim::Sgd`.
fn library_step(s: &Setup, w: &Tensor<f32>, b: &Tensor<f32>, opts: &mut [Sgd<f32, Cpu>; 2]) {
    let logits = s.x.matmul(w).add(b);
    let loss = nn::cross_entropy(&logits, &s.labels, nn::Reduction::Mean, 0.0).unwrap();
    opts.iter().for_each(|o| o.zero_grad().unwrap());
    loss.backward();
    opts.iter_mut().for_each(|o| o.step().unwrap());
}

fn training_step(c: &mut Criterion) {
    let s = setup();
    let mut g = c.benchmark_group("digits_step");
    g.sample_size(30).measurement_time(Duration::from_secs(4));
    let mut w = Tensor::<f32>::zeros([64, K]).unwrap();
    let mut b = Tensor::<f32>::zeros([1, K]).unwrap();
    g.bench_function("manual_gradients", |x| {
        x.iter(|| manual_step(&s, &mut w, &mut b))
    });
    let mut w = Tensor::<f32>::zeros([64, K])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    let mut b = Tensor::<f32>::zeros([1, K])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    g.bench_function("autograd", |x| x.iter(|| autograd_step(&s, &mut w, &mut b)));
    let w = Tensor::<f32>::zeros([64, K])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    let b = Tensor::<f32>::zeros([1, K])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    let mut decayed = Sgd::new(vec![w.clone()], LR as f64);
    decayed.weight_decay = WD as f64;
    let mut opts = [decayed, Sgd::new(vec![b.clone()], LR as f64)];
    g.bench_function("autograd_cross_entropy_sgd", |x| {
        x.iter(|| library_step(&s, &w, &b, &mut opts))
    });
    g.finish();
}

/// One AdamW step (lr 1e-3, weight decay 0.01) of a parameter whose gradient is set: a
/// contiguous parameter takes the fused update (`Backend::adam_step`), a transposed view of
/// the same values the composed one (about a dozen element-wise ops). `benches/optim_torch.py`
/// times PyTorch's single-tensor and fused AdamW on the same sizes.
fn adamw_step(c: &mut Criterion) {
    manual_seed(0);
    let mut g = c.benchmark_group("adamw_step");
    g.sample_size(20).measurement_time(Duration::from_secs(2));
    for (name, r, k) in [("64x128", 64usize, 128usize), ("1024x1024", 1024, 1024)] {
        let make = |view: bool| {
            let x = Tensor::<f32>::randn([r, k]).unwrap();
            let p = if view { x.t().deep_copy().t() } else { x };
            let p = p.with_requires_grad(true).unwrap();
            p.mul(&p).sum(&[], false).backward();
            p
        };
        let (fused, composed) = (make(false), make(true));
        let mut opt = Adam::adamw(vec![fused], 1e-3);
        g.bench_function(format!("fused/{name}"), |x| x.iter(|| opt.step().unwrap()));
        let mut opt = Adam::adamw(vec![composed], 1e-3);
        g.bench_function(format!("composed/{name}"), |x| {
            x.iter(|| opt.step().unwrap())
        });
        // AMSGrad (a third moment buffer) and Adam's L2 decay (`wd·p` added to the gradient).
        // The gradient stays fixed, so the L2 term would cancel it after about 2·10⁵ steps at
        // `wd` 0.01, and the moments would decay into subnormals (several times slower on
        // x86): `wd` 1e-4 keeps that point out of reach.
        let mut opt = Adam::adamw(vec![make(false)], 1e-3);
        opt.amsgrad = true;
        g.bench_function(format!("amsgrad/{name}"), |x| {
            x.iter(|| opt.step().unwrap())
        });
        let mut opt = Adam::new(vec![make(false)], 1e-3);
        opt.weight_decay = 1e-4;
        g.bench_function(format!("adam_l2/{name}"), |x| {
            x.iter(|| opt.step().unwrap())
        });
    }
    g.finish();
}

/// One SGD step with momentum 0.9 (lr 1e-3) of a parameter whose gradient is set: fused
/// (`Backend::sgd_step`) for a contiguous parameter, composed for a transposed view.
/// `benches/optim_torch.py` times PyTorch's `SGD` on the same sizes.
fn sgd_step(c: &mut Criterion) {
    manual_seed(0);
    let mut g = c.benchmark_group("sgd_step");
    g.sample_size(20).measurement_time(Duration::from_secs(2));
    for (name, r, k) in [("64x128", 64usize, 128usize), ("1024x1024", 1024, 1024)] {
        for (kind, view) in [("fused", false), ("composed", true)] {
            let x = Tensor::<f32>::randn([r, k]).unwrap();
            let p = if view { x.t().deep_copy().t() } else { x };
            let p = p.with_requires_grad(true).unwrap();
            p.mul(&p).sum(&[], false).backward();
            let mut opt = Sgd::new(vec![p], 1e-3);
            opt.momentum = 0.9;
            g.bench_function(format!("momentum_{kind}/{name}"), |x| {
                x.iter(|| opt.step().unwrap())
            });
        }
    }
    g.finish();
}

/// One pre-norm transformer block on a (16, 64, 128) batch, 4 heads, causal: layer norm,
/// qkv projection, attention, output projection, residual, layer norm, GELU MLP (4×),
/// residual, mean of squares; forward and `backward()`.
fn transformer_block(c: &mut Criterion) {
    use nn::{AttnMask, layer_norm, linear, scaled_dot_product_attention};
    manual_seed(0);
    let (b, l, e, h) = (16usize, 64usize, 128usize, 4usize);
    let p = |d: &[usize]| {
        (Tensor::<f32>::randn(d.to_vec()).unwrap() * 0.05f32)
            .with_requires_grad(true)
            .unwrap()
    };
    let x = Tensor::<f32>::randn([b, l, e]).unwrap();
    let (wqkv, wo, w1, w2) = (p(&[3 * e, e]), p(&[e, e]), p(&[4 * e, e]), p(&[e, 4 * e]));
    let (g1, g2) = (p(&[e]), p(&[e]));
    let step = || {
        let hn = layer_norm(&x, &[e], Some(&g1), None, 1e-5).unwrap();
        let qkv = linear(&hn, &wqkv, None)
            .unwrap()
            .reshape([b, l, 3, h, e / h]);
        let qkv = qkv.permute(&[2, 0, 3, 1, 4]).unwrap();
        let (q, k, v) = (
            qkv.select(0, 0).unwrap(),
            qkv.select(0, 1).unwrap(),
            qkv.select(0, 2).unwrap(),
        );
        let a =
            scaled_dot_product_attention(&q, &k, &v, Some(AttnMask::Causal), Default::default())
                .unwrap();
        let a = a.permute(&[0, 2, 1, 3]).unwrap().reshape([b, l, e]);
        let x1 = &x + &linear(&a, &wo, None).unwrap();
        let h2 = layer_norm(&x1, &[e], Some(&g2), None, 1e-5).unwrap();
        let m = linear(&linear(&h2, &w1, None).unwrap().gelu(), &w2, None).unwrap();
        (&x1 + &m).square().mean(&[], false).backward();
        for w in [&wqkv, &wo, &w1, &w2, &g1, &g2] {
            w.zero_grad().unwrap();
        }
    };
    let mut g = c.benchmark_group("transformer_block");
    g.sample_size(20).measurement_time(Duration::from_secs(3));
    g.bench_function("forward_backward/16x64x128", |x| x.iter(step));
    g.finish();
}

criterion_group!(
    benches,
    training_step,
    adamw_step,
    sgd_step,
    transformer_block
);
criterion_main!(benches);
