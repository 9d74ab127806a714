//! The ops composed of other steps or computed on the host (norms, logical ops, `pow`, `clip`,
//! factorizations, argsort, creation, closeness, the operators and the seed's free functions)
//! on every device against the CPU's results, each body written once (`on_every_device!`).

use crate::common::{assert_close, tol};
use crate::cuda::sample;
use half::{bf16, f16};
use typed_tensor::prelude::*;

fn vals<T: Element, D: Device>(t: &Tensor<T, D>) -> Vec<f64>
where
    Tensor<T, D>: Into<DynTensor>,
{
    let d: DynTensor = t.clone().into();
    d.to_dtype(Dtype::Float64).unwrap().to_vec::<f64>().unwrap()
}

/// Relative tolerance for results that went through a few roundings of `T` (sums, norms).
pub(crate) fn loose(d: Dtype) -> f64 {
    (tol(d) * 16.0).max(1e-9)
}

/// The composed and host-computed CUDA ops equal the CPU's, on contiguous and transposed
/// inputs, with the CPU's errors.
#[test]
fn composed_ops_match_cpu() {
    on_every_device!("composed_ops_match_cpu", |dev| {
        fn run<T: NumElement, D: Backend>(dev: &D)
        where
            Tensor<T, Cpu>: Into<DynTensor>,
            Tensor<T, D>: Into<DynTensor>,
            Tensor<FloatOf<T>, Cpu>: Into<DynTensor>,
            Tensor<FloatOf<T>, D>: Into<DynTensor>,
            Tensor<SquareOf<T>, Cpu>: Into<DynTensor>,
            Tensor<SquareOf<T>, D>: Into<DynTensor>,
        {
            let (t, l) = (T::DTYPE, loose(T::DTYPE));
            let c0 = Tensor::<T>::from_vec(sample::<T>(4 * 6), [4, 6]).unwrap();
            let g0 = c0.to_device(dev).unwrap();
            for (c, g) in [(c0.clone(), g0.clone()), (c0.t(), g0.t())] {
                let eq = |got: Vec<f64>, want: Vec<f64>, what: &str| {
                    assert_eq!(got.len(), want.len(), "{what} {t}");
                    assert_close(&got, &want, l);
                };
                let r = c.reshape([3, -1]);
                eq(vals(&g.reshape([3, -1])), vals(&r), "reshape");
                eq(vals(&g.flatten()), vals(&c.flatten()), "flatten");
                eq(vals(&g.square()), vals(&c.square()), "square");
                eq(vals(&g.pow(2)), vals(&c.pow(2)), "pow 2");
                eq(vals(&g.pow(0.5)), vals(&c.pow(0.5)), "pow 0.5");
                eq(vals(&g.is_nan()), vals(&c.is_nan()), "is_nan");
                eq(vals(&g.is_finite()), vals(&c.is_finite()), "is_finite");
                let rev = c.flip(&[0]).unwrap();
                let grev = g.flip(&[0]).unwrap();
                eq(
                    vals(&g.logical_and(&grev)),
                    vals(&c.logical_and(&rev)),
                    "logical_and",
                );
                eq(
                    vals(&g.logical_or(&grev)),
                    vals(&c.logical_or(&rev)),
                    "logical_or",
                );
                eq(
                    vals(&g.logical_xor(&grev)),
                    vals(&c.logical_xor(&rev)),
                    "logical_xor",
                );
                eq(
                    vals(&g.logical_not()),
                    vals(&c.logical_not()),
                    "logical_not",
                );
                for p in [0.0, 1.0, 2.0, 3.0, f64::INFINITY] {
                    eq(
                        vals(&g.norm(p, &[1], false)),
                        vals(&c.norm(p, &[1], false)),
                        "norm",
                    );
                }
                let (gv, gi) = g.sort(1, true);
                let (cv, ci) = c.sort(1, true);
                eq(vals(&gv), vals(&cv), "sort values");
                eq(vals(&gi), vals(&ci), "sort indices");
                eq(
                    vals(&g.argsort(0, false)),
                    vals(&c.argsort(0, false)),
                    "argsort",
                );
                let (gv, gi) = g.topk(2, 1);
                let (cv, ci) = c.topk(2, 1);
                eq(vals(&gv), vals(&cv), "topk values");
                eq(vals(&gi), vals(&ci), "topk indices");
                // Index and source of shape (3, 4), valid for both the (4, 6) and (6, 4) inputs;
                // repeated targets in column 0, 1 and 3 make the kernel's atomics collide.
                let idx =
                    Tensor::<i64>::from_vec(vec![0, 2, 1, 0, 0, 2, 3, 0, 1, 1, -1, 1], [3, 4])
                        .unwrap();
                let src = c.narrow(0, 0, 3).unwrap().narrow(1, 0, 4).unwrap();
                let gsrc = g.narrow(0, 0, 3).unwrap().narrow(1, 0, 4).unwrap();
                let gidx = idx.to_device(dev).unwrap();
                eq(
                    vals(&g.scatter_add(0, &gidx, &gsrc)),
                    vals(&c.scatter_add(0, &idx, &src)),
                    "scatter_add",
                );
                let bad = Tensor::<i64>::full([3, 4], 9)
                    .unwrap()
                    .to_device(dev)
                    .unwrap();
                assert_eq!(
                    g.try_scatter_add(0, &bad, &gsrc).unwrap_err().to_string(),
                    c.try_scatter_add(0, &bad.to_cpu(), &src)
                        .unwrap_err()
                        .to_string()
                );
                let fin = c.clip(T::from_f64(-3.0), T::from_f64(3.0));
                let gfin = g.clip(T::from_f64(-3.0), T::from_f64(3.0));
                let fin = fin.masked_fill(&fin.is_nan(), T::ZERO);
                let gfin = gfin.masked_fill(&gfin.is_nan(), T::ZERO);
                eq(
                    vals(&gfin.tensordot(&gfin, &[1], &[1])),
                    vals(&fin.tensordot(&fin, &[1], &[1])),
                    "tensordot",
                );
                let (gr, cr) = (gfin.flatten(), fin.flatten());
                eq(vals(&gr.dot(&gr)), vals(&cr.dot(&cr)), "dot");
                eq(vals(&gr.outer(&gr)), vals(&cr.outer(&cr)), "outer");
                eq(vals(&gfin.vecdot(&gfin)), vals(&fin.vecdot(&fin)), "vecdot");
            }
            // In-place forms and element access write through a transposed view.
            let (mut c, mut g) = (c0.deep_copy(), g0.deep_copy());
            c.t().square_().unwrap();
            g.t().square_().unwrap();
            assert_close(&vals(&g), &vals(&c), l);
            c.pow_(1).unwrap();
            g.pow_(1).unwrap();
            let lo = T::from_f64(0.0);
            c.clip_(lo, T::from_f64(9.0)).unwrap();
            g.clip_(lo, T::from_f64(9.0)).unwrap();
            assert_close(&vals(&g), &vals(&c), l);
            g.narrow(0, 1, 1).unwrap().fill_(T::ONE).unwrap();
            assert_eq!(g.narrow(0, 1, 1).unwrap().to_vec(), vec![T::ONE; 6]);
            g.set_data(&sample::<T>(24)).unwrap();
            assert_close(&vals(&g), &vals(&c0), 0.0);
            assert!(g.set_data(&sample::<T>(5)).is_err());
            assert_eq!(
                g.narrow(0, 0, 1)
                    .unwrap()
                    .narrow(1, 5, 1)
                    .unwrap()
                    .item()
                    .to_f64(),
                c0.to_vec()[5].to_f64()
            );
            assert!(g.try_item().is_err());
            // The CPU's errors.
            assert!(g.try_reshape([5, 5]).is_err());
            assert!(g.try_norm(-1.0, &[], false).is_err());
            if !T::DTYPE.is_float() {
                assert!(g.try_pow(-1).is_err());
                assert!(g.pow_(-2).is_err());
            }
        }
        for_types!(run(&dev): f32, f64, f16, bf16, i16, i32, i64, u8; _);
    });
}

