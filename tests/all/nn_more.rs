//! `ctc_loss` against PyTorch 2.15 (`F.ctc_loss`) on every device, its gradient by
//! `gradcheck` and against PyTorch's, and its argument errors; `conv_transpose3d`,
//! `max_pool3d_with_indices`, `max_unpool3d`, `adaptive_max_pool3d` and `lp_pool3d` against
//! PyTorch's by shape, sum, sum of squares and a position-weighted mean (which a misplaced
//! element changes).

use crate::common::{assert_close, check_grad};
use typed_tensor::nn::{self, Conv3dOptions, Reduction, ctc_loss};
use typed_tensor::prelude::*;

/// `sin(1.3t + 0.7n + 0.31c²)`, the logits of the reference script, `(6, 4, 4)`.
fn logits<D: Backend>(dev: &D) -> Tensor<f64, D> {
    let v = (0..96)
        .map(|i| {
            let (t, n, c) = ((i / 16) as f64, ((i / 4) % 4) as f64, (i % 4) as f64);
            (1.3 * t + 0.7 * n + 0.31 * c * c).sin()
        })
        .collect();
    Tensor::from_vec_on(v, [6, 4, 4], dev).unwrap()
}

#[test]
fn ctc_loss_matches_pytorch() {
    let inf = f64::INFINITY;
    on_every_device!("ctc_loss", |dev| {
        let lp = logits(&dev).try_log_softmax(2).unwrap();
        let targets =
            Tensor::<i64, _>::from_vec_on(vec![1, 2, 3, 1, 1, 0, 2, 2, 0, 0, 0, 0], [4, 3], &dev)
                .unwrap();
        let (il, tl) = ([6, 5, 2, 4], [3, 2, 2, 0]);
        let loss = |r, zero_inf| {
            let l = ctc_loss(&lp, &targets, &il, &tl, 0, r, zero_inf).unwrap();
            l.try_to_vec().unwrap()
        };
        // A repeated label (needs a blank between), an impossible target (3 frames for "2 2"
        // from 2), an empty target.
        let none = [4.039131063380709, 4.962525721167848, inf, 6.506542547117746];
        assert_close(&loss(Reduction::None, false), &none, 1e-14);
        assert_eq!(loss(Reduction::Mean, false), [inf]);
        assert_eq!(loss(Reduction::Sum, false), [inf]);
        let zeroed = [4.039131063380709, 4.962525721167848, 0.0, 6.506542547117746];
        assert_close(&loss(Reduction::None, true), &zeroed, 1e-14);
        assert_close(&loss(Reduction::Mean, true), &[2.583545607207143], 1e-14);
        // The concatenated form, another blank.
        let cat = Tensor::<i64, _>::from_vec_on(vec![1, 2, 0, 1, 1, 2], [6], &dev).unwrap();
        let l = ctc_loss(
            &lp,
            &cat,
            &[6, 6, 5, 3],
            &[2, 1, 2, 1],
            3,
            Reduction::None,
            false,
        );
        let want = [
            3.764607937831601,
            6.134243486917216,
            3.814557839145483,
            2.790509179442089,
        ];
        assert_close(&l.unwrap().try_to_vec().unwrap(), &want, 1e-14);
        // No frames: probability 1 for the empty target.
        let l = ctc_loss(
            &lp,
            &targets,
            &[0, 0, 6, 6],
            &[0, 1, 1, 1],
            0,
            Reduction::None,
            false,
        );
        let want = [0.0, inf, 5.185852356648037, 5.482339334384571];
        assert_close(&l.unwrap().try_to_vec().unwrap(), &want, 1e-14);
        // Unbatched: (T, C) with a 1-d target gives a 0-d loss.
        let one = lp.select(1, 0).unwrap();
        let t1 = targets.select(0, 0).unwrap();
        let l = ctc_loss(&one, &t1, &[6], &[3], 0, Reduction::None, false).unwrap();
        assert_eq!(l.dims(), [0usize; 0]);
        assert_close(&l.try_to_vec().unwrap(), &[4.039131063380709], 1e-14);
        // f32 and f16 through f32.
        let l32 = ctc_loss(
            &lp.try_cast::<f32>().unwrap(),
            &targets,
            &il,
            &tl,
            0,
            Reduction::Sum,
            true,
        );
        assert!((l32.unwrap().try_item().unwrap() - 15.508_2).abs() < 1e-5);
        let l16 = ctc_loss(
            &lp.try_cast::<f16>().unwrap(),
            &targets,
            &il,
            &tl,
            0,
            Reduction::Sum,
            true,
        );
        assert!((l16.unwrap().try_item().unwrap().to_f64() - 15.508199331666302).abs() < 2e-2);
    });
    // PyTorch's gradient of the zero_infinity mean with respect to the logits (through
    // log_softmax): its absolute sum, sum of squares and first row.
    let x = logits(&Cpu).with_requires_grad(true).unwrap();
    let targets =
        Tensor::<i64>::from_vec(vec![1, 2, 3, 1, 1, 0, 2, 2, 0, 0, 0, 0], [4, 3]).unwrap();
    let lp = x.log_softmax(2);
    let l = ctc_loss(
        &lp,
        &targets,
        &[6, 5, 2, 4],
        &[3, 2, 2, 0],
        0,
        Reduction::Mean,
        true,
    )
    .unwrap();
    l.backward();
    let g = x.grad_tensor().unwrap();
    let abs: f64 = g.to_vec().iter().map(|v| v.abs()).sum();
    let sq: f64 = g.to_vec().iter().map(|v| v * v).sum();
    assert_close(
        &[abs, sq],
        &[2.5397819462565483, 0.25533637250346697],
        1e-13,
    );
    let row = [
        -0.007965741473108093,
        -0.04440396621672153,
        0.03382948912078477,
        0.018540218569044857,
    ];
    assert_close(&g.to_vec()[..4], &row, 1e-13);
    // gradcheck on raw (unnormalised) scores, every path kind, the impossible one zeroed.
    let (il, tl) = ([6, 5, 2, 4], [3, 2, 2, 0]);
    check_grad(
        "ctc_loss",
        &|v| ctc_loss(&v[0], &targets, &il, &tl, 0, Reduction::Mean, true),
        &[logits(&Cpu).try_mul_scalar(0.5).unwrap()],
    );
}

