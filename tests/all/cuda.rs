//! CUDA: kernel-table coverage and NVRTC compile checks (everywhere), the no-driver errors, and
//! GPU results against the CPU (only where a device exists; otherwise they say they skipped).

use crate::common::{assert_close, tol};
use half::{bf16, f16};
use typed_tensor::ops::cuda::table::{
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
    use typed_tensor::device::cuda::compile_ptx;
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
    use typed_tensor::device::cuda::compile_ptx;
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
    use typed_tensor::device::cuda::compile_ptx;
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

fn f64v<T: Element>(v: Vec<T>) -> Vec<f64> {
    v.into_iter().map(|x| x.to_f64()).collect()
}

/// Equal element by element, bit for bit, where any NaN equals any NaN.
fn same<T: Element>(got: Vec<T>, want: Vec<T>, what: &str) {
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
        same(ga.to_vec().unwrap(), a.to_vec(), "round trip");
        // Strided and broadcast layouts.
        let at = a.t();
        let gat = ga.t();
        same(
            gat.contiguous().unwrap().to_vec().unwrap(),
            at.to_vec(),
            "copy",
        );
        same(
            gat.deep_copy().unwrap().to_vec().unwrap(),
            at.to_vec(),
            "deep_copy",
        );
        same(
            ga.narrow(0, 1, 2)
                .unwrap()
                .deep_copy()
                .unwrap()
                .to_vec()
                .unwrap(),
            a.narrow(0, 1, 2).unwrap().to_vec(),
            "narrowed deep_copy",
        );
        let row = b.narrow(0, 1, 1).unwrap();
        let grow = gb.narrow(0, 1, 1).unwrap();
        // Unary.
        assert_close(
            &f64v(ga.sin().unwrap().to_vec().unwrap()),
            &f64v(a.sin().to_vec()),
            rel,
        );
        assert_close(
            &f64v(gat.exp().unwrap().to_vec().unwrap()),
            &f64v(at.exp().to_vec()),
            rel,
        );
        assert_close(
            &f64v(ga.sqrt().unwrap().to_vec().unwrap()),
            &f64v(a.sqrt().to_vec()),
            rel,
        );
        same(
            gat.neg().unwrap().to_vec().unwrap(),
            at.neg().to_vec(),
            "neg",
        );
        assert_close(
            &f64v(ga.round().unwrap().to_vec().unwrap()),
            &f64v(a.round().to_vec()),
            0.0,
        );
        // clip keeps NaN, clamps infinities; min > max is the CPU's Err.
        let (lo, hi) = (T::from_f64(-2.0), T::from_f64(3.0));
        same(
            ga.clip(lo, hi).unwrap().to_vec().unwrap(),
            a.clip(lo, hi).unwrap().to_vec(),
            "clip",
        );
        same(
            gat.clip(lo, lo).unwrap().to_vec().unwrap(),
            at.clip(lo, lo).unwrap().to_vec(),
            "clip",
        );
        assert_eq!(
            ga.clip(hi, lo).unwrap_err().to_string(),
            a.clip(hi, lo).unwrap_err().to_string()
        );
        // A contiguous view at an offset of 6 elements: unaligned for packs, element by element.
        let (cn, gn) = (a.narrow(0, 1, 3).unwrap(), ga.narrow(0, 1, 3).unwrap());
        assert_close(
            &f64v(gn.exp().unwrap().to_vec().unwrap()),
            &f64v(cn.exp().to_vec()),
            rel,
        );
        assert_close(
            &f64v(
                gn.try_sub(&gn.flip(&[0]).unwrap())
                    .unwrap()
                    .to_vec()
                    .unwrap(),
            ),
            &f64v(cn.try_sub(&cn.flip(&[0]).unwrap()).unwrap().to_vec()),
            rel,
        );
        same(
            gn.cast::<i16>().unwrap().to_vec().unwrap(),
            cn.cast::<i16>().to_vec(),
            "offset cast",
        );
        // Binary with broadcasting.
        assert_close(
            &f64v(ga.try_add(&grow).unwrap().to_vec().unwrap()),
            &f64v(a.try_add(&row).unwrap().to_vec()),
            rel,
        );
        assert_close(
            &f64v(gat.try_mul(&gat).unwrap().to_vec().unwrap()),
            &f64v(at.try_mul(&at).unwrap().to_vec()),
            rel,
        );
        assert_close(
            &f64v(ga.try_maximum(&gb).unwrap().to_vec().unwrap()),
            &f64v(a.try_maximum(&b).unwrap().to_vec()),
            0.0,
        );
        assert_eq!(
            ga.try_lt(&grow).unwrap().to_vec().unwrap(),
            a.try_lt(&row).unwrap().to_vec(),
            "lt {d}"
        );
        let nz = Tensor::<T>::from_vec(vec![T::from_f64(3.0); 6], [6]).unwrap();
        let gnz = nz.to_cuda(dev).unwrap();
        assert_close(
            &f64v(ga.try_remainder(&gnz).unwrap().to_vec().unwrap()),
            &f64v(a.try_remainder(&nz).unwrap().to_vec()),
            rel,
        );
        assert_close(
            &f64v(ga.try_floor_divide(&gnz).unwrap().to_vec().unwrap()),
            &f64v(a.try_floor_divide(&nz).unwrap().to_vec()),
            rel,
        );
        if !d.is_float() {
            let z = Tensor::<T>::zeros([6]).unwrap().to_cuda(dev).unwrap();
            let ec = a.try_div(&z.to_cpu().unwrap()).unwrap_err().to_string();
            let eg = ga
                .try_div(&z)
                .expect_err("integer division by zero is an Err")
                .to_string();
            assert_eq!(ec, eg);
        }
        // Casts.
        assert_eq!(
            ga.cast::<i32>().unwrap().to_vec().unwrap(),
            a.cast::<i32>().to_vec(),
            "cast {d}->i32"
        );
        assert_eq!(
            gat.cast::<u8>().unwrap().to_vec().unwrap(),
            at.cast::<u8>().to_vec(),
            "cast {d}->u8"
        );
        assert_close(
            &f64v(ga.cast::<f32>().unwrap().to_vec().unwrap()),
            &f64v(a.cast::<f32>().to_vec()),
            0.0,
        );
        // Reductions: every axis set, keepdim both ways, on the transposed view too.
        let finite = Tensor::<T>::from_vec(sample::<T>(32)[8..].to_vec(), [2, 3, 4]).unwrap();
        let gf = finite.to_cuda(dev).unwrap();
        for axes in [&[][..], &[0], &[1], &[2], &[0, 1], &[0, 2], &[-1, -2]] {
            for keep in [false, true] {
                let (c, g) = (finite.sum(axes, keep).unwrap(), gf.sum(axes, keep).unwrap());
                assert_eq!(g.dims(), c.dims());
                assert_close(&f64v(g.to_vec().unwrap()), &f64v(c.to_vec()), rel * 8.0);
                assert_eq!(
                    gf.argmax(axes, keep).unwrap().to_vec().unwrap(),
                    finite.argmax(axes, keep).unwrap().to_vec()
                );
                assert_eq!(
                    gf.argmin(axes, keep).unwrap().to_vec().unwrap(),
                    finite.argmin(axes, keep).unwrap().to_vec()
                );
                assert_close(
                    &f64v(gf.max(axes, keep).unwrap().to_vec().unwrap()),
                    &f64v(finite.max(axes, keep).unwrap().to_vec()),
                    0.0,
                );
                for corr in [0, 1] {
                    assert_close(
                        &f64v(gf.var(axes, corr, keep).unwrap().to_vec().unwrap()),
                        &f64v(finite.var(axes, corr, keep).unwrap().to_vec()),
                        rel * 8.0,
                    );
                }
                assert_close(
                    &f64v(gf.std(axes, 1, keep).unwrap().to_vec().unwrap()),
                    &f64v(finite.std(axes, 1, keep).unwrap().to_vec()),
                    rel * 8.0,
                );
                assert_eq!(
                    gf.any(axes, keep).unwrap().to_vec().unwrap(),
                    finite.any(axes, keep).unwrap().to_vec()
                );
                assert_eq!(
                    gf.all(axes, keep).unwrap().to_vec().unwrap(),
                    finite.all(axes, keep).unwrap().to_vec()
                );
            }
        }
        // any/all see NaN and -0.0 as the CPU does; var of one element with correction 1 is NaN.
        assert_eq!(
            ga.any(&[1], false).unwrap().to_vec().unwrap(),
            a.any(&[1], false).unwrap().to_vec()
        );
        assert_eq!(
            ga.all(&[0], false).unwrap().to_vec().unwrap(),
            a.all(&[0], false).unwrap().to_vec()
        );
        assert_close(
            &f64v(
                ga.narrow(0, 0, 1)
                    .unwrap()
                    .var(&[0], 1, false)
                    .unwrap()
                    .to_vec()
                    .unwrap(),
            ),
            &f64v(
                a.narrow(0, 0, 1)
                    .unwrap()
                    .var(&[0], 1, false)
                    .unwrap()
                    .to_vec(),
            ),
            0.0,
        );
        // A narrowed (offset) view reduces its own elements.
        let (cn, gn) = (finite.narrow(0, 1, 1).unwrap(), gf.narrow(0, 1, 1).unwrap());
        assert_close(
            &f64v(gn.sum(&[2], false).unwrap().to_vec().unwrap()),
            &f64v(cn.sum(&[2], false).unwrap().to_vec()),
            rel * 8.0,
        );
        // NaN rules (first rows of `a` hold NaN and infinities for float types).
        assert_eq!(
            ga.argmax(&[1], false).unwrap().to_vec().unwrap(),
            a.argmax(&[1], false).unwrap().to_vec()
        );
        assert_close(
            &f64v(gat.max(&[0], false).unwrap().to_vec().unwrap()),
            &f64v(at.max(&[0], false).unwrap().to_vec()),
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
            assert_close(&f64v(g.to_vec().unwrap()), &f64v(c.to_vec()), rel * 16.0);
        };
        mm(gx.matmul(&gy).unwrap(), x.matmul(&y).unwrap());
        mm(gy.t().matmul(&gy).unwrap(), y.t().matmul(&y).unwrap());
        let v = y.narrow(1, 0, 1).unwrap().squeeze();
        mm(
            gx.matmul(&v.to_cuda(dev).unwrap()).unwrap(),
            x.matmul(&v).unwrap(),
        );
        mm(
            v.to_cuda(dev).unwrap().matmul(&gy).unwrap(),
            v.matmul(&y).unwrap(),
        );
        assert_eq!(
            gx.matmul(&gx).err().map(|e| e.to_string()),
            x.matmul(&x).err().map(|e| e.to_string()),
            "shape errors match"
        );
        // Empty.
        let e = Tensor::<T>::zeros([3, 0]).unwrap().to_cuda(dev).unwrap();
        assert_eq!(
            f64v(e.sum(&[1], false).unwrap().to_vec().unwrap()),
            vec![0.0; 3]
        );
        assert!(e.max(&[1], false).is_err());
    }
    for_types!(run(&dev): f32, f64, f16, bf16, i16, i32, i64, u8);
}