/// The factorizations (computed on the host) give the CPU's results on the device.
#[test]
fn factorizations_match_cpu() {
    on_every_device!("factorizations_match_cpu", |dev| {
        let a = Tensor::<f64>::from_vec(vec![4.0, 1.0, 2.0, 1.0, 3.0, 0.5, 2.0, 0.5, 5.0], [3, 3])
            .unwrap();
        let b = Tensor::<f64>::from_vec(vec![1.0, 2.0, 3.0], [3]).unwrap();
        let (ga, gb) = (a.to_device(&dev).unwrap(), b.to_device(&dev).unwrap());
        let host = |t: Tensor<f64, _>| t.to_vec();
        assert_close(&host(ga.inverse()), &a.inverse().to_vec(), 1e-12);
        assert_close(&host(ga.solve(&gb)), &a.solve(&b).to_vec(), 1e-12);
        assert_close(&host(ga.pinv()), &a.pinv().to_vec(), 1e-12);
        let (gw, gv) = ga.eigh();
        let (w, v) = a.eigh();
        assert_close(&host(gw), &w.to_vec(), 1e-12);
        assert_close(&host(gv), &v.to_vec(), 1e-12);
        let (gu, gs, gvh) = ga.svd();
        let (u, s, vh) = a.svd();
        assert_close(&host(gu), &u.to_vec(), 1e-12);
        assert_close(&host(gs), &s.to_vec(), 1e-12);
        assert_close(&host(gvh), &vh.to_vec(), 1e-12);
        let singular = Tensor::<f64>::zeros([2, 2])
            .unwrap()
            .to_device(&dev)
            .unwrap();
        assert!(singular.try_inverse().is_err());
    });
}

