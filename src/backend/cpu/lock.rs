//! Locking host storage. The rules (also in the crate docs):
//! - readers and writers on different threads wait for each other; a read never waits for a
//!   queued writer while another read is held (`parking_lot`'s `read_recursive`), so one op
//!   may read the same buffer twice (`&a + &a`);
//! - a thread that already holds a conflicting guard on the same buffer (a live `data_mut()`
//!   while reading it, a live `data()`/`data_mut()` while writing it) gets an `Err` naming that
//!   guard instead of waiting for itself forever;
//! - an op holds at most one write guard, and when it also holds read guards it takes all of
//!   them in increasing address order ([`lock_with`]), so two ops can never wait on each other.
//! - the one op that writes several buffers, the fused Adam step (`optim.rs`), only try-locks
//!   them (as the small-tensor path of `small.rs` does) and composes the update instead when one
//!   is taken, so it never waits while holding a guard.

use crate::device::{AlignedBuf, CpuStorage};
use crate::dtype::Element;
use crate::error::{Error, Result};
use parking_lot::{RwLockReadGuard, RwLockWriteGuard};
use std::cell::RefCell;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

thread_local! {
    /// The buffers this thread holds guards on: (buffer id, is a write guard).
    static HELD: RefCell<Vec<(usize, bool)>> = const { RefCell::new(Vec::new()) };
}

/// The identity of a buffer (the address of its shared handle).
pub(crate) fn id<T: Element>(s: &CpuStorage<T>) -> usize {
    Arc::as_ptr(s) as *const () as usize
}

/// One entry of [`HELD`], removed when the guard that owns it drops.
struct Held(usize, bool);

impl Held {
    fn new(id: usize, write: bool) -> Self {
        HELD.with(|h| h.borrow_mut().push((id, write)));
        Held(id, write)
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        HELD.with(|h| {
            let mut h = h.borrow_mut();
            if let Some(i) = h.iter().rposition(|&e| e == (self.0, self.1)) {
                h.swap_remove(i);
            }
        });
    }
}

/// `Some(is_write)` when this thread holds a guard on buffer `id` (a write guard wins).
fn held(id: usize) -> Option<bool> {
    HELD.with(|h| {
        let h = h.borrow();
        let mut found = None;
        for &(i, w) in h.iter() {
            if i == id {
                found = Some(found.unwrap_or(false) || w);
            }
        }
        found
    })
}

fn conflict(op: &'static str, write_held: bool) -> Error {
    let (guard, want) = if write_held {
        ("a `data_mut()`/`grad_mut()` guard", "use")
    } else {
        ("a `data()`/`grad()` guard", "write")
    };
    Error::Layout {
        op,
        msg: format!(
            "this thread holds {guard} on the tensor's buffer (through this tensor, a view or a clone), so it cannot {want} it here without waiting for itself; drop that guard first"
        ),
    }
}

/// A read lock on a host buffer.
pub struct ReadGuard<'a, T: Element> {
    guard: RwLockReadGuard<'a, AlignedBuf<T>>,
    _held: Held,
}

impl<T: Element> Deref for ReadGuard<'_, T> {
    type Target = AlignedBuf<T>;
    fn deref(&self) -> &AlignedBuf<T> {
        &self.guard
    }
}

/// A write lock on a host buffer.
pub struct WriteGuard<'a, T: Element> {
    guard: RwLockWriteGuard<'a, AlignedBuf<T>>,
    _held: Held,
}

impl<T: Element> Deref for WriteGuard<'_, T> {
    type Target = AlignedBuf<T>;
    fn deref(&self) -> &AlignedBuf<T> {
        &self.guard
    }
}
impl<T: Element> DerefMut for WriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut AlignedBuf<T> {
        &mut self.guard
    }
}

