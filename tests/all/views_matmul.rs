//! Views share storage; matmul follows NumPy (and the seed where the seed is right).

use crate::common::*;
use typed_tensor::prelude::*;

#[test]
fn views_share_storage() {
    let base = Tensor::<i32>::arange(0, 12, 1).unwrap().reshape([3, 4]);
    assert!(base.owns_data() || !base.owns_data());
    let mut v = base.narrow(0, 1, 1).unwrap();
    assert!(!v.owns_data() && v.shares_storage_with(&base));
    v.fill_(-1).unwrap();
    assert_eq!(base.to_vec()[4..8], [-1; 4]);
    let t = base.t();
    assert_eq!(t.shape().dims(), &[4, 3]);
    assert_eq!(t.stride(), &[1, 4]);
    assert_eq!(t.to_vec()[..3], [0, -1, 8]);
    let c = base.contiguous();
    assert!(
        c.shares_storage_with(&base),
        "contiguous() of a contiguous tensor does not copy"
    );
    let tc = t.contiguous();
    assert!(!tc.shares_storage_with(&base) && tc.is_contiguous());
    let d = base.deep_copy();
    assert!(!d.shares_storage_with(&base) && d.owns_data());
    let clone = base.clone();
    assert!(clone.shares_storage_with(&base));
}

#[test]
fn reshape_permute_squeeze_slice() {
    let x = Tensor::<f32>::arange(0.0, 24.0, 1.0).unwrap();
    let r = x.reshape([2i64, -1, 4]);
    assert_eq!(r.shape().dims(), &[2, 3, 4]);
    assert!(r.shares_storage_with(&x));
    let e = x.try_reshape([5usize, 5]).unwrap_err();
    assert!(e.to_string().contains("(24,)"), "{e}");
    assert!(x.try_reshape([-1i64, -1]).is_err());
    let p = r.permute(&[2, 0, 1]).unwrap();
    assert_eq!(p.shape().dims(), &[4, 2, 3]);
    assert_eq!(p.to_vec()[..3], [0.0, 4.0, 8.0]);
    assert!(r.permute(&[0, 0, 1]).is_err());
    assert!(p.view([24usize]).is_err());
    let pr = p.reshape([24usize]);
    assert!(!pr.shares_storage_with(&x));
    let u = x.unsqueeze(0).unwrap().unsqueeze(-1).unwrap();
    assert_eq!(u.shape().dims(), &[1, 24, 1]);
    assert_eq!(u.squeeze().shape().dims(), &[24]);
    assert_eq!(u.squeeze_dims(&[0]).unwrap().shape().dims(), &[24, 1]);
    assert!(u.squeeze_dims(&[1]).is_err());
    assert!(x.unsqueeze(3).is_err());
    let s = r.slice_dim(2, 1, 4, 2).unwrap();
    assert_eq!(s.shape().dims(), &[2, 3, 2]);
    assert_eq!(s.to_vec()[..4], [1.0, 3.0, 5.0, 7.0]);
    assert!(r.narrow(1, 2, 5).is_err());
    assert_eq!(r.narrow(1, 2, 1).unwrap().shape().dims()[1], 1);
    // Python's clamping: a start past the end is an empty view; a zero step is refused.
    assert_eq!(r.slice_dim(0, 3, 4, 1).unwrap().dims(), &[0, 3, 4]);
    assert!(r.slice_dim(0, 0, 2, 0).is_err());
    assert_eq!(x.flip(&[0]).unwrap().to_vec()[0], 23.0);
    // No axes listed: nothing flipped or squeezed (NumPy and PyTorch), unlike reductions.
    assert_eq!(u.flip(&[]).unwrap().to_vec(), x.to_vec());
    assert_eq!(u.squeeze_dims(&[]).unwrap().shape().dims(), &[1, 24, 1]);
    let m = x.reshape([4usize, 6]);
    assert_eq!(m.diagonal(0).unwrap().to_vec(), vec![0.0, 7.0, 14.0, 21.0]);
    assert_eq!(m.diagonal(2).unwrap().to_vec(), vec![2.0, 9.0, 16.0, 23.0]);
    assert_eq!(m.diagonal(-1).unwrap().to_vec(), vec![6.0, 13.0, 20.0]);
    assert_eq!(m.t().flatten().to_vec()[..2], [0.0, 6.0]);
    let b = Tensor::<f32>::ones([3])
        .unwrap()
        .broadcast_to([2, 3])
        .unwrap();
    assert_eq!((b.stride(), b.to_vec().len()), (&[0isize, 1][..], 6));
    assert!(
        Tensor::<f32>::ones([3])
            .unwrap()
            .broadcast_to([2, 4])
            .is_err()
    );
    assert!(x.transpose(0, 1).is_err());
    // The NumPy/PyTorch aliases are the same views.
    let e = x.expand_dims(-1).unwrap();
    assert!(e.shares_storage_with(&x) && e.shape().dims() == [24, 1]);
    assert!(x.expand_dims(2).is_err());
    let w = e.expand([24, 3]).unwrap();
    assert_eq!(
        (w.stride(), w.to_vec()[..4].to_vec()),
        (&[1isize, 0][..], vec![0.0, 0.0, 0.0, 1.0])
    );
    assert!(e.expand([24, 3, 2]).is_err());
    assert!(m.ravel().shares_storage_with(&x));
    assert_eq!(m.t().ravel().to_vec(), m.t().flatten().to_vec());
}