/// `argsort` on the device (lines up to `SORT_MAX`) and through the host (longer lines) gives
/// the CPU's stable order index for index, with NaN and ties, in both directions.
#[test]
fn argsort_matches_cpu() {
    on_every_device!("argsort_matches_cpu", |dev| {
        fn run<T: Element>(dev: &impl Backend) {
            let long = typed_tensor::backend::cuda::kernels::SORT_MAX + 5;
            // Lines of 1500, 700 and 200 take the register network (2048, 1024 and 256 padded
            // entries), lines of 3 and 2 the shared-memory one.
            for dims in [
                [3usize, 1500],
                [2, long],
                [700, 3],
                [200, 2],
                [1, 1],
                [0, 4],
            ] {
                let n = dims[0] * dims[1];
                let c = Tensor::<T>::from_vec(sample::<T>(n), dims).unwrap();
                let g = c.to_device(dev).unwrap();
                for axis in [0, 1] {
                    for desc in [false, true] {
                        assert_eq!(
                            g.argsort(axis, desc).to_vec(),
                            c.argsort(axis, desc).to_vec(),
                            "argsort {dims:?} axis {axis} desc {desc} {}",
                            T::DTYPE
                        );
                    }
                }
                let (gv, gi) = g.t().topk(dims[0].min(2), 1);
                let (cv, ci) = c.t().topk(dims[0].min(2), 1);
                assert_eq!(gi.to_vec(), ci.to_vec(), "topk {}", T::DTYPE);
                assert_close(
                    &gv.to_vec().iter().map(|x| x.to_f64()).collect::<Vec<_>>(),
                    &cv.to_vec().iter().map(|x| x.to_f64()).collect::<Vec<_>>(),
                    0.0,
                );
            }
        }
        for_types!(run(&dev): f32, f64, f16, bf16, i16, i64, u8, bool);
    });
}

