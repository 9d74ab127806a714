# PyTorch 2.15's embedding_bag, values and gradients, for tests/all/nn_seq.rs: writes
# tests/data/torch_grads/bags.npz. Run: python bags.py OUT
import sys
import numpy as np
import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
g = torch.Generator().manual_seed(5)
out = {}
weight = torch.randn(10, 4, generator=g)
out["weight"] = weight.numpy()
flat = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0, 0])
offsets = torch.tensor([0, 2, 2, 5])
rows = torch.tensor([[1, 2, 4], [4, 3, 9]])
psw = torch.randn(10, generator=g)
out.update({"flat": flat.numpy(), "offsets": offsets.numpy(), "rows": rows.numpy(), "psw": psw.numpy()})
# Keep the cases in step with tests/all/nn_seq.rs.
cases = [
    ("sum_offsets", dict(input=flat, offsets=offsets, mode="sum")),
    ("mean_offsets", dict(input=flat, offsets=offsets, mode="mean")),
    ("max_offsets", dict(input=flat, offsets=offsets, mode="max")),
    ("sum_rows", dict(input=rows, mode="sum")),
    ("mean_rows_pad", dict(input=rows, mode="mean", padding_idx=4)),
    ("max_last_pad", dict(input=flat, offsets=torch.tensor([0, 3, 3, 7, 10]), mode="max", include_last_offset=True, padding_idx=2)),
    ("sum_psw", dict(input=flat, offsets=offsets, mode="sum", per_sample_weights=True)),
]
for name, kw in cases:
    w = weight.clone().requires_grad_(True)
    p = psw.clone().requires_grad_(True)
    if kw.pop("per_sample_weights", False):
        kw["per_sample_weights"] = p
    y = F.embedding_bag(weight=w, **kw)
    r = torch.randn(*y.shape, generator=g)
    (y * r).sum().backward()
    out[f"{name}_y"], out[f"{name}_r"], out[f"{name}_gw"] = y.detach().numpy(), r.numpy(), w.grad.numpy()
    if p.grad is not None:
        out[f"{name}_gp"] = p.grad.numpy()
np.savez(sys.argv[1], **out)
