//! Vectorisable f32 kernels over slices: Cephes `sinf`/`cosf` polynomials after a five-part
//! Cody-Waite reduction (four 11-bit pieces of π/2, so every `j · piece` product is exact in
//! f32), Cephes `expf` and `logf`, and the functions built on their polynomials (`exp2`,
//! `expm1`, `log2`, `log1p`, `tanh`, the logistic sigmoid), written branch-free so LLVM emits
//! SIMD code. With AVX2 and FMA (or AVX-512F), detected at run time, the polynomials' `a·b + c`
//! steps are fused multiply-adds (one rounding, half the instructions); elsewhere they round
//! twice (SSE2). The two paths may differ in the last bit; both are swept by the test.
//!
//! Error bound: at most 2 ulp against the correctly rounded result on each kernel's covered
//! range (|x| ≤ 8192 for sin/cos, [-87, 88] for exp, positive normal floats for log, ...; see
//! each `covers`), checked by a test over dense sweeps; other, infinite and NaN inputs fall back
//! to the scalar libm function, bit for bit.
//!
//! Here: the evaluation paths ([`Arith`], [`Path`]), the [`Kernel`] trait and the block
//! dispatch; `elementary.rs` holds the trigonometric, exponential and logarithmic kernels,
//! `erf.rs` `erf`, GELU and its derivative, `pow.rs` `x^y` with one exponent (in f64 lanes),
//! `tests.rs` the ulp sweep.

mod elementary;
mod erf;
mod pow;
#[cfg(test)]
mod tests;

use elementary::{Exp, Exp2, Expm1, Log, Log1p, Log2, Sigmoid, Silu, SiluGrad, SinCos, Tanh};
use erf::{Erf, Gelu, GeluGrad};
pub use pow::powf;

/// How a polynomial step `a·b + c` is evaluated: [`Plain`] rounds twice (any x86-64 CPU),
/// [`Fused`] once, as one FMA instruction. `Fused` is instantiated only inside functions
/// compiled with the `fma` target feature, where `mul_add` is that instruction rather than a
/// call to libm's software `fmaf`.
trait Arith {
    fn fma(a: f32, b: f32, c: f32) -> f32;
    fn fma64(a: f64, b: f64, c: f64) -> f64;
}
struct Plain;
impl Arith for Plain {
    #[inline(always)]
    fn fma(a: f32, b: f32, c: f32) -> f32 {
        a * b + c
    }
    #[inline(always)]
    fn fma64(a: f64, b: f64, c: f64) -> f64 {
        a * b + c
    }
}
struct Fused;
impl Arith for Fused {
    #[inline(always)]
    fn fma(a: f32, b: f32, c: f32) -> f32 {
        a.mul_add(b, c)
    }
    #[inline(always)]
    fn fma64(a: f64, b: f64, c: f64) -> f64 {
        a.mul_add(b, c)
    }
}

/// A branch-free f32 kernel for the inputs it `covers`; the others (and NaN) are left to
/// `slow`, the scalar libm function.
trait Kernel {
    /// Whether `covers_near` is ever true (a kernel with a cheaper path for most inputs).
    const HAS_NEAR: bool = false;
    fn covers(x: f32) -> bool;
    fn eval<A: Arith>(x: f32) -> f32;
    fn slow(x: f32) -> f32;
    /// Inputs for which `eval_near` gives exactly `eval`'s result with less work; a block made
    /// of them takes it. None by default (the scan then folds away).
    #[inline(always)]
    fn covers_near(x: f32) -> bool {
        let _ = x;
        false
    }
    #[inline(always)]
    fn eval_near<A: Arith>(x: f32) -> f32 {
        Self::eval::<A>(x)
    }
}

/// Applies `K` to a block it covers entirely, or else element by element with `slow` for the
/// inputs it does not cover; returns nothing, the block is overwritten.
#[inline(always)]
fn block<K: Kernel, A: Arith>(xs: &mut [f32]) {
    // A branch-free scan (vectorised) decides; the common all-covered case is then one
    // branch-free loop, and a block holding NaN, inf or out-of-range inputs goes element-wise.
    if xs.iter().fold(true, |all, &x| all & K::covers_near(x)) {
        for x in xs.iter_mut() {
            *x = K::eval_near::<A>(*x);
        }
    } else if K::HAS_NEAR && xs.len() <= BLOCK {
        // Most inputs near (a few far ones, as in a block of normal samples): the cheap path
        // for all, then the far ones of each vector-sized chunk again, element by element.
        let mut orig = [0f32; BLOCK];
        let orig = &mut orig[..xs.len()];
        orig.copy_from_slice(xs);
        for x in xs.iter_mut() {
            *x = K::eval_near::<A>(*x);
        }
        for (c, o) in xs.chunks_mut(16).zip(orig.chunks(16)) {
            if o.iter().fold(true, |all, &x| all & K::covers_near(x)) {
                continue;
            }
            for (x, &v) in c.iter_mut().zip(o) {
                if !K::covers_near(v) {
                    *x = if K::covers(v) {
                        K::eval::<A>(v)
                    } else {
                        K::slow(v)
                    };
                }
            }
        }
    } else if xs.iter().fold(true, |all, &x| all & K::covers(x)) {
        for x in xs.iter_mut() {
            *x = K::eval::<A>(*x);
        }
    } else {
        for x in xs.iter_mut() {
            *x = if K::covers(*x) {
                K::eval::<A>(*x)
            } else {
                K::slow(*x)
            };
        }
    }
}