/// where_, masked_fill, copy_from into views, full_on, concat, stack, index_select and gather
/// equal the CPU's, with broadcast and strided operands; bad indices give the CPU's error.
#[test]
fn gpu_index_ops_match_cpu() {
    let Some(dev) = gpu("gpu_index_ops_match_cpu") else {
        return;
    };
    fn run<T: Element>(dev: &Cuda) {
        let a = Tensor::<T>::from_vec(sample::<T>(24), [4, 6]).unwrap();
        let b = Tensor::<T>::from_vec(sample::<T>(30)[24..].to_vec(), [6]).unwrap();
        let c = Tensor::<bool>::from_vec(vec![true, false, false, true], [4, 1]).unwrap();
        let (ga, gb, gc) = (
            a.to_cuda(dev).unwrap(),
            b.to_cuda(dev).unwrap(),
            c.to_cuda(dev).unwrap(),
        );
        let g = |t: Tensor<T, Cuda>| t.to_vec().unwrap();
        same(
            g(Tensor::where_(&gc, &ga, &gb).unwrap()),
            Tensor::where_(&c, &a, &b).unwrap().to_vec(),
            "where_",
        );
        same(
            g(Tensor::where_(&gc, &ga.t().t(), &gb).unwrap()),
            Tensor::where_(&c, &a, &b).unwrap().to_vec(),
            "where_ strided",
        );
        let v = sample::<T>(9)[8];
        same(
            g(ga.masked_fill(&gc, v).unwrap()),
            a.masked_fill(&c, v).unwrap().to_vec(),
            "masked_fill",
        );
        // copy_from into a column view, with a broadcast source.
        let (mut cv, mut gv) = (a.deep_copy(), ga.deep_copy().unwrap());
        cv.narrow(1, 2, 1)
            .unwrap()
            .copy_from(&b.narrow(0, 0, 1).unwrap())
            .unwrap();
        gv.narrow(1, 2, 1)
            .unwrap()
            .copy_from(&gb.narrow(0, 0, 1).unwrap())
            .unwrap();
        same(g(gv.clone()), cv.to_vec(), "copy_from");
        // Overlapping source and destination read the old values.
        cv.copy_from(&cv.flip(&[1]).unwrap()).unwrap();
        gv.copy_from(&gv.flip(&[1]).unwrap()).unwrap();
        same(g(gv), cv.to_vec(), "overlapping copy_from");
        same(
            g(Tensor::full_on([2, 3], v, dev).unwrap()),
            Tensor::<T>::full([2, 3], v).unwrap().to_vec(),
            "full_on",
        );
        // concat of a transposed and a contiguous operand; stack.
        let at = a.t();
        let gat = ga.t();
        same(
            g(Tensor::concat(&[&gat, &gat.narrow(0, 1, 2).unwrap()], 0).unwrap()),
            Tensor::concat(&[&at, &at.narrow(0, 1, 2).unwrap()], 0)
                .unwrap()
                .to_vec(),
            "concat",
        );
        same(
            g(Tensor::stack(&[&ga, &ga], 2).unwrap()),
            Tensor::stack(&[&a, &a], 2).unwrap().to_vec(),
            "stack",
        );
        // index_select / gather, negative indices, strided sources.
        let idx = Tensor::<i64>::from_vec(vec![3, -1, 0, 1, 1], [5]).unwrap();
        let gidx = idx.to_cuda(dev).unwrap();
        for ax in [0, 1] {
            let i3 = idx.narrow(0, 0, 4).unwrap();
            let (ci, gi) = if ax == 0 {
                (i3.clone(), i3.to_cuda(dev).unwrap())
            } else {
                (idx.clone(), gidx.clone())
            };
            same(
                g(ga.index_select(ax, &gi).unwrap()),
                a.index_select(ax, &ci).unwrap().to_vec(),
                "index_select",
            );
            same(
                g(gat.index_select(1 - ax, &gi).unwrap()),
                at.index_select(1 - ax, &ci).unwrap().to_vec(),
                "index_select strided",
            );
        }
        let bad = Tensor::<i64>::from_vec(vec![0, 6], [2]).unwrap();
        assert_eq!(
            ga.index_select(1, &bad.to_cuda(dev).unwrap())
                .unwrap_err()
                .to_string(),
            a.index_select(1, &bad).unwrap_err().to_string()
        );
        let gi =
            Tensor::<i64>::from_vec(vec![5, 0, -1, 2, 2, 1, 0, 0, 3, 4, 5, -6], [4, 3]).unwrap();
        same(
            g(ga.gather(1, &gi.to_cuda(dev).unwrap()).unwrap()),
            a.gather(1, &gi).unwrap().to_vec(),
            "gather",
        );
        same(
            g(gat.gather(0, &gi.t().to_cuda(dev).unwrap()).unwrap()),
            at.gather(0, &gi.t()).unwrap().to_vec(),
            "gather strided",
        );
        let gbad = Tensor::<i64>::from_vec(vec![0, 1, 6, 0], [2, 2]).unwrap();
        assert_eq!(
            ga.gather(1, &gbad.to_cuda(dev).unwrap())
                .unwrap_err()
                .to_string(),
            a.gather(1, &gbad).unwrap_err().to_string()
        );
    }
    for_types!(run(&dev): f32, f64, f16, bf16, i16, i32, i64, u8, bool);
}

