//! The von Mises distribution of angles (PyTorch `VonMises`).

use super::{Distribution, check, check_real, extended};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;
use rand::Rng;
use std::f64::consts::PI;

/// The circular normal distribution with mean direction `loc` (radians) and `concentration`
/// κ > 0 (PyTorch `VonMises`): density `e^(κ cos(x - loc)) / (2π I₀(κ))`. `loc` and values may
/// be any real numbers, read modulo 2π; samples lie in `[-π, π)`. Sampling is not
/// differentiable (as PyTorch's): Best and Fisher's rejection sampler (1979), in f64 on the
/// host from the global generator, so every device gives the same draws for a seed.
///
/// ```
/// use typed_tensor::distributions::{Distribution, VonMises};
/// use typed_tensor::prelude::*;
/// let d = VonMises::new(&tensor![1.0f64], &tensor![2.0f64])?;
/// let x = d.sample(&[1000])?; // (1000, 1) in [-π, π)
/// assert!(x.to_vec().iter().all(|v| (-std::f64::consts::PI..std::f64::consts::PI).contains(v)));
/// let lp = d.log_prob(&tensor![1.0f64])?; // κ - log(2π I₀(κ)) at the mode
/// assert!((lp.item() - -0.661_870_607_892_301_6).abs() < 1e-12);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
#[derive(Clone)]
pub struct VonMises<T: FloatElement, D: Backend> {
    loc: Tensor<T, D>,
    concentration: Tensor<T, D>,
    batch: Shape,
}

/// One draw of the rejection sampler for concentration `k` around 0 (PyTorch's
/// `_rejection_sample`, which runs in f64 too); `r` the proposal's parameter.
fn draw(rng: &mut impl Rng, k: f64, r: f64) -> f64 {
    // The acceptance rate is above 0.65 for every κ; the bound only guards against a hang.
    let mut f = 1.0;
    for _ in 0..10_000 {
        let (u1, u2, u3): (f64, f64, f64) = (rng.random(), rng.random(), rng.random());
        let z = (PI * u1).cos();
        f = ((1.0 + r * z) / (r + z)).clamp(-1.0, 1.0);
        let c = k * (r - f);
        if c * (2.0 - c) - u2 > 0.0 || (c / u2).ln() + 1.0 - c >= 0.0 {
            return (u3 - 0.5).signum() * f.acos();
        }
    }
    f.acos()
}

/// `(1 + ρ²) / (2ρ)` for `ρ = (τ - √(2τ)) / (2κ)`, `τ = 1 + √(1 + 4κ²)`; `1/κ + κ` below
/// `κ = 1e-5`, where that loses its digits.
fn proposal_r(k: f64) -> f64 {
    if k < 1e-5 {
        return 1.0 / k + k;
    }
    let tau = 1.0 + (1.0 + 4.0 * k * k).sqrt();
    let rho = (tau - (2.0 * tau).sqrt()) / (2.0 * k);
    (1.0 + rho * rho) / (2.0 * rho)
}

impl<T: FloatElement, D: Backend> VonMises<T, D> {
    /// The mean direction (radians), broadcast to the batch shape.
    pub fn loc(&self) -> &Tensor<T, D> {
        &self.loc
    }
    /// The concentration κ, broadcast to the batch shape.
    pub fn concentration(&self) -> &Tensor<T, D> {
        &self.concentration
    }
    /// The von Mises distribution, the parameters broadcast.
    ///
    /// # Errors
    /// `Broadcast`; `InvalidArgument` for a NaN or infinite `loc`, or a concentration that is
    /// not positive and finite.
    pub fn new(loc: &Tensor<T, D>, concentration: &Tensor<T, D>) -> Result<Self> {
        const OP: &str = "VonMises";
        let (p, batch) = super::broadcast(OP, &[loc, concentration])?;
        check(OP, p[0].try_is_finite()?, "loc must be finite")?;
        super::gamma::positive(OP, "concentration", &p[1])?;
        let [loc, concentration] = <[Tensor<T, D>; 2]>::try_from(p).expect("two parameters");
        Ok(VonMises {
            loc,
            concentration,
            batch,
        })
    }
    /// The circular mean (and mode), `loc`.
    pub fn mean(&self) -> &Tensor<T, D> {
        &self.loc
    }
    /// `I₁(κ) / I₀(κ)`, the mean resultant length.
    fn resultant(&self) -> Result<Tensor<T, D>> {
        let k = &self.concentration;
        k.try_i1e()?.try_div(&k.try_i0e()?)
    }
    /// The circular variance, `1 - I₁(κ) / I₀(κ)` (PyTorch's `variance`).
    ///
    /// # Errors
    /// Allocation failure.
    pub fn variance(&self) -> Result<Tensor<T, D>> {
        self.resultant()?.try_rsub_scalar(T::ONE)
    }
    /// `log I₀(κ)` as `log i0e(κ) + κ`, exact where PyTorch's polynomial fit is good to
    /// about 1e-7.
    fn log_i0(&self) -> Result<Tensor<T, D>> {
        let k = &self.concentration;
        k.try_i0e()?.try_log()?.try_add(k)
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for VonMises<T, D> {
    type Value = Tensor<T, D>;
    fn batch_shape(&self) -> &Shape {
        &self.batch
    }
    /// Angles in `[-π, π)` of shape `sample_shape ++ batch_shape`.
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        const OP: &str = "VonMises.sample";
        let shape = extended(sample_shape, &self.batch);
        let (loc, k) = crate::autograd::no_grad(|| {
            let loc = self.loc.expand(shape.clone())?.try_to_vec()?;
            Ok::<_, Error>((loc, self.concentration.expand(shape.clone())?.try_to_vec()?))
        })?;
        let out = crate::tensor::with_global_rng(|rng| {
            let mut out = crate::alloc::with_capacity(OP, loc.len())?;
            for (l, k) in loc.iter().zip(&k) {
                let (l, k) = (l.to_f64(), k.to_f64());
                let x = draw(rng, k, proposal_r(k));
                let v = (x + PI + l).rem_euclid(2.0 * PI) - PI;
                out.push(T::from_f64(v));
            }
            Ok::<_, Error>(out)
        })?;
        Tensor::from_vec_on(out, shape, self.loc.device_handle())
    }
    /// `κ cos(value - loc) - log(2π) - log I₀(κ)`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        check_real("VonMises.log_prob", value)?;
        let k = &self.concentration;
        k.try_mul(&value.try_sub(&self.loc)?.try_cos()?)?
            .try_sub(&self.log_i0()?)?
            .try_sub_scalar(T::from_f64((2.0 * PI).ln()))
    }
    /// `log(2π I₀(κ)) - κ I₁(κ) / I₀(κ)` (PyTorch has none; SciPy's `vonmises.entropy`).
    fn entropy(&self) -> Result<Tensor<T, D>> {
        let k = &self.concentration;
        self.log_i0()?
            .try_sub(&k.try_mul(&self.resultant()?)?)?
            .try_add_scalar(T::from_f64((2.0 * PI).ln()))
    }
}