/// Elements per block of the dispatch.
const BLOCK: usize = 256;

#[inline(always)]
fn blocks<K: Kernel, A: Arith>(xs: &mut [f32]) {
    for b in xs.chunks_mut(BLOCK) {
        block::<K, A>(b);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn blocks_avx2<K: Kernel>(xs: &mut [f32]) {
    blocks::<K, Fused>(xs)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
fn blocks_avx512<K: Kernel>(xs: &mut [f32]) {
    blocks::<K, Fused>(xs)
}

/// The evaluation paths: AVX-512F or AVX2, with FMA; else SSE2 without it (a CPU with AVX2 but
/// no FMA is rare enough to share the SSE2 path rather than cost another copy of every kernel).
#[derive(Clone, Copy)]
enum Path {
    #[cfg(target_arch = "x86_64")]
    Avx512,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    Plain,
}

impl Path {
    /// The widest path the CPU has (the standard library caches the detection).
    fn detect() -> Path {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("fma") {
            if std::arch::is_x86_feature_detected!("avx512f") {
                return Path::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                return Path::Avx2;
            }
        }
        Path::Plain
    }
}

fn apply<K: Kernel>(xs: &mut [f32]) {
    match Path::detect() {
        // SAFETY: `Path::detect` chose these only where the CPU has the features.
        #[cfg(target_arch = "x86_64")]
        Path::Avx512 => unsafe { blocks_avx512::<K>(xs) },
        #[cfg(target_arch = "x86_64")]
        Path::Avx2 => unsafe { blocks_avx2::<K>(xs) },
        Path::Plain => blocks::<K, Plain>(xs),
    }
}

/// `sin` of every element, in place.
pub fn sin(xs: &mut [f32]) {
    apply::<SinCos<0>>(xs)
}

/// `cos` of every element, in place.
pub fn cos(xs: &mut [f32]) {
    apply::<SinCos<1>>(xs)
}

/// `e^x` of every element, in place (within 2 ulp; see [`Exp`]).
pub fn exp(xs: &mut [f32]) {
    apply::<Exp>(xs)
}

/// The natural logarithm of every element, in place (within 2 ulp; see [`Log`]).
pub fn log(xs: &mut [f32]) {
    apply::<Log>(xs)
}

/// `2^x` of every element, in place (within 2 ulp; see [`Exp2`]).
pub fn exp2(xs: &mut [f32]) {
    apply::<Exp2>(xs)
}

/// `e^x - 1` of every element, in place (within 2 ulp; see [`Expm1`]).
pub fn expm1(xs: &mut [f32]) {
    apply::<Expm1>(xs)
}

/// The base-2 logarithm of every element, in place (within 2 ulp; see [`Log2`]).
pub fn log2(xs: &mut [f32]) {
    apply::<Log2>(xs)
}

/// `log(1 + x)` of every element, in place (within 2 ulp; see [`Log1p`]).
pub fn log1p(xs: &mut [f32]) {
    apply::<Log1p>(xs)
}

/// `tanh` of every element, in place (within 2 ulp; see [`Tanh`]).
pub fn tanh(xs: &mut [f32]) {
    apply::<Tanh>(xs)
}

/// `erf` of every element, in place (within 1 ulp in the test's sweep; see [`Erf`]).
pub fn erf(xs: &mut [f32]) {
    apply::<Erf>(xs)
}

/// GELU of every element, in place (see [`Gelu`]).
pub fn gelu(xs: &mut [f32]) {
    apply::<Gelu>(xs)
}

/// GELU's derivative of every element, in place (see [`GeluGrad`]).
pub fn gelu_grad(xs: &mut [f32]) {
    apply::<GeluGrad>(xs)
}

/// The logistic function `1 / (1 + e^-x)` of every element, in place (within 2 ulp; see
/// [`Sigmoid`]).
pub fn sigmoid(xs: &mut [f32]) {
    apply::<Sigmoid>(xs)
}

/// SiLU, `x / (1 + e^-x)`, of every element, in place (see [`Silu`]).
pub fn silu(xs: &mut [f32]) {
    apply::<Silu>(xs)
}

/// SiLU's derivative of every element, in place (see [`SiluGrad`]).
pub fn silu_grad(xs: &mut [f32]) {
    apply::<SiluGrad>(xs)
}
