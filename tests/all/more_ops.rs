//! The ops added after the composites of `numeric_search.rs`: `xlogy`/`logit`/`rsqrt`,
//! `var_mean`/`std_mean`/`aminmax`/`amax`/`trapezoid`, the splits, `bmm`/`mv`/`addmm`/
//! `matrix_power`, `index_add`/`masked_select`, the generators and the `nn` rearrangements.
//! Values are PyTorch 2.15's (`torch.xlogy`, ..., quoted), on every device; gradients by
//! `gradcheck`.

use crate::common::assert_close;
use typed_tensor::nn;
use typed_tensor::prelude::*;

fn host<T: Element, D: Backend>(t: &Tensor<T, D>) -> Vec<f64> {
    t.try_to_vec().unwrap().iter().map(|x| x.to_f64()).collect()
}

fn values<D: Device>(dev: &D) -> Result<()> {
    let v = |x: Vec<f64>, s: &[usize]| Tensor::<f64, D>::from_vec_on(x, s.to_vec(), dev);
    let nan = f64::NAN;
    let x = v(vec![0.0, 0.0, 2.0, -1.5, 0.5, 3.0], &[6])?;
    let y = v(vec![0.0, nan, 1.0, 2.0, 0.0, 0.25], &[6])?;
    let want = [
        0.0,
        nan,
        0.0,
        -1.0397207708399179,
        f64::NEG_INFINITY,
        -4.1588830833596715,
    ];
    assert_close(&host(&x.try_xlogy(&y)?), &want, 1e-15);
    let p = v(vec![0.0, 0.25, 0.5, 0.9, 1.0], &[5])?;
    let inf = f64::INFINITY;
    let l = [-inf, -1.0986122886681098, 0.0, 2.1972245773362196, inf];
    assert_close(&host(&p.try_logit(None)?), &l, 1e-15);
    let le = [
        -2.197224577336219,
        -1.0986122886681098,
        0.0,
        2.1972245773362196,
        2.1972245773362196,
    ];
    assert_close(&host(&p.try_logit(Some(0.1))?), &le, 1e-15);
    assert!(p.try_logit(Some(0.7)).is_err());
    assert_close(
        &host(&v(vec![4.0, 0.0], &[2])?.try_rsqrt()?),
        &[0.5, inf],
        0.0,
    );

    let a = v(vec![1., 2., 4., 3., 5., 9.], &[2, 3])?;
    let (var, mean) = a.try_var_mean(&[1], 1, false)?;
    assert_close(&host(&var), &[2.333333333333333, 9.333333333333332], 1e-15);
    assert_close(
        &host(&mean),
        &[2.3333333333333335, 5.666666666666667],
        1e-15,
    );
    let (sd, m0) = a.try_std_mean(&[0], 0, true)?;
    assert_eq!((sd.dims(), host(&sd)), (&[1, 3][..], vec![1.0, 1.5, 2.5]));
    assert_eq!(host(&m0), [2.0, 3.5, 6.5]);
    let (lo, hi) = a.try_aminmax(&[1], false)?;
    assert_eq!((host(&lo), host(&hi)), (vec![1.0, 3.0], vec![4.0, 9.0]));
    assert_eq!(host(&a.try_amax(&[0], false)?), [3.0, 5.0, 9.0]);
    assert_eq!(host(&a.try_amin(&[], false)?), [1.0]);
    assert_eq!(host(&a.try_trapezoid(0.5, 1)?), [2.25, 5.5]);
    assert_eq!(host(&a.try_trapezoid(2.0, 0)?), [4.0, 7.0, 13.0]);
    assert_eq!(host(&a.narrow(1, 0, 1)?.try_trapezoid(1.0, 1)?), [0.0, 0.0]);

    // Splits (NumPy's array_split and split at indices).
    let r = Tensor::<i64, D>::arange_on(0, 7, 1, dev)?;
    let sizes = |p: Vec<Tensor<i64, D>>| p.iter().map(|t| host(t)).collect::<Vec<_>>();
    assert_eq!(
        sizes(r.try_tensor_split(3, 0)?),
        [vec![0., 1., 2.], vec![3., 4.], vec![5., 6.]]
    );
    assert_eq!(
        sizes(r.try_tensor_split_at(&[2, 5, 9], 0)?),
        [vec![0., 1.], vec![2., 3., 4.], vec![5., 6.], vec![]]
    );
    assert_eq!(r.try_tensor_split(9, 0)?.len(), 9);
    let m = r.narrow(0, 1, 6)?.try_unflatten(0, &[-1, 3])?;
    assert_eq!(m.dims(), &[2, 3]);
    assert_eq!(
        sizes(m.try_unbind(1)?),
        [vec![1., 4.], vec![2., 5.], vec![3., 6.]]
    );
    assert_eq!(host(&m.swapaxes(0, -1)?), [1., 4., 2., 5., 3., 6.]);
    assert!(m.try_unflatten(1, &[2, -1]).is_err());
    assert!(m.try_unflatten(1, &[-1, -1]).is_err());
    assert!(r.try_tensor_split(0, 0).is_err());

    // Products.
    let sq = v(vec![2., 1., 1., 3.], &[2, 2])?;
    assert_eq!(host(&sq.try_matrix_power(3)?), [15., 20., 20., 35.]);
    assert_close(
        &host(&sq.try_matrix_power(-2)?),
        &[0.4, -0.2, -0.2, 0.2],
        1e-15,
    );
    assert_eq!(host(&sq.try_matrix_power(0)?), [1., 0., 0., 1.]);
    let ints = Tensor::<i32, D>::from_vec_on(vec![1, 1, 1, 0], [2, 2], dev)?;
    assert_eq!(host(&ints.try_matrix_power(10)?), [89., 55., 55., 34.]); // Fibonacci
    assert!(ints.try_matrix_power(-1).is_err());
    let bias = v(vec![1., -1.], &[2])?;
    let mm = bias.try_addmm(&a, &a.t(), 0.5, 2.0)?;
    assert_eq!(host(&mm), [42.5, 97.5, 98.5, 229.5]);
    assert_eq!(host(&a.try_mv(&v(vec![1., 0., -1.], &[3])?)?), [-3., -6.]);
    let st = a.unsqueeze(0)?;
    assert_eq!(
        host(&st.try_bmm(&st.transpose(1, 2)?)?),
        [21., 49., 49., 115.]
    );
    assert!(a.try_bmm(&a).is_err() && a.try_mv(&a).is_err());

    // index_add and masked_select.
    let z = Tensor::<f64, D>::zeros_on([3, 2], dev)?;
    let idx = Tensor::<i64, D>::from_vec_on(vec![0, 2, 0], [3], dev)?;
    let src = v(vec![1., 2., 3., 4., 5., 6.], &[3, 2])?;
    assert_eq!(
        host(&z.try_index_add(0, &idx, &src, 2.0)?),
        [12., 16., 0., 0., 6., 8.]
    );
    let bad = Tensor::<i64, D>::from_vec_on(vec![0, 3, -1], [3], dev)?;
    let e = z.try_index_add(0, &bad, &src, 1.0).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Index {
                op: "index_add",
                ..
            }
        ),
        "{e}"
    );
    assert!(z.try_index_add(1, &idx, &src, 1.0).is_err()); // source (3, 2) but axis 1 has 3
    let mask = a.try_gt_scalar(2.5)?;
    assert_eq!(host(&a.try_masked_select(&mask)?), [4., 3., 5., 9.]);
    let row = Tensor::<bool, D>::from_vec_on(vec![true, false, true], [3], dev)?;
    assert_eq!(host(&a.try_masked_select(&row)?), [1., 4., 3., 9.]);

    // nn rearrangements.
    let labels = Tensor::<i64, D>::from_vec_on(vec![2, 0, 1], [3], dev)?;
    assert_eq!(
        host(&nn::one_hot(&labels, None)?),
        [0., 0., 1., 1., 0., 0., 0., 1., 0.]
    );
    assert!(matches!(
        nn::one_hot(&labels, Some(2)),
        Err(Error::Index { .. })
    ));
    let img = Tensor::<f64, D>::arange_on(0.0, 16.0, 1.0, dev)?.try_reshape([1, 4, 2, 2])?;
    let shuffled = nn::pixel_shuffle(&img, 2)?;
    let want = [
        0., 4., 1., 5., 8., 12., 9., 13., 2., 6., 3., 7., 10., 14., 11., 15.,
    ];
    assert_eq!(
        (shuffled.dims(), host(&shuffled)),
        (&[1, 1, 4, 4][..], want.to_vec())
    );
    assert_eq!(host(&nn::pixel_unshuffle(&shuffled, 2)?), host(&img));
    assert!(nn::pixel_shuffle(&img, 3).is_err() && nn::pixel_unshuffle(&img, usize::MAX).is_err());
    let slopes = v(vec![0.5, 0.25], &[2])?;
    let x2 = v(vec![-2., 2., -4., 4.], &[2, 2])?;
    assert_eq!(host(&nn::prelu(&x2, &slopes)?), [-1., 2., -2., 4.]); // per column
    assert!(nn::prelu(&x2, &v(vec![1., 2., 3.], &[3])?).is_err());

    // Generators: ranges, a permutation, p = 0 and 1, and refused arguments.
    manual_seed(3);
    let k = Tensor::<i32, D>::randint_on(-3, 4, [2000], dev)?;
    let kv = host(&k);
    assert!(kv.iter().all(|&x| (-3.0..4.0).contains(&x)));
    assert!((-3..4).all(|i| kv.contains(&(i as f64))));
    let perm = Tensor::<i64, D>::randperm_on(50, dev)?;
    assert_eq!(
        host(&perm.try_sort(0, false)?.0),
        (0..50).map(f64::from).collect::<Vec<_>>()
    );
    assert!(Tensor::<u8, D>::randint_on(-1, 3, [2], dev).is_err());
    assert!(Tensor::<f16, D>::randint_on(0, 5000, [2], dev).is_err());
    assert!(Tensor::<i64, D>::randint_on(3, 3, [2], dev).is_err());
    let pr = v(vec![0.0, 1.0, 0.0, 1.0], &[2, 2])?;
    assert_eq!(host(&pr.try_bernoulli()?), [0., 1., 0., 1.]);
    assert!(v(vec![0.5, 1.5], &[2])?.try_bernoulli().is_err());
    assert!(v(vec![nan], &[1])?.try_bernoulli().is_err());
    Ok(())
}

