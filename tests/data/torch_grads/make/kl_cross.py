# The reference values of tests/all/kl_cross.rs (PyTorch 2.15): KL divergences between
# distributions of different families. python3 kl_cross.py prints the Rust constants.
import torch
from torch.distributions import *
torch.set_default_dtype(torch.float64)
T = torch.tensor
def out(name, t):
    v = t.detach().reshape(-1).tolist()
    print(f"const {name}: &[f64] = &{[float(x) for x in v]!r};".replace("inf", "f64::INFINITY").replace("nan", "f64::NAN"))
P = dict(
    normal=lambda: Normal(T([0.3, -1.0, 2.0]), T([0.8, 1.5, 0.4])),
    laplace=lambda: Laplace(T([0.1, 0.5, -1.0]), T([1.2, 0.6, 2.0])),
    gumbel=lambda: Gumbel(T([0.2, -0.5, 1.0]), T([1.0, 0.7, 2.0])),
    exponential=lambda: Exponential(T([0.5, 2.0, 1.3])),
    gamma=lambda: Gamma(T([0.7, 2.5, 4.0]), T([1.0, 0.5, 3.0])),
    chi2=lambda: Chi2(T([1.5, 3.0, 6.0])),
    beta=lambda: Beta(T([0.6, 2.0, 5.0]), T([1.5, 0.8, 3.0])),
    cb=lambda: ContinuousBernoulli(T([0.2, 0.5003, 0.9])),
    uniform=lambda: Uniform(T([0.1, -0.1, 0.2]), T([0.7, 0.5, 1.2])),
    pareto=lambda: Pareto(T([0.5, 1.0, 2.0]), T([0.8, 1.5, 3.0])),
    poisson=lambda: Poisson(T([0.5, 2.0, 0.1])),
    bernoulli=lambda: Bernoulli(T([0.2, 0.7, 0.95])),
)
# q-side uniforms and paretos chosen so some pairs are finite and some infinite
Q = dict(P)
Q["uniform"] = lambda: Uniform(T([0.0, 0.1, -1.0]), T([1.0, 1.0, 2.0]))
Q["pareto"] = lambda: Pareto(T([0.05, 0.5, 0.1]), T([2.0, 1.5, 0.7]))
pairs = [("bernoulli", "poisson"), ("beta", "cb"), ("beta", "exponential"), ("beta", "gamma"),
         ("beta", "normal"), ("beta", "uniform"), ("cb", "exponential"), ("cb", "normal"),
         ("exponential", "gamma"), ("exponential", "gumbel"), ("exponential", "normal"),
         ("gamma", "exponential"), ("gamma", "gumbel"), ("gamma", "normal"), ("gumbel", "normal"),
         ("laplace", "normal"), ("normal", "gumbel"), ("normal", "laplace"),
         ("pareto", "exponential"), ("pareto", "gamma"), ("pareto", "normal"),
         ("uniform", "beta"), ("uniform", "cb"), ("uniform", "exponential"), ("uniform", "gamma"),
         ("uniform", "gumbel"), ("uniform", "normal"), ("uniform", "pareto"),
         ("chi2", "exponential"), ("chi2", "gumbel"), ("chi2", "normal"), ("chi2", "gamma"),
         ("exponential", "chi2"), ("beta", "chi2"), ("uniform", "chi2"), ("pareto", "chi2"),
         ("gamma", "chi2")]
for p, q in pairs:
    out(f"KL_{p.upper()}_{q.upper()}", kl_divergence(P[p](), Q[q]()))
# CB-Uniform (PyTorch calls U[0, 1] infinitely far; the finite value is -H(p)).
out("KL_UNIFORM01_CB", -Uniform(T([0.0, 0.25, 0.0]), T([1.0, 0.75, 0.5])).entropy() + 0 * P["cb"]().probs
    - Uniform(T([0.0, 0.25, 0.0]), T([1.0, 0.75, 0.5])).mean * P["cb"]().logits
    - torch.log1p(-P["cb"]().probs) - P["cb"]()._cont_bern_log_norm())
# Gradients in every parameter of both sides.
def g(name, fp, fq, pp, qp):
    pp = [T(x, requires_grad=True) for x in pp]; qp = [T(x, requires_grad=True) for x in qp]
    kl = kl_divergence(fp(*pp), fq(*qp)); kl.sum().backward()
    for i, x in enumerate(pp + qp):
        out(f"G_{name}_{i}", x.grad)
g("NORMAL_LAPLACE", Normal, Laplace, [[0.3, -1.0], [0.8, 1.5]], [[0.1, 0.5], [1.2, 0.6]])
g("GAMMA_GUMBEL", Gamma, Gumbel, [[0.7, 2.5], [1.0, 0.5]], [[0.2, -0.5], [1.0, 0.7]])
g("UNIFORM_BETA", Uniform, Beta, [[0.1, 0.3], [0.7, 0.9]], [[0.6, 2.0], [1.5, 0.8]])
g("BETA_GAMMA", Beta, Gamma, [[0.6, 2.0], [1.5, 0.8]], [[0.7, 2.5], [1.0, 0.5]])
g("PARETO_NORMAL", Pareto, Normal, [[0.5, 1.0], [2.5, 3.0]], [[0.3, -1.0], [0.8, 1.5]])
g("EXPONENTIAL_GUMBEL", Exponential, Gumbel, [[0.5, 2.0]], [[0.2, -0.5], [1.0, 0.7]])
# MultivariateNormal against LowRankMultivariateNormal, both ways
loc = T([[0.1, -0.3, 0.5], [1.0, 0.0, -1.0]]); cov = T([[1.0, 0.2, 0.1], [0.2, 0.8, -0.1], [0.1, -0.1, 0.5]])
W = T([[0.5, 0.1], [-0.2, 0.3], [0.4, -0.6]]); d = T([0.7, 1.1, 0.4])
mv = MultivariateNormal(loc, covariance_matrix=cov)
lr = LowRankMultivariateNormal(T([0.0, 0.2, -0.1]), W, d)
out("KL_MVN_LR", kl_divergence(mv, lr)); out("KL_LR_MVN", kl_divergence(lr, mv))
