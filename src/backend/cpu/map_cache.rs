//! A process-wide cache of freed large host buffers (the anonymous mappings of
//! [`super::device::MMAP_THRESHOLD`] bytes or more). A training loop allocates and frees the
//! same large activations every step; a fresh mapping costs a page fault and the kernel's
//! clearing of every page (12% of the CNN epoch on the CPU, BENCHMARKS.md), where a recycled
//! one is already resident: `AlignedBuf::zeros` clears it with one `memset`, and an output
//! that a kernel overwrites whole (`AlignedBuf::for_overwrite`) is not cleared at all.
//!
//! At most [`MAX_ENTRIES`] mappings and [`MAX_BYTES`] bytes are kept; the oldest go back to
//! the system first. A request takes the smallest cached mapping that fits it and wastes at
//! most a quarter of it.

use parking_lot::Mutex;

/// The most bytes of mappings kept.
const MAX_BYTES: usize = 256 << 20;
/// The most mappings kept.
const MAX_ENTRIES: usize = 128;

/// `(base address, length)` of each cached mapping, oldest first.
static CACHE: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());

/// A cached mapping of at least `need` bytes (and at most a quarter more), removed from the
/// cache: `(base, length)`. Its contents are stale elements of an earlier buffer.
pub(crate) fn take(need: usize) -> Option<(*mut u8, usize)> {
    let mut cache = CACHE.lock();
    let fits = |&(_, len): &(usize, usize)| len >= need && len - need <= need / 4;
    let (i, _) = (cache.iter().enumerate())
        .filter(|(_, e)| fits(e))
        .min_by_key(|(_, e)| e.1)?;
    let (base, len) = cache.remove(i);
    Some((base as *mut u8, len))
}

/// Keeps the mapping `(base, len)` for [`take`], returning the oldest ones to the system when
/// the cache is full; `false` (the caller unmaps it) for a mapping larger than half the cache.
pub(crate) fn give(base: *mut u8, len: usize) -> bool {
    if len > MAX_BYTES / 2 {
        return false;
    }
    let evicted: Vec<(usize, usize)> = {
        let mut cache = CACHE.lock();
        let mut total: usize = cache.iter().map(|e| e.1).sum::<usize>() + len;
        let mut n = 0;
        while cache.len() - n >= MAX_ENTRIES || total > MAX_BYTES {
            total -= cache[n].1;
            n += 1;
        }
        let evicted = cache.drain(..n).collect();
        cache.push((base as usize, len));
        evicted
    };
    for (b, l) in evicted {
        // SAFETY: every cached mapping was created by `AlignedBuf::map` with this base and
        // length, and no buffer refers to it while it is cached.
        #[cfg(unix)]
        unsafe {
            libc::munmap(b as *mut libc::c_void, l);
        }
    }
    true
}

#[cfg(all(test, unix))]
mod tests {
    use crate::device::AlignedBuf;

    /// A recycled mapping comes back cleared by `zeros`, poisoned by `for_overwrite` in debug
    /// builds, and zeroed for bool, whose stale bytes could be other than 0 or 1.
    #[test]
    fn recycled_buffers_are_cleared_or_overwritten() {
        let n = (3 << 20) / 4 + 5; // 3 MiB of f32: a mapping
        for _ in 0..3 {
            let mut a = AlignedBuf::<f32>::zeros("test", n).unwrap();
            assert!(a.iter().all(|&x| x == 0.0));
            a.fill(7.0);
            drop(a);
            let b = AlignedBuf::<f32>::for_overwrite("test", n).unwrap();
            assert_eq!(b.len(), n);
            if cfg!(debug_assertions) {
                assert!(b.iter().all(|x| x.is_nan()), "poisoned in debug builds");
            }
            drop(b);
            let mut u = AlignedBuf::<u8>::for_overwrite("test", 3 << 20).unwrap();
            u.fill(3);
            drop(u);
            let t = AlignedBuf::<bool>::for_overwrite("test", 3 << 20).unwrap();
            assert!(t.iter().all(|&x| !x));
        }
        // Many sizes at once: the cache evicts and stays bounded, and every buffer is usable.
        let bufs: Vec<AlignedBuf<f64>> = (1..40)
            .map(|k| AlignedBuf::<f64>::zeros("test", k << 17).unwrap())
            .collect();
        assert!(bufs.iter().all(|b| b.iter().all(|&x| x == 0.0)));
        drop(bufs);
        let cache = super::CACHE.lock();
        assert!(cache.len() <= super::MAX_ENTRIES);
        assert!(cache.iter().map(|e| e.1).sum::<usize>() <= super::MAX_BYTES);
    }
}
