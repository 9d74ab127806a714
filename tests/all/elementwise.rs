//! The element-wise issue: unary ops with promotion, scalar and tensor ops with broadcasting,
//! in-place and `_into` forms, comparisons, casts, closures. Values are checked against f64.

use crate::common::*;
use typed_tensor::prelude::*;

const XS: [f64; 6] = [0.1, 0.5, 0.9, -0.3, 0.25, -0.75];

type F64Fn = fn(f64) -> f64;

fn float_unary_table<T: Element>()
-> Vec<(&'static str, fn(&Tensor<T>) -> Tensor<FloatOf<T>>, F64Fn)> {
    vec![
        ("sin", Tensor::<_, Cpu>::sin, f64::sin),
        ("cos", Tensor::<_, Cpu>::cos, f64::cos),
        ("tan", Tensor::<_, Cpu>::tan, f64::tan),
        ("asin", Tensor::<_, Cpu>::asin, f64::asin),
        ("acos", Tensor::<_, Cpu>::acos, f64::acos),
        ("atan", Tensor::<_, Cpu>::atan, f64::atan),
        ("sinh", Tensor::<_, Cpu>::sinh, f64::sinh),
        ("cosh", Tensor::<_, Cpu>::cosh, f64::cosh),
        ("tanh", Tensor::<_, Cpu>::tanh, f64::tanh),
        ("asinh", Tensor::<_, Cpu>::asinh, f64::asinh),
        ("acosh", Tensor::<_, Cpu>::acosh, f64::acosh),
        ("atanh", Tensor::<_, Cpu>::atanh, f64::atanh),
        ("exp", Tensor::<_, Cpu>::exp, f64::exp),
        ("exp2", Tensor::<_, Cpu>::exp2, f64::exp2),
        ("expm1", Tensor::<_, Cpu>::expm1, f64::exp_m1),
        ("log", Tensor::<_, Cpu>::log, f64::ln),
        ("log2", Tensor::<_, Cpu>::log2, f64::log2),
        ("log10", Tensor::<_, Cpu>::log10, f64::log10),
        ("log1p", Tensor::<_, Cpu>::log1p, f64::ln_1p),
        ("sqrt", Tensor::<_, Cpu>::sqrt, f64::sqrt),
        ("reciprocal", Tensor::<_, Cpu>::reciprocal, f64::recip),
        ("erf", Tensor::<_, Cpu>::erf, libm::erf),
        ("sigmoid", Tensor::<_, Cpu>::sigmoid, |x| {
            1.0 / (1.0 + (-x).exp())
        }),
    ]
}

/// Every float-valued op on every dtype, on a contiguous and a transposed input, against f64.
fn float_unary<T: Element>() {
    let vals: Vec<f64> = if T::DTYPE.is_float() {
        XS.to_vec()
    } else if T::DTYPE == Dtype::Bool {
        vec![0.0, 1.0, 1.0, 0.0, 1.0, 0.0]
    } else if T::DTYPE == Dtype::UInt8 {
        vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    } else {
        vec![0.0, 1.0, 2.0, -3.0, 4.0, -1.0]
    };
    let x = tensor::<T>(&vals, &[2, 3]);
    let xt = x.t(); // (3, 2), strided
    let exact: Vec<f64> = f64s(&x); // inputs as stored (16-bit rounding included)
    let exact_t: Vec<f64> = f64s(&xt);
    let out_dtype = T::DTYPE.float_of();
    for (name, op, reference) in float_unary_table::<T>() {
        for (input, ex) in [(&x, &exact), (&xt, &exact_t)] {
            let y = op(input);
            assert_eq!(y.dtype(), out_dtype, "{name} on {}", T::DTYPE);
            assert_eq!(y.shape(), input.shape());
            let want: Vec<f64> = ex
                .iter()
                .map(|&v| FloatOf::<T>::from_f64(reference(v)).to_f64())
                .collect();
            let got = f64s(&y);
            assert_close(&got, &want, tol(out_dtype).max(1e-6) * 2.0);
            let _ = name;
        }
    }
}

#[test]
fn float_valued_unary_ops_every_dtype() {
    for_types!(float_unary: f32, f64, f16, bf16, i16, i32, i64, u8, bool);
}

fn inplace_matches_out_of_place<T: FloatElement>() {
    let x = tensor::<T>(&XS, &[2, 3]);
    let mut y = x.deep_copy();
    y.sin_().unwrap();
    assert_eq!(y.to_vec(), x.sin().to_vec());
    let mut z = x.deep_copy();
    z.exp_().unwrap();
    z.log_().unwrap();
    assert_close(&f64s(&z), &f64s(&x), tol(T::DTYPE) * 4.0);
    let mut out = Tensor::<T>::zeros([2, 3]).unwrap();
    x.tanh_into(&mut out).unwrap();
    assert_eq!(out.to_vec(), x.tanh().to_vec());
    // `out` may be the input itself.
    let mut same = x.deep_copy();
    let alias = same.clone();
    alias.cos_into(&mut same).unwrap();
    assert_eq!(same.to_vec(), x.cos().to_vec());
    // In place through a transposed view writes the base.
    let base = x.deep_copy();
    let mut v = base.t();
    v.neg_().unwrap();
    assert_eq!(base.to_vec(), x.neg().to_vec());
}

#[test]
fn inplace_and_into_forms() {
    for_types!(inplace_matches_out_of_place: f32, f64, f16, bf16);
}