#[test]
fn seed_matmul_examples() {
    let a = Tensor::<f32>::full([2, 3], 2.0).unwrap();
    let b = Tensor::<f32>::full([3, 4], 3.0).unwrap();
    let c = a.matmul(&b);
    assert_eq!(c.shape().dims(), &[2, 4]);
    assert_eq!(c.to_vec(), vec![18.0; 8]);
    let shapes: [(&[usize], &[usize], Option<&[usize]>); 5] = [
        (&[5, 2, 3], &[5, 3, 4], Some(&[5, 2, 4])),
        (&[5, 2, 3], &[1, 3, 4], Some(&[5, 2, 4])),
        // The seed prints (4, 5, 3, 2); NumPy (and this crate) give (4, 5, 2, 2).
        (&[4, 1, 2, 3], &[5, 3, 2], Some(&[4, 5, 2, 2])),
        (&[5, 2, 3], &[2, 3, 4], None),
        // The seed's code example is not broadcastable (batch 4 against 5).
        (&[1, 4, 2, 3], &[5, 3, 4], None),
    ];
    for (sa, sb, want) in shapes {
        let a = Tensor::<f32>::ones(sa).unwrap();
        let b = Tensor::<f32>::full(sb, 2.0).unwrap();
        match (a.try_matmul(&b), want) {
            (Ok(r), Some(w)) => {
                assert_eq!(r.shape().dims(), w);
                assert!(r.to_vec().iter().all(|&v| v == 6.0));
            }
            (Err(e), None) => {
                let m = e.to_string();
                assert!(
                    m.contains(&Shape::from(sa).to_string())
                        && m.contains(&Shape::from(sb).to_string()),
                    "{m}"
                );
            }
            (r, w) => panic!(
                "{sa:?} @ {sb:?}: {:?} vs {w:?}",
                r.map(|t| t.shape().clone())
            ),
        }
    }
    let e = a.try_matmul(&a).unwrap_err();
    assert!(e.to_string().contains("(2, 3)"));
}

fn naive(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut out = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            out[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
        }
    }
    out
}

fn random_matmul<T: NumElement>() {
    let mut s = 11u64;
    let mut next = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((s >> 40) % 7) as f64 - 3.0
    };
    for (m, k, n) in [
        (1, 1, 1),
        (3, 5, 4),
        (17, 33, 9),
        (20, 40, 90),
        (70, 80, 90),
    ] {
        let av: Vec<f64> = (0..m * k).map(|_| next()).collect();
        let bv: Vec<f64> = (0..k * n).map(|_| next()).collect();
        let (av, bv) = if T::DTYPE == Dtype::UInt8 {
            (
                av.iter().map(|x| x.abs()).collect::<Vec<_>>(),
                bv.iter().map(|x| x.abs()).collect::<Vec<_>>(),
            )
        } else {
            (av, bv)
        };
        let a = tensor::<T>(&av, &[m, k]);
        let b = tensor::<T>(&bv, &[k, n]);
        let want: Vec<f64> = naive(&av, &bv, m, k, n)
            .iter()
            .map(|&v| {
                if T::DTYPE.is_float() {
                    T::from_f64(v)
                } else {
                    T::from_i64(v as i64)
                }
                .to_f64()
            })
            .collect();
        let rel = if T::DTYPE == Dtype::Bfloat16 || T::DTYPE == Dtype::Float16 {
            1e-2
        } else {
            1e-6
        };
        assert_close(&f64s(&a.matmul(&b)), &want, rel);
        // Transposed operands are read through their strides.
        let at = tensor::<T>(&av, &[m, k]).t().contiguous().t();
        let bt = b.t().contiguous().t();
        assert!(!bt.is_contiguous() || n == 1 || k == 1);
        assert_close(&f64s(&at.matmul(&bt)), &want, rel);
    }
    // Batched with broadcasting, against per-batch 2-d products.
    let a = tensor::<T>(
        &(0..2 * 3 * 4).map(|i| (i % 5) as f64).collect::<Vec<_>>(),
        &[2, 1, 3, 4],
    );
    let b = tensor::<T>(
        &(0..3 * 4 * 2).map(|i| (i % 3) as f64).collect::<Vec<_>>(),
        &[3, 4, 2],
    );
    let c = a.matmul(&b);
    assert_eq!(c.shape().dims(), &[2, 3, 3, 2]);
    for i in 0..2 {
        for j in 0..3 {
            let ai = a.narrow(0, i, 1).unwrap().squeeze();
            let bj = b.narrow(0, j, 1).unwrap().squeeze();
            let cij = c.narrow(0, i, 1).unwrap().narrow(1, j, 1).unwrap();
            assert_eq!(f64s(&cij), f64s(&ai.matmul(&bj)));
        }
    }
    // matmul_into: into a fresh tensor, a transposed (non-contiguous) one, an operand; a wrong
    // output shape is an Err that leaves the output unchanged.
    let mut out = Tensor::<T>::zeros([2, 3, 3, 2]).unwrap();
    a.matmul_into(&b, &mut out).unwrap();
    assert_eq!(f64s(&out), f64s(&c));
    let sq = tensor::<T>(&[1.0, 2.0, 0.0, 1.0], &[2, 2]);
    let want_sq = f64s(&sq.matmul(&sq));
    let mut strided_out = Tensor::<T>::zeros([2, 2]).unwrap().t();
    sq.matmul_into(&sq, &mut strided_out).unwrap();
    assert_eq!(f64s(&strided_out), want_sq);
    let mut alias = sq.clone();
    sq.matmul_into(&sq, &mut alias).unwrap();
    assert_eq!((f64s(&alias), f64s(&sq)), (want_sq.clone(), want_sq));
    let mut wrong = Tensor::<T>::ones([3, 2]).unwrap();
    let err = a.matmul_into(&b, &mut wrong).unwrap_err().to_string();
    assert!(err.contains("matmul") && err.contains("(3, 2)"), "{err}");
    assert_eq!(f64s(&wrong), vec![1.0; 6]);
    // An empty inner dimension sums nothing: zeros (NumPy), batched too. Debug builds fill
    // fresh outputs with 0xFF bytes, so an unwritten element shows here.
    let e = a
        .narrow(3, 0, 0)
        .unwrap()
        .matmul(&b.narrow(1, 0, 0).unwrap());
    assert_eq!(
        (e.shape().dims(), f64s(&e)),
        (&[2, 3, 3, 2][..], vec![0.0; 36])
    );
    let e = Tensor::<T>::ones([3, 0])
        .unwrap()
        .matmul(&Tensor::<T>::ones([0, 4]).unwrap());
    assert_eq!(f64s(&e), vec![0.0; 12]);
    // 1-d operands, dot, outer, vecdot.
    let v = tensor::<T>(&[1.0, 2.0, 3.0], &[3]);
    let m = tensor::<T>(&[1.0, 0.0, 0.0, 1.0, 1.0, 1.0], &[3, 2]);
    assert_eq!(f64s(&v.matmul(&m)), vec![4.0, 5.0]);
    assert_eq!(f64s(&m.t().matmul(&v)), vec![4.0, 5.0]);
    let d = v.dot(&v);
    assert_eq!((d.ndim(), f64s(&d)), (0, vec![14.0]));
    assert_eq!(v.outer(&v).shape().dims(), &[3, 3]);
    assert_eq!(
        f64s(&m.vecdot(&tensor::<T>(&[1.0, 2.0], &[2]))),
        vec![1.0, 2.0, 3.0]
    );
    assert!(v.try_dot(&m).is_err());
}

