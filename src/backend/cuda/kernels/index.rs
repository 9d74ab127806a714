//! The CUDA steps for where, copies into views, index_select, gather and scatter_add, and the
//! device-side generators (`arange`, `rand`, `randn`), all from `kernels/index.cu`.

use super::{Info, empty, launch};
use crate::backend::cuda::device::Arg;
use crate::backend::cuda::kernels::table::{Module, symbol};
use crate::device::{Cuda, CudaStorage, RawDevice};
use crate::dtype::{Element, FloatElement, NumElement};
use crate::error::{Error, Result};

use crate::ops::index::check_index;
use crate::shape::Shape;
use crate::tensor::{Tensor, next_key};

/// `t` contiguous and starting at element 0, as the index kernels read it.
fn packed<T: Element>(t: &Tensor<T, Cuda>) -> Result<Tensor<T, Cuda>> {
    if t.is_contiguous() && t.layout.offset == 0 {
        Ok(t.clone())
    } else {
        t.cuda_deep_copy()
    }
}

/// A zeroed out-of-range flag; when a kernel set it, the CPU's `Index` error for the first
/// bad index (`size` entries along `ax` of `shape`).
struct Flag(CudaStorage<i32>);

impl Flag {
    fn new(dev: &Cuda) -> Result<Self> {
        Ok(Flag(dev.zeros(1)?))
    }
    fn check(
        &self,
        dev: &Cuda,
        op: &'static str,
        idx: &Tensor<i64, Cuda>,
        ax: usize,
        shape: &Shape,
    ) -> Result<()> {
        if dev.download(&self.0)?[0] == 0 {
            return Ok(());
        }
        for i in idx.cuda_to_vec()? {
            check_index(op, i, ax, shape.dims()[ax], shape)?;
        }
        Err(Error::Device {
            op,
            msg: "the kernel flagged an out-of-range index that the host copy does not hold".into(),
        })
    }
}

/// The CUDA steps for `where`, copies into views, `index_select` and `gather`.
impl Cuda {
    pub(crate) fn cuda_select<T: Element>(
        s: &Shape,
        cond: &Tensor<bool, Cuda>,
        a: &Tensor<T, Cuda>,
        b: &Tensor<T, Cuda>,
    ) -> Result<Tensor<T, Cuda>> {
        let op = "where_";
        let (lc, la, lb) = (
            cond.layout.broadcast_to(op, s)?,
            a.layout.broadcast_to(op, s)?,
            b.layout.broadcast_to(op, s)?,
        );
        let dev = &a.device;
        let n = s.numel();
        let out: CudaStorage<T> = empty(dev, n)?;
        if n > 0 {
            let info = Info::new(dev, &[&lc, &la, &lb])?;
            launch(
                dev,
                Module::Index,
                &symbol::<T>("where"),
                n,
                &[
                    Arg::U64(n as u64),
                    Arg::I32(info.ndim),
                    info.arg(),
                    Arg::I64(lc.offset as i64),
                    Arg::Buf(&cond.storage.buf),
                    Arg::I64(la.offset as i64),
                    Arg::Buf(&a.storage.buf),
                    Arg::I64(lb.offset as i64),
                    Arg::Buf(&b.storage.buf),
                    Arg::Buf(&out.buf),
                ],
            )?;
        }
        Ok(Tensor::from_storage(out, s.clone(), dev))
    }

    pub(crate) fn cuda_assign<T: Element>(
        dst: &mut Tensor<T, Cuda>,
        src: &Tensor<T, Cuda>,
    ) -> Result<()> {
        let ls = src.layout.broadcast_to("copy_from", dst.shape())?;
        let n = dst.numel();
        if n == 0 {
            return Ok(());
        }
        // A source sharing the destination's buffer is copied first, so overlapping views
        // read the old values (NumPy's result), as on the CPU.
        let owned;
        let (ls, src) = if std::sync::Arc::ptr_eq(&src.storage.buf, &dst.storage.buf) {
            owned = src.cuda_deep_copy()?;
            (owned.layout.broadcast_to("copy_from", dst.shape())?, &owned)
        } else {
            (ls, src)
        };
        let dev = &dst.device;
        let info = if dst.layout.is_contiguous() && super::one_element(&ls) {
            Info::fill()
        } else {
            Info::new(dev, &[&ls, &dst.layout])?
        };
        launch(
            dev,
            Module::Index,
            &symbol::<T>("copy_to"),
            n,
            &[
                Arg::U64(n as u64),
                Arg::I32(info.ndim),
                info.arg(),
                Arg::I64(ls.offset as i64),
                Arg::Buf(&src.storage.buf),
                Arg::I64(dst.layout.offset as i64),
                Arg::Buf(&dst.storage.buf),
            ],
        )
    }

