//! `register_hook` and `retain_grad` on every device, against PyTorch 2.15's values: hooks see
//! the summed gradient of every path, replace it downstream, run before a leaf accumulates and
//! before `autograd::grad` captures; retained gradients accumulate over backward passes. And
//! `autograd::jacobian`/`vjp` against `torch.autograd.functional`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use typed_tensor::prelude::*;

#[test]
fn hooks_and_retained_gradients_match_pytorch() {
    on_every_device!("hooks", |dev| {
        // y = x², z = sum(y·x) + sum(y), y's gradient (x + 1) times 10 by a hook.
        let x = Tensor::<f64, _>::from_vec_on(vec![1.0, 2.0, 3.0], [3], &dev).unwrap();
        let x = x.with_requires_grad(true).unwrap();
        let mut y = x.try_mul(&x).unwrap();
        assert!(!y.retains_grad() && !x.retains_grad());
        y.retain_grad().unwrap();
        y.retain_grad().unwrap(); // twice changes nothing
        assert!(y.retains_grad());
        y.register_hook(|g| Ok(Some(g.try_mul_scalar(10.0)?)))
            .unwrap();
        let z = y.try_mul(&x).unwrap().try_sum(&[], false).unwrap();
        let z = z.try_add(&y.try_sum(&[], false).unwrap()).unwrap();
        let one = Tensor::<f64, _>::scalar_on(1.0, &dev).unwrap();
        z.try_backward_with(&one, true).unwrap();
        assert_eq!(
            y.grad_tensor().unwrap().try_to_vec().unwrap(),
            [20.0, 30.0, 40.0]
        );
        assert_eq!(
            x.grad_tensor().unwrap().try_to_vec().unwrap(),
            [41.0, 124.0, 249.0]
        );
        z.try_backward().unwrap();
        assert_eq!(
            y.grad_tensor().unwrap().try_to_vec().unwrap(),
            [40.0, 60.0, 80.0]
        );
        assert_eq!(
            x.grad_tensor().unwrap().try_to_vec().unwrap(),
            [82.0, 248.0, 498.0]
        );

        // autograd::grad: hooks on the input and on an intermediate apply, the retained
        // gradient is filled (PyTorch fills it too), the leaf's buffer is not.
        let x2 = Tensor::<f64, _>::from_vec_on(vec![1.0, 2.0], [2], &dev).unwrap();
        let x2 = x2.with_requires_grad(true).unwrap();
        let mut y2 = x2.try_mul_scalar(3.0).unwrap();
        y2.retain_grad().unwrap();
        y2.register_hook(|g| Ok(Some(g.try_add_scalar(1.0)?)))
            .unwrap();
        x2.register_hook(|g| Ok(Some(g.try_mul_scalar(2.0)?)))
            .unwrap();
        let loss = y2.try_mul(&y2).unwrap().try_sum(&[], false).unwrap();
        let g = typed_tensor::autograd::grad(&loss, &[&x2], false).unwrap();
        let g = g[0].as_ref().unwrap().try_to_vec().unwrap();
        assert_eq!(g, [42.0, 78.0]);
        assert_eq!(y2.grad_tensor().unwrap().try_to_vec().unwrap(), [7.0, 13.0]);
        assert_eq!(x2.grad_tensor().unwrap().try_to_vec().unwrap(), [0.0, 0.0]);
    });
}

