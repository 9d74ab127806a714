# The reference trajectories of tests/all/optim.rs's L-BFGS test (PyTorch 2.15): the
# Rosenbrock function from (-1.5, 2) with a fixed step and with the strong-Wolfe line search
# (three step(closure) calls of max_iter 5 each: the parameters and func_evals after each),
# and a least-squares fit of a (2, 3) weight and a (2,) bias (history_size 3, strong Wolfe).
# python3 lbfgs.py prints the Rust constants.
import torch
torch.set_default_dtype(torch.float64)
def out(name, v):
    print(f"const {name}: &[f64] = &{[float(x) for x in v]!r};")
def rosen(xy):
    return (1 - xy[0]) ** 2 + 100 * (xy[1] - xy[0] ** 2) ** 2
for ls, tag in [(None, "FIXED"), ("strong_wolfe", "WOLFE")]:
    xy = torch.tensor([-1.5, 2.0], requires_grad=True)
    opt = torch.optim.LBFGS([xy], lr=0.5 if ls is None else 1.0, max_iter=5, line_search_fn=ls)
    traj = []
    for _ in range(3):
        def closure():
            opt.zero_grad(); l = rosen(xy); l.backward(); return l
        opt.step(closure)
        traj += xy.detach().tolist() + [float(opt.state[xy]["func_evals"])]
    out(f"ROSEN_{tag}", traj)
X = torch.linspace(-1, 1, 15).reshape(5, 3); Y = torch.sin(torch.arange(10.0)).reshape(5, 2)
W = torch.zeros(2, 3, requires_grad=True); b = torch.tensor([0.5, -0.5], requires_grad=True)
opt = torch.optim.LBFGS([W, b], history_size=3, max_iter=7, line_search_fn="strong_wolfe")
def closure():
    opt.zero_grad(); l = ((X @ W.T + b - Y) ** 2).mean() + 0.1 * (W ** 4).sum(); l.backward(); return l
losses = [float(opt.step(closure).detach()) for _ in range(2)]
out("LSQ_W", W.detach().reshape(-1).tolist()); out("LSQ_B", b.detach().tolist()); out("LSQ_LOSSES", losses)
