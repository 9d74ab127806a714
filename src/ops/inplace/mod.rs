//! In-place forms of out-of-place ops, PyTorch's trailing-underscore methods (`masked_fill_`,
//! `clamp_`, `index_add_`, `scatter_`, `lerp_`, `uniform_`, ...). Each computes the
//! out-of-place result without recording, then writes it into `self`, which may be a view:
//! every handle on the storage sees the new values. Like the arithmetic in-place ops (`add_`),
//! they refuse a tensor that requires grad while recording (run them under `no_grad`, as an
//! optimizer step or a weight average does) and a broadcast view; nothing is written on
//! error.
//!
//! ```
//! use typed_tensor::prelude::*;
//! let mut scores = Tensor::<f32>::from_vec(vec![0.5, 2.0, -1.0, 3.0], [2, 2])?;
//! let future = Tensor::<bool>::from_vec(vec![false, true, false, false], [2, 2])?;
//! scores.masked_fill_(&future, f32::NEG_INFINITY)?;
//! scores.clamp_(Some(-0.5), None)?;
//! assert_eq!(scores.to_vec(), vec![0.5, -0.5, -0.5, 3.0]);
//! // An exponential moving average of weights, as in model EMA.
//! let mut ema = Tensor::<f32>::zeros([2])?;
//! ema.lerp_(&Tensor::from_vec(vec![1.0, 2.0], [2])?, 0.1)?;
//! assert_eq!(ema.to_vec(), vec![0.1, 0.2]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use super::scatter_reduce::ScatterReduce;
use crate::autograd::no_grad;
use crate::backend::Backend;
use crate::dtype::{Element, FloatElement, NumElement};
use crate::error::Result;
use crate::tensor::Tensor;

impl<T: Element, D: Backend> Tensor<T, D> {
    /// Writes `f(self)`, computed without recording, into `self`.
    fn write_result(
        &mut self,
        op: &'static str,
        f: impl FnOnce(&Self) -> Result<Self>,
    ) -> Result<()> {
        let out = no_grad(|| f(self))?;
        self.check_writable(op)?;
        no_grad(|| D::assign(self, &out))
    }
}

/// In-place methods, each `name_(&mut self, args) -> Result<()>` writing `self.try_name(args)`.
macro_rules! in_place {
    ($($name:ident = $try:ident($($arg:ident: $ty:ty),*), $torch:literal;)*) => {$(
        #[doc = concat!("In place [`Tensor::", stringify!($try), "`] (PyTorch `", $torch, "`).")]
        ///
        /// # Errors
        #[doc = concat!("As [`Tensor::", stringify!($try), "`]; `InvalidArgument` when `self` requires grad while")]
        /// recording; `Layout` for a broadcast view. Nothing is written on error.
        pub fn $name(&mut self, $($arg: $ty),*) -> Result<()> {
            self.write_result($torch, |t| t.$try($($arg),*))
        }
    )*};
}

mod more;

impl<T: Element, D: Backend> Tensor<T, D> {
    in_place! {
        masked_fill_ = try_masked_fill(mask: &Tensor<bool, D>, value: T), "masked_fill_";
        tril_ = try_tril(k: i64), "tril_";
        triu_ = try_triu(k: i64), "triu_";
    }

    /// Copies `src`, converted to `T` and broadcast to `self`'s shape, into `self` (PyTorch
    /// `copy_`; [`Tensor::copy_from`] for the same dtype).
    ///
    /// # Errors
    /// As [`Tensor::copy_from`].
    pub fn copy_<U: Element>(&mut self, src: &Tensor<U, D>) -> Result<()> {
        let src = no_grad(|| src.try_cast::<T>())?;
        self.copy_from(&src)
    }

