# The reference gradient of tests/all/eig.rs's lobpcg test (PyTorch 2.15): torch.lobpcg of a
# 9 x 9 symmetric matrix, k = 2 largest, the gradient of E·c + Σ X·sign(X[0])·W.
# python3 lobpcg.py prints the Rust constants.
import torch
torch.set_default_dtype(torch.float64)
m = 9
i = torch.arange(m, dtype=torch.float64)
A = torch.sin(i.unsqueeze(1) * 0.7 + i.unsqueeze(0) * 0.7) + torch.diag(i * 0.5)
A = ((A + A.T) / 2).requires_grad_()
E, X = torch.lobpcg(A, k=2, largest=True, tol=1e-12)
W = torch.linspace(-1, 1, 2 * m).reshape(m, 2)
s = torch.sign(X[0:1, :]).detach()
((E * torch.tensor([0.3, -0.7])).sum() + ((X * s) * W).sum()).backward()
print(f"const LOBPCG_E: &[f64] = &{E.detach().tolist()!r};")
print(f"const LOBPCG_G: &[f64] = &{A.grad.reshape(-1).tolist()!r};")
