//! Parameter initialisation (PyTorch's `torch.nn.init`): each function overwrites a tensor in
//! place, on its device, from the global generator ([`crate::manual_seed`] makes it
//! reproducible), without recording, so it may be given a leaf that requires grad. The fans of
//! a weight follow PyTorch: `(out, in, k...)` has `fan_in = in·Πk` and `fan_out = out·Πk`.
//!
//! ```
//! use typed_tensor::prelude::*;
//! use typed_tensor::nn::init::{self, FanMode, Nonlinearity};
//! let mut w = Tensor::<f32>::zeros([128, 64])?.with_requires_grad(true)?;
//! init::kaiming_normal_(&mut w, FanMode::FanIn, Nonlinearity::Relu)?; // std √2/√64
//! let mut b = Tensor::<f32>::zeros([128])?;
//! init::uniform_(&mut b, -0.125, 0.125)?;
//! assert!(w.requires_grad() && b.to_vec().iter().all(|x| x.abs() <= 0.125));
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::autograd::no_grad;
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// The nonlinearity a layer's output goes through, which sets the gain
/// ([`calculate_gain`], PyTorch's `nonlinearity` argument).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Nonlinearity {
    /// Identity, and every linear or convolution layer: gain 1.
    Linear,
    /// Gain 1.
    Sigmoid,
    /// Gain 5/3.
    Tanh,
    /// Gain √2.
    Relu,
    /// Gain `√(2 / (1 + slope²))` for the negative slope given (PyTorch's default 0.01).
    LeakyRelu(f64),
    /// Gain 3/4.
    Selu,
}

/// Which fan the Kaiming variance preserves: the forward pass's (`FanIn`, PyTorch's default)
/// or the backward pass's (`FanOut`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FanMode {
    /// `fan_in`: the inputs each output sums.
    FanIn,
    /// `fan_out`: the outputs each input reaches.
    FanOut,
}

/// The recommended gain for a nonlinearity (PyTorch `calculate_gain`).
pub fn calculate_gain(nonlinearity: Nonlinearity) -> f64 {
    match nonlinearity {
        Nonlinearity::Linear | Nonlinearity::Sigmoid => 1.0,
        Nonlinearity::Tanh => 5.0 / 3.0,
        Nonlinearity::Relu => std::f64::consts::SQRT_2,
        Nonlinearity::LeakyRelu(slope) => (2.0 / (1.0 + slope * slope)).sqrt(),
        Nonlinearity::Selu => 0.75,
    }
}

/// `(fan_in, fan_out)` of a weight of shape `dims` (PyTorch
/// `_calculate_fan_in_and_fan_out`): `(dims[1]·r, dims[0]·r)` with `r` the product of
/// `dims[2..]`.
///
/// # Errors
/// `InvalidArgument` for fewer than two dimensions; `ShapeOverflow` when a product overflows.
pub fn fan_in_and_fan_out(dims: &[usize]) -> Result<(usize, usize)> {
    const OP: &str = "fan_in_and_fan_out";
    if dims.len() < 2 {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!(
                "fans need a weight of two or more dimensions (out, in, kernel...), got shape {dims:?}"
            ),
        });
    }
    let overflow = || Error::ShapeOverflow {
        op: OP,
        dims: dims.to_vec(),
    };
    let r = dims[2..]
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(overflow)?;
    let fan_in = dims[1].checked_mul(r).ok_or_else(overflow)?;
    let fan_out = dims[0].checked_mul(r).ok_or_else(overflow)?;
    Ok((fan_in, fan_out))
}

/// Overwrites `t` with `src` (same shape and device) under `no_grad`.
pub(crate) fn write<T: FloatElement, D: Backend>(
    t: &mut Tensor<T, D>,
    op: &'static str,
    src: impl FnOnce(&Tensor<T, D>) -> Result<Tensor<T, D>>,
) -> Result<()> {
    t.check_settable(op)?;
    if t.numel() == 0 {
        return Ok(()); // PyTorch: initialising a zero-element tensor is a no-op
    }
    no_grad(|| {
        let values = src(t)?;
        D::assign(t, &values)
    })
}

/// The no-op on a zero-element tensor, before its fans are computed (PyTorch warns and
/// returns), with the check every write makes.
fn empty<T: FloatElement, D: Backend>(t: &Tensor<T, D>, op: &'static str) -> Result<()> {
    t.check_settable(op)
}

/// Rejects a NaN or infinite parameter, or a negative one where `non_negative`.
fn check(op: &'static str, values: &[(&str, f64, bool)]) -> Result<()> {
    for &(name, v, non_negative) in values {
        if !v.is_finite() || (non_negative && v < 0.0) {
            let want = if non_negative {
                "finite and >= 0"
            } else {
                "finite"
            };
            return Err(Error::InvalidArgument {
                op,
                msg: format!("{name} must be {want}, got {v}"),
            });
        }
    }
    Ok(())
}

