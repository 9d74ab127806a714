//! `ParamGroups` (PyTorch's `param_groups`) against PyTorch 2.15: AdamW with two groups of
//! different hyperparameters and a third added mid-run, under `StepLR`; the state dict round
//! trip and its refusals; the learning-rate rules; `GradScaler` over groups.

use crate::common::{assert_close, host_f64s};
use std::collections::BTreeMap;
use typed_tensor::optim::{
    Adam, GradScaler, LrSchedule, Optimizer, ParamGroups, ReduceOnPlateau, Sgd, StepDecay,
};
use typed_tensor::prelude::*;

type Params<D> = [Tensor<f64, D>; 3];

fn params<D: Backend>(dev: &D) -> Params<D> {
    let t = |v: Vec<f64>| {
        let n = v.len();
        (Tensor::<f64, D>::from_vec_on(v, [n], dev).unwrap())
            .with_requires_grad(true)
            .unwrap()
    };
    [
        t(vec![0.5, -1.5, 2.0]),
        t(vec![0.3, -0.2]),
        t(vec![1.0, 2.0]),
    ]
}

/// PyTorch's `AdamW([{"params": [w]}, {"params": [b], "lr": 0.02, "weight_decay": 0,
/// "betas": (0.8, 0.9)}], lr=0.1, weight_decay=0.01)`.
fn two_groups<D: Backend>([w, b, _]: &Params<D>) -> ParamGroups {
    let mut g1 = Adam::adamw(vec![b.clone()], 0.02);
    g1.weight_decay = 0.0;
    g1.betas = (0.8, 0.9);
    ParamGroups::new(vec![
        Box::new(Adam::adamw(vec![w.clone()], 0.1)),
        Box::new(g1),
    ])
    .unwrap()
}

/// The third group PyTorch's run adds before iteration 3: `{"params": [v], "lr": 0.05,
/// "weight_decay": 0}`.
fn third_group<D: Backend>(v: &Tensor<f64, D>) -> Box<dyn Optimizer> {
    let mut g2 = Adam::adamw(vec![v.clone()], 0.05);
    g2.weight_decay = 0.0;
    Box::new(g2)
}

/// Iteration `i` of the run: `Σ w²(1 + i/10) + Σ sin(b) w[:2]`, plus `Σ v³/3` from
/// iteration 3, backward, step, then `StepLR(step_size=2, gamma=0.5)`.
fn iteration<D: Backend>(opt: &mut ParamGroups, [w, b, v]: &Params<D>, i: usize) {
    opt.zero_grad().unwrap();
    let sq = w
        .try_mul(w)
        .unwrap()
        .try_mul_scalar(1.0 + 0.1 * i as f64)
        .unwrap();
    let head = w.narrow(0, 0, 2).unwrap();
    let cross = b.try_sin().unwrap().try_mul(&head).unwrap();
    let mut loss = sq
        .try_sum(&[], false)
        .unwrap()
        .try_add(&cross.try_sum(&[], false).unwrap())
        .unwrap();
    if i >= 3 {
        let cube = v
            .try_mul(v)
            .unwrap()
            .try_mul(v)
            .unwrap()
            .try_sum(&[], false)
            .unwrap();
        loss = loss.try_add(&cube.try_div_scalar(3.0).unwrap()).unwrap();
    }
    loss.try_backward().unwrap();
    opt.step().unwrap();
    let schedule = StepDecay {
        base: 0.1,
        step_size: 2,
        gamma: 0.5,
    };
    schedule.apply(opt, i + 1);
}

