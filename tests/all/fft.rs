//! `typed_tensor::fft` on every device against NumPy 2.4's `numpy.fft` and PyTorch 2.15's
//! `stft`/`istft` (the constants at the end), a direct O(n²) DFT in f64 for many lengths
//! (primes through Bluestein's algorithm included), every float dtype, strided and broadcast
//! inputs, NaN, empty batches, gradients of every order, and the refusals.

use crate::common::{assert_close, check_grad, host_f64s, tol};
use typed_tensor::fft::{self, ComplexTensor, Norm, Stft};
use typed_tensor::ops::pad::PadMode;
use typed_tensor::prelude::*;

/// The complex tensor of interleaved (re, im) values `v` with complex shape `dims`.
fn complex<D: Backend>(v: &[f64], dims: &[usize], dev: &D) -> ComplexTensor<f64, D> {
    let mut shape = dims.to_vec();
    shape.push(2);
    let t = Tensor::<f64, _>::from_vec_on(v.to_vec(), shape, dev).unwrap();
    ComplexTensor::from_pairs(&t).unwrap()
}

fn real<D: Backend>(v: &[f64], dims: &[usize], dev: &D) -> Tensor<f64, D> {
    Tensor::<f64, _>::from_vec_on(v.to_vec(), dims.to_vec(), dev).unwrap()
}

#[track_caller]
fn same<D: Backend>(got: &ComplexTensor<f64, D>, dims: &[usize], want: &[f64]) {
    assert_eq!(got.dims(), dims);
    assert_close(&host_f64s(got.pairs()), want, 1e-12);
}

#[test]
fn fft_matches_numpy() {
    on_every_device!("fft_numpy", |dev| {
        let (x, z, zh) = (
            real(X, &[7], &dev),
            complex(Z, &[6], &dev),
            complex(ZH, &[4], &dev),
        );
        same(
            &fft::fft(&z, None, -1, Norm::Backward).unwrap(),
            &[6],
            FFT_Z,
        );
        same(
            &fft::fft(&z, Some(4), 0, Norm::Backward).unwrap(),
            &[4],
            FFT_Z_N4,
        );
        same(
            &fft::fft(&z, Some(9), 0, Norm::Ortho).unwrap(),
            &[9],
            FFT_Z_N9_ORTHO,
        );
        same(
            &fft::ifft(&z, None, 0, Norm::Forward).unwrap(),
            &[6],
            IFFT_Z_FORWARD,
        );
        same(
            &fft::ifft(&z, None, 0, Norm::default()).unwrap(),
            &[6],
            IFFT_Z,
        );
        same(
            &fft::rfft(&x, None, 0, Norm::Backward).unwrap(),
            &[4],
            RFFT_X,
        );
        same(
            &fft::rfft(&x, Some(10), 0, Norm::Backward).unwrap(),
            &[6],
            RFFT_X_N10,
        );
        same(
            &fft::ihfft(&x, None, 0, Norm::Backward).unwrap(),
            &[4],
            IHFFT_X,
        );
        let reals = |t: Tensor<f64, _>, n: usize, want: &[f64]| {
            assert_eq!(t.dims(), [n]);
            assert_close(&host_f64s(&t), want, 1e-12);
        };
        reals(
            fft::irfft(&zh, None, 0, Norm::Backward).unwrap(),
            6,
            IRFFT_ZH,
        );
        reals(
            fft::irfft(&zh, Some(7), 0, Norm::Backward).unwrap(),
            7,
            IRFFT_ZH_N7,
        );
        reals(
            fft::irfft(&zh, Some(3), 0, Norm::Ortho).unwrap(),
            3,
            IRFFT_ZH_N3_ORTHO,
        );
        reals(fft::hfft(&zh, None, 0, Norm::Backward).unwrap(), 6, HFFT_ZH);
        reals(
            fft::hfft(&zh, Some(5), 0, Norm::Forward).unwrap(),
            5,
            HFFT_ZH_N5_FORWARD,
        );
        // n-d transforms.
        let m = complex(M, &[3, 4], &dev);
        same(
            &fft::fft2(&m, None, None, Norm::Backward).unwrap(),
            &[3, 4],
            FFT2_M,
        );
        let s = fft::ifftn(&m, Some(&[2, 5]), None, Norm::Ortho).unwrap();
        same(&s, &[2, 5], IFFTN_M_S25_ORTHO);
        let r = real(R, &[2, 3, 4], &dev);
        let spec = fft::rfftn(&r, None, None, Norm::Backward).unwrap();
        same(&spec, &[2, 3, 3], RFFTN_R);
        same(
            &fft::rfftn(&r, Some(&[3, 5]), None, Norm::Backward).unwrap(),
            &[2, 3, 3],
            RFFTN_R_S35,
        );
        let axes = fft::rfftn(&r, None, Some(&[0, 2]), Norm::Backward).unwrap();
        same(&axes, &[2, 3, 3], RFFT2_R_AXES02);
        let back = fft::irfftn(&spec, Some(&[2, 3, 4]), None, Norm::Backward).unwrap();
        assert_close(&host_f64s(&back), IRFFTN_SPEC, 1e-12);
        assert_close(&host_f64s(&back), R, 1e-12);
        let back = fft::irfft2(&spec, Some(&[3, 6]), None, Norm::Backward).unwrap();
        assert_eq!(back.dims(), [2, 3, 6]);
        assert_close(&host_f64s(&back), IRFFT2_SPEC_S36, 1e-12);
        // Frequencies and shifts.
        let f = fft::fftfreq_on::<f64, _>(5, 0.1, &dev).unwrap();
        assert_close(&host_f64s(&f), FFTFREQ5, 1e-15);
        assert_close(
            &host_f64s(&fft::fftfreq_on::<f64, _>(6, 1.0, &dev).unwrap()),
            FFTFREQ6,
            1e-15,
        );
        let f = fft::rfftfreq_on::<f32, _>(6, 0.5, &dev).unwrap();
        assert_close(&host_f64s(&f), RFFTFREQ6, 1e-7);
        assert_close(
            &host_f64s(&fft::rfftfreq_on::<f64, _>(7, 1.0, &dev).unwrap()),
            RFFTFREQ7,
            1e-15,
        );
        assert_eq!(fft::fftfreq_on::<f64, _>(0, 1.0, &dev).unwrap().dims(), [0]);
        let a = Tensor::<i64, _>::arange_on(0, 10, 1, &dev)
            .unwrap()
            .try_reshape([2, 5])
            .unwrap();
        let shifted = |t: Tensor<i64, _>| t.try_to_vec().unwrap();
        assert_eq!(
            shifted(fft::fftshift(&a, None).unwrap()),
            [8, 9, 5, 6, 7, 3, 4, 0, 1, 2]
        );
        assert_eq!(
            shifted(fft::ifftshift(&a, None).unwrap()),
            [7, 8, 9, 5, 6, 2, 3, 4, 0, 1]
        );
        assert_eq!(
            shifted(fft::fftshift(&a, Some(&[1])).unwrap()),
            [3, 4, 0, 1, 2, 8, 9, 5, 6, 7]
        );
        // A spectrum's shift never touches the pairs: (re, im) of [0, 1, 2] → [2, 0, 1].
        let c = complex(&[0.0, 10.0, 1.0, 11.0, 2.0, 12.0], &[3], &dev);
        assert_eq!(
            host_f64s(c.fftshift(None).unwrap().pairs()),
            [2.0, 12.0, 0.0, 10.0, 1.0, 11.0]
        );
        assert_eq!(
            host_f64s(c.fftshift(None).unwrap().ifftshift(None).unwrap().pairs()),
            host_f64s(c.pairs())
        );
    });
}

