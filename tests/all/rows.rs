//! The fused row ops on every device (softmax, log_softmax and logsumexp over trailing axes,
//! their gradients, layer norm) against their definitions computed here in f64: rows shorter
//! and longer than a CUDA block, more rows than one grid holds, transposed and offset views,
//! and rows holding NaN and infinities.

use crate::common::{assert_close, host_f64s, tol};
use half::f16;
use typed_tensor::nn::layer_norm;
use typed_tensor::prelude::*;

const NAN: f64 = f64::NAN;
const INF: f64 = f64::INFINITY;

/// `rows` rows of `len` values: random ones, then (when there is room) a row with a NaN, one
/// with +inf, one all -inf, and one with a -inf among finite values.
fn values(rows: usize, len: usize, seed: u64) -> Vec<f64> {
    let mut s = seed;
    let mut v: Vec<f64> = (0..rows * len)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 12.0
        })
        .collect();
    if rows >= 5 && len >= 2 {
        v[len] = NAN;
        v[2 * len + len / 2] = INF;
        v[3 * len..4 * len].fill(-INF);
        v[4 * len + 1] = -INF;
    }
    v
}

/// The largest value that is not NaN (-inf for none), as the composed ops' maximum acts.
fn row_max(row: &[f64]) -> f64 {
    row.iter().fold(-INF, |m, &x| if x > m { x } else { m })
}

fn softmax_ref(x: &[f64], len: usize) -> Vec<f64> {
    x.chunks(len)
        .flat_map(|row| {
            let m = row_max(row);
            let s: f64 = row.iter().map(|&v| (v - m).exp()).sum();
            row.iter().map(move |&v| (v - m).exp() / s)
        })
        .collect()
}

fn logsumexp_ref(x: &[f64], len: usize) -> Vec<f64> {
    x.chunks(len)
        .map(|row| {
            let m = row_max(row);
            let shift = if m.is_finite() { m } else { 0.0 };
            row.iter().map(|&v| (v - shift).exp()).sum::<f64>().ln() + shift
        })
        .collect()
}

fn layer_norm_ref(x: &[f64], len: usize, w: Option<&[f64]>, b: Option<&[f64]>) -> Vec<f64> {
    x.chunks(len)
        .flat_map(|row| {
            let mean = row.iter().sum::<f64>() / len as f64;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / len as f64;
            (0..len).map(move |j| {
                let y = (row[j] - mean) / (var + 1e-5).sqrt();
                y * w.map_or(1.0, |w| w[j]) + b.map_or(0.0, |b| b[j])
            })
        })
        .collect()
}

/// Finite weights for a loss `Σ c · f(x)`, `n` of them.
fn weights(n: usize) -> Vec<f64> {
    (0..n).map(|i| (i % 11) as f64 * 0.3 - 1.0).collect()
}

/// d/dx of `Σ c · softmax(x)` from the softmax `y`: `y · (c - Σ c·y)` per row.
fn softmax_grad_ref(y: &[f64], c: &[f64], len: usize) -> Vec<f64> {
    y.chunks(len)
        .zip(c.chunks(len))
        .flat_map(|(y, c)| {
            let dot: f64 = y.iter().zip(c).map(|(y, c)| y * c).sum();
            y.iter().zip(c).map(move |(y, c)| y * (c - dot))
        })
        .collect()
}

/// d/dx of `Σ c · layer_norm(x) · w` in f64 (PyTorch's formula): per row, with `gy = c · w`
/// and `x̂` the normalised row, `(gy - mean(gy) - x̂ · mean(gy · x̂)) / sqrt(var + eps)`.
fn layer_norm_grad_ref(x: &[f64], c: &[f64], w: &[f64], len: usize) -> Vec<f64> {
    let n = len as f64;
    x.chunks(len)
        .zip(c.chunks(len))
        .flat_map(|(row, c)| {
            let mean = row.iter().sum::<f64>() / n;
            let sd = (row.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n + 1e-5).sqrt();
            let xhat: Vec<f64> = row.iter().map(|v| (v - mean) / sd).collect();
            let gy: Vec<f64> = c.iter().zip(w).map(|(c, w)| c * w).collect();
            let mg = gy.iter().sum::<f64>() / n;
            let mgx = gy.iter().zip(&xhat).map(|(g, x)| g * x).sum::<f64>() / n;
            (0..len).map(move |j| (gy[j] - mg - xhat[j] * mgx) / sd)
        })
        .collect()
}

