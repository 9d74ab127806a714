//! CUDA: kernel-table coverage and NVRTC compile checks (everywhere), the no-driver errors, and
//! GPU results against the CPU (only where a device exists; otherwise they say they skipped).

use crate::common::{assert_close, tol};
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
    use typed_tensor::backend::cuda::device::compile_ptx;
    if !nvrtc_or_skip("nvrtc_compiles_every_kernel") {
        return;
    }
    let ptxas = std::env::var("TYPED_TENSOR_PTXAS").ok();
    let mut total = 0;
    for m in Module::ALL {
        let ptx =
            compile_ptx(m.name(), &m.source(), "compute_80").unwrap_or_else(|e| panic!("{e}"));
        if let Some(ptxas) = &ptxas {
            assemble(ptxas, m.name(), &ptx);
        }
        for s in symbols(m) {
            assert!(
                ptx.contains(&format!(".entry {s}(")),
                "{s} is not in the PTX of {}",
                m.name()
            );
            total += 1;
        }
    }
    assert!(total > 400, "only {total} kernels");
}

/// Runs ptxas (CI sets TYPED_TENSOR_PTXAS to the one from the `nvidia-cuda-nvcc` wheel) on a
/// module's PTX for sm_90, which checks what NVRTC passes through unread: inline PTX.
#[cfg(feature = "cuda")]
fn assemble(ptxas: &str, name: &str, ptx: &str) {
    let dir = std::env::temp_dir().join(format!("typed-tensor-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{name}.ptx"));
    std::fs::write(&file, ptx).unwrap();
    let out = std::process::Command::new(ptxas)
        .args(["-arch=sm_90", "-o", "/dev/null"])
        .arg(&file)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {ptxas}: {e}"));
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

/// Element-wise ops, casts and reductions on the GPU equal the CPU's, for contiguous,
/// transposed and broadcast inputs.
#[test]
fn gpu_matches_cpu() {
    let Some(dev) = gpu("gpu_matches_cpu") else {
        return;
    };
    fn run<T: NumElement>(dev: &Cuda) {
        let d = T::DTYPE;
        let rel = tol(d).max(tol(d.float_of())) * 4.0;
        let a = Tensor::<T>::from_vec(sample::<T>(24), [4, 6]).unwrap();
        let b = Tensor::<T>::from_vec(sample::<T>(30)[6..].to_vec(), [4, 6]).unwrap();
        let (ga, gb) = (a.to_cuda(dev).unwrap(), b.to_cuda(dev).unwrap());
        same(ga.to_vec(), a.to_vec(), "round trip");
        // Strided and broadcast layouts.
        let at = a.t();
        let gat = ga.t();
        same(gat.contiguous().to_vec(), at.to_vec(), "copy");
        same(gat.deep_copy().to_vec(), at.to_vec(), "deep_copy");
        same(
            ga.narrow(0, 1, 2).unwrap().deep_copy().to_vec(),
            a.narrow(0, 1, 2).unwrap().to_vec(),
            "narrowed deep_copy",
        );
        let row = b.narrow(0, 1, 1).unwrap();
        let grow = gb.narrow(0, 1, 1).unwrap();
        // Unary.
        assert_close(&f64v(ga.sin().to_vec()), &f64v(a.sin().to_vec()), rel);
        assert_close(&f64v(gat.exp().to_vec()), &f64v(at.exp().to_vec()), rel);
        assert_close(&f64v(ga.sqrt().to_vec()), &f64v(a.sqrt().to_vec()), rel);
        same(gat.neg().to_vec(), at.neg().to_vec(), "neg");
        assert_close(&f64v(ga.round().to_vec()), &f64v(a.round().to_vec()), 0.0);
        // clip keeps NaN, clamps infinities; min > max is the CPU's Err.
        let (lo, hi) = (T::from_f64(-2.0), T::from_f64(3.0));
        same(ga.clip(lo, hi).to_vec(), a.clip(lo, hi).to_vec(), "clip");
        same(gat.clip(lo, lo).to_vec(), at.clip(lo, lo).to_vec(), "clip");
        assert_eq!(
            ga.try_clip(hi, lo).unwrap_err().to_string(),
            a.try_clip(hi, lo).unwrap_err().to_string()
        );
        // A contiguous view at an offset of 6 elements: unaligned for packs, element by element.
        let (cn, gn) = (a.narrow(0, 1, 3).unwrap(), ga.narrow(0, 1, 3).unwrap());
        assert_close(&f64v(gn.exp().to_vec()), &f64v(cn.exp().to_vec()), rel);
        assert_close(
            &f64v(gn.try_sub(&gn.flip(&[0]).unwrap()).unwrap().to_vec()),
            &f64v(cn.try_sub(&cn.flip(&[0]).unwrap()).unwrap().to_vec()),
            rel,
        );
        same(
            gn.cast::<i16>().to_vec(),
            cn.cast::<i16>().to_vec(),
            "offset cast",
        );
        // Binary with broadcasting.
        assert_close(
            &f64v(ga.try_add(&grow).unwrap().to_vec()),
            &f64v(a.try_add(&row).unwrap().to_vec()),
            rel,
        );
        assert_close(
            &f64v(gat.try_mul(&gat).unwrap().to_vec()),
            &f64v(at.try_mul(&at).unwrap().to_vec()),
            rel,
        );
        assert_close(
            &f64v(ga.try_maximum(&gb).unwrap().to_vec()),
            &f64v(a.try_maximum(&b).unwrap().to_vec()),
            0.0,
        );
        assert_eq!(
            ga.try_lt(&grow).unwrap().to_vec(),
            a.try_lt(&row).unwrap().to_vec(),
            "lt {d}"
        );
        let nz = Tensor::<T>::from_vec(vec![T::from_f64(3.0); 6], [6]).unwrap();
        let gnz = nz.to_cuda(dev).unwrap();
        assert_close(
            &f64v(ga.try_remainder(&gnz).unwrap().to_vec()),
            &f64v(a.try_remainder(&nz).unwrap().to_vec()),
            rel,
        );
        assert_close(
            &f64v(ga.try_floor_divide(&gnz).unwrap().to_vec()),
            &f64v(a.try_floor_divide(&nz).unwrap().to_vec()),
            rel,
        );
        if !d.is_float() {
            let z = Tensor::<T>::zeros([6]).unwrap().to_cuda(dev).unwrap();
            let ec = a.try_div(&z.to_cpu()).unwrap_err().to_string();
            let eg = ga
                .try_div(&z)
                .expect_err("integer division by zero is an Err")
                .to_string();
            assert_eq!(ec, eg);
        }
        // Casts.
        assert_eq!(
            ga.cast::<i32>().to_vec(),
            a.cast::<i32>().to_vec(),
            "cast {d}->i32"
        );
        assert_eq!(
            gat.cast::<u8>().to_vec(),
            at.cast::<u8>().to_vec(),
            "cast {d}->u8"
        );
        assert_close(
            &f64v(ga.cast::<f32>().to_vec()),
            &f64v(a.cast::<f32>().to_vec()),
            0.0,
        );
        // Reductions: every axis set, keepdim both ways, on the transposed view too.
        let finite = Tensor::<T>::from_vec(sample::<T>(32)[8..].to_vec(), [2, 3, 4]).unwrap();
        let gf = finite.to_cuda(dev).unwrap();
        for axes in [&[][..], &[0], &[1], &[2], &[0, 1], &[0, 2], &[-1, -2]] {
            for keep in [false, true] {
                let (c, g) = (finite.sum(axes, keep), gf.sum(axes, keep));
                assert_eq!(g.dims(), c.dims());
                assert_close(&f64v(g.to_vec()), &f64v(c.to_vec()), rel * 8.0);
                assert_eq!(
                    gf.argmax(axes, keep).to_vec(),
                    finite.argmax(axes, keep).to_vec()
                );
                assert_eq!(
                    gf.argmin(axes, keep).to_vec(),
                    finite.argmin(axes, keep).to_vec()
                );
                assert_close(
                    &f64v(gf.max(axes, keep).to_vec()),
                    &f64v(finite.max(axes, keep).to_vec()),
                    0.0,
                );
                for corr in [0, 1] {
                    assert_close(
                        &f64v(gf.var(axes, corr, keep).to_vec()),
                        &f64v(finite.var(axes, corr, keep).to_vec()),
                        rel * 8.0,
                    );
                }
                assert_close(
                    &f64v(gf.std(axes, 1, keep).to_vec()),
                    &f64v(finite.std(axes, 1, keep).to_vec()),
                    rel * 8.0,
                );
                assert_eq!(gf.any(axes, keep).to_vec(), finite.any(axes, keep).to_vec());
                assert_eq!(gf.all(axes, keep).to_vec(), finite.all(axes, keep).to_vec());
            }
        }
        // any/all see NaN and -0.0 as the CPU does; var of one element with correction 1 is NaN.
        assert_eq!(ga.any(&[1], false).to_vec(), a.any(&[1], false).to_vec());
        assert_eq!(ga.all(&[0], false).to_vec(), a.all(&[0], false).to_vec());
        assert_close(
            &f64v(ga.narrow(0, 0, 1).unwrap().var(&[0], 1, false).to_vec()),
            &f64v(a.narrow(0, 0, 1).unwrap().var(&[0], 1, false).to_vec()),
            0.0,
        );
        // A narrowed (offset) view reduces its own elements.
        let (cn, gn) = (finite.narrow(0, 1, 1).unwrap(), gf.narrow(0, 1, 1).unwrap());
        assert_close(
            &f64v(gn.sum(&[2], false).to_vec()),
            &f64v(cn.sum(&[2], false).to_vec()),
            rel * 8.0,
        );
        // NaN rules (first rows of `a` hold NaN and infinities for float types).
        assert_eq!(
            ga.argmax(&[1], false).to_vec(),
            a.argmax(&[1], false).to_vec()
        );
        assert_close(
            &f64v(gat.max(&[0], false).to_vec()),
            &f64v(at.max(&[0], false).to_vec()),
            0.0,
        );
        // matmul: 2-d, transposed operand, broadcast batch, 1-d operands.
        let x = Tensor::<T>::from_vec(
            (0..24).map(|i| T::from_f64((i % 5) as f64 - 2.0)).collect(),
            [2, 3, 4],
        )
        .unwrap();
        let y = Tensor::<T>::from_vec(
            (0..20).map(|i| T::from_f64((i % 7) as f64 - 3.0)).collect(),
            [4, 5],
        )
        .unwrap();
        let (gx, gy) = (x.to_cuda(dev).unwrap(), y.to_cuda(dev).unwrap());
        let mm = |g: Tensor<T, Cuda>, c: Tensor<T>| {
            assert_eq!(g.dims(), c.dims(), "matmul dims {d}");
            assert_close(&f64v(g.to_vec()), &f64v(c.to_vec()), rel * 16.0);
        };
        mm(gx.matmul(&gy), x.matmul(&y));
        mm(gy.t().matmul(&gy), y.t().matmul(&y));
        let v = y.narrow(1, 0, 1).unwrap().squeeze();
        mm(gx.matmul(&v.to_cuda(dev).unwrap()), x.matmul(&v));
        mm(v.to_cuda(dev).unwrap().matmul(&gy), v.matmul(&y));
        assert_eq!(
            gx.try_matmul(&gx).err().map(|e| e.to_string()),
            x.try_matmul(&x).err().map(|e| e.to_string()),
            "shape errors match"
        );
        // Empty.
        let e = Tensor::<T>::zeros([3, 0]).unwrap().to_cuda(dev).unwrap();
        assert_eq!(f64v(e.sum(&[1], false).to_vec()), vec![0.0; 3]);
        assert!(e.try_max(&[1], false).is_err());
    }
    for_types!(run(&dev): f32, f64, f16, bf16, i16, i32, i64, u8);
}
