# PyTorch 2.15's conv3d, max_pool3d and avg_pool3d, values and gradients, for
# tests/all/nn_seq.rs: writes tests/data/torch_grads/volume.npz. Run: python volume.py OUT
import sys
import numpy as np
import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
g = torch.Generator().manual_seed(9)
out = {}

def record(name, inputs, fn):
    leaves = {k: v.clone().requires_grad_(True) for k, v in inputs.items()}
    y = fn(leaves)
    w = torch.randn(*y.shape, generator=g)
    (y * w).sum().backward()
    out[f"{name}_out0"], out[f"{name}_w0"] = y.detach().numpy(), w.numpy()
    for k, v in leaves.items():
        out[f"{name}_{k}"], out[f"{name}_g{k}"] = inputs[k].numpy(), v.grad.numpy()

# Keep the settings in step with tests/all/nn_seq.rs.
r = lambda *s: torch.randn(*s, generator=g)
record("c0", {"x": r(2, 3, 5, 6, 4), "w": r(4, 3, 2, 3, 2), "b": r(4)},
       lambda a: F.conv3d(a["x"], a["w"], a["b"]))
record("c1", {"x": r(1, 4, 6, 5, 5), "w": r(6, 2, 3, 2, 3)},
       lambda a: F.conv3d(a["x"], a["w"], stride=(2, 1, 2), padding=(1, 1, 0), dilation=(1, 2, 1), groups=2))
record("mp", {"x": torch.randint(-3, 4, (2, 2, 5, 6, 5), generator=g).double()},
       lambda a: F.max_pool3d(a["x"], (3, 2, 3), (2, 2, 1), (1, 1, 1)))
record("ap", {"x": r(1, 3, 4, 6, 5)}, lambda a: F.avg_pool3d(a["x"], (2, 3, 2), (2, 1, 2), (1, 1, 0)))
np.savez(sys.argv[1], **out)