/// The input gradient of `layer_norm` with a weight, from a contiguous input (the fused rows
/// where the device has them) and from a transposed one (composed), against the formula.
fn layer_norm_grads<T: FloatElement, D: Backend>(dev: &D, rows: usize, len: usize, rel: f64) {
    let (x, xv) = tensor::<T, D>(&values(rows, len, 4), &[rows, len], dev);
    let (c, cv) = tensor::<T, D>(&values(rows, len, 5), &[rows, len], dev);
    let w: Vec<f64> = (0..len).map(|j| 0.5 + j as f64 / 40.0).collect();
    let (w, wv) = tensor::<T, D>(&w, &[len], dev);
    let want = layer_norm_grad_ref(&xv, &cv, &wv, len);
    let loss = |x: &Tensor<T, D>| {
        let y = layer_norm(x, &[len], Some(&w), None, 1e-5).unwrap();
        y.mul(&c).sum(&[], false).backward();
    };
    let leaf = x.detach().with_requires_grad(true).unwrap();
    loss(&leaf);
    assert_close(&host_f64s(&leaf.grad_tensor().unwrap()), &want, rel);
    let leaf_t = x.t().contiguous().with_requires_grad(true).unwrap();
    loss(&leaf_t.t());
    let got = host_f64s(&leaf_t.grad_tensor().unwrap().t().contiguous());
    assert_close(&got, &want, rel);
}

/// The tensor of `v` as `T` on `dev`, and `v` rounded to `T`.
fn tensor<T: FloatElement, D: Backend>(
    v: &[f64],
    dims: &[usize],
    dev: &D,
) -> (Tensor<T, D>, Vec<f64>) {
    let t: Vec<T> = v.iter().map(|&x| T::from_f64(x)).collect();
    let rounded = t.iter().map(|x| x.to_f64()).collect();
    (
        Tensor::from_vec(t, dims.to_vec())
            .unwrap()
            .to_device(dev)
            .unwrap(),
        rounded,
    )
}

