//! `eig`, `eigvals` and `roots` on every device against NumPy 2.4's `linalg.eig`/`eigvals`/
//! `roots` (values below, compared as sorted sets: the order is the Schur form's), the
//! eigenvector identity `A·v = v·diag(w)` with unit-norm columns, other dtypes, batches, empty
//! and 1 × 1 matrices, and the refusals.

use crate::common::{assert_close, host_f64s};
use typed_tensor::complex::ComplexTensor;
use typed_tensor::prelude::*;

/// The (re, im) pairs of `w`, sorted by real then imaginary part.
fn sorted<D: Backend>(w: &ComplexTensor<f64, D>) -> Vec<f64> {
    let v = host_f64s(w.pairs());
    let mut pairs: Vec<(f64, f64)> = v.chunks(2).map(|p| (p[0], p[1])).collect();
    // By values rounded to 1e-9 (so -0, 0 and ±1e-17 tie; then the imaginary part decides).
    let key = |x: f64| (x * 1e9).round() + 0.0;
    pairs.sort_by(|a, b| {
        key(a.0)
            .total_cmp(&key(b.0))
            .then(key(a.1).total_cmp(&key(b.1)))
    });
    pairs.into_iter().flat_map(|(r, i)| [r, i]).collect()
}

/// Checks `a·v = v·diag(w)` and unit-norm columns for one `n × n` matrix (row-major `a`).
#[track_caller]
fn check_vectors(a: &[f64], w: &[f64], v: &[f64], n: usize, tol: f64) {
    for j in 0..n {
        let (wr, wi) = (w[2 * j], w[2 * j + 1]);
        let mut norm = 0.0;
        for i in 0..n {
            let (mut re, mut im) = (0.0, 0.0);
            for k in 0..n {
                re += a[i * n + k] * v[2 * (k * n + j)];
                im += a[i * n + k] * v[2 * (k * n + j) + 1];
            }
            let (vr, vi) = (v[2 * (i * n + j)], v[2 * (i * n + j) + 1]);
            norm += vr * vr + vi * vi;
            assert!((re - (vr * wr - vi * wi)).abs() < tol, "column {j} row {i}");
            assert!((im - (vr * wi + vi * wr)).abs() < tol, "column {j} row {i}");
        }
        assert!((norm - 1.0).abs() < tol, "column {j} norm² {norm}");
    }
}

