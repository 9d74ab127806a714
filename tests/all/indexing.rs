//! Advanced indexing (`index`, `index_put`, `index_put_`, `put`) and `unravel_index`/
//! `ravel_multi_index`: literal PyTorch 2.15 / NumPy 2.4 values on every device, a naive
//! reference on random shapes and strided inputs, errors that leave the inputs unchanged, and
//! gradients by `gradcheck`.

use crate::autograd::gradcheck;
use rand::{Rng, SeedableRng, rngs::StdRng};
use typed_tensor::prelude::*;

fn values<D: Device>(dev: &D) -> Result<()> {
    let t = |v: Vec<i64>| Tensor::<i64, D>::from_vec_on(v.clone(), [v.len()], dev);
    let x = Tensor::<i64, D>::arange_on(0, 24, 1, dev)?.try_reshape([2, 3, 4])?;
    let check = |r: Tensor<i64, D>, dims: &[usize], want: &[i64]| {
        assert_eq!(r.dims(), dims);
        assert_eq!(r.try_to_vec().unwrap(), want);
    };
    // x[[0, 1, -1], :, [1, -1, 0]]: not adjacent, so B comes first.
    let (i0, i2) = (t(vec![0, 1, -1])?, t(vec![1, -1, 0])?);
    check(
        x.try_index(&[Some(&i0), None, Some(&i2)])?,
        &[3, 3],
        &[1, 5, 9, 15, 19, 23, 12, 16, 20],
    );
    // x[:, [[0], [2]], [1, 3]]: adjacent, B = (2, 2) stays in place.
    let col = t(vec![0, 2])?.try_reshape([2, 1])?;
    let i13 = t(vec![1, 3])?;
    check(
        x.try_index(&[None, Some(&col), Some(&i13)])?,
        &[2, 2, 2],
        &[1, 3, 9, 11, 13, 15, 21, 23],
    );
    check(
        x.try_index(&[Some(&t(vec![1])?)])?,
        &[1, 3, 4],
        &(12..24).collect::<Vec<_>>(),
    );
    let one = Tensor::<i64, D>::scalar_on(1, dev)?;
    check(
        x.try_index(&[None, Some(&one)])?,
        &[2, 4],
        &[4, 5, 6, 7, 16, 17, 18, 19],
    );
    let rows = t(vec![1, 0])?.try_reshape([2, 1])?;
    check(
        x.try_index(&[Some(&rows), Some(&t(vec![2, 0, -3])?)])?,
        &[2, 3, 4],
        &[
            20, 21, 22, 23, 12, 13, 14, 15, 12, 13, 14, 15, 8, 9, 10, 11, 0, 1, 2, 3, 0, 1, 2, 3,
        ],
    );
    let two = Tensor::<i64, D>::scalar_on(2, dev)?;
    check(
        x.try_index(&[Some(&t(vec![0, 1])?), None, Some(&two)])?,
        &[2, 3],
        &[2, 6, 10, 14, 18, 22],
    );
    // No index tensor: the tensor itself.
    assert_eq!(x.try_index(&[None, None])?.try_to_vec()?, x.try_to_vec()?);

    // index_put: x[[0, 0, 1]] += 5 (a repeated row adds twice).
    let five = Tensor::<i64, D>::full_on([3, 3, 4], 5, dev)?;
    check(
        x.try_index_put(&[Some(&t(vec![0, 0, 1])?)], &five, true)?,
        &[2, 3, 4],
        &[
            10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
            27, 28,
        ],
    );
    // x[[0, 1], :, [1, -1]] = [[7], [8]]: values broadcast to the indexed shape (2, 3).
    let v78 = t(vec![7, 8])?.try_reshape([2, 1])?;
    let h = [
        0, 7, 2, 3, 4, 7, 6, 7, 8, 7, 10, 11, 12, 13, 14, 8, 16, 17, 18, 8, 20, 21, 22, 8,
    ];
    check(
        x.try_index_put(
            &[Some(&t(vec![0, 1])?), None, Some(&t(vec![1, -1])?)],
            &v78,
            false,
        )?,
        &[2, 3, 4],
        &h,
    );
    let i1 = t(vec![0, 2, 0])?;
    let ones = t(vec![1, 1, 1])?;
    let v123 = t(vec![1, 2, 3])?;
    check(
        x.try_index_put(
            &[Some(&rows.flip(&[0])?), Some(&i1), Some(&ones)],
            &v123,
            true,
        )?,
        &[2, 3, 4],
        &[
            0, 5, 2, 3, 4, 5, 6, 7, 8, 11, 10, 11, 12, 17, 14, 15, 16, 17, 18, 19, 20, 23, 22, 23,
        ],
    );
    // A repeated position without accumulate: the last write wins.
    check(
        x.try_index_put(&[None, Some(&i1), Some(&ones)], &v123, false)?,
        &[2, 3, 4],
        &[
            0, 3, 2, 3, 4, 5, 6, 7, 8, 2, 10, 11, 12, 3, 14, 15, 16, 17, 18, 19, 20, 2, 22, 23,
        ],
    );
    let mut y = x.try_deep_copy()?;
    y.index_put_(
        &[Some(&t(vec![0, 1])?), None, Some(&t(vec![1, -1])?)],
        &v78,
        false,
    )?;
    assert_eq!(y.try_to_vec()?, h);
    // put: flat positions, repeated ones accumulated.
    let pi = t(vec![0, -1, 5, 5])?.try_reshape([2, 2])?;
    let pv = t(vec![100, 200, 1, 2])?.try_reshape([2, 2])?;
    let mut k: Vec<i64> = (0..24).collect();
    (k[0], k[5], k[23]) = (100, 8, 223);
    check(x.try_put(&pi, &pv, true)?, &[2, 3, 4], &k);

    let coords = t(vec![0, 5, -1, 23, -24])?.unravel_index(&[2, 3, 4])?;
    let got: Vec<Vec<i64>> = coords.iter().map(|c| c.try_to_vec().unwrap()).collect();
    assert_eq!(
        got,
        [
            vec![0, 0, 1, 1, 0],
            vec![0, 1, 2, 2, 0],
            vec![0, 1, 3, 3, 0]
        ]
    );
    let (a, b, c) = (t(vec![1, 0])?, t(vec![2, 0])?, t(vec![3, 1])?);
    let flat = Tensor::ravel_multi_index(&[&a, &b, &c], &[2, 3, 4])?;
    assert_eq!(flat.try_to_vec()?, [23, 1]);
    Ok(())
}

