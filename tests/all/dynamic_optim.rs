//! `DynOptimizer`: runtime-dtype parameters grouped by dtype and device, each group's update
//! bit-identical to the typed optimizer's; the state dict by list position, its round trip and
//! all-or-nothing loading; the refusals.

use std::collections::BTreeMap;
use typed_tensor::dynamic::{DynOptimizer, Recipe};
use typed_tensor::optim::{Adam, LrSchedule, Optimizer, Sgd, StepDecay};
use typed_tensor::prelude::*;

/// The values of parameter `i` (`n` elements) in a fixed pattern.
fn values(i: usize, n: usize) -> Vec<f64> {
    (0..n)
        .map(|k| ((i * 7 + k) as f64 * 0.37).sin() * 2.0)
        .collect()
}

/// `Σ p³/3 + Σ p` per parameter, summed in f64, back-propagated: gradient `p² + 1`.
fn backward_all(ps: &[DynTensor]) {
    for p in ps {
        let cube = p.mul(p).unwrap().mul(p).unwrap();
        let l = cube
            .reduce_sum(&[], false)
            .unwrap()
            .add(&p.reduce_sum(&[], false).unwrap())
            .unwrap();
        l.backward().unwrap();
    }
}

pub(crate) fn host(p: &DynTensor) -> Vec<f64> {
    p.to_cpu()
        .unwrap()
        .to_dtype(Dtype::Float64)
        .unwrap()
        .to_vec::<f64>()
        .unwrap()
}

/// Parameters of dtypes f64, f32, f64, f16, bf16 on `dev`.
fn params(dev: DeviceIndex) -> Vec<DynTensor> {
    let dtypes = [
        Dtype::Float64,
        Dtype::Float32,
        Dtype::Float64,
        Dtype::Float16,
        Dtype::Bfloat16,
    ];
    (dtypes.iter().enumerate())
        .map(|(i, &d)| {
            let host = DynTensor::from(Tensor::<f64>::from_vec(values(i, 3 + i), [3 + i]).unwrap());
            let mut p = host.to_dtype(d).unwrap().to(dev).unwrap();
            p.set_requires_grad(true).unwrap();
            p
        })
        .collect()
}

fn recipe() -> Adam<f32, Cpu> {
    let mut r = Adam::adamw(vec![], 0.05);
    (r.betas, r.amsgrad, r.weight_decay) = ((0.8, 0.99), true, 0.1);
    r
}

/// The same run with one typed optimizer per parameter (Adam's update is per parameter).
fn typed_reference(dev: DeviceIndex, steps: usize) -> Vec<Vec<f64>> {
    let ps = params(dev);
    let mut opts: Vec<Box<dyn Optimizer>> = ps
        .iter()
        .map(|p| DynOptimizer::new(std::slice::from_ref(p), &recipe()).unwrap())
        .map(|o| Box::new(o) as Box<dyn Optimizer>)
        .collect();
    for _ in 0..steps {
        opts.iter().for_each(|o| o.zero_grad().unwrap());
        backward_all(&ps);
        opts.iter_mut().for_each(|o| o.step().unwrap());
    }
    ps.iter().map(host).collect()
}

