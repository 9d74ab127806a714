//! Host storage: 64-byte aligned buffers shared behind `Arc<RwLock<..>>`, so views share memory
//! with their base and writes through one handle are seen by all.

use crate::device::{DeviceIndex, DeviceKind, RawDevice, sealed};
use crate::dtype::Element;
use parking_lot::RwLock;
use std::alloc::{self, Layout as AllocLayout};
use std::ptr::NonNull;
use std::sync::Arc;

/// The alignment of every CPU buffer, in bytes (a cache line; enough for AVX-512 loads).
pub const CPU_ALIGN: usize = 64;

/// Buffers of at least this many bytes are mapped straight from the kernel (zero pages, faulted
/// in by the first write, transparent huge pages requested from 2 MiB) and recycled through
/// [`super::map_cache`], instead of going through `malloc`, whose aligned `alloc_zeroed` would
/// memset every page first. Measured on a 64 MiB f32 add: 57 ms through the allocator, see
/// BENCHMARKS.md for the mapped figure. Below 1 MiB, glibc serves them from the heap, whose top
/// it gives back (`brk`) whenever more than twice its mapping threshold is free: two 0.5 MiB
/// temporaries freed together then cost a `brk` shrink and 256 fresh page faults on every
/// reuse, 0.6 ms for a (1024, 128) `square`, where a recycled mapping costs nothing.
pub const MMAP_THRESHOLD: usize = 1 << 18;

const HUGE_PAGE: usize = 2 << 20;

/// The length of the anonymous mapping for a buffer of `bytes` (at least
/// [`MMAP_THRESHOLD`]): whole pages, plus one huge page of slack from 2 MiB, so that the data
/// can start on a 2 MiB boundary ([`mapped_data`]).
#[cfg(unix)]
fn mapping_len(bytes: usize) -> usize {
    bytes.next_multiple_of(4096) + if bytes >= HUGE_PAGE { HUGE_PAGE } else { 0 }
}

/// Where a buffer of `bytes` starts in a mapping at `base` of at least [`mapping_len`]`(bytes)`
/// bytes: the first 2 MiB boundary for a buffer of 2 MiB or more, else the (page-aligned) base.
#[cfg(unix)]
fn mapped_data(base: *mut u8, bytes: usize) -> *mut u8 {
    if bytes >= HUGE_PAGE {
        (base as usize).next_multiple_of(HUGE_PAGE) as *mut u8
    } else {
        base
    }
}

/// Buffers up to this many bytes come from `malloc` and are zeroed by hand (see `zeros`).
const SMALL_BYTES: usize = 4096;

/// The alignment `malloc` guarantees on 64-bit targets.
const HEAP_ALIGN: usize = 16;

/// The heap allocation behind a buffer of `rounded` data bytes (a multiple of [`CPU_ALIGN`]):
/// the slack to align its start by hand, at the allocator's own alignment. glibc then serves
/// it with `calloc`; asking for 64-byte alignment takes its `memalign` path instead, which
/// splits chunks and made a 16-element add spend a third of its time in `malloc`/`free`
/// (issue 26).
pub(super) fn heap_layout(rounded: usize) -> AllocLayout {
    AllocLayout::from_size_align(rounded + CPU_ALIGN - HEAP_ALIGN, HEAP_ALIGN)
        .expect("size checked by caller")
}

/// A 64-byte aligned, fixed-length buffer of initialised elements: zeros from
/// [`AlignedBuf::zeros`], possibly stale ones of a freed buffer from the crate's
/// `for_overwrite`, which its caller overwrites whole before any read (or, from
/// [`crate::io::SafetensorsFile::load_mmap`], a copy-on-write mapping of a file, aligned to `T`).
pub struct AlignedBuf<T: Element> {
    ptr: NonNull<T>,
    len: usize,
    /// `(base, length)` of a mapping: an anonymous one for large buffers, or a file's.
    mapping: Option<(*mut u8, usize)>,
    /// The start of the heap allocation or the anonymous mapping `ptr` lies in (null for a
    /// file's mapping or an empty buffer). An anonymous mapping is the one whose base this is,
    /// and it goes to [`super::map_cache`] when the buffer is dropped.
    base: *mut u8,
}

// SAFETY: the buffer owns its elements, which are Send + Sync.
unsafe impl<T: Element> Send for AlignedBuf<T> {}
unsafe impl<T: Element> Sync for AlignedBuf<T> {}

