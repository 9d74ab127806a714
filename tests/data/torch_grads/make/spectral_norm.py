# The reference values of tests/all/nn_extras.rs's spectral_norm test (PyTorch 2.15):
# parametrizations.spectral_norm of a (3, 2, 2) conv-like weight along dim 1 (PyTorch's
# default for ConvTranspose; here chosen explicitly) with fixed u, v, two power iterations
# in training mode: the normalized weight, the new u and v, and the weight's gradient.
import torch
from torch.nn.utils.parametrizations import spectral_norm
torch.set_default_dtype(torch.float64)
def out(name, t):
    print(f"const {name}: &[f64] = &{[float(v) for v in t.detach().reshape(-1).tolist()]!r};")
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.linspace(-1.0, 2.0, 12).reshape(3, 2, 2) + torch.eye(2))
m = spectral_norm(M(), n_power_iterations=2, dim=1)
p = m.parametrizations.weight[0]
with torch.no_grad():
    p._u.copy_(torch.tensor([0.6, 0.8])); p._v.copy_(torch.nn.functional.normalize(torch.arange(1.0, 7.0), dim=0))
m.train()
w = m.weight
out("SN_W", w); out("SN_U", p._u); out("SN_V", p._v)
(w * torch.linspace(0.5, -0.5, 12).reshape(3, 2, 2)).sum().backward()
out("SN_G", m.parametrizations.weight.original.grad)
