"""The main job's training epochs in PyTorch on the CPU, for BENCHMARKS.md beside
`cargo bench --bench digits`: the same data, shapes, batch (64), model, loss, AdamW and cosine
schedule as `examples/digits` (mlp 64-128-10, and the cnn with 16/32 channels), each epoch one
shuffled pass in mini-batches then the training accuracy. Medians of 30 epochs after 3 warm-up
epochs, in milliseconds, with torch using every core (as rayon does).

    sh benches/digits_vs_torch.sh     # installs torch in a cache venv, runs both
"""

import gzip
import os
import statistics
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
torch.set_num_threads(os.cpu_count())
torch.manual_seed(0)

data = np.loadtxt(gzip.open(os.path.join(HERE, "..", "examples", "data", "digits.csv.gz")), delimiter=",")
order = np.random.default_rng(0).permutation(len(data))
n_train = len(data) * 4 // 5
train = data[order[:n_train]]
x = train[:, :64]
std = x.std(0)
std[std < 1e-12] = 1.0
x = torch.tensor((x - x.mean(0)) / std, dtype=torch.float32)
y = torch.tensor(train[:, 64], dtype=torch.int64)


def models():
    yield "mlp", nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    c = 16
    yield "cnn", nn.Sequential(
        nn.Unflatten(1, (1, 8, 8)),
        nn.Conv2d(1, c, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(c, 2 * c, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(8 * c, 10),
    )


def epoch(model, opt, sched, gen):
    perm = torch.randperm(len(y), generator=gen)
    total, batches = 0.0, 0
    for idx in perm.split(64):
        loss = F.cross_entropy(model(x[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
        batches += 1
    sched.step()
    with torch.no_grad():
        acc = (model(x).argmax(1) == y).float().mean().item()
    return total / batches, acc


print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
for name, model in models():
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=1e-2)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=60, eta_min=1e-4)
    gen = torch.Generator().manual_seed(0)
    for _ in range(3):
        epoch(model, opt, sched, gen)
    times = []
    for _ in range(30):
        t = time.perf_counter()
        loss, acc = epoch(model, opt, sched, gen)
        times.append(time.perf_counter() - t)
    print(f"torch digits/{name}_epoch: median {statistics.median(times) * 1e3:.2f} ms (loss {loss:.4f}, train accuracy {acc:.4f})")