#[test]
fn matmul_every_dtype() {
    for_types!(random_matmul: f32, f64, f16, bf16, i16, i32, i64, u8);
}

#[test]
fn matmul_large_against_reference() {
    manual_seed(5);
    let a = Tensor::<f64>::randn([130, 257]).unwrap();
    let b = Tensor::<f64>::randn([257, 129]).unwrap();
    let want = naive(&a.to_vec(), &b.to_vec(), 130, 257, 129);
    assert_close(&a.matmul(&b).to_vec(), &want, 1e-10);
    let af = a.cast::<f32>();
    let got = f64s(&af.t().contiguous().t().matmul(&b.cast::<f32>()));
    assert_close(&got, &want, 1e-4);
    // Column-major batched and broadcast operands (copied row-major first, or read through
    // their strides) against per-matrix products.
    let bt = Tensor::<f64>::randn([3, 129, 257])
        .unwrap()
        .transpose(1, 2)
        .unwrap();
    let got = a.matmul(&bt).to_vec();
    for i in 0..3 {
        let bi = bt.narrow(0, i, 1).unwrap().squeeze().contiguous().to_vec();
        let want = naive(&a.to_vec(), &bi, 130, 257, 129);
        assert_close(&got[i * 130 * 129..(i + 1) * 130 * 129], &want, 1e-10);
    }
    let bb = b.t().contiguous().t().expand([2, 257, 129]).unwrap();
    let got = a.t().contiguous().t().matmul(&bb).to_vec();
    assert_close(&got[130 * 129..], &want, 1e-10);
}

