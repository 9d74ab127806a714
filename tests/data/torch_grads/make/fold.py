# PyTorch 2.15's F.unfold and F.fold on deterministic inputs, for tests/all/core_ops.rs
# (`fold_and_unfold_match_pytorch`): writes tests/data/torch_grads/fold.npz.
import torch, numpy as np, sys
import torch.nn.functional as F
torch.set_default_dtype(torch.float64)
out={}
x=torch.arange(2*3*5*6.).reshape(2,3,5,6)/10-1; out["x"]=x.numpy()
cases=[((2,3),1,0,1),((3,2),(2,1),(1,0),(1,2)),((2,2),2,1,1),((1,1),1,0,1)]
for i,(k,s,p,d) in enumerate(cases):
    u=F.unfold(x,k,dilation=d,padding=p,stride=s); out[f"unfold{i}"]=u.numpy()
    f=F.fold(u,(5,6),k,dilation=d,padding=p,stride=s); out[f"fold{i}"]=f.numpy()
# fold with an output larger than the windows cover (uncovered rows/columns stay 0)
c=torch.arange(1*4*6.).reshape(1,4,6)/7; out["c"]=c.numpy()
out["fold_gap"]=F.fold(c,(5,8),(2,2),stride=(2,3)).numpy()
np.savez(sys.argv[1],**out)
