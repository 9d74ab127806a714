//! CUDA only: kernel-table coverage and NVRTC compile checks (everywhere), the no-driver errors,
//! `DynTensor` across devices (where a device exists), and the helpers of the tests that run
//! on every device (`devices.rs`, `devices_composed.rs`, `generic.rs`, `autograd_devices.rs`).

use crate::common::assert_close;
use crate::devices_composed::loose;
use half::{bf16, f16};
use typed_tensor::backend::cuda::kernels::table::{
    Module, NAN_REDUCTIONS, REDUCTIONS, SCANS, cast_root, symbol,
};
use typed_tensor::ops::{binary, compare, unary};
use typed_tensor::prelude::*;

fn symbols(m: Module) -> Vec<String> {
    m.instances().into_iter().map(|(_, s)| s).collect()
}

/// Every (op, dtype) pair that the typed CUDA API can name has an instantiation line.
#[test]
fn kernel_table_covers_the_typed_ops() {
    fn check<T: Element>(numeric: bool) {
        let has = |m: Module, s: String| assert!(symbols(m).contains(&s), "{s} missing from {m:?}");
        for root in unary::float_ops::NAMES {
            has(Module::Unary, symbol::<T>(root));
        }
        for root in compare::NAMES {
            has(Module::Binary, symbol::<T>(root));
        }
        if numeric {
            for root in unary::same_ops::NAMES.iter().chain(binary::ops::NAMES) {
                let m = if unary::same_ops::NAMES.contains(root) {
                    Module::Unary
                } else {
                    Module::Binary
                };
                has(m, symbol::<T>(root));
            }
        }
        for root in REDUCTIONS.iter().chain(&SCANS) {
            has(Module::Reduce, symbol::<T>(root));
        }
        if T::DTYPE.is_float() {
            for root in NAN_REDUCTIONS {
                has(Module::Reduce, symbol::<T>(root));
            }
        }
        if numeric && !T::DTYPE.is_float() {
            has(Module::Matmul, symbol::<T>("matmul"));
        }
        has(Module::Cast, symbol::<T>("copy"));
        for root in ["where", "copy_to", "take", "gather", "argsort"] {
            has(Module::Index, symbol::<T>(root));
        }
        if numeric {
            has(Module::Index, symbol::<T>("arange"));
            has(Module::Index, symbol::<T>("scatter_add"));
        }
        if T::DTYPE.is_float() {
            has(Module::Index, symbol::<T>("rand"));
            has(Module::Index, symbol::<T>("randn"));
        }
        for d in Dtype::ALL {
            has(
                Module::Cast,
                format!("{}_{}", cast_root(d), T::KERNEL_SUFFIX),
            );
        }
    }
    check::<f32>(true);
    check::<f64>(true);
    check::<f16>(true);
    check::<bf16>(true);
    check::<i16>(true);
    check::<i32>(true);
    check::<i64>(true);
    check::<u8>(true);
    check::<bool>(false);
    // No symbol is instantiated twice.
    for m in Module::ALL {
        let mut s = symbols(m);
        let n = s.len();
        s.sort();
        s.dedup();
        assert_eq!(s.len(), n, "{m:?} instantiates a symbol twice");
    }
}

/// True when NVRTC can be loaded; CI sets TYPED_TENSOR_REQUIRE_NVRTC=1 so that a missing
/// library fails instead of skipping.
#[cfg(feature = "cuda")]
fn nvrtc_or_skip(test: &str) -> bool {
    use typed_tensor::backend::cuda::device::compile_ptx;
    let present = compile_ptx(
        "probe.cu",
        "extern \"C\" __global__ void k() {}",
        "compute_80",
    )
    .is_ok();
    if !present {
        assert!(
            std::env::var("TYPED_TENSOR_REQUIRE_NVRTC").is_err(),
            "{test}: TYPED_TENSOR_REQUIRE_NVRTC is set but NVRTC could not be loaded (LD_LIBRARY_PATH?)"
        );
        eprintln!("{test}: skipped, NVRTC (libnvrtc.so.13) not found");
    }
    present
}

