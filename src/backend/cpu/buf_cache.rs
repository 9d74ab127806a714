//! A per-thread cache of small freed host buffers (issue 26), as PyTorch's CPU caching
//! allocator keeps freed blocks: a model allocates and frees the same small sizes every step
//! (biases, per-row statistics, 0-d losses), and taking a block back from a thread-local list
//! costs a few instructions where `malloc` and `free` cost two library calls each.
//!
//! Blocks are kept by their 64-byte rounded data size, [`MAX_BYTES`] at most, and
//! [`DEPTH`] of each size per thread: at most 16 · 8 blocks of up to 1,072 bytes, about
//! 75 KiB a thread, returned to the allocator when the thread exits. A cached block is
//! zeroed again when it is handed out (`AlignedBuf::zeros`).

use std::cell::UnsafeCell;

/// The largest rounded data size cached, in bytes.
pub(crate) const MAX_BYTES: usize = 1024;
/// Blocks kept per size.
const DEPTH: usize = 8;
const CLASSES: usize = MAX_BYTES / super::device::CPU_ALIGN;

struct Cache {
    /// `blocks[c][..len[c]]` are free blocks of class `c` (rounded size `64 · (c + 1)`), each
    /// allocated with `layout` of that size.
    blocks: [[*mut u8; DEPTH]; CLASSES],
    len: [u8; CLASSES],
    layout: fn(usize) -> std::alloc::Layout,
}

impl Drop for Cache {
    fn drop(&mut self) {
        for c in 0..CLASSES {
            let layout = (self.layout)(64 * (c + 1));
            for &p in &self.blocks[c][..self.len[c] as usize] {
                // SAFETY: every cached block was allocated with this class's layout.
                unsafe { std::alloc::dealloc(p, layout) };
            }
        }
    }
}

thread_local! {
    static CACHE: UnsafeCell<Cache> = const {
        UnsafeCell::new(Cache {
            blocks: [[std::ptr::null_mut(); DEPTH]; CLASSES],
            len: [0; CLASSES],
            layout: super::device::heap_layout,
        })
    };
}

/// The class of a rounded size, when it is cached.
#[inline]
fn class(rounded: usize) -> Option<usize> {
    (rounded != 0 && rounded <= MAX_BYTES).then(|| rounded / super::device::CPU_ALIGN - 1)
}

/// A free block of `rounded` data bytes (allocated with `heap_layout(rounded)`), if this
/// thread has one. Its contents are arbitrary.
#[inline]
pub(crate) fn take(rounded: usize) -> Option<*mut u8> {
    let c = class(rounded)?;
    CACHE
        .try_with(|cache| {
            // SAFETY: the cache is only touched by this thread, and never re-entered: nothing
            // here calls out.
            let cache = unsafe { &mut *cache.get() };
            let n = cache.len[c] as usize;
            (n > 0).then(|| {
                cache.len[c] -= 1;
                cache.blocks[c][n - 1]
            })
        })
        .ok()
        .flatten()
}

/// Keeps `block` (allocated with `heap_layout(rounded)`) for reuse; false when it is not
/// cached (too large, the list full, or the thread exiting), and the caller frees it.
#[inline]
pub(crate) fn give(block: *mut u8, rounded: usize) -> bool {
    let Some(c) = class(rounded) else {
        return false;
    };
    CACHE
        .try_with(|cache| {
            // SAFETY: as in `take`.
            let cache = unsafe { &mut *cache.get() };
            let n = cache.len[c] as usize;
            if n == DEPTH {
                return false;
            }
            cache.blocks[c][n] = block;
            cache.len[c] += 1;
            true
        })
        .unwrap_or(false)
}
