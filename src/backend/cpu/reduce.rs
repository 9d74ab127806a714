//! The CPU's reduction and scan steps: one strided driver (`cpu::reduce`) run with the
//! reducer each [`ReduceOp`] names, each state mapped to the output dtype `O` the public op
//! picked. Float sums and moments accumulate in f64, integer sums in wrapping i64.

use crate::backend::cpu::kernels::columns::{self, ColOp, Cols};
use crate::backend::cpu::kernels::reduce::{Reducer, reduce, scan, scan_rows};
use crate::backend::cpu::kernels::reducers::{
    ExtremeR, FloatSumR, IntSumR, MeanR, MomentsR, SquaresR, TruthR,
};
use crate::backend::cpu::kernels::rows::{logsumexp as logsumexp_rows, softmax as softmax_rows};
use crate::backend::cpu::kernels::strided::PAR_THRESHOLD;
use crate::device::{AlignedBuf, Cpu};
use crate::dtype::{Dtype, Element, FloatElement, NumElement};
use crate::error::{Error, Result};
use crate::ops::reduce::{ReduceOp, ScanOp};
use crate::shape::{Dims, Layout, Shape};
use crate::tensor::{Tensor, read};

/// The sum or mean of every element of a small contiguous float tensor, or `None` (the
/// caller takes [`cpu_reduce`]). Inlined into the public op: this is the most common
/// reduction (a loss, a norm, a statistic), and each function boundary its result crossed
/// cost more than the checks (issue 26). The same reducers as `cpu_reduce`, so the same bits.
#[inline(always)]
pub(super) fn small_total<T: Element, O: Element>(
    x: &Tensor<T, Cpu>,
    op: ReduceOp,
    mask: &[bool],
    keepdim: bool,
) -> Option<Result<Tensor<O, Cpu>>> {
    if const { !(T::DTYPE.is_float() && O::DTYPE.same(T::DTYPE)) }
        || !matches!(op, ReduceOp::Sum | ReduceOp::Mean)
    {
        return None;
    }
    let n = x.numel();
    if n == 0 || n >= PAR_THRESHOLD || !mask.iter().all(|&m| m) || !x.is_contiguous() {
        return None;
    }
    let g = x.storage.try_read_recursive()?;
    let xs = &g[x.layout.offset..x.layout.offset + n];
    let v = if op == ReduceOp::Sum {
        let r = FloatSumR {
            product: false,
            skip_nan: false,
        };
        r.run(Reducer::<T>::init(&r), xs, 0)
    } else {
        let r = MeanR { skip_nan: false };
        let (s, c) = r.run(Reducer::<T>::init(&r), xs, 0);
        s / c as f64
    };
    drop(g);
    let layout = if keepdim {
        Layout::contiguous(Shape::from_dims(smallvec::smallvec![1; x.ndim()]))
    } else {
        Layout::scalar()
    };
    // Straight-line, not `map` with a closure: the closure was outlined and its result moved.
    let mut buf = match AlignedBuf::zeros(op.name(), 1) {
        Ok(buf) => buf,
        Err(e) => return Some(Err(e)),
    };
    buf[0] = O::from_f64(v);
    Some(Ok(Tensor::from_buf_layout(buf, layout)))
}

/// Runs reducer `r` over the axes in `mask` and maps each state to an output element.
fn reduce_with<T: Element, R: Reducer<T>, O: Element>(
    x: &Tensor<T, Cpu>,
    op: &'static str,
    mask: &[bool],
    keepdim: bool,
    r: R,
    finish: impl Fn(R::Acc, usize) -> Result<O>,
) -> Result<Tensor<O, Cpu>> {
    // The fast path for small contiguous inputs (see `backend::cpu::small`) whose reduced axes are
    // trailing (or whose kept axes all have size 1): each row is one vectorised run, folded
    // straight into the output, without the driver's plans and state vectors. Rows of a few
    // elements (a softmax over 10 classes) cost a loop iteration each.
    if let Some((len, dims)) = row_reduction(x.dims(), mask, keepdim)
        && x.is_contiguous()
        && let Some(g) = x.storage.try_read_recursive()
    {
        let (o, n) = (x.layout.offset, x.numel());
        let mut buf = AlignedBuf::zeros(op, n / len)?;
        for (y, row) in buf.iter_mut().zip(g[o..o + n].chunks_exact(len)) {
            *y = finish(r.run(r.init(), row, 0), len)?;
        }
        drop(g);
        return Ok(Tensor::from_buf(buf, Shape::from_dims(dims)));
    }
    let per_output = std::mem::size_of::<(isize, R::Acc, O)>();
    let (accs, blk, dims) = reduce_general(x, op, mask, keepdim, &r, per_output)?;
    let mut buf = AlignedBuf::zeros(op, accs.len())?;
    for (o, a) in buf.iter_mut().zip(accs) {
        *o = finish(a, blk)?;
    }
    Ok(Tensor::from_buf(buf, Shape::new(dims)))
}

