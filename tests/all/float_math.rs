//! `atan2`, `hypot`, `copysign` and `fmod` against NumPy 2.4 (values quoted from
//! `np.arctan2`/`np.hypot`/`np.copysign`/`np.fmod` in float64), on every float dtype and
//! device, with IEEE special values, broadcasting, integer operands and gradients.

use crate::common::{assert_close, tol};
use typed_tensor::prelude::*;

const A: [f64; 12] = [
    1.5,
    -2.0,
    0.0,
    -0.0,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    7.0,
    -7.0,
    3.0,
    1e300,
    -1e-310,
];
const B: [f64; 12] = [
    2.0,
    0.5,
    -1.0,
    -0.0,
    2.0,
    f64::INFINITY,
    1.0,
    -3.0,
    3.0,
    0.0,
    1e300,
    f64::INFINITY,
];
use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};
const ATAN2: [f64; 12] = [
    0.6435011087932844,
    -1.3258176636680326,
    PI,
    -PI,
    FRAC_PI_2,
    -FRAC_PI_4,
    f64::NAN,
    1.97568811307998,
    -1.1659045405098132,
    FRAC_PI_2,
    FRAC_PI_4,
    -0.0,
];
const HYPOT: [f64; 12] = [
    2.5,
    2.0615528128088303,
    1.0,
    0.0,
    f64::INFINITY,
    f64::INFINITY,
    f64::NAN,
    7.615773105863909,
    7.615773105863909,
    3.0,
    1.4142135623730952e300,
    f64::INFINITY,
];
const COPYSIGN: [f64; 12] = [
    1.5,
    2.0,
    -0.0,
    -0.0,
    f64::INFINITY,
    f64::INFINITY,
    f64::NAN,
    -7.0,
    7.0,
    3.0,
    1e300,
    1e-310,
];
const FMOD: [f64; 12] = [
    1.5,
    -0.0,
    0.0,
    f64::NAN,
    f64::NAN,
    f64::NAN,
    f64::NAN,
    1.0,
    -1.0,
    f64::NAN,
    0.0,
    -1e-310,
];

fn host<T: Element, D: Backend>(t: &Tensor<T, D>) -> Vec<f64> {
    t.try_to_vec().unwrap().iter().map(|x| x.to_f64()).collect()
}

/// `want` as `T` rounds it (1e300 overflows f32, -1e-310 flushes in the narrow types), with
/// the sign of zero results compared too.
fn check<T: FloatElement>(name: &str, got: &[f64], want: &[f64]) {
    let want: Vec<f64> = want.iter().map(|&w| T::from_f64(w).to_f64()).collect();
    assert_close(got, &want, 2.0 * tol(T::DTYPE));
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        if *w == 0.0 {
            assert_eq!(
                g.is_sign_negative(),
                w.is_sign_negative(),
                "{name} {i}: {g}"
            );
        }
    }
}

