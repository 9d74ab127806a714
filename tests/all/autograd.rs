//! Reverse-mode autograd: every rule against central finite differences in f64 (as
//! `torch.autograd.gradcheck`), on contiguous, strided and broadcast inputs, plus the engine's
//! semantics (accumulation, `no_grad`, `detach`, freed graphs, `DynTensor`).

use typed_tensor::prelude::*;

type T64 = Tensor<f64>;

/// Deterministic values in roughly [-1, 1] (no RNG, so failures reproduce).
fn vals(n: usize, seed: u64) -> Vec<f64> {
    (0..n)
        .map(|i| (((i as u64 + 1) * 2654435761 + seed * 97) % 1000) as f64 / 500.0 - 1.0)
        .collect()
}

pub(crate) fn t(dims: &[usize], seed: u64) -> T64 {
    Tensor::from_vec(vals(dims.iter().product(), seed), dims.to_vec()).unwrap()
}

/// `typed_tensor::autograd::gradcheck` with the test's tolerances, panicking with its `Err`.
#[track_caller]
pub(crate) fn gradcheck(name: &str, inputs: &[T64], f: impl Fn(&[T64]) -> Result<T64>) {
    if let Err(e) = typed_tensor::autograd::gradcheck(&f, inputs, 1e-6, 1e-5) {
        panic!("{name}: {e}");
    }
    crate::common::check_grad_grad(name, &f, inputs);
}

#[test]
fn binary_and_scalar_rules_with_broadcasting() {
    let (a, b) = (t(&[2, 3], 1), t(&[3], 2).add_scalar(3.0));
    gradcheck("add", &[a.clone(), b.clone()], |x| x[0].try_add(&x[1]));
    gradcheck("sub", &[a.clone(), b.clone()], |x| x[1].try_sub(&x[0]));
    gradcheck("mul", &[a.clone(), b.clone()], |x| x[0].try_mul(&x[1]));
    gradcheck("div", &[a.clone(), b.clone()], |x| x[0].try_div(&x[1]));
    let col = t(&[2, 1], 3);
    gradcheck("mul column", &[a.clone(), col], |x| x[0].try_mul(&x[1]));
    gradcheck("maximum", &[a.clone(), t(&[2, 3], 4)], |x| {
        x[0].try_maximum(&x[1])
    });
    gradcheck("minimum", &[a.clone(), t(&[2, 3], 4)], |x| {
        x[0].try_minimum(&x[1])
    });
    gradcheck("scalars", &[b.clone()], |x| {
        x[0].try_mul_scalar(2.5)?
            .try_sub_scalar(1.0)?
            .try_rsub_scalar(4.0)?
            .try_div_scalar(3.0)?
            .try_rdiv_scalar(2.0)?
            .try_add_scalar(0.5)
    });
    // A leaf used twice accumulates both paths: d(x*x)/dx = 2x.
    gradcheck("x*x", &[a], |x| x[0].try_mul(&x[0]));
}

#[test]
fn unary_rules() {
    let x = t(&[2, 3], 5).mul_scalar(0.9); // inside (-1, 1)
    let pos = x.abs().add_scalar(1.5); // > 1
    type F = fn(&T64) -> Result<T64>;
    let on_x: [(&str, F); 19] = [
        ("sin", |x| x.try_sin()),
        ("cos", |x| x.try_cos()),
        ("tan", |x| x.try_tan()),
        ("asin", |x| x.try_asin()),
        ("acos", |x| x.try_acos()),
        ("atan", |x| x.try_atan()),
        ("sinh", |x| x.try_sinh()),
        ("cosh", |x| x.try_cosh()),
        ("tanh", |x| x.try_tanh()),
        ("asinh", |x| x.try_asinh()),
        ("atanh", |x| x.try_atanh()),
        ("exp", |x| x.try_exp()),
        ("exp2", |x| x.try_exp2()),
        ("expm1", |x| x.try_expm1()),
        ("sigmoid", |x| x.try_sigmoid()),
        ("erf", |x| x.try_erf()),
        ("neg", |x| x.try_neg()),
        ("abs", |x| x.try_abs()),
        ("relu", |x| x.try_relu()),
    ];
    for (name, f) in on_x {
        gradcheck(name, &[x.clone()], |x| f(&x[0]));
    }
    let on_pos: [(&str, F); 8] = [
        ("acosh", |x| x.try_acosh()),
        ("log", |x| x.try_log()),
        ("log2", |x| x.try_log2()),
        ("log10", |x| x.try_log10()),
        ("log1p", |x| x.try_log1p()),
        ("sqrt", |x| x.try_sqrt()),
        ("reciprocal", |x| x.try_reciprocal()),
        ("square", |x| x.try_square()),
    ];
    for (name, f) in on_pos {
        gradcheck(name, &[pos.clone()], |x| f(&x[0]));
    }
    // Piecewise constant ops pass a zero gradient (PyTorch).
    let l = x.deep_copy().with_requires_grad(true).unwrap();
    l.try_floor().unwrap().sum(&[], false).backward();
    assert!(l.grad().unwrap().iter().all(|&g| g == 0.0));
}

