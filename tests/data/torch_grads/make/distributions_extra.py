# The reference values of tests/all/distributions_extra.rs (PyTorch 2.15):
# python3 distributions_extra.py prints the Rust constants.
import torch
from torch.distributions import *
torch.set_default_dtype(torch.float64)
T = torch.tensor
def out(name, t):
    v = t.detach().reshape(-1).tolist()
    s = f"const {name}: &[f64] = &{[float(x) for x in v]!r};".replace("inf", "f64::INFINITY").replace("nan", "f64::NAN")
    print(s.replace("0.6931471805599453", "std::f64::consts::LN_2"))  # clippy's approx_constant
# GeneralizedPareto: xi > 0, xi = 0, xi = -1 (uniform), xi = -0.5, xi = 0.7
loc = T([0.1, 0.0, -1.0, 0.5, 2.0], requires_grad=True)
scale = T([2.0, 1.0, 3.0, 0.5, 1.5], requires_grad=True)
xi = T([0.4, 0.0, -1.0, -0.5, 0.7], requires_grad=True)
d = GeneralizedPareto(loc, scale, xi)
x = T([1.5, 2.0, 1.0, 1.2, 2.0])
lp = d.log_prob(x); out("GP_LP", lp)
lp.sum().backward(); out("GP_GLOC", loc.grad); out("GP_GSCALE", scale.grad); out("GP_GXI", xi.grad)
out("GP_CDF", d.cdf(x)); out("GP_ICDF", d.icdf(T([0.3, 0.5, 0.9, 0.1, 0.99])))
out("GP_ENT", d.entropy()); out("GP_MEAN", d.mean); out("GP_VAR", d.variance)
# LogisticNormal: a batch of 2 over 3 classes, gradients in both parameters
loc = T([[0.3, -0.5], [1.0, 0.2]], requires_grad=True)
scale = T([[0.8, 1.5], [0.4, 1.0]], requires_grad=True)
d = LogisticNormal(loc, scale)
v = T([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])
lp = d.log_prob(v); out("LN_LP", lp)
lp.sum().backward(); out("LN_GLOC", loc.grad); out("LN_GSCALE", scale.grad)
out("LN_LP0", LogisticNormal(T(0.4), T(1.3)).log_prob(T([0.7, 0.3])))
# Wishart: a batch of 2 over 3x3, df broadcast; gradients in df and the covariance factor
df = T([4.5, 3.2], requires_grad=True)
L = T([[1.0, 0.0, 0.0], [0.3, 0.8, 0.0], [-0.2, 0.1, 0.5]], requires_grad=True)
w = Wishart(df, scale_tril=L)
X = T([[[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 0.8]], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]])
lp = w.log_prob(X); out("W_LP", lp)
lp.sum().backward(); out("W_GDF", df.grad); out("W_GL", L.grad)
out("W_ENT", w.entropy()); out("W_MEAN", w.mean); out("W_VAR", w.variance)
P = T([[2.0, 0.5], [0.5, 1.0]])
out("W_LP_PREC", Wishart(T(2.5), precision_matrix=P).log_prob(T([[1.0, 0.2], [0.2, 0.7]])))
# LKJCholesky: dims 2 and 4, a batch of concentrations
eta = T([0.5, 1.0, 3.0], requires_grad=True)
d = LKJCholesky(4, eta)
A = T([[1.0, 0.3, -0.2, 0.1], [0.3, 1.0, 0.4, 0.0], [-0.2, 0.4, 1.0, 0.2], [0.1, 0.0, 0.2, 1.0]])
Lc = torch.linalg.cholesky(A)
lp = d.log_prob(Lc); out("LKJ_LP", lp)
lp.sum().backward(); out("LKJ_GETA", eta.grad)
out("LKJ_L", Lc)
out("LKJ_LP2", LKJCholesky(2, T(1.7)).log_prob(torch.linalg.cholesky(T([[1.0, -0.6], [-0.6, 1.0]]))))
# Modes (PyTorch's, except Weibull k < 1 and Kumaraswamy, computed from their formulas)
out("MODE_LOGNORMAL", LogNormal(T([0.3, -1.0]), T([0.8, 1.5])).mode)
out("MODE_GAMMA", Gamma(T([3.0, 0.5]), T([2.0, 1.0])).mode)
out("MODE_CHI2", Chi2(T([1.5, 6.0])).mode)
out("MODE_INVGAMMA", InverseGamma(T([3.0, 0.5]), T([2.0, 1.0])).mode)
out("MODE_POISSON", Poisson(T([0.5, 3.7])).mode)
out("MODE_BINOMIAL", Binomial(T([10., 4.]), T([0.33, 0.99])).mode)
out("MODE_NEGBIN", NegativeBinomial(T([10., 0.5]), T([0.3, 0.7])).mode)
out("MODE_BERNOULLI", Bernoulli(T([0.2, 0.5, 0.7])).mode)
out("MODE_FISHER", FisherSnedecor(T([5.0, 1.5]), T([3.0, 4.0])).mode)
out("MODE_WEIBULL", Weibull(T([2.0, 1.0]), T([3.0, 1.0])).mode)
out("MODE_DIRICHLET", Dirichlet(T([[2.0, 3.0, 1.5], [0.5, 2.0, 3.0], [0.5, 0.3, 0.9]])).mode)
out("MODE_BETA", Beta(T([2.0, 0.5, 0.5]), T([3.0, 0.7, 2.0])).mode)
out("MODE_WISHART", Wishart(T([4.5, 3.5]), scale_tril=T([[1.0, 0.0], [0.3, 0.8]])).mode)
out("MODE_ONEHOT", OneHotCategorical(T([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])).mode)
import math
a, b = 2.0, 3.0
out("MODE_KUMARASWAMY", T([((a - 1) / (a * b - 1)) ** (1 / a), float("nan")]))
