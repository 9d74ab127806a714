//! The softmax family over every axis: on the CPU the column kernels for a middle axis (tasks
//! of whole slabs, and tasks of column blocks when there are few slabs) and the row kernels
//! for the last; elsewhere the composed ops. Values and gradients against the definition in
//! f64, with NaN, `±inf` and all-`-inf` lines; `cross_entropy` over `(N, C, H, W)` scores.

use crate::common::{assert_close, host_f64s};
use typed_tensor::nn::{self, Reduction};
use typed_tensor::prelude::*;

/// The lines along `axis` of `dims`: each the flat indices of its elements.
fn lines(dims: &[usize], axis: usize) -> Vec<Vec<usize>> {
    let outer: usize = dims[..axis].iter().product();
    let inner: usize = dims[axis + 1..].iter().product();
    let len = dims[axis];
    let mut out = vec![];
    for o in 0..outer {
        for j in 0..inner {
            out.push((0..len).map(|k| (o * len + k) * inner + j).collect());
        }
    }
    out
}

/// `(softmax, log_softmax)` of `x` along `axis` by their definition in f64 (a NaN or an
/// infinite maximum makes the line NaN, as `x - max(x)` does).
fn definition(x: &[f64], dims: &[usize], axis: usize) -> (Vec<f64>, Vec<f64>) {
    let (mut sm, mut lsm) = (vec![0.0; x.len()], vec![0.0; x.len()]);
    for line in lines(dims, axis) {
        let m = line.iter().fold(f64::NEG_INFINITY, |a, &i| a.max(x[i]));
        let z: f64 = line.iter().map(|&i| (x[i] - m).exp()).sum();
        for &i in &line {
            sm[i] = (x[i] - m).exp() / z;
            lsm[i] = (x[i] - m) - z.ln();
        }
    }
    (sm, lsm)
}

/// Equal within `tol` relative to `1 + |want|`; NaN and infinities exactly.
#[track_caller]
fn agree(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (&a, &b)) in got.iter().zip(want).enumerate() {
        let ok = match b.is_finite() {
            true => (a - b).abs() <= tol * (1.0 + b.abs()),
            false => a == b || (a.is_nan() && b.is_nan()),
        };
        assert!(ok, "{what} [{i}]: {a} vs {b}");
    }
}

/// Values spread over about ±12, one per element; `special` puts NaN, `±inf` and a line of
/// `-inf` along `axis`.
fn values(dims: &[usize], axis: usize, special: bool) -> Vec<f64> {
    let n: usize = dims.iter().product();
    let mut v: Vec<f64> = (0..n)
        .map(|i| ((i * 7919 % 1013) as f64 * 0.731).sin() * 12.0)
        .collect();
    if special {
        let ls = lines(dims, axis);
        let pick = |k: usize| &ls[k * 7 % ls.len()];
        v[pick(1)[0]] = f64::NAN;
        v[*pick(2).last().unwrap()] = f64::INFINITY;
        v[pick(3)[0]] = f64::NEG_INFINITY;
        for &i in pick(4) {
            v[i] = f64::NEG_INFINITY;
        }
        // A line far from 0: the shift keeps its digits.
        for &i in pick(5) {
            v[i] += 900.0;
        }
    }
    v
}

/// Both ops along `axis`, values (from `T`'s rounding of the input) and gradients of
/// `Σ y · w` against the definition.
fn check<T: FloatElement, D: Backend>(dev: &D, dims: &[usize], axis: usize, tol: f64) {
    let n: usize = dims.iter().product();
    let on = |v: &[f64]| -> Tensor<T, D> {
        let v = v.iter().map(|&x| T::from_f64(x)).collect();
        Tensor::from_vec_on(v, dims, dev).unwrap()
    };
    let what = |op: &str| format!("{op} of {} {dims:?} along {axis}", T::DTYPE);
    for special in [true, false] {
        let x = on(&values(dims, axis, special));
        let xs = host_f64s(&x);
        let (sm, lsm) = definition(&xs, dims, axis);
        for ax in [axis as i64, axis as i64 - dims.len() as i64] {
            agree(&what("softmax"), &host_f64s(&x.softmax(ax)), &sm, tol);
            agree(
                &what("log_softmax"),
                &host_f64s(&x.log_softmax(ax)),
                &lsm,
                tol,
            );
        }
    }
    // Gradients at finite inputs: softmax `y (w - Σ w y)`, log_softmax `w - exp(y) Σ w`.
    let xs = values(dims, axis, false);
    let ws: Vec<f64> = (0..n)
        .map(|i| ((i * 31 % 97) as f64 * 0.37).cos())
        .collect();
    let w = on(&ws);
    let ws = host_f64s(&w);
    for log in [false, true] {
        let x = on(&xs).with_requires_grad(true).unwrap();
        let y = if log {
            x.log_softmax(axis as i64)
        } else {
            x.softmax(axis as i64)
        };
        y.mul(&w).sum(&[], false).backward();
        let (sm, lsm) = definition(&host_f64s(&x), dims, axis);
        let mut want = vec![0.0; n];
        for line in lines(dims, axis) {
            let s: f64 = match log {
                true => line.iter().map(|&i| ws[i]).sum(),
                false => line.iter().map(|&i| ws[i] * sm[i]).sum(),
            };
            for &i in &line {
                want[i] = match log {
                    true => ws[i] - lsm[i].exp() * s,
                    false => sm[i] * (ws[i] - s),
                };
            }
        }
        let op = if log {
            "log_softmax grad"
        } else {
            "softmax grad"
        };
        agree(&what(op), &host_f64s(&x.grad_tensor().unwrap()), &want, tol);
    }
}

