//! Guards the main job: a short softmax-regression run on the real digits must learn.

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
