//! `nn::modules` (PyTorch's `nn.Module` layers): a PyTorch 2.15 CNN's `state_dict`
//! (`tests/data/torch_grads/modules.npz`, made by `make/modules.py`) loads by name into the
//! same `Sequential`, whose eval-mode output and gradients match PyTorch's, on every device;
//! initialisation bounds, training mode, and the state dict's refusals.

use crate::common::{assert_close, host_f64s};
use std::collections::BTreeMap;
use typed_tensor::nn::Conv2dOptions;
use typed_tensor::nn::modules::{
    Activation, BatchNorm, Conv2d, Dropout, Embedding, Flatten, LayerNorm, Linear, Module,
    Parameters, Pool2d, Sequential,
};
use typed_tensor::prelude::*;

/// The reference file's arrays.
pub(crate) fn fixture() -> BTreeMap<String, DynTensor> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/torch_grads");
    typed_tensor::io::load_npz(format!("{dir}/modules.npz")).unwrap()
}

/// The entries under `prefix` (`"state"` takes `state.0.weight` as `0.weight`).
pub(crate) fn sub_state(
    f: &BTreeMap<String, DynTensor>,
    prefix: &str,
) -> BTreeMap<String, DynTensor> {
    (f.iter())
        .filter_map(|(k, v)| {
            let name = k.strip_prefix(prefix)?.strip_prefix('.')?;
            Some((name.to_string(), v.clone()))
        })
        .collect()
}

/// Back-propagates `Σ y·w`, `w` evenly spaced over `[-1, 1]` in `y`'s shape (the
/// generator's `torch.linspace(-1, 1, numel).reshape(shape)`).
pub(crate) fn backward_weighted<D: Backend>(y: &Tensor<f64, D>) {
    let w = Tensor::<f64, D>::linspace_on(-1.0, 1.0, y.numel(), y.device_handle())
        .unwrap()
        .try_reshape(y.dims())
        .unwrap();
    y.try_mul(&w)
        .unwrap()
        .try_sum(&[], false)
        .unwrap()
        .try_backward()
        .unwrap();
}

fn cnn<D: Backend>(dev: &D) -> Sequential<f64, D> {
    let pad = Conv2dOptions {
        padding: (1, 1),
        ..Conv2dOptions::default()
    };
    Sequential::new()
        .push(Conv2d::new(2, 3, (3, 3), pad, true, dev).unwrap())
        .push(BatchNorm::new(3, dev).unwrap())
        .push(Activation::Relu)
        .push(Pool2d::max((2, 2)))
        .push(Flatten::default())
        .push(Linear::new(12, 4, true, dev).unwrap())
        .push(LayerNorm::new(&[4], 1e-5, true, dev).unwrap())
        .push(Activation::Gelu)
        .push(Linear::new(4, 3, false, dev).unwrap())
}

#[test]
fn sequential_loads_a_pytorch_state_dict() {
    let f = fixture();
    let get = |k: &str| f[k].clone().downcast::<f64, Cpu>().unwrap();
    let state = sub_state(&f, "state");
    on_every_device!("nn_modules", |dev| {
        let mut model = cnn(&dev);
        let names: Vec<String> = model.state_dict().into_iter().map(|(n, _)| n).collect();
        assert_eq!(
            names,
            [
                "0.weight",
                "0.bias",
                "1.weight",
                "1.bias",
                "5.weight",
                "5.bias",
                "6.weight",
                "6.bias",
                "8.weight",
                "1.running_mean",
                "1.running_var"
            ]
        );
        model.load_state_dict(&state).unwrap();
        model.set_training(false);
        let x = get("x")
            .to_device(&dev)
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        let y = model.forward(&x).unwrap();
        assert_close(&host_f64s(&y), &get("y").to_vec(), 1e-12);
        backward_weighted(&y);
        assert_close(
            &host_f64s(&x.grad_tensor().unwrap()),
            &get("gx").to_vec(),
            1e-12,
        );
        let params: BTreeMap<String, Tensor<f64, _>> =
            model.named_parameters().into_iter().collect();
        for k in ["0.weight", "5.bias"] {
            let g = params[k].grad_tensor().unwrap();
            assert_close(&host_f64s(&g), &get(&format!("g.{k}")).to_vec(), 1e-12);
        }
        // The state dict reads back what was loaded.
        let back: BTreeMap<String, Tensor<f64, _>> = model.state_dict().into_iter().collect();
        assert_eq!(
            host_f64s(&back["1.running_var"]),
            get("state.1.running_var").to_vec()
        );

        // Refusals: a missing key, an unexpected one, a wrong shape; nothing written.
        let mut partial = state.clone();
        partial.remove("6.bias");
        partial.insert("9.weight".into(), state["8.weight"].clone());
        let e = model.load_state_dict(&partial).unwrap_err().to_string();
        assert!(e.contains("6.bias") && e.contains("9.weight"), "{e}");
        let mut wrong = state.clone();
        wrong.insert("8.weight".into(), state["5.bias"].clone());
        let e = model.load_state_dict(&wrong).unwrap_err().to_string();
        assert!(e.contains("8.weight") && e.contains("shape"), "{e}");
        assert_eq!(
            host_f64s(&params["8.weight"]),
            get("state.8.weight").to_vec()
        );
    });
}