#[test]
fn reduction_and_matmul_rules() {
    let x = t(&[2, 3, 4], 8);
    gradcheck("sum all", &[x.clone()], |x| x[0].try_sum(&[], false));
    gradcheck("sum axes", &[x.clone()], |x| x[0].try_sum(&[0, 2], false));
    gradcheck("sum keepdim", &[x.clone()], |x| x[0].try_sum(&[-1], true));
    gradcheck("mean", &[x.clone()], |x| x[0].try_mean(&[1], false));
    let (a, b) = (t(&[3, 4], 9), t(&[4, 2], 10));
    gradcheck("matmul", &[a.clone(), b.clone()], |x| {
        x[0].try_matmul(&x[1])
    });
    gradcheck("matmul batched broadcast", &[x.clone(), b.clone()], |x| {
        x[0].try_matmul(&x[1])
    });
    let v = t(&[4], 11);
    gradcheck("matmul 1-d @ 2-d", &[v.clone(), b.clone()], |x| {
        x[0].try_matmul(&x[1])
    });
    gradcheck("matmul 2-d @ 1-d", &[a.clone(), v.clone()], |x| {
        x[0].try_matmul(&x[1])
    });
    gradcheck("dot", &[v.clone(), t(&[4], 12)], |x| x[0].try_matmul(&x[1]));
    // A transposed (strided) operand.
    gradcheck("matmul of a transpose", &[t(&[4, 3], 13), b], |x| {
        x[0].t().try_matmul(&x[1])
    });
    // A batch times one 2-d operand folds the batch into rows: a transposed weight (linear's
    // layout), a permuted batch, a 1-d right operand.
    let w = t(&[5, 4], 15);
    gradcheck(
        "matmul 4-d @ transposed 2-d",
        &[t(&[2, 1, 3, 4], 16), w],
        |x| x[0].try_matmul(&x[1].t()),
    );
    gradcheck("matmul permuted 3-d @ 1-d", &[t(&[4, 3, 2], 17), v], |x| {
        x[0].permute(&[2, 1, 0])?.try_matmul(&x[1])
    });
}

/// Many views of one base (a time loop's `select`s) sum their gradients into one buffer of
/// the base, in place (`rules::views::ViewGrad`): exact values on contiguous, flipped, strided
/// and permuted bases, mixed with a non-view use of the base, in f64 and f16.
#[test]
fn sibling_view_gradients() {
    // loss = Σ_t (t + 1)·Σ base[t]² (+ Σ base·3 when `direct`): d/dbase[t] = 2(t + 1)·base[t] (+ 3).
    let check = |name: &str, make: &dyn Fn(&T64) -> Result<T64>, direct: bool| {
        let x = t(&[5, 3, 4], 40).with_requires_grad(true).unwrap();
        let base = make(&x).unwrap();
        let mut loss = Tensor::<f64>::scalar(0.0);
        for i in 0..base.dims()[0] {
            let s = base.select(0, i as i64).unwrap();
            let term = s.try_square().unwrap().try_sum(&[], false).unwrap();
            loss = loss
                .try_add(&term.try_mul_scalar((i + 1) as f64).unwrap())
                .unwrap();
        }
        if direct {
            let d = base
                .try_mul_scalar(3.0)
                .unwrap()
                .try_sum(&[], false)
                .unwrap();
            loss = loss.try_add(&d).unwrap();
        }
        loss.try_backward().unwrap();
        // The same gradient through a copy of the base (no views of it).
        let y = x.detach().with_requires_grad(true).unwrap();
        let b = make(&y).unwrap().try_contiguous().unwrap();
        let n = b.dims()[0];
        let w: Vec<f64> = (0..n).map(|i| (i + 1) as f64).collect();
        let w = Tensor::<f64>::from_vec(w, [n, 1, 1]).unwrap();
        let mut l2 = b
            .try_square()
            .unwrap()
            .try_mul(&w)
            .unwrap()
            .try_sum(&[], false)
            .unwrap();
        if direct {
            l2 = l2
                .try_add(&b.try_mul_scalar(3.0).unwrap().try_sum(&[], false).unwrap())
                .unwrap();
        }
        l2.try_backward().unwrap();
        let (a, b) = (x.grad().unwrap().to_vec(), y.grad().unwrap().to_vec());
        assert!(
            a.iter()
                .zip(&b)
                .all(|(a, b)| (a - b).abs() <= 1e-13 * (1.0 + b.abs())),
            "{name}: {a:?} vs {b:?}"
        );
    };
    for direct in [false, true] {
        check("contiguous", &|x| x.try_mul_scalar(1.0), direct);
        check("leaf itself", &|x| Ok(x.clone()), direct);
        check("flipped", &|x| x.flip(&[0, 2]), direct);
        check("permuted", &|x| x.permute(&[2, 0, 1]), direct);
        check(
            "strided",
            &|x| x.slice(&[Slice::new(None, None, 2)]),
            direct,
        );
        check("narrowed", &|x| x.narrow(1, 1, 2), direct);
    }
    // f16: the 16-bit view path defers too.
    let x = Tensor::<f16>::from_vec(vec![f16::from_f32(1.5); 12], [4, 3]).unwrap();
    let x = x.with_requires_grad(true).unwrap();
    let parts: Vec<_> = (0..4).map(|i| x.select(0, i).unwrap()).collect();
    let mut loss = parts[0].try_sum(&[], false).unwrap();
    for (i, p) in parts.iter().enumerate().skip(1) {
        let term = p.try_mul_scalar(f16::from_f32(i as f32 + 1.0)).unwrap();
        loss = loss.try_add(&term.try_sum(&[], false).unwrap()).unwrap();
    }
    loss.try_backward().unwrap();
    let g: Vec<f32> = x.grad().unwrap().iter().map(|v| v.to_f32()).collect();
    assert_eq!(g, [1., 1., 1., 2., 2., 2., 3., 3., 3., 4., 4., 4.]);
    gradcheck("stacked selects of a narrow", &[t(&[4, 5], 41)], |x| {
        let b = x[0].narrow(1, 1, 3)?;
        let s: Vec<_> = (0..4)
            .rev()
            .map(|i| b.select(0, i))
            .collect::<Result<_>>()?;
        Tensor::try_stack(&s.iter().collect::<Vec<_>>(), 1)
    });
}