#[test]
fn param_groups_follow_pytorch() {
    on_every_device!("param_groups", |dev| {
        let ps = params(&dev);
        let mut opt = two_groups(&ps);
        let want_lrs = [
            vec![0.1, 0.02],
            vec![0.05, 0.01],
            vec![0.05, 0.01],
            vec![0.025, 0.005, 0.025],
            vec![0.025, 0.005, 0.025],
            vec![0.0125, 0.0025, 0.0125],
        ];
        for (i, want) in want_lrs.iter().enumerate() {
            if i == 3 {
                opt.add_param_group(third_group(&ps[2]));
            }
            iteration(&mut opt, &ps, i);
            assert_close(&opt.lrs(), want, 1e-15);
        }
        assert_eq!(opt.num_groups(), 3);
        assert_eq!(opt.base_lrs(), [0.1, 0.02, 0.1]); // the added group's rate before decay
        let want = [
            &[0.1535481555084573, -1.1447790978952928, 1.6426410346502955][..],
            &[0.23241068984087754, -0.1303956554322706],
            &[0.900287656730373, 1.9001198479191086],
        ];
        for (p, w) in ps.iter().zip(want) {
            assert_close(&host_f64s(p), w, 1e-12);
        }
        let state: BTreeMap<String, DynTensor> = opt.state_dict().unwrap().into_iter().collect();
        let host = |k: &str| state[k].to_cpu().unwrap().to_vec::<f64>().unwrap();
        assert_eq!(host("0.step"), [6.0]);
        assert_eq!(host("2.step"), [3.0]);
        let avg = [0.24780590360234447, 1.0368032792800737];
        assert_close(&host("2.0.exp_avg"), &avg, 1e-12);
        let sq = [0.04042717436873346, 0.7549705761116415];
        assert_close(&host("1.0.exp_avg_sq"), &sq, 1e-12);
    });
}

/// A run resumed from a checkpoint of the groups' state continues exactly as the original;
/// a bad entry anywhere leaves every group's state as it was.
#[test]
fn param_groups_state_round_trip_and_refusals() {
    on_every_device!("param_groups_state", |dev| {
        let ps = params(&dev);
        let mut opt = two_groups(&ps);
        opt.add_param_group(third_group(&ps[2]));
        for i in 0..3 {
            iteration(&mut opt, &ps, i + 3);
        }
        let saved = opt.state_dict().unwrap();
        let values: Vec<Vec<f64>> = ps.iter().map(host_f64s).collect();
        // The copy: fresh groups over copies of the parameters, the state loaded.
        let copies: Params<_> = std::array::from_fn(|k| {
            (ps[k].detach().try_deep_copy().unwrap())
                .with_requires_grad(true)
                .unwrap()
        });
        let mut resumed = two_groups(&copies);
        resumed.add_param_group(third_group(&copies[2]));
        resumed.set_lr(opt.lr());
        resumed
            .load_state_dict(&saved.iter().cloned().collect())
            .unwrap();
        iteration(&mut opt, &ps, 6);
        iteration(&mut resumed, &copies, 6);
        for (p, q) in ps.iter().zip(&copies) {
            assert_eq!(host_f64s(p), host_f64s(q));
        }
        assert_ne!(host_f64s(&ps[0]), values[0]);

        // Refusals: no group number, a group past the last, a bad buffer in group 2.
        let before = resumed.state_dict().unwrap();
        let render = |s: &[(String, DynTensor)]| {
            (s.iter())
                .map(|(k, t)| (k.clone(), t.to_cpu().unwrap().to_vec::<f64>().unwrap()))
                .collect::<Vec<_>>()
        };
        let mut bad: BTreeMap<String, DynTensor> = saved.iter().cloned().collect();
        bad.insert("step".into(), bad["0.step"].clone());
        let e = resumed.load_state_dict(&bad).unwrap_err().to_string();
        assert!(
            e.contains("\"step\"") && e.contains("group number below 3"),
            "{e}"
        );
        bad.remove("step");
        bad.insert("3.step".into(), bad["0.step"].clone());
        assert!(resumed.load_state_dict(&bad).is_err());
        bad.remove("3.step");
        let wrong = DynTensor::from(Tensor::<f64, Cpu>::zeros([5]).unwrap());
        bad.insert("2.0.exp_avg".into(), wrong);
        // Group 0's entries differ from the current state, so a partial load would show.
        bad.insert(
            "0.step".into(),
            DynTensor::from(Tensor::<f64, Cpu>::scalar(99.0)),
        );
        let e = resumed.load_state_dict(&bad).unwrap_err().to_string();
        assert!(
            e.contains("group 2 refused") && e.contains("\"0.exp_avg\""),
            "{e}"
        );
        assert_eq!(render(&resumed.state_dict().unwrap()), render(&before));
    });
}