#[test]
fn indexing_matches_pytorch_and_numpy() {
    on_every_device!("indexing_matches_pytorch_and_numpy", |dev| {
        values(&dev).unwrap();
    });
}

/// `x[idx...]` computed position by position.
fn naive_index(
    dims: &[usize],
    x: &[f64],
    idx: &[Option<(Vec<usize>, Vec<i64>)>],
) -> (Vec<usize>, Vec<f64>) {
    let n = dims.len();
    let axes: Vec<usize> = (0..idx.len()).filter(|&k| idx[k].is_some()).collect();
    let mut b: Vec<usize> = vec![];
    for (s, _) in idx.iter().flatten() {
        let nd = b.len().max(s.len());
        let pad = |v: &[usize]| [vec![1; nd - v.len()], v.to_vec()].concat();
        b = pad(&b).iter().zip(pad(s)).map(|(&p, q)| p.max(q)).collect();
    }
    let rest: Vec<usize> = (0..n).filter(|k| !axes.contains(k)).collect();
    let adjacent = axes.last().is_some_and(|l| l + 1 - axes[0] == axes.len());
    let at = if adjacent { axes[0] } else { 0 };
    let rd: Vec<usize> = rest.iter().map(|&a| dims[a]).collect();
    let out_dims: Vec<usize> = rd[..at]
        .iter()
        .chain(&b)
        .chain(&rd[at..])
        .copied()
        .collect();
    let total: usize = out_dims.iter().product();
    let strides = |d: &[usize]| {
        let mut s = vec![1; d.len()];
        for k in (0..d.len().saturating_sub(1)).rev() {
            s[k] = s[k + 1] * d[k + 1];
        }
        s
    };
    let (xs, os) = (strides(dims), strides(&out_dims));
    let mut out = vec![];
    for p in 0..total {
        let pos: Vec<usize> = (0..out_dims.len())
            .map(|k| p / os[k] % out_dims[k])
            .collect();
        let bpos = &pos[at..at + b.len()];
        let rpos: Vec<usize> = pos[..at]
            .iter()
            .chain(&pos[at + b.len()..])
            .copied()
            .collect();
        let mut off = 0;
        for (r, &a) in rest.iter().enumerate() {
            off += rpos[r] * xs[a];
        }
        for &a in &axes {
            let (s, v) = idx[a].as_ref().unwrap();
            let lead = b.len() - s.len();
            let ss = strides(s);
            let mut j = 0;
            for k in 0..s.len() {
                j += if s[k] == 1 { 0 } else { bpos[lead + k] * ss[k] };
            }
            let i = v[j];
            let i = if i < 0 { i + dims[a] as i64 } else { i } as usize;
            off += i * xs[a];
        }
        out.push(x[off]);
    }
    (out_dims, out)
}

