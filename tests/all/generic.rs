//! Device-generic tests: each body is written once over `T` and `D: Backend` (or `D: Device`,
//! the same bound under the field's name: `float_ops` uses it), as a user's code would be, and runs on the CPU always and on CUDA device 0 when one is present (otherwise it
//! prints why it skipped). Values are checked against f64 references computed on the host.

use crate::common::assert_close;
use typed_tensor::prelude::*;

/// The elements of any device's tensor as f64, on the host.
fn host<T: Element, D: Backend>(t: &Tensor<T, D>) -> Vec<f64> {
    t.try_to_vec().unwrap().iter().map(|x| x.to_f64()).collect()
}

/// A (2, 3) float tensor on `dev` with the values `v`.
fn m<T: FloatElement, D: Backend>(v: [f64; 6], dev: &D) -> Tensor<T, D> {
    Tensor::from_vec_on(v.iter().map(|&x| T::from_f64(x)).collect(), [2, 3], dev).unwrap()
}

/// About forty ops in both forms, from one generic function.
fn float_ops<T: FloatElement, D: Device>(dev: &D) -> Result<()> {
    let tol = match T::DTYPE {
        Dtype::Float64 => 1e-12,
        Dtype::Float32 => 1e-6,
        Dtype::Float16 => 2e-3,
        _ => 1e-2,
    };
    let xs = [0.5, -1.0, 2.0, 0.25, 3.0, -0.75];
    let ys = [1.5, 2.0, -0.5, 4.0, 0.5, 1.0];
    let (x, y) = (m::<T, D>(xs, dev), m::<T, D>(ys, dev));
    let r = |v: f64| T::from_f64(v).to_f64(); // the inputs as T holds them
    let each = |f: fn(f64) -> f64| xs.iter().map(|&a| f(r(a))).collect::<Vec<_>>();
    let pair = |f: fn(f64, f64) -> f64| {
        xs.iter()
            .zip(&ys)
            .map(|(&a, &b)| f(r(a), r(b)))
            .collect::<Vec<_>>()
    };

    // Element-wise, both forms.
    assert_close(&host(&x.try_sin()?), &each(f64::sin), tol);
    assert_close(&host(&x.sin()), &each(f64::sin), tol);
    assert_close(&host(&x.try_exp()?), &each(f64::exp), tol);
    assert_close(&host(&x.tanh()), &each(f64::tanh), tol);
    assert_close(
        &host(&x.try_abs()?.try_sqrt()?),
        &each(|a| a.abs().sqrt()),
        tol,
    );
    assert_close(&host(&x.neg()), &each(|a| -a), tol);
    assert_close(&host(&x.try_relu()?), &each(|a| a.max(0.0)), tol);
    assert_close(&host(&x.try_square()?), &each(|a| a * a), tol);
    assert_close(
        &host(&x.clip(T::from_f64(-0.5), T::ONE)),
        &each(|a| a.clamp(-0.5, 1.0)),
        tol,
    );
    assert_close(&host(&x.try_pow(2)?), &each(|a| a * a), tol);

    // Binary, scalar and operators.
    assert_close(&host(&x.try_add(&y)?), &pair(|a, b| a + b), tol);
    assert_close(&host(&x.mul(&y)), &pair(|a, b| a * b), tol);
    assert_close(&host(&(&x / &y)), &pair(|a, b| a / b), tol);
    assert_close(&host(&x.try_maximum(&y)?), &pair(f64::max), tol);
    assert_close(&host(&x.try_add_scalar(T::ONE)?), &each(|a| a + 1.0), tol);
    assert_close(&host(&x.rsub_scalar(T::ONE)), &each(|a| 1.0 - a), tol);
    let mut z = x.try_deep_copy()?;
    z += &y;
    z.mul_scalar_(T::from_f64(2.0))?;
    assert_close(&host(&z), &pair(|a, b| (a + b) * 2.0), tol);
    let mut out = Tensor::zeros_on([2, 3], dev)?;
    x.sub_into(&y, &mut out)?;
    assert_close(&host(&out), &pair(|a, b| a - b), tol);

    // Broadcasting against a row.
    let row = y.narrow(0, 0, 1)?;
    let want: Vec<f64> = (0..6).map(|i| r(xs[i]) + r(ys[i % 3])).collect();
    assert_close(&host(&x.try_add(&row)?), &want, tol);

    // Comparisons and logical ops.
    let gt = x.try_gt(&y)?;
    assert_eq!(host(&gt), pair(|a, b| (a > b) as u8 as f64));
    assert_eq!(
        host(&x.lt_scalar(T::ZERO)),
        each(|a| (a < 0.0) as u8 as f64)
    );
    assert_eq!(
        host(&gt.try_logical_or(&x.lt_scalar(T::ZERO))?),
        pair(|a, b| (a > b || a < 0.0) as u8 as f64)
    );
    assert!(!x.try_is_nan()?.try_any(&[], false)?.try_item()?);
    assert!(x.all_close(&x.try_add_scalar(T::ZERO)?, 0.0, 0.0));

    // Reductions (sums in f64 before one rounding).
    let sum: f64 = xs.iter().map(|&a| r(a)).sum();
    assert_close(&host(&x.try_sum(&[], false)?), &[sum], tol);
    assert_close(
        &host(&x.sum(&[1], false)),
        &[r(0.5) + r(-1.0) + r(2.0), r(0.25) + r(3.0) + r(-0.75)],
        tol,
    );
    assert_close(&host(&x.try_mean(&[0], true)?), &[0.375, 1.0, 0.625], tol);
    assert_eq!(host(&x.try_max(&[1], false)?), vec![r(2.0), r(3.0)]);
    assert_eq!(host(&x.min(&[], false)), vec![r(-1.0)]);
    assert_eq!(host(&x.try_argmax(&[1], false)?), vec![2.0, 1.0]);
    assert_eq!(host(&x.argmin(&[0], false)), vec![1.0, 0.0, 1.0]);
    let var0 = {
        let v: Vec<f64> = xs.iter().map(|&a| r(a)).collect();
        let mu = v.iter().sum::<f64>() / 6.0;
        v.iter().map(|a| (a - mu) * (a - mu)).sum::<f64>() / 5.0
    };
    assert_close(&host(&x.try_var(&[], 1, false)?), &[var0], 10.0 * tol);
    assert_close(&host(&x.std(&[], 1, false)), &[var0.sqrt()], 10.0 * tol);
    let lse = |a: f64, b: f64, c: f64| (a.exp() + b.exp() + c.exp()).ln();
    assert_close(
        &host(&x.try_logsumexp(&[1], false)?),
        &[lse(r(0.5), r(-1.0), r(2.0)), lse(r(0.25), r(3.0), r(-0.75))],
        10.0 * tol,
    );
    assert_close(
        &host(&x.try_cumsum(1)?),
        &[
            r(0.5),
            r(0.5) + r(-1.0),
            r(0.5) + r(-1.0) + r(2.0),
            r(0.25),
            r(0.25) + r(3.0),
            r(0.25) + r(3.0) + r(-0.75),
        ],
        tol,
    );
    assert_close(
        &host(&x.try_norm(2.0, &[], false)?),
        &[xs.iter().map(|&a| r(a) * r(a)).sum::<f64>().sqrt()],
        10.0 * tol,
    );

    // Matrix products.
    let p = x.try_matmul(&y.t())?; // (2, 3) @ (3, 2)
    let dot = |i: usize, j: usize| {
        (0..3)
            .map(|k| r(xs[i * 3 + k]) * r(ys[j * 3 + k]))
            .sum::<f64>()
    };
    assert_close(
        &host(&p),
        &[dot(0, 0), dot(0, 1), dot(1, 0), dot(1, 1)],
        10.0 * tol,
    );
    assert_close(&host(&x.matmul(&y.t())), &host(&p), 0.0);
    let v = x.narrow(0, 0, 1)?.try_flatten()?;
    let vv: f64 = (0..3).map(|k| r(xs[k]) * r(xs[k])).sum();
    assert_close(&host(&v.try_dot(&v)?), &[vv], 10.0 * tol);
    assert_eq!(v.outer(&v).dims(), &[3, 3]);

    // Indexing, sorting, combining, shape.
    let idx = Tensor::<i64, D>::from_vec_on(vec![2, 0], [2], dev)?;
    assert_eq!(
        host(&x.try_index_select(1, &idx)?),
        vec![r(2.0), r(0.5), r(-0.75), r(0.25)]
    );
    let (sorted, order) = x.try_sort(1, false)?;
    assert_eq!(
        host(&sorted),
        vec![r(-1.0), r(0.5), r(2.0), r(-0.75), r(0.25), r(3.0)]
    );
    assert_eq!(host(&order), vec![1.0, 0.0, 2.0, 2.0, 0.0, 1.0]);
    let (top, _) = x.topk(1, 1);
    assert_eq!(host(&top), vec![r(2.0), r(3.0)]);
    let both = Tensor::try_concat(&[&x, &y], 0)?;
    assert_eq!(both.dims(), &[4, 3]);
    assert_eq!(Tensor::stack(&[&x, &y], 0).dims(), &[2, 2, 3]);
    let w = Tensor::try_where(&gt, &x, &y)?;
    assert_eq!(host(&w), pair(|a, b| a.max(b)));
    assert_eq!(x.try_reshape([3, 2])?.dims(), &[3, 2]);
    assert_eq!(
        host(&x.t().reshape([6])),
        vec![r(0.5), r(0.25), r(-1.0), r(3.0), r(2.0), r(-0.75)]
    );
    assert_eq!(
        host(&x.try_cast::<i32>()?),
        vec![0.0, -1.0, 2.0, 0.0, 3.0, 0.0]
    );
    assert_eq!(x.try_tril(0)?.dims(), &[2, 3]);
    assert_eq!(x.pad(&[(1, 0), (0, 0)], T::ZERO).dims(), &[3, 3]);
    assert_eq!(x.try_item().is_err(), true);
    let mut f = Tensor::<T, D>::zeros_on([2], dev)?;
    f.fill_(T::ONE)?;
    assert_eq!(host(&f), vec![1.0, 1.0]);

    // Errors are the same `Err` on every device, and the plain form panics with its message.
    let bad = Tensor::<T, D>::zeros_on([4], dev)?;
    let e = x.try_add(&bad).unwrap_err();
    assert!(
        e.to_string().contains("(2, 3)") && e.to_string().contains("(4,)"),
        "{e}"
    );
    let caught = std::panic::catch_unwind(|| x.add(&bad)).unwrap_err();
    let msg = caught.downcast_ref::<String>().cloned().unwrap_or_default();
    assert_eq!(msg, e.to_string());
    assert!(x.try_matmul(&bad.try_reshape([2, 2])?).is_err());
    assert!(x.try_sum(&[2], false).is_err());

    // Linear algebra through the host on every device.
    let a =
        Tensor::<T, D>::from_vec_on([4.0, 1.0, 2.0, 3.0].map(T::from_f64).to_vec(), [2, 2], dev)?;
    let inv = a.try_inverse()?;
    assert_close(
        &host(&a.try_matmul(&inv)?),
        &[1.0, 0.0, 0.0, 1.0],
        20.0 * tol,
    );
    Ok(())
}