#[test]
fn ctc_loss_rejects_bad_arguments() {
    let lp = logits(&Cpu).log_softmax(2);
    let t = Tensor::<i64>::from_vec(vec![1, 2, 3, 1, 1, 0, 2, 2, 0, 0, 0, 0], [4, 3]).unwrap();
    let err = |lp: &Tensor<f64>, t: &Tensor<i64>, il: &[usize], tl: &[usize], blank| {
        let e = ctc_loss(lp, t, il, tl, blank, Reduction::Mean, false)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("ctc_loss"), "{e}");
        e
    };
    let (il, tl) = ([6, 5, 2, 4], [3, 2, 2, 0]);
    assert!(err(&lp, &t, &[6, 5, 2], &tl, 0).contains("3 input lengths"));
    assert!(err(&lp, &t, &[7, 5, 2, 4], &tl, 0).contains("input_lengths[0] = 7"));
    assert!(err(&lp, &t, &il, &[4, 2, 2, 0], 0).contains("target_lengths[0] = 4"));
    assert!(err(&lp, &t, &il, &tl, 4).contains("blank 4"));
    let bad = t.try_add_scalar(2).unwrap(); // class 4 of 0..4
    assert!(err(&lp, &bad, &il, &tl, 0).contains("index 4"));
    let neg = Tensor::<i64>::from_vec(vec![1, -1, 3, 1, 1, 0, 2, 2, 0, 0, 0, 0], [4, 3]).unwrap();
    assert!(err(&lp, &neg, &il, &tl, 0).contains("index -1"));
    // Padding past the lengths is not read: -1 there is fine.
    let mut padded = t.to_vec();
    padded[5] = -1;
    let padded = Tensor::<i64>::from_vec(padded, [4, 3]).unwrap();
    assert!(ctc_loss(&lp, &padded, &il, &tl, 0, Reduction::Sum, true).is_ok());
    let flat = t.try_reshape([12]).unwrap();
    assert!(err(&lp, &flat.narrow(0, 0, 5).unwrap(), &il, &tl, 0).contains("add up to more"));
    assert!(
        err(
            &lp.select(0, 0).unwrap().select(0, 0).unwrap(),
            &t,
            &il,
            &tl,
            0
        )
        .contains("(T, N, C)")
    );
    assert!(err(&lp, &t.try_reshape([2, 6]).unwrap(), &il, &tl, 0).contains("padded"));
    assert!(err(&lp, &t, &il, &[usize::MAX, usize::MAX, 1, 1], 0).contains("target_lengths[0]"));
    // An empty batch over 2^39 frames (found by the fuzzer: the recursion stepped through them).
    let empty = Tensor::<f64>::zeros([1 << 39, 0, 2]).unwrap();
    let none = Tensor::<i64>::zeros([0]).unwrap();
    let l = ctc_loss(&empty, &none, &[], &[], 0, Reduction::None, false).unwrap();
    assert_eq!(l.dims(), [0]);
    let flat_huge = ctc_loss(
        &lp,
        &flat,
        &il,
        &[usize::MAX, 2, 1, 1],
        0,
        Reduction::Sum,
        false,
    );
    assert!(
        flat_huge
            .unwrap_err()
            .to_string()
            .contains("add up to more")
    );
}