#[test]
fn seed_nan_domains_and_promotion_types() {
    let t = Tensor::<f32>::from_vec(vec![2.0, -2.0, 0.5, 0.0], [4]).unwrap();
    assert!(t.acos().to_vec()[..2].iter().all(|x| x.is_nan()));
    assert!(t.acosh().to_vec()[2].is_nan());
    assert!(t.atanh().to_vec()[0].is_nan());
    assert_eq!(t.log().to_vec()[3], f32::NEG_INFINITY);
    assert!(t.log().to_vec()[1].is_nan());
    assert_eq!(t.reciprocal().to_vec()[3], f32::INFINITY);
    // The promotion is in the type.
    let i = Tensor::<i32>::from_vec(vec![100, -200, 3000, 400, 0, 600], [2, 3]).unwrap();
    let s: Tensor<f32> = i.sin();
    assert_eq!(s.dtype(), Dtype::Float32);
    let l: Tensor<f64> = Tensor::<i64>::ones([2]).unwrap().sqrt();
    assert_eq!(l.to_vec(), vec![1.0, 1.0]);
    // Seed: square of Int32 is Float64; in-place square of Int32 wraps.
    let sq: Tensor<f64> = i.square();
    assert_eq!(sq.to_vec(), vec![1e4, 4e4, 9e6, 1.6e5, 0.0, 3.6e5]);
    let mut big = Tensor::<i32>::from_vec(vec![100_000, -3], [2]).unwrap();
    big.square_().unwrap();
    assert_eq!(big.to_vec(), vec![100_000i32.wrapping_mul(100_000), 9]);
    // Seed: sqrt of Int64 is Float32? No: the table says Int64 promotes to Float64.
    let r: Tensor<f64> = Tensor::<i64>::from_vec(vec![100, -200, 3000, 400, 0, 600], [2, 3])
        .unwrap()
        .sqrt();
    assert_eq!(r.to_vec()[0], 10.0);
    assert!(r.to_vec()[1].is_nan());
}

fn same_type_unary<T: NumElement>() {
    let vals = if T::DTYPE.is_float() {
        vec![1.5, -2.5, 0.0, 2.5, -0.4, 3.7]
    } else if T::DTYPE == Dtype::UInt8 {
        vec![1.0, 2.0, 0.0, 200.0, 7.0, 3.0]
    } else {
        vec![1.0, -2.0, 0.0, 25.0, -4.0, 3.0]
    };
    let x = tensor::<T>(&vals, &[3, 2]);
    let xv = f64s(&x);
    let cases: Vec<(fn(&Tensor<T>) -> Tensor<T>, F64Fn)> = vec![
        (Tensor::<_, Cpu>::abs, f64::abs),
        (Tensor::<_, Cpu>::sign, |v| {
            if v > 0.0 {
                1.0
            } else if v < 0.0 {
                -1.0
            } else {
                0.0
            }
        }),
        (Tensor::<_, Cpu>::floor, f64::floor),
        (Tensor::<_, Cpu>::ceil, f64::ceil),
        (Tensor::<_, Cpu>::round, f64::round_ties_even),
        (Tensor::<_, Cpu>::trunc, f64::trunc),
        (Tensor::<_, Cpu>::relu, |v| v.max(0.0)),
    ];
    for (op, r) in cases {
        for input in [x.clone(), x.t()] {
            let iv = f64s(&input);
            let want: Vec<f64> = iv.iter().map(|&v| T::from_f64(r(v)).to_f64()).collect();
            assert_close(&f64s(&op(&input)), &want, tol(T::DTYPE));
        }
    }
    if T::DTYPE != Dtype::UInt8 {
        let want: Vec<f64> = xv.iter().map(|v| -v).collect();
        assert_close(&f64s(&x.neg()), &want, 0.0);
    }
    let mut y = x.deep_copy();
    y.abs_().unwrap();
    assert_eq!(y.to_vec(), x.abs().to_vec());
    let c = x.clip(T::from_f64(0.0), T::from_f64(2.0));
    assert!(f64s(&c).iter().all(|&v| (0.0..=2.0).contains(&v)));
    assert!(x.try_clip(T::from_f64(2.0), T::from_f64(0.0)).is_err());
}

#[test]
fn type_keeping_unary_ops() {
    for_types!(same_type_unary: f32, f64, f16, bf16, i16, i32, i64, u8);
    // Integer abs/neg wrap like NumPy.
    let m = Tensor::<i32>::from_vec(vec![i32::MIN], [1]).unwrap();
    assert_eq!(m.abs().to_vec(), vec![i32::MIN]);
    let n = Tensor::<f32>::from_vec(vec![f32::NAN, -0.5, 0.5, 1.5, 2.5], [5]).unwrap();
    assert!(n.relu().to_vec()[0].is_nan());
    assert_eq!(n.round().to_vec()[1..], [-0.0, 0.0, 2.0, 2.0]);
}

#[test]
fn pow_overloads() {
    let t =
        Tensor::<f32>::from_vec(vec![100.0, -200.0, 3000.0, 400.0, 0.0, 600.0], [2, 3]).unwrap();
    let c: Tensor<f32> = t.pow(3);
    assert_eq!(c.to_vec()[1], -8e6);
    let mut d = t.deep_copy();
    d.pow_(3).unwrap();
    assert_eq!(d.to_vec(), c.to_vec());
    let i = Tensor::<i32>::from_vec(vec![2, -3, 0], [3]).unwrap();
    let k: Tensor<i32> = i.pow(3);
    assert_eq!(k.to_vec(), vec![8, -27, 0]);
    let h: Tensor<f32> = i.pow(0.5);
    assert!((h.to_vec()[0] - 2f32.sqrt()).abs() < 1e-6 && h.to_vec()[1].is_nan());
    let h64: Tensor<f64> = Tensor::<i64>::from_vec(vec![4], [1]).unwrap().pow(0.5f32);
    assert_eq!(h64.to_vec(), vec![2.0]);
    // Seed's error cases: negative integer exponent on an integer tensor.
    let mut j = i.deep_copy();
    let e = j.pow_(-2).unwrap_err();
    assert!(e.to_string().contains("negative"), "{e}");
    assert_eq!(j.to_vec(), i.to_vec(), "an Err leaves the input unchanged");
    assert!(i.try_pow(-1).is_err());
    assert_eq!(
        Tensor::<f64>::from_vec(vec![2.0], [1])
            .unwrap()
            .pow(-2)
            .to_vec(),
        vec![0.25]
    );
    // Element-wise exponent.
    let e = Tensor::<i64>::from_vec(vec![0, 1, 2], [3]).unwrap();
    let b = Tensor::<i64>::from_vec(vec![3, 3, 3], [3]).unwrap();
    assert_eq!(b.pow(&e).to_vec(), vec![1, 3, 9]);
    assert!(b.try_pow(&e.neg()).is_err());
}

