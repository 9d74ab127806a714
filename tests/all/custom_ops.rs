//! `autograd::custom` (PyTorch's `torch.autograd.Function`) on every device: the user's
//! forward and backward, their checks, 16-bit gradients in their own dtype, higher-order
//! gradients through a differentiable rule, and the saved tensors' version checks.

use typed_tensor::autograd::{custom, grad_create_graph};
use typed_tensor::prelude::*;

#[test]
fn custom_ops_record_the_users_rule() {
    on_every_device!("custom_ops", |dev| {
        let leaf = |v: Vec<f64>| {
            let n = v.len();
            Tensor::<f64, _>::from_vec_on(v, [n], &dev)
                .unwrap()
                .with_requires_grad(true)
                .unwrap()
        };
        // A straight-through rounding.
        let x = leaf(vec![0.4, 1.6, -2.5]);
        let y = custom(
            "round_ste",
            &[&x],
            |v| v[0].try_round(),
            |g, _, _| Ok(vec![Some(g.clone())]),
        )
        .unwrap();
        assert_eq!(y.try_to_vec().unwrap(), [0.0, 2.0, -2.0]);
        assert_eq!(y.grad_fn().unwrap().name(), "round_ste");
        y.try_mul(&x)
            .unwrap()
            .try_sum(&[], false)
            .unwrap()
            .try_backward()
            .unwrap();
        // d/dx (ste(x)·x) = x + round(x).
        assert_eq!(
            x.grad_tensor().unwrap().try_to_vec().unwrap(),
            [0.4, 3.6, -4.5]
        );

        // Two inputs, a rule written with ops: differentiated again with create_graph.
        let (a, b) = (leaf(vec![1.0, 2.0]), leaf(vec![3.0, -1.0]));
        let cube_times = |a: &Tensor<f64, _>, b: &Tensor<f64, _>| {
            custom(
                "cube_times",
                &[a, b],
                |v| v[0].try_mul(&v[0])?.try_mul(&v[0])?.try_mul(&v[1]),
                |g, v, _| {
                    let a2 = v[0].try_mul(&v[0])?;
                    Ok(vec![
                        Some(g.try_mul(&a2)?.try_mul(&v[1])?.try_mul_scalar(3.0)?),
                        Some(g.try_mul(&a2)?.try_mul(&v[0])?),
                    ])
                },
            )
        };
        let out = cube_times(&a, &b).unwrap().try_sum(&[], false).unwrap();
        let g = grad_create_graph(&out, None, &[&a, &b]).unwrap();
        let ga = g[0].clone().unwrap();
        assert_eq!(ga.try_to_vec().unwrap(), [9.0, -12.0]); // 3a²b
        assert_eq!(g[1].as_ref().unwrap().try_to_vec().unwrap(), [1.0, 8.0]); // a³
        let h = grad_create_graph(&ga.try_sum(&[], false).unwrap(), None, &[&a, &b]).unwrap();
        assert_eq!(h[0].as_ref().unwrap().try_to_vec().unwrap(), [18.0, -12.0]); // 6ab
        assert_eq!(h[1].as_ref().unwrap().try_to_vec().unwrap(), [3.0, 12.0]); // 3a²
        // The gradient of an input that does not require grad is dropped.
        let c = Tensor::<f64, _>::from_vec_on(vec![2.0, 2.0], [2], &dev).unwrap();
        let out = cube_times(&a, &c).unwrap().try_sum(&[], false).unwrap();
        let ga = typed_tensor::autograd::grad(&out, &[&a], false).unwrap();
        assert_eq!(ga[0].as_ref().unwrap().try_to_vec().unwrap(), [6.0, 24.0]);

        // Nothing is recorded without an input that requires grad, or under no_grad.
        let plain = custom(
            "round_ste",
            &[&c],
            |v| v[0].try_round(),
            |g, _, _| Ok(vec![Some(g.clone())]),
        )
        .unwrap();
        assert!(plain.grad_fn().is_none());
        let quiet = typed_tensor::no_grad(|| {
            custom(
                "id",
                &[&a],
                |v| Ok(v[0].clone()),
                |g, _, _| Ok(vec![Some(g.clone())]),
            )
        })
        .unwrap();
        assert!(quiet.grad_fn().is_none());

        // A rule returning the wrong number of gradients or a wrong shape is an Err naming it.
        let y = custom(
            "two",
            &[&a],
            |v| Ok(v[0].clone()),
            |g, _, _| Ok(vec![Some(g.clone()), None]),
        )
        .unwrap();
        let e = y
            .try_sum(&[], false)
            .unwrap()
            .try_backward()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`two`") && e.contains("2 gradients for 1 inputs"),
            "{e}"
        );
        let y = custom(
            "shape",
            &[&a],
            |v| Ok(v[0].clone()),
            |g, _, _| Ok(vec![Some(g.try_sum(&[], false)?)]),
        )
        .unwrap();
        let e = y
            .try_sum(&[], false)
            .unwrap()
            .try_backward()
            .unwrap_err()
            .to_string();
        assert!(e.contains("`shape`") && e.contains("shape ()"), "{e}");

        // The saved input written in place before backward: an Err, not a wrong gradient.
        let wl = leaf(vec![1.0, 2.0]);
        let y = custom(
            "sq",
            &[&wl],
            |v| v[0].try_mul(&v[0]),
            |g, v, _| Ok(vec![Some(g.try_mul(&v[0])?.try_mul_scalar(2.0)?)]),
        )
        .unwrap();
        let mut alias = wl.detach(); // shares the leaf's buffer
        alias.fill_(5.0).unwrap();
        let e = y
            .try_sum(&[], false)
            .unwrap()
            .try_backward()
            .unwrap_err()
            .to_string();
        assert!(e.contains("modified by an in-place op"), "{e}");

        // A 16-bit op gets its gradient in its own dtype.
        let h =
            Tensor::<half::f16, _>::from_vec_on(vec![half::f16::from_f32(1.5)], [1], &dev).unwrap();
        let h = h.with_requires_grad(true).unwrap();
        let y = custom(
            "half",
            &[&h],
            |v| v[0].try_mul_scalar(half::f16::from_f32(2.0)),
            |g, _, _| {
                assert_eq!(g.dtype(), Dtype::Float16);
                Ok(vec![Some(g.try_mul_scalar(half::f16::from_f32(2.0))?)])
            },
        )
        .unwrap();
        y.try_sum(&[], false).unwrap().try_backward().unwrap();
        assert_eq!(
            h.grad_tensor().unwrap().try_to_vec().unwrap(),
            [half::f16::from_f32(2.0)]
        );
    });
}

