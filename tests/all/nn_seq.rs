//! `scaled_dot_product_attention` and the recurrent cells against PyTorch 2.15's values and
//! gradients (`tests/data/torch_grads/attention.npz`, made by `make/attention.py`): in f64 on
//! every device, in f32 and f16 at their precision; refused shapes.

use crate::common::assert_close;
use std::collections::BTreeMap;
use typed_tensor::dynamic::DynTensor;
use typed_tensor::io::load_npz;
use typed_tensor::nn::{
    AttentionOptions, AttnMask, CellWeights, gru_cell, lstm_cell, rnn_relu_cell, rnn_tanh_cell,
    scaled_dot_product_attention,
};
use typed_tensor::prelude::*;

type Arrays = BTreeMap<String, DynTensor>;

fn fixture() -> Arrays {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/torch_grads");
    load_npz(format!("{dir}/attention.npz")).unwrap()
}

/// Array `key` as a `Tensor<T, D>` on `dev`.
fn get<T: FloatElement, D: Backend>(a: &Arrays, key: &str, dev: &D) -> Tensor<T, D> {
    let t = a[key].clone().downcast::<f64, Cpu>().unwrap();
    t.cast::<T>().to_device(dev).unwrap()
}

use crate::common::host_f64s as f64s;

/// Runs case `name` (its inputs `names` as leaves) through `f`, and compares the outputs and
/// the leaves' gradients of `sum(out_i * w_i)` with PyTorch's.
fn check_case<T: FloatElement, D: Backend>(
    a: &Arrays,
    dev: &D,
    name: &str,
    names: &[&str],
    rel: f64,
    f: impl Fn(&[Tensor<T, D>]) -> Result<Vec<Tensor<T, D>>>,
) {
    let leaves: Vec<Tensor<T, D>> = names
        .iter()
        .map(|n| {
            get::<T, D>(a, &format!("{name}_{n}"), dev)
                .with_requires_grad(true)
                .unwrap()
        })
        .collect();
    let outs = f(&leaves).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut loss: Option<Tensor<T, D>> = None;
    for (i, o) in outs.iter().enumerate() {
        let want = get::<f64, Cpu>(a, &format!("{name}_out{i}"), &Cpu);
        assert_eq!(o.dims(), want.dims(), "{name} output {i}");
        assert_close(&f64s(o), &want.to_vec(), rel);
        let term = o
            .mul(&get::<T, D>(a, &format!("{name}_w{i}"), dev))
            .sum(&[], false);
        loss = Some(match loss {
            Some(l) => l.add(&term),
            None => term,
        });
    }
    loss.unwrap().backward();
    for (n, leaf) in names.iter().zip(&leaves) {
        let want = get::<f64, Cpu>(a, &format!("{name}_g{n}"), &Cpu).to_vec();
        let got = f64s(&leaf.grad_tensor().unwrap());
        // Gradients add up more terms: a few roundings more.
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                (g - w).abs() <= 4.0 * rel * w.abs().max(1.0),
                "{name} ({:?}): gradient of {n}, element {i}: {g} against PyTorch's {w}",
                T::DTYPE
            );
        }
    }
}

/// Every attention case in `T` on `dev`.
fn attention_cases<T: FloatElement, D: Backend>(a: &Arrays, dev: &D, rel: f64) {
    let qkv = ["q", "k", "v"];
    let sdpa = |l: &[Tensor<T, D>], mask: Option<AttnMask<'_, T, D>>, opts: AttentionOptions| {
        scaled_dot_product_attention(&l[0], &l[1], &l[2], mask, opts).map(|o| vec![o])
    };
    let def = AttentionOptions::default();
    for name in ["plain", "unbatched"] {
        check_case(a, dev, name, &qkv, rel, |l| sdpa(l, None, def));
    }
    let bool_mask = a["bool_mask"]
        .clone()
        .downcast::<bool, Cpu>()
        .unwrap()
        .to_device(dev)
        .unwrap();
    check_case(a, dev, "bool", &qkv, rel, |l| {
        sdpa(l, Some(AttnMask::Bool(&bool_mask)), def)
    });
    let add = get::<T, D>(a, "float_mask", dev);
    check_case(a, dev, "additive", &qkv, rel, |l| {
        sdpa(l, Some(AttnMask::Additive(&add)), def)
    });
    check_case(a, dev, "causal_tall", &qkv, rel, |l| {
        sdpa(l, Some(AttnMask::Causal), def)
    });
    let scaled = AttentionOptions {
        scale: Some(0.3),
        ..def
    };
    check_case(a, dev, "causal_wide_scale", &qkv, rel, |l| {
        sdpa(l, Some(AttnMask::Causal), scaled)
    });
    let gqa = AttentionOptions {
        enable_gqa: true,
        ..def
    };
    check_case(a, dev, "gqa", &qkv, rel, |l| {
        sdpa(l, Some(AttnMask::Causal), gqa)
    });
}

/// Every recurrent-cell case in `T` on `dev`.
fn cell_cases<T: FloatElement, D: Backend>(a: &Arrays, dev: &D, rel: f64) {
    for cell in ["rnn_tanh", "rnn_relu", "lstm", "gru"] {
        for variant in ["", "_nobias", "_unbatched"] {
            let name = format!("{cell}{variant}");
            let mut names = vec!["x", "h", "w_ih", "w_hh"];
            if variant != "_nobias" {
                names.extend(["b_ih", "b_hh"]);
            }
            if cell == "lstm" {
                names.push("c");
            }
            let bias = variant != "_nobias";
            check_case(a, dev, &name, &names, rel, |l: &[Tensor<T, D>]| {
                let w = CellWeights {
                    w_ih: &l[2],
                    w_hh: &l[3],
                    b_ih: bias.then(|| &l[4]),
                    b_hh: bias.then(|| &l[5]),
                };
                Ok(match cell {
                    "rnn_tanh" => vec![rnn_tanh_cell(&l[0], &l[1], w)?],
                    "rnn_relu" => vec![rnn_relu_cell(&l[0], &l[1], w)?],
                    "gru" => vec![gru_cell(&l[0], &l[1], w)?],
                    _ => {
                        let c = &l[l.len() - 1];
                        let (h, c) = lstm_cell(&l[0], (&l[1], c), w)?;
                        vec![h, c]
                    }
                })
            });
        }
    }
}

