//! The reductions issue: the seed's Reduction Module examples first, then random tests against
//! an f64 reference for every dtype, axis set and keepdim, on contiguous and strided inputs.

use crate::common::*;
use typed_tensor::prelude::*;

fn t_simple() -> Tensor<f32> {
    Tensor::from_vec(vec![1.0, 5.0, 3.0, 4.0, 2.0, 6.0], [2, 3]).unwrap()
}
fn t_complex() -> Tensor<f32> {
    Tensor::from_vec(vec![1.0, 5.0, 3.0, 4.0, f32::NAN, 6.0], [2, 3]).unwrap()
}

#[test]
fn seed_reduction_examples() {
    let s = t_simple();
    let c = t_complex();
    let full = reduce_sum(&s, &[], false).unwrap();
    assert_eq!((full.shape().dims(), full.to_vec()), (&[][..], vec![21.0]));
    assert_eq!(
        reduce_sum(&s, &[0], false).unwrap().to_vec(),
        vec![5.0, 7.0, 9.0]
    );
    let k = reduce_sum(&s, &[1], true).unwrap();
    assert_eq!(
        (k.shape().dims(), k.to_vec()),
        (&[2, 1][..], vec![9.0, 12.0])
    );
    assert_eq!(
        reduce_product(&s, &[], false).unwrap().to_vec(),
        vec![720.0]
    );
    assert_eq!(
        reduce_product(&s, &[0], false).unwrap().to_vec(),
        vec![4.0, 10.0, 18.0]
    );
    assert_eq!(reduce_min(&s, &[], false).unwrap().to_vec(), vec![1.0]);
    assert_eq!(
        reduce_min(&s, &[1], false).unwrap().to_vec(),
        vec![1.0, 2.0]
    );
    assert_eq!(reduce_max(&s, &[], false).unwrap().to_vec(), vec![6.0]);
    assert_eq!(
        reduce_max(&s, &[0], false).unwrap().to_vec(),
        vec![4.0, 5.0, 6.0]
    );
    assert_eq!(reduce_mean(&s, &[], false).unwrap().to_vec(), vec![3.5]);
    assert_eq!(
        reduce_mean(&s, &[1], false).unwrap().to_vec(),
        vec![3.0, 4.0]
    );
    assert_eq!(reduce_nansum(&c, &[], false).unwrap().to_vec(), vec![19.0]);
    assert_eq!(
        reduce_nansum(&c, &[0], false).unwrap().to_vec(),
        vec![5.0, 5.0, 9.0]
    );
    assert_eq!(
        reduce_nansum(&c, &[1], false).unwrap().to_vec(),
        vec![9.0, 10.0]
    );
    assert_eq!(
        reduce_nanproduct(&c, &[], false).unwrap().to_vec(),
        vec![360.0]
    );
    assert_eq!(
        reduce_nanproduct(&c, &[1], false).unwrap().to_vec(),
        vec![15.0, 24.0]
    );
    assert_eq!(reduce_nanmin(&c, &[], false).unwrap().to_vec(), vec![1.0]);
    assert_eq!(
        reduce_nanmin(&c, &[0], false).unwrap().to_vec(),
        vec![1.0, 5.0, 3.0]
    );
    assert_eq!(reduce_nanmax(&c, &[], false).unwrap().to_vec(), vec![6.0]);
    assert_eq!(
        reduce_nanmax(&c, &[0], false).unwrap().to_vec(),
        vec![4.0, 5.0, 6.0]
    );
    assert!((reduce_nanmean(&c, &[], false).unwrap().item() - 3.8).abs() < 1e-6);
    assert_eq!(
        reduce_nanmean(&c, &[1], false).unwrap().to_vec(),
        vec![3.0, 5.0]
    );
    let am: Tensor<i64> = reduce_argmin(&s, &[], false).unwrap();
    assert_eq!(am.to_vec(), vec![0]);
    assert_eq!(
        reduce_argmin(&s, &[0], false).unwrap().to_vec(),
        vec![0, 1, 0]
    );
    let k = reduce_argmin(&s, &[1], true).unwrap();
    assert_eq!((k.shape().dims(), k.to_vec()), (&[2, 1][..], vec![0, 1]));
    assert_eq!(reduce_argmax(&s, &[], false).unwrap().to_vec(), vec![5]);
    assert_eq!(
        reduce_argmax(&s, &[0], false).unwrap().to_vec(),
        vec![1, 0, 1]
    );
    assert_eq!(reduce_nanargmin(&c, &[], false).unwrap().to_vec(), vec![0]);
    assert_eq!(
        reduce_nanargmin(&c, &[0], false).unwrap().to_vec(),
        vec![0, 0, 0]
    );
    assert_eq!(reduce_nanargmax(&c, &[], false).unwrap().to_vec(), vec![5]);
    assert_eq!(
        reduce_nanargmax(&c, &[1], false).unwrap().to_vec(),
        vec![1, 2]
    );
    // "If the input contains NaN, the result of the reduction will also be NaN."
    assert!(reduce_sum(&c, &[], false).unwrap().item().is_nan());
    assert!(reduce_max(&c, &[0], false).unwrap().to_vec()[1].is_nan());
    assert_eq!(
        reduce_argmax(&c, &[1], false).unwrap().to_vec(),
        vec![1, 1],
        "a NaN's index wins"
    );
}

