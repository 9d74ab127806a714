# The PyTorch-core composites (ops/scan.rs, ops/pointwise.rs, ops/scatter.rs, ops/matrix.rs
# and the later float_math/stats/matmul entries) against NumPy, or PyTorch where NumPy has no
# such op; same files as gen2.py.
import numpy as np, sys, random, torch, os
sys.path.insert(0, os.path.dirname(__file__))
from cases import Cases, DT, j
seed=int(sys.argv[1]); N=int(sys.argv[2])
rng=np.random.default_rng(seed); random.seed(seed)
C=Cases(rng, int_range=5)
FL=["float32","float64","float16"]; NUM=[d for d in DT if d!="bool"]
rshape, rvals, add, case = C.rshape, C.rvals, C.add, C.case
T=lambda a: torch.from_numpy(np.array(a, order="C"))
def t64(a): return T(a.astype(np.float64) if a.dtype.kind=='f' else a)
def back(r, dt): return r.numpy().astype(dt)
OPS=("cummax cummax_idx cummin cummin_idx logcumsumexp kthvalue nanmedian fmax fmin heaviside signbit frac sinc "
     "deg2rad rad2deg logaddexp2 addcmul addcdiv clamp take_along_dim scatter index_fill index_copy masked_scatter "
     "vector_norm matrix_norm logdet cond matrix_rank multi_dot baddbmm").split()