/// `concat` (whose output is not zeroed first) along every axis of 3-d pieces, one of them
/// empty along the axis and one transposed, for several dtypes on every device, against the
/// definition; `full` on every dtype. Debug builds poison fresh CPU buffers, so an element left
/// unwritten fails here.
#[test]
fn concat_and_full_write_every_element() {
    fn run<T: Element, D: Backend>(dev: &D) {
        let dims = [3usize, 4, 5];
        for ax in 0..3 {
            let mut sizes = dims;
            let piece = |len: usize, start: i64| {
                let mut d = dims;
                d[ax] = len;
                let n: usize = d.iter().product();
                let v: Vec<T> = (0..n as i64)
                    .map(|i| T::from_i64((start + i) % 97))
                    .collect();
                Tensor::<T>::from_vec(v, d.to_vec())
                    .unwrap()
                    .to_device(dev)
                    .unwrap()
            };
            let a = piece(2, 0);
            let empty = piece(0, 0);
            // A transposed view with the wanted shape: built as the transpose, transposed back.
            let mut bt = dims;
            bt[ax] = 3;
            bt.swap(0, 2);
            let n: usize = bt.iter().product();
            let b = Tensor::<T>::from_vec(
                (0..n as i64).map(|i| T::from_i64((i * 7) % 89)).collect(),
                bt.to_vec(),
            )
            .unwrap()
            .to_device(dev)
            .unwrap()
            .permute(&[2, 1, 0])
            .unwrap();
            let got = Tensor::concat(&[&a, &empty, &b], ax as i64);
            sizes[ax] = 5;
            assert_eq!(got.dims(), &sizes[..]);
            let (av, bv) = (a.to_device(&Cpu).unwrap(), b.to_device(&Cpu).unwrap());
            let got = got.to_device(&Cpu).unwrap().to_vec();
            let mut k = 0;
            for i in 0..sizes[0] {
                for j in 0..sizes[1] {
                    for l in 0..sizes[2] {
                        let mut at = [i, j, l];
                        let want = if at[ax] < 2 {
                            av.get(&at.map(|v| v as i64)).unwrap()
                        } else {
                            at[ax] -= 2;
                            bv.get(&at.map(|v| v as i64)).unwrap()
                        };
                        assert!(got[k] == want, "{} axis {ax} at {:?}", T::DTYPE, [i, j, l]);
                        k += 1;
                    }
                }
            }
        }
        let f = Tensor::<T, D>::full_on([3, 70], T::from_i64(1), dev).unwrap();
        assert!(
            f.to_device(&Cpu)
                .unwrap()
                .to_vec()
                .iter()
                .all(|&v| v == T::from_i64(1))
        );
    }
    on_every_device!("concat_and_full_write_every_element", |dev| {
        run::<f32, _>(&dev);
        run::<f64, _>(&dev);
        run::<i64, _>(&dev);
        run::<u8, _>(&dev);
        run::<bool, _>(&dev);
        run::<bf16, _>(&dev);
    });
}

#[test]
fn combining_and_indexing() {
    let a = Tensor::<i32>::arange(0, 6, 1).unwrap().reshape([2, 3]);
    let b = Tensor::<i32>::arange(6, 12, 1).unwrap().reshape([2, 3]);
    let c = Tensor::concat(&[&a, &b], 0);
    assert_eq!(
        (c.shape().dims(), c.to_vec()),
        (&[4, 3][..], (0..12).collect::<Vec<_>>())
    );
    let c1 = Tensor::cat(&[&a, &b.t().contiguous().t()], 1);
    assert_eq!(c1.to_vec(), vec![0, 1, 2, 6, 7, 8, 3, 4, 5, 9, 10, 11]);
    let e = Tensor::try_concat(&[&a, &b.t()], 0).unwrap_err();
    assert!(
        e.to_string().contains("(2, 3)") && e.to_string().contains("(3, 2)"),
        "{e}"
    );
    let s = Tensor::stack(&[&a, &b], 1);
    assert_eq!(s.shape().dims(), &[2, 2, 3]);
    assert_eq!(s.to_vec()[3..6], [6, 7, 8]);
    let parts = c.split(&[1, 3], 0);
    assert_eq!(
        (parts[0].to_vec(), parts[1].shape().dims()),
        (vec![0, 1, 2], &[3, 3][..])
    );
    assert!(c.try_split(&[1, 1], 0).is_err());
    assert_eq!(
        c.chunk(3, 0)
            .iter()
            .map(|t| t.dims()[0])
            .collect::<Vec<_>>(),
        vec![2, 2]
    );
    let idx = Tensor::<i64>::from_vec(vec![2, 0, -1], [3]).unwrap();
    assert_eq!(a.index_select(1, &idx).to_vec(), vec![2, 0, 2, 5, 3, 5]);
    let bad = Tensor::<i64>::from_vec(vec![3], [1]).unwrap();
    assert!(matches!(
        a.try_take(1, &bad).unwrap_err(),
        Error::Index {
            op: "take",
            index: 3,
            size: 3,
            ..
        }
    ));
    // NumPy: take(arange(6).reshape(2, 3), [[0, 2], [1, -1]], axis=1) has shape (2, 2, 2);
    // a 0-d index drops the axis.
    let idx2 = Tensor::<i64>::from_vec(vec![0, 2, 1, -1], [2, 2]).unwrap();
    let t = a.take(1, &idx2);
    assert_eq!(t.dims(), &[2, 2, 2]);
    assert_eq!(t.to_vec(), vec![0, 2, 1, 2, 3, 5, 4, 5]);
    let t0 = a.take(0, &Tensor::<i64>::scalar(1));
    assert_eq!((t0.dims(), t0.to_vec()), (&[3][..], vec![3, 4, 5]));
    let none = a.take(1, &Tensor::<i64>::zeros([0, 2]).unwrap());
    assert_eq!(none.dims(), &[2, 0, 2]);
    let g = Tensor::<i64>::from_vec(vec![0, 0, 1, 1, 0, 1], [2, 3]).unwrap();
    assert_eq!(
        c.narrow(0, 0, 2).unwrap().gather(0, &g).to_vec(),
        vec![0, 1, 5, 3, 1, 5]
    );
    let sa =
        Tensor::<i32>::zeros([2, 3])
            .unwrap()
            .scatter_add(0, &g, &Tensor::ones([2, 3]).unwrap());
    assert_eq!(sa.to_vec(), vec![1, 2, 0, 1, 0, 2]);
    assert!(
        a.try_gather(0, &Tensor::<i64>::from_vec(vec![2], [1, 1]).unwrap())
            .is_err()
    );
    assert_eq!(a.roll(1, 1).to_vec(), vec![2, 0, 1, 5, 3, 4]);
    assert_eq!(a.roll(-1, 0).to_vec(), vec![3, 4, 5, 0, 1, 2]);
    let t = Tensor::<i32>::from_vec(vec![1, 2], [2]).unwrap();
    assert_eq!(t.tile(&[2, 2]).to_vec(), vec![1, 2, 1, 2, 1, 2, 1, 2]);
    assert_eq!(t.repeat(&[3]).to_vec(), vec![1, 2, 1, 2, 1, 2]);
    assert_eq!(t.repeat_interleave(2, 0).to_vec(), vec![1, 1, 2, 2]);
    let m = Tensor::<f32>::ones([3, 3]).unwrap();
    assert_eq!(m.tril(0).to_vec(), vec![1., 0., 0., 1., 1., 0., 1., 1., 1.]);
    assert_eq!(m.triu(1).to_vec(), vec![0., 1., 1., 0., 0., 1., 0., 0., 0.]);
    assert_eq!(t.diag(0).to_vec(), vec![1, 0, 0, 2]);
    assert_eq!(t.diag(1).to_vec(), vec![0, 1, 0, 0, 0, 2, 0, 0, 0]);
    assert_eq!(a.diag(0).to_vec(), vec![0, 4]);
    let de = a.diag_embed();
    assert_eq!(de.shape().dims(), &[2, 3, 3]);
    assert_eq!(de.to_vec()[9..18], [3, 0, 0, 0, 4, 0, 0, 0, 5]);
    let p = t.pad(&[(1, 2)], -1);
    assert_eq!(p.to_vec(), vec![-1, 1, 2, -1, -1]);
    assert!(t.try_pad(&[(1, 1), (1, 1)], 0).is_err());
    let v = Tensor::<f32>::from_vec(vec![3.0, f32::NAN, 1.0, 2.0, 1.0, 0.5], [2, 3]).unwrap();
    assert_eq!(v.argsort(1, false).to_vec(), vec![2, 0, 1, 2, 1, 0]);
    let (sv, si) = v.sort(0, true);
    // NaN is the largest value (PyTorch): first in a descending sort.
    assert_eq!(si.to_vec(), vec![0, 0, 0, 1, 1, 1]);
    let top: Vec<bool> = sv.to_vec()[..3].iter().map(|x| x.is_nan()).collect();
    assert_eq!(top, [false, true, false]);
    let (tv, ti) = v.narrow(0, 1, 1).unwrap().topk(2, 1);
    assert_eq!((tv.to_vec(), ti.to_vec()), (vec![2.0, 1.0], vec![0, 1]));
    assert!(v.try_topk(4, 1).is_err());
}

