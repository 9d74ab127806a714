//! Matrix products of strided 2-d blocks into a contiguous `m × n` output: f32, f64 and f16
//! through the `gemm` crate (it takes arbitrary strides, so transposed operands are not
//! copied; AVX-512, AVX2/FMA kernels are picked at run time), bf16 through f32, integers through a
//! simple row-parallel kernel that wraps on overflow.

use crate::dtype::{Dtype, NumElement};
use half::f16;
use rayon::prelude::*;

/// A 2-d operand: storage, offset and strides (rows, columns) in elements.
#[derive(Clone, Copy, Debug)]
pub struct Mat<'a, T> {
    /// The whole storage.
    pub data: &'a [T],
    /// Offset of element (0, 0).
    pub offset: usize,
    /// Row stride.
    pub rs: isize,
    /// Column stride.
    pub cs: isize,
}

impl<T: Copy> Mat<'_, T> {
    #[inline(always)]
    fn at(&self, i: usize, j: usize) -> T {
        self.data[(self.offset as isize + i as isize * self.rs + j as isize * self.cs) as usize]
    }
    /// Panics unless every element of a `rows × cols` block lies inside the storage (checked in
    /// `i128`, so no stride or size can wrap the test); guards the raw pointers handed to gemm.
    fn check(&self, rows: usize, cols: usize) {
        if rows == 0 || cols == 0 {
            return;
        }
        let l = crate::shape::Layout {
            shape: crate::shape::Shape::new(vec![rows, cols]),
            strides: vec![self.rs, self.cs].into(),
            offset: self.offset,
        };
        assert!(
            l.check_within("matmul", self.data.len(), std::mem::size_of::<T>())
                .is_ok(),
            "matmul operand out of bounds"
        );
    }
}

/// Above this many multiply-adds `gemm` uses all threads. Waking the pool costs more than it
/// saves below: between serial ops (a training step), `(1437, 64) @ (64, 10)` (0.9 M) took
/// 70 µs parallel against 41 µs on one thread, `128³` (2 M) was even, and `(256, 64) @
/// (64, 256)` (4.2 M) took 63 µs parallel against 88 µs (2 cores, `examples`-style timing).
pub(crate) const PAR_FLOPS: usize = 1 << 22;

fn cast_mat<'a, T: 'static, U: 'static>(a: Mat<'a, T>) -> Mat<'a, U> {
    Mat {
        data: super::convert::same(a.data).expect("same type"),
        offset: a.offset,
        rs: a.rs,
        cs: a.cs,
    }
}

/// `dst (m × n, row-major) = a (m × k) · b (k × n)`.
pub fn matmul<T: NumElement>(
    dst: &mut [T],
    a: Mat<'_, T>,
    b: Mat<'_, T>,
    m: usize,
    n: usize,
    k: usize,
) {
    assert_eq!(dst.len(), m * n);
    a.check(m, k);
    b.check(k, n);
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        dst.fill(T::ZERO);
        return;
    }
    if const { T::DTYPE.same(Dtype::Float32) } {
        gemm_call::<f32>(
            super::convert::same_mut(dst).expect("same type"),
            cast_mat(a),
            cast_mat(b),
            m,
            n,
            k,
            0.0,
            1.0,
        );
    } else if const { T::DTYPE.same(Dtype::Float64) } {
        gemm_call::<f64>(
            super::convert::same_mut(dst).expect("same type"),
            cast_mat(a),
            cast_mat(b),
            m,
            n,
            k,
            0.0,
            1.0,
        );
    } else if const { T::DTYPE.same(Dtype::Float16) } {
        gemm_call::<f16>(
            super::convert::same_mut(dst).expect("same type"),
            cast_mat(a),
            cast_mat(b),
            m,
            n,
            k,
            f16::ZERO,
            f16::ONE,
        );
    } else if const { T::DTYPE.same(Dtype::Bfloat16) } {
        // gemm has no bf16 kernel: compute in f32 and round once.
        let af: Vec<f32> = (0..m * k)
            .map(|x| a.at(x / k, x % k).to_f64() as f32)
            .collect();
        let bf: Vec<f32> = (0..k * n)
            .map(|x| b.at(x / n, x % n).to_f64() as f32)
            .collect();
        let mut out = vec![0f32; m * n];
        let am = Mat {
            data: &af,
            offset: 0,
            rs: k as isize,
            cs: 1,
        };
        let bm = Mat {
            data: &bf,
            offset: 0,
            rs: n as isize,
            cs: 1,
        };
        gemm_call::<f32>(&mut out, am, bm, m, n, k, 0.0, 1.0);
        for (d, &v) in dst.iter_mut().zip(&out) {
            *d = T::from_f64(v as f64);
        }
    } else {
        int_matmul(dst, a, b, n, k);
    }
}

