//! NumPy's array editing (`append`, `insert`, `delete`, `resize`, `trim_zeros`, `compress`,
//! `extract`, `flatnonzero`, `put_along_axis`, `fill_diagonal`, `tri`, `ix_`), NaN and
//! percentile routines, `divmod`/`modf`/`ediff1d`/`unwrap`, `cumulative_sum`/`_prod`,
//! `histogram`, the polynomial routines, `inner`/`vdot`, `setxor1d`, `block` and the
//! `*_indices_from` routines: NumPy 2.4's values
//! (quoted) on every device, refusals, and gradients by `gradcheck`.

use crate::common::assert_close;
use typed_tensor::ops::histograms::Histogram;
use typed_tensor::prelude::*;

fn f<D: Device>(t: &Tensor<f64, D>) -> (Vec<usize>, Vec<f64>) {
    (t.dims().to_vec(), t.try_to_vec().unwrap())
}

fn i<D: Device>(t: &Tensor<i64, D>) -> (Vec<usize>, Vec<i64>) {
    (t.dims().to_vec(), t.try_to_vec().unwrap())
}

fn editing<D: Device>(dev: &D) -> Result<()> {
    let ti = |v: Vec<i64>, s: &[usize]| Tensor::<i64, D>::from_vec_on(v, s.to_vec(), dev);
    let a = ti(vec![1, 2, 3, 4], &[2, 2])?;
    assert_eq!(
        i(&a.try_append(&ti(vec![5, 6], &[1, 2])?, Some(0))?),
        (vec![3, 2], vec![1, 2, 3, 4, 5, 6])
    );
    assert_eq!(
        i(&a.try_append(&ti(vec![7, 8], &[2])?, None)?),
        (vec![6], vec![1, 2, 3, 4, 7, 8])
    );
    let v98 = ti(vec![9, 8], &[2])?;
    assert_eq!(
        i(&a.try_insert(1, &v98, Some(1))?),
        (vec![2, 3], vec![1, 9, 2, 3, 8, 4])
    );
    assert_eq!(
        i(&a.try_insert(-1, &ti(vec![5, 6], &[2])?, Some(0))?),
        (vec![3, 2], vec![1, 2, 5, 6, 3, 4])
    );
    assert_eq!(
        i(&a.try_insert(2, &ti(vec![7, 7, 7], &[3])?, None)?),
        (vec![7], vec![1, 2, 7, 7, 7, 3, 4])
    );
    assert_eq!(
        i(&a.try_insert(2, &ti(vec![5], &[])?, Some(1))?),
        (vec![2, 3], vec![1, 2, 5, 3, 4, 5])
    );
    let x24 = Tensor::<i64, D>::arange_on(0, 24, 1, dev)?.try_reshape([2, 3, 4])?;
    let (dims, got) = i(&x24.try_insert(1, &ti(vec![100, 200], &[2, 1])?, Some(2))?);
    assert_eq!(dims, [2, 3, 5]);
    assert_eq!(got[..12], [0, 100, 1, 2, 3, 4, 100, 5, 6, 7, 8, 100]);
    assert_eq!(got[15..17], [12, 200]);
    assert!(matches!(
        a.try_insert(3, &v98, Some(1)),
        Err(Error::Index { op: "insert", .. })
    ));
    assert!(a.try_insert(0, &ti(vec![1, 2, 3], &[3])?, Some(1)).is_err());

    assert_eq!(
        i(&a.try_delete(&ti(vec![0], &[1])?, Some(1))?),
        (vec![2, 1], vec![2, 4])
    );
    assert_eq!(
        i(&a.try_delete(&ti(vec![0, -1, 0], &[3])?, None)?),
        (vec![2], vec![2, 3])
    );
    let d3 = x24.try_delete(&ti(vec![1, 2], &[2])?, Some(1))?;
    assert_eq!(i(&d3), (vec![2, 1, 4], vec![0, 1, 2, 3, 12, 13, 14, 15]));
    assert!(matches!(
        a.try_delete(&ti(vec![2], &[1])?, Some(0)),
        Err(Error::Index {
            op: "delete",
            index: 2,
            dim: 0,
            ..
        })
    ));

    assert_eq!(
        i(&a.try_resize(&[3, 3])?),
        (vec![3, 3], vec![1, 2, 3, 4, 1, 2, 3, 4, 1])
    );
    assert_eq!(
        i(&ti(vec![], &[0])?.try_resize(&[2])?),
        (vec![2], vec![0, 0])
    );
    assert!(a.try_resize(&[1 << 40, 1 << 40]).is_err());
    let z = ti(vec![0, 0, 3, 0, 5, 0], &[6])?;
    assert_eq!(i(&z.try_trim_zeros(true, true)?).1, [3, 0, 5]);
    assert_eq!(i(&z.try_trim_zeros(true, false)?).1, [3, 0, 5, 0]);
    assert_eq!(i(&z.try_trim_zeros(false, true)?).1, [0, 0, 3, 0, 5]);
    assert_eq!(
        i(&ti(vec![0, 0], &[2])?.try_trim_zeros(true, false)?).1,
        Vec::<i64>::new()
    );
    assert!(a.try_trim_zeros(true, true).is_err());

    let tb = |v: Vec<bool>, s: &[usize]| Tensor::<bool, D>::from_vec_on(v, s.to_vec(), dev);
    assert_eq!(
        i(&a.try_compress(&tb(vec![false, true], &[2])?, Some(0))?),
        (vec![1, 2], vec![3, 4])
    );
    let x12 = Tensor::<i64, D>::arange_on(0, 12, 1, dev)?.try_reshape([3, 4])?;
    let c = x12.try_compress(&tb(vec![true, false, true], &[3])?, Some(1))?;
    assert_eq!(i(&c), (vec![3, 2], vec![0, 2, 4, 6, 8, 10]));
    assert_eq!(
        i(&a.try_compress(&tb(vec![false, true, true], &[3])?, None)?).1,
        [2, 3]
    );
    assert!(matches!(
        a.try_compress(&tb(vec![false, false, true], &[3])?, Some(0)),
        Err(Error::Index { op: "compress", .. })
    ));
    let cond = tb(vec![true, false, false, true], &[2, 2])?;
    assert_eq!(i(&a.try_extract(&cond)?), (vec![2], vec![1, 4]));
    assert_eq!(
        i(&ti(vec![0, 1, 2, 0], &[2, 2])?.try_flatnonzero()?).1,
        [1, 2]
    );

    let x = Tensor::<f64, D>::arange_on(0.0, 12.0, 1.0, dev)?.try_reshape([3, 4])?;
    let at = ti(vec![0, 2, 1], &[3, 1])?;
    let vals = Tensor::<f64, D>::from_vec_on(vec![-1.0, -2.0, -3.0], [3, 1], dev)?;
    let want = [-1., 1., 2., 3., 4., 5., -2., 7., 8., -3., 10., 11.];
    assert_eq!(f(&x.try_put_along_axis(&at, &vals, Some(1))?).1, want);
    let mut y = Tensor::<f64, D>::zeros_on([5, 3], dev)?;
    y.fill_diagonal_(7.0, true)?;
    let mut w = vec![0.0; 15];
    for p in [0, 4, 8, 12] {
        w[p] = 7.0;
    }
    assert_eq!(f(&y).1, w);
    let mut y = Tensor::<f64, D>::zeros_on([5, 3], dev)?;
    y.fill_diagonal_(7.0, false)?;
    w[12] = 0.0;
    assert_eq!(f(&y).1, w);
    let mut y = Tensor::<f64, D>::zeros_on([3, 3, 3], dev)?;
    y.fill_diagonal_(1.0, false)?;
    let ones: Vec<usize> = (0..27)
        .filter(|&k| y.try_to_vec().unwrap()[k] == 1.0)
        .collect();
    assert_eq!(ones, [0, 13, 26]);
    let mut y = Tensor::<f64, D>::zeros_on([2, 4], dev)?;
    y.fill_diagonal_(2.0, false)?;
    assert_eq!(f(&y).1, [2., 0., 0., 0., 0., 2., 0., 0.]);
    let mut bad = Tensor::<f64, D>::zeros_on([2, 3, 3], dev)?;
    assert!(bad.fill_diagonal_(1.0, false).is_err());
    let mut row = Tensor::<f64, D>::zeros_on([3], dev)?;
    assert!(row.fill_diagonal_(1.0, false).is_err());

    assert_eq!(
        f(&Tensor::<f64, D>::tri_on(3, 4, 1, dev)?).1,
        [1., 1., 0., 0., 1., 1., 1., 0., 1., 1., 1., 1.]
    );
    assert_eq!(
        f(&Tensor::<f64, D>::tri_on(3, 2, -1, dev)?).1,
        [0., 0., 1., 0., 1., 1.]
    );
    let (r, c) = (ti(vec![0, 1], &[2])?, ti(vec![2, 3, 1], &[3])?);
    let mesh = Tensor::ix_(&[&r, &c])?;
    assert_eq!((mesh[0].dims(), mesh[1].dims()), (&[2, 1][..], &[1, 3][..]));
    let picked = x12.try_index(&[Some(&mesh[0]), Some(&mesh[1])])?;
    assert_eq!(i(&picked), (vec![2, 3], vec![2, 3, 1, 6, 7, 5]));
    let diag = Tensor::<i64, D>::diag_indices_on(3, 2, dev)?;
    assert_eq!(
        i(&x12
            .narrow(1, 0, 3)?
            .try_index(&[Some(&diag[0]), Some(&diag[1])])?)
        .1,
        [0, 5, 10]
    );
    Ok(())
}

