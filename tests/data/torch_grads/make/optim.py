# PyTorch 2.15's optimizers, gradient clipping and learning-rate schedules on a fixed problem,
# for tests/all/optim.rs: writes tests/data/torch_grads/optim.npz. Run: python optim.py OUT.npz
# Two float64 parameters, p0 (2, 3) and p1 (4,), loss = sum(q·p·p + r·sin(p)) over both;
# each optimizer config takes 8 steps from the same start, and `NAME` holds the 8 states of
# both parameters flattened (8, 10).
import sys
import numpy as np
import torch
from torch import optim

torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(7)
start = [rng.uniform(-2, 2, (2, 3)), rng.uniform(-2, 2, (4,))]
q = [rng.uniform(0.1, 1.5, (2, 3)), rng.uniform(0.1, 1.5, (4,))]
r = [rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, (4,))]
out = {f"start{i}": start[i] for i in range(2)}
out.update({f"q{i}": q[i] for i in range(2)})
out.update({f"r{i}": r[i] for i in range(2)})

def params():
    return [torch.tensor(s, requires_grad=True) for s in start]

def loss(ps):
    return sum((torch.tensor(q[i]) * p * p + torch.tensor(r[i]) * torch.sin(p)).sum()
               for i, p in enumerate(ps))

# Keep the names and settings in step with `config` in tests/all/optim.rs.
configs = {
    "sgd": lambda ps: optim.SGD(ps, lr=0.1),
    "sgd_momentum": lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.05),
    "sgd_nesterov_maximize": lambda ps: optim.SGD(ps, lr=0.05, momentum=0.8, nesterov=True, maximize=True),
    "adam": lambda ps: optim.Adam(ps, lr=0.05),
    "adam_amsgrad_l2": lambda ps: optim.Adam(ps, lr=0.05, amsgrad=True, weight_decay=0.1),
    "adamw_amsgrad": lambda ps: optim.AdamW(ps, lr=0.05, weight_decay=0.1, amsgrad=True),
    "adam_maximize": lambda ps: optim.Adam(ps, lr=0.05, maximize=True, betas=(0.8, 0.99)),
    "adamax": lambda ps: optim.Adamax(ps),
    "adamax_l2": lambda ps: optim.Adamax(ps, lr=0.1, betas=(0.8, 0.9), weight_decay=0.1),
    "nadam": lambda ps: optim.NAdam(ps),
    "nadam_decoupled": lambda ps: optim.NAdam(ps, lr=0.05, weight_decay=0.1, decoupled_weight_decay=True),
    "nadam_l2": lambda ps: optim.NAdam(ps, lr=0.05, weight_decay=0.1, momentum_decay=0.01),
    "radam": lambda ps: optim.RAdam(ps, lr=0.05),
    "radam_fast": lambda ps: optim.RAdam(ps, lr=0.05, betas=(0.9, 0.9), weight_decay=0.1),
    "radam_decoupled": lambda ps: optim.RAdam(ps, lr=0.05, weight_decay=0.1, decoupled_weight_decay=True),
    "rmsprop": lambda ps: optim.RMSprop(ps, lr=0.01),
    "rmsprop_centered_momentum": lambda ps: optim.RMSprop(ps, lr=0.01, centered=True, momentum=0.9, weight_decay=0.1),
    "rmsprop_alpha": lambda ps: optim.RMSprop(ps, lr=0.02, alpha=0.9, eps=1e-6, centered=True),
    "adagrad": lambda ps: optim.Adagrad(ps, lr=0.1),
    "adagrad_decay": lambda ps: optim.Adagrad(ps, lr=0.1, lr_decay=0.1, weight_decay=0.1, initial_accumulator_value=0.5),
    "adadelta": lambda ps: optim.Adadelta(ps),
    "adadelta_maximize": lambda ps: optim.Adadelta(ps, lr=0.5, rho=0.8, weight_decay=0.1, maximize=True),
    "rprop": lambda ps: optim.Rprop(ps),
    "rprop_maximize": lambda ps: optim.Rprop(ps, lr=0.05, etas=(0.4, 1.5), step_sizes=(1e-3, 0.2), maximize=True),
    "asgd": lambda ps: optim.ASGD(ps, lr=0.05),
    "asgd_averaging": lambda ps: optim.ASGD(ps, lr=0.05, lambd=0.01, alpha=0.5, t0=3, weight_decay=0.1),
}
for name, make in configs.items():
    ps = params()
    opt = make(ps)
    states = []
    for _ in range(8):
        opt.zero_grad()
        loss(ps).backward()
        opt.step()
        states.append(np.concatenate([p.detach().numpy().ravel() for p in ps]))
    out[name] = np.stack(states)
    if name.startswith("asgd"):
        out[name + "_ax"] = np.concatenate([opt.state[p]["ax"].numpy().ravel() for p in ps])