/// arange_on equals the CPU's arange; rand_on/randn_on are reproducible from manual_seed, in
/// range, and have the right moments.
#[test]
fn gpu_generators() {
    let Some(dev) = gpu("gpu_generators") else {
        return;
    };
    fn ar<T: NumElement>(dev: &Cuda, a: f64, b: f64, s: f64) {
        let (a, b, s) = (T::from_f64(a), T::from_f64(b), T::from_f64(s));
        same(
            Tensor::<T, Cuda>::arange_on(a, b, s, dev)
                .unwrap()
                .to_vec()
                .unwrap(),
            Tensor::<T>::arange(a, b, s).unwrap().to_vec(),
            "arange_on",
        );
    }
    ar::<f32>(&dev, 0.5, 10.0, 0.75);
    ar::<f64>(&dev, -3.0, 3.0, 0.1);
    ar::<bf16>(&dev, 0.0, 8.0, 0.5);
    ar::<i32>(&dev, -5.0, 20.0, 3.0);
    ar::<i64>(&dev, 10.0, -10.0, -4.0);
    ar::<u8>(&dev, 0.0, 250.0, 7.0);
    assert!(Tensor::<f32, Cuda>::arange_on(0.0, 1.0, 0.0, &dev).is_err());
    fn moments<T: FloatElement>(dev: &Cuda) {
        let n = 1 << 20;
        manual_seed(11);
        let u = Tensor::<T, Cuda>::rand_on([n], dev)
            .unwrap()
            .to_vec()
            .unwrap();
        manual_seed(11);
        let u2 = Tensor::<T, Cuda>::rand_on([n], dev)
            .unwrap()
            .to_vec()
            .unwrap();
        same(u.clone(), u2, "rand_on reproducible");
        let u = f64v(u);
        assert!(
            u.iter().all(|&x| (0.0..1.0).contains(&x)),
            "rand_on range {}",
            T::DTYPE
        );
        let mean = u.iter().sum::<f64>() / n as f64;
        assert!(
            (mean - 0.5).abs() < 0.005,
            "rand_on mean {mean} {}",
            T::DTYPE
        );
        let z = f64v(
            Tensor::<T, Cuda>::randn_on([n], dev)
                .unwrap()
                .to_vec()
                .unwrap(),
        );
        let m = z.iter().sum::<f64>() / n as f64;
        let var = z.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n as f64;
        assert!(
            m.abs() < 0.01 && (var - 1.0).abs() < 0.02,
            "randn_on {m} {var} {}",
            T::DTYPE
        );
    }
    moments::<f32>(&dev);
    moments::<f64>(&dev);
    moments::<f16>(&dev);
    moments::<bf16>(&dev);
}

