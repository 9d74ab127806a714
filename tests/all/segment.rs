//! `segment_reduce` on every device against PyTorch 2.15 (values and gradients of every
//! reduction, by lengths and by offsets that leave elements out), by gradcheck, and its
//! refusals. The constants come from `tests/data/torch_grads/make/segment.py`.

use crate::common::{assert_close, check_grad, host_f64s};
use typed_tensor::ops::segment::{SegmentReduce, Segments};
use typed_tensor::prelude::*;

const X: &[f64] = &[
    1.0,
    3.0,
    3.0,
    2.0,
    5.0,
    f64::NAN,
    1.0,
    4.0,
    4.0,
    4.0,
    0.0,
    2.0,
    0.0,
    0.0,
    1.0,
    f64::INFINITY,
    -2.0,
    0.5,
];

#[test]
fn segment_reduce_matches_pytorch() {
    use SegmentReduce::*;
    let want: [(SegmentReduce, Option<f64>, &[f64], &[f64]); 10] = [
        (Sum, None, SUM, SUM_G),
        (Sum, Some(2.0), SUM_INIT, SUM_INIT_G),
        (Mean, None, MEAN, MEAN_G),
        (Mean, Some(2.0), MEAN_INIT, MEAN_INIT_G),
        (Max, None, MAX, MAX_G),
        (Max, Some(2.0), MAX_INIT, MAX_INIT_G),
        (Min, None, MIN, MIN_G),
        (Min, Some(2.0), MIN_INIT, MIN_INIT_G),
        (Prod, None, PROD, PROD_G),
        (Prod, Some(2.0), PROD_INIT, PROD_INIT_G),
    ];
    on_every_device!("segment_reduce", |dev| {
        let lengths = Tensor::<i64, _>::from_vec_on(vec![4, 0, 3, 3, 3, 3, 2], [7], &dev).unwrap();
        let g = Tensor::<f64, _>::linspace_on(0.5, 2.0, 7, &dev).unwrap();
        for (reduce, initial, y_want, g_want) in want {
            let x = Tensor::<f64, _>::from_vec_on(X.to_vec(), [18], &dev)
                .unwrap()
                .with_requires_grad(true)
                .unwrap();
            let y = x.segment_reduce(reduce, Segments::Lengths(&lengths), 0, initial);
            assert_close(&host_f64s(&y), y_want, 1e-12);
            y.mul(&g).sum(&[], false).backward();
            assert_close(&host_f64s(&x.grad_tensor().unwrap()), g_want, 1e-12);
            // f32 and f16 give the same values, rounded.
            let x32 = x.detach().cast::<f32>();
            let y32 = x32.segment_reduce(
                reduce,
                Segments::Lengths(&lengths),
                0,
                initial.map(|v| v as f32),
            );
            assert_close(&host_f64s(&y32), y_want, 1e-6);
            let x16 = x.detach().cast::<half::f16>();
            let i16 = initial.map(half::f16::from_f64);
            let y16 = x16.segment_reduce(reduce, Segments::Lengths(&lengths), -1, i16);
            assert_close(&host_f64s(&y16), y_want, 2e-3);
        }
        // Tied maxima share a negative gradient too (PyTorch gives each the whole of it).
        let x = Tensor::<f64, _>::from_vec_on(vec![3.0, 1.0, 3.0], [3], &dev)
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        let one = Tensor::<i64, _>::from_vec_on(vec![3], [1], &dev).unwrap();
        let y = x.segment_reduce(Max, Segments::Lengths(&one), 0, None);
        y.mul_scalar(-2.0).sum(&[], false).backward();
        assert_eq!(host_f64s(&x.grad_tensor().unwrap()), vec![-1.0, 0.0, -1.0]);
    });
}

#[test]
fn segment_reduce_by_offsets_leaves_the_rest_out() {
    on_every_device!("segment_reduce_offsets", |dev| {
        let x = Tensor::<f64, _>::linspace_on(-3.0, 4.0, 30, &dev)
            .unwrap()
            .try_reshape([2, 5, 3])
            .unwrap();
        let offsets =
            Tensor::<i64, _>::from_vec_on(vec![1, 3, 3, 5, 0, 2, 4, 4], [2, 4], &dev).unwrap();
        let w = Tensor::<f64, _>::linspace_on(1.0, 2.0, 18, &dev)
            .unwrap()
            .try_reshape([2, 3, 3])
            .unwrap();
        for (reduce, y_want, g_want) in [
            (SegmentReduce::Prod, OFF_PROD, OFF_PROD_G),
            (SegmentReduce::Mean, OFF_MEAN, OFF_MEAN_G),
        ] {
            let x = x.detach().with_requires_grad(true).unwrap();
            let y = x.segment_reduce(reduce, Segments::Offsets(&offsets), 1, None);
            assert_eq!(y.dims(), &[2, 3, 3]);
            assert_close(&host_f64s(&y), y_want, 1e-12);
            y.mul(&w).sum(&[], false).backward();
            assert_close(&host_f64s(&x.grad_tensor().unwrap()), g_want, 1e-12);
        }
        // The same as lengths when the offsets cover the axis.
        let x = x.detach();
        let lengths = Tensor::<i64, _>::from_vec_on(vec![2, 0, 3, 1, 1, 3], [2, 3], &dev).unwrap();
        let offsets =
            Tensor::<i64, _>::from_vec_on(vec![0, 2, 2, 5, 0, 1, 2, 5], [2, 4], &dev).unwrap();
        for reduce in [SegmentReduce::Sum, SegmentReduce::Max, SegmentReduce::Min] {
            let a = x.segment_reduce(reduce, Segments::Lengths(&lengths), 1, Some(0.5));
            let b = x.segment_reduce(reduce, Segments::Offsets(&offsets), 1, Some(0.5));
            assert_eq!(host_f64s(&a), host_f64s(&b));
        }
    });
}

