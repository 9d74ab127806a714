"""PyTorch's twin of `transformer_block` in benches/autograd.rs: one pre-norm transformer
block on a (16, 64, 128) batch, 4 heads, causal, forward and backward, f32 on the CPU with
2 threads; prints the median of 50 steps after 10 warm-up steps.
Run: python3 benches/transformer_torch.py (needs torch)."""
import time
import torch
import torch.nn.functional as F

torch.set_num_threads(2)
torch.manual_seed(0)
b, l, e, h = 16, 64, 128, 4
x = torch.randn(b, l, e)
p = lambda *d: (torch.randn(*d) * 0.05).requires_grad_()
wqkv, wo, w1, w2 = p(3 * e, e), p(e, e), p(4 * e, e), p(e, 4 * e)
g1, g2 = p(e), p(e)


def step():
    hn = F.layer_norm(x, (e,), g1, None, 1e-5)
    qkv = F.linear(hn, wqkv).reshape(b, l, 3, h, e // h).permute(2, 0, 3, 1, 4)
    a = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], is_causal=True)
    x1 = x + F.linear(a.permute(0, 2, 1, 3).reshape(b, l, e), wo)
    m = F.linear(F.gelu(F.linear(F.layer_norm(x1, (e,), g2, None, 1e-5), w1)), w2)
    (x1 + m).square().mean().backward()
    for w in (wqkv, wo, w1, w2, g1, g2):
        w.grad = None


for _ in range(10):
    step()
times = []
for _ in range(50):
    t = time.perf_counter()
    step()
    times.append((time.perf_counter() - t) * 1e3)
print(f"transformer_block forward_backward/16x64x128: median {sorted(times)[25]:.2f} ms (torch {torch.__version__})")
