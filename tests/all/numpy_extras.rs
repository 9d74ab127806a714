//! NumPy 2.4's answers (`tests/data/numpy/extras.npz`, made by `make/extras.py`) for
//! `unfold`, `convolve`/`correlate`, `cbrt`, `round_decimals`, `ptp`, `average`,
//! `logspace`/`geomspace`, `interp`, `polyval`/`polyfit`, the set routines and `lexsort`: on
//! every device in f64, integer forms where NumPy has them; gradients and refused arguments.

use crate::common::assert_close;
use std::collections::BTreeMap;
use typed_tensor::autograd::gradcheck;
use typed_tensor::io::load_npz;
use typed_tensor::ops::windows::ConvMode;
use typed_tensor::prelude::*;

struct Fixture(BTreeMap<String, DynTensor>);

impl Fixture {
    fn f<D: Backend>(&self, k: &str, dev: &D) -> Tensor<f64, D> {
        self.0[k]
            .clone()
            .downcast::<f64, Cpu>()
            .unwrap_or_else(|_| panic!("{k}"))
            .to_device(dev)
            .unwrap()
    }
    fn i<D: Backend>(&self, k: &str, dev: &D) -> Tensor<i64, D> {
        self.0[k]
            .clone()
            .downcast::<i64, Cpu>()
            .unwrap_or_else(|_| panic!("{k}"))
            .to_device(dev)
            .unwrap()
    }
    fn v(&self, k: &str) -> Vec<f64> {
        self.f(k, &Cpu).to_vec()
    }
    fn iv(&self, k: &str) -> Vec<i64> {
        self.i(k, &Cpu).to_vec()
    }
}

fn host<T: Element, D: Backend>(t: &Tensor<T, D>) -> Vec<T> {
    t.to_device(&Cpu).unwrap().to_vec()
}

/// Values equal, NaN meeting NaN.
#[track_caller]
fn same(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            g == w || (g.is_nan() && w.is_nan()),
            "{what}: element {i} is {g}, NumPy {w}"
        );
    }
}