#[test]
fn view_rules() {
    let x = t(&[3, 4], 14);
    gradcheck("transpose", &[x.clone()], |x| x[0].transpose(0, 1));
    gradcheck("narrow", &[x.clone()], |x| x[0].narrow(1, 1, 2));
    gradcheck("slice with steps", &[x.clone()], |x| {
        x[0].slice(&[Slice::new(None, None, -2), Slice::new(Some(1), None, 2)])
    });
    gradcheck("flip", &[x.clone()], |x| x[0].flip(&[0, 1]));
    gradcheck("diagonal", &[x.clone()], |x| x[0].diagonal(1));
    gradcheck("unsqueeze + expand", &[x.clone()], |x| {
        x[0].unsqueeze(0)?.expand([2, 3, 4])
    });
    gradcheck("broadcast row", &[t(&[1, 4], 15)], |x| x[0].expand([3, 4]));
    gradcheck("reshape", &[x.clone()], |x| x[0].try_reshape([2, 6]));
    gradcheck("reshape of a transpose (copy)", &[x.clone()], |x| {
        x[0].t().try_reshape([12])
    });
    gradcheck("permute + contiguous", &[t(&[2, 3, 4], 16)], |x| {
        x[0].permute(&[2, 0, 1])?.try_contiguous()
    });
    // A composite through views and arithmetic: softmax over rows.
    gradcheck("softmax", &[x], |x| {
        let e = x[0].try_exp()?;
        e.try_div(&e.try_sum(&[1], true)?)
    });
}

#[test]
fn views_of_a_broadcast_leaf() {
    // A broadcast view made a leaf is copied, so each element is its own variable, as in
    // PyTorch: `y = x.expand(2, 3).requires_grad_(); y[1].sum().backward()` gives y.grad
    // = [[0, 0, 0], [1, 1, 1]]. Views of it used to be an Err at backward time.
    let y = t(&[3], 53)
        .expand([2, 3])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    assert!(y.is_leaf() && y.is_contiguous());
    y.slice(&s![1]).unwrap().sum(&[], false).backward();
    assert_eq!(y.grad_tensor().unwrap().to_vec(), [0., 0., 0., 1., 1., 1.]);
    // (x.T[1:] ** 2).sum() on x = [[a], [b]] expanded to (2, 3): 2x off the first column.
    let x = Tensor::<f64>::from_vec(vec![1.5, -2.0], [2, 1]).unwrap();
    let x = x.expand([2, 3]).unwrap().with_requires_grad(true).unwrap();
    let z = x.transpose(0, 1).unwrap().slice(&s![1..]).unwrap();
    z.mul(&z).sum(&[], false).backward();
    assert_eq!(
        x.grad_tensor().unwrap().to_vec(),
        [0., 3., 3., 0., -4., -4.]
    );
    let d = Tensor::<f64>::from_vec(vec![1.0, 2.0], [2]).unwrap();
    let d = d.expand([2, 2]).unwrap().with_requires_grad(true).unwrap();
    d.diagonal(0).unwrap().sum(&[], false).backward();
    assert_eq!(d.grad_tensor().unwrap().to_vec(), [1., 0., 0., 1.]);
}

