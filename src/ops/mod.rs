//! The typed API: each op family in one file, each op defined once (a zero-sized op type or a
//! line in a macro table) over `D: Backend`; the CPU kernels and drivers are in `backend/cpu/`.

/// The plain forms of `try_` methods: each calls its `try_` twin and panics with the `Err`'s
/// message at the caller's location.
macro_rules! plain_forms {
    ($($(#[$doc:meta])* $name:ident, $try_name:ident ($($arg:ident: $ty:ty),*) -> $out:ty;)*) => {$(
        $(#[$doc])*
        ///
        /// # Panics
        #[doc = concat!("When [`Tensor::", stringify!($try_name), "`] returns an `Err`.")]
        #[track_caller]
        pub fn $name(&self $(, $arg: $ty)*) -> $out {
            self.$try_name($($arg),*).or_panic()
        }
    )*};
}
pub(crate) use plain_forms;

pub mod advanced;
pub mod aliases;
pub mod arrange;
mod bessel;
pub mod binary;
pub mod combine;
pub mod compare;
pub mod decomp;
pub mod device_ops;
pub mod edit;
pub mod eig;
pub mod einsum;
pub mod embed;
pub mod factor;
pub mod float_math;
pub mod histograms;
pub(crate) mod igamma;
pub mod index;
pub mod inplace;
pub mod lapack;
pub mod linalg;
pub mod linalg_ex;
pub mod lobpcg;
pub mod lowrank;
mod masked_write;
pub mod matmul;
pub mod matrix;
pub mod numeric;
pub mod numpy_arrays;
pub mod numpy_math;
pub mod numpy_names;
pub mod orthopoly;
pub mod pad;
pub mod pointwise;
pub mod poly;
mod promote;
pub mod random;
pub mod reduce;
pub mod sampling;
pub mod scan;
pub mod scatter;
pub mod scatter_reduce;
pub mod search;
pub mod segment;
pub mod sets;
pub mod signal;
mod special;
pub mod split;
pub mod stack;
pub mod stats;
pub mod torch_aliases;
pub mod torch_legacy;
pub mod torch_like;
pub mod torch_names;
pub mod unary;
pub mod view_copies;
pub mod windows;

pub(crate) use promote::converted;
pub use promote::promote;