#[test]
fn hooks_observe_remove_and_refuse() {
    on_every_device!("hook handles", |dev| {
        let x = Tensor::<f32, _>::from_vec_on(vec![1.0, -2.0, 3.0, 0.5], [2, 2], &dev).unwrap();
        let x = x.with_requires_grad(true).unwrap();
        let y = x.try_tanh().unwrap();
        // An observing hook sees the gradient once per backward, summed over both uses of y.
        let seen = Arc::new(Mutex::new(Vec::new()));
        let calls = Arc::new(AtomicUsize::new(0));
        let (s, c) = (seen.clone(), calls.clone());
        let h = y
            .register_hook(move |g| {
                c.fetch_add(1, Ordering::SeqCst);
                *s.lock().unwrap() = g.try_to_vec()?;
                Ok(None)
            })
            .unwrap();
        let loss = || {
            let a = y.try_mul_scalar(2.0).unwrap().try_sum(&[], false).unwrap();
            a.try_add(&y.try_sum(&[], false).unwrap()).unwrap()
        };
        let one = Tensor::<f32, _>::scalar_on(1.0, &dev).unwrap();
        loss().try_backward_with(&one, true).unwrap();
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        assert_eq!(*seen.lock().unwrap(), [3.0; 4]);
        let after_one = x.grad_tensor().unwrap().try_to_vec().unwrap();
        // Removed, it is not called again; a clone of y shares y's hooks.
        h.clone().remove();
        h.remove();
        loss().try_backward().unwrap();
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        let twice: Vec<f32> = after_one.iter().map(|g| 2.0 * g).collect();
        assert_eq!(x.grad_tensor().unwrap().try_to_vec().unwrap(), twice);

        // A hook on a leaf changes what its buffer receives; a hook may register another.
        let w = Tensor::<f32, _>::from_vec_on(vec![1.0, 2.0], [2], &dev).unwrap();
        let w = w.with_requires_grad(true).unwrap();
        let inner = w.clone();
        w.register_hook(move |_| {
            inner.register_hook(|_| Ok(None))?;
            Ok(None)
        })
        .unwrap();
        w.register_hook(|g| Ok(Some(g.try_neg()?))).unwrap();
        w.try_sum(&[], false).unwrap().try_backward().unwrap();
        assert_eq!(w.grad_tensor().unwrap().try_to_vec().unwrap(), [-1.0, -1.0]);

        // A retained clone shares the buffer; a leaf "retains" by being a leaf.
        let mut y = w.try_mul_scalar(4.0).unwrap();
        let mut y2 = y.clone();
        y.retain_grad().unwrap();
        y2.retain_grad().unwrap();
        let mut leaf = w.clone();
        leaf.retain_grad().unwrap();
        assert!(!leaf.retains_grad());
        y.try_sum(&[], false).unwrap().try_backward().unwrap();
        assert_eq!(y2.grad_tensor().unwrap().try_to_vec().unwrap(), [1.0, 1.0]);

        // Refusals: no grad; a replacement of the wrong shape; a hook's own error.
        let mut plain = Tensor::<f32, _>::zeros_on([2], &dev).unwrap();
        let e = plain.register_hook(|_| Ok(None)).unwrap_err().to_string();
        assert!(
            e.contains("register_hook") && e.contains("does not require grad"),
            "{e}"
        );
        assert!(
            plain
                .retain_grad()
                .unwrap_err()
                .to_string()
                .contains("retain_grad")
        );
        let y = w.try_exp().unwrap();
        let h = y
            .register_hook(|g| Ok(Some(g.try_sum(&[], false)?)))
            .unwrap();
        let e = y.try_sum(&[], false).unwrap().try_backward().unwrap_err();
        assert!(e.to_string().contains("register_hook"), "{e}");
        h.remove();
        y.register_hook(|_| {
            Err(typed_tensor::Error::InvalidArgument {
                op: "my_hook",
                msg: "stop".into(),
            })
        })
        .unwrap();
        let e = y.try_sum(&[], false).unwrap().try_backward().unwrap_err();
        assert!(e.to_string().contains("my_hook"), "{e}");
    });
}

