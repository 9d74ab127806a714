//! What the mini-batch models share: the `Net` trait (forward pass and PyTorch-named
//! parameters), the trainer (cross-entropy, AdamW with a cosine schedule, seeded mini-batches,
//! every gradient from autograd), saving as safetensors and evaluating a saved model.

use super::model::{Config, Digits, Report, Split, accuracy, prepare, rows, targets};
use rand::{SeedableRng, seq::SliceRandom};
use std::collections::BTreeMap;
use std::path::Path;
use typed_tensor::io::{SafetensorsFile, save_safetensors};
use typed_tensor::nn::init::{self, FanMode, Nonlinearity};
use typed_tensor::nn::{Reduction, cross_entropy};
use typed_tensor::optim::{Adam, CosineAnnealing, GradScaler, LrSchedule, Optimizer};
use typed_tensor::prelude::*;

/// A classifier of `(batch, 64)` standardised pixels into 10 logits.
pub trait Net<T: FloatElement, D: Backend>: Sized {
    /// The `arch` metadata of a saved model.
    const ARCH: &'static str;
    /// Seeded initial parameters, each requiring a gradient.
    fn new(cfg: &Config, device: &D) -> Result<Self>;
    /// `(batch, 64)` in, `(batch, 10)` logits out.
    fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>>;
    /// The parameters under PyTorch's `state_dict` names.
    fn state(&self) -> Vec<(&'static str, &Tensor<T, D>)>;
    /// The model from saved parameters (`get(name)`).
    fn from_state(get: impl Fn(&str) -> Result<Tensor<T, D>>) -> Result<Self>;
    /// A one-line description of the model (saved as metadata).
    fn describe(cfg: &Config) -> String;
}

/// A He-scaled normal `shape` tensor (PyTorch's `kaiming_normal_` for ReLU, fans from the
/// shape) from the global seeded generator, requiring a gradient.
pub fn he_normal<T: FloatElement, D: Backend, const N: usize>(
    shape: [usize; N],
    device: &D,
) -> Result<Tensor<T, D>> {
    let mut w = Tensor::<T, D>::zeros_on(shape, device)?.with_requires_grad(true)?;
    init::kaiming_normal_(&mut w, FanMode::FanIn, Nonlinearity::Relu)?;
    Ok(w)
}

/// A model being trained: its data on the device, the optimizer, the schedule and the seeded
/// shuffle.
pub struct Trainer<N: Net<T, D>, T: FloatElement, D: Backend> {
    pub net: N,
    pub split: Split<T, D>,
    target: Tensor<i64, D>,
    opt: Adam<T, D>,
    params: Vec<Tensor<T, D>>,
    scaler: GradScaler,
    schedule: CosineAnnealing,
    rng: rand::rngs::StdRng,
    order: Vec<i64>,
    batch: usize,
}

impl<N: Net<T, D>, T: FloatElement, D: Backend> Trainer<N, T, D> {
    /// The split, seeded initial parameters and AdamW with a cosine schedule over
    /// `cfg.epochs`.
    pub fn new(data: &Digits, cfg: &Config, device: &D) -> Result<Self> {
        let split = prepare::<T, D>(data, cfg.seed, device)?;
        let target = targets(&split.y_train, device)?;
        manual_seed(cfg.seed);
        let net = N::new(cfg, device)?;
        let params: Vec<Tensor<T, D>> = net.state().into_iter().map(|(_, p)| p.clone()).collect();
        let mut opt = Adam::adamw(params.clone(), cfg.lr);
        opt.weight_decay = cfg.weight_decay;
        // f16 gradients flush to zero below 6e-8: scale the loss (PyTorch's GradScaler; bf16
        // has f32's range and needs none). From 2^10, not PyTorch's 2^16 (whose first steps
        // overflow f16 and are skipped), no step of this model is skipped.
        let f16 = T::DTYPE == Dtype::Float16;
        let scaler = GradScaler::with_options(1024.0, 2.0, 0.5, 2000, f16)?;
        Ok(Trainer {
            order: (0..split.y_train.len() as i64).collect(),
            net,
            split,
            target,
            opt,
            params,
            scaler,
            schedule: CosineAnnealing {
                base: cfg.lr,
                min: cfg.lr / 100.0,
                t_max: cfg.epochs,
            },
            rng: rand::rngs::StdRng::seed_from_u64(cfg.seed),
            batch: cfg.batch.max(1),
        })
    }

    /// One pass over the shuffled training split in mini-batches, then the training
    /// accuracy: `(mean loss, train accuracy)`.
    pub fn epoch(&mut self, epoch: usize) -> Result<(f64, f64)> {
        let device = self.target.device_handle();
        self.schedule.apply(&mut self.opt, epoch);
        self.order.shuffle(&mut self.rng);
        let (mut sum, mut batches) = (0.0, 0);
        for chunk in self.order.chunks(self.batch) {
            let idx = Tensor::<i64, D>::from_vec_on(chunk.to_vec(), [chunk.len()], device)?;
            let x = self.split.x_train.try_index_select(0, &idx)?;
            let y = self.target.try_index_select(0, &idx)?;
            let loss = cross_entropy(&self.net.forward(&x)?, &y, Reduction::Mean, 0.0)?;
            self.opt.zero_grad()?;
            self.scaler.scale(&loss)?.try_backward()?;
            self.scaler.step(&mut self.opt, &self.params)?;
            self.scaler.update()?;
            sum += loss.try_item()?.to_f64();
            batches += 1;
        }
        let split = &self.split;
        let acc = no_grad(|| accuracy(&self.net.forward(&split.x_train)?, &split.y_train))?;
        Ok((sum / batches as f64, acc))
    }
}

/// Trains `N`; `log(epoch, mean loss, train accuracy)` runs after each epoch. With `save`,
/// the trained parameters, the input scaling and the test rows are written there.
pub fn fit<N: Net<T, D>, T: FloatElement, D: Backend>(
    data: &Digits,
    cfg: &Config,
    device: &D,
    mut log: impl FnMut(usize, f64, f64),
    save: Option<&Path>,
) -> Result<Report> {
    let mut trainer = Trainer::<N, T, D>::new(data, cfg, device)?;
    let mut losses = Vec::new();
    for epoch in 0..cfg.epochs {
        let (loss, acc) = trainer.epoch(epoch)?;
        losses.push((epoch, loss));
        log(epoch, loss, acc);
    }
    let Trainer { net, split, .. } = trainer;
    let Split {
        x_train,
        y_train,
        x_test,
        y_test,
        mean,
        std,
        test_rows,
    } = split;
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
        let mut tensors: Vec<(&str, DynTensor)> = net
            .state()
            .into_iter()
            .map(|(name, p)| (name, DynTensor::from(p)))
            .collect();
        tensors.push(("input.mean", DynTensor::from(mean.try_reshape([64])?)));
        tensors.push(("input.std", DynTensor::from(std.try_reshape([64])?)));
        tensors.push(("test.rows", DynTensor::from(rows)));
        let metadata: BTreeMap<String, String> = [
            ("arch", N::ARCH.to_string()),
            ("model", N::describe(cfg)),
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

/// Evaluates the `N` saved at `file` (its parameters stored as `T`) on the test rows it
/// names, on `device`: the test accuracy.
pub fn evaluate_saved<N: Net<T, D>, T: FloatElement, D: Backend>(
    file: &SafetensorsFile,
    data: &Digits,
    device: &D,
) -> Result<f64> {
    let net = N::from_state(|name| Tensor::<T, D>::from_safetensors_on(file, name, device))?;
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