/// Creation on the device (`ones_on`, `eye_on`, `identity_on`, `linspace_on`, `*_like`),
/// `is_close`/`all_close` and `matmul_into` give the CPU's results.
#[test]
fn creation_and_closeness() {
    on_every_device!("creation_and_closeness", |dev| {
        let e = Tensor::<f32, _>::identity_on(2, 3, &dev).unwrap();
        assert_eq!(e.to_vec(), Tensor::<f32>::identity(2, 3).unwrap().to_vec());
        assert_eq!(Tensor::<i32, _>::eye_on(3, &dev).unwrap().dims(), &[3, 3]);
        assert_eq!(
            Tensor::<u8, _>::ones_on([2], &dev).unwrap().to_vec(),
            vec![1, 1]
        );
        let l = Tensor::<f64, _>::linspace_on(0.0, 1.0, 5, &dev).unwrap();
        assert_eq!(
            l.to_vec(),
            Tensor::<f64>::linspace(0.0, 1.0, 5).unwrap().to_vec()
        );
        assert_eq!(l.zeros_like().to_vec(), vec![0.0; 5]);
        assert_eq!(l.ones_like().to_vec(), vec![1.0; 5]);
        assert_eq!(l.full_like(2.5).to_vec(), vec![2.5; 5]);
        let a = Tensor::<f32>::from_vec(vec![1.0, f32::NAN, f32::INFINITY, 2.0], [4]).unwrap();
        let b =
            Tensor::<f32>::from_vec(vec![1.0 + 1e-7, f32::NAN, f32::INFINITY, 2.1], [4]).unwrap();
        let (ga, gb) = (a.to_device(&dev).unwrap(), b.to_device(&dev).unwrap());
        assert_eq!(
            ga.is_close(&gb, 1e-5, 1e-8).to_vec(),
            a.is_close(&b, 1e-5, 1e-8).to_vec()
        );
        assert!(!ga.all_close(&gb, 1e-5, 1e-8));
        assert!(
            ga.narrow(0, 0, 1)
                .unwrap()
                .all_close(&gb.narrow(0, 0, 1).unwrap(), 1e-5, 1e-8)
        );
        let m = Tensor::<f32>::from_vec(vec![1.0, 2.0, 3.0, 4.0], [2, 2]).unwrap();
        let gm = m.to_device(&dev).unwrap();
        let mut out = Tensor::<f32, _>::zeros_on([2, 2], &dev).unwrap();
        gm.matmul_into(&gm, &mut out).unwrap();
        assert_eq!(out.to_vec(), m.matmul(&m).to_vec());
        let mut wrong = Tensor::<f32, _>::zeros_on([3], &dev).unwrap();
        assert!(gm.matmul_into(&gm, &mut wrong).is_err());
    });
}

