//! Distributions of transformed variables (PyTorch `TransformedDistribution` and its
//! element-wise bijections), the [`Rsample`] trait they sample through, and the families
//! PyTorch builds on them: `HalfNormal`, `Weibull`, `Pareto`.

use super::{Distribution, Exponential, KlDivergence, Normal, check, extended};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::shape::{Shape, broadcast_shapes};
use crate::tensor::Tensor;

/// Distributions with a reparameterized sample (PyTorch's `has_rsample`): draws through the
/// parameters, so gradients reach them. The continuous families implement it with their
/// `rsample`; [`TransformedDistribution`] and [`super::Independent`] pass it on.
pub trait Rsample<T: FloatElement, D: Backend>: Distribution<T, D, Value = Tensor<T, D>> {
    /// Samples of shape `sample_shape ++ batch_shape`, differentiable in the parameters.
    ///
    /// # Errors
    /// Allocation failure.
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>>;
}

macro_rules! rsample_from_inherent {
    ($($family:ident),*) => {$(
        impl<T: FloatElement, D: Backend> Rsample<T, D> for super::$family<T, D> {
            fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
                super::$family::rsample(self, sample_shape)
            }
        }
    )*};
}

rsample_from_inherent!(
    Normal,
    Uniform,
    Exponential,
    Laplace,
    Cauchy,
    Gumbel,
    LogNormal,
    StudentT,
    Gamma,
    Beta,
    Dirichlet,
    MultivariateNormal,
    HalfNormal,
    Weibull,
    Pareto,
    Chi2,
    InverseGamma,
    HalfCauchy,
    Kumaraswamy
);

impl<T: FloatElement, D: Backend, B: Rsample<T, D>> Rsample<T, D> for super::Independent<B> {
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        self.base().rsample(sample_shape)
    }
}

/// An invertible element-wise map `y = f(x)` (PyTorch's `torch.distributions.transforms`
/// with `event_dim = 0`): its inverse and `log |dy/dx|`, PyTorch's formulas.
#[derive(Clone, Debug)]
pub enum Transform<T: FloatElement, D: Backend> {
    /// `y = exp(x)` (`ExpTransform`).
    Exp,
    /// `y = loc + scale · x`, the parameters broadcast (`AffineTransform`).
    Affine {
        /// The shift.
        loc: Tensor<T, D>,
        /// The factor (not 0).
        scale: Tensor<T, D>,
    },
    /// `y = sigmoid(x)`, clamped into `[tiny, 1 - eps]` (`SigmoidTransform`).
    Sigmoid,
    /// `y = tanh(x)` (`TanhTransform`: a squashed Gaussian policy is
    /// `Normal` then `Tanh`).
    Tanh,
    /// `y = x^exponent` on positive `x` (`PowerTransform`).
    Power(Tensor<T, D>),
    /// `y = log(1 + e^x)` (`SoftplusTransform`).
    Softplus,
}