#[test]
fn attention_and_cells_match_pytorch() {
    let a = fixture();
    on_every_device!("attention_and_cells_match_pytorch", |dev| {
        attention_cases::<f64, _>(&a, &dev, 1e-12);
        cell_cases::<f64, _>(&a, &dev, 1e-12);
    });
    attention_cases::<f32, _>(&a, &Cpu, 2e-6);
    cell_cases::<f32, _>(&a, &Cpu, 2e-6);
    attention_cases::<f16, _>(&a, &Cpu, 4e-3);
    cell_cases::<bf16, _>(&a, &Cpu, 3e-2);
}

#[test]
fn attention_and_cells_refuse_bad_shapes() {
    let r = |dims: &[usize]| Tensor::<f32>::zeros(dims.to_vec()).unwrap();
    let def = AttentionOptions::default();
    let sdpa = |q: &Tensor<f32>, k: &Tensor<f32>, v: &Tensor<f32>, opts| {
        scaled_dot_product_attention(q, k, v, None, opts)
            .unwrap_err()
            .to_string()
    };
    let (q, k, v) = (r(&[2, 3, 4]), r(&[2, 5, 4]), r(&[2, 5, 6]));
    for e in [
        sdpa(&r(&[4]), &k, &v, def),
        sdpa(&q, &r(&[2, 5, 3]), &v, def),
        sdpa(&q, &k, &r(&[2, 4, 6]), def),
        sdpa(
            &q,
            &k,
            &v,
            AttentionOptions {
                dropout_p: 1.5,
                ..def
            },
        ),
        sdpa(
            &q,
            &k,
            &v,
            AttentionOptions {
                scale: Some(f64::NAN),
                ..def
            },
        ),
        // Three query heads cannot share two key/value heads.
        sdpa(
            &r(&[1, 3, 4, 4]),
            &r(&[1, 2, 5, 4]),
            &r(&[1, 2, 5, 6]),
            AttentionOptions {
                enable_gqa: true,
                ..def
            },
        ),
        sdpa(&r(&[3, 2, 4, 4]), &r(&[2, 2, 5, 4]), &r(&[2, 2, 5, 6]), def),
    ] {
        assert!(
            e.contains("scaled_dot_product_attention") || e.contains("matmul"),
            "{e}"
        );
    }
    let m = Tensor::<bool>::ones([4, 5]).unwrap();
    let e = scaled_dot_product_attention(&q, &k, &v, Some(AttnMask::Bool(&m)), def).unwrap_err();
    assert!(
        e.to_string().contains("broadcast") || e.to_string().contains("shape"),
        "{e}"
    );
    // Dropout 1 zeroes every weight; dropout 0 is the plain attention.
    let (q, k, v) = (
        Tensor::<f32>::randn([2, 3, 4]).unwrap(),
        r(&[2, 5, 4]),
        Tensor::<f32>::ones([2, 5, 6]).unwrap(),
    );
    let zero = scaled_dot_product_attention(
        &q,
        &k,
        &v,
        None,
        AttentionOptions {
            dropout_p: 1.0,
            ..def
        },
    )
    .unwrap();
    assert!(zero.to_vec().iter().all(|&x| x == 0.0));
    let plain = scaled_dot_product_attention(&q, &k, &v, None, def).unwrap();
    assert_close(&crate::common::f64s(&plain), &[1.0; 36], 1e-6);

    let (x, h) = (r(&[3, 5]), r(&[3, 4]));
    let (w_ih, w_hh) = (r(&[16, 5]), r(&[16, 4]));
    let w = CellWeights {
        w_ih: &w_ih,
        w_hh: &w_hh,
        b_ih: None,
        b_hh: None,
    };
    assert!(lstm_cell(&x, (&h, &h), w).is_ok());
    // No hidden units: every gate is empty, and so are the states.
    let (w0, h0) = (r(&[0, 5]), r(&[0, 0]));
    let none = CellWeights {
        w_ih: &w0,
        w_hh: &h0,
        b_ih: None,
        b_hh: None,
    };
    let (h2, c2) = lstm_cell(&x, (&r(&[3, 0]), &r(&[3, 0])), none).unwrap();
    assert_eq!((h2.dims(), c2.dims()), (&[3, 0][..], &[3, 0][..]));
    assert_eq!(gru_cell(&x, &r(&[3, 0]), none).unwrap().dims(), &[3, 0]);
    let bad_b = r(&[15]);
    for e in [
        gru_cell(&x, &h, w).unwrap_err(), // 16 rows are not 3 gates of 4
        lstm_cell(&r(&[3, 6]), (&h, &h), w).unwrap_err(), // In
        lstm_cell(&x, (&r(&[2, 4]), &h), w).unwrap_err(), // batch of h
        lstm_cell(&x, (&h, &r(&[3, 5])), w).unwrap_err(), // c
        lstm_cell(&r(&[2, 3, 5]), (&h, &h), w).unwrap_err(), // 3-d x
        lstm_cell(
            &x,
            (&h, &h),
            CellWeights {
                b_ih: Some(&bad_b),
                ..w
            },
        )
        .unwrap_err(),
        rnn_tanh_cell(
            &x,
            &h,
            CellWeights {
                w_ih: &r(&[4, 5]),
                w_hh: &r(&[4]),
                ..w
            },
        )
        .unwrap_err(),
    ] {
        let s = e.to_string();
        assert!(s.contains("_cell"), "{s}");
    }
}