impl<T: Element> AlignedBuf<T> {
    /// The heap allocation of `len` elements (see [`heap_layout`]).
    fn layout(len: usize) -> AllocLayout {
        heap_layout((len * T::SIZE).next_multiple_of(CPU_ALIGN))
    }

    #[cfg(unix)]
    fn map(bytes: usize) -> Option<(*mut u8, usize, *mut u8)> {
        let map_len = mapping_len(bytes);
        // SAFETY: an anonymous private mapping; checked for MAP_FAILED below.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return None;
        }
        let base = base as *mut u8;
        let data = mapped_data(base, bytes);
        if bytes >= HUGE_PAGE {
            // SAFETY: advice on our own mapping; failure (no THP) is harmless.
            unsafe {
                libc::madvise(
                    data as *mut libc::c_void,
                    map_len - (data as usize - base as usize),
                    libc::MADV_HUGEPAGE,
                );
            }
        }
        Some((base, map_len, data))
    }

    /// A recycled anonymous mapping ([`super::map_cache`]) for `len` elements, holding stale
    /// elements of an earlier buffer, when one of the right size is cached.
    #[cfg(unix)]
    fn recycled(len: usize) -> Option<Self> {
        let bytes = len.checked_mul(T::SIZE)?;
        if bytes < MMAP_THRESHOLD || bytes > isize::MAX as usize - HUGE_PAGE {
            return None;
        }
        let (base, map_len) = super::map_cache::take(mapping_len(bytes))?;
        // As in `map`: `map_len` is at least `mapping_len(bytes)`, so `bytes` fit after the
        // data's start.
        let data = mapped_data(base, bytes) as *mut T;
        Some(AlignedBuf {
            ptr: NonNull::new(data)?,
            len,
            mapping: Some((base, map_len)),
            base,
        })
    }

    /// A buffer of `len` elements that the caller overwrites whole before reading any: a
    /// large one may be a recycled mapping that still holds an earlier buffer's elements
    /// (every byte pattern is a valid element, except for bool, which is zeroed), so it is
    /// not cleared. Debug builds fill it with 0xFF bytes (NaN, -1, 255), so that a kernel
    /// that leaves an element unwritten fails the tests.
    ///
    /// # Errors
    /// As [`AlignedBuf::zeros`].
    pub(crate) fn for_overwrite(op: &'static str, len: usize) -> crate::Result<Self> {
        #[cfg(unix)]
        let recycled = match T::DTYPE {
            crate::dtype::Dtype::Bool => None,
            _ => Self::recycled(len),
        };
        #[cfg(not(unix))]
        let recycled = None;
        let mut buf = match recycled {
            Some(b) => b,
            None => Self::zeros(op, len)?,
        };
        if cfg!(debug_assertions) && T::DTYPE != crate::dtype::Dtype::Bool {
            // SAFETY: the buffer holds `len` elements; 0xFF bytes are a valid non-bool element.
            unsafe { std::ptr::write_bytes(buf.as_mut_ptr() as *mut u8, 0xFF, len * T::SIZE) };
        }
        Ok(buf)
    }

    /// `len` zero elements (all-zero bytes are zero for every element type).
    ///
    /// # Errors
    /// `ShapeOverflow` when `len * size_of::<T>()` exceeds [`crate::shape::MAX_BYTES`] (less
    /// the alignment slack); `OutOfMemory` when the system refuses the memory. Never aborts.
    #[inline(always)]
    pub fn zeros(op: &'static str, len: usize) -> crate::Result<Self> {
        // A block from this thread's cache, inline: a call returning the buffer through memory
        // cost more than the cache itself.
        if len != 0
            && len <= super::buf_cache::MAX_BYTES / T::SIZE
            && let Some(base) = super::buf_cache::take((len * T::SIZE).next_multiple_of(CPU_ALIGN))
        {
            // SAFETY: as in `allocate`: the aligned start lies in the block's slack, and the
            // block holds `len * T::SIZE` bytes after it; zero bytes are valid elements.
            unsafe {
                let p = base.add(base.align_offset(CPU_ALIGN));
                std::ptr::write_bytes(p, 0, len * T::SIZE);
                return Ok(AlignedBuf {
                    ptr: NonNull::new_unchecked(p as *mut T),
                    len,
                    mapping: None,
                    base,
                });
            }
        }
        Self::allocate(op, len)
    }

    /// [`AlignedBuf::zeros`] from the allocator or the kernel.
    fn allocate(op: &'static str, len: usize) -> crate::Result<Self> {
        let too_big = || crate::Error::ShapeOverflow {
            op,
            dims: vec![len],
        };
        let bytes = len.checked_mul(T::SIZE).ok_or_else(too_big)?;
        if bytes > isize::MAX as usize - HUGE_PAGE {
            return Err(too_big());
        }
        crate::alloc::check_bytes(op, bytes)?;
        if bytes == 0 {
            return Ok(AlignedBuf {
                ptr: NonNull::dangling(),
                len,
                mapping: None,
                base: std::ptr::null_mut(),
            });
        }
        #[cfg(unix)]
        if bytes >= MMAP_THRESHOLD {
            if let Some(mut buf) = Self::recycled(len) {
                // SAFETY: the mapping holds `bytes` writable bytes from `ptr`.
                unsafe { std::ptr::write_bytes(buf.as_mut_ptr() as *mut u8, 0, bytes) };
                return Ok(buf);
            }
            if let Some((base, map_len, data)) = Self::map(bytes)
                && let Some(ptr) = NonNull::new(data as *mut T)
            {
                return Ok(AlignedBuf {
                    ptr,
                    len,
                    mapping: Some((base, map_len)),
                    base,
                });
            }
        }
        // glibc's `calloc` skips its per-thread cache (tcache), which `malloc` uses: small
        // buffers are allocated uninitialised and zeroed here (issue 26).
        let small = bytes <= SMALL_BYTES;
        // SAFETY: non-zero size, valid layout.
        let base = unsafe {
            if small {
                alloc::alloc(Self::layout(len))
            } else {
                alloc::alloc_zeroed(Self::layout(len))
            }
        };
        if base.is_null() {
            return Err(crate::Error::OutOfMemory { op, bytes });
        }
        // SAFETY: the allocation has CPU_ALIGN - HEAP_ALIGN bytes of slack before the rounded
        // size, and `base` is HEAP_ALIGN-aligned, so the aligned start stays inside it.
        let p = unsafe { base.add(base.align_offset(CPU_ALIGN)) } as *mut T;
        if small {
            // SAFETY: `p` starts `bytes` writable bytes inside the allocation; T is Zeroable,
            // so zero bytes are valid elements.
            unsafe { std::ptr::write_bytes(p as *mut u8, 0, bytes) };
        }
        Ok(AlignedBuf {
            ptr: NonNull::new(p).expect("inside a non-null allocation"),
            len,
            mapping: None,
            base,
        })
    }
    /// The `len` elements stored in `file` at byte `offset`, mapped copy-on-write
    /// (`MAP_PRIVATE`): pages are read from the page cache when first touched, and a write copies
    /// the page, so the file never changes. `None` (the caller copies instead) for bool, whose
    /// bytes may not be 0 or 1, for an offset not aligned to `T`, an empty buffer, or when the
    /// system refuses the mapping.
    ///
    /// # Safety
    /// The file must not be truncated or written while the buffer lives: reading a page that
    /// the file no longer has raises SIGBUS, and writes by others change the elements.
    #[cfg(unix)]
    pub(crate) unsafe fn map_file(file: &std::fs::File, offset: u64, len: usize) -> Option<Self> {
        use std::os::fd::AsRawFd;
        let bytes = len.checked_mul(T::SIZE)?;
        if T::DTYPE == crate::dtype::Dtype::Bool
            || bytes == 0
            || !offset.is_multiple_of(std::mem::align_of::<T>() as u64)
        {
            return None;
        }
        // SAFETY: sysconf has no preconditions.
        let page = u64::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).ok()?;
        let start = offset - offset % page;
        let lead = usize::try_from(offset - start).ok()?;
        let map_len = lead.checked_add(bytes)?;
        // SAFETY: a private read-write mapping of an open file, checked for MAP_FAILED; the
        // caller guarantees the file keeps these bytes while the mapping lives.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                libc::off_t::try_from(start).ok()?,
            )
        };
        if base == libc::MAP_FAILED {
            return None;
        }
        let base = base as *mut u8;
        // SAFETY: `lead < page <= map_len`, inside the mapping; aligned for T since the page is
        // and `offset` is.
        let ptr = NonNull::new(unsafe { base.add(lead) } as *mut T)?;
        Some(AlignedBuf {
            ptr,
            len,
            mapping: Some((base, map_len)),
            base: std::ptr::null_mut(),
        })
    }

    /// A buffer holding a copy of `data`.
    ///
    /// # Errors
    /// `OutOfMemory` as [`AlignedBuf::zeros`].
    pub fn from_slice(op: &'static str, data: &[T]) -> crate::Result<Self> {
        let mut b = Self::zeros(op, data.len())?;
        b.copy_from_slice(data);
        Ok(b)
    }
    /// Bytes allocated (0 for an empty buffer): the 64-byte rounded size (the allocator's
    /// alignment slack, at most 48 bytes, is not counted, like its chunk headers), or the
    /// whole mapping.
    pub fn allocated_bytes(&self) -> usize {
        match self.mapping {
            Some((_, l)) => l,
            None if self.len * T::SIZE == 0 => 0,
            None => (self.len * T::SIZE).next_multiple_of(CPU_ALIGN),
        }
    }
}

