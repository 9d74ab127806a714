//! Guards the main job: short runs of both models on the real digits must learn.

#[path = "../../examples/digits/cnn.rs"]
mod cnn;
#[path = "../../examples/digits/mlp.rs"]
mod mlp;
#[allow(dead_code)]
#[path = "../../examples/digits/model.rs"]
mod model;
#[path = "../../examples/digits/net.rs"]
mod net;

use typed_tensor::Cpu;

#[test]
fn digits_training_learns() {
    let data = model::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/data/digits.csv.gz"
    ))
    .unwrap();
    assert_eq!(data.labels.len(), 1797);
    let cfg = model::Config {
        epochs: 30,
        log_every: 10,
        ..model::Config::linear()
    };
    let r =
        model::train::<f32, typed_tensor::Cpu>(&data, &cfg, &typed_tensor::Cpu, |_, _| {}).unwrap();
    let (first, last) = (r.losses[0].1, r.losses.last().unwrap().1);
    assert!(
        (first - 10f64.ln()).abs() < 1e-4,
        "initial loss is ln(10) with zero weights: {first}"
    );
    assert!(last < first * 0.2, "loss fell from {first} to {last}");
    assert!(
        r.train_acc > 0.9 && r.test_acc > 0.8,
        "{} {}",
        r.train_acc,
        r.test_acc
    );
    let b = model::train::<typed_tensor::bf16, typed_tensor::Cpu>(
        &data,
        &cfg,
        &typed_tensor::Cpu,
        |_, _| {},
    )
    .unwrap();
    assert!(b.test_acc > 0.8, "bf16 test accuracy {}", b.test_acc);
}

/// A short run of a mini-batch model (autograd, AdamW): the loss falls, one log line per
/// epoch, the test accuracy passes `floor`, and the saved model, evaluated afresh, scores what
/// training reported.
fn mini_batch_learns<N: net::Net<f32, Cpu>>(hidden: usize, epochs: usize, floor: f64) {
    let data = model::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/data/digits.csv.gz"
    ))
    .unwrap();
    let cfg = model::Config {
        epochs,
        hidden,
        ..model::Config::mlp()
    };
    let mut accs = Vec::new();
    // The directory cargo made at build time may be missing where only the binary travelled.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(format!("digits-{}.safetensors", N::ARCH));
    let r =
        net::fit::<N, f32, Cpu>(&data, &cfg, &Cpu, |_, _, a| accs.push(a), Some(&path)).unwrap();
    let (first, last) = (r.losses[0].1, r.losses.last().unwrap().1);
    assert!(last < first * 0.5, "loss fell from {first} to {last}");
    assert_eq!(accs.len(), epochs);
    assert!(r.test_acc > floor, "test accuracy {}", r.test_acc);
    // `--load`: the saved model, evaluated afresh, scores what training reported.
    let file = typed_tensor::io::SafetensorsFile::open(&path).unwrap();
    let meta = file.metadata().unwrap();
    assert_eq!(meta["test_accuracy"], format!("{:.4}", r.test_acc));
    assert_eq!(meta["arch"], N::ARCH);
    let acc = net::evaluate_saved::<N, f32, Cpu>(&file, &data, &Cpu).unwrap();
    assert_eq!(acc, r.test_acc);
    // Weights saved as f32 are not f64 weights.
    assert!(net::evaluate_saved::<mlp::Mlp<f64, Cpu>, f64, Cpu>(&file, &data, &Cpu).is_err());
}

/// Three epochs of the default MLP.
#[test]
fn digits_mlp_learns() {
    mini_batch_learns::<mlp::Mlp<f32, Cpu>>(128, 3, 0.9);
}

/// Three epochs of the small CNN (conv2d, max_pool2d and their gradients on real data).
#[test]
fn digits_cnn_learns() {
    mini_batch_learns::<cnn::Cnn<f32, Cpu>>(16, 3, 0.9);
}
