//! More of PyTorch's activations (`hardtanh`, `relu6`, `hardsigmoid`, `hardswish`, `mish`,
//! `selu`, `celu`, `logsigmoid`, `softsign`, `glu`, `tanhshrink`, `softshrink`, `hardshrink`,
//! `threshold`, `rrelu`) and `gumbel_softmax`, each from differentiable ops with PyTorch's
//! values and gradients, kinks included.
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let x = tensor![-4.0f64, -1.0, 0.0, 2.0, 7.0];
//! assert_eq!(x.relu6().to_vec(), vec![0.0, 0.0, 0.0, 2.0, 6.0]);
//! assert_eq!(x.hardsigmoid().to_vec()[2], 0.5);
//! assert_eq!(x.softsign().to_vec()[3], 2.0 / 3.0);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, OrPanic, Result};
use crate::ops::plain_forms;
use crate::tensor::Tensor;

/// SELU's constants (Klambauer et al., as PyTorch).
const SELU_ALPHA: f64 = 1.673_263_242_354_377_3;
const SELU_SCALE: f64 = 1.050_700_987_355_480_5;

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// `x` clipped to `[min_val, max_val]` (PyTorch `hardtanh`, defaults -1 and 1); the
    /// gradient is 1 strictly inside and 0 on and outside the bounds, as PyTorch's.
    ///
    /// # Errors
    /// `InvalidArgument` when `min_val > max_val`.
    pub fn try_hardtanh(&self, min_val: f64, max_val: f64) -> Result<Self> {
        self.try_clip(T::from_f64(min_val), T::from_f64(max_val))
    }

    /// `min(max(x, 0), 6)` (PyTorch `relu6`, `hardtanh(x, 0, 6)`).
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_relu6(&self) -> Result<Self> {
        self.try_hardtanh(0.0, 6.0)
    }

    /// `0` below -3, `1` above 3, `x / 6 + 1/2` between, NaN at NaN (PyTorch `hardsigmoid`;
    /// the gradient is `1/6` strictly between -3 and 3, 0 elsewhere).
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_hardsigmoid(&self) -> Result<Self> {
        // `clip`'s gradient is 0 at its bounds, which x = ±3 reach exactly.
        self.try_mul_scalar(T::from_f64(1.0 / 6.0))?
            .try_add_scalar(T::from_f64(0.5))?
            .try_clip(T::ZERO, T::ONE)
    }

    /// `x · min(max(x + 3, 0), 6) / 6` (PyTorch `hardswish`): 0 below -3, `x` above 3; the
    /// gradient is PyTorch 2.15's, `x / 3 + 1/2` strictly between -3 and 3, 0 at -3 and 1 at 3
    /// (and 0 at -inf, 1 at inf).
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_hardswish(&self) -> Result<Self> {
        let zero = Self::scalar_on(T::ZERO, &self.device)?;
        // The middle piece of x clipped to [-3, 3], so that the branches not taken hold no
        // infinity (whose gradient times 0 would be NaN).
        let c = self.try_clip(T::from_f64(-3.0), T::from_f64(3.0))?;
        let mid = c
            .try_mul(&c.try_add_scalar(T::from_f64(3.0))?)?
            .try_mul_scalar(T::from_f64(1.0 / 6.0))?;
        let upper = Self::try_where(&self.try_lt_scalar(T::from_f64(3.0))?, &mid, self)?;
        Self::try_where(&self.try_le_scalar(T::from_f64(-3.0))?, &zero, &upper)
    }

    /// `x · tanh(softplus(x))` (PyTorch `mish`).
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_mish(&self) -> Result<Self> {
        self.try_mul(&self.try_softplus()?.try_tanh()?)
    }

    /// `scale · elu(x, alpha)` with PyTorch's constants (PyTorch `selu`).
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_selu(&self) -> Result<Self> {
        self.try_elu(SELU_ALPHA)?
            .try_mul_scalar(T::from_f64(SELU_SCALE))
    }

    /// `x` for `x > 0`, `alpha · (exp(x / alpha) - 1)` otherwise (PyTorch `celu`).
    ///
    /// # Errors
    /// `InvalidArgument` for `alpha == 0`.
    pub fn try_celu(&self, alpha: f64) -> Result<Self> {
        if alpha == 0.0 {
            return Err(Error::InvalidArgument {
                op: "celu",
                msg: "alpha must not be 0".into(),
            });
        }
        // As elu: the negative branch on x where x <= 0 and on 0 elsewhere.
        let pos = self.try_gt_scalar(T::ZERO)?;
        let zero = Self::scalar_on(T::ZERO, &self.device)?;
        let neg = Self::try_where(&pos, &zero, self)?
            .try_mul_scalar(T::from_f64(1.0 / alpha))?
            .try_expm1()?
            .try_mul_scalar(T::from_f64(alpha))?;
        Self::try_where(&pos, self, &neg)
    }

    /// `log(sigmoid(x)) = -softplus(-x)` (PyTorch `logsigmoid`), without overflow.
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_logsigmoid(&self) -> Result<Self> {
        self.try_neg()?.try_softplus()?.try_neg()
    }

    /// `x / (1 + |x|)` (PyTorch `softsign`).
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_softsign(&self) -> Result<Self> {
        self.try_div(&self.try_abs()?.try_add_scalar(T::ONE)?)
    }

    /// The gated linear unit along `axis` (PyTorch `glu`): the first half times the sigmoid of
    /// the second; the axis halves.
    ///
    /// # Errors
    /// `InvalidArgument` when the axis' length is odd; `Axis` for a bad axis.
    pub fn try_glu(&self, axis: i64) -> Result<Self> {
        let ax = self.shape().axis("glu", axis)?;
        let n = self.dims()[ax];
        if !n.is_multiple_of(2) {
            return Err(Error::InvalidArgument {
                op: "glu",
                msg: format!(
                    "axis {ax} of shape {} must have an even length",
                    self.shape()
                ),
            });
        }
        let a = self.narrow(ax as i64, 0, n / 2)?;
        let b = self.narrow(ax as i64, n / 2, n / 2)?;
        a.try_mul(&b.try_sigmoid()?)
    }

    /// `x - tanh(x)` (PyTorch `tanhshrink`).
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_tanhshrink(&self) -> Result<Self> {
        self.try_sub(&self.try_tanh()?)
    }

    /// `x - λ` above `λ`, `x + λ` below `-λ`, 0 between (PyTorch `softshrink`, `λ` 0.5 there);
    /// NaN stays NaN, and the gradient is 0 on `[-λ, λ]`, bounds included.
    ///
    /// # Errors
    /// `InvalidArgument` for a negative or NaN `lambd`.
    pub fn try_softshrink(&self, lambd: f64) -> Result<Self> {
        check_lambda("softshrink", lambd)?;
        let (l, neg) = (T::from_f64(lambd), T::from_f64(-lambd));
        let high = self.try_gt_scalar(l)?;
        let low = self.try_lt_scalar(neg)?;
        let inside = self.try_mul_scalar(T::ZERO)?; // NaN · 0 keeps NaN
        let lower = Self::try_where(&low, &self.try_add_scalar(l)?, &inside)?;
        Self::try_where(&high, &self.try_sub_scalar(l)?, &lower)
    }

    /// `x` where `|x| > λ`, 0 on `[-λ, λ]` (PyTorch `hardshrink`, `λ` 0.5 there); NaN stays
    /// NaN.
    ///
    /// # Errors
    /// `InvalidArgument` for a negative or NaN `lambd`.
    pub fn try_hardshrink(&self, lambd: f64) -> Result<Self> {
        check_lambda("hardshrink", lambd)?;
        let inside = self
            .try_ge_scalar(T::from_f64(-lambd))?
            .try_logical_and(&self.try_le_scalar(T::from_f64(lambd))?)?;
        Self::try_where(&inside, &Self::scalar_on(T::ZERO, &self.device)?, self)
    }

    /// `log(1 + exp(β·x)) / β`, and `x` itself where `β·x > threshold` (PyTorch
    /// `softplus(x, beta, threshold)`, defaults 1 and 20 there; [`Tensor::try_softplus`] is
    /// the form without a threshold).
    ///
    /// # Errors
    /// `InvalidArgument` for a `beta` that is 0, infinite or NaN, or a NaN `threshold`.
    pub fn try_softplus_with(&self, beta: f64, threshold: f64) -> Result<Self> {
        if !(beta.is_finite() && beta != 0.0) || threshold.is_nan() {
            return Err(Error::InvalidArgument {
                op: "softplus",
                msg: format!(
                    "beta must be finite and non-zero and threshold a number, got beta {beta} and threshold {threshold}"
                ),
            });
        }
        let bx = self.try_mul_scalar(T::from_f64(beta))?;
        let soft = bx.try_softplus()?.try_div_scalar(T::from_f64(beta))?;
        Self::try_where(&bx.try_gt_scalar(T::from_f64(threshold))?, self, &soft)
    }

    /// `x` above `threshold`, `value` at or below it (PyTorch `threshold`); NaN stays NaN.
    ///
    /// # Errors
    /// Allocation or kernel failure.
    pub fn try_threshold(&self, threshold: f64, value: f64) -> Result<Self> {
        let below = self.try_le_scalar(T::from_f64(threshold))?;
        Self::try_where(
            &below,
            &Self::scalar_on(T::from_f64(value), &self.device)?,
            self,
        )
    }

    /// The randomized leaky ReLU (PyTorch `rrelu`): `x` above 0, `a·x` at or below, with `a`
    /// drawn uniformly from `[lower, upper]` for each element while `training` and
    /// `(lower + upper) / 2` otherwise (PyTorch's defaults are 1/8 and 1/3).
    ///
    /// # Errors
    /// `InvalidArgument` unless `0 <= lower <= upper` (NaN neither).
    pub fn try_rrelu(&self, lower: f64, upper: f64, training: bool) -> Result<Self> {
        if !(0.0 <= lower && lower <= upper) {
            return Err(Error::InvalidArgument {
                op: "rrelu",
                msg: format!("needs 0 <= lower <= upper, got lower {lower} and upper {upper}"),
            });
        }
        if !training {
            return self.try_leaky_relu((lower + upper) / 2.0);
        }
        let slope = Tensor::<f32, D>::rand_on(self.shape().clone(), &self.device)?
            .try_cast::<T>()?
            .try_mul_scalar(T::from_f64(upper - lower))?
            .try_add_scalar(T::from_f64(lower))?;
        Self::try_where(&self.try_gt_scalar(T::ZERO)?, self, &self.try_mul(&slope)?)
    }

    plain_forms! {
        /// [`Tensor::try_tanhshrink`], panicking with its error.
        tanhshrink, try_tanhshrink() -> Self;
        /// [`Tensor::try_softshrink`], panicking with its error.
        softshrink, try_softshrink(lambd: f64) -> Self;
        /// [`Tensor::try_hardshrink`], panicking with its error.
        hardshrink, try_hardshrink(lambd: f64) -> Self;
        /// [`Tensor::try_threshold`], panicking with its error.
        threshold, try_threshold(threshold: f64, value: f64) -> Self;
        /// [`Tensor::try_rrelu`], panicking with its error.
        rrelu, try_rrelu(lower: f64, upper: f64, training: bool) -> Self;
        /// [`Tensor::try_hardtanh`], panicking with its error.
        hardtanh, try_hardtanh(min_val: f64, max_val: f64) -> Self;
        /// [`Tensor::try_relu6`], panicking with its error.
        relu6, try_relu6() -> Self;
        /// [`Tensor::try_hardsigmoid`], panicking with its error.
        hardsigmoid, try_hardsigmoid() -> Self;
        /// [`Tensor::try_hardswish`], panicking with its error.
        hardswish, try_hardswish() -> Self;
        /// [`Tensor::try_mish`], panicking with its error.
        mish, try_mish() -> Self;
        /// [`Tensor::try_selu`], panicking with its error.
        selu, try_selu() -> Self;
        /// [`Tensor::try_celu`], panicking with its error.
        celu, try_celu(alpha: f64) -> Self;
        /// [`Tensor::try_logsigmoid`], panicking with its error.
        logsigmoid, try_logsigmoid() -> Self;
        /// [`Tensor::try_softsign`], panicking with its error.
        softsign, try_softsign() -> Self;
        /// [`Tensor::try_glu`], panicking with its error.
        glu, try_glu(axis: i64) -> Self;
    }
}

