"""Python's safetensors + NumPy loading the 1 GiB f32 file that `cargo bench --bench io` writes
(target/io-bench.safetensors), for BENCHMARKS.md. Medians of 10 loads, in milliseconds.

    pip install numpy safetensors && python3 benches/io_numpy.py
"""

import os
import time

import numpy as np
from safetensors.numpy import load_file

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "io-bench.safetensors")


def median_ms(f, n=10):
    f()
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    ts.sort()
    return ts[n // 2] * 1e3


print(f"safetensors.numpy.load_file: {median_ms(lambda: load_file(PATH)):.1f} ms")
print(f"np.fromfile (raw read):      {median_ms(lambda: np.fromfile(PATH, dtype=np.uint8)):.1f} ms")