#[test]
fn segment_reduce_gradcheck_edges_and_refusals() {
    for reduce in [
        SegmentReduce::Sum,
        SegmentReduce::Mean,
        SegmentReduce::Max,
        SegmentReduce::Min,
        SegmentReduce::Prod,
    ] {
        let f = move |v: &[Tensor<f64>]| {
            let l = tensor![[2i64, 1, 0, 3], [1, 1, 4, 0]];
            v[0].try_segment_reduce(reduce, Segments::Lengths(&l), 1, Some(0.25))
        };
        let x = Tensor::<f64>::from_vec(
            vec![
                0.3, -1.2, 2.0, 0.7, -0.4, 1.1, 1.5, -0.9, 0.2, 0.6, -2.0, 1.3,
            ],
            [2, 6],
        )
        .unwrap();
        check_grad(&format!("segment_reduce {reduce:?}"), &f, &[x]);
    }
    let x = Tensor::<f32>::ones([6]).unwrap();
    // Empty data: every segment empty, with its identity or `initial`.
    let e = Tensor::<f32>::zeros([0, 3]).unwrap().segment_reduce(
        SegmentReduce::Max,
        Segments::Lengths(&tensor![0i64, 0]),
        0,
        None,
    );
    assert_eq!(
        (e.dims(), e.to_vec()),
        (&[2usize, 3][..], vec![f32::NEG_INFINITY; 6])
    );
    let e = Tensor::<f32>::zeros([0]).unwrap().segment_reduce(
        SegmentReduce::Mean,
        Segments::Offsets(&tensor![0i64]),
        0,
        None,
    );
    assert_eq!(e.dims(), &[0]);
    let huge = Tensor::<f32>::zeros([1 << 33, 0]).unwrap();
    let l = Tensor::<i64>::zeros([0]).unwrap();
    assert!(
        huge.try_segment_reduce(SegmentReduce::Sum, Segments::Lengths(&l), 0, None)
            .is_err()
    );
    let ok = huge.segment_reduce(
        SegmentReduce::Sum,
        Segments::Offsets(&tensor![0i64, 1 << 33]),
        0,
        None,
    );
    assert_eq!(ok.dims(), &[1, 0]);
    let err = |r: Result<Tensor<f32>>| r.unwrap_err().to_string();
    let s = SegmentReduce::Sum;
    for (got, want) in [
        (
            err(Tensor::<f32>::scalar(1.0).try_segment_reduce(
                s,
                Segments::Lengths(&tensor![1i64]),
                0,
                None,
            )),
            "0-d",
        ),
        (
            err(x.try_segment_reduce(s, Segments::Lengths(&tensor![2i64, 1, 0, 2]), 0, None)),
            "sum to the axis' length 6, one sums to 5",
        ),
        (
            err(x.try_segment_reduce(s, Segments::Lengths(&tensor![3i64, 4]), 0, None)),
            "sums past",
        ),
        (
            err(x.try_segment_reduce(s, Segments::Lengths(&tensor![7i64, -1]), 0, None)),
            "negative value, -1",
        ),
        (
            err(x.try_segment_reduce(s, Segments::Lengths(&tensor![[6i64]]), 0, None)),
            "last dimension",
        ),
        (
            err(x.try_segment_reduce(s, Segments::Lengths(&tensor![6i64]), 1, None)),
            "axis",
        ),
        (
            err(x.try_segment_reduce(s, Segments::Offsets(&tensor![0i64, 4, 3, 6]), 0, None)),
            "decrease: 3 follows 4",
        ),
        (
            err(x.try_segment_reduce(s, Segments::Offsets(&tensor![0i64, 7]), 0, None)),
            "outside 0..=6",
        ),
        (
            err(x.try_segment_reduce(s, Segments::Offsets(&tensor![-1i64, 2]), 0, None)),
            "outside",
        ),
        (
            err(x.try_segment_reduce(
                s,
                Segments::Offsets(&Tensor::<i64>::zeros([0]).unwrap()),
                0,
                None,
            )),
            "at least one offset",
        ),
        (
            err(Tensor::<f32>::ones([2, 3]).unwrap().try_segment_reduce(
                s,
                Segments::Lengths(&tensor![[3i64], [3], [0]]),
                1,
                None,
            )),
            "leading dimensions",
        ),
    ] {
        assert!(
            got.contains(want) && got.contains("segment_reduce"),
            "{got} lacks {want}"
        );
    }
}