/// `Σ_j z_j e^{∓2πijk/n}` in f64, the direct way.
fn naive(z: &[f64], inverse: bool) -> Vec<f64> {
    let n = z.len() / 2;
    let sign = if inverse { 1.0 } else { -1.0 };
    let mut out = vec![0.0; 2 * n];
    for k in 0..n {
        let (mut re, mut im) = (0.0, 0.0);
        for j in 0..n {
            let t = sign * std::f64::consts::TAU * ((j * k) % n) as f64 / n as f64;
            let (s, c) = t.sin_cos();
            re += z[2 * j] * c - z[2 * j + 1] * s;
            im += z[2 * j] * s + z[2 * j + 1] * c;
        }
        out[2 * k] = re;
        out[2 * k + 1] = im;
    }
    out
}

fn pseudo_random(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        })
        .collect()
}

#[test]
fn fft_matches_a_direct_dft_for_every_length() {
    on_every_device!("fft_direct", |dev| {
        for n in (1..=18).chain([31, 64, 97, 128, 243, 250]) {
            let v = pseudo_random(2 * n, n as u64);
            let z = complex(&v, &[n], &dev);
            let scale = |w: Vec<f64>, s: f64| w.into_iter().map(|e| e * s).collect::<Vec<_>>();
            let tol = 1e-12 * n as f64;
            let got = fft::fft(&z, None, 0, Norm::Backward).unwrap();
            assert_close(&host_f64s(got.pairs()), &naive(&v, false), tol);
            let got = fft::fft(&z, None, 0, Norm::Ortho).unwrap();
            assert_close(
                &host_f64s(got.pairs()),
                &scale(naive(&v, false), 1.0 / (n as f64).sqrt()),
                tol,
            );
            let got = fft::ifft(&z, None, 0, Norm::Backward).unwrap();
            assert_close(
                &host_f64s(got.pairs()),
                &scale(naive(&v, true), 1.0 / n as f64),
                tol,
            );
            let round = fft::ifft(
                &fft::fft(&z, None, 0, Norm::Forward).unwrap(),
                None,
                0,
                Norm::Forward,
            )
            .unwrap();
            assert_close(&host_f64s(round.pairs()), &v, tol);
            // A real signal: rfft is the first n/2 + 1 bins, irfft brings it back.
            let x = real(&v[..n], &[n], &dev);
            let full = naive(
                &v[..n].iter().flat_map(|&e| [e, 0.0]).collect::<Vec<_>>(),
                false,
            );
            let half = fft::rfft(&x, None, 0, Norm::Backward).unwrap();
            assert_close(&host_f64s(half.pairs()), &full[..2 * (n / 2 + 1)], tol);
            let back = fft::irfft(&half, Some(n), 0, Norm::Backward).unwrap();
            assert_close(&host_f64s(&back), &v[..n], tol);
        }
    });
}

/// The transform of a 3-d batch along each axis, from contiguous, transposed, sliced and
/// broadcast inputs, in every float dtype, against the f64 direct DFT of each line.
fn layouts<T: FloatElement, D: Backend>(dev: &D) {
    let v = pseudo_random(4 * 5 * 6 * 2, 7);
    let base = Tensor::<f64, _>::from_vec_on(v, [4, 5, 6, 2], dev).unwrap();
    let inputs = [
        base.clone(),
        base.permute(&[2, 0, 1, 3]).unwrap(),
        base.narrow(1, 1, 3).unwrap().flip(&[0]).unwrap(),
        base.narrow(0, 0, 1).unwrap().expand([3, 5, 6, 2]).unwrap(),
    ];
    for input in inputs {
        let host: Tensor<f64> = input.to_device(&Cpu).unwrap();
        let z = ComplexTensor::from_pairs(&input.try_cast::<T>().unwrap()).unwrap();
        for ax in 0..3 {
            let got = fft::fft(&z, None, ax as i64, Norm::Backward).unwrap();
            assert_eq!(got.dims(), &host.dims()[..3]);
            let got = host_f64s(
                &got.pairs()
                    .movedim(&[ax as i64], &[2])
                    .unwrap()
                    .try_contiguous()
                    .unwrap(),
            );
            let lines = host
                .movedim(&[ax as i64], &[2])
                .unwrap()
                .try_contiguous()
                .unwrap()
                .to_vec();
            let n = host.dims()[ax];
            // Each element rounds to T on the way in and out: error ~ ulp·√n·max.
            let want: Vec<f64> = lines.chunks(2 * n).flat_map(|l| naive(l, false)).collect();
            let rounded: Vec<f64> = (lines.chunks(2 * n))
                .flat_map(|l| {
                    naive(
                        &l.iter()
                            .map(|&e| T::from_f64(e).to_f64())
                            .collect::<Vec<_>>(),
                        false,
                    )
                })
                .collect();
            assert_close(&got, &rounded, 4.0 * tol(T::DTYPE) * n as f64);
            assert_close(&got, &want, 8.0 * tol(T::DTYPE) * n as f64 + 1e-12);
        }
    }
}

#[test]
fn fft_every_dtype_and_layout() {
    on_every_device!("fft_layouts", |dev| {
        crate::for_types!(layouts(&dev): f64, f32, f16, bf16; _);
    });
}