impl<T: Element> std::ops::Deref for AlignedBuf<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: ptr is valid for len initialised elements (or dangling with len*size == 0).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}
impl<T: Element> std::ops::DerefMut for AlignedBuf<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as above, and we hold &mut self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Element> Drop for AlignedBuf<T> {
    fn drop(&mut self) {
        if let Some((_base, _map_len)) = self.mapping {
            // An anonymous mapping is kept for reuse when the cache takes it.
            #[cfg(unix)]
            if _base != self.base || !super::map_cache::give(_base, _map_len) {
                // SAFETY: the mapping was created in `map` or `map_file` with exactly this
                // base and length.
                unsafe {
                    libc::munmap(_base as *mut libc::c_void, _map_len);
                }
            }
        } else if !self.base.is_null()
            && !super::buf_cache::give(self.base, (self.len * T::SIZE).next_multiple_of(CPU_ALIGN))
        {
            // SAFETY: allocated in `zeros` at `base` with this layout.
            unsafe { alloc::dealloc(self.base, Self::layout(self.len)) }
        }
    }
}

/// A shared handle to a host buffer. Readers and writers lock it; an op that would read and
/// write the same buffer copies its input first.
pub type CpuStorage<T> = Arc<RwLock<AlignedBuf<T>>>;

/// The host as a device (a unit type: there is one CPU).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cpu;

