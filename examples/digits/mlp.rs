//! The default model: a multilayer perceptron 64 → hidden → 10 with ReLU, cross-entropy and
//! AdamW on seeded mini-batches, every gradient from autograd. Trained parameters are saved as
//! safetensors in PyTorch's `nn.Sequential(Linear, ReLU, Linear)` naming, with the input
//! scaling and the test rows, so a saved model is evaluated anywhere (README: NumPy).

use super::model::{Config, Digits, Report, Split, accuracy, prepare, rows, targets};
use rand::{SeedableRng, seq::SliceRandom};
use std::collections::BTreeMap;
use std::path::Path;
use typed_tensor::io::{SafetensorsFile, save_safetensors};
use typed_tensor::nn::{Reduction, cross_entropy, linear};
use typed_tensor::optim::{Adam, CosineAnnealing, LrSchedule, Optimizer};
use typed_tensor::prelude::*;

/// The network's parameters, PyTorch's `nn.Linear` layout (`weight` is `(out, in)`).
struct Mlp<T: FloatElement, D: Backend> {
    w1: Tensor<T, D>,
    b1: Tensor<T, D>,
    w2: Tensor<T, D>,
    b2: Tensor<T, D>,
}

impl<T: FloatElement, D: Backend> Mlp<T, D> {
    /// He-scaled normal weights from the seeded generator, zero biases.
    fn new(hidden: usize, seed: u64, device: &D) -> Result<Self> {
        manual_seed(seed);
        let init = |out: usize, inp: usize| -> Result<Tensor<T, D>> {
            let scale = (2.0 / inp as f64).sqrt();
            Tensor::<f32, D>::randn_on([out, inp], device)?
                .try_mul_scalar(scale as f32)?
                .try_cast::<T>()?
                .with_requires_grad(true)
        };
        let zeros = |n: usize| Tensor::<T, D>::zeros_on([n], device)?.with_requires_grad(true);
        Ok(Mlp {
            w1: init(hidden, 64)?,
            b1: zeros(hidden)?,
            w2: init(10, hidden)?,
            b2: zeros(10)?,
        })
    }

    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let h = linear(x, &self.w1, Some(&self.b1))?.try_relu()?;
        linear(&h, &self.w2, Some(&self.b2))
    }

    /// Reads the four parameters of a saved model (stored as `T`) onto `device`.
    fn load(file: &SafetensorsFile, device: &D) -> Result<Self> {
        let get = |name| Tensor::<T, D>::from_safetensors_on(file, name, device);
        Ok(Mlp {
            w1: get("0.weight")?,
            b1: get("0.bias")?,
            w2: get("2.weight")?,
            b2: get("2.bias")?,
        })
    }

    fn params(&self) -> Vec<Tensor<T, D>> {
        vec![
            self.w1.clone(),
            self.b1.clone(),
            self.w2.clone(),
            self.b2.clone(),
        ]
    }
}

/// Trains the MLP; `log(epoch, mean loss, train accuracy)` runs after each epoch.
pub fn train_mlp<T: FloatElement, D: Backend>(
    data: &Digits,
    cfg: &Config,
    device: &D,
    mut log: impl FnMut(usize, f64, f64),
    save: Option<&Path>,
) -> Result<Report> {
    let Split {
        x_train,
        y_train,
        x_test,
        y_test,
        mean,
        std,
        test_rows,
    } = prepare::<T, D>(data, cfg.seed, device)?;
    let target = targets(&y_train, device)?;
    let net = Mlp::<T, D>::new(cfg.hidden, cfg.seed, device)?;
    let mut opt = Adam::adamw(net.params(), cfg.lr);
    opt.weight_decay = cfg.weight_decay;
    let schedule = CosineAnnealing {
        base: cfg.lr,
        min: cfg.lr / 100.0,
        t_max: cfg.epochs,
    };
    let mut rng = rand::rngs::StdRng::seed_from_u64(cfg.seed);
    let mut order: Vec<i64> = (0..y_train.len() as i64).collect();
    let mut losses = Vec::new();
    for epoch in 0..cfg.epochs {
        schedule.apply(&mut opt, epoch);
        order.shuffle(&mut rng);
        let (mut sum, mut batches) = (0.0, 0);
        for chunk in order.chunks(cfg.batch.max(1)) {
            let idx = Tensor::<i64, D>::from_vec_on(chunk.to_vec(), [chunk.len()], device)?;
            let x = x_train.try_index_select(0, &idx)?;
            let y = target.try_index_select(0, &idx)?;
            let loss = cross_entropy(&net.forward(&x)?, &y, Reduction::Mean, 0.0)?;
            opt.zero_grad()?;
            loss.try_backward()?;
            opt.step()?;
            sum += loss.try_item()?.to_f64();
            batches += 1;
        }
        let mean = sum / batches as f64;
        losses.push((epoch, mean));
        let acc = no_grad(|| accuracy(&net.forward(&x_train)?, &y_train))?;
        log(epoch, mean, acc);
    }
    let report = no_grad(|| {
        Ok(Report {
            losses,
            train_acc: accuracy(&net.forward(&x_train)?, &y_train)?,
            test_acc: accuracy(&net.forward(&x_test)?, &y_test)?,
        })
    })?;
    if let Some(path) = save {
        let rows: Vec<i64> = test_rows.iter().map(|&r| r as i64).collect();
        let rows = Tensor::<i64, Cpu>::from_vec(rows, [test_rows.len()])?;
        let tensors = [
            ("0.weight", DynTensor::from(&net.w1)),
            ("0.bias", DynTensor::from(&net.b1)),
            ("2.weight", DynTensor::from(&net.w2)),
            ("2.bias", DynTensor::from(&net.b2)),
            ("input.mean", DynTensor::from(mean.try_reshape([64])?)),
            ("input.std", DynTensor::from(std.try_reshape([64])?)),
            ("test.rows", DynTensor::from(rows)),
        ];
        let metadata: BTreeMap<String, String> = [
            ("model", format!("mlp 64-{}-10 relu", cfg.hidden)),
            (
                "layout",
                "torch nn.Sequential(Linear, ReLU, Linear) state_dict".into(),
            ),
            (
                "input",
                "(pixels - input.mean) / input.std; test.rows are rows of digits.csv.gz".into(),
            ),
            ("test_accuracy", format!("{:.4}", report.test_acc)),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        save_safetensors(path, tensors, Some(&metadata))?;
    }
    Ok(report)
}

/// Evaluates the model saved at `file` (its parameters stored as `T`) on the test rows it
/// names, on `device`: the test accuracy.
pub fn evaluate_saved<T: FloatElement, D: Backend>(
    file: &SafetensorsFile,
    data: &Digits,
    device: &D,
) -> Result<f64> {
    let net = Mlp::<T, D>::load(file, device)?;
    let mean = Tensor::<f64, D>::from_safetensors_on(file, "input.mean", device)?;
    let std = Tensor::<f64, D>::from_safetensors_on(file, "input.std", device)?;
    let test_rows: Vec<usize> = Tensor::<i64, Cpu>::from_safetensors(file, "test.rows")?
        .try_to_vec()?
        .into_iter()
        .map(|r| usize::try_from(r).unwrap_or(usize::MAX))
        .collect();
    let (x, y) = rows(data, &test_rows, device)?;
    let x = x.try_sub(&mean)?.try_div(&std)?.try_cast::<T>()?;
    no_grad(|| accuracy(&net.forward(&x)?, &y))
}