impl<T: FloatElement, D: Backend> Transform<T, D> {
    /// `f(x)`.
    ///
    /// # Errors
    /// `Broadcast` for parameters that do not broadcast with `x`; allocation failure.
    pub fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        match self {
            Transform::Exp => x.try_exp(),
            Transform::Affine { loc, scale } => loc.try_add(&scale.try_mul(x)?),
            Transform::Sigmoid => clamp_probs(&x.try_sigmoid()?),
            Transform::Tanh => x.try_tanh(),
            Transform::Power(e) => x.try_pow(e),
            Transform::Softplus => x.try_softplus(),
        }
    }

    /// `f⁻¹(y)`.
    ///
    /// # Errors
    /// As [`Transform::forward`].
    pub fn inverse(&self, y: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        match self {
            Transform::Exp => y.try_log(),
            Transform::Affine { loc, scale } => y.try_sub(loc)?.try_div(scale),
            Transform::Sigmoid => {
                let y = clamp_probs(y)?;
                y.try_log()?.try_sub(&y.try_neg()?.try_log1p()?)
            }
            Transform::Tanh => y.try_atanh(),
            Transform::Power(e) => y.try_pow(&e.try_reciprocal()?),
            // x = y + log(-expm1(-y)).
            Transform::Softplus => y.try_add(&y.try_neg()?.try_expm1()?.try_neg()?.try_log()?),
        }
    }

    /// `log |df/dx|` at `x` (with `y = f(x)`), of the two shapes broadcast.
    ///
    /// # Errors
    /// As [`Transform::forward`].
    pub fn log_abs_det_jacobian(&self, x: &Tensor<T, D>, y: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let c = |v: f64| T::from_f64(v);
        match self {
            Transform::Exp => Ok(x.clone()),
            Transform::Affine { scale, .. } => {
                let shape = broadcast_shapes("AffineTransform", x.shape(), scale.shape())?;
                scale.try_abs()?.try_log()?.expand(shape)
            }
            // -softplus(-x) - softplus(x).
            Transform::Sigmoid => x
                .try_neg()?
                .try_softplus()?
                .try_neg()?
                .try_sub(&x.try_softplus()?),
            // 2 (log 2 - x - softplus(-2x)), stable for large |x|.
            Transform::Tanh => {
                let s = x.try_mul_scalar(c(-2.0))?.try_softplus()?;
                x.try_neg()?
                    .try_sub(&s)?
                    .try_add_scalar(c(std::f64::consts::LN_2))?
                    .try_mul_scalar(c(2.0))
            }
            Transform::Power(e) => e.try_mul(y)?.try_div(x)?.try_abs()?.try_log(),
            Transform::Softplus => x.try_neg()?.try_softplus()?.try_neg(),
        }
    }
}

/// `p` clamped into `[tiny, 1 - eps]` of its dtype (PyTorch's `_clipped_sigmoid`).
fn clamp_probs<T: FloatElement, D: Backend>(p: &Tensor<T, D>) -> Result<Tensor<T, D>> {
    p.try_clip(
        T::from_f64(super::tiny::<T>()),
        T::from_f64(1.0 - super::eps::<T>()),
    )
}

/// The distribution of `f_k(... f_1(x))` for `x` from `base` (PyTorch
/// `TransformedDistribution`): samples are the base's pushed through the transforms, and
/// `log_prob(y) = base.log_prob(x) - Σ log |df_i/dx|` at the inverted values, each log-Jacobian
/// summed over the base's event axes (a multivariate base keeps its event). PyTorch has no
/// entropy for it either (an `Err`).
///
/// ```
/// use typed_tensor::distributions::{Distribution, Normal, Rsample, Transform, TransformedDistribution};
/// use typed_tensor::prelude::*;
/// // A squashed Gaussian policy (SAC): tanh of a normal.
/// let mu = Tensor::<f64>::from_vec(vec![0.0, 0.5], [2])?;
/// let pi = TransformedDistribution::new(Normal::new(&mu, &Tensor::scalar(1.0))?, vec![Transform::Tanh])?;
/// let a = pi.rsample(&[3])?; // (3, 2) in (-1, 1)
/// assert!(a.to_vec().iter().all(|v| v.abs() < 1.0));
/// let lp = pi.log_prob(&tensor![0.0f64, 0.0])?;
/// assert!((lp.to_vec()[0] - (-0.9189385332046727)).abs() < 1e-12); // tanh'(0) = 1
/// # Ok::<(), typed_tensor::Error>(())
/// ```
#[derive(Clone)]
pub struct TransformedDistribution<B, T: FloatElement, D: Backend> {
    pub(super) base: B,
    pub(super) transforms: Vec<Transform<T, D>>,
    pub(super) batch: Shape,
}

