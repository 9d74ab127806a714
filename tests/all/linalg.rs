//! Multi-dimensional slicing and the factorizations (inverse, solve, svd, pinv, eigh), checked
//! against hand-computed values and by reconstruction in f64.

use crate::common::*;
use typed_tensor::prelude::*;

#[test]
fn slice_matches_python_semantics() {
    let t = Tensor::<i32>::arange(0, 24, 1).unwrap().reshape([4, 6]);
    // t[1:3, ::2]
    let v = t.slice(&[(1..3).into(), Slice::all().step(2)]).unwrap();
    assert_eq!(v.dims(), &[2, 3]);
    assert_eq!(v.to_vec(), vec![6, 8, 10, 12, 14, 16]);
    assert!(!v.owns_data());
    // t[::-1, -2:] and t[-1:0:-2, 5:1:-3]
    let r = t.slice(&[Slice::all().step(-1), (-2..).into()]).unwrap();
    assert_eq!(r.to_vec(), vec![22, 23, 16, 17, 10, 11, 4, 5]);
    let s = t
        .slice(&[
            Slice::new(Some(-1), Some(0), -2),
            Slice::new(Some(5), Some(1), -3),
        ])
        .unwrap();
    assert_eq!(s.to_vec(), vec![23, 20, 11, 8]);
    // Out-of-range bounds clamp; empty results keep their rank; a trailing dim is kept whole.
    assert_eq!(t.slice(&s![2..100]).unwrap().dims(), &[2, 6]);
    let e = t.slice(&[Slice::new(Some(3), Some(1), 1)]).unwrap();
    assert_eq!(e.dims(), &[0, 6]);
    assert!(e.to_vec().is_empty());
    assert_eq!(t.slice(&s![..=-1]).unwrap().dims(), &[4, 6]);
    // A view of a view; writes go through to the base.
    let mut w = v.slice(&[Slice::all(), (1..).into()]).unwrap();
    w.fill_(-1).unwrap();
    assert_eq!(t.to_vec()[8], -1);
    assert!(t.slice(&[Slice::all().step(0)]).is_err());
    assert!(
        t.slice(&[Slice::all(), Slice::all(), Slice::all()])
            .is_err()
    );
}

/// `a · b` for row-major f64 matrices.
fn mm(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    (0..m * n)
        .map(|ij| (0..k).map(|p| a[ij / n * k + p] * b[p * n + ij % n]).sum())
        .collect()
}

fn eye(n: usize) -> Vec<f64> {
    (0..n * n)
        .map(|ij| (ij / n == ij % n) as u8 as f64)
        .collect()
}

fn inverse_and_solve<T: FloatElement>() {
    let tol = tol(T::DTYPE).max(1e-12) * 50.0;
    let a = [4.0, 7.0, 2.0, 6.0];
    let inv = tensor::<T>(&a, &[2, 2]).inverse();
    assert_close(&f64s(&inv), &[0.6, -0.7, -0.2, 0.4], tol);
    // A batch of 3x3 matrices against reconstruction; b as a vector and as a matrix.
    let m = [2.0, 1.0, 0.0, 1.0, 3.0, 1.0, 0.0, 1.0, 4.0];
    let batch: Vec<f64> = m.iter().chain(&eye(3)).copied().collect();
    let stack = tensor::<T>(&batch, &[2, 3, 3]);
    let inv = f64s(&stack.inverse());
    assert_close(&mm(&m, &inv[..9], 3, 3, 3), &eye(3), tol);
    assert_close(&inv[9..], &eye(3), tol);
    let b = tensor::<T>(&[1.0, 2.0, 3.0], &[3]);
    let x = tensor::<T>(&m, &[3, 3]).solve(&b);
    assert_eq!(x.dims(), &[3]);
    assert_close(&mm(&m, &f64s(&x), 3, 3, 1), &[1.0, 2.0, 3.0], tol);
    let bm = tensor::<T>(&[1.0, 0.0, 2.0, 1.0, 3.0, -1.0], &[3, 2]);
    let xs = stack.solve(&bm);
    assert_eq!(xs.dims(), &[2, 3, 2]);
    let xs = f64s(&xs);
    assert_close(&mm(&m, &xs[..6], 3, 3, 2), &f64s(&bm), tol);
    assert_close(&xs[6..], &f64s(&bm), tol);
}