/// The NaN-skipping reductions and logsumexp equal the CPU's: NaN inside slices, an all-NaN
/// slice (NaN, 0 or an Err as on the CPU), infinities, every axis set.
#[test]
fn gpu_nan_reductions_match_cpu() {
    let Some(dev) = gpu("gpu_nan_reductions_match_cpu") else {
        return;
    };
    fn run<T: FloatElement>(dev: &Cuda) {
        let nan = f64::NAN;
        let v: Vec<T> = [
            nan,
            1.0,
            -2.0,
            3.5, //
            nan,
            nan,
            nan,
            nan, //
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
            f64::NEG_INFINITY, //
            0.5,
            nan,
            f64::INFINITY,
            -1.0, //
            2.0,
            2.0,
            -3.0,
            0.25,
        ]
        .map(T::from_f64)
        .to_vec();
        let c = Tensor::<T>::from_vec(v, [5, 4]).unwrap();
        let g = c.to_cuda(dev).unwrap();
        let rel = tol(T::DTYPE) * 8.0;
        let close = |a: Tensor<T, Cuda>, b: Tensor<T>| {
            assert_eq!(a.dims(), b.dims());
            assert_close(&f64v(a.to_vec().unwrap()), &f64v(b.to_vec()), rel)
        };
        for t in [false, true] {
            let (c, g) = if t {
                (c.t(), g.t())
            } else {
                (c.clone(), g.clone())
            };
            for axes in [&[][..], &[0], &[1], &[-1, 0]] {
                for keep in [false, true] {
                    close(g.nansum(axes, keep).unwrap(), c.nansum(axes, keep).unwrap());
                    close(
                        g.nanproduct(axes, keep).unwrap(),
                        c.nanproduct(axes, keep).unwrap(),
                    );
                    close(g.nanmax(axes, keep).unwrap(), c.nanmax(axes, keep).unwrap());
                    close(g.nanmin(axes, keep).unwrap(), c.nanmin(axes, keep).unwrap());
                    close(
                        g.nanmean(axes, keep).unwrap(),
                        c.nanmean(axes, keep).unwrap(),
                    );
                    close(
                        g.logsumexp(axes, keep).unwrap(),
                        c.logsumexp(axes, keep).unwrap(),
                    );
                    let (ga, ca) = (g.nanargmax(axes, keep), c.nanargmax(axes, keep));
                    assert_eq!(ga.is_err(), ca.is_err(), "nanargmax {axes:?}");
                    if let (Ok(ga), Ok(ca)) = (ga, ca) {
                        assert_eq!(ga.to_vec().unwrap(), ca.to_vec());
                    }
                }
            }
        }
        // Without the all-NaN row every slice has a value.
        let (c2, g2) = (c.narrow(0, 2, 3).unwrap(), g.narrow(0, 2, 3).unwrap());
        for axes in [&[][..], &[0], &[1]] {
            assert_eq!(
                g2.nanargmin(axes, false).unwrap().to_vec().unwrap(),
                c2.nanargmin(axes, false).unwrap().to_vec()
            );
        }
        assert!(g.nanargmax(&[1], false).is_err());
        assert!(
            Tensor::<T, Cuda>::zeros_on([2, 0], dev)
                .unwrap()
                .nanmax(&[1], false)
                .is_err()
        );
    }
    for_types!(run(&dev): f32, f64, f16, bf16);
}

