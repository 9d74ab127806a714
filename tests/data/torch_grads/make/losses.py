# PyTorch 2.15's margin and likelihood losses on fixed inputs, for tests/all/core_ops.rs
# (`more_losses_match_pytorch`): writes tests/data/torch_grads/losses.npz.
import torch, sys, numpy as np
import torch.nn.functional as F
torch.set_default_dtype(torch.float64)
out={}
def put(k,t): out[k]=t.detach().numpy()
x1=torch.tensor([[0.5,-1.2,2.0,0.3],[1.5,0.7,-0.4,-2.2],[0.0,0.9,1.1,-0.6]]); put("x1",x1)
x2=torch.tensor([[0.1,0.8,-1.3,0.6],[-0.5,0.2,1.4,0.9],[0.3,-0.7,0.2,1.8]]); put("x2",x2)
y3=torch.tensor([1.,-1.,1.]); put("y3",y3)
ypm=torch.tensor([[1.,-1.,1.,-1.],[-1.,1.,1.,-1.],[1.,1.,-1.,-1.]]); put("ypm",ypm)
y01=(ypm>0).double(); put("y01",y01)
cls=torch.tensor([2,0,3]); put("cls",cls)
for r in ["none","mean","sum"]:
    put(f"mrl_{r}", F.margin_ranking_loss(x1,x2,ypm,margin=0.3,reduction=r))
    put(f"hel_{r}", F.hinge_embedding_loss(x1,ypm,margin=0.8,reduction=r))
    put(f"cel_{r}", F.cosine_embedding_loss(x1,x2,y3,margin=0.1,reduction=r))
    put(f"tml_{r}", F.triplet_margin_loss(x1,x2,x2.flip(0),margin=0.5,p=2,reduction=r))
    put(f"tmls_{r}", F.triplet_margin_loss(x1,x2,x2.flip(0),margin=0.5,p=1,swap=True,reduction=r))
    put(f"mml1_{r}", F.multi_margin_loss(x1,cls,p=1,margin=1.0,reduction=r))
    put(f"mml2_{r}", F.multi_margin_loss(x1,cls,p=2,margin=0.5,reduction=r))
    put(f"sml_{r}", F.soft_margin_loss(x1,ypm,reduction=r))
    put(f"mlsml_{r}", F.multilabel_soft_margin_loss(x1,y01,reduction=r))
    p=torch.sigmoid(x1); put("p",p)
    put(f"bce_{r}", F.binary_cross_entropy(p,y01,reduction=r))
    put(f"pnl_{r}", F.poisson_nll_loss(x1,x2.abs()*3,log_input=True,full=False,reduction=r))
    put(f"pnlf_{r}", F.poisson_nll_loss(p,x2.abs()*3,log_input=False,full=True,reduction=r))
    var=(x2.abs()+0.1); put("var",var)
    put(f"gnl_{r}", F.gaussian_nll_loss(x1,x2,var,full=True,reduction=r))
pe=torch.tensor([0.,1.,0.,1.]); ye=torch.tensor([0.,1.,1.,0.])
put("bce_edge", F.binary_cross_entropy(pe,ye,reduction="none"))
put("gnl_small", F.gaussian_nll_loss(x1[0],x2[0],torch.tensor([1e-9,0.5,0.,2.]),reduction="none"))
np.savez(sys.argv[1],**out)
