# The reference trajectory of tests/all/optim.rs's Adafactor test (PyTorch 2.15): a (2, 3)
# weight, a (3,) bias and a 0-d scale, 4 steps of a fixed quadratic-plus-quartic loss with
# weight decay 0.1 and lr 0.05, then 2 more with maximize off and d = 2. Prints the constants.
import torch
torch.set_default_dtype(torch.float64)
def out(name, t):
    print(f"const {name}: &[f64] = &{[float(v) for v in t.detach().reshape(-1).tolist()]!r};")
W = torch.tensor([[0.5, -1.0, 2.0], [0.1, 0.0, -0.3]], requires_grad=True)
b = torch.tensor([1.0, -2.0, 0.25], requires_grad=True)
s = torch.tensor(1.5, requires_grad=True)
opt = torch.optim.Adafactor([W, b, s], lr=0.05, weight_decay=0.1)
tgt = torch.linspace(-1, 1, 6).reshape(2, 3)
def loss():
    return ((W * s - tgt) ** 2).sum() + (b ** 4).sum() + (W.sum(0) * b).sum()
for i in range(6):
    if i == 4:
        opt.param_groups[0]["d"] = 2.0
    opt.zero_grad(); loss().backward(); opt.step()
out("AF_W", W); out("AF_B", b); out("AF_S", s)
st = opt.state[W]
out("AF_ROW", st["row_var"]); out("AF_COL", st["col_var"]); out("AF_VAR_B", opt.state[b]["variance"])
