//! Adafactor (PyTorch `Adafactor`, Shazeer & Stern 2018): Adam-like steps whose second
//! moment of a matrix is kept factored, as row and column means, so its memory is `m + n`
//! rather than `m·n`; a relative step size and update clipping.

use super::state::{Counter, export, import};
use super::{Optimizer, Range, Slots, acc, check_hyper, descend, state, step_grad};
use crate::autograd::no_grad;
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::dynamic::DynTensor;
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;
use std::collections::BTreeMap;

/// Adafactor over `params` (PyTorch `Adafactor`, the same order of operations): at step `t`,
/// `β̂ = t^beta2_decay`, `ρ = min(lr, 1/√t)`, `α = max(ε₂, RMS(p))·ρ`; weight decay `p ←
/// p·(1 - lr·wd)`; for a matrix (the last two axes) the row and column means of `g²`
/// averaged into `R` and `C` with weight `β̂` and `V = R·C / max(mean(R), ε₁)`, otherwise `V`
/// the average of `g²`; `u = g / √max(V, ε₁²)`, `p ← p - α·u / max(1, RMS(u)/d)`.
///
/// ```
/// use typed_tensor::optim::{Adafactor, Optimizer};
/// use typed_tensor::prelude::*;
/// let w = Tensor::<f64>::from_vec(vec![1.0, -2.0, 0.5, 3.0], [2, 2])?.with_requires_grad(true)?;
/// let mut opt = Adafactor::new(vec![w.clone()]);
/// w.try_square()?.try_sum(&[], false)?.try_backward()?;
/// opt.step()?; // the first step moves each weight by α·u/max(1, RMS(u)) toward 0
/// assert!(w.to_vec().iter().zip([1.0, -2.0, 0.5, 3.0]).all(|(a, b): (&f64, f64)| a.abs() < b.abs()));
/// # Ok::<(), typed_tensor::Error>(())
/// ```
pub struct Adafactor<T: FloatElement, D: Backend> {
    params: Vec<Tensor<T, D>>,
    row_var: Slots<T, D>,
    col_var: Slots<T, D>,
    variance: Slots<T, D>,
    t: u64,
    /// The largest relative step size (1e-2).
    pub lr: f64,
    /// The decay exponent of the second-moment average, at most 0 (-0.8).
    pub beta2_decay: f64,
    /// `ε₁`, the floor of the second moment (`None`: the parameter dtype's epsilon), and
    /// `ε₂`, the floor of a parameter's RMS in the step size (1e-3).
    pub eps: (Option<f64>, f64),
    /// The update-clipping threshold, at least 1 (1).
    pub d: f64,
    /// Decoupled weight decay, scaled by `lr` (0).
    pub weight_decay: f64,
    /// Ascend the gradient instead of descending it.
    pub maximize: bool,
}

impl<T: FloatElement, D: Backend> Adafactor<T, D> {
    /// Adafactor over `params` with PyTorch's defaults.
    pub fn new(params: Vec<Tensor<T, D>>) -> Self {
        let n = params.len();
        Adafactor {
            params,
            row_var: vec![None; n],
            col_var: vec![None; n],
            variance: vec![None; n],
            t: 0,
            lr: 1e-2,
            beta2_decay: -0.8,
            eps: (None, 1e-3),
            d: 1.0,
            weight_decay: 0.0,
            maximize: false,
        }
    }
}

/// `shape` with axis `axis` (from the end) set to 1: the shape of a factored moment.
fn factored(shape: &Shape, from_end: usize) -> Shape {
    let mut dims = shape.dims().to_vec();
    let n = dims.len();
    dims[n - from_end] = 1;
    Shape::new(dims)
}

/// The root mean square of `t`, read back.
fn rms<A: FloatElement, D: Backend>(t: &Tensor<A, D>) -> Result<f64> {
    let norm = t.try_norm(2.0, &[], false)?.try_cast::<f64>()?.try_item()?;
    Ok(norm / (t.numel() as f64).sqrt())
}

