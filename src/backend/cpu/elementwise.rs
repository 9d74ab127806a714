//! The CPU kernels of the element-wise ops: the `Backend` steps for `Cpu` of the unary, binary
//! and scalar op types of `ops/`.

use super::drivers::{map_assign, map_new, write_into, zip_assign};
use super::kernels::convert;
use super::kernels::strided;
use super::small;
use crate::device::Cpu;
use crate::dtype::{Element, FloatElement, FloatOf, NumElement};
use crate::error::Result;
use crate::ops::binary::BinaryOp;
use crate::ops::unary::{FloatUnaryOp, SameUnaryOp};
use crate::shape::Layout;
use crate::shape::broadcast_shapes;
use crate::tensor::Tensor;
use num_traits::Float;

/// The CPU kernels of the binary ops (the `Backend` steps for `Cpu`).
impl<T: NumElement> Tensor<T, Cpu> {
    /// `Op(self, other)` with broadcasting into a new tensor.
    pub(crate) fn cpu_binary<Op: BinaryOp>(&self, other: &Self) -> Result<Self> {
        if const { T::DTYPE.is_float() }
            && let Some(r) = small::zip_new(Op::NAME, self, other, small::each2(Op::apply::<T>))
        {
            return r;
        }
        let shape = broadcast_shapes(Op::NAME, self.shape(), other.shape())?;
        let mut out = Tensor::for_overwrite(Op::NAME, shape)?;
        self.binary_into::<Op>(other, &mut out, false)?;
        Ok(out)
    }

    /// `self = Op(self, other)`, `other` broadcast into `self`'s shape.
    pub(crate) fn cpu_binary_<Op: BinaryOp>(&mut self, other: &Self) -> Result<()> {
        check_rhs::<Op, T>(other)?;
        zip_assign(Op::NAME, self, other, Op::apply::<T>)
    }

    /// `out = Op(self, other)`; `out` must have the broadcast shape and may be an input.
    pub(crate) fn cpu_binary_into<Op: BinaryOp>(&self, other: &Self, out: &mut Self) -> Result<()> {
        self.binary_into::<Op>(other, out, true)
    }

    /// [`Tensor::cpu_binary_into`]; `existing`: `out` was not just allocated (see
    /// [`strided::zip_into`]).
    fn binary_into<Op: BinaryOp>(
        &self,
        other: &Self,
        out: &mut Self,
        existing: bool,
    ) -> Result<()> {
        if const { T::DTYPE.is_float() }
            && let Some(r) =
                small::zip_into(Op::NAME, self, other, out, small::each2(Op::apply::<T>))
        {
            return r;
        }
        check_rhs::<Op, T>(other)?;
        let shape = broadcast_shapes(Op::NAME, self.shape(), other.shape())?;
        let la = self.layout.broadcast_to(Op::NAME, &shape)?;
        let lb = other.layout.broadcast_to(Op::NAME, &shape)?;
        let inputs = (&self.storage, &other.storage);
        write_into(Op::NAME, out, &shape, inputs, |(ga, gb), o| {
            if const { T::DTYPE.same(crate::Dtype::Float16) || T::DTYPE.same(crate::Dtype::Bfloat16) }
            {
                // 16-bit floats: whole chunks convert with SIMD (`convert`), and the driver
                // calls one f32 body per op.
                strided::zip_into_f32(ga, &la, gb, &lb, o, &f32_body::<Op>);
            } else {
                strided::zip_into(ga, &la, gb, &lb, o, &Op::apply::<T>, existing);
            }
        })
    }

    /// `Op(self, s)` for every element.
    pub(crate) fn cpu_scalar<Op: BinaryOp>(&self, s: T) -> Result<Self> {
        check_scalar::<Op, T>(s)?;
        if f32_scalar::<Op, T>(s).is_some() {
            let mut out = Tensor::for_overwrite(Op::NAME, self.shape().clone())?;
            self.cpu_scalar_into::<Op>(s, &mut out)?;
            return Ok(out);
        }
        map_new(Op::NAME, self, move |x| Op::apply(x, s))
    }

