//! The PyTorch-core ops composed in `ops/scan.rs`, `ops/pointwise.rs`, `ops/scatter.rs`,
//! `ops/matrix.rs`, the new `float_math`/`stats`/`matmul` entries and the new `nn` functions.
//! Values are PyTorch 2.15's in float64 (quoted from `torch.cummax`, ... on the same inputs),
//! checked on every device; gradients by `gradcheck`; refused arguments by their `Err`.

use crate::common::assert_close;
use typed_tensor::nn;
use typed_tensor::ops::matrix::MatrixNorm;
use typed_tensor::prelude::*;

const NAN: f64 = f64::NAN;
const INF: f64 = f64::INFINITY;

fn host<T: Element, D: Backend>(t: &Tensor<T, D>) -> Vec<f64> {
    t.try_to_vec().unwrap().iter().map(|x| x.to_f64()).collect()
}

fn scans_and_order<D: Device>(dev: &D) -> Result<()> {
    let v = |x: Vec<f64>, s: &[usize]| Tensor::<f64, D>::from_vec_on(x, s.to_vec(), dev);
    let a = v(
        vec![1., 3., 2., 3., NAN, 0., 5., 1., 1., 7., 2., 7.],
        &[2, 6],
    )?;
    let (mx, mi) = a.try_cummax(1)?;
    assert_close(
        &host(&mx),
        &[1., 3., 3., 3., NAN, NAN, 5., 5., 5., 7., 7., 7.],
        0.0,
    );
    assert_eq!(host(&mi), [0., 1., 1., 3., 4., 4., 0., 0., 0., 3., 3., 5.]);
    let (nx, ni) = a.try_cummin(-1)?;
    assert_close(
        &host(&nx),
        &[1., 1., 1., 1., NAN, NAN, 5., 1., 1., 1., 1., 1.],
        0.0,
    );
    assert_eq!(host(&ni), [0., 0., 0., 0., 4., 4., 0., 1., 2., 2., 2., 2.]);
    let (m0, i0) = a.try_cummax(0)?;
    assert_close(
        &host(&m0),
        &[1., 3., 2., 3., NAN, 0., 5., 3., 2., 7., NAN, 7.],
        0.0,
    );
    assert_eq!(host(&i0), [0., 0., 0., 0., 0., 0., 1., 0., 0., 1., 0., 1.]);
    let ints = Tensor::<i32, D>::from_vec_on(vec![3, 1, 4, 1, 5, 9, 2, 6], [1, 8], dev)?;
    let (iv, ii) = ints.try_cummax(1)?;
    assert_eq!(host(&iv), [3., 3., 4., 4., 5., 9., 9., 9.]);
    assert_eq!(host(&ii), [0., 0., 2., 2., 4., 5., 5., 5.]);
    // Strided input: the transposed view scanned along its rows.
    let (tv, _) = a.t().try_cummin(1)?;
    assert_close(
        &host(&tv),
        &[1., 1., 3., 1., 2., 1., 3., 3., NAN, NAN, 0., 0.],
        0.0,
    );
    let empty = v(vec![], &[2, 0])?;
    assert_eq!(empty.try_cummax(1)?.1.dims(), &[2, 0]);
    // A 0-d tensor's axis 0 is its one element (PyTorch); axis 1 is an `Err`.
    let (m, i) = v(vec![1.0], &[])?.try_cummax(0)?;
    assert_eq!(
        (m.dims(), host(&m), host(&i)),
        (&[][..], vec![1.0], vec![0.0])
    );
    assert!(v(vec![1.0], &[])?.try_cummax(1).is_err());

    let l = v(vec![-1000., 0., 1000., -INF, 2., 3., -2.], &[7])?;
    assert_close(
        &host(&l.try_logcumsumexp(0)?),
        &[-1000., 0., 1000., 1000., 1000., 1000., 1000.],
        1e-15,
    );
    let b = v(
        vec![0.5, -1., 2., -3., 4., 4., -5., 0.25, 1., 2., 3., 4.],
        &[3, 4],
    )?;
    let want = [
        0.5,
        -1.0,
        2.0,
        -3.0,
        4.029750418272621,
        4.006715348489118,
        2.000911466453774,
        0.2880413716877831,
        4.076946644541926,
        4.132845233727576,
        3.3135069002830533,
        4.0241359970467885,
    ];
    assert_close(&host(&b.try_logcumsumexp(0)?), &want, 1e-14);

    let k = v(vec![3., 1., 2., 5., 4., 9., -1., 8., 7., 0.], &[2, 5])?;
    let (kv, ki) = k.try_kthvalue(2, 1, false)?;
    assert_eq!((host(&kv), host(&ki)), (vec![2., 0.], vec![2., 4.]));
    let (kv, _) = k.try_kthvalue(5, -1, true)?;
    assert_eq!((kv.dims(), host(&kv)), (&[2, 1][..], vec![5., 9.]));
    assert!(k.try_kthvalue(0, 1, false).is_err());
    assert!(k.try_kthvalue(6, 1, false).is_err());
    let (mv, mi) = a.try_nanmedian(1, false)?;
    assert_eq!((host(&mv), host(&mi)), (vec![2., 2.], vec![2., 4.]));
    let (nv, ni) = v(vec![NAN, NAN, NAN, 1.], &[2, 2])?.try_nanmedian(1, false)?;
    assert_close(&host(&nv), &[NAN, 1.], 0.0);
    assert_eq!(host(&ni), [0., 1.]);
    assert!(v(vec![], &[0])?.try_nanmedian(0, false).is_err());
    Ok(())
}

fn pointwise<D: Device>(dev: &D) -> Result<()> {
    let v = |x: Vec<f64>, s: &[usize]| Tensor::<f64, D>::from_vec_on(x, s.to_vec(), dev);
    let x = v(vec![NAN, -0., 0., 2., -3., INF, -INF, -1.5, 2.25], &[9])?;
    let y = v(vec![1., 2., -INF, INF, -INF, INF, 3., NAN, -100.], &[9])?;
    assert_close(
        &host(&x.try_frac()?),
        &[NAN, 0., 0., 0., 0., NAN, NAN, -0.5, 0.25],
        0.0,
    );
    let sinc = [
        NAN,
        1.0,
        1.0,
        -3.8981718325193755e-17,
        3.8981718325193755e-17,
        NAN,
        NAN,
        -0.2122065907891938,
        0.10003514623967844,
    ];
    let got = host(&x.try_sinc()?);
    assert_close(&got, &sinc, 1e-15);
    let d2r = [
        NAN,
        -0.0,
        0.0,
        0.03490658503988659,
        -0.05235987755982989,
        INF,
        -INF,
        -0.026179938779914945,
        0.039269908169872414,
    ];
    assert_close(&host(&x.try_deg2rad()?), &d2r, 1e-15);
    assert_close(&host(&x.try_deg2rad()?.try_rad2deg()?), &host(&x), 1e-15);
    let l2 = [NAN, 2.321928094887362, 0.0, INF, -3.0, INF, 3.0, NAN, 2.25];
    assert_close(&host(&x.try_logaddexp2(&y)?), &l2, 1e-15);
    let sb: Vec<bool> = x.try_signbit()?.try_to_vec()?;
    assert_eq!(
        sb,
        [false, true, false, false, true, false, true, true, false]
    );
    let neg_nan = v(vec![-NAN], &[1])?;
    assert!(neg_nan.try_signbit()?.try_to_vec()?[0]);
    let si = Tensor::<i16, D>::from_vec_on(vec![-2, 0, 5], [3], dev)?;
    assert_eq!(si.try_signbit()?.try_to_vec()?, [true, false, false]);
    assert_close(
        &host(&x.try_fmax(&y)?),
        &[1., 2., 0., INF, -3., INF, 3., -1.5, 2.25],
        0.0,
    );
    assert_close(
        &host(&x.try_fmin(&y)?),
        &[1., -0., -INF, 2., -INF, INF, -INF, -1.5, -100.],
        0.0,
    );
    assert!(host(&v(vec![NAN], &[1])?.try_fmax(&v(vec![NAN], &[1])?)?)[0].is_nan());
    let h = v(vec![-2., 0., 3., 0., NAN], &[5])?;
    let hv = v(vec![0.5, 7., 0.5, -1., 2.], &[5])?;
    assert_close(&host(&h.try_heaviside(&hv)?), &[0., 7., 1., -1., NAN], 0.0);
    let hi = Tensor::<i64, D>::from_vec_on(vec![-2, 0, 3], [3], dev)?;
    let seven = Tensor::<i64, D>::from_vec_on(vec![7], [1], dev)?;
    assert_eq!(host(&hi.try_heaviside(&seven)?), [0., 7., 1.]);
    let c = v(vec![1., 2.], &[2])?;
    let t1 = v(vec![1., 2., 3.], &[3, 1])?;
    let t2 = v(vec![0.5, -1.], &[2])?;
    let acm = c.try_addcmul(&t1, &t2, 3.0)?;
    assert_eq!(
        (acm.dims(), host(&acm)),
        (&[3, 2][..], vec![2.5, -1., 4., -4., 5.5, -7.])
    );
    let acd = c.try_addcdiv(&t1, &t2, 3.0)?;
    assert_eq!(host(&acd), [7., -1., 13., -4., 19., -7.]);
    assert!(
        c.try_addcmul(&t1, &v(vec![1., 2., 3.], &[3])?, 1.0)
            .is_err()
    );
    let cl = v(vec![-2., 0., 3., NAN], &[4])?;
    assert_close(
        &host(&cl.try_clamp(None, Some(1.0))?),
        &[-2., 0., 1., NAN],
        0.0,
    );
    assert_close(&host(&cl.try_clamp_min(0.0)?), &[0., 0., 3., NAN], 0.0);
    assert_close(
        &host(&cl.try_clamp(Some(-1.0), Some(1.0))?),
        &[-1., 0., 1., NAN],
        0.0,
    );
    assert!(cl.try_clamp(None, None).is_err());
    assert!(cl.try_clamp(Some(2.0), Some(1.0)).is_err());
    // 16-bit and empty inputs keep their dtype and shape.
    let h16 = Tensor::<bf16, D>::from_vec_on(vec![bf16::from_f32(-1.25)], [1], dev)?;
    assert_eq!(host(&h16.try_frac()?), [-0.25]);
    assert_eq!(v(vec![], &[0, 3])?.try_sinc()?.dims(), &[0, 3]);
    Ok(())
}

fn scatter_family<D: Device>(dev: &D) -> Result<()> {
    let v = |x: Vec<f64>, s: &[usize]| Tensor::<f64, D>::from_vec_on(x, s.to_vec(), dev);
    let i = |x: Vec<i64>, s: &[usize]| Tensor::<i64, D>::from_vec_on(x, s.to_vec(), dev);
    let z = v(vec![0.; 12], &[3, 4])?;
    let src = v((1..=12).map(f64::from).collect(), &[3, 4])?;
    let idx = i(vec![0, 1, 2, 0, 2, 0, 0, 1], &[2, 4])?;
    assert_eq!(
        host(&z.try_scatter(0, &idx, &src)?),
        [1., 6., 7., 4., 0., 2., 0., 8., 5., 0., 3., 0.]
    );
    // Repeated targets: the last write in row-major order of the index wins.
    let dup = i(vec![1, 1, 1, 0, 3, 0], &[2, 3])?;
    let s6 = v((1..=6).map(f64::from).collect(), &[2, 3])?;
    assert_eq!(
        host(&z.narrow(0, 0, 2)?.try_scatter(1, &dup, &s6)?),
        [0., 3., 0., 0., 6., 0., 0., 5.]
    );
    assert_eq!(
        host(&z.try_scatter_value(1, &i(vec![3, 0, 1], &[3, 1])?, -1.5)?),
        [0., 0., 0., -1.5, -1.5, 0., 0., 0., 0., -1.5, 0., 0.]
    );
    assert!(z.try_scatter(0, &i(vec![3], &[1, 1])?, &src).is_err());
    // A negative index counts from the end, as in `gather`/`scatter_add`, and it names the
    // same target as its positive twin: the later of the two writes wins.
    let neg = z.try_scatter(0, &i(vec![-1, 2, 2, -3], &[2, 2])?, &src)?;
    assert_eq!(host(&neg), [0., 6., 0., 0., 0., 0., 0., 0., 5., 2., 0., 0.]);
    assert!(z.try_scatter(0, &i(vec![-4], &[1, 1])?, &src).is_err());
    assert!(z.try_scatter(0, &i(vec![0; 5], &[1, 5])?, &src).is_err());
    let ar = v((0..12).map(f64::from).collect(), &[3, 4])?;
    let cp = ar.try_index_copy(
        1,
        &i(vec![3, 0], &[2])?,
        &v(vec![10., 20., 30., 40., 50., 60.], &[3, 2])?,
    )?;
    assert_eq!(
        host(&cp),
        [20., 1., 2., 10., 40., 5., 6., 30., 60., 9., 10., 50.]
    );
    let filled = ar.try_index_fill(0, &i(vec![2, 0], &[2])?, -1.0)?;
    assert_eq!(
        host(&filled),
        [-1., -1., -1., -1., 4., 5., 6., 7., -1., -1., -1., -1.]
    );
    let err = ar.try_index_fill(0, &i(vec![3], &[1])?, 0.0).unwrap_err();
    assert!(err.to_string().starts_with("index_fill"), "{err}");
    let mask = Tensor::<bool, D>::from_vec_on(
        vec![
            true, false, true, false, false, false, true, true, false, false, false, false,
        ],
        [3, 4],
        dev,
    )?;
    let ms = ar.try_masked_scatter(&mask, &v(vec![100., 200., 300., 400., 500., 600.], &[6])?)?;
    assert_eq!(
        host(&ms),
        [100., 1., 200., 3., 4., 5., 300., 400., 8., 9., 10., 11.]
    );
    assert!(
        ar.try_masked_scatter(&mask, &v(vec![1.; 3], &[3])?)
            .is_err()
    );
    assert_eq!(
        host(&ar.try_take_along_dim(&i(vec![0, 3, 1], &[3, 1])?, Some(1))?),
        [0., 7., 9.]
    );
    let b = ar.try_take_along_dim(&i(vec![2, 0, 1, 1], &[1, 4])?, Some(0))?;
    assert_eq!((b.dims(), host(&b)), (&[1, 4][..], vec![8., 1., 6., 7.]));
    let n = ar.try_take_along_dim(&i(vec![11, 0, 5], &[3])?, None)?;
    assert_eq!(host(&n), [11., 0., 5.]);
    assert!(ar.try_take_along_dim(&i(vec![0], &[1])?, Some(0)).is_err());
    assert_eq!(host(&ar.select(1, -1)?), [3., 7., 11.]);
    assert!(ar.select(0, 3).is_err());
    Ok(())
}

