//! `GradScaler` (PyTorch `torch.amp.GradScaler`) against PyTorch 2.15: a 10-step Adam run
//! with two overflowing iterations and `unscale_` + clipping on two others; the f16 path; the
//! stage errors; the state dict.

use crate::common::{assert_close, host_f64s};
use std::collections::BTreeMap;
use typed_tensor::optim::{Adam, GradScaler, Optimizer, Sgd, clip_grad_norm_};
use typed_tensor::prelude::*;

/// The run of PyTorch's `GradScaler("cpu", init_scale=1024, growth_interval=3)` over Adam
/// (lr 0.1): the loss `Σ p²(1 + i/10) + Σ sin(q)/2`, times 1e38 (overflowing f32) at
/// iterations 2 and 6, with `unscale_` and `clip_grad_norm_(1.0)` at iterations 1, 5, 9.
fn pytorch_run<D: Backend>(dev: &D) {
    let p = Tensor::<f32, D>::from_vec_on(vec![0.5, -1.25, 2.0], [3], dev).unwrap();
    let q = Tensor::<f32, D>::from_vec_on(vec![0.3, -0.7, 1.1, 0.2], [2, 2], dev).unwrap();
    let (p, q) = (
        p.with_requires_grad(true).unwrap(),
        q.with_requires_grad(true).unwrap(),
    );
    let mut opt = Adam::new(vec![p.clone(), q.clone()], 0.1);
    let mut scaler = GradScaler::with_options(1024.0, 2.0, 0.5, 3, true).unwrap();
    let (mut scales, mut stepped) = (vec![], vec![]);
    for i in 0..10 {
        opt.zero_grad().unwrap();
        let pp = p
            .try_mul(&p)
            .unwrap()
            .try_mul_scalar(1.0 + 0.1 * i as f32)
            .unwrap();
        let s = q.try_sin().unwrap().try_sum(&[], false).unwrap();
        let mut loss = pp
            .try_sum(&[], false)
            .unwrap()
            .try_add(&s.try_mul_scalar(0.5).unwrap())
            .unwrap();
        if i == 2 || i == 6 {
            loss = loss.try_mul_scalar(1e38).unwrap();
        }
        scaler.scale(&loss).unwrap().try_backward().unwrap();
        if i % 4 == 1 {
            scaler.unscale_(&[p.clone(), q.clone()]).unwrap();
            clip_grad_norm_(&[p.clone(), q.clone()], 1.0, 2.0).unwrap();
        }
        stepped.push(scaler.step(&mut opt, &[p.clone(), q.clone()]).unwrap());
        scaler.update().unwrap();
        scales.push(scaler.get_scale());
    }
    assert_eq!(
        scales,
        [
            1024.0, 1024.0, 512.0, 512.0, 512.0, 1024.0, 512.0, 512.0, 512.0, 1024.0
        ]
    );
    let want = [true, true, false, true, true, true, false, true, true, true];
    assert_eq!(stepped, want);
    let p_want = [-0.1296420395374298, -0.5390551090240479, 1.2844769954681396];
    assert_close(&host_f64s(&p), &p_want, 1e-5);
    let q_want = [
        -0.4120975136756897,
        -1.3819317817687988,
        0.37910741567611694,
        -0.5106151700019836,
    ];
    assert_close(&host_f64s(&q), &q_want, 1e-5);
    assert_eq!(scaler.growth_tracker(), 0);
}

#[test]
fn grad_scaler_follows_pytorch() {
    on_every_device!("grad_scaler", |dev| {
        pytorch_run(&dev);
    });
}