#[test]
fn more_ops_match_pytorch_on_every_device() {
    on_every_device!("more_ops", |dev| {
        values(&dev).unwrap();
    });
}

#[test]
fn more_ops_gradients() {
    let t = |v: Vec<f64>, s: &[usize]| Tensor::<f64>::from_vec(v, s.to_vec()).unwrap();
    let check = crate::common::check_grad;
    let a = t(vec![0.7, -1.3, 2.2, -0.4, 1.9, -2.6], &[2, 3]);
    let pos = t(vec![0.7, 1.3, 2.2, 0.4, 1.9, 2.6], &[2, 3]);
    let prob = t(vec![0.2, 0.35, 0.5, 0.65, 0.8, 0.05], &[2, 3]);
    check(
        "xlogy",
        &|v| v[0].try_xlogy(&v[1]),
        &[a.clone(), pos.clone()],
    );
    check("logit eps", &|v| v[0].try_logit(Some(0.1)), &[prob.clone()]);
    check("rsqrt", &|v| v[0].try_rsqrt(), &[pos.clone()]);
    check("trapezoid", &|v| v[0].try_trapezoid(0.5, 1), &[a.clone()]);
    check(
        "var_mean",
        &|v| {
            let (s, m) = v[0].try_var_mean(&[1], 1, false)?;
            s.try_add(&m)
        },
        &[a.clone()],
    );
    let sq = t(vec![2., 1., 0.5, 3.], &[2, 2]);
    check(
        "matrix_power 3",
        &|v| v[0].try_matrix_power(3),
        &[sq.clone()],
    );
    check(
        "matrix_power -2",
        &|v| v[0].try_matrix_power(-2),
        &[sq.clone()],
    );
    let bias = t(vec![1., -1.], &[2]);
    check(
        "addmm",
        &|v| v[0].try_addmm(&v[1], &v[2], 0.5, 2.0),
        &[bias, a.clone(), a.t().contiguous()],
    );
    let idx = Tensor::<i64>::from_vec(vec![0, 2, 0], [3]).unwrap();
    check(
        "index_add",
        &|v| v[0].try_index_add(0, &idx, &v[1], 1.5),
        &[t(vec![0.; 6], &[3, 2]), a.t().contiguous()],
    );
    let mask = a.gt_scalar(0.0);
    check(
        "masked_select",
        &|v| v[0].try_masked_select(&mask),
        &[a.clone()],
    );
    let img = t(
        (0..16).map(|i| i as f64 * 0.3 - 2.0).collect(),
        &[1, 4, 2, 2],
    );
    check("pixel_shuffle", &|v| nn::pixel_shuffle(&v[0], 2), &[img]);
    check(
        "prelu",
        &|v| nn::prelu(&v[0], &v[1]),
        &[a.clone(), t(vec![0.25, 0.5, -0.3], &[3])],
    );
    // DynTensor forms.
    let d = DynTensor::from(a.clone());
    let (lo, hi) = d.aminmax(&[], false).unwrap();
    assert_eq!(
        (lo.to_vec::<f64>().unwrap(), hi.to_vec::<f64>().unwrap()),
        (vec![-2.6], vec![2.2])
    );
    assert_eq!(d.unbind(0).unwrap().len(), 2);
    assert_eq!(d.swapaxes(0, 1).unwrap().shape().dims(), &[3, 2]);
    let i = DynTensor::from(Tensor::<i32>::from_vec(vec![1, 1, 1, 0], [2, 2]).unwrap());
    assert_eq!(
        i.matrix_power(5).unwrap().to_vec::<i32>().unwrap(),
        [8, 5, 5, 3]
    );
    assert!(
        DynTensor::from(Tensor::<i32>::zeros([2]).unwrap())
            .xlogy(&i)
            .is_err()
    );
}

