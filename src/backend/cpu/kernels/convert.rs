//! Runs of elements to and from f32 compute buffers: 16-bit floats through whole-slice vector
//! conversions (below), f32 by copy, others element by element.
//!
//! The 16-bit conversions give `half`'s bits: with AVX-512F (detected at run time), f16 through
//! `vcvtph2ps`/`vcvtps2ph` sixteen at a time (the F16C instructions `half` uses, with its
//! round-to-nearest-even), bf16 by `half`'s bit formulas written branch-free so they vectorise;
//! elsewhere `half`'s slice conversions. `half` calls one non-inlined function per 8 f16
//! elements and converts bf16 element by element: 16-bit casts and ops took 2.5-4.5x
//! PyTorch's time on AVX-512 (BENCHMARKS.md, forty-fourth session).

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
        f16_to_f32(s, dst);
    } else if let Some(s) = same::<T, bf16>(src) {
        bf16_to_f32(s, dst);
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
        f32_to_f16(src, d);
    } else if let Some(d) = same_mut::<T, bf16>(dst) {
        f32_to_bf16(src, d);
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

/// `half`'s `f16::to_f32` of every element (equal lengths).
fn f16_to_f32(src: &[f16], dst: &mut [f32]) {
    assert_eq!(src.len(), dst.len(), "f16_to_f32 lengths");
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU has AVX-512F, checked just above.
        return unsafe { f16_to_f32_avx512(src, dst) };
    }
    src.convert_to_f32_slice(dst)
}