/// Random index lists over random shapes, on contiguous and transposed inputs, against the
/// naive reference; `index_put` with accumulate against a scatter of the same positions.
#[test]
fn indexing_matches_a_naive_reference() {
    let mut rng = StdRng::seed_from_u64(7);
    for case in 0..300 {
        let n = rng.random_range(1..=4);
        let dims: Vec<usize> = (0..n).map(|_| rng.random_range(1..=4)).collect();
        let numel: usize = dims.iter().product();
        let data: Vec<f64> = (0..numel).map(|i| i as f64 * 1.5 - 3.0).collect();
        let x = Tensor::<f64>::from_vec(data.clone(), dims.clone()).unwrap();
        let nidx = rng.random_range(1..=n);
        let bdims: Vec<usize> = (0..rng.random_range(0..=2))
            .map(|_| rng.random_range(1..=3))
            .collect();
        let mut spec = vec![];
        for a in 0..nidx {
            if rng.random_bool(0.4) {
                spec.push(None);
                continue;
            }
            // A shape that broadcasts to `bdims`: a suffix with some ones.
            let keep = rng.random_range(0..=bdims.len());
            let s: Vec<usize> = bdims[bdims.len() - keep..]
                .iter()
                .map(|&d| if rng.random_bool(0.3) { 1 } else { d })
                .collect();
            let m: usize = s.iter().product();
            let d = dims[a] as i64;
            let v: Vec<i64> = (0..m).map(|_| rng.random_range(-d..d)).collect();
            spec.push(Some((s, v)));
        }
        let tensors: Vec<Option<Tensor<i64>>> = spec
            .iter()
            .map(|o| {
                o.as_ref()
                    .map(|(s, v)| Tensor::from_vec(v.clone(), s.clone()).unwrap())
            })
            .collect();
        let refs: Vec<Option<&Tensor<i64>>> = tensors.iter().map(|o| o.as_ref()).collect();
        let (want_dims, want) = naive_index(&dims, &data, &spec);
        let got = x.index(&refs);
        assert_eq!(
            got.dims(),
            want_dims.as_slice(),
            "case {case} {dims:?} {spec:?}"
        );
        assert_eq!(got.to_vec(), want, "case {case}");
        // The same through a transposed copy's transpose (a strided input).
        let xt = x.t().contiguous().t();
        assert_eq!(xt.index(&refs).to_vec(), want, "strided case {case}");
        // Accumulating ones counts how often each position is named.
        let ones = Tensor::<f64>::ones(want_dims.clone()).unwrap();
        let counts = Tensor::<f64>::zeros(dims.clone())
            .unwrap()
            .index_put(&refs, &ones, true);
        let pos =
            Tensor::<f64>::from_vec((0..numel).map(|i| i as f64).collect(), dims.clone()).unwrap();
        let (_, named) = naive_index(
            &dims,
            &(0..numel).map(|i| i as f64).collect::<Vec<_>>(),
            &spec,
        );
        let mut want_counts = vec![0.0; numel];
        for p in named {
            want_counts[p as usize] += 1.0;
        }
        assert_eq!(counts.to_vec(), want_counts, "counts case {case}");
        // Writing the indexed values back leaves the tensor unchanged (strided input too).
        assert_eq!(xt.index_put(&refs, &xt.index(&refs), false).to_vec(), data);
        assert_eq!(
            pos.index_put(&refs, &pos.index(&refs), false).to_vec(),
            pos.to_vec()
        );
    }
}