/// `gemm` into `dst`, or, for a column-major `b` (`x @ w.t()`) and fewer than 64 rows but more
/// columns, `bᵀ · aᵀ` into a scratch transposed into `dst`: gemm ran the first at 0.55-0.7 of
/// the second's rate (f32 (32, 784) by a transposed (784, 144): 145 against 214 GFLOP/s with
/// AVX-512), and the transposing copy is `m · n` of the product's `m · n · k`.
#[allow(clippy::too_many_arguments)]
fn gemm_call<T: 'static + Copy>(
    dst: &mut [T],
    a: Mat<'_, T>,
    b: Mat<'_, T>,
    m: usize,
    n: usize,
    k: usize,
    zero: T,
    one: T,
) {
    if b.rs == 1 && b.cs != 1 && m < n && m < 64 && k >= 32 {
        let mut t: Vec<T> = Vec::new();
        // Without the memory, the direct product.
        if t.try_reserve_exact(m * n).is_ok() {
            t.resize(m * n, zero);
            let (bt, at) = (
                Mat {
                    rs: b.cs,
                    cs: b.rs,
                    ..b
                },
                Mat {
                    rs: a.cs,
                    cs: a.rs,
                    ..a
                },
            );
            gemm_raw(&mut t, bt, at, n, m, k, zero, one);
            for (j, col) in t.chunks_exact(m).enumerate() {
                for (i, &v) in col.iter().enumerate() {
                    dst[i * n + j] = v;
                }
            }
            return;
        }
    }
    gemm_raw(dst, a, b, m, n, k, zero, one)
}

/// `dst (m × n, row-major) = a · b` through `gemm`, on every thread when the product is large.
#[allow(clippy::too_many_arguments)]
fn gemm_raw<T: 'static + Copy>(
    dst: &mut [T],
    a: Mat<'_, T>,
    b: Mat<'_, T>,
    m: usize,
    n: usize,
    k: usize,
    zero: T,
    one: T,
) {
    let par = if m * n * k >= PAR_FLOPS {
        gemm::Parallelism::Rayon(rayon::current_num_threads())
    } else {
        gemm::Parallelism::None
    };
    // SAFETY: `check` proved both operands' blocks lie inside their slices; dst is m × n.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            n as isize,
            false,
            a.data.as_ptr().add(a.offset),
            a.cs,
            a.rs,
            b.data.as_ptr().add(b.offset),
            b.cs,
            b.rs,
            zero,
            one,
            false,
            false,
            false,
            par,
        );
    }
}

fn int_matmul<T: NumElement>(dst: &mut [T], a: Mat<'_, T>, b: Mat<'_, T>, n: usize, k: usize) {
    let row = |(i, out): (usize, &mut [T])| {
        out.fill(T::ZERO);
        for p in 0..k {
            let x = a.at(i, p);
            for (j, o) in out.iter_mut().enumerate() {
                *o = o.add(x.mul(b.at(p, j)));
            }
        }
    };
    if dst.len() * k >= PAR_FLOPS {
        dst.par_chunks_mut(n).enumerate().for_each(row);
    } else {
        dst.chunks_mut(n).enumerate().for_each(row);
    }
}
