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
# Conv3d (grouped, strided, padded), ELU, MaxPool3d, ConvTranspose3d (output padding),
# AdaptiveAvgPool3d: seq3.*, seq3_x, seq3_y; ConvTranspose1d, Softplus(beta 2, threshold 1),
# AvgPool1d, Hardswish, AdaptiveMaxPool1d: seq4.*, seq4_x, seq4_y, seq4_gx.
out2 = dict(np.load("tests/data/torch_grads/modules.npz"))
assert all(np.array_equal(out[k], out2[k]) for k in out2), "the earlier entries changed"
seq3 = torch.nn.Sequential(torch.nn.Conv3d(2, 4, (2, 3, 3), stride=(1, 2, 1), padding=(1, 1, 0), groups=2),
                           torch.nn.ELU(0.7), torch.nn.MaxPool3d(2),
                           torch.nn.ConvTranspose3d(4, 2, 2, stride=2, output_padding=1),
                           torch.nn.AdaptiveAvgPool3d((2, 3, 2)))
for n, v in seq3.state_dict().items():
    out[f"seq3.{n}"] = v.numpy()
x3 = torch.randn(2, 2, 4, 6, 5)
out["seq3_x"] = x3.numpy(); out["seq3_y"] = seq3(x3).detach().numpy()
seq4 = torch.nn.Sequential(torch.nn.ConvTranspose1d(3, 4, 3, stride=2, padding=1, output_padding=1),
                           torch.nn.Softplus(beta=2.0, threshold=1.0), torch.nn.AvgPool1d(3, stride=2),
                           torch.nn.Hardswish(), torch.nn.AdaptiveMaxPool1d(3))
for n, v in seq4.state_dict().items():
    out[f"seq4.{n}"] = v.numpy()
x4 = torch.randn(2, 3, 5, requires_grad=True)
y4 = seq4(x4)
(y4 * torch.linspace(-1.0, 1.0, y4.numel()).reshape(y4.shape)).sum().backward()
out.update({"seq4_x": x4.detach().numpy(), "seq4_y": y4.detach().numpy(), "seq4_gx": x4.grad.numpy()})
# Every Activation variant on act_x: act.<name>.
ax = torch.randn(3, 4) * 3
ax[0, 0], ax[0, 1] = 0.5, -0.5
acts = {"relu": torch.nn.ReLU(), "gelu": torch.nn.GELU(), "gelu_tanh": torch.nn.GELU("tanh"),
        "tanh": torch.nn.Tanh(), "sigmoid": torch.nn.Sigmoid(), "silu": torch.nn.SiLU(),
        "leaky_relu": torch.nn.LeakyReLU(0.2), "softmax": torch.nn.Softmax(1),
        "log_softmax": torch.nn.LogSoftmax(0), "softmin": torch.nn.Softmin(1), "elu": torch.nn.ELU(0.5),
        "celu": torch.nn.CELU(1.5), "selu": torch.nn.SELU(), "softplus": torch.nn.Softplus(0.5, 2.0),
        "mish": torch.nn.Mish(), "hardtanh": torch.nn.Hardtanh(-0.5, 2.0), "relu6": torch.nn.ReLU6(),
        "hardswish": torch.nn.Hardswish(), "hardsigmoid": torch.nn.Hardsigmoid(),
        "softsign": torch.nn.Softsign(), "tanhshrink": torch.nn.Tanhshrink(),
        "softshrink": torch.nn.Softshrink(0.7), "hardshrink": torch.nn.Hardshrink(0.7),
        "logsigmoid": torch.nn.LogSigmoid(), "glu": torch.nn.GLU(1), "threshold": torch.nn.Threshold(0.3, -2.0)}
out["act_x"] = ax.numpy()
for n, a in acts.items():
    out[f"act.{n}"] = a(ax).numpy()