impl<B: Distribution<T, D, Value = Tensor<T, D>>, T: FloatElement, D: Backend>
    TransformedDistribution<B, T, D>
{
    /// `base` pushed through `transforms`, first to last. The batch shape is the base's
    /// broadcast with the transforms' parameters.
    ///
    /// # Errors
    /// `Broadcast` when a parameter does not broadcast with the base's batch shape;
    /// `InvalidArgument` for an affine scale of 0 (not invertible).
    pub fn new(base: B, transforms: Vec<Transform<T, D>>) -> Result<Self> {
        const OP: &str = "TransformedDistribution";
        // The parameters broadcast with the whole value shape, batch then event (PyTorch's
        // `forward_shape`); the event axes are then split off again.
        let event = base.event_shape();
        let mut batch = Shape::new([base.batch_shape().dims(), &event[..]].concat());
        for t in &transforms {
            match t {
                Transform::Affine { loc, scale } => {
                    batch = broadcast_shapes(OP, &batch, loc.shape())?;
                    batch = broadcast_shapes(OP, &batch, scale.shape())?;
                    check(
                        OP,
                        scale.try_ne_scalar(T::ZERO)?,
                        "an affine scale of 0 is not invertible",
                    )?;
                }
                Transform::Power(e) => batch = broadcast_shapes(OP, &batch, e.shape())?,
                _ => {}
            }
        }
        let full = batch.dims();
        if full.len() < event.len() || full[full.len() - event.len()..] != event[..] {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!(
                    "the transforms' parameters change the base's event shape {event:?} to the trailing axes of {batch}; give them the event's shape or one that broadcasts to it"
                ),
            });
        }
        let batch = Shape::new(full[..full.len() - event.len()].to_vec());
        Ok(TransformedDistribution {
            base,
            transforms,
            batch,
        })
    }

    /// The base distribution.
    pub fn base(&self) -> &B {
        &self.base
    }

    /// The transforms, first to last.
    pub fn transforms(&self) -> &[Transform<T, D>] {
        &self.transforms
    }

    fn push(&self, mut x: Tensor<T, D>) -> Result<Tensor<T, D>> {
        for t in &self.transforms {
            x = t.forward(&x)?;
        }
        Ok(x)
    }
}

impl<B: Distribution<T, D, Value = Tensor<T, D>>, T: FloatElement, D: Backend> Distribution<T, D>
    for TransformedDistribution<B, T, D>
{
    type Value = Tensor<T, D>;
    fn batch_shape(&self) -> &Shape {
        &self.batch
    }
    fn event_shape(&self) -> Vec<usize> {
        self.base.event_shape()
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        crate::autograd::no_grad(|| self.push(self.base.sample(sample_shape)?))
    }
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let mut y = value.clone();
        let mut lp: Option<Tensor<T, D>> = None;
        // Element-wise Jacobians summed over the base's event axes (PyTorch's
        // `_sum_rightmost(ldj, event_dim)`), so a multivariate base gets one term per event.
        let event = self.base.event_shape().len();
        let axes: Vec<i64> = (1..=event as i64).map(|a| -a).collect();
        for t in self.transforms.iter().rev() {
            let x = t.inverse(&y)?;
            let mut j = t.log_abs_det_jacobian(&x, &y)?;
            if event > 0 {
                if j.ndim() < event {
                    return Err(Error::InvalidArgument {
                        op: "TransformedDistribution.log_prob",
                        msg: format!(
                            "a value of shape {} has fewer axes than the event shape {:?}",
                            y.shape(),
                            self.base.event_shape()
                        ),
                    });
                }
                j = j.try_sum(&axes, false)?;
            }
            lp = Some(match lp {
                Some(lp) => lp.try_sub(&j)?,
                None => j.try_neg()?,
            });
            y = x;
        }
        let base = self.base.log_prob(&y)?;
        match lp {
            Some(lp) => base.try_add(&lp),
            None => Ok(base),
        }
    }
    fn entropy(&self) -> Result<Tensor<T, D>> {
        Err(Error::InvalidArgument {
            op: "TransformedDistribution.entropy",
            msg: "a transformed distribution has no closed-form entropy (PyTorch raises NotImplementedError); estimate it as -log_prob of samples".into(),
        })
    }
}

impl<B: Rsample<T, D>, T: FloatElement, D: Backend> Rsample<T, D>
    for TransformedDistribution<B, T, D>
{
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        self.push(self.base.rsample(sample_shape)?)
    }
}

/// The half-normal distribution `|X|`, `X ~ Normal(0, scale)` (PyTorch `HalfNormal`).
#[derive(Clone)]
pub struct HalfNormal<T: FloatElement, D: Backend> {
    normal: Normal<T, D>,
    scale: Tensor<T, D>,
}