const SUM: &[f64] = &[9.0, 0.0, f64::NAN, 12.0, 2.0, f64::INFINITY, -1.5];
const SUM_G: &[f64] = &[
    0.5, 0.5, 0.5, 0.5, 1.0, 1.0, 1.0, 1.25, 1.25, 1.25, 1.5, 1.5, 1.5, 1.75, 1.75, 1.75, 2.0, 2.0,
];
const SUM_INIT: &[f64] = &[11.0, 2.0, f64::NAN, 14.0, 4.0, f64::INFINITY, 0.5];
const SUM_INIT_G: &[f64] = &[
    0.5, 0.5, 0.5, 0.5, 1.0, 1.0, 1.0, 1.25, 1.25, 1.25, 1.5, 1.5, 1.5, 1.75, 1.75, 1.75, 2.0, 2.0,
];
const MEAN: &[f64] = &[
    2.25,
    f64::NAN,
    f64::NAN,
    4.0,
    0.6666666666666666,
    f64::INFINITY,
    -0.75,
];
const MEAN_G: &[f64] = &[
    0.125,
    0.125,
    0.125,
    0.125,
    0.3333333333333333,
    0.3333333333333333,
    0.3333333333333333,
    0.4166666666666667,
    0.4166666666666667,
    0.4166666666666667,
    0.5,
    0.5,
    0.5,
    0.5833333333333334,
    0.5833333333333334,
    0.5833333333333334,
    1.0,
    1.0,
];
const MEAN_INIT: &[f64] = &[
    2.75,
    2.0,
    f64::NAN,
    4.666666666666667,
    1.3333333333333333,
    f64::INFINITY,
    0.25,
];
const MEAN_INIT_G: &[f64] = &[
    0.125,
    0.125,
    0.125,
    0.125,
    0.3333333333333333,
    0.3333333333333333,
    0.3333333333333333,
    0.4166666666666667,
    0.4166666666666667,
    0.4166666666666667,
    0.5,
    0.5,
    0.5,
    0.5833333333333334,
    0.5833333333333334,
    0.5833333333333334,
    1.0,
    1.0,
];
const MAX: &[f64] = &[3.0, -f64::INFINITY, f64::NAN, 4.0, 2.0, f64::INFINITY, 0.5];
const MAX_G: &[f64] = &[
    0.0,
    0.25,
    0.25,
    0.0,
    0.0,
    1.0,
    0.0,
    0.4166666666666667,
    0.4166666666666667,
    0.4166666666666667,
    0.0,
    1.5,
    0.0,
    0.0,
    0.0,
    1.75,
    0.0,
    2.0,
];
const MAX_INIT: &[f64] = &[3.0, 2.0, f64::NAN, 4.0, 2.0, f64::INFINITY, 2.0];
const MAX_INIT_G: &[f64] = &[
    0.0,
    0.25,
    0.25,
    0.0,
    0.0,
    1.0,
    0.0,
    0.4166666666666667,
    0.4166666666666667,
    0.4166666666666667,
    0.0,
    1.5,
    0.0,
    0.0,
    0.0,
    1.75,
    0.0,
    0.0,
];
const MIN: &[f64] = &[1.0, f64::INFINITY, f64::NAN, 4.0, 0.0, 0.0, -2.0];
const MIN_G: &[f64] = &[
    0.5,
    0.0,
    0.0,
    0.0,
    0.0,
    1.0,
    0.0,
    0.4166666666666667,
    0.4166666666666667,
    0.4166666666666667,
    0.75,
    0.0,
    0.75,
    1.75,
    0.0,
    0.0,
    2.0,
    0.0,
];
const MIN_INIT: &[f64] = &[1.0, 2.0, f64::NAN, 2.0, 0.0, 0.0, -2.0];
const MIN_INIT_G: &[f64] = &[
    0.5, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.75, 0.0, 0.75, 1.75, 0.0, 0.0, 2.0, 0.0,
];
const PROD: &[f64] = &[18.0, 1.0, f64::NAN, 64.0, 0.0, f64::NAN, -1.0];
const PROD_G: &[f64] = &[
    9.0,
    3.0,
    3.0,
    4.5,
    f64::NAN,
    5.0,
    f64::NAN,
    20.0,
    20.0,
    20.0,
    0.0,
    0.0,
    0.0,
    f64::INFINITY,
    f64::NAN,
    f64::NAN,
    1.0,
    -4.0,
];
const PROD_INIT: &[f64] = &[36.0, 2.0, f64::NAN, 128.0, 0.0, f64::NAN, -2.0];
const PROD_INIT_G: &[f64] = &[
    18.0,
    6.0,
    6.0,
    9.0,
    f64::NAN,
    10.0,
    f64::NAN,
    40.0,
    40.0,
    40.0,
    0.0,
    0.0,
    0.0,
    f64::INFINITY,
    f64::NAN,
    f64::NAN,
    2.0,
    -8.0,
];
const OFF_PROD: &[f64] = &[
    3.5315101070154578,
    2.665873959571938,
    1.9167657550535075,
    1.0,
    1.0,
    1.0,
    0.08561236623067765,
    -0.08085612366230684,
    -0.13079667063020214,
    0.834720570749108,
    1.3674197384066584,
    2.016646848989298,
    5.778834720570749,
    7.010701545778835,
    8.359096313912008,
    1.0,
    1.0,
    1.0,
];
const OFF_PROD_G: &[f64] = &[
    0.0,
    0.0,
    0.0,
    -1.5517241379310345,
    -1.3874239350912778,
    -1.1947261663286004,
    -2.2758620689655173,
    -2.154158215010142,
    -2.004056795131846,
    -0.1399594320486814,
    0.1947261663286006,
    0.5578093306288034,
    -1.1196754563894522,
    -0.8275862068965515,
    -0.5070993914807301,
    2.0567951318458415,
    2.5192697768762673,
    3.010141987829614,
    0.9492900608519269,
    1.3691683569979713,
    1.8174442190669369,
    4.764705882352942,
    5.354969574036511,
    5.973630831643002,
    3.5294117647058822,
    4.077079107505071,
    4.65314401622718,
    0.0,
    0.0,
    0.0,
];
const OFF_MEAN: &[f64] = &[
    -1.9137931034482758,
    -1.6724137931034482,
    -1.4310344827586206,
    f64::NAN,
    f64::NAN,
    f64::NAN,
    -0.4655172413793102,
    -0.2241379310344826,
    0.017241379310344945,
    0.982758620689655,
    1.2241379310344827,
    1.4655172413793103,
    2.4310344827586206,
    2.6724137931034484,
    2.913793103448276,
    f64::NAN,
    f64::NAN,
    f64::NAN,
];
const OFF_MEAN_G: &[f64] = &[
    0.0,
    0.0,
    0.0,
    0.5,
    0.5294117647058824,
    0.5588235294117647,
    0.5,
    0.5294117647058824,
    0.5588235294117647,
    0.6764705882352942,
    0.7058823529411765,
    0.7352941176470589,
    0.6764705882352942,
    0.7058823529411765,
    0.7352941176470589,
    0.7647058823529411,
    0.7941176470588235,
    0.8235294117647058,
    0.7647058823529411,
    0.7941176470588235,
    0.8235294117647058,
    0.8529411764705882,
    0.8823529411764706,
    0.9117647058823529,
    0.8529411764705882,
    0.8823529411764706,
    0.9117647058823529,
    0.0,
    0.0,
    0.0,
];