/// Refuses a negative or NaN `λ` (PyTorch: "lambda must be greater or equal to 0").
fn check_lambda(op: &'static str, lambd: f64) -> Result<()> {
    if lambd >= 0.0 {
        Ok(())
    } else {
        Err(Error::InvalidArgument {
            op,
            msg: format!("lambd must be >= 0, got {lambd}"),
        })
    }
}

/// A sample from the Gumbel-softmax distribution over `axis` (PyTorch `gumbel_softmax`):
/// `softmax((logits + g) / tau)` with `g = -log(e)`, `e` standard exponential draws from the
/// process generator. With `hard`, the result is the one-hot of each sample's argmax in the
/// forward pass and the soft sample's gradient in the backward pass (straight-through:
/// `y_hard - y_soft.detach() + y_soft`). Same shape as `logits`.
///
/// ```
/// use typed_tensor::prelude::*;
/// let logits = Tensor::<f64>::from_vec(vec![0.0, 1.0, 2.0, 0.5, 0.5, 0.5], [2, 3])?;
/// let y = typed_tensor::nn::gumbel_softmax(&logits, 0.5, true, -1)?;
/// let rows = y.sum(&[-1], false).to_vec();
/// assert_eq!(rows, vec![1.0, 1.0]); // one 1 per row
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `Axis` for a bad axis; `InvalidArgument` for a `tau` that is not positive and finite, or
/// (with `hard`) an empty `axis`.
pub fn gumbel_softmax<T: FloatElement, D: Backend>(
    logits: &Tensor<T, D>,
    tau: f64,
    hard: bool,
    axis: i64,
) -> Result<Tensor<T, D>> {
    let op = "gumbel_softmax";
    let ax = logits.shape().axis(op, axis)?;
    if !(tau > 0.0 && tau.is_finite()) || (hard && logits.dims()[ax] == 0) {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "needs a positive, finite tau (got {tau}) and, with hard, a non-empty axis (shape {})",
                logits.shape()
            ),
        });
    }
    // e = -log(1 - u) from u in [0, 1), kept above 0 so that g stays finite, in f32 for every
    // dtype (a 16-bit uniform has few values).
    let u = Tensor::<f32, D>::rand_on(logits.dims(), logits.device_handle())?;
    let e = u.try_rsub_scalar(1.0)?.try_log()?.try_neg()?;
    let g = e
        .try_maximum_scalar(f32::MIN_POSITIVE)?
        .try_log()?
        .try_neg()?;
    let soft = logits
        .try_add(&g.try_cast::<T>()?)?
        .try_div_scalar(T::from_f64(tau))?
        .try_softmax(axis)?;
    if !hard {
        return Ok(soft);
    }
    let at = soft.try_argmax(&[axis], true)?;
    let one_hot =
        crate::autograd::no_grad(|| soft.try_zeros_like()?.try_scatter_value(axis, &at, T::ONE))?;
    one_hot.try_sub(&soft.detach())?.try_add(&soft)
}