#[test]
fn fft_edge_values_and_refusals() {
    on_every_device!("fft_edges", |dev| {
        // NaN reaches every bin; an empty batch gives an empty batch.
        let x = real(&[1.0, f64::NAN, 2.0, 3.0], &[4], &dev);
        let s = fft::rfft(&x, None, 0, Norm::Backward).unwrap();
        // Every bin has a NaN part (which part, as in NumPy, depends on the algorithm).
        let parts = host_f64s(s.pairs());
        assert!(
            parts.chunks(2).all(|p| p[0].is_nan() || p[1].is_nan()),
            "{parts:?}"
        );
        let e = Tensor::<f32, _>::zeros_on([0, 8], &dev).unwrap();
        assert_eq!(
            fft::rfft(&e, None, -1, Norm::Backward).unwrap().dims(),
            &[0, 5]
        );
        assert_eq!(
            fft::irfft(
                &fft::rfft(&e, None, -1, Norm::Backward).unwrap(),
                None,
                -1,
                Norm::Backward
            )
            .unwrap()
            .dims(),
            [0, 8]
        );
        // One point: the identity.
        let one = real(&[2.5], &[1], &dev);
        assert_eq!(
            host_f64s(fft::rfft(&one, None, 0, Norm::Backward).unwrap().pairs()),
            [2.5, 0.0]
        );
        let msg = |r: Result<ComplexTensor<f64, _>>| r.unwrap_err().to_string();
        let z = complex(Z, &[6], &dev);
        assert!(msg(fft::fft(&z, Some(0), 0, Norm::Backward)).contains("at least 1 point"));
        assert!(
            msg(fft::rfft(&real(&[], &[0], &dev), None, 0, Norm::Backward))
                .contains("at least 1 point")
        );
        assert!(msg(fft::fft(&z, None, 1, Norm::Backward)).contains("fft"));
        let scalar = ComplexTensor::from_pairs(&real(&[1.0, 2.0], &[2], &dev)).unwrap();
        assert!(fft::fft(&scalar, None, 0, Norm::Backward).is_err());
        assert!(fft::fftn(&scalar, None, None, Norm::Backward).is_ok()); // no axes: the input
        assert!(
            fft::rfftn(
                &Tensor::<f64, _>::scalar_on(1.0, &dev).unwrap(),
                None,
                None,
                Norm::Backward
            )
            .is_err()
        );
        let m = complex(M, &[3, 4], &dev);
        assert!(msg(fft::fftn(&m, None, Some(&[1, -1]), Norm::Backward)).contains("twice"));
        assert!(
            msg(fft::fftn(&m, Some(&[2]), Some(&[0, 1]), Norm::Backward))
                .contains("one size per dim")
        );
        assert!(msg(fft::fftn(&m, Some(&[2, 2, 2]), None, Norm::Backward)).contains("3 sizes"));
        // irfft of one bin needs n; n = 0 is refused.
        let one_bin = complex(&[1.0, 0.0], &[1], &dev);
        assert!(fft::irfft(&one_bin, None, 0, Norm::Backward).is_err());
        assert_eq!(
            host_f64s(&fft::irfft(&one_bin, Some(1), 0, Norm::Backward).unwrap()),
            [1.0]
        );
        assert!(fft::irfft(&one_bin, Some(0), 0, Norm::Backward).is_err());
        let bad = real(&[1.0, 2.0, 3.0], &[3], &dev);
        assert!(
            ComplexTensor::from_pairs(&bad)
                .unwrap_err()
                .to_string()
                .contains("length 2")
        );
        // Complex helpers.
        let c = ComplexTensor::new(
            &real(&[3.0, 0.0, -1.0], &[3], &dev),
            &real(&[4.0, 0.0, 0.0], &[1, 3], &dev),
        )
        .unwrap();
        assert_eq!(c.dims(), &[1, 3]);
        assert_close(&host_f64s(&c.abs().unwrap()), &[5.0, 0.0, 1.0], 1e-15);
        assert_close(
            &host_f64s(&c.angle().unwrap()),
            &[(4.0f64).atan2(3.0), 0.0, std::f64::consts::PI],
            1e-15,
        );
        let p = ComplexTensor::polar(
            &real(&[2.0], &[1], &dev),
            &real(&[std::f64::consts::FRAC_PI_2], &[1], &dev),
        )
        .unwrap();
        assert_close(&host_f64s(p.pairs()), &[0.0, 2.0], 1e-15);
        let q = c
            .try_mul(&p)
            .unwrap()
            .try_sub(&c)
            .unwrap()
            .try_add(&c)
            .unwrap();
        assert_close(
            &host_f64s(q.pairs()),
            &[-8.0, 6.0, 0.0, 0.0, 0.0, -2.0],
            1e-15,
        );
        assert_close(
            &host_f64s(c.try_mul_real(&real(&[2.0], &[1], &dev)).unwrap().pairs()),
            &[6.0, 8.0, 0.0, 0.0, -2.0, 0.0],
            1e-15,
        );
    });
}

#[test]
fn stft_and_istft_match_pytorch() {
    on_every_device!("fft_stft", |dev| {
        let sig = real(SIG, &[40], &dev);
        let w = Tensor::<f64, _>::hann_window_on(6, true, &dev).unwrap();
        let opts = Stft {
            hop_length: Some(3),
            win_length: Some(6),
            ..Stft::default()
        };
        let s = fft::stft(&sig, 8, Some(&w), &opts).unwrap();
        same(&s, &[5, 14], STFT);
        let y = fft::istft(&s, 8, Some(&w), &opts, Some(40)).unwrap();
        assert_close(&host_f64s(&y), SIG, 1e-12);
        assert_eq!(
            fft::istft(&s, 8, Some(&w), &opts, None).unwrap().dims(),
            [39]
        );
        // Batched, not centred, normalised, two-sided, rectangular window.
        let two = Stft {
            hop_length: Some(2),
            center: false,
            normalized: true,
            onesided: false,
            ..Stft::default()
        };
        let s2 = fft::stft(&sig.try_reshape([2, 20]).unwrap(), 8, None, &two).unwrap();
        same(&s2, &[2, 8, 7], STFT2);
        let y2 = fft::istft(&s2, 8, None, &two, None).unwrap();
        assert_eq!(y2.dims(), [2, 20]);
        assert_close(&host_f64s(&y2), SIG, 1e-12);
        // Past the frames: zeros; a spectrum of another signal (scaled).
        let hw = Tensor::<f64, _>::hamming_window_on(8, true, &dev).unwrap();
        let h = Stft {
            hop_length: Some(3),
            ..Stft::default()
        };
        let sh = fft::stft(&sig, 8, Some(&hw), &h).unwrap();
        let scaled = ComplexTensor::from_pairs(&sh.pairs().try_mul_scalar(1.5).unwrap()).unwrap();
        assert_close(
            &host_f64s(&fft::istft(&scaled, 8, Some(&hw), &h, Some(50)).unwrap()),
            ISTFT50,
            1e-12,
        );
        let first = ComplexTensor::from_pairs(&sh.pairs().narrow(1, 0, 5).unwrap()).unwrap();
        let nc = Stft { center: false, ..h };
        assert_close(
            &host_f64s(&fft::istft(&first, 8, Some(&hw), &nc, None).unwrap()),
            ISTFT_NOCENTER,
            1e-12,
        );
        // Other pads and f32.
        let s32 = fft::stft(
            &sig.try_cast::<f32>().unwrap(),
            8,
            Some(&w.try_cast::<f32>().unwrap()),
            &opts,
        )
        .unwrap();
        assert_close(&host_f64s(s32.pairs()), STFT, 1e-5);
        let c = Stft {
            pad_mode: PadMode::Replicate,
            ..opts
        };
        assert_eq!(fft::stft(&sig, 8, Some(&w), &c).unwrap().dims(), &[5, 14]);
        // Refusals.
        let err = |r: Result<ComplexTensor<f64, _>>| r.unwrap_err().to_string();
        assert!(err(fft::stft(&sig, 8, Some(&hw), &opts)).contains("win_length 6"));
        assert!(err(fft::stft(&sig, 0, None, &opts)).contains("n_fft > 0"));
        assert!(err(fft::stft(&sig, 2, None, &Stft::default())).contains("hop_length 0"));
        assert!(
            err(fft::stft(
                &sig,
                64,
                None,
                &Stft {
                    center: false,
                    ..opts
                }
            ))
            .contains("fewer than n_fft")
        );
        assert!(fft::stft(&sig.try_reshape([2, 2, 10]).unwrap(), 8, None, &opts).is_err());
        assert!(fft::istft(&s2, 8, None, &opts, None).is_err()); // 8 bins, not 5
        // A hop past the window leaves samples no frame covers: NOLA fails.
        let gap = Stft {
            hop_length: Some(10),
            center: false,
            ..Stft::default()
        };
        let sg = fft::stft(&sig, 8, None, &gap).unwrap();
        assert!(
            fft::istft(&sg, 8, None, &gap, None)
                .unwrap_err()
                .to_string()
                .contains("NOLA")
        );
        let wide = Stft {
            hop_length: Some(usize::MAX / 2),
            ..opts
        };
        assert!(fft::istft(&s, 8, Some(&w), &wide, None).is_err());
    });
}

