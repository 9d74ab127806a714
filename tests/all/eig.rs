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

/// `lobpcg` against `eigh` (values, residuals, both ends of the spectrum, a batch, f32), the
/// generalized problem with a `B`, PyTorch 2.15's gradient (`make/lobpcg.py`), the refusals.
#[test]
fn lobpcg_finds_the_extreme_eigenpairs() {
    use typed_tensor::ops::lobpcg::Lobpcg;
    on_every_device!("lobpcg", |dev| {
        let m = 9;
        let i = Tensor::<f64, _>::arange_on(0.0, m as f64, 1.0, &dev).unwrap();
        let s = i
            .unsqueeze(1)
            .unwrap()
            .mul_scalar(0.7)
            .add(&i.unsqueeze(0).unwrap().mul_scalar(0.7))
            .sin();
        let a = s.add(&i.mul_scalar(0.5).diag_embed());
        let a = a.add(&a.t()).mul_scalar(0.5);
        let (w, _) = a.eigh();
        let w = host_f64s(&w);
        for largest in [true, false] {
            let opts = Lobpcg {
                k: Some(3),
                largest,
                tol: Some(1e-10),
                ..Lobpcg::default()
            };
            let (e, x) = a.try_lobpcg(&opts).unwrap();
            let want: Vec<f64> = if largest {
                w.iter().rev().take(3).copied().collect()
            } else {
                w[..3].to_vec()
            };
            assert_close(&host_f64s(&e), &want, 1e-9);
            // A·x = λ·x and xᵀx = I.
            let r = a.matmul(&x).sub(&x.mul(&e.unsqueeze(0).unwrap()));
            assert!(host_f64s(&r).iter().all(|v| v.abs() < 1e-7));
            let gram = host_f64s(&x.t().matmul(&x));
            assert_close(&gram, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0], 1e-9);
        }
        // PyTorch's gradient of E·c + Σ X·sign(X[0])·W (to its convergence tolerance).
        let leaf = a.detach().with_requires_grad(true).unwrap();
        let (e, x) = leaf
            .try_lobpcg(&Lobpcg {
                k: Some(2),
                tol: Some(1e-12),
                ..Lobpcg::default()
            })
            .unwrap();
        assert_close(&host_f64s(&e), LOBPCG_E, 1e-10);
        let c = Tensor::<f64, _>::from_vec_on(vec![0.3, -0.7], [2], &dev).unwrap();
        let wts = Tensor::<f64, _>::linspace_on(-1.0, 1.0, 2 * m, &dev)
            .unwrap()
            .try_reshape([m, 2])
            .unwrap();
        let sign = x.narrow(0, 0, 1).unwrap().detach().sign();
        let loss = e
            .mul(&c)
            .sum(&[], false)
            .add(&x.mul(&sign).mul(&wts).sum(&[], false));
        loss.backward();
        assert_close(&host_f64s(&leaf.grad_tensor().unwrap()), LOBPCG_G, 1e-7);
        // A starting block, a batch and f32: each matrix on its own.
        let both = Tensor::stack(&[&a, &a.mul_scalar(-2.0)], 0);
        let start = Tensor::<f64, _>::ones_on([2, m, 2], &dev).unwrap().add(
            &Tensor::<f64, _>::arange_on(0.0, 36.0, 1.0, &dev)
                .unwrap()
                .try_reshape([2, m, 2])
                .unwrap()
                .sin(),
        );
        let (eb, xb) = both
            .try_lobpcg(&Lobpcg {
                x: Some(&start),
                tol: Some(1e-10),
                ..Lobpcg::default()
            })
            .unwrap();
        assert_eq!((eb.dims(), xb.dims()), (&[2, 2][..], &[2, m, 2][..]));
        let wb = [w[8], w[7], -2.0 * w[0], -2.0 * w[1]];
        assert_close(&host_f64s(&eb), &wb, 1e-9);
        let (e32, _) = a.cast::<f32>().lobpcg(&Lobpcg::default());
        assert!((host_f64s(&e32)[0] - w[8]).abs() < 1e-3 * w[8].abs());
        // A·x = λ·B·x with xᵀ·B·x = I.
        let bm = Tensor::<f64, _>::eye_on(m, &dev)
            .unwrap()
            .mul_scalar(2.0)
            .add(&i.mul_scalar(0.1).diag_embed());
        let (eg, xg) = a
            .try_lobpcg(&Lobpcg {
                k: Some(2),
                b: Some(&bm),
                tol: Some(1e-10),
                ..Lobpcg::default()
            })
            .unwrap();
        let r = a
            .matmul(&xg)
            .sub(&bm.matmul(&xg).mul(&eg.unsqueeze(0).unwrap()));
        assert!(host_f64s(&r).iter().all(|v| v.abs() < 1e-7));
        assert_close(
            &host_f64s(&xg.t().matmul(&bm.matmul(&xg))),
            &[1.0, 0.0, 0.0, 1.0],
            1e-9,
        );
        let scale = bm.diagonal(0).unwrap().rsqrt();
        let c = a
            .mul(&scale.unsqueeze(0).unwrap())
            .mul(&scale.unsqueeze(1).unwrap());
        let (wc, _) = c.eigh();
        let wc = host_f64s(&wc);
        assert_close(&host_f64s(&eg), &[wc[8], wc[7]], 1e-9);
        let leaf = a.detach().with_requires_grad(true).unwrap();
        let (eg, _) = leaf
            .try_lobpcg(&Lobpcg {
                b: Some(&bm),
                ..Lobpcg::default()
            })
            .unwrap();
        assert!(
            eg.sum(&[], false)
                .try_backward()
                .unwrap_err()
                .to_string()
                .contains("B != I")
        );
        // An empty batch; one step only (niter 0) still returns Ritz pairs.
        let none = Tensor::<f64, _>::zeros_on([0, m, m], &dev).unwrap();
        let (ee, xe) = none.try_lobpcg(&Lobpcg::default()).unwrap();
        assert_eq!((ee.dims(), xe.dims()), (&[0, 1][..], &[0, m, 1][..]));
        let (e0, _) = a
            .try_lobpcg(&Lobpcg {
                niter: Some(0),
                ..Lobpcg::default()
            })
            .unwrap();
        assert!(host_f64s(&e0)[0] <= w[8] + 1e-12);
        // Refusals.
        let err =
            |t: &Tensor<f64, _>, o: Lobpcg<'_, f64, _>| t.try_lobpcg(&o).unwrap_err().to_string();
        for (got, want) in [
            (
                err(
                    &a,
                    Lobpcg {
                        n: Some(usize::MAX),
                        ..Lobpcg::default()
                    },
                ),
                "smaller than 3 x",
            ),
            (
                err(
                    &a,
                    Lobpcg {
                        k: Some(4),
                        ..Lobpcg::default()
                    },
                ),
                "smaller than 3 x",
            ),
            (
                err(
                    &a,
                    Lobpcg {
                        k: Some(3),
                        n: Some(2),
                        ..Lobpcg::default()
                    },
                ),
                "k <= n",
            ),
            (
                err(&a.narrow(0, 0, 8).unwrap(), Lobpcg::default()),
                "square",
            ),
            (
                err(
                    &a,
                    Lobpcg {
                        b: Some(&both),
                        ..Lobpcg::default()
                    },
                ),
                "B must have",
            ),
            (
                err(
                    &a,
                    Lobpcg {
                        x: Some(&start),
                        ..Lobpcg::default()
                    },
                ),
                "X must be",
            ),
            (
                err(
                    &a,
                    Lobpcg {
                        x: Some(&start.select(0, 0).unwrap().mul_scalar(0.0)),
                        ..Lobpcg::default()
                    },
                ),
                "rank 0",
            ),
            (err(&a.mul_scalar(f64::NAN), Lobpcg::default()), "finite"),
        ] {
            assert!(
                got.contains(want) && got.contains("lobpcg"),
                "{got} lacks {want}"
            );
        }
    });
}