fn values<T: FloatElement, D: Device>(dev: &D) {
    let mk = |v: &[f64; 12]| {
        Tensor::<T, D>::from_vec_on(v.iter().map(|&x| T::from_f64(x)).collect(), [12], dev).unwrap()
    };
    let (a, b) = (mk(&A), mk(&B));
    // Inputs the narrow types cannot hold (1e300 is inf in f32) change the reference: only
    // the rows whose inputs survive the rounding are compared with NumPy's f64 result.
    let exact = |i: usize| {
        [A[i], B[i]]
            .iter()
            .all(|&x| !x.is_finite() || T::from_f64(x).to_f64() == x)
    };
    let pick = |v: Vec<f64>| -> Vec<f64> { (0..12).filter(|&i| exact(i)).map(|i| v[i]).collect() };
    let want = |w: &[f64; 12]| pick(w.to_vec());
    check::<T>("atan2", &pick(host(&a.atan2(&b))), &want(&ATAN2));
    check::<T>("hypot", &pick(host(&a.hypot(&b))), &want(&HYPOT));
    check::<T>("copysign", &pick(host(&a.copysign(&b))), &want(&COPYSIGN));
    check::<T>("fmod", &pick(host(&a.fmod(&b))), &want(&FMOD));
    // Broadcasting a column against a row, and the scalar forms of fmod.
    let col = Tensor::<T, D>::from_vec_on(vec![T::from_f64(1.0), T::from_f64(-1.0)], [2, 1], dev)
        .unwrap();
    let row =
        Tensor::<T, D>::from_vec_on(vec![T::from_f64(1.0), T::from_f64(-1.0)], [2], dev).unwrap();
    let q = PI / 4.0;
    check::<T>(
        "atan2 broadcast",
        &host(&col.atan2(&row)),
        &[q, 3.0 * q, -q, -3.0 * q],
    );
    let x = mk(&[
        5.5, -5.5, 0.5, -0.5, 7.0, -7.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0,
    ]);
    let s = T::from_f64(2.0);
    check::<T>(
        "fmod_scalar",
        &host(&x.fmod_scalar(s))[..6],
        &[1.5, -1.5, 0.5, -0.5, 1.0, -1.0],
    );
    check::<T>(
        "rfmod_scalar",
        &host(&x.rfmod_scalar(s))[..4],
        &[2.0, 2.0, 0.0, 0.0],
    );
}

fn integers<D: Device>(dev: &D) {
    let a = Tensor::<i32, D>::from_vec_on(vec![-7, 7, -7, 7, i32::MIN], [5], dev).unwrap();
    let b = Tensor::<i32, D>::from_vec_on(vec![3, -3, -3, 3, -1], [5], dev).unwrap();
    assert_eq!(a.fmod(&b).try_to_vec().unwrap(), [-1, 1, -1, 1, 0]);
    let zero = Tensor::<i32, D>::from_vec_on(vec![0], [1], dev).unwrap();
    assert!(matches!(
        a.try_fmod(&zero),
        Err(Error::DivisionByZero { op: "fmod", .. })
    ));
    // Integers take their float type, as sin does: i32 -> f32, i64 -> f64.
    let h: Tensor<f32, D> = a.hypot(&b);
    assert_eq!(host(&h)[..2], [58f64.sqrt() as f32 as f64; 2]);
    let y = Tensor::<i64, D>::from_vec_on(vec![1, -1], [2], dev).unwrap();
    let t: Tensor<f64, D> = y.atan2(&y.neg());
    assert_close(&host(&t), &[3.0 * PI / 4.0, -PI / 4.0], 1e-15);
}

#[test]
fn atan2_hypot_copysign_fmod_match_numpy() {
    on_every_device!("float_math", |dev| {
        for_types!(values(&dev): f32, f64, f16, bf16; _);
        integers(&dev);
    });
}

