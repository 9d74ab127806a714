//! Creation: from data, constant fills, ranges, identity matrices, random tensors.

use super::Tensor;
use super::with_global_rng;
use crate::backend::cpu::kernels::strided;
use crate::device::{AlignedBuf, Cpu};
use crate::dtype::{Element, FloatElement, NumElement};
use crate::error::{Error, Result};
use crate::shape::Shape;
use rand::Rng;
use rand_distr::{StandardNormal, StandardUniform};

/// The element count of a shape that may be allocated: at most [`crate::shape::MAX_BYTES`]
/// of the widest element (8 bytes), whatever `T` is.
fn numel(op: &'static str, shape: &Shape) -> Result<usize> {
    shape.checked_numel(op, std::mem::size_of::<u64>())
}

/// `shape` when it holds exactly `len` elements.
///
/// # Errors
/// `ShapeOverflow` when the element count overflows; `DataLength` when it is not `len`.
pub(crate) fn checked_data_shape(op: &'static str, len: usize, shape: Shape) -> Result<Shape> {
    let n = numel(op, &shape)?;
    if n != len {
        return Err(Error::DataLength {
            op,
            len,
            shape,
            numel: n,
        });
    }
    Ok(shape)
}

impl<T: Element> Tensor<T, Cpu> {
    /// A tensor holding `data` in row-major order.
    ///
    /// # Errors
    /// `DataLength` when `data.len()` differs from the shape's element count; `ShapeOverflow`
    /// when that count overflows `usize`.
    pub fn from_vec(data: Vec<T>, shape: impl Into<Shape>) -> Result<Self> {
        Self::from_slice(&data, shape)
    }

    /// A tensor holding a copy of `data` in row-major order. Errors as [`Tensor::from_vec`].
    pub fn from_slice(data: &[T], shape: impl Into<Shape>) -> Result<Self> {
        let shape = checked_data_shape("from_slice", data.len(), shape.into())?;
        Ok(Self::from_buf(
            AlignedBuf::from_slice("from_slice", data)?,
            shape,
        ))
    }

    /// A tensor filled with `value`.
    ///
    /// # Errors
    /// `ShapeOverflow` when the element count overflows `usize`.
    pub fn full(shape: impl Into<Shape>, value: T) -> Result<Self> {
        let shape = shape.into();
        let n = numel("full", &shape)?;
        let mut buf = AlignedBuf::zeros("full", n)?;
        if value != T::ZERO {
            let l = crate::shape::Layout::contiguous(shape.clone());
            strided::map_inplace(&mut buf, &l, |_| value);
        }
        Ok(Self::from_buf(buf, shape))
    }

    /// A contiguous tensor of `shape` for a kernel that writes every element before any is
    /// read: a large one may hold stale elements until then ([`AlignedBuf::for_overwrite`]).
    pub(crate) fn for_overwrite(op: &'static str, shape: Shape) -> Result<Self> {
        let n = numel(op, &shape)?;
        Ok(Self::from_buf(AlignedBuf::for_overwrite(op, n)?, shape))
    }

    /// A tensor of zeros. Errors as [`Tensor::full`].
    ///
    /// The constructors, on the CPU (each has an `_on(.., &device)` form for any device):
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    ///
    /// let z = Tensor::<f32, Cpu>::zeros([2, 3])?;
    /// let f = Tensor::<i64, Cpu>::full([2], 7)?;
    /// let d = Tensor::<f64, Cpu>::from_vec(vec![1.0, 2.0, 3.0, 4.0], [2, 2])?;
    /// let r = Tensor::<i32, Cpu>::arange(0, 10, 3)?; // [0, 3, 6, 9], NumPy's arange
    /// let l = Tensor::<f32, Cpu>::linspace(0.0, 1.0, 5)?; // both ends included
    /// let e = Tensor::<f32, Cpu>::eye(3)?;
    /// manual_seed(0);
    /// let n = Tensor::<f32, Cpu>::randn([1000])?; // standard normal
    /// assert_eq!((z.dims(), f.to_vec(), r.to_vec()), (&[2usize, 3][..], vec![7, 7], vec![0, 3, 6, 9]));
    /// assert_eq!((l.to_vec()[4], e.to_vec()[4], d.to_vec()[3]), (1.0, 1.0, 4.0));
    /// assert!(n.mean(&[], false).item().abs() < 0.1);
    /// assert!(Tensor::<f32, Cpu>::from_vec(vec![1.0; 5], [2, 3]).is_err()); // 5 values for 6
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    pub fn zeros(shape: impl Into<Shape>) -> Result<Self> {
        Self::full(shape, T::ZERO)
    }

