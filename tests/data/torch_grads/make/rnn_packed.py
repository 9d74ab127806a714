# The reference values of tests/all/nn_seq.rs's packed-RNN test (PyTorch 2.15): a 2-layer
# bidirectional LSTM and a 1-layer GRU over a packed, unsorted batch of lengths (2, 4, 1),
# every weight sin(k)·0.4 in PyTorch's order, given h0/c0: the packed output, h_n, c_n and
# the gradient of Σ out·w + Σ h_n (+ Σ c_n) for the padded input.
import torch
from torch.nn.utils.rnn import pack_padded_sequence
torch.set_default_dtype(torch.float64)
def out(name, t):
    print(f"const {name}: &[f64] = &{[float(v) for v in t.detach().reshape(-1).tolist()]!r};")
def fill(m):
    k = 0
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.sin(torch.arange(k, k + p.numel(), dtype=torch.float64)).reshape(p.shape) * 0.4)
            k += p.numel()
x = (torch.cos(torch.arange(36.0)) * 0.8).reshape(4, 3, 3).requires_grad_()
lengths = [2, 4, 1]
for name, m, states in [
    ("LSTM", torch.nn.LSTM(3, 2, num_layers=2, bidirectional=True), 2),
    ("GRU", torch.nn.GRU(3, 2), 1),
]:
    fill(m)
    layers = m.num_layers * (2 if m.bidirectional else 1)
    h0 = (torch.arange(layers * 3 * 2.0).reshape(layers, 3, 2) * 0.05)
    p = pack_padded_sequence(x, lengths, enforce_sorted=False)
    if name == "LSTM":
        o, (h, c) = m(p, (h0, -h0))
    else:
        o, h = m(p, h0)
    w = torch.linspace(-1, 1, o.data.numel()).reshape(o.data.shape)
    loss = (o.data * w).sum() + h.sum() + (c.sum() if name == "LSTM" else 0)
    x.grad = None
    loss.backward()
    out(f"{name}_OUT", o.data); out(f"{name}_H", h)
    if name == "LSTM":
        out(f"{name}_C", c)
    out(f"{name}_GX", x.grad)