/// `f(i)` at each flat position `i` of `shape`.
fn seq<D: Backend>(shape: &[usize], f: impl Fn(f64) -> f64, dev: &D) -> Tensor<f64, D> {
    let n = shape.iter().product::<usize>();
    Tensor::from_vec_on((0..n).map(|i| f(i as f64)).collect(), shape, dev).unwrap()
}

/// Shape, sum, sum of squares and `Σ i·y_i / numel`, as the reference script prints them.
fn stats<D: Backend>(y: &Tensor<f64, D>) -> (Vec<usize>, [f64; 3]) {
    let v = y.try_to_vec().unwrap();
    let weighted = v.iter().enumerate().map(|(i, x)| i as f64 * x).sum::<f64>() / v.len() as f64;
    let sums = [v.iter().sum(), v.iter().map(|x| x * x).sum(), weighted];
    (y.dims().to_vec(), sums)
}

#[test]
fn volume_transposes_match_pytorch() {
    on_every_device!("volume_transposes", |dev| {
        let wave = |i: f64| (0.37 * i + 0.1).sin();
        let x = seq(&[2, 4, 3, 4, 3], wave, &dev);
        let w = seq(&[4, 3, 2, 3, 2], |i| (0.53 * i).cos(), &dev);
        let b = Tensor::<f64, _>::from_vec_on(vec![0.1, -0.2, 0.3], [3], &dev).unwrap();
        let opts = Conv3dOptions {
            stride: (2, 1, 2),
            padding: (1, 0, 1),
            dilation: (1, 2, 1),
            groups: 1,
        };
        let (shape, sums) =
            stats(&nn::conv_transpose3d(&x, &w, Some(&b), opts, (1, 0, 0)).unwrap());
        assert_eq!(shape, [2, 3, 5, 8, 4]);
        assert_close(
            &sums,
            &[62.24586007277058, 2015.1348565399544, 50.75648018987836],
            1e-13,
        );
        // Two groups.
        let x = seq(&[1, 4, 2, 3, 3], wave, &dev);
        let w = seq(&[4, 1, 3, 2, 2], |i| (0.53 * i).cos(), &dev);
        let opts = Conv3dOptions {
            stride: (1, 2, 1),
            padding: (0, 1, 0),
            groups: 2,
            ..Default::default()
        };
        let (shape, sums) = stats(&nn::conv_transpose3d(&x, &w, None, opts, (0, 1, 0)).unwrap());
        assert_eq!(shape, [1, 2, 4, 5, 4]);
        assert_close(
            &sums,
            &[0.39027916661362916, 732.4723030922378, -0.29299809741548694],
            1e-12,
        );
        // Pooling with many ties (values in thirds), then back.
        let x = seq(
            &[2, 3, 5, 6, 7],
            |i| ((0.37 * i).sin() * 3.0).round() / 3.0,
            &dev,
        );
        let (v, at) = nn::max_pool3d_with_indices(&x, (2, 3, 2), (2, 2, 1), (1, 1, 0)).unwrap();
        let (shape, sums) = stats(&v);
        assert_eq!(shape, [2, 3, 3, 3, 6]);
        assert_close(
            &sums,
            &[288.0, 268.8888888888889, 144.80555555555554],
            1e-14,
        );
        let (shape, sums) = stats(&at.try_cast::<f64>().unwrap());
        assert_eq!(shape, [2, 3, 3, 3, 6]);
        assert_close(&sums, &[26435.0, 3310775.0, 14058.274691358025], 1e-15);
        let plain = nn::max_pool3d(&x, (2, 3, 2), (2, 2, 1), (1, 1, 0)).unwrap();
        assert_eq!(v.try_to_vec().unwrap(), plain.try_to_vec().unwrap());
        let (v, at) = nn::adaptive_max_pool3d_with_indices(&x, (3, 4, 2)).unwrap();
        let (shape, sums) = stats(&v);
        assert_eq!(shape, [2, 3, 3, 4, 2]);
        assert_close(
            &sums,
            &[139.66666666666666, 136.77777777777777, 69.125],
            1e-14,
        );
        let (_, sums) = stats(&at.try_cast::<f64>().unwrap());
        assert_close(&sums, &[12548.0, 1564822.0, 6668.5], 1e-15);
        let plain = nn::adaptive_max_pool3d(&x, (3, 4, 2)).unwrap();
        assert_eq!(plain.try_to_vec().unwrap(), v.try_to_vec().unwrap());
        let y = seq(&[1, 2, 4, 5, 6], |i| (0.37 * i + 0.1).sin() + 1.5, &dev);
        let (shape, sums) = stats(&nn::lp_pool3d(&y, 2.0, (2, 3, 2), (2, 1, 2)).unwrap());
        assert_eq!(shape, [1, 2, 2, 3, 3]);
        assert_close(
            &sums,
            &[206.7636961924053, 1188.0114045955834, 100.56745667076285],
            1e-13,
        );
        let (shape, sums) = stats(&nn::lp_pool3d(&y, 3.0, (1, 2, 3), (1, 2, 3)).unwrap());
        assert_eq!(shape, [1, 2, 4, 2, 2]);
        assert_close(
            &sums,
            &[99.82029466181297, 321.7290268478305, 47.549884002132096],
            1e-13,
        );
        let (v, at) = nn::max_pool3d_with_indices(&x, (2, 3, 2), (2, 2, 1), (1, 1, 0)).unwrap();
        let (shape, sums) = stats(&nn::max_unpool3d(&v, &at, (5, 6, 7)).unwrap());
        assert_eq!(shape, [2, 3, 5, 6, 7]);
        assert_close(
            &sums,
            &[214.66666666666663, 196.44444444444449, 104.6973544973545],
            1e-13,
        );
    });
    let x = seq(&[1, 2, 2, 3, 2], |i| (0.37 * i + 0.1).sin(), &Cpu);
    let w = seq(&[2, 2, 2, 2, 1], |i| (0.53 * i).cos(), &Cpu);
    let opts = Conv3dOptions {
        stride: (2, 1, 2),
        padding: (0, 1, 0),
        ..Default::default()
    };
    check_grad(
        "conv_transpose3d",
        &|v| nn::conv_transpose3d(&v[0], &v[1], None, opts, (1, 0, 0)),
        &[x.clone(), w],
    );
    // Distinct values: the gradient of the gathered maxima is exact, overlapping windows
    // included; unpooling's (PyTorch's gather rule) on windows that do not overlap.
    let pool = |v: &[Tensor<f64>]| {
        Ok(nn::max_pool3d_with_indices(&v[0], (2, 2, 2), (1, 2, 1), (1, 0, 1))?.0)
    };
    check_grad("max_pool3d_with_indices", &pool, &[x.clone()]);
    let unpool = |v: &[Tensor<f64>]| {
        let (y, at) = nn::max_pool3d_with_indices(&v[0], (2, 1, 2), (2, 1, 2), (0, 0, 0))?;
        nn::max_unpool3d(&y.try_mul_scalar(2.0)?, &at, (2, 3, 2))
    };
    check_grad("max_unpool3d", &unpool, &[x.clone()]);
    let adaptive = |v: &[Tensor<f64>]| nn::adaptive_max_pool3d(&v[0], (2, 2, 1));
    check_grad("adaptive_max_pool3d", &adaptive, &[x.clone()]);
    let lp =
        |v: &[Tensor<f64>]| nn::lp_pool3d(&v[0].try_add_scalar(2.0)?, 2.0, (1, 2, 2), (1, 1, 1));
    check_grad("lp_pool3d", &lp, &[x]);
}

