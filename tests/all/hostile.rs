//! Hostile arguments: every fallible call returns `Err` (never panics, aborts or touches memory
//! outside its buffer), views are checked against their storage, allocation failure is an
//! `Err`, and locks wait across threads instead of failing or deadlocking.

use typed_tensor::nn;
use typed_tensor::prelude::*;

fn cpu() -> DeviceIndex {
    DeviceIndex::cpu()
}

/// A step near `i64::MAX` once wrapped the view's length to `usize::MAX` and let `fill_` write
/// outside the buffer in release builds.
#[test]
fn huge_slice_steps_make_valid_views() {
    let t = DynTensor::from_vec(vec![0f32; 3], [3], cpu()).unwrap();
    for step in [i64::MAX, i64::MIN, i64::MAX - 1, i64::MIN + 1, 1 << 62] {
        let mut v = t.slice(&[Slice::new(None, None, step)]).unwrap();
        assert_eq!(v.shape().dims(), &[1], "step {step}");
        v.fill_(1.0f32).unwrap();
    }
    assert_eq!(t.to_vec::<f32>().unwrap(), vec![1.0, 0.0, 1.0]);
    let t = Tensor::<i32>::arange(0, 10, 1).unwrap();
    let v = t
        .slice(&[Slice::new(Some(i64::MIN), Some(i64::MAX), i64::MAX)])
        .unwrap();
    assert_eq!(v.to_vec(), vec![0]);
    let v = t
        .slice(&[Slice::new(Some(i64::MAX), Some(i64::MIN), i64::MIN)])
        .unwrap();
    assert_eq!(v.to_vec(), vec![9]);
    assert!(t.slice_dim(0, 0, usize::MAX, (1usize << 63) + 1).is_ok());
    assert_eq!(
        t.slice_dim(0, 1, usize::MAX, usize::MAX).unwrap().to_vec(),
        vec![1]
    );
}

#[test]
fn allocation_failure_is_an_err() {
    // These hold under any `vm.overcommit_memory`: more than memory and swap is refused
    // before the system is asked (`alloc::check_bytes`).
    let opts = TensorOptions::default();
    for r in [
        DynTensor::zeros([1usize << 40], opts),
        DynTensor::rand([1usize << 40], opts),
        DynTensor::zeros([usize::MAX, 2], opts),
    ] {
        let e = r.unwrap_err();
        assert!(
            matches!(e, Error::OutOfMemory { .. } | Error::ShapeOverflow { .. }),
            "{e}"
        );
    }
    let a = Tensor::<f32>::zeros([1 << 20, 1]).unwrap();
    let b = Tensor::<f32>::zeros([1, 1 << 20]).unwrap();
    assert!(matches!(a.try_add(&b), Err(Error::OutOfMemory { .. })));
    assert!(Tensor::<f32>::identity(1 << 20, 1 << 20).is_err());
    let x = Tensor::<f32>::zeros([2]).unwrap();
    assert!(x.try_pad(&[(1 << 40, 0)], 0.0).is_err());
    assert!(x.try_pad(&[(usize::MAX, 2)], 0.0).is_err());
    assert!(x.try_tile(&[usize::MAX]).is_err());
    assert!(x.try_tile(&[1 << 40]).is_err());
    assert!(x.try_repeat_interleave(usize::MAX, 0).is_err());
    assert!(x.try_repeat_interleave(1 << 40, 0).is_err());
    let e = Tensor::<f32>::zeros([0]).unwrap();
    assert_eq!(e.tile(&[usize::MAX]).dims(), &[0]);
    let big = Tensor::<f32>::scalar(1.0).expand([1usize << 40]).unwrap();
    assert!(matches!(big.try_to_vec(), Err(Error::OutOfMemory { .. })));
    assert!(big.try_contiguous().is_err());
    assert!(big.try_add_scalar(1.0).is_err());
    assert!(Tensor::<f32>::linspace(0.0, 1.0, usize::MAX).is_err());
    assert!(Tensor::<i64>::arange(i64::MIN, i64::MAX, 1).is_err());
}

#[test]
fn expand_refuses_overflowing_shapes() {
    let t = Tensor::<f32>::scalar(1.0);
    assert!(matches!(
        t.expand([usize::MAX, 2]),
        Err(Error::ShapeOverflow { .. })
    ));
    assert!(t.broadcast_to([1usize << 62]).is_err());
    let d = DynTensor::from_vec(vec![1i64], [1], cpu()).unwrap();
    assert!(d.expand([usize::MAX, 2]).is_err());
}