#[test]
fn output_dtypes_and_semantics() {
    let i = Tensor::<i32>::from_vec(vec![i32::MAX, i32::MAX, 1], [3]).unwrap();
    let s: Tensor<i64> = i.sum(&[], false);
    assert_eq!(s.item(), 2 * i32::MAX as i64 + 1);
    let m: Tensor<f32> = i.mean(&[], false);
    assert_eq!(m.dtype(), Dtype::Float32);
    let b = Tensor::<bool>::from_vec(vec![true, false, true], [3]).unwrap();
    assert_eq!(b.sum(&[], false).item(), 2i64);
    let v: Tensor<f64> = Tensor::<i64>::from_vec(vec![1, 2, 3, 4], [4])
        .unwrap()
        .var(&[], 1, false);
    assert!((v.item() - 5.0 / 3.0).abs() < 1e-12);
    let sd = Tensor::<f32>::from_vec(vec![1.0, 2.0, 3.0, 4.0], [4])
        .unwrap()
        .std(&[], 0, false);
    assert!((sd.item() - 1.25f32.sqrt()).abs() < 1e-6);
    assert_eq!(
        reduce_var(&Tensor::<f32>::ones([1]).unwrap(), &[], false)
            .unwrap()
            .item()
            .is_nan(),
        true
    );
    // No degrees of freedom left: the divisor is max(0, n - correction), as NumPy and PyTorch
    // (inf, or NaN for a constant slice), on the strided/axis path too.
    let two = Tensor::<f64>::from_vec(vec![1.0, 3.0, 2.0, 3.0], [2, 2]).unwrap();
    assert_eq!(two.var(&[], 4, false).item(), f64::INFINITY);
    let cols = two.std(&[0], 3, false).to_vec();
    assert!(cols[0] == f64::INFINITY && cols[1].is_nan(), "{cols:?}");
    let flat = two.t().var(&[1], 2, false).to_vec();
    assert!(flat[0] == f64::INFINITY && flat[1].is_nan(), "{flat:?}");
    // any / all (seed 003: non-zero and NaN are true).
    let x = Tensor::<f32>::from_vec(vec![0.0, f32::NAN, 0.0, 0.0], [2, 2]).unwrap();
    assert_eq!(x.any(&[1], false).to_vec(), vec![true, false]);
    assert_eq!(x.all(&[0], false).to_vec(), vec![false, false]);
    assert_eq!(
        reduce_all(&Tensor::<i32>::zeros([0]).unwrap(), &[], false)
            .unwrap()
            .item(),
        true
    );
    // Empty reductions.
    let e = Tensor::<f32>::zeros([0, 3]).unwrap();
    assert_eq!(e.sum(&[0], false).to_vec(), vec![0.0; 3]);
    assert_eq!(e.product(&[], false).item(), 1.0);
    assert!(e.mean(&[], false).item().is_nan());
    assert!(matches!(
        e.try_max(&[0], false).unwrap_err(),
        Error::EmptyReduction { .. }
    ));
    assert!(e.try_argmin(&[], false).is_err());
    assert_eq!(e.max(&[1], false).shape().dims(), &[0]);
    // All-NaN slices.
    let n = Tensor::<f64>::from_vec(vec![f64::NAN, f64::NAN, 1.0, 2.0], [2, 2]).unwrap();
    assert!(n.nanmean(&[1], false).to_vec()[0].is_nan());
    assert!(n.nanmax(&[1], false).to_vec()[0].is_nan());
    assert_eq!(n.nansum(&[1], false).to_vec(), vec![0.0, 3.0]);
    assert!(matches!(
        n.try_nanargmax(&[1], false).unwrap_err(),
        Error::EmptyReduction { .. }
    ));
    // Bad axes.
    let s = t_simple();
    assert!(matches!(
        s.try_sum(&[2], false).unwrap_err(),
        Error::Axis { axis: 2, .. }
    ));
    assert!(matches!(
        s.try_sum(&[0, -2], false).unwrap_err(),
        Error::Axis { .. }
    ));
    assert_eq!(s.sum(&[-1], false).to_vec(), vec![9.0, 12.0]);
    // Several axes: argmax is the flat index inside the reduced block; ties give the first.
    let t = Tensor::<i32>::from_vec(vec![1, 9, 3, 9, 0, 0, 0, 0], [2, 2, 2]).unwrap();
    assert_eq!(t.argmax(&[1, 2], false).to_vec(), vec![1, 0]);
    assert_eq!(t.argmax(&[0, 2], false).to_vec(), vec![1, 1]);
    // logsumexp and scans.
    let l = Tensor::<f64>::from_vec(
        vec![1000.0, 1000.0, f64::NEG_INFINITY, f64::NEG_INFINITY],
        [2, 2],
    )
    .unwrap();
    let r = l.logsumexp(&[1], false).to_vec();
    assert!((r[0] - (1000.0 + 2f64.ln())).abs() < 1e-9 && r[1] == f64::NEG_INFINITY);
    let c = Tensor::<i32>::from_vec(vec![1, 2, 3, 4, 5, 6], [2, 3]).unwrap();
    assert_eq!(c.cumsum(1).to_vec(), vec![1, 3, 6, 4, 9, 15]);
    assert_eq!(c.cumsum(0).to_vec(), vec![1, 2, 3, 5, 7, 9]);
    assert_eq!(c.t().cumprod(-1).to_vec(), vec![1, 4, 2, 10, 3, 18]);
}