#[test]
fn fft_gradients() {
    // The stft of PyTorch's loss: Σ |S|^1.5.
    let sig = real(SIG, &[40], &Cpu).with_requires_grad(true).unwrap();
    let w = Tensor::<f64>::hann_window(6, true).unwrap();
    let opts = Stft {
        hop_length: Some(3),
        win_length: Some(6),
        ..Stft::default()
    };
    let s = fft::stft(&sig, 8, Some(&w), &opts).unwrap();
    let loss = s
        .abs()
        .unwrap()
        .try_pow(1.5)
        .unwrap()
        .try_sum(&[], false)
        .unwrap();
    assert_close(&[loss.item()], &[STFT_LOSS], 1e-12);
    loss.backward();
    assert_close(&sig.grad().unwrap(), STFT_GRAD, 1e-11);
    // The window's gradient is the same whether the signal is in the graph (the windows
    // copied) or not (multiplied straight from their strided view).
    let window_grad = |signal: &Tensor<f64>| {
        let w = Tensor::<f64>::hann_window(6, true)
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        let s = fft::stft(signal, 8, Some(&w), &opts).unwrap();
        let loss = s.abs().unwrap().try_pow(1.5).unwrap();
        loss.try_sum(&[], false).unwrap().backward();
        w.grad().unwrap().to_vec()
    };
    // An empty signal's gradient is empty, whatever `n` (no weights of `n/2 + 1` bins).
    let empty = Tensor::<f64>::zeros([0, 2])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    let huge = Some(1usize << 62);
    let z = ComplexTensor::from_real(&empty).unwrap();
    let y = fft::hfft(&z, huge, 1, Norm::Backward).unwrap();
    let r = fft::rfft(&empty, huge, 1, Norm::Ortho).unwrap();
    let loss = y.try_sum(&[], false).unwrap();
    loss.try_add(&r.into_pairs().try_sum(&[], false).unwrap())
        .unwrap()
        .backward();
    assert_eq!(empty.grad_tensor().unwrap().dims(), [0, 2]);
    let detached = window_grad(&sig.detach());
    assert_close(&detached, &window_grad(&sig), 1e-13);
    // Every transform, its crops and pads, against central differences (first and second
    // order), with nonlinear losses so the second derivatives are not zero.
    let x = pseudo_random(12, 3);
    let weights = Tensor::<f64>::from_vec(pseudo_random(24, 4), [2, 6, 2]).unwrap();
    let cases: Vec<(&str, Box<dyn Fn(&Tensor<f64>) -> Result<Tensor<f64>>>)> = vec![
        (
            "fft",
            Box::new(|t: &Tensor<f64>| {
                Ok(fft::fft(
                    &ComplexTensor::from_pairs(&t.try_reshape([2, 3, 2])?)?,
                    Some(4),
                    1,
                    Norm::Ortho,
                )?
                .into_pairs())
            }),
        ),
        (
            "ifft",
            Box::new(|t: &Tensor<f64>| {
                Ok(fft::ifft(
                    &ComplexTensor::from_pairs(&t.try_reshape([6, 2])?)?,
                    Some(5),
                    0,
                    Norm::Backward,
                )?
                .into_pairs())
            }),
        ),
        (
            "rfft",
            Box::new(|t: &Tensor<f64>| {
                Ok(fft::rfft(&t.try_reshape([3, 4])?, Some(5), 1, Norm::Forward)?.into_pairs())
            }),
        ),
        (
            "irfft",
            Box::new(|t: &Tensor<f64>| {
                fft::irfft(
                    &ComplexTensor::from_pairs(&t.try_reshape([2, 3, 2])?)?,
                    Some(4),
                    1,
                    Norm::Backward,
                )
            }),
        ),
        (
            "irfft odd",
            Box::new(|t: &Tensor<f64>| {
                fft::irfft(
                    &ComplexTensor::from_pairs(&t.try_reshape([6, 2])?)?,
                    Some(9),
                    0,
                    Norm::Ortho,
                )
            }),
        ),
        (
            "hfft",
            Box::new(|t: &Tensor<f64>| {
                fft::hfft(
                    &ComplexTensor::from_pairs(&t.try_reshape([3, 2, 2])?)?,
                    None,
                    0,
                    Norm::Backward,
                )
            }),
        ),
        (
            "ihfft",
            Box::new(|t: &Tensor<f64>| Ok(fft::ihfft(t, None, 0, Norm::Backward)?.into_pairs())),
        ),
        (
            "fft2",
            Box::new(|t: &Tensor<f64>| {
                Ok(fft::fft2(
                    &ComplexTensor::from_pairs(&t.try_reshape([2, 3, 2])?)?,
                    Some(&[3, 2]),
                    None,
                    Norm::Backward,
                )?
                .into_pairs())
            }),
        ),
        (
            "rfftn",
            Box::new(|t: &Tensor<f64>| {
                Ok(fft::rfftn(&t.try_reshape([2, 2, 3])?, None, None, Norm::Ortho)?.into_pairs())
            }),
        ),
        (
            "irfftn",
            Box::new(|t: &Tensor<f64>| {
                fft::irfftn(
                    &ComplexTensor::from_pairs(&t.try_reshape([3, 2, 2])?)?,
                    Some(&[3, 3]),
                    None,
                    Norm::Backward,
                )
            }),
        ),
        (
            "abs",
            Box::new(|t: &Tensor<f64>| ComplexTensor::from_pairs(&t.try_reshape([6, 2])?)?.abs()),
        ),
    ];
    for (name, f) in &cases {
        let f = |v: &[Tensor<f64>]| -> Result<Tensor<f64>> {
            let y = f(&v[0])?;
            let w = weights.try_reshape([24])?.narrow(0, 0, y.numel().min(24))?;
            let y = y.try_reshape([y.numel()])?;
            let k = y.numel().min(24);
            // Σ w·y + Σ y³/3: the cubic gives second derivatives.
            let lin = y.narrow(0, 0, k)?.try_mul(&w)?.try_sum(&[], false)?;
            lin.try_add(
                &y.try_pow(3.0)?
                    .try_sum(&[], false)?
                    .try_mul_scalar(1.0 / 3.0)?,
            )
        };
        check_grad(name, &f, &[Tensor::from_vec(x.clone(), [12]).unwrap()]);
    }
    let stft_loss = |v: &[Tensor<f64>]| -> Result<Tensor<f64>> {
        let o = Stft {
            hop_length: Some(3),
            win_length: Some(6),
            ..Stft::default()
        };
        let s = fft::stft(&v[0], 8, Some(&v[1]), &o)?;
        let y = fft::istft(&s.try_mul(&s)?, 8, Some(&v[1]), &o, Some(20))?;
        y.try_sum(&[], false)
    };
    check_grad(
        "stft, istft",
        &stft_loss,
        &[
            Tensor::from_vec(pseudo_random(20, 9), [20]).unwrap(),
            Tensor::<f64>::hann_window(6, false)
                .unwrap()
                .try_add_scalar(0.5)
                .unwrap(),
        ],
    );
}

#[test]
fn fft_gradients_on_every_device_and_dtype() {
    on_every_device!("fft_grads", |dev| {
        let x = Tensor::<f32, _>::from_vec_on(
            pseudo_random(16, 5).iter().map(|&e| e as f32).collect(),
            [2, 8],
            &dev,
        )
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
        // The spectrum's energy, Parseval: Σ|X|² over the two-sided spectrum is n·Σx².
        let s = fft::fft(
            &ComplexTensor::from_real(&x).unwrap(),
            None,
            -1,
            Norm::Backward,
        )
        .unwrap();
        let e = s
            .pairs()
            .try_mul(s.pairs())
            .unwrap()
            .try_sum(&[], false)
            .unwrap();
        e.backward();
        let want: Vec<f64> = host_f64s(&x).iter().map(|v| 16.0 * v).collect();
        assert_close(&host_f64s(&x.grad_tensor().unwrap()), &want, 1e-5);
        let h = x
            .detach()
            .try_cast::<bf16>()
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        let e = fft::rfft(&h, None, -1, Norm::Ortho)
            .unwrap()
            .abs()
            .unwrap()
            .try_sum(&[], false)
            .unwrap();
        e.backward();
        assert_eq!(h.grad_tensor().unwrap().dims(), [2, 8]);
    });
}