#[test]
fn indexing_refuses_bad_input_and_leaves_it_unchanged() {
    let x = Tensor::<f32>::arange(0.0, 12.0, 1.0)
        .unwrap()
        .reshape([3, 4]);
    let before = x.to_vec();
    let i = |v: Vec<i64>| Tensor::<i64>::from_vec(v.clone(), [v.len()]).unwrap();
    let e = x
        .try_index(&[Some(&i(vec![0])), None, None])
        .unwrap_err()
        .to_string();
    assert!(e.contains("index") && e.contains("3 indices"), "{e}");
    let e = x.try_index(&[None, Some(&i(vec![1, 4]))]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Index {
                op: "index",
                index: 4,
                dim: 1,
                size: 4,
                ..
            }
        ),
        "{e}"
    );
    let e = x.try_index(&[Some(&i(vec![-4]))]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Index {
                index: -4,
                dim: 0,
                size: 3,
                ..
            }
        ),
        "{e}"
    );
    let e = x
        .try_index(&[Some(&i(vec![0, 1])), Some(&i(vec![0, 1, 2]))])
        .unwrap_err();
    assert!(matches!(e, Error::Broadcast { op: "index", .. }), "{e}");
    let vals = Tensor::<f32>::ones([3]).unwrap();
    let e = x
        .try_index_put(&[Some(&i(vec![0, 1]))], &vals, false)
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::Broadcast {
                op: "index_put",
                ..
            }
        ),
        "{e}"
    );
    let e = x
        .try_put(&i(vec![0, 12]), &Tensor::ones([2]).unwrap(), false)
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::Index {
                op: "put",
                index: 12,
                ..
            }
        ),
        "{e}"
    );
    let e = x
        .try_put(&i(vec![0]), &Tensor::ones([2]).unwrap(), false)
        .unwrap_err();
    assert!(matches!(e, Error::ShapeMismatch { op: "put", .. }), "{e}");
    let mut y = x.clone();
    assert!(
        y.index_put_(&[Some(&i(vec![5]))], &Tensor::ones([1, 4]).unwrap(), false)
            .is_err()
    );
    assert_eq!((x.to_vec(), y.to_vec()), (before.clone(), before.clone()));
    // A broadcast view cannot be written in place; a leaf that requires grad can't either.
    let mut b = Tensor::<f32>::ones([1, 4]).unwrap().expand([3, 4]).unwrap();
    assert!(matches!(
        b.index_put_(&[Some(&i(vec![0]))], &Tensor::zeros([1, 4]).unwrap(), false),
        Err(Error::Layout { .. })
    ));
    let mut leaf = x.deep_copy().with_requires_grad(true).unwrap();
    let z = leaf.mul_scalar(2.0);
    let mut z2 = z.clone();
    assert!(
        z2.index_put_(&[Some(&i(vec![0]))], &Tensor::zeros([4]).unwrap(), false)
            .is_err()
    );
    leaf.index_put_(&[Some(&i(vec![0]))], &Tensor::zeros([4]).unwrap(), false)
        .unwrap();
    // Empty index tensors and empty tensors.
    let empty = Tensor::<i64>::zeros([0]).unwrap();
    assert_eq!(x.index(&[Some(&empty)]).dims(), &[0, 4]);
    assert_eq!(
        x.index_put(&[Some(&empty)], &Tensor::ones([0, 4]).unwrap(), true)
            .to_vec(),
        before
    );
    let none = Tensor::<f32>::zeros([0, 4]).unwrap();
    assert!(none.try_index(&[Some(&i(vec![0]))]).is_err());
    assert_eq!(none.index(&[None, Some(&i(vec![3, 0]))]).dims(), &[0, 2]);

    let e = i(vec![24]).unravel_index(&[2, 3, 4]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Index {
                op: "unravel_index",
                index: 24,
                ..
            }
        ),
        "{e}"
    );
    assert!(i(vec![0]).unravel_index(&[2, 0]).is_err());
    assert_eq!(i(vec![]).unravel_index(&[2, 0]).unwrap().len(), 2);
    assert!(i(vec![0]).unravel_index(&[1 << 40, 1 << 40]).is_err());
    let e = Tensor::ravel_multi_index(&[&i(vec![0]), &i(vec![-1])], &[2, 3]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Index {
                op: "ravel_multi_index",
                index: -1,
                dim: 1,
                ..
            }
        ),
        "{e}"
    );
    assert!(Tensor::ravel_multi_index(&[&i(vec![0])], &[2, 3]).is_err());
    assert!(Tensor::ravel_multi_index(&[&i(vec![0]), &i(vec![0])], &[1 << 40, 1 << 40]).is_err());
}

#[test]
fn indexing_gradients() {
    let x = Tensor::<f64>::from_vec((0..24).map(|i| i as f64 * 0.3 - 2.0).collect(), [2, 3, 4])
        .unwrap();
    let i0 = tensor![0i64, 1, 0];
    let i2 = tensor![1i64, -1, 1];
    gradcheck("index", &[x.clone()], |v| {
        v[0].try_index(&[Some(&i0), None, Some(&i2)])?.try_square()
    });
    let vals = Tensor::<f64>::from_vec(vec![0.5, -1.0, 2.0], [3, 1]).unwrap();
    gradcheck("index_put accumulate", &[x.clone(), vals.clone()], |v| {
        v[0].try_index_put(&[Some(&i0), None, Some(&i2)], &v[1], true)?
            .try_square()
    });
    let i1 = tensor![0i64, 2];
    gradcheck("index_put", &[x.t(), tensor![[1.5f64, -0.5]]], |v| {
        v[0].try_index_put(&[None, Some(&i1)], &v[1], false)?
            .try_square()
    });
    // PyTorch's gradient of sum(x[[0, 1], :, [1, 1]] * w).
    let xf = Tensor::<f64>::arange(0.0, 24.0, 1.0)
        .unwrap()
        .reshape([2, 3, 4])
        .with_requires_grad(true)
        .unwrap();
    let w = Tensor::<f64>::arange(0.0, 6.0, 1.0)
        .unwrap()
        .reshape([2, 3]);
    let y = xf.index(&[Some(&tensor![0i64, 1]), None, Some(&tensor![1i64, 1])]);
    y.mul(&w).sum(&[], false).backward();
    let mut want = vec![0.0; 24];
    for (p, v) in [
        (1, 0.0),
        (5, 1.0),
        (9, 2.0),
        (13, 3.0),
        (17, 4.0),
        (21, 5.0),
    ] {
        want[p] = v;
    }
    assert_eq!(xf.grad_tensor().unwrap().to_vec(), want);
}

