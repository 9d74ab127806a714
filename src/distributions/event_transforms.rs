//! PyTorch's transforms that act on whole events, change the event shape or are not
//! invertible (`torch.distributions.transforms`), used on their own: `StickBreakingTransform`,
//! `SoftmaxTransform`, `LowerCholeskyTransform`, `PositiveDefiniteTransform`,
//! `CorrCholeskyTransform`, `AbsTransform`, `ReshapeTransform`. Each maps unconstrained
//! values onto a constrained set (the simplex, lower-triangular factors with a positive
//! diagonal, positive-definite matrices, Cholesky factors of correlation matrices), as
//! PyTorch's `biject_to`/`transform_to` use them.

use super::logistic_normal::{offsets, stick_breaking, stick_breaking_inverse};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// A transform over events (see the module docs), PyTorch's formulas.
///
/// ```
/// use typed_tensor::distributions::EventTransform;
/// use typed_tensor::prelude::*;
/// let x = tensor![0.5f64, -1.0, 2.0];
/// let y = EventTransform::StickBreaking.forward(&x)?; // 4 probabilities summing to 1
/// assert!((y.to_vec().iter().sum::<f64>() - 1.0).abs() < 1e-12);
/// let back = EventTransform::StickBreaking.inverse(&y)?;
/// assert!(back.to_vec().iter().zip(x.to_vec()).all(|(a, b)| (a - b).abs() < 1e-12));
/// let l = EventTransform::CorrCholesky.forward(&tensor![0.3f64, -0.2, 0.9])?; // 3 × 3
/// let c = l.matmul(&l.t()); // a correlation matrix: ones on the diagonal
/// assert!((c.to_vec()[4] - 1.0).abs() < 1e-12);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum EventTransform {
    /// `(..., K-1)` reals → `(..., K)` on the simplex (`StickBreakingTransform`), bijective.
    StickBreaking,
    /// `(..., K)` → the softmax over the last axis (`SoftmaxTransform`); the inverse is
    /// `log`, one of the many preimages; no Jacobian (PyTorch has none).
    Softmax,
    /// `(..., n, n)` → its strict lower triangle plus `diag(exp(diagonal))`
    /// (`LowerCholeskyTransform`); no Jacobian.
    LowerCholesky,
    /// `(..., n, n)` → `L·Lᵀ` for `L` the [`EventTransform::LowerCholesky`] image
    /// (`PositiveDefiniteTransform`); the inverse through the Cholesky factor; no Jacobian.
    PositiveDefinite,
    /// `(..., n(n-1)/2)` reals → the `(..., n, n)` Cholesky factor of a correlation matrix
    /// (`CorrCholeskyTransform`: `tanh`, then stick-breaking on the squares row by row),
    /// bijective; its Jacobian is that of the flattened strict lower triangle.
    CorrCholesky,
    /// `|x|` element-wise (`AbsTransform`); the inverse is the identity; no Jacobian.
    Abs,
    /// The trailing `from` axes reshaped to `to`, the same number of elements
    /// (`ReshapeTransform(in_shape, out_shape)`); log-Jacobian 0.
    Reshape {
        /// The event shape taken.
        from: Vec<usize>,
        /// The event shape given.
        to: Vec<usize>,
    },
}

impl EventTransform {
    /// The event dimensions the transform takes (PyTorch `domain.event_dim`).
    pub fn domain_event_dim(&self) -> usize {
        match self {
            EventTransform::Abs => 0,
            EventTransform::StickBreaking
            | EventTransform::Softmax
            | EventTransform::CorrCholesky => 1,
            EventTransform::LowerCholesky | EventTransform::PositiveDefinite => 2,
            EventTransform::Reshape { from, .. } => from.len(),
        }
    }

    /// The event dimensions the transform gives (PyTorch `codomain.event_dim`).
    pub fn codomain_event_dim(&self) -> usize {
        match self {
            EventTransform::CorrCholesky => 2,
            EventTransform::Reshape { to, .. } => to.len(),
            other => other.domain_event_dim(),
        }
    }