#[test]
fn checkpoint_recomputes_the_same_gradients() {
    use typed_tensor::autograd::checkpoint;
    on_every_device!("checkpoint", |dev| {
        let t = |v: Vec<f64>, d: &[usize]| {
            Tensor::<f64, _>::from_vec_on(v, d.to_vec(), &dev)
                .unwrap()
                .with_requires_grad(true)
                .unwrap()
        };
        let vals = |n: usize, s: f64| {
            (0..n)
                .map(|i| ((i as f64 + s) * 0.37).sin())
                .collect::<Vec<_>>()
        };
        // A block with captured weights and dropout, run plain and checkpointed from one seed.
        let run = |check: bool| {
            let (w1, w2) = (t(vals(12, 1.0), &[4, 3]), t(vals(6, 2.0), &[3, 2]));
            let x = t(vals(8, 3.0), &[2, 4]);
            let (a, b) = (w1.clone(), w2.clone());
            let block = move |v: &[Tensor<f64, _>]| {
                let h = v[0].try_matmul(&a)?.try_tanh()?;
                let h = typed_tensor::nn::dropout(&h, 0.5, true)?;
                h.try_matmul(&b)
            };
            typed_tensor::manual_seed(9);
            let y = if check {
                checkpoint(block, &[&x]).unwrap()
            } else {
                block(&[x.clone()]).unwrap()
            };
            let _ = Tensor::<f64, _>::rand_on([3], &dev).unwrap(); // draws between forward and backward
            y.try_mul(&y)
                .unwrap()
                .try_sum(&[], false)
                .unwrap()
                .try_backward()
                .unwrap();
            let g = |t: &Tensor<f64, _>| t.grad_tensor().unwrap().try_to_vec().unwrap();
            (y.try_to_vec().unwrap(), g(&x), g(&w1), g(&w2))
        };
        let (plain, ckpt) = (run(false), run(true));
        assert_eq!(plain, ckpt);
        assert!(plain.1.iter().any(|&v| v != 0.0) && plain.2.iter().any(|&v| v != 0.0));
        // No input requires grad: f runs recorded, so the captured weight still gets its grad.
        let w = t(vec![2.0], &[1]);
        let wc = w.clone();
        let c = Tensor::<f64, _>::from_vec_on(vec![3.0], [1], &dev).unwrap();
        let y = checkpoint(move |v| v[0].try_mul(&wc), &[&c]).unwrap();
        y.try_sum(&[], false).unwrap().try_backward().unwrap();
        assert_eq!(w.grad_tensor().unwrap().try_to_vec().unwrap(), [3.0]);
        // autograd::grad and create_graph through a checkpoint are Errs.
        let x = t(vec![1.0, 2.0], &[2]);
        let y = checkpoint(|v| v[0].try_mul(&v[0]), &[&x])
            .unwrap()
            .try_sum(&[], false)
            .unwrap();
        let e = typed_tensor::autograd::grad(&y, &[&x], true)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("checkpoint") && e.contains("autograd::grad"),
            "{e}"
        );
        let e = grad_create_graph(&y, None, &[&x]).unwrap_err().to_string();
        assert!(e.contains("create_graph"), "{e}");
        y.try_backward().unwrap();
        assert_eq!(x.grad_tensor().unwrap().try_to_vec().unwrap(), [2.0, 4.0]);
    });
}
