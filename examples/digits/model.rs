//! Softmax regression on the UCI optical digits, trained with typed-tensor's autograd,
//! `nn::cross_entropy` and `optim::Sgd`.
//! Shared by `examples/digits/main.rs` and the integration test that guards it.

use typed_tensor::io::{LoadTxt, load_txt};
use typed_tensor::nn::{Reduction, cross_entropy};
use typed_tensor::optim::{Optimizer, Sgd};
use typed_tensor::prelude::*;

/// The data set: `n × 64` pixel values in 0..=16 and labels 0..=9.
pub struct Digits {
    pub pixels: Vec<f64>,
    pub labels: Vec<usize>,
}

/// Reads `examples/data/digits.csv.gz` (64 pixels then the label per row, no header) with
/// `io::load_txt`, NumPy's `loadtxt`.
pub fn load(path: &str) -> std::result::Result<Digits, String> {
    let csv = LoadTxt {
        delimiter: Some(','),
        ndmin: 2,
        ..LoadTxt::default()
    };
    let rows: Tensor<f64> = load_txt(path, &csv).map_err(|e| e.to_string())?;
    if rows.dims()[1] != 65 {
        return Err(format!("{path}: {} columns, expected 65", rows.dims()[1]));
    }
    let column = |from, len| rows.narrow(1, from, len).map(|t| t.to_vec());
    let pixels = column(0, 64).map_err(|e| e.to_string())?;
    let labels = column(64, 1).map_err(|e| e.to_string())?;
    let labels = labels.into_iter().map(|l| l as usize).collect();
    Ok(Digits { pixels, labels })
}

/// Training settings.
pub struct Config {
    pub epochs: usize,
    pub lr: f64,
    pub weight_decay: f64,
    pub log_every: usize,
    pub seed: u64,
    /// Mini-batch size (the MLP; the linear model trains full-batch).
    pub batch: usize,
    /// Hidden units of the MLP.
    pub hidden: usize,
}

impl Config {
    /// The default model's settings: 60 epochs of AdamW (lr 0.01, weight decay 0.01) on
    /// batches of 64, 128 hidden units.
    pub fn mlp() -> Self {
        Config {
            epochs: 60,
            lr: 1e-2,
            weight_decay: 1e-2,
            log_every: 1,
            seed: 0,
            batch: 64,
            hidden: 128,
        }
    }

    /// `--model cnn`: as the MLP, 20 epochs, 16 channels in the first convolution.
    pub fn cnn() -> Self {
        Config {
            epochs: 20,
            hidden: 16,
            ..Config::mlp()
        }
    }

    /// `--model linear`: 500 full-batch SGD steps (lr 0.5, weight decay 1e-4).
    pub fn linear() -> Self {
        Config {
            epochs: 500,
            lr: 0.5,
            weight_decay: 1e-4,
            log_every: 50,
            seed: 0,
            batch: 0,
            hidden: 0,
        }
    }
}

/// What a run reports.
#[allow(dead_code)]
pub struct Report {
    pub losses: Vec<(usize, f64)>,
    pub train_acc: f64,
    pub test_acc: f64,
}

/// The fraction of rows whose largest logit is the label.
pub fn accuracy<T: FloatElement, D: Backend>(
    logits: &Tensor<T, D>,
    labels: &[usize],
) -> Result<f64> {
    let pred = logits.try_argmax(&[1], false)?.try_to_vec()?;
    let hits = pred
        .iter()
        .zip(labels)
        .filter(|(p, l)| **p as usize == **l)
        .count();
    Ok(hits as f64 / labels.len() as f64)
}

/// The standardised 80/20 split on `device`, with what a saved model needs to reproduce it.
pub struct Split<T: FloatElement, D: Backend> {
    pub x_train: Tensor<T, D>,
    pub y_train: Vec<usize>,
    pub x_test: Tensor<T, D>,
    pub y_test: Vec<usize>,
    /// The training split's per-pixel mean and scale, shape `[1, 64]`.
    pub mean: Tensor<f64, D>,
    pub std: Tensor<f64, D>,
    /// The data set's row numbers of the test split.
    pub test_rows: Vec<usize>,
}

