//! More of `nn::modules` against PyTorch 2.15 (`tests/data/torch_grads/modules.npz`, made by
//! `make/modules.py`): `Conv3d`, `ConvTranspose3d`, `ConvTranspose1d`, the 1-d and 3-d pools
//! and adaptive pools, every `Activation`, and the loss layers; on every device.

use crate::common::{assert_close, host_f64s};
use crate::nn_modules::{fixture, sub_state};
use typed_tensor::nn::modules::*;
use typed_tensor::nn::{Conv2dOptions, Conv3dOptions, Reduction};
use typed_tensor::prelude::*;

#[test]
fn volume_and_transposed_modules_match_pytorch() {
    let f = fixture();
    let get = |k: &str| f[k].clone().downcast::<f64, Cpu>().unwrap();
    on_every_device!("volume_modules", |dev| {
        let conv = Conv3d::<f64, _>::new(
            2,
            4,
            (2, 3, 3),
            Conv3dOptions {
                stride: (1, 2, 1),
                padding: (1, 1, 0),
                groups: 2,
                ..Conv3dOptions::default()
            },
            true,
            &dev,
        )
        .unwrap();
        // PyTorch's bound: 1/√(in/groups·kd·kh·kw) = 1/√18.
        assert!(
            host_f64s(&conv.weight)
                .iter()
                .all(|v| v.abs() <= 1.0 / 18f64.sqrt())
        );
        let up = ConvTranspose3d::<f64, _>::new(
            4,
            2,
            (2, 2, 2),
            Conv3dOptions {
                stride: (2, 2, 2),
                ..Conv3dOptions::default()
            },
            (1, 1, 1),
            true,
            &dev,
        )
        .unwrap();
        let seq3 = Sequential::new()
            .push(conv)
            .push(Activation::Elu(0.7))
            .push(Pool3d::max((2, 2, 2)))
            .push(up)
            .push(AdaptivePool3d::avg((2, 3, 2)));
        seq3.load_state_dict(&sub_state(&f, "seq3")).unwrap();
        let y = seq3
            .forward(&get("seq3_x").to_device(&dev).unwrap())
            .unwrap();
        assert_eq!(y.dims(), [2, 2, 2, 3, 2]);
        assert_close(&host_f64s(&y), &get("seq3_y").to_vec(), 1e-12);

        let t1 = ConvTranspose1d::<f64, _>::new(
            3,
            4,
            3,
            Conv2dOptions {
                stride: (1, 2),
                padding: (0, 1),
                ..Conv2dOptions::default()
            },
            1,
            true,
            &dev,
        )
        .unwrap();
        let seq4 = Sequential::new()
            .push(t1)
            .push(Activation::Softplus {
                beta: 2.0,
                threshold: 1.0,
            })
            .push(Pool1d {
                stride: 2,
                ..Pool1d::avg(3)
            })
            .push(Activation::Hardswish)
            .push(AdaptivePool1d::max(3));
        seq4.load_state_dict(&sub_state(&f, "seq4")).unwrap();
        let x = get("seq4_x")
            .to_device(&dev)
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        let y = seq4.forward(&x).unwrap();
        assert_close(&host_f64s(&y), &get("seq4_y").to_vec(), 1e-12);
        crate::nn_modules::backward_weighted(&y);
        assert_close(
            &host_f64s(&x.grad_tensor().unwrap()),
            &get("seq4_gx").to_vec(),
            1e-12,
        );
        // Global average pooling, and the groups check of every convolution.
        let g = AdaptivePool2d::avg((1, 1))
            .forward(
                &Tensor::<f64, _>::arange_on(0.0, 8.0, 1.0, &dev)
                    .unwrap()
                    .try_reshape([1, 2, 2, 2])
                    .unwrap(),
            )
            .unwrap();
        assert_eq!(host_f64s(&g), [1.5, 5.5]);
        let bad = Conv3dOptions {
            groups: 3,
            ..Conv3dOptions::default()
        };
        assert!(Conv3d::<f64, _>::new(4, 6, (1, 1, 1), bad, true, &dev).is_err());
        assert!(
            ConvTranspose3d::<f64, _>::new(4, 6, (1, 1, 1), bad, (0, 0, 0), true, &dev).is_err()
        );
        let bad2 = Conv2dOptions {
            groups: 0,
            ..Conv2dOptions::default()
        };
        assert!(ConvTranspose1d::<f64, _>::new(4, 6, 1, bad2, 0, true, &dev).is_err());
        let huge = Conv3d::<f64, _>::new(
            1,
            1,
            (usize::MAX, 2, 1),
            Conv3dOptions::default(),
            true,
            &dev,
        );
        assert!(
            huge.err()
                .unwrap()
                .to_string()
                .contains("too many elements")
        );
    });
}