#[test]
fn casts_between_float_types() {
    let x = Tensor::<f32>::from_vec(vec![0.5, -1.0, 2.0], [3])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    let y: Tensor<f64> = x.cast::<f64>();
    y.mul(&y).sum(&[], false).backward();
    assert_eq!(x.grad().unwrap().to_vec(), vec![1.0, -2.0, 4.0]);
    // An integer result carries no gradient.
    assert!(!x.cast::<i32>().requires_grad());
}

#[test]
fn engine_semantics() {
    let x = Tensor::<f64>::from_vec(vec![1.0, 2.0], [2])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    assert!(x.is_leaf() && x.requires_grad());
    let y = x.mul_scalar(3.0).sum(&[], false);
    assert!(!y.is_leaf() && y.requires_grad());
    assert_eq!(y.grad_fn().unwrap().name(), "sum");
    y.try_backward_with(&Tensor::scalar(1.0), true).unwrap();
    y.backward(); // the retained graph runs again; the gradient accumulates
    assert_eq!(x.grad().unwrap().to_vec(), vec![6.0, 6.0]);
    let e = y.try_backward().unwrap_err().to_string();
    assert!(e.contains("freed") && e.contains("retain_graph"), "{e}");
    x.zero_grad().unwrap();
    assert_eq!(x.grad().unwrap().to_vec(), vec![0.0, 0.0]);
    // Non-scalar results need an explicit gradient.
    let v = x.mul_scalar(2.0);
    assert!(
        v.try_backward()
            .unwrap_err()
            .to_string()
            .contains("backward_with")
    );
    v.try_backward_with(&Tensor::from_vec(vec![1.0, 10.0], [2]).unwrap(), false)
        .unwrap();
    assert_eq!(x.grad().unwrap().to_vec(), vec![2.0, 20.0]);
    // no_grad and detach record nothing.
    let n = no_grad(|| x.mul_scalar(2.0));
    assert!(!n.requires_grad() && n.try_backward().is_err());
    {
        let _guard = NoGradGuard::new();
        assert!(!is_grad_enabled());
    }
    assert!(is_grad_enabled());
    let d = x.detach();
    assert!(!d.requires_grad() && d.grad().is_none());
    assert!(!d.mul(&d).requires_grad());
    // Ops without a rule yet say so at backward time, naming the op.
    let z = Tensor::<f64>::from_vec(vec![0.0, 1.0], [2])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    let m = z.nanproduct(&[], false);
    let e = m.try_backward().unwrap_err().to_string();
    assert!(e.contains("nanproduct"), "{e}");
    // Plain tensors keep their cost: no graph at all.
    let p = Tensor::<f64>::ones([2]).unwrap();
    assert!(p.add(&p).grad_fn().is_none());
}

#[test]
fn dyn_tensor_autograd() {
    let opts = TensorOptions::new()
        .dtype(Dtype::Float32)
        .requires_grad(true);
    let w = DynTensor::full([3], opts, 2.0f32).unwrap();
    let loss = reduce_sum(&w.mul(&w).unwrap(), &[], false).unwrap();
    loss.backward().unwrap();
    let g = w.grad_tensor().unwrap().to_vec::<f32>().unwrap();
    assert_eq!(g, vec![4.0; 3]);
    w.zero_grad().unwrap();
    let int = TensorOptions::new().dtype(Dtype::Int32).requires_grad(true);
    let e = DynTensor::zeros([2], int).unwrap_err().to_string();
    assert!(e.contains("Int32") && e.contains("to_dtype"), "{e}");
}

/// One generic training step, as a user writes it for any device.
fn step<D: Backend>(dev: &D) -> Result<Vec<f64>> {
    let x = Tensor::<f32, D>::from_vec_on(vec![1.0, 2.0, 3.0, 4.0], [2, 2], dev)?;
    let mut w =
        Tensor::<f32, D>::from_vec_on(vec![0.5, -0.5], [2, 1], dev)?.with_requires_grad(true)?;
    let loss = x.try_matmul(&w)?.try_square()?.try_mean(&[], false)?;
    loss.try_backward()?;
    let g = w.grad_tensor().unwrap();
    no_grad(|| w.sub_(&g.try_mul_scalar(0.1)?))?;
    Ok(g.try_to_vec()?.iter().map(|&v| v as f64).collect())
}