/// Every module compiles for every element type, and every symbol of the table is an entry of
/// the PTX. Fails if a kernel source breaks.
#[cfg(feature = "cuda")]
#[test]
fn nvrtc_compiles_every_kernel() {
    use typed_tensor::backend::cuda::device::{compile_ptx, group_of};
    if !nvrtc_or_skip("nvrtc_compiles_every_kernel") {
        return;
    }
    let ptxas = std::env::var("TYPED_TENSOR_PTXAS").ok();
    let mut total = 0;
    for m in Module::ALL {
        // One dtype group (a symbol suffix) at a time; the launcher compiles each kernel
        // alone, which the loop below checks for every f32 kernel.
        let mut groups: Vec<String> = symbols(m).iter().map(|s| group_of(s).into()).collect();
        groups.sort();
        groups.dedup();
        for g in groups {
            let name = format!("{}_{g}", m.name());
            let ptx = compile_ptx(&name, &m.source_for_group(&g), "compute_80")
                .unwrap_or_else(|e| panic!("{e}"));
            if let Some(ptxas) = &ptxas {
                assemble(ptxas, &name, &ptx);
            }
            for s in symbols(m).into_iter().filter(|s| group_of(s) == g) {
                assert!(
                    ptx.contains(&format!(".entry {s}(")),
                    "{s} is not in the PTX of {name}"
                );
                total += 1;
            }
        }
    }
    assert!(total > 400, "only {total} kernels");
    // Each kernel alone, as the launcher compiles it (NVRTC only: the f32 kernels of every
    // module, about 0.05 s each).
    for m in Module::ALL {
        for s in symbols(m).into_iter().filter(|s| group_of(s) == "f32") {
            let ptx =
                compile_ptx(&s, &m.source_for(&s), "compute_80").unwrap_or_else(|e| panic!("{e}"));
            assert!(ptx.contains(&format!(".entry {s}(")), "{s} alone");
            assert_eq!(ptx.matches(".entry ").count(), 1, "{s} alone");
        }
    }
}

