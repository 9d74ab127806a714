//! Gradients where finite differences cannot judge: at kinks, ties, zeros and NaN, each value
//! as PyTorch 2.15 gives it (`torch.autograd`, float64, the minimum-norm subgradient of its
//! 2026 clamp change), plus gradchecks of the cases that are smooth but took a special path
//! (views of broadcast views, `cumprod` through zeros).

use crate::autograd::{gradcheck, t};
use typed_tensor::nn::{self, Reduction};
use typed_tensor::prelude::*;

type T64 = Tensor<f64>;
const NAN: f64 = f64::NAN;

fn leaf(v: &[f64], dims: &[usize]) -> T64 {
    Tensor::from_vec(v.to_vec(), dims.to_vec())
        .unwrap()
        .with_requires_grad(true)
        .unwrap()
}

/// The gradients of `sum(f(xs))` with respect to each of `xs`.
#[track_caller]
fn grads(xs: &[&T64], f: impl Fn() -> Result<T64>) -> Vec<Vec<f64>> {
    for x in xs {
        x.zero_grad().unwrap();
    }
    f().unwrap().sum(&[], false).backward();
    xs.iter()
        .map(|x| x.grad_tensor().unwrap().to_vec())
        .collect()
}

/// Equal element by element (to 1e-12, relative above 1), NaN matching NaN.
#[track_caller]
fn same(name: &str, got: &[f64], want: &[f64]) {
    let ok = got.len() == want.len()
        && (got.iter().zip(want)).all(|(g, w)| {
            (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() < 1e-12 * w.abs().max(1.0)
        });
    assert!(ok, "{name}: got {got:?}, PyTorch gives {want:?}");
}

#[test]
fn subgradients_match_pytorch() {
    let z = leaf(&[0.0, -1.0, 2.0], &[3]);
    same("abs", &grads(&[&z], || z.try_abs())[0], &[0.0, -1.0, 1.0]);
    same("relu", &grads(&[&z], || z.try_relu())[0], &[0.0, 0.0, 1.0]);
    // An infinite or NaN gradient is masked where x <= 0, not multiplied by 0 (PyTorch's
    // threshold_backward gives [0, 0, 3]).
    z.zero_grad().unwrap();
    let g = T64::from_vec(vec![f64::INFINITY, NAN, 3.0], [3]).unwrap();
    z.try_relu().unwrap().try_backward_with(&g, false).unwrap();
    same(
        "relu, infinite g",
        &z.grad_tensor().unwrap().to_vec(),
        &[0.0, 0.0, 3.0],
    );
    same(
        "elu",
        &grads(&[&z], || z.try_elu(0.5))[0],
        &[0.5, 0.18393972058572117, 1.0],
    );
    same(
        "softplus",
        &grads(&[&z], || z.try_softplus())[0],
        &[0.5, 0.2689414213699951, 0.8807970779778824],
    );
    let target = T64::from_vec(vec![1.0, 0.0, 1.0], [3]).unwrap();
    let bce = || nn::binary_cross_entropy_with_logits(&z, &target, Reduction::Sum);
    same(
        "bce with logits",
        &grads(&[&z], bce)[0],
        &[-0.5, 0.2689414213699951, -0.11920292202211757],
    );

    // clamp: 0 on the bounds and for NaN (PyTorch 2.13+); clip is clamp.
    let c = leaf(&[-1.0, 1.0, 0.5, 2.0, -3.0, NAN], &[6]);
    same(
        "clip",
        &grads(&[&c], || c.try_clip(-1.0, 1.0))[0],
        &[0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
    );
    same(
        "maximum_scalar",
        &grads(&[&c], || c.try_maximum_scalar(-1.0))[0],
        &[0.0, 1.0, 1.0, 1.0, 0.0, 0.0],
    );

    // maximum/minimum: ties split, a NaN on either side passes g to both.
    let (a, b) = (
        leaf(&[1.0, 2.0, NAN, 5.0], &[4]),
        leaf(&[1.0, 3.0, 0.0, NAN], &[4]),
    );
    let g = grads(&[&a, &b], || a.try_maximum(&b));
    same("maximum a", &g[0], &[0.5, 0.0, 1.0, 1.0]);
    same("maximum b", &g[1], &[0.5, 1.0, 1.0, 1.0]);
    let g = grads(&[&a, &b], || a.try_minimum(&b));
    same("minimum a", &g[0], &[0.5, 1.0, 1.0, 1.0]);
    same("minimum b", &g[1], &[0.5, 0.0, 1.0, 1.0]);

    // max/min reductions: ties share evenly; a NaN result goes to the NaNs.
    let m = leaf(&[3.0, 1.0, 3.0, 2.0], &[4]);
    same(
        "max ties",
        &grads(&[&m], || m.try_max(&[], false))[0],
        &[0.5, 0.0, 0.5, 0.0],
    );
    let mn = leaf(&[1.0, NAN, 2.0, NAN], &[4]);
    same(
        "max NaN",
        &grads(&[&mn], || mn.try_max(&[], false))[0],
        &[0.0, 0.5, 0.0, 0.5],
    );
    same(
        "nanmax",
        &grads(&[&mn], || mn.try_nanmax(&[], false))[0],
        &[0.0, 0.0, 1.0, 0.0],
    );
    same(
        "nansum",
        &grads(&[&mn], || mn.try_nansum(&[], false))[0],
        &[1.0, 0.0, 1.0, 0.0],
    );
    same(
        "nanmean",
        &grads(&[&mn], || mn.try_nanmean(&[], false))[0],
        &[0.5, 0.0, 0.5, 0.0],
    );

    // Norms and std at 0 give 0, not 0 · inf.
    let n = leaf(&[0.0, 0.0, 3.0, 4.0], &[2, 2]);
    same(
        "norm 2",
        &grads(&[&n], || n.try_norm(2.0, &[1], false))[0],
        &[0.0, 0.0, 0.6, 0.8],
    );
    let want3 = [0.0, 0.0, 0.4448513517305356, 0.7908468475209521];
    same(
        "norm 3",
        &grads(&[&n], || n.try_norm(3.0, &[1], false))[0],
        &want3,
    );
    let want_half = [0.0, 0.0, 2.154700538379252, 1.8660254037844386];
    same(
        "norm 0.5",
        &grads(&[&n], || n.try_norm(0.5, &[1], false))[0],
        &want_half,
    );
    let k = leaf(&[2.0, 2.0, 2.0], &[3]);
    same(
        "std of a constant",
        &grads(&[&k], || k.try_std(&[], 1, false))[0],
        &[0.0; 3],
    );
    let one = leaf(&[2.0], &[1]);
    same(
        "std of one element",
        &grads(&[&one], || one.try_std(&[], 1, false))[0],
        &[NAN],
    );

    // pow: d/da is 0 where b = 0; d/db is 0 where a = 0 and b >= 0.
    let pa = leaf(&[0.0, 0.0, 2.0, -2.0, 0.0, 0.0], &[6]);
    let pb = leaf(&[0.0, 2.0, 0.5, 2.0, -1.0, 0.5], &[6]);
    let g = grads(&[&pa, &pb], || pa.try_pow(&pb));
    let inf = f64::INFINITY;
    same(
        "pow base",
        &g[0],
        &[0.0, 0.0, 0.3535533905932738, -4.0, -inf, inf],
    );
    same(
        "pow exponent",
        &g[1],
        &[0.0, 0.0, 0.9802581434685472, NAN, -inf, 0.0],
    );

    // max_pool2d: the first maximum of a window takes all of g.
    let p = leaf(&[1.0, 1.0, 0.0, 2.0, 1.0, 0.0, 2.0, 2.0], &[1, 1, 2, 4]);
    let want = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0];
    same(
        "max_pool2d",
        &grads(&[&p], || nn::max_pool2d(&p, (2, 2), (2, 2), (0, 0)))[0],
        &want,
    );
    let padded = || nn::max_pool2d(&p, (3, 3), (2, 2), (1, 1));
    same("max_pool2d padded", &grads(&[&p], padded)[0], &want);
}

#[test]
fn views_of_broadcast_views() {
    let row = t(&[1, 4], 1);
    gradcheck("expand + transpose", &[row.clone()], |x| {
        x[0].expand([3, 4])?
            .transpose(0, 1)?
            .try_mul(&t(&[4, 3], 2))
    });
    gradcheck("expand + narrow + flip", &[row.clone()], |x| {
        x[0].expand([3, 4])?
            .narrow(0, 1, 2)?
            .flip(&[0, 1])?
            .try_mul(&t(&[2, 4], 3))
    });
    gradcheck("expand + strided slice + diagonal", &[t(&[2, 1], 4)], |x| {
        let v = x[0].expand([2, 5])?.slice_dim(1, 0, 5, 2)?;
        v.diagonal(1)?.try_mul(&t(&[1], 5))
    });
    gradcheck("expand of expand + reshape view", &[t(&[3], 6)], |x| {
        let e = x[0]
            .unsqueeze(0)?
            .expand([2, 3])?
            .unsqueeze(0)?
            .expand([4, 2, 3])?;
        e.permute(&[1, 0, 2])?
            .try_reshape([2, 12])?
            .try_mul(&t(&[2, 12], 7))
    });
    // A broadcast *leaf* has one gradient per logical element: it is copied when it starts
    // to require grad (as PyTorch, whose leaf keeps its own elements), so views of it have
    // exact gradients (more in `autograd::views_of_a_broadcast_leaf`).
    let leaf = row
        .expand([3, 4])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    leaf.t().narrow(0, 1, 2).unwrap().sum(&[], false).backward();
    let g = leaf.grad_tensor().unwrap().to_vec();
    assert_eq!(g, [0., 1., 1., 0.].repeat(3));
}

#[test]
fn cumprod_through_zeros() {
    // cumprod is a polynomial, so central differences are exact through its zeros.
    let v = |x: &[f64], d: &[usize]| T64::from_vec(x.to_vec(), d.to_vec()).unwrap();
    gradcheck("one zero", &[v(&[2.0, 0.0, 3.0, 4.0], &[4])], |x| {
        x[0].try_cumprod(0)?.try_mul(&t(&[4], 8))
    });
    gradcheck("leading zeros", &[v(&[0.0, 0.0, 2.0], &[3])], |x| {
        x[0].try_cumprod(0)?.try_mul(&t(&[3], 9))
    });
    let m = v(
        &[1.0, 2.0, 0.0, 3.0, 0.0, 0.0, 2.0, 5.0, 1.0, 1.0, 1.0, 1.0],
        &[3, 4],
    );
    for axis in [0, 1] {
        gradcheck("2-d", &[m.clone()], |x| {
            x[0].try_cumprod(axis)?.try_mul(&t(&[3, 4], 10))
        });
    }
    // Against PyTorch's values for the first case.
    let x = leaf(&[2.0, 0.0, 3.0, 4.0], &[4]);
    same(
        "cumprod",
        &grads(&[&x], || x.try_cumprod(0))[0],
        &[1.0, 32.0, 0.0, 0.0],
    );
}

/// NaN, infinities and underflow on `dev`: each value as PyTorch 2.15 gives it, except where a
/// comment gives the exact value that PyTorch's formula loses.
fn edges_on<D: Backend>(dev: &D) {
    use crate::common::host_f64s;
    let leaf = |v: &[f64]| {
        Tensor::<f64, D>::from_vec_on(v.to_vec(), [v.len()], dev)
            .unwrap()
            .with_requires_grad(true)
            .unwrap()
    };
    let back = |y: Tensor<f64, D>| y.sum(&[], false).backward();
    let grad = |x: &Tensor<f64, D>| host_f64s(&x.grad_tensor().unwrap());
    let ln2 = std::f64::consts::LN_2;
    // relu passes g at NaN (threshold_backward reads the NaN output); abs' is sgn, 0 at NaN.
    let x = leaf(&[NAN, -1.0, 0.0, 2.0]);
    back(x.relu());
    same("relu", &grad(&x), &[1.0, 0.0, 0.0, 1.0]);
    let x = leaf(&[NAN, 0.0, -2.0]);
    back(x.abs());
    same("abs", &grad(&x), &[0.0, 0.0, -1.0]);
    // hardsigmoid keeps NaN; hardswish's gradient is 1 and 0 at the infinities, not NaN.
    let x = leaf(&[NAN, 3.0, -3.0, 1.5]);
    same(
        "hardsigmoid",
        &host_f64s(&x.hardsigmoid()),
        &[NAN, 1.0, 0.0, 0.75],
    );
    let x = leaf(&[f64::INFINITY, f64::NEG_INFINITY]);
    back(x.hardswish());
    same("hardswish", &grad(&x), &[1.0, 0.0]);
    // sinc' near 0 without 0/0 (exact: -π²x/3 + O(x³); PyTorch's 1e-5 value is 2.6e-7 off).
    let x = leaf(&[1e-310, 0.0, 1e-5]);
    back(x.sinc());
    let pi2 = std::f64::consts::PI.powi(2);
    same("sinc", &grad(&x), &[0.0, 0.0, -pi2 * 1e-5 / 3.0]);
    // logit' = 1 / (p (1 - p)): infinite at the ends, NaN outside [0, 1].
    let x = leaf(&[-1.0, 0.0, 1.0, 0.5, 2.0, -0.0]);
    back(x.logit(None));
    let inf = f64::INFINITY;
    same("logit", &grad(&x), &[NAN, inf, inf, 4.0, NAN, -inf]);
    // xlogy: log(y) for x (0 where x = 0 and y <= 0), x / y for y; at subnormal y the ratio
    // is 1, not x · (1/y) = inf.
    let (x, y) = (
        leaf(&[0.0, 0.0, 0.0, 0.0, 0.0, 1e-310]),
        leaf(&[2.0, 0.5, -1.0, 0.0, inf, 1e-310]),
    );
    back(x.xlogy(&y));
    same(
        "xlogy x",
        &grad(&x),
        &[ln2, -ln2, 0.0, 0.0, inf, 1e-310f64.ln()],
    );
    same("xlogy y", &grad(&y), &[0.0, 0.0, 0.0, NAN, 0.0, 1.0]);
    let (x, y) = (leaf(&[0.0, 0.0]), leaf(&[-1.0, 1.0]));
    back(x.xlog1py(&y));
    same("xlog1py x", &grad(&x), &[0.0, ln2]);
    same("xlog1py y", &grad(&y), &[NAN, 0.0]);
    // atan2 at the origin: 0, not 0/0.
    let (a, b) = (leaf(&[0.0, 1.0]), leaf(&[0.0, 0.0]));
    back(a.atan2(&b));
    same("atan2 a", &grad(&a), &[0.0, 0.0]);
    same("atan2 b", &grad(&b), &[0.0, -1.0]);
    // fmax/fmin of two NaNs: the first operand gets the gradient.
    for f in [Tensor::fmax, Tensor::fmin] {
        let (a, b) = (leaf(&[NAN]), leaf(&[NAN]));
        back(f(&a, &b));
        same("fmax/fmin", &[grad(&a)[0], grad(&b)[0]], &[1.0, 0.0]);
    }
    // d(s/x)/dx = -s/x² without overflowing 1/x² (exact: -1e40; PyTorch gives -inf).
    let x = leaf(&[1e-170]);
    back(x.rdiv_scalar(1e-300));
    same("s / x", &grad(&x), &[-1e40]);
    // log_softmax and cross_entropy keep their digits for huge logits: -ln 2, not 0.
    let x = leaf(&[1e200, 1e200]);
    let y = x.log_softmax(0);
    same("log_softmax", &host_f64s(&y), &[-ln2, -ln2]);
    back(y);
    same("log_softmax grad", &grad(&x), &[0.0, 0.0]);
    let z = leaf(&[1e200, 1e200, 1.0, 3.0]);
    let target = Tensor::<i64, D>::from_vec_on(vec![0, 1], [2], dev).unwrap();
    let loss = nn::cross_entropy(&z.reshape([2, 2]), &target, Reduction::None, 0.0).unwrap();
    let e2 = (-2f64).exp();
    same("cross_entropy", &host_f64s(&loss), &[ln2, e2.ln_1p()]);
    back(loss);
    let s = e2 / (1.0 + e2); // softmax of the smaller logit of the second row
    same("cross_entropy grad", &grad(&z), &[-0.5, 0.5, s, -s]);
    // A confident prediction: the loss log1p(2e^-10) to about 1e-12 (m - x[t] + log Σ; lse - x[t]
    // was 8e-11 off, lse rounded at 50's ulp).
    let z = leaf(&[50.0, 40.0, 40.0]);
    let t0 = Tensor::<i64, D>::from_vec_on(vec![0], [1], dev).unwrap();
    let loss = nn::cross_entropy(&z.reshape([1, 3]), &t0, Reduction::Sum, 0.0).unwrap();
    let e10 = (-10f64).exp();
    let (got, want) = (host_f64s(&loss)[0], (2.0 * e10).ln_1p());
    assert!(
        (got / want - 1.0).abs() < 1e-11,
        "confident loss {got}, exactly {want}"
    );
    back(loss);
    let p = e10 / (1.0 + 2.0 * e10);
    same("cross_entropy confident grad", &grad(&z), &[-2.0 * p, p, p]);
    // binary_cross_entropy: PyTorch's (p - y) / max(p (1 - p), 1e-12 as f32) and -logit(p).
    let (p, y) = (leaf(&[0.0, 1e-30, 0.5, 1.0]), leaf(&[0.3; 4]));
    back(nn::binary_cross_entropy(&p, &y, Reduction::None).unwrap());
    let bounded = [
        -300000001198.74084,
        -300000001198.74084,
        0.8,
        700000002797.0619,
    ];
    same("bce p", &grad(&p), &bounded);
    same("bce y", &grad(&y), &[inf, 69.07755278982137, 0.0, -inf]);
    // huber and smooth_l1: slope ±1 at ±inf, not inf · 0.
    let x = leaf(&[inf, -inf, 0.5]);
    let zero = Tensor::<f64, D>::zeros_on([3], dev).unwrap();
    back(nn::huber_loss(&x, &zero, Reduction::Sum, 1.0).unwrap());
    back(nn::smooth_l1_loss(&x, &zero, Reduction::Sum, 1.0).unwrap());
    same("huber + smooth_l1", &grad(&x), &[2.0, -2.0, 1.0]);
    // At NaN both give NaN (PyTorch 2.15), and slope ±1 where |d| = threshold.
    let x = leaf(&[f64::NAN, 1.0, -1.0, 0.3]);
    let zero = Tensor::<f64, D>::zeros_on([4], dev).unwrap();
    back(nn::huber_loss(&x, &zero, Reduction::Sum, 1.0).unwrap());
    same("huber at NaN", &grad(&x), &[f64::NAN, 1.0, -1.0, 0.3]);
    let x = leaf(&[f64::NAN, 1.0, -1.0, 0.3]);
    back(nn::smooth_l1_loss(&x, &zero, Reduction::Sum, 1.0).unwrap());
    same("smooth_l1 at NaN", &grad(&x), &[f64::NAN, 1.0, -1.0, 0.3]);
    // kl_div: the target's gradient is NaN at t = 0 (xlogy's t / t), as PyTorch's.
    let (i, t) = (leaf(&[-1.0, -0.5, -2.0]), leaf(&[0.0, 0.5, 1.0]));
    back(nn::kl_div(&i, &t, Reduction::Sum, false).unwrap());
    same("kl_div input", &grad(&i), &[0.0, -0.5, -1.0]);
    same(
        "kl_div target",
        &grad(&t),
        &[f64::NAN, 0.8068528194400547, 3.0],
    );
}

#[test]
fn nan_infinity_and_underflow_on_every_device() {
    crate::on_every_device!("autograd_kinks edges", |dev| { edges_on(&dev) });
}