/// `max_pool2d_with_indices`, `max_unpool2d` and `adaptive_max_pool2d` against PyTorch
/// (`pool.npz`, made by `make/pool.py`): values, indices and gradients, ties included.
fn pool_cases<D: Backend>(a: &Arrays, dev: &D) {
    use typed_tensor::nn::{adaptive_max_pool2d, max_pool2d_with_indices, max_unpool2d};
    let grad_of = |x: &Tensor<f64, D>, y: &Tensor<f64, D>, w: &str| {
        y.mul(&get::<f64, D>(a, w, dev)).sum(&[], false).backward();
        f64s(&x.grad_tensor().unwrap())
    };
    let cases = [
        ((3, 2), (2, 2), (1, 1)),
        ((2, 2), (2, 2), (0, 0)),
        ((3, 3), (1, 2), (1, 0)),
    ];
    for (i, (k, s, p)) in cases.into_iter().enumerate() {
        let key = |n: &str| format!("mp{i}_{n}");
        let x = get::<f64, D>(a, &key("x"), dev)
            .with_requires_grad(true)
            .unwrap();
        let (y, idx) = max_pool2d_with_indices(&x, k, s, p).unwrap();
        assert_close(
            &f64s(&y),
            &get::<f64, Cpu>(a, &key("y"), &Cpu).to_vec(),
            0.0,
        );
        let want_i = a[&key("i")]
            .clone()
            .downcast::<i64, Cpu>()
            .unwrap()
            .to_vec();
        assert_eq!(idx.to_device(&Cpu).unwrap().to_vec(), want_i, "indices {i}");
        assert_close(
            &grad_of(&x, &y, &key("w")),
            &get::<f64, Cpu>(a, &key("g"), &Cpu).to_vec(),
            1e-12,
        );
        let v = y.detach().with_requires_grad(true).unwrap();
        let hw = (x.dims()[2], x.dims()[3]);
        let u = max_unpool2d(&v, &idx, hw).unwrap();
        let up = |n: &str| format!("up{i}_{n}");
        assert_close(&f64s(&u), &get::<f64, Cpu>(a, &up("y"), &Cpu).to_vec(), 0.0);
        assert_close(
            &grad_of(&v, &u, &up("w")),
            &get::<f64, Cpu>(a, &up("g"), &Cpu).to_vec(),
            1e-12,
        );
    }
    for (i, o) in [(3, 2), (4, 4), (1, 1), (6, 5)].into_iter().enumerate() {
        let key = |n: &str| format!("am{i}_{n}");
        let x = get::<f64, D>(a, &key("x"), dev)
            .with_requires_grad(true)
            .unwrap();
        let y = adaptive_max_pool2d(&x, o).unwrap();
        assert_close(
            &f64s(&y),
            &get::<f64, Cpu>(a, &key("y"), &Cpu).to_vec(),
            0.0,
        );
        assert_close(
            &grad_of(&x, &y, &key("w")),
            &get::<f64, Cpu>(a, &key("g"), &Cpu).to_vec(),
            1e-12,
        );
    }
}