#[test]
fn softmax_family_over_every_axis_matches_its_definition() {
    on_every_device!(
        "softmax_family_over_every_axis_matches_its_definition",
        |dev| {
            for axis in 0..4 {
                check::<f64, _>(&dev, &[2, 3, 4, 5], axis, 1e-13);
                check::<f32, _>(&dev, &[2, 3, 4, 5], axis, 2e-6);
                check::<bf16, _>(&dev, &[2, 3, 4, 5], axis, 2e-2);
            }
            // Long lines in narrow blocks; a size-1 axis after the reduced one (rows).
            check::<f32, _>(&dev, &[3, 1000, 7], 1, 2e-6);
            check::<f64, _>(&dev, &[5, 9, 1], 1, 1e-13);
            // Enough work for threads: many slabs; one slab split into blocks of columns.
            check::<f32, _>(&dev, &[64, 21, 100], 1, 2e-6);
            check::<f64, _>(&dev, &[1, 600, 300], 1, 1e-13);
            check::<f32, _>(&dev, &[700, 250], 0, 2e-6);
        }
    );
}

/// `cross_entropy` of `x` and its gradient (of the sum for `Reduction::None`), as f64s, and
/// `tol`.
fn loss_and_grad<T: FloatElement, D: Backend>(
    x: &Tensor<T, D>,
    target: &Tensor<i64, D>,
    red: Reduction,
    tol: f64,
) -> (Vec<f64>, Vec<f64>, f64) {
    let x = x.clone().with_requires_grad(true).unwrap();
    let loss = nn::cross_entropy(&x, target, red, 0.0).unwrap();
    match red {
        Reduction::None => loss.sum(&[], false).backward(),
        _ => loss.backward(),
    }
    (host_f64s(&loss), host_f64s(&x.grad_tensor().unwrap()), tol)
}

/// `cross_entropy` of `(N, C, H, W)` scores (the logsumexp parts over the class axis, the
/// gradient's fused `exp(z - m) · k` per pixel) against its definition, in each reduction.
#[test]
fn cross_entropy_over_class_maps_matches_its_definition() {
    on_every_device!(
        "cross_entropy_over_class_maps_matches_its_definition",
        |dev| {
            let dims = [3usize, 5, 4, 6];
            let (n, c, s) = (3usize, 5usize, 24usize);
            let mut xs = values(&dims, 1, false);
            // One pixel's scores far from 0, where `lse - z[t]` would lose digits.
            for k in 0..c {
                xs[k * s + 7] += 60.0;
            }
            let ts: Vec<i64> = (0..n * s).map(|i| (i * 3 % c) as i64).collect();
            let target = Tensor::<i64>::from_vec(ts.clone(), [n, 4, 6])
                .unwrap()
                .to_device(&dev)
                .unwrap();
            let (_, lsm) = definition(&xs, &dims, 1);
            let at = |b: usize, k: usize, p: usize| (b * c + k) * s + p;
            let per: Vec<f64> = (0..n * s)
                .map(|i| -lsm[at(i / s, ts[i] as usize, i % s)])
                .collect();
            for (red, scale) in [
                (Reduction::None, None),
                (Reduction::Sum, Some(1.0)),
                (Reduction::Mean, Some(1.0 / (n * s) as f64)),
            ] {
                for f32s in [false, true] {
                    let x = Tensor::<f64>::from_vec(xs.clone(), dims)
                        .unwrap()
                        .to_device(&dev)
                        .unwrap();
                    let (got, grad, tol) = match f32s {
                        true => loss_and_grad(&x.cast::<f32>(), &target, red, 2e-5),
                        false => loss_and_grad(&x, &target, red, 1e-12),
                    };
                    let want = match scale {
                        None => per.clone(),
                        Some(k) => vec![per.iter().sum::<f64>() * k],
                    };
                    agree("cross_entropy", &got, &want, tol);
                    // d/dz = (softmax - one_hot) · k per pixel.
                    let k = scale.unwrap_or(1.0);
                    let mut want = vec![0.0; xs.len()];
                    for (i, &t) in ts.iter().enumerate() {
                        for cl in 0..c {
                            let j = at(i / s, cl, i % s);
                            want[j] = (lsm[j].exp() - if cl == t as usize { 1.0 } else { 0.0 }) * k;
                        }
                    }
                    agree("cross_entropy grad", &grad, &want, tol);
                }
            }
        }
    );
}