/// `half`'s `f16::from_f32` of every element (equal lengths).
fn f32_to_f16(src: &[f32], dst: &mut [f16]) {
    assert_eq!(src.len(), dst.len(), "f32_to_f16 lengths");
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU has AVX-512F, checked just above.
        return unsafe { f32_to_f16_avx512(src, dst) };
    }
    dst.convert_from_f32_slice(src)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn f16_to_f32_avx512(src: &[f16], dst: &mut [f32]) {
    use std::arch::x86_64::{__m256i, _mm256_loadu_si256, _mm512_cvtph_ps, _mm512_storeu_ps};
    let n = src.len() / 16 * 16;
    for (s, d) in src[..n].chunks_exact(16).zip(dst[..n].chunks_exact_mut(16)) {
        // SAFETY: both chunks hold 16 elements: 32 bytes read, 64 written, unaligned forms.
        unsafe {
            let h = _mm256_loadu_si256(s.as_ptr() as *const __m256i);
            _mm512_storeu_ps(d.as_mut_ptr(), _mm512_cvtph_ps(h));
        }
    }
    src[n..].convert_to_f32_slice(&mut dst[n..]);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn f32_to_f16_avx512(src: &[f32], dst: &mut [f16]) {
    use std::arch::x86_64::{
        __m256i, _MM_FROUND_NO_EXC, _MM_FROUND_TO_NEAREST_INT, _mm256_storeu_si256,
        _mm512_cvtps_ph, _mm512_loadu_ps,
    };
    const NEAREST: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    let n = src.len() / 16 * 16;
    for (s, d) in src[..n].chunks_exact(16).zip(dst[..n].chunks_exact_mut(16)) {
        // SAFETY: both chunks hold 16 elements: 64 bytes read, 32 written, unaligned forms.
        unsafe {
            let h = _mm512_cvtps_ph::<NEAREST>(_mm512_loadu_ps(s.as_ptr()));
            _mm256_storeu_si256(d.as_mut_ptr() as *mut __m256i, h);
        }
    }
    dst[n..].convert_from_f32_slice(&src[n..]);
}

widest! {
    /// `half`'s `bf16::to_f32` of every element (equal lengths): the bits shifted up, a NaN
    /// made quiet.
    fn bf16_to_f32(src: &[bf16], dst: &mut [f32]) = bf16_to_f32_run
}

#[inline(always)]
fn bf16_to_f32_run(src: &[bf16], dst: &mut [f32]) {
    for (d, s) in dst.iter_mut().zip(src) {
        let i = s.to_bits();
        let quiet = if i & 0x7fff > 0x7f80 { 0x40 } else { 0 };
        *d = f32::from_bits(u32::from(i | quiet) << 16);
    }
}

widest! {
    /// `half`'s `bf16::from_f32` of every element (equal lengths): round to nearest even, a
    /// NaN truncated and made quiet.
    fn f32_to_bf16(src: &[f32], dst: &mut [bf16]) = f32_to_bf16_run
}

#[inline(always)]
fn f32_to_bf16_run(src: &[f32], dst: &mut [bf16]) {
    for (d, s) in dst.iter_mut().zip(src) {
        let x = s.to_bits();
        let up = x & 0x8000 != 0 && x & 0x1_7fff != 0;
        let rounded = (x >> 16).wrapping_add(u32::from(up));
        let bits = if x & 0x7fff_ffff > 0x7f80_0000 {
            (x >> 16) | 0x40
        } else {
            rounded
        };
        *d = bf16::from_bits(bits as u16);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// f32 bit patterns: a stride through all 2^32 (every exponent, both signs, NaN payloads),
    /// then each f16/bf16 rounding boundary and its neighbours (ties to even both ways), and
    /// the subnormals of all three formats.
    fn f32_patterns() -> Vec<f32> {
        let mut v: Vec<u32> = (0..=u32::MAX).step_by(65_521).collect();
        for h in 0..=u16::MAX as u32 {
            // bf16 boundaries: the halfway point between h and h + 1, and one bit either side.
            let mid = (h << 16) | 0x8000;
            v.extend([mid - 1, mid, mid + 1, h << 16]);
            // f16 boundaries: the f32 halfway between consecutive f16 values.
            let a = f16::from_bits(h as u16).to_f32();
            let b = f16::from_bits((h as u16).wrapping_add(1)).to_f32();
            if a.is_finite() && b.is_finite() {
                let m = ((a as f64 + b as f64) / 2.0) as f32;
                v.extend([m.to_bits().wrapping_sub(1), m.to_bits(), m.to_bits() + 1]);
            }
        }
        v.extend(0..4096u32);
        v.into_iter().map(f32::from_bits).collect()
    }

    #[test]
    fn sixteen_bit_conversions_match_half_bit_for_bit() {
        let xs = f32_patterns();
        // Lengths around the 16-lane blocks, at offsets that leave tails.
        for len in [xs.len(), xs.len() - 7, 15, 17, 1] {
            let src = &xs[xs.len() - len..];
            let mut h = vec![f16::ZERO; len];
            let mut b = vec![bf16::ZERO; len];
            store_f32(src, &mut h);
            store_f32(src, &mut b);
            for ((x, h), b) in src.iter().zip(&h).zip(&b) {
                assert_eq!(
                    h.to_bits(),
                    f16::from_f32(*x).to_bits(),
                    "f16 of {:#x}",
                    x.to_bits()
                );
                assert_eq!(
                    b.to_bits(),
                    bf16::from_f32(*x).to_bits(),
                    "bf16 of {:#x}",
                    x.to_bits()
                );
            }
        }
        let all: Vec<u16> = (0..=u16::MAX).collect();
        for len in [all.len(), all.len() - 9, 3] {
            let bits = &all[..len];
            let h: Vec<f16> = bits.iter().map(|&u| f16::from_bits(u)).collect();
            let b: Vec<bf16> = bits.iter().map(|&u| bf16::from_bits(u)).collect();
            let (mut fh, mut fb) = (vec![0f32; len], vec![0f32; len]);
            load_f32(&h, &mut fh);
            load_f32(&b, &mut fb);
            for (i, &u) in bits.iter().enumerate() {
                assert_eq!(
                    fh[i].to_bits(),
                    f16::from_bits(u).to_f32().to_bits(),
                    "f16 {u:#x}"
                );
                assert_eq!(
                    fb[i].to_bits(),
                    bf16::from_bits(u).to_f32().to_bits(),
                    "bf16 {u:#x}"
                );
            }
        }
    }
}