#[test]
fn dyn_tensor_hooks() {
    let opts = TensorOptions::new()
        .dtype(Dtype::Float32)
        .requires_grad(true);
    let w = DynTensor::full([3], opts, 2.0f32).unwrap();
    let mut y = w.mul(&w).unwrap();
    y.retain_grad().unwrap();
    assert!(y.retains_grad() && !w.retains_grad());
    y.register_hook(|g| Ok(Some(g.mul(g)?.add(g)?))).unwrap(); // 1 → 2
    reduce_sum(&y, &[], false).unwrap().backward().unwrap();
    assert_eq!(y.grad_tensor().unwrap().to_vec::<f32>().unwrap(), [2.0; 3]);
    assert_eq!(w.grad_tensor().unwrap().to_vec::<f32>().unwrap(), [8.0; 3]);
    // A replacement of another dtype is the downcast's error; integers have no hooks.
    let y = w.exp().unwrap();
    y.register_hook(|g| Ok(Some(g.to_dtype(Dtype::Float64)?)))
        .unwrap();
    let e = reduce_sum(&y, &[], false).unwrap().backward().unwrap_err();
    assert!(e.to_string().contains("Float64"), "{e}");
    let mut i = DynTensor::zeros([2], TensorOptions::new().dtype(Dtype::Int64)).unwrap();
    assert!(i.retain_grad().is_err() && i.register_hook(|_| Ok(None)).is_err());
    assert!(!i.retains_grad());
}

/// `autograd::jacobian` and `vjp` against PyTorch 2.15's `torch.autograd.functional` for
/// `tanh(x @ w)`, on every device; constant outputs and unused inputs give zeros.
#[test]
fn jacobian_and_vjp_match_pytorch() {
    use crate::common::assert_close;
    use typed_tensor::autograd::{jacobian, vjp};
    on_every_device!("jacobian", |dev| {
        let f64t = |v: Vec<f64>, s: &[usize]| Tensor::<f64, _>::from_vec_on(v, s, &dev).unwrap();
        let x = f64t(vec![0.5, -1.0, 0.25, 1.5, 0.0, -0.5], &[2, 3]);
        let w = f64t(vec![0.2, -0.3, 0.4, 0.1, -0.6, 0.5], &[3, 2]);
        let f = |v: &[Tensor<f64, _>]| v[0].try_matmul(&v[1])?.try_tanh();
        let j = jacobian(f, &[x.clone(), w.clone()]).unwrap();
        assert_eq!(
            (j[0].dims(), j[1].dims()),
            (&[2, 2, 2, 3][..], &[2, 2, 3, 2][..])
        );
        let want_x = [
            0.164400245873811,
            0.328800491747621,
            -0.493200737621432,
            0.0,
            0.0,
            0.0,
            -0.295360899285118,
            0.098453633095039,
            0.492268165475197,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.142315552517445,
            0.284631105034889,
            -0.426946657552334,
            0.0,
            0.0,
            0.0,
            -0.190421876994738,
            0.063473958998246,
            0.317369794991229,
        ];
        let want_w = [
            0.411000614684527,
            0.0,
            -0.822001229369054,
            0.0,
            0.205500307342263,
            0.0,
            0.0,
            0.492268165475197,
            0.0,
            -0.984536330950393,
            0.0,
            0.246134082737598,
            1.067366643880834,
            0.0,
            0.0,
            0.0,
            -0.355788881293611,
            0.0,
            0.0,
            0.952109384973688,
            0.0,
            0.0,
            0.0,
            -0.317369794991229,
        ];
        assert_close(&j[0].try_to_vec().unwrap(), &want_x, 1e-14);
        assert_close(&j[1].try_to_vec().unwrap(), &want_w, 1e-14);
        assert!(!x.requires_grad() && !w.requires_grad()); // inputs untouched
        let v = f64t(vec![1.0, -2.0, 0.5, 3.0], &[2, 2]);
        let (out, g) = vjp(f, &[x.clone(), w.clone()], &v).unwrap();
        assert!(!out.requires_grad() && out.dims() == [2, 2]);
        let gx = [0.7551220444440467, 0.1318932255575428, -1.4777370685718256];
        assert_close(&g[0].try_to_vec().unwrap()[..3], &gx, 1e-14);
        let gw = [0.944683936624944, 1.8717918239706706, -0.8220012293690537];
        assert_close(&g[1].try_to_vec().unwrap()[..3], &gw, 1e-14);
        // A 0-d output, an unused input, a constant function, a wrong v.
        let j = jacobian(|v| v[0].try_sum(&[], false), &[x.clone(), w.clone()]).unwrap();
        assert_eq!(
            (j[0].dims(), j[0].try_to_vec().unwrap()),
            (&[2, 3][..], vec![1.0; 6])
        );
        assert_eq!(j[1].try_to_vec().unwrap(), vec![0.0; 6]);
        let c = jacobian(
            |v| Tensor::zeros_on([4], v[0].device_handle()),
            &[x.clone()],
        );
        assert_eq!(c.unwrap()[0].dims(), [4, 2, 3]);
        let e = vjp(f, &[x.clone(), w.clone()], &x).unwrap_err().to_string();
        assert!(e.contains("vjp"), "{e}");
    });
}

