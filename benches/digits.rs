//! One training epoch of the main job's models (`examples/digits`, f32, CPU): 1,437 training
//! images in shuffled mini-batches of 64 (forward, `cross_entropy`, `backward`, AdamW step),
//! then the training accuracy, exactly as `cargo run --release --example digits` runs it.
//! `benches/digits_vs_torch.sh` runs this and the same epochs in PyTorch in one go; results go
//! in BENCHMARKS.md.

#[path = "../examples/digits/cnn.rs"]
mod cnn;
#[path = "../examples/digits/mlp.rs"]
mod mlp;
#[allow(dead_code)]
#[path = "../examples/digits/model.rs"]
mod model;
#[allow(dead_code)]
#[path = "../examples/digits/net.rs"]
mod net;

use criterion::{Criterion, criterion_group, criterion_main};
use std::time::Duration;
use typed_tensor::Cpu;

fn epoch<N: net::Net<f32, Cpu>>(c: &mut Criterion, name: &str, hidden: usize) {
    let data = model::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/data/digits.csv.gz"
    ))
    .expect("the digits data");
    let cfg = model::Config {
        hidden,
        ..model::Config::mlp()
    };
    let mut trainer = net::Trainer::<N, f32, Cpu>::new(&data, &cfg, &Cpu).unwrap();
    let mut e = 0;
    c.bench_function(name, |b| {
        b.iter(|| {
            e += 1;
            trainer.epoch(e % cfg.epochs).unwrap()
        })
    });
}

fn benches(c: &mut Criterion) {
    epoch::<mlp::Mlp<f32, Cpu>>(c, "digits/mlp_epoch", 128);
    epoch::<cnn::Cnn<f32, Cpu>>(c, "digits/cnn_epoch", 16);
}

criterion_group! {
    name = group;
    config = Criterion::default().measurement_time(Duration::from_secs(5)).sample_size(30);
    targets = benches
}
criterion_main!(group);
