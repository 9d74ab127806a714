//! `ctc_loss` against PyTorch 2.15 (`F.ctc_loss`) on every device, its gradient by
//! `gradcheck` and against PyTorch's, and its argument errors.

use crate::common::{assert_close, check_grad};
use typed_tensor::nn::{Reduction, ctc_loss};
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