fn matrices<D: Device>(dev: &D) -> Result<()> {
    let v = |x: Vec<f64>, s: &[usize]| Tensor::<f64, D>::from_vec_on(x, s.to_vec(), dev);
    let m = v(vec![1., -2., 3., 4., 5., -6., -7., 8., 10.], &[3, 3])?;
    let norm = |o| -> Result<f64> { Ok(host(&m.try_matrix_norm(o, false)?)[0]) };
    assert_close(&[norm(MatrixNorm::Fro)?], &[17.435595774162696], 1e-15);
    assert_eq!(norm(MatrixNorm::Ord(1.0))?, 19.0);
    assert_eq!(norm(MatrixNorm::Ord(-1.0))?, 12.0);
    assert_eq!(norm(MatrixNorm::Ord(INF))?, 25.0);
    assert_eq!(norm(MatrixNorm::Ord(-INF))?, 6.0);
    assert!(m.try_matrix_norm(MatrixNorm::Ord(3.0), false).is_err());
    assert_eq!(m.try_matrix_norm(MatrixNorm::Fro, true)?.dims(), &[1, 1]);
    let vn = v(vec![1., -2., 4.], &[3])?;
    assert_close(
        &host(&vn.try_vector_norm(-1.0, &[], false)?),
        &[0.5714285714285714],
        1e-15,
    );
    assert_close(
        &host(&vn.try_vector_norm(-0.5, &[], false)?),
        &[0.20528315312338202],
        1e-15,
    );
    let vm = v(vec![1., -2., 4., -0.5, 3., 9.], &[2, 3])?;
    assert_eq!(host(&vm.try_vector_norm(-INF, &[1], false)?), [1.0, 0.5]);
    assert_eq!(
        host(&vn.try_vector_norm(2.0, &[], false)?),
        host(&vn.try_norm(2.0, &[], false)?)
    );
    assert!(vn.try_vector_norm(NAN, &[], false).is_err());
    let vec3 = v(vec![1., 2., 3.], &[3])?;
    let chain = Tensor::try_multi_dot(&[&vec3, &m, &m.t(), &vec3])?;
    assert_eq!((chain.dims(), host(&chain)), (&[][..], vec![1609.0]));
    let m2 = Tensor::try_multi_dot(&[&m.narrow(0, 0, 2)?, &m, &m.narrow(1, 0, 2)?])?;
    assert_eq!(host(&m2), [-295., 476., 488., -911.]);
    assert!(Tensor::try_multi_dot(&[&m]).is_err());
    assert!(Tensor::try_multi_dot(&[&m, &vec3.narrow(0, 0, 2)?]).is_err());
    assert!(Tensor::try_multi_dot(&[&m, &vec3, &m]).is_err());
    let b1 = v((0..12).map(|x| x as f64 / 4.0).collect(), &[2, 2, 3])?;
    let b2 = v((0..12).map(|x| x as f64 / 3.0 - 1.0).collect(), &[2, 3, 2])?;
    let bb = v(vec![1., -1.], &[2])?.try_baddbmm(&b1, &b2, 0.5, 2.0)?;
    let want = [
        0.6666666666666665,
        0.16666666666666674,
        -0.8333333333333339,
        0.16666666666666696,
        18.666666666666664,
        21.166666666666664,
        26.166666666666664,
        30.166666666666664,
    ];
    assert_close(&host(&bb), &want, 1e-14);
    assert!(vec3.try_baddbmm(&b1, &b2, 1.0, 1.0).is_err());
    Ok(())
}

#[cfg(feature = "linalg")]
fn factorized<D: Device>(dev: &D) -> Result<()> {
    let v = |x: Vec<f64>, s: &[usize]| Tensor::<f64, D>::from_vec_on(x, s.to_vec(), dev);
    let m = v(vec![1., -2., 3., 4., 5., -6., -7., 8., 10.], &[3, 3])?;
    let norm = |o| -> Result<f64> { Ok(host(&m.try_matrix_norm(o, false)?)[0]) };
    assert_close(&[norm(MatrixNorm::Nuc)?], &[25.806646238964603], 1e-14);
    assert_close(&[norm(MatrixNorm::Ord(2.0))?], &[15.137627272703272], 1e-14);
    assert_close(&[norm(MatrixNorm::Ord(-2.0))?], &[2.339659094422737], 1e-14);
    assert_close(&host(&m.try_cond()?), &[6.470014075464346], 1e-14);
    let rect = v(vec![1., 2., 3., 4., 5., 6.], &[3, 2])?;
    assert_close(&host(&rect.try_cond()?), &[18.521305341258138], 1e-14);
    // Singular matrices, the zero matrix among them: inf, as NumPy gives.
    let singular = v(vec![0., 0., 0., 0., 3., 0., 0., 0.], &[2, 2, 2])?;
    assert_eq!(host(&singular.try_cond()?), [f64::INFINITY; 2]);
    let ranks = v(
        vec![1., 2., 2., 4., 1., 0., 0., 1e-20, 1., 2., 3., 4.],
        &[3, 2, 2],
    )?;
    assert_eq!(host(&ranks.try_matrix_rank(None)?), [1., 1., 2.]);
    assert_eq!(host(&ranks.try_matrix_rank(Some(1e-30))?), [1., 2., 2.]);
    assert!(ranks.try_matrix_rank(Some(-1.0)).is_err());
    assert_eq!(v(vec![], &[2, 0, 3])?.try_matrix_rank(None)?.dims(), &[2]);
    let dets = v(
        vec![2., 0., 0., 3., 0., 1., 1., 0., 1., 2., 2., 4.],
        &[3, 2, 2],
    )?;
    assert_close(
        &host(&dets.try_logdet()?),
        &[1.791759469228055, NAN, -INF],
        1e-15,
    );
    Ok(())
}

fn nn_functions<D: Device>(dev: &D) -> Result<()> {
    let v = |x: Vec<f64>, s: &[usize]| Tensor::<f64, D>::from_vec_on(x, s.to_vec(), dev);
    let s = v(vec![1., 2., 3., 0., -1., 5.], &[2, 3])?.try_softmin(1)?;
    let want = [
        0.6652409557748218,
        0.2447284710547976,
        0.09003057317038045,
        0.26845495065244657,
        0.7297362141184152,
        0.0018088352291382895,
    ];
    assert_close(&host(&s), &want, 1e-15);
    let x = v(
        vec![1., 2., 4., 0., -1., 3., 2., 2., 2., 5., -5., 1.],
        &[2, 2, 3],
    )?;
    let w = v(vec![1., 2.], &[2])?;
    let b = v(vec![0., -1.], &[2])?;
    let inorm = nn::instance_norm(&x, Some(&w), Some(&b), 1e-5)?;
    let want = [
        -1.0690415314502977,
        -0.2672603828625746,
        1.3363019143128716,
        -1.7844631828291715,
        -2.9611579570729285,
        1.7456211399021002,
        0.0,
        0.0,
        0.0,
        1.2710992234658733,
        -3.595541969675284,
        -0.6755572537905896,
    ];
    assert_close(&host(&inorm), &want, 1e-5);
    assert!(nn::instance_norm(&v(vec![1.; 4], &[2, 2])?, None, None, 1e-5).is_err());
    let p = v(vec![0., 0., 1., 1., 3., -1.], &[3, 2])?;
    let r = v(vec![1., 0., 0., 2.], &[2, 2])?;
    let sq2 = std::f64::consts::SQRT_2;
    assert_close(
        &host(&nn::cdist(&p, &r, 2.0)?),
        &[1., 2., 1., sq2, 5f64.sqrt(), 18f64.sqrt()],
        1e-15,
    );
    assert_eq!(host(&nn::cdist(&p, &r, 1.0)?), [1., 2., 1., 2., 3., 6.]);
    assert_eq!(host(&nn::cdist(&p, &r, INF)?), [1., 2., 1., 1., 2., 3.]);
    assert!(nn::cdist(&p, &v(vec![1.; 3], &[1, 3])?, 2.0).is_err());
    let pd = nn::pairwise_distance(&p, &v(vec![1., 0.], &[2])?, 2.0, 1e-6)?;
    assert_close(
        &host(&pd),
        &[0.9999990000004999, 1.0000010000005, 2.2360684247137876],
        1e-14,
    );
    let sig = v(vec![1., 3., 2., 5., 4., 0., -1.], &[1, 1, 7])?;
    assert_eq!(host(&nn::max_pool1d(&sig, 3, 2, 1)?), [3., 5., 5., 0.]);
    assert_close(
        &host(&nn::avg_pool1d(&sig, 3, 2, 1)?),
        &[4. / 3., 10. / 3., 3., -1. / 3.],
        1e-15,
    );
    let err = nn::max_pool1d(&sig, 3, 2, 2).unwrap_err();
    assert!(err.to_string().starts_with("max_pool1d"), "{err}");
    assert!(nn::avg_pool1d(&p, 1, 1, 0).is_err());
    Ok(())
}

#[test]
fn core_ops_match_pytorch_on_every_device() {
    on_every_device!("core_ops", |dev| {
        scans_and_order(&dev).unwrap();
        pointwise(&dev).unwrap();
        scatter_family(&dev).unwrap();
        matrices(&dev).unwrap();
        #[cfg(feature = "linalg")]
        factorized(&dev).unwrap();
        nn_functions(&dev).unwrap();
    });
}

