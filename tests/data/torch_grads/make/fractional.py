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
# fractional_max_pool3d: f64 (2, 2, 5, 6, 7) with NaN, kernel (2, 3, 2), output (3, 3, 4), the
# gradient of sum(nan_to_num(y3) * w3); an unbatched f32 (2, 6, 5, 8), kernel (2, 2, 3), ratio (0.5, 0.6, 0.7).
g3=torch.Generator().manual_seed(5)
x3=torch.randn(2,2,5,6,7,generator=g3,dtype=torch.float64)
x3[0,1,2,3,4]=float('nan'); x3[1,0,0,0,0]=float('nan'); x3[1,0,0,0,1]=float('nan')
x3.requires_grad_(True)
u3=torch.rand(2,2,3,generator=g3,dtype=torch.float64)
y3,i3=F.fractional_max_pool3d(x3,(2,3,2),output_size=(3,3,4),_random_samples=u3,return_indices=True)
w3=torch.arange(y3.numel(),dtype=torch.float64).reshape(y3.shape)/10
(torch.nan_to_num(y3)*w3).sum().backward()
x4=torch.randn(2,6,5,8,generator=g3)
u4=torch.rand(1,2,3,generator=g3)
y4,i4=F.fractional_max_pool3d(x4,(2,2,3),output_ratio=(0.5,0.6,0.7),_random_samples=u4,return_indices=True)
np.savez(sys.argv[1],x=x.detach().numpy(),u=u.numpy(),y=y.detach().numpy(),i=i.numpy(),w=w.numpy(),gx=x.grad.numpy(),y32=y32.numpy(),i32=i32.numpy(),
         x3=x3.detach().numpy(),u3=u3.numpy(),y3=y3.detach().numpy(),i3=i3.numpy(),w3=w3.numpy(),gx3=x3.grad.numpy(),x4=x4.numpy(),u4=u4.numpy(),y4=y4.numpy(),i4=i4.numpy())