#[test]
fn overflowing_arguments_are_errs() {
    let t = Tensor::<f32>::zeros([4, 3]).unwrap();
    assert!(t.try_split(&[usize::MAX, 2], 0).is_err());
    assert!(t.diagonal(i64::MIN).unwrap().dims() == [0]);
    assert!(t.diagonal(i64::MAX).unwrap().dims() == [0]);
    assert_eq!(t.diag(i64::MIN).dims(), &[0]);
    let v1 = Tensor::<f32>::zeros([2]).unwrap();
    assert!(v1.try_diag(i64::MIN).is_err());
    assert!(v1.try_diag(i64::MAX).is_err());
    let idx = Tensor::<i64>::from_vec(vec![i64::MIN], [1]).unwrap();
    assert!(matches!(
        t.try_index_select(0, &idx),
        Err(Error::Index { .. })
    ));
    let idx = Tensor::<i64>::from_vec(vec![i64::MAX], [1]).unwrap();
    assert!(matches!(
        t.try_index_select(0, &idx),
        Err(Error::Index { .. })
    ));
    // narrow past the end is the Index error its doc promises, never a clamped view.
    let v = Tensor::<i32>::arange(0, 3, 1).unwrap();
    assert!(matches!(v.narrow(0, 1, 100), Err(Error::Index { .. })));
    assert!(v.narrow(0, usize::MAX, 2).is_err());
    assert_eq!(v.narrow(0, 1, 2).unwrap().to_vec(), vec![1, 2]);
    let big = Tensor::<f32>::scalar(1.0).expand([1usize << 40]).unwrap();
    assert!(Tensor::try_concat(&[&big, &big, &big, &big, &big, &big], 0).is_err());
}

#[test]
fn empty_tensors_through_every_path() {
    let e = Tensor::<f32>::zeros([0, 3]).unwrap();
    let t = e.t();
    assert_eq!(t.contiguous().dims(), &[3, 0]);
    assert_eq!(t.deep_copy().to_vec(), Vec::<f32>::new());
    let mut m = Tensor::<f32>::zeros([3, 0]).unwrap();
    m.add_(&t).unwrap();
    assert_eq!(e.sort(1, false).0.dims(), &[0, 3]);
    assert_eq!(t.sort(0, true).0.dims(), &[3, 0]);
    assert_eq!(e.argsort(0, false).dims(), &[0, 3]);
    assert_eq!(t.topk(2, 0).0.dims(), &[2, 0]);
    let idx = Tensor::<i64>::zeros([0, 3]).unwrap();
    assert_eq!(e.gather(1, &idx).dims(), &[0, 3]);
    assert_eq!(e.scatter_add(1, &idx, &e).dims(), &[0, 3]);
    // An empty view whose offset would lie past the buffer.
    let z = Tensor::<f32>::zeros([0, 5]).unwrap();
    let mut n = z.narrow(1, 3, 2).unwrap();
    n.sin_().unwrap();
    assert_eq!(n.data().unwrap().len(), 0);
    assert_eq!(n.to_vec(), Vec::<f32>::new());
    let w = Tensor::<f32>::zeros([2, 5]).unwrap();
    let mut n = w.narrow(1, 5, 0).unwrap();
    n.fill_(1.0).unwrap();
    assert_eq!(n.data().unwrap().len(), 0);
}