    pub(crate) fn cuda_index_select<T: Element>(
        src: &Tensor<T, Cuda>,
        ax: usize,
        indices: &Tensor<i64, Cuda>,
    ) -> Result<Tensor<T, Cuda>> {
        let dev = &src.device;
        let x = src.try_contiguous()?;
        let idx = packed(indices)?;
        let dims = src.dims();
        let (outer, size) = (crate::shape::numel_of(dims[..ax].iter().copied()), dims[ax]);
        let inner: usize = crate::shape::numel_of(dims[ax + 1..].iter().copied());
        let count = idx.numel();
        let mut out_dims = dims.to_vec();
        out_dims[ax] = count;
        let n = outer * count * inner;
        let out: CudaStorage<T> = empty(dev, n)?;
        if n > 0 {
            let flag = Flag::new(dev)?;
            launch(
                dev,
                Module::Index,
                &symbol::<T>("take"),
                n,
                &[
                    Arg::U64(outer as u64),
                    Arg::U64(count as u64),
                    Arg::U64(inner as u64),
                    Arg::U64(size as u64),
                    Arg::Buf(&idx.storage.buf),
                    Arg::I64(x.layout.offset as i64),
                    Arg::Buf(&x.storage.buf),
                    Arg::Buf(&out.buf),
                    Arg::Buf(&flag.0.buf),
                ],
            )?;
            flag.check(dev, "index_select", &idx, ax, src.shape())?;
        } else if count > 0 && size == 0 {
            // No element is read, but the indices must still be valid (none are for size 0).
            flag_all("index_select", &idx, ax, src.shape())?;
        }
        Ok(Tensor::from_storage(out, Shape::new(out_dims), dev))
    }

    pub(crate) fn cuda_gather<T: Element>(
        src: &Tensor<T, Cuda>,
        ax: usize,
        index: &Tensor<i64, Cuda>,
    ) -> Result<Tensor<T, Cuda>> {
        let dev = &src.device;
        let idx = packed(index)?;
        let n = idx.numel();
        let out: CudaStorage<T> = empty(dev, n)?;
        if n > 0 {
            let mut v: Vec<i64> = idx.dims().iter().map(|&d| d as i64).collect();
            v.extend(src.layout.strides.iter().map(|&s| s as i64));
            let info: CudaStorage<i64> = dev.upload(&v)?;
            let flag = Flag::new(dev)?;
            launch(
                dev,
                Module::Index,
                &symbol::<T>("gather"),
                n,
                &[
                    Arg::U64(n as u64),
                    Arg::I32(idx.ndim() as i32),
                    Arg::I32(ax as i32),
                    Arg::Buf(&info.buf),
                    Arg::Buf(&idx.storage.buf),
                    Arg::I64(src.layout.offset as i64),
                    Arg::Buf(&src.storage.buf),
                    Arg::U64(src.dims()[ax] as u64),
                    Arg::Buf(&out.buf),
                    Arg::Buf(&flag.0.buf),
                ],
            )?;
            flag.check(dev, "gather", &idx, ax, src.shape())?;
        }
        Ok(Tensor::from_storage(out, idx.shape().clone(), dev))
    }
}