#[test]
fn core_ops_gradients() {
    let t = |v: Vec<f64>, s: &[usize]| Tensor::<f64>::from_vec(v, s.to_vec()).unwrap();
    let idx = |v: Vec<i64>, s: &[usize]| Tensor::<i64>::from_vec(v, s.to_vec()).unwrap();
    let check =
        |name: &str, f: &dyn Fn(&[Tensor<f64>]) -> Result<Tensor<f64>>, x: &[Tensor<f64>]| {
            typed_tensor::autograd::gradcheck(f, x, 1e-6, 1e-6)
                .unwrap_or_else(|e| panic!("{name}: {e}"))
        };
    let a = t(vec![0.7, -1.3, 2.2, -0.4, 1.9, -2.6, 0.1, 1.2], &[2, 4]);
    let b = t(vec![0.3, 1.1, -2.0, 0.9, -1.4, 0.5, 2.4, -0.8], &[2, 4]);
    let pos = a.abs().add_scalar(0.5);
    check("cummax", &|v| Ok(v[0].try_cummax(1)?.0), &[a.clone()]);
    check(
        "cummin strided",
        &|v| Ok(v[0].t().try_cummin(1)?.0),
        &[a.clone()],
    );
    check("logcumsumexp", &|v| v[0].try_logcumsumexp(1), &[a.clone()]);
    check(
        "kthvalue",
        &|v| Ok(v[0].try_kthvalue(2, 1, false)?.0),
        &[a.clone()],
    );
    check(
        "nanmedian",
        &|v| Ok(v[0].try_nanmedian(0, true)?.0),
        &[a.clone()],
    );
    check("frac", &|v| v[0].try_frac(), &[a.clone()]);
    check("sinc", &|v| v[0].try_sinc(), &[a.clone()]);
    check("deg2rad", &|v| v[0].try_deg2rad(), &[a.clone()]);
    check(
        "logaddexp2",
        &|v| v[0].try_logaddexp2(&v[1]),
        &[a.clone(), b.clone()],
    );
    check("fmax", &|v| v[0].try_fmax(&v[1]), &[a.clone(), b.clone()]);
    check(
        "addcmul",
        &|v| v[0].try_addcmul(&v[1], &v[2], 0.5),
        &[t(vec![1., 2., 3., 4.], &[4]), a.clone(), b.clone()],
    );
    check(
        "addcdiv",
        &|v| v[0].try_addcdiv(&v[1], &v[2], -2.0),
        &[a.clone(), b.clone(), pos.clone()],
    );
    let steps = t(vec![-1., 0., 2., 0.], &[4]);
    check(
        "heaviside values",
        &|v| steps.try_heaviside(&v[0]),
        &[t(vec![0.3, 0.6, 0.9, 1.2], &[4])],
    );
    // sinc at 0: derivative 0, not NaN.
    let z = t(vec![0.0, 0.5], &[2]).with_requires_grad(true).unwrap();
    z.sinc().sum(&[], false).backward();
    let g = z.grad_tensor().unwrap().to_vec();
    assert!(g[0] == 0.0 && g[1].is_finite(), "{g:?}");

    let si = idx(vec![1, 1, 0, 3, 2, 0, 0, 1], &[2, 4]);
    check(
        "scatter",
        &|v| v[0].try_scatter(1, &si, &v[1]),
        &[t(vec![0.5; 8], &[2, 4]), b.clone()],
    );
    check(
        "index_copy",
        &|v| v[0].try_index_copy(0, &idx(vec![1], &[1]), &v[1]),
        &[a.clone(), t(vec![1., 2., 3., 4.], &[1, 4])],
    );
    check(
        "index_fill",
        &|v| v[0].try_index_fill(1, &idx(vec![0, 2], &[2]), 9.0),
        &[a.clone()],
    );
    let mask = a.gt_scalar(0.0);
    check(
        "masked_scatter",
        &|v| v[0].try_masked_scatter(&mask, &v[1]),
        &[a.clone(), t(vec![1., 2., 3., 4., 5.], &[5])],
    );
    check(
        "take_along_dim",
        &|v| v[0].try_take_along_dim(&idx(vec![3, 0], &[2, 1]), Some(1)),
        &[a.clone()],
    );
    check("select", &|v| v[0].select(1, -2), &[a.clone()]);

    let sq = t(vec![2., 1., 0.5, 3.], &[2, 2]);
    check(
        "matrix_norm 1",
        &|v| v[0].try_matrix_norm(MatrixNorm::Ord(1.0), false),
        &[a.clone()],
    );
    check(
        "matrix_norm -inf",
        &|v| v[0].try_matrix_norm(MatrixNorm::Ord(f64::NEG_INFINITY), false),
        &[a.clone()],
    );
    check(
        "vector_norm -1.5",
        &|v| v[0].try_vector_norm(-1.5, &[1], false),
        &[pos.clone()],
    );
    #[cfg(feature = "linalg")]
    check("logdet", &|v| v[0].try_logdet(), &[sq.clone()]);
    check(
        "multi_dot",
        &|v| Tensor::try_multi_dot(&[&v[0], &v[1], &v[2]]),
        &[t(vec![1., -1.], &[2]), sq.clone(), a.clone()],
    );
    check(
        "baddbmm",
        &|v| v[0].try_baddbmm(&v[1], &v[2], 0.5, 2.0),
        &[
            t(vec![1., -1.], &[2]),
            a.reshape([2, 1, 4]),
            t(
                (0..16).map(|i| (i % 5) as f64 * 0.4 - 0.9).collect(),
                &[2, 4, 2],
            ),
        ],
    );
    check("softmin", &|v| v[0].try_softmin(0), &[a.clone()]);
    let img = t(
        (0..12).map(|i| (i * 7 % 5) as f64 - 1.5).collect(),
        &[1, 2, 6],
    );
    check(
        "instance_norm",
        &|v| nn::instance_norm(&v[0], Some(&v[1]), None, 1e-5),
        &[img.clone(), t(vec![0.5, 2.0], &[2])],
    );
    check(
        "max_pool1d",
        &|v| nn::max_pool1d(&v[0], 2, 2, 0),
        &[img.clone()],
    );
    check(
        "avg_pool1d",
        &|v| nn::avg_pool1d(&v[0], 3, 1, 1),
        &[img.clone()],
    );
    check(
        "cdist",
        &|v| nn::cdist(&v[0], &v[1], 2.0),
        &[a.reshape([4, 2]), b.reshape([4, 2])],
    );
    check(
        "pairwise_distance",
        &|v| nn::pairwise_distance(&v[0], &v[1], 1.0, 1e-6),
        &[a.clone(), b.clone()],
    );
}

#[test]
fn core_ops_dyn_forms() {
    let f =
        |v: Vec<f64>, s: &[usize]| DynTensor::from(Tensor::<f64>::from_vec(v, s.to_vec()).unwrap());
    let i =
        |v: Vec<i64>, s: &[usize]| DynTensor::from(Tensor::<i64>::from_vec(v, s.to_vec()).unwrap());
    let a = f(vec![1., 3., 2., NAN], &[4]);
    let (v, ix) = a.cummax(0).unwrap();
    assert_close(&v.to_vec::<f64>().unwrap(), &[1., 3., 3., NAN], 0.0);
    assert_eq!(ix.to_vec::<i64>().unwrap(), [0, 1, 1, 3]);
    assert_eq!(
        i(vec![3, 1, 2], &[3])
            .cummin(0)
            .unwrap()
            .0
            .to_vec::<i64>()
            .unwrap(),
        [3, 1, 1]
    );
    assert!(i(vec![1], &[1]).logcumsumexp(0).is_err());
    assert_eq!(
        a.kthvalue(1, 0, false).unwrap().0.to_vec::<f64>().unwrap(),
        [1.0]
    );
    assert_eq!(
        a.nanmedian(0, false).unwrap().0.to_vec::<f64>().unwrap(),
        [2.0]
    );
    assert!(i(vec![1], &[1]).nanmedian(0, false).is_err());
    let ints = i(vec![-3, 0, 7], &[3]);
    let c = ints.clamp(Some(Scalar::from(-1)), None).unwrap();
    assert_eq!(
        (c.dtype(), c.to_vec::<i64>().unwrap()),
        (Dtype::Int64, vec![-1, 0, 7])
    );
    let cf = ints.clamp(None, Some(Scalar::from(0.5))).unwrap();
    assert_eq!(cf.dtype(), Dtype::Float64);
    assert_eq!(cf.to_vec::<f64>().unwrap(), [-3.0, 0.0, 0.5]);
    assert_eq!(
        ints.signbit().unwrap().to_vec::<bool>().unwrap(),
        [true, false, false]
    );
    assert!(a.fmax(&ints).is_err());
    assert_close(
        &a.fmax(&f(vec![0.; 4], &[4]))
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        &[1., 3., 2., 0.],
        0.0,
    );
    assert_eq!(
        a.heaviside(&f(vec![0.5], &[1])).unwrap().dtype(),
        Dtype::Float64
    );
    assert!(ints.frac().is_err());
    assert_eq!(
        f(vec![-1.5], &[1]).frac().unwrap().to_vec::<f64>().unwrap(),
        [-0.5]
    );
    assert_eq!(
        f(vec![0.0], &[1]).sinc().unwrap().to_vec::<f64>().unwrap(),
        [1.0]
    );
    assert_eq!(
        f(vec![180.0], &[1])
            .deg2rad()
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        [std::f64::consts::PI]
    );
    assert_eq!(
        f(vec![1.0], &[1])
            .logaddexp2(&f(vec![1.0], &[1]))
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        [2.0]
    );
    let acm = ints.addcmul(&ints, &ints, 2).unwrap();
    assert_eq!(acm.to_vec::<i64>().unwrap(), [15, 0, 105]);
    assert!(ints.addcdiv(&ints, &ints, 1).is_err());
    let z = f(vec![0.; 4], &[4]);
    let s = z
        .scatter(0, &i(vec![3, 3], &[2]), &f(vec![1., 2.], &[2]))
        .unwrap();
    assert_eq!(s.to_vec::<f64>().unwrap(), [0., 0., 0., 2.]);
    assert!(z.scatter(0, &i(vec![0], &[1]), &ints).is_err());
    assert_eq!(
        z.scatter_value(0, &i(vec![1], &[1]), 4)
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        [0., 4., 0., 0.]
    );
    assert_eq!(
        z.index_fill(0, &i(vec![0, 2], &[2]), -1)
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        [-1., 0., -1., 0.]
    );
    assert_eq!(
        z.index_copy(0, &i(vec![1], &[1]), &f(vec![9.], &[1]))
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        [0., 9., 0., 0.]
    );
    let mask =
        DynTensor::from(Tensor::<bool>::from_vec(vec![false, true, true, false], [4]).unwrap());
    assert_eq!(
        z.masked_scatter(&mask, &f(vec![5., 6.], &[2]))
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        [0., 5., 6., 0.]
    );
    assert_eq!(
        a.take_along_dim(&i(vec![1], &[1]), Some(0))
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        [3.0]
    );
    assert_eq!(a.select(0, -2).unwrap().to_vec::<f64>().unwrap(), [2.0]);
    assert_eq!(
        a.vector_norm(f64::NEG_INFINITY, &[], false)
            .unwrap()
            .to_vec::<f64>()
            .unwrap()
            .len(),
        1
    );
    let m = f(vec![1., -2., 3., 4.], &[2, 2]);
    assert_eq!(
        m.matrix_norm(MatrixNorm::Ord(1.0), false)
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        [6.0]
    );
    #[cfg(feature = "linalg")]
    assert_close(
        &m.logdet().unwrap().to_vec::<f64>().unwrap(),
        &[10f64.ln()],
        1e-15,
    );
    let b = f(vec![1.; 4], &[1, 2, 2]);
    assert_eq!(
        f(vec![0.], &[1])
            .baddbmm(&b, &b, 0, 1)
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        [2.; 4]
    );
}

/// `conv_transpose2d` and `interpolate` against PyTorch's outputs on the inputs stored in
/// `tests/data/torch_grads/resample.npz` (made by `make/resample.py`), on every device, and
/// their gradients by `gradcheck`.
#[test]
fn resample_matches_pytorch() {
    use nn::{Conv2dOptions, Interpolation};
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/torch_grads");
    let arrays = typed_tensor::io::load_npz(format!("{dir}/resample.npz")).unwrap();
    let get = |k: &str| arrays[k].clone().downcast::<f64, Cpu>().unwrap();
    on_every_device!("resample", |dev| {
        let on = |k: &str| get(k).to_device(&dev).unwrap();
        let same = |got: Tensor<f64, _>, want: &str| {
            let w = get(want);
            assert_eq!(got.dims(), w.dims(), "{want}");
            assert_close(&host(&got), &w.to_vec(), 1e-13);
        };
        let opts = |stride, padding, dilation, groups| Conv2dOptions {
            stride,
            padding,
            dilation,
            groups,
        };
        let (x, w, b) = (on("x"), on("w"), on("b"));
        let y = nn::conv_transpose2d(&x, &w, Some(&b), opts((2, 1), (1, 0), (1, 2), 1), (1, 0));
        same(y.unwrap(), "ct1");
        let y = nn::conv_transpose2d(
            &on("x3"),
            &on("wg"),
            None,
            opts((2, 2), (1, 1), (1, 1), 3),
            (0, 0),
        );
        same(y.unwrap(), "ct_groups");
        let wg1 = on("wg").narrow(0, 0, 1).unwrap();
        let y = nn::conv_transpose2d(
            &on("x4"),
            &wg1,
            None,
            opts((1, 1), (0, 2), (1, 1), 1),
            (0, 0),
        );
        same(y.unwrap(), "ct_crop");
        let xi = on("xi");
        same(
            nn::interpolate(&xi, (5, 3), Interpolation::Nearest).unwrap(),
            "nearest",
        );
        let bil = |align_corners| Interpolation::Bilinear { align_corners };
        same(
            nn::interpolate(&xi, (5, 7), bil(false)).unwrap(),
            "bilinear",
        );
        same(
            nn::interpolate(&xi, (2, 7), bil(true)).unwrap(),
            "bilinear_corners",
        );
        same(
            nn::interpolate(&xi, (1, 2), bil(false)).unwrap(),
            "bilinear_down",
        );
        // Refused arguments.
        let bad = |r: Result<Tensor<f64, _>>| r.unwrap_err().to_string();
        assert!(
            bad(nn::conv_transpose2d(
                &x,
                &w,
                None,
                opts((1, 1), (0, 0), (1, 1), 1),
                (1, 0)
            ))
            .contains("output_padding")
        );
        assert!(
            bad(nn::conv_transpose2d(
                &x,
                &w,
                Some(&x),
                opts((1, 1), (0, 0), (1, 1), 1),
                (0, 0)
            ))
            .contains("bias")
        );
        assert!(
            bad(nn::conv_transpose2d(
                &x,
                &w,
                None,
                opts((0, 1), (0, 0), (1, 1), 1),
                (0, 0)
            ))
            .contains("stride")
        );
        assert!(
            bad(nn::conv_transpose2d(
                &on("x4"),
                &wg1,
                None,
                opts((1, 1), (9, 0), (1, 1), 1),
                (0, 0)
            ))
            .starts_with("conv_transpose2d")
        );
        assert!(
            bad(nn::conv_transpose2d(
                &xi,
                &w,
                None,
                Conv2dOptions::default(),
                (0, 0)
            ))
            .starts_with("conv_transpose2d")
        );
        assert!(
            bad(nn::interpolate(&b, (2, 2), Interpolation::Nearest)).starts_with("interpolate")
        );
        let empty = Tensor::<f64, _>::zeros_on([1, 1, 0, 2], &dev).unwrap();
        assert!(nn::interpolate(&empty, (3, 2), Interpolation::Nearest).is_err());
        assert!(nn::interpolate(&xi, (0, 5), bil(true)).is_err());
        let no_batch = Tensor::<f64, _>::zeros_on([0, 2, 3, 4], &dev).unwrap();
        assert_eq!(
            nn::interpolate(&no_batch, (7, 5), bil(true))
                .unwrap()
                .dims(),
            &[0, 2, 7, 5]
        );
        let far = opts((usize::MAX, 1), (0, 0), (1, 1), 1);
        assert!(nn::conv_transpose2d(&on("x4"), &wg1, None, far, (0, 0)).is_err());
        let huge = nn::interpolate(&xi, (usize::MAX / 4, 2), Interpolation::Nearest);
        assert!(huge.is_err());
    });
    let check =
        |name: &str, f: &dyn Fn(&[Tensor<f64>]) -> Result<Tensor<f64>>, x: &[Tensor<f64>]| {
            typed_tensor::autograd::gradcheck(f, x, 1e-6, 1e-6)
                .unwrap_or_else(|e| panic!("{name}: {e}"))
        };
    let o = Conv2dOptions {
        stride: (2, 1),
        padding: (1, 0),
        dilation: (1, 2),
        groups: 1,
    };
    check(
        "conv_transpose2d",
        &|v| nn::conv_transpose2d(&v[0], &v[1], Some(&v[2]), o, (1, 0)),
        &[get("x"), get("w"), get("b")],
    );
    let og = Conv2dOptions {
        stride: (2, 2),
        padding: (1, 1),
        dilation: (1, 1),
        groups: 3,
    };
    check(
        "conv_transpose2d groups",
        &|v| nn::conv_transpose2d(&v[0], &v[1], None, og, (0, 0)),
        &[get("x3"), get("wg")],
    );
    check(
        "interpolate nearest",
        &|v| nn::interpolate(&v[0], (5, 3), Interpolation::Nearest),
        &[get("xi")],
    );
    check(
        "interpolate bilinear",
        &|v| {
            nn::interpolate(
                &v[0],
                (5, 7),
                Interpolation::Bilinear {
                    align_corners: false,
                },
            )
        },
        &[get("xi")],
    );
}

