import numpy as np, sys, random, json
seed=int(sys.argv[1]); N=int(sys.argv[2])
rng=np.random.default_rng(seed); random.seed(seed)
D="/tmp/nd"
DT=["float32","float64","float16","int16","int32","int64","uint8","bool"]
def rshape(lo=0, maxnd=4):
    nd=int(rng.integers(lo, maxnd))
    return tuple(int(rng.integers(0 if rng.random()<0.08 else 1, 5)) for _ in range(nd))
def rvals(dt, shape):
    n=int(np.prod(shape)) if shape else 1
    if dt=="bool": v=rng.random(n)<0.5
    elif dt.startswith("float"):
        v=np.round(rng.standard_normal(n)*4,1); m=rng.random(n)<0.1; v[m]=rng.choice(np.array([np.nan,np.inf,-np.inf,-0.0]),m.sum()); v=v.astype(dt)
    else: v=rng.integers(-50 if dt!="uint8" else 0, 50, n).astype(dt)
    return v.reshape(shape)
inputs={}; spec=[]; refs={}; expect_err=[]
def add(v): k=f"x{len(inputs)}"; inputs[k]=v; return k
def case(op, keys, params, fn):
    cid=f"c{len(spec)}"
    spec.append("|".join([cid,op,",".join(keys)]+[str(p) for p in params]))
    try:
        with np.errstate(all="ignore"): r=fn()
        if isinstance(r, tuple):
            for i,x in enumerate(r): refs[f"{cid}_{i}"]=np.asarray(x)
        else: refs[f"{cid}_0"]=np.asarray(r)
    except Exception as e:
        expect_err.append(cid)