/// `register_post_accumulate_grad_hook`: an optimizer stepping each parameter inside
/// `backward` (PyTorch's optimizer-in-backward recipe) gives the parameters of the usual loop,
/// bit for bit; hooks see the gradient after the gradient hooks and the accumulated sum, stop
/// when removed, do not run for `autograd::grad`, and end the pass with their `Err`.
#[test]
fn post_accumulate_grad_hooks() {
    use typed_tensor::optim::{Adam, Optimizer};
    on_every_device!("post_accumulate_hooks", |dev| {
        let init = |seed: u64| {
            typed_tensor::manual_seed(seed);
            let w = Tensor::<f64, _>::randn_on([3, 4], &dev).unwrap();
            let b = Tensor::<f64, _>::randn_on([4], &dev).unwrap();
            [
                w.with_requires_grad(true).unwrap(),
                b.with_requires_grad(true).unwrap(),
            ]
        };
        let x = Tensor::<f64, _>::from_vec_on(
            (0..6).map(|i| i as f64 / 3.0 - 1.0).collect(),
            [2, 3],
            &dev,
        )
        .unwrap();
        let loss = |[w, b]: &[Tensor<f64, _>; 2]| {
            let h = x
                .try_matmul(w)
                .unwrap()
                .try_add(b)
                .unwrap()
                .try_tanh()
                .unwrap();
            h.try_mul(&h).unwrap().try_sum(&[], false).unwrap()
        };
        // The usual loop.
        let usual = init(7);
        let mut opt = Adam::adamw(usual.to_vec(), 0.05);
        for _ in 0..3 {
            opt.zero_grad().unwrap();
            loss(&usual).try_backward().unwrap();
            opt.step().unwrap();
        }
        // One optimizer per parameter, stepped by its hook.
        let inside = init(7);
        let steps = Arc::new(AtomicUsize::new(0));
        for p in &inside {
            let opt = Mutex::new(Adam::adamw(vec![p.clone()], 0.05));
            let steps = steps.clone();
            p.register_post_accumulate_grad_hook(move |_| {
                let mut opt = opt.lock().unwrap();
                opt.step()?;
                steps.fetch_add(1, Ordering::Relaxed);
                opt.zero_grad()
            })
            .unwrap();
        }
        for _ in 0..3 {
            loss(&inside).try_backward().unwrap();
        }
        assert_eq!(steps.load(Ordering::Relaxed), 6);
        for (a, b) in usual.iter().zip(&inside) {
            assert_eq!(
                a.to_device(&Cpu).unwrap().to_vec(),
                b.to_device(&Cpu).unwrap().to_vec()
            );
        }

        // Order and accumulation: a gradient hook triples the gradient first; the post hook
        // sees the buffer's sum over passes.
        let v = Tensor::<f64, _>::from_vec_on(vec![1.0, -2.0], [2], &dev).unwrap();
        let v = v.with_requires_grad(true).unwrap();
        v.register_hook(|g| Ok(Some(g.try_mul_scalar(3.0)?)))
            .unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let handle = v
            .register_post_accumulate_grad_hook(move |p| {
                let g = p.grad_tensor().unwrap().to_device(&Cpu)?;
                log.lock().unwrap().push(g.to_vec());
                Ok(())
            })
            .unwrap();
        for _ in 0..2 {
            v.try_mul(&v)
                .unwrap()
                .try_sum(&[], false)
                .unwrap()
                .try_backward()
                .unwrap();
        }
        let g =
            typed_tensor::autograd::grad(&v.try_sum(&[], false).unwrap(), &[&v], false).unwrap();
        assert!(g[0].is_some());
        assert_eq!(*seen.lock().unwrap(), [vec![6.0, -12.0], vec![12.0, -24.0]]);
        handle.remove();
        v.try_sum(&[], false).unwrap().try_backward().unwrap();
        assert_eq!(seen.lock().unwrap().len(), 2);

        // A hook's Err ends the pass; refusals.
        v.register_post_accumulate_grad_hook(|_| {
            Err(Error::InvalidArgument {
                op: "test hook",
                msg: "stop".into(),
            })
        })
        .unwrap();
        let e = v
            .try_sum(&[], false)
            .unwrap()
            .try_backward()
            .unwrap_err()
            .to_string();
        assert!(e.contains("stop"), "{e}");
        let y = v.try_mul_scalar(2.0).unwrap();
        let e = y
            .register_post_accumulate_grad_hook(|_| Ok(()))
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a leaf") && e.contains("mul"), "{e}");
        assert!(
            v.detach()
                .register_post_accumulate_grad_hook(|_| Ok(()))
                .is_err()
        );
    });
}