fn int_ops<D: Backend>(dev: &D) -> Result<()> {
    let a = Tensor::<i32, D>::from_vec_on(vec![7, -7, 9, 2], [2, 2], dev)?;
    let b = Tensor::<i32, D>::from_vec_on(vec![2, 2, -4, 3], [2, 2], dev)?;
    // NumPy's floor semantics; promotion to f32 for float-valued ops.
    assert_eq!(a.try_floor_divide(&b)?.try_to_vec()?, vec![3, -4, -3, 0]);
    assert_eq!(a.remainder(&b).to_vec(), vec![1, 1, -3, 2]);
    let s: Tensor<f32, D> = a.try_sqrt()?;
    assert!(s.try_to_vec()?[1].is_nan());
    let total: Tensor<i64, D> = a.try_sum(&[], false)?;
    assert_eq!(total.item(), 11);
    let zero = Tensor::<i32, D>::zeros_on([2, 2], dev)?;
    assert!(matches!(
        a.try_div(&zero),
        Err(Error::DivisionByZero { .. })
    ));
    assert!(a.try_pow(-1).is_err());
    assert_eq!(a.pow(2).to_vec(), vec![49, 49, 81, 4]);
    assert_eq!((&a * 2).to_vec(), vec![14, -14, 18, 4]);
    Ok(())
}