/// PyTorch's initialisation bounds, training mode, `Embedding`, `Dropout` and `Flatten`, and
/// a few steps of training that lower the loss.
#[test]
fn modules_initialise_and_train() {
    typed_tensor::manual_seed(2);
    let lin = Linear::<f32, Cpu>::new(100, 50, true, &Cpu).unwrap();
    let bound = 0.1f32; // 1/√100
    assert!(lin.weight.to_vec().iter().all(|v| v.abs() <= bound));
    assert!(lin.weight.to_vec().iter().any(|v| v.abs() > 0.09));
    assert!(
        lin.bias
            .as_ref()
            .unwrap()
            .to_vec()
            .iter()
            .all(|v| v.abs() <= bound)
    );
    assert!(lin.weight.requires_grad());
    let conv = Conv2d::<f32, Cpu>::new(
        4,
        6,
        (3, 3),
        Conv2dOptions {
            groups: 2,
            ..Default::default()
        },
        false,
        &Cpu,
    )
    .unwrap();
    assert_eq!(conv.weight.dims(), [6, 2, 3, 3]);
    assert!(
        conv.weight
            .to_vec()
            .iter()
            .all(|v| v.abs() <= 1.0 / 18f32.sqrt())
    );
    assert!(
        Conv2d::<f32, Cpu>::new(
            3,
            6,
            (3, 3),
            Conv2dOptions {
                groups: 2,
                ..Default::default()
            },
            true,
            &Cpu
        )
        .is_err()
    );
    let emb = Embedding::<f32, Cpu>::new(10, 3, &Cpu).unwrap();
    assert_eq!(
        emb.forward(&tensor![[1i64, 2], [9, 0]]).unwrap().dims(),
        [2, 2, 3]
    );
    assert!(emb.forward(&tensor![10i64]).is_err());

    let mut drop = Sequential::<f32, Cpu>::new().push(Dropout::new(0.5));
    let ones = Tensor::<f32>::ones([1000]).unwrap();
    let y = drop.forward(&ones).unwrap().to_vec();
    assert!(y.iter().all(|&v| v == 0.0 || v == 2.0) && y.contains(&0.0));
    drop.set_training(false);
    assert_eq!(drop.forward(&ones).unwrap().to_vec(), ones.to_vec());
    let flat = Flatten { start: 0, end: 1 };
    let f = Module::<f32, Cpu>::forward(&flat, &Tensor::<f32>::ones([2, 3, 4]).unwrap()).unwrap();
    assert_eq!(f.dims(), [6, 4]);
    assert!(
        Module::<f32, Cpu>::forward(
            &Flatten { start: 2, end: 1 },
            &Tensor::<f32>::ones([2, 3, 4]).unwrap()
        )
        .is_err()
    );

    // A state dict written as safetensors loads into a fresh model of the same layout, in
    // another dtype (converted as PyTorch's copy_ does).
    let a = Sequential::<f32, Cpu>::new()
        .push(Linear::new(3, 4, true, &Cpu).unwrap())
        .push(BatchNorm::new(4, &Cpu).unwrap());
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join("nn_modules_state.safetensors");
    typed_tensor::io::save_safetensors(&path, a.state_dict(), None).unwrap();
    let b = Sequential::<f64, Cpu>::new()
        .push(Linear::new(3, 4, true, &Cpu).unwrap())
        .push(BatchNorm::new(4, &Cpu).unwrap());
    b.load_state_dict(&typed_tensor::io::load_safetensors(&path).unwrap())
        .unwrap();
    let (wa, wb) = (&a.state_dict()[0].1, &b.state_dict()[0].1);
    assert_eq!(wa.cast::<f64>().to_vec(), wb.to_vec());

    // Hostile sizes are errors, not overflows or endless loops.
    let empty = Tensor::<f32>::zeros([0, 1 << 40, 1 << 40]).unwrap();
    let e = Module::<f32, Cpu>::forward(&Flatten::default(), &empty)
        .unwrap_err()
        .to_string();
    assert!(e.contains("Flatten") && e.contains("overflows"), "{e}");
    use typed_tensor::nn::modules::{MultiheadAttention, Rnn};
    use typed_tensor::nn::{MhaOptions, RnnMode, RnnOptions};
    let many = RnnOptions {
        num_layers: 1 << 60,
        ..RnnOptions::default()
    };
    assert!(Rnn::<f32, Cpu>::new(RnnMode::Lstm, 3, 4, true, many, &Cpu).is_err());
    assert!(
        Rnn::<f32, Cpu>::new(
            RnnMode::Lstm,
            3,
            usize::MAX / 2,
            true,
            RnnOptions::default(),
            &Cpu
        )
        .is_err()
    );
    assert!(
        MultiheadAttention::<f32, Cpu>::new(usize::MAX / 2, true, MhaOptions::default(), &Cpu)
            .is_err()
    );

    use typed_tensor::optim::{Adam, Optimizer};
    let model = Sequential::<f32, Cpu>::new()
        .push(Linear::new(3, 16, true, &Cpu).unwrap())
        .push(Activation::Tanh)
        .push(Linear::new(16, 1, true, &Cpu).unwrap());
    let x = Tensor::<f32>::randn([64, 3]).unwrap();
    let target = x.sum(&[1], true).sin();
    let mut opt = Adam::new(model.parameters(), 0.02);
    let loss = |m: &Sequential<f32, Cpu>| {
        typed_tensor::nn::mse_loss(
            &m.forward(&x).unwrap(),
            &target,
            typed_tensor::nn::Reduction::Mean,
        )
        .unwrap()
    };
    let first = loss(&model).item();
    for _ in 0..200 {
        let l = loss(&model);
        opt.zero_grad().unwrap();
        l.backward();
        opt.step().unwrap();
    }
    let last = loss(&model).item();
    assert!(last < first / 10.0, "{first} -> {last}");
}