#[test]
fn gradients_on_every_device() {
    // loss = mean((x w)²) with x w = [-0.5, -0.5]: d/dw = xᵀ (x w) = [-2, -3].
    let want = vec![-2.0, -3.0];
    assert_eq!(step(&Cpu).unwrap(), want);
    match Cuda::new(0) {
        Ok(gpu) => {
            assert_eq!(step(&gpu).unwrap(), want);
            // Across devices: a CPU leaf computed on the GPU and a GPU leaf on the CPU get their
            // gradients on their own devices. d/dx sum(sin(x)·3) = 3 cos(x).
            let x = Tensor::<f64>::from_vec(vec![0.0, 1.0], [2]).unwrap();
            let want: Vec<f64> = x.to_vec().iter().map(|v| 3.0 * v.cos()).collect();
            let host = x.clone().with_requires_grad(true).unwrap();
            let y = host.to_cuda(&gpu).unwrap().sin().mul_scalar(3.0);
            y.sum(&[], false).backward();
            let g = host.grad_tensor().unwrap().to_vec();
            assert!(
                g.iter().zip(&want).all(|(a, b)| (a - b).abs() < 1e-12),
                "{g:?}"
            );
            let dev = x.to_cuda(&gpu).unwrap().with_requires_grad(true).unwrap();
            let z = dev.try_to_cpu().unwrap().sin().mul_scalar(3.0);
            z.sum(&[], false).backward();
            let g = dev.grad_tensor().unwrap().to_vec();
            assert!(
                g.iter().zip(&want).all(|(a, b)| (a - b).abs() < 1e-12),
                "{g:?}"
            );
        }
        Err(e) => println!("autograd on CUDA skipped: {e}"),
    }
}

#[test]
fn selection_indexing_and_composite_rules() {
    let x = t(&[3, 4], 20);
    let y = t(&[3, 4], 21);
    let pos = x.abs().add_scalar(0.5);
    let cond = x.gt_scalar(0.0);
    gradcheck("where", &[x.clone(), t(&[4], 22)], |v| {
        Tensor::try_where(&cond, &v[0], &v[1])
    });
    gradcheck("masked_fill", &[x.clone()], |v| {
        v[0].try_masked_fill(&cond, 2.0)
    });
    gradcheck("concat", &[x.clone(), t(&[3, 2], 23)], |v| {
        Tensor::try_concat(&[&v[0], &v[1]], 1)
    });
    gradcheck("stack", &[x.clone(), y.clone()], |v| {
        Tensor::try_stack(&[&v[0], &v[1]], 0)
    });
    let idx = Tensor::<i64>::from_vec(vec![2, 0, 2, -1], [4]).unwrap();
    gradcheck("index_select with repeats", &[x.clone()], |v| {
        v[0].try_index_select(1, &idx)
    });
    let gi = Tensor::<i64>::from_vec(vec![0, 3, 3, 1, 2, 0], [3, 2]).unwrap();
    gradcheck("gather", &[x.clone()], |v| v[0].try_gather(1, &gi));
    gradcheck("scatter_add", &[x.clone(), t(&[3, 2], 24)], |v| {
        v[0].try_scatter_add(1, &gi, &v[1])
    });
    gradcheck("cumsum", &[x.clone()], |v| v[0].try_cumsum(1));
    gradcheck("cumprod", &[x.clone()], |v| v[0].try_cumprod(1));
    gradcheck("product all", &[x.clone()], |v| {
        v[0].try_product(&[], false)
    });
    gradcheck("product axis", &[t(&[2, 3, 4], 31)], |v| {
        v[0].try_product(&[0, 2], true)
    });
    let zeros = Tensor::<f64>::from_vec(vec![0.0, 2.0, 3.0, 0.0, 0.0, 5.0], [2, 3]).unwrap();
    gradcheck("product with zeros", &[zeros.clone()], |v| {
        v[0].try_product(&[1], false)
    });
    gradcheck("max", &[x.clone()], |v| v[0].try_max(&[1], false));
    gradcheck("min keepdim", &[x.clone()], |v| v[0].try_min(&[0], true));
    gradcheck("var", &[x.clone()], |v| v[0].try_var(&[1], 1, false));
    gradcheck("std", &[x.clone()], |v| v[0].try_std(&[0, 1], 0, true));
    gradcheck("pow f64", &[pos.clone()], |v| v[0].try_pow(2.5));
    gradcheck("pow i32", &[x.clone()], |v| v[0].try_pow(3));
    gradcheck("pow tensor", &[pos.clone(), y.clone()], |v| {
        v[0].try_pow(&v[1])
    });
    gradcheck("logsumexp", &[x.clone()], |v| {
        v[0].try_logsumexp(&[1], false)
    });
    gradcheck("norm 2", &[x.clone()], |v| v[0].try_norm(2.0, &[1], false));
    gradcheck("norm 3", &[x.clone()], |v| v[0].try_norm(3.0, &[], false));
    gradcheck("clip", &[x.clone()], |v| v[0].try_clip(-0.5, 0.5));
    gradcheck("dot", &[t(&[4], 25), t(&[4], 26)], |v| v[0].try_dot(&v[1]));
    gradcheck("outer", &[t(&[3], 27), t(&[4], 28)], |v| {
        v[0].try_outer(&v[1])
    });
    gradcheck("tensordot", &[t(&[2, 3, 4], 29), t(&[4, 3], 30)], |v| {
        v[0].try_tensordot(&v[1], &[1, 2], &[1, 0])
    });
    gradcheck("split + mul", &[x.clone()], |v| {
        let parts = v[0].try_split(&[1, 3], 1)?;
        parts[1].try_mul(&parts[0])
    });
    gradcheck("pad", &[x.clone()], |v| {
        v[0].try_pad(&[(1, 0), (0, 2)], 0.5)
    });
    gradcheck("roll", &[x.clone()], |v| v[0].try_roll(1, 1));
    gradcheck("tile", &[x.clone()], |v| v[0].try_tile(&[2, 1]));
    gradcheck("repeat_interleave", &[x.clone()], |v| {
        v[0].try_repeat_interleave(2, 0)
    });
    gradcheck("tril", &[x.clone()], |v| v[0].try_tril(0));
    gradcheck("triu", &[x], |v| v[0].try_triu(1));
}