#[test]
fn dyn_tensor_indexing() {
    let x = DynTensor::from(
        Tensor::<f32>::arange(0.0, 12.0, 1.0)
            .unwrap()
            .reshape([3, 4]),
    );
    let r = DynTensor::from(tensor![2i64, 0]);
    let c = DynTensor::from(tensor![-1i64, 1]);
    let got = x.index(&[Some(&r), Some(&c)]).unwrap();
    assert_eq!(
        (got.dtype(), got.to_vec::<f32>().unwrap()),
        (Dtype::Float32, vec![11.0, 1.0])
    );
    let v = DynTensor::from(tensor![1.0f32, 2.0]);
    let put = x.index_put(&[Some(&r), Some(&c)], &v, true).unwrap();
    assert_eq!(put.to_vec::<f32>().unwrap()[11], 12.0);
    let flat = x.put(&r, &v, false).unwrap();
    assert_eq!(flat.to_vec::<f32>().unwrap()[..3], [2.0, 1.0, 1.0]);
    // A float index and values of another dtype are errors naming the op.
    let bad = DynTensor::from(tensor![0.0f32]);
    let e = x.index(&[Some(&bad)]).unwrap_err().to_string();
    assert!(e.contains("index"), "{e}");
    let ints = DynTensor::from(tensor![1i32, 2]);
    assert!(x.index_put(&[Some(&r)], &ints, false).is_err());
    let b = DynTensor::from(tensor![true, false]);
    let r10 = DynTensor::from(tensor![1i64, 0]);
    assert_eq!(
        b.index(&[Some(&r10)]).unwrap().to_vec::<bool>().unwrap(),
        [false, true]
    );
    assert!(b.index(&[Some(&r)]).is_err());
}

/// `index_put` on bool tensors, as PyTorch 2.15's `x[i, j] = v` and
/// `index_put_(.., accumulate=True)` (a logical or).
#[test]
fn bool_index_put() {
    let x = tensor![[true, false, false], [false, false, true]];
    let (r, c) = (tensor![0i64, 1], tensor![1i64, 2]);
    let y = x.index_put(&[Some(&r), Some(&c)], &tensor![true, false], false);
    assert_eq!(y.to_vec(), [true, true, false, false, false, false]);
    let rows = tensor![1i64, 1];
    let v = tensor![[true, false, false], [false, true, false]];
    let mut z = x.clone();
    z.index_put_(&[Some(&rows)], &v, true).unwrap();
    assert_eq!(z.to_vec(), [true, false, false, true, true, true]);
    assert!(x.try_index_put(&[Some(&tensor![2i64])], &v, false).is_err());
    let d = DynTensor::from(x.clone());
    let got = d
        .index_put(
            &[Some(&DynTensor::from(r))],
            &DynTensor::from(tensor![false]),
            false,
        )
        .unwrap();
    assert_eq!(
        got.to_vec::<bool>().unwrap(),
        [false, false, false, false, false, false]
    );
}

