//! Creation: from data, constant fills, ranges, identity matrices, random tensors.

use super::Tensor;
use super::with_global_rng;
use crate::backend::cpu::kernels::strided;
use crate::device::{AlignedBuf, Cpu};
use crate::dtype::{Element, FloatElement, NumElement};
use crate::error::{Error, Result};
use crate::shape::Shape;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rand_distr::{StandardNormal, StandardUniform};
use rayon::prelude::*;

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

/// One draw of a random tensor's element from any generator.
trait Sampler<T>: Sync {
    fn sample<R: Rng>(rng: &mut R) -> T;
}
struct Uniform;
impl<T: FloatElement> Sampler<T> for Uniform {
    fn sample<R: Rng>(rng: &mut R) -> T {
        uniform(rng)
    }
}
struct Normal;
impl<T: FloatElement> Sampler<T> for Normal {
    fn sample<R: Rng>(rng: &mut R) -> T {
        normal(rng)
    }
}

/// Elements per block of a large random tensor.
const DRAW_BLOCK: usize = 1 << 16;

/// `n` draws of `S`: from `rng` itself up to one block; beyond that, each block of
/// [`DRAW_BLOCK`] from a generator of its own (xoshiro256++, seeded by one `u64` drawn from
/// `rng` per block, in block order), on all threads. The values depend on `rng`'s state alone,
/// not on the number of threads.
fn draws<T: Element, S: Sampler<T>>(
    op: &'static str,
    shape: Shape,
    rng: &mut impl Rng,
) -> Result<Tensor<T, Cpu>> {
    let n = numel(op, &shape)?;
    let mut out = AlignedBuf::<T>::for_overwrite(op, n)?;
    if n <= DRAW_BLOCK {
        out.iter_mut().for_each(|x| *x = S::sample(rng));
    } else {
        let seeds: Vec<u64> = (0..n.div_ceil(DRAW_BLOCK))
            .map(|_| rng.next_u64())
            .collect();
        (out.par_chunks_mut(DRAW_BLOCK).zip(seeds)).for_each(|(block, seed)| {
            let mut g = SmallRng::seed_from_u64(seed);
            block.iter_mut().for_each(|x| *x = S::sample(&mut g));
        });
    }
    Ok(Tensor::from_buf(out, shape))
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

    /// Uniform samples on `[0, 1)` from a caller-provided generator. Up to 65,536 elements
    /// are drawn from it in order; a larger tensor draws one seed from it per block of that
    /// many and fills the blocks on all threads (the same values on any number of threads).
    pub fn rand_with(shape: impl Into<Shape>, rng: &mut impl Rng) -> Result<Self>
    where
        T: FloatElement,
    {
        draws::<T, Uniform>("rand", shape.into(), rng)
    }

    /// Standard-normal samples from a caller-provided generator, drawn as
    /// [`Tensor::rand_with`]'s.
    pub fn randn_with(shape: impl Into<Shape>, rng: &mut impl Rng) -> Result<Self>
    where
        T: FloatElement,
    {
        draws::<T, Normal>("randn", shape.into(), rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;

    /// A large random tensor's blocks come from per-block generators seeded in block order:
    /// the same values on one thread and on three, for `rand` and `randn`, and blocks that
    /// differ; up to one block the draws are the generator's own, in order.
    #[test]
    fn large_random_tensors_do_not_depend_on_the_thread_count() {
        let n = 3 * DRAW_BLOCK + 17;
        let on = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let mut rng = StdRng::seed_from_u64(3);
                let u = Tensor::<f32>::rand_with([n], &mut rng).unwrap().to_vec();
                let z = Tensor::<f64>::randn_with([n], &mut rng).unwrap().to_vec();
                (u, z)
            })
        };
        let (one, three) = (on(1), on(3));
        assert!(one.0 == three.0 && one.1 == three.1);
        let (u, z) = one;
        assert!(u.iter().all(|&x| (0.0..1.0).contains(&x)));
        let blocks: Vec<&[f64]> = z.chunks(DRAW_BLOCK).collect();
        assert!(blocks.windows(2).all(|w| w[0][..8] != w[1][..8]));
        for b in &blocks[..3] {
            let mean = b.iter().sum::<f64>() / b.len() as f64;
            let var = b.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / b.len() as f64;
            assert!(
                mean.abs() < 0.03 && (var - 1.0).abs() < 0.03,
                "{mean} {var}"
            );
        }
        let mut rng = StdRng::seed_from_u64(4);
        let small = Tensor::<f32>::randn_with([DRAW_BLOCK], &mut rng)
            .unwrap()
            .to_vec();
        let mut rng = StdRng::seed_from_u64(4);
        let direct: Vec<f32> = (0..DRAW_BLOCK)
            .map(|_| rng.sample(StandardNormal))
            .collect();
        assert_eq!(small, direct);
    }
}
