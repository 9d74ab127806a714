# Random single-op cases (with optional strided/broadcast views of the leaves before the op and
# an element-wise op after) for the ops gen.py does not reach: NN functions, combiners, products,
# linalg, sort/topk, scalar forms.
import torch, numpy as np, random, sys
torch.set_default_dtype(torch.float64)
seed=int(sys.argv[1]); NP=int(sys.argv[2]); OUT=sys.argv[3] if len(sys.argv)>3 else "/tmp/gf2"
random.seed(seed); torch.manual_seed(seed)
F=torch.nn.functional
ri=random.randint
J=lambda v: ",".join(map(str,v))

class Prog:
    def __init__(s): s.leaves=[]; s.stack=[]; s.lines=[]; s.leafpos=[]
    def leaf(s, shape):
        """A tensor of `shape` for the op: a leaf, or a view of one (transposed, stepped, expanded)."""
        nd=len(shape); r=random.random()
        if nd>=2 and r<0.2:
            sh=list(shape); sh[-1],sh[-2]=sh[-2],sh[-1]
            i=s._new(sh); return s.emit("transpose",[i],[nd-2,nd-1],s.stack[i].transpose(-1,-2))
        if nd>=1 and r<0.35:
            d=ri(0,nd-1); sh=list(shape); sh[d]=2*shape[d]
            i=s._new(sh); x=s.stack[i]
            return s.emit("slice",[i],[d,0,sh[d],2],x[(slice(None),)*d+(slice(None,None,2),)])
        if nd>=1 and r<0.45:
            d=ri(0,nd-1); sh=list(shape); sh[d]=1
            i=s._new(sh); return s.emit("expand",[i],[J(shape)],s.stack[i].expand(shape))
        return s._new(shape)
    def _new(s, sh):
        t=torch.randn(sh)
        if getattr(s,"rounded",False): t=torch.round(t*3)  # integers: kinks hit exactly
        t.requires_grad_(True); s.leaves.append(t); s.stack.append(t)
        s.leafpos.append(len(s.stack)-1); return len(s.stack)-1
    def emit(s, op, ins, params, out):
        s.lines.append("|".join([op,J(ins)]+[str(p) for p in params])); s.stack.append(out); return len(s.stack)-1

def case(P):
    k=random.choice(OPS); return k(P)

def conv2d(P):
    g=ri(1,2); ci=ri(1,2); co=ri(1,2); N=ri(1,2); H=ri(3,6); W=ri(3,6)
    kh,kw=ri(1,3),ri(1,3); s=(ri(1,2),ri(1,2)); p=(ri(0,1),ri(0,1)); d=(ri(1,2),ri(1,2))
    if (H+2*p[0]-d[0]*(kh-1)-1)<0 or (W+2*p[1]-d[1]*(kw-1)-1)<0: return None
    x=P.leaf([N,g*ci,H,W]); w=P.leaf([g*co,ci,kh,kw]); ins=[x,w]
    b=P.leaf([g*co]) if random.random()<0.5 else None
    if b is not None: ins.append(b)
    out=F.conv2d(P.stack[x],P.stack[w],None if b is None else P.stack[b],s,p,d,g)
    return P.emit("conv2d",ins,[J(s),J(p),J(d),g],out)
def conv1d(P):
    g=ri(1,2); ci=ri(1,2); co=ri(1,2); N=ri(1,2); L=ri(3,7); k=ri(1,3); s=ri(1,2); p=ri(0,1); d=ri(1,2)
    if L+2*p-d*(k-1)-1<0: return None
    x=P.leaf([N,g*ci,L]); w=P.leaf([g*co,ci,k]); ins=[x,w]
    b=P.leaf([g*co]) if random.random()<0.5 else None
    if b is not None: ins.append(b)
    out=F.conv1d(P.stack[x],P.stack[w],None if b is None else P.stack[b],s,p,d,g)
    return P.emit("conv1d",ins,[s,p,d,g],out)