#[test]
fn volume_transposes_reject_bad_arguments() {
    let x = seq(&[1, 2, 2, 3, 2], |i| i, &Cpu);
    let w = seq(&[2, 2, 2, 2, 1], |i| i, &Cpu);
    let err = |r: Result<Tensor<f64>>| r.unwrap_err().to_string();
    let o = Conv3dOptions::default();
    assert!(
        err(nn::conv_transpose3d(
            &x.select(0, 0).unwrap(),
            &w,
            None,
            o,
            (0, 0, 0)
        ))
        .starts_with("conv_transpose3d: input")
    );
    assert!(err(nn::conv_transpose3d(&x, &w, None, o, (1, 0, 0))).contains("output_padding"));
    let zero = Conv3dOptions {
        stride: (1, 0, 1),
        ..o
    };
    assert!(err(nn::conv_transpose3d(&x, &w, None, zero, (0, 0, 0))).contains("stride"));
    let bias = Tensor::<f64>::zeros([3]).unwrap();
    assert!(
        err(nn::conv_transpose3d(&x, &w, Some(&bias), o, (0, 0, 0)))
            .starts_with("conv_transpose3d")
    );
    let crop = Conv3dOptions {
        padding: (5, 0, 0),
        ..o
    };
    assert!(err(nn::conv_transpose3d(&x, &w, None, crop, (0, 0, 0))).contains("less padding"));
    let pool = nn::max_pool3d_with_indices(&x, (2, 2, 2), (1, 1, 1), (2, 0, 0));
    assert!(
        pool.unwrap_err()
            .to_string()
            .starts_with("max_pool3d_with_indices")
    );
    let pool =
        nn::max_pool3d_with_indices(&x.select(0, 0).unwrap(), (1, 1, 1), (1, 1, 1), (0, 0, 0));
    assert!(pool.unwrap_err().to_string().contains("(N, C, D, H, W)"));
    let (v, at) = nn::max_pool3d_with_indices(&x, (1, 1, 1), (1, 1, 1), (0, 0, 0)).unwrap();
    let e = err(nn::max_unpool3d(&v, &at, (2, 3, 1)));
    assert!(e.starts_with("max_unpool3d: index 11"), "{e}");
    assert!(
        err(nn::max_unpool3d(
            &v,
            &at.narrow(2, 0, 1).unwrap(),
            (2, 3, 2)
        ))
        .contains("indices' shape")
    );
    assert!(err(nn::max_unpool3d(&v, &at, (usize::MAX, 2, usize::MAX))).contains("max_unpool3d"));
    let e = nn::adaptive_max_pool3d(&x, (0, 1, 1))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("adaptive_max_pool3d"), "{e}");
    let e = nn::lp_pool3d(&x, 2.0, (3, 1, 1), (1, 1, 1))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("lp_pool3d"), "{e}");
    // Empty batches keep their shapes, even with huge volumes.
    let empty = Tensor::<f64>::zeros([0, 2, 1 << 30, 1 << 30, 4]).unwrap();
    let (v, at) = nn::max_pool3d_with_indices(&empty, (1, 2, 2), (1, 2, 2), (0, 0, 0)).unwrap();
    assert_eq!(
        (v.dims(), at.dims()),
        (
            [0, 2, 1 << 30, 1 << 29, 2].as_slice(),
            [0, 2, 1 << 30, 1 << 29, 2].as_slice()
        )
    );
}