/// f16 parameters: the scaled loss is f32, the unscaled gradient equals the plain one (the
/// scale is a power of two), and an overflow in f16 skips the step and halves the scale.
#[test]
fn grad_scaler_trains_f16() {
    on_every_device!("grad_scaler_f16", |dev| {
        let vals = [0.001f32, -0.25, 3.0, 1e-4];
        let w = Tensor::<f16, _>::from_vec_on(vals.map(f16::from_f32).to_vec(), [4], &dev)
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        let loss = || w.try_mul(&w).unwrap().try_sum(&[], false).unwrap();
        loss().try_backward().unwrap();
        let plain = host_f64s(&w.grad_tensor().unwrap());
        w.zero_grad().unwrap();
        let mut opt = Sgd::new(vec![w.clone()], 0.0);
        // 2^13: the loss's gradient fits, 2w·2^13 = 49152 for w = 3 fits.
        let mut scaler = GradScaler::with_options(8192.0, 2.0, 0.5, 2000, true).unwrap();
        let scaled = scaler.scale(&loss()).unwrap();
        let _: &Tensor<f32, _> = &scaled;
        scaled.try_backward().unwrap();
        assert_eq!(
            host_f64s(&w.grad_tensor().unwrap()),
            vec![
                plain[0] * 8192.0,
                plain[1] * 8192.0,
                plain[2] * 8192.0,
                plain[3] * 8192.0
            ]
        );
        assert!(scaler.step(&mut opt, &[w.clone()]).unwrap());
        assert_eq!(host_f64s(&w.grad_tensor().unwrap()), plain);
        scaler.update().unwrap();
        // 2^14: 6·2^14 = 98304 overflows f16.
        scaler.update_to(16384.0).unwrap();
        w.zero_grad().unwrap();
        scaler.scale(&loss()).unwrap().try_backward().unwrap();
        assert!(!scaler.step(&mut opt, &[w.clone()]).unwrap());
        scaler.update().unwrap();
        assert_eq!(scaler.get_scale(), 8192.0);
    });
}

#[test]
fn grad_scaler_refuses_misuse() {
    let w = Tensor::<f32>::from_vec(vec![1.0, 2.0], [2])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    let mut opt = Sgd::new(vec![w.clone()], 0.1);
    let mut s = GradScaler::new();
    let err = |r: typed_tensor::Result<()>| r.unwrap_err().to_string();
    assert!(err(s.update()).contains("no inf checks"));
    s.scale(&w.try_sum(&[], false).unwrap())
        .unwrap()
        .try_backward()
        .unwrap();
    s.unscale_(&[w.clone()]).unwrap();
    assert_eq!(host_f64s(&w.grad_tensor().unwrap()), [1.0, 1.0]);
    assert!(err(s.unscale_(&[w.clone()])).contains("already called"));
    assert!(s.step(&mut opt, &[w.clone()]).unwrap());
    assert!(
        s.step(&mut opt, &[w.clone()])
            .unwrap_err()
            .to_string()
            .contains("step() was already called")
    );
    assert!(err(s.unscale_(&[w.clone()])).contains("before step()"));
    assert_eq!(w.to_vec(), [0.9, 1.9]);
    s.update().unwrap();
    // A parameter without grad: an Err, and no gradient is written.
    let g_before = host_f64s(&w.grad_tensor().unwrap());
    let plain = Tensor::<f32>::ones([2]).unwrap();
    assert!(err(s.unscale_(&[w.clone(), plain])).contains("does not require grad"));
    assert_eq!(host_f64s(&w.grad_tensor().unwrap()), g_before);
    // Hostile options.
    for (init, g, b, n) in [
        (0.0, 2.0, 0.5, 1),
        (f64::NAN, 2.0, 0.5, 1),
        (1e39, 2.0, 0.5, 1),
        (1.0, 1.0, 0.5, 1),
        (1.0, f64::INFINITY, 0.5, 1),
        (1.0, 2.0, 1.0, 1),
        (1.0, 2.0, 0.0, 1),
        (1.0, 2.0, f64::NAN, 1),
        (1.0, 2.0, 0.5, 0),
    ] {
        let e = GradScaler::with_options(init, g, b, n, true).unwrap_err();
        assert!(e.to_string().contains("GradScaler::with_options"), "{e}");
    }
    assert!(s.update_to(f64::INFINITY).is_err() && s.update_to(-1.0).is_err());
    // Disabled: pass-through, scale 1, no state.
    let mut off = GradScaler::with_options(4.0, 2.0, 0.5, 1, false).unwrap();
    assert_eq!(off.get_scale(), 1.0);
    assert_eq!(
        off.scale(&w.try_sum(&[], false).unwrap()).unwrap().item(),
        2.8
    );
    assert!(off.step(&mut opt, &[w.clone()]).unwrap());
    off.update().unwrap();
    assert!(off.state_dict().is_empty());
}

