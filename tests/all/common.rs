//! Helpers shared by the test modules.

use typed_tensor::prelude::*;

/// Relative tolerance for one rounding of a result to `d`'s precision (half an ulp, doubled
/// for the f32 compute step of 16-bit floats).
pub fn tol(d: Dtype) -> f64 {
    match d {
        Dtype::Float64 => 1e-12,
        Dtype::Float32 => 1e-6,
        Dtype::Float16 => 1e-3,
        Dtype::Bfloat16 => 8e-3,
        _ => 0.0,
    }
}

/// Asserts `got` matches `want` element-wise within `rel` (relative, with an absolute floor of
/// `rel` for values near 0); NaN must meet NaN and infinities must match exactly.
#[track_caller]
pub fn assert_close(got: &[f64], want: &[f64], rel: f64) {
    assert_eq!(got.len(), want.len(), "length: got {got:?}, want {want:?}");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let ok = if w.is_nan() {
            g.is_nan()
        } else if w.is_infinite() {
            g == w
        } else {
            (g - w).abs() <= rel * w.abs().max(1.0)
        };
        assert!(
            ok,
            "element {i}: got {g}, want {w} (rel {rel}); got {got:?}, want {want:?}"
        );
    }
}

/// Whether `draw` gives equal results twice after `manual_seed(seed)`, in one of a few tries:
/// the generator is process-wide (as PyTorch's), so a test on another thread may draw from it
/// between the seed and the draw; one equal pair shows that the seed reproduces the values.
pub fn reproducible<V: PartialEq>(seed: u64, mut draw: impl FnMut() -> V) -> bool {
    (0..8).any(|_| {
        typed_tensor::manual_seed(seed);
        let a = draw();
        typed_tensor::manual_seed(seed);
        a == draw()
    })
}

/// A tensor's elements as f64.
pub fn f64s<T: Element>(t: &Tensor<T>) -> Vec<f64> {
    t.to_vec().iter().map(|x| x.to_f64()).collect()
}

/// A tensor's elements as f64, copied from any device.
pub fn host_f64s<T: Element, D: Backend>(t: &Tensor<T, D>) -> Vec<f64> {
    let host = t.to_device(&Cpu).unwrap();
    host.to_vec().iter().map(|x| x.to_f64()).collect()
}

/// A tensor of `T` from f64 values.
pub fn tensor<T: Element>(v: &[f64], shape: &[usize]) -> Tensor<T> {
    Tensor::from_vec(v.iter().map(|&x| T::from_f64(x)).collect(), shape).unwrap()
}

/// Runs a generic test body once per listed element type (optionally with one argument).
#[macro_export]
macro_rules! for_types {
    ($f:ident: $($t:ty),*) => {
        $( $f::<$t>(); )*
    };
    ($f:ident($arg:expr): $($t:ty),*) => {
        $( $f::<$t>($arg); )*
    };
    // With the device type inferred from the argument: `run::<T, _>(dev)`.
    ($f:ident($arg:expr): $($t:ty),*; _) => {
        $( $f::<$t, _>($arg); )*
    };
}

/// Runs one test body on every device: with `$dev` bound to `Cpu`, then to `cuda:0` when a
/// device is present (printing that the CUDA run skipped otherwise). The body is written once,
/// against `Backend`; where it compares with the CPU's results, its CPU run checks that the
/// body itself holds (every path taken, every `Err` the one expected).
#[macro_export]
macro_rules! on_every_device {
    ($test:literal, |$dev:ident| $body:block) => {{
        let $dev = typed_tensor::Cpu;
        $body
        if let Some($dev) = $crate::cuda::gpu($test) $body
    }};
}

/// `typed_tensor::autograd::gradcheck` of `f` at `x` with the composites' tolerances (1e-6
/// both), panicking with its `Err` under `name`; then [`check_grad_grad`].
#[track_caller]
pub(crate) fn check_grad(
    name: &str,
    f: &dyn Fn(&[Tensor<f64>]) -> Result<Tensor<f64>>,
    x: &[Tensor<f64>],
) {
    if let Err(e) = typed_tensor::autograd::gradcheck(f, x, 1e-6, 1e-6) {
        panic!("{name}: {e}");
    }
    check_grad_grad(name, f, x);
}

/// `typed_tensor::autograd::gradgradcheck` (the gradients recorded with `create_graph`,
/// against central differences of the plain ones) at finite inputs, where differences of
/// gradients are meaningful: so every first-order check also checks the rule run recorded.
#[track_caller]
pub(crate) fn check_grad_grad<D: Backend>(
    name: &str,
    f: &dyn Fn(&[Tensor<f64, D>]) -> Result<Tensor<f64, D>>,
    x: &[Tensor<f64, D>],
) {
    let finite = x.iter().all(|t| {
        t.try_to_vec()
            .is_ok_and(|v| v.iter().all(|e| e.is_finite()))
    });
    if finite && let Err(e) = typed_tensor::autograd::gradgradcheck(f, x, 1e-5, 1e-4) {
        panic!("{name} (second derivatives, create_graph): {e}");
    }
}
