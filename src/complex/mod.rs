//! Complex tensors as pairs of real numbers: what the FFTs and `eig` return. `mod.rs` holds
//! the type, its constructors and the element-wise sums and products; `math.rs` the division,
//! the elementary functions, reductions and `matmul`.

mod math;

use crate::backend::Backend;
use crate::device::Cpu;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::ops::device_ops::same_device;
use crate::shape::{Shape, broadcast_shapes};
use crate::tensor::Tensor;

/// A complex tensor of shape `dims()`, held as one real tensor of shape `(*dims(), 2)` whose
/// last axis is (real part, imaginary part): PyTorch's `view_as_real` layout, the form
/// `torch.stft(..., return_complex=False)` returned. The FFTs of [`crate::fft`] take and
/// return it, so a spectrum cannot be passed where a signal is expected. Gradients flow through
/// [`ComplexTensor::pairs`] (the gradient of a pair is that of its real and imaginary parts,
/// `∂L/∂re` and `∂L/∂im`, PyTorch's complex gradient viewed as real).
///
/// ```
/// use typed_tensor::complex::ComplexTensor;
/// use typed_tensor::prelude::*;
/// let z = ComplexTensor::new(&tensor![3.0f64, 0.0], &tensor![4.0f64, -2.0])?;
/// assert_eq!(z.dims(), &[2]);
/// assert_eq!(z.abs()?.to_vec(), vec![5.0, 2.0]);
/// let w = z.try_mul(&z.conj()?)?; // |z|²
/// assert_eq!(w.real().to_vec(), vec![25.0, 4.0]);
/// assert_eq!(w.imag().to_vec(), vec![0.0, 0.0]);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ComplexTensor<T: FloatElement, D: Backend = Cpu> {
    pairs: Tensor<T, D>,
}

impl<T: FloatElement, D: Backend> ComplexTensor<T, D> {
    /// `re + i·im`, the parts broadcast together (PyTorch `torch.complex`).
    ///
    /// # Errors
    /// `ShapeMismatch` when the shapes do not broadcast; `Device` when the devices differ;
    /// `OutOfMemory`.
    pub fn new(re: &Tensor<T, D>, im: &Tensor<T, D>) -> Result<Self> {
        const OP: &str = "complex";
        same_device(OP, re, im)?;
        let shape = broadcast_shapes(OP, re.shape(), im.shape())?;
        let (re, im) = (re.expand(shape.clone())?, im.expand(shape)?);
        Ok(ComplexTensor {
            pairs: Tensor::try_stack(&[&re, &im], -1)?,
        })
    }

    /// `re + 0i`.
    ///
    /// # Errors
    /// `OutOfMemory`.
    pub fn from_real(re: &Tensor<T, D>) -> Result<Self> {
        let im = Tensor::zeros_on(re.shape().clone(), re.device_handle())?;
        Self::new(re, &im)
    }

    /// `abs · e^{i·angle}` (PyTorch `torch.polar`), broadcast.
    ///
    /// # Errors
    /// As [`ComplexTensor::new`].
    pub fn polar(abs: &Tensor<T, D>, angle: &Tensor<T, D>) -> Result<Self> {
        Self::new(
            &abs.try_mul(&angle.try_cos()?)?,
            &abs.try_mul(&angle.try_sin()?)?,
        )
    }

    /// The complex tensor whose (real, imaginary) pairs are the last axis of `pairs`, of
    /// length 2 (PyTorch `view_as_complex`; shares its storage).
    ///
    /// # Errors
    /// `InvalidArgument` when `pairs` is 0-d or its last axis is not of length 2.
    pub fn from_pairs(pairs: &Tensor<T, D>) -> Result<Self> {
        if pairs.dims().last() != Some(&2) {
            return Err(Error::InvalidArgument {
                op: "view_as_complex",
                msg: format!(
                    "needs a last axis of length 2 (real, imaginary), got shape {}",
                    pairs.shape()
                ),
            });
        }
        Ok(ComplexTensor {
            pairs: pairs.clone(),
        })
    }

    /// The pairs, of shape `(*dims(), 2)` (PyTorch `view_as_real`; shared, not copied).
    pub fn pairs(&self) -> &Tensor<T, D> {
        &self.pairs
    }

    /// The pairs tensor, taken out.
    pub fn into_pairs(self) -> Tensor<T, D> {
        self.pairs
    }

    /// PyTorch's name for [`ComplexTensor::from_pairs`] (`torch.view_as_complex`).
    ///
    /// # Errors
    /// As [`ComplexTensor::from_pairs`].
    pub fn view_as_complex(pairs: &Tensor<T, D>) -> Result<Self> {
        Self::from_pairs(pairs)
    }

    /// The pairs as a real tensor `(*dims(), 2)` sharing the storage (`torch.view_as_real`).
    pub fn view_as_real(&self) -> Tensor<T, D> {
        self.pairs.clone()
    }

    /// PyTorch's name for [`ComplexTensor::new`] (`torch.complex(real, imag)`).
    ///
    /// # Errors
    /// As [`ComplexTensor::new`].
    pub fn complex(re: &Tensor<T, D>, im: &Tensor<T, D>) -> Result<Self> {
        Self::new(re, im)
    }