/// `slice_scatter`, `select_scatter` and `diagonal_scatter` against PyTorch 2.15 on every
/// device (negative bounds, a step, transposed diagonal axes, integers), their gradients, and
/// their errors.
#[test]
fn view_scatters_match_pytorch() {
    on_every_device!("view_scatters", |dev| {
        let x = Tensor::<f64, _>::arange_on(0.0, 24.0, 1.0, &dev)
            .unwrap()
            .try_reshape([2, 3, 4])
            .unwrap();
        let src = Tensor::<f64, _>::arange_on(-1.0, -13.0, -1.0, &dev)
            .unwrap()
            .try_reshape([2, 3, 2])
            .unwrap();
        let got = x
            .try_slice_scatter(&src, 2, Slice::new(Some(-3), None, 2))
            .unwrap();
        let want: Vec<f64> = (0..24)
            .map(|i| {
                if i % 2 == 1 {
                    -((i / 2 + 1) as f64)
                } else {
                    i as f64
                }
            })
            .collect();
        assert_eq!(got.try_to_vec().unwrap(), want);
        let fives = Tensor::<f64, _>::full_on([2, 4], -5.0, &dev).unwrap();
        let got = x
            .try_select_scatter(&fives, 1, -2)
            .unwrap()
            .try_to_vec()
            .unwrap();
        let want: Vec<f64> = (0..24)
            .map(|i| if (i / 4) % 3 == 1 { -5.0 } else { i as f64 })
            .collect();
        assert_eq!(got, want);
        let diag =
            Tensor::<f64, _>::from_vec_on(vec![10.0, 20.0, 30.0, 40.0, 50.0, 60.0], [2, 3], &dev)
                .unwrap();
        let want = [
            0.0, 10.0, 2.0, 3.0, 4.0, 5.0, 20.0, 7.0, 8.0, 9.0, 10.0, 30.0, 12.0, 40.0, 14.0, 15.0,
            16.0, 17.0, 50.0, 19.0, 20.0, 21.0, 22.0, 60.0,
        ];
        assert_eq!(
            x.try_diagonal_scatter(&diag, 1, 1, 2)
                .unwrap()
                .try_to_vec()
                .unwrap(),
            want
        );
        assert_eq!(
            x.try_diagonal_scatter(&diag, -1, 2, 1)
                .unwrap()
                .try_to_vec()
                .unwrap(),
            want
        );
        // Integers, and a strided (transposed) self and src.
        let xi = Tensor::<i32, _>::arange_on(0, 6, 1, &dev)
            .unwrap()
            .try_reshape([2, 3])
            .unwrap()
            .transpose(0, 1)
            .unwrap();
        let si = Tensor::<i32, _>::from_vec_on(vec![7, 8], [2], &dev).unwrap();
        assert_eq!(
            xi.try_select_scatter(&si, 0, 2)
                .unwrap()
                .try_to_vec()
                .unwrap(),
            [0, 3, 1, 4, 7, 8]
        );
    });
    // PyTorch's gradients of sum(y · w): w where kept, 0 where written; src gets w there.
    let x = Tensor::<f64>::arange(0.0, 24.0, 1.0)
        .unwrap()
        .try_reshape([2, 3, 4])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    let s = Tensor::<f64>::ones([2, 3, 2])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    let w = Tensor::<f64>::arange(0.0, 24.0, 1.0)
        .unwrap()
        .try_reshape([2, 3, 4])
        .unwrap();
    x.slice_scatter(&s, 2, Slice::new(Some(-3), None, 2))
        .mul(&w)
        .sum(&[], false)
        .backward();
    let gx: Vec<f64> = (0..24)
        .map(|i| if i % 2 == 1 { 0.0 } else { i as f64 })
        .collect();
    assert_eq!(x.grad_tensor().unwrap().to_vec(), gx);
    let gs: Vec<f64> = (0..12).map(|i| (2 * i + 1) as f64).collect();
    assert_eq!(s.grad_tensor().unwrap().to_vec(), gs);
    let x = Tensor::<f64>::arange(0.0, 12.0, 1.0)
        .unwrap()
        .try_reshape([3, 4])
        .unwrap();
    let d = Tensor::<f64>::from_vec(vec![0.5, -1.5, 2.5], [3]).unwrap();
    crate::common::check_grad(
        "diagonal_scatter",
        &|v| v[0].try_diagonal_scatter(&v[1], 1, 0, 1),
        &[x.clone(), d],
    );
    // Errors name the op.
    let e = |r: Result<Tensor<f64>>| r.unwrap_err().to_string();
    let bad = Tensor::<f64>::ones([5]).unwrap();
    assert!(e(x.try_select_scatter(&bad, 0, 1)).starts_with("select_scatter: incompatible shapes"));
    assert!(e(x.try_select_scatter(&bad, 0, 3)).starts_with("select_scatter"));
    assert!(e(x.try_select_scatter(&bad, 2, 0)).starts_with("select_scatter"));
    assert!(
        e(x.try_slice_scatter(&bad, 1, Slice::new(None, None, 0))).starts_with("slice_scatter")
    );
    assert!(e(x.try_slice_scatter(&bad, 5, Slice::all())).starts_with("slice_scatter"));
    assert!(e(x.try_diagonal_scatter(&bad, 0, 0, 0)).starts_with("diagonal_scatter"));
    let dx = DynTensor::from(x.clone());
    let row = dx
        .select_scatter(&DynTensor::from(Tensor::<f64>::zeros([4]).unwrap()), 0, 0)
        .unwrap();
    assert_eq!(
        row.downcast::<f64, Cpu>().unwrap().to_vec()[..5],
        [0.0, 0.0, 0.0, 0.0, 4.0]
    );
    assert!(
        dx.slice_scatter(&DynTensor::from(tensor![1i32]), 0, Slice::all())
            .is_err()
    );
    let empty = Tensor::<f64>::zeros([0, 3]).unwrap();
    assert_eq!(
        empty
            .try_select_scatter(&Tensor::zeros([0]).unwrap(), 1, 0)
            .unwrap()
            .dims(),
        [0, 3]
    );
}