impl<T: FloatElement, D: Backend> HalfNormal<T, D> {
    /// The density `√(2/π)/scale · exp(-x²/(2 scale²))` on `x ≥ 0`.
    ///
    /// # Errors
    /// `InvalidArgument` for a scale that is not positive.
    pub fn new(scale: &Tensor<T, D>) -> Result<Self> {
        let zero = Tensor::zeros_on(scale.shape().clone(), scale.device_handle())?;
        Ok(HalfNormal {
            normal: Normal::new(&zero, scale)?,
            scale: scale.clone(),
        })
    }
    /// The scale.
    pub fn scale(&self) -> &Tensor<T, D> {
        &self.scale
    }
    /// `|x|` for `x` from the normal: differentiable in the scale.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        self.normal.rsample(sample_shape)?.try_abs()
    }
    /// The mean, `scale · √(2/π)`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn mean(&self) -> Result<Tensor<T, D>> {
        self.scale
            .try_mul_scalar(T::from_f64((2.0 / std::f64::consts::PI).sqrt()))
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for HalfNormal<T, D> {
    type Value = Tensor<T, D>;
    fn batch_shape(&self) -> &Shape {
        self.normal.batch_shape()
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        crate::autograd::no_grad(|| self.rsample(sample_shape))
    }
    /// The normal's `log_prob` plus `log 2`; a negative value is outside the support.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        super::non_negative("HalfNormal.log_prob", value)?;
        self.normal
            .log_prob(value)?
            .try_add_scalar(T::from_f64(std::f64::consts::LN_2))
    }
    /// `log(scale · √(π/2)) + 1/2`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        let c = 0.5 * (std::f64::consts::PI / 2.0).ln() + 0.5;
        self.scale.try_log()?.try_add_scalar(T::from_f64(c))
    }
}

/// The Weibull distribution with `scale` λ and `concentration` k (PyTorch `Weibull`): density
/// `(k/λ)(x/λ)^(k-1) e^{-(x/λ)^k}` on `x ≥ 0`, sampled as `λ · E^(1/k)` for `E ~ Exp(1)`.
#[derive(Clone)]
pub struct Weibull<T: FloatElement, D: Backend> {
    scale: Tensor<T, D>,
    concentration: Tensor<T, D>,
    batch: Shape,
}

impl<T: FloatElement, D: Backend> Weibull<T, D> {
    /// The Weibull distribution.
    ///
    /// # Errors
    /// `Broadcast`; `InvalidArgument` for a scale or concentration that is not positive.
    pub fn new(scale: &Tensor<T, D>, concentration: &Tensor<T, D>) -> Result<Self> {
        let ([scale, concentration], batch) = positive_pair(
            "Weibull",
            [scale, concentration],
            ["scale", "concentration"],
        )?;
        Ok(Weibull {
            scale,
            concentration,
            batch,
        })
    }
    /// The scale λ, broadcast to the batch shape.
    pub fn scale(&self) -> &Tensor<T, D> {
        &self.scale
    }
    /// The concentration k, broadcast to the batch shape.
    pub fn concentration(&self) -> &Tensor<T, D> {
        &self.concentration
    }
    /// `scale · E^(1/k)`: differentiable in both parameters.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        let e = standard_exponential(&self.scale, sample_shape, &self.batch)?;
        e.try_pow(&self.concentration.try_reciprocal()?)?
            .try_mul(&self.scale)
    }
    /// The mean, `λ Γ(1 + 1/k)`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn mean(&self) -> Result<Tensor<T, D>> {
        let g = self
            .concentration
            .try_reciprocal()?
            .try_add_scalar(T::ONE)?
            .try_lgamma()?
            .try_exp()?;
        self.scale.try_mul(&g)
    }
}

/// Two parameters broadcast together, each checked positive (and not NaN).
fn positive_pair<T: FloatElement, D: Backend>(
    op: &'static str,
    params: [&Tensor<T, D>; 2],
    names: [&str; 2],
) -> Result<([Tensor<T, D>; 2], Shape)> {
    let (p, batch) = super::broadcast(op, &params)?;
    for (t, what) in p.iter().zip(names) {
        check(
            op,
            t.try_gt_scalar(T::ZERO)?,
            &format!("{what} must be positive (and not NaN)"),
        )?;
    }
    let pair = <[Tensor<T, D>; 2]>::try_from(p).expect("two parameters");
    Ok((pair, batch))
}