#[test]
fn dyn_segment_reduce_takes_any_integer_segments() {
    let x = DynTensor::from(tensor![1.0f64, 3.0, 2.0, 5.0, 4.0]);
    let l = DynTensor::from(tensor![2i32, 0, 3]);
    let o = DynTensor::from(tensor![0u8, 2, 5]);
    let sum = x
        .segment_reduce(SegmentReduce::Sum, Some(&l), None, 0, None)
        .unwrap();
    assert_eq!(sum.to_vec::<f64>().unwrap(), vec![4.0, 0.0, 11.0]);
    let max = x
        .segment_reduce(SegmentReduce::Max, None, Some(&o), -1, Some(4.5))
        .unwrap();
    assert_eq!(max.to_vec::<f64>().unwrap(), vec![4.5, 5.0]);
    let err = |r: Result<DynTensor>| r.unwrap_err().to_string();
    assert!(
        err(x.segment_reduce(SegmentReduce::Sum, None, None, 0, None))
            .contains("lengths or offsets")
    );
    let xi = DynTensor::from(tensor![1i64, 2]);
    assert!(err(xi.segment_reduce(SegmentReduce::Sum, Some(&l), None, 0, None)).contains("float"));
    let lf = DynTensor::from(tensor![2.0f32]);
    assert!(
        err(x.segment_reduce(SegmentReduce::Sum, Some(&lf), None, 0, None)).contains("integer")
    );
}