/// Long rows and columns take the split path (partials combined by the last block): sums,
/// extremes and arg-reductions with NaN, ties and infinities still equal the CPU's.
#[test]
fn gpu_split_reductions_match_cpu() {
    let Some(dev) = gpu("gpu_split_reductions_match_cpu") else {
        return;
    };
    fn run<T: NumElement>(dev: &Cuda) {
        let (rows, cols) = (9000, 37);
        let mut v: Vec<T> = (0..rows * cols)
            .map(|i| T::from_f64(((i * 7919) % 201) as f64 - 100.0))
            .collect();
        for (i, x) in [
            (5, f64::NAN),
            (4000 * cols + 3, f64::NAN),
            (8999 * cols + 36, 1e9),
        ] {
            v[i] = T::from_f64(x);
        }
        let c = Tensor::<T>::from_vec(v, [rows, cols]).unwrap();
        let g = c.to_cuda(dev).unwrap();
        let rel = tol(T::DTYPE) * 64.0;
        for t in [false, true] {
            let (c, g) = if t {
                (c.t(), g.t())
            } else {
                (c.clone(), g.clone())
            };
            for axes in [&[][..], &[0], &[1]] {
                assert_close(
                    &f64v(g.sum(axes, false).unwrap().to_vec().unwrap()),
                    &f64v(c.sum(axes, false).unwrap().to_vec()),
                    rel,
                );
                same(
                    g.max(axes, false).unwrap().to_vec().unwrap(),
                    c.max(axes, false).unwrap().to_vec(),
                    "split max",
                );
                assert_eq!(
                    g.argmax(axes, false).unwrap().to_vec().unwrap(),
                    c.argmax(axes, false).unwrap().to_vec()
                );
                assert_eq!(
                    g.argmin(axes, false).unwrap().to_vec().unwrap(),
                    c.argmin(axes, false).unwrap().to_vec()
                );
                assert_close(
                    &f64v(g.var(axes, 1, false).unwrap().to_vec().unwrap()),
                    &f64v(c.var(axes, 1, false).unwrap().to_vec()),
                    rel,
                );
                assert_eq!(
                    g.all(axes, false).unwrap().to_vec().unwrap(),
                    c.all(axes, false).unwrap().to_vec()
                );
            }
        }
    }
    for_types!(run(&dev): f32, bf16, i32, u8);
}