/// Runs ptxas (CI sets TYPED_TENSOR_PTXAS to the one from the `nvidia-cuda-nvcc` wheel) on a
/// module's PTX for sm_90, which checks what NVRTC passes through unread: inline PTX.
#[cfg(feature = "cuda")]
fn assemble(ptxas: &str, name: &str, ptx: &str) {
    // Under the target's scratch folder, removed once assembled (the modules' PTX is ~25 MB).
    let file = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.ptx"));
    std::fs::write(&file, ptx).unwrap();
    let out = std::process::Command::new(ptxas)
        .args(["-arch=sm_90", "-o", "/dev/null"])
        .arg(&file)
        .output();
    std::fs::remove_file(&file).unwrap();
    let out = out.unwrap_or_else(|e| panic!("cannot run {ptxas}: {e}"));
    assert!(
        out.status.success(),
        "ptxas rejects the PTX of {name}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A broken source is an `Err` carrying NVRTC's log, not a panic.
#[cfg(feature = "cuda")]
#[test]
fn nvrtc_error_carries_the_log() {
    use typed_tensor::backend::cuda::device::compile_ptx;
    if !nvrtc_or_skip("nvrtc_error_carries_the_log") {
        return;
    }
    let e = compile_ptx(
        "broken.cu",
        "extern \"C\" __global__ void k() { undefined_name; }",
        "compute_80",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("broken.cu") && e.contains("undefined_name"),
        "{e}"
    );
}

/// Without a device, opening one is a clear `Err`; with one, an absent ordinal says how many
/// there are.
#[test]
fn cuda_new_errors_are_clear() {
    let n = Cuda::device_count();
    let e = Cuda::new(n + 2).unwrap_err().to_string();
    if n == 0 {
        assert!(
            e.contains("no CUDA driver found")
                || e.contains("not present")
                || e.contains("no CUDA backend"),
            "{e}"
        );
    } else {
        let s = if n == 1 { "" } else { "s" };
        assert!(
            e.contains(&format!(
                "device {} not present; {n} device{s} available",
                n + 2
            )),
            "{e}"
        );
    }
}

pub(crate) fn gpu(test: &str) -> Option<Cuda> {
    if Cuda::device_count() == 0 {
        eprintln!("{test}: skipped, no CUDA device");
        return None;
    }
    Some(Cuda::new(0).expect("device 0 opens"))
}

pub(crate) fn f64v<T: Element>(v: Vec<T>) -> Vec<f64> {
    v.into_iter().map(|x| x.to_f64()).collect()
}

/// Equal element by element, bit for bit, where any NaN equals any NaN.
pub(crate) fn same<T: Element>(got: Vec<T>, want: Vec<T>, what: &str) {
    let key = |v: &[T]| -> Vec<Option<u64>> {
        v.iter()
            .map(|x| Some(x.to_f64()).filter(|f| !f.is_nan()).map(f64::to_bits))
            .collect()
    };
    assert_eq!(key(&got), key(&want), "{what} {}", T::DTYPE);
}

/// Values with NaN, infinities, zeros and negatives, as `T` (integers saturate).
pub(crate) fn sample<T: Element>(n: usize) -> Vec<T> {
    let special = [
        f64::NAN,
        f64::INFINITY,
        -f64::INFINITY,
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
    ];
    (0..n)
        .map(|i| {
            let x = if i < special.len() {
                special[i]
            } else {
                ((i * 37 % 101) as f64 - 50.0) / 7.0
            };
            T::from_f64(x)
        })
        .collect()
}

/// Every `DynTensor` op family on `cuda:0` gives the CPU's result; mixed devices are an `Err`
/// naming both; downcasts check the device.
#[test]
fn dyn_tensor_across_devices() {
    if gpu("dyn_tensor_across_devices").is_none() {
        return;
    }
    let cuda = DeviceIndex::cuda(0);
    for dtype in [
        Dtype::Float32,
        Dtype::Float64,
        Dtype::Float16,
        Dtype::Bfloat16,
        Dtype::Int32,
        Dtype::Int64,
    ] {
        let host = DynTensor::from_vec(
            (0..12).map(|i| i as f32 * 0.75 - 3.0).collect(),
            [3, 4],
            DeviceIndex::cpu(),
        )
        .unwrap()
        .to_dtype(dtype)
        .unwrap();
        let dev = host.to(cuda).unwrap();
        assert!(dev.is_cuda() && dev.device() == cuda);
        let f = |d: &DynTensor| {
            assert_eq!(d.is_cuda(), d.device() == cuda);
            d.to_dtype(Dtype::Float64).unwrap().to_vec::<f64>().unwrap()
        };
        let l = loose(dtype);
        let check = |op: &dyn Fn(&DynTensor) -> Result<DynTensor>, what: &str| {
            let (c, g) = (op(&host).unwrap(), op(&dev).unwrap());
            assert!(g.is_cuda(), "{what} left the device");
            assert_eq!((g.dtype(), g.shape()), (c.dtype(), c.shape()), "{what}");
            assert_close(&f(&g), &f(&c), l.max(1e-5));
        };
        check(&|t| t.sin(), "sin");
        check(&|t| t.abs(), "abs");
        check(&|t| t.square(), "square");
        check(&|t| t.pow(2), "pow");
        check(&|t| t.add_scalar(2), "add_scalar");
        check(&|t| t.mul_scalar(1.5), "mul_scalar");
        check(&|t| t.rsub_scalar(1), "rsub_scalar");
        check(&|t| t.add(&t.narrow(0, 0, 1)?), "broadcast add");
        check(
            &|t| t.maximum(&t.transpose(0, 1)?.transpose(0, 1)?),
            "maximum",
        );
        check(&|t| t.gt(&t.flip(&[1])?), "gt");
        check(&|t| reduce_sum(t, &[1], false), "reduce_sum");
        check(&|t| reduce_mean(t, &[0], true), "reduce_mean");
        check(&|t| reduce_argmax(t, &[1], false), "reduce_argmax");
        check(&|t| t.cumsum(1), "cumsum");
        check(&|t| t.matmul(&t.transpose(0, 1)?), "matmul");
        check(&|t| t.reshape([2, 6]), "reshape");
        check(&|t| t.transpose(0, 1)?.contiguous(), "contiguous");
        check(&|t| t.deep_copy(), "deep_copy");
        check(&|t| t.flatten(), "flatten");
        check(&|t| DynTensor::concat(&[t, t], 1), "concat");
        check(
            &|t| DynTensor::where_(&t.gt(&t.flip(&[0])?)?, t, &t.neg()?),
            "where_",
        );
        check(&|t| t.masked_fill(&t.lt(&t.flip(&[1])?)?, 7), "masked_fill");
        check(
            &|t| {
                let i = DynTensor::from_vec(vec![2i64, 0], [2], t.device())?;
                t.index_select(0, &i)
            },
            "index_select",
        );
        check(&|t| Ok(t.sort(1, true)?.0), "sort");
        check(&|t| t.tril(0), "tril");
        check(&|t| t.pad(&[(1, 0), (0, 2)], 1), "pad");
        check(&|t| t.norm(2.0, &[], false), "norm");
        check(&|t| t.to_dtype(Dtype::Int16), "to_dtype");
        if dtype.is_float() {
            check(&|t| reduce_nansum(t, &[0], false), "reduce_nansum");
            check(&|t| t.logsumexp(&[1], false), "logsumexp");
            let (mut c, mut g) = (host.deep_copy().unwrap(), dev.deep_copy().unwrap());
            sin_(&mut c).unwrap();
            sin_(&mut g).unwrap();
            assert_close(&f(&g), &f(&c), l.max(1e-5));
        } else {
            let mut g = dev.deep_copy().unwrap();
            assert!(sin_(&mut g).is_err());
            assert_eq!(f(&g), f(&dev), "a refused in-place op leaves the tensor");
        }
        // Element access, display and the device rules.
        let mut g = dev.deep_copy().unwrap();
        g.fill_(2).unwrap();
        assert!(f(&g).iter().all(|&x| x == 2.0));
        assert!(g.data::<f32>().is_err());
        // The same text, but the footer names the tensor's own device.
        let on_host = |s: String| s.replace("device=cuda:0)", "device=cpu)");
        assert!(dev.display(2).ends_with("device=cuda:0)"));
        assert_eq!(on_host(dev.display(2)), host.display(2));
        assert_eq!(on_host(format!("{dev:.3}")), format!("{host:.3}"));
        let err = host.add(&dev).unwrap_err().to_string();
        assert!(err.contains("cpu") && err.contains("cuda:0"), "{err}");
        assert!(matmul(&dev, &host).is_err());
        assert_eq!(dev.to_cpu().unwrap().device(), DeviceIndex::cpu());
        assert!(dev.to(cuda).unwrap().is_cuda());
    }
    let d = DynTensor::ones([2], TensorOptions::new().device(cuda)).unwrap();
    assert!(d.clone().downcast::<f32, Cuda>().is_ok());
    let err = d.clone().downcast::<f32, Cpu>().unwrap_err().to_string();
    assert!(err.contains("cuda:0"), "{err}");
    let r = DynTensor::randn([1000], TensorOptions::new().device(cuda)).unwrap();
    assert!(r.is_cuda());
    let m = f64::from(
        reduce_mean(&r, &[], false)
            .unwrap()
            .to_vec::<f32>()
            .unwrap()[0],
    );
    assert!(m.abs() < 0.2, "randn mean {m}");
    assert!(DynTensor::rand([2], TensorOptions::new().dtype(Dtype::Int32).device(cuda)).is_err());
}