/// [`reduce_with`]'s general path up to the states (one per output element, with the reduced
/// slice length and the output dimensions), compiled per element type and reducer rather than
/// also per output type.
fn reduce_general<T: Element, R: Reducer<T>>(
    x: &Tensor<T, Cpu>,
    op: &'static str,
    mask: &[bool],
    keepdim: bool,
    r: &R,
    per_output: usize,
) -> Result<(Vec<R::Acc>, usize, Vec<usize>)> {
    let dims = out_dims(op, x.dims(), mask, keepdim, per_output)?;
    let g = read(op, &x.storage)?;
    let (accs, _, blk) = reduce(&g, &x.layout, mask, r);
    Ok((accs, blk, dims))
}

/// For [`reduce_with`]'s fast path (compiled once, not per reducer): the row length and the
/// output dimensions when a small input's reduced axes are trailing (or its kept axes all
/// have size 1), so that each output element reduces one run of the contiguous input.
fn row_reduction(dims: &[usize], mask: &[bool], keepdim: bool) -> Option<(usize, Dims)> {
    let n = crate::shape::numel_of(dims.iter().copied());
    let one_output = dims.iter().zip(mask).all(|(&d, &m)| m || d == 1);
    let suffix = mask.iter().skip_while(|&&m| !m).all(|&m| m);
    let len = if one_output {
        n
    } else {
        crate::shape::numel_of(
            (dims.iter().zip(mask))
                .filter(|(_, m)| **m)
                .map(|(&d, _)| d),
        )
    };
    if !(one_output || suffix) || len == 0 || n >= PAR_THRESHOLD {
        return None;
    }
    let out = (dims.iter().zip(mask))
        .filter(|&(_, &m)| keepdim || !m)
        .map(|(&d, &m)| if m { 1 } else { d })
        .collect();
    Some((len, out))
}

/// The output dimensions of a reduction over the axes in `mask`, after checking that the
/// kernel's working vectors fit: they hold `per_output` bytes per output element, and reserving
/// them once up front turns an output too large for memory (a sum over an empty axis of a huge
/// broadcast view) into `OutOfMemory` instead of an abort inside the kernel.
fn out_dims(
    op: &'static str,
    dims: &[usize],
    mask: &[bool],
    keepdim: bool,
    per_output: usize,
) -> Result<Vec<usize>> {
    let kept: Vec<usize> = (dims.iter().zip(mask))
        .filter(|(_, m)| !**m)
        .map(|(&d, _)| d)
        .collect();
    let n_out = Shape::new(kept.clone()).checked_numel(op, per_output)?;
    drop(crate::alloc::with_capacity::<u8>(
        op,
        n_out.saturating_mul(per_output),
    )?);
    Ok(if keepdim {
        (dims.iter().zip(mask))
            .map(|(&d, &m)| if m { 1 } else { d })
            .collect()
    } else {
        kept
    })
}

/// The error for a slice with no element to pick (`blk == 0`) or only NaN.
fn nothing_to_pick(op: &'static str, shape: &Shape, blk: usize) -> Error {
    Error::EmptyReduction {
        op,
        msg: if blk == 0 {
            format!(
                "a reduced slice of the tensor of shape {shape} is empty, and the {op} of nothing is undefined"
            )
        } else {
            format!(
                "a reduced slice of the tensor of shape {shape} is all NaN, so it has no {op}; use the plain form to get the NaN's index"
            )
        },
    }
}

/// `m2 / max(0, n - correction)` (NumPy and PyTorch): with no degrees of freedom left, inf, or
/// NaN for a constant or empty slice (0 / 0).
fn variance(n: f64, m2: f64, correction: usize) -> f64 {
    m2 / (n - correction as f64).max(0.0)
}