fn lcg(seed: &mut u64) -> f64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*seed >> 33) as f64) / (1u64 << 31) as f64
}

/// Reference reductions in f64 over `mask` of a row-major `dims` array.
fn reference(v: &[f64], dims: &[usize], mask: &[bool], f: &dyn Fn(&[f64]) -> f64) -> Vec<f64> {
    let n: usize = dims.iter().product();
    let strides: Vec<usize> = (0..dims.len())
        .map(|i| dims[i + 1..].iter().product())
        .collect();
    let mut groups: std::collections::BTreeMap<Vec<usize>, Vec<f64>> = Default::default();
    for flat in 0..n {
        let key: Vec<usize> = (0..dims.len())
            .filter(|&i| !mask[i])
            .map(|i| flat / strides[i] % dims[i])
            .collect();
        groups.entry(key).or_default().push(v[flat]);
    }
    groups.values().map(|g| f(g)).collect()
}

fn random_reductions<T: Element>() {
    let mut seed = 7u64;
    let dims = [3usize, 4, 5];
    let n = 60;
    let vals: Vec<f64> = (0..n)
        .map(|_| {
            let x = lcg(&mut seed);
            if T::DTYPE.is_float() {
                (x * 8.0 - 4.0 * 1.0).round() / 2.0
            } else if T::DTYPE == Dtype::Bool {
                (x > 0.5) as u8 as f64
            } else {
                (x * 20.0).floor()
            }
        })
        .collect();
    let x = tensor::<T>(&vals, &dims);
    let v = f64s(&x);
    for axes in [vec![], vec![0], vec![1], vec![2], vec![0, 2], vec![-1, -2]] {
        let mask = x.shape().axes_mask("test", &axes).unwrap();
        for keepdim in [false, true] {
            let sum = reference(&v, &dims, &mask, &|g| g.iter().sum());
            assert_close(
                &f64s(&x.sum(&axes, keepdim)),
                &sum.iter()
                    .map(|&s| <SumOf<T>>::from_f64(s).to_f64())
                    .collect::<Vec<_>>(),
                tol(T::DTYPE) * 4.0,
            );
            let mean = reference(&v, &dims, &mask, &|g| {
                g.iter().sum::<f64>() / g.len() as f64
            });
            assert_close(
                &f64s(&x.mean(&axes, keepdim)),
                &mean,
                tol(T::DTYPE.float_of()) * 4.0,
            );
            let max = reference(&v, &dims, &mask, &|g| {
                g.iter().cloned().fold(f64::MIN, f64::max)
            });
            assert_close(&f64s(&x.max(&axes, keepdim)), &max, 0.0);
            let min = reference(&v, &dims, &mask, &|g| {
                g.iter().cloned().fold(f64::MAX, f64::min)
            });
            assert_close(&f64s(&x.min(&axes, keepdim)), &min, 0.0);
            let argmax = reference(&v, &dims, &mask, &|g| {
                let m = g.iter().cloned().fold(f64::MIN, f64::max);
                g.iter().position(|&y| y == m).unwrap() as f64
            });
            assert_close(&f64s(&x.argmax(&axes, keepdim)), &argmax, 0.0);
            let var = reference(&v, &dims, &mask, &|g| {
                let m = g.iter().sum::<f64>() / g.len() as f64;
                g.iter().map(|y| (y - m) * (y - m)).sum::<f64>() / (g.len() - 1) as f64
            });
            assert_close(
                &f64s(&x.var(&axes, 1, keepdim)),
                &var,
                tol(T::DTYPE.float_of()) * 8.0,
            );
            let out = x.sum(&axes, keepdim);
            let want_rank = if keepdim {
                3
            } else {
                3 - mask.iter().filter(|&&m| m).count()
            };
            assert_eq!(out.ndim(), want_rank);
        }
    }
    // Non-contiguous inputs give the same answers as their contiguous copies.
    let p = x.permute(&[2, 0, 1]).unwrap();
    let pc = p.contiguous();
    for axes in [vec![], vec![0], vec![2], vec![0, 1]] {
        assert_eq!(f64s(&p.sum(&axes, false)), f64s(&pc.sum(&axes, false)));
        assert_eq!(f64s(&p.argmin(&axes, true)), f64s(&pc.argmin(&axes, true)));
    }
    let b = x.narrow(1, 0, 1).unwrap().broadcast_to([3, 6, 5]).unwrap();
    assert_eq!(
        f64s(&b.max(&[1], false)),
        f64s(&x.narrow(1, 0, 1).unwrap().max(&[1], false))
    );
}

