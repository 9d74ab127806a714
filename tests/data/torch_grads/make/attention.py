# PyTorch 2.15's scaled_dot_product_attention and recurrent cells, values and gradients, for
# tests/all/nn_seq.rs: writes tests/data/torch_grads/attention.npz. Run: python attention.py OUT
# Every case's loss is sum(out * w) (for the LSTM, over h' and c'); `NAME_gX` is the gradient of
# input X.
import sys
import numpy as np
import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
g = torch.Generator().manual_seed(11)
out = {}

def rnd(*shape):
    return torch.randn(*shape, generator=g)

def record(name, inputs, fn):
    leaves = {k: v.clone().requires_grad_(True) for k, v in inputs.items()}
    res = fn(leaves)
    res = res if isinstance(res, tuple) else (res,)
    loss = 0
    for i, r in enumerate(res):
        w = rnd(*r.shape)
        out[f"{name}_w{i}"] = w.numpy()
        out[f"{name}_out{i}"] = r.detach().numpy()
        loss = loss + (r * w).sum()
    loss.backward()
    for k, v in leaves.items():
        out[f"{name}_{k}"] = inputs[k].numpy()
        out[f"{name}_g{k}"] = v.grad.numpy()

# Keep the cases in step with tests/all/nn_seq.rs.
sdpa = F.scaled_dot_product_attention
record("plain", {"q": rnd(2, 3, 4, 8), "k": rnd(2, 3, 6, 8), "v": rnd(2, 3, 6, 5)},
       lambda a: sdpa(a["q"], a["k"], a["v"]))
bmask = torch.rand(4, 6, generator=g) > 0.4
bmask[2] = False  # a query with no key
out["bool_mask"] = bmask.numpy()
record("bool", {"q": rnd(2, 3, 4, 8), "k": rnd(2, 3, 6, 8), "v": rnd(2, 3, 6, 5)},
       lambda a: sdpa(a["q"], a["k"], a["v"], attn_mask=bmask))
fmask = rnd(2, 1, 4, 6)
fmask[fmask > 1.0] = float("-inf")
fmask[1, 0, 3] = float("-inf")
out["float_mask"] = fmask.numpy()
record("additive", {"q": rnd(2, 3, 4, 8), "k": rnd(2, 3, 6, 8), "v": rnd(2, 3, 6, 5)},
       lambda a: sdpa(a["q"], a["k"], a["v"], attn_mask=fmask))
record("causal_tall", {"q": rnd(2, 5, 4), "k": rnd(2, 3, 4), "v": rnd(2, 3, 2)},
       lambda a: sdpa(a["q"], a["k"], a["v"], is_causal=True))
record("causal_wide_scale", {"q": rnd(1, 2, 3, 4), "k": rnd(1, 2, 5, 4), "v": rnd(1, 2, 5, 3)},
       lambda a: sdpa(a["q"], a["k"], a["v"], is_causal=True, scale=0.3))
record("gqa", {"q": rnd(1, 4, 3, 8), "k": rnd(1, 2, 5, 8), "v": rnd(1, 2, 5, 4)},
       lambda a: sdpa(a["q"], a["k"], a["v"], is_causal=True, enable_gqa=True))
record("unbatched", {"q": rnd(3, 4), "k": rnd(5, 4), "v": rnd(5, 2)},
       lambda a: sdpa(a["q"], a["k"], a["v"]))

# Recurrent cells, with and without biases, batched and unbatched.
for name, gates, cell in [("rnn_tanh", 1, torch.rnn_tanh_cell), ("rnn_relu", 1, torch.rnn_relu_cell),
                          ("lstm", 4, None), ("gru", 3, torch.gru_cell)]:
    for variant, batch, bias in [("", (3,), True), ("_nobias", (3,), False), ("_unbatched", (), True)]:
        H, In = 4, 5
        ins = {"x": rnd(*batch, In), "h": rnd(*batch, H), "w_ih": rnd(gates * H, In) / 2,
               "w_hh": rnd(gates * H, H) / 2}
        if bias:
            ins["b_ih"] = rnd(gates * H)
            ins["b_hh"] = rnd(gates * H)
        if name == "lstm":
            ins["c"] = rnd(*batch, H)
        def fn(a, name=name, cell=cell, bias=bias, unbatched=not batch):
            b = (a["b_ih"], a["b_hh"]) if bias else (None, None)
            # The low-level cells take (N, ·) only; nn.RNNCell & co. add the batch axis so.
            up = (lambda t: t.unsqueeze(0)) if unbatched else (lambda t: t)
            down = (lambda t: t.squeeze(0)) if unbatched else (lambda t: t)
            if name == "lstm":
                h, c = torch.lstm_cell(up(a["x"]), (up(a["h"]), up(a["c"])), a["w_ih"], a["w_hh"], *b)
                return down(h), down(c)
            return down(cell(up(a["x"]), up(a["h"]), a["w_ih"], a["w_hh"], *b))
        record(name + variant, ins, fn)

np.savez(sys.argv[1], **out)