/// `cross_entropy_with`, `nll_loss_with` and `cross_entropy_probs` on `dev` against PyTorch
/// 2.15 (`torch.nn.functional`, float64): values and gradients of the summed loss.
fn class_losses_on<D: Backend>(dev: &D) {
    use nn::{ClassLossOptions, cross_entropy_probs, cross_entropy_with, nll_loss_with};
    let l = [
        0.3, -1.2, 2.0, 0.7, 1.1, 0.0, -0.4, 0.9, -2.0, 0.5, 1.5, -0.3,
    ];
    let w = Tensor::<f64, D>::from_vec_on(vec![0.5, 1.0, 2.0, 0.25], [4], dev).unwrap();
    let i64s = |v: &[i64], d: &[usize]| {
        Tensor::<i64, D>::from_vec_on(v.to_vec(), d.to_vec(), dev).unwrap()
    };
    let t = i64s(&[1, -100, 3], &[3]);
    let opts = ClassLossOptions::<f64, D>::default;
    let weighted = ClassLossOptions {
        weight: Some(&w),
        ..opts()
    };
    let smoothed = ClassLossOptions {
        label_smoothing: 0.2,
        ..weighted
    };
    type Loss<'a, D> = Box<dyn Fn(&Tensor<f64, D>) -> Result<Tensor<f64, D>> + 'a>;
    let cases: Vec<(&str, Loss<D>, Vec<f64>, Vec<f64>)> = vec![
        (
            "ignored -100",
            Box::new(|x| cross_entropy_with(x, &t, opts())),
            vec![2.924813627623361],
            vec![
                0.06105824502050898,
                -0.4863760640101918,
                0.3342296210734554,
                0.0910881979162274,
                0.0,
                0.0,
                0.0,
                0.0,
                0.00965774994928719,
                0.1176554804311755,
                0.31982075447468317,
                -0.4471339848551459,
            ],
        ),
        (
            "weighted mean",
            Box::new(|x| cross_entropy_with(x, &t, weighted)),
            vec![3.3315933630973844],
            vec![
                0.09769319203281437,
                -0.7782017024163069,
                0.5347673937175287,
                0.14574111666596384,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0038630999797148765,
                0.04706219217247021,
                0.12792830178987327,
                -0.17885359394205835,
            ],
        ),
        (
            "nll weighted",
            Box::new(|x| nll_loss_with(&x.try_log_softmax(1)?, &t, weighted)),
            vec![3.3315933630973844],
            vec![
                0.09769319203281437,
                -0.7782017024163069,
                0.5347673937175287,
                0.14574111666596384,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0038630999797148765,
                0.04706219217247021,
                0.12792830178987327,
                -0.17885359394205835,
            ],
        ),
        (
            "weighted, smoothed, mean",
            Box::new(|x| cross_entropy_with(x, &t, smoothed)),
            vec![3.0957187787649163],
            vec![
                0.0764720271324042,
                -0.658474181136103,
                0.44808280129605954,
                0.1339193527076393,
                0.0,
                0.0,
                0.0,
                0.0,
                -0.014012195031441941,
                0.03294639786732882,
                0.1182888677743036,
                -0.13722307061019046,
            ],
        ),
        (
            "weighted, smoothed, none",
            Box::new(|x| {
                cross_entropy_with(
                    x,
                    &t,
                    ClassLossOptions {
                        reduction: Reduction::None,
                        ..smoothed
                    },
                )
            }),
            vec![3.1764951052457326, 0.0, 0.6931533682104123],
            vec![
                0.09559003391550525,
                -0.8230927264201289,
                0.5601035016200744,
                0.1673991908845491,
                0.0,
                0.0,
                0.0,
                0.0,
                -0.01751524378930243,
                0.04118299733416103,
                0.14786108471787948,
                -0.17152883826273807,
            ],
        ),
        (
            "a class as ignore_index",
            Box::new(|x| {
                cross_entropy_with(
                    x,
                    &i64s(&[1, 1, 3], &[3]),
                    ClassLossOptions {
                        ignore_index: Some(1),
                        label_smoothing: 0.1,
                        ..opts()
                    },
                )
            }),
            vec![2.224347401833322],
            vec![
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                -0.00568450010142562,
                0.21031096086235102,
                0.6146415089493663,
                -0.8192679697102918,
            ],
        ),
        (
            "probabilities",
            Box::new(|x| {
                let p = Tensor::from_vec_on(
                    vec![
                        0.1, 0.2, 0.3, 0.4, 1.0, 0.0, 0.0, 0.0, 0.25, 0.25, 0.25, 0.25,
                    ],
                    [3, 4],
                    x.device_handle(),
                )?;
                cross_entropy_probs(
                    x,
                    &p,
                    ClassLossOptions {
                        label_smoothing: 0.1,
                        ..weighted
                    },
                )
            }),
            vec![1.0179876065723201],
            vec![
                0.019452673308805266,
                -0.05971619381977962,
                0.014733568662293868,
                0.025529951848680496,
                -0.07784226448792128,
                0.017072853132513707,
                0.00036360941470995706,
                0.06040580194069762,
                -0.03563057294836217,
                -0.009798658063848652,
                0.03322130488001029,
                0.01220792613220049,
            ],
        ),
        (
            "spatial",
            Box::new(|x| {
                let w3 = w.narrow(0, 0, 3)?;
                let o = ClassLossOptions {
                    weight: Some(&w3),
                    label_smoothing: 0.3,
                    ..opts()
                };
                cross_entropy_with(
                    &x.try_reshape([2, 3, 2])?,
                    &i64s(&[0, 2, -100, 1], &[2, 2]),
                    o,
                )
            }),
            vec![1.2983713624202056],
            vec![
                -0.09129585641842423,
                0.031144004385058814,
                0.09727384393740282,
                0.27516687500380405,
                -0.005977987518978595,
                -0.3063108793888628,
                0.0,
                0.1378815849314222,
                0.0,
                -0.12657063755507875,
                0.0,
                -0.011310947376343463,
            ],
        ),
        (
            "unbatched",
            Box::new(|x| {
                let o = ClassLossOptions {
                    label_smoothing: 0.5,
                    reduction: Reduction::None,
                    ..weighted
                };
                cross_entropy_with(&x.narrow(0, 0, 1)?.try_reshape([4])?, &i64s(&[2], &[]), o)
            }),
            vec![1.1384579097009313],
            vec![
                0.11685859474774513,
                -0.08497968802993833,
                -0.2682004880967248,
                0.23632158137891798,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
            ],
        ),
        // Nothing counted: NaN, and a zero gradient (PyTorch).
        (
            "all ignored",
            Box::new(|x| cross_entropy_with(x, &i64s(&[-100; 3], &[3]), opts())),
            vec![f64::NAN],
            vec![0.0; 12],
        ),
    ];
    for (name, f, value, grad) in cases {
        let x = Tensor::<f64, D>::from_vec_on(l.to_vec(), [3, 4], dev)
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        let y = f(&x).unwrap_or_else(|e| panic!("{name}: {e}"));
        let got = crate::common::host_f64s(&y);
        assert!(
            got.iter()
                .zip(&value)
                .all(|(g, v)| (g.is_nan() && v.is_nan()) || (g - v).abs() < 1e-12),
            "{name}: {got:?}, PyTorch {value:?}"
        );
        y.sum(&[], false).backward();
        assert_close(
            &crate::common::host_f64s(&x.grad_tensor().unwrap()),
            &grad,
            1e-12,
        );
    }
    // Refusals, each naming the op.
    let x = Tensor::<f64, D>::from_vec_on(l.to_vec(), [3, 4], dev).unwrap();
    let short = Tensor::<f64, D>::ones_on([3], dev).unwrap();
    let errs = [
        cross_entropy_with(
            &x,
            &t,
            ClassLossOptions {
                weight: Some(&short),
                ..opts()
            },
        ),
        cross_entropy_with(
            &x,
            &t,
            ClassLossOptions {
                label_smoothing: 1.5,
                ..opts()
            },
        ),
        cross_entropy_with(&x, &i64s(&[1, 4, 0], &[3]), opts()),
        cross_entropy_with(
            &x,
            &t,
            ClassLossOptions {
                ignore_index: None,
                ..opts()
            },
        ),
        nll_loss_with(
            &x,
            &t,
            ClassLossOptions {
                label_smoothing: 0.1,
                ..opts()
            },
        ),
        cross_entropy_probs(&x, &short, opts()),
    ];
    for e in errs {
        let e = e.unwrap_err().to_string();
        assert!(
            e.starts_with("cross_entropy") || e.starts_with("nll_loss"),
            "{e}"
        );
    }
}