#[test]
fn random_reductions_every_dtype() {
    for_types!(random_reductions: f32, f64, f16, bf16, i16, i32, i64, u8, bool);
}

/// `max`/`min` over long rows (folded in vector lanes on the CPU) against a NaN-propagating
/// f64 fold: rows of 31 to 100 elements, with NaN (floats), ±inf and the extreme at the start,
/// inside a lane, in the tail; `nanmax` and `argmax` beside them.
fn long_row_extremes<T: Element>() {
    let mut seed = 11u64;
    for len in [31usize, 32, 47, 64, 100] {
        let rows = 9;
        let mut vals: Vec<f64> = (0..rows * len)
            .map(|_| match T::DTYPE {
                Dtype::Bool => (lcg(&mut seed) > 0.5) as u8 as f64,
                Dtype::UInt8 => (lcg(&mut seed) * 200.0).floor(),
                _ => (lcg(&mut seed) * 200.0 - 100.0).floor(),
            })
            .collect();
        let float = T::DTYPE.is_float();
        // Row r: a special value at a position that walks through the lanes and the tail.
        for r in 0..rows {
            let at = r * len + (r * 13) % len;
            vals[at] = match (r % 3, float) {
                (0, true) => f64::NAN,
                (1, true) => f64::INFINITY,
                (2, true) => f64::NEG_INFINITY,
                _ => vals[at],
            };
        }
        vals[len * 5 + len - 1] = if float { f64::NAN } else { vals[len * 5] };
        let x = tensor::<T>(&vals, &[rows, len]);
        let v = f64s(&x);
        let fold = |max: bool| -> Vec<f64> {
            (v.chunks(len))
                .map(|row| {
                    if row.iter().any(|y| y.is_nan()) {
                        return f64::NAN;
                    }
                    let pick = |a: f64, b: f64| if max { a.max(b) } else { a.min(b) };
                    row.iter().copied().reduce(pick).unwrap()
                })
                .collect()
        };
        assert_close(&f64s(&x.max(&[1], false)), &fold(true), 0.0);
        assert_close(&f64s(&x.min(&[1], false)), &fold(false), 0.0);
        assert_close(
            &f64s(&x.max(&[], false)),
            &[fold(true)
                .iter()
                .copied()
                .reduce(|a, b| {
                    if a.is_nan() || b.is_nan() {
                        f64::NAN
                    } else {
                        a.max(b)
                    }
                })
                .unwrap()],
            0.0,
        );
        // The strided rows (a transposed copy read back) agree.
        let t = x.t().contiguous();
        assert_close(&f64s(&t.max(&[0], false)), &fold(true), 0.0);
        // The first NaN, else the first element equal to the extreme (ties are many here).
        let arg = |max: bool| -> Vec<f64> {
            (v.chunks(len))
                .map(|row| match row.iter().position(|y| y.is_nan()) {
                    Some(i) => i as f64,
                    None => {
                        let pick = |a: f64, b: f64| if max { a.max(b) } else { a.min(b) };
                        let m = row.iter().copied().reduce(pick).unwrap();
                        row.iter().position(|&y| y == m).unwrap() as f64
                    }
                })
                .collect()
        };
        assert_close(&f64s(&x.argmax(&[1], false)), &arg(true), 0.0);
        assert_close(&f64s(&x.argmin(&[1], false)), &arg(false), 0.0);
    }
}

