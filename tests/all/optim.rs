//! The optimizers, gradient clipping and learning-rate schedules against PyTorch 2.15
//! (`tests/data/torch_grads/optim.npz`, made by `make/optim.py`): two parameters, a loss
//! `sum(q·p·p + r·sin(p))`, 8 steps of every configuration; in f64 on every device, and in
//! f32 and f16 (state kept in f32) at their precision.

use crate::common::{assert_close, host_f64s};
use std::collections::BTreeMap;
use typed_tensor::dynamic::DynTensor;
use typed_tensor::io::load_npz;
use typed_tensor::optim::*;
use typed_tensor::prelude::*;

fn fixture() -> BTreeMap<String, DynTensor> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/torch_grads");
    load_npz(format!("{dir}/optim.npz")).unwrap()
}

fn values(a: &BTreeMap<String, DynTensor>, k: &str) -> Vec<f64> {
    a[k].clone().downcast::<f64, Cpu>().unwrap().to_vec()
}

/// The optimizer `name` of `make/optim.py`, set as it is there.
fn config<T: FloatElement, D: Backend>(name: &str, ps: Vec<Tensor<T, D>>) -> Box<dyn Optimizer> {
    match name {
        "sgd" => Box::new(Sgd::new(ps, 0.1)),
        "sgd_momentum" => {
            let mut o = Sgd::new(ps, 0.1);
            (o.momentum, o.dampening, o.weight_decay) = (0.9, 0.1, 0.05);
            Box::new(o)
        }
        "sgd_nesterov_maximize" => {
            let mut o = Sgd::new(ps, 0.05);
            (o.momentum, o.nesterov, o.maximize) = (0.8, true, true);
            Box::new(o)
        }
        "adam" => Box::new(Adam::new(ps, 0.05)),
        "adam_amsgrad_l2" => {
            let mut o = Adam::new(ps, 0.05);
            (o.amsgrad, o.weight_decay) = (true, 0.1);
            Box::new(o)
        }
        "adamw_amsgrad" => {
            let mut o = Adam::adamw(ps, 0.05);
            (o.amsgrad, o.weight_decay) = (true, 0.1);
            Box::new(o)
        }
        "adam_maximize" => {
            let mut o = Adam::new(ps, 0.05);
            (o.maximize, o.betas) = (true, (0.8, 0.99));
            Box::new(o)
        }
        "adamax" => Box::new(Adamax::new(ps)),
        "adamax_l2" => {
            let mut o = Adamax::new(ps);
            (o.lr, o.betas, o.weight_decay) = (0.1, (0.8, 0.9), 0.1);
            Box::new(o)
        }
        "nadam" => Box::new(NAdam::new(ps)),
        "nadam_decoupled" => {
            let mut o = NAdam::new(ps);
            (o.lr, o.weight_decay, o.decoupled_weight_decay) = (0.05, 0.1, true);
            Box::new(o)
        }
        "nadam_l2" => {
            let mut o = NAdam::new(ps);
            (o.lr, o.weight_decay, o.momentum_decay) = (0.05, 0.1, 0.01);
            Box::new(o)
        }
        "radam" => {
            let mut o = RAdam::new(ps);
            o.lr = 0.05;
            Box::new(o)
        }
        "radam_fast" => {
            let mut o = RAdam::new(ps);
            (o.lr, o.betas, o.weight_decay) = (0.05, (0.9, 0.9), 0.1);
            Box::new(o)
        }
        "radam_decoupled" => {
            let mut o = RAdam::new(ps);
            (o.lr, o.weight_decay, o.decoupled_weight_decay) = (0.05, 0.1, true);
            Box::new(o)
        }
        "rmsprop" => Box::new(RmsProp::new(ps, 0.01)),
        "rmsprop_centered_momentum" => {
            let mut o = RmsProp::new(ps, 0.01);
            (o.centered, o.momentum, o.weight_decay) = (true, 0.9, 0.1);
            Box::new(o)
        }
        "rmsprop_alpha" => {
            let mut o = RmsProp::new(ps, 0.02);
            (o.alpha, o.eps, o.centered) = (0.9, 1e-6, true);
            Box::new(o)
        }
        "adagrad" => Box::new(Adagrad::new(ps, 0.1)),
        "adagrad_decay" => {
            let mut o = Adagrad::new(ps, 0.1);
            (o.lr_decay, o.weight_decay, o.initial_accumulator_value) = (0.1, 0.1, 0.5);
            Box::new(o)
        }
        "adadelta" => Box::new(Adadelta::new(ps)),
        "adadelta_maximize" => {
            let mut o = Adadelta::new(ps);
            (o.lr, o.rho, o.weight_decay, o.maximize) = (0.5, 0.8, 0.1, true);
            Box::new(o)
        }
        "rprop" => Box::new(Rprop::new(ps)),
        "rprop_maximize" => {
            let mut o = Rprop::new(ps);
            (o.lr, o.etas, o.step_sizes, o.maximize) = (0.05, (0.4, 1.5), (1e-3, 0.2), true);
            Box::new(o)
        }
        "asgd" => Box::new(Asgd::new(ps, 0.05)),
        "asgd_averaging" => Box::new(asgd_averaging(ps)),
        _ => panic!("no optimizer config {name}"),
    }
}

/// ASGD averaging from the fourth step.
fn asgd_averaging<T: FloatElement, D: Backend>(ps: Vec<Tensor<T, D>>) -> Asgd<T, D> {
    let mut o = Asgd::new(ps, 0.05);
    (o.lambd, o.alpha, o.t0, o.weight_decay) = (0.01, 0.5, 3.0, 0.1);
    o
}

const CONFIGS: [&str; 26] = [
    "sgd",
    "sgd_momentum",
    "sgd_nesterov_maximize",
    "adam",
    "adam_amsgrad_l2",
    "adamw_amsgrad",
    "adam_maximize",
    "adamax",
    "adamax_l2",
    "nadam",
    "nadam_decoupled",
    "nadam_l2",
    "radam",
    "radam_fast",
    "radam_decoupled",
    "rmsprop",
    "rmsprop_centered_momentum",
    "rmsprop_alpha",
    "adagrad",
    "adagrad_decay",
    "adadelta",
    "adadelta_maximize",
    "rprop",
    "rprop_maximize",
    "asgd",
    "asgd_averaging",
];

