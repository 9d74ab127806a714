//! Fused row kernels (issue 26): `logsumexp` over contiguous rows in one read of the row for
//! its maximum and one for the sum of exponentials, the exponentials computed by [`vmath`]
//! over a stack buffer; rows are split across threads. Semantics as the composed op
//! (`Tensor::try_logsumexp`): a NaN anywhere gives NaN, and a row whose maximum is not finite
//! shifts by 0, so all `-inf` gives `-inf` and `+inf` gives `+inf`.

use super::convert::same;
use super::reduce::sum_run;
use super::strided::{PAR_THRESHOLD, par_chunks};
use super::vmath;
use crate::dtype::Element;

/// Elements per exponential buffer: it stays in L1.
const BLOCK: usize = 256;

/// `out[r] = log(sum(exp(src[r * len..(r + 1) * len])))` for every row `r`; f32 and f64 rows
/// (other types never reach here: 16-bit floats are widened by the caller).
///
/// # Panics
/// When `len` is 0 or `src` holds fewer than `out.len() * len` elements (a caller bug).
pub fn logsumexp<T: Element>(src: &[T], len: usize, out: &mut [T]) {
    assert!(len > 0 && src.len() >= out.len() * len, "logsumexp rows");
    let rows_per_task = (PAR_THRESHOLD / len).max(1);
    let rows_per_task = if out.len() * len < PAR_THRESHOLD {
        out.len()
    } else {
        rows_per_task.min(out.len().div_ceil(rayon::current_num_threads() * 4))
    };
    par_chunks(out, rows_per_task, &|start, o| {
        for (i, y) in o.iter_mut().enumerate() {
            let row = &src[(start + i) * len..(start + i + 1) * len];
            *y = if let Some(r) = same::<T, f32>(row) {
                T::from_f64(row_f32(r) as f64)
            } else if let Some(r) = same::<T, f64>(row) {
                T::from_f64(row_f64(r))
            } else {
                unreachable!("logsumexp rows of {}", T::DTYPE)
            };
        }
    });
}

/// The row's maximum and whether it holds a NaN, in one vectorisable pass.
fn max_and_nan<F: num_traits::Float>(row: &[F]) -> (F, bool) {
    row.iter().fold((F::neg_infinity(), false), |(m, n), &v| {
        (m.max(v), n | v.is_nan())
    })
}

fn row_f32(row: &[f32]) -> f32 {
    let (m, nan) = max_and_nan(row);
    if nan {
        return f32::NAN;
    }
    let shift = if m.is_finite() { m } else { 0.0 };
    let mut buf = [0f32; BLOCK];
    let mut s = 0f64;
    for c in row.chunks(BLOCK) {
        let b = &mut buf[..c.len()];
        for (d, &v) in b.iter_mut().zip(c) {
            *d = v - shift;
        }
        vmath::exp(b);
        s += sum_run(b);
    }
    (s as f32).ln() + shift
}

fn row_f64(row: &[f64]) -> f64 {
    let (m, nan) = max_and_nan(row);
    if nan {
        return f64::NAN;
    }
    let shift = if m.is_finite() { m } else { 0.0 };
    row.iter().map(|&v| (v - shift).exp()).sum::<f64>().ln() + shift
}

#[cfg(test)]
mod tests {
    #[test]
    fn rows_match_the_definition_and_its_special_values() {
        let inf = f32::INFINITY;
        let rows: Vec<Vec<f32>> = vec![
            vec![1.0, 2.0, 3.0],
            vec![-inf, -inf, -inf],
            vec![inf, 1.0, -inf],
            vec![f32::NAN, 1.0, 2.0],
            vec![1000.0, 1000.0, -1000.0],
            (0..700).map(|i| (i as f32 * 0.37).sin() * 30.0).collect(),
        ];
        for row in &rows {
            let mut out = [0f32];
            super::logsumexp(row, row.len(), &mut out);
            let m = row
                .iter()
                .cloned()
                .fold(f64::NEG_INFINITY, |a, v| a.max(v as f64));
            let shift = if m.is_finite() { m } else { 0.0 };
            let want = row
                .iter()
                .map(|&v| (v as f64 - shift).exp())
                .sum::<f64>()
                .ln()
                + shift;
            if row.iter().any(|v| v.is_nan()) {
                assert!(out[0].is_nan());
            } else if want.is_infinite() {
                assert_eq!(out[0] as f64, want);
            } else {
                assert!(
                    ((out[0] as f64 - want) / want).abs() < 1e-6,
                    "{} vs {want}",
                    out[0]
                );
            }
        }
    }
}