/// The documented edge rules (NumPy's floor division, NaN as the largest value in sorts, NaN
/// bounds in `clip`, 16-bit `logsumexp` rounded once) hold on every device.
fn edge_semantics<T: FloatElement, D: Backend>(dev: &D) -> Result<()> {
    let v = |xs: &[f64]| {
        Tensor::<T, D>::from_vec_on(
            xs.iter().map(|&x| T::from_f64(x)).collect(),
            [xs.len()],
            dev,
        )
    };
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    let q =
        host(&v(&[1.0, inf, -1.0, -7.0, 5.0])?.try_floor_divide(&v(&[0.1, 2.0, inf, 2.0, 0.0])?)?);
    if T::DTYPE != Dtype::Bfloat16 && T::DTYPE != Dtype::Float16 {
        assert_eq!(q[0], 9.0, "{}", T::DTYPE); // 1.0 = 9 * 0.1 + 0.0999..
    }
    assert!(
        q[1].is_nan() && q[2] == -1.0 && q[3] == -4.0 && q[4] == inf,
        "{q:?}"
    );
    let c = v(&[0.5, 2.0])?;
    assert!(
        host(&c.try_clip(T::from_f64(nan), T::ONE)?)
            .iter()
            .all(|x| x.is_nan())
    );
    // NaN is the largest value: first in topk and in a descending sort, last ascending.
    let x = v(&[1.0, nan, 3.0, 2.0])?;
    let (top, idx) = x.try_topk(2, 0)?;
    let top = host(&top);
    assert!(top[0].is_nan() && top[1] == 3.0, "{top:?}");
    assert_eq!(idx.try_to_vec()?, vec![1, 2]);
    assert_eq!(x.try_argsort(0, true)?.try_to_vec()?, vec![1, 2, 3, 0]);
    assert_eq!(x.try_argsort(0, false)?.try_to_vec()?, vec![0, 3, 2, 1]);
    // Eight -2.0s: -2 + ln 8, rounded once to T (f16/bf16 compute in f32).
    let l = v(&[-2.0; 8])?.try_logsumexp(&[0], false)?.try_item()?;
    let want = -2.0 + 8f64.ln();
    if T::DTYPE.size() == 2 {
        assert_eq!(l.to_f64(), T::from_f64(want).to_f64(), "{}", T::DTYPE);
    } else {
        assert_close(&[l.to_f64()], &[want], 1e-6);
    }
    // Display switches to scientific notation as PyTorch does, on every device.
    if T::DTYPE == Dtype::Float64 {
        let big = v(&[1.0, 100.0])?.try_exp2()?;
        assert!(
            big.try_display(4)?.starts_with("[2.0000e+00, 1.2677e+30]"),
            "{big}"
        );
    }
    Ok(())
}

