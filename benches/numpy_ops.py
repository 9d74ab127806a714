"""NumPy doing the CPU work of `benches/ops.rs` on the same machine, for BENCHMARKS.md.

    pip install numpy && python3 benches/numpy_ops.py

Each figure is the median of 15 timed calls (small sizes: the best of 7 repeats of 2000 calls),
in milliseconds unless stated, like criterion's medians in `cargo bench --bench ops`.
"""

import time
import timeit

import numpy as np


def median_ms(f, n=15):
    f()
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    ts.sort()
    return ts[n // 2] * 1e3


N = 1 << 24
rng = np.random.default_rng(0)
a = rng.random(N, dtype=np.float32)
b = rng.random(N, dtype=np.float32)
out = np.empty_like(a)
m = a.reshape(4096, 4096)
row = b[:4096].reshape(1, 4096)
ha, hb = a.astype(np.float16), b.astype(np.float16)
s = (a - np.float32(0.5)) * np.float32(2.0)
lm = a[: 4096 * 1024].reshape(4096, 1024)


def lse(x):
    mx = x.max(axis=1, keepdims=True)
    return np.log(np.exp(x - mx).sum(axis=1)) + mx[:, 0]


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


rows = [
    ("add_new", lambda: a + b),
    ("add_into", lambda: np.add(a, b, out=out)),
    ("broadcast_add", lambda: m + row),
    ("transposed_add", lambda: m.T + m),
    ("sin", lambda: np.sin(a)),
    ("exp", lambda: np.exp(a)),
    ("log", lambda: np.log(a)),
    ("sin_into", lambda: np.sin(a, out=out)),
    ("tanh", lambda: np.tanh(s)),
    ("sigmoid", lambda: 1.0 / (1.0 + np.exp(-s))),
    ("expm1", lambda: np.expm1(s)),
    ("log1p", lambda: np.log1p(s)),
    ("exp2", lambda: np.exp2(s)),
    ("log2", lambda: np.log2(a)),
    ("logsumexp_axis1_4096x1024", lambda: lse(lm)),
    ("softmax_axis1_4096x1024", lambda: softmax(lm)),
    ("add_new_f16", lambda: ha + hb),
    ("sum_all", lambda: a.sum()),
    ("sum_axis0", lambda: m.sum(axis=0)),
    ("sum_axis1", lambda: m.sum(axis=1)),
    ("transpose_contiguous_4096", lambda: np.ascontiguousarray(m.T)),
]
for n in (1024, 2048):
    x = rng.standard_normal((n, n), dtype=np.float32)
    rows.append((f"matmul_f32_{n}", lambda x=x: x @ x))
# The `linalg` group: f64, `a·aᵀ/n + I` for inverse/solve/eigh, `a` for svd.
for n in (64, 256):
    x = rng.standard_normal((n, n))
    spd = x @ x.T / n + np.eye(n)
    rhs = rng.standard_normal((n, 8))
    rows += [
        (f"linalg/inverse/{n}", lambda spd=spd: np.linalg.inv(spd)),
        (f"linalg/solve/{n}", lambda spd=spd, rhs=rhs: np.linalg.solve(spd, rhs)),
        (f"linalg/svd/{n}", lambda x=x: np.linalg.svd(x, full_matrices=False)),
        (f"linalg/eigh/{n}", lambda spd=spd: np.linalg.eigh(spd)),
    ]
for name, f in rows:
    print(f"{name:28} {median_ms(f):9.3f} ms")
for n in (1 << 10, 1 << 15, 1 << 17):
    x, y, o = a[:n], b[:n], out[:n]
    best = min(timeit.repeat(lambda: np.add(x, y, out=o), number=2000, repeat=7)) / 2000
    print(f"add_into_small/{n:<13} {best * 1e6:9.3f} us")
# Per-call overhead rows of `cargo bench --bench ops -- small` (issue 26).
a16, b16, o16 = a[:16].copy(), b[:16].copy(), np.empty(16, np.float32)
s1000 = a[:1000].copy()
for name, f in [
    ("small/add16_into", lambda: np.add(a16, b16, out=o16)),
    ("small/add16_new", lambda: a16 + b16),
    ("small/sum1000", lambda: s1000.sum()),
]:
    best = min(timeit.repeat(f, number=20000, repeat=7)) / 20000
    print(f"{name:28} {best * 1e9:9.1f} ns")
print("numpy", np.__version__, "threads: OpenBLAS default for matmul, one thread elsewhere")


# The `indexing` group (f32 (1024, 1024) unless stated), stable sorts as this library's.
x = rng.standard_normal((1024, 1024), dtype=np.float32)
index = (np.arange(1024 * 256) * 7919 % 1024).reshape(1024, 256)
src = rng.standard_normal((1024, 256), dtype=np.float32)
rows = np.arange(512) * 37 % 1024
small = rng.standard_normal((1437, 64), dtype=np.float32)
batch = np.arange(64) * 37 % 1437
wide = rng.standard_normal((4096, 1024), dtype=np.float32)
long = rng.standard_normal(1 << 20, dtype=np.float32)


def scatter_add():
    o = x.copy()
    np.add.at(o, (np.arange(1024)[:, None], index), src)


print(f"gather_axis1 (take_along_axis): {median_ms(lambda: np.take_along_axis(x, index, 1)):.3f}")
print(f"gather_axis0: {median_ms(lambda: np.take_along_axis(x[:, :256], index, 0)):.3f}")
print(f"scatter_add_axis1 (add.at): {median_ms(scatter_add):.3f}")
print(f"index_select_512_rows: {median_ms(lambda: x.take(rows, 0)):.3f}")
print(f"index_select_512_cols: {median_ms(lambda: x.take(rows, 1)):.3f}")
print(f"index_select_64_of_1437x64: {median_ms(lambda: small.take(batch, 0)) * 1e3:.2f} us")
print(f"argsort_axis1_4096x1024: {median_ms(lambda: np.argsort(wide, 1, kind='stable'), 5):.1f}")
print(f"argsort_axis0_4096x1024: {median_ms(lambda: np.argsort(wide, 0, kind='stable'), 5):.1f}")
print(f"sort_2^20: {median_ms(lambda: np.sort(long, kind='stable'), 5):.1f}")
print(f"topk10_axis1_4096x1024 (argpartition + sort): {median_ms(lambda: np.take_along_axis(wide, np.argpartition(-wide, 10, 1)[:, :10], 1), 5):.1f}")


# The `fft` group: f32 signals along the last axis (NumPy computes in f64 and returns complex128
# for f32 input before 2.0; 2.x keeps complex64).
sig = rng.standard_normal((256, 4096), dtype=np.float32)
spec = np.fft.rfft(sig)
cz = (sig + 1j * sig[::-1]).astype(np.complex64)
print(f"rfft_256x4096: {median_ms(lambda: np.fft.rfft(sig)):.2f}")
print(f"irfft_256x4096: {median_ms(lambda: np.fft.irfft(spec, 4096)):.2f}")
print(f"fft_256x4096_complex: {median_ms(lambda: np.fft.fft(cz)):.2f}")