fn aliases_and_solvers<D: Device>(dev: &D) -> Result<()> {
    let v = |x: Vec<f64>, s: &[usize]| Tensor::<f64, D>::from_vec_on(x, s.to_vec(), dev);
    let m = Tensor::<i32, D>::from_vec_on(vec![1, 2, 3, 4, 5, 6], [2, 3], dev)?;
    assert_eq!(host(&m.fliplr()?), [3., 2., 1., 6., 5., 4.]);
    assert_eq!(host(&m.flipud()?), [4., 5., 6., 1., 2., 3.]);
    assert!(m.narrow(0, 0, 1)?.squeeze().fliplr().is_err());
    assert_eq!(m.moveaxis(&[0], &[1])?.dims(), &[3, 2]);
    assert_eq!(m.narrow(0, 0, 1)?.expand_as(&m)?.dims(), &[2, 3]);
    assert_eq!(host(&m.flipud()?.try_msort()?), [1., 2., 3., 4., 5., 6.]);
    assert_eq!(host(&m.try_gt_scalar(4)?.try_argwhere()?), [1., 1., 1., 2.]);
    let df = Tensor::<i32, D>::from_vec_on(vec![1, 2, 3, 4], [2, 2], dev)?.try_diagflat(1)?;
    assert_eq!(df.dims(), &[5, 5]);
    assert_eq!(host(&df)[1..3], [1., 0.]);
    let x = v(vec![0.5, 1., 2.5, 3., -1., 1.], &[2, 3])?;
    let edges = v(vec![1., 2., 3.], &[3])?;
    assert_eq!(
        host(&x.try_bucketize(&edges, false)?),
        [0., 0., 2., 2., 0., 0.]
    );
    assert_eq!(
        host(&x.try_bucketize(&edges, true)?),
        [0., 1., 2., 3., 0., 1.]
    );
    let h = v(vec![0.5, 1., 1.5, 2., 2.5, 3., f64::NAN, -1., 7.], &[9])?;
    assert_eq!(host(&h.try_histc(4, 0.0, 3.0)?), [1., 1., 2., 2.]);
    assert_eq!(
        host(&v(vec![1., 2., 2., 3., 5.], &[5])?.try_histc(4, 0.0, 0.0)?),
        [1., 2., 1., 1.]
    );
    assert_eq!(
        host(&v(vec![2., 2.], &[2])?.try_histc(4, 0.0, 0.0)?),
        [0., 0., 2., 0.]
    );
    assert!(h.try_histc(4, 0.0, 0.0).is_err()); // the data's range holds NaN
    assert!(h.try_histc(0, 0.0, 1.0).is_err());
    assert!(h.try_histc(3, 2.0, 1.0).is_err());
    let vi = Tensor::<i64, D>::from_vec_on(vec![1, 2, 3, 5], [4], dev)?;
    assert_eq!(
        host(&vi.try_vander(Some(3), false)?),
        [1., 1., 1., 4., 2., 1., 9., 3., 1., 25., 5., 1.]
    );
    assert_eq!(
        host(&v(vec![2., -1.], &[2])?.try_vander(Some(4), true)?),
        [1., 2., 4., 8., 1., -1., 1., -1.]
    );
    assert!(m.try_vander(None, true).is_err());
    let idx = |r, c, o, lower| {
        let t = if lower {
            Tensor::<i64, D>::tril_indices_on(r, c, o, dev)
        } else {
            Tensor::<i64, D>::triu_indices_on(r, c, o, dev)
        };
        host(&t.unwrap())
    };
    assert_eq!(
        idx(3, 4, 1, true),
        [
            0., 0., 1., 1., 1., 2., 2., 2., 2., 0., 1., 0., 1., 2., 0., 1., 2., 3.
        ]
    );
    assert_eq!(
        idx(4, 3, -1, false),
        [
            0., 0., 0., 1., 1., 1., 2., 2., 3., 0., 1., 2., 0., 1., 2., 1., 2., 2.
        ]
    );
    assert_eq!(idx(4, 3, -2, true), [2., 3., 3., 0., 0., 1.]);
    assert_eq!(
        idx(3, 5, 2, false),
        [0., 0., 0., 1., 1., 2., 2., 3., 4., 3., 4., 4.]
    );
    // Huge or degenerate sizes: no loop over empty rows, a fallible reservation otherwise.
    assert!(idx(1 << 40, 0, 0, true).is_empty());
    assert!(idx(1 << 40, 0, -(1 << 41), false).is_empty());
    assert_eq!(idx(1 << 40, 1, -(1 << 41), true).len(), 0);
    assert!(Tensor::<i64, D>::triu_indices_on(1 << 40, 1 << 20, -(1 << 41), dev).is_err());

    let b = v(vec![1., 2., 3., -1., 0.5, 4.], &[3, 2])?;
    let mm = v(vec![2., 7., 1., 3., -4., 5., 6., 8., -9.], &[3, 3])?;
    let st = [
        3.395833333333333,
        2.291666666666667,
        -0.8194444444444444,
        -0.3055555555555556,
        -0.05555555555555555,
        -0.4444444444444444,
    ];
    assert_close(
        &host(&mm.try_solve_triangular(&b, true, true, false)?),
        &st,
        1e-14,
    );
    assert_close(
        &host(&mm.try_solve_triangular(&b, false, true, true)?),
        &[1., 2., 0., -7., -5.5, 48.],
        1e-14,
    );
    let right = [
        0.5,
        0.125,
        0.06944444444444445,
        1.0,
        2.0,
        0.7777777777777777,
    ];
    assert_close(
        &host(&mm.try_solve_triangular(&b.t(), true, false, false)?),
        &right,
        1e-14,
    );
    Ok(())
}

#[cfg(feature = "linalg")]
fn factorized_solvers<D: Device>(dev: &D) -> Result<()> {
    let v = |x: Vec<f64>, s: &[usize]| Tensor::<f64, D>::from_vec_on(x, s.to_vec(), dev);
    let a = v(vec![4., 1., 2., 1., 5., 3., 2., 3., 6.], &[3, 3])?;
    let b = v(vec![1., 2., 3., -1., 0.5, 4.], &[3, 2])?;
    let want = [
        0.25,
        0.2,
        0.7857142857142856,
        -0.8571428571428571,
        -0.39285714285714285,
        1.0285714285714287,
    ];
    let l = a.try_cholesky(false)?;
    assert_close(&host(&b.try_cholesky_solve(&l, false)?), &want, 1e-14);
    assert_close(
        &host(&b.try_cholesky_solve(&a.try_cholesky(true)?, true)?),
        &want,
        1e-14,
    );
    let r = v(vec![1., 2., 3., 4., 5., 7.], &[3, 2])?;
    let y = v(vec![1., 0., 2.], &[3])?;
    let x = r.try_lstsq(&y)?;
    assert_eq!(x.dims(), &[2]);
    assert_close(&host(&x), &[-1.7857142857142858, 1.5], 1e-13);
    let rd = v(vec![1., 2., 2., 4., 3., 6.], &[3, 2])?;
    let x = rd.try_lstsq(&v(vec![1., 2., 2.], &[3, 1])?)?;
    assert_close(&host(&x), &[0.1571428571428571, 0.3142857142857143], 1e-13);
    assert!(r.try_lstsq(&v(vec![1., 2.], &[2])?).is_err());
    Ok(())
}

#[test]
fn aliases_histograms_and_solvers_on_every_device() {
    on_every_device!("core_aliases", |dev| {
        aliases_and_solvers(&dev).unwrap();
        #[cfg(feature = "linalg")]
        factorized_solvers(&dev).unwrap();
    });
    let t = |v: Vec<f64>, s: &[usize]| Tensor::<f64>::from_vec(v, s.to_vec()).unwrap();
    let check =
        |name: &str, f: &dyn Fn(&[Tensor<f64>]) -> Result<Tensor<f64>>, x: &[Tensor<f64>]| {
            typed_tensor::autograd::gradcheck(f, x, 1e-6, 1e-6)
                .unwrap_or_else(|e| panic!("{name}: {e}"))
        };
    let mm = t(vec![2., 7., 1., 3., -4., 5., 6., 8., -9.], &[3, 3]);
    let b = t(vec![1., 2., 3., -1., 0.5, 4.], &[3, 2]);
    check(
        "solve_triangular",
        &|v| v[0].try_solve_triangular(&v[1], true, false, false),
        &[mm.clone(), b.t()],
    );
    check(
        "vander",
        &|v| v[0].try_vander(Some(4), false),
        &[t(vec![0.0, -1.5, 2.0], &[3])],
    );
    check("diagflat", &|v| v[0].try_diagflat(-1), &[b.clone()]);
    #[cfg(feature = "linalg")]
    {
        let a = t(vec![4., 1., 2., 1., 5., 3., 2., 3., 6.], &[3, 3]);
        let l = a.cholesky(false);
        check(
            "cholesky_solve",
            &|v| v[0].try_cholesky_solve(&v[1], false),
            &[b.clone(), l],
        );
        let r = t(vec![1., 2., 3., 4., 5., 7.], &[3, 2]);
        check(
            "lstsq",
            &|v| v[0].try_lstsq(&v[1]),
            &[r, t(vec![1., 0., 2.], &[3])],
        );
    }
}

#[test]
fn aliases_and_solvers_dyn_forms() {
    let f =
        |v: Vec<f64>, s: &[usize]| DynTensor::from(Tensor::<f64>::from_vec(v, s.to_vec()).unwrap());
    let m = f(vec![1., 2., 3., 4.], &[2, 2]);
    assert_eq!(
        m.fliplr().unwrap().to_vec::<f64>().unwrap(),
        [2., 1., 4., 3.]
    );
    assert_eq!(
        m.flipud().unwrap().to_vec::<f64>().unwrap(),
        [3., 4., 1., 2.]
    );
    assert_eq!(m.diagflat(0).unwrap().shape().dims(), &[4, 4]);
    let b = m.bucketize(&f(vec![2., 3.], &[2]), false).unwrap();
    assert_eq!(b.to_vec::<i64>().unwrap(), [0, 0, 1, 2]);
    let bools = DynTensor::from(Tensor::<bool>::from_vec(vec![false, true], [2]).unwrap());
    assert_eq!(
        bools
            .bucketize(&bools, true)
            .unwrap()
            .to_vec::<i64>()
            .unwrap(),
        [1, 2]
    );
    assert!(m.bucketize(&bools, false).is_err());
    assert_eq!(
        m.histc(2, 1.0, 4.0).unwrap().to_vec::<f64>().unwrap(),
        [2., 2.]
    );
    assert!(bools.histc(2, 0.0, 1.0).is_err());
    let v = DynTensor::from(tensor![2i32, 3]);
    assert_eq!(
        v.vander(None, true).unwrap().to_vec::<i32>().unwrap(),
        [1, 2, 1, 3]
    );
    let x = m
        .solve_triangular(&f(vec![1., 4.], &[2, 1]), false, true, false)
        .unwrap();
    assert_close(&x.to_vec::<f64>().unwrap(), &[1., 0.25], 1e-15);
    #[cfg(feature = "linalg")]
    {
        let l = f(vec![2., 0., 1., 1.], &[2, 2]);
        let x = f(vec![4., 2.], &[2, 1]).cholesky_solve(&l, false).unwrap();
        assert_close(&x.to_vec::<f64>().unwrap(), &[1.0, 0.0], 1e-14);
        assert_close(
            &m.lstsq(&f(vec![5., 11.], &[2]))
                .unwrap()
                .to_vec::<f64>()
                .unwrap(),
            &[1., 2.],
            1e-13,
        );
    }
}

