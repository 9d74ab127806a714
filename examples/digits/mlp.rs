//! The default model: a multilayer perceptron 64 → hidden → 10 with ReLU, cross-entropy and
//! AdamW on seeded mini-batches, every gradient from autograd.

use super::model::{Config, Digits, Report, Split, accuracy, prepare, targets};
use rand::{SeedableRng, seq::SliceRandom};
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
) -> Result<Report> {
    let Split {
        x_train,
        y_train,
        x_test,
        y_test,
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
    no_grad(|| {
        Ok(Report {
            losses,
            train_acc: accuracy(&net.forward(&x_train)?, &y_train)?,
            test_acc: accuracy(&net.forward(&x_test)?, &y_test)?,
        })
    })
}