impl sealed::Sealed for Cpu {}

impl RawDevice for Cpu {
    type Storage<T: Element> = CpuStorage<T>;
    const KIND: DeviceKind = DeviceKind::Cpu;
    fn index(&self) -> DeviceIndex {
        DeviceIndex::cpu()
    }
    fn zeros<T: Element>(&self, len: usize) -> crate::Result<CpuStorage<T>> {
        Ok(Arc::new(RwLock::new(AlignedBuf::zeros("alloc", len)?)))
    }
    fn for_overwrite<T: Element>(&self, len: usize) -> crate::Result<CpuStorage<T>> {
        Ok(Arc::new(RwLock::new(AlignedBuf::for_overwrite(
            "alloc", len,
        )?)))
    }
    fn allocated_bytes<T: Element>(s: &CpuStorage<T>) -> usize {
        match crate::tensor::read("allocated_bytes", s) {
            Ok(g) => g.allocated_bytes(),
            Err(e) => panic!("{e}"),
        }
    }
    fn same_storage<T: Element>(a: &CpuStorage<T>, b: &CpuStorage<T>) -> bool {
        Arc::ptr_eq(a, b)
    }
    fn is_unique<T: Element>(s: &CpuStorage<T>) -> bool {
        Arc::strong_count(s) == 1 && Arc::weak_count(s) == 0
    }
    fn storage_id<T: Element>(s: &CpuStorage<T>) -> usize {
        Arc::as_ptr(s) as *const u8 as usize
    }
    fn upload<T: Element>(&self, data: &[T]) -> crate::Result<CpuStorage<T>> {
        Ok(Arc::new(RwLock::new(AlignedBuf::from_slice(
            "upload", data,
        )?)))
    }
    fn download<T: Element>(&self, s: &CpuStorage<T>) -> crate::Result<Vec<T>> {
        let g = crate::tensor::read("download", s)?;
        let mut v = crate::alloc::with_capacity("download", g.len())?;
        v.extend_from_slice(&g);
        Ok(v)
    }
}
