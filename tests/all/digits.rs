//! Guards the main job: short runs of both models on the real digits must learn.

#[allow(dead_code)]
#[path = "../../examples/digits/mlp.rs"]
mod mlp;
#[allow(dead_code)]
#[path = "../../examples/digits/model.rs"]
mod model;

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
        lr: 0.5,
        weight_decay: 1e-4,
        log_every: 10,
        seed: 0,
        batch: 0,
        hidden: 0,
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

/// Three epochs of the default MLP (autograd, AdamW, mini-batches): the loss falls and the
/// accuracy passes a floor.
#[test]
fn digits_mlp_learns() {
    let data = model::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/data/digits.csv.gz"
    ))
    .unwrap();
    let cfg = model::Config {
        epochs: 3,
        lr: 1e-2,
        weight_decay: 1e-2,
        log_every: 1,
        seed: 0,
        batch: 64,
        hidden: 128,
    };
    let mut accs = Vec::new();
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("digits-mlp.safetensors");
    let r = mlp::train_mlp::<f32, typed_tensor::Cpu>(
        &data,
        &cfg,
        &typed_tensor::Cpu,
        |_, _, a| accs.push(a),
        Some(&path),
    )
    .unwrap();
    let (first, last) = (r.losses[0].1, r.losses.last().unwrap().1);
    assert!(last < first * 0.5, "loss fell from {first} to {last}");
    assert_eq!(accs.len(), 3);
    assert!(r.test_acc > 0.9, "test accuracy {}", r.test_acc);
    // `--load`: the saved model, evaluated afresh, scores what training reported.
    let file = typed_tensor::io::SafetensorsFile::open(&path).unwrap();
    assert_eq!(
        file.metadata().unwrap()["test_accuracy"],
        format!("{:.4}", r.test_acc)
    );
    let acc =
        mlp::evaluate_saved::<f32, typed_tensor::Cpu>(&file, &data, &typed_tensor::Cpu).unwrap();
    assert_eq!(acc, r.test_acc);
    assert!(
        mlp::evaluate_saved::<f64, typed_tensor::Cpu>(&file, &data, &typed_tensor::Cpu).is_err()
    );
}
