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

#[test]
fn interpolate_by_scale_matches_pytorch() {
    // F.interpolate(x, scale_factor=...) of PyTorch 2.15, x = arange(12).reshape(1, 1, 3, 4).
    on_every_device!("interpolate_scale", |dev| {
        let x = Tensor::<f64, _>::arange_on(0.0, 12.0, 1.0, &dev)
            .unwrap()
            .try_reshape([1, 1, 3, 4])
            .unwrap();
        let vals = |t: &Tensor<f64, _>| crate::common::host_f64s(t);
        let run = |x: &Tensor<f64, _>, s: &[f64], m: Interpolation| {
            nn::interpolate_scale(x, s, m).unwrap()
        };
        let bil = Interpolation::Bilinear {
            align_corners: false,
        };
        let near = run(&x, &[1.7, 1.3], Interpolation::Nearest);
        assert_eq!(
            (near.dims(), vals(&near)),
            (&[1, 1, 5, 5][..], NEAR.to_vec())
        );
        assert_eq!(
            vals(&run(&x, &[1.7, 1.3], Interpolation::NearestExact)),
            NEAR_EX
        );
        let leaf = x.clone().with_requires_grad(true).unwrap();
        let y = run(&leaf, &[1.7, 1.3], bil);
        assert_close(&vals(&y), BIL, 1e-13);
        let w = Tensor::<f64, _>::arange_on(0.0, 25.0, 1.0, &dev)
            .unwrap()
            .try_reshape([1, 1, 5, 5])
            .unwrap();
        y.mul(&w).sum(&[], false).backward();
        assert_close(&vals(&leaf.grad_tensor().unwrap()), BIL_G, 1e-12);
        let bic = run(
            &x,
            &[2.5, 0.6],
            Interpolation::Bicubic {
                align_corners: false,
            },
        );
        assert_eq!(bic.dims(), [1, 1, 7, 2]);
        assert_close(&vals(&bic), BIC, 1e-12);
        assert_close(&vals(&nn::upsample_bilinear(&x, 2.0).unwrap()), UPB, 1e-13);
        assert_eq!(vals(&nn::upsample_nearest(&x, 2.0).unwrap()), UPN);
        let area = run(&x, &[0.5, 0.75], Interpolation::Area);
        assert_eq!(
            (area.dims(), vals(&area)),
            (&[1, 1, 1, 3][..], AREA.to_vec())
        );
        let x3 = Tensor::<f64, _>::arange_on(0.0, 8.0, 1.0, &dev)
            .unwrap()
            .try_reshape([1, 1, 2, 2, 2])
            .unwrap();
        let tri = run(
            &x3,
            &[1.5, 2.0, 0.5],
            Interpolation::Trilinear {
                align_corners: false,
            },
        );
        assert_eq!(tri.dims(), [1, 1, 3, 4, 1]);
        assert_close(&vals(&tri), TRI, 1e-13);
        // PyTorch's kernels: an unchanged axis stays in the linear modes and 2-d nearest (which
        // also halves indices at exactly twice the size), not in 1-d nearest or bicubic.
        let line = Tensor::<f64, _>::arange_on(0.0, 3.0, 1.0, &dev).unwrap();
        let (l1, l2) = (
            line.try_reshape([1, 1, 3]).unwrap(),
            line.try_reshape([1, 1, 3, 1]).unwrap(),
        );
        assert_eq!(
            vals(&run(
                &l1,
                &[1.2],
                Interpolation::Linear {
                    align_corners: false
                }
            )),
            [0.0, 1.0, 2.0]
        );
        assert_eq!(
            vals(&run(&l1, &[1.2], Interpolation::Nearest)),
            [0.0, 0.0, 1.0]
        );
        assert_eq!(
            vals(&run(&l2, &[1.3, 1.0], Interpolation::Nearest)),
            [0.0, 1.0, 2.0]
        );
        assert_eq!(
            vals(&run(&l2, &[1.3, 1.0], Interpolation::NearestExact)),
            [0.0, 1.0, 1.0]
        );
        assert_eq!(
            vals(&run(&l2, &[2.1, 1.0], Interpolation::Nearest)),
            [0.0, 0.0, 1.0, 1.0, 2.0, 2.0]
        );
        assert_eq!(
            vals(&run(&l1, &[2.1], Interpolation::Nearest)),
            [0.0, 0.0, 0.0, 1.0, 1.0, 2.0]
        );
        let cubic = run(
            &l2,
            &[1.3, 1.0],
            Interpolation::Bicubic {
                align_corners: false,
            },
        );
        assert_close(
            &vals(&cubic),
            &[-0.06772018661811563, 0.5602668411470193, 1.519301888939462],
            1e-13,
        );
        // Refused: a scale per spatial axis, finite and positive, and a non-empty output.
        for bad in [
            &[2.0][..],
            &[2.0, 0.0],
            &[2.0, f64::NAN],
            &[f64::INFINITY, 1.0],
            &[0.1, 1.0],
            &[2.0, 2.0, 2.0],
        ] {
            assert!(
                nn::interpolate_scale(&x, bad, Interpolation::Nearest).is_err(),
                "{bad:?}"
            );
        }
        assert!(
            nn::upsample_nearest(&l1, 2.0)
                .unwrap_err()
                .to_string()
                .starts_with("upsample_nearest")
        );
    });
}