fn cases<D: Backend>(a: &Fixture, dev: &D) {
    for i in 0..6 {
        let p = a.iv(&format!("unfold{i}_p"));
        let x = a.f(&format!("unfold{i}_x"), dev);
        let y = x.unfold(p[0], p[1] as usize, p[2] as usize);
        let want = a.f(&format!("unfold{i}_y"), &Cpu);
        assert_eq!(y.dims(), want.dims(), "unfold{i}");
        same(&host(&y), &want.to_vec(), &format!("unfold{i}"));
    }
    let modes = [ConvMode::Full, ConvMode::Same, ConvMode::Valid];
    for i in 0..7 {
        for (j, mode) in modes.into_iter().enumerate() {
            let k = |s: &str| format!("conv{i}_{j}_{s}");
            let (x, v) = (a.f(&k("a"), dev), a.f(&k("v"), dev));
            assert_close(&host(&x.convolve(&v, mode)), &a.v(&k("y")), 1e-12);
            assert_close(&host(&x.correlate(&v, mode)), &a.v(&k("c")), 1e-12);
            let (xi, vi) = (a.i(&k("ai"), dev), a.i(&k("vi"), dev));
            assert_eq!(host(&xi.convolve(&vi, mode)), a.iv(&k("yi")), "{}", k("yi"));
            assert_eq!(
                host(&xi.correlate(&vi, mode)),
                a.iv(&k("ci")),
                "{}",
                k("ci")
            );
        }
    }
    same(&host(&a.f("cbrt_x", dev).cbrt()), &a.v("cbrt_y"), "cbrt");
    for d in 0..6 {
        let dec = a.iv(&format!("round{d}_p"))[0] as i32;
        let y = a.f(&format!("round{d}_x"), dev).round_decimals(dec);
        same(
            &host(&y),
            &a.v(&format!("round{d}_y")),
            &format!("round({dec})"),
        );
    }
    let x = a.f("ptp_x", dev);
    same(&host(&x.ptp(&[0], false)), &a.v("ptp_y0"), "ptp 0");
    same(&host(&x.ptp(&[1], false)), &a.v("ptp_y1"), "ptp 1");
    same(&host(&x.ptp(&[], false)), &a.v("ptp_y"), "ptp");
    assert_eq!(host(&a.i("ptpi_x", dev).ptp(&[-1], false)), a.iv("ptpi_y1"));
    let (w1, wf) = (a.f("average_w1", dev), a.f("average_wf", dev));
    let x = a.f("average_x", dev);
    assert_close(
        &host(&x.average(&[1], Some(&w1), false)),
        &a.v("average_y1"),
        1e-12,
    );
    assert_close(
        &host(&x.average(&[], Some(&wf), false)),
        &a.v("average_yf"),
        1e-12,
    );
    assert_close(
        &host(&x.average(&[0], Some(&wf), false)),
        &a.v("average_yf0"),
        1e-12,
    );
    assert_close(
        &host(&x.average(&[0], None, false)),
        &a.v("average_y"),
        1e-12,
    );
    let ls = Tensor::<f64, D>::logspace_on(-2.0, 3.0, 11, 10.0, dev).unwrap();
    assert_close(&host(&ls), &a.v("logspace_y"), 1e-14);
    let ls = Tensor::<f64, D>::logspace_on(0.0, 10.0, 5, 2.0, dev).unwrap();
    assert_close(&host(&ls), &a.v("logspace_y2"), 1e-14);
    for (k, (s, e, n)) in [
        ("y", (1.0, 1000.0, 7)),
        ("y2", (-1e-3, -10.0, 5)),
        ("y3", (5.0, 5.0, 3)),
    ] {
        let g = Tensor::<f64, D>::geomspace_on(s, e, n, dev).unwrap();
        assert_close(&host(&g), &a.v(&format!("geomspace_{k}")), 1e-14);
    }
    let (x, xp, fp) = (
        a.f("interp_x", dev),
        a.f("interp_xp", dev),
        a.f("interp_fp", dev),
    );
    assert_close(
        &host(&x.interp(&xp, &fp, None, None)),
        &a.v("interp_y"),
        1e-14,
    );
    assert_close(
        &host(&x.interp(&xp, &fp, Some(-9.0), Some(9.0))),
        &a.v("interp_ylr"),
        1e-14,
    );
    let one = |t: &Tensor<f64, D>| t.narrow(0, 0, 1).unwrap();
    assert_close(
        &host(&x.interp(&one(&xp), &one(&fp), None, None)),
        &a.v("interp_y1"),
        1e-14,
    );
    let (p, x) = (a.f("polyval_p", dev), a.f("polyval_x", dev));
    assert_close(&host(&p.polyval(&x)), &a.v("polyval_y"), 1e-13);
    let (pi, xi) = (a.i("polyval_pi", dev), a.i("polyval_xi", dev));
    assert_eq!(host(&pi.polyval(&xi)), a.iv("polyval_yi"));
    let (x, y, y2) = (
        a.f("polyfit_x", dev),
        a.f("polyfit_y", dev),
        a.f("polyfit_y2", dev),
    );
    assert_close(&host(&x.polyfit(&y, 0)), &a.v("polyfit_c0"), 1e-11);
    assert_close(&host(&x.polyfit(&y, 2)), &a.v("polyfit_c2"), 1e-11);
    assert_close(&host(&x.polyfit(&y2, 3)), &a.v("polyfit_c3"), 1e-10);
    let (sa, sb) = (a.f("sets_a", dev), a.f("sets_b", dev));
    same(&host(&sa.union1d(&sb)), &a.v("sets_union"), "union1d");
    same(
        &host(&sa.intersect1d(&sb)),
        &a.v("sets_inter"),
        "intersect1d",
    );
    same(&host(&sa.setdiff1d(&sb)), &a.v("sets_diff"), "setdiff1d");
    let (k0, k1, k2) = (
        a.f("lexsort_k0", dev),
        a.f("lexsort_k1", dev),
        a.f("lexsort_k2", dev),
    );
    assert_eq!(host(&Tensor::lexsort(&[&k0, &k1])), a.iv("lexsort_y2"));
    assert_eq!(host(&Tensor::lexsort(&[&k0, &k1, &k2])), a.iv("lexsort_y3"));
    let (m, n) = (a.f("lexsort2d_a", dev), a.f("lexsort2d_b", dev));
    assert_eq!(host(&Tensor::lexsort(&[&m, &n])), a.iv("lexsort2d_y"));
    // QR: LAPACK's factors (faer's Householder reflections choose the same signs here).
    for i in 0..4 {
        let (q, r) = a.f(&format!("qr{i}_a"), dev).qr();
        assert_close(&host(&q), &a.v(&format!("qr{i}_q")), 1e-12);
        assert_close(&host(&r), &a.v(&format!("qr{i}_r")), 1e-12);
    }
    assert_close(
        &host(&a.f("eigvalsh_a", dev).eigvalsh()),
        &a.v("eigvalsh_w"),
        1e-12,
    );
}

