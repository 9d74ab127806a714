import torch, numpy as np, random, sys, json
torch.set_default_dtype(torch.float64)
seed=int(sys.argv[1]); NP=int(sys.argv[2])
random.seed(seed); torch.manual_seed(seed)
F=torch.nn.functional
def ri(a,b): return random.randint(a,b)
UN={"sin":torch.sin,"cos":torch.cos,"exp":lambda x: torch.exp(x.clamp(-5,5)) if False else torch.exp(x),"tanh":torch.tanh,"sigmoid":torch.sigmoid,"abs":torch.abs,"relu":torch.relu,"square":torch.square,"neg":torch.neg,"atan":torch.atan,"sinh":torch.sinh,"erf":torch.erf,"expm1":torch.expm1,"asinh":torch.asinh,"gelu":F.gelu,"silu":F.silu,"softplus":F.softplus}
POS={"sqrt":torch.sqrt,"log":torch.log,"reciprocal":torch.reciprocal,"log2":torch.log2,"log1p":torch.log1p,"rsqrt_like":lambda x: x.pow(-0.5)}
def step(stack):
    kind=random.random()
    i=ri(0,len(stack)-1); x=stack[i]; nd=x.dim()
    if kind<0.2:
        n=random.choice(list(UN)); return (n,[i],[]), UN[n](x)
    if kind<0.27:
        n=random.choice(list(POS)); return ("pos_"+n,[i],[]), POS[n](x.abs()+0.5)
    if kind<0.45:
        j=ri(0,len(stack)-1); y=stack[j]
        n=random.choice(["add","sub","mul","div","maximum","minimum","pow","where"])
        if n=="div": return (n,[i,j],[]), x/(y.abs()+0.5)
        if n=="pow": return (n,[i,j],[]), (x.abs()+0.5).pow(y.clamp(-2,2)) if False else (x.abs()+0.5).pow(torch.tanh(y))
        if n=="where": return (n,[i,j],[]), torch.where(x>0,x,y)
        return (n,[i,j],[]), getattr(torch,n)(x,y)
    if kind<0.62 and nd>=1:
        n=random.choice(["transpose","permute","unsqueeze","squeeze","expand","narrow","flip","slice","reshape","diagonal","contiguous","t_reshape"])
        if n=="transpose" and nd>=2: a,b=ri(-nd,nd-1),ri(-nd,nd-1); return (n,[i],[a,b]), x.transpose(a,b)
        if n=="permute": p=list(range(nd)); random.shuffle(p); return (n,[i],[",".join(map(str,p))]), x.permute(p)
        if n=="unsqueeze": a=ri(-nd-1,nd); return (n,[i],[a]), x.unsqueeze(a)
        if n=="squeeze":
            ds=[d for d in range(nd) if x.shape[d]==1]
            if ds: d=random.choice(ds); return (n,[i],[d]), x.squeeze(d)
        if n=="expand":
            ds=[d for d in range(nd) if x.shape[d]==1]
            if ds:
                sh=list(x.shape)
                for d in ds: sh[d]=ri(1,3)
                if random.random()<0.3: sh=[ri(1,2)]+sh
                return (n,[i],[",".join(map(str,sh))]), x.expand(sh)
        if n=="narrow":
            d=ri(0,nd-1); L=x.shape[d]
            if L>=1: s=ri(0,L-1); l=ri(1,L-s); return (n,[i],[d,s,l]), x.narrow(d,s,l)
        if n=="flip": d=ri(0,nd-1); return (n,[i],[d]), x.flip([d])
        if n=="slice":
            d=ri(0,nd-1); L=x.shape[d]; st=ri(1,3); s=ri(0,max(L-1,0))
            if L>0: return (n,[i],[d,s,L,st]), x.narrow(d,s,L-s)[(slice(None),)*d+(slice(None,None,st),)]
        if n=="reshape": return (n,[i],[x.numel()]), x.reshape(x.numel())
        if n=="t_reshape" and nd>=2: return (n,[i],[]), x.transpose(0,1).reshape(-1)
        if n=="diagonal" and nd>=2: o=ri(-1,1); return (n,[i],[o]), torch.linalg.diagonal(x,offset=o)
        if n=="contiguous": return (n,[i],[]), x.contiguous()
        return None
    if kind<0.8 and nd>=1:
        n=random.choice(["sum","mean","max","min","var","std","logsumexp","norm2","norm3","prod","cumsum","cumprod","softmax","log_softmax","amax_all"])
        axs=sorted(set(ri(0,nd-1) for _ in range(ri(1,nd)))); kd=random.random()<0.5
        if n=="sum": return (n,[i],[",".join(map(str,axs)),int(kd)]), x.sum(axs,keepdim=kd)
        if n=="mean": return (n,[i],[",".join(map(str,axs)),int(kd)]), x.mean(axs,keepdim=kd)
        if n in ("max","min"): return (n,[i],[",".join(map(str,axs)),int(kd)]), (x.amax if n=="max" else x.amin)(axs,keepdim=kd)
        if n in ("var","std"):
            c=ri(0,1); m=1
            for a in axs: m*=x.shape[a]
            if m>c+1: return (n,[i],[",".join(map(str,axs)),int(kd),c]), getattr(x,n)(axs,correction=c,keepdim=kd)
            return None
        if n=="logsumexp": return (n,[i],[",".join(map(str,axs)),int(kd)]), x.logsumexp(axs,keepdim=kd)
        if n in ("norm2","norm3"): p=2 if n=="norm2" else 3; return (n,[i],[",".join(map(str,axs)),int(kd)]), torch.linalg.vector_norm(x,p,dim=axs,keepdim=kd)
        if n=="prod" and x.numel()<30: a=axs[0]; return (n,[i],[a,int(kd)]), x.prod(a,keepdim=kd)
        if n=="cumsum": a=axs[0]; return (n,[i],[a]), x.cumsum(a)
        if n=="cumprod" and x.numel()<30: a=axs[0]; return (n,[i],[a]), x.cumprod(a)
        if n in ("softmax","log_softmax"): a=axs[0]; return (n,[i],[a]), getattr(x,n)(a)
        if n=="amax_all": return (n,[i],[]), x.amax()
        return None
    if kind<0.9:
        n=random.choice(["matmul","concat","stack","pad","roll","repeat","index_select","gather","clip","cast"])
        if n=="matmul":
            j=ri(0,len(stack)-1); y=stack[j]
            if nd>=1 and y.dim()>=1:
                k=x.shape[-1]
                yy=y
                if y.dim()>=2 and y.shape[-2]==k: return (n,[i,j],[]), x@y
                if y.dim()==1 and y.shape[0]==k: return (n,[i,j],[]), x@y
            return None
        if n in ("concat","stack") and nd>=1:
            j=ri(0,len(stack)-1); y=stack[j]
            if y.shape==x.shape: a=ri(0,nd-1) if n=="concat" else ri(0,nd); return (n,[i,j],[a]), (torch.cat if n=="concat" else torch.stack)([x,y],a)
            return None
        if n=="pad" and nd>=1:
            pads=[(ri(0,2),ri(0,2)) for _ in range(nd)]
            flat=[]
            for b,a in reversed(pads): flat+=[b,a]
            return (n,[i],[",".join(f"{b},{a}" for b,a in pads)]), F.pad(x,flat,value=0.5)
        if n=="roll" and nd>=1: s=ri(-3,3); a=ri(0,nd-1); return (n,[i],[s,a]), x.roll(s,a)
        if n=="repeat" and nd>=1: r=[ri(1,2) for _ in range(nd)]; return (n,[i],[",".join(map(str,r))]), x.repeat(*r)
        if n=="index_select" and nd>=1:
            a=ri(0,nd-1); L=x.shape[a]
            if L: idx=[ri(0,L-1) for _ in range(ri(1,4))]; return (n,[i],[a,",".join(map(str,idx))]), x.index_select(a,torch.tensor(idx))
        if n=="gather" and nd>=1:
            a=ri(0,nd-1); L=x.shape[a]
            if L:
                sh=list(x.shape); sh[a]=ri(1,3); idx=torch.randint(0,L,sh)
                return (n,[i],[a,",".join(map(str,sh)),",".join(map(str,idx.flatten().tolist()))]), x.gather(a,idx)
        if n=="clip": return (n,[i],[]), x.clamp(-0.7,0.9)
        if n=="cast": return (n,[i],[]), x.float().sin().double()
        return None
    return None
