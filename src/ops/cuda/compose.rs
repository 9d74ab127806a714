//! CUDA forms of CPU ops that need no kernel of their own: each is composed of the element-wise,
//! comparison, cast, reduction and copy kernels, with the CPU op's name, semantics and errors
//! (`reshape`, `pow`, `square`, `is_nan`, the logical ops, `norm`, `fill_`, `item`, ...).
//! Results match the CPU's within float tolerance.

use crate::device::{Cpu, Cuda};
use crate::dtype::{Element, FloatElement, FloatOf, NumElement, SquareOf};
use crate::error::Result;
use crate::ops::binary::PowOp;
use crate::ops::unary::{PowExponent, PowExponentInplace, negative_exponent};
use crate::tensor::{ReshapeDims, Tensor, resolve};

impl<T: Element> Tensor<T, Cuda> {
    /// Another shape with the same element count: a view when contiguous, otherwise a packed
    /// copy (as [`Tensor::reshape`] on the CPU). One dimension may be `-1`.
    ///
    /// # Errors
    /// `ShapeMismatch` when the element counts differ, naming both shapes.
    pub fn reshape(&self, shape: impl ReshapeDims) -> Result<Self> {
        let s = resolve("reshape", self.shape(), shape.spec())?;
        self.contiguous()?.view(s)
    }

    /// A 1-d view (or copy when not contiguous) of all elements.
    pub fn flatten(&self) -> Result<Self> {
        self.reshape([self.numel()])
    }

    /// NumPy's name for [`Tensor::flatten`].
    pub fn ravel(&self) -> Result<Self> {
        self.flatten()
    }

    /// The only element of a one-element tensor, copied to the host.
    ///
    /// # Errors
    /// `InvalidArgument` when the tensor does not hold exactly one element.
    pub fn item(&self) -> Result<T> {
        self.check_one_element()?;
        Ok(self.to_vec()?[0])
    }

    /// Sets every element (of a view, too) to `value`.
    ///
    /// # Errors
    /// `Layout` for a broadcast view.
    pub fn fill_(&mut self, value: T) -> Result<()> {
        let s = Self::scalar_on(value, &self.device)?;
        self.copy_from(&s)
    }

    /// Copies `values` (row-major, `numel()` of them) into the tensor.
    ///
    /// # Errors
    /// `DataLength` for a wrong length; nothing is written then.
    pub fn set_data(&mut self, values: &[T]) -> Result<()> {
        crate::tensor::checked_data_shape("set_data", values.len(), self.shape().clone())?;
        let src = Self::from_vec_on(values.to_vec(), self.shape().clone(), &self.device)?;
        self.copy_from(&src)
    }

    /// True where the element is NaN (`x != x`; always false for integers).
    pub fn is_nan(&self) -> Result<Tensor<bool, Cuda>> {
        self.try_ne(self)
    }

    /// Logical AND of the truth values (non-zero is true, as on the CPU).
    pub fn logical_and(&self, other: &Self) -> Result<Tensor<bool, Cuda>> {
        let (a, b) = (self.truth()?, other.truth()?);
        Tensor::where_(&a, &b, &a)
    }
    /// Logical OR of the truth values.
    pub fn logical_or(&self, other: &Self) -> Result<Tensor<bool, Cuda>> {
        let (a, b) = (self.truth()?, other.truth()?);
        Tensor::where_(&a, &a, &b)
    }
    /// Logical XOR of the truth values.
    pub fn logical_xor(&self, other: &Self) -> Result<Tensor<bool, Cuda>> {
        self.truth()?.try_ne(&other.truth()?)
    }
    /// Logical NOT of the truth values.
    pub fn logical_not(&self) -> Result<Tensor<bool, Cuda>> {
        self.try_eq(&Self::scalar_on(T::ZERO, &self.device)?)
    }

    fn truth(&self) -> Result<Tensor<bool, Cuda>> {
        self.try_ne(&Self::scalar_on(T::ZERO, &self.device)?)
    }