/// The two parameters at the fixture's start, on `dev`, requiring grad.
fn params<T: FloatElement, D: Backend>(
    a: &BTreeMap<String, DynTensor>,
    dev: &D,
) -> Vec<Tensor<T, D>> {
    let dims: [&[usize]; 2] = [&[2, 3], &[4]];
    (0..2)
        .map(|i| {
            let v = values(a, &format!("start{i}"))
                .iter()
                .map(|&x| T::from_f64(x))
                .collect();
            Tensor::from_vec_on(v, dims[i].to_vec(), dev)
                .unwrap()
                .with_requires_grad(true)
                .unwrap()
        })
        .collect()
}

/// `backward` of the fixture's loss at `ps`.
fn backward<T: FloatElement, D: Backend>(a: &BTreeMap<String, DynTensor>, ps: &[Tensor<T, D>]) {
    let mut total: Option<Tensor<T, D>> = None;
    for (i, p) in ps.iter().enumerate() {
        let c = |k: &str| {
            let v = values(a, &format!("{k}{i}"))
                .iter()
                .map(|&x| T::from_f64(x))
                .collect();
            Tensor::from_vec_on(v, p.dims().to_vec(), p.device_handle()).unwrap()
        };
        let term = c("q")
            .mul(p)
            .mul(p)
            .add(&c("r").mul(&p.sin()))
            .sum(&[], false);
        total = Some(match total {
            Some(t) => t.add(&term),
            None => term,
        });
    }
    total.unwrap().backward();
}

fn flat<T: FloatElement, D: Backend>(ps: &[Tensor<T, D>]) -> Vec<f64> {
    ps.iter()
        .flat_map(|p| p.to_device(&Cpu).unwrap().to_vec())
        .map(|x| x.to_f64())
        .collect()
}

/// Every configuration's 8 steps in `T` on `dev`; the failures.
fn trajectories<T: FloatElement, D: Backend>(dev: &D, rel: f64) -> Vec<String> {
    let a = fixture();
    let mut failures = Vec::new();
    for name in CONFIGS {
        let ps = params::<T, D>(&a, dev);
        let mut opt = config(name, ps.clone());
        let want = values(&a, name);
        for step in 0..8 {
            opt.zero_grad().unwrap();
            backward(&a, &ps);
            opt.step().unwrap();
            let got = flat(&ps);
            let w = &want[step * 10..step * 10 + 10];
            if let Some(i) = (0..10).find(|&i| (got[i] - w[i]).abs() > rel * w[i].abs().max(1.0)) {
                failures.push(format!(
                    "{name} ({:?}) step {}: element {i} is {}, PyTorch {}",
                    T::DTYPE,
                    step + 1,
                    got[i],
                    w[i]
                ));
                break;
            }
        }
    }
    failures
}

#[test]
fn optimizers_match_pytorch() {
    // f64; f32 end to end, and f16 parameters with f32 state: within a few roundings per step.
    // On CUDA, Adam and AdamW take the fused kernel (`Backend::adam_step`).
    on_every_device!("optimizers_match_pytorch", |dev| {
        let failures = trajectories::<f64, _>(&dev, 1e-10);
        assert!(failures.is_empty(), "{failures:#?}");
        let failures = trajectories::<f32, _>(&dev, 1e-4);
        assert!(failures.is_empty(), "{failures:#?}");
        let failures = trajectories::<f16, _>(&dev, 2e-2);
        assert!(failures.is_empty(), "{failures:#?}");
    });
}

/// ASGD's averages after the 8 steps, against PyTorch's `state["ax"]`.
#[test]
fn asgd_averages_match_pytorch() {
    on_every_device!("asgd_averages_match_pytorch", |dev| {
        let a = fixture();
        for name in ["asgd", "asgd_averaging"] {
            let ps = params::<f64, _>(&a, &dev);
            let mut opt = match name {
                "asgd" => Asgd::new(ps.clone(), 0.05),
                _ => asgd_averaging(ps.clone()),
            };
            assert!(opt.averages().iter().all(Option::is_none));
            for _ in 0..8 {
                opt.zero_grad().unwrap();
                backward(&a, &ps);
                opt.step().unwrap();
            }
            let got: Vec<f64> = opt
                .averages()
                .into_iter()
                .flat_map(|t| t.unwrap().to_device(&Cpu).unwrap().to_vec())
                .collect();
            assert_close(&got, &values(&a, &format!("{name}_ax")), 1e-10);
        }
    });
}