/// Empty tensors whose other dimensions are huge (found by an API fuzzer): every op gives the
/// empty result or an `Err`, never an overflow panic, an abort or a 2^40-step loop.
#[test]
fn empty_tensors_with_huge_dimensions() {
    let big = 1usize << 33;
    let e = Tensor::<f32>::from_vec(vec![], [3, 0, big, big]).unwrap();
    let wide = e.expand([2, 3, 0, big, big]).unwrap();
    // A reduction block (3, 2^33) of strides (0, 2^33) used to overflow while merging.
    assert_eq!(wide.count_nonzero(&[-4, 3], false).dims(), &[2, 0, big]);
    assert_eq!(wide.sum(&[1, 4], true).dims(), &[2, 1, 0, big, 1]);
    assert_eq!(e.tril(-5).dims(), e.dims());
    // layer_norm over trailing dimensions whose product overflows: no rows, an empty result,
    // recorded or not.
    let ln = |x: &Tensor<f32>| nn::layer_norm(x, &[big, big], None, None, 1e-5).unwrap();
    assert_eq!(ln(&e).dims(), e.dims());
    let leaf = e.clone().with_requires_grad(true).unwrap();
    ln(&leaf).sum(&[], false).backward();
    assert_eq!(leaf.grad_tensor().unwrap().dims(), e.dims());
    // index_add and index_select's gradient into (3, 0, 2^33, 2^33): the slices' 2^66
    // elements are never counted (the fuzzer found the product overflowing).
    let at = Tensor::<i64>::from_vec(vec![2, -1, 0], [3]).unwrap();
    assert_eq!(e.index_add(0, &at, &e, 2.0).dims(), e.dims());
    let mut z = e.clone();
    z.index_add_(0, &at, &e, 1.0).unwrap();
    assert!(
        e.try_index_add(0, &tensor![3i64], &e.narrow(0, 0, 1).unwrap(), 1.0)
            .is_err()
    );
    let none = Tensor::<i64>::zeros([0]).unwrap();
    assert_eq!(e.index_add(1, &none, &e, 1.0).dims(), e.dims()); // slices of 2^66
    let leaf = e.clone().with_requires_grad(true).unwrap();
    leaf.index_select(0, &at).sum(&[], false).backward();
    leaf.index_select(1, &none).sum(&[], false).backward();
    assert_eq!(leaf.grad_tensor().unwrap().dims(), e.dims());
    // batch_norm of an empty batch with a 2^33 axis: training refuses (no values per
    // channel), evaluation keeps the shape, recorded or not.
    let x = Tensor::<f32>::from_vec(vec![], [2, 3, 0, big]).unwrap();
    let (rm, rv) = (
        Tensor::<f32>::zeros([3]).unwrap(),
        Tensor::<f32>::ones([3]).unwrap(),
    );
    assert!(nn::batch_norm(&x, Some(&rm), Some(&rv), None, None, true, 0.1, 1e-5).is_err());
    let leaf = x.clone().with_requires_grad(true).unwrap();
    let y = nn::batch_norm(
        &leaf,
        Some(&rm),
        Some(&rv),
        Some(&rv),
        Some(&rm),
        false,
        0.1,
        1e-5,
    );
    y.unwrap().sum(&[], false).backward();
    assert_eq!(leaf.grad_tensor().unwrap().dims(), x.dims());
    // A batch of 2^33 · 3 empty products.
    let a = Tensor::<f32>::from_vec(vec![], [big, 3, 0, 2]).unwrap();
    let b = Tensor::<f32>::zeros([2, 4]).unwrap();
    assert_eq!(a.matmul(&b).dims(), &[big, 3, 0, 4]);
    // Factorizations of 2^40 empty matrices: empty results, or OutOfMemory for det's 2^40 ones.
    let m = Tensor::<f64>::from_vec(vec![], [1 << 40, 0, 2]).unwrap();
    assert_eq!(m.pinv().dims(), &[1 << 40, 2, 0]);
    assert_eq!(m.svd().1.dims(), &[1 << 40, 0]);
    let sq = Tensor::<f64>::from_vec(vec![], [1 << 40, 0, 0]).unwrap();
    assert_eq!(sq.inverse().dims(), sq.dims());
    assert!(matches!(
        sq.try_det(),
        Err(Error::OutOfMemory { .. }) | Err(Error::ShapeOverflow { .. })
    ));
    let g = m.with_requires_grad(true).unwrap();
    g.pinv().sum(&[], false).backward();
    // An empty batch of 2^33 × 2^33 matrices: no identity for the unit diagonal (the fuzzer
    // found it in `lu`'s backward, which solves with the unit-lower L).
    let sq = Tensor::<f64>::from_vec(vec![], [3, 0, big, big]).unwrap();
    assert_eq!(
        sq.solve_triangular(&sq, false, true, true).dims(),
        sq.dims()
    );
    let leaf = sq.clone().with_requires_grad(true).unwrap();
    let (_, l, u) = leaf.lu();
    l.sum(&[], false).add(&u.sum(&[], false)).backward();
    assert_eq!(leaf.grad_tensor().unwrap().dims(), sq.dims());
    // 2^39 LU factorizations of empty matrices unpacked and solved with: no loop over the
    // batch (the fuzzer found `lu_unpack` looping over 2^39 empty pivot rows).
    let m = Tensor::<f64>::from_vec(vec![], [1 << 39, 0, 2]).unwrap();
    let (lu, piv) = m.lu_factor();
    let (p, l, u) = Tensor::lu_unpack(&lu, &piv);
    assert_eq!(
        (p.dims(), l.dims(), u.dims()),
        (
            &[1 << 39, 0, 0][..],
            &[1 << 39, 0, 0][..],
            &[1 << 39, 0, 2][..]
        )
    );
    let sq = Tensor::<f64>::from_vec(vec![], [1 << 39, 0, 0]).unwrap();
    let (lu, piv) = sq.lu_factor();
    assert_eq!(Tensor::lu_solve(&lu, &piv, &sq).dims(), sq.dims());
    let tall = Tensor::<f64>::from_vec(vec![], [1 << 39, 1, 0]).unwrap();
    let piv = Tensor::<i32>::from_vec(vec![], [1 << 39, 0]).unwrap();
    assert!(matches!(
        Tensor::try_lu_unpack(&tall, &piv),
        Err(Error::OutOfMemory { .. }) | Err(Error::ShapeOverflow { .. })
    ));
    // conv2d of inputs without channels beside 2^33 × 2^33 windows (the fuzzer found the
    // window count overflowing through conv_same): an error where the output cannot exist,
    // an empty output for an empty batch, with its gradient.
    let x = Tensor::<f32>::from_vec(vec![], [3, 0, big, big]).unwrap();
    let w = Tensor::<f32>::from_vec(vec![], [2, 0, 1, 1]).unwrap();
    assert!(nn::conv2d(&x, &w, None, Default::default()).is_err());
    assert!(nn::conv_same(&x, &w, None, &[1], 1, None).is_err());
    let x0 = Tensor::<f32>::from_vec(vec![], [0, 0, big, big]).unwrap();
    let leaf = x0.with_requires_grad(true).unwrap();
    let y = nn::conv2d(&leaf, &w, None, Default::default()).unwrap();
    assert_eq!(y.dims(), &[0, 2, big, big]);
    y.sum(&[], false).backward();
    assert_eq!(leaf.grad_tensor().unwrap().dims(), &[0, 0, big, big]);
    // Kernels of 2^33 depth taps or 2^40 window taps without channels: one tap's zeros, not
    // a loop over all of them (forward for conv3d, col2im in conv2d's backward).
    let x = Tensor::<f32>::from_vec(vec![], [1, 0, big, 1, 1]).unwrap();
    let w = Tensor::<f32>::from_vec(vec![], [2, 0, big, 1, 1]).unwrap();
    let b = Tensor::<f32>::from_vec(vec![0.5, -1.0], [2]).unwrap();
    let y = nn::conv3d(&x, &w, Some(&b), Default::default()).unwrap();
    assert_eq!(
        (y.dims(), y.to_vec()),
        (&[1, 2, 1, 1, 1][..], vec![0.5, -1.0])
    );
    let x = Tensor::<f32>::from_vec(vec![], [1, 0, 1 << 20, 1 << 20]).unwrap();
    let leaf = x.with_requires_grad(true).unwrap();
    let w = Tensor::<f32>::from_vec(vec![], [1, 0, 1 << 20, 1 << 20]).unwrap();
    let y = nn::conv2d(&leaf, &w, None, Default::default()).unwrap();
    assert_eq!(y.dims(), &[1, 1, 1, 1]);
    y.sum(&[], false).backward();
    assert_eq!(leaf.grad_tensor().unwrap().dims(), leaf.dims());
    // tile (and resize through it) to 2^41 elements: refused at once, without a list of
    // 2^41 / 700 copies to concatenate (the fuzzer's seed 1224 hung on resize).
    let small = Tensor::<f32>::ones([700]).unwrap();
    for r in [
        small.try_tile(&[1 << 40, 2]),
        small.try_resize(&[2, 1 << 40]),
    ] {
        assert!(matches!(r, Err(Error::OutOfMemory { .. })), "{r:?}");
    }
    // Views of a 2^40-long axis: refused as OutOfMemory instead of aborting.
    let long = Tensor::<f32>::from_vec(vec![], [0, 1 << 40]).unwrap();
    for r in [
        long.try_unbind(1),
        long.try_chunk(1 << 40, 1),
        long.try_tensor_split(1 << 40, 1),
    ] {
        assert!(matches!(r, Err(Error::OutOfMemory { .. })), "{r:?}");
    }
    // diff along it is one view, not 2^40 recorded steps.
    let d = long
        .clone()
        .with_requires_grad(true)
        .unwrap()
        .diff(usize::MAX, 1);
    assert_eq!(d.dims(), &[0, 0]);
    // repeat_interleave along it builds no 2^40-long host index, and keeps the graph.
    let leaf = long.clone().with_requires_grad(true).unwrap();
    for n in [0, 3] {
        let r = leaf.repeat_interleave(n, 1);
        assert_eq!(r.dims(), &[0, n << 40]);
        r.sum(&[], false).backward();
    }
    let one = Tensor::<i64>::from_vec(vec![2], [1]).unwrap();
    assert_eq!(
        long.repeat_interleave_by(&one, Some(1)).dims(),
        &[0, 1 << 41]
    );
    assert_eq!(leaf.grad_tensor().unwrap().dims(), leaf.dims());
    // A 2^40-batch of empty products times one matrix: the matrix's gradient is one 2-d
    // product of the (empty) folded batch, not 2^40 partial products summed.
    let a = Tensor::<f64>::from_vec(vec![], [1 << 40, 0, 2]).unwrap();
    let w = Tensor::<f64>::ones([2, 2])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    a.matmul(&w).sum(&[], false).backward();
    assert_eq!(w.grad().unwrap().to_vec(), vec![0.0; 4]);
}

