//! The main job: softmax regression on the UCI optical digits (1,797 8×8 images, 10 classes),
//! trained with full-batch gradient descent using only typed-tensor ops.
//!
//! ```text
//! cargo run --release --example digits -- --dtype f32 --device cpu --epochs 500 --lr 0.5
//! ```

mod model;

use std::time::Instant;
use typed_tensor::prelude::*;

fn usage() -> ! {
    eprintln!(
        "usage: digits [--dtype f32|f64|bf16|f16] [--device cpu|cuda:N] [--epochs N] [--lr X]"
    );
    std::process::exit(2)
}

fn main() {
    let mut dtype = "f32".to_string();
    let mut device = "cpu".to_string();
    let mut cfg = model::Config {
        epochs: 500,
        lr: 0.5,
        weight_decay: 1e-4,
        log_every: 50,
        seed: 0,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--dtype" => dtype = val(),
            "--device" => device = val(),
            "--epochs" => cfg.epochs = val().parse().unwrap_or_else(|_| usage()),
            "--lr" => cfg.lr = val().parse().unwrap_or_else(|_| usage()),
            _ => usage(),
        }
    }
    let gpu = match device.as_str() {
        "cpu" => None,
        d => {
            let ordinal = d
                .strip_prefix("cuda:")
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| usage());
            // No GPU (or no driver) is the driver's error, never a silent CPU run.
            Some(Cuda::new(ordinal).unwrap_or_else(|e| {
                eprintln!("error: {e}");
                std::process::exit(1)
            }))
        }
    };
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/data/digits.csv.gz");
    let data = model::load(path).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(1)
    });
    let used = gpu.as_ref().map_or(DeviceIndex::cpu(), |g| g.index());
    println!(
        "digits: {} images of 8x8 pixels, 10 classes; softmax regression, dtype {dtype}, device {used}, {} epochs, lr {}",
        data.labels.len(),
        cfg.epochs,
        cfg.lr
    );
    let start = Instant::now();
    let report = match &gpu {
        None => run(&dtype, &data, &cfg, &Cpu),
        Some(g) => run(&dtype, &data, &cfg, g),
    }
    .unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(1)
    });
    println!("train accuracy {:.2}%", 100.0 * report.train_acc);
    println!("test accuracy  {:.2}%", 100.0 * report.test_acc);
    println!("wall time      {:.2} s", start.elapsed().as_secs_f64());
}

/// Trains with element type `dtype` on `device` (one generic `train` for every device).
fn run<D: Backend>(
    dtype: &str,
    data: &model::Digits,
    cfg: &model::Config,
    device: &D,
) -> Result<model::Report> {
    let log = |epoch: usize, loss: f64| println!("epoch {epoch:>5}  loss {loss:.4}");
    match dtype {
        "f32" => model::train::<f32, D>(data, cfg, device, log),
        "f64" => model::train::<f64, D>(data, cfg, device, log),
        "bf16" => model::train::<bf16, D>(data, cfg, device, log),
        "f16" => model::train::<f16, D>(data, cfg, device, log),
        _ => usage(),
    }
}
