//! The main job: a classifier of the UCI optical digits (1,797 8×8 images, 10 classes) trained
//! with typed-tensor's autograd, `nn` and `optim`: by default a multilayer perceptron with
//! AdamW on mini-batches; `--model linear` is softmax regression with full-batch SGD.
//!
//! ```text
//! cargo run --release --example digits -- --model mlp --dtype f32 --device cpu --epochs 60
//! ```

mod mlp;
mod model;

use std::time::Instant;
use typed_tensor::prelude::*;

fn usage() -> ! {
    eprintln!(
        "usage: digits [--model mlp|linear] [--dtype f32|f64|bf16|f16] [--device cpu|cuda:N] [--epochs N] [--lr X]"
    );
    std::process::exit(2)
}

fn main() {
    let mut dtype = "f32".to_string();
    let mut device = "cpu".to_string();
    let mut kind = "mlp".to_string();
    let (mut epochs, mut lr) = (None, None);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--model" => kind = val(),
            "--dtype" => dtype = val(),
            "--device" => device = val(),
            "--epochs" => epochs = Some(val().parse().unwrap_or_else(|_| usage())),
            "--lr" => lr = Some(val().parse().unwrap_or_else(|_| usage())),
            _ => usage(),
        }
    }
    let mut cfg = match kind.as_str() {
        "mlp" => model::Config {
            epochs: 60,
            lr: 1e-2,
            weight_decay: 1e-2,
            log_every: 1,
            seed: 0,
            batch: 64,
            hidden: 128,
        },
        "linear" => model::Config {
            epochs: 500,
            lr: 0.5,
            weight_decay: 1e-4,
            log_every: 50,
            seed: 0,
            batch: 0,
            hidden: 0,
        },
        _ => usage(),
    };
    cfg.epochs = epochs.unwrap_or(cfg.epochs);
    cfg.lr = lr.unwrap_or(cfg.lr);
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
        "digits: {} images of 8x8 pixels, 10 classes; model {}, dtype {dtype}, device {used}, {} epochs, lr {}",
        data.labels.len(),
        if kind == "mlp" {
            "mlp 64-128-10 (relu, AdamW, batch 64)"
        } else {
            "softmax regression (SGD, full batch)"
        },
        cfg.epochs,
        cfg.lr
    );
    let start = Instant::now();
    let report = match &gpu {
        None => run(&kind, &dtype, &data, &cfg, &Cpu, start),
        Some(g) => run(&kind, &dtype, &data, &cfg, g, start),
    }
    .unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(1)
    });
    println!("train accuracy {:.2}%", 100.0 * report.train_acc);
    println!("test accuracy  {:.2}%", 100.0 * report.test_acc);
    println!("wall time      {:.2} s", start.elapsed().as_secs_f64());
}

/// Trains model `kind` with element type `dtype` on `device` (one generic trainer per model
/// for every device and dtype).
fn run<D: Backend>(
    kind: &str,
    dtype: &str,
    data: &model::Digits,
    cfg: &model::Config,
    device: &D,
    start: Instant,
) -> Result<model::Report> {
    let log = |epoch: usize, loss: f64| println!("epoch {epoch:>5}  loss {loss:.4}");
    let log_mlp = |epoch: usize, loss: f64, acc: f64| {
        let t = start.elapsed().as_secs_f64();
        println!(
            "epoch {epoch:>3}  loss {loss:.4}  train accuracy {:.2}%  {t:.2} s",
            100.0 * acc
        )
    };
    macro_rules! by_dtype {
        ($f:ident, $log:expr) => {
            match dtype {
                "f32" => $f::<f32, D>(data, cfg, device, $log),
                "f64" => $f::<f64, D>(data, cfg, device, $log),
                "bf16" => $f::<bf16, D>(data, cfg, device, $log),
                "f16" => $f::<f16, D>(data, cfg, device, $log),
                _ => usage(),
            }
        };
    }
    use mlp::train_mlp;
    use model::train;
    if kind == "mlp" {
        by_dtype!(train_mlp, log_mlp)
    } else {
        by_dtype!(train, log)
    }
}