#[test]
fn hermitian_nd_transforms_match_pytorch() {
    on_every_device!("fft_hfftn", |dev| {
        let z = complex(HFFT2_Z, &[2, 3], &dev);
        let y = fft::hfft2(&z, None, None, Norm::Backward).unwrap();
        assert_eq!(y.dims(), [2, 4]);
        assert_close(&host_f64s(&y), HFFT2, 1e-12);
        let y = fft::hfftn(&z, Some(&[3, 5]), None, Norm::Ortho).unwrap();
        assert_eq!(y.dims(), [3, 5]);
        assert_close(&host_f64s(&y), HFFTN_S, 1e-12);
        let x = real(IHFFT2_X, &[3, 4], &dev);
        let w = fft::ihfft2(&x, None, None, Norm::Backward).unwrap();
        same(&w, &[3, 3], IHFFT2);
        let w = fft::ihfftn(&x, None, Some(&[0]), Norm::Forward).unwrap();
        same(&w, &[2, 4], IHFFTN_F);
    });
}

#[test]
fn fft_hostile_sizes_are_errors() {
    let z = complex(Z, &[6], &Cpu);
    let x = real(X, &[7], &Cpu);
    for n in [1usize << 40, usize::MAX / 2, usize::MAX] {
        assert!(fft::fft(&z, Some(n), 0, Norm::Backward).is_err());
        assert!(fft::rfft(&x, Some(n), 0, Norm::Backward).is_err());
        assert!(fft::irfft(&z, Some(n), 0, Norm::Backward).is_err());
        assert!(fft::hfft(&z, Some(n), 0, Norm::Backward).is_err());
        assert!(fft::rfftn(&x, Some(&[n]), None, Norm::Backward).is_err());
        assert!(fft::fftfreq::<f32>(n, 1.0).is_err());
        assert!(fft::rfftfreq::<f64>(n, 1.0).is_err());
        assert!(fft::stft(&x, n, None, &Stft::default()).is_err());
        let long = Stft {
            hop_length: Some(n),
            win_length: Some(4),
            ..Stft::default()
        };
        let spec = complex(&[1.0; 2 * 5 * 3], &[5, 3], &Cpu);
        assert!(fft::istft(&spec, 8, None, &long, None).is_err());
        assert!(fft::istft(&spec, 8, None, &Stft::default(), Some(n)).is_err());
    }
    // Empty batches with huge n: empty results (the fuzzer's find: a line width of 2n
    // overflowed).
    let empty = real(&[], &[0, 4], &Cpu);
    let ez = ComplexTensor::from_real(&empty).unwrap();
    for n in [usize::MAX, usize::MAX / 2, 1 << 62] {
        assert_eq!(
            fft::fft(&ez, Some(n), 1, Norm::Backward).unwrap().dims(),
            &[0, n]
        );
        assert_eq!(
            fft::hfft(&ez, Some(n), 1, Norm::Backward).unwrap().dims(),
            [0, n]
        );
        assert_eq!(
            fft::irfft(&ez, Some(n), 1, Norm::Ortho).unwrap().dims(),
            [0, n]
        );
        assert_eq!(
            fft::rfft(&empty, Some(n), 1, Norm::Backward)
                .unwrap()
                .dims(),
            &[0, n / 2 + 1]
        );
        // Padding the empty axis makes n·2 pairs: refused, not a panic.
        assert!(fft::rfftn(&empty, Some(&[n, 3]), None, Norm::Forward).is_err());
        assert!(fft::fftn(&ez, Some(&[0, n]), None, Norm::Forward).is_err());
    }
    // |z|'s gradient at 0 is 0, not NaN.
    let p = real(&[0.0, 0.0, 3.0, 4.0], &[2, 2], &Cpu)
        .with_requires_grad(true)
        .unwrap();
    let a = ComplexTensor::from_pairs(&p).unwrap().abs().unwrap();
    a.try_sum(&[], false).unwrap().backward();
    assert_close(&p.grad().unwrap(), &[0.0, 0.0, 0.6, 0.8], 1e-15);
}