    /// The `p`-norm over `axes` as [`Tensor::norm`] on the CPU (computed in f64).
    ///
    /// # Errors
    /// `Axis` for bad axes; `InvalidArgument` for a negative or NaN `p`.
    pub fn norm(&self, p: f64, axes: &[i64], keepdim: bool) -> Result<Tensor<FloatOf<T>, Cuda>> {
        crate::ops::linalg::check_norm_order(p)?;
        let a = self.cast::<f64>()?.abs()?;
        let r = if p.is_infinite() {
            a.max(axes, keepdim)?
        } else if p == 0.0 {
            a.truth()?.cast::<f64>()?.sum(axes, keepdim)?
        } else if p == 1.0 {
            a.sum(axes, keepdim)?
        } else if p == 2.0 {
            a.try_mul(&a)?.sum(axes, keepdim)?.sqrt()?
        } else {
            a.try_pow_scalar(p)?
                .sum(axes, keepdim)?
                .try_pow_scalar(1.0 / p)?
        };
        r.cast()
    }
}

impl<T: NumElement> Tensor<T, Cuda> {
    /// `x * x`; integers return `f64` so the square cannot overflow (as on the CPU).
    pub fn square(&self) -> Result<Tensor<SquareOf<T>, Cuda>> {
        let w = self.cast::<SquareOf<T>>()?;
        w.try_mul(&w)
    }

    /// In-place `x * x`, keeping the element type (integers wrap).
    pub fn square_(&mut self) -> Result<()> {
        let r = self.try_mul(self)?;
        self.store("square_", &r)
    }

    /// In-place [`Tensor::clip`].
    pub fn clip_(&mut self, min: T, max: T) -> Result<()> {
        let r = self.clip(min, max)?;
        self.store("clip_", &r)
    }

    /// True where the element is neither NaN nor ±inf (`x - x == 0`; always true for integers).
    pub fn is_finite(&self) -> Result<Tensor<bool, Cuda>> {
        self.try_sub(self)?
            .try_eq(&Self::scalar_on(T::ZERO, &self.device)?)
    }

    /// Element-wise `self ^ other` with broadcasting (NumPy `power`).
    ///
    /// # Errors
    /// `Broadcast` naming both shapes; `InvalidArgument` for a negative integer exponent.
    pub fn try_pow(&self, other: &Self) -> Result<Self> {
        self.try_binary::<PowOp>(other)
    }

    /// `self ^ s` for a scalar exponent of the element type.
    pub fn try_pow_scalar(&self, s: T) -> Result<Self> {
        self.try_pow(&Self::scalar_on(s, &self.device)?)
    }

    /// Raises every element to a power, as [`Tensor::pow`] on the CPU: an `i32` exponent keeps
    /// `T`, an `f32`/`f64` one returns [`FloatOf<T>`], a tensor broadcasts.
    ///
    /// # Errors
    /// `InvalidArgument` for a negative integer exponent on an integer tensor.
    pub fn pow<E: PowExponent<T, Cuda>>(&self, exponent: E) -> Result<Tensor<E::Output, Cuda>> {
        exponent.pow(self)
    }

    /// In-place power, as [`Tensor::pow_`] on the CPU (a float exponent needs a float tensor).
    pub fn pow_<E: PowExponentInplace<T, Cuda>>(&mut self, exponent: E) -> Result<()> {
        exponent.pow_(self)
    }

    /// Writes `self ^ other` (broadcast) into `out`, which may be an operand.
    pub fn pow_into(&self, other: &Self, out: &mut Self) -> Result<()> {
        out.store("pow_into", &self.try_pow(other)?)
    }
}

impl<T: NumElement> Tensor<T, Cuda> {
    /// `n` evenly spaced values from `start` to `stop` inclusive on `device`, as
    /// [`Tensor::linspace`] (computed on the host in f64, then copied).
    pub fn linspace_on(start: T, stop: T, n: usize, device: &Cuda) -> Result<Self> {
        Tensor::<T, Cpu>::linspace(start, stop, n)?.to_cuda(device)
    }

    /// Writes the matrix product into `out`, which must have the result's shape (as
    /// [`Tensor::matmul_into`] on the CPU; computed into a temporary, so `out` may be an operand).
    pub fn matmul_into(&self, other: &Self, out: &mut Self) -> Result<()> {
        out.store("matmul_into", &self.matmul(other)?)
    }
}

