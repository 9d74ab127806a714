//! Complex division, `exp`/`log`/`sqrt`, sums and means, matrix products, `solve` and
//! `inverse`, each composed of real tensor ops on the two parts, so every device and dtype
//! runs them and gradients flow to both parts.

use super::ComplexTensor;
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::tensor::Tensor;

impl<T: FloatElement, D: Backend> ComplexTensor<T, D> {
    /// `-z`.
    ///
    /// # Errors
    /// `OutOfMemory`.
    pub fn try_neg(&self) -> Result<Self> {
        Ok(ComplexTensor {
            pairs: self.pairs.try_neg()?,
        })
    }

    /// The element-wise quotient `self / other`, broadcast. Both parts of the divisor are
    /// first scaled by `s = max(|re|, |im|)`, so `|other|²` neither overflows nor underflows
    /// where the quotient is finite (as NumPy's and PyTorch's complex division). A zero
    /// divisor gives `re/0 + i·im/0` (so `(1 + i)/0 = inf + inf·i`, NumPy's and PyTorch's).
    ///
    /// # Errors
    /// As [`ComplexTensor::new`].
    pub fn try_div(&self, other: &Self) -> Result<Self> {
        let (a, b) = (self.real(), self.imag());
        let (c, d) = (other.real(), other.imag());
        let s = c.try_abs()?.try_maximum(&d.try_abs()?)?;
        let (c, d) = (c.try_div(&s)?, d.try_div(&s)?);
        let den = c.try_mul(&c)?.try_add(&d.try_mul(&d)?)?.try_mul(&s)?;
        let re = a.try_mul(&c)?.try_add(&b.try_mul(&d)?)?.try_div(&den)?;
        let im = b.try_mul(&c)?.try_sub(&a.try_mul(&d)?)?.try_div(&den)?;
        let zero = s.try_eq_scalar(T::ZERO)?;
        Self::new(
            &Tensor::try_where(&zero, &a.try_div(&s)?, &re)?,
            &Tensor::try_where(&zero, &b.try_div(&s)?, &im)?,
        )
    }

    /// `1 / z`.
    ///
    /// # Errors
    /// `OutOfMemory`.
    pub fn try_reciprocal(&self) -> Result<Self> {
        let one = Tensor::scalar_on(T::ONE, self.pairs.device_handle())?;
        Self::from_real(&one)?.try_div(self)
    }

    /// `e^z = e^re (cos im + i sin im)` (PyTorch `exp` of a complex tensor).
    ///
    /// # Errors
    /// `OutOfMemory`.
    pub fn try_exp(&self) -> Result<Self> {
        Self::polar(&self.real().try_exp()?, &self.imag())
    }

    /// The principal logarithm `log |z| + i·angle(z)`, the imaginary part in `[-π, π]`
    /// (`log 0` is `-inf + 0i`, as NumPy).
    ///
    /// # Errors
    /// `OutOfMemory`.
    pub fn try_log(&self) -> Result<Self> {
        Self::new(&self.abs()?.try_log()?, &self.angle()?)
    }

    /// The principal square root `√|z| · e^{i·angle(z)/2}`, with a non-negative real part.
    ///
    /// # Errors
    /// `OutOfMemory`.
    pub fn try_sqrt(&self) -> Result<Self> {
        let half = T::from_f64(0.5);
        Self::polar(
            &self.abs()?.try_sqrt()?,
            &self.angle()?.try_mul_scalar(half)?,
        )
    }

    /// The sum over the complex axes `axes` (all of them when empty; negative axes count
    /// from the last complex axis), keeping them as length 1 with `keepdim`.
    ///
    /// # Errors
    /// `Axis` for an axis outside the complex dimensions.
    pub fn try_sum(&self, axes: &[i64], keepdim: bool) -> Result<Self> {
        Self::new(
            &self.real().try_sum(axes, keepdim)?,
            &self.imag().try_sum(axes, keepdim)?,
        )
    }

    /// The mean over the complex axes `axes`, as [`ComplexTensor::try_sum`].
    ///
    /// # Errors
    /// As [`ComplexTensor::try_sum`].
    pub fn try_mean(&self, axes: &[i64], keepdim: bool) -> Result<Self> {
        Self::new(
            &self.real().try_mean(axes, keepdim)?,
            &self.imag().try_mean(axes, keepdim)?,
        )
    }