/// Every configuration: 3 steps, the state saved to a safetensors file and loaded into a new
/// optimizer over copies of the parameters; both then take the same 3 steps, bit for bit.
/// Refused states (unknown names, wrong shapes or dtypes, bad or missing counters) leave the
/// state as it was.
fn state_round_trips<T: FloatElement, D: Backend>(dev: &D) {
    let a = fixture();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("optim-state");
    std::fs::create_dir_all(&dir).unwrap();
    for name in CONFIGS {
        let ps = params::<T, D>(&a, dev);
        let mut opt = config(name, ps.clone());
        // Before the first step there is no buffer, only the counters.
        let fresh = opt.state_dict().unwrap();
        assert!(
            fresh.iter().all(|(k, _)| !k.contains('.')),
            "{name}: {fresh:?}"
        );
        let step = |opt: &mut Box<dyn Optimizer>, ps: &[Tensor<T, D>]| {
            opt.zero_grad().unwrap();
            backward(&a, ps);
            opt.step().unwrap();
        };
        for _ in 0..3 {
            step(&mut opt, &ps);
        }
        let path = dir.join(format!("{name}.safetensors"));
        let state = opt.state_dict().unwrap();
        // Plain SGD keeps nothing; every other configuration keeps buffers for both.
        let stateless = name == "sgd";
        assert_eq!(
            state.iter().any(|(k, _)| k.starts_with("1.")),
            !stateless,
            "{name}: {state:?}"
        );
        typed_tensor::io::save_safetensors(&path, state, None).unwrap();
        let loaded = typed_tensor::io::load_safetensors(&path).unwrap();
        let qs: Vec<Tensor<T, D>> = ps
            .iter()
            .map(|p| p.detach().deep_copy().with_requires_grad(true).unwrap())
            .collect();
        let mut other = config(name, qs.clone());
        // Refusals first: each leaves `other` as it was (fresh).
        let mut bad = |edit: &dyn Fn(&mut BTreeMap<String, DynTensor>), what: &str| {
            let mut m = loaded.clone();
            edit(&mut m);
            let e = other.load_state_dict(&m).unwrap_err().to_string();
            assert!(e.contains("load_state_dict"), "{name} {what}: {e}");
        };
        let any = DynTensor::from(Tensor::<f64>::scalar(0.0));
        bad(&|m| drop(m.insert("0.bogus".into(), any.clone())), "name");
        if stateless {
            other.load_state_dict(&loaded).unwrap();
            continue;
        }
        let first = loaded.keys().find(|k| k.contains('.')).unwrap().clone();
        let slot = first.split_once('.').unwrap().1;
        let out_of_range = format!("7.{slot}");
        bad(
            &|m| drop(m.insert(out_of_range.clone(), m[&first].clone())),
            "index",
        );
        let wrong_shape = DynTensor::from(Tensor::<f32>::zeros([5]).unwrap());
        bad(
            &|m| drop(m.insert(first.clone(), wrong_shape.clone())),
            "shape",
        );
        let wrong_dtype = DynTensor::from(Tensor::<i64>::zeros([2, 3]).unwrap());
        bad(
            &|m| drop(m.insert("0".to_string() + &first[1..], wrong_dtype.clone())),
            "dtype",
        );
        if loaded.contains_key("step") {
            bad(&|m| drop(m.remove("step")), "missing step");
            let half = DynTensor::from(Tensor::<f64>::scalar(1.5));
            bad(
                &|m| drop(m.insert("step".into(), half.clone())),
                "fractional step",
            );
        }
        assert!(
            other
                .state_dict()
                .unwrap()
                .iter()
                .all(|(k, _)| !k.contains('.')),
            "{name}: a refused state changed the optimizer"
        );
        other.load_state_dict(&loaded).unwrap();
        for _ in 0..3 {
            step(&mut opt, &ps);
            step(&mut other, &qs);
        }
        assert_eq!(flat(&ps), flat(&qs), "{name} ({})", T::DTYPE);
    }
}

#[test]
fn optimizer_state_saves_and_loads() {
    on_every_device!("optimizer_state_saves_and_loads", |dev| {
        state_round_trips::<f64, _>(&dev);
        state_round_trips::<f16, _>(&dev); // f32 state beside f16 parameters
    });
}

#[test]
fn gradient_clipping_matches_pytorch() {
    let a = fixture();
    on_every_device!("gradient_clipping_matches_pytorch", |dev| {
        for (name, max, ord) in [
            ("clip_norm2", 1.0, 2.0),
            ("clip_norm_inf", 0.5, f64::INFINITY),
            ("clip_norm1_large", 100.0, 1.0),
        ] {
            let ps = params::<f64, _>(&a, &dev);
            backward(&a, &ps);
            let total = clip_grad_norm_(&ps, max, ord).unwrap();
            assert_close(
                &total.to_device(&Cpu).unwrap().to_vec(),
                &values(&a, &format!("{name}_total")),
                1e-12,
            );
            let grads: Vec<_> = ps.iter().map(|p| p.grad_tensor().unwrap()).collect();
            assert_close(&flat(&grads), &values(&a, name), 1e-12);
        }
        let ps = params::<f64, _>(&a, &dev);
        backward(&a, &ps);
        clip_grad_value_(&ps, 0.5).unwrap();
        let grads: Vec<_> = ps.iter().map(|p| p.grad_tensor().unwrap()).collect();
        assert_close(&flat(&grads), &values(&a, "clip_value"), 1e-12);
    });
    // Refused arguments name the op and leave the gradients alone.
    let ps = params::<f64, _>(&a, &Cpu);
    backward(&a, &ps);
    let before = flat(&[ps[0].grad_tensor().unwrap()]);
    for (max, ord) in [(f64::NAN, 2.0), (-1.0, 2.0), (1.0, f64::NAN)] {
        let e = clip_grad_norm_(&ps, max, ord).unwrap_err().to_string();
        assert!(e.contains("clip_grad_norm_"), "{e}");
    }
    assert!(clip_grad_value_(&ps, -0.5).is_err());
    assert!(clip_grad_value_(&ps, f64::NAN).is_err());
    let none: [Tensor<f64>; 0] = [];
    assert!(clip_grad_norm_(&none, 1.0, 2.0).is_err());
    let plain = Tensor::<f64>::zeros([2]).unwrap();
    assert!(
        clip_grad_norm_(&[plain.clone()], 1.0, 2.0)
            .unwrap_err()
            .to_string()
            .contains("with_requires_grad")
    );
    assert!(clip_grad_value_(&[plain], 1.0).is_err());
    assert_eq!(flat(&[ps[0].grad_tensor().unwrap()]), before);
    // A non-finite total scales as PyTorch's does: an infinite gradient becomes NaN.
    let p = Tensor::<f64>::from_vec(vec![1.0, 2.0], [2])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    p.mul_scalar(f64::INFINITY).sum(&[], false).backward();
    let total = clip_grad_norm_(&[p.clone()], 1.0, 2.0).unwrap();
    assert_eq!(total.item(), f64::INFINITY);
    assert!(p.grad_tensor().unwrap().to_vec().iter().all(|g| g.is_nan()));
}

fn leaf_param() -> Tensor<f64> {
    Tensor::<f64>::zeros([1])
        .unwrap()
        .with_requires_grad(true)
        .unwrap()
}

