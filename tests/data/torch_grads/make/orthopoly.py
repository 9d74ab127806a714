# PyTorch 2.15's torch.special orthogonal polynomials on a grid of x (edges at ±1, 0, NaN,
# ±inf) and degrees (negative, fractional, the closed-form thresholds 6 and 8), for
# tests/all/special.rs (`orthogonal_polynomials_match_pytorch`): writes
# tests/data/torch_grads/orthopoly.npz (x, n, and one array per function, float64).
import torch, numpy as np, sys
xs=[-3.0,-1.5,-1.0,-0.999,-0.7,-0.5,-0.1,0.0,1e-3,0.25,0.5,0.9,1.0,1.0000001,1.7,4.0,np.nan,np.inf,-np.inf]
ns=[-3,-1,0,1,2,3,5,6,7,8,9,10,15,30,100.7,-0.5]
X=np.array([x for x in xs for n in ns]); N=np.array([float(n) for x in xs for n in ns])
out={"x":X,"n":N}
for name in ["chebyshev_polynomial_t","chebyshev_polynomial_u","chebyshev_polynomial_v","chebyshev_polynomial_w",
             "shifted_chebyshev_polynomial_t","shifted_chebyshev_polynomial_u","shifted_chebyshev_polynomial_v",
             "shifted_chebyshev_polynomial_w","hermite_polynomial_h","hermite_polynomial_he",
             "laguerre_polynomial_l","legendre_polynomial_p"]:
    out[name]=getattr(torch.special,name)(torch.from_numpy(X),torch.from_numpy(N)).numpy()
np.savez(sys.argv[1],**out)