    /// A tensor of ones (`true` for bool). Errors as [`Tensor::full`].
    pub fn ones(shape: impl Into<Shape>) -> Result<Self> {
        Self::full(shape, T::ONE)
    }

    /// PyTorch's `empty`; uninitialised memory is never exposed, so this is [`Tensor::zeros`].
    pub fn empty(shape: impl Into<Shape>) -> Result<Self> {
        Self::zeros(shape)
    }

    /// A 0-d tensor (shape `[]`) holding `value`.
    ///
    /// # Panics
    /// Only when the system cannot allocate one element.
    pub fn scalar(value: T) -> Self {
        let buf = AlignedBuf::from_slice("scalar", &[value]).unwrap_or_else(|e| panic!("{e}"));
        Self::from_buf(buf, Shape::from(()))
    }

    /// A `(rows, cols)` matrix with ones on the main diagonal (NumPy `eye(N, M)`).
    pub fn identity(rows: usize, cols: usize) -> Result<Self> {
        let mut t = Self::zeros([rows, cols])?;
        {
            let mut d = t.data_mut()?;
            for i in 0..rows.min(cols) {
                d[i * cols + i] = T::ONE;
            }
        }
        Ok(t)
    }

    /// The `n × n` identity matrix (NumPy `eye(n)`).
    pub fn eye(n: usize) -> Result<Self> {
        Self::identity(n, n)
    }
}

impl<T: NumElement> Tensor<T, Cpu> {
    /// The 1-d tensor `start, start + step, ...` up to but excluding `stop` (NumPy `arange`):
    /// `ceil((stop - start) / step)` elements, computed as `start + i * step` in f64 and cast.
    ///
    /// # Errors
    /// `InvalidArgument` for a zero or NaN step, or non-finite bounds.
    pub fn arange(start: T, stop: T, step: T) -> Result<Self> {
        let n = Self::arange_len(start, stop, step)?;
        let (a, s) = (start.to_f64(), step.to_f64());
        let op = "arange";
        let v: Vec<T> = if T::DTYPE.is_float() {
            crate::alloc::collect(op, n, (0..n).map(|i| T::from_f64(a + i as f64 * s)))?
        } else {
            // Wrapping: the values stay inside [start, stop), so only the i64 product of an
            // element count with a step that overshoots could wrap, and then only past `stop`.
            let (a, s) = (start.to_i64(), step.to_i64());
            let it = (0..n).map(|i| T::from_i64(a.wrapping_add((i as i64).wrapping_mul(s))));
            crate::alloc::collect(op, n, it)?
        };
        Self::from_vec(v, [n])
    }

    /// The length of [`Tensor::arange`]'s result, after its argument checks.
    pub(crate) fn arange_len(start: T, stop: T, step: T) -> Result<usize> {
        let (a, b, s) = (start.to_f64(), stop.to_f64(), step.to_f64());
        if s == 0.0 || !s.is_finite() || !a.is_finite() || !b.is_finite() {
            return Err(Error::InvalidArgument {
                op: "arange",
                msg: format!(
                    "arange({start:?}, {stop:?}, {step:?}) needs a finite, non-zero step and finite bounds"
                ),
            });
        }
        let n = if T::DTYPE.is_float() {
            ((b - a) / s).ceil().max(0.0)
        } else {
            // Exact for integers (an f64 difference of two large i64 bounds would round):
            // ceil((stop - start) / step) in i128, 0 when the step points away from stop.
            let (a, b, s) = (
                start.to_i64() as i128,
                stop.to_i64() as i128,
                step.to_i64() as i128,
            );
            let d = b - a;
            let n = if d != 0 && (d > 0) == (s > 0) {
                (d + s - s.signum()) / s
            } else {
                0
            };
            n as f64
        };
        if n.is_nan() || n > (isize::MAX as f64) / 8.0 {
            return Err(Error::InvalidArgument {
                op: "arange",
                msg: format!("arange({start:?}, {stop:?}, {step:?}) would have {n} elements"),
            });
        }
        Ok(n as usize)
    }

