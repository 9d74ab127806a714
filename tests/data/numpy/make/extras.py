# NumPy 2.4's answers for the NumPy routines of ops/{windows,sets,poly}.rs and friends, for
# tests/all/numpy_extras.rs: writes tests/data/numpy/extras.npz. Run: python extras.py OUT
# Each case stores its inputs, its integer parameters (`NAME_p`) and NumPy's result.
import sys
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

rng = np.random.default_rng(17)
out = {}

def put(name, **arrays):
    for k, v in arrays.items():
        out[f"{name}_{k}"] = np.asarray(v)

# unfold(dim, size, step): sliding_window_view along an axis, every step-th window.
for i, (shape, dim, size, step) in enumerate([((7,), 0, 3, 2), ((3, 5), 1, 2, 1), ((4, 3, 2), 0, 4, 3),
                                              ((5, 2), 0, 1, 2), ((6, 3), 0, 6, 1), ((2, 8), 1, 3, 4)]):
    x = rng.standard_normal(shape)
    y = sliding_window_view(x, size, axis=dim)
    y = np.take(y, np.arange(0, y.shape[dim], step), axis=dim)
    put(f"unfold{i}", x=x, p=[dim, size, step], y=y)

# convolve / correlate in every mode, floats and ints, the kernel longer or shorter.
modes = ["full", "same", "valid"]
for i, (n, m) in enumerate([(6, 3), (5, 5), (3, 7), (8, 2), (1, 4), (4, 1), (7, 4)]):
    a, v = rng.standard_normal(n), rng.standard_normal(m)
    ai, vi = rng.integers(-9, 10, n), rng.integers(-9, 10, m)
    for j, mode in enumerate(modes):
        put(f"conv{i}_{j}", a=a, v=v, y=np.convolve(a, v, mode), yi=np.convolve(ai, vi, mode),
            c=np.correlate(a, v, mode), ci=np.correlate(ai, vi, mode), ai=ai, vi=vi)

# cbrt and round(decimals) on awkward values.
x = np.array([-27.0, -8.0, -1e-300, -0.0, 0.0, 1e-310, 2.0, 27.0, 1e300, np.inf, -np.inf, np.nan])
put("cbrt", x=x, y=np.cbrt(x))
x = np.array([2.675, -2.675, 0.125, 0.375, 1234.5678, -1234.5678, 15.0, 25.0, 35.0, 1e300, np.nan, np.inf, -0.5, 0.5, 1.5, 2.5])
for d in [0, 1, 2, 3, -1, -2]:
    put(f"round{d + 2}", x=x, p=[d], y=np.round(x, d))

# ptp and average.
x = rng.standard_normal((3, 4))
put("ptp", x=x, y0=np.ptp(x, axis=0), y1=np.ptp(x, axis=1), y=np.ptp(x))
xi = rng.integers(-100, 100, (3, 4))
put("ptpi", x=xi, y1=np.ptp(xi, axis=1))
w1 = rng.uniform(0.1, 2, 4)
wf = rng.uniform(0.1, 2, (3, 4))
put("average", x=x, w1=w1, wf=wf, y1=np.average(x, axis=1, weights=w1), yf=np.average(x, weights=wf),
    yf0=np.average(x, axis=0, weights=wf), y=np.average(x, axis=0))

# logspace and geomspace.
put("logspace", y=np.logspace(-2, 3, 11), y2=np.logspace(0, 10, 5, base=2.0))
put("geomspace", y=np.geomspace(1, 1000, 7), y2=np.geomspace(-1e-3, -10, 5), y3=np.geomspace(5, 5, 3))

# interp, with the defaults and explicit left/right, NaN, exact points, one-point tables.
xp = np.array([-1.0, 0.0, 0.5, 2.0, 4.0])
fp = rng.standard_normal(5)
x = np.array([-3.0, -1.0, -0.5, 0.0, 0.25, 0.5, 1.9, 2.0, 3.99, 4.0, 4.5, np.nan])
put("interp", x=x, xp=xp, fp=fp, y=np.interp(x, xp, fp), ylr=np.interp(x, xp, fp, left=-9.0, right=9.0),
    y1=np.interp(x, xp[:1], fp[:1]))

# polyval (floats and ints) and polyfit (one and several columns, under-determined).
p = rng.standard_normal(4)
x = rng.standard_normal((2, 3))
put("polyval", p=p, x=x, y=np.polyval(p, x), pi=[2, -3, 0, 1], xi=[[-2, -1], [0, 3]],
    yi=np.polyval([2, -3, 0, 1], np.array([[-2, -1], [0, 3]])))
xs = np.linspace(-1, 2, 9)
ys = rng.standard_normal(9)
y2 = rng.standard_normal((9, 2))
put("polyfit", x=xs, y=ys, y2=y2, c0=np.polyfit(xs, ys, 0), c2=np.polyfit(xs, ys, 2), c3=np.polyfit(xs, y2, 3))

# Set routines with duplicates and NaN; lexsort with ties and NaN.
a = np.array([3.0, 1.0, np.nan, 2.0, 3.0, 7.0, np.nan])
b = np.array([2.0, 5.0, np.nan, 3.0, 9.0])
put("sets", a=a, b=b, union=np.union1d(a, b), inter=np.intersect1d(a, b), diff=np.setdiff1d(a, b))
k0 = np.array([2.0, 1.0, 3.0, 1.0, np.nan, 2.0, 1.0])
k1 = np.array([1.0, 2.0, 1.0, 1.0, 1.0, 1.0, 2.0])
k2 = np.array([0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0])
put("lexsort", k0=k0, k1=k1, k2=k2, y2=np.lexsort((k0, k1)), y3=np.lexsort((k0, k1, k2)))
km = rng.integers(0, 3, (2, 6)).astype(np.float64)
kn = rng.integers(0, 2, (2, 6)).astype(np.float64)
put("lexsort2d", a=km, b=kn, y=np.lexsort((km, kn)))

# QR (reduced; tall, square, wide, stacked) and eigvalsh.
for i, shape in enumerate([(4, 3), (3, 3), (2, 4), (2, 3, 2)]):
    a = rng.standard_normal(shape)
    q, r = np.linalg.qr(a)
    put(f"qr{i}", a=a, q=q, r=r)
s = rng.standard_normal((3, 3))
put("eigvalsh", a=s + s.T, w=np.linalg.eigvalsh(s + s.T))
np.savez(sys.argv[1], **out)