#[test]
fn activations_match_pytorch() {
    let f = fixture();
    let get = |k: &str| f[k].clone().downcast::<f64, Cpu>().unwrap();
    let acts = [
        ("relu", Activation::Relu),
        ("gelu", Activation::Gelu),
        ("gelu_tanh", Activation::GeluTanh),
        ("tanh", Activation::Tanh),
        ("sigmoid", Activation::Sigmoid),
        ("silu", Activation::Silu),
        ("leaky_relu", Activation::LeakyRelu(0.2)),
        ("softmax", Activation::Softmax(1)),
        ("log_softmax", Activation::LogSoftmax(0)),
        ("softmin", Activation::Softmin(1)),
        ("elu", Activation::Elu(0.5)),
        ("celu", Activation::Celu(1.5)),
        ("selu", Activation::Selu),
        (
            "softplus",
            Activation::Softplus {
                beta: 0.5,
                threshold: 2.0,
            },
        ),
        ("mish", Activation::Mish),
        ("hardtanh", Activation::Hardtanh(-0.5, 2.0)),
        ("relu6", Activation::Relu6),
        ("hardswish", Activation::Hardswish),
        ("hardsigmoid", Activation::Hardsigmoid),
        ("softsign", Activation::Softsign),
        ("tanhshrink", Activation::Tanhshrink),
        ("softshrink", Activation::Softshrink(0.7)),
        ("hardshrink", Activation::Hardshrink(0.7)),
        ("logsigmoid", Activation::LogSigmoid),
        ("glu", Activation::Glu(1)),
        ("threshold", Activation::Threshold(0.3, -2.0)),
    ];
    on_every_device!("activations", |dev| {
        let x = get("act_x").to_device(&dev).unwrap();
        for (name, a) in acts {
            let y = a.forward(&x).unwrap();
            assert_eq!(y.dims(), get(&format!("act.{name}")).dims(), "{name}");
            let want = get(&format!("act.{name}")).to_vec();
            assert_close(&host_f64s(&y), &want, 1e-12);
        }
        let x32 = x.try_cast::<f32>().unwrap();
        assert!(
            Activation::Softplus {
                beta: 0.0,
                threshold: 20.0
            }
            .forward(&x32)
            .is_err()
        );
        assert!(Activation::Softshrink(-1.0).forward(&x32).is_err());
        assert!(Activation::Glu(0).forward(&x32).is_err()); // 3 rows: odd
    });
}

#[test]
fn loss_modules_match_pytorch() {
    let f = fixture();
    let get = |k: &str| f[k].clone().downcast::<f64, Cpu>().unwrap();
    on_every_device!("loss_modules", |dev| {
        let on = |k: &str| get(k).to_device(&dev).unwrap();
        let (x, v, p, w) = (on("loss_x"), on("loss_v"), on("loss_p"), on("loss_w"));
        let t = f["loss_t"]
            .clone()
            .downcast::<i64, Cpu>()
            .unwrap()
            .to_device(&dev)
            .unwrap();
        let logp = x.try_log_softmax(1).unwrap();
        let check = |name: &str, got: Tensor<f64, _>| {
            assert_close(
                &host_f64s(&got),
                &get(&format!("loss.{name}")).to_vec(),
                1e-12,
            );
        };
        let ce = CrossEntropyLoss {
            weight: Some(w.clone()),
            ignore_index: Some(1),
            label_smoothing: 0.1,
            ..CrossEntropyLoss::default()
        };
        check("ce", ce.forward(&x, &t).unwrap());
        let ce2 = CrossEntropyLoss {
            label_smoothing: 0.2,
            ..CrossEntropyLoss::default()
        };
        check("ce_probs", ce2.forward_probs(&x, &p).unwrap());
        let nll = NllLoss {
            weight: Some(w.clone()),
            reduction: Reduction::Sum,
            ..NllLoss::default()
        };
        check("nll", nll.forward(&logp, &t).unwrap());
        check("mse", MseLoss::default().forward(&x, &v).unwrap());
        let l1 = L1Loss {
            reduction: Reduction::Sum,
        };
        check("l1", l1.forward(&x, &v).unwrap());
        let sl1 = SmoothL1Loss {
            beta: 0.5,
            ..SmoothL1Loss::default()
        };
        check("smooth_l1", sl1.forward(&x, &v).unwrap());
        let hub = HuberLoss {
            delta: 0.3,
            reduction: Reduction::None,
        };
        check("huber", hub.forward(&x, &v).unwrap());
        let kl = KlDivLoss {
            batchmean: true,
            ..KlDivLoss::default()
        };
        check("kl", kl.forward(&logp, &p).unwrap());
        let kl_log = KlDivLoss {
            log_target: true,
            ..KlDivLoss::default()
        };
        check(
            "kl_log",
            kl_log.forward(&logp, &p.try_log().unwrap()).unwrap(),
        );
        check(
            "bce",
            BceLoss::default()
                .forward(&x.try_sigmoid().unwrap(), &p)
                .unwrap(),
        );
        let bcel = BceWithLogitsLoss {
            pos_weight: Some(w.clone()),
            ..BceWithLogitsLoss::default()
        };
        check("bce_logits", bcel.forward(&x, &p).unwrap());
        // A target out of range, and shapes that do not match: Errs naming the op.
        let bad = Tensor::<i64, _>::from_vec_on(vec![0, 3, 1, 1, 2], [5], &dev).unwrap();
        let e = CrossEntropyLoss::<f64, _>::default()
            .forward(&x, &bad)
            .unwrap_err();
        assert!(e.to_string().contains("cross_entropy"), "{e}");
        let e = MseLoss::default()
            .forward(&x, &v.narrow(0, 0, 2).unwrap())
            .unwrap_err();
        assert!(e.to_string().contains("mse_loss"), "{e}");
    });
}