fn math<D: Device>(dev: &D) -> Result<()> {
    let t = |v: Vec<f64>, s: &[usize]| Tensor::<f64, D>::from_vec_on(v, s.to_vec(), dev);
    let ti = |v: Vec<i64>, s: &[usize]| Tensor::<i64, D>::from_vec_on(v, s.to_vec(), dev);
    let nan = f64::NAN;
    let v = t(vec![1., nan, 3., 4.], &[4])?;
    assert_eq!(
        f(&t(vec![1., nan, nan, nan], &[2, 2])?.try_nanprod(&[1], false)?).1,
        [1., 1.]
    );
    assert_eq!(f(&v.try_nancumsum(0)?).1, [1., 1., 4., 8.]);
    assert_eq!(f(&v.try_nancumprod(0)?).1, [1., 1., 3., 12.]);
    let m = t(vec![3., 1., 2., 10., 6., 5., 4., nan], &[2, 4])?;
    assert_close(
        &f(&m.narrow(0, 0, 1)?.try_percentile(30.0, 1, true)?).1,
        &[1.9],
        1e-15,
    );
    assert_close(
        &f(&m.try_percentile(75.0, 1, false)?).1,
        &[4.75, nan],
        1e-15,
    );
    assert_close(
        &f(&m.try_nanpercentile(75.0, 1, false)?).1,
        &[4.75, 5.5],
        1e-15,
    );
    assert!(matches!(
        m.try_percentile(101.0, 1, false),
        Err(Error::InvalidArgument {
            op: "percentile",
            ..
        })
    ));

    let (q, r) = ti(vec![7, -7, 7, -7], &[4])?.try_divmod(&ti(vec![2, 2, -2, -2], &[4])?)?;
    assert_eq!((i(&q).1, i(&r).1), (vec![3, -4, -4, 3], vec![1, 1, -1, -1]));
    assert!(ti(vec![1], &[1])?.try_divmod(&ti(vec![0], &[1])?).is_err());
    let inf = f64::INFINITY;
    let (fr, wh) = t(vec![2.5, -1.25, -0.0, inf, -inf, nan, -3.0], &[7])?.try_modf()?;
    let bits = |x: Vec<f64>| {
        x.iter()
            .map(|v| if v.is_nan() { 1 } else { v.to_bits() })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        bits(f(&fr).1),
        bits(vec![0.5, -0.25, -0.0, 0.0, -0.0, nan, -0.0])
    );
    assert_eq!(
        bits(f(&wh).1),
        bits(vec![2.0, -1.0, -0.0, inf, -inf, nan, -3.0])
    );
    let e = ti(vec![1, 4, 9, 16], &[2, 2])?
        .try_ediff1d(Some(&ti(vec![99], &[1])?), Some(&ti(vec![-1, -2], &[2])?))?;
    assert_eq!(i(&e).1, [-1, -2, 3, 5, 7, 99]);
    assert_eq!(i(&ti(vec![5], &[1])?.try_ediff1d(None, None)?).0, [0]);

    let tau = std::f64::consts::TAU;
    let ph = t(vec![0., 1., 2., 6., 7., 1., 0.5, -3.], &[8])?;
    let want = [
        0.0,
        1.0,
        2.0,
        -0.28318530717958623,
        0.7168146928204138,
        1.0,
        0.5,
        3.2831853071795862,
    ];
    assert_close(&f(&ph.try_unwrap(None, 0, tau)?).1, &want, 1e-14);
    let mut want4 = want;
    want4[7] = -3.0;
    assert_close(&f(&ph.try_unwrap(Some(4.0), 0, tau)?).1, &want4, 1e-14);
    let p6 = t(vec![1., 2., 5., 8., 0.5], &[5])?;
    assert_close(
        &f(&p6.try_unwrap(None, -1, 6.0)?).1,
        &[1., 2., 5., 8., 6.5],
        1e-14,
    );
    let u2 = t(vec![0., 3., 6., 1., -2., 2.], &[2, 3])?.try_unwrap(None, 0, tau)?;
    assert_close(
        &f(&u2).1,
        &[0., 3., 6., 1., 4.283185307179586, 8.283185307179586],
        1e-14,
    );
    assert!(ph.try_unwrap(None, 0, 0.0).is_err());

    let cs = ti(vec![1, 2, 3, 4], &[2, 2])?.try_cumulative_sum(1, true)?;
    assert_eq!(i(&cs), (vec![2, 3], vec![0, 1, 3, 0, 3, 7]));
    assert_eq!(
        f(&t(vec![1., 2., 3.], &[3])?.try_cumulative_prod(0, true)?).1,
        [1., 1., 2., 6.]
    );

    let h = t(vec![1., 2., 2., 4., 0.5, 9., nan], &[7])?;
    let (counts, edges) = h.try_histogram(3, Some((1.0, 4.0)))?;
    assert_eq!(
        (i(&counts).1, f(&edges).1),
        (vec![1, 2, 1], vec![1., 2., 3., 4.])
    );
    let (counts, edges) = ti(vec![3, 1, 2, 3, 3], &[5])?.try_histogram(4, None)?;
    assert_eq!(
        (i(&counts).1, f(&edges).1),
        (vec![1, 0, 1, 3], vec![1., 1.5, 2., 2.5, 3.])
    );
    let (counts, edges) = t(vec![5., 5.], &[2])?.try_histogram(2, None)?;
    assert_eq!(
        (i(&counts).1, f(&edges).1),
        (vec![0, 2], vec![4.5, 5., 5.5])
    );
    assert!(matches!(
        h.try_histogram(3, None),
        Err(Error::InvalidArgument {
            op: "histogram",
            ..
        })
    ));
    assert!(h.try_histogram(0, Some((0.0, 1.0))).is_err());
    assert!(h.try_histogram(2, Some((1.0, 0.0))).is_err());
    assert_eq!(
        f(&h.try_histogram_bin_edges(2, Some((0.0, 1.0)))?).1,
        [0.0, 0.5, 1.0]
    );

    let p = t(vec![1., 2., 3., 4.], &[4])?;
    assert_eq!(f(&p.try_polyder(2)?).1, [6., 4.]);
    assert_eq!(f(&p.try_polyder(4)?).0, [0]);
    assert_eq!(f(&p.try_polyder(0)?).1, [1., 2., 3., 4.]);
    let q3 = t(vec![3., 2., 1.], &[3])?;
    assert_close(
        &f(&q3.try_polyint(2, &[1.0, 2.0])?).1,
        &[0.25, 1.0 / 3.0, 0.5, 1.0, 2.0],
        1e-15,
    );
    assert_close(
        &f(&t(vec![4., 0., 1.], &[3])?.try_polyint(1, &[])?).1,
        &[4.0 / 3.0, 0., 1., 0.],
        1e-15,
    );
    assert!(q3.try_polyint(2, &[1.0, 2.0, 3.0]).is_err());
    let (p2, p3) = (ti(vec![1, 2], &[2])?, ti(vec![1, 2, 3], &[3])?);
    assert_eq!(i(&p2.try_polyadd(&p3)?).1, [1, 3, 5]);
    assert_eq!(i(&p2.try_polysub(&p3)?).1, [-1, -1, -1]);
    assert_eq!(i(&p2.try_polymul(&p3)?).1, [1, 4, 7, 6]);
    assert_eq!(
        ti(vec![1, 2, 3, 4], &[2, 2])?
            .try_polyder(1)
            .unwrap_err()
            .to_string()
            .contains("polyder"),
        true
    );

    let a = Tensor::<f64, D>::arange_on(0.0, 6.0, 1.0, dev)?.try_reshape([2, 3])?;
    let b = Tensor::<f64, D>::arange_on(0.0, 9.0, 1.0, dev)?.try_reshape([3, 3])?;
    assert_eq!(
        f(&a.try_inner(&b)?),
        (vec![2, 3], vec![5., 14., 23., 14., 50., 86.])
    );
    assert!(matches!(
        a.try_inner(&a.t()),
        Err(Error::ShapeMismatch { op: "inner", .. })
    ));
    let sq = Tensor::<f64, D>::arange_on(0.0, 4.0, 1.0, dev)?.try_reshape([2, 2])?;
    assert_eq!(
        f(&sq.try_vdot(&t(vec![1., 2., 3., 4.], &[4])?)?),
        (vec![], vec![20.])
    );
    assert!(sq.try_vdot(&p2.cast::<f64>()).is_err());
    let x1 = ti(vec![1, 2, 3, 3, 5], &[5])?;
    assert_eq!(
        i(&x1.try_setxor1d(&ti(vec![2, 4, 5, 6], &[4])?)?).1,
        [1, 3, 4, 6]
    );
    Ok(())
}