/// PyTorch's rule for 0-d tensors: axes 0 and -1 name the one element, and ops along them
/// return 0-d tensors (NumPy agrees for the reductions it allows, `sum`, `max`, `argmax`).
fn zero_d_axes<T: NumElement, D: Backend>(dev: &D) -> Result<()> {
    let x = Tensor::<T, D>::from_vec_on(vec![T::from_f64(5.0)], [], dev)?;
    let i0 = Tensor::<i64, D>::from_vec_on(vec![0], [], dev)?;
    let is_0d = |v: Vec<f64>, t: &[usize], want: f64| {
        assert_eq!((t, v), (&[][..], vec![want]), "{}", T::DTYPE);
    };
    for axis in [0, -1] {
        for keepdim in [false, true] {
            let s = x.try_sum(&[axis], keepdim)?;
            is_0d(host(&s), s.dims(), 5.0);
            let m = x.try_max(&[axis], keepdim)?;
            is_0d(host(&m), m.dims(), 5.0);
            let a = x.try_argmax(&[axis], keepdim)?;
            is_0d(host(&a), a.dims(), 0.0);
            let (v, i) = x.try_median(axis, keepdim)?;
            is_0d(host(&v), v.dims(), 5.0);
            is_0d(host(&i), i.dims(), 0.0);
        }
        let c = x.try_cumsum(axis)?;
        is_0d(host(&c), c.dims(), 5.0);
        let (v, i) = x.try_sort(axis, true)?;
        is_0d(host(&v), v.dims(), 5.0);
        is_0d(host(&i), i.dims(), 0.0);
        let (v, _) = x.try_topk(1, axis)?;
        is_0d(host(&v), v.dims(), 5.0);
        let (v, i) = x.try_kthvalue(1, axis, true)?;
        is_0d(host(&v), v.dims(), 5.0);
        is_0d(host(&i), i.dims(), 0.0);
        let g = x.try_gather(axis, &i0)?;
        is_0d(host(&g), g.dims(), 5.0);
        let g = x.try_index_select(axis, &i0)?;
        is_0d(host(&g), g.dims(), 5.0);
        let (v, _) = x.try_cummax(axis)?;
        is_0d(host(&v), v.dims(), 5.0);
        for view in [
            x.flip(&[axis])?,
            x.transpose(axis, 0)?,
            x.squeeze_dims(&[axis])?,
        ] {
            is_0d(host(&view), view.dims(), 5.0);
        }
    }
    // A 1-d index of zeros gathers copies; anything else names the 0-d rule or the index.
    let two = Tensor::<i64, D>::from_vec_on(vec![0, 0], [2], dev)?;
    assert_eq!(host(&x.try_gather(0, &two)?), vec![5.0, 5.0]);
    let one = Tensor::<i64, D>::from_vec_on(vec![1], [1], dev)?;
    assert!(matches!(x.try_gather(0, &one), Err(Error::Index { .. })));
    assert!(matches!(
        x.try_index_select(0, &two),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(x.try_topk(2, 0).is_err());
    for bad in [
        x.try_sum(&[1], false).err(),
        x.try_sum(&[0, -1], false).err(),
    ] {
        let msg = bad.expect("an Err").to_string();
        assert!(msg.contains("reduce_sum") && msg.contains("0-d"), "{msg}");
    }
    let msg = x.try_cumsum(-2).unwrap_err().to_string();
    assert!(
        msg.contains("cumsum") && msg.contains("axis 0 or -1"),
        "{msg}"
    );
    Ok(())
}

/// [`zero_d_axes`]' float ops, and gradients through them.
fn zero_d_float_axes<T: FloatElement, D: Backend>(dev: &D) -> Result<()> {
    let x = Tensor::<T, D>::from_vec_on(vec![T::from_f64(0.5)], [], dev)?;
    let vals = |t: &Tensor<T, D>| (t.dims().to_vec(), host(t));
    assert_eq!(vals(&x.try_softmax(-1)?), (vec![], vec![1.0]));
    assert_eq!(vals(&x.try_log_softmax(0)?), (vec![], vec![0.0]));
    assert_eq!(vals(&x.try_logcumsumexp(0)?), (vec![], vec![0.5]));
    assert_eq!(vals(&x.try_quantile(0.3, 0, true)?), (vec![], vec![0.5]));
    assert_eq!(vals(&x.try_var(&[0], 0, false)?), (vec![], vec![0.0]));
    let p = x.try_deep_copy()?.with_requires_grad(true)?;
    // d/dp of sum(cumsum(p) · softmax(p)) = 1: softmax of one element is constant.
    let y = p.try_cumsum(0)?.try_mul(&p.try_softmax(0)?)?;
    y.try_sum(&[0], false)?.try_backward()?;
    let g = p.grad_tensor().expect("a gradient");
    assert_eq!(vals(&g), (vec![], vec![1.0]));
    Ok(())
}

fn suite<D: Backend>(dev: &D) {
    zero_d_axes::<f32, D>(dev).unwrap();
    zero_d_axes::<bf16, D>(dev).unwrap();
    zero_d_axes::<i32, D>(dev).unwrap();
    zero_d_axes::<u8, D>(dev).unwrap();
    zero_d_float_axes::<f32, D>(dev).unwrap();
    zero_d_float_axes::<f16, D>(dev).unwrap();
    edge_semantics::<f32, D>(dev).unwrap();
    edge_semantics::<f64, D>(dev).unwrap();
    edge_semantics::<f16, D>(dev).unwrap();
    edge_semantics::<bf16, D>(dev).unwrap();
    float_ops::<f32, D>(dev).unwrap();
    float_ops::<f64, D>(dev).unwrap();
    float_ops::<f16, D>(dev).unwrap();
    float_ops::<bf16, D>(dev).unwrap();
    int_ops(dev).unwrap();
}

#[test]
fn generic_ops_on_every_device() {
    suite(&Cpu);
    match Cuda::new(0) {
        Ok(gpu) => suite(&gpu),
        Err(e) => println!("generic suite on CUDA skipped: {e}"),
    }
}
