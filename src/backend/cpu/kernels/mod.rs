//! CPU kernels. They take slices and layouts and know nothing of `Tensor`, so each can be read,
//! tested and benchmarked alone.

pub mod convert;
#[cfg(feature = "linalg")]
pub mod linalg;
pub mod matmul;
pub mod norm;
pub mod reduce;
pub(crate) mod reducers;
pub mod rows;
pub mod strided;
pub mod transpose;
pub mod vmath;
