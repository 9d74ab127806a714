//! Version counters for the buffers a live graph saved (PyTorch's `_version`): an in-place
//! write bumps the counter of its buffer, and `backward` refuses a node whose saved tensors
//! changed since the forward pass, instead of computing a wrong gradient. Only buffers that
//! some node saved are counted, so plain code pays one atomic load per in-place op.

use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::LazyLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Number of registrations alive (0: nothing to count, the fast path).
static LIVE: AtomicUsize = AtomicUsize::new(0);
/// Buffer id → (version, registrations).
static VERSIONS: LazyLock<Mutex<HashMap<usize, (u64, usize)>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// Records an in-place write to the buffer `id`.
pub(crate) fn bump(id: usize) {
    if LIVE.load(Ordering::Acquire) == 0 {
        return;
    }
    if let Some(e) = VERSIONS.lock().get_mut(&id) {
        e.0 += 1;
    }
}

/// Whether a live graph holds the buffer `id` for its backward pass.
pub(crate) fn is_saved(id: usize) -> bool {
    LIVE.load(Ordering::Acquire) > 0 && VERSIONS.lock().contains_key(&id)
}

/// A saved buffer's version at save time; counting stops when the last one for a buffer drops.
pub(crate) struct Registration {
    id: usize,
    version: u64,
}

impl Registration {
    pub(crate) fn new(id: usize) -> Self {
        let mut map = VERSIONS.lock();
        let e = map.entry(id).or_insert((0, 0));
        e.1 += 1;
        LIVE.fetch_add(1, Ordering::AcqRel);
        Registration { id, version: e.0 }
    }

    /// The number of in-place writes to the buffer since it was saved.
    pub(crate) fn writes_since(&self) -> u64 {
        VERSIONS
            .lock()
            .get(&self.id)
            .map_or(0, |e| e.0 - self.version)
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut map = VERSIONS.lock();
        if let Some(e) = map.get_mut(&self.id) {
            e.1 -= 1;
            if e.1 == 0 {
                map.remove(&self.id);
            }
        }
        LIVE.fetch_sub(1, Ordering::AcqRel);
    }
}