/// Locks a host buffer for reading, waiting while another thread writes it.
///
/// # Errors
/// `Layout` when this thread holds a write guard on the same buffer.
pub(crate) fn read<'a, T: Element>(
    op: &'static str,
    s: &'a CpuStorage<T>,
) -> Result<ReadGuard<'a, T>> {
    let i = id(s);
    if held(i) == Some(true) {
        return Err(conflict(op, true));
    }
    let guard = s.read_recursive();
    Ok(ReadGuard {
        guard,
        _held: Held::new(i, false),
    })
}

/// Locks a host buffer for writing, waiting while other threads read or write it.
///
/// # Errors
/// `Layout` when this thread holds any guard on the same buffer.
pub(crate) fn write<'a, T: Element>(
    op: &'static str,
    s: &'a CpuStorage<T>,
) -> Result<WriteGuard<'a, T>> {
    let i = id(s);
    if let Some(w) = held(i) {
        return Err(conflict(op, w));
    }
    let guard = s.write();
    Ok(WriteGuard {
        guard,
        _held: Held::new(i, true),
    })
}

/// The inputs of an op that writes into an existing buffer: their read guards are taken
/// together with the output's write guard in address order (see the module docs).
pub(crate) trait Inputs<'a> {
    /// The read guards, in the order of the inputs.
    type Guards;
    /// The buffer ids of the inputs (a single input's twice).
    fn ids(&self) -> [usize; 2];
    /// Read guards on every input, and a write guard on `out` when given, taken in address
    /// order.
    fn lock_with<'o, O: Element>(
        &self,
        op: &'static str,
        out: Option<&'o CpuStorage<O>>,
    ) -> Result<(Self::Guards, Option<WriteGuard<'o, O>>)>;
}

impl<'a, A: Element> Inputs<'a> for &'a CpuStorage<A> {
    type Guards = ReadGuard<'a, A>;
    fn ids(&self) -> [usize; 2] {
        [id(self); 2]
    }
    fn lock_with<'o, O: Element>(
        &self,
        op: &'static str,
        out: Option<&'o CpuStorage<O>>,
    ) -> Result<(Self::Guards, Option<WriteGuard<'o, O>>)> {
        let (a, _, w) = lock3(op, self, None::<&CpuStorage<A>>, out)?;
        Ok((a, w))
    }
}

impl<'a, A: Element, B: Element> Inputs<'a> for (&'a CpuStorage<A>, &'a CpuStorage<B>) {
    type Guards = (ReadGuard<'a, A>, ReadGuard<'a, B>);
    fn ids(&self) -> [usize; 2] {
        [id(self.0), id(self.1)]
    }
    fn lock_with<'o, O: Element>(
        &self,
        op: &'static str,
        out: Option<&'o CpuStorage<O>>,
    ) -> Result<(Self::Guards, Option<WriteGuard<'o, O>>)> {
        let (a, b, w) = lock3(op, self.0, Some(self.1), out)?;
        Ok(((a, b.expect("asked for")), w))
    }
}

/// Read guards on `a` and `b` and a write guard on `out`, taken in increasing address order.
#[allow(clippy::type_complexity)]
fn lock3<'a, 'o, A: Element, B: Element, O: Element>(
    op: &'static str,
    a: &'a CpuStorage<A>,
    b: Option<&'a CpuStorage<B>>,
    out: Option<&'o CpuStorage<O>>,
) -> Result<(
    ReadGuard<'a, A>,
    Option<ReadGuard<'a, B>>,
    Option<WriteGuard<'o, O>>,
)> {
    // Absent operands sort last and are skipped.
    let mut order = [
        (id(a), 0u8),
        b.map_or((usize::MAX, 3), |b| (id(b), 1)),
        out.map_or((usize::MAX, 3), |o| (id(o), 2)),
    ];
    order.sort_unstable();
    let (mut ga, mut gb, mut go) = (None, None, None);
    for (_, which) in order {
        match which {
            0 => ga = Some(read(op, a)?),
            1 => gb = b.map(|b| read(op, b)).transpose()?,
            2 => go = out.map(|o| write(op, o)).transpose()?,
            _ => {}
        }
    }
    Ok((ga.expect("always locked"), gb, go))
}
