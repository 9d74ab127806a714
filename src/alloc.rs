//! Fallible host allocation for the `Vec`s that hold tensor data on its way in or out: a size
//! the system refuses is `Err(OutOfMemory)`, never an abort.

use crate::error::{Error, Result};

/// A `Vec` of `n` copies of `value`.
///
/// # Errors
/// `OutOfMemory` (naming `op` and the bytes) when the memory cannot be reserved.
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
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| Error::OutOfMemory {
        op,
        bytes: n.saturating_mul(std::mem::size_of::<T>()),
    })?;
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