/// `where` on contiguous operands (the slice path, large enough to split across threads; one
/// a view at an offset), a transposed one and a broadcast one, for several dtypes on every device, element by element.
#[test]
fn where_contiguous_strided_and_broadcast() {
    fn run<T: Element, D: Backend>(dev: &D) {
        let (r, c) = (300usize, 257usize);
        let n = r * c;
        let up =
            |v: Vec<T>, d: [usize; 2]| Tensor::<T>::from_vec(v, d).unwrap().to_device(dev).unwrap();
        let cv: Vec<bool> = (0..n).map(|i| i % 3 == 0 || i % 7 == 1).collect();
        let av: Vec<T> = (0..n).map(|i| T::from_i64((i % 113) as i64)).collect();
        let bv: Vec<T> = (0..n).map(|i| T::from_i64(-((i % 91) as i64))).collect();
        let cond = Tensor::<bool>::from_vec(cv.clone(), [r, c])
            .unwrap()
            .to_device(dev)
            .unwrap();
        // `b` a contiguous view at an offset (its runs start elsewhere than `a`'s).
        let mut bfull: Vec<T> = vec![T::from_i64(99); c];
        bfull.extend(bv.iter().copied());
        let a = up(av.clone(), [r, c]);
        let b = up(bfull, [r + 1, c]).narrow(0, 1, r).unwrap();
        let got = host_f64s(&Tensor::where_(&cond, &a, &b));
        for i in 0..n {
            let want = if cv[i] { av[i] } else { bv[i] };
            assert_eq!(got[i], want.to_f64(), "{} contiguous [{i}]", T::DTYPE);
        }
        // `a` read transposed, `b` one row broadcast down the rows.
        let at = up(av.clone(), [c, r]).t();
        let brow = up(bv[..c].to_vec(), [1, c]);
        let got = host_f64s(&Tensor::where_(&cond, &at, &brow));
        for i in 0..r {
            for j in 0..c {
                let want = if cv[i * c + j] { av[j * r + i] } else { bv[j] };
                assert_eq!(
                    got[i * c + j],
                    want.to_f64(),
                    "{} mixed [{i}, {j}]",
                    T::DTYPE
                );
            }
        }
    }
    on_every_device!("where_contiguous_strided_and_broadcast", |dev| {
        run::<f32, _>(&dev);
        run::<i64, _>(&dev);
        run::<u8, _>(&dev);
        run::<bool, _>(&dev);
        run::<bf16, _>(&dev);
    });
}

/// `clip` in one pass (without recording) equals `maximum` then `minimum`, on large strided
/// and contiguous inputs with NaN elements, NaN and infinite bounds and integers, on every device; recorded, it
/// has their gradient.
#[test]
fn clip_in_one_pass_matches_the_two_ops() {
    fn run<T: NumElement, D: Backend>(dev: &D, bounds: &[(f64, f64)]) {
        let n = 200 * 301;
        let v: Vec<T> = (0..n)
            .map(|i| {
                T::from_f64(if i % 97 == 5 {
                    f64::NAN
                } else {
                    (i % 41) as f64 - 20.0
                })
            })
            .collect();
        let c = Tensor::<T>::from_vec(v, [301, 200])
            .unwrap()
            .to_device(dev)
            .unwrap();
        // Strided, and contiguous at an offset (the one-pass slice path).
        for (x, &(lo, hi)) in [c.t(), c.narrow(0, 1, 300).unwrap()]
            .iter()
            .flat_map(|x| bounds.iter().map(move |b| (x, b)))
        {
            let (lo, hi) = (T::from_f64(lo), T::from_f64(hi));
            let want = host_f64s(&x.maximum_scalar(lo).minimum_scalar(hi));
            let got = host_f64s(&x.clip(lo, hi));
            let same = |a: f64, b: f64| a == b || (a.is_nan() && b.is_nan());
            assert!(
                want.iter().zip(&got).all(|(&a, &b)| same(a, b)),
                "{} [{lo:?}, {hi:?}]",
                T::DTYPE
            );
        }
    }
    on_every_device!("clip_in_one_pass_matches_the_two_ops", |dev| {
        let fb = [
            (-3.5, 7.25),
            (0.0, 0.0),
            (f64::NAN, 1.0),
            (f64::NEG_INFINITY, f64::INFINITY),
        ];
        run::<f32, _>(&dev, &fb);
        run::<f64, _>(&dev, &fb);
        run::<bf16, _>(&dev, &fb[..2]);
        run::<i32, _>(&dev, &[(-3.0, 7.0), (5.0, 5.0)]);
        run::<u8, _>(&dev, &[(3.0, 7.0)]);
        let x = Tensor::<f64>::from_vec(vec![-2.0, 0.5, 3.0], [3])
            .unwrap()
            .to_device(&dev)
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        x.clip(-1.0, 1.0).sum(&[], false).backward();
        assert_eq!(host_f64s(&x.grad_tensor().unwrap()), vec![0.0, 1.0, 0.0]);
    });
}

