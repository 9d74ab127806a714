//! Fused `layer_norm` rows (PyTorch's `native_layer_norm` and its input gradient). Each
//! contiguous row of `len` elements stays in the cache while it is read for its mean and
//! variance (summed in f64, as the composed `mean` sums) and normalised. The forward rounds
//! as the composed ops round (`x - mean`, its square, `sqrt(var + eps)`, the quotient, then
//! `· weight + bias`), so the recorded and the unrecorded forms agree. Rows are split across
//! threads. f32 and f64 (16-bit floats are widened by the caller).

use super::convert::{same, same_mut};
use super::reduce::sum_run;
use super::rows::rows_per_task;
use super::strided::par_chunks;
use crate::dtype::Element;
use num_traits::Float;

/// `out[r] = (x[r] - mean) / sqrt(var + eps) · weight + bias` for each row `r` of `len`
/// elements of `src`, with the row's mean and biased variance; `weight` and `bias` hold `len`
/// elements each when given.
///
/// # Panics
/// When `len` is 0, `out.len()` is not a multiple of it, `src` is shorter than `out`, or
/// `weight`/`bias` are shorter than `len` (a caller bug).
pub fn layer_norm<T: Element>(
    src: &[T],
    len: usize,
    weight: Option<&[T]>,
    bias: Option<&[T]>,
    eps: f64,
    out: &mut [T],
) {
    let rows = out.len() / len.max(1);
    assert!(
        len > 0
            && out.len().is_multiple_of(len)
            && src.len() >= out.len()
            && weight.is_none_or(|w| w.len() >= len)
            && bias.is_none_or(|b| b.len() >= len),
        "layer_norm rows"
    );
    par_chunks(out, rows_per_task(rows, len) * len, &|start, o| {
        let x = &src[start..start + o.len()];
        if let (Some(x), Some(y)) = (same::<T, f32>(x), same_mut::<T, f32>(o)) {
            let (w, b) = (
                weight.and_then(same::<T, f32>),
                bias.and_then(same::<T, f32>),
            );
            forward(x, len, (w, b), eps as f32, y);
        } else if let (Some(x), Some(y)) = (same::<T, f64>(x), same_mut::<T, f64>(o)) {
            let (w, b) = (
                weight.and_then(same::<T, f64>),
                bias.and_then(same::<T, f64>),
            );
            forward(x, len, (w, b), eps, y);
        } else {
            unreachable!("layer_norm rows of {}", T::DTYPE)
        }
    });
}

/// The affine parameters of one float type.
type Affine<'a, F> = (Option<&'a [F]>, Option<&'a [F]>);

fn forward<F: Float + Element>(src: &[F], len: usize, (w, b): Affine<F>, eps: F, out: &mut [F]) {
    let n = len as f64;
    for (y, x) in out.chunks_exact_mut(len).zip(src.chunks_exact(len)) {
        let mean = F::from_f64(sum_run(x) / n);
        for (y, &v) in y.iter_mut().zip(x) {
            *y = v - mean;
        }
        let sd = (F::from_f64(sum_squares(y) / n) + eps).sqrt();
        y.iter_mut().for_each(|v| *v = *v / sd);
        if let Some(w) = w {
            y.iter_mut().zip(w).for_each(|(v, &w)| *v = *v * w);
        }
        if let Some(b) = b {
            y.iter_mut().zip(b).for_each(|(v, &b)| *v = *v + b);
        }
    }
}

/// The gradient of `layer_norm`'s normalisation (before any affine) with respect to its input:
/// `out[r] = (g - mean(g) - x̂ · mean(g · x̂)) / sqrt(var + eps)` for each row `r` of `len`
/// elements, with `x̂ = (x - mean) / sqrt(var + eps)` recomputed from `src` (PyTorch's
/// `native_layer_norm_backward`).
///
/// # Panics
/// When `len` is 0, `out.len()` is not a multiple of it, or `src` or `grad` is shorter than
/// `out` (a caller bug).
pub fn layer_norm_backward<T: Element>(src: &[T], grad: &[T], len: usize, eps: f64, out: &mut [T]) {
    let rows = out.len() / len.max(1);
    assert!(
        len > 0
            && out.len().is_multiple_of(len)
            && src.len() >= out.len()
            && grad.len() >= out.len(),
        "layer_norm_backward rows"
    );
    par_chunks(out, rows_per_task(rows, len) * len, &|start, o| {
        let (x, g) = (&src[start..start + o.len()], &grad[start..start + o.len()]);
        if let (Some(x), Some(g), Some(d)) = (same::<T, f32>(x), same::<T, f32>(g), same_mut(o)) {
            backward(x, g, len, eps as f32, d);
        } else if let (Some(x), Some(g), Some(d)) =
            (same::<T, f64>(x), same::<T, f64>(g), same_mut(o))
        {
            backward(x, g, len, eps, d);
        } else {
            unreachable!("layer_norm_backward rows of {}", T::DTYPE)
        }
    });
}