/// cumsum and cumprod on the GPU equal the CPU's bit for bit (same order, same accumulator):
/// every dtype, every axis, contiguous, transposed and sliced inputs, NaN/inf, wrapping
/// integers, an empty axis; a bad axis is the CPU's `Err`.
#[test]
fn gpu_scans_match_cpu() {
    let Some(dev) = gpu("gpu_scans_match_cpu") else {
        return;
    };
    fn run<T: Element>(dev: &Cuda) {
        let c = Tensor::<T>::from_vec(sample::<T>(3 * 40 * 5), [3, 40, 5]).unwrap();
        let g = c.to_cuda(dev).unwrap();
        let views = |c: &Tensor<T>, g: &Tensor<T, Cuda>| {
            vec![
                (c.clone(), g.clone()),
                (c.transpose(0, 2).unwrap(), g.transpose(0, 2).unwrap()),
                (c.narrow(1, 3, 30).unwrap(), g.narrow(1, 3, 30).unwrap()),
            ]
        };
        for (c, g) in views(&c, &g) {
            for axis in [0, 1, 2, -1] {
                let what = format!("axis {axis} of {}", c.shape());
                let (want, got) = (c.cumsum(axis).unwrap(), g.cumsum(axis).unwrap());
                assert_eq!(got.dims(), want.dims());
                same(
                    got.to_vec().unwrap(),
                    want.to_vec(),
                    &format!("cumsum {what}"),
                );
                let (want, got) = (c.cumprod(axis).unwrap(), g.cumprod(axis).unwrap());
                same(
                    got.to_vec().unwrap(),
                    want.to_vec(),
                    &format!("cumprod {what}"),
                );
            }
        }
        let e = Tensor::<T>::zeros([2, 0, 3]).unwrap();
        let ge = e.to_cuda(dev).unwrap().cumsum(1).unwrap();
        assert_eq!((ge.dims(), ge.to_vec().unwrap().len()), (&[2, 0, 3][..], 0));
        let err = g.cumsum(3).unwrap_err().to_string();
        assert_eq!(err, c.cumsum(3).unwrap_err().to_string());
    }
    for_types!(run(&dev): f32, f64, f16, bf16, i16, i32, i64, u8, bool);
}