impl<T: Element> Tensor<T, Cuda> {
    /// Zeros of this tensor's shape on its device.
    pub fn zeros_like(&self) -> Result<Self> {
        Self::zeros_on(self.shape().clone(), &self.device)
    }
    /// Ones of this tensor's shape on its device.
    pub fn ones_like(&self) -> Result<Self> {
        Self::ones_on(self.shape().clone(), &self.device)
    }
    /// `value` in this tensor's shape on its device.
    pub fn full_like(&self, value: T) -> Result<Self> {
        Self::full_on(self.shape().clone(), value, &self.device)
    }
}

impl<T: FloatElement> Tensor<T, Cuda> {
    /// `|a - b| <= atol + rtol * |b|` element-wise in f64, as [`Tensor::is_close`] on the CPU
    /// (NaN is never close; equal infinities are).
    pub fn is_close(&self, other: &Self, rtol: f64, atol: f64) -> Result<Tensor<bool, Cuda>> {
        let (a, b) = (self.cast::<f64>()?, other.cast::<f64>()?);
        let bound = b.abs()?.try_mul_scalar(rtol)?.try_add_scalar(atol)?;
        a.try_sub(&b)?
            .abs()?
            .try_le(&bound)?
            .logical_or(&a.try_eq(&b)?)
    }

    /// True when every pair [`Tensor::is_close`] (NumPy `allclose`).
    pub fn all_close(&self, other: &Self, rtol: f64, atol: f64) -> Result<bool> {
        self.is_close(other, rtol, atol)?.all(&[], false)?.item()
    }

    /// True where the element is ±inf.
    pub fn is_inf(&self) -> Result<Tensor<bool, Cuda>> {
        let inf = Self::scalar_on(T::from_f64(f64::INFINITY), &self.device)?;
        self.abs()?.try_eq(&inf)
    }
}

/// An integer exponent, checked as on the CPU, as a scalar of the tensor's element type.
fn int_exponent<T: NumElement>(op: &'static str, e: i32) -> Result<T> {
    if e < 0 && !T::DTYPE.is_float() {
        return Err(negative_exponent(op, e, T::DTYPE));
    }
    Ok(T::from_f64(e as f64))
}

impl<T: NumElement> PowExponent<T, Cuda> for i32 {
    type Output = T;
    fn pow(self, t: &Tensor<T, Cuda>) -> Result<Tensor<T, Cuda>> {
        t.try_pow_scalar(int_exponent("pow", self)?)
    }
}

impl<T: NumElement> PowExponentInplace<T, Cuda> for i32 {
    fn pow_(self, t: &mut Tensor<T, Cuda>) -> Result<()> {
        let r = t.try_pow_scalar(int_exponent("pow_", self)?)?;
        t.store("pow_", &r)
    }
}

impl<T: NumElement> PowExponent<T, Cuda> for &Tensor<T, Cuda> {
    type Output = T;
    fn pow(self, t: &Tensor<T, Cuda>) -> Result<Tensor<T, Cuda>> {
        t.try_pow(self)
    }
}

impl<T: NumElement> PowExponentInplace<T, Cuda> for &Tensor<T, Cuda> {
    fn pow_(self, t: &mut Tensor<T, Cuda>) -> Result<()> {
        let r = t.try_pow(self)?;
        t.store("pow_", &r)
    }
}

macro_rules! float_exponent {
    ($($e:ty),*) => {$(
        impl<T: NumElement> PowExponent<T, Cuda> for $e {
            type Output = FloatOf<T>;
            fn pow(self, t: &Tensor<T, Cuda>) -> Result<Tensor<FloatOf<T>, Cuda>> {
                t.cast::<FloatOf<T>>()?
                    .try_pow_scalar(<FloatOf<T>>::from_f64(self as f64))
            }
        }
        impl<T: FloatElement> PowExponentInplace<T, Cuda> for $e {
            fn pow_(self, t: &mut Tensor<T, Cuda>) -> Result<()> {
                let r = t.try_pow_scalar(T::from_f64(self as f64))?;
                t.store("pow_", &r)
            }
        }
    )*};
}
float_exponent!(f32, f64);
