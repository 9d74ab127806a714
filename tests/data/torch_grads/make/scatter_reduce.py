# PyTorch 2.15's scatter_reduce on random cases with repeated targets, NaN and integers, for
# tests/all/core_ops.rs (`scatter_reduce_matches_pytorch`): writes
# tests/data/torch_grads/scatter_reduce.npz (case k: x{k}, idx{k}, src{k}, ax{k}, and
# out{k}_{reduce}_{include_self}).
import torch, numpy as np, sys
g=np.random.default_rng(7); out={}
R=["sum","prod","mean","amax","amin"]
for k in range(12):
    nd=int(g.integers(1,4)); sh=[int(g.integers(1,5)) for _ in range(nd)]; ax=int(g.integers(0,nd))
    ish=[int(g.integers(1,s+1)) if d!=ax else int(g.integers(1,7)) for d,s in enumerate(sh)]
    idx=g.integers(-sh[ax] if k%3==0 else 0, sh[ax], ish).astype(np.int64)
    if k%2==0:
        x=np.round(g.standard_normal(sh)*3,1); src=np.round(g.standard_normal(ish)*3,1)
        if k%4==0: src.flat[0]=np.nan
    else:
        x=g.integers(-9,10,sh).astype(np.int64); src=g.integers(-9,10,ish).astype(np.int64)
    out[f"x{k}"]=x; out[f"idx{k}"]=idx; out[f"src{k}"]=src; out[f"ax{k}"]=np.array(ax)
    for r in R:
        for inc in (0,1):
            t=torch.from_numpy(x).scatter_reduce(ax,torch.from_numpy(idx%sh[ax]),torch.from_numpy(src),r,include_self=bool(inc))
            out[f"out{k}_{r}_{inc}"]=t.numpy()
np.savez(sys.argv[1],**out)