/// The combining ops (defined once for both devices) give the CPU's values on the GPU:
/// split, chunk, tril/triu, diag, diag_embed, pad, roll, tile, repeat_interleave, on
/// contiguous and transposed inputs.
#[test]
fn gpu_combining_ops_match_cpu() {
    let Some(dev) = gpu("gpu_combining_ops_match_cpu") else {
        return;
    };
    fn run<T: Element>(dev: &Cuda) {
        let c = Tensor::<T>::from_vec(sample::<T>(4 * 5), [4, 5]).unwrap();
        let g = c.to_cuda(dev).unwrap();
        for (c, g) in [(c.clone(), g.clone()), (c.t(), g.t())] {
            let eq = |got: Tensor<T, Cuda>, want: Tensor<T>, what: &str| {
                assert_eq!(got.dims(), want.dims(), "{what}");
                same(got.to_vec().unwrap(), want.to_vec(), what);
            };
            let sizes = [1, c.dims()[0] - 1];
            for (gs, cs) in g
                .split(&sizes, 0)
                .unwrap()
                .into_iter()
                .zip(c.split(&sizes, 0).unwrap())
            {
                eq(gs, cs, "split");
            }
            for (gs, cs) in g
                .chunk(2, 1)
                .unwrap()
                .into_iter()
                .zip(c.chunk(2, 1).unwrap())
            {
                eq(gs, cs, "chunk");
            }
            for k in [-1, 0, 2] {
                eq(g.tril(k).unwrap(), c.tril(k).unwrap(), "tril");
                eq(g.triu(k).unwrap(), c.triu(k).unwrap(), "triu");
                eq(g.diag(k).unwrap(), c.diag(k).unwrap(), "diag of a matrix");
            }
            let row = c.narrow(0, 0, 1).unwrap().squeeze();
            let grow = g.narrow(0, 0, 1).unwrap().squeeze();
            eq(
                grow.diag(1).unwrap(),
                row.diag(1).unwrap(),
                "diag of a vector",
            );
            eq(
                g.diag_embed().unwrap(),
                c.diag_embed().unwrap(),
                "diag_embed",
            );
            let one = T::from_f64(1.0);
            eq(
                g.pad(&[(1, 0), (2, 1)], one).unwrap(),
                c.pad(&[(1, 0), (2, 1)], one).unwrap(),
                "pad",
            );
            eq(g.roll(-3, 1).unwrap(), c.roll(-3, 1).unwrap(), "roll");
            eq(
                g.tile(&[2, 1, 2]).unwrap(),
                c.tile(&[2, 1, 2]).unwrap(),
                "tile",
            );
            eq(
                g.repeat_interleave(2, 0).unwrap(),
                c.repeat_interleave(2, 0).unwrap(),
                "repeat_interleave",
            );
        }
        assert!(!g.tril(0).unwrap().shares_storage_with(&g));
        let v = g.narrow(0, 0, 1).unwrap().squeeze();
        assert_eq!(v.diag_embed().unwrap().dims(), &[5, 5]);
    }
    for_types!(run(&dev): f32, bf16, i64, u8, bool);
}

