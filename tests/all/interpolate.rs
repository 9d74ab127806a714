//! `interpolate` in every mode (nearest, nearest-exact, linear, bilinear, bicubic, trilinear,
//! area) on 1-, 2- and 3-d inputs, and `adaptive_avg_pool3d`, against PyTorch 2.15's
//! `F.interpolate` (values quoted, rounded to 15 decimals), on every device; gradients by
//! `gradcheck`; rank and size refusals.

use crate::common::assert_close;
use typed_tensor::nn::{self, Interpolation};
use typed_tensor::prelude::*;

fn values<D: Device>(dev: &D) -> Result<()> {
    let t = |v: Vec<f64>, s: &[usize]| Tensor::<f64, D>::from_vec_on(v, s.to_vec(), dev);
    let host = |t: Tensor<f64, D>| (t.dims().to_vec(), t.try_to_vec().unwrap());
    let check = |got: Tensor<f64, D>, dims: &[usize], want: &[f64]| {
        let (d, v) = host(got);
        assert_eq!(d, dims);
        assert_close(&v, want, 1e-14);
    };
    let x = t(
        vec![1., 2., 0., 4., 3., -1., 5., 2., 0., 2., 2., 7.],
        &[1, 1, 3, 4],
    )?;
    let bic = |a| Interpolation::Bicubic { align_corners: a };
    check(
        nn::interpolate(&x, (5, 3), bic(false))?,
        &[1, 1, 5, 3],
        &[
            1.068462962962962,
            0.604749999999999,
            3.473425925925923,
            1.768425925925926,
            1.192999999999999,
            2.789055555555552,
            2.32175925925926,
            1.90625,
            2.534722222222225,
            1.158842592592594,
            1.877,
            4.766638888888887,
            0.091703703703704,
            1.70075,
            6.642185185185186,
        ],
    );
    check(
        nn::interpolate(&x, (2, 6), bic(true))?,
        &[1, 1, 2, 6],
        &[
            1.0,
            1.827999999999999,
            1.647999999999998,
            -0.008000000000001,
            1.335999999999997,
            4.0,
            0.0,
            1.224,
            2.071999999999997,
            1.567999999999997,
            3.939999999999996,
            7.0,
        ],
    );
    check(
        nn::interpolate(&x, (5, 3), Interpolation::NearestExact)?,
        &[1, 1, 5, 3],
        &[1., 0., 4., 1., 0., 4., 3., 5., 2., 0., 2., 7., 0., 2., 7.],
    );
    check(
        nn::interpolate(&x, (2, 3), Interpolation::Area)?,
        &[1, 1, 2, 3],
        &[1.25, 1.5, 2.75, 1.0, 2.0, 4.0],
    );
    check(
        nn::interpolate(&x, (4, 5), Interpolation::Area)?,
        &[1, 1, 4, 5],
        &[
            1.0, 1.5, 1.0, 2.0, 4.0, 2.0, 1.25, 1.5, 2.75, 3.0, 1.5, 1.0, 2.0, 4.0, 4.5, 0.0, 1.0,
            2.0, 4.5, 7.0,
        ],
    );
    let l = t(vec![1., 4., 2., 8., 5.], &[1, 1, 5])?;
    let lin = |a| Interpolation::Linear { align_corners: a };
    check(
        nn::interpolate1d(&l, 7, lin(false))?,
        &[1, 1, 7],
        &[
            1.0,
            2.714285714285714,
            3.428571428571428,
            2.0,
            6.285714285714286,
            6.714285714285714,
            5.0,
        ],
    );
    check(
        nn::interpolate1d(&l, 3, lin(true))?,
        &[1, 1, 3],
        &[1.0, 2.0, 5.0],
    );
    check(
        nn::interpolate1d(&l, 3, Interpolation::Area)?,
        &[1, 1, 3],
        &[2.5, 4.666666666666667, 6.5],
    );
    let v = Tensor::<f64, D>::arange_on(0.0, 24.0, 1.0, dev)?
        .try_reshape([1, 1, 2, 3, 4])?
        .try_pow(1.5)?;
    check(
        nn::interpolate3d(
            &v,
            (3, 2, 5),
            Interpolation::Trilinear {
                align_corners: false,
            },
        )?,
        &[1, 1, 3, 2, 5],
        &[
            2.0,
            3.081559480312316,
            4.670319964804573,
            6.61504220383199,
            8.527179111393007,
            18.970562748477143,
            21.82272830485546,
            25.218201018656174,
            28.771587740244858,
            31.992219314795083,
            24.588457268119893,
            27.054380266219255,
            30.099312356855314,
            33.38164597452085,
            36.401505869022316,
            51.02630103673542,
            54.76823818772712,
            59.154727817716314,
            63.670033529159994,
            67.71254153687885,
            47.17691453623979,
            51.0272010521262,
            55.52830474890606,
            60.14824974520971,
            64.27583262665163,
            83.0820393249937,
            87.7137480705988,
            93.09125461677647,
            98.56847931807515,
            103.43286375896261,
        ],
    );
    let near = nn::interpolate3d(&v, (3, 2, 5), Interpolation::Nearest)?;
    let want_near = [0., 0., 1., 2.82842712474619, 5.196152422706632];
    assert_close(&host(near).1[..5], &want_near, 1e-15);
    check(
        nn::adaptive_avg_pool3d(&v, (1, 2, 3))?,
        &[1, 1, 1, 2, 3],
        &[
            30.33931518571051,
            34.427675433557326,
            38.8632928856213,
            48.57217015187912,
            53.797952407464656,
            59.25034137218404,
        ],
    );
    // The same size is the input itself.
    assert_eq!(
        host(nn::interpolate(&x, (3, 4), bic(false))?).1,
        host(x.clone()).1
    );
    Ok(())
}