#[test]
fn set_data_on_a_broadcast_view_is_a_layout_err() {
    let base = Tensor::<f32>::zeros([1, 3]).unwrap();
    let mut v = base.expand([4, 3]).unwrap();
    assert!(matches!(v.set_data(&[1.0; 12]), Err(Error::Layout { .. })));
    assert_eq!(base.to_vec(), vec![0.0; 3]);
}

/// Same-thread conflicts are an `Err` naming the guard; nothing waits for itself.
#[test]
fn guards_in_the_same_thread_are_errs_not_deadlocks() {
    let mut t = Tensor::<f32>::ones([4]).unwrap();
    let c = t.clone();
    {
        let _g = t.data_mut().unwrap();
        let e = c.try_to_vec().unwrap_err();
        assert!(e.to_string().contains("data_mut()"), "{e}");
        assert!(c.try_add(&c).is_err());
        assert!(c.try_deep_copy().is_err());
    }
    {
        let _g = c.data().unwrap();
        // Reads share: another read of the same buffer goes through, a write is refused.
        assert_eq!(t.try_add(&c).unwrap().to_vec(), vec![2.0; 4]);
        assert!(t.fill_(3.0).is_err());
    }
    assert_eq!((&t + &t).to_vec(), vec![2.0; 4]);
    t.add_(&c).unwrap(); // one buffer as both operands: the source is copied first
    assert_eq!(t.to_vec(), vec![2.0; 4]);
    let mut g = t.clone().with_requires_grad(true).unwrap();
    let g2 = g.clone();
    {
        let r = g2.grad().unwrap();
        assert_eq!(r.len(), 4);
    }
    assert_eq!(g.grad_mut().unwrap().len(), 4);
}