/// `pow` by 2, 3 and -1 (multiplications and a reciprocal inside) against `pow` in f64, on
/// special values, overflow and underflow, for every float dtype and (2 and 3, wrapping) the
/// integers, on every device; a strided input and the gradient too.
#[test]
fn pow_shortcuts_match_pow() {
    fn floats<T: FloatElement, D: Backend>(dev: &D) {
        let (inf, nan) = (f64::INFINITY, f64::NAN);
        let xs = [
            0.0, -0.0, 1.0, -1.0, 1.5, -2.75, 1e-3, -7.3, 1e20, -3e25, 1e-20, 3e-39, 1e-300, 1e200,
            6.5e4, inf, -inf, nan, 0.1, -0.3,
        ];
        let v: Vec<T> = xs.iter().map(|&x| T::from_f64(x)).collect();
        let t = Tensor::<T>::from_vec(v.clone(), [xs.len()])
            .unwrap()
            .to_device(dev)
            .unwrap();
        let eps = T::from_f64(1.0).to_f64() * typed_tensor::finfo(T::DTYPE).unwrap().eps;
        for e in [2i32, 3, -1] {
            for (name, got) in [
                ("i32 exponent", host_f64s(&t.pow(e))),
                ("float exponent", host_f64s(&t.pow(e as f64))),
            ] {
                for ((&x, g), k) in v.iter().zip(got).zip(0..) {
                    // The exact power rounded once to T (f64 holds x² exactly).
                    let want = T::from_f64(x.to_f64().powi(e)).to_f64();
                    let ok = if want.is_nan() {
                        g.is_nan()
                    } else if !want.is_finite() || want == 0.0 || e != 3 {
                        g == want && g.is_sign_negative() == want.is_sign_negative()
                    } else {
                        (g - want).abs() <= 2.0 * eps * want.abs()
                    };
                    assert!(
                        ok,
                        "{} {name}: {:?}^{e} = {g}, want {want} [{k}]",
                        T::DTYPE,
                        x
                    );
                }
            }
        }
        // A strided input, and the gradient e·x^(e-1).
        let m = Tensor::<T>::from_vec(v[..16].to_vec(), [4, 4])
            .unwrap()
            .to_device(dev)
            .unwrap();
        let mt = m.transpose(0, 1).unwrap();
        assert_eq!(host_f64s(&mt.pow(2)), host_f64s(&mt.mul(&mt)));
        let cube = host_f64s(&mt.pow(3.0));
        let want = host_f64s(&mt.mul(&mt).mul(&mt));
        if matches!(T::DTYPE, Dtype::Float32 | Dtype::Float64) {
            assert!(
                cube.iter()
                    .zip(&want)
                    .all(|(a, b)| a == b || (a.is_nan() && b.is_nan()))
            );
        }
        let x = Tensor::<T>::from_vec(vec![T::from_f64(1.5), T::from_f64(-2.0)], [2])
            .unwrap()
            .to_device(dev)
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        x.pow(3).sum(&[], false).backward();
        assert_eq!(host_f64s(&x.grad_tensor().unwrap()), vec![6.75, 12.0]);
    }
    fn ints<T: NumElement, D: Backend>(dev: &D, xs: &[i64]) {
        let t = Tensor::<T>::from_vec(xs.iter().map(|&x| T::from_i64(x)).collect(), [xs.len()])
            .unwrap()
            .to_device(dev)
            .unwrap();
        for e in [2u32, 3] {
            let got = host_f64s(&t.pow(e as i32));
            for (&x, g) in xs.iter().zip(got) {
                // The wrapping power in T's width.
                let want = T::from_i64(x.wrapping_pow(e)).to_f64();
                assert_eq!(g, want, "{}: {x}^{e}", T::DTYPE);
            }
        }
        // A broadcast (stride 0) view.
        let b = t.unsqueeze(1).unwrap().broadcast_to([xs.len(), 2]).unwrap();
        let got = host_f64s(&b.pow(3));
        let want: Vec<f64> = (xs.iter())
            .flat_map(|&x| [T::from_i64(x.wrapping_pow(3)).to_f64(); 2])
            .collect();
        assert_eq!(got, want, "{}", T::DTYPE);
    }
    on_every_device!("pow_shortcuts_match_pow", |dev| {
        floats::<f32, _>(&dev);
        floats::<f64, _>(&dev);
        floats::<f16, _>(&dev);
        floats::<bf16, _>(&dev);
        let xs = [0, 1, -1, 7, -13, 200, 46_341, -3_000_000_000, i64::MAX];
        ints::<i64, _>(&dev, &xs);
        ints::<i32, _>(&dev, &xs[..7]);
        ints::<i16, _>(&dev, &xs[..6]);
        ints::<u8, _>(&dev, &[0, 1, 7, 200, 255]);
    });
}

fn binary_ops<T: NumElement>() {
    let (av, bv): (Vec<f64>, Vec<f64>) = if T::DTYPE.is_float() {
        (vec![7.5, -7.5, 3.0, 0.5, -1.25, 6.0], vec![2.0, -4.0, 0.5])
    } else if T::DTYPE == Dtype::UInt8 {
        (vec![7.0, 9.0, 3.0, 1.0, 2.0, 6.0], vec![2.0, 4.0, 5.0])
    } else {
        (vec![7.0, -7.0, 3.0, 1.0, -2.0, 6.0], vec![2.0, -4.0, 5.0])
    };
    let a = tensor::<T>(&av, &[2, 3]);
    let b = tensor::<T>(&bv, &[3]); // broadcast over rows
    let av = f64s(&a);
    let bv = f64s(&b);
    let floor_mod = |x: f64, y: f64| x - (x / y).floor() * y;
    let cases: Vec<(
        &str,
        fn(&Tensor<T>, &Tensor<T>) -> Result<Tensor<T>>,
        fn(f64, f64) -> f64,
    )> = vec![
        ("add", Tensor::<_, Cpu>::try_add, |x, y| x + y),
        ("sub", Tensor::<_, Cpu>::try_sub, |x, y| x - y),
        ("mul", Tensor::<_, Cpu>::try_mul, |x, y| x * y),
        ("maximum", Tensor::<_, Cpu>::try_maximum, f64::max),
        ("minimum", Tensor::<_, Cpu>::try_minimum, f64::min),
        (
            "floor_divide",
            Tensor::<_, Cpu>::try_floor_divide,
            |x, y| (x / y).floor(),
        ),
    ];
    for (name, op, r) in cases {
        let want: Vec<f64> = (0..6)
            .map(|i| T::from_f64(r(av[i], bv[i % 3])).to_f64())
            .collect();
        let got = op(&a, &b).unwrap();
        assert_eq!(got.shape().dims(), &[2, 3]);
        if T::DTYPE == Dtype::UInt8 && name == "sub" {
            continue; // wraps
        }
        assert_close(&f64s(&got), &want, tol(T::DTYPE) * 2.0);
        // Transposed operands: (3, 2)ᵀ + (3, 1) broadcasts across columns.
        let gt = op(&a.t(), &b.unsqueeze(1).unwrap()).unwrap();
        let want_t: Vec<f64> = (0..6)
            .map(|k| {
                let (i, j) = (k / 2, k % 2);
                T::from_f64(r(av[j * 3 + i], bv[i])).to_f64()
            })
            .collect();
        assert_close(&f64s(&gt), &want_t, tol(T::DTYPE) * 2.0);
    }
    // Remainder takes the divisor's sign (NumPy); division truncates for integers.
    let rem = a.try_remainder(&b).unwrap();
    let want: Vec<f64> = (0..6)
        .map(|i| T::from_f64(floor_mod(av[i], bv[i % 3])).to_f64())
        .collect();
    assert_close(&f64s(&rem), &want, tol(T::DTYPE) * 8.0);
    let div = a.try_div(&b).unwrap();
    let want: Vec<f64> = (0..6)
        .map(|i| {
            let q = av[i] / bv[i % 3];
            T::from_f64(if T::DTYPE.is_float() { q } else { q.trunc() }).to_f64()
        })
        .collect();
    assert_close(&f64s(&div), &want, tol(T::DTYPE) * 2.0);
    // Operators, scalars on both sides, in place.
    let two = T::from_f64(2.0);
    assert_eq!((&a + &b).to_vec(), a.try_add(&b).unwrap().to_vec());
    assert_eq!((&a * two).to_vec(), a.mul_scalar(two).to_vec());
    assert_eq!(
        a.rsub_scalar(two).to_vec(),
        a.neg().add_scalar(two).to_vec()
    );
    let mut c = a.deep_copy();
    c += &b;
    assert_eq!(c.to_vec(), (&a + &b).to_vec());
    c -= two;
    assert_eq!(c.to_vec(), (&(&a + &b) - two).to_vec());
    let mut out = Tensor::<T>::zeros([2, 3]).unwrap();
    a.mul_into(&b, &mut out).unwrap();
    assert_eq!(out.to_vec(), (&a * &b).to_vec());
    a.add_scalar_into(two, &mut out).unwrap();
    assert_eq!(out.to_vec(), (&a + two).to_vec());
    let mut wrong = Tensor::<T>::zeros([3, 2]).unwrap();
    assert!(a.add_into(&b, &mut wrong).is_err());
}

