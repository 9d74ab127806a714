//! Polynomials and piecewise-linear interpolation (NumPy `polyval`, `polyfit`, `polyder`,
//! `polyint`, `polyadd`, `polysub`, `polymul`, `interp`),
//! composed of device ops, so they run and differentiate on every device. Coefficients are
//! highest power first, as NumPy's.
//!
//! ```
//! use typed_tensor::prelude::*;
//! let p = tensor![1.0f64, -2.0, 3.0]; // x² - 2x + 3
//! assert_eq!(p.polyval(&tensor![0.0, 2.0]).to_vec(), vec![3.0, 3.0]);
//! let (xp, fp) = (tensor![0.0f64, 1.0, 3.0], tensor![0.0f64, 10.0, 30.0]);
//! assert_eq!(tensor![0.5f64, 2.0, 9.0].interp(&xp, &fp, None, None).to_vec(), vec![5.0, 20.0, 30.0]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::{FloatElement, FloatOf, NumElement};
use crate::error::{Error, OrPanic, Result};
use crate::tensor::Tensor;

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// The polynomial with coefficients `self` (1-d, highest power first) at every element of
    /// `x` (NumPy `polyval`), by Horner's rule in `T`; the result has `x`'s shape (zeros for
    /// no coefficients).
    ///
    /// # Errors
    /// `InvalidArgument` when `self` is not 1-d; `Device` across devices.
    pub fn try_polyval(&self, x: &Self) -> Result<Self> {
        if self.ndim() != 1 {
            return Err(Error::InvalidArgument {
                op: "polyval",
                msg: format!("the coefficients must be 1-d, got shape {}", self.shape()),
            });
        }
        crate::ops::device_ops::same_device("polyval", self, x)?;
        let mut y = Tensor::zeros_on(x.dims(), x.device_handle())?;
        for i in 0..self.numel() {
            y = y.try_mul(x)?.try_add(&self.select(0, i as i64)?)?;
        }
        Ok(y)
    }

    /// The least-squares polynomial of degree `deg` through the points `(self, y)`, its
    /// `deg + 1` coefficients highest power first (NumPy `polyfit`; the minimum-norm solution
    /// when the fit is under-determined). `y` is `(n,)` or `(n, k)` for `k` fits at once.
    ///
    /// # Errors
    /// `InvalidArgument` when `self` is not 1-d or empty; `ShapeMismatch` when `y`'s rows
    /// differ from `self`'s length; as [`Tensor::try_lstsq`] (the `linalg` feature).
    pub fn try_polyfit(&self, y: &Self, deg: usize) -> Result<Tensor<FloatOf<T>, D>> {
        if self.ndim() != 1 || self.numel() == 0 {
            return Err(Error::InvalidArgument {
                op: "polyfit",
                msg: format!("x must be 1-d and non-empty, got shape {}", self.shape()),
            });
        }
        let cols = deg.checked_add(1).ok_or_else(|| Error::InvalidArgument {
            op: "polyfit",
            msg: format!("degree {deg} is too large"),
        })?;
        let x = self.try_cast::<FloatOf<T>>()?;
        let a = x.try_vander(Some(cols), false)?;
        a.try_lstsq(&y.try_cast::<FloatOf<T>>()?)
            .map_err(|e| e.invalid_named("polyfit"))
    }

    /// The coefficients of the `m`-th derivative (NumPy `polyder`); empty once `m` reaches
    /// the number of coefficients, as NumPy 2.
    ///
    /// # Errors
    /// `InvalidArgument` when `self` is not 1-d.
    pub fn try_polyder(&self, m: usize) -> Result<Self> {
        coefficients("polyder", self)?;
        let n = self.numel();
        if m == 0 {
            return Ok(self.clone());
        }
        let kept = n.saturating_sub(m);
        // Coefficient i multiplies x^d, d = n-1-i, and becomes d!/(d-m)! times itself.
        let factors = (0..kept).map(|i| {
            let d = (n - 1 - i) as f64;
            T::from_f64((0..m).map(|t| d - t as f64).product())
        });
        let factors = crate::alloc::collect("polyder", kept, factors)?;
        let factors = Self::from_vec_on(factors, [kept], self.device_handle())?;
        self.narrow(0, 0, kept)?.try_mul(&factors)
    }

    /// The sum of two polynomials (NumPy `polyadd`), the shorter padded with leading zeros.
    ///
    /// # Errors
    /// `InvalidArgument` when either is not 1-d; `Device` across devices.
    pub fn try_polyadd(&self, other: &Self) -> Result<Self> {
        let (a, b) = aligned("polyadd", self, other)?;
        a.try_add(&b)
    }

    /// The difference of two polynomials (NumPy `polysub`).
    ///
    /// # Errors
    /// As [`Tensor::try_polyadd`].
    pub fn try_polysub(&self, other: &Self) -> Result<Self> {
        let (a, b) = aligned("polysub", self, other)?;
        a.try_sub(&b)
    }

    /// The product of two polynomials (NumPy `polymul`): the full convolution of their
    /// coefficients.
    ///
    /// # Errors
    /// As [`Tensor::try_polyadd`].
    pub fn try_polymul(&self, other: &Self) -> Result<Self> {
        coefficients("polymul", self)?;
        coefficients("polymul", other)?;
        if self.numel() == 0 || other.numel() == 0 {
            return Self::zeros_on([0], self.device_handle());
        }
        self.try_convolve(other, crate::ops::windows::ConvMode::Full)
    }

    super::plain_forms! {
        /// [`Tensor::try_polyder`], panicking with its error.
        polyder, try_polyder(m: usize) -> Self;
        /// [`Tensor::try_polyadd`], panicking with its error.
        polyadd, try_polyadd(other: &Self) -> Self;
        /// [`Tensor::try_polysub`], panicking with its error.
        polysub, try_polysub(other: &Self) -> Self;
        /// [`Tensor::try_polymul`], panicking with its error.
        polymul, try_polymul(other: &Self) -> Self;
        /// [`Tensor::try_polyval`], panicking with its error.
        polyval, try_polyval(x: &Self) -> Self;
        /// [`Tensor::try_polyfit`], panicking with its error.
        polyfit, try_polyfit(y: &Self, deg: usize) -> Tensor<FloatOf<T>, D>;
    }
}