/// Writers and readers on different threads wait for each other and all make progress.
#[test]
fn writers_on_other_threads_wait_instead_of_failing() {
    let t = Tensor::<f32>::zeros([2, 1000]).unwrap();
    std::thread::scope(|s| {
        for row in 0..2 {
            let mut r = t.narrow(0, row, 1).unwrap();
            s.spawn(move || {
                for _ in 0..200 {
                    r.add_scalar_(1.0).unwrap();
                }
            });
        }
        for _ in 0..2 {
            let c = t.clone();
            s.spawn(move || {
                for _ in 0..200 {
                    let v = c.sum(&[], false).item();
                    assert!((0.0..=400_000.0).contains(&v));
                }
            });
        }
    });
    assert_eq!(t.to_vec(), vec![200.0; 2000]);
}

/// Two `_into` ops on crossed buffers (each one's input is the other's output) take their
/// locks in one global order, so they never wait on each other.
#[test]
fn crossed_into_ops_do_not_deadlock() {
    let a = Tensor::<f32>::ones([64]).unwrap();
    let b = Tensor::<f32>::ones([64]).unwrap();
    std::thread::scope(|s| {
        let (a1, mut b1) = (a.clone(), b.clone());
        s.spawn(move || {
            for _ in 0..2000 {
                a1.neg_into(&mut b1).unwrap();
            }
        });
        let (b2, mut a2) = (b.clone(), a.clone());
        s.spawn(move || {
            for _ in 0..2000 {
                b2.neg_into(&mut a2).unwrap();
            }
        });
    });
    assert!(a.to_vec().iter().all(|x| x.abs() == 1.0));
}