#[test]
fn inverse_solve_every_float_dtype() {
    for_types!(inverse_and_solve: f32, f64, f16, bf16);
    // Integers promote like every float-valued op.
    let i: Tensor<f32> = Tensor::<i32>::from_vec(vec![2, 0, 0, 4], [2, 2])
        .unwrap()
        .inverse();
    assert_eq!(i.to_vec(), vec![0.5, 0.0, 0.0, 0.25]);
    let empty = Tensor::<f64>::zeros([0, 0]).unwrap().inverse();
    assert_eq!(empty.dims(), &[0, 0]);
}

#[test]
fn singular_and_bad_shapes_are_errors() {
    let s = Tensor::<f64>::from_vec(vec![1.0, 2.0, 2.0, 4.0], [2, 2]).unwrap();
    let e = s.try_inverse().unwrap_err();
    assert!(matches!(e, Error::Singular { .. }), "{e}");
    assert!(e.to_string().contains("singular"), "{e}");
    // Numerically singular (rank 2): an error, not 1e16s.
    let r2 = Tensor::<f64>::arange(0.0, 9.0, 1.0)
        .unwrap()
        .reshape([3, 3]);
    assert!(r2.try_inverse().is_err());
    let b = Tensor::<f64>::ones([2]).unwrap();
    assert!(s.try_solve(&b).is_err());
    let rect = Tensor::<f64>::ones([2, 3]).unwrap();
    assert!(
        rect.try_inverse()
            .unwrap_err()
            .to_string()
            .contains("(2, 3)")
    );
    assert!(Tensor::<f64>::ones([3]).unwrap().try_inverse().is_err());
    let eye2 = Tensor::<f64>::eye(2).unwrap();
    let e = eye2.try_solve(&Tensor::ones([3]).unwrap()).unwrap_err();
    assert!(matches!(e, Error::ShapeMismatch { .. }), "{e}");
    // Batch dims that do not broadcast.
    let a = Tensor::<f64>::eye(2)
        .unwrap()
        .broadcast_to([3, 2, 2])
        .unwrap();
    assert!(a.try_solve(&Tensor::ones([4, 2, 1]).unwrap()).is_err());
    // Inputs unchanged.
    assert_eq!(s.to_vec(), vec![1.0, 2.0, 2.0, 4.0]);
}

fn svd_pinv_eigh<T: FloatElement>() {
    let tol = tol(T::DTYPE).max(1e-12) * 50.0;
    let (m, n) = (3, 2);
    let a = [3.0, 2.0, 2.0, 3.0, 2.0, -2.0];
    let (u, s, vh) = tensor::<T>(&a, &[m, n]).svd();
    assert_eq!(
        (u.dims(), s.dims(), vh.dims()),
        (&[3, 2][..], &[2][..], &[2, 2][..])
    );
    let (u, s, vh) = (f64s(&u), f64s(&s), f64s(&vh));
    assert!(s[0] >= s[1]);
    let us: Vec<f64> = (0..m * n).map(|ij| u[ij] * s[ij % n]).collect();
    assert_close(&mm(&us, &vh, m, n, n), &a, tol);
    let p = f64s(&tensor::<T>(&a, &[m, n]).pinv());
    // A · A⁺ · A = A.
    let apa = mm(&mm(&a, &p, m, n, m), &a, m, m, n);
    assert_close(&apa, &a, tol * 10.0);
    // eigh of [[2, 1], [1, 2]]: eigenvalues 1, 3; reconstruct V diag(w) Vᵀ.
    let sym = [2.0, 1.0, 1.0, 2.0];
    let (w, v) = tensor::<T>(&sym, &[2, 2]).eigh();
    assert_close(&f64s(&w), &[1.0, 3.0], tol);
    let v = f64s(&v);
    let vw: Vec<f64> = (0..4).map(|ij| v[ij] * [1.0, 3.0][ij % 2]).collect();
    let vt = [v[0], v[2], v[1], v[3]];
    assert_close(&mm(&vw, &vt, 2, 2, 2), &sym, tol);
}

