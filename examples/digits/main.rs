//! The main job: a classifier of the UCI optical digits (1,797 8×8 images, 10 classes) trained
//! with typed-tensor's autograd, `nn` and `optim`: by default a multilayer perceptron with
//! AdamW on mini-batches; `--model cnn` is a small convolutional net trained the same way;
//! `--model linear` is softmax regression with full-batch SGD.
//!
//! ```text
//! cargo run --release --example digits -- --model mlp --dtype f32 --device cpu --epochs 60
//! cargo run --release --example digits -- --save weights.safetensors   # train, then save
//! cargo run --release --example digits -- --load weights.safetensors   # evaluate, no training
//! ```

mod cnn;
mod mlp;
mod model;
mod net;

use std::path::PathBuf;
use std::time::Instant;
use typed_tensor::prelude::*;

fn usage() -> ! {
    eprintln!(
        "usage: digits [--model mlp|cnn|linear] [--dtype f32|f64|bf16|f16] [--device cpu|cuda:N] [--epochs N] [--lr X] [--save FILE | --load FILE]"
    );
    std::process::exit(2)
}

fn main() {
    let mut dtype = "f32".to_string();
    let mut device = "cpu".to_string();
    let mut kind = "mlp".to_string();
    let (mut epochs, mut lr) = (None, None);
    let (mut save, mut load) = (None::<PathBuf>, None::<PathBuf>);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--model" => kind = val(),
            "--dtype" => dtype = val(),
            "--device" => device = val(),
            "--epochs" => epochs = Some(val().parse().unwrap_or_else(|_| usage())),
            "--lr" => lr = Some(val().parse().unwrap_or_else(|_| usage())),
            "--save" => save = Some(val().into()),
            "--load" => load = Some(val().into()),
            _ => usage(),
        }
    }
    let mut cfg = match kind.as_str() {
        "mlp" => model::Config::mlp(),
        "cnn" => model::Config::cnn(),
        "linear" => model::Config::linear(),
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
    if save.is_some() && (load.is_some() || kind == "linear") {
        eprintln!("error: --save goes with the mlp or cnn model, and not with --load");
        std::process::exit(2)
    }
    let fail = |e: Error| -> ! {
        eprintln!("error: {e}");
        std::process::exit(1)
    };
    if let Some(path) = load {
        let start = Instant::now();
        let acc = match &gpu {
            None => evaluate(&path, &data, &Cpu),
            Some(g) => evaluate(&path, &data, g),
        }
        .unwrap_or_else(|e| fail(e));
        println!("loaded {} on {used}", path.display());
        println!("test accuracy  {:.2}%", 100.0 * acc);
        println!("wall time      {:.2} s", start.elapsed().as_secs_f64());
        return;
    }
    println!(
        "digits: {} images of 8x8 pixels, 10 classes; model {}, dtype {dtype}, device {used}, {} epochs, lr {}",
        data.labels.len(),
        match kind.as_str() {
            "mlp" => format!(
                "mlp 64-{}-10 (relu, AdamW, batch {})",
                cfg.hidden, cfg.batch
            ),
            "cnn" => format!(
                "cnn conv{}-pool-conv{}-pool-linear (relu, AdamW, batch {})",
                cfg.hidden,
                2 * cfg.hidden,
                cfg.batch
            ),
            _ => "softmax regression (SGD, full batch)".into(),
        },
        cfg.epochs,
        cfg.lr
    );
    let start = Instant::now();
    let save = save.as_deref();
    let report = match &gpu {
        None => run(&kind, &dtype, &data, &cfg, &Cpu, start, save),
        Some(g) => run(&kind, &dtype, &data, &cfg, g, start, save),
    }
    .unwrap_or_else(|e| fail(e));
    println!("train accuracy {:.2}%", 100.0 * report.train_acc);
    println!("test accuracy  {:.2}%", 100.0 * report.test_acc);
    println!("wall time      {:.2} s", start.elapsed().as_secs_f64());
    if let Some(path) = save {
        println!("saved          {}", path.display());
    }
}

/// The test accuracy of the model saved at `path` (its `arch` metadata names the model), in
/// the dtype it was saved in.
fn evaluate<D: Backend>(path: &std::path::Path, data: &model::Digits, device: &D) -> Result<f64> {
    use net::evaluate_saved as eval;
    let file = typed_tensor::io::SafetensorsFile::open(path)?;
    // Files saved before the cnn existed hold an mlp and no `arch`.
    let arch = file.metadata().and_then(|m| m.get("arch").cloned());
    let arch = arch.unwrap_or_else(|| "mlp".into());
    macro_rules! by_dtype {
        ($net:ident) => {
            match file.info("0.weight")?.0 {
                Dtype::Float32 => eval::<$net<f32, D>, f32, D>(&file, data, device),
                Dtype::Float64 => eval::<$net<f64, D>, f64, D>(&file, data, device),
                Dtype::Float16 => eval::<$net<f16, D>, f16, D>(&file, data, device),
                Dtype::Bfloat16 => eval::<$net<bf16, D>, bf16, D>(&file, data, device),
                other => Err(Error::InvalidArgument {
                    op: "digits --load",
                    msg: format!("0.weight is {other}; a saved model holds float weights"),
                }),
            }
        };
    }
    use {cnn::Cnn, mlp::Mlp};
    match arch.as_str() {
        "mlp" => by_dtype!(Mlp),
        "cnn" => by_dtype!(Cnn),
        other => Err(Error::InvalidArgument {
            op: "digits --load",
            msg: format!("the file's arch metadata is {other:?}; expected \"mlp\" or \"cnn\""),
        }),
    }
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
    save: Option<&std::path::Path>,
) -> Result<model::Report> {
    let log = |epoch: usize, loss: f64| println!("epoch {epoch:>5}  loss {loss:.4}");
    let log_mlp = |epoch: usize, loss: f64, acc: f64| {
        let t = start.elapsed().as_secs_f64();
        println!(
            "epoch {epoch:>3}  loss {loss:.4}  train accuracy {:.2}%  {t:.2} s",
            100.0 * acc
        )
    };
    // `$t` names the element type in `$e`, one instantiation per dtype.
    macro_rules! by_dtype {
        (|$t:ident| $e:expr) => {
            match dtype {
                "f32" => {
                    type $t = f32;
                    $e
                }
                "f64" => {
                    type $t = f64;
                    $e
                }
                "bf16" => {
                    type $t = bf16;
                    $e
                }
                "f16" => {
                    type $t = f16;
                    $e
                }
                _ => usage(),
            }
        };
    }
    use {cnn::Cnn, mlp::Mlp, net::fit};
    match kind {
        "mlp" => by_dtype!(|T| fit::<Mlp<T, D>, T, D>(data, cfg, device, log_mlp, save)),
        "cnn" => by_dtype!(|T| fit::<Cnn<T, D>, T, D>(data, cfg, device, log_mlp, save)),
        _ => by_dtype!(|T| model::train::<T, D>(data, cfg, device, log)),
    }
}