/// `addmv`, `addr`, `addbmm`, `mvlgamma`, `cumulative_trapezoid`, `nanvar`/`nanstd` and
/// `digitize` against PyTorch 2.15, SciPy 1.17 and NumPy 2.4 (values quoted).
fn extras<D: Device>(dev: &D) -> Result<()> {
    let v = |x: Vec<f64>, s: &[usize]| Tensor::<f64, D>::from_vec_on(x, s.to_vec(), dev);
    let nan = f64::NAN;
    let m = v(vec![1., 2., 3., 4., 5., 6.], &[2, 3])?;
    let x = v(vec![0.5, -1., 2.], &[3])?;
    let b = v(vec![1., nan], &[2])?;
    assert_close(&host(&b.try_addmv(&m, &x, 0.5, 2.0)?), &[9.5, nan], 0.0);
    assert_close(&host(&b.try_addmv(&m, &x, 0.0, 2.0)?), &[9.0, 18.0], 0.0);
    let col = v(vec![1., 2.], &[2, 1])?;
    let r = col.try_addr(
        &v(vec![1., 2.], &[2])?,
        &v(vec![3., 4., 5.], &[3])?,
        2.0,
        -1.0,
    )?;
    assert_eq!(
        (r.dims(), host(&r)),
        (&[2, 3][..], vec![-1., -2., -3., -2., -4., -6.])
    );
    let b1 = Tensor::<f64, D>::arange_on(0.0, 12.0, 1.0, dev)?.try_reshape([2, 2, 3])?;
    let b2 = Tensor::<f64, D>::arange_on(0.0, 18.0, 1.0, dev)?
        .try_reshape([2, 3, 3])?
        .try_div_scalar(4.0)?;
    let s = v(vec![1., 0., -1.], &[3])?.try_addbmm(&b1, &b2, 3.0, 0.5)?;
    assert_close(
        &host(&s),
        &[37.125, 37.125, 37.125, 54.0, 56.25, 58.5],
        1e-15,
    );
    assert!(s.try_addbmm(&b1, &b1, 1.0, 1.0).is_err());
    assert!(m.try_addmv(&m, &x, 1.0, 1.0).is_err());
    assert!(matches!(
        m.try_addr(&x, &x, 1.0, 1.0),
        Err(Error::Broadcast { op: "addr", .. })
    ));

    let g = v(vec![2.5, 1.75, 10.0, 3.0, 1.5, 100.5], &[2, 3])?;
    let want3 = [
        1.8809954616117743,
        1.737702822763097,
        36.81285863239809,
        2.694924879806965,
        2.1686775340635553,
        1079.1222234897402,
    ];
    assert_close(&host(&g.try_mvlgamma(3)?), &want3, 1e-14);
    let want1 = [
        0.2846828704729192,
        -0.08440112102048555,
        12.801827480081469,
        std::f64::consts::LN_2,
        -0.12078223763524522,
        361.4355404677776,
    ];
    assert_close(&host(&g.try_mvlgamma(1)?), &want1, 1e-14);
    assert!(g.try_mvlgamma(4).is_err()); // 1.5 is not above 1.5
    assert!(g.try_mvlgamma(0).is_err());
    assert!(v(vec![nan], &[1])?.try_mvlgamma(1).is_err());

    let y = v(vec![1., 4., 9., 16., 2., -1., 0.5, 3.], &[2, 4])?;
    let c = y.try_cumulative_trapezoid(0.5, 1)?;
    assert_eq!(
        (c.dims(), host(&c)),
        (&[2, 3][..], vec![1.25, 4.5, 10.75, 0.25, 0.125, 1.0])
    );
    assert_eq!(y.try_cumulative_trapezoid(1.0, 0)?.dims(), &[1, 4]);
    assert_eq!(
        y.narrow(1, 0, 1)?.try_cumulative_trapezoid(1.0, 1)?.dims(),
        &[2, 0]
    );

    let z = v(
        vec![1., nan, 3., 4., nan, nan, nan, nan, 2., 2., nan, 5.],
        &[3, 4],
    )?;
    assert_close(
        &host(&z.try_nanvar(&[1], 0, false)?),
        &[1.5555555555555554, nan, 2.0],
        1e-15,
    );
    assert_close(
        &host(&z.try_nanvar(&[1], 1, false)?),
        &[2.333333333333333, nan, 3.0],
        1e-15,
    );
    let sd = z.try_nanstd(&[0], 1, true)?;
    assert_eq!(sd.dims(), &[1, 4]);
    assert_close(
        &host(&sd),
        &[
            std::f64::consts::FRAC_1_SQRT_2,
            nan,
            nan,
            std::f64::consts::FRAC_1_SQRT_2,
        ],
        1e-15,
    );
    assert_close(
        &host(&z.try_nanvar(&[], 0, false)?),
        &[1.8055555555555554],
        1e-15,
    );

    let xs = v(vec![-1., 0., 0.5, 1., 2.5, 3., 10., nan], &[8])?;
    let inc = v(vec![0., 1., 1., 3.], &[4])?;
    let dec = inc.flip(&[0])?;
    let ints = |t: Tensor<i64, D>| t.try_to_vec().unwrap();
    assert_eq!(
        ints(xs.try_digitize(&inc, false)?),
        [0, 1, 1, 3, 3, 4, 4, 4]
    );
    assert_eq!(ints(xs.try_digitize(&inc, true)?), [0, 0, 1, 1, 3, 3, 4, 4]);
    assert_eq!(
        ints(xs.try_digitize(&dec, false)?),
        [4, 3, 3, 1, 1, 0, 0, 0]
    );
    assert_eq!(ints(xs.try_digitize(&dec, true)?), [4, 4, 3, 3, 1, 1, 0, 0]);
    let zigzag = v(vec![0., 2., 1.], &[3])?;
    assert!(matches!(
        xs.try_digitize(&zigzag, false),
        Err(Error::InvalidArgument { op: "digitize", .. })
    ));
    assert!(xs.try_digitize(&m, false).is_err());
    let none = v(vec![], &[0])?;
    assert_eq!(ints(xs.try_digitize(&none, false)?), [0; 8]);
    Ok(())
}