    /// `n` evenly spaced values from `start` to `stop` inclusive (NumPy `linspace`), computed in
    /// f64 and cast (integers truncate).
    ///
    /// # Errors
    /// `ShapeOverflow` when `n` elements exceed [`crate::shape::MAX_BYTES`]; `OutOfMemory`
    /// when they cannot be allocated.
    pub fn linspace(start: T, stop: T, n: usize) -> Result<Self> {
        let op = "linspace";
        numel(op, &Shape::from([n]))?;
        let (a, b) = (start.to_f64(), stop.to_f64());
        let step = if n > 1 { (b - a) / (n - 1) as f64 } else { 0.0 };
        let v: Vec<T> = crate::alloc::collect(
            op,
            n,
            (0..n).map(|i| {
                if i + 1 == n && n > 1 {
                    stop
                } else {
                    T::from_f64(a + i as f64 * step)
                }
            }),
        )?;
        Self::from_vec(v, [n])
    }
}

/// One uniform draw on [0, 1): f64 draws for f64, f32 draws (rounded once) for the others.
fn uniform<T: FloatElement>(rng: &mut impl Rng) -> T {
    let x = if T::DTYPE == crate::Dtype::Float64 {
        T::from_f64(rng.sample::<f64, _>(StandardUniform))
    } else {
        T::from_f64(rng.sample::<f32, _>(StandardUniform) as f64)
    };
    // Rounding a value just below 1 to a 16-bit float can give 1; keep [0, 1).
    if x.to_f64() >= 1.0 { T::ZERO } else { x }
}

fn normal<T: FloatElement>(rng: &mut impl Rng) -> T {
    if T::DTYPE == crate::Dtype::Float64 {
        T::from_f64(rng.sample::<f64, _>(StandardNormal))
    } else {
        T::from_f64(rng.sample::<f32, _>(StandardNormal) as f64)
    }
}

/// Random tensors exist only for float element types: calling them for an integer type does
/// not compile.
impl<T: Element> Tensor<T, Cpu> {
    /// Uniform samples on `[0, 1)` from the global generator (see [`manual_seed`](crate::manual_seed)); f32, f16 and
    /// bf16 are drawn in f32 (16-bit floats then rounded), f64 in f64.
    ///
    /// # Errors
    /// `ShapeOverflow` when the element count overflows `usize`.
    pub fn rand(shape: impl Into<Shape>) -> Result<Self>
    where
        T: FloatElement,
    {
        with_global_rng(|r| Self::rand_with(shape, r))
    }

    /// Standard-normal samples from the global generator (see [`manual_seed`](crate::manual_seed)).
    pub fn randn(shape: impl Into<Shape>) -> Result<Self>
    where
        T: FloatElement,
    {
        with_global_rng(|r| Self::randn_with(shape, r))
    }

    /// Uniform samples on `[0, 1)` from a caller-provided generator.
    pub fn rand_with(shape: impl Into<Shape>, rng: &mut impl Rng) -> Result<Self>
    where
        T: FloatElement,
    {
        let shape = shape.into();
        let n = numel("rand", &shape)?;
        let v: Vec<T> = crate::alloc::collect("rand", n, (0..n).map(|_| uniform::<T>(rng)))?;
        Self::from_vec(v, shape)
    }

    /// Standard-normal samples from a caller-provided generator.
    pub fn randn_with(shape: impl Into<Shape>, rng: &mut impl Rng) -> Result<Self>
    where
        T: FloatElement,
    {
        let shape = shape.into();
        let n = numel("randn", &shape)?;
        let v: Vec<T> = crate::alloc::collect("randn", n, (0..n).map(|_| normal::<T>(rng)))?;
        Self::from_vec(v, shape)
    }
}