#[test]
fn dyn_optimizer_groups_and_matches_the_typed_update() {
    on_every_device!("dyn_optimizer", |dev| {
        let di = dev.index();
        let ps = params(di);
        let mut opt = DynOptimizer::new(&ps, &recipe()).unwrap();
        assert_eq!(opt.num_groups(), 4);
        for _ in 0..3 {
            opt.zero_grad().unwrap();
            backward_all(&ps);
            opt.step().unwrap();
        }
        let got: Vec<Vec<f64>> = ps.iter().map(host).collect();
        assert_eq!(got, typed_reference(di, 3));
        // The typed Adam on the f64 parameter alone: the same bits.
        let w = Tensor::<f64>::from_vec(values(0, 3), [3])
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        let mut typed = recipe().build(vec![w.clone()]);
        for _ in 0..3 {
            typed.zero_grad().unwrap();
            let l = w
                .try_mul(&w)
                .unwrap()
                .try_mul(&w)
                .unwrap()
                .try_sum(&[], false)
                .unwrap();
            l.try_add(&w.try_sum(&[], false).unwrap())
                .unwrap()
                .try_backward()
                .unwrap();
            typed.step().unwrap();
        }
        assert_eq!(got[0], w.to_vec());

        // The state by list position; a round trip resumes the same trajectory.
        let state = opt.state_dict().unwrap();
        let keys: Vec<&str> = state.iter().map(|(k, _)| k.as_str()).collect();
        for k in [
            "0.exp_avg",
            "1.exp_avg",
            "2.max_exp_avg_sq",
            "3.exp_avg_sq",
            "4.exp_avg",
        ] {
            assert!(keys.contains(&k), "{k} in {keys:?}");
        }
        assert_eq!(keys.iter().filter(|k| **k == "step").count(), 1);
        let map: BTreeMap<String, DynTensor> = state.into_iter().collect();
        let ps2: Vec<DynTensor> = (ps.iter())
            .map(|p| {
                let h = Tensor::<f64>::from_vec(host(p), [p.numel()]).unwrap();
                let mut q = DynTensor::from(h)
                    .to_dtype(p.dtype())
                    .unwrap()
                    .to(di)
                    .unwrap();
                q.set_requires_grad(true).unwrap();
                q
            })
            .collect();
        let mut resumed = DynOptimizer::new(&ps2, &recipe()).unwrap();
        resumed.load_state_dict(&map).unwrap();
        for (o, set) in [(&mut opt, &ps), (&mut resumed, &ps2)] {
            o.zero_grad().unwrap();
            backward_all(set);
            o.step().unwrap();
        }
        let (a, b): (Vec<_>, Vec<_>) = (
            ps.iter().map(host).collect(),
            ps2.iter().map(host).collect(),
        );
        assert_eq!(a, b);

        // All or nothing: a bad buffer for parameter 3 (the third group) leaves every group
        // as it was.
        let before = opt.state_dict().unwrap();
        let mut bad = map.clone();
        bad.insert(
            "3.exp_avg".into(),
            DynTensor::from(Tensor::<f32>::zeros([2]).unwrap()),
        );
        let e = opt.load_state_dict(&bad).unwrap_err().to_string();
        assert!(
            e.contains("group of parameters [3]") && e.contains("\"0.exp_avg\""),
            "{e}"
        );
        let after = opt.state_dict().unwrap();
        assert_eq!(before.len(), after.len());
        for ((k1, t1), (k2, t2)) in before.iter().zip(&after) {
            assert_eq!(k1, k2);
            assert_eq!(host(t1), host(t2), "{k1}");
        }
        let mut unknown = map.clone();
        unknown.insert(
            "9.exp_avg".into(),
            DynTensor::from(Tensor::<f32>::zeros([2]).unwrap()),
        );
        let e = opt.load_state_dict(&unknown).unwrap_err().to_string();
        assert!(
            e.contains("parameter 9") && e.contains("5 parameters"),
            "{e}"
        );

        // The learning rate reaches every group; a schedule drives it.
        StepDecay {
            base: 0.1,
            step_size: 1,
            gamma: 0.5,
        }
        .apply(&mut opt, 2);
        assert_eq!(opt.lr(), 0.025);
    });
}

#[test]
fn dyn_optimizer_refuses_bad_parameters() {
    let e = |r: typed_tensor::Result<DynOptimizer>| r.err().unwrap().to_string();
    assert!(e(DynOptimizer::sgd(&[], 0.1)).contains("empty parameter list"));
    let i = DynTensor::from(Tensor::<i32>::zeros([2]).unwrap());
    assert!(e(DynOptimizer::adam(&[i], 0.1)).contains("parameter 0 (Int32"));
    let mut a = DynTensor::from(Tensor::<f32>::zeros([2]).unwrap());
    a.set_requires_grad(true).unwrap();
    let b = DynTensor::from(Tensor::<f64>::zeros([3]).unwrap());
    assert!(e(DynOptimizer::adamw(&[a.clone(), b], 0.1)).contains("parameter 1 (Float64"));
    // A typed optimizer's own refusal comes through step.
    let mut opt = DynOptimizer::new(&[a], &Sgd::<f64, Cpu>::new(vec![], -1.0)).unwrap();
    assert!(opt.step().unwrap_err().to_string().contains("lr"));
}
