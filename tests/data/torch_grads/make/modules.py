# The reference of tests/all/nn_modules.rs (PyTorch 2.15): a small CNN of nn.Modules with
# random weights, one training-mode forward (to move BatchNorm's running statistics), then
# its state_dict (f64, `num_batches_tracked` included), an input, the eval-mode output and
# the input's and two parameters' gradients of the output's weighted sum; written to
# tests/data/torch_grads/modules.npz as state.<name>, x, y, gx, g.<name>; then an LSTM, a GRU
# and multi-head attention (below).
import numpy as np, torch
torch.manual_seed(3)
torch.set_default_dtype(torch.float64)
m = torch.nn.Sequential(
    torch.nn.Conv2d(2, 3, 3, padding=1), torch.nn.BatchNorm2d(3), torch.nn.ReLU(),
    torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Linear(12, 4), torch.nn.LayerNorm(4),
    torch.nn.GELU(), torch.nn.Linear(4, 3, bias=False))
with torch.no_grad():
    m[6].weight.copy_(torch.linspace(0.5, 1.5, 4)); m[6].bias.copy_(torch.linspace(-0.2, 0.2, 4))
m.train(); m(torch.randn(5, 2, 4, 4))
m.eval()
x = torch.randn(2, 2, 4, 4, requires_grad=True)
y = m(x)
(y * torch.linspace(-1.0, 1.0, 6).reshape(2, 3)).sum().backward()
out = {"x": x.detach().numpy(), "y": y.detach().numpy(), "gx": x.grad.numpy()}
for k, v in m.state_dict().items():
    out["state." + k] = v.numpy()
for k in ["0.weight", "5.bias"]:
    out["g." + k] = dict(m.named_parameters())[k].grad.numpy()
# A 2-layer bidirectional batch-first LSTM and a GRU, and 2-head attention: state dicts
# (lstm.<name>, gru.<name>, mha.<name>), inputs, outputs and an input gradient.
lstm = torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True)
gru = torch.nn.GRU(3, 4, bias=False)
mha = torch.nn.MultiheadAttention(8, 2, batch_first=True)
for name, mod in [("lstm", lstm), ("gru", gru), ("mha", mha)]:
    for k, v in mod.state_dict().items():
        out[f"{name}.{k}"] = v.numpy()
s = torch.randn(2, 5, 3, requires_grad=True)
o, (h, c) = lstm(s)
(o * torch.linspace(-1.0, 1.0, o.numel()).reshape(o.shape)).sum().backward()
out.update({"lstm_in": s.detach().numpy(), "lstm_out": o.detach().numpy(), "lstm_h": h.detach().numpy(),
            "lstm_c": c.detach().numpy(), "lstm_gin": s.grad.numpy()})
s2 = torch.randn(5, 2, 3)
o2, h2 = gru(s2)
out.update({"gru_in": s2.numpy(), "gru_out": o2.detach().numpy(), "gru_h": h2.detach().numpy()})
q, kv = torch.randn(2, 3, 8), torch.randn(2, 4, 8)
mha.eval()
o3, w3 = mha(q, kv, kv)
out.update({"mha_q": q.numpy(), "mha_kv": kv.numpy(), "mha_out": o3.detach().numpy(), "mha_w": w3.detach().numpy()})
# Two encoder layers (post-LN ReLU sequence-first; pre-LN GELU batch-first), eval mode:
# state dicts enc{k}.<name>, input enc{k}_x, output enc{k}_y; the second also with a key
# padding mask and the input gradient of its output's weighted sum (training-mode math with
# dropout 0, so no fast path).
for k, (act, first, nf) in enumerate([("relu", False, False), ("gelu", True, True)]):
    enc = torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, activation=act,
                                           batch_first=first, norm_first=nf)
    for n, v in enc.state_dict().items():
        out[f"enc{k}.{n}"] = v.numpy()
    x = torch.randn((2, 3, 8) if first else (3, 2, 8), requires_grad=True)
    enc.eval()
    with torch.no_grad():
        out[f"enc{k}_y"] = enc(x).numpy()
    out[f"enc{k}_x"] = x.detach().numpy()
    if k == 1:
        enc.train()
        pad = torch.tensor([[False, False, True], [False, False, False]])
        y = enc(x, src_key_padding_mask=pad)
        (y * torch.linspace(-1.0, 1.0, y.numel()).reshape(y.shape)).sum().backward()
        out["enc1_pad"] = pad.numpy(); out["enc1_ypad"] = y.detach().numpy(); out["enc1_gx"] = x.grad.numpy()
