//! The ulp sweep of every kernel, on both evaluation paths.

fn ulps(a: f32, b: f32) -> u32 {
    if a == b {
        return 0;
    }
    let (ia, ib) = (a.to_bits() as i32, b.to_bits() as i32);
    if (ia < 0) != (ib < 0) {
        return (ia & i32::MAX) as u32 + (ib & i32::MAX) as u32;
    }
    ia.abs_diff(ib)
}

/// Kernel `K` on the path the CPU takes (FMA where it has one), or on the `Plain` SSE2 path
/// every x86-64 CPU can take.
fn run<K: super::Kernel>(plain: bool) -> fn(&mut [f32]) {
    if plain {
        super::blocks::<K, super::Plain>
    } else {
        super::apply::<K>
    }
}

/// Zeros, ±1, ±2, 4 and the infinities.
const SPECIAL: [f32; 9] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    2.0,
    -2.0,
    4.0,
    f32::INFINITY,
    f32::NEG_INFINITY,
];

#[test]
fn within_two_ulp_of_correctly_rounded() {
    sweep(false);
    sweep(true);
}

fn sweep(plain: bool) {
    let mut xs: Vec<f32> = (0..2_000_000)
        .map(|i| -8192.0 + i as f32 * (16384.0 / 2e6))
        .collect();
    xs.extend((0..100_000).map(|i| i as f32 * 1e-5));
    xs.extend([0.0, -0.0, 1e-30, f32::MIN_POSITIVE, 8192.0, -8192.0]);
    let exps: Vec<f32> = (0..2_000_001)
        .map(|i| -87.0 + i as f32 * (175.0 / 2e6))
        .chain((0..100_000).map(|i| (i as f32 - 5e4) * 1e-6))
        .chain((0..1000).map(|i| -104.001 - i as f32 * 0.1))
        .chain([-1e30, f32::MIN, f32::NEG_INFINITY])
        .collect();
    // Dense over [-5, 5] (erf is ±1 in f32 beyond 3.92), and tiny and subnormal inputs.
    let erfs: Vec<f32> = (0..4_000_001)
        .map(|i| -5.0 + i as f32 * (10.0 / 4e6))
        .chain((0..760).map(|k| 1e-45 * 1.1f32.powi(k)))
        .chain((0..760).map(|k| -1e-45 * 1.1f32.powi(k)))
        .chain(SPECIAL)
        .chain([1e30, f32::MAX])
        .collect();
    // Every binade from MIN_POSITIVE to MAX, and densely around 1.
    let logs: Vec<f32> = (0..2_000_000u32)
        .map(|i| f32::from_bits(0x0080_0000 + i * ((0x7f7f_ffff - 0x0080_0000) / 2_000_000)))
        .chain((0..200_000).map(|i| 0.9 + i as f32 * 1e-6))
        .chain([1.0, f32::MIN_POSITIVE, f32::MAX, 0.5, 2.0])
        .collect();
    let exp2s: Vec<f32> = (0..2_000_001)
        .map(|i| -125.0 + i as f32 * (252.0 / 2e6))
        .chain((0..100_000).map(|i| (i as f32 - 5e4) * 1e-6))
        .collect();
    // Dense near 0 (where expm1, log1p and tanh must not cancel) and across the range.
    let near0: Vec<f32> = (0..400_000)
        .map(|i| (i as f32 - 2e5) * 5e-6)
        .chain((0..200).map(|k| 1e-30 * 1.5f32.powi(k)))
        .chain((0..200).map(|k| -1e-30 * 1.5f32.powi(k)))
        .collect();
    let expm1s: Vec<f32> = (0..1_000_001)
        .map(|i| -87.0 + i as f32 * (175.0 / 1e6))
        .chain(near0.iter().copied())
        .collect();
    let log1ps: Vec<f32> =
        (0..1_000_000u32)
            .map(|i| -1.0 + (i + 1) as f32 * 1e-6)
            .chain((0..1_000_000u32).map(|i| {
                f32::from_bits(0x0080_0000 + i * ((0x7f7f_ffff - 0x0080_0000) / 1_000_000))
            }))
            .chain(
                near0
                    .iter()
                    .copied()
                    .filter(|&x| x > -1.0 && x.abs() >= f32::MIN_POSITIVE),
            )
            .collect();
    let tanhs: Vec<f32> = (0..1_000_001)
        .map(|i| -43.0 + i as f32 * (86.0 / 1e6))
        .chain(near0.iter().copied())
        .chain((0..100_000).map(|i| 0.6 + i as f32 * 1e-6))
        .collect();
    let sigmoids: Vec<f32> = (0..2_000_001)
        .map(|i| -87.0 + i as f32 * (174.0 / 2e6))
        .collect();
    let sigmoid = |x: f64| 1.0 / (1.0 + (-x).exp());
    let sigmoid: fn(f64) -> f64 = sigmoid;
    let silu: fn(f64) -> f64 = |x: f64| x / (1.0 + (-x).exp());
    let mut worsts = Vec::new();
    for (k, (f, r, xs)) in [
        (
            run::<super::SinCos<0>>(plain) as fn(&mut [f32]),
            f64::sin as fn(f64) -> f64,
            &xs,
        ),
        (run::<super::SinCos<1>>(plain), f64::cos, &xs),
        (run::<super::Exp>(plain), f64::exp, &exps),
        (run::<super::Log>(plain), f64::ln, &logs),
        (run::<super::Exp2>(plain), f64::exp2, &exp2s),
        (run::<super::Log2>(plain), f64::log2, &logs),
        (run::<super::Expm1>(plain), f64::exp_m1, &expm1s),
        (run::<super::Log1p>(plain), f64::ln_1p, &log1ps),
        (run::<super::Tanh>(plain), f64::tanh, &tanhs),
        (run::<super::Sigmoid>(plain), sigmoid, &sigmoids),
        (run::<super::Silu>(plain), silu, &sigmoids),
        (run::<super::Erf>(plain), libm::erf, &erfs),
    ]
    .into_iter()
    .enumerate()
    {
        let mut ys = xs.clone();
        f(&mut ys);
        let (worst, wx) = xs
            .iter()
            .zip(&ys)
            .map(|(&x, &y)| (ulps(y, r(x as f64) as f32), x))
            .max_by_key(|p| p.0)
            .unwrap();
        worsts.push((k, worst, wx));
    }
    // Function k of the list above, its worst error and where.
    assert!(worsts.iter().all(|w| w.1 <= 2), "{worsts:?}");
    // Outside the covered ranges every kernel gives exactly what libm gives (NaN as NaN).
    let edges = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        1e-40,
        -1e-40,
        -1.0,
        -2.0,
        200.0,
        -200.0,
        f32::MAX,
        f32::MIN,
    ];
    let sigmoid32 = |x: f32| {
        if x >= 0.0 {
            1.0 / (1.0 + (-x).exp())
        } else {
            x.exp() / (1.0 + x.exp())
        }
    };
    for (f, r) in [
        (
            run::<super::Exp2>(plain) as fn(&mut [f32]),
            f32::exp2 as fn(f32) -> f32,
        ),
        (run::<super::Expm1>(plain), f32::exp_m1),
        (run::<super::Log2>(plain), f32::log2),
        (run::<super::Log1p>(plain), f32::ln_1p),
        (run::<super::Tanh>(plain), f32::tanh),
        (run::<super::Sigmoid>(plain), sigmoid32),
        (run::<super::Silu>(plain), |x: f32| x / (1.0 + (-x).exp())),
    ] {
        // Each edge beside covered inputs, so the block takes its mixed path.
        for &x in &edges {
            let mut v = [0.5, x, 0.25];
            f(&mut v);
            let want = r(x);
            assert!(
                v[1].to_bits() == want.to_bits() || (v[1].is_nan() && want.is_nan()),
                "f({x}) = {} instead of {want}",
                v[1]
            );
            assert!(ulps(v[0], r(0.5)) <= 2 && ulps(v[2], r(0.25)) <= 2);
        }
    }
    let mut special = [f32::NAN, f32::INFINITY, 1e10, -3e7];
    run::<super::SinCos<0>>(plain)(&mut special);
    assert!(special[0].is_nan() && special[1].is_nan());
    assert_eq!(special[2], 1e10f32.sin());
    // sin(±0) = ±0 (IEEE 754), beside covered inputs.
    let mut zeros = [0.5, -0.0, 0.0, 0.25];
    run::<super::SinCos<0>>(plain)(&mut zeros);
    assert_eq!((zeros[1].to_bits(), zeros[2].to_bits()), (0x8000_0000, 0));
    let mut e = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        89.0,
        -100.0,
        -87.5,
        0.0,
        -0.0,
    ];
    run::<super::Exp>(plain)(&mut e);
    assert!(e[0].is_nan());
    // A NaN beside inputs whose results leave the covered range: only the NaN is redone.
    let mut mixed = [f32::NAN, 5.0, 60.0, -80.0];
    run::<super::Exp>(plain)(&mut mixed);
    assert!(mixed[0].is_nan());
    for (y, x) in mixed[1..].iter().zip([5.0f32, 60.0, -80.0]) {
        assert!(ulps(*y, (x as f64).exp() as f32) <= 2, "exp({x}) = {y}");
    }
    // GELU against its formula in f64: 1 + erf rounds to f32 before the product, so far
    // below 0 the error is up to |x|·2^-23 (PyTorch computes it the same way).
    let mut ys = erfs.clone();
    run::<super::Gelu>(plain)(&mut ys);
    for (&x, &y) in erfs.iter().zip(&ys) {
        let x64 = f64::from(x);
        let r = x64 * 0.5 * (1.0 + libm::erf(x64 * std::f64::consts::FRAC_1_SQRT_2));
        let ok = ulps(y, r as f32) <= 3 || (f64::from(y) - r).abs() <= x64.abs() * 1.2e-7;
        assert!(
            ok || (x == f32::NEG_INFINITY && y.is_nan()),
            "gelu({x}) = {y}, not {r}"
        );
    }
    // GELU's derivative against f64: within a few ulp of its largest term (the sum
    // cancels near x = -0.75, where x φ(x) ≈ -Φ(x)).
    let mut ds = erfs.clone();
    run::<super::GeluGrad>(plain)(&mut ds);
    for (&x, &d) in erfs.iter().zip(&ds) {
        let x64 = f64::from(x);
        let r = super::erf::gelu_grad_f64(x64);
        let scale = 0.5f64.max((x64 * (-0.5 * x64 * x64).exp()).abs() * 0.4);
        assert!(
            (f64::from(d) - r).abs() <= 4.0 * f64::from(f32::EPSILON) * scale
                || (r.is_nan() && d.is_nan()),
            "gelu'({x}) = {d}, not {r}"
        );
    }
    // GELU blocks whose erf arguments are below 2 skip erf's tail piece: the same bits as
    // the whole kernel element by element (on the plain path, whose `eval` this test can
    // call).
    if plain {
        use super::{Erf, Gelu, GeluGrad, Kernel, Plain};
        for (k, f, ys) in [
            (0, Erf::eval::<Plain> as fn(f32) -> f32, run::<Erf>(true)),
            (1, Gelu::eval::<Plain>, run::<Gelu>(true)),
            (2, GeluGrad::eval::<Plain>, run::<GeluGrad>(true)),
        ] {
            let mut got = erfs.clone();
            ys(&mut got);
            let near = erfs
                .chunks(256)
                .filter(|b| b.iter().all(|&x| x.abs() < 1.4))
                .count();
            assert!(near > 1000, "{near} blocks take the near path");
            for (&x, &y) in erfs.iter().zip(&got) {
                let want = if x.is_nan() || (k == 2 && x.is_infinite()) {
                    y
                } else {
                    f(x)
                };
                assert_eq!(y.to_bits(), want.to_bits(), "kernel {k} at {x}");
            }
        }
        // Blocks mixing near and far inputs (uniform on ±3.5 and on ±2.9: a fifth, or a
        // few per block, beyond the near range; NaN, inf and -9 among them) take the near
        // path and redo the far ones: the same bits, in whole blocks and in a short tail.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for width in [7.0f32, 5.8] {
            let mixed: Vec<f32> = (0..4099)
                .map(|i| {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let u = (state >> 40) as f32 / (1u64 << 24) as f32;
                    match i % 397 {
                        0 => f32::NAN,
                        1 => f32::INFINITY,
                        2 => -9.0,
                        _ => (u - 0.5) * width,
                    }
                })
                .collect();
            for (k, f, ys) in [
                (1, Gelu::eval::<Plain> as fn(f32) -> f32, run::<Gelu>(true)),
                (2, GeluGrad::eval::<Plain>, run::<GeluGrad>(true)),
            ] {
                let mut got = mixed.clone();
                ys(&mut got);
                for (&x, &y) in mixed.iter().zip(&got) {
                    let want = match x.is_nan() || (k == 2 && x.is_infinite()) {
                        true => GeluGrad::slow(x),
                        false => f(x),
                    };
                    let same = y.to_bits() == want.to_bits() || (y.is_nan() && want.is_nan());
                    assert!(same, "kernel {k} at {x}: {y} against {want}");
                }
            }
        }
    }
    // SiLU's derivative against PyTorch's formula in f64: within a few ulp of its largest
    // term, s (the sum cancels near x = -1.28, where x s (1 - s) ≈ -s).
    let mut ds = sigmoids.clone();
    run::<super::SiluGrad>(plain)(&mut ds);
    for (&x, &d) in sigmoids.iter().zip(&ds) {
        let r = super::elementary::silu_grad_f64(f64::from(x));
        let s = 1.0 / (1.0 + (-f64::from(x)).exp());
        let scale = s.max((f64::from(x) * s * (1.0 - s)).abs()).max(1e-37);
        assert!(
            (f64::from(d) - r).abs() <= 4.0 * f64::from(f32::EPSILON) * scale,
            "silu'({x}) = {d}, not {r}"
        );
    }
    let mut edge = [0.5, f32::INFINITY, f32::NEG_INFINITY, 1e30, -1e30, f32::NAN];
    run::<super::SiluGrad>(plain)(&mut edge);
    assert!(edge[1].is_nan() && edge[2].is_nan() && edge[5].is_nan());
    assert_eq!((edge[3], edge[4].to_bits()), (1.0, 0x8000_0000));
    let mut inf = [0.5, f32::INFINITY, f32::NEG_INFINITY, 1e30, -1e30, -20.0];
    run::<super::GeluGrad>(plain)(&mut inf);
    assert!(inf[1].is_nan() && inf[2].is_nan());
    assert_eq!(&inf[3..], &[1.0, 0.0, 0.0]);
    let mut zeros = [0.5, -0.0, 0.0, f32::NAN];
    run::<super::Erf>(plain)(&mut zeros);
    assert_eq!((zeros[1].to_bits(), zeros[2].to_bits()), (0x8000_0000, 0));
    assert!(zeros[3].is_nan());
    let mut l = [f32::NAN, 0.0, -0.0, -1.0, f32::INFINITY, 1e-40, 1.0];
    run::<super::Log>(plain)(&mut l);
    assert!(l[0].is_nan() && l[3].is_nan());
    assert_eq!(&l[1..3], &[f32::NEG_INFINITY, f32::NEG_INFINITY]);
    assert_eq!(&l[4..], &[f32::INFINITY, 1e-40f32.ln(), 0.0]);
    assert_eq!(
        &e[1..],
        &[
            f32::INFINITY,
            0.0,
            f32::INFINITY,
            (-100f32).exp(),
            (-87.5f32).exp(),
            1.0,
            1.0
        ]
    );
}