#[test]
fn grad_scaler_state_round_trips() {
    let mut s = GradScaler::with_options(256.0, 4.0, 0.25, 5, true).unwrap();
    let w = Tensor::<f64>::ones([1])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    let mut opt = Sgd::new(vec![w.clone()], 0.1);
    for _ in 0..3 {
        opt.zero_grad().unwrap();
        s.scale(&w.try_sum(&[], false).unwrap())
            .unwrap()
            .try_backward()
            .unwrap();
        s.step(&mut opt, &[w.clone()]).unwrap();
        s.update().unwrap();
    }
    let path = std::env::temp_dir().join("typed-tensor-grad-scaler.safetensors");
    typed_tensor::io::save_safetensors(&path, s.state_dict(), None).unwrap();
    let state = typed_tensor::io::load_safetensors(&path).unwrap();
    std::fs::remove_file(&path).ok();
    let mut t = GradScaler::new();
    t.load_state_dict(&state).unwrap();
    assert_eq!((t.get_scale(), t.growth_tracker()), (256.0, 3));
    let bad = |k: &str, v: f64| {
        let mut m: BTreeMap<_, _> = state.clone();
        m.insert(k.to_string(), Tensor::<f64>::scalar(v).into());
        let mut u = GradScaler::new();
        let e = u.load_state_dict(&m).unwrap_err().to_string();
        assert_eq!(u.get_scale(), 65536.0, "unchanged after {e}");
        e
    };
    assert!(bad("_growth_tracker", 5.0).contains("below the interval"));
    assert!(bad("scale", f64::NAN).contains("missing or NaN"));
    assert!(bad("growth_factor", 0.5).contains("growth_factor"));
    assert!(bad("extra", 1.0).contains("unknown entry"));
    let mut m = state.clone();
    m.remove("scale");
    assert!(
        t.load_state_dict(&m)
            .unwrap_err()
            .to_string()
            .contains("\"scale\" is missing")
    );
    assert!(t.load_state_dict(&BTreeMap::new()).is_err());
}

/// The `DynTensor` forms: f16 and f32 parameters under one `DynOptimizer` and one scaler give
/// the typed scaler's values; an overflow in one parameter skips every group's step.
#[test]
fn grad_scaler_over_dyn_tensors() {
    use typed_tensor::dynamic::DynOptimizer;
    on_every_device!("grad_scaler_dyn", |dev| {
        let di = dev.index();
        let make = |vals: &[f64], dtype: Dtype| {
            let host =
                DynTensor::from(Tensor::<f64>::from_vec(vals.to_vec(), [vals.len()]).unwrap());
            let mut p = host.to_dtype(dtype).unwrap().to(di).unwrap();
            p.set_requires_grad(true).unwrap();
            p
        };
        let (a, b) = (
            make(&[0.5, -0.25], Dtype::Float16),
            make(&[1.5, 2.0, -3.0], Dtype::Float32),
        );
        let ps = [a.clone(), b.clone()];
        let mut opt = DynOptimizer::sgd(&ps, 0.5).unwrap();
        let mut s = GradScaler::with_options(1024.0, 2.0, 0.5, 2000, true).unwrap();
        let loss = |k: f64| {
            let la = a
                .mul(&a)
                .unwrap()
                .reduce_sum(&[], false)
                .unwrap()
                .to_dtype(Dtype::Float32)
                .unwrap();
            let lb = b.mul(&b).unwrap().reduce_sum(&[], false).unwrap();
            la.add(&lb).unwrap().mul_scalar(k).unwrap()
        };
        let l = loss(1.0);
        assert_eq!(s.scale_dyn(&l).unwrap().dtype(), Dtype::Float32);
        s.scale_dyn(&l).unwrap().backward().unwrap();
        assert!(s.step_dyn(&mut opt, &ps).unwrap());
        s.update().unwrap();
        let host = crate::dynamic_optim::host;
        // p ← p - 0.5·2p = 0: exact in f16 and f32.
        assert_eq!((host(&a), host(&b)), (vec![0.0, 0.0], vec![0.0, 0.0, 0.0]));
        // f16 gradients overflow at this scale (2·65504 < 0.5·2^18): the step is skipped.
        s.update_to(262144.0).unwrap();
        let (a2, b2) = (
            make(&[0.5, -0.25], Dtype::Float16),
            make(&[1.5, 2.0, -3.0], Dtype::Float32),
        );
        let mut opt2 = DynOptimizer::sgd(&[a2.clone(), b2.clone()], 0.5).unwrap();
        let l2 = a2
            .mul(&a2)
            .unwrap()
            .reduce_sum(&[], false)
            .unwrap()
            .to_dtype(Dtype::Float32)
            .unwrap()
            .add(&b2.mul(&b2).unwrap().reduce_sum(&[], false).unwrap())
            .unwrap();
        s.scale_dyn(&l2).unwrap().backward().unwrap();
        assert!(!s.step_dyn(&mut opt2, &[a2.clone(), b2.clone()]).unwrap());
        s.update().unwrap();
        assert_eq!(s.get_scale(), 131072.0);
        assert_eq!(host(&b2), vec![1.5, 2.0, -3.0]);
        // Refusals: an integer parameter, an integer loss; nothing written.
        let i = DynTensor::from(Tensor::<i32>::zeros([2]).unwrap());
        assert!(s.scale_dyn(&i).is_err());
        let g_before = host(&b2.grad_tensor().unwrap());
        assert!(s.unscale_dyn_(&[b2.clone(), i]).is_err());
        assert_eq!(host(&b2.grad_tensor().unwrap()), g_before);
    });
}