#[test]
fn cells_bilinear_bags_and_rearranging_layers_match_pytorch() {
    use typed_tensor::nn::{BagMode, RnnMode};
    use typed_tensor::ops::pad::PadMode;
    let f = fixture();
    let get = |k: &str| f[k].clone().downcast::<f64, Cpu>().unwrap();
    on_every_device!("cells_and_rearranging", |dev| {
        let on = |k: &str| get(k).to_device(&dev).unwrap();
        let (x, h, c) = (on("cell_x"), on("cell_h"), on("cell_c"));
        let lstm = RnnCell::<f64, _>::new(RnnMode::Lstm, 3, 4, true, &dev).unwrap();
        let gru = RnnCell::<f64, _>::new(RnnMode::Gru, 3, 4, false, &dev).unwrap();
        let relu = RnnCell::<f64, _>::new(RnnMode::Relu, 3, 4, true, &dev).unwrap();
        // PyTorch's bound 1/√H = 0.5.
        assert!(host_f64s(&lstm.weight_ih).iter().all(|v| v.abs() <= 0.5));
        for (k, cell) in [("lstm", &lstm), ("gru", &gru), ("relu", &relu)] {
            cell.load_state_dict(&sub_state(&f, &format!("cell_{k}")))
                .unwrap();
        }
        let (h2, c2) = lstm.step(&x, Some(&h), Some(&c)).unwrap();
        assert_close(&host_f64s(&h2), &get("cell_lstm_h").to_vec(), 1e-12);
        assert_close(
            &host_f64s(&c2.unwrap()),
            &get("cell_lstm_c").to_vec(),
            1e-12,
        );
        let (g, none) = gru.step(&x, Some(&h), None).unwrap();
        assert!(none.is_none());
        assert_close(&host_f64s(&g), &get("cell_gru_h").to_vec(), 1e-12);
        assert_close(
            &host_f64s(&relu.step(&x, None, None).unwrap().0),
            &get("cell_relu_h").to_vec(),
            1e-12,
        );
        let x0 = x.select(0, 0).unwrap();
        assert_close(
            &host_f64s(&gru.step(&x0, None, None).unwrap().0),
            &get("cell_gru1_h").to_vec(),
            1e-12,
        );
        assert!(gru.step(&x, None, Some(&c)).is_err());
        let mut broken = gru.clone();
        broken.weight_hh = Tensor::zeros_on([3], &dev).unwrap();
        assert!(
            broken
                .step(&x, None, None)
                .unwrap_err()
                .to_string()
                .contains("weight_hh")
        );
        assert!(RnnCell::<f64, _>::new(RnnMode::Gru, 3, 0, true, &dev).is_err());
        assert!(RnnCell::<f64, _>::new(RnnMode::Lstm, 3, usize::MAX / 2, true, &dev).is_err());

        let bil = Bilinear::<f64, _>::new(3, 2, 4, true, &dev).unwrap();
        bil.load_state_dict(&sub_state(&f, "bil")).unwrap();
        let y = bil.forward(&on("bil_x1"), &on("bil_x2")).unwrap();
        assert_close(&host_f64s(&y), &get("bil_y").to_vec(), 1e-12);

        let mut bag = EmbeddingBag::<f64, _>::new(10, 3, BagMode::Max, &dev).unwrap();
        bag.load_state_dict(&sub_state(&f, "bag")).unwrap();
        let int = |k: &str| {
            f[k].clone()
                .downcast::<i64, Cpu>()
                .unwrap()
                .to_device(&dev)
                .unwrap()
        };
        let (input, offsets) = (int("bag_in"), int("bag_off"));
        let y = bag.forward(&input, Some(&offsets), None).unwrap();
        assert_close(&host_f64s(&y), &get("bag_y").to_vec(), 1e-12);
        bag.mode = BagMode::Sum;
        let y = bag
            .forward(&input, Some(&offsets), Some(&on("bag_psw")))
            .unwrap();
        assert_close(&host_f64s(&y), &get("bag_sum_y").to_vec(), 1e-12);

        let inorm = InstanceNorm::<f64, _>::new(3, 1e-5, true, &dev).unwrap();
        inorm.load_state_dict(&sub_state(&f, "inorm")).unwrap();
        assert_close(
            &host_f64s(&inorm.forward(&on("inorm_x")).unwrap()),
            &get("inorm_y").to_vec(),
            1e-12,
        );
        assert!(
            InstanceNorm::<f64, _>::new(3, 1e-5, false, &dev)
                .unwrap()
                .named_parameters()
                .is_empty()
        );

        let chain = Sequential::<f64, _>::new()
            .push(PixelShuffle(2))
            .push(Pad::with_mode(vec![(0, 1), (1, 2)], PadMode::Reflect))
            .push(ChannelShuffle(2))
            .push(Unflatten {
                axis: 1,
                sizes: vec![2, 1],
            })
            .push(Flatten { start: 3, end: -1 })
            .push(Pad {
                padding: vec![(2, 0)],
                mode: None,
                value: -1.5,
            });
        let chx = on("chain_x");
        let y = chain.forward(&chx).unwrap();
        assert_eq!(y.dims(), [1, 2, 1, 47]);
        assert_close(&host_f64s(&y), &get("chain_y").to_vec(), 0.0);
        let unsh = PixelUnshuffle(2)
            .forward(&chx.try_reshape([1, 2, 4, 6]).unwrap())
            .unwrap();
        assert_close(&host_f64s(&unsh), &get("unsh_y").to_vec(), 0.0);
        assert!(Pad::zeros(vec![(1, 1); 5]).forward(&chx).is_err());
        assert!(Module::<f64, _>::forward(&PixelShuffle(3), &chx).is_err());
    });
}