#[test]
fn svd_pinv_eigh_every_float_dtype() {
    for_types!(svd_pinv_eigh: f32, f64, f16, bf16);
    // Batched shapes; only the lower triangle of eigh's input is read.
    let x = Tensor::<f64>::from_vec(vec![2.0, 99.0, 1.0, 2.0], [2, 2])
        .unwrap()
        .broadcast_to([4, 2, 2])
        .unwrap();
    let (w, v) = x.eigh();
    assert_eq!((w.dims(), v.dims()), (&[4, 2][..], &[4, 2, 2][..]));
    assert_close(&w.to_vec()[6..], &[1.0, 3.0], 1e-12);
    assert_eq!(x.pinv().dims(), &[4, 2, 2]);
    let wide = Tensor::<f32>::ones([2, 5]).unwrap();
    let (u, s, vh) = wide.svd();
    assert_eq!(
        (u.dims(), s.dims(), vh.dims()),
        (&[2, 2][..], &[2][..], &[2, 5][..])
    );
    assert_close(&f64s(&s), &[10f64.sqrt(), 0.0], 1e-6);
    assert!(Tensor::<f64>::ones([3]).unwrap().try_svd().is_err());
    assert!(Tensor::<f64>::ones([2, 3]).unwrap().try_eigh().is_err());
}

