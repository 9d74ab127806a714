# PyTorch 2.15's F.fractional_max_pool2d with fixed _random_samples, for tests/all/nn_extras.rs
# (`fractional_max_pool2d_matches_pytorch`): writes tests/data/torch_grads/fractional.npz.
# f64 (2, 3, 7, 9) with NaN (two adjacent in one window), kernel (3, 2), output (4, 5): values,
# indices and the gradient of sum(nan_to_num(y) * w); f32, kernel (2, 3), output_ratio (0.5, 0.7).
import torch, torch.nn.functional as F, numpy as np, sys
g=torch.Generator().manual_seed(3)
x=torch.randn(2,3,7,9,generator=g,dtype=torch.float64)
x[0,1,2,3]=float('nan'); x[1,2,4,4]=float('nan'); x[1,2,4,5]=float('nan')
x.requires_grad_(True)
u=torch.rand(2,3,2,generator=g,dtype=torch.float64)
y,i=F.fractional_max_pool2d(x,(3,2),output_size=(4,5),_random_samples=u,return_indices=True)
w=torch.arange(y.numel(),dtype=torch.float64).reshape(y.shape)/10
(torch.nan_to_num(y)*w).sum().backward()
y32,i32=F.fractional_max_pool2d(x.detach().float(),(2,3),output_ratio=(0.5,0.7),_random_samples=u.float(),return_indices=True)
np.savez(sys.argv[1],x=x.detach().numpy(),u=u.numpy(),y=y.detach().numpy(),i=i.numpy(),w=w.numpy(),gx=x.grad.numpy(),y32=y32.numpy(),i32=i32.numpy())
