# PyTorch 2.15's conv_transpose2d and interpolate on deterministic inputs, for
# tests/all/core_ops.rs (`resample_matches_pytorch`): writes tests/data/torch_grads/resample.npz.
import torch, numpy as np, sys
import torch.nn.functional as F
torch.set_default_dtype(torch.float64)
out={}
def put(name, t): out[name]=t.detach().numpy()
x=torch.arange(1.,2*3*2*3+1).reshape(2,3,2,3)/7-1; put("x", x)
w=(torch.arange(3*4*2*3.).reshape(3,4,2,3)%5)/3-0.6; put("w", w)
b=torch.tensor([0.5,-1.,0.,2.]); put("b", b)
put("ct1", F.conv_transpose2d(x,w,b,stride=(2,1),padding=(1,0),output_padding=(1,0),dilation=(1,2)))
wg=(torch.arange(3*2*3*2.).reshape(3,2,3,2)%7)/4-0.5; put("wg", wg)
x3=torch.arange(1.,1*3*3*2+1).reshape(1,3,3,2)/5; put("x3", x3)
put("ct_groups", F.conv_transpose2d(x3,wg,None,stride=2,padding=1,groups=3))
x4=torch.arange(1.,13.).reshape(1,1,3,4)/3; put("x4", x4)
put("ct_crop", F.conv_transpose2d(x4,wg[:1],None,padding=(0,2)))
xi=torch.arange(1.,1*2*3*4+1).reshape(1,2,3,4)**1.5/10; put("xi", xi)
put("nearest", F.interpolate(xi,size=(5,3),mode="nearest"))
put("bilinear", F.interpolate(xi,size=(5,7),mode="bilinear",align_corners=False))
put("bilinear_corners", F.interpolate(xi,size=(2,7),mode="bilinear",align_corners=True))
put("bilinear_down", F.interpolate(xi,size=(1,2),mode="bilinear",align_corners=False))
np.savez(sys.argv[1], **out)