/// Against `f64::powf` rounded once (correctly rounded but for ties closer than 2^-29 ulp)
/// on both evaluation paths, over every binade of both signs, and bit for bit against
/// `f32::powf` at the special cases.
#[test]
fn powf_within_one_ulp_of_the_f64_reference() {
    let mut xs: Vec<f32> = (0..400_000u32)
        .map(|i| f32::from_bits(1 + i * (0x7f7f_ffff / 400_000)))
        .chain((0..100_000).map(|i| 0.99 + i as f32 * 2e-7))
        .collect();
    xs.extend(xs.clone().iter().map(|x| -x));
    xs.extend(SPECIAL);
    xs.extend([
        f32::NAN,
        f32::MIN_POSITIVE,
        f32::MAX,
        -f32::MAX,
        1e-45,
        -1e-45,
    ]);
    let ys = [
        2.5,
        -1.7,
        0.5,
        -0.5,
        3.0,
        -3.0,
        2.0,
        -2.0,
        1.0,
        0.0,
        -0.0,
        1.0 / 3.0,
        10.3,
        1e-3,
        -100.7,
        127.0,
        3e7,
        -3e7,
        16_777_215.0,
        1e-30,
        f32::MAX,
    ];
    for plain in [false, true] {
        let path = if plain {
            super::Path::Plain
        } else {
            super::Path::detect()
        };
        for &y in ys
            .iter()
            .chain(&[f32::NAN, f32::INFINITY, f32::NEG_INFINITY])
        {
            let mut got = xs.clone();
            super::pow::powf_on(&mut got, y, path);
            for (&x, &g) in xs.iter().zip(&got) {
                let want = (x as f64).powf(y as f64) as f32;
                let exact = f32::powf(x, y);
                let special = !super::pow::covers(x) || !y.is_finite();
                let ok = if special {
                    g.to_bits() == exact.to_bits() || (g.is_nan() && exact.is_nan())
                } else {
                    (g.is_nan() && want.is_nan()) || ulps(g, want) <= 1
                };
                assert!(
                    ok,
                    "pow({x:e}, {y:e}) = {g:e}, want {want:e} (f32::powf {exact:e})"
                );
            }
        }
    }
}