/// Runs reduction `op` into output dtype `O`, which the public op fixed: `sum_of(T)` for sums
/// and products, `T` for min/max, i64 for the arg-reductions, `float_of(T)` for means and
/// moments, bool for any/all. Each arm is guarded by that relation in a `const` block, so an
/// `(T, O)` pair compiles only the reducers that can produce `O` (the compiler drops arms whose
/// guard is false after monomorphization): `cpu_reduce` is instantiated for about 30 pairs,
/// and unguarded each instance compiled all seven reducer families.
pub(super) fn cpu_reduce<T: Element, O: Element>(
    x: &Tensor<T, Cpu>,
    op: ReduceOp,
    mask: &[bool],
    keepdim: bool,
) -> Result<Tensor<O, Cpu>> {
    use ReduceOp::*;
    let name = op.name();
    let shape = x.shape();
    match op {
        Sum | Product | NanSum | NanProduct if const { O::DTYPE.same(T::DTYPE.sum_of()) } => {
            let product = matches!(op, Product | NanProduct);
            if const { T::DTYPE.is_float() } {
                let skip_nan = matches!(op, NanSum | NanProduct);
                let r = FloatSumR { product, skip_nan };
                reduce_with(x, name, mask, keepdim, r, |a, _| Ok(O::from_f64(a)))
            } else {
                let r = IntSumR { product };
                reduce_with(x, name, mask, keepdim, r, |a, _| Ok(O::from_i64(a)))
            }
        }
        Min | Max | NanMin | NanMax if const { O::DTYPE.same(T::DTYPE) } => {
            let skip_nan = matches!(op, NanMin | NanMax);
            let r = ExtremeR {
                max: matches!(op, Max | NanMax),
                skip_nan,
                index: false,
            };
            reduce_with(x, name, mask, keepdim, r, |a, blk| match a {
                Some((v, _)) => Ok(v.cast::<O>()),
                // An all-NaN slice has NaN as its nanmin/nanmax (NumPy).
                None if skip_nan && blk > 0 => Ok(O::from_f64(f64::NAN)),
                None => Err(nothing_to_pick(name, shape, 0)),
            })
        }
        ArgMin | ArgMax | NanArgMin | NanArgMax if const { O::DTYPE.same(Dtype::Int64) } => {
            let r = ExtremeR {
                max: matches!(op, ArgMax | NanArgMax),
                skip_nan: matches!(op, NanArgMin | NanArgMax),
                index: true,
            };
            reduce_with(x, name, mask, keepdim, r, |a, blk| match a {
                Some((_, i)) => Ok(O::from_i64(i as i64)),
                None => Err(nothing_to_pick(name, shape, blk)),
            })
        }
        // The sum over the block's size: `FloatSumR` folds whole rows into a strip of f64
        // accumulators for a column mean (`MeanR`'s (sum, count) pairs did not vectorise).
        Mean if const { O::DTYPE.same(T::DTYPE.float_of()) } => {
            let r = FloatSumR {
                product: false,
                skip_nan: false,
            };
            reduce_with(x, name, mask, keepdim, r, |s, blk| {
                Ok(O::from_f64(s / blk as f64))
            })
        }
        NanMean if const { O::DTYPE.same(T::DTYPE.float_of()) } => {
            let r = MeanR { skip_nan: true };
            reduce_with(x, name, mask, keepdim, r, |(s, c), _| {
                Ok(O::from_f64(s / c as f64))
            })
        }
        Var(c) | Std(c) if const { O::DTYPE.same(T::DTYPE.float_of()) } => {
            let r = MomentsR { skip_nan: false };
            let sqrt = matches!(op, Std(_));
            reduce_with(x, name, mask, keepdim, r, move |(n, _, m2), _| {
                let v = variance(n, m2, c);
                Ok(O::from_f64(if sqrt { v.sqrt() } else { v }))
            })
        }
        Any | All if const { O::DTYPE.same(Dtype::Bool) } => {
            let r = TruthR { all: op == All };
            reduce_with(x, name, mask, keepdim, r, |a, _| Ok(O::from_i64(a as i64)))
        }
        _ => Err(Error::InvalidArgument {
            op: name,
            msg: format!(
                "a {} result cannot hold the {name} of {} (a bug in the op calling it)",
                O::DTYPE,
                T::DTYPE
            ),
        }),
    }
}

/// `Σ x²` of float elements widened to f64 over the axes in `mask` (a 2-norm's sum), any
/// layout; `None` for other dtypes (the caller composes).
pub(super) fn cpu_sum_squares<T: Element>(
    x: &Tensor<T, Cpu>,
    mask: &[bool],
    keepdim: bool,
) -> Result<Option<Tensor<f64, Cpu>>> {
    if const { !T::DTYPE.is_float() } {
        return Ok(None);
    }
    reduce_with(x, "norm", mask, keepdim, SquaresR, |a, _| Ok(a)).map(Some)
}