#[test]
fn dyn_tensor_post_accumulate_hook() {
    let mut w = DynTensor::from_vec(vec![2.0f32, -1.0], [2], DeviceIndex::cpu()).unwrap();
    w.set_requires_grad(true).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    w.register_post_accumulate_grad_hook(move |p| {
        log.lock()
            .unwrap()
            .push(p.grad_tensor().unwrap().to_vec::<f32>()?);
        Ok(())
    })
    .unwrap();
    w.mul(&w)
        .unwrap()
        .reduce_sum(&[], false)
        .unwrap()
        .backward()
        .unwrap();
    assert_eq!(*seen.lock().unwrap(), [vec![4.0f32, -2.0]]);
    let ints = DynTensor::from_vec(vec![1i32], [1], DeviceIndex::cpu()).unwrap();
    assert!(ints.register_post_accumulate_grad_hook(|_| Ok(())).is_err());
}

/// Forward hooks on a layer (`nn::modules::Hooked`, PyTorch `register_forward_pre_hook` and
/// `register_forward_hook`) on every device: a pre-hook replaces the input, hooks run in
/// registration order on the output so far and see the replaced input, replacements are
/// differentiated, handles remove exactly their hook, a hook's error ends the call, a hook
/// may register another (it runs from the next call), and the layer's parameters, names and
/// training mode are the inner layer's.
#[test]
fn module_forward_hooks() {
    use crate::common::host_f64s;
    use typed_tensor::nn::modules::{Dropout, Hooked, Linear, Module, Parameters, Sequential};
    on_every_device!("module_forward_hooks", |dev| {
        let mut lin = Linear::<f64, _>::new(3, 2, false, &dev).unwrap();
        let w = Tensor::<f64>::from_vec(vec![1.0, 2.0, 3.0, -1.0, 0.5, 0.0], [2, 3]).unwrap();
        typed_tensor::autograd::no_grad(|| lin.weight.copy_from(&w.to_device(&dev)?)).unwrap();
        let m = Hooked::new(lin);
        let x = Tensor::<f64>::from_vec(vec![1.0, 1.0, 2.0], [1, 3])
            .unwrap()
            .to_device(&dev)
            .unwrap();
        let plain = host_f64s(&m.forward(&x).unwrap());
        assert_eq!(plain, vec![9.0, -0.5]);
        let log = Arc::new(Mutex::new(Vec::<String>::new()));
        let l1 = log.clone();
        let pre = m.register_forward_pre_hook(move |_, x| {
            l1.lock().unwrap().push("pre".into());
            Ok(Some(x.try_mul_scalar(2.0)?))
        });
        let l2 = log.clone();
        let first = m.register_forward_hook(move |_, x, y| {
            // The input is the pre-hook's.
            l2.lock().unwrap().push(format!("first {:?}", host_f64s(x)));
            Ok(Some(y.try_add_scalar(1.0)?))
        });
        let l3 = log.clone();
        let _second = m.register_forward_hook(move |layer, _, y| {
            // The layer itself, and the output the first hook returned.
            assert_eq!(layer.weight.dims(), [2, 3]);
            l3.lock()
                .unwrap()
                .push(format!("second {:?}", host_f64s(y)));
            Ok(None)
        });
        let y = m.forward(&x).unwrap();
        assert_eq!(host_f64s(&y), vec![19.0, 0.0]);
        assert_eq!(
            *log.lock().unwrap(),
            ["pre", "first [2.0, 2.0, 4.0]", "second [19.0, 0.0]"]
        );
        // Differentiated through the pre-hook's doubling: d(sum y)/dW = 2x per row.
        y.sum(&[], false).backward();
        let g = host_f64s(&m.inner.weight.grad_tensor().unwrap());
        assert_eq!(g, vec![2.0, 2.0, 4.0, 2.0, 2.0, 4.0]);
        // Each handle removes its own hook, once.
        assert!(first.remove() && !first.remove());
        assert!(pre.remove());
        log.lock().unwrap().clear();
        assert_eq!(host_f64s(&m.forward(&x).unwrap()), plain);
        assert_eq!(log.lock().unwrap().len(), 1); // the second hook only
        // A hook's error ends the call.
        let fail = m.register_forward_hook(|_, _, _| {
            Err(typed_tensor::Error::InvalidArgument {
                op: "hook",
                msg: "refused".into(),
            })
        });
        assert!(m.forward(&x).unwrap_err().to_string().contains("refused"));
        assert!(fail.remove());
        // A hook that registers another: no deadlock; the new one runs from the next call.
        let count = Arc::new(AtomicUsize::new(0));
        let m = Arc::new(m);
        let (weak, c) = (Arc::downgrade(&m), count.clone());
        m.register_forward_pre_hook(move |_, _| {
            let c = c.clone();
            if let Some(m) = weak.upgrade() {
                // Leaked on purpose: each call adds one counting hook.
                std::mem::forget(m.register_forward_pre_hook(move |_, _| {
                    c.fetch_add(1, Ordering::SeqCst);
                    Ok(None)
                }));
            }
            Ok(None)
        });
        m.forward(&x).unwrap();
        assert_eq!(count.load(Ordering::SeqCst), 0);
        m.forward(&x).unwrap();
        assert_eq!(count.load(Ordering::SeqCst), 1);
        // Parameters and names are the inner layer's; inside a Sequential they are numbered.
        assert_eq!(m.named_parameters()[0].0, "weight");
        let seq = Sequential::new().push(Hooked::new(
            Linear::<f64, _>::new(3, 2, true, &dev).unwrap(),
        ));
        let names: Vec<String> = seq.named_parameters().into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["0.weight", "0.bias"]);
        // Training mode reaches the inner layer.
        let mut d = Hooked::<_, f64, _>::new(Dropout::new(0.5));
        Parameters::<f64, _>::set_training(&mut d, false);
        assert!(!d.inner.training);
        let ones = Tensor::<f64>::ones([4]).unwrap().to_device(&dev).unwrap();
        assert_eq!(host_f64s(&d.forward(&ones).unwrap()), vec![1.0; 4]);
    });
}