impl<T: NumElement> Tensor<T, Cuda> {
    /// A copy of `self` with `src` added at `index` along `axis` (PyTorch `scatter_add`), as
    /// [`Tensor::scatter_add`] on the CPU. Repeated indices accumulate through atomics, so
    /// float sums may be added in another order than the CPU's (equal within rounding);
    /// integers are exact and wrap.
    ///
    /// # Errors
    /// `ShapeMismatch` when `src` does not have the index's shape or the index does not fit
    /// `self` (as `gather`); `Index` for an out-of-range index; `Device` across devices.
    pub(crate) fn cuda_scatter_add(
        &self,
        ax: usize,
        index: &Tensor<i64, Cuda>,
        src: &Self,
    ) -> Result<Self> {
        const OP: &str = "scatter_add";
        let dev = &self.device;
        let out = packed(self)?.cuda_deep_copy()?;
        let idx = packed(index)?;
        let n = idx.numel();
        if n > 0 {
            let mut v: Vec<i64> = idx.dims().iter().map(|&d| d as i64).collect();
            v.extend(out.layout.strides.iter().map(|&s| s as i64));
            v.extend(src.layout.strides.iter().map(|&s| s as i64));
            let info: CudaStorage<i64> = dev.upload(&v)?;
            let flag = Flag::new(dev)?;
            launch(
                dev,
                Module::Index,
                &symbol::<T>(OP),
                n,
                &[
                    Arg::U64(n as u64),
                    Arg::I32(idx.ndim() as i32),
                    Arg::I32(ax as i32),
                    Arg::Buf(&info.buf),
                    Arg::Buf(&idx.storage.buf),
                    Arg::I64(src.layout.offset as i64),
                    Arg::Buf(&src.storage.buf),
                    Arg::U64(self.dims()[ax] as u64),
                    Arg::Buf(&out.storage.buf),
                    Arg::Buf(&flag.0.buf),
                ],
            )?;
            flag.check(dev, OP, &idx, ax, self.shape())?;
        }
        Ok(out)
    }
}

/// The CPU's error for the first of `idx`, all of which are out of range.
fn flag_all(op: &'static str, idx: &Tensor<i64, Cuda>, ax: usize, shape: &Shape) -> Result<()> {
    let first = idx.cuda_to_vec()?[0];
    check_index(op, first, ax, shape.dims()[ax], shape).map(drop)
}

impl<T: NumElement> Tensor<T, Cuda> {
    /// The 1-d tensor `start, start + step, ...` up to but excluding `stop` on `device`, with
    /// the values of [`Tensor::arange`] on the CPU (floats computed in f64 and rounded,
    /// integers in wrapping i64).
    ///
    /// # Errors
    /// As [`Tensor::arange`]: `InvalidArgument` for a zero or NaN step or non-finite bounds.
    pub(crate) fn cuda_arange(start: T, stop: T, step: T, device: &Cuda) -> Result<Self> {
        let n = Tensor::<T, crate::device::Cpu>::arange_len(start, stop, step)?;
        let out: CudaStorage<T> = empty(device, n)?;
        if n > 0 {
            launch(
                device,
                Module::Index,
                &symbol::<T>("arange"),
                n,
                &[
                    Arg::U64(n as u64),
                    Arg::F64(start.to_f64()),
                    Arg::F64(step.to_f64()),
                    Arg::I64(start.to_i64()),
                    Arg::I64(step.to_i64()),
                    Arg::Buf(&out.buf),
                ],
            )?;
        }
        Ok(Tensor::from_storage(out, Shape::new(vec![n]), device))
    }
}

impl<T: FloatElement> Tensor<T, Cuda> {
    /// Uniform samples on `[0, 1)` (or standard-normal ones by Box-Muller when `normal`)
    /// generated on `device` by a Philox4x32-10 kernel keyed from the global generator, so
    /// [`crate::manual_seed`] makes them reproducible. f64 has 53 random bits, the others 24.
    pub(crate) fn cuda_random(shape: Shape, device: &Cuda, normal: bool) -> Result<Self> {
        let n = shape.try_numel("rand_on")?;
        let out: CudaStorage<T> = empty(device, n)?;
        let key = next_key();
        if n > 0 {
            launch(
                device,
                Module::Index,
                &symbol::<T>(if normal { "randn" } else { "rand" }),
                n.div_ceil(4),
                &[Arg::U64(n as u64), Arg::U64(key), Arg::Buf(&out.buf)],
            )?;
        }
        Ok(Tensor::from_storage(out, shape, device))
    }
}