/// `gather` and `scatter_add` on 3-d tensors along every axis, with an index smaller than the
/// input on the other axes and negative entries, against a direct evaluation of NumPy's
/// `take_along_axis` / `np.add.at` definitions.
#[test]
fn gather_and_scatter_add_every_axis_against_definition() {
    let dims = [4usize, 5, 6];
    let x =
        Tensor::<f64>::from_vec((0..120).map(|v| v as f64 * 0.5 - 7.0).collect(), dims).unwrap();
    let xv = x.to_vec();
    let flat = |d: [usize; 3], c: [usize; 3]| (c[0] * d[1] + c[1]) * d[2] + c[2];
    for ax in 0..3 {
        let idims = [3usize, 4, 2];
        let n = idims.iter().product::<usize>();
        let size = dims[ax] as i64;
        let raw: Vec<i64> = (0..n as i64)
            .map(|i| (i * 7 + 3) % (2 * size) - size)
            .collect();
        let idx = Tensor::<i64>::from_vec(raw.clone(), idims).unwrap();
        let src = Tensor::<f64>::from_vec((0..n).map(|v| v as f64 + 1.0).collect(), idims).unwrap();
        let got = x.gather(ax as i64, &idx).to_vec();
        let sum = x.scatter_add(ax as i64, &idx, &src).to_vec();
        let mut want_sum = xv.clone();
        for (k, &i) in raw.iter().enumerate() {
            let mut c = [
                k / (idims[1] * idims[2]),
                (k / idims[2]) % idims[1],
                k % idims[2],
            ];
            c[ax] = i.rem_euclid(size) as usize;
            assert_eq!(got[k], xv[flat(dims, c)], "gather axis {ax}, element {k}");
            want_sum[flat(dims, c)] += k as f64 + 1.0;
        }
        assert_eq!(sum, want_sum, "scatter_add axis {ax}");
    }
}