#[test]
fn numpy_and_pytorch_extras_on_every_device() {
    on_every_device!("numpy_and_pytorch_extras", |dev| {
        extras(&dev).unwrap();
    });
}

#[test]
fn extras_gradients() {
    let t = |v: Vec<f64>, s: &[usize]| Tensor::<f64>::from_vec(v, s.to_vec()).unwrap();
    let check = crate::common::check_grad;
    let m = t(vec![0.7, -1.3, 2.2, -0.4, 1.9, -2.6], &[2, 3]);
    let x = t(vec![0.5, -1.5, 2.0], &[3]);
    let b = t(vec![1.0, -1.0], &[2]);
    check(
        "addmv",
        &|v| v[0].try_addmv(&v[1], &v[2], 0.5, 2.0),
        &[b.clone(), m.clone(), x.clone()],
    );
    check(
        "addr",
        &|v| v[0].try_addr(&v[1], &v[2], 1.5, -0.5),
        &[m.clone(), b.clone(), x.clone()],
    );
    let b1 = t(
        (0..12).map(|i| (i as f64 * 0.37).sin()).collect(),
        &[2, 2, 3],
    );
    let b2 = t(
        (0..18).map(|i| (i as f64 * 0.21).cos()).collect(),
        &[2, 3, 3],
    );
    check(
        "addbmm",
        &|v| v[0].try_addbmm(&v[1], &v[2], 0.5, 1.5),
        &[x.clone(), b1, b2],
    );
    let pos = t(vec![2.5, 1.75, 10.0, 3.0, 1.5, 100.5], &[2, 3]);
    check("mvlgamma", &|v| v[0].try_mvlgamma(3), &[pos]);
    check(
        "cumulative_trapezoid",
        &|v| v[0].try_cumulative_trapezoid(0.5, 1),
        &[m.clone()],
    );
    let z = t(vec![1., f64::NAN, 3., 4., 0.5, -2., f64::NAN, 1.5], &[2, 4]);
    check("nanvar", &|v| v[0].try_nanvar(&[1], 1, false), &[z.clone()]);
    check(
        "nanstd",
        &|v| v[0].try_nanstd(&[0], 0, false),
        &[t(vec![1., 2., 4., 3.5, -1., 0.25], &[2, 3])],
    );
}