# The loss layers: logits loss_x (5, 3), classes loss_t (one ignored), values loss_v, loss_p
# (probabilities), loss_w (class weights); loss.<name>.
lx, lv = torch.randn(5, 3), torch.randn(5, 3)
lt = torch.tensor([0, 2, 1, 1, 2])
lw = torch.tensor([0.5, 1.0, 2.0])
lp = torch.softmax(torch.randn(5, 3), 1)
out.update({"loss_x": lx.numpy(), "loss_t": lt.numpy(), "loss_v": lv.numpy(), "loss_p": lp.numpy(), "loss_w": lw.numpy()})
F = torch.nn
losses = {
    "ce": F.CrossEntropyLoss(weight=lw, ignore_index=1, label_smoothing=0.1)(lx, lt),
    "ce_probs": F.CrossEntropyLoss(label_smoothing=0.2)(lx, lp),
    "nll": F.NLLLoss(weight=lw, reduction="sum")(torch.log_softmax(lx, 1), lt),
    "mse": F.MSELoss()(lx, lv), "l1": F.L1Loss(reduction="sum")(lx, lv),
    "smooth_l1": F.SmoothL1Loss(beta=0.5)(lx, lv), "huber": F.HuberLoss(reduction="none", delta=0.3)(lx, lv),
    "kl": F.KLDivLoss(reduction="batchmean")(torch.log_softmax(lx, 1), lp),
    "kl_log": F.KLDivLoss(log_target=True)(torch.log_softmax(lx, 1), torch.log(lp)),
    "bce": F.BCELoss()(torch.sigmoid(lx), lp),
    "bce_logits": F.BCEWithLogitsLoss(pos_weight=lw)(lx, lp),
}
for n, v in losses.items():
    out[f"loss.{n}"] = v.numpy()
# The cells (cell_<kind>.<name>, cell_x, cell_h, cell_c, cell_<kind>_h, cell_lstm_c, and an
# unbatched GRU step cell_gru1_h), Bilinear (bil.*, bil_x1, bil_x2, bil_y), EmbeddingBag
# (bag.*, bag_in, bag_off, bag_y max; bag_psw, bag_sum_y), InstanceNorm2d (inorm.*, inorm_x,
# inorm_y), and a chain of PixelShuffle, ReflectionPad2d, ChannelShuffle, Unflatten and a
# ConstantPad1d (chain_x, chain_y), PixelUnshuffle (unsh_y).
cells = {"lstm": torch.nn.LSTMCell(3, 4), "gru": torch.nn.GRUCell(3, 4, bias=False),
         "relu": torch.nn.RNNCell(3, 4, nonlinearity="relu")}
cx, ch, cc = torch.randn(2, 3), torch.randn(2, 4), torch.randn(2, 4)
out.update({"cell_x": cx.numpy(), "cell_h": ch.numpy(), "cell_c": cc.numpy()})
for k, cell in cells.items():
    for n, v in cell.state_dict().items():
        out[f"cell_{k}.{n}"] = v.numpy()
with torch.no_grad():
    h, c = cells["lstm"](cx, (ch, cc))
    out["cell_lstm_h"], out["cell_lstm_c"] = h.numpy(), c.numpy()
    out["cell_gru_h"] = cells["gru"](cx, ch).numpy()
    out["cell_relu_h"] = cells["relu"](cx).numpy()
    out["cell_gru1_h"] = cells["gru"](cx[0]).numpy()
bil = torch.nn.Bilinear(3, 2, 4)
for n, v in bil.state_dict().items():
    out[f"bil.{n}"] = v.numpy()
b1, b2 = torch.randn(5, 3), torch.randn(5, 2)
out.update({"bil_x1": b1.numpy(), "bil_x2": b2.numpy(), "bil_y": bil(b1, b2).detach().numpy()})
bag = torch.nn.EmbeddingBag(10, 3, mode="max")
for n, v in bag.state_dict().items():
    out[f"bag.{n}"] = v.numpy()
bin_, boff = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 3, 3, 6])
psw = torch.randn(8)
out.update({"bag_in": bin_.numpy(), "bag_off": boff.numpy(), "bag_y": bag(bin_, boff).detach().numpy(), "bag_psw": psw.numpy()})
bag.mode = "sum"
out["bag_sum_y"] = bag(bin_, boff, per_sample_weights=psw).detach().numpy()
inorm = torch.nn.InstanceNorm2d(3, affine=True)
with torch.no_grad():
    inorm.weight.copy_(torch.tensor([0.5, 1.5, -1.0])); inorm.bias.copy_(torch.tensor([0.1, 0.0, -0.2]))
for n, v in inorm.state_dict().items():
    out[f"inorm.{n}"] = v.numpy()
ix = torch.randn(2, 3, 4, 4)
out.update({"inorm_x": ix.numpy(), "inorm_y": inorm(ix).detach().numpy()})
chain = torch.nn.Sequential(torch.nn.PixelShuffle(2), torch.nn.ReflectionPad2d((1, 2, 0, 1)),
                            torch.nn.ChannelShuffle(2), torch.nn.Unflatten(1, (2, 1)),
                            torch.nn.Flatten(3), torch.nn.ConstantPad1d((2, 0), -1.5))
chx = torch.randn(1, 8, 2, 3)
out.update({"chain_x": chx.numpy(), "chain_y": chain(chx).numpy(), "unsh_y": torch.nn.PixelUnshuffle(2)(chx.reshape(1, 2, 4, 6)).numpy()})
np.savez("tests/data/torch_grads/modules.npz", **out)