/// `gather` along the last axis of a contiguous tensor (its fast path, on threads from 32 Ki
/// outputs): every index from `-size` to `size - 1`, and an out-of-range one (past either
/// end) an `Err` naming the first in logical order, in either thread's half.
#[test]
fn gather_along_contiguous_lines_checks_every_index() {
    for (rows, len, k) in [(3usize, 5usize, 4usize), (300, 70, 200)] {
        let x = Tensor::<f32>::from_vec((0..rows * len).map(|v| v as f32).collect(), [rows, len])
            .unwrap();
        let size = len as i64;
        let raw: Vec<i64> = (0..(rows * k) as i64)
            .map(|i| (i * 11 + 3) % (2 * size) - size)
            .collect();
        let idx = Tensor::<i64>::from_vec(raw.clone(), [rows, k]).unwrap();
        let got = x.gather(1, &idx).to_vec();
        for (p, &i) in raw.iter().enumerate() {
            let want = (p / k * len) as i64 + i.rem_euclid(size);
            assert_eq!(got[p], want as f32, "element {p}, index {i}");
        }
        for (first, second) in [(size, -size - 1), (-size - 1, i64::MIN), (i64::MAX, size)] {
            for at in [0, rows * k / 2 + 1, rows * k - 2] {
                let mut bad = raw.clone();
                bad[at] = first;
                bad[at + 1] = second;
                let bad = Tensor::<i64>::from_vec(bad, [rows, k]).unwrap();
                let e = x.try_gather(1, &bad).unwrap_err();
                assert!(
                    matches!(e, Error::Index { index, .. } if index == first),
                    "{e}"
                );
            }
        }
    }
}

/// The value of a 3-d tensor at coordinates `c`, through its contiguous copy.
fn at3<T: Element>(v: &[T], d: &[usize], c: [usize; 3]) -> T {
    v[(c[0] * d[1] + c[1]) * d[2] + c[2]]
}

/// `gather`, `scatter_add` and `index_select` read flipped, permuted and stepped views (negative
/// and non-unit strides, without a copy) and strided indices, at sizes that split across
/// threads, against the definitions on contiguous copies; an out-of-range index is an `Err`
/// naming the first one in logical order, and the inputs are unchanged.
#[test]
fn indexed_ops_on_strided_views_match_definition() {
    for &(n0, n1, n2) in &[(3usize, 4usize, 5usize), (48, 70, 50)] {
        let base = Tensor::<f64>::from_vec(
            (0..n0 * n1 * n2).map(|v| (v as f64 * 0.37).sin()).collect(),
            [n2, n0, n1],
        )
        .unwrap();
        // (n0, n1, n2), no unit stride, one axis reversed.
        let x = base.permute(&[1, 2, 0]).unwrap().flip(&[1]).unwrap();
        let (xd, xv) = (x.dims().to_vec(), x.contiguous().to_vec());
        for ax in 0..3 {
            let size = xd[ax] as i64;
            // An index with every other axis smaller than x's, read through a transpose.
            let id = [n0 - 1, n1 - 2, n2 - 1];
            let count = id.iter().product::<usize>();
            let raw: Vec<i64> = (0..count as i64)
                .map(|i| (i * 13 + 5) % (2 * size) - size)
                .collect();
            let idx = Tensor::<i64>::from_vec(raw, [id[2], id[1], id[0]])
                .unwrap()
                .permute(&[2, 1, 0])
                .unwrap();
            let iv = idx.contiguous().to_vec();
            let src = Tensor::<f64>::from_vec(
                (0..count).map(|v| v as f64).collect(),
                [id[2], id[1], id[0]],
            )
            .unwrap()
            .permute(&[2, 1, 0])
            .unwrap();
            let sv = src.contiguous().to_vec();
            let got = x.gather(ax as i64, &idx).to_vec();
            let sum = x.scatter_add(ax as i64, &idx, &src).to_vec();
            let mut want_sum = xv.clone();
            for (k, &i) in iv.iter().enumerate() {
                let mut c = [k / (id[1] * id[2]), (k / id[2]) % id[1], k % id[2]];
                c[ax] = i.rem_euclid(size) as usize;
                assert_eq!(got[k], at3(&xv, &xd, c), "gather axis {ax}, element {k}");
                want_sum[(c[0] * xd[1] + c[1]) * xd[2] + c[2]] += sv[k];
            }
            assert_eq!(sum, want_sum, "scatter_add axis {ax}");
            // index_select with a stepped, reversed 1-d index.
            let sel_raw: Vec<i64> = (0..2 * size)
                .map(|i| (i * 5 + 1) % (2 * size) - size)
                .collect();
            let sel = Tensor::<i64>::from_vec(sel_raw, [2 * size as usize])
                .unwrap()
                .flip(&[0])
                .unwrap()
                .slice_dim(0, 0, 2 * size as usize, 2)
                .unwrap();
            let sl = sel.to_vec();
            let picked = x.index_select(ax as i64, &sel);
            let mut od = xd.clone();
            od[ax] = sl.len();
            assert_eq!(picked.dims(), &od[..]);
            let pv = picked.to_vec();
            for (k, &p) in pv.iter().enumerate() {
                let mut c = [k / (od[1] * od[2]), (k / od[2]) % od[1], k % od[2]];
                c[ax] = sl[c[ax]].rem_euclid(size) as usize;
                assert_eq!(p, at3(&xv, &xd, c), "index_select axis {ax}, element {k}");
            }
            // Two bad indices: the error names the first in logical order.
            let mut bad = iv.clone();
            let last = bad.len() - 1;
            bad[last] = size + 7;
            bad[last / 2] = -size - 3;
            let bad = Tensor::<i64>::from_vec(bad, id).unwrap();
            for e in [
                x.try_gather(ax as i64, &bad).unwrap_err(),
                x.try_scatter_add(ax as i64, &bad, &src.contiguous())
                    .unwrap_err(),
            ] {
                assert!(
                    matches!(e, Error::Index { index, .. } if index == -size - 3),
                    "{e}"
                );
            }
            let bad_sel = Tensor::<i64>::from_vec(vec![0, size, -size - 1], [3]).unwrap();
            let e = x.try_index_select(ax as i64, &bad_sel).unwrap_err();
            assert!(
                matches!(e, Error::Index { index, .. } if index == size),
                "{e}"
            );
            assert_eq!(x.contiguous().to_vec(), xv, "inputs unchanged");
        }
    }
    // Bool and 16-bit elements take the same walk.
    let b = Tensor::<bool>::from_vec(vec![true, false, false, true, true, false], [2, 3]).unwrap();
    let i = Tensor::<i64>::from_vec(vec![2, 0, -1, 1], [2, 2]).unwrap();
    assert_eq!(
        b.t().gather(0, &i.t()).to_vec(),
        vec![false, false, true, true]
    );
    let h =
        Tensor::<f16>::from_vec((0..6).map(|v| f16::from_f32(v as f32)).collect(), [2, 3]).unwrap();
    let s = Tensor::<f16>::ones([2, 2]).unwrap();
    let r: Vec<f32> = h
        .scatter_add(1, &i, &s)
        .to_vec()
        .iter()
        .map(|v| v.to_f32())
        .collect();
    assert_eq!(r, vec![1.0, 1.0, 3.0, 3.0, 5.0, 6.0]);
}