/// `logsumexp` over one run of axes anywhere (the column kernels when axes follow it) against
/// its definition: NaN lines give NaN, `+inf` lines `+inf`, all-`-inf` lines `-inf`; its
/// gradient, the softmax over the same axes.
#[test]
fn logsumexp_over_middle_axes_matches_its_definition() {
    on_every_device!("logsumexp_over_middle_axes_matches_its_definition", |dev| {
        for (dims, axes) in [
            (vec![3usize, 7, 5], vec![1usize]),
            (vec![2, 3, 4, 5], vec![1, 2]),
            (vec![700, 250], vec![0]),
            (vec![2, 900, 130], vec![1]),
        ] {
            // The reduced run as one axis: (outer, len, inner).
            let (a, b) = (axes[0], axes[axes.len() - 1] + 1);
            let flat = [
                dims[..a].iter().product::<usize>(),
                dims[a..b].iter().product(),
                dims[b..].iter().product(),
            ];
            let xs = values(&flat, 1, true);
            let mut want = vec![];
            for line in lines(&flat, 1) {
                let m = line.iter().fold(f64::NEG_INFINITY, |a, &i| a.max(xs[i]));
                let s = if m.is_finite() { m } else { 0.0 };
                let l = line.iter().map(|&i| (xs[i] - s).exp()).sum::<f64>().ln() + s;
                want.push(l);
            }
            let ax: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
            for f32s in [false, true] {
                let x = Tensor::<f64>::from_vec(xs.clone(), dims.clone())
                    .unwrap()
                    .to_device(&dev)
                    .unwrap();
                let (got, tol) = match f32s {
                    true => (host_f64s(&x.cast::<f32>().logsumexp(&ax, false)), 2e-6),
                    false => (host_f64s(&x.logsumexp(&ax, true)), 1e-13),
                };
                agree(&format!("logsumexp {dims:?} {axes:?}"), &got, &want, tol);
            }
            // The gradient at finite inputs: the softmax over the run.
            let xs = values(&flat, 1, false);
            let x = Tensor::<f64>::from_vec(xs.clone(), dims.clone())
                .unwrap()
                .to_device(&dev)
                .unwrap()
                .with_requires_grad(true)
                .unwrap();
            x.logsumexp(&ax, false).sum(&[], false).backward();
            let (sm, _) = definition(&xs, &flat, 1);
            agree(
                "logsumexp grad",
                &host_f64s(&x.grad_tensor().unwrap()),
                &sm,
                1e-13,
            );
        }
    });
}

/// `logsumexp` over axes that are not one run (0, 1 and 3 of a 5-d tensor, a broadcast one
/// among them) and its gradient, the softmax over those axes, against `log Σ exp` and
/// `exp(x - logsumexp)` composed: the fused shift of one run must not take them (the fuzzer
/// found it asserting on such a shift).
#[test]
fn logsumexp_over_split_axes_matches_its_definition() {
    let base = Tensor::<f64>::from_vec(
        (0..7 * 7 * 2 * 4)
            .map(|i| ((i * 37 % 23) as f64 - 11.0) / 4.0)
            .collect(),
        [1, 7, 7, 2, 4],
    )
    .unwrap();
    let x64 = base.expand([2, 7, 7, 2, 4]).unwrap();
    for (axes, keep) in [
        ([0i64, 1, 3], true),
        ([-4, -2, -5], false),
        ([1, 3, 4], true),
    ] {
        let want = x64.exp().sum(&axes, true).log();
        let grad = (&x64 - &want).exp();
        let want = if keep {
            want
        } else {
            x64.exp().sum(&axes, false).log()
        };
        let x = x64.contiguous().with_requires_grad(true).unwrap();
        let y = x.logsumexp(&axes, keep);
        assert_close(&y.to_vec(), &want.to_vec(), 1e-13);
        y.sum(&[], false).backward();
        assert_close(&x.grad().unwrap(), &grad.to_vec(), 1e-13);
        let x = x64.cast::<f32>().with_requires_grad(true).unwrap();
        x.logsumexp(&axes, keep).sum(&[], false).backward();
        let got: Vec<f64> = x.grad().unwrap().iter().map(|&v| v as f64).collect();
        assert_close(&got, &grad.to_vec(), 1e-5);
        // f16 (computed in f32), through the broadcast view as the fuzzer had it.
        let x = x64.cast::<f16>().with_requires_grad(true).unwrap();
        x.logsumexp(&axes, keep).sum(&[], false).backward();
        let got: Vec<f64> = x.grad().unwrap().iter().map(|v| v.to_f64()).collect();
        assert_close(&got, &grad.to_vec(), 2e-3);
    }
}