#[test]
fn schedules_match_pytorch() {
    let a = fixture();
    let schedules: Vec<(&str, Box<dyn LrSchedule>)> = vec![
        (
            "lr_step",
            Box::new(StepDecay {
                base: 0.5,
                step_size: 3,
                gamma: 0.1,
            }),
        ),
        (
            "lr_multistep",
            Box::new(MultiStepDecay {
                base: 0.5,
                milestones: vec![5, 2, 5],
                gamma: 0.5,
            }),
        ),
        (
            "lr_exponential",
            Box::new(ExponentialDecay {
                base: 0.5,
                gamma: 0.9,
            }),
        ),
        (
            "lr_linear",
            Box::new(LinearRamp {
                base: 0.5,
                start: 0.25,
                end: 1.0,
                total: 4,
            }),
        ),
        (
            "lr_linear_down",
            Box::new(LinearRamp {
                base: 0.5,
                start: 1.0,
                end: 0.1,
                total: 6,
            }),
        ),
        (
            "lr_cosine",
            Box::new(CosineAnnealing {
                base: 0.5,
                min: 0.01,
                t_max: 11,
            }),
        ),
        (
            "lr_polynomial",
            Box::new(PolynomialDecay {
                base: 0.5,
                total: 8,
                power: 2.0,
            }),
        ),
        (
            "lr_constant",
            Box::new(ConstantFactor {
                base: 0.5,
                factor: 0.25,
                total: 3,
            }),
        ),
        (
            "lr_lambda",
            Box::new(LambdaSchedule {
                base: 0.5,
                f: |e: usize| 1.0 / (1.0 + e as f64),
            }),
        ),
    ];
    for (name, s) in schedules {
        let got: Vec<f64> = (0..12).map(|e| s.lr_at(e)).collect();
        assert_close(&got, &values(&a, name), 1e-12);
    }
    let per_step: Vec<(&str, usize, Box<dyn LrSchedule>)> = vec![
        ("lr_onecycle", 20, Box::new(OneCycle::new(0.5, 20))),
        (
            "lr_onecycle3",
            20,
            Box::new(OneCycle {
                anneal: Anneal::Linear,
                three_phase: true,
                pct_start: 0.25,
                ..OneCycle::new(0.5, 20)
            }),
        ),
        (
            "lr_cyclic2",
            20,
            Box::new(Cyclic {
                base_lr: 0.1,
                max_lr: 0.5,
                step_size_up: 3,
                step_size_down: Some(2),
                mode: CyclicMode::Triangular2,
            }),
        ),
        (
            "lr_cyclic_exp",
            20,
            Box::new(Cyclic {
                base_lr: 0.1,
                max_lr: 0.5,
                step_size_up: 4,
                step_size_down: None,
                mode: CyclicMode::ExpRange { gamma: 0.9 },
            }),
        ),
        (
            "lr_cyclic",
            20,
            Box::new(Cyclic {
                base_lr: 0.05,
                max_lr: 0.5,
                step_size_up: 2,
                step_size_down: Some(5),
                mode: CyclicMode::Triangular,
            }),
        ),
        (
            "lr_restarts",
            20,
            Box::new(CosineWarmRestarts {
                base: 0.5,
                min: 0.01,
                t_0: 3,
                t_mult: 2,
            }),
        ),
        (
            "lr_restarts1",
            12,
            Box::new(CosineWarmRestarts {
                base: 0.5,
                min: 0.0,
                t_0: 4,
                t_mult: 1,
            }),
        ),
        (
            "lr_sequential",
            12,
            Box::new(Sequential {
                schedules: vec![
                    Box::new(LinearRamp {
                        base: 0.5,
                        start: 0.1,
                        end: 1.0,
                        total: 3,
                    }),
                    Box::new(ExponentialDecay {
                        base: 0.5,
                        gamma: 0.8,
                    }),
                ],
                milestones: vec![3],
            }),
        ),
    ];
    for (name, n, s) in per_step {
        let got: Vec<f64> = (0..n).map(|e| s.lr_at(e)).collect();
        assert_close(&got, &values(&a, name), 1e-12);
    }
    // One past the cycle holds its last rate.
    let c = OneCycle::new(0.5, 20);
    assert_eq!(c.lr_at(25), c.lr_at(19));
    // ReduceOnPlateau against PyTorch's ReduceLROnPlateau on one metric sequence.
    let metrics = values(&a, "plateau_metrics");
    let mut mx = ReduceOnPlateau::new();
    (
        mx.maximize,
        mx.patience,
        mx.threshold,
        mx.threshold_abs,
        mx.cooldown,
        mx.min_lr,
    ) = (true, 1, 0.5, true, 2, 0.05);
    let mut min = ReduceOnPlateau::new();
    (min.patience, min.factor) = (2, 0.5);
    for (name, mut plateau) in [
        ("plateau_min", min),
        ("plateau_max_abs_cooldown", mx),
        ("plateau_default", ReduceOnPlateau::default()),
    ] {
        let mut opt = Sgd::new(vec![leaf_param()], 0.5);
        let got: Vec<f64> = metrics.iter().map(|&m| plateau.step(m, &mut opt)).collect();
        assert_close(&got, &values(&a, name), 1e-12);
    }
    // `LinearRamp` with no epochs is the end factor from epoch 1.
    let r = LinearRamp {
        base: 1.0,
        start: 0.5,
        end: 1.0,
        total: 0,
    };
    assert_eq!([r.lr_at(0), r.lr_at(1), r.lr_at(9)], [0.5, 1.0, 1.0]);
}

#[test]
fn optimizers_refuse_bad_hyperparameters() {
    let a = fixture();
    let ps = params::<f64, _>(&a, &Cpu);
    backward(&a, &ps);
    let before = flat(&ps);
    let mut bad: Vec<(&str, Box<dyn Optimizer>)> = Vec::new();
    let mut sgd = Sgd::new(ps.clone(), 0.1);
    sgd.nesterov = true; // without momentum
    bad.push(("Nesterov", Box::new(sgd)));
    bad.push(("lr", Box::new(Sgd::new(ps.clone(), f64::NAN))));
    let mut adam = Adam::new(ps.clone(), 0.1);
    adam.betas = (0.9, 1.0);
    bad.push(("betas.1", Box::new(adam)));
    let mut adamax = Adamax::new(ps.clone());
    adamax.eps = -1.0;
    bad.push(("eps", Box::new(adamax)));
    let mut nadam = NAdam::new(ps.clone());
    nadam.momentum_decay = -0.1;
    bad.push(("momentum_decay", Box::new(nadam)));
    let mut radam = RAdam::new(ps.clone());
    radam.weight_decay = f64::NAN;
    bad.push(("weight_decay", Box::new(radam)));
    let mut rms = RmsProp::new(ps.clone(), 0.1);
    rms.momentum = -0.5;
    bad.push(("momentum", Box::new(rms)));
    let mut adagrad = Adagrad::new(ps.clone(), 0.1);
    adagrad.lr_decay = -1.0;
    bad.push(("lr_decay", Box::new(adagrad)));
    let mut adadelta = Adadelta::new(ps.clone());
    adadelta.rho = 1.5;
    bad.push(("rho", Box::new(adadelta)));
    let mut rprop = Rprop::new(ps.clone());
    rprop.etas = (0.5, 0.9);
    bad.push(("etas", Box::new(rprop)));
    let mut asgd = Asgd::new(ps.clone(), 0.1);
    asgd.t0 = f64::NAN;
    bad.push(("t0", Box::new(asgd)));
    for (what, mut opt) in bad {
        let e = opt.step().unwrap_err().to_string();
        assert!(e.contains(what) && e.contains("step"), "{what}: {e}");
    }
    assert_eq!(flat(&ps), before);
}