#[test]
fn binary_ops_every_dtype_with_broadcasting() {
    for_types!(binary_ops: f32, f64, f16, bf16, i16, i32, i64, u8);
}

#[test]
fn broadcasting_rules() {
    let a = Tensor::<f32>::ones([3, 4]).unwrap();
    let e = a.try_add(&Tensor::<f32>::ones([5]).unwrap()).unwrap_err();
    assert!(matches!(e, Error::Broadcast { .. }));
    let msg = e.to_string();
    assert!(
        msg.contains("(3, 4)") && msg.contains("(5,)") && msg.contains("add"),
        "{msg}"
    );
    // Seed 000's 2-D example and NumPy's rank padding.
    let c = &Tensor::<f32>::full([2, 3], 1.0).unwrap() + &Tensor::<f32>::full([1, 3], 2.0).unwrap();
    assert_eq!(c.to_vec(), vec![3.0; 6]);
    let x = Tensor::<i32>::arange(0, 3, 1).unwrap().reshape([3, 1]);
    let y = Tensor::<i32>::arange(0, 4, 1).unwrap().reshape([1, 1, 4]);
    let z = &x + &y;
    assert_eq!(z.shape().dims(), &[1, 3, 4]);
    assert_eq!(z.to_vec()[4..8], [1, 2, 3, 4]);
    // In place: b broadcasts into a; a cannot grow.
    let mut m = Tensor::<i32>::zeros([2, 3]).unwrap();
    m += &Tensor::<i32>::arange(0, 3, 1).unwrap();
    assert_eq!(m.to_vec(), vec![0, 1, 2, 0, 1, 2]);
    let mut small = Tensor::<i32>::zeros([3]).unwrap();
    assert!(small.add_(&m).is_err());
    // Overlapping views give NumPy's answer: the right side is read before writing.
    let mut v = Tensor::<i32>::arange(0, 4, 1).unwrap();
    let rev = v.flip(&[0]).unwrap();
    v.add_(&rev).unwrap();
    assert_eq!(v.to_vec(), vec![3, 3, 3, 3]);
}

#[test]
fn division_semantics() {
    let a = Tensor::<i32>::from_vec(vec![7, -7, 1], [3]).unwrap();
    let z = Tensor::<i32>::from_vec(vec![1, 0, 1], [3]).unwrap();
    let e = a.try_div(&z).unwrap_err();
    assert!(
        matches!(
            e,
            Error::DivisionByZero {
                dtype: Dtype::Int32,
                ..
            }
        ),
        "{e}"
    );
    let mut b = a.deep_copy();
    assert!(b.div_(&z).is_err());
    assert_eq!(b.to_vec(), a.to_vec(), "an Err leaves the input unchanged");
    assert!(b.div_scalar_(0).is_err());
    assert!(a.try_remainder_scalar(0).is_err());
    assert!(a.try_rdiv_scalar(1).is_ok());
    assert!(z.try_rdiv_scalar(1).is_err());
    let p = std::panic::catch_unwind(|| &a / 0);
    assert!(p.is_err());
    assert_eq!(a.div_scalar(2).to_vec(), vec![3, -3, 0]);
    assert_eq!(a.floor_divide_scalar(2).to_vec(), vec![3, -4, 0]);
    assert_eq!(a.remainder_scalar(3).to_vec(), vec![1, 2, 1]);
    assert_eq!(a.remainder_scalar(-3).to_vec(), vec![-2, -1, -2]);
    let f = Tensor::<f32>::from_vec(vec![1.0, -1.0, 0.0], [3]).unwrap();
    let q = f.div_scalar(0.0).to_vec();
    assert_eq!(q[..2], [f32::INFINITY, f32::NEG_INFINITY]);
    assert!(q[2].is_nan());
    assert_eq!(
        (2.0f32 / &Tensor::<f32>::full([1], 4.0).unwrap()).to_vec(),
        vec![0.5]
    );
    assert_eq!(
        (10i64 - &Tensor::<i64>::full([1], 4).unwrap()).to_vec(),
        vec![6]
    );
    // Integer arithmetic wraps.
    let w = Tensor::<i16>::from_vec(vec![i16::MAX], [1]).unwrap();
    assert_eq!((&w + 1).to_vec(), vec![i16::MIN]);
    let nan = Tensor::<f32>::from_vec(vec![f32::NAN, 1.0], [2]).unwrap();
    assert!(nan.maximum_scalar(0.0).to_vec()[0].is_nan());
}