const LOBPCG_E: &[f64] = &[6.492172712700367, 3.7261605994607816];
const LOBPCG_G: &[f64] = &[
    -0.034565559171968865,
    -0.01732821411063068,
    0.0024981486443484517,
    0.017944278572804187,
    0.022389440086775715,
    0.012335779969127138,
    -0.011187762242569087,
    -0.019559391386953832,
    0.16606159446156635,
    -0.01732821411063068,
    0.007569245402401888,
    0.019985413211000183,
    0.013269476843633806,
    -0.011462346072181268,
    -0.043576053034671366,
    -0.06325768932090556,
    -0.0007338787328987463,
    0.0802041741310051,
    0.0024981486443484517,
    0.019985413211000183,
    0.020045566853094783,
    -7.155183128594415e-05,
    -0.03365759799999953,
    -0.06435116790082365,
    -0.06743585436337537,
    0.018489432832893334,
    -0.03737909762525511,
    0.017944278572804187,
    0.013269476843633806,
    -7.155183128594415e-05,
    -0.018207229576385615,
    -0.0334287747898695,
    -0.03562508086555399,
    -0.01345478675562716,
    0.02747703188194171,
    -0.1433685409299215,
    0.022389440086775715,
    -0.011462346072181268,
    -0.03365759799999953,
    -0.0334287747898695,
    -0.007528013231264537,
    0.03722208854443685,
    0.08365301204449357,
    0.014453120036260057,
    -0.1837277772658985,
    0.012335779969127138,
    -0.043576053034671366,
    -0.06435116790082365,
    -0.03562508086555399,
    0.03722208854443685,
    0.12644394299070588,
    0.18241080439487808,
    -0.028861621296791,
    -0.11020214344049759,
    -0.011187762242569087,
    -0.06325768932090556,
    -0.06743585436337537,
    -0.01345478675562716,
    0.08365301204449357,
    0.18241080439487808,
    0.2153279251305452,
    -0.09310093402866262,
    0.09916943175168055,
    -0.019559391386953832,
    -0.0007338787328987463,
    0.018489432832893334,
    0.02747703188194171,
    0.014453120036260057,
    -0.028861621296791,
    -0.09310093402866262,
    0.1994520680784911,
    -0.04018470811376365,
    0.16606159446156635,
    0.0802041741310051,
    -0.03737909762525511,
    -0.1433685409299215,
    -0.1837277772658985,
    -0.11020214344049759,
    0.09916943175168055,
    -0.04018470811376365,
    -0.9085379464756305,
];