/// A stable sort of `(value, position)` along one row, NaN the largest value: the reference
/// for `argsort` and `topk`.
fn stable_order(row: &[f32], descending: bool) -> Vec<i64> {
    let mut idx: Vec<usize> = (0..row.len()).collect();
    let key = |v: f32| if v.is_nan() { f32::INFINITY } else { v };
    idx.sort_by(|&a, &b| {
        let (x, y) = (row[a], row[b]);
        let o = match (x.is_nan(), y.is_nan()) {
            (true, true) => std::cmp::Ordering::Equal,
            (true, false) => std::cmp::Ordering::Greater,
            (false, true) => std::cmp::Ordering::Less,
            _ => key(x).partial_cmp(&key(y)).unwrap(),
        };
        if descending { o.reverse() } else { o }
    });
    idx.into_iter().map(|i| i as i64).collect()
}

/// `argsort` (both directions) and `topk` (the one-pass path for small `k`, the selection for
/// larger `k`, `k` = 0 and the whole axis) against a stable reference sort, on rows with many
/// ties, NaN, infinities and signed zeros, along the last axis and a strided first axis, at
/// sizes that split across threads.
#[test]
fn argsort_and_topk_match_a_stable_sort() {
    for &(rows, len) in &[(3usize, 7usize), (5, 100), (300, 500)] {
        let vals: Vec<f32> = (0..rows * len)
            .map(|i| match (i * 7919) % 23 {
                0 => f32::NAN,
                1 => f32::INFINITY,
                2 => f32::NEG_INFINITY,
                3 => -0.0,
                4 => 0.0,
                m => ((m * 31 + i / 3) % 9) as f32 - 4.0, // many ties
            })
            .collect();
        let x = Tensor::<f32>::from_vec(vals.clone(), [rows, len]).unwrap();
        // The same rows along axis 0 of a transposed view.
        let xt = Tensor::<f32>::from_vec(vals.clone(), [rows, len])
            .unwrap()
            .t()
            .contiguous()
            .t();
        for descending in [false, true] {
            let want: Vec<i64> = vals
                .chunks(len)
                .flat_map(|r| stable_order(r, descending))
                .collect();
            assert_eq!(
                x.argsort(1, descending).to_vec(),
                want,
                "argsort {rows}x{len}"
            );
            let by_cols = x.t().argsort(0, descending).t().contiguous().to_vec();
            assert_eq!(by_cols, want, "argsort along axis 0 {rows}x{len}");
        }
        for k in [0, 1, 3, len.min(32), len.min(33), len / 2, len] {
            let want: Vec<i64> = vals
                .chunks(len)
                .flat_map(|r| stable_order(r, true).into_iter().take(k))
                .collect();
            let (v, i) = x.topk(k, 1);
            assert_eq!(i.dims(), &[rows, k]);
            assert_eq!(i.to_vec(), want, "topk {k} of {rows}x{len}");
            let picked: Vec<f32> = want
                .chunks(k.max(1))
                .enumerate()
                .flat_map(|(r, c)| {
                    c.iter()
                        .map(|&j| vals[r * len + j as usize])
                        .collect::<Vec<_>>()
                })
                .collect();
            let same = v
                .to_vec()
                .iter()
                .zip(&picked)
                .all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "topk values {k}");
            let (_, it) = xt.t().topk(k, 0);
            assert_eq!(it.t().contiguous().to_vec(), want, "topk {k} along axis 0");
        }
    }
    // Integers keep their exact order (i64 beyond 2^53 too), bool and u8 as numbers.
    let big = (1i64 << 53) + 1;
    let i = Tensor::<i64>::from_vec(vec![i64::MAX, big, i64::MIN, big - 1, -1, big], [6]).unwrap();
    assert_eq!(i.argsort(0, false).to_vec(), vec![2, 4, 3, 1, 5, 0]);
    assert_eq!(i.topk(2, 0).1.to_vec(), vec![0, 1]);
    let b = Tensor::<bool>::from_vec(vec![false, true, false, true], [4]).unwrap();
    assert_eq!(b.argsort(0, true).to_vec(), vec![1, 3, 0, 2]);
    let u = Tensor::<u8>::from_vec(vec![200, 7, 255, 0], [4]).unwrap();
    assert_eq!(u.topk(3, 0).1.to_vec(), vec![2, 0, 1]);
}