#[test]
fn eig_matches_numpy() {
    on_every_device!("eig", |dev| {
        let a = [2.0, -1.0, 0.5, 1.0, 3.0, -2.0, 0.0, 4.0, 1.0];
        let t = Tensor::<f64, _>::from_vec_on(a.to_vec(), [3, 3], &dev).unwrap();
        let (w, v) = t.try_eig().unwrap();
        assert_eq!((w.dims(), v.dims()), (&[3][..], &[3, 3][..]));
        let (c, s) = (1.9376213605951544, 2.830489937088983);
        assert_close(&sorted(&w), &[c, -s, c, s, 2.1247572788096893, 0.0], 1e-12);
        check_vectors(&a, &host_f64s(w.pairs()), &host_f64s(v.pairs()), 3, 1e-12);
        // A batch, with real and imaginary eigenvalues.
        let b = Tensor::<f64, _>::from_vec_on(
            vec![1.0, 2.0, 3.0, 4.0, 0.0, -2.0, 2.0, 0.0],
            [2, 2, 2],
            &dev,
        )
        .unwrap();
        let wb = b.try_eigvals().unwrap();
        assert_eq!(wb.dims(), &[2, 2]);
        let pairs = host_f64s(wb.pairs());
        let first = ComplexTensor::from_pairs(
            &Tensor::<f64>::from_vec(pairs[..4].to_vec(), [2, 2]).unwrap(),
        )
        .unwrap();
        let second = ComplexTensor::from_pairs(
            &Tensor::<f64>::from_vec(pairs[4..].to_vec(), [2, 2]).unwrap(),
        )
        .unwrap();
        assert_close(
            &sorted(&first),
            &[-0.3722813232690143, 0.0, 5.372281323269014, 0.0],
            1e-12,
        );
        assert_close(&sorted(&second), &[0.0, -2.0, 0.0, 2.0], 1e-12);
        let (wb, vb) = b.try_eig().unwrap();
        let (wv, vv) = (host_f64s(wb.pairs()), host_f64s(vb.pairs()));
        check_vectors(&[1.0, 2.0, 3.0, 4.0], &wv[..4], &vv[..8], 2, 1e-12);
        check_vectors(&[0.0, -2.0, 2.0, 0.0], &wv[4..], &vv[8..], 2, 1e-12);
        // Integers promote to f32; f16 computes in f64 and rounds.
        let i = Tensor::<i32, _>::from_vec_on(vec![2, 0, 0, 3], [2, 2], &dev).unwrap();
        let wi: ComplexTensor<f32, _> = i.try_eigvals().unwrap();
        let mut re: Vec<f64> = host_f64s(&wi.real());
        re.sort_by(f64::total_cmp);
        assert_eq!(re, [2.0, 3.0]);
        let h = t.try_cast::<f16>().unwrap().try_eig().unwrap().0;
        assert_eq!(h.dims(), &[3]);
        // Empty, 1 × 1, and a stack of no matrices.
        let e = Tensor::<f64, _>::zeros_on([4, 0, 0], &dev)
            .unwrap()
            .try_eig()
            .unwrap();
        assert_eq!((e.0.dims(), e.1.dims()), (&[4, 0][..], &[4, 0, 0][..]));
        let none = Tensor::<f64, _>::zeros_on([0, 3, 3], &dev)
            .unwrap()
            .try_eig()
            .unwrap();
        assert_eq!(
            (none.0.dims(), none.1.dims()),
            (&[0, 3][..], &[0, 3, 3][..])
        );
        let one = Tensor::<f64, _>::from_vec_on(vec![-2.5], [1, 1], &dev)
            .unwrap()
            .try_eig()
            .unwrap();
        assert_eq!(
            (host_f64s(one.0.pairs()), host_f64s(one.1.pairs())),
            (vec![-2.5, 0.0], vec![1.0, 0.0])
        );
        // Refusals.
        let err = |r: Result<ComplexTensor<f64, _>>| r.unwrap_err().to_string();
        assert!(
            err(Tensor::<f64, _>::zeros_on([2, 3], &dev)
                .unwrap()
                .try_eigvals())
            .contains("square")
        );
        assert!(
            err(Tensor::<f64, _>::zeros_on([3], &dev).unwrap().try_eigvals()).contains("square")
        );
        let nan =
            Tensor::<f64, _>::from_vec_on(vec![1.0, f64::NAN, 0.0, 1.0], [2, 2], &dev).unwrap();
        assert!(err(nan.try_eigvals()).contains("NaN"));
        // The eigenvalues sum to the trace: the gradient of Σ Re λ is the identity.
        let x = t.with_requires_grad(true).unwrap();
        let loss = x.try_eigvals().unwrap().real().try_sum(&[], false).unwrap();
        loss.try_backward().unwrap();
        let n = x.dims()[0];
        let eye: Vec<f64> = (0..n * n)
            .map(|k| f64::from(u8::from(k % (n + 1) == 0)))
            .collect();
        assert_close(&host_f64s(&x.grad_tensor().unwrap()), &eye, 1e-10);
    });
}