#[test]
fn linalg_rules_and_ops_without_gradients() {
    let a = t(&[3, 3], 40).add(&Tensor::eye(3).unwrap().mul_scalar(3.0));
    gradcheck("inverse", &[a.clone()], |v| v[0].try_inverse());
    gradcheck("solve vector", &[a.clone(), t(&[3], 41)], |v| {
        v[0].try_solve(&v[1])
    });
    gradcheck("solve matrix", &[a.clone(), t(&[3, 2], 42)], |v| {
        v[0].try_solve(&v[1])
    });
    // A vector b against a stack of matrices: x is a stack of vectors (found by the fuzzer:
    // the rule used to solve g as one matrix and fail on shapes).
    let stack = t(&[3, 2, 2], 48).add(&Tensor::eye(2).unwrap().mul_scalar(3.0));
    gradcheck("solve stack, vector", &[stack.clone(), t(&[2], 49)], |v| {
        v[0].try_solve(&v[1])
    });
    gradcheck(
        "solve 1x1 stack, vector",
        &[t(&[3, 1, 1], 50).add_scalar(2.0), t(&[1], 51)],
        |v| v[0].try_solve(&v[1]),
    );
    // det of a matrix holding NaN: a NaN gradient (PyTorch), not an Err from the SVD.
    let mut bad = t(&[2, 2, 2], 52).contiguous();
    bad.set_data(&[1.0, f64::NAN, 2.0, 4.0, 2.0, 1.0, 1.0, 3.0])
        .unwrap();
    let bad = bad.with_requires_grad(true).unwrap();
    bad.det().sum(&[], false).backward();
    let g = bad.grad_tensor().unwrap().to_vec();
    assert!(g[..4].iter().all(|v| v.is_nan()), "{g:?}");
    for (got, want) in g[4..].iter().zip([3.0, -1.0, -1.0, 2.0]) {
        assert!((got - want).abs() < 1e-12, "{g:?}");
    }
    // pinv of full-rank matrices (where it is differentiable): square, wide, tall, a batch.
    gradcheck("pinv square", &[a.clone()], |v| v[0].try_pinv());
    for (dims, seed) in [(&[2, 4][..], 45), (&[4, 2], 46), (&[2, 3, 2], 47)] {
        gradcheck("pinv", &[t(dims, seed)], |v| v[0].try_pinv());
    }
    gradcheck("diag of a vector", &[t(&[3], 43)], |v| v[0].try_diag(1));
    gradcheck("diag_embed", &[t(&[2, 3], 44)], |v| v[0].try_diag_embed());
    // The spectral factorizations differentiate too (their gradchecks are in `core_ops.rs`).
    let x = a.deep_copy().with_requires_grad(true).unwrap();
    for (name, y) in [("svd", x.svd().1), ("eigh", x.eigh().0)] {
        assert!(y.requires_grad(), "{name}");
        y.sum(&[], false).try_backward().unwrap();
    }
    assert!(x.grad_tensor().is_some());
}

/// The loss of [`low_precision`]: element-wise ops, views (a transpose, a stepped slice, a
/// broadcast row), a matmul, `where_`, `concat`, `logsumexp` and a mean.
fn low_precision_loss<F: FloatElement, D: Backend>(x: &Tensor<F, D>) -> Tensor<F, D> {
    let y = x.tanh().mul(x);
    let m = y.matmul(&x.t());
    let cols = x
        .slice(&[Slice::new(None, None, -1), Slice::new(Some(0), None, 2)])
        .unwrap();
    let row = x.narrow(0, 0, 1).unwrap().expand([2, 3]).unwrap();
    let picked = Tensor::where_(&x.gt_scalar(F::ZERO), &x.exp(), &row.mul(x));
    let both = Tensor::concat(&[&cols, &picked], 1);
    let lse = both.logsumexp(&[1], false);
    m.mean(&[], false).add(&lse.sum(&[], false))
}