/// `Err` unless `p` is 1-d (a coefficient vector).
fn coefficients<T: crate::dtype::Element, D: Backend>(
    op: &'static str,
    p: &Tensor<T, D>,
) -> Result<()> {
    if p.ndim() == 1 {
        return Ok(());
    }
    Err(Error::InvalidArgument {
        op,
        msg: format!("the coefficients must be 1-d, got shape {}", p.shape()),
    })
}

/// Two coefficient vectors padded with leading zeros to one length.
fn aligned<T: NumElement, D: Backend>(
    op: &'static str,
    a: &Tensor<T, D>,
    b: &Tensor<T, D>,
) -> Result<(Tensor<T, D>, Tensor<T, D>)> {
    coefficients(op, a)?;
    coefficients(op, b)?;
    crate::ops::device_ops::same_device(op, a, b)?;
    let n = a.numel().max(b.numel());
    let pad = |p: &Tensor<T, D>| -> Result<Tensor<T, D>> {
        let zeros = Tensor::zeros_on([n - p.numel()], p.device_handle())?;
        Tensor::try_concat(&[&zeros, p], 0)
    };
    Ok((pad(a)?, pad(b)?))
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    /// The quotient and remainder of polynomial division `self / divisor` (NumPy `polydiv`):
    /// long division in f64 on the host, then NumPy's trim of the remainder's leading
    /// coefficients while they are within 1e-8 of zero (and more than one is left). The
    /// quotient has `max(len(self) - len(divisor) + 1, 1)` coefficients. Not differentiable.
    ///
    /// # Errors
    /// `InvalidArgument` when either is not 1-d or is empty, or the divisor's leading
    /// coefficient is 0 (NumPy divides by it, giving inf and NaN); `Device` across devices.
    pub fn try_polydiv(&self, divisor: &Self) -> Result<(Self, Self)> {
        let op = "polydiv";
        coefficients(op, self)?;
        coefficients(op, divisor)?;
        crate::ops::device_ops::same_device(op, self, divisor)?;
        let (u, v) = (self.try_to_vec()?, divisor.try_to_vec()?);
        let (u, v): (Vec<f64>, Vec<f64>) = (
            u.iter().map(|x| x.to_f64()).collect(),
            v.iter().map(|x| x.to_f64()).collect(),
        );
        if u.is_empty() || v.first().is_none_or(|&lead| lead == 0.0) {
            return Err(Error::InvalidArgument {
                op,
                msg: "needs a non-empty dividend and a divisor whose leading coefficient is not 0"
                    .into(),
            });
        }
        let steps = (u.len() + 1).saturating_sub(v.len());
        let mut q = vec![0.0; steps.max(1)];
        let mut r = u;
        for k in 0..steps {
            let d = r[k] / v[0];
            q[k] = d;
            for (j, vj) in v.iter().enumerate() {
                r[k + j] -= d * vj;
            }
        }
        let start = r
            .iter()
            .take(r.len() - 1)
            .take_while(|x| x.abs() <= 1e-8)
            .count();
        let dev = self.device_handle();
        let to = |v: &[f64]| {
            Self::from_vec_on(v.iter().map(|&x| T::from_f64(x)).collect(), [v.len()], dev)
        };
        Ok((to(&q)?, to(&r[start..])?))
    }

    /// The coefficients of the monic polynomial with the given roots, `Π (x - rᵢ)` (NumPy
    /// `poly` of a 1-d sequence of roots), highest power first; `[1]` for no roots.
    /// Differentiable (one `polymul` per root).
    ///
    /// # Errors
    /// `InvalidArgument` when `self` is not 1-d.
    pub fn try_poly(&self) -> Result<Self> {
        coefficients("poly", self)?;
        let dev = self.device_handle();
        let mut c = Self::ones_on([1], dev)?;
        let one = Self::ones_on([1], dev)?;
        for i in 0..self.numel() {
            let factor = Self::try_concat(&[&one, &self.narrow(0, i, 1)?.try_neg()?], 0)?;
            c = c.try_polymul(&factor)?;
        }
        Ok(c)
    }

    /// The coefficients of the `m`-th antiderivative (NumPy `polyint`): each integration
    /// divides coefficient `i` by its new power and appends an integration constant, from
    /// `k` (empty: zeros; one value: that one each time; else one per integration, the
    /// first integration's first).
    ///
    /// # Errors
    /// `InvalidArgument` when `self` is not 1-d or `k` holds neither 0, 1 nor `m` values.
    pub fn try_polyint(&self, m: usize, k: &[f64]) -> Result<Self> {
        let op = "polyint";
        coefficients(op, self)?;
        if !(k.len() <= 1 || k.len() == m) {
            return Err(Error::InvalidArgument {
                op,
                msg: format!(
                    "needs 0, 1 or m = {m} integration constants, got {}",
                    k.len()
                ),
            });
        }
        let n = self.numel();
        let total = n.checked_add(m).ok_or_else(|| Error::InvalidArgument {
            op,
            msg: format!("m = {m} integrations overflow the coefficient count"),
        })?;
        let dev = self.device_handle();
        // Coefficient i multiplies x^d, d = n-1-i, and becomes d!/(d+m)! times itself; the
        // product underflows to 0 long before m factors when m is large.
        let factors = (0..n).map(|i| {
            let d = (n - 1 - i) as f64;
            let mut f = 1.0f64;
            for t in 1..=m {
                f /= d + t as f64;
                if f == 0.0 {
                    break;
                }
            }
            T::from_f64(f)
        });
        let factors = Self::from_vec_on(crate::alloc::collect(op, n, factors)?, [n], dev)?;
        // Integration j's constant ends as the coefficient of x^(m-1-j), divided by (m-1-j)!.
        let constants = (0..m).map(|j| {
            let c = k
                .get(if k.len() == 1 { 0 } else { j })
                .copied()
                .unwrap_or(0.0);
            let mut f = c;
            for t in 1..=(m - 1 - j) {
                f /= t as f64;
                if f == 0.0 {
                    break;
                }
            }
            T::from_f64(f)
        });
        let constants = Self::from_vec_on(crate::alloc::collect(op, m, constants)?, [m], dev)?;
        debug_assert_eq!(n + m, total);
        Self::try_concat(&[&self.try_mul(&factors)?, &constants], 0)
    }

    /// [`Tensor::try_polyint`], panicking with its error.
    ///
    /// # Panics
    /// When `try_polyint` returns an `Err`.
    #[track_caller]
    pub fn polyint(&self, m: usize, k: &[f64]) -> Self {
        self.try_polyint(m, k).or_panic()
    }

    super::plain_forms! {
        /// [`Tensor::try_polydiv`], panicking with its error.
        polydiv, try_polydiv(divisor: &Self) -> (Self, Self);
        /// [`Tensor::try_poly`], panicking with its error.
        poly, try_poly() -> Self;
    }

    /// The piecewise-linear interpolant through `(xp, fp)` at every element of `self` (NumPy
    /// `interp`): `xp` is 1-d and increasing, `fp` the same length; points left of `xp[0]`
    /// give `left` (default `fp[0]`), right of the last give `right` (default the last `fp`);
    /// NaN gives NaN. Differentiable in `self` and `fp`.
    ///
    /// # Errors
    /// `InvalidArgument` when `xp` is not 1-d and non-empty or `fp` is not its length;
    /// `Device` across devices. An unsorted `xp` gives unspecified values, as in NumPy.
    pub fn try_interp(
        &self,
        xp: &Self,
        fp: &Self,
        left: Option<T>,
        right: Option<T>,
    ) -> Result<Self> {
        const OP: &str = "interp";
        let n = xp.numel();
        if xp.ndim() != 1 || n == 0 || fp.dims() != [n] {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!(
                    "needs a non-empty 1-d xp and an fp of its length, got shapes {} and {}",
                    xp.shape(),
                    fp.shape()
                ),
            });
        }
        crate::ops::device_ops::same_device(OP, self, xp)?;
        crate::ops::device_ops::same_device(OP, self, fp)?;
        let dev = self.device_handle();
        let scalar = |v: T| Tensor::full_on([], v, dev);
        let first = fp.select(0, 0)?;
        let last = fp.select(0, n as i64 - 1)?;
        let left = match left {
            Some(v) => scalar(v)?,
            None => first.clone(),
        };
        let right = match right {
            Some(v) => scalar(v)?,
            None => last.clone(),
        };
        let y = if n == 1 {
            first.try_broadcast_like(self)?
        } else {
            // The segment [xp[j - 1], xp[j]] of each point, j in 1..n.
            let j = xp
                .try_searchsorted(self, true)?
                .try_clip(1, n as i64 - 1)?
                .try_flatten()?;
            let at = |t: &Self, k: &Tensor<i64, D>| -> Result<Self> {
                t.try_index_select(0, k)?.try_reshape(self.dims())
            };
            let j0 = j.try_sub_scalar(1)?;
            let (x0, x1) = (at(xp, &j0)?, at(xp, &j)?);
            let (f0, f1) = (at(fp, &j0)?, at(fp, &j)?);
            let slope = f1.try_sub(&f0)?.try_div(&x1.try_sub(&x0)?)?;
            f0.try_add(&slope.try_mul(&self.try_sub(&x0)?)?)?
        };
        // Outside the table: left / right; the last point exactly (the slope form may round).
        let x_first = xp.select(0, 0)?;
        let x_last = xp.select(0, n as i64 - 1)?;
        let y = Tensor::try_where(&self.try_eq(&x_last.try_broadcast_like(self)?)?, &last, &y)?;
        let y = Tensor::try_where(&self.try_lt(&x_first.try_broadcast_like(self)?)?, &left, &y)?;
        Tensor::try_where(&self.try_gt(&x_last.try_broadcast_like(self)?)?, &right, &y)
    }

    /// `self` broadcast to `like`'s shape (a view).
    fn try_broadcast_like(&self, like: &Self) -> Result<Self> {
        self.broadcast_to(like.shape().clone())
    }

    /// [`Tensor::try_interp`], panicking with its error.
    ///
    /// # Panics
    /// When `try_interp` returns an `Err`.
    #[track_caller]
    pub fn interp(&self, xp: &Self, fp: &Self, left: Option<T>, right: Option<T>) -> Self {
        self.try_interp(xp, fp, left, right).or_panic()
    }
}