    /// Sets every element to 0 (PyTorch `zero_`).
    ///
    /// # Errors
    /// `InvalidArgument` when `self` requires grad while recording; `Layout` for a broadcast
    /// view.
    pub fn zero_(&mut self) -> Result<()> {
        self.write_result("zero_", |t| Tensor::zeros_on(t.dims(), t.device_handle()))
    }
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    in_place! {
        clamp_ = try_clamp(min: Option<T>, max: Option<T>), "clamp_";
        clamp_min_ = try_clamp_min(min: T), "clamp_min_";
        clamp_max_ = try_clamp_max(max: T), "clamp_max_";
        index_add_ = try_index_add(axis: i64, index: &Tensor<i64, D>, source: &Self, alpha: T), "index_add_";
        index_fill_ = try_index_fill(axis: i64, index: &Tensor<i64, D>, value: T), "index_fill_";
        index_copy_ = try_index_copy(axis: i64, index: &Tensor<i64, D>, source: &Self), "index_copy_";
        scatter_ = try_scatter(axis: i64, index: &Tensor<i64, D>, src: &Self), "scatter_";
        scatter_add_ = try_scatter_add(axis: i64, index: &Tensor<i64, D>, src: &Self), "scatter_add_";
        scatter_reduce_ = try_scatter_reduce(axis: i64, index: &Tensor<i64, D>, src: &Self, reduce: ScatterReduce, include_self: bool), "scatter_reduce_";
        index_reduce_ = try_index_reduce(axis: i64, index: &Tensor<i64, D>, source: &Self, reduce: ScatterReduce, include_self: bool), "index_reduce_";
        masked_scatter_ = try_masked_scatter(mask: &Tensor<bool, D>, source: &Self), "masked_scatter_";
        put_ = try_put(index: &Tensor<i64, D>, source: &Self, accumulate: bool), "put_";
        addcmul_ = try_addcmul(tensor1: &Self, tensor2: &Self, value: T), "addcmul_";
    }
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    in_place! {
        lerp_ = try_lerp(end: &Self, weight: T), "lerp_";
        addcdiv_ = try_addcdiv(tensor1: &Self, tensor2: &Self, value: T), "addcdiv_";
        nan_to_num_ = try_nan_to_num(nan: T, posinf: Option<T>, neginf: Option<T>), "nan_to_num_";
        elu_ = try_elu(alpha: f64), "elu_";
        leaky_relu_ = try_leaky_relu(negative_slope: f64), "leaky_relu_";
        hardtanh_ = try_hardtanh(min_val: f64, max_val: f64), "hardtanh_";
        selu_ = try_selu(), "selu_";
        celu_ = try_celu(alpha: f64), "celu_";
        threshold_ = try_threshold(threshold: f64, value: f64), "threshold_";
        rrelu_ = try_rrelu(lower: f64, upper: f64, training: bool), "rrelu_";
        mish_ = try_mish(), "mish_";
        hardsigmoid_ = try_hardsigmoid(), "hardsigmoid_";
        hardswish_ = try_hardswish(), "hardswish_";
        copysign_ = try_copysign(other: &Self), "copysign_";
        hypot_ = try_hypot(other: &Self), "hypot_";
        atan2_ = try_atan2(other: &Self), "atan2_";
        xlogy_ = try_xlogy(other: &Self), "xlogy_";
        logit_ = try_logit(eps: Option<f64>), "logit_";
        sgn_ = try_sgn(), "sgn_";
        heaviside_ = try_heaviside(values: &Self), "heaviside_";
        cumsum_ = try_cumsum(axis: i64), "cumsum_";
        cumprod_ = try_cumprod(axis: i64), "cumprod_";
        renorm_ = try_renorm(p: f64, axis: i64, maxnorm: f64), "renorm_";
        addmm_ = try_addmm(m1: &Self, m2: &Self, beta: T, alpha: T), "addmm_";
    }

    /// Fills with samples of `U(low, high)` from the global generator (PyTorch `uniform_`;
    /// [`nn::init::uniform_`](crate::nn::init::uniform_)).
    ///
    /// # Errors
    /// As [`nn::init::uniform_`](crate::nn::init::uniform_).
    pub fn uniform_(&mut self, low: f64, high: f64) -> Result<()> {
        crate::nn::init::uniform_(self, low, high)
    }

    /// Fills with samples of `N(mean, std²)` from the global generator (PyTorch `normal_`;
    /// [`nn::init::normal_`](crate::nn::init::normal_)).
    ///
    /// # Errors
    /// As [`nn::init::normal_`](crate::nn::init::normal_).
    pub fn normal_(&mut self, mean: f64, std: f64) -> Result<()> {
        crate::nn::init::normal_(self, mean, std)
    }

    /// Fills with 1 with probability `p`, else 0, from the global generator (PyTorch
    /// `bernoulli_(p)`; [`Tensor::try_bernoulli`] draws with per-element probabilities).
    ///
    /// # Errors
    /// `InvalidArgument` for `p` outside `[0, 1]` (NaN included); otherwise as
    /// [`Tensor::uniform_`].
    pub fn bernoulli_(&mut self, p: f64) -> Result<()> {
        if !(0.0..=1.0).contains(&p) {
            return Err(crate::Error::InvalidArgument {
                op: "bernoulli_",
                msg: format!("p must lie in [0, 1], got {p}"),
            });
        }
        crate::nn::init::write(self, "bernoulli_", |t| {
            Tensor::<f64, D>::rand_on(t.dims(), t.device_handle())?
                .try_lt_scalar(p)?
                .try_cast()
        })
    }
}