/// The gradient of `eig` (PyTorch's `linalg_eig_backward`) against PyTorch 2.15 for a loss
/// of both results that neither their order nor the eigenvectors' phases change, against
/// central differences (first and second order) on every device, and the refusal of a loss
/// that depends on a complex eigenvector's phase.
#[test]
fn eig_gradients() {
    // Σ Re(λ)³ + Σ Im(λ)² + Σ |V_ij|⁴.
    fn loss<D: Backend>(a: &Tensor<f64, D>) -> Result<Tensor<f64, D>> {
        let (w, v) = a.try_eig()?;
        let abs2 = v.abs()?.try_square()?;
        w.real()
            .try_pow(3.0)?
            .try_sum(&[], false)?
            .try_add(&w.imag().try_square()?.try_sum(&[], false)?)?
            .try_add(&abs2.try_square()?.try_sum(&[], false)?)
    }
    let cases: [(&[f64], usize, &[f64]); 2] = [
        // A complex pair and a real eigenvalue.
        (
            &[0.5, -1.2, 0.3, 1.1, 0.2, -0.4, 0.3, 0.7, 1.5],
            3,
            &[
                0.8924985117490849,
                -2.3847136071903527,
                2.722183603820458,
                2.9448324585903434,
                0.4591226902285415,
                0.2041073265992491,
                2.0347935250058318,
                0.22767022487125507,
                6.647249658721014,
            ],
        ),
        // Four real eigenvalues.
        (
            &[
                2.0, 0.3, -0.1, 0.4, 0.1, -1.0, 0.5, 0.2, 0.3, 0.2, 0.7, -0.3, 0.0, 0.4, 0.1, 3.0,
            ],
            4,
            &[
                11.859608382196075,
                0.6765404908224405,
                2.735716015724837,
                -0.5985964582351841,
                1.1157469045717547,
                3.4589847276339776,
                -0.7325362156828755,
                2.461776550221132,
                -0.8903425331325789,
                -0.6579733485930271,
                1.5183262329373668,
                1.8747387539720042,
                5.998128665060526,
                0.7376133216983871,
                -3.0784249938154806,
                27.533080657232546,
            ],
        ),
    ];
    on_every_device!("eig_grad", |dev| {
        for (a, n, want) in cases {
            let a = Tensor::<f64, _>::from_vec_on(a.to_vec(), [n, n], &dev).unwrap();
            let x = a.with_requires_grad(true).unwrap();
            loss(&x).unwrap().backward();
            assert_close(&host_f64s(&x.grad_tensor().unwrap()), want, 1e-9);
        }
        // Repeated eigenvalues with a loss on the values only (d tr/dA = I, no 0/0), a batch,
        // 1 × 1 and empty matrices.
        let trace_grad = |dims: &[usize]| {
            let n = dims[dims.len() - 1];
            let count: usize = dims.iter().product();
            let eye: Vec<f64> = (0..count)
                .map(|k| f64::from(u8::from((k % (n * n)).is_multiple_of(n + 1))))
                .collect();
            let x = Tensor::<f64, _>::from_vec_on(eye.clone(), dims, &dev).unwrap();
            let x = x.with_requires_grad(true).unwrap();
            let w = x.try_eigvals().unwrap();
            w.real().try_sum(&[], false).unwrap().backward();
            assert_close(&host_f64s(&x.grad_tensor().unwrap()), &eye, 1e-12);
        };
        trace_grad(&[3, 3]);
        trace_grad(&[2, 2, 2]);
        trace_grad(&[1, 1]);
        let x = Tensor::<f64, _>::zeros_on([0, 0], &dev)
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        let (w, v) = x.try_eig().unwrap();
        w.real()
            .try_sum(&[], false)
            .unwrap()
            .try_add(&v.imag().try_sum(&[], false).unwrap())
            .unwrap()
            .backward();
        assert_eq!(x.grad_tensor().unwrap().dims(), [0, 0]);
        // Re(V) of a complex eigenvector depends on its phase: refused by name.
        let a = Tensor::<f64, _>::from_vec_on(cases[0].0.to_vec(), [3, 3], &dev).unwrap();
        let x = a.with_requires_grad(true).unwrap();
        let (_, v) = x.try_eig().unwrap();
        let e = v
            .real()
            .try_sum(&[], false)
            .unwrap()
            .try_backward()
            .unwrap_err();
        assert!(e.to_string().contains("phase"), "{e}");
    });
    for (a, n, _) in cases {
        let a = Tensor::<f64>::from_vec(a.to_vec(), [n, n]).unwrap();
        crate::common::check_grad("eig", &|v| loss(&v[0]), &[a]);
    }
}

