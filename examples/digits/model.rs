//! Softmax regression on the UCI optical digits, written with typed-tensor's own ops.
//! Shared by `examples/digits/main.rs` and the integration test that guards it.

use std::io::Read;
use typed_tensor::prelude::*;

/// The data set: `n × 64` pixel values in 0..=16 and labels 0..=9.
pub struct Digits {
    pub pixels: Vec<f64>,
    pub labels: Vec<usize>,
}

/// Reads `examples/data/digits.csv.gz` (64 pixels then the label per row, no header).
pub fn load(path: &str) -> std::result::Result<Digits, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot open {path}: {e}"))?;
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot decompress {path}: {e}"))?;
    let (mut pixels, mut labels) = (Vec::new(), Vec::new());
    for (i, line) in text.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        let vals: Vec<f64> = line
            .split(',')
            .map(|v| v.trim().parse::<f64>())
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| format!("row {i}: {e}"))?;
        if vals.len() != 65 {
            return Err(format!("row {i} has {} fields, expected 65", vals.len()));
        }
        pixels.extend_from_slice(&vals[..64]);
        labels.push(vals[64] as usize);
    }
    Ok(Digits { pixels, labels })
}

/// Training settings.
pub struct Config {
    pub epochs: usize,
    pub lr: f64,
    pub weight_decay: f64,
    pub log_every: usize,
    pub seed: u64,
}

/// What a run reports.
#[allow(dead_code)]
pub struct Report {
    pub losses: Vec<(usize, f64)>,
    pub train_acc: f64,
    pub test_acc: f64,
}

fn one_hot<T: FloatElement, D: Backend>(
    labels: &[usize],
    classes: usize,
    device: &D,
) -> Result<Tensor<T, D>> {
    let mut v = vec![T::ZERO; labels.len() * classes];
    for (i, &l) in labels.iter().enumerate() {
        v[i * classes + l] = T::ONE;
    }
    Tensor::from_vec_on(v, [labels.len(), classes], device)
}

fn accuracy<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    w: &Tensor<T, D>,
    b: &Tensor<T, D>,
    labels: &[usize],
) -> Result<f64> {
    let pred = x
        .try_matmul(w)?
        .try_add(b)?
        .try_argmax(&[1], false)?
        .try_to_vec()?;
    let hits = pred
        .iter()
        .zip(labels)
        .filter(|(p, l)| **p as usize == **l)
        .count();
    Ok(hits as f64 / labels.len() as f64)
}

/// Standardises with the training split's statistics, splits 80/20 with a seeded shuffle and
/// trains full-batch gradient descent on the softmax cross-entropy (log-sum-exp trick), every
/// step on `device`: the same code runs on the CPU and on a GPU.
pub fn train<T: FloatElement, D: Backend>(
    data: &Digits,
    cfg: &Config,
    device: &D,
    mut log: impl FnMut(usize, f64),
) -> Result<Report> {
    use rand::{SeedableRng, seq::SliceRandom};
    let n = data.labels.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut rand::rngs::StdRng::seed_from_u64(cfg.seed));
    let n_train = n * 4 / 5;
    let take = |idx: &[usize]| -> Result<(Tensor<f64, D>, Vec<usize>)> {
        let mut px = Vec::with_capacity(idx.len() * 64);
        for &i in idx {
            px.extend_from_slice(&data.pixels[i * 64..(i + 1) * 64]);
        }
        Ok((
            Tensor::from_vec_on(px, [idx.len(), 64], device)?,
            idx.iter().map(|&i| data.labels[i]).collect(),
        ))
    };
    let (x_train, y_train) = take(&order[..n_train])?;
    let (x_test, y_test) = take(&order[n_train..])?;

    // Standardise in f64 with the training statistics; constant pixels get a scale of 1.
    let mean = x_train.try_mean(&[0], true)?;
    let std = x_train.try_std(&[0], 0, true)?;
    let std = Tensor::try_where(
        &std.try_gt_scalar(1e-12)?,
        &std,
        &Tensor::scalar_on(1.0, device)?,
    )?;
    let x_train: Tensor<T, D> = x_train.try_sub(&mean)?.try_div(&std)?.try_cast()?;
    let x_test: Tensor<T, D> = x_test.try_sub(&mean)?.try_div(&std)?.try_cast()?;

    let classes = 10;
    let target = one_hot::<T, D>(&y_train, classes, device)?;
    let mut w = Tensor::<T, D>::zeros_on([64, classes], device)?;
    let mut b = Tensor::<T, D>::zeros_on([1, classes], device)?;
    let inv_n = T::from_f64(1.0 / n_train as f64);
    let lr = T::from_f64(cfg.lr);
    let wd = T::from_f64(cfg.weight_decay);
    let xt = x_train.t();
    let mut losses = Vec::new();
    for epoch in 0..=cfg.epochs {
        let logits = x_train.try_matmul(&w)?.try_add(&b)?; // (n, 10)
        let lse = logits.try_logsumexp(&[1], true)?; // (n, 1)
        if epoch % cfg.log_every == 0 || epoch == cfg.epochs {
            // Mean cross-entropy: logsumexp(z) - z[y], plus the L2 term.
            let picked = logits.try_mul(&target)?.try_sum(&[1], true)?;
            let ce = lse
                .try_sub(&picked)?
                .try_mean(&[], false)?
                .try_item()?
                .to_f64();
            let l2 =
                w.try_square()?.try_sum(&[], false)?.try_item()?.to_f64() * cfg.weight_decay / 2.0;
            losses.push((epoch, ce + l2));
            log(epoch, ce + l2);
        }
        if epoch == cfg.epochs {
            break;
        }
        // d loss / d logits = (softmax - one_hot) / n
        let grad = logits
            .try_sub(&lse)?
            .try_exp()?
            .try_sub(&target)?
            .try_mul_scalar(inv_n)?;
        let gw = xt.try_matmul(&grad)?.try_add(&w.try_mul_scalar(wd)?)?;
        let gb = grad.try_sum(&[0], true)?;
        w.sub_(&gw.try_mul_scalar(lr)?)?;
        b.sub_(&gb.try_mul_scalar(lr)?)?;
    }
    Ok(Report {
        losses,
        train_acc: accuracy(&x_train, &w, &b, &y_train)?,
        test_acc: accuracy(&x_test, &w, &b, &y_test)?,
    })
}