impl<T: FloatElement, D: Backend> Optimizer for Adafactor<T, D> {
    fn step(&mut self) -> Result<()> {
        const OP: &str = "Adafactor::step";
        check_hyper(
            OP,
            &[
                ("lr", self.lr, Range::NonNegative),
                ("eps[1]", self.eps.1, Range::NonNegative),
                ("weight_decay", self.weight_decay, Range::NonNegative),
                ("eps[0]", self.eps.0.unwrap_or(0.0), Range::NonNegative),
            ],
        )?;
        if !(self.beta2_decay <= 0.0 && self.d >= 1.0) {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!(
                    "beta2_decay must be <= 0 and d >= 1, got {} and {}",
                    self.beta2_decay, self.d
                ),
            });
        }
        self.t += 1;
        let step = self.t as f64;
        let weight = step.powf(self.beta2_decay);
        let rho = self.lr.min(1.0 / step.sqrt());
        let eps1 = self.eps.0.unwrap_or(T::DTYPE.eps());
        no_grad(|| {
            for (i, p) in super::trainable(&self.params) {
                let g = step_grad(p, OP, self.maximize, 0.0)?;
                if p.numel() == 0 {
                    continue;
                }
                let alpha = self.eps.1.max(rms(p)?) * rho;
                if self.weight_decay != 0.0 {
                    p.clone()
                        .mul_scalar_(T::from_f64(1.0 - self.lr * self.weight_decay))?;
                }
                let w = acc::<T>(weight);
                let estimate = if p.ndim() > 1 {
                    let sq = g.try_square()?;
                    let row_mean = sq.try_mean(&[-1], true)?;
                    let col_mean = sq.try_mean(&[-2], true)?;
                    let row = state(&mut self.row_var[i], &row_mean, 0.0)?;
                    *row = row.try_lerp(&row_mean, w)?;
                    let col = state(&mut self.col_var[i], &col_mean, 0.0)?;
                    *col = col.try_lerp(&col_mean, w)?;
                    let row = self.row_var[i].as_ref().expect("set above");
                    let scale = row.try_mean(&[-2], true)?.try_clamp_min(acc::<T>(eps1))?;
                    row.try_matmul(col)?.try_div(&scale)?
                } else {
                    let v = state(&mut self.variance[i], &g, 0.0)?;
                    *v = v.try_lerp(&g.try_square()?, w)?;
                    v.clone()
                };
                let update = (estimate.try_clamp_min(acc::<T>(eps1 * eps1))?)
                    .try_rsqrt()?
                    .try_mul(&g)?;
                let denom = 1f64.max(rms(&update)? / self.d);
                descend(p, &update, alpha / denom)?;
            }
            Ok(())
        })
    }
    super::common_methods!();
    fn state_dict(&self) -> Result<Vec<(String, DynTensor)>> {
        export::<T, D>(
            &[
                ("row_var", &self.row_var),
                ("col_var", &self.col_var),
                ("variance", &self.variance),
            ],
            &[("step", self.t.to_state())],
        )
    }
    fn load_state_dict(&mut self, state: &BTreeMap<String, DynTensor>) -> Result<()> {
        let shape_of = |slot: &str, p: &Shape| match slot {
            "row_var" if p.ndim() > 1 => factored(p, 1),
            "col_var" if p.ndim() > 1 => factored(p, 2),
            _ => p.clone(),
        };
        let names = ["row_var", "col_var", "variance"];
        let (slots, counters) = import(&self.params, &names, &["step"], state, Some(&shape_of))?;
        let t = u64::from_state("step", counters[0])?;
        let [row, col, var]: [Slots<T, D>; 3] =
            slots.try_into().map_err(|_| Error::InvalidArgument {
                op: "load_state_dict",
                msg: "three slots expected".into(),
            })?;
        (self.row_var, self.col_var, self.variance, self.t) = (row, col, var, t);
        Ok(())
    }
}