    /// `Op(s, self)` for every element (`s - t`, `s / t`).
    pub(crate) fn cpu_scalar_lhs<Op: BinaryOp>(&self, s: T) -> Result<Self> {
        check_rhs::<Op, T>(self)?;
        map_new(Op::NAME, self, move |x| Op::apply(s, x))
    }

    /// `self = Op(self, s)` in place.
    pub(crate) fn cpu_scalar_<Op: BinaryOp>(&mut self, s: T) -> Result<()> {
        check_scalar::<Op, T>(s)?;
        if let Some(body) = f32_scalar::<Op, T>(s) {
            // As the unary ops in place: into a fresh buffer, written back once.
            let shape = self.shape().clone();
            let mut buf = crate::device::AlignedBuf::for_overwrite(Op::NAME, self.numel())?;
            let src = crate::tensor::read(Op::NAME, &self.storage)?;
            strided::map_into_chunks(&src, &self.layout, &mut buf, &body);
            drop(src);
            return super::drivers::assign_result(Op::NAME, self, buf, &shape);
        }
        map_assign(Op::NAME, self, move |x| Op::apply(x, s))
    }

    /// `out = Op(self, s)`.
    pub(crate) fn cpu_scalar_into<Op: BinaryOp>(&self, s: T, out: &mut Self) -> Result<()> {
        check_scalar::<Op, T>(s)?;
        if let Some(body) = f32_scalar::<Op, T>(s) {
            let slice = |src: &[T], o: &mut [T]| strided::map_slice_chunks(src, o, &body);
            if let Some(r) = small::map_into(Op::NAME, self, out, slice) {
                return r;
            }
            let shape = self.shape().clone();
            return write_into(Op::NAME, out, &shape, &self.storage, |g, o| {
                strided::map_into_chunks(g, &self.layout, o, &body);
            });
        }
        let f = move |x| Op::apply(x, s);
        if let Some(r) = small::map_into(Op::NAME, self, out, small::each(f)) {
            return r;
        }
        let shape = self.shape().clone();
        write_into(Op::NAME, out, &shape, &self.storage, |g, o| {
            strided::map_into(g, &self.layout, o, &f);
        })
    }
}

/// The CPU kernels of the unary ops (the `Backend` steps for `Cpu`).
impl<T: Element> Tensor<T, Cpu> {
    pub(crate) fn cpu_float_unary<Op: FloatUnaryOp>(&self) -> Result<Tensor<FloatOf<T>, Cpu>> {
        if let Some(r) = small::map_new(Op::NAME, self, float_unary_slice::<T, Op>) {
            return r;
        }
        let mut out = Tensor::for_overwrite(Op::NAME, self.shape().clone())?;
        self.cpu_float_unary_into::<Op>(&mut out)?;
        Ok(out)
    }

    pub(crate) fn cpu_float_unary_into<Op: FloatUnaryOp>(
        &self,
        out: &mut Tensor<FloatOf<T>, Cpu>,
    ) -> Result<()> {
        if let Some(r) = small::map_into(Op::NAME, self, out, float_unary_slice::<T, Op>) {
            return r;
        }
        let shape = self.shape().clone();
        write_into(Op::NAME, out, &shape, &self.storage, |g, o| {
            float_unary_kernel::<T, Op>(g, &self.layout, o);
        })
    }
}

impl<T: FloatElement> Tensor<T, Cpu> {
    pub(crate) fn cpu_float_unary_<Op: FloatUnaryOp>(&mut self) -> Result<()> {
        // Compute into a fresh buffer on the chunked path, then write it back once.
        let shape = self.shape().clone();
        let mut buf = crate::device::AlignedBuf::for_overwrite(Op::NAME, self.numel())?;
        float_unary_kernel::<T, Op>(
            &crate::tensor::read(Op::NAME, &self.storage)?,
            &self.layout,
            &mut buf,
        );
        super::drivers::assign_result(Op::NAME, self, buf, &shape)
    }
}

