# The reference values of tests/all/segment.rs (PyTorch 2.15): segment_reduce by lengths and
# offsets, every reduction, with and without `initial`, and its gradients for a positive
# upstream gradient (PyTorch divides only positive gradients among tied maxima).
# python3 segment.py prints the Rust constants.
import torch
torch.set_default_dtype(torch.float64)
T = torch.tensor
def out(name, t):
    v = [float(x) for x in t.detach().reshape(-1).tolist()]
    print(f"const {name}: &[f64] = &{v!r};".replace("inf", "f64::INFINITY").replace("nan", "f64::NAN"))
nan, inf = float("nan"), float("inf")
X = T([1.0, 3.0, 3.0, 2.0, 5.0, nan, 1.0, 4.0, 4.0, 4.0, 0.0, 2.0, 0.0, 0.0, 1.0, inf, -2.0, 0.5])
L = T([4, 0, 3, 3, 3, 3, 2]).long()
G = torch.linspace(0.5, 2.0, 7)
for r in ["sum", "mean", "max", "min", "prod"]:
    for init, tag in [(None, ""), (2.0, "_INIT")]:
        x = X.clone().requires_grad_()
        y = torch.segment_reduce(x, r, lengths=L, initial=init)
        (y * G).sum().backward()
        out(f"{r.upper()}{tag}", y); out(f"{r.upper()}{tag}_G", x.grad)
# axis 1 of a (2, 5, 3) batch by offsets that leave elements out, and its gradient
X3 = torch.linspace(-3.0, 4.0, 30).reshape(2, 5, 3).requires_grad_()
O = T([[1, 3, 3, 5], [0, 2, 4, 4]]).long()
y = torch.segment_reduce(X3, "prod", offsets=O, axis=1)
out("OFF_PROD", y)
(y * torch.linspace(1.0, 2.0, 18).reshape(2, 3, 3)).sum().backward(); out("OFF_PROD_G", X3.grad)
X3.grad = None
y = torch.segment_reduce(X3, "mean", offsets=O, axis=1)
out("OFF_MEAN", y)
(y * torch.linspace(1.0, 2.0, 18).reshape(2, 3, 3)).sum().backward(); out("OFF_MEAN_G", X3.grad)