#[test]
fn det_slogdet_and_cholesky_match_numpy() {
    on_every_device!("det_slogdet_and_cholesky_match_numpy", |dev| {
        let m = |v: &[f64], dims: &[usize]| {
            Tensor::<f64, _>::from_vec_on(v.to_vec(), dims, &dev).unwrap()
        };
        // np.linalg.slogdet / det
        let a = m(&[4.0, 1.0, 2.0, 3.0], &[2, 2]);
        let (s, l) = a.slogdet();
        assert_eq!(s.to_vec(), vec![1.0]);
        assert!((l.item() - 10f64.ln()).abs() < 1e-14);
        assert!((a.det().item() - 10.0).abs() < 1e-13);
        assert_eq!(
            m(&[0.0, 1.0, 1.0, 0.0], &[2, 2]).slogdet().0.to_vec(),
            vec![-1.0]
        );
        let (s, l) = m(&[1.0, 2.0, 2.0, 4.0], &[2, 2]).slogdet();
        assert_eq!((s.item(), l.item()), (0.0, f64::NEG_INFINITY));
        // A stack (and its transposes, same determinants), 0 × 0 matrices, integers.
        let b = m(
            &[
                5.0, 1.0, 2.0, 4.0, 10.0, 6.0, 8.0, 9.0, 15.0, 17.0, 13.0, 14.0, 16.0, 22.0, 18.0,
                20.0, 21.0, 27.0,
            ],
            &[2, 3, 3],
        );
        let want = [380.0, 1280.0];
        for d in [b.det(), b.transpose(-1, -2).unwrap().det()] {
            let got = d.to_vec();
            assert!(
                got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-9 * w),
                "{got:?}"
            );
        }
        assert_eq!(
            Tensor::<f64, _>::zeros_on([2, 0, 0], &dev)
                .unwrap()
                .det()
                .to_vec(),
            vec![1.0, 1.0]
        );
        let i =
            Tensor::<i32, _>::from_vec_on(vec![2, 1, 0, 1, 3, 1, 0, 1, 4], [3, 3], &dev).unwrap();
        assert!((i.det().item() - 18.0).abs() < 1e-5); // f32, as sin of i32
        assert!(m(&[1.0, 2.0, 3.0], &[1, 3]).try_det().is_err());
        assert!(m(&[1.0], &[1]).try_slogdet().is_err());
        // Gradients: det · A⁻ᵀ, the adjugate for a singular matrix, and slogdet's A⁻ᵀ
        // (PyTorch's values).
        let grad_of = |x: &Tensor<f64, _>, log: bool, want: [f64; 4]| {
            let leaf = x.deep_copy().with_requires_grad(true).unwrap();
            let y = if log { leaf.slogdet().1 } else { leaf.det() };
            y.backward();
            let g = leaf.grad_tensor().unwrap().to_vec();
            let close = g.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-12);
            assert!(close, "{g:?} against {want:?}");
        };
        grad_of(&a, false, [3.0, -2.0, -1.0, 4.0]);
        grad_of(
            &m(&[1.0, 2.0, 2.0, 4.0], &[2, 2]),
            false,
            [4.0, -2.0, -2.0, 1.0],
        );
        grad_of(&a, true, [0.3, -0.2, -0.1, 0.4]);
        // np.linalg.cholesky, lower and upper; only the lower triangle is read.
        let spd = m(&[4.0, 2.0, -2.0, 2.0, 10.0, 2.0, -2.0, 2.0, 5.0], &[3, 3]);
        let r3 = 3f64.sqrt();
        let near = |t: Tensor<f64, _>, want: [f64; 9]| {
            let got = t.to_vec();
            assert!(
                got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-14),
                "{got:?}"
            );
        };
        let lower = [2.0, 0.0, 0.0, 1.0, 3.0, 0.0, -1.0, 1.0, r3];
        near(spd.cholesky(false), lower);
        near(spd.tril(0).cholesky(false), lower);
        near(
            spd.cholesky(true),
            [2.0, 1.0, -1.0, 0.0, 3.0, 1.0, 0.0, 0.0, r3],
        );
        let e = m(&[1.0, 2.0, 2.0, 1.0], &[2, 2])
            .try_cholesky(false)
            .unwrap_err();
        assert!(
            e.to_string().starts_with("cholesky") && e.to_string().contains("positive-definite")
        );
        assert!(m(&[1.0, 2.0], &[1, 2]).try_cholesky(false).is_err());
    });
}