/// Samples from `U(low, high)` (PyTorch `uniform_`).
///
/// # Errors
/// `InvalidArgument` for a non-finite bound or `low > high`; `Layout` for a broadcast view;
/// `InvalidArgument` when `t` is part of a recorded graph (not a leaf); allocation failure.
pub fn uniform_<T: FloatElement, D: Backend>(
    t: &mut Tensor<T, D>,
    low: f64,
    high: f64,
) -> Result<()> {
    check("uniform_", &[("low", low, false), ("high", high, false)])?;
    if low > high {
        return Err(Error::InvalidArgument {
            op: "uniform_",
            msg: format!("low {low} is greater than high {high}"),
        });
    }
    write(t, "uniform_", |t| {
        Tensor::<T, D>::rand_on(t.dims(), t.device_handle())?
            .try_mul_scalar(T::from_f64(high - low))?
            .try_add_scalar(T::from_f64(low))
    })
}

/// Samples from `N(mean, std²)` (PyTorch `normal_`).
///
/// # Errors
/// `InvalidArgument` for a non-finite `mean` or a negative or non-finite `std`; otherwise as
/// [`uniform_`].
pub fn normal_<T: FloatElement, D: Backend>(
    t: &mut Tensor<T, D>,
    mean: f64,
    std: f64,
) -> Result<()> {
    check("normal_", &[("mean", mean, false), ("std", std, true)])?;
    write(t, "normal_", |t| {
        Tensor::<T, D>::randn_on(t.dims(), t.device_handle())?
            .try_mul_scalar(T::from_f64(std))?
            .try_add_scalar(T::from_f64(mean))
    })
}

/// Samples from `N(mean, std²)` truncated to `[a, b]` (PyTorch `trunc_normal_`): a uniform
/// sample between the bounds' normal CDFs mapped back through `erfinv`, then clamped.
///
/// # Errors
/// `InvalidArgument` for non-finite arguments, a negative `std` or `a > b`; otherwise as
/// [`uniform_`].
pub fn trunc_normal_<T: FloatElement, D: Backend>(
    t: &mut Tensor<T, D>,
    mean: f64,
    std: f64,
    a: f64,
    b: f64,
) -> Result<()> {
    const OP: &str = "trunc_normal_";
    check(
        OP,
        &[
            ("mean", mean, false),
            ("std", std, true),
            ("a", a, false),
            ("b", b, false),
        ],
    )?;
    if a > b {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!("the lower bound a = {a} is above the upper bound b = {b}"),
        });
    }
    // The CDF of the standard normal, Φ(x) = (1 + erf(x/√2)) / 2; std 0 puts every sample at
    // the mean, clamped.
    let cdf = |x: f64| {
        let z = if std > 0.0 {
            (x - mean) / std
        } else {
            (x - mean).signum() * f64::INFINITY
        };
        (1.0 + libm::erf(z / std::f64::consts::SQRT_2)) / 2.0
    };
    let (l, u) = (2.0 * cdf(a) - 1.0, 2.0 * cdf(b) - 1.0);
    write(t, OP, |t| {
        // In f64 through the erfinv, so 16-bit tensors keep the tails' shape.
        Tensor::<f64, D>::rand_on(t.dims(), t.device_handle())?
            .try_mul_scalar(u - l)?
            .try_add_scalar(l)?
            .try_erfinv()?
            .try_mul_scalar(std * std::f64::consts::SQRT_2)?
            .try_add_scalar(mean)?
            .try_clip(a, b)?
            .try_cast::<T>()
    })
}

/// Fills with `value` (PyTorch `constant_`).
///
/// # Errors
/// As [`uniform_`], bar the bounds.
pub fn constant_<T: FloatElement, D: Backend>(t: &mut Tensor<T, D>, value: f64) -> Result<()> {
    write(t, "constant_", |t| {
        Tensor::full_on(t.dims(), T::from_f64(value), t.device_handle())
    })
}

/// Fills with zeros (PyTorch `zeros_`). Errors as [`constant_`].
pub fn zeros_<T: FloatElement, D: Backend>(t: &mut Tensor<T, D>) -> Result<()> {
    constant_(t, 0.0)
}

/// Fills with ones (PyTorch `ones_`). Errors as [`constant_`].
pub fn ones_<T: FloatElement, D: Backend>(t: &mut Tensor<T, D>) -> Result<()> {
    constant_(t, 1.0)
}

/// The identity matrix, ones on the main diagonal of a 2-d tensor of any shape (PyTorch
/// `eye_`).
///
/// # Errors
/// `InvalidArgument` unless `t` is 2-d; otherwise as [`constant_`].
pub fn eye_<T: FloatElement, D: Backend>(t: &mut Tensor<T, D>) -> Result<()> {
    let &[rows, cols] = t.dims() else {
        return Err(Error::InvalidArgument {
            op: "eye_",
            msg: format!("needs a 2-d tensor, got shape {}", t.shape()),
        });
    };
    write(t, "eye_", |t| {
        Tensor::identity_on(rows, cols, t.device_handle())
    })
}

