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
    /// `[0, ∞)` (`constraints.nonnegative`).
    NonNegative,
    /// `[lower, ∞)` (`constraints.greater_than_eq`).
    GreaterThanEq(f64),
    /// `[lower, upper)` (`constraints.half_open_interval`).
    HalfOpenInterval(f64, f64),
    /// Vectors of reals without NaN (`constraints.real_vector`, `independent(real, 1)`).
    RealVector,
    /// 0 and 1 (`constraints.boolean`); no bijection.
    Boolean,
    /// 0, 1, 2, ... (`constraints.nonnegative_integer`); no bijection.
    NonNegativeInteger,
    /// 1, 2, 3, ... (`constraints.positive_integer`); no bijection.
    PositiveInteger,
    /// The integers of `[lower, upper]` (`constraints.integer_interval`); no bijection.
    IntegerInterval(i64, i64),
    /// Vectors of zeros with a single one (`constraints.one_hot`); no bijection.
    OneHot,
    /// Square matrices (`constraints.square`); no bijection.
    Square,
    /// Symmetric matrices (`constraints.symmetric`); no bijection.
    Symmetric,
    /// Lower-triangular matrices (`constraints.lower_triangular`); no bijection.
    LowerTriangular,
    /// Symmetric positive-semidefinite matrices (`constraints.positive_semidefinite`): no
    /// bijection, [`transform_to`] reaches them as the positive-definite ones.
    PositiveSemidefinite,
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
/// `InvalidArgument` for bounds that are NaN, an interval whose lower bound is not below its
/// upper one, or a constraint without a bijection (the discrete and matrix-structure sets,
/// as PyTorch's `NotImplementedError`).
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
        Constraint::NonNegative => return biject_to(Constraint::GreaterThanEq(0.0), device),
        Constraint::GreaterThanEq(lo) if lo.is_nan() => {
            return bad("the lower bound is NaN".into());
        }
        Constraint::GreaterThanEq(lo) => {
            Bijection::Elementwise(vec![Transform::Exp, affine(lo, 1.0)?])
        }
        Constraint::HalfOpenInterval(lo, hi) => {
            return biject_to(Constraint::Interval(lo, hi), device);
        }
        Constraint::RealVector => Bijection::Elementwise(Vec::new()),
        Constraint::Boolean
        | Constraint::NonNegativeInteger
        | Constraint::PositiveInteger
        | Constraint::IntegerInterval(..)
        | Constraint::OneHot
        | Constraint::Square
        | Constraint::Symmetric
        | Constraint::LowerTriangular
        | Constraint::PositiveSemidefinite => {
            return bad(format!(
                "no bijection from the reals onto {constraint:?} (as PyTorch's registry: discrete or lower-dimensional sets have none)"
            ));
        }
        Constraint::Simplex => Bijection::Event(EventTransform::StickBreaking),
        Constraint::LowerCholesky => Bijection::Event(EventTransform::LowerCholesky),
        Constraint::PositiveDefinite => Bijection::Event(EventTransform::PositiveDefinite),
        Constraint::CorrCholesky => Bijection::Event(EventTransform::CorrCholesky),
    })
}

/// The map PyTorch's `transform_to` registers for `constraint`: as [`biject_to`], except
/// the simplex, reached by the softmax (not a bijection, but the usual parametrisation), and
/// the positive-semidefinite matrices, reached as the positive-definite ones.
///
/// # Errors
/// As [`biject_to`].
pub fn transform_to<T: FloatElement, D: Backend>(
    constraint: Constraint,
    device: &D,
) -> Result<Bijection<T, D>> {
    match constraint {
        Constraint::Simplex => Ok(Bijection::Event(EventTransform::Softmax)),
        Constraint::PositiveSemidefinite => Ok(Bijection::Event(EventTransform::PositiveDefinite)),
        c => biject_to(c, device),
    }
}