#[test]
fn norms_and_tensordot() {
    let m = Tensor::<i32>::from_vec(vec![3, -4, 0, 12], [2, 2]).unwrap();
    let fro: Tensor<f32> = m.norm(2.0, &[], false);
    assert_eq!(fro.item(), 13.0);
    assert_eq!(m.norm(1.0, &[1], false).to_vec(), vec![7.0, 12.0]);
    assert_eq!(m.norm(f64::INFINITY, &[0], true).to_vec(), vec![3.0, 12.0]);
    assert_eq!(m.norm(0.0, &[], false).item(), 3.0);
    let p3 = Tensor::<f64>::from_vec(vec![1.0, 2.0], [2])
        .unwrap()
        .norm(3.0, &[], false);
    assert!((p3.item() - 9f64.powf(1.0 / 3.0)).abs() < 1e-12);
    assert!(m.try_norm(-1.0, &[], false).is_err());
    let a = Tensor::<f64>::arange(0.0, 24.0, 1.0)
        .unwrap()
        .reshape([2, 3, 4]);
    let b = Tensor::<f64>::arange(0.0, 12.0, 1.0)
        .unwrap()
        .reshape([4, 3]);
    let c = a.tensordot(&b, &[1, 2], &[1, 0]);
    let tp = a.tensor_product(&b, &[1, 2], &[1, 0]);
    assert_eq!(tp.to_vec(), c.to_vec());
    let want: Vec<f64> = (0..2)
        .map(|i| {
            (0..3)
                .flat_map(|j| (0..4).map(move |k| (j, k)))
                .map(|(j, k)| ((i * 12 + j * 4 + k) * (k * 3 + j)) as f64)
                .sum()
        })
        .collect();
    assert_eq!(c.to_vec(), want);
    assert_eq!(a.tensordot(&b, &[], &[]).shape().dims(), &[2, 3, 4, 4, 3]);
    assert!(a.try_tensordot(&b, &[1], &[1, 0]).is_err());
    assert!(a.try_tensordot(&b, &[2], &[1]).is_err());
}

/// `concat` of contiguous pieces (the CPU joins them in one pass over the output rows, split
/// across threads): along each axis of 3-d pieces large enough to be split, one of them empty,
/// one an offset view (contiguous, not at the start of its storage), one given twice, for
/// several dtypes on every device, against the definition.
#[test]
fn concat_of_contiguous_pieces_matches_definition() {
    fn run<T: Element, D: Backend>(dev: &D) {
        for ax in 0..3 {
            let base = [48usize, 40, 37];
            let lens = [29usize, 0, 3, 29, 1];
            let mut made = Vec::new();
            for (p, &len) in lens.iter().enumerate() {
                let mut d = base;
                d[ax] = len;
                let n: usize = d.iter().product();
                // Piece 3 is an offset view: the last rows of a taller buffer.
                let extra = if p == 3 { d[1] * d[2] } else { 0 };
                let v: Vec<T> = (0..(n + extra) as i64)
                    .map(|i| T::from_i64((i * (p as i64 + 3)) % 97))
                    .collect();
                let mut full = d;
                full[0] += usize::from(p == 3);
                let t = Tensor::<T>::from_vec(v, full.to_vec())
                    .unwrap()
                    .to_device(dev)
                    .unwrap();
                let t = if p == 3 {
                    t.narrow(0, 1, d[0]).unwrap()
                } else {
                    t
                };
                assert!(t.is_contiguous());
                made.push(t);
            }
            let mut pieces: Vec<&Tensor<T, D>> = made.iter().collect();
            pieces.push(&made[0]); // the same storage twice
            let got = Tensor::concat(&pieces, ax as i64)
                .to_device(&Cpu)
                .unwrap()
                .to_vec();
            let hosts: Vec<Vec<T>> = (pieces.iter())
                .map(|t| t.to_device(&Cpu).unwrap().to_vec())
                .collect();
            let outer: usize = base[..ax].iter().product();
            let mut want = Vec::with_capacity(got.len());
            for r in 0..outer {
                for h in &hosts {
                    let w = h.len() / outer;
                    want.extend_from_slice(&h[r * w..(r + 1) * w]);
                }
            }
            assert!(got == want, "{} axis {ax}", T::DTYPE);
        }
    }
    on_every_device!("concat_of_contiguous_pieces_matches_definition", |dev| {
        run::<f32, _>(&dev);
        run::<i64, _>(&dev);
        run::<f16, _>(&dev);
        run::<u8, _>(&dev);
        run::<bool, _>(&dev);
    });
}