#[test]
fn numpy_editing_and_math_on_every_device() {
    on_every_device!("numpy_editing_and_math", |dev| {
        editing(&dev).unwrap();
        math(&dev).unwrap();
    });
}

#[test]
fn numpy_more_gradients() {
    let t = |v: Vec<f64>, s: &[usize]| Tensor::<f64>::from_vec(v, s.to_vec()).unwrap();
    let check = crate::common::check_grad;
    let a = t(vec![0.7, -1.3, 2.2, -0.4, 1.9, -2.6], &[2, 3]);
    let idx = Tensor::<i64>::from_vec(vec![1], [1]).unwrap();
    check(
        "insert",
        &|v| v[0].try_insert(1, &v[1], Some(1)),
        &[a.clone(), t(vec![0.5, -0.5], &[2])],
    );
    check("delete", &|v| v[0].try_delete(&idx, Some(1)), &[a.clone()]);
    check("resize", &|v| v[0].try_resize(&[4, 2]), &[a.clone()]);
    check(
        "append",
        &|v| v[0].try_append(&v[1], None),
        &[a.clone(), t(vec![3.0], &[1])],
    );
    let at = Tensor::<i64>::from_vec(vec![2, 0], [2, 1]).unwrap();
    check(
        "put_along_axis",
        &|v| v[0].try_put_along_axis(&at, &v[1], Some(1)),
        &[a.clone(), t(vec![4.0, 5.0], &[2, 1])],
    );
    check(
        "nanprod",
        &|v| v[0].try_nanprod(&[1], false),
        &[t(vec![0.5, f64::NAN, 2.0, 1.5, -1.0, 3.0], &[2, 3])],
    );
    check("nancumsum", &|v| v[0].try_nancumsum(1), &[a.clone()]);
    check(
        "percentile",
        &|v| v[0].try_percentile(30.0, 1, false),
        &[a.clone()],
    );
    check("modf", &|v| Ok(v[0].try_modf()?.0), &[a.clone()]);
    check(
        "unwrap",
        &|v| v[0].try_unwrap(None, 1, std::f64::consts::TAU),
        &[t(vec![0.1, 3.5, 7.2, 0.3, -2.9, 2.2], &[2, 3])],
    );
    check(
        "polyint",
        &|v| v[0].try_polyint(2, &[0.5]),
        &[t(vec![1.5, -2.0, 0.5], &[3])],
    );
    check(
        "polyder",
        &|v| v[0].try_polyder(1),
        &[t(vec![1.5, -2.0, 0.5], &[3])],
    );
    check("inner", &|v| v[0].try_inner(&v[1]), &[a.clone(), a.clone()]);
    check("vdot", &|v| v[0].try_vdot(&v[1]), &[a.clone(), a.t()]);
}

/// Hostile sizes the API fuzzer found: each is an `Err` (or an empty result), promptly.
#[test]
fn numpy_more_hostile_sizes() {
    // Empty tensors whose other dimensions multiply past usize (found by the fuzzer in
    // tensorinv; index and index_put multiply the indexed sizes too).
    let e = Tensor::<f64>::zeros([3, 0, 1 << 33, 1 << 33]).unwrap();
    assert!(e.try_tensorinv(2).is_err());
    assert!(e.try_tensorsolve(&Tensor::zeros([3, 0]).unwrap()).is_err());
    let huge = Tensor::<f64>::zeros([0, 1 << 40, 1 << 40]).unwrap();
    let i = tensor![0i64];
    let r = huge.try_index(&[None, Some(&i), Some(&i)]);
    assert!(r.is_err() || r.unwrap().dims() == [0, 1]);
    let r = huge.try_index_put(
        &[None, Some(&i), Some(&i)],
        &Tensor::zeros([1]).unwrap(),
        false,
    );
    assert!(r.is_err() || r.unwrap().dims() == huge.dims());
    // An indexed axis of length 0 beside huge indexed ones (found by the fuzzer in index_put):
    // the indexed sizes' product is 0, the running one overflowed.
    let z = Tensor::<u8>::zeros([2, 0, 1 << 33, 1 << 33]).unwrap();
    let none = Tensor::<i64>::zeros([0]).unwrap();
    let all = [None, Some(&none), Some(&i), Some(&i)];
    assert_eq!(z.index(&all).dims(), &[2, 0]);
    let put = z.index_put(&all, &Tensor::zeros([1]).unwrap(), false);
    assert_eq!(put.dims(), z.dims());
    let one = [None, Some(&i), Some(&i), Some(&i)];
    assert!(matches!(
        z.try_index(&one),
        Err(Error::Index { dim: 1, .. })
    ));
    let p = tensor![1.0f64, 2.0, 3.0];
    assert!(p.try_polyint(usize::MAX, &[]).is_err());
    assert!(p.try_polyint(1 << 40, &[1.0]).is_err());
    assert_eq!(p.polyint(400, &[]).dims(), &[403]);
    assert_eq!(p.polyder(usize::MAX).dims(), &[0]);
    assert!(p.try_histogram(usize::MAX, Some((0.0, 1.0))).is_err());
    assert!(p.try_histogram(1 << 60, None).is_err());
    let x = Tensor::<f64>::zeros([0, 1 << 40]).unwrap();
    assert_eq!(x.index(&[None, Some(&tensor![5i64, -1])]).dims(), &[0, 2]);
    assert!(
        Tensor::<f64>::zeros([1 << 40, 0])
            .unwrap()
            .try_lu()
            .is_err()
    );
    assert!(x.try_resize(&[1 << 62]).is_err());
}