    fn name(&self) -> &'static str {
        match self {
            EventTransform::StickBreaking => "StickBreakingTransform",
            EventTransform::Softmax => "SoftmaxTransform",
            EventTransform::LowerCholesky => "LowerCholeskyTransform",
            EventTransform::PositiveDefinite => "PositiveDefiniteTransform",
            EventTransform::CorrCholesky => "CorrCholeskyTransform",
            EventTransform::Abs => "AbsTransform",
            EventTransform::Reshape { .. } => "ReshapeTransform",
        }
    }

    /// `Err` unless `t` has the event axes this side of the transform needs.
    fn check<T: FloatElement, D: Backend>(&self, t: &Tensor<T, D>, forward: bool) -> Result<()> {
        let (dims, event) = match forward {
            true => (self.domain_event_dim(), self.reshape_event(true)),
            false => (self.codomain_event_dim(), self.reshape_event(false)),
        };
        let nd = t.ndim();
        let square = matches!(
            self,
            EventTransform::LowerCholesky | EventTransform::PositiveDefinite
        ) || (!forward && *self == EventTransform::CorrCholesky);
        let bad = nd < dims
            || (square && t.dims()[nd - 1] != t.dims()[nd - 2])
            || event.is_some_and(|e| t.dims()[nd - dims..] != *e)
            || (dims == 1
                && !forward
                && *self == EventTransform::StickBreaking
                && t.dims()[nd - 1] == 0);
        if bad {
            return Err(Error::InvalidArgument {
                op: self.name(),
                msg: format!(
                    "needs {} of {} event dimension(s){}, got shape {}",
                    if forward { "an input" } else { "an output" },
                    dims,
                    match (square, event) {
                        (true, _) => " (square matrices)".to_string(),
                        (_, Some(e)) => format!(" of shape {e:?}"),
                        _ => String::new(),
                    },
                    t.shape()
                ),
            });
        }
        Ok(())
    }

    fn reshape_event(&self, forward: bool) -> Option<&Vec<usize>> {
        match self {
            EventTransform::Reshape { from, to } => Some(if forward { from } else { to }),
            _ => None,
        }
    }

    /// `y = f(x)`.
    ///
    /// # Errors
    /// `InvalidArgument` naming the transform when `x` lacks its event axes (non-square
    /// matrices; a `Reshape` event of another shape or element count; a `CorrCholesky`
    /// length that is not `n(n-1)/2`).
    pub fn forward<T: FloatElement, D: Backend>(&self, x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        self.check(x, true)?;
        match self {
            EventTransform::StickBreaking => stick_breaking(x),
            EventTransform::Softmax => {
                let p = x.try_sub(&x.try_amax(&[-1], true)?)?.try_exp()?;
                p.try_div(&p.try_sum(&[-1], true)?)
            }
            EventTransform::LowerCholesky => x
                .try_tril(-1)?
                .try_add(&x.diagonal_axes(0, -2, -1)?.try_exp()?.try_diag_embed()?),
            EventTransform::PositiveDefinite => {
                let l = EventTransform::LowerCholesky.forward(x)?;
                l.try_matmul(&l.transpose(-1, -2)?)
            }
            EventTransform::CorrCholesky => corr_cholesky(self.name(), x),
            EventTransform::Abs => x.try_abs(),
            EventTransform::Reshape { to, .. } => {
                reshape_event(self.name(), x, self.domain_event_dim(), to)
            }
        }
    }

    /// `x = f⁻¹(y)` (for `Softmax` and `Abs`, PyTorch's one preimage: `log y` and `y`).
    ///
    /// # Errors
    /// As [`EventTransform::forward`], for `y`; `PositiveDefinite`: as
    /// [`Tensor::try_cholesky`].
    pub fn inverse<T: FloatElement, D: Backend>(&self, y: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        self.check(y, false)?;
        match self {
            EventTransform::StickBreaking => stick_breaking_inverse(y),
            EventTransform::Softmax => y.try_log(),
            EventTransform::LowerCholesky => y
                .try_tril(-1)?
                .try_add(&y.diagonal_axes(0, -2, -1)?.try_log()?.try_diag_embed()?),
            EventTransform::PositiveDefinite => {
                EventTransform::LowerCholesky.inverse(&y.try_cholesky(false)?)
            }
            EventTransform::CorrCholesky => {
                // Row by row, the inverse stick-breaking on the squares, then atanh.
                let sq = y.try_mul(y)?.try_cumsum(-1)?.try_rsub_scalar(T::ONE)?;
                let n = y.dims()[y.ndim() - 1];
                let shifted = sq.narrow(-1, 0, n.saturating_sub(1))?;
                let mut pads = vec![(0, 0); y.ndim()];
                pads[y.ndim() - 1] = (1, 0);
                let shifted = shifted.try_pad(&pads, T::ONE)?;
                let t = strict_lower(y)?.try_div(&strict_lower(&shifted)?.try_sqrt()?)?;
                t.try_atanh()
            }
            EventTransform::Abs => Ok(y.clone()),
            EventTransform::Reshape { from, .. } => {
                reshape_event(self.name(), y, self.codomain_event_dim(), from)
            }
        }
    }

    /// `log |det J|` of the map at `x` (with `y = f(x)`), one value per event: shape `x`'s
    /// batch (PyTorch's formulas).
    ///
    /// # Errors
    /// `InvalidArgument` for `Softmax`, `LowerCholesky`, `PositiveDefinite` and `Abs`, which
    /// have none in PyTorch; as [`EventTransform::forward`].
    pub fn log_abs_det_jacobian<T: FloatElement, D: Backend>(
        &self,
        x: &Tensor<T, D>,
        y: &Tensor<T, D>,
    ) -> Result<Tensor<T, D>> {
        self.check(x, true)?;
        self.check(y, false)?;
        let c = |v: f64| T::from_f64(v);
        match self {
            EventTransform::StickBreaking => {
                let k = x.dims()[x.ndim() - 1];
                let x = x.try_sub(&offsets(x, k)?.try_log()?)?;
                let y = y.narrow(-1, 0, k)?.try_log()?;
                x.try_neg()?.try_add(&x.try_logsigmoid()?)?.try_add(&y)?.try_sum(&[-1], false)
            }
            EventTransform::CorrCholesky => {
                let n = y.dims()[y.ndim() - 1];
                let rest = y.try_mul(y)?.try_cumsum(-1)?.try_rsub_scalar(T::ONE)?;
                // The entries below the first subdiagonal: rest[i, j] for j <= i - 2.
                let below = tril_vec(&rest, n, 2)?.try_log()?.try_sum(&[-1], false)?.try_mul_scalar(c(0.5))?;
                let tanh = x
                    .try_add(&x.try_mul_scalar(c(-2.0))?.try_softplus()?)?
                    .try_sub_scalar(c(std::f64::consts::LN_2))?
                    .try_sum(&[-1], false)?
                    .try_mul_scalar(c(-2.0))?;
                below.try_add(&tanh)
            }
            EventTransform::Reshape { from, .. } => {
                let batch = &x.dims()[..x.ndim() - from.len()];
                Tensor::zeros_on(batch, x.device_handle())
            }
            _ => Err(Error::InvalidArgument {
                op: self.name(),
                msg: "has no log_abs_det_jacobian (it is not a bijection onto its image), as in PyTorch".into(),
            }),
        }
    }
}