/// Full backward hooks on a layer (`Hooked::register_full_backward_pre_hook` and
/// `register_full_backward_hook`, PyTorch's) on every device: for `y = x Wᵀ` and the loss
/// `Σ c·y`, the pre-hook sees `grad_output = c` and may scale it (reaching the weight's
/// gradient), the hook sees `grad_input = grad_output · W` and may replace it (reaching only
/// the input's), both in that order; with an input that does not require grad the hook gets
/// `None`; removed hooks and unrecorded calls run none.
#[test]
fn module_full_backward_hooks() {
    use crate::common::host_f64s;
    use typed_tensor::nn::modules::{Hooked, Linear, Module};
    on_every_device!("module_full_backward_hooks", |dev| {
        let up = |v: Vec<f64>, s: [usize; 2]| {
            Tensor::<f64>::from_vec(v, s)
                .unwrap()
                .to_device(&dev)
                .unwrap()
        };
        let mut lin = Linear::<f64, _>::new(3, 2, false, &dev).unwrap();
        let w = up(vec![1.0, 2.0, 3.0, -1.0, 0.5, 0.0], [2, 3]);
        typed_tensor::autograd::no_grad(|| lin.weight.copy_from(&w)).unwrap();
        let m = Hooked::new(lin);
        let c = up(vec![1.0, -2.0], [1, 2]);
        let log = Arc::new(Mutex::new(Vec::<(String, Vec<f64>)>::new()));
        let l1 = log.clone();
        let pre = m.register_full_backward_pre_hook(move |go| {
            l1.lock().unwrap().push(("pre".into(), host_f64s(go)));
            Ok(Some(go.try_mul_scalar(3.0)?))
        });
        let l2 = log.clone();
        let hook = m.register_full_backward_hook(move |gi, go| {
            let gi = gi.expect("the input requires grad");
            l2.lock().unwrap().push(("gi".into(), host_f64s(gi)));
            l2.lock().unwrap().push(("go".into(), host_f64s(go)));
            Ok(Some(gi.try_add_scalar(100.0)?))
        });
        let x = up(vec![1.0, 1.0, 2.0], [1, 3])
            .with_requires_grad(true)
            .unwrap();
        let y = m.forward(&x).unwrap();
        assert_eq!(host_f64s(&y), vec![9.0, -0.5]);
        y.try_mul(&c).unwrap().sum(&[], false).backward();
        // grad_output 3c = [3, -6]; grad_input = [3, -6] W = [9, 3, 9].
        assert_eq!(
            *log.lock().unwrap(),
            [
                ("pre".to_string(), vec![1.0, -2.0]),
                ("gi".to_string(), vec![9.0, 3.0, 9.0]),
                ("go".to_string(), vec![3.0, -6.0]),
            ]
        );
        assert_eq!(
            host_f64s(&x.grad_tensor().unwrap()),
            vec![109.0, 103.0, 109.0]
        );
        // The weight's gradient sees the scaled grad_output, not the replaced grad_input.
        let gw = host_f64s(&m.inner.weight.grad_tensor().unwrap());
        assert_eq!(gw, vec![3.0, 3.0, 6.0, -6.0, -6.0, -12.0]);
        // An input without grad: the hook gets None, after the pre-hook.
        log.lock().unwrap().clear();
        assert!(hook.remove());
        let l3 = log.clone();
        let none = m.register_full_backward_hook(move |gi, go| {
            assert!(gi.is_none());
            l3.lock().unwrap().push(("none".into(), host_f64s(go)));
            Ok(None)
        });
        let x0 = up(vec![1.0, 0.0, 0.0], [1, 3]);
        m.forward(&x0).unwrap().sum(&[], false).backward();
        let names: Vec<String> = log.lock().unwrap().iter().map(|(n, _)| n.clone()).collect();
        assert_eq!(names, ["pre", "none"]);
        assert_eq!(log.lock().unwrap()[1].1, vec![3.0, 3.0]);
        // Removed hooks, and calls under no_grad, run none.
        assert!(pre.remove() && none.remove());
        log.lock().unwrap().clear();
        let x1 = up(vec![1.0, 2.0, 3.0], [1, 3])
            .with_requires_grad(true)
            .unwrap();
        m.forward(&x1).unwrap().sum(&[], false).backward();
        assert_eq!(host_f64s(&x1.grad_tensor().unwrap()), vec![0.0, 2.5, 3.0]);
        let l4 = log.clone();
        m.register_full_backward_pre_hook(move |_| {
            l4.lock().unwrap().push(("late".into(), vec![]));
            Ok(None)
        });
        let y = typed_tensor::autograd::no_grad(|| m.forward(&x1)).unwrap();
        assert!(!y.requires_grad());
        assert!(log.lock().unwrap().is_empty());
    });
}
