//! A user's training program written once over the element type and the device: data on the
//! device, a `DataLoader`, an `nn::modules` network, a loss layer, AdamW with a schedule, and
//! loss scaling for f16; run for f32, f64, f16 and bf16 on every device. It checks that the
//! generic bounds compose (this file is the compile-time part of the test) and that each run
//! learns a separable problem.

use typed_tensor::data::{DataLoader, random_split};
use typed_tensor::nn::modules::{
    Activation, CrossEntropyLoss, LayerNorm, Linear, Loss, Module, Parameters, Sequential,
};
use typed_tensor::optim::{Adam, CosineAnnealing, GradScaler, LrSchedule, Optimizer};
use typed_tensor::prelude::*;

/// Two Gaussian blobs in 4-d, labels 0 and 1, on `dev`.
fn blobs<T: FloatElement, D: Backend>(n: usize, dev: &D) -> Result<(Tensor<T, D>, Tensor<i64, D>)> {
    let labels: Vec<i64> = (0..n).map(|i| (i % 2) as i64).collect();
    let y = Tensor::<i64, D>::from_vec_on(labels, [n], dev)?;
    let centre = y
        .try_cast::<T>()?
        .try_mul_scalar(T::from_f64(4.0))?
        .try_sub_scalar(T::from_f64(2.0))?;
    let noise = Tensor::<T, D>::randn_on([n, 4], dev)?;
    let x = noise.try_add(&centre.unsqueeze(1)?)?;
    Ok((x, y))
}

/// Trains and returns the held-out accuracy.
fn train<T: FloatElement, D: Backend>(dev: &D) -> Result<f64> {
    typed_tensor::manual_seed(7);
    let data = blobs::<T, D>(256, dev)?;
    let [train, test] = <[_; 2]>::try_from(random_split(&data, &[192, 64])?).expect("two parts");
    let loader = DataLoader::new(train, 32)?.shuffle(true);
    let mut model = Sequential::<T, D>::new()
        .push(Linear::new(4, 16, true, dev)?)
        .push(LayerNorm::new(&[16], 1e-5, true, dev)?)
        .push(Activation::Gelu)
        .push(Linear::new(16, 2, true, dev)?);
    let mut opt = Adam::adamw(model.parameters(), 0.02);
    let schedule = CosineAnnealing {
        base: 0.02,
        min: 0.002,
        t_max: 8,
    };
    let f16 = T::DTYPE == Dtype::Float16;
    let mut scaler = GradScaler::with_options(256.0, 2.0, 0.5, 100, f16)?;
    let loss_fn = CrossEntropyLoss::default();
    model.set_training(true);
    for epoch in 0..8 {
        schedule.apply(&mut opt, epoch);
        for batch in loader.iter()? {
            let (xb, yb) = batch?;
            let loss = loss_fn.forward(&model.forward(&xb)?, &yb)?;
            opt.zero_grad()?;
            scaler.scale(&loss)?.try_backward()?;
            scaler.step(&mut opt, &model.parameters())?;
            scaler.update()?;
        }
    }
    model.set_training(false);
    let (xt, yt) = test;
    let pred = no_grad(|| model.forward(&xt)?.try_argmax(&[1], false))?;
    let right = pred
        .try_eq(&yt)?
        .try_cast::<f64>()?
        .try_mean(&[], false)?
        .try_item()?;
    Ok(right)
}

#[test]
fn a_generic_training_program_learns_on_every_device() {
    on_every_device!("generic_training", |dev| {
        for (dtype, acc) in [
            ("f32", train::<f32, _>(&dev).unwrap()),
            ("f64", train::<f64, _>(&dev).unwrap()),
            ("f16", train::<f16, _>(&dev).unwrap()),
            ("bf16", train::<bf16, _>(&dev).unwrap()),
        ] {
            assert!(acc > 0.95, "{dtype}: held-out accuracy {acc}");
        }
    });
}