#[test]
fn index_add_in_one_pass_matches_definition() {
    use crate::common::host_f64s;
    // `out[.., idx[j], ..] += alpha · src[.., j, ..]` on the host, in f64.
    fn want(
        base: &[f64],
        dims: [usize; 3],
        ax: usize,
        idx: &[i64],
        src: &[f64],
        alpha: f64,
    ) -> Vec<f64> {
        let mut out = base.to_vec();
        let outer: usize = dims[..ax].iter().product();
        let inner: usize = dims[ax + 1..].iter().product();
        let (n, k) = (dims[ax], idx.len());
        for o in 0..outer {
            for (j, &i) in idx.iter().enumerate() {
                let d = if i < 0 { i + n as i64 } else { i } as usize;
                for e in 0..inner {
                    out[(o * n + d) * inner + e] += alpha * src[(o * k + j) * inner + e];
                }
            }
        }
        out
    }
    fn run<T: NumElement, D: Backend>(dev: &D) {
        // 140,700 elements: parts on the pool, ending mid-row on every axis.
        let dims = [7usize, 300, 67];
        for ax in 0..3 {
            let n = dims[ax] as i64;
            let idx_host = vec![0, n - 1, -1, 2, 2, -n, 1, 0];
            let idx = Tensor::<i64>::from_vec(idx_host.clone(), [8])
                .unwrap()
                .to_device(dev)
                .unwrap();
            let mut sd = dims;
            sd[ax] = idx_host.len();
            // Small integers (exact in f16 and u8 sums), not periodic.
            let vals = |len: usize, m: i64| {
                (0..len as i64).map(move |i| (((i * m * 2_654_435_761) >> 9) % 7) as f64)
            };
            // The base is a transposed view, the source a permuted one: neither contiguous.
            let base_t = Tensor::<T>::from_vec(
                vals(dims.iter().product(), 5).map(T::from_f64).collect(),
                [dims[2], dims[1], dims[0]],
            )
            .unwrap()
            .to_device(dev)
            .unwrap()
            .permute(&[2, 1, 0])
            .unwrap();
            let src = Tensor::<T>::from_vec(
                vals(sd.iter().product(), 3).map(T::from_f64).collect(),
                [sd[1], sd[0], sd[2]],
            )
            .unwrap()
            .to_device(dev)
            .unwrap()
            .permute(&[1, 0, 2])
            .unwrap();
            assert!(!base_t.is_contiguous() && !src.is_contiguous());
            let (b, s) = (host_f64s(&base_t), host_f64s(&src));
            let got = base_t.try_index_add(ax as i64, &idx, &src, T::ONE).unwrap();
            assert_eq!(got.dims(), dims);
            assert_eq!(
                host_f64s(&got),
                want(&b, dims, ax, &idx_host, &s, 1.0),
                "{} axis {ax}",
                T::DTYPE
            );
            let two = T::from_f64(2.0);
            let got = base_t.try_index_add(ax as i64, &idx, &src, two).unwrap();
            assert_eq!(
                host_f64s(&got),
                want(&b, dims, ax, &idx_host, &s, 2.0),
                "{} axis {ax} alpha 2",
                T::DTYPE
            );
            // A 0-d index adds one slice; an empty one adds nothing.
            let one = Tensor::<i64, D>::scalar_on(-2, dev).unwrap();
            let slice = src.narrow(ax as i64, 3, 1).unwrap();
            let got = base_t
                .try_index_add(ax as i64, &one, &slice, T::ONE)
                .unwrap();
            assert_eq!(
                host_f64s(&got),
                want(&b, dims, ax, &[-2], &host_f64s(&slice), 1.0)
            );
            let none = Tensor::<i64, D>::zeros_on([0], dev).unwrap();
            let empty = src.narrow(ax as i64, 0, 0).unwrap();
            assert_eq!(
                host_f64s(
                    &base_t
                        .try_index_add(ax as i64, &none, &empty, T::ONE)
                        .unwrap()
                ),
                b
            );
            // Out of range (the last index): an Err naming index_add, the base unchanged.
            let bad = Tensor::<i64>::from_vec(vec![0, 1, n], [3])
                .unwrap()
                .to_device(dev)
                .unwrap();
            let e = base_t
                .try_index_add(
                    ax as i64,
                    &bad,
                    &src.narrow(ax as i64, 0, 3).unwrap(),
                    T::ONE,
                )
                .unwrap_err();
            assert!(e.to_string().contains("index_add"), "{e}");
            assert_eq!(host_f64s(&base_t), b);
        }
    }
    on_every_device!("index_add_in_one_pass_matches_definition", |dev| {
        run::<f32, _>(&dev);
        run::<f64, _>(&dev);
        run::<f16, _>(&dev);
        run::<i32, _>(&dev);
        run::<u8, _>(&dev);
    });
}