impl Constraint {
    /// Whether each value (each event: a vector for the simplex, a matrix for the matrix sets)
    /// lies in the set, PyTorch's `constraint.check(value)`: the bounds as PyTorch compares
    /// them (`Interval` closed, `HalfOpenInterval` without its upper bound), integers as
    /// `x mod 1 == 0`, the simplex's sum within `1e-6` of 1, symmetry by `isclose` with
    /// `rtol = 1e-5`, `atol = 1e-6`, positive-definiteness by Cholesky and
    /// semidefiniteness by `eigvalsh` (both only when every matrix is symmetric), a
    /// correlation factor's rows of norm 1 within `10·n·ε`. The shape is `value`'s less the
    /// event dimensions.
    ///
    /// ```
    /// use typed_tensor::distributions::Constraint;
    /// use typed_tensor::prelude::*;
    /// let x = tensor![0.0f64, 1.0, 1.5];
    /// assert_eq!(Constraint::Interval(0.0, 1.0).check(&x)?.to_vec(), [true, true, false]);
    /// let p = tensor![[0.5f64, 0.5], [0.5, 0.6]];
    /// assert_eq!(Constraint::Simplex.check(&p)?.to_vec(), [true, false]);
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` for a matrix constraint on fewer than 2 dimensions, a vector one on
    /// a 0-d tensor; allocation failure.
    pub fn check<T: FloatElement, D: Backend>(&self, x: &Tensor<T, D>) -> Result<Tensor<bool, D>> {
        let c = |v: f64| T::from_f64(v);
        let and = |a: Tensor<bool, D>, b: Tensor<bool, D>| a.try_logical_and(&b);
        let integral = || x.try_fmod_scalar(c(1.0))?.try_eq_scalar(c(0.0));
        let last = |b: Tensor<bool, D>| b.try_all(&[-1], false);
        let need = |n: usize| {
            if x.ndim() < n {
                return Err(Error::InvalidArgument {
                    op: "Constraint::check",
                    msg: format!(
                        "{self:?} needs at least {n} dimensions, got shape {}",
                        x.shape()
                    ),
                });
            }
            Ok(())
        };
        let matrix_all = |b: Tensor<bool, D>| b.try_all(&[-2, -1], false);
        match *self {
            Constraint::Real => x.try_eq(x),
            Constraint::Positive => x.try_gt_scalar(c(0.0)),
            Constraint::NonNegative => x.try_ge_scalar(c(0.0)),
            Constraint::GreaterThan(lo) => x.try_gt_scalar(c(lo)),
            Constraint::GreaterThanEq(lo) => x.try_ge_scalar(c(lo)),
            Constraint::LessThan(hi) => x.try_lt_scalar(c(hi)),
            Constraint::UnitInterval => Constraint::Interval(0.0, 1.0).check(x),
            Constraint::Interval(lo, hi) => and(x.try_ge_scalar(c(lo))?, x.try_le_scalar(c(hi))?),
            Constraint::HalfOpenInterval(lo, hi) => {
                and(x.try_ge_scalar(c(lo))?, x.try_lt_scalar(c(hi))?)
            }
            Constraint::Boolean => x
                .try_eq_scalar(c(0.0))?
                .try_logical_or(&x.try_eq_scalar(c(1.0))?),
            Constraint::NonNegativeInteger => and(integral()?, x.try_ge_scalar(c(0.0))?),
            Constraint::PositiveInteger => and(integral()?, x.try_ge_scalar(c(1.0))?),
            Constraint::IntegerInterval(lo, hi) => and(
                integral()?,
                and(
                    x.try_ge_scalar(c(lo as f64))?,
                    x.try_le_scalar(c(hi as f64))?,
                )?,
            ),
            Constraint::RealVector => {
                need(1)?;
                last(x.try_eq(x)?)
            }
            Constraint::Simplex => {
                need(1)?;
                let sum = x.try_sum(&[-1], false)?.try_sub_scalar(c(1.0))?.try_abs()?;
                and(last(x.try_ge_scalar(c(0.0))?)?, sum.try_lt_scalar(c(1e-6))?)
            }
            Constraint::OneHot => {
                need(1)?;
                let binary = last(Constraint::Boolean.check(x)?)?;
                and(binary, x.try_sum(&[-1], false)?.try_eq_scalar(c(1.0))?)
            }
            Constraint::Square => {
                need(2)?;
                let d = x.dims();
                let batch = &d[..d.len() - 2];
                let square = d[d.len() - 2] == d[d.len() - 1];
                Tensor::<bool, D>::full_on(batch, square, x.device_handle())
            }
            Constraint::Symmetric => {
                need(2)?;
                let square = Constraint::Square.check(x)?;
                if !square.try_all(&[], false)?.try_item()? {
                    return Ok(square);
                }
                matrix_all(x.try_is_close(&x.transpose(-2, -1)?, 1e-5, 1e-6)?)
            }
            Constraint::LowerTriangular => {
                need(2)?;
                matrix_all(x.try_tril(0)?.try_eq(x)?)
            }
            Constraint::LowerCholesky => need(2).and_then(|()| {
                and(
                    Constraint::LowerTriangular.check(x)?,
                    last(x.diagonal(0)?.try_gt_scalar(c(0.0))?)?,
                )
            }),
            Constraint::CorrCholesky => {
                need(2)?;
                let n = x.dims().last().copied().unwrap_or(0) as f64;
                let tol = c(T::DTYPE.eps() * n * 10.0);
                let norm = x.detach().try_vector_norm(2.0, &[-1], false)?;
                let unit = last(norm.try_sub_scalar(c(1.0))?.try_abs()?.try_le_scalar(tol)?)?;
                and(Constraint::LowerCholesky.check(x)?, unit)
            }
            Constraint::PositiveDefinite | Constraint::PositiveSemidefinite => {
                need(2)?;
                let symmetric = Constraint::Symmetric.check(x)?;
                if !symmetric.try_all(&[], false)?.try_item()? {
                    return Ok(symmetric);
                }
                if *self == Constraint::PositiveDefinite {
                    x.try_cholesky_ex(false)?.1.try_eq_scalar(0)
                } else {
                    last(x.try_eigvalsh()?.try_ge_scalar(c(0.0))?)
                }
            }
        }
    }
}