fn run<T: FloatElement, D: Backend>(dev: &D) {
    let rel = (tol(T::DTYPE) * 16.0).max(1e-11);
    // (rows, len): one element, a short row, rows longer than a block, more rows than a grid.
    for (rows, len) in [(5, 1), (6, 10), (7, 700), (70_000, 3)] {
        let (x, xv) = tensor::<T, D>(&values(rows, len, 1), &[rows, len], dev);
        let what = format!("{} ({rows}, {len})", T::DTYPE);
        let sm = softmax_ref(&xv, len);
        assert_close(&host_f64s(&x.softmax(-1)), &sm, rel);
        let lse = logsumexp_ref(&xv, len);
        assert_close(&host_f64s(&x.logsumexp(&[-1], false)), &lse, rel);
        let kept = x.logsumexp(&[1], true);
        assert_eq!(kept.dims(), &[rows, 1], "{what}");
        // `x - max - log Σ exp(x - max)`: a row whose maximum is +inf is NaN (PyTorch).
        let ls: Vec<f64> = xv
            .iter()
            .enumerate()
            .map(|(i, v)| match lse[i / len] {
                f64::INFINITY => f64::NAN,
                l => v - l,
            })
            .collect();
        assert_close(&host_f64s(&x.log_softmax(-1)), &ls, rel);
        // The gradient of sum(logsumexp) is exp(x - logsumexp(x)) (PyTorch's formula; the
        // fused exp_sub on a device): the softmax, but 0 beside a +inf.
        let leaf = x.detach().with_requires_grad(true).unwrap();
        leaf.logsumexp(&[-1], false).sum(&[], false).backward();
        let e: Vec<f64> = xv
            .iter()
            .enumerate()
            .map(|(i, v)| (v - lse[i / len]).exp())
            .collect();
        assert_close(&host_f64s(&leaf.grad_tensor().unwrap()), &e, rel);
        // The gradient of Σ c·softmax(x) is y · (c - Σ c·y) per row (PyTorch's formula; the
        // fused rows on a device that has them).
        let (c, cv) = tensor::<T, D>(&weights(rows * len), &[rows, len], dev);
        let soft = x.detach().with_requires_grad(true).unwrap();
        soft.softmax(-1).mul(&c).sum(&[], false).backward();
        let want = softmax_grad_ref(&sm, &cv, len);
        assert_close(&host_f64s(&soft.grad_tensor().unwrap()), &want, rel * 4.0);
        let w: Vec<f64> = (0..len).map(|j| 0.5 + j as f64 / len as f64).collect();
        let b: Vec<f64> = (0..len).map(|j| j as f64 * 0.25 - 1.0).collect();
        let (wt, wv) = tensor::<T, D>(&w, &[len], dev);
        let (bt, bv) = tensor::<T, D>(&b, &[len], dev);
        for (wo, bo) in [(None, None), (Some(&wt), None), (Some(&wt), Some(&bt))] {
            let want = layer_norm_ref(&xv, len, wo.map(|_| &wv[..]), bo.map(|_| &bv[..]));
            let got = layer_norm(&x, &[len], wo, bo, 1e-5).unwrap();
            assert_close(&host_f64s(&got), &want, rel * 4.0);
            // Recorded (composed) and fused agree.
            let g = layer_norm(&leaf, &[len], wo, bo, 1e-5).unwrap();
            assert_close(&host_f64s(&g.detach()), &want, rel * 4.0);
        }
    }
    // (rows, len): short rows holding NaN and infinities (NaN rows), and longer ones.
    for (rows, len) in [(6, 10), (4, 130)] {
        layer_norm_grads::<T, D>(dev, rows, len, rel * 8.0);
    }
    // Views: transposed (copied first) and offset rows; logsumexp over two trailing axes.
    let (x, xv) = tensor::<T, D>(&values(12, 8, 2), &[12, 8], dev);
    let t = x.t();
    let tv: Vec<f64> = (0..8)
        .flat_map(|j| (0..12).map(move |i| (i, j)))
        .map(|(i, j)| xv[i * 8 + j])
        .collect();
    assert_close(&host_f64s(&t.softmax(-1)), &softmax_ref(&tv, 12), rel);
    // The gradient through the transposed view (composed on the CPU).
    let (c, cv) = tensor::<T, D>(&weights(96), &[8, 12], dev);
    let leaf = x.detach().with_requires_grad(true).unwrap();
    leaf.t().softmax(-1).mul(&c).sum(&[], false).backward();
    let gt = softmax_grad_ref(&softmax_ref(&tv, 12), &cv, 12);
    let want: Vec<f64> = (0..96).map(|k| gt[(k % 8) * 12 + k / 8]).collect();
    assert_close(&host_f64s(&leaf.grad_tensor().unwrap()), &want, rel * 4.0);
    let n = x.narrow(0, 5, 6).unwrap();
    assert_close(&host_f64s(&n.softmax(1)), &softmax_ref(&xv[40..88], 8), rel);
    let cube = x.reshape([3, 4, 8]);
    assert_close(
        &host_f64s(&cube.logsumexp(&[1, 2], false)),
        &logsumexp_ref(&xv, 32),
        rel,
    );
    assert_eq!(cube.logsumexp(&[-2, -1], true).dims(), &[3, 1, 1]);
    let ln = layer_norm(&cube, &[4, 8], None, None, 1e-5).unwrap();
    assert_close(
        &host_f64s(&ln),
        &layer_norm_ref(&xv, 32, None, None),
        rel * 4.0,
    );
    // Empty rows and empty batches keep their shapes.
    let e = Tensor::<T>::zeros([0, 4]).unwrap().to_device(dev).unwrap();
    assert_eq!(e.softmax(-1).dims(), &[0, 4]);
    assert_eq!(
        layer_norm(&e, &[4], None, None, 1e-5).unwrap().dims(),
        &[0, 4]
    );
}

#[test]
fn fused_rows_match_their_definitions() {
    on_every_device!("fused_rows_match_their_definitions", |dev| {
        run::<f32, _>(&dev);
        run::<f64, _>(&dev);
        // 16-bit floats compute in f32 (the same kernels) and round once.
        let (x, xv) = tensor::<f16, _>(&values(6, 10, 3), &[6, 10], &dev);
        assert_close(&host_f64s(&x.softmax(-1)), &softmax_ref(&xv, 10), 2e-3);
    });
}