#[test]
fn comparisons_logic_where_and_close() {
    let a = Tensor::<f32>::from_vec(vec![1.0, 2.0, f32::NAN, 4.0], [4]).unwrap();
    let b = Tensor::<f32>::from_vec(vec![1.0, 3.0, f32::NAN, 0.0], [4]).unwrap();
    assert_eq!(a.eq(&b).to_vec(), vec![true, false, false, false]);
    assert_eq!(a.ne(&b).to_vec(), vec![false, true, true, true]);
    assert_eq!(a.lt(&b).to_vec(), vec![false, true, false, false]);
    assert_eq!(a.le(&b).to_vec(), vec![true, true, false, false]);
    assert_eq!(a.gt(&b).to_vec(), vec![false, false, false, true]);
    assert_eq!(a.ge(&b).to_vec(), vec![true, false, false, true]);
    assert_eq!(a.gt_scalar(1.5).to_vec(), vec![false, true, false, true]);
    assert_eq!(a.is_nan().to_vec(), vec![false, false, true, false]);
    let inf = Tensor::<f64>::from_vec(vec![f64::INFINITY, 1.0, -f64::INFINITY], [3]).unwrap();
    assert_eq!(inf.is_inf().to_vec(), vec![true, false, true]);
    let m = Tensor::<i32>::from_vec(vec![0, 1, 2, 0], [2, 2]).unwrap();
    let n = Tensor::<i32>::from_vec(vec![1, 0], [2]).unwrap();
    assert_eq!(m.logical_and(&n).to_vec(), vec![false, false, true, false]);
    assert_eq!(m.logical_or(&n).to_vec(), vec![true, true, true, false]);
    assert_eq!(m.logical_xor(&n).to_vec(), vec![true, true, false, false]);
    assert_eq!(m.logical_not().to_vec(), vec![true, false, false, true]);
    let cond = Tensor::<bool>::from_vec(vec![true, false], [2]).unwrap();
    let w = Tensor::where_(&cond, &m, &Tensor::scalar(-1));
    assert_eq!(w.to_vec(), vec![0, -1, 2, -1]);
    assert_eq!(m.masked_fill(&cond, 9).to_vec(), vec![9, 1, 9, 0]);
    assert!(a.try_eq(&Tensor::<f32>::zeros([3]).unwrap()).is_err());
    let x = Tensor::<f32>::from_vec(vec![1.0, 1.0 + 1e-7, 2.0], [3]).unwrap();
    let y = Tensor::<f32>::from_vec(vec![1.0, 1.0, 2.1], [3]).unwrap();
    assert_eq!(x.is_close(&y, 1e-5, 1e-8).to_vec(), vec![true, true, false]);
    assert!(!x.all_close(&y, 1e-5, 1e-8));
    assert!(x.all_close(&x, 0.0, 0.0));
    // NumPy's infinities: equal ones are close, a finite value is never close to one (the bound
    // rtol · |inf| would let it), and NaN is not close to itself.
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    let p = Tensor::<f64>::from_vec(vec![1.0, inf, inf, -inf, nan, inf], [6]).unwrap();
    let q = Tensor::<f64>::from_vec(vec![inf, 1.0, inf, inf, nan, -inf], [6]).unwrap();
    let want = vec![false, false, true, false, false, false];
    assert_eq!(p.is_close(&q, 1e-5, 1e-8).to_vec(), want);
}

#[test]
fn casts_and_closures() {
    let f = Tensor::<f32>::from_vec(vec![-2.7, 2.7, f32::NAN, 1e10, -1e10], [5]).unwrap();
    assert_eq!(f.cast::<i32>().to_vec(), vec![-2, 2, 0, i32::MAX, i32::MIN]);
    assert_eq!(f.cast::<u8>().to_vec(), vec![0, 2, 0, 255, 0]);
    assert_eq!(
        f.cast::<bool>().to_vec(),
        vec![true, true, true, true, true]
    );
    let i = Tensor::<i64>::from_vec(vec![1, 2, 3], [3]).unwrap();
    assert_eq!(
        i.cast::<f16>().to_vec(),
        vec![f16::from_f32(1.0), f16::from_f32(2.0), f16::from_f32(3.0)]
    );
    assert_eq!(i.cast::<i16>().to_vec(), vec![1, 2, 3]);
    let sq = i.map(|x| (x * x) as f64);
    assert_eq!(sq.to_vec(), vec![1.0, 4.0, 9.0]);
    let z = i
        .zip_map(&Tensor::<f32>::from_vec(vec![0.5], [1]).unwrap(), |a, b| {
            a as f32 * b
        })
        .unwrap();
    assert_eq!(z.to_vec(), vec![0.5, 1.0, 1.5]);
    let mut j = i.deep_copy();
    j.map_(|x| x + 10).unwrap();
    assert_eq!(j.to_vec(), vec![11, 12, 13]);
    // Large inputs take the parallel path; results match the serial definition.
    let big = Tensor::<f32>::arange(0.0, 200_000.0, 1.0).unwrap();
    let s = f64s(&big.sin());
    let want: Vec<f64> = (0..200_000).map(|k| (k as f64).sin()).collect();
    assert_close(&s, &want, 2.5e-7);
    let bt = big.reshape([400, 500]).t();
    let sum = (&bt + &bt).to_vec();
    assert_eq!(sum[1], 1000.0);
}

/// The vectorised f32 kernels (sin, cos, exp, log) hand inputs they do not cover (NaN, inf,
/// huge, subnormal) to libm; the results of the covered inputs beside them must be kept.
#[test]
fn vectorised_kernels_beside_special_values() {
    let xs = [
        f32::NAN,
        5.0,
        60.0,
        -80.0,
        f32::INFINITY,
        1e-40,
        2.0,
        1e30,
        -0.5,
    ];
    let t = Tensor::<f32, Cpu>::from_vec(xs.to_vec(), [xs.len()]).unwrap();
    for (name, got, f) in [
        ("exp", t.exp().to_vec(), f64::exp as fn(f64) -> f64),
        ("log", t.log().to_vec(), f64::ln),
        ("sin", t.sin().to_vec(), f64::sin),
        ("cos", t.cos().to_vec(), f64::cos),
    ] {
        for (&x, &y) in xs.iter().zip(&got) {
            let want = f(x as f64) as f32;
            let close = (y == want)
                || (y.is_nan() && want.is_nan())
                || ((y - want).abs() <= 2.0 * want.abs() * f32::EPSILON);
            assert!(close, "{name}({x}) = {y}, want {want}");
        }
    }
}

