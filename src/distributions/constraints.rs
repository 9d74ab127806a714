//! PyTorch's constraint registry (`torch.distributions.constraint_registry`): [`biject_to`]
//! and [`transform_to`] give the map from unconstrained reals onto a constraint's set, as
//! PyTorch's optimisers of constrained parameters use them.

use super::{EventTransform, Transform};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// A set of values with a registered map from the reals (PyTorch's `constraints`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Constraint {
    /// Every real (`constraints.real`).
    Real,
    /// `(0, ∞)` (`constraints.positive`).
    Positive,
    /// `(lower, ∞)` (`constraints.greater_than`).
    GreaterThan(f64),
    /// `(-∞, upper)` (`constraints.less_than`).
    LessThan(f64),
    /// `(0, 1)` (`constraints.unit_interval`).
    UnitInterval,
    /// `(lower, upper)` (`constraints.interval`).
    Interval(f64, f64),
    /// Vectors of non-negative entries summing to 1 (`constraints.simplex`).
    Simplex,
    /// Lower-triangular matrices with a positive diagonal (`constraints.lower_cholesky`).
    LowerCholesky,
    /// Symmetric positive-definite matrices (`constraints.positive_definite`).
    PositiveDefinite,
    /// Cholesky factors of correlation matrices (`constraints.corr_cholesky`).
    CorrCholesky,
}

/// A map from the reals onto a [`Constraint`]'s set: element-wise transforms applied in
/// order (none: the identity), or one transform over whole events.
#[derive(Clone, Debug)]
pub enum Bijection<T: FloatElement, D: Backend> {
    /// `f_k(... f_1(x))`, element-wise.
    Elementwise(Vec<Transform<T, D>>),
    /// A transform over events.
    Event(EventTransform),
}

impl<T: FloatElement, D: Backend> Bijection<T, D> {
    /// The constrained value of `x`.
    ///
    /// # Errors
    /// As [`Transform::forward`] or [`EventTransform::forward`].
    pub fn forward(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        match self {
            Bijection::Elementwise(ts) => ts.iter().try_fold(x.clone(), |v, t| t.forward(&v)),
            Bijection::Event(t) => t.forward(x),
        }
    }

    /// The unconstrained value of `y`.
    ///
    /// # Errors
    /// As [`Transform::inverse`] or [`EventTransform::inverse`].
    pub fn inverse(&self, y: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        match self {
            Bijection::Elementwise(ts) => ts.iter().rev().try_fold(y.clone(), |v, t| t.inverse(&v)),
            Bijection::Event(t) => t.inverse(y),
        }
    }

    /// `log |det J|` at `x` (with `y = forward(x)`): element-wise, the sum over the steps
    /// at their intermediate values (zeros of `x`'s shape for the identity); per event
    /// otherwise.
    ///
    /// # Errors
    /// As [`Transform::log_abs_det_jacobian`] or [`EventTransform::log_abs_det_jacobian`].
    pub fn log_abs_det_jacobian(&self, x: &Tensor<T, D>, y: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        match self {
            Bijection::Elementwise(ts) => {
                let mut total = x.try_zeros_like()?;
                let mut v = x.clone();
                for t in ts {
                    let next = t.forward(&v)?;
                    total = total.try_add(&t.log_abs_det_jacobian(&v, &next)?)?;
                    v = next;
                }
                Ok(total)
            }
            Bijection::Event(t) => t.log_abs_det_jacobian(x, y),
        }
    }
}

/// The bijection PyTorch's `biject_to` registers for `constraint`: the identity for the
/// reals, `exp` for positive values (then a shift, or a reflection, for `GreaterThan` and
/// `LessThan`), `sigmoid` for the unit interval (then an affine map for an `Interval`),
/// stick-breaking for the simplex, and the lower-Cholesky, positive-definite and
/// correlation-Cholesky transforms. The affine parameters are scalars on `device`.
///
/// ```
/// use typed_tensor::distributions::{Constraint, biject_to};
/// use typed_tensor::prelude::*;
/// let b = biject_to::<f64, _>(Constraint::Interval(-1.0, 3.0), &Cpu)?;
/// let y = b.forward(&tensor![0.0f64, 2.0])?; // sigmoid, then -1 + 4·s
/// assert_eq!(y.to_vec()[0], 1.0);
/// assert!((b.inverse(&y)?.to_vec()[1] - 2.0).abs() < 1e-12);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `InvalidArgument` for bounds that are NaN, or an interval whose lower bound is not below
/// its upper one.
pub fn biject_to<T: FloatElement, D: Backend>(
    constraint: Constraint,
    device: &D,
) -> Result<Bijection<T, D>> {
    let scalar = |v: f64| Tensor::<T, D>::scalar_on(T::from_f64(v), device);
    let affine = |loc: f64, scale: f64| -> Result<Transform<T, D>> {
        Ok(Transform::Affine {
            loc: scalar(loc)?,
            scale: scalar(scale)?,
        })
    };
    let bad = |msg: String| {
        Err(Error::InvalidArgument {
            op: "biject_to",
            msg,
        })
    };
    Ok(match constraint {
        Constraint::Real => Bijection::Elementwise(Vec::new()),
        Constraint::Positive => Bijection::Elementwise(vec![Transform::Exp]),
        Constraint::GreaterThan(lo) if lo.is_nan() => return bad("the lower bound is NaN".into()),
        Constraint::GreaterThan(lo) => {
            Bijection::Elementwise(vec![Transform::Exp, affine(lo, 1.0)?])
        }
        Constraint::LessThan(hi) if hi.is_nan() => return bad("the upper bound is NaN".into()),
        Constraint::LessThan(hi) => Bijection::Elementwise(vec![Transform::Exp, affine(hi, -1.0)?]),
        Constraint::UnitInterval | Constraint::Interval(0.0, 1.0) => {
            Bijection::Elementwise(vec![Transform::Sigmoid])
        }
        Constraint::Interval(lo, hi) if lo.partial_cmp(&hi) != Some(std::cmp::Ordering::Less) => {
            return bad(format!("an interval needs lower < upper, got ({lo}, {hi})"));
        }
        Constraint::Interval(lo, hi) => {
            Bijection::Elementwise(vec![Transform::Sigmoid, affine(lo, hi - lo)?])
        }
        Constraint::Simplex => Bijection::Event(EventTransform::StickBreaking),
        Constraint::LowerCholesky => Bijection::Event(EventTransform::LowerCholesky),
        Constraint::PositiveDefinite => Bijection::Event(EventTransform::PositiveDefinite),
        Constraint::CorrCholesky => Bijection::Event(EventTransform::CorrCholesky),
    })
}

/// The map PyTorch's `transform_to` registers for `constraint`: as [`biject_to`], except
/// the simplex, reached by the softmax (not a bijection, but the usual parametrisation).
///
/// # Errors
/// As [`biject_to`].
pub fn transform_to<T: FloatElement, D: Backend>(
    constraint: Constraint,
    device: &D,
) -> Result<Bijection<T, D>> {
    match constraint {
        Constraint::Simplex => Ok(Bijection::Event(EventTransform::Softmax)),
        c => biject_to(c, device),
    }
}