/// `cumsum`/`cumprod` along the last axis of contiguous rows (threads, four rows at a time)
/// against the strided scan of the same values (a transposed layout, scanned along axis 0):
/// the same bits, for 1 to 9 rows (whole groups of four and the rest) and many rows.
fn last_axis_scans<T: Element>() {
    let mut seed = 5u64;
    for (rows, len) in [
        (1usize, 7usize),
        (3, 5),
        (4, 33),
        (9, 16),
        (4099, 3),
        (64, 1000),
    ] {
        let vals: Vec<f64> = (0..rows * len)
            .map(|_| match T::DTYPE {
                Dtype::Bool => (lcg(&mut seed) > 0.3) as u8 as f64,
                Dtype::UInt8 => (lcg(&mut seed) * 3.0).floor(),
                _ if T::DTYPE.is_float() => lcg(&mut seed) * 2.0 + 0.5,
                _ => (lcg(&mut seed) * 5.0 - 2.0).floor(),
            })
            .collect();
        // Three layouts of the same values, three scan paths: rows with gaps (line by line),
        // contiguous rows (the row kernel), columns side by side (position by position).
        let wide: Vec<f64> = vals
            .chunks(len)
            .flat_map(|r| r.iter().copied().chain([7.0; 3]))
            .collect();
        let gaps = tensor::<T>(&wide, &[rows, len + 3])
            .narrow(1, 0, len)
            .unwrap();
        let x = gaps.contiguous();
        let cols = x.t().contiguous().t();
        assert!((rows == 1 || !gaps.is_contiguous()) && x.is_contiguous());
        assert!(!cols.is_contiguous() || rows == 1 || len == 1);
        for y in [&x, &cols] {
            assert_eq!(f64s(&y.cumsum(-1)), f64s(&gaps.cumsum(-1)));
            assert_eq!(f64s(&y.cumprod(1)), f64s(&gaps.cumprod(1)));
        }
        let first = (vals[..len].iter())
            .scan(0.0, |a, &v| {
                *a += T::from_f64(v).to_f64();
                Some(*a)
            })
            .collect::<Vec<_>>();
        // Against f64 on short rows (a 16-bit running sum drifts over long ones, as PyTorch's).
        if len <= 33 {
            assert_close(&f64s(&x.cumsum(1))[..len], &first, tol(T::DTYPE) * 4.0);
        }
    }
}

#[test]
fn last_axis_scans_every_dtype() {
    for_types!(last_axis_scans: f32, f64, f16, bf16, i16, i32, i64, u8, bool);
}

#[test]
fn long_row_extremes_every_dtype() {
    for_types!(long_row_extremes: f32, f64, f16, bf16, i16, i32, i64, u8, bool);
    // `nanmax` skips the NaN wherever it is in a long row.
    for at in [0usize, 5, 16, 40, 63] {
        let mut v: Vec<f32> = (0..64).map(|i| (i * 37 % 64) as f32).collect();
        v[at] = f32::NAN;
        let x = Tensor::<f32>::from_vec(v.clone(), [1, 64]).unwrap();
        let want = v
            .iter()
            .copied()
            .filter(|y| !y.is_nan())
            .fold(f32::MIN, f32::max);
        assert_eq!(x.try_nanmax(&[1], false).unwrap().to_vec(), [want]);
        assert!(x.max(&[1], false).to_vec()[0].is_nan());
    }
    // ±0 tie: the first zero of either sign is the argmax, as the element-wise fold gives.
    for (pos, neg) in [(3usize, 20usize), (40, 2), (33, 34)] {
        let mut v = vec![-1.0f32; 48];
        v[pos] = 0.0;
        v[neg] = -0.0;
        let x = Tensor::<f32>::from_vec(v, [1, 48]).unwrap();
        assert_eq!(x.argmax(&[1], false).to_vec(), [pos.min(neg) as i64]);
        assert_eq!((-&x).argmin(&[1], false).to_vec(), [pos.min(neg) as i64]);
    }
}