fn backward<F: Float + Element>(src: &[F], grad: &[F], len: usize, eps: F, out: &mut [F]) {
    let n = len as f64;
    for ((d, x), g) in out
        .chunks_exact_mut(len)
        .zip(src.chunks_exact(len))
        .zip(grad.chunks_exact(len))
    {
        // x̂ goes to `d` first; the row then stays in the cache for the two sums and the result.
        let mean = F::from_f64(sum_run(x) / n);
        for (d, &v) in d.iter_mut().zip(x) {
            *d = v - mean;
        }
        let sd = (F::from_f64(sum_squares(d) / n) + eps).sqrt();
        let rstd = F::one() / sd;
        d.iter_mut().for_each(|v| *v = *v * rstd);
        let mean_g = F::from_f64(sum_run(g) / n);
        let mean_gx = F::from_f64(sum_products(g, d) / n);
        for (d, &g) in d.iter_mut().zip(g) {
            *d = (g - mean_g - *d * mean_gx) * rstd;
        }
    }
}

/// `Σ x²` with each square rounded to `F` (as the composed `x * x` rounds) and summed in f64,
/// in eight independent lanes.
fn sum_squares<F: Float + Element>(xs: &[F]) -> f64 {
    sum_products(xs, xs)
}

/// `Σ a·b`, each product rounded to `F` (as the composed `a * b` rounds), summed in f64 in
/// eight lanes.
pub(super) fn sum_products<F: Float + Element>(a: &[F], b: &[F]) -> f64 {
    let mut lanes = [0f64; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    for (&x, &y) in ca.remainder().iter().zip(cb.remainder()) {
        lanes[0] += (x * y).to_f64();
    }
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            lanes[k] += (x[k] * y[k]).to_f64();
        }
    }
    lanes.iter().sum()
}

#[cfg(test)]
mod tests {
    /// Rows in f64 by the definition.
    fn want(x: &[f64], len: usize, eps: f64) -> Vec<f64> {
        x.chunks(len)
            .flat_map(|r| {
                let m = r.iter().sum::<f64>() / len as f64;
                let v = r.iter().map(|a| (a - m) * (a - m)).sum::<f64>() / len as f64;
                r.iter().map(move |a| (a - m) / (v + eps).sqrt())
            })
            .collect()
    }

    #[test]
    fn rows_match_the_definition_and_finite_differences() {
        for len in [1usize, 3, 8, 17, 130] {
            let x: Vec<f64> = (0..len * 5).map(|i| ((i * 37 % 23) as f64).sin()).collect();
            let mut y = vec![0f64; x.len()];
            super::layer_norm(&x, len, None, None, 1e-5, &mut y);
            for (a, b) in y.iter().zip(want(&x, len, 1e-5)) {
                assert!((a - b).abs() < 1e-12, "len {len}: {a} vs {b}");
            }
            // d/dx of Σ c·y at a few points, against central differences.
            let c: Vec<f64> = (0..x.len()).map(|i| (i as f64 * 0.7).cos()).collect();
            let mut dx = vec![0f64; x.len()];
            super::layer_norm_backward(&x, &c, len, 1e-5, &mut dx);
            let f =
                |x: &[f64]| -> f64 { want(x, len, 1e-5).iter().zip(&c).map(|(y, c)| y * c).sum() };
            for i in [0, len / 2, x.len() - 1] {
                let (mut p, mut m) = (x.clone(), x.clone());
                p[i] += 1e-6;
                m[i] -= 1e-6;
                let fd = (f(&p) - f(&m)) / 2e-6;
                assert!(
                    (fd - dx[i]).abs() < 1e-5 * (1.0 + fd.abs()),
                    "len {len} [{i}]: {fd} vs {}",
                    dx[i]
                );
            }
        }
    }

    #[test]
    fn f32_rows_with_affine_match_f64() {
        let len = 33;
        let x: Vec<f32> = (0..len * 70)
            .map(|i| (i as f32 * 0.31).sin() * 40.0 + 3.0)
            .collect();
        let w: Vec<f32> = (0..len).map(|i| 0.5 + i as f32 * 0.1).collect();
        let b: Vec<f32> = (0..len).map(|i| i as f32 - 4.0).collect();
        let mut y = vec![0f32; x.len()];
        super::layer_norm(&x, len, Some(&w), Some(&b), 1e-5, &mut y);
        let xd: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        for (i, (a, r)) in y.iter().zip(want(&xd, len, 1e-5)).enumerate() {
            let r = r * w[i % len] as f64 + b[i % len] as f64;
            assert!(
                (*a as f64 - r).abs() < 1e-5 * (1.0 + r.abs()),
                "[{i}] {a} vs {r}"
            );
        }
    }
}
