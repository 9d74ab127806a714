//! The one integration-test binary (one link step keeps `cargo test` fast).
#![allow(
    clippy::type_complexity,
    clippy::bool_assert_comparison,
    clippy::needless_range_loop,
    clippy::cloned_ref_to_slice_refs
)]

#[macro_use]
mod common;
mod autograd;
mod autograd_devices;
mod autograd_kinks;
mod complex;
mod core;
mod core_ops;
mod cuda;
mod custom_ops;
mod data;
mod devices;
mod devices_composed;
mod digits;
mod distributions;
mod distributions_extra;
mod distributions_more;
mod distributions_transformed;
mod dynamic;
mod dynamic_optim;
mod eig;
mod elementwise;
mod factor;
mod fft;
mod float_math;
mod generic;
mod generic_training;
mod grad_scaler;
mod higher_order;
mod hooks;
mod hostile;
mod indexing;
mod inplace;
mod interpolate;
mod io;
mod io_text;
mod kl_cross;
mod lapack;
mod linalg;
mod literals;
mod more_ops;
mod nn;
mod nn_extras;
mod nn_functional;
mod nn_init;
mod nn_modules;
mod nn_modules_more;
mod nn_more;
mod nn_seq;
mod numeric_search;
mod numpy_arrays;
mod numpy_extras;
mod numpy_more;
mod numpy_ops;
mod numpy_ref;
mod optim;
mod pad;
mod param_groups;
mod props;
mod reduce;
mod rows;
mod sampling;
mod segment;
mod softmax_axes;
mod special;
mod torch_extras;
mod torch_grad_ops;
mod torch_grads;
mod ui;
mod views_matmul;
