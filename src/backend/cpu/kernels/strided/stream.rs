//! Non-temporal stores for outputs too large to stay in the cache.

/// Outputs of at least this many bytes are written with non-temporal stores: they cannot stay
/// in the cache (32 MiB of L3 here), and a normal store first reads the line it writes, so
/// streaming cuts an add's memory traffic from four array passes to three.
pub(super) const STREAM_BYTES: usize = 32 << 20;
/// Elements computed into a cache-resident block before each block is streamed out.
pub(super) const STREAM_BLOCK: usize = 1024;

/// Whether `out` is written with [`stream_copy`] (large enough, and the CPU has AVX).
pub(super) fn streams<O>(out: &[O]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::mem::size_of_val(out) >= STREAM_BYTES && std::arch::is_x86_feature_detected!("avx")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = out;
        false
    }
}

/// `dst.copy_from_slice(src)` with non-temporal stores for the 32-byte aligned part; only
/// called when [`streams`] said yes. The writing thread calls [`stream_fence`] before the
/// data is handed on.
#[inline]
pub(super) fn stream_copy<O: bytemuck::NoUninit>(dst: &mut [O], src: &[O]) {
    assert_eq!(dst.len(), src.len());
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx")]
        fn copy_avx(dst: &mut [u8], src: &[u8]) {
            use std::arch::x86_64::*;
            let head = dst.as_ptr().align_offset(32).min(dst.len());
            let (dh, db) = dst.split_at_mut(head);
            let (sh, sb) = src.split_at(head);
            dh.copy_from_slice(sh);
            let mut dc = db.chunks_exact_mut(32);
            let mut sc = sb.chunks_exact(32);
            for (d, s) in (&mut dc).zip(&mut sc) {
                // SAFETY: `d` and `s` hold 32 bytes each and `d` starts 32-byte aligned (the
                // head above, and 32-byte steps after it); the load is unaligned.
                unsafe {
                    let v = _mm256_loadu_si256(s.as_ptr() as *const __m256i);
                    _mm256_stream_si256(d.as_mut_ptr() as *mut __m256i, v);
                }
            }
            dc.into_remainder().copy_from_slice(sc.remainder());
        }
        // `O` has no padding (`NoUninit`), so its bytes can be read as `u8`.
        let s: &[u8] = bytemuck::cast_slice(src);
        // SAFETY: `dst`'s own `s.len()` bytes (same length and type as `src`); only the bytes
        // of valid `O`s from `src` are written there, so `dst` keeps holding valid `O`s.
        let d = unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr() as *mut u8, s.len()) };
        // SAFETY: only reached when `streams` found AVX.
        unsafe { copy_avx(d, s) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    dst.copy_from_slice(src);
}

/// Orders this thread's non-temporal stores before what follows (Rust's rule for
/// `_mm256_stream_si256`: an `sfence` before any other access to that memory).
pub(super) fn stream_fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of x86-64.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

#[cfg(test)]
mod tests {
    /// The streamed copy at every length around the 32-byte steps, from every start alignment,
    /// for 1-, 2-, 4- and 8-byte elements.
    #[test]
    fn stream_copy_every_length_and_alignment() {
        fn check<T: bytemuck::Pod + PartialEq + std::fmt::Debug>(make: impl Fn(usize) -> T) {
            let src: Vec<T> = (0..300).map(&make).collect();
            for start in 0..9 {
                for n in 0..src.len() - start {
                    let mut dst: Vec<T> = (0..src.len()).map(|i| make(i + 1000)).collect();
                    super::stream_copy(&mut dst[start..start + n], &src[..n]);
                    super::stream_fence();
                    assert_eq!(&dst[start..start + n], &src[..n], "start {start}, n = {n}");
                    assert!(
                        dst[..start]
                            .iter()
                            .enumerate()
                            .all(|(i, &v)| v == make(i + 1000))
                    );
                    let after = start + n;
                    assert!(
                        dst[after..]
                            .iter()
                            .zip(after..)
                            .all(|(&v, i)| v == make(i + 1000))
                    );
                }
            }
        }
        #[cfg(target_arch = "x86_64")]
        if !std::arch::is_x86_feature_detected!("avx") {
            return;
        }
        check(|i| i as u8);
        check(|i| i as u16);
        check(|i| i as f32 * 0.5);
        check(|i| i as f64 - 7.25);
    }
}