/// Glorot/Xavier uniform: `U(-a, a)` with `a = gain·√(6 / (fan_in + fan_out))` (PyTorch
/// `xavier_uniform_`).
///
/// # Errors
/// `InvalidArgument` for fewer than two dimensions or a non-finite or negative `gain`;
/// otherwise as [`uniform_`].
pub fn xavier_uniform_<T: FloatElement, D: Backend>(t: &mut Tensor<T, D>, gain: f64) -> Result<()> {
    check("xavier_uniform_", &[("gain", gain, true)])?;
    if t.numel() == 0 {
        return empty(t, "xavier_uniform_");
    }
    let (fan_in, fan_out) = fan_in_and_fan_out(t.dims())?;
    let a = gain * (6.0 / (fan_in as f64 + fan_out as f64)).sqrt();
    uniform_(t, -a, a)
}

/// Glorot/Xavier normal: `N(0, std²)` with `std = gain·√(2 / (fan_in + fan_out))` (PyTorch
/// `xavier_normal_`).
///
/// # Errors
/// As [`xavier_uniform_`].
pub fn xavier_normal_<T: FloatElement, D: Backend>(t: &mut Tensor<T, D>, gain: f64) -> Result<()> {
    check("xavier_normal_", &[("gain", gain, true)])?;
    if t.numel() == 0 {
        return empty(t, "xavier_normal_");
    }
    let (fan_in, fan_out) = fan_in_and_fan_out(t.dims())?;
    normal_(
        t,
        0.0,
        gain * (2.0 / (fan_in as f64 + fan_out as f64)).sqrt(),
    )
}

/// The Kaiming standard deviation `gain / √fan`.
fn kaiming_std(dims: &[usize], mode: FanMode, nonlinearity: Nonlinearity) -> Result<f64> {
    let (fan_in, fan_out) = fan_in_and_fan_out(dims)?;
    let fan = match mode {
        FanMode::FanIn => fan_in,
        FanMode::FanOut => fan_out,
    };
    Ok(calculate_gain(nonlinearity) / (fan as f64).sqrt())
}

/// He/Kaiming uniform: `U(-b, b)` with `b = √3 · gain / √fan` (PyTorch `kaiming_uniform_`;
/// its `a` is the slope of [`Nonlinearity::LeakyRelu`], and `nn.Linear`'s default is
/// `kaiming_uniform_` with `LeakyRelu(√5)`, a bound of `1/√fan_in`).
///
/// # Errors
/// `InvalidArgument` for fewer than two dimensions; otherwise as [`uniform_`].
pub fn kaiming_uniform_<T: FloatElement, D: Backend>(
    t: &mut Tensor<T, D>,
    mode: FanMode,
    nonlinearity: Nonlinearity,
) -> Result<()> {
    if t.numel() == 0 {
        return empty(t, "kaiming_uniform_"); // before the fans, one of which may be 0
    }
    let b = 3f64.sqrt() * kaiming_std(t.dims(), mode, nonlinearity)?;
    uniform_(t, -b, b)
}

/// He/Kaiming normal: `N(0, std²)` with `std = gain / √fan` (PyTorch `kaiming_normal_`).
///
/// # Errors
/// As [`kaiming_uniform_`].
pub fn kaiming_normal_<T: FloatElement, D: Backend>(
    t: &mut Tensor<T, D>,
    mode: FanMode,
    nonlinearity: Nonlinearity,
) -> Result<()> {
    if t.numel() == 0 {
        return empty(t, "kaiming_normal_");
    }
    let std = kaiming_std(t.dims(), mode, nonlinearity)?;
    normal_(t, 0.0, std)
}

/// A (semi-)orthogonal matrix times `gain` (PyTorch `orthogonal_`): `t` seen as
/// `(dims[0], Π dims[1..])` gets orthonormal rows (or columns, when it has more rows than
/// columns). Made as the orthogonal factor `u·vh` of a Gaussian matrix's SVD, which is
/// distributed as PyTorch's sign-corrected QR factor is (uniformly, by Haar measure).
///
/// # Errors
/// `InvalidArgument` for fewer than two dimensions or a non-finite `gain`; otherwise as
/// [`uniform_`].
pub fn orthogonal_<T: FloatElement, D: Backend>(t: &mut Tensor<T, D>, gain: f64) -> Result<()> {
    const OP: &str = "orthogonal_";
    check(OP, &[("gain", gain, false)])?;
    if t.dims().len() < 2 {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!("needs two or more dimensions, got shape {}", t.shape()),
        });
    }
    let rows = t.dims()[0];
    let cols = t.numel() / rows.max(1);
    write(t, OP, |t| {
        let a = Tensor::<f64, D>::randn_on([rows, cols], t.device_handle())?;
        let (u, _, vh) = a.try_svd()?;
        u.try_matmul(&vh)?
            .try_mul_scalar(gain)?
            .try_cast::<T>()?
            .try_reshape(t.dims())
    })
}