/// Exponential(1) draws of `shape ++ batch` on `like`'s device.
fn standard_exponential<T: FloatElement, D: Backend>(
    like: &Tensor<T, D>,
    shape: &[usize],
    batch: &Shape,
) -> Result<Tensor<T, D>> {
    let one = Tensor::<T, D>::ones_on(batch.clone(), like.device_handle())?;
    let e = crate::autograd::no_grad(|| Exponential::new(&one)?.rsample(shape))?;
    debug_assert_eq!(e.dims(), extended(shape, batch));
    Ok(e)
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for Weibull<T, D> {
    type Value = Tensor<T, D>;
    reparameterized!();
    /// `log(k/λ) + (k - 1) log(x/λ) - (x/λ)^k`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        super::non_negative("Weibull.log_prob", value)?;
        let z = value.try_div(&self.scale)?;
        let k = &self.concentration;
        let a = k.try_div(&self.scale)?.try_log()?;
        let b = k.try_sub_scalar(T::ONE)?.try_mul(&z.try_log()?)?;
        a.try_add(&b)?.try_sub(&z.try_pow(k)?)
    }
    /// `γ (1 - 1/k) + log(λ/k) + 1` (γ the Euler–Mascheroni constant).
    fn entropy(&self) -> Result<Tensor<T, D>> {
        let g = 0.577_215_664_901_532_9;
        let k = &self.concentration;
        let t = k
            .try_reciprocal()?
            .try_rsub_scalar(T::ONE)?
            .try_mul_scalar(T::from_f64(g))?;
        t.try_add(&self.scale.try_div(k)?.try_log()?)?
            .try_add_scalar(T::ONE)
    }
}

/// The Pareto distribution with `scale` (the minimum) and tail index `alpha` (PyTorch
/// `Pareto`): density `α scale^α / x^(α+1)` on `x ≥ scale`, sampled as `scale · e^{E/α}`.
#[derive(Clone)]
pub struct Pareto<T: FloatElement, D: Backend> {
    scale: Tensor<T, D>,
    alpha: Tensor<T, D>,
    batch: Shape,
}

impl<T: FloatElement, D: Backend> Pareto<T, D> {
    /// The Pareto distribution.
    ///
    /// # Errors
    /// `Broadcast`; `InvalidArgument` for a scale or alpha that is not positive.
    pub fn new(scale: &Tensor<T, D>, alpha: &Tensor<T, D>) -> Result<Self> {
        let ([scale, alpha], batch) = positive_pair("Pareto", [scale, alpha], ["scale", "alpha"])?;
        Ok(Pareto {
            scale,
            alpha,
            batch,
        })
    }
    /// The scale (the minimum), broadcast to the batch shape.
    pub fn scale(&self) -> &Tensor<T, D> {
        &self.scale
    }
    /// The tail index α, broadcast to the batch shape.
    pub fn alpha(&self) -> &Tensor<T, D> {
        &self.alpha
    }
    /// `scale · exp(E/α)`: differentiable in both parameters.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        let e = standard_exponential(&self.scale, sample_shape, &self.batch)?;
        e.try_div(&self.alpha)?.try_exp()?.try_mul(&self.scale)
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for Pareto<T, D> {
    type Value = Tensor<T, D>;
    reparameterized!();
    /// `log α + α log scale - (α + 1) log x`; a value below the scale is outside the support.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        check(
            "Pareto.log_prob",
            value.try_ge(&self.scale)?,
            "the value is below the scale (or NaN), outside the support [scale, ∞)",
        )?;
        let a = &self.alpha;
        let t = a.try_log()?.try_add(&a.try_mul(&self.scale.try_log()?)?)?;
        t.try_sub(&a.try_add_scalar(T::ONE)?.try_mul(&value.try_log()?)?)
    }
    /// `log(scale/α) + 1/α + 1`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        let a = &self.alpha;
        self.scale
            .try_div(a)?
            .try_log()?
            .try_add(&a.try_reciprocal()?)?
            .try_add_scalar(T::ONE)
    }
}

