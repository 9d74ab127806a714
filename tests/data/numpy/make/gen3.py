# The composites and searches (ops/numeric.rs, ops/arrange.rs, ops/search.rs) against NumPy
# (PyTorch for median's lower middle and trace's dtype); same files as gen2.py.
import numpy as np, sys, random, torch, os
sys.path.insert(0, os.path.dirname(__file__))
from cases import Cases, DT, j
seed=int(sys.argv[1]); N=int(sys.argv[2])
rng=np.random.default_rng(seed); random.seed(seed)
C=Cases(rng, int_range=5)
FL=["float32","float64","float16"]
rshape, rvals, add, case = C.rshape, C.rvals, C.add, C.case
OPS="logaddexp lerp nan_to_num quantile median count_nonzero diff kron cross trace movedim nonzero unique searchsorted isin bincount".split()
for it in range(N):
    op=random.choice(OPS); dt=random.choice(FL if op in ("logaddexp","lerp","nan_to_num","quantile") else DT); sh=rshape(); nd=len(sh)
    T = nd>=2 and rng.random()<0.3
    x=rvals(dt, sh); k=add(x)
    if T: k+=".T"; x=x.T; sh=x.shape
    ax=lambda: int(rng.integers(-nd, nd)) if nd else 0
    f64=lambda a: a.astype(np.float64)
    if op in ("logaddexp","lerp"):
        sb=tuple(1 if rng.random()<0.3 else d for d in sh)[int(rng.integers(0,nd+1)):]
        y=rvals(dt,sb); kb=add(y)
        if op=="logaddexp": case(op,[k,kb],[],lambda: np.logaddexp(f64(x),f64(y)).astype(dt))
        else:
            w=round(float(rng.uniform(-1,2)),2); tt=lambda a: torch.from_numpy(np.array(a, dtype=np.float64))
            case(op,[k,kb],[w],lambda: torch.lerp(*torch.broadcast_tensors(tt(x),tt(y)),w).numpy().astype(dt))
    elif op=="nan_to_num": case(op,[k],[],lambda: np.nan_to_num(x))
    elif op=="quantile" and nd:
        a=ax(); q=random.choice([0.0,0.2,0.5,0.75,1.0]); kd=int(rng.random()<0.5)
        case(op,[k],[q,a,kd],lambda: np.quantile(f64(x),q,axis=a,keepdims=bool(kd)).astype(dt) if sh[a] else (_ for _ in ()).throw(ValueError()))
    elif op=="median" and nd and dt!="bool" and dt!="float16":
        a=ax(); kd=int(rng.random()<0.5)
        case(op,[k],[a,kd],lambda: torch.median(torch.from_numpy(np.ascontiguousarray(x)),a,keepdim=bool(kd)).values.numpy())
    elif op=="count_nonzero":
        axs=sorted(set(ax()%nd for _ in range(int(rng.integers(0,nd+1))))) if nd else []
        kd=int(rng.random()<0.5)
        case(op,[k],[j(axs),kd],lambda: np.asarray(np.count_nonzero(x,axis=tuple(axs) if axs else None,keepdims=bool(kd))).astype(np.int64))
    elif op=="diff" and nd and dt!="bool":
        a=ax(); n=int(rng.integers(0,4))
        case(op,[k],[n,a],lambda: np.diff(x,n,axis=a) if n else x)
    elif op=="kron" and dt!="bool":
        y=rvals(dt,rshape()); kb=add(y); case(op,[k,kb],[],lambda: np.kron(x,y).astype(dt))
    elif op=="cross" and dt!="bool":
        sh2=list(sh)+[3] if rng.random()<0.5 or not nd else list(sh[:-1])+[3]
        x=rvals(dt,tuple(sh2)); k=add(x); y=rvals(dt,tuple(sh2)[int(rng.integers(0,len(sh2))):]); kb=add(y)
        case(op,[k,kb],[-1],lambda: np.cross(x,y).astype(dt) if dt.startswith("float") else np.cross(x.astype(np.int64),y.astype(np.int64)).astype(dt))
    elif op=="trace" and nd==2 and dt!="bool":
        case(op,[k],[],lambda: torch.trace(torch.from_numpy(np.ascontiguousarray(x).astype(np.float64 if dt.startswith("float") else np.int64))).numpy().astype(dt if dt.startswith("float") else np.int64))
    elif op=="movedim" and nd:
        m=int(rng.integers(1,nd+1)); src=random.sample(range(nd),m); dst=random.sample(range(nd),m)
        case(op,[k],[j(src),j(dst)],lambda: np.moveaxis(x,src,dst))
    elif op=="nonzero":
        case(op,[k],[],lambda: np.argwhere(x).astype(np.int64))
    elif op=="unique":
        case(op,[k],[],lambda: (lambda r: (r[0], r[1].reshape(x.shape).astype(np.int64), r[2].astype(np.int64)))(np.unique(x,return_inverse=True,return_counts=True)))
    elif op=="searchsorted":
        s=np.sort(rvals(dt,(int(rng.integers(0,6)),))); ks=add(s)
        right=int(rng.random()<0.5)
        case(op,[ks,k],[right],lambda: np.searchsorted(s,x,"right" if right else "left").astype(np.int64))
    elif op=="isin":
        y=rvals(dt,rshape()); kb=add(y); case(op,[k,kb],[],lambda: np.isin(x,y))
    elif op=="bincount":
        v=rng.integers(0,6,int(rng.integers(0,7))).astype(np.int64); kb=add(v); m=int(rng.integers(0,8))
        case(op,[kb],[m],lambda: np.bincount(v,minlength=m).astype(np.int64))
C.save()
