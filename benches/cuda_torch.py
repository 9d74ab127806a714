"""PyTorch doing the work of `examples/cuda_bench.rs`, timed the same way (median of 7
batches; a batch queues `reps` calls, then synchronizes). Run on the same GPU machine:

    python3 benches/cuda_torch.py
"""
import time

import torch


def bench(reps, f):
    f()
    torch.cuda.synchronize()
    samples = []
    for _ in range(7):
        t = time.perf_counter()
        for _ in range(reps):
            f()
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - t) / reps)
    return sorted(samples)[3]


def report(name, secs, nbytes=0.0, flops=0.0):
    if flops:
        rate = f"{flops / secs / 1e12:8.1f} TFLOP/s"
    else:
        rate = f"{nbytes / secs / 1e9:8.1f} GB/s"
    print(f"{name:<28} {secs * 1e6:10.1f} us {rate}", flush=True)


def main():
    dev = torch.device("cuda")
    print("device:", torch.cuda.get_device_name(0), "torch", torch.__version__)
    n = 1 << 26
    torch.manual_seed(0)
    x = torch.rand(n, device=dev)
    y = torch.rand(n, device=dev)
    xb = x.to(torch.bfloat16)

    report("copy f32 2^26", bench(20, lambda: x.clone()), 8.0 * n)
    report("add f32 2^26", bench(20, lambda: x + y), 12.0 * n)
    report("add bf16 2^26", bench(20, lambda: xb + xb), 6.0 * n)
    report("sum f32 2^26", bench(20, lambda: x.sum()), 4.0 * n)
    report("sin f32 2^26", bench(20, lambda: x.sin()), 8.0 * n)
    report("sin bf16 2^26", bench(20, lambda: xb.sin()), 4.0 * n)

    report("rand f32 2^26", bench(20, lambda: torch.rand(n, device=dev)), 4.0 * n)

    m = x.view(8192, 8192)
    report("sum f32 8192x8192 axis 1", bench(20, lambda: m.sum(1)), 4.0 * n)
    report("sum f32 8192x8192 axis 0", bench(20, lambda: m.sum(0)), 4.0 * n)
    report("transpose copy f32 8192^2", bench(20, lambda: m.t().contiguous()), 8.0 * n)

    bins, m24 = 1 << 16, 1 << 24
    idx = torch.arange(m24, device=dev) * 40503 % bins
    src = x[:m24]
    zeros = torch.zeros(bins, device=dev)
    report("scatter_add f32 2^24", bench(20, lambda: zeros.scatter_add(0, idx, src)), 16.0 * m24)
    lines = x.view(1 << 16, 1024)[:4096]
    report("argsort f32 4096x1024",
           bench(20, lambda: torch.argsort(lines, dim=1, stable=True)), 12.0 * 4096 * 1024)

    flops = 2.0 * 8192**3
    a = torch.randn(8192, 8192, device=dev)
    b = torch.randn(8192, 8192, device=dev)
    # PyTorch's default: no TF32 for f32 matmul, as cuBLAS here.
    torch.backends.cuda.matmul.allow_tf32 = False
    report("matmul f32 8192^3", bench(3, lambda: a @ b), flops=flops)
    ab, bb = a.to(torch.bfloat16), b.to(torch.bfloat16)
    report("matmul bf16 8192^3", bench(10, lambda: ab @ bb), flops=flops)
    real_use(dev)


def real_use(dev):
    """Rows that reflect real use (issue 27), as `real_use` in examples/cuda_bench.rs."""
    rows = torch.randn(8192, 4096, device=dev)
    nbytes = 8.0 * 8192 * 4096
    report("softmax f32 8192x4096", bench(20, lambda: torch.softmax(rows, -1)), nbytes)
    gamma = torch.randn(4096, device=dev)
    beta = torch.randn(4096, device=dev)
    ln = lambda: torch.nn.functional.layer_norm(rows, (4096,), gamma, beta, 1e-5)
    report("layer_norm f32 8192x4096", bench(20, ln), nbytes)

    p = torch.randn(64, 512, 512, device=dev).to(torch.bfloat16)
    q = torch.randn(64, 512, 512, device=dev).to(torch.bfloat16)
    report("bmm bf16 64x512^3", bench(20, lambda: p @ q), flops=2.0 * 64 * 512**3)

    batch, dims = 2048, [1024, 4096, 4096, 10]
    torch.manual_seed(0)
    params = []
    for i, o in zip(dims, dims[1:]):
        params.append((torch.randn(o, i, device=dev) / i**0.5).requires_grad_())
        params.append(torch.zeros(o, device=dev, requires_grad=True))
    x = torch.randn(batch, dims[0], device=dev)
    y = torch.arange(batch, device=dev) * 7 % 10
    opt = torch.optim.AdamW(params, lr=1e-3, weight_decay=0.01)

    def step():
        h = x
        for k in range(0, len(params), 2):
            h = torch.nn.functional.linear(h, params[k], params[k + 1])
            if k + 2 < len(params):
                h = torch.relu(h)
        loss = torch.nn.functional.cross_entropy(h, y)
        opt.zero_grad()
        loss.backward()
        opt.step()

    macs = sum(i * o for i, o in zip(dims, dims[1:]))
    report("mlp step f32 2048x1024..10", bench(10, step), flops=6.0 * batch * macs)


if __name__ == "__main__":
    main()