#[test]
fn index_select_gradient_adds_repeats() {
    use crate::common::host_f64s;
    on_every_device!("index_select_gradient_adds_repeats", |dev| {
        for ax in 0..2 {
            let x = Tensor::<f32>::from_vec((0..600).map(|i| i as f32 * 0.01).collect(), [20, 30])
                .unwrap()
                .to_device(&dev)
                .unwrap()
                .with_requires_grad(true)
                .unwrap();
            let idx = Tensor::<i64>::from_vec(vec![3, 3, 0, -1, 3], [5])
                .unwrap()
                .to_device(&dev)
                .unwrap();
            let y = x.index_select(ax, &idx);
            // Weights 1..: each selected slice's gradient differs.
            let w = Tensor::<f32>::arange(1.0, 1.0 + y.numel() as f32, 1.0)
                .unwrap()
                .reshape(y.dims().to_vec())
                .to_device(&dev)
                .unwrap();
            y.mul(&w).sum(&[], false).backward();
            let (wh, dims) = (host_f64s(&w), [20usize, 30]);
            let mut want = vec![0.0; 600];
            for (p, wv) in wh.iter().enumerate() {
                let (r, c) = (p / y.dims()[1], p % y.dims()[1]);
                let pick = |j: usize| [3usize, 3, 0, dims[ax as usize] - 1, 3][j];
                let at = if ax == 0 {
                    pick(r) * 30 + c
                } else {
                    r * 30 + pick(c)
                };
                want[at] += wv;
            }
            assert_eq!(host_f64s(&x.grad_tensor().unwrap()), want, "axis {ax}");
        }
    });
}

/// `index_select` against a plain loop: three axes of a (7, 150, 130) source (runs of 19,500,
/// 130 and 1 elements; outputs large enough to split across threads mid-run), repeated and
/// negative indices, a single index, an empty index, a transposed source (the strided path) and
/// an offset view; five dtypes.
#[test]
fn index_select_copies_whole_runs() {
    on_every_device!("index_select_copies_whole_runs", |dev| {
        fn run<T: Element, D: Device>(dev: &D) {
            let dims = [7usize, 150, 130];
            let n: usize = dims.iter().product();
            let vals: Vec<T> = (0..n)
                .map(|i| T::from_f64(((i * 7919) % 251) as f64))
                .collect();
            let x = Tensor::<T>::from_vec(vals.clone(), dims)
                .unwrap()
                .to_device(dev)
                .unwrap();
            let ids: Vec<i64> = vec![3, -1, 0, 3, 5, -7, 2, 2, 6];
            for ax in 0..3 {
                let size = dims[ax] as i64;
                let ids: Vec<i64> = ids.iter().map(|&i| i % size).collect();
                let idx = Tensor::<i64>::from_vec(ids.clone(), [ids.len()])
                    .unwrap()
                    .to_device(dev)
                    .unwrap();
                let got = x
                    .index_select(ax as i64, &idx)
                    .to_device(&Cpu)
                    .unwrap()
                    .to_vec();
                let mut want = Vec::new();
                let mut out_dims = dims;
                out_dims[ax] = ids.len();
                for a in 0..out_dims[0] {
                    for b in 0..out_dims[1] {
                        for c in 0..out_dims[2] {
                            let mut at = [a, b, c];
                            let i = ids[at[ax]];
                            at[ax] = if i < 0 {
                                (i + size) as usize
                            } else {
                                i as usize
                            };
                            want.push(vals[(at[0] * dims[1] + at[1]) * dims[2] + at[2]]);
                        }
                    }
                }
                assert_eq!(got, want, "{} axis {ax}", T::DTYPE);
                // The strided path gives the same values.
                let strided = x.transpose(0, 2).unwrap().index_select(2 - ax as i64, &idx);
                let back = strided
                    .transpose(0, 2)
                    .unwrap()
                    .to_device(&Cpu)
                    .unwrap()
                    .contiguous();
                assert_eq!(back.to_vec(), want, "{} transposed, axis {ax}", T::DTYPE);
            }
            // One index keeps its axis (length 1); an empty one leaves an empty axis.
            let single = Tensor::<i64>::from_vec(vec![-2], [1])
                .unwrap()
                .to_device(dev)
                .unwrap();
            let one = x.index_select(1, &single).to_device(&Cpu).unwrap();
            assert_eq!(one.dims(), [7, 1, 130]);
            assert_eq!(one.to_vec()[..130], vals[148 * 130..149 * 130]);
            let none = Tensor::<i64>::from_vec(vec![], [0])
                .unwrap()
                .to_device(dev)
                .unwrap();
            assert_eq!(x.index_select(2, &none).dims(), [7, 150, 0]);
            // A view with an offset: rows 2.. of the first axis.
            let view = x.narrow(0, 2, 5).unwrap();
            let idx = Tensor::<i64>::from_vec(vec![4, 0], [2])
                .unwrap()
                .to_device(dev)
                .unwrap();
            let got = view.index_select(0, &idx).to_device(&Cpu).unwrap().to_vec();
            let block = 150 * 130;
            assert_eq!(got[..block], vals[6 * block..7 * block]);
            assert_eq!(got[block..], vals[2 * block..3 * block]);
        }
        run::<f32, _>(&dev);
        run::<f64, _>(&dev);
        run::<i64, _>(&dev);
        run::<u8, _>(&dev);
        run::<bool, _>(&dev);
    });
}