/// `binary_cross_entropy_with_logits_weighted` on `dev` against PyTorch 2.15 (float64).
fn weighted_bce_on<D: Backend>(dev: &D) {
    use nn::binary_cross_entropy_with_logits_weighted as bce;
    let f = |v: &[f64], d: &[usize]| {
        Tensor::<f64, D>::from_vec_on(v.to_vec(), d.to_vec(), dev).unwrap()
    };
    let y = f(&[1.0, 0.0, 0.5, 0.0, 1.0, 1.0], &[2, 3]);
    let (w, pw) = (f(&[2.0, 0.5], &[2, 1]), f(&[3.0, 1.0, 0.25], &[3]));
    let cases = [
        (
            Some(&w),
            Reduction::Mean,
            vec![1.7427695170485664],
            vec![
                -0.425557483188341,
                0.07715840550032746,
                0.1418327245787255,
                0.05568231434734718,
                -0.020811657867073525,
                -0.020833333333331382,
            ],
        ),
        (
            Some(&w),
            Reduction::None,
            vec![
                3.326131466811163,
                0.5265649346760624,
                2.1586600138037157,
                0.551593024442729,
                0.1436676625577154,
                3.7500000000000115,
            ],
            vec![
                -2.553344899130046,
                0.46295043300196476,
                0.850996347472353,
                0.3340938860840831,
                -0.12486994720244116,
                -0.1249999999999883,
            ],
        ),
        (
            None,
            Reduction::Mean,
            vec![1.9826999302743973],
            vec![
                -0.2127787415941705,
                0.03857920275016373,
                0.07091636228936275,
                0.11136462869469436,
                -0.04162331573414705,
                -0.041666666666662765,
            ],
        ),
    ];
    for (weight, red, value, grad) in cases {
        let x = f(&[0.3, -1.2, 2.0, 0.7, 1.1, -30.0], &[2, 3])
            .with_requires_grad(true)
            .unwrap();
        let l = bce(&x, &y, weight, Some(&pw), red).unwrap();
        assert_close(&crate::common::host_f64s(&l), &value, 1e-12);
        l.sum(&[], false).backward();
        assert_close(
            &crate::common::host_f64s(&x.grad_tensor().unwrap()),
            &grad,
            1e-12,
        );
    }
    // Without weights it is the plain loss; a weight that widens the loss is refused.
    let x = f(&[0.3, -1.2, 2.0, 0.7, 1.1, -30.0], &[2, 3]);
    let plain = nn::binary_cross_entropy_with_logits(&x, &y, Reduction::None).unwrap();
    let same = bce(&x, &y, None, None, Reduction::None).unwrap();
    assert_eq!(
        crate::common::host_f64s(&same),
        crate::common::host_f64s(&plain)
    );
    let wide = f(&[1.0; 12], &[2, 2, 3]);
    let e = bce(&x, &y, Some(&wide), None, Reduction::Sum)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("binary_cross_entropy_with_logits"), "{e}");
}