/// Optimizers over `dims`, contiguous parameters (the device's fused `Backend::adam_step` or
/// `Backend::sgd_step`) beside a transposed view of the same values (the composed update): 5
/// steps of each configuration, the bits of every element compared after each. The values span the dtype's
/// range: zeros, tiny and huge gradients, and one NaN.
fn fused_is_the_composed_update<T: FloatElement>(dims: [usize; 2]) {
    let [r, c] = dims;
    let value = |i: usize| ((i * 7919) % 1009) as f64 / 97.0 - 5.0;
    let scale = |i: usize| match i % 11 {
        0 => 0.0,
        1 => 1e-6,
        2 => 3e3,
        3 if i == 3 => f64::NAN,
        _ => 1.0 + (i % 5) as f64,
    };
    let vals: Vec<T> = (0..r * c).map(|i| T::from_f64(value(i))).collect();
    let stored_t: Vec<T> = (0..r * c).map(|k| vals[(k % r) * c + k / r]).collect();
    let coef =
        Tensor::<T>::from_vec((0..r * c).map(|i| T::from_f64(scale(i))).collect(), dims).unwrap();
    let bits = |p: &Tensor<T>| -> Vec<u64> {
        let canon = |x: f64| if x.is_nan() { u64::MAX } else { x.to_bits() };
        p.to_vec().into_iter().map(|x| canon(x.to_f64())).collect()
    };
    type Make<T> = fn(Vec<Tensor<T>>) -> Box<dyn Optimizer>;
    let configs: [(&str, Make<T>); 12] = [
        ("adam", |ps| Box::new(Adam::new(ps, 0.01))),
        ("adamw", |ps| {
            let mut o = Adam::adamw(ps, 0.05);
            o.weight_decay = 0.1;
            Box::new(o)
        }),
        ("adamw_betas", |ps| {
            let mut o = Adam::adamw(ps, 0.3);
            (o.betas, o.eps, o.weight_decay) = ((0.5, 0.6), 1e-3, 0.7);
            Box::new(o)
        }),
        // Adam's L2 term, added to the gradient.
        ("adam_l2", |ps| {
            let mut o = Adam::new(ps, 0.02);
            o.weight_decay = 0.3;
            Box::new(o)
        }),
        ("adamw_amsgrad", |ps| {
            let mut o = Adam::adamw(ps, 0.05);
            (o.amsgrad, o.betas) = (true, (0.8, 0.5));
            Box::new(o)
        }),
        ("adam_l2_amsgrad_maximize", |ps| {
            let mut o = Adam::new(ps, 0.01);
            (o.weight_decay, o.amsgrad, o.maximize) = (0.2, true, true);
            Box::new(o)
        }),
        ("sgd", |ps| Box::new(Sgd::new(ps, 0.03))),
        ("sgd_momentum", |ps| {
            let mut o = Sgd::new(ps, 0.03);
            o.momentum = 0.9;
            Box::new(o)
        }),
        ("sgd_dampening", |ps| {
            let mut o = Sgd::new(ps, 0.02);
            (o.momentum, o.dampening) = (0.7, 0.3);
            Box::new(o)
        }),
        ("sgd_nesterov_l2", |ps| {
            let mut o = Sgd::new(ps, 0.01);
            (o.momentum, o.nesterov, o.weight_decay) = (0.8, true, 0.2);
            Box::new(o)
        }),
        ("sgd_maximize_l2", |ps| {
            let mut o = Sgd::new(ps, 0.01);
            (o.maximize, o.weight_decay) = (true, 0.4);
            Box::new(o)
        }),
        ("sgd_momentum_maximize", |ps| {
            let mut o = Sgd::new(ps, 0.05);
            (o.momentum, o.dampening, o.maximize) = (0.5, 0.1, true);
            Box::new(o)
        }),
    ];
    for (name, make) in configs {
        let fused = Tensor::<T>::from_vec(vals.clone(), dims)
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        let composed = Tensor::<T>::from_vec(stored_t.clone(), [c, r])
            .unwrap()
            .t()
            .with_requires_grad(true)
            .unwrap();
        assert!(!composed.is_contiguous());
        let mut opts = [make(vec![fused.clone()]), make(vec![composed.clone()])];
        for step in 1..=5 {
            for (o, p) in opts.iter_mut().zip([&fused, &composed]) {
                o.zero_grad().unwrap();
                coef.mul(p).mul(p).sum(&[], false).backward();
                o.step().unwrap();
            }
            assert_eq!(
                bits(&fused),
                bits(&composed),
                "{name} {:?} {dims:?} step {step}",
                T::DTYPE
            );
        }
    }
}

#[test]
fn fused_optimizer_steps_match_the_composed_update() {
    fused_is_the_composed_update::<f32>([7, 9]);
    fused_is_the_composed_update::<f64>([7, 9]);
    fused_is_the_composed_update::<f16>([7, 9]);
    fused_is_the_composed_update::<bf16>([7, 9]);
    // Above the thread pool's threshold: chunks on both threads.
    fused_is_the_composed_update::<f32>([384, 384]);
    // A live `data()` guard on the parameter: the fused step's try-lock fails, and the
    // composed update returns the guard's `Err` instead of waiting for itself.
    let p = Tensor::<f32>::ones([4])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    p.mul(&p).sum(&[], false).backward();
    let mut o = Adam::adamw(vec![p.clone()], 0.1);
    let guard = p.data().unwrap();
    let e = o.step().unwrap_err().to_string();
    assert!(e.contains("guard"), "{e}");
    assert_eq!(guard.to_vec(), [1.0; 4]);
    drop(guard);
    o.step().unwrap();
    assert!(p.to_vec().iter().all(|&x| x < 1.0), "{p}");
}

