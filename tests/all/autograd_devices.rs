//! The backward rules gradchecked once, over `D: Backend`: on the CPU always, and on CUDA when a
//! device is present (each rule's CUDA instantiation against central differences computed on
//! that device). The CPU run proves the checks themselves; the CPU-only file `autograd.rs` has
//! the finer cases.

use typed_tensor::autograd::gradcheck;
use typed_tensor::nn::{self, Conv2dOptions, Reduction};
use typed_tensor::prelude::*;

type F<D> = fn(&[Tensor<f64, D>]) -> Result<Tensor<f64, D>>;

/// Deterministic values in roughly [-1, 1] on `dev`.
fn t<D: Backend>(dev: &D, dims: &[usize], seed: u64) -> Tensor<f64, D> {
    let n: usize = dims.iter().product();
    let v = (0..n as u64).map(|i| (((i + 1) * 2654435761 + seed * 97) % 1000) as f64 / 500.0 - 1.0);
    Tensor::from_vec_on(v.collect(), dims.to_vec(), dev).unwrap()
}

fn idx<D: Backend>(dev: &D, v: &[i64], dims: &[usize]) -> Tensor<i64, D> {
    Tensor::from_vec_on(v.to_vec(), dims.to_vec(), dev).unwrap()
}

/// Every rule family on `dev`; returns the failures, each naming its case.
fn rules_on<D: Backend>(dev: &D) -> Vec<String> {
    let x = t(dev, &[3, 4], 1);
    let pos = x.try_abs().unwrap().try_add_scalar(0.5).unwrap();
    let unary: Vec<(&str, F<D>)> = vec![
        ("sin", |v| v[0].try_sin()),
        ("tanh", |v| v[0].try_tanh()),
        ("sigmoid", |v| v[0].try_sigmoid()),
        ("exp", |v| v[0].try_exp()),
        ("erf", |v| v[0].try_erf()),
        ("atan", |v| v[0].try_atan()),
        ("abs", |v| v[0].try_abs()),
        ("relu", |v| v[0].try_relu()),
        ("gelu", |v| v[0].try_gelu()),
        ("clip", |v| v[0].try_clip(-0.5, 0.5)),
        ("square", |v| v[0].try_square()),
        ("pow scalar", |v| v[0].try_pow(3)),
        ("log of |x|+0.5", |v| {
            v[0].try_abs()?.try_add_scalar(0.5)?.try_log()
        }),
        ("sqrt of |x|+0.5", |v| {
            v[0].try_abs()?.try_add_scalar(0.5)?.try_sqrt()
        }),
        ("sum axes", |v| v[0].try_sum(&[1], true)),
        ("mean", |v| v[0].try_mean(&[0], false)),
        ("max", |v| v[0].try_max(&[1], false)),
        ("min all", |v| v[0].try_min(&[], false)),
        ("var", |v| v[0].try_var(&[1], 1, false)),
        ("std", |v| v[0].try_std(&[0], 0, true)),
        ("logsumexp", |v| v[0].try_logsumexp(&[1], false)),
        ("norm 2", |v| v[0].try_norm(2.0, &[1], false)),
        ("norm 3", |v| v[0].try_norm(3.0, &[], false)),
        ("product", |v| v[0].try_product(&[1], false)),
        ("cumsum", |v| v[0].try_cumsum(1)),
        ("cumprod", |v| v[0].try_cumprod(0)),
        ("softmax", |v| v[0].try_softmax(1)),
        ("log_softmax", |v| v[0].try_log_softmax(0)),
        ("log_softmax last (fused rows)", |v| {
            v[0].try_log_softmax(-1)
        }),
        ("log_softmax last, transposed", |v| {
            v[0].t().try_log_softmax(1)
        }),
        ("transpose", |v| v[0].transpose(0, 1)?.try_mul_scalar(2.0)),
        ("narrow + flip", |v| v[0].narrow(1, 1, 2)?.flip(&[0])),
        ("strided slice", |v| v[0].slice_dim(1, 0, 4, 3)),
        ("diagonal", |v| v[0].diagonal(1)),
        ("permute + reshape", |v| {
            v[0].permute(&[1, 0])?.try_reshape([12])
        }),
        ("unsqueeze + expand + transpose", |v| {
            v[0].unsqueeze(0)?.expand([2, 3, 4])?.transpose(0, 2)
        }),
        // Sibling views of a permuted base (attention's q, k, v): their gradients are views of
        // fresh buffers, summed in place; `a` also flows twice.
        ("permuted selects", |v| {
            let p = v[0].try_reshape([2, 3, 2])?.permute(&[1, 0, 2])?;
            let (a, b, c) = (p.select(0, 0)?, p.select(0, 1)?, p.select(0, 2)?);
            a.try_mul(&b)?.try_add(&c.try_square()?)?.try_add(&a)
        }),
        // One gradient handed to two inputs (add's rule) is shared: each input then gets a
        // second gradient, which must not be summed into the shared buffer.
        ("shared gradient", |v| {
            let (a, b) = (v[0].try_mul_scalar(2.0)?, v[0].t().try_mul_scalar(3.0)?.t());
            // Made last, `a + b` runs first in the backward: the shared gradient arrives first.
            let s = a.try_square()?.try_add(&b.try_sin()?)?;
            s.try_add(&b.select(0, 1)?)?.try_add(&a.try_add(&b)?)
        }),
        ("pad", |v| v[0].try_pad(&[(1, 0), (0, 2)], 0.5)),
        ("roll", |v| v[0].try_roll(1, 1)),
        ("tile", |v| v[0].try_tile(&[2, 1])),
        ("repeat_interleave", |v| v[0].try_repeat_interleave(2, 0)),
        ("tril", |v| v[0].try_tril(0)),
        ("matmul xᵀx", |v| v[0].t().try_matmul(&v[0])),
    ];
    let mut failures = Vec::new();
    let mut check = |name: &str,
                     inputs: &[Tensor<f64, D>],
                     f: &dyn Fn(&[Tensor<f64, D>]) -> Result<Tensor<f64, D>>| {
        if let Err(e) = gradcheck(f, inputs, 1e-6, 1e-5) {
            failures.push(format!("{name} on {}: {e}", inputs[0].device()));
        }
    };
    for (name, f) in &unary {
        check(name, &[x.clone()], f);
    }
    let (row, col) = (t(dev, &[4], 2), t(dev, &[3, 1], 3));
    check("add broadcast", &[x.clone(), row.clone()], &|v| {
        v[0].try_add(&v[1])
    });
    check("sub broadcast", &[x.clone(), col.clone()], &|v| {
        v[1].try_sub(&v[0])
    });
    check("mul broadcast", &[x.clone(), col.clone()], &|v| {
        v[0].try_mul(&v[1])
    });
    check("div", &[x.clone(), pos.clone()], &|v| v[0].try_div(&v[1]));
    check("pow tensor", &[pos.clone(), x.clone()], &|v| {
        v[0].try_pow(&v[1])
    });
    check("maximum", &[x.clone(), t(dev, &[3, 4], 4)], &|v| {
        v[0].try_maximum(&v[1])
    });
    let cond = x.try_gt_scalar(0.0).unwrap();
    check("where", &[x.clone(), row.clone()], &|v| {
        Tensor::try_where(&cond, &v[0], &v[1])
    });
    check("masked_fill", &[x.clone()], &|v| {
        v[0].try_masked_fill(&cond, 2.0)
    });
    check("concat", &[x.clone(), t(dev, &[3, 2], 5)], &|v| {
        Tensor::try_concat(&[&v[0], &v[1]], 1)
    });
    check("stack", &[x.clone(), t(dev, &[3, 4], 6)], &|v| {
        Tensor::try_stack(&[&v[0], &v[1]], 0)
    });
    let sel = idx(dev, &[2, 0, 2, -1], &[4]);
    check("index_select", &[x.clone()], &|v| {
        v[0].try_index_select(1, &sel)
    });
    let gi = idx(dev, &[0, 3, 3, 1, 2, 0], &[3, 2]);
    check("gather", &[x.clone()], &|v| v[0].try_gather(1, &gi));
    check("scatter_add", &[x.clone(), t(dev, &[3, 2], 7)], &|v| {
        v[0].try_scatter_add(1, &gi, &v[1])
    });
    check(
        "matmul batched broadcast",
        &[t(dev, &[2, 3, 4], 8), t(dev, &[4, 2], 9)],
        &|v| v[0].try_matmul(&v[1]),
    );
    check("matmul 1-d", &[row.clone(), t(dev, &[4, 2], 10)], &|v| {
        v[0].try_matmul(&v[1])
    });
    let target = idx(dev, &[1, 0, 3], &[3]);
    check("cross_entropy", &[x.clone()], &|v| {
        nn::cross_entropy(&v[0], &target, Reduction::Mean, 0.0)
    });
    check("cross_entropy smoothed", &[x.clone()], &|v| {
        nn::cross_entropy(&v[0], &target, Reduction::Sum, 0.1)
    });
    check(
        "layer_norm",
        &[x.clone(), row.clone(), t(dev, &[4], 11)],
        &|v| nn::layer_norm(&v[0], &[4], Some(&v[1]), Some(&v[2]), 1e-5),
    );
    let img = t(dev, &[1, 2, 5, 5], 12);
    let opts = Conv2dOptions {
        stride: (2, 1),
        padding: (1, 1),
        ..Default::default()
    };
    check(
        "conv2d",
        &[img.clone(), t(dev, &[3, 2, 3, 3], 13), t(dev, &[3], 14)],
        &|v| nn::conv2d(&v[0], &v[1], Some(&v[2]), opts),
    );
    check("max_pool2d", &[img.clone()], &|v| {
        nn::max_pool2d(&v[0], (2, 2), (2, 2), (0, 0))
    });
    check("avg_pool2d", &[img], &|v| {
        nn::avg_pool2d(&v[0], (3, 3), (2, 2), (1, 1))
    });
    let sq = t(dev, &[3, 3], 15)
        .try_add(&Tensor::eye_on(3, dev).unwrap().try_mul_scalar(3.0).unwrap())
        .unwrap();
    check("inverse", &[sq.clone()], &|v| v[0].try_inverse());
    check("solve", &[sq, t(dev, &[3, 2], 16)], &|v| {
        v[0].try_solve(&v[1])
    });
    failures
}