#[test]
fn large_float_sum_is_accurate() {
    manual_seed(3);
    let x = Tensor::<f32>::rand([1 << 24]).unwrap();
    let exact: f64 = x.data().unwrap().iter().map(|&v| v as f64).sum();
    let got = x.sum(&[], false).item() as f64;
    assert!(((got - exact) / exact).abs() <= 1e-6, "{got} vs {exact}");
    let m = x.reshape([4096, 4096]);
    let cols = m.sum(&[0], false);
    let rows = m.t().sum(&[1], false);
    assert_eq!(cols.to_vec(), rows.to_vec());
    let am = m.argmax(&[1], false).to_vec();
    let row0 = &m.data().unwrap()[..4096];
    let best = row0.iter().cloned().fold(f32::MIN, f32::max);
    assert_eq!(row0[am[0] as usize], best);
}

/// Column reductions of tall matrices go through the four-rows-per-pass strip path, split into
/// row bands across threads: sums, products and arg-reductions (NaN, ties) against a scalar
/// reference, contiguous and as a column slice of a wider matrix, for every dtype.
fn long_columns<T: Element>() {
    let (rows, cols) = (2003, 70);
    let mut seed = 11u64;
    let mut v: Vec<f64> = (0..rows * 2 * cols)
        .map(|_| (lcg(&mut seed) * 8.0).floor() - 3.0)
        .collect();
    if T::DTYPE.is_float() {
        v[5 * 2 * cols + 3] = f64::NAN; // column 3, row 5
        v[(rows - 1) * 2 * cols + 7] = f64::NAN; // column 7, last row
        v[2 * cols + 9] = f64::INFINITY;
    }
    let wide = tensor::<T>(&v, &[rows, 2 * cols]);
    for t in [
        wide.narrow(1, 0, cols).unwrap().contiguous(),
        wide.narrow(1, cols / 2, cols).unwrap(),
    ] {
        let x = f64s(&t);
        let col = |c: usize| (0..rows).map(|r| x[r * cols + c]).collect::<Vec<f64>>();
        let want_sum: Vec<f64> = (0..cols).map(|c| col(c).iter().sum()).collect();
        let got = t.sum(&[0], false);
        assert_close(&f64s(&got), &want_sum, tol(T::DTYPE).max(1e-12) * 4.0);
        let want_arg: Vec<i64> = (0..cols)
            .map(|c| {
                let xs = col(c);
                if let Some(i) = xs.iter().position(|x| x.is_nan()) {
                    return i as i64;
                }
                let m = xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                xs.iter().position(|&x| x == m).unwrap() as i64
            })
            .collect();
        assert_eq!(t.argmax(&[0], false).to_vec(), want_arg, "{}", T::DTYPE);
    }
}

#[test]
fn long_column_reductions_every_dtype() {
    for_types!(long_columns: f32, f64, f16, bf16, i16, i32, i64, u8);
}

/// `product`/`nanproduct` over contiguous rows of every length around the kernel's lanes
/// (32 f64 lanes, then the tail), small and above the parallel size, against a left-to-right
/// f64 fold: values near 1 (no overflow in any order), a zero beside an infinity (NaN), a NaN
/// (kept by `product`, skipped by `nanproduct`), and a row slice of a wider matrix.
fn long_row_products<T: FloatElement>() {
    let mut seed = 5u64;
    for (rows, len) in [
        (3, 1),
        (5, 7),
        (4, 31),
        (4, 32),
        (3, 33),
        (6, 100),
        (300, 1001),
    ] {
        let mut v: Vec<f64> = (0..rows * (len + 3))
            .map(|_| 1.0 + (lcg(&mut seed) - 0.5) * 0.25)
            .collect();
        let w = len + 3;
        if len > 2 {
            v[w + len - 1] = f64::NAN; // row 1, last element
            v[2 * w] = 0.0; // row 2: 0 · inf
            v[2 * w + len / 2] = f64::INFINITY;
        }
        let wide = tensor::<T>(&v, &[rows, w]);
        for t in [
            wide.narrow(1, 0, len).unwrap().contiguous(),
            wide.narrow(1, 2, len).unwrap(),
        ] {
            let x = f64s(&t);
            let fold = |skip: bool| -> Vec<f64> {
                (x.chunks(len))
                    .map(|r| (r.iter()).filter(|v| !(skip && v.is_nan())).product())
                    .collect()
            };
            // The reference's rounding to T, within a few f64 roundings of the lanes' order.
            let rel = tol(T::DTYPE).max(1e-12);
            assert_close(&f64s(&t.product(&[1], false)), &fold(false), rel);
            assert_close(&f64s(&t.nanproduct(&[1], false)), &fold(true), rel);
        }
    }
}