/// The typed CUDA tensor has the CPU's operators (panicking forms included), scalar
/// comparisons, scalar-on-the-left ops, the seed's reduction traits and `Display`.
#[test]
fn operators_and_seed_traits() {
    on_every_device!("operators_and_seed_traits", |dev| {
        fn run<T: NumElement, D: Backend>(dev: &D)
        where
            Tensor<T, Cpu>: Into<DynTensor>,
            Tensor<T, D>: Into<DynTensor>,
            Tensor<SumOf<T>, Cpu>: Into<DynTensor>,
            Tensor<SumOf<T>, D>: Into<DynTensor>,
            Tensor<bool, Cpu>: Into<DynTensor>,
            Tensor<bool, D>: Into<DynTensor>,
        {
            let (t, l) = (T::DTYPE, loose(T::DTYPE));
            let c = Tensor::<T>::from_vec(sample::<T>(3 * 5), [3, 5]).unwrap();
            let r = Tensor::<T>::from_vec(sample::<T>(5).into_iter().rev().collect(), [5]).unwrap();
            let (g, gr) = (c.to_device(dev).unwrap(), r.to_device(dev).unwrap());
            let two = T::from_f64(2.0);
            let eq = |got: &Tensor<T, _>, want: &Tensor<T, Cpu>, what: &str| {
                assert_eq!(got.dims(), want.dims(), "{what} {t}");
                assert_close(&vals(got), &vals(want), tol(t));
            };
            eq(&(&g + &gr), &(&c + &r), "a + b");
            eq(&(g.clone() - gr.clone()), &(c.clone() - r.clone()), "a - b");
            eq(&(&g * two), &(&c * two), "a * 2");
            eq(&(g.t() / T::ONE), &(c.t() / T::ONE), "a.t() / 1");
            eq(&(-&g), &(-&c), "-a");
            let (mut ga, mut ca) = (g.deep_copy(), c.deep_copy());
            ga += &gr;
            ca += &r;
            ga *= two;
            ca *= two;
            eq(&ga, &ca, "a += b; a *= 2");
            for (name, got, want) in [
                (
                    "rsub_scalar",
                    g.try_rsub_scalar(two),
                    c.try_rsub_scalar(two),
                ),
                (
                    "rmaximum_scalar",
                    g.try_rmaximum_scalar(two),
                    c.try_rmaximum_scalar(two),
                ),
                (
                    "rremainder_scalar",
                    gr.try_rremainder_scalar(two),
                    r.try_rremainder_scalar(two),
                ),
            ] {
                match (got, want) {
                    (Ok(g), Ok(c)) => eq(&g, &c, name),
                    (Err(_), Err(_)) => {}
                    (g, c) => panic!("{name} {t}: gpu {:?}, cpu {:?}", g.err(), c.err()),
                }
            }
            for (got, want) in [
                (g.eq_scalar(two), c.eq_scalar(two)),
                (g.ne_scalar(two), c.ne_scalar(two)),
                (g.lt_scalar(two), c.lt_scalar(two)),
                (g.ge_scalar(two), c.ge_scalar(two)),
            ] {
                assert_eq!(vals(&got), vals(&want), "scalar comparison {t}");
            }
            // The seed's free functions take the CUDA tensor too.
            let (gs, cs) = (
                reduce_sum(&g, &[1], false).unwrap(),
                reduce_sum(&c, &[1], false).unwrap(),
            );
            assert_close(&vals(&gs), &vals(&cs), l);
            let (gm, cm) = (
                reduce_max(&g, &[], true).unwrap(),
                reduce_max(&c, &[], true).unwrap(),
            );
            assert_eq!(gm.dims(), &[1, 1]);
            assert_close(&vals(&gm), &vals(&cm), 0.0);
            let ga = reduce_argmin(&g, &[0], false).unwrap();
            assert_eq!(
                ga.to_vec(),
                reduce_argmin(&c, &[0], false).unwrap().to_vec()
            );
            let on_host = |s: String| s.replace("device=cuda:0)", "device=cpu)");
            assert_eq!(on_host(format!("{g:.3}")), format!("{c:.3}"), "{t}");
            assert_eq!(on_host(g.display(2)), c.display(2), "{t}");
        }
        for_types!(run(&dev): f32, f64, bf16, i32, i64, u8; _);
        let c = Tensor::<f32>::from_vec(sample::<f32>(12), [3, 4]).unwrap();
        let g = c.to_device(&dev).unwrap();
        assert_close(&vals(&(2.0 - &g)), &vals(&(2.0 - &c)), 0.0);
        assert_close(&vals(&(0.5 * &g.t())), &vals(&(0.5 * &c.t())), 0.0);
        let (gn, cn) = (
            reduce_nanmax(&g, &[1], false).unwrap(),
            reduce_nanmax(&c, &[1], false).unwrap(),
        );
        assert_close(&vals(&gn), &vals(&cn), 0.0);
        let s = Tensor::<i32, _>::from_slice_on(&[5, 6, 7], [3], &dev).unwrap();
        assert_eq!(s.to_vec(), vec![5, 6, 7]);
        let e = Tensor::<u8, _>::empty_on([4], &dev).unwrap();
        assert_eq!(e.to_vec(), vec![0; 4]);
        let err = std::panic::catch_unwind(|| &g + &g.t()).unwrap_err();
        let msg = err.downcast_ref::<String>().unwrap();
        assert!(msg.contains("(3, 4)") && msg.contains("(4, 3)"), "{msg}");
    });
}