/// PyTorch's `svd_backward` and Hermitian `linalg_eig_backward`, checked by finite differences
/// through functions that do not depend on the singular vectors' signs (PyTorch's own test
/// practice), on square, tall and wide matrices, and through the ops built on them.
#[cfg(feature = "linalg")]
#[test]
fn spectral_gradients() {
    let t = |v: Vec<f64>, s: &[usize]| Tensor::<f64>::from_vec(v, s.to_vec()).unwrap();
    let check =
        |name: &str, f: &dyn Fn(&[Tensor<f64>]) -> Result<Tensor<f64>>, x: &[Tensor<f64>]| {
            typed_tensor::autograd::gradcheck(f, x, 1e-6, 1e-5)
                .unwrap_or_else(|e| panic!("{name}: {e}"))
        };
    let square = t(vec![2.0, -1.0, 0.5, 0.3, 1.7, -0.8, 1.1, 0.4, 3.0], &[3, 3]);
    let tall = t(vec![1.0, 2.0, -0.5, 0.7, 3.0, 1.5, 0.2, -1.1], &[4, 2]);
    let wide = tall.t().contiguous();
    let stack = t(
        (0..12).map(|i| ((i * 7 % 11) as f64 - 5.0) / 3.0).collect(),
        &[2, 2, 3],
    );
    for (name, a) in [
        ("square", &square),
        ("tall", &tall),
        ("wide", &wide),
        ("stack", &stack),
    ] {
        check(
            &format!("svd S {name}"),
            &|v| Ok(v[0].try_svd()?.1),
            &[a.clone()],
        );
        check(
            &format!("svd U² {name}"),
            &|v| v[0].try_svd()?.0.try_square(),
            &[a.clone()],
        );
        check(
            &format!("svd Vh² {name}"),
            &|v| v[0].try_svd()?.2.try_square(),
            &[a.clone()],
        );
        check(
            &format!("svd U S Vh {name}"),
            &|v| {
                let (u, s, vh) = v[0].try_svd()?;
                u.try_mul(&s.unsqueeze(-2)?)?.try_matmul(&vh)
            },
            &[a.clone()],
        );
    }
    use typed_tensor::ops::matrix::MatrixNorm;
    check(
        "matrix_norm nuc",
        &|v| v[0].try_matrix_norm(MatrixNorm::Nuc, false),
        &[tall.clone()],
    );
    check(
        "matrix_norm 2",
        &|v| v[0].try_matrix_norm(MatrixNorm::Ord(2.0), false),
        &[square.clone()],
    );
    check("cond", &|v| v[0].try_cond(), &[square.clone()]);
    // eigh reads one triangle: differentiate through a symmetric input, as PyTorch's tests do.
    let sym = |x: &Tensor<f64>| x.try_add(&x.t());
    check(
        "eigh values",
        &|v| Ok(sym(&v[0])?.try_eigh()?.0),
        &[square.clone()],
    );
    check(
        "eigh vectors²",
        &|v| sym(&v[0])?.try_eigh()?.1.try_square(),
        &[square.clone()],
    );
    check(
        "eigh stack",
        &|v| Ok(v[0].try_add(&v[0].transpose(-1, -2)?)?.try_eigh()?.0),
        &[t((0..8).map(|i| (i as f64).sin()).collect(), &[2, 2, 2])],
    );
    // PyTorch's value for one case: d(sum of singular values)/dA = U·Vh.
    let a = square.clone().with_requires_grad(true).unwrap();
    a.svd().1.sum(&[], false).backward();
    let (u, _, vh) = square.svd();
    assert_close(
        &a.grad_tensor().unwrap().to_vec(),
        &u.matmul(&vh).to_vec(),
        1e-12,
    );
}

/// The margin and likelihood losses against PyTorch's values in
/// `tests/data/torch_grads/losses.npz` (`make/losses.py`) for every reduction, on every
/// device, and their gradients by `gradcheck`.
#[test]
fn more_losses_match_pytorch() {
    use nn::Reduction;
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/torch_grads");
    let arrays = typed_tensor::io::load_npz(format!("{dir}/losses.npz")).unwrap();
    let get = |k: &str| arrays[k].clone().downcast::<f64, Cpu>().unwrap();
    let reductions = [
        ("none", Reduction::None),
        ("mean", Reduction::Mean),
        ("sum", Reduction::Sum),
    ];
    on_every_device!("losses", |dev| {
        let on = |k: &str| get(k).to_device(&dev).unwrap();
        let cls = arrays["cls"]
            .clone()
            .downcast::<i64, Cpu>()
            .unwrap()
            .to_device(&dev)
            .unwrap();
        let (x1, x2, y3, ypm, y01, p, var) = (
            on("x1"),
            on("x2"),
            on("y3"),
            on("ypm"),
            on("y01"),
            on("p"),
            on("var"),
        );
        let neg = x2.flip(&[0]).unwrap();
        let counts = x2.abs().mul_scalar(3.0);
        let same = |got: Result<Tensor<f64, _>>, want: String| {
            let (got, w) = (got.unwrap(), get(&want));
            assert_eq!(got.dims(), w.dims(), "{want}");
            assert_close(&host(&got), &w.to_vec(), 1e-12);
        };
        for (name, r) in reductions {
            same(
                nn::margin_ranking_loss(&x1, &x2, &ypm, 0.3, r),
                format!("mrl_{name}"),
            );
            same(
                nn::hinge_embedding_loss(&x1, &ypm, 0.8, r),
                format!("hel_{name}"),
            );
            same(
                nn::cosine_embedding_loss(&x1, &x2, &y3, 0.1, r),
                format!("cel_{name}"),
            );
            same(
                nn::triplet_margin_loss(&x1, &x2, &neg, 0.5, 2.0, 1e-6, false, r),
                format!("tml_{name}"),
            );
            same(
                nn::triplet_margin_loss(&x1, &x2, &neg, 0.5, 1.0, 1e-6, true, r),
                format!("tmls_{name}"),
            );
            same(
                nn::multi_margin_loss(&x1, &cls, 1, 1.0, r),
                format!("mml1_{name}"),
            );
            same(
                nn::multi_margin_loss(&x1, &cls, 2, 0.5, r),
                format!("mml2_{name}"),
            );
            same(nn::soft_margin_loss(&x1, &ypm, r), format!("sml_{name}"));
            same(
                nn::multilabel_soft_margin_loss(&x1, &y01, r),
                format!("mlsml_{name}"),
            );
            same(nn::binary_cross_entropy(&p, &y01, r), format!("bce_{name}"));
            same(
                nn::poisson_nll_loss(&x1, &counts, true, false, 1e-8, r),
                format!("pnl_{name}"),
            );
            same(
                nn::poisson_nll_loss(&p, &counts, false, true, 1e-8, r),
                format!("pnlf_{name}"),
            );
            same(
                nn::gaussian_nll_loss(&x1, &x2, &var, true, 1e-6, r),
                format!("gnl_{name}"),
            );
        }
        let v = |x: Vec<f64>| Tensor::<f64, _>::from_vec_on(x, [4], &dev).unwrap();
        let edge = nn::binary_cross_entropy(
            &v(vec![0., 1., 0., 1.]),
            &v(vec![0., 1., 1., 0.]),
            Reduction::None,
        );
        same(edge, "bce_edge".into());
        let small = nn::gaussian_nll_loss(
            &x1.select(0, 0).unwrap(),
            &x2.select(0, 0).unwrap(),
            &v(vec![1e-9, 0.5, 0., 2.]),
            false,
            1e-6,
            Reduction::None,
        );
        same(small, "gnl_small".into());
        // Refused values and shapes.
        let err = |r: Result<Tensor<f64, _>>| r.unwrap_err().to_string();
        assert!(
            err(nn::binary_cross_entropy(
                &v(vec![0.5, 1.5, 0., 0.]),
                &v(vec![0.; 4]),
                Reduction::Mean
            ))
            .contains("outside [0, 1]")
        );
        assert!(
            err(nn::binary_cross_entropy(
                &v(vec![f64::NAN, 0.5, 0., 0.]),
                &v(vec![0.; 4]),
                Reduction::Mean
            ))
            .contains("outside")
        );
        assert!(
            err(nn::gaussian_nll_loss(
                &x1,
                &x2,
                &x1,
                false,
                1e-6,
                Reduction::Mean
            ))
            .contains("negative")
        );
        assert!(
            err(nn::multi_margin_loss(&x1, &cls, 3, 1.0, Reduction::Mean))
                .starts_with("multi_margin_loss")
        );
        let bad_cls = Tensor::<i64, _>::from_vec_on(vec![0, 9, 1], [3], &dev).unwrap();
        assert!(
            err(nn::multi_margin_loss(
                &x1,
                &bad_cls,
                1,
                1.0,
                Reduction::Mean
            ))
            .starts_with("multi_margin_loss")
        );
        assert!(nn::cosine_embedding_loss(&x1, &x2, &ypm, 0.0, Reduction::Mean).is_err());
        assert!(nn::margin_ranking_loss(&x1, &x2, &y3, 0.0, Reduction::Mean).is_err());
    });
    let check =
        |name: &str, f: &dyn Fn(&[Tensor<f64>]) -> Result<Tensor<f64>>, x: &[Tensor<f64>]| {
            typed_tensor::autograd::gradcheck(f, x, 1e-6, 1e-6)
                .unwrap_or_else(|e| panic!("{name}: {e}"))
        };
    let (x1, x2, y3, ypm, y01, p, var) = (
        get("x1"),
        get("x2"),
        get("y3"),
        get("ypm"),
        get("y01"),
        get("p"),
        get("var"),
    );
    let cls = arrays["cls"].clone().downcast::<i64, Cpu>().unwrap();
    let m = Reduction::Mean;
    check(
        "margin_ranking",
        &|v| nn::margin_ranking_loss(&v[0], &v[1], &ypm, 0.25, m),
        &[x1.clone(), x2.clone()],
    );
    check(
        "hinge_embedding",
        &|v| nn::hinge_embedding_loss(&v[0], &ypm, 0.8, m),
        &[x1.clone()],
    );
    check(
        "cosine_embedding",
        &|v| nn::cosine_embedding_loss(&v[0], &v[1], &y3, 0.1, m),
        &[x1.clone(), x2.clone()],
    );
    check(
        "triplet",
        &|v| nn::triplet_margin_loss(&v[0], &v[1], &v[2], 0.5, 2.0, 1e-6, true, m),
        &[x1.clone(), x2.clone(), x2.flip(&[1]).unwrap()],
    );
    check(
        "multi_margin",
        &|v| nn::multi_margin_loss(&v[0], &cls, 2, 0.5, m),
        &[x1.clone()],
    );
    check(
        "soft_margin",
        &|v| nn::soft_margin_loss(&v[0], &ypm, m),
        &[x1.clone()],
    );
    check(
        "multilabel_soft_margin",
        &|v| nn::multilabel_soft_margin_loss(&v[0], &y01, m),
        &[x1.clone()],
    );
    check(
        "bce",
        &|v| nn::binary_cross_entropy(&v[0], &v[1], m),
        &[p.clone(), y01.clone()],
    );
    check(
        "poisson",
        &|v| nn::poisson_nll_loss(&v[0], &v[1], false, true, 1e-8, m),
        &[p.clone(), x2.abs().mul_scalar(3.0)],
    );
    check(
        "gaussian",
        &|v| nn::gaussian_nll_loss(&v[0], &v[1], &v[2], true, 1e-6, m),
        &[x1, x2, var],
    );
}

