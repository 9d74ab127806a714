//! Drivers that hand an op whole chunks in a compute type (16-bit floats widened to f32,
//! casts), and the contiguous copy.

use super::{PAR_THRESHOLD, Plan, at, map, par_out};
use crate::backend::cpu::kernels::convert::{self, Compute};
use crate::backend::cpu::kernels::transpose;
use crate::device::AlignedBuf;
use crate::dtype::Element;
use crate::error::Result;
use crate::shape::Layout;
use rayon::prelude::*;

/// Elements per chunk on the chunked compute paths: two buffers stay in L1.
const CHUNK: usize = 512;

fn gather<T: Element>(src: &[T], o: isize, s: isize, len: usize, buf: &mut [T; CHUNK]) {
    if s == 1 {
        buf[..len].copy_from_slice(&src[o as usize..o as usize + len]);
    } else {
        for (j, b) in buf[..len].iter_mut().enumerate() {
            *b = src[at(o, j, s)];
        }
    }
}

/// Widens `n` elements at `o` with stride `s` into `f`: straight from `src` when contiguous,
/// through the gather buffer `tmp` otherwise.
fn load_run<T: Element, A: Compute>(
    src: &[T],
    o: isize,
    s: isize,
    n: usize,
    tmp: &mut [T; CHUNK],
    f: &mut [A; CHUNK],
) {
    if s == 1 {
        A::load(&src[o as usize..o as usize + n], &mut f[..n]);
    } else {
        gather(src, o, s, n, tmp);
        A::load(&tmp[..n], &mut f[..n]);
    }
}

/// `out = store(f(load(src)))` in chunks of the compute type `A`: 16-bit floats convert whole
/// runs with SIMD conversions and ops like `sin` run vectorised over the buffer. `f` is the
/// op's code, called once per chunk through a pointer, so this driver is compiled once per
/// element types rather than once per op.
pub fn map_into_chunks<I: Element, O: Element, A: Compute>(
    src: &[I],
    l: &Layout,
    out: &mut [O],
    f: &(dyn Fn(&mut [A]) + Sync),
) {
    let plan = Plan::new([l]);
    par_out(out, |start, chunk| {
        let mut tmp = [I::ZERO; CHUNK];
        let mut buf = [A::default(); CHUNK];
        plan.for_runs(start, start + chunk.len(), |pos, [o], [s], len| {
            let d = pos - start;
            // Already in the compute type and contiguous: copy into the output and work there
            // in place (one pass over the data fewer than through the buffer).
            if s == 1
                && let Some(src) = convert::same::<I, A>(src)
                && let Some(dst) = convert::same_mut::<O, A>(&mut chunk[d..d + len])
            {
                let o = o as usize;
                for (dc, sc) in dst.chunks_mut(CHUNK).zip(src[o..o + len].chunks(CHUNK)) {
                    dc.copy_from_slice(sc);
                    f(dc);
                }
                return;
            }
            let mut done = 0;
            while done < len {
                let n = (len - done).min(CHUNK);
                load_run(src, o + done as isize * s, s, n, &mut tmp, &mut buf);
                f(&mut buf[..n]);
                A::store(&buf[..n], &mut chunk[d + done..d + done + n]);
                done += n;
            }
        })
    });
}

/// [`map_into_chunks`] for a contiguous `src` of `out.len()` elements.
pub fn map_slice_chunks<I: Element, O: Element, A: Compute>(
    src: &[I],
    out: &mut [O],
    f: &dyn Fn(&mut [A]),
) {
    if let (Some(src), Some(out)) = (convert::same::<I, A>(src), convert::same_mut::<O, A>(out)) {
        out.copy_from_slice(src);
        return out.chunks_mut(CHUNK).for_each(f);
    }
    let mut buf = [A::default(); CHUNK];
    for (s, o) in src.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
        let b = &mut buf[..s.len()];
        A::load(s, b);
        f(b);
        A::store(b, o);
    }
}

/// `out[i] = src[i].cast::<U>()` (the layout `l` into a contiguous `out`): contiguous runs
/// convert straight into the output, strided runs through a gather buffer of [`CHUNK`]
/// elements. Per dtype pair this is one small run converter ([`cast_slice`]); the plan walk and
/// the thread pool are shared by all 81 pairs.
pub fn cast_into<T: Element, U: Element>(src: &[T], l: &Layout, out: &mut [U]) {
    let plan = Plan::new([l]);
    par_out(out, |start, chunk| {
        let mut tmp = [T::ZERO; CHUNK];
        plan.for_runs(start, start + chunk.len(), |pos, [o], [s], len| {
            let d = pos - start;
            if s == 1 {
                let o = o as usize;
                return cast_slice(&src[o..o + len], &mut chunk[d..d + len]);
            }
            let mut done = 0;
            while done < len {
                let n = (len - done).min(CHUNK);
                gather(src, o + done as isize * s, s, n, &mut tmp);
                cast_slice(&tmp[..n], &mut chunk[d + done..d + done + n]);
                done += n;
            }
        })
    });
}

