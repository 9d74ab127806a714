//! Runs of elements to and from f32 compute buffers: 16-bit floats through `half`'s vectorised
//! slice conversions (F16C/AVX detected at run time), f32 by copy, others element by element.

use crate::dtype::Element;
use half::{bf16, f16, slice::HalfFloatSliceExt};
use std::any::TypeId;

/// `s` as a slice of `U` when `T` is `U`.
pub fn same<T: 'static, U: 'static>(s: &[T]) -> Option<&[U]> {
    // SAFETY: T and U are the same type.
    (TypeId::of::<T>() == TypeId::of::<U>())
        .then(|| unsafe { std::slice::from_raw_parts(s.as_ptr() as *const U, s.len()) })
}

/// `s` as a mutable slice of `U` when `T` is `U`.
pub fn same_mut<T: 'static, U: 'static>(s: &mut [T]) -> Option<&mut [U]> {
    // SAFETY: T and U are the same type.
    (TypeId::of::<T>() == TypeId::of::<U>())
        .then(|| unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr() as *mut U, s.len()) })
}

/// True for the dtypes whose compute type is f32 on the chunked paths (f32, f16, bf16); a
/// `const fn`, so callers decide in `const { }` blocks and compile one path per type.
pub const fn computes_in_f32(d: crate::Dtype) -> bool {
    use crate::Dtype::*;
    d.same(Float32) || d.same(Float16) || d.same(Bfloat16)
}

/// Widens `src` into `dst` (equal lengths).
#[inline]
pub fn load_f32<T: Element>(src: &[T], dst: &mut [f32]) {
    if let Some(s) = same::<T, f32>(src) {
        dst.copy_from_slice(s);
    } else if let Some(s) = same::<T, f16>(src) {
        s.convert_to_f32_slice(dst);
    } else if let Some(s) = same::<T, bf16>(src) {
        s.convert_to_f32_slice(dst);
    } else {
        for (d, &x) in dst.iter_mut().zip(src) {
            *d = x.to_f64() as f32;
        }
    }
}

/// Rounds `src` into `dst` (equal lengths).
#[inline]
pub fn store_f32<T: Element>(src: &[f32], dst: &mut [T]) {
    if let Some(d) = same_mut::<T, f32>(dst) {
        d.copy_from_slice(src);
    } else if let Some(d) = same_mut::<T, f16>(dst) {
        d.convert_from_f32_slice(src);
    } else if let Some(d) = same_mut::<T, bf16>(dst) {
        d.convert_from_f32_slice(src);
    } else {
        for (d, &x) in dst.iter_mut().zip(src) {
            *d = T::from_f64(x as f64);
        }
    }
}

/// The type a chunked kernel computes in: f32 (16-bit floats widen and narrow with SIMD
/// conversions) or f64 (f64 itself and the integers whose float type is f64).
pub trait Compute: Copy + Default + Send + Sync + 'static {
    /// Widens `src` into `dst` (equal lengths).
    fn load<T: Element>(src: &[T], dst: &mut [Self]);
    /// Narrows `src` into `dst` (equal lengths).
    fn store<T: Element>(src: &[Self], dst: &mut [T]);
}

impl Compute for f32 {
    #[inline]
    fn load<T: Element>(src: &[T], dst: &mut [f32]) {
        load_f32(src, dst)
    }
    #[inline]
    fn store<T: Element>(src: &[f32], dst: &mut [T]) {
        store_f32(src, dst)
    }
}

impl Compute for f64 {
    #[inline]
    fn load<T: Element>(src: &[T], dst: &mut [f64]) {
        match same::<T, f64>(src) {
            Some(s) => dst.copy_from_slice(s),
            None => dst.iter_mut().zip(src).for_each(|(d, &x)| *d = x.to_f64()),
        }
    }
    #[inline]
    fn store<T: Element>(src: &[f64], dst: &mut [T]) {
        match same_mut::<T, f64>(dst) {
            Some(d) => d.copy_from_slice(src),
            None => dst
                .iter_mut()
                .zip(src)
                .for_each(|(d, &x)| *d = T::from_f64(x)),
        }
    }
}