/// L-BFGS against PyTorch 2.15's trajectories (`make/lbfgs.py`): the Rosenbrock function
/// with a fixed step and with the strong-Wolfe line search over three `step_with` calls (the
/// history carried between them), a least-squares fit of two parameters with a short history;
/// the state round trip; the refusals.
#[test]
fn lbfgs_follows_pytorch() {
    use typed_tensor::optim::{Lbfgs, Optimizer};
    on_every_device!("lbfgs", |dev| {
        let rosen = |xy: &Tensor<f64, _>| -> Result<Tensor<f64, _>> {
            let (x, y) = (xy.narrow(0, 0, 1)?, xy.narrow(0, 1, 1)?);
            let a = x.try_rsub_scalar(1.0)?.try_square()?;
            let b = y
                .try_sub(&x.try_square()?)?
                .try_square()?
                .try_mul_scalar(100.0)?;
            let l = a.try_add(&b)?.try_sum(&[], false)?;
            l.try_backward()?;
            Ok(l)
        };
        for (wolfe, want) in [(false, ROSEN_FIXED), (true, ROSEN_WOLFE)] {
            let xy = Tensor::<f64, _>::from_vec_on(vec![-1.5, 2.0], [2], &dev)
                .unwrap()
                .with_requires_grad(true)
                .unwrap();
            let mut opt = Lbfgs::new(vec![xy.clone()]);
            opt.lr = if wolfe { 1.0 } else { 0.5 };
            opt.max_iter = 5;
            opt.line_search = wolfe;
            let mut got = Vec::new();
            for _ in 0..3 {
                opt.step_with(|| rosen(&xy)).unwrap();
                got.extend(host_f64s(&xy));
                got.push(opt.func_evals() as f64);
            }
            assert_close(&got, want, 1e-9);
        }
        // Two parameters flattened in order; a history of 3; the loss returned is the first
        // evaluation's.
        let x = Tensor::<f64, _>::linspace_on(-1.0, 1.0, 15, &dev)
            .unwrap()
            .try_reshape([5, 3])
            .unwrap();
        let y = Tensor::<f64, _>::arange_on(0.0, 10.0, 1.0, &dev)
            .unwrap()
            .sin()
            .try_reshape([5, 2])
            .unwrap();
        let w = Tensor::<f64, _>::zeros_on([2, 3], &dev)
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        let b = Tensor::<f64, _>::from_vec_on(vec![0.5, -0.5], [2], &dev)
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        let mut opt = Lbfgs::new(vec![w.clone(), b.clone()]);
        opt.history_size = 3;
        opt.max_iter = 7;
        opt.line_search = true;
        let closure = || -> Result<Tensor<f64, _>> {
            let r = x.matmul(&w.t()).add(&b).sub(&y);
            let l = r
                .square()
                .mean(&[], false)
                .add(&w.square().square().sum(&[], false).mul_scalar(0.1));
            l.try_backward()?;
            Ok(l)
        };
        let losses: Vec<f64> = (0..2)
            .map(|_| host_f64s(&opt.step_with(closure).unwrap())[0])
            .collect();
        assert_close(&losses, LSQ_LOSSES, 1e-12);
        assert_close(&host_f64s(&w), LSQ_W, 1e-9);
        assert_close(&host_f64s(&b), LSQ_B, 1e-9);
        // The state round trip: a fresh optimizer resumes exactly where this one stands.
        let saved: std::collections::BTreeMap<_, _> =
            opt.state_dict().unwrap().into_iter().collect();
        assert!(saved.contains_key("0.old_dirs.2") && !saved.contains_key("0.old_dirs.3"));
        let (w2, b2) = (
            w.detach().with_requires_grad(true).unwrap(),
            b.detach().with_requires_grad(true).unwrap(),
        );
        let mut resumed = Lbfgs::new(vec![w2.clone(), b2.clone()]);
        (resumed.history_size, resumed.max_iter, resumed.line_search) = (3, 7, true);
        resumed.load_state_dict(&saved).unwrap();
        opt.step_with(closure).unwrap();
        resumed
            .step_with(|| {
                let r = x.matmul(&w2.t()).add(&b2).sub(&y);
                let l = r
                    .square()
                    .mean(&[], false)
                    .add(&w2.square().square().sum(&[], false).mul_scalar(0.1));
                l.try_backward()?;
                Ok(l)
            })
            .unwrap();
        assert_close(&host_f64s(&w2), &host_f64s(&w), 1e-12);
        // A NaN loss with a finite gradient (PyTorch's line search fails on it) stops quietly.
        let p = Tensor::<f64, _>::from_vec_on(vec![1.0, 2.0], [2], &dev)
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        let mut nan_opt = Lbfgs::new(vec![p.clone()]);
        nan_opt.line_search = true;
        nan_opt
            .step_with(|| {
                let l = p.square().sum(&[], false).add_scalar(f64::NAN);
                l.try_backward()?;
                Ok(l)
            })
            .unwrap();
        // Refusals: no closure, a bad entry, a parameter without grad, a negative lr.
        assert!(opt.step().unwrap_err().to_string().contains("closure"));
        let mut bad = saved.clone();
        bad.insert(
            "0.bogus".into(),
            DynTensor::from(Tensor::<f64>::scalar(1.0)),
        );
        assert!(
            resumed
                .load_state_dict(&bad)
                .unwrap_err()
                .to_string()
                .contains("0.bogus")
        );
        let mut bad = saved.clone();
        bad.insert(
            "0.d".into(),
            DynTensor::from(Tensor::<f64>::zeros([3]).unwrap()),
        );
        assert!(
            resumed
                .load_state_dict(&bad)
                .unwrap_err()
                .to_string()
                .contains("0.d")
        );
        let plain = Tensor::<f64, _>::zeros_on([2], &dev).unwrap();
        assert!(
            Lbfgs::new(vec![plain.clone()])
                .step_with(|| Ok(plain.sum(&[], false)))
                .is_err()
        );
        let mut neg = Lbfgs::new(vec![w.clone()]);
        neg.lr = -1.0;
        assert!(
            neg.step_with(closure)
                .unwrap_err()
                .to_string()
                .contains("lr")
        );
    });
}

