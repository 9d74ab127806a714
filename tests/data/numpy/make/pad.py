# NumPy 2.4's np.pad in the modes typed-tensor's `pad_mode` answers (reflect, symmetric, edge,
# wrap), for tests/all/core_ops.rs: writes tests/data/numpy/pad.npz. Run: python pad.py OUT
# Case i: `xI` (float64), `padsI` (ndim, 2) and `yI` the padded array, in mode
# `modes[i // 10]`; pads up to twice an axis's length, length-1 axes, shapes of 1 to 3 axes.
import sys
import numpy as np

rng = np.random.default_rng(5)
out = {}
modes = ["reflect", "symmetric", "edge", "wrap"]
i = 0
for mode in modes:
    for _ in range(10):
        nd = int(rng.integers(1, 4))
        shape = tuple(int(d) for d in rng.integers(1, 5, nd))
        x = rng.standard_normal(shape)
        pads = np.array([[int(rng.integers(0, 2 * d + 1)), int(rng.integers(0, 2 * d + 1))] for d in shape])
        out[f"x{i}"] = x
        out[f"pads{i}"] = pads
        out[f"y{i}"] = np.pad(x, pads, mode=mode)
        i += 1
np.savez(sys.argv[1], **out)