#[test]
fn their_gradients_and_dyn_forms() {
    let t = |v: Vec<f64>| Tensor::<f64>::from_vec(v, [2, 3]).unwrap();
    let a = t(vec![0.7, -1.3, 2.2, -0.4, 1.9, -2.6]);
    let b = t(vec![1.1, 0.6, -0.9, -1.7, 0.3, 0.45]);
    let row = Tensor::<f64>::from_vec(vec![0.8, -1.2, 2.5], [3]).unwrap();
    let check = |name: &str, f: fn(&[Tensor<f64>]) -> Result<Tensor<f64>>, x: &[Tensor<f64>]| {
        typed_tensor::autograd::gradcheck(f, x, 1e-6, 1e-6)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    check("atan2", |v| v[0].try_atan2(&v[1]), &[a.clone(), b.clone()]);
    check(
        "atan2 broadcast",
        |v| v[0].try_atan2(&v[1]),
        &[a.clone(), row.clone()],
    );
    check(
        "hypot",
        |v| v[0].try_hypot(&v[1]),
        &[a.clone(), row.clone()],
    );
    check(
        "copysign",
        |v| v[0].try_copysign(&v[1]),
        &[a.clone(), b.clone()],
    );
    check("fmod", |v| v[0].try_fmod(&v[1]), &[a.clone(), b.clone()]);
    check("fmod_scalar", |v| v[0].try_fmod_scalar(0.75), &[a.clone()]);
    check("rfmod_scalar", |v| v[0].try_rfmod_scalar(2.5), &[b.clone()]);
    // DynTensor: both operands of one dtype; integers give their float dtype.
    let cpu = DeviceIndex::cpu();
    let i = DynTensor::from_vec(vec![3i32, 5], [2], cpu).unwrap();
    let j = DynTensor::from_vec(vec![4i32, 12], [2], cpu).unwrap();
    let h = i.hypot(&j).unwrap();
    assert_eq!(
        (h.dtype(), h.to_vec::<f32>().unwrap()),
        (Dtype::Float32, vec![5.0, 13.0])
    );
    assert_eq!(i.fmod(&j).unwrap().to_vec::<i32>().unwrap(), [3, 5]);
    assert!(i.atan2(&h).is_err()); // mixed dtypes
    let flags = DynTensor::from_vec(vec![true], [1], cpu).unwrap();
    assert!(
        flags
            .copysign(&flags)
            .unwrap_err()
            .to_string()
            .contains("copysign")
    );
}

/// `nextafter` in each float type's own format against PyTorch 2.15, and `spacing` against
/// NumPy 2.4 (its f64 rule), on every device; integers promote; no gradient.
#[test]
fn nextafter_and_spacing() {
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    let a = [1.0, 1.0, 0.0, 0.0, -0.0, -1.0, inf, 1.0, nan, 2.0, -2.0];
    let b = [2.0, 0.0, 1.0, -1.0, 0.0, -2.0, 0.0, inf, 1.0, 2.0, 0.0];
    on_every_device!("nextafter", |dev| {
        fn run<T: FloatElement, D: Backend>(a: &[f64], b: &[f64], dev: &D) -> Vec<f64> {
            let t = |v: &[f64]| {
                let v = v.iter().map(|&x| T::from_f64(x)).collect();
                Tensor::<T, D>::from_vec_on(v, [a.len()], dev).unwrap()
            };
            let out = t(a).try_nextafter(&t(b)).unwrap().try_to_vec().unwrap();
            out.into_iter().map(|v| v.to_f64()).collect()
        }
        let tail = |last: f64| [nan, 2.0, last];
        let want64 = [
            1.0000000000000002,
            0.9999999999999999,
            5e-324,
            -5e-324,
            0.0,
            -1.0000000000000002,
            f64::MAX,
            1.0000000000000002,
        ];
        let got = run::<f64, _>(&a, &b, &dev);
        assert_close(
            &got,
            &[&want64[..], &tail(-1.9999999999999998)].concat(),
            0.0,
        );
        assert!(got[4] == 0.0 && got[4].is_sign_positive()); // equal: `b`, +0
        let want32 = [
            1.0000001192092896,
            0.9999999403953552,
            1.401298464324817e-45,
            -1.401298464324817e-45,
            0.0,
            -1.0000001192092896,
            3.4028234663852886e+38,
            1.0000001192092896,
        ];
        assert_close(
            &run::<f32, _>(&a, &b, &dev),
            &[&want32[..], &tail(-1.9999998807907104)].concat(),
            0.0,
        );
        let mut a16 = a;
        a16[7] = 65504.0; // f16's largest: the next is inf
        let want16 = [
            1.0009765625,
            0.99951171875,
            5.960464477539063e-08,
            -5.960464477539063e-08,
            0.0,
            -1.0009765625,
            65504.0,
            inf,
        ];
        assert_close(
            &run::<f16, _>(&a16, &b, &dev),
            &[&want16[..], &tail(-1.9990234375)].concat(),
            0.0,
        );
        let wantb = [
            1.0078125,
            0.99609375,
            9.183549615799121e-41,
            -9.183549615799121e-41,
            0.0,
            -1.0078125,
            3.3895313892515355e+38,
            1.0078125,
        ];
        assert_close(
            &run::<bf16, _>(&a, &b, &dev),
            &[&wantb[..], &tail(-1.9921875)].concat(),
            0.0,
        );
        // spacing: NumPy's f64 values; f32's largest finite spacing.
        let x = Tensor::<f64, _>::from_vec_on(
            vec![1.0, -1.0, 0.0, -0.0, inf, nan, f64::MAX],
            [7],
            &dev,
        )
        .unwrap();
        let want = [
            2.220446049250313e-16,
            -2.220446049250313e-16,
            5e-324,
            5e-324,
            nan,
            nan,
            inf,
        ];
        assert_close(&x.try_spacing().unwrap().try_to_vec().unwrap(), &want, 0.0);
        let x = Tensor::<f32, _>::from_vec_on(vec![1.0, 3e38], [2], &dev).unwrap();
        assert_eq!(
            x.try_spacing().unwrap().try_to_vec().unwrap(),
            [1.1920929e-7, 2.028241e31]
        );
        let ints = Tensor::<i32, _>::from_vec_on(vec![1, -3], [2], &dev).unwrap();
        let up = ints
            .try_nextafter(&ints.try_mul_scalar(2).unwrap())
            .unwrap();
        assert_eq!(up.try_to_vec().unwrap(), [1.0000001f32, -3.0000002]);
    });
    let d = DynTensor::from(tensor![1.0f32, 0.0]);
    let up = d
        .nextafter(&DynTensor::from(tensor![2.0f32, -1.0]))
        .unwrap();
    assert_eq!(
        up.downcast::<f32, Cpu>().unwrap().to_vec(),
        [1.0000001, -1e-45]
    );
    let s = DynTensor::from(tensor![1i64]).spacing().unwrap();
    assert_eq!(
        s.downcast::<f64, Cpu>().unwrap().to_vec(),
        [2.220446049250313e-16]
    );
    let x = Tensor::<f64>::from_vec(vec![1.0], [1])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    let e = x
        .nextafter(&x.detach())
        .sum(&[], false)
        .try_backward()
        .unwrap_err()
        .to_string();
    assert!(e.contains("nextafter"), "{e}");
}

/// `sin` and `cos` against f64 (correctly reduced) on every float dtype and device, across the
/// CUDA kernels' two paths, mixed within 16-byte packs and in the unaligned tail: |x| < 105615
/// (libdevice's Cody–Waite reduction, branch-free) and the rest (huge, inf, NaN), which take
/// `sinf`/`cosf`'s Payne–Hanek reduction; `sin(-0)` keeps its sign (IEEE 754).
#[test]
fn sin_cos_both_reductions() {
    fn run<T: FloatElement, D: Device>(dev: &D) {
        let (inf, nan) = (f64::INFINITY, f64::NAN);
        let mut v = vec![
            0.0, -0.0, 0.5, -1.0, FRAC_PI_2, PI, 100.0, -1000.25, 105600.0, 105615.0, -105616.0,
            1.0e6, 3.0e7, -1.0e30, 3.0e38, inf, -inf, nan, 1.0e-40, -2.5,
        ];
        v.extend((0..45).map(|k| (k as f64 - 22.0) * 7.37));
        let x = Tensor::<T, D>::from_vec_on(v.iter().map(|&a| T::from_f64(a)).collect(), [65], dev)
            .unwrap();
        let xs = host(&x);
        let rel = tol(T::DTYPE).max(4e-7);
        for (name, got, f) in [
            ("sin", x.sin(), f64::sin as fn(f64) -> f64),
            ("cos", x.cos(), f64::cos),
        ] {
            let want: Vec<f64> = xs.iter().map(|&a| T::from_f64(f(a)).to_f64()).collect();
            let got = host(&got);
            assert_close(&got, &want, rel);
            if name == "sin" {
                assert!(
                    got[1] == 0.0 && got[1].is_sign_negative(),
                    "sin(-0) is -0 in {:?}: {}",
                    T::DTYPE,
                    got[1]
                );
            }
            // The same values through a strided view: element by element on CUDA.
            let strided = x.try_reshape([5, 13]).unwrap().t();
            let g = host(
                &(if name == "sin" {
                    strided.sin()
                } else {
                    strided.cos()
                }),
            );
            let w: Vec<f64> = host(&strided)
                .iter()
                .map(|&a| T::from_f64(f(a)).to_f64())
                .collect();
            assert_close(&g, &w, rel);
        }
    }
    on_every_device!("sin_cos", |dev| {
        for_types!(run(&dev): f32, f64, f16, bf16; _);
    });
}

/// `pow` with one float exponent against `f64::powf` rounded to the dtype: within 1 ulp on the
/// CPU (f32, f16 and bf16 take a vectorised kernel in f64 lanes, f64 libm's `pow`), 4 on CUDA
/// (`powf`'s documented bound). Negative bases under odd, even and fractional exponents
/// (IEEE 754: sign kept, dropped, NaN), 2^-15 to 2^15, zeros, infinities, NaN, the largest
/// and subnormal values; contiguous, transposed, in place, and small (one element).
#[test]
fn pow_float_exponents_within_an_ulp() {
    fn run<T: FloatElement, D: Backend>(dev: &D) {
        let fi = typed_tensor::finfo(T::DTYPE).unwrap();
        let mut v: Vec<f64> = (0..3000)
            .map(|i| {
                let a = (1.0 + (i % 97) as f64 / 97.0) * 2f64.powi(i / 97 - 15);
                if i % 2 == 0 { a } else { -a }
            })
            .collect();
        let (inf, nan) = (f64::INFINITY, f64::NAN);
        v.extend([
            0.0,
            -0.0,
            1.0,
            -1.0,
            inf,
            -inf,
            nan,
            fi.max,
            fi.tiny(),
            -fi.tiny() / 4.0,
        ]);
        let x =
            Tensor::<T, D>::from_vec_on(v.iter().map(|&a| T::from_f64(a)).collect(), [70, 43], dev)
                .unwrap();
        let ulps = if D::KIND == DeviceKind::Cpu { 1.0 } else { 4.0 };
        for y in [2.5, -1.7, 1.0 / 3.0, 3.0, -3.0, 4.0, 10.3, -0.25, 0.0] {
            // The exponent as the tensor's dtype holds it.
            let yt = T::from_f64(y).to_f64();
            let mut inplace = x.t().contiguous();
            inplace.pow_(y).unwrap();
            let one = x.narrow(1, 5, 1).unwrap().narrow(0, 3, 1).unwrap();
            for (view, got) in [
                (x.clone(), x.pow(y)),
                (x.t(), x.t().pow(y)),
                (x.t(), inplace),
                (one.clone(), one.pow(y)),
            ] {
                for (a, g) in host(&view).into_iter().zip(host(&got)) {
                    let w = T::from_f64(a.powf(yt)).to_f64();
                    let ok = if w.is_nan() {
                        g.is_nan()
                    } else if w == 0.0 || w.is_infinite() {
                        g == w && g.is_sign_negative() == w.is_sign_negative()
                    } else {
                        (g - w).abs() <= ulps * (fi.eps * w.abs()).max(fi.tiny() * fi.eps)
                    };
                    assert!(
                        ok,
                        "{:?} on {:?}: {a:e}^{yt} = {g:e}, want {w:e}",
                        T::DTYPE,
                        D::KIND
                    );
                }
            }
        }
    }
    on_every_device!("pow_float_exponents", |dev| {
        for_types!(run(&dev): f32, f64, f16, bf16; _);
    });
}
