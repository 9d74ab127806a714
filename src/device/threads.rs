//! The CPU's thread count (PyTorch's `torch.get_num_threads`/`set_num_threads`): the CPU
//! kernels split large ops across rayon's global pool.

use crate::error::{Error, Result};

/// The number of threads the CPU kernels split work across (PyTorch `get_num_threads`):
/// rayon's global pool, sized from `RAYON_NUM_THREADS` or the number of cores. Starts the
/// pool if nothing has yet.
///
/// ```
/// assert!(typed_tensor::get_num_threads() >= 1);
/// ```
pub fn get_num_threads() -> usize {
    rayon::current_num_threads()
}

/// Sizes the CPU kernels' thread pool (PyTorch `set_num_threads`). rayon's global pool is
/// built once, at the first parallel op or here, so call this first thing in `main`, or set
/// `RAYON_NUM_THREADS` in the environment; asking for the size the pool already has is `Ok`.
///
/// # Errors
/// `InvalidArgument` for 0 threads, or when the pool already runs with another size (it
/// cannot be resized; the message names both sizes).
pub fn set_num_threads(n: usize) -> Result<()> {
    const OP: &str = "set_num_threads";
    if n == 0 {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: "the thread count must be at least 1".into(),
        });
    }
    match rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build_global()
    {
        Ok(()) => Ok(()),
        Err(_) if rayon::current_num_threads() == n => Ok(()),
        Err(e) => Err(Error::InvalidArgument {
            op: OP,
            msg: format!(
                "the CPU thread pool already runs {} threads and cannot be resized to {n} ({e}); call set_num_threads before the first tensor op, or set RAYON_NUM_THREADS",
                rayon::current_num_threads()
            ),
        }),
    }
}
