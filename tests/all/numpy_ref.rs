//! NumPy's results for 825 cases (`tests/data/numpy/cases.{txt,npz}`): element-wise math,
//! broadcasting arithmetic and comparisons across dtypes, scalar ops, reductions with axes and
//! keepdim, scans, sorts, casts, views, combiners, indexing, norms and products, on all 8 NumPy
//! dtypes with 0-d, empty and transposed inputs, NaN, ±inf, -0 and integer extremes. Each case
//! runs through `DynTensor` and must give the stored dtype (PyTorch's promotion rules, which
//! these ops share with NumPy but for the documented exceptions) and values (exact for
//! integers and bools; floats within the stored tolerance of NumPy's float64 result rounded to
//! the dtype). `tests/data/numpy/README.md` says how the cases were made.

use crate::numpy_ops::run;
use std::collections::BTreeMap;
use typed_tensor::dynamic::DynTensor;
use typed_tensor::io::load_npz;
use typed_tensor::prelude::*;

/// `got` matches `want`: the same dtype and shape; integers and bools equal; floats equal, both
/// NaN, or within `rtol · |want| + atol`.
fn matches(
    got: &DynTensor,
    want: &DynTensor,
    rtol: f64,
    atol: f64,
) -> std::result::Result<(), String> {
    if got.dtype() != want.dtype() || got.shape() != want.shape() {
        return Err(format!(
            "{:?} {} against {:?} {}",
            got.dtype(),
            got.shape(),
            want.dtype(),
            want.shape()
        ));
    }
    if !got.dtype().is_float() {
        let as_i64 = |t: &DynTensor| t.to_dtype(Dtype::Int64).unwrap().to_vec::<i64>().unwrap();
        let (g, w) = (as_i64(got), as_i64(want));
        return if g == w {
            Ok(())
        } else {
            Err(format!("{g:?} against {w:?}"))
        };
    }
    let as_f64 = |t: &DynTensor| t.to_dtype(Dtype::Float64).unwrap().to_vec::<f64>().unwrap();
    let (g, w) = (as_f64(got), as_f64(want));
    let close = |(a, b): (&f64, &f64)| {
        (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= rtol * b.abs() + atol
    };
    match g.iter().zip(&w).position(|p| !close(p)) {
        None => Ok(()),
        Some(i) => Err(format!("element {i}: {} against {}", g[i], w[i])),
    }
}

#[test]
fn numpy_reference_cases() {
    check_fixture("cases");
}

/// 353 cases of the composites and searches (`logaddexp`, `lerp`, `nan_to_num`, `quantile`,
/// `median`, `count_nonzero`, `diff`, `kron`, `cross`, `trace`, `movedim`, `nonzero`,
/// `searchsorted`, `isin`, `bincount`) over every dtype they take, with NaN, ±inf, -0 and
/// transposed, empty and 0-d inputs (`median` and `lerp` against PyTorch, which defines them).
#[test]
fn numpy_reference_cases_of_the_composites() {
    check_fixture("cases_composite");
}

/// 492 cases of the PyTorch-core composites (`cummax`/`cummin` and their indices,
/// `logcumsumexp`, `kthvalue`, `nanmedian`, `fmax`/`fmin`, `heaviside`, `logaddexp2`, `signbit`,
/// `frac`, `sinc`, `deg2rad`/`rad2deg`, `addcmul`/`addcdiv`, `clamp`, `take_along_dim`,
/// `scatter` with repeated targets, `index_fill`/`index_copy`, `masked_scatter`,
/// `vector_norm`, `matrix_norm`, `logdet`, `cond`, `matrix_rank`, `multi_dot`, `baddbmm`)
/// against NumPy, or PyTorch where NumPy lacks the op (`gen4.py 41 600`).
#[test]
fn numpy_reference_cases_of_the_core_composites() {
    check_fixture("cases_core");
}

fn check_fixture(name: &str) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/numpy");
    let arrays: BTreeMap<String, DynTensor> = load_npz(format!("{dir}/{name}.npz")).unwrap();
    let spec = std::fs::read_to_string(format!("{dir}/{name}.txt")).unwrap();
    let mut failures = Vec::new();
    for line in spec.lines() {
        let f: Vec<&str> = line.split('|').collect();
        let (id, op, rtol, atol) = (f[0], f[1], f[3].parse().unwrap(), f[4].parse().unwrap());
        let inputs: Vec<DynTensor> = (f[2].split(',').filter(|k| !k.is_empty()))
            .map(|k| match k.strip_suffix(".T") {
                Some(k) => {
                    let t = &arrays[k];
                    let rev: Vec<i64> = (0..t.ndim() as i64).rev().collect();
                    t.permute(&rev).unwrap()
                }
                None => arrays[k].clone(),
            })
            .collect();
        let outcome = match run(op, &inputs, &f[5..]) {
            Ok(outs) => (outs.iter().enumerate())
                .filter_map(|(j, o)| {
                    arrays
                        .get(&format!("{id}_out{j}"))
                        .map(|w| matches(o, w, rtol, atol))
                })
                .collect::<std::result::Result<(), String>>(),
            Err(e) => Err(e.to_string()),
        };
        if let Err(e) = outcome {
            failures.push(format!("{line}: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from NumPy:\n{}",
        failures.len(),
        spec.lines().count(),
        failures.join("\n")
    );
}