/// `concat` of views whose rows are contiguous but spaced (`narrow` along the axis, as `roll`
/// and `chunk` give), expanded (rows 0 apart) and permuted inputs, against an element-wise
/// reference; `roll` along every axis of a 3-d tensor, small and large (the output split
/// mid-row across threads).
#[test]
fn concat_of_spaced_rows_and_roll_match_a_reference() {
    on_every_device!("concat_of_spaced_rows", |dev| {
        for dims in [[4usize, 5, 6], [3, 300, 301]] {
            let n: usize = dims.iter().product();
            let x =
                Tensor::<f32, _>::from_vec_on((0..n).map(|i| i as f32).collect(), &dims[..], &dev)
                    .unwrap();
            let v = host(&x);
            let at = |i: usize, j: usize, k: usize| v[(i * dims[1] + j) * dims[2] + k];
            for ax in 0..3 {
                for shift in [1i64, -2, 7] {
                    let s = shift.rem_euclid(dims[ax] as i64) as usize;
                    let want: Vec<f64> = (0..dims[0])
                        .flat_map(|i| {
                            (0..dims[1]).flat_map(move |j| (0..dims[2]).map(move |k| (i, j, k)))
                        })
                        .map(|(i, j, k)| {
                            let mut c = [i, j, k];
                            c[ax] = (c[ax] + dims[ax] - s) % dims[ax];
                            at(c[0], c[1], c[2])
                        })
                        .collect();
                    assert_eq!(
                        host(&x.roll(shift, ax as i64)),
                        want,
                        "roll {shift} over {ax} of {dims:?}"
                    );
                }
            }
            // Pieces: a narrow, an expanded row and a permuted (copied) one, along axis 1.
            let a = x.narrow(1, 1, 2).unwrap();
            let b = x
                .narrow(1, 0, 1)
                .unwrap()
                .narrow(0, 0, 1)
                .unwrap()
                .expand(&[dims[0], 1, dims[2]][..])
                .unwrap();
            let c = x
                .permute(&[0, 2, 1])
                .unwrap()
                .narrow(2, 0, 2)
                .unwrap()
                .permute(&[0, 2, 1])
                .unwrap();
            let got = host(&Tensor::concat(&[&a, &b, &c], 1));
            let mut want = Vec::new();
            for i in 0..dims[0] {
                for (j, from) in [(1, i), (2, i), (0, 0), (0, i), (1, i)] {
                    want.extend((0..dims[2]).map(|k| at(from, j, k)));
                }
            }
            assert_eq!(got, want, "{dims:?}");
            // A piece whose rows are not contiguous (a transposed one) takes the general copy.
            let y = Tensor::<f32, _>::from_vec_on(
                (0..n).map(|i| i as f32).collect(),
                &[dims[0], dims[2], dims[1]][..],
                &dev,
            )
            .unwrap();
            let p = y.permute(&[0, 2, 1]).unwrap().narrow(1, 0, 1).unwrap();
            let got = host(&Tensor::concat(&[&a, &p], 1));
            let mut want = Vec::new();
            for i in 0..dims[0] {
                want.extend((0..dims[2]).map(|k| at(i, 1, k)));
                want.extend((0..dims[2]).map(|k| at(i, 2, k)));
                want.extend((0..dims[2]).map(|k| ((i * dims[2] + k) * dims[1]) as f64));
            }
            assert_eq!(got, want, "{dims:?}, transposed piece");
        }
    });
}