/// `scatter_reduce` against PyTorch on 12 random cases (`make/scatter_reduce.py`: repeated
/// and negative indices, NaN, integers) for every reduction with and without the target's own
/// value, on every device; gradients by `gradcheck`.
#[test]
fn scatter_reduce_matches_pytorch() {
    use typed_tensor::ops::scatter_reduce::ScatterReduce::{self, *};
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/torch_grads");
    let arrays = typed_tensor::io::load_npz(format!("{dir}/scatter_reduce.npz")).unwrap();
    let reduces: [(&str, ScatterReduce); 5] = [
        ("sum", Sum),
        ("prod", Prod),
        ("mean", Mean),
        ("amax", Amax),
        ("amin", Amin),
    ];
    on_every_device!("scatter_reduce", |dev| {
        for k in 0..12 {
            let key = |p: &str| format!("{p}{k}");
            let ax = arrays[&key("ax")]
                .clone()
                .downcast::<i64, Cpu>()
                .unwrap()
                .item();
            let idx = arrays[&key("idx")]
                .clone()
                .downcast::<i64, Cpu>()
                .unwrap()
                .to_device(&dev)
                .unwrap();
            let (x, src) = (&arrays[&key("x")], &arrays[&key("src")]);
            for (name, r) in reduces {
                for inc in [false, true] {
                    let want = &arrays[&format!("out{k}_{name}_{}", inc as u8)];
                    let what = format!("case {k} {name} include_self={inc}");
                    if x.dtype() == Dtype::Float64 {
                        let on = |t: &DynTensor| {
                            t.clone()
                                .downcast::<f64, Cpu>()
                                .unwrap()
                                .to_device(&dev)
                                .unwrap()
                        };
                        let got = on(x)
                            .try_scatter_reduce(ax, &idx, &on(src), r, inc)
                            .unwrap();
                        assert_close(&host(&got), &want.to_vec::<f64>().unwrap(), 1e-12);
                    } else {
                        let on = |t: &DynTensor| {
                            t.clone()
                                .downcast::<i64, Cpu>()
                                .unwrap()
                                .to_device(&dev)
                                .unwrap()
                        };
                        let got = on(x)
                            .try_scatter_reduce(ax, &idx, &on(src), r, inc)
                            .unwrap();
                        assert_eq!(
                            got.try_to_vec().unwrap(),
                            want.to_vec::<i64>().unwrap(),
                            "{what}"
                        );
                    }
                }
            }
        }
    });
    let t = |v: Vec<f64>, s: &[usize]| Tensor::<f64>::from_vec(v, s.to_vec()).unwrap();
    let idx = Tensor::<i64>::from_vec(vec![0, 2, 0, 1, 2, 2, 0, 1], [2, 4]).unwrap();
    let x = t(
        vec![
            0.3, -1.2, 0.8, 1.9, -0.7, 0.4, 2.2, -1.6, 0.9, 1.1, -0.2, 0.6,
        ],
        &[3, 4],
    );
    let src = t(vec![1.3, -0.4, 2.1, 0.2, -1.7, 0.5, 0.9, -2.3], &[2, 4]);
    for (name, r) in reduces {
        for inc in [false, true] {
            typed_tensor::autograd::gradcheck(
                |v| v[0].try_scatter_reduce(0, &idx, &v[1], r, inc),
                &[x.clone(), src.clone()],
                1e-6,
                1e-6,
            )
            .unwrap_or_else(|e| panic!("scatter_reduce {name} {inc}: {e}"));
        }
    }
    assert!(
        x.try_scatter_reduce(0, &idx.add_scalar(5), &src, Sum, true)
            .is_err()
    );
    assert!(
        x.try_scatter_reduce(1, &idx, &src.narrow(1, 0, 2).unwrap(), Prod, true)
            .is_err()
    );
}

/// The bitwise ops against NumPy on 16 random cases (`tests/data/numpy/make/bitwise.py`: every
/// integer dtype, extremes, broadcasting, shifts by -3..70) on every device, through
/// `DynTensor` and the typed operators; bool tensors get the logical ops, floats an `Err`.
#[test]
fn bitwise_ops_match_numpy() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/numpy");
    let arrays = typed_tensor::io::load_npz(format!("{dir}/bitwise.npz")).unwrap();
    on_every_device!("bitwise", |dev| {
        let on = |k: String| arrays[&k].to(dev.index()).unwrap();
        let as_i64 = |t: DynTensor| t.to_dtype(Dtype::Int64).unwrap().to_vec::<i64>().unwrap();
        for k in 0..16 {
            let (a, b, s) = (
                on(format!("a{k}")),
                on(format!("b{k}")),
                on(format!("s{k}")),
            );
            let checks = [
                ("and", a.bitwise_and(&b)),
                ("or", a.bitwise_or(&b)),
                ("xor", a.bitwise_xor(&b)),
                ("not", a.bitwise_not()),
                ("lsh", a.bitwise_left_shift(&s)),
                ("rsh", a.bitwise_right_shift(&s)),
            ];
            for (name, got) in checks {
                let got = got.unwrap();
                let want = &arrays[&format!("{name}{k}")];
                assert_eq!(
                    (got.dtype(), got.shape()),
                    (want.dtype(), want.shape()),
                    "{name}{k}"
                );
                assert_eq!(as_i64(got), as_i64(want.clone()), "{name}{k}");
            }
        }
        // The typed operators and scalar forms.
        let x = Tensor::<i32, _>::from_vec_on(vec![12, -7, 255], [3], &dev).unwrap();
        let y = Tensor::<i32, _>::from_vec_on(vec![10, 3, 15], [3], &dev).unwrap();
        assert_eq!((&x & &y).try_to_vec().unwrap(), [8, 1, 15]);
        assert_eq!((&x | &y).try_to_vec().unwrap(), [14, -5, 255]);
        assert_eq!((&x ^ &y).try_to_vec().unwrap(), [6, -6, 240]);
        assert_eq!((!&x).try_to_vec().unwrap(), [-13, 6, -256]);
        assert_eq!((&x << 2).try_to_vec().unwrap(), [48, -28, 1020]);
        assert_eq!((&x >> 1).try_to_vec().unwrap(), [6, -4, 127]);
        assert_eq!(
            x.rbitwise_left_shift_scalar(1).try_to_vec().unwrap(),
            [4096, 0, 0]
        );
        let mut z = x.deep_copy();
        z &= &y;
        z >>= 40;
        assert_eq!(z.try_to_vec().unwrap(), [0, 0, 0]);
        let u = Tensor::<u8, _>::from_vec_on(vec![0, 1, 255], [3], &dev).unwrap();
        assert_eq!(u.bitwise_not().try_to_vec().unwrap(), [255, 254, 0]);
        let p = Tensor::<bool, _>::from_vec_on(vec![true, false], [2], &dev).unwrap();
        let q = Tensor::<bool, _>::from_vec_on(vec![true, true], [2], &dev).unwrap();
        assert_eq!(
            p.try_bitwise_xor(&q).unwrap().try_to_vec().unwrap(),
            [false, true]
        );
        let pd = DynTensor::from(p.clone());
        assert_eq!(
            pd.bitwise_and(&DynTensor::from(q))
                .unwrap()
                .to_vec::<bool>()
                .unwrap(),
            [true, false]
        );
        assert_eq!(
            pd.bitwise_not().unwrap().to_vec::<bool>().unwrap(),
            [false, true]
        );
        assert!(pd.bitwise_left_shift(&pd).is_err());
        let f = DynTensor::from(Tensor::<f32, _>::zeros_on([2], &dev).unwrap());
        assert!(
            f.bitwise_and(&f)
                .unwrap_err()
                .to_string()
                .contains("integer or bool")
        );
        assert!(f.bitwise_not().is_err());
        assert!(
            DynTensor::from(x.clone())
                .bitwise_or(&DynTensor::from(u.clone()))
                .is_err()
        );
    });
}

/// The NumPy-named batch: splits and stacks by direction, `true_divide`, `float_power`,
/// `ldexp`/`frexp`, `equal`, `isposinf`/`isneginf`, `dist`, `renorm`, `gradient`,
/// `nanquantile`, `gcd`/`lcm` and the aliases, against NumPy's and PyTorch's values (quoted)
/// on every device.
fn numpy_named<D: Device>(dev: &D) -> Result<()> {
    let v = |x: Vec<f64>, s: &[usize]| Tensor::<f64, D>::from_vec_on(x, s.to_vec(), dev);
    let i = |x: Vec<i64>, s: &[usize]| Tensor::<i64, D>::from_vec_on(x, s.to_vec(), dev);
    let m = i((0..24).collect(), &[2, 3, 4])?;
    assert_eq!(m.try_hsplit(3)?.len(), 3);
    assert_eq!(m.try_vsplit(2)?[1].dims(), &[1, 3, 4]);
    assert_eq!(
        host(&m.try_dsplit(2)?[1].narrow(1, 0, 1)?),
        [2., 3., 14., 15.]
    );
    assert!(m.try_dsplit(3).is_err());
    assert!(i(vec![1, 2], &[2])?.try_vsplit(1).is_err());
    assert_eq!(
        host(&i(vec![1, 2, 3, 4], &[4])?.try_hsplit(2)?[1]),
        [3., 4.]
    );
    let cs = Tensor::try_column_stack(&[&i(vec![1, 2], &[2])?, &i(vec![3, 4, 5, 6], &[2, 2])?])?;
    assert_eq!(
        (cs.dims(), host(&cs)),
        (&[2, 3][..], vec![1., 3., 4., 2., 5., 6.])
    );
    assert_eq!(
        Tensor::try_row_stack(&[&i(vec![1], &[1])?, &i(vec![2], &[1])?])?.dims(),
        &[2, 1]
    );
    let s = i(vec![7], &[])?;
    assert_eq!(
        (s.atleast_1d()?.dims(), s.atleast_2d()?.dims()),
        (&[1][..], &[1, 1][..])
    );
    assert_eq!(i(vec![1, 2], &[2])?.atleast_3d()?.dims(), &[1, 2, 1]);
    assert_eq!(i(vec![1, 2], &[1, 2])?.atleast_3d()?.dims(), &[1, 2, 1]);
    assert_eq!(
        host(&i(vec![7, -7, 1], &[3])?.try_true_divide(&i(vec![2, 2, 0], &[3])?)?),
        [3.5, -3.5, f64::INFINITY]
    );
    let fp = Tensor::<i32, D>::from_vec_on(vec![2, 3, -2], [3], dev)?.try_float_power(0.5)?;
    // Within 2 ulp: CUDA's double `pow` is (CUDA Math API), and cuda:0 gave 1 ulp off here.
    assert_close(
        &host(&fp),
        &[std::f64::consts::SQRT_2, 1.7320508075688772, NAN],
        4.5e-16,
    );
    let ld =
        v(vec![0.5, 1., -3., 1e-300], &[4])?.try_ldexp(&i(vec![1024, -1074, 3, -100], &[4])?)?;
    assert_eq!(host(&ld), [8.98846567431158e307, 5e-324, -24.0, 0.0]);
    let x = v(
        vec![
            0., -0., 1., -3.5, 1e-310, 5e300, INF, -INF, NAN, 0.75, -1024.,
        ],
        &[11],
    )?;
    let (mant, ex) = x.try_frexp()?;
    let want_m = [
        0.0,
        -0.0,
        0.5,
        -0.875,
        0.5752618031559393,
        0.9332636185032189,
        INF,
        -INF,
        NAN,
        0.75,
        -0.5,
    ];
    assert_close(&host(&mant), &want_m, 0.0);
    assert_eq!(
        host(&ex),
        [0., 0., 1., 2., -1029., 999., 0., 0., 0., 0., 11.]
    );
    let (m32, e32) = x.try_cast::<f32>()?.try_frexp()?;
    assert_eq!((host(&m32)[3], host(&e32)[3]), (-0.875, 2.0));
    assert!(!x.try_equal(&x.deep_copy())?); // NaN equals nothing
    assert!(m.try_equal(&m.deep_copy())?);
    assert!(!m.try_equal(&m.narrow(0, 0, 1)?)?);
    let inf_mask: Vec<bool> = x.try_isposinf()?.try_to_vec()?;
    assert_eq!(inf_mask.iter().filter(|b| **b).count(), 1);
    assert!(x.try_isneginf()?.try_to_vec()?[7]);
    assert!(!m.try_isposinf()?.try_any(&[], false)?.try_item()?);
    let a = v(vec![1., 2., 3., 4., 5., 6., 0.1, 0.2, 0.3], &[3, 3])?;
    assert_close(
        &host(&a.try_dist(&a.flip(&[0])?, 3.0)?),
        &[3.7441508814934275],
        1e-15,
    );
    assert_close(&host(&a.try_dist(&a.flip(&[0])?, INF)?), &[2.7], 1e-15);
    let rn = [
        1.0,
        2.0,
        3.0,
        2.2792115032187334,
        2.8490143790234166,
        3.4188172548281,
        0.1,
        0.2,
        0.3,
    ];
    assert_close(&host(&a.try_renorm(2.0, 0, 5.0)?), &rn, 1e-15);
    let rn1 = [
        0.7843137101114959,
        1.1111110956790125,
        1.290322566770725,
        3.1372548404459835,
        2.777777739197531,
        2.58064513354145,
        0.0784313710111496,
        0.11111110956790125,
        0.1290322566770725,
    ];
    assert_close(&host(&a.try_renorm(1.0, 1, 4.0)?), &rn1, 1e-15);
    assert!(a.try_renorm(2.0, 0, -1.0).is_err());
    assert_eq!(
        host(&v(vec![1., 4., 9., 16., 25.], &[5])?.try_gradient(0.5, 0)?),
        [6., 8., 12., 16., 18.]
    );
    assert_eq!(
        host(&v(vec![1., 2., 4., 2., 5., 11.], &[2, 3])?.try_gradient(1.0, 1)?),
        [1., 1.5, 2., 3., 4.5, 6.]
    );
    assert_eq!(
        host(&v(vec![3., 7.], &[2])?.try_gradient(1.0, 0)?),
        [4., 4.]
    );
    assert!(v(vec![3.], &[1])?.try_gradient(1.0, 0).is_err());
    let q = v(
        vec![
            1., NAN, 3., 2., NAN, NAN, NAN, NAN, NAN, NAN, 5., -1., INF, INF, 0.,
        ],
        &[3, 5],
    )?;
    for (qq, want) in [
        (0.0, [1.0, NAN, -1.0]),
        (0.3, [1.6, NAN, 0.9999999999999998]),
        (0.5, [2.0, NAN, NAN]),
        (1.0, [3.0, NAN, NAN]),
    ] {
        assert_close(&host(&q.try_nanquantile(qq, 1, false)?), &want, 1e-15);
    }
    assert_eq!(q.try_nanquantile(0.5, 1, true)?.dims(), &[3, 1]);
    let g = i(vec![12, -18, 0, 0, 7, i64::MIN], &[6])?;
    let h = i(vec![18, 12, 5, 0, -3, 2], &[6])?;
    assert_eq!(host(&g.try_gcd(&h)?), [6., 6., 5., 0., 1., 2.]);
    assert_eq!(g.try_lcm(&h)?.try_to_vec()?, [36, 36, 0, 0, 21, i64::MIN]);
    let g16 = Tensor::<i16, D>::from_vec_on(vec![12, -18, 0, i16::MIN, 300], [5], dev)?;
    let h16 = Tensor::<i16, D>::from_vec_on(vec![18, 12, 5, i16::MIN, 7], [5], dev)?;
    assert_eq!(g16.try_gcd(&h16)?.try_to_vec()?, [6, 6, 5, i16::MIN, 1]);
    assert_eq!(
        g16.try_lcm(&h16)?.try_to_vec()?,
        [36, 36, 0, i16::MIN, 2100]
    );
    assert_eq!(host(&i(vec![-3, 4], &[2])?.try_absolute()?), [3., 4.]);
    assert_eq!(host(&v(vec![-2.5, 2.5], &[2])?.try_fix()?), [-2., 2.]);
    assert_eq!(host(&v(vec![-2.5, 0.0], &[2])?.try_sgn()?), [-1., 0.]);
    assert_eq!(host(&i(vec![-3], &[1])?.try_negative()?), [3.]);
    Ok(())
}