/// `embedding_with` on `dev` against PyTorch 2.15 (`F.embedding`, float64): the padding
/// row's gradient, and `max_norm` rewriting the rows used in the weight.
fn embedding_options_on<D: Backend>(dev: &D) {
    use nn::{EmbeddingOptions, embedding_with};
    let f = |v: &[f64], d: &[usize]| {
        Tensor::<f64, D>::from_vec_on(v.to_vec(), d.to_vec(), dev).unwrap()
    };
    let host = crate::common::host_f64s;
    let w0 = [3.0, 4.0, 0.3, 0.4, 1.0, -2.0, 6.0, 8.0];
    let ids = Tensor::<i64, D>::from_vec_on(vec![0, 2, 1, 2, 3, 0], [2, 3], dev).unwrap();
    let w = f(&w0, &[4, 2]).with_requires_grad(true).unwrap();
    let o = EmbeddingOptions {
        padding_idx: Some(2),
        max_norm: Some(2.0),
        ..Default::default()
    };
    let y = embedding_with(&ids, &w, o).unwrap();
    let c = f(&(0..12).map(f64::from).collect::<Vec<_>>(), &[2, 3, 2]);
    y.mul(&c).sum(&[], false).backward();
    let r0 = [1.1999999760000004, 1.5999999680000005];
    let r2 = [0.8944271509999177, -1.7888543019998353];
    let r3 = [1.1999999880000003, 1.5999999840000003];
    let want_y: Vec<f64> = [r0, r2, [0.3, 0.4], r2, r3, r0].concat();
    assert_close(&host(&y), &want_y, 1e-12);
    assert_close(&host(&w), &[r0, [0.3, 0.4], r2, r3].concat(), 1e-12);
    assert_close(
        &host(&w.grad_tensor().unwrap()),
        &[10.0, 12.0, 4.0, 5.0, 0.0, 0.0, 8.0, 9.0],
        1e-12,
    );
    // padding_idx -1 is the last row; the L1 norm.
    let w = f(&w0, &[4, 2]).with_requires_grad(true).unwrap();
    let o = EmbeddingOptions {
        padding_idx: Some(-1),
        max_norm: Some(1.5),
        norm_type: 1.0,
    };
    let y = embedding_with(&ids, &w, o).unwrap();
    y.sum(&[], false).backward();
    let want = [
        0.6428571336734695,
        0.8571428448979593,
        0.4999999833333339,
        -0.9999999666666678,
        0.3,
        0.4,
        0.4999999833333339,
        -0.9999999666666678,
        0.6428571382653061,
        0.8571428510204082,
        0.6428571336734695,
        0.8571428448979593,
    ];
    assert_close(&host(&y), &want, 1e-12);
    assert_close(
        &host(&w.grad_tensor().unwrap()),
        &[2.0, 2.0, 1.0, 1.0, 2.0, 2.0, 0.0, 0.0],
        1e-12,
    );
    // Refusals, nothing written.
    let w = f(&w0, &[4, 2]);
    for o in [
        EmbeddingOptions {
            padding_idx: Some(4),
            ..Default::default()
        },
        EmbeddingOptions {
            padding_idx: Some(-5),
            ..Default::default()
        },
        EmbeddingOptions {
            padding_idx: Some(i64::MIN),
            ..Default::default()
        },
        EmbeddingOptions {
            max_norm: Some(f64::NAN),
            ..Default::default()
        },
    ] {
        let e = embedding_with(&ids, &w, o).unwrap_err().to_string();
        assert!(e.starts_with("embedding"), "{e}");
    }
    let bad = Tensor::<i64, D>::from_vec_on(vec![4], [1], dev).unwrap();
    let o = EmbeddingOptions {
        max_norm: Some(1.0),
        ..Default::default()
    };
    assert!(embedding_with(&bad, &w, o).is_err());
    assert_eq!(host(&w), w0);
}