const NEAR: &[f64] = &[
    0.0, 0.0, 1.0, 2.0, 3.0, 0.0, 0.0, 1.0, 2.0, 3.0, 4.0, 4.0, 5.0, 6.0, 7.0, 4.0, 4.0, 5.0, 6.0,
    7.0, 8.0, 8.0, 9.0, 10.0, 11.0,
];
const NEAR_EX: &[f64] = &[
    0.0, 1.0, 1.0, 2.0, 3.0, 0.0, 1.0, 1.0, 2.0, 3.0, 4.0, 5.0, 5.0, 6.0, 7.0, 8.0, 9.0, 9.0, 10.0,
    11.0, 8.0, 9.0, 9.0, 10.0, 11.0,
];
const BIL: &[f64] = &[
    0.0,
    0.6538461538461537,
    1.423076923076923,
    2.192307692307692,
    2.9615384615384612,
    1.5294117647058825,
    2.1832579185520364,
    2.9524886877828056,
    3.7217194570135748,
    4.490950226244344,
    3.882352941176471,
    4.536199095022624,
    5.305429864253394,
    6.074660633484163,
    6.843891402714932,
    6.235294117647059,
    6.889140271493213,
    7.658371040723981,
    8.427601809954751,
    9.196832579185521,
    8.0,
    8.653846153846155,
    9.423076923076923,
    10.192307692307692,
    10.961538461538462,
];
const BIL_G: &[f64] = &[
    5.123303167420814,
    7.140271493212669,
    9.930995475113125,
    11.187782805429858,
    25.1685520361991,
    25.68665158371041,
    29.28619909502264,
    28.976244343891388,
    38.74660633484164,
    37.75000000000001,
    41.359728506787334,
    39.64366515837102,
];
const BIC: &[f64] = &[
    -0.18174074074074179,
    1.5589999999999993,
    0.5602592592592645,
    2.301000000000007,
    1.8842592592592582,
    3.625,
    3.6882592592592607,
    5.429000000000002,
    5.816259259259258,
    7.557,
    7.332259259259259,
    9.073000000000002,
    8.502259259259262,
    10.243000000000006,
];
const UPB: &[f64] = &[
    0.0,
    0.42857142857142855,
    0.8571428571428571,
    1.2857142857142856,
    1.7142857142857142,
    2.142857142857143,
    2.571428571428571,
    3.0,
    1.6,
    2.0285714285714285,
    2.4571428571428573,
    2.8857142857142857,
    3.314285714285714,
    3.742857142857143,
    4.171428571428572,
    4.6,
    3.2,
    3.6285714285714286,
    4.057142857142857,
    4.485714285714286,
    4.914285714285715,
    5.342857142857143,
    5.771428571428571,
    6.2,
    4.800000000000001,
    5.2285714285714295,
    5.657142857142858,
    6.085714285714287,
    6.514285714285715,
    6.942857142857143,
    7.371428571428573,
    7.800000000000001,
    6.4,
    6.828571428571429,
    7.257142857142858,
    7.685714285714286,
    8.114285714285714,
    8.542857142857143,
    8.971428571428572,
    9.4,
    8.0,
    8.428571428571427,
    8.857142857142858,
    9.285714285714285,
    9.714285714285715,
    10.142857142857142,
    10.571428571428571,
    11.0,
];
const UPN: &[f64] = &[
    0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0, 5.0,
    5.0, 6.0, 6.0, 7.0, 7.0, 4.0, 4.0, 5.0, 5.0, 6.0, 6.0, 7.0, 7.0, 8.0, 8.0, 9.0, 9.0, 10.0,
    10.0, 11.0, 11.0, 8.0, 8.0, 9.0, 9.0, 10.0, 10.0, 11.0, 11.0,
];
const TRI: &[f64] = &[
    0.5,
    1.0,
    2.0,
    2.5,
    2.4999999999999996,
    2.9999999999999996,
    3.9999999999999996,
    4.5,
    4.5,
    5.0,
    6.0,
    6.5,
];
const AREA: &[f64] = &[4.5, 5.5, 6.5];
