# PyTorch 2.15's tanhshrink, softshrink, hardshrink, threshold, rrelu (eval), local_response_norm,
# lp_pool1d/2d, adaptive_avg/max_pool1d, channel_shuffle, bilinear, multilabel_margin_loss and
# conv_transpose1d:
# values and gradients (of sum(y * w) for a random w), for tests/all/nn_seq.rs. Writes
# tests/data/torch_grads/functional.npz. Run: python functional.py OUT.
import sys
import numpy as np
import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
g = torch.Generator().manual_seed(11)
out = {}

def case(name, f, *inputs):
    xs = [t.clone().requires_grad_(t.is_floating_point()) for t in inputs]
    y = f(*xs)
    w = torch.randn(tuple(y.shape), generator=g)
    (y * w).sum().backward()
    out[f"{name}_y"] = y.detach().numpy()
    out[f"{name}_w"] = w.numpy()
    for i, x in enumerate(xs):
        out[f"{name}_x{i}"] = x.detach().numpy()
        if x.is_floating_point():
            out[f"{name}_g{i}"] = x.grad.numpy()

# Kinks on purpose: exactly ±0.5 and ±1.2, the threshold 0.1, and 0.
kinks = torch.tensor([-2.0, -1.2, -0.5, -0.3, 0.0, 0.1, 0.3, 0.5, 1.2, 2.5, 0.7, -0.9])
x = torch.cat([kinks, torch.randn(12, generator=g) * 2]).reshape(4, 6)
case("tanhshrink", F.tanhshrink, x)
case("softshrink", lambda t: F.softshrink(t, 0.5), x)
case("softshrink12", lambda t: F.softshrink(t, 1.2), x)
case("hardshrink", lambda t: F.hardshrink(t, 0.5), x)
case("threshold", lambda t: F.threshold(t, 0.1, 20.0), x)
case("rrelu", lambda t: F.rrelu(t, 0.1, 0.3, training=False), x)
# Values at NaN and the infinities.
s = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.5, -0.5, 0.0])
out["special_x"] = s.numpy()
for name, f in [("tanhshrink", F.tanhshrink), ("softshrink", lambda t: F.softshrink(t, 0.5)),
                ("hardshrink", lambda t: F.hardshrink(t, 0.5)),
                ("threshold", lambda t: F.threshold(t, 0.1, 20.0))]:
    out[f"special_{name}"] = f(s).numpy()

case("lrn3", lambda t: F.local_response_norm(t, 3, 1e-2, 0.75, 1.0), torch.randn(2, 5, 4, generator=g))
case("lrn4", lambda t: F.local_response_norm(t, 2, 0.5, 0.6, 2.0), torch.randn(2, 6, 3, 3, generator=g))
case("lp2", lambda t: F.lp_pool2d(t, 2, (2, 2), (2, 1)), torch.randn(2, 3, 6, 5, generator=g))
case("lp3", lambda t: F.lp_pool2d(t, 3, (3, 2), (1, 2)), torch.randn(1, 2, 5, 6, generator=g).abs() + 0.1)
case("lp1", lambda t: F.lp_pool1d(t, 2, 3, 2), torch.randn(2, 3, 7, generator=g))
case("aap1", lambda t: F.adaptive_avg_pool1d(t, 3), torch.randn(2, 3, 7, generator=g))
case("amp1", lambda t: F.adaptive_max_pool1d(t, 4), torch.randn(2, 3, 7, generator=g))
case("shuffle", lambda t: F.channel_shuffle(t, 3), torch.randn(2, 6, 2, 2, generator=g))
case("bilinear", F.bilinear, torch.randn(2, 3, 4, generator=g), torch.randn(2, 3, 5, generator=g),
     torch.randn(6, 4, 5, generator=g), torch.randn(6, generator=g))
y = torch.tensor([[3, 0, -1, 1, 2], [1, 2, 4, 0, 3], [-1, 2, 3, 4, 0], [2, 2, -1, 0, 0]])
xm = torch.randn(4, 5, generator=g)
case("mlm_none", lambda t, c: F.multilabel_margin_loss(t, c, reduction="none"), xm, y)
case("mlm_mean", lambda t, c: F.multilabel_margin_loss(t, c), xm, y)
case("mlm_1d", lambda t, c: F.multilabel_margin_loss(t, c, reduction="sum"), xm[0], y[0])
case("ct1", lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2, padding=1, output_padding=1,
                                                groups=2, dilation=2),
     torch.randn(2, 4, 5, generator=g), torch.randn(4, 3, 3, generator=g), torch.randn(6, generator=g))
case("ct1_plain", lambda x, w: F.conv_transpose1d(x, w), torch.randn(1, 2, 4, generator=g),
     torch.randn(2, 3, 2, generator=g))
np.savez(sys.argv[1], **out)