impl<T: NumElement> Tensor<T, Cpu> {
    pub(crate) fn cpu_same_unary_into<Op: SameUnaryOp>(&self, out: &mut Self) -> Result<()> {
        if let Some(r) = small::map_into(Op::NAME, self, out, small::each(Op::apply)) {
            return r;
        }
        let (src, shape) = (self, self.shape().clone());
        write_into(Op::NAME, out, &shape, &src.storage, |g, o| {
            strided::map_into(g, &src.layout, o, &Op::apply);
        })
    }
}

/// `a = Op(a, b)` over f32 chunks, for [`strided::zip_into_f32`].
fn f32_body<Op: BinaryOp>(a: &mut [f32], b: &[f32]) {
    for (x, &y) in a.iter_mut().zip(b) {
        *x = Op::apply(*x, y);
    }
}

/// Checks every right operand of an integer op before anything is computed or written, so an
/// `Err` leaves all inputs unchanged.
fn check_rhs<Op: BinaryOp, T: NumElement>(b: &Tensor<T, Cpu>) -> Result<()> {
    if const { T::DTYPE.is_float() } {
        return Ok(());
    }
    let any_bad = b.to_vec().iter().any(|&x| !Op::valid_rhs(x));
    if any_bad {
        Err(Op::invalid(T::DTYPE))
    } else {
        Ok(())
    }
}

/// `Op(x, s)` over f32 chunks by the op's vectorised kernel (`pow`), for the float types that
/// compute in f32; `None` for other ops and types.
fn f32_scalar<Op: BinaryOp, T: NumElement>(s: T) -> Option<impl Fn(&mut [f32]) + Sync> {
    let fast = Op::F32_SCALAR?;
    let s = s.to_f64() as f32;
    (T::DTYPE.is_float() && convert::computes_in_f32(T::DTYPE))
        .then_some(move |b: &mut [f32]| fast(b, s))
}

fn check_scalar<Op: BinaryOp, T: NumElement>(s: T) -> Result<()> {
    if Op::valid_rhs(s) {
        Ok(())
    } else {
        Err(Op::invalid(T::DTYPE))
    }
}

/// [`float_unary_kernel`] over a contiguous `src` of `out.len()` elements.
fn float_unary_slice<T: Element, Op: FloatUnaryOp>(src: &[T], out: &mut [FloatOf<T>]) {
    if const { convert::computes_in_f32(<FloatOf<T> as Element>::DTYPE) } {
        strided::map_slice_chunks(src, out, &float_body::<Op, f32>);
    } else {
        strided::map_slice_chunks(src, out, &float_body::<Op, f64>);
    }
}

/// One float-valued op over a strided input into a contiguous output, in chunks of its compute
/// type: f32 (vectorised conversions for 16-bit floats and, where the op has one, a vectorised
/// kernel) when the result computes in f32, f64 otherwise.
fn float_unary_kernel<T: Element, Op: FloatUnaryOp>(src: &[T], l: &Layout, out: &mut [FloatOf<T>]) {
    if const { convert::computes_in_f32(<FloatOf<T> as Element>::DTYPE) } {
        strided::map_into_chunks(src, l, out, &float_body::<Op, f32>);
    } else {
        strided::map_into_chunks(src, l, out, &float_body::<Op, f64>);
    }
}

/// `Op` over a buffer of its compute type, the vectorised f32 kernel where it has one. Generic
/// over the op alone: the element types only pick the chunked driver that calls it.
fn float_body<Op: FloatUnaryOp, A: Float + convert::Compute>(buf: &mut [A]) {
    match (Op::F32_SLICE, convert::same_mut::<A, f32>(buf)) {
        (Some(fast), Some(b)) => fast(b),
        _ => buf.iter_mut().for_each(|x| *x = Op::apply(*x)),
    }
}
