//! Generic element-wise drivers over strided blocks (candle's `layout.rs` idea): dimensions
//! that are contiguous for every operand are merged, so a contiguous tensor is one flat loop
//! the compiler vectorises, a strided one is a sequence of inner runs, and broadcasting is
//! stride 0. Work is split across rayon threads above [`PAR_THRESHOLD`] elements.
//!
//! The layout: `plan` walks the merged blocks; `elementwise` holds the drivers that call an
//! op's closure per element (new outputs, existing outputs, in place); `chunks` the drivers
//! that hand an op whole chunks in a compute type (16-bit floats, casts); `stream` the
//! non-temporal stores of large outputs; `indexed` the gathers and scatters through an index
//! tensor. This file holds the thread-pool split they share.

mod chunks;
mod elementwise;
mod indexed;
mod plan;
mod stream;

pub use chunks::{cast_into, cast_slice, copy, map_into_chunks, map_slice_chunks, zip_into_f32};
pub use elementwise::{copy_inplace, map, map_inplace, map_into, zip, zip_inplace, zip_into, zip3};
pub use indexed::{Indexed, gather_into, scatter_into};
pub use plan::Plan;

use rayon::prelude::*;

/// Below this many elements an element-wise op runs on one thread: waking the pool costs more
/// than it saves. Set from the cheapest op, an f32 `add_into` (`cargo bench --bench ops --
/// add_into_small`, 2 cores): parallel 16.5 / 14.6 / 16.9 / 29.4 µs at 32 / 64 / 128 / 256 Ki
/// elements against a plain loop's 3.5 / 7.0 / 15.5 / 77.1 µs, so the pool pays from 128 Ki.
pub const PAR_THRESHOLD: usize = 1 << 17;

/// Splits `0..n` into ranges and runs `f(start, end)` on each, in parallel above the threshold.
#[inline]
pub fn par_ranges(n: usize, f: impl Fn(usize, usize) + Sync) {
    if n < PAR_THRESHOLD {
        f(0, n);
        return;
    }
    par_ranges_dyn(n, chunk_len(n), &f)
}

/// The pool side of [`par_ranges`], compiled once: rayon's job machinery is large, and
/// instantiating it for every op and dtype was a quarter of the crate's code.
fn par_ranges_dyn(n: usize, chunk: usize, f: &(dyn Fn(usize, usize) + Sync)) {
    let range = |i: usize| f(i * chunk, ((i + 1) * chunk).min(n));
    if serial() {
        (0..n.div_ceil(chunk)).for_each(range);
    } else {
        (0..n.div_ceil(chunk)).into_par_iter().for_each(range);
    }
}

/// Whether the pool has one thread (`set_num_threads(1)`): its tasks then run in order on the
/// caller's thread, since handing them to the pool's one thread and waiting cost about 40 µs
/// a call here (a futex wake and sleep) and saved nothing.
#[inline]
pub fn serial() -> bool {
    rayon::current_num_threads() == 1
}

fn chunk_len(n: usize) -> usize {
    chunk_from(n, PAR_THRESHOLD)
}

/// Chunks of `n` elements for an op that pays the pool from `threshold` elements: four per
/// thread, none under half the threshold.
fn chunk_from(n: usize, threshold: usize) -> usize {
    let parts = rayon::current_num_threads() * 4;
    n.div_ceil(parts).max(threshold / 2).next_multiple_of(64)
}

/// Runs `f(start, out_chunk)` over disjoint chunks of a contiguous output.
#[inline]
pub fn par_out<O: Send>(out: &mut [O], f: impl Fn(usize, &mut [O]) + Sync) {
    par_out_from(out, PAR_THRESHOLD, f)
}

/// [`par_out`] for an op dearer per element than an `add`, which pays the pool from
/// `threshold` elements.
#[inline]
pub fn par_out_from<O: Send>(out: &mut [O], threshold: usize, f: impl Fn(usize, &mut [O]) + Sync) {
    if out.len() < threshold {
        f(0, out);
        return;
    }
    par_chunks(out, chunk_from(out.len(), threshold), &f)
}

/// Runs `f(start, out_chunk)` over the chunks of `chunk` elements of `out` on the pool
/// (inline when there is one chunk). Compiled once per element type, as [`par_ranges_dyn`].
pub fn par_chunks<O: Send>(out: &mut [O], chunk: usize, f: &(dyn Fn(usize, &mut [O]) + Sync)) {
    let chunk = chunk.max(1);
    if out.len() <= chunk {
        f(0, out);
        return;
    }
    if serial() {
        for (i, c) in out.chunks_mut(chunk).enumerate() {
            f(i * chunk, c);
        }
        return;
    }
    out.par_chunks_mut(chunk)
        .enumerate()
        .for_each(|(i, c)| f(i * chunk, c));
}

#[inline(always)]
fn at(o: isize, j: usize, s: isize) -> usize {
    (o + j as isize * s) as usize
}

/// A raw pointer that may cross threads; each thread writes a disjoint set of indices.
#[derive(Clone, Copy)]
struct SendPtr<T>(*mut T);

impl<T> SendPtr<T> {
    /// Taking `self` makes closures capture the whole (Send) wrapper, not the raw field.
    #[inline(always)]
    fn get(self) -> *mut T {
        self.0
    }
}
unsafe impl<T> Send for SendPtr<T> {}
unsafe impl<T> Sync for SendPtr<T> {}