const ROSEN_FIXED: &[f64] = &[
    -1.414175702180734,
    2.035398351306424,
    5.0,
    -1.422085045475557,
    2.028651494721588,
    10.0,
    -1.398936799985252,
    1.9394952295463708,
    15.0,
];
const ROSEN_WOLFE: &[f64] = &[
    -1.4190151739012853,
    2.015228881713949,
    6.0,
    -1.2050322831643026,
    1.3935585763354525,
    12.0,
    -0.741182959696463,
    0.512356777959665,
    18.0,
];
const LSQ_W: &[f64] = &[
    0.053133570210611394,
    0.06668713307699689,
    0.06413344777811218,
    -0.020220809304980415,
    -0.057712730856650477,
    -0.0017728230933535712,
];
const LSQ_B: &[f64] = &[0.17105094745750501, 0.21559426191393743];
const LSQ_LOSSES: &[f64] = &[0.7435805786615178, 0.4243825892239443];

/// Adafactor against PyTorch 2.15's trajectory (`make/adafactor.py`): a matrix (factored
/// moments), a vector and a 0-d parameter, weight decay, `d` changed between steps; the
/// factored state's shapes in the state round trip; the refusals.
#[test]
fn adafactor_follows_pytorch() {
    use typed_tensor::optim::{Adafactor, Optimizer};
    on_every_device!("adafactor", |dev| {
        let leaf = |v: Vec<f64>, s: &[usize]| {
            Tensor::<f64, _>::from_vec_on(v, s, &dev)
                .unwrap()
                .with_requires_grad(true)
                .unwrap()
        };
        let w = leaf(vec![0.5, -1.0, 2.0, 0.1, 0.0, -0.3], &[2, 3]);
        let b = leaf(vec![1.0, -2.0, 0.25], &[3]);
        let s = leaf(vec![1.5], &[]);
        let tgt = Tensor::<f64, _>::linspace_on(-1.0, 1.0, 6, &dev)
            .unwrap()
            .try_reshape([2, 3])
            .unwrap();
        let mut opt = Adafactor::new(vec![w.clone(), b.clone(), s.clone()]);
        (opt.lr, opt.weight_decay) = (0.05, 0.1);
        let loss = || {
            let a = w.mul(&s).sub(&tgt).square().sum(&[], false);
            let c = b.square().square().sum(&[], false);
            a.add(&c).add(&w.sum(&[0], false).mul(&b).sum(&[], false))
        };
        for i in 0..6 {
            if i == 4 {
                opt.d = 2.0;
            }
            opt.zero_grad().unwrap();
            loss().backward();
            opt.step().unwrap();
        }
        assert_close(&host_f64s(&w), AF_W, 1e-10);
        assert_close(&host_f64s(&b), AF_B, 1e-10);
        assert_close(&host_f64s(&s), AF_S, 1e-10);
        let state: BTreeMap<String, DynTensor> = opt.state_dict().unwrap().into_iter().collect();
        let row = state["0.row_var"].to_vec::<f64>().unwrap();
        assert_close(&row, AF_ROW, 1e-10);
        assert_eq!(state["0.col_var"].shape().dims(), &[1, 3]);
        assert_close(&state["0.col_var"].to_vec::<f64>().unwrap(), AF_COL, 1e-10);
        assert_close(
            &state["1.variance"].to_vec::<f64>().unwrap(),
            AF_VAR_B,
            1e-10,
        );
        let mut again = Adafactor::new(vec![w.clone(), b.clone(), s.clone()]);
        again.load_state_dict(&state).unwrap();
        assert_eq!(again.state_dict().unwrap().len(), state.len());
        let mut bad = state.clone();
        bad.insert("0.row_var".into(), state["0.col_var"].clone());
        assert!(
            again
                .load_state_dict(&bad)
                .unwrap_err()
                .to_string()
                .contains("(2, 1)")
        );
        // Refusals.
        opt.beta2_decay = 0.5;
        assert!(opt.step().unwrap_err().to_string().contains("beta2_decay"));
        opt.beta2_decay = -0.8;
        opt.lr = f64::NAN;
        assert!(opt.step().unwrap_err().to_string().contains("lr"));
    });
}

const AF_W: &[f64] = &[
    0.2338112800032888,
    -0.7813388133935917,
    1.7157986584530005,
    0.033106048609580066,
    0.34923543178071853,
    -0.06879317480443055,
];
const AF_B: &[f64] = &[
    0.6885424079979467,
    -1.6311580422138792,
    -0.09909511100204045,
];
const AF_S: &[f64] = &[1.1137369457922885];
const AF_ROW: &[f64] = &[26.953400120054575, 6.0564800264053975];
const AF_COL: &[f64] = &[11.137137619470279, 9.373456130355384, 29.004226469864292];
const AF_VAR_B: &[f64] = &[8.17994904869332, 605.1784746690176, 2.8217890866455138];