/// The trailing `dims` axes of `t` reshaped to `to`.
fn reshape_event<T: FloatElement, D: Backend>(
    op: &'static str,
    t: &Tensor<T, D>,
    dims: usize,
    to: &[usize],
) -> Result<Tensor<T, D>> {
    let mut shape = t.dims()[..t.ndim() - dims].to_vec();
    shape.extend(to);
    t.try_reshape(shape).map_err(|e| e.renamed(op))
}

/// The entries `(i, j)` with `j <= i - below` of the last two axes, row by row: `(..., m)`.
fn tril_vec<T: FloatElement, D: Backend>(
    t: &Tensor<T, D>,
    n: usize,
    below: usize,
) -> Result<Tensor<T, D>> {
    let at: Vec<i64> = (0..n)
        .flat_map(|i| (0..(i + 1).saturating_sub(below)).map(move |j| (i * n + j) as i64))
        .collect();
    let len = at.len();
    let idx = Tensor::<i64, D>::from_vec_on(at, [len], t.device_handle())?;
    let mut flat = t.dims()[..t.ndim() - 2].to_vec();
    flat.push(n * n);
    t.try_reshape(flat)?.try_index_select(-1, &idx)
}

/// The strict lower triangle of `(..., n, n)`, row by row.
fn strict_lower<T: FloatElement, D: Backend>(t: &Tensor<T, D>) -> Result<Tensor<T, D>> {
    tril_vec(t, t.dims()[t.ndim() - 1], 1)
}

/// PyTorch's `CorrCholeskyTransform._call`: `r = tanh(x)` (clamped inside ±(1 - eps)) in the
/// strict lower triangle, `y = (r + I)·[1, cumprod(√(1 - r²))]` shifted along each row.
fn corr_cholesky<T: FloatElement, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
) -> Result<Tensor<T, D>> {
    let len = x.dims()[x.ndim() - 1];
    // n(n-1)/2 = len: n = (1 + √(1 + 8·len)) / 2, exactly.
    let n = ((1.0 + (1.0 + 8.0 * len as f64).sqrt()) / 2.0).round() as usize;
    if n * (n - 1) / 2 != len {
        return Err(Error::InvalidArgument {
            op,
            msg: format!("needs n(n-1)/2 values in the last axis, got {len}"),
        });
    }
    let eps = T::DTYPE.eps();
    let r = x
        .try_tanh()?
        .try_clip(T::from_f64(-1.0 + eps), T::from_f64(1.0 - eps))?;
    // Scatter the vector into the strict lower triangle of an n × n matrix.
    let at: Vec<i64> = (0..n)
        .flat_map(|i| (0..i).map(move |j| (i * n + j) as i64))
        .collect();
    let idx = Tensor::<i64, D>::from_vec_on(at, [len], x.device_handle())?;
    let mut flat = x.dims()[..x.ndim() - 1].to_vec();
    flat.push(n * n);
    let r = Tensor::<T, D>::zeros_on(flat, x.device_handle())?.try_index_copy(-1, &idx, &r)?;
    let mut square = x.dims()[..x.ndim() - 1].to_vec();
    square.extend([n, n]);
    let r = r.try_reshape(square)?;
    let rest = r
        .try_mul(&r)?
        .try_rsub_scalar(T::ONE)?
        .try_sqrt()?
        .try_cumprod(-1)?;
    let mut pads = vec![(0, 0); r.ndim()];
    pads[r.ndim() - 1] = (1, 0);
    let shifted = rest.narrow(-1, 0, n - 1)?.try_pad(&pads, T::ONE)?;
    let eye = Tensor::<T, D>::eye_on(n, x.device_handle())?;
    r.try_add(&eye)?.try_mul(&shifted)
}