/// The documented rules, with the exact values that once broke them.
#[test]
fn documented_semantics_hold_at_the_edges() {
    // NumPy's float floor_divide (from fmod).
    let a = Tensor::<f64>::from_vec(vec![1.0, f64::INFINITY, -1.0, -7.0], [4]).unwrap();
    let b = Tensor::<f64>::from_vec(vec![0.1, 2.0, f64::INFINITY, 2.0], [4]).unwrap();
    let q = a.try_floor_divide(&b).unwrap().to_vec();
    assert_eq!(q[0], 9.0);
    assert!(q[1].is_nan());
    assert_eq!(q[2], -1.0);
    assert_eq!(q[3], -4.0);
    // One correct rounding to bf16 from f64 and f32.
    let x = 1.0 + 2f64.powi(-8) + 2f64.powi(-22);
    let d = DynTensor::from_vec(vec![x], [1], cpu()).unwrap();
    let r = d
        .to_dtype(Dtype::Bfloat16)
        .unwrap()
        .to_vec::<bf16>()
        .unwrap();
    assert_eq!(r[0].to_f64(), 1.0078125);
    let f = Tensor::<f32>::from_vec(vec![x as f32], [1]).unwrap();
    assert_eq!(f.cast::<bf16>().to_vec()[0].to_f64(), 1.0078125);
    // clip with a NaN bound is NaN (NumPy, PyTorch).
    let c = Tensor::<f32>::from_vec(vec![0.5, 2.0], [2]).unwrap();
    assert!(c.clip(f32::NAN, 1.0).to_vec().iter().all(|v| v.is_nan()));
    assert!(c.clip(0.0, f32::NAN).to_vec().iter().all(|v| v.is_nan()));
    assert_eq!(c.clip(0.0, 1.0).to_vec(), vec![0.5, 1.0]);
    // acosh/atanh within an ulp of the f64 result rounded to f32.
    let xs = [1.0 + 2f32.powi(-22), 1.0 + 2f32.powi(-10), 1.5, 3.0, 1e30];
    let got = Tensor::<f32>::from_vec(xs.to_vec(), [5])
        .unwrap()
        .acosh()
        .to_vec();
    for (g, x) in got.iter().zip(xs) {
        let want = (x as f64).acosh() as f32;
        let ulps = (g.to_bits() as i64 - want.to_bits() as i64).abs();
        assert!(ulps <= 1, "acosh({x}) = {g}, want {want}");
    }
    let xs = [1e-3f32, 0.3, 0.5, 0.9, 0.999_999, -0.7];
    let got = Tensor::<f32>::from_vec(xs.to_vec(), [6])
        .unwrap()
        .atanh()
        .to_vec();
    for (g, x) in got.iter().zip(xs) {
        let want = (x as f64).atanh() as f32;
        let ulps = (g.to_bits() as i64 - want.to_bits() as i64).abs();
        assert!(ulps <= 1, "atanh({x}) = {g}, want {want}");
    }
}