#[test]
fn numpy_named_ops_on_every_device() {
    on_every_device!("numpy_named", |dev| {
        numpy_named(&dev).unwrap();
    });
    let t = |v: Vec<f64>, s: &[usize]| Tensor::<f64>::from_vec(v, s.to_vec()).unwrap();
    let check =
        |name: &str, f: &dyn Fn(&[Tensor<f64>]) -> Result<Tensor<f64>>, x: &[Tensor<f64>]| {
            typed_tensor::autograd::gradcheck(f, x, 1e-6, 1e-6)
                .unwrap_or_else(|e| panic!("{name}: {e}"))
        };
    let a = t(vec![1., 2.5, 3., -4., 5., 6.2, 0.1, -0.2, 0.3], &[3, 3]);
    check("gradient", &|v| v[0].try_gradient(0.5, 1), &[a.clone()]);
    check("renorm", &|v| v[0].try_renorm(2.0, 0, 5.0), &[a.clone()]);
    check(
        "nanquantile",
        &|v| v[0].try_nanquantile(0.3, 1, false),
        &[a.clone()],
    );
    check(
        "dist",
        &|v| v[0].try_dist(&v[1], 2.0),
        &[a.clone(), a.flip(&[1]).unwrap()],
    );
    check(
        "true_divide",
        &|v| v[0].try_true_divide(&v[1]),
        &[a.clone(), a.abs().add_scalar(1.0)],
    );
    let e = Tensor::<i64>::from_vec(vec![1, -2, 3], [3]).unwrap();
    check(
        "ldexp",
        &|v| v[0].try_ldexp(&e),
        &[t(vec![0.5, -1.5, 2.0], &[3])],
    );
}

#[test]
fn numpy_named_dyn_forms() {
    let i = |v: Vec<i64>| DynTensor::from(Tensor::<i64>::from_vec(v.clone(), [v.len()]).unwrap());
    let f = |v: Vec<f64>| DynTensor::from(Tensor::<f64>::from_vec(v.clone(), [v.len()]).unwrap());
    assert_eq!(
        i(vec![12, 7])
            .gcd(&i(vec![18, 3]))
            .unwrap()
            .to_vec::<i64>()
            .unwrap(),
        [6, 1]
    );
    assert_eq!(
        i(vec![4, 0])
            .lcm(&i(vec![6, 3]))
            .unwrap()
            .to_vec::<i64>()
            .unwrap(),
        [12, 0]
    );
    assert!(f(vec![1.0]).gcd(&f(vec![1.0])).is_err());
    let q = i(vec![7, 1]).true_divide(&i(vec![2, 4])).unwrap();
    assert_eq!(
        (q.dtype(), q.to_vec::<f64>().unwrap()),
        (Dtype::Float64, vec![3.5, 0.25])
    );
    assert_eq!(
        f(vec![INF, 1.0])
            .isposinf()
            .unwrap()
            .to_vec::<bool>()
            .unwrap(),
        [true, false]
    );
    assert_eq!(
        f(vec![-INF]).isneginf().unwrap().to_vec::<bool>().unwrap(),
        [true]
    );
    assert!(f(vec![1.0, 2.0]).equal(&f(vec![1.0, 2.0])).unwrap());
    assert!(!f(vec![1.0]).equal(&i(vec![1])).unwrap());
    assert_eq!(
        f(vec![1.0, NAN, 3.0])
            .nanquantile(0.5, 0, false)
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        [2.0]
    );
    assert!(i(vec![1]).nanquantile(0.5, 0, false).is_err());
    assert_eq!(
        f(vec![1.0, 4.0, 9.0])
            .gradient(1.0, 0)
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        [3.0, 4.0, 5.0]
    );
    assert_eq!(
        i(vec![3, 0])
            .dist(&i(vec![0, 4]), 2.0)
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        [5.0]
    );
    assert_close(
        &f(vec![3.0, 0.5])
            .renorm(2.0, 0, 1.0)
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        &[1.0, 0.5],
        1e-6,
    );
    assert_eq!(i(vec![1, 2, 3, 4]).hsplit(2).unwrap().len(), 2);
    assert!(i(vec![1, 2, 3, 4]).vsplit(2).is_err());
    assert_eq!(i(vec![1, 2]).atleast_2d().unwrap().shape().dims(), &[1, 2]);
}

/// Gaps the API fuzzer's gradient mode found: `remainder` has PyTorch's rule (1 and
/// `-floor(a / b)`; the scalar-on-the-left form has none, as in PyTorch), and the spectral
/// rules give empty stacks an empty gradient instead of building a huge gap matrix.
#[test]
fn remainder_and_empty_spectral_gradients() {
    let t = |v: Vec<f64>, s: &[usize]| Tensor::<f64>::from_vec(v, s.to_vec()).unwrap();
    let check =
        |name: &str, f: &dyn Fn(&[Tensor<f64>]) -> Result<Tensor<f64>>, x: &[Tensor<f64>]| {
            typed_tensor::autograd::gradcheck(f, x, 1e-6, 1e-6)
                .unwrap_or_else(|e| panic!("{name}: {e}"))
        };
    let a = t(vec![5.5, -3.2, 7.1, -0.4], &[2, 2]);
    let b = t(vec![2.0, 1.5], &[2]);
    check(
        "remainder",
        &|v| v[0].try_remainder(&v[1]),
        &[a.clone(), b.clone()],
    );
    check(
        "remainder scalar",
        &|v| v[0].try_remainder_scalar(2.5),
        &[a.clone()],
    );
    let x = a.clone().with_requires_grad(true).unwrap();
    let err = x
        .rremainder_scalar(3.0)
        .sum(&[], false)
        .try_backward()
        .unwrap_err();
    assert!(err.to_string().contains("remainder"), "{err}");
    #[cfg(feature = "linalg")]
    {
        let huge = 1usize << 33;
        let e = Tensor::<f64>::zeros([0, huge, huge])
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        e.eigh().0.sum(&[], false).backward();
        assert_eq!(e.grad_tensor().unwrap().dims(), &[0, huge, huge]);
        let s = Tensor::<f64>::zeros([2, 0, 3])
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        let (u, sv, vh) = s.svd();
        u.sum(&[], false)
            .add(&sv.sum(&[], false))
            .add(&vh.sum(&[], false))
            .backward();
        assert_eq!(s.grad_tensor().unwrap().dims(), &[2, 0, 3]);
    }
}

/// `unique_consecutive` and `mode` against PyTorch's values (quoted), on every device.
#[test]
fn unique_consecutive_and_mode_match_pytorch() {
    on_every_device!("mode", |dev| {
        let v =
            |x: Vec<f64>, s: &[usize]| Tensor::<f64, _>::from_vec_on(x, s.to_vec(), &dev).unwrap();
        let (u, inv, counts) = v(vec![NAN, NAN, 1., 1., 2., 1.], &[6])
            .try_unique_consecutive()
            .unwrap();
        assert_close(&host(&u), &[NAN, NAN, 1., 2., 1.], 0.0);
        assert_eq!(host(&inv), [0., 1., 2., 2., 3., 4.]);
        assert_eq!(host(&counts), [1., 1., 2., 1., 1.]);
        let (e, ei, ec) = v(vec![], &[0, 2]).try_unique_consecutive().unwrap();
        assert_eq!(
            (e.dims(), ei.dims(), ec.dims()),
            (&[0][..], &[0, 2][..], &[0][..])
        );
        let m = v(
            vec![
                3., 1., 3., 1., 2., 5., 5., NAN, NAN, NAN, 2., 2., 2., 7., 7.,
            ],
            &[3, 5],
        );
        let (mv, mi) = m.try_mode(1, false).unwrap();
        assert_eq!((host(&mv), host(&mi)), (vec![1., 5., 2.], vec![3., 1., 2.]));
        let (tv, ti) = m.t().try_mode(0, true).unwrap();
        assert_eq!((tv.dims(), host(&ti)), (&[1, 3][..], vec![3., 1., 2.]));
        let ints = Tensor::<i64, _>::from_vec_on(vec![4, 1, 4, 1, 9, 1], [1, 6], &dev).unwrap();
        let (iv, ii) = ints.try_mode(-1, false).unwrap();
        assert_eq!((iv.try_to_vec().unwrap(), host(&ii)), (vec![1], vec![5.]));
        assert_eq!(
            host(&v(vec![1., 2., 3.], &[1, 3]).try_mode(1, false).unwrap().1),
            [0.]
        );
        assert!(v(vec![], &[2, 0]).try_mode(1, false).is_err());
    });
    // The gradient goes to the element each mode was gathered from (PyTorch's rule; a mode
    // is piecewise constant in its ties, so finite differences cannot judge it).
    let m = Tensor::<f64>::from_vec(vec![3., 1., 3., 1., 2., 0.5], [2, 3]).unwrap();
    let m = m.with_requires_grad(true).unwrap();
    m.mode(1, false).0.sum(&[], false).backward();
    assert_eq!(m.grad_tensor().unwrap().to_vec(), [0., 0., 1., 0., 0., 1.]);
}

/// `nn::unfold`/`nn::fold` against PyTorch's `F.unfold`/`F.fold` (`make/fold.py`: kernel,
/// stride, padding and dilation combinations, and a fold whose output the windows do not cover
/// to the edge), on every device; gradients by `gradcheck`.
#[test]
fn fold_and_unfold_match_pytorch() {
    use nn::Conv2dOptions;
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/torch_grads");
    let arrays = typed_tensor::io::load_npz(format!("{dir}/fold.npz")).unwrap();
    let get = |k: &str| arrays[k].clone().downcast::<f64, Cpu>().unwrap();
    let o = |s: (usize, usize), p: (usize, usize), d: (usize, usize)| Conv2dOptions {
        stride: s,
        padding: p,
        dilation: d,
        groups: 1,
    };
    let cases = [
        ((2, 3), o((1, 1), (0, 0), (1, 1))),
        ((3, 2), o((2, 1), (1, 0), (1, 2))),
        ((2, 2), o((2, 2), (1, 1), (1, 1))),
        ((1, 1), o((1, 1), (0, 0), (1, 1))),
    ];
    on_every_device!("fold", |dev| {
        let x = get("x").to_device(&dev).unwrap();
        for (i, (k, opts)) in cases.iter().enumerate() {
            let u = nn::unfold(&x, *k, *opts).unwrap();
            let want = get(&format!("unfold{i}"));
            assert_eq!(u.dims(), want.dims(), "unfold{i}");
            assert_close(&host(&u), &want.to_vec(), 1e-15);
            let f = nn::fold(&u, (5, 6), *k, *opts).unwrap();
            let want = get(&format!("fold{i}"));
            assert_eq!(f.dims(), want.dims(), "fold{i}");
            assert_close(&host(&f), &want.to_vec(), 1e-14);
        }
        let c = get("c").to_device(&dev).unwrap();
        let g = nn::fold(&c, (5, 8), (2, 2), o((2, 3), (0, 0), (1, 1))).unwrap();
        assert_close(&host(&g), &get("fold_gap").to_vec(), 1e-15);
        assert!(nn::fold(&c, (5, 12), (2, 2), o((2, 3), (0, 0), (1, 1))).is_err());
        assert!(nn::fold(&c, (5, 8), (3, 2), o((2, 3), (0, 0), (1, 1))).is_err());
        assert!(nn::unfold(&c, (2, 2), o((1, 1), (0, 0), (1, 1))).is_err());
        assert!(nn::unfold(&x, (9, 2), o((1, 1), (0, 0), (1, 1))).is_err());
    });
    let x = get("x")
        .narrow(0, 0, 1)
        .unwrap()
        .narrow(1, 0, 2)
        .unwrap()
        .contiguous();
    let (k, opts) = cases[1];
    typed_tensor::autograd::gradcheck(|v| nn::unfold(&v[0], k, opts), &[x.clone()], 1e-6, 1e-6)
        .unwrap();
    let u = nn::unfold(&x, k, opts).unwrap();
    typed_tensor::autograd::gradcheck(|v| nn::fold(&v[0], (5, 6), k, opts), &[u], 1e-6, 1e-6)
        .unwrap();
}

