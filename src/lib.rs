#![doc = include_str!("../README.md")]
#![deny(missing_docs)]
// Index loops over several parallel arrays (shape, strides, offsets) read better than zips.
#![allow(clippy::needless_range_loop)]

mod alloc;
pub mod autograd;
pub mod backend;
pub mod complex;
pub mod data;
pub mod device;
pub mod distributions;
pub mod dtype;
pub mod dynamic;
pub mod error;
pub mod fft;
pub mod io;
pub mod nn;
pub mod ops;
pub mod optim;
pub mod shape;
pub mod tensor;

pub use autograd::{NoGradGuard, enable_grad, inference_mode, is_grad_enabled, no_grad};
pub use backend::Backend;
pub use device::{
    Cpu, Cuda, Device, DeviceIndex, DeviceKind, RawDevice, get_num_threads, set_num_threads,
};
pub use dtype::{
    Dtype, Element, FInfo, FloatElement, FloatOf, IInfo, IntElement, NumElement, SquareOf, SumOf,
    dtype_size, finfo, iinfo,
};
pub use error::{Error, Result};
pub use ops::reduce::*;
pub use shape::Shape;
pub use tensor::{
    Generator, NewAxis, PrintOptions, ReshapeDims, RngState, Slice, SliceArg, Tensor,
    get_printoptions, get_rng_state, initial_seed, manual_seed, seed, set_printoptions,
    set_rng_state,
};

/// Everything a program needs: `use typed_tensor::prelude::*;`.
pub mod prelude {
    pub use crate::autograd::{NoGradGuard, is_grad_enabled, no_grad};
    pub use crate::backend::Backend;
    pub use crate::device::{Cpu, Cuda, Device, DeviceIndex, DeviceKind, RawDevice};
    pub use crate::dtype::{
        Dtype, Element, FloatElement, FloatOf, IntElement, NumElement, SquareOf, SumOf, dtype_size,
    };
    pub use crate::dynamic::*;
    pub use crate::error::{Error, Result};
    pub use crate::ops::reduce::*;
    pub use crate::shape::Shape;
    pub use crate::tensor::{NewAxis, ReshapeDims, Slice, SliceArg, Tensor, manual_seed};
    pub use crate::{s, tensor};
    pub use half::{bf16, f16};
}

pub use half::{bf16, f16};