/// `Rnn` (a 2-layer bidirectional batch-first LSTM, a GRU without biases) and
/// `MultiheadAttention` load PyTorch 2.15's state dicts by name and give its outputs, states,
/// attention weights and input gradient, on every device.
#[test]
fn recurrent_and_attention_modules_match_pytorch() {
    use typed_tensor::nn::modules::{MultiheadAttention, Rnn};
    use typed_tensor::nn::{MhaOptions, RnnMode, RnnOptions};
    let f = fixture();
    let get = |k: &str| f[k].clone().downcast::<f64, Cpu>().unwrap();
    let state = |prefix: &str| sub_state(&f, prefix);
    on_every_device!("rnn_modules", |dev| {
        let opts = RnnOptions {
            num_layers: 2,
            bidirectional: true,
            batch_first: true,
            ..RnnOptions::default()
        };
        let lstm = Rnn::<f64, _>::new(RnnMode::Lstm, 3, 4, true, opts, &dev).unwrap();
        assert_eq!(lstm.named_parameters()[4].0, "weight_ih_l0_reverse");
        lstm.load_state_dict(&state("lstm")).unwrap();
        let s = get("lstm_in")
            .to_device(&dev)
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        let out = lstm.forward(&s, None, None).unwrap();
        assert_close(&host_f64s(&out.output), &get("lstm_out").to_vec(), 1e-12);
        assert_close(&host_f64s(&out.h_n), &get("lstm_h").to_vec(), 1e-12);
        assert_close(
            &host_f64s(&out.c_n.unwrap()),
            &get("lstm_c").to_vec(),
            1e-12,
        );
        backward_weighted(&out.output);
        assert_close(
            &host_f64s(&s.grad_tensor().unwrap()),
            &get("lstm_gin").to_vec(),
            1e-12,
        );

        // Over a packed batch of equal lengths, the packed network is the padded one.
        let packed =
            typed_tensor::nn::pack_padded_sequence(&s.detach(), &[5, 5], true, true).unwrap();
        let p = lstm.forward_packed(&packed, None, None).unwrap();
        let (padded, _) =
            typed_tensor::nn::pad_packed_sequence(&p.output, true, 0.0, None).unwrap();
        assert_close(&host_f64s(&padded), &get("lstm_out").to_vec(), 1e-12);
        assert_close(&host_f64s(&p.h_n), &get("lstm_h").to_vec(), 1e-12);

        let gru =
            Rnn::<f64, _>::new(RnnMode::Gru, 3, 4, false, RnnOptions::default(), &dev).unwrap();
        gru.load_state_dict(&state("gru")).unwrap();
        let out = gru
            .forward(&get("gru_in").to_device(&dev).unwrap(), None, None)
            .unwrap();
        assert_close(&host_f64s(&out.output), &get("gru_out").to_vec(), 1e-12);
        assert_close(&host_f64s(&out.h_n), &get("gru_h").to_vec(), 1e-12);

        let opts = MhaOptions {
            num_heads: 2,
            batch_first: true,
            ..MhaOptions::default()
        };
        let mha = MultiheadAttention::<f64, _>::new(8, true, opts, &dev).unwrap();
        mha.load_state_dict(&state("mha")).unwrap();
        let kv = get("mha_kv").to_device(&dev).unwrap();
        let (o, w) = mha
            .forward(&get("mha_q").to_device(&dev).unwrap(), &kv, &kv, None, None)
            .unwrap();
        assert_close(&host_f64s(&o), &get("mha_out").to_vec(), 1e-12);
        assert_close(&host_f64s(&w.unwrap()), &get("mha_w").to_vec(), 1e-12);
        assert!(
            MultiheadAttention::<f64, _>::new(
                6,
                true,
                MhaOptions {
                    num_heads: 4,
                    ..opts
                },
                &dev
            )
            .is_err()
        );
        assert!(
            Rnn::<f64, _>::new(RnnMode::Tanh, 3, 0, true, RnnOptions::default(), &dev).is_err()
        );
    });
}