# Conv1d, GroupNorm and RMSNorm (eps None) in a Sequential: seq1.<name>, seq1_x, seq1_y.
seq1 = torch.nn.Sequential(torch.nn.Conv1d(2, 4, 3, padding=1), torch.nn.GroupNorm(2, 4),
                           torch.nn.RMSNorm([5]), torch.nn.Identity())
with torch.no_grad():
    seq1[1].weight.copy_(torch.linspace(0.5, 2.0, 4)); seq1[2].weight.copy_(torch.linspace(1.5, 0.5, 5))
for n, v in seq1.state_dict().items():
    out[f"seq1.{n}"] = v.numpy()
x1 = torch.randn(2, 2, 5)
out["seq1_x"] = x1.numpy(); out["seq1_y"] = seq1(x1).detach().numpy()
# A grouped, strided ConvTranspose2d with output padding, then a per-channel PReLU: seq2.*.
seq2 = torch.nn.Sequential(torch.nn.ConvTranspose2d(2, 4, 3, stride=2, padding=1, output_padding=1, groups=2),
                           torch.nn.PReLU(4))
with torch.no_grad():
    seq2[1].weight.copy_(torch.tensor([0.25, -0.5, 1.5, 0.0]))
for n, v in seq2.state_dict().items():
    out[f"seq2.{n}"] = v.numpy()
x2 = torch.randn(1, 2, 3, 3)
out["seq2_x"] = x2.numpy(); out["seq2_y"] = seq2(x2).detach().numpy()
# A pre-LN GELU batch-first decoder layer with a causal target mask, training-mode math with
# dropout 0: dec.<name>, dec_tgt, dec_mem, dec_y, dec_gtgt (the target's gradient).
dec = torch.nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0, activation="gelu",
                                       batch_first=True, norm_first=True)
for n, v in dec.state_dict().items():
    out[f"dec.{n}"] = v.numpy()
tgt = torch.randn(2, 3, 8, requires_grad=True); mem = torch.randn(2, 4, 8)
causal = torch.nn.Transformer.generate_square_subsequent_mask(3, dtype=torch.float64)
y = dec(tgt, mem, tgt_mask=causal, tgt_is_causal=True)
(y * torch.linspace(-1.0, 1.0, y.numel()).reshape(y.shape)).sum().backward()
out.update({"dec_tgt": tgt.detach().numpy(), "dec_mem": mem.numpy(), "dec_y": y.detach().numpy(), "dec_gtgt": tgt.grad.numpy()})
# A 2-layer encoder stack with a final norm (layers perturbed apart), dropout 0: stack.*,
# stack_x, stack_y.
stack = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16, 0.0), 2,
                                    norm=torch.nn.LayerNorm(8), enable_nested_tensor=False)
with torch.no_grad():
    stack.layers[1].linear1.weight.mul_(1.5)
for n, v in stack.state_dict().items():
    out[f"stack.{n}"] = v.numpy()
xs = torch.randn(3, 2, 8)
out["stack_x"] = xs.numpy(); out["stack_y"] = stack(xs).detach().numpy()
# A 2-layer decoder stack with a final norm and a causal target mask: dstack.*, dstack_tgt,
# dstack_mem, dstack_y; Upsample(scale 2, bilinear): up_x, up_y.
dstack = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(8, 2, 16, 0.0), 2,
                                     norm=torch.nn.LayerNorm(8))
with torch.no_grad():
    dstack.layers[0].linear2.weight.mul_(0.5)
for n, v in dstack.state_dict().items():
    out[f"dstack.{n}"] = v.numpy()
t2, m2 = torch.randn(3, 2, 8), torch.randn(4, 2, 8)
out["dstack_tgt"] = t2.numpy(); out["dstack_mem"] = m2.numpy()
out["dstack_y"] = dstack(t2, m2, tgt_mask=torch.nn.Transformer.generate_square_subsequent_mask(3, dtype=torch.float64)).detach().numpy()
ux = torch.randn(1, 2, 3, 4)
out["up_x"] = ux.numpy(); out["up_y"] = torch.nn.Upsample(scale_factor=2, mode="bilinear")(ux).numpy()
# nn.Transformer with 2 encoder and 1 decoder layers, a causal target mask: tr.*, tr_src,
# tr_tgt, tr_y.
tr = torch.nn.Transformer(8, 2, 2, 1, 16, 0.0)
for n, v in tr.state_dict().items():
    out[f"tr.{n}"] = v.numpy()
src, tg = torch.randn(4, 2, 8), torch.randn(3, 2, 8)
out["tr_src"] = src.numpy(); out["tr_tgt"] = tg.numpy()
out["tr_y"] = tr(src, tg, tgt_mask=tr.generate_square_subsequent_mask(3, dtype=torch.float64)).detach().numpy()
np.savez("tests/data/torch_grads/modules.npz", **out)
print(sorted(out))