/// Small contiguous operands take a fast path (slices, try-locks, no iteration plan): it must
/// agree with the general path, read and write views at their offsets, and refuse what the
/// general path refuses.
#[test]
fn small_tensor_fast_path_agrees_with_the_general_path() {
    let base = Tensor::<f32>::arange(-20.0, 20.0, 1.0).unwrap();
    let a = base.narrow(0, 3, 16).unwrap(); // contiguous, at offset 3
    let b = base.narrow(0, 21, 16).unwrap();
    let (va, vb) = (a.to_vec(), b.to_vec());
    let prod: Vec<f32> = va.iter().zip(&vb).map(|(x, y)| x * y).collect();
    assert_eq!((&a * &b).to_vec(), prod);
    // The same values through the general path: strided operands.
    let (sa, sb) = (a.reshape([4, 4]).t(), b.reshape([4, 4]).t());
    assert_eq!((&sa * &sb).t().contiguous().to_vec(), prod);
    // Into a contiguous window of a larger buffer: only the window changes.
    let big = Tensor::<f32>::full([20], 7.0).unwrap();
    let mut window = big.narrow(0, 2, 16).unwrap();
    a.mul_into(&b, &mut window).unwrap();
    let got = big.to_vec();
    assert_eq!((&got[..2], &got[18..]), (&[7.0; 2][..], &[7.0; 2][..]));
    assert_eq!(&got[2..18], &prod[..]);
    // Scalar, float-valued (the vectorised exp) and type-keeping unary forms.
    let mut out = Tensor::<f32>::zeros([16]).unwrap();
    a.mul_scalar_into(2.0, &mut out).unwrap();
    assert_eq!(out.to_vec(), va.iter().map(|x| x * 2.0).collect::<Vec<_>>());
    a.exp_into(&mut out).unwrap();
    let e: Vec<f64> = va.iter().map(|&x| (x as f64).exp()).collect();
    assert_close(&f64s(&out), &e, 1e-6);
    assert_close(&f64s(&a.exp()), &e, 1e-6);
    a.neg_into(&mut out).unwrap();
    assert_eq!(out.to_vec(), va.iter().map(|x| -x).collect::<Vec<_>>());
    // 16-bit floats and comparisons.
    let h = a.cast::<f16>();
    assert_eq!(
        (&h + &h).cast::<f32>().to_vec(),
        va.iter().map(|x| x * 2.0).collect::<Vec<_>>()
    );
    assert_eq!(
        a.lt(&b).to_vec(),
        va.iter().zip(&vb).map(|(x, y)| x < y).collect::<Vec<_>>()
    );
    // Integer division by zero stays an `Err` (integers check their divisors first).
    let i = Tensor::<i32>::arange(0, 16, 1).unwrap();
    assert!(i.try_div(&Tensor::<i32>::zeros([16]).unwrap()).is_err());
    // An output that requires grad is refused, and left unchanged.
    let mut g = Tensor::<f32>::zeros([16])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    assert!(a.add_into(&b, &mut g).is_err());
    assert_eq!(g.to_vec(), vec![0.0; 16]);
    // A user closure that writes the buffer it maps gets an `Err` inside, not a deadlock:
    // closures never take the fast path, so the read guard is registered.
    let m = Tensor::<f32>::ones([4]).unwrap();
    let y = m.map(|x| {
        let mut c = m.clone();
        assert!(c.fill_(0.0).is_err());
        x + 1.0
    });
    assert_eq!(y.to_vec(), vec![2.0; 4]);
}

/// The fast path's layouts and recycled buffers: operands whose size-1 dimensions have odd
/// strides still take it, results are row-major at offset 0 whatever the operands' strides
/// and offsets, and a buffer freed and handed out again (the per-thread cache of small
/// buffers) comes back zeroed, at every cached size and beyond.
#[test]
fn small_path_layouts_and_recycled_buffers() {
    let base = Tensor::<f32>::arange(0.0, 40.0, 1.0).unwrap();
    // (1, 16) views at offset 5 whose size-1 dimension has strides 40 and 1 (a column of a
    // transposed matrix, made contiguous in its one long dimension).
    let row = base.narrow(0, 5, 16).unwrap().unsqueeze(0).unwrap();
    let col = base.reshape([40, 1]).t().narrow(1, 5, 16).unwrap();
    assert_eq!(
        (row.stride(), col.stride()),
        (&[16isize, 1][..], &[1isize, 1][..])
    );
    let want: Vec<f32> = (5..21).map(|i| 2.0 * i as f32).collect();
    for (x, y) in [(&row, &col), (&col, &row), (&col, &col)] {
        let s = x + y;
        assert_eq!(
            (s.dims(), s.stride(), s.offset()),
            (&[1usize, 16][..], &[16isize, 1][..], 0)
        );
        assert_eq!(s.to_vec(), want);
        assert_eq!(s.reshape([16]).to_vec(), want);
        assert_eq!(x.exp().stride(), &[16, 1]);
    }
    for n in [1usize, 3, 16, 17, 255, 256, 257, 300, 1000] {
        for _ in 0..3 {
            drop(Tensor::<f32>::full([n], 7.0).unwrap());
            drop(Tensor::<u8>::full([n], 9).unwrap());
            let z = Tensor::<f32>::zeros([n]).unwrap();
            assert!(z.to_vec().iter().all(|&v| v == 0.0), "{n} f32 zeros");
            assert!(
                Tensor::<u8>::zeros([n])
                    .unwrap()
                    .to_vec()
                    .iter()
                    .all(|&v| v == 0)
            );
            assert!(z.allocated_bytes() >= 4 * n && z.allocated_bytes().is_multiple_of(64));
        }
    }
    // One-output sums and means of small contiguous floats (an inline path): views at an
    // offset, keepdim, NaN, 16-bit and f64, against the f64 definition.
    let big = Tensor::<f32>::arange(-500.0, 700.0, 1.0).unwrap();
    let v = big.narrow(0, 150, 1000).unwrap().reshape([10, 100]);
    let total: f64 = (-350..650).map(|i| i as f64).sum();
    for axes in [&[][..], &[0, 1], &[-1, 0]] {
        let s = v.sum(axes, false);
        assert_eq!((s.dims(), s.item()), (&[][..], total as f32));
        let m = v.mean(axes, true);
        assert_eq!(
            (m.dims(), m.stride(), m.item()),
            (&[1, 1][..], &[1, 1][..], 149.5)
        );
    }
    assert_eq!(v.cast::<f64>().sum(&[], false).item(), total);
    assert_eq!(
        v.cast::<f16>().mean(&[], false).item(),
        f16::from_f64(149.5)
    );
    let mut n = v.deep_copy();
    n.data_mut().unwrap()[7] = f32::NAN;
    assert!(n.sum(&[], false).item().is_nan() && n.mean(&[], true).item().is_nan());
    assert!(
        Tensor::<f32>::zeros([0, 3])
            .unwrap()
            .mean(&[], false)
            .item()
            .is_nan()
    );
    // Buffers freed on other threads, then reused here and there.
    let t: Vec<_> = (0..4)
        .map(|_| std::thread::spawn(|| Tensor::<f32>::ones([16]).unwrap()))
        .map(|h| h.join().unwrap())
        .collect();
    drop(t);
    assert_eq!(Tensor::<f32>::zeros([16]).unwrap().to_vec(), vec![0.0; 16]);
    let h = std::thread::spawn(|| {
        let x = Tensor::<f32>::ones([16]).unwrap();
        drop(x.clone());
        (
            x.sum(&[], false).item(),
            Tensor::<f32>::zeros([16]).unwrap().to_vec(),
        )
    });
    assert_eq!(h.join().unwrap(), (16.0, vec![0.0; 16]));
}