#[test]
fn pooling_with_indices_matches_pytorch() {
    use typed_tensor::nn::{adaptive_max_pool2d, max_pool2d_with_indices, max_unpool2d};
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/torch_grads");
    let a = load_npz(format!("{dir}/pool.npz")).unwrap();
    on_every_device!("pooling_with_indices_matches_pytorch", |dev| {
        pool_cases(&a, &dev);
    });
    // Infinite values unpool to themselves while recording (no inf - inf).
    let v = Tensor::<f64>::from_vec(
        vec![f64::INFINITY, 1.0, f64::NEG_INFINITY, 3.0],
        [1, 1, 2, 2],
    )
    .unwrap()
    .with_requires_grad(true)
    .unwrap();
    let at = Tensor::<i64>::from_vec(vec![0, 3, 8, 15], [1, 1, 2, 2]).unwrap();
    let u = max_unpool2d(&v, &at, (4, 4)).unwrap();
    let u = u.to_vec();
    assert_eq!(
        (u[0], u[3], u[8], u[15], u[1]),
        (f64::INFINITY, 1.0, f64::NEG_INFINITY, 3.0, 0.0)
    );
    // A window whose input elements are all -inf names the first of them, never a padding
    // position; NaN wins over -inf (values and indices from PyTorch 2.15).
    let (ni, nan) = (f64::NEG_INFINITY, f64::NAN);
    let mut x = vec![ni; 12];
    x[11] = 5.0;
    let x = Tensor::<f64>::from_vec(x, [1, 1, 3, 4]).unwrap();
    let (y, at) = max_pool2d_with_indices(&x, (3, 3), (2, 2), (1, 1)).unwrap();
    assert_eq!(y.to_vec(), vec![ni, ni, ni, 5.0]);
    assert_eq!(at.to_vec(), vec![0, 1, 4, 11]);
    let x = vec![ni, 1.0, ni, ni, ni, nan, 2.0, ni, ni];
    let x = Tensor::<f64>::from_vec(x, [1, 1, 3, 3]).unwrap();
    let (y, at) = max_pool2d_with_indices(&x, (2, 3), (1, 2), (1, 1)).unwrap();
    let y: Vec<String> = y.to_vec().iter().map(|v| v.to_string()).collect();
    assert_eq!(y, ["1", "1", "1", "NaN", "2", "NaN", "2", "-inf"]);
    assert_eq!(at.to_vec(), vec![1, 1, 1, 5, 6, 5, 6, 7]);
    // Refusals name the op.
    let x = Tensor::<f32>::zeros([1, 1, 4, 4]).unwrap();
    let bad_i = Tensor::<i64>::full([1, 1, 2, 2], 16).unwrap();
    let v = Tensor::<f32>::zeros([1, 1, 2, 2]).unwrap();
    for e in [
        max_pool2d_with_indices(&x, (2, 2), (2, 2), (2, 0)).unwrap_err(),
        max_pool2d_with_indices(
            &Tensor::<f32>::zeros([4, 4]).unwrap(),
            (2, 2),
            (2, 2),
            (0, 0),
        )
        .unwrap_err(),
        max_unpool2d(&v, &bad_i, (4, 4)).unwrap_err(),
        max_unpool2d(&v, &bad_i.narrow(3, 0, 1).unwrap(), (4, 4)).unwrap_err(),
        max_unpool2d(&v, &bad_i, (usize::MAX, 3)).unwrap_err(),
        // An empty input whose planes hold 2^66 positions (the fuzzer's overflow).
        {
            let huge = [3, 0, 1 << 33, 1 << 33];
            let e = Tensor::<f32>::from_vec(vec![], huge).unwrap();
            max_unpool2d(&e, &Tensor::from_vec(vec![], huge).unwrap(), (2, 2)).unwrap_err()
        },
        adaptive_max_pool2d(&x, (0, 2)).unwrap_err(),
        adaptive_max_pool2d(&Tensor::<f32>::zeros([1, 1, 0, 4]).unwrap(), (2, 2)).unwrap_err(),
    ] {
        let s = e.to_string();
        assert!(s.contains("pool"), "{s}");
    }
    // An empty batch of 2^66-position planes pools to an empty result, recorded (the fuzzer's
    // overflow in the plane size).
    let e = Tensor::<f32>::from_vec(vec![], [2, 0, 1 << 33, 1 << 33])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    let (y, at) = max_pool2d_with_indices(&e, (2, 2), (2, 2), (0, 0)).unwrap();
    assert_eq!(
        (y.dims(), at.dims()),
        (&[2, 0, 1 << 32, 1 << 32][..], &[2, 0, 1 << 32, 1 << 32][..])
    );
    let y = typed_tensor::nn::max_pool2d(&e, (2, 2), (2, 2), (0, 0)).unwrap();
    y.sum(&[], false).backward();
    assert_eq!(e.grad_tensor().unwrap().dims(), e.dims());
}

#[test]
fn volume_ops_match_pytorch() {
    use typed_tensor::nn::{Conv3dOptions, avg_pool3d, conv3d, max_pool3d};
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/torch_grads");
    let a = load_npz(format!("{dir}/volume.npz")).unwrap();
    on_every_device!("volume_ops_match_pytorch", |dev| {
        check_case::<f64, _>(&a, &dev, "c0", &["x", "w", "b"], 1e-12, |l| {
            Ok(vec![conv3d(
                &l[0],
                &l[1],
                Some(&l[2]),
                Conv3dOptions::default(),
            )?])
        });
        let opts = Conv3dOptions {
            stride: (2, 1, 2),
            padding: (1, 1, 0),
            dilation: (1, 2, 1),
            groups: 2,
        };
        check_case::<f64, _>(&a, &dev, "c1", &["x", "w"], 1e-12, |l| {
            Ok(vec![conv3d(&l[0], &l[1], None, opts)?])
        });
        check_case::<f64, _>(&a, &dev, "mp", &["x"], 1e-12, |l| {
            Ok(vec![max_pool3d(&l[0], (3, 2, 3), (2, 2, 1), (1, 1, 1))?])
        });
        check_case::<f64, _>(&a, &dev, "ap", &["x"], 1e-12, |l| {
            Ok(vec![avg_pool3d(&l[0], (2, 3, 2), (2, 1, 2), (1, 1, 0))?])
        });
    });
    check_case::<f32, _>(&a, &Cpu, "c1", &["x", "w"], 2e-5, |l| {
        let opts = Conv3dOptions {
            stride: (2, 1, 2),
            padding: (1, 1, 0),
            dilation: (1, 2, 1),
            groups: 2,
        };
        Ok(vec![conv3d(&l[0], &l[1], None, opts)?])
    });
    // Refusals name the op.
    let x = Tensor::<f32>::zeros([1, 2, 3, 3, 3]).unwrap();
    let w = Tensor::<f32>::zeros([2, 2, 4, 1, 1]).unwrap();
    let d = Conv3dOptions::default();
    for e in [
        conv3d(&x, &w, None, d).unwrap_err(),
        conv3d(
            &x.narrow(1, 0, 1).unwrap(),
            &w.narrow(2, 0, 1).unwrap(),
            None,
            d,
        )
        .unwrap_err(),
        conv3d(&Tensor::<f32>::zeros([2, 3, 3]).unwrap(), &w, None, d).unwrap_err(),
        conv3d(
            &x,
            &w.narrow(2, 0, 1).unwrap(),
            Some(&Tensor::zeros([3]).unwrap()),
            d,
        )
        .unwrap_err(),
        conv3d(
            &x,
            &w.narrow(2, 0, 1).unwrap(),
            None,
            Conv3dOptions {
                stride: (0, 1, 1),
                ..d
            },
        )
        .unwrap_err(),
        max_pool3d(&x, (2, 2, 2), (1, 1, 1), (2, 0, 0)).unwrap_err(),
        avg_pool3d(
            &x.squeeze_dims(&[0]).unwrap(),
            (1, 1, 1),
            (1, 1, 1),
            (0, 0, 0),
        )
        .unwrap_err(),
        // Empty, with planes of 2^66 positions (the fuzzer's overflow).
        avg_pool3d(
            &Tensor::<f32>::zeros([1, 3, 0, 1 << 33, 1 << 33]).unwrap(),
            (1, 1, 1),
            (1, 1, 1),
            (0, 0, 0),
        )
        .unwrap_err(),
        conv3d(
            &x,
            &w,
            None,
            Conv3dOptions {
                padding: (usize::MAX, 0, 0),
                ..d
            },
        )
        .unwrap_err(),
    ] {
        let s = e.to_string();
        assert!(s.contains("3d"), "{s}");
    }
}

