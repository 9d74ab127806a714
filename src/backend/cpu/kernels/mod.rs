//! CPU kernels. They take slices and layouts and know nothing of `Tensor`, so each can be read,
//! tested and benchmarked alone.

/// Defines `fn $name<T: A + B, U: C>` (written `<T: A, B; U: C>`, traits by name) that calls `$body` (an `#[inline(always)]`
/// function of the same arguments) compiled for AVX-512F, for AVX2 and for the default x86-64
/// target (SSE2), the widest the CPU has picked at run time: the body's loops are inlined into
/// each copy, so LLVM vectorises them at that width. Every copy runs the same operations in
/// the same order (Rust does not reassociate floating-point arithmetic): the same bits.
macro_rules! widest {
    // One definition for both forms below: `$gen` is the generic parameter list, perhaps empty.
    (@emit [$($attr:tt)*] $vis:vis $name:ident [$($gen:tt)*] ($($arg:ident: $ty:ty),*) [$($ret:ty)?] $body:ident) => {
        $($attr)*
        $vis fn $name<$($gen)*>($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f")]
                fn avx512<$($gen)*>($($arg: $ty),*) $(-> $ret)? {
                    $body($($arg),*)
                }
                #[target_feature(enable = "avx2")]
                fn avx2<$($gen)*>($($arg: $ty),*) $(-> $ret)? {
                    $body($($arg),*)
                }
                if std::arch::is_x86_feature_detected!("avx512f") {
                    // SAFETY: the CPU has AVX-512F, checked just above.
                    return unsafe { avx512($($arg),*) };
                }
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU has AVX2, checked just above.
                    return unsafe { avx2($($arg),*) };
                }
            }
            $body($($arg),*)
        }
    };
    ($(#[$m:meta])* $vis:vis fn $name:ident<$($g:ident: $($bound:ident),+);+>($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? = $body:ident) => {
        widest!(@emit [$(#[$m])*] $vis $name [$($g: $($bound +)+ Sized),+] ($($arg: $ty),*) [$($ret)?] $body);
    };
    // Without generic parameters.
    ($(#[$m:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? = $body:ident) => {
        widest!(@emit [$(#[$m])*] $vis $name [] ($($arg: $ty),*) [$($ret)?] $body);
    };
}

use crate::dtype::NumElement;

widest! {
    /// `out[i] = minimum(maximum(src[i], lo), hi)` (NaN propagating) at the CPU's widest
    /// vectors.
    pub(crate) fn clip_widest<T: NumElement>(src: &[T], out: &mut [T], lo: T, hi: T) = clip_run
}

#[inline(always)]
fn clip_run<T: NumElement>(src: &[T], out: &mut [T], lo: T, hi: T) {
    use crate::ops::binary::{
        BinaryOp,
        ops::{Maximum, Minimum},
    };
    for (d, &v) in out.iter_mut().zip(src) {
        *d = Minimum::apply(Maximum::apply(v, lo), hi);
    }
}

pub mod batch_norm;
pub mod columns;
pub mod convert;
#[cfg(feature = "linalg")]
pub mod linalg;
pub mod matmul;
pub(crate) mod moments;
pub mod norm;
pub mod reduce;
pub(crate) mod reducers;
pub mod rows;
pub mod strided;
pub mod transpose;
pub mod vmath;
