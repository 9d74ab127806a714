# The reference values of tests/all/lapack.rs (PyTorch 2.15): geqrf, ormqr, ldl_factor,
# ldl_solve and linalg.matrix_sqrth. python3 lapack.py prints the Rust constants.
import torch
torch.set_default_dtype(torch.float64)
T = torch.tensor
def out(name, t, ty="f64"):
    v = t.detach().reshape(-1).tolist()
    v = [float(x) for x in v] if ty == "f64" else [int(x) for x in v]
    print(f"const {name}: &[{ty}] = &{v!r};".replace("inf", "f64::INFINITY").replace("nan", "f64::NAN"))
# geqrf of a tall and a wide matrix (LAPACK's signs; tau 0 for the wide one's last column)
A = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0], [0.0, 1.0, -1.0]])
a, tau = torch.geqrf(A); out("QR_A", a); out("QR_TAU", tau)
a2, tau2 = torch.geqrf(A.T.contiguous()); out("QR_A_WIDE", a2); out("QR_TAU_WIDE", tau2)
# ormqr on each side, with and without the transpose, and its gradients
C = torch.arange(8.0).reshape(4, 2) - 3.0
C2 = torch.arange(8.0).reshape(2, 4) * 0.5 - 1.0
out("ORM_LN", torch.ormqr(a, tau, C)); out("ORM_LT", torch.ormqr(a, tau, C, transpose=True))
out("ORM_RN", torch.ormqr(a, tau, C2, left=False)); out("ORM_RT", torch.ormqr(a, tau, C2, left=False, transpose=True))
aa = a.clone().requires_grad_(); tt = tau.clone().requires_grad_(); cc = C.clone().requires_grad_()
W = torch.linspace(-1.0, 1.0, 8).reshape(4, 2)
(torch.ormqr(aa, tt, cc, transpose=True) * W).sum().backward()
out("ORM_GA", aa.grad); out("ORM_GTAU", tt.grad); out("ORM_GC", cc.grad)
# ldl_factor: an indefinite matrix with a 2x2 block, one needing 1x1 swaps, a definite one
S1 = T([[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [2.0, 3.0, 0.0]])
S2 = T([[1.0, 2.0, 3.0, 0.5], [2.0, -1.0, 4.0, 1.0], [3.0, 4.0, 0.5, -2.0], [0.5, 1.0, -2.0, 6.0]])
S3 = T([[0.1, 5.0, 0.2, 0.3], [5.0, 0.2, 0.1, 0.4], [0.2, 0.1, 9.0, 0.5], [0.3, 0.4, 0.5, 0.01]])
S4 = T([[4.0, 1.0, 0.5, 0.2], [1.0, 3.0, 0.2, 0.1], [0.5, 0.2, 2.0, 0.3], [0.2, 0.1, 0.3, 1.0]])
for name, S in [("S1", S1), ("S2", S2), ("S3", S3), ("S4", S4)]:
    ld, p = torch.linalg.ldl_factor(S)
    out(f"LDL_{name}", ld); out(f"PIV_{name}", p, "i32")
# ldl_solve with a broadcast batch of right-hand sides
ld, p = torch.linalg.ldl_factor(S2)
B = torch.linspace(-2.0, 3.0, 24).reshape(3, 4, 2)
out("LDL_X", torch.linalg.ldl_solve(ld, p, B))
# matrix_sqrth: a positive-definite matrix, its gradient, an indefinite one (clamped)
A = T([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], requires_grad=True)
X = torch.linalg.matrix_sqrth(A); out("SQRTH", X)
(X * torch.arange(9.0).reshape(3, 3)).sum().backward(); out("SQRTH_G", A.grad)
out("SQRTH_INDEF", torch.linalg.matrix_sqrth(T([[4.0, 1.0], [1.0, 0.0]])))
out("SQRTH_UPPER_IGNORED", torch.linalg.matrix_sqrth(T([[4.0, 100.0], [1.0, 9.0]])))
# linalg.polar of a tall matrix and its gradient for Σ U·gU + Σ H·gH
A = T([[2.0, 1.0, 0.5], [0.3, 1.5, -0.2], [0.1, 0.4, 1.2], [1.0, -0.5, 0.3]], requires_grad=True)
U, H = torch.linalg.polar(A); out("POLAR_U", U); out("POLAR_H", H)
gu = torch.linspace(-1, 1, 12).reshape(4, 3); gh = torch.linspace(0.5, -0.7, 9).reshape(3, 3)
((U * gu).sum() + (H * gh).sum()).backward(); out("POLAR_G", A.grad)