/// `TransformerEncoderLayer`: post-LN ReLU sequence-first and pre-LN GELU batch-first layers
/// load PyTorch 2.15's state dicts and give its eval-mode outputs; with a key padding mask,
/// its output and input gradient too.
#[test]
fn transformer_encoder_layer_matches_pytorch() {
    use typed_tensor::nn::modules::{EncoderOptions, TransformerEncoderLayer};
    let f = fixture();
    let get = |k: &str| f[k].clone().downcast::<f64, Cpu>().unwrap();
    on_every_device!("encoder_layer", |dev| {
        for (k, act, first) in [(0, Activation::Relu, false), (1, Activation::Gelu, true)] {
            let opts = EncoderOptions {
                nhead: 2,
                dim_feedforward: 16,
                dropout: 0.0,
                activation: act,
                batch_first: first,
                norm_first: first,
                ..EncoderOptions::default()
            };
            let mut enc = TransformerEncoderLayer::<f64, _>::new(8, opts, &dev).unwrap();
            let state = sub_state(&f, &format!("enc{k}"));
            enc.load_state_dict(&state).unwrap();
            enc.set_training(false);
            let x = get(&format!("enc{k}_x")).to_device(&dev).unwrap();
            let y = enc.forward(&x).unwrap();
            assert_close(&host_f64s(&y), &get(&format!("enc{k}_y")).to_vec(), 1e-10);
            if k == 1 {
                let pad = f["enc1_pad"]
                    .clone()
                    .downcast::<bool, Cpu>()
                    .unwrap()
                    .to_device(&dev)
                    .unwrap();
                let x = x.with_requires_grad(true).unwrap();
                let y = enc.forward_masked(&x, None, Some(&pad)).unwrap();
                assert_close(&host_f64s(&y), &get("enc1_ypad").to_vec(), 1e-10);
                backward_weighted(&y);
                assert_close(
                    &host_f64s(&x.grad_tensor().unwrap()),
                    &get("enc1_gx").to_vec(),
                    1e-10,
                );
            }
        }
        // A stack of two with a final norm: equal layers at first, PyTorch's names, its output.
        let sopts = EncoderOptions {
            nhead: 2,
            dim_feedforward: 16,
            dropout: 0.0,
            ..EncoderOptions::default()
        };
        let stack =
            typed_tensor::nn::modules::TransformerEncoder::<f64, _>::new(8, sopts, 2, true, &dev)
                .unwrap();
        let p: BTreeMap<String, Tensor<f64, _>> = stack.named_parameters().into_iter().collect();
        assert_eq!(
            host_f64s(&p["layers.0.linear1.weight"]),
            host_f64s(&p["layers.1.linear1.weight"])
        );
        assert!(!p["layers.0.linear1.weight"].shares_memory(&p["layers.1.linear1.weight"]));
        assert!(p.contains_key("norm.bias"));
        stack.load_state_dict(&sub_state(&f, "stack")).unwrap();
        let ys = stack
            .forward(&get("stack_x").to_device(&dev).unwrap())
            .unwrap();
        assert_close(&host_f64s(&ys), &get("stack_y").to_vec(), 1e-10);
        let bad = EncoderOptions {
            activation: Activation::Tanh,
            ..EncoderOptions::default()
        };
        assert!(TransformerEncoderLayer::<f64, _>::new(8, bad, &dev).is_err());
    });
}

