# NumPy 2.4's bitwise ops on random integer arrays (extremes included) with broadcasting,
# shifts by -3..70, for tests/all/core_ops.rs (`bitwise_ops_match_numpy`): writes
# tests/data/numpy/bitwise.npz (case k: a{k}, b{k}, and {op}{k}).
import numpy as np, sys
g=np.random.default_rng(11); out={}
DT=["int16","int32","int64","uint8"]
for k in range(16):
    dt=DT[k%4]; info=np.iinfo(dt)
    sa=[int(g.integers(1,4)) for _ in range(int(g.integers(0,3)))]
    sb=[1 if g.random()<0.3 else d for d in sa][int(g.integers(0,len(sa)+1)):]
    def vals(sh):
        v=g.integers(info.min, info.max, sh, dtype=np.int64, endpoint=True)
        m=g.random(sh)<0.2
        v[m]=g.choice([info.min, info.max, 0, -1 if info.min<0 else 1], int(np.sum(m)))
        return np.asarray(v).astype(dt)
    a=vals(sa); b=vals(sb); s=np.asarray(g.integers(-3 if info.min<0 else 0, 71, sb)).astype(dt)
    out[f"a{k}"]=a; out[f"b{k}"]=b; out[f"s{k}"]=s
    out[f"and{k}"]=np.bitwise_and(a,b); out[f"or{k}"]=np.bitwise_or(a,b); out[f"xor{k}"]=np.bitwise_xor(a,b)
    out[f"not{k}"]=np.invert(a)
    # NumPy's shifts of an out-of-range amount (npy_lshift/npy_rshift): 0, or the sign.
    bits=8*np.dtype(dt).itemsize
    aa,ss=np.broadcast_arrays(a.astype(np.int64), s.astype(np.int64))
    ok=(ss>=0)&(ss<bits)
    left=np.where(ok, np.left_shift(aa, np.where(ok,ss,0)), 0)
    right=np.where(ok, np.right_shift(aa, np.where(ok,ss,0)), np.where(aa<0,-1,0))
    out[f"lsh{k}"]=left.astype(dt); out[f"rsh{k}"]=right.astype(dt)
np.savez(sys.argv[1],**out)