#[test]
fn rules_on_every_device() {
    let failures = rules_on(&Cpu);
    assert!(failures.is_empty(), "{failures:#?}");
    match Cuda::new(0) {
        Ok(gpu) => {
            let failures = rules_on(&gpu);
            assert!(failures.is_empty(), "{failures:#?}");
        }
        Err(e) => println!("gradchecks on CUDA skipped: {e}"),
    }
}

/// `detect_anomaly` stops backward at the first rule that returns a NaN, naming it, on every
/// device; without it the NaN reaches the leaf. A clean graph gives the same gradients with
/// and without it. `set_grad_enabled` picks recording either way, also inside `no_grad`.
#[test]
fn anomaly_detection_and_set_grad_enabled() {
    use crate::common::host_f64s;
    use typed_tensor::autograd::{
        detect_anomaly, is_anomaly_enabled, no_grad, set_detect_anomaly, set_grad_enabled,
    };
    on_every_device!("anomaly_detection_and_set_grad_enabled", |dev| {
        let x = Tensor::<f32>::from_vec(vec![0.0, 4.0, 9.0], [3])
            .unwrap()
            .to_device(&dev)
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        // 0 · sqrt(x): sqrt's rule gives 0 / (2 · 0) = NaN at x = 0.
        let loss = || {
            x.sqrt()
                .mul_scalar(0.0)
                .add_scalar(1.0)
                .log()
                .sum(&[], false)
        };
        assert!(!is_anomaly_enabled());
        let e = detect_anomaly(|| loss().try_backward())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`sqrt`") && e.contains("input 0") && e.contains("NaN"),
            "{e}"
        );
        assert!(e.contains("recorded at:"), "{e}"); // the forward ran inside: its backtrace
        assert!(!is_anomaly_enabled());
        let recorded_outside = loss();
        let e = detect_anomaly(|| recorded_outside.try_backward())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`sqrt`") && e.contains("forward pass inside"),
            "{e}"
        );
        assert_eq!(host_f64s(&x.grad_tensor().unwrap()), [0.0; 3]); // stopped before the leaf
        loss().backward();
        let g = host_f64s(&x.grad_tensor().unwrap());
        assert!(g[0].is_nan() && g[1] == 0.0, "{g:?}");
        // A clean graph: the same gradients either way.
        let w = Tensor::<f32>::from_vec(vec![0.5, -1.5, 2.0], [3])
            .unwrap()
            .to_device(&dev)
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        // Views among them: their rules return deferred gradients, which anomaly mode reads.
        let clean = || {
            let v = w.narrow(0, 1, 2).unwrap().square().sum(&[], false);
            w.tanh().mul(&w).sum(&[], false).add(&v)
        };
        clean().backward();
        let plain = host_f64s(&w.grad_tensor().unwrap());
        w.zero_grad().unwrap();
        set_detect_anomaly(true);
        assert!(is_anomaly_enabled());
        clean().try_backward().unwrap();
        set_detect_anomaly(false);
        assert_eq!(host_f64s(&w.grad_tensor().unwrap()), plain);
        // set_grad_enabled.
        assert!(!set_grad_enabled(false, || w.mul_scalar(2.0)).requires_grad());
        assert!(no_grad(|| set_grad_enabled(true, || w.mul_scalar(2.0))).requires_grad());
        assert!(!no_grad(|| w.mul_scalar(2.0)).requires_grad());
    });
}