def j(l): return ",".join(str(int(v)) for v in l) if len(l) else "-"
OPS="permute reshape narrow flip expand squeeze_dims unsqueeze diagonal diagonal_axes roll tile repeat repeat_interleave tril triu pad concat stack index_select take gather scatter_add masked_fill topk norm tensordot dot outer matmul".split()
for it in range(N):
    op=random.choice(OPS); dt=random.choice(DT); sh=rshape(); nd=len(sh)
    T = nd>=2 and rng.random()<0.3
    x=rvals(dt, sh); k=add(x)
    if T: k+=".T"; x=x.T; sh=x.shape
    ax=lambda: int(rng.integers(-nd, nd)) if nd else 0
    if op=="permute":
        p=list(rng.permutation(nd)); case(op,[k],[j(p)],lambda: np.transpose(x,p))
    elif op=="reshape":
        n=x.size; dims=[]
        rem=n
        for _ in range(int(rng.integers(0,4))):
            ds=[d for d in range(1,7) if rem%d==0] if rem else [0,1,2]
            d=random.choice(ds); dims.append(d); rem=rem//d if d else rem
        if rem!=1 or not dims: dims.append(rem)
        if rng.random()<0.3 and dims: dims[int(rng.integers(0,len(dims)))]=-1
        case(op,[k],[j(dims)],lambda: x.reshape(dims))
    elif op=="narrow" and nd:
        a=ax(); L=sh[a]; s=int(rng.integers(0,L+1)); l=int(rng.integers(0,L-s+1)); 
        if rng.random()<0.1: l=L-s+1
        case(op,[k],[a,s,l],lambda: (np.take(x, range(s,s+l), axis=a) if s+l<=L else (_ for _ in ()).throw(ValueError())))
    elif op=="flip":
        axs=sorted(set(ax() % max(nd,1) for _ in range(int(rng.integers(0,nd+1))))) if nd else []
        case(op,[k],[j(axs)],lambda: np.flip(x,axs) if axs else x)
    elif op=="expand":
        tgt=[int(rng.integers(1,4)) if d==1 else d for d in sh]
        tgt=[int(rng.integers(1,3)) for _ in range(int(rng.integers(0,2)))]+tgt
        case(op,[k],[j(tgt)],lambda: np.broadcast_to(x,tgt))
    elif op=="squeeze_dims":
        axs=[i for i in range(nd) if sh[i]==1 and rng.random()<0.7]
        if rng.random()<0.1 and nd: axs.append(int(rng.integers(0,nd)))
        axs=sorted(set(axs))
        case(op,[k],[j(axs)],lambda: np.squeeze(x,tuple(axs)) if axs else x)
    elif op=="unsqueeze":
        a=int(rng.integers(-nd-1,nd+1)); case(op,[k],[a],lambda: np.expand_dims(x,a))
    elif op=="diagonal" and nd>=2:
        o=int(rng.integers(-3,4)); case(op,[k],[o],lambda: np.linalg.diagonal(x,offset=o) if x.size or True else None)
    elif op=="diagonal_axes" and nd>=2:
        a1,a2=ax(),ax(); o=int(rng.integers(-3,4)); case(op,[k],[o,a1,a2],lambda: np.diagonal(x,o,a1,a2) if a1%nd!=a2%nd else (_ for _ in ()).throw(ValueError()))
    elif op=="roll" and nd:
        s=int(rng.integers(-7,8)); a=ax(); case(op,[k],[s,a],lambda: np.roll(x,s,a))
    elif op in ("tile","repeat"):
        reps=[int(rng.integers(0 if rng.random()<0.1 else 1,3)) for _ in range(int(rng.integers(nd if op=="repeat" else 0, nd+2)))]
        if op=="repeat" and len(reps)<nd: reps=reps+[1]*(nd-len(reps))
        case(op,[k],[j(reps)],lambda: np.tile(x,reps))
    elif op=="repeat_interleave" and nd:
        n=int(rng.integers(0,4)); a=ax(); case(op,[k],[n,a],lambda: np.repeat(x,n,axis=a))
    elif op in ("tril","triu") and nd>=2:
        kk=int(rng.integers(-3,4)); case(op,[k],[kk],lambda: getattr(np,op)(x,kk))
    elif op=="pad":
        pads=[(int(rng.integers(0,3)),int(rng.integers(0,3))) for _ in range(nd)]
        val="i:3" if dt not in ("float32","float64","float16") else "f:1.5"
        if dt=="bool": val="b:1"
        v=True if dt=="bool" else (3 if val=="i:3" else 1.5)
        case(op,[k],[j([p for pr in pads for p in pr]),val],lambda: np.pad(x,pads,constant_values=v))
    elif op in ("concat","stack") and nd:
        a=ax() if op=="concat" else int(rng.integers(-nd-1,nd+1))
        others=[]
        for _ in range(int(rng.integers(1,3))):
            s2=list(x.shape)
            if op=="concat": s2[a]=int(rng.integers(0,3))
            y=rvals(dt,tuple(s2)); others.append(y)
        ks=[k]+[add(y) for y in others]
        case(op,ks,[a],lambda: (np.concatenate if op=="concat" else np.stack)([x]+others,a))
    elif op in ("index_select","take") and nd:
        a=ax(); L=sh[a]; m=int(rng.integers(0,5))
        idx=rng.integers(-L if L else 0, L if L else 1, m).astype(np.int64) if L else np.zeros(m,np.int64)
        if rng.random()<0.05: idx=np.array([L+1],np.int64)
        ki=add(idx); case(op,[k,ki],[a],lambda: np.take(x,idx,axis=a) if (L and (idx<L).all()) or m==0 else (_ for _ in ()).throw(IndexError()))
    elif op in ("gather","scatter_add") and nd:
        a=ax(); L=sh[a]
        s2=tuple(int(rng.integers(0,d+1)) for d in sh)
        if op=="scatter_add": s2=tuple(min(v,d) for v,d in zip(s2,sh))
        if L==0: s2=tuple(0 if i==a%nd else v for i,v in enumerate(s2))
        idx=rng.integers(-L if op=="gather" else 0, max(L,1), s2).astype(np.int64)
        ki=add(idx)
        if op=="gather":
            case(op,[k,ki],[a],lambda: np.take_along_axis(x, np.where(idx<0, idx+L, idx) if True else idx, axis=a) if all(idx.shape[i]<=sh[i] or i==a%nd for i in range(nd)) else None)
        else:
            if dt=="bool": continue
            src=rvals(dt,s2); ks=add(src)
            def sa():
                out=x.copy().astype(np.float64 if dt.startswith("float") else np.int64)
                ii=np.indices(s2)
                for pos in zip(*[c.flatten() for c in ii]):
                    t=list(pos); t[a%nd]=idx[pos]; out[tuple(t)]+=src[pos]
                return out.astype(dt)
            case(op,[k,ki,ks],[a],sa)
    elif op=="masked_fill":
        ms=tuple(d if rng.random()<0.7 else 1 for d in sh[int(rng.integers(0,nd+1)) if nd else 0:])
        m=rng.random(ms)<0.5 if ms else np.array(rng.random()<0.5)
        km=add(m); val="f:2.5" if dt.startswith("float") else ("b:1" if dt=="bool" else "i:7"); v={"f:2.5":2.5,"b:1":True,"i:7":7}[val]
        case(op,[k,km],[val],lambda: np.where(m,np.array(v,dtype=dt),x))
    elif op=="topk" and nd and dt!="bool":
        a=ax(); L=sh[a]; kk=int(rng.integers(0,L+1))
        def tk():
            xs=x.astype(np.float64) if dt.startswith("float") else x.astype(np.int64)
            key=np.where(np.isnan(xs),np.inf,xs) if dt.startswith("float") else xs
            idx=np.argsort(-key,axis=a,kind="stable"); idx=np.take(idx,range(kk),axis=a)
            return (np.take_along_axis(x,idx,axis=a),)
        case(op,[k],[kk,a],tk)
    elif op=="norm" and dt.startswith("float"):
        p=random.choice([0.0,1.0,2.0,3.0,float('inf'),0.5])
        axs=sorted(set(ax()%nd for _ in range(int(rng.integers(0,nd+1))))) if nd else []
        kd=int(rng.random()<0.5)
        def nm():
            xs=x.astype(np.float64); A=tuple(axs) if axs else None
            a_=np.abs(xs)
            if p==float('inf'): r=np.max(a_,axis=A,keepdims=bool(kd)) if x.size else (_ for _ in ()).throw(ValueError())
            elif p==0: r=np.sum(a_!=0,axis=A,keepdims=bool(kd)).astype(np.float64)
            else: r=np.sum(a_**p,axis=A,keepdims=bool(kd))**(1/p)
            return r.astype(dt)
        case(op,[k],[p,j(axs),kd],nm)
    elif op in ("dot","outer","matmul","tensordot") and dt!="bool":
        if op=="dot":
            n=int(rng.integers(0,6)); a_=rvals(dt,(n,)); b_=rvals(dt,(n,)); ka,kb=add(a_),add(b_)
            case(op,[ka,kb],[],lambda: (np.dot(a_.astype(np.float64),b_.astype(np.float64)) if dt.startswith("float") else np.dot(a_.astype(np.int64),b_.astype(np.int64))).astype(dt))
        elif op=="outer":
            a_=rvals(dt,(int(rng.integers(0,4)),)); b_=rvals(dt,(int(rng.integers(0,4)),)); ka,kb=add(a_),add(b_)
            case(op,[ka,kb],[],lambda: np.outer(a_.astype(np.float64),b_.astype(np.float64)).astype(dt) if dt.startswith("float") else np.outer(a_,b_).astype(dt))
        elif op=="matmul":
            m,kk,n=(int(rng.integers(1,4)) for _ in range(3))
            sa=random.choice([(kk,),(m,kk),(2,m,kk),(1,m,kk),(3,1,m,kk)]); sb=random.choice([(kk,),(kk,n),(2,kk,n),(1,kk,n),(2,1,kk,n)])
            a_=rvals(dt,sa); b_=rvals(dt,sb); ka,kb=add(a_),add(b_)
            case(op,[ka,kb],[],lambda: (np.matmul(a_.astype(np.float64),b_.astype(np.float64)) if dt.startswith("float") else np.matmul(a_.astype(np.int64),b_.astype(np.int64))).astype(dt))
        else:
            a_=rvals(dt,(2,3,4)); b_=rvals(dt,(4,3,2)); ka,kb=add(a_),add(b_)
            case(op,[ka,kb],["1,2","1,0"],lambda: np.tensordot(a_.astype(np.float64),b_.astype(np.float64),([1,2],[1,0])).astype(dt) if dt.startswith("float") else np.tensordot(a_.astype(np.int64),b_.astype(np.int64),([1,2],[1,0])).astype(dt))
np.savez(f"{D}/in.npz",**inputs); np.savez(f"{D}/ref.npz",**refs)
open(f"{D}/spec.txt","w").write("\n".join(spec)+"\n"); json.dump(expect_err,open(f"{D}/experr.json","w"))