#[test]
fn sequential_indexes_its_layers() {
    let mut s = Sequential::<f64, Cpu>::new()
        .push(Linear::new(2, 3, true, &Cpu).unwrap())
        .push(Dropout::new(0.5))
        .push(Activation::Relu);
    assert_eq!(s.iter().count(), 3);
    assert_eq!(s.get(0).unwrap().named_parameters().len(), 2);
    assert!(s.get(3).is_none());
    s.get_mut(1).unwrap().set_training(false);
    let x = Tensor::<f64>::ones([4, 2]).unwrap();
    // Dropout off: two forwards agree.
    let y = s.forward(&x).unwrap();
    let mid = s.get(0).unwrap().forward(&x).unwrap().try_relu().unwrap();
    assert_eq!(y.to_vec(), mid.to_vec());
}

/// A user's model whose fields are a `Vec` of layers (PyTorch's `ModuleList`), an optional
/// sub-module and a boxed layer.
struct Net<D: Backend> {
    blocks: Vec<Linear<f64, D>>,
    norms: Vec<BatchNorm<f64, D>>,
    drops: Vec<Dropout>,
    final_norm: Option<LayerNorm<f64, D>>,
    head: Box<dyn Module<f64, D>>,
}

impl<D: Backend> Net<D> {
    fn new(final_norm: bool, dev: &D) -> Self {
        let norm = LayerNorm::new(&[3], 1e-5, true, dev).unwrap();
        Net {
            blocks: (0..2)
                .map(|_| Linear::new(3, 3, true, dev).unwrap())
                .collect(),
            norms: (0..2).map(|_| BatchNorm::new(3, dev).unwrap()).collect(),
            drops: vec![Dropout::new(0.5), Dropout::new(0.5)],
            final_norm: final_norm.then_some(norm),
            head: Box::new(Linear::new(3, 1, false, dev).unwrap()),
        }
    }
}

