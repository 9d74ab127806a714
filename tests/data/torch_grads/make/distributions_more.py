# The reference values of tests/all/distributions_more.rs (PyTorch 2.15, SciPy 1.17):
# python3 distributions_more.py prints the Rust constants at the end of that file.
import torch, numpy as np, scipy.stats as st, scipy.special as sp
from torch.distributions import *
from torch.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
torch.set_default_dtype(torch.float64)
T = torch.tensor
def out(name, t):
    v = t.detach().reshape(-1).tolist()
    print(f"const {name}: &[f64] = &{[float(x) for x in v]!r};".replace("inf", "f64::INFINITY").replace("nan", "f64::NAN"))
# OneHotCategorical
p = T([[0.2,0.3,0.5],[0.1,0.6,0.3]]); q = T([[0.5,0.25,0.25],[0.3,0.3,0.4]])
d = OneHotCategorical(probs=p)
out("OH_LP", d.log_prob(T([[0.,0.,1.],[1.,0.,0.]]))); out("OH_ENT", d.entropy())
out("OH_KL", kl_divergence(d, OneHotCategorical(probs=q)))
# LogitRelaxedBernoulli
d = LogitRelaxedBernoulli(T(0.7), logits=T([0.3,-1.2,2.0]))
out("LRB_LP", d.log_prob(T([0.5,-2.0,3.1])))
# RelaxedBernoulli, gradient in probs and temperature
pr = T([0.2,0.5,0.9], requires_grad=True); tp = T([0.5], requires_grad=True)
d = RelaxedBernoulli(tp, probs=pr)
lp = d.log_prob(T([0.1,0.5,0.95])); out("RB_LP", lp)
lp.sum().backward(); out("RB_GP", pr.grad); out("RB_GT", tp.grad)
# RelaxedOneHotCategorical
lg = T([[1.,0.,-1.],[0.5,0.5,2.]], requires_grad=True); tp = T(0.8, requires_grad=True)
d = RelaxedOneHotCategorical(tp, logits=lg)
lp = d.log_prob(T([[0.2,0.3,0.5],[0.6,0.3,0.1]])); out("RO_LP", lp)
lp.sum().backward(); out("RO_GL", lg.grad); out("RO_GT", tp.grad)
# NegativeBinomial
tc = T([3.,0.5,10.,0.]); pr = T([0.3,0.7,0.05,0.4])
d = NegativeBinomial(tc, probs=pr)
out("NB_LP", d.log_prob(T([0.,4.,2.,0.]))); out("NB_MEAN", d.mean); out("NB_VAR", d.variance)
tc = T([3.,0.5,10.], requires_grad=True); lg = T([-0.5,1.0,-3.0], requires_grad=True)
lp = NegativeBinomial(tc, logits=lg).log_prob(T([1.,4.,2.]))
out("NB_LP2", lp); lp.sum().backward(); out("NB_GN", tc.grad); out("NB_GL", lg.grad)
# VonMises: exact (SciPy) and PyTorch's approximation
loc = np.array([1.0,-2.0,0.3]); k = np.array([2.0,0.01,30.0]); x = np.array([1.0,3.0,-0.5])
out("VM_LP", T(st.vonmises.logpdf(x, k, loc=loc)))
out("VM_ENT", T(np.array([st.vonmises(kk).entropy() for kk in k])))
out("VM_VAR", T(1 - sp.i1e(k)/sp.i0e(k)))
out("VM_LP_TORCH", VonMises(T(loc), T(k)).log_prob(T(x)))
# MixtureSameFamily: a 1-d GMM, and a batch of 2-d GMMs of MultivariateNormals
w = T([0.3,0.7], requires_grad=True)
mu = T([-2.,2.], requires_grad=True); sd = T([1.,0.5])
g = MixtureSameFamily(Categorical(probs=w), Normal(mu, sd))
lp = g.log_prob(T([2.0,0.0,-1.5])); out("MIX_LP", lp)
lp.sum().backward(); out("MIX_GW", w.grad); out("MIX_GMU", mu.grad)
lg = T([[0.1,0.5,-0.3],[1.0,0.0,0.0]])
locs = T([[[0.,0.],[1.,2.],[-1.,1.]],[[2.,2.],[0.,-1.],[1.,0.]]])
cov = T([[1.0,0.3],[0.3,0.5]]).expand(2,3,2,2)
g = MixtureSameFamily(Categorical(logits=lg), MultivariateNormal(locs, covariance_matrix=cov))
out("MIXMV_LP", g.log_prob(T([[0.5,1.0],[1.0,-0.5]])))
out("MIXMV_MEAN", g.mean)
# Chi2
d = Chi2(T([1.,2.5,7.]))
out("CHI_LP", d.log_prob(T([0.5,2.0,9.0]))); out("CHI_ENT", d.entropy()); out("CHI_CDF", d.cdf(T([0.5,2.0,9.0])))
# InverseGamma
d = InverseGamma(T([0.5,1.5,3.]), T([1.,2.,0.5]))
out("IG_LP", d.log_prob(T([0.3,1.0,4.0]))); out("IG_ENT", d.entropy()); out("IG_MEAN", d.mean); out("IG_VAR", d.variance)
# HalfCauchy
d = HalfCauchy(T([1.,2.5,0.3]))
out("HC_LP", d.log_prob(T([0.,1.2,0.7]))); out("HC_ENT", d.entropy()); out("HC_CDF", d.cdf(T([0.,1.2,0.7]))); out("HC_ICDF", d.icdf(T([0.1,0.5,0.9])))
# Kumaraswamy
a = T([0.5,2.,5.], requires_grad=True); b = T([1.5,1.0,0.7], requires_grad=True)
d = Kumaraswamy(a, b)
lp = d.log_prob(T([0.2,0.5,0.9])); out("KU_LP", lp); out("KU_ENT", d.entropy()); out("KU_MEAN", d.mean); out("KU_VAR", d.variance)
lp.sum().backward(); out("KU_GA", a.grad); out("KU_GB", b.grad)
# Moments
lg = T([[0.1,0.5,-0.3],[1.0,0.0,0.0]])
g = MixtureSameFamily(Categorical(logits=lg), MultivariateNormal(locs, covariance_matrix=cov))
out("MIXMV_VAR", g.variance)
g = MixtureSameFamily(Categorical(probs=T([0.3,0.7])), Normal(T([-2.,2.]), T([1.,0.5])))
out("MIX_MEAN", g.mean); out("MIX_VAR", g.variance)
out("PA_MOM", torch.cat([Pareto(T([1.,2.5,0.3]), T([0.5,2.,3.5])).mean, Pareto(T([1.,2.5,0.3]), T([0.5,2.,3.5])).variance]))
w = Weibull(T([1.,2.5,0.3]), T([0.5,1.5,3.]))
out("WB_VAR", w.variance); out("HN_VAR", HalfNormal(T([1.,2.5,0.3])).variance)
# LowRankMultivariateNormal: a batch of 2, k = 3, rank 2; gradients of log_prob
import math
print("// lowrank doc:", -(3*math.log(2*math.pi) + math.log(2.25))/2)
loc = T([[0.,1.,-1.],[0.5,0.,2.]], requires_grad=True)
W = T([[[1.,0.5],[0.2,-0.3],[0.,1.]],[[0.3,0.1],[-1.,0.4],[0.5,0.5]]], requires_grad=True)
dg = T([[1.,0.5,2.],[0.3,1.5,1.]], requires_grad=True)
d = LowRankMultivariateNormal(loc, W, dg)
lp = d.log_prob(T([[0.3,0.7,-0.2],[1.,1.,1.]])); out("LR_LP", lp); out("LR_ENT", d.entropy()); out("LR_VAR", d.variance)
lp.sum().backward(); out("LR_GLOC", loc.grad); out("LR_GW", W.grad); out("LR_GD", dg.grad)
# ContinuousBernoulli (both sides of the Taylor region) and FisherSnedecor
p = T([0.2,0.5,0.4995,0.9], requires_grad=True)
d = ContinuousBernoulli(probs=p)
v = T([0.3,0.3,0.7,0.95])
lp = d.log_prob(v); out("CB_LP", lp); out("CB_ENT", d.entropy()); out("CB_MEAN", d.mean); out("CB_VAR", d.variance)
out("CB_CDF", d.cdf(v)); out("CB_ICDF", d.icdf(T([0.1,0.5,0.7,0.99])))
lp.sum().backward(); out("CB_GP", p.grad)
out("CB_LP_LOGITS", ContinuousBernoulli(logits=T([-3.,0.,0.001,40.])).log_prob(v))
d = FisherSnedecor(T([1.,5.,10.]), T([3.,6.,20.]))
out("F_LP", d.log_prob(T([0.5,1.2,2.0]))); out("F_MEAN", d.mean); out("F_VAR", d.variance)
# KL divergences within the families that gained them
kl = kl_divergence
out("KL_GEOM", kl(Geometric(T([0.2,0.7])), Geometric(T([0.5,0.1]))))
out("KL_GUMBEL", kl(Gumbel(T([0.,1.]), T([1.,2.])), Gumbel(T([0.5,-1.]), T([1.5,0.5]))))
out("KL_HN", kl(HalfNormal(T([1.,2.])), HalfNormal(T([0.5,3.]))))
out("KL_PARETO", kl(Pareto(T([1.,2.,0.5]), T([2.,3.,1.])), Pareto(T([0.5,1.,1.]), T([1.,2.,2.]))))
out("KL_CB", kl(ContinuousBernoulli(T([0.2,0.5,0.9])), ContinuousBernoulli(T([0.6,0.4995,0.3]))))
out("KL_BIN", kl(Binomial(T([5.,7.]), T([0.3,0.6])), Binomial(T([5.,4.]), T([0.5,0.2]))))
pl = LowRankMultivariateNormal(T([[0.,1.,-1.],[0.5,0.,2.]]), T([[[1.,0.5],[0.2,-0.3],[0.,1.]],[[0.3,0.1],[-1.,0.4],[0.5,0.5]]]), T([[1.,0.5,2.],[0.3,1.5,1.]]))
ql = LowRankMultivariateNormal(T([0.2,0.,0.5]), T([[0.7],[0.1],[-0.4]]), T([0.8,1.2,0.6]))
out("KL_LR", kl(pl, ql))
