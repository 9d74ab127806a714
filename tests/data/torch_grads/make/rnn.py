# PyTorch 2.15's nn.LSTM, nn.GRU and nn.RNN (tanh, relu) over whole sequences: outputs, final
# states and the gradients of sum(out·w0) + sum(h_n·w1) (+ sum(c_n·w2)) to the input, the
# initial states and every weight, for tests/all/nn_functional.rs. Writes
# tests/data/torch_grads/rnn.npz. Run: python rnn.py OUT.
import sys
import numpy as np
import torch

torch.set_default_dtype(torch.float64)
torch.manual_seed(5)
g = torch.Generator().manual_seed(5)
out = {}

def case(name, net, x, h0=None, c0=None):
    x = x.clone().requires_grad_(True)
    states = [s.clone().requires_grad_(True) if s is not None else None for s in (h0, c0)]
    if isinstance(net, torch.nn.LSTM):
        hx = (states[0], states[1]) if states[0] is not None else None
        y, (hn, cn) = net(x, hx)
    else:
        y, hn = net(x, states[0])
        cn = None
    loss = 0
    for k, t in enumerate([y, hn, cn]):
        if t is None:
            continue
        w = torch.randn(tuple(t.shape), generator=g)
        out[f"{name}_w{k}"] = w.numpy()
        out[f"{name}_out{k}"] = t.detach().numpy()
        loss = loss + (t * w).sum()
    loss.backward()
    out[f"{name}_x"] = x.detach().numpy()
    out[f"{name}_gx"] = x.grad.numpy()
    for s, label in zip(states, ["h0", "c0"]):
        if s is not None:
            out[f"{name}_{label}"] = s.detach().numpy()
            out[f"{name}_g{label}"] = s.grad.numpy()
    for pname, p in net.named_parameters():
        out[f"{name}_{pname}"] = p.detach().numpy()
        out[f"{name}_g_{pname}"] = p.grad.numpy()

lstm = torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True)
case("lstm", lstm, torch.randn(2, 5, 3, generator=g), torch.randn(4, 2, 4, generator=g),
     torch.randn(4, 2, 4, generator=g))
case("gru", torch.nn.GRU(3, 5), torch.randn(6, 3, generator=g))
case("relu", torch.nn.RNN(3, 4, num_layers=2, nonlinearity="relu", bias=False),
     torch.randn(4, 2, 3, generator=g), torch.randn(2, 2, 4, generator=g))
case("tanh", torch.nn.RNN(2, 3, bidirectional=True), torch.randn(3, 2, generator=g),
     torch.randn(2, 3, generator=g))
np.savez(sys.argv[1], **out)