/// Findings of the NumPy/PyTorch harness with fresh seeds (`gen4.py 101`/`102`): `cummin`'s
/// index follows each new NaN (PyTorch's `isnan(x) || x <= out` update), and the SVD-based
/// norms of a matrix holding NaN or inf are NaN instead of the SVD's convergence error.
#[test]
fn harness_findings_nan_handling() {
    let t = |v: Vec<f64>, s: &[usize]| Tensor::<f64>::from_vec(v, s.to_vec()).unwrap();
    let (v, i) = t(vec![NAN, NAN, -2.9], &[3, 1]).cummin(-2);
    assert!(v.to_vec().iter().all(|x| x.is_nan()));
    assert_eq!(i.to_vec(), [0, 1, 1]);
    let (_, i) = t(vec![1.0, NAN, 0.5, NAN, 7.0], &[5]).cummax(0);
    assert_eq!(i.to_vec(), [0, 1, 1, 3, 3]);
    #[cfg(feature = "linalg")]
    {
        use typed_tensor::ops::matrix::MatrixNorm;
        let m = t(vec![1.0, INF, 2.0, 3.0, 1.0, 0.0, 0.0, 1.0], &[2, 2, 2]);
        let n2 = m.matrix_norm(MatrixNorm::Ord(2.0), false).to_vec();
        assert!(n2[0].is_nan() && n2[1] == 1.0, "{n2:?}");
        assert!(m.cond().to_vec()[0].is_nan());
        assert!(m.matrix_norm(MatrixNorm::Nuc, false).to_vec()[0].is_nan());
    }
}

/// `xlog1py`, `entr` and `ndtr` against PyTorch's `torch.special` values (quoted), on every
/// device, with gradients.
#[test]
fn special_composites_match_pytorch() {
    on_every_device!("special_composites", |dev| {
        let v = |x: Vec<f64>| Tensor::<f64, _>::from_vec_on(x.clone(), [x.len()], &dev).unwrap();
        let x = v(vec![0., 0., 2., -1.5, NAN, 1.]);
        let y = v(vec![NAN, -1., 0.5, 3., 1., -1.]);
        let want = [NAN, 0.0, 0.8109302162163288, -2.0794415416798357, NAN, -INF];
        assert_close(&host(&x.try_xlog1py(&y).unwrap()), &want, 1e-15);
        let e = v(vec![0., -1., 0.5, 1., INF, NAN]).try_entr().unwrap();
        assert_close(
            &host(&e),
            &[0.0, -INF, 0.34657359027997264, -0.0, -INF, NAN],
            1e-15,
        );
        let n = v(vec![0., -40., 3., -3., INF]).try_ndtr().unwrap();
        assert_close(
            &host(&n),
            &[0.5, 0.0, 0.9986501019683699, 0.0013498980316301035, 1.0],
            1e-15,
        );
    });
    let t = |v: Vec<f64>| Tensor::<f64>::from_vec(v.clone(), [v.len()]).unwrap();
    let check =
        |name: &str, f: &dyn Fn(&[Tensor<f64>]) -> Result<Tensor<f64>>, x: &[Tensor<f64>]| {
            typed_tensor::autograd::gradcheck(f, x, 1e-6, 1e-6)
                .unwrap_or_else(|e| panic!("{name}: {e}"))
        };
    check(
        "xlog1py",
        &|v| v[0].try_xlog1py(&v[1]),
        &[t(vec![0.5, -2.0, 1.5]), t(vec![0.3, 2.0, -0.4])],
    );
    check("entr", &|v| v[0].try_entr(), &[t(vec![0.2, 1.0, 2.5])]);
    check("ndtr", &|v| v[0].try_ndtr(), &[t(vec![-2.0, 0.0, 1.3])]);
    let d = DynTensor::from(t(vec![0.5]));
    assert_close(
        &d.entr().unwrap().to_vec::<f64>().unwrap(),
        &[0.34657359027997264],
        1e-15,
    );
    assert!(
        DynTensor::from(Tensor::<i32>::zeros([1]).unwrap())
            .ndtr()
            .is_err()
    );
    assert_eq!(d.xlog1py(&d).unwrap().dtype(), Dtype::Float64);
}

/// `tril_indices`/`triu_indices` count their output in closed form: absurd sizes are an
/// immediate `OutOfMemory`, not a loop over rows, and small ones match PyTorch.
#[test]
fn triangle_indices_of_huge_and_odd_sizes() {
    let m = usize::MAX;
    for (r, c, o) in [(m, m, 0), (m, m, i64::MIN + 1), (m, m, i64::MAX)] {
        // Either empty or far too large: never a long count or a panic.
        for t in [
            Tensor::<i64>::tril_indices(r, c, o),
            Tensor::<i64>::triu_indices(r, c, o),
        ] {
            assert!(t.as_ref().map_or(true, |t| t.numel() == 0), "{r} {c} {o}");
        }
    }
    assert!(Tensor::<i64>::tril_indices(m, 3, 0).is_err());
    assert_eq!(
        Tensor::<i64>::triu_indices(m, 3, 0).unwrap().dims(),
        &[2, 6]
    );
    assert_eq!(
        Tensor::<i64>::tril_indices(3, m, -5).unwrap().dims(),
        &[2, 0]
    );
    assert_eq!(
        Tensor::<i64>::tril_indices(3, m, i64::MIN).unwrap().dims(),
        &[2, 0]
    );
    assert_eq!(
        Tensor::<i64>::triu_indices(m, 3, i64::MAX).unwrap().dims(),
        &[2, 0]
    );
    assert!(Tensor::<i64>::tril_indices(m, m, i64::MIN).is_err()); // rows past 2^63 hold some
    // PyTorch: torch.tril_indices(4, 5, 2) and torch.triu_indices(5, 3, -3) sizes.
    assert_eq!(
        Tensor::<i64>::tril_indices(4, 5, 2).unwrap().dims(),
        &[2, 17]
    );
    assert_eq!(
        Tensor::<i64>::triu_indices(5, 3, -3).unwrap().dims(),
        &[2, 14]
    );
}

/// Found by the fuzzer's gradient mode: flipping an empty tensor whose other axes are huge
/// (as `cumsum`'s backward does) is the tensor itself, not an addressing error.
#[test]
fn flip_of_an_empty_tensor_with_huge_axes() {
    let big = 1usize << 33;
    let x = Tensor::<f64>::zeros([big, 0, big, 3]).unwrap();
    assert_eq!(x.flip(&[0, 2]).unwrap().dims(), &[big, 0, big, 3]);
    let leaf = x.with_requires_grad(true).unwrap();
    leaf.cumsum(-4).sum(&[], false).backward();
    assert_eq!(leaf.grad_tensor().unwrap().dims(), &[big, 0, big, 3]);
}

/// Found by the fuzzer (seed 64): the fused CPU `logsumexp` multiplied the reduced axes of an
/// empty tensor whose other axes are huge, and overflowed; such tensors take the general path.
#[test]
fn logsumexp_of_an_empty_tensor_with_huge_axes() {
    let big = 1usize << 33;
    let x = Tensor::<f64>::zeros([3, 0, big, big]).unwrap();
    let l = x.logsumexp(&[-2, -1], true);
    assert_eq!(l.dims(), &[3, 0, 1, 1]);
    let leaf = x.with_requires_grad(true).unwrap();
    leaf.logsumexp(&[-2, -1], true).sum(&[], false).backward();
    assert_eq!(leaf.grad_tensor().unwrap().dims(), &[3, 0, big, big]);
}

/// `tril`/`triu` against NumPy's definition (`j - i <= k` / `>= k` in the last two axes) for
/// wide, tall and batched matrices, every diagonal offset that matters and the extremes.
#[test]
fn tril_and_triu_match_the_definition() {
    for dims in [[1usize, 3, 4], [1, 4, 3], [2, 3, 5]] {
        let n: usize = dims.iter().product();
        let x = Tensor::<f64>::from_vec((1..=n).map(|v| v as f64).collect(), dims).unwrap();
        let xs = x.to_vec();
        for k in (-6..=6).chain([i64::MIN, i64::MAX]) {
            for lower in [true, false] {
                let got = if lower { x.tril(k) } else { x.triu(k) }.to_vec();
                let want: Vec<f64> = (0..n)
                    .map(|p| {
                        let (i, j) = ((p / dims[2] % dims[1]) as i128, (p % dims[2]) as i128);
                        let keep = if lower {
                            j - i <= k as i128
                        } else {
                            j - i >= k as i128
                        };
                        if keep { xs[p] } else { 0.0 }
                    })
                    .collect();
                assert_eq!(got, want, "{dims:?} k={k} lower={lower}");
            }
        }
    }
}

/// Copies of flipped views (runs read backwards) and `where` over broadcast and transposed
/// operands (blocks gathered per operand) against index arithmetic, on several dtypes and run
/// lengths, parallel sizes included.
#[test]
fn flipped_copies_and_strided_where_match_the_definition() {
    fn run<T: Element + PartialEq + std::fmt::Debug>(dims: [usize; 3]) {
        let n: usize = dims.iter().product();
        let at = |i: usize, j: usize, k: usize| (i * dims[1] + j) * dims[2] + k;
        let x = Tensor::<T>::from_vec(
            (0..n).map(|v| T::from_f64((v % 251) as f64)).collect(),
            dims,
        )
        .unwrap();
        let xs = x.to_vec();
        for axes in [vec![2i64], vec![1], vec![0, 2], vec![0, 1, 2]] {
            let got = x.flip(&axes).unwrap().contiguous().to_vec();
            let f = |a: usize, v: usize| {
                if axes.contains(&(a as i64)) {
                    dims[a] - 1 - v
                } else {
                    v
                }
            };
            let mut want = Vec::with_capacity(n);
            for i in 0..dims[0] {
                for j in 0..dims[1] {
                    for k in 0..dims[2] {
                        want.push(xs[at(f(0, i), f(1, j), f(2, k))]);
                    }
                }
            }
            assert_eq!(got, want, "flip {axes:?} of {dims:?} {}", T::DTYPE);
        }
        // `where(x > c, x^T-ish, 0)`: a transposed operand, a broadcast scalar, a flipped one.
        let cut = T::from_f64(100.0);
        let cond = x.try_gt_scalar(cut).unwrap();
        // The 0 broadcast from an offset view: its stride-0 runs start past element 0.
        let pair = Tensor::<T>::from_vec(vec![T::from_f64(9.0), T::from_f64(0.0)], [2]).unwrap();
        let zero = pair.narrow(0, 1, 1).unwrap();
        let back = x.flip(&[2]).unwrap();
        let got = Tensor::where_(&cond, &back, &zero).to_vec();
        let want: Vec<T> = (0..n)
            .map(|p| {
                let (i, j, k) = (p / (dims[1] * dims[2]), p / dims[2] % dims[1], p % dims[2]);
                if xs[p] > cut {
                    xs[at(i, j, dims[2] - 1 - k)]
                } else {
                    T::from_f64(0.0)
                }
            })
            .collect();
        assert_eq!(got, want, "where of {dims:?} {}", T::DTYPE);
    }
    for dims in [[2, 3, 5], [3, 4, 70], [2, 300, 257]] {
        run::<f32>(dims);
        run::<i64>(dims);
        run::<u8>(dims);
        run::<f64>(dims);
    }
}

/// `max`/`min` over leading axes (the column strip, folded in vector selects with NaN
/// flags) against the definition: NaN in a column's first row, a later row, or none; several
/// dtypes; sizes that split rows into bands across threads.
#[test]
fn column_extremes_match_the_definition() {
    fn run<T: Element + PartialOrd + std::fmt::Debug>(rows: usize, cols: usize, nan: bool) {
        let v: Vec<f64> = (0..rows * cols)
            .map(|i| ((i * 7919 % 1009) as f64) - 500.0)
            .collect();
        let mut v: Vec<T> = v.into_iter().map(T::from_f64).collect();
        if nan {
            v[3] = T::from_f64(f64::NAN); // first row, column 3
            v[(rows - 1) * cols + 5] = T::from_f64(f64::NAN); // last row, column 5
        }
        let x = Tensor::<T>::from_vec(v.clone(), [rows, cols]).unwrap();
        for max in [true, false] {
            let got = if max {
                x.max(&[0], false)
            } else {
                x.min(&[0], false)
            }
            .to_vec();
            for (c, g) in got.iter().enumerate() {
                let col = (0..rows).map(|r| v[r * cols + c]);
                let want = col.fold(None::<T>, |b, x| match b {
                    Some(b) if b.is_nan() => Some(b),
                    _ if x.is_nan() => Some(x),
                    Some(b) if (max && x <= b) || (!max && x >= b) => Some(b),
                    _ => Some(x),
                });
                let want = want.unwrap();
                let same = (g.is_nan() && want.is_nan()) || *g == want;
                assert!(
                    same,
                    "{} max={max} ({rows}, {cols}) col {c}: {g:?} vs {want:?}",
                    T::DTYPE
                );
            }
        }
    }
    for (rows, cols) in [(3, 40), (300, 517), (4096, 40)] {
        run::<f32>(rows, cols, true);
        run::<f32>(rows, cols, false);
        run::<f64>(rows, cols, true);
        run::<i32>(rows, cols, false);
        run::<f16>(rows, cols, true);
    }
}