/// Display renders iteratively, caps the precision, copies and formats only the shown elements
/// of a summarised tensor, and switches to scientific notation by PyTorch's rule.
#[test]
fn display_of_hostile_tensors() {
    // 100,000 dimensions: once a stack overflow in the recursive renderer.
    let deep = Tensor::<f32>::from_vec(vec![1.5], vec![1usize; 100_000]).unwrap();
    let s = deep.to_string();
    assert!(s.starts_with(&format!(
        "{}1.5000{}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    )));
    // A precision past what `format!` accepts is capped.
    let t = Tensor::<f64>::from_vec(vec![0.1], [1]).unwrap();
    assert_eq!(
        t.display(100_000),
        t.display(typed_tensor::tensor::MAX_PRECISION)
    );
    // A broadcast view of 2^40 elements prints its corners without materialising it.
    let one = Tensor::<f32>::from_vec(vec![2.0], [1, 1]).unwrap();
    let huge = one.expand([1 << 20, 1 << 20]).unwrap();
    let s = huge.to_string();
    assert!(s.contains("...") && s.lines().count() < 12, "{s}");
    // Scientific notation: PyTorch's `tensor([2.0000e+00, 1.2677e+30])`.
    let e = Tensor::<f32>::from_vec(vec![1.0, 100.0], [2])
        .unwrap()
        .exp2();
    assert!(e.to_string().starts_with("[2.0000e+00, 1.2677e+30]"), "{e}");
    let small = Tensor::<f64>::from_vec(vec![1e-5, -3.0, 0.0], [3]).unwrap();
    assert!(
        small
            .to_string()
            .starts_with("[ 1.0000e-05, -3.0000e+00,  0.0000e+00]"),
        "{small}"
    );
    let plain = Tensor::<f64>::from_vec(vec![0.5, -300.0, f64::NAN], [3]).unwrap();
    assert!(
        plain
            .to_string()
            .starts_with("[   0.5000, -300.0000,       nan]"),
        "{plain}"
    );
}

/// `lu_factor_ex` of 2^40 empty matrices: its `info` is refused as too large (an `Err`), not a
/// 4 TB infallible allocation that aborts; a modest empty batch gives zeros.
#[test]
fn lu_factor_ex_of_a_huge_empty_batch() {
    let huge = Tensor::<f64>::from_vec(vec![], [1 << 40, 3, 0]).unwrap();
    assert!(huge.try_lu_factor_ex().is_err());
    let small = Tensor::<f64>::from_vec(vec![], [4, 3, 0]).unwrap();
    let (_, _, info) = small.try_lu_factor_ex().unwrap();
    assert_eq!(info.to_vec(), vec![0; 4]);
}

/// The distributions with hostile sample shapes and parameters: `Err`s (or correct values),
/// never an abort or an infallible allocation of the requested size.
#[test]
fn distributions_with_hostile_shapes_and_parameters() {
    use typed_tensor::distributions::*;
    let f = |v: Vec<f64>, d: &[usize]| Tensor::<f64>::from_vec(v, d.to_vec()).unwrap();
    let n = Normal::new(&f(vec![0.0], &[1]), &f(vec![1.0], &[1])).unwrap();
    assert!(n.sample(&[1 << 40, 1 << 30]).is_err());
    assert!(n.sample(&[usize::MAX, 3]).is_err());
    let c = Categorical::from_probs(&f(vec![1.0, 2.0], &[2])).unwrap();
    assert!(c.sample(&[1 << 40]).is_err() && c.sample(&[usize::MAX, 2]).is_err());
    let m = Multinomial::new(usize::MAX, Some(&f(vec![1.0, 2.0], &[2])), None).unwrap();
    assert!(m.sample(&[2]).is_err() && m.entropy().is_err());
    let d = Dirichlet::new(&f(vec![1.0, 1.0], &[2])).unwrap();
    assert!(d.sample(&[1 << 40]).is_err());
    assert!(
        Poisson::new(&f(vec![1e300], &[1]))
            .unwrap()
            .sample(&[2])
            .is_err()
    );
    let tiny = Gamma::new(&f(vec![1e-300], &[1]), &f(vec![1.0], &[1])).unwrap();
    assert!(
        tiny.sample(&[3])
            .unwrap()
            .to_vec()
            .iter()
            .all(|v| v.is_finite())
    );
    let empty = Normal::new(&f(vec![], &[0]), &f(vec![], &[0])).unwrap();
    assert_eq!(empty.sample(&[3]).unwrap().dims(), [3, 0]);
    let k0 = MultivariateNormal::from_scale_tril(&f(vec![], &[0]), &f(vec![], &[0, 0])).unwrap();
    assert_eq!(k0.log_prob(&f(vec![], &[0])).unwrap().to_vec(), [0.0]);
}
