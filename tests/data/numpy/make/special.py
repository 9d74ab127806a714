# PyTorch 2.15's (and SciPy's, for trigamma and ndtri) special functions on fixed points, for
# tests/all/special.rs: writes tests/data/numpy/special.npz.
import torch, numpy as np, scipy.special as sp, sys
x=np.array([-0.0,0.0,1e-300,1e-8,0.3,1.0,1.5,2.0,3.7,9.99,10.0,25.3,150.0,1e5,-0.5,-1.0,-2.5,-3.7,-1e-8,-19.4, np.inf,-np.inf,np.nan, 700.0, 710.0, -713.0])
y=np.array([-1.0,-0.999999999,-0.7,-0.3,-1e-10,0.0,1e-10,0.2,0.5,0.51,0.9,0.999,0.9999999999,1-2**-53,1.0,1.5,np.nan])
out={"x":x,"y":y}
t=torch.from_numpy(x)
out["digamma"]=torch.digamma(t).numpy(); out["lgamma"]=torch.lgamma(t).numpy(); out["erfc"]=torch.erfc(t).numpy()
out["i0"]=torch.i0(t).numpy(); out["i1"]=torch.special.i1(t).numpy();
out["i0e"]=torch.special.i0e(t).numpy(); out["i1e"]=torch.special.i1e(t).numpy(); out["erfcx"]=torch.special.erfcx(t).numpy(); out["log_ndtr"]=torch.special.log_ndtr(t).numpy()
# ndtri on probabilities, tails included (SciPy's, which PyTorch's matches away from the tails).
p=np.array([0.0,5e-324,1e-300,1e-100,1e-20,1e-10,1e-5,0.001,0.02425,0.1,0.3,0.5,0.7,0.97575,0.999,1-1e-10,1-2**-53,1.0,-0.1,1.5,np.nan])
out["p"]=p; out["ndtri"]=sp.ndtri(p)
out["erfinv"]=torch.erfinv(torch.from_numpy(y)).numpy(); out["trigamma"]=sp.polygamma(1,x)
np.savez(sys.argv[1],**out)

