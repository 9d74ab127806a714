import numpy as np, torch, sys, math, random, os, subprocess, json
rng = np.random.default_rng(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
D = "/tmp/nd"
DT = ["float32","float64","float16","int16","int32","int64","uint8","bool"]
TD = {"float32":torch.float32,"float64":torch.float64,"float16":torch.float16,"int16":torch.int16,"int32":torch.int32,"int64":torch.int64,"uint8":torch.uint8,"bool":torch.bool}
def rshape():
    k = rng.integers(0, 5)
    if k == 0: return ()
    nd = int(rng.integers(1, 4))
    return tuple(int(rng.integers(0 if rng.random() < 0.1 else 1, 6)) for _ in range(nd))
def rvals(dt, shape, kind="any"):
    n = int(np.prod(shape)) if shape else 1
    if dt == "bool": v = rng.random(n) < 0.5
    elif dt.startswith("float"):
        v = rng.standard_normal(n) * (10.0 ** int(rng.integers(-2, 3)))
        if kind == "pos": v = np.abs(v) + 0.1
        if kind == "unit": v = rng.uniform(-1, 1, n)
        if kind == "any":
            sp = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-30, 1e30, 0.5, -2.5, 2.5])
            m = rng.random(n) < 0.15
            v[m] = rng.choice(sp, m.sum())
        v = v.astype(dt)
    else:
        info = np.iinfo(dt)
        lo, hi = (max(info.min, -1000), min(info.max, 1000)) if rng.random() < 0.7 else (info.min, info.max)
        v = rng.integers(lo, hi, n, endpoint=True, dtype=np.int64).astype(dt)
        if kind == "pos": v = np.maximum(v, 1).astype(dt)
    return v.reshape(shape)
inputs = {}; spec = []; meta = []
def add_in(v):
    k = f"x{len(inputs)}"; inputs[k] = v; return k
def case(op, ins, params, expect):
    cid = f"c{len(spec)}"
    spec.append("|".join([cid, op, ",".join(ins)] + [str(p) for p in params]))
    meta.append((cid, op, ins, params, expect))
UN_F = "sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh exp exp2 expm1 log log2 log10 log1p sqrt reciprocal sigmoid erf".split()
UN_S = "neg abs sign floor ceil round trunc relu square".split()
BIN = "add sub mul div remainder maximum minimum floor_divide eq ne lt le gt ge".split()
RED = "sum prod min max mean argmin argmax any all".split()
NANRED = "nansum nanmean nanmin nanmax nanargmin nanargmax".split()
for it in range(int(sys.argv[2]) if len(sys.argv) > 2 else 400):
    r = rng.random()
    dt = random.choice(DT)
    shape = rshape()
    T = rng.random() < 0.25 and len(shape) >= 2
    if r < 0.25:
        op = random.choice(UN_F + UN_S)
        k = add_in(rvals(dt, shape)); case(op, [k + (".T" if T else "")], [], None)
    elif r < 0.5:
        op = random.choice(BIN)
        dt2 = dt if (rng.random() < 0.5 or op == "floor_divide") else random.choice(DT)
        s2 = shape
        if rng.random() < 0.4 and len(shape) > 0:
            s2 = tuple(1 if rng.random() < 0.5 else d for d in shape[int(rng.integers(0, len(shape))):])
        ka = add_in(rvals(dt, shape)); kb = add_in(rvals(dt2, s2))
        if rng.random() < 0.5: ka, kb = kb, ka
        case(op, [ka, kb], [], None)
    elif r < 0.58:
        op = random.choice(["add_s","sub_s","mul_s","div_s","rsub_s","rdiv_s","remainder_s","floor_divide_s","pow_s","clip"])
        sv = random.choice(["i:3","i:-2","i:0","f:0.5","f:-1.5","f:2.0","f:0.0"])
        k = add_in(rvals(dt, shape))
        if op == "clip": case(op, [k], [random.choice(["i:-1","f:-0.5"]), random.choice(["i:2","f:1.5"])], None)
        else: case(op, [k], [sv], None)
    elif r < 0.85:
        op = random.choice(RED + NANRED + ["var","std","cumsum","cumprod","logsumexp","sort","argsort"])
        k = add_in(rvals(dt, shape)) + (".T" if T else "")
        nd = len(shape)
        if op in ("cumsum","cumprod","sort","argsort"):
            if nd == 0: ax = 0
            else: ax = int(rng.integers(-nd, nd))
            case(op, [k], [ax] + ([int(rng.random() < 0.3)] if op in ("sort","argsort") else []), None)
        else:
            axs = sorted(set(int(rng.integers(0, nd)) for _ in range(int(rng.integers(0, nd + 1))))) if nd else []
            axs = [a - nd if rng.random() < 0.3 else a for a in axs]
            p = [",".join(map(str, axs)) or "-", int(rng.random() < 0.5)]
            if op in ("var","std"): p.append(int(rng.integers(0, 3)))
            case(op, [k], p, None)
    elif r < 0.93:
        m, kk, n = (int(rng.integers(0, 5)) for _ in range(3))
        dt = random.choice(["float32","float64","int32","int64","float16"])
        ka = add_in(rvals(dt, (m, kk), "unit")); kb = add_in(rvals(dt, (kk, n), "unit"))
        case("matmul", [ka, kb], [], None)
    else:
        to = random.choice(DT)
        k = add_in(rvals(dt, shape)); case("cast", [k], [to], None)
np.savez(f"{D}/in.npz", **inputs)
open(f"{D}/spec.txt", "w").write("\n".join(spec) + "\n")
json.dump([m[:4] for m in meta], open(f"{D}/meta.json", "w"))