/// Rows `idx` of the data set: pixels as an `[idx.len(), 64]` f64 tensor on `device`, labels.
pub fn rows<D: Backend>(
    data: &Digits,
    idx: &[usize],
    device: &D,
) -> Result<(Tensor<f64, D>, Vec<usize>)> {
    let mut px = Vec::with_capacity(idx.len() * 64);
    for &i in idx {
        let row = data
            .pixels
            .get(i * 64..(i + 1) * 64)
            .ok_or(Error::InvalidArgument {
                op: "digits",
                msg: format!("row {i} is not in the data set"),
            })?;
        px.extend_from_slice(row);
    }
    Ok((
        Tensor::from_vec_on(px, [idx.len(), 64], device)?,
        idx.iter().map(|&i| data.labels[i]).collect(),
    ))
}

/// Splits 80/20 with a seeded shuffle and standardises with the training split's statistics
/// (in f64; constant pixels get a scale of 1), then casts to `T` on `device`.
pub fn prepare<T: FloatElement, D: Backend>(
    data: &Digits,
    seed: u64,
    device: &D,
) -> Result<Split<T, D>> {
    use rand::{SeedableRng, seq::SliceRandom};
    let n = data.labels.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut rand::rngs::StdRng::seed_from_u64(seed));
    let n_train = n * 4 / 5;
    let (x_train, y_train) = rows(data, &order[..n_train], device)?;
    let (x_test, y_test) = rows(data, &order[n_train..], device)?;
    let mean = x_train.try_mean(&[0], true)?;
    let std = x_train.try_std(&[0], 0, true)?;
    let std = Tensor::try_where(
        &std.try_gt_scalar(1e-12)?,
        &std,
        &Tensor::scalar_on(1.0, device)?,
    )?;
    Ok(Split {
        x_train: x_train.try_sub(&mean)?.try_div(&std)?.try_cast()?,
        y_train,
        x_test: x_test.try_sub(&mean)?.try_div(&std)?.try_cast()?,
        y_test,
        mean,
        std,
        test_rows: order[n_train..].to_vec(),
    })
}

/// Class labels as an `i64` tensor on `device`, for `cross_entropy`.
pub fn targets<D: Backend>(labels: &[usize], device: &D) -> Result<Tensor<i64, D>> {
    Tensor::from_vec_on(
        labels.iter().map(|&l| l as i64).collect(),
        [labels.len()],
        device,
    )
}

/// Softmax regression (`--model linear`): full-batch gradient descent on the softmax cross-entropy with autograd and
/// `optim::Sgd`, every step on `device`: the same code runs on the CPU and on a GPU.
pub fn train<T: FloatElement, D: Backend>(
    data: &Digits,
    cfg: &Config,
    device: &D,
    mut log: impl FnMut(usize, f64),
) -> Result<Report> {
    let Split {
        x_train,
        y_train,
        x_test,
        y_test,
        ..
    } = prepare::<T, D>(data, cfg.seed, device)?;
    // Softmax regression trained by autograd: cross-entropy plus an L2 term, gradients from
    // `backward()`, updates by the library's SGD.
    let classes = 10;
    let target = targets(&y_train, device)?;
    let w = Tensor::<T, D>::zeros_on([64, classes], device)?.with_requires_grad(true)?;
    let b = Tensor::<T, D>::zeros_on([1, classes], device)?.with_requires_grad(true)?;
    let mut opt = Sgd::new(vec![w.clone(), b.clone()], cfg.lr);
    let half_wd = T::from_f64(cfg.weight_decay / 2.0);
    let mut losses = Vec::new();
    for epoch in 0..=cfg.epochs {
        let logits = x_train.try_matmul(&w)?.try_add(&b)?; // (n, 10)
        let ce = cross_entropy(&logits, &target, Reduction::Mean, 0.0)?;
        let l2 = w
            .try_square()?
            .try_sum(&[], false)?
            .try_mul_scalar(half_wd)?;
        let loss = ce.try_add(&l2)?;
        if epoch % cfg.log_every == 0 || epoch == cfg.epochs {
            let l = loss.try_item()?.to_f64();
            losses.push((epoch, l));
            log(epoch, l);
        }
        if epoch == cfg.epochs {
            break;
        }
        opt.zero_grad()?;
        loss.try_backward()?;
        opt.step()?;
    }
    Ok(Report {
        losses,
        train_acc: accuracy(&x_train.try_matmul(&w)?.try_add(&b)?, &y_train)?,
        test_acc: accuracy(&x_test.try_matmul(&w)?.try_add(&b)?, &y_test)?,
    })
}
