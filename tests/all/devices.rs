//! Each op family on every device against the CPU's results: element-wise ops, casts,
//! reductions (with NaN, and long enough to take CUDA's split blocks), scans, indexing,
//! generators, combining ops and the in-place and `_into` forms, on contiguous, transposed,
//! offset and broadcast inputs. Each test body is written once against `Backend` and runs on
//! the CPU always and on `cuda:0` when one is present (`on_every_device!`).

use crate::common::{assert_close, tol};
use crate::cuda::{f64v, same, sample};
use half::{bf16, f16};
use typed_tensor::prelude::*;

/// Element-wise ops, casts and reductions on the GPU equal the CPU's, for contiguous,
/// transposed and broadcast inputs.
#[test]
fn matches_cpu() {
    on_every_device!("matches_cpu", |dev| {
        fn run<T: NumElement>(dev: &impl Backend) {
            let d = T::DTYPE;
            let rel = tol(d).max(tol(d.float_of())) * 4.0;
            let a = Tensor::<T>::from_vec(sample::<T>(24), [4, 6]).unwrap();
            let b = Tensor::<T>::from_vec(sample::<T>(30)[6..].to_vec(), [4, 6]).unwrap();
            let (ga, gb) = (a.to_device(dev).unwrap(), b.to_device(dev).unwrap());
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
            let gnz = nz.to_device(dev).unwrap();
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
                let z = Tensor::<T>::zeros([6]).unwrap().to_device(dev).unwrap();
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
            let gf = finite.to_device(dev).unwrap();
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
            let (gx, gy) = (x.to_device(dev).unwrap(), y.to_device(dev).unwrap());
            let mm = |g: Tensor<T, _>, c: Tensor<T>| {
                assert_eq!(g.dims(), c.dims(), "matmul dims {d}");
                assert_close(&f64v(g.to_vec()), &f64v(c.to_vec()), rel * 16.0);
            };
            mm(gx.matmul(&gy), x.matmul(&y));
            mm(gy.t().matmul(&gy), y.t().matmul(&y));
            // Transposed operands, which cuBLAS reads with its transpose flag: the right one
            // (linear's x @ w.t()), both, a batch of transposed matrices, a transposed row.
            let w = y.t().try_contiguous().unwrap();
            let gw = w.to_device(dev).unwrap();
            mm(gx.matmul(&gw.t()), x.matmul(&w.t()));
            mm(gy.t().matmul(&gw.t()), y.t().matmul(&w.t()));
            let (gxt, xt) = (gx.transpose(1, 2).unwrap(), x.transpose(1, 2).unwrap());
            mm(gxt.matmul(&gx), xt.matmul(&x));
            mm(gx.matmul(&gxt), x.matmul(&xt));
            let (gr, r) = (gw.narrow(0, 1, 1).unwrap(), w.narrow(0, 1, 1).unwrap());
            mm(gr.t().matmul(&gr), r.t().matmul(&r));
            let v = y.narrow(1, 0, 1).unwrap().squeeze();
            mm(gx.matmul(&v.to_device(dev).unwrap()), x.matmul(&v));
            mm(v.to_device(dev).unwrap().matmul(&gy), v.matmul(&y));
            assert_eq!(
                gx.try_matmul(&gx).err().map(|e| e.to_string()),
                x.try_matmul(&x).err().map(|e| e.to_string()),
                "shape errors match"
            );
            // Empty.
            let e = Tensor::<T>::zeros([3, 0]).unwrap().to_device(dev).unwrap();
            assert_eq!(f64v(e.sum(&[1], false).to_vec()), vec![0.0; 3]);
            assert!(e.try_max(&[1], false).is_err());
        }
        for_types!(run(&dev): f32, f64, f16, bf16, i16, i32, i64, u8);
    });
}