/// `Conv1d`, `GroupNorm`, `RmsNorm` (the dtype's epsilon) and `Identity` in a `Sequential`,
/// and `ConvTranspose2d` with `PRelu`, load PyTorch 2.15's state dicts and give its outputs;
/// `prefixed` names a struct's fields.
#[test]
fn conv1d_and_norm_modules_match_pytorch() {
    use typed_tensor::nn::modules::{Conv1d, GroupNorm, Identity, RmsNorm, prefixed};
    let f = fixture();
    let get = |k: &str| f[k].clone().downcast::<f64, Cpu>().unwrap();
    let state = sub_state(&f, "seq1");
    on_every_device!("conv1d_norms", |dev| {
        let pad = Conv2dOptions {
            padding: (0, 1),
            ..Conv2dOptions::default()
        };
        let model = Sequential::<f64, _>::new()
            .push(Conv1d::new(2, 4, 3, pad, true, &dev).unwrap())
            .push(GroupNorm::new(2, 4, 1e-5, true, &dev).unwrap())
            .push(RmsNorm::new(&[5], None, true, &dev).unwrap())
            .push(Identity);
        model.load_state_dict(&state).unwrap();
        let y = model
            .forward(&get("seq1_x").to_device(&dev).unwrap())
            .unwrap();
        assert_close(&host_f64s(&y), &get("seq1_y").to_vec(), 1e-12);
        assert!(GroupNorm::<f64, _>::new(3, 4, 1e-5, true, &dev).is_err());
        // A grouped, strided transposed convolution with output padding, then PReLU.
        let up = typed_tensor::nn::modules::ConvTranspose2d::<f64, _>::new(
            2,
            4,
            (3, 3),
            Conv2dOptions {
                stride: (2, 2),
                padding: (1, 1),
                groups: 2,
                ..Conv2dOptions::default()
            },
            (1, 1),
            true,
            &dev,
        )
        .unwrap();
        assert!(
            host_f64s(&up.weight)
                .iter()
                .all(|v| v.abs() <= 1.0 / 18f64.sqrt())
        );
        let model2 = Sequential::<f64, _>::new()
            .push(up)
            .push(typed_tensor::nn::modules::PRelu::new(4, 0.25, &dev).unwrap());
        let state2 = sub_state(&f, "seq2");
        model2.load_state_dict(&state2).unwrap();
        let y2 = model2
            .forward(&get("seq2_x").to_device(&dev).unwrap())
            .unwrap();
        assert_eq!(y2.dims(), [1, 4, 6, 6]);
        assert_close(&host_f64s(&y2), &get("seq2_y").to_vec(), 1e-12);
        let names: Vec<String> = prefixed("enc", &model)
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(names[0], "enc.0.weight");
    });
}

/// `TransformerDecoderLayer` (pre-LN, GELU, batch first) with a causal target mask loads
/// PyTorch 2.15's state dict and gives its output and the target's gradient.
#[test]
fn transformer_decoder_layer_matches_pytorch() {
    use typed_tensor::nn::AttnMask;
    use typed_tensor::nn::modules::{DecoderMasks, EncoderOptions, TransformerDecoderLayer};
    let f = fixture();
    let get = |k: &str| f[k].clone().downcast::<f64, Cpu>().unwrap();
    on_every_device!("decoder_layer", |dev| {
        let opts = EncoderOptions {
            nhead: 2,
            dim_feedforward: 16,
            dropout: 0.0,
            activation: Activation::Gelu,
            batch_first: true,
            norm_first: true,
            ..EncoderOptions::default()
        };
        let dec = TransformerDecoderLayer::<f64, _>::new(8, opts, &dev).unwrap();
        let names: Vec<String> = dec.named_parameters().into_iter().map(|(n, _)| n).collect();
        assert!(names.contains(&"multihead_attn.out_proj.weight".to_string()));
        dec.load_state_dict(&sub_state(&f, "dec")).unwrap();
        let tgt = get("dec_tgt")
            .to_device(&dev)
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        let mem = get("dec_mem").to_device(&dev).unwrap();
        let masks = DecoderMasks {
            tgt_mask: Some(AttnMask::Causal),
            ..DecoderMasks::default()
        };
        let y = dec.forward_masked(&tgt, &mem, &masks).unwrap();
        assert_close(&host_f64s(&y), &get("dec_y").to_vec(), 1e-10);
        backward_weighted(&y);
        assert_close(
            &host_f64s(&tgt.grad_tensor().unwrap()),
            &get("dec_gtgt").to_vec(),
            1e-10,
        );
    });
}