    /// The matrix product with NumPy's `matmul` rules over the complex shapes (vectors,
    /// matrices, broadcast batches): `(A + iB)(C + iD) = (AC - BD) + i(AD + BC)`, four real
    /// products.
    ///
    /// ```
    /// use typed_tensor::complex::ComplexTensor;
    /// use typed_tensor::prelude::*;
    /// // [[i, 1]] · [[1], [i]] = [[2i]]
    /// let a = ComplexTensor::new(&Tensor::<f64>::from_vec(vec![0.0, 1.0], [1, 2])?, &Tensor::from_vec(vec![1.0, 0.0], [1, 2])?)?;
    /// let b = ComplexTensor::new(&Tensor::<f64>::from_vec(vec![1.0, 0.0], [2, 1])?, &Tensor::from_vec(vec![0.0, 1.0], [2, 1])?)?;
    /// let c = a.try_matmul(&b)?;
    /// assert_eq!((c.real().to_vec(), c.imag().to_vec()), (vec![0.0], vec![2.0]));
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Tensor::try_matmul`], for the complex shapes.
    pub fn try_matmul(&self, other: &Self) -> Result<Self> {
        let (a, b, c, d) = (self.real(), self.imag(), other.real(), other.imag());
        Self::new(
            &a.try_matmul(&c)?.try_sub(&b.try_matmul(&d)?)?,
            &a.try_matmul(&d)?.try_add(&b.try_matmul(&c)?)?,
        )
    }

    /// `x` with `self · x = rhs` for square complex matrices `self` `(..., n, n)` (NumPy
    /// `linalg.solve`): `rhs` a vector `(n,)` or a stack `(..., n, k)`. Solved as the real
    /// system `[[A, -B], [B, A]] [x_re; x_im] = [c; d]` of twice the size, so gradients flow
    /// through [`Tensor::try_solve`]'s.
    ///
    /// # Errors
    /// `InvalidArgument` unless `self` is a stack of square matrices; as
    /// [`Tensor::try_solve`] (a singular matrix, shapes that do not fit).
    pub fn try_solve(&self, rhs: &Self) -> Result<Self> {
        let n = self.square("solve")?;
        let vector = rhs.ndim() == 1;
        let rhs = match vector {
            true => ComplexTensor::from_pairs(&rhs.pairs.unsqueeze(-2)?)?,
            false => rhs.clone(),
        };
        let r = Tensor::try_concat(&[&rhs.real(), &rhs.imag()], -2)?;
        let x = self.real_block()?.try_solve(&r)?;
        let x = Self::new(&x.narrow(-2, 0, n)?, &x.narrow(-2, n, n)?)?;
        match vector {
            true => Ok(ComplexTensor::from_pairs(&x.pairs.squeeze_dims(&[-2])?)?),
            false => Ok(x),
        }
    }

    /// The inverse of each square complex matrix (NumPy `linalg.inv`): the left blocks of the
    /// inverse of `[[A, -B], [B, A]]`, which is `[[X, -Y], [Y, X]]` for `(A + iB)⁻¹ = X + iY`.
    ///
    /// # Errors
    /// `InvalidArgument` unless `self` is a stack of square matrices; as
    /// [`Tensor::try_inverse`] for a singular matrix.
    pub fn try_inverse(&self) -> Result<Self> {
        let n = self.square("inverse")?;
        let inv = self.real_block()?.try_inverse()?.narrow(-1, 0, n)?;
        Self::new(&inv.narrow(-2, 0, n)?, &inv.narrow(-2, n, n)?)
    }

    /// The size `n` of a stack of `n × n` complex matrices.
    fn square(&self, op: &'static str) -> Result<usize> {
        let d = self.dims();
        match d {
            [.., r, c] if r == c => Ok(*r),
            _ => Err(crate::error::Error::InvalidArgument {
                op,
                msg: format!(
                    "needs square complex matrices (..., n, n), got shape {}",
                    self.shape()
                ),
            }),
        }
    }

    /// The real matrix `[[A, -B], [B, A]]` of `A + iB`, `(..., 2n, 2n)`.
    fn real_block(&self) -> Result<Tensor<T, D>> {
        let (a, b) = (self.real(), self.imag());
        let nb = b.try_neg()?;
        let top = Tensor::try_concat(&[&a, &nb], -1)?;
        let bottom = Tensor::try_concat(&[&b, &a], -1)?;
        Tensor::try_concat(&[&top, &bottom], -2)
    }

    /// The conjugate transpose of the last two complex axes (PyTorch `mH`).
    ///
    /// # Errors
    /// `InvalidArgument` for fewer than two complex dimensions.
    pub fn try_conj_transpose(&self) -> Result<Self> {
        if self.ndim() < 2 {
            return Err(crate::error::Error::InvalidArgument {
                op: "mH",
                msg: format!(
                    "needs at least two complex dimensions, got shape {}",
                    self.shape()
                ),
            });
        }
        let (re, im) = (self.real(), self.imag());
        Self::new(&re.transpose(-2, -1)?, &im.transpose(-2, -1)?.try_neg()?)
    }

    /// The elements sorted along the last axis by real part, then imaginary part (NumPy
    /// `sort_complex`), stably, with NumPy's order for NaN: `R + Ri < R + NaN·i < NaN + Ri <
    /// NaN + NaN·i`, each group sorted by its non-NaN part. Differentiable (a gather of both
    /// parts).
    ///
    /// ```
    /// use typed_tensor::fft::ComplexTensor;
    /// use typed_tensor::prelude::*;
    /// let z = ComplexTensor::new(&tensor![1.0f64, 1.0, -2.0], &tensor![3.0f64, -1.0, 0.0])?;
    /// let s = z.try_sort_complex()?;
    /// assert_eq!((s.real().to_vec(), s.imag().to_vec()), (vec![-2.0, 1.0, 1.0], vec![0.0, -1.0, 3.0]));
    /// assert_eq!(z.isreal()?.to_vec(), vec![false, false, true]);
    /// assert!(z.try_real_if_close(100.0)?.is_none()); // imaginary parts far from 0
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` for 0-d input (no axis to sort).
    pub fn try_sort_complex(&self) -> Result<Self> {
        let (re, im) = (self.real(), self.imag());
        // The NaN group, 0 to 3, is the primary key.
        let group = (im.try_is_nan()?.try_cast::<T>()?).try_add(
            &re.try_is_nan()?
                .try_cast::<T>()?
                .try_mul_scalar(T::from_f64(2.0))?,
        )?;
        let order = Tensor::try_lexsort(&[&im, &re, &group])?;
        Self::new(
            &re.try_take_along_dim(&order, Some(-1))?,
            &im.try_take_along_dim(&order, Some(-1))?,
        )
    }

    /// Bool: whether each imaginary part is exactly 0 (NumPy `isreal`).
    ///
    /// # Errors
    /// `OutOfMemory`.
    pub fn isreal(&self) -> Result<Tensor<bool, D>> {
        self.imag().try_eq_scalar(T::ZERO)
    }

    /// Bool: whether each imaginary part is not 0 (NumPy `iscomplex`; NaN counts).
    ///
    /// # Errors
    /// `OutOfMemory`.
    pub fn iscomplex(&self) -> Result<Tensor<bool, D>> {
        self.imag().try_ne_scalar(T::ZERO)
    }

    /// The real parts when every imaginary part is within `tol` of 0, else `None` (NumPy
    /// `real_if_close`): a `tol` above 1 counts machine epsilons of `T` (NumPy's default is
    /// 100), one at most is absolute. An empty tensor is real. Reads one bool back from the
    /// device.
    ///
    /// # Errors
    /// `InvalidArgument` for a negative or NaN `tol`.
    pub fn try_real_if_close(&self, tol: f64) -> Result<Option<Tensor<T, D>>> {
        if tol.is_nan() || tol < 0.0 {
            return Err(crate::error::Error::InvalidArgument {
                op: "real_if_close",
                msg: format!("tol must be a non-negative number, got {tol}"),
            });
        }
        let tol = if tol > 1.0 { tol * T::DTYPE.eps() } else { tol };
        let im = self.imag();
        let close = im
            .try_abs()?
            .try_lt_scalar(T::from_f64(tol))?
            .try_all(&[], false)?;
        Ok(close.try_item()?.then(|| self.real()))
    }
}