/// f32, f16 and bf16 gradients on `dev` agree with the f64 gradient on the CPU at their
/// precision.
fn low_precision<F: FloatElement, D: Backend>(dev: &D, tol: f64) {
    let xs = vals(6, 50);
    let want = {
        let x = Tensor::<f64>::from_vec(
            xs.iter().map(|&v| F::from_f64(v).to_f64()).collect(),
            [2, 3],
        );
        let x = x.unwrap().with_requires_grad(true).unwrap();
        low_precision_loss(&x).backward();
        x.grad().unwrap().to_vec()
    };
    let x = Tensor::<F, D>::from_vec_on(xs.iter().map(|&v| F::from_f64(v)).collect(), [2, 3], dev);
    let x = x.unwrap().with_requires_grad(true).unwrap();
    low_precision_loss(&x).backward();
    let got: Vec<f64> = (x.grad_tensor().unwrap().to_vec().iter())
        .map(|v| v.to_f64())
        .collect();
    crate::common::assert_close(&got, &want, tol);
}

fn low_precision_on<D: Backend>(dev: &D) {
    low_precision::<f32, D>(dev, 1e-5);
    low_precision::<f16, D>(dev, 1e-2);
    low_precision::<bf16, D>(dev, 5e-2);
}

#[test]
fn low_precision_gradients_match_f64() {
    low_precision_on(&Cpu);
    match Cuda::new(0) {
        Ok(gpu) => low_precision_on(&gpu),
        Err(e) => println!("low-precision gradients on CUDA skipped: {e}"),
    }
}

/// An in-place write to a tensor a graph saved makes backward an `Err` naming the op, never a
/// wrong gradient; in-place ops on tensors that require grad are refused while recording and
/// allowed under `no_grad` (an optimizer step).
#[test]
fn in_place_writes_are_detected() {
    let x = Tensor::<f64>::from_vec(vec![1.0, 2.0], [2])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    let c = Tensor::<f64>::from_vec(vec![3.0, 4.0], [2]).unwrap();
    let y = x.mul(&c).sum(&[], false); // saves c
    let mut alias = c.narrow(0, 1, 1).unwrap(); // a view of c's buffer
    alias.fill_(10.0).unwrap();
    let e = y.try_backward().unwrap_err().to_string();
    assert!(e.contains("`mul`") && e.contains("in-place"), "{e}");
    // data_mut() writes count too.
    let y = x.mul(&c).sum(&[], false);
    c.clone().data_mut().unwrap()[0] = 5.0;
    assert!(y.try_backward().is_err());
    // A write before the graph is built, or after backward freed it, is fine.
    let y = x.mul(&c).sum(&[], false);
    y.backward();
    assert_eq!(x.grad().unwrap().to_vec(), vec![5.0, 10.0]);
    let mut c2 = c.clone();
    c2.fill_(0.0).unwrap();
    // In-place on a tensor that requires grad: refused while recording, fine under no_grad.
    let mut w = x.clone();
    let e = w.add_scalar_(1.0).unwrap_err().to_string();
    assert!(e.contains("no_grad"), "{e}");
    assert_eq!(x.to_vec(), vec![1.0, 2.0]);
    no_grad(|| w.add_scalar_(1.0)).unwrap();
    assert_eq!(x.to_vec(), vec![2.0, 3.0]);
}

/// The hand-written gradient of the digits model equals `backward()`'s, and backward frees
/// the graph: nothing stays saved afterwards.
#[test]
fn softmax_regression_matches_hand_written_gradients() {
    let x = t(&[20, 6], 60);
    let mut tv = vec![0.0; 20 * 4];
    for i in 0..20 {
        tv[i * 4 + i % 4] = 1.0;
    }
    let target = Tensor::<f64>::from_vec(tv, [20, 4]).unwrap();
    let w = t(&[6, 4], 61).with_requires_grad(true).unwrap();
    let logits = x.matmul(&w);
    let lse = logits.logsumexp(&[1], true);
    let loss = lse
        .sub(&logits.mul(&target).sum(&[1], true))
        .mean(&[], false);
    assert!(x.is_saved_for_backward());
    loss.backward();
    assert!(!x.is_saved_for_backward() && !w.is_saved_for_backward());
    let manual = no_grad(|| {
        let p = logits.sub(&lse).exp().sub(&target).div_scalar(20.0);
        x.t().matmul(&p)
    });
    crate::common::assert_close(&w.grad().unwrap(), &manual.to_vec(), 1e-12);
}

