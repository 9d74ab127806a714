# PyTorch 2.15's max_pool2d(return_indices=True), max_unpool2d and adaptive_max_pool2d, values,
# indices and gradients, for tests/all/nn_seq.rs: writes tests/data/torch_grads/pool.npz.
# Run: python pool.py OUT. Integer-valued inputs make ties, which go to the first maximum.
import sys
import numpy as np
import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
g = torch.Generator().manual_seed(3)
out = {}

def grad_of(x, y):
    w = torch.randn(*y.shape, generator=g)
    x.grad = None
    (y * w).sum().backward()
    return w.numpy(), x.grad.numpy()

for i, (shape, k, s, p, ints) in enumerate([((2, 3, 7, 6), (3, 2), (2, 2), (1, 1), False),
                                             ((1, 2, 6, 6), (2, 2), (2, 2), (0, 0), True),
                                             ((2, 1, 5, 7), (3, 3), (1, 2), (1, 0), True)]):
    x = (torch.randint(-3, 4, shape, generator=g).double() if ints else torch.randn(*shape, generator=g))
    x.requires_grad_(True)
    y, idx = F.max_pool2d(x, k, s, p, return_indices=True)
    w, gx = grad_of(x, y)
    out.update({f"mp{i}_x": x.detach().numpy(), f"mp{i}_y": y.detach().numpy(), f"mp{i}_i": idx.numpy(),
                f"mp{i}_w": w, f"mp{i}_g": gx})
    v = y.detach().clone().requires_grad_(True)
    u = F.max_unpool2d(v, idx, k, s, p, output_size=shape[2:])
    w, gv = grad_of(v, u)
    out.update({f"up{i}_y": u.detach().numpy(), f"up{i}_w": w, f"up{i}_g": gv})

for i, (shape, o, ints) in enumerate([((2, 3, 7, 5), (3, 2), False), ((1, 2, 7, 5), (4, 4), True),
                                       ((2, 2, 3, 4), (1, 1), False), ((1, 1, 4, 4), (6, 5), True)]):
    x = (torch.randint(-2, 3, shape, generator=g).double() if ints else torch.randn(*shape, generator=g))
    x.requires_grad_(True)
    y = F.adaptive_max_pool2d(x, o)
    w, gx = grad_of(x, y)
    out.update({f"am{i}_x": x.detach().numpy(), f"am{i}_y": y.detach().numpy(), f"am{i}_w": w, f"am{i}_g": gx})
np.savez(sys.argv[1], **out)