/// Two optimizers under one scaler, as PyTorch allows: each `step` checks its own parameters
/// (an overflow in `q` skips only `q`'s step) and `update` backs off when any overflowed
/// (PyTorch 2.15: p = [0.8, 1.6], q = [3], scale 2; then p = [0.64, 1.28], q = -97, scale 4).
#[test]
fn grad_scaler_serves_two_optimizers() {
    let p = Tensor::<f32>::from_vec(vec![1.0, 2.0], [2])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    let q = Tensor::<f32>::from_vec(vec![3.0], [1])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    let (mut o1, mut o2) = (
        Sgd::new(vec![p.clone()], 0.1),
        Sgd::new(vec![q.clone()], 0.1),
    );
    let mut s = GradScaler::with_options(4.0, 2.0, 0.5, 1, true).unwrap();
    let mut seen = vec![];
    for i in 0..2 {
        o1.zero_grad().unwrap();
        o2.zero_grad().unwrap();
        let k = if i == 0 { 1e38 } else { 1.0 };
        let l = p.try_mul(&p).unwrap().try_sum(&[], false).unwrap();
        let lq = q
            .try_mul_scalar(k)
            .unwrap()
            .try_sum(&[], false)
            .unwrap()
            .try_mul_scalar(1e3)
            .unwrap();
        s.scale(&l.try_add(&lq).unwrap())
            .unwrap()
            .try_backward()
            .unwrap();
        s.unscale_(&[q.clone()]).unwrap();
        assert!(s.unscale_(&[q.clone()]).is_err()); // twice for one optimizer
        let r1 = s.step(&mut o1, &[p.clone()]).unwrap();
        let r2 = s.step(&mut o2, &[q.clone()]).unwrap();
        assert!(s.step(&mut o1, &[p.clone()]).is_err()); // twice for one optimizer
        s.update().unwrap();
        seen.push((r1, r2, p.to_vec(), q.to_vec(), s.get_scale()));
    }
    assert_eq!(seen[0], (true, false, vec![0.8, 1.6], vec![3.0], 2.0));
    assert_eq!((seen[1].0, seen[1].1, seen[1].4), (true, true, 4.0));
    crate::common::assert_close(
        &seen[1].2.iter().map(|&v| v as f64).collect::<Vec<_>>(),
        &[0.64, 1.28],
        1e-6,
    );
    assert_eq!(seen[1].3, vec![-97.0]);
}