/// Every cast pair, on contiguous, transposed, broadcast and large (parallel, general path)
/// inputs, equals `Element::cast` element by element: NaN, infinities, -0.0, out-of-range and
/// fractional values included (the kernel converts in chunks through f32, f64 or i64).
#[test]
fn every_cast_pair_matches_the_element_cast() {
    fn values<T: Element>() -> Vec<T> {
        let fs = [
            -2.7,
            2.7,
            f64::NAN,
            1e10,
            -1e10,
            0.0,
            -0.0,
            65504.0,
            3e38,
            -1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.5,
            -0.5,
            255.5,
            1e-40,
            // The saturation bounds of i32, i16 and u8, and truncation toward zero.
            2147483647.9,
            -2147483648.9,
            2147483648.0,
            32767.9,
            -32768.9,
            255.9,
            -0.9,
            -255.9,
        ];
        let is = [
            i64::MAX,
            i64::MIN,
            -1,
            255,
            256,
            -129,
            70_000,
            1 << 53,
            (1 << 53) + 1,
            0,
        ];
        let mut v: Vec<T> = fs.iter().map(|&x| T::from_f64(x)).collect();
        v.extend(is.iter().map(|&x| T::from_i64(x)));
        v
    }
    fn same<U: Element>(a: U, b: U) -> bool {
        let (x, y) = (a.to_f64(), b.to_f64());
        (x.is_nan() && y.is_nan()) || (x == y && x.is_sign_negative() == y.is_sign_negative())
    }
    fn check<T: Element, U: Element>() {
        let v = values::<T>();
        let n = v.len();
        let want = |src: &[T]| -> Vec<U> { src.iter().map(|&x| x.cast::<U>()).collect() };
        let t = Tensor::<T>::from_vec(v.clone(), [2, n / 2]).unwrap();
        let big_src: Vec<T> = (0..40_000).map(|i| v[i % n]).collect();
        let big = Tensor::<T>::from_vec(big_src, [200, 200]).unwrap();
        let cases: Vec<(&str, Tensor<T>)> = vec![
            ("contiguous", t.clone()),
            ("transposed", t.t()),
            (
                "broadcast",
                t.narrow(0, 0, 1).unwrap().expand([3, n / 2]).unwrap(),
            ),
            ("large transposed", big.t()),
            ("large", big.clone()),
        ];
        for (what, x) in cases {
            let got = x.cast::<U>().to_vec();
            let expect = want(&x.to_vec());
            assert_eq!(got.len(), expect.len());
            for (k, (&g, &e)) in got.iter().zip(&expect).enumerate() {
                assert!(
                    same(g, e),
                    "{} -> {} ({what}) at {k}: {} vs {}",
                    T::DTYPE,
                    U::DTYPE,
                    g.to_f64(),
                    e.to_f64()
                );
            }
        }
    }
    macro_rules! to_all {
        ($($t:ty),*) => {$(
            check::<$t, f32>();
            check::<$t, f64>();
            check::<$t, f16>();
            check::<$t, bf16>();
            check::<$t, i16>();
            check::<$t, i32>();
            check::<$t, i64>();
            check::<$t, u8>();
            check::<$t, bool>();
        )*};
    }
    to_all!(f32, f64, f16, bf16, i16, i32, i64, u8, bool);
}

/// Binary ops into an existing output of 32 MiB or more are written with non-temporal stores:
/// a contiguous add, a broadcast row and a scalar-broadcast operand, into an output that
/// starts at an odd offset inside its buffer, whose neighbours must stay untouched.
#[test]
fn large_outputs_written_by_streaming_stores() {
    let (rows, cols) = (2048usize, 4096usize);
    let n = rows * cols; // 2^23 f32: exactly 32 MiB.
    let a = Tensor::<f32>::arange(0.0, n as f32, 1.0)
        .unwrap()
        .reshape([rows, cols]);
    let b = a.mul_scalar(0.5);
    let row = Tensor::<f32>::arange(0.0, cols as f32, 1.0)
        .unwrap()
        .reshape([1, cols]);
    let base = Tensor::<f32>::full([n + 5], -1.0).unwrap();
    let mut out = base.narrow(0, 3, n).unwrap().reshape([rows, cols]);
    a.add_into(&b, &mut out).unwrap();
    let (o, all) = (out.to_vec(), base.to_vec());
    assert!(o.iter().enumerate().all(|(i, &v)| v == i as f32 * 1.5));
    assert_eq!((&all[..3], &all[n + 3..]), (&[-1.0; 3][..], &[-1.0; 2][..]));
    a.sub_into(&row, &mut out).unwrap();
    let o = out.to_vec();
    assert!(
        o.iter()
            .enumerate()
            .all(|(i, &v)| v == (i - i % cols) as f32)
    );
    let one = Tensor::<f32>::full([1, 1], 2.0).unwrap();
    a.mul_into(&one, &mut out).unwrap();
    assert!(
        out.to_vec()
            .iter()
            .enumerate()
            .all(|(i, &v)| v == i as f32 * 2.0)
    );
    assert_eq!(base.to_vec()[..3], [-1.0; 3]);
}
