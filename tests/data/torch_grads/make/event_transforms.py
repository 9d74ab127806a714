# The reference values of tests/all/distributions_transformed.rs's event-transform test
# (PyTorch 2.15): forward, inverse and log_abs_det_jacobian of StickBreakingTransform,
# CorrCholeskyTransform, LowerCholeskyTransform, PositiveDefiniteTransform, SoftmaxTransform
# on a batch of two. python3 event_transforms.py prints the Rust constants.
import torch
from torch.distributions import transforms as T
torch.set_default_dtype(torch.float64)
def out(name, t):
    print(f"const {name}: &[f64] = &{[float(v) for v in t.detach().reshape(-1).tolist()]!r};")
x3 = torch.tensor([[0.5, -1.0, 2.0], [0.0, 3.0, -0.25]])
sb = T.StickBreakingTransform(); y = sb(x3)
out("SB_Y", y); out("SB_LADJ", sb.log_abs_det_jacobian(x3, y))
cc = T.CorrCholeskyTransform(); y = cc(x3)
out("CC_Y", y); out("CC_LADJ", cc.log_abs_det_jacobian(x3, y)); out("CC_INV", cc.inv(y))
x6 = torch.tensor([0.3, -0.2, 0.9, 1.5, -2.0, 0.1])
y6 = cc(x6); out("CC6_Y", y6); out("CC6_LADJ", cc.log_abs_det_jacobian(x6, y6))
m = torch.tensor([[[0.5, 9.0], [-1.0, 0.2]], [[-0.3, 1.0], [2.0, 1.1]]])
out("LC_Y", T.LowerCholeskyTransform()(m)); out("PD_Y", T.PositiveDefiniteTransform()(m))
out("PD_INV", T.PositiveDefiniteTransform().inv(T.PositiveDefiniteTransform()(m)))
out("SM_Y", T.SoftmaxTransform()(x3))