// NumPy 2.4's and PyTorch 2.15's values, printed by `tests/data/numpy/make/fft.py`.
#[rustfmt::skip]
const X: &[f64] = &[0.0, 1.063558185417193, 0.7155013718214642, -0.38776615918397406, -0.4834546557201531, 0.7151199880878155, 1.5985433453746052];
#[rustfmt::skip]
const Z: &[f64] = &[1.0, -1.0, 0.7648421872844885, -0.7, 0.16996714290024104, -0.4, -0.5048461045998571, -0.10000000000000009, -0.9422223406686581, 0.19999999999999996, -0.9364566872907963, 0.5];
#[rustfmt::skip]
const ZH: &[f64] = &[1.5, 0.25, 0.5, 0.75, -0.5, 1.25, -1.5, 1.75];
#[rustfmt::skip]
const FFT_Z: &[f64] = &[-0.448715802374582, -1.5, 0.24632072666892202, -3.3365523914046338, 0.4474735020168422, -1.4101836982195102, 0.9042054068377485, -0.9000000000000001, 1.4867039865581684, -0.3898163017804902, 3.3640121802929013, 1.5365523914046342];
#[rustfmt::skip]
const FFT_Z_N4: &[f64] = &[1.4299632255848724, -2.2, 0.23003285709975907, -1.8696882918843456, 0.9099710602156096, -0.5999999999999999, 1.430032857099759, 0.6696882918843455];
#[rustfmt::skip]
const FFT_Z_N9_ORTHO: &[f64] = &[-0.14957193412486064, -0.5, 0.8667128174657315, -0.81110324535265, -0.2534555521872207, -0.4705719701504355, 0.14915783400561405, -0.4700612327398367, 0.1880734725400357, -0.06596212929989112, 0.03704631982545825, -0.2520906829205115, 0.49556799551938946, -0.1299387672601634, 0.1110342219157176, 0.36427492623763336, 1.555434825040135, -0.6645468985141451];
#[rustfmt::skip]
const IFFT_Z_FORWARD: &[f64] = &[-0.448715802374582, -1.5, 3.3640121802929013, 1.536552391404634, 1.4867039865581684, -0.3898163017804902, 0.9042054068377481, -0.8999999999999997, 0.4474735020168422, -1.4101836982195102, 0.2463207266689223, -3.336552391404634];
#[rustfmt::skip]
const IFFT_Z: &[f64] = &[-0.07478596706243032, -0.25, 0.5606686967154835, 0.25609206523410566, 0.24778399775969473, -0.0649693836300817, 0.15070090113962467, -0.14999999999999994, 0.07457891700280703, -0.23503061636991834, 0.04105345444482038, -0.5560920652341057];
#[rustfmt::skip]
const RFFT_X: &[f64] = &[3.22150207579695, 0.0, 2.126392786113538, 0.3763787363930586, -2.4245159192125865, 0.5965497203479507, -1.3126279047994267, 0.13913015323675998];
#[rustfmt::skip]
const RFFT_X_N10: &[f64] = &[3.2215020757969506, 0.0, -0.4158806253216987, 0.286929194404475, 1.1232155405480102, -3.6400860926128504, -1.5917583684752807, 1.1612317477998384, -0.9461666082269469, -0.7996417621094898, 0.439678047154882, 0.0];
#[rustfmt::skip]
const IRFFT_ZH: &[f64] = &[0.0, 0.08931639747704093, 0.14433756729740643, 0.16666666666666657, -0.14433756729740643, 1.2440169358562922];
#[rustfmt::skip]
const IRFFT_ZH_N7: &[f64] = &[-0.21428571428571427, -0.011391821649393181, 0.3809580280755954, -0.20934149471926494, 0.39308553246434796, -0.2929641628270514, 1.45393963294148];
#[rustfmt::skip]
const IRFFT_ZH_N3_ORTHO: &[f64] = &[1.4433756729740645, -0.17264973081037427, 1.327350269189626];
#[rustfmt::skip]
const HFFT_ZH: &[f64] = &[0.0, 7.464101615137754, -0.8660254037844386, 1.0000000000000002, 0.8660254037844386, 0.5358983848622454];
#[rustfmt::skip]
const HFFT_ZH_N5_FORWARD: &[f64] = &[0.30000000000000004, 1.1028163787847616, -0.2227994802098138, 0.3755858847098559, -0.055602783284803614];
#[rustfmt::skip]
const IHFFT_X: &[f64] = &[0.46021458225670714, -0.0, 0.3037703980162197, -0.05376839091329408, -0.3463594170303695, -0.08522138862113582, -0.1875182721142038, -0.019875736176679995];
#[rustfmt::skip]
const M: &[f64] = &[0.0, 0.0, 0.37, 0.53, 0.74, 0.16000000000000003, 0.009999999999999787, 0.6900000000000001, 0.3799999999999999, 0.32000000000000006, 0.75, 0.8500000000000003, 0.019999999999999574, 0.4800000000000001, 0.3899999999999997, 0.10999999999999988, 0.7599999999999998, 0.6400000000000001, 0.029999999999999805, 0.27000000000000035, 0.3999999999999999, 0.8000000000000006, 0.77, 0.42999999999999994];
#[rustfmt::skip]
const FFT2_M: &[f64] = &[4.619999999999998, 5.280000000000001, 0.40000000000000113, -0.46000000000000085, -0.02000000000000013, -0.47999999999999954, -0.4400000000000006, -0.5000000000000002, -0.959089653438087, -0.20626933041053575, -2.5026279441628834, -1.329422863405995, -0.22942286340599483, -0.39737205583711777, 0.30262794416288363, 1.3294228634059948, -0.30091034656191235, -0.9337306695894648, -0.5973720558371182, 0.22942286340599516, 1.3294228634059957, -2.3026279441628827, -1.602627944162883, -0.22942286340599405];
#[rustfmt::skip]
const IFFTN_M_S25_ORTHO: &[f64] = &[0.8411658576047885, 0.9929551852928712, -0.4524501595534562, 0.271400889372778, -0.3576384279094648, -0.011232360802339409, 0.25161401244679704, -0.21104981559502956, 0.3181414728433274, -0.5361094726413395, -0.1328156617270718, -0.1201665510863984, 0.01924327426848173, -0.10880371440551719, -0.20092079705241742, -0.39537663716467136, 0.22147069142711456, 0.4075386664384991, -0.5078102623480991, -0.28915618940885285];
#[rustfmt::skip]
const R: &[f64] = &[-0.4, 0.20999999999999996, 0.82, 0.13, 0.7399999999999999, 0.04999999999999971, 0.66, -0.030000000000000582, 0.5799999999999997, -0.10999999999999999, 0.49999999999999944, -0.19000000000000028, 0.42000000000000004, -0.2700000000000006, 0.33999999999999886, -0.35, 0.25999999999999945, 0.8699999999999989, 0.18000000000000005, 0.7899999999999995, 0.09999999999999887, 0.7100000000000001, 0.019999999999999463, 0.6299999999999989];
#[rustfmt::skip]
const RFFTN_R_S35: &[f64] = &[2.9599999999999977, 0.0, -0.5626895702124077, -1.3593739496896924, 1.382689570212408, 1.8805192008870972, -0.3399999999999991, -0.5542562584220408, -1.505946335217401, -0.1854349131380659, -1.187281835022832, -0.25316914362572, -0.3399999999999991, 0.5542562584220408, -1.2423818220825746, -0.27107221468360765, -1.0243900076771928, -0.028967777474667444, 3.6999999999999935, 0.0, -0.11770509831248371, -0.9343578526316387, 0.21770509831248297, -1.27405863413957, -1.6399999999999992, -0.5542562584220412, 0.4440536647826014, 0.28681773006542005, 0.7627181649771686, 1.747325155538192, -1.6399999999999992, 0.5542562584220412, 0.7076181779174255, 0.2011804285198774, 0.9256099923228083, 1.971526521689247];
#[rustfmt::skip]
const RFFTN_R: &[f64] = &[6.659999999999991, 0.0, -0.8199999999999998, -0.48000000000000054, 1.7800000000000002, 0.0, -1.9799999999999982, -1.108512516844082, -1.2999999999999967, 1.6058378643643849e-15, 1.299999999999999, -2.6921477609369894e-15, -1.9799999999999982, 1.108512516844082, -1.2999999999999998, 8.366527898109594e-16, 1.299999999999999, 2.6921477609369894e-15, -0.7399999999999958, 0.0, -1.2999999999999998, -5.551115123125783e-16, 3.9000000000000004, 0.0, 1.3000000000000003, 3.3306690738754696e-16, -1.3000000000000034, -1.705189750358655e-16, -3.8999999999999995, 3.8459253727671266e-16, 1.3000000000000003, -3.3306690738754696e-16, -1.3000000000000003, -9.39704049589291e-16, -3.8999999999999995, -3.8459253727671266e-16];
#[rustfmt::skip]
const RFFT2_R_AXES02: &[f64] = &[0.8999999999999982, 0.0, -1.1399999999999988, -0.15999999999999936, 1.4599999999999995, 0.0, 3.519999999999997, 0.0, 0.15999999999999925, -0.1599999999999997, 0.16000000000000192, 0.0, 2.239999999999996, 0.0, 0.1599999999999997, -0.16000000000000147, 0.1599999999999988, 0.0, 0.6200000000000015, 0.0, -1.3000000000000012, -5.551115123125783e-16, -1.2999999999999994, 0.0, -0.6799999999999988, 0.0, 4.440892098500626e-16, -8.881784197001252e-16, 2.5999999999999996, 0.0, -0.6799999999999984, 0.0, 8.881784197001252e-16, 8.881784197001252e-16, 2.6, 0.0];
#[rustfmt::skip]
const IRFFTN_SPEC: &[f64] = &[-0.4, 0.20999999999999996, 0.82, 0.13, 0.7399999999999998, 0.0499999999999996, 0.6599999999999999, -0.030000000000000693, 0.5799999999999997, -0.10999999999999999, 0.49999999999999944, -0.19000000000000028, 0.42000000000000004, -0.2700000000000006, 0.33999999999999886, -0.35, 0.25999999999999945, 0.8699999999999989, 0.18000000000000005, 0.7899999999999995, 0.09999999999999887, 0.7100000000000001, 0.019999999999999463, 0.6299999999999989];
#[rustfmt::skip]
const IRFFT2_SPEC_S36: &[f64] = &[0.2566666666666665, -0.23714531179816345, 0.14285468820183617, 1.0166666666666655, 0.050478645131496414, -0.32952135486850304, 0.6933333333333331, 0.6328546882018355, 0.5795213548685025, 0.5866666666666669, 0.48714531179816256, 0.5404786451314956, 0.47999999999999887, 0.41952135486850334, 0.3661880215351701, 0.37333333333333246, 0.2738119784648291, 0.32714531179816236, -0.7633333333333332, 0.10333333333333346, 0.5366666666666671, 0.10333333333333418, 0.5366666666666668, 0.10333333333333314, 0.7533333333333335, -0.5466666666666661, -0.5466666666666662, 0.7533333333333332, -0.5466666666666666, -0.5466666666666665, 0.7533333333333339, -0.5466666666666664, -0.5466666666666667, 0.7533333333333332, -0.5466666666666663, -0.546666666666666];
#[rustfmt::skip]
const FFTFREQ5: &[f64] = &[0.0, 2.0, 4.0, -4.0, -2.0];
#[rustfmt::skip]
const FFTFREQ6: &[f64] = &[0.0, 0.16666666666666666, 0.3333333333333333, -0.5, -0.3333333333333333, -0.16666666666666666];
#[rustfmt::skip]
const RFFTFREQ6: &[f64] = &[0.0, 0.3333333333333333, 0.6666666666666666, 1.0];
#[rustfmt::skip]
const RFFTFREQ7: &[f64] = &[0.0, 0.14285714285714285, 0.2857142857142857, 0.42857142857142855];
#[rustfmt::skip]
const SIG: &[f64] = &[0.0, 0.3842952380362409, 0.6154377999026105, 0.7475767201937179, 0.9344142705419561, 1.138442646548115, 1.0816352498236457, 0.5777251934005283, -0.14384093773042952, -0.5874306822243156, -0.527623291914468, -0.30940342084568984, -0.47960055598904655, -1.1006142094939795, -1.5597147212492612, -1.196037650403297, -0.10265855605264795, 0.8473263813647948, 0.8911501412053767, 0.24091128294969788, -0.10125273058301021, 0.5285011142740508, 1.6145725806955968, 1.9263787253721862, 0.8769056935583386, -0.7197192255941509, -1.4256535258976821, -0.730842050682613, 0.3380030237871343, 0.3184625352302558, -1.0144677090385783, -2.2801394085325457, -1.9451395434544851, -0.06698537900242824, 1.6381465507204502, 1.5924097934075636, 0.10085602185793663, -0.9300414991723761, -0.09376011796196382, 1.8725671204942556];
#[rustfmt::skip]
const STFT: &[f64] = &[0.8841617570056668, 0.0, 2.290650244173232, 0.0, 2.5664044629880096, 0.0, -1.0239484113192794, 0.0, -2.0589482820347316, 0.0, -2.506139565412025, 0.0, 1.6563505677823316, 0.0, 2.205313503938963, 0.0, 1.8291300820913428, 0.0, -1.6468940998564974, 0.0, -2.8875094939321344, 0.0, -0.46916252733419866, 0.0, 0.9837288507239482, 0.0, 1.2669061939651216, 0.0, -0.4076066531896866, 3.0531133177191805e-16, -1.5695099018292409, 0.3576996711989939, -1.9917706877851122, -0.5669291371558278, 0.9435283648038969, -0.425313482419008, 1.2273753269933718, -0.6776257428345704, 2.077644213335911, 1.2597058689498375, -1.4682753151899175, -0.3212487148600075, -1.3310601603631658, 1.3313206453080895, -1.5168335297155007, -2.1633618802574146, 1.3076558348851042, 1.194865569680754, 2.0548039737452335, -1.9489024338398213, 0.22979299920666924, 2.868461722576944, -0.4521298562304369, -1.770708477817639, -1.7731194976706226, -3.885780586188048e-16, -0.3077188999513054, -1.1102230246251565e-16, 0.36689224904762857, -0.2392323529795095, 0.8839919166207642, 0.4205380898606898, -0.6545111253630251, 0.287836765638029, 0.04223394730188629, 0.5934080914862175, -1.1327156933710012, -1.0927921238974598, 0.9421279628642913, 0.4548113238113225, -0.013321387806420892, -1.2868689834589555, 0.8296759298588605, 1.984573463224753, -0.6305278780916393, -1.3227424122636124, -0.61268357912174, 1.9489514578221017, 0.10494702477881662, -2.6874645706312017, -0.2852405863316848, 1.8918384694349548, 2.3375878700804438, 4.163336342344337e-17, 0.4076066531896866, -1.3877787807814457e-16, 0.07435646144180508, -0.019374033056944018, -0.1714998118621791, -0.027801533019635116, 0.2313329996447343, 0.01825082470410122, -0.26817421501527877, -0.16158002816717282, 0.31443108747068327, 0.28573557352044987, -0.31402496722083606, -0.3219516275948263, 0.2740579318150643, 0.4885869240968439, -0.2369778574011765, -0.6432488269607741, 0.1540282664801218, 0.6757746892685506, -0.025868555668076887, -0.8073311502190103, -0.09582224120181276, 0.9321871216068884, 0.25041781251456363, -0.904755143476432, -1.9720147433178885, 3.3306690738754696e-16, -0.26872395710305597, 0.0, -0.034127861493617795, 0.0, -0.007847296934955228, 0.0, -0.016752066851932756, 0.0, 0.05607816347477268, 0.0, -0.012579649459161013, 0.0, 0.023994071310592613, 0.0, -0.06466627122991797, 0.0, 0.019140832424290433, 0.0, -0.015418346690675877, 0.0, 0.05500581602130117, 0.0, -0.008673038233147523, 0.0, -0.00982359062883209, 0.0, 1.548186547851013, 0.0];
#[rustfmt::skip]
const STFT2: &[f64] = &[1.937305391574662, 0.0, 1.542892946498464, 0.0, 0.7650609091770474, 0.0, -0.5264949702769466, 0.0, -2.087473075828428, 0.0, -1.5656496806439628, 0.0, -0.8694718934605901, 0.0, -0.561365067395115, 0.31089965953519105, -0.5538311396003301, -0.8551519987009636, 0.5909069634411116, -1.2222092995273595, 0.6624450855168359, -0.46878698683860787, 0.025346275887651485, -0.714853863450392, 1.0735431293476698, 0.3985957124598151, -0.26101703651096814, 1.7127339630596972, -0.2696405972463361, -0.0698041569686285, 0.3204960484870454, -0.27375283686686036, 0.08363707618013204, -0.0999460757873789, 0.4162926600890638, -0.6916800673974192, 0.5175655779272079, 0.06456019986220933, -0.5321257486020939, 0.44270302464736994, 0.030513590838913595, -0.2481373952271774, -0.09936559974258327, -0.018751718675848808, 0.22417976138929033, -0.0927104290818465, 0.17153460617800542, -0.08429167198196484, 0.4754725420285588, -0.23136908391933322, 0.21207162703162308, 0.014944985036756635, -0.3437442808605211, 0.13205746819076852, -0.005521207758078419, -0.020289200953812498, -0.07656286280659325, 0.0, 0.21613867978818624, 0.0, 0.18570446777524807, 0.0, 0.47740087469085046, 0.0, 0.17066250420978846, 0.0, -0.32204054962490464, 0.0, -0.014994021281916842, 0.0, -0.09936559974258327, 0.018751718675848808, 0.22417976138929033, 0.0927104290818465, 0.17153460617800542, 0.08429167198196484, 0.4754725420285588, 0.23136908391933322, 0.21207162703162308, -0.014944985036756635, -0.3437442808605211, -0.13205746819076852, -0.005521207758078419, 0.020289200953812498, -0.2696405972463361, 0.0698041569686285, 0.3204960484870454, 0.27375283686686036, 0.08363707618013204, 0.0999460757873789, 0.4162926600890638, 0.6916800673974192, 0.5175655779272079, -0.06456019986220933, -0.5321257486020939, -0.44270302464736994, 0.030513590838913595, 0.2481373952271774, -0.561365067395115, -0.31089965953519105, -0.5538311396003301, 0.8551519987009636, 0.5909069634411116, 1.2222092995273595, 0.6624450855168359, 0.46878698683860787, 0.025346275887651485, 0.714853863450392, 1.0735431293476698, -0.3985957124598151, -0.26101703651096814, -1.7127339630596972, 0.6961079406701685, 0.0, 0.7771484501890122, 0.0, -1.6395864070869366, 0.0, -2.4065538044229258, 0.0, -0.5019433325544959, 0.0, -1.0272002936880251, 0.0, 0.766522470358328, 0.0, -0.6980813364391968, -2.0512425271369916, 1.998732882376043, -0.5952906199049747, -0.4563389135712083, 0.017597240458019532, 0.14558622118991116, -1.2908991138767603, 1.8717120748993044, 1.8096160874007277, -2.1217420960013857, 1.4757419396975489, -0.4375653074408486, -0.758046173174583, 0.20744176261216712, 0.49029185651516977, -0.36274212390733795, -0.5645517082914968, 1.2922482323491784, -0.9226770405426118, -0.2945045703956956, 1.153453305160105, -0.7887123347925769, -0.3320597384799474, 0.8725564613936744, -0.10935309605248436, -1.1980757519637768, 1.5775565695287352, 0.006418881654101985, 0.09852196917549105, 0.15103161393643982, -0.21422888771022153, 0.8374006457659615, -0.2731550389707826, -0.4363385006187133, 0.32352647783545185, -0.25728648318709224, -0.06606544354701517, 0.24606056505364288, 0.02900460118753173, -1.0091720310691685, 0.46659677663295507, -0.01405252595991728, 0.0, 0.21550768711158058, 0.0, 0.7732303275038489, 0.0, -0.455289599067127, 0.0, -0.19346626055901225, 0.0, 0.16410244737232207, 0.0, -0.9785817355338263, 0.0, 0.006418881654101985, -0.09852196917549105, 0.15103161393643982, 0.21422888771022153, 0.8374006457659615, 0.2731550389707826, -0.4363385006187133, -0.32352647783545185, -0.25728648318709224, 0.06606544354701517, 0.24606056505364288, -0.02900460118753173, -1.0091720310691685, -0.46659677663295507, 0.20744176261216712, -0.49029185651516977, -0.36274212390733795, 0.5645517082914968, 1.2922482323491784, 0.9226770405426118, -0.2945045703956956, -1.153453305160105, -0.7887123347925769, 0.3320597384799474, 0.8725564613936744, 0.10935309605248436, -1.1980757519637768, -1.5775565695287352, -0.6980813364391968, 2.0512425271369916, 1.998732882376043, 0.5952906199049747, -0.4563389135712083, -0.017597240458019532, 0.14558622118991116, 1.2908991138767603, 1.8717120748993044, -1.8096160874007277, -2.1217420960013857, -1.4757419396975489, -0.4375653074408486, 0.758046173174583];
#[rustfmt::skip]
const ISTFT50: &[f64] = &[-4.932131840814286e-17, 0.5764428570543612, 0.9231566998539157, 1.121365080290577, 1.4016214058129342, 1.7076639698221727, 1.6224528747354687, 0.8665877901007926, -0.21576140659564422, -0.8811460233364736, -0.7914349378717019, -0.4641051312685347, -0.7194008339835699, -1.6509213142409689, -2.339572081873893, -1.794056475604946, -0.15398783407897207, 1.2709895720471924, 1.3367252118080655, 0.36136692442454676, -0.1518790958745154, 0.7927516714110764, 2.421858871043395, 2.8895680880582804, 1.315358540337508, -1.0795788383912264, -2.138480288846524, -1.0962630760239198, 0.5070045356807014, 0.47769380284538376, -1.5217015635578677, -3.4202091127988186, -2.917709315181728, -0.10047806850364234, 2.4572198260806757, 2.3886146901113463, 0.15128403278690497, -1.3950622487585642, -0.1406401769429457, 2.808850680741384, -0.14064017694294578, -1.3950622487585647, 0.1512840327869052, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
#[rustfmt::skip]
const ISTFT_NOCENTER: &[f64] = &[0.9344142705419557, 0.7475767201937178, 0.6154377999026105, 0.3842952380362409, -3.792675590145322e-17, 0.38429523803624077, 0.6154377999026104, 0.7475767201937179, 0.934414270541956, 1.138442646548115, 1.081635249823646, 0.5777251934005284, -0.1438409377304295, -0.5874306822243157, -0.5276232919144679, -0.30940342084568967, -0.4796005559890466, -1.1006142094939793, -1.5597147212492612, -1.196037650403297];
#[rustfmt::skip]
const STFT_GRAD: &[f64] = &[-0.19921698214414985, 5.4720059179646965, 3.2650904751433023, 4.277886751916379, 4.038496172021703, 3.9425794872930764, 6.303602207500108, 1.8642579788324847, -0.5534069363554623, -4.984578945395318, -2.3974378787690607, -1.8447519460523778, -2.5509672472146185, -5.072826590150711, -4.879027578697933, -6.620095782480373, -0.24628811932614095, 2.785953189757588, 6.043347773901541, 1.1100941141943805, 0.7294727735418747, 2.734409602070186, 6.141724712181072, 5.664562731690622, 4.9138373507101525, -1.6832981272097638, -4.388480051989495, -4.643842158569303, 0.3596351385090557, -0.30012059915523437, -4.628424720709005, -6.928322515626516, -5.29300054294897, -1.1258498082518469, 3.655548607571582, 4.979676501104966, 1.143740136734959, -0.9938427230998114, -0.11163446717147665, 9.95192655019222];
#[rustfmt::skip]
const STFT_LOSS: f64 = 107.03237742623818;
#[rustfmt::skip]
const HFFT2_Z: &[f64] = &[1.0, 0.3, -0.5, 0.2, 0.25, -0.6, 2.0, 0.0, 0.75, -0.4, -1.5, 1.1];
#[rustfmt::skip]
const HFFT2: &[f64] = &[2.25, 3.85, 1.25, 4.65, -1.75, -1.5499999999999998, 3.25, -3.95];
#[rustfmt::skip]
const HFFTN_S: &[f64] = &[0.2581988897471612, 1.3902496209212705, 0.1644154758079645, 0.7769513486377249, 1.2831680110932964, 0.37759923928676103, -1.0879726659231046, 0.6729331880429025, 0.9707989470442654, -0.9333587084508242, -0.2484997944131803, -0.3320564694127898, 1.749732493085298, -1.2929508411481596, 0.12377461188883171];
#[rustfmt::skip]
const IHFFT2_X: &[f64] = &[0.5, -1.0, 2.0, 0.25, 1.5, 0.0, -0.75, 1.0, 0.2, 0.4, 0.6, 0.8];
#[rustfmt::skip]
const IHFFT2: &[f64] = &[0.4583333333333333, -0.0, 0.029166666666666674, -0.22083333333333333, 0.21666666666666662, -0.0, -0.010416666666666666, -0.018042195912175804, -0.1587820631441114, 0.14541394333573018, 0.29791666666666666, 0.01082531754730549, -0.010416666666666666, 0.018042195912175804, -0.24538460352255523, -0.23708061000239683, 0.29791666666666666, -0.01082531754730549];
#[rustfmt::skip]
const IHFFTN_F: &[f64] = &[2.2, -0.0, -0.6, -0.0, 1.85, -0.0, 2.05, -0.0, -0.35, 1.12583302491977, -1.2, -0.34641016151377546, 2.075, -1.1691342951089922, -0.65, 0.17320508075688767];