#[test]
fn interpolate_modes_match_pytorch_on_every_device() {
    on_every_device!("interpolate_modes", |dev| {
        values(&dev).unwrap();
    });
}

#[test]
fn interpolate_gradients_and_refusals() {
    let x = Tensor::<f64>::from_vec(
        (0..12).map(|i| (i as f64 * 0.7).sin()).collect(),
        [1, 1, 3, 4],
    )
    .unwrap();
    let modes = [
        Interpolation::Bicubic {
            align_corners: false,
        },
        Interpolation::Bicubic {
            align_corners: true,
        },
        Interpolation::NearestExact,
        Interpolation::Area,
    ];
    for mode in modes {
        typed_tensor::autograd::gradcheck(
            |v| nn::interpolate(&v[0], (5, 3), mode),
            &[x.clone()],
            1e-6,
            1e-6,
        )
        .unwrap_or_else(|e| panic!("{mode:?}: {e}"));
    }
    let l = x.reshape([1, 3, 4]);
    typed_tensor::autograd::gradcheck(
        |v| {
            nn::interpolate1d(
                &v[0],
                7,
                Interpolation::Linear {
                    align_corners: false,
                },
            )
        },
        &[l.clone()],
        1e-6,
        1e-6,
    )
    .unwrap();
    let v = x.reshape([1, 1, 1, 3, 4]);
    typed_tensor::autograd::gradcheck(
        |t| {
            nn::interpolate3d(
                &t[0],
                (2, 2, 5),
                Interpolation::Trilinear {
                    align_corners: true,
                },
            )
        },
        &[v.clone()],
        1e-6,
        1e-6,
    )
    .unwrap();
    typed_tensor::autograd::gradcheck(
        |t| nn::adaptive_avg_pool3d(&t[0], (1, 2, 3)),
        &[v.clone()],
        1e-6,
        1e-6,
    )
    .unwrap();
    // Modes for another rank, and empty sizes, are refused naming the op.
    let e = nn::interpolate(
        &x,
        (2, 2),
        Interpolation::Linear {
            align_corners: false,
        },
    )
    .unwrap_err();
    assert!(e.to_string().starts_with("interpolate"), "{e}");
    assert!(
        nn::interpolate1d(
            &l,
            2,
            Interpolation::Bilinear {
                align_corners: false
            }
        )
        .is_err()
    );
    assert!(
        nn::interpolate3d(
            &v,
            (1, 2, 2),
            Interpolation::Bicubic {
                align_corners: false
            }
        )
        .is_err()
    );
    assert!(nn::interpolate1d(&x, 2, Interpolation::Nearest).is_err());
    assert!(nn::interpolate1d(&l, 0, Interpolation::Area).is_err());
    assert!(
        nn::adaptive_avg_pool3d(&x, (1, 1, 1))
            .unwrap_err()
            .to_string()
            .contains("adaptive_avg_pool3d")
    );
    assert!(nn::interpolate1d(&l, usize::MAX / 2, Interpolation::Area).is_err());
    let f32x = x.cast::<f32>();
    let y = nn::interpolate(
        &f32x,
        (6, 8),
        Interpolation::Bicubic {
            align_corners: false,
        },
    )
    .unwrap();
    let y64 = nn::interpolate(
        &x,
        (6, 8),
        Interpolation::Bicubic {
            align_corners: false,
        },
    )
    .unwrap();
    let (a, b): (Vec<f64>, Vec<f64>) =
        (y.to_vec().iter().map(|&v| v as f64).collect(), y64.to_vec());
    assert_close(&a, &b, 1e-6);
}