/// The `TransformerDecoder` stack (post-LN, a final norm, a causal target mask),
/// `Transformer` and `Upsample` (bilinear, scale 2) against PyTorch 2.15.
#[test]
fn decoder_stack_and_upsample_match_pytorch() {
    use typed_tensor::nn::modules::{DecoderMasks, EncoderOptions, TransformerDecoder, Upsample};
    use typed_tensor::nn::{AttnMask, Interpolation};
    let f = fixture();
    let get = |k: &str| f[k].clone().downcast::<f64, Cpu>().unwrap();
    on_every_device!("decoder_stack", |dev| {
        let opts = EncoderOptions {
            nhead: 2,
            dim_feedforward: 16,
            dropout: 0.0,
            ..EncoderOptions::default()
        };
        let stack = TransformerDecoder::<f64, _>::new(8, opts, 2, true, &dev).unwrap();
        stack.load_state_dict(&sub_state(&f, "dstack")).unwrap();
        let masks = DecoderMasks {
            tgt_mask: Some(AttnMask::Causal),
            ..DecoderMasks::default()
        };
        let tgt = get("dstack_tgt").to_device(&dev).unwrap();
        let mem = get("dstack_mem").to_device(&dev).unwrap();
        let y = stack.forward_masked(&tgt, &mem, &masks).unwrap();
        assert_close(&host_f64s(&y), &get("dstack_y").to_vec(), 1e-10);
        // nn.Transformer: Xavier bounds at first, then PyTorch's weights and output.
        let tr =
            typed_tensor::nn::modules::Transformer::<f64, _>::new(8, opts, 2, 1, &dev).unwrap();
        let p: BTreeMap<String, Tensor<f64, _>> = tr.named_parameters().into_iter().collect();
        let w = &p["encoder.layers.0.linear1.weight"]; // (16, 8): bound √(6/24)
        assert!(host_f64s(w).iter().all(|v| v.abs() <= 0.5));
        assert!(
            p.contains_key("decoder.norm.weight") && p.contains_key("encoder.layers.1.norm2.bias")
        );
        tr.load_state_dict(&sub_state(&f, "tr")).unwrap();
        let y = tr
            .forward_masked(
                &get("tr_src").to_device(&dev).unwrap(),
                &get("tr_tgt").to_device(&dev).unwrap(),
                None,
                None,
                &masks,
            )
            .unwrap();
        assert_close(&host_f64s(&y), &get("tr_y").to_vec(), 1e-10);
        let up = Upsample {
            scale_factor: vec![2.0, 2.0],
            mode: Interpolation::Bilinear {
                align_corners: false,
            },
        };
        let u = Module::<f64, _>::forward(&up, &get("up_x").to_device(&dev).unwrap()).unwrap();
        assert_eq!(u.dims(), [1, 2, 6, 8]);
        assert_close(&host_f64s(&u), &get("up_y").to_vec(), 1e-12);
    });
}

/// `load_state_dict_with(strict = false)` (PyTorch's `strict=False`) loads the matching
/// entries of a backbone into a model with a new head and reports the rest; shape mismatches
/// are refused whatever `strict` is, writing nothing; `zero_grad` on a model zeroes every
/// parameter's gradient. On every device.
#[test]
fn non_strict_state_dict_and_model_zero_grad() {
    on_every_device!("non_strict_state_dict_and_model_zero_grad", |dev| {
        let model = Sequential::<f32, _>::new()
            .push(Linear::new(4, 3, true, &dev).unwrap())
            .push(Activation::Relu)
            .push(Linear::new(3, 2, true, &dev).unwrap());
        let head_before = host_f64s(&model.named_parameters()[2].1);
        let mut state = BTreeMap::new();
        let w: Vec<f64> = (0..12).map(|i| i as f64 * 0.5).collect();
        let w = Tensor::<f64>::from_vec(w.clone(), [3, 4]).unwrap();
        state.insert("0.weight".to_string(), DynTensor::from(w));
        state.insert(
            "0.bias".to_string(),
            DynTensor::from(Tensor::<f64>::full([3], -1.0).unwrap()),
        );
        state.insert(
            "fc.weight".to_string(),
            DynTensor::from(Tensor::<f64>::ones([5]).unwrap()),
        );
        // Strict: refused, nothing written.
        let e = model.load_state_dict(&state).unwrap_err().to_string();
        assert!(
            e.contains("2.weight") && e.contains("fc.weight") && e.contains("strict"),
            "{e}"
        );
        assert_ne!(host_f64s(&model.named_parameters()[1].1), vec![-1.0; 3]);
        let keys = model.load_state_dict_with(&state, false).unwrap();
        assert_eq!(keys.missing_keys, ["2.weight", "2.bias"]);
        assert_eq!(keys.unexpected_keys, ["fc.weight"]);
        let p = model.named_parameters();
        assert_eq!(
            host_f64s(&p[0].1),
            (0..12).map(|i| i as f64 * 0.5).collect::<Vec<_>>()
        );
        assert_eq!(host_f64s(&p[1].1), vec![-1.0; 3]);
        assert_eq!(host_f64s(&p[2].1), head_before); // the head is left as it was
        // A shape mismatch is refused even when not strict, and nothing is written.
        state.insert(
            "0.bias".to_string(),
            DynTensor::from(Tensor::<f64>::zeros([4]).unwrap()),
        );
        state.insert(
            "0.weight".to_string(),
            DynTensor::from(Tensor::<f64>::zeros([3, 4]).unwrap()),
        );
        let e = model
            .load_state_dict_with(&state, false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("0.bias"), "{e}");
        assert_eq!(host_f64s(&p[0].1)[1], 0.5);
        // zero_grad on the whole model.
        let x = Tensor::<f32>::ones([2, 4])
            .unwrap()
            .to_device(&dev)
            .unwrap();
        model.forward(&x).unwrap().sum(&[], false).backward();
        let total = |m: &Sequential<f32, _>| -> f64 {
            m.parameters()
                .iter()
                .map(|p| {
                    host_f64s(&p.grad_tensor().unwrap())
                        .iter()
                        .map(|g| g.abs())
                        .sum::<f64>()
                })
                .sum()
        };
        assert!(total(&model) > 0.0);
        model.zero_grad().unwrap();
        assert_eq!(total(&model), 0.0);
    });
}