/// Weight averaging and the last schedules against PyTorch 2.15: `AveragedModel`'s running
/// mean and EMA (`get_ema_multi_avg_fn(0.9)`) over four updates, `SWALR` (cosine and linear)
/// and `MultiplicativeLR` rates; the refusals.
#[test]
fn weight_averaging_and_swalr_match_pytorch() {
    use typed_tensor::optim::{
        AveragedParams, Averaging, LrSchedule, MultiplicativeSchedule, SwaSchedule,
    };
    on_every_device!("swa", |dev| {
        let mut w = Tensor::<f64, _>::from_vec_on(vec![1.0, -2.0], [1, 2], &dev).unwrap();
        let mut b = Tensor::<f64, _>::from_vec_on(vec![0.5], [1], &dev).unwrap();
        let mut swa = AveragedParams::new(Averaging::Mean);
        let mut ema = AveragedParams::new(Averaging::Ema { decay: 0.9 });
        for k in 0..4 {
            w = w.mul_scalar(1.5).add_scalar(0.1 * k as f64);
            b = b.sub_scalar(0.3);
            swa.update(&[w.clone(), b.clone()]).unwrap();
            ema.update(&[w.clone(), b.clone()]).unwrap();
        }
        assert_eq!(swa.n_averaged(), 4);
        assert_close(
            &host_f64s(&swa.averaged()[0]),
            &[3.3656250000000005, -5.775],
            1e-14,
        );
        assert_close(
            &host_f64s(&swa.averaged()[1]),
            &[-0.24999999999999997],
            1e-14,
        );
        assert_close(
            &host_f64s(&ema.averaged()[0]),
            &[2.2078499999999996, -4.0494],
            1e-14,
        );
        assert_close(
            &host_f64s(&ema.averaged()[1]),
            &[0.031700000000000055],
            1e-12,
        );
        assert!(
            swa.update(&[w.clone()])
                .unwrap_err()
                .to_string()
                .contains("2")
        );
        assert!(swa.update(&[b.clone(), w.clone()]).is_err());
        let mut bad = AveragedParams::<f64, _>::new(Averaging::Ema { decay: 1.5 });
        assert!(
            bad.update(&[w.clone()])
                .unwrap_err()
                .to_string()
                .contains("decay")
        );
    });
    let rates = |s: &dyn LrSchedule, n: usize| (0..n).map(|e| s.lr_at(e)).collect::<Vec<_>>();
    let cos = SwaSchedule {
        base: 0.5,
        swa_lr: 0.05,
        anneal_epochs: 3,
        cosine: true,
    };
    assert_close(
        &rates(&cos, 6),
        &[0.5, 0.3875, 0.16250000000000006, 0.05, 0.05, 0.05],
        1e-14,
    );
    let lin = SwaSchedule {
        base: 0.5,
        swa_lr: 0.05,
        anneal_epochs: 4,
        cosine: false,
    };
    assert_close(
        &rates(&lin, 6),
        &[0.5, 0.3875, 0.275, 0.1625, 0.05, 0.05],
        1e-14,
    );
    let now = SwaSchedule {
        base: 0.5,
        swa_lr: 0.05,
        anneal_epochs: 0,
        cosine: true,
    };
    assert_eq!(now.lr_at(0), 0.05);
    use typed_tensor::optim::{Chained, ExponentialDecay, LinearRamp, StepDecay};
    let chained = Chained {
        base: 1.0,
        factors: vec![
            Box::new(StepDecay {
                base: 1.0,
                step_size: 2,
                gamma: 0.5,
            }),
            Box::new(ExponentialDecay {
                base: 1.0,
                gamma: 0.9,
            }),
            Box::new(LinearRamp {
                base: 1.0,
                start: 0.25,
                end: 1.0,
                total: 3,
            }),
        ],
    };
    let want = [
        0.25,
        0.45,
        0.30375,
        0.36450000000000005,
        0.16402500000000003,
        0.14762250000000005,
        0.06643012500000002,
    ];
    assert_close(&rates(&chained, 7), &want, 1e-14);
    let mult = MultiplicativeSchedule {
        base: 0.5,
        f: |e: usize| if e % 2 == 1 { 0.9 } else { 0.5 },
    };
    assert_close(
        &rates(&mult, 5),
        &[0.5, 0.45, 0.225, 0.2025, 0.10125],
        1e-14,
    );
}

/// Every optimizer, `GradScaler::unscale_` and `DynOptimizer` skip a frozen parameter (one
/// set `requires_grad_(false)` after it required grad) and step it again once thawed.
#[test]
fn optimizers_skip_frozen_parameters() {
    type Make = fn(Vec<Tensor<f32, Cpu>>) -> Box<dyn Optimizer>;
    let makers: [(&str, Make); 12] = [
        ("sgd", |p| {
            let mut o = Sgd::new(p, 0.1);
            (o.momentum, o.weight_decay) = (0.9, 0.1);
            Box::new(o)
        }),
        ("adam", |p| Box::new(Adam::new(p, 0.1))),
        ("adamw", |p| Box::new(Adam::adamw(p, 0.1))),
        ("adamax", |p| Box::new(Adamax::new(p))),
        ("nadam", |p| Box::new(NAdam::new(p))),
        ("radam", |p| Box::new(RAdam::new(p))),
        ("rmsprop", |p| Box::new(RmsProp::new(p, 0.1))),
        ("adagrad", |p| Box::new(Adagrad::new(p, 0.1))),
        ("adadelta", |p| Box::new(Adadelta::new(p))),
        ("adafactor", |p| Box::new(Adafactor::new(p))),
        ("rprop", |p| Box::new(Rprop::new(p))),
        ("asgd", |p| Box::new(Asgd::new(p, 0.1))),
    ];
    for (name, make) in makers {
        let a = Tensor::<f32>::from_vec(vec![1.0, -2.0, 0.5, 3.0], [2, 2])
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        let b = Tensor::<f32>::from_vec(vec![0.5, 1.5, -1.0, 2.0], [2, 2])
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        let mut opt = make(vec![a.clone(), b.clone()]);
        let loss = || a.mul(&b).square().sum(&[], false);
        // A step while both train, so the state (momentum, averages) is not zero.
        loss().backward();
        opt.step().unwrap();
        a.clone().requires_grad_(false).unwrap();
        let (a0, b0) = (a.to_vec(), b.to_vec());
        for _ in 0..2 {
            opt.zero_grad().unwrap();
            loss().backward();
            opt.step().unwrap();
        }
        assert_eq!(a.to_vec(), a0, "{name} moved a frozen parameter");
        assert_ne!(b.to_vec(), b0, "{name}");
        a.clone().requires_grad_(true).unwrap();
        opt.zero_grad().unwrap();
        loss().backward();
        opt.step().unwrap();
        assert_ne!(a.to_vec(), a0, "{name} did not step a thawed parameter");
    }
    // The scaler skips a frozen parameter's stale (here infinite) gradient.
    let a = Tensor::<f32>::ones([2])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    let b = Tensor::<f32>::ones([2])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    a.grad_tensor().unwrap().fill_(f32::INFINITY).unwrap();
    a.clone().requires_grad_(false).unwrap();
    let mut scaler = GradScaler::new();
    let mut opt = Sgd::new(vec![a.clone(), b.clone()], 0.5);
    scaler.scale(&a.mul(&b).sum(&[], false)).unwrap().backward();
    assert!(scaler.step(&mut opt, &[a.clone(), b.clone()]).unwrap());
    assert_eq!((a.to_vec(), b.to_vec()), (vec![1.0; 2], vec![0.5; 2]));
    assert_eq!(a.grad_tensor().unwrap().to_vec(), [f32::INFINITY; 2]);
    // A DynOptimizer takes a frozen parameter and leaves it while frozen.
    let ps = [DynTensor::from(a.clone()), DynTensor::from(b.clone())];
    let mut dynopt = typed_tensor::dynamic::DynOptimizer::sgd(&ps, 0.5).unwrap();
    b.grad_tensor().unwrap().fill_(1.0).unwrap();
    dynopt.step().unwrap();
    assert_eq!((a.to_vec(), b.to_vec()), (vec![1.0; 2], vec![0.0; 2]));
}