/// In-place and `_into` forms on the GPU give the out-of-place results, broadcast `other`
/// into `self`, write through views, and refuse a result that does not fit.
#[test]
fn gpu_inplace_and_into_forms() {
    let Some(dev) = gpu("gpu_inplace_and_into_forms") else {
        return;
    };
    let c = Tensor::<f32>::from_vec(sample::<f32>(12), [3, 4]).unwrap();
    let row = Tensor::<f32>::from_vec(vec![1.0, -2.0, 0.5, 3.0], [4]).unwrap();
    let (g, grow) = (c.to_cuda(&dev).unwrap(), row.to_cuda(&dev).unwrap());
    let mut a = g.deep_copy().unwrap();
    a.add_(&grow).unwrap();
    same(a.to_vec().unwrap(), c.add(&row).to_vec(), "add_");
    // sin and exp are compared with the GPU's own out-of-place kernels: the device's libm
    // may differ from the host's by an ulp.
    let gsin = g.try_add(&grow).unwrap().sin().unwrap();
    a.sin_().unwrap();
    same(a.to_vec().unwrap(), gsin.to_vec().unwrap(), "sin_");
    a.mul_scalar_(2.0).unwrap();
    same(
        a.to_vec().unwrap(),
        gsin.try_mul_scalar(2.0).unwrap().to_vec().unwrap(),
        "mul_scalar_",
    );
    let mut out = Tensor::<f32>::zeros([4, 3])
        .unwrap()
        .to_cuda(&dev)
        .unwrap()
        .t();
    g.sub_into(&grow, &mut out).unwrap();
    same(
        out.to_vec().unwrap(),
        c.sub(&row).to_vec(),
        "sub_into a transposed output",
    );
    g.exp_into(&mut out).unwrap();
    same(
        out.to_vec().unwrap(),
        g.exp().unwrap().to_vec().unwrap(),
        "exp_into",
    );
    let mut small = grow.deep_copy().unwrap();
    let err = small.add_(&g).unwrap_err().to_string();
    assert!(
        err.contains("add_") && err.contains("(4,)") && err.contains("(3, 4)"),
        "{err}"
    );
    same(
        small.to_vec().unwrap(),
        row.to_vec(),
        "unchanged after the error",
    );
    let mut wide = grow.broadcast_to([3, 4]).unwrap();
    assert!(wide.add_(&g).is_err(), "a broadcast view cannot be written");
    let ci = Tensor::<i32>::from_vec(vec![1, -2, i32::MIN, 7], [4]).unwrap();
    let mut gi = ci.to_cuda(&dev).unwrap();
    gi.neg_().unwrap();
    assert_eq!(gi.to_vec().unwrap(), ci.neg().to_vec());
    let zero = Tensor::<i32>::zeros([4]).unwrap().to_cuda(&dev).unwrap();
    let before = gi.to_vec().unwrap();
    assert!(gi.div_(&zero).is_err());
    assert_eq!(
        gi.to_vec().unwrap(),
        before,
        "a failed in-place op writes nothing"
    );
}

/// A 2^24-element f32 sum on the GPU meets the CPU's accuracy bound against f64.
#[test]
fn gpu_sum_accuracy() {
    let Some(dev) = gpu("gpu_sum_accuracy") else {
        return;
    };
    manual_seed(7);
    let a = Tensor::<f32>::rand([1 << 24]).unwrap();
    let want: f64 = a.to_vec().iter().map(|&x| x as f64).sum();
    let got = a
        .to_cuda(&dev)
        .unwrap()
        .sum(&[], false)
        .unwrap()
        .to_vec()
        .unwrap()[0] as f64;
    assert!(((got - want) / want).abs() <= 1e-6, "{got} vs {want}");
}