    /// The complex shape (the pairs' without their last axis).
    pub fn dims(&self) -> &[usize] {
        let d = self.pairs.dims();
        &d[..d.len() - 1]
    }

    /// The complex shape as a [`Shape`].
    pub fn shape(&self) -> Shape {
        Shape::from(self.dims())
    }

    /// The number of complex dimensions.
    pub fn ndim(&self) -> usize {
        self.pairs.ndim() - 1
    }

    /// The number of complex elements.
    pub fn numel(&self) -> usize {
        self.pairs.numel() / 2
    }

    /// The real parts (a view).
    pub fn real(&self) -> Tensor<T, D> {
        self.part(0)
    }

    /// The imaginary parts (a view).
    pub fn imag(&self) -> Tensor<T, D> {
        self.part(1)
    }

    fn part(&self, i: i64) -> Tensor<T, D> {
        // The last axis exists and has length 2 (every constructor checks it).
        crate::error::OrPanic::or_panic(self.pairs.select(-1, i))
    }

    /// The magnitudes `|z| = hypot(re, im)`. Its gradient at 0 is 0 (PyTorch's `abs` of a
    /// complex tensor), not the NaN of `hypot`'s.
    ///
    /// # Errors
    /// `OutOfMemory`.
    pub fn abs(&self) -> Result<Tensor<T, D>> {
        let (re, im) = (self.real(), self.imag());
        let h = re.try_hypot(&im)?;
        if !crate::autograd::recording(&[&self.pairs]) {
            return Ok(h);
        }
        // Where |z| = 0, hypot(1, 0) stands in, so its (unused) gradient is finite, and 0 is
        // taken: the gradient there is 0, not 0/0.
        let zero = h.try_eq_scalar(T::ZERO)?;
        let one = Tensor::scalar_on(T::ONE, h.device_handle())?;
        let h = Tensor::try_where(&zero, &one, &re)?.try_hypot(&im)?;
        Tensor::try_where(&zero, &one.try_mul_scalar(T::ZERO)?, &h)
    }

    /// The phase angles `atan2(im, re)` in radians, in `[-π, π]` (PyTorch `angle`).
    ///
    /// # Errors
    /// `OutOfMemory`.
    pub fn angle(&self) -> Result<Tensor<T, D>> {
        self.imag().try_atan2(&self.real())
    }

    /// The complex conjugate `re - i·im`.
    ///
    /// # Errors
    /// `OutOfMemory`.
    pub fn conj(&self) -> Result<Self> {
        Self::new(&self.real(), &self.imag().try_neg()?)
    }

    /// The element-wise sum, broadcast.
    ///
    /// # Errors
    /// As [`ComplexTensor::new`].
    pub fn try_add(&self, other: &Self) -> Result<Self> {
        Self::new(
            &self.real().try_add(&other.real())?,
            &self.imag().try_add(&other.imag())?,
        )
    }

    /// The element-wise difference, broadcast.
    ///
    /// # Errors
    /// As [`ComplexTensor::new`].
    pub fn try_sub(&self, other: &Self) -> Result<Self> {
        Self::new(
            &self.real().try_sub(&other.real())?,
            &self.imag().try_sub(&other.imag())?,
        )
    }

    /// The element-wise product `(a + bi)(c + di) = (ac - bd) + (ad + bc)i`, broadcast (a
    /// filter applied to a spectrum, a convolution through the FFT).
    ///
    /// # Errors
    /// As [`ComplexTensor::new`].
    pub fn try_mul(&self, other: &Self) -> Result<Self> {
        let (a, b, c, d) = (self.real(), self.imag(), other.real(), other.imag());
        Self::new(
            &a.try_mul(&c)?.try_sub(&b.try_mul(&d)?)?,
            &a.try_mul(&d)?.try_add(&b.try_mul(&c)?)?,
        )
    }

    /// Both parts times the real tensor `s`, broadcast over the complex shape (a real gain or
    /// mask applied to a spectrum).
    ///
    /// # Errors
    /// As [`ComplexTensor::new`].
    pub fn try_mul_real(&self, s: &Tensor<T, D>) -> Result<Self> {
        Self::new(&self.real().try_mul(s)?, &self.imag().try_mul(s)?)
    }

    /// [`crate::fft::fftshift`] over complex dimensions (all of them for `None`), never the
    /// pairs' axis.
    ///
    /// # Errors
    /// As [`crate::fft::fftshift`].
    pub fn fftshift(&self, dims: Option<&[i64]>) -> Result<Self> {
        self.shifted(dims, false)
    }

    /// [`crate::fft::ifftshift`] over complex dimensions (all of them for `None`).
    ///
    /// # Errors
    /// As [`crate::fft::fftshift`].
    pub fn ifftshift(&self, dims: Option<&[i64]>) -> Result<Self> {
        self.shifted(dims, true)
    }

    fn shifted(&self, dims: Option<&[i64]>, inverse: bool) -> Result<Self> {
        let axes = crate::fft::shift_axes(&self.shape(), dims)?;
        Ok(ComplexTensor {
            pairs: crate::fft::shift(&self.pairs, &axes, inverse)?,
        })
    }
}