#[test]
fn numpy_extras_match_numpy() {
    let a = Fixture(
        load_npz(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/numpy/extras.npz"
        ))
        .unwrap(),
    );
    on_every_device!("numpy_extras_match_numpy", |dev| {
        cases(&a, &dev);
    });
    // Partition: the kth element where a sort puts it, smaller ones before, larger after.
    let x = tensor![5.0f64, 1.0, 4.0, 2.0, 3.0];
    let p = x.partition(2, 0).to_vec();
    assert_eq!(p[2], 3.0);
    assert!(p[..2].iter().all(|&v| v <= 3.0) && p[3..].iter().all(|&v| v >= 3.0));
    let ip = x.argpartition(-1, 0).to_vec();
    assert_eq!(ip[4], 0);
    // 16-bit and f32: cbrt and round_decimals at their precision.
    let h = Tensor::<f32>::from_vec(vec![-27.0, 0.001, 8.0], [3]).unwrap();
    assert_close(&crate::common::f64s(&h.cbrt()), &[-3.0, 0.1, 2.0], 1e-6);
    let b = Tensor::<bf16>::from_vec(vec![bf16::from_f32(1.26)], [1]).unwrap();
    assert_close(&crate::common::f64s(&b.round_decimals(1)), &[1.3], 8e-3);
}

#[test]
fn numpy_extras_gradients_and_refusals() {
    let t = |v: &[f64]| Tensor::<f64>::from_vec(v.to_vec(), [v.len()]).unwrap();
    let x = t(&[0.3, -1.2, 2.5, 0.7, -0.4, 1.1]);
    let k = t(&[0.5, -1.0, 2.0]);
    let check =
        |name: &str, f: &dyn Fn(&[Tensor<f64>]) -> Result<Tensor<f64>>, x: &[Tensor<f64>]| {
            gradcheck(f, x, 1e-6, 1e-6).unwrap_or_else(|e| panic!("{name}: {e}"))
        };
    check("unfold", &|v| v[0].try_unfold(0, 3, 2), &[x.clone()]);
    check(
        "unfold strided",
        &|v| v[0].try_reshape([2, 3])?.t().try_unfold(1, 2, 1),
        &[x.clone()],
    );
    for mode in [ConvMode::Full, ConvMode::Same, ConvMode::Valid] {
        check(
            "convolve",
            &|v| v[0].try_convolve(&v[1], mode),
            &[x.clone(), k.clone()],
        );
        check(
            "correlate",
            &|v| v[1].try_correlate(&v[0], mode),
            &[x.clone(), k.clone()],
        );
    }
    check("cbrt", &|v| v[0].try_cbrt(), &[x.clone()]);
    check(
        "ptp",
        &|v| v[0].try_reshape([2, 3])?.try_ptp(&[1], false),
        &[x.clone()],
    );
    check(
        "average",
        &|v| {
            v[0].try_reshape([2, 3])?
                .try_average(&[1], Some(&v[1]), true)
        },
        &[x.clone(), k.abs()],
    );
    check(
        "polyval",
        &|v| v[1].try_polyval(&v[0]),
        &[x.clone(), k.clone()],
    );
    let xp = t(&[-1.0, 0.0, 1.5, 3.0]);
    let fp = t(&[0.2, -0.7, 1.9, 0.4]);
    check(
        "interp",
        &|v| v[0].try_interp(&xp, &v[1], None, None),
        &[x.clone(), fp.clone()],
    );
    check(
        "polyfit",
        &|v| v[0].try_polyfit(&v[1], 2),
        &[x.clone(), x.sin()],
    );
    let tall = Tensor::<f64>::from_vec(
        (0..12).map(|v| ((v * 7 % 11) as f64 - 5.0) / 3.0).collect(),
        [2, 3, 2],
    )
    .unwrap();
    check("qr q", &|v| Ok(v[0].try_qr()?.0), &[tall.clone()]);
    check("qr r", &|v| Ok(v[0].try_qr()?.1), &[tall.clone()]);
    check(
        "qr both",
        &|v| {
            let (q, r) = v[0].try_qr()?;
            q.try_sum(&[-1], false)?
                .try_add(&r.try_sum(&[-1], false)?.try_sum(&[-1], true)?)
        },
        &[tall.clone()],
    );
    check(
        "qr square",
        &|v| Ok(v[0].narrow(1, 0, 2)?.try_qr()?.1),
        &[tall.clone()],
    );
    let square = tall.narrow(1, 0, 2).unwrap().try_contiguous().unwrap();
    check(
        "eigvalsh",
        &|v| v[0].try_add(&v[0].transpose(-1, -2)?)?.try_eigvalsh(),
        &[square],
    );
    // A wide matrix factorizes but has no gradient.
    let wide = tall
        .transpose(-1, -2)
        .unwrap()
        .try_contiguous()
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    let e = wide
        .qr()
        .1
        .sum(&[], false)
        .try_backward()
        .unwrap_err()
        .to_string();
    assert!(e.contains("qr"), "{e}");

    // Refusals name the op.
    let e = |r: Result<Tensor<f64>>| r.unwrap_err().to_string();
    let m = Tensor::<f64>::zeros([2, 2]).unwrap();
    let empty = Tensor::<f64>::zeros([0]).unwrap();
    for (op, msg) in [
        ("unfold", e(x.try_unfold(0, 7, 1))),
        ("unfold", e(x.try_unfold(0, 2, 0))),
        (
            "unfold",
            e(Tensor::<f64>::from_vec(vec![1.0], [])
                .unwrap()
                .try_unfold(0, 1, 1)),
        ),
        ("convolve", e(x.try_convolve(&empty, ConvMode::Full))),
        ("correlate", e(m.try_correlate(&k, ConvMode::Valid))),
        ("round_decimals", e(x.try_round_decimals(400))),
        ("polyval", e(m.try_polyval(&x))),
        ("polyfit", e(m.try_polyfit(&x, 1))),
        ("polyfit", e(x.try_polyfit(&x, usize::MAX))),
        ("interp", e(x.try_interp(&empty, &empty, None, None))),
        ("interp", e(x.try_interp(&xp, &k, None, None))),
        ("partition", e(x.try_partition(6, 0))),
        ("average", e(m.try_average(&[], Some(&k), false))),
        ("ptp", e(empty.try_ptp(&[], false))),
    ] {
        assert!(msg.contains(op) || msg.contains("max"), "{op}: {msg}");
    }
    assert!(Tensor::<f64>::try_lexsort(&[]).is_err());
    assert!(Tensor::try_lexsort(&[&x, &k]).is_err());
    assert!(Tensor::<f64>::logspace(0.0, 1.0, 3, f64::NAN).is_err());
    for (s, e) in [(0.0, 1.0), (-1.0, 1.0), (1.0, f64::INFINITY)] {
        assert!(Tensor::<f64>::geomspace(s, e, 4).is_err());
    }
    // An empty axis has no windows of size 1 or more, and zero of size 0.
    assert_eq!(empty.unfold(0, 0, 1).dims(), &[1, 0]);
    // 2^40 windows of nothing: no walk over them (found by the fuzzer: it ran for minutes).
    let wide = Tensor::<f64>::zeros([1 << 40, 0]).unwrap();
    assert_eq!(wide.unfold(0, 0, 1).dims(), &[(1 << 40) + 1, 0, 0]);
    // Adaptive pooling into 2^40 windows is refused by the index's allocation, at once.
    let x4 = Tensor::<f64>::zeros([1, 1, 3, 3]).unwrap();
    assert!(typed_tensor::nn::adaptive_max_pool2d(&x4, (1 << 40, 1)).is_err());
}