impl<T: FloatElement, D: Backend> KlDivergence<HalfNormal<T, D>> for HalfNormal<T, D> {
    type Out = Tensor<T, D>;
    /// The underlying normals' divergence (PyTorch's `_kl_halfnormal_halfnormal`).
    fn kl_divergence(&self, q: &HalfNormal<T, D>) -> Result<Tensor<T, D>> {
        self.normal.kl_divergence(&q.normal)
    }
}

impl<T: FloatElement, D: Backend> KlDivergence<Pareto<T, D>> for Pareto<T, D> {
    type Out = Tensor<T, D>;
    /// PyTorch's `_kl_pareto_pareto`: `α_q log(s_p/s_q) - log(α_q/α_p) + α_q/α_p - 1`,
    /// infinite where `self`'s support starts below `q`'s.
    fn kl_divergence(&self, q: &Pareto<T, D>) -> Result<Tensor<T, D>> {
        let ratio = q.alpha.try_div(&self.alpha)?;
        let kl = q
            .alpha
            .try_mul(&self.scale.try_div(&q.scale)?.try_log()?)?
            .try_sub(&ratio.try_log()?)?
            .try_add(&ratio)?
            .try_sub_scalar(T::ONE)?;
        let inf = Tensor::scalar_on(T::from_f64(f64::INFINITY), kl.device_handle())?;
        Tensor::try_where(&self.scale.try_lt(&q.scale)?, &inf, &kl)
    }
}

impl<T: FloatElement, D: Backend> Transform<T, D> {
    /// Whether `self` and `other` are the same map (PyTorch's `Transform.__eq__`: the same
    /// kind, with parameters equal at every element; parameters whose shapes do not broadcast
    /// differ).
    ///
    /// # Errors
    /// Allocation failure.
    pub fn same_as(&self, other: &Transform<T, D>) -> Result<bool> {
        let equal = |a: &Tensor<T, D>, b: &Tensor<T, D>| -> Result<bool> {
            if broadcast_shapes("Transform", a.shape(), b.shape()).is_err() {
                return Ok(false);
            }
            a.try_eq(b)?.try_all(&[], false)?.try_item()
        };
        Ok(match (self, other) {
            (Transform::Affine { loc, scale }, Transform::Affine { loc: l, scale: s }) => {
                equal(loc, l)? && equal(scale, s)?
            }
            (Transform::Power(a), Transform::Power(b)) => equal(a, b)?,
            (Transform::Exp, Transform::Exp)
            | (Transform::Sigmoid, Transform::Sigmoid)
            | (Transform::Tanh, Transform::Tanh)
            | (Transform::Softplus, Transform::Softplus) => true,
            _ => false,
        })
    }
}

impl<B, T, D> KlDivergence<TransformedDistribution<B, T, D>> for TransformedDistribution<B, T, D>
where
    B: Distribution<T, D, Value = Tensor<T, D>> + KlDivergence<B, Out = Tensor<T, D>>,
    T: FloatElement,
    D: Backend,
{
    type Out = Tensor<T, D>;
    /// The bases' divergence, which an invertible map leaves unchanged (PyTorch's
    /// `_kl_transformed_transformed`).
    ///
    /// # Errors
    /// `InvalidArgument` unless the two transform lists are the same maps
    /// ([`Transform::same_as`]) and the event shapes agree (PyTorch's
    /// `NotImplementedError`).
    fn kl_divergence(&self, q: &TransformedDistribution<B, T, D>) -> Result<Tensor<T, D>> {
        let mut same =
            self.transforms.len() == q.transforms.len() && self.event_shape() == q.event_shape();
        for (a, b) in self.transforms.iter().zip(&q.transforms) {
            same = same && a.same_as(b)?;
        }
        if !same {
            return Err(Error::InvalidArgument {
                op: "kl_divergence",
                msg: "KL between TransformedDistributions needs the same transforms and event shapes (PyTorch's restriction)".into(),
            });
        }
        self.base.kl_divergence(&q.base)
    }
}
