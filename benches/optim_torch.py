"""PyTorch's AdamW step on the CPU beside `cargo bench -p typed-tensor-benches --bench autograd
-- adamw_step`: lr 1e-3, weight decay 0.01, f32 parameters with their gradient set, the
single-tensor update (`foreach=False`, PyTorch's CPU default), `fused=True`, the
single-tensor update with `amsgrad=True`, and `Adam` with L2 weight decay 1e-4 (single-tensor
and fused); then `SGD` with momentum 0.9 (lr 1e-3, single-tensor). Prints the median of 51
steps after 5 warm-up steps, in microseconds."""
import statistics
import time

import torch



def median_step_us(opt):
    """The median time of 51 steps after 5 warm-up steps, in microseconds."""
    times = []
    for i in range(56):
        t = time.perf_counter()
        opt.step()
        if i >= 5:
            times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e6


torch.manual_seed(0)
for name, shape in [("64x128", (64, 128)), ("1024x1024", (1024, 1024))]:
    for kind in ["single-tensor", "fused", "amsgrad", "adam_l2", "adam_l2-fused"]:
        p = torch.randn(shape, requires_grad=True)
        (p * p).sum().backward()
        cls = torch.optim.Adam if kind.startswith("adam_l2") else torch.optim.AdamW
        wd = 1e-4 if kind.startswith("adam_l2") else 0.01
        opt = cls([p], lr=1e-3, weight_decay=wd, foreach=False,
                  fused=kind.endswith("fused"), amsgrad=kind == "amsgrad")
        print(f"adamw_step/{kind}/{name}: {median_step_us(opt):.1f} us")
    p = torch.randn(shape, requires_grad=True)
    (p * p).sum().backward()
    opt = torch.optim.SGD([p], lr=1e-3, momentum=0.9, foreach=False)
    print(f"sgd_step/momentum/{name}: {median_step_us(opt):.1f} us")