def pool(P):
    kh,kw=ri(1,3),ri(1,3); s=(ri(1,3),ri(1,3)); p=(ri(0,kh//2),ri(0,kw//2))
    x=P.leaf([ri(1,2),ri(1,2),ri(kh,6),ri(kw,6)])
    n=random.choice(["max_pool2d","avg_pool2d"])
    return P.emit(n,[x],[J((kh,kw)),J(s),J(p)],getattr(F,n)(P.stack[x],(kh,kw),s,p))
def layer_norm(P):
    sh=[ri(1,4) for _ in range(ri(1,3))]; k=ri(1,len(sh)); ns=sh[-k:]
    if np.prod(ns)<2: return None
    x=P.leaf(sh); fl=random.choice(["00","10","11"]); ins=[x]
    w=P.leaf(ns) if fl[0]=="1" else None; b=P.leaf(ns) if fl[1]=="1" else None
    ins+= [i for i in (w,b) if i is not None]
    out=F.layer_norm(P.stack[x],ns,None if w is None else P.stack[w],None if b is None else P.stack[b],1e-5)
    return P.emit("layer_norm",ins,[J(ns),fl],out)
def rms_norm(P):
    sh=[ri(1,4) for _ in range(ri(1,3))]; k=ri(1,len(sh)); ns=sh[-k:]
    x=P.leaf(sh); fl=random.choice(["0","1"]); ins=[x]
    w=P.leaf(ns) if fl=="1" else None
    if w is not None: ins.append(w)
    out=F.rms_norm(P.stack[x],ns,None if w is None else P.stack[w],1e-6)
    return P.emit("rms_norm",ins,[J(ns),fl],out)
RED=["mean","sum","none"]
def xent(P):
    N=ri(1,4); C=ri(1,5); extra=[ri(1,3) for _ in range(ri(0,1))]
    x=P.leaf([N,C]+extra); t=torch.randint(0,C,[N]+extra); r=random.choice(RED)
    n=random.choice(["cross_entropy","cross_entropy_ls","nll_loss"])
    if n=="nll_loss": out=F.nll_loss(P.stack[x],t,reduction=r)
    else: out=F.cross_entropy(P.stack[x],t,reduction=r,label_smoothing=0.1 if n.endswith("ls") else 0.0)
    return P.emit(n,[x],[J([N]+extra),J(t.flatten().tolist()),r],out)
def pairloss(P):
    sh=[ri(1,3) for _ in range(ri(0,3))]; x=P.leaf(sh); y=P.leaf(sh); r=random.choice(RED)
    n=random.choice(["mse_loss","bce_logits"])
    f=F.mse_loss if n=="mse_loss" else F.binary_cross_entropy_with_logits
    return P.emit(n,[x,y],[r],f(P.stack[x],P.stack[y],reduction=r))
def linear(P):
    i,o=ri(1,4),ri(1,4); sh=[ri(1,3) for _ in range(ri(0,2))]+[i]
    x=P.leaf(sh); w=P.leaf([o,i]); ins=[x,w]
    b=P.leaf([o]) if random.random()<0.5 else None
    if b is not None: ins.append(b)
    return P.emit("linear",ins,[],F.linear(P.stack[x],P.stack[w],None if b is None else P.stack[b]))
def embedding(P):
    V,Dm=ri(1,5),ri(1,3); w=P.leaf([V,Dm]); sh=[ri(1,3) for _ in range(ri(1,2))]; idx=torch.randint(0,V,sh)
    return P.emit("embedding",[w],[J(sh),J(idx.flatten().tolist())],F.embedding(idx,P.stack[w]))
def act(P):
    x=P.leaf([ri(1,4) for _ in range(ri(0,3))]); n=random.choice(["leaky_relu","elu","gelu_tanh"])
    if n=="leaky_relu": a=random.choice([0.01,0.2]); return P.emit(n,[x],[a],F.leaky_relu(P.stack[x],a))
    if n=="elu": a=random.choice([1.0,0.5]); return P.emit(n,[x],[a],F.elu(P.stack[x],a))
    return P.emit(n,[x],[],F.gelu(P.stack[x],approximate="tanh"))
def pieces(P):
    sh=[ri(1,5) for _ in range(ri(1,3))]; x=P.leaf(sh); a=ri(0,len(sh)-1); L=sh[a]
    if random.random()<0.5:
        n=ri(1,4); ps=torch.chunk(P.stack[x],n,a); k=ri(0,len(ps)-1)
        return P.emit("chunk",[x],[n,a,k],ps[k])
    sizes=[]; rem=L
    while rem>0: v=ri(1,rem); sizes.append(v); rem-=v
    ps=torch.split(P.stack[x],sizes,a); k=ri(0,len(ps)-1)
    return P.emit("split",[x],[J(sizes),a,k],ps[k])
def tiles(P):
    sh=[ri(1,3) for _ in range(ri(1,3))]; x=P.leaf(sh)
    if random.random()<0.5:
        reps=[ri(1,2) for _ in range(ri(1,4))]; return P.emit("tile",[x],[J(reps)],torch.tile(P.stack[x],reps))
    n=ri(1,3); a=ri(0,len(sh)-1); return P.emit("repeat_interleave",[x],[n,a],P.stack[x].repeat_interleave(n,a))
def tri(P):
    sh=[ri(1,3) for _ in range(ri(0,1))]+[ri(1,4),ri(1,4)]; x=P.leaf(sh); k=ri(-2,2)
    n=random.choice(["tril","triu"]); return P.emit(n,[x],[k],getattr(torch,n)(P.stack[x],k))
def diags(P):
    n=random.choice(["diag1","diag2","diag_embed"]); k=ri(-2,2)
    if n=="diag1": x=P.leaf([ri(1,4)]); return P.emit("diag",[x],[k],torch.diag(P.stack[x],k))
    if n=="diag2":
        x=P.leaf([ri(1,4),ri(1,4)])
        return P.emit("diag",[x],[k],torch.diag(P.stack[x],k))
    x=P.leaf([ri(1,3) for _ in range(ri(1,2))]); return P.emit("diag_embed",[x],[],torch.diag_embed(P.stack[x]))
def take(P):
    sh=[ri(1,4) for _ in range(ri(1,3))]; x=P.leaf(sh); a=ri(0,len(sh)-1)
    ish=[ri(1,3) for _ in range(ri(0,2))]; idx=torch.randint(0,sh[a],ish)
    out=P.stack[x].index_select(a,idx.flatten()).reshape(sh[:a]+ish+sh[a+1:])
    return P.emit("take",[x],[a,J(ish),J(idx.flatten().tolist())],out)
def scatter(P):
    sh=[ri(1,4) for _ in range(ri(1,3))]; a=ri(0,len(sh)-1)
    ish=[ri(1,d) for d in sh]; ish[a]=ri(1,4)
    x=P.leaf(sh); s=P.leaf(ish); idx=torch.randint(0,sh[a],ish)
    return P.emit("scatter_add",[x,s],[a,J(ish),J(idx.flatten().tolist())],P.stack[x].scatter_add(a,idx,P.stack[s]))
def masked(P):
    sh=[ri(1,4) for _ in range(ri(0,3))]; x=P.leaf(sh); m=torch.rand(sh)<0.4
    return P.emit("masked_fill",[x],[J(m.flatten().int().tolist())],P.stack[x].masked_fill(m,0.25))
def products(P):
    n=random.choice(["dot","outer","vecdot","tensordot"])
    if n=="dot": k=ri(1,5); x=P.leaf([k]); y=P.leaf([k]); return P.emit(n,[x,y],[],torch.dot(P.stack[x],P.stack[y]))
    if n=="outer": x=P.leaf([ri(1,4)]); y=P.leaf([ri(1,4)]); return P.emit(n,[x,y],[],torch.outer(P.stack[x],P.stack[y]))
    if n=="vecdot":
        k=ri(1,4); a=[ri(1,3) for _ in range(ri(0,2))]; b=[1 if random.random()<0.3 else v for v in a]
        x=P.leaf(a+[k]); y=P.leaf(b+[k]); return P.emit(n,[x,y],[],torch.linalg.vecdot(P.stack[x],P.stack[y]))
    sa=[ri(1,3) for _ in range(ri(1,3))]; na=ri(0,len(sa)); ax_a=random.sample(range(len(sa)),na)
    sb=[ri(1,3) for _ in range(ri(0,2))]; ax_b=[]
    for d in ax_a: sb.insert(ri(0,len(sb)),None)
    pos=[i for i,v in enumerate(sb) if v is None]; random.shuffle(pos)
    for d,pb in zip(ax_a,pos): sb[pb]=sa[d]; ax_b.append(pb)
    x=P.leaf(sa); y=P.leaf(sb)
    return P.emit(n,[x,y],[J(ax_a),J(ax_b)],torch.tensordot(P.stack[x],P.stack[y],dims=(ax_a,ax_b)))
def linalg(P):
    n=random.choice(["inverse","solve","solve_vec","pinv"]); k=ri(1,4); bt=[ri(1,2) for _ in range(ri(0,1))]
    if n=="pinv":
        x=P.leaf(bt+[ri(1,4),ri(1,4)]); return P.emit(n,[x],[],torch.linalg.pinv(P.stack[x]))
    a=P.leaf(bt+[k,k]); A=P.stack[a]+3*torch.eye(k)
    if n=="inverse": return P.emit(n,[a],[],torch.linalg.inv(A))
    if n=="solve": b=P.leaf(bt+[k,ri(1,3)]); return P.emit(n,[a,b],[],torch.linalg.solve(A,P.stack[b]))
    if bt: return None
    b=P.leaf([k]); return P.emit("solve",[a,b],[],torch.linalg.solve(A,P.stack[b]))
def sorts(P):
    sh=[ri(1,5) for _ in range(ri(1,3))]; x=P.leaf(sh); a=ri(0,len(sh)-1)
    if random.random()<0.5: d=ri(0,1); return P.emit("sort_v",[x],[a,d],torch.sort(P.stack[x],dim=a,descending=bool(d),stable=True)[0])
    k=ri(0,sh[a]); return P.emit("topk_v",[x],[k,a],torch.topk(P.stack[x],k,a)[0])
def scalars(P):
    x=P.leaf([ri(1,3) for _ in range(ri(0,3))]); X=P.stack[x]
    n=random.choice(["add_s","sub_s","mul_s","div_s","rsub_s","rdiv_s","maximum_s","minimum_s","pow_s"])
    v=round(random.uniform(-2,2),3)
    f={"add_s":lambda:X+v,"sub_s":lambda:X-v,"mul_s":lambda:X*v,"div_s":lambda:X/(v if abs(v)>0.1 else 0.5),
       "rsub_s":lambda:v-X,"rdiv_s":lambda:v/(X.abs()+0.5),"maximum_s":lambda:torch.clamp_min(X,v),
       "minimum_s":lambda:torch.clamp_max(X,v),"pow_s":lambda:(X.abs()+0.5)**v}[n]
    if n=="div_s" and abs(v)<=0.1: v=0.5
    return P.emit(n,[x],[v],f())
EINSUM=[("ij,jk->ik",[(2,3),(3,4)]),("ii->i",[(3,3)]),("ii",[(3,3)]),("ij->",[(2,3)]),("i,j->ij",[(3,),(2,)]),
    ("bij,bjk->bik",[(2,2,3),(2,3,2)]),("...ij,...jk",[(2,2,3),(3,2)]),("iij->j",[(2,2,3)]),("ij,ij->i",[(1,3),(4,3)]),
    ("ij,jk,kl->il",[(2,3),(3,2),(2,2)]),("bhqd,bhkd->bhqk",[(1,2,3,2),(1,2,2,2)]),("ijk->kij",[(2,3,2)])]
def extra(P):
    n=random.choice(["logaddexp","lerp","nan_to_num","quantile","median","diff","kron","cross","trace","movedim","meshgrid","broadcast_tensors","einsum","einsum","det","slogdet","cholesky"])
    if n=="cholesky":
        # A positive-definite input: x xᵀ + k I.
        k=ri(1,4); up=ri(0,1); x=P.leaf([ri(1,2) for _ in range(ri(0,1))]+[k,k]); X=P.stack[x]
        return P.emit(n,[x],[up],torch.linalg.cholesky(X@X.mT+k*torch.eye(k),upper=bool(up)))
    if n in ("det","slogdet"):
        # slogdet of a singular matrix (an expanded leaf can be one) has no gradient here.
        k=ri(1,4); sh=[ri(1,2) for _ in range(ri(0,1))]+[k,k]; x=P.leaf(sh) if n=="det" else P._new(sh)
        if n=="det": return P.emit(n,[x],[],torch.linalg.det(P.stack[x]))
        return P.emit(n,[x],[],torch.linalg.slogdet(P.stack[x]).logabsdet)
    if n=="einsum":
        eq,shapes=random.choice(EINSUM)
        ins=[P.leaf(list(sh)) for sh in shapes]
        return P.emit(n,ins,[eq],torch.einsum(eq,*[P.stack[i] for i in ins]))
    sh=[ri(1,4) for _ in range(ri(1,3))]; nd=len(sh)
    if n in ("logaddexp","lerp","broadcast_tensors"):
        sb=[1 if random.random()<0.3 else d for d in sh][ri(0,nd-1):]
        x=P.leaf(sh); y=P.leaf(sb); X,Y=P.stack[x],P.stack[y]
        if n=="logaddexp": return P.emit(n,[x,y],[],torch.logaddexp(X,Y))
        if n=="lerp": w=round(random.uniform(-1,2),3); return P.emit(n,[x,y],[w],torch.lerp(X,Y,w))
        k=ri(0,1); return P.emit(n,[x,y],[k],torch.broadcast_tensors(X,Y)[k])
    if n=="nan_to_num": x=P.leaf(sh); return P.emit(n,[x],[],torch.nan_to_num(P.stack[x]))
    if n=="quantile":
        x=P.leaf(sh); a=ri(0,nd-1); q=random.choice([0.0,0.3,0.5,0.75,1.0]); kd=ri(0,1)
        return P.emit(n,[x],[q,a,kd],torch.quantile(P.stack[x],q,dim=a,keepdim=bool(kd)))
    if n=="median":
        # A plain leaf: PyTorch 2.15's median of a stride-0 (expanded) input has a wrong
        # gradient (it drops the chain rule's factor), which the contiguous copy does not.
        x=P._new(sh); a=ri(0,nd-1); kd=ri(0,1)
        return P.emit(n,[x],[a,kd],torch.median(P.stack[x],a,keepdim=bool(kd)).values)
    if n=="diff":
        x=P.leaf(sh); a=ri(0,nd-1); k=ri(0,3); return P.emit(n,[x],[k,a],torch.diff(P.stack[x],k,a) if k else P.stack[x]*1)
    if n=="kron":
        x=P.leaf(sh); y=P.leaf([ri(1,3) for _ in range(ri(1,3))]); return P.emit(n,[x,y],[],torch.kron(P.stack[x],P.stack[y]))
    if n=="cross":
        sh[-1]=3; x=P.leaf(sh); y=P.leaf(sh[ri(0,nd-1):]); return P.emit(n,[x,y],[],torch.linalg.cross(P.stack[x],P.stack[y]))
    if n=="trace": x=P.leaf([ri(1,4),ri(1,4)]); return P.emit(n,[x],[],torch.trace(P.stack[x]))
    if n=="movedim":
        x=P.leaf(sh); k=ri(1,nd); src=random.sample(range(nd),k); dst=random.sample(range(nd),k)
        return P.emit(n,[x],[J(src),J(dst)],torch.movedim(P.stack[x],src,dst))
    x=P.leaf([ri(1,3)]); y=P.leaf([ri(1,3)]); k=ri(0,1); ij=random.choice(["ij","xy"])
    return P.emit(n,[x,y],[k,ij],torch.meshgrid(P.stack[x],P.stack[y],indexing=ij)[k])
def nn2(P):
    n=random.choice(["hardtanh","relu6","hardsigmoid","hardswish","mish","selu","celu","logsigmoid","softsign","glu",
        "l1_loss","smooth_l1_loss","huber_loss","kl_div","batch_norm","group_norm","adaptive_avg_pool2d","normalize","cosine_similarity"])
    sh=[ri(1,4) for _ in range(ri(1,3))]; nd=len(sh)
    if n in ("hardtanh","relu6","hardsigmoid","hardswish","mish","selu","celu","logsigmoid","softsign"):
        # Integer-valued leaves half the time, so the kinks (0, ±1, ±3, 6) are hit exactly.
        P.rounded=random.random()<0.5; x=P.leaf(sh); X=P.stack[x]
        if n=="hardtanh": lo,hi=random.choice([(-1.0,1.0),(-2.0,0.5)]); return P.emit(n,[x],[lo,hi],F.hardtanh(X,lo,hi))
        if n=="celu": a=random.choice([1.0,0.5,2.0]); return P.emit(n,[x],[a],F.celu(X,a))
        return P.emit(n,[x],[],getattr(F,n)(X))
    if n=="glu":
        sh[-1]=2*ri(1,2); x=P.leaf(sh); a=ri(0,nd-1)
        if sh[a]%2: a=nd-1
        return P.emit(n,[x],[a],F.glu(P.stack[x],a))
    if n in ("l1_loss","smooth_l1_loss","huber_loss","kl_div"):
        x=P.leaf(sh); y=P.leaf(sh); r=random.choice(RED); X,Y=P.stack[x],P.stack[y]
        if n=="l1_loss": return P.emit(n,[x,y],[r],F.l1_loss(X,Y,reduction=r))
        if n=="smooth_l1_loss": b=random.choice([1.0,0.5,0.0]); return P.emit(n,[x,y],[r,b],F.smooth_l1_loss(X,Y,reduction=r,beta=b))
        if n=="huber_loss": d=random.choice([1.0,0.5,2.0]); return P.emit(n,[x,y],[r,d],F.huber_loss(X,Y,reduction=r,delta=d))
        lt=ri(0,1)
        T_=Y if lt else Y.abs()+0.1
        return P.emit(n,[x,y],[r,lt],F.kl_div(X,T_,reduction=r,log_target=bool(lt)))
    if n=="batch_norm":
        c=ri(1,3); shp=[ri(2,3),c]+[ri(1,3) for _ in range(ri(0,2))]; x=P.leaf(shp); tr=ri(0,1); aff=ri(0,1)
        # Plain leaves for the affine parameters: PyTorch 2.15's eval-mode batch_norm reads a
        # strided weight as if contiguous in its input gradient.
        ins=[x]+([P._new([c]),P._new([c])] if aff else [])
        rm=torch.arange(c)*0.1; rv=1+torch.arange(c)*0.2
        w,b=(P.stack[ins[1]],P.stack[ins[2]]) if aff else (None,None)
        return P.emit(n,ins,[tr],F.batch_norm(P.stack[x],rm,rv,w,b,training=bool(tr),momentum=0.1,eps=1e-5))
    if n=="group_norm":
        g=ri(1,2); c=g*ri(1,2); shp=[ri(1,2),c]+[ri(1,3) for _ in range(ri(0,2))]; x=P.leaf(shp); aff=ri(0,1)
        ins=[x]+([P.leaf([c]),P.leaf([c])] if aff else [])
        w,b=(P.stack[ins[1]],P.stack[ins[2]]) if aff else (None,None)
        return P.emit(n,ins,[g],F.group_norm(P.stack[x],g,w,b,1e-5))
    if n=="adaptive_avg_pool2d":
        x=P.leaf([ri(1,2),ri(1,2),ri(1,6),ri(1,6)]); o=(ri(1,4),ri(1,4))
        return P.emit(n,[x],[J(o)],F.adaptive_avg_pool2d(P.stack[x],o))
    if n=="normalize":
        x=P.leaf(sh); a=ri(0,nd-1); p=random.choice([1.0,2.0,3.0]); return P.emit(n,[x],[p,a],F.normalize(P.stack[x],p,a))
    x=P.leaf(sh); y=P.leaf(sh[ri(0,nd-1):]); a=-1
    return P.emit(n,[x,y],[],F.cosine_similarity(P.stack[x],P.stack[y],dim=-1))
OPS=[nn2]*int(__import__("os").environ.get("NN2_ONLY","0")) or [extra]*int(__import__("os").environ.get("EXTRA_ONLY","0")) or [extra,extra,conv2d,conv1d,pool,pool,layer_norm,rms_norm,xent,xent,pairloss,linear,embedding,act,pieces,tiles,tri,diags,take,scatter,masked,products,products,linalg,linalg,sorts,scalars,scalars]
inputs={}; refs={}; progs=[]
for p in range(NP):
    P=Prog()
    try: r=case(P)
    except Exception as e: print("skip",e); r=None
    if r is None or not P.lines: continue
    if random.random()<0.3 and P.stack[-1].dim()>0:
        P.emit("sin",[len(P.stack)-1],[],P.stack[-1].sin())
    y=P.stack[-1]; w=torch.randn(y.shape)
    (y*w).sum().backward()
    for l,t in enumerate(P.leaves):
        inputs[f"p{p}_x{l}"]=t.detach().numpy()
        refs[f"p{p}_g{l}"]=(t.grad if t.grad is not None else torch.zeros_like(t)).numpy()
    inputs[f"p{p}_w"]=w.numpy()
    # leaf indices: the program's stack holds leaves and views interleaved; renumber leaves first
    progs.append((p,P))
# Renumber: the replay puts the leaves first, then each line's result.
with open(f"{OUT}/progs.txt","w") as f:
    for p,P in progs:
        # By position: an op may return its input object itself (broadcast_tensors does).
        leafpos={i:k for k,i in enumerate(P.leafpos)}
        nl=len(P.leaves); m=dict(leafpos); k=nl
        for i in range(len(P.stack)):
            if i not in m: m[i]=k; k+=1
        f.write(f"#{p} {nl}\n")
        for line in P.lines:
            parts=line.split("|"); parts[1]=J(m[int(v)] for v in parts[1].split(","))
            f.write("|".join(parts)+"\n")
np.savez(f"{OUT}/in.npz",**inputs); np.savez(f"{OUT}/ref.npz",**refs)
print(len(progs),"programs")
