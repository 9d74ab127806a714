//! Compile-fail tests: misuse that the type system rejects, with the messages users see
//! (snapshots in `ui-tests/fail/*.stderr`, tied to the toolchain pinned in
//! `rust-toolchain.toml`). Regenerate with `TRYBUILD=overwrite cargo test ui`.
//!
//! Only compile-fail cases go through trybuild, so it runs `cargo check` (no code generation
//! for the dependencies); a trybuild `pass` case would make it build everything a second time.
//! The allowed counterparts of the rejected programs are an ordinary test below.

use typed_tensor::prelude::*;

#[test]
fn ui() {
    trybuild::TestCases::new().compile_fail("ui-tests/fail/*.rs");
}

/// What the rejected programs should have written instead compiles and runs.
#[test]
fn ui_allowed_counterparts() {
    let x = Tensor::<i32>::from_vec(vec![-1, 2, -3], [3]).unwrap();
    let s: Tensor<f32, Cpu> = x.sin(); // int sin gives f32
    let mut y = x.deep_copy();
    y.abs_().unwrap(); // in-place ops that keep the integer type exist
    y.pow_(2).unwrap();
    let f = Tensor::<f32>::ones([3]).unwrap();
    let sum = &x.cast::<f32>() + &f; // cast explicitly, then mix
    let _m: Tensor<f32, Cpu> = x.mean(&[], false);
    let _r = Tensor::<f32>::rand([2]).unwrap();
    assert_eq!(sum.to_vec(), vec![0.0, 3.0, -2.0]);
    assert_eq!(y.to_vec(), vec![1, 4, 9]);
    assert_eq!(s.dtype(), Dtype::Float32);
}