/// `out[i] = src[i].cast::<U>()` for equal-length slices: 16-bit and 32-bit floats among
/// themselves in f32 chunks (SIMD conversions, one rounding, as `cast` through f64 gives),
/// everything else element by element.
pub fn cast_slice<T: Element, U: Element>(src: &[T], out: &mut [U]) {
    use convert::computes_in_f32 as f32_type;
    if const { f32_type(T::DTYPE) && f32_type(U::DTYPE) } {
        map_slice_chunks::<T, U, f32>(src, out, &|_| {})
    } else if const { T::DTYPE.is_float() && !U::DTYPE.is_float() } {
        cast_run_widest(src, out)
    } else {
        cast_run(src, out)
    }
}

widest! {
    /// [`cast_run`] at the CPU's widest vectors, for floats to integers: the SSE2 copy
    /// converted one element at a time through f64 with its saturation and NaN selects.
    fn cast_run_widest<T: Element; U: Element>(src: &[T], out: &mut [U]) = cast_run
}

/// `out[i] = src[i].cast::<U>()`, element by element. A float into a 32-bit or narrower
/// integer saturates and takes NaN to 0 as Rust's `as` does, written as a clamp then an
/// unchecked conversion so that LLVM vectorises it (it keeps `as` from f64 scalar).
#[inline(always)]
fn cast_run<T: Element, U: Element>(src: &[T], out: &mut [U]) {
    use crate::Dtype;
    let bounds = match U::DTYPE {
        Dtype::Int32 => Some((i32::MIN as f64, i32::MAX as f64)),
        Dtype::Int16 => Some((i16::MIN as f64, i16::MAX as f64)),
        Dtype::UInt8 => Some((0.0, 255.0)),
        _ => None,
    };
    if let Some((lo, hi)) = bounds.filter(|_| T::DTYPE.is_float()) {
        for (d, &x) in out.iter_mut().zip(src) {
            let v = x.to_f64();
            let c = if v.is_nan() { 0.0 } else { v.max(lo).min(hi) };
            // SAFETY: `c` is finite and within [lo, hi], which i32 holds (truncation toward
            // zero, as `as`).
            *d = U::from_i64(unsafe { c.to_int_unchecked::<i32>() } as i64);
        }
        return;
    }
    for (d, &x) in out.iter_mut().zip(src) {
        *d = x.cast::<U>();
    }
}

/// `out = store(f(load(a), load(b)))` in chunks of f32 (see [`map_into_chunks`]): `f` computes
/// a chunk in place in its first argument and is called through a pointer, so the driver is
/// compiled once per element type.
pub fn zip_into_f32<T: Element>(
    a: &[T],
    la: &Layout,
    b: &[T],
    lb: &Layout,
    out: &mut [T],
    f: &(dyn Fn(&mut [f32], &[f32]) + Sync),
) {
    let plan = Plan::new([la, lb]);
    par_out(out, |start, chunk| {
        let (mut ta, mut tb) = ([T::ZERO; CHUNK], [T::ZERO; CHUNK]);
        let (mut fa, mut fb) = ([0f32; CHUNK], [0f32; CHUNK]);
        plan.for_runs(
            start,
            start + chunk.len(),
            |pos, [oa, ob], [sa, sb], len| {
                let mut done = 0;
                while done < len {
                    let n = (len - done).min(CHUNK);
                    load_run(a, oa + done as isize * sa, sa, n, &mut ta, &mut fa);
                    load_run(b, ob + done as isize * sb, sb, n, &mut tb, &mut fb);
                    f(&mut fa[..n], &fb[..n]);
                    let d = pos - start + done;
                    convert::store_f32(&fa[..n], &mut chunk[d..d + n]);
                    done += n;
                }
            },
        )
    });
}

/// Copies `src` (layout `l`) into a new contiguous buffer. A layout that coalesces to a
/// transposed matrix (the inner logical dimension strided, the outer one contiguous) goes
/// through [`transpose::transpose_rows`] (8×8 register tiles) on all threads, in bands
/// of 64 output rows, instead of walking columns.
///
/// # Errors
/// `OutOfMemory` when the output cannot be allocated.
pub fn copy<T: Element>(op: &'static str, src: &[T], l: &Layout) -> Result<AlignedBuf<T>> {
    let plan = Plan::new([l]);
    let n = l.shape.numel();
    if n > 0 && plan.dims.len() == 2 && plan.strides[0][0] == 1 && plan.strides[0][1] > 1 {
        let (rows, cols) = (plan.dims[0], plan.dims[1]);
        let (cs, off) = (plan.strides[0][1] as usize, plan.offsets[0] as usize);
        let mut out = AlignedBuf::for_overwrite(op, n)?;
        let band = 64;
        let fill = |(bi, block): (usize, &mut [T])| {
            transpose::transpose_rows(src, off + bi * band, cs, cols, block);
        };
        if rows * cols < PAR_THRESHOLD {
            out.chunks_mut(band * cols).enumerate().for_each(fill);
        } else {
            out.par_chunks_mut(band * cols).enumerate().for_each(fill);
        }
        return Ok(out);
    }
    map(op, src, l, |x| x)
}