#[test]
fn embedding_bag_matches_pytorch() {
    use typed_tensor::nn::{BagMode, embedding_bag};
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/torch_grads");
    let a = load_npz(format!("{dir}/bags.npz")).unwrap();
    let ints = |k: &str| a[k].clone().downcast::<i64, Cpu>().unwrap();
    on_every_device!("embedding_bag_matches_pytorch", |dev| {
        let on = |t: Tensor<i64>| t.to_device(&dev).unwrap();
        let (flat, rows, offsets) = (on(ints("flat")), on(ints("rows")), on(ints("offsets")));
        let last = on(Tensor::from_vec(vec![0, 3, 3, 7, 10], [5]).unwrap());
        let cases: [(
            &str,
            &Tensor<i64, _>,
            Option<&Tensor<i64, _>>,
            BagMode,
            bool,
            bool,
            Option<i64>,
        ); 7] = [
            (
                "sum_offsets",
                &flat,
                Some(&offsets),
                BagMode::Sum,
                false,
                false,
                None,
            ),
            (
                "mean_offsets",
                &flat,
                Some(&offsets),
                BagMode::Mean,
                false,
                false,
                None,
            ),
            (
                "max_offsets",
                &flat,
                Some(&offsets),
                BagMode::Max,
                false,
                false,
                None,
            ),
            ("sum_rows", &rows, None, BagMode::Sum, false, false, None),
            (
                "mean_rows_pad",
                &rows,
                None,
                BagMode::Mean,
                false,
                false,
                Some(4),
            ),
            (
                "max_last_pad",
                &flat,
                Some(&last),
                BagMode::Max,
                false,
                true,
                Some(2),
            ),
            (
                "sum_psw",
                &flat,
                Some(&offsets),
                BagMode::Sum,
                true,
                false,
                None,
            ),
        ];
        for (name, input, offs, mode, psw, include_last, pad) in cases {
            let w = get::<f64, _>(&a, "weight", &dev)
                .with_requires_grad(true)
                .unwrap();
            let p = get::<f64, _>(&a, "psw", &dev)
                .with_requires_grad(true)
                .unwrap();
            let y = embedding_bag(input, &w, offs, mode, psw.then_some(&p), include_last, pad)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let k = |s: &str| format!("{name}_{s}");
            assert_close(
                &f64s(&y),
                &get::<f64, Cpu>(&a, &k("y"), &Cpu).to_vec(),
                1e-12,
            );
            y.mul(&get::<f64, _>(&a, &k("r"), &dev))
                .sum(&[], false)
                .backward();
            assert_close(
                &f64s(&w.grad_tensor().unwrap()),
                &get::<f64, Cpu>(&a, &k("gw"), &Cpu).to_vec(),
                1e-12,
            );
            if psw {
                assert_close(
                    &f64s(&p.grad_tensor().unwrap()),
                    &get::<f64, Cpu>(&a, &k("gp"), &Cpu).to_vec(),
                    1e-12,
                );
            }
        }
    });
    // Refusals name the op.
    let w = Tensor::<f32>::zeros([5, 3]).unwrap();
    let idx = Tensor::<i64>::from_vec(vec![0, 1, 2, 3], [4]).unwrap();
    let off = |v: Vec<i64>| Tensor::<i64>::from_vec(v.clone(), [v.len()]).unwrap();
    let ones = Tensor::<f32>::ones([4]).unwrap();
    for e in [
        embedding_bag(&idx, &w, None, BagMode::Sum, None, false, None).unwrap_err(),
        embedding_bag(
            &idx,
            &w,
            Some(&off(vec![1, 2])),
            BagMode::Sum,
            None,
            false,
            None,
        )
        .unwrap_err(),
        embedding_bag(
            &idx,
            &w,
            Some(&off(vec![0, 3, 2])),
            BagMode::Sum,
            None,
            false,
            None,
        )
        .unwrap_err(),
        embedding_bag(
            &idx,
            &w,
            Some(&off(vec![0, 9])),
            BagMode::Sum,
            None,
            false,
            None,
        )
        .unwrap_err(),
        embedding_bag(
            &idx,
            &w,
            Some(&off(vec![0])),
            BagMode::Mean,
            Some(&ones),
            false,
            None,
        )
        .unwrap_err(),
        embedding_bag(
            &idx.add_scalar(2),
            &w,
            Some(&off(vec![0])),
            BagMode::Sum,
            None,
            false,
            None,
        )
        .unwrap_err(),
        embedding_bag(
            &idx,
            &w.reshape([15]),
            Some(&off(vec![0])),
            BagMode::Sum,
            None,
            false,
            None,
        )
        .unwrap_err(),
    ] {
        let s = e.to_string();
        assert!(s.contains("embedding_bag"), "{s}");
    }
    // 2^40 empty bags: an allocation error, not an abort.
    let none = Tensor::<i64>::zeros([1 << 40, 0]).unwrap();
    assert!(embedding_bag(&none, &w, None, BagMode::Sum, None, false, None).is_err());
}