/// where_, masked_fill, copy_from into views, full_on, concat, stack, index_select and gather
/// equal the CPU's, with broadcast and strided operands; bad indices give the CPU's error.
#[test]
fn index_ops_match_cpu() {
    on_every_device!("index_ops_match_cpu", |dev| {
        fn run<T: Element>(dev: &impl Backend) {
            let a = Tensor::<T>::from_vec(sample::<T>(24), [4, 6]).unwrap();
            let b = Tensor::<T>::from_vec(sample::<T>(30)[24..].to_vec(), [6]).unwrap();
            let c = Tensor::<bool>::from_vec(vec![true, false, false, true], [4, 1]).unwrap();
            let (ga, gb, gc) = (
                a.to_device(dev).unwrap(),
                b.to_device(dev).unwrap(),
                c.to_device(dev).unwrap(),
            );
            let g = |t: Tensor<T, _>| t.to_vec();
            same(
                g(Tensor::where_(&gc, &ga, &gb)),
                Tensor::where_(&c, &a, &b).to_vec(),
                "where_",
            );
            same(
                g(Tensor::where_(&gc, &ga.t().t(), &gb)),
                Tensor::where_(&c, &a, &b).to_vec(),
                "where_ strided",
            );
            let v = sample::<T>(9)[8];
            same(
                g(ga.masked_fill(&gc, v)),
                a.masked_fill(&c, v).to_vec(),
                "masked_fill",
            );
            // copy_from into a column view, with a broadcast source.
            let (mut cv, mut gv) = (a.deep_copy(), ga.deep_copy());
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
                g(Tensor::concat(&[&gat, &gat.narrow(0, 1, 2).unwrap()], 0)),
                Tensor::concat(&[&at, &at.narrow(0, 1, 2).unwrap()], 0).to_vec(),
                "concat",
            );
            same(
                g(Tensor::stack(&[&ga, &ga], 2)),
                Tensor::stack(&[&a, &a], 2).to_vec(),
                "stack",
            );
            // index_select / gather, negative indices, strided sources.
            let idx = Tensor::<i64>::from_vec(vec![3, -1, 0, 1, 1], [5]).unwrap();
            let gidx = idx.to_device(dev).unwrap();
            for ax in [0, 1] {
                let i3 = idx.narrow(0, 0, 4).unwrap();
                let (ci, gi) = if ax == 0 {
                    (i3.clone(), i3.to_device(dev).unwrap())
                } else {
                    (idx.clone(), gidx.clone())
                };
                same(
                    g(ga.index_select(ax, &gi)),
                    a.index_select(ax, &ci).to_vec(),
                    "index_select",
                );
                same(
                    g(gat.index_select(1 - ax, &gi)),
                    at.index_select(1 - ax, &ci).to_vec(),
                    "index_select strided",
                );
            }
            let bad = Tensor::<i64>::from_vec(vec![0, 6], [2]).unwrap();
            assert_eq!(
                ga.try_index_select(1, &bad.to_device(dev).unwrap())
                    .unwrap_err()
                    .to_string(),
                a.try_index_select(1, &bad).unwrap_err().to_string()
            );
            let gi = Tensor::<i64>::from_vec(vec![5, 0, -1, 2, 2, 1, 0, 0, 3, 4, 5, -6], [4, 3])
                .unwrap();
            same(
                g(ga.gather(1, &gi.to_device(dev).unwrap())),
                a.gather(1, &gi).to_vec(),
                "gather",
            );
            same(
                g(gat.gather(0, &gi.t().to_device(dev).unwrap())),
                at.gather(0, &gi.t()).to_vec(),
                "gather strided",
            );
            let gbad = Tensor::<i64>::from_vec(vec![0, 1, 6, 0], [2, 2]).unwrap();
            assert_eq!(
                ga.try_gather(1, &gbad.to_device(dev).unwrap())
                    .unwrap_err()
                    .to_string(),
                a.try_gather(1, &gbad).unwrap_err().to_string()
            );
        }
        for_types!(run(&dev): f32, f64, f16, bf16, i16, i32, i64, u8, bool);
    });
}