/// `cholesky_ex`/`inv_ex`/`lu_factor_ex`/`solve_ex` report each matrix's failure as PyTorch 2.15's `info` (quoted) and
/// leave the others' results and gradients as `cholesky`/`inverse` give them; every device.
#[test]
fn ex_forms_report_info() {
    on_every_device!("cholesky_ex", |dev| {
        let f = |v: Vec<f64>, s: &[usize]| Tensor::<f64, _>::from_vec_on(v, s, &dev).unwrap();
        // PD, indefinite, and negative definite in the second minor: info [0, 2, 2].
        let a = f(
            vec![4., 2., 2., 3., 1., 2., 2., 1., 1., 0., 0., -1.],
            &[3, 2, 2],
        );
        let (l, info) = a.try_cholesky_ex(false).unwrap();
        assert_eq!(info.try_to_vec().unwrap(), [0, 2, 2]);
        let l = l.try_to_vec().unwrap();
        let ok = a.narrow(0, 0, 1).unwrap().try_cholesky(false).unwrap();
        assert_eq!(l[..4], ok.try_to_vec().unwrap()[..]);
        assert!(l[4..].iter().all(|v| v.is_nan()));
        let (u, info) = a.narrow(0, 0, 1).unwrap().cholesky_ex(true);
        assert_eq!(
            (info.try_to_vec().unwrap(), u.dims()),
            (vec![0], &[1, 2, 2][..])
        );
        assert_eq!(
            u.try_to_vec().unwrap(),
            ok.t().try_contiguous().unwrap().try_to_vec().unwrap()
        );
        // Singular (rank 1), regular, zero: info [2, 0, 1] as PyTorch's.
        let b = f(
            vec![1., 2., 2., 4., 2., 1., 1., 1., 0., 0., 0., 0.],
            &[3, 2, 2],
        );
        let (inv, info) = b.try_inv_ex().unwrap();
        assert_eq!(info.try_to_vec().unwrap(), [2, 0, 1]);
        assert_eq!(inv.try_to_vec().unwrap()[4..8], [1., -1., -1., 2.]);
        // Gradients where info is 0 equal the plain ops'.
        let x = f(vec![4., 2., 2., 3.], &[2, 2])
            .with_requires_grad(true)
            .unwrap();
        let (l, _) = x.try_cholesky_ex(false).unwrap();
        l.try_sum(&[], false).unwrap().try_backward().unwrap();
        let g_ex = x.grad_tensor().unwrap().try_to_vec().unwrap();
        let y = x.detach().with_requires_grad(true).unwrap();
        y.try_cholesky(false)
            .unwrap()
            .try_sum(&[], false)
            .unwrap()
            .try_backward()
            .unwrap();
        assert_eq!(g_ex, y.grad_tensor().unwrap().try_to_vec().unwrap());
        let (i, _) = y.try_inv_ex().unwrap();
        assert_eq!(
            i.try_to_vec().unwrap(),
            y.try_inverse().unwrap().try_to_vec().unwrap()
        );
        // Empty matrices: info zeros of the batch; refusals.
        let e = Tensor::<f32, _>::zeros_on([3, 0, 0], &dev).unwrap();
        let (l, info) = e.try_cholesky_ex(false).unwrap();
        assert_eq!(
            (l.dims(), info.try_to_vec().unwrap()),
            (&[3, 0, 0][..], vec![0; 3])
        );
        let r = Tensor::<f32, _>::zeros_on([2, 3], &dev).unwrap();
        let msg = r.try_inv_ex().unwrap_err().to_string();
        assert!(msg.contains("inv_ex") && msg.contains("square"), "{msg}");
        // lu_factor_ex and solve_ex as PyTorch's: info [0, 2] for diag(2, 4) and a rank-1
        // matrix; the regular system solved, the singular one NaN (PyTorch: ±inf).
        let c = f(vec![2., 0., 0., 4., 1., 2., 2., 4.], &[2, 2, 2]);
        let (lu, piv, info) = c.try_lu_factor_ex().unwrap();
        assert_eq!(info.try_to_vec().unwrap(), [0, 2]);
        assert_eq!(lu.try_to_vec().unwrap(), [2., 0., 0., 4., 2., 4., 0.5, 0.]);
        assert_eq!(piv.try_to_vec().unwrap(), [1, 2, 2, 2]);
        let rhs = f(vec![2., 8.], &[2]);
        let (x, info) = c.try_solve_ex(&rhs).unwrap();
        assert_eq!(
            (x.dims(), info.try_to_vec().unwrap()),
            (&[2, 2][..], vec![0, 2])
        );
        let x = x.try_to_vec().unwrap();
        assert!(
            x[..2] == [1., 2.] && x[2..].iter().all(|v| v.is_nan()),
            "{x:?}"
        );
        let rhs2 = f(vec![2., 1., 8., 0.], &[2, 2]);
        let (x2, _) = c.narrow(0, 0, 1).unwrap().solve_ex(&rhs2);
        assert_eq!(x2.try_to_vec().unwrap(), [1., 0.5, 2., 0.]);
        let e = r.try_solve_ex(&r).unwrap_err().to_string();
        assert!(e.contains("solve_ex"), "{e}");
    });
}