/// `autograd::grad` on `dev`: the gradients returned for leaves and intermediate results
/// equal what `backward` accumulates, no buffer changes, unused inputs get `None`.
fn returned_gradients_on<D: Backend>(dev: &D) {
    use typed_tensor::autograd::{grad, grad_with};
    let host = crate::common::host_f64s;
    let leaf = |v: &[f64], d: &[usize]| {
        Tensor::<f64, D>::from_vec_on(v.to_vec(), d.to_vec(), dev)
            .unwrap()
            .with_requires_grad(true)
            .unwrap()
    };
    let x = leaf(&[1.0, -2.0, 0.5, 3.0], &[2, 2]);
    let w = leaf(&[0.3, 0.7, -1.1, 0.2], &[2, 2]);
    let unused = leaf(&[5.0], &[1]);
    let h = x.matmul(&w).softmax(1); // an intermediate result
    let loss = |h: &Tensor<f64, D>| h.mul(&x).sum(&[], false);
    let y = loss(&h);
    let g = grad(&y, &[&x, &h, &w, &unused, &x], true).unwrap();
    assert!(g[3].is_none());
    assert_eq!(host(g[0].as_ref().unwrap()), host(g[4].as_ref().unwrap()));
    assert_eq!(host(g[1].as_ref().unwrap()), host(&x)); // d(sum(h·x))/dh = x
    for t in [&x, &w, &unused] {
        assert!(host(&t.grad_tensor().unwrap()).iter().all(|&v| v == 0.0));
    }
    // The graph was kept: backward accumulates the same values.
    y.backward();
    assert_eq!(
        host(g[0].as_ref().unwrap()),
        host(&x.grad_tensor().unwrap())
    );
    assert_eq!(
        host(g[2].as_ref().unwrap()),
        host(&w.grad_tensor().unwrap())
    );
    // From an output of any shape, with its gradient; the graph freed afterwards.
    let z = x.mul(&w);
    let dz = Tensor::<f64, D>::from_vec_on(vec![1.0, 2.0, 3.0, 4.0], [2, 2], dev).unwrap();
    let gw = grad_with(&z, &dz, &[&w], false).unwrap();
    let want: Vec<f64> = host(&x)
        .iter()
        .zip([1.0, 2.0, 3.0, 4.0])
        .map(|(a, b)| a * b)
        .collect();
    assert_eq!(host(gw[0].as_ref().unwrap()), want);
    assert!(
        grad_with(&z, &dz, &[&w], false).is_err(),
        "the graph was freed"
    );
    // Refusals, each naming grad.
    let plain = Tensor::<f64, D>::from_vec_on(vec![1.0], [1], dev).unwrap();
    let y = loss(&x.matmul(&w).softmax(1));
    for e in [
        grad(&x.mul(&w), &[&x], false).unwrap_err(),
        grad(&y, &[&plain], false).unwrap_err(),
        grad(&plain, &[&x], false).unwrap_err(),
        grad_with(&y, &plain.reshape([1, 1]), &[&x], false).unwrap_err(),
    ] {
        assert!(e.to_string().starts_with("grad"), "{e}");
    }
}

#[test]
fn grad_returns_gradients_without_accumulating() {
    crate::on_every_device!("autograd::grad", |dev| { returned_gradients_on(&dev) });
}

#[test]
fn a_product_of_a_variable_with_itself_is_its_square() {
    // x · x is recorded as pow(x, 2) (PyTorch records `square` so): one node, gradient 2x g.
    let x = Tensor::<f64>::from_vec(vec![-1.5, 0.0, 2.0, 3.0], [4])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    let y = x.mul(&x);
    assert_eq!(y.grad_fn().unwrap().name(), "pow");
    y.mul(&tensor![1.0f64, 2.0, 3.0, 4.0])
        .sum(&[], false)
        .backward();
    assert_eq!(
        x.grad_tensor().unwrap().to_vec(),
        vec![-3.0, 0.0, 12.0, 24.0]
    );
    // Two variables with the same values stay a product: each gets its own gradient.
    let mut v = x.reshape([2, 2]).reshape([4]);
    v.retain_grad().unwrap();
    let z = x.mul(&v);
    assert_eq!(z.grad_fn().unwrap().name(), "mul");
    x.zero_grad().unwrap();
    z.sum(&[], false).backward();
    assert_eq!(v.grad_tensor().unwrap().to_vec(), vec![-1.5, 0.0, 2.0, 3.0]);
    assert_eq!(x.grad_tensor().unwrap().to_vec(), vec![-3.0, 0.0, 4.0, 6.0]);
    // Second order through the square: d²(Σ x²)/dx² = 2.
    let gx =
        typed_tensor::autograd::grad_create_graph(&x.mul(&x).sum(&[], false), None, &[&x]).unwrap();
    let gx = gx[0].clone().unwrap();
    let h = typed_tensor::autograd::grad(&gx.sum(&[], false), &[&x], false).unwrap();
    assert_eq!(h[0].as_ref().unwrap().to_vec(), vec![2.0; 4]);
    gradcheck("x * x", &[x.detach()], |v| v[0].try_mul(&v[0]));
}