#[test]
fn frozen_layers_are_skipped_and_thawed() {
    use typed_tensor::optim::{Optimizer, Sgd, clip_grad_norm_};
    on_every_device!("frozen_layers_are_skipped_and_thawed", |dev| {
        let model = Sequential::<f32, _>::new()
            .push(Linear::new(3, 4, true, &dev).unwrap())
            .push(Activation::Tanh)
            .push(Linear::new(4, 2, true, &dev).unwrap());
        let x = Tensor::<f32>::from_vec((0..6).map(|i| i as f32 * 0.25 - 0.5).collect(), [2, 3])
            .unwrap()
            .to_device(&dev)
            .unwrap();
        let backbone = model.get(0).unwrap();
        backbone.requires_grad_(false).unwrap();
        let ps = model.parameters();
        let frozen: Vec<bool> = ps.iter().map(|p| !p.requires_grad()).collect();
        assert_eq!(frozen, [true, true, false, false]);
        assert!(ps[0].is_leaf() && ps[0].grad_tensor().is_some()); // the buffer is kept
        // An op on frozen inputs alone records nothing, so backward and hooks refuse it, and
        // a frozen parameter may be written in place with recording on (PyTorch).
        let y0 = backbone.forward(&x).unwrap();
        assert!(!y0.requires_grad());
        assert!(y0.sum(&[], false).try_backward().is_err());
        assert!(ps[0].register_hook(|_| Ok(None)).is_err());
        let before: Vec<Vec<f64>> = ps.iter().map(host_f64s).collect();
        let mut w0 = ps[0].clone();
        w0.mul_scalar_(1.0).unwrap();
        // Fine-tuning the head: the backbone's buffers stay zero and an optimizer that holds
        // every parameter (momentum and weight decay would move a zero gradient) skips them.
        let mut opt = Sgd::new(model.parameters(), 0.1);
        (opt.momentum, opt.weight_decay) = (0.9, 0.1);
        for _ in 0..2 {
            opt.zero_grad().unwrap();
            model
                .forward(&x)
                .unwrap()
                .square()
                .sum(&[], false)
                .backward();
            opt.step().unwrap();
        }
        assert!(
            host_f64s(&ps[0].grad_tensor().unwrap())
                .iter()
                .all(|&g| g == 0.0)
        );
        assert_eq!(host_f64s(&ps[0]), before[0]);
        assert_eq!(host_f64s(&ps[1]), before[1]);
        assert_ne!(host_f64s(&ps[2]), before[2]);
        // clip_grad_norm_ leaves frozen parameters out: the norm is the head's alone.
        let head_norm = |ps: &[Tensor<f32, _>]| -> f64 {
            ps[2..]
                .iter()
                .flat_map(|p| host_f64s(&p.grad_tensor().unwrap()))
                .map(|g| g * g)
                .sum::<f64>()
                .sqrt()
        };
        let mut w0g = ps[0].grad_tensor().unwrap();
        w0g.fill_(5.0).unwrap(); // a stale gradient on the frozen weight must not count
        let expect = head_norm(&ps);
        let total = clip_grad_norm_(&ps, 1e9, 2.0).unwrap();
        assert_close(&host_f64s(&total), &[expect], 1e-5);
        assert!(
            host_f64s(&ps[0].grad_tensor().unwrap())
                .iter()
                .all(|&g| g == 5.0)
        );
        let all_frozen = clip_grad_norm_(&ps[..2], 1.0, 2.0).unwrap();
        assert_eq!(host_f64s(&all_frozen), [0.0]);
        // Thawed (through any handle), the backbone records and trains again; `true` on a
        // parameter that requires grad keeps its buffer.
        let mut handle = ps[0].clone();
        handle.requires_grad_(true).unwrap();
        model.get(0).unwrap().requires_grad_(true).unwrap();
        assert!(model.parameters().iter().all(|p| p.requires_grad()));
        opt.zero_grad().unwrap();
        model
            .forward(&x)
            .unwrap()
            .square()
            .sum(&[], false)
            .backward();
        let g0 = host_f64s(&ps[0].grad_tensor().unwrap());
        assert!(g0.iter().any(|&g| g != 0.0));
        let g2 = host_f64s(&ps[2].grad_tensor().unwrap());
        let mut again = ps[2].clone();
        again.requires_grad_(true).unwrap();
        assert_eq!(host_f64s(&again.grad_tensor().unwrap()), g2);
        assert!(g2.iter().any(|&g| g != 0.0));
        opt.step().unwrap();
        assert_ne!(host_f64s(&ps[0]), before[0]);
    });
}