/// `backward` into chosen leaves only (PyTorch `backward(inputs=...)`), on every device.
#[test]
fn backward_into_chosen_inputs() {
    use crate::common::host_f64s;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    on_every_device!("backward_into_chosen_inputs", |dev| {
        let leaf = |v: Vec<f32>| {
            let n = v.len();
            Tensor::<f32>::from_vec(v, [n])
                .unwrap()
                .to_device(&dev)
                .unwrap()
                .with_requires_grad(true)
                .unwrap()
        };
        let (a, b) = (leaf(vec![1.0, -2.0]), leaf(vec![3.0, 0.5]));
        let calls = Arc::new(AtomicUsize::new(0));
        let c = calls.clone();
        let _h = a
            .register_post_accumulate_grad_hook(move |_| {
                c.fetch_add(1, Ordering::SeqCst);
                Ok(())
            })
            .unwrap();
        let loss = || a.mul(&b).add(&a.square()).sum(&[], false);
        // Given twice, added once; b untouched.
        loss().try_backward_inputs(&[&a, &a], false).unwrap();
        assert_eq!(host_f64s(&a.grad_tensor().unwrap()), [5.0, -3.5]); // b + 2a
        assert_eq!(host_f64s(&b.grad_tensor().unwrap()), [0.0, 0.0]);
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        // Accumulates, as backward does; retain_graph keeps the graph for a second pass.
        let l = loss();
        l.try_backward_inputs(&[&b], true).unwrap();
        l.try_backward_inputs(&[&b], false).unwrap();
        assert_eq!(host_f64s(&b.grad_tensor().unwrap()), [2.0, -4.0]);
        assert!(l.try_backward_inputs(&[&b], false).is_err()); // freed
        // Refusals: a recorded result, a frozen leaf, a tensor without grad.
        let h = a.mul_scalar(2.0);
        let e = loss()
            .try_backward_inputs(&[&b, &h], false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("input 1") && e.contains("leaf"), "{e}");
        let mut frozen = b.clone();
        frozen.requires_grad_(false).unwrap();
        assert!(loss().try_backward_inputs(&[&b], false).is_err());
        frozen.requires_grad_(true).unwrap();
        assert_eq!(host_f64s(&b.grad_tensor().unwrap()), [2.0, -4.0]);
    });
}