#[test]
fn long_row_products_every_float_dtype() {
    for_types!(long_row_products: f32, f64, f16, bf16);
}

/// `logsumexp` over trailing axes of a contiguous tensor runs a fused row kernel; over other
/// axes or strided inputs it is composed from max, exp, sum and log. Both must equal the f64
/// definition, with its special rows (NaN, all `-inf`, `+inf`) and shapes.
fn logsumexp_fused_and_composed<T: FloatElement>() {
    let mut seed = 7u64;
    let (rows, len) = (37, 700); // rows longer than the kernel's 256-element buffer
    let mut v: Vec<f64> = (0..rows * len)
        .map(|_| (lcg(&mut seed) - 0.5) * 60.0)
        .collect();
    v[len..2 * len].fill(f64::NEG_INFINITY);
    v[2 * len + 5] = f64::INFINITY;
    v[3 * len + 9] = f64::NAN;
    let x = tensor::<T>(&v, &[rows, len]);
    let stored = f64s(&x);
    let want: Vec<f64> = stored
        .chunks(len)
        .map(|r| {
            if r.iter().any(|v| v.is_nan()) {
                return f64::NAN;
            }
            let m = r.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let s = if m.is_finite() { m } else { 0.0 };
            r.iter().map(|&v| (v - s).exp()).sum::<f64>().ln() + s
        })
        .collect();
    let rel = tol(T::DTYPE).max(1e-6);
    let fused = x.logsumexp(&[1], false);
    assert_eq!(fused.dims(), &[rows]);
    assert_close(&f64s(&fused), &want, rel);
    assert_eq!(x.logsumexp(&[-1], true).dims(), &[rows, 1]);
    // The same rows as columns of a transposed view: the composed path.
    let composed = x.t().logsumexp(&[0], false);
    assert_close(&f64s(&composed), &want, rel);
    // Two trailing axes fused at once, and the whole tensor.
    let x3 = x.reshape([rows, 7, 100]);
    assert_close(&f64s(&x3.logsumexp(&[1, 2], false)), &want, rel);
    let all = x.narrow(0, 4, 30).unwrap().logsumexp(&[], false);
    let finite: Vec<f64> = stored[4 * len..34 * len].to_vec();
    let m = finite.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let w = finite.iter().map(|&v| (v - m).exp()).sum::<f64>().ln() + m;
    assert_close(&f64s(&all), &[w], rel);
    // Empty rows give -inf (PyTorch and NumPy); no rows give an empty result.
    let empty_rows = Tensor::<T>::zeros([3, 0]).unwrap().logsumexp(&[1], false);
    assert_eq!(f64s(&empty_rows), vec![f64::NEG_INFINITY; 3]);
    let e = Tensor::<T>::zeros([3, 0]).unwrap();
    assert_eq!(e.softmax(1).dims(), &[3, 0]);
    assert_eq!(e.log_softmax(-1).dims(), &[3, 0]);
    assert_eq!(
        Tensor::<T>::zeros([0, 3])
            .unwrap()
            .logsumexp(&[1], false)
            .dims(),
        &[0]
    );
}

#[test]
fn logsumexp_fused_rows_every_float_dtype() {
    for_types!(logsumexp_fused_and_composed: f32, f64, f16, bf16);
}