inputs={}; refs={}; progs=[]
for p in range(NP):
    nl=ri(1,3)
    leaves=[]
    for l in range(nl):
        sh=[ri(1,4) for _ in range(ri(0,3))]
        t=torch.randn(sh).requires_grad_(True); leaves.append(t); inputs[f"p{p}_x{l}"]=t.detach().numpy()
    stack=list(leaves); lines=[]
    for s in range(ri(1,10)):
        try:
            r=step(stack)
        except Exception as e:
            r=None
        if r is None: continue
        (op,ins,params),out=r
        if out.numel()>2000 or out.dim()>5: continue
        stack.append(out); lines.append("|".join([op,",".join(map(str,ins))]+[str(v) for v in params]))
    if not lines: continue
    y=stack[-1]; w=torch.randn(y.shape); inputs[f"p{p}_w"]=w.numpy()
    (y*w).sum().backward()
    for l,t in enumerate(leaves): refs[f"p{p}_g{l}"]=(t.grad if t.grad is not None else torch.zeros_like(t)).numpy()
    progs.append((p,nl,lines))
np.savez("/tmp/gf/in.npz",**inputs); np.savez("/tmp/gf/ref.npz",**refs)
with open("/tmp/gf/progs.txt","w") as f:
    for p,nl,lines in progs: f.write(f"#{p} {nl}\n"+"\n".join(lines)+"\n")
print(len(progs),"programs")