/// arange_on equals the CPU's arange; rand_on/randn_on are reproducible from manual_seed, in
/// range, and have the right moments.
#[test]
fn generators() {
    on_every_device!("generators", |dev| {
        fn ar<T: NumElement>(dev: &impl Backend, a: f64, b: f64, s: f64) {
            let (a, b, s) = (T::from_f64(a), T::from_f64(b), T::from_f64(s));
            same(
                Tensor::<T, _>::arange_on(a, b, s, dev).unwrap().to_vec(),
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
        assert!(Tensor::<f32, _>::arange_on(0.0, 1.0, 0.0, &dev).is_err());
        fn moments<T: FloatElement>(dev: &impl Backend) {
            let n = 1 << 20;
            let draw = || Tensor::<T, _>::rand_on([n], dev).unwrap().to_vec();
            assert!(
                crate::common::reproducible(11, draw),
                "rand_on reproducible {}",
                T::DTYPE
            );
            let u = draw();
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
            let z = f64v(Tensor::<T, _>::randn_on([n], dev).unwrap().to_vec());
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
    });
}

/// The NaN-skipping reductions and logsumexp equal the CPU's: NaN inside slices, an all-NaN
/// slice (NaN, 0 or an Err as on the CPU), infinities, every axis set.
#[test]
fn nan_reductions_match_cpu() {
    on_every_device!("nan_reductions_match_cpu", |dev| {
        fn run<T: FloatElement>(dev: &impl Backend) {
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
            let g = c.to_device(dev).unwrap();
            let rel = tol(T::DTYPE) * 8.0;
            let close = |a: Tensor<T, _>, b: Tensor<T>| {
                assert_eq!(a.dims(), b.dims());
                assert_close(&f64v(a.to_vec()), &f64v(b.to_vec()), rel)
            };
            for t in [false, true] {
                let (c, g) = if t {
                    (c.t(), g.t())
                } else {
                    (c.clone(), g.clone())
                };
                for axes in [&[][..], &[0], &[1], &[-1, 0]] {
                    for keep in [false, true] {
                        close(g.nansum(axes, keep), c.nansum(axes, keep));
                        close(g.nanproduct(axes, keep), c.nanproduct(axes, keep));
                        close(g.nanmax(axes, keep), c.nanmax(axes, keep));
                        close(g.nanmin(axes, keep), c.nanmin(axes, keep));
                        close(g.nanmean(axes, keep), c.nanmean(axes, keep));
                        close(g.logsumexp(axes, keep), c.logsumexp(axes, keep));
                        let (ga, ca) = (g.try_nanargmax(axes, keep), c.try_nanargmax(axes, keep));
                        assert_eq!(ga.is_err(), ca.is_err(), "nanargmax {axes:?}");
                        if let (Ok(ga), Ok(ca)) = (ga, ca) {
                            assert_eq!(ga.to_vec(), ca.to_vec());
                        }
                    }
                }
            }
            // Without the all-NaN row every slice has a value.
            let (c2, g2) = (c.narrow(0, 2, 3).unwrap(), g.narrow(0, 2, 3).unwrap());
            for axes in [&[][..], &[0], &[1]] {
                assert_eq!(
                    g2.nanargmin(axes, false).to_vec(),
                    c2.nanargmin(axes, false).to_vec()
                );
            }
            assert!(g.try_nanargmax(&[1], false).is_err());
            assert!(
                Tensor::<T, _>::zeros_on([2, 0], dev)
                    .unwrap()
                    .try_nanmax(&[1], false)
                    .is_err()
            );
        }
        for_types!(run(&dev): f32, f64, f16, bf16);
    });
}

/// Long rows and columns take the split path (partials combined by the last block): sums,
/// extremes and arg-reductions with NaN, ties and infinities still equal the CPU's.
#[test]
fn split_reductions_match_cpu() {
    on_every_device!("split_reductions_match_cpu", |dev| {
        fn run<T: NumElement>(dev: &impl Backend) {
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
            let g = c.to_device(dev).unwrap();
            let rel = tol(T::DTYPE) * 64.0;
            for t in [false, true] {
                let (c, g) = if t {
                    (c.t(), g.t())
                } else {
                    (c.clone(), g.clone())
                };
                for axes in [&[][..], &[0], &[1]] {
                    assert_close(
                        &f64v(g.sum(axes, false).to_vec()),
                        &f64v(c.sum(axes, false).to_vec()),
                        rel,
                    );
                    same(
                        g.max(axes, false).to_vec(),
                        c.max(axes, false).to_vec(),
                        "split max",
                    );
                    assert_eq!(
                        g.argmax(axes, false).to_vec(),
                        c.argmax(axes, false).to_vec()
                    );
                    assert_eq!(
                        g.argmin(axes, false).to_vec(),
                        c.argmin(axes, false).to_vec()
                    );
                    assert_close(
                        &f64v(g.var(axes, 1, false).to_vec()),
                        &f64v(c.var(axes, 1, false).to_vec()),
                        rel,
                    );
                    assert_eq!(g.all(axes, false).to_vec(), c.all(axes, false).to_vec());
                }
            }
        }
        for_types!(run(&dev): f32, bf16, i32, u8);
    });
}

/// cumsum and cumprod on the GPU equal the CPU's bit for bit (same order, same accumulator):
/// every dtype, every axis, contiguous, transposed and sliced inputs, NaN/inf, wrapping
/// integers, an empty axis; a bad axis is the CPU's `Err`.
#[test]
fn scans_match_cpu() {
    on_every_device!("scans_match_cpu", |dev| {
        fn run<T: Element>(dev: &impl Backend) {
            let c = Tensor::<T>::from_vec(sample::<T>(3 * 40 * 5), [3, 40, 5]).unwrap();
            let g = c.to_device(dev).unwrap();
            let views = |c: &Tensor<T>, g: &Tensor<T, _>| {
                vec![
                    (c.clone(), g.clone()),
                    (c.transpose(0, 2).unwrap(), g.transpose(0, 2).unwrap()),
                    (c.narrow(1, 3, 30).unwrap(), g.narrow(1, 3, 30).unwrap()),
                ]
            };
            for (c, g) in views(&c, &g) {
                for axis in [0, 1, 2, -1] {
                    let what = format!("axis {axis} of {}", c.shape());
                    let (want, got) = (c.cumsum(axis), g.cumsum(axis));
                    assert_eq!(got.dims(), want.dims());
                    same(got.to_vec(), want.to_vec(), &format!("cumsum {what}"));
                    let (want, got) = (c.cumprod(axis), g.cumprod(axis));
                    same(got.to_vec(), want.to_vec(), &format!("cumprod {what}"));
                }
            }
            let e = Tensor::<T>::zeros([2, 0, 3]).unwrap();
            let ge = e.to_device(dev).unwrap().cumsum(1);
            assert_eq!((ge.dims(), ge.to_vec().len()), (&[2, 0, 3][..], 0));
            let err = g.try_cumsum(3).unwrap_err().to_string();
            assert_eq!(err, c.try_cumsum(3).unwrap_err().to_string());
        }
        for_types!(run(&dev): f32, f64, f16, bf16, i16, i32, i64, u8, bool);
    });
}

/// The combining ops (defined once for both devices) give the CPU's values on the GPU:
/// split, chunk, tril/triu, diag, diag_embed, pad, roll, tile, repeat_interleave, on
/// contiguous and transposed inputs.
#[test]
fn combining_ops_match_cpu() {
    on_every_device!("combining_ops_match_cpu", |dev| {
        fn run<T: Element>(dev: &impl Backend) {
            let c = Tensor::<T>::from_vec(sample::<T>(4 * 5), [4, 5]).unwrap();
            let g = c.to_device(dev).unwrap();
            for (c, g) in [(c.clone(), g.clone()), (c.t(), g.t())] {
                let eq = |got: Tensor<T, _>, want: Tensor<T>, what: &str| {
                    assert_eq!(got.dims(), want.dims(), "{what}");
                    same(got.to_vec(), want.to_vec(), what);
                };
                let sizes = [1, c.dims()[0] - 1];
                for (gs, cs) in g.split(&sizes, 0).into_iter().zip(c.split(&sizes, 0)) {
                    eq(gs, cs, "split");
                }
                for (gs, cs) in g.chunk(2, 1).into_iter().zip(c.chunk(2, 1)) {
                    eq(gs, cs, "chunk");
                }
                for k in [-1, 0, 2] {
                    eq(g.tril(k), c.tril(k), "tril");
                    eq(g.triu(k), c.triu(k), "triu");
                    eq(g.diag(k), c.diag(k), "diag of a matrix");
                }
                let row = c.narrow(0, 0, 1).unwrap().squeeze();
                let grow = g.narrow(0, 0, 1).unwrap().squeeze();
                eq(grow.diag(1), row.diag(1), "diag of a vector");
                eq(g.diag_embed(), c.diag_embed(), "diag_embed");
                let one = T::from_f64(1.0);
                eq(
                    g.pad(&[(1, 0), (2, 1)], one),
                    c.pad(&[(1, 0), (2, 1)], one),
                    "pad",
                );
                eq(g.roll(-3, 1), c.roll(-3, 1), "roll");
                eq(g.tile(&[2, 1, 2]), c.tile(&[2, 1, 2]), "tile");
                eq(
                    g.repeat_interleave(2, 0),
                    c.repeat_interleave(2, 0),
                    "repeat_interleave",
                );
            }
            assert!(!g.tril(0).shares_storage_with(&g));
            let v = g.narrow(0, 0, 1).unwrap().squeeze();
            assert_eq!(v.diag_embed().dims(), &[5, 5]);
        }
        for_types!(run(&dev): f32, bf16, i64, u8, bool);
    });
}

/// In-place and `_into` forms on the GPU give the out-of-place results, broadcast `other`
/// into `self`, write through views, and refuse a result that does not fit.
#[test]
fn inplace_and_into_forms() {
    on_every_device!("inplace_and_into_forms", |dev| {
        let c = Tensor::<f32>::from_vec(sample::<f32>(12), [3, 4]).unwrap();
        let row = Tensor::<f32>::from_vec(vec![1.0, -2.0, 0.5, 3.0], [4]).unwrap();
        let (g, grow) = (c.to_device(&dev).unwrap(), row.to_device(&dev).unwrap());
        let mut a = g.deep_copy();
        a.add_(&grow).unwrap();
        same(a.to_vec(), c.add(&row).to_vec(), "add_");
        // sin and exp are compared with the GPU's own out-of-place kernels: the device's libm
        // may differ from the host's by an ulp.
        let gsin = g.try_add(&grow).unwrap().sin();
        a.sin_().unwrap();
        same(a.to_vec(), gsin.to_vec(), "sin_");
        a.mul_scalar_(2.0).unwrap();
        same(
            a.to_vec(),
            gsin.try_mul_scalar(2.0).unwrap().to_vec(),
            "mul_scalar_",
        );
        let mut out = Tensor::<f32>::zeros([4, 3])
            .unwrap()
            .to_device(&dev)
            .unwrap()
            .t();
        g.sub_into(&grow, &mut out).unwrap();
        same(
            out.to_vec(),
            c.sub(&row).to_vec(),
            "sub_into a transposed output",
        );
        g.exp_into(&mut out).unwrap();
        same(out.to_vec(), g.exp().to_vec(), "exp_into");
        let mut small = grow.deep_copy();
        let err = small.add_(&g).unwrap_err().to_string();
        assert!(
            err.contains("add_") && err.contains("(4,)") && err.contains("(3, 4)"),
            "{err}"
        );
        same(small.to_vec(), row.to_vec(), "unchanged after the error");
        let mut wide = grow.broadcast_to([3, 4]).unwrap();
        assert!(wide.add_(&g).is_err(), "a broadcast view cannot be written");
        // Outputs that alias an operand: written directly on CUDA when the operand is exactly
        // the output, through a copy when it overlaps otherwise or the output is offset.
        fn aliasing<D: Backend>(t: &Tensor<f32, D>, mut big: Tensor<f32, D>) -> Vec<Vec<f32>> {
            let mut r = Vec::new();
            let mut a = t.deep_copy();
            let same = a.clone();
            a.add_(&same).unwrap();
            r.push(a.to_vec());
            let row = a.narrow(0, 0, 1).unwrap();
            a.mul_(&row).unwrap();
            r.push(a.to_vec());
            let same = a.clone();
            t.sub_into(&same, &mut a).unwrap();
            r.push(a.to_vec());
            a.mul_scalar_(3.0).unwrap();
            r.push(a.to_vec());
            let mut inner = big.narrow(0, 1, 3).unwrap();
            t.add_into(&a, &mut inner).unwrap();
            r.push(big.to_vec());
            let col = big.narrow(1, 2, 1).unwrap();
            big.sub_(&col).unwrap();
            r.push(big.to_vec());
            r
        }
        let big = || Tensor::<f32>::from_vec((0..16).map(|i| i as f32).collect(), [4, 4]);
        let want = aliasing(&c, big().unwrap());
        let got = aliasing(&g, big().unwrap().to_device(&dev).unwrap());
        for (k, (g, w)) in got.into_iter().zip(want).enumerate() {
            same(g, w, &format!("aliasing case {k}"));
        }
        let ci = Tensor::<i32>::from_vec(vec![1, -2, i32::MIN, 7], [4]).unwrap();
        // A copy: on the CPU, to_device shares the buffer.
        let mut gi = ci.to_device(&dev).unwrap().deep_copy();
        gi.neg_().unwrap();
        assert_eq!(gi.to_vec(), ci.neg().to_vec());
        let zero = Tensor::<i32>::zeros([4]).unwrap().to_device(&dev).unwrap();
        let before = gi.to_vec();
        assert!(gi.div_(&zero).is_err());
        assert_eq!(gi.to_vec(), before, "a failed in-place op writes nothing");
    });
}

/// A 2^24-element f32 sum on the GPU meets the CPU's accuracy bound against f64.
#[test]
fn sum_accuracy() {
    on_every_device!("sum_accuracy", |dev| {
        manual_seed(7);
        let a = Tensor::<f32>::rand([1 << 24]).unwrap();
        let want: f64 = a.to_vec().iter().map(|&x| x as f64).sum();
        let got = a.to_device(&dev).unwrap().sum(&[], false).to_vec()[0] as f64;
        assert!(((got - want) / want).abs() <= 1e-6, "{got} vs {want}");
    });
}

/// Binary ops over 2-d operands whose rows are contiguous or broadcast (a bias row, a column),
/// which the CUDA kernels read in packs within a row, beside the layouts that cannot be
/// (transposed, unaligned, a row stride or row length not a multiple of the pack), equal to
/// the CPU's bit for bit, for pack widths 2 (f64) to 16 (u8).
#[test]
fn row_broadcasts_match_cpu() {
    on_every_device!("row_broadcasts", |dev| {
        fn run<T: NumElement, D: Backend>(dev: &D) {
            let rows = 5;
            for cols in [48, 12] {
                let t = |n: usize, skip: usize, dims: [usize; 2]| {
                    Tensor::<T>::from_vec(sample::<T>(n + skip)[skip..].to_vec(), dims).unwrap()
                };
                let a = t(rows * cols, 3, [rows, cols]);
                let wide = t(rows * (cols + 4), 0, [rows, cols + 4]);
                let tall = t(cols * rows, 5, [cols, rows]);
                let (ga, gw, gt) = (
                    a.to_device(dev).unwrap(),
                    wide.to_device(dev).unwrap(),
                    tall.to_device(dev).unwrap(),
                );
                // Each operand as the CPU holds it and as made on the device (the views too).
                let others: [(&str, Tensor<T>, Tensor<T, D>); 6] = [
                    (
                        "row",
                        t(cols, 8, [1, cols]),
                        t(cols, 8, [1, cols]).to_device(dev).unwrap(),
                    ),
                    (
                        "column",
                        t(rows, 9, [rows, 1]),
                        t(rows, 9, [rows, 1]).to_device(dev).unwrap(),
                    ),
                    ("transposed", tall.t(), gt.t()),
                    (
                        "row stride cols + 4",
                        wide.narrow(1, 0, cols).unwrap(),
                        gw.narrow(1, 0, cols).unwrap(),
                    ),
                    (
                        "unaligned",
                        wide.narrow(1, 2, cols).unwrap(),
                        gw.narrow(1, 2, cols).unwrap(),
                    ),
                    (
                        "one row of a view",
                        wide.narrow(0, 1, 1).unwrap().narrow(1, 0, cols).unwrap(),
                        gw.narrow(0, 1, 1).unwrap().narrow(1, 0, cols).unwrap(),
                    ),
                ];
                for (what, b, gb) in &others {
                    let what = format!("{what}, {cols} columns");
                    same(
                        ga.try_add(gb).unwrap().to_vec(),
                        a.try_add(b).unwrap().to_vec(),
                        &what,
                    );
                    same(
                        gb.try_sub(&ga).unwrap().to_vec(),
                        b.try_sub(&a).unwrap().to_vec(),
                        &what,
                    );
                    same(
                        ga.try_gt(gb).unwrap().to_vec(),
                        a.try_gt(b).unwrap().to_vec(),
                        &what,
                    );
                }
            }
        }
        run::<f32, _>(&dev);
        run::<f64, _>(&dev);
        run::<bf16, _>(&dev);
        run::<f16, _>(&dev);
        run::<i32, _>(&dev);
        run::<u8, _>(&dev);
    });
}