#[test]
fn grid_sample_and_affine_grid_match_pytorch() {
    use typed_tensor::nn::{GridMode, GridPadding, affine_grid, grid_sample};
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/torch_grads");
    let a = load_npz(format!("{dir}/sample.npz")).unwrap();
    let want = |k: &str| get::<f64, Cpu>(&a, k, &Cpu).to_vec();
    on_every_device!("grid_sample_and_affine_grid_match_pytorch", |dev| {
        for (mode, m) in [
            (GridMode::Bilinear, "bilinear"),
            (GridMode::Nearest, "nearest"),
        ] {
            for (pad, p) in [
                (GridPadding::Zeros, "zeros"),
                (GridPadding::Border, "border"),
                (GridPadding::Reflection, "reflection"),
            ] {
                for align in [false, true] {
                    let name = format!("{m}_{p}_{}", u8::from(align));
                    let x = get::<f64, _>(&a, "x", &dev)
                        .with_requires_grad(true)
                        .unwrap();
                    let g = get::<f64, _>(&a, "grid", &dev)
                        .with_requires_grad(true)
                        .unwrap();
                    let y = grid_sample(&x, &g, mode, pad, align).unwrap();
                    assert_close(&f64s(&y), &want(&format!("{name}_y")), 1e-12);
                    y.mul(&get::<f64, _>(&a, &format!("{name}_w"), &dev))
                        .sum(&[], false)
                        .backward();
                    assert_close(
                        &f64s(&x.grad_tensor().unwrap()),
                        &want(&format!("{name}_gx")),
                        1e-11,
                    );
                    assert_close(
                        &f64s(&g.grad_tensor().unwrap()),
                        &want(&format!("{name}_gg")),
                        1e-10,
                    );
                }
            }
        }
        for align in [false, true] {
            let k = |s: &str| format!("affine{}_{s}", u8::from(align));
            let t = get::<f64, _>(&a, "theta", &dev)
                .with_requires_grad(true)
                .unwrap();
            let grid = affine_grid(&t, [2, 3, 4, 5], align).unwrap();
            assert_close(&f64s(&grid), &want(&k("y")), 1e-12);
            grid.mul(&get::<f64, _>(&a, &k("w"), &dev))
                .sum(&[], false)
                .backward();
            assert_close(&f64s(&t.grad_tensor().unwrap()), &want(&k("g")), 1e-12);
        }
    });
    // Non-finite grid points sample nothing (PyTorch skips their corners), without NaN.
    let img = Tensor::<f64>::ones([1, 1, 2, 2]).unwrap();
    let g = Tensor::<f64>::from_vec(
        vec![f64::NAN, 0.0, f64::INFINITY, 0.0, 0.0, 0.0],
        [1, 1, 3, 2],
    )
    .unwrap();
    let y = grid_sample(&img, &g, GridMode::Bilinear, GridPadding::Zeros, false)
        .unwrap()
        .to_vec();
    assert_eq!(y, vec![0.0, 0.0, 1.0]);
    // Refusals name the op.
    let t = Tensor::<f32>::zeros([2, 2, 3]).unwrap();
    let x = Tensor::<f32>::zeros([2, 1, 3, 3]).unwrap();
    for e in [
        affine_grid(&t, [3, 1, 2, 2], false).unwrap_err(),
        grid_sample(
            &x,
            &Tensor::zeros([2, 2, 2, 3]).unwrap(),
            GridMode::Nearest,
            GridPadding::Zeros,
            false,
        )
        .unwrap_err(),
        grid_sample(
            &x,
            &Tensor::zeros([1, 2, 2, 2]).unwrap(),
            GridMode::Nearest,
            GridPadding::Zeros,
            false,
        )
        .unwrap_err(),
        grid_sample(
            &x.reshape([2, 9]),
            &Tensor::zeros([2, 2, 2, 2]).unwrap(),
            GridMode::Nearest,
            GridPadding::Zeros,
            false,
        )
        .unwrap_err(),
    ] {
        let s = e.to_string();
        assert!(s.contains("grid"), "{s}");
    }
}