impl<D: Backend> Parameters<f64, D> for Net<D> {
    fn named_parameters(&self) -> Vec<(String, Tensor<f64, D>)> {
        [
            prefixed("blocks", &self.blocks),
            prefixed("norms", &self.norms),
            prefixed("final_norm", &self.final_norm),
            prefixed("head", &self.head),
        ]
        .concat()
    }
    fn named_buffers(&self) -> Vec<(String, Tensor<f64, D>)> {
        prefixed_buffers("norms", &self.norms)
    }
    fn set_training(&mut self, training: bool) {
        Parameters::<f64, D>::set_training(&mut self.norms, training);
        Parameters::<f64, D>::set_training(&mut self.drops, training);
    }
}

impl<D: Backend> Module<f64, D> for Net<D> {
    fn forward(&self, x: &Tensor<f64, D>) -> typed_tensor::Result<Tensor<f64, D>> {
        let mut h = x.clone();
        for ((b, n), d) in self.blocks.iter().zip(&self.norms).zip(&self.drops) {
            h = d.forward(&n.forward(&b.forward(&h)?)?)?;
        }
        self.head.forward(&self.final_norm.forward(&h)?)
    }
}

#[test]
fn layer_lists_optional_and_boxed_layers_are_modules() {
    on_every_device!("module_containers", |dev| {
        let mut a = Net::new(true, &dev);
        let names: Vec<String> = a.state_dict().into_iter().map(|(n, _)| n).collect();
        let want = [
            "blocks.0.weight",
            "blocks.0.bias",
            "blocks.1.weight",
            "blocks.1.bias",
            "norms.0.weight",
            "norms.0.bias",
            "norms.1.weight",
            "norms.1.bias",
            "final_norm.weight",
            "final_norm.bias",
            "head.weight",
            "norms.0.running_mean",
            "norms.0.running_var",
            "norms.1.running_mean",
            "norms.1.running_var",
        ];
        assert_eq!(names, want);
        // Gradients reach every parameter; `set_training` reaches the lists.
        let x = Tensor::<f64, _>::randn_on([8, 3], &dev).unwrap();
        a.forward(&x)
            .unwrap()
            .try_sum(&[], false)
            .unwrap()
            .try_backward()
            .unwrap();
        assert!(a.parameters().iter().all(|p| p.grad_tensor().is_some()));
        a.set_training(false);
        assert!(a.drops.iter().all(|d| !d.training));
        // A second model loaded from the first's state computes the same.
        let b = Net::new(true, &dev);
        let state = a
            .state_dict()
            .into_iter()
            .map(|(n, t)| (n, DynTensor::from(t)))
            .collect();
        b.load_state_dict(&state).unwrap();
        let mut b = b;
        b.set_training(false);
        assert_eq!(
            host_f64s(&a.forward(&x).unwrap()),
            host_f64s(&b.forward(&x).unwrap())
        );
        // Without the optional norm: no such parameters, and the state no longer loads.
        let c = Net::new(false, &dev);
        assert_eq!(c.named_parameters().len(), 9);
        let e = c.load_state_dict(&state).unwrap_err().to_string();
        assert!(e.contains("final_norm.weight"), "{e}");
        // Named layers (PyTorch's `ModuleDict`).
        let mut named = std::collections::BTreeMap::new();
        named.insert(
            "enc".to_string(),
            BatchNorm::<f64, _>::new(2, &dev).unwrap(),
        );
        named.insert("dec".to_string(), BatchNorm::new(2, &dev).unwrap());
        let names: Vec<String> = named.state_dict().into_iter().map(|(n, _)| n).collect();
        assert_eq!(names[..2], ["dec.weight", "dec.bias"]);
        assert_eq!(names[4..6], ["dec.running_mean", "dec.running_var"]);
        Parameters::<f64, _>::set_training(&mut named, false);
        assert!(named.values().all(|b| !b.training));
        // A `Sequential` of boxed layers, and an absent layer as the identity.
        let s = Sequential::<f64, _>::new()
            .push(a.head)
            .push(None::<Linear<f64, _>>);
        assert_eq!(s.named_parameters()[0].0, "0.weight");
        assert_eq!(s.forward(&x).unwrap().dims(), [8, 1]);
    });
}