#[test]
fn embedding_options_and_pretrained() {
    use typed_tensor::nn::EmbeddingOptions;
    use typed_tensor::optim::{Adam, Optimizer};
    on_every_device!("embedding_options_and_pretrained", |dev| {
        let ids = Tensor::<i64>::from_vec(vec![4, 1, 4, 2], [2, 2])
            .unwrap()
            .to_device(&dev)
            .unwrap();
        // padding_idx -1 is row 4: zero at the start, and no gradient through its lookups.
        let pad = EmbeddingOptions {
            padding_idx: Some(-1),
            ..Default::default()
        };
        let e = Embedding::<f32, _>::with_options(5, 3, pad, &dev).unwrap();
        let w = host_f64s(&e.weight);
        assert_eq!(w[12..], [0.0; 3]);
        assert!(w[..12].iter().all(|&v| v != 0.0));
        let y = e.forward(&ids).unwrap();
        assert_eq!(y.dims(), [2, 2, 3]);
        y.mul_scalar(2.0).sum(&[], false).backward();
        let g = host_f64s(&e.weight.grad_tensor().unwrap());
        let want: Vec<f64> = [0.0, 2.0, 2.0, 0.0, 0.0]
            .iter()
            .flat_map(|&r| [r; 3])
            .collect();
        assert_eq!(g, want);
        // max_norm renormalises the rows looked up, in the weight.
        let big = EmbeddingOptions {
            max_norm: Some(1.0),
            ..Default::default()
        };
        let table = Tensor::<f32>::from_vec(vec![3.0, 4.0, 0.3, 0.4], [2, 2])
            .unwrap()
            .to_device(&dev)
            .unwrap();
        let r = Embedding::from_pretrained(&table, false, big).unwrap();
        let first = Tensor::<i64>::zeros([1]).unwrap().to_device(&dev).unwrap();
        r.forward(&first).unwrap();
        assert_close(&host_f64s(&r.weight)[..2], &[0.6, 0.8], 1e-6);
        assert_eq!(host_f64s(&table)[..2], host_f64s(&r.weight)[..2]); // shared storage
        // from_pretrained with freeze: not trained, even by an optimizer that holds it,
        // until thawed.
        let glove = Tensor::<f32>::from_vec((0..15).map(|i| i as f32 * 0.1).collect(), [5, 3])
            .unwrap()
            .to_device(&dev)
            .unwrap();
        let f = Embedding::from_pretrained(&glove, true, Default::default()).unwrap();
        assert_eq!(f.named_parameters().len(), 1);
        let mut opt = Adam::new(f.parameters(), 0.1);
        let y = f.forward(&ids).unwrap();
        assert!(!y.requires_grad());
        assert_eq!(host_f64s(&y)[..3], host_f64s(&glove)[12..]);
        opt.step().unwrap();
        assert_eq!(host_f64s(&f.weight), host_f64s(&glove));
        f.requires_grad_(true).unwrap();
        f.forward(&ids).unwrap().sum(&[], false).backward();
        opt.step().unwrap();
        assert_ne!(
            host_f64s(&f.weight)[3..6],
            [0.3f32 as f64, 0.4f32 as f64, 0.5f32 as f64]
        );
        assert_eq!(host_f64s(&f.weight)[..3], host_f64s(&glove)[..3]); // row 0 not looked up
        // Refusals, naming what is wrong.
        let err = |r: typed_tensor::Result<Embedding<f32, _>>| r.err().unwrap().to_string();
        for p in [5, -6] {
            let o = EmbeddingOptions {
                padding_idx: Some(p),
                ..Default::default()
            };
            assert!(err(Embedding::with_options(5, 3, o, &dev)).contains(&p.to_string()));
            assert!(err(Embedding::from_pretrained(&glove, true, o)).contains("Embedding"));
        }
        let nan = EmbeddingOptions {
            max_norm: Some(f64::NAN),
            ..Default::default()
        };
        assert!(err(Embedding::with_options(5, 3, nan, &dev)).contains("max_norm"));
        let flat = glove.reshape([15]);
        assert!(err(Embedding::from_pretrained(&flat, true, Default::default())).contains("2-d"));
    });
}