/// The fused `logsumexp` of a contiguous f32/f64 tensor over one run of adjacent axes with
/// non-empty lines: the row kernels (`kernels::rows`) when the run is the trailing axes, the
/// column kernels (`kernels::columns`) otherwise; `None` for other masks and layouts.
pub(super) fn cpu_logsumexp<T: FloatElement>(
    x: &Tensor<T, Cpu>,
    mask: &[bool],
    keepdim: bool,
) -> Result<Option<Tensor<T, Cpu>>> {
    // The reduced axes as one run `first..end` (the rest of the mask kept).
    let first = mask.iter().position(|&m| m).unwrap_or(mask.len());
    let end = first + mask[first..].iter().take_while(|&&m| m).count();
    if x.numel() == 0 || mask[end..].iter().any(|&m| m) {
        return Ok(None);
    }
    // The tensor is not empty, so these products fit.
    let d = x.dims();
    let (len, inner) = (d[first..end].iter().product(), d[end..].iter().product());
    if const { T::DTYPE.size() < 4 } || len == 0 || !x.is_contiguous() {
        return Ok(None);
    }
    let dims = out_dims("logsumexp", x.dims(), mask, keepdim, T::SIZE)?;
    let rows = x.numel() / len;
    // Every output element is written.
    let mut buf = AlignedBuf::for_overwrite("logsumexp", rows)?;
    let g = read("logsumexp", &x.storage)?;
    let xs = &g[x.layout.offset..x.layout.offset + x.numel()];
    if inner == 1 {
        logsumexp_rows(xs, len, &mut buf);
    } else {
        let outer = rows / inner;
        let c = Cols { outer, len, inner };
        columns::columns(ColOp::LogSumExp, xs, None, c, &mut buf);
    }
    drop(g);
    Ok(Some(Tensor::from_buf(buf, Shape::new(dims))))
}

/// The fused softmax over the last axis (`kernels::rows::softmax`) of a contiguous, non-empty
/// f32/f64 tensor of two or more dimensions under the causal mask over its last two axes;
/// `None` otherwise.
pub(super) fn cpu_softmax_causal_last<T: FloatElement>(
    x: &Tensor<T, Cpu>,
) -> Result<Option<Tensor<T, Cpu>>> {
    let len = x.dims().last().copied().unwrap_or(0);
    let Some(rows) = (x.ndim() >= 2).then(|| x.dims()[x.ndim() - 2]) else {
        return Ok(None);
    };
    if const { T::DTYPE.size() < 4 } || len == 0 || x.numel() == 0 || !x.is_contiguous() {
        return Ok(None);
    }
    let n = x.numel();
    // Every element of every row is written.
    let mut buf = AlignedBuf::for_overwrite("softmax", n)?;
    let g = read("softmax", &x.storage)?;
    let o = x.layout.offset;
    softmax_rows(&g[o..o + n], len, &mut buf, Some(rows));
    drop(g);
    Ok(Some(Tensor::from_buf_layout(
        buf,
        x.layout.contiguous_copy(),
    )))
}

pub(super) fn cpu_scan<T: Element, O: NumElement>(
    x: &Tensor<T, Cpu>,
    op: ScanOp,
    ax: usize,
) -> Result<Tensor<O, Cpu>> {
    let name = op.name();
    let len = x.dims().get(ax).copied().unwrap_or(0);
    if ax + 1 == x.ndim() && x.is_contiguous() && len > 0 {
        // Contiguous rows along the last axis: threads, four rows at a time, and an output
        // that every row writes whole (so it needs no clearing).
        let n = x.numel();
        let mut buf = AlignedBuf::<O>::for_overwrite(name, n)?;
        let g = read(name, &x.storage)?;
        let src = &g[x.layout.offset..x.layout.offset + n];
        match op {
            ScanOp::CumSum => {
                scan_rows(src, &mut buf, len, O::ZERO, |a, v: T| a.add(v.cast::<O>()))
            }
            ScanOp::CumProd => {
                scan_rows(src, &mut buf, len, O::ONE, |a, v: T| a.mul(v.cast::<O>()))
            }
        }
        drop(g);
        return Ok(Tensor::from_buf_layout(buf, x.layout.contiguous_copy()));
    }
    let out = crate::alloc::try_vec(name, x.numel(), O::ZERO)?;
    let g = read(name, &x.storage)?;
    let v = match op {
        ScanOp::CumSum => scan(out, &g, &x.layout, ax, O::ZERO, |a, v: T| {
            a.add(v.cast::<O>())
        }),
        ScanOp::CumProd => scan(out, &g, &x.layout, ax, O::ONE, |a, v: T| {
            a.mul(v.cast::<O>())
        }),
    };
    drop(g);
    Tensor::from_vec(v, x.shape().clone())
}