FLOAT_ONLY=set("logcumsumexp nanmedian frac sinc deg2rad rad2deg logaddexp2 addcdiv logdet cond matrix_rank".split())
for it in range(N):
    op=random.choice(OPS); dt=random.choice(FL if op in FLOAT_ONLY else NUM); sh=rshape(); nd=len(sh)
    x=rvals(dt, sh); k=add(x)
    ax=lambda: int(rng.integers(-nd, nd)) if nd else 0
    def other(shape=None):
        sb=shape if shape is not None else tuple(1 if rng.random()<0.3 else d for d in sh)[int(rng.integers(0,nd+1)):]
        y=rvals(dt,sb); return y, add(y)
    if op in ("cummax","cummax_idx","cummin","cummin_idx") and nd:
        a=ax(); f=torch.cummax if op.startswith("cummax") else torch.cummin; i=int(op.endswith("idx"))
        case(op,[k],[a],lambda: f(t64(x),a)[i].numpy().astype(np.int64 if i else dt))
    elif op=="logcumsumexp" and nd:
        a=ax(); case(op,[k],[a],lambda: back(torch.logcumsumexp(t64(x),a),dt))
    elif op=="kthvalue" and nd and sh[0]:
        a=ax(); kk=int(rng.integers(1,sh[a]+1)) if sh[a] else 1; kd=int(rng.random()<0.5)
        case(op,[k],[kk,a,kd],lambda: np.take(np.sort(x,axis=a),[kk-1],axis=a) if kd else np.take(np.sort(x,axis=a),kk-1,axis=a))
    elif op=="nanmedian" and nd:
        a=ax(); kd=int(rng.random()<0.5)
        case(op,[k],[a,kd],lambda: back(torch.nanmedian(t64(x),a,keepdim=bool(kd)).values,dt) if sh[a] else (_ for _ in ()).throw(ValueError()))
    elif op in ("fmax","fmin","heaviside","logaddexp2"):
        y,kb=other(); f=getattr(np,op)
        case(op,[k,kb],[],lambda: f(x,y).astype(dt) if dt!="float16" else f(x.astype(np.float64),y.astype(np.float64)).astype(dt))
    elif op=="signbit":
        case(op,[k],[],lambda: np.signbit(x))
    elif op in ("frac",):
        case(op,[k],[],lambda: back(torch.frac(t64(x)),dt))
    elif op in ("sinc","deg2rad","rad2deg"):
        f=getattr(np,op); case(op,[k],[],lambda: f(x.astype(np.float64)).astype(dt))
    elif op in ("addcmul","addcdiv"):
        y,kb=other(); z,kc=other(); v=random.choice([1,2,-3]) if dt[0] in "iu" else random.choice([1.0,0.5,-2.0])
        if op=="addcdiv": z=np.where(z==0,1,z).astype(dt); kc=add(z)
        f=getattr(torch,op)
        case(op,[k,kb,kc],[f"i:{v}" if isinstance(v,int) else v],lambda: back(f(t64(x),t64(y),t64(z),value=v),dt) if dt!="uint8" else back(f(T(x.astype(np.int64)),T(y.astype(np.int64)),T(z.astype(np.int64)),value=v)%256,dt))
    elif op=="clamp":
        lo=random.choice([None,-2,0]); hi=random.choice([None,1,3]) if lo is not None else random.choice([1,3])
        if dt=="uint8" and lo is not None: lo=abs(lo)
        if lo is not None and hi is not None and lo>hi: hi=lo
        case(op,[k],[ "-" if lo is None else f"i:{lo}", "-" if hi is None else f"i:{hi}"],lambda: back(torch.clamp(t64(x),lo,hi),dt))
    elif op=="take_along_dim" and nd:
        a=ax(); ish=tuple(int(rng.integers(1,4)) if d==a%nd else (1 if rng.random()<0.3 else s) for d,s in enumerate(sh))
        if sh[a]==0: continue
        idx=rng.integers(0,sh[a],ish).astype(np.int64); ki=add(idx)
        case(op,[k,ki],[a],lambda: np.take_along_axis(x,idx,axis=a))
    elif op=="scatter" and nd and all(sh):
        a=ax(); ish=tuple(int(rng.integers(0,s+1)) for s in sh); idx=rng.integers(0,sh[a],ish).astype(np.int64); ki=add(idx)
        src=rvals(dt,ish); ks=add(src)
        def ref():
            out=x.copy()
            for p in np.ndindex(*ish):
                q=list(p); q[a]=idx[p]; out[tuple(q)]=src[p]
            return out
        case(op,[k,ki,ks],[a],ref)
    elif op in ("index_fill","index_copy") and nd and sh[ax()]:
        a=ax()
        if not sh[a]: continue
        m=int(rng.integers(0,sh[a]+1)); idx=np.array(random.sample(range(sh[a]),m),dtype=np.int64); ki=add(idx)
        if op=="index_fill":
            v=random.choice([0,1,-3]) if dt!="uint8" else 7
            case(op,[k,ki],[a,f"i:{v}"],lambda: back(T(x.copy()).index_fill(a,T(idx),v),dt))
        else:
            ssh=list(sh); ssh[a]=m; s=rvals(dt,tuple(ssh)); ks=add(s)
            case(op,[k,ki,ks],[a],lambda: T(x.copy()).index_copy(a,T(idx),T(s)).numpy())
    elif op=="masked_scatter":
        msk=rng.random(sh)<0.5; km=add(msk); s=rvals(dt,(int(msk.sum())+int(rng.integers(0,3)),)); ks=add(s)
        case(op,[k,km,ks],[],lambda: T(x.copy()).masked_scatter(T(msk),T(s)).numpy())
    elif op=="vector_norm" and dt!="uint8":
        o=random.choice([1.0,2.0,3.0,0.0,np.inf,-np.inf,-1.0,-0.5]); axs=sorted(set(ax()%nd for _ in range(int(rng.integers(0,nd+1))))) if nd else []; kd=int(rng.random()<0.5)
        od="float64" if dt in ("int64",) else ("float32" if dt[0]=="i" else dt)
        case(op,[k],[o,j(axs),kd],lambda: back(torch.linalg.vector_norm(t64(x).double(),o,dim=axs if axs else None,keepdim=bool(kd)),od))
    elif op=="matrix_norm" and nd>=2 and dt[0]=="f" and sh[-1] and sh[-2]:
        o=random.choice(["fro",1.0,-1.0,np.inf,-np.inf,2.0,-2.0,"nuc"])
        case(op,[k],[o],lambda: back(torch.linalg.matrix_norm(t64(x),o),dt))
    elif op in ("logdet","cond","matrix_rank"):
        n=int(rng.integers(1,4)); shm=tuple(int(rng.integers(1,3)) for _ in range(int(rng.integers(0,2))))+(n,n)
        x=rvals(dt,shm); x=np.where(np.isfinite(x),x,1).astype(dt); k=add(x)
        if op=="logdet": case(op,[k],[],lambda: back(torch.logdet(t64(x)),dt))
        elif op=="cond": case(op,[k],[],lambda: np.linalg.cond(x.astype(np.float64)).astype(dt))
        else: case(op,[k],[],lambda: np.asarray(np.linalg.matrix_rank(x.astype(np.float64),tol=None)).astype(np.int64) if dt=="float64" else (_ for _ in ()).throw(ValueError()))
    elif op=="multi_dot" and dt[0] in "fi" and dt!="float16":
        m=int(rng.integers(2,5)); ds=[int(rng.integers(1,5)) for _ in range(m+1)]
        ms=[rvals(dt,(ds[i],ds[i+1])) for i in range(m)]
        if rng.random()<0.3: ms[0]=ms[0][0]
        if rng.random()<0.3: ms[-1]=ms[-1][:,0]
        ks=[add(a) for a in ms]
        case(op,ks,[],lambda: np.linalg.multi_dot([a.astype(np.float64) for a in ms]).astype(dt))
    elif op=="baddbmm" and dt in ("float32","float64"):
        b,n,kk,mm=[int(rng.integers(1,4)) for _ in range(4)]
        b1=rvals(dt,(b,n,kk)); b2=rvals(dt,(b,kk,mm)); s=rvals(dt,(mm,)); k1,k2,k3=add(b1),add(b2),add(s)
        be,al=random.choice([0.0,1.0,0.5]),random.choice([1.0,-2.0])
        case(op,[k3,k1,k2],[be,al],lambda: back(torch.baddbmm(t64(s),t64(b1),t64(b2),beta=be,alpha=al),dt))
C.save()