/// The learning-rate rules: the reference group, groups at 0, all at 0, `ReduceOnPlateau`,
/// and a group's own rate through `group_mut`.
#[test]
fn param_groups_learning_rates() {
    let ps = params(&Cpu);
    let group = |p: &Tensor<f64, Cpu>, lr: f64| -> Box<dyn Optimizer> {
        Box::new(Sgd::new(vec![p.clone()], lr))
    };
    assert!(
        ParamGroups::new(vec![])
            .unwrap_err()
            .to_string()
            .contains("no groups")
    );

    let mut opt = ParamGroups::new(vec![
        group(&ps[0], 0.0),
        group(&ps[1], 0.2),
        group(&ps[2], 0.5),
    ])
    .unwrap();
    assert_eq!(opt.lr(), 0.2); // group 1 is the reference: group 0's base is 0
    opt.set_lr(0.1);
    assert_eq!(opt.lrs(), vec![0.0, 0.1, 0.25]);
    let mut plateau = ReduceOnPlateau::new();
    plateau.patience = 0;
    plateau.step(1.0, &mut opt);
    plateau.step(2.0, &mut opt); // no improvement: every rate times 0.1
    assert_close(&opt.lrs(), &[0.0, 0.01, 0.025], 1e-15);
    opt.group_mut(2).unwrap().set_lr(0.7);
    assert_eq!(opt.group(2).unwrap().lr(), 0.7);
    assert!(opt.group(3).is_none() && opt.group_mut(3).is_none());
    opt.set_lr(0.2); // a schedule overrides a group's own rate, as PyTorch's
    assert_eq!(opt.lrs(), vec![0.0, 0.2, 0.5]);

    let mut zeros = ParamGroups::new(vec![group(&ps[0], 0.0), group(&ps[1], 0.0)]).unwrap();
    zeros.set_lr(0.3);
    assert_eq!(zeros.lrs(), vec![0.3, 0.3]);
    assert!(format!("{zeros:?}").contains("base_lrs"));
}

/// `GradScaler` over groups skips every group's step on an overflow and steps them all
/// otherwise.
#[test]
fn param_groups_under_grad_scaler() {
    on_every_device!("param_groups_scaler", |dev| {
        let ps = params(&dev);
        let mut opt = ParamGroups::new(vec![
            Box::new(Sgd::new(vec![ps[0].clone()], 0.5)),
            Box::new(Sgd::new(vec![ps[1].clone(), ps[2].clone()], 0.25)),
        ])
        .unwrap();
        let mut scaler = GradScaler::new();
        let all = ps.to_vec();
        for overflow in [true, false] {
            opt.zero_grad().unwrap();
            let mut loss = Tensor::<f64, _>::zeros_on([], &dev).unwrap();
            for p in &ps {
                loss = loss
                    .try_add(&p.try_mul(p).unwrap().try_sum(&[], false).unwrap())
                    .unwrap();
            }
            if overflow {
                loss = loss.try_mul_scalar(f64::INFINITY).unwrap();
            }
            let before: Vec<Vec<f64>> = ps.iter().map(host_f64s).collect();
            scaler.scale(&loss).unwrap().try_backward().unwrap();
            assert_eq!(scaler.step(&mut opt, &all).unwrap(), !overflow);
            scaler.update().unwrap();
            for (k, (p, b)) in ps.iter().zip(&before).enumerate() {
                let lr = if k == 0 { 0.5 } else { 0.25 };
                let want: Vec<f64> = b
                    .iter()
                    .map(|x| if overflow { *x } else { x - lr * 2.0 * x })
                    .collect();
                assert_close(&host_f64s(p), &want, 1e-15);
            }
        }
    });
}