/// `var`/`std` (two passes over contiguous runs, Welford's steps elsewhere) and the 2-norm
/// (a fused sum of squares without a graph) against f64 definitions: rows long enough for
/// the vector paths and every tail, a transposed view, a view at a storage offset, every
/// reduced-axis set, NaN and infinities, values far from 0, and the recorded norm, on every
/// device.
#[test]
fn var_and_norm_long_rows_match_f64_definitions() {
    fn def_var(v: &[f64]) -> f64 {
        let m = v.iter().sum::<f64>() / v.len() as f64;
        v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1) as f64
    }
    fn def_norm(v: &[f64]) -> f64 {
        v.iter().map(|x| x * x).sum::<f64>().sqrt()
    }
    fn run<T: FloatElement, D: Backend>(dev: &D) {
        let (r, c) = (6, 77);
        let mut seed = 11;
        // Values near 300 (f16 holds them to about 0.25): far from 0, so a one-pass formula
        // in f32 would lose most digits of the variance.
        let mut v: Vec<f64> = (0..(r + 1) * c)
            .map(|_| T::from_f64(300.0 + 8.0 * lcg(&mut seed)).to_f64())
            .collect();
        v[c + 40] = f64::NAN; // row 0 of the view below (the first row is skipped)
        v[2 * c + 76] = f64::INFINITY; // row 1, in its tail
        let full = Tensor::<T>::from_vec(v.iter().map(|&x| T::from_f64(x)).collect(), [r + 1, c])
            .unwrap()
            .to_device(dev)
            .unwrap();
        let x = full.narrow(0, 1, r).unwrap(); // at a storage offset
        let xv = &v[c..];
        let rows: Vec<&[f64]> = xv.chunks(c).collect();
        let cols: Vec<Vec<f64>> = (0..c)
            .map(|j| (0..r).map(|i| xv[i * c + j]).collect())
            .collect();
        let t = tol(T::DTYPE) * 4.0;
        let per = |f: fn(&[f64]) -> f64, vs: &[&[f64]]| vs.iter().map(|v| f(v)).collect::<Vec<_>>();
        let col_refs: Vec<&[f64]> = cols.iter().map(|v| &v[..]).collect();
        for (name, f) in [("var", def_var as fn(&[f64]) -> f64), ("norm", def_norm)] {
            let run_op = |x: &Tensor<T, D>, axes: &[i64]| match name {
                "var" => host_f64s(&x.var(axes, 1, false)),
                _ => host_f64s(&x.norm(2.0, axes, false)),
            };
            let what = |s: &str| format!("{} {name} {s}", T::DTYPE);
            let want = per(f, &rows);
            assert!(want[0].is_nan() && (name == "norm") == (want[1] == f64::INFINITY));
            let got = run_op(&x, &[1]);
            assert_close(&got, &want, t);
            // Transposed: the rows are columns of a strided view.
            let got_t = run_op(&x.t(), &[0]);
            assert_close(&got_t, &want, t);
            assert_close(&run_op(&x, &[0]), &per(f, &col_refs), t);
            // The whole tensor: finite rows only, then with the NaN.
            let finite = x.narrow(0, 2, r - 2).unwrap();
            let all = f(&xv[2 * c..]);
            assert_close(&run_op(&finite, &[]), &[all], t);
            assert!(run_op(&x, &[])[0].is_nan(), "{}", what("NaN in the whole"));
        }
        // The recorded norm (composed in f64, the same fused sum) agrees with the plain one.
        let xf = x.narrow(0, 2, r - 2).unwrap().cast::<f64>();
        let xg = xf.clone().with_requires_grad(true).unwrap();
        let plain = host_f64s(&xf.norm(2.0, &[1], false));
        let recorded = xg.norm(2.0, &[1], false);
        assert_close(&host_f64s(&recorded), &plain, 1e-15);
        recorded.sum(&[], false).backward();
        let g = host_f64s(&xg.grad_tensor().expect("a gradient"));
        let xs = host_f64s(&xf);
        let want: Vec<f64> = (0..xs.len()).map(|k| xs[k] / plain[k / c]).collect();
        assert_close(&g, &want, 1e-14);
    }
    on_every_device!("var_and_norm_long_rows_match_f64_definitions", |dev| {
        run::<f32, _>(&dev);
        run::<f64, _>(&dev);
        run::<f16, _>(&dev);
        run::<bf16, _>(&dev);
    });
    // A run whose f64 sum overflows takes Welford's steps: the variance of equal huge values
    // is 0, not NaN.
    let big = Tensor::<f64>::full([3, 40], 1.5e308).unwrap();
    assert_eq!(big.var(&[1], 1, false).to_vec(), vec![0.0; 3]);
    // Integers: exact squares.
    let i = Tensor::<i32>::from_vec((0..64).map(|k| k - 30).collect(), [2, 32]).unwrap();
    let want: Vec<f64> = (0..2)
        .map(|r| {
            def_norm(
                &(0..32)
                    .map(|k| (r * 32 + k - 30) as f64)
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    assert_close(&f64s(&i.norm(2.0, &[1], false)), &want, 1e-7);
}