/// The causal attention's fused softmax (one recorded node) against the composition it
/// replaces, `masked_fill` above the diagonal then `softmax`: the same bits forward and
/// backward, in f32 and f64, tall, wide and square scores, with NaN and ±inf inputs among
/// finite ones, on every device.
#[test]
fn causal_attention_fused_equals_composed() {
    fn case<F: FloatElement, D: Backend>(dev: &D, (l, s): (usize, usize), special: bool) {
        let val = |n: usize, seed: usize| -> Vec<f64> {
            (0..n)
                .map(|i| (((i + 1) * 2654435761 + seed * 97) % 1000) as f64 / 250.0 - 2.0)
                .collect()
        };
        let (b, e) = (3, 4);
        let mut qv = val(b * l * e, 1);
        let mut kv = val(b * s * e, 2);
        if special {
            qv[e] = f64::NAN; // query row 1 of batch 0
            kv[l * e + 2] = f64::INFINITY;
            kv[(s + s.min(2)) * e] = f64::NEG_INFINITY;
        }
        let leaf = |v: Vec<f64>, d: [usize; 3]| {
            Tensor::<f64, Cpu>::from_vec(v, d)
                .unwrap()
                .cast::<F>()
                .to_device(dev)
                .unwrap()
                .with_requires_grad(true)
                .unwrap()
        };
        let run = |fused: bool| {
            let (q, k, v) = (
                leaf(qv.clone(), [b, l, e]),
                leaf(kv.clone(), [b, s, e]),
                leaf(val(b * s * 5, 3), [b, s, 5]),
            );
            let out = if fused {
                let causal = Some(AttnMask::Causal);
                scaled_dot_product_attention(&q, &k, &v, causal, AttentionOptions::default())
            } else {
                let scores = q
                    .mul_scalar(F::from_f64(0.5))
                    .matmul(&k.transpose(-1, -2).unwrap());
                let i = Tensor::<i64, D>::arange_on(0, l as i64, 1, dev).unwrap();
                let j = Tensor::<i64, D>::arange_on(0, s as i64, 1, dev).unwrap();
                let above = j.unsqueeze(0).unwrap().gt(&i.unsqueeze(1).unwrap());
                let w = scores.masked_fill(&above, F::from_f64(f64::NEG_INFINITY));
                Ok(w.softmax(-1).matmul(&v))
            }
            .unwrap();
            let c = leaf(val(b * l * 5, 4), [b, l, 5]).detach();
            out.mul(&c).sum(&[], false).backward();
            let bits = |t: &Tensor<F, D>| -> Vec<u64> {
                f64s(t)
                    .iter()
                    .map(|x| if x.is_nan() { 1 } else { x.to_bits() })
                    .collect()
            };
            [
                bits(&out),
                bits(&q.grad_tensor().unwrap()),
                bits(&k.grad_tensor().unwrap()),
            ]
            .concat()
        };
        let (fused, composed) = (run(true), run(false));
        let first = fused.iter().zip(&composed).position(|(a, b)| a != b);
        assert_eq!(first, None, "{:?} L {l} S {s} special {special}", F::DTYPE);
    }
    on_every_device!("causal_attention_fused_equals_composed", |dev| {
        for ls in [(4, 4), (5, 3), (3, 6), (1, 1)] {
            for special in [false, true] {
                case::<f32, _>(&dev, ls, special);
                case::<f64, _>(&dev, ls, special);
            }
        }
    });
}

/// `rnn_packed` against PyTorch 2.15's LSTM and GRU given a `PackedSequence`
/// (`make/rnn_packed.py`): an unsorted batch of lengths (2, 4, 1), a 2-layer bidirectional
/// LSTM and a GRU with initial states: the packed outputs, the final states in the original
/// order, and the gradient reaching the padded input.
#[test]
fn rnn_packed_matches_pytorch() {
    use crate::common::host_f64s;
    use typed_tensor::nn::{RnnMode, RnnOptions, pack_padded_sequence, rnn_packed};
    on_every_device!("rnn_packed", |dev| {
        let x = Tensor::<f64, _>::arange_on(0.0, 36.0, 1.0, &dev)
            .unwrap()
            .cos()
            .mul_scalar(0.8);
        let x = x
            .try_reshape([4, 3, 3])
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        for (mode, layers, dirs, want_out, want_h, want_c, want_gx) in [
            (RnnMode::Lstm, 2, 2, LSTM_OUT, LSTM_H, Some(LSTM_C), LSTM_GX),
            (RnnMode::Gru, 1, 1, GRU_OUT, GRU_H, None, GRU_GX),
        ] {
            let gates = if mode == RnnMode::Lstm { 4 } else { 3 };
            // Every parameter sin(k)·0.4 in PyTorch's order.
            let mut k = 0.0;
            let mut params = Vec::new();
            for layer in 0..layers {
                for _ in 0..dirs {
                    let inp = if layer == 0 { 3 } else { 2 * dirs };
                    for shape in [
                        vec![gates * 2, inp],
                        vec![gates * 2, 2],
                        vec![gates * 2],
                        vec![gates * 2],
                    ] {
                        let n: usize = shape.iter().product();
                        let t = Tensor::<f64, _>::arange_on(k, k + n as f64, 1.0, &dev)
                            .unwrap()
                            .sin()
                            .mul_scalar(0.4);
                        params.push(t.try_reshape(shape).unwrap());
                        k += n as f64;
                    }
                }
            }
            let weights: Vec<CellWeights<'_, f64, _>> = params
                .chunks(4)
                .map(|p| CellWeights {
                    w_ih: &p[0],
                    w_hh: &p[1],
                    b_ih: Some(&p[2]),
                    b_hh: Some(&p[3]),
                })
                .collect();
            let states = layers * dirs;
            let h0 = Tensor::<f64, _>::arange_on(0.0, (states * 6) as f64, 1.0, &dev)
                .unwrap()
                .mul_scalar(0.05)
                .try_reshape([states, 3, 2])
                .unwrap();
            let c0 = h0.neg();
            let packed = pack_padded_sequence(&x, &[2, 4, 1], false, false).unwrap();
            let opts = RnnOptions {
                num_layers: layers,
                bidirectional: dirs == 2,
                ..RnnOptions::default()
            };
            let c0 = (mode == RnnMode::Lstm).then_some(&c0);
            let out = rnn_packed(mode, &packed, Some(&h0), c0, &weights, opts).unwrap();
            assert_eq!(out.output.batch_sizes, vec![3, 2, 1, 1]);
            assert_close(&host_f64s(&out.output.data), want_out, 1e-12);
            assert_close(&host_f64s(&out.h_n), want_h, 1e-12);
            if let Some(c) = want_c {
                assert_close(&host_f64s(out.c_n.as_ref().unwrap()), c, 1e-12);
            }
            let w = Tensor::<f64, _>::linspace_on(-1.0, 1.0, out.output.data.numel(), &dev)
                .unwrap()
                .try_reshape(out.output.data.shape().clone())
                .unwrap();
            let mut loss = out
                .output
                .data
                .mul(&w)
                .sum(&[], false)
                .add(&out.h_n.sum(&[], false));
            if let Some(c) = &out.c_n {
                loss = loss.add(&c.sum(&[], false));
            }
            x.zero_grad().unwrap();
            loss.backward();
            assert_close(&host_f64s(&x.grad_tensor().unwrap()), want_gx, 1e-12);
        }
        // An initial state for another batch is refused.
        let packed = pack_padded_sequence(&x, &[2, 4, 1], false, false).unwrap();
        let w_ih = Tensor::<f64, _>::ones_on([2, 3], &dev).unwrap();
        let w_hh = Tensor::<f64, _>::ones_on([2, 2], &dev).unwrap();
        let cell = [CellWeights {
            w_ih: &w_ih,
            w_hh: &w_hh,
            b_ih: None,
            b_hh: None,
        }];
        let h_bad = Tensor::<f64, _>::zeros_on([1, 2, 2], &dev).unwrap();
        let e = rnn_packed(
            RnnMode::Tanh,
            &packed,
            Some(&h_bad),
            None,
            &cell,
            RnnOptions::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("rnn"), "{e}");
    });
}