# Clipping the gradients at the start.
for name, clip in {
    "clip_norm2": lambda ps: torch.nn.utils.clip_grad_norm_(ps, 1.0, 2.0),
    "clip_norm_inf": lambda ps: torch.nn.utils.clip_grad_norm_(ps, 0.5, float("inf")),
    "clip_norm1_large": lambda ps: torch.nn.utils.clip_grad_norm_(ps, 100.0, 1.0),
    "clip_value": lambda ps: torch.nn.utils.clip_grad_value_(ps, 0.5),
}.items():
    ps = params()
    loss(ps).backward()
    total = clip(ps)
    out[name] = np.concatenate([p.grad.numpy().ravel() for p in ps])
    if total is not None:
        out[name + "_total"] = total.numpy()

# Learning-rate schedules over 12 epochs from a base rate of 0.5.
for name, make in {
    "lr_step": lambda o: optim.lr_scheduler.StepLR(o, step_size=3, gamma=0.1),
    "lr_multistep": lambda o: optim.lr_scheduler.MultiStepLR(o, milestones=[5, 2, 5], gamma=0.5),
    "lr_exponential": lambda o: optim.lr_scheduler.ExponentialLR(o, gamma=0.9),
    "lr_linear": lambda o: optim.lr_scheduler.LinearLR(o, start_factor=0.25, end_factor=1.0, total_iters=4),
    "lr_linear_down": lambda o: optim.lr_scheduler.LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=6),
    "lr_cosine": lambda o: optim.lr_scheduler.CosineAnnealingLR(o, T_max=11, eta_min=0.01),
    "lr_polynomial": lambda o: optim.lr_scheduler.PolynomialLR(o, total_iters=8, power=2.0),
    "lr_constant": lambda o: optim.lr_scheduler.ConstantLR(o, factor=0.25, total_iters=3),
    "lr_lambda": lambda o: optim.lr_scheduler.LambdaLR(o, lambda e: 1.0 / (1.0 + e)),
}.items():
    o = optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.5)
    s = make(o)
    lrs = []
    for _ in range(12):
        lrs.append(o.param_groups[0]["lr"])
        o.step()
        s.step()
    out[name] = np.array(lrs)

# The schedules stepped per step/epoch, from 12 to 20 of them.
for name, n, make in [
    ("lr_onecycle", 20, lambda o: optim.lr_scheduler.OneCycleLR(o, max_lr=0.5, total_steps=20, cycle_momentum=False)),
    ("lr_onecycle3", 20, lambda o: optim.lr_scheduler.OneCycleLR(o, max_lr=0.5, total_steps=20, cycle_momentum=False,
                                                                  anneal_strategy="linear", three_phase=True, pct_start=0.25)),
    ("lr_cyclic2", 20, lambda o: optim.lr_scheduler.CyclicLR(o, base_lr=0.1, max_lr=0.5, step_size_up=3, step_size_down=2,
                                                              mode="triangular2", cycle_momentum=False)),
    ("lr_cyclic_exp", 20, lambda o: optim.lr_scheduler.CyclicLR(o, base_lr=0.1, max_lr=0.5, step_size_up=4,
                                                                 mode="exp_range", gamma=0.9, cycle_momentum=False)),
    ("lr_cyclic", 20, lambda o: optim.lr_scheduler.CyclicLR(o, base_lr=0.05, max_lr=0.5, step_size_up=2, step_size_down=5,
                                                             cycle_momentum=False)),
    ("lr_restarts", 20, lambda o: optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01)),
    ("lr_restarts1", 12, lambda o: optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=4, eta_min=0.0)),
    ("lr_sequential", 12, lambda o: optim.lr_scheduler.SequentialLR(o, [
        optim.lr_scheduler.LinearLR(o, start_factor=0.1, end_factor=1.0, total_iters=3),
        optim.lr_scheduler.ExponentialLR(o, gamma=0.8)], milestones=[3])),
]:
    o = optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.5)
    s = make(o)
    lrs = []
    for _ in range(n):
        lrs.append(o.param_groups[0]["lr"])
        o.step()
        s.step()
    out[name] = np.array(lrs)

# ReduceLROnPlateau on a metric that improves, stalls, worsens and turns NaN.
metrics = [5.0, 4.0, 4.0, 3.9999, 4.1, 4.2, 3.0, 3.0, 3.0, 3.0, float("nan"), 3.0, 2.0, 2.5, 2.5, 2.5]
for name, kw in [("plateau_min", dict(patience=2, factor=0.5)),
                 ("plateau_max_abs_cooldown", dict(mode="max", patience=1, threshold=0.5, threshold_mode="abs", cooldown=2, min_lr=0.05)),
                 ("plateau_default", dict())]:
    o = optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.5)
    s = optim.lr_scheduler.ReduceLROnPlateau(o, **kw)
    lrs = []
    for m in metrics:
        o.step()
        s.step(m)
        lrs.append(o.param_groups[0]["lr"])
    out[name] = np.array(lrs)
out["plateau_metrics"] = np.array(metrics)

np.savez(sys.argv[1], **out)