#[test]
fn embedding_options_match_pytorch() {
    crate::on_every_device!("embedding options", |dev| { embedding_options_on(&dev) });
}

/// `kl_div_batchmean` on `dev` against PyTorch 2.15 (`reduction="batchmean"`, float64).
fn kl_batchmean_on<D: Backend>(dev: &D) {
    let f = |v: &[f64], d: &[usize]| {
        Tensor::<f64, D>::from_vec_on(v.to_vec(), d.to_vec(), dev).unwrap()
    };
    let host = crate::common::host_f64s;
    let x0 = [-0.3, -1.5, -2.0, -0.1, -3.0, -0.7];
    let cases = [
        (
            vec![0.2, 0.0, 0.8, 0.5, 0.25, 0.25],
            false,
            0.5474384028109471,
            vec![-0.1, -0.0, -0.4, -0.25, -0.125, -0.125],
        ),
        (
            vec![
                0.2f64.ln(),
                0.1f64.ln(),
                0.7f64.ln(),
                0.5f64.ln(),
                0.25f64.ln(),
                0.25f64.ln(),
            ],
            true,
            0.3717303383083723,
            vec![-0.1, -0.05, -0.35, -0.25, -0.125, -0.125],
        ),
    ];
    for (t, log_target, value, grad) in cases {
        let x = f(&x0, &[2, 3]).with_requires_grad(true).unwrap();
        let l = nn::kl_div_batchmean(&x, &f(&t, &[2, 3]), log_target).unwrap();
        assert_close(&host(&l), &[value], 1e-12);
        l.backward();
        assert_close(&host(&x.grad_tensor().unwrap()), &grad, 1e-12);
    }
    // A 0-d input is not divided.
    let l = nn::kl_div_batchmean(&f(&[-0.5], &[]), &f(&[0.3], &[]), false).unwrap();
    assert_close(&host(&l), &[0.3 * (0.3f64.ln() + 0.5)], 1e-12);
}

#[test]
fn kl_div_batchmean_matches_pytorch() {
    crate::on_every_device!("kl_div batchmean", |dev| { kl_batchmean_on(&dev) });
}

#[test]
fn weighted_bce_matches_pytorch() {
    crate::on_every_device!("weighted bce", |dev| { weighted_bce_on(&dev) });
}

#[test]
fn class_losses_with_options_match_pytorch() {
    crate::on_every_device!("class losses", |dev| { class_losses_on(&dev) });
}