#[test]
fn cpu_constructors() {
    assert_eq!(
        Tensor::<i32>::tri(2, 3, 0).unwrap().to_vec(),
        vec![1, 0, 0, 1, 1, 0]
    );
    let d = Tensor::<i64>::diag_indices(3, 2).unwrap();
    assert_eq!((d.len(), d[1].to_vec()), (2, vec![0, 1, 2]));
}

#[test]
fn delete_from_an_empty_tensor_with_a_huge_axis() {
    let x = Tensor::<f32>::zeros([0, 1 << 40]).unwrap();
    let d = x.delete(&tensor![5i64, -1, 5], Some(1));
    assert_eq!(d.dims(), &[0, (1 << 40) - 2]);
    assert!(x.try_delete(&tensor![1i64 << 41], Some(1)).is_err());
}

/// `roll_flat`, `roll_axes` and `repeat_interleave_by` against PyTorch 2.15.
#[test]
fn rolls_and_repeats_by_counts() {
    on_every_device!("rolls_and_repeats", |dev| {
        let x = Tensor::<i64, _>::arange_on(0, 6, 1, &dev)
            .unwrap()
            .reshape([2, 3]);
        let v = |t: Tensor<i64, _>| t.try_to_vec().unwrap();
        assert_eq!(v(x.roll_flat(2)), [4, 5, 0, 1, 2, 3]);
        assert_eq!(v(x.roll_axes(&[1, -1], &[0, 1])), [4, 5, 3, 1, 2, 0]);
        assert_eq!(v(x.roll_axes(&[1, 1], &[1, 1])), [1, 2, 0, 4, 5, 3]);
        assert!(x.try_roll_axes(&[1], &[0, 1]).is_err());
        let r = |c: Vec<i64>| Tensor::<i64, _>::from_vec_on(c.clone(), [c.len()], &dev).unwrap();
        let a = x.repeat_interleave_by(&r(vec![1, 0, 2]), Some(1));
        assert_eq!(
            (a.dims().to_vec(), v(a)),
            (vec![2, 3], vec![0, 2, 2, 3, 5, 5])
        );
        assert_eq!(
            v(x.repeat_interleave_by(&r(vec![2, 1]), Some(0))),
            [0, 1, 2, 0, 1, 2, 3, 4, 5]
        );
        assert_eq!(
            v(x.repeat_interleave_by(&r(vec![2]), None)),
            [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
        );
        assert!(
            x.try_repeat_interleave_by(&r(vec![1, -1, 1]), Some(1))
                .is_err()
        );
        assert!(x.try_repeat_interleave_by(&r(vec![1, 1]), Some(1)).is_err());
        assert!(
            x.try_repeat_interleave_by(&r(vec![i64::MAX, i64::MAX, 1]), Some(1))
                .is_err()
        );
    });
    let x = Tensor::<f64>::from_vec(vec![0.5, -1.0, 2.0], [3]).unwrap();
    let reps = tensor![2i64, 0, 3];
    typed_tensor::autograd::gradcheck(
        |t| t[0].try_repeat_interleave_by(&reps, Some(0)),
        &[x.clone()],
        1e-6,
        1e-6,
    )
    .unwrap();
    typed_tensor::autograd::gradcheck(|t| t[0].try_roll_flat(-1), &[x], 1e-6, 1e-6).unwrap();
}

#[test]
fn dyn_tensor_numpy_forms() {
    let a = DynTensor::from(tensor![[1i32, 2], [3, 4]]);
    let v = |d: DynTensor| d.to_dtype(Dtype::Float64).unwrap().to_vec::<f64>().unwrap();
    assert_eq!(
        v(a.append(&DynTensor::from(tensor![[5i32, 6]]), Some(0))
            .unwrap()),
        [1., 2., 3., 4., 5., 6.]
    );
    assert_eq!(
        v(a.insert(1, &DynTensor::from(tensor![9i32, 8]), Some(1))
            .unwrap()),
        [1., 9., 2., 3., 8., 4.]
    );
    assert_eq!(
        v(a.delete(&DynTensor::from(tensor![0i64]), Some(1)).unwrap()),
        [2., 4.]
    );
    assert_eq!(v(a.resize(&[3]).unwrap()), [1., 2., 3.]);
    assert_eq!(v(a.inner(&a).unwrap()), [5., 11., 11., 25.]);
    assert_eq!(v(a.vdot(&a).unwrap()), [30.]);
    let (q, r) = a.divmod(&DynTensor::from(tensor![3i32])).unwrap();
    assert_eq!((v(q), v(r)), (vec![0., 0., 1., 1.], vec![1., 2., 0., 1.]));
    assert!(a.nanprod(&[], false).is_err()); // float-only, naming the op
    let f = DynTensor::from(tensor![1.0f64, f64::NAN, 3.0]);
    assert_eq!(v(f.nanprod(&[], false).unwrap()), [3.]);
    assert_eq!(v(f.nancumsum(0).unwrap()), [1., 1., 4.]);
    assert_eq!(v(f.nancumprod(0).unwrap()), [1., 1., 3.]);
    assert_eq!(v(f.nanpercentile(50.0, 0, false).unwrap()), [2.]);
    assert!(v(f.percentile(50.0, 0, false).unwrap())[0].is_nan());
    let (fr, wh) = DynTensor::from(tensor![2.5f32]).modf().unwrap();
    assert_eq!((v(fr), v(wh)), (vec![0.5], vec![2.0]));
    assert_eq!(
        v(a.setxor1d(&DynTensor::from(tensor![[2i32, 5]])).unwrap()),
        [1., 3., 4., 5.]
    );
    let p = DynTensor::from(tensor![1.0f64]).polygamma(1).unwrap();
    assert!((v(p)[0] - std::f64::consts::PI.powi(2) / 6.0).abs() < 1e-15);
    let z = DynTensor::from(tensor![2.0f64])
        .zeta(&DynTensor::from(tensor![1.0f64]))
        .unwrap();
    assert!((v(z)[0] - std::f64::consts::PI.powi(2) / 6.0).abs() < 1e-15);
    assert!(a.append(&f, None).is_err());
}

/// The window functions against PyTorch 2.15 (`periodic` and symmetric; NumPy's `kaiser` is the
/// symmetric one), on every device.
#[test]
fn window_functions_match_pytorch() {
    on_every_device!("windows", |dev| {
        let get = |t: Result<Tensor<f64, _>>| t.unwrap().try_to_vec().unwrap();
        let hann = (
            [
                0.0,
                0.1882550990706332,
                0.6112604669781572,
                0.9504844339512095,
                0.9504844339512095,
                0.6112604669781573,
                0.1882550990706333,
            ],
            [
                0.0,
                0.3454915028125263,
                0.9045084971874737,
                0.9045084971874737,
                0.3454915028125264,
                0.0,
            ],
        );
        assert_close(&get(Tensor::hann_window_on(7, true, &dev)), &hann.0, 1e-15);
        assert_close(&get(Tensor::hann_window_on(6, false, &dev)), &hann.1, 1e-15);
        let hamming = (
            [
                0.08000000000000002,
                0.25319469114498255,
                0.6423596296199047,
                0.9544456792351128,
                0.9544456792351128,
                0.6423596296199048,
                0.25319469114498266,
            ],
            [
                0.08000000000000002,
                0.3978521825875242,
                0.9121478174124757,
                0.912147817412476,
                0.3978521825875243,
                0.08000000000000002,
            ],
        );
        assert_close(
            &get(Tensor::hamming_window_on(7, true, &dev)),
            &hamming.0,
            1e-15,
        );
        assert_close(
            &get(Tensor::hamming_window_on(6, false, &dev)),
            &hamming.1,
            1e-15,
        );
        let blackman = (
            [
                0.0,
                0.09045342435412806,
                0.4591829575459636,
                0.9203636180999082,
                0.9203636180999082,
                0.4591829575459638,
                0.09045342435412812,
            ],
            [
                0.0,
                0.20077014326253045,
                0.8492298567374694,
                0.8492298567374696,
                0.20077014326253056,
                0.0,
            ],
        );
        assert_close(
            &get(Tensor::blackman_window_on(7, true, &dev)),
            &blackman.0,
            1e-15,
        );
        assert_close(
            &get(Tensor::blackman_window_on(6, false, &dev)),
            &blackman.1,
            1e-15,
        );
        let bartlett = (
            [
                0.0,
                0.2857142857142857,
                0.5714285714285714,
                0.8571428571428571,
                0.8571428571428572,
                0.5714285714285716,
                0.2857142857142858,
            ],
            [0.0, 0.4, 0.8, 0.7999999999999998, 0.3999999999999999, 0.0],
        );
        assert_close(
            &get(Tensor::bartlett_window_on(7, true, &dev)),
            &bartlett.0,
            1e-15,
        );
        assert_close(
            &get(Tensor::bartlett_window_on(6, false, &dev)),
            &bartlett.1,
            1e-15,
        );
        let kaiser = (
            [
                5.2773441320097665e-05,
                0.03276828844175176,
                0.33089863665707414,
                0.8888676640466582,
                0.8888676640466582,
                0.33089863665707414,
                0.03276828844175176,
            ],
            [
                0.036710892271286676,
                0.4149036392433668,
                0.9138124838692001,
                0.9138124838692001,
                0.4149036392433668,
                0.036710892271286676,
            ],
        );
        assert_close(
            &get(Tensor::kaiser_window_on(7, true, 12.0, &dev)),
            &kaiser.0,
            1e-14,
        );
        assert_close(
            &get(Tensor::kaiser_window_on(6, false, 5.0, &dev)),
            &kaiser.1,
            1e-14,
        );
        let general = get(Tensor::general_hamming_window_on(5, false, 0.6, 0.3, &dev));
        assert_close(&general, &[0.3, 0.6, 0.8999999999999999, 0.6, 0.3], 1e-15);
        // Lengths 0 and 1; f32 rounds the f64 values once (PyTorch computes in f32, and its
        // last value here is 0.34549144).
        assert_eq!(
            get(Tensor::hann_window_on(0, true, &dev)),
            Vec::<f64>::new()
        );
        assert_eq!(get(Tensor::kaiser_window_on(1, true, 12.0, &dev)), [1.0]);
        let h32 = Tensor::<f32, _>::hann_window_on(5, true, &dev).unwrap();
        assert_eq!(
            h32.try_to_vec().unwrap(),
            [0.0, 0.3454915, 0.9045085, 0.9045085, 0.3454915]
        );
    });
    assert!(
        Tensor::<f64>::kaiser_window(4, true, -1.0)
            .unwrap_err()
            .to_string()
            .starts_with("kaiser_window")
    );
    let e = Tensor::<f64>::general_hamming_window_on(4, true, f64::NAN, 0.5, &Cpu).unwrap_err();
    assert!(e.to_string().starts_with("hamming_window"), "{e}");
    assert!(Tensor::<f64>::hann_window(usize::MAX, false).is_err());
}

/// `combinations` against PyTorch 2.15 / itertools, on every device; counts against the
/// binomial coefficients; its gradient; hostile sizes.
#[test]
fn combinations_match_itertools() {
    on_every_device!("combinations", |dev| {
        let a = Tensor::<i64, _>::from_vec_on(vec![1, 2, 3], [3], &dev).unwrap();
        let c = a.try_combinations(2, false).unwrap();
        assert_eq!(
            (c.dims(), c.try_to_vec().unwrap()),
            ([3, 2].as_slice(), vec![1, 2, 1, 3, 2, 3])
        );
        let c = a.try_combinations(3, true).unwrap();
        let want = [
            1, 1, 1, 1, 1, 2, 1, 1, 3, 1, 2, 2, 1, 2, 3, 1, 3, 3, 2, 2, 2, 2, 2, 3, 2, 3, 3, 3, 3,
            3,
        ];
        assert_eq!(
            (c.dims(), c.try_to_vec().unwrap()),
            ([10, 3].as_slice(), want.to_vec())
        );
        assert_eq!(a.try_combinations(0, false).unwrap().dims(), [0]);
        assert_eq!(a.try_combinations(1, false).unwrap().dims(), [3, 1]);
        assert_eq!(a.try_combinations(4, false).unwrap().dims(), [0, 4]);
        assert_eq!(a.try_combinations(4, true).unwrap().dims(), [15, 4]);
        let b = Tensor::<bool, _>::from_vec_on(vec![], [0], &dev).unwrap();
        assert_eq!(b.try_combinations(2, false).unwrap().dims(), [0, 2]);
    });
    // Counts are C(n, r) and C(n + r - 1, r); every row strictly (or weakly) increasing.
    let binom = |n: u64, r: u64| (0..r).fold(1u64, |c, i| c * (n - i) / (i + 1));
    for (n, r) in [(7usize, 3usize), (10, 5), (6, 6), (5, 2)] {
        let t = Tensor::<i64>::arange(0, n as i64, 1).unwrap();
        for repl in [false, true] {
            let c = t.try_combinations(r, repl).unwrap();
            let m = if repl { n + r - 1 } else { n };
            assert_eq!(
                c.dims()[0] as u64,
                binom(m as u64, r as u64),
                "{n} {r} {repl}"
            );
            let v = c.to_vec();
            for row in v.chunks(r) {
                assert!(
                    row.windows(2)
                        .all(|w| if repl { w[0] <= w[1] } else { w[0] < w[1] })
                );
            }
            let mut rows: Vec<_> = v.chunks(r).collect();
            rows.dedup();
            assert!(rows.is_sorted(), "lexicographic");
            assert_eq!(rows.len() as u64, binom(m as u64, r as u64));
        }
    }
    let x = Tensor::<f64>::from_vec(vec![0.5, -1.0, 2.0, 3.0], [4]).unwrap();
    crate::common::check_grad(
        "combinations",
        &|v| v[0].try_combinations(2, true),
        &[x.clone()],
    );
    assert!(x.try_combinations(usize::MAX, true).is_err());
    assert_eq!(x.try_combinations(6, true).unwrap().dims(), [84, 6]); // C(9, 6)
    let d = DynTensor::from(tensor![true, false])
        .combinations(2, false)
        .unwrap();
    assert_eq!(d.downcast::<bool, Cpu>().unwrap().to_vec(), [true, false]);
    let big = Tensor::<f64>::zeros([100]).unwrap();
    let e = big.try_combinations(30, false).unwrap_err().to_string(); // 2.9e25 rows
    assert!(e.starts_with("combinations"), "{e}");
    assert!(
        x.try_reshape([2, 2])
            .unwrap()
            .try_combinations(2, false)
            .is_err()
    );
}

/// `histogramdd` and `histogram2d` against NumPy 2.4 (data's ranges, given ranges with
/// `density`, weights, the closed last bin, a 1-d sample), on every device; their errors.
#[test]
fn histogramdd_matches_numpy() {
    on_every_device!("histogramdd", |dev| {
        let v: Vec<f64> = (0..40)
            .flat_map(|i| {
                let i = i as f64;
                [
                    (0.37 * i + 0.1).sin() * 2.0,
                    (0.53 * i).cos() * 3.0,
                    (i % 7.0) / 2.0,
                ]
            })
            .collect();
        let pts = Tensor::<f64, _>::from_vec_on(v, [40, 3], &dev).unwrap();
        let (h, edges) = pts.try_histogramdd(&[3, 4, 2], None, None, false).unwrap();
        let want = [
            3.0, 1.0, 1.0, 2.0, 1.0, 0.0, 0.0, 4.0, 1.0, 1.0, 1.0, 0.0, 1.0, 2.0, 1.0, 2.0, 1.0,
            5.0, 0.0, 3.0, 2.0, 1.0, 6.0, 1.0,
        ];
        assert_eq!(
            (h.dims(), h.try_to_vec().unwrap()),
            ([3, 4, 2].as_slice(), want.to_vec())
        );
        let e0 = [
            -1.9726477292339961,
            -0.6484600551568374,
            0.6757276189203214,
            1.9999152929974802,
        ];
        assert_close(&edges[0].try_to_vec().unwrap(), &e0, 1e-15);
        assert_eq!(edges[2].try_to_vec().unwrap(), [0.0, 1.5, 3.0]);
        let range = [(-1.0, 1.0), (0.0, 3.0), (0.0, 3.0)];
        let (h, _) = pts
            .try_histogramdd(&[3, 4, 2], Some(&range), None, true)
            .unwrap();
        let (a, b) = (0.14814814814814814, 0.2962962962962963);
        let want = [
            a, a, 0.0, a, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, a, a, a, 0.0, 0.0, 0.0, 0.0,
            0.0, 0.0, b, a,
        ];
        assert_close(&h.try_to_vec().unwrap(), &want, 1e-15);
        let w = Tensor::<f64, _>::arange_on(0.0, 4.0, 0.1, &dev).unwrap();
        let xy = pts.narrow(1, 0, 2).unwrap();
        let (h, _) = xy.try_histogramdd(&[2, 3], None, Some(&w), false).unwrap();
        assert_close(
            &h.try_to_vec().unwrap(),
            &[13.4, 11.6, 8.6, 10.4, 10.1, 23.9],
            1e-14,
        );
        let (x, y) = (pts.select(1, 0).unwrap(), pts.select(1, 1).unwrap());
        let (h, _) = x
            .try_histogram2d(&y, (2, 2), Some([(-2.0, 2.0), (-3.0, 3.0)]), None, false)
            .unwrap();
        assert_eq!(h.try_to_vec().unwrap(), [8.0, 8.0, 11.0, 13.0]);
        let one = Tensor::<i32, _>::from_vec_on(vec![1, 2, 2, 3], [4], &dev).unwrap();
        assert_eq!(
            one.try_histogramdd(&[3], None, None, false)
                .unwrap()
                .0
                .try_to_vec()
                .unwrap(),
            [1.0, 2.0, 1.0]
        );
    });
    let pts = Tensor::<f64>::from_vec(vec![0.0, 1.0, f64::NAN, 2.0], [2, 2]).unwrap();
    let e = |r: Result<Histogram<Cpu>>| r.unwrap_err().to_string();
    assert!(e(pts.try_histogramdd(&[2, 2], None, None, false)).starts_with("histogramdd"));
    let r = [(0.0, 1.0), (0.0, 3.0)];
    assert_eq!(
        pts.histogramdd(&[2, 2], Some(&r), None, false)
            .0
            .sum(&[], false)
            .item(),
        1.0
    );
    assert!(e(pts.try_histogramdd(&[2, 2, 2], Some(&r), None, false)).contains("2 dimensions"));
    assert!(e(pts.try_histogramdd(&[0], Some(&r), None, false)).starts_with("histogramdd"));
    assert!(
        e(pts.try_histogramdd(&[usize::MAX, 2], Some(&r), None, false)).starts_with("histogramdd")
    );
    assert!(
        e(pts.try_histogramdd(&[1 << 40, 1 << 30], Some(&r), None, false))
            .starts_with("histogramdd")
    );
    let w = Tensor::<f64>::ones([3]).unwrap();
    assert!(e(pts.try_histogramdd(&[2], Some(&r), Some(&w), false)).contains("weights"));
    assert!(
        e(pts
            .try_reshape([1, 1, 4])
            .unwrap()
            .try_histogramdd(&[2], None, None, false))
        .contains("(N, D)")
    );
    assert!(
        e(pts
            .select(0, 0)
            .unwrap()
            .try_histogram2d(&w, (2, 2), None, None, false))
        .starts_with("histogram2d")
    );
}

/// `putmask_`, `place_` and `copyto_` against NumPy 2.4 on every device (repeated values,
/// broadcast source and mask, bool tensors); errors leave the tensor unchanged.
#[test]
fn masked_writes_match_numpy() {
    on_every_device!("masked_writes", |dev| {
        let a = Tensor::<i64, _>::arange_on(0, 12, 1, &dev)
            .unwrap()
            .try_reshape([3, 4])
            .unwrap();
        let m = a.try_remainder_scalar(3).unwrap().try_eq_scalar(0).unwrap();
        let mut b = a.deep_copy();
        let v = Tensor::<i64, _>::from_vec_on(vec![-1, -2, -3, -4, -5], [5], &dev).unwrap();
        b.putmask_(&m, &v).unwrap();
        assert_eq!(
            b.try_to_vec().unwrap(),
            [-1, 1, 2, -4, 4, 5, -2, 7, 8, -5, 10, 11]
        );
        let mut c = a.deep_copy();
        c.place_(&m, &v.narrow(0, 0, 3).unwrap()).unwrap();
        assert_eq!(
            c.try_to_vec().unwrap(),
            [-1, 1, 2, -2, 4, 5, -3, 7, 8, -1, 10, 11]
        );
        let mut d = a.deep_copy();
        let src = Tensor::<i64, _>::from_vec_on(vec![100, 200, 300, 400], [4], &dev).unwrap();
        let w = Tensor::<bool, _>::from_vec_on(vec![true, false, true, false], [4], &dev).unwrap();
        d.copyto_(&src, Some(&w)).unwrap();
        assert_eq!(
            d.try_to_vec().unwrap(),
            [100, 1, 300, 3, 100, 5, 300, 7, 100, 9, 300, 11]
        );
        d.copyto_(&src, None).unwrap();
        assert_eq!(d.try_to_vec().unwrap(), [100, 200, 300, 400].repeat(3));
        let mut flags = Tensor::<bool, _>::full_on([4], false, &dev).unwrap();
        flags
            .place_(&w, &Tensor::full_on([1], true, &dev).unwrap())
            .unwrap();
        assert_eq!(flags.try_to_vec().unwrap(), [true, false, true, false]);
    });
    let mut a = Tensor::<f64>::arange(0.0, 4.0, 1.0).unwrap();
    let before = a.to_vec();
    let m = tensor![true, false, false, true];
    let e = |r: Result<()>| r.unwrap_err().to_string();
    assert!(e(a.putmask_(&m, &Tensor::zeros([0]).unwrap())).starts_with("putmask"));
    assert!(e(a.place_(&tensor![true, false], &tensor![1.0f64])).starts_with("place"));
    assert!(e(a.copyto_(&tensor![1.0f64, 2.0], None)).starts_with("copyto"));
    assert!(
        e(a.copyto_(&tensor![1.0f64], Some(&tensor![true, false, true]))).starts_with("copyto")
    );
    assert_eq!(a.to_vec(), before);
    // Nothing true: empty values are fine.
    a.place_(
        &tensor![false, false, false, false],
        &Tensor::zeros([0]).unwrap(),
    )
    .unwrap();
    assert_eq!(a.to_vec(), before);
    // A leaf's data may be set (as `fill_`); a result in a recording graph may not.
    let leaf = Tensor::<f64>::zeros([4])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    let mut y = leaf.mul_scalar(2.0);
    assert!(y.putmask_(&m, &tensor![1.0f64]).is_err());
}

/// NumPy's names call the ops they name.
#[test]
fn numpy_names_call_their_ops() {
    let x = tensor![-0.5f64, 0.0, 0.5];
    assert_eq!(x.arcsin().to_vec(), x.asin().to_vec());
    assert_eq!(x.arctan().to_vec(), x.atan().to_vec());
    assert_eq!(x.arctanh().to_vec(), x.atanh().to_vec());
    assert_eq!(x.arcsinh().to_vec(), x.asinh().to_vec());
    assert_eq!(
        tensor![1.5f64].arccosh().to_vec(),
        tensor![1.5f64].acosh().to_vec()
    );
    assert_eq!(
        x.arctan2(&x.flip(&[0]).unwrap()).to_vec(),
        x.atan2(&x.flip(&[0]).unwrap()).to_vec()
    );
    let (a, b) = (tensor![1i64, 2, 3], tensor![2i64, 2, 2]);
    assert_eq!(a.greater_equal(&b).to_vec(), [false, true, true]);
    assert_eq!(a.less(&b).to_vec(), [true, false, false]);
    assert_eq!(a.less_equal(&b).to_vec(), [true, true, false]);
    assert_eq!(a.not_equal(&b).to_vec(), [true, false, true]);
    assert_eq!(a.invert().to_vec(), [-2, -3, -4]);
    assert_eq!(a.bitwise_invert().to_vec(), a.bitwise_not().to_vec());
    assert_eq!(a.left_shift(&b).to_vec(), [4, 8, 12]);
    assert_eq!(a.right_shift(&tensor![1i64]).to_vec(), [0, 1, 1]);
    assert_eq!(a.array_split(2, 0).len(), 2);
    assert_eq!(a.unstack(0).len(), 3);
    let at = tensor![2i64, 0];
    assert_eq!(a.take_along_axis(&at, Some(0)).to_vec(), [3, 1]);
    assert_eq!(x.isclose(&x, 0.0, 0.0).to_vec(), [true, true, true]);
    assert!(a.permute_dims(&[1, 0]).is_err()); // a 1-d tensor has one axis
}

/// `polydiv` and `poly` against NumPy 2.4 on every device; `poly`'s gradient; errors.
#[test]
fn polydiv_and_poly_match_numpy() {
    on_every_device!("polydiv", |dev| {
        let t = |v: &[f64]| Tensor::<f64, _>::from_vec_on(v.to_vec(), [v.len()], &dev).unwrap();
        let got = |(q, r): (Tensor<f64, _>, Tensor<f64, _>)| {
            (q.try_to_vec().unwrap(), r.try_to_vec().unwrap())
        };
        assert_eq!(
            got(t(&[3.0, 5.0, 2.0, 1.0])
                .try_polydiv(&t(&[2.0, 1.0]))
                .unwrap()),
            (vec![1.5, 1.75, 0.125], vec![0.875])
        );
        assert_eq!(
            got(t(&[1.0, -3.0, 2.0]).try_polydiv(&t(&[1.0, -1.0])).unwrap()),
            (vec![1.0, -2.0], vec![0.0])
        );
        assert_eq!(
            got(t(&[1.0]).try_polydiv(&t(&[1.0, 2.0, 3.0])).unwrap()),
            (vec![0.0], vec![1.0])
        );
        assert_eq!(
            t(&[1.0, 2.0, 3.0])
                .try_poly()
                .unwrap()
                .try_to_vec()
                .unwrap(),
            [1.0, -6.0, 11.0, -6.0]
        );
        assert_eq!(t(&[]).try_poly().unwrap().try_to_vec().unwrap(), [1.0]);
        // Dividing by what was multiplied in leaves no remainder.
        let p = t(&[2.0, -1.0, 0.5]).try_polymul(&t(&[1.0, 4.0])).unwrap();
        assert_eq!(
            got(p.try_polydiv(&t(&[1.0, 4.0])).unwrap()),
            (vec![2.0, -1.0, 0.5], vec![0.0])
        );
    });
    let r = Tensor::<f64>::from_vec(vec![0.5, -1.5, 2.0], [3]).unwrap();
    crate::common::check_grad("poly", &|v| v[0].try_poly(), &[r.clone()]);
    let e = |x: Result<(Tensor<f64>, Tensor<f64>)>| x.unwrap_err().to_string();
    assert!(e(r.try_polydiv(&tensor![0.0f64, 1.0])).starts_with("polydiv"));
    assert!(e(r.try_polydiv(&Tensor::zeros([0]).unwrap())).starts_with("polydiv"));
    assert!(e(Tensor::<f64>::zeros([0]).unwrap().try_polydiv(&r)).starts_with("polydiv"));
    assert!(e(r.try_reshape([1, 3]).unwrap().try_polydiv(&r)).starts_with("polydiv"));
    assert!(r.try_reshape([3, 1]).unwrap().try_poly().is_err());
}

/// NumPy 2's `bitwise_count` (every integer dtype, the extremes) and `unique_*` names, on every
/// device.
#[test]
fn bitwise_count_and_unique_names_match_numpy() {
    on_every_device!("bitwise_count", |dev| {
        let a =
            Tensor::<i16, _>::from_vec_on(vec![0, 1, -1, 255, -128, 127, 7, i16::MIN], [8], &dev)
                .unwrap();
        assert_eq!(
            a.try_bitwise_count().unwrap().try_to_vec().unwrap(),
            [0, 1, 1, 8, 1, 7, 3, 1]
        );
        let b = Tensor::<i64, _>::from_vec_on(vec![i64::MIN, i64::MAX, -3], [3], &dev).unwrap();
        assert_eq!(
            b.try_bitwise_count().unwrap().try_to_vec().unwrap(),
            [1, 63, 2]
        );
        let c = Tensor::<u8, _>::from_vec_on(vec![255, 0, 170], [3], &dev).unwrap();
        assert_eq!(
            c.try_bitwise_count().unwrap().try_to_vec().unwrap(),
            [8, 0, 4]
        );
        let d = Tensor::<i32, _>::from_vec_on(vec![i32::MIN, -1, 0x7fff_ffff], [3], &dev).unwrap();
        assert_eq!(
            d.try_bitwise_count().unwrap().try_to_vec().unwrap(),
            [1, 1, 31]
        );
        let x = Tensor::<i32, _>::from_vec_on(vec![3, 1, 3, 2, 1, 3], [2, 3], &dev).unwrap();
        assert_eq!(
            x.try_unique_values().unwrap().try_to_vec().unwrap(),
            [1, 2, 3]
        );
        let (v, n) = x.try_unique_counts().unwrap();
        assert_eq!(
            (v.try_to_vec().unwrap(), n.try_to_vec().unwrap()),
            (vec![1, 2, 3], vec![2, 1, 3])
        );
        let (_, inv) = x.try_unique_inverse().unwrap();
        assert_eq!(
            (inv.dims(), inv.try_to_vec().unwrap()),
            ([2, 3].as_slice(), vec![2, 0, 2, 1, 0, 2])
        );
    });
}

/// `block` and the `*_indices_from` routines against NumPy 2.4's answers (written out), on
/// every device, with the refusals.
#[test]
fn block_and_indices_from_match_numpy() {
    on_every_device!("block", |dev| {
        let t =
            |v: &[i64], s: &[usize]| Tensor::<i64, _>::from_vec_on(v.to_vec(), s, &dev).unwrap();
        let v = |t: &Tensor<i64, _>| t.to_device(&Cpu).unwrap().to_vec();
        let eye = t(&[1, 0, 0, 1], &[2, 2]);
        let b = t(&[5, 6, 7, 8], &[2, 2]);
        let m = Tensor::try_block(&[&[&eye, &b], &[&t(&[1, 2, 3, 4], &[4])]]).unwrap();
        assert_eq!(
            (m.dims(), v(&m)),
            (&[3, 4][..], vec![1, 0, 5, 6, 0, 1, 7, 8, 1, 2, 3, 4])
        );
        // Blocks of three dimensions lift the others; a 0-d block is a (1, 1) one.
        let x = t(&[0, 1, 2, 3, 4, 5], &[1, 2, 3]);
        let m = Tensor::try_block(&[&[&x], &[&t(&[10, 11, 12], &[3])]]).unwrap();
        assert_eq!(
            (m.dims(), v(&m)),
            (&[1, 3, 3][..], vec![0, 1, 2, 3, 4, 5, 10, 11, 12])
        );
        let m = Tensor::try_block(&[&[&t(&[7], &[]), &t(&[1, 2], &[2])]]).unwrap();
        assert_eq!((m.dims(), v(&m)), (&[1, 3][..], vec![7, 1, 2]));
        assert!(Tensor::try_block(&[&[&eye, &t(&[1, 2, 3], &[3])]]).is_err());
        let mut row = vec![&eye];
        row.clear();
        let rows = [&row[..]];
        assert!(Tensor::try_block(&rows).is_err());
        assert!(Tensor::try_block(&rows[..0]).is_err());
        // Gradients reach every block.
        let a = Tensor::<f64, _>::ones_on([2, 2], &dev)
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        let c = Tensor::<f64, _>::ones_on([2], &dev)
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        let m = Tensor::try_block(&[&[&a], &[&c]]).unwrap();
        m.try_mul(&m)
            .unwrap()
            .try_sum(&[], false)
            .unwrap()
            .backward();
        assert_eq!(
            a.grad_tensor().unwrap().to_device(&Cpu).unwrap().to_vec(),
            vec![2.0; 4]
        );
        assert_eq!(
            c.grad_tensor().unwrap().to_device(&Cpu).unwrap().to_vec(),
            vec![2.0; 2]
        );
        // The indices of a matrix's triangles and of a cube's diagonal.
        let z = Tensor::<f32, _>::zeros_on([3, 4], &dev).unwrap();
        assert_eq!(
            v(&z.try_tril_indices_from(-1).unwrap()),
            vec![1, 2, 2, 0, 0, 1]
        );
        let z = Tensor::<f32, _>::zeros_on([4, 2], &dev).unwrap();
        assert_eq!(v(&z.try_triu_indices_from(1).unwrap()), vec![0, 1]);
        assert!(z.try_diag_indices_from().is_err());
        let cube = Tensor::<u8, _>::zeros_on([2, 2, 2], &dev).unwrap();
        let d = cube.try_diag_indices_from().unwrap();
        assert_eq!((d.len(), v(&d[2])), (3, vec![0, 1]));
        assert!(cube.try_tril_indices_from(0).is_err());
    });
}

#[test]
fn memory_overlap_matches_numpy() {
    // np.shares_memory / np.may_share_memory on views of one (4, 6) array.
    let x = Tensor::<f64>::zeros([4, 6]).unwrap();
    let even = x.slice(&s![.., 0..;2]).unwrap();
    let odd = x.slice(&s![.., 1..;2]).unwrap();
    assert_eq!(
        (even.shares_memory(&odd), even.may_share_memory(&odd)),
        (false, true)
    );
    let (row1, col3, row2) = (
        x.select(0, 1).unwrap(),
        x.select(1, 3).unwrap(),
        x.select(0, 2).unwrap(),
    );
    assert!(row1.shares_memory(&col3));
    assert_eq!(
        (row1.shares_memory(&row2), row1.may_share_memory(&row2)),
        (false, false)
    );
    let flipped = x.flip(&[0]).unwrap().select(1, 2).unwrap();
    assert!(flipped.shares_memory(&x.select(0, 3).unwrap()));
    assert!(!x.narrow(0, 0, 0).unwrap().shares_memory(&x));
    assert!(!x.shares_memory(&x.try_deep_copy().unwrap()));
    let b = x.unsqueeze(0).unwrap().expand([3, 4, 6]).unwrap(); // stride 0
    assert!(b.shares_memory(&x.narrow(1, 5, 1).unwrap()));
}

#[test]
fn apply_over_axes_and_mask_indices_match_numpy() {
    on_every_device!("apply_over_axes", |dev| {
        let a = Tensor::<f64, _>::arange_on(0.0, 24.0, 1.0, &dev)
            .unwrap()
            .try_reshape([2, 3, 4])
            .unwrap();
        // np.apply_over_axes(np.sum, a, [0, 2]) and with keepdims functions, negative axes.
        let s = a
            .try_apply_over_axes(|t, ax| t.try_sum(&[ax], false), &[0, 2])
            .unwrap();
        assert_eq!(
            (s.dims(), s.to_device(&Cpu).unwrap().to_vec()),
            (&[1, 3, 1][..], vec![60.0, 92.0, 124.0])
        );
        let k = a
            .try_apply_over_axes(|t, ax| t.try_amax(&[ax], true), &[-1, 0])
            .unwrap();
        assert_eq!(
            (k.dims(), k.to_device(&Cpu).unwrap().to_vec()),
            (&[1, 3, 1][..], vec![15.0, 19.0, 23.0])
        );
        assert_eq!(
            a.try_apply_over_axes(|t, _| Ok(t.clone()), &[])
                .unwrap()
                .dims(),
            [2, 3, 4]
        );
        assert!(
            a.try_apply_over_axes(|t, _| t.try_sum(&[], false), &[0])
                .is_err()
        );
        assert!(
            a.try_apply_over_axes(|t, ax| t.try_sum(&[ax], false), &[3])
                .is_err()
        );
        // np.mask_indices(3, np.triu, 1) and (3, np.tril, -1).
        let host = |t: &Tensor<i64, _>| t.to_device(&Cpu).unwrap().to_vec();
        let (r, c) = Tensor::try_mask_indices(3, |m, k| m.try_triu(k), 1, &dev).unwrap();
        assert_eq!((host(&r), host(&c)), (vec![0, 0, 1], vec![1, 2, 2]));
        let (r, c) = Tensor::try_mask_indices(3, |m, k| m.try_tril(k), -1, &dev).unwrap();
        assert_eq!((host(&r), host(&c)), (vec![1, 2, 2], vec![0, 0, 1]));
        let (r, _) = Tensor::try_mask_indices(0, |m, k| m.try_triu(k), 0, &dev).unwrap();
        assert_eq!(r.numel(), 0);
        assert!(Tensor::try_mask_indices(3, |m, _| m.try_sum(&[0], false), 0, &dev).is_err());
    });
}