const LSTM_OUT: &[f64] = &[
    0.02667270833327871,
    -0.1604144979820073,
    0.02725902090719459,
    -0.14862836329728865,
    0.03862582021530017,
    -0.1373262904541722,
    -0.022714985989479245,
    -0.23256355204578685,
    0.02695111417716786,
    -0.2141319407376879,
    -0.1018412967908977,
    -0.44062263165374543,
    0.09135732679891695,
    -0.017401715045460186,
    0.004486439867879694,
    -0.18429272816588882,
    0.09770398186548306,
    -0.006807155412061556,
    -0.1045345231725678,
    -0.3755052248218247,
    0.12122350405255515,
    0.043371932052298695,
    -0.03619300021475858,
    -0.2281735349552368,
    0.14217309738173467,
    0.07568185234683783,
    -0.11452110886074963,
    -0.40527826446670423,
];
const LSTM_H: &[f64] = &[
    0.13180214978582278,
    0.09785050319487133,
    0.2737466897897521,
    0.07694524811539302,
    0.059392795104121265,
    0.06260346826750886,
    -0.03411420005143622,
    0.22197075008131886,
    0.2213082493799982,
    0.0663192429814146,
    -0.06381840490206277,
    0.13260965839625857,
    0.09770398186548306,
    -0.006807155412061556,
    0.14217309738173467,
    0.07568185234683783,
    0.02695111417716786,
    -0.2141319407376879,
    -0.022714985989479245,
    -0.23256355204578685,
    0.02725902090719459,
    -0.14862836329728865,
    -0.1018412967908977,
    -0.44062263165374543,
];
const LSTM_C: &[f64] = &[
    0.23677304382845388,
    0.2727003820094728,
    0.5165844493122629,
    0.20201422669299454,
    0.13599967492104587,
    0.1219296064430276,
    -0.07227464629140976,
    0.395657999137242,
    0.3400472127705704,
    0.17752702285505514,
    -0.16106010122155281,
    0.22011104154071426,
    0.23041951528142873,
    -0.01812767827271447,
    0.35431075014428004,
    0.18676643918425123,
    0.07106861699258815,
    -0.443118934111502,
    -0.06439761335642175,
    -0.6592952646051305,
    0.07405602628354697,
    -0.38746113313605424,
    -0.21420148350831736,
    -1.2229431187773145,
];
const LSTM_GX: &[f64] = &[
    -0.038490548051030554,
    -0.007493011831521394,
    0.030393564910094054,
    -0.034362084849887245,
    0.07000694929045667,
    0.11001191710674257,
    -0.03706135843411694,
    0.017884760597035317,
    0.056387713215072605,
    0.08858690144697937,
    0.08239529593190958,
    0.0004498353224176438,
    -0.08520490446949708,
    0.007519042772061033,
    0.09333001676482855,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    -0.01213916743064669,
    0.029914385893838095,
    0.04446479078478684,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    -0.005476349410660754,
    0.09420307963707,
    0.1072726317062386,
    0.0,
    0.0,
    0.0,
];
const GRU_OUT: &[f64] = &[
    0.2497994213721483,
    -0.04640391857101184,
    0.03627503854250381,
    0.05927519277868743,
    0.22146268512693618,
    0.1562254045920414,
    0.28540598541812684,
    -0.075653110629783,
    0.16725552481843758,
    -0.05508578435306766,
    0.1834813572533254,
    -0.0645322722253863,
    0.3152214883948054,
    -0.22813222684291237,
];
const GRU_H: &[f64] = &[
    0.16725552481843758,
    -0.05508578435306766,
    0.3152214883948054,
    -0.22813222684291237,
    0.22146268512693618,
    0.1562254045920414,
];
const GRU_GX: &[f64] = &[
    0.031259636135474334,
    -0.012825281594662747,
    -0.045118694573483324,
    0.03121158764284837,
    -0.0207295910830333,
    -0.053612079366581404,
    0.019682680511576643,
    0.011045102982381302,
    -0.007747291291713268,
    0.024707932376377043,
    0.0022652520396365117,
    -0.022260090575600827,
    0.07009031130829281,
    -0.008140005823338917,
    -0.07888643914055299,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    -0.06525546161355661,
    0.1334934054345269,
    0.2095090511624873,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    0.1470297422824561,
    -0.09139574541515609,
    -0.24579240627114868,
    0.0,
    0.0,
    0.0,
];
