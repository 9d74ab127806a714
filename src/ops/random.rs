//! Random integers, permutations and Bernoulli draws (PyTorch's `randint`, `randperm`,
//! `bernoulli`), made from the uniform generator (`rand_on`), so they run on every device and
//! follow [`crate::manual_seed`].
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! manual_seed(7);
//! let dice = Tensor::<i64>::randint(1, 7, [1000])?; // 1..=6
//! assert!(dice.to_vec().iter().all(|&d| (1..=6).contains(&d)));
//! let p = Tensor::<i64>::randperm(5)?.sort(0, false).0;
//! assert_eq!(p.to_vec(), vec![0, 1, 2, 3, 4]);
//! let coin = Tensor::<f32>::full([4], 1.0)?.bernoulli(); // p = 1: always 1
//! assert_eq!(coin.to_vec(), vec![1.0; 4]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::device::Cpu;
use crate::dtype::{Dtype, FloatElement, NumElement};
use crate::error::{Error, OrPanic, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;

/// The largest integer magnitude up to which every integer is exact in `T` (and in the f64
/// the draws are made in).
fn exact_limit(d: Dtype) -> i64 {
    match d {
        Dtype::Float16 => 1 << 11,
        Dtype::Bfloat16 => 1 << 8,
        Dtype::Float32 => 1 << 24,
        Dtype::Int16 => i64::from(i16::MAX),
        Dtype::Int32 => i64::from(i32::MAX),
        Dtype::UInt8 => i64::from(u8::MAX),
        _ => 1 << 53,
    }
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// Integers drawn uniformly from `low..high` (high excluded) on `device` (PyTorch
    /// `randint`), from `floor(u · (high - low)) + low` with `u` uniform in f64.
    ///
    /// # Errors
    /// `InvalidArgument` when `low >= high`, or when a bound is beyond the integers `T` holds
    /// exactly (2^11 for f16, 2^8 for bf16, 2^24 for f32, 2^53 for f64 and i64, the type's
    /// range for the other integers; `u8` needs `low >= 0`); allocation failure.
    pub fn randint_on(low: i64, high: i64, shape: impl Into<Shape>, device: &D) -> Result<Self> {
        let lim = exact_limit(T::DTYPE);
        let floor = if T::DTYPE == Dtype::UInt8 { 0 } else { -lim };
        if low >= high || low < floor || high - 1 > lim {
            return Err(Error::InvalidArgument {
                op: "randint",
                msg: format!(
                    "needs low < high within [{floor}, {}] for {}, got {low}..{high}",
                    lim + 1,
                    T::DTYPE
                ),
            });
        }
        let span = (high - low) as f64;
        let u = Tensor::<f64, D>::rand_on(shape, device)?;
        let k = u
            .try_mul_scalar(span)?
            .try_floor()?
            .try_minimum_scalar(span - 1.0)?
            .try_add_scalar(low as f64)?;
        k.try_cast::<T>()
    }
}

impl<D: Backend> Tensor<i64, D> {
    /// A random permutation of `0..n` on `device` (PyTorch `randperm`): the order that sorts
    /// `n` uniform draws.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn randperm_on(n: usize, device: &D) -> Result<Self> {
        Tensor::<f64, D>::rand_on([n], device)?.try_argsort(0, false)
    }
}

impl<T: NumElement> Tensor<T, Cpu> {
    /// [`Tensor::randint_on`] on the CPU.
    ///
    /// # Errors
    /// As [`Tensor::randint_on`].
    pub fn randint(low: i64, high: i64, shape: impl Into<Shape>) -> Result<Self> {
        Self::randint_on(low, high, shape, &Cpu)
    }
}

impl Tensor<i64, Cpu> {
    /// [`Tensor::randperm_on`] on the CPU.
    ///
    /// # Errors
    /// As [`Tensor::randperm_on`].
    pub fn randperm(n: usize) -> Result<Self> {
        Self::randperm_on(n, &Cpu)
    }
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// 1 with probability `self`, else 0, element-wise (PyTorch `bernoulli`): a new tensor of
    /// `self`'s shape and dtype, drawn on its device. Not differentiable (as in PyTorch).
    ///
    /// # Errors
    /// `InvalidArgument` when a probability lies outside `[0, 1]` or is NaN (one read-back of
    /// the check); allocation failure.
    pub fn try_bernoulli(&self) -> Result<Self> {
        let p = crate::autograd::no_grad(|| self.try_cast::<f64>())?;
        let bad = p
            .try_lt_scalar(0.0)?
            .try_logical_or(&p.try_gt_scalar(1.0)?)?
            .try_logical_or(&p.try_is_nan()?)?
            .try_any(&[], false)?
            .try_item()?;
        if bad {
            return Err(Error::InvalidArgument {
                op: "bernoulli",
                msg: format!(
                    "probabilities must lie in [0, 1]; the tensor of shape {} holds others",
                    self.shape()
                ),
            });
        }
        let u = Tensor::<f64, D>::rand_on(self.shape().clone(), self.device_handle())?;
        u.try_lt(&p)?.try_cast::<T>()
    }

    /// Normal draws with element-wise means `self` and standard deviations `std`, the two
    /// broadcast (PyTorch `torch.normal(mean, std)`): `mean + std · ε` with `ε ~ N(0, 1)`
    /// drawn on their device. Not differentiable (PyTorch's gradients are zeros); for draws
    /// that carry gradients, `distributions::Normal::rsample`.
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    /// let mean = tensor![0.0f64, 10.0, 100.0];
    /// let x = mean.try_normal(&tensor![0.0f64, 1.0, 1.0])?;
    /// assert_eq!(x.to_vec()[0], 0.0); // std 0: the mean itself
    /// assert!((x.to_vec()[2] - 100.0).abs() < 10.0);
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// `Broadcast` when the shapes do not broadcast; `InvalidArgument` for a negative or NaN
    /// standard deviation (one read-back); `Device` when they are on different devices.
    pub fn try_normal(&self, std: &Self) -> Result<Self> {
        crate::ops::device_ops::same_device("normal", self, std)?;
        crate::autograd::no_grad(|| {
            let ok = std
                .try_ge_scalar(T::ZERO)?
                .try_all(&[], false)?
                .try_item()?;
            if !ok {
                return Err(Error::InvalidArgument {
                    op: "normal",
                    msg: format!(
                        "std must be non-negative (and not NaN); the tensor of shape {} holds others",
                        std.shape()
                    ),
                });
            }
            let shape = crate::shape::broadcast_shapes("normal", self.shape(), std.shape())?;
            let eps = Tensor::<T, D>::randn_on(shape, self.device_handle())?;
            self.try_add(&eps.try_mul(std)?)
        })
    }

    crate::ops::plain_forms! {
        /// [`Tensor::try_bernoulli`], panicking with its error.
        bernoulli, try_bernoulli() -> Self;
        /// [`Tensor::try_normal`], panicking with its error.
        normal, try_normal(std: &Self) -> Self;
    }
}
