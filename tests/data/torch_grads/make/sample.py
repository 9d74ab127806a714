# PyTorch 2.15's affine_grid and grid_sample (2-d), values and gradients, for
# tests/all/nn_seq.rs: writes tests/data/torch_grads/sample.npz. Run: python sample.py OUT
# Case NAME (mode_padding_align) samples `x` at `grid` (points up to 1.4 outside [-1, 1]).
import sys
import numpy as np
import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
g = torch.Generator().manual_seed(21)
out = {}
x = torch.randn(2, 3, 5, 4, generator=g)
grid = torch.rand(2, 6, 7, 2, generator=g) * 2.8 - 1.4
out["x"], out["grid"] = x.numpy(), grid.numpy()
for mode in ["bilinear", "nearest"]:
    for pad in ["zeros", "border", "reflection"]:
        for align in [False, True]:
            name = f"{mode}_{pad}_{int(align)}"
            xi, gi = x.clone().requires_grad_(True), grid.clone().requires_grad_(True)
            y = F.grid_sample(xi, gi, mode=mode, padding_mode=pad, align_corners=align)
            w = torch.randn(*y.shape, generator=g)
            (y * w).sum().backward()
            out[f"{name}_y"], out[f"{name}_w"], out[f"{name}_gx"] = y.detach().numpy(), w.numpy(), xi.grad.numpy()
            out[f"{name}_gg"] = gi.grad.numpy()
theta = torch.randn(2, 2, 3, generator=g)
out["theta"] = theta.numpy()
for align in [False, True]:
    t = theta.clone().requires_grad_(True)
    gr = F.affine_grid(t, [2, 3, 4, 5], align_corners=align)
    w = torch.randn(*gr.shape, generator=g)
    (gr * w).sum().backward()
    out[f"affine{int(align)}_y"], out[f"affine{int(align)}_w"], out[f"affine{int(align)}_g"] = gr.detach().numpy(), w.numpy(), t.grad.numpy()
np.savez(sys.argv[1], **out)
