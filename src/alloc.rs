//! Fallible host allocation for the `Vec`s that hold tensor data on its way in or out: a size
//! the system refuses is `Err(OutOfMemory)`, never an abort.

use crate::error::{Error, Result};
use std::sync::OnceLock;

/// The machine's memory and swap in bytes (Linux's `/proc/meminfo`, read once), or `None`
/// where that cannot be read.
fn memory_and_swap() -> Option<usize> {
    static LIMIT: OnceLock<Option<usize>> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        let info = std::fs::read_to_string("/proc/meminfo").ok()?;
        let kib = |key: &str| -> Option<usize> {
            let line = info.lines().find(|l| l.starts_with(key))?;
            line[key.len()..]
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse()
                .ok()
        };
        kib("MemTotal:")?
            .checked_add(kib("SwapTotal:").unwrap_or(0))?
            .checked_mul(1024)
    })
}

/// `Err(OutOfMemory)` for one allocation of more bytes than the machine's memory and swap
/// together, before the system is asked. Linux refuses such a request itself by default
/// (`vm.overcommit_memory = 0`), but under `vm.overcommit_memory = 1` it grants it and kills
/// the process once the pages are touched; this check makes the error the same everywhere.
///
/// # Errors
/// `OutOfMemory` naming `op` and `bytes`.
pub(crate) fn check_bytes(op: &'static str, bytes: usize) -> Result<()> {
    match memory_and_swap() {
        Some(limit) if bytes > limit => Err(Error::OutOfMemory { op, bytes }),
        _ => Ok(()),
    }
}

/// A `Vec` of `n` copies of `value`.
///
/// # Errors
/// `OutOfMemory` (naming `op` and the bytes) when the memory cannot be reserved, or is more
/// than the machine has ([`check_bytes`]).
pub(crate) fn try_vec<T: Clone>(op: &'static str, n: usize, value: T) -> Result<Vec<T>> {
    let mut v = with_capacity(op, n)?;
    v.resize(n, value);
    Ok(v)
}

/// An empty `Vec` with room for `n` elements.
///
/// # Errors
/// `OutOfMemory` as [`try_vec`].
pub(crate) fn with_capacity<T>(op: &'static str, n: usize) -> Result<Vec<T>> {
    let bytes = n.saturating_mul(std::mem::size_of::<T>());
    check_bytes(op, bytes)?;
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| Error::OutOfMemory { op, bytes })?;
    Ok(v)
}

/// `iter` collected into a `Vec` reserved for `n` items up front (fallibly).
///
/// # Errors
/// `OutOfMemory` as [`try_vec`].
pub(crate) fn collect<T>(
    op: &'static str,
    n: usize,
    iter: impl Iterator<Item = T>,
) -> Result<Vec<T>> {
    let mut v = with_capacity(op, n)?;
    v.extend(iter);
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_than_memory_and_swap_is_refused_before_the_system_is_asked() {
        assert!(check_bytes("t", 1 << 20).is_ok());
        if let Some(limit) = memory_and_swap() {
            let e = check_bytes("t", limit + 1).unwrap_err();
            assert!(matches!(e, Error::OutOfMemory { op: "t", .. }), "{e}");
            assert!(with_capacity::<u64>("t", limit / 8 + 1).is_err());
        }
    }
}
