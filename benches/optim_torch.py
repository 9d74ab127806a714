"""PyTorch's AdamW step on the CPU beside `cargo bench -p typed-tensor-benches --bench autograd
-- adamw_step`: lr 1e-3, weight decay 0.01, f32 parameters with their gradient set, the
single-tensor update (`foreach=False`, PyTorch's CPU default), `fused=True`, the
single-tensor update with `amsgrad=True`, and `Adam` with L2 weight decay 1e-4 (single-tensor
and fused). Prints the
median of 51 steps after 5 warm-up steps, in microseconds."""
import statistics
import time

import torch

torch.manual_seed(0)
for name, shape in [("64x128", (64, 128)), ("1024x1024", (1024, 1024))]:
    for kind in ["single-tensor", "fused", "amsgrad", "adam_l2", "adam_l2-fused"]:
        p = torch.randn(shape, requires_grad=True)
        (p * p).sum().backward()
        cls = torch.optim.Adam if kind.startswith("adam_l2") else torch.optim.AdamW
        wd = 1e-4 if kind.startswith("adam_l2") else 0.01
        opt = cls([p], lr=1e-3, weight_decay=wd, foreach=False,
                  fused=kind.endswith("fused"), amsgrad=kind == "amsgrad")
        times = []
        for i in range(56):
            t = time.perf_counter()
            opt.step()
            if i >= 5:
                times.append(time.perf_counter() - t)
        print(f"adamw_step/{kind}/{name}: {statistics.median(times) * 1e6:.1f} us")