#[test]
fn roots_match_numpy() {
    on_every_device!("roots", |dev| {
        let p = |v: &[f64]| Tensor::<f64, _>::from_vec_on(v.to_vec(), [v.len()], &dev).unwrap();
        let r = p(&[1.0, -6.0, 11.0, -6.0]).try_roots().unwrap();
        assert_close(&sorted(&r), &[1.0, 0.0, 2.0, 0.0, 3.0, 0.0], 1e-12);
        // Leading zeros dropped, trailing zeros are roots 0 listed last.
        let r = p(&[0.0, 2.0, 0.0, 8.0, 0.0, 0.0]).try_roots().unwrap();
        assert_eq!(r.dims(), &[4]);
        assert_eq!(host_f64s(r.pairs())[4..], [0.0; 4]);
        assert_close(
            &sorted(&r),
            &[0.0, -2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0],
            1e-12,
        );
        assert_close(
            &sorted(&p(&[1.0, 0.0, 1.0]).try_roots().unwrap()),
            &[0.0, -1.0, 0.0, 1.0],
            1e-12,
        );
        assert_eq!(p(&[3.0]).try_roots().unwrap().dims(), &[0]);
        assert_eq!(p(&[0.0, 0.0]).try_roots().unwrap().dims(), &[0]);
        assert_eq!(p(&[]).try_roots().unwrap().dims(), &[0]);
        let i = Tensor::<i64, _>::from_vec_on(vec![1, -3, 2], [3], &dev).unwrap();
        let mut re = host_f64s(&i.try_roots().unwrap().real());
        re.sort_by(f64::total_cmp);
        assert_close(&re, &[1.0, 2.0], 1e-12);
        assert!(p(&[1.0, f64::INFINITY]).try_roots().is_err());
        assert!(
            Tensor::<f64, _>::zeros_on([2, 2], &dev)
                .unwrap()
                .try_roots()
                .is_err()
        );
    });
}

#[test]
fn roots_gradients_follow_vieta() {
    on_every_device!("roots_grad", |dev| {
        let leaf = |v: &[f64]| {
            Tensor::<f64, _>::from_vec_on(v.to_vec(), [v.len()], &dev)
                .unwrap()
                .with_requires_grad(true)
                .unwrap()
        };
        let grad = |p: &Tensor<f64, _>| crate::common::host_f64s(&p.grad_tensor().unwrap());
        // Σ rᵢ = -p₁/p₀, for real roots (0, 2, 1 with a leading zero and a trailing one) and a
        // complex pair (x² + 1).
        for v in [&[0.0, 2.0, -6.0, 4.0, 0.0][..], &[1.0, 0.0, 1.0]] {
            let p = leaf(v);
            let r = p.try_roots().unwrap();
            assert_eq!(r.numel(), v.len() - 1 - usize::from(v[0] == 0.0));
            r.real().sum(&[], false).backward();
            let (i, p0, p1) = if v[0] == 0.0 {
                (1, v[1], v[2])
            } else {
                (0, v[0], v[1])
            };
            let mut want = vec![0.0; v.len()];
            want[i] = p1 / (p0 * p0);
            want[i + 1] = -1.0 / p0;
            crate::common::assert_close(&grad(&p), &want, 1e-12);
        }
        // Σ rᵢ² = (p₁/p₀)² - 2·p₂/p₀ for 2x³ - 3x² - 11x + 6 (roots 3, -2, 1/2).
        let p = leaf(&[2.0, -3.0, -11.0, 6.0]);
        let r = p.try_roots().unwrap();
        let re = r.real();
        re.mul(&re).sum(&[], false).backward();
        let (p0, p1, p2) = (2.0, -3.0, -11.0);
        let want = [
            -2.0 * p1 * p1 / (p0 * p0 * p0) + 2.0 * p2 / (p0 * p0),
            2.0 * p1 / (p0 * p0),
            -2.0 / p0,
            0.0,
        ];
        crate::common::assert_close(&grad(&p), &want, 1e-11);
        // Outside the graph the roots are the same.
        let plain = leaf(&[2.0, -3.0, -11.0, 6.0]).detach().try_roots().unwrap();
        crate::common::assert_close(
            &crate::common::host_f64s(&plain.real()),
            &crate::common::host_f64s(&re),
            1e-12,
        );
    });
}