/// `unfold`'s strided copy and its overlap-add rule, for every relation of step and size (a
/// step below, at and above the size, one window with any step), on contiguous, transposed and
/// flipped input along each axis: values against windows gathered by `index_select`, and
/// first- and second-order gradients against central differences.
#[test]
fn unfold_windows_and_their_gradients() {
    let x = Tensor::<f64>::from_vec((0..30).map(|v| (v as f64 * 0.71).sin()).collect(), [5, 6])
        .unwrap();
    let inputs = [x.clone(), x.t(), x.flip(&[1]).unwrap()];
    for input in &inputs {
        for ax in 0..2 {
            let n = input.dims()[ax];
            for (size, step) in [
                (2, 1),
                (3, 3),
                (2, 3),
                (1, 2),
                (n, 1),
                (n - 1, usize::MAX),
                (0, 2),
            ] {
                let y = input.try_unfold(ax as i64, size, step).unwrap();
                let count = if size == n - 1 && step == usize::MAX {
                    1
                } else {
                    (n - size) / step + 1
                };
                let index: Vec<i64> = (0..count)
                    .flat_map(|w| (0..size).map(move |j| (w * step.min(n) + j) as i64))
                    .collect();
                let idx = Tensor::<i64>::from_vec(index.clone(), [index.len()]).unwrap();
                let want = input
                    .try_index_select(ax as i64, &idx)
                    .unwrap()
                    .try_unflatten(ax as i64, &[count as i64, size as i64])
                    .unwrap()
                    .movedim(&[ax as i64 + 1], &[-1])
                    .unwrap();
                assert_eq!(y.dims(), want.dims(), "ax {ax} size {size} step {step}");
                assert_eq!(y.to_vec(), want.to_vec(), "ax {ax} size {size} step {step}");
                crate::common::check_grad(
                    &format!("unfold ax {ax} size {size} step {step}"),
                    &|v| v[0].try_unfold(ax as i64, size, step)?.try_sin(),
                    std::slice::from_ref(input),
                );
            }
        }
    }
}
